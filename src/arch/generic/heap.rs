//! What every width's d-heap shares: the [`HeapVec`] group
//! of `D` contiguous children with its find-best-child, the drivers (sift-down, heapify,
//! k-selection scan) written once over it, and the dispatchers ([`ArchHeapKey`]).
//!
//! Layout (thesis 4.6.1, Fig. 4.8): node `i`'s children are `d*i + 1 ..= d*i + d`, so each
//! child group is `d` contiguous keys — one SIMD register on the SIMD widths (`d` = lanes,
//! the ad-heap's find-maxchild as one compare/reduce). The thesis's `d - 1` empty head
//! slots only serve alignment; here they are left to the caller (a group is aligned when
//! `&heap[1]` is), so no capacity is lost.

// The vectorised drivers serve the SIMD widths only; targets without one keep them unused.
#![cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(unused_macros))]

use crate::Isa;
use crate::arch::portable::heap as portable;
use crate::arch::{Checked, OrdBits};

/// `true` iff `x` belongs above `y`: larger in a max-heap, smaller in a min-heap (`MIN`).
#[inline(always)]
pub(crate) fn better<T: OrdBits, const MIN: bool>(x: T, y: T) -> bool {
    if MIN { x.ord() < y.ord() } else { x.ord() > y.ord() }
}

/// `true` iff `x` replaces the root `root` in k-selection: below it for a max-heap (which
/// keeps the k smallest), above it for a min-heap (which keeps the k largest).
#[inline(always)]
pub(crate) fn displaces<T: OrdBits, const MIN: bool>(x: T, root: T) -> bool {
    if MIN { x.ord() > root.ord() } else { x.ord() < root.ord() }
}

/// A group of `D` contiguous keys — the children of one node — as one SIMD register (or
/// a fixed group of registers). Every method is `#[inline(always)]`, so it inlines into
/// the `#[target_feature]` kernel that instantiates the drivers below.
pub(crate) trait HeapVec {
    /// The stored key type.
    type Elem: OrdBits;
    /// The heap's arity `d` (= keys per register group); at most 32.
    const D: usize;
    /// Keys the k-selection scan ([`select`]) compares against the root at once; at most
    /// 32. `D` (one child group's register), unless a width's child groups are narrower
    /// than its registers (AVX-512's 64-bit integer heaps: d = 4, scan 8).
    const SCAN: usize = Self::D;
    /// Index (`< D`) of the first largest (`MIN`: smallest) of the `D` keys at `p`.
    ///
    /// # Safety
    /// `p` is valid for reading `D` keys; the width's target features are enabled.
    unsafe fn best<const MIN: bool>(p: *const Self::Elem) -> usize;
    /// Bit `i` (`i < SCAN`) is set iff `p[i]` [`displaces`] the root `root`.
    ///
    /// # Safety
    /// `p` is valid for reading `SCAN` keys; the width's target features are enabled.
    unsafe fn displace_mask<const MIN: bool>(p: *const Self::Elem, root: Self::Elem) -> u32;
}

/// Sift-down with a hole (thesis Alg. 19, update-key of node `pos`): `v` is the new key of
/// `heap[pos]`; each level finds the best child with one [`HeapVec::best`] (a scalar loop
/// for the last, partial group) and moves it up while it beats `v`.
///
/// # Safety
/// The width's target features are enabled. (Bounds are checked here.)
#[inline(always)]
pub(crate) unsafe fn sift_down<H: HeapVec, const MIN: bool>(
    heap: &mut [H::Elem],
    mut pos: usize,
    v: H::Elem,
) {
    let len = heap.len();
    if pos >= len {
        return;
    }
    while let Some(first) = pos.checked_mul(H::D).and_then(|x| x.checked_add(1))
        && first < len
    {
        let c = first
            + if len - first >= H::D {
                // SAFETY: `heap[first..]` holds at least `D` keys; features: the caller's.
                unsafe { H::best::<MIN>(heap.as_ptr().add(first)) }
            } else {
                portable::scalar_best::<_, MIN>(&heap[first..])
            };
        let cv = heap[c];
        if better::<_, MIN>(cv, v) {
            heap[pos] = cv;
            pos = c;
        } else {
            break;
        }
    }
    heap[pos] = v;
}

