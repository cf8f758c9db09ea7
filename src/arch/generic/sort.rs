//! Sorting networks, thesis 4.5.2 (bitonic sort, Alg. 14) and 4.5.3 (odd-even merge
//! sort, Alg. 15): the one network driver that every width runs, over [`Unit`].
//!
//! # The networks
//! Both sorts run Batcher's networks in their *ascending-only* form: every comparator
//! `(i, j)` has `i < j`, and it swaps the two entries exactly when `key[i] > key[j]`
//! (ties never swap). Alg. 14 writes bitonic sort with comparators of both directions;
//! the ascending-only form is the same network with the second half of every merge
//! mirrored, so its first merge step compares `x` with `x ^ (s - 1)` (a *flip*) and the
//! rest compare `x` with `x + d` (*half-cleaners*). Odd-even merge sort (Alg. 15) is
//! already ascending-only: step `(p, k)` compares `x` with `x + k` for `x & p == 0` when
//! `k == p`, else for `x` in an odd `k`-block whose partner stays in the same
//! `2p`-block.
//!
//! # Any length, no allocation
//! A length `n` that is no power of two is padded *virtually* to the next power of two:
//! a comparator `(i, j)` with `j >= n` is skipped, which is exactly what it would do to a
//! `+inf` key at `j`. Nothing past `n` is read or written.
//!
//! # Registers, then memory
//! The driver sorts blocks of `B = R * L` entries (`R` registers of `L` lanes, see
//! [`Unit`]) entirely in registers, with the network's first `log2 B` stages unrolled.
//! Later stages run as passes over memory, one [`Unit`] pair at a time, while their
//! comparator distance is at least `B` (bitonic) or `L` (odd-even); a bitonic merge then
//! finishes each block in registers again. A block shorter than `B` (the input's tail, or
//! a short input) is filled up in registers with `+inf` keys that no comparator ever moves
//! below a real entry, and only the registers it needs are used.
//!
//! # Every width computes the same thing
//! The widths differ only in how they group the comparators of the same network (which
//! registers, which passes), never in which comparators run or in what order comparators
//! touching the same entry run; and every comparator swaps exactly when `key[i] > key[j]`.
//! So every width produces bit-identical output, for keys and for key-value pairs, equal
//! keys included.

// The lane patterns, `Reg`/`Lanes`/`Vals`/`Mem` and the `Keys`/`Pairs` units serve the
// SIMD widths; a target with none of them (thumbv7em, ...) uses only `portable::Scalar`.
#![cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(dead_code))]

use core::marker::PhantomData;
use core::ptr::{self, NonNull};

use bytemuck::Zeroable;

use crate::arch::Checked;
use crate::arch::portable::sort as portable;

/// Key words the networks compare: the order-preserving unsigned images of the public
/// key types (`primitives::sort` maps `f32`, `i64`, ... onto them and back).
///
/// `pub` only because [`SortWord`] builds on it; unnameable outside the crate.
pub trait Bits: Copy + Ord + Zeroable + 'static {
    /// The largest key, the virtual `+inf` of the padding.
    const MAX: Self;
}

impl Bits for u16 {
    const MAX: u16 = u16::MAX;
}

impl Bits for u32 {
    const MAX: u32 = u32::MAX;
}

impl Bits for u64 {
    const MAX: u64 = u64::MAX;
}

// ---------------------------------------------------------------------------------------
// Lane patterns of the in-register steps.
// ---------------------------------------------------------------------------------------

/// Bitonic half-cleaner in a register: lane `x` meets `x ^ A` (`A < L`).
pub(crate) const XOR: u8 = 0;
/// Bitonic flip in blocks of `A` lanes: lane `x` meets `x ^ (A - 1)` (`2 <= A <= L`).
pub(crate) const MIRROR: u8 = 1;
/// Odd-even merge step `(p, k) = (A, B)`, restricted to partners in the same register.
pub(crate) const OE: u8 = 2;
/// Permutation only: lane `x` takes lane `(x + A) mod L`.
pub(crate) const ROTL: u8 = 3;
/// Permutation only: lane `x` takes lane `(x + L - A) mod L`.
pub(crate) const ROTR: u8 = 4;
/// Permutation only: lane `x` takes lane `L - 1 - x`.
pub(crate) const REV: u8 = 5;
/// No permutation; its `lo` mask holds the lowest `A` lanes.
pub(crate) const LOW: u8 = 6;

/// `p` for an [`OE`] pattern whose `2p`-block is wider than any register: what remains
/// are the comparators `(x, x + k)` of odd `k`-blocks with both ends in the register.
pub(crate) const OE_WIDE: usize = 1 << 8;

/// One in-register step: lane `x` takes lane `idx[x]`; a lane in `lo` keeps the smaller
/// key of the pair (its partner lies above it), a lane in `hi` the larger one; a lane in
/// neither is its own partner and stays.
#[derive(Clone, Copy)]
pub(crate) struct Pattern {
    /// Source lane for each lane.
    pub idx: [u8; 16],
    /// Lanes that receive the minimum.
    pub lo: u32,
    /// Lanes that receive the maximum.
    pub hi: u32,
}

