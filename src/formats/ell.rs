//! ELLPACK (thesis 5.2.2): every row padded to one width, stored column-major with
//! explicit padding slots.
//!
//! The thesis draws ELL row-major and notes that it "can also be stored in the
//! column-major order for aligned memory access"; this crate uses the column-major
//! layout, so slot `k` of row `i` sits at `k * nrows + i` and consecutive rows of one slot
//! column are adjacent in memory (one SIMD load covers several rows).

use crate::formats::csr_out;
use crate::formats::{Csr, check_buf, check_col, check_dims, check_fits, check_len, checked_mul, pad};
use crate::{FormatError, Index, Scalar};

/// A validated, borrowed ELL matrix (thesis 5.2.2), column-major with explicit padding.
///
/// Invariants (checked by [`Ell::new`]):
/// - `col_idx.len() == vals.len() == nrows * width` (the product must not overflow);
///   slot `k` of row `i` is at position `k * nrows + i`;
/// - a slot is either a real entry, with `col_idx < ncols`, or padding, with
///   `col_idx == pad::<I>()` (`I::MAX`, see [`pad`]) and value zero;
/// - in each row, once a padding slot appears every later slot of that row is padding
///   (so a row's entries are its first [`Ell::row_len`] slots);
/// - `nrows` and the number of real entries fit `I`, and `ncols < I::MAX`.
///
/// Real entries may repeat a column (their values add up) and need not be sorted.
/// [`Ell::nnz`] is recorded by validation, so it costs nothing.
///
/// ```
/// use spblas::{Csr, Ell, EllLayout, SpMv};
/// use spblas::Exec;
/// // [[1, 0, 2],
/// //  [0, 0, 0],
/// //  [0, 3, 0]]
/// let a = Csr::new(3, 3, &[0u32, 2, 2, 3], &[0, 2, 1], &[1.0f64, 2.0, 3.0])?;
/// let layout = EllLayout::new(&a)?; // width 2, 3 * 2 slots
/// let (mut col_idx, mut vals) = ([0u32; 6], [0.0; 6]);
/// let ell = Ell::from_csr(&a, &layout, &mut col_idx, &mut vals)?;
/// // Column-major: slot k of row i at k * nrows + i; padding is u32::MAX.
/// assert_eq!(ell.col_idx(), &[0, u32::MAX, 1, 2, u32::MAX, u32::MAX]);
/// let mut y = [f64::NAN; 3];
/// ell.spmv(Exec::new(), 1.0, &[1.0, 1.0, 1.0], 0.0, &mut y)?;
/// assert_eq!(y, [3.0, 0.0, 3.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Ell<'a, T, I> {
    nrows: usize,
    ncols: usize,
    width: usize,
    col_idx: &'a [I],
    vals: &'a [T],
    nnz: usize,
}

/// The sizes of the ELL form of one CSR matrix: its width and the length of the
/// `col_idx`/`vals` buffers [`Ell::from_csr`] needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EllLayout {
    width: usize,
    len: usize,
}

impl EllLayout {
    /// The natural layout: width = the longest row of `csr` (`nnzr_max` in thesis 5.2.2).
    /// Costs one pass over `row_ptr`.
    ///
    /// # Errors
    /// [`FormatError::TooLarge`] if `nrows * width` overflows `usize`.
    pub fn new<T: Scalar, I: Index>(csr: &Csr<'_, T, I>) -> Result<Self, FormatError> {
        Self::with_width(csr, csr.max_row_len())
    }

    /// A layout of the chosen `width`, which must hold the longest row of `csr`; wider
    /// rows of slots only add padding. Costs one pass over `row_ptr`.
    ///
    /// # Errors
    /// [`FormatError::Parameter`] (`"width"`) if `width` is below the longest row,
    /// [`FormatError::TooLarge`] if `nrows * width` overflows `usize`.
    pub fn with_width<T: Scalar, I: Index>(csr: &Csr<'_, T, I>, width: usize) -> Result<Self, FormatError> {
        if width < csr.max_row_len() {
            return Err(FormatError::Parameter { name: "width", value: width });
        }
        let len = checked_mul("nrows * width", csr.nrows(), width)?;
        Ok(EllLayout { width, len })
    }

