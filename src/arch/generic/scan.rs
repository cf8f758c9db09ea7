//! The scan family (thesis 4.3.2–4.4.4) written once, over the vector trait [`ScanVec`].
//!
//! - [`Elem`]: the element types (`u32`, `u64` with wrapping addition, `f32`, `f64`);
//! - [`InOut`]: an operand that is either one slice (in place) or a source and a
//!   destination slice (out of place), as raw pointers for the kernels;
//! - [`FlagMask`], [`BoolMask`], [`BitMask`]: head flags as `bool`s or packed bits, read a
//!   vector's worth at a time as a bit mask;
//! - the scalar loops the portable width runs, and the SIMD widths run on the elements
//!   left after their last whole vector (`*_tail`);
//! - [`ScanVec`]: the in-register operations a width implements per element type, with
//!   defaults for the composite steps (in-register scans, one vector of a segmented scan
//!   or sum) that a width may override;
//! - the kernels over it (`reduce_k`, `inclusive_k`, ...: carry propagation, flags,
//!   streaming stores, tails), and [`scan_entries`], which writes a width's
//!   `#[target_feature]` entry points into them;
//! - the dispatcher [`ArchScanElem`]: the way from the safe layers above into a width's
//!   `unsafe` entry points, behind a [`Checked`] `Isa` (see [`crate::arch`]).
//!
//! The kernels are the same on every width (ARCHITECTURE.md, principle 3: one algorithm,
//! several widths); only the operations differ:
//! - scans (Alg. 6–9 results): each vector is scanned in-register in `log2(W)` shift-add
//!   steps (Hillis–Steele), then the running total of everything before it — held
//!   broadcast in a register — is added. Two vectors per iteration, so the loop-carried
//!   chain is one addition per vector;
//! - segmented scan (Alg. 11): the same steps, but a lane does not add across a head
//!   (the flags are ORed along, as in Alg. 11's up-sweep); lanes before the vector's
//!   first head add the carried segment sum;
//! - segmented sum (Alg. 12): a backward segmented scan, from the end of the array, so
//!   each head ends up holding the sum of its segment in one pass; other positions get 0;
//! - fast segmented sum (Alg. 13): the inclusive scan, then a gather of
//!   `scan[i + seg_offset[i]]` for the fix-up.
//!
//! The elements after the last whole vector run through the scalar `*_tail` loops.

// The vector trait and its kernels serve the SIMD widths only; targets without one keep
// them unused.
#![cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(dead_code))]

use core::marker::PhantomData;

use crate::arch::Checked;
use crate::arch::portable::scan as portable;

/// An element type the scan kernels run on: the additive monoid they scan over.
///
/// Integer addition wraps (so scans of `u32`/`u64` are exact modulo 2^bits); float
/// addition is IEEE addition, so reordering it changes the rounding.
pub trait Elem: Copy + PartialEq + core::fmt::Debug + 'static {
    /// `0` / `+0.0`: the value Alg. 8 starts an exclusive scan with, and that segmented
    /// sums write at non-head positions.
    const ZERO: Self;
    /// The additive identity: `0` / `-0.0` (`-0.0 + x == x` for every `x`, `+0.0 + -0.0`
    /// is `+0.0`). Running sums start from it so that `inclusive_scan([x])` is `[x]`
    /// bit for bit.
    const IDENTITY: Self;
    /// Addition (wrapping for integers).
    fn add(self, other: Self) -> Self;
    /// Subtraction (wrapping for integers).
    fn sub(self, other: Self) -> Self;
}

macro_rules! impl_elem_int {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const ZERO: Self = 0;
            const IDENTITY: Self = 0;
            #[inline(always)]
            fn add(self, other: Self) -> Self {
                self.wrapping_add(other)
            }
            #[inline(always)]
            fn sub(self, other: Self) -> Self {
                self.wrapping_sub(other)
            }
        }
    )*};
}
macro_rules! impl_elem_float {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            const ZERO: Self = 0.0;
            const IDENTITY: Self = -0.0;
            #[inline(always)]
            fn add(self, other: Self) -> Self {
                self + other
            }
            #[inline(always)]
            fn sub(self, other: Self) -> Self {
                self - other
            }
        }
    )*};
}
impl_elem_int!(u32, u64);
impl_elem_float!(f32, f64);

/// The operand of a scan: one slice scanned in place, or a source scanned into a
/// destination. Holds raw pointers so one kernel serves both (in place, `src == dst`);
/// the constructors take borrows, so the pointers are valid for `len` elements for `'a`.
pub struct InOut<'a, T> {
    src: *const T,
    dst: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

impl<'a, T> InOut<'a, T> {
    /// Scan `v` in place.
    #[inline]
    pub fn in_place(v: &'a mut [T]) -> Self {
        let len = v.len();
        let dst = v.as_mut_ptr();
        InOut { src: dst, dst, len, _borrow: PhantomData }
    }

    /// Scan `src` into `dst`; the operand covers the shorter of the two (the public layer
    /// has already rejected unequal lengths).
    #[inline]
    pub fn copy(src: &'a [T], dst: &'a mut [T]) -> Self {
        let len = src.len().min(dst.len());
        InOut { src: src.as_ptr(), dst: dst.as_mut_ptr(), len, _borrow: PhantomData }
    }

    /// Number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Source pointer, valid for reads of `len()` elements (equal to [`InOut::dst`] in
    /// place, disjoint from it otherwise).
    #[inline]
    pub fn src(&self) -> *const T {
        self.src
    }

    /// Destination pointer, valid for writes of `len()` elements.
    #[inline]
    pub fn dst(&self) -> *mut T {
        self.dst
    }
}

/// Head flags, read one vector's worth at a time.
///
/// Both readers are safe for any argument: positions past the end read as "no head".
pub trait FlagMask: Copy {
    /// Number of flags.
    fn len(&self) -> usize;
    /// Whether position `i` starts a segment (`false` past the end).
    fn get(&self, i: usize) -> bool;
    /// The flags of positions `i..i + w` as bits `0..w` (LSB = position `i`), for
    /// `w` in {2, 4, 8, 16} and any `i`; `0` if the range passes the end.
    fn mask(&self, i: usize, w: usize) -> u32;
}

