//! `avx2` sorting networks (thesis 4.5.2–4.5.3): the driver of
//! [`crate::arch::generic::sort`] on 256-bit registers.
//!
//! Lane steps are `vpermd` by constant index vectors (64-bit lanes move as pairs of
//! 32-bit ones; LLVM turns the in-lane ones into `vpshufd`), selections `vpblendvb`.
//! 32-bit keys use the unsigned `vpminud`/`vpmaxud`. AVX2 has no 64-bit min/max and
//! compares 64-bit words only signed, so 64-bit keys are held with the sign bit flipped
//! (flipped on load, back on store) and ordered by `vpcmpgtq`. A sort with one 64-bit and
//! one 32-bit side holds 4 entries per register pair, the 32-bit side in an `xmm`; the
//! stay mask of a comparator step is widened (`vpmovsxdq`) or narrowed (`vpermd`) to the
//! value side.
//!
//! Blocks held in registers: 8 registers for keys alone (64 `u32`, 32 `u64`), 4 key and 4
//! value registers for pairs (32 or 16 entries); AVX2 has 16.

use core::arch::x86_64::*;

use super::{mask32x4, mask32x8, mask64};

use crate::arch::generic::sort::{self as net, Keys, Lanes, Mem, Pairs, Reg, Vals, pattern};

/// 8 lanes of 32 bits (`ymm`).
#[derive(Clone, Copy)]
pub(crate) struct Y32(__m256i);

/// 4 lanes of 64 bits (`ymm`); keys held with the sign bit flipped.
#[derive(Clone, Copy)]
pub(crate) struct Y64(__m256i);

/// 4 lanes of 32 bits (`xmm`): the 32-bit side beside 64-bit lanes.
#[derive(Clone, Copy)]
pub(crate) struct X32(__m128i);

/// `vpermd` indices of a pattern on 8 lanes of 32 bits.
const fn idx32(kind: u8, a: usize, b: usize) -> [u32; 8] {
    let p = pattern(kind, a, b, 8);
    let mut out = [0u32; 8];
    let mut i = 0;
    while i < 8 {
        out[i] = p.idx[i] as u32;
        i += 1;
    }
    out
}

/// `vpermd` indices of a pattern on 4 lanes of 64 bits: lane `x` is 32-bit lanes `2x`,
/// `2x + 1`.
const fn idx64(kind: u8, a: usize, b: usize) -> [u32; 8] {
    let p = pattern(kind, a, b, 4);
    let mut out = [0u32; 8];
    let mut i = 0;
    while i < 4 {
        out[2 * i] = 2 * p.idx[i] as u32;
        out[2 * i + 1] = 2 * p.idx[i] as u32 + 1;
        i += 1;
    }
    out
}

/// `vpermilps` indices of a pattern on 4 lanes of 32 bits.
const fn idx32x4(kind: u8, a: usize, b: usize) -> [u32; 4] {
    let p = pattern(kind, a, b, 4);
    [p.idx[0] as u32, p.idx[1] as u32, p.idx[2] as u32, p.idx[3] as u32]
}

/// A lane bit mask as `L` all-ones / all-zeros words of `T`.
const fn lanes<T: Copy, const L: usize>(bits: u32, ones: T, zero: T) -> [T; L] {
    let mut out = [zero; L];
    let mut i = 0;
    while i < L {
        if bits & (1 << i) != 0 {
            out[i] = ones;
        }
        i += 1;
    }
    out
}

const SIGN64: i64 = i64::MIN;

// SAFETY (all methods, this and every `Reg`/`Lanes`/`Vals` impl below): the traits'
// contract: the CPU has AVX2. The only memory read is of the constant tables.
impl Reg for Y32 {
    const L: usize = 8;

    #[inline(always)]
    unsafe fn perm<const KIND: u8, const A: usize, const B: usize>(self) -> Self {
        let idx: &[u32; 8] = const { &idx32(KIND, A, B) };
        // SAFETY: see above.
        unsafe { Y32(_mm256_permutevar8x32_epi32(self.0, _mm256_loadu_si256(idx.as_ptr().cast()))) }
    }
}

impl Lanes for Y32 {
    type Mask = __m256i;

