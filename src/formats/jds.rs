//! Jagged Diagonal Storage (course notes, "Sorting rows according to their length" and
//! "JDS format", Fig. 10.15–10.16; PMPP ch. 14.6 "Reducing control divergence with the
//! JDS format").
//!
//! The rows are permuted by non-increasing length, then stored column-major: jagged
//! diagonal `d` holds the `d`-th entry of every permuted row long enough to have one. For
//! the course notes' matrix
//!
//! ```text
//! row 0: 3 0 1 0        perm   = [2, 0, 3, 1]          (row 2 is the longest)
//! row 1: 0 0 0 0        jd_ptr = [0, 3, 6, 7]          (diagonal lengths 3, 3, 1)
//! row 2: 0 2 4 1        col_idx = [1, 0, 0,  2, 2, 3,  3]
//! row 3: 1 0 0 1        vals    = [2, 3, 1,  4, 1, 1,  1]
//! ```
//!
//! Because the permuted rows get shorter, every jagged diagonal covers a prefix of the
//! storage positions, and consecutive rows (threads, SIMD lanes) walk diagonals of
//! nearly equal length, which is what the format is for: less control divergence than
//! CSR and no padding, unlike ELL.

use crate::formats::csr_out;
use crate::formats::{
    Csr, any_at_or_above, check_buf, check_col, check_dims, check_len, check_ptr, check_row,
};
use crate::{FormatError, Index, Scalar};

/// Words of the fixed bitset [`Jds::new`] uses to check `perm` without `alloc`: 512
/// `u64`s (4 KiB of stack) cover 32 768 row ids per pass.
const STACK_WORDS: usize = 512;

/// A validated, borrowed JDS matrix.
///
/// Invariants (checked by [`Jds::new`]):
/// - `nrows`, `nnz` fit `I` and `ncols < I::MAX` (the padding marker stays free);
/// - `perm.len() == nrows` and `perm` is a permutation of `0..nrows`: `perm[p]` is the
///   original row stored at position `p`;
/// - `jd_ptr` has `ndiag + 1 >= 1` entries, starts at 0, never decreases and ends at
///   `nnz == col_idx.len() == vals.len()`;
/// - the diagonal lengths `len(d) = jd_ptr[d + 1] - jd_ptr[d]` satisfy
///   `len(0) <= nrows` and `len(d + 1) <= len(d)`, so diagonal `d` covers the storage
///   positions `0..len(d)` and the row at position `p` has `#{d : len(d) > p}` entries,
///   a number that never increases with `p`;
/// - every `col_idx[k] < ncols`.
///
/// The entry `k = jd_ptr[d] + p` is the `d`-th entry of original row `perm[p]`. Trailing
/// diagonals may be empty (they cost nothing); [`Jds::from_csr`] never makes them, so
/// there `ndiag` is the longest row's length. Within a row, entries may be unsorted and
/// repeat (repeats add up), exactly as in the CSR the matrix came from.
#[derive(Clone, Copy, Debug)]
pub struct Jds<'a, T, I> {
    nrows: usize,
    ncols: usize,
    perm: &'a [I],
    jd_ptr: &'a [I],
    col_idx: &'a [I],
    vals: &'a [T],
}

/// Buffer lengths [`Jds::from_csr`] needs for one CSR matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct JdsLayout {
    nrows: usize,
    max_row_len: usize,
    nnz: usize,
}

impl JdsLayout {
    /// Measures `csr`: one pass over `row_ptr` for the longest row.
    pub fn new<T: Scalar, I: Index>(csr: &Csr<'_, T, I>) -> Self {
        JdsLayout { nrows: csr.nrows(), max_row_len: csr.max_row_len(), nnz: csr.nnz() }
    }
    /// Length of `perm`: `nrows`.
    pub fn perm_len(&self) -> usize {
        self.nrows
    }
    /// Length of `jd_ptr`: the number of jagged diagonals (the longest row's length) plus one.
    pub fn jd_ptr_len(&self) -> usize {
        self.max_row_len + 1
    }
    /// The number of jagged diagonals: the longest row's length.
    pub fn ndiag(&self) -> usize {
        self.max_row_len
    }
    /// Length of `col_idx` and `vals`: the number of stored entries.
    pub fn nnz(&self) -> usize {
        self.nnz
    }
}

