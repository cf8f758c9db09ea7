//! Diagonal format (thesis 5.2.1, Figures 5.1–5.3): the matrix as an array of whole
//! diagonals, each labelled by its offset from the main diagonal.
//!
//! Diagonal `d` with offset `k = offsets[d]` holds `A[i, i + k]` at `data[d * nrows + i]`
//! for every row `i` (thesis Fig. 5.2: `dia[-1]`, `dia[0]`, `dia[1]` of a tridiagonal
//! matrix). Slots whose column `i + k` falls outside `0..ncols` are the thesis's "padded
//! fill-ins" (the starred cells): they hold any value and are never read.
//!
//! DIA is compact for matrices dominated by a few diagonals and explodes for irregular
//! ones (thesis Fig. 5.3: a diagonal with one entry still costs `nrows` slots), so the
//! conversion reports [`DiaLayout::fill_ratio`] before the big buffer is needed. Stored
//! zeros inside the matrix are indistinguishable from fill: DIA cannot keep explicit
//! zeros, [`Dia::to_csr`] drops every zero value and [`Dia::from_csr`] adds duplicates up.
//!
//! Conversion from CSR without allocation takes three steps:
//! 1. [`Dia::offsets_from_csr`] into a scratch of [`Dia::offsets_scratch_len`] slots,
//!    which returns `ndiag` and leaves the sorted offsets in its first `ndiag` slots;
//! 2. [`DiaLayout::new`] (or [`Dia::data_len`]) for the length of `data`, and the fill
//!    ratio to decide whether DIA is worth it;
//! 3. [`Dia::from_csr`] with those offsets and a `data` buffer.

use crate::formats::csr_out;
use crate::formats::{Csr, check_buf, check_dims, check_len, checked_mul};
use crate::{FormatError, Index, Scalar};

/// A validated, borrowed DIA matrix.
///
/// Invariants (checked by [`Dia::new`]):
/// - `nrows <= isize::MAX` and `ncols <= isize::MAX`, so every offset is an `isize`;
/// - `offsets` is strictly increasing and every offset lies in `-(nrows - 1)..=ncols - 1`
///   (the diagonals that meet the matrix); when `nrows == 0` or `ncols == 0` there are no
///   offsets;
/// - `data.len() == offsets.len() * nrows` (the product does not overflow).
///
/// `data[d * nrows + i]` is `A[i, i + offsets[d]]` when `0 <= i + offsets[d] < ncols`;
/// the other slots are padding, may hold any value (NaN included), and are never read.
/// Zeros inside the matrix are not entries: [`Dia::to_csr`] and [`Dia::csr_nnz`] skip them.
#[derive(Clone, Copy, Debug)]
pub struct Dia<'a, T> {
    nrows: usize,
    ncols: usize,
    offsets: &'a [isize],
    data: &'a [T],
}

/// Sizes of a DIA matrix with a known number of diagonals, and the fill ratio that says
/// whether DIA suits the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DiaLayout {
    nrows: usize,
    ndiag: usize,
    nnz: usize,
    data_len: usize,
}

impl DiaLayout {
    /// The layout of `csr` stored on `ndiag` diagonals (as returned by
    /// [`Dia::offsets_from_csr`]).
    ///
    /// # Errors
    /// [`FormatError::TooLarge`] if `ndiag * nrows` overflows `usize`.
    pub fn new<T: Scalar, I: Index>(csr: &Csr<'_, T, I>, ndiag: usize) -> Result<Self, FormatError> {
        let data_len = Dia::<T>::data_len(csr.nrows(), ndiag)?;
        Ok(DiaLayout { nrows: csr.nrows(), ndiag, nnz: csr.nnz(), data_len })
    }
    /// Number of diagonals.
    pub fn ndiag(&self) -> usize {
        self.ndiag
    }
    /// Length of `offsets`: `ndiag`.
    pub fn offsets_len(&self) -> usize {
        self.ndiag
    }
    /// Length of `data`: `ndiag * nrows`.
    pub fn data_len(&self) -> usize {
        self.data_len
    }
    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.nrows
    }
    /// Stored entries of the CSR matrix measured (duplicates included).
    pub fn nnz(&self) -> usize {
        self.nnz
    }
    /// `ndiag * nrows / nnz`: slots stored per CSR entry. 1 means no fill at all (also
    /// reported for an empty matrix with no slots); a thesis-style tridiagonal matrix is
    /// slightly above 1; an irregular matrix can reach `nrows`, and then DIA is the wrong
    /// format. `f64::INFINITY` when slots are stored for a matrix without entries.
    pub fn fill_ratio(&self) -> f64 {
        match (self.data_len, self.nnz) {
            (0, 0) => 1.0,
            (_, 0) => f64::INFINITY,
            (slots, nnz) => slots as f64 / nnz as f64,
        }
    }
}

