//! The `portable` width of each primitive family (thesis chapter 4).

pub(crate) mod esc;
pub(crate) mod heap;
pub(crate) mod merge;
pub(crate) mod scan;
pub(crate) mod sort;
pub(crate) mod spmv_csr;
pub(crate) mod spmv_csr5;
pub(crate) mod transpose;
