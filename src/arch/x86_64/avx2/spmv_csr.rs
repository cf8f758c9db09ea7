//! `avx2` CSR SpMV kernels: AVX2 gathers and FMA, instantiated into the shared drivers
//! ([`simd_dot`](crate::arch::generic::spmv_csr::simd_dot) and friends).
//!
//! | pair | lanes | gather |
//! |---|---|---|
//! | f64 / u32 | 4 | `_mm256_i32gather_pd` (4 × i32 offsets in a `__m128i`) |
//! | f64 / u64 | 4 | `_mm256_i64gather_pd` |
//! | f32 / u32 | 8 | `_mm256_i32gather_ps` |
//! | f32 / u64 | 4 | `_mm256_i64gather_ps` (into a `__m128`) |
//!
//! Column indices are clamped to `x.len() - 1` before the gather (`vpminud` for 32-bit
//! indices; 64-bit ones, lacking an unsigned 64-bit `min` before AVX-512, compare with the
//! sign bit flipped and blend). A row's tail is one masked load (`vpmaskmov`) of indices
//! and values and one masked gather: masked-off lanes are not read.
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
//! Short rows of a structured-grid operator go 8 (`f32`) or 4 (`f64`) rows at a time
//! ([`Stencil`](crate::arch::generic::spmv_csr::Stencil)): rows of one length whose
//! entry `k` sits at column `c_k + j` in row `j` read entry `k` of all of them with one
//! load of `x[c_k..]`, the values transposed in registers (`vpermps` and blends). The
//! block's shuffles are few: the column test compares each column with the one a row
//! down (no permute), the row lengths are one vector compare, and odd lengths transpose
//! blend-first ([`OddTab`]: `L` permutes instead of `L^2`), even ones past 4 by
//! overlapping loads ([`stencil_f32_overlap`]). Matrices without such blocks pay only the
//! test. Rows of 8 to 32 entries as blocks were tried and not kept: they lost to the
//! vector dot product in `f64`, or to CSR5, which the plan takes there. Measurements:
//! `benches/records/kernel-notes-2026-11.md`, "Stencil blocks in the CSR row kernels".
//! Rows of one entry each go a register at a time whatever their columns (the shared
//! `one_entry_rows`): `x` by one load on a diagonal, by the register's gather or scalar
//! loads on a column vector or a permutation (`benches/records/peers-spmv-onerow-*.md`).

use core::arch::x86_64::*;

use super::{mask32x4, mask32x8, mask64};

use crate::arch::generic::spmv_csr::{
    DotVec, RowLengths, STENCIL_MAX_W, StencilBlock, StencilTab, loads_rows_kernel, run_fits,
    spmv_csr_kernels, stencil_rows, stencil_slices,
};

/// `x[min(cols[j], xmax)]` for the lanes `j < n` at `cols` by scalar loads, the
/// others zero: the columns clamped in one register, then read back one by one (a
/// compare and select per lane cost the kernel a fifth of its time).
///
/// # Safety
/// AVX2; `cols` valid for `n` reads (`1 <= n <= 4`), `x` for `xmax + 1`.
#[inline(always)]
unsafe fn loads_f64_u32(cols: *const u32, x: *const f64, xmax: usize, n: usize) -> __m256d {
    // SAFETY: the masked load reads `cols[..n]`; masked-off lanes hold column 0 and every
    // lane is clamped to `xmax`, so each scalar load lies in `x[..=xmax]`.
    unsafe {
        let c = _mm_min_epu32(_mm_maskload_epi32(cols.cast(), mask32x4(n)), _mm_set1_epi32(xmax as i32));
        let mut t = [0u32; 4];
        _mm_storeu_si128(t.as_mut_ptr().cast(), c);
        let l = |j: usize| *x.add(t[j] as usize);
        _mm256_and_pd(_mm256_setr_pd(l(0), l(1), l(2), l(3)), _mm256_castsi256_pd(mask64(n)))
    }
}

/// `x[min(cols[j], xmax)]` for the lanes at `cols`, by a gather.
///
/// # Safety
/// As [`xs_f64_u32`].
#[inline(always)]
unsafe fn gather_f64_u32(cols: *const u32, x: *const f64, xmax: usize) -> __m256d {
    // SAFETY: the caller's contract; the offsets are clamped to `xmax`.
    unsafe {
        _mm256_i32gather_pd::<8>(x, _mm_min_epu32(_mm_loadu_si128(cols.cast()), _mm_set1_epi32(xmax as i32)))
    }
}

