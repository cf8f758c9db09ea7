//! `neon` CSR SpMM registers: 2 × f64 (`float64x2_t`) and 4 × f32 (`float32x4_t`) with
//! `vfmaq`, instantiated into the shared row kernel
//! ([`rows_row_major`](crate::arch::generic::spmm::rows_row_major)).

use core::arch::aarch64::*;

use crate::arch::generic::spmm::{MmVec, spmm_kernels};

macro_rules! neon_vec {
    ($name:ident($reg:ty): $t:ty, lanes $w:literal;
        splat $splat:ident, load $load:ident, store $store:ident, fma $fma:ident, mul $mul:ident, add $add:ident) => {
        /// One NEON register of SpMM sums.
        #[derive(Clone, Copy)]
        pub(crate) struct $name($reg);

        impl MmVec for $name {
            type T = $t;
            type Half = $name;
            const W: usize = $w;
            #[inline(always)]
            unsafe fn splat(v: $t) -> Self {
                // SAFETY: the caller promises NEON.
                $name(unsafe { $splat(v) })
            }
            #[inline(always)]
            unsafe fn load(p: *const $t) -> Self {
                // SAFETY: the caller promises NEON and a register of readable elements.
                $name(unsafe { $load(p) })
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut $t) {
                // SAFETY: the caller promises NEON and a register of writable elements.
                unsafe { $store(p, self.0) }
            }
            #[inline(always)]
            unsafe fn fma(acc: Self, a: Self, b: Self) -> Self {
                // SAFETY: the caller promises NEON.
                $name(unsafe { $fma(acc.0, a.0, b.0) })
            }
            #[inline(always)]
            unsafe fn mul(a: Self, b: Self) -> Self {
                // SAFETY: the caller promises NEON.
                $name(unsafe { $mul(a.0, b.0) })
            }
            #[inline(always)]
            unsafe fn add(a: Self, b: Self) -> Self {
                // SAFETY: the caller promises NEON.
                $name(unsafe { $add(a.0, b.0) })
            }
        }
    };
}

neon_vec!(F64x2(float64x2_t): f64, lanes 2;
    splat vdupq_n_f64, load vld1q_f64, store vst1q_f64, fma vfmaq_f64, mul vmulq_f64, add vaddq_f64);
neon_vec!(F32x4(float32x4_t): f32, lanes 4;
    splat vdupq_n_f32, load vld1q_f32, store vst1q_f32, fma vfmaq_f32, mul vmulq_f32, add vaddq_f32);

spmm_kernels!("neon", F64x2, F32x4);
