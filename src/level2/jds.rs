//! Reference JDS SpMV (course notes Fig. 10.16; PMPP ch. 14.6 `spmv_jds_kernel`), run
//! serially: a block of storage positions at a time, walking each jagged diagonal's part
//! of the block in memory order.

use super::ell::ROW_BLOCK;
use super::{SpMv, axpby, check_spmv, scale_y};
use crate::formats::Jds;
use crate::{DimError, Exec, Index, Scalar};

impl<T: Scalar, I: Index> SpMv<T> for Jds<'_, T, I> {
    /// Every storage position `p` is visited once and writes `y[perm[p]]` once; since
    /// `perm` is a permutation, every row of `y` is written exactly once (rows without
    /// entries get `beta * y`, or 0 when `beta == 0`). A row's products are added in
    /// diagonal order, which is its CSR order, so the results are bit for bit those of a
    /// row-by-row dot product. Every available [`Isa`](crate::Isa) runs this loop.
    fn spmv(&self, exec: Exec, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
        let isa = exec.resolved_isa();
        check_spmv(isa, self.nrows(), self.ncols(), x, y)?;
        if alpha == T::ZERO {
            scale_y(beta, y);
            return Ok(());
        }
        let (jd_ptr, col_idx, vals) = (self.jd_ptr(), self.col_idx(), self.vals());
        let mut acc = [T::ZERO; ROW_BLOCK];
        for (b, perm_blk) in self.perm().chunks(ROW_BLOCK).enumerate() {
            let p0 = b * ROW_BLOCK;
            let acc = &mut acc[..perm_blk.len()];
            acc.fill(T::ZERO);
            for w in jd_ptr.windows(2) {
                let (start, len) = (w[0].to_usize(), w[1].to_usize() - w[0].to_usize());
                // Diagonal d covers positions 0..len(d) and lengths never increase: the
                // first diagonal that misses the block ends every row in it, and one that
                // ends inside the block ends the rows from there on.
                if len <= p0 {
                    break;
                }
                let ks = start + p0..start + len.min(p0 + perm_blk.len());
                for ((a, &c), &v) in acc.iter_mut().zip(&col_idx[ks.clone()]).zip(&vals[ks]) {
                    *a += v * x[c.to_usize()];
                }
            }
            for (&row, &dot) in perm_blk.iter().zip(acc.iter()) {
                let yi = &mut y[row.to_usize()];
                *yi = axpby(alpha, dot, beta, *yi);
            }
        }
        Ok(())
    }
}
