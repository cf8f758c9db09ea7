//! Hybrid ELL + COO (thesis 5.3.1, after Bell and Garland): the first `K` entries of
//! every row in an ELL part of width `K`, the rest of each long row in a COO part, so a
//! few long rows do not pad the whole ELL array.
//!
//! # The split width rule
//! [`HybLayout::new`] picks **`K` = the largest `k` for which at least a third of the rows
//! have `k` or more entries** (`3 * #{i : len_i >= k} >= nrows`, with `k` ranging over
//! `0..=max_row_len`). This is the rule of CUSP's `compute_optimal_entries_per_row` with
//! its relative ELL/COO speed of 3, without CUSP's GPU-specific breakeven of 4096 rows.
//! It is computed without allocation, by a binary search on `k` that counts the rows with
//! `len >= k` (the count never increases with `k`): `O(nrows log max_row_len)`.
//! [`HybLayout::with_width`] overrides it.

use crate::formats::csr_out;
use crate::formats::ell::{Ell, fill_ell, rows_plus_one};
use crate::formats::{Coo, Csr, check_buf, check_fits, checked_mul};
use crate::{FormatError, Index, Scalar};

/// A validated, borrowed HYB matrix (thesis 5.3.1): an [`Ell`] part plus a [`Coo`] part.
///
/// Invariants (checked by [`Hyb::new`]): both parts are valid views of their own format
/// (see [`Ell`] and [`Coo`]), they have the same `nrows` and `ncols`, and the total
/// entry count `ell.nnz() + coo.nnz()` fits `I`. The matrix is the sum of the parts, so a
/// position may appear in both (the values add up).
///
/// ```
/// use spblas::{Csr, Hyb, HybLayout, SpMv};
/// use spblas::Exec;
/// // Row lengths 1, 1, 1, 1, 1, 4: at least 2 of the 6 rows must reach K, so K = 1,
/// // and row 5 spills 3 entries into COO.
/// let a = Csr::new(6, 4, &[0u32, 1, 2, 3, 4, 5, 9], &[0, 1, 2, 3, 0, 0, 1, 2, 3], &[1.0f64; 9])?;
/// let layout = HybLayout::new(&a)?;
/// assert_eq!((layout.width(), layout.ell_len(), layout.coo_nnz()), (1, 6, 3));
/// let (mut ec, mut ev) = ([0u32; 6], [0.0; 6]);
/// let (mut cr, mut cc, mut cv) = ([0u32; 3], [0u32; 3], [0.0; 3]);
/// let hyb = Hyb::from_csr(&a, &layout, &mut ec, &mut ev, &mut cr, &mut cc, &mut cv)?;
/// assert_eq!(hyb.coo().row_idx(), &[5, 5, 5]);
/// let mut y = [0.0; 6];
/// hyb.spmv(Exec::new(), 1.0, &[1.0; 4], 0.0, &mut y)?;
/// assert_eq!(y, [1.0, 1.0, 1.0, 1.0, 1.0, 4.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Hyb<'a, T, I> {
    ell: Ell<'a, T, I>,
    coo: Coo<'a, T, I>,
}

/// The sizes of the HYB form of one CSR matrix for one ELL width `K`: the length of the
/// ELL buffers and of the COO buffers [`Hyb::from_csr`] needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HybLayout {
    width: usize,
    ell_len: usize,
    coo_nnz: usize,
}

impl HybLayout {
    /// The layout with `K` chosen by the split width rule of the [module docs](self): the
    /// largest `k` for which at least a third of the rows have `k` or more entries. Costs
    /// `O(nrows log max_row_len)`, no allocation.
    ///
    /// # Errors
    /// [`FormatError::TooLarge`] if `nrows * K` overflows `usize`.
    pub fn new<T: Scalar, I: Index>(csr: &Csr<'_, T, I>) -> Result<Self, FormatError> {
        Self::with_width(csr, split_width(csr))
    }

    /// The layout with a chosen ELL width `K` (any `K >= 0`; `K = 0` puts everything in
    /// COO, `K >= max_row_len` everything in ELL, and a larger `K` only adds padding).
    /// Costs one pass over `row_ptr`.
    ///
    /// # Errors
    /// [`FormatError::TooLarge`] if `nrows * K` overflows `usize`.
    pub fn with_width<T: Scalar, I: Index>(csr: &Csr<'_, T, I>, width: usize) -> Result<Self, FormatError> {
        let ell_len = checked_mul("nrows * width", csr.nrows(), width)?;
        let coo_nnz =
            csr.row_ptr().windows(2).map(|w| (w[1].to_usize() - w[0].to_usize()).saturating_sub(width)).sum();
        Ok(HybLayout { width, ell_len, coo_nnz })
    }