/// Head flags stored one `bool` per element (viewed as bytes that are 0 or 1).
#[derive(Clone, Copy)]
pub struct BoolMask<'a>(&'a [u8]);

impl<'a> BoolMask<'a> {
    /// Reads `flags`.
    #[inline]
    pub fn new(flags: &'a [bool]) -> Self {
        BoolMask(bytemuck::cast_slice(flags))
    }
}

/// Packs eight bytes that are 0 or 1 (little-endian in `x`) into the low eight bits:
/// the multiplier moves byte `k`'s low bit to bit `56 + k`, and no two partial products
/// that reach the top byte overlap, so there are no carries.
#[inline(always)]
fn pack8(x: u64) -> u32 {
    (x.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
}

impl FlagMask for BoolMask<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.0.len()
    }
    #[inline(always)]
    fn get(&self, i: usize) -> bool {
        self.0.get(i).is_some_and(|&b| b != 0)
    }
    #[inline(always)]
    fn mask(&self, i: usize, w: usize) -> u32 {
        // `w` is a constant in every caller, so one arm remains, without a length check
        // beyond `first_chunk`'s.
        let Some(rest) = self.0.get(i..) else { return 0 };
        match w {
            2 => rest.first_chunk::<2>().map_or(0, |&[b0, b1]| u32::from(b0) | u32::from(b1) << 1),
            // Same trick as `pack8` on four bytes: byte k's bit lands on bit 24 + k.
            4 => {
                rest.first_chunk::<4>().map_or(0, |b| u32::from_le_bytes(*b).wrapping_mul(0x0102_0408) >> 24)
            }
            8 => rest.first_chunk::<8>().map_or(0, |b| pack8(u64::from_le_bytes(*b))),
            16 => rest.first_chunk::<16>().map_or(0, |b| {
                let (lo, hi) = (
                    u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
                    u64::from_le_bytes([b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]]),
                );
                pack8(lo) | pack8(hi) << 8
            }),
            _ => rest.iter().take(w.min(32)).enumerate().fold(0, |m, (k, &f)| m | u32::from(f) << k),
        }
    }
}

/// Head flags packed 64 to a word: position `i` is bit `i % 64` of `words[i / 64]`.
#[derive(Clone, Copy)]
pub struct BitMask<'a> {
    words: &'a [u64],
    len: usize,
}

impl<'a> BitMask<'a> {
    /// Reads the first `len` bits of `words` (positions past `64 * words.len()` read as
    /// no head).
    #[inline]
    pub fn new(words: &'a [u64], len: usize) -> Self {
        BitMask { words, len }
    }
}

impl FlagMask for BitMask<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        self.len
    }
    #[inline(always)]
    fn get(&self, i: usize) -> bool {
        i < self.len && self.words.get(i / 64).is_some_and(|&w| w >> (i % 64) & 1 != 0)
    }
    #[inline(always)]
    fn mask(&self, i: usize, w: usize) -> u32 {
        // The `w <= 32` bits may straddle two words (a streaming kernel's vectors start
        // where `dst` is aligned, not at multiples of `w`).
        let (q, r) = (i / 64, i % 64);
        let lo = self.words.get(q).copied().unwrap_or(0) >> r;
        let hi = if r == 0 { 0 } else { self.words.get(q + 1).copied().unwrap_or(0) << (64 - r) };
        let low = if w >= 32 { u32::MAX } else { (1u32 << w) - 1 };
        (lo | hi) as u32 & low
    }
}

// ---------------------------------------------------------------------------------------
// Scalar loops: the portable kernels, and the tails of the SIMD ones.
// ---------------------------------------------------------------------------------------

/// Inclusive scan of positions `from..to` continuing the running sum `carry`; returns the
/// running sum after `to - 1` (Alg. 6/7).
///
/// # Safety
/// `src` is valid for reads and `dst` for writes at every position in `from..to`; they
/// are equal or the ranges do not overlap.
#[inline]
pub unsafe fn inclusive_tail<T: Elem>(src: *const T, dst: *mut T, from: usize, to: usize, mut carry: T) -> T {
    for i in from..to {
        // SAFETY: `i` is in `from..to`, where the caller guarantees both accesses; the
        // read comes before the write, so the in-place case sees the original value.
        unsafe {
            carry = carry.add(src.add(i).read());
            dst.add(i).write(carry);
        }
    }
    carry
}

/// Exclusive scan of positions `from..to` continuing the running sum `carry`; returns the
/// running sum after `to - 1` (Alg. 8/9).
///
/// # Safety
/// As for [`inclusive_tail`].
#[inline]
pub unsafe fn exclusive_tail<T: Elem>(src: *const T, dst: *mut T, from: usize, to: usize, mut carry: T) -> T {
    for i in from..to {
        // SAFETY: as in `inclusive_tail`.
        unsafe {
            let x = src.add(i).read();
            dst.add(i).write(carry);
            carry = carry.add(x);
        }
    }
    carry
}

/// Segmented scan of positions `from..to`; `carry` is the running sum of the segment
/// that reaches into `from` (`T::IDENTITY` at the start of the array). Position 0 always
/// starts a segment. Inclusive: `dst[i]` = sum from the segment's head to `i`; exclusive
/// (`EXCL`): the same sum without `i` (`T::ZERO` at heads). Returns the running inclusive
/// sum after `to - 1`.
///
/// # Safety
/// As for [`inclusive_tail`].
#[inline]
pub unsafe fn seg_scan_tail<T: Elem, F: FlagMask, const EXCL: bool>(
    src: *const T,
    dst: *mut T,
    from: usize,
    to: usize,
    flags: F,
    mut carry: T,
) -> T {
    for i in from..to {
        let head = i == 0 || flags.get(i);
        // SAFETY: as in `inclusive_tail`.
        unsafe {
            let x = src.add(i).read();
            let before = if head { T::IDENTITY } else { carry };
            carry = before.add(x);
            dst.add(i).write(if EXCL { if head { T::ZERO } else { before } } else { carry });
        }
    }
    carry
}

