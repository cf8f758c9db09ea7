//! Each algorithm of `arch` written once, over the narrow vector trait its family needs
//! (`ScanVec`, `Unit`, `HeapVec`, `MergeVec`, `DotVec`, `Lanes`, `MmVec`; the symmetric
//! SpMV reuses `DotVec`'s dot products); the widths
//! (`portable`, `x86_64::{avx2, avx512}`, `aarch64::neon`) implement the traits and hold
//! the thin `#[target_feature]` entry points. Each family's file also holds its
//! dispatcher: the one way from a [`Checked`](super::Checked) `Isa` into a width.

pub(crate) mod dia;
pub(crate) mod esc;
pub(crate) mod heap;
pub(crate) mod merge;
pub(crate) mod scan;
pub(crate) mod scatter;
pub(crate) mod sort;
pub(crate) mod spmm;
pub(crate) mod spmm_csr5;
pub(crate) mod spmv_csr;
pub(crate) mod spmv_csr5;
pub(crate) mod spmv_sym;
pub(crate) mod transpose;