/// The [`Pattern`] of kind `kind` with parameters `a`, `b` for `l` lanes (`l <= 16`, a
/// power of two). Total: parameters that do not fit give the identity.
pub(crate) const fn pattern(kind: u8, a: usize, b: usize, l: usize) -> Pattern {
    let mut p = Pattern { idx: [0; 16], lo: 0, hi: 0 };
    let mut x = 0;
    while x < 16 {
        let mut src = x;
        if x < l {
            src = match kind {
                XOR if a > 0 && a < l => x ^ a,
                MIRROR if a >= 2 && a <= l => x ^ (a - 1),
                OE => oe_partner(x, a, b, l),
                ROTL => (x + a % l) % l,
                ROTR => (x + l - a % l) % l,
                REV => l - 1 - x,
                _ => x,
            };
            if kind == LOW && x < a {
                p.lo |= 1 << x;
            }
            if kind <= OE {
                if src > x {
                    p.lo |= 1 << x;
                } else if src < x {
                    p.hi |= 1 << x;
                }
            }
        }
        p.idx[x] = src as u8;
        x += 1;
    }
    p
}

/// Partner of lane `x` in odd-even step `(p, k)` among `l` lanes, `x` if none.
const fn oe_partner(x: usize, p: usize, k: usize, l: usize) -> usize {
    if k == 0 || p < k || k >= l {
        return x;
    }
    if k == p {
        return x ^ p;
    }
    let two_p = 2 * p;
    if x & k != 0 {
        if x + k < l && (x + k) / two_p == x / two_p { x + k } else { x }
    } else if x >= k && (x - k) / two_p == x / two_p {
        x - k
    } else {
        x
    }
}

// ---------------------------------------------------------------------------------------
// What a width supplies.
// ---------------------------------------------------------------------------------------

/// One register's worth of entries (`L` keys, and values if the sort carries them) with
/// the comparator steps of the networks. Lane `x` of a unit loaded from `p` is entry
/// `p + x`.
///
/// # Safety (of every method)
/// The caller runs on a CPU with the instruction set of the implementing width, and every
/// pointer is valid for reading (or writing) `L` entries.
pub(crate) trait Unit: Copy {
    /// Lanes per unit (a power of two, at most 16).
    const L: usize;
    /// The key word in memory.
    type K: Bits;
    /// The value in memory (`()` for keys alone).
    type V: Copy + Zeroable;

    /// Loads entries `0..L` of `k` and `v`.
    unsafe fn load(k: *const Self::K, v: *const Self::V) -> Self;
    /// Stores lanes `0..L` to `k` and `v`.
    unsafe fn store(self, k: *mut Self::K, v: *mut Self::V);
    /// Comparators `(a[x], b[x])` for every lane (`a` is the lower position).
    unsafe fn ce(a: Self, b: Self) -> (Self, Self);
    /// Comparators `(a[x], b[L - 1 - x])` for every lane (`a` is the lower position).
    unsafe fn ce_rev(a: Self, b: Self) -> (Self, Self);
    /// The comparators of [`pattern`]`(KIND, A, B, L)` inside the unit.
    unsafe fn ce_intra<const KIND: u8, const A: usize, const B: usize>(self) -> Self;
    /// Comparators `(a[L - KK + i], b[i])` for `i < KK` (`a` directly precedes `b`).
    unsafe fn ce_seam<const KK: usize>(a: Self, b: Self) -> (Self, Self);

    /// A unit of `+inf` keys (and zero values): the virtual padding.
    ///
    /// # Safety
    /// As the trait.
    #[inline(always)]
    unsafe fn pad() -> Self {
        let kb = [Self::K::MAX; 16];
        let vb = [Self::V::zeroed(); 16];
        // SAFETY: both buffers hold 16 >= L entries.
        unsafe { Self::load(kb.as_ptr(), vb.as_ptr()) }
    }

    /// Loads entries `0..len` (`len < L`); lanes `len..` get `+inf` keys.
    ///
    /// # Safety
    /// As the trait; `k` and `v` need only `len` readable entries.
    unsafe fn load_partial(k: *const Self::K, v: *const Self::V, len: usize) -> Self;
    /// Stores lanes `0..len` (`len < L`).
    ///
    /// # Safety
    /// As the trait; `k` and `v` need only `len` writable entries.
    unsafe fn store_partial(self, k: *mut Self::K, v: *mut Self::V, len: usize);
}

/// One SIMD register of `L` lanes of 32 or 64 bits.
///
/// # Safety (of every method)
/// The caller runs on a CPU with the instruction set of the implementing width.
pub(crate) trait Reg: Copy {
    /// Lanes per register.
    const L: usize;
    /// Lane `x` takes lane `pattern(KIND, A, B, L).idx[x]`.
    unsafe fn perm<const KIND: u8, const A: usize, const B: usize>(self) -> Self;
}

/// A register of keys, with the few operations [`Keys`] and [`Pairs`] build every
/// comparator step from. Keys may be held in any order-preserving form (AVX2 flips the
/// sign bit of 64-bit keys, to compare signed), as long as `min` and `max` agree with the
/// unsigned order of the words in memory.
///
/// Pairs need no comparison of their own: a comparator swaps exactly when the lower key
/// is strictly greater, so a lane's value moves exactly when its key changes, and `eq` of
/// the new and the old keys is the "stay" mask.
///
/// # Safety (of every method)
/// As [`Reg`].
pub(crate) trait Lanes: Reg {
    /// A lane mask (a bit mask or a vector of all-ones / all-zeros lanes).
    type Mask: Copy;
    /// The `lo` lanes of `pattern(KIND, A, B, L)`.
    unsafe fn lo_mask<const KIND: u8, const A: usize, const B: usize>() -> Self::Mask;
    /// The `hi` lanes of `pattern(KIND, A, B, L)`.
    unsafe fn hi_mask<const KIND: u8, const A: usize, const B: usize>() -> Self::Mask;
    /// Lanes where `self == o`.
    unsafe fn eq(self, o: Self) -> Self::Mask;
    /// Lane-wise smaller key.
    unsafe fn min(self, o: Self) -> Self;
    /// Lane-wise larger key.
    unsafe fn max(self, o: Self) -> Self;
    /// `b` in the lanes of `m`, `a` elsewhere.
    unsafe fn select(m: Self::Mask, a: Self, b: Self) -> Self;
}

