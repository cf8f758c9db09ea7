//! The CSR SpMM row kernel shared by every width: `Y = alpha * A * X + beta * Y` with `X`
//! and `Y` dense and row-major, `k` columns each.
//!
//! Each entry `a_ij` of row `i` adds `a_ij * X[j, ..]` to the row's `k` sums, a vector
//! FMA over contiguous `X[j, c0..]` (no gather), so `A` is read once per tile of columns
//! rather than once per column as `k` SpMVs would (thesis 8.3's row loop, with the dot
//! product widened to `k` lanes). A tile is up to four registers ([`MmVec`]) of sums
//! kept in registers across the row, in two sets (even and odd entries) so that two
//! FMA chains are in flight (four sets, four chains, for a tile of one register); `k` past four registers runs several
//! tiles, rest columns a half-width register ([`MmVec::Half`]) and then scalar sums.
//!
//! Sound for *any* slices: rows of `Y` that do not fit are skipped, row ranges are taken
//! with `get`, and every column `j` is clamped so that `X[j, ..k]` lies inside `x` (one
//! `min` per entry); a validated `Csr` and `DenseRef` never trigger either.

// The entry-point macro serves the SIMD widths only; targets without one leave it unused.
#![cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(unused_macros))]

use crate::arch::generic::spmv_csr::{cast, cast_mut, cast_val};
use crate::arch::generic::spmv_sym::{Cross, SymBlock};
use crate::arch::portable::spmm as portable;
use crate::arch::{Checked, prefetch};
use crate::{Index, Scalar};

/// One register of `W` lanes of `T` for the SpMM tiles: a broadcast, unaligned loads and
/// stores, and the FMA `acc + a * b`.
pub(crate) trait MmVec: Copy {
    /// The lane type.
    type T: Scalar;
    /// A register of half the lanes (or this one where there is none narrower) for the
    /// columns left after the full registers.
    type Half: MmVec<T = Self::T>;
    /// Lanes.
    const W: usize;
    /// `v` in every lane.
    ///
    /// # Safety
    /// The width's target features are enabled.
    unsafe fn splat(v: Self::T) -> Self;
    /// `W` elements from `p` (unaligned).
    ///
    /// # Safety
    /// The features; `p` readable for `W` elements.
    unsafe fn load(p: *const Self::T) -> Self;
    /// `W` elements to `p` (unaligned).
    ///
    /// # Safety
    /// The features; `p` writable for `W` elements.
    unsafe fn store(self, p: *mut Self::T);
    /// `acc + a * b` (fused where the width has an FMA).
    ///
    /// # Safety
    /// The width's target features are enabled.
    unsafe fn fma(acc: Self, a: Self, b: Self) -> Self;
    /// `a * b`.
    ///
    /// # Safety
    /// The width's target features are enabled.
    unsafe fn mul(a: Self, b: Self) -> Self;
    /// `a + b`.
    ///
    /// # Safety
    /// The width's target features are enabled.
    unsafe fn add(a: Self, b: Self) -> Self;
}

/// How far ahead, in entries, the row-major SpMM asks for the rows of `X` the entries
/// will read (where [`RowMajor::ahead`]): a random column costs a miss per entry, and the
/// hint starts it long before the loop's own load would.
const MM_X_AHEAD: usize = 32;

/// The shape of the row-major operands: `k` columns, `X`'s rows `ldx` apart, `Y`'s `ldy`;
/// `ahead`: ask for the rows of `X` [`MM_X_AHEAD`] entries ahead (where they would miss:
/// `level2::spmm`'s `x_misses`; where they would not, the hints are pure cost).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowMajor {
    pub k: usize,
    pub ldx: usize,
    pub ldy: usize,
    pub ahead: bool,
}

/// `Y[i, ..k] = alpha * (row i of A) * X + beta * Y[i, ..k]` for the rows bounded by
/// `row_ptr` (`row_ptr.len() - 1` rows; `Y`'s row `i` starts at `i * ldy` of `y`). `beta
/// == 0` never reads `y`.
///
/// # Safety
/// `V`'s target features are enabled.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) unsafe fn rows_row_major<V: MmVec, I: Index>(
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[V::T],
    x: &[V::T],
    alpha: V::T,
    beta: V::T,
    y: &mut [V::T],
    s: RowMajor,
) {
    // SAFETY (both): the caller's promise of the features; the rows bound their reads.
    if beta == V::T::ZERO {
        unsafe { rows_by::<V, I, true>(row_ptr, col_idx, vals, x, alpha, beta, y, s) }
    } else {
        unsafe { rows_by::<V, I, false>(row_ptr, col_idx, vals, x, alpha, beta, y, s) }
    }
}

