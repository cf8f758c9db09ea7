//! `neon` scan kernels: 128-bit vectors, 4 lanes of `u32`/`f32`, 2 of `u64`/`f64`.
//!
//! The loops are `arch::generic::scan`'s, over [`ScanVec`]; this file supplies
//! the in-register operations. A lane shift by `d` is one `ext` against the fill vector;
//! a per-lane select from a bit mask is `cmtst` of the broadcast mask against the lane
//! bits, then `bsl`. NEON has no gather: the fix-up of the fast segmented sum reads
//! `scan[i + seg_offset[i]]` lane by lane, then subtracts and adds in vectors.

use core::arch::aarch64::*;

use super::Neon;

/// `[1, 2, 4, 8]`: lane `j`'s bit of a mask.
#[inline]
#[target_feature(enable = "neon")]
fn lane_bits32() -> uint32x4_t {
    vcombine_u32(vcreate_u32(1 | 2 << 32), vcreate_u32(4 | 8 << 32))
}

/// All-ones in 32-bit lanes whose bit in `bits` is set.
#[inline]
#[target_feature(enable = "neon")]
fn mask32(bits: u32) -> uint32x4_t {
    vtstq_u32(vdupq_n_u32(bits), lane_bits32())
}

/// All-ones in 64-bit lanes whose bit in `bits` is set.
#[inline]
#[target_feature(enable = "neon")]
fn mask64(bits: u32) -> uint64x2_t {
    vtstq_u64(vdupq_n_u64(u64::from(bits)), vcombine_u64(vcreate_u64(1), vcreate_u64(2)))
}

/// `base[min(i + j + seg_offset[j], last)]` for `j < W`, into `out`.
///
/// # Safety
/// `seg_offset` is valid for reads of `W` `u32`s and `base` for reads at `0..=last`.
#[inline]
unsafe fn gather_lanes<T: Copy, const W: usize>(
    base: *const T,
    seg_offset: *const u32,
    i: usize,
    last: usize,
    out: &mut [T; W],
) {
    for (j, o) in out.iter_mut().enumerate() {
        // SAFETY: `j < W` reads inside `seg_offset[..W]`; the index is clamped to `last`.
        unsafe {
            let off = seg_offset.add(j).read();
            let idx = ((i + j) as u32).wrapping_add(off) as usize;
            *o = base.add(idx.min(last)).read();
        }
    }
}

macro_rules! impl_simd {
    (
        $t:ty, V = $v:ty, lanes = $w:literal,
        load = $load:ident, store = $store:ident, dup = $dup:ident,
        add = $add:ident, sub = $sub:ident,
        shl = |$lv:ident, $lf:ident, $ld:ident| $shl:expr,
        shr = |$rv:ident, $rf:ident, $rd:ident| $shr:expr,
        mask = $mask:ident, bsl = $bsl:ident,
        dup_lane = $dup_lane:ident, get_lane = $get_lane:ident, addv = $addv:ident
    ) => {
        // Every method: the trait's contract says NEON is present and the pointers are
        // valid for the `W` elements the method reads or writes.
        impl ScanVec for Neon<$t> {
            type E = $t;
            type V = $v;
            const W: usize = $w;
            #[inline]
            #[target_feature(enable = "neon")]
            unsafe fn loadu(p: *const $t) -> $v {
                // SAFETY: `p` is valid for reads of 16 bytes (contract); `ld1` needs only
                // element alignment, which a `*const $t` into a slice has.
                unsafe { $load(p) }
            }
            #[inline]
            #[target_feature(enable = "neon")]
            unsafe fn storeu(p: *mut $t, v: $v) {
                // SAFETY: `p` is valid for writes of 16 bytes (contract).
                unsafe { $store(p, v) }
            }
            const STREAM: bool = false;
            #[inline]
            #[target_feature(enable = "neon")]
            unsafe fn stream(p: *mut $t, v: $v) {
                // SAFETY: as `storeu` (`STREAM` is false: never called to stream).
                unsafe { $store(p, v) }
            }
            #[inline]
            #[target_feature(enable = "neon")]
            unsafe fn fence() {}
            #[inline]
            #[target_feature(enable = "neon")]
            unsafe fn prefetch(_: *const u8) {}
            #[inline]
            #[target_feature(enable = "neon")]
            unsafe fn splat(x: $t) -> $v {
                $dup(x)
            }
            #[inline]
            #[target_feature(enable = "neon")]
            unsafe fn vadd(a: $v, b: $v) -> $v {
                $add(a, b)
            }
            #[inline]
            #[target_feature(enable = "neon")]
            unsafe fn vsub(a: $v, b: $v) -> $v {
                $sub(a, b)
            }
            #[inline]
            #[target_feature(enable = "neon")]
            unsafe fn shl($lv: $v, $lf: $v, $ld: u32) -> $v {
                $shl
            }
            #[inline]
            #[target_feature(enable = "neon")]
            unsafe fn shr($rv: $v, $rf: $v, $rd: u32) -> $v {
                $shr
            }
            #[inline]
            #[target_feature(enable = "neon")]
            unsafe fn select(bits: u32, a: $v, b: $v) -> $v {
                $bsl($mask(bits), a, b)
            }
            #[inline]
            #[target_feature(enable = "neon")]
            unsafe fn bcast_first(v: $v) -> $v {
                $dup_lane::<0>(v)
            }
            #[inline]
            #[target_feature(enable = "neon")]
            unsafe fn bcast_last(v: $v) -> $v {
                $dup_lane::<{ $w - 1 }>(v)
            }
            #[inline]
            #[target_feature(enable = "neon")]
            unsafe fn first(v: $v) -> $t {
                $get_lane::<0>(v)
            }
            #[inline]
            #[target_feature(enable = "neon")]
            unsafe fn hsum(v: $v) -> $t {
                $addv(v)
            }
            #[inline]
            #[target_feature(enable = "neon")]
            unsafe fn gather(base: *const $t, seg_offset: *const u32, i: usize, last: usize) -> $v {
                let mut lanes = [<$t as Elem>::ZERO; $w];
                // SAFETY: the contract: `seg_offset` holds `W` readable `u32`s and `base`
                // is readable at `0..=last`; `lanes` is `W` elements.
                unsafe {
                    gather_lanes(base, seg_offset, i, last, &mut lanes);
                    $load(lanes.as_ptr())
                }
            }
        }
    };
}

