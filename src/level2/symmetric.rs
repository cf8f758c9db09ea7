//! SpMV and SpMM for symmetric storage ([`Symmetric`]): `A = T + Tᵀ − diag(T)` with only
//! the triangle `T` stored, each stored entry read once for both of its positions.
//!
//! Row `i` of `T` gives `y[i]` its dot product with `x` (the CSR row kernels of thesis
//! 8.3, on the width's registers for long rows) and scatters `alpha * x[i] * a_ij` into
//! `y[j]` for its off-diagonal entries (the transposed product of `level2::csc`, in the
//! same pass). Rows run top-down for a lower triangle and bottom-up for an upper one, so
//! every `y[i]` is first written by its own row: `beta` is applied there, and `beta ==
//! 0` never reads `y`. The matrix stream is half the full matrix's, the work per stored
//! entry twice (`benches/records/symmetric-*.md` compares both storages).
//!
//! Threads (feature `parallel`): rows in blocks of equal entries, each block writing its
//! own rows of `y` and scattering only into them; the entries whose column lies in an
//! earlier block (later, for an upper triangle) are scattered after every block is done,
//! block by block in the serial order, or all blocks at once where their targets lie in
//! disjoint blocks. No copy of `y`, no allocation beyond the partition, and every
//! addition happens in the serial order: the threaded SpMV gives the serial bits.

use core::ops::Range;

use super::spmm::{DenseLayout, DenseMut, DenseRef, SpMm, check_dense_shapes, scale_dense};
use super::{SpMv, check_spmv, scale_y};
use crate::arch::Checked;
use crate::arch::generic::spmm::{self as mm, RowMajor};
use crate::arch::generic::spmv_csr as kern;
use crate::arch::generic::spmv_sym::{Cross, SymBlock};
use crate::formats::{RowOrder, Symmetric, Triangle};
use crate::{DimError, Exec, Index, Scalar};

impl<T: Scalar, I: Index> SpMv<T> for Symmetric<'_, T, I> {
    /// `y = alpha * A * x + beta * y` in one pass over the stored triangle (module docs):
    /// `x` and `y` have `n` entries. Every `Isa` runs the same fused loop for short rows
    /// and its own dot product for long ones (within rounding of each other); threads
    /// (feature `parallel`, serial below the work threshold) give the serial bits.
    /// Duplicates add up; unsorted rows are fine.
    fn spmv(&self, exec: Exec, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
        let isa = exec.resolved_isa();
        let n = self.n();
        check_spmv(isa, n, n, x, y)?;
        let checked = Checked::new(isa)?;
        if alpha == T::ZERO {
            scale_y(beta, y);
            return Ok(());
        }
        #[cfg(feature = "parallel")]
        if exec.thread_limit() != 1 {
            crate::parallel::spmv_symmetric(self, checked, alpha, x, beta, y, exec.thread_limit());
            return Ok(());
        }
        sym_block_spmv(self, checked, 0..n, alpha, x, beta, y);
        Ok(())
    }
}

impl<T: Scalar, I: Index> SpMm<T> for Symmetric<'_, T, I> {
    /// `Y = alpha * A * X + beta * Y` in one pass over the stored triangle for all `k`
    /// columns: row-major `X` and `Y` by the width's SpMM register tiles, each tile of
    /// columns adding the row's dot products and scattering `alpha * a_ij * X[i, ..]`
    /// into row `j` of `Y` (FMA where the width has one); other layouts by a plain loop
    /// over blocks of four columns; one contiguous column (`k == 1`) by the SpMV. Threads
    /// (feature `parallel`): a row-major `Y` as the SpMV (the cross entries' scatter by a
    /// plain loop, so within rounding of the serial result where the width fuses), a
    /// column-major one by blocks of columns (the serial bits).
    fn spmm(
        &self,
        exec: Exec,
        alpha: T,
        x: DenseRef<'_, T>,
        beta: T,
        y: &mut DenseMut<'_, T>,
    ) -> Result<(), DimError> {
        let isa = exec.resolved_isa();
        let n = self.n();
        let checked = check_dense_shapes(isa, n, n, &x, y)?;
        if alpha == T::ZERO {
            scale_dense(beta, y);
            return Ok(());
        }
        #[cfg(feature = "parallel")]
        if exec.thread_limit() != 1 {
            crate::parallel::spmm_symmetric(self, checked, alpha, x, beta, y, exec.thread_limit());
            return Ok(());
        }
        let ys = y.layout().strides(y.ld());
        let cross = sym_block_spmm(self, checked, 0..n, 0..x.cols(), alpha, x, beta, y.data_mut(), ys);
        debug_assert!(cross.is_empty());
        Ok(())
    }
}

