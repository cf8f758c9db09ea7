//! Sliced ELLPACK (thesis 5.4.1): rows grouped into slices of `c` rows, each slice an ELL
//! block (column-major, explicit padding) of its own width.
//!
//! This is plain SELL: rows stay in their original order. SELL-C-σ (Kreutzer et al.)
//! additionally sorts rows by length inside windows of σ rows to shrink the padding;
//! that row permutation is not done here.

use crate::formats::ell::{rows_plus_one, slots_to_csr};
use crate::formats::{
    Csr, check_buf, check_col, check_dims, check_fits, check_len, check_ptr, pad, padded_slots,
};
use crate::{FormatError, Index, Scalar};

/// The slice height [`SellOwned::from_csr`] uses: 8 rows, one AVX-512 register of `f64`
/// (two AVX2 registers, four NEON registers).
pub const DEFAULT_SLICE_HEIGHT: usize = 8;

/// A validated, borrowed SELL matrix (thesis 5.4.1, slice height `c`, the thesis's `nb`).
///
/// Invariants (checked by [`Sell::new`]):
/// - `c = slice_height >= 1`; slice `s` holds rows `s * c .. s * c + h_s` with height
///   `h_s = min(c, nrows - s * c)` (only the last slice may be lower), and there are
///   `nslices = ceil(nrows / c)` slices;
/// - `slice_ptr.len() == nslices + 1`, `slice_ptr[0] == 0`, `slice_ptr` never decreases
///   and `slice_ptr[nslices] == col_idx.len() == vals.len()`;
/// - each slice's length `slice_ptr[s + 1] - slice_ptr[s]` is a multiple of `h_s`; its
///   width is `len / h_s`, and slot `k` of local row `r` is at `slice_ptr[s] + k * h_s + r`;
/// - padding as in [`crate::formats::Ell`]: a padding slot has column `I::MAX` (see
///   [`pad`]) and value zero, only padding follows it in its row, and every real column
///   is `< ncols`;
/// - `nrows` and the number of real entries fit `I`, and `ncols < I::MAX`.
#[derive(Clone, Copy, Debug)]
pub struct Sell<'a, T, I> {
    nrows: usize,
    ncols: usize,
    slice_height: usize,
    slice_ptr: &'a [I],
    col_idx: &'a [I],
    vals: &'a [T],
    nnz: usize,
}

/// The sizes of the SELL form of one CSR matrix for one slice height: the lengths of the
/// `slice_ptr` and `col_idx`/`vals` buffers [`Sell::from_csr`] needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SellLayout {
    slice_height: usize,
    nslices: usize,
    len: usize,
}

impl SellLayout {
    /// The layout of `csr` in slices of `slice_height` rows, each as wide as its longest
    /// row. Costs one pass over `row_ptr`.
    ///
    /// # Errors
    /// [`FormatError::Parameter`] (`"slice_height"`) if `slice_height == 0`;
    /// [`FormatError::TooLarge`] if the total length overflows `usize` or does not fit
    /// `I` (it is stored in `slice_ptr`).
    pub fn new<T: Scalar, I: Index>(csr: &Csr<'_, T, I>, slice_height: usize) -> Result<Self, FormatError> {
        if slice_height == 0 {
            return Err(FormatError::Parameter { name: "slice_height", value: 0 });
        }
        let nrows = csr.nrows();
        let nslices = nrows.div_ceil(slice_height);
        let mut len = 0usize;
        for s in 0..nslices {
            let (r0, h) = slice_rows(nrows, slice_height, s);
            let w = slice_width(csr, r0, h);
            len = w.checked_mul(h).and_then(|n| len.checked_add(n)).ok_or(FormatError::TooLarge {
                what: "len",
                value: usize::MAX,
                max: usize::MAX,
            })?;
        }
        check_fits::<I>("len", len)?;
        Ok(SellLayout { slice_height, nslices, len })
    }

