//! AVX-512 ESC of one short row in registers (thesis 7.4.2, and the ESC of 9.4.2 for
//! short rows), the kernel behind [`crate::arch::generic::esc`].
//!
//! The candidates' columns are made 32-bit keys `column << 5 | slot` (distinct even where
//! columns repeat, so the network need not move the values), the keys sorted by a bitonic
//! network of 15 steps over two `zmm` (10 when they fit in one), the values fetched in
//! sorted order by two-source permutes on their slots, equal columns summed by a
//! segmented inclusive scan of `log2(max_run)` shift-and-masked-add steps, and the last
//! entry of each column compressed out (`vpcompress`). Nothing goes through memory
//! between the loads of the candidates and the stores of the row.

use core::arch::x86_64::*;

use crate::arch::generic::esc::{ESC_REG_MAX, EscRow};

/// Permute indices that swap every lane `l` with lane `l ^ j` (16 lanes).
const fn xor_idx(j: u32) -> [u32; 16] {
    let mut out = [0u32; 16];
    let mut l = 0;
    while l < 16 {
        out[l] = l as u32 ^ j;
        l += 1;
    }
    out
}

/// The lanes (of the register holding global lanes `base..base + 16`) that keep the
/// larger key at the step `(k, j)` of the bitonic sort: lane `g` sorts ascending when
/// `g & k == 0`, and the upper lane of each ascending pair keeps the maximum.
const fn max_lanes(base: u32, k: u32, j: u32) -> u16 {
    let mut m = 0u16;
    let mut l = 0;
    while l < 16 {
        let g = base + l;
        if ((g & j) != 0) == ((g & k) == 0) {
            m |= 1 << l;
        }
        l += 1;
    }
    m
}

/// The in-register steps `(j, maximum lanes of the low register, of the high one)` of a
/// 32-key bitonic sort, in order; the cross-register step `j = 16` of the last merge
/// comes between the 11th and the 12th.
const STEPS: [(u32, u16, u16); 14] = {
    let mut out = [(0u32, 0u16, 0u16); 14];
    let (mut n, mut k) = (0, 2u32);
    while k <= 32 {
        let mut j = if k == 32 { 8 } else { k / 2 };
        while j >= 1 {
            out[n] = (j, max_lanes(0, k, j), max_lanes(16, k, j));
            n += 1;
            j /= 2;
        }
        k *= 2;
    }
    out
};

/// Index vectors of [`xor_idx`] for `j = 1, 2, 4, 8`.
const XOR: [[u32; 16]; 4] = [xor_idx(1), xor_idx(2), xor_idx(4), xor_idx(8)];

/// One compare-exchange step of distance `j` inside register `v`: lanes in `max` keep the
/// larger key of their pair.
///
/// # Safety
/// The CPU supports AVX-512 F/VL/BW/DQ and POPCNT.
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,popcnt")]
#[inline]
unsafe fn step(v: __m512i, j: u32, max: u16) -> __m512i {
    let idx = XOR[j.trailing_zeros() as usize];
    // SAFETY: `idx` is 16 readable `u32`; the features are the caller's promise.
    unsafe {
        let p = _mm512_permutexvar_epi32(_mm512_loadu_si512(idx.as_ptr().cast()), v);
        _mm512_mask_blend_epi32(max, _mm512_min_epu32(v, p), _mm512_max_epu32(v, p))
    }
}

