//! Compressed Sparse Row (thesis 5.2.4): `row_ptr` (nrows + 1), `col_idx` and `vals` (nnz).

use crate::formats::csr_out;
use crate::formats::{any_at_or_above, check_buf, check_col, check_dims, check_len, check_ptr, count_pairs};
use crate::{FormatError, Index, Scalar};

/// How the column indices inside each row are ordered, as found by validation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RowOrder {
    /// Some row has a column index smaller than its predecessor. Such a row may also hold
    /// duplicates; kernels sum them.
    Unsorted,
    /// Every row is sorted by column, but some column appears twice in a row.
    Sorted,
    /// Every row is strictly increasing: sorted, no duplicates.
    Canonical,
}

/// The most column panels [`CsrOwned::column_panels`] makes (each holds a `row_ptr`
/// of `nrows + 1` entries).
pub const MAX_PANELS: usize = 256;

/// A validated, borrowed CSR matrix.
///
/// Invariants (checked by [`Csr::new`]):
/// - `row_ptr.len() == nrows + 1`, `row_ptr[0] == 0`, `row_ptr` never decreases and
///   `row_ptr[nrows] == nnz == col_idx.len() == vals.len()`;
/// - every `col_idx[k] < ncols`;
/// - `nrows`, `nnz` fit `I` and `ncols < I::MAX` (the padding marker stays free).
///
/// Rows may be unsorted and hold duplicates (their values add up); [`Csr::row_order`]
/// says which case holds.
#[derive(Clone, Copy, Debug)]
pub struct Csr<'a, T, I> {
    nrows: usize,
    ncols: usize,
    row_ptr: &'a [I],
    col_idx: &'a [I],
    vals: &'a [T],
    order: RowOrder,
}

impl<'a, T: Scalar, I: Index> Csr<'a, T, I> {
    /// Builds a view after checking every invariant listed on [`Csr`] and records the
    /// [`RowOrder`]. Costs one pass over `row_ptr` and `col_idx`.
    ///
    /// # Errors
    /// The first violated invariant: [`FormatError::Length`], [`FormatError::TooLarge`],
    /// [`FormatError::PtrStart`], [`FormatError::PtrDecreasing`], [`FormatError::PtrEnd`]
    /// or [`FormatError::ColumnOutOfBounds`]; [`FormatError::NegativeIndex`] for a negative
    /// `i32` / `i64` entry of `row_ptr` or `col_idx` in their place.
    pub fn new(
        nrows: usize,
        ncols: usize,
        row_ptr: &'a [I],
        col_idx: &'a [I],
        vals: &'a [T],
    ) -> Result<Self, FormatError> {
        let nnz = col_idx.len();
        check_dims::<I>(nrows, ncols, nnz)?;
        check_len("row_ptr", row_ptr.len(), nrows + 1)?;
        check_len("vals", vals.len(), nnz)?;
        check_ptr("row_ptr", row_ptr, nnz)?;
        // Branch-free passes over all of `col_idx` (vectorised), the row loop only to
        // locate an out-of-bounds column and to discount the pairs that straddle rows.
        if any_at_or_above(col_idx, ncols) {
            for (row, w) in row_ptr.windows(2).enumerate() {
                let start = w[0].to_usize();
                for (k, &c) in col_idx[start..w[1].to_usize()].iter().enumerate() {
                    check_col(c, ncols, row, start + k)?;
                }
            }
        }
        let (mut lt, mut eq) = count_pairs(col_idx);
        for w in row_ptr.windows(2) {
            let (start, end) = (w[0].to_usize(), w[1].to_usize());
            // The first entry of a non-empty row (each position is one at most once)
            // against the last of the rows before.
            if start > 0 && start < end {
                let (c, p) = (col_idx[start], col_idx[start - 1]);
                lt -= usize::from(c < p);
                eq -= usize::from(c == p);
            }
        }
        let order = if lt > 0 {
            RowOrder::Unsorted
        } else if eq > 0 {
            RowOrder::Sorted
        } else {
            RowOrder::Canonical
        };
        Ok(Csr { nrows, ncols, row_ptr, col_idx, vals, order })
    }