/// Outputs of at least this many bytes are written with streaming (non-temporal) stores
/// by the x86 scan kernels when `dst` is not `src`, and by the copying CSR5 conversions
/// (`Csr5::from_csr`, `Csr5::to_csr`: `col_idx` and `vals` together): 16 MiB, about
/// glibc's threshold for `memcpy` on a server core (3/4 of one core's share of the
/// last-level cache). Smaller outputs are likely read again while cached, and stream no
/// faster.
pub(crate) const STREAM_MIN_BYTES: usize = 16 << 20;

/// Segmented sum of positions `to - 1` down to `from`: `carry` is the sum of the part of
/// the segment of `to - 1` that lies at `to..` (`T::IDENTITY` if `to` is a head or the
/// end). A head (and position 0) gets its segment's sum, every other position `T::ZERO`.
/// Returns the carry for position `from - 1`.
///
/// # Safety
/// As for [`inclusive_tail`].
#[inline]
pub unsafe fn seg_sum_tail<T: Elem, F: FlagMask>(
    src: *const T,
    dst: *mut T,
    from: usize,
    to: usize,
    flags: F,
    mut carry: T,
) -> T {
    for i in (from..to).rev() {
        let head = i == 0 || flags.get(i);
        // SAFETY: as in `inclusive_tail`.
        unsafe {
            let r = src.add(i).read().add(carry);
            dst.add(i).write(if head { r } else { T::ZERO });
            carry = if head { T::IDENTITY } else { r };
        }
    }
    carry
}

/// The fix-up of Alg. 13 (line 6) at positions `from..to`, after `dst` holds the
/// inclusive scan of `src`: `dst[i] = dst[j] - dst[i] + src[i]` with
/// `j = min(i + seg_offset[i], n - 1)`, and `dst[i] = src[i]` where `seg_offset[i] == 0`
/// (a one-element segment; the formula gives the same unless the prefix sum is not
/// finite). Ascending order keeps `dst[j]` (`j >= i`) unchanged until it is read.
///
/// # Safety
/// `src`, `seg_offset` are valid for reads and `dst` for reads and writes at `0..n`,
/// `src` and `dst` do not overlap, and `to <= n`.
#[inline]
pub unsafe fn seg_offset_tail<T: Elem>(
    src: *const T,
    seg_offset: *const u32,
    dst: *mut T,
    from: usize,
    to: usize,
    n: usize,
) {
    for i in from..to {
        // SAFETY: `i < to <= n`, inside every operand.
        unsafe { dst.add(i).write(seg_offset_one(src, seg_offset, dst, i, n)) };
    }
}

/// The value [`seg_offset_tail`] writes at `i` (read before anything at `i..` changes).
///
/// # Safety
/// As for [`seg_offset_tail`], and `i < n`.
#[inline(always)]
pub unsafe fn seg_offset_one<T: Elem>(
    src: *const T,
    seg_offset: *const u32,
    dst: *const T,
    i: usize,
    n: usize,
) -> T {
    // SAFETY: `i < n` and `j <= n - 1` (clamped), inside every operand.
    unsafe {
        let off = seg_offset.add(i).read();
        let x = src.add(i).read();
        let j = i.saturating_add(off as usize).min(n - 1);
        let v = dst.add(j).read().sub(dst.add(i).read()).add(x);
        // Both computed, then selected: a branch on `off` mispredicts on irregular heads.
        if off == 0 { x } else { v }
    }
}

/// How many `i` have `i + seg_offset[i] >= n` (the validation of the fast segmented sum:
/// valid offsets have none). A branch-free count, so it vectorises on the caller's width,
/// in 32-bit lanes where the numbers fit: on the x86 widths it costs a plain read of
/// `seg_offset`, where the same fold in 64-bit lanes of baseline x86-64 (no 64-bit
/// compare) took longer than the whole fix-up pass.
#[inline(always)]
pub fn seg_offset_reaching(seg_offset: &[u32], n: usize) -> usize {
    match (u32::try_from(n), u32::try_from(seg_offset.len())) {
        // `i + o >= n` as `o >= n - i` (0 once `i >= n`).
        (Ok(n), Ok(_)) => {
            seg_offset.iter().zip(0u32..).map(|(&o, i)| u32::from(o >= n.saturating_sub(i))).sum::<u32>()
                as usize
        }
        _ => seg_offset.iter().zip(0u64..).map(|(&o, i)| usize::from(i + u64::from(o) >= n as u64)).sum(),
    }
}

// ---------------------------------------------------------------------------------------
// The vector trait and the kernels over it.
// ---------------------------------------------------------------------------------------

/// The in-register operations of this width for one element type.
///
/// # Safety
/// Every method requires the CPU to support this width's target features. Those
/// taking pointers say what they read or write.
pub(crate) trait ScanVec {
    /// The element type.
    type E: Elem;
    /// The vector register type.
    type V: Copy;
    /// Lanes per vector (a power of two, at most 16).
    const W: usize;

