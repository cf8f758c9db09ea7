#![no_main]
//! See `spblas_fuzz::trsv` (fuzz/src/trsv.rs) for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    spblas_fuzz::trsv::run(data);
});
