//! Sparse storage formats (thesis chapter 5; course notes on COO, CSR, ELL, HYB, JDS, DIA
//! and sliced ELL) as borrowed, validated views.
//!
//! Every view is built by a `new` that checks every invariant and returns the first
//! violation as a [`FormatError`]; `unsafe fn new_unchecked` skips the checks for callers
//! who have proved them. Conversions from [`Csr`] write into caller-provided slices whose
//! lengths a layout query reports first; with the `alloc` feature each format also has an
//! owned variant (`CsrOwned`, `EllOwned`, ...) that allocates those slices for you, and
//! with `heapless` CSR has one in fixed-capacity storage (`CsrHeapless`) for firmware
//! without an allocator.
//!
//! | format | module | thesis |
//! |---|---|---|
//! | CSR  | [`csr`]  | 5.2.4 |
//! | CSC  | [`csc`]  | 5.2.4 by columns (the CSR of the transpose) |
//! | CSR5 | [`csr5`] | 6.3 (tiles of omega x sigma, transposed) |
//! | COO  | [`coo`]  | 5.2.3 |
//! | ELL  | [`ell`]  | 5.2.2 (column-major, explicit padding) |
//! | HYB  | [`hyb`]  | 5.3.1 (ELL + COO) |
//! | JDS  | [`jds`]  | course notes (jagged diagonals, row permutation) |
//! | DIA  | [`dia`]  | 5.2.1 |
//! | SELL | [`sell`] | 5.4.1 (sliced ELL) |
//! | symmetric | [`symmetric`] | one triangle of a symmetric matrix (Sparse BLAS property on CSR) |

pub mod coo;
pub mod csc;
pub mod csr;
pub mod csr5;
pub mod dia;
pub mod ell;
pub mod hyb;
pub mod jds;
pub mod sell;
pub mod symmetric;

pub use coo::Coo;
pub use csc::Csc;
pub use csr::{Csr, MAX_PANELS, RowOrder};
pub use csr5::{Csr5, Csr5Aux, Csr5Layout, Csr5Parts};
pub use dia::{Dia, DiaLayout};
pub use ell::{Ell, EllLayout};
pub use hyb::{Hyb, HybLayout};
pub use jds::{Jds, JdsLayout};
pub use sell::{Sell, SellLayout};
pub use symmetric::{Symmetric, Triangle};

#[cfg(feature = "alloc")]
pub use coo::CooOwned;
#[cfg(feature = "heapless")]
pub use csr::CsrHeapless;
#[cfg(feature = "alloc")]
pub use csr::CsrOwned;
#[cfg(feature = "alloc")]
pub use csr5::Csr5Owned;
#[cfg(feature = "alloc")]
pub use dia::DiaOwned;
#[cfg(feature = "alloc")]
pub use ell::EllOwned;
#[cfg(feature = "alloc")]
pub use hyb::HybOwned;
#[cfg(feature = "alloc")]
pub use jds::JdsOwned;
#[cfg(feature = "alloc")]
pub use sell::SellOwned;

use crate::{FormatError, Index};

/// The column index that marks a padding slot in ELL-like formats (ELL, SELL, the ELL
/// part of HYB): `I::MAX`, which no real column can have since `ncols <= I::MAX`.
///
/// A padding slot's value must be zero and only padding may follow it in its row, so a
/// kernel can stop a row at its first padding slot, and a SIMD kernel can multiply a
/// padded lane by zero.
#[inline(always)]
pub fn pad<I: Index>() -> I {
    I::MAX
}

/// Checks that `value` fits both the index type and `usize` (it is a `usize` already).
pub(crate) fn check_fits<I: Index>(what: &'static str, value: usize) -> Result<(), FormatError> {
    if value > I::MAX_USIZE {
        return Err(FormatError::TooLarge { what, value, max: I::MAX_USIZE });
    }
    Ok(())
}

/// Checks the dimensions every format shares: `nrows`, `ncols` and `nnz` fit `I`, with
/// `nrows < I::MAX` (so `nrows + 1` fits) and `ncols < I::MAX` (so `I::MAX` stays free as
/// the padding marker).
pub(crate) fn check_dims<I: Index>(nrows: usize, ncols: usize, nnz: usize) -> Result<(), FormatError> {
    // `nrows + 1` (the length of a pointer array) must not overflow either.
    if nrows >= I::MAX_USIZE {
        return Err(FormatError::TooLarge { what: "nrows", value: nrows, max: I::MAX_USIZE - 1 });
    }
    if ncols >= I::MAX_USIZE {
        return Err(FormatError::TooLarge { what: "ncols", value: ncols, max: I::MAX_USIZE - 1 });
    }
    check_fits::<I>("nnz", nnz)
}