/// `x[min(cols[j], xmax)]` for the 4 lanes at `cols`: one load of `x[c0..c0 + 4]` where
/// the columns are `c0, c0 + 1, c0 + 2, c0 + 3` (rows of consecutive columns: dense,
/// banded, block rows), a gather otherwise.
///
/// # Safety
/// AVX2; `cols` valid for 4 reads, `x` for `xmax + 1`, `xmax <= i32::MAX`.
#[inline(always)]
unsafe fn xs_f64_u32<const L: bool>(cols: *const u32, x: *const f64, xmax: usize) -> __m256d {
    // SAFETY: the caller's contract; the load covers `x[c0..=c0 + 3]` with `c0 + 3 <= xmax`,
    // the gather's offsets are clamped to `xmax`.
    unsafe {
        let c = _mm_loadu_si128(cols.cast());
        let c0 = *cols;
        let run = _mm_add_epi32(_mm_set1_epi32(c0 as i32), _mm_setr_epi32(0, 1, 2, 3));
        if _mm_movemask_epi8(_mm_cmpeq_epi32(c, run)) == 0xffff && run_fits(c0.into(), 4, xmax) {
            _mm256_loadu_pd(x.add(c0 as usize))
        } else if L {
            loads_f64_u32(cols, x, xmax, 4)
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
/// AVX2; `cols` valid for `n` reads (`1 <= n <= 4`), `x` for `xmax + 1`.
#[inline(always)]
unsafe fn loads_f64_u64(cols: *const u64, x: *const f64, xmax: usize, n: usize) -> __m256d {
    // SAFETY: the masked load reads `cols[..n]`; masked-off lanes hold column 0 and every
    // lane is clamped to `xmax`, so each scalar load lies in `x[..=xmax]`.
    unsafe {
        let c = clamp64(_mm256_maskload_epi64(cols.cast(), mask64(n)), xmax);
        let mut t = [0u64; 4];
        _mm256_storeu_si256(t.as_mut_ptr().cast(), c);
        let l = |j: usize| *x.add(t[j] as usize);
        _mm256_and_pd(_mm256_setr_pd(l(0), l(1), l(2), l(3)), _mm256_castsi256_pd(mask64(n)))
    }
}

/// `x[min(cols[j], xmax)]` for the lanes at `cols`, by a gather.
///
/// # Safety
/// As [`xs_f64_u64`].
#[inline(always)]
unsafe fn gather_f64_u64(cols: *const u64, x: *const f64, xmax: usize) -> __m256d {
    // SAFETY: the caller's contract; the offsets are clamped to `xmax`.
    unsafe { _mm256_i64gather_pd::<8>(x, clamp64(_mm256_loadu_si256(cols.cast()), xmax)) }
}

/// As [`xs_f64_u32`], 64-bit columns.
///
/// # Safety
/// AVX2; `cols` valid for 4 reads, `x` for `xmax + 1`.
#[inline(always)]
unsafe fn xs_f64_u64<const L: bool>(cols: *const u64, x: *const f64, xmax: usize) -> __m256d {
    // SAFETY: as `xs_f64_u32`.
    unsafe {
        let c = _mm256_loadu_si256(cols.cast());
        let c0 = *cols;
        let run = _mm256_add_epi64(_mm256_set1_epi64x(c0 as i64), _mm256_setr_epi64x(0, 1, 2, 3));
        if _mm256_movemask_epi8(_mm256_cmpeq_epi64(c, run)) == -1 && run_fits(c0, 4, xmax) {
            _mm256_loadu_pd(x.add(c0 as usize))
        } else if L {
            loads_f64_u64(cols, x, xmax, 4)
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
/// AVX2; `cols` valid for `n` reads (`1 <= n <= 8`), `x` for `xmax + 1`.
#[inline(always)]
unsafe fn loads_f32_u32(cols: *const u32, x: *const f32, xmax: usize, n: usize) -> __m256 {
    // SAFETY: the masked load reads `cols[..n]`; masked-off lanes hold column 0 and every
    // lane is clamped to `xmax`, so each scalar load lies in `x[..=xmax]`.
    unsafe {
        let c =
            _mm256_min_epu32(_mm256_maskload_epi32(cols.cast(), mask32x8(n)), _mm256_set1_epi32(xmax as i32));
        let mut t = [0u32; 8];
        _mm256_storeu_si256(t.as_mut_ptr().cast(), c);
        let l = |j: usize| *x.add(t[j] as usize);
        _mm256_and_ps(
            _mm256_setr_ps(l(0), l(1), l(2), l(3), l(4), l(5), l(6), l(7)),
            _mm256_castsi256_ps(mask32x8(n)),
        )
    }
}

/// `x[min(cols[j], xmax)]` for the lanes at `cols`, by a gather.
///
/// # Safety
/// As [`xs_f32_u32`].
#[inline(always)]
unsafe fn gather_f32_u32(cols: *const u32, x: *const f32, xmax: usize) -> __m256 {
    // SAFETY: the caller's contract; the offsets are clamped to `xmax`.
    unsafe {
        _mm256_i32gather_ps::<4>(
            x,
            _mm256_min_epu32(_mm256_loadu_si256(cols.cast()), _mm256_set1_epi32(xmax as i32)),
        )
    }
}

/// As [`xs_f64_u32`], 8 `f32` lanes.
///
/// # Safety
/// AVX2; `cols` valid for 8 reads, `x` for `xmax + 1`, `xmax <= i32::MAX`.
#[inline(always)]
unsafe fn xs_f32_u32<const L: bool>(cols: *const u32, x: *const f32, xmax: usize) -> __m256 {
    // SAFETY: as `xs_f64_u32`, `c0 + 7 <= xmax`.
    unsafe {
        let c = _mm256_loadu_si256(cols.cast());
        let c0 = *cols;
        let run = _mm256_add_epi32(_mm256_set1_epi32(c0 as i32), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        if _mm256_movemask_epi8(_mm256_cmpeq_epi32(c, run)) == -1 && run_fits(c0.into(), 8, xmax) {
            _mm256_loadu_ps(x.add(c0 as usize))
        } else if L {
            loads_f32_u32(cols, x, xmax, 8)
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
/// AVX2; `cols` valid for `n` reads (`1 <= n <= 4`), `x` for `xmax + 1`.
#[inline(always)]
unsafe fn loads_f32_u64(cols: *const u64, x: *const f32, xmax: usize, n: usize) -> __m128 {
    // SAFETY: the masked load reads `cols[..n]`; masked-off lanes hold column 0 and every
    // lane is clamped to `xmax`, so each scalar load lies in `x[..=xmax]`.
    unsafe {
        let c = clamp64(_mm256_maskload_epi64(cols.cast(), mask64(n)), xmax);
        let mut t = [0u64; 4];
        _mm256_storeu_si256(t.as_mut_ptr().cast(), c);
        let l = |j: usize| *x.add(t[j] as usize);
        _mm_and_ps(_mm_setr_ps(l(0), l(1), l(2), l(3)), _mm_castsi128_ps(mask32x4(n)))
    }
}

/// `x[min(cols[j], xmax)]` for the lanes at `cols`, by a gather.
///
/// # Safety
/// As [`xs_f32_u64`].
#[inline(always)]
unsafe fn gather_f32_u64(cols: *const u64, x: *const f32, xmax: usize) -> __m128 {
    // SAFETY: the caller's contract; the offsets are clamped to `xmax`.
    unsafe { _mm256_i64gather_ps::<4>(x, clamp64(_mm256_loadu_si256(cols.cast()), xmax)) }
}

/// As [`xs_f64_u32`], 4 `f32` lanes with 64-bit columns.
///
/// # Safety
/// AVX2; `cols` valid for 4 reads, `x` for `xmax + 1`.
#[inline(always)]
unsafe fn xs_f32_u64<const L: bool>(cols: *const u64, x: *const f32, xmax: usize) -> __m128 {
    // SAFETY: as `xs_f64_u64`.
    unsafe {
        let c = _mm256_loadu_si256(cols.cast());
        let c0 = *cols;
        let run = _mm256_add_epi64(_mm256_set1_epi64x(c0 as i64), _mm256_setr_epi64x(0, 1, 2, 3));
        if _mm256_movemask_epi8(_mm256_cmpeq_epi64(c, run)) == -1 && run_fits(c0, 4, xmax) {
            _mm_loadu_ps(x.add(c0 as usize))
        } else if L {
            loads_f32_u64(cols, x, xmax, 4)
        } else {
            gather_f32_u64(cols, x, xmax)
        }
    }
}

/// Clamps 4 × u64 indices to `xmax` (unsigned).
///
/// # Safety
/// AVX2 is enabled.
#[inline(always)]
unsafe fn clamp64(idx: __m256i, xmax: usize) -> __m256i {
    // SAFETY: register operations only; the caller promises AVX2.
    unsafe {
        let s = _mm256_set1_epi64x(i64::MIN);
        let mx = _mm256_set1_epi64x(xmax as i64);
        let gt = _mm256_cmpgt_epi64(_mm256_xor_si256(idx, s), _mm256_xor_si256(mx, s));
        _mm256_blendv_epi8(idx, mx, gt)
    }
}

/// Sum of 4 × f32.
///
/// # Safety
/// SSE3 is enabled.
#[inline(always)]
unsafe fn hsum_ps128(s: __m128) -> f32 {
    // SAFETY: register operations only.
    unsafe {
        let t = _mm_add_ps(s, _mm_movehdup_ps(s));
        _mm_cvtss_f32(_mm_add_ss(t, _mm_movehl_ps(t, t)))
    }
}

/// 4 × f64 lanes, 32-bit indices.
#[derive(Clone, Copy)]
pub(crate) struct F64U32<const L: bool>(__m256d);
/// 4 × f64 lanes, 64-bit indices.
#[derive(Clone, Copy)]
pub(crate) struct F64U64<const L: bool>(__m256d);
/// 8 × f32 lanes, 32-bit indices.
#[derive(Clone, Copy)]
pub(crate) struct F32U32<const L: bool>(__m256);
/// 4 × f32 lanes, 64-bit indices.
#[derive(Clone, Copy)]
pub(crate) struct F32U64<const L: bool>(__m128);

dot_vec! {
    F64U32: f64, u32, lanes 4, max_x i32::MAX as usize;
    zero _mm256_setzero_pd, splat _mm256_set1_pd, load _mm256_loadu_pd, mul _mm256_mul_pd, fmadd _mm256_fmadd_pd,
    add _mm256_add_pd, store _mm256_storeu_pd;
    sum |v| {
        let s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd::<1>(v));
        _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)))
    };
    gather gather_f64_u32, loads loads_f64_u32, run xs_f64_u32;
    tail |acc, vals, cols, x, xmax, n| {
        let m64 = mask64(n);
        let raw = _mm_maskload_epi32(cols.cast(), mask32x4(n));
        let idx = _mm_min_epu32(raw, _mm_set1_epi32(xmax as i32));
        let g = _mm256_mask_i32gather_pd::<8>(_mm256_setzero_pd(), x, idx, _mm256_castsi256_pd(m64));
        _mm256_fmadd_pd(_mm256_maskload_pd(vals, m64), g, acc.0)
    };
    run_tail |p, n| _mm256_maskload_pd(p, mask64(n));
    stencil 4
}

dot_vec! {
    F64U64: f64, u64, lanes 4, max_x usize::MAX;
    zero _mm256_setzero_pd, splat _mm256_set1_pd, load _mm256_loadu_pd, mul _mm256_mul_pd, fmadd _mm256_fmadd_pd,
    add _mm256_add_pd, store _mm256_storeu_pd;
    sum |v| {
        let s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd::<1>(v));
        _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)))
    };
    gather gather_f64_u64, loads loads_f64_u64, run xs_f64_u64;
    tail |acc, vals, cols, x, xmax, n| {
        let m64 = mask64(n);
        let idx = clamp64(_mm256_maskload_epi64(cols.cast(), m64), xmax);
        let g = _mm256_mask_i64gather_pd::<8>(_mm256_setzero_pd(), x, idx, _mm256_castsi256_pd(m64));
        _mm256_fmadd_pd(_mm256_maskload_pd(vals, m64), g, acc.0)
    };
    run_tail |p, n| _mm256_maskload_pd(p, mask64(n))
}

dot_vec! {
    F32U32: f32, u32, lanes 8, max_x i32::MAX as usize;
    zero _mm256_setzero_ps, splat _mm256_set1_ps, load _mm256_loadu_ps, mul _mm256_mul_ps, fmadd _mm256_fmadd_ps,
    add _mm256_add_ps, store _mm256_storeu_ps;
    sum |v| {
        hsum_ps128(_mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v)))
    };
    gather gather_f32_u32, loads loads_f32_u32, run xs_f32_u32;
    tail |acc, vals, cols, x, xmax, n| {
        let m = mask32x8(n);
        let idx = _mm256_min_epu32(_mm256_maskload_epi32(cols.cast(), m), _mm256_set1_epi32(xmax as i32));
        let g = _mm256_mask_i32gather_ps::<4>(_mm256_setzero_ps(), x, idx, _mm256_castsi256_ps(m));
        _mm256_fmadd_ps(_mm256_maskload_ps(vals, m), g, acc.0)
    };
    run_tail |p, n| _mm256_maskload_ps(p, mask32x8(n));
    stencil 8
}

