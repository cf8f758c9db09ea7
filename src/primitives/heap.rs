//! Implicit d-heaps on caller slices with a SIMD find-best-child, and heap-based
//! k-selection (thesis 4.6).
//!
//! **Layout** (thesis 4.6.1, Fig. 4.8). A heap of `len` keys lives in `buf[..len]`; node
//! `i`'s children are `buf[d*i + 1 ..= d*i + d]`, so the `d` children of a node are
//! contiguous. The arity `d` is the SIMD width of the [`Isa`] the heap was made with — 8
//! (32-bit keys) or 4 (64-bit keys) on AVX2, NEON (a register pair) and the portable path;
//! 16 (32-bit keys) or 8 (`f64`) on AVX-512, where 64-bit integer keys keep d = 4 (see
//! [`arity`]) — so *find-max-child*, the step the ad-heap moves to the GPU (4.6.2), is one
//! SIMD load, a horizontal max/min, a compare and a bit scan. This is the ad-heap's
//! idea on one chip; its CPU–GPU bridge has no use here. The thesis pads `d - 1` empty
//! slots in front of the root so that child groups are cache-aligned; here the caller
//! decides: a group is aligned when `&buf[1]` is — [`aligned_offset`] says where to
//! start, [`DHeap::new_aligned`] does it — and no capacity is spent when alignment
//! does not matter.
//! A heap keeps the `Isa` (hence `d`) it was made with.
//!
//! **Order.** [`Max`] (default) keeps the largest key at the root, [`Min`] the smallest.
//! Keys are any [`Key`] (`u16`, `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, `usize`) in
//! their total order — floats as [`f32::total_cmp`], so NaNs are ordered (`+NaN` above `+inf`,
//! `-NaN` below `-inf`).
//!
//! **Operations.** [`DHeap::push`] (insert: sift-up, scalar — one parent per level, no
//! data parallelism), [`DHeap::pop`] (delete-max: sift-down with the SIMD child search),
//! [`DHeap::peek`], [`DHeap::update`] (update-key at an index, either direction),
//! [`DHeap::replace_top`] (update-key of the root, thesis Alg. 19), the O(n) builds
//! [`DHeap::from_slice`] / [`DHeap::from_prefix`], and [`DHeap::into_sorted`] (heap
//! sort). [`DHeapPairs`] is the same heap over keys with values moving alongside (sparse
//! vector addition, 7.4.1). A full heap refuses to `push` ([`DimError::BufferTooSmall`]);
//! an empty one `pop`s `None`. No operation allocates or panics.
//!
//! **Where SIMD pays** (`benches/primitives/heap.rs`;
//! `benches/records/kernel-notes-2026-11.md`, "Heap arity and child search"): the
//! k-selection scan (a whole register of keys against the root: several times
//! `select_nth_unstable` for k << n) and push (a shallower tree, ahead of std's `BinaryHeap`). Pops are
//! latency-bound — each level waits for the previous level's child index — and a
//! horizontal max + compare + bit scan is about as long a chain as `d - 1` scalar
//! compare-and-selects at d = 8, so 32-bit pops gain little over the portable path and
//! end up level with `BinaryHeap`. For 64-bit keys AVX2 has no 64-bit max, so its child
//! search is scalar (same d = 4 as portable). On AVX-512 the d = 8 butterfly pays for
//! `f64` (whose scalar search is unusually slow) but not for 64-bit integers, whose heaps
//! therefore stay at d = 4 (see [`arity`]).
//!
//! **k-selection** (4.6.3). [`k_select`] keeps a max-heap of the first `k` keys in
//! the caller's `out` and lets every later key smaller than the root replace it; the
//! scan compares a whole register of keys against the root at once, so the common case
//! (nothing displaces the root) costs one SIMD compare per `d` keys.
//! [`k_largest`] is the mirror image; [`k_select_batch`] runs many lists.

use core::fmt::Debug;
use core::marker::PhantomData;

