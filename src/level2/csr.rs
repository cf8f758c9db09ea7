//! CSR SpMV without conversion (thesis chapter 8, sections 8.3–8.4): five ways to compute
//! `y = alpha * A * x + beta * y` straight from `row_ptr`/`col_idx`/`vals`.
//!
//! | [`CsrMethod`] | thesis | idea |
//! |---|---|---|
//! | [`RowScalar`](CsrMethod::RowScalar) | 8.3.1, Alg. 28 | one sequential dot product per row |
//! | [`RowVector`](CsrMethod::RowVector) | 8.3.1, Alg. 29 | each row's dot product on SIMD lanes (gather `x` by `col_idx`) |
//! | [`SegmentedSum`](CsrMethod::SegmentedSum) | 8.3.2, Alg. 30 | products of a block of entries, head flags from `row_ptr`, one segmented sum |
//! | [`SpeculativeSegmentedSum`](CsrMethod::SpeculativeSegmentedSum) | 8.4.1, Alg. 31 | fixed tiles of entries that find their rows by binary search and write speculatively |
//! | [`MergePath`](CsrMethod::MergePath) | Merrill & Garland, SC'16 | the merge of row ends with entry indices, cut into equal pieces with a carry each |
//!
//! Every method is allocation-free: the segmented methods keep one block of products
//! and its head flags in fixed stack buffers ([`SEGMENT_BLOCK`] and [`SPECULATIVE_TILE`]
//! entries), so the kernels run in firmware. Every method computes the same products; the
//! order of additions differs between methods and [`Isa`]s (floating-point rounding only).
//! [`spmv_csr`] runs one method; [`SpMv`] for [`Csr`] runs the one [`CsrMethod::choose`]
//! picks.
//!
//! Merge path is also exposed as pieces ([`merge_path_splits`], [`spmv_merge_path_piece`],
//! [`apply_carries`](super::apply_carries)) so a thread runtime can run them independently
//! (DESIGN principle 5).

use core::ops::Range;

use super::{Carry, SpMv, axpby, check_spmv, scale_y};
use crate::arch::Checked;
use crate::arch::portable::spmv_csr as kern;
use crate::formats::Csr;
use crate::primitives::segmented::{HeadFlags, segmented_sum_isa};
use crate::{DimError, Index, Isa, Scalar};

/// Entries per block of [`CsrMethod::SegmentedSum`]: the stack buffer of products (2 KiB
/// of `f64`) and its 4 words of head flags.
pub const SEGMENT_BLOCK: usize = 256;

/// Entries per tile of [`CsrMethod::SpeculativeSegmentedSum`] (the thesis's `W × T`).
pub const SPECULATIVE_TILE: usize = 256;

/// Merge-path items (rows plus entries) per piece when [`spmv_csr`] runs
/// [`CsrMethod::MergePath`] on one thread.
pub const MERGE_PATH_PIECE: usize = 2048;

/// How [`spmv_csr`] computes a CSR SpMV (thesis 8.3–8.4; see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CsrMethod {
    /// CSR-scalar (thesis 8.3.1, Alg. 28): one sequential dot product per row. The
    /// baseline every other method is measured against.
    RowScalar,
    /// CSR-vector (thesis 8.3.1, Alg. 29) on one CPU core: each row's dot product on SIMD
    /// lanes (a gather of `x` by `col_idx`, four register accumulators for long rows, a
    /// masked tail); rows shorter than 8 entries run the scalar loop of `RowScalar`,
    /// which measured faster there. On `Isa::Portable`, four scalar accumulators.
    RowVector,
    /// Segmented sum (thesis 8.3.2, Alg. 30) over blocks of [`SEGMENT_BLOCK`] entries:
    /// products into a stack buffer, head flags from `row_ptr`, one SIMD segmented sum,
    /// the open row carried from block to block; each row is written once.
    SegmentedSum,
    /// Speculative segmented sum (thesis 8.4.1, Alg. 31) on one CPU: tiles of
    /// [`SPECULATIVE_TILE`] entries find their row range by binary search in `row_ptr`,
    /// build their segment descriptor on the fly, and write their partial sums to
    /// consecutive rows; tiles holding empty rows ("dirty") are fixed right away.
    SpeculativeSegmentedSum,
    /// Merge-based SpMV (Merrill & Garland, SC'16): the merge of `row_ptr[1..]` with
    /// `0..nnz` cut into pieces of [`MERGE_PATH_PIECE`] items, run in order, each
    /// returning a [`Carry`] for its last, unfinished row.
    MergePath,
}

