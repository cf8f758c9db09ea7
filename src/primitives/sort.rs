//! Sorting networks on caller slices: bitonic sort (thesis 4.5.2, Alg. 14) and odd-even
//! merge sort (4.5.3, Alg. 15), for keys alone and for key-value pairs, any length, no
//! allocation.
//!
//! ```
//! use spblas::primitives::sort::{bitonic_sort, bitonic_sort_pairs};
//! let mut keys = [3.0f32, -0.0, f32::NAN, 0.0, -1.5];
//! bitonic_sort(&mut keys);
//! assert_eq!(keys.map(f32::to_bits), [-1.5f32, -0.0, 0.0, 3.0, f32::NAN].map(f32::to_bits));
//!
//! // Rows by length, longest first (the permutation example of thesis 4.5.1): sort
//! // ascending by the negated length, carrying the row index.
//! let mut neg_len = [-3i32, -5, -2, -2, -1, -5];
//! let mut row = [0u32, 1, 2, 3, 4, 5];
//! bitonic_sort_pairs(&mut neg_len, &mut row)?;
//! assert_eq!(neg_len, [-5, -5, -3, -2, -2, -1]);
//! assert_eq!(&row[2..3], &[0]);
//! # Ok::<(), spblas::DimError>(())
//! ```
//!
//! # Order
//! Keys are sorted ascending. Integers by value. Floats by the IEEE 754 *total order*,
//! the order of [`f64::total_cmp`]: `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf <
//! +NaN`, NaNs further ordered by payload. Every bit pattern has its place, so the sorted
//! keys are unique: every [`Isa`] gives the same bits as `sort_by(f64::total_cmp)`.
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
//! `*_isa` with an `Isa` this machine cannot run is [`DimError::IsaUnavailable`]; pairs
//! with `vals.len() != keys.len()` are [`DimError::Length`]. Nothing is touched then.

use bytemuck::Pod;

use crate::arch;
use crate::primitives::check_isa;
use crate::{DimError, Isa};

/// A key type the sorts accept: `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, `usize`.
///
/// Sealed. Each key maps to an unsigned word (`u32` or `u64`) whose unsigned order is the
/// key's order (sign bit flipped for integers; for floats, all bits flipped when negative,
/// else the sign bit), and back after sorting; the mapping is a bijection, so NaN payloads
/// and signed zeros come back bit for bit.
pub trait SortKey: private::Key {}

impl SortKey for u32 {}
impl SortKey for i32 {}
impl SortKey for f32 {}
impl SortKey for u64 {}
impl SortKey for i64 {}
impl SortKey for f64 {}
impl SortKey for usize {}

mod private {
    use bytemuck::Pod;

    use crate::Isa;

    /// Which network.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub enum Alg {
        Bitonic,
        OddEven,
    }

    /// A key type, as its order-preserving word.
    pub trait Key: Copy + 'static {
        /// The word type (`u32` or `u64`).
        type Word: Word;
        /// Maps the keys in place to words and views them as such.
        fn encode(keys: &mut [Self]) -> &mut [Self::Word];
        /// Maps words in place back to keys.
        fn decode(words: &mut [Self::Word]);
    }

    /// A word type, dispatching each network to each width's arch function.
    pub trait Word: Copy + 'static {
        fn sort(alg: Alg, isa: Isa, keys: &mut [Self]);
        fn sort_v32(alg: Alg, isa: Isa, keys: &mut [Self], vals: &mut [u32]);
        fn sort_v64(alg: Alg, isa: Isa, keys: &mut [Self], vals: &mut [u64]);
        fn sort_any<V: Pod>(alg: Alg, keys: &mut [Self], vals: &mut [V]);
    }
}

use private::{Alg, Key, Word};

/// Calls the arch function `$f` of `$isa`'s width (the portable one for any other).
macro_rules! dispatch {
    ($isa:expr, $f:ident($($arg:expr),*)) => {
        match $isa {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => arch::x86_64::avx2::sort::$f($($arg),*),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => arch::x86_64::avx512::sort::$f($($arg),*),
            #[cfg(target_arch = "aarch64")]
            Isa::Neon => arch::aarch64::neon::sort::$f($($arg),*),
            _ => arch::portable::sort::$f($($arg),*),
        }
    };
}

