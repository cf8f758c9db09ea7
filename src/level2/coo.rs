//! Reference COO SpMV: scale `y`, then one multiply-add per entry (course notes, Fig. 10.14).

use super::{SpMv, check_spmv, scale_y};
use crate::formats::Coo;
use crate::{DimError, Exec, Index, Scalar};

impl<T: Scalar, I: Index> SpMv<T> for Coo<'_, T, I> {
    fn spmv(&self, exec: Exec, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
        let isa = exec.resolved_isa();
        check_spmv(isa, self.nrows(), self.ncols(), x, y)?;
        scale_y(beta, y);
        if alpha == T::ZERO {
            return Ok(());
        }
        for ((&r, &c), &v) in self.row_idx().iter().zip(self.col_idx()).zip(self.vals()) {
            y[r.to_usize()] += alpha * (v * x[c.to_usize()]);
        }
        Ok(())
    }
}