/// Checks an exact array length.
pub(crate) fn check_len(array: &'static str, got: usize, expected: usize) -> Result<(), FormatError> {
    if got != expected {
        return Err(FormatError::Length { array, expected, got });
    }
    Ok(())
}

/// Checks that an output buffer holds at least `needed` elements.
pub(crate) fn check_buf(array: &'static str, got: usize, needed: usize) -> Result<(), FormatError> {
    if got < needed {
        return Err(FormatError::BufferTooSmall { array, needed, got });
    }
    Ok(())
}

/// CSR output buffers: `row_ptr`, `col_idx`, `vals`.
pub(crate) type CsrOut<'b, T, I> = (&'b mut [I], &'b mut [I], &'b mut [T]);

/// The prefixes of CSR output buffers for `nrows` rows and `nnz` entries (`row_ptr`:
/// `nrows + 1`, `col_idx` and `vals`: `nnz`), after checking each is long enough, in that
/// order; what every conversion into CSR checks before it writes.
pub(crate) fn csr_out<'b, T, I>(
    nrows: usize,
    nnz: usize,
    row_ptr: &'b mut [I],
    col_idx: &'b mut [I],
    vals: &'b mut [T],
) -> Result<CsrOut<'b, T, I>, FormatError> {
    let m1 = nrows.saturating_add(1);
    check_buf("row_ptr", row_ptr.len(), m1)?;
    check_buf("col_idx", col_idx.len(), nnz)?;
    check_buf("vals", vals.len(), nnz)?;
    Ok((&mut row_ptr[..m1], &mut col_idx[..nnz], &mut vals[..nnz]))
}

/// Validates a pointer array: starts at 0, never decreases, ends at `end`. Every entry is
/// then `<= end`, so it fits `usize`.
pub(crate) fn check_ptr<I: Index>(array: &'static str, ptr: &[I], end: usize) -> Result<(), FormatError> {
    let Some(first) = ptr.first() else {
        return Err(FormatError::Length { array, expected: 1, got: 0 });
    };
    if *first != I::ZERO {
        if let Some(value) = first.negative() {
            return Err(FormatError::NegativeIndex { array, position: 0, value });
        }
        return Err(FormatError::PtrStart { array, got: first.try_to_usize().unwrap_or(usize::MAX) });
    }
    // One branch-free pass the compiler vectorises; the position only on failure. From a
    // first entry of 0, a negative entry is a descent.
    if count_descents(ptr) > 0 {
        let position = ptr.windows(2).position(|w| w[1] < w[0]).unwrap_or(0);
        if let Some(value) = ptr.get(position + 1).and_then(|v| v.negative()) {
            return Err(FormatError::NegativeIndex { array, position: position + 1, value });
        }
        return Err(FormatError::PtrDecreasing { array, position });
    }
    let last = ptr[ptr.len() - 1];
    if last.try_to_usize() != Some(end) {
        return Err(FormatError::PtrEnd {
            array,
            expected: end,
            got: last.try_to_usize().unwrap_or(usize::MAX),
        });
    }
    Ok(())
}

/// How many `v[k] < v[k - 1]`: a branch-free pass the compiler vectorises, for
/// validation that runs at memory speed and looks for the first violation only when
/// there is one.
pub(crate) fn count_descents<I: Index>(v: &[I]) -> usize {
    count_pairs(v).0
}

/// `(#{k: v[k] < v[k - 1]}, #{k: v[k] == v[k - 1]})`, branch-free and vectorised: the
/// counts run in `u32` lanes over blocks of [`PAIR_BLOCK`] pairs (so as many fit a
/// vector as the indices do), the blocks' totals in `usize`.
pub(crate) fn count_pairs<I: Index>(v: &[I]) -> (usize, usize) {
    count_pairs_in_blocks(v, PAIR_BLOCK)
}

/// [`count_pairs`] with blocks of `block` pairs (at most `u32::MAX`, at least 1).
fn count_pairs_in_blocks<I: Index>(v: &[I], block: usize) -> (usize, usize) {
    let (mut lt, mut eq) = (0usize, 0usize);
    for r in pair_blocks(v.len(), block) {
        let (cur, prev) = (&v[r.clone()], &v[r.start - 1..r.end - 1]);
        let (l, e) = cur
            .iter()
            .zip(prev)
            .fold((0u32, 0u32), |(l, e), (c, p)| (l + u32::from(c < p), e + u32::from(c == p)));
        (lt, eq) = (lt + l as usize, eq + e as usize);
    }
    (lt, eq)
}