/// [`sift_down`] for a key–value heap: values move with their keys.
///
/// # Safety
/// As [`sift_down`]. (`keys.len() == vals.len()` is checked by the callers; otherwise the
/// shorter one bounds the heap.)
#[inline(always)]
pub(crate) unsafe fn sift_down_pairs<H: HeapVec, V: Copy, const MIN: bool>(
    keys: &mut [H::Elem],
    vals: &mut [V],
    mut pos: usize,
    k: H::Elem,
    v: V,
) {
    let len = keys.len().min(vals.len());
    if pos >= len {
        return;
    }
    while let Some(first) = pos.checked_mul(H::D).and_then(|x| x.checked_add(1))
        && first < len
    {
        let c = first
            + if len - first >= H::D {
                // SAFETY: `keys[first..]` holds at least `D` keys; features: the caller's.
                unsafe { H::best::<MIN>(keys.as_ptr().add(first)) }
            } else {
                portable::scalar_best::<_, MIN>(&keys[first..len])
            };
        let ck = keys[c];
        if better::<_, MIN>(ck, k) {
            keys[pos] = ck;
            vals[pos] = vals[c];
            pos = c;
        } else {
            break;
        }
    }
    keys[pos] = k;
    vals[pos] = v;
}

/// Bottom-up heap construction (Floyd): sift down every parent, last first. O(n).
///
/// # Safety
/// As [`sift_down`].
#[inline(always)]
pub(crate) unsafe fn heapify<H: HeapVec, const MIN: bool>(heap: &mut [H::Elem]) {
    let len = heap.len();
    if len < 2 {
        return;
    }
    for pos in (0..=(len - 2) / H::D).rev() {
        let v = heap[pos];
        // SAFETY: the caller's promise.
        unsafe { sift_down::<H, MIN>(heap, pos, v) };
    }
}

/// [`heapify`] for a key–value heap.
///
/// # Safety
/// As [`sift_down`].
#[inline(always)]
pub(crate) unsafe fn heapify_pairs<H: HeapVec, V: Copy, const MIN: bool>(
    keys: &mut [H::Elem],
    vals: &mut [V],
) {
    let len = keys.len().min(vals.len());
    if len < 2 {
        return;
    }
    for pos in (0..=(len - 2) / H::D).rev() {
        let (k, v) = (keys[pos], vals[pos]);
        // SAFETY: the caller's promise.
        unsafe { sift_down_pairs::<H, V, MIN>(keys, vals, pos, k, v) };
    }
}

/// The k-selection scan of thesis 4.6.3: `heap` (a valid heap of size k >= 1) keeps the k
/// best keys seen; every key of `data` that [`displaces`] the root replaces it (an
/// update-key of the root). `SCAN` keys at a time are first compared against the root
/// with one SIMD compare, so the common case — nothing displaces — costs one compare per
/// register, not per key.
///
/// # Safety
/// As [`sift_down`].
#[inline(always)]
pub(crate) unsafe fn select<H: HeapVec, const MIN: bool>(heap: &mut [H::Elem], data: &[H::Elem]) {
    if heap.is_empty() {
        return;
    }
    let mut chunks = data.chunks_exact(H::SCAN);
    for c in &mut chunks {
        // SAFETY: `c` holds exactly `SCAN` keys; features: the caller's.
        let mut m = unsafe { H::displace_mask::<MIN>(c.as_ptr(), heap[0]) };
        while m != 0 {
            let x = c[m.trailing_zeros() as usize];
            m &= m - 1;
            // The root may have moved since the mask was taken: check again.
            if displaces::<_, MIN>(x, heap[0]) {
                // SAFETY: the caller's promise.
                unsafe { sift_down::<H, MIN>(heap, 0, x) };
            }
        }
    }
    for &x in chunks.remainder() {
        if displaces::<_, MIN>(x, heap[0]) {
            // SAFETY: the caller's promise.
            unsafe { sift_down::<H, MIN>(heap, 0, x) };
        }
    }
}

/// Sift-up with a hole (insert, or update-key towards the root). No SIMD: one parent per
/// level (thesis 4.6.2, "the insert operation does not have any data parallelism").
#[inline]
pub(crate) fn sift_up<T: OrdBits, const MIN: bool>(heap: &mut [T], d: usize, mut pos: usize, v: T) {
    if pos >= heap.len() || d == 0 {
        return;
    }
    while pos > 0 {
        let parent = (pos - 1) / d;
        let pv = heap[parent];
        if better::<T, MIN>(v, pv) {
            heap[pos] = pv;
            pos = parent;
        } else {
            break;
        }
    }
    heap[pos] = v;
}

