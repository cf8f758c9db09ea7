//! Symmetric storage: a real symmetric matrix `A = T + Tᵀ − diag(T)` kept as one of its
//! triangles `T` in CSR (the `SPARSE_MATRIX_TYPE_SYMMETRIC` of MKL, cuSPARSE's and
//! faer's symmetric views), so a product reads about half the bytes of the full matrix.
//!
//! The thesis stores every matrix whole; this is the Sparse BLAS symmetric property on
//! top of its CSR (5.2.4). [`Symmetric`] checks that the stored entries lie in the
//! declared [`Triangle`] (the check the triangular solve makes, shared with it), and its
//! [`SpMv`](crate::SpMv) / [`SpMm`](crate::SpMm) read each stored entry once for both of
//! its positions (`level2` module docs).

use crate::formats::{Csr, RowOrder};
use crate::{DimError, FormatError, Index, Scalar};

/// Which triangle of a square matrix is stored: of a triangular factor
/// ([`level2::trsv`](crate::level2::trsv): rows solved top-down for [`Triangle::Lower`],
/// bottom-up for [`Triangle::Upper`]) or of a symmetric matrix ([`Symmetric`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Triangle {
    /// Entries on or below the diagonal (`col <= row`).
    Lower,
    /// Entries on or above the diagonal (`col >= row`).
    Upper,
}

/// A real symmetric matrix stored as one triangle of a square CSR matrix: `A[i][j] =
/// A[j][i] = T[i][j]` for every stored entry of `T`, the diagonal stored (or not: a
/// missing diagonal is zero) once.
///
/// Invariants (checked by [`Symmetric::new`]): the CSR is square and every stored entry
/// lies in `triangle` (on the diagonal or on its side of it). Rows may be unsorted and
/// hold duplicates (their values add up, on both sides of the diagonal).
#[derive(Clone, Copy, Debug)]
pub struct Symmetric<'a, T, I> {
    t: Csr<'a, T, I>,
    triangle: Triangle,
}

impl<'a, T: Scalar, I: Index> Symmetric<'a, T, I> {
    /// The symmetric matrix whose `triangle` is `t`, after checking that `t` is square and
    /// every entry lies in that triangle: one pass over the entries (one or two entries a
    /// row where `t` is [`RowOrder::Canonical`]), the check
    /// [`check_triangular`](crate::level2::check_triangular) makes with a unit diagonal.
    ///
    /// Errors are [`DimError`]s, as the triangular solve's for the same conditions: the
    /// arrays were validated by [`Csr::new`] already, and what is left is the matrix's
    /// shape.
    ///
    /// ```
    /// use spblas::{Csr, Exec, SpMv, Symmetric, Triangle};
    /// // A = [[2, 1, 0],
    /// //      [1, 2, 1],
    /// //      [0, 1, 2]] stored as its lower triangle
    /// let (row_ptr, col_idx, vals) = ([0u32, 1, 3, 5], [0u32, 0, 1, 1, 2], [2.0f64, 1.0, 2.0, 1.0, 2.0]);
    /// let a = Symmetric::new(Csr::new(3, 3, &row_ptr, &col_idx, &vals)?, Triangle::Lower)?;
    /// let mut y = [f64::NAN; 3];
    /// a.spmv(Exec::new(), 1.0, &[1.0, 1.0, 1.0], 0.0, &mut y)?;
    /// assert_eq!(y, [3.0, 4.0, 3.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`DimError::NotSquare`] if `t` is not square; [`DimError::NotTriangular`] naming
    /// the first entry (in row order) outside `triangle`.
    pub fn new(t: Csr<'a, T, I>, triangle: Triangle) -> Result<Self, DimError> {
        check_in_triangle(&t, triangle, false)?;
        Ok(Symmetric { t, triangle })
    }

    /// The view without the check.
    ///
    /// # Safety
    /// `t` must be square with every entry in `triangle` ([`Symmetric`]'s invariants).
    /// Breaking that is not undefined behaviour (the kernels are safe code over a
    /// validated [`Csr`]), but products may then be wrong or panic.
    #[allow(unsafe_code)] // declares a contract for the caller; the body is safe code
    pub unsafe fn new_unchecked(t: Csr<'a, T, I>, triangle: Triangle) -> Self {
        Symmetric { t, triangle }
    }

