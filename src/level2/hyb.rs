//! Reference HYB SpMV (thesis 5.3.1): the ELL part with the caller's `beta`, then the COO
//! part added on top (`beta = 1`).

use super::{SpMv, check_spmv};
use crate::formats::Hyb;
use crate::{DimError, Index, Isa, Scalar};

impl<T: Scalar, I: Index> SpMv<T> for Hyb<'_, T, I> {
    /// Every available [`Isa`] runs this same plain loop for now.
    fn spmv_isa(&self, isa: Isa, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
        // Both parts have this shape, so once this passes neither call below can fail and
        // `y` is never left half-updated.
        check_spmv(isa, self.nrows(), self.ncols(), x, y)?;
        self.ell().spmv_isa(isa, alpha, x, beta, y)?;
        self.coo().spmv_isa(isa, alpha, x, T::ONE, y)
    }
}
