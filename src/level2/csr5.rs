//! CSR5 SpMV (thesis 8.5, Alg. 32) with BLAS semantics, whole or by tile ranges.
//!
//! [`SpMv`] for [`Csr5`] runs every tile in order on one thread. For threads, split the
//! *tile indices* `0..=tiles` (index `tiles` is the tail: the entries after the last
//! complete tile and the rows after them) into consecutive ranges; [`owned_rows`] gives
//! each range's rows, which are consecutive and disjoint, so `y` splits into one
//! `&mut` slice per range (`split_at_mut`). Run [`spmv_tiles`] on each — in any order, on
//! any thread — and then add the returned [`Carry`]s with [`super::apply_carries`]. A range owns
//! the rows whose last entry lies in its tiles, plus the empty rows the format assigns to
//! those tiles; a row that runs on past the range's end comes back as its carry (the
//! thesis's calibrator, here a value returned per call, so nothing needs resetting
//! between calls).
//!
//! SpMM ([`SpMm`] for [`Csr5`], [`spmm_csr5`]) reads each tile once for all `k` columns of
//! `X`: the tile's entries are walked in CSR order with a block of `k`-wide sums in
//! registers, flushed at every row start its `bit_flag` marks
//! (`arch::generic::spmm_csr5`). It splits the same way: [`spmm_tiles`] runs a tile range
//! into the rows it owns and hands back a `k`-wide carry, which [`apply_spmm_carry`] adds.

use core::ops::Range;

use super::spmm::{check_dense_shapes, scale_dense, vectors};
use super::{Carry, DenseMut, DenseRef, SpMm, SpMv, check_spmv, scale_y};
use crate::arch::Checked;
use crate::arch::generic::spmm_csr5::{self as mm, Mm5};
use crate::arch::generic::spmv_csr5::{TileArgs, prefetch_x, scale_rows};
use crate::formats::Csr5;
use crate::{DimError, Exec, Index, Isa, Scalar};

impl<T: Scalar, I: Index> SpMv<T> for Csr5<'_, T, I> {
    fn spmv(&self, exec: Exec, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
        let isa = exec.resolved_isa();
        // Threads: equal tile ranges, the carries added at the end (thesis 8.5).
        #[cfg(feature = "parallel")]
        if exec.thread_limit() != 1 {
            let op = crate::parallel::Operands { alpha, x, beta };
            return crate::parallel::spmv_csr5(self, isa, op, y, exec.thread_limit());
        }
        check_spmv(isa, self.nrows(), self.ncols(), x, y)?;
        if alpha == T::ZERO {
            scale_y(beta, y);
            return Ok(());
        }
        run(self, isa, 0..self.tiles() + 1, alpha, x, beta, y, 0);
        Ok(())
    }
}

/// [`owned_rows`] of a tile range a caller passed, or the error naming it.
fn tile_rows<T: Scalar, I: Index>(
    a: &Csr5<'_, T, I>,
    tiles: &Range<usize>,
) -> Result<Range<usize>, DimError> {
    owned_rows(a, tiles.clone()).ok_or(DimError::OutOfRange {
        operand: "tiles",
        position: 1,
        value: tiles.end.max(tiles.start),
        max: a.tiles() + 1,
    })
}

/// The rows tile range `tiles` (within `0..=a.tiles()`) owns: consecutive, and disjoint
/// between the ranges of one split of `0..=a.tiles()` into consecutive ranges, whose row
/// ranges then cover `0..nrows` in order. `None` if `tiles` is out of range.
pub fn owned_rows<T: Scalar, I: Index>(a: &Csr5<'_, T, I>, tiles: Range<usize>) -> Option<Range<usize>> {
    let ntiles = a.tiles();
    if tiles.start > tiles.end || tiles.end > ntiles + 1 {
        return None;
    }
    if tiles.is_empty() {
        return Some(0..0);
    }
    let first = if tiles.start == 0 { 0 } else { row(a, tiles.start) };
    let last = if tiles.end == ntiles + 1 { a.nrows() } else { row(a, tiles.end) };
    Some(first..last.max(first))
}