impl<'a, T: Scalar, I: Index> Jds<'a, T, I> {
    /// Builds a view after checking every invariant listed on [`Jds`].
    ///
    /// Costs one pass over `jd_ptr` and `col_idx`, plus the permutation check: a fixed
    /// 4 KiB stack bitset covering 32 768 row ids per pass (so one pass and no allocation
    /// up to 32 768 rows); beyond that, with the `alloc` feature a bitset of `nrows` bits
    /// on the heap and one pass over `perm`, without it
    /// `ceil(nrows / 32768)` passes over `perm` (O(nrows² / 32768) for huge matrices; use
    /// [`Jds::new_with_scratch`] to make it a single pass without `alloc`).
    ///
    /// # Errors
    /// The first violated invariant, in this order: [`FormatError::TooLarge`] (dimensions),
    /// [`FormatError::Length`] (`perm`, `vals`, empty `jd_ptr`), [`FormatError::PtrStart`],
    /// [`FormatError::PtrDecreasing`], [`FormatError::PtrEnd`] (`jd_ptr`),
    /// [`FormatError::JaggedDiagonal`] (a diagonal longer than `nrows` or than the one
    /// before it), [`FormatError::RowOutOfBounds`] (first `perm[p] >= nrows`),
    /// [`FormatError::NotAPermutation`] (the first position that repeats a row),
    /// [`FormatError::ColumnOutOfBounds`] ([`FormatError::NegativeIndex`] for a negative
    /// `i32` / `i64` entry of `jd_ptr`, `perm` or `col_idx`).
    pub fn new(
        nrows: usize,
        ncols: usize,
        perm: &'a [I],
        jd_ptr: &'a [I],
        col_idx: &'a [I],
        vals: &'a [T],
    ) -> Result<Self, FormatError> {
        Self::new_with_scratch(nrows, ncols, perm, jd_ptr, col_idx, vals, &mut [])
    }

    /// [`Jds::new`] with a caller-provided bitset for the permutation check, for `no_std`
    /// callers with large matrices: `scratch` covers `64 * scratch.len()` row ids per pass
    /// over `perm`, so [`Jds::perm_scratch_len`]`(nrows)` words make it a single pass. Any
    /// length works; an empty `scratch` falls back to the built-in 4 KiB stack bitset (or,
    /// with `alloc`, to a heap bitset as in [`Jds::new`]). `scratch`'s contents on return
    /// are unspecified.
    ///
    /// # Errors
    /// As [`Jds::new`].
    pub fn new_with_scratch(
        nrows: usize,
        ncols: usize,
        perm: &'a [I],
        jd_ptr: &'a [I],
        col_idx: &'a [I],
        vals: &'a [T],
        scratch: &mut [u64],
    ) -> Result<Self, FormatError> {
        let nnz = col_idx.len();
        check_dims::<I>(nrows, ncols, nnz)?;
        check_len("perm", perm.len(), nrows)?;
        check_len("vals", vals.len(), nnz)?;
        check_ptr("jd_ptr", jd_ptr, nnz)?;
        let mut max = nrows;
        for (diagonal, w) in jd_ptr.windows(2).enumerate() {
            let len = w[1].to_usize() - w[0].to_usize();
            if len > max {
                return Err(FormatError::JaggedDiagonal { diagonal, len, max });
            }
            max = len;
        }
        if scratch.is_empty() {
            check_perm_default(perm)?;
        } else {
            check_perm(perm, scratch)?;
        }
        // A branch-free pass (vectorised); the diagonal loop only to locate the first
        // out-of-bounds column.
        if any_at_or_above(col_idx, ncols) {
            for w in jd_ptr.windows(2) {
                let start = w[0].to_usize();
                for (p, &c) in col_idx[start..w[1].to_usize()].iter().enumerate() {
                    check_col(c, ncols, perm[p].to_usize(), start + p)?;
                }
            }
        }
        Ok(Jds { nrows, ncols, perm, jd_ptr, col_idx, vals })
    }

    /// Builds a view without any check.
    ///
    /// # Safety
    /// Every invariant listed on [`Jds`] must hold. Kernels read `x[col_idx[k]]`,
    /// `vals[jd_ptr[d] + p]` and write `y[perm[p]]` without bounds checks.
    #[allow(unsafe_code)] // declares a contract for the caller; the body is safe code
    pub unsafe fn new_unchecked(
        nrows: usize,
        ncols: usize,
        perm: &'a [I],
        jd_ptr: &'a [I],
        col_idx: &'a [I],
        vals: &'a [T],
    ) -> Self {
        Jds { nrows, ncols, perm, jd_ptr, col_idx, vals }
    }