use super::Key;
use crate::arch::Checked;
use crate::arch::generic::heap as kernels;
use crate::{DimError, Exec, Isa};

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Max {}
    impl Sealed for super::Min {}
}

/// Which end of the order a heap keeps at its root: [`Max`] or [`Min`]. Sealed.
pub trait HeapOrder: sealed::Sealed + Copy + Default + Debug + Send + Sync + 'static {
    /// `true` for [`Min`].
    const IS_MIN: bool;
}

/// Max-heap order: the largest key (in the total order) is at the root.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Max;

/// Min-heap order: the smallest key (in the total order) is at the root.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Min;

impl HeapOrder for Max {
    const IS_MIN: bool = false;
}

impl HeapOrder for Min {
    const IS_MIN: bool = true;
}

// The kernels take the order as a const generic; `O::IS_MIN` cannot be one directly.

#[inline]
fn better<K: Key, O: HeapOrder>(x: K, y: K) -> bool {
    if O::IS_MIN { kernels::better::<K, true>(x, y) } else { kernels::better::<K, false>(x, y) }
}

#[inline]
fn sift_down<K: Key, O: HeapOrder>(isa: Checked, heap: &mut [K], pos: usize, v: K) {
    if O::IS_MIN {
        K::sift_down_on::<true>(isa, heap, pos, v)
    } else {
        K::sift_down_on::<false>(isa, heap, pos, v)
    }
}

#[inline]
fn sift_up<K: Key, O: HeapOrder>(heap: &mut [K], d: usize, pos: usize, v: K) {
    if O::IS_MIN {
        kernels::sift_up::<K, true>(heap, d, pos, v)
    } else {
        kernels::sift_up::<K, false>(heap, d, pos, v)
    }
}

#[inline]
fn heapify<K: Key, O: HeapOrder>(isa: Checked, heap: &mut [K]) {
    if O::IS_MIN { K::heapify_on::<true>(isa, heap) } else { K::heapify_on::<false>(isa, heap) }
}

#[inline]
fn sift_down_pairs<K: Key, V: Copy, O: HeapOrder>(
    isa: Checked,
    keys: &mut [K],
    vals: &mut [V],
    pos: usize,
    k: K,
    v: V,
) {
    if O::IS_MIN {
        K::sift_down_pairs_on::<V, true>(isa, keys, vals, pos, k, v)
    } else {
        K::sift_down_pairs_on::<V, false>(isa, keys, vals, pos, k, v)
    }
}

#[inline]
fn sift_up_pairs<K: Key, V: Copy, O: HeapOrder>(
    keys: &mut [K],
    vals: &mut [V],
    d: usize,
    pos: usize,
    k: K,
    v: V,
) {
    if O::IS_MIN {
        kernels::sift_up_pairs::<K, V, true>(keys, vals, d, pos, k, v)
    } else {
        kernels::sift_up_pairs::<K, V, false>(keys, vals, d, pos, k, v)
    }
}

#[inline]
fn heapify_pairs<K: Key, V: Copy, O: HeapOrder>(isa: Checked, keys: &mut [K], vals: &mut [V]) {
    if O::IS_MIN {
        K::heapify_pairs_on::<V, true>(isa, keys, vals)
    } else {
        K::heapify_pairs_on::<V, false>(isa, keys, vals)
    }
}

