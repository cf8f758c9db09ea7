//! Reference CSR SpMV: the row loop of thesis Algorithm 28 run serially.

use core::ops::Range;

use super::{SpMv, axpby, check_spmv, scale_y};
use crate::formats::Csr;
use crate::{DimError, Index, Isa, Scalar};

impl<T: Scalar, I: Index> SpMv<T> for Csr<'_, T, I> {
    fn spmv_isa(&self, isa: Isa, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
        check_spmv(isa, self.nrows(), self.ncols(), x, y)?;
        spmv_rows(self, 0..self.nrows(), alpha, x, beta, y);
        Ok(())
    }
}

/// `y_rows = alpha * A[rows, :] * x + beta * y_rows`, where `y_rows` holds exactly the
/// rows `rows`: the chunk a thread driver hands to one worker (DESIGN principle 5).
/// Lengths must have been checked: `x.len() == ncols`, `rows` within `0..nrows`,
/// `y_rows.len() == rows.len()`.
pub(crate) fn spmv_rows<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    rows: Range<usize>,
    alpha: T,
    x: &[T],
    beta: T,
    y_rows: &mut [T],
) {
    if alpha == T::ZERO {
        scale_y(beta, y_rows);
        return;
    }
    let (col_idx, vals) = (a.col_idx(), a.vals());
    let row_ptr = &a.row_ptr()[rows.start..=rows.end];
    for (yi, w) in y_rows.iter_mut().zip(row_ptr.windows(2)) {
        let r = w[0].to_usize()..w[1].to_usize();
        let dot =
            col_idx[r.clone()].iter().zip(&vals[r]).fold(T::ZERO, |acc, (&c, &v)| acc + v * x[c.to_usize()]);
        *yi = axpby(alpha, dot, beta, *yi);
    }
}