    /// Loads `W` elements from `p`.
    ///
    /// # Safety
    /// The features are present; `p` is valid for reads of `W` elements.
    unsafe fn loadu(p: *const Self::E) -> Self::V;
    /// Stores `W` elements to `p`.
    ///
    /// # Safety
    /// The features are present; `p` is valid for writes of `W` elements.
    unsafe fn storeu(p: *mut Self::E, v: Self::V);
    /// Whether [`ScanVec::stream`] bypasses the caches (x86 `movntdq`); if not, it is
    /// [`ScanVec::storeu`] and large outputs are stored normally.
    const STREAM: bool;
    /// Stores `W` elements to `p` around the caches (non-temporal): for outputs too
    /// large to stay cached, it saves the read-for-ownership of each line that a
    /// normal store pays, as `memcpy` does for large copies.
    ///
    /// # Safety
    /// The features are present; `p` is valid for writes of `W` elements and
    /// aligned to `W * size_of::<Self::E>()` bytes.
    unsafe fn stream(p: *mut Self::E, v: Self::V);
    /// Orders the streaming stores before any later store (`sfence`), so another
    /// thread that sees a later write also sees the output.
    ///
    /// # Safety
    /// The features are present.
    unsafe fn fence();
    /// Asks for the cache line at `p` ahead of its use (a hint: it never faults, so
    /// `p` may lie past the array; it is never dereferenced).
    ///
    /// # Safety
    /// The features are present.
    unsafe fn prefetch(p: *const u8);
    /// `x` in every lane.
    ///
    /// # Safety
    /// The features are present.
    unsafe fn splat(x: Self::E) -> Self::V;
    /// Lane-wise addition (wrapping for integers).
    ///
    /// # Safety
    /// The features are present.
    unsafe fn vadd(a: Self::V, b: Self::V) -> Self::V;
    /// Lane-wise subtraction (wrapping for integers).
    ///
    /// # Safety
    /// The features are present.
    unsafe fn vsub(a: Self::V, b: Self::V) -> Self::V;
    /// Lane `j` gets `v[j - d]`, lanes `j < d` get `fill[j]` (`d` a power of two
    /// below `W`).
    ///
    /// # Safety
    /// The features are present.
    unsafe fn shl(v: Self::V, fill: Self::V, d: u32) -> Self::V;
    /// Lane `j` gets `v[j + d]`, lanes `j >= W - d` get `fill[j]`.
    ///
    /// # Safety
    /// The features are present.
    unsafe fn shr(v: Self::V, fill: Self::V, d: u32) -> Self::V;
    /// Lane `j` gets `a[j]` where bit `j` of `bits` is set, else `b[j]`.
    ///
    /// # Safety
    /// The features are present.
    unsafe fn select(bits: u32, a: Self::V, b: Self::V) -> Self::V;
    /// Lane 0 in every lane.
    ///
    /// # Safety
    /// The features are present.
    unsafe fn bcast_first(v: Self::V) -> Self::V;
    /// Lane `W - 1` in every lane.
    ///
    /// # Safety
    /// The features are present.
    unsafe fn bcast_last(v: Self::V) -> Self::V;
    /// Lane 0.
    ///
    /// # Safety
    /// The features are present.
    unsafe fn first(v: Self::V) -> Self::E;
    /// Sum of the lanes.
    ///
    /// # Safety
    /// The features are present.
    unsafe fn hsum(v: Self::V) -> Self::E;
    /// `base[min(i + j + seg_offset[j], last)]` in lane `j` (index arithmetic
    /// wraps at 32 bits, then is clamped, so every read is at `0..=last`).
    ///
    /// # Safety
    /// The features are present; `seg_offset` is valid for reads of `W` `u32`s,
    /// `base` for reads at `0..=last`, and `last <= i32::MAX`, `i < last`.
    unsafe fn gather(base: *const Self::E, seg_offset: *const u32, i: usize, last: usize) -> Self::V;
    /// Bit `j` set where `seg_offset[j] != 0`, `j < W`.
    ///
    /// # Safety
    /// The features are present; `seg_offset` is valid for reads of `W` `u32`s.
    #[inline(always)]
    unsafe fn nonzero_lanes(seg_offset: *const u32) -> u32 {
        let mut bits = 0;
        for j in 0..Self::W {
            // SAFETY: `j < W` (the caller's contract).
            bits |= u32::from(unsafe { seg_offset.add(j).read() } != 0) << j;
        }
        bits
    }