crate::arch::generic::scan::scan_entries!(Neon, "neon");

impl_simd!(
    u32,
    V = uint32x4_t,
    lanes = 4,
    load = vld1q_u32,
    store = vst1q_u32,
    dup = vdupq_n_u32,
    add = vaddq_u32,
    sub = vsubq_u32,
    shl = |v, f, d| if d == 1 { vextq_u32::<3>(f, v) } else { vextq_u32::<2>(f, v) },
    shr = |v, f, d| if d == 1 { vextq_u32::<1>(v, f) } else { vextq_u32::<2>(v, f) },
    mask = mask32,
    bsl = vbslq_u32,
    dup_lane = vdupq_laneq_u32,
    get_lane = vgetq_lane_u32,
    addv = vaddvq_u32
);
impl_simd!(
    u64,
    V = uint64x2_t,
    lanes = 2,
    load = vld1q_u64,
    store = vst1q_u64,
    dup = vdupq_n_u64,
    add = vaddq_u64,
    sub = vsubq_u64,
    shl = |v, f, _d| vextq_u64::<1>(f, v),
    shr = |v, f, _d| vextq_u64::<1>(v, f),
    mask = mask64,
    bsl = vbslq_u64,
    dup_lane = vdupq_laneq_u64,
    get_lane = vgetq_lane_u64,
    addv = vaddvq_u64
);
impl_simd!(
    f32,
    V = float32x4_t,
    lanes = 4,
    load = vld1q_f32,
    store = vst1q_f32,
    dup = vdupq_n_f32,
    add = vaddq_f32,
    sub = vsubq_f32,
    shl = |v, f, d| if d == 1 { vextq_f32::<3>(f, v) } else { vextq_f32::<2>(f, v) },
    shr = |v, f, d| if d == 1 { vextq_f32::<1>(v, f) } else { vextq_f32::<2>(v, f) },
    mask = mask32,
    bsl = vbslq_f32,
    dup_lane = vdupq_laneq_f32,
    get_lane = vgetq_lane_f32,
    addv = vaddvq_f32
);
impl_simd!(
    f64,
    V = float64x2_t,
    lanes = 2,
    load = vld1q_f64,
    store = vst1q_f64,
    dup = vdupq_n_f64,
    add = vaddq_f64,
    sub = vsubq_f64,
    shl = |v, f, _d| vextq_f64::<1>(f, v),
    shr = |v, f, _d| vextq_f64::<1>(v, f),
    mask = mask64,
    bsl = vbslq_f64,
    dup_lane = vdupq_laneq_f64,
    get_lane = vgetq_lane_f64,
    addv = vaddvq_f64
);