/// A register of values that follows a key register's mask `M` (same lane count; the
/// value lanes may be wider or narrower than the key lanes).
///
/// # Safety (of every method)
/// As [`Reg`].
pub(crate) trait Vals<M>: Reg {
    /// `b` in the lanes of `m`, `a` elsewhere.
    unsafe fn pick(m: M, a: Self, b: Self) -> Self;
}

/// A memory word (`u32`, `u64`) that loads into and stores from the lanes of `W`, as a
/// key (in `W`'s key form) or as a value (bits unchanged).
///
/// # Safety (of every method)
/// The caller runs on a CPU with `W`'s instruction set; pointers are valid for `W::L`
/// words.
pub(crate) trait Mem<W: Reg>: Bits {
    /// Loads `W::L` keys.
    unsafe fn load_key(p: *const Self) -> W;
    /// Stores `W::L` keys.
    unsafe fn store_key(w: W, p: *mut Self);
    /// Loads `W::L` values.
    unsafe fn load_val(p: *const Self) -> W;
    /// Stores `W::L` values.
    unsafe fn store_val(w: W, p: *mut Self);

    /// Loads `len < W::L` keys; the lanes above get the largest key.
    ///
    /// # Safety
    /// As the trait; `p` need only be valid for `len` words.
    #[inline(always)]
    unsafe fn load_key_partial(p: *const Self, len: usize) -> W {
        // SAFETY: `buffered` reads `len` words from `p`, the caller's guarantee.
        unsafe { Self::load_key(buffered(p, len, Self::MAX).as_ptr()) }
    }

    /// Loads `len < W::L` values; the lanes above get zero.
    ///
    /// # Safety
    /// As [`Mem::load_key_partial`].
    #[inline(always)]
    unsafe fn load_val_partial(p: *const Self, len: usize) -> W {
        // SAFETY: `buffered` reads `len` words from `p`, the caller's guarantee.
        unsafe { Self::load_val(buffered(p, len, Self::zeroed()).as_ptr()) }
    }

    /// Stores the lowest `len < W::L` keys.
    ///
    /// # Safety
    /// As the trait; `p` need only be valid for `len` words.
    #[inline(always)]
    unsafe fn store_key_partial(w: W, p: *mut Self, len: usize) {
        let mut buf = [Self::MAX; 16];
        // SAFETY: the buffer holds 16 >= L words; `unbuffer` writes `len` words to `p`.
        unsafe {
            Self::store_key(w, buf.as_mut_ptr());
            unbuffer(&buf, p, len);
        }
    }

    /// Stores the lowest `len < W::L` values.
    ///
    /// # Safety
    /// As [`Mem::store_key_partial`].
    #[inline(always)]
    unsafe fn store_val_partial(w: W, p: *mut Self, len: usize) {
        let mut buf = [Self::MAX; 16];
        // SAFETY: as in `store_key_partial`.
        unsafe {
            Self::store_val(w, buf.as_mut_ptr());
            unbuffer(&buf, p, len);
        }
    }
}

/// `len` words from `p` (at most 16), then `fill`.
///
/// # Safety
/// `p` is valid for reading `len` words.
#[inline(always)]
unsafe fn buffered<T: Copy>(p: *const T, len: usize, fill: T) -> [T; 16] {
    let mut buf = [fill; 16];
    for (i, b) in buf.iter_mut().enumerate().take(len) {
        // SAFETY: `i < len`, the caller's bound.
        *b = unsafe { p.add(i).read() };
    }
    buf
}

/// Writes the first `len` (at most 16) words of `buf` to `p`.
///
/// # Safety
/// `p` is valid for writing `len` words.
#[inline(always)]
unsafe fn unbuffer<T: Copy>(buf: &[T; 16], p: *mut T, len: usize) {
    for (i, b) in buf.iter().enumerate().take(len) {
        // SAFETY: `i < len`, the caller's bound.
        unsafe { p.add(i).write(*b) };
    }
}

/// A register of keys alone.
#[derive(Clone, Copy)]
pub(crate) struct Keys<W, K> {
    k: W,
    _word: PhantomData<K>,
}

/// A register of keys and a register of their values, lane for lane.
#[derive(Clone, Copy)]
pub(crate) struct Pairs<WK, WV, K, V> {
    k: WK,
    v: WV,
    _words: PhantomData<(K, V)>,
}

impl<W: Lanes, K: Mem<W>> Keys<W, K> {
    #[inline(always)]
    fn new(k: W) -> Self {
        Keys { k, _word: PhantomData }
    }
}

impl<W: Lanes, WV: Vals<W::Mask>, K: Mem<W>, V: Mem<WV>> Pairs<W, WV, K, V> {
    #[inline(always)]
    fn new(k: W, v: WV) -> Self {
        Pairs { k, v, _words: PhantomData }
    }
}

// SAFETY (all methods): `Unit`'s contract gives the CPU feature `W` needs and valid
// pointers for `L` entries; `W`'s and `K`'s methods need exactly that.
impl<W: Lanes, K: Mem<W>> Unit for Keys<W, K> {
    const L: usize = W::L;
    type K = K;
    type V = ();

    #[inline(always)]
    unsafe fn load(k: *const K, _v: *const ()) -> Self {
        // SAFETY: see the impl.
        Self::new(unsafe { K::load_key(k) })
    }

    #[inline(always)]
    unsafe fn store(self, k: *mut K, _v: *mut ()) {
        // SAFETY: see the impl.
        unsafe { K::store_key(self.k, k) }
    }

