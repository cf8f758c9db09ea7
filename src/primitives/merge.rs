//! Merging two sorted lists (thesis 4.5.4–4.5.5) into a caller-provided output.
//!
//! | function | thesis | cost | SIMD |
//! |---|---|---|---|
//! | [`merge`] | vectorised merge (Inoue/Chhugani bitonic network) | O(n) | yes |
//! | [`serial_merge`] | Alg. 16, serial merge | O(n) | no (it is the reference) |
//! | [`ranking_merge`] | Alg. 17, ranking merge | O(n log n) | no, see below |
//! | [`merge_path_partition`] / [`merge_piece`] / [`merge_path`] | Alg. 18, merge path | O(p log n + n) | the pieces are |
//! | [`merge_pairs`], [`ranking_merge_pairs`], [`merge_piece_pairs`] | key–value forms | | no, see below |
//!
//! **Keys** are any [`Key`] (`u16`, `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, `usize`),
//! compared by their *total order*: floats as by [`f32::total_cmp`], so
//! `-NaN < -inf < … < -0.0 < +0.0 < … < +inf < +NaN` and every NaN has a place; no
//! comparison panics or is inconsistent.
//!
//! **Ties and stability.** Every key-value merge is stable: an element of `a` is placed
//! before an equal element of `b`, and each list keeps its own order. For keys alone
//! stability is unobservable (keys equal in the total order are bit-identical), which is
//! what lets [`merge`] use an unstable SIMD network.
//!
//! **Unsorted inputs** never cause a panic or an out-of-bounds access. [`merge`],
//! [`serial_merge`], [`merge_path`] and the piece functions still write a permutation of
//! `a ++ b` into `out` (which one is unspecified and may differ between `Isa`s);
//! [`ranking_merge`] checks its inputs first (its ranks would collide) and returns
//! [`DimError::Unsorted`]. [`is_sorted`] checks a list in O(n).
//!
//! **Errors** ([`DimError`]): `out.len() != a.len() + b.len()` is `Length`; a too-short
//! `splits` buffer is `BufferTooSmall`; `parts == 0` or an inconsistent split point is
//! `Parameter`; an `Isa` this machine cannot run is `IsaUnavailable`. On error nothing is
//! written.

use super::Key;
use crate::arch::Checked;
use crate::arch::generic::merge as kernels;
use crate::{DimError, Exec, Isa};

#[inline]
fn check_len(operand: &'static str, expected: usize, got: usize) -> Result<(), DimError> {
    if expected == got { Ok(()) } else { Err(DimError::Length { operand, expected, got }) }
}

/// The first position `i` with `keys[i] < keys[i - 1]`, if any.
#[inline]
fn first_unsorted<K: Key>(keys: &[K]) -> Option<usize> {
    keys.windows(2).position(|w| w[1].ord() < w[0].ord()).map(|i| i + 1)
}

/// Whether `keys` is sorted (non-decreasing) in the total order of [`Key`].
///
/// ```
/// use spblas::primitives::merge::is_sorted;
/// assert!(is_sorted(&[-0.0f32, 0.0, 1.0, f32::NAN]));
/// assert!(!is_sorted(&[f32::NAN, 0.0]));
/// ```
pub fn is_sorted<K: Key>(keys: &[K]) -> bool {
    first_unsorted(keys).is_none()
}

