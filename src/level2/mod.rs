//! Level 2: sparse matrix-vector multiplication (thesis chapter 8), one trait for every
//! format.
//!
//! Every format implements [`SpMv`] with BLAS semantics `y = alpha * A * x + beta * y`.
//! When `beta == 0`, `y` is only written, never read, so NaN or garbage in `y` cannot
//! leak; when `alpha == 0`, `A` and `x` are not read (BLAS convention) and `y = beta * y`.
//! Duplicate entries add up. The per-format reference loops here are deliberately plain:
//! they are the oracle the SIMD kernels of later chapters are tested against.
//!
//! CSR has five methods without conversion (thesis 8.3–8.4: row-scalar, row-vector,
//! segmented sum, speculative segmented sum, and merge path): [`spmv_csr`] runs any of
//! them by [`CsrMethod`]; `SpMv for Csr` runs [`CsrMethod::choose`]'s pick (a fixed
//! O(1) rule), and with `std` [`CsrMethod::tune`] picks by timing every method on the
//! matrix on this machine. Where the matrix is multiplied many times, [`SpmvPlan`]
//! (feature `alloc`) also weighs CSR5 (converting once): by rule
//! ([`SpmvChoice::choose`]) or by timing ([`SpmvPlan::tune`]).
//!
//! `y = alpha * Aᵀ * x + beta * y` on a CSR `A` is [`spmv_csr_transpose`] (rows scattered
//! into `y`, no copy of `Aᵀ`), which is also the SpMV of [`crate::Csc`].
//!
//! The sparse triangular solve ([`trsv`], [`trsm`], [`TriangularSolve`]; the Sparse BLAS
//! `ussv`) lives here too: serial substitution, level sets and the synchronization-free
//! method of the thesis author's follow-up (Euro-Par 2016).
//!
//! [`SpMm`] multiplies by a dense block of `k` columns ([`DenseRef`], [`DenseMut`]),
//! reading the matrix once for many vectors: CSR by rows ([`spmm_csr`]), CSR5 by tiles
//! ([`spmm_csr5`]; by tile ranges plus `k`-wide carries, [`csr5::spmm_tiles`]), and
//! [`SpmvPlan`] / [`SpmvPlanView`] on the format they planned.
//!
//! A symmetric matrix stored as one triangle ([`Symmetric`](crate::Symmetric)) has
//! [`SpMv`] and [`SpMm`] too: one pass over the triangle, each row's dot product (the CSR
//! row kernels) and the scatter of its transposed part together, rows in the order that
//! lets each row write its own result first; threads split rows into blocks that
//! scatter only into their own rows, the entries reaching other blocks added after.

mod coo;
pub(crate) mod csc;
pub(crate) mod csr;
pub mod csr5;
pub(crate) mod dia;
mod ell;
mod hyb;
mod jds;
pub(crate) mod plan;
mod sell;
pub(crate) mod spmm;
pub(crate) mod symmetric;
pub(crate) mod trsv;

pub use csc::spmv_csr_transpose;
pub use csr::{CsrMethod, merge_path_splits, spmv_csr, spmv_merge_path_piece};
pub use csr5::spmm_csr5;
#[cfg(feature = "parallel")]
pub(crate) use plan::{Run, spmv_panels};
pub use plan::{SpmvChoice, SpmvPlanLayout, SpmvPlanView};
#[cfg(feature = "alloc")]
pub use plan::{SpmvConfig, SpmvPlan};
pub use spmm::{DenseLayout, DenseMut, DenseRef, SpMm, spmm_csr};
pub use trsv::{Diagonal, Triangle, TriangularSolve, TrsvMethod, check_triangular, trsm, trsv};

use crate::{DimError, Exec, Index, Isa, Scalar};

