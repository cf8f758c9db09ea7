#![no_main]
//! See `spblas_fuzz::level1` (fuzz/src/level1.rs) for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    spblas_fuzz::level1::run(data);
});