/// [`sift_up`] for a key–value heap.
#[inline]
pub(crate) fn sift_up_pairs<T: OrdBits, V: Copy, const MIN: bool>(
    keys: &mut [T],
    vals: &mut [V],
    d: usize,
    mut pos: usize,
    k: T,
    v: V,
) {
    if pos >= keys.len().min(vals.len()) || d == 0 {
        return;
    }
    while pos > 0 {
        let parent = (pos - 1) / d;
        let pk = keys[parent];
        if better::<T, MIN>(k, pk) {
            keys[pos] = pk;
            vals[pos] = vals[parent];
            pos = parent;
        } else {
            break;
        }
    }
    keys[pos] = k;
    vals[pos] = v;
}

/// The heap kernels a key type has on every width, behind a [`Checked`] `Isa`.
///
/// `pub` only to be a supertrait of the sealed public `Key`; unnameable outside the crate.
pub trait ArchHeapKey: OrdBits {
    /// The arity `d` of a heap of this key type on `isa` (its SIMD lanes).
    fn arity(isa: Isa) -> usize;
    /// [`sift_down`] on the checked `Isa`.
    fn sift_down_on<const MIN: bool>(isa: Checked, heap: &mut [Self], pos: usize, v: Self);
    /// [`sift_down_pairs`] on the checked `Isa`.
    fn sift_down_pairs_on<V: Copy, const MIN: bool>(
        isa: Checked,
        keys: &mut [Self],
        vals: &mut [V],
        pos: usize,
        k: Self,
        v: V,
    );
    /// [`heapify`] on the checked `Isa`.
    fn heapify_on<const MIN: bool>(isa: Checked, heap: &mut [Self]);
    /// [`heapify_pairs`] on the checked `Isa`.
    fn heapify_pairs_on<V: Copy, const MIN: bool>(isa: Checked, keys: &mut [Self], vals: &mut [V]);
    /// [`select`] on the checked `Isa`.
    fn select_on<const MIN: bool>(isa: Checked, heap: &mut [Self], data: &[Self]);
}

macro_rules! arch_heap_key {
    ($t:ty, $d:expr, [$avx2:expr, $avx512:expr, $neon:expr],
     $sift:ident, $sift_pairs:ident, $heapify:ident, $heapify_pairs:ident, $select:ident) => {
        impl ArchHeapKey for $t {
            #[inline]
            fn arity(isa: Isa) -> usize {
                match isa {
                    Isa::Avx2 => $avx2,
                    Isa::Avx512 => $avx512,
                    Isa::Neon => $neon,
                    _ => $d,
                }
            }

            #[inline]
            fn sift_down_on<const MIN: bool>(isa: Checked, heap: &mut [$t], pos: usize, v: $t) {
                crate::arch::dispatch!(isa, heap::$sift::<MIN>(heap, pos, v), else {
                    // SAFETY: the scalar group needs no target feature.
                    unsafe { sift_down::<portable::Scalar<$t, $d>, MIN>(heap, pos, v) }
                })
            }

            #[inline]
            fn sift_down_pairs_on<V: Copy, const MIN: bool>(
                isa: Checked,
                keys: &mut [$t],
                vals: &mut [V],
                pos: usize,
                k: $t,
                v: V,
            ) {
                crate::arch::dispatch!(isa, heap::$sift_pairs::<V, MIN>(keys, vals, pos, k, v), else {
                    // SAFETY: the scalar group needs no target feature.
                    unsafe { sift_down_pairs::<portable::Scalar<$t, $d>, V, MIN>(keys, vals, pos, k, v) }
                })
            }

            #[inline]
            fn heapify_on<const MIN: bool>(isa: Checked, heap: &mut [$t]) {
                crate::arch::dispatch!(isa, heap::$heapify::<MIN>(heap), else {
                    // SAFETY: the scalar group needs no target feature.
                    unsafe { heapify::<portable::Scalar<$t, $d>, MIN>(heap) }
                })
            }

            #[inline]
            fn heapify_pairs_on<V: Copy, const MIN: bool>(isa: Checked, keys: &mut [$t], vals: &mut [V]) {
                crate::arch::dispatch!(isa, heap::$heapify_pairs::<V, MIN>(keys, vals), else {
                    // SAFETY: the scalar group needs no target feature.
                    unsafe { heapify_pairs::<portable::Scalar<$t, $d>, V, MIN>(keys, vals) }
                })
            }

            #[inline]
            fn select_on<const MIN: bool>(isa: Checked, heap: &mut [$t], data: &[$t]) {
                crate::arch::dispatch!(isa, heap::$select::<MIN>(heap, data), else {
                    // SAFETY: the scalar group needs no target feature.
                    unsafe { select::<portable::Scalar<$t, $d>, MIN>(heap, data) }
                })
            }
        }
    };
}

