//! `avx2` scan kernels: 256-bit vectors, 8 lanes of `u32`/`f32`, 4 of `u64`/`f64`.
//!
//! The loops are `arch::generic::scan`'s, over [`ScanVec`]; this file supplies
//! the in-register operations. Every vector is held as `__m256i` (float lanes are cast,
//! which costs nothing) so the lane shuffles are shared by element size. AVX2 shuffles
//! mostly compete for one port, so the operations are built to use few of them:
//! - the log-steps of a scan run inside each 128-bit half first (`vpslldq`/`vpsrldq`,
//!   one shuffle each), then one cross-half step adds the last lane of the low half to
//!   the high half (two shuffles) — 4 shuffles for 8 lanes instead of 5–6;
//! - a per-lane mask comes from a table (`MASK32`, `MASK64`: one load, no shuffle)
//!   instead of broadcasting the bits into a register (two shuffles per mask), and a
//!   guarded addition is `v + (c & mask)` (one `vpand`) rather than a blend (three uops);
//! - the 4-lane segmented sum reads each of its masks straight from a table by head
//!   pattern (`SEG_MASKS64`, one memory operand per mask), without the index arithmetic
//!   of a row lookup followed by a mask lookup.
//!
//! The in-half shifts fill with `+0.0`, and a guarded-off lane adds `+0.0`, so for floats
//! a lane may compute `x + 0.0` where the sequential loop has `x`: only the sign of a
//! zero result can differ.

use core::arch::x86_64::*;

use super::Avx2;

/// Lane `j` gets `v[j - d]`, lanes `j < d` get `f` (32-bit lanes, `d` in {1, 2, 4}).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn shl32(v: __m256i, f: __m256i, d: u32) -> __m256i {
    // [f.lo | v.lo]: per 128-bit half, what lies "below" `v`'s half.
    let t = _mm256_permute2x128_si256::<0x02>(v, f);
    match d {
        1 => _mm256_alignr_epi8::<12>(v, t),
        2 => _mm256_alignr_epi8::<8>(v, t),
        _ => t,
    }
}

/// Lane `j` gets `v[j + d]`, the top `d` lanes get `f` (32-bit lanes).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn shr32(v: __m256i, f: __m256i, d: u32) -> __m256i {
    // [v.hi | f.lo]: per half, what lies "above" `v`'s half.
    let t = _mm256_permute2x128_si256::<0x21>(v, f);
    match d {
        1 => _mm256_alignr_epi8::<4>(t, v),
        2 => _mm256_alignr_epi8::<8>(t, v),
        _ => t,
    }
}

/// As `shl32` for 64-bit lanes (`d` in {1, 2}).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn shl64(v: __m256i, f: __m256i, d: u32) -> __m256i {
    let t = _mm256_permute2x128_si256::<0x02>(v, f);
    if d == 1 { _mm256_alignr_epi8::<8>(v, t) } else { t }
}

/// As `shr32` for 64-bit lanes.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn shr64(v: __m256i, f: __m256i, d: u32) -> __m256i {
    let t = _mm256_permute2x128_si256::<0x21>(v, f);
    if d == 1 { _mm256_alignr_epi8::<8>(t, v) } else { t }
}

/// Within each 128-bit half, lane `j` gets `v[j - d]` and the low `d` lanes of the half
/// get 0 (32-bit lanes, `d` in {1, 2}).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn half_shl32(v: __m256i, d: u32) -> __m256i {
    if d == 1 { _mm256_slli_si256::<4>(v) } else { _mm256_slli_si256::<8>(v) }
}

/// Within each half, lane `j` gets `v[j + d]`, the top `d` lanes of the half 0.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn half_shr32(v: __m256i, d: u32) -> __m256i {
    if d == 1 { _mm256_srli_si256::<4>(v) } else { _mm256_srli_si256::<8>(v) }
}

/// As `half_shl32` for 64-bit lanes (`d` = 1).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn half_shl64(v: __m256i, _d: u32) -> __m256i {
    _mm256_slli_si256::<8>(v)
}

/// As `half_shr32` for 64-bit lanes.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn half_shr64(v: __m256i, _d: u32) -> __m256i {
    _mm256_srli_si256::<8>(v)
}