/// The arity `d` of a heap of `K` keys made with `isa` (its SIMD lanes for `K`, 32 bytes
/// of children per node but on AVX-512):
///
/// | keys | portable, AVX2, NEON | AVX-512 |
/// |---|---|---|
/// | `u16` (portable child search on every width) | 16 | 16 |
/// | `u32`, `i32`, `f32` | 8 | 16 |
/// | `f64` | 4 | 8 |
/// | `u64`, `i64` | 4 | 4 |
///
/// (`usize` is `u64` or `u32`, by pointer width.)
///
/// 64-bit integer heaps on AVX-512 use AVX2's d = 4 and scalar child search (every
/// AVX-512 CPU has AVX2); only their k-selection scan compares 8 keys, one `zmm`, against
/// the root: pops of heaps that fit in cache ran slower with the d = 8 butterfly (three
/// dependent shuffle + 64-bit max steps per level) than with d = 4 (three scalar
/// compare-and-selects). For `f64` the butterfly beats the scalar search, so it stays
/// (`benches/records/kernel-notes-2026-11.md`, "Heap arity and child search").
///
/// ```
/// use spblas::{Isa, primitives::heap::arity};
/// assert_eq!(arity::<u32>(Isa::Portable), 8);
/// assert_eq!(arity::<f64>(Isa::Avx512), 8);
/// assert_eq!(arity::<u64>(Isa::Avx512), 4);
/// ```
pub fn arity<K: Key>(isa: Isa) -> usize {
    K::arity(isa)
}

/// The offset `s < d` (`d` = [`arity::<K>(isa)`](arity)) at which a heap should start in
/// `buf` so that its child groups are aligned: `&buf[s + 1]`, and with it every group
/// `buf[s + d*i + 1 ..= s + d*i + d]`, sits on a multiple of `d * size_of::<K>()` bytes
/// (32 or 64: one AVX2 register, one AVX-512 register and cache line). This is the
/// thesis's `d - 1` head slots (Fig. 4.8), trimmed to what this buffer needs.
/// [`DHeap::new_aligned`] uses it; pass `&mut buf[s..]` to the other constructors.
/// Measured on AVX-512, a 1M-key heap pops about twice as fast aligned.
///
/// Returns at most `buf.len()`.
pub fn aligned_offset<K: Key>(isa: Isa, buf: &[K]) -> usize {
    let (d, size) = (K::arity(isa), core::mem::size_of::<K>());
    let group = d * size;
    let addr = buf.as_ptr() as usize;
    (0..d).find(|s| (addr + (s + 1) * size).is_multiple_of(group)).unwrap_or(0).min(buf.len())
}

/// An implicit d-heap over a caller's slice (see the module docs): `buf[..len]` holds the
/// heap, `buf[len..]` is free capacity. `O` is [`Max`] (default) or [`Min`].
///
/// ```
/// use spblas::Exec;
/// use spblas::primitives::heap::{DHeap, Min};
/// let mut buf = [0.0f32; 8];
/// let mut h = DHeap::<f32, Min>::new(Exec::new(), &mut buf)?;
/// for x in [3.0, f32::NAN, -1.0, 2.5] {
///     h.push(x)?;
/// }
/// assert_eq!(h.pop(), Some(-1.0));
/// assert_eq!(h.pop(), Some(2.5));
/// assert_eq!(h.pop(), Some(3.0));
/// assert!(h.pop().unwrap().is_nan()); // +NaN is above +inf in the total order
/// assert_eq!(h.pop(), None);
/// # Ok::<(), spblas::DimError>(())
/// ```
#[derive(Debug)]
pub struct DHeap<'a, K: Key, O: HeapOrder = Max> {
    buf: &'a mut [K],
    len: usize,
    isa: Checked,
    order: PhantomData<O>,
}

impl<'a, K: Key, O: HeapOrder> DHeap<'a, K, O> {
    /// An empty heap with capacity `buf.len()` on `exec`'s `Isa` (which fixes the arity).
    ///
    /// # Errors
    /// [`DimError::IsaUnavailable`] if this machine cannot run `exec`'s `Isa`.
    pub fn new(exec: Exec, buf: &'a mut [K]) -> Result<Self, DimError> {
        Ok(DHeap { buf, len: 0, isa: Checked::new(exec.resolved_isa())?, order: PhantomData })
    }

