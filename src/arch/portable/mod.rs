//! The `portable` width of each primitive family (thesis chapter 4): plain Rust, no
//! target feature, the implementations of `arch::generic`'s traits (or the plain loops)
//! that every target runs and that the SIMD widths are checked against.

pub(crate) mod heap;
pub(crate) mod merge;
pub(crate) mod scan;
pub(crate) mod sort;
pub(crate) mod spmm;
pub(crate) mod spmv_csr;
pub(crate) mod spmv_csr5;
