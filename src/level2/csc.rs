//! The transposed CSR product `y = alpha * Aᵀ * x + beta * y` without forming `Aᵀ`, and
//! CSC SpMV, which is the same kernel: a CSC matrix's arrays are the CSR of its
//! transpose, so its `A * x` is that CSR's transposed product.
//!
//! Row `i` of `A` scatters `alpha * x[i] * a_ij` into `y[j]` (the column-oriented SpMV of
//! thesis 5.2.4 / 8.2, read by rows): each add a load and a store of its own `y[j]`,
//! except runs of consecutive columns, which are added a register at a time
//! (`arch::generic::scatter`; `benches/records/transpose-*.md` compares it with `A * x`
//! on the same matrices).

use core::ops::Range;

use super::{SpMv, check_spmv, scale_y};
use crate::arch::Checked;
use crate::formats::{Csc, Csr};
use crate::{DimError, Exec, Index, Isa, Scalar};

impl<T: Scalar, I: Index> SpMv<T> for Csc<'_, T, I> {
    /// [`spmv_csr_transpose`] on the CSR of `Aᵀ` ([`Csc::as_transposed_csr`]): threads
    /// as there.
    fn spmv(&self, exec: Exec, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
        spmv_csr_transpose(exec, &self.as_transposed_csr(), alpha, x, beta, y)
    }
}

/// `y = alpha * Aᵀ * x + beta * y` for CSR `a` (`x` has `nrows` entries, `y` has
/// `ncols`) on `exec`, by scattering each row into `y`: no copy of `Aᵀ`, no scratch on
/// one thread. Scattered columns cost a load and a store each on every `Isa`; runs of
/// consecutive columns take whole registers of `exec`'s width (the same bits). Where the same `Aᵀ` multiplies many vectors, forming it
/// once ([`Csr::transpose_into`]) and running its [`SpMv`](super::SpMv) turns the scatter
/// into row dot products, as MKL's `mkl_sparse_optimize` does with a transpose hint
/// (`benches/records/peers-ops-*.md`).
///
/// BLAS semantics: `beta == 0` never reads `y` (NaN in `y` cannot leak); `alpha == 0`
/// reads neither `A` nor `x` and gives `y = beta * y`. Unsorted rows and duplicates are
/// fine (duplicates add up).
///
/// With more than one thread (feature `parallel`), rows are cut into blocks of about
/// equal entries ([`balanced_row_partition`](super::balanced_row_partition)); the first
/// block scatters into `y`, each other into a zeroed `y` of its own (allocated, fallibly),
/// and the copies are then added into `y` by column blocks in parallel: within rounding
/// of the serial result. Fewer tasks than asked when the copies would outweigh the
/// entries (a task per `ncols` rows plus entries at most); serial below the threads'
/// work threshold.
///
/// # Errors
/// [`DimError::IsaUnavailable`] if this machine cannot run `exec`'s `Isa`,
/// [`DimError::Length`] if `x.len() != nrows` or `y.len() != ncols`;
/// [`DimError::Overflow`] (`"room"`) if a thread's copy of `y` cannot be allocated. `y` is
/// untouched in every case.
pub fn spmv_csr_transpose<T: Scalar, I: Index>(
    exec: Exec,
    a: &Csr<'_, T, I>,
    alpha: T,
    x: &[T],
    beta: T,
    y: &mut [T],
) -> Result<(), DimError> {
    let isa = exec.resolved_isa();
    #[cfg(feature = "parallel")]
    if exec.thread_limit() != 1 {
        let op = crate::parallel::Operands { alpha, x, beta };
        return crate::parallel::spmv_csr_transpose(a, isa, op, y, exec.thread_limit());
    }
    serial_transpose(a, isa, alpha, x, beta, y)
}

/// [`spmv_csr_transpose`] on the calling thread.
pub(crate) fn serial_transpose<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    isa: Isa,
    alpha: T,
    x: &[T],
    beta: T,
    y: &mut [T],
) -> Result<(), DimError> {
    check_spmv(isa, a.ncols(), a.nrows(), x, y)?;
    let isa = Checked::new(isa)?;
    scale_y(beta, y);
    if alpha != T::ZERO {
        scatter_rows(a, isa, 0..a.nrows(), alpha, x, y);
    }
    Ok(())
}

/// `y += alpha * A[rows, :]ᵀ * x[rows]`: the rows `rows` scattered into all of `y` on
/// `isa`'s width (`arch::generic::scatter`); the chunk a thread driver hands to one
/// worker. Lengths checked by the caller (`x.len() == nrows`, `y.len() == ncols`, `rows`
/// within `0..nrows`).
pub(crate) fn scatter_rows<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    isa: Checked,
    rows: Range<usize>,
    alpha: T,
    x: &[T],
    y: &mut [T],
) {
    let canonical = a.row_order() == crate::RowOrder::Canonical;
    crate::arch::generic::scatter::scatter_rows(
        isa,
        canonical,
        a.row_ptr(),
        a.col_idx(),
        a.vals(),
        rows,
        alpha,
        x,
        y,
    );
}
