//! `simd128` CSR SpMV kernels, instantiated into the shared drivers
//! ([`simd_dot`](crate::arch::generic::spmv_csr::simd_dot) and friends).
//!
//! WebAssembly SIMD has no gather and no fused multiply-add: each lane of
//! `x[col_idx[k]]` is one scalar load put into the register, then values and gathered `x`
//! are multiplied and added in `v128`s. Lanes: 2 × f64 or 4 × f32 per register, for u32 and
//! u64 indices alike. The shared driver keeps four such registers in flight per row.
//! Indices are clamped to `x.len() - 1` (one `min` per lane) before the load. Built only
//! with `-C target-feature=+simd128` (see `arch::wasm32`).

use core::arch::wasm32::*;

use crate::arch::generic::spmv_csr::{DotVec, at, spmv_csr_kernels};

macro_rules! f64x2 {
    ($name:ident, $i:ty) => {
        /// 2 × f64 lanes.
        #[derive(Clone, Copy)]
        pub(crate) struct $name(v128);

        impl $name {
            /// `x[cols[0]], x[cols[1]]` (clamped).
            ///
            /// # Safety
            /// simd128 is compiled in; `cols` holds 2 readable indices; `xmax < x.len()`.
            #[inline(always)]
            unsafe fn gather(cols: *const $i, x: *const f64, xmax: usize) -> v128 {
                // SAFETY: the caller promises 2 readable `cols`; `at` clamps each offset to
                // `xmax < x.len()`.
                unsafe { f64x2(*at(x, *cols, xmax), *at(x, *cols.add(1), xmax)) }
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
                $name(f64x2_splat(0.0))
            }
            #[inline(always)]
            unsafe fn mul(vals: *const f64, cols: *const $i, x: *const f64, xmax: usize) -> Self {
                // SAFETY: simd128 is compiled in, 2 readable `vals`/`cols`, `xmax < x.len()`.
                unsafe { $name(f64x2_mul(v128_load(vals.cast()), Self::gather(cols, x, xmax))) }
            }
            #[inline(always)]
            unsafe fn fma(acc: Self, vals: *const f64, cols: *const $i, x: *const f64, xmax: usize) -> Self {
                // SAFETY: as `mul`.
                unsafe {
                    $name(f64x2_add(acc.0, f64x2_mul(v128_load(vals.cast()), Self::gather(cols, x, xmax))))
                }
            }
            #[inline(always)]
            unsafe fn fma_x(acc: Self, vals: *const f64, x: *const f64) -> Self {
                // SAFETY: simd128 is compiled in and 2 readable elements at each pointer.
                unsafe { $name(f64x2_add(acc.0, f64x2_mul(v128_load(vals.cast()), v128_load(x.cast())))) }
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
                    $name(f64x2_add(acc.0, f64x2(p, 0.0)))
                }
            }
            #[inline(always)]
            unsafe fn add(a: Self, b: Self) -> Self {
                $name(f64x2_add(a.0, b.0))
            }
            #[inline(always)]
            unsafe fn sum(self) -> f64 {
                f64x2_extract_lane::<0>(self.0) + f64x2_extract_lane::<1>(self.0)
            }
            #[inline(always)]
            unsafe fn store(self, out: *mut f64) {
                // SAFETY: the caller promises 2 writable elements.
                unsafe { v128_store(out.cast(), self.0) }
            }
        }
    };
}