impl CsrMethod {
    /// Every method, in the order of the thesis.
    pub const ALL: [CsrMethod; 5] = [
        CsrMethod::RowScalar,
        CsrMethod::RowVector,
        CsrMethod::SegmentedSum,
        CsrMethod::SpeculativeSegmentedSum,
        CsrMethod::MergePath,
    ];

    /// Short lower-case name, as in benchmark ids: `"row-scalar"`, `"row-vector"`,
    /// `"segmented-sum"`, `"speculative"`, `"merge-path"`.
    pub fn name(self) -> &'static str {
        match self {
            CsrMethod::RowScalar => "row-scalar",
            CsrMethod::RowVector => "row-vector",
            CsrMethod::SegmentedSum => "segmented-sum",
            CsrMethod::SpeculativeSegmentedSum => "speculative",
            CsrMethod::MergePath => "merge-path",
        }
    }

    /// Parses a name as printed by [`CsrMethod::name`].
    pub fn from_name(name: &str) -> Option<CsrMethod> {
        CsrMethod::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The method [`SpMv`] runs for `a` on `isa`: O(1), from `nrows` and `nnz` only (no
    /// pass over the matrix).
    ///
    /// [`RowVector`](CsrMethod::RowVector) when the matrix has at least as many entries
    /// as rows, [`RowScalar`](CsrMethod::RowScalar) otherwise; the same on every `Isa`.
    ///
    /// Why (single-thread medians, `benches/spmv.rs` group `csr_methods/*`, 9 suite
    /// matrices × f32/f64, ratios to RowScalar from the same run; a shared, noisy
    /// 2-core machine, so single ratios scatter by ±30%):
    /// - RowVector runs rows shorter than 8 entries inline through the loop of
    ///   RowScalar and calls the vector dot product out of line for longer ones. It
    ///   measured 0.40–1.12× RowScalar's time on AVX-512 (0.55–0.70× typical), 0.38–1.1×
    ///   on AVX2 apart from noise outliers, and mostly below 1 on the portable path (four
    ///   accumulators); on the short-row matrices (poisson2d, uniform_random: 5 entries
    ///   per row) a repeated run with 4 s per benchmark gave 0.74–0.94×. A mean row length
    ///   cannot tell a skewed matrix (dc2_like: a few rows of thousands of entries among
    ///   short ones, 0.57–0.71×; rmat 0.37–0.66×) from a uniformly short one, and need
    ///   not: RowVector costs one length test per row where it cannot win, so only an
    ///   almost empty matrix (fewer entries than rows) keeps RowScalar.
    /// - The segmented-sum, speculative and merge-path methods exist for load balance
    ///   across cores (thesis 8.3.3, 8.4). On one core they do the same work per entry
    ///   plus a second pass over it (products buffer, flags, segmented sum: 0.7–4.8× on
    ///   SIMD widths, 2.5–5× portable) or piece bookkeeping (merge path: about RowVector
    ///   with 0–50% more), so `choose` never picks them; thread runtimes call them
    ///   explicitly (merge path through its piece API).
    pub fn choose<T: Scalar, I: Index>(a: &Csr<'_, T, I>, isa: Isa) -> CsrMethod {
        let _ = isa;
        if a.nnz() >= a.nrows() { CsrMethod::RowVector } else { CsrMethod::RowScalar }
    }
}

impl core::fmt::Display for CsrMethod {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

impl<T: Scalar, I: Index> SpMv<T> for Csr<'_, T, I> {
    fn spmv_isa(&self, isa: Isa, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
        spmv_csr(self, CsrMethod::choose(self, isa), isa, alpha, x, beta, y)
    }
}

/// `y = alpha * A * x + beta * y` for CSR `a` by `method` on `isa` (thesis 8.3–8.4).
///
/// BLAS semantics: `beta == 0` never reads `y` (NaN in `y` cannot leak); `alpha == 0`
/// reads neither `A` nor `x` and gives `y = beta * y`. Empty rows get `beta * y` (`0`
/// when `beta == 0`). Allocation-free; no panics.
///
/// # Errors
/// [`DimError::IsaUnavailable`] if this machine cannot run `isa`, [`DimError::Length`]
/// if `x.len() != ncols` or `y.len() != nrows`; `y` is untouched in both cases.
pub fn spmv_csr<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    method: CsrMethod,
    isa: Isa,
    alpha: T,
    x: &[T],
    beta: T,
    y: &mut [T],
) -> Result<(), DimError> {
    check_spmv(isa, a.nrows(), a.ncols(), x, y)?;
    let checked = Checked::new(isa)?;
    if alpha == T::ZERO {
        scale_y(beta, y);
        return Ok(());
    }
    match method {
        CsrMethod::RowScalar => spmv_rows(a, 0..a.nrows(), alpha, x, beta, y),
        CsrMethod::RowVector => kern::rows(checked, a.row_ptr(), a.col_idx(), a.vals(), x, alpha, beta, y),
        CsrMethod::SegmentedSum => segmented_sum(a, checked, alpha, x, beta, y),
        CsrMethod::SpeculativeSegmentedSum => speculative(a, checked, alpha, x, beta, y),
        CsrMethod::MergePath => merge_path(a, checked, alpha, x, beta, y),
    }
    Ok(())
}

