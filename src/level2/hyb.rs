//! Reference HYB SpMV (thesis 5.3.1): the ELL part with the caller's `beta`, then the COO
//! part added on top (`beta = 1`).

use super::{SpMv, check_spmv};
use crate::formats::Hyb;
use crate::{DimError, Exec, Index, Scalar};

impl<T: Scalar, I: Index> SpMv<T> for Hyb<'_, T, I> {
    /// Every available [`Isa`](crate::Isa) runs this same plain loop for now.
    fn spmv(&self, exec: Exec, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
        let isa = exec.resolved_isa();
        // Both parts have this shape, so once this passes neither call below can fail and
        // `y` is never left half-updated.
        check_spmv(isa, self.nrows(), self.ncols(), x, y)?;
        let exec = exec.isa(isa);
        self.ell().spmv(exec, alpha, x, beta, y)?;
        self.coo().spmv(exec, alpha, x, T::ONE, y)
    }
}
