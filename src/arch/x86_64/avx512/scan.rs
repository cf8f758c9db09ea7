//! `avx512` scan kernels: 512-bit vectors, 16 lanes of `u32`/`f32`, 8 of `u64`/`f64`
//! (AVX-512 F with VL; the kernels use no BW/DQ instruction, but `Isa::Avx512` names the
//! whole subset the crate relies on).
//!
//! The loops are `arch::generic::scan`'s, over [`ScanVec`]; this file supplies
//! the in-register operations. Vectors are held as `__m512i` (float lanes are cast, which
//! costs nothing). A lane shift by `d` is one `valignd`/`valignq` against the fill
//! vector, and the head flags are AVX-512 mask registers directly: a segmented step is
//! one masked add (`vaddps zmm{k}`), the carry is applied with another.

use core::arch::x86_64::*;

use super::Avx512;

/// Lane `j` gets `v[j - d]`, lanes `j < d` get `f` (32-bit lanes, `d` in {1, 2, 4, 8}).
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
fn shl32(v: __m512i, f: __m512i, d: u32) -> __m512i {
    // `valignd(a, b, k)` = lanes `k..k + 16` of the 32-lane `b:a` concatenation.
    match d {
        1 => _mm512_alignr_epi32::<15>(v, f),
        2 => _mm512_alignr_epi32::<14>(v, f),
        4 => _mm512_alignr_epi32::<12>(v, f),
        _ => _mm512_alignr_epi32::<8>(v, f),
    }
}

/// Lane `j` gets `v[j + d]`, the top `d` lanes get `f` (32-bit lanes).
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
fn shr32(v: __m512i, f: __m512i, d: u32) -> __m512i {
    match d {
        1 => _mm512_alignr_epi32::<1>(f, v),
        2 => _mm512_alignr_epi32::<2>(f, v),
        4 => _mm512_alignr_epi32::<4>(f, v),
        _ => _mm512_alignr_epi32::<8>(f, v),
    }
}

/// As `shl32` for 64-bit lanes (`d` in {1, 2, 4}).
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
fn shl64(v: __m512i, f: __m512i, d: u32) -> __m512i {
    match d {
        1 => _mm512_alignr_epi64::<7>(v, f),
        2 => _mm512_alignr_epi64::<6>(v, f),
        _ => _mm512_alignr_epi64::<4>(v, f),
    }
}

/// As `shr32` for 64-bit lanes.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
fn shr64(v: __m512i, f: __m512i, d: u32) -> __m512i {
    match d {
        1 => _mm512_alignr_epi64::<1>(f, v),
        2 => _mm512_alignr_epi64::<2>(f, v),
        _ => _mm512_alignr_epi64::<4>(f, v),
    }
}

/// Lane indices `i + j + seg_offset[j]` (wrapping), clamped to `last`: 16 lanes.
///
/// # Safety
/// The features are present; `seg_offset` is valid for reads of 16 `u32`s;
/// `i, last <= i32::MAX`.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
unsafe fn gather_idx16(seg_offset: *const u32, i: usize, last: usize) -> __m512i {
    // SAFETY: the caller guarantees 16 readable `u32`s (unaligned load).
    let off = unsafe { _mm512_loadu_si512(seg_offset.cast()) };
    let lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let base = _mm512_add_epi32(_mm512_set1_epi32(i as i32), lanes);
    _mm512_min_epu32(_mm512_add_epi32(base, off), _mm512_set1_epi32(last as i32))
}

