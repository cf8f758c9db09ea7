//! `avx512` sorting networks (thesis 4.5.2–4.5.3): the driver of
//! [`crate::arch::generic::sort`] on 512-bit registers.
//!
//! Keys are compared as unsigned words with the native `vpminu*`/`vpmaxu*`; lane steps
//! are `vpermd`/`vpermq` by constant index vectors (LLVM turns the in-lane ones into
//! immediate shuffles), selections are masked moves. 32-bit words sit 16 to a `zmm`; a
//! sort with one 64-bit and one 32-bit side holds 8 entries per register pair, the 32-bit
//! side in a `ymm` (AVX-512VL), so both share one `k` mask per comparator step.
//!
//! Blocks held in registers: 16 registers for keys alone (256 `u32`, 128 `u64`), 8 key
//! and 8 value registers for pairs (128 or 64 entries); AVX-512 has 32. Inputs of at most
//! 8 entries run in one `ymm` (the 16-lane network would do 10 steps for them, not 6).

use core::arch::x86_64::*;

use crate::arch::generic::sort::{self as net, Keys, Lanes, Mem, Pairs, Reg, Unit, Vals, pattern};

/// 16 lanes of 32 bits (`zmm`).
#[derive(Clone, Copy)]
pub(crate) struct Z32(__m512i);

/// 8 lanes of 64 bits (`zmm`).
#[derive(Clone, Copy)]
pub(crate) struct Z64(__m512i);

/// 8 lanes of 32 bits (`ymm`, with AVX-512VL's masks): 32-bit keys or values beside 64-bit
/// ones, and inputs of at most 8 entries.
#[derive(Clone, Copy)]
pub(crate) struct Y32(__m256i);

/// The `vpermq` indices of a pattern on `L` lanes.
const fn idx<const L: usize>(kind: u8, a: usize, b: usize) -> [u64; L] {
    let p = pattern(kind, a, b, L);
    let mut out = [0u64; L];
    let mut i = 0;
    while i < L {
        out[i] = p.idx[i] as u64;
        i += 1;
    }
    out
}

/// The `vpermd` indices of a pattern on `L` lanes.
const fn idx32<const L: usize>(kind: u8, a: usize, b: usize) -> [u32; L] {
    let wide = idx::<L>(kind, a, b);
    let mut out = [0u32; L];
    let mut i = 0;
    while i < L {
        out[i] = wide[i] as u32;
        i += 1;
    }
    out
}

