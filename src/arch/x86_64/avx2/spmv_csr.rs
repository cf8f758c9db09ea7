//! `avx2` CSR SpMV kernels: AVX2 gathers and FMA, instantiated into the shared drivers
//! ([`simd_dot`](crate::arch::portable::spmv_csr::simd_dot) and friends).
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
//! gather (`fma_run`). Measured on the AMD EPYC dev VM (row-vector, old and new builds
//! alternating, best of 8): `f32` `dense` 1.10 → 0.53 ms, `banded` 1.41 → 0.84,
//! `block_diagonal` 1.34 → 0.73 (AVX2 alike); `f64` 1.08–1.31x; rows that are not
//! one run (`poisson3d_27`, `lp_like`) pay one compare per row, within 0–3%.
//!
//! Short rows of a structured-grid operator go 8 (`f32`) or 4 (`f64`) rows at a time
//! ([`Stencil`](crate::arch::portable::spmv_csr::Stencil)): rows of one length whose
//! entry `k` sits at column `c_k + j` in row `j` read entry `k` of all of them with one
//! load of `x[c_k..]`, the values transposed in registers (`vpermps` and blends).
//! Measured on the AMD EPYC dev VM (row-vector, old and new builds alternating, best of
//! 3): `poisson2d` `f32` 2.27 → 1.58 ms, `f64` level (already at the measured stream
//! bandwidth); matrices without such blocks (`uniform_random`, `dc2_like`, `rmat`)
//! level.

use core::arch::x86_64::*;

