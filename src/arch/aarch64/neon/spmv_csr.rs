//! `neon` CSR SpMV kernels, instantiated into the shared drivers
//! ([`simd_dot`](crate::arch::generic::spmv_csr::simd_dot) and friends).
//!
//! NEON has no gather: each lane of `x[col_idx[k]]` is one scalar load into a lane
//! (`vld1q_lane`), then values and gathered `x` meet in one vector FMA (`vfmaq`). Lanes:
//! 2 × f64 or 4 × f32 per register, for u32 and u64 indices alike (the lane loads take a
//! `usize` offset, so 32-bit indices need no signed-offset limit). The shared driver keeps
//! four such registers in flight per row. Indices are clamped to `x.len() - 1` (one `min`
//! per lane) before the load.

use core::arch::aarch64::*;

use crate::arch::generic::spmv_csr::{DotVec, at, spmv_csr_kernels};

macro_rules! f64x2 {
    ($name:ident, $i:ty) => {
        /// 2 × f64 lanes.
        #[derive(Clone, Copy)]
        pub(crate) struct $name(float64x2_t);

        impl $name {
            /// `x[cols[0]], x[cols[1]]` (clamped).
            ///
            /// # Safety
            /// NEON is enabled; `cols` holds 2 readable indices; `xmax < x.len()`.
            #[inline(always)]
            unsafe fn gather(cols: *const $i, x: *const f64, xmax: usize) -> float64x2_t {
                // SAFETY: the caller promises 2 readable `cols`; `at` clamps each offset to
                // `xmax < x.len()`.
                unsafe {
                    let g = vld1q_dup_f64(at(x, *cols, xmax));
                    vld1q_lane_f64::<1>(at(x, *cols.add(1), xmax), g)
                }
            }
        }

        impl DotVec for $name {
            type T = f64;
            type I = $i;
            const W: usize = 2;
            const MAX_X: usize = usize::MAX;
            const SHORT: usize = 8;

            #[inline(always)]
            unsafe fn zero() -> Self {
                // SAFETY: the caller promises NEON.
                $name(unsafe { vdupq_n_f64(0.0) })
            }
            #[inline(always)]
            unsafe fn mul(vals: *const f64, cols: *const $i, x: *const f64, xmax: usize) -> Self {
                // SAFETY: the caller promises NEON, 2 readable `vals`/`cols`, `xmax < x.len()`.
                unsafe { $name(vmulq_f64(vld1q_f64(vals), Self::gather(cols, x, xmax))) }
            }
            #[inline(always)]
            unsafe fn fma(acc: Self, vals: *const f64, cols: *const $i, x: *const f64, xmax: usize) -> Self {
                // SAFETY: as `mul`.
                unsafe { $name(vfmaq_f64(acc.0, vld1q_f64(vals), Self::gather(cols, x, xmax))) }
            }
            #[inline(always)]
            unsafe fn fma_x(acc: Self, vals: *const f64, x: *const f64) -> Self {
                // SAFETY: the caller promises NEON and 2 readable elements at each pointer.
                unsafe { $name(vfmaq_f64(acc.0, vld1q_f64(vals), vld1q_f64(x))) }
            }
            #[inline(always)]
            unsafe fn fma_tail(
                acc: Self,
                vals: *const f64,
                cols: *const $i,
                x: *const f64,
                xmax: usize,
                n: usize,
            ) -> Self {
                // SAFETY: `n < 2`: only lane 0 is read (when `n == 1`); the offset is clamped.
                unsafe {
                    if n == 0 {
                        return acc;
                    }
                    let p = *vals * *at(x, *cols, xmax);
                    $name(vaddq_f64(acc.0, vsetq_lane_f64::<0>(p, vdupq_n_f64(0.0))))
                }
            }
            #[inline(always)]
            unsafe fn add(a: Self, b: Self) -> Self {
                // SAFETY: the caller promises NEON.
                $name(unsafe { vaddq_f64(a.0, b.0) })
            }
            #[inline(always)]
            unsafe fn sum(self) -> f64 {
                // SAFETY: the caller promises NEON.
                unsafe { vaddvq_f64(self.0) }
            }
            #[inline(always)]
            unsafe fn store(self, out: *mut f64) {
                // SAFETY: the caller promises 2 writable elements.
                unsafe { vst1q_f64(out, self.0) }
            }
        }
    };
}