    #[inline(always)]
    unsafe fn lo_mask<const KIND: u8, const A: usize, const B: usize>() -> __m256i {
        let m: &[u32; 8] = const { &lanes(pattern(KIND, A, B, 8).lo, u32::MAX, 0) };
        // SAFETY: see above.
        unsafe { _mm256_loadu_si256(m.as_ptr().cast()) }
    }

    #[inline(always)]
    unsafe fn hi_mask<const KIND: u8, const A: usize, const B: usize>() -> __m256i {
        let m: &[u32; 8] = const { &lanes(pattern(KIND, A, B, 8).hi, u32::MAX, 0) };
        // SAFETY: see above.
        unsafe { _mm256_loadu_si256(m.as_ptr().cast()) }
    }

    #[inline(always)]
    unsafe fn eq(self, o: Self) -> __m256i {
        // SAFETY: see above.
        unsafe { _mm256_cmpeq_epi32(self.0, o.0) }
    }

    #[inline(always)]
    unsafe fn min(self, o: Self) -> Self {
        // SAFETY: see above.
        unsafe { Y32(_mm256_min_epu32(self.0, o.0)) }
    }

    #[inline(always)]
    unsafe fn max(self, o: Self) -> Self {
        // SAFETY: see above.
        unsafe { Y32(_mm256_max_epu32(self.0, o.0)) }
    }

    #[inline(always)]
    unsafe fn select(m: __m256i, a: Self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { Y32(_mm256_blendv_epi8(a.0, b.0, m)) }
    }
}

impl Vals<__m256i> for Y32 {
    #[inline(always)]
    unsafe fn pick(m: __m256i, a: Self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { Y32(_mm256_blendv_epi8(a.0, b.0, m)) }
    }
}

impl Reg for Y64 {
    const L: usize = 4;

    #[inline(always)]
    unsafe fn perm<const KIND: u8, const A: usize, const B: usize>(self) -> Self {
        let idx: &[u32; 8] = const { &idx64(KIND, A, B) };
        // SAFETY: see above.
        unsafe { Y64(_mm256_permutevar8x32_epi32(self.0, _mm256_loadu_si256(idx.as_ptr().cast()))) }
    }
}

impl Lanes for Y64 {
    type Mask = __m256i;

    #[inline(always)]
    unsafe fn lo_mask<const KIND: u8, const A: usize, const B: usize>() -> __m256i {
        let m: &[u64; 4] = const { &lanes(pattern(KIND, A, B, 4).lo, u64::MAX, 0) };
        // SAFETY: see above.
        unsafe { _mm256_loadu_si256(m.as_ptr().cast()) }
    }

    #[inline(always)]
    unsafe fn hi_mask<const KIND: u8, const A: usize, const B: usize>() -> __m256i {
        let m: &[u64; 4] = const { &lanes(pattern(KIND, A, B, 4).hi, u64::MAX, 0) };
        // SAFETY: see above.
        unsafe { _mm256_loadu_si256(m.as_ptr().cast()) }
    }

    #[inline(always)]
    unsafe fn eq(self, o: Self) -> __m256i {
        // SAFETY: see above.
        unsafe { _mm256_cmpeq_epi64(self.0, o.0) }
    }

    #[inline(always)]
    unsafe fn min(self, o: Self) -> Self {
        // SAFETY: see above.
        unsafe { Y64(_mm256_blendv_epi8(self.0, o.0, _mm256_cmpgt_epi64(self.0, o.0))) }
    }

    #[inline(always)]
    unsafe fn max(self, o: Self) -> Self {
        // SAFETY: see above.
        unsafe { Y64(_mm256_blendv_epi8(o.0, self.0, _mm256_cmpgt_epi64(self.0, o.0))) }
    }

    #[inline(always)]
    unsafe fn select(m: __m256i, a: Self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { Y64(_mm256_blendv_epi8(a.0, b.0, m)) }
    }
}

impl Vals<__m256i> for Y64 {
    #[inline(always)]
    unsafe fn pick(m: __m256i, a: Self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { Y64(_mm256_blendv_epi8(a.0, b.0, m)) }
    }
}

/// Values beside 32-bit keys: widen the 4 lanes of the key mask.
impl Vals<__m128i> for Y64 {
    #[inline(always)]
    unsafe fn pick(m: __m128i, a: Self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { Y64(_mm256_blendv_epi8(a.0, b.0, _mm256_cvtepi32_epi64(m))) }
    }
}