/// How many entries `k` of a COO matrix precede entry `k - 1` in row-major order
/// (`(row, col)` below the entry before): branch-free and vectorised, in `u32` lanes
/// over blocks of [`PAIR_BLOCK`] pairs, as [`count_pairs`].
pub(crate) fn count_entry_descents<I: Index>(row_idx: &[I], col_idx: &[I]) -> usize {
    let mut total = 0usize;
    for r in pair_blocks(row_idx.len().min(col_idx.len()), PAIR_BLOCK) {
        let prev = r.start - 1..r.end - 1;
        let (rc, rp) = (&row_idx[r.clone()], &row_idx[prev.clone()]);
        let (cc, cp) = (&col_idx[r], &col_idx[prev]);
        let d = rc
            .iter()
            .zip(rp)
            .zip(cc.iter().zip(cp))
            .fold(0u32, |d, ((r, rp), (c, cp))| d + u32::from((r < rp) | ((r == rp) & (c < cp))));
        total += d as usize;
    }
    total
}

/// The positions `k` of the pairs `(k - 1, k)` of an array of `n`, `1..n`, in ranges of
/// at most `block` (clamped to `1..=u32::MAX`, so a `u32` count per range cannot
/// overflow).
fn pair_blocks(n: usize, block: usize) -> impl Iterator<Item = core::ops::Range<usize>> {
    let block = block.clamp(1, u32::MAX as usize);
    (1..n).step_by(block).map(move |start| start..n.min(start + block))
}

/// Pairs per block of [`count_pairs`] (its `u32` counts cannot overflow).
const PAIR_BLOCK: usize = 1 << 16;

/// Whether any index in `v` is `>= bound` or negative (branch-free, vectorised; see
/// [`count_descents`]).
pub(crate) fn any_at_or_above<I: Index>(v: &[I], bound: usize) -> bool {
    match bound.checked_sub(1).map(I::from_usize) {
        // `bound == 0`: every index is out.
        None => !v.is_empty(),
        // `bound - 1` fits `I`: compare in `I` (negative values exceed it).
        Some(Some(max)) => v.iter().fold(false, |any, &c| any | c.exceeds(max)),
        // Above `I::MAX`: only negative indices are out.
        Some(None) => v.iter().fold(false, |any, &c| any | c.exceeds(I::MAX)),
    }
}

/// The real slots of a padded layout (a SELL slice: slot `p`'s predecessor in its row is
/// `p - stride`) if every slot is valid — padding holds a zero value, no real slot
/// follows padding in its row, every real column is below `ncols` — else `None`:
/// branch-free passes (vectorised) over blocks of slots, so that only an invalid layout
/// pays the slot loop that names its first violation. (`Ell::new` keeps its one slot
/// loop: one slice as tall as the matrix ran slower this way.) Measurements:
/// `benches/records/kernel-notes-2026-11.md`, "Validation passes of the formats".
pub(crate) fn padded_slots<T: crate::Scalar, I: Index>(
    col_idx: &[I],
    vals: &[T],
    stride: usize,
    ncols: usize,
) -> Option<usize> {
    let pad = pad::<I>();
    // A real column `c` is out of bounds iff `c > last` (`last` = `ncols - 1` in `I`, or
    // `I::MAX` if that is past it: no column is out); with `ncols == 0` every real one is.
    let last = ncols.checked_sub(1).map_or(I::ZERO, |l| I::from_usize(l).unwrap_or(I::MAX));
    // Per block of slots (small enough to stay in L1 between its passes), passes of one
    // element type each, counted in `u32` lanes, so that the compiler vectorises them.
    const BLOCK: usize = 4096;
    let (mut real, mut bad) = (0usize, false);
    let mut start = 0;
    while start < col_idx.len().min(vals.len()) {
        let end = col_idx.len().min(vals.len()).min(start + BLOCK);
        let (cb, vb) = (&col_idx[start..end], &vals[start..end]);
        let (n, out) = cb.iter().fold((0u32, false), |(n, out), &c| {
            let is_pad = c == pad;
            (n + u32::from(!is_pad), out | (!is_pad & c.exceeds(last)))
        });
        let pad_value = cb.iter().zip(vb).fold(false, |any, (&c, &v)| any | ((c == pad) & (v != T::ZERO)));
        // Slots from `stride` on against their predecessor in the row.
        let from = start.max(stride);
        let after_pad = from < end && {
            let (cur, prev) = (&col_idx[from..end], &col_idx[from - stride..end - stride]);
            cur.iter().zip(prev).fold(false, |any, (&c, &p)| any | ((c != pad) & (p == pad)))
        };
        (real, bad) = (real + n as usize, bad | out | pad_value | after_pad);
        start = end;
    }
    let bad = bad | (ncols == 0 && real > 0);
    (!bad).then_some(real)
}