    #[inline(always)]
    unsafe fn load_partial(k: *const K, _v: *const (), len: usize) -> Self {
        // SAFETY: see the impl; `len` entries readable.
        Self::new(unsafe { K::load_key_partial(k, len) })
    }

    #[inline(always)]
    unsafe fn store_partial(self, k: *mut K, _v: *mut (), len: usize) {
        // SAFETY: see the impl; `len` entries writable.
        unsafe { K::store_key_partial(self.k, k, len) }
    }

    #[inline(always)]
    unsafe fn ce(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: see the impl.
        unsafe { (Self::new(a.k.min(b.k)), Self::new(a.k.max(b.k))) }
    }

    #[inline(always)]
    unsafe fn ce_rev(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: see the impl.
        unsafe {
            let rb = b.k.perm::<REV, 0, 0>();
            (Self::new(a.k.min(rb)), Self::new(a.k.max(rb).perm::<REV, 0, 0>()))
        }
    }

    #[inline(always)]
    unsafe fn ce_intra<const KIND: u8, const A: usize, const B: usize>(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            // A lane without partner is paired with itself, so min = max = itself.
            let p = self.k.perm::<KIND, A, B>();
            Self::new(W::select(W::hi_mask::<KIND, A, B>(), self.k.min(p), self.k.max(p)))
        }
    }

    #[inline(always)]
    unsafe fn ce_seam<const KK: usize>(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: see the impl.
        unsafe {
            // Rotate `a`'s top KK lanes to the bottom, compare them with `b`'s bottom KK
            // lanes, rotate back; the other lanes ride along unchanged.
            let ra = a.k.perm::<ROTR, KK, 0>();
            let low = W::lo_mask::<LOW, KK, 0>();
            let nb = W::select(low, b.k, ra.max(b.k));
            let nra = W::select(low, ra, ra.min(b.k));
            (Self::new(nra.perm::<ROTL, KK, 0>()), Self::new(nb))
        }
    }
}

// SAFETY (all methods): as for `Keys`.
impl<W: Lanes, WV: Vals<W::Mask>, K: Mem<W>, V: Mem<WV>> Unit for Pairs<W, WV, K, V> {
    const L: usize = {
        assert!(W::L == WV::L);
        W::L
    };
    type K = K;
    type V = V;

    #[inline(always)]
    unsafe fn load(k: *const K, v: *const V) -> Self {
        // SAFETY: see the impl.
        unsafe { Self::new(K::load_key(k), V::load_val(v)) }
    }

    #[inline(always)]
    unsafe fn store(self, k: *mut K, v: *mut V) {
        // SAFETY: see the impl.
        unsafe {
            K::store_key(self.k, k);
            V::store_val(self.v, v);
        }
    }

    #[inline(always)]
    unsafe fn load_partial(k: *const K, v: *const V, len: usize) -> Self {
        // SAFETY: see the impl; `len` entries readable.
        unsafe { Self::new(K::load_key_partial(k, len), V::load_val_partial(v, len)) }
    }

    #[inline(always)]
    unsafe fn store_partial(self, k: *mut K, v: *mut V, len: usize) {
        // SAFETY: see the impl; `len` entries writable.
        unsafe {
            K::store_key_partial(self.k, k, len);
            V::store_val_partial(self.v, v, len);
        }
    }

    #[inline(always)]
    unsafe fn ce(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: see the impl.
        unsafe {
            let lo = a.k.min(b.k);
            let stay = lo.eq(a.k);
            (Self::new(lo, WV::pick(stay, b.v, a.v)), Self::new(a.k.max(b.k), WV::pick(stay, a.v, b.v)))
        }
    }

    #[inline(always)]
    unsafe fn ce_rev(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: see the impl.
        unsafe {
            let rb = Self::new(b.k.perm::<REV, 0, 0>(), b.v.perm::<REV, 0, 0>());
            let (lo, hi) = Self::ce(a, rb);
            (lo, Self::new(hi.k.perm::<REV, 0, 0>(), hi.v.perm::<REV, 0, 0>()))
        }
    }

    #[inline(always)]
    unsafe fn ce_intra<const KIND: u8, const A: usize, const B: usize>(self) -> Self {
        // SAFETY: see the impl.
        unsafe {
            let p = self.k.perm::<KIND, A, B>();
            let pv = self.v.perm::<KIND, A, B>();
            let k = W::select(W::hi_mask::<KIND, A, B>(), self.k.min(p), self.k.max(p));
            // Both ends of a comparator see the same swap: their keys change together.
            Self::new(k, WV::pick(k.eq(self.k), pv, self.v))
        }
    }

    #[inline(always)]
    unsafe fn ce_seam<const KK: usize>(a: Self, b: Self) -> (Self, Self) {
        // SAFETY: see the impl.
        unsafe {
            // As for keys alone; outside the low KK lanes nothing changes, so `stay`
            // holds there.
            let rk = a.k.perm::<ROTR, KK, 0>();
            let rv = a.v.perm::<ROTR, KK, 0>();
            let low = W::lo_mask::<LOW, KK, 0>();
            let nrk = W::select(low, rk, rk.min(b.k));
            let nbk = W::select(low, b.k, rk.max(b.k));
            let stay = nrk.eq(rk);
            let nrv = WV::pick(stay, b.v, rv);
            let nbv = WV::pick(stay, rv, b.v);
            (Self::new(nrk.perm::<ROTL, KK, 0>(), nrv.perm::<ROTL, KK, 0>()), Self::new(nbk, nbv))
        }
    }
}

// ---------------------------------------------------------------------------------------
// The driver.
// ---------------------------------------------------------------------------------------

