//! Reference ELL SpMV (thesis 5.2.2, Bell and Garland's ELL kernel run serially). The
//! slots are column-major, so the loop takes a block of rows at a time and walks its slot
//! columns in memory order, one accumulator per row. Each row still adds its entries in
//! slot order into a sum starting at zero, so the results are bit for bit those of a
//! row-by-row dot product.

use core::ops::Range;

use super::{SpMv, axpby, check_spmv, scale_y};
use crate::formats::{Ell, pad};
use crate::{DimError, Exec, Index, Scalar};

/// Rows per block, shared by the ELL, SELL, JDS and DIA loops. Each slot column (jagged
/// diagonal, diagonal) of a block is a run of up to `ROW_BLOCK` adjacent slots, and a
/// block interleaves as many runs as the matrix is wide; runs of a few KiB keep the
/// hardware prefetchers streaming, where shorter ones ran slower
/// (`benches/records/kernel-notes-2026-11.md`, "Row blocks of the padded formats"). The
/// accumulators take
/// `ROW_BLOCK * size_of::<T>()` bytes of stack: 4 KiB for `f64`, 2 KiB for `f32`.
/// Without `std` (firmware, whose stacks can be a few KiB) blocks are 64 rows, 512 bytes
/// at most. The block size never changes results: each row's order of additions is fixed.
pub(super) const ROW_BLOCK: usize = if cfg!(feature = "std") { 512 } else { 64 };

impl<T: Scalar, I: Index> SpMv<T> for Ell<'_, T, I> {
    /// Every available [`Isa`](crate::Isa) runs this same plain loop for now.
    fn spmv(&self, exec: Exec, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
        let isa = exec.resolved_isa();
        check_spmv(isa, self.nrows(), self.ncols(), x, y)?;
        if alpha == T::ZERO {
            scale_y(beta, y);
            return Ok(());
        }
        let (m, col_idx, vals) = (self.nrows(), self.col_idx(), self.vals());
        let mut acc = [T::ZERO; ROW_BLOCK];
        // `y` is non-empty inside the loop, so `m > 0` for `chunks_exact`.
        for (b, y_blk) in y.chunks_mut(ROW_BLOCK).enumerate() {
            let rows = b * ROW_BLOCK..b * ROW_BLOCK + y_blk.len();
            let acc = &mut acc[..y_blk.len()];
            // Slot column k (slot k of every row) is `k * m .. (k + 1) * m`.
            let slot_cols = col_idx.chunks_exact(m).zip(vals.chunks_exact(m));
            accumulate_slot_columns(acc, slot_cols.map(|(c, v)| (&c[rows.clone()], &v[rows.clone()])), x);
            for (yi, &dot) in y_blk.iter_mut().zip(acc.iter()) {
                *yi = axpby(alpha, dot, beta, *yi);
            }
        }
        Ok(())
    }
}

/// Sets `acc[r]` to the dot product of row `r` of one block of column-major padded slots
/// (ELL or one SELL slice), given as the block's part of each slot column in order:
/// `(cols, vals)` with `cols.len() == vals.len() == acc.len()`. Row `r` adds its real
/// slots in column order, starting from zero; padding slots are skipped, not multiplied.
///
/// Padding is a suffix of every row, so rows at either end of the block whose slot is
/// padding are done for good: the loop narrows `live` past them (a slice holding one long
/// row among short ones then walks that row alone) and stops once no row is left.
#[inline]
pub(super) fn accumulate_slot_columns<'s, T: Scalar, I: Index>(
    acc: &mut [T],
    slot_cols: impl Iterator<Item = (&'s [I], &'s [T])>,
    x: &[T],
) {
    acc.fill(T::ZERO);
    let mut live: Range<usize> = 0..acc.len();
    for (cols, vs) in slot_cols {
        while live.start < live.end && cols[live.start] == pad::<I>() {
            live.start += 1;
        }
        while live.start < live.end && cols[live.end - 1] == pad::<I>() {
            live.end -= 1;
        }
        if live.is_empty() {
            break;
        }
        let (acc, cols, vs) = (&mut acc[live.clone()], &cols[live.clone()], &vs[live.clone()]);
        for ((a, &c), &v) in acc.iter_mut().zip(cols).zip(vs) {
            if c != pad::<I>() {
                *a += v * x[c.to_usize()];
            }
        }
    }
}