/// [`rows_row_major`] for `beta == 0` (`B0`) or not.
///
/// # Safety
/// As [`rows_row_major`].
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn rows_by<V: MmVec, I: Index, const B0: bool>(
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[V::T],
    x: &[V::T],
    alpha: V::T,
    beta: V::T,
    y: &mut [V::T],
    s: RowMajor,
) {
    let k = s.k;
    if k == 0 {
        return;
    }
    // `X[j, ..k]` lies inside `x` for every `j <= jmax`; without one row of `X` no entry is
    // read (a valid matrix has none then).
    let (col_idx, jmax) = match x.len().checked_sub(k) {
        Some(room) => (col_idx, room.checked_div(s.ldx).unwrap_or(0)),
        None => (&[][..], 0),
    };
    let xr = Xrows { x, ld: s.ldx, jmax };
    // The rows of `X` that entries up to `MM_X_AHEAD` ahead will read are asked for
    // before this row starts (`ahead`: the next entry not yet asked for).
    let mut ahead = row_ptr.first().map_or(0, |p| p.to_usize());
    // A row of `X` within one line needs one hint (the line of its first element) where
    // `X` is aligned; a longer one its last line too.
    let span = k * core::mem::size_of::<V::T>();
    for (i, w) in row_ptr.windows(2).enumerate() {
        let Some(yr) = i.checked_mul(s.ldy).and_then(|o| y.get_mut(o..o.checked_add(k)?)) else {
            break;
        };
        let r = w[0].to_usize()..w[1].to_usize();
        let until = if s.ahead { r.end.saturating_add(MM_X_AHEAD).min(col_idx.len()) } else { ahead };
        if let Some(next) = col_idx.get(ahead..until) {
            for c in next {
                let j = c.to_usize().min(jmax) * s.ldx;
                prefetch(x, j);
                if span > 64 {
                    prefetch(x, j + k - 1);
                }
            }
        }
        ahead = ahead.max(until);
        let (cols, vs) = match (col_idx.get(r.clone()), vals.get(r)) {
            (Some(c), Some(v)) => (c, v),
            _ => (&[][..], &[][..]),
        };
        // SAFETY: the caller's promise of the features; `yr` holds `k` elements and `xr`
        // clamps its rows.
        unsafe { row::<V, I, B0>(cols, vs, xr, alpha, beta, yr) };
    }
}

/// `x` as rows of `ld` elements, of which rows `0..=jmax` hold at least `k` columns.
#[derive(Clone, Copy)]
pub(crate) struct Xrows<'x, T> {
    pub(crate) x: &'x [T],
    pub(crate) ld: usize,
    pub(crate) jmax: usize,
}

impl<T> Xrows<'_, T> {
    /// The first element of row `min(j, jmax)`, plus `c0`: `k - c0` elements are readable
    /// from it.
    #[inline(always)]
    pub(crate) fn at<I: Index>(self, j: I, c0: usize) -> *const T {
        self.x.as_ptr().wrapping_add(j.to_usize().min(self.jmax) * self.ld + c0)
    }
}

/// One row of `Y` (`yr`, `k` elements) in tiles of four registers, then one, two or three,
/// then a half register, then scalar sums.
///
/// # Safety
/// `V`'s target features are enabled; `jmax` of `xr` keeps `yr.len()` columns readable.
#[inline(always)]
unsafe fn row<V: MmVec, I: Index, const B0: bool>(
    cols: &[I],
    vals: &[V::T],
    xr: Xrows<'_, V::T>,
    alpha: V::T,
    beta: V::T,
    yr: &mut [V::T],
) {
    let (k, w) = (yr.len(), V::W);
    let mut c0 = 0;
    // SAFETY (every tile): the features are the caller's; each tile covers columns
    // `c0..c0 + R W <= k`.
    unsafe {
        while c0 + 4 * w <= k {
            tile::<V, I, 4, B0>(cols, vals, xr, c0, alpha, beta, yr);
            c0 += 4 * w;
        }
        match (k - c0) / w {
            3 => tile::<V, I, 3, B0>(cols, vals, xr, c0, alpha, beta, yr),
            2 => tile::<V, I, 2, B0>(cols, vals, xr, c0, alpha, beta, yr),
            1 => tile::<V, I, 1, B0>(cols, vals, xr, c0, alpha, beta, yr),
            _ => {}
        }
        c0 += (k - c0) / w * w;
        if V::Half::W < w && c0 + V::Half::W <= k {
            tile::<V::Half, I, 1, B0>(cols, vals, xr, c0, alpha, beta, yr);
            c0 += V::Half::W;
        }
    }
    if c0 < k {
        tail::<V::T, I, B0>(cols, vals, xr, c0, alpha, beta, &mut yr[c0..]);
    }
}