dot_vec! {
    F32U64: f32, u64, lanes 4, max_x usize::MAX;
    zero _mm_setzero_ps, splat _mm_set1_ps, load _mm_loadu_ps, mul _mm_mul_ps, fmadd _mm_fmadd_ps,
    add _mm_add_ps, store _mm_storeu_ps;
    sum |v| {
        hsum_ps128(v)
    };
    gather gather_f32_u64, loads loads_f32_u64, run xs_f32_u64;
    tail |acc, vals, cols, x, xmax, n| {
        let m32 = mask32x4(n);
        let idx = clamp64(_mm256_maskload_epi64(cols.cast(), mask64(n)), xmax);
        let g = _mm256_mask_i64gather_ps::<4>(_mm_setzero_ps(), x, idx, _mm_castsi128_ps(m32));
        _mm_fmadd_ps(_mm_maskload_ps(vals, m32), g, acc.0)
    };
    run_tail |p, n| _mm_maskload_ps(p, mask32x4(n))
}

/// The *blend-first* transpose of a stencil block of `W` rows (8 `f32` or 4 `f64` lanes
/// of a 256-bit register) of an odd number `L` of entries, as 32-bit lane vectors (an
/// `f64` lane is two). The `W L` values are `L` registers in row-major order; entry `k`
/// of row `j` sits at flat position `j L + k`, lane `(j L + k) mod W`, and since `L` is
/// odd those lanes are `W` different ones for the `W` rows. So the rows' entry `k` is
/// one blend of the `L` registers (`SEL`, from [`StencilTab`]'s `at`) and one permute
/// (`PERM`, from its `lane`): `L` permutes a block, where permuting each register into
/// place took `L^2`.
struct OddTab<const L: usize, const W: usize>;

