#![no_main]
//! See `spblas_fuzz::formats` (fuzz/src/formats.rs) for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    spblas_fuzz::formats::run(data);
});