    /// An empty heap on `exec`'s `Isa` in `buf[s..]`, `s = aligned_offset(isa, buf)`, so
    /// that its child groups are cache-aligned (capacity `buf.len() - s`, `s < d`).
    ///
    /// # Errors
    /// [`DimError::IsaUnavailable`] if this machine cannot run `exec`'s `Isa`.
    pub fn new_aligned(exec: Exec, buf: &'a mut [K]) -> Result<Self, DimError> {
        let isa = exec.resolved_isa();
        let checked = Checked::new(isa)?;
        let s = aligned_offset(isa, buf);
        Ok(DHeap { buf: &mut buf[s..], len: 0, isa: checked, order: PhantomData })
    }

    /// Builds a heap of all of `buf`'s keys in place (bottom-up, O(n)) on `exec`'s `Isa`.
    /// The heap is full.
    ///
    /// # Errors
    /// [`DimError::IsaUnavailable`].
    pub fn from_slice(exec: Exec, buf: &'a mut [K]) -> Result<Self, DimError> {
        let len = buf.len();
        Self::from_prefix(exec, buf, len)
    }

    /// Builds a heap of `buf[..len]` in place (O(len)) on `exec`'s `Isa`; `buf[len..]`
    /// stays free capacity.
    ///
    /// # Errors
    /// [`DimError::BufferTooSmall`] if `len > buf.len()`; [`DimError::IsaUnavailable`].
    pub fn from_prefix(exec: Exec, buf: &'a mut [K], len: usize) -> Result<Self, DimError> {
        let isa = Checked::new(exec.resolved_isa())?;
        if len > buf.len() {
            return Err(DimError::BufferTooSmall { buffer: "buf", needed: len, got: buf.len() });
        }
        heapify::<K, O>(isa, &mut buf[..len]);
        Ok(DHeap { buf, len, isa, order: PhantomData })
    }

    /// The `Isa` the heap runs on.
    pub fn isa(&self) -> Isa {
        self.isa.isa()
    }

    /// The arity `d`: children per node.
    pub fn arity(&self) -> usize {
        K::arity(self.isa.isa())
    }

    /// Number of keys in the heap.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the heap holds no key.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The most keys the heap can hold (`buf.len()`).
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Whether a `push` would fail.
    pub fn is_full(&self) -> bool {
        self.len == self.buf.len()
    }

    /// The root: the largest key ([`Max`]) or the smallest ([`Min`]).
    pub fn peek(&self) -> Option<K> {
        self.as_slice().first().copied()
    }

    /// The key at heap index `index` (`index < len`).
    pub fn get(&self, index: usize) -> Option<K> {
        self.as_slice().get(index).copied()
    }

    /// The heap's keys in heap order (`buf[..len]`).
    pub fn as_slice(&self) -> &[K] {
        &self.buf[..self.len]
    }

    /// Removes every key (O(1)).
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Inserts `key` (sift-up: O(log_d n), scalar).
    ///
    /// # Errors
    /// [`DimError::BufferTooSmall`] if the heap is full; the heap is unchanged.
    pub fn push(&mut self, key: K) -> Result<(), DimError> {
        if self.is_full() {
            return Err(DimError::BufferTooSmall {
                buffer: "heap",
                needed: self.len + 1,
                got: self.buf.len(),
            });
        }
        self.len += 1;
        let d = self.arity();
        sift_up::<K, O>(&mut self.buf[..self.len], d, self.len - 1, key);
        Ok(())
    }

    /// Removes and returns the root (delete-max / delete-min: the last key moves to the
    /// root and sifts down with the SIMD child search, O(d log_d n)). `None` if empty.
    pub fn pop(&mut self) -> Option<K> {
        let top = self.peek()?;
        self.len -= 1;
        let last = self.buf[self.len];
        if self.len > 0 {
            sift_down::<K, O>(self.isa, &mut self.buf[..self.len], 0, last);
        }
        Some(top)
    }

    /// Replaces the root by `key` and returns the old root (update-key of the root,
    /// thesis Alg. 19: one sift-down, cheaper than `pop` + `push`). On an empty heap,
    /// returns `None` and leaves the heap unchanged.
    pub fn replace_top(&mut self, key: K) -> Option<K> {
        let top = self.peek()?;
        sift_down::<K, O>(self.isa, &mut self.buf[..self.len], 0, key);
        Some(top)
    }