/// Columns `c0..c0 + R W` of one row: `R` registers of sums for the even entries and `R`
/// for the odd ones, added at the end.
///
/// # Safety
/// `V`'s target features are enabled; `c0 + R W <= yr.len()`, and `xr` keeps `yr.len()`
/// columns of every clamped row readable.
#[inline(always)]
unsafe fn tile<V: MmVec, I: Index, const R: usize, const B0: bool>(
    cols: &[I],
    vals: &[V::T],
    xr: Xrows<'_, V::T>,
    c0: usize,
    alpha: V::T,
    beta: V::T,
    yr: &mut [V::T],
) {
    let w = V::W;
    if R == 1 {
        // SAFETY: as below, for one register.
        unsafe { tile1::<V, I, B0>(cols, vals, xr, c0, alpha, beta, yr) };
        return;
    }
    // SAFETY: the features are the caller's; every load reads `W` elements at column
    // `c0 + r W`, `r < R`, of a clamped row of `X` (inside `x` by `jmax`), and the stores
    // write columns `c0..c0 + R W` of `yr`, all within its `k` elements.
    unsafe {
        let zero = V::splat(V::T::ZERO);
        let (mut a, mut b) = ([zero; R], [zero; R]);
        let (c2, v2) = (cols.chunks_exact(2), vals.chunks_exact(2));
        let (cr, vr) = (c2.remainder(), v2.remainder());
        for (c, v) in c2.zip(v2) {
            let (p0, p1) = (xr.at(c[0], c0), xr.at(c[1], c0));
            let (s0, s1) = (V::splat(v[0]), V::splat(v[1]));
            for r in 0..R {
                a[r] = V::fma(a[r], s0, V::load(p0.add(r * w)));
                b[r] = V::fma(b[r], s1, V::load(p1.add(r * w)));
            }
        }
        if let (Some(&c), Some(&v)) = (cr.first(), vr.first()) {
            let (p, s) = (xr.at(c, c0), V::splat(v));
            for (r, ar) in a.iter_mut().enumerate() {
                *ar = V::fma(*ar, s, V::load(p.add(r * w)));
            }
        }
        let (al, be) = (V::splat(alpha), V::splat(beta));
        let yp = yr.as_mut_ptr().add(c0);
        for (r, (&ar, &br)) in a.iter().zip(&b).enumerate() {
            let t = V::mul(al, V::add(ar, br));
            let out = if B0 { t } else { V::fma(t, be, V::load(yp.add(r * w))) };
            out.store(yp.add(r * w));
        }
    }
}

/// [`tile`] for one register of columns: four sets of sums (entries `4q`, `4q + 1`, ..)
/// instead of two, so four FMA chains are in flight where two would leave the FMA units
/// waiting on their latency (one register per entry is all the work there is; AVX-512
/// with eight `f64` columns, `benches/records/peers-ops-*.md`).
///
/// # Safety
/// As [`tile`] with `R = 1`.
#[inline(always)]
unsafe fn tile1<V: MmVec, I: Index, const B0: bool>(
    cols: &[I],
    vals: &[V::T],
    xr: Xrows<'_, V::T>,
    c0: usize,
    alpha: V::T,
    beta: V::T,
    yr: &mut [V::T],
) {
    // SAFETY: the features are the caller's; every load reads `W` elements at column `c0`
    // of a clamped row of `X` (inside `x` by `jmax`), the store writes columns
    // `c0..c0 + W` of `yr`, within its `k` elements.
    unsafe {
        let zero = V::splat(V::T::ZERO);
        let mut acc = [zero; 4];
        let (c4, v4) = (cols.chunks_exact(4), vals.chunks_exact(4));
        let (cr, vr) = (c4.remainder(), v4.remainder());
        for (c, v) in c4.zip(v4) {
            for q in 0..4 {
                acc[q] = V::fma(acc[q], V::splat(v[q]), V::load(xr.at(c[q], c0)));
            }
        }
        for (q, (&c, &v)) in cr.iter().zip(vr).enumerate() {
            acc[q] = V::fma(acc[q], V::splat(v), V::load(xr.at(c, c0)));
        }
        let t = V::mul(V::splat(alpha), V::add(V::add(acc[0], acc[1]), V::add(acc[2], acc[3])));
        let yp = yr.as_mut_ptr().add(c0);
        let out = if B0 { t } else { V::fma(t, V::splat(beta), V::load(yp)) };
        out.store(yp);
    }
}