/// `v`, with every lane treated as used. The cross-half steps add a broadcast to one half
/// only; seeing the other half unused, LLVM lowers the broadcast to an insert into
/// whatever register is free, and it picked the running carry: a false dependency that
/// chained each vector's local scan to the previous carry (f32 scans ran at half speed).
/// An empty `asm!` that "uses" the whole register keeps the full broadcast.
#[inline]
#[target_feature(enable = "avx2,fma")]
#[cfg_attr(miri, allow(unused_mut))]
fn all_lanes(mut v: __m256i) -> __m256i {
    // Miri cannot interpret inline assembly; the barrier is the identity, so it is left
    // out there (and the AVX2 path stays checkable under Miri, see `.ci/miri`).
    #[cfg(not(miri))]
    // SAFETY: the template is empty: no instruction runs, `v` is left as it is.
    unsafe {
        core::arch::asm!("/* {0} */", inout(ymm_reg) v, options(pure, nomem, nostack, preserves_flags))
    };
    v
}

/// The low half's last lane in every lane (32-bit lanes).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn lo_last32(v: __m256i) -> __m256i {
    all_lanes(_mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(3)))
}

/// The high half's first lane in every lane (32-bit lanes).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn hi_first32(v: __m256i) -> __m256i {
    all_lanes(_mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(4)))
}

/// The low half's last lane in every lane (64-bit lanes).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn lo_last64(v: __m256i) -> __m256i {
    _mm256_permute4x64_epi64::<0x55>(v)
}

/// The high half's first lane in every lane (64-bit lanes).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn hi_first64(v: __m256i) -> __m256i {
    _mm256_permute4x64_epi64::<0xAA>(v)
}

/// Lane masks of 8 32-bit lanes by bit pattern: entry `b`, lane `j` is all-ones iff
/// bit `j` of `b` is set.
#[repr(C, align(32))]
struct Mask32([[i32; 8]; 256]);

/// Lane masks of 4 64-bit lanes by bit pattern.
#[repr(C, align(32))]
struct Mask64([[i64; 4]; 16]);