/// The block of rows `rows` of `a`'s triangle.
pub(crate) fn block<T: Scalar, I: Index>(a: &Symmetric<'_, T, I>, rows: Range<usize>) -> SymBlock {
    SymBlock {
        start: rows.start,
        end: rows.end,
        lower: a.triangle() == Triangle::Lower,
        canonical: a.triangle_csr().row_order() == RowOrder::Canonical,
    }
}

/// Rows `rows` of the symmetric SpMV into `y_rows` (`y`'s rows `rows`), scattering only
/// into them; returns the cross entries left for [`cross_step`]. Shapes checked by the
/// caller, `alpha != 0`. The chunk a thread driver hands to one worker; the whole matrix
/// has no cross entry.
pub(crate) fn sym_block_spmv<T: Scalar, I: Index>(
    a: &Symmetric<'_, T, I>,
    isa: Checked,
    rows: Range<usize>,
    alpha: T,
    x: &[T],
    beta: T,
    y_rows: &mut [T],
) -> Cross {
    let t = a.triangle_csr();
    let b = block(a, rows);
    kern::sym(isa, t.row_ptr(), t.col_idx(), t.vals(), x, alpha, beta, y_rows, b)
}

/// Rows `rows` and columns `cols` of the symmetric SpMM into `y` (its element `(r, c)`,
/// relative to the block's first row and column, at `r * ys.0 + c * ys.1`): a row-major
/// `Y` by the width's tiles (the SpMV's kernel for one contiguous column), any other by
/// [`strided`]. Returns the cross entries left for [`cross_step`]; shapes checked by
/// the caller, `alpha != 0`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn sym_block_spmm<T: Scalar, I: Index>(
    a: &Symmetric<'_, T, I>,
    isa: Checked,
    rows: Range<usize>,
    cols: Range<usize>,
    alpha: T,
    x: DenseRef<'_, T>,
    beta: T,
    y: &mut [T],
    ys: (usize, usize),
) -> Cross {
    let t = a.triangle_csr();
    let b = block(a, rows.clone());
    let xs = x.layout().strides(x.ld());
    // One contiguous column of `X` and of `Y`: the SpMV.
    if cols.len() == 1 && (ys.0 == 1 || rows.len() <= 1) && (xs.0 == 1 || x.rows() <= 1) {
        let off = cols.start * xs.1;
        if let (Some(xv), Some(yv)) = (x.data().get(off..off + x.rows()), y.get_mut(..rows.len())) {
            return kern::sym(isa, t.row_ptr(), t.col_idx(), t.vals(), xv, alpha, beta, yv, b);
        }
    }
    if x.layout() == DenseLayout::RowMajor && ys.1 == 1 && cols == (0..x.cols()) {
        let s = RowMajor { k: x.cols(), ldx: x.ld(), ldy: ys.0, ahead: false };
        return mm::sym(isa, t.row_ptr(), t.col_idx(), t.vals(), x.data(), alpha, beta, y, s, b);
    }
    strided(a, b, cols, alpha, x, beta, y, ys)
}