    /// Builds a view without any check.
    ///
    /// # Safety
    /// Every invariant listed on [`Csr`] must hold and `order` must be true of the rows
    /// (claiming [`RowOrder::Unsorted`] is always true). SIMD kernels read `x[col_idx[k]]`
    /// and `vals[row_ptr[i]..row_ptr[i + 1]]` without bounds checks.
    #[allow(unsafe_code)] // declares a contract for the caller; the body is safe code
    pub unsafe fn new_unchecked(
        nrows: usize,
        ncols: usize,
        row_ptr: &'a [I],
        col_idx: &'a [I],
        vals: &'a [T],
        order: RowOrder,
    ) -> Self {
        Csr { nrows, ncols, row_ptr, col_idx, vals, order }
    }

    /// [`Csr::new_unchecked`] for views whose invariants the crate has established
    /// (`Csc::new_unchecked` passes its caller's contract on): safe to call, the
    /// contract stays with the caller.
    pub(crate) fn trusted(
        nrows: usize,
        ncols: usize,
        row_ptr: &'a [I],
        col_idx: &'a [I],
        vals: &'a [T],
        order: RowOrder,
    ) -> Self {
        Csr { nrows, ncols, row_ptr, col_idx, vals, order }
    }

    /// Builds the canonical matrix ([`RowOrder::Canonical`]: rows sorted, no duplicates)
    /// of `(row, col, value)` triplets in any order, in the caller's buffers: no allocator
    /// needed. Duplicates are added up in the order they are given and explicit zeros are
    /// kept, so the result equals `CsrOwned::from_triplets`'s bit for bit (which is this
    /// function in allocated buffers).
    ///
    /// `row_ptr` must hold `nrows + 1` indices, `col_idx` and `vals` one slot per triplet,
    /// duplicates included (`col_idx` is the conversion's scratch space). The view covers
    /// the prefixes written: its `nnz` is the number of distinct cells. Time
    /// `O(nrows + nnz log(longest row))` on any input, no workspace beyond the outputs.
    ///
    /// ```
    /// use spblas::{Csr, RowOrder};
    /// // Firmware-style fixed buffers; (0, 2) is given twice and adds up.
    /// let triplets = [(1, 0, 4.0f32), (0, 2, 1.0), (0, 0, 3.0), (0, 2, 0.5)];
    /// let (mut row_ptr, mut col_idx, mut vals) = ([0u32; 3], [0u32; 4], [0.0f32; 4]);
    /// let a = Csr::from_triplets(2, 3, &triplets, &mut row_ptr, &mut col_idx, &mut vals)?;
    /// assert_eq!(a.row_order(), RowOrder::Canonical);
    /// assert_eq!((a.row_ptr(), a.col_idx(), a.vals()), (&[0, 2, 3][..], &[0, 2, 0][..], &[3.0, 1.5, 4.0][..]));
    /// # Ok::<(), spblas::FormatError>(())
    /// ```
    ///
    /// # Errors
    /// [`FormatError::TooLarge`] if a dimension or the triplet count does not fit `I`;
    /// [`FormatError::BufferTooSmall`] if a buffer is shorter than stated above;
    /// [`FormatError::RowOutOfBounds`] / [`FormatError::ColumnOutOfBounds`] naming the
    /// first triplet outside the matrix. Nothing is written then.
    pub fn from_triplets(
        nrows: usize,
        ncols: usize,
        triplets: &[(usize, usize, T)],
        row_ptr: &'a mut [I],
        col_idx: &'a mut [I],
        vals: &'a mut [T],
    ) -> Result<Self, FormatError> {
        let nnz = triplets.len();
        check_dims::<I>(nrows, ncols, nnz)?;
        let (row_ptr, col_idx, vals) = csr_out(nrows, nnz, row_ptr, col_idx, vals)?;
        check_triplets(nrows, ncols, triplets)?;
        Ok(canonical_into(nrows, ncols, triplets, row_ptr, col_idx, vals))
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
    /// Number of stored entries (duplicates and explicit zeros included).
    pub fn nnz(&self) -> usize {
        self.col_idx.len()
    }
    /// Row pointers, `nrows + 1` entries.
    pub fn row_ptr(&self) -> &'a [I] {
        self.row_ptr
    }
    /// Column indices, row after row.
    pub fn col_idx(&self) -> &'a [I] {
        self.col_idx
    }
    /// Values, aligned with [`Csr::col_idx`].
    pub fn vals(&self) -> &'a [T] {
        self.vals
    }
    /// How column indices are ordered inside rows.
    pub fn row_order(&self) -> RowOrder {
        self.order
    }
    /// Row `i` as `(col_idx, vals)`, `None` if `i >= nrows`.
    pub fn row(&self, i: usize) -> Option<(&'a [I], &'a [T])> {
        let r = self.row_range(i)?;
        Some((&self.col_idx[r.clone()], &self.vals[r]))
    }
    /// The positions of row `i` in `col_idx`/`vals`, `None` if `i >= nrows`.
    pub fn row_range(&self, i: usize) -> Option<core::ops::Range<usize>> {
        if i >= self.nrows {
            return None;
        }
        Some(self.row_ptr[i].to_usize()..self.row_ptr[i + 1].to_usize())
    }
    /// Length of the longest row (0 for a matrix without rows).
    pub fn max_row_len(&self) -> usize {
        self.row_ptr.windows(2).map(|w| w[1].to_usize() - w[0].to_usize()).max().unwrap_or(0)
    }
    /// Iterates over the stored entries as `(row, col, value)`, in storage order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, usize, T)> + 'a {
        let (col_idx, vals) = (self.col_idx, self.vals);
        self.row_ptr.windows(2).enumerate().flat_map(move |(i, w)| {
            let r = w[0].to_usize()..w[1].to_usize();
            col_idx[r.clone()].iter().zip(&vals[r]).map(move |(&c, &v)| (i, c.to_usize(), v))
        })
    }

    /// Lengths `(row_ptr, col_idx and vals)` of the buffers [`Csr::transpose_into`] needs:
    /// `(ncols + 1, nnz)`.
    pub fn transpose_len(&self) -> (usize, usize) {
        (self.ncols + 1, self.nnz())
    }

    /// Writes `Aᵀ` in CSR (that is, `A` in CSC) into `row_ptr_t[..ncols + 1]`,
    /// `col_idx_t[..nnz]`, `vals_t[..nnz]` by a stable counting sort on the column index,
    /// and returns the view of them. Rows of `Aᵀ` come out sorted by column (the row of
    /// `A`), so the result is [`RowOrder::Canonical`] unless `A` stores some `(i, j)`
    /// twice ([`RowOrder::Sorted`] then). Used for `A·Aᵀ` (thesis 9.5).
    ///
    /// # Errors
    /// [`FormatError::TooLarge`] if `ncols + 1` does not fit `I`;
    /// [`FormatError::BufferTooSmall`] if a buffer is shorter than [`Csr::transpose_len`]
    /// says. Nothing is written then.
    pub fn transpose_into<'b>(
        &self,
        row_ptr_t: &'b mut [I],
        col_idx_t: &'b mut [I],
        vals_t: &'b mut [T],
    ) -> Result<Csr<'b, T, I>, FormatError> {
        let (np, nnz) = self.transpose_len();
        check_dims::<I>(self.ncols, self.nrows, nnz)?;
        check_buf("row_ptr_t", row_ptr_t.len(), np)?;
        check_buf("col_idx_t", col_idx_t.len(), nnz)?;
        check_buf("vals_t", vals_t.len(), nnz)?;
        let (row_ptr_t, col_idx_t, vals_t) =
            (&mut row_ptr_t[..np], &mut col_idx_t[..nnz], &mut vals_t[..nnz]);
        // Counts shifted by one, then a scan: row_ptr_t[j + 1] = entries in columns < j + 1.
        row_ptr_t.fill(I::ZERO);
        let mut counts_ok = true;
        for &c in self.col_idx {
            let slot = &mut row_ptr_t[c.to_usize() + 1];
            match I::from_usize(slot.to_usize() + 1) {
                Some(v) => *slot = v,
                None => counts_ok = false,
            }
        }
        if !counts_ok {
            // Not reached: every count is at most nnz, which fits `I` (checked above).
            return Err(FormatError::TooLarge { what: "nnz", value: nnz, max: I::MAX_USIZE });
        }
        let mut sum = 0usize;
        for p in row_ptr_t.iter_mut() {
            sum += p.to_usize();
            *p = I::from_usize_unchecked(sum);
        }
        // Scatter, using row_ptr_t[j] as the next free slot of column j; afterwards each
        // slot holds the next column's start, so shift back by one.
        for i in 0..self.nrows {
            let r = self.row_ptr[i].to_usize()..self.row_ptr[i + 1].to_usize();
            for (&c, &v) in self.col_idx[r.clone()].iter().zip(&self.vals[r]) {
                let j = c.to_usize();
                let dst = row_ptr_t[j].to_usize();
                col_idx_t[dst] = I::from_usize_unchecked(i);
                vals_t[dst] = v;
                row_ptr_t[j] = I::from_usize_unchecked(dst + 1);
            }
        }
        for j in (1..np).rev() {
            row_ptr_t[j] = row_ptr_t[j - 1];
        }
        row_ptr_t[0] = I::ZERO;
        let mut order = RowOrder::Canonical;
        for w in row_ptr_t.windows(2) {
            if col_idx_t[w[0].to_usize()..w[1].to_usize()].windows(2).any(|p| p[0] == p[1]) {
                order = RowOrder::Sorted;
                break;
            }
        }
        Ok(Csr {
            nrows: self.ncols,
            ncols: self.nrows,
            row_ptr: row_ptr_t,
            col_idx: col_idx_t,
            vals: vals_t,
            order,
        })
    }

    /// Writes the matrix densely, row-major, into `out[..nrows * ncols]`, adding up
    /// duplicates.
    ///
    /// # Errors
    /// [`FormatError::TooLarge`] if `nrows * ncols` overflows, [`FormatError::BufferTooSmall`]
    /// if `out` is shorter; `out` is untouched then.
    pub fn to_dense(&self, out: &mut [T]) -> Result<(), FormatError> {
        let len = crate::formats::checked_mul("nrows * ncols", self.nrows, self.ncols)?;
        check_buf("out", out.len(), len)?;
        out[..len].fill(T::ZERO);
        for (i, j, v) in self.iter() {
            out[i * self.ncols + j] += v;
        }
        Ok(())
    }
}