/// `y = alpha * A * x + beta * y` for a sparse `A` (thesis chapter 8).
pub trait SpMv<T: Scalar> {
    /// Runs on `exec`'s [`Isa`] ([`Exec::new`]: the widest this machine
    /// has). Every `Isa` computes the same products; the order of additions may differ
    /// between them (within floating-point rounding). CSR, CSR5 and [`SpmvPlan`] use
    /// `exec`'s threads (feature `parallel`): rows split by entries, CSR5 tiles split
    /// evenly, each chunk by the serial kernel; the other formats run on the calling
    /// thread.
    ///
    /// # Errors
    /// [`DimError::IsaUnavailable`] if this machine cannot run `exec`'s `Isa`,
    /// [`DimError::Length`] if `x.len() != ncols` or `y.len() != nrows`; `y` is untouched
    /// in both cases.
    fn spmv(&self, exec: Exec, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError>;
}

/// The part of one row's sum that a chunk of a split SpMV did not finish — a merge-path
/// piece ([`spmv_merge_path_piece`]) or a CSR5 tile range ([`csr5::spmv_tiles`]); the
/// thesis's calibrator (8.5), returned as a value so nothing needs resetting between
/// calls. Add it with [`apply_carries`] once every chunk has run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Carry<T> {
    /// The row the partial sum belongs to; `nrows` (the end of the matrix) carries nothing.
    pub row: usize,
    /// `alpha` times the sum of that row's entries inside the chunk.
    pub value: T,
}

/// Adds the carries of the chunks of a split SpMV to `y` (`y[c.row] += c.value`), after
/// every chunk has run (a row's first chunk may finish after the chunk that writes it).
/// Carries with `row == y.len()` (the end of the matrix) are skipped.
///
/// # Errors
/// [`DimError::Parameter`] (`"carry.row"`) if a carry's row lies past `y.len()`; `y` is
/// untouched then.
pub fn apply_carries<T: Scalar>(carries: &[Carry<T>], y: &mut [T]) -> Result<(), DimError> {
    if let Some(c) = carries.iter().find(|c| c.row > y.len()) {
        return Err(DimError::Parameter { name: "carry.row", value: c.row });
    }
    for c in carries {
        if let Some(yr) = y.get_mut(c.row) {
            *yr += c.value;
        }
    }
    Ok(())
}

