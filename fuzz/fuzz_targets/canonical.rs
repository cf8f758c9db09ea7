#![no_main]
//! See `spblas_fuzz::canonical` (fuzz/src/canonical.rs) for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    spblas_fuzz::canonical::run(data);
});
