//! The CSR5 SpMM tile walk shared by every width: `Y = alpha * A * X + beta * Y` for a
//! CSR5 `A` (thesis chapter 6) and dense `X`, `Y` of `k` columns, each tile read once for
//! all `k`.
//!
//! The SpMV runs a tile lane-parallel (`spmv_csr5`, Alg. 32). With `k` vectors the SIMD
//! width goes over the columns instead, as in the CSR SpMM (`spmm`, whose [`MmVec`]
//! registers this walk reuses): a tile's entries are walked in CSR order (lane by lane,
//! step by step; the runs between row starts come from each lane's `bit_flag` by
//! `trailing_zeros`), each entry adding `a_ij * X[j, c0..]` into a block of sums in
//! registers, and each head flushes the block into its segment's row of `Y` (segment `s`
//! is row `tile_ptr + s`, or `tile_ptr + empty_offset[s]` in a tile with empty rows). The
//! column blocks (four registers, then fewer, a half register, then scalar sums, as the
//! CSR SpMM's; scalar blocks of four for layouts other than row-major `X` and `Y`) run
//! one after another inside the tile, so after the first block its
//! entries come from L1: `A` is read from memory once for all `k`.
//!
//! A row that spans tiles is flushed once per tile: its first piece as `alpha * s + beta
//! * y`, later pieces as `alpha * s + y`. A row that runs on past the tile range goes to
//! the caller's carry (`k` values, `alpha` times its partial sums), added once every range
//! has run: the thesis's calibrator, generalised to `k`. In a tile with empty rows the
//! rows between its segments (from `empty_offset`) become `beta * y`.
//!
//! Sound for any slices: tiles, rows and segments are taken with `get`, every column is
//! clamped so that its row of `X` lies inside `x` ([`Xrows`]) or read with `get` (the
//! plain blocks), and writes outside `y` or the carry are skipped; a validated `Csr5` and
//! `DenseRef` never trigger either.

use core::marker::PhantomData;
use core::ops::Range;

use crate::arch::generic::spmm::{MmVec, Xrows};
use crate::arch::generic::spmv_csr::{cast, cast_mut, cast_val};
use crate::arch::portable::spmm as portable;
use crate::arch::{Checked, prefetch_span};
use crate::formats::csr5::tile::DescFormat;
use crate::{Index, Scalar};

/// What the walk reads: a validated CSR5 view's arrays, `X` (strides `xs`: row, column),
/// `k`, `alpha`, `beta`, and where `Y`'s rows are: `y` holds rows `row0..row_end` (the
/// rows a tile range owns), row `row0 + r`, column `c` at `r * ys.0 + c * ys.1`.
#[derive(Clone, Copy)]
pub(crate) struct Mm5<'a, T, I> {
    pub omega: usize,
    pub sigma: usize,
    pub format: DescFormat,
    pub row_ptr: &'a [I],
    pub col_idx: &'a [I],
    pub vals: &'a [T],
    pub tile_ptr: &'a [I],
    pub tile_desc: &'a [u32],
    pub empty_offset_ptr: &'a [I],
    pub empty_offset: &'a [I],
    pub x: &'a [T],
    pub xs: (usize, usize),
    pub k: usize,
    pub alpha: T,
    pub beta: T,
    pub ys: (usize, usize),
    pub row0: usize,
    pub row_end: usize,
}

