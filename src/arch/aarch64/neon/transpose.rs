//! NEON block kernels of the CSR5 tile transposition
//! ([`crate::arch::generic::transpose`]): 4 × 4 blocks of 32-bit entries (`trn1`/`trn2`
//! then 64-bit `zip1`/`zip2`) and 2 × 2 blocks of 64-bit entries (`zip1`/`zip2`).

use core::arch::aarch64::*;

use crate::arch::generic::transpose::tile_kernels;

/// 4 × 4 block of 32-bit entries.
///
/// # Safety
/// As the blocks of [`tile_kernels`] (`k` rows of `k` at `src` with stride `ss`, at `dst` with
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
/// As the blocks of [`tile_kernels`] (`k` rows of `k` at `src` with stride `ss`, at `dst` with
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

tile_kernels!("neon"; u32: 4 => t32x4; u64: 2 => t64x2);