/// `y_rows = alpha * A[rows, :] * x + beta * y_rows`, where `y_rows` holds exactly the
/// rows `rows`: the chunk a thread driver hands to one worker (DESIGN principle 5).
/// Lengths must have been checked: `x.len() == ncols`, `rows` within `0..nrows`,
/// `y_rows.len() == rows.len()`. The row loop of thesis Alg. 28.
pub(crate) fn spmv_rows<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    rows: Range<usize>,
    alpha: T,
    x: &[T],
    beta: T,
    y_rows: &mut [T],
) {
    if alpha == T::ZERO {
        scale_y(beta, y_rows);
        return;
    }
    let (col_idx, vals) = (a.col_idx(), a.vals());
    let row_ptr = &a.row_ptr()[rows.start..=rows.end];
    for (yi, w) in y_rows.iter_mut().zip(row_ptr.windows(2)) {
        let r = w[0].to_usize()..w[1].to_usize();
        let dot =
            col_idx[r.clone()].iter().zip(&vals[r]).fold(T::ZERO, |acc, (&c, &v)| acc + v * x[c.to_usize()]);
        *yi = axpby(alpha, dot, beta, *yi);
    }
}

/// The rows `rows` of `y = alpha * A * x + beta * y` (`y_rows` holding exactly those
/// rows) by the row method [`CsrMethod::choose`] picks for `a` on `isa`. Both row methods
/// compute each row on its own, so any partition of the rows reproduces the serial
/// [`SpMv`] bit for bit: the chunk kernel of the thread drivers. Lengths must have been
/// checked as for [`spmv_rows`]; an unavailable `isa` runs the row-scalar loop.
#[cfg(feature = "parallel")]
pub(crate) fn spmv_rows_chosen<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    isa: Isa,
    rows: Range<usize>,
    alpha: T,
    x: &[T],
    beta: T,
    y_rows: &mut [T],
) {
    match (CsrMethod::choose(a, isa), Checked::new(isa)) {
        (CsrMethod::RowVector, Ok(checked)) if alpha != T::ZERO => {
            let row_ptr = &a.row_ptr()[rows.start..=rows.end];
            kern::rows(checked, row_ptr, a.col_idx(), a.vals(), x, alpha, beta, y_rows)
        }
        _ => spmv_rows(a, rows, alpha, x, beta, y_rows),
    }
}

