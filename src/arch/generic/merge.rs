//! What every width's merge shares:
//!
//! - keys are compared by their [`OrdBits`] signed image (the key's total order,
//!   `f32::total_cmp` for floats): the SIMD widths load keys, map them into this domain,
//!   compare with plain signed integer min/max, and map back on store (the map is an
//!   involution);
//! - [`MergeVec`] and [`simd_merge`]: the vectorised merge of Inoue et al. / Chhugani et
//!   al. (a bitonic merge network over two registers of sorted keys, the larger half fed
//!   back), written once here and instantiated by each width with its register type;
//! - the dispatcher [`ArchKey`]: the way from the safe layers above into a width's
//!   `unsafe` merge kernel, behind a [`Checked`] `Isa` (see [`crate::arch`]).

// The vectorised drivers serve the SIMD widths only; targets without one keep them unused.
#![cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(dead_code, unused_macros))]

use crate::arch::portable::merge as portable;
use crate::arch::{Checked, OrdBits};

/// The widest merge register of any width, in keys (AVX-512, 16 × 32-bit).
pub(crate) const MAX_W: usize = 16;

/// One SIMD register (or a fixed group of registers) of `W` keys in the signed-ordered
/// domain, with the bitonic merge network of two such registers. Implemented by each
/// width for u32, f32, u64 and f64; every method is `#[inline(always)]` so that it
/// inlines into the `#[target_feature]` kernel that instantiates [`simd_merge`].
pub(crate) trait MergeVec: Copy {
    /// The stored key type.
    type Elem: OrdBits;
    /// Keys per register group; at most [`MAX_W`].
    const W: usize;
    /// Loads `W` keys and maps them into the signed domain.
    ///
    /// # Safety
    /// `p` is valid for reading `W` keys, and the width's target features are enabled.
    unsafe fn load(p: *const Self::Elem) -> Self;
    /// Maps back from the signed domain and stores `W` keys.
    ///
    /// # Safety
    /// `p` is valid for writing `W` keys, and the width's target features are enabled.
    unsafe fn store(self, p: *mut Self::Elem);
    /// Bitonic merge of two sorted registers: returns the `W` smallest and the `W`
    /// largest keys, each sorted. On unsorted registers it still returns a permutation.
    ///
    /// # Safety
    /// The width's target features are enabled.
    unsafe fn network(a: Self, b: Self) -> (Self, Self);
}

/// Loads `s[i..]`: a whole register when `W` keys remain, otherwise the rest padded with
/// [`OrdBits::PAD`] (the largest key).
///
/// # Safety
/// The width's target features are enabled.
#[inline(always)]
unsafe fn load_at<V: MergeVec>(s: &[V::Elem], i: usize) -> V {
    let rest = s.get(i..).unwrap_or(&[]);
    if rest.len() >= V::W {
        // SAFETY: `rest` holds at least `W` keys; the features are the caller's promise.
        unsafe { V::load(rest.as_ptr()) }
    } else {
        let mut buf = [V::Elem::PAD; MAX_W];
        let n = rest.len().min(MAX_W);
        buf[..n].copy_from_slice(&rest[..n]);
        // SAFETY: `buf` holds `MAX_W >= W` keys; the features are the caller's promise.
        unsafe { V::load(buf.as_ptr()) }
    }
}

/// Stores the first `min(W, s.len())` keys of `v` into `s`.
///
/// # Safety
/// The width's target features are enabled.
#[inline(always)]
unsafe fn store_head<V: MergeVec>(v: V, s: &mut [V::Elem]) {
    if s.len() >= V::W {
        // SAFETY: `s` holds at least `W` keys; the features are the caller's promise.
        unsafe { v.store(s.as_mut_ptr()) }
    } else {
        let mut buf = [V::Elem::PAD; MAX_W];
        // SAFETY: `buf` holds `MAX_W >= W` keys; the features are the caller's promise.
        unsafe { v.store(buf.as_mut_ptr()) };
        s.copy_from_slice(&buf[..s.len()]);
    }
}

/// The merge path split on anti-diagonal `diag` searched within `i ∈ [lo, hi]` (thesis
/// Alg. 18, lines 8–24): the first `diag` keys of the stable merge are `a[..i]` and
/// `b[..diag - i]`. Needs `diag - b.len() <= lo <= hi <= min(diag, a.len())`; then every
/// index is in bounds whatever the keys (unsorted inputs give some `i` in the range).
#[inline]
pub(crate) fn split_in<T: OrdBits>(
    a: &[T],
    b: &[T],
    diag: usize,
    mut lo: usize,
    mut hi: usize,
) -> (usize, usize) {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        // In bounds: mid < hi <= min(diag, na), and mid >= lo >= diag - nb, so
        // 0 <= diag - 1 - mid < nb.
        if a[mid].ord() <= b[diag - 1 - mid].ord() {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    (lo, diag - lo)
}

/// One stream of the vectorised merge (Inoue et al. 2007, Chhugani et al. 2008): `vb`
/// holds the larger half of the last network output, `va` the next block, taken from the
/// list whose next key is smaller; each step merges them, stores the smaller half and
/// loads the next block. A list's last partial block is padded with the largest key
/// ([`OrdBits::PAD`]); pads sort behind every real key (ties with a real maximal key are
/// indistinguishable), so exactly the `a.len() + b.len()` real keys are stored.
///
/// On unsorted inputs the output is still a permutation of the inputs: the network only
/// exchanges keys, a list is never read after its padded block, and a pad enters the
/// stored half only once both lists are exhausted (a 0–1 argument on "is a pad": every
/// register is pads-last, so every network output is too).
struct Stream<'s, V: MergeVec> {
    a: &'s [V::Elem],
    b: &'s [V::Elem],
    out: &'s mut [V::Elem],
    va: V,
    vb: V,
    ia: usize,
    ib: usize,
    io: usize,
}

