#![no_main]
//! See `spblas_fuzz::isa_equivalence` (fuzz/src/isa_equivalence.rs) for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    spblas_fuzz::isa_equivalence::run(data);
});