macro_rules! word {
    ($w:ty, $bit:ident, $oe:ident, $bit32:ident, $oe32:ident, $bit64:ident, $oe64:ident) => {
        impl Word for $w {
            fn sort(alg: Alg, isa: Isa, keys: &mut [Self]) {
                match alg {
                    Alg::Bitonic => dispatch!(isa, $bit(keys)),
                    Alg::OddEven => dispatch!(isa, $oe(keys)),
                }
            }

            fn sort_v32(alg: Alg, isa: Isa, keys: &mut [Self], vals: &mut [u32]) {
                match alg {
                    Alg::Bitonic => dispatch!(isa, $bit32(keys, vals)),
                    Alg::OddEven => dispatch!(isa, $oe32(keys, vals)),
                }
            }

            fn sort_v64(alg: Alg, isa: Isa, keys: &mut [Self], vals: &mut [u64]) {
                match alg {
                    Alg::Bitonic => dispatch!(isa, $bit64(keys, vals)),
                    Alg::OddEven => dispatch!(isa, $oe64(keys, vals)),
                }
            }

            fn sort_any<V: Pod>(alg: Alg, keys: &mut [Self], vals: &mut [V]) {
                match alg {
                    Alg::Bitonic => arch::portable::sort::bitonic_any(keys, vals),
                    Alg::OddEven => arch::portable::sort::odd_even_any(keys, vals),
                }
            }
        }
    };
}

word!(u32, bitonic_u32, odd_even_u32, bitonic_u32_u32, odd_even_u32_u32, bitonic_u32_u64, odd_even_u32_u64);
word!(u64, bitonic_u64, odd_even_u64, bitonic_u64_u32, odd_even_u64_u32, bitonic_u64_u64, odd_even_u64_u64);

/// Unsigned keys: the word is the key.
macro_rules! unsigned_key {
    ($t:ty, $w:ty) => {
        impl Key for $t {
            type Word = $w;

            fn encode(keys: &mut [Self]) -> &mut [$w] {
                bytemuck::cast_slice_mut(keys)
            }

            fn decode(_: &mut [$w]) {}
        }
    };
}

unsigned_key!(u32, u32);
unsigned_key!(u64, u64);
#[cfg(target_pointer_width = "64")]
unsigned_key!(usize, u64);
#[cfg(target_pointer_width = "32")]
unsigned_key!(usize, u32);

/// Signed integers: flip the sign bit.
macro_rules! signed_key {
    ($t:ty, $w:ty) => {
        impl Key for $t {
            type Word = $w;

            fn encode(keys: &mut [Self]) -> &mut [$w] {
                let words: &mut [$w] = bytemuck::cast_slice_mut(keys);
                for w in words.iter_mut() {
                    *w ^= 1 << (<$w>::BITS - 1);
                }
                words
            }

            fn decode(words: &mut [$w]) {
                for w in words.iter_mut() {
                    *w ^= 1 << (<$w>::BITS - 1);
                }
            }
        }
    };
}

signed_key!(i32, u32);
signed_key!(i64, u64);

/// Floats: negative (sign set) flips every bit, non-negative flips the sign bit, which
/// orders the words as `total_cmp` orders the floats.
macro_rules! float_key {
    ($t:ty, $w:ty, $s:ty) => {
        impl Key for $t {
            type Word = $w;

            fn encode(keys: &mut [Self]) -> &mut [$w] {
                let words: &mut [$w] = bytemuck::cast_slice_mut(keys);
                for w in words.iter_mut() {
                    let sign = ((*w as $s) >> (<$w>::BITS - 1)) as $w;
                    *w ^= sign | (1 << (<$w>::BITS - 1));
                }
                words
            }

            fn decode(words: &mut [$w]) {
                for w in words.iter_mut() {
                    // Top bit set: was non-negative, flip the sign back; else flip all.
                    let sign = !(((*w as $s) >> (<$w>::BITS - 1)) as $w);
                    *w ^= sign | (1 << (<$w>::BITS - 1));
                }
            }
        }
    };
}

float_key!(f32, u32, i32);
float_key!(f64, u64, i64);

#[inline]
fn sort_keys<K: SortKey>(alg: Alg, isa: Isa, keys: &mut [K]) {
    if keys.len() < 2 {
        return;
    }
    let words = K::encode(keys);
    K::Word::sort(alg, isa, words);
    K::decode(words);
}

