#![no_main]
//! See `spblas_fuzz::spmm` (fuzz/src/spmm.rs) for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    spblas_fuzz::spmm::run(data);
});
