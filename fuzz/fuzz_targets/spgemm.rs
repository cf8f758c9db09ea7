#![no_main]
//! See `spblas_fuzz::spgemm` (fuzz/src/spgemm.rs) for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    spblas_fuzz::spgemm::run(data);
});
