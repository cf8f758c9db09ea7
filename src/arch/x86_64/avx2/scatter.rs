//! This width's entry point of the `Aᵀx` row scatter ([`crate::arch::generic::scatter`]).

crate::arch::generic::scatter::scatter_kernels!("avx2,fma");