/// A block of columns' sums, kept across the entries of one segment.
pub(crate) trait Block<'a, T: Scalar, I: Index>: Sized {
    /// Zero sums for the columns from `c0` of `a`'s `X`.
    ///
    /// # Safety
    /// The block's target features are enabled; the walk's contract on `a` (a vector
    /// block: `X` row-major, holding at least one row of `k` columns; `c0` plus the
    /// block's columns at most `k`).
    unsafe fn new(a: &Mm5<'a, T, I>, c0: usize) -> Self;
    /// Adds `vals[q s] * X[cols[q s], ..]` for `q < n` (`s` the stride) to the sums.
    ///
    /// # Safety
    /// The features; `vals` and `cols` readable at every `q s`, `q < n`.
    unsafe fn run(&mut self, vals: *const T, cols: *const I, stride: usize, n: usize);
    /// `dst[at + c * stride] = alpha * sum_c + beta * dst[at + c * stride]` over the
    /// block's columns (`beta == 0`: not read; elements outside `dst`: skipped), then the
    /// sums restart from zero.
    ///
    /// # Safety
    /// The features.
    unsafe fn flush(&mut self, alpha: T, beta: T, dst: &mut [T], at: usize, stride: usize);
}

/// `R` registers of `V` over contiguous columns `c0..` of a row-major `X` (its rows
/// clamped, `xr`), in two sets of sums (even and odd entries of a run) so that two FMA
/// chains per register are in flight.
pub(crate) struct RegsAt<'x, V: MmVec, const R: usize> {
    a: [V; R],
    b: [V; R],
    xr: Xrows<'x, V::T>,
    c0: usize,
}

impl<'a, T: Scalar, I: Index, V: MmVec<T = T>, const R: usize> Block<'a, T, I> for RegsAt<'a, V, R> {
    #[inline(always)]
    unsafe fn new(a: &Mm5<'a, T, I>, c0: usize) -> Self {
        // SAFETY: the caller's promise of the features.
        let zero = unsafe { V::splat(T::ZERO) };
        // `X[j, ..k]` lies inside `x` for every `j <= jmax` (the dispatcher sends an `x`
        // shorter than one row to the plain blocks).
        let jmax = a.x.len().saturating_sub(a.k).checked_div(a.xs.0).unwrap_or(0);
        RegsAt { a: [zero; R], b: [zero; R], xr: Xrows { x: a.x, ld: a.xs.0, jmax }, c0 }
    }

    #[inline(always)]
    unsafe fn run(&mut self, vals: *const T, cols: *const I, stride: usize, n: usize) {
        let (w, xr, c0) = (V::W, self.xr, self.c0);
        let mut q = 0;
        // SAFETY: the features are the caller's; entries `q * stride`, `q < n`, are
        // readable (the caller's promise); every load reads `W` elements at column
        // `c0 + r W < k` of a clamped row of `X`, inside `x` by `jmax`.
        unsafe {
            while q + 2 <= n {
                let (o0, o1) = (q * stride, (q + 1) * stride);
                let (p0, p1) = (xr.at(*cols.add(o0), c0), xr.at(*cols.add(o1), c0));
                let (s0, s1) = (V::splat(*vals.add(o0)), V::splat(*vals.add(o1)));
                for r in 0..R {
                    self.a[r] = V::fma(self.a[r], s0, V::load(p0.add(r * w)));
                    self.b[r] = V::fma(self.b[r], s1, V::load(p1.add(r * w)));
                }
                q += 2;
            }
            if q < n {
                let o = q * stride;
                let (p, s) = (xr.at(*cols.add(o), c0), V::splat(*vals.add(o)));
                for (r, ar) in self.a.iter_mut().enumerate() {
                    *ar = V::fma(*ar, s, V::load(p.add(r * w)));
                }
            }
        }
    }

    #[inline(always)]
    unsafe fn flush(&mut self, alpha: T, beta: T, dst: &mut [T], at: usize, stride: usize) {
        let (w, n) = (V::W, R * V::W);
        // SAFETY: the features are the caller's; the loads and stores touch the `n`
        // elements of `d`.
        unsafe {
            // The vector blocks run only where `Y` is row-major (the walk's contract).
            if stride == 1
                && let Some(d) = at.checked_add(n).and_then(|e| dst.get_mut(at..e))
            {
                let (dp, al) = (d.as_mut_ptr(), V::splat(alpha));
                for r in 0..R {
                    let t = V::mul(al, V::add(self.a[r], self.b[r]));
                    let out =
                        if beta == T::ZERO { t } else { V::fma(t, V::splat(beta), V::load(dp.add(r * w))) };
                    out.store(dp.add(r * w));
                }
            }
            let zero = V::splat(T::ZERO);
            self.a = [zero; R];
            self.b = [zero; R];
        }
    }
}