/// The last columns of a row, fewer than a half register (at most 15): scalar sums in
/// passes of up to three columns.
#[inline(always)]
fn tail<T: Scalar, I: Index, const B0: bool>(
    cols: &[I],
    vals: &[T],
    xr: Xrows<'_, T>,
    c0: usize,
    alpha: T,
    beta: T,
    yt: &mut [T],
) {
    let mut c = 0;
    while c < yt.len() {
        let y = &mut yt[c..];
        c += match y.len() {
            1 => tail_n::<T, I, 1, B0>(cols, vals, xr, c0 + c, alpha, beta, y),
            2 => tail_n::<T, I, 2, B0>(cols, vals, xr, c0 + c, alpha, beta, y),
            _ => tail_n::<T, I, 3, B0>(cols, vals, xr, c0 + c, alpha, beta, y),
        };
    }
}

/// Columns `c0..c0 + N` of one row (`y` starts at column `c0`), in two sets of `N` sums
/// (even and odd entries) as the tiles; returns `N`.
#[inline(always)]
fn tail_n<T: Scalar, I: Index, const N: usize, const B0: bool>(
    cols: &[I],
    vals: &[T],
    xr: Xrows<'_, T>,
    c0: usize,
    alpha: T,
    beta: T,
    y: &mut [T],
) -> usize {
    let (mut a, mut b) = ([T::ZERO; N], [T::ZERO; N]);
    let xrow = |c: I| {
        let j = c.to_usize().min(xr.jmax) * xr.ld + c0;
        xr.x.get(j..j + N)
    };
    let (c2, v2) = (cols.chunks_exact(2), vals.chunks_exact(2));
    let (cr, vr) = (c2.remainder(), v2.remainder());
    for (c, v) in c2.zip(v2) {
        if let (Some(p), Some(q)) = (xrow(c[0]), xrow(c[1])) {
            for l in 0..N {
                a[l] += v[0] * p[l];
                b[l] += v[1] * q[l];
            }
        }
    }
    if let (Some(&c), Some(&v)) = (cr.first(), vr.first())
        && let Some(p) = xrow(c)
    {
        for l in 0..N {
            a[l] += v * p[l];
        }
    }
    for (l, yv) in y.iter_mut().take(N).enumerate() {
        let s = a[l] + b[l];
        *yv = if B0 { alpha * s } else { alpha * s + beta * *yv };
    }
    N
}

/// The symmetric-storage SpMM of one block `b` (`A = T + Tᵀ − diag(T)`, `T` the stored
/// triangle bounded by `row_ptr`, all `n + 1` entries): for the block's rows,
/// `Y[i, ..k] = alpha * (row i of T) X + beta * Y[i, ..k]`, plus `Y[j, ..k] += alpha *
/// a_ij * X[i, ..k]` for every off-diagonal entry whose `j` lies in the block; returns
/// the cross entries left out (`generic::spmv_sym`). `y` holds the block's rows (row
/// `b.start` at 0), rows in the triangle's order, each tile of columns one pass over the
/// row for both.
///
/// # Safety
/// `V`'s target features are enabled.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) unsafe fn sym_row_major<V: MmVec, I: Index>(
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[V::T],
    x: &[V::T],
    alpha: V::T,
    beta: V::T,
    y: &mut [V::T],
    s: RowMajor,
    b: SymBlock,
) -> Cross {
    // SAFETY (all four): the caller's promise of the features; the rows bound their reads.
    unsafe {
        match (b.lower, beta == V::T::ZERO) {
            (true, true) => sym_by::<V, I, true, true>(row_ptr, col_idx, vals, x, alpha, beta, y, s, b),
            (true, false) => sym_by::<V, I, true, false>(row_ptr, col_idx, vals, x, alpha, beta, y, s, b),
            (false, true) => sym_by::<V, I, false, true>(row_ptr, col_idx, vals, x, alpha, beta, y, s, b),
            (false, false) => sym_by::<V, I, false, false>(row_ptr, col_idx, vals, x, alpha, beta, y, s, b),
        }
    }
}