/// Merges sorted `a` and `b` into `out` (`out.len() == a.len() + b.len()`) on `exec`.
///
/// On the SIMD widths this is the vectorised merge of Inoue et al. (2007) and Chhugani et
/// al. (2008), the register form of the bitonic merge of thesis 4.5.2: two registers of
/// `W` sorted keys go through a bitonic merge network (one reversal, then `log2(2W)`
/// min/max levels); the `W` smallest are stored, the `W` largest stay in a register and
/// meet the next block, taken from the list whose next key is smaller. `W` is 8 (32-bit)
/// / 4 (64-bit) keys on AVX2 and NEON (a register pair there), 16 / 8 on AVX-512. A
/// list's last partial block is padded with the largest key. Each step waits for the
/// last one's larger half, so one merge runs at the network's latency; above `16 W`
/// keys the merge is split at its middle anti-diagonal (one merge path search, Alg. 18)
/// and the two halves run interleaved in one loop to overlap the two chains. The
/// portable path is the branch-free serial merge of [`serial_merge`].
///
/// Every path writes the same output for sorted inputs. Unsorted inputs give some
/// permutation of `a ++ b` (see the module docs).
///
/// ```
/// use spblas::primitives::merge::merge;
/// use spblas::Exec;
/// let mut out = [0u32; 7];
/// merge(Exec::new(), &[1, 4, 4, 9], &[2, 4, 10], &mut out)?;
/// assert_eq!(out, [1, 2, 4, 4, 4, 9, 10]);
/// # Ok::<(), spblas::DimError>(())
/// ```
///
/// # Errors
/// [`DimError::Length`] if `out.len() != a.len() + b.len()`;
/// [`DimError::IsaUnavailable`] if this machine cannot run `exec`'s `Isa`.
pub fn merge<K: Key>(exec: Exec, a: &[K], b: &[K], out: &mut [K]) -> Result<(), DimError> {
    let isa = Checked::new(exec.resolved_isa())?;
    check_len("out", a.len() + b.len(), out.len())?;
    K::merge_on(isa, a, b, out);
    Ok(())
}

/// Serial merge, thesis Alg. 16: one pass with two read cursors, taking from `a` while
/// `a[i] <= b[j]` (stable). Written branch-free (the data-dependent choice is a select,
/// not a jump). This is the portable path of [`merge`].
///
/// # Errors
/// [`DimError::Length`] if `out.len() != a.len() + b.len()`.
pub fn serial_merge<K: Key>(a: &[K], b: &[K], out: &mut [K]) -> Result<(), DimError> {
    check_len("out", a.len() + b.len(), out.len())?;
    crate::arch::portable::merge::merge(a, b, out);
    Ok(())
}

/// Ranking merge, thesis Alg. 17: every element finds its output position on its own —
/// its index plus its rank in the other list by binary search (for `a[i]`: the number of
/// `b` keys `<` it; for `b[j]`: the number of `a` keys `<=` it, so ties put `a` first:
/// stable). Each element is independent, which is the point on a GPU; on one core it
/// costs O(n log n) against the O(n) of [`merge`].
///
/// SIMD does not help here: each rank is a chain of dependent, data-dependent loads; a
/// gather-based search would only re-implement, slower, what [`merge`] does in O(n).
/// `isa` is validated and the search is scalar on every `Isa`.
///
/// Both inputs are checked to be sorted first (O(n)): unsorted inputs would make ranks
/// collide and leave output slots unwritten.
///
/// # Errors
/// [`DimError::Length`] if `out.len() != a.len() + b.len()`; [`DimError::Unsorted`] naming
/// `"a"` or `"b"` and the first position out of order; [`DimError::IsaUnavailable`].
pub fn ranking_merge<K: Key>(exec: Exec, a: &[K], b: &[K], out: &mut [K]) -> Result<(), DimError> {
    let isa = exec.resolved_isa();
    Checked::new(isa)?;
    check_len("out", a.len() + b.len(), out.len())?;
    check_sorted("a", a)?;
    check_sorted("b", b)?;
    for (i, &x) in a.iter().enumerate() {
        let r = b.partition_point(|y| y.ord() < x.ord());
        out[i + r] = x;
    }
    for (j, &y) in b.iter().enumerate() {
        let r = a.partition_point(|x| x.ord() <= y.ord());
        out[j + r] = y;
    }
    Ok(())
}

#[inline]
fn check_sorted<K: Key>(operand: &'static str, keys: &[K]) -> Result<(), DimError> {
    match first_unsorted(keys) {
        None => Ok(()),
        Some(position) => Err(DimError::Unsorted { operand, position }),
    }
}