    /// The number of `u64` words that lets [`Jds::new_with_scratch`] check a permutation
    /// of `nrows` rows in one pass: `ceil(nrows / 64)`.
    pub fn perm_scratch_len(nrows: usize) -> usize {
        nrows.div_ceil(64)
    }

    /// Converts `csr` into the caller's buffers, each at least as long as
    /// [`JdsLayout::new`]`(csr)` says (only those prefixes are written), and returns the
    /// view over them. Rows are ordered by non-increasing length, stably (rows of equal
    /// length keep their original order); within a row, entries keep their CSR order.
    ///
    /// No workspace and no allocation: O(nnz + nrows + longest row). The stable sort of
    /// rows by length is a counting sort whose `longest row + 1` buckets (bucket
    /// `max_len - len`, so longer rows come first) live in `jd_ptr`, which has exactly
    /// that many entries; `jd_ptr` then receives the diagonal offsets.
    ///
    /// # Errors
    /// [`FormatError::BufferTooSmall`] before anything is written.
    pub fn from_csr(
        csr: &Csr<'_, T, I>,
        perm: &'a mut [I],
        jd_ptr: &'a mut [I],
        col_idx: &'a mut [I],
        vals: &'a mut [T],
    ) -> Result<Self, FormatError> {
        let layout = JdsLayout::new(csr);
        let (m, nd, nnz) = (layout.perm_len(), layout.jd_ptr_len(), layout.nnz());
        check_buf("perm", perm.len(), m)?;
        check_buf("jd_ptr", jd_ptr.len(), nd)?;
        check_buf("col_idx", col_idx.len(), nnz)?;
        check_buf("vals", vals.len(), nnz)?;
        let (perm, jd_ptr) = (&mut perm[..m], &mut jd_ptr[..nd]);
        let (col_idx, vals) = (&mut col_idx[..nnz], &mut vals[..nnz]);
        fill_from_csr(csr, perm, jd_ptr, col_idx, vals);
        Ok(Jds { nrows: m, ncols: csr.ncols(), perm, jd_ptr, col_idx, vals })
    }

    /// Converts back to CSR in the caller's buffers (`row_ptr` at least `nrows + 1` long,
    /// the others at least `nnz`; only those prefixes are written): CSR row `perm[p]`
    /// receives the entries of storage position `p` in diagonal order, so CSR → JDS → CSR
    /// gives back the very same arrays. O(nnz + nrows + ndiag), no workspace.
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
        let (row_ptr, col_out, val_out) = csr_out(m, nnz, row_ptr, col_idx, vals)?;
        row_ptr[0] = I::ZERO;
        let mut d_end = self.ndiag();
        for (p, &row) in self.perm.iter().enumerate() {
            // Diagonals covering position p form a prefix 0..d_end that shrinks with p.
            while d_end > 0 && self.diagonal_len(d_end - 1) <= p {
                d_end -= 1;
            }
            row_ptr[row.to_usize() + 1] = I::from_usize_unchecked(d_end);
        }
        for i in 0..m {
            row_ptr[i + 1] = I::from_usize_unchecked(row_ptr[i + 1].to_usize() + row_ptr[i].to_usize());
        }
        for (p, &row) in self.perm.iter().enumerate() {
            let (start, end) = (row_ptr[row.to_usize()].to_usize(), row_ptr[row.to_usize() + 1].to_usize());
            for (d, dst) in (start..end).enumerate() {
                let k = self.jd_ptr[d].to_usize() + p;
                col_out[dst] = self.col_idx[k];
                val_out[dst] = self.vals[k];
            }
        }
        Csr::new(m, self.ncols, row_ptr, col_out, val_out)
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
    /// Number of jagged diagonals, `jd_ptr.len() - 1`.
    pub fn ndiag(&self) -> usize {
        self.jd_ptr.len() - 1
    }
    /// The row permutation: `perm[p]` is the original row stored at position `p`.
    pub fn perm(&self) -> &'a [I] {
        self.perm
    }
    /// Start of each jagged diagonal in `col_idx`/`vals`, `ndiag + 1` entries.
    pub fn jd_ptr(&self) -> &'a [I] {
        self.jd_ptr
    }
    /// Column indices, diagonal after diagonal.
    pub fn col_idx(&self) -> &'a [I] {
        self.col_idx
    }
    /// Values, aligned with [`Jds::col_idx`].
    pub fn vals(&self) -> &'a [T] {
        self.vals
    }
    /// Length of jagged diagonal `d` (0 if `d >= ndiag`): the number of storage positions
    /// it covers, `0..len`.
    pub fn diagonal_len(&self, d: usize) -> usize {
        match self.jd_ptr.get(d..d.saturating_add(2)) {
            Some(&[s, e]) => e.to_usize() - s.to_usize(),
            _ => 0,
        }
    }
    /// Length of the row stored at position `p` (0 if `p >= nrows`): the number of
    /// diagonals longer than `p`, found by binary search since lengths never increase.
    pub fn row_len(&self, p: usize) -> usize {
        let (mut lo, mut hi) = (0, self.ndiag());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.diagonal_len(mid) > p { lo = mid + 1 } else { hi = mid }
        }
        lo
    }
    /// Length of the longest row: the number of non-empty diagonals.
    pub fn max_row_len(&self) -> usize {
        self.row_len(0)
    }
    /// Iterates over the stored entries as `(row, col, value)` with `row` the original
    /// row, in storage (diagonal-major) order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, usize, T)> + 'a {
        let (perm, col_idx, vals) = (self.perm, self.col_idx, self.vals);
        self.jd_ptr.windows(2).flat_map(move |w| {
            let r = w[0].to_usize()..w[1].to_usize();
            col_idx[r.clone()]
                .iter()
                .zip(&vals[r])
                .enumerate()
                .map(move |(p, (&c, &v))| (perm[p].to_usize(), c.to_usize(), v))
        })
    }
}

