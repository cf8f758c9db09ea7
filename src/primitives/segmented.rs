//! Segmented scan and segmented sum (thesis 4.4.3–4.4.4: Alg. 11, 12, 13 and Fig. 4.3)
//! on caller slices, on every [`Isa`](crate::Isa).
//!
//! ## Segments
//! [`HeadFlags`] mark where segments start: flag `i` set means position `i` is the
//! *head* of a segment, which runs up to (not including) the next head or the end. Flags
//! come as a `&[bool]` or packed 64 to a `u64` word ([`HeadFlags::bits`], the `bit_flag`
//! form CSR5 and BCCOO use). **Position 0 always starts a segment**, flagged or not, so no
//! element is ever dropped: where Alg. 12 zeroes a leading run without a head, these
//! functions treat it as a segment headed at 0. Every segment holds at least one element;
//! an empty row of a matrix has no segment here (its sum is 0 by the caller's
//! bookkeeping, e.g. `row_ptr[r] == row_ptr[r + 1]`).
//!
//! | function | `v[i]` afterwards (`h` = head of `i`'s segment, `t` = its last position) |
//! |---|---|
//! | [`segmented_scan`] | `v[h] + .. + v[i]` (inclusive) |
//! | [`segmented_exclusive_scan`] | `v[h] + .. + v[i-1]`; `0` at heads (Alg. 11) |
//! | [`segmented_sum`] | at a head: `v[h] + .. + v[t]`; elsewhere `0` (Alg. 12) |
//! | [`segmented_sum_seg_offset`] | `dst[i] = src[i] + .. + src[i + seg_offset[i]]` (Alg. 13) |
//!
//! Each runs in place and, as `*_into`, from `src` into `dst`, on its [`Exec`].
//! Errors ([`DimError::Length`] for a flag array or `dst` of the wrong length,
//! [`DimError::IsaUnavailable`], [`DimError::OutOfRange`] for a `seg_offset` past the end)
//! are returned before anything is written. Nothing allocates or panics.
//!
//! ## How the widths compute them
//! Segmented scans run Alg. 11's flag-guarded steps inside each SIMD vector (a lane does
//! not add across a head) and carry the open segment's sum from vector to vector. The
//! segmented sum is one backward segmented scan, so each head receives its segment's sum
//! in a single pass over memory. Integers are exact on every path; floats equal the
//! sequential loop up to rounding (the additions are reordered, within each segment —
//! the error of a segment's sum scales with that segment's `sum |x|`, not the array's).
//!
//! ```
//! use spblas::primitives::segmented::{segmented_scan, segmented_sum};
//! use spblas::Exec;
//! let heads = [true, false, false, true, false, true];
//! let mut v = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0];
//! segmented_scan(Exec::new(), &mut v, &heads)?;
//! assert_eq!(v, [1.0, 3.0, 6.0, 4.0, 9.0, 6.0]);
//! let mut w = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0];
//! segmented_sum(Exec::new(), &mut w, &heads)?;
//! assert_eq!(w, [6.0, 0.0, 0.0, 9.0, 0.0, 6.0]);
//! # Ok::<(), spblas::DimError>(())
//! ```

use super::scan::sealed::Io;
use super::scan::{ScanElem, check_dst};
use crate::arch::Checked;
use crate::arch::generic::scan::{BitMask, BoolMask, seg_offset_reaching_on};
use crate::{DimError, Exec};

/// Head flags of a segmented operation: which positions start a segment.
///
/// Built from a `&[bool]` (`From`, or [`HeadFlags::bools`]) or from packed bits
/// ([`HeadFlags::bits`]). Cheap to copy; borrows the flags.
#[derive(Clone, Copy, Debug)]
pub struct HeadFlags<'a> {
    repr: Repr<'a>,
}

