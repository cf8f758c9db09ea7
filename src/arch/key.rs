//! What the sorting, merging and heap kernels know about a key type ([`OrdBits`]): its
//! total order as plain integer bits, in the two forms the kernels want.
//!
//! - **Signed image** ([`OrdBits::ord`]), for merges and heaps, which read their keys
//!   where they lie (the inputs of a merge are borrowed) and map each loaded register:
//!   `a.ord() < b.ord()` iff `a` precedes `b`, so one signed integer min/max or compare
//!   serves every key type. Unsigned integers flip the sign bit, signed integers are
//!   their own image, floats flip the magnitude bits of negative values (the map of
//!   `f32::total_cmp`). Each map is an involution, so SIMD kernels map back on store.
//! - **Unsigned word** ([`OrdBits::encode`]), for the sorting networks, which own their
//!   slice while they run: the keys are mapped in place to `u16`/`u32`/`u64` words whose
//!   unsigned order is the key order, sorted as words, and mapped back
//!   ([`OrdBits::decode`]). The word is the signed image with its sign bit flipped.
//!
//! Both maps are bijections on the bits, so NaN payloads and signed zeros come back bit
//! for bit, and every key has exactly one place in the order.

use core::fmt::Debug;

use bytemuck::Pod;

use super::generic::sort::SortWord;

/// A key type of the sorting, merging and heap kernels: `u16`, `u32`, `i32`, `f32`,
/// `u64`, `i64`, `f64`, `usize`, with its total order as integer bits (see the module
/// docs).
///
/// `pub` only so that the sealed public `primitives::Key` may name it as a supertrait;
/// it lives in a private module, so no one outside the crate can name, implement or call
/// it.
pub trait OrdBits: Pod + Send + Sync + Debug {
    /// The signed integer image of the total order (`i16`, `i32` or `i64`).
    type Ord: Ord + Copy;
    /// The largest key in the total order (`u32::MAX`, `i64::MAX`, the positive NaN with
    /// every payload bit set, ...): the padding of a partial SIMD block.
    const PAD: Self;
    /// The key's image in the signed domain: `a.ord() < b.ord()` iff `a` precedes `b`.
    fn ord(self) -> Self::Ord;

    /// The unsigned word (`u16`, `u32` or `u64`) the sorting networks compare.
    type Word: SortWord;
    /// Maps the keys in place to words whose unsigned order is the key order, and views
    /// them as such.
    fn encode(keys: &mut [Self]) -> &mut [Self::Word];
    /// Maps words in place back to keys (the inverse of [`OrdBits::encode`]).
    fn decode(words: &mut [Self::Word]);
}

/// Unsigned integers: the signed image flips the sign bit; the word is the key.
macro_rules! unsigned {
    ($t:ty, $s:ty) => {
        impl OrdBits for $t {
            type Ord = $s;
            const PAD: $t = <$t>::MAX;
            #[inline(always)]
            fn ord(self) -> $s {
                (self ^ (1 << (<$t>::BITS - 1))) as $s
            }

            type Word = $t;
            #[inline]
            fn encode(keys: &mut [$t]) -> &mut [$t] {
                keys
            }
            #[inline]
            fn decode(_: &mut [$t]) {}
        }
    };
}

unsigned!(u16, i16);
unsigned!(u32, i32);
unsigned!(u64, i64);

/// Signed integers: the key is its own signed image; the word flips the sign bit.
macro_rules! signed {
    ($t:ty, $w:ty) => {
        impl OrdBits for $t {
            type Ord = $t;
            const PAD: $t = <$t>::MAX;
            #[inline(always)]
            fn ord(self) -> $t {
                self
            }

            type Word = $w;
            #[inline]
            fn encode(keys: &mut [$t]) -> &mut [$w] {
                let words: &mut [$w] = bytemuck::cast_slice_mut(keys);
                for w in words.iter_mut() {
                    *w ^= 1 << (<$w>::BITS - 1);
                }
                words
            }
            #[inline]
            fn decode(words: &mut [$w]) {
                for w in words.iter_mut() {
                    *w ^= 1 << (<$w>::BITS - 1);
                }
            }
        }
    };
}

signed!(i32, u32);
signed!(i64, u64);