#[inline]
fn sort_pairs<K: SortKey, V: Pod>(
    alg: Alg,
    isa: Isa,
    keys: &mut [K],
    vals: &mut [V],
) -> Result<(), DimError> {
    check_isa(isa)?;
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
        K::Word::sort_v32(alg, isa, words, v);
    } else if size == 8
        && let Ok(v) = bytemuck::try_cast_slice_mut::<V, u64>(vals)
    {
        K::Word::sort_v64(alg, isa, words, v);
    } else {
        K::Word::sort_any(alg, words, vals);
    }
    K::decode(words);
    Ok(())
}

/// Sorts `keys` ascending with the bitonic network (Alg. 14), on [`Isa::detect`]'s width.
/// Not stable; floats in `total_cmp` order (see the [module docs](self)).
pub fn bitonic_sort<K: SortKey>(keys: &mut [K]) {
    sort_keys(Alg::Bitonic, Isa::detect(), keys)
}

/// [`bitonic_sort`] on the width `isa`.
///
/// # Errors
/// [`DimError::IsaUnavailable`] if this machine cannot run `isa`.
pub fn bitonic_sort_isa<K: SortKey>(isa: Isa, keys: &mut [K]) -> Result<(), DimError> {
    check_isa(isa)?;
    sort_keys(Alg::Bitonic, isa, keys);
    Ok(())
}

/// Sorts `keys` ascending with the bitonic network and moves `vals[i]` along with
/// `keys[i]`, on [`Isa::detect`]'s width. Equal keys: see [Pairs](self#pairs).
///
/// # Errors
/// [`DimError::Length`] if `vals.len() != keys.len()`.
pub fn bitonic_sort_pairs<K: SortKey, V: Pod>(keys: &mut [K], vals: &mut [V]) -> Result<(), DimError> {
    sort_pairs(Alg::Bitonic, Isa::detect(), keys, vals)
}

/// [`bitonic_sort_pairs`] on the width `isa`.
///
/// # Errors
/// [`DimError::IsaUnavailable`] if this machine cannot run `isa`; [`DimError::Length`] if
/// `vals.len() != keys.len()`.
pub fn bitonic_sort_pairs_isa<K: SortKey, V: Pod>(
    isa: Isa,
    keys: &mut [K],
    vals: &mut [V],
) -> Result<(), DimError> {
    sort_pairs(Alg::Bitonic, isa, keys, vals)
}

/// Sorts `keys` ascending with Batcher's odd-even merge network (Alg. 15), on
/// [`Isa::detect`]'s width. Not stable; floats in `total_cmp` order.
pub fn odd_even_sort<K: SortKey>(keys: &mut [K]) {
    sort_keys(Alg::OddEven, Isa::detect(), keys)
}

/// [`odd_even_sort`] on the width `isa`.
///
/// # Errors
/// [`DimError::IsaUnavailable`] if this machine cannot run `isa`.
pub fn odd_even_sort_isa<K: SortKey>(isa: Isa, keys: &mut [K]) -> Result<(), DimError> {
    check_isa(isa)?;
    sort_keys(Alg::OddEven, isa, keys);
    Ok(())
}

/// Sorts `keys` ascending with the odd-even merge network and moves `vals[i]` along with
/// `keys[i]`, on [`Isa::detect`]'s width. Equal keys: see [Pairs](self#pairs).
///
/// # Errors
/// [`DimError::Length`] if `vals.len() != keys.len()`.
pub fn odd_even_sort_pairs<K: SortKey, V: Pod>(keys: &mut [K], vals: &mut [V]) -> Result<(), DimError> {
    sort_pairs(Alg::OddEven, Isa::detect(), keys, vals)
}

/// [`odd_even_sort_pairs`] on the width `isa`.
///
/// # Errors
/// [`DimError::IsaUnavailable`] if this machine cannot run `isa`; [`DimError::Length`] if
/// `vals.len() != keys.len()`.
pub fn odd_even_sort_pairs_isa<K: SortKey, V: Pod>(
    isa: Isa,
    keys: &mut [K],
    vals: &mut [V],
) -> Result<(), DimError> {
    sort_pairs(Alg::OddEven, isa, keys, vals)
}