/// The value pointer of a keys-only sort (`()` values occupy no memory).
#[inline(always)]
pub(crate) fn no_vals() -> *mut () {
    NonNull::dangling().as_ptr()
}

/// What a block runs in registers.
const SORT_BITONIC: u8 = 0;
const TAIL_BITONIC: u8 = 1;
const SORT_ODD_EVEN: u8 = 2;

/// The largest block: 16 registers of 16 lanes.
const MAX_BLOCK: usize = 256;

/// Comparator `(i, j)` on memory, `i < j < n`.
///
/// # Safety
/// `i` and `j` are in bounds of `k` and `v`.
#[inline(always)]
unsafe fn ce_at<K: Bits, V: Copy>(k: *mut K, v: *mut V, i: usize, j: usize) {
    // SAFETY: the caller keeps `i` and `j` in bounds.
    unsafe {
        let (ki, kj) = (k.add(i).read(), k.add(j).read());
        if ki > kj {
            k.add(i).write(kj);
            k.add(j).write(ki);
            ptr::swap(v.add(i), v.add(j));
        }
    }
}

/// Loads the `len <= RR * L` entries at `k`, `v` into `RR` units, `+inf` beyond `len`.
///
/// # Safety
/// `Unit`'s CPU requirement; `k`, `v` valid for `len` entries.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
unsafe fn load_regs<U: Unit, const RR: usize>(k: *const U::K, v: *const U::V, len: usize) -> [U; RR] {
    // SAFETY: unit `r < full` covers entries `r*L..(r+1)*L <= len`; the partial unit
    // reads `len % L` entries from `full*L`; the rest read nothing.
    unsafe {
        let l = U::L;
        let full = len / l;
        let mut regs = [U::pad(); RR];
        for r in 0..RR {
            if r < full {
                regs[r] = U::load(k.add(r * l), v.add(r * l));
            } else if r == full && !len.is_multiple_of(l) {
                regs[r] = U::load_partial(k.add(r * l), v.add(r * l), len % l);
            }
        }
        regs
    }
}

/// Stores the first `len` entries of `regs` back.
///
/// # Safety
/// As [`load_regs`], writable.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
unsafe fn store_regs<U: Unit, const RR: usize>(regs: &[U; RR], k: *mut U::K, v: *mut U::V, len: usize) {
    // SAFETY: as in `load_regs`, for writes.
    unsafe {
        let l = U::L;
        let full = len / l;
        for r in 0..RR {
            if r < full {
                regs[r].store(k.add(r * l), v.add(r * l));
            } else if r == full && !len.is_multiple_of(l) {
                regs[r].store_partial(k.add(r * l), v.add(r * l), len % l);
            }
        }
    }
}

/// Bitonic flip in blocks of `S` entries: `x` meets `x ^ (S - 1)`.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
unsafe fn reg_flip<U: Unit, const RR: usize, const S: usize>(v: &mut [U; RR]) {
    let l = U::L;
    // SAFETY: `Unit`'s CPU requirement is the caller's.
    unsafe {
        if S <= l {
            for r in 0..RR {
                v[r] = v[r].ce_intra::<MIRROR, S, 0>();
            }
        } else {
            // Register `r` meets register `r ^ (S/L - 1)` with its lanes reversed.
            let sr = S / l;
            for r in 0..RR {
                let q = r ^ (sr - 1);
                if r & (sr / 2) == 0 && q < RR {
                    let (a, b) = U::ce_rev(v[r], v[q]);
                    v[r] = a;
                    v[q] = b;
                }
            }
        }
    }
}

/// Bitonic half-cleaner at distance `D`: `x` meets `x + D` for `x & D == 0`.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
unsafe fn reg_half<U: Unit, const RR: usize, const D: usize>(v: &mut [U; RR]) {
    let l = U::L;
    // SAFETY: `Unit`'s CPU requirement is the caller's.
    unsafe {
        if D < l {
            for r in 0..RR {
                v[r] = v[r].ce_intra::<XOR, D, 0>();
            }
        } else {
            let dr = D / l;
            for r in 0..RR {
                if r & dr == 0 && r + dr < RR {
                    let (a, b) = U::ce(v[r], v[r + dr]);
                    v[r] = a;
                    v[r + dr] = b;
                }
            }
        }
    }
}

/// Odd-even merge step `(P, K)` over the `RR * L` entries of `v`.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
unsafe fn reg_oe<U: Unit, const RR: usize, const P: usize, const K: usize>(v: &mut [U; RR]) {
    let l = U::L;
    // SAFETY: `Unit`'s CPU requirement is the caller's.
    unsafe {
        if K >= l {
            // Whole registers meet: register `r` holds entries `r*L..`, all with the same
            // bit `K` and the same 2P-block.
            let kr = K / l;
            for r in 0..RR {
                let x = r * l;
                let lo = if K == P { x & P == 0 } else { x & K != 0 && x % (2 * P) + K < 2 * P };
                if lo && r + kr < RR {
                    let (a, b) = U::ce(v[r], v[r + kr]);
                    v[r] = a;
                    v[r + kr] = b;
                }
            }
        } else if P < l {
            for r in 0..RR {
                v[r] = v[r].ce_intra::<OE, P, K>();
            }
        } else {
            // K < L <= P: partners inside a register, plus the last K lanes of each
            // register against the first K of the next one in the same 2P-block.
            for r in 0..RR {
                v[r] = v[r].ce_intra::<OE, OE_WIDE, K>();
            }
            for r in 0..RR.saturating_sub(1) {
                if ((r + 1) * l) % (2 * P) != 0 {
                    let (a, b) = U::ce_seam::<K>(v[r], v[r + 1]);
                    v[r] = a;
                    v[r + 1] = b;
                }
            }
        }
    }
}