/// Writes `csr` as JDS into buffers of exactly `nrows`, `max_row_len + 1` and `nnz`
/// elements (see [`Jds::from_csr`] for the counting-sort trick).
fn fill_from_csr<T: Scalar, I: Index>(
    csr: &Csr<'_, T, I>,
    perm: &mut [I],
    jd_ptr: &mut [I],
    col_idx: &mut [I],
    vals: &mut [T],
) {
    let row_ptr = csr.row_ptr();
    let len = |i: usize| row_ptr[i + 1].to_usize() - row_ptr[i].to_usize();
    let max_len = jd_ptr.len() - 1;
    // Counting sort, bucket `max_len - len` so that longer rows come first.
    jd_ptr.fill(I::ZERO);
    for i in 0..perm.len() {
        let b = max_len - len(i);
        jd_ptr[b] = I::from_usize_unchecked(jd_ptr[b].to_usize() + 1);
    }
    let mut start = 0;
    for b in jd_ptr.iter_mut() {
        let count = b.to_usize();
        *b = I::from_usize_unchecked(start);
        start += count;
    }
    // Scattering rows in increasing order keeps equal lengths in original order (stable).
    for i in 0..perm.len() {
        let b = max_len - len(i);
        let dst = jd_ptr[b].to_usize();
        perm[dst] = I::from_usize_unchecked(i);
        jd_ptr[b] = I::from_usize_unchecked(dst + 1);
    }
    // Diagonal d covers the positions 0..q whose rows are longer than d.
    let mut q = perm.len();
    let mut acc = 0;
    jd_ptr[0] = I::ZERO;
    for d in 0..max_len {
        while q > 0 && len(perm[q - 1].to_usize()) <= d {
            q -= 1;
        }
        acc += q;
        jd_ptr[d + 1] = I::from_usize_unchecked(acc);
    }
    for (p, &row) in perm.iter().enumerate() {
        let row = row.to_usize();
        let r = row_ptr[row].to_usize()..row_ptr[row + 1].to_usize();
        for (d, k) in r.enumerate() {
            let dst = jd_ptr[d].to_usize() + p;
            col_idx[dst] = csr.col_idx()[k];
            vals[dst] = csr.vals()[k];
        }
    }
}

/// The permutation check [`Jds::new`] runs: the fixed [`STACK_WORDS`] stack bitset, or
/// beyond its 32 768 row ids and with `alloc`, a heap bitset of `nrows` bits (one pass).
fn check_perm_default<I: Index>(perm: &[I]) -> Result<(), FormatError> {
    // Up to 32 768 rows the stack bitset is already one pass: no allocation.
    #[cfg(feature = "alloc")]
    if perm.len() > 64 * STACK_WORDS {
        let mut bits = alloc::vec![0u64; perm.len().div_ceil(64)];
        return check_perm(perm, &mut bits);
    }
    let mut bits = [0u64; STACK_WORDS];
    check_perm(perm, &mut bits)
}

