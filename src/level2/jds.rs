//! Reference JDS SpMV (course notes Fig. 10.16; PMPP ch. 14.6 `spmv_jds_kernel`), run
//! serially: one storage position at a time, walking the jagged diagonals that cover it.

use super::{SpMv, axpby, check_spmv, scale_y};
use crate::formats::Jds;
use crate::{DimError, Index, Isa, Scalar};

impl<T: Scalar, I: Index> SpMv<T> for Jds<'_, T, I> {
    /// Every storage position `p` is visited once and writes `y[perm[p]]` once; since
    /// `perm` is a permutation, every row of `y` is written exactly once (rows without
    /// entries get `beta * y`, or 0 when `beta == 0`). A row's products are added in
    /// diagonal order, which is its CSR order. Every available [`Isa`] runs this loop.
    fn spmv_isa(&self, isa: Isa, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
        check_spmv(isa, self.nrows(), self.ncols(), x, y)?;
        if alpha == T::ZERO {
            scale_y(beta, y);
            return Ok(());
        }
        let (jd_ptr, col_idx, vals) = (self.jd_ptr(), self.col_idx(), self.vals());
        for (p, &row) in self.perm().iter().enumerate() {
            let mut dot = T::ZERO;
            for w in jd_ptr.windows(2) {
                let (start, end) = (w[0].to_usize(), w[1].to_usize());
                // Diagonal lengths never increase: the first one too short for p ends the row.
                if p >= end - start {
                    break;
                }
                let k = start + p;
                dot += vals[k] * x[col_idx[k].to_usize()];
            }
            let yi = &mut y[row.to_usize()];
            *yi = axpby(alpha, dot, beta, *yi);
        }
        Ok(())
    }
}
