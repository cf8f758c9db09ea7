//! Reference CSR SpMV: the row loop of thesis Algorithm 28 run serially.

use super::{SpMv, axpby, check_spmv, scale_y};
use crate::formats::Csr;
use crate::{DimError, Index, Isa, Scalar};

impl<T: Scalar, I: Index> SpMv<T> for Csr<'_, T, I> {
    fn spmv_isa(&self, isa: Isa, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
        check_spmv(isa, self.nrows(), self.ncols(), x, y)?;
        if alpha == T::ZERO {
            scale_y(beta, y);
            return Ok(());
        }
        let (col_idx, vals) = (self.col_idx(), self.vals());
        for (yi, w) in y.iter_mut().zip(self.row_ptr().windows(2)) {
            let r = w[0].to_usize()..w[1].to_usize();
            let dot = col_idx[r.clone()]
                .iter()
                .zip(&vals[r])
                .fold(T::ZERO, |acc, (&c, &v)| acc + v * x[c.to_usize()]);
            *yi = axpby(alpha, dot, beta, *yi);
        }
        Ok(())
    }
}
