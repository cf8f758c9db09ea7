//! Level 2: sparse matrix-vector multiplication (thesis chapter 8), one trait for every
//! format.
//!
//! Every format implements [`SpMv`] with BLAS semantics `y = alpha * A * x + beta * y`.
//! When `beta == 0`, `y` is only written, never read, so NaN or garbage in `y` cannot
//! leak; when `alpha == 0`, `A` and `x` are not read (BLAS convention) and `y = beta * y`.
//! Duplicate entries add up. The per-format reference loops here are deliberately plain:
//! they are the oracle the SIMD kernels of later chapters are tested against.

mod coo;
pub(crate) mod csr;
mod dia;
mod ell;
mod hyb;
mod jds;
mod sell;

use crate::{DimError, Isa, Scalar};

/// `y = alpha * A * x + beta * y` for a sparse `A` (thesis chapter 8).
pub trait SpMv<T: Scalar> {
    /// Runs on the widest [`Isa`] this machine has ([`Isa::detect`]).
    ///
    /// # Errors
    /// [`DimError::Length`] if `x.len() != ncols` or `y.len() != nrows`; `y` is untouched.
    fn spmv(&self, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
        self.spmv_isa(Isa::detect(), alpha, x, beta, y)
    }

    /// Runs on the given [`Isa`]. Every `Isa` computes the same products; the order of
    /// additions may differ between them (within floating-point rounding).
    ///
    /// # Errors
    /// [`DimError::IsaUnavailable`] if this machine cannot run `isa`, [`DimError::Length`]
    /// if `x.len() != ncols` or `y.len() != nrows`; `y` is untouched in both cases.
    fn spmv_isa(&self, isa: Isa, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError>;
}

/// The checks every SpMV makes before touching `y`.
pub(crate) fn check_spmv<T>(isa: Isa, nrows: usize, ncols: usize, x: &[T], y: &[T]) -> Result<(), DimError> {
    crate::primitives::check_isa(isa)?;
    if x.len() != ncols {
        return Err(DimError::Length { operand: "x", expected: ncols, got: x.len() });
    }
    if y.len() != nrows {
        return Err(DimError::Length { operand: "y", expected: nrows, got: y.len() });
    }
    Ok(())
}

/// `y = beta * y`, writing zeros (not `0 * y`) when `beta == 0`, so NaN in `y` cannot leak.
pub(crate) fn scale_y<T: Scalar>(beta: T, y: &mut [T]) {
    if beta == T::ZERO {
        y.fill(T::ZERO);
    } else if beta != T::ONE {
        y.iter_mut().for_each(|v| *v *= beta);
    }
}

/// One row's result: `alpha * dot + beta * y`, without reading `y` when `beta == 0`.
#[inline(always)]
pub(crate) fn axpby<T: Scalar>(alpha: T, dot: T, beta: T, y: T) -> T {
    if beta == T::ZERO { alpha * dot } else { alpha * dot + beta * y }
}
