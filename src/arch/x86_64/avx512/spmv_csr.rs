//! `avx512` CSR SpMV kernels: native gathers (`vgatherdpd`, `vgatherqpd`, `vgatherdps`,
//! `vgatherqps`) and mask registers, instantiated into the shared drivers
//! ([`simd_dot`](crate::arch::generic::spmv_csr::simd_dot) and friends).
//!
//! | pair | lanes | gather |
//! |---|---|---|
//! | f64 / u32 | 8 | `_mm512_i32gather_pd` (8 × i32 offsets in a `__m256i`) |
//! | f64 / u64 | 8 | `_mm512_i64gather_pd` |
//! | f32 / u32 | 16 | `_mm512_i32gather_ps` |
//! | f32 / u64 | 8 | `_mm512_i64gather_ps` (into a `__m256`) |
//!
//! Column indices are clamped with one unsigned `min` to `x.len() - 1` before the gather.
//! A row's tail is one masked load of indices and values and one masked gather (masked-off
//! lanes are not read), so a row of any length costs no scalar loop.
//!
//! In a row that may be one run of consecutive columns (its last column is its first plus
//! its length minus one: dense, banded and block rows), each register compares its columns
//! with `c, c + 1, ..` and, where they match, reads `x[c..]` with one load instead of a
//! gather (`fma_run`): a load costs a fraction of a gather, and rows that are not one run
//! pay one compare per row. In a canonical matrix (strictly increasing columns) such a
//! row *is* the run, so it reads neither its columns nor compares them: `fma_x` loads
//! `vals` and `x` side by side, a masked load of each for the tail
//! ([`simd_dot_x`](crate::arch::generic::spmv_csr::simd_dot_x)). Measurements:
//! `benches/records/kernel-notes-2026-11.md`, "Column runs in the CSR row kernels".
//!
//! Short rows of a structured-grid operator go 16 (`f32`) or 8 (`f64`) rows at a time
//! ([`Stencil`](crate::arch::generic::spmv_csr::Stencil)): rows of one length whose
//! entry `k` sits at column `c_k + j` in row `j` read entry `k` of all of them with one
//! load of `x[c_k..]`, the values transposed in registers (masked `vpermps`/`vpermpd`).
//! As on AVX2 the shuffles are few: the column test compares each column with the one a
//! row down (no permute), and odd lengths transpose blend-first (`L - 1` masked blends
//! and one permute per entry, `StencilTab::at`, instead of `L` masked permutes).
//! Matrices without such blocks pay only the test. Measurements:
//! `benches/records/kernel-notes-2026-11.md`, "Stencil blocks in the CSR row kernels".
//! Rows of one entry each go a register at a time whatever their columns (the shared
//! `one_entry_rows`): `x` by one load on a diagonal, by the register's gather or scalar
//! loads on a column vector or a permutation (`benches/records/peers-spmv-onerow-*.md`).

use core::arch::x86_64::*;

use crate::arch::generic::spmv_csr::{
    DotVec, RowLengths, STENCIL_MAX_W, StencilBlock, StencilTab, loads_rows_kernel, run_fits,
    spmv_csr_kernels, stencil_rows, stencil_slices,
};

/// Mask of the low `n` lanes (`n < 16`).
#[inline(always)]
fn low(n: usize) -> u16 {
    ((1u32 << n) - 1) as u16
}

/// `x[min(cols[j], xmax)]` for the lanes `j < n` at `cols` by scalar loads, the
/// others zero: the columns clamped in one register, then read back one by one (a
/// compare and select per lane cost the kernel a fifth of its time).
///
/// # Safety
/// AVX-512F+VL; `cols` valid for `n` reads (`1 <= n <= 8`), `x` for `xmax + 1`.
#[inline(always)]
unsafe fn loads_f64_u32(cols: *const u32, x: *const f64, xmax: usize, n: usize) -> __m512d {
    // SAFETY: the masked load reads `cols[..n]`; masked-off lanes hold column 0 and every
    // lane is clamped to `xmax`, so each scalar load lies in `x[..=xmax]`.
    unsafe {
        let k = low(n) as u8;
        let c = _mm256_min_epu32(_mm256_maskz_loadu_epi32(k, cols.cast()), _mm256_set1_epi32(xmax as i32));
        let mut t = [0u32; 8];
        _mm256_storeu_si256(t.as_mut_ptr().cast(), c);
        let l = |j: usize| *x.add(t[j] as usize);
        _mm512_maskz_mov_pd(k, _mm512_setr_pd(l(0), l(1), l(2), l(3), l(4), l(5), l(6), l(7)))
    }
}

