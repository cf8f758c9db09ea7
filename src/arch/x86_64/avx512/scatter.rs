//! This width's entry point of the `Aᵀx` row scatter ([`crate::arch::generic::scatter`]).

crate::arch::generic::scatter::scatter_kernels!("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma");