/// Runs tile indices `tiles` (a sub-range of `0..=a.tiles()`, index `a.tiles()` being the
/// tail) of `y = alpha * A * x + beta * y` into `y_rows`, the rows
/// [`owned_rows`]`(a, tiles)` of `y`, and returns the carry of the range's last row if
/// that row goes on past the range (its `row` counts from 0 in the whole `y`).
///
/// # Errors
/// [`DimError::IsaUnavailable`]; [`DimError::Length`] if `x.len() != ncols` or
/// `y_rows` is not as long as the owned rows; [`DimError::OutOfRange`] if `tiles` is not
/// within `0..=a.tiles()`. `y_rows` is untouched on error.
pub fn spmv_tiles<T: Scalar, I: Index>(
    a: &Csr5<'_, T, I>,
    isa: Isa,
    tiles: Range<usize>,
    alpha: T,
    x: &[T],
    beta: T,
    y_rows: &mut [T],
) -> Result<Option<Carry<T>>, DimError> {
    let rows = tile_rows(a, &tiles)?;
    check_spmv(isa, rows.len(), a.ncols(), x, y_rows)?;
    if tiles.is_empty() {
        return Ok(None);
    }
    if alpha == T::ZERO {
        scale_rows(y_rows, 0..rows.len(), beta);
        return Ok(None);
    }
    Ok(run(a, isa, tiles, alpha, x, beta, y_rows, rows.start))
}

/// `tile_ptr[t]` without the flag.
fn row<T: Scalar, I: Index>(a: &Csr5<'_, T, I>, t: usize) -> usize {
    a.tile_ptr()[t].unflagged().to_usize()
}

/// The checked body: leading empty rows, complete tiles on `isa`, the tail; `y` holds
/// rows from `y0` on.
#[allow(clippy::too_many_arguments)]
fn run<T: Scalar, I: Index>(
    a: &Csr5<'_, T, I>,
    isa: Isa,
    tiles: Range<usize>,
    alpha: T,
    x: &[T],
    beta: T,
    y: &mut [T],
    y0: usize,
) -> Option<Carry<T>> {
    let ntiles = a.tiles();
    if tiles.start == 0 {
        // The empty rows before the first entry belong to no tile.
        scale_rows(y, 0..row(a, 0), beta);
    }
    let args = TileArgs {
        sigma: a.sigma(),
        row_ptr: a.row_ptr(),
        format: a.desc_format(),
        col_idx: a.col_idx(),
        vals: a.vals(),
        tile_ptr: a.tile_ptr(),
        tile_desc: a.tile_desc(),
        empty_offset_ptr: a.empty_offset_ptr(),
        empty_offset: a.empty_offset(),
        x,
        alpha,
        beta,
        prefetch_x: prefetch_x::<T>(a.nrows(), a.ncols(), a.nnz(), a.omega(), a.sigma()),
        y0,
    };
    let complete = tiles.start..tiles.end.min(ntiles);
    let (carry, goes_on) =
        crate::arch::generic::spmv_csr5::tiles_isa(isa, a.omega(), &args, complete.clone(), y);
    if tiles.end <= ntiles {
        return goes_on.then(|| Carry { row: row(a, tiles.end), value: alpha * carry });
    }
    // The tail: entries after the last complete tile in CSR order, then the trailing rows.
    let carry = if goes_on { carry } else { T::ZERO };
    tail(a, carry, alpha, x, beta, y, y0);
    None
}

/// Rows `tile_ptr[tiles]..nrows` in CSR order from entry `tiles * omega * sigma`, the
/// first seeded with `carry`.
fn tail<T: Scalar, I: Index>(
    a: &Csr5<'_, T, I>,
    mut carry: T,
    alpha: T,
    x: &[T],
    beta: T,
    y: &mut [T],
    y0: usize,
) {
    let (row_ptr, col_idx, vals) = (a.row_ptr(), a.col_idx(), a.vals());
    let mut e = a.tiles() * a.omega() * a.sigma();
    let first = row(a, a.tiles());
    for r in first..a.nrows() {
        let end = row_ptr[r + 1].to_usize();
        let mut sum = carry;
        carry = T::ZERO;
        while e < end {
            sum += vals[e] * x[col_idx[e].to_usize()];
            e += 1;
        }
        if let Some(yr) = y.get_mut(r.wrapping_sub(y0)) {
            *yr = if beta == T::ZERO { alpha * sum } else { alpha * sum + beta * *yr };
        }
    }
}