/// `N` scalar columns from `c0` of `X` in any layout (elements read with `get`), in two
/// sets of sums as the vector blocks: the columns past the last half register of a
/// row-major `X` and `Y`, and every column of the other layouts.
pub(crate) struct Scalars<'x, T, const N: usize> {
    a: [T; N],
    b: [T; N],
    x: &'x [T],
    xs: (usize, usize),
    c0: usize,
}

impl<T: Scalar, const N: usize> Scalars<'_, T, N> {
    /// Column `c0 + l` of row `j` of `X`, or `None` outside `x`.
    #[inline(always)]
    fn at(&self, j: usize, l: usize) -> Option<T> {
        let p = j.checked_mul(self.xs.0)?.checked_add((self.c0 + l).checked_mul(self.xs.1)?)?;
        self.x.get(p).copied()
    }
}

impl<'a, T: Scalar, I: Index, const N: usize> Block<'a, T, I> for Scalars<'a, T, N> {
    #[inline(always)]
    unsafe fn new(a: &Mm5<'a, T, I>, c0: usize) -> Self {
        Scalars { a: [T::ZERO; N], b: [T::ZERO; N], x: a.x, xs: a.xs, c0 }
    }

    #[inline(always)]
    unsafe fn run(&mut self, vals: *const T, cols: *const I, stride: usize, n: usize) {
        for q in 0..n {
            // SAFETY: the caller's promise that entry `q * stride` is readable.
            let (v, j) = unsafe { (*vals.add(q * stride), (*cols.add(q * stride)).to_usize()) };
            for l in 0..N {
                if let Some(xv) = self.at(j, l) {
                    if q % 2 == 0 {
                        self.a[l] += v * xv;
                    } else {
                        self.b[l] += v * xv;
                    }
                }
            }
        }
    }

    #[inline(always)]
    unsafe fn flush(&mut self, alpha: T, beta: T, dst: &mut [T], at: usize, stride: usize) {
        for l in 0..N {
            let s = alpha * (self.a[l] + self.b[l]);
            if let Some(d) =
                l.checked_mul(stride).and_then(|o| o.checked_add(at)).and_then(|p| dst.get_mut(p))
            {
                *d = if beta == T::ZERO { s } else { s + beta * *d };
            }
        }
        self.a = [T::ZERO; N];
        self.b = [T::ZERO; N];
    }
}

/// One complete tile, decoded.
pub(crate) struct Tile<'t, T, I> {
    /// The tile's first entry.
    base: usize,
    words: &'t [u32],
    cols: &'t [I],
    vals: &'t [T],
    r0: usize,
    dirty: bool,
    eoff: &'t [I],
    /// Segment 0's row was flushed before (the previous tile of the range ran into it).
    cont: bool,
}

impl<T, I: Index> Tile<'_, T, I> {
    /// Segment `s`'s row.
    #[inline(always)]
    fn row_of(&self, s: usize) -> usize {
        if self.dirty { self.r0 + self.eoff.get(s).map_or(0, |v| v.to_usize()) } else { self.r0 + s }
    }
}

/// What one walk over the columns runs: a complete tile, or the tail (the entries after
/// the last complete tile, in CSR order, and the rows `first..nrows`).
pub(crate) enum Unit<'t, T, I> {
    Tile(Tile<'t, T, I>),
    Tail { first: usize, cont: bool },
}

/// How the columns of a unit are cut into blocks.
pub(crate) trait Cols<T: Scalar, I: Index> {
    /// Runs `u` for all `k` columns.
    ///
    /// # Safety
    /// The blocks' target features are enabled; the walk's contract on `a`.
    unsafe fn unit<'a>(a: &Mm5<'a, T, I>, u: &Unit<'_, T, I>, y: &mut [T], carry: &mut [T]);
}

