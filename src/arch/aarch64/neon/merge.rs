//! `neon` merge kernels: the bitonic merge network over register pairs — 8 × 32-bit keys
//! (two `int32x4_t`) or 4 × 64-bit keys (two `int64x2_t`), the same 32 bytes per step as
//! AVX2 — instantiated into the shared vectorised merge
//! ([`simd_merge`](crate::arch::generic::merge::simd_merge)).
//!
//! The widest half-cleaner of a pair compares the two registers directly; the narrower
//! ones regroup lanes with `vcombine`/`vuzp`/`vzip` so that every compare is still one
//! register against another. Keys are mapped into the signed-ordered domain on load and
//! back on store, as on x86. NEON has no 64-bit min/max: `vcgtq_s64` + `vbslq_s64`.

use core::arch::aarch64::*;

use crate::arch::generic::merge::{MergeVec, merge_kernel};

/// u32 → signed-ordered i32 (and back: an involution).
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn ord_u32(x: int32x4_t) -> int32x4_t {
    veorq_s32(x, vdupq_n_s32(i32::MIN))
}

/// f32 bits → signed-ordered i32 in `total_cmp` order (and back).
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn ord_f32(x: int32x4_t) -> int32x4_t {
    let m = vreinterpretq_s32_u32(vshrq_n_u32::<1>(vreinterpretq_u32_s32(vshrq_n_s32::<31>(x))));
    veorq_s32(x, m)
}

/// u64 → signed-ordered i64 (and back).
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn ord_u64(x: int64x2_t) -> int64x2_t {
    veorq_s64(x, vdupq_n_s64(i64::MIN))
}

/// f64 bits → signed-ordered i64 in `total_cmp` order (and back).
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn ord_f64(x: int64x2_t) -> int64x2_t {
    let m = vreinterpretq_s64_u64(vshrq_n_u64::<1>(vreinterpretq_u64_s64(vshrq_n_s64::<63>(x))));
    veorq_s64(x, m)
}

/// i32 is its own signed-ordered image (the identity, for the shared register types).
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn ord_i32(x: int32x4_t) -> int32x4_t {
    x
}

/// i64 is its own signed-ordered image.
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn ord_i64(x: int64x2_t) -> int64x2_t {
    x
}

/// Signed 64-bit (min, max) lane-wise.
#[target_feature(enable = "neon")]
#[inline]
pub(crate) fn minmax_i64(a: int64x2_t, b: int64x2_t) -> (int64x2_t, int64x2_t) {
    let gt = vcgtq_s64(a, b);
    (vbslq_s64(gt, b, a), vbslq_s64(gt, a, b))
}

/// Reverses 4 × i32.
#[target_feature(enable = "neon")]
#[inline]
fn rev_i32(v: int32x4_t) -> int32x4_t {
    let r = vrev64q_s32(v);
    vextq_s32::<2>(r, r)
}

/// Sorts a bitonic pair of 8 × i32: half-cleaners at distances 4, 2, 1.
#[target_feature(enable = "neon")]
#[inline]
fn clean_i32(r0: int32x4_t, r1: int32x4_t) -> (int32x4_t, int32x4_t) {
    let (r0, r1) = (vminq_s32(r0, r1), vmaxq_s32(r0, r1));
    let x = vcombine_s32(vget_low_s32(r0), vget_low_s32(r1));
    let y = vcombine_s32(vget_high_s32(r0), vget_high_s32(r1));
    let (mn, mx) = (vminq_s32(x, y), vmaxq_s32(x, y));
    let r0 = vcombine_s32(vget_low_s32(mn), vget_low_s32(mx));
    let r1 = vcombine_s32(vget_high_s32(mn), vget_high_s32(mx));
    let (x, y) = (vuzp1q_s32(r0, r1), vuzp2q_s32(r0, r1));
    let (mn, mx) = (vminq_s32(x, y), vmaxq_s32(x, y));
    (vzip1q_s32(mn, mx), vzip2q_s32(mn, mx))
}

/// Bitonic merge of two sorted pairs of 8 × i32.
#[target_feature(enable = "neon")]
#[inline]
fn network_i32(a: [int32x4_t; 2], b: [int32x4_t; 2]) -> ([int32x4_t; 2], [int32x4_t; 2]) {
    let (b0, b1) = (rev_i32(b[1]), rev_i32(b[0]));
    let (l0, l1) = clean_i32(vminq_s32(a[0], b0), vminq_s32(a[1], b1));
    let (h0, h1) = clean_i32(vmaxq_s32(a[0], b0), vmaxq_s32(a[1], b1));
    ([l0, l1], [h0, h1])
}