impl<const L: usize, const W: usize> OddTab<L, W> {
    /// `SEL[k][v]`: all ones in the 32-bit lanes of register `v` that hold entry `k`.
    const SEL: [[[i32; 8]; L]; L] = {
        let (at, per, mut sel) = (StencilTab::<L, W>::TAB.at, 8 / W, [[[0; 8]; L]; L]);
        let mut k = 0;
        while k < L {
            let mut v = 0;
            while v < L {
                let mut t = 0;
                while t < 8 {
                    if (at[k][v] >> (t / per)) & 1 == 1 {
                        sel[k][v][t] = -1;
                    }
                    t += 1;
                }
                v += 1;
            }
            k += 1;
        }
        sel
    };
    /// `PERM[k]`: the 32-bit source lane of each 32-bit lane, moving lane `(j L + k) mod W`
    /// of the blend to lane `j`.
    const PERM: [[i32; 8]; L] = {
        let (lane, per, mut perm) = (StencilTab::<L, W>::TAB.lane, 8 / W, [[0; 8]; L]);
        let mut k = 0;
        while k < L {
            let mut t = 0;
            while t < 8 {
                perm[k][t] = (lane[k][t / per] as usize * per + t % per) as i32;
                t += 1;
            }
            k += 1;
        }
        perm
    };