impl<'a, T: Scalar> Dia<'a, T> {
    /// Builds a view after checking every invariant listed on [`Dia`]. Costs one pass over
    /// `offsets`; `data` is not read.
    ///
    /// # Errors
    /// [`FormatError::TooLarge`] if `nrows` or `ncols` exceeds `isize::MAX` or
    /// `offsets.len() * nrows` overflows; [`FormatError::DiagonalOffset`] for the first
    /// offset out of range or not above its predecessor; [`FormatError::Length`] if
    /// `data.len() != offsets.len() * nrows`.
    pub fn new(nrows: usize, ncols: usize, offsets: &'a [isize], data: &'a [T]) -> Result<Self, FormatError> {
        check_offsets(nrows, ncols, offsets)?;
        let len = Self::data_len(nrows, offsets.len())?;
        check_len("data", data.len(), len)?;
        Ok(Dia { nrows, ncols, offsets, data })
    }

    /// Builds a view without any check.
    ///
    /// # Safety
    /// Every invariant listed on [`Dia`] must hold. Kernels read `data[d * nrows + i]`
    /// and `x[i + offsets[d]]` for the in-range slots without bounds checks.
    #[allow(unsafe_code)] // declares a contract for the caller; the body is safe code
    pub unsafe fn new_unchecked(nrows: usize, ncols: usize, offsets: &'a [isize], data: &'a [T]) -> Self {
        Dia { nrows, ncols, offsets, data }
    }

    /// Length of `data` for `ndiag` diagonals of `nrows` rows: `ndiag * nrows`.
    ///
    /// # Errors
    /// [`FormatError::TooLarge`] if the product overflows `usize`.
    pub fn data_len(nrows: usize, ndiag: usize) -> Result<usize, FormatError> {
        checked_mul("ndiag * nrows", ndiag, nrows)
    }

    /// How many slots [`Dia::offsets_from_csr`] needs: the span `max - min + 1` of the
    /// diagonals `j - i` that hold entries (0 for a matrix without entries). One pass over
    /// the entries. Never more than `nrows + ncols - 1`, so a caller may also just pass
    /// that many; saturates at `usize::MAX` (then no buffer can be large enough).
    pub fn offsets_scratch_len<I: Index>(csr: &Csr<'_, T, I>) -> usize {
        match diagonal_span(csr) {
            Some((lo, hi)) => usize::try_from(hi - lo + 1).unwrap_or(usize::MAX),
            None => 0,
        }
    }

    /// Finds the diagonals of `csr` that hold entries (explicit zeros included) and writes
    /// their offsets, sorted and distinct, into `offsets[..ndiag]`; returns `ndiag`.
    /// `offsets` must have at least [`Dia::offsets_scratch_len`] slots: they serve as a
    /// presence table indexed by `offset - min_offset`, which is then compacted in place
    /// (the write position never passes the read position), so no other workspace is
    /// needed. Slots after `ndiag` hold unspecified values. O(nnz + span).
    ///
    /// # Errors
    /// [`FormatError::TooLarge`] if `nrows` or `ncols` exceeds `isize::MAX`;
    /// [`FormatError::BufferTooSmall`] if `offsets` is too short. Nothing is written then.
    pub fn offsets_from_csr<I: Index>(
        csr: &Csr<'_, T, I>,
        offsets: &mut [isize],
    ) -> Result<usize, FormatError> {
        check_dia_dims(csr.nrows(), csr.ncols())?;
        let Some((lo, hi)) = diagonal_span(csr) else {
            return Ok(0);
        };
        // Both bounds lie in -(nrows-1)..=ncols-1, so they and the span fit isize/usize.
        let (lo, hi) = (lo as isize, hi as isize);
        let span = hi.abs_diff(lo) + 1;
        check_buf("offsets", offsets.len(), span)?;
        let table = &mut offsets[..span];
        table.fill(0);
        for (i, j, _) in csr.iter() {
            table[(j as isize - i as isize).abs_diff(lo)] = 1;
        }
        let mut ndiag = 0;
        for s in 0..span {
            if table[s] != 0 {
                table[ndiag] = lo + s as isize;
                ndiag += 1;
            }
        }
        Ok(ndiag)
    }