/// One register type: lanes, mask, and the intrinsics of each operation.
macro_rules! reg {
    (
        $t:ident, $l:literal, $mask:ty, $word:ty, $idx:ident, $w64:literal,
        load = $load:ident, store = $store:ident, perm = $perm:ident, shuf = $shuf:ident, eq = $eq:ident,
        min = $min:ident, max = $max:ident, mov = $mov:ident,
        mload = $mload:ident, mzload = $mzload:ident, mstore = $mstore:ident, splat = $splat:expr,
    ) => {
        // SAFETY (all methods): the traits' contract: the CPU has AVX-512 F/VL/BW/DQ; the
        // only memory read here is of the constant index tables.
        impl Reg for $t {
            const L: usize = $l;

            #[inline(always)]
            unsafe fn perm<const KIND: u8, const A: usize, const B: usize>(self) -> Self {
                // In-lane patterns as `vpshufd` (1 cycle) rather than `vpermd` (3): a
                // block of 16 keys is one chain of 10 dependent steps.
                let shuf = const { in_lane(pattern(KIND, A, B, $l).idx, $l, $w64) };
                // SAFETY: see the impl.
                unsafe {
                    match shuf {
                        Some(0xB1) => $t($shuf::<0xB1>(self.0)),
                        Some(0x4E) => $t($shuf::<0x4E>(self.0)),
                        Some(0x1B) => $t($shuf::<0x1B>(self.0)),
                        _ => {
                            let idx: &[$word; $l] = const { &$idx::<$l>(KIND, A, B) };
                            $t($perm($load(idx.as_ptr().cast()), self.0))
                        }
                    }
                }
            }
        }

        // SAFETY (all methods): as for `Reg`.
        impl Lanes for $t {
            type Mask = $mask;

            #[inline(always)]
            unsafe fn lo_mask<const KIND: u8, const A: usize, const B: usize>() -> $mask {
                const { pattern(KIND, A, B, $l).lo as $mask }
            }

            #[inline(always)]
            unsafe fn hi_mask<const KIND: u8, const A: usize, const B: usize>() -> $mask {
                const { pattern(KIND, A, B, $l).hi as $mask }
            }

            #[inline(always)]
            unsafe fn eq(self, o: Self) -> $mask {
                // SAFETY: see the impl.
                unsafe { $eq(self.0, o.0) }
            }

            #[inline(always)]
            unsafe fn min(self, o: Self) -> Self {
                // SAFETY: see the impl.
                unsafe { $t($min(self.0, o.0)) }
            }

            #[inline(always)]
            unsafe fn max(self, o: Self) -> Self {
                // SAFETY: see the impl.
                unsafe { $t($max(self.0, o.0)) }
            }

            #[inline(always)]
            unsafe fn select(m: $mask, a: Self, b: Self) -> Self {
                // SAFETY: see the impl.
                unsafe { $t($mov(a.0, m, b.0)) }
            }
        }

        // SAFETY (all methods): as for `Reg`.
        impl Vals<$mask> for $t {
            #[inline(always)]
            unsafe fn pick(m: $mask, a: Self, b: Self) -> Self {
                // SAFETY: see the impl.
                unsafe { $t($mov(a.0, m, b.0)) }
            }
        }

        // SAFETY (all methods): `Mem`'s contract: AVX-512 F/VL/BW/DQ and `p` valid for
        // `L` words (`len` for the partial forms, whose masks cover just those: masked
        // lanes are never touched).
        impl Mem<$t> for $word {
            #[inline(always)]
            unsafe fn load_key(p: *const $word) -> $t {
                // SAFETY: see the impl.
                unsafe { $t($load(p.cast())) }
            }

            #[inline(always)]
            unsafe fn store_key(w: $t, p: *mut $word) {
                // SAFETY: see the impl.
                unsafe { $store(p.cast(), w.0) }
            }

            #[inline(always)]
            unsafe fn load_val(p: *const $word) -> $t {
                // SAFETY: see the impl.
                unsafe { $t($load(p.cast())) }
            }

            #[inline(always)]
            unsafe fn store_val(w: $t, p: *mut $word) {
                // SAFETY: see the impl.
                unsafe { $store(p.cast(), w.0) }
            }

            #[inline(always)]
            unsafe fn load_key_partial(p: *const $word, len: usize) -> $t {
                // SAFETY: see the impl.
                unsafe { $t($mload($splat, first(len) as $mask, p.cast())) }
            }

            #[inline(always)]
            unsafe fn load_val_partial(p: *const $word, len: usize) -> $t {
                // SAFETY: see the impl.
                unsafe { $t($mzload(first(len) as $mask, p.cast())) }
            }

            #[inline(always)]
            unsafe fn store_key_partial(w: $t, p: *mut $word, len: usize) {
                // SAFETY: see the impl.
                unsafe { $mstore(p.cast(), first(len) as $mask, w.0) }
            }

            #[inline(always)]
            unsafe fn store_val_partial(w: $t, p: *mut $word, len: usize) {
                // SAFETY: see the impl.
                unsafe { $mstore(p.cast(), first(len) as $mask, w.0) }
            }
        }
    };
}

reg!(
    Z32,
    16,
    __mmask16,
    u32,
    idx32,
    false,
    load = _mm512_loadu_si512,
    store = _mm512_storeu_si512,
    perm = _mm512_permutexvar_epi32,
    shuf = _mm512_shuffle_epi32,
    eq = _mm512_cmpeq_epi32_mask,
    min = _mm512_min_epu32,
    max = _mm512_max_epu32,
    mov = _mm512_mask_mov_epi32,
    mload = _mm512_mask_loadu_epi32,
    mzload = _mm512_maskz_loadu_epi32,
    mstore = _mm512_mask_storeu_epi32,
    splat = _mm512_set1_epi32(-1),
);
reg!(
    Z64,
    8,
    __mmask8,
    u64,
    idx,
    true,
    load = _mm512_loadu_si512,
    store = _mm512_storeu_si512,
    perm = _mm512_permutexvar_epi64,
    shuf = _mm512_shuffle_epi32,
    eq = _mm512_cmpeq_epi64_mask,
    min = _mm512_min_epu64,
    max = _mm512_max_epu64,
    mov = _mm512_mask_mov_epi64,
    mload = _mm512_mask_loadu_epi64,
    mzload = _mm512_maskz_loadu_epi64,
    mstore = _mm512_mask_storeu_epi64,
    splat = _mm512_set1_epi64(-1),
);
reg!(
    Y32,
    8,
    __mmask8,
    u32,
    idx32,
    false,
    load = _mm256_loadu_si256,
    store = _mm256_storeu_si256,
    perm = _mm256_permutexvar_epi32,
    shuf = _mm256_shuffle_epi32,
    eq = _mm256_cmpeq_epi32_mask,
    min = _mm256_min_epu32,
    max = _mm256_max_epu32,
    mov = _mm256_mask_mov_epi32,
    mload = _mm256_mask_loadu_epi32,
    mzload = _mm256_maskz_loadu_epi32,
    mstore = _mm256_mask_storeu_epi32,
    splat = _mm256_set1_epi32(-1),
);

