#![no_main]
//! See `spblas_fuzz::threads` (fuzz/src/threads.rs) for what this target checks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    spblas_fuzz::threads::run(data);
});