/// [`ranking_merge`] for key–value pairs: each value goes where its key goes. Stable:
/// for equal keys, `a`'s pairs come first, each list in its own order. Scalar on every
/// `Isa`, like the key form.
///
/// # Errors
/// [`DimError::Length`] if `a_vals`/`b_vals` differ in length from their keys or the
/// outputs from `a.len() + b.len()`; [`DimError::Unsorted`] naming `"a_keys"` or
/// `"b_keys"`; [`DimError::IsaUnavailable`].
pub fn ranking_merge_pairs<K: Key, V: Copy>(
    isa: Isa,
    a_keys: &[K],
    a_vals: &[V],
    b_keys: &[K],
    b_vals: &[V],
    out_keys: &mut [K],
    out_vals: &mut [V],
) -> Result<(), DimError> {
    Checked::new(isa)?;
    check_pairs(a_keys, a_vals, b_keys, b_vals, out_keys, out_vals)?;
    check_sorted("a_keys", a_keys)?;
    check_sorted("b_keys", b_keys)?;
    for (i, (&x, &v)) in a_keys.iter().zip(a_vals).enumerate() {
        let r = b_keys.partition_point(|y| y.ord() < x.ord());
        out_keys[i + r] = x;
        out_vals[i + r] = v;
    }
    for (j, (&y, &v)) in b_keys.iter().zip(b_vals).enumerate() {
        let r = a_keys.partition_point(|x| x.ord() <= y.ord());
        out_keys[j + r] = y;
        out_vals[j + r] = v;
    }
    Ok(())
}

fn check_pairs<K, V>(
    a_keys: &[K],
    a_vals: &[V],
    b_keys: &[K],
    b_vals: &[V],
    out_keys: &[K],
    out_vals: &[V],
) -> Result<(), DimError> {
    let n = a_keys.len() + b_keys.len();
    check_len("a_vals", a_keys.len(), a_vals.len())?;
    check_len("b_vals", b_keys.len(), b_vals.len())?;
    check_len("out_keys", n, out_keys.len())?;
    check_len("out_vals", n, out_vals.len())
}

/// Stable serial merge (Alg. 16) of key–value pairs: for equal keys, `a`'s pairs come
/// first, each list in its own order — what sparse vector addition needs (7.4.1: equal
/// column indices meet in a fixed order).
///
/// No SIMD path: a bitonic network reorders equal keys, so carrying values through it
/// would break stability (and any fix — a source tag per lane — costs more than the
/// network saves). `isa` is validated and the merge is the branch-free serial one on
/// every `Isa`.
///
/// ```
/// use spblas::primitives::merge::merge_pairs;
/// use spblas::Exec;
/// let (mut k, mut v) = ([0u32; 5], ['-'; 5]);
/// merge_pairs(Exec::new(), &[1, 3, 3], &['a', 'b', 'c'], &[3, 4], &['x', 'y'], &mut k, &mut v)?;
/// assert_eq!(k, [1, 3, 3, 3, 4]);
/// assert_eq!(v, ['a', 'b', 'c', 'x', 'y']); // ties: `a` first
/// # Ok::<(), spblas::DimError>(())
/// ```
///
/// # Errors
/// [`DimError::Length`] if a value slice differs in length from its keys or the outputs
/// from `a_keys.len() + b_keys.len()`; [`DimError::IsaUnavailable`].
pub fn merge_pairs<K: Key, V: Copy>(
    exec: Exec,
    a_keys: &[K],
    a_vals: &[V],
    b_keys: &[K],
    b_vals: &[V],
    out_keys: &mut [K],
    out_vals: &mut [V],
) -> Result<(), DimError> {
    let isa = exec.resolved_isa();
    Checked::new(isa)?;
    check_pairs(a_keys, a_vals, b_keys, b_vals, out_keys, out_vals)?;
    crate::arch::portable::merge::merge_pairs(a_keys, a_vals, b_keys, b_vals, out_keys, out_vals);
    Ok(())
}

/// The merge path split on the anti-diagonal `diag` (thesis Alg. 18, lines 8–24): the
/// `(i, j)` with `i + j = min(diag, a.len() + b.len())` such that the first `i + j` keys
/// of the stable merge are `a[..i]` and `b[..j]`. A binary search of O(log min(na, nb)).
///
/// Independent of every other split, so a runtime may compute each piece's split on the
/// thread that merges it. For sorted inputs it equals the corresponding entry of
/// [`merge_path_partition`]; for unsorted ones it is some valid `(i, j)` (in bounds,
/// `i + j = diag`) but splits need not be monotone — use [`merge_path_partition`], which
/// keeps them so.
pub fn merge_path_split<K: Key>(a: &[K], b: &[K], diag: usize) -> (usize, usize) {
    let diag = diag.min(a.len() + b.len());
    split_in(a, b, diag, diag.saturating_sub(b.len()), diag.min(a.len()))
}

#[inline]
fn split_in<K: Key>(a: &[K], b: &[K], diag: usize, lo: usize, hi: usize) -> (usize, usize) {
    kernels::split_in(a, b, diag, lo, hi)
}