    /// Rows per slice (`c`).
    pub fn slice_height(&self) -> usize {
        self.slice_height
    }
    /// Number of slices, `ceil(nrows / c)`.
    pub fn nslices(&self) -> usize {
        self.nslices
    }
    /// The length `slice_ptr` needs: `nslices + 1`.
    pub fn slice_ptr_len(&self) -> usize {
        self.nslices + 1
    }
    /// The length `col_idx` and `vals` need: the sum over slices of height × width.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the `col_idx`/`vals` arrays are empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// First row and height of slice `s` (`s < nslices`).
#[inline]
fn slice_rows(nrows: usize, c: usize, s: usize) -> (usize, usize) {
    let r0 = s * c;
    (r0, c.min(nrows - r0))
}

/// The longest row among `r0..r0 + h` of `csr`.
fn slice_width<T: Scalar, I: Index>(csr: &Csr<'_, T, I>, r0: usize, h: usize) -> usize {
    csr.row_ptr()[r0..r0 + h + 1].windows(2).map(|w| w[1].to_usize() - w[0].to_usize()).max().unwrap_or(0)
}

impl<'a, T: Scalar, I: Index> Sell<'a, T, I> {
    /// Builds a view after checking every invariant listed on [`Sell`], and counts the
    /// real entries. Costs one pass over `slice_ptr` and the slots.
    ///
    /// # Errors
    /// The first violation: [`FormatError::Parameter`] (`slice_height == 0`),
    /// [`FormatError::TooLarge`], [`FormatError::Length`], [`FormatError::PtrStart`],
    /// [`FormatError::PtrDecreasing`], [`FormatError::PtrEnd`] (all on `slice_ptr`),
    /// then slice by slice in storage order [`FormatError::SliceLength`],
    /// [`FormatError::Padding`] (`position` names the padding slot) or
    /// [`FormatError::ColumnOutOfBounds`] ([`FormatError::NegativeIndex`] for a negative
    /// `i32` / `i64` entry of `slice_ptr` or `col_idx`).
    pub fn new(
        nrows: usize,
        ncols: usize,
        slice_height: usize,
        slice_ptr: &'a [I],
        col_idx: &'a [I],
        vals: &'a [T],
    ) -> Result<Self, FormatError> {
        if slice_height == 0 {
            return Err(FormatError::Parameter { name: "slice_height", value: 0 });
        }
        check_dims::<I>(nrows, ncols, 0)?;
        let nslices = nrows.div_ceil(slice_height);
        check_len("slice_ptr", slice_ptr.len(), rows_plus_one(nslices)?)?;
        let len = col_idx.len();
        check_len("vals", vals.len(), len)?;
        check_ptr("slice_ptr", slice_ptr, len)?;
        let mut nnz = 0;
        for (s, w) in slice_ptr.windows(2).enumerate() {
            let (start, end) = (w[0].to_usize(), w[1].to_usize());
            let (r0, h) = slice_rows(nrows, slice_height, s);
            if (end - start) % h != 0 {
                return Err(FormatError::SliceLength { slice: s, len: end - start, height: h });
            }
            if let Some(real) = padded_slots(&col_idx[start..end], &vals[start..end], h, ncols) {
                nnz += real;
                continue;
            }
            // Some slot of the slice is invalid: find the first.
            for p in start..end {
                let row = r0 + (p - start) % h;
                let c = col_idx[p];
                if c == pad::<I>() {
                    if vals[p] != T::ZERO {
                        return Err(FormatError::Padding { row, position: p });
                    }
                } else {
                    if p >= start + h && col_idx[p - h] == pad::<I>() {
                        return Err(FormatError::Padding { row, position: p - h });
                    }
                    check_col(c, ncols, row, p)?;
                    nnz += 1;
                }
            }
        }
        check_fits::<I>("nnz", nnz)?;
        Ok(Sell { nrows, ncols, slice_height, slice_ptr, col_idx, vals, nnz })
    }

    /// Builds a view without any check.
    ///
    /// # Safety
    /// Every invariant listed on [`Sell`] must hold and `nnz` must be the number of real
    /// (non-padding) slots. SIMD kernels read the slots of each slice and `x[col_idx[p]]`
    /// for real slots without bounds checks.
    #[allow(unsafe_code)] // declares a contract for the caller; the body is safe code
    pub unsafe fn new_unchecked(
        nrows: usize,
        ncols: usize,
        slice_height: usize,
        slice_ptr: &'a [I],
        col_idx: &'a [I],
        vals: &'a [T],
        nnz: usize,
    ) -> Self {
        Sell { nrows, ncols, slice_height, slice_ptr, col_idx, vals, nnz }
    }