/// Vector blocks of `V` (a row-major `X`): four registers at a time, then three, two or
/// one, a half register, then scalar sums.
pub(crate) struct VecCols<V>(PhantomData<V>);

impl<T: Scalar, I: Index, V: MmVec<T = T>> Cols<T, I> for VecCols<V> {
    #[inline(always)]
    unsafe fn unit<'a>(a: &Mm5<'a, T, I>, u: &Unit<'_, T, I>, y: &mut [T], carry: &mut [T]) {
        let (k, w) = (a.k, V::W);
        let mut c0 = 0;
        // SAFETY (every block): the features are the caller's; each block covers columns
        // `c0..c0 + R W <= k`.
        unsafe {
            while c0 + 4 * w <= k {
                one::<T, I, RegsAt<'a, V, 4>>(a, u, c0, y, carry);
                c0 += 4 * w;
            }
            match (k - c0) / w {
                3 => one::<T, I, RegsAt<'a, V, 3>>(a, u, c0, y, carry),
                2 => one::<T, I, RegsAt<'a, V, 2>>(a, u, c0, y, carry),
                1 => one::<T, I, RegsAt<'a, V, 1>>(a, u, c0, y, carry),
                _ => {}
            }
            c0 += (k - c0) / w * w;
            if V::Half::W < w && c0 + V::Half::W <= k {
                one::<T, I, RegsAt<'a, V::Half, 1>>(a, u, c0, y, carry);
                c0 += V::Half::W;
            }
            scalar_cols(a, u, c0, y, carry);
        }
    }
}

/// Scalar blocks of four columns (any layout of `X`).
pub(crate) struct PlainCols;

impl<T: Scalar, I: Index> Cols<T, I> for PlainCols {
    #[inline(always)]
    unsafe fn unit<'a>(a: &Mm5<'a, T, I>, u: &Unit<'_, T, I>, y: &mut [T], carry: &mut [T]) {
        // SAFETY: the scalar blocks need no feature and read `X` with `get`.
        unsafe { scalar_cols(a, u, 0, y, carry) }
    }
}

/// Columns `c0..k` by scalar blocks of up to four.
///
/// # Safety
/// The walk's contract on `a`.
#[inline(always)]
unsafe fn scalar_cols<'a, T: Scalar, I: Index>(
    a: &Mm5<'a, T, I>,
    u: &Unit<'_, T, I>,
    mut c0: usize,
    y: &mut [T],
    carry: &mut [T],
) {
    // SAFETY (each): the scalar blocks need no feature and read `X` with `get`.
    while c0 < a.k {
        let n = (a.k - c0).min(4);
        unsafe {
            match n {
                1 => one::<T, I, Scalars<'a, T, 1>>(a, u, c0, y, carry),
                2 => one::<T, I, Scalars<'a, T, 2>>(a, u, c0, y, carry),
                3 => one::<T, I, Scalars<'a, T, 3>>(a, u, c0, y, carry),
                _ => one::<T, I, Scalars<'a, T, 4>>(a, u, c0, y, carry),
            }
        }
        c0 += n;
    }
}

/// Flushes `blk` into row `row` of `Y` (`alpha * s + y` where `add`, else `alpha * s +
/// beta * y`), or into the carry where the row lies past the rows `y` holds (`alpha *
/// s`, or added to the carry where `add`).
///
/// # Safety
/// `B`'s features.
#[inline(always)]
unsafe fn put<'a, T: Scalar, I: Index, B: Block<'a, T, I>>(
    a: &Mm5<'a, T, I>,
    blk: &mut B,
    row: usize,
    add: bool,
    c0: usize,
    y: &mut [T],
    carry: &mut [T],
) {
    let beta_or = |b: T| if add { T::ONE } else { b };
    // SAFETY (both): the caller's promise of the features.
    unsafe {
        if row < a.row_end {
            let at = row.checked_sub(a.row0).and_then(|r| r.checked_mul(a.ys.0)).map(|o| o + c0 * a.ys.1);
            blk.flush(
                a.alpha,
                beta_or(a.beta),
                if at.is_some() { y } else { &mut [] },
                at.unwrap_or(0),
                a.ys.1,
            );
        } else {
            blk.flush(a.alpha, beta_or(T::ZERO), carry, c0, 1);
        }
    }
}