    /// Changes the key at heap index `index` to `key` and restores the heap order: a key
    /// that moved towards the root's end sifts up, any other sifts down (update-key,
    /// thesis 4.6.1).
    ///
    /// # Errors
    /// [`DimError::Parameter`] (`"index"`) if `index >= len`; the heap is unchanged.
    pub fn update(&mut self, index: usize, key: K) -> Result<(), DimError> {
        if index >= self.len {
            return Err(DimError::Parameter { name: "index", value: index });
        }
        let heap = &mut self.buf[..self.len];
        if better::<K, O>(key, heap[index]) {
            sift_up::<K, O>(heap, K::arity(self.isa.isa()), index, key);
        } else {
            sift_down::<K, O>(self.isa, heap, index, key);
        }
        Ok(())
    }

    /// Heap sort in place: pops every key into the freed tail and returns `buf[..len]`,
    /// ascending for [`Max`], descending for [`Min`].
    pub fn into_sorted(mut self) -> &'a mut [K] {
        let n = self.len;
        while let Some(top) = self.pop() {
            self.buf[self.len] = top;
        }
        &mut self.buf[..n]
    }
}

/// A d-heap of keys with values moving alongside (see [`DHeap`]): `keys[..len]` in heap
/// order, `vals[i]` belongs to `keys[i]`. The SIMD child search looks at keys only.
///
/// For heap-based sparse vector addition (thesis 7.4.1) use a [`Min`] heap of (column
/// index, value): equal columns pop one after another, and [`DHeapPairs::top_value_mut`]
/// accumulates into the root without moving it.
///
/// ```
/// use spblas::primitives::heap::{DHeapPairs, Min};
/// use spblas::Exec;
/// let (mut keys, mut vals) = ([0u32; 4], [0.0f64; 4]);
/// let mut h = DHeapPairs::<u32, f64, Min>::new(Exec::new(), &mut keys, &mut vals)?;
/// h.push(7, 1.0)?;
/// h.push(2, 0.5)?;
/// h.push(7, 2.0)?;
/// assert_eq!(h.pop(), Some((2, 0.5)));
/// let (c, v) = h.pop().unwrap();
/// assert_eq!(c, 7);
/// *h.top_value_mut().unwrap() += v; // the other column-7 entry
/// assert_eq!(h.pop(), Some((7, 3.0)));
/// # Ok::<(), spblas::DimError>(())
/// ```
#[derive(Debug)]
pub struct DHeapPairs<'a, K: Key, V: Copy, O: HeapOrder = Max> {
    keys: &'a mut [K],
    vals: &'a mut [V],
    len: usize,
    isa: Checked,
    order: PhantomData<O>,
}

impl<'a, K: Key, V: Copy, O: HeapOrder> DHeapPairs<'a, K, V, O> {
    fn check(keys: &[K], vals: &[V]) -> Result<(), DimError> {
        if keys.len() == vals.len() {
            Ok(())
        } else {
            Err(DimError::Length { operand: "vals", expected: keys.len(), got: vals.len() })
        }
    }

    /// An empty heap with capacity `keys.len()` on `exec`'s `Isa`.
    ///
    /// # Errors
    /// [`DimError::Length`] if `vals.len() != keys.len()`; [`DimError::IsaUnavailable`].
    pub fn new(exec: Exec, keys: &'a mut [K], vals: &'a mut [V]) -> Result<Self, DimError> {
        let isa = Checked::new(exec.resolved_isa())?;
        Self::check(keys, vals)?;
        Ok(DHeapPairs { keys, vals, len: 0, isa, order: PhantomData })
    }