/// Merge path partition, thesis Alg. 18 (lines 4–25): splits the merge of `a` and `b`
/// into `parts` pieces of equal output length by binary searches on equally spaced
/// anti-diagonals, and writes the `parts + 1` split points `(i, j)` into
/// `splits[..=parts]`. Piece `p` merges `a[splits[p].0..splits[p + 1].0]` with
/// `b[splits[p].1..splits[p + 1].1]` into `out[splits[p].0 + splits[p].1..]`; the pieces
/// are independent, so any runtime can run them ([`merge_piece`]) in any order or in
/// parallel, and their concatenation is the whole (stable) merge.
///
/// Balance: diagonal `p` is `floor(p * n / parts)` (`n = a.len() + b.len()`), so every
/// piece's output length is `floor(n / parts)` or `ceil(n / parts)`. (The thesis uses
/// `ceil(n / parts) * p`, which can leave the last pieces short or empty.) `splits[0] =
/// (0, 0)` and `splits[parts] = (a.len(), b.len())`; the splits are monotone in both
/// components, even for unsorted inputs (each search is clamped to the previous split).
///
/// SIMD does not help: this is `parts - 1` binary searches. `isa` is validated only.
///
/// # Example: run the pieces on threads
/// ```
/// use spblas::primitives::merge::{merge_path_partition, merge_piece};
/// use spblas::Exec;
/// let a: Vec<u32> = (0..1000).map(|x| 2 * x).collect();
/// let b: Vec<u32> = (0..500).map(|x| 3 * x).collect();
/// let parts = 4;
/// let mut splits = [(0, 0); 5];
/// merge_path_partition(Exec::new(), &a, &b, parts, &mut splits)?;
/// let mut out = vec![0u32; a.len() + b.len()];
/// std::thread::scope(|s| {
///     let mut rest = &mut out[..];
///     for w in splits.windows(2) {
///         let (start, end) = (w[0], w[1]);
///         let (chunk, tail) = rest.split_at_mut((end.0 - start.0) + (end.1 - start.1));
///         rest = tail;
///         let (a, b) = (&a, &b);
///         s.spawn(move || merge_piece(Exec::new(), a, b, start, end, chunk));
///     }
/// });
/// let mut expected = [a, b].concat();
/// expected.sort();
/// assert_eq!(out, expected);
/// # Ok::<(), spblas::DimError>(())
/// ```
///
/// # Errors
/// [`DimError::Parameter`] if `parts == 0`; [`DimError::BufferTooSmall`] if
/// `splits.len() < parts + 1`; [`DimError::IsaUnavailable`].
pub fn merge_path_partition<K: Key>(
    exec: Exec,
    a: &[K],
    b: &[K],
    parts: usize,
    splits: &mut [(usize, usize)],
) -> Result<(), DimError> {
    let isa = exec.resolved_isa();
    Checked::new(isa)?;
    if parts == 0 {
        return Err(DimError::Parameter { name: "parts", value: 0 });
    }
    let needed = parts.saturating_add(1);
    if splits.len() < needed {
        return Err(DimError::BufferTooSmall { buffer: "splits", needed, got: splits.len() });
    }
    let (na, nb) = (a.len(), b.len());
    let n = na + nb;
    let mut prev = (0usize, 0usize);
    splits[0] = prev;
    let mut prev_diag = 0usize;
    for (p, s) in splits[1..needed].iter_mut().enumerate() {
        // floor((p + 1) * n / parts) without overflow.
        let diag = ((p as u128 + 1) * n as u128 / parts as u128) as usize;
        // Clamp the search to the previous split, so splits stay monotone whatever the
        // input; for sorted inputs the true split lies in this range anyway.
        let lo = diag.saturating_sub(nb).max(prev.0);
        let hi = diag.min(na).min(prev.0 + (diag - prev_diag));
        prev = split_in(a, b, diag, lo, hi);
        prev_diag = diag;
        *s = prev;
    }
    Ok(())
}