/// As `gather_idx16` for 8 lanes.
///
/// # Safety
/// The features are present; `seg_offset` is valid for reads of 8 `u32`s;
/// `i, last <= i32::MAX`.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
unsafe fn gather_idx8(seg_offset: *const u32, i: usize, last: usize) -> __m256i {
    // SAFETY: the caller guarantees 8 readable `u32`s (unaligned load).
    let off = unsafe { _mm256_loadu_si256(seg_offset.cast()) };
    let base = _mm256_add_epi32(_mm256_set1_epi32(i as i32), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm256_min_epu32(_mm256_add_epi32(base, off), _mm256_set1_epi32(last as i32))
}

macro_rules! impl_simd {
    (
        $t:ty, lanes = $w:literal, mask = $m:ty, shl = $shl:ident, shr = $shr:ident,
        add = |$aa:ident, $ab:ident| $add:expr,
        sub = |$sa:ident, $sb:ident| $sub:expr,
        mask_add = |$mv:ident, $mk:ident, $mc:ident| $mask_add:expr,
        blend = |$bk:ident, $ba:ident, $bb:ident| $blend:expr,
        splat = |$px:ident| $splat:expr,
        bcast_first = |$fv:ident| $bf:expr,
        bcast_last = |$lv:ident| $bl:expr,
        first = |$xv:ident| $first:expr,
        hsum = |$hv:ident| $hsum:expr,
        gather = |$gb:ident, $go:ident, $gi:ident, $gl:ident| $gather:expr,
        nonzero = |$np:ident| $nonzero:expr
    ) => {
        // Every method: the trait's contract says the features are present and the
        // pointers are valid for the `W` elements the method reads or writes.
        impl ScanVec for Avx512<$t> {
            type E = $t;
            type V = __m512i;
            const W: usize = $w;
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
            unsafe fn loadu(p: *const $t) -> __m512i {
                // SAFETY: `p` is valid for reads of 64 bytes (contract); unaligned load.
                unsafe { _mm512_loadu_si512(p.cast()) }
            }
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
            unsafe fn storeu(p: *mut $t, v: __m512i) {
                // SAFETY: `p` is valid for writes of 64 bytes (contract); unaligned store.
                unsafe { _mm512_storeu_si512(p.cast(), v) }
            }
            const STREAM: bool = true;
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
            unsafe fn stream(p: *mut $t, v: __m512i) {
                // SAFETY: `p` is valid for writes of 64 bytes and 64-byte aligned
                // (contract), as `movntdq` requires.
                unsafe { _mm512_stream_si512(p.cast(), v) }
            }
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
            unsafe fn fence() {
                crate::arch::store_fence()
            }
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
            unsafe fn prefetch(p: *const u8) {
                // `prefetcht0` never faults, whatever the address.
                _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>())
            }
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
            unsafe fn splat($px: $t) -> __m512i {
                $splat
            }
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
            unsafe fn vadd($aa: __m512i, $ab: __m512i) -> __m512i {
                $add
            }
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
            unsafe fn vsub($sa: __m512i, $sb: __m512i) -> __m512i {
                $sub
            }
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
            unsafe fn shl(v: __m512i, fill: __m512i, d: u32) -> __m512i {
                $shl(v, fill, d)
            }
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
            unsafe fn shr(v: __m512i, fill: __m512i, d: u32) -> __m512i {
                $shr(v, fill, d)
            }
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
            unsafe fn select(bits: u32, a: __m512i, b: __m512i) -> __m512i {
                // `mask_blend(k, b, a)` takes `a` where `k` is set.
                let ($bk, $ba, $bb): ($m, __m512i, __m512i) = (bits as $m, b, a);
                $blend
            }
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
            unsafe fn add_where_clear(v: __m512i, c: __m512i, bits: u32) -> __m512i {
                // One masked add: lanes whose bit is clear get `v + c`.
                let ($mv, $mk, $mc): (__m512i, $m, __m512i) = (v, !(bits as $m), c);
                $mask_add
            }
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
            unsafe fn bcast_first($fv: __m512i) -> __m512i {
                $bf
            }
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
            unsafe fn bcast_last($lv: __m512i) -> __m512i {
                $bl
            }
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
            unsafe fn first($xv: __m512i) -> $t {
                $first
            }
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
            unsafe fn hsum($hv: __m512i) -> $t {
                $hsum
            }
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
            unsafe fn nonzero_lanes($np: *const u32) -> u32 {
                // SAFETY: `seg_offset` holds `W` readable `u32`s (the contract).
                unsafe { $nonzero }
            }
            #[inline]
            #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma")]
            unsafe fn gather($gb: *const $t, $go: *const u32, $gi: usize, $gl: usize) -> __m512i {
                // SAFETY: the contract: `seg_offset` holds `W` readable `u32`s, `base` is
                // readable at `0..=last` (the indices are clamped to it), `i, last <=
                // i32::MAX`.
                unsafe { $gather }
            }
        }
    };
}

crate::arch::generic::scan::scan_entries!(Avx512, "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma");