    /// Slots per row.
    pub fn width(&self) -> usize {
        self.width
    }
    /// The length `col_idx` and `vals` need: `nrows * width`.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the ELL arrays are empty (no rows or width zero).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<'a, T: Scalar, I: Index> Ell<'a, T, I> {
    /// Builds a view after checking every invariant listed on [`Ell`], and counts the
    /// real entries. Costs one pass over the slots, in storage order.
    ///
    /// # Errors
    /// The first violation in storage order: [`FormatError::TooLarge`] (dimensions, the
    /// entry count, or `nrows * width` overflowing), [`FormatError::Length`],
    /// [`FormatError::Padding`] (a padding slot with a non-zero value, or one followed by
    /// a real entry of its row; `position` names the padding slot) or
    /// [`FormatError::ColumnOutOfBounds`] ([`FormatError::NegativeIndex`] for a negative
    /// `i32` / `i64` column).
    pub fn new(
        nrows: usize,
        ncols: usize,
        width: usize,
        col_idx: &'a [I],
        vals: &'a [T],
    ) -> Result<Self, FormatError> {
        check_dims::<I>(nrows, ncols, 0)?;
        let len = checked_mul("nrows * width", nrows, width)?;
        check_len("col_idx", col_idx.len(), len)?;
        check_len("vals", vals.len(), len)?;
        // One pass in storage order (faster here than `formats::padded_slots`' block
        // passes, which SELL's slices use).
        let mut nnz = 0;
        for (p, (&c, &v)) in col_idx.iter().zip(vals).enumerate() {
            // len > 0 here, so nrows > 0.
            let row = p % nrows;
            if c == pad::<I>() {
                if v != T::ZERO {
                    return Err(FormatError::Padding { row, position: p });
                }
            } else {
                // The slot before, in the same row, must not be padding.
                if p >= nrows && col_idx[p - nrows] == pad::<I>() {
                    return Err(FormatError::Padding { row, position: p - nrows });
                }
                check_col(c, ncols, row, p)?;
                nnz += 1;
            }
        }
        check_fits::<I>("nnz", nnz)?;
        Ok(Ell { nrows, ncols, width, col_idx, vals, nnz })
    }

    /// Builds a view without any check.
    ///
    /// # Safety
    /// Every invariant listed on [`Ell`] must hold and `nnz` must be the number of real
    /// (non-padding) slots. SIMD kernels read `x[col_idx[p]]` for real slots and stop a
    /// row at its first padding slot without bounds checks.
    #[allow(unsafe_code)] // declares a contract for the caller; the body is safe code
    pub unsafe fn new_unchecked(
        nrows: usize,
        ncols: usize,
        width: usize,
        col_idx: &'a [I],
        vals: &'a [T],
        nnz: usize,
    ) -> Self {
        Ell { nrows, ncols, width, col_idx, vals, nnz }
    }

    /// Converts `csr` into the caller's buffers (each at least `layout.len()` long; only
    /// that prefix is written) and returns the view over them. Row `i`'s entries keep
    /// their CSR order in slots `0..len_i`; the rest of the row is padding.
    ///
    /// `layout` supplies the width only; the lengths are recomputed from `csr` (one pass
    /// over `row_ptr`), so a layout made for another matrix cannot cause a write out of
    /// bounds: it fails as [`EllLayout::with_width`] would.
    ///
    /// # Errors
    /// [`FormatError::Parameter`] if the layout's width is below the longest row of
    /// `csr`, [`FormatError::TooLarge`] if `nrows * width` overflows,
    /// [`FormatError::BufferTooSmall`]; all before anything is written.
    pub fn from_csr(
        csr: &Csr<'_, T, I>,
        layout: &EllLayout,
        col_idx: &'a mut [I],
        vals: &'a mut [T],
    ) -> Result<Self, FormatError> {
        let layout = EllLayout::with_width(csr, layout.width)?;
        let len = layout.len;
        check_buf("col_idx", col_idx.len(), len)?;
        check_buf("vals", vals.len(), len)?;
        let (col_idx, vals) = (&mut col_idx[..len], &mut vals[..len]);
        let nnz = fill_ell(csr, layout.width, col_idx, vals);
        Ok(Ell { nrows: csr.nrows(), ncols: csr.ncols(), width: layout.width, col_idx, vals, nnz })
    }

