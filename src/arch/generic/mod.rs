//! Each algorithm of `arch` written once, over the narrow vector trait its family needs;
//! the widths (`portable`, `x86_64::{avx2, avx512}`, `aarch64::neon`) implement the traits
//! and hold the thin `#[target_feature]` entry points.

pub(crate) mod scan;