impl_simd!(
    u32,
    lanes = 16,
    mask = __mmask16,
    shl = shl32,
    shr = shr32,
    add = |a, b| _mm512_add_epi32(a, b),
    sub = |a, b| _mm512_sub_epi32(a, b),
    mask_add = |v, k, c| _mm512_mask_add_epi32(v, k, v, c),
    blend = |k, b, a| _mm512_mask_blend_epi32(k, b, a),
    splat = |x| _mm512_set1_epi32(x as i32),
    bcast_first = |v| _mm512_broadcastd_epi32(_mm512_castsi512_si128(v)),
    bcast_last = |v| _mm512_permutexvar_epi32(_mm512_set1_epi32(15), v),
    first = |v| _mm_cvtsi128_si32(_mm512_castsi512_si128(v)) as u32,
    hsum = |v| _mm512_reduce_add_epi32(v) as u32,
    gather = |base, off, i, last| _mm512_i32gather_epi32::<4>(gather_idx16(off, i, last), base.cast()),
    nonzero = |p| {
        let v = _mm512_loadu_si512(p.cast());
        u32::from(_mm512_test_epi32_mask(v, v))
    }
);
impl_simd!(
    u64,
    lanes = 8,
    mask = __mmask8,
    shl = shl64,
    shr = shr64,
    add = |a, b| _mm512_add_epi64(a, b),
    sub = |a, b| _mm512_sub_epi64(a, b),
    mask_add = |v, k, c| _mm512_mask_add_epi64(v, k, v, c),
    blend = |k, b, a| _mm512_mask_blend_epi64(k, b, a),
    splat = |x| _mm512_set1_epi64(x as i64),
    bcast_first = |v| _mm512_broadcastq_epi64(_mm512_castsi512_si128(v)),
    bcast_last = |v| _mm512_permutexvar_epi64(_mm512_set1_epi64(7), v),
    first = |v| _mm_cvtsi128_si64(_mm512_castsi512_si128(v)) as u64,
    hsum = |v| _mm512_reduce_add_epi64(v) as u64,
    gather = |base, off, i, last| _mm512_i32gather_epi64::<8>(gather_idx8(off, i, last), base.cast()),
    nonzero = |p| {
        let v = _mm256_loadu_si256(p.cast());
        u32::from(_mm256_test_epi32_mask(v, v))
    }
);
impl_simd!(
    f32,
    lanes = 16,
    mask = __mmask16,
    shl = shl32,
    shr = shr32,
    add = |a, b| _mm512_castps_si512(_mm512_add_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b))),
    sub = |a, b| _mm512_castps_si512(_mm512_sub_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(b))),
    mask_add = |v, k, c| {
        let v = _mm512_castsi512_ps(v);
        _mm512_castps_si512(_mm512_mask_add_ps(v, k, v, _mm512_castsi512_ps(c)))
    },
    blend = |k, b, a| _mm512_mask_blend_epi32(k, b, a),
    splat = |x| _mm512_castps_si512(_mm512_set1_ps(x)),
    bcast_first = |v| _mm512_broadcastd_epi32(_mm512_castsi512_si128(v)),
    bcast_last = |v| _mm512_permutexvar_epi32(_mm512_set1_epi32(15), v),
    first = |v| _mm512_cvtss_f32(_mm512_castsi512_ps(v)),
    hsum = |v| _mm512_reduce_add_ps(_mm512_castsi512_ps(v)),
    gather = |base, off, i, last| {
        _mm512_castps_si512(_mm512_i32gather_ps::<4>(gather_idx16(off, i, last), base.cast()))
    },
    nonzero = |p| {
        let v = _mm512_loadu_si512(p.cast());
        u32::from(_mm512_test_epi32_mask(v, v))
    }
);
impl_simd!(
    f64,
    lanes = 8,
    mask = __mmask8,
    shl = shl64,
    shr = shr64,
    add = |a, b| _mm512_castpd_si512(_mm512_add_pd(_mm512_castsi512_pd(a), _mm512_castsi512_pd(b))),
    sub = |a, b| _mm512_castpd_si512(_mm512_sub_pd(_mm512_castsi512_pd(a), _mm512_castsi512_pd(b))),
    mask_add = |v, k, c| {
        let v = _mm512_castsi512_pd(v);
        _mm512_castpd_si512(_mm512_mask_add_pd(v, k, v, _mm512_castsi512_pd(c)))
    },
    blend = |k, b, a| _mm512_mask_blend_epi64(k, b, a),
    splat = |x| _mm512_castpd_si512(_mm512_set1_pd(x)),
    bcast_first = |v| _mm512_broadcastq_epi64(_mm512_castsi512_si128(v)),
    bcast_last = |v| _mm512_permutexvar_epi64(_mm512_set1_epi64(7), v),
    first = |v| _mm512_cvtsd_f64(_mm512_castsi512_pd(v)),
    hsum = |v| _mm512_reduce_add_pd(_mm512_castsi512_pd(v)),
    gather = |base, off, i, last| {
        _mm512_castpd_si512(_mm512_i32gather_pd::<8>(gather_idx8(off, i, last), base.cast()))
    },
    nonzero = |p| {
        let v = _mm256_loadu_si256(p.cast());
        u32::from(_mm256_test_epi32_mask(v, v))
    }
);
