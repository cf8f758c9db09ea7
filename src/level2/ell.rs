//! Reference ELL SpMV (thesis 5.2.2, the per-row loop of Bell and Garland's ELL kernel run
//! serially): each row's dot product over its slots, stopping at the first padding slot.

use super::{SpMv, axpby, check_spmv, scale_y};
use crate::formats::Ell;
use crate::{DimError, Index, Isa, Scalar};

impl<T: Scalar, I: Index> SpMv<T> for Ell<'_, T, I> {
    /// Every available [`Isa`] runs this same plain loop for now.
    fn spmv_isa(&self, isa: Isa, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
        check_spmv(isa, self.nrows(), self.ncols(), x, y)?;
        if alpha == T::ZERO {
            scale_y(beta, y);
            return Ok(());
        }
        let (col_idx, vals) = (self.col_idx(), self.vals());
        for (i, yi) in y.iter_mut().enumerate() {
            let dot = self.row_slots(i).fold(T::ZERO, |acc, p| acc + vals[p] * x[col_idx[p].to_usize()]);
            *yi = axpby(alpha, dot, beta, *yi);
        }
        Ok(())
    }
}