/// Flushes segment `s` of tile `t`: `alpha * s + y` where its row was flushed before (a
/// piece in an earlier tile of the range), else `alpha * s + beta * y`. (A function, not a closure: a closure does not inherit the
/// target features of the width's entry point, and its register ops would become calls.)
///
/// # Safety
/// `B`'s features.
#[inline(always)]
unsafe fn flush_seg<'a, T: Scalar, I: Index, B: Block<'a, T, I>>(
    a: &Mm5<'a, T, I>,
    t: &Tile<'_, T, I>,
    blk: &mut B,
    s: usize,
    c0: usize,
    y: &mut [T],
    carry: &mut [T],
) {
    // SAFETY: the caller's promise of the features.
    unsafe { put(a, blk, t.row_of(s), s == 0 && t.cont, c0, y, carry) }
}

/// One unit for the block of columns from `c0`: the tile's runs between heads, each
/// head flushing the segment it closes, the last segment flushed at the end; or the
/// tail's rows.
///
/// # Safety
/// `B`'s features; the walk's contract on `a`.
#[inline(always)]
unsafe fn one<'a, T: Scalar, I: Index, B: Block<'a, T, I>>(
    a: &Mm5<'a, T, I>,
    u: &Unit<'_, T, I>,
    c0: usize,
    y: &mut [T],
    carry: &mut [T],
) {
    // SAFETY: the caller's promise.
    let mut blk = unsafe { B::new(a, c0) };
    match u {
        Unit::Tile(t) => {
            let (omega, sigma) = (a.omega, a.sigma);
            let len = t.vals.len().min(t.cols.len());
            let (vp, cp) = (t.vals.as_ptr(), t.cols.as_ptr());
            let mut seg = 0;
            for (i, &word) in t.words.iter().take(omega).enumerate() {
                let mut f = a.format.bit_flag(word);
                if i == 0 {
                    // Lane 0's first entry is always flagged: it opens segment 0.
                    f &= !1;
                }
                // Entry (lane `i`, step `j`) of this tile is `sigma` entries of CSR order
                // before entry (lane `i + 1`, step `j`), or for the last lane (lane 0, step
                // `j`) of the next tile: the rows of `X` they read are asked for one lane
                // ahead, in the first column block only.
                if c0 == 0 {
                    // The next tile's stretch of the value and column streams, a lane's
                    // share at a time: the walk reads a tile at a stride of `omega`, which
                    // the hardware prefetchers do not follow.
                    let share = len / omega.max(1);
                    prefetch_span(a.vals, t.base + len + i * share, share);
                    prefetch_span(a.col_idx, t.base + len + i * share, share);
                }
                let mut j = 0;
                loop {
                    let h = if f == 0 { sigma } else { f.trailing_zeros() as usize };
                    if h > j && i + (h - 1) * omega < len {
                        // SAFETY: the features are the caller's; the run reads entries
                        // `i + q omega`, `j <= q < h`, all below `len` (checked above).
                        unsafe { blk.run(vp.add(i + j * omega), cp.add(i + j * omega), omega, h - j) };
                    }
                    if f == 0 || h >= sigma {
                        break;
                    }
                    // SAFETY: the caller's promise of the features.
                    unsafe { flush_seg(a, t, &mut blk, seg, c0, y, carry) };
                    seg += 1;
                    f &= f - 1;
                    j = h;
                }
            }
            // SAFETY: the caller's promise of the features.
            unsafe { flush_seg(a, t, &mut blk, seg, c0, y, carry) };
        }
        &Unit::Tail { first, cont } => {
            let e0 = a.tile_ptr.len().saturating_sub(1) * a.omega * a.sigma;
            let nrows = a.row_ptr.len().saturating_sub(1);
            for r in first..nrows {
                let (Some(s), Some(e)) = (a.row_ptr.get(r), a.row_ptr.get(r + 1)) else { break };
                let (s, e) = (s.to_usize().max(e0), e.to_usize());
                if let (Some(v), Some(c)) = (a.vals.get(s..e), a.col_idx.get(s..e)) {
                    // SAFETY: the features are the caller's; `v` and `c` hold the run.
                    unsafe { blk.run(v.as_ptr(), c.as_ptr(), 1, v.len().min(c.len())) };
                }
                // SAFETY: the caller's promise of the features.
                unsafe { put(a, &mut blk, r, r == first && cont, c0, y, carry) };
            }
        }
    }
}