// Portable arity: 32 bytes of children per node, as on AVX2 (the thesis found d = 8 best
// on CPUs for 32-bit keys), so portable and AVX2 heaps have identical layouts.
arch_heap_key!(
    u32,
    8,
    [8, 16, 8],
    sift_down_u32,
    sift_down_pairs_u32,
    heapify_u32,
    heapify_pairs_u32,
    select_u32
);
arch_heap_key!(
    i32,
    8,
    [8, 16, 8],
    sift_down_i32,
    sift_down_pairs_i32,
    heapify_i32,
    heapify_pairs_i32,
    select_i32
);
arch_heap_key!(
    f32,
    8,
    [8, 16, 8],
    sift_down_f32,
    sift_down_pairs_f32,
    heapify_f32,
    heapify_pairs_f32,
    select_f32
);
// 64-bit keys: d = 4 (32 bytes of children) on every width but AVX-512's f64 (d = 8, one
// zmm). AVX-512's 64-bit integer heaps keep d = 4 with the AVX2 child search and scan 8
// keys per root compare in k-selection: their d = 8 child search ran slower on heaps that
// fit in cache (see `avx512/heap.rs`).
arch_heap_key!(
    u64,
    4,
    [4, 4, 4],
    sift_down_u64,
    sift_down_pairs_u64,
    heapify_u64,
    heapify_pairs_u64,
    select_u64
);
arch_heap_key!(
    i64,
    4,
    [4, 4, 4],
    sift_down_i64,
    sift_down_pairs_i64,
    heapify_i64,
    heapify_pairs_i64,
    select_i64
);
arch_heap_key!(
    f64,
    4,
    [4, 8, 4],
    sift_down_f64,
    sift_down_pairs_f64,
    heapify_f64,
    heapify_pairs_f64,
    select_f64
);

/// `u16` heaps (the `u16` index type) run the portable child search on every width, with
/// 32 bytes of children per node (d = 16) as the 32-bit keys have on AVX2.
impl ArchHeapKey for u16 {
    #[inline]
    fn arity(_: Isa) -> usize {
        16
    }

    #[inline]
    fn sift_down_on<const MIN: bool>(_: Checked, heap: &mut [u16], pos: usize, v: u16) {
        // SAFETY: the scalar group needs no target feature.
        unsafe { sift_down::<portable::Scalar<u16, 16>, MIN>(heap, pos, v) }
    }

    #[inline]
    fn sift_down_pairs_on<V: Copy, const MIN: bool>(
        _: Checked,
        keys: &mut [u16],
        vals: &mut [V],
        pos: usize,
        k: u16,
        v: V,
    ) {
        // SAFETY: the scalar group needs no target feature.
        unsafe { sift_down_pairs::<portable::Scalar<u16, 16>, V, MIN>(keys, vals, pos, k, v) }
    }

    #[inline]
    fn heapify_on<const MIN: bool>(_: Checked, heap: &mut [u16]) {
        // SAFETY: the scalar group needs no target feature.
        unsafe { heapify::<portable::Scalar<u16, 16>, MIN>(heap) }
    }

    #[inline]
    fn heapify_pairs_on<V: Copy, const MIN: bool>(_: Checked, keys: &mut [u16], vals: &mut [V]) {
        // SAFETY: the scalar group needs no target feature.
        unsafe { heapify_pairs::<portable::Scalar<u16, 16>, V, MIN>(keys, vals) }
    }

    #[inline]
    fn select_on<const MIN: bool>(_: Checked, heap: &mut [u16], data: &[u16]) {
        // SAFETY: the scalar group needs no target feature.
        unsafe { select::<portable::Scalar<u16, 16>, MIN>(heap, data) }
    }
}