    /// Converts `csr` into `data` (at least `offsets.len() * nrows` long; only that prefix
    /// is written) on the given diagonals and returns the view. `offsets` is usually the
    /// prefix [`Dia::offsets_from_csr`] filled, but any valid offsets that include every
    /// diagonal holding an entry will do. `data` is zero-filled (padding included), then
    /// each entry is added to its slot, so duplicates add up. O(nnz log ndiag + data).
    ///
    /// # Errors
    /// Before anything is written: [`FormatError::TooLarge`] or
    /// [`FormatError::DiagonalOffset`] as in [`Dia::new`];
    /// [`FormatError::BufferTooSmall`] if `data` is too short;
    /// [`FormatError::DiagonalNotStored`] for the first entry whose diagonal is not in
    /// `offsets`.
    pub fn from_csr<I: Index>(
        csr: &Csr<'_, T, I>,
        offsets: &'a [isize],
        data: &'a mut [T],
    ) -> Result<Self, FormatError> {
        let (nrows, ncols) = csr.shape();
        check_offsets(nrows, ncols, offsets)?;
        let len = Self::data_len(nrows, offsets.len())?;
        check_buf("data", data.len(), len)?;
        for (position, (i, j)) in entry_positions(csr).enumerate() {
            let offset = j as isize - i as isize;
            if offsets.binary_search(&offset).is_err() {
                return Err(FormatError::DiagonalNotStored { row: i, position, offset });
            }
        }
        let data = &mut data[..len];
        fill_from_csr(csr, offsets, data);
        Ok(Dia { nrows, ncols, offsets, data })
    }

