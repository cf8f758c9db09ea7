//! The only home of `unsafe` SIMD intrinsics (DESIGN principle 4).
//!
//! One module per width — [`portable`], `x86_64::avx2`, `x86_64::avx512`,
//! `aarch64::neon` — and inside each, one file per primitive family (`scan`, `sort`,
//! `merge`, `heap`) with the same function names in every width, so the dispatchers in
//! `crate::primitives` read as one `match isa`. (DESIGN.md drew one file per width; with
//! four primitive families each width would pass 2,000 lines, so each width is a folder.)
//!
//! Every intrinsic function is a `#[target_feature(enable = "..")] unsafe fn` whose
//! `# Safety` says what the caller must have checked (the feature is present: callers
//! reach it only through an [`crate::Isa`] whose `is_available()` was true); every
//! `unsafe` block inside carries a `// SAFETY:` comment on why each access is in bounds.
#![allow(unsafe_code)]

pub(crate) mod portable;

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