    /// The ELL width `K`.
    pub fn width(&self) -> usize {
        self.width
    }
    /// The length the ELL `col_idx`/`vals` buffers need: `nrows * K`.
    pub fn ell_len(&self) -> usize {
        self.ell_len
    }
    /// The length the COO `row_idx`/`col_idx`/`vals` buffers need: the entries beyond
    /// the first `K` of every row.
    pub fn coo_nnz(&self) -> usize {
        self.coo_nnz
    }
}

/// The split width rule of the module docs: the largest `k` in `0..=max_row_len` with
/// `#{i : len_i >= k} >= ceil(nrows / 3)`. `k = 0` always qualifies.
fn split_width<T: Scalar, I: Index>(csr: &Csr<'_, T, I>) -> usize {
    let need = csr.nrows().div_ceil(3);
    let rows_at_least =
        |k: usize| csr.row_ptr().windows(2).filter(|w| w[1].to_usize() - w[0].to_usize() >= k).count();
    // The answer lies in lo..=hi and `lo` always qualifies.
    let (mut lo, mut hi) = (0, csr.max_row_len());
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if rows_at_least(mid) >= need {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

impl<'a, T: Scalar, I: Index> Hyb<'a, T, I> {
    /// Joins two validated parts after checking that they describe the same shape.
    ///
    /// # Errors
    /// [`FormatError::Length`] (`"coo.nrows"` / `"coo.ncols"`, expecting the ELL part's
    /// dimension) if the shapes differ; [`FormatError::TooLarge`] if the total entry
    /// count does not fit `I`.
    pub fn new(ell: Ell<'a, T, I>, coo: Coo<'a, T, I>) -> Result<Self, FormatError> {
        if coo.nrows() != ell.nrows() {
            return Err(FormatError::Length { array: "coo.nrows", expected: ell.nrows(), got: coo.nrows() });
        }
        if coo.ncols() != ell.ncols() {
            return Err(FormatError::Length { array: "coo.ncols", expected: ell.ncols(), got: coo.ncols() });
        }
        let nnz = ell.nnz().saturating_add(coo.nnz());
        check_fits::<I>("nnz", nnz)?;
        Ok(Hyb { ell, coo })
    }

    /// Joins two parts without any check.
    ///
    /// # Safety
    /// The invariants listed on [`Hyb`] must hold: kernels index `y` with the COO part's
    /// rows and `x` with both parts' columns, sized by the ELL part's shape.
    #[allow(unsafe_code)] // declares a contract for the caller; the body is safe code
    pub unsafe fn new_unchecked(ell: Ell<'a, T, I>, coo: Coo<'a, T, I>) -> Self {
        Hyb { ell, coo }
    }

    /// Converts `csr` into the caller's buffers and returns the view over them: the ELL
    /// part (buffers at least `layout.ell_len()` long) gets the first `K` entries of each
    /// row, the COO part (buffers at least `layout.coo_nnz()` long) the rest of each row,
    /// in row order. Only those prefixes are written.
    ///
    /// `layout` supplies `K` only; the lengths are recomputed from `csr` (one pass over
    /// `row_ptr`), so a layout made for another matrix cannot cause a write out of bounds.
    ///
    /// # Errors
    /// [`FormatError::TooLarge`] if `nrows * K` overflows, [`FormatError::BufferTooSmall`];
    /// both before anything is written.
    pub fn from_csr(
        csr: &Csr<'_, T, I>,
        layout: &HybLayout,
        ell_col_idx: &'a mut [I],
        ell_vals: &'a mut [T],
        coo_row_idx: &'a mut [I],
        coo_col_idx: &'a mut [I],
        coo_vals: &'a mut [T],
    ) -> Result<Self, FormatError> {
        let layout = HybLayout::with_width(csr, layout.width)?;
        let (el, cn) = (layout.ell_len, layout.coo_nnz);
        check_buf("ell_col_idx", ell_col_idx.len(), el)?;
        check_buf("ell_vals", ell_vals.len(), el)?;
        check_buf("coo_row_idx", coo_row_idx.len(), cn)?;
        check_buf("coo_col_idx", coo_col_idx.len(), cn)?;
        check_buf("coo_vals", coo_vals.len(), cn)?;
        let (ell_col_idx, ell_vals) = (&mut ell_col_idx[..el], &mut ell_vals[..el]);
        let (coo_row_idx, coo_col_idx, coo_vals) =
            (&mut coo_row_idx[..cn], &mut coo_col_idx[..cn], &mut coo_vals[..cn]);
        let ell_nnz = fill_hyb(csr, layout.width, ell_col_idx, ell_vals, coo_row_idx, coo_col_idx, coo_vals);
        let (m, n) = csr.shape();
        let ell = Ell::from_filled(m, n, layout.width, ell_col_idx, ell_vals, ell_nnz);
        let coo = Coo::new(m, n, coo_row_idx, coo_col_idx, coo_vals)?;
        Ok(Hyb { ell, coo })
    }

    /// Converts back to CSR in the caller's buffers (`row_ptr` at least `nrows + 1` long,
    /// the others at least `nnz`; only those prefixes are written). Each row holds its ELL
    /// entries first, in slot order, then its COO entries in COO order, so
    /// CSR → HYB → CSR gives back the same arrays. No workspace beyond the outputs:
    /// `row_ptr` serves as the scatter cursor.
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
        let (m, nnz) = (self.nrows(), self.nnz());
        rows_plus_one(m)?;
        let (row_ptr, col_idx, vals) = csr_out(m, nnz, row_ptr, col_idx, vals)?;
        let (ell, coo) = (&self.ell, &self.coo);
        // Count row lengths into row_ptr[i + 1], then prefix-sum into row starts.
        row_ptr.fill(I::ZERO);
        for i in 0..m {
            row_ptr[i + 1] = I::from_usize_unchecked(ell.row_slots(i).count());
        }
        for &r in coo.row_idx() {
            let r = r.to_usize();
            row_ptr[r + 1] = I::from_usize_unchecked(row_ptr[r + 1].to_usize() + 1);
        }
        for i in 0..m {
            row_ptr[i + 1] = I::from_usize_unchecked(row_ptr[i + 1].to_usize() + row_ptr[i].to_usize());
        }
        // row_ptr[i] is now the start of row i; use it as the cursor of row i.
        let (ell_col, ell_val) = (ell.col_idx(), ell.vals());
        for (i, cursor) in row_ptr[..m].iter_mut().enumerate() {
            let mut dst = cursor.to_usize();
            for p in ell.row_slots(i) {
                col_idx[dst] = ell_col[p];
                vals[dst] = ell_val[p];
                dst += 1;
            }
            *cursor = I::from_usize_unchecked(dst);
        }
        for ((&r, &c), &v) in coo.row_idx().iter().zip(coo.col_idx()).zip(coo.vals()) {
            let r = r.to_usize();
            let dst = row_ptr[r].to_usize();
            col_idx[dst] = c;
            vals[dst] = v;
            row_ptr[r] = I::from_usize_unchecked(dst + 1);
        }
        // Each cursor ended at its row's end, the next row's start: shift back.
        for i in (1..=m).rev() {
            row_ptr[i] = row_ptr[i - 1];
        }
        row_ptr[0] = I::ZERO;
        Csr::new(m, self.ncols(), row_ptr, col_idx, vals)
    }

    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.ell.nrows()
    }
    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.ell.ncols()
    }
    /// `(nrows, ncols)`.
    pub fn shape(&self) -> (usize, usize) {
        self.ell.shape()
    }
    /// The ELL width `K`.
    pub fn width(&self) -> usize {
        self.ell.width()
    }
    /// Number of stored entries in both parts (padding excluded).
    pub fn nnz(&self) -> usize {
        self.ell.nnz() + self.coo.nnz()
    }
    /// The ELL part.
    pub fn ell(&self) -> Ell<'a, T, I> {
        self.ell
    }
    /// The COO part.
    pub fn coo(&self) -> Coo<'a, T, I> {
        self.coo
    }
    /// Iterates over the stored entries as `(row, col, value)`: the ELL part row after
    /// row, then the COO part in its order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, usize, T)> + use<'a, T, I> {
        let coo = self.coo;
        let coo_entries = coo
            .row_idx()
            .iter()
            .zip(coo.col_idx())
            .zip(coo.vals())
            .map(|((&r, &c), &v)| (r.to_usize(), c.to_usize(), v));
        self.ell.iter().chain(coo_entries)
    }
}

