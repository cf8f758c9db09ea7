//! Reference DIA SpMV (thesis 5.2.1), run serially: a block of rows at a time, adding each
//! diagonal's in-range part of the block in memory order. Each row adds the slots of the
//! diagonals that meet it in offset order (so by increasing column), as a row-by-row loop
//! does, and gets bit for bit the same result.

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
        if alpha == T::ZERO {
            scale_y(beta, y);
            return Ok(());
        }
        let (m, offsets, data) = (self.nrows(), self.offsets(), self.data());
        let mut acc = [T::ZERO; ROW_BLOCK];
        // `y` is non-empty inside the loop, so `m > 0` for `chunks_exact`.
        for (b, y_blk) in y.chunks_mut(ROW_BLOCK).enumerate() {
            let r0 = b * ROW_BLOCK;
            let acc = &mut acc[..y_blk.len()];
            acc.fill(T::ZERO);
            for (diag, &off) in data.chunks_exact(m).zip(offsets) {
                // Rows of this block whose slot on the diagonal lies inside the matrix;
                // row i's slot meets column i + off.
                let in_range = self.row_range(off);
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
        Ok(())
    }
}
