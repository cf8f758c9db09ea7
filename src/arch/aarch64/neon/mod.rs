//! The `neon` width of each primitive family (thesis chapter 4).

/// This width's registers of `T`: the type each family's vector trait (`ScanVec`, ...)
/// is implemented for, so that the generic kernels in `arch::generic` can be
/// instantiated per (width, element type).
pub(crate) struct Neon<T>(core::marker::PhantomData<T>);

pub(crate) mod dia;
pub(crate) mod heap;
pub(crate) mod merge;
pub(crate) mod scan;
pub(crate) mod scatter;
pub(crate) mod sort;
pub(crate) mod spmm;
pub(crate) mod spmv_csr;
pub(crate) mod spmv_csr5;
pub(crate) mod transpose;