#[derive(Clone, Copy, Debug)]
enum Repr<'a> {
    Bools(&'a [bool]),
    Bits { words: &'a [u64], len: usize },
}

impl<'a> HeadFlags<'a> {
    /// One `bool` per element: `flags[i]` set means position `i` starts a segment.
    pub fn bools(flags: &'a [bool]) -> Self {
        HeadFlags { repr: Repr::Bools(flags) }
    }

    /// `len` flags packed 64 to a word, least significant bit first: position `i` is bit
    /// `i % 64` of `words[i / 64]` (the thesis's `bit_flag`). Bits at `len..` are ignored.
    ///
    /// # Errors
    /// [`DimError::BufferTooSmall`] (buffer `"words"`) if `words` holds fewer than
    /// `len.div_ceil(64)` words.
    pub fn bits(words: &'a [u64], len: usize) -> Result<Self, DimError> {
        let needed = len.div_ceil(64);
        if words.len() < needed {
            return Err(DimError::BufferTooSmall { buffer: "words", needed, got: words.len() });
        }
        Ok(HeadFlags { repr: Repr::Bits { words, len } })
    }

    /// Number of flags.
    pub fn len(&self) -> usize {
        match self.repr {
            Repr::Bools(b) => b.len(),
            Repr::Bits { len, .. } => len,
        }
    }

    /// Whether there are no flags.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether flag `i` is set (`false` past the end). Position 0 starts a segment even
    /// where this is `false`.
    pub fn get(&self, i: usize) -> bool {
        match self.repr {
            Repr::Bools(b) => b.get(i).copied().unwrap_or(false),
            Repr::Bits { words, len } => i < len && words.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 != 0),
        }
    }

    /// Fails with [`DimError::Length`] (operand `"head_flags"`) unless there are `n` flags.
    fn check(&self, n: usize) -> Result<(), DimError> {
        if self.len() == n {
            Ok(())
        } else {
            Err(DimError::Length { operand: "head_flags", expected: n, got: self.len() })
        }
    }
}

impl<'a> From<&'a [bool]> for HeadFlags<'a> {
    fn from(flags: &'a [bool]) -> Self {
        HeadFlags::bools(flags)
    }
}

impl<'a, const N: usize> From<&'a [bool; N]> for HeadFlags<'a> {
    fn from(flags: &'a [bool; N]) -> Self {
        HeadFlags::bools(flags)
    }
}

#[cfg(feature = "alloc")]
impl<'a> From<&'a alloc::vec::Vec<bool>> for HeadFlags<'a> {
    fn from(flags: &'a alloc::vec::Vec<bool>) -> Self {
        HeadFlags::bools(flags)
    }
}

fn seg_scan<T: ScanElem>(isa: Checked, io: Io<'_, T>, flags: HeadFlags<'_>, exclusive: bool) {
    match flags.repr {
        Repr::Bools(b) => T::seg_scan_isa(isa, io, BoolMask::new(b), exclusive),
        Repr::Bits { words, len } => T::seg_scan_isa(isa, io, BitMask::new(words, len), exclusive),
    }
}

fn seg_sum<T: ScanElem>(isa: Checked, io: Io<'_, T>, flags: HeadFlags<'_>) {
    match flags.repr {
        Repr::Bools(b) => T::seg_sum_isa(isa, io, BoolMask::new(b)),
        Repr::Bits { words, len } => T::seg_sum_isa(isa, io, BitMask::new(words, len)),
    }
}

/// In-place inclusive segmented scan on `exec`: `v[i] <- v[h] + .. + v[i]`,
/// where `h` is the last head at or before `i` (position 0 counts as a head).
///
/// # Errors
/// [`DimError::IsaUnavailable`], [`DimError::Length`]; `v` is untouched on error.
pub fn segmented_scan<'f, T: ScanElem>(
    exec: Exec,
    v: &mut [T],
    head_flags: impl Into<HeadFlags<'f>>,
) -> Result<(), DimError> {
    let isa = exec.resolved_isa();
    let flags = head_flags.into();
    let isa = Checked::new(isa)?;
    flags.check(v.len())?;
    seg_scan(isa, Io::InPlace(v), flags, false);
    Ok(())
}