/// [`sym_row_major`] for a triangle (`LOWER`) and `beta == 0` (`B0`) or not.
///
/// # Safety
/// As [`sym_row_major`].
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn sym_by<V: MmVec, I: Index, const LOWER: bool, const B0: bool>(
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[V::T],
    x: &[V::T],
    alpha: V::T,
    beta: V::T,
    y: &mut [V::T],
    s: RowMajor,
    b: SymBlock,
) -> Cross {
    let k = s.k;
    let ldy = s.ldy.max(1);
    // Rows of `Y` whose `k` columns lie inside `y`, and of `X` inside `x` (as `rows_by`).
    let fit = y.len().checked_sub(k).map_or(0, |room| room / ldy + 1);
    let (col_idx, jmax) = match x.len().checked_sub(k) {
        Some(room) => (col_idx, room.checked_div(s.ldx).unwrap_or(0)),
        None => (&[][..], 0),
    };
    let end = b.end.min(b.start.saturating_add(fit)).min(row_ptr.len().saturating_sub(1));
    if k == 0 || b.start >= end || x.len() < k {
        return Cross::NONE;
    }
    let b = SymBlock { end, ..b };
    let xr = Xrows { x, ld: s.ldx, jmax };
    let mut cross = Cross::NONE;
    // A plain loop each way (a closure would not inherit the kernel's target features).
    let mut i = if LOWER { b.start } else { end };
    loop {
        if LOWER {
            if i >= end {
                break;
            }
        } else if i == b.start {
            break;
        } else {
            i -= 1;
        }
        let r = row_ptr[i].to_usize()..row_ptr[i + 1].to_usize();
        let (cols, vs) = match (col_idx.get(r.clone()), vals.get(r)) {
            (Some(c), Some(v)) => (c, v),
            _ => (&[][..], &[][..]),
        };
        let row = SymRow { i, cols, vals: vs, xr, alpha, beta, ldy, b };
        // SAFETY: the caller's promise of the features; rows `b.start..b.end` of `Y` hold
        // `k` columns inside `y` (`fit`), and `xr` clamps the rows of `X`.
        unsafe { sym_row::<V, I, LOWER, B0>(row, y, k, &mut cross) };
        if LOWER {
            i += 1;
        }
    }
    cross
}

/// One row `i` of a symmetric SpMM block and what its tiles read.
#[derive(Clone, Copy)]
struct SymRow<'r, T, I> {
    i: usize,
    cols: &'r [I],
    vals: &'r [T],
    xr: Xrows<'r, T>,
    alpha: T,
    beta: T,
    ldy: usize,
    b: SymBlock,
}

/// Row `i` of [`sym_by`] in tiles of four registers, then one to three, then a half
/// register, then scalar columns, as [`row`].
///
/// # Safety
/// `V`'s features are enabled; rows `b.start..b.end` of `Y` (`ldy` apart) hold `k`
/// columns inside `y`.
#[inline(always)]
unsafe fn sym_row<V: MmVec, I: Index, const LOWER: bool, const B0: bool>(
    r: SymRow<'_, V::T, I>,
    y: &mut [V::T],
    k: usize,
    cross: &mut Cross,
) {
    let w = V::W;
    let mut c0 = 0;
    // SAFETY (every tile): the features are the caller's; each tile covers columns
    // `c0..c0 + R W <= k`.
    unsafe {
        while c0 + 4 * w <= k {
            sym_tile::<V, I, 4, LOWER, B0>(r, c0, y, cross);
            c0 += 4 * w;
        }
        match (k - c0) / w {
            3 => sym_tile::<V, I, 3, LOWER, B0>(r, c0, y, cross),
            2 => sym_tile::<V, I, 2, LOWER, B0>(r, c0, y, cross),
            1 => sym_tile::<V, I, 1, LOWER, B0>(r, c0, y, cross),
            _ => {}
        }
        c0 += (k - c0) / w * w;
        if V::Half::W < w && c0 + V::Half::W <= k {
            sym_tile::<V::Half, I, 1, LOWER, B0>(r, c0, y, cross);
            c0 += V::Half::W;
        }
    }
    if c0 < k {
        sym_tail::<V::T, I, LOWER, B0>(r, c0..k, y, cross);
    }
}