    /// Entry `k` of the `W` rows, lane `j` from row `j`, out of the block's registers
    /// `src` (their bits; `f64` registers cast).
    ///
    /// # Safety
    /// AVX2 is present; `L` is odd.
    #[inline(always)]
    unsafe fn entry(src: &[__m256; L], k: usize) -> __m256 {
        // SAFETY: AVX2 (the caller's promise); the table loads read 8 lanes each.
        unsafe {
            let mut b = src[0];
            for (v, &r) in src.iter().enumerate().skip(1) {
                if StencilTab::<L, W>::TAB.at[k][v] != 0 {
                    b = _mm256_blendv_ps(b, r, _mm256_loadu_ps(Self::SEL[k][v].as_ptr().cast()));
                }
            }
            _mm256_permutevar8x32_ps(b, _mm256_loadu_si256(Self::PERM[k].as_ptr().cast()))
        }
    }
}

/// This width's stencil blocks ([`StencilBlock`]), by value type.
struct Block;

impl RowLengths for Block {
    /// One vector compare of the `W` row lengths (`rp[j + 1] - rp[j]`) with the first.
    #[inline(always)]
    unsafe fn lengths<const W: usize>(rp: &[u32]) -> Option<(usize, usize)> {
        let (Some(rp), Some(&r1)) = (rp.get(..W + 1), rp.get(1)) else { return None };
        let (s, l) = (rp[0] as usize, r1.wrapping_sub(rp[0]));
        if (W != 8 && W != 4) || l == 0 || l >= 8 {
            return None;
        }
        // SAFETY: AVX2 (the caller's promise); `rp` holds `W + 1` entries and the loads
        // read `W` from entry 0 and from entry 1.
        let equal = unsafe {
            if W == 8 {
                let d = _mm256_sub_epi32(
                    _mm256_loadu_si256(rp.as_ptr().add(1).cast()),
                    _mm256_loadu_si256(rp.as_ptr().cast()),
                );
                _mm256_movemask_epi8(_mm256_cmpeq_epi32(d, _mm256_set1_epi32(l as i32))) == -1
            } else {
                let d = _mm_sub_epi32(
                    _mm_loadu_si128(rp.as_ptr().add(1).cast()),
                    _mm_loadu_si128(rp.as_ptr().cast()),
                );
                _mm_movemask_epi8(_mm_cmpeq_epi32(d, _mm_set1_epi32(l as i32))) == 0xffff
            }
        };
        equal.then_some((s, l as usize))
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

/// 8 `f32` rows of `L` entries from entry `s`: the column test, then entry by entry the
/// values transposed times one load of `x`, blend-first ([`OddTab`]) for odd `L`,
/// [`stencil_f32_permuted`] for `L` 2 and 4, [`stencil_f32_overlap`] for 6: for each
/// length the fastest transpose measured (`benches/records/kernel-notes-2026-11.md`,
/// "Stencil blocks in the CSR row kernels").
///
/// # Safety
/// AVX2 is present.
#[inline(always)]
unsafe fn stencil_f32_block<const L: usize>(
    s: usize,
    cols: &[u32],
    vals: &[f32],
    x: &[f32],
    out: &mut [f32; STENCIL_MAX_W],
) -> bool {
    if L.is_multiple_of(2) && L > 4 {
        // SAFETY: the caller's contract.
        return unsafe { stencil_f32_overlap(L, s, cols, vals, x, out) };
    }
    let Some((cb, vb)) = stencil_slices(cols, vals, x.len(), s, 8, L) else { return false };
    // SAFETY: the caller's promise; `cb` holds `8 L` columns.
    if !unsafe { stencil_cols::<8>(cb, L) } {
        return false;
    }
    if L.is_multiple_of(2) {
        // SAFETY: AVX2 (the caller's promise); `cb`, `vb` hold the block, and the column
        // test put `x[c_k..c_k + 8]` inside `x`.
        unsafe { stencil_f32_permuted::<L>(cb, vb, x, out) };
        return true;
    }
    // SAFETY: AVX2 (the caller's promise); the loads read the `8 L` values of `vb` and
    // `x[c_k..c_k + 8]`, inside `x` by the column test.
    unsafe {
        let mut src = [_mm256_setzero_ps(); L];
        for (v, r) in src.iter_mut().enumerate() {
            *r = _mm256_loadu_ps(vb.as_ptr().add(8 * v));
        }
        let mut acc = _mm256_setzero_ps();
        for (k, &c) in cb[..L].iter().enumerate() {
            let t = OddTab::<L, 8>::entry(&src, k);
            acc = _mm256_add_ps(acc, _mm256_mul_ps(t, _mm256_loadu_ps(x.as_ptr().add(c as usize))));
        }
        _mm256_storeu_ps(out.as_mut_ptr(), acc);
    }
    true
}

/// The values of 8 `f32` rows of an even `L <= 4` entries transposed by permuting each
/// register into place (`L^2` permutes and blends, [`StencilTab`]): fewer operations than
/// the `8 L` loads of [`stencil_f32_overlap`] there, since blend-first needs odd `L`.
///
/// # Safety
/// AVX2 is present; `cb` and `vb` hold the block's `8 L` columns and values, and
/// `x[c_k..c_k + 8]` is inside `x` for the first row's columns `c_k`.
#[inline(always)]
unsafe fn stencil_f32_permuted<const L: usize>(
    cb: &[u32],
    vb: &[f32],
    x: &[f32],
    out: &mut [f32; STENCIL_MAX_W],
) {
    let tab = &StencilTab::<L, 8>::TAB;
    // SAFETY: AVX2 (the caller's promise); the loads read 8 values inside `vb` (`8 L` of
    // them), 8 table lanes and `x[c_k..c_k + 8]`, inside `x` (the caller's promise).
    unsafe {
        let mut acc = _mm256_setzero_ps();
        for (k, &c) in cb[..L].iter().enumerate() {
            let idx = _mm256_loadu_si256(tab.lane[k].as_ptr().cast());
            let mut t = _mm256_setzero_ps();
            for v in 0..L {
                let m = tab.from[k][v];
                if m != 0 {
                    let p = _mm256_permutevar8x32_ps(_mm256_loadu_ps(vb.as_ptr().add(8 * v)), idx);
                    let bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
                    let lanes =
                        _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(i32::from(m)), bit), bit);
                    t = _mm256_blendv_ps(t, p, _mm256_castsi256_ps(lanes));
                }
            }
            acc = _mm256_add_ps(acc, _mm256_mul_ps(t, _mm256_loadu_ps(x.as_ptr().add(c as usize))));
        }
        _mm256_storeu_ps(out.as_mut_ptr(), acc);
    }
}