/// Splits `csr` at width `k`: the first `k` entries of each row into the ELL buffers
/// (exactly `nrows * k`), the rest into the COO buffers (exactly the layout's `coo_nnz`),
/// in row order. Returns the ELL part's entry count. Shared by [`Hyb::from_csr`] and
/// [`HybOwned`].
fn fill_hyb<T: Scalar, I: Index>(
    csr: &Csr<'_, T, I>,
    k: usize,
    ell_col: &mut [I],
    ell_val: &mut [T],
    coo_row: &mut [I],
    coo_col: &mut [I],
    coo_val: &mut [T],
) -> usize {
    let ell_nnz = fill_ell(csr, k, ell_col, ell_val);
    let (col_idx, vals) = (csr.col_idx(), csr.vals());
    let mut dst = 0;
    for (i, w) in csr.row_ptr().windows(2).enumerate() {
        let (start, end) = (w[0].to_usize(), w[1].to_usize());
        for p in (start + k).min(end)..end {
            coo_row[dst] = I::from_usize_unchecked(i);
            coo_col[dst] = col_idx[p];
            coo_val[dst] = vals[p];
            dst += 1;
        }
    }
    ell_nnz
}

#[cfg(feature = "alloc")]
pub use owned::HybOwned;

#[cfg(feature = "alloc")]
mod owned {
    use super::{Hyb, HybLayout, fill_hyb};
    use crate::formats::ell::EllOwned;
    use crate::formats::try_vec;
    use crate::formats::{CooOwned, Csr, pad};
    use crate::{FormatError, Index, Scalar};