    /// `v + c` in lanes whose bit in `bits` is clear, `v` elsewhere.
    ///
    /// # Safety
    /// The features are present.
    #[inline(always)]
    unsafe fn add_where_clear(v: Self::V, c: Self::V, bits: u32) -> Self::V {
        // SAFETY: the features are present (the caller's contract).
        unsafe { Self::select(bits, v, Self::vadd(v, c)) }
    }
    /// `v` in lanes whose bit in `bits` is set, `0` (`+0.0`) elsewhere.
    ///
    /// # Safety
    /// The features are present.
    #[inline(always)]
    unsafe fn keep(v: Self::V, bits: u32) -> Self::V {
        // SAFETY: the features are present (the caller's contract).
        unsafe { Self::select(bits, v, Self::splat(<Self::E as Elem>::ZERO)) }
    }
    /// `[c[W - 1], v[0], .., v[W - 2]]`.
    ///
    /// # Safety
    /// The features are present.
    #[inline(always)]
    unsafe fn shift_in(v: Self::V, c: Self::V) -> Self::V {
        // SAFETY: the features are present (the caller's contract). `c` is a
        // broadcast wherever this is used, so which lane of it `shl` takes
        // does not matter.
        unsafe { Self::shl(v, c, 1) }
    }
    /// One vector of the forward segmented scan (`seg_scan_k`): `x` the values,
    /// `m` their head bits (bit 0 also set for the array's first vector), `carry`
    /// the running sum of the segment reaching into this vector. Returns the
    /// output vector (inclusive, or exclusive if `EXCL`) and the carry for the
    /// next vector.
    ///
    /// # Safety
    /// The features are present.
    #[inline(always)]
    unsafe fn seg_scan_block<const EXCL: bool>(x: Self::V, m: u32, carry: Self::V) -> (Self::V, Self::V) {
        let full = if Self::W >= 32 { u32::MAX } else { (1u32 << Self::W) - 1 };
        // Lanes at or after the vector's first head: `m | -m` keeps the lowest
        // set bit and sets everything above it.
        let seen = (m | m.wrapping_neg()) & full;
        // SAFETY: the features are present (the caller's contract).
        unsafe {
            let a = Self::seg_scan(x, m);
            let o = Self::add_where_clear(a, carry, seen);
            let out = if EXCL { Self::keep(Self::shift_in(o, carry), !m) } else { o };
            // `o`'s last lane, computed off the `carry` chain from `a`'s.
            let c = Self::add_where_clear(Self::bcast_last(a), carry, if m != 0 { full } else { 0 });
            (out, c)
        }
    }
    /// One vector of the backward segmented sum (`seg_sum_k`): `x` the values,
    /// `m` their head bits (bit 0 also set for the array's first vector), `carry`
    /// what the segment continuing from the right adds (0 if the next vector
    /// starts with a head). Returns the output vector — segment sums at heads,
    /// 0 elsewhere — and the carry for the vector to the left.
    ///
    /// # Safety
    /// The features are present.
    #[inline(always)]
    unsafe fn seg_sum_block(x: Self::V, m: u32, carry: Self::V) -> (Self::V, Self::V) {
        let full = if Self::W >= 32 { u32::MAX } else { (1u32 << Self::W) - 1 };
        // Lane `j` stops before lane `j + 1` if that is a head.
        let stops = m >> 1;
        // Lanes with a head above them in this vector: all lanes up to the
        // highest stop bit (none if `stops == 0`: the shift is then by 0).
        // Every mask here is branch-free: with irregular heads a branch on
        // `stops == 0` mispredicts (about 40% of 8-lane vectors have no stop).
        let sealed = ((1u64 << (32 - stops.leading_zeros())) - 1) as u32;
        // The left neighbour's carry: `r[0]`, plus the old carry if no head lies
        // in the vector (`m == 0`); nothing if lane 0 is a head. Two independent
        // masks keep the carry chain at one mask operation and one addition.
        let first_open = (m & 1).wrapping_sub(1) & full;
        let through = u32::from(m == 0).wrapping_neg() & full;
        // SAFETY: the features are present (the caller's contract).
        unsafe {
            let r = Self::rseg_scan(x, stops);
            let o = Self::add_where_clear(r, carry, sealed);
            let c = Self::vadd(Self::keep(Self::bcast_first(r), first_open), Self::keep(carry, through));
            (Self::keep(o, m), c)
        }
    }
    /// In-register inclusive scan (Hillis–Steele, `log2(W)` shift-add steps).
    ///
    /// # Safety
    /// The features are present.
    #[inline(always)]
    unsafe fn scan(mut v: Self::V) -> Self::V {
        // SAFETY: the features are present (the caller's contract).
        unsafe {
            let f = Self::splat(<Self::E as Elem>::IDENTITY);
            v = Self::vadd(v, Self::shl(v, f, 1));
            if Self::W > 2 {
                v = Self::vadd(v, Self::shl(v, f, 2));
            }
            if Self::W > 4 {
                v = Self::vadd(v, Self::shl(v, f, 4));
            }
            if Self::W > 8 {
                v = Self::vadd(v, Self::shl(v, f, 8));
            }
            v
        }
    }
    /// In-register inclusive segmented scan: bit `j` of `heads` set means lane
    /// `j` starts a segment. At step `d`, a lane adds the lane `d` below unless a
    /// head lies in the `d` lanes ending at it; the head bits are then ORed `d`
    /// lanes up (Alg. 11's flag propagation).
    ///
    /// # Safety
    /// The features are present.
    #[inline(always)]
    unsafe fn seg_scan(mut v: Self::V, heads: u32) -> Self::V {
        // SAFETY: the features are present (the caller's contract).
        unsafe {
            let f = Self::splat(<Self::E as Elem>::IDENTITY);
            let mut m = heads;
            v = Self::add_where_clear(v, Self::shl(v, f, 1), m);
            if Self::W > 2 {
                m |= m << 1;
                v = Self::add_where_clear(v, Self::shl(v, f, 2), m);
            }
            if Self::W > 4 {
                m |= m << 2;
                v = Self::add_where_clear(v, Self::shl(v, f, 4), m);
            }
            if Self::W > 8 {
                m |= m << 4;
                v = Self::add_where_clear(v, Self::shl(v, f, 8), m);
            }
            v
        }
    }
    /// In-register backward segmented scan: lane `j` gets the sum of lanes
    /// `j..` up to (not including) the first lane above `j` that is a head. Bit
    /// `j` of `stops` set means lane `j + 1` is a head.
    ///
    /// # Safety
    /// The features are present.
    #[inline(always)]
    unsafe fn rseg_scan(mut v: Self::V, stops: u32) -> Self::V {
        // SAFETY: the features are present (the caller's contract).
        unsafe {
            let f = Self::splat(<Self::E as Elem>::IDENTITY);
            let mut s = stops;
            v = Self::add_where_clear(v, Self::shr(v, f, 1), s);
            if Self::W > 2 {
                s |= s >> 1;
                v = Self::add_where_clear(v, Self::shr(v, f, 2), s);
            }
            if Self::W > 4 {
                s |= s >> 2;
                v = Self::add_where_clear(v, Self::shr(v, f, 4), s);
            }
            if Self::W > 8 {
                s |= s >> 4;
                v = Self::add_where_clear(v, Self::shr(v, f, 8), s);
            }
            v
        }
    }
}

/// Sum of `p[..n]` in four vector accumulators.
///
/// # Safety
/// The features are present; `p` is valid for reads of `n` elements.
#[inline(always)]
pub(crate) unsafe fn reduce_k<L: ScanVec>(p: *const L::E, n: usize) -> L::E {
    let w = L::W;
    let mut i = 0;
    // SAFETY: the features are present; every load reads `i..i + w` with
    // `i + w <= n` (the loop conditions), inside `p[..n]`.
    unsafe {
        let z = L::splat(L::E::ZERO);
        let (mut a0, mut a1, mut a2, mut a3) = (z, z, z, z);
        while i + 4 * w <= n {
            a0 = L::vadd(a0, L::loadu(p.add(i)));
            a1 = L::vadd(a1, L::loadu(p.add(i + w)));
            a2 = L::vadd(a2, L::loadu(p.add(i + 2 * w)));
            a3 = L::vadd(a3, L::loadu(p.add(i + 3 * w)));
            i += 4 * w;
        }
        while i + w <= n {
            a0 = L::vadd(a0, L::loadu(p.add(i)));
            i += w;
        }
        let mut s = L::hsum(L::vadd(L::vadd(a0, a1), L::vadd(a2, a3)));
        while i < n {
            s = s.add(p.add(i).read());
            i += 1;
        }
        s
    }
}

/// Where the vector loop of an out-of-place kernel starts so that its stores can
/// stream ([`ScanVec::stream`]): the elements before `dst` reaches a vector-aligned
/// address, which the scalar loops take. `None` (store normally, start at 0) for
/// outputs below `STREAM_MIN_BYTES`, in-place runs (their lines are in cache
/// already: read before written), widths without streaming stores, and a `dst`
/// not aligned to its element.
#[inline(always)]
fn stream_start<L: ScanVec>(src: *const L::E, dst: *mut L::E, n: usize) -> Option<usize> {
    let size = size_of::<L::E>();
    if !L::STREAM || core::ptr::eq(src, dst) || n.saturating_mul(size) < STREAM_MIN_BYTES {
        return None;
    }
    let vector = L::W * size;
    let off = dst as usize % vector;
    if !off.is_multiple_of(size) {
        return None;
    }
    let k = if off == 0 { 0 } else { (vector - off) / size };
    (k <= n).then_some(k)
}

