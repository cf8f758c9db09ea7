//! This width's entry point of the blocked DIA SpMV ([`crate::arch::generic::dia`]).

crate::arch::generic::dia::dia_kernels!("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma", 32);