/// `Y[rows] = beta * Y[rows]` (zeros when `beta == 0`) for the rows `y` holds.
fn scale_rows<T: Scalar, I: Index>(a: &Mm5<'_, T, I>, y: &mut [T], rows: Range<usize>) {
    if a.beta == T::ONE {
        return;
    }
    let scale = |v: &mut T| *v = if a.beta == T::ZERO { T::ZERO } else { a.beta * *v };
    let rows = rows.start.max(a.row0)..rows.end.min(a.row_end);
    if rows.is_empty() {
        return;
    }
    if a.ys == (a.k, 1) {
        // Packed rows: one stretch.
        let (from, to) = ((rows.start - a.row0) * a.k, (rows.end - a.row0) * a.k);
        if let Some(ys) = y.get_mut(from..to) {
            ys.iter_mut().for_each(scale);
        }
        return;
    }
    for r in rows {
        let base = (r - a.row0) * a.ys.0;
        if a.ys.1 == 1 {
            if let Some(yr) = y.get_mut(base..base + a.k) {
                yr.iter_mut().for_each(scale);
            }
        } else {
            for c in 0..a.k {
                if let Some(v) = y.get_mut(base + c * a.ys.1) {
                    scale(v);
                }
            }
        }
    }
}

/// Runs tile indices `tiles` (within `0..=ntiles`, index `ntiles` the tail) into `y` (the
/// rows `row0..row_end` the range owns) and returns whether the range's last row runs on
/// past it: then `carry[..k]` holds `alpha` times its partial sums, for row `row_end`.
///
/// # Safety
/// `C`'s blocks' target features are enabled; for vector blocks, `X` and `Y` are
/// row-major (`xs.1 == ys.1 == 1`) and `x` holds at least `k` elements.
#[inline(always)]
pub(crate) unsafe fn walk<T: Scalar, I: Index, C: Cols<T, I>>(
    a: &Mm5<'_, T, I>,
    tiles: Range<usize>,
    y: &mut [T],
    carry: &mut [T],
) -> bool {
    let ntiles = a.tile_ptr.len().saturating_sub(1);
    let (len, omega) = (a.omega * a.sigma, a.omega);
    let nwords = omega * a.format.words_per_lane();
    let row = |t: usize| a.tile_ptr.get(t).map_or(0, |p| p.unflagged().to_usize());
    if tiles.is_empty() || a.k == 0 {
        return false;
    }
    if tiles.start == 0 {
        // The empty rows before the first entry belong to no tile.
        scale_rows(a, y, 0..row(0));
    }
    let mut cont = false;
    for t in tiles.start..tiles.end.min(ntiles) {
        let (Some(&tp), Some(&tn), Some(words)) =
            (a.tile_ptr.get(t), a.tile_ptr.get(t + 1), a.tile_desc.get(t * nwords..(t + 1) * nwords))
        else {
            break;
        };
        let base = t * len;
        let (Some(cols), Some(vals)) = (a.col_idx.get(base..base + len), a.vals.get(base..base + len)) else {
            break;
        };
        let (r0, next, dirty) = (tp.unflagged().to_usize(), tn.unflagged().to_usize(), tp.is_flagged());
        let eoff: &[I] = if dirty {
            let (Some(e0), Some(e1)) = (a.empty_offset_ptr.get(t), a.empty_offset_ptr.get(t + 1)) else {
                break;
            };
            a.empty_offset.get(e0.to_usize()..e1.to_usize()).unwrap_or(&[])
        } else {
            &[]
        };
        // Segments: one per head (lane 0's first entry is always one).
        let nseg = words
            .iter()
            .take(omega)
            .map(|&w| a.format.bit_flag(w).count_ones() as usize)
            .sum::<usize>()
            .max(1);
        let tile = Tile { base, words, cols, vals, r0, dirty, eoff, cont };
        let goes_on = tile.row_of(nseg - 1) == next;
        if dirty {
            // The empty rows between the tile's segments, and after its last one up to the
            // row after it, become `beta * y`; the segments' rows are flushed as in a tile
            // without empty rows.
            let mut prev = tile.row_of(0);
            for s in 1..nseg {
                let r = tile.row_of(s);
                scale_rows(a, y, prev + 1..r);
                prev = r;
            }
            scale_rows(a, y, prev + 1..next);
        }
        cont = goes_on;
        // SAFETY: the caller's contract.
        unsafe { C::unit(a, &Unit::Tile(tile), y, carry) };
    }
    if tiles.end > ntiles {
        // SAFETY: the caller's contract.
        unsafe { C::unit(a, &Unit::Tail { first: row(ntiles), cont }, y, carry) };
        return false;
    }
    cont
}

