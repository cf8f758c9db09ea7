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

use core::ops::Range;

use super::{Carry, SpMv, check_spmv, scale_y};
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
    let Some(rows) = owned_rows(a, tiles.clone()) else {
        return Err(DimError::OutOfRange {
            operand: "tiles",
            position: 1,
            value: tiles.end.max(tiles.start),
            max: a.tiles() + 1,
        });
    };
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
