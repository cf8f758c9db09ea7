//! DIA SpMV (thesis 5.2.1): a block of rows at a time, adding each diagonal's in-range
//! part of the block in memory order (no indices read, `x` and the values streamed; the
//! loop vectorises across rows). Each row adds the slots of the diagonals that meet it in
//! offset order (so by increasing column), as a row-by-row loop does, and gets bit for
//! bit the same result. [`super::SpmvPlan`] runs it for matrices whose diagonals hold
//! almost every slot ([`super::SpmvChoice::Dia`]).

use super::{SpMv, axpby, check_spmv, scale_y};
use crate::Index;
use crate::formats::Dia;
use crate::formats::{Csr, dia::row_range};
use crate::{DimError, Exec, Scalar};

impl<T: Scalar> SpMv<T> for Dia<'_, T> {
    /// Padding slots (column outside `0..ncols`) are never read. Zero slots inside the
    /// matrix are multiplied like any value, as a dense product would (DIA cannot tell
    /// them from entries). Every available [`Isa`](crate::Isa) runs this loop.
    fn spmv(&self, exec: Exec, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
        let isa = exec.resolved_isa();
        check_spmv(isa, self.nrows(), self.ncols(), x, y)?;
        dia_rows(self, 0, alpha, x, beta, y);
        Ok(())
    }
}

/// Rows a block of [`dia_rows`] sums at once: every diagonal's stretch of a block is read
/// before the next block's, so all the diagonals stream together and no stream stops at
/// each 4 KiB page (blocks of 512 `f64` rows, one page a diagonal, ran the stencils at
/// half the read bandwidth).
const DIA_BLOCK: usize = 64;

/// The rows `first..first + y_rows.len()` of `y = alpha * A * x + beta * y` (`y_rows`
/// holding exactly those rows, lengths checked by the caller): the serial kernel, and the
/// chunk a thread driver hands to one worker. Each row's sum is the same whatever the
/// chunk, so any partition of the rows gives the serial bits.
pub(crate) fn dia_rows<T: Scalar>(
    a: &Dia<'_, T>,
    first: usize,
    alpha: T,
    x: &[T],
    beta: T,
    y_rows: &mut [T],
) {
    if alpha == T::ZERO {
        scale_y(beta, y_rows);
        return;
    }
    let (m, offsets, data) = (a.nrows(), a.offsets(), a.data());
    let mut acc = [T::ZERO; DIA_BLOCK];
    for (b, y_blk) in y_rows.chunks_mut(DIA_BLOCK).enumerate() {
        let r0 = first + b * DIA_BLOCK;
        let acc = &mut acc[..y_blk.len()];
        acc.fill(T::ZERO);
        // `m > 0` here: `y_rows` holds rows of the matrix.
        for (diag, &off) in data.chunks_exact(m).zip(offsets) {
            // Rows of this block whose slot on the diagonal lies inside the matrix;
            // row i's slot meets column i + off.
            let in_range = a.row_range(off);
            let (lo, hi) = (in_range.start.max(r0), in_range.end.min(r0 + acc.len()));
            if lo >= hi {
                continue;
            }
            add_diagonal(&mut acc[lo - r0..hi - r0], &diag[lo..hi], x, lo, off);
        }
        put_block(y_blk, acc, alpha, beta);
    }
}

/// `acc[k] += vals[k] * x[first + k + off]`: one diagonal's stretch of a block, rows
/// `first..first + acc.len()`, all inside the matrix (the caller clipped them).
#[inline(always)]
fn add_diagonal<T: Scalar>(acc: &mut [T], vals: &[T], x: &[T], first: usize, off: isize) {
    let x0 = first.wrapping_add_signed(off);
    let xs = &x[x0..x0 + acc.len()];
    for ((a, &v), &xj) in acc.iter_mut().zip(vals).zip(xs) {
        *a += v * xj;
    }
}

/// `y[k] = alpha * acc[k] + beta * y[k]` for a finished block.
#[inline(always)]
fn put_block<T: Scalar>(y: &mut [T], acc: &[T], alpha: T, beta: T) {
    for (yi, &dot) in y.iter_mut().zip(acc) {
        *yi = axpby(alpha, dot, beta, *yi);
    }
}

/// Rows of one block of [`DiaBlocksRef`]: its slots of all diagonals are one stretch of
/// memory, so the block may be long enough to spread the per-diagonal bookkeeping thin.
pub(crate) const BLOCK_ROWS: usize = 256;

