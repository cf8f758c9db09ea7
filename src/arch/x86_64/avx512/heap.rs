//! `avx512` heap kernels: d = 16 (32-bit keys) or 8 (`f64`), one child group per 512-bit
//! register — a whole cache line, the ad-heap's one-transaction child load.
//! Find-best-child is a butterfly max/min across lanes, one compare into a mask register
//! and a `tzcnt`; the k-selection scan compares 16 (8) keys against the root at once.
//!
//! 64-bit integer keys (`u64`, `i64`, and `usize` through `u64`) are the exception: d = 4
//! with AVX2's scalar child search (`heap_vec_d4_scan8`), while the k-selection scan still
//! compares 8 keys (one `zmm`) against the root: the d = 8 butterfly (three dependent
//! shuffle + 64-bit max steps per level) is a longer chain than AVX2's d = 4 (3 scalar
//! compare-and-selects per level), and pops of heaps that fit in cache ran slower with
//! it; in k-selection the 8-wide root compare is what pays, so it stays. `f64` keeps
//! d = 8: the scalar child search is unusually slow on `f64`, slower than the butterfly.
//! Measurements: `benches/primitives/heap.rs`; `benches/records/kernel-notes-2026-11.md`,
//! "Heap arity and child search".

use core::arch::x86_64::*;

use super::merge::{ord_f32, ord_f64, ord_i32, ord_i64, ord_u32, ord_u64};
use crate::arch::OrdBits;
use crate::arch::generic::heap::{HeapVec, heap_kernels};

/// Index of the first largest (`MIN`: smallest) of 16 signed-ordered i32: a butterfly of
/// lane swaps leaves the max in every lane (no round trip through a general register),
/// then one compare into a mask and a bit scan.
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
#[inline]
fn best_i32<const MIN: bool>(v: __m512i) -> usize {
    let op = |x, y| if MIN { _mm512_min_epi32(x, y) } else { _mm512_max_epi32(x, y) };
    let m = op(v, _mm512_shuffle_i64x2::<0b01_00_11_10>(v, v));
    let m = op(m, _mm512_shuffle_i64x2::<0b10_11_00_01>(m, m));
    let m = op(m, _mm512_shuffle_epi32::<0b01_00_11_10>(m));
    let m = op(m, _mm512_shuffle_epi32::<0b10_11_00_01>(m));
    (_mm512_cmpeq_epi32_mask(v, m) as u32).trailing_zeros() as usize
}

/// Lanes of 16 signed-ordered i32 that displace `root` (below it; `MIN`: above it).
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
#[inline]
fn displace_i32<const MIN: bool>(v: __m512i, root: i32) -> u32 {
    let t = _mm512_set1_epi32(root);
    (if MIN { _mm512_cmpgt_epi32_mask(v, t) } else { _mm512_cmplt_epi32_mask(v, t) }) as u32
}

/// Index of the first largest (`MIN`: smallest) of 8 signed-ordered i64 (butterfly, as
/// for 32-bit keys).
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
#[inline]
fn best_i64<const MIN: bool>(v: __m512i) -> usize {
    let op = |x, y| if MIN { _mm512_min_epi64(x, y) } else { _mm512_max_epi64(x, y) };
    let m = op(v, _mm512_shuffle_i64x2::<0b01_00_11_10>(v, v));
    let m = op(m, _mm512_shuffle_i64x2::<0b10_11_00_01>(m, m));
    let m = op(m, _mm512_shuffle_epi32::<0b01_00_11_10>(m));
    (_mm512_cmpeq_epi64_mask(v, m) as u32).trailing_zeros() as usize
}

/// Lanes of 8 signed-ordered i64 that displace `root`.
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
#[inline]
fn displace_i64<const MIN: bool>(v: __m512i, root: i64) -> u32 {
    let t = _mm512_set1_epi64(root);
    (if MIN { _mm512_cmpgt_epi64_mask(v, t) } else { _mm512_cmplt_epi64_mask(v, t) }) as u32
}

heap_vec!(U32x16: u32, d 16; load _mm512_loadu_si512, ord ord_u32, best best_i32, displace displace_i32);
heap_vec!(I32x16: i32, d 16; load _mm512_loadu_si512, ord ord_i32, best best_i32, displace displace_i32);
heap_vec!(F32x16: f32, d 16; load _mm512_loadu_si512, ord ord_f32, best best_i32, displace displace_i32);
heap_vec!(F64x8: f64, d 8; load _mm512_loadu_si512, ord ord_f64, best best_i64, displace displace_i64);

// 64-bit integer keys: d = 4 with the scalar child search of AVX2 (faster than the d = 8
// butterfly on heaps that fit in cache, see the module docs), and the k-selection scan
// comparing 8 keys (one `zmm`) against the root.
heap_vec!(U64x4: u64, d 4, scan 8; load _mm512_loadu_si512, ord ord_u64, best scalar, displace displace_i64);
heap_vec!(I64x4: i64, d 4, scan 8; load _mm512_loadu_si512, ord ord_i64, best scalar, displace displace_i64);

heap_kernels!(
    "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma",
    U32x16,
    u32,
    sift_down_u32,
    sift_down_pairs_u32,
    heapify_u32,
    heapify_pairs_u32,
    select_u32
);
heap_kernels!(
    "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma",
    F32x16,
    f32,
    sift_down_f32,
    sift_down_pairs_f32,
    heapify_f32,
    heapify_pairs_f32,
    select_f32
);
heap_kernels!(
    "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma",
    U64x4,
    u64,
    sift_down_u64,
    sift_down_pairs_u64,
    heapify_u64,
    heapify_pairs_u64,
    select_u64
);
heap_kernels!(
    "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma",
    F64x8,
    f64,
    sift_down_f64,
    sift_down_pairs_f64,
    heapify_f64,
    heapify_pairs_f64,
    select_f64
);
heap_kernels!(
    "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma",
    I32x16,
    i32,
    sift_down_i32,
    sift_down_pairs_i32,
    heapify_i32,
    heapify_pairs_i32,
    select_i32
);
heap_kernels!(
    "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma",
    I64x4,
    i64,
    sift_down_i64,
    sift_down_pairs_i64,
    heapify_i64,
    heapify_pairs_i64,
    select_i64
);