    /// Converts to canonical CSR (rows sorted by column, no duplicates, no zero values) in
    /// the caller's buffers: `row_ptr` at least `nrows + 1` long, `col_idx` and `vals` at
    /// least [`Dia::csr_nnz`]; only those prefixes are written. Zeros are dropped because
    /// DIA cannot tell an explicit zero from fill (`-0.0` counts as zero, NaN does not).
    ///
    /// # Errors
    /// Before anything is written: [`FormatError::TooLarge`] if `nrows`, `ncols` or the
    /// entry count does not fit `I` (or `ncols == I::MAX`); [`FormatError::BufferTooSmall`].
    pub fn to_csr<'b, I: Index>(
        &self,
        row_ptr: &'b mut [I],
        col_idx: &'b mut [I],
        vals: &'b mut [T],
    ) -> Result<Csr<'b, T, I>, FormatError> {
        let (m, nnz) = (self.nrows, self.csr_nnz());
        check_dims::<I>(m, self.ncols, nnz)?;
        let (row_ptr, col_out, val_out) = csr_out(m, nnz, row_ptr, col_idx, vals)?;
        let mut k = 0;
        row_ptr[0] = I::ZERO;
        for i in 0..m {
            // Offsets increase, so the row's columns come out sorted.
            for (d, &off) in self.offsets.iter().enumerate() {
                if let Some(j) = self.col_of(i, off) {
                    let v = self.data[d * m + i];
                    if v != T::ZERO {
                        col_out[k] = I::from_usize_unchecked(j);
                        val_out[k] = v;
                        k += 1;
                    }
                }
            }
            row_ptr[i + 1] = I::from_usize_unchecked(k);
        }
        Csr::new(m, self.ncols, row_ptr, col_out, val_out)
    }

    /// Number of non-zero values in in-range slots: the `nnz` of [`Dia::to_csr`]'s result.
    /// One pass over `data` (padding skipped).
    pub fn csr_nnz(&self) -> usize {
        self.iter().filter(|&(_, _, v)| v != T::ZERO).count()
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
    /// Number of stored diagonals.
    pub fn ndiag(&self) -> usize {
        self.offsets.len()
    }
    /// Diagonal offsets (`column - row`), strictly increasing.
    pub fn offsets(&self) -> &'a [isize] {
        self.offsets
    }
    /// All slots, diagonal after diagonal, `ndiag * nrows` values (padding included).
    pub fn data(&self) -> &'a [T] {
        self.data
    }
    /// The `nrows` slots of diagonal `d` (padding included), `None` if `d >= ndiag`.
    pub fn diagonal(&self, d: usize) -> Option<&'a [T]> {
        if d >= self.ndiag() {
            return None;
        }
        Some(&self.data[d * self.nrows..(d + 1) * self.nrows])
    }
    /// The range of rows `i` whose slot on a diagonal with offset `off` lies inside the
    /// matrix (`0 <= i + off < ncols`); empty if none.
    pub fn row_range(&self, off: isize) -> core::ops::Range<usize> {
        row_range(self.nrows, self.ncols, off)
    }
    /// Iterates over the in-range slots as `(row, col, value)`, zeros included, diagonal
    /// after diagonal.
    pub fn iter(&self) -> impl Iterator<Item = (usize, usize, T)> + 'a {
        let this = *self;
        self.offsets.iter().enumerate().flat_map(move |(d, &off)| {
            this.row_range(off).map(move |i| (i, i.wrapping_add_signed(off), this.data[d * this.nrows + i]))
        })
    }

    /// The column of row `i` on the diagonal `off`, `None` for a padding slot.
    #[inline]
    pub(crate) fn col_of(&self, i: usize, off: isize) -> Option<usize> {
        let j = i.checked_add_signed(off)?;
        (j < self.ncols).then_some(j)
    }
}

/// `nrows` and `ncols` fit `isize`, so offsets and their differences can be computed.
fn check_dia_dims(nrows: usize, ncols: usize) -> Result<(), FormatError> {
    let max = isize::MAX as usize;
    if nrows > max {
        return Err(FormatError::TooLarge { what: "nrows", value: nrows, max });
    }
    if ncols > max {
        return Err(FormatError::TooLarge { what: "ncols", value: ncols, max });
    }
    Ok(())
}

/// Checks the dimensions and `offsets` as [`Dia::new`] documents.
fn check_offsets(nrows: usize, ncols: usize, offsets: &[isize]) -> Result<(), FormatError> {
    check_dia_dims(nrows, ncols)?;
    // The diagonals that meet a non-empty matrix; none meet an empty one.
    let meets =
        |offset: isize| nrows > 0 && ncols > 0 && 1 - (nrows as isize) <= offset && offset < ncols as isize;
    let mut prev: Option<isize> = None;
    for (position, &offset) in offsets.iter().enumerate() {
        if !meets(offset) || prev.is_some_and(|p| offset <= p) {
            return Err(FormatError::DiagonalOffset { position, offset });
        }
        prev = Some(offset);
    }
    Ok(())
}

/// [`Dia::row_range`] of an `nrows × ncols` matrix, for the blocked DIA copy of the SpMV
/// plans too.
pub(crate) fn row_range(nrows: usize, ncols: usize, off: isize) -> core::ops::Range<usize> {
    let start = if off < 0 { off.unsigned_abs() } else { 0 };
    let end = if off < 0 {
        ncols.saturating_add(off.unsigned_abs())
    } else {
        ncols.saturating_sub(off.unsigned_abs())
    };
    start.min(nrows)..end.min(nrows).max(start.min(nrows))
}