/// In-place segmented sum of `v` with `v.len()` head flags packed in `words` (position 0
/// always heads a segment): the primitive of thesis 4.4.4 on the checked `Isa`.
fn seg_sum<T: Scalar>(isa: Checked, v: &mut [T], words: &[u64]) {
    let len = v.len();
    let Ok(flags) = HeadFlags::bits(words, len) else { return };
    // Neither call can fail: the `Isa` is checked and there are exactly `len` flags.
    if let Some(v) = kern::cast_mut::<T, f64>(v) {
        let _ = segmented_sum_isa(isa.isa(), v, flags);
    } else if let Some(v) = kern::cast_mut::<T, f32>(v) {
        let _ = segmented_sum_isa(isa.isa(), v, flags);
    }
}

/// `row_ptr[i]` as `usize`.
#[inline(always)]
fn rp<I: Index>(row_ptr: &[I], i: usize) -> usize {
    row_ptr[i].to_usize()
}

/// Thesis Alg. 30, blocked so that its buffers fit on the stack: for each block of
/// [`SEGMENT_BLOCK`] entries, (2) the products, (1) head flags at the starts of the rows
/// that begin inside the block, the open row's running sum (`carry`) folded into the first
/// product, (3) one segmented sum, (4) each row that ends inside the block written once
/// from its head. Rows are written in order, so the scatter/gather of steps 1 and 4 walk
/// `row_ptr` once in total.
fn segmented_sum<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    isa: Checked,
    alpha: T,
    x: &[T],
    beta: T,
    y: &mut [T],
) {
    let (row_ptr, col_idx, vals) = (a.row_ptr(), a.col_idx(), a.vals());
    let (m, nnz) = (a.nrows(), a.nnz());
    let mut buf = [T::ZERO; SEGMENT_BLOCK];
    let mut words = [0u64; SEGMENT_BLOCK / 64];
    // `r`: the first row not yet written. Leading empty rows end at 0.
    let mut r = 0;
    while r < m && rp(row_ptr, r + 1) == 0 {
        y[r] = axpby(alpha, T::ZERO, beta, y[r]);
        r += 1;
    }
    let mut carry = T::ZERO;
    let mut b0 = 0;
    while b0 < nnz {
        // Invariant: rows before `r` are written; row `r` holds entry `b0` and `carry` is
        // the sum of its entries before `b0`.
        let b1 = (b0 + SEGMENT_BLOCK).min(nnz);
        let prod = &mut buf[..b1 - b0];
        kern::products(isa, &col_idx[b0..b1], &vals[b0..b1], x, prod);
        words.fill(0);
        let mut j = r + 1;
        while j < m && rp(row_ptr, j) < b1 {
            let h = rp(row_ptr, j) - b0;
            words[h / 64] |= 1 << (h % 64);
            j += 1;
        }
        if rp(row_ptr, r) < b0 {
            prod[0] += carry;
        }
        seg_sum(isa, prod, &words);
        while r < m && rp(row_ptr, r + 1) <= b1 {
            let (s, e) = (rp(row_ptr, r), rp(row_ptr, r + 1));
            let sum = if s == e { T::ZERO } else { prod[s.max(b0) - b0] };
            y[r] = axpby(alpha, sum, beta, y[r]);
            r += 1;
        }
        carry = if r < m && rp(row_ptr, r) < b1 { prod[rp(row_ptr, r).max(b0) - b0] } else { T::ZERO };
        b0 = b1;
    }
    // Trailing rows (all empty: every entry was consumed).
    for yi in &mut y[r..] {
        *yi = axpby(alpha, T::ZERO, beta, *yi);
    }
}

/// The rightmost row `r` with `row_ptr[r] <= b` (thesis Alg. 31 line 6: "the binary
/// search needs to return the rightmost match"), for `b <= nnz`.
#[inline]
fn rightmost_row<I: Index>(row_ptr: &[I], b: usize) -> usize {
    row_ptr.partition_point(|p| p.to_usize() <= b).saturating_sub(1)
}

