//! Compressed Sparse Column (thesis 5.2.4, by columns): `col_ptr` (ncols + 1), `row_idx`
//! and `vals` (nnz).
//!
//! The arrays of an `m x n` CSC matrix are those of the `n x m` CSR matrix of its
//! transpose, so [`Csc`] is a [`Csr`] of `Aᵀ` under another name: validated by
//! [`Csr::new`]'s checks (the errors renamed for columns), converted by
//! [`Csr::transpose_into`], and multiplied by [`crate::level2::spmv_csr_transpose`].

use crate::formats::Csr;
use crate::{FormatError, Index, RowOrder, Scalar};

/// A validated, borrowed CSC matrix.
///
/// Invariants (checked by [`Csc::new`]):
/// - `col_ptr.len() == ncols + 1`, `col_ptr[0] == 0`, `col_ptr` never decreases and
///   `col_ptr[ncols] == nnz == row_idx.len() == vals.len()`;
/// - every `row_idx[k] < nrows`;
/// - `ncols`, `nnz` fit `I` and `nrows < I::MAX` (as [`Csr`] with rows and columns
///   swapped).
///
/// Columns may be unsorted and hold duplicates (their values add up); [`Csc::col_order`]
/// says which case holds.
#[derive(Clone, Copy, Debug)]
pub struct Csc<'a, T, I> {
    /// The CSR of `Aᵀ`: row `j` of it is column `j` of `A`.
    t: Csr<'a, T, I>,
}

/// Renames an error of the CSR of `Aᵀ` for the CSC of `A`: arrays, dimensions, and a
/// column out of bounds of `Aᵀ` is a row out of bounds of `A`.
fn for_csc(e: FormatError) -> FormatError {
    let name = |array: &'static str| match array {
        "row_ptr" | "row_ptr_t" => "col_ptr",
        "col_idx" | "col_idx_t" => "row_idx",
        "vals_t" => "vals",
        "nrows" => "ncols",
        "ncols" => "nrows",
        other => other,
    };
    match e {
        FormatError::Length { array, expected, got } => {
            FormatError::Length { array: name(array), expected, got }
        }
        FormatError::BufferTooSmall { array, needed, got } => {
            FormatError::BufferTooSmall { array: name(array), needed, got }
        }
        FormatError::TooLarge { what, value, max } => FormatError::TooLarge { what: name(what), value, max },
        FormatError::PtrStart { array, got } => FormatError::PtrStart { array: name(array), got },
        FormatError::PtrDecreasing { array, position } => {
            FormatError::PtrDecreasing { array: name(array), position }
        }
        FormatError::PtrEnd { array, expected, got } => {
            FormatError::PtrEnd { array: name(array), expected, got }
        }
        FormatError::ColumnOutOfBounds { position, col, ncols, .. } => {
            FormatError::RowOutOfBounds { position, row: col, nrows: ncols }
        }
        other => other,
    }
}

/// Renames the buffers of [`Csr::transpose_into`] for a conversion into CSR.
fn for_csr(e: FormatError) -> FormatError {
    match e {
        FormatError::BufferTooSmall { array, needed, got } => {
            FormatError::BufferTooSmall { array: array.trim_end_matches("_t"), needed, got }
        }
        FormatError::TooLarge { what: "ncols", value, max } => {
            FormatError::TooLarge { what: "nrows", value, max }
        }
        FormatError::TooLarge { what: "nrows", value, max } => {
            FormatError::TooLarge { what: "ncols", value, max }
        }
        other => other,
    }
}

impl<'a, T: Scalar, I: Index> Csc<'a, T, I> {
    /// Builds a view after checking every invariant listed on [`Csc`] and records the
    /// order of the row indices inside each column. Costs one pass over `col_ptr` and
    /// `row_idx` ([`Csr::new`] on the same arrays as the CSR of `Aᵀ`).
    ///
    /// ```
    /// use spblas::{Csc, Exec, SpMv};
    /// // [[1, 0, 2],
    /// //  [0, 3, 0]] by columns
    /// let (col_ptr, row_idx, vals) = ([0u32, 1, 2, 3], [0u32, 1, 0], [1.0f64, 3.0, 2.0]);
    /// let a = Csc::new(2, 3, &col_ptr, &row_idx, &vals)?;
    /// let mut y = [f64::NAN; 2];
    /// a.spmv(Exec::new(), 1.0, &[1.0, 1.0, 1.0], 0.0, &mut y)?;
    /// assert_eq!(y, [3.0, 3.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// The first violated invariant: [`FormatError::Length`], [`FormatError::TooLarge`],
    /// [`FormatError::PtrStart`], [`FormatError::PtrDecreasing`], [`FormatError::PtrEnd`]
    /// (naming `col_ptr` / `row_idx`) or [`FormatError::RowOutOfBounds`]; exactly where
    /// [`Csr::new`] of the transpose fails.
    pub fn new(
        nrows: usize,
        ncols: usize,
        col_ptr: &'a [I],
        row_idx: &'a [I],
        vals: &'a [T],
    ) -> Result<Self, FormatError> {
        Csr::new(ncols, nrows, col_ptr, row_idx, vals).map(|t| Csc { t }).map_err(for_csc)
    }

