//! `avx512` CSR SpMM registers: 8 × f64 (`__m512d`) and 16 × f32 (`__m512`) with
//! `vfmadd`, their halves AVX2's (which also run blocks of at most 64 bytes a row),
//! instantiated into the shared row kernel
//! ([`rows_row_major`](crate::arch::generic::spmm::rows_row_major)).

use core::arch::x86_64::*;

use crate::arch::generic::spmm::{MmVec, spmm_kernels};
use crate::arch::x86_64::avx2::spmm::{F32x8, F64x4};

mm_vec!(F64x8(__m512d): f64, lanes 8, half F64x4;
    splat _mm512_set1_pd, load _mm512_loadu_pd, store _mm512_storeu_pd,
    fmadd _mm512_fmadd_pd, mul _mm512_mul_pd, add _mm512_add_pd);
mm_vec!(F32x16(__m512): f32, lanes 16, half F32x8;
    splat _mm512_set1_ps, load _mm512_loadu_ps, store _mm512_storeu_ps,
    fmadd _mm512_fmadd_ps, mul _mm512_mul_ps, add _mm512_add_ps);

spmm_kernels!("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma", F64x8, F32x16; narrow crate::arch::x86_64::avx2::spmm);