/// The `vpshufd` immediate (0xB1, 0x4E or 0x1B) that performs the permutation `idx` of `l`
/// lanes (64-bit lanes if `w64`), if it repeats within every 128 bits as one of those.
const fn in_lane(idx: [u8; 16], l: usize, w64: bool) -> Option<i32> {
    let per = if w64 { 2 } else { 4 };
    let mut local = [0usize; 4];
    let mut x = 0;
    while x < l {
        let base = x / per * per;
        let src = idx[x] as usize;
        if src < base || src >= base + per {
            return None;
        }
        let j = src - base;
        if x < per {
            local[x] = j;
        } else if local[x % per] != j {
            return None;
        }
        x += 1;
    }
    // As 32-bit lanes of one 128-bit block.
    let dw = if w64 {
        [2 * local[0], 2 * local[0] + 1, 2 * local[1], 2 * local[1] + 1]
    } else {
        [local[0], local[1], local[2], local[3]]
    };
    let imm = (dw[0] | dw[1] << 2 | dw[2] << 4 | dw[3] << 6) as i32;
    match imm {
        0xB1 | 0x4E | 0x1B => Some(imm),
        _ => None,
    }
}

/// The lowest `len` lanes as a bit mask (`len <= 16`).
#[inline(always)]
fn first(len: usize) -> u32 {
    (1u32 << len.min(16)) - 1
}

/// Registers per block: keys alone, and pairs (key and value registers each).
const R_KEYS: usize = 16;
const R_PAIRS: usize = 8;

macro_rules! entries {
    ($($name:ident, $net:ident, $r:ident: $unit:ty, $small:ty, ($($k:ident: $kt:ty),*), $v:expr;)*) => {$(
        /// The sorting network on this width's registers.
        ///
        /// # Safety
        /// The CPU supports AVX-512 F, VL, BW and DQ.
        #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq")]
        pub(crate) unsafe fn $name($($k: &mut [$kt]),*) {
            let (kp, vp, n) = $v;
            // SAFETY: the CPU supports the features (the caller's promise: it holds a
            // `Checked` for this width); `kp` and `vp` point to `n` entries each.
            // Both units run the same network (any unit does), so the result is the same.
            unsafe {
                if n <= <$small as Unit>::L {
                    net::$net::<$small, 1>(kp, vp, n)
                } else {
                    net::$net::<$unit, $r>(kp, vp, n)
                }
            }
        }
    )*};
}

entries! {
    bitonic_u32, bitonic, R_KEYS: Keys<Z32, u32>, Keys<Y32, u32>, (keys: u32),
        (keys.as_mut_ptr(), net::no_vals(), keys.len());
    bitonic_u64, bitonic, R_KEYS: Keys<Z64, u64>, Keys<Z64, u64>, (keys: u64),
        (keys.as_mut_ptr(), net::no_vals(), keys.len());
    odd_even_u32, odd_even, R_KEYS: Keys<Z32, u32>, Keys<Y32, u32>, (keys: u32),
        (keys.as_mut_ptr(), net::no_vals(), keys.len());
    odd_even_u64, odd_even, R_KEYS: Keys<Z64, u64>, Keys<Z64, u64>, (keys: u64),
        (keys.as_mut_ptr(), net::no_vals(), keys.len());
    bitonic_u32_u32, bitonic, R_PAIRS: Pairs<Z32, Z32, u32, u32>, Pairs<Y32, Y32, u32, u32>, (keys: u32, vals: u32),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
    bitonic_u32_u64, bitonic, R_PAIRS: Pairs<Y32, Z64, u32, u64>, Pairs<Y32, Z64, u32, u64>, (keys: u32, vals: u64),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
    bitonic_u64_u32, bitonic, R_PAIRS: Pairs<Z64, Y32, u64, u32>, Pairs<Z64, Y32, u64, u32>, (keys: u64, vals: u32),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
    bitonic_u64_u64, bitonic, R_PAIRS: Pairs<Z64, Z64, u64, u64>, Pairs<Z64, Z64, u64, u64>, (keys: u64, vals: u64),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
    odd_even_u32_u32, odd_even, R_PAIRS: Pairs<Z32, Z32, u32, u32>, Pairs<Y32, Y32, u32, u32>, (keys: u32, vals: u32),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
    odd_even_u32_u64, odd_even, R_PAIRS: Pairs<Y32, Z64, u32, u64>, Pairs<Y32, Z64, u32, u64>, (keys: u32, vals: u64),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
    odd_even_u64_u32, odd_even, R_PAIRS: Pairs<Z64, Y32, u64, u32>, Pairs<Z64, Y32, u64, u32>, (keys: u64, vals: u32),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
    odd_even_u64_u64, odd_even, R_PAIRS: Pairs<Z64, Z64, u64, u64>, Pairs<Z64, Z64, u64, u64>, (keys: u64, vals: u64),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
}
