//! The `portable` width of the sorting networks (thesis 4.5.2, 4.5.3): [`Scalar`], one
//! entry per [`Unit`], run by `generic::sort`'s driver, and the entry points named as
//! every width's.

use bytemuck::Zeroable;

use crate::arch::generic::sort::{Bits, Unit, bitonic, no_vals, odd_even};

/// The portable width: one entry per unit, compared with plain branch-free Rust.
#[derive(Clone, Copy)]
pub(crate) struct Scalar<K, V> {
    k: K,
    v: V,
}

// SAFETY (all methods): `Unit`'s contract gives pointers valid for one entry.
impl<K: Bits, V: Copy + Zeroable> Unit for Scalar<K, V> {
    const L: usize = 1;
    type K = K;
    type V = V;

    #[inline(always)]
    unsafe fn load(k: *const K, v: *const V) -> Self {
        // SAFETY: see the impl.
        unsafe { Scalar { k: k.read(), v: v.read() } }
    }

    #[inline(always)]
    unsafe fn store(self, k: *mut K, v: *mut V) {
        // SAFETY: see the impl.
        unsafe {
            k.write(self.k);
            v.write(self.v);
        }
    }

    #[inline(always)]
    unsafe fn load_partial(k: *const K, v: *const V, len: usize) -> Self {
        // `len < L = 1`: nothing to read, a `+inf` pad.
        let _ = (k, v, len);
        Scalar { k: K::MAX, v: V::zeroed() }
    }

    #[inline(always)]
    unsafe fn store_partial(self, k: *mut K, v: *mut V, len: usize) {
        // `len < L = 1`: nothing to write.
        let _ = (k, v, len);
    }

    #[inline(always)]
    unsafe fn ce(a: Self, b: Self) -> (Self, Self) {
        if a.k > b.k { (b, a) } else { (a, b) }
    }

    #[inline(always)]
    unsafe fn ce_rev(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: one lane: reversed is unreversed.
        unsafe { Self::ce(a, b) }
    }

    #[inline(always)]
    unsafe fn ce_intra<const KIND: u8, const A: usize, const B: usize>(self) -> Self {
        // One lane has no partner inside the unit (the driver never asks).
        self
    }

    #[inline(always)]
    unsafe fn ce_seam<const KK: usize>(a: Self, b: Self) -> (Self, Self) {
        // Needs `KK < L = 1`: never asked.
        (a, b)
    }
}

/// Registers per block of the portable width: keys alone, and pairs.
const R_KEYS: usize = 16;
const R_PAIRS: usize = 8;

/// Bitonic sort of any key words with any values, on the portable width.
pub(crate) fn bitonic_any<K: Bits, V: Copy + Zeroable>(keys: &mut [K], vals: &mut [V]) {
    let n = keys.len().min(vals.len());
    // SAFETY: both slices hold at least `n` entries; no CPU feature is needed.
    unsafe { bitonic::<Scalar<K, V>, R_PAIRS>(keys.as_mut_ptr(), vals.as_mut_ptr(), n) }
}

/// Odd-even merge sort of any key words with any values, on the portable width.
pub(crate) fn odd_even_any<K: Bits, V: Copy + Zeroable>(keys: &mut [K], vals: &mut [V]) {
    let n = keys.len().min(vals.len());
    // SAFETY: as in `bitonic_any`.
    unsafe { odd_even::<Scalar<K, V>, R_PAIRS>(keys.as_mut_ptr(), vals.as_mut_ptr(), n) }
}

macro_rules! portable_entries {
    ($($keys:ident, $pairs:ident: $k:ty;)*) => {$(
        /// Keys alone, on the portable width.
        pub(crate) fn $keys(keys: &mut [$k]) {
            // SAFETY: `keys` holds `keys.len()` entries; `()` values occupy no memory.
            unsafe { $pairs::<Scalar<$k, ()>, R_KEYS>(keys.as_mut_ptr(), no_vals(), keys.len()) }
        }
    )*};
}

portable_entries! {
    bitonic_u16, bitonic: u16;
    bitonic_u32, bitonic: u32;
    bitonic_u64, bitonic: u64;
    odd_even_u16, odd_even: u16;
    odd_even_u32, odd_even: u32;
    odd_even_u64, odd_even: u64;
}

macro_rules! portable_pair_entries {
    ($($name:ident, $any:ident: $k:ty, $v:ty;)*) => {$(
        /// Key-value pairs, on the portable width.
        pub(crate) fn $name(keys: &mut [$k], vals: &mut [$v]) {
            $any(keys, vals)
        }
    )*};
}

portable_pair_entries! {
    bitonic_u32_u32, bitonic_any: u32, u32;
    bitonic_u32_u64, bitonic_any: u32, u64;
    bitonic_u64_u32, bitonic_any: u64, u32;
    bitonic_u64_u64, bitonic_any: u64, u64;
    odd_even_u32_u32, odd_even_any: u32, u32;
    odd_even_u32_u64, odd_even_any: u32, u64;
    odd_even_u64_u32, odd_even_any: u64, u32;
    odd_even_u64_u64, odd_even_any: u64, u64;
}