/// Sorts a bitonic pair of 4 × i64: half-cleaners at distances 2, 1.
#[target_feature(enable = "neon")]
#[inline]
fn clean_i64(r0: int64x2_t, r1: int64x2_t) -> (int64x2_t, int64x2_t) {
    let (r0, r1) = minmax_i64(r0, r1);
    let (mn, mx) = minmax_i64(vzip1q_s64(r0, r1), vzip2q_s64(r0, r1));
    (vzip1q_s64(mn, mx), vzip2q_s64(mn, mx))
}

/// Bitonic merge of two sorted pairs of 4 × i64.
#[target_feature(enable = "neon")]
#[inline]
fn network_i64(a: [int64x2_t; 2], b: [int64x2_t; 2]) -> ([int64x2_t; 2], [int64x2_t; 2]) {
    let (b0, b1) = (vextq_s64::<1>(b[1], b[1]), vextq_s64::<1>(b[0], b[0]));
    let (l0, h0) = minmax_i64(a[0], b0);
    let (l1, h1) = minmax_i64(a[1], b1);
    let (l0, l1) = clean_i64(l0, l1);
    let (h0, h1) = clean_i64(h0, h1);
    ([l0, l1], [h0, h1])
}

macro_rules! merge_vec {
    ($name:ident, $t:ty, $w:expr, $reg:ty, $lanes:expr, $ld:ident, $st:ident, $raw:ty, $ord:ident, $net:ident) => {
        /// A pair of registers of keys in the signed-ordered domain.
        #[derive(Clone, Copy)]
        pub(crate) struct $name([$reg; 2]);

        impl MergeVec for $name {
            type Elem = $t;
            const W: usize = $w;

            #[inline(always)]
            unsafe fn load(p: *const $t) -> Self {
                let p = p.cast::<$raw>();
                // SAFETY: the caller promises `p` is valid for `W` keys (32 bytes: two
                // 16-byte loads at `p` and `p + lanes`) and that NEON is enabled.
                unsafe { $name([$ord($ld(p)), $ord($ld(p.add($lanes)))]) }
            }

            #[inline(always)]
            unsafe fn store(self, p: *mut $t) {
                let p = p.cast::<$raw>();
                // SAFETY: the caller promises `p` is valid for writing `W` keys (two 16-byte
                // stores) and that NEON is enabled.
                unsafe {
                    $st(p, $ord(self.0[0]));
                    $st(p.add($lanes), $ord(self.0[1]));
                }
            }

            #[inline(always)]
            unsafe fn network(a: Self, b: Self) -> (Self, Self) {
                // SAFETY: the caller promises NEON is enabled; no memory is touched.
                let (lo, hi) = unsafe { $net(a.0, b.0) };
                ($name(lo), $name(hi))
            }
        }
    };
}

merge_vec!(U32x8, u32, 8, int32x4_t, 4, vld1q_s32, vst1q_s32, i32, ord_u32, network_i32);
merge_vec!(I32x8, i32, 8, int32x4_t, 4, vld1q_s32, vst1q_s32, i32, ord_i32, network_i32);
merge_vec!(F32x8, f32, 8, int32x4_t, 4, vld1q_s32, vst1q_s32, i32, ord_f32, network_i32);
merge_vec!(U64x4, u64, 4, int64x2_t, 2, vld1q_s64, vst1q_s64, i64, ord_u64, network_i64);
merge_vec!(I64x4, i64, 4, int64x2_t, 2, vld1q_s64, vst1q_s64, i64, ord_i64, network_i64);
merge_vec!(F64x4, f64, 4, int64x2_t, 2, vld1q_s64, vst1q_s64, i64, ord_f64, network_i64);

merge_kernel!("neon", U32x8, true, u32, merge_u32);
merge_kernel!("neon", I32x8, true, i32, merge_i32);
merge_kernel!("neon", F32x8, true, f32, merge_f32);
merge_kernel!("neon", U64x4, true, u64, merge_u64);
merge_kernel!("neon", I64x4, true, i64, merge_i64);
merge_kernel!("neon", F64x4, true, f64, merge_f64);