    /// Builds a heap of all the pairs in place (O(n)) on `exec`'s `Isa`. The heap is full.
    ///
    /// # Errors
    /// [`DimError::Length`] if `vals.len() != keys.len()`; [`DimError::IsaUnavailable`].
    pub fn from_slices(exec: Exec, keys: &'a mut [K], vals: &'a mut [V]) -> Result<Self, DimError> {
        let isa = Checked::new(exec.resolved_isa())?;
        Self::check(keys, vals)?;
        heapify_pairs::<K, V, O>(isa, keys, vals);
        Ok(DHeapPairs { len: keys.len(), keys, vals, isa, order: PhantomData })
    }

    /// The `Isa` the heap runs on.
    pub fn isa(&self) -> Isa {
        self.isa.isa()
    }

    /// The arity `d`: children per node.
    pub fn arity(&self) -> usize {
        K::arity(self.isa.isa())
    }

    /// Number of pairs in the heap.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the heap holds no pair.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The most pairs the heap can hold.
    pub fn capacity(&self) -> usize {
        self.keys.len()
    }

    /// Whether a `push` would fail.
    pub fn is_full(&self) -> bool {
        self.len == self.keys.len()
    }

    /// The root pair.
    pub fn peek(&self) -> Option<(K, V)> {
        self.get(0)
    }

    /// The pair at heap index `index`.
    pub fn get(&self, index: usize) -> Option<(K, V)> {
        if index < self.len { Some((self.keys[index], self.vals[index])) } else { None }
    }

    /// The root's value, to change in place (its key, hence the heap order, stays).
    pub fn top_value_mut(&mut self) -> Option<&mut V> {
        if self.len == 0 { None } else { self.vals.first_mut() }
    }

    /// The heap's keys in heap order.
    pub fn keys(&self) -> &[K] {
        &self.keys[..self.len]
    }

    /// The values, aligned with [`DHeapPairs::keys`].
    pub fn vals(&self) -> &[V] {
        &self.vals[..self.len]
    }

    /// Removes every pair (O(1)).
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Inserts the pair `(key, val)`.
    ///
    /// # Errors
    /// [`DimError::BufferTooSmall`] if the heap is full; the heap is unchanged.
    pub fn push(&mut self, key: K, val: V) -> Result<(), DimError> {
        if self.is_full() {
            return Err(DimError::BufferTooSmall {
                buffer: "heap",
                needed: self.len + 1,
                got: self.keys.len(),
            });
        }
        self.len += 1;
        let (d, n) = (self.arity(), self.len);
        sift_up_pairs::<K, V, O>(&mut self.keys[..n], &mut self.vals[..n], d, n - 1, key, val);
        Ok(())
    }

    /// Removes and returns the root pair; `None` if empty.
    pub fn pop(&mut self) -> Option<(K, V)> {
        let top = self.peek()?;
        self.len -= 1;
        let n = self.len;
        let (k, v) = (self.keys[n], self.vals[n]);
        if n > 0 {
            sift_down_pairs::<K, V, O>(self.isa, &mut self.keys[..n], &mut self.vals[..n], 0, k, v);
        }
        Some(top)
    }

    /// Replaces the root pair and returns the old one (update-key of the root); `None`
    /// and no change on an empty heap.
    pub fn replace_top(&mut self, key: K, val: V) -> Option<(K, V)> {
        let top = self.peek()?;
        let n = self.len;
        sift_down_pairs::<K, V, O>(self.isa, &mut self.keys[..n], &mut self.vals[..n], 0, key, val);
        Some(top)
    }

    /// Changes the key of the pair at heap index `index` (its value goes with it) and
    /// restores the heap order.
    ///
    /// # Errors
    /// [`DimError::Parameter`] (`"index"`) if `index >= len`.
    pub fn update(&mut self, index: usize, key: K) -> Result<(), DimError> {
        if index >= self.len {
            return Err(DimError::Parameter { name: "index", value: index });
        }
        let (d, n) = (self.arity(), self.len);
        let (keys, vals) = (&mut self.keys[..n], &mut self.vals[..n]);
        let v = vals[index];
        if better::<K, O>(key, keys[index]) {
            sift_up_pairs::<K, V, O>(keys, vals, d, index, key, v);
        } else {
            sift_down_pairs::<K, V, O>(self.isa, keys, vals, index, key, v);
        }
        Ok(())
    }