/// A `Vec` with room for exactly `len` elements, or [`FormatError::TooLarge`] naming
/// `what` when that much memory cannot be had: the owned constructors return an error
/// where `Vec::with_capacity` or `vec!` would abort.
#[cfg(feature = "alloc")]
pub(crate) fn try_room<X>(what: &'static str, len: usize) -> Result<alloc::vec::Vec<X>, FormatError> {
    let mut v = alloc::vec::Vec::new();
    v.try_reserve_exact(len).map_err(|_| FormatError::TooLarge {
        what,
        value: len,
        max: isize::MAX as usize / core::mem::size_of::<X>().max(1),
    })?;
    Ok(v)
}

/// `len` copies of `value`, through [`try_room`].
#[cfg(feature = "alloc")]
pub(crate) fn try_vec<X: Clone>(
    what: &'static str,
    len: usize,
    value: X,
) -> Result<alloc::vec::Vec<X>, FormatError> {
    try_vec_paged(what, len, value, false)
}

/// [`try_vec`], asking first (if `huge`) for transparent huge pages behind arrays of
/// 8 MiB or more (`arch::advise_huge`: feature `std` on Linux, elsewhere nothing), before
/// anything touches them: [`crate::level2::SpmvConfig::huge_pages`].
#[cfg(feature = "alloc")]
pub(crate) fn try_vec_paged<X: Clone>(
    what: &'static str,
    len: usize,
    value: X,
    huge: bool,
) -> Result<alloc::vec::Vec<X>, FormatError> {
    let mut v = try_room(what, len)?;
    if huge {
        crate::arch::advise_huge(&v);
    }
    v.resize(len, value);
    Ok(v)
}

/// A copy of `src`, through [`try_room`].
#[cfg(feature = "alloc")]
pub(crate) fn try_copy<X: Clone>(what: &'static str, src: &[X]) -> Result<alloc::vec::Vec<X>, FormatError> {
    let mut v = try_room(what, src.len())?;
    v.extend_from_slice(src);
    Ok(v)
}

/// `a * b`, or a [`FormatError::TooLarge`] naming `what`.
pub(crate) fn checked_mul(what: &'static str, a: usize, b: usize) -> Result<usize, FormatError> {
    a.checked_mul(b).ok_or(FormatError::TooLarge { what, value: usize::MAX, max: usize::MAX })
}

/// Checks one column index (at `position` of `col_idx`) against `ncols`.
#[inline]
pub(crate) fn check_col<I: Index>(
    c: I,
    ncols: usize,
    row: usize,
    position: usize,
) -> Result<(), FormatError> {
    match c.try_to_usize() {
        Some(col) if col < ncols => Ok(()),
        col => Err(negative("col_idx", position, c).unwrap_or(FormatError::ColumnOutOfBounds {
            row,
            position,
            col: col.unwrap_or(usize::MAX),
            ncols,
        })),
    }
}

/// Checks one row index (at `position` of `array`) against `nrows`.
#[inline]
pub(crate) fn check_row<I: Index>(
    array: &'static str,
    r: I,
    nrows: usize,
    position: usize,
) -> Result<(), FormatError> {
    match r.try_to_usize() {
        Some(row) if row < nrows => Ok(()),
        row => Err(negative(array, position, r).unwrap_or(FormatError::RowOutOfBounds {
            position,
            row: row.unwrap_or(usize::MAX),
            nrows,
        })),
    }
}