/// The whole bitonic sorting network on `RR * L` entries, unrolled.
#[inline(always)]
unsafe fn reg_bitonic_sort<U: Unit, const RR: usize>(v: &mut [U; RR]) {
    let b = RR * U::L;
    macro_rules! stage {
        ($s:literal; $($d:literal),*) => {
            if $s <= b {
                reg_flip::<U, RR, $s>(v);
                $( reg_half::<U, RR, $d>(v); )*
            }
        };
    }
    // SAFETY: `Unit`'s CPU requirement is the caller's.
    unsafe {
        stage!(2;);
        stage!(4; 1);
        stage!(8; 2, 1);
        stage!(16; 4, 2, 1);
        stage!(32; 8, 4, 2, 1);
        stage!(64; 16, 8, 4, 2, 1);
        stage!(128; 32, 16, 8, 4, 2, 1);
        stage!(256; 64, 32, 16, 8, 4, 2, 1);
    }
}

/// The half-cleaners at distances below `RR * L`: the end of every bitonic merge.
#[inline(always)]
unsafe fn reg_bitonic_tail<U: Unit, const RR: usize>(v: &mut [U; RR]) {
    let b = RR * U::L;
    macro_rules! half {
        ($($d:literal),*) => { $( if 2 * $d <= b { reg_half::<U, RR, $d>(v); } )* };
    }
    // SAFETY: `Unit`'s CPU requirement is the caller's.
    unsafe {
        half!(128, 64, 32, 16, 8, 4, 2, 1);
    }
}

/// The whole odd-even merge sorting network on `RR * L` entries, unrolled.
#[inline(always)]
unsafe fn reg_odd_even_sort<U: Unit, const RR: usize>(v: &mut [U; RR]) {
    let b = RR * U::L;
    macro_rules! stage {
        ($p:literal; $($k:literal),*) => {
            if 2 * $p <= b {
                $( reg_oe::<U, RR, $p, $k>(v); )*
            }
        };
    }
    // SAFETY: `Unit`'s CPU requirement is the caller's.
    unsafe {
        stage!(1; 1);
        stage!(2; 2, 1);
        stage!(4; 4, 2, 1);
        stage!(8; 8, 4, 2, 1);
        stage!(16; 16, 8, 4, 2, 1);
        stage!(32; 32, 16, 8, 4, 2, 1);
        stage!(64; 64, 32, 16, 8, 4, 2, 1);
        stage!(128; 128, 64, 32, 16, 8, 4, 2, 1);
    }
}

/// Runs `OP` on `len <= RR * L` entries held in `RR` registers.
///
/// # Safety
/// `Unit`'s CPU requirement; `k`, `v` valid for `len` entries.
#[inline(always)]
unsafe fn block_n<U: Unit, const RR: usize, const OP: u8>(k: *mut U::K, v: *mut U::V, len: usize) {
    const { assert!(RR * U::L <= MAX_BLOCK) };
    // SAFETY: forwarded.
    unsafe {
        let mut regs = load_regs::<U, RR>(k, v, len);
        match OP {
            SORT_BITONIC => reg_bitonic_sort(&mut regs),
            TAIL_BITONIC => reg_bitonic_tail(&mut regs),
            _ => reg_odd_even_sort(&mut regs),
        }
        store_regs(&regs, k, v, len);
    }
}

/// Runs `OP` on a block of `len <= R * L` entries, in the fewest registers (a power of
/// two) that hold it. Fewer registers run a prefix of the network's stages; the stages
/// left out have no comparator with both ends below `len`, or (bitonic merges of an
/// already sorted run) none that swaps, so the result is the same.
///
/// # Safety
/// As [`block_n`].
#[inline(always)]
unsafe fn block<U: Unit, const R: usize, const OP: u8>(k: *mut U::K, v: *mut U::V, len: usize) {
    let units = len.div_ceil(U::L);
    // SAFETY: forwarded; each arm's register count is at least `units`.
    unsafe {
        if units <= 1 {
            block_n::<U, 1, OP>(k, v, len)
        } else if R >= 2 && units <= 2 {
            block_n::<U, 2, OP>(k, v, len)
        } else if R >= 4 && units <= 4 {
            block_n::<U, 4, OP>(k, v, len)
        } else if R >= 8 && units <= 8 {
            block_n::<U, 8, OP>(k, v, len)
        } else {
            block_n::<U, R, OP>(k, v, len)
        }
    }
}

/// Comparators `(x, x + d)` for `x` in `x0..x0 + len` (a multiple of `L`, `d >= L`),
/// skipping partners at or beyond `n`.
///
/// # Safety
/// `Unit`'s CPU requirement; `k`, `v` valid for `n` entries; `x0 + len <= n`.
#[inline(always)]
unsafe fn vertical<U: Unit>(k: *mut U::K, v: *mut U::V, n: usize, x0: usize, len: usize, d: usize) {
    let l = U::L;
    let mut x = x0;
    // SAFETY: `x + L <= x0 + len <= n`; a partner unit is touched whole only when
    // `y + L <= n`, else lane by lane below `n`.
    unsafe {
        while x < x0 + len {
            let y = x + d;
            if y >= n {
                return;
            }
            if y + l <= n {
                let (a, b) = U::ce(U::load(k.add(x), v.add(x)), U::load(k.add(y), v.add(y)));
                a.store(k.add(x), v.add(x));
                b.store(k.add(y), v.add(y));
            } else {
                for i in 0..n - y {
                    ce_at(k, v, x + i, y + i);
                }
            }
            x += l;
        }
    }
}