impl<'s, V: MergeVec> Stream<'s, V> {
    /// Loads the first block of each list (padded where shorter than `W`).
    ///
    /// # Safety
    /// The width's target features are enabled. (`out.len() == a.len() + b.len()` is
    /// checked by the callers; another length makes the output wrong, never out of
    /// bounds.)
    #[inline(always)]
    unsafe fn new(a: &'s [V::Elem], b: &'s [V::Elem], out: &'s mut [V::Elem]) -> Self {
        // SAFETY: features: the caller's promise; `load_at` bounds its own reads.
        let (va, vb) = unsafe { (load_at(a, 0), load_at(b, 0)) };
        let w = V::W;
        Stream { va, vb, ia: w.min(a.len()), ib: w.min(b.len()), io: 0, a, b, out }
    }

    /// Whether the next step may run without checks: both lists still hold a whole
    /// block (so no pad was ever loaded) and a whole register fits in `out`.
    #[inline(always)]
    fn fast(&self) -> bool {
        self.ia + V::W <= self.a.len() && self.ib + V::W <= self.b.len() && self.io + V::W <= self.out.len()
    }

    /// One step when [`Stream::fast`] holds: merge, store the smaller half, load the next
    /// block from the list with the smaller head — the choice is a select, not a branch.
    ///
    /// # Safety
    /// The width's target features are enabled and [`Stream::fast`] holds.
    #[inline(always)]
    unsafe fn step_fast(&mut self) {
        let w = V::W;
        // The network reverses its second argument: pass the fresh block there, so the
        // reversal is off the loop-carried dependency through `hi`.
        // SAFETY: features: the caller's promise.
        let (lo, hi) = unsafe { V::network(self.vb, self.va) };
        // SAFETY: `io + w <= out.len()` (`fast`).
        unsafe { lo.store(self.out.as_mut_ptr().add(self.io)) };
        self.io += w;
        self.vb = hi;
        let take_a = self.a[self.ia].ord() <= self.b[self.ib].ord();
        let p = if take_a {
            self.a.as_ptr().wrapping_add(self.ia)
        } else {
            self.b.as_ptr().wrapping_add(self.ib)
        };
        // SAFETY: `p` points at `a[ia..]` or `b[ib..]`, each holding at least `w` keys
        // (`fast`).
        self.va = unsafe { V::load(p) };
        self.ia += if take_a { w } else { 0 };
        self.ib += if take_a { 0 } else { w };
    }

    /// Runs the stream to its end, partial blocks and padding included.
    ///
    /// # Safety
    /// The width's target features are enabled.
    #[inline(always)]
    unsafe fn finish(mut self) {
        let (na, nb, n, w) = (self.a.len(), self.b.len(), self.out.len(), V::W);
        loop {
            if self.fast() {
                // SAFETY: features: the caller's promise; `fast` holds.
                unsafe { self.step_fast() };
                continue;
            }
            // SAFETY: features: the caller's promise.
            let (lo, hi) = unsafe { V::network(self.vb, self.va) };
            let io = self.io;
            if io + w <= n {
                // SAFETY: `io + w <= n = out.len()`.
                unsafe { lo.store(self.out.as_mut_ptr().add(io)) };
                self.io += w;
            } else {
                // SAFETY: features: the caller's promise; `store_head` bounds its writes.
                unsafe { store_head(lo, self.out.get_mut(io..).unwrap_or(&mut [])) };
                return;
            }
            if self.io >= n {
                return;
            }
            self.vb = hi;
            let (ia, ib) = (self.ia, self.ib);
            if ia < na && (ib >= nb || self.a[ia].ord() <= self.b[ib].ord()) {
                // SAFETY: features: the caller's promise; `load_at` bounds its reads.
                self.va = unsafe { load_at(self.a, ia) };
                self.ia = (ia + w).min(na);
            } else if ib < nb {
                // SAFETY: as above.
                self.va = unsafe { load_at(self.b, ib) };
                self.ib = (ib + w).min(nb);
            } else {
                // Both lists are exhausted: the remaining `n - io <= w` keys are in `hi`.
                // SAFETY: features: the caller's promise; `store_head` bounds its writes.
                unsafe { store_head(hi, self.out.get_mut(self.io..).unwrap_or(&mut [])) };
                return;
            }
        }
    }
}