/// Out-of-place [`segmented_scan`]: `dst[i] = src[h] + .. + src[i]`.
///
/// # Errors
/// [`DimError::IsaUnavailable`], [`DimError::Length`]; `dst` is untouched on error.
pub fn segmented_scan_into<'f, T: ScanElem>(
    exec: Exec,
    src: &[T],
    head_flags: impl Into<HeadFlags<'f>>,
    dst: &mut [T],
) -> Result<(), DimError> {
    let isa = exec.resolved_isa();
    let flags = head_flags.into();
    let isa = Checked::new(isa)?;
    flags.check(src.len())?;
    check_dst(src.len(), dst.len())?;
    seg_scan(isa, Io::Copy(src, dst), flags, false);
    Ok(())
}

/// In-place exclusive segmented scan (thesis Alg. 11) on `exec`:
/// `v[i] <- v[h] + .. + v[i-1]`, so every head (and position 0) becomes `0`.
///
/// # Errors
/// [`DimError::IsaUnavailable`], [`DimError::Length`]; `v` is untouched on error.
pub fn segmented_exclusive_scan<'f, T: ScanElem>(
    exec: Exec,
    v: &mut [T],
    head_flags: impl Into<HeadFlags<'f>>,
) -> Result<(), DimError> {
    let isa = exec.resolved_isa();
    let flags = head_flags.into();
    let isa = Checked::new(isa)?;
    flags.check(v.len())?;
    seg_scan(isa, Io::InPlace(v), flags, true);
    Ok(())
}

/// Out-of-place [`segmented_exclusive_scan`].
///
/// # Errors
/// [`DimError::IsaUnavailable`], [`DimError::Length`]; `dst` is untouched on error.
pub fn segmented_exclusive_scan_into<'f, T: ScanElem>(
    exec: Exec,
    src: &[T],
    head_flags: impl Into<HeadFlags<'f>>,
    dst: &mut [T],
) -> Result<(), DimError> {
    let isa = exec.resolved_isa();
    let flags = head_flags.into();
    let isa = Checked::new(isa)?;
    flags.check(src.len())?;
    check_dst(src.len(), dst.len())?;
    seg_scan(isa, Io::Copy(src, dst), flags, true);
    Ok(())
}

/// In-place segmented sum (thesis Alg. 12) on `exec`: each head `h` (and
/// position 0) receives the sum of its segment `v[h] + .. + v[t]`, every other position
/// `0`.
///
/// The SIMD paths run this as one backward segmented scan, so the sum of a segment is
/// formed from its end (`v[h] + (v[h+1] + (..))` in tree order within a vector).
///
/// # Errors
/// [`DimError::IsaUnavailable`], [`DimError::Length`]; `v` is untouched on error.
pub fn segmented_sum<'f, T: ScanElem>(
    exec: Exec,
    v: &mut [T],
    head_flags: impl Into<HeadFlags<'f>>,
) -> Result<(), DimError> {
    let isa = exec.resolved_isa();
    let flags = head_flags.into();
    let isa = Checked::new(isa)?;
    flags.check(v.len())?;
    seg_sum(isa, Io::InPlace(v), flags);
    Ok(())
}

/// Out-of-place [`segmented_sum`]: `dst[h]` = the sum of `h`'s segment of `src` at each
/// head, `0` elsewhere.
///
/// # Errors
/// [`DimError::IsaUnavailable`], [`DimError::Length`]; `dst` is untouched on error.
pub fn segmented_sum_into<'f, T: ScanElem>(
    exec: Exec,
    src: &[T],
    head_flags: impl Into<HeadFlags<'f>>,
    dst: &mut [T],
) -> Result<(), DimError> {
    let isa = exec.resolved_isa();
    let flags = head_flags.into();
    let isa = Checked::new(isa)?;
    flags.check(src.len())?;
    check_dst(src.len(), dst.len())?;
    seg_sum(isa, Io::Copy(src, dst), flags);
    Ok(())
}