    /// Heap sort in place; returns `(keys[..len], vals[..len])`, ascending keys for
    /// [`Max`], descending for [`Min`]. Not stable among equal keys.
    pub fn into_sorted(mut self) -> (&'a mut [K], &'a mut [V]) {
        let n = self.len;
        while let Some((k, v)) = self.pop() {
            self.keys[self.len] = k;
            self.vals[self.len] = v;
        }
        (&mut self.keys[..n], &mut self.vals[..n])
    }

    /// Heap sort in place that fuses equal keys: the heapsort-like drain of heap-based
    /// sparse vector addition (thesis 7.4.1, Fig. 7.1). Each delete-max (delete-min for
    /// [`Min`]) either fuses the popped pair into the first pair of the sorted sequence,
    /// `fuse(&mut that_value, popped_value)`, when the keys are equal (in the total order
    /// of [`Key`]), or prepends it to the sequence. The sequence grows from the end of the
    /// buffer downwards into the slots the heap frees, so it needs no other memory.
    ///
    /// Returns the duplicate-free sorted run `(keys[s..len], vals[s..len])` — ascending
    /// for [`Max`], descending for [`Min`] — where `len` is the heap's length before the
    /// call; `keys[..s]` and `vals[..s]` are left with unspecified pairs. Which of two
    /// equal keys' values is the accumulator is unspecified (the heap is not stable).
    ///
    /// ```
    /// use spblas::Exec;
    /// use spblas::primitives::heap::DHeapPairs;
    /// let mut keys = [7u32, 2, 7, 5, 2];
    /// let mut vals = [1.0f64, 0.5, 2.0, 4.0, 0.25];
    /// let h = DHeapPairs::<u32, f64>::from_slices(Exec::new(), &mut keys, &mut vals)?;
    /// let (k, v) = h.into_sorted_fused(|acc, x| *acc += x);
    /// assert_eq!(k, &[2, 5, 7]);
    /// assert_eq!(v, &[0.75, 4.0, 3.0]);
    /// # Ok::<(), spblas::DimError>(())
    /// ```
    pub fn into_sorted_fused(mut self, mut fuse: impl FnMut(&mut V, V)) -> (&'a mut [K], &'a mut [V]) {
        let n = self.len;
        // The sorted run is `keys[start..n]`. After the p-th pop the heap holds `n - p`
        // pairs and the run at most `p`, so `start - 1 >= len` whenever a pair is prepended.
        let mut start = n;
        while let Some((k, v)) = self.pop() {
            if start < n && self.keys[start].key_cmp(&k).is_eq() {
                fuse(&mut self.vals[start], v);
            } else {
                start -= 1;
                self.keys[start] = k;
                self.vals[start] = v;
            }
        }
        (&mut self.keys[start..n], &mut self.vals[start..n])
    }
}

/// Heap-based k-selection (thesis 4.6.3): the `k` smallest keys of `data` into
/// `out[..k]`, returning the k-th smallest (`None` when `k == 0`).
///
/// A max-heap of size `k` is built on `data[..k]` in `out[..k]`; every later key smaller
/// than the root replaces it (update-key of the root). `out[..k]` is left as that max
/// d-heap (arity [`arity::<K>(isa)`](arity)), so `out[0]` is the k-th smallest; wrap it
/// with [`DHeap::from_slice`] to pop in order, or sort it. Ties at the k-th key keep
/// the earliest keys seen (the keys themselves are indistinguishable). The scan compares
/// `d` keys against the root with one SIMD compare, so with `k << data.len()` it runs at
/// close to memory speed; `slice::select_nth_unstable` is the same-run baseline in the
/// benches.
///
/// ```
/// use spblas::Exec;
/// use spblas::primitives::heap::k_select;
/// let data = [9u32, 1, 8, 2, 7, 3, 6, 4, 5];
/// let mut out = [0u32; 3];
/// assert_eq!(k_select(Exec::new(), &data, 3, &mut out)?, Some(3)); // the 3rd smallest
/// out.sort();
/// assert_eq!(out, [1, 2, 3]);
/// # Ok::<(), spblas::DimError>(())
/// ```
///
/// # Errors
/// [`DimError::Parameter`] (`"k"`) if `k > data.len()`; [`DimError::BufferTooSmall`] if
/// `out.len() < k`; [`DimError::IsaUnavailable`]. Nothing is written on error.
pub fn k_select<K: Key>(exec: Exec, data: &[K], k: usize, out: &mut [K]) -> Result<Option<K>, DimError> {
    select_into::<K, Max>(Checked::new(exec.resolved_isa())?, data, k, out)
}