/// How far ahead of the loads the streaming loops prefetch `src`, in bytes: next to the
/// streaming stores the hardware prefetcher alone did not keep one core's read stream
/// full (`examples/stream.rs`; `benches/records/kernel-notes-2026-11.md`, "Scan prefetch
/// distance").
const PREFETCH: usize = 4096;

/// [`PREFETCH`] in elements of `L`.
#[inline(always)]
fn ahead<L>() -> usize {
    PREFETCH / size_of::<L>()
}

/// `storeu`, or `stream` when `nt` (then `p` is vector-aligned).
///
/// # Safety
/// As for [`ScanVec::storeu`], and for [`ScanVec::stream`] when `nt`.
#[inline(always)]
unsafe fn put<L: ScanVec>(nt: bool, p: *mut L::E, v: L::V) {
    // SAFETY: the caller's contract.
    unsafe { if nt { L::stream(p, v) } else { L::storeu(p, v) } }
}

/// Inclusive scan of `src[..n]` into `dst[..n]`; returns the total.
///
/// # Safety
/// The features are present; `src` is valid for reads and `dst` for writes of `n`
/// elements; they are equal or do not overlap.
#[inline(always)]
pub(crate) unsafe fn inclusive_k<L: ScanVec>(src: *const L::E, dst: *mut L::E, n: usize) -> L::E {
    let w = L::W;
    let nt = stream_start::<L>(src, dst, n);
    let mut i = nt.unwrap_or(0);
    let nt = nt.is_some();
    // SAFETY: the features are present; every access is at `i..i + 2w` or
    // `i..i + w` below `n`, and with `nt` every store is at a vector-aligned
    // `dst + i` (`stream_start`). Both vectors are loaded before either is
    // stored, and each store covers only positions already loaded, so in place
    // is fine.
    unsafe {
        let mut carry = L::splat(inclusive_tail(src, dst, 0, i, L::E::IDENTITY));
        while i + 2 * w <= n {
            if nt {
                L::prefetch(src.wrapping_add(i + ahead::<L::E>()).cast());
            }
            let a = L::scan(L::loadu(src.add(i)));
            let b = L::scan(L::loadu(src.add(i + w)));
            let ca = L::vadd(carry, L::bcast_last(a));
            put::<L>(nt, dst.add(i), L::vadd(carry, a));
            put::<L>(nt, dst.add(i + w), L::vadd(ca, b));
            carry = L::vadd(ca, L::bcast_last(b));
            i += 2 * w;
        }
        if i + w <= n {
            let a = L::scan(L::loadu(src.add(i)));
            put::<L>(nt, dst.add(i), L::vadd(carry, a));
            carry = L::vadd(carry, L::bcast_last(a));
            i += w;
        }
        if nt {
            L::fence();
        }
        inclusive_tail(src, dst, i, n, L::first(carry))
    }
}

/// Exclusive scan of `src[..n]` into `dst[..n]`; returns the total.
///
/// # Safety
/// As for `inclusive_k`.
#[inline(always)]
pub(crate) unsafe fn exclusive_k<L: ScanVec>(src: *const L::E, dst: *mut L::E, n: usize) -> L::E {
    let w = L::W;
    let nt = stream_start::<L>(src, dst, n);
    let mut i = nt.unwrap_or(0);
    let nt = nt.is_some();
    // SAFETY: as in `inclusive_k`.
    unsafe {
        let f = L::splat(L::E::IDENTITY);
        let mut carry = L::splat(exclusive_tail(src, dst, 0, i, L::E::ZERO));
        while i + 2 * w <= n {
            if nt {
                L::prefetch(src.wrapping_add(i + ahead::<L::E>()).cast());
            }
            let a = L::scan(L::loadu(src.add(i)));
            let b = L::scan(L::loadu(src.add(i + w)));
            let ca = L::vadd(carry, L::bcast_last(a));
            put::<L>(nt, dst.add(i), L::vadd(carry, L::shift_in(a, f)));
            put::<L>(nt, dst.add(i + w), L::vadd(ca, L::shift_in(b, f)));
            carry = L::vadd(ca, L::bcast_last(b));
            i += 2 * w;
        }
        if i + w <= n {
            let a = L::scan(L::loadu(src.add(i)));
            put::<L>(nt, dst.add(i), L::vadd(carry, L::shift_in(a, f)));
            carry = L::vadd(carry, L::bcast_last(a));
            i += w;
        }
        if nt {
            L::fence();
        }
        exclusive_tail(src, dst, i, n, L::first(carry))
    }
}

/// Segmented scan (inclusive, or exclusive if `EXCL`) of `src[..n]` into
/// `dst[..n]`, as `seg_scan_tail`.
///
/// # Safety
/// As for `inclusive_k`; `flags` may be of any length (positions past its end
/// read as no head).
#[inline(always)]
pub(crate) unsafe fn seg_scan_k<L: ScanVec, F: FlagMask, const EXCL: bool>(
    src: *const L::E,
    dst: *mut L::E,
    n: usize,
    flags: F,
) {
    let w = L::W;
    let nt = stream_start::<L>(src, dst, n);
    let mut i = nt.unwrap_or(0);
    let nt = nt.is_some();
    // SAFETY: as in `inclusive_k`; one vector per iteration, loaded first.
    unsafe {
        // The running sum of the segment that reaches into the next vector.
        let c = seg_scan_tail::<L::E, F, EXCL>(src, dst, 0, i, flags, L::E::IDENTITY);
        let mut carry = L::splat(c);
        while i + w <= n {
            if nt {
                L::prefetch(src.wrapping_add(i + ahead::<L::E>()).cast());
            }
            let m = flags.mask(i, w) | u32::from(i == 0);
            let (o, c) = L::seg_scan_block::<EXCL>(L::loadu(src.add(i)), m, carry);
            put::<L>(nt, dst.add(i), o);
            carry = c;
            i += w;
        }
        if nt {
            L::fence();
        }
        seg_scan_tail::<L::E, F, EXCL>(src, dst, i, n, flags, L::first(carry));
    }
}