/// Splits the rows of `a` into `parts` contiguous ranges holding about `nnz / parts`
/// entries each (plus one row's worth of slack), by binary search on `row_ptr` — the
/// row-block partition of thesis 8.3 balanced by entries rather than rows. Writes
/// `parts + 1` boundaries into `bounds` (`bounds[0] = 0`, `bounds[parts] = nrows`): the
/// split [`SpMv`]'s CSR threads use, for runtimes that run row ranges on threads of their
/// own.
///
/// # Errors
/// [`DimError::BufferTooSmall`] if `bounds.len() < parts + 1`.
pub fn balanced_row_partition<T: Scalar, I: Index>(
    a: &crate::Csr<'_, T, I>,
    parts: usize,
    bounds: &mut [usize],
) -> Result<(), DimError> {
    let parts = parts.max(1);
    if bounds.len() < parts + 1 {
        return Err(DimError::BufferTooSmall { buffer: "bounds", needed: parts + 1, got: bounds.len() });
    }
    let (m, nnz) = (a.nrows(), a.nnz());
    let row_ptr = a.row_ptr();
    bounds[0] = 0;
    for (p, b) in bounds[1..parts].iter_mut().enumerate() {
        // Work of a row = its entries + 1, so runs of empty rows are split too.
        let target = ((nnz + m) as u128 * (p as u128 + 1) / parts as u128) as usize;
        // The part ends after the first row r whose cumulative work
        // (row_ptr[r + 1] + r + 1) reaches the target.
        let (mut lo, mut hi) = (0, m);
        while lo < hi {
            let r = lo + (hi - lo) / 2;
            if row_ptr[r + 1].to_usize() + r + 1 < target {
                lo = r + 1;
            } else {
                hi = r;
            }
        }
        *b = (lo + 1).min(m);
    }
    bounds[parts] = m;
    for p in 1..=parts {
        bounds[p] = bounds[p].max(bounds[p - 1]);
    }
    Ok(())
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

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use crate::Exec;
    extern crate std;
    use std::vec::Vec;

    use super::SpMv;
    use crate::formats::{CsrOwned, DiaOwned, EllOwned, HybOwned, JdsOwned, SellOwned};
    use crate::{Isa, Scalar};

    /// One format's SpMV into the given `y`.
    type Run<'r> = &'r dyn Fn(&mut [f64]);

    /// A matrix of `m` rows spanning several row blocks of the ELL/SELL/JDS/DIA loops
    /// (512 rows with `std`, 64 without), near-banded so DIA stays small, with empty rows
    /// and one long row.
    fn blocky(m: usize) -> CsrOwned<f64, u32> {
        let mut t = Vec::new();
        for i in 0..m {
            let len = if i == m / 3 { 40 } else { (i * 7 + 3) % 6 };
            for k in 0..len {
                let j = (i + k * 3) % m;
                t.push((i, j, ((i * 31 + k * 17) % 13) as f64 - 6.0));
            }
        }
        CsrOwned::from_triplets(m, m, &t).unwrap()
    }

    /// Every format's storage-order loop adds each row's entries in CSR order, so its
    /// product equals the CSR row loop bit for bit, across row-block edges.
    #[test]
    fn blocked_format_loops_equal_the_csr_row_loop_bitwise_across_blocks() {
        for m in [1usize, 63, 64, 65, 130, 511, 512, 513, 1100] {
            let a = blocky(m);
            let a = a.view();
            let x: Vec<f64> = (0..m).map(|j| f64::from_f64(((j * 5) % 11) as f64 * 0.5 - 2.0)).collect();
            let y0: Vec<f64> = (0..m).map(|i| (i % 7) as f64).collect();
            for isa in Isa::available() {
                for (alpha, beta) in [(1.0, 0.0), (-2.0, 0.5)] {
                    let mut want = y0.clone();
                    a.spmv(Exec::from(isa), alpha, &x, beta, &mut want).unwrap();
                    let formats: [(&str, Run<'_>); 4] = [
                        ("ell", &|y| {
                            EllOwned::from_csr(&a)
                                .unwrap()
                                .view()
                                .spmv(Exec::from(isa), alpha, &x, beta, y)
                                .unwrap()
                        }),
                        ("sell", &|y| {
                            SellOwned::from_csr_slice_height(&a, 100)
                                .unwrap()
                                .view()
                                .spmv(Exec::from(isa), alpha, &x, beta, y)
                                .unwrap()
                        }),
                        ("jds", &|y| {
                            JdsOwned::from_csr(&a)
                                .unwrap()
                                .view()
                                .spmv(Exec::from(isa), alpha, &x, beta, y)
                                .unwrap()
                        }),
                        ("dia", &|y| {
                            DiaOwned::from_csr(&a)
                                .unwrap()
                                .view()
                                .spmv(Exec::from(isa), alpha, &x, beta, y)
                                .unwrap()
                        }),
                    ];
                    for (name, run) in formats {
                        let mut y = y0.clone();
                        run(&mut y);
                        let same = y.iter().zip(&want).all(|(p, q)| p.to_bits() == q.to_bits());
                        assert!(same, "{name}, m = {m}, isa {isa}");
                    }
                    // HYB splits rows between ELL and COO, so its sums associate differently.
                    let mut y = y0.clone();
                    HybOwned::from_csr(&a)
                        .unwrap()
                        .view()
                        .spmv(Exec::from(isa), alpha, &x, beta, &mut y)
                        .unwrap();
                    for (p, q) in y.iter().zip(&want) {
                        assert!((p - q).abs() <= 1e-9 * (1.0 + q.abs()), "hyb, m = {m}");
                    }
                }
            }
        }
    }
}
