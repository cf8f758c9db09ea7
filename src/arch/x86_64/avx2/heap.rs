//! `avx2` heap kernels: d = 8 (32-bit keys) or 4 (64-bit keys), one child group per
//! 256-bit register. For 32-bit keys find-best-child is a horizontal max/min (3 shuffle +
//! min/max steps), an equality compare against it and a `movemask` + `tzcnt` for the
//! first best lane; for 64-bit keys it is scalar (see `heap_vec_scalar_best`). The
//! k-selection scan compares 8 (4) keys against the root at once.

use core::arch::x86_64::*;

use super::merge::{ord_f32, ord_f64, ord_i32, ord_i64, ord_u32, ord_u64};
use crate::arch::OrdBits;
use crate::arch::generic::heap::{HeapVec, heap_kernels};

/// Index of the first largest (`MIN`: smallest) of 8 signed-ordered i32.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn best_i32<const MIN: bool>(v: __m256i) -> usize {
    let op = |x, y| if MIN { _mm256_min_epi32(x, y) } else { _mm256_max_epi32(x, y) };
    let m = op(v, _mm256_permute2x128_si256::<0x01>(v, v));
    let m = op(m, _mm256_shuffle_epi32::<0b01_00_11_10>(m));
    let m = op(m, _mm256_shuffle_epi32::<0b10_11_00_01>(m));
    let eq = _mm256_cmpeq_epi32(v, m);
    (_mm256_movemask_ps(_mm256_castsi256_ps(eq)) as u32).trailing_zeros() as usize
}

/// Lanes of 8 signed-ordered i32 that displace `root` (below it; `MIN`: above it).
#[target_feature(enable = "avx2,fma")]
#[inline]
fn displace_i32<const MIN: bool>(v: __m256i, root: i32) -> u32 {
    let t = _mm256_set1_epi32(root);
    let m = if MIN { _mm256_cmpgt_epi32(v, t) } else { _mm256_cmpgt_epi32(t, v) };
    _mm256_movemask_ps(_mm256_castsi256_ps(m)) as u32
}

/// Lanes of 4 signed-ordered i64 that displace `root`.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn displace_i64<const MIN: bool>(v: __m256i, root: i64) -> u32 {
    let t = _mm256_set1_epi64x(root);
    let m = if MIN { _mm256_cmpgt_epi64(v, t) } else { _mm256_cmpgt_epi64(t, v) };
    _mm256_movemask_pd(_mm256_castsi256_pd(m)) as u32
}

heap_vec!(U32x8: u32, d 8; load _mm256_loadu_si256, ord ord_u32, best best_i32, displace displace_i32);
heap_vec!(I32x8: i32, d 8; load _mm256_loadu_si256, ord ord_i32, best best_i32, displace displace_i32);
heap_vec!(F32x8: f32, d 8; load _mm256_loadu_si256, ord ord_f32, best best_i32, displace displace_i32);

// 64-bit keys: AVX2 has no 64-bit max, and a horizontal max of 4 lanes by
// `cmpgt_epi64` (3-cycle latency) + `blendv` + lane permutes, then the compare and bit
// scan, is a longer chain than 3 scalar compare-and-selects (pops ran slower than the
// portable path: `benches/records/kernel-notes-2026-11.md`, "Heap arity and child
// search"). So the child search is scalar, as on the portable path with the same d = 4;
// the k-selection scan still compares 4 keys against the root at once.
heap_vec!(U64x4: u64, d 4, scan 4; load _mm256_loadu_si256, ord ord_u64, best scalar, displace displace_i64);
heap_vec!(I64x4: i64, d 4, scan 4; load _mm256_loadu_si256, ord ord_i64, best scalar, displace displace_i64);
heap_vec!(F64x4: f64, d 4, scan 4; load _mm256_loadu_si256, ord ord_f64, best scalar, displace displace_i64);

heap_kernels!(
    "avx2,fma",
    U32x8,
    u32,
    sift_down_u32,
    sift_down_pairs_u32,
    heapify_u32,
    heapify_pairs_u32,
    select_u32
);
heap_kernels!(
    "avx2,fma",
    F32x8,
    f32,
    sift_down_f32,
    sift_down_pairs_f32,
    heapify_f32,
    heapify_pairs_f32,
    select_f32
);
heap_kernels!(
    "avx2,fma",
    U64x4,
    u64,
    sift_down_u64,
    sift_down_pairs_u64,
    heapify_u64,
    heapify_pairs_u64,
    select_u64
);
heap_kernels!(
    "avx2,fma",
    F64x4,
    f64,
    sift_down_f64,
    sift_down_pairs_f64,
    heapify_f64,
    heapify_pairs_f64,
    select_f64
);
heap_kernels!(
    "avx2,fma",
    I32x8,
    i32,
    sift_down_i32,
    sift_down_pairs_i32,
    heapify_i32,
    heapify_pairs_i32,
    select_i32
);
heap_kernels!(
    "avx2,fma",
    I64x4,
    i64,
    sift_down_i64,
    sift_down_pairs_i64,
    heapify_i64,
    heapify_pairs_i64,
    select_i64
);