/// 4 `f64` rows of `L` entries from entry `s`: as [`stencil_f32_block`] (an `f64` lane
/// moved as two 32-bit lanes); even `L` take [`stencil_f64_overlap`].
///
/// # Safety
/// AVX2 is present.
#[inline(always)]
unsafe fn stencil_f64_block<const L: usize>(
    s: usize,
    cols: &[u32],
    vals: &[f64],
    x: &[f64],
    out: &mut [f64; STENCIL_MAX_W],
) -> bool {
    if L.is_multiple_of(2) {
        // SAFETY: the caller's contract.
        return unsafe { stencil_f64_overlap(L, s, cols, vals, x, out) };
    }
    let Some((cb, vb)) = stencil_slices(cols, vals, x.len(), s, 4, L) else { return false };
    // SAFETY: the caller's promise; `cb` holds `4 L` columns.
    if !unsafe { stencil_cols::<4>(cb, L) } {
        return false;
    }
    // SAFETY: AVX2 (the caller's promise); the loads read the `4 L` values of `vb` and
    // `x[c_k..c_k + 4]`, inside `x` by the column test.
    unsafe {
        let mut src = [_mm256_setzero_ps(); L];
        for (v, r) in src.iter_mut().enumerate() {
            *r = _mm256_castpd_ps(_mm256_loadu_pd(vb.as_ptr().add(4 * v)));
        }
        let mut acc = _mm256_setzero_pd();
        for (k, &c) in cb[..L].iter().enumerate() {
            let t = _mm256_castps_pd(OddTab::<L, 4>::entry(&src, k));
            acc = _mm256_add_pd(acc, _mm256_mul_pd(t, _mm256_loadu_pd(x.as_ptr().add(c as usize))));
        }
        _mm256_storeu_pd(out.as_mut_ptr(), acc);
    }
    true
}