    /// Converts back to CSR in the caller's buffers (`row_ptr` at least `nrows + 1` long,
    /// the others at least `nnz`; only those prefixes are written). Each row keeps its slot
    /// order, so CSR → ELL → CSR gives back the same arrays.
    ///
    /// # Errors
    /// [`FormatError::TooLarge`] if `nrows + 1` overflows, [`FormatError::BufferTooSmall`];
    /// both before anything is written.
    pub fn to_csr<'b>(
        &self,
        row_ptr: &'b mut [I],
        col_idx: &'b mut [I],
        vals: &'b mut [T],
    ) -> Result<Csr<'b, T, I>, FormatError> {
        let shape = (self.nrows, self.ncols, self.nnz);
        slots_to_csr(shape, self.col_idx, self.vals, |i| self.row_slots(i), row_ptr, col_idx, vals)
    }

    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.nrows
    }
    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.ncols
    }
    /// `(nrows, ncols)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.nrows, self.ncols)
    }
    /// Slots per row.
    pub fn width(&self) -> usize {
        self.width
    }
    /// Number of real (non-padding) entries, duplicates and explicit zeros included.
    pub fn nnz(&self) -> usize {
        self.nnz
    }
    /// Number of slots, padding included: `nrows * width`.
    pub fn stored_len(&self) -> usize {
        self.col_idx.len()
    }
    /// Column indices, column-major (`k * nrows + i`); padding slots hold `I::MAX`.
    pub fn col_idx(&self) -> &'a [I] {
        self.col_idx
    }
    /// Values, aligned with [`Ell::col_idx`]; padding slots hold zero.
    pub fn vals(&self) -> &'a [T] {
        self.vals
    }
    /// Number of real entries in row `i` (its slots before the first padding slot),
    /// `None` if `i >= nrows`.
    pub fn row_len(&self, i: usize) -> Option<usize> {
        if i >= self.nrows {
            return None;
        }
        Some(self.row_slots(i).count())
    }
    /// Iterates over the real entries as `(row, col, value)`, row after row, each row in
    /// slot order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, usize, T)> + use<'a, T, I> {
        let this = *self;
        (0..this.nrows)
            .flat_map(move |i| this.row_slots(i).map(move |p| (i, this.col_idx[p].to_usize(), this.vals[p])))
    }

    /// A view over arrays the crate has just filled correctly (e.g. [`fill_ell`]).
    pub(crate) fn from_filled(
        nrows: usize,
        ncols: usize,
        width: usize,
        col_idx: &'a [I],
        vals: &'a [T],
        nnz: usize,
    ) -> Self {
        Ell { nrows, ncols, width, col_idx, vals, nnz }
    }

    /// The positions of row `i`'s real entries, in slot order. `i < nrows`.
    pub(crate) fn row_slots(&self, i: usize) -> impl Iterator<Item = usize> + use<'a, T, I> {
        let (nrows, col_idx) = (self.nrows, self.col_idx);
        (0..self.width).map(move |k| k * nrows + i).take_while(move |&p| col_idx[p] != pad::<I>())
    }
}

/// `nrows + 1`, the length of a `row_ptr`, or [`FormatError::TooLarge`].
pub(crate) fn rows_plus_one(nrows: usize) -> Result<usize, FormatError> {
    nrows.checked_add(1).ok_or(FormatError::TooLarge { what: "nrows + 1", value: nrows, max: usize::MAX - 1 })
}

/// Copies the real slots of a padded, slot-addressed format (ELL, SELL) into CSR buffers
/// (`row_ptr` at least `nrows + 1`, the others at least `nnz`; only those prefixes are
/// written), row after row in `row_slots` order. `shape` is `(nrows, ncols, nnz)` of a
/// validated view, whose `row_slots(i)` yields exactly row `i`'s real slots.
///
/// # Errors
/// [`FormatError::TooLarge`] if `nrows + 1` overflows, [`FormatError::BufferTooSmall`];
/// both before anything is written.
pub(crate) fn slots_to_csr<'b, T: Scalar, I: Index, S: Iterator<Item = usize>>(
    (m, ncols, nnz): (usize, usize, usize),
    src_col: &[I],
    src_val: &[T],
    row_slots: impl Fn(usize) -> S,
    row_ptr: &'b mut [I],
    col_idx: &'b mut [I],
    vals: &'b mut [T],
) -> Result<Csr<'b, T, I>, FormatError> {
    rows_plus_one(m)?;
    let (row_ptr, col_idx, vals) = csr_out(m, nnz, row_ptr, col_idx, vals)?;
    row_ptr[0] = I::ZERO;
    let mut dst = 0;
    for i in 0..m {
        for p in row_slots(i) {
            col_idx[dst] = src_col[p];
            vals[dst] = src_val[p];
            dst += 1;
        }
        row_ptr[i + 1] = I::from_usize_unchecked(dst);
    }
    Csr::new(m, ncols, row_ptr, col_idx, vals)
}

