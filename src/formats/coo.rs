//! Coordinate format (thesis 5.2.3): one `(row_idx, col_idx, val)` triple per entry.

use crate::formats::csr::{Entries, canonical_into};
use crate::formats::csr_out;
use crate::formats::{
    Csr, RowOrder, any_at_or_above, check_buf, check_col, check_dims, check_len, check_row,
    count_entry_descents,
};
use crate::{FormatError, Index, Scalar};

/// A validated, borrowed COO matrix.
///
/// Invariants (checked by [`Coo::new`]): `row_idx`, `col_idx` and `vals` have one length
/// `nnz`; every `row_idx[k] < nrows` and `col_idx[k] < ncols`; `nrows`, `nnz` fit `I` and
/// `ncols < I::MAX`. Entries may come in any order and repeat (repeats add up);
/// [`Coo::is_sorted`] says whether they are in row-major order.
#[derive(Clone, Copy, Debug)]
pub struct Coo<'a, T, I> {
    nrows: usize,
    ncols: usize,
    row_idx: &'a [I],
    col_idx: &'a [I],
    vals: &'a [T],
    sorted: bool,
}

impl<'a, T: Scalar, I: Index> Coo<'a, T, I> {
    /// Builds a view after checking every invariant listed on [`Coo`].
    ///
    /// # Errors
    /// [`FormatError::Length`], [`FormatError::TooLarge`], [`FormatError::RowOutOfBounds`]
    /// or [`FormatError::ColumnOutOfBounds`] for the first offending entry
    /// ([`FormatError::NegativeIndex`] where its index is a negative `i32` / `i64`).
    pub fn new(
        nrows: usize,
        ncols: usize,
        row_idx: &'a [I],
        col_idx: &'a [I],
        vals: &'a [T],
    ) -> Result<Self, FormatError> {
        let nnz = row_idx.len();
        check_dims::<I>(nrows, ncols, nnz)?;
        check_len("col_idx", col_idx.len(), nnz)?;
        check_len("vals", vals.len(), nnz)?;
        // Branch-free passes (vectorised); the entry loop only to locate the first
        // out-of-bounds index.
        if any_at_or_above(row_idx, nrows) || any_at_or_above(col_idx, ncols) {
            for (k, (&r, &c)) in row_idx.iter().zip(col_idx).enumerate() {
                check_row("row_idx", r, nrows, k)?;
                check_col(c, ncols, r.to_usize(), k)?;
            }
        }
        let sorted = count_entry_descents(row_idx, col_idx) == 0;
        Ok(Coo { nrows, ncols, row_idx, col_idx, vals, sorted })
    }

    /// Builds a view without any check.
    ///
    /// # Safety
    /// Every invariant listed on [`Coo`] must hold, and `sorted` may be `true` only if the
    /// entries are in row-major order.
    #[allow(unsafe_code)] // declares a contract for the caller; the body is safe code
    pub unsafe fn new_unchecked(
        nrows: usize,
        ncols: usize,
        row_idx: &'a [I],
        col_idx: &'a [I],
        vals: &'a [T],
        sorted: bool,
    ) -> Self {
        Coo { nrows, ncols, row_idx, col_idx, vals, sorted }
    }

    /// Copies `csr` into the caller's buffers (each at least `csr.nnz()` long; only that
    /// prefix is written) and returns the view over them. Entries keep CSR order, so the
    /// result is sorted when the CSR rows are.
    ///
    /// # Errors
    /// [`FormatError::BufferTooSmall`] before anything is written.
    pub fn from_csr(
        csr: &Csr<'_, T, I>,
        row_idx: &'a mut [I],
        col_idx: &'a mut [I],
        vals: &'a mut [T],
    ) -> Result<Self, FormatError> {
        let nnz = csr.nnz();
        check_buf("row_idx", row_idx.len(), nnz)?;
        check_buf("col_idx", col_idx.len(), nnz)?;
        check_buf("vals", vals.len(), nnz)?;
        let (row_idx, col_idx, vals) = (&mut row_idx[..nnz], &mut col_idx[..nnz], &mut vals[..nnz]);
        let sorted = fill_from_csr(csr, row_idx, col_idx, vals);
        Ok(Coo { nrows: csr.nrows(), ncols: csr.ncols(), row_idx, col_idx, vals, sorted })
    }