static MASK32: Mask32 = {
    let mut t = [[0i32; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut j = 0;
        while j < 8 {
            t[b][j] = if b >> j & 1 != 0 { -1 } else { 0 };
            j += 1;
        }
        b += 1;
    }
    Mask32(t)
};

static MASK64: Mask64 = {
    let mut t = [[0i64; 4]; 16];
    let mut b = 0;
    while b < 16 {
        let mut j = 0;
        while j < 4 {
            t[b][j] = if b >> j & 1 != 0 { -1 } else { 0 };
            j += 1;
        }
        b += 1;
    }
    Mask64(t)
};

/// All bits at or below the highest set bit of `x` (`x < 256`).
const fn smear(x: u32) -> u32 {
    let x = x | x >> 1;
    let x = x | x >> 2;
    x | x >> 4
}

/// For each head pattern `m` of a `w`-lane vector, the bit patterns of the masks one
/// block of the backward segmented sum uses (`seg_sum_block`), so that a block costs one
/// row lookup instead of some thirty scalar instructions of mask arithmetic:
/// `[stops, stops | stops >> 1, low-half lanes that stay in the cross-half step, lanes
/// sealed from the carry, heads, lane 0 open (carry takes r[0]), carry passes through]`.
#[repr(C, align(8))]
struct SegRows([[u8; 8]; 256]);

const fn seg_rows(w: u32) -> SegRows {
    let mut t = [[0u8; 8]; 256];
    let full = (1u32 << w) - 1;
    let low = (1u32 << (w / 2)) - 1;
    let mut m = 0u32;
    while m <= full {
        let s = m >> 1;
        let (first_open, through) = if m & 1 != 0 { (0, 0) } else { (full, if s == 0 { full } else { 0 }) };
        t[m as usize] = [
            s as u8,
            (s | s >> 1) as u8,
            ((smear(s & low) | !low) & full) as u8,
            smear(s) as u8,
            m as u8,
            first_open as u8,
            through as u8,
            0,
        ];
        m += 1;
    }
    SegRows(t)
}

/// `seg_rows(4)` expanded to lane masks: row `m` holds the seven masks of the 4-lane
/// backward segmented sum (and a padding mask), so that each mask of `seg_sum_block` is
/// one memory operand at `m * 256 + k * 32`, with no row-then-mask double lookup (the
/// index arithmetic was most of a 64-bit block's instructions). 4 KiB.
#[repr(C, align(32))]
struct SegMasks64([[[i64; 4]; 8]; 16]);

static SEG_MASKS64: SegMasks64 = {
    let rows = seg_rows(4);
    let mut t = [[[0i64; 4]; 8]; 16];
    let mut m = 0;
    while m < 16 {
        let mut k = 0;
        while k < 8 {
            let mut j = 0;
            while j < 4 {
                t[m][k][j] = if rows.0[m][k] >> j & 1 != 0 { -1 } else { 0 };
                j += 1;
            }
            k += 1;
        }
        m += 1;
    }
    SegMasks64(t)
};

/// `seg_rows(8)` expanded to lane masks, as `SEG_MASKS64` for 8 lanes. 64 KiB: more
/// than L1 holds, but the loads are off the carry chain and hit L2 at worst.
#[repr(C, align(32))]
struct SegMasks32([[[i32; 8]; 8]; 256]);

static SEG_MASKS32: SegMasks32 = {
    let rows = seg_rows(8);
    let mut t = [[[0i32; 8]; 8]; 256];
    let mut m = 0;
    while m < 256 {
        let mut k = 0;
        while k < 8 {
            let mut j = 0;
            while j < 8 {
                t[m][k][j] = if rows.0[m][k] >> j & 1 != 0 { -1 } else { 0 };
                j += 1;
            }
            k += 1;
        }
        m += 1;
    }
    SegMasks32(t)
};

/// As `SegRows` for one block of the forward segmented scan (`seg_scan_block`):
/// `[heads, heads | heads << 1, lanes that stay in the cross-half step, lanes at or after
/// the first head, non-heads, carry passes through]`.
static SCAN_ROWS32: SegRows = scan_rows(8);
static SCAN_ROWS64: SegRows = scan_rows(4);

const fn scan_rows(w: u32) -> SegRows {
    let mut t = [[0u8; 8]; 256];
    let full = (1u32 << w) - 1;
    let low = (1u32 << (w / 2)) - 1;
    let mut m = 0u32;
    while m <= full {
        let high = m & !low;
        t[m as usize] = [
            m as u8,
            ((m | m << 1) & full) as u8,
            ((high | high.wrapping_neg() | low) & full) as u8,
            ((m | m.wrapping_neg()) & full) as u8,
            (!m & full) as u8,
            if m == 0 { full as u8 } else { 0 },
            0,
            0,
        ];
        m += 1;
    }
    SegRows(t)
}

/// The lane mask of the low 8 bits of `bits` (32-bit lanes).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn mask32(bits: u32) -> __m256i {
    let row = &MASK32.0[(bits & 0xFF) as usize];
    // SAFETY: `row` is a 32-byte, 32-byte-aligned array (`Mask32` is `align(32)` and
    // each row is 32 bytes).
    unsafe { _mm256_load_si256(row.as_ptr().cast()) }
}

/// The lane mask of the low 4 bits of `bits` (64-bit lanes).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn mask64(bits: u32) -> __m256i {
    let row = &MASK64.0[(bits & 0xF) as usize];
    // SAFETY: as in `mask32`.
    unsafe { _mm256_load_si256(row.as_ptr().cast()) }
}

/// Mask `k` of `seg_rows(8)`'s row for the head pattern `m`, read directly from
/// `SEG_MASKS32` (32-bit lanes).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn sum_mask32(m: u32, k: usize) -> __m256i {
    let mask = &SEG_MASKS32.0[(m & 0xFF) as usize][k];
    // SAFETY: as in `sum_mask64`.
    unsafe { _mm256_load_si256(mask.as_ptr().cast()) }
}

/// Mask `k` of `seg_rows(4)`'s row for the head pattern `m`, read directly from
/// `SEG_MASKS64` (64-bit lanes).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn sum_mask64(m: u32, k: usize) -> __m256i {
    let mask = &SEG_MASKS64.0[(m & 0xF) as usize][k];
    // SAFETY: `mask` is a 32-byte, 32-byte-aligned array (`SegMasks64` is `align(32)`
    // and each mask is 32 bytes).
    unsafe { _mm256_load_si256(mask.as_ptr().cast()) }
}