/// Checks every triplet against the shape: the first one outside it, row first.
pub(crate) fn check_triplets<T>(
    nrows: usize,
    ncols: usize,
    triplets: &[(usize, usize, T)],
) -> Result<(), FormatError> {
    for (position, &(r, c, _)) in triplets.iter().enumerate() {
        if r >= nrows {
            return Err(FormatError::RowOutOfBounds { position, row: r, nrows });
        }
        if c >= ncols {
            return Err(FormatError::ColumnOutOfBounds { row: r, position, col: c, ncols });
        }
    }
    Ok(())
}

/// Matrix entries in any order, read by position `k < len()`: what [`canonical_into`]
/// sorts (COO arrays, triplets), without copying them into one layout first.
pub(crate) trait Entries<T, I> {
    /// Number of entries.
    fn count(&self) -> usize;
    /// Row of entry `k`.
    fn row(&self, k: usize) -> usize;
    /// Column of entry `k`.
    fn col(&self, k: usize) -> I;
    /// Value of entry `k`.
    fn val(&self, k: usize) -> T;
}

impl<T: Scalar, I: Index> Entries<T, I> for [(usize, usize, T)] {
    fn count(&self) -> usize {
        self.len()
    }
    fn row(&self, k: usize) -> usize {
        self[k].0
    }
    fn col(&self, k: usize) -> I {
        I::from_usize_unchecked(self[k].1)
    }
    fn val(&self, k: usize) -> T {
        self[k].2
    }
}