/// [`FormatError::NegativeIndex`] when `v` (at `position` of `array`) is negative.
#[inline]
pub(crate) fn negative<I: Index>(array: &'static str, position: usize, v: I) -> Option<FormatError> {
    v.negative().map(|value| FormatError::NegativeIndex { array, position, value })
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::{any_at_or_above, count_entry_descents, count_pairs, count_pairs_in_blocks, padded_slots};

    /// The block-wise count equals a plain scan, with descents of the row and of the
    /// column (within a row) throughout, the blocks' edge (`2^16` pairs) included.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn entry_descents_count_across_blocks() {
        let n = (1u32 << 17) + 5;
        let r: Vec<u32> = (0..n).map(|k| k / 3 - u32::from(k % 1000 == 999 && k > 3)).collect();
        let c: Vec<u32> = (0..n).map(|k| k.wrapping_mul(7919) % 5).collect();
        let n = n as usize;
        let plain = (1..n).filter(|&k| (r[k], c[k]) < (r[k - 1], c[k - 1])).count();
        assert!(plain > 1000);
        assert_eq!(count_entry_descents(&r, &c), plain);
        assert_eq!(count_entry_descents(&r[..1], &c[..1]), 0);
        assert_eq!(count_entry_descents::<u32>(&[], &[]), 0);
    }

    /// The slot-by-slot rules of a padded layout (stride 3: three rows), each broken in
    /// turn, and the bounds of `ncols`.
    #[test]
    fn padded_slots_accepts_exactly_the_valid_layouts() {
        const P: u32 = u32::MAX;
        // Rows of 2, 1 and 0 real entries in three columns.
        let cols = [4u32, 0, P, 1, P, P, P, P, P];
        let vals = [1.0f64, 2.0, 0.0, 3.0, 0.0, -0.0, 0.0, 0.0, 0.0];
        assert_eq!(padded_slots(&cols, &vals, 3, 5), Some(3));
        assert_eq!(padded_slots(&cols, &vals, 3, 4), None, "column 4 out of 4");
        assert_eq!(padded_slots(&cols[..0], &vals[..0], 3, 0), Some(0));
        assert_eq!(padded_slots(&cols[5..], &vals[5..], 3, 0), Some(0), "padding only, no columns");
        assert_eq!(padded_slots(&cols, &vals, 3, 0), None);
        assert_eq!(padded_slots(&cols, &vals, 3, usize::MAX), Some(3));
        let mut v = vals;
        v[8] = 1.0;
        assert_eq!(padded_slots(&cols, &v, 3, 5), None, "padding with a value");
        let mut c = cols;
        c[6] = 2;
        assert_eq!(padded_slots(&c, &vals, 3, 5), Some(4), "row 0 gets a third entry");
        c[7] = 2;
        assert_eq!(padded_slots(&c, &vals, 3, 5), None, "a real slot after padding in row 1");
    }

    /// `len` xorshift32 values below `modulo`, from `seed`.
    fn xorshift(mut x: u32, len: usize, modulo: u32) -> Vec<u32> {
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x % modulo
            })
            .collect()
    }

    fn naive_pairs(v: &[u32]) -> (usize, usize) {
        let lt = v.windows(2).filter(|w| w[1] < w[0]).count();
        (lt, v.windows(2).filter(|w| w[1] == w[0]).count())
    }

    #[test]
    fn count_pairs_in_small_blocks_equals_the_naive_count() {
        let v = xorshift(0x2545_F491, 60, 4);
        for block in 1..9 {
            for len in 0..v.len() {
                assert_eq!(count_pairs_in_blocks(&v[..len], block), naive_pairs(&v[..len]), "{block} {len}");
            }
        }
    }

    /// The real block size (a few hundred thousand steps: too slow under Miri, which
    /// runs the small-block test above).
    #[test]
    #[cfg_attr(miri, ignore)]
    fn count_pairs_equals_the_naive_count_across_block_edges() {
        let v = xorshift(0x9E37_79B9, 3 * (1 << 16) + 5, 8);
        for len in [0, 1, 2, 1 << 16, (1 << 16) + 1, (1 << 16) + 2, 2 << 16, v.len()] {
            assert_eq!(count_pairs(&v[..len]), naive_pairs(&v[..len]), "len {len}");
        }
        // A descent and an equal pair exactly across the first block edge.
        let mut w = std::vec![5u32; (1 << 16) + 3];
        w[1 << 16] = 4;
        assert_eq!(count_pairs(&w), naive_pairs(&w));
    }

    #[test]
    fn any_at_or_above_at_the_edges_of_the_index_type() {
        assert!(!any_at_or_above::<u32>(&[], 0));
        assert!(any_at_or_above::<u32>(&[0], 0));
        assert!(!any_at_or_above::<u32>(&[0, 2, 1], 3));
        assert!(any_at_or_above::<u32>(&[0, 3, 1], 3));
        assert!(any_at_or_above::<u32>(&[u32::MAX], u32::MAX as usize));
        // A bound above `u32::MAX`: every `u32` is inside.
        #[cfg(target_pointer_width = "64")]
        assert!(!any_at_or_above::<u32>(&[u32::MAX, 0], u32::MAX as usize + 1));
        assert!(any_at_or_above::<u64>(&[u64::MAX], usize::MAX));
        #[cfg(target_pointer_width = "64")]
        assert!(!any_at_or_above::<u64>(&[1 << 40], usize::MAX));
    }
}
