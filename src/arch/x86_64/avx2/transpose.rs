//! AVX2 block kernels of the CSR5 tile transposition
//! ([`crate::arch::generic::transpose`]): the classic unpack / shuffle / lane-permute
//! transposes of 8 × 8 and 4 × 4 blocks of 32-bit entries and 4 × 4 and 2 × 2 blocks of
//! 64-bit entries (as float registers; the bits move unchanged).

use core::arch::x86_64::*;

use crate::arch::generic::transpose::tile_kernels;

/// 8 × 8 block of 32-bit entries.
///
/// # Safety
/// As the blocks of [`tile_kernels`] (`k` rows of `k` at `src` with stride `ss`, at `dst` with
/// stride `ds`, not overlapping); the CPU supports AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn t32x8(src: *const u32, ss: usize, dst: *mut u32, ds: usize) {
    // SAFETY: the caller's promise: row `i < 8` is 8 readable entries at `src + i * ss`,
    // row `j` 8 writable ones at `dst + j * ds`.
    unsafe {
        let r: [__m256; 8] = core::array::from_fn(|i| _mm256_loadu_ps(src.add(i * ss).cast()));
        let t0 = _mm256_unpacklo_ps(r[0], r[1]);
        let t1 = _mm256_unpackhi_ps(r[0], r[1]);
        let t2 = _mm256_unpacklo_ps(r[2], r[3]);
        let t3 = _mm256_unpackhi_ps(r[2], r[3]);
        let t4 = _mm256_unpacklo_ps(r[4], r[5]);
        let t5 = _mm256_unpackhi_ps(r[4], r[5]);
        let t6 = _mm256_unpacklo_ps(r[6], r[7]);
        let t7 = _mm256_unpackhi_ps(r[6], r[7]);
        let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
        let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
        let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
        let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
        let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
        let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
        let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
        let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
        let out = [
            _mm256_permute2f128_ps::<0x20>(u0, u4),
            _mm256_permute2f128_ps::<0x20>(u1, u5),
            _mm256_permute2f128_ps::<0x20>(u2, u6),
            _mm256_permute2f128_ps::<0x20>(u3, u7),
            _mm256_permute2f128_ps::<0x31>(u0, u4),
            _mm256_permute2f128_ps::<0x31>(u1, u5),
            _mm256_permute2f128_ps::<0x31>(u2, u6),
            _mm256_permute2f128_ps::<0x31>(u3, u7),
        ];
        for (j, v) in out.iter().enumerate() {
            _mm256_storeu_ps(dst.add(j * ds).cast(), *v);
        }
    }
}

/// 4 × 4 block of 32-bit entries.
///
/// # Safety
/// As the blocks of [`tile_kernels`] (`k` rows of `k` at `src` with stride `ss`, at `dst` with
/// stride `ds`, not overlapping); the CPU supports AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn t32x4(src: *const u32, ss: usize, dst: *mut u32, ds: usize) {
    // SAFETY: as `t32x8`, with 4 rows of 4.
    unsafe {
        let r: [__m128; 4] = core::array::from_fn(|i| _mm_loadu_ps(src.add(i * ss).cast()));
        let t0 = _mm_unpacklo_ps(r[0], r[1]);
        let t1 = _mm_unpacklo_ps(r[2], r[3]);
        let t2 = _mm_unpackhi_ps(r[0], r[1]);
        let t3 = _mm_unpackhi_ps(r[2], r[3]);
        let out =
            [_mm_movelh_ps(t0, t1), _mm_movehl_ps(t1, t0), _mm_movelh_ps(t2, t3), _mm_movehl_ps(t3, t2)];
        for (j, v) in out.iter().enumerate() {
            _mm_storeu_ps(dst.add(j * ds).cast(), *v);
        }
    }
}

/// 4 × 4 block of 64-bit entries.
///
/// # Safety
/// As the blocks of [`tile_kernels`] (`k` rows of `k` at `src` with stride `ss`, at `dst` with
/// stride `ds`, not overlapping); the CPU supports AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn t64x4(src: *const u64, ss: usize, dst: *mut u64, ds: usize) {
    // SAFETY: as `t32x8`, with 4 rows of 4.
    unsafe {
        let r: [__m256d; 4] = core::array::from_fn(|i| _mm256_loadu_pd(src.add(i * ss).cast()));
        let t0 = _mm256_unpacklo_pd(r[0], r[1]);
        let t1 = _mm256_unpackhi_pd(r[0], r[1]);
        let t2 = _mm256_unpacklo_pd(r[2], r[3]);
        let t3 = _mm256_unpackhi_pd(r[2], r[3]);
        let out = [
            _mm256_permute2f128_pd::<0x20>(t0, t2),
            _mm256_permute2f128_pd::<0x20>(t1, t3),
            _mm256_permute2f128_pd::<0x31>(t0, t2),
            _mm256_permute2f128_pd::<0x31>(t1, t3),
        ];
        for (j, v) in out.iter().enumerate() {
            _mm256_storeu_pd(dst.add(j * ds).cast(), *v);
        }
    }
}

/// 2 × 2 block of 64-bit entries.
///
/// # Safety
/// As the blocks of [`tile_kernels`] (`k` rows of `k` at `src` with stride `ss`, at `dst` with
/// stride `ds`, not overlapping); the CPU supports AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn t64x2(src: *const u64, ss: usize, dst: *mut u64, ds: usize) {
    // SAFETY: as `t32x8`, with 2 rows of 2.
    unsafe {
        let (a, b) = (_mm_loadu_pd(src.cast()), _mm_loadu_pd(src.add(ss).cast()));
        _mm_storeu_pd(dst.cast(), _mm_unpacklo_pd(a, b));
        _mm_storeu_pd(dst.add(ds).cast(), _mm_unpackhi_pd(a, b));
    }
}

tile_kernels!("avx2"; u32: 4 => t32x4, 8 => t32x8; u64: 2 => t64x2, 4 => t64x4);
