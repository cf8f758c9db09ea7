//! x86-64 paths: AVX2 (+FMA) and AVX-512 (F, VL, BW, DQ).

pub(crate) mod avx2;
pub(crate) mod avx512;