/// The sorted keys of `row`: columns shifted left by 5 and or-ed with their slot, lanes
/// from `row.n` on all ones (after every real key). `(low 16, high 16)`.
///
/// # Safety
/// The CPU supports AVX-512 F/VL/BW/DQ and POPCNT. (Any `row.n` is sound; lanes from
/// 32 on do not exist.)
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,popcnt")]
#[inline]
unsafe fn sorted_keys<T>(row: &EscRow<T>) -> (__m512i, __m512i) {
    // SAFETY: `row.cols` holds 32 readable `u32`; the features are the caller's promise.
    unsafe {
        let valid = valid_lanes(row.n);
        let iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let pad = _mm512_set1_epi32(-1);
        let key = |c: __m512i, base: i32, m: u16| {
            let k =
                _mm512_or_si512(_mm512_slli_epi32::<5>(c), _mm512_add_epi32(iota, _mm512_set1_epi32(base)));
            _mm512_mask_mov_epi32(pad, m, k)
        };
        let mut a = key(_mm512_loadu_si512(row.cols.as_ptr().cast()), 0, valid as u16);
        // The network unrolled, so every index vector and mask is a constant.
        macro_rules! one {
            ($($s:literal)*) => {$( a = step(a, STEPS[$s].0, STEPS[$s].1); )*};
        }
        if row.n <= 16 {
            one!(0 1 2 3 4 5 6 7 8 9);
            return (a, pad);
        }
        let mut b = key(_mm512_loadu_si512(row.cols.as_ptr().add(16).cast()), 16, (valid >> 16) as u16);
        macro_rules! two {
            ($($s:literal)*) => {$(
                a = step(a, STEPS[$s].0, STEPS[$s].1);
                b = step(b, STEPS[$s].0, STEPS[$s].2);
            )*};
        }
        two!(0 1 2 3 4 5 6 7 8 9);
        (a, b) = (_mm512_min_epu32(a, b), _mm512_max_epu32(a, b));
        two!(10 11 12 13);
        (a, b)
    }
}

/// The first `n` of 32 lanes.
#[inline(always)]
fn valid_lanes(n: usize) -> u32 {
    if n >= 32 { u32::MAX } else { (1u32 << n) - 1 }
}

/// The lanes whose column differs from the next lane's (the last of each run), among the
/// first `n`: `(low 16, high 16)`.
///
/// # Safety
/// The CPU supports AVX-512 F/VL/BW/DQ and POPCNT.
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,popcnt")]
#[inline]
unsafe fn tails(ca: __m512i, cb: __m512i, n: usize) -> (u16, u16) {
    let valid = valid_lanes(n);
    // Columns are below 2^27, so all ones matches none of them, nor a pad (2^27 - 1).
    let none = _mm512_set1_epi32(-1);
    let (na, nb) = (_mm512_alignr_epi32::<1>(cb, ca), _mm512_alignr_epi32::<1>(none, cb));
    (_mm512_cmpneq_epi32_mask(ca, na) & valid as u16, _mm512_cmpneq_epi32_mask(cb, nb) & (valid >> 16) as u16)
}

/// The column of every lane shifted up by `S` lanes (`A32 = 16 - S`), all ones below:
/// the masks of the lanes whose column equals that `S` lanes down.
///
/// # Safety
/// The CPU supports AVX-512 F/VL/BW/DQ and POPCNT.
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,popcnt")]
#[inline]
unsafe fn same_as_down<const A32: i32>(ca: __m512i, cb: __m512i) -> (u16, u16) {
    let none = _mm512_set1_epi32(-1);
    let (sa, sb) = if A32 == 0 {
        (none, ca)
    } else {
        (_mm512_alignr_epi32::<A32>(ca, none), _mm512_alignr_epi32::<A32>(cb, ca))
    };
    (_mm512_cmpeq_epi32_mask(ca, sa), _mm512_cmpeq_epi32_mask(cb, sb))
}

/// Stores the first `count` lanes of `v` at `p`.
///
/// # Safety
/// The CPU supports AVX-512 F/VL/BW/DQ and POPCNT; `count` `u32` (at most 16) are
/// writable at `p`.
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,popcnt")]
#[inline]
unsafe fn store_first32(p: *mut u32, count: u32, v: __m512i) {
    let m = if count >= 16 { u16::MAX } else { (1u16 << count) - 1 };
    // SAFETY: only the first `count` lanes are written, the caller's promise.
    unsafe { _mm512_mask_storeu_epi32(p.cast(), m, v) }
}

/// A row's keys sorted, their columns, and the last lane of each column's run.
struct Sorted {
    /// The sorted keys, low 16 lanes and high 16 (each one's low 5 bits its slot).
    ka: __m512i,
    kb: __m512i,
    /// Their columns.
    ca: __m512i,
    cb: __m512i,
    /// The lanes that end a run (among the row's `n`), and how many there are.
    ta: u16,
    tb: u16,
    na: u32,
    nb: u32,
}