/// `x[min(cols[j], xmax)]` for the lanes at `cols`, by a gather.
///
/// # Safety
/// As [`xs_f64_u32`].
#[inline(always)]
unsafe fn gather_f64_u32(cols: *const u32, x: *const f64, xmax: usize) -> __m512d {
    // SAFETY: the caller's contract; the offsets are clamped to `xmax`.
    unsafe {
        _mm512_i32gather_pd::<8>(
            _mm256_min_epu32(_mm256_loadu_si256(cols.cast()), _mm256_set1_epi32(xmax as i32)),
            x,
        )
    }
}

/// `x[min(cols[j], xmax)]` for the 8 lanes at `cols`: one load of `x[c0..c0 + 8]` where
/// the columns are `c0, c0 + 1, .., c0 + 7` (rows of consecutive columns: dense, banded,
/// block rows), a gather otherwise.
///
/// # Safety
/// AVX-512F+VL; `cols` valid for 8 reads, `x` for `xmax + 1`, `xmax <= i32::MAX`.
#[inline(always)]
unsafe fn xs_f64_u32<const L: bool>(cols: *const u32, x: *const f64, xmax: usize) -> __m512d {
    // SAFETY: the caller's contract; the load covers `x[c0..=c0 + 7]` with `c0 + 7 <= xmax`,
    // the gather's offsets are clamped to `xmax`.
    unsafe {
        let c = _mm256_loadu_si256(cols.cast());
        let c0 = *cols;
        let run = _mm256_add_epi32(_mm256_set1_epi32(c0 as i32), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        if _mm256_cmpeq_epi32_mask(c, run) == 0xff && run_fits(c0.into(), 8, xmax) {
            _mm512_loadu_pd(x.add(c0 as usize))
        } else if L {
            loads_f64_u32(cols, x, xmax, 8)
        } else {
            gather_f64_u32(cols, x, xmax)
        }
    }
}

/// `x[min(cols[j], xmax)]` for the lanes `j < n` at `cols` by scalar loads, the
/// others zero: the columns clamped in one register, then read back one by one (a
/// compare and select per lane cost the kernel a fifth of its time).
///
/// # Safety
/// AVX-512F+VL; `cols` valid for `n` reads (`1 <= n <= 8`), `x` for `xmax + 1`.
#[inline(always)]
unsafe fn loads_f64_u64(cols: *const u64, x: *const f64, xmax: usize, n: usize) -> __m512d {
    // SAFETY: the masked load reads `cols[..n]`; masked-off lanes hold column 0 and every
    // lane is clamped to `xmax`, so each scalar load lies in `x[..=xmax]`.
    unsafe {
        let k = low(n) as u8;
        let c = _mm512_min_epu64(_mm512_maskz_loadu_epi64(k, cols.cast()), _mm512_set1_epi64(xmax as i64));
        let mut t = [0u64; 8];
        _mm512_storeu_si512(t.as_mut_ptr().cast(), c);
        let l = |j: usize| *x.add(t[j] as usize);
        _mm512_maskz_mov_pd(k, _mm512_setr_pd(l(0), l(1), l(2), l(3), l(4), l(5), l(6), l(7)))
    }
}

/// `x[min(cols[j], xmax)]` for the lanes at `cols`, by a gather.
///
/// # Safety
/// As [`xs_f64_u64`].
#[inline(always)]
unsafe fn gather_f64_u64(cols: *const u64, x: *const f64, xmax: usize) -> __m512d {
    // SAFETY: the caller's contract; the offsets are clamped to `xmax`.
    unsafe {
        _mm512_i64gather_pd::<8>(
            _mm512_min_epu64(_mm512_loadu_si512(cols.cast()), _mm512_set1_epi64(xmax as i64)),
            x,
        )
    }
}

/// As [`xs_f64_u32`], 64-bit columns.
///
/// # Safety
/// AVX-512F; `cols` valid for 8 reads, `x` for `xmax + 1`.
#[inline(always)]
unsafe fn xs_f64_u64<const L: bool>(cols: *const u64, x: *const f64, xmax: usize) -> __m512d {
    // SAFETY: as `xs_f64_u32`.
    unsafe {
        let c = _mm512_loadu_si512(cols.cast());
        let c0 = *cols;
        let run = _mm512_add_epi64(_mm512_set1_epi64(c0 as i64), _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
        if _mm512_cmpeq_epi64_mask(c, run) == 0xff && run_fits(c0, 8, xmax) {
            _mm512_loadu_pd(x.add(c0 as usize))
        } else if L {
            loads_f64_u64(cols, x, xmax, 8)
        } else {
            gather_f64_u64(cols, x, xmax)
        }
    }
}

/// `x[min(cols[j], xmax)]` for the lanes `j < n` at `cols` by scalar loads, the
/// others zero: the columns clamped in one register, then read back one by one (a
/// compare and select per lane cost the kernel a fifth of its time).
///
/// # Safety
/// AVX-512F+VL; `cols` valid for `n` reads (`1 <= n <= 16`), `x` for `xmax + 1`.
#[inline(always)]
unsafe fn loads_f32_u32(cols: *const u32, x: *const f32, xmax: usize, n: usize) -> __m512 {
    // SAFETY: the masked load reads `cols[..n]`; masked-off lanes hold column 0 and every
    // lane is clamped to `xmax`, so each scalar load lies in `x[..=xmax]`.
    unsafe {
        let k = low(n);
        let c = _mm512_min_epu32(_mm512_maskz_loadu_epi32(k, cols.cast()), _mm512_set1_epi32(xmax as i32));
        let mut t = [0u32; 16];
        _mm512_storeu_si512(t.as_mut_ptr().cast(), c);
        let l = |j: usize| *x.add(t[j] as usize);
        _mm512_maskz_mov_ps(
            k,
            _mm512_setr_ps(
                l(0),
                l(1),
                l(2),
                l(3),
                l(4),
                l(5),
                l(6),
                l(7),
                l(8),
                l(9),
                l(10),
                l(11),
                l(12),
                l(13),
                l(14),
                l(15),
            ),
        )
    }
}

/// `x[min(cols[j], xmax)]` for the lanes at `cols`, by a gather.
///
/// # Safety
/// As [`xs_f32_u32`].
#[inline(always)]
unsafe fn gather_f32_u32(cols: *const u32, x: *const f32, xmax: usize) -> __m512 {
    // SAFETY: the caller's contract; the offsets are clamped to `xmax`.
    unsafe {
        _mm512_i32gather_ps::<4>(
            _mm512_min_epu32(_mm512_loadu_si512(cols.cast()), _mm512_set1_epi32(xmax as i32)),
            x,
        )
    }
}

/// As [`xs_f64_u32`], 16 `f32` lanes.
///
/// # Safety
/// AVX-512F; `cols` valid for 16 reads, `x` for `xmax + 1`, `xmax <= i32::MAX`.
#[inline(always)]
unsafe fn xs_f32_u32<const L: bool>(cols: *const u32, x: *const f32, xmax: usize) -> __m512 {
    // SAFETY: as `xs_f64_u32`, `c0 + 15 <= xmax`.
    unsafe {
        let c = _mm512_loadu_si512(cols.cast());
        let c0 = *cols;
        let iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let run = _mm512_add_epi32(_mm512_set1_epi32(c0 as i32), iota);
        if _mm512_cmpeq_epi32_mask(c, run) == 0xffff && run_fits(c0.into(), 16, xmax) {
            _mm512_loadu_ps(x.add(c0 as usize))
        } else if L {
            loads_f32_u32(cols, x, xmax, 16)
        } else {
            gather_f32_u32(cols, x, xmax)
        }
    }
}

/// `x[min(cols[j], xmax)]` for the lanes `j < n` at `cols` by scalar loads, the
/// others zero: the columns clamped in one register, then read back one by one (a
/// compare and select per lane cost the kernel a fifth of its time).
///
/// # Safety
/// AVX-512F+VL; `cols` valid for `n` reads (`1 <= n <= 8`), `x` for `xmax + 1`.
#[inline(always)]
unsafe fn loads_f32_u64(cols: *const u64, x: *const f32, xmax: usize, n: usize) -> __m256 {
    // SAFETY: the masked load reads `cols[..n]`; masked-off lanes hold column 0 and every
    // lane is clamped to `xmax`, so each scalar load lies in `x[..=xmax]`.
    unsafe {
        let k = low(n) as u8;
        let c = _mm512_min_epu64(_mm512_maskz_loadu_epi64(k, cols.cast()), _mm512_set1_epi64(xmax as i64));
        let mut t = [0u64; 8];
        _mm512_storeu_si512(t.as_mut_ptr().cast(), c);
        let l = |j: usize| *x.add(t[j] as usize);
        _mm256_maskz_mov_ps(k, _mm256_setr_ps(l(0), l(1), l(2), l(3), l(4), l(5), l(6), l(7)))
    }
}

/// `x[min(cols[j], xmax)]` for the lanes at `cols`, by a gather.
///
/// # Safety
/// As [`xs_f32_u64`].
#[inline(always)]
unsafe fn gather_f32_u64(cols: *const u64, x: *const f32, xmax: usize) -> __m256 {
    // SAFETY: the caller's contract; the offsets are clamped to `xmax`.
    unsafe {
        _mm512_i64gather_ps::<4>(
            _mm512_min_epu64(_mm512_loadu_si512(cols.cast()), _mm512_set1_epi64(xmax as i64)),
            x,
        )
    }
}

/// As [`xs_f64_u32`], 8 `f32` lanes with 64-bit columns.
///
/// # Safety
/// AVX-512F+VL; `cols` valid for 8 reads, `x` for `xmax + 1`.
#[inline(always)]
unsafe fn xs_f32_u64<const L: bool>(cols: *const u64, x: *const f32, xmax: usize) -> __m256 {
    // SAFETY: as `xs_f64_u64`.
    unsafe {
        let c = _mm512_loadu_si512(cols.cast());
        let c0 = *cols;
        let run = _mm512_add_epi64(_mm512_set1_epi64(c0 as i64), _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
        if _mm512_cmpeq_epi64_mask(c, run) == 0xff && run_fits(c0, 8, xmax) {
            _mm256_loadu_ps(x.add(c0 as usize))
        } else if L {
            loads_f32_u64(cols, x, xmax, 8)
        } else {
            gather_f32_u64(cols, x, xmax)
        }
    }
}

/// 8 × f64 lanes, 32-bit indices.
#[derive(Clone, Copy)]
pub(crate) struct F64U32<const L: bool>(__m512d);
/// 8 × f64 lanes, 64-bit indices.
#[derive(Clone, Copy)]
pub(crate) struct F64U64<const L: bool>(__m512d);
/// 16 × f32 lanes, 32-bit indices.
#[derive(Clone, Copy)]
pub(crate) struct F32U32<const L: bool>(__m512);
/// 8 × f32 lanes, 64-bit indices.
#[derive(Clone, Copy)]
pub(crate) struct F32U64<const L: bool>(__m256);

dot_vec! {
    F64U32: f64, u32, lanes 8, max_x i32::MAX as usize;
    zero _mm512_setzero_pd, splat _mm512_set1_pd, load _mm512_loadu_pd, mul _mm512_mul_pd, fmadd _mm512_fmadd_pd,
    add _mm512_add_pd, store _mm512_storeu_pd;
    sum |v| {
        _mm512_reduce_add_pd(v)
    };
    gather gather_f64_u32, loads loads_f64_u32, run xs_f64_u32;
    tail |acc, vals, cols, x, xmax, n| {
        let k = low(n) as u8;
        let idx =
        _mm256_min_epu32(_mm256_maskz_loadu_epi32(k, cols.cast()), _mm256_set1_epi32(xmax as i32));
        let g = _mm512_mask_i32gather_pd::<8>(_mm512_setzero_pd(), k, idx, x);
        _mm512_fmadd_pd(_mm512_maskz_loadu_pd(k, vals), g, acc.0)
    };
    run_tail |p, n| _mm512_maskz_loadu_pd(low(n) as u8, p);
    stencil 8
}

dot_vec! {
    F64U64: f64, u64, lanes 8, max_x usize::MAX;
    zero _mm512_setzero_pd, splat _mm512_set1_pd, load _mm512_loadu_pd, mul _mm512_mul_pd, fmadd _mm512_fmadd_pd,
    add _mm512_add_pd, store _mm512_storeu_pd;
    sum |v| {
        _mm512_reduce_add_pd(v)
    };
    gather gather_f64_u64, loads loads_f64_u64, run xs_f64_u64;
    tail |acc, vals, cols, x, xmax, n| {
        let k = low(n) as u8;
        let idx =
        _mm512_min_epu64(_mm512_maskz_loadu_epi64(k, cols.cast()), _mm512_set1_epi64(xmax as i64));
        let g = _mm512_mask_i64gather_pd::<8>(_mm512_setzero_pd(), k, idx, x);
        _mm512_fmadd_pd(_mm512_maskz_loadu_pd(k, vals), g, acc.0)
    };
    run_tail |p, n| _mm512_maskz_loadu_pd(low(n) as u8, p)
}

dot_vec! {
    F32U32: f32, u32, lanes 16, max_x i32::MAX as usize;
    zero _mm512_setzero_ps, splat _mm512_set1_ps, load _mm512_loadu_ps, mul _mm512_mul_ps, fmadd _mm512_fmadd_ps,
    add _mm512_add_ps, store _mm512_storeu_ps;
    sum |v| {
        _mm512_reduce_add_ps(v)
    };
    gather gather_f32_u32, loads loads_f32_u32, run xs_f32_u32;
    tail |acc, vals, cols, x, xmax, n| {
        let k = low(n);
        let idx =
        _mm512_min_epu32(_mm512_maskz_loadu_epi32(k, cols.cast()), _mm512_set1_epi32(xmax as i32));
        let g = _mm512_mask_i32gather_ps::<4>(_mm512_setzero_ps(), k, idx, x);
        _mm512_fmadd_ps(_mm512_maskz_loadu_ps(k, vals), g, acc.0)
    };
    run_tail |p, n| _mm512_maskz_loadu_ps(low(n), p);
    stencil 16
}

dot_vec! {
    F32U64: f32, u64, lanes 8, max_x usize::MAX;
    zero _mm256_setzero_ps, splat _mm256_set1_ps, load _mm256_loadu_ps, mul _mm256_mul_ps, fmadd _mm256_fmadd_ps,
    add _mm256_add_ps, store _mm256_storeu_ps;
    sum |v| {
        _mm512_reduce_add_ps(_mm512_zextps256_ps512(v))
    };
    gather gather_f32_u64, loads loads_f32_u64, run xs_f32_u64;
    tail |acc, vals, cols, x, xmax, n| {
        let k = low(n) as u8;
        let idx =
        _mm512_min_epu64(_mm512_maskz_loadu_epi64(k, cols.cast()), _mm512_set1_epi64(xmax as i64));
        let g = _mm512_mask_i64gather_ps::<4>(_mm256_setzero_ps(), k, idx, x);
        _mm256_fmadd_ps(_mm256_maskz_loadu_ps(k, vals), g, acc.0)
    };
    run_tail |p, n| _mm256_maskz_loadu_ps(low(n) as u8, p)
}

/// Whether the `W` rows (16 or 8) of `L` entries with columns `cb` (`W L` of them) are a
/// stencil block, entry `k` of row `j` at column `c_k + j`: every column is one less than
/// the column `L` places on (the same entry one row down), `cb[e + L] == cb[e] + 1` for
/// `e < (W - 1) L`, one compare per register of `W` columns and no permute (`L == 1`:
/// the `W` columns against `c_0 + j`). `stencil_slices` has checked `c_k + W <= x.len()`
/// and `c_k + W <= 2^32`, so no lane wraps. The `W = 8` branch is AVX2's test in mask
/// registers, which ran faster than calling AVX2's own function there
/// (`benches/records/kernel-notes-2026-11.md`, "Stencil blocks in the CSR row kernels").
///
/// # Safety
/// AVX-512F and VL are present; `cb` holds `W L >= W` columns.
#[inline(always)]
unsafe fn stencil_cols<const L: usize, const W: usize>(cb: &[u32]) -> bool {
    let n = (W - 1) * L;
    // SAFETY: the caller's promises; each load reads `W` columns at `o` or `o + L` with
    // `o + L + W <= n + L = W L`, or the first `W` (`L == 1`).
    unsafe {
        let mut bad = 0u16;
        if W == 16 {
            let one = _mm512_set1_epi32(1);
            if n < 16 {
                let iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
                let want = _mm512_add_epi32(_mm512_set1_epi32(cb[0] as i32), iota);
                bad = _mm512_cmpneq_epi32_mask(_mm512_loadu_si512(cb.as_ptr().cast()), want);
            } else {
                for r in 0..n.div_ceil(16) {
                    let o = (16 * r).min(n - 16);
                    let here = _mm512_loadu_si512(cb.as_ptr().add(o).cast());
                    let below = _mm512_loadu_si512(cb.as_ptr().add(o + L).cast());
                    bad |= _mm512_cmpneq_epi32_mask(below, _mm512_add_epi32(here, one));
                }
            }
        } else {
            let one = _mm256_set1_epi32(1);
            if n < 8 {
                let want = _mm256_add_epi32(
                    _mm256_set1_epi32(cb[0] as i32),
                    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                );
                bad = u16::from(_mm256_cmpneq_epi32_mask(_mm256_loadu_si256(cb.as_ptr().cast()), want));
            } else {
                for r in 0..n.div_ceil(8) {
                    let o = (8 * r).min(n - 8);
                    let here = _mm256_loadu_si256(cb.as_ptr().add(o).cast());
                    let below = _mm256_loadu_si256(cb.as_ptr().add(o + L).cast());
                    bad |= u16::from(_mm256_cmpneq_epi32_mask(below, _mm256_add_epi32(here, one)));
                }
            }
        }
        bad == 0
    }
}

/// The start `s` and length `l` (1 to 7) of the `W` rows whose `row_ptr` entries are
/// `rp` (`W + 1` of them, `W` 8 or 16), when all have that length; `None` otherwise: one
/// vector compare, which an entry at a time slowed
/// (`benches/records/kernel-notes-2026-11.md`, "Stencil blocks in the CSR row kernels").
///
/// # Safety
/// AVX-512F and VL are present.
#[inline(always)]
unsafe fn equal_rows<const W: usize>(rp: &[u32]) -> Option<(usize, usize)> {
    let (Some(rp), Some(&r1)) = (rp.get(..W + 1), rp.get(1)) else { return None };
    let (s, l) = (rp[0] as usize, r1.wrapping_sub(rp[0]) as usize);
    if (W != 8 && W != 16) || l == 0 || l >= 8 || rp[W] as usize != s + W * l {
        return None;
    }
    // SAFETY: AVX-512F/VL (the caller's promise); `rp` holds `W + 1 >= 9` entries and
    // the loads read `W <= 16` from entry 0 and from entry 1.
    let equal = unsafe {
        let p = rp.as_ptr();
        if W == 16 {
            let d = _mm512_sub_epi32(_mm512_loadu_si512(p.add(1).cast()), _mm512_loadu_si512(p.cast()));
            _mm512_cmpneq_epi32_mask(d, _mm512_set1_epi32(l as i32)) == 0
        } else {
            let d = _mm256_sub_epi32(_mm256_loadu_si256(p.add(1).cast()), _mm256_loadu_si256(p.cast()));
            _mm256_cmpneq_epi32_mask(d, _mm256_set1_epi32(l as i32)) == 0
        }
    };
    equal.then_some((s, l))
}

/// This width's stencil blocks ([`StencilBlock`]), by value type.
struct Block;

impl RowLengths for Block {
    #[inline(always)]
    unsafe fn lengths<const W: usize>(rp: &[u32]) -> Option<(usize, usize)> {
        // SAFETY: the caller's contract (AVX-512F and VL).
        unsafe { equal_rows::<W>(rp) }
    }
}

impl StencilBlock<f32> for Block {
    #[inline(always)]
    unsafe fn block<const L: usize>(
        s: usize,
        cols: &[u32],
        vals: &[f32],
        x: &[f32],
        out: &mut [f32; STENCIL_MAX_W],
    ) -> bool {
        // SAFETY: the caller's contract.
        unsafe { stencil_f32_block::<L>(s, cols, vals, x, out) }
    }
}

impl StencilBlock<f64> for Block {
    #[inline(always)]
    unsafe fn block<const L: usize>(
        s: usize,
        cols: &[u32],
        vals: &[f64],
        x: &[f64],
        out: &mut [f64; STENCIL_MAX_W],
    ) -> bool {
        // SAFETY: the caller's contract.
        unsafe { stencil_f64_block::<L>(s, cols, vals, x, out) }
    }
}

/// 16 rows of `L` entries from entry `s`, `f32`: the column test, then entry by entry
/// `vals` (transposed by masked permutes) times one load of `x`.
///
/// # Safety
/// AVX-512F and VL are present.
#[inline(always)]
unsafe fn stencil_f32_block<const L: usize>(
    s: usize,
    cols: &[u32],
    vals: &[f32],
    x: &[f32],
    out: &mut [f32; STENCIL_MAX_W],
) -> bool {
    let Some((cb, vb)) = stencil_slices(cols, vals, x.len(), s, 16, L) else { return false };
    // SAFETY: the caller's promise; `cb` holds `16 L` columns.
    if !unsafe { stencil_cols::<L, 16>(cb) } {
        return false;
    }
    let tab = &StencilTab::<L, 16>::TAB;
    // SAFETY: AVX-512F (the caller's promise); the loads read 16 values inside `vb`
    // (`16 L` of them) and `x[c_k..c_k + 16]`, inside `x` by the column test.
    unsafe {
        let mut acc = _mm512_setzero_ps();
        for (k, &c) in cb[..L].iter().enumerate() {
            let idx = _mm512_loadu_si512(tab.lane[k].as_ptr().cast());
            let mut t = _mm512_setzero_ps();
            if L % 2 == 1 {
                // Blend-first (`StencilTab::at`): `L - 1` blends and one permute.
                t = _mm512_loadu_ps(vb.as_ptr());
                for v in 1..L {
                    t = _mm512_mask_blend_ps(tab.at[k][v], t, _mm512_loadu_ps(vb.as_ptr().add(16 * v)));
                }
                t = _mm512_permutexvar_ps(idx, t);
            } else {
                for v in 0..L {
                    let m = tab.from[k][v];
                    if m != 0 {
                        t = _mm512_mask_permutexvar_ps(t, m, idx, _mm512_loadu_ps(vb.as_ptr().add(16 * v)));
                    }
                }
            }
            let xs = _mm512_loadu_ps(x.as_ptr().add(c as usize));
            acc = _mm512_add_ps(acc, _mm512_mul_ps(t, xs));
        }
        _mm512_storeu_ps(out.as_mut_ptr(), acc);
    }
    true
}

/// 8 rows of `L` entries from entry `s`, `f64`: as [`stencil_f32_block`].
///
/// # Safety
/// AVX-512F and VL are present.
#[inline(always)]
unsafe fn stencil_f64_block<const L: usize>(
    s: usize,
    cols: &[u32],
    vals: &[f64],
    x: &[f64],
    out: &mut [f64; STENCIL_MAX_W],
) -> bool {
    let Some((cb, vb)) = stencil_slices(cols, vals, x.len(), s, 8, L) else { return false };
    // SAFETY: the caller's promise; `cb` holds `8 L` columns.
    if !unsafe { stencil_cols::<L, 8>(cb) } {
        return false;
    }
    let tab = &StencilTab::<L, 8>::TAB;
    // SAFETY: AVX-512F (the caller's promise); the loads read 8 values inside `vb`
    // (`8 L` of them) and `x[c_k..c_k + 8]`, inside `x` by the column test.
    unsafe {
        let mut acc = _mm512_setzero_pd();
        for (k, &c) in cb[..L].iter().enumerate() {
            let idx = _mm512_cvtepu32_epi64(_mm256_loadu_si256(tab.lane[k].as_ptr().cast()));
            let mut t = _mm512_setzero_pd();
            if L % 2 == 1 {
                // Blend-first (`StencilTab::at`): `L - 1` blends and one permute.
                t = _mm512_loadu_pd(vb.as_ptr());
                for v in 1..L {
                    let m = tab.at[k][v] as u8;
                    if m != 0 {
                        t = _mm512_mask_blend_pd(m, t, _mm512_loadu_pd(vb.as_ptr().add(8 * v)));
                    }
                }
                t = _mm512_permutexvar_pd(idx, t);
            } else {
                for v in 0..L {
                    let m = tab.from[k][v] as u8;
                    if m != 0 {
                        t = _mm512_mask_permutexvar_pd(t, m, idx, _mm512_loadu_pd(vb.as_ptr().add(8 * v)));
                    }
                }
            }
            let xs = _mm512_loadu_pd(x.as_ptr().add(c as usize));
            acc = _mm512_add_pd(acc, _mm512_mul_pd(t, xs));
        }
        _mm512_storeu_pd(out.as_mut_ptr().cast(), acc);
    }
    true
}

spmv_csr_kernels!(
    "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma",
    F64U32<false>,
    f64,
    u32,
    rows_f64_u32,
    dot_f64_u32,
    products_f64_u32
);
loads_rows_kernel!("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma", F64U32<true>, f64, u32, rows_loads_f64_u32);
spmv_csr_kernels!(
    "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma",
    F64U64<false>,
    f64,
    u64,
    rows_f64_u64,
    dot_f64_u64,
    products_f64_u64
);
loads_rows_kernel!("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma", F64U64<true>, f64, u64, rows_loads_f64_u64);
spmv_csr_kernels!(
    "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma",
    F32U32<false>,
    f32,
    u32,
    rows_f32_u32,
    dot_f32_u32,
    products_f32_u32
);
loads_rows_kernel!("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma", F32U32<true>, f32, u32, rows_loads_f32_u32);
spmv_csr_kernels!(
    "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma",
    F32U64<false>,
    f32,
    u64,
    rows_f32_u64,
    dot_f32_u64,
    products_f32_u64
);
loads_rows_kernel!("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma", F32U64<true>, f32, u64, rows_loads_f32_u64);

// The symmetric-storage SpMV over the dot products above.
crate::arch::generic::spmv_sym::spmv_sym_kernels!(
    "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma",
    F64U32<false>,
    f64,
    u32,
    sym_f64_u32,
    dot_f64_u32
);
crate::arch::generic::spmv_sym::spmv_sym_kernels!(
    "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma",
    F64U64<false>,
    f64,
    u64,
    sym_f64_u64,
    dot_f64_u64
);
crate::arch::generic::spmv_sym::spmv_sym_kernels!(
    "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma",
    F32U32<false>,
    f32,
    u32,
    sym_f32_u32,
    dot_f32_u32
);
crate::arch::generic::spmv_sym::spmv_sym_kernels!(
    "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma",
    F32U64<false>,
    f32,
    u64,
    sym_f32_u64,
    dot_f32_u64
);

// The row-scalar loop, compiled for this width.
crate::arch::generic::spmv_csr::scalar_rows_kernels!("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma");
