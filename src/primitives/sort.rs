//! Sorting networks on caller slices: bitonic sort (thesis 4.5.2, Alg. 14) and odd-even
//! merge sort (4.5.3, Alg. 15), for keys alone and for key-value pairs, any length, no
//! allocation.
//!
//! ```
//! use spblas::primitives::sort::{bitonic_sort, bitonic_sort_pairs};
//! use spblas::Exec;
//! let mut keys = [3.0f32, -0.0, f32::NAN, 0.0, -1.5];
//! bitonic_sort(Exec::new(), &mut keys);
//! assert_eq!(keys.map(f32::to_bits), [-1.5f32, -0.0, 0.0, 3.0, f32::NAN].map(f32::to_bits));
//!
//! // Rows by length, longest first (the permutation example of thesis 4.5.1): sort
//! // ascending by the negated length, carrying the row index.
//! let mut neg_len = [-3i32, -5, -2, -2, -1, -5];
//! let mut row = [0u32, 1, 2, 3, 4, 5];
//! bitonic_sort_pairs(Exec::new(), &mut neg_len, &mut row)?;
//! assert_eq!(neg_len, [-5, -5, -3, -2, -2, -1]);
//! assert_eq!(&row[2..3], &[0]);
//! # Ok::<(), spblas::DimError>(())
//! ```
//!
//! # Order
//! Keys are any [`Key`] (`u16`, `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, `usize`),
//! sorted ascending. Integers by value. Floats by the IEEE 754 *total order*, the order of
//! [`f64::total_cmp`]: `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`, NaNs
//! further ordered by payload. Every bit pattern has its place, so the sorted keys are
//! unique: every [`Isa`](crate::Isa) gives the same bits as `sort_by(f64::total_cmp)`. Inside, each
//! key is mapped in place to an unsigned word (`u16`, `u32` or `u64`) whose unsigned
//! order is the key's order, sorted as such, and mapped back; the map is a bijection, so
//! NaN payloads and signed zeros come back bit for bit. `u16` keys run the portable
//! network on every width (the same network, so the same result).
//!
//! # Pairs
//! `*_pairs` reorders `vals` along with `keys`. With distinct keys the result is the
//! unique sort. With equal keys the sorts are **not stable** (no sorting network is);
//! what is guaranteed: keys are sorted, the multiset of `(key, value)` pairs is preserved,
//! and the result is deterministic and identical on every `Isa` — every width runs the
//! same network, and a comparator swaps only when the lower key is strictly greater.
//!
//! Values are any [`bytemuck::Pod`] type; 4-byte and 8-byte values (`u32`, `f32`, `u64`,
//! `f64`, ...) are moved as `u32`/`u64` words in SIMD registers, any other size (or a
//! misaligned slice of a 4-/8-byte type without that alignment) takes the portable network
//! on every `Isa`, with the same result.
//!
//! # Any length
//! The networks are defined for powers of two; a length `n` between is padded virtually
//! to the next power of two with `+inf` keys that are never read or written (a comparator
//! whose upper end is at or past `n` is skipped). Blocks of up to 256 keys (AVX-512,
//! `u32`; fewer on narrower widths and for pairs) are sorted entirely in registers; larger
//! inputs merge the blocks with passes over memory. Cost: `O(n log² n)` comparisons, as
//! for the networks of the thesis. Odd-even merge sort makes fewer comparisons but its
//! later steps do not stay inside blocks, so on SIMD widths it makes more passes over
//! memory than bitonic sort; prefer [`bitonic_sort`] beyond a few hundred keys.
//!
//! # Errors
//! An `Exec` whose `Isa` this machine cannot run is [`DimError::IsaUnavailable`]; pairs
//! with `vals.len() != keys.len()` are [`DimError::Length`]. Nothing is touched then.

use bytemuck::Pod;

use super::Key;
use crate::arch::Checked;
use crate::arch::generic::sort::{Alg, SortWord, sort_any};
use crate::{DimError, Exec};

#[inline]
fn sort_keys<K: Key>(alg: Alg, isa: Checked, keys: &mut [K]) {
    if keys.len() < 2 {
        return;
    }
    let words = K::encode(keys);
    K::Word::sort_on(isa, alg, words);
    K::decode(words);
}

#[inline]
fn sort_pairs<K: Key, V: Pod>(
    alg: Alg,
    isa: Checked,
    keys: &mut [K],
    vals: &mut [V],
) -> Result<(), DimError> {
    if vals.len() != keys.len() {
        return Err(DimError::Length { operand: "vals", expected: keys.len(), got: vals.len() });
    }
    if keys.len() < 2 {
        return Ok(());
    }
    let words = K::encode(keys);
    let size = core::mem::size_of::<V>();
    if size == 4
        && let Ok(v) = bytemuck::try_cast_slice_mut::<V, u32>(vals)
    {
        K::Word::sort_v32_on(isa, alg, words, v);
    } else if size == 8
        && let Ok(v) = bytemuck::try_cast_slice_mut::<V, u64>(vals)
    {
        K::Word::sort_v64_on(isa, alg, words, v);
    } else {
        sort_any(alg, words, vals);
    }
    K::decode(words);
    Ok(())
}

/// Sorts `keys` ascending with the bitonic network (Alg. 14), on `exec`'s width.
/// Not stable; floats in `total_cmp` order (see the [module docs](self)).
///
/// # Errors
/// [`DimError::IsaUnavailable`] if this machine cannot run `exec`'s `Isa`.
pub fn bitonic_sort<K: Key>(exec: Exec, keys: &mut [K]) -> Result<(), DimError> {
    let isa = exec.resolved_isa();
    sort_keys(Alg::Bitonic, Checked::new(isa)?, keys);
    Ok(())
}

/// Sorts `keys` ascending with the bitonic network and moves `vals[i]` along with
/// `keys[i]`, on `exec`'s width. Equal keys: see [Pairs](self#pairs).
///
/// # Errors
/// [`DimError::IsaUnavailable`] if this machine cannot run `exec`'s `Isa`; [`DimError::Length`] if
/// `vals.len() != keys.len()`.
pub fn bitonic_sort_pairs<K: Key, V: Pod>(
    exec: Exec,
    keys: &mut [K],
    vals: &mut [V],
) -> Result<(), DimError> {
    let isa = exec.resolved_isa();
    sort_pairs(Alg::Bitonic, Checked::new(isa)?, keys, vals)
}

/// Sorts `keys` ascending with Batcher's odd-even merge network (Alg. 15), on
/// `exec`'s width. Not stable; floats in `total_cmp` order.
///
/// # Errors
/// [`DimError::IsaUnavailable`] if this machine cannot run `exec`'s `Isa`.
pub fn odd_even_sort<K: Key>(exec: Exec, keys: &mut [K]) -> Result<(), DimError> {
    let isa = exec.resolved_isa();
    sort_keys(Alg::OddEven, Checked::new(isa)?, keys);
    Ok(())
}

/// Sorts `keys` ascending with the odd-even merge network and moves `vals[i]` along with
/// `keys[i]`, on `exec`'s width. Equal keys: see [Pairs](self#pairs).
///
/// # Errors
/// [`DimError::IsaUnavailable`] if this machine cannot run `exec`'s `Isa`; [`DimError::Length`] if
/// `vals.len() != keys.len()`.
pub fn odd_even_sort_pairs<K: Key, V: Pod>(
    exec: Exec,
    keys: &mut [K],
    vals: &mut [V],
) -> Result<(), DimError> {
    let isa = exec.resolved_isa();
    sort_pairs(Alg::OddEven, Checked::new(isa)?, keys, vals)
}
