//! DIA SpMV (thesis 5.2.1): a block of rows at a time, adding each diagonal's in-range
//! part of the block in memory order (no indices read, `x` and the values streamed; the
//! loop vectorises across rows). Each row adds the slots of the diagonals that meet it in
//! offset order (so by increasing column), as a row-by-row loop does, and gets bit for
//! bit the same result. [`super::SpmvPlan`] runs it for matrices whose diagonals hold
//! almost every slot ([`super::SpmvChoice::Dia`]).

use super::ell::ROW_BLOCK;
use super::{SpMv, axpby, check_spmv, scale_y};
use crate::formats::Dia;
use crate::{DimError, Isa, Scalar};

impl<T: Scalar> SpMv<T> for Dia<'_, T> {
    /// Padding slots (column outside `0..ncols`) are never read. Zero slots inside the
    /// matrix are multiplied like any value, as a dense product would (DIA cannot tell
    /// them from entries). Every available [`Isa`] runs this loop.
    fn spmv_isa(&self, isa: Isa, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
        check_spmv(isa, self.nrows(), self.ncols(), x, y)?;
        dia_rows(self, 0, alpha, x, beta, y);
        Ok(())
    }
}

/// The rows `first..first + y_rows.len()` of `y = alpha * A * x + beta * y` (`y_rows`
/// holding exactly those rows, lengths checked by the caller): the serial kernel, and the
/// chunk a thread driver hands to one worker. Each row's sum is the same whatever the
/// chunk, so any partition of the rows gives the serial bits.
pub(crate) fn dia_rows<T: Scalar>(
    a: &Dia<'_, T>,
    first: usize,
    alpha: T,
    x: &[T],
    beta: T,
    y_rows: &mut [T],
) {
    if alpha == T::ZERO {
        scale_y(beta, y_rows);
        return;
    }
    let (m, offsets, data) = (a.nrows(), a.offsets(), a.data());
    let mut acc = [T::ZERO; ROW_BLOCK];
    for (b, y_blk) in y_rows.chunks_mut(ROW_BLOCK).enumerate() {
        let r0 = first + b * ROW_BLOCK;
        let acc = &mut acc[..y_blk.len()];
        acc.fill(T::ZERO);
        // `m > 0` here: `y_rows` holds rows of the matrix.
        for (diag, &off) in data.chunks_exact(m).zip(offsets) {
            // Rows of this block whose slot on the diagonal lies inside the matrix;
            // row i's slot meets column i + off.
            let in_range = a.row_range(off);
            let (lo, hi) = (in_range.start.max(r0), in_range.end.min(r0 + acc.len()));
            if lo >= hi {
                continue;
            }
            let xs = &x[lo.wrapping_add_signed(off)..hi.wrapping_add_signed(off)];
            for ((a, &v), &xj) in acc[lo - r0..hi - r0].iter_mut().zip(&diag[lo..hi]).zip(xs) {
                *a += v * xj;
            }
        }
        for (yi, &dot) in y_blk.iter_mut().zip(acc.iter()) {
            *yi = axpby(alpha, dot, beta, *yi);
        }
    }
}