/// Whether the `W` rows (8 or 4) of `l` entries with columns `cb` (`W l` of them) are a
/// stencil block, entry `k` of row `j` at column `c_k + j`: every column is one less than
/// the column `l` places on (the same entry one row down), `cb[e + l] == cb[e] + 1` for
/// `e < (W - 1) l`, one compare per register of `W` columns and no permute (where
/// `(W - 1) l` columns fill no register, `l == 1`, the `W` columns against `c_0 + j`).
/// `stencil_slices` has checked `c_k + W <= x.len()` and `c_k + W <= 2^32`, so no lane
/// wraps. The permute of the first row's columns into every register that this replaced
/// cost `L` permutes a block.
///
/// # Safety
/// AVX2 is present; `cb` holds `W l >= W` columns.
#[inline(always)]
unsafe fn stencil_cols<const W: usize>(cb: &[u32], l: usize) -> bool {
    let n = (W - 1) * l;
    // SAFETY: the caller's promises; each load reads `W` columns at `o` or `o + l` with
    // `o + l + W <= n + l = W l`, or the first `W` (`l == 1`).
    unsafe {
        if W == 8 {
            let (one, mut ok) = (_mm256_set1_epi32(1), _mm256_set1_epi32(-1));
            if n < 8 {
                let want = _mm256_add_epi32(
                    _mm256_set1_epi32(cb[0] as i32),
                    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                );
                ok = _mm256_cmpeq_epi32(_mm256_loadu_si256(cb.as_ptr().cast()), want);
            } else {
                for r in 0..n.div_ceil(8) {
                    let o = (8 * r).min(n - 8);
                    let here = _mm256_loadu_si256(cb.as_ptr().add(o).cast());
                    let below = _mm256_loadu_si256(cb.as_ptr().add(o + l).cast());
                    ok = _mm256_and_si256(ok, _mm256_cmpeq_epi32(below, _mm256_add_epi32(here, one)));
                }
            }
            _mm256_movemask_epi8(ok) == -1
        } else {
            let (one, mut ok) = (_mm_set1_epi32(1), _mm_set1_epi32(-1));
            if n < 4 {
                let want = _mm_add_epi32(_mm_set1_epi32(cb[0] as i32), _mm_setr_epi32(0, 1, 2, 3));
                ok = _mm_cmpeq_epi32(_mm_loadu_si128(cb.as_ptr().cast()), want);
            } else {
                for r in 0..n.div_ceil(4) {
                    let o = (4 * r).min(n - 4);
                    let here = _mm_loadu_si128(cb.as_ptr().add(o).cast());
                    let below = _mm_loadu_si128(cb.as_ptr().add(o + l).cast());
                    ok = _mm_and_si128(ok, _mm_cmpeq_epi32(below, _mm_add_epi32(here, one)));
                }
            }
            _mm_movemask_epi8(ok) == 0xffff
        }
    }
}

/// 8 `f32` rows of any `l` entries from entry `s`: the column test, then entry by entry
/// the 8 values by *overlapping loads* (lane `j` of the load at `k + j (l - 1)` is entry
/// `k` of row `j`, flat position `j l + k`) merged by 7 blends, times one load of `x`.
/// No permute and no table; one load per value, from the cache line the first touched.
///
/// # Safety
/// AVX2 is present.
#[inline(always)]
unsafe fn stencil_f32_overlap(
    l: usize,
    s: usize,
    cols: &[u32],
    vals: &[f32],
    x: &[f32],
    out: &mut [f32; STENCIL_MAX_W],
) -> bool {
    let Some((cb, vb)) = stencil_slices(cols, vals, x.len(), s, 8, l) else { return false };
    // SAFETY: the caller's promise; `cb` holds `8 l` columns.
    if !unsafe { stencil_cols::<8>(cb, l) } {
        return false;
    }
    let step = l - 1;
    // SAFETY: AVX2 (the caller's promise); the load for row `j` of entry `k` reads
    // `vb[k + j (l - 1)..][..8]`, at most up to `(l - 1) + 7 (l - 1) + 8 = 8 l`, inside
    // `vb`; `x[c_k..c_k + 8]` is inside `x` by the column test.
    unsafe {
        // Entry `k` of the rows, lane `j` from row `j`.
        macro_rules! entry {
            ($k:expr) => {{
                let q = vb.as_ptr().add($k);
                let mut t = _mm256_loadu_ps(q);
                t = _mm256_blend_ps::<0x02>(t, _mm256_loadu_ps(q.add(step)));
                t = _mm256_blend_ps::<0x04>(t, _mm256_loadu_ps(q.add(2 * step)));
                t = _mm256_blend_ps::<0x08>(t, _mm256_loadu_ps(q.add(3 * step)));
                t = _mm256_blend_ps::<0x10>(t, _mm256_loadu_ps(q.add(4 * step)));
                t = _mm256_blend_ps::<0x20>(t, _mm256_loadu_ps(q.add(5 * step)));
                t = _mm256_blend_ps::<0x40>(t, _mm256_loadu_ps(q.add(6 * step)));
                t = _mm256_blend_ps::<0x80>(t, _mm256_loadu_ps(q.add(7 * step)));
                t
            }};
        }
        // Entry by entry, as the scalar loop adds.
        let mut acc = _mm256_setzero_ps();
        for (k, &c) in cb[..l].iter().enumerate() {
            acc = _mm256_add_ps(acc, _mm256_mul_ps(entry!(k), _mm256_loadu_ps(x.as_ptr().add(c as usize))));
        }
        _mm256_storeu_ps(out.as_mut_ptr(), acc);
    }
    true
}