    /// Converts `csr` into the caller's buffers (`slice_ptr` at least
    /// `layout.slice_ptr_len()` long, the others at least `layout.len()`; only those
    /// prefixes are written) and returns the view over them. Each row's entries keep
    /// their CSR order; each slice is as wide as its longest row.
    ///
    /// `layout` supplies the slice height only; the lengths are recomputed from `csr`
    /// (one pass over `row_ptr`), so a layout made for another matrix cannot cause a write
    /// out of bounds.
    ///
    /// # Errors
    /// As [`SellLayout::new`], or [`FormatError::BufferTooSmall`]; all before anything is
    /// written.
    pub fn from_csr(
        csr: &Csr<'_, T, I>,
        layout: &SellLayout,
        slice_ptr: &'a mut [I],
        col_idx: &'a mut [I],
        vals: &'a mut [T],
    ) -> Result<Self, FormatError> {
        let layout = SellLayout::new(csr, layout.slice_height)?;
        let (np, len) = (layout.slice_ptr_len(), layout.len);
        check_buf("slice_ptr", slice_ptr.len(), np)?;
        check_buf("col_idx", col_idx.len(), len)?;
        check_buf("vals", vals.len(), len)?;
        let (slice_ptr, col_idx, vals) = (&mut slice_ptr[..np], &mut col_idx[..len], &mut vals[..len]);
        fill_sell(csr, layout.slice_height, slice_ptr, col_idx, vals);
        Ok(Sell {
            nrows: csr.nrows(),
            ncols: csr.ncols(),
            slice_height: layout.slice_height,
            slice_ptr,
            col_idx,
            vals,
            nnz: csr.nnz(),
        })
    }

    /// Converts back to CSR in the caller's buffers (`row_ptr` at least `nrows + 1` long,
    /// the others at least `nnz`; only those prefixes are written). Each row keeps its slot
    /// order, so CSR → SELL → CSR gives back the same arrays.
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
    /// Rows per slice (`c`); only the last slice may have fewer.
    pub fn slice_height(&self) -> usize {
        self.slice_height
    }
    /// Number of slices, `ceil(nrows / c)`.
    pub fn nslices(&self) -> usize {
        self.slice_ptr.len().saturating_sub(1)
    }
    /// Number of real (non-padding) entries, duplicates and explicit zeros included.
    pub fn nnz(&self) -> usize {
        self.nnz
    }
    /// Number of slots, padding included.
    pub fn stored_len(&self) -> usize {
        self.col_idx.len()
    }
    /// Slice pointers, `nslices + 1` entries.
    pub fn slice_ptr(&self) -> &'a [I] {
        self.slice_ptr
    }
    /// Column indices, slice after slice, each slice column-major; padding holds `I::MAX`.
    pub fn col_idx(&self) -> &'a [I] {
        self.col_idx
    }
    /// Values, aligned with [`Sell::col_idx`]; padding slots hold zero.
    pub fn vals(&self) -> &'a [T] {
        self.vals
    }
    /// Slice `s` as `(first row, height, first slot, width)`, `None` if `s >= nslices`.
    pub fn slice(&self, s: usize) -> Option<(usize, usize, usize, usize)> {
        if s >= self.nslices() {
            return None;
        }
        let (r0, h) = slice_rows(self.nrows, self.slice_height, s);
        let (start, end) = (self.slice_ptr[s].to_usize(), self.slice_ptr[s + 1].to_usize());
        Some((r0, h, start, (end - start) / h))
    }
    /// Number of real entries in row `i`, `None` if `i >= nrows`.
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

    /// The positions of row `i`'s real entries, in slot order. `i < nrows`.
    pub(crate) fn row_slots(&self, i: usize) -> impl Iterator<Item = usize> + use<'a, T, I> {
        let s = i / self.slice_height;
        let (r0, h) = slice_rows(self.nrows, self.slice_height, s);
        let (start, end) = (self.slice_ptr[s].to_usize(), self.slice_ptr[s + 1].to_usize());
        let col_idx = self.col_idx;
        (start + (i - r0)..end).step_by(h).take_while(move |&p| col_idx[p] != pad::<I>())
    }
}

/// Writes `csr` as SELL with slice height `c` into buffers of exactly `nslices + 1` and
/// the layout's `len` elements. Shared by [`Sell::from_csr`] and [`SellOwned`].
fn fill_sell<T: Scalar, I: Index>(
    csr: &Csr<'_, T, I>,
    c: usize,
    slice_ptr: &mut [I],
    col_out: &mut [I],
    val_out: &mut [T],
) {
    let (nrows, row_ptr, col_idx, vals) = (csr.nrows(), csr.row_ptr(), csr.col_idx(), csr.vals());
    let mut off = 0;
    slice_ptr[0] = I::ZERO;
    for s in 0..nrows.div_ceil(c) {
        let (r0, h) = slice_rows(nrows, c, s);
        let w = slice_width(csr, r0, h);
        for r in 0..h {
            let (start, end) = (row_ptr[r0 + r].to_usize(), row_ptr[r0 + r + 1].to_usize());
            for k in 0..w {
                let p = off + k * h + r;
                if start + k < end {
                    col_out[p] = col_idx[start + k];
                    val_out[p] = vals[start + k];
                } else {
                    col_out[p] = pad::<I>();
                    val_out[p] = T::ZERO;
                }
            }
        }
        off += w * h;
        slice_ptr[s + 1] = I::from_usize_unchecked(off);
    }
}