/// Checks that `perm` is a permutation of `0..perm.len()` without allocating: first that
/// every entry is in range (reporting the first one that is not), then, in windows of
/// `64 * bits.len()` row ids, that no id appears twice. Each window is one pass over
/// `perm`, so the cost is `O(n * ceil(n / (64 * bits.len())))`; a bitset of
/// `ceil(n / 64)` words makes it one pass. The reported duplicate is the smallest
/// position that repeats an earlier entry, whatever the window size: each window finds
/// its own first repeat, and later windows only scan positions before the best so far.
/// An empty `bits` falls back to [`STACK_WORDS`] words on the stack.
fn check_perm<I: Index>(perm: &[I], bits: &mut [u64]) -> Result<(), FormatError> {
    if bits.is_empty() {
        return check_perm(perm, &mut [0u64; STACK_WORDS]);
    }
    let n = perm.len();
    for (p, &r) in perm.iter().enumerate() {
        check_row("perm", r, n, p)?;
    }
    let window = bits.len().saturating_mul(64);
    let mut first_repeat: Option<(usize, usize)> = None;
    let mut lo = 0;
    while lo < n {
        let hi = lo.saturating_add(window).min(n);
        let words = (hi - lo).div_ceil(64);
        bits[..words].fill(0);
        let limit = first_repeat.map_or(n, |(p, _)| p);
        for (p, &r) in perm[..limit].iter().enumerate() {
            let r = r.to_usize();
            if (lo..hi).contains(&r) {
                let (w, b) = ((r - lo) / 64, (r - lo) % 64);
                if bits[w] & (1 << b) != 0 {
                    first_repeat = Some((p, r));
                    break;
                }
                bits[w] |= 1 << b;
            }
        }
        lo = hi;
    }
    match first_repeat {
        Some((position, row)) => Err(FormatError::NotAPermutation { position, row }),
        None => Ok(()),
    }
}

#[cfg(feature = "alloc")]
pub use owned::JdsOwned;

#[cfg(feature = "alloc")]
mod owned {
    use alloc::vec::Vec;

    use super::{Jds, JdsLayout};
    use crate::formats::{Csr, try_vec};
    use crate::{FormatError, Index, Scalar};

    /// A JDS matrix owning its arrays (feature `alloc`); [`JdsOwned::view`] lends the
    /// validated [`Jds`] every kernel takes. Same invariants as [`Jds`].
    #[derive(Clone, Debug, PartialEq)]
    pub struct JdsOwned<T, I> {
        nrows: usize,
        ncols: usize,
        perm: Vec<I>,
        jd_ptr: Vec<I>,
        col_idx: Vec<I>,
        vals: Vec<T>,
    }

    impl<T: Scalar, I: Index> JdsOwned<T, I> {
        /// Takes ownership of JDS arrays after validating them as [`Jds::new`] does.
        ///
        /// # Errors
        /// As [`Jds::new`].
        pub fn from_parts(
            nrows: usize,
            ncols: usize,
            perm: Vec<I>,
            jd_ptr: Vec<I>,
            col_idx: Vec<I>,
            vals: Vec<T>,
        ) -> Result<Self, FormatError> {
            Jds::new(nrows, ncols, &perm, &jd_ptr, &col_idx, &vals)?;
            Ok(JdsOwned { nrows, ncols, perm, jd_ptr, col_idx, vals })
        }

        /// Converts a CSR view (see [`Jds::from_csr`]): every buffer is sized by
        /// [`JdsLayout::new`], and no length exceeds one of the input's.
        ///
        /// # Errors
        /// [`FormatError::TooLarge`] where the memory for the arrays is not there.
        pub fn from_csr(csr: &Csr<'_, T, I>) -> Result<Self, FormatError> {
            let layout = JdsLayout::new(csr);
            let mut perm = try_vec("perm", layout.perm_len(), I::ZERO)?;
            let mut jd_ptr = try_vec("jd_ptr", layout.jd_ptr_len(), I::ZERO)?;
            let mut col_idx = try_vec("col_idx", layout.nnz(), I::ZERO)?;
            let mut vals = try_vec("vals", layout.nnz(), T::ZERO)?;
            super::fill_from_csr(csr, &mut perm, &mut jd_ptr, &mut col_idx, &mut vals);
            Ok(JdsOwned { nrows: csr.nrows(), ncols: csr.ncols(), perm, jd_ptr, col_idx, vals })
        }

