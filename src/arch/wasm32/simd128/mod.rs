//! The `simd128` width: the CSR row kernels' registers and the CSR5 tile kernel's lanes
//! (thesis chapters 5 and 8); every other family runs the portable path here.

pub(crate) mod spmv_csr;
pub(crate) mod spmv_csr5;