/// Columns `c0..c0 + R W` of row `i`: `R` registers of sums for the even entries and `R`
/// for the odd ones (the row's dot product with `X`), and for each entry in the block's
/// window `Y[j, c0..] += a_ij * (alpha X[i, c0..])`, `alpha X[i, c0..]` kept in `R`
/// registers.
///
/// # Safety
/// As [`sym_row`], and `c0 + R W <= k`.
#[inline(always)]
unsafe fn sym_tile<V: MmVec, I: Index, const R: usize, const LOWER: bool, const B0: bool>(
    r: SymRow<'_, V::T, I>,
    c0: usize,
    y: &mut [V::T],
    cross: &mut Cross,
) {
    let (w, b, i, ldy) = (V::W, r.b, r.i, r.ldy);
    let (w0, wn) = b.window::<LOWER>(i);
    let yp = y.as_mut_ptr();
    // SAFETY: the features are the caller's; every load of `X` reads `W` elements at column
    // `c0 + q W`, `q < R`, of a clamped row (inside `x` by `jmax`); every access to `Y` is
    // to a row of the block (`i`, or `j` in the window `w0..w0 + wn` inside the block) at
    // columns `c0..c0 + R W <= k`, inside `y` (the caller's promise).
    unsafe {
        let zero = V::splat(V::T::ZERO);
        let al = V::splat(r.alpha);
        let xi = r.xr.x.as_ptr().wrapping_add(i.min(r.xr.jmax) * r.xr.ld + c0);
        let mut xs = [zero; R];
        for (q, v) in xs.iter_mut().enumerate() {
            *v = V::mul(al, V::load(xi.add(q * w)));
        }
        let sc = Scatter { yp, w0, wn, ldy, row0: b.start, c0 };
        let (mut a, mut bb) = ([zero; R], [zero; R]);
        let (c2, v2) = (r.cols.chunks_exact(2), r.vals.chunks_exact(2));
        let (cr, vr) = (c2.remainder(), v2.remainder());
        for (c, v) in c2.zip(v2) {
            let (p0, p1) = (r.xr.at(c[0], c0), r.xr.at(c[1], c0));
            let (s0, s1) = (V::splat(v[0]), V::splat(v[1]));
            for q in 0..R {
                a[q] = V::fma(a[q], s0, V::load(p0.add(q * w)));
                bb[q] = V::fma(bb[q], s1, V::load(p1.add(q * w)));
            }
            sym_put::<V, I, R, LOWER>(sc, &xs, c[0], s0, r, cross);
            sym_put::<V, I, R, LOWER>(sc, &xs, c[1], s1, r, cross);
        }
        if let (Some(&c), Some(&v)) = (cr.first(), vr.first()) {
            let (p, s) = (r.xr.at(c, c0), V::splat(v));
            for (q, aq) in a.iter_mut().enumerate() {
                *aq = V::fma(*aq, s, V::load(p.add(q * w)));
            }
            sym_put::<V, I, R, LOWER>(sc, &xs, c, s, r, cross);
        }
        let be = V::splat(r.beta);
        let yi = yp.add((i - b.start) * ldy + c0);
        for (q, (&aq, &bq)) in a.iter().zip(&bb).enumerate() {
            let t = V::mul(al, V::add(aq, bq));
            let out = if B0 { t } else { V::fma(t, be, V::load(yi.add(q * w))) };
            out.store(yi.add(q * w));
        }
    }
}

/// Where [`sym_tile`]'s scatters go: `Y` at `yp`, rows `ldy` apart from row `row0`, the
/// window `w0..w0 + wn` of the row, the tile's first column `c0`.
#[derive(Clone, Copy)]
struct Scatter<T> {
    yp: *mut T,
    w0: usize,
    wn: usize,
    ldy: usize,
    row0: usize,
    c0: usize,
}

/// The scatter of one entry `(i, c)` of value `s` (in every lane) in a tile:
/// `Y[c, c0..c0 + R W] += s * xs` if the block holds row `c`, else the entry noted as
/// cross (if it is).
///
/// # Safety
/// `V`'s features are enabled; rows `w0..w0 + wn` of `Y` hold columns `c0..c0 + R W`
/// inside the slice at `yp` ([`sym_tile`]'s contract).
#[inline(always)]
unsafe fn sym_put<V: MmVec, I: Index, const R: usize, const LOWER: bool>(
    sc: Scatter<V::T>,
    xs: &[V; R],
    c: I,
    s: V,
    r: SymRow<'_, V::T, I>,
    cross: &mut Cross,
) {
    let j = c.to_usize();
    let o = j.wrapping_sub(sc.w0);
    if o < sc.wn {
        // SAFETY: row `j = w0 + o` lies in the window (the caller's promise).
        unsafe {
            let yj = sc.yp.add((sc.w0 - sc.row0 + o) * sc.ldy + sc.c0);
            for (q, &xq) in xs.iter().enumerate() {
                V::fma(V::load(yj.add(q * V::W)), s, xq).store(yj.add(q * V::W));
            }
        }
    } else if r.b.crosses::<LOWER>(j) {
        cross.add(r.i, j, j + 1);
    }
}

/// The last columns `cols` of row `i` (fewer than a half register), one column at a time
/// in scalar sums, as [`sym_tile`].
#[inline(always)]
fn sym_tail<T: Scalar, I: Index, const LOWER: bool, const B0: bool>(
    r: SymRow<'_, T, I>,
    cols: core::ops::Range<usize>,
    y: &mut [T],
    cross: &mut Cross,
) {
    let (b, i, ldy, xr) = (r.b, r.i, r.ldy, r.xr);
    let (w0, wn) = b.window::<LOWER>(i);
    let xat = |j: usize, c: usize| xr.x.get(j.min(xr.jmax) * xr.ld + c).copied().unwrap_or(T::ZERO);
    for c in cols {
        let xs = r.alpha * xat(i, c);
        let mut acc = T::ZERO;
        for (&cj, &v) in r.cols.iter().zip(r.vals) {
            let j = cj.to_usize();
            acc += v * xat(j, c);
            let o = j.wrapping_sub(w0);
            if o < wn {
                if let Some(yv) = y.get_mut((w0 - b.start + o) * ldy + c) {
                    *yv += v * xs;
                }
            } else if b.crosses::<LOWER>(j) {
                cross.add(i, j, j + 1);
            }
        }
        if let Some(yv) = y.get_mut((i - b.start) * ldy + c) {
            *yv = if B0 { r.alpha * acc } else { r.alpha * acc + r.beta * *yv };
        }
    }
}