/// The plain symmetric SpMM for any strides: columns `cols` in blocks of four, each block
/// one pass over the block's rows in the triangle's order (dot products and scatters
/// together); `y` as in [`sym_block_spmm`].
#[allow(clippy::too_many_arguments)]
fn strided<T: Scalar, I: Index>(
    a: &Symmetric<'_, T, I>,
    b: SymBlock,
    cols: Range<usize>,
    alpha: T,
    x: DenseRef<'_, T>,
    beta: T,
    y: &mut [T],
    ys: (usize, usize),
) -> Cross {
    const B: usize = 4;
    let t = a.triangle_csr();
    let (row_ptr, col_idx, vals) = (t.row_ptr(), t.col_idx(), t.vals());
    let xs = x.layout().strides(x.ld());
    let xd = x.data();
    let mut cross = Cross::NONE;
    let mut c0 = cols.start;
    while c0 < cols.end {
        let nb = B.min(cols.end - c0);
        let yc = c0 - cols.start;
        let mut row = |i: usize| {
            let (lower, r) = (b.lower, row_ptr[i].to_usize()..row_ptr[i + 1].to_usize());
            let (w0, wn) = if lower { b.window::<true>(i) } else { b.window::<false>(i) };
            let mut xi = [T::ZERO; B];
            for (c, v) in xi[..nb].iter_mut().enumerate() {
                *v = alpha * xd[i * xs.0 + (c0 + c) * xs.1];
            }
            let mut acc = [T::ZERO; B];
            for (&j, &v) in col_idx[r.clone()].iter().zip(&vals[r]) {
                let j = j.to_usize();
                let base = j * xs.0 + c0 * xs.1;
                for (c, s) in acc[..nb].iter_mut().enumerate() {
                    *s += v * xd[base + c * xs.1];
                }
                let o = j.wrapping_sub(w0);
                if o < wn {
                    let yj = (w0 - b.start + o) * ys.0 + yc * ys.1;
                    for (c, &s) in xi[..nb].iter().enumerate() {
                        y[yj + c * ys.1] += v * s;
                    }
                } else if (lower && j < b.start) || (!lower && j >= b.end) {
                    cross.add(i, j, j + 1);
                }
            }
            for (c, &s) in acc[..nb].iter().enumerate() {
                let yi = &mut y[(i - b.start) * ys.0 + (yc + c) * ys.1];
                *yi = super::axpby(alpha, s, beta, *yi);
            }
        };
        if b.lower {
            (b.start..b.end).for_each(&mut row);
        } else {
            (b.start..b.end).rev().for_each(&mut row);
        }
        c0 += nb;
    }
    cross
}

/// The second step of a split symmetric product: `Y[j, c] += (alpha * X[i, c]) * a_ij`
/// for the cross entries of block `b` (rows `cross.rows`, in the triangle's order;
/// columns `0..k`), `y` holding `Y`'s rows from `y_row0` (element `(j, c)` at `(j -
/// y_row0) * ys.0 + c * ys.1`). Targets outside `y` are skipped (none for the block's
/// own cross entries). For `k == 1` the serial kernel's operations, in its order.
#[cfg(feature = "parallel")]
#[allow(clippy::too_many_arguments)]
pub(crate) fn cross_step<T: Scalar, I: Index>(
    a: &Symmetric<'_, T, I>,
    b: SymBlock,
    cross: Cross,
    alpha: T,
    x: (&[T], (usize, usize)),
    k: usize,
    y: &mut [T],
    y_row0: usize,
    ys: (usize, usize),
) {
    if cross.is_empty() {
        return;
    }
    let t = a.triangle_csr();
    let (row_ptr, col_idx, vals) = (t.row_ptr(), t.col_idx(), t.vals());
    let (xd, xs) = x;
    let mut row = |i: usize| {
        let r = row_ptr[i].to_usize()..row_ptr[i + 1].to_usize();
        for (&j, &v) in col_idx[r.clone()].iter().zip(&vals[r]) {
            let j = j.to_usize();
            let crosses = if b.lower { j < b.start } else { j >= b.end };
            let Some(rel) = j.checked_sub(y_row0).filter(|_| crosses) else { continue };
            for c in 0..k {
                let s = alpha * xd[i * xs.0 + c * xs.1];
                if let Some(yv) = y.get_mut(rel * ys.0 + c * ys.1) {
                    *yv += v * s;
                }
            }
        }
    };
    let rows = cross.rows.0..cross.rows.1.min(a.n());
    if b.lower {
        rows.for_each(&mut row);
    } else {
        rows.rev().for_each(&mut row);
    }
}