macro_rules! f32x4 {
    ($name:ident, $i:ty) => {
        /// 4 × f32 lanes.
        #[derive(Clone, Copy)]
        pub(crate) struct $name(float32x4_t);

        impl $name {
            /// `x[cols[0..4]]` (clamped).
            ///
            /// # Safety
            /// NEON is enabled; `cols` holds 4 readable indices; `xmax < x.len()`.
            #[inline(always)]
            unsafe fn gather(cols: *const $i, x: *const f32, xmax: usize) -> float32x4_t {
                // SAFETY: the caller promises 4 readable `cols`; `at` clamps each offset to
                // `xmax < x.len()`.
                unsafe {
                    let g = vld1q_dup_f32(at(x, *cols, xmax));
                    let g = vld1q_lane_f32::<1>(at(x, *cols.add(1), xmax), g);
                    let g = vld1q_lane_f32::<2>(at(x, *cols.add(2), xmax), g);
                    vld1q_lane_f32::<3>(at(x, *cols.add(3), xmax), g)
                }
            }
        }

        impl DotVec for $name {
            type T = f32;
            type I = $i;
            const W: usize = 4;
            const MAX_X: usize = usize::MAX;
            const SHORT: usize = 8;

            #[inline(always)]
            unsafe fn zero() -> Self {
                // SAFETY: the caller promises NEON.
                $name(unsafe { vdupq_n_f32(0.0) })
            }
            #[inline(always)]
            unsafe fn mul(vals: *const f32, cols: *const $i, x: *const f32, xmax: usize) -> Self {
                // SAFETY: the caller promises NEON, 4 readable `vals`/`cols`, `xmax < x.len()`.
                unsafe { $name(vmulq_f32(vld1q_f32(vals), Self::gather(cols, x, xmax))) }
            }
            #[inline(always)]
            unsafe fn fma(acc: Self, vals: *const f32, cols: *const $i, x: *const f32, xmax: usize) -> Self {
                // SAFETY: as `mul`.
                unsafe { $name(vfmaq_f32(acc.0, vld1q_f32(vals), Self::gather(cols, x, xmax))) }
            }
            #[inline(always)]
            unsafe fn fma_x(acc: Self, vals: *const f32, x: *const f32) -> Self {
                // SAFETY: the caller promises NEON and 4 readable elements at each pointer.
                unsafe { $name(vfmaq_f32(acc.0, vld1q_f32(vals), vld1q_f32(x))) }
            }
            #[inline(always)]
            unsafe fn fma_tail(
                acc: Self,
                vals: *const f32,
                cols: *const $i,
                x: *const f32,
                xmax: usize,
                n: usize,
            ) -> Self {
                let mut p = [0.0f32; 4];
                for (j, pj) in p.iter_mut().enumerate().take(n.min(3)) {
                    // SAFETY: `j < n`: lane `j` of `vals`/`cols` is readable (the caller's
                    // promise); the offset is clamped.
                    *pj = unsafe { *vals.add(j) * *at(x, *cols.add(j), xmax) };
                }
                // SAFETY: `p` holds 4 elements; the caller promises NEON.
                unsafe { $name(vaddq_f32(acc.0, vld1q_f32(p.as_ptr()))) }
            }
            #[inline(always)]
            unsafe fn add(a: Self, b: Self) -> Self {
                // SAFETY: the caller promises NEON.
                $name(unsafe { vaddq_f32(a.0, b.0) })
            }
            #[inline(always)]
            unsafe fn sum(self) -> f32 {
                // SAFETY: the caller promises NEON.
                unsafe { vaddvq_f32(self.0) }
            }
            #[inline(always)]
            unsafe fn store(self, out: *mut f32) {
                // SAFETY: the caller promises 4 writable elements.
                unsafe { vst1q_f32(out, self.0) }
            }
        }
    };
}

f64x2!(F64U32, u32);
f64x2!(F64U64, u64);
f32x4!(F32U32, u32);
f32x4!(F32U64, u64);

spmv_csr_kernels!("neon", F64U32, f64, u32, rows_f64_u32, dot_f64_u32, products_f64_u32);
spmv_csr_kernels!("neon", F64U64, f64, u64, rows_f64_u64, dot_f64_u64, products_f64_u64);
spmv_csr_kernels!("neon", F32U32, f32, u32, rows_f32_u32, dot_f32_u32, products_f32_u32);
spmv_csr_kernels!("neon", F32U64, f32, u64, rows_f32_u64, dot_f32_u64, products_f32_u64);

// The symmetric-storage SpMV over the dot products above.
crate::arch::generic::spmv_sym::spmv_sym_kernels!("neon", F64U32, f64, u32, sym_f64_u32, dot_f64_u32);
crate::arch::generic::spmv_sym::spmv_sym_kernels!("neon", F64U64, f64, u64, sym_f64_u64, dot_f64_u64);
crate::arch::generic::spmv_sym::spmv_sym_kernels!("neon", F32U32, f32, u32, sym_f32_u32, dot_f32_u32);
crate::arch::generic::spmv_sym::spmv_sym_kernels!("neon", F32U64, f32, u64, sym_f32_u64, dot_f32_u64);

// The row-scalar loop, compiled for this width.
crate::arch::generic::spmv_csr::scalar_rows_kernels!("neon");