/// Segmented sum of `src[..n]` into `dst[..n]`, as `seg_sum_tail`:
/// backwards, the elements after the last whole vector first, then whole vectors
/// from `k` on (`k = 0`, or where a streaming `dst` becomes aligned), then the
/// `k` elements before them.
///
/// # Safety
/// As for `seg_scan_k`.
#[inline(always)]
pub(crate) unsafe fn seg_sum_k<L: ScanVec, F: FlagMask>(
    src: *const L::E,
    dst: *mut L::E,
    n: usize,
    flags: F,
) {
    let w = L::W;
    let nt = stream_start::<L>(src, dst, n);
    let k = nt.unwrap_or(0);
    let nt = nt.is_some();
    let mut i = k + (n - k) / w * w;
    // SAFETY: as in `inclusive_k`; vectors lie at `i..i + w` with `k <= i` and
    // `i + w <= n`, vector-aligned in `dst` when `nt`.
    unsafe {
        let c = seg_sum_tail(src, dst, i, n, flags, L::E::IDENTITY);
        // What the segment continuing past the current vector adds to it.
        let mut carry = L::splat(c);
        while i >= k + w {
            i -= w;
            if nt {
                L::prefetch(src.wrapping_add(i.wrapping_sub(ahead::<L::E>())).cast());
            }
            let m = flags.mask(i, w) | u32::from(i == 0);
            let (o, c) = L::seg_sum_block(L::loadu(src.add(i)), m, carry);
            put::<L>(nt, dst.add(i), o);
            carry = c;
        }
        if nt {
            L::fence();
        }
        seg_sum_tail(src, dst, 0, k, flags, L::first(carry));
    }
}

/// The fix-up of Alg. 13 after `dst` holds the inclusive scan of `src`, as
/// `seg_offset_tail`: one gather of `scan[i + seg_offset[i]]` per
/// vector, then `src` selected where the offset is 0. (Fixing only the non-zero
/// lanes one by one was slower: with irregular heads its branches mispredict.)
///
/// # Safety
/// The features are present; `src`, `seg_offset` valid for reads and `dst` for
/// reads and writes of `n` elements; `src` and `dst` do not overlap.
#[inline(always)]
pub(crate) unsafe fn seg_offset_k<L: ScanVec>(
    src: *const L::E,
    seg_offset: *const u32,
    dst: *mut L::E,
    n: usize,
) {
    let w = L::W;
    let mut i = 0;
    // The gather's indices are 32-bit.
    if n <= i32::MAX as usize {
        // SAFETY: the features are present; vectors lie at `i..i + w <= n`; the
        // gather reads `dst` at `i..=n - 1` only (clamped; `n - 1 <= i32::MAX`)
        // before the store to `dst[i..i + w]`, so it sees the scan.
        unsafe {
            while i + w <= n {
                let nz = L::nonzero_lanes(seg_offset.add(i));
                let s = L::loadu(src.add(i));
                let g = L::gather(dst, seg_offset.add(i), i, n - 1);
                let fixed = L::vadd(L::vsub(g, L::loadu(dst.add(i))), s);
                L::storeu(dst.add(i), L::select(nz, fixed, s));
                i += w;
            }
        }
    }
    // SAFETY: the caller's contract, `i <= n`.
    unsafe { seg_offset_tail(src, seg_offset, dst, i, n, n) };
}

// ---------------------------------------------------------------------------------------
// Each width's entry points.
// ---------------------------------------------------------------------------------------