/// Writes the canonical CSR of `entries` into `row_ptr` (exactly `nrows + 1`), `col_idx`
/// and `vals` (exactly `entries.count()`), and returns the view over the distinct
/// entries. The caller has checked the dimensions against `I` and every entry against
/// the shape. The one implementation behind every triplet and COO conversion to
/// canonical CSR, with or without an allocator.
///
/// No workspace: the entries' positions are sorted in `col_idx` itself. First a stable
/// counting sort by row (`row_ptr` counts, then scatters); then each row's positions by
/// `(column, position)`, a unique key, so an unstable in-place sort (`O(n log n)` on any
/// input, a single long row included) keeps the duplicates of a cell in input order;
/// last a gather that overwrites each position with its column and adds duplicates into
/// the first, in input order, compacting towards the front (writes never pass reads).
pub(crate) fn canonical_into<'b, T: Scalar, I: Index, E: Entries<T, I> + ?Sized>(
    nrows: usize,
    ncols: usize,
    entries: &E,
    row_ptr: &'b mut [I],
    col_idx: &'b mut [I],
    vals: &'b mut [T],
) -> Csr<'b, T, I> {
    let nnz = entries.count();
    // Counts shifted by one, then a scan: row_ptr[i] = start of row i.
    row_ptr.fill(I::ZERO);
    for k in 0..nnz {
        let slot = &mut row_ptr[entries.row(k) + 1];
        *slot = I::from_usize_unchecked(slot.to_usize() + 1);
    }
    for i in 0..nrows {
        row_ptr[i + 1] = I::from_usize_unchecked(row_ptr[i + 1].to_usize() + row_ptr[i].to_usize());
    }
    // Scatter positions, row_ptr[r] as row r's cursor; then shift back by one.
    for k in 0..nnz {
        let r = entries.row(k);
        let dst = row_ptr[r].to_usize();
        col_idx[dst] = I::from_usize_unchecked(k);
        row_ptr[r] = I::from_usize_unchecked(dst + 1);
    }
    for i in (1..=nrows).rev() {
        row_ptr[i] = row_ptr[i - 1];
    }
    row_ptr[0] = I::ZERO;
    for i in 0..nrows {
        let row = &mut col_idx[row_ptr[i].to_usize()..row_ptr[i + 1].to_usize()];
        row.sort_unstable_by_key(|&k| (entries.col(k.to_usize()), k));
    }
    // Gather and compact: slot `p` is read before any write reaches it (`w <= p`).
    let (mut w, mut start) = (0usize, 0usize);
    for i in 0..nrows {
        let end = row_ptr[i + 1].to_usize();
        row_ptr[i] = I::from_usize_unchecked(w);
        let first = w;
        for p in start..end {
            let k = col_idx[p].to_usize();
            let (c, v) = (entries.col(k), entries.val(k));
            if w > first && col_idx[w - 1] == c {
                vals[w - 1] += v;
            } else {
                col_idx[w] = c;
                vals[w] = v;
                w += 1;
            }
        }
        start = end;
    }
    row_ptr[nrows] = I::from_usize_unchecked(w);
    Csr { nrows, ncols, row_ptr, col_idx: &col_idx[..w], vals: &vals[..w], order: RowOrder::Canonical }
}