        /// The validated view.
        pub fn view(&self) -> Jds<'_, T, I> {
            Jds {
                nrows: self.nrows,
                ncols: self.ncols,
                perm: &self.perm,
                jd_ptr: &self.jd_ptr,
                col_idx: &self.col_idx,
                vals: &self.vals,
            }
        }

        /// Gives the arrays back: `(nrows, ncols, perm, jd_ptr, col_idx, vals)`.
        #[allow(clippy::type_complexity)]
        pub fn into_parts(self) -> (usize, usize, Vec<I>, Vec<I>, Vec<I>, Vec<T>) {
            (self.nrows, self.ncols, self.perm, self.jd_ptr, self.col_idx, self.vals)
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::{STACK_WORDS, check_perm, check_perm_default};
    use crate::FormatError;

    /// The first position that repeats an earlier entry, found the obvious way.
    fn naive(perm: &[u32]) -> Result<(), FormatError> {
        let n = perm.len();
        for (p, &r) in perm.iter().enumerate() {
            if r as usize >= n {
                return Err(FormatError::RowOutOfBounds { position: p, row: r as usize, nrows: n });
            }
        }
        let mut seen = std::vec![false; n];
        for (p, &r) in perm.iter().enumerate() {
            if seen[r as usize] {
                return Err(FormatError::NotAPermutation { position: p, row: r as usize });
            }
            seen[r as usize] = true;
        }
        Ok(())
    }

    fn shuffled(n: usize, seed: u64) -> Vec<u32> {
        let mut v: Vec<u32> = (0..n as u32).collect();
        let mut s = seed;
        for k in (1..n).rev() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            v.swap(k, ((s >> 33) % (k as u64 + 1)) as usize);
        }
        v
    }

    #[test]
    fn windowed_perm_check_agrees_with_naive_for_every_window_size() {
        for n in [0usize, 1, 2, 63, 64, 65, 200, 1000] {
            for seed in 0..6u64 {
                let mut perm = shuffled(n, seed);
                // Corrupt some: a duplicate (possibly several) or an out-of-range id.
                if n > 1 && seed % 3 == 1 {
                    let (a, b) = ((seed as usize * 7) % n, (seed as usize * 13 + 1) % n);
                    perm[a] = perm[b];
                    perm[n - 1] = perm[0];
                }
                if n > 0 && seed % 3 == 2 {
                    perm[(seed as usize * 5) % n] = n as u32 + seed as u32;
                }
                let want = naive(&perm);
                for words in [0usize, 1, 2, 3, 16] {
                    let mut bits = std::vec![u64::MAX; words];
                    assert_eq!(check_perm(&perm, &mut bits), want, "n {n} seed {seed} words {words}");
                }
            }
        }
    }

    #[test]
    fn windowed_perm_check_handles_more_rows_than_the_stack_window() {
        let n = 64 * STACK_WORDS * 2 + 1000; // three windows of the no-alloc bitset
        let mut perm = shuffled(n, 42);
        let mut bits = [0u64; STACK_WORDS];
        assert_eq!(check_perm(&perm, &mut bits), Ok(()));
        // A repeat of an id in the last window, at a late position, and one of an id in
        // the first window at a later position still: the earlier one is reported.
        let late_id = (n - 5) as u32;
        let pos_late = perm.iter().position(|&r| r == late_id).unwrap();
        let target = if pos_late + 1 < n { pos_late + 1 } else { pos_late - 1 };
        let second = pos_late.max(target);
        perm[target] = late_id;
        let want = naive(&perm);
        assert_eq!(want, Err(FormatError::NotAPermutation { position: second, row: late_id as usize }));
        assert_eq!(check_perm(&perm, &mut bits), want);
        perm[n - 1] = perm[0];
        let want = naive(&perm);
        assert_eq!(check_perm(&perm, &mut bits), want);
        assert_eq!(check_perm(&perm, &mut []), want);
    }

    /// `check_perm_default` is the heap bitset with `alloc` and the stack window without;
    /// `cargo test --lib --no-default-features` runs this on the latter.
    #[test]
    fn default_perm_check_handles_more_rows_than_the_stack_window() {
        let n = 64 * STACK_WORDS + 12_345;
        let mut perm = shuffled(n, 7);
        assert_eq!(check_perm_default(&perm), Ok(()));
        perm[n - 2] = perm[3];
        assert_eq!(check_perm_default(&perm), naive(&perm));
        perm[n - 1] = n as u32;
        assert_eq!(check_perm_default(&perm), naive(&perm));
    }
}