impl Reg for X32 {
    const L: usize = 4;

    #[inline(always)]
    unsafe fn perm<const KIND: u8, const A: usize, const B: usize>(self) -> Self {
        let idx: &[u32; 4] = const { &idx32x4(KIND, A, B) };
        // SAFETY: see above.
        unsafe {
            let v = _mm_permutevar_ps(_mm_castsi128_ps(self.0), _mm_loadu_si128(idx.as_ptr().cast()));
            X32(_mm_castps_si128(v))
        }
    }
}

impl Lanes for X32 {
    type Mask = __m128i;

    #[inline(always)]
    unsafe fn lo_mask<const KIND: u8, const A: usize, const B: usize>() -> __m128i {
        let m: &[u32; 4] = const { &lanes(pattern(KIND, A, B, 4).lo, u32::MAX, 0) };
        // SAFETY: see above.
        unsafe { _mm_loadu_si128(m.as_ptr().cast()) }
    }

    #[inline(always)]
    unsafe fn hi_mask<const KIND: u8, const A: usize, const B: usize>() -> __m128i {
        let m: &[u32; 4] = const { &lanes(pattern(KIND, A, B, 4).hi, u32::MAX, 0) };
        // SAFETY: see above.
        unsafe { _mm_loadu_si128(m.as_ptr().cast()) }
    }

    #[inline(always)]
    unsafe fn eq(self, o: Self) -> __m128i {
        // SAFETY: see above.
        unsafe { _mm_cmpeq_epi32(self.0, o.0) }
    }

    #[inline(always)]
    unsafe fn min(self, o: Self) -> Self {
        // SAFETY: see above.
        unsafe { X32(_mm_min_epu32(self.0, o.0)) }
    }

    #[inline(always)]
    unsafe fn max(self, o: Self) -> Self {
        // SAFETY: see above.
        unsafe { X32(_mm_max_epu32(self.0, o.0)) }
    }

    #[inline(always)]
    unsafe fn select(m: __m128i, a: Self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { X32(_mm_blendv_epi8(a.0, b.0, m)) }
    }
}

impl Vals<__m128i> for X32 {
    #[inline(always)]
    unsafe fn pick(m: __m128i, a: Self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { X32(_mm_blendv_epi8(a.0, b.0, m)) }
    }
}

/// Values beside 64-bit keys: narrow the 4 lanes of the key mask.
impl Vals<__m256i> for X32 {
    #[inline(always)]
    unsafe fn pick(m: __m256i, a: Self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { X32(_mm_blendv_epi8(a.0, b.0, narrow(m))) }
    }
}

/// The low 32 bits of each 64-bit lane, packed into 128 bits.
///
/// # Safety
/// The CPU has AVX2.
#[inline(always)]
unsafe fn narrow(w: __m256i) -> __m128i {
    // SAFETY: AVX2 is the caller's guarantee.
    unsafe {
        _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(w, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)))
    }
}

// Partial loads and stores are `vpmaskmov`, which touches only the lanes of its mask (no
// fault beyond `len`); key lanes above `len` are set to all-ones, the largest key.

// SAFETY (all methods): `Mem`'s contract: AVX2 and `p` valid for 8 words (`len` for the
// partial forms).
impl Mem<Y32> for u32 {
    #[inline(always)]
    unsafe fn load_key(p: *const u32) -> Y32 {
        // SAFETY: see the impl.
        unsafe { Y32(_mm256_loadu_si256(p.cast())) }
    }

    #[inline(always)]
    unsafe fn store_key(w: Y32, p: *mut u32) {
        // SAFETY: see the impl.
        unsafe { _mm256_storeu_si256(p.cast(), w.0) }
    }

    #[inline(always)]
    unsafe fn load_val(p: *const u32) -> Y32 {
        // SAFETY: see the impl.
        unsafe { Y32(_mm256_loadu_si256(p.cast())) }
    }

    #[inline(always)]
    unsafe fn store_val(w: Y32, p: *mut u32) {
        // SAFETY: see the impl.
        unsafe { _mm256_storeu_si256(p.cast(), w.0) }
    }