#[cfg(feature = "alloc")]
pub use owned::CsrOwned;

#[cfg(feature = "alloc")]
mod owned {
    use alloc::vec::Vec;

    use super::{Csr, MAX_PANELS, RowOrder, canonical_into, check_triplets};
    use crate::formats::{check_dims, try_copy, try_room, try_vec, try_vec_paged};
    use crate::{FormatError, Index, Scalar};

    /// A CSR matrix that owns its arrays (feature `alloc`); [`CsrOwned::view`] lends the
    /// validated [`Csr`] every kernel takes.
    #[derive(Clone, Debug, PartialEq)]
    pub struct CsrOwned<T, I> {
        nrows: usize,
        ncols: usize,
        row_ptr: Vec<I>,
        col_idx: Vec<I>,
        vals: Vec<T>,
        order: RowOrder,
    }

    impl<T: Scalar, I: Index> CsrOwned<T, I> {
        /// Takes ownership of CSR arrays after validating them as [`Csr::new`] does.
        ///
        /// # Errors
        /// As [`Csr::new`].
        pub fn from_parts(
            nrows: usize,
            ncols: usize,
            row_ptr: Vec<I>,
            col_idx: Vec<I>,
            vals: Vec<T>,
        ) -> Result<Self, FormatError> {
            let order = Csr::new(nrows, ncols, &row_ptr, &col_idx, &vals)?.row_order();
            Ok(CsrOwned { nrows, ncols, row_ptr, col_idx, vals, order })
        }

        /// Takes ownership of arrays the crate built and knows valid (every invariant of
        /// [`Csr`] holds, `order` is true of the rows); no pass over them.
        pub(crate) fn from_parts_trusted(
            nrows: usize,
            ncols: usize,
            row_ptr: Vec<I>,
            col_idx: Vec<I>,
            vals: Vec<T>,
            order: RowOrder,
        ) -> Self {
            CsrOwned { nrows, ncols, row_ptr, col_idx, vals, order }
        }

        /// Copies a view.
        ///
        /// # Errors
        /// [`FormatError::TooLarge`] where the memory for a copy is not there.
        pub fn from_csr(csr: &Csr<'_, T, I>) -> Result<Self, FormatError> {
            Ok(CsrOwned {
                nrows: csr.nrows,
                ncols: csr.ncols,
                row_ptr: try_copy("row_ptr", csr.row_ptr)?,
                col_idx: try_copy("col_idx", csr.col_idx)?,
                vals: try_copy("vals", csr.vals)?,
                order: csr.order,
            })
        }