/// Stamps out a width's `#[target_feature]` SpMM entry points `rows_f64` and `rows_f32`
/// ([`rows_row_major`] over the width's registers).
macro_rules! spmm_kernels {
    ($feature:literal, $f64:ty, $f32:ty) => {
        $crate::arch::generic::spmm::spmm_kernels!(@one $feature, rows_f64, f64, $f64);
        $crate::arch::generic::spmm::spmm_kernels!(@one $feature, rows_f32, f32, $f32);
        $crate::arch::generic::spmm::spmm_kernels!(@csr5 $feature, tiles_f64, f64, $f64);
        $crate::arch::generic::spmm::spmm_kernels!(@csr5 $feature, tiles_f32, f32, $f32);
    };
    // Blocks of at most 64 bytes a row (eight `f64`, sixteen `f32`) go to the narrower
    // width's entry point: two 256-bit loads an entry ran as fast as one 512-bit load or
    // faster on the AVX-512 Xeon (spot runs behind
    // `benches/records/peers-ops-2026-11-28-xeon-avx512.md`).
    ($feature:literal, $f64:ty, $f32:ty; narrow $($narrow:ident)::+) => {
        $crate::arch::generic::spmm::spmm_kernels!(@one $feature, rows_f64, f64, $f64, $($narrow)::+);
        $crate::arch::generic::spmm::spmm_kernels!(@one $feature, rows_f32, f32, $f32, $($narrow)::+);
        $crate::arch::generic::spmm::spmm_kernels!(@csr5 $feature, tiles_f64, f64, $f64, $($narrow)::+);
        $crate::arch::generic::spmm::spmm_kernels!(@csr5 $feature, tiles_f32, f32, $f32, $($narrow)::+);
    };
    (@csr5 $feature:literal, $name:ident, $t:ty, $vec:ty $(, $($narrow:ident)::+)?) => {
        /// The CSR5 SpMM of a tile range on this width; see
        /// [`walk`](crate::arch::generic::spmm_csr5::walk).
        ///
        /// # Safety
        /// The CPU supports the target features enabled here; `a`'s `X` is row-major and
        /// holds at least one row.
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn $name<I: $crate::Index>(
            a: &$crate::arch::generic::spmm_csr5::Mm5<'_, $t, I>,
            tiles: core::ops::Range<usize>,
            y: &mut [$t],
            carry: &mut [$t],
        ) -> bool {
            $(
                if a.k * core::mem::size_of::<$t>() <= 64 {
                    // SAFETY: the narrower width's features are among those enabled here.
                    return unsafe { $($narrow)::+::$name(a, tiles, y, carry) };
                }
            )?
            // SAFETY: the features are enabled on this function; the caller's contract on
            // `a`; the walk bounds its own reads and writes.
            unsafe {
                $crate::arch::generic::spmm_csr5::walk::<$t, I, $crate::arch::generic::spmm_csr5::VecCols<$vec>>(
                    a, tiles, y, carry,
                )
            }
        }
    };
    (@one $feature:literal, $name:ident, $t:ty, $vec:ty $(, $($narrow:ident)::+)?) => {
        $crate::arch::generic::spmm::spmm_kernels!(@sym $feature, $name, $t, $vec $(, $($narrow)::+)?);
        /// The row-major CSR SpMM on this width; see
        /// [`rows_row_major`](crate::arch::generic::spmm::rows_row_major).
        ///
        /// # Safety
        /// The CPU supports the target features enabled here.
        #[target_feature(enable = $feature)]
        #[allow(clippy::too_many_arguments)]
        pub(crate) unsafe fn $name<I: $crate::Index>(
            row_ptr: &[I],
            col_idx: &[I],
            vals: &[$t],
            x: &[$t],
            alpha: $t,
            beta: $t,
            y: &mut [$t],
            s: $crate::arch::generic::spmm::RowMajor,
        ) {
            $(
                if s.k * core::mem::size_of::<$t>() <= 64 {
                    // SAFETY: the narrower width's features are among those enabled here.
                    unsafe { $($narrow)::+::$name(row_ptr, col_idx, vals, x, alpha, beta, y, s) };
                    return;
                }
            )?
            // SAFETY: the features are enabled on this function; the kernel bounds its
            // own reads and writes.
            unsafe {
                $crate::arch::generic::spmm::rows_row_major::<$vec, I>(row_ptr, col_idx, vals, x, alpha, beta, y, s)
            }
        }
    };
    // The symmetric-storage kernel beside each row-major one: `sym_f64` beside `rows_f64`.
    (@sym $feature:literal, rows_f64, $t:ty, $vec:ty $(, $($narrow:ident)::+)?) => {
        $crate::arch::generic::spmm::spmm_kernels!(@symone $feature, sym_f64, $t, $vec $(, $($narrow)::+)?);
    };
    (@sym $feature:literal, rows_f32, $t:ty, $vec:ty $(, $($narrow:ident)::+)?) => {
        $crate::arch::generic::spmm::spmm_kernels!(@symone $feature, sym_f32, $t, $vec $(, $($narrow)::+)?);
    };
    (@symone $feature:literal, $name:ident, $t:ty, $vec:ty $(, $($narrow:ident)::+)?) => {
        /// The symmetric-storage row-major SpMM of one block on this width; see
        /// [`sym_row_major`](crate::arch::generic::spmm::sym_row_major).
        ///
        /// # Safety
        /// The CPU supports the target features enabled here.
        #[target_feature(enable = $feature)]
        #[allow(clippy::too_many_arguments)]
        pub(crate) unsafe fn $name<I: $crate::Index>(
            row_ptr: &[I],
            col_idx: &[I],
            vals: &[$t],
            x: &[$t],
            alpha: $t,
            beta: $t,
            y: &mut [$t],
            s: $crate::arch::generic::spmm::RowMajor,
            b: $crate::arch::generic::spmv_sym::SymBlock,
        ) -> $crate::arch::generic::spmv_sym::Cross {
            $(
                if s.k * core::mem::size_of::<$t>() <= 64 {
                    // SAFETY: the narrower width's features are among those enabled here.
                    return unsafe { $($narrow)::+::$name(row_ptr, col_idx, vals, x, alpha, beta, y, s, b) };
                }
            )?
            // SAFETY: the features are enabled on this function; the kernel bounds its
            // own reads and writes.
            unsafe {
                $crate::arch::generic::spmm::sym_row_major::<$vec, I>(row_ptr, col_idx, vals, x, alpha, beta, y, s, b)
            }
        }
    };
}