/// The vectorised merge of `a` and `b` into `out` (see [`Stream`]).
///
/// One stream is a chain of dependent networks (each step's larger half feeds the next),
/// so it runs at the network's latency, not its throughput. With `TWO`, the merge is
/// first split at its middle anti-diagonal (one merge path search) and the two halves
/// run in lockstep in one loop, so the two chains overlap.
///
/// # Safety
/// The width's target features are enabled; `V::W <= MAX_W`.
#[inline(always)]
pub(crate) unsafe fn simd_merge<V: MergeVec, const TWO: bool>(
    a: &[V::Elem],
    b: &[V::Elem],
    out: &mut [V::Elem],
) {
    let (na, nb, n) = (a.len(), b.len(), out.len());
    if na == 0 || nb == 0 || n != na + nb {
        portable::merge(a, b, out);
        return;
    }
    if !TWO || n < 16 * V::W {
        // SAFETY: features: the caller's promise; `n == na + nb`.
        unsafe { Stream::<V>::new(a, b, out).finish() };
        return;
    }
    let d = n / 2;
    let (i, j) = split_in(a, b, d, d.saturating_sub(nb), d.min(na));
    let (o1, o2) = out.split_at_mut(d);
    // SAFETY (all four): features: the caller's promise; each half's output length is
    // the sum of its inputs' (`i + j = d`).
    let mut s1 = unsafe { Stream::<V>::new(&a[..i], &b[..j], o1) };
    let mut s2 = unsafe { Stream::<V>::new(&a[i..], &b[j..], o2) };
    while s1.fast() && s2.fast() {
        // SAFETY: `fast` holds for both.
        unsafe {
            s1.step_fast();
            s2.step_fast();
        }
    }
    // SAFETY: as above.
    unsafe {
        s1.finish();
        s2.finish();
    }
}

/// The merge kernels a key type has on every width, behind a [`Checked`] `Isa`: one
/// vectorised merge per key type and width (`usize` runs as the unsigned integer of its
/// width).
///
/// `pub` only to be a supertrait of the sealed public `Key`; unnameable outside the crate.
pub trait ArchKey: OrdBits {
    /// Merges sorted `a` and `b` into `out` (`out.len() == a.len() + b.len()`) on the
    /// checked `Isa`.
    fn merge_on(isa: Checked, a: &[Self], b: &[Self], out: &mut [Self]);
}

macro_rules! arch_key {
    ($t:ty, $f:ident) => {
        impl ArchKey for $t {
            #[inline]
            fn merge_on(isa: Checked, a: &[$t], b: &[$t], out: &mut [$t]) {
                crate::arch::dispatch!(isa, merge::$f(a, b, out), else portable::merge(a, b, out))
            }
        }
    };
}

arch_key!(u32, merge_u32);
arch_key!(i32, merge_i32);
arch_key!(f32, merge_f32);
arch_key!(u64, merge_u64);
arch_key!(i64, merge_i64);
arch_key!(f64, merge_f64);

/// `usize` keys merge as the unsigned integer of their width (the same order).
macro_rules! arch_key_usize {
    ($w:ty) => {
        impl ArchKey for usize {
            #[inline]
            fn merge_on(isa: Checked, a: &[usize], b: &[usize], out: &mut [usize]) {
                <$w>::merge_on(
                    isa,
                    bytemuck::cast_slice(a),
                    bytemuck::cast_slice(b),
                    bytemuck::cast_slice_mut(out),
                )
            }
        }
    };
}

/// `u16` keys (the `u16` index type) merge on the portable kernel on every width: no
/// width has a 16-lane merge network, and the rows they merge are short.
impl ArchKey for u16 {
    #[inline]
    fn merge_on(_: Checked, a: &[u16], b: &[u16], out: &mut [u16]) {
        portable::merge(a, b, out)
    }
}

#[cfg(target_pointer_width = "64")]
arch_key_usize!(u64);
#[cfg(target_pointer_width = "32")]
arch_key_usize!(u32);

/// Stamps out a width's `#[target_feature]` merge kernel for one key type from its
/// [`MergeVec`] register type.
macro_rules! merge_kernel {
    ($feature:literal, $vec:ty, $two:literal, $t:ty, $name:ident) => {
        /// The vectorised bitonic merge ([`simd_merge`](crate::arch::generic::merge::simd_merge))
        /// of sorted `a` and `b` into `out` (`out.len() == a.len() + b.len()`).
        ///
        /// # Safety
        /// The CPU supports the target features enabled here.
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn $name(a: &[$t], b: &[$t], out: &mut [$t]) {
            // SAFETY: the features are enabled on this function; bounds are checked inside.
            unsafe { $crate::arch::generic::merge::simd_merge::<$vec, $two>(a, b, out) }
        }
    };
}

#[allow(unused_imports)]
pub(crate) use merge_kernel;