impl<T: Scalar, I: Index> SpMm<T> for Csr5<'_, T, I> {
    fn spmm(
        &self,
        exec: Exec,
        alpha: T,
        x: DenseRef<'_, T>,
        beta: T,
        y: &mut DenseMut<'_, T>,
    ) -> Result<(), DimError> {
        spmm_csr5(exec, self, alpha, x, beta, y)
    }
}

/// `Y = alpha * A * X + beta * Y` for a CSR5 `A` (thesis chapter 6's tiles, read once for
/// all `k` columns): each tile's entries walked in CSR order, `k`-wide sums in the width's
/// registers (the CSR SpMM's column blocks, all run inside the tile while it is in L1),
/// flushed into `Y` at every row start of `tile_desc`; a row spanning tiles is flushed
/// once per tile (`alpha * s + beta * y`, then `alpha * s + y`). Row-major `X` and `Y` run
/// on `exec`'s width, other layouts by scalar blocks of four columns (correct, slower); one
/// contiguous column (`k == 1`) by the CSR5 SpMV. Widths agree within rounding, and with
/// [`spmm_csr`](super::spmm_csr) on the same matrix. With `exec.threads(..)` (feature
/// `parallel`), a row-major `Y` splits into equal tile ranges, each into its own rows,
/// the `k`-wide carries of rows crossing ranges added at the end (within rounding of the
/// serial result: such a row's pieces add in another order); a column-major `Y` into
/// blocks of columns, each over all tiles (the serial bits).
///
/// # Errors
/// As [`SpMm::spmm`].
pub fn spmm_csr5<T: Scalar, I: Index>(
    exec: Exec,
    a: &Csr5<'_, T, I>,
    alpha: T,
    x: DenseRef<'_, T>,
    beta: T,
    y: &mut DenseMut<'_, T>,
) -> Result<(), DimError> {
    let checked = check_dense_shapes(exec.resolved_isa(), a.nrows(), a.ncols(), &x, y)?;
    if alpha == T::ZERO {
        scale_dense(beta, y);
        return Ok(());
    }
    #[cfg(feature = "parallel")]
    if exec.thread_limit() != 1 {
        crate::parallel::spmm_csr5(a, checked, alpha, x, beta, y, exec.thread_limit());
        return Ok(());
    }
    let ys = y.layout().strides(y.ld());
    mm_tiles(a, checked, 0..a.tiles() + 1, alpha, x, beta, y.data_mut(), ys, &mut [], true);
    Ok(())
}

/// Runs tile indices `tiles` (a sub-range of `0..=a.tiles()`, index `a.tiles()` being the
/// tail) of `Y = alpha * A * X + beta * Y` into `y_rows`, the rows
/// [`owned_rows`]`(a, tiles)` of `Y`, and returns the row of the range's last row if it
/// goes on past the range: then `carry[..k]` holds `alpha` times its partial sums, to be
/// added to that row of the whole `Y` ([`apply_spmm_carry`]) once every range has run.
/// [`spmv_tiles`] for `k` columns; ranges run in any order, on any thread.
///
/// # Errors
/// [`DimError::IsaUnavailable`]; [`DimError::Length`] if `X` has not `ncols` rows, `y_rows`
/// not the owned rows or not `X`'s columns; [`DimError::BufferTooSmall`] (`"carry"`) if
/// `carry` is shorter than `k`; [`DimError::OutOfRange`] if `tiles` is not within
/// `0..=a.tiles()`. `y_rows` and `carry` are untouched on error.
#[allow(clippy::too_many_arguments)]
pub fn spmm_tiles<T: Scalar, I: Index>(
    a: &Csr5<'_, T, I>,
    isa: Isa,
    tiles: Range<usize>,
    alpha: T,
    x: DenseRef<'_, T>,
    beta: T,
    y_rows: &mut DenseMut<'_, T>,
    carry: &mut [T],
) -> Result<Option<usize>, DimError> {
    let rows = tile_rows(a, &tiles)?;
    let checked = check_dense_shapes(isa, rows.len(), a.ncols(), &x, y_rows)?;
    if carry.len() < x.cols() {
        return Err(DimError::BufferTooSmall { buffer: "carry", needed: x.cols(), got: carry.len() });
    }
    if tiles.is_empty() {
        return Ok(None);
    }
    if alpha == T::ZERO {
        scale_dense(beta, y_rows);
        return Ok(None);
    }
    let ys = y_rows.layout().strides(y_rows.ld());
    let goes_on = mm_tiles(a, checked, tiles, alpha, x, beta, y_rows.data_mut(), ys, carry, true);
    Ok(goes_on.then_some(rows.end))
}