#[allow(unused_imports)]
pub(crate) use spmm_kernels;

/// The row-major CSR SpMM ([`rows_row_major`]) on `isa`'s registers; every index type
/// runs the same kernel.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn rows<T: Scalar, I: Index>(
    isa: Checked,
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[T],
    x: &[T],
    alpha: T,
    beta: T,
    y: &mut [T],
    s: RowMajor,
) {
    macro_rules! on {
        ($t:ty, $f:ident) => {
            if let (Some(v), Some(xx), Some(al), Some(be)) =
                (cast::<T, $t>(vals), cast::<T, $t>(x), cast_val::<T, $t>(alpha), cast_val::<T, $t>(beta))
                && let Some(yy) = cast_mut::<T, $t>(y)
            {
                crate::arch::dispatch!(isa, spmm::$f(row_ptr, col_idx, v, xx, al, be, yy, s), else portable::$f(
                    row_ptr, col_idx, v, xx, al, be, yy, s
                ));
                return;
            }
        };
    }
    on!(f64, rows_f64);
    on!(f32, rows_f32);
}

/// The row-major symmetric-storage SpMM of one block ([`sym_row_major`]) on `isa`'s
/// registers; returns the cross entries it left out.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn sym<T: Scalar, I: Index>(
    isa: Checked,
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[T],
    x: &[T],
    alpha: T,
    beta: T,
    y: &mut [T],
    s: RowMajor,
    b: SymBlock,
) -> Cross {
    macro_rules! on {
        ($t:ty, $f:ident) => {
            if let (Some(v), Some(xx), Some(al), Some(be)) =
                (cast::<T, $t>(vals), cast::<T, $t>(x), cast_val::<T, $t>(alpha), cast_val::<T, $t>(beta))
                && let Some(yy) = cast_mut::<T, $t>(y)
            {
                return crate::arch::dispatch!(isa, spmm::$f(row_ptr, col_idx, v, xx, al, be, yy, s, b), else portable::$f(
                    row_ptr, col_idx, v, xx, al, be, yy, s, b
                ));
            }
        };
    }
    on!(f64, sym_f64);
    on!(f32, sym_f32);
    Cross::NONE
}