/// Sorts `row`'s keys and writes its distinct columns, ascending, to the front of `oc`
/// (what both value types share; the values follow the returned slots and runs).
///
/// # Safety
/// The CPU supports AVX-512 F/VL/BW/DQ and POPCNT.
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,popcnt")]
#[inline]
unsafe fn columns_out<T>(row: &EscRow<T>, oc: &mut [u32; ESC_REG_MAX]) -> Sorted {
    // SAFETY: the two stores write `na` and then `nb` lanes, `na + nb <= 32` (tails lie
    // among 32 lanes), into `oc`'s 32; the features are the caller's promise.
    unsafe {
        let (ka, kb) = sorted_keys(row);
        let (ca, cb) = (_mm512_srli_epi32::<5>(ka), _mm512_srli_epi32::<5>(kb));
        let (ta, tb) = tails(ca, cb, row.n);
        let (na, nb) = (ta.count_ones(), tb.count_ones());
        let op = oc.as_mut_ptr();
        store_first32(op, na, _mm512_maskz_compress_epi32(ta, ca));
        store_first32(op.add(na as usize), nb, _mm512_maskz_compress_epi32(tb, cb));
        Sorted { ka, kb, ca, cb, ta, tb, na, nb }
    }
}

/// `f64` ESC of one short row: `row.n <= 32` candidates, columns below `2^27 - 1`, no
/// column more than `max_run` times. Writes the row's sorted distinct columns and their
/// sums to the front of `oc`/`ov`; returns how many.
///
/// # Safety
/// The CPU supports AVX-512 F, VL, BW and DQ, and POPCNT.
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,popcnt")]
pub(crate) unsafe fn esc_f64(
    row: &EscRow<f64>,
    max_run: usize,
    oc: &mut [u32; ESC_REG_MAX],
    ov: &mut [f64; ESC_REG_MAX],
) -> usize {
    // SAFETY: every load reads within `row`'s 32-entry arrays, every store the first
    // `count` lanes at an offset of at most `32 - count` into `oc`/`ov` (the counts sum to
    // at most `row.n <= 32`); the features are the caller's promise.
    unsafe {
        let Sorted { ka, kb, ca, cb, ta, tb, .. } = columns_out(row, oc);
        let slot = _mm512_set1_epi32(31);
        let (sa, sb) = (_mm512_and_si512(ka, slot), _mm512_and_si512(kb, slot));
        let vp = row.vals.as_ptr();
        let v = [
            _mm512_loadu_pd(vp),
            _mm512_loadu_pd(vp.add(8)),
            _mm512_loadu_pd(vp.add(16)),
            _mm512_loadu_pd(vp.add(24)),
        ];
        let sixteen = _mm512_set1_epi64(16);
        let fetch = |s: __m256i| {
            let idx = _mm512_cvtepu32_epi64(s);
            let lo = _mm512_permutex2var_pd(v[0], idx, v[1]);
            let hi = _mm512_permutex2var_pd(v[2], idx, v[3]);
            _mm512_mask_blend_pd(_mm512_test_epi64_mask(idx, sixteen), lo, hi)
        };
        let mut w = [
            fetch(_mm512_castsi512_si256(sa)),
            fetch(_mm512_extracti64x4_epi64::<1>(sa)),
            fetch(_mm512_castsi512_si256(sb)),
            fetch(_mm512_extracti64x4_epi64::<1>(sb)),
        ];
        // Segmented inclusive scan: after the step of distance `s`, each lane holds the
        // sum of its run's lanes among the `2s` ending at it.
        let zero = _mm512_setzero_pd();
        macro_rules! scan_step {
            ($a32:literal, $shift:expr) => {{
                let (ma, mb) = same_as_down::<$a32>(ca, cb);
                let m = [ma as u8, (ma >> 8) as u8, mb as u8, (mb >> 8) as u8];
                let old = w;
                for g in 0..4 {
                    let down: __m512d = $shift(&old, g);
                    w[g] = _mm512_mask_add_pd(w[g], m[g], w[g], down);
                }
            }};
        }
        let prev = |old: &[__m512d; 4], g: usize, back: usize| if g >= back { old[g - back] } else { zero };
        if max_run > 1 {
            scan_step!(15, |o: &[__m512d; 4], g| _mm512_castsi512_pd(_mm512_alignr_epi64::<7>(
                _mm512_castpd_si512(o[g]),
                _mm512_castpd_si512(prev(o, g, 1))
            )));
        }
        if max_run > 2 {
            scan_step!(14, |o: &[__m512d; 4], g| _mm512_castsi512_pd(_mm512_alignr_epi64::<6>(
                _mm512_castpd_si512(o[g]),
                _mm512_castpd_si512(prev(o, g, 1))
            )));
        }
        if max_run > 4 {
            scan_step!(12, |o: &[__m512d; 4], g| _mm512_castsi512_pd(_mm512_alignr_epi64::<4>(
                _mm512_castpd_si512(o[g]),
                _mm512_castpd_si512(prev(o, g, 1))
            )));
        }
        if max_run > 8 {
            scan_step!(8, |o: &[__m512d; 4], g| prev(o, g, 1));
        }
        if max_run > 16 {
            scan_step!(0, |o: &[__m512d; 4], g| prev(o, g, 2));
        }
        let t = [ta as u8, (ta >> 8) as u8, tb as u8, (tb >> 8) as u8];
        let mut off = 0usize;
        for g in 0..4 {
            let cnt = t[g].count_ones();
            let m = ((1u16 << cnt) - 1) as u8;
            _mm512_mask_storeu_pd(ov.as_mut_ptr().add(off), m, _mm512_maskz_compress_pd(t[g], w[g]));
            off += cnt as usize;
        }
        off
    }
}

