//! The NEON CSR5 tile kernel (thesis 8.5, Alg. 32): the shared tile loop of
//! `arch::generic::spmv_csr5` over 128-bit registers — 2 `f64` or 4 `f32` lanes, so
//! `omega` = 2 / 4 (the layout `omega_for` picks), or two or four registers per step
//! (`omega` = 4 / 8 or 8 / 16: the AVX2 and AVX-512 layouts, so a CSR5 copy made for
//! those widths runs vectorised here too). NEON has no gather: `x` is loaded lane by
//! lane into the register (`vld1q_lane`), and the multiply-adds, lane clears and stores
//! are vector operations.

use crate::arch::generic::spmv_csr5::{Lanes, Pair};
use core::arch::aarch64::*;

/// Two `f64` lanes.
#[derive(Clone, Copy)]
pub(crate) struct F64x2(float64x2_t);

/// Four `f32` lanes.
#[derive(Clone, Copy)]
pub(crate) struct F32x4(float32x4_t);

/// Bit `i` of `words[i]` at step `j`, for `W` words (a scalar loop: NEON has no movemask,
/// and `W` is at most 4).
#[inline(always)]
unsafe fn heads_scalar<const W: usize>(words: *const u32, j: u32) -> u32 {
    let mut m = 0;
    for i in 0..W {
        // SAFETY: `words` is valid for `W` reads (the `Lanes` contract).
        m |= ((unsafe { *words.add(i) } >> j) & 1) << i;
    }
    m
}

macro_rules! f64x2_lanes {
    ($i:ty) => {
        impl Lanes<f64, $i> for F64x2 {
            const W: usize = 2;
            type Slots = ();
            unsafe fn slots(_p: *const u32) {}
            const RUN_CHAINS: usize = 2;
            #[inline(always)]
            unsafe fn load(p: *const f64) -> Self {
                // SAFETY: `p` is valid for 2 reads (trait contract).
                F64x2(unsafe { vld1q_f64(p) })
            }
            #[inline(always)]
            unsafe fn gather(x: *const f64, idx: *const $i) -> Self {
                // SAFETY: `idx` is valid for 2 reads and each index is inside `x`.
                unsafe {
                    let v = vld1q_dup_f64(x.add(*idx as usize));
                    F64x2(vld1q_lane_f64::<1>(x.add(*idx.add(1) as usize), v))
                }
            }
            #[inline(always)]
            unsafe fn fma(self, a: Self, b: Self) -> Self {
                // SAFETY: NEON is present (trait contract).
                F64x2(unsafe { vfmaq_f64(self.0, a.0, b.0) })
            }
            #[inline(always)]
            unsafe fn add(self, o: Self) -> Self {
                // SAFETY: the width's features are present (trait contract).
                F64x2(unsafe { vaddq_f64(self.0, o.0) })
            }
            #[inline(always)]
            unsafe fn lane0(v: f64) -> Self {
                // SAFETY: NEON is present (trait contract).
                F64x2(unsafe { vsetq_lane_f64::<0>(v, vdupq_n_f64(0.0)) })
            }
            #[inline(always)]
            unsafe fn clear(self, mask: u32) -> Self {
                // SAFETY: NEON is present (trait contract).
                unsafe {
                    let sel = vcombine_u64(vcreate_u64(1), vcreate_u64(2));
                    let hit = vtstq_u64(vdupq_n_u64(mask as u64), sel);
                    F64x2(vreinterpretq_f64_u64(vbicq_u64(vreinterpretq_u64_f64(self.0), hit)))
                }
            }
            #[inline(always)]
            unsafe fn store(self, out: *mut f64) {
                // SAFETY: `out` is valid for 2 writes (trait contract).
                unsafe { vst1q_f64(out, self.0) }
            }
            #[inline(always)]
            unsafe fn heads(words: *const u32, j: u32) -> u32 {
                // SAFETY: the trait contract.
                unsafe { heads_scalar::<2>(words, j) }
            }
        }
    };
}

macro_rules! f32x4_lanes {
    ($i:ty) => {
        impl Lanes<f32, $i> for F32x4 {
            const W: usize = 4;
            type Slots = ();
            unsafe fn slots(_p: *const u32) {}
            const RUN_CHAINS: usize = 2;
            #[inline(always)]
            unsafe fn load(p: *const f32) -> Self {
                // SAFETY: `p` is valid for 4 reads (trait contract).
                F32x4(unsafe { vld1q_f32(p) })
            }
            #[inline(always)]
            unsafe fn gather(x: *const f32, idx: *const $i) -> Self {
                // SAFETY: `idx` is valid for 4 reads and each index is inside `x`.
                unsafe {
                    let v = vld1q_dup_f32(x.add(*idx as usize));
                    let v = vld1q_lane_f32::<1>(x.add(*idx.add(1) as usize), v);
                    let v = vld1q_lane_f32::<2>(x.add(*idx.add(2) as usize), v);
                    F32x4(vld1q_lane_f32::<3>(x.add(*idx.add(3) as usize), v))
                }
            }
            #[inline(always)]
            unsafe fn fma(self, a: Self, b: Self) -> Self {
                // SAFETY: NEON is present (trait contract).
                F32x4(unsafe { vfmaq_f32(self.0, a.0, b.0) })
            }
            #[inline(always)]
            unsafe fn add(self, o: Self) -> Self {
                // SAFETY: the width's features are present (trait contract).
                F32x4(unsafe { vaddq_f32(self.0, o.0) })
            }
            #[inline(always)]
            unsafe fn lane0(v: f32) -> Self {
                // SAFETY: NEON is present (trait contract).
                F32x4(unsafe { vsetq_lane_f32::<0>(v, vdupq_n_f32(0.0)) })
            }
            #[inline(always)]
            unsafe fn clear(self, mask: u32) -> Self {
                // SAFETY: NEON is present (trait contract).
                unsafe {
                    let sel = vcombine_u32(vcreate_u32(1 | (2 << 32)), vcreate_u32(4 | (8 << 32)));
                    let hit = vtstq_u32(vdupq_n_u32(mask), sel);
                    F32x4(vreinterpretq_f32_u32(vbicq_u32(vreinterpretq_u32_f32(self.0), hit)))
                }
            }
            #[inline(always)]
            unsafe fn store(self, out: *mut f32) {
                // SAFETY: `out` is valid for 4 writes (trait contract).
                unsafe { vst1q_f32(out, self.0) }
            }
            #[inline(always)]
            unsafe fn heads(words: *const u32, j: u32) -> u32 {
                // SAFETY: the trait contract.
                unsafe { heads_scalar::<4>(words, j) }
            }
        }
    };
}

f64x2_lanes!(u32);
f64x2_lanes!(u64);
f32x4_lanes!(u32);
f32x4_lanes!(u64);

crate::arch::generic::spmv_csr5::tiles_128!(crate::Isa::Neon, #[target_feature(enable = "neon")]);