    /// Converts to CSR in the caller's buffers (`row_ptr` at least `nrows + 1` long, the
    /// others at least `nnz`), by a stable counting sort on rows: entries of one row keep
    /// their COO order. No workspace beyond the outputs.
    ///
    /// # Errors
    /// [`FormatError::BufferTooSmall`] before anything is written.
    pub fn to_csr<'b>(
        &self,
        row_ptr: &'b mut [I],
        col_idx: &'b mut [I],
        vals: &'b mut [T],
    ) -> Result<Csr<'b, T, I>, FormatError> {
        let (m, nnz) = (self.nrows, self.nnz());
        let (row_ptr, col_idx, vals) = csr_out(m, nnz, row_ptr, col_idx, vals)?;
        counting_sort_rows(self.row_idx, self.col_idx, self.vals, row_ptr, col_idx, vals);
        Csr::new(m, self.ncols, row_ptr, col_idx, vals)
    }

    /// Converts to canonical CSR ([`RowOrder::Canonical`]: rows sorted by column,
    /// duplicates added up in COO order, explicit zeros kept) in the caller's buffers, no
    /// allocator needed: `row_ptr` at least `nrows + 1` long, `col_idx` and `vals` at
    /// least `nnz` (duplicates included; `col_idx` is the conversion's scratch space).
    /// The result covers the prefixes written, one entry per distinct cell, and equals
    /// `CsrOwned::from_triplets` on the same entries bit for bit (see
    /// [`Csr::from_triplets`]: one implementation). Time `O(nrows + nnz log(longest
    /// row))` on any input, no workspace beyond the outputs.
    ///
    /// ```
    /// use spblas::{Coo, RowOrder};
    /// // (1, 1) twice, rows out of order.
    /// let (r, c, v) = ([1u32, 0, 1], [1u32, 2, 1], [2.0f64, 5.0, 0.5]);
    /// let coo = Coo::new(2, 3, &r, &c, &v)?;
    /// let (mut row_ptr, mut col_idx, mut vals) = ([0u32; 3], [0u32; 3], [0.0; 3]);
    /// let a = coo.to_canonical_csr(&mut row_ptr, &mut col_idx, &mut vals)?;
    /// assert_eq!(a.row_order(), RowOrder::Canonical);
    /// assert_eq!((a.row_ptr(), a.col_idx(), a.vals()), (&[0, 1, 2][..], &[2, 1][..], &[5.0, 2.5][..]));
    /// # Ok::<(), spblas::FormatError>(())
    /// ```
    ///
    /// # Errors
    /// [`FormatError::BufferTooSmall`] before anything is written.
    pub fn to_canonical_csr<'b>(
        &self,
        row_ptr: &'b mut [I],
        col_idx: &'b mut [I],
        vals: &'b mut [T],
    ) -> Result<Csr<'b, T, I>, FormatError> {
        let (m, nnz) = (self.nrows, self.nnz());
        let (row_ptr, col_idx, vals) = csr_out(m, nnz, row_ptr, col_idx, vals)?;
        Ok(canonical_into(m, self.ncols, self, row_ptr, col_idx, vals))
    }

    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.nrows
    }
    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.ncols
    }
    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.row_idx.len()
    }
    /// Row indices.
    pub fn row_idx(&self) -> &'a [I] {
        self.row_idx
    }
    /// Column indices.
    pub fn col_idx(&self) -> &'a [I] {
        self.col_idx
    }
    /// Values.
    pub fn vals(&self) -> &'a [T] {
        self.vals
    }
    /// Whether the entries are in row-major `(row, col)` order (repeats allowed).
    pub fn is_sorted(&self) -> bool {
        self.sorted
    }
}

impl<T: Scalar, I: Index> Entries<T, I> for Coo<'_, T, I> {
    fn count(&self) -> usize {
        self.nnz()
    }
    fn row(&self, k: usize) -> usize {
        self.row_idx[k].to_usize()
    }
    fn col(&self, k: usize) -> I {
        self.col_idx[k]
    }
    fn val(&self, k: usize) -> T {
        self.vals[k]
    }
}