/// `(row, col)` of every CSR entry in storage order.
fn entry_positions<'c, T: Scalar, I: Index>(
    csr: &Csr<'c, T, I>,
) -> impl Iterator<Item = (usize, usize)> + 'c {
    csr.iter().map(|(i, j, _)| (i, j))
}

/// The smallest and largest diagonal `j - i` holding an entry, `None` without entries.
/// Computed in `i128`, so it is exact for any dimensions.
fn diagonal_span<T: Scalar, I: Index>(csr: &Csr<'_, T, I>) -> Option<(i128, i128)> {
    entry_positions(csr).map(|(i, j)| j as i128 - i as i128).fold(None, |acc, k| match acc {
        None => Some((k, k)),
        Some((lo, hi)) => Some((lo.min(k), hi.max(k))),
    })
}

/// Zero-fills `data` (exactly `offsets.len() * nrows` long) and adds each entry of `csr`
/// to its slot. Every entry's diagonal must be in `offsets`.
fn fill_from_csr<T: Scalar, I: Index>(csr: &Csr<'_, T, I>, offsets: &[isize], data: &mut [T]) {
    let nrows = csr.nrows();
    data.fill(T::ZERO);
    for (i, j, v) in csr.iter() {
        if let Ok(d) = offsets.binary_search(&(j as isize - i as isize)) {
            data[d * nrows + i] += v;
        }
    }
}

#[cfg(feature = "alloc")]
pub use owned::DiaOwned;

#[cfg(feature = "alloc")]
mod owned {
    use alloc::vec::Vec;

    use super::{Dia, DiaLayout};
    use crate::formats::{Csr, try_vec};
    use crate::{FormatError, Index, Scalar};

    /// A DIA matrix owning its arrays (feature `alloc`); [`DiaOwned::view`] lends the
    /// validated [`Dia`] every kernel takes. Same invariants as [`Dia`].
    #[derive(Clone, Debug, PartialEq)]
    pub struct DiaOwned<T> {
        nrows: usize,
        ncols: usize,
        offsets: Vec<isize>,
        data: Vec<T>,
    }

    impl<T: Scalar> DiaOwned<T> {
        /// Takes ownership of DIA arrays after validating them as [`Dia::new`] does.
        ///
        /// # Errors
        /// As [`Dia::new`].
        pub fn from_parts(
            nrows: usize,
            ncols: usize,
            offsets: Vec<isize>,
            data: Vec<T>,
        ) -> Result<Self, FormatError> {
            Dia::new(nrows, ncols, &offsets, &data)?;
            Ok(DiaOwned { nrows, ncols, offsets, data })
        }

        /// Converts a CSR view on exactly the diagonals that hold entries (the three steps
        /// of the module docs). Check [`DiaLayout::fill_ratio`] first when the matrix may
        /// be irregular: the result holds `ndiag * nrows` values.
        ///
        /// # Errors
        /// [`FormatError::TooLarge`] if `nrows` or `ncols` exceeds `isize::MAX`, if
        /// `ndiag * nrows` overflows, or if the buffers cannot be allocated.
        pub fn from_csr<I: Index>(csr: &Csr<'_, T, I>) -> Result<Self, FormatError> {
            let mut offsets = try_vec("offsets", Dia::offsets_scratch_len(csr), 0isize)?;
            let ndiag = Dia::offsets_from_csr(csr, &mut offsets)?;
            offsets.truncate(ndiag);
            let layout = DiaLayout::new(csr, ndiag)?;
            let mut data = try_vec("ndiag * nrows", layout.data_len(), T::ZERO)?;
            super::fill_from_csr(csr, &offsets, &mut data);
            Ok(DiaOwned { nrows: csr.nrows(), ncols: csr.ncols(), offsets, data })
        }

        /// The validated view.
        pub fn view(&self) -> Dia<'_, T> {
            Dia { nrows: self.nrows, ncols: self.ncols, offsets: &self.offsets, data: &self.data }
        }

        /// Gives the arrays back: `(nrows, ncols, offsets, data)`.
        pub fn into_parts(self) -> (usize, usize, Vec<isize>, Vec<T>) {
            (self.nrows, self.ncols, self.offsets, self.data)
        }
    }
}