/// Floats, in the order of `total_cmp`: the signed image flips the magnitude bits of
/// negative values; the word flips every bit of a negative value and the sign bit of a
/// non-negative one.
macro_rules! float {
    ($t:ty, $w:ty, $s:ty) => {
        impl OrdBits for $t {
            type Ord = $s;
            const PAD: $t = <$t>::from_bits(<$s>::MAX as $w);
            #[inline(always)]
            fn ord(self) -> $s {
                let b = self.to_bits() as $s;
                b ^ (((b >> (<$w>::BITS - 1)) as $w) >> 1) as $s
            }

            type Word = $w;
            #[inline]
            fn encode(keys: &mut [$t]) -> &mut [$w] {
                let words: &mut [$w] = bytemuck::cast_slice_mut(keys);
                for w in words.iter_mut() {
                    let sign = ((*w as $s) >> (<$w>::BITS - 1)) as $w;
                    *w ^= sign | (1 << (<$w>::BITS - 1));
                }
                words
            }
            #[inline]
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

float!(f32, u32, i32);
float!(f64, u64, i64);

/// `usize` is the unsigned integer of its width.
macro_rules! pointer_sized {
    ($w:ty, $s:ty) => {
        impl OrdBits for usize {
            type Ord = $s;
            const PAD: usize = usize::MAX;
            #[inline(always)]
            fn ord(self) -> $s {
                (self as $w).ord()
            }

            type Word = $w;
            #[inline]
            fn encode(keys: &mut [usize]) -> &mut [$w] {
                bytemuck::cast_slice_mut(keys)
            }
            #[inline]
            fn decode(_: &mut [$w]) {}
        }
    };
}

#[cfg(target_pointer_width = "64")]
pointer_sized!(u64, i64);
#[cfg(target_pointer_width = "32")]
pointer_sized!(u32, i32);

#[cfg(test)]
mod tests {
    use super::*;

    const F32S: [f32; 10] = [
        f32::NEG_INFINITY,
        -1.0,
        -0.0,
        0.0,
        f32::MIN_POSITIVE,
        1.0,
        f32::INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7FFF_FFFF),
    ];

    #[test]
    fn ord_matches_total_cmp() {
        for &x in &F32S {
            for &y in &F32S {
                assert_eq!(x.ord().cmp(&y.ord()), x.total_cmp(&y), "{x} {y}");
            }
        }
        assert!(F32S.iter().all(|x| x.ord() <= f32::PAD.ord()));
        assert_eq!(u32::MAX.ord(), i32::MAX);
        assert_eq!(0u32.ord(), i32::MIN);
        assert_eq!(f64::PAD.ord(), i64::MAX);
        assert_eq!(i64::PAD.ord(), i64::MAX);
        assert_eq!(usize::PAD.ord(), usize::MAX.ord());
    }

    /// The word of a key is its signed image with the sign bit flipped, and decoding
    /// gives back the same bits.
    fn check_word<K: OrdBits, const N: usize>(keys: [K; N], image: impl Fn(K::Ord) -> K::Word)
    where
        K::Word: PartialEq + Debug,
    {
        let mut words = keys;
        let ords = keys.map(|k| k.ord());
        let encoded = K::encode(&mut words);
        for (w, &o) in encoded.iter().zip(&ords) {
            assert_eq!(*w, image(o));
        }
        K::decode(encoded);
        assert_eq!(bytemuck::cast_slice::<K, u8>(&words), bytemuck::cast_slice::<K, u8>(&keys));
    }

    #[test]
    fn word_is_the_signed_image_with_the_sign_bit_flipped() {
        check_word(F32S, |o| o as u32 ^ 1 << 31);
        check_word([f64::NEG_INFINITY, -0.0, 0.0, f64::NAN, -f64::NAN], |o| o as u64 ^ 1 << 63);
        check_word([i32::MIN, -1, 0, 1, i32::MAX], |o| o as u32 ^ 1 << 31);
        check_word([i64::MIN, -1, 0, 1, i64::MAX], |o| o as u64 ^ 1 << 63);
        check_word([0u32, 1, 1 << 31, u32::MAX], |o| o as u32 ^ 1 << 31);
        check_word([0u64, 1, 1 << 63, u64::MAX], |o| o as u64 ^ 1 << 63);
        #[cfg(target_pointer_width = "64")]
        check_word([0usize, 1, usize::MAX], |o| o as u64 ^ 1 << 63);
    }
}