/// Writes `csr` as COO into buffers of exactly `nnz` elements; returns whether the result
/// is sorted.
fn fill_from_csr<T: Scalar, I: Index>(
    csr: &Csr<'_, T, I>,
    row_idx: &mut [I],
    col_idx: &mut [I],
    vals: &mut [T],
) -> bool {
    for (i, w) in csr.row_ptr().windows(2).enumerate() {
        row_idx[w[0].to_usize()..w[1].to_usize()].fill(I::from_usize_unchecked(i));
    }
    col_idx.copy_from_slice(csr.col_idx());
    vals.copy_from_slice(csr.vals());
    csr.row_order() != RowOrder::Unsorted
}

/// Stable counting sort of COO triples into CSR arrays of exactly `nrows + 1` and `nnz`
/// elements. `row_ptr` first counts, then serves as the scatter cursor, then is shifted
/// back, so no workspace is needed. Row indices must be `< nrows`.
pub(crate) fn counting_sort_rows<T: Scalar, I: Index>(
    row_idx: &[I],
    col_in: &[I],
    val_in: &[T],
    row_ptr: &mut [I],
    col_out: &mut [I],
    val_out: &mut [T],
) {
    let m = row_ptr.len() - 1;
    row_ptr.fill(I::ZERO);
    for &r in row_idx {
        let r = r.to_usize();
        row_ptr[r + 1] = I::from_usize_unchecked(row_ptr[r + 1].to_usize() + 1);
    }
    for i in 0..m {
        row_ptr[i + 1] = I::from_usize_unchecked(row_ptr[i + 1].to_usize() + row_ptr[i].to_usize());
    }
    // row_ptr[r] is now the start of row r; use it as a cursor, then shift back.
    for ((&r, &c), &v) in row_idx.iter().zip(col_in).zip(val_in) {
        let r = r.to_usize();
        let dst = row_ptr[r].to_usize();
        col_out[dst] = c;
        val_out[dst] = v;
        row_ptr[r] = I::from_usize_unchecked(dst + 1);
    }
    for i in (1..=m).rev() {
        row_ptr[i] = row_ptr[i - 1];
    }
    row_ptr[0] = I::ZERO;
}

#[cfg(feature = "alloc")]
pub use owned::CooOwned;

#[cfg(feature = "alloc")]
mod owned {
    use alloc::vec::Vec;

    use super::Coo;
    use crate::formats::{Csr, try_vec};
    use crate::{FormatError, Index, Scalar};

    /// A COO matrix owning its arrays (feature `alloc`).
    #[derive(Clone, Debug, PartialEq)]
    pub struct CooOwned<T, I> {
        nrows: usize,
        ncols: usize,
        row_idx: Vec<I>,
        col_idx: Vec<I>,
        vals: Vec<T>,
        sorted: bool,
    }

    impl<T: Scalar, I: Index> CooOwned<T, I> {
        /// Takes ownership of COO arrays after validating them as [`Coo::new`] does.
        ///
        /// # Errors
        /// As [`Coo::new`].
        pub fn from_parts(
            nrows: usize,
            ncols: usize,
            row_idx: Vec<I>,
            col_idx: Vec<I>,
            vals: Vec<T>,
        ) -> Result<Self, FormatError> {
            let sorted = Coo::new(nrows, ncols, &row_idx, &col_idx, &vals)?.is_sorted();
            Ok(CooOwned { nrows, ncols, row_idx, col_idx, vals, sorted })
        }

        /// Converts a CSR view (see [`Coo::from_csr`]).
        ///
        /// # Errors
        /// [`FormatError::TooLarge`] where the memory for the arrays is not there.
        pub fn from_csr(csr: &Csr<'_, T, I>) -> Result<Self, FormatError> {
            let nnz = csr.nnz();
            let mut row_idx = try_vec("row_idx", nnz, I::ZERO)?;
            let mut col_idx = try_vec("col_idx", nnz, I::ZERO)?;
            let mut vals = try_vec("vals", nnz, T::ZERO)?;
            let sorted = super::fill_from_csr(csr, &mut row_idx, &mut col_idx, &mut vals);
            Ok(CooOwned { nrows: csr.nrows(), ncols: csr.ncols(), row_idx, col_idx, vals, sorted })
        }

        /// The validated view.
        pub fn view(&self) -> Coo<'_, T, I> {
            Coo {
                nrows: self.nrows,
                ncols: self.ncols,
                row_idx: &self.row_idx,
                col_idx: &self.col_idx,
                vals: &self.vals,
                sorted: self.sorted,
            }
        }
    }
}