/// Thesis Alg. 31 on one CPU core. Tile `t` covers entries `b0..b1`
/// ([`SPECULATIVE_TILE`] each); its row range `start..=stop` comes from binary searches of
/// `b0` and `b1` in `row_ptr` (rightmost match). The tile
///
/// 1. builds its segment descriptor from the offsets `row_ptr[j] - b0`, `start < j <=
///    stop`, flagging duplicate offsets (an empty row) as *dirty* (lines 14–21);
/// 2. computes its products, adds the transmitted sum of a row begun in an earlier tile
///    to the first one (lines 22–31) and runs the segmented sum (line 33);
/// 3. writes the k-th segment's sum to row `start + k` — the speculation that every row
///    in the range is non-empty, so no `row_ptr` is read for the writes (lines 36–52);
///    the last segment, if its row continues, is transmitted instead.
///
/// A dirty tile is fixed right after its segmented sum, not in a second pass as on the
/// GPU: on one core nothing is gained by deferring (there is no other processor to hand
/// the fix-up to), the tile's sums are still in the stack buffer while a second pass
/// would need a speculator list (an allocation, or a bound on dirty tiles) and the sums
/// again, and a speculative write into a wrong slot would destroy the `y` value that
/// `beta * y` of that slot's own row still needs. So a dirty tile skips the speculative
/// write and places each sum by walking its `row_ptr` range (empty rows get `beta * y`).
fn speculative<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    isa: Checked,
    alpha: T,
    x: &[T],
    beta: T,
    y: &mut [T],
) {
    let (row_ptr, col_idx, vals) = (a.row_ptr(), a.col_idx(), a.vals());
    let (m, nnz) = (a.nrows(), a.nnz());
    // Rows before the first tile's start are the leading empty rows.
    let first = if nnz == 0 { m } else { rightmost_row(row_ptr, 0) };
    for yi in &mut y[..first] {
        *yi = axpby(alpha, T::ZERO, beta, *yi);
    }
    let mut buf = [T::ZERO; SPECULATIVE_TILE];
    let mut words = [0u64; SPECULATIVE_TILE / 64];
    let mut start = first;
    let mut transmitter = T::ZERO;
    let mut b0 = 0;
    while b0 < nnz {
        let b1 = (b0 + SPECULATIVE_TILE).min(nnz);
        let stop = if b1 == nnz { m } else { rightmost_row(row_ptr, b1) };
        // 1. Segment descriptor and dirty check.
        words.fill(0);
        let mut dirty = false;
        let mut prev = rp(row_ptr, start);
        for j in start + 1..=stop {
            let p = rp(row_ptr, j);
            dirty |= p == prev;
            prev = p;
            if p < b1 {
                let h = p - b0;
                words[h / 64] |= 1 << (h % 64);
            }
        }
        // 2. Products, transmitted sum, segmented sum.
        let prod = &mut buf[..b1 - b0];
        kern::products(isa, &col_idx[b0..b1], &vals[b0..b1], x, prod);
        if rp(row_ptr, start) < b0 {
            prod[0] += transmitter;
        }
        seg_sum(isa, prod, &words);
        // The last row continues past the tile when it starts before `b1` but ends after.
        let open = stop < m && rp(row_ptr, stop) < b1;
        if dirty {
            // The fix-up: place each sum by its row's start.
            for (r, yr) in (start..stop).zip(&mut y[start..stop]) {
                let (s, e) = (rp(row_ptr, r), rp(row_ptr, r + 1));
                let sum = if s == e { T::ZERO } else { prod[s.max(b0) - b0] };
                *yr = axpby(alpha, sum, beta, *yr);
            }
        } else {
            // 3. The speculative write: the k-th head belongs to row `start + k`.
            let ys = &mut y[start..stop];
            let mut k = 0;
            let mut put = |pos: usize| {
                if let Some(yr) = ys.get_mut(k) {
                    *yr = axpby(alpha, prod[pos], beta, *yr);
                }
                k += 1;
            };
            put(0);
            for (wi, &w) in words.iter().enumerate() {
                let mut w = w & !u64::from(wi == 0);
                while w != 0 {
                    put(wi * 64 + w.trailing_zeros() as usize);
                    w &= w - 1;
                }
            }
        }
        transmitter = if open { prod[rp(row_ptr, stop).max(b0) - b0] } else { T::ZERO };
        start = stop;
        b0 = b1;
    }
}