    #[inline(always)]
    unsafe fn load_key_partial(p: *const u32, len: usize) -> Y32 {
        // SAFETY: see the impl.
        unsafe {
            let m = mask32x8(len);
            Y32(_mm256_or_si256(
                _mm256_maskload_epi32(p.cast(), m),
                _mm256_xor_si256(m, _mm256_set1_epi32(-1)),
            ))
        }
    }

    #[inline(always)]
    unsafe fn load_val_partial(p: *const u32, len: usize) -> Y32 {
        // SAFETY: see the impl.
        unsafe { Y32(_mm256_maskload_epi32(p.cast(), mask32x8(len))) }
    }

    #[inline(always)]
    unsafe fn store_key_partial(w: Y32, p: *mut u32, len: usize) {
        // SAFETY: see the impl.
        unsafe { _mm256_maskstore_epi32(p.cast(), mask32x8(len), w.0) }
    }

    #[inline(always)]
    unsafe fn store_val_partial(w: Y32, p: *mut u32, len: usize) {
        // SAFETY: see the impl.
        unsafe { _mm256_maskstore_epi32(p.cast(), mask32x8(len), w.0) }
    }
}

// SAFETY (all methods): `Mem`'s contract: AVX2 and `p` valid for 4 words (`len` for the
// partial forms).
impl Mem<Y64> for u64 {
    #[inline(always)]
    unsafe fn load_key(p: *const u64) -> Y64 {
        // SAFETY: see the impl.
        unsafe { Y64(_mm256_xor_si256(_mm256_loadu_si256(p.cast()), _mm256_set1_epi64x(SIGN64))) }
    }

    #[inline(always)]
    unsafe fn store_key(w: Y64, p: *mut u64) {
        // SAFETY: see the impl.
        unsafe { _mm256_storeu_si256(p.cast(), _mm256_xor_si256(w.0, _mm256_set1_epi64x(SIGN64))) }
    }

    #[inline(always)]
    unsafe fn load_val(p: *const u64) -> Y64 {
        // SAFETY: see the impl.
        unsafe { Y64(_mm256_loadu_si256(p.cast())) }
    }

    #[inline(always)]
    unsafe fn store_val(w: Y64, p: *mut u64) {
        // SAFETY: see the impl.
        unsafe { _mm256_storeu_si256(p.cast(), w.0) }
    }

    #[inline(always)]
    unsafe fn load_key_partial(p: *const u64, len: usize) -> Y64 {
        // SAFETY: see the impl.
        unsafe {
            let m = mask64(len);
            let raw = _mm256_or_si256(
                _mm256_maskload_epi64(p.cast(), m),
                _mm256_xor_si256(m, _mm256_set1_epi32(-1)),
            );
            Y64(_mm256_xor_si256(raw, _mm256_set1_epi64x(SIGN64)))
        }
    }

    #[inline(always)]
    unsafe fn load_val_partial(p: *const u64, len: usize) -> Y64 {
        // SAFETY: see the impl.
        unsafe { Y64(_mm256_maskload_epi64(p.cast(), mask64(len))) }
    }

    #[inline(always)]
    unsafe fn store_key_partial(w: Y64, p: *mut u64, len: usize) {
        // SAFETY: see the impl.
        unsafe {
            _mm256_maskstore_epi64(p.cast(), mask64(len), _mm256_xor_si256(w.0, _mm256_set1_epi64x(SIGN64)))
        }
    }

    #[inline(always)]
    unsafe fn store_val_partial(w: Y64, p: *mut u64, len: usize) {
        // SAFETY: see the impl.
        unsafe { _mm256_maskstore_epi64(p.cast(), mask64(len), w.0) }
    }
}

// SAFETY (all methods): `Mem`'s contract: AVX2 and `p` valid for 4 words (`len` for the
// partial forms).
impl Mem<X32> for u32 {
    #[inline(always)]
    unsafe fn load_key(p: *const u32) -> X32 {
        // SAFETY: see the impl.
        unsafe { X32(_mm_loadu_si128(p.cast())) }
    }

    #[inline(always)]
    unsafe fn store_key(w: X32, p: *mut u32) {
        // SAFETY: see the impl.
        unsafe { _mm_storeu_si128(p.cast(), w.0) }
    }