    /// The stored triangle as CSR; free.
    pub fn triangle_csr(&self) -> Csr<'a, T, I> {
        self.t
    }
    /// Which triangle is stored.
    pub fn triangle(&self) -> Triangle {
        self.triangle
    }
    /// The order `n` of the (square) matrix.
    pub fn n(&self) -> usize {
        self.t.nrows()
    }
    /// `(n, n)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.t.nrows(), self.t.nrows())
    }
    /// Stored entries (of the triangle; duplicates and explicit zeros included).
    pub fn nnz(&self) -> usize {
        self.t.nnz()
    }

    /// Writes the whole matrix densely, row-major, into `out[..n * n]`: each stored entry
    /// at both of its positions (once on the diagonal), duplicates added up.
    ///
    /// # Errors
    /// [`FormatError::TooLarge`] if `n * n` overflows, [`FormatError::BufferTooSmall`] if
    /// `out` is shorter; `out` is untouched then.
    pub fn to_dense(&self, out: &mut [T]) -> Result<(), FormatError> {
        let n = self.n();
        let len = crate::formats::checked_mul("nrows * ncols", n, n)?;
        crate::formats::check_buf("out", out.len(), len)?;
        out[..len].fill(T::ZERO);
        for (i, j, v) in self.t.iter() {
            out[i * n + j] += v;
            if i != j {
                out[j * n + i] += v;
            }
        }
        Ok(())
    }
}

/// Checks that `a` is square with every entry in `triangle`, and with `nonunit` a stored
/// diagonal in every row whose entries do not add up to zero: what the triangular solves
/// ([`check_triangular`](crate::level2::check_triangular)) and [`Symmetric::new`]
/// accept. One pass over the entries, or one or two entries a row where the rows are
/// canonical; the first violation in row order.
///
/// # Errors
/// [`DimError::NotSquare`], [`DimError::NotTriangular`], [`DimError::MissingDiagonal`],
/// [`DimError::ZeroDiagonal`].
pub(crate) fn check_in_triangle<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    triangle: Triangle,
    nonunit: bool,
) -> Result<(), DimError> {
    let n = a.nrows();
    if a.ncols() != n {
        return Err(DimError::NotSquare { nrows: n, ncols: a.ncols() });
    }
    let (row_ptr, col_idx, vals) = (a.row_ptr(), a.col_idx(), a.vals());
    if a.row_order() == RowOrder::Canonical {
        return check_canonical(a, triangle, nonunit);
    }
    for i in 0..n {
        let r = row_ptr[i].to_usize()..row_ptr[i + 1].to_usize();
        let (mut d, mut seen) = (T::ZERO, false);
        for (c, &v) in col_idx[r.clone()].iter().zip(&vals[r]) {
            let j = c.to_usize();
            let outside = match triangle {
                Triangle::Lower => j > i,
                Triangle::Upper => j < i,
            };
            if outside {
                return Err(DimError::NotTriangular { row: i, col: j });
            }
            if j == i {
                d += v;
                seen = true;
            }
        }
        if nonunit {
            if !seen {
                return Err(DimError::MissingDiagonal { row: i });
            }
            if d == T::ZERO {
                return Err(DimError::ZeroDiagonal { row: i });
            }
        }
    }
    Ok(())
}

/// [`check_in_triangle`] on strictly increasing rows, which reads one or two entries a
/// row: a row lies in the lower (upper) triangle when its last (first) column does, and
/// then its diagonal, if stored, is that entry. The same errors, the same first row.
fn check_canonical<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    triangle: Triangle,
    nonunit: bool,
) -> Result<(), DimError> {
    let (row_ptr, col_idx, vals) = (a.row_ptr(), a.col_idx(), a.vals());
    for i in 0..a.nrows() {
        let (s, e) = (row_ptr[i].to_usize(), row_ptr[i + 1].to_usize());
        if s == e {
            if nonunit {
                return Err(DimError::MissingDiagonal { row: i });
            }
            continue;
        }
        let (first, last) = (col_idx[s].to_usize(), col_idx[e - 1].to_usize());
        let (edge, at) = match triangle {
            Triangle::Lower if last > i => {
                // The first column past the diagonal, as the entry-by-entry check names it.
                let k = col_idx[s..e].iter().position(|c| c.to_usize() > i).unwrap_or(e - s);
                return Err(DimError::NotTriangular { row: i, col: col_idx[s + k].to_usize() });
            }
            Triangle::Upper if first < i => return Err(DimError::NotTriangular { row: i, col: first }),
            Triangle::Lower => (last, e - 1),
            Triangle::Upper => (first, s),
        };
        if nonunit {
            if edge != i {
                return Err(DimError::MissingDiagonal { row: i });
            }
            if vals[at] == T::ZERO {
                return Err(DimError::ZeroDiagonal { row: i });
            }
        }
    }
    Ok(())
}
