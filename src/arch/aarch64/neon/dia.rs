//! This width's entry point of the blocked DIA SpMV ([`crate::arch::generic::dia`]).

crate::arch::generic::dia::dia_kernels!("neon", 16);
