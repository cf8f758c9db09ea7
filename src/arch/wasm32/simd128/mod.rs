//! The `simd128` width: the CSR5 tile kernel's lanes (thesis chapter 5).

pub(crate) mod spmv_csr5;
