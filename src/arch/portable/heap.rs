//! The `portable` width of the d-heap (thesis 4.6): [`Scalar`], a child group compared
//! key by key, run by `generic::heap`'s drivers; the SIMD widths use [`scalar_best`] for
//! partial groups and for child searches they do not vectorise.

use core::marker::PhantomData;

use crate::arch::OrdBits;
use crate::arch::generic::heap::{HeapVec, better, displaces};

/// Index of the first best key of `s` (0 when `s` is empty).
#[inline(always)]
pub(crate) fn scalar_best<T: OrdBits, const MIN: bool>(s: &[T]) -> usize {
    let mut bi = 0;
    let mut bv = match s.first() {
        Some(&x) => x,
        None => return 0,
    };
    for (i, &x) in s.iter().enumerate().skip(1) {
        if better::<T, MIN>(x, bv) {
            bi = i;
            bv = x;
        }
    }
    bi
}

/// The portable "register": `D` keys compared one by one.
pub(crate) struct Scalar<T, const D: usize>(PhantomData<T>);

impl<T: OrdBits, const D: usize> HeapVec for Scalar<T, D> {
    type Elem = T;
    const D: usize = D;

    #[inline(always)]
    unsafe fn best<const MIN: bool>(p: *const T) -> usize {
        // SAFETY: the caller promises `p` is valid for reading `D` keys.
        scalar_best::<T, MIN>(unsafe { core::slice::from_raw_parts(p, D) })
    }

    #[inline(always)]
    unsafe fn displace_mask<const MIN: bool>(p: *const T, root: T) -> u32 {
        // SAFETY: the caller promises `p` is valid for reading `SCAN = D` keys.
        let s = unsafe { core::slice::from_raw_parts(p, D) };
        s.iter().enumerate().fold(0, |m, (i, &x)| m | ((displaces::<T, MIN>(x, root) as u32) << i))
    }
}