/// `a` in 32-bit lanes whose bit in `bits` is set, `b` elsewhere.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn sel32(bits: u32, a: __m256i, b: __m256i) -> __m256i {
    let m = mask32(bits);
    _mm256_castps_si256(_mm256_blendv_ps(
        _mm256_castsi256_ps(b),
        _mm256_castsi256_ps(a),
        _mm256_castsi256_ps(m),
    ))
}

/// `a` in 64-bit lanes whose bit in `bits` is set, `b` elsewhere.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn sel64(bits: u32, a: __m256i, b: __m256i) -> __m256i {
    let m = mask64(bits);
    _mm256_castpd_si256(_mm256_blendv_pd(
        _mm256_castsi256_pd(b),
        _mm256_castsi256_pd(a),
        _mm256_castsi256_pd(m),
    ))
}

/// Lane indices `i + j + seg_offset[j]` (wrapping), clamped to `last`: 8 lanes.
///
/// # Safety
/// AVX2 is present; `seg_offset` is valid for reads of 8 `u32`s; `i, last <= i32::MAX`.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn gather_idx8(seg_offset: *const u32, i: usize, last: usize) -> __m256i {
    // SAFETY: the caller guarantees 8 readable `u32`s (unaligned load).
    let off = unsafe { _mm256_loadu_si256(seg_offset.cast()) };
    let base = _mm256_add_epi32(_mm256_set1_epi32(i as i32), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm256_min_epu32(_mm256_add_epi32(base, off), _mm256_set1_epi32(last as i32))
}

/// As `gather_idx8` for 4 lanes.
///
/// # Safety
/// AVX2 is present; `seg_offset` is valid for reads of 4 `u32`s; `i, last <= i32::MAX`.
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn gather_idx4(seg_offset: *const u32, i: usize, last: usize) -> __m128i {
    // SAFETY: the caller guarantees 4 readable `u32`s (unaligned load).
    let off = unsafe { _mm_loadu_si128(seg_offset.cast()) };
    let base = _mm_add_epi32(_mm_set1_epi32(i as i32), _mm_setr_epi32(0, 1, 2, 3));
    _mm_min_epu32(_mm_add_epi32(base, off), _mm_set1_epi32(last as i32))
}

/// Sum of the lanes in lane order (once per `reduce`, so a spill is fine).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn hsum_lanes<T: Elem, const W: usize>(v: __m256i) -> T {
    let mut lanes = [T::ZERO; W];
    if core::mem::size_of_val(&lanes) == 32 {
        // SAFETY: `lanes` is 32 bytes (checked), as is `__m256i`; every bit pattern is a
        // valid u32/u64/f32/f64, the only `T`s used here.
        unsafe { core::ptr::write_unaligned(lanes.as_mut_ptr().cast::<__m256i>(), v) };
    }
    lanes.iter().fold(T::ZERO, |s, &x| s.add(x))
}

