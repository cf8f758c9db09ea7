#![no_main]
//! See `spblas_fuzz::mtx` (fuzz/src/mtx.rs) for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    spblas_fuzz::mtx::run(data);
});