    /// A HYB matrix that owns its parts (feature `alloc`); [`HybOwned::view`] lends the
    /// validated [`Hyb`] every kernel takes. Same invariants as [`Hyb`].
    #[derive(Clone, Debug, PartialEq)]
    pub struct HybOwned<T, I> {
        ell: EllOwned<T, I>,
        coo: CooOwned<T, I>,
    }

    impl<T: Scalar, I: Index> HybOwned<T, I> {
        /// Joins two owned parts after the checks of [`Hyb::new`].
        ///
        /// # Errors
        /// As [`Hyb::new`].
        pub fn from_parts(ell: EllOwned<T, I>, coo: CooOwned<T, I>) -> Result<Self, FormatError> {
            Hyb::new(ell.view(), coo.view())?;
            Ok(HybOwned { ell, coo })
        }

        /// Converts a CSR view with `K` chosen by the split width rule (see
        /// [`HybLayout::new`] and [`Hyb::from_csr`]).
        ///
        /// # Errors
        /// As [`HybOwned::from_csr_width`].
        pub fn from_csr(csr: &Csr<'_, T, I>) -> Result<Self, FormatError> {
            let layout = HybLayout::new(csr)?;
            Self::from_csr_width(csr, layout.width())
        }

        /// Converts a CSR view with ELL width `width` (any value, see
        /// [`HybLayout::with_width`]).
        ///
        /// # Errors
        /// [`FormatError::TooLarge`] if `nrows * width` overflows or the arrays cannot be
        /// allocated.
        pub fn from_csr_width(csr: &Csr<'_, T, I>, width: usize) -> Result<Self, FormatError> {
            let layout = HybLayout::with_width(csr, width)?;
            let (el, cn) = (layout.ell_len(), layout.coo_nnz());
            let mut ell_col = try_vec("HYB ell col_idx", el, pad::<I>())?;
            let mut ell_val = try_vec("HYB ell vals", el, T::ZERO)?;
            let mut coo_row = try_vec("HYB coo row_idx", cn, I::ZERO)?;
            let mut coo_col = try_vec("HYB coo col_idx", cn, I::ZERO)?;
            let mut coo_val = try_vec("HYB coo vals", cn, T::ZERO)?;
            let ell_nnz =
                fill_hyb(csr, width, &mut ell_col, &mut ell_val, &mut coo_row, &mut coo_col, &mut coo_val);
            let (m, n) = csr.shape();
            let ell = EllOwned::from_filled(m, n, width, ell_col, ell_val, ell_nnz);
            let coo = CooOwned::from_parts(m, n, coo_row, coo_col, coo_val)?;
            Ok(HybOwned { ell, coo })
        }

        /// The validated view.
        pub fn view(&self) -> Hyb<'_, T, I> {
            Hyb { ell: self.ell.view(), coo: self.coo.view() }
        }

        /// Number of rows.
        pub fn nrows(&self) -> usize {
            self.ell.nrows()
        }
        /// Number of columns.
        pub fn ncols(&self) -> usize {
            self.ell.ncols()
        }
        /// The ELL width `K`.
        pub fn width(&self) -> usize {
            self.ell.width()
        }
        /// Number of stored entries in both parts.
        pub fn nnz(&self) -> usize {
            self.ell.nnz() + self.coo.view().nnz()
        }
        /// Gives the parts back.
        pub fn into_parts(self) -> (EllOwned<T, I>, CooOwned<T, I>) {
            (self.ell, self.coo)
        }
    }
}