/// Adds a carry of [`spmm_tiles`] to row `row` of `Y`: `Y[row, c] += carry[c]` for `c <
/// k`, after every range has run (the range that owns the row may finish after the one
/// that carries into it).
///
/// # Errors
/// [`DimError::Parameter`] (`"carry.row"`) if `row` is not a row of `y`;
/// [`DimError::BufferTooSmall`] (`"carry"`) if `carry` is shorter than `y`'s columns. `y`
/// is untouched then.
pub fn apply_spmm_carry<T: Scalar>(row: usize, carry: &[T], y: &mut DenseMut<'_, T>) -> Result<(), DimError> {
    if row >= y.rows() {
        return Err(DimError::Parameter { name: "carry.row", value: row });
    }
    let k = y.cols();
    if carry.len() < k {
        return Err(DimError::BufferTooSmall { buffer: "carry", needed: k, got: carry.len() });
    }
    let (rs, cs) = y.layout().strides(y.ld());
    let data = y.data_mut();
    for (c, &v) in carry.iter().take(k).enumerate() {
        if let Some(yv) = data.get_mut(row * rs + c * cs) {
            *yv += v;
        }
    }
    Ok(())
}

/// The checked body of the CSR5 SpMM over tile indices `tiles` (`alpha != 0`; shapes,
/// `tiles` and a carry of `k` where the range leaves one checked): `y` holds the owned
/// rows with strides `ys`. Returns whether `carry` holds the range's last row. One
/// contiguous column runs as the SpMV if `as_spmv` (not for one column of several, whose
/// bits must be the other columns' kernel's). The chunk a thread driver hands to one
/// worker.
#[allow(clippy::too_many_arguments)]
pub(crate) fn mm_tiles<T: Scalar, I: Index>(
    a: &Csr5<'_, T, I>,
    isa: Checked,
    tiles: Range<usize>,
    alpha: T,
    x: DenseRef<'_, T>,
    beta: T,
    y: &mut [T],
    ys: (usize, usize),
    carry: &mut [T],
    as_spmv: bool,
) -> bool {
    let rows = owned_rows(a, tiles.clone()).unwrap_or(0..0);
    if as_spmv && let Some((xv, yv)) = vectors(&x, ys, y, rows.len()) {
        // One contiguous column: the SpMV's lane-parallel tiles.
        let c = run(a, isa.isa(), tiles, alpha, xv, beta, yv, rows.start);
        return match (c, carry.first_mut()) {
            (Some(c), Some(slot)) => {
                *slot = c.value;
                true
            }
            _ => false,
        };
    }
    let args = Mm5 {
        omega: a.omega(),
        sigma: a.sigma(),
        format: a.desc_format(),
        row_ptr: a.row_ptr(),
        col_idx: a.col_idx(),
        vals: a.vals(),
        tile_ptr: a.tile_ptr(),
        tile_desc: a.tile_desc(),
        empty_offset_ptr: a.empty_offset_ptr(),
        empty_offset: a.empty_offset(),
        x: x.data(),
        xs: x.layout().strides(x.ld()),
        k: x.cols(),
        alpha,
        beta,
        ys,
        row0: rows.start,
        row_end: rows.end,
    };
    mm::tiles(isa, &args, tiles, y, carry)
}
