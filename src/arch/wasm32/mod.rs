//! WebAssembly paths: `simd128`, compiled in only when the whole crate is built with
//! `-C target-feature=+simd128` (a module that uses SIMD fails validation on a runtime
//! without it, so there is no run-time choice to make).

#[cfg(target_feature = "simd128")]
pub(crate) mod simd128;