/// `usize` heaps run as heaps of the unsigned integer of their width (the same order,
/// the same arity).
macro_rules! arch_heap_key_usize {
    ($w:ty) => {
        impl ArchHeapKey for usize {
            #[inline]
            fn arity(isa: Isa) -> usize {
                <$w>::arity(isa)
            }

            #[inline]
            fn sift_down_on<const MIN: bool>(isa: Checked, heap: &mut [usize], pos: usize, v: usize) {
                <$w>::sift_down_on::<MIN>(isa, bytemuck::cast_slice_mut(heap), pos, v as $w)
            }

            #[inline]
            fn sift_down_pairs_on<V: Copy, const MIN: bool>(
                isa: Checked,
                keys: &mut [usize],
                vals: &mut [V],
                pos: usize,
                k: usize,
                v: V,
            ) {
                <$w>::sift_down_pairs_on::<V, MIN>(isa, bytemuck::cast_slice_mut(keys), vals, pos, k as $w, v)
            }

            #[inline]
            fn heapify_on<const MIN: bool>(isa: Checked, heap: &mut [usize]) {
                <$w>::heapify_on::<MIN>(isa, bytemuck::cast_slice_mut(heap))
            }

            #[inline]
            fn heapify_pairs_on<V: Copy, const MIN: bool>(isa: Checked, keys: &mut [usize], vals: &mut [V]) {
                <$w>::heapify_pairs_on::<V, MIN>(isa, bytemuck::cast_slice_mut(keys), vals)
            }

            #[inline]
            fn select_on<const MIN: bool>(isa: Checked, heap: &mut [usize], data: &[usize]) {
                <$w>::select_on::<MIN>(isa, bytemuck::cast_slice_mut(heap), bytemuck::cast_slice(data))
            }
        }
    };
}

#[cfg(target_pointer_width = "64")]
arch_heap_key_usize!(u64);
#[cfg(target_pointer_width = "32")]
arch_heap_key_usize!(u32);

/// Stamps out a width's `#[target_feature]` heap kernels for one key type from its
/// [`HeapVec`] register type: `sift_down_*`, `sift_down_pairs_*`, `heapify_*`,
/// `heapify_pairs_*`, `select_*`.
macro_rules! heap_kernels {
    ($feature:literal, $vec:ty, $t:ty,
     $sift:ident, $sift_pairs:ident, $heapify:ident, $heapify_pairs:ident, $select:ident) => {
        /// Sift-down (update-key) with the SIMD find-best-child.
        ///
        /// # Safety
        /// The CPU supports the target features enabled here.
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn $sift<const MIN: bool>(heap: &mut [$t], pos: usize, v: $t) {
            // SAFETY: the features are enabled on this function; bounds are checked inside.
            unsafe { $crate::arch::generic::heap::sift_down::<$vec, MIN>(heap, pos, v) }
        }

        /// Key–value sift-down with the SIMD find-best-child.
        ///
        /// # Safety
        /// The CPU supports the target features enabled here.
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn $sift_pairs<V: Copy, const MIN: bool>(
            keys: &mut [$t],
            vals: &mut [V],
            pos: usize,
            k: $t,
            v: V,
        ) {
            // SAFETY: the features are enabled on this function; bounds are checked inside.
            unsafe { $crate::arch::generic::heap::sift_down_pairs::<$vec, V, MIN>(keys, vals, pos, k, v) }
        }

        /// Floyd heap construction with the SIMD find-best-child.
        ///
        /// # Safety
        /// The CPU supports the target features enabled here.
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn $heapify<const MIN: bool>(heap: &mut [$t]) {
            // SAFETY: the features are enabled on this function; bounds are checked inside.
            unsafe { $crate::arch::generic::heap::heapify::<$vec, MIN>(heap) }
        }

        /// Key–value Floyd heap construction with the SIMD find-best-child.
        ///
        /// # Safety
        /// The CPU supports the target features enabled here.
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn $heapify_pairs<V: Copy, const MIN: bool>(keys: &mut [$t], vals: &mut [V]) {
            // SAFETY: the features are enabled on this function; bounds are checked inside.
            unsafe { $crate::arch::generic::heap::heapify_pairs::<$vec, V, MIN>(keys, vals) }
        }

        /// The k-selection scan with SIMD root compares and find-best-child.
        ///
        /// # Safety
        /// The CPU supports the target features enabled here.
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn $select<const MIN: bool>(heap: &mut [$t], data: &[$t]) {
            // SAFETY: the features are enabled on this function; bounds are checked inside.
            unsafe { $crate::arch::generic::heap::select::<$vec, MIN>(heap, data) }
        }
    };
}

#[allow(unused_imports)]
pub(crate) use heap_kernels;