        /// Splits `csr` by columns into `ceil(ncols / columns)` panels (one when `ncols`
        /// is 0): panel `p` holds the entries of columns `p * columns ..
        /// (p + 1) * columns`, every row in its original order. Each panel keeps the
        /// whole `nrows × ncols` shape and the global column indices, so every panel
        /// multiplies the whole `x` and the panels' products add up to `csr`'s. The
        /// panels of the cache-blocked SpMV plan ([`crate::level2::SpmvChoice::Csr5Panels`]):
        /// each reads only its stretch of `x`, which a core's L2 cache can hold.
        ///
        /// # Errors
        /// [`FormatError::Parameter`] (`"columns"`) if `columns` is 0 or makes more than
        /// [`MAX_PANELS`] panels; [`FormatError::TooLarge`] if the panels' arrays cannot
        /// be allocated.
        pub fn column_panels(csr: &Csr<'_, T, I>, columns: usize) -> Result<Vec<Self>, FormatError> {
            CsrOwned::column_panels_paged(csr, columns, false)
        }

        /// [`CsrOwned::column_panels`], the panels' entry arrays backed by huge pages if
        /// `huge` ([`crate::level2::SpmvConfig::huge_pages`]).
        pub(crate) fn column_panels_paged(
            csr: &Csr<'_, T, I>,
            columns: usize,
            huge: bool,
        ) -> Result<Vec<Self>, FormatError> {
            let np = csr.ncols.div_ceil(columns.max(1)).max(1);
            if columns == 0 || np > MAX_PANELS {
                return Err(FormatError::Parameter { name: "columns", value: columns });
            }
            let room = |what| FormatError::TooLarge { what, value: np, max: MAX_PANELS };
            let mut ptrs: Vec<Vec<I>> = Vec::new();
            ptrs.try_reserve_exact(np).map_err(|_| room("panels"))?;
            for _ in 0..np {
                ptrs.push(try_vec("row_ptr", csr.nrows + 1, I::ZERO)?);
            }
            // Counts per panel and row, then a running sum per panel. Every count fits
            // `I`, being at most `csr`'s own `nnz`.
            let mut counts = try_vec("panel nnz", np, 0usize)?;
            for i in 0..csr.nrows {
                let r = csr.row_ptr[i].to_usize()..csr.row_ptr[i + 1].to_usize();
                for &c in &csr.col_idx[r] {
                    counts[c.to_usize() / columns] += 1;
                }
                for (ptr, &n) in ptrs.iter_mut().zip(&counts) {
                    ptr[i + 1] = I::from_usize_unchecked(n);
                }
            }
            let mut cols = Vec::new();
            let mut vals = Vec::new();
            cols.try_reserve_exact(np).map_err(|_| room("panels"))?;
            vals.try_reserve_exact(np).map_err(|_| room("panels"))?;
            for &n in &counts {
                cols.push(try_vec_paged("col_idx", n, I::ZERO, huge)?);
                vals.push(try_vec_paged("vals", n, T::ZERO, huge)?);
            }
            // Entries come in row order, so each panel's cursor only moves forward.
            counts.fill(0);
            for (&c, &v) in csr.col_idx.iter().zip(csr.vals) {
                let p = c.to_usize() / columns;
                cols[p][counts[p]] = c;
                vals[p][counts[p]] = v;
                counts[p] += 1;
            }
            // A panel's rows are pieces of `csr`'s, so a canonical matrix has canonical
            // panels; another's may lose their disorder or duplicates to other panels,
            // and are checked again for their own `RowOrder`.
            let mut panels = try_room("panels", np)?;
            for ((rp, ci), v) in ptrs.into_iter().zip(cols).zip(vals) {
                panels.push(match csr.order {
                    RowOrder::Canonical => {
                        CsrOwned::from_parts_trusted(csr.nrows, csr.ncols, rp, ci, v, RowOrder::Canonical)
                    }
                    _ => CsrOwned::from_parts(csr.nrows, csr.ncols, rp, ci, v)?,
                });
            }
            Ok(panels)
        }