/// The merge-path split on diagonal `d` (Merrill & Garland, Alg. "MergePathSearch"): the
/// point `(i, j)` with `i + j = d` where the merge of the row ends `row_ptr[1..]` with the
/// entry indices `0..nnz` crosses the diagonal — rows `0..i` are finished and entries
/// `0..j` consumed. Ties finish the row first, so empty rows are passed before the next
/// entry. (A local search: the second list is the implicit `0..nnz`, which
/// `primitives::merge`'s slice-based search cannot take without materialising it.)
fn merge_path_search<I: Index>(row_ptr: &[I], m: usize, nnz: usize, d: usize) -> (usize, usize) {
    let (mut lo, mut hi) = (d.saturating_sub(nnz), d.min(m));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        // In bounds: mid < hi <= m, and mid >= lo >= d - nnz, so d - mid - 1 < nnz.
        if rp(row_ptr, mid + 1) < d - mid {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    (lo, d - lo)
}

/// Writes the `pieces + 1` merge-path split points of `a` into `splits[..=pieces]`:
/// `splits[p]` is the point `(row, entry)` where piece `p` starts and piece `p - 1` ends,
/// on the diagonal `(nrows + nnz) * p / pieces` (Merrill & Garland, SC'16). So
/// `splits[0] == (0, 0)`, `splits[pieces] == (nrows, nnz)`, and every piece holds the
/// same number of path items (rows plus entries, ±1).
///
/// # Errors
/// [`DimError::Parameter`] if `pieces == 0`; [`DimError::BufferTooSmall`] if
/// `splits.len() < pieces + 1`. `splits` is untouched on error.
pub fn merge_path_splits<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    pieces: usize,
    splits: &mut [(usize, usize)],
) -> Result<(), DimError> {
    if pieces == 0 {
        return Err(DimError::Parameter { name: "pieces", value: 0 });
    }
    let needed = pieces.saturating_add(1);
    if splits.len() < needed {
        return Err(DimError::BufferTooSmall { buffer: "splits", needed, got: splits.len() });
    }
    let (m, nnz) = (a.nrows(), a.nnz());
    let total = (m + nnz) as u128;
    for (p, s) in splits[..needed].iter_mut().enumerate() {
        let d = (total * p as u128 / pieces as u128) as usize;
        *s = merge_path_search(a.row_ptr(), m, nnz, d);
    }
    Ok(())
}

/// Whether `(i, j)` lies on the merge path of `a`: rows `0..i` finished
/// (`row_ptr[i] <= j`) and row `i` not overrun (`j <= row_ptr[i + 1]`).
fn on_path<I: Index>(row_ptr: &[I], m: usize, nnz: usize, (i, j): (usize, usize)) -> bool {
    i <= m && j <= nnz && rp(row_ptr, i) <= j && (i == m || j <= rp(row_ptr, i + 1))
}