    #[inline(always)]
    unsafe fn load_val(p: *const u32) -> X32 {
        // SAFETY: see the impl.
        unsafe { X32(_mm_loadu_si128(p.cast())) }
    }

    #[inline(always)]
    unsafe fn store_val(w: X32, p: *mut u32) {
        // SAFETY: see the impl.
        unsafe { _mm_storeu_si128(p.cast(), w.0) }
    }

    #[inline(always)]
    unsafe fn load_key_partial(p: *const u32, len: usize) -> X32 {
        // SAFETY: see the impl.
        unsafe {
            let m = mask32x4(len);
            X32(_mm_or_si128(_mm_maskload_epi32(p.cast(), m), _mm_xor_si128(m, _mm_set1_epi32(-1))))
        }
    }

    #[inline(always)]
    unsafe fn load_val_partial(p: *const u32, len: usize) -> X32 {
        // SAFETY: see the impl.
        unsafe { X32(_mm_maskload_epi32(p.cast(), mask32x4(len))) }
    }

    #[inline(always)]
    unsafe fn store_key_partial(w: X32, p: *mut u32, len: usize) {
        // SAFETY: see the impl.
        unsafe { _mm_maskstore_epi32(p.cast(), mask32x4(len), w.0) }
    }

    #[inline(always)]
    unsafe fn store_val_partial(w: X32, p: *mut u32, len: usize) {
        // SAFETY: see the impl.
        unsafe { _mm_maskstore_epi32(p.cast(), mask32x4(len), w.0) }
    }
}

/// Registers per block: keys alone, and pairs (key and value registers each).
const R_KEYS: usize = 8;
const R_PAIRS: usize = 4;

macro_rules! entries {
    ($($name:ident, $net:ident, $r:ident: $unit:ty, ($($k:ident: $kt:ty),*), $v:expr;)*) => {$(
        /// The sorting network on this width's registers.
        ///
        /// # Safety
        /// The CPU supports AVX2 and FMA.
        #[target_feature(enable = "avx2,fma")]
        pub(crate) unsafe fn $name($($k: &mut [$kt]),*) {
            let (kp, vp, n) = $v;
            // SAFETY: the CPU supports the features (the caller's promise: it holds a
            // `Checked` for this width); `kp` and `vp` point to `n` entries each.
            unsafe { net::$net::<$unit, $r>(kp, vp, n) }
        }
    )*};
}

entries! {
    bitonic_u32, bitonic, R_KEYS: Keys<Y32, u32>, (keys: u32),
        (keys.as_mut_ptr(), net::no_vals(), keys.len());
    bitonic_u64, bitonic, R_KEYS: Keys<Y64, u64>, (keys: u64),
        (keys.as_mut_ptr(), net::no_vals(), keys.len());
    odd_even_u32, odd_even, R_KEYS: Keys<Y32, u32>, (keys: u32),
        (keys.as_mut_ptr(), net::no_vals(), keys.len());
    odd_even_u64, odd_even, R_KEYS: Keys<Y64, u64>, (keys: u64),
        (keys.as_mut_ptr(), net::no_vals(), keys.len());
    bitonic_u32_u32, bitonic, R_PAIRS: Pairs<Y32, Y32, u32, u32>, (keys: u32, vals: u32),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
    bitonic_u32_u64, bitonic, R_PAIRS: Pairs<X32, Y64, u32, u64>, (keys: u32, vals: u64),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
    bitonic_u64_u32, bitonic, R_PAIRS: Pairs<Y64, X32, u64, u32>, (keys: u64, vals: u32),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
    bitonic_u64_u64, bitonic, R_PAIRS: Pairs<Y64, Y64, u64, u64>, (keys: u64, vals: u64),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
    odd_even_u32_u32, odd_even, R_PAIRS: Pairs<Y32, Y32, u32, u32>, (keys: u32, vals: u32),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
    odd_even_u32_u64, odd_even, R_PAIRS: Pairs<X32, Y64, u32, u64>, (keys: u32, vals: u64),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
    odd_even_u64_u32, odd_even, R_PAIRS: Pairs<Y64, X32, u64, u32>, (keys: u64, vals: u32),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
    odd_even_u64_u64, odd_even, R_PAIRS: Pairs<Y64, Y64, u64, u64>, (keys: u64, vals: u64),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
}