macro_rules! f32x4 {
    ($name:ident, $i:ty) => {
        /// 4 × f32 lanes.
        #[derive(Clone, Copy)]
        pub(crate) struct $name(v128);

        impl $name {
            /// `x[cols[0..4]]` (clamped).
            ///
            /// # Safety
            /// simd128 is compiled in; `cols` holds 4 readable indices; `xmax < x.len()`.
            #[inline(always)]
            unsafe fn gather(cols: *const $i, x: *const f32, xmax: usize) -> v128 {
                // SAFETY: the caller promises 4 readable `cols`; `at` clamps each offset to
                // `xmax < x.len()`.
                unsafe {
                    f32x4(
                        *at(x, *cols, xmax),
                        *at(x, *cols.add(1), xmax),
                        *at(x, *cols.add(2), xmax),
                        *at(x, *cols.add(3), xmax),
                    )
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
                $name(f32x4_splat(0.0))
            }
            #[inline(always)]
            unsafe fn mul(vals: *const f32, cols: *const $i, x: *const f32, xmax: usize) -> Self {
                // SAFETY: simd128 is compiled in, 4 readable `vals`/`cols`, `xmax < x.len()`.
                unsafe { $name(f32x4_mul(v128_load(vals.cast()), Self::gather(cols, x, xmax))) }
            }
            #[inline(always)]
            unsafe fn fma(acc: Self, vals: *const f32, cols: *const $i, x: *const f32, xmax: usize) -> Self {
                // SAFETY: as `mul`.
                unsafe {
                    $name(f32x4_add(acc.0, f32x4_mul(v128_load(vals.cast()), Self::gather(cols, x, xmax))))
                }
            }
            #[inline(always)]
            unsafe fn fma_x(acc: Self, vals: *const f32, x: *const f32) -> Self {
                // SAFETY: simd128 is compiled in and 4 readable elements at each pointer.
                unsafe { $name(f32x4_add(acc.0, f32x4_mul(v128_load(vals.cast()), v128_load(x.cast())))) }
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
                // SAFETY: `p` holds 4 elements; simd128 is compiled in.
                unsafe { $name(f32x4_add(acc.0, v128_load(p.as_ptr().cast()))) }
            }
            #[inline(always)]
            unsafe fn add(a: Self, b: Self) -> Self {
                $name(f32x4_add(a.0, b.0))
            }
            #[inline(always)]
            unsafe fn sum(self) -> f32 {
                (f32x4_extract_lane::<0>(self.0) + f32x4_extract_lane::<1>(self.0))
                    + (f32x4_extract_lane::<2>(self.0) + f32x4_extract_lane::<3>(self.0))
            }
            #[inline(always)]
            unsafe fn store(self, out: *mut f32) {
                // SAFETY: the caller promises 4 writable elements.
                unsafe { v128_store(out.cast(), self.0) }
            }
        }
    };
}

f64x2!(F64U32, u32);
f64x2!(F64U64, u64);
f32x4!(F32U32, u32);
f32x4!(F32U64, u64);

spmv_csr_kernels!("simd128", F64U32, f64, u32, rows_f64_u32, dot_f64_u32, products_f64_u32);
spmv_csr_kernels!("simd128", F64U64, f64, u64, rows_f64_u64, dot_f64_u64, products_f64_u64);
spmv_csr_kernels!("simd128", F32U32, f32, u32, rows_f32_u32, dot_f32_u32, products_f32_u32);
spmv_csr_kernels!("simd128", F32U64, f32, u64, rows_f32_u64, dot_f32_u64, products_f32_u64);

// The symmetric-storage SpMV over the dot products above.
crate::arch::generic::spmv_sym::spmv_sym_kernels!("simd128", F64U32, f64, u32, sym_f64_u32, dot_f64_u32);
crate::arch::generic::spmv_sym::spmv_sym_kernels!("simd128", F64U64, f64, u64, sym_f64_u64, dot_f64_u64);
crate::arch::generic::spmv_sym::spmv_sym_kernels!("simd128", F32U32, f32, u32, sym_f32_u32, dot_f32_u32);
crate::arch::generic::spmv_sym::spmv_sym_kernels!("simd128", F32U64, f32, u64, sym_f32_u64, dot_f32_u64);

// The row-scalar loop, compiled for this width.
crate::arch::generic::spmv_csr::scalar_rows_kernels!("simd128");