/// `f32` ESC of one short row, as [`esc_f64`] (values 16 to a register, beside the keys).
///
/// # Safety
/// The CPU supports AVX-512 F, VL, BW and DQ, and POPCNT.
#[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq,popcnt")]
pub(crate) unsafe fn esc_f32(
    row: &EscRow<f32>,
    max_run: usize,
    oc: &mut [u32; ESC_REG_MAX],
    ov: &mut [f32; ESC_REG_MAX],
) -> usize {
    // SAFETY: as `esc_f64`.
    unsafe {
        let Sorted { ka, kb, ca, cb, ta, tb, na, nb } = columns_out(row, oc);
        let vp = row.vals.as_ptr();
        let (v0, v1) = (_mm512_loadu_ps(vp), _mm512_loadu_ps(vp.add(16)));
        // The permute reads the low 5 bits of each key: the slot.
        let (mut wa, mut wb) = (_mm512_permutex2var_ps(v0, ka, v1), _mm512_permutex2var_ps(v0, kb, v1));
        let zero = _mm512_setzero_si512();
        macro_rules! scan_step {
            ($a32:literal) => {{
                let (ma, mb) = same_as_down::<$a32>(ca, cb);
                let (ia, ib) = (_mm512_castps_si512(wa), _mm512_castps_si512(wb));
                let (da, db) = if $a32 == 0 {
                    (_mm512_castsi512_ps(zero), wa)
                } else {
                    (
                        _mm512_castsi512_ps(_mm512_alignr_epi32::<$a32>(ia, zero)),
                        _mm512_castsi512_ps(_mm512_alignr_epi32::<$a32>(ib, ia)),
                    )
                };
                wa = _mm512_mask_add_ps(wa, ma, wa, da);
                wb = _mm512_mask_add_ps(wb, mb, wb, db);
            }};
        }
        if max_run > 1 {
            scan_step!(15);
        }
        if max_run > 2 {
            scan_step!(14);
        }
        if max_run > 4 {
            scan_step!(12);
        }
        if max_run > 8 {
            scan_step!(8);
        }
        if max_run > 16 {
            scan_step!(0);
        }
        let vo = ov.as_mut_ptr().cast::<u32>();
        store_first32(vo, na, _mm512_castps_si512(_mm512_maskz_compress_ps(ta, wa)));
        store_first32(vo.add(na as usize), nb, _mm512_castps_si512(_mm512_maskz_compress_ps(tb, wb)));
        (na + nb) as usize
    }
}