/// Writes the first `min(len_i, width)` entries of each row of `csr` into ELL slots of
/// the given width (buffers of exactly `nrows * width`), padding the rest of each row.
/// Returns the number of real entries written. Shared by [`Ell::from_csr`], the ELL part
/// of HYB and the owned variants.
pub(crate) fn fill_ell<T: Scalar, I: Index>(
    csr: &Csr<'_, T, I>,
    width: usize,
    col_out: &mut [I],
    val_out: &mut [T],
) -> usize {
    let m = csr.nrows();
    let (col_idx, vals) = (csr.col_idx(), csr.vals());
    let mut nnz = 0;
    for (i, w) in csr.row_ptr().windows(2).enumerate() {
        let (start, end) = (w[0].to_usize(), w[1].to_usize());
        let len = (end - start).min(width);
        for k in 0..width {
            let p = k * m + i;
            if k < len {
                col_out[p] = col_idx[start + k];
                val_out[p] = vals[start + k];
            } else {
                col_out[p] = pad::<I>();
                val_out[p] = T::ZERO;
            }
        }
        nnz += len;
    }
    nnz
}

#[cfg(feature = "alloc")]
pub use owned::EllOwned;

#[cfg(feature = "alloc")]
mod owned {
    use alloc::vec::Vec;

    use super::{Ell, EllLayout, fill_ell};
    use crate::formats::try_vec;
    use crate::formats::{Csr, pad};
    use crate::{FormatError, Index, Scalar};

    /// An ELL matrix that owns its arrays (feature `alloc`); [`EllOwned::view`] lends the
    /// validated [`Ell`] every kernel takes. Same invariants as [`Ell`].
    #[derive(Clone, Debug, PartialEq)]
    pub struct EllOwned<T, I> {
        nrows: usize,
        ncols: usize,
        width: usize,
        col_idx: Vec<I>,
        vals: Vec<T>,
        nnz: usize,
    }

    impl<T: Scalar, I: Index> EllOwned<T, I> {
        /// Takes ownership of ELL arrays after validating them as [`Ell::new`] does.
        ///
        /// # Errors
        /// As [`Ell::new`].
        pub fn from_parts(
            nrows: usize,
            ncols: usize,
            width: usize,
            col_idx: Vec<I>,
            vals: Vec<T>,
        ) -> Result<Self, FormatError> {
            let nnz = Ell::new(nrows, ncols, width, &col_idx, &vals)?.nnz();
            Ok(EllOwned { nrows, ncols, width, col_idx, vals, nnz })
        }

        /// Converts a CSR view with the natural width (the longest row), see
        /// [`Ell::from_csr`].
        ///
        /// # Errors
        /// [`FormatError::TooLarge`] if `nrows * width` overflows or the arrays cannot be
        /// allocated.
        pub fn from_csr(csr: &Csr<'_, T, I>) -> Result<Self, FormatError> {
            Self::from_csr_width(csr, csr.max_row_len())
        }

        /// Converts a CSR view with a chosen width (at least the longest row).
        ///
        /// # Errors
        /// [`FormatError::Parameter`] if `width` is below the longest row,
        /// [`FormatError::TooLarge`] if `nrows * width` overflows or the arrays cannot be
        /// allocated.
        pub fn from_csr_width(csr: &Csr<'_, T, I>, width: usize) -> Result<Self, FormatError> {
            let layout = EllLayout::with_width(csr, width)?;
            let mut col_idx = try_vec("ELL col_idx", layout.len(), pad::<I>())?;
            let mut vals = try_vec("ELL vals", layout.len(), T::ZERO)?;
            let nnz = fill_ell(csr, width, &mut col_idx, &mut vals);
            Ok(EllOwned { nrows: csr.nrows(), ncols: csr.ncols(), width, col_idx, vals, nnz })
        }

        /// Takes arrays the crate has just filled correctly (e.g. by [`fill_ell`]).
        pub(crate) fn from_filled(
            nrows: usize,
            ncols: usize,
            width: usize,
            col_idx: Vec<I>,
            vals: Vec<T>,
            nnz: usize,
        ) -> Self {
            EllOwned { nrows, ncols, width, col_idx, vals, nnz }
        }

        /// The validated view.
        pub fn view(&self) -> Ell<'_, T, I> {
            Ell {
                nrows: self.nrows,
                ncols: self.ncols,
                width: self.width,
                col_idx: &self.col_idx,
                vals: &self.vals,
                nnz: self.nnz,
            }
        }

        /// Number of rows.
        pub fn nrows(&self) -> usize {
            self.nrows
        }
        /// Number of columns.
        pub fn ncols(&self) -> usize {
            self.ncols
        }
        /// Slots per row.
        pub fn width(&self) -> usize {
            self.width
        }
        /// Number of real entries.
        pub fn nnz(&self) -> usize {
            self.nnz
        }
        /// Gives the arrays back: `(nrows, ncols, width, col_idx, vals)`.
        pub fn into_parts(self) -> (usize, usize, usize, Vec<I>, Vec<T>) {
            (self.nrows, self.ncols, self.width, self.col_idx, self.vals)
        }
    }
}
