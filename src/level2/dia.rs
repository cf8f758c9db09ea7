//! DIA SpMV (thesis 5.2.1) of [`Dia`] and of the plans' blocked copy: a block of rows at
//! a time, the diagonals streamed past sums held in registers (no indices read; the
//! kernel, [`crate::arch::generic::dia`], runs on each width). Each row adds the slots of
//! the diagonals that meet it in offset order (so by increasing column), as a row-by-row
//! loop does, and gets bit for bit the same result. [`super::SpmvPlan`] runs it for
//! matrices whose diagonals hold almost every slot ([`super::SpmvChoice::Dia`]).

use super::{SpMv, check_spmv};
use crate::Index;
use crate::arch::Checked;
use crate::arch::generic::dia::{Blocks, blocks_rows};
use crate::formats::Csr;
use crate::formats::Dia;
use crate::{DimError, Exec, Scalar};

impl<T: Scalar> SpMv<T> for Dia<'_, T> {
    /// Padding slots (column outside `0..ncols`) are never read. Zero slots inside the
    /// matrix are multiplied like any value, as a dense product would (DIA cannot tell
    /// them from entries). Runs on `exec`'s width, one thread.
    fn spmv(&self, exec: Exec, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
        let isa = exec.resolved_isa();
        check_spmv(isa, self.nrows(), self.ncols(), x, y)?;
        let blocks = Blocks {
            nrows: self.nrows(),
            ncols: self.ncols(),
            block: DIA_BLOCK,
            block_stride: DIA_BLOCK,
            diag_stride: self.nrows(),
            offsets: self.offsets(),
            data: self.data(),
        };
        blocks_rows(Checked::new(isa)?, blocks, 0, alpha, x, beta, y);
        Ok(())
    }
}

/// Rows of one block as the kernel addresses [`Dia`] (whole diagonals, `diag_stride =
/// nrows`): the block only bounds the strips and the edge path's stretches, so any
/// multiple of every width's strip serves.
const DIA_BLOCK: usize = 64;

/// Rows of one block of [`DiaBlocksRef`]: the widest width's strip (32 rows, a multiple
/// of every width's), so a strip reads its slots of all diagonals as one stretch of
/// memory. Blocks of 256 rows, read a strip at a time, made the strips jump 2 KiB between
/// diagonals and ran the peer suite's stencils at 0.6–0.8 of the old per-diagonal loop
/// (`benches/records/peers-dia-*`).
pub(crate) const BLOCK_ROWS: usize = 32;

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
    /// The rows `first..first + y_rows.len()` of `y = alpha * A * x + beta * y` on
    /// `isa`'s width, as [`Dia`]'s SpMV computes them (the same sums in the same order),
    /// lengths checked by the caller.
    pub(crate) fn rows(&self, isa: Checked, first: usize, alpha: T, x: &[T], beta: T, y_rows: &mut [T]) {
        let blocks = Blocks {
            nrows: self.nrows,
            ncols: self.ncols,
            block: BLOCK_ROWS,
            block_stride: self.offsets.len() * BLOCK_ROWS,
            diag_stride: BLOCK_ROWS,
            offsets: self.offsets,
            data: self.data,
        };
        blocks_rows(isa, blocks, first, alpha, x, beta, y_rows);
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
