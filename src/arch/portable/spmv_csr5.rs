//! The `portable` width of the CSR5 tile kernel (thesis 5.4): [`Port`], `W` lanes in an
//! array, run by `generic::spmv_csr5`'s tile loop for every `omega` a layout allows.

use core::ops::Range;

use crate::arch::generic::spmv_csr5::{Lanes, TileArgs, run_tiles};
use crate::{Index, Scalar};

/// The portable register: `W` values in an array (`W` a power of two up to 64).
#[derive(Clone, Copy)]
pub(crate) struct Port<T, const W: usize>([T; W]);

impl<T: Scalar, I: Index, const W: usize> Lanes<T, I> for Port<T, W> {
    const W: usize = W;
    type Slots = ();
    unsafe fn slots(_p: *const u32) {}
    #[inline(always)]
    unsafe fn load(p: *const T) -> Self {
        // SAFETY: `p` is valid for `W` reads (trait contract).
        Port(core::array::from_fn(|i| unsafe { *p.add(i) }))
    }
    #[inline(always)]
    unsafe fn gather(x: *const T, idx: *const I) -> Self {
        // SAFETY: `idx` is valid for `W` reads and each index is in `x` (trait contract).
        Port(core::array::from_fn(|i| unsafe { *x.add((*idx.add(i)).to_usize()) }))
    }
    #[inline(always)]
    unsafe fn fma(self, a: Self, b: Self) -> Self {
        Port(core::array::from_fn(|i| self.0[i] + a.0[i] * b.0[i]))
    }
    #[inline(always)]
    unsafe fn add(self, o: Self) -> Self {
        Port(core::array::from_fn(|i| self.0[i] + o.0[i]))
    }
    #[inline(always)]
    unsafe fn lane0(v: T) -> Self {
        let mut r = [T::ZERO; W];
        r[0] = v;
        Port(r)
    }
    #[inline(always)]
    unsafe fn clear(self, mask: u32) -> Self {
        Port(core::array::from_fn(|i| if mask >> i & 1 == 1 { T::ZERO } else { self.0[i] }))
    }
    #[inline(always)]
    unsafe fn store(self, out: *mut T) {
        // SAFETY: `out` is valid for `W` writes (trait contract).
        unsafe { core::ptr::copy_nonoverlapping(self.0.as_ptr(), out, W) }
    }
    #[inline(always)]
    unsafe fn heads(words: *const u32, j: u32) -> u32 {
        let mut m = 0;
        for i in 0..W {
            // SAFETY: `words` is valid for `W` reads (trait contract).
            m |= ((unsafe { *words.add(i) } >> j) & 1) << i;
        }
        m
    }
}

/// The portable kernel for any `omega` a layout allows (1, 2, 4, .., 32).
pub(crate) fn tiles<T: Scalar, I: Index>(
    omega: usize,
    a: &TileArgs<'_, T, I>,
    tiles: Range<usize>,
    carry: T,
    y: &mut [T],
) -> (T, bool) {
    // SAFETY: the portable register needs no CPU feature; `a` comes from a validated view
    // whose `omega` selects the matching `W`.
    unsafe {
        match omega {
            1 => run_tiles::<T, I, Port<T, 1>>(a, tiles, carry, y),
            2 => run_tiles::<T, I, Port<T, 2>>(a, tiles, carry, y),
            4 => run_tiles::<T, I, Port<T, 4>>(a, tiles, carry, y),
            8 => run_tiles::<T, I, Port<T, 8>>(a, tiles, carry, y),
            16 => run_tiles::<T, I, Port<T, 16>>(a, tiles, carry, y),
            32 => run_tiles::<T, I, Port<T, 32>>(a, tiles, carry, y),
            _ => (carry, false),
        }
    }
}