        /// Builds a canonical matrix (rows sorted, no duplicates) from `(row, col, value)`
        /// triplets in any order. Duplicates are added up in the order they are given;
        /// explicit zeros are kept. [`Csr::from_triplets`] in allocated buffers (the same
        /// code, so the same bits), trimmed to the distinct entries.
        ///
        /// # Errors
        /// [`FormatError::TooLarge`] if a dimension or the entry count does not fit `I`,
        /// or the arrays cannot be allocated;
        /// [`FormatError::RowOutOfBounds`] / [`FormatError::ColumnOutOfBounds`] naming the
        /// first triplet outside the matrix.
        pub fn from_triplets(
            nrows: usize,
            ncols: usize,
            triplets: &[(usize, usize, T)],
        ) -> Result<Self, FormatError> {
            let nnz = triplets.len();
            check_dims::<I>(nrows, ncols, nnz)?;
            // A huge `nrows` with few triplets must be an error, not an allocation abort.
            let mut row_ptr = try_vec("nrows + 1", nrows + 1, I::ZERO)?;
            check_triplets(nrows, ncols, triplets)?;
            let mut col_idx = try_vec("col_idx", nnz, I::ZERO)?;
            let mut vals = try_vec("vals", nnz, T::ZERO)?;
            let nnz = canonical_into(nrows, ncols, triplets, &mut row_ptr, &mut col_idx, &mut vals).nnz();
            col_idx.truncate(nnz);
            vals.truncate(nnz);
            Ok(CsrOwned { nrows, ncols, row_ptr, col_idx, vals, order: RowOrder::Canonical })
        }

        /// The validated view.
        pub fn view(&self) -> Csr<'_, T, I> {
            Csr {
                nrows: self.nrows,
                ncols: self.ncols,
                row_ptr: &self.row_ptr,
                col_idx: &self.col_idx,
                vals: &self.vals,
                order: self.order,
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
        /// Number of stored entries.
        pub fn nnz(&self) -> usize {
            self.col_idx.len()
        }
        /// Mutable access to the values; the sparsity pattern stays fixed.
        pub fn vals_mut(&mut self) -> &mut [T] {
            &mut self.vals
        }
        /// Gives the arrays back: `(nrows, ncols, row_ptr, col_idx, vals)`.
        pub fn into_parts(self) -> (usize, usize, Vec<I>, Vec<I>, Vec<T>) {
            (self.nrows, self.ncols, self.row_ptr, self.col_idx, self.vals)
        }
    }
}

#[cfg(feature = "heapless")]
pub use fixed::CsrHeapless;

#[cfg(feature = "heapless")]
mod fixed {
    use heapless::Vec;

    use super::{Csr, RowOrder, canonical_into, check_triplets};
    use crate::formats::{Coo, check_buf, check_dims};
    use crate::{FormatError, Index, Scalar};

    /// A CSR matrix that owns its arrays in fixed-capacity storage (feature `heapless`):
    /// `CsrOwned`'s conveniences for firmware without an allocator, the capacities fixed
    /// at compile time so the matrix can live on the stack or in a `static`.
    ///
    /// `ROW_PTR` is the room for `row_ptr`, so the matrix holds at most `ROW_PTR - 1` rows;
    /// `NNZ` the room for stored entries. Built through the same code as
    /// [`Csr::from_triplets`], so the result is canonical ([`RowOrder::Canonical`]) and
    /// equals `CsrOwned::from_triplets`'s bit for bit; the conversion needs one slot per
    /// input entry, duplicates included, before they are added up.
    ///
    /// ```
    /// use spblas::{CsrHeapless, Exec, FormatError, SpMv};
    /// // At most 3 rows (room for 4 row pointers) and 8 entries.
    /// type Small = CsrHeapless<f32, u32, 4, 8>;
    /// let a = Small::from_triplets(3, 3, &[(2, 2, 1.0), (0, 0, 2.0), (2, 2, 1.0)])?;
    /// assert_eq!(a.nnz(), 2);
    /// let mut y = [0.0f32; 3];
    /// a.view().spmv(Exec::new(), 1.0, &[1.0, 1.0, 1.0], 0.0, &mut y)?;
    /// assert_eq!(y, [2.0, 0.0, 2.0]);
    /// // Too many rows for the storage: an error, not a panic.
    /// assert!(matches!(Small::from_triplets(4, 3, &[]), Err(FormatError::BufferTooSmall { .. })));
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    #[derive(Clone, Debug, PartialEq)]
    pub struct CsrHeapless<T, I, const ROW_PTR: usize, const NNZ: usize> {
        nrows: usize,
        ncols: usize,
        row_ptr: Vec<I, ROW_PTR>,
        col_idx: Vec<I, NNZ>,
        vals: Vec<T, NNZ>,
        order: RowOrder,
    }

