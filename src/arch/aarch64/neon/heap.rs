//! `neon` heap kernels: d = 8 (32-bit keys) or 4 (64-bit keys), one child group per
//! register pair (32 bytes, as on AVX2). Find-best-child is a lane-wise max/min of the
//! pair, an across-lanes `vmaxvq`/`vminvq` (64-bit: two lanes read out), an equality
//! compare, and the lane bits gathered into a mask for `trailing_zeros`.

use core::arch::aarch64::*;

use super::merge::{minmax_i64, ord_f32, ord_f64, ord_i32, ord_i64, ord_u32, ord_u64};
use crate::arch::OrdBits;
use crate::arch::generic::heap::{HeapVec, heap_kernels};

/// The lanes of a pair of 4 × 32-bit compare masks as bits 0..8.
#[target_feature(enable = "neon")]
#[inline]
fn bits_u32(e0: uint32x4_t, e1: uint32x4_t) -> u32 {
    let w = vcombine_u32(vcreate_u32(0x0000_0002_0000_0001), vcreate_u32(0x0000_0008_0000_0004));
    vaddvq_u32(vandq_u32(e0, w)) | (vaddvq_u32(vandq_u32(e1, w)) << 4)
}

/// The lanes of a pair of 2 × 64-bit compare masks as bits 0..4.
#[target_feature(enable = "neon")]
#[inline]
fn bits_u64(e0: uint64x2_t, e1: uint64x2_t) -> u32 {
    let lo = (vgetq_lane_u64::<0>(e0) & 1) | (vgetq_lane_u64::<1>(e0) & 2);
    let hi = (vgetq_lane_u64::<0>(e1) & 4) | (vgetq_lane_u64::<1>(e1) & 8);
    (lo | hi) as u32
}

/// Index of the first largest (`MIN`: smallest) of 8 signed-ordered i32.
#[target_feature(enable = "neon")]
#[inline]
fn best_i32<const MIN: bool>(v0: int32x4_t, v1: int32x4_t) -> usize {
    let m = if MIN { vminvq_s32(vminq_s32(v0, v1)) } else { vmaxvq_s32(vmaxq_s32(v0, v1)) };
    let m = vdupq_n_s32(m);
    bits_u32(vceqq_s32(v0, m), vceqq_s32(v1, m)).trailing_zeros() as usize
}

/// Lanes of 8 signed-ordered i32 that displace `root` (below it; `MIN`: above it).
#[target_feature(enable = "neon")]
#[inline]
fn displace_i32<const MIN: bool>(v0: int32x4_t, v1: int32x4_t, root: i32) -> u32 {
    let t = vdupq_n_s32(root);
    if MIN {
        bits_u32(vcgtq_s32(v0, t), vcgtq_s32(v1, t))
    } else {
        bits_u32(vcltq_s32(v0, t), vcltq_s32(v1, t))
    }
}

/// Index of the first largest (`MIN`: smallest) of 4 signed-ordered i64.
#[target_feature(enable = "neon")]
#[inline]
fn best_i64<const MIN: bool>(v0: int64x2_t, v1: int64x2_t) -> usize {
    let (mn, mx) = minmax_i64(v0, v1);
    let r = if MIN { mn } else { mx };
    let (x, y) = (vgetq_lane_s64::<0>(r), vgetq_lane_s64::<1>(r));
    let m = vdupq_n_s64(if MIN { x.min(y) } else { x.max(y) });
    bits_u64(vceqq_s64(v0, m), vceqq_s64(v1, m)).trailing_zeros() as usize
}

/// Lanes of 4 signed-ordered i64 that displace `root`.
#[target_feature(enable = "neon")]
#[inline]
fn displace_i64<const MIN: bool>(v0: int64x2_t, v1: int64x2_t, root: i64) -> u32 {
    let t = vdupq_n_s64(root);
    if MIN {
        bits_u64(vcgtq_s64(v0, t), vcgtq_s64(v1, t))
    } else {
        bits_u64(vcltq_s64(v0, t), vcltq_s64(v1, t))
    }
}

macro_rules! heap_vec {
    ($name:ident, $t:ty, $d:expr, $lanes:expr, $ld:ident, $raw:ty, $ord:ident, $best:ident, $displace:ident) => {
        /// One child group of `D` keys in a register pair.
        pub(crate) struct $name;

        impl HeapVec for $name {
            type Elem = $t;
            const D: usize = $d;

            #[inline(always)]
            unsafe fn best<const MIN: bool>(p: *const $t) -> usize {
                let p = p.cast::<$raw>();
                // SAFETY: the caller promises `p` is valid for `D` keys (two 16-byte loads at
                // `p` and `p + lanes`) and that NEON is enabled.
                unsafe { $best::<MIN>($ord($ld(p)), $ord($ld(p.add($lanes)))) }
            }

            #[inline(always)]
            unsafe fn displace_mask<const MIN: bool>(p: *const $t, root: $t) -> u32 {
                let p = p.cast::<$raw>();
                // SAFETY: as for `best`.
                unsafe { $displace::<MIN>($ord($ld(p)), $ord($ld(p.add($lanes))), root.ord()) }
            }
        }
    };
}

heap_vec!(U32x8, u32, 8, 4, vld1q_s32, i32, ord_u32, best_i32, displace_i32);
heap_vec!(I32x8, i32, 8, 4, vld1q_s32, i32, ord_i32, best_i32, displace_i32);
heap_vec!(F32x8, f32, 8, 4, vld1q_s32, i32, ord_f32, best_i32, displace_i32);
heap_vec!(U64x4, u64, 4, 2, vld1q_s64, i64, ord_u64, best_i64, displace_i64);
heap_vec!(I64x4, i64, 4, 2, vld1q_s64, i64, ord_i64, best_i64, displace_i64);
heap_vec!(F64x4, f64, 4, 2, vld1q_s64, i64, ord_f64, best_i64, displace_i64);

heap_kernels!(
    "neon",
    U32x8,
    u32,
    sift_down_u32,
    sift_down_pairs_u32,
    heapify_u32,
    heapify_pairs_u32,
    select_u32
);
heap_kernels!(
    "neon",
    F32x8,
    f32,
    sift_down_f32,
    sift_down_pairs_f32,
    heapify_f32,
    heapify_pairs_f32,
    select_f32
);
heap_kernels!(
    "neon",
    U64x4,
    u64,
    sift_down_u64,
    sift_down_pairs_u64,
    heapify_u64,
    heapify_pairs_u64,
    select_u64
);
heap_kernels!(
    "neon",
    F64x4,
    f64,
    sift_down_f64,
    sift_down_pairs_f64,
    heapify_f64,
    heapify_pairs_f64,
    select_f64
);
heap_kernels!(
    "neon",
    I32x8,
    i32,
    sift_down_i32,
    sift_down_pairs_i32,
    heapify_i32,
    heapify_pairs_i32,
    select_i32
);
heap_kernels!(
    "neon",
    I64x4,
    i64,
    sift_down_i64,
    sift_down_pairs_i64,
    heapify_i64,
    heapify_pairs_i64,
    select_i64
);
