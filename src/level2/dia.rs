//! Reference DIA SpMV (thesis 5.2.1), run serially row by row: each row adds the slots of
//! the diagonals that meet it, in offset order (so by increasing column).

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
        for (i, yi) in y.iter_mut().enumerate() {
            let mut dot = T::ZERO;
            for (d, &off) in offsets.iter().enumerate() {
                if let Some(j) = self.col_of(i, off) {
                    dot += data[d * m + i] * x[j];
                }
            }
            *yi = axpby(alpha, dot, beta, *yi);
        }
        Ok(())
    }
}