/// Fast segmented sum using `seg_offset` (thesis Alg. 13, Fig. 4.3) on `exec`:
/// for every `i`, `dst[i] = src[i] + src[i+1] + .. + src[i + seg_offset[i]]`.
///
/// With `seg_offset` from [`seg_offset_from_heads`], each head receives its segment's
/// sum (what [`segmented_sum`] computes) and the other positions receive their own
/// value. This is the use CSR5's SpMV makes of it for the partial sums of a tile
/// (Alg. 32, line 22). Computed as the thesis does, from one inclusive all-scan:
/// `dst = scan(src)`, then `dst[i] = dst[i + seg_offset[i]] - dst[i] + src[i]` — except
/// that `seg_offset[i] == 0` gives `dst[i] = src[i]` directly (a one-element segment;
/// the formula agrees unless a prefix sum overflowed to infinity or NaN). The SIMD paths
/// gather `scan[i + seg_offset[i]]` for a whole vector at a time (lane by lane on NEON).
///
/// Integers are exact (wrapping). For floats a sum over more than one element is a
/// difference of two prefix sums, so its error scales with
/// `|src[0]| + .. + |src[i + seg_offset[i]]|` rather than with the segment alone. Prefer
/// [`segmented_sum`] on long arrays whose prefix sums grow far beyond the segment sums;
/// this form suits short arrays such as a tile's `ω` partial sums. Out of place only:
/// Alg. 13 needs the original values after the scan (the thesis allocates a copy; here
/// `src` is that copy).
///
/// # Errors
/// [`DimError::IsaUnavailable`], [`DimError::Length`], [`DimError::OutOfRange`]; `dst`
/// is untouched on error.
pub fn segmented_sum_seg_offset<T: ScanElem>(
    exec: Exec,
    src: &[T],
    seg_offset: &[u32],
    dst: &mut [T],
) -> Result<(), DimError> {
    let isa = Checked::new(exec.resolved_isa())?;
    let n = src.len();
    if seg_offset.len() != n {
        return Err(DimError::Length { operand: "seg_offset", expected: n, got: seg_offset.len() });
    }
    check_dst(n, dst.len())?;
    // `seg_offset[i] <= n - 1 - i`: a branch-free count on the width first, then locate.
    let bad = seg_offset_reaching_on(isa, seg_offset, n) > 0;
    if bad && let Some((position, &o)) = seg_offset.iter().enumerate().find(|&(i, &o)| o as usize > n - 1 - i)
    {
        return Err(DimError::OutOfRange {
            operand: "seg_offset",
            position,
            value: o as usize,
            max: n - 1 - position,
        });
    }
    T::seg_offset_isa(isa, src, seg_offset, dst);
    Ok(())
}

/// The `seg_offset` of a head-flag array (thesis Alg. 25, lines 9 and 12): at each head
/// `h` (and position 0), the number of non-head positions that follow it in its segment
/// (so `h + seg_offset[h]` is the segment's last position); `0` elsewhere.
///
/// Then [`segmented_sum_seg_offset`] over `seg_offset` puts each segment's sum at its
/// head. (CSR5 applies this to the columns of a tile, a column being a "head" when any
/// of its `bit_flag`s is set.)
///
/// # Errors
/// [`DimError::Length`] (operand `"seg_offset"`) unless `seg_offset.len() ==
/// head_flags.len()`; [`DimError::OutOfRange`] if a segment is longer than `u32::MAX`
/// positions. `seg_offset` is untouched on error.
pub fn seg_offset_from_heads<'f>(
    head_flags: impl Into<HeadFlags<'f>>,
    seg_offset: &mut [u32],
) -> Result<(), DimError> {
    let flags = head_flags.into();
    let n = flags.len();
    if seg_offset.len() != n {
        return Err(DimError::Length { operand: "seg_offset", expected: n, got: seg_offset.len() });
    }
    // A count above `u32::MAX` needs more than 2^32 elements; find it before writing.
    if n > u32::MAX as usize {
        let mut last_head = 0;
        for i in 1..=n {
            if i == n || flags.get(i) {
                let count = i - last_head - 1;
                if count > u32::MAX as usize {
                    return Err(DimError::OutOfRange {
                        operand: "seg_offset",
                        position: last_head,
                        value: count,
                        max: u32::MAX as usize,
                    });
                }
                last_head = i;
            }
        }
    }
    let mut count = 0u32;
    for (i, o) in seg_offset.iter_mut().enumerate().rev() {
        if i == 0 || flags.get(i) {
            *o = count;
            count = 0;
        } else {
            *o = 0;
            count = count.wrapping_add(1);
        }
    }
    Ok(())
}