    /// Builds a view without any check.
    ///
    /// # Safety
    /// Every invariant listed on [`Csc`] must hold and `order` must be true of the
    /// columns (claiming [`RowOrder::Unsorted`] is always true): the contract of
    /// [`Csr::new_unchecked`] for the CSR of `Aᵀ`.
    #[allow(unsafe_code)] // declares a contract for the caller; the body is safe code
    pub unsafe fn new_unchecked(
        nrows: usize,
        ncols: usize,
        col_ptr: &'a [I],
        row_idx: &'a [I],
        vals: &'a [T],
        order: RowOrder,
    ) -> Self {
        Csc { t: Csr::trusted(ncols, nrows, col_ptr, row_idx, vals, order) }
    }

    /// The same arrays as the CSR of `Aᵀ` (`ncols x nrows`); free.
    pub fn as_transposed_csr(&self) -> Csr<'a, T, I> {
        self.t
    }

    /// Lengths `(col_ptr, row_idx and vals)` of the buffers [`Csc::from_csr`] needs for
    /// `csr`: `(ncols + 1, nnz)`.
    pub fn from_csr_len(csr: &Csr<'_, T, I>) -> (usize, usize) {
        csr.transpose_len()
    }

    /// Converts `csr` into the caller's buffers (at least [`Csc::from_csr_len`] long; only
    /// those prefixes are written) by [`Csr::transpose_into`]'s stable counting sort (a
    /// count per column, a scan, a placement in row order), and returns the view over
    /// them. Row indices come out sorted in each column.
    ///
    /// # Errors
    /// [`FormatError::TooLarge`] if `ncols + 1` does not fit `I`,
    /// [`FormatError::BufferTooSmall`] naming `col_ptr`, `row_idx` or `vals`; nothing is
    /// written then.
    pub fn from_csr(
        csr: &Csr<'_, T, I>,
        col_ptr: &'a mut [I],
        row_idx: &'a mut [I],
        vals: &'a mut [T],
    ) -> Result<Self, FormatError> {
        csr.transpose_into(col_ptr, row_idx, vals).map(|t| Csc { t }).map_err(for_csc)
    }

    /// Lengths `(row_ptr, col_idx and vals)` of the buffers [`Csc::to_csr`] needs:
    /// `(nrows + 1, nnz)`.
    pub fn to_csr_len(&self) -> (usize, usize) {
        self.t.transpose_len()
    }

    /// Converts back to CSR in the caller's buffers (at least [`Csc::to_csr_len`] long;
    /// only those prefixes are written), by the same counting sort. Columns come out
    /// sorted in each row, so CSR → CSC → CSR gives back a matrix with rows sorted, its
    /// entries in their order within each cell.
    ///
    /// # Errors
    /// [`FormatError::TooLarge`] if `nrows + 1` does not fit `I`,
    /// [`FormatError::BufferTooSmall`] naming `row_ptr`, `col_idx` or `vals`; nothing is
    /// written then.
    pub fn to_csr<'b>(
        &self,
        row_ptr: &'b mut [I],
        col_idx: &'b mut [I],
        vals: &'b mut [T],
    ) -> Result<Csr<'b, T, I>, FormatError> {
        self.t.transpose_into(row_ptr, col_idx, vals).map_err(for_csr)
    }

    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.t.ncols()
    }
    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.t.nrows()
    }
    /// `(nrows, ncols)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.nrows(), self.ncols())
    }
    /// Number of stored entries (duplicates and explicit zeros included).
    pub fn nnz(&self) -> usize {
        self.t.nnz()
    }
    /// Column pointers, `ncols + 1` entries.
    pub fn col_ptr(&self) -> &'a [I] {
        self.t.row_ptr()
    }
    /// Row indices, column after column.
    pub fn row_idx(&self) -> &'a [I] {
        self.t.col_idx()
    }
    /// Values, aligned with [`Csc::row_idx`].
    pub fn vals(&self) -> &'a [T] {
        self.t.vals()
    }
    /// How row indices are ordered inside columns.
    pub fn col_order(&self) -> RowOrder {
        self.t.row_order()
    }
    /// Column `j` as `(row_idx, vals)`, `None` if `j >= ncols`.
    pub fn col(&self, j: usize) -> Option<(&'a [I], &'a [T])> {
        self.t.row(j)
    }
    /// Iterates over the stored entries as `(row, col, value)`, in storage order (column
    /// after column).
    pub fn iter(&self) -> impl Iterator<Item = (usize, usize, T)> + 'a {
        self.t.iter().map(|(j, i, v)| (i, j, v))
    }

    /// Writes the matrix densely, row-major, into `out[..nrows * ncols]`, adding up
    /// duplicates.
    ///
    /// # Errors
    /// [`FormatError::TooLarge`] if `nrows * ncols` overflows, [`FormatError::BufferTooSmall`]
    /// if `out` is shorter; `out` is untouched then.
    pub fn to_dense(&self, out: &mut [T]) -> Result<(), FormatError> {
        let len = crate::formats::checked_mul("nrows * ncols", self.nrows(), self.ncols())?;
        crate::formats::check_buf("out", out.len(), len)?;
        out[..len].fill(T::ZERO);
        let n = self.ncols();
        for (i, j, v) in self.iter() {
            out[i * n + j] += v;
        }
        Ok(())
    }
}
