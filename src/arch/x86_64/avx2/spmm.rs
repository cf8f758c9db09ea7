//! `avx2` CSR SpMM registers: 4 × f64 (`__m256d`, half `__m128d`) and 8 × f32 (`__m256`,
//! half `__m128`) with `vfmadd`, instantiated into the shared row kernel
//! ([`rows_row_major`](crate::arch::generic::spmm::rows_row_major)).

use core::arch::x86_64::*;

use crate::arch::generic::spmm::{MmVec, spmm_kernels};

mm_vec!(F64x4(__m256d): f64, lanes 4, half F64x2;
    splat _mm256_set1_pd, load _mm256_loadu_pd, store _mm256_storeu_pd,
    fmadd _mm256_fmadd_pd, mul _mm256_mul_pd, add _mm256_add_pd);
mm_vec!(F64x2(__m128d): f64, lanes 2, half F64x2;
    splat _mm_set1_pd, load _mm_loadu_pd, store _mm_storeu_pd,
    fmadd _mm_fmadd_pd, mul _mm_mul_pd, add _mm_add_pd);
mm_vec!(F32x8(__m256): f32, lanes 8, half F32x4;
    splat _mm256_set1_ps, load _mm256_loadu_ps, store _mm256_storeu_ps,
    fmadd _mm256_fmadd_ps, mul _mm256_mul_ps, add _mm256_add_ps);
mm_vec!(F32x4(__m128): f32, lanes 4, half F32x4;
    splat _mm_set1_ps, load _mm_loadu_ps, store _mm_storeu_ps,
    fmadd _mm_fmadd_ps, mul _mm_mul_ps, add _mm_add_ps);

spmm_kernels!("avx2,fma", F64x4, F32x8);