/// A DIA copy laid out by row blocks, the plans' DIA (`SpmvChoice::Dia`): block `b`
/// holds its [`BLOCK_ROWS`] slots of every diagonal one after another, so an SpMV reads
/// the values as one stream. [`crate::Dia`]'s layout (each diagonal whole) reads one
/// stream per diagonal, and where `nrows` is a multiple of a large power of two those
/// streams meet in the same cache sets and evict each other (a 64³ grid: 27 streams
/// 2 MiB apart). Borrowed: the owned plan's copy ([`DiaBlocks`]) or caller buffers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DiaBlocksRef<'s, T> {
    pub(crate) nrows: usize,
    pub(crate) ncols: usize,
    pub(crate) offsets: &'s [isize],
    pub(crate) data: &'s [T],
}

/// Slots of the blocked copy of an `nrows`-row matrix on `ndiag` diagonals; `None` on
/// overflow.
pub(crate) fn blocks_len(nrows: usize, ndiag: usize) -> Option<usize> {
    nrows.div_ceil(BLOCK_ROWS).checked_mul(ndiag)?.checked_mul(BLOCK_ROWS)
}

/// Fills `data` (at least [`blocks_len`] long) with the blocked copy of a canonical `a`
/// on the diagonals `offsets` (sorted, holding every entry's diagonal), each entry added
/// to its zeroed slot as [`crate::DiaOwned::from_csr`] does.
pub(crate) fn fill_blocks<T: Scalar, I: Index>(a: &Csr<'_, T, I>, offsets: &[isize], data: &mut [T]) {
    let ndiag = offsets.len();
    data.fill(T::ZERO);
    for (i, j, v) in a.iter() {
        if let Ok(d) = offsets.binary_search(&(j as isize - i as isize))
            && let Some(slot) = data.get_mut(((i / BLOCK_ROWS) * ndiag + d) * BLOCK_ROWS + i % BLOCK_ROWS)
        {
            *slot += v;
        }
    }
}

impl<T: Scalar> DiaBlocksRef<'_, T> {
    /// The rows `first..first + y_rows.len()` of `y = alpha * A * x + beta * y`, as
    /// [`dia_rows`] computes them (the same sums in the same order), lengths checked by
    /// the caller.
    pub(crate) fn rows(&self, first: usize, alpha: T, x: &[T], beta: T, y_rows: &mut [T]) {
        if alpha == T::ZERO {
            scale_y(beta, y_rows);
            return;
        }
        let (m, ndiag) = (self.nrows, self.offsets.len());
        let mut acc = [T::ZERO; BLOCK_ROWS];
        let end = first + y_rows.len();
        let mut r = first;
        while r < end {
            let b = r / BLOCK_ROWS;
            let (b0, b1) = (b * BLOCK_ROWS, ((b + 1) * BLOCK_ROWS).min(m));
            let rows = r..b1.min(end);
            let acc = &mut acc[..rows.len()];
            acc.fill(T::ZERO);
            let slots = self.data.get(b * ndiag * BLOCK_ROWS..).unwrap_or(&[]);
            for (d, &off) in self.offsets.iter().enumerate() {
                // Rows of `rows` whose column `i + off` lies in `0..ncols`.
                let in_range = row_range(m, self.ncols, off);
                let (lo, hi) = (in_range.start.max(rows.start), in_range.end.min(rows.end));
                if lo >= hi {
                    continue;
                }
                let Some(vals) = slots.get(d * BLOCK_ROWS + (lo - b0)..d * BLOCK_ROWS + (hi - b0)) else {
                    continue;
                };
                add_diagonal(&mut acc[lo - rows.start..hi - rows.start], vals, x, lo, off);
            }
            put_block(&mut y_rows[rows.start - first..rows.end - first], acc, alpha, beta);
            r = rows.end;
        }
    }
}

/// The owned blocked copy of an [`crate::SpmvPlan`] (feature `alloc`).
#[cfg(feature = "alloc")]
#[derive(Clone, Debug)]
pub(crate) struct DiaBlocks<T> {
    nrows: usize,
    ncols: usize,
    offsets: alloc::vec::Vec<isize>,
    data: alloc::vec::Vec<T>,
}

#[cfg(feature = "alloc")]
impl<T: Scalar> DiaBlocks<T> {
    /// The blocked copy of a canonical `a` on the diagonals `offsets` ([`fill_blocks`]);
    /// `None` if its memory cannot be had.
    pub(crate) fn from_csr<I: Index>(a: &Csr<'_, T, I>, offsets: alloc::vec::Vec<isize>) -> Option<Self> {
        let len = blocks_len(a.nrows(), offsets.len())?;
        let mut data = alloc::vec::Vec::new();
        data.try_reserve_exact(len).ok()?;
        data.resize(len, T::ZERO);
        fill_blocks(a, &offsets, &mut data);
        Some(DiaBlocks { nrows: a.nrows(), ncols: a.ncols(), offsets, data })
    }

    /// The copy, borrowed.
    pub(crate) fn view(&self) -> DiaBlocksRef<'_, T> {
        DiaBlocksRef { nrows: self.nrows, ncols: self.ncols, offsets: &self.offsets, data: &self.data }
    }
}