/// Bitonic half-cleaner at distance `d` (a multiple of the block) over all `n` entries.
///
/// # Safety
/// As [`vertical`].
#[inline(always)]
unsafe fn half_pass<U: Unit>(k: *mut U::K, v: *mut U::V, n: usize, d: usize) {
    let mut g = 0;
    // SAFETY: `g + d < n` bounds the lower half that `vertical` walks.
    unsafe {
        while g + d < n {
            vertical::<U>(k, v, n, g, d, d);
            g += 2 * d;
        }
    }
}

/// Bitonic flip merging runs of `half` entries (a multiple of the block): in each group
/// of `2 * half`, `x` meets `2 * half - 1 - x`.
///
/// # Safety
/// As [`vertical`].
#[inline(always)]
unsafe fn flip_pass<U: Unit>(k: *mut U::K, v: *mut U::V, n: usize, half: usize) {
    let l = U::L;
    let size = 2 * half;
    let mut g = 0;
    // SAFETY: lower units lie in `g..g + half` with `g + half < n`; the mirror unit
    // `m..m + L` is touched whole only when `m + L <= n`, else lane by lane below `n`.
    unsafe {
        while g + half < n {
            let mut off = 0;
            while off < half {
                let x = g + off;
                let m = g + size - off - l;
                if m + l <= n {
                    let (a, b) = U::ce_rev(U::load(k.add(x), v.add(x)), U::load(k.add(m), v.add(m)));
                    a.store(k.add(x), v.add(x));
                    b.store(k.add(m), v.add(m));
                } else if m < n {
                    for i in 0..l {
                        let j = g + size - 1 - off - i;
                        if j < n {
                            ce_at(k, v, x + i, j);
                        }
                    }
                }
                off += l;
            }
            g += size;
        }
    }
}

/// Odd-even step `(p, kk)` with `kk >= L`, over all `n` entries.
///
/// # Safety
/// As [`vertical`].
#[inline(always)]
unsafe fn oe_pass_vertical<U: Unit>(k: *mut U::K, v: *mut U::V, n: usize, p: usize, kk: usize) {
    // SAFETY: each `vertical` range `kb..kb + kk` lies below its partner `kb + kk < n`.
    unsafe {
        if kk == p {
            half_pass::<U>(k, v, n, p);
            return;
        }
        let mut g = 0;
        while g < n {
            // Odd kk-blocks of the 2p-block whose partner block stays inside it.
            let mut kb = g + kk;
            while kb + 2 * kk <= g + 2 * p && kb + kk < n {
                vertical::<U>(k, v, n, kb, kk, kk);
                kb += 2 * kk;
            }
            g += 2 * p;
        }
    }
}

/// Odd-even step `(p, KK)` with `KK < L <= p`, over all `n` entries: one sweep of units,
/// each with its in-register comparators and the seam to the next unit; comparators that
/// reach the partial last unit run one by one.
///
/// # Safety
/// As [`vertical`].
#[inline(always)]
unsafe fn oe_pass_small<U: Unit, const KK: usize>(k: *mut U::K, v: *mut U::V, n: usize, p: usize) {
    let l = U::L;
    let full = n / l;
    let mask = 2 * p - 1;
    // SAFETY: units `0..full` are in bounds; single comparators have `y < n`.
    unsafe {
        if full > 0 {
            let mut cur = U::load(k, v);
            for u in 0..full {
                cur = cur.ce_intra::<OE, OE_WIDE, KK>();
                let at = u * l;
                if u + 1 < full {
                    let next = U::load(k.add(at + l), v.add(at + l));
                    let (a, b) = if (at + l) & mask != 0 { U::ce_seam::<KK>(cur, next) } else { (cur, next) };
                    a.store(k.add(at), v.add(at));
                    cur = b;
                } else {
                    cur.store(k.add(at), v.add(at));
                }
            }
        }
        let mut y = (full * l).max(KK);
        while y < n {
            let x = y - KK;
            if x & KK != 0 && (x & mask) + KK <= mask {
                ce_at(k, v, x, y);
            }
            y += 1;
        }
    }
}

/// Bitonic sort (Alg. 14, ascending-only form) of the `n` entries at `k`, `v`, with
/// blocks of `R` registers.
///
/// # Safety
/// `U`'s CPU requirement; `k` and `v` valid for reading and writing `n` entries.
#[inline(always)]
pub(crate) unsafe fn bitonic<U: Unit, const R: usize>(k: *mut U::K, v: *mut U::V, n: usize) {
    const { assert!(R.is_power_of_two() && R * U::L <= MAX_BLOCK) };
    if n < 2 {
        return;
    }
    let b = R * U::L;
    // SAFETY: every block, pass and comparator below stays inside `0..n`.
    unsafe {
        let mut s = 0;
        while s < n {
            block::<U, R, SORT_BITONIC>(k.add(s), v.add(s), b.min(n - s));
            s += b;
        }
        let mut half = b;
        while half < n {
            flip_pass::<U>(k, v, n, half);
            let mut d = half / 2;
            while d >= b {
                half_pass::<U>(k, v, n, d);
                d /= 2;
            }
            // A last group without a second run is sorted already: no tail there.
            let last = (n - 1) / (2 * half) * (2 * half);
            let end = if last + half >= n { last } else { n };
            s = 0;
            while s < end {
                block::<U, R, TAIL_BITONIC>(k.add(s), v.add(s), b.min(n - s));
                s += b;
            }
            half *= 2;
        }
    }
}

