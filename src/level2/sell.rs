//! Reference SELL SpMV (thesis 5.4.1): slice by slice, each slice's column-major slots
//! walked in memory order (slot column after slot column) into one accumulator per row.
//! Each row still adds its entries in slot order into a sum starting at zero, so the
//! results are bit for bit those of a row-by-row dot product.

use super::ell::{ROW_BLOCK, accumulate_slot_columns};
use super::{SpMv, axpby, check_spmv, scale_y};
use crate::formats::Sell;
use crate::{DimError, Exec, Index, Scalar};

impl<T: Scalar, I: Index> SpMv<T> for Sell<'_, T, I> {
    /// Every available [`Isa`](crate::Isa) runs this same plain loop for now.
    fn spmv(&self, exec: Exec, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
        let isa = exec.resolved_isa();
        check_spmv(isa, self.nrows(), self.ncols(), x, y)?;
        if alpha == T::ZERO {
            scale_y(beta, y);
            return Ok(());
        }
        let (col_idx, vals) = (self.col_idx(), self.vals());
        let mut acc = [T::ZERO; ROW_BLOCK];
        // Slice s holds the rows of the s-th chunk of `y` (only the last may be lower):
        // `h` rows, slots `slice_ptr[s]..slice_ptr[s + 1]`, slot k of local row r at
        // `k * h + r`. `y_s` is non-empty, so `h > 0` for `chunks_exact`.
        for (y_s, w) in y.chunks_mut(self.slice_height()).zip(self.slice_ptr().windows(2)) {
            let (start, end, h) = (w[0].to_usize(), w[1].to_usize(), y_s.len());
            let (slice_cols, slice_vals) = (&col_idx[start..end], &vals[start..end]);
            // A slice taller than ROW_BLOCK is done in blocks of its rows.
            for (b, y_blk) in y_s.chunks_mut(ROW_BLOCK).enumerate() {
                let rows = b * ROW_BLOCK..b * ROW_BLOCK + y_blk.len();
                let acc = &mut acc[..y_blk.len()];
                let slot_cols = slice_cols.chunks_exact(h).zip(slice_vals.chunks_exact(h));
                accumulate_slot_columns(acc, slot_cols.map(|(c, v)| (&c[rows.clone()], &v[rows.clone()])), x);
                for (yi, &dot) in y_blk.iter_mut().zip(acc.iter()) {
                    *yi = axpby(alpha, dot, beta, *yi);
                }
            }
        }
        Ok(())
    }
}