/// Writes, inside a width's `scan.rs`, the width's `#[target_feature]` entry points into
/// the kernels above (`reduce`, `inclusive`, `exclusive`, `seg_scan`, `seg_sum`,
/// `seg_offset_sum`, `seg_offset_reaching`, named as the portable ones), for every `T`
/// whose registers `$width<T>` implement [`ScanVec`]. Each is a thin wrapper: the kernel
/// is `#[inline(always)]`, so it and the width's operations compile inside the wrapper,
/// with the width's features. The caller promises the features, which
/// [`ArchScanElem`]'s dispatchers know from their [`Checked`] `Isa`.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! scan_entries {
    ($width:ident, $feat:literal) => {
        use $crate::arch::generic::scan::{self as generic, Elem, FlagMask, InOut, ScanVec};

        /// Sum of `v`; `0` when empty.
        ///
        /// # Safety
        /// The CPU supports this width's target features.
        #[target_feature(enable = $feat)]
        pub(crate) unsafe fn reduce<T: Elem>(v: &[T]) -> T
        where
            $width<T>: ScanVec<E = T>,
        {
            // SAFETY: the features are present (the caller's promise); a slice is valid
            // for reads of its length.
            unsafe { generic::reduce_k::<$width<T>>(v.as_ptr(), v.len()) }
        }

        /// Inclusive scan.
        ///
        /// # Safety
        /// The CPU supports this width's target features.
        #[target_feature(enable = $feat)]
        pub(crate) unsafe fn inclusive<T: Elem>(io: InOut<'_, T>)
        where
            $width<T>: ScanVec<E = T>,
        {
            // SAFETY: the features are present (the caller's promise); `InOut`'s pointers
            // are valid for `len()` elements, equal or disjoint.
            unsafe { generic::inclusive_k::<$width<T>>(io.src(), io.dst(), io.len()) };
        }

        /// Exclusive scan; returns the total.
        ///
        /// # Safety
        /// The CPU supports this width's target features.
        #[target_feature(enable = $feat)]
        pub(crate) unsafe fn exclusive<T: Elem>(io: InOut<'_, T>) -> T
        where
            $width<T>: ScanVec<E = T>,
        {
            // SAFETY: as in `inclusive`.
            unsafe { generic::exclusive_k::<$width<T>>(io.src(), io.dst(), io.len()) }
        }

        /// Segmented scan, inclusive or exclusive (`EXCL`); position 0 always starts a
        /// segment.
        ///
        /// # Safety
        /// The CPU supports this width's target features.
        #[target_feature(enable = $feat)]
        pub(crate) unsafe fn seg_scan<T: Elem, F: FlagMask, const EXCL: bool>(io: InOut<'_, T>, flags: F)
        where
            $width<T>: ScanVec<E = T>,
        {
            // SAFETY: as in `inclusive`; flags are read through safe, bounds-checked
            // readers.
            unsafe { generic::seg_scan_k::<$width<T>, F, EXCL>(io.src(), io.dst(), io.len(), flags) };
        }

        /// Segmented sum; position 0 always starts a segment.
        ///
        /// # Safety
        /// The CPU supports this width's target features.
        #[target_feature(enable = $feat)]
        pub(crate) unsafe fn seg_sum<T: Elem, F: FlagMask>(io: InOut<'_, T>, flags: F)
        where
            $width<T>: ScanVec<E = T>,
        {
            // SAFETY: as in `seg_scan`.
            unsafe { generic::seg_sum_k::<$width<T>, F>(io.src(), io.dst(), io.len(), flags) };
        }

        /// Fast segmented sum with `seg_offset` (Alg. 13), out of place.
        ///
        /// # Safety
        /// The CPU supports this width's target features.
        #[target_feature(enable = $feat)]
        pub(crate) unsafe fn seg_offset_sum<T: Elem>(src: &[T], seg_offset: &[u32], dst: &mut [T])
        where
            $width<T>: ScanVec<E = T>,
        {
            let n = src.len().min(seg_offset.len()).min(dst.len());
            let (src, seg_offset, dst) = (&src[..n], &seg_offset[..n], &mut dst[..n]);
            // SAFETY: the features are present (the caller's promise); three slices of
            // length `n`, `dst` a `&mut` and so disjoint from `src`.
            unsafe {
                generic::inclusive_k::<$width<T>>(src.as_ptr(), dst.as_mut_ptr(), n);
                generic::seg_offset_k::<$width<T>>(src.as_ptr(), seg_offset.as_ptr(), dst.as_mut_ptr(), n);
            }
        }

        /// How many `i` have `i + seg_offset[i] >= n` ([`generic::seg_offset_reaching`]),
        /// compiled for this width.
        ///
        /// # Safety
        /// The CPU supports this width's target features.
        #[target_feature(enable = $feat)]
        pub(crate) unsafe fn seg_offset_reaching(seg_offset: &[u32], n: usize) -> usize {
            generic::seg_offset_reaching(seg_offset, n)
        }
    };
}
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) use scan_entries;

// ---------------------------------------------------------------------------------------
// The dispatchers: from a `Checked` `Isa` to its width's entry points.
// ---------------------------------------------------------------------------------------

/// [`seg_offset_reaching`] on `isa`.
pub fn seg_offset_reaching_on(isa: Checked, seg_offset: &[u32], n: usize) -> usize {
    crate::arch::dispatch!(isa, scan::seg_offset_reaching(seg_offset, n), else seg_offset_reaching(seg_offset, n))
}

/// The scan kernels an element type has on every width, behind a [`Checked`] `Isa`.
///
/// `pub` only to be named by the sealed public `ScanElem`; unnameable outside the crate.
pub trait ArchScanElem: Elem {
    /// Sum of `v`; `0` when empty.
    fn reduce_on(isa: Checked, v: &[Self]) -> Self;
    /// Inclusive scan.
    fn inclusive_on(isa: Checked, io: InOut<'_, Self>);
    /// Exclusive scan; returns the total.
    fn exclusive_on(isa: Checked, io: InOut<'_, Self>) -> Self;
    /// Segmented scan, inclusive or `exclusive`; position 0 always starts a segment.
    fn seg_scan_on<F: FlagMask>(isa: Checked, io: InOut<'_, Self>, flags: F, exclusive: bool);
    /// Segmented sum; position 0 always starts a segment.
    fn seg_sum_on<F: FlagMask>(isa: Checked, io: InOut<'_, Self>, flags: F);
    /// Fast segmented sum with `seg_offset` (Alg. 13), out of place.
    fn seg_offset_on(isa: Checked, src: &[Self], seg_offset: &[u32], dst: &mut [Self]);
}

/// [`crate::arch::dispatch!`] into this family's entry points for `$t`, the portable
/// ones named as the widths'.
macro_rules! dispatch {
    ($isa:expr, $f:ident::<$($g:tt),+>($($arg:expr),*)) => {
        crate::arch::dispatch!($isa, scan::$f::<$($g),+>($($arg),*), else portable::$f::<$($g),+>($($arg),*))
    };
}

macro_rules! arch_scan_elem {
    ($($t:ident)*) => {$(
        impl ArchScanElem for $t {
            #[inline]
            fn reduce_on(isa: Checked, v: &[$t]) -> $t {
                dispatch!(isa, reduce::<$t>(v))
            }
            #[inline]
            fn inclusive_on(isa: Checked, io: InOut<'_, $t>) {
                dispatch!(isa, inclusive::<$t>(io))
            }
            #[inline]
            fn exclusive_on(isa: Checked, io: InOut<'_, $t>) -> $t {
                dispatch!(isa, exclusive::<$t>(io))
            }
            #[inline]
            fn seg_scan_on<F: FlagMask>(isa: Checked, io: InOut<'_, $t>, flags: F, exclusive: bool) {
                if exclusive {
                    dispatch!(isa, seg_scan::<$t, F, true>(io, flags))
                } else {
                    dispatch!(isa, seg_scan::<$t, F, false>(io, flags))
                }
            }
            #[inline]
            fn seg_sum_on<F: FlagMask>(isa: Checked, io: InOut<'_, $t>, flags: F) {
                dispatch!(isa, seg_sum::<$t, F>(io, flags))
            }
            #[inline]
            fn seg_offset_on(isa: Checked, src: &[$t], seg_offset: &[u32], dst: &mut [$t]) {
                dispatch!(isa, seg_offset_sum::<$t>(src, seg_offset, dst))
            }
        }
    )*};
}

arch_scan_elem!(u32 u64 f32 f64);