use crate::arch::portable::spmv_csr::{
    DotVec, RowLengths, STENCIL_MAX_W, StencilBlock, StencilTab, run_fits, spmv_csr_kernels, stencil_rows,
    stencil_slices,
};

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
unsafe fn xs_f64_u32(cols: *const u32, x: *const f64, xmax: usize) -> __m256d {
    // SAFETY: the caller's contract; the load covers `x[c0..=c0 + 3]` with `c0 + 3 <= xmax`,
    // the gather's offsets are clamped to `xmax`.
    unsafe {
        let c = _mm_loadu_si128(cols.cast());
        let c0 = *cols;
        let run = _mm_add_epi32(_mm_set1_epi32(c0 as i32), _mm_setr_epi32(0, 1, 2, 3));
        if _mm_movemask_epi8(_mm_cmpeq_epi32(c, run)) == 0xffff && run_fits(c0.into(), 4, xmax) {
            _mm256_loadu_pd(x.add(c0 as usize))
        } else {
            gather_f64_u32(cols, x, xmax)
        }
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
unsafe fn xs_f64_u64(cols: *const u64, x: *const f64, xmax: usize) -> __m256d {
    // SAFETY: as `xs_f64_u32`.
    unsafe {
        let c = _mm256_loadu_si256(cols.cast());
        let c0 = *cols;
        let run = _mm256_add_epi64(_mm256_set1_epi64x(c0 as i64), _mm256_setr_epi64x(0, 1, 2, 3));
        if _mm256_movemask_epi8(_mm256_cmpeq_epi64(c, run)) == -1 && run_fits(c0, 4, xmax) {
            _mm256_loadu_pd(x.add(c0 as usize))
        } else {
            gather_f64_u64(cols, x, xmax)
        }
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
unsafe fn xs_f32_u32(cols: *const u32, x: *const f32, xmax: usize) -> __m256 {
    // SAFETY: as `xs_f64_u32`, `c0 + 7 <= xmax`.
    unsafe {
        let c = _mm256_loadu_si256(cols.cast());
        let c0 = *cols;
        let run = _mm256_add_epi32(_mm256_set1_epi32(c0 as i32), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        if _mm256_movemask_epi8(_mm256_cmpeq_epi32(c, run)) == -1 && run_fits(c0.into(), 8, xmax) {
            _mm256_loadu_ps(x.add(c0 as usize))
        } else {
            gather_f32_u32(cols, x, xmax)
        }
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
unsafe fn xs_f32_u64(cols: *const u64, x: *const f32, xmax: usize) -> __m128 {
    // SAFETY: as `xs_f64_u64`.
    unsafe {
        let c = _mm256_loadu_si256(cols.cast());
        let c0 = *cols;
        let run = _mm256_add_epi64(_mm256_set1_epi64x(c0 as i64), _mm256_setr_epi64x(0, 1, 2, 3));
        if _mm256_movemask_epi8(_mm256_cmpeq_epi64(c, run)) == -1 && run_fits(c0, 4, xmax) {
            _mm_loadu_ps(x.add(c0 as usize))
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

/// All-ones in 64-bit lanes `j < n` (of 4).
///
/// # Safety
/// AVX2 is enabled.
#[inline(always)]
unsafe fn mask64(n: usize) -> __m256i {
    // SAFETY: register operations only; the caller promises AVX2.
    unsafe { _mm256_cmpgt_epi64(_mm256_set1_epi64x(n as i64), _mm256_setr_epi64x(0, 1, 2, 3)) }
}

/// All-ones in 32-bit lanes `j < n` (of 4).
///
/// # Safety
/// SSE2 is enabled.
#[inline(always)]
unsafe fn mask32x4(n: usize) -> __m128i {
    // SAFETY: register operations only.
    unsafe { _mm_cmpgt_epi32(_mm_set1_epi32(n as i32), _mm_setr_epi32(0, 1, 2, 3)) }
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
pub(crate) struct F64U32(__m256d);
/// 4 × f64 lanes, 64-bit indices.
#[derive(Clone, Copy)]
pub(crate) struct F64U64(__m256d);
/// 8 × f32 lanes, 32-bit indices.
#[derive(Clone, Copy)]
pub(crate) struct F32U32(__m256);
/// 4 × f32 lanes, 64-bit indices.
#[derive(Clone, Copy)]
pub(crate) struct F32U64(__m128);

/// The shared f64 register methods (`zero`, `add`, `sum`, `store`).
macro_rules! f64x4_common {
    ($name:ident) => {
        #[inline(always)]
        unsafe fn zero() -> Self {
            // SAFETY: the caller promises AVX.
            $name(unsafe { _mm256_setzero_pd() })
        }
        #[inline(always)]
        unsafe fn add(a: Self, b: Self) -> Self {
            // SAFETY: the caller promises AVX.
            $name(unsafe { _mm256_add_pd(a.0, b.0) })
        }
        #[inline(always)]
        unsafe fn sum(self) -> f64 {
            // SAFETY: register operations only; the caller promises AVX.
            unsafe {
                let s = _mm_add_pd(_mm256_castpd256_pd128(self.0), _mm256_extractf128_pd::<1>(self.0));
                _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)))
            }
        }
        #[inline(always)]
        unsafe fn store(self, out: *mut f64) {
            // SAFETY: the caller promises 4 writable elements.
            unsafe { _mm256_storeu_pd(out, self.0) }
        }
    };
}

impl DotVec for F64U32 {
    type T = f64;
    type I = u32;
    const W: usize = 4;
    const MAX_X: usize = i32::MAX as usize;
    const SHORT: usize = 8;
    const STENCIL_W: usize = 4;

    #[inline(always)]
    unsafe fn stencil(
        rp: &[u32],
        cols: &[u32],
        vals: &[f64],
        x: &[f64],
        out: &mut [f64; STENCIL_MAX_W],
    ) -> bool {
        // SAFETY: the caller promises AVX2; the block bounds its reads.
        unsafe { stencil_rows::<f64, Block, 4>(rp, cols, vals, x, out) }
    }

    f64x4_common!(F64U32);

    #[inline(always)]
    unsafe fn mul(vals: *const f64, cols: *const u32, x: *const f64, xmax: usize) -> Self {
        // SAFETY: the caller promises the features, 4 readable `vals`/`cols` and
        // `xmax < x.len()`, `xmax <= i32::MAX`: clamped offsets address `x[..=xmax]`.
        unsafe { F64U32(_mm256_mul_pd(_mm256_loadu_pd(vals), gather_f64_u32(cols, x, xmax))) }
    }
    #[inline(always)]
    unsafe fn fma(acc: Self, vals: *const f64, cols: *const u32, x: *const f64, xmax: usize) -> Self {
        // SAFETY: as `mul`.
        unsafe { F64U32(_mm256_fmadd_pd(_mm256_loadu_pd(vals), gather_f64_u32(cols, x, xmax), acc.0)) }
    }
    #[inline(always)]
    unsafe fn fma_run(acc: Self, vals: *const f64, cols: *const u32, x: *const f64, xmax: usize) -> Self {
        // SAFETY: as `mul`; `xs_*` bounds its load of a run.
        unsafe { F64U32(_mm256_fmadd_pd(_mm256_loadu_pd(vals), xs_f64_u32(cols, x, xmax), acc.0)) }
    }
    #[inline(always)]
    unsafe fn fma_tail(
        acc: Self,
        vals: *const f64,
        cols: *const u32,
        x: *const f64,
        xmax: usize,
        n: usize,
    ) -> Self {
        // SAFETY: the masked loads and the masked gather touch only the low `n` lanes,
        // which the caller promises readable; offsets are clamped as in `mul`.
        unsafe {
            let m64 = mask64(n);
            let raw = _mm_maskload_epi32(cols.cast(), mask32x4(n));
            let idx = _mm_min_epu32(raw, _mm_set1_epi32(xmax as i32));
            let g = _mm256_mask_i32gather_pd::<8>(_mm256_setzero_pd(), x, idx, _mm256_castsi256_pd(m64));
            F64U32(_mm256_fmadd_pd(_mm256_maskload_pd(vals, m64), g, acc.0))
        }
    }
}

impl DotVec for F64U64 {
    type T = f64;
    type I = u64;
    const W: usize = 4;
    const MAX_X: usize = usize::MAX;
    const SHORT: usize = 8;

    f64x4_common!(F64U64);

    #[inline(always)]
    unsafe fn mul(vals: *const f64, cols: *const u64, x: *const f64, xmax: usize) -> Self {
        // SAFETY: the caller promises the features, 4 readable `vals`/`cols` and
        // `xmax < x.len()`: clamped offsets address `x[..=xmax]`.
        unsafe { F64U64(_mm256_mul_pd(_mm256_loadu_pd(vals), gather_f64_u64(cols, x, xmax))) }
    }
    #[inline(always)]
    unsafe fn fma(acc: Self, vals: *const f64, cols: *const u64, x: *const f64, xmax: usize) -> Self {
        // SAFETY: as `mul`.
        unsafe { F64U64(_mm256_fmadd_pd(_mm256_loadu_pd(vals), gather_f64_u64(cols, x, xmax), acc.0)) }
    }
    #[inline(always)]
    unsafe fn fma_run(acc: Self, vals: *const f64, cols: *const u64, x: *const f64, xmax: usize) -> Self {
        // SAFETY: as `mul`; `xs_*` bounds its load of a run.
        unsafe { F64U64(_mm256_fmadd_pd(_mm256_loadu_pd(vals), xs_f64_u64(cols, x, xmax), acc.0)) }
    }
    #[inline(always)]
    unsafe fn fma_tail(
        acc: Self,
        vals: *const f64,
        cols: *const u64,
        x: *const f64,
        xmax: usize,
        n: usize,
    ) -> Self {
        // SAFETY: masked loads and gather touch only the low `n` lanes; offsets clamped.
        unsafe {
            let m64 = mask64(n);
            let idx = clamp64(_mm256_maskload_epi64(cols.cast(), m64), xmax);
            let g = _mm256_mask_i64gather_pd::<8>(_mm256_setzero_pd(), x, idx, _mm256_castsi256_pd(m64));
            F64U64(_mm256_fmadd_pd(_mm256_maskload_pd(vals, m64), g, acc.0))
        }
    }
}

impl DotVec for F32U32 {
    type T = f32;
    type I = u32;
    const W: usize = 8;
    const MAX_X: usize = i32::MAX as usize;
    const SHORT: usize = 8;
    const STENCIL_W: usize = 8;

    #[inline(always)]
    unsafe fn stencil(
        rp: &[u32],
        cols: &[u32],
        vals: &[f32],
        x: &[f32],
        out: &mut [f32; STENCIL_MAX_W],
    ) -> bool {
        // SAFETY: the caller promises AVX2; the block bounds its reads.
        unsafe { stencil_rows::<f32, Block, 8>(rp, cols, vals, x, out) }
    }

    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: the caller promises AVX.
        F32U32(unsafe { _mm256_setzero_ps() })
    }
    #[inline(always)]
    unsafe fn mul(vals: *const f32, cols: *const u32, x: *const f32, xmax: usize) -> Self {
        // SAFETY: the caller promises the features, 8 readable `vals`/`cols` and
        // `xmax < x.len()`, `xmax <= i32::MAX`: clamped offsets address `x[..=xmax]`.
        unsafe { F32U32(_mm256_mul_ps(_mm256_loadu_ps(vals), gather_f32_u32(cols, x, xmax))) }
    }
    #[inline(always)]
    unsafe fn fma(acc: Self, vals: *const f32, cols: *const u32, x: *const f32, xmax: usize) -> Self {
        // SAFETY: as `mul`.
        unsafe { F32U32(_mm256_fmadd_ps(_mm256_loadu_ps(vals), gather_f32_u32(cols, x, xmax), acc.0)) }
    }
    #[inline(always)]
    unsafe fn fma_run(acc: Self, vals: *const f32, cols: *const u32, x: *const f32, xmax: usize) -> Self {
        // SAFETY: as `mul`; `xs_*` bounds its load of a run.
        unsafe { F32U32(_mm256_fmadd_ps(_mm256_loadu_ps(vals), xs_f32_u32(cols, x, xmax), acc.0)) }
    }
    #[inline(always)]
    unsafe fn fma_tail(
        acc: Self,
        vals: *const f32,
        cols: *const u32,
        x: *const f32,
        xmax: usize,
        n: usize,
    ) -> Self {
        // SAFETY: masked loads and gather touch only the low `n` lanes; offsets clamped.
        unsafe {
            let m =
                _mm256_cmpgt_epi32(_mm256_set1_epi32(n as i32), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
            let idx = _mm256_min_epu32(_mm256_maskload_epi32(cols.cast(), m), _mm256_set1_epi32(xmax as i32));
            let g = _mm256_mask_i32gather_ps::<4>(_mm256_setzero_ps(), x, idx, _mm256_castsi256_ps(m));
            F32U32(_mm256_fmadd_ps(_mm256_maskload_ps(vals, m), g, acc.0))
        }
    }
    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        // SAFETY: the caller promises AVX.
        F32U32(unsafe { _mm256_add_ps(a.0, b.0) })
    }
    #[inline(always)]
    unsafe fn sum(self) -> f32 {
        // SAFETY: register operations only; the caller promises AVX.
        unsafe { hsum_ps128(_mm_add_ps(_mm256_castps256_ps128(self.0), _mm256_extractf128_ps::<1>(self.0))) }
    }
    #[inline(always)]
    unsafe fn store(self, out: *mut f32) {
        // SAFETY: the caller promises 8 writable elements.
        unsafe { _mm256_storeu_ps(out, self.0) }
    }
}

impl DotVec for F32U64 {
    type T = f32;
    type I = u64;
    const W: usize = 4;
    const MAX_X: usize = usize::MAX;
    const SHORT: usize = 8;

    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: the caller promises SSE.
        F32U64(unsafe { _mm_setzero_ps() })
    }
    #[inline(always)]
    unsafe fn mul(vals: *const f32, cols: *const u64, x: *const f32, xmax: usize) -> Self {
        // SAFETY: the caller promises the features, 4 readable `vals`/`cols` and
        // `xmax < x.len()`: clamped offsets address `x[..=xmax]`.
        unsafe { F32U64(_mm_mul_ps(_mm_loadu_ps(vals), gather_f32_u64(cols, x, xmax))) }
    }
    #[inline(always)]
    unsafe fn fma(acc: Self, vals: *const f32, cols: *const u64, x: *const f32, xmax: usize) -> Self {
        // SAFETY: as `mul`.
        unsafe { F32U64(_mm_fmadd_ps(_mm_loadu_ps(vals), gather_f32_u64(cols, x, xmax), acc.0)) }
    }
    #[inline(always)]
    unsafe fn fma_run(acc: Self, vals: *const f32, cols: *const u64, x: *const f32, xmax: usize) -> Self {
        // SAFETY: as `mul`; `xs_*` bounds its load of a run.
        unsafe { F32U64(_mm_fmadd_ps(_mm_loadu_ps(vals), xs_f32_u64(cols, x, xmax), acc.0)) }
    }
    #[inline(always)]
    unsafe fn fma_tail(
        acc: Self,
        vals: *const f32,
        cols: *const u64,
        x: *const f32,
        xmax: usize,
        n: usize,
    ) -> Self {
        // SAFETY: masked loads and gather touch only the low `n` lanes; offsets clamped.
        unsafe {
            let m32 = mask32x4(n);
            let idx = clamp64(_mm256_maskload_epi64(cols.cast(), mask64(n)), xmax);
            let g = _mm256_mask_i64gather_ps::<4>(_mm_setzero_ps(), x, idx, _mm_castsi128_ps(m32));
            F32U64(_mm_fmadd_ps(_mm_maskload_ps(vals, m32), g, acc.0))
        }
    }
    #[inline(always)]
    unsafe fn add(a: Self, b: Self) -> Self {
        // SAFETY: the caller promises SSE.
        F32U64(unsafe { _mm_add_ps(a.0, b.0) })
    }
    #[inline(always)]
    unsafe fn sum(self) -> f32 {
        // SAFETY: register operations only.
        unsafe { hsum_ps128(self.0) }
    }
    #[inline(always)]
    unsafe fn store(self, out: *mut f32) {
        // SAFETY: the caller promises 4 writable elements.
        unsafe { _mm_storeu_ps(out, self.0) }
    }
}

/// Lane mask (all ones where set) of the bits `m` of lanes `0..8`.
///
/// # Safety
/// AVX2 is present.
#[inline(always)]
unsafe fn lanes_of(m: u16) -> __m256i {
    // SAFETY: the caller's promise.
    unsafe {
        let bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
        _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(i32::from(m)), bit), bit)
    }
}

/// Whether the `W` rows (8 or 4) of `L` entries with columns `cb` are a stencil block,
/// entry `k` of row `j` at column `c_k + j`: one compare per register of `W` columns
/// (`stencil_slices` has checked `c_k + W <= x.len()`).
///
/// # Safety
/// AVX2 is present; `cb` holds `W L >= W` columns.
#[inline(always)]
unsafe fn stencil_cols<const L: usize, const W: usize>(cb: &[u32]) -> bool {
    let tab = &StencilTab::<L, W>::TAB;
    // SAFETY: the caller's promises; each load reads `W` columns of `cb` or `W` (of 16)
    // table entries.
    unsafe {
        let mut bad = 0i32;
        if W == 8 {
            let c0 = _mm256_loadu_si256(cb.as_ptr().cast());
            for v in 0..L {
                let cv = _mm256_loadu_si256(cb.as_ptr().add(8 * v).cast());
                let first = _mm256_permutevar8x32_epi32(c0, _mm256_loadu_si256(tab.entry[v].as_ptr().cast()));
                let want = _mm256_add_epi32(first, _mm256_loadu_si256(tab.row[v].as_ptr().cast()));
                bad |= !_mm256_movemask_epi8(_mm256_cmpeq_epi32(cv, want));
            }
        } else {
            let c0 = _mm_castsi128_ps(_mm_loadu_si128(cb.as_ptr().cast()));
            for v in 0..L {
                let cv = _mm_loadu_si128(cb.as_ptr().add(4 * v).cast());
                let first =
                    _mm_castps_si128(_mm_permutevar_ps(c0, _mm_loadu_si128(tab.entry[v].as_ptr().cast())));
                let want = _mm_add_epi32(first, _mm_loadu_si128(tab.row[v].as_ptr().cast()));
                bad |= !_mm_movemask_epi8(_mm_cmpeq_epi32(cv, want)) & 0xffff;
            }
        }
        bad == 0
    }
}

/// This width's stencil blocks ([`StencilBlock`]), by value type.
struct Block;

/// The default length test: one entry at a time.
impl RowLengths for Block {}

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

/// 8 rows of `L` entries from entry `s`, `f32`: the column test, then entry by entry
/// `vals` (transposed by permutes and blends) times one load of `x`.
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
    let Some((cb, vb)) = stencil_slices(cols, vals, x.len(), s, 8, L) else { return false };
    // SAFETY: the caller's promise; `cb` holds `8 L` columns.
    if !unsafe { stencil_cols::<L, 8>(cb) } {
        return false;
    }
    let tab = &StencilTab::<L, 8>::TAB;
    // SAFETY: AVX2 (the caller's promise); the loads read 8 values inside `vb` (`8 L` of
    // them) and `x[c_k..c_k + 8]`, inside `x` by the column test.
    unsafe {
        let mut acc = _mm256_setzero_ps();
        for (k, &c) in cb[..L].iter().enumerate() {
            let idx = _mm256_loadu_si256(tab.lane[k].as_ptr().cast());
            let mut t = _mm256_setzero_ps();
            for v in 0..L {
                let m = tab.from[k][v];
                if m != 0 {
                    let p = _mm256_permutevar8x32_ps(_mm256_loadu_ps(vb.as_ptr().add(8 * v)), idx);
                    t = _mm256_blendv_ps(t, p, _mm256_castsi256_ps(lanes_of(m)));
                }
            }
            let xs = _mm256_loadu_ps(x.as_ptr().add(c as usize));
            acc = _mm256_add_ps(acc, _mm256_mul_ps(t, xs));
        }
        _mm256_storeu_ps(out.as_mut_ptr(), acc);
    }
    true
}

/// 4 rows of `L` entries from entry `s`, `f64`: as [`stencil_f32_block`], each `f64`
/// lane moved as two `f32` lanes.
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
    let Some((cb, vb)) = stencil_slices(cols, vals, x.len(), s, 4, L) else { return false };
    // SAFETY: the caller's promise; `cb` holds `4 L` columns.
    if !unsafe { stencil_cols::<L, 4>(cb) } {
        return false;
    }
    let tab = &StencilTab::<L, 4>::TAB;
    // SAFETY: AVX2 (the caller's promise); the loads read 4 values inside `vb` (`4 L` of
    // them) and `x[c_k..c_k + 4]`, inside `x` by the column test.
    unsafe {
        let mut acc = _mm256_setzero_pd();
        for (k, &c) in cb[..L].iter().enumerate() {
            // Lane `j` of 4 from lane `lane[k][j]`: the `f32` lanes `2 lane, 2 lane + 1`.
            let l4 = _mm_loadu_si128(tab.lane[k].as_ptr().cast());
            let l2 = _mm256_slli_epi32::<1>(_mm256_cvtepu32_epi64(l4));
            let idx =
                _mm256_or_si256(l2, _mm256_slli_epi64::<32>(_mm256_add_epi32(l2, _mm256_set1_epi32(1))));
            let mut t = _mm256_setzero_pd();
            for v in 0..L {
                let m = tab.from[k][v];
                if m != 0 {
                    let src = _mm256_castpd_ps(_mm256_loadu_pd(vb.as_ptr().add(4 * v)));
                    let p = _mm256_castps_pd(_mm256_permutevar8x32_ps(src, idx));
                    // Bit `j` of `m` covers `f32` lanes `2 j` and `2 j + 1`.
                    let m2 = (0..4).fold(0u16, |a, j| a | (((m >> j) & 1) * 3) << (2 * j));
                    t = _mm256_blendv_pd(t, p, _mm256_castsi256_pd(lanes_of(m2)));
                }
            }
            let xs = _mm256_loadu_pd(x.as_ptr().add(c as usize));
            acc = _mm256_add_pd(acc, _mm256_mul_pd(t, xs));
        }
        _mm256_storeu_pd(out.as_mut_ptr(), acc);
    }
    true
}

spmv_csr_kernels!("avx2,fma", F64U32, f64, u32, rows_f64_u32, dot_f64_u32, products_f64_u32);
spmv_csr_kernels!("avx2,fma", F64U64, f64, u64, rows_f64_u64, dot_f64_u64, products_f64_u64);
spmv_csr_kernels!("avx2,fma", F32U32, f32, u32, rows_f32_u32, dot_f32_u32, products_f32_u32);
spmv_csr_kernels!("avx2,fma", F32U64, f32, u64, rows_f32_u64, dot_f32_u64, products_f32_u64);
