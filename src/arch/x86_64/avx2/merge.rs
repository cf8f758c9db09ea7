//! `avx2` merge kernels: the bitonic merge network of two 8 × 32-bit or 4 × 64-bit
//! registers, instantiated into the shared vectorised merge
//! ([`simd_merge`](crate::arch::generic::merge::simd_merge)).
//!
//! Keys are mapped into the signed-ordered domain on load (u32/u64: flip the sign bit;
//! i32/i64: as they are; f32/f64: `total_cmp`'s flip of negative magnitudes) and back on store, so one signed
//! min/max serves all four key types. AVX2 has no 64-bit min/max: `cmpgt_epi64` + blend.

use core::arch::x86_64::*;

use crate::arch::generic::merge::{MergeVec, merge_kernel};

/// u32 → signed-ordered i32 (and back: an involution).
#[target_feature(enable = "avx2,fma")]
#[inline]
pub(crate) fn ord_u32(x: __m256i) -> __m256i {
    _mm256_xor_si256(x, _mm256_set1_epi32(i32::MIN))
}

/// f32 bits → signed-ordered i32 in `total_cmp` order (and back: an involution).
#[target_feature(enable = "avx2,fma")]
#[inline]
pub(crate) fn ord_f32(x: __m256i) -> __m256i {
    _mm256_xor_si256(x, _mm256_srli_epi32::<1>(_mm256_srai_epi32::<31>(x)))
}

/// u64 → signed-ordered i64 (and back).
#[target_feature(enable = "avx2,fma")]
#[inline]
pub(crate) fn ord_u64(x: __m256i) -> __m256i {
    _mm256_xor_si256(x, _mm256_set1_epi64x(i64::MIN))
}

/// f64 bits → signed-ordered i64 in `total_cmp` order (and back). No 64-bit arithmetic
/// shift on AVX2: the sign mask comes from `0 > x`.
#[target_feature(enable = "avx2,fma")]
#[inline]
pub(crate) fn ord_f64(x: __m256i) -> __m256i {
    let neg = _mm256_cmpgt_epi64(_mm256_setzero_si256(), x);
    _mm256_xor_si256(x, _mm256_srli_epi64::<1>(neg))
}

/// i32 is its own signed-ordered image (the identity, for the shared register types).
#[target_feature(enable = "avx2,fma")]
#[inline]
pub(crate) fn ord_i32(x: __m256i) -> __m256i {
    x
}

/// i64 is its own signed-ordered image.
#[target_feature(enable = "avx2,fma")]
#[inline]
pub(crate) fn ord_i64(x: __m256i) -> __m256i {
    x
}

/// Signed 64-bit (min, max) lane-wise.
#[target_feature(enable = "avx2,fma")]
#[inline]
pub(crate) fn minmax_i64(a: __m256i, b: __m256i) -> (__m256i, __m256i) {
    let gt = _mm256_cmpgt_epi64(a, b);
    (_mm256_blendv_epi8(a, b, gt), _mm256_blendv_epi8(b, a, gt))
}

/// Sorts a bitonic register of 8 × i32: half-cleaners at distances 4, 2, 1.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn clean_i32(v: __m256i) -> __m256i {
    let p = _mm256_permute2x128_si256::<0x01>(v, v);
    let v = _mm256_blend_epi32::<0b1111_0000>(_mm256_min_epi32(v, p), _mm256_max_epi32(v, p));
    let p = _mm256_shuffle_epi32::<0b01_00_11_10>(v);
    let v = _mm256_blend_epi32::<0b1100_1100>(_mm256_min_epi32(v, p), _mm256_max_epi32(v, p));
    let p = _mm256_shuffle_epi32::<0b10_11_00_01>(v);
    _mm256_blend_epi32::<0b1010_1010>(_mm256_min_epi32(v, p), _mm256_max_epi32(v, p))
}

/// Bitonic merge of two sorted registers of 8 × i32: (8 smallest, 8 largest), sorted.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn network_i32(a: __m256i, b: __m256i) -> (__m256i, __m256i) {
    let br = _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0));
    (clean_i32(_mm256_min_epi32(a, br)), clean_i32(_mm256_max_epi32(a, br)))
}

/// Sorts a bitonic register of 4 × i64: half-cleaners at distances 2, 1.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn clean_i64(v: __m256i) -> __m256i {
    let (mn, mx) = minmax_i64(v, _mm256_permute4x64_epi64::<0b01_00_11_10>(v));
    let v = _mm256_blend_epi32::<0b1111_0000>(mn, mx);
    let (mn, mx) = minmax_i64(v, _mm256_shuffle_epi32::<0b01_00_11_10>(v));
    _mm256_blend_epi32::<0b1100_1100>(mn, mx)
}

/// Bitonic merge of two sorted registers of 4 × i64.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn network_i64(a: __m256i, b: __m256i) -> (__m256i, __m256i) {
    let (mn, mx) = minmax_i64(a, _mm256_permute4x64_epi64::<0b00_01_10_11>(b));
    (clean_i64(mn), clean_i64(mx))
}

merge_vec!(U32x8(__m256i): u32, lanes 8; load _mm256_loadu_si256, store _mm256_storeu_si256, ord ord_u32, network network_i32);
merge_vec!(I32x8(__m256i): i32, lanes 8; load _mm256_loadu_si256, store _mm256_storeu_si256, ord ord_i32, network network_i32);
merge_vec!(F32x8(__m256i): f32, lanes 8; load _mm256_loadu_si256, store _mm256_storeu_si256, ord ord_f32, network network_i32);
merge_vec!(U64x4(__m256i): u64, lanes 4; load _mm256_loadu_si256, store _mm256_storeu_si256, ord ord_u64, network network_i64);
merge_vec!(I64x4(__m256i): i64, lanes 4; load _mm256_loadu_si256, store _mm256_storeu_si256, ord ord_i64, network network_i64);
merge_vec!(F64x4(__m256i): f64, lanes 4; load _mm256_loadu_si256, store _mm256_storeu_si256, ord ord_f64, network network_i64);

merge_kernel!("avx2,fma", U32x8, true, u32, merge_u32);
merge_kernel!("avx2,fma", I32x8, true, i32, merge_i32);
merge_kernel!("avx2,fma", F32x8, true, f32, merge_f32);
merge_kernel!("avx2,fma", U64x4, true, u64, merge_u64);
merge_kernel!("avx2,fma", I64x4, true, i64, merge_i64);
merge_kernel!("avx2,fma", F64x4, true, f64, merge_f64);
