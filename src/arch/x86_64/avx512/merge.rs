//! `avx512` merge kernels: the bitonic merge network of two 16 × 32-bit or 8 × 64-bit
//! registers, instantiated into the shared vectorised merge
//! ([`simd_merge`](crate::arch::generic::merge::simd_merge)).
//!
//! Each half-cleaner level is one lane shuffle, a `min` and a masked `max` (the mask
//! picks the upper lane of every compared pair), with native 64-bit min/max (AVX-512F).
//! Keys are mapped into the signed-ordered domain on load and back on store, as on AVX2.

use core::arch::x86_64::*;

use crate::arch::generic::merge::{MergeVec, merge_kernel};

/// u32 → signed-ordered i32 (and back: an involution).
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
#[inline]
pub(crate) fn ord_u32(x: __m512i) -> __m512i {
    _mm512_xor_si512(x, _mm512_set1_epi32(i32::MIN))
}

/// f32 bits → signed-ordered i32 in `total_cmp` order (and back).
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
#[inline]
pub(crate) fn ord_f32(x: __m512i) -> __m512i {
    _mm512_xor_si512(x, _mm512_srli_epi32::<1>(_mm512_srai_epi32::<31>(x)))
}

/// u64 → signed-ordered i64 (and back).
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
#[inline]
pub(crate) fn ord_u64(x: __m512i) -> __m512i {
    _mm512_xor_si512(x, _mm512_set1_epi64(i64::MIN))
}

/// f64 bits → signed-ordered i64 in `total_cmp` order (and back).
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
#[inline]
pub(crate) fn ord_f64(x: __m512i) -> __m512i {
    _mm512_xor_si512(x, _mm512_srli_epi64::<1>(_mm512_srai_epi64::<63>(x)))
}

/// i32 is its own signed-ordered image (the identity, for the shared register types).
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
#[inline]
pub(crate) fn ord_i32(x: __m512i) -> __m512i {
    x
}

/// i64 is its own signed-ordered image.
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
#[inline]
pub(crate) fn ord_i64(x: __m512i) -> __m512i {
    x
}

/// Sorts a bitonic register of 16 × i32: half-cleaners at distances 8, 4, 2, 1.
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
#[inline]
fn clean_i32(v: __m512i) -> __m512i {
    let p = _mm512_shuffle_i64x2::<0b01_00_11_10>(v, v);
    let v = _mm512_mask_max_epi32(_mm512_min_epi32(v, p), 0xFF00, v, p);
    let p = _mm512_shuffle_i64x2::<0b10_11_00_01>(v, v);
    let v = _mm512_mask_max_epi32(_mm512_min_epi32(v, p), 0xF0F0, v, p);
    let p = _mm512_shuffle_epi32::<0b01_00_11_10>(v);
    let v = _mm512_mask_max_epi32(_mm512_min_epi32(v, p), 0xCCCC, v, p);
    let p = _mm512_shuffle_epi32::<0b10_11_00_01>(v);
    _mm512_mask_max_epi32(_mm512_min_epi32(v, p), 0xAAAA, v, p)
}

/// Bitonic merge of two sorted registers of 16 × i32.
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
#[inline]
fn network_i32(a: __m512i, b: __m512i) -> (__m512i, __m512i) {
    let rev = _mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    let br = _mm512_permutexvar_epi32(rev, b);
    (clean_i32(_mm512_min_epi32(a, br)), clean_i32(_mm512_max_epi32(a, br)))
}

/// Sorts a bitonic register of 8 × i64: half-cleaners at distances 4, 2, 1.
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
#[inline]
fn clean_i64(v: __m512i) -> __m512i {
    // 64-bit min/max have a 3-cycle latency: min and max side by side, then a blend,
    // keeps one of them off the chain.
    let p = _mm512_shuffle_i64x2::<0b01_00_11_10>(v, v);
    let v = _mm512_mask_blend_epi64(0xF0, _mm512_min_epi64(v, p), _mm512_max_epi64(v, p));
    let p = _mm512_shuffle_i64x2::<0b10_11_00_01>(v, v);
    let v = _mm512_mask_blend_epi64(0xCC, _mm512_min_epi64(v, p), _mm512_max_epi64(v, p));
    let p = _mm512_shuffle_epi32::<0b01_00_11_10>(v);
    _mm512_mask_blend_epi64(0xAA, _mm512_min_epi64(v, p), _mm512_max_epi64(v, p))
}

/// Bitonic merge of two sorted registers of 8 × i64.
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
#[inline]
fn network_i64(a: __m512i, b: __m512i) -> (__m512i, __m512i) {
    let br = _mm512_permutexvar_epi64(_mm512_setr_epi64(7, 6, 5, 4, 3, 2, 1, 0), b);
    (clean_i64(_mm512_min_epi64(a, br)), clean_i64(_mm512_max_epi64(a, br)))
}

merge_vec!(U32x16(__m512i): u32, lanes 16; load _mm512_loadu_si512, store _mm512_storeu_si512, ord ord_u32, network network_i32);
merge_vec!(I32x16(__m512i): i32, lanes 16; load _mm512_loadu_si512, store _mm512_storeu_si512, ord ord_i32, network network_i32);
merge_vec!(F32x16(__m512i): f32, lanes 16; load _mm512_loadu_si512, store _mm512_storeu_si512, ord ord_f32, network network_i32);
merge_vec!(U64x8(__m512i): u64, lanes 8; load _mm512_loadu_si512, store _mm512_storeu_si512, ord ord_u64, network network_i64);
merge_vec!(I64x8(__m512i): i64, lanes 8; load _mm512_loadu_si512, store _mm512_storeu_si512, ord ord_i64, network network_i64);
merge_vec!(F64x8(__m512i): f64, lanes 8; load _mm512_loadu_si512, store _mm512_storeu_si512, ord ord_f64, network network_i64);

merge_kernel!("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma", U32x16, true, u32, merge_u32);
merge_kernel!("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma", I32x16, true, i32, merge_i32);
merge_kernel!("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma", F32x16, true, f32, merge_f32);
merge_kernel!("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma", U64x8, true, u64, merge_u64);
merge_kernel!("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma", I64x8, true, i64, merge_i64);
merge_kernel!("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma", F64x8, true, f64, merge_f64);