/// Checks a piece `start..end` against `a`, `b` and `out`; returns the two input ranges.
fn piece_ranges(
    a_len: usize,
    b_len: usize,
    start: (usize, usize),
    end: (usize, usize),
    out_len: usize,
) -> Result<(core::ops::Range<usize>, core::ops::Range<usize>), DimError> {
    if end.0 > a_len {
        return Err(DimError::Parameter { name: "end.0", value: end.0 });
    }
    if end.1 > b_len {
        return Err(DimError::Parameter { name: "end.1", value: end.1 });
    }
    if start.0 > end.0 {
        return Err(DimError::Parameter { name: "start.0", value: start.0 });
    }
    if start.1 > end.1 {
        return Err(DimError::Parameter { name: "start.1", value: start.1 });
    }
    check_len("out", (end.0 - start.0) + (end.1 - start.1), out_len)?;
    Ok((start.0..end.0, start.1..end.1))
}

/// Merges one merge path piece (thesis Alg. 18, lines 26–33): `a[start.0..end.0]` with
/// `b[start.1..end.1]` into `out`, which is the piece's part of the whole output
/// (`out.len() == (end.0 - start.0) + (end.1 - start.1)`, starting at position
/// `start.0 + start.1` of the whole). `start` and `end` are consecutive split points from
/// [`merge_path_partition`] (or [`merge_path_split`]). Runs the SIMD merge of
/// [`merge`] on the piece.
///
/// # Errors
/// [`DimError::Parameter`] if `end` lies outside the inputs or `start` after `end`;
/// [`DimError::Length`] if `out` has the wrong length; [`DimError::IsaUnavailable`].
pub fn merge_piece<K: Key>(
    exec: Exec,
    a: &[K],
    b: &[K],
    start: (usize, usize),
    end: (usize, usize),
    out: &mut [K],
) -> Result<(), DimError> {
    let isa = Checked::new(exec.resolved_isa())?;
    let (ra, rb) = piece_ranges(a.len(), b.len(), start, end, out.len())?;
    K::merge_on(isa, &a[ra], &b[rb], out);
    Ok(())
}

/// [`merge_piece`] for key–value pairs: the stable serial merge of the piece, so the
/// concatenated pieces equal [`merge_pairs`] of the whole.
///
/// # Errors
/// As [`merge_piece`], plus [`DimError::Length`] if a value slice differs in length
/// from its keys or `out_vals` from `out_keys`.
#[allow(clippy::too_many_arguments)]
pub fn merge_piece_pairs<K: Key, V: Copy>(
    isa: Isa,
    a_keys: &[K],
    a_vals: &[V],
    b_keys: &[K],
    b_vals: &[V],
    start: (usize, usize),
    end: (usize, usize),
    out_keys: &mut [K],
    out_vals: &mut [V],
) -> Result<(), DimError> {
    Checked::new(isa)?;
    check_len("a_vals", a_keys.len(), a_vals.len())?;
    check_len("b_vals", b_keys.len(), b_vals.len())?;
    check_len("out_vals", out_keys.len(), out_vals.len())?;
    let (ra, rb) = piece_ranges(a_keys.len(), b_keys.len(), start, end, out_keys.len())?;
    crate::arch::portable::merge::merge_pairs(
        &a_keys[ra.clone()],
        &a_vals[ra],
        &b_keys[rb.clone()],
        &b_vals[rb],
        out_keys,
        out_vals,
    );
    Ok(())
}

/// The whole of thesis Alg. 18 on the calling thread: [`merge_path_partition`] into
/// `splits`, then every piece with [`merge_piece`], in order. The result equals
/// [`merge`]; it is the sequential driver of the pieces (and their test).
///
/// # Errors
/// As [`merge_path_partition`], plus [`DimError::Length`] if
/// `out.len() != a.len() + b.len()` (checked before anything is written).
pub fn merge_path<K: Key>(
    exec: Exec,
    a: &[K],
    b: &[K],
    parts: usize,
    splits: &mut [(usize, usize)],
    out: &mut [K],
) -> Result<(), DimError> {
    let isa = exec.resolved_isa();
    let checked_isa = Checked::new(isa)?;
    check_len("out", a.len() + b.len(), out.len())?;
    merge_path_partition(Exec::from(isa), a, b, parts, splits)?;
    let mut rest = out;
    for w in splits[..=parts].windows(2) {
        let (start, end) = (w[0], w[1]);
        let (chunk, tail) = rest.split_at_mut((end.0 - start.0) + (end.1 - start.1));
        rest = tail;
        K::merge_on(checked_isa, &a[start.0..end.0], &b[start.1..end.1], chunk);
    }
    Ok(())
}