/// 4 `f64` rows of any `l` entries from entry `s`: as [`stencil_f32_overlap`].
///
/// # Safety
/// AVX2 is present.
#[inline(always)]
unsafe fn stencil_f64_overlap(
    l: usize,
    s: usize,
    cols: &[u32],
    vals: &[f64],
    x: &[f64],
    out: &mut [f64; STENCIL_MAX_W],
) -> bool {
    let Some((cb, vb)) = stencil_slices(cols, vals, x.len(), s, 4, l) else { return false };
    // SAFETY: the caller's promise; `cb` holds `4 l` columns.
    if !unsafe { stencil_cols::<4>(cb, l) } {
        return false;
    }
    let step = l - 1;
    // SAFETY: AVX2 (the caller's promise); the load for row `j` of entry `k` reads
    // `vb[k + j (l - 1)..][..4]`, at most up to `4 l`, inside `vb`; `x[c_k..c_k + 4]` is
    // inside `x` by the column test.
    unsafe {
        // Entry `k` of the rows, lane `j` from row `j`.
        macro_rules! entry {
            ($k:expr) => {{
                let q = vb.as_ptr().add($k);
                let mut t = _mm256_loadu_pd(q);
                t = _mm256_blend_pd::<0x2>(t, _mm256_loadu_pd(q.add(step)));
                t = _mm256_blend_pd::<0x4>(t, _mm256_loadu_pd(q.add(2 * step)));
                t = _mm256_blend_pd::<0x8>(t, _mm256_loadu_pd(q.add(3 * step)));
                t
            }};
        }
        // Entry by entry, as the scalar loop adds.
        let mut acc = _mm256_setzero_pd();
        for (k, &c) in cb[..l].iter().enumerate() {
            acc = _mm256_add_pd(acc, _mm256_mul_pd(entry!(k), _mm256_loadu_pd(x.as_ptr().add(c as usize))));
        }
        _mm256_storeu_pd(out.as_mut_ptr(), acc);
    }
    true
}

spmv_csr_kernels!("avx2,fma", F64U32<false>, f64, u32, rows_f64_u32, dot_f64_u32, products_f64_u32);
loads_rows_kernel!("avx2,fma", F64U32<true>, f64, u32, rows_loads_f64_u32);
spmv_csr_kernels!("avx2,fma", F64U64<false>, f64, u64, rows_f64_u64, dot_f64_u64, products_f64_u64);
loads_rows_kernel!("avx2,fma", F64U64<true>, f64, u64, rows_loads_f64_u64);
spmv_csr_kernels!("avx2,fma", F32U32<false>, f32, u32, rows_f32_u32, dot_f32_u32, products_f32_u32);
loads_rows_kernel!("avx2,fma", F32U32<true>, f32, u32, rows_loads_f32_u32);
spmv_csr_kernels!("avx2,fma", F32U64<false>, f32, u64, rows_f32_u64, dot_f32_u64, products_f32_u64);
loads_rows_kernel!("avx2,fma", F32U64<true>, f32, u64, rows_loads_f32_u64);

// The symmetric-storage SpMV over the dot products above.
crate::arch::generic::spmv_sym::spmv_sym_kernels!(
    "avx2,fma",
    F64U32<false>,
    f64,
    u32,
    sym_f64_u32,
    dot_f64_u32
);
crate::arch::generic::spmv_sym::spmv_sym_kernels!(
    "avx2,fma",
    F64U64<false>,
    f64,
    u64,
    sym_f64_u64,
    dot_f64_u64
);
crate::arch::generic::spmv_sym::spmv_sym_kernels!(
    "avx2,fma",
    F32U32<false>,
    f32,
    u32,
    sym_f32_u32,
    dot_f32_u32
);
crate::arch::generic::spmv_sym::spmv_sym_kernels!(
    "avx2,fma",
    F32U64<false>,
    f32,
    u64,
    sym_f32_u64,
    dot_f32_u64
);

// The row-scalar loop, compiled for this width.
crate::arch::generic::spmv_csr::scalar_rows_kernels!("avx2,fma");