macro_rules! impl_simd {
    (
        $t:ty, lanes = $w:literal, shl = $shl:ident, shr = $shr:ident, sel = $sel:ident,
        half_shl = $hshl:ident, half_shr = $hshr:ident, lo_last = $lo_last:ident, hi_first = $hi_first:ident,
        mask = $mask:ident, sum_mask = $sum_mask:ident, scan_rows = $scan_rows:ident,
        add = |$aa:ident, $ab:ident| $add:expr,
        sub = |$sa:ident, $sb:ident| $sub:expr,
        splat = |$px:ident| $splat:expr,
        bcast_first = |$fv:ident| $bf:expr,
        bcast_last = |$lv:ident| $bl:expr,
        first = |$xv:ident| $first:expr,
        gather = |$gb:ident, $go:ident, $gi:ident, $gl:ident| $gather:expr,
        nonzero = |$np:ident| $nonzero:expr
    ) => {
        // Every method: the trait's contract says the features are present and the
        // pointers are valid for the `W` elements the method reads or writes.
        impl ScanVec for Avx2<$t> {
            type E = $t;
            type V = __m256i;
            const W: usize = $w;
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn loadu(p: *const $t) -> __m256i {
                // SAFETY: `p` is valid for reads of 32 bytes (contract); unaligned load.
                unsafe { _mm256_loadu_si256(p.cast()) }
            }
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn storeu(p: *mut $t, v: __m256i) {
                // SAFETY: `p` is valid for writes of 32 bytes (contract); unaligned store.
                unsafe { _mm256_storeu_si256(p.cast(), v) }
            }
            const STREAM: bool = true;
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn stream(p: *mut $t, v: __m256i) {
                // SAFETY: `p` is valid for writes of 32 bytes and 32-byte aligned
                // (contract), as `movntdq` requires.
                unsafe { _mm256_stream_si256(p.cast(), v) }
            }
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn fence() {
                crate::arch::store_fence()
            }
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn prefetch(p: *const u8) {
                // `prefetcht0` never faults, whatever the address.
                _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>())
            }
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn splat($px: $t) -> __m256i {
                $splat
            }
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn vadd($aa: __m256i, $ab: __m256i) -> __m256i {
                $add
            }
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn vsub($sa: __m256i, $sb: __m256i) -> __m256i {
                $sub
            }
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn shl(v: __m256i, fill: __m256i, d: u32) -> __m256i {
                $shl(v, fill, d)
            }
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn shr(v: __m256i, fill: __m256i, d: u32) -> __m256i {
                $shr(v, fill, d)
            }
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn select(bits: u32, a: __m256i, b: __m256i) -> __m256i {
                $sel(bits, a, b)
            }
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn keep(v: __m256i, bits: u32) -> __m256i {
                _mm256_and_si256(v, $mask(bits))
            }
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn add_where_clear(v: __m256i, c: __m256i, bits: u32) -> __m256i {
                // `v + (c & !mask)`: one `vpandn` instead of a three-uop `vblendv`. Lanes
                // whose bit is set compute `v + 0`, which is `v` (for floats, up to the
                // sign of a zero).
                // SAFETY: the features are present (the caller's contract).
                unsafe { Self::vadd(v, _mm256_andnot_si256($mask(bits), c)) }
            }
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn scan(mut v: __m256i) -> __m256i {
                // SAFETY: the features are present (the caller's contract).
                unsafe {
                    v = Self::vadd(v, $hshl(v, 1));
                    if $w == 8 {
                        v = Self::vadd(v, $hshl(v, 2));
                    }
                    // The high half adds the low half's total.
                    _mm256_blend_epi32::<0xF0>(v, Self::vadd(v, $lo_last(v)))
                }
            }
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn seg_scan(mut v: __m256i, heads: u32) -> __m256i {
                // SAFETY: the features are present (the caller's contract).
                unsafe {
                    // Alg. 11's steps inside each half (the shift brings 0 into a
                    // half's first lane, so it adds nothing there) ...
                    let mut f = heads;
                    v = Self::add_where_clear(v, $hshl(v, 1), f);
                    if $w == 8 {
                        f |= f << 1;
                        v = Self::add_where_clear(v, $hshl(v, 2), f);
                    }
                    // ... then the high half's lanes before its first head continue the
                    // low half's last segment; the low half stays.
                    let low = (1u32 << ($w / 2)) - 1;
                    let high = heads & !low;
                    Self::add_where_clear(v, $lo_last(v), high | high.wrapping_neg() | low)
                }
            }
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn rseg_scan(mut v: __m256i, stops: u32) -> __m256i {
                // SAFETY: the features are present (the caller's contract).
                unsafe {
                    let mut s = stops;
                    v = Self::add_where_clear(v, $hshr(v, 1), s);
                    if $w == 8 {
                        s |= s >> 1;
                        v = Self::add_where_clear(v, $hshr(v, 2), s);
                    }
                    // Low-half lanes with no stop from them to the half's end continue
                    // into the high half's first segment; the high half stays.
                    let low = (1u32 << ($w / 2)) - 1;
                    let lo = stops & low;
                    let sealed = if lo == 0 { 0 } else { u32::MAX >> lo.leading_zeros() };
                    Self::add_where_clear(v, $hi_first(v), sealed | !low)
                }
            }
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn seg_scan_block<const EXCL: bool>(
                x: __m256i,
                m: u32,
                carry: __m256i,
            ) -> (__m256i, __m256i) {
                // The default's steps (`seg_scan` and the carry), with every mask read
                // from the head pattern's row.
                let row = &$scan_rows.0[(m & ((1 << $w) - 1)) as usize];
                let mask = |k: usize| $mask(u32::from(row[k]));
                // SAFETY: the features are present (the caller's contract).
                unsafe {
                    let mut a = Self::vadd(x, _mm256_andnot_si256(mask(0), $hshl(x, 1)));
                    if $w == 8 {
                        a = Self::vadd(a, _mm256_andnot_si256(mask(1), $hshl(a, 2)));
                    }
                    a = Self::vadd(a, _mm256_andnot_si256(mask(2), $lo_last(a)));
                    let o = Self::vadd(a, _mm256_andnot_si256(mask(3), carry));
                    let out = if EXCL { _mm256_and_si256(Self::shift_in(o, carry), mask(4)) } else { o };
                    let c = Self::vadd(Self::bcast_last(a), _mm256_and_si256(carry, mask(5)));
                    (out, c)
                }
            }
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn seg_sum_block(x: __m256i, m: u32, carry: __m256i) -> (__m256i, __m256i) {
                // The default's steps (`rseg_scan` and the carry), with every mask read
                // from the head pattern's row.
                let mask = |k: usize| $sum_mask(m, k);
                // SAFETY: the features are present (the caller's contract).
                unsafe {
                    let mut r = Self::vadd(x, _mm256_andnot_si256(mask(0), $hshr(x, 1)));
                    if $w == 8 {
                        r = Self::vadd(r, _mm256_andnot_si256(mask(1), $hshr(r, 2)));
                    }
                    r = Self::vadd(r, _mm256_andnot_si256(mask(2), $hi_first(r)));
                    let o = Self::vadd(r, _mm256_andnot_si256(mask(3), carry));
                    let c = Self::vadd(
                        _mm256_and_si256(Self::bcast_first(r), mask(5)),
                        _mm256_and_si256(carry, mask(6)),
                    );
                    (_mm256_and_si256(o, mask(4)), c)
                }
            }
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn bcast_first($fv: __m256i) -> __m256i {
                $bf
            }
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn bcast_last($lv: __m256i) -> __m256i {
                $bl
            }
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn first($xv: __m256i) -> $t {
                $first
            }
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn hsum(v: __m256i) -> $t {
                hsum_lanes::<$t, $w>(v)
            }
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn nonzero_lanes($np: *const u32) -> u32 {
                // SAFETY: `seg_offset` holds `W` readable `u32`s (the contract).
                unsafe { $nonzero }
            }
            #[inline]
            #[target_feature(enable = "avx2,fma")]
            unsafe fn gather($gb: *const $t, $go: *const u32, $gi: usize, $gl: usize) -> __m256i {
                // SAFETY: the contract: `seg_offset` holds `W` readable `u32`s, `base` is
                // readable at `0..=last` (the indices are clamped to it), `i, last <=
                // i32::MAX`.
                unsafe { $gather }
            }
        }
    };
}

