//! AArch64 paths: Advanced SIMD (NEON).

pub(crate) mod neon;
