#![no_main]
//! See `spblas_fuzz::csr5_roundtrip` (fuzz/src/csr5_roundtrip.rs) for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    spblas_fuzz::csr5_roundtrip::run(data);
});