crate::arch::generic::scan::scan_entries!(Avx2, "avx2,fma");

impl_simd!(
    u32,
    lanes = 8,
    shl = shl32,
    shr = shr32,
    sel = sel32,
    half_shl = half_shl32,
    half_shr = half_shr32,
    lo_last = lo_last32,
    hi_first = hi_first32,
    mask = mask32,
    sum_mask = sum_mask32,
    scan_rows = SCAN_ROWS32,
    add = |a, b| _mm256_add_epi32(a, b),
    sub = |a, b| _mm256_sub_epi32(a, b),
    splat = |x| _mm256_set1_epi32(x as i32),
    bcast_first = |v| _mm256_broadcastd_epi32(_mm256_castsi256_si128(v)),
    bcast_last = |v| _mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(7)),
    first = |v| _mm_cvtsi128_si32(_mm256_castsi256_si128(v)) as u32,
    gather = |base, off, i, last| _mm256_i32gather_epi32::<4>(base.cast(), gather_idx8(off, i, last)),
    nonzero = |p| {
        let eq = _mm256_cmpeq_epi32(_mm256_loadu_si256(p.cast()), _mm256_setzero_si256());
        !(_mm256_movemask_ps(_mm256_castsi256_ps(eq)) as u32) & 0xFF
    }
);
impl_simd!(
    u64,
    lanes = 4,
    shl = shl64,
    shr = shr64,
    sel = sel64,
    half_shl = half_shl64,
    half_shr = half_shr64,
    lo_last = lo_last64,
    hi_first = hi_first64,
    mask = mask64,
    sum_mask = sum_mask64,
    scan_rows = SCAN_ROWS64,
    add = |a, b| _mm256_add_epi64(a, b),
    sub = |a, b| _mm256_sub_epi64(a, b),
    splat = |x| _mm256_set1_epi64x(x as i64),
    bcast_first = |v| _mm256_broadcastq_epi64(_mm256_castsi256_si128(v)),
    bcast_last = |v| _mm256_permute4x64_epi64::<0xFF>(v),
    first = |v| _mm_cvtsi128_si64(_mm256_castsi256_si128(v)) as u64,
    gather = |base, off, i, last| _mm256_i32gather_epi64::<8>(base.cast(), gather_idx4(off, i, last)),
    nonzero = |p| {
        let eq = _mm_cmpeq_epi32(_mm_loadu_si128(p.cast()), _mm_setzero_si128());
        !(_mm_movemask_ps(_mm_castsi128_ps(eq)) as u32) & 0xF
    }
);
impl_simd!(
    f32,
    lanes = 8,
    shl = shl32,
    shr = shr32,
    sel = sel32,
    half_shl = half_shl32,
    half_shr = half_shr32,
    lo_last = lo_last32,
    hi_first = hi_first32,
    mask = mask32,
    sum_mask = sum_mask32,
    scan_rows = SCAN_ROWS32,
    add = |a, b| _mm256_castps_si256(_mm256_add_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b))),
    sub = |a, b| _mm256_castps_si256(_mm256_sub_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b))),
    splat = |x| _mm256_castps_si256(_mm256_set1_ps(x)),
    bcast_first = |v| _mm256_broadcastd_epi32(_mm256_castsi256_si128(v)),
    bcast_last = |v| _mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(7)),
    first = |v| _mm256_cvtss_f32(_mm256_castsi256_ps(v)),
    gather =
        |base, off, i, last| _mm256_castps_si256(_mm256_i32gather_ps::<4>(base, gather_idx8(off, i, last))),
    nonzero = |p| {
        let eq = _mm256_cmpeq_epi32(_mm256_loadu_si256(p.cast()), _mm256_setzero_si256());
        !(_mm256_movemask_ps(_mm256_castsi256_ps(eq)) as u32) & 0xFF
    }
);
impl_simd!(
    f64,
    lanes = 4,
    shl = shl64,
    shr = shr64,
    sel = sel64,
    half_shl = half_shl64,
    half_shr = half_shr64,
    lo_last = lo_last64,
    hi_first = hi_first64,
    mask = mask64,
    sum_mask = sum_mask64,
    scan_rows = SCAN_ROWS64,
    add = |a, b| _mm256_castpd_si256(_mm256_add_pd(_mm256_castsi256_pd(a), _mm256_castsi256_pd(b))),
    sub = |a, b| _mm256_castpd_si256(_mm256_sub_pd(_mm256_castsi256_pd(a), _mm256_castsi256_pd(b))),
    splat = |x| _mm256_castpd_si256(_mm256_set1_pd(x)),
    bcast_first = |v| _mm256_broadcastq_epi64(_mm256_castsi256_si128(v)),
    bcast_last = |v| _mm256_permute4x64_epi64::<0xFF>(v),
    first = |v| _mm256_cvtsd_f64(_mm256_castsi256_pd(v)),
    gather =
        |base, off, i, last| _mm256_castpd_si256(_mm256_i32gather_pd::<8>(base, gather_idx4(off, i, last))),
    nonzero = |p| {
        let eq = _mm_cmpeq_epi32(_mm_loadu_si128(p.cast()), _mm_setzero_si128());
        !(_mm_movemask_ps(_mm_castsi128_ps(eq)) as u32) & 0xF
    }
);