#[cfg(feature = "alloc")]
pub use owned::SellOwned;

#[cfg(feature = "alloc")]
mod owned {
    use alloc::vec::Vec;

    use super::{DEFAULT_SLICE_HEIGHT, Sell, SellLayout, fill_sell};
    use crate::formats::try_vec;
    use crate::formats::{Csr, pad};
    use crate::{FormatError, Index, Scalar};

    /// A SELL matrix that owns its arrays (feature `alloc`); [`SellOwned::view`] lends the
    /// validated [`Sell`] every kernel takes. Same invariants as [`Sell`].
    #[derive(Clone, Debug, PartialEq)]
    pub struct SellOwned<T, I> {
        nrows: usize,
        ncols: usize,
        slice_height: usize,
        slice_ptr: Vec<I>,
        col_idx: Vec<I>,
        vals: Vec<T>,
        nnz: usize,
    }

    impl<T: Scalar, I: Index> SellOwned<T, I> {
        /// Takes ownership of SELL arrays after validating them as [`Sell::new`] does.
        ///
        /// # Errors
        /// As [`Sell::new`].
        pub fn from_parts(
            nrows: usize,
            ncols: usize,
            slice_height: usize,
            slice_ptr: Vec<I>,
            col_idx: Vec<I>,
            vals: Vec<T>,
        ) -> Result<Self, FormatError> {
            let nnz = Sell::new(nrows, ncols, slice_height, &slice_ptr, &col_idx, &vals)?.nnz();
            Ok(SellOwned { nrows, ncols, slice_height, slice_ptr, col_idx, vals, nnz })
        }

        /// Converts a CSR view with slice height [`DEFAULT_SLICE_HEIGHT`].
        ///
        /// # Errors
        /// As [`SellOwned::from_csr_slice_height`].
        pub fn from_csr(csr: &Csr<'_, T, I>) -> Result<Self, FormatError> {
            Self::from_csr_slice_height(csr, DEFAULT_SLICE_HEIGHT)
        }

        /// Converts a CSR view with slices of `slice_height` rows (see [`Sell::from_csr`]).
        ///
        /// # Errors
        /// As [`SellLayout::new`], or [`FormatError::TooLarge`] if the arrays cannot be
        /// allocated.
        pub fn from_csr_slice_height(csr: &Csr<'_, T, I>, slice_height: usize) -> Result<Self, FormatError> {
            let layout = SellLayout::new(csr, slice_height)?;
            let mut slice_ptr = try_vec("SELL slice_ptr", layout.slice_ptr_len(), I::ZERO)?;
            let mut col_idx = try_vec("SELL col_idx", layout.len(), pad::<I>())?;
            let mut vals = try_vec("SELL vals", layout.len(), T::ZERO)?;
            fill_sell(csr, slice_height, &mut slice_ptr, &mut col_idx, &mut vals);
            Ok(SellOwned {
                nrows: csr.nrows(),
                ncols: csr.ncols(),
                slice_height,
                slice_ptr,
                col_idx,
                vals,
                nnz: csr.nnz(),
            })
        }

        /// The validated view.
        pub fn view(&self) -> Sell<'_, T, I> {
            Sell {
                nrows: self.nrows,
                ncols: self.ncols,
                slice_height: self.slice_height,
                slice_ptr: &self.slice_ptr,
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
        /// Rows per slice.
        pub fn slice_height(&self) -> usize {
            self.slice_height
        }
        /// Number of real entries.
        pub fn nnz(&self) -> usize {
            self.nnz
        }
        /// Gives the arrays back: `(nrows, ncols, slice_height, slice_ptr, col_idx, vals)`.
        #[allow(clippy::type_complexity)]
        pub fn into_parts(self) -> (usize, usize, usize, Vec<I>, Vec<I>, Vec<T>) {
            (self.nrows, self.ncols, self.slice_height, self.slice_ptr, self.col_idx, self.vals)
        }
    }
}