/// The mirror image of [`k_select`]: the `k` largest keys of `data` into `out[..k]`
/// (left as a min d-heap, `out[0]` the k-th largest), returning the k-th largest.
///
/// # Errors
/// As [`k_select`].
pub fn k_largest<K: Key>(exec: Exec, data: &[K], k: usize, out: &mut [K]) -> Result<Option<K>, DimError> {
    select_into::<K, Min>(Checked::new(exec.resolved_isa())?, data, k, out)
}

fn select_into<K: Key, O: HeapOrder>(
    isa: Checked,
    data: &[K],
    k: usize,
    out: &mut [K],
) -> Result<Option<K>, DimError> {
    if k > data.len() {
        return Err(DimError::Parameter { name: "k", value: k });
    }
    if out.len() < k {
        return Err(DimError::BufferTooSmall { buffer: "out", needed: k, got: out.len() });
    }
    if k == 0 {
        return Ok(None);
    }
    let heap = &mut out[..k];
    heap.copy_from_slice(&data[..k]);
    heapify::<K, O>(isa, heap);
    if O::IS_MIN {
        K::select_on::<true>(isa, heap, &data[k..]);
    } else {
        K::select_on::<false>(isa, heap, &data[k..]);
    }
    Ok(Some(heap[0]))
}

/// Batch k-selection (the thesis's benchmark, 4.6.3): `data` is a run of lists of
/// `list_len` keys each; list `l`'s `k` smallest go to `out[l*k..(l+1)*k]` as in
/// [`k_select`]. Each list is independent (a runtime may split `data` and `out` at
/// list boundaries and run the parts in parallel).
///
/// # Errors
/// [`DimError::Parameter`] if `list_len == 0` (`"list_len"`) or `k > list_len` (`"k"`);
/// [`DimError::Length`] if `data.len()` is not a multiple of `list_len`;
/// [`DimError::BufferTooSmall`] if `out.len() < (data.len() / list_len) * k`;
/// [`DimError::IsaUnavailable`].
pub fn k_select_batch<K: Key>(
    exec: Exec,
    data: &[K],
    list_len: usize,
    k: usize,
    out: &mut [K],
) -> Result<(), DimError> {
    let isa = Checked::new(exec.resolved_isa())?;
    if list_len == 0 {
        return Err(DimError::Parameter { name: "list_len", value: 0 });
    }
    if k > list_len {
        return Err(DimError::Parameter { name: "k", value: k });
    }
    if !data.len().is_multiple_of(list_len) {
        let expected = data.len() - data.len() % list_len;
        return Err(DimError::Length { operand: "data", expected, got: data.len() });
    }
    let needed = (data.len() / list_len).saturating_mul(k);
    if out.len() < needed {
        return Err(DimError::BufferTooSmall { buffer: "out", needed, got: out.len() });
    }
    if k == 0 {
        return Ok(());
    }
    for (list, o) in data.chunks_exact(list_len).zip(out.chunks_exact_mut(k)) {
        select_into::<K, Max>(isa, list, k, o)?;
    }
    Ok(())
}