/// Odd-even merge sort (Alg. 15) of the `n` entries at `k`, `v`, with blocks of `R`
/// registers.
///
/// # Safety
/// As [`bitonic`].
#[inline(always)]
pub(crate) unsafe fn odd_even<U: Unit, const R: usize>(k: *mut U::K, v: *mut U::V, n: usize) {
    const { assert!(R.is_power_of_two() && R * U::L <= MAX_BLOCK) };
    if n < 2 {
        return;
    }
    let l = U::L;
    let b = R * l;
    // SAFETY: every block, pass and comparator below stays inside `0..n`.
    unsafe {
        let mut s = 0;
        while s < n {
            block::<U, R, SORT_ODD_EVEN>(k.add(s), v.add(s), b.min(n - s));
            s += b;
        }
        let mut p = b;
        while p < n {
            let mut kk = p;
            while kk >= 1 {
                if kk >= l {
                    oe_pass_vertical::<U>(k, v, n, p, kk);
                } else {
                    match kk {
                        1 => oe_pass_small::<U, 1>(k, v, n, p),
                        2 => oe_pass_small::<U, 2>(k, v, n, p),
                        4 => oe_pass_small::<U, 4>(k, v, n, p),
                        _ => oe_pass_small::<U, 8>(k, v, n, p),
                    }
                }
                kk /= 2;
            }
            p *= 2;
        }
    }
}

// ---------------------------------------------------------------------------------------
// The dispatchers: from a `Checked` `Isa` to its width's entry points.
// ---------------------------------------------------------------------------------------

/// Which network.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Alg {
    /// Bitonic sort (Alg. 14).
    Bitonic,
    /// Odd-even merge sort (Alg. 15).
    OddEven,
}

/// [`crate::arch::dispatch!`] into this family's entry points, the portable one named
/// as the widths' (`$f`).
macro_rules! dispatch {
    ($isa:expr, $f:ident($($arg:expr),*)) => {
        crate::arch::dispatch!($isa, sort::$f($($arg),*), else portable::$f($($arg),*))
    };
}

/// A key word (`u16`, `u32`, `u64`) with the sorting networks of every width, behind a
/// [`Checked`] `Isa`: keys alone, and with 4-byte or 8-byte values.
///
/// `pub` only to be named by the sealed public key trait; unnameable outside the crate.
pub trait SortWord: Bits {
    /// Sorts `keys` with `alg` on the checked `Isa`.
    fn sort_on(isa: Checked, alg: Alg, keys: &mut [Self]);
    /// Sorts `keys` with `alg` on the checked `Isa`, moving `vals` along (equal lengths).
    fn sort_v32_on(isa: Checked, alg: Alg, keys: &mut [Self], vals: &mut [u32]);
    /// As [`SortWord::sort_v32_on`] for 8-byte values.
    fn sort_v64_on(isa: Checked, alg: Alg, keys: &mut [Self], vals: &mut [u64]);
}

macro_rules! sort_word {
    ($w:ty, $bit:ident, $oe:ident, $bit32:ident, $oe32:ident, $bit64:ident, $oe64:ident) => {
        impl SortWord for $w {
            #[inline]
            fn sort_on(isa: Checked, alg: Alg, keys: &mut [$w]) {
                match alg {
                    Alg::Bitonic => dispatch!(isa, $bit(keys)),
                    Alg::OddEven => dispatch!(isa, $oe(keys)),
                }
            }

            #[inline]
            fn sort_v32_on(isa: Checked, alg: Alg, keys: &mut [$w], vals: &mut [u32]) {
                match alg {
                    Alg::Bitonic => dispatch!(isa, $bit32(keys, vals)),
                    Alg::OddEven => dispatch!(isa, $oe32(keys, vals)),
                }
            }

            #[inline]
            fn sort_v64_on(isa: Checked, alg: Alg, keys: &mut [$w], vals: &mut [u64]) {
                match alg {
                    Alg::Bitonic => dispatch!(isa, $bit64(keys, vals)),
                    Alg::OddEven => dispatch!(isa, $oe64(keys, vals)),
                }
            }
        }
    };
}

sort_word!(
    u32,
    bitonic_u32,
    odd_even_u32,
    bitonic_u32_u32,
    odd_even_u32_u32,
    bitonic_u32_u64,
    odd_even_u32_u64
);
sort_word!(
    u64,
    bitonic_u64,
    odd_even_u64,
    bitonic_u64_u32,
    odd_even_u64_u32,
    bitonic_u64_u64,
    odd_even_u64_u64
);

/// `u16` words (the `u16` index type) sort on the portable network on every `Isa`: no
/// width has 16-bit lanes in its networks, and every width gives the same result anyway.
impl SortWord for u16 {
    #[inline]
    fn sort_on(_: Checked, alg: Alg, keys: &mut [u16]) {
        match alg {
            Alg::Bitonic => portable::bitonic_u16(keys),
            Alg::OddEven => portable::odd_even_u16(keys),
        }
    }

    #[inline]
    fn sort_v32_on(_: Checked, alg: Alg, keys: &mut [u16], vals: &mut [u32]) {
        sort_any(alg, keys, vals);
    }

    #[inline]
    fn sort_v64_on(_: Checked, alg: Alg, keys: &mut [u16], vals: &mut [u64]) {
        sort_any(alg, keys, vals);
    }
}

/// Sorts key words with values of any type (any size, any alignment) with `alg`: the
/// portable network on every `Isa` (the result is the same as on any width).
pub(crate) fn sort_any<K: Bits, V: Copy + Zeroable>(alg: Alg, keys: &mut [K], vals: &mut [V]) {
    match alg {
        Alg::Bitonic => portable::bitonic_any(keys, vals),
        Alg::OddEven => portable::odd_even_any(keys, vals),
    }
}