/// [`Mm5`] seen as another value type of the same size (`T` is `U`).
fn recast<'a, T: Scalar, I: Index, U: Scalar>(a: &Mm5<'a, T, I>) -> Option<Mm5<'a, U, I>> {
    Some(Mm5 {
        omega: a.omega,
        sigma: a.sigma,
        format: a.format,
        row_ptr: a.row_ptr,
        col_idx: a.col_idx,
        vals: cast::<T, U>(a.vals)?,
        tile_ptr: a.tile_ptr,
        tile_desc: a.tile_desc,
        empty_offset_ptr: a.empty_offset_ptr,
        empty_offset: a.empty_offset,
        x: cast::<T, U>(a.x)?,
        xs: a.xs,
        k: a.k,
        alpha: cast_val::<T, U>(a.alpha)?,
        beta: cast_val::<T, U>(a.beta)?,
        ys: a.ys,
        row0: a.row0,
        row_end: a.row_end,
    })
}

/// The CSR5 SpMM of tile indices `tiles` ([`walk`]) on `isa`'s registers where `X` and
/// `Y` are row-major (and `X` holds a row), by scalar blocks otherwise (as the CSR SpMM:
/// each column's sums then do not depend on which columns run beside it, so blocks of
/// columns on threads give the serial bits); every index type runs the same kernel.
#[inline]
pub(crate) fn tiles<T: Scalar, I: Index>(
    isa: Checked,
    a: &Mm5<'_, T, I>,
    tiles: Range<usize>,
    y: &mut [T],
    carry: &mut [T],
) -> bool {
    if a.xs.1 == 1 && a.ys.1 == 1 && a.x.len() >= a.k {
        macro_rules! on {
            ($t:ty, $f:ident) => {
                if let Some(aa) = recast::<T, I, $t>(a)
                    && let Some(yy) = cast_mut::<T, $t>(y)
                    && let Some(cc) = cast_mut::<T, $t>(carry)
                {
                    return crate::arch::dispatch!(isa, spmm::$f(&aa, tiles, yy, cc), else portable::$f(
                        &aa, tiles, yy, cc
                    ));
                }
            };
        }
        on!(f64, tiles_f64);
        on!(f32, tiles_f32);
    }
    // SAFETY: the scalar blocks need no target feature and read `X` with `get`.
    unsafe { walk::<T, I, PlainCols>(a, tiles, y, carry) }
}