/// Runs one merge-path piece of `y = alpha * A * x + beta * y`: from split point `start`
/// to split point `end` (as written by [`merge_path_splits`], or any two points on the
/// merge path with `start <= end`).
///
/// `y_rows` is `y[start.0..end.0]`: exactly the rows that *finish* inside the piece. Each
/// gets `alpha * (its entries from start.1 on) + beta * y`. The entries of row `end.0` that
/// lie inside the piece are returned as a [`Carry`] instead.
///
/// Contract for a thread runtime: the pieces of one split list write disjoint `y` ranges
/// and read only `A` and `x`, so they may run in any order or concurrently; once all have
/// run, [`apply_carries`](super::apply_carries) adds the carries (a row's first pieces
/// may finish after the piece that writes it, so carries are applied last). `beta == 0`
/// never reads `y`; `alpha == 0` reads neither `A` nor `x` and returns a zero carry.
///
/// # Errors
/// [`DimError::IsaUnavailable`], [`DimError::Length`] (`x.len() != ncols`, or `y_rows`
/// not `end.0 - start.0` long), [`DimError::Parameter`] (`"start"`/`"end"`, giving the
/// row) if a point is off the merge path or `end` precedes `start`. `y_rows` is untouched
/// on error.
#[allow(clippy::too_many_arguments)]
pub fn spmv_merge_path_piece<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    isa: Isa,
    start: (usize, usize),
    end: (usize, usize),
    alpha: T,
    x: &[T],
    beta: T,
    y_rows: &mut [T],
) -> Result<Carry<T>, DimError> {
    let (m, nnz, row_ptr) = (a.nrows(), a.nnz(), a.row_ptr());
    let checked = Checked::new(isa)?;
    if x.len() != a.ncols() {
        return Err(DimError::Length { operand: "x", expected: a.ncols(), got: x.len() });
    }
    if !on_path(row_ptr, m, nnz, start) {
        return Err(DimError::Parameter { name: "start", value: start.0 });
    }
    if !on_path(row_ptr, m, nnz, end) || end.0 < start.0 || end.1 < start.1 {
        return Err(DimError::Parameter { name: "end", value: end.0 });
    }
    if y_rows.len() != end.0 - start.0 {
        return Err(DimError::Length { operand: "y", expected: end.0 - start.0, got: y_rows.len() });
    }
    Ok(merge_path_piece(a, checked, start, end, alpha, x, beta, y_rows))
}

/// [`spmv_merge_path_piece`] after its checks.
#[allow(clippy::too_many_arguments)]
fn merge_path_piece<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    isa: Checked,
    (i0, j0): (usize, usize),
    (i1, j1): (usize, usize),
    alpha: T,
    x: &[T],
    beta: T,
    y_rows: &mut [T],
) -> Carry<T> {
    if alpha == T::ZERO {
        scale_y(beta, y_rows);
        return Carry { row: i1, value: T::ZERO };
    }
    let (row_ptr, col_idx, vals) = (a.row_ptr(), a.col_idx(), a.vals());
    let dot = |r: Range<usize>| kern::dot(isa, &col_idx[r.clone()], &vals[r], x);
    if i0 == i1 {
        // The piece lies inside one row.
        return Carry { row: i1, value: alpha * dot(j0..j1) };
    }
    // The first row, from `j0` on; then whole rows; then the last row's head as the carry.
    let first = dot(j0..rp(row_ptr, i0 + 1));
    y_rows[0] = axpby(alpha, first, beta, y_rows[0]);
    kern::rows(isa, &row_ptr[i0 + 1..=i1], col_idx, vals, x, alpha, beta, &mut y_rows[1..]);
    let tail = if i1 < a.nrows() { dot(rp(row_ptr, i1)..j1) } else { T::ZERO };
    Carry { row: i1, value: alpha * tail }
}

/// [`CsrMethod::MergePath`] on one thread: pieces of [`MERGE_PATH_PIECE`] path items run
/// in order. A row's carry waits until the piece that finishes the row has written it,
/// then is added, so one pending carry suffices (no list, no allocation).
fn merge_path<T: Scalar, I: Index>(a: &Csr<'_, T, I>, isa: Checked, alpha: T, x: &[T], beta: T, y: &mut [T]) {
    let (m, nnz) = (a.nrows(), a.nnz());
    let total = m + nnz;
    let mut prev = (0, 0);
    let mut pending = Carry { row: 0, value: T::ZERO };
    let mut d = 0;
    while d < total {
        d = (d + MERGE_PATH_PIECE).min(total);
        let cur = merge_path_search(a.row_ptr(), m, nnz, d);
        let c = merge_path_piece(a, isa, prev, cur, alpha, x, beta, &mut y[prev.0..cur.0]);
        if c.row == pending.row {
            pending.value += c.value;
        } else {
            // The pending row finished inside this piece.
            y[pending.row] += pending.value;
            pending = c;
        }
        prev = cur;
    }
}