    impl<T: Scalar, I: Index, const ROW_PTR: usize, const NNZ: usize> CsrHeapless<T, I, ROW_PTR, NNZ> {
        /// Builds the canonical matrix of `(row, col, value)` triplets in any order, as
        /// [`Csr::from_triplets`] does, in this storage.
        ///
        /// # Errors
        /// As [`Csr::from_triplets`]; [`FormatError::BufferTooSmall`] (`got` the capacity)
        /// when `nrows + 1 > ROW_PTR` or the triplets are more than `NNZ`.
        pub fn from_triplets(
            nrows: usize,
            ncols: usize,
            triplets: &[(usize, usize, T)],
        ) -> Result<Self, FormatError> {
            check_dims::<I>(nrows, ncols, triplets.len())?;
            let mut m = Self::with_room(nrows, ncols, triplets.len(), RowOrder::Canonical)?;
            check_triplets(nrows, ncols, triplets)?;
            let nnz =
                canonical_into(nrows, ncols, triplets, &mut m.row_ptr, &mut m.col_idx, &mut m.vals).nnz();
            m.col_idx.truncate(nnz);
            m.vals.truncate(nnz);
            Ok(m)
        }

        /// Converts a COO view to canonical CSR, as [`Coo::to_canonical_csr`] does, in this
        /// storage.
        ///
        /// # Errors
        /// [`FormatError::BufferTooSmall`] (`got` the capacity) when `nrows + 1 > ROW_PTR`
        /// or `coo.nnz() > NNZ`.
        pub fn from_coo(coo: &Coo<'_, T, I>) -> Result<Self, FormatError> {
            let (nrows, ncols) = (coo.nrows(), coo.ncols());
            let mut m = Self::with_room(nrows, ncols, coo.nnz(), RowOrder::Canonical)?;
            let nnz = canonical_into(nrows, ncols, coo, &mut m.row_ptr, &mut m.col_idx, &mut m.vals).nnz();
            m.col_idx.truncate(nnz);
            m.vals.truncate(nnz);
            Ok(m)
        }

        /// Copies a view, its rows as they are (any [`RowOrder`]).
        ///
        /// # Errors
        /// [`FormatError::BufferTooSmall`] (`got` the capacity) when `nrows + 1 > ROW_PTR`
        /// or `csr.nnz() > NNZ`.
        pub fn from_csr(csr: &Csr<'_, T, I>) -> Result<Self, FormatError> {
            let mut m = Self::with_room(csr.nrows, csr.ncols, csr.nnz(), csr.order)?;
            m.row_ptr.copy_from_slice(csr.row_ptr);
            m.col_idx.copy_from_slice(csr.col_idx);
            m.vals.copy_from_slice(csr.vals);
            Ok(m)
        }

        /// An `nrows × ncols` matrix of `nrows + 1` zero row pointers and `nnz` zero
        /// entries, or the capacity error (before anything is built).
        fn with_room(nrows: usize, ncols: usize, nnz: usize, order: RowOrder) -> Result<Self, FormatError> {
            let np = nrows.saturating_add(1);
            check_buf("row_ptr", ROW_PTR, np)?;
            check_buf("col_idx", NNZ, nnz)?;
            let mut m = CsrHeapless {
                nrows,
                ncols,
                row_ptr: Vec::new(),
                col_idx: Vec::new(),
                vals: Vec::new(),
                order,
            };
            // Within the capacities just checked, so these cannot fail.
            let full = |array, needed, got| FormatError::BufferTooSmall { array, needed, got };
            m.row_ptr.resize(np, I::ZERO).map_err(|_| full("row_ptr", np, ROW_PTR))?;
            m.col_idx.resize(nnz, I::ZERO).map_err(|_| full("col_idx", nnz, NNZ))?;
            m.vals.resize(nnz, T::ZERO).map_err(|_| full("vals", nnz, NNZ))?;
            Ok(m)
        }

        /// The validated view every kernel takes.
        pub fn view(&self) -> Csr<'_, T, I> {
            Csr {
                nrows: self.nrows,
                ncols: self.ncols,
                row_ptr: &self.row_ptr,
                col_idx: &self.col_idx,
                vals: &self.vals,
                order: self.order,
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
        /// Number of stored entries.
        pub fn nnz(&self) -> usize {
            self.col_idx.len()
        }
        /// Mutable access to the values; the sparsity pattern stays fixed.
        pub fn vals_mut(&mut self) -> &mut [T] {
            &mut self.vals
        }
    }
}
