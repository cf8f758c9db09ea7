//! NEON block kernels of the CSR5 tile transposition
//! ([`crate::arch::portable::transpose`]): 4 × 4 blocks of 32-bit entries (`trn1`/`trn2`
//! then 64-bit `zip1`/`zip2`) and 2 × 2 blocks of 64-bit entries (`zip1`/`zip2`).

use core::arch::aarch64::*;

use crate::arch::portable::transpose::{TileFn, grid};

/// 4 × 4 block of 32-bit entries.
///
/// # Safety
/// As the block of [`TileFn`] (`k` rows of `k` at `src` with stride `ss`, at `dst` with
/// stride `ds`, not overlapping); the CPU supports NEON.
#[target_feature(enable = "neon")]
#[inline]
unsafe fn t32x4(src: *const u32, ss: usize, dst: *mut u32, ds: usize) {
    // SAFETY: the caller's promise: row `i < 4` is 4 readable entries at `src + i * ss`,
    // row `j` 4 writable ones at `dst + j * ds`.
    unsafe {
        let r: [uint32x4_t; 4] = core::array::from_fn(|i| vld1q_u32(src.add(i * ss)));
        let t0 = vreinterpretq_u64_u32(vtrn1q_u32(r[0], r[1]));
        let t1 = vreinterpretq_u64_u32(vtrn2q_u32(r[0], r[1]));
        let t2 = vreinterpretq_u64_u32(vtrn1q_u32(r[2], r[3]));
        let t3 = vreinterpretq_u64_u32(vtrn2q_u32(r[2], r[3]));
        let out = [vzip1q_u64(t0, t2), vzip1q_u64(t1, t3), vzip2q_u64(t0, t2), vzip2q_u64(t1, t3)];
        for (j, v) in out.iter().enumerate() {
            vst1q_u32(dst.add(j * ds), vreinterpretq_u32_u64(*v));
        }
    }
}

/// 2 × 2 block of 64-bit entries.
///
/// # Safety
/// As the block of [`TileFn`] (`k` rows of `k` at `src` with stride `ss`, at `dst` with
/// stride `ds`, not overlapping); the CPU supports NEON.
#[target_feature(enable = "neon")]
#[inline]
unsafe fn t64x2(src: *const u64, ss: usize, dst: *mut u64, ds: usize) {
    // SAFETY: as `t32x4`, with 2 rows of 2.
    unsafe {
        let (a, b) = (vld1q_u64(src), vld1q_u64(src.add(ss)));
        vst1q_u64(dst, vzip1q_u64(a, b));
        vst1q_u64(dst.add(ds), vzip2q_u64(a, b));
    }
}

/// The tile kernel of [`t32x4`] blocks (see [`TileFn`]).
///
/// # Safety
/// As [`TileFn`]; the CPU supports NEON.
#[target_feature(enable = "neon")]
unsafe fn tile_t32x4(src: *const u32, dst: *mut u32, rows: usize, cols: usize) {
    // SAFETY: 4 divides `rows` and `cols` (the caller's promise), so every block lies
    // inside the `rows * cols` entries at `src` and `dst`.
    unsafe { grid!(t32x4, 4, src, dst, rows, cols) }
}

/// The tile kernel of [`t64x2`] blocks (see [`TileFn`]).
///
/// # Safety
/// As [`TileFn`]; the CPU supports NEON.
#[target_feature(enable = "neon")]
unsafe fn tile_t64x2(src: *const u64, dst: *mut u64, rows: usize, cols: usize) {
    // SAFETY: 2 divides `rows` and `cols` (the caller's promise), so every block lies
    // inside the `rows * cols` entries at `src` and `dst`.
    unsafe { grid!(t64x2, 2, src, dst, rows, cols) }
}

/// The tile kernel for `k × k` blocks of 4-byte entries, if this width has one.
pub(crate) fn tile32(k: usize) -> Option<TileFn<u32>> {
    match k {
        4 => Some(tile_t32x4),
        _ => None,
    }
}

/// The tile kernel for `k × k` blocks of 8-byte entries, if this width has one.
pub(crate) fn tile64(k: usize) -> Option<TileFn<u64>> {
    match k {
        2 => Some(tile_t64x2),
        _ => None,
    }
}
