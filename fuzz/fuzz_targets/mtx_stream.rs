#![no_main]
//! See `spblas_fuzz::mtx_stream` (fuzz/src/mtx_stream.rs) for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    spblas_fuzz::mtx_stream::run(data);
});
