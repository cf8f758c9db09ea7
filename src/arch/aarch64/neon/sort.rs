//! `neon` sorting networks (thesis 4.5.2–4.5.3): the driver of
//! [`crate::arch::generic::sort`] on 128-bit registers.
//!
//! Lane steps are `tbl` byte shuffles by constant tables, selections `bsl`. 32-bit keys
//! use `umin`/`umax`; NEON has no 64-bit min/max, so 64-bit keys are ordered by `cmhi`
//! and `bsl`. A sort with one 64-bit and one 32-bit side holds 2 entries per register
//! pair, the 32-bit side in a 64-bit `d` register; the stay mask of a comparator step is
//! widened (`sxtl`) or narrowed (`xtn`) to the value side. Partial registers (the end of
//! an input) go through a small stack buffer.
//!
//! Blocks held in registers: 16 registers for keys alone (64 `u32`, 32 `u64`), 8 key and
//! 8 value registers for pairs (32 or 16 entries); NEON has 32.

use core::arch::aarch64::*;

use crate::arch::generic::sort::{self as net, Keys, Lanes, Mem, Pairs, Reg, Vals, pattern};

/// 4 lanes of 32 bits (`q`).
#[derive(Clone, Copy)]
pub(crate) struct Q32(uint32x4_t);

/// 2 lanes of 64 bits (`q`).
#[derive(Clone, Copy)]
pub(crate) struct Q64(uint64x2_t);

/// 2 lanes of 32 bits (`d`): the 32-bit side beside 64-bit lanes.
#[derive(Clone, Copy)]
pub(crate) struct D32(uint32x2_t);

/// `tbl` byte indices of a pattern on `lanes` lanes of `width` bytes (`N = lanes * width`).
const fn bytes<const N: usize>(kind: u8, a: usize, b: usize, lanes: usize, width: usize) -> [u8; N] {
    let p = pattern(kind, a, b, lanes);
    let mut out = [0u8; N];
    let mut i = 0;
    while i < N {
        out[i] = (p.idx[i / width] as usize * width + i % width) as u8;
        i += 1;
    }
    out
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

// SAFETY (all methods, this and every `Reg`/`Lanes`/`Vals` impl below): the traits'
// contract: the CPU has NEON. The only memory read is of the constant tables.
impl Reg for Q32 {
    const L: usize = 4;

    #[inline(always)]
    unsafe fn perm<const KIND: u8, const A: usize, const B: usize>(self) -> Self {
        let idx: &[u8; 16] = const { &bytes::<16>(KIND, A, B, 4, 4) };
        // SAFETY: see above.
        unsafe { Q32(vreinterpretq_u32_u8(vqtbl1q_u8(vreinterpretq_u8_u32(self.0), vld1q_u8(idx.as_ptr())))) }
    }
}

impl Lanes for Q32 {
    type Mask = uint32x4_t;

    #[inline(always)]
    unsafe fn lo_mask<const KIND: u8, const A: usize, const B: usize>() -> uint32x4_t {
        let m: &[u32; 4] = const { &lanes(pattern(KIND, A, B, 4).lo, u32::MAX, 0) };
        // SAFETY: see above.
        unsafe { vld1q_u32(m.as_ptr()) }
    }

    #[inline(always)]
    unsafe fn hi_mask<const KIND: u8, const A: usize, const B: usize>() -> uint32x4_t {
        let m: &[u32; 4] = const { &lanes(pattern(KIND, A, B, 4).hi, u32::MAX, 0) };
        // SAFETY: see above.
        unsafe { vld1q_u32(m.as_ptr()) }
    }

    #[inline(always)]
    unsafe fn eq(self, o: Self) -> uint32x4_t {
        // SAFETY: see above.
        unsafe { vceqq_u32(self.0, o.0) }
    }

    #[inline(always)]
    unsafe fn min(self, o: Self) -> Self {
        // SAFETY: see above.
        unsafe { Q32(vminq_u32(self.0, o.0)) }
    }

    #[inline(always)]
    unsafe fn max(self, o: Self) -> Self {
        // SAFETY: see above.
        unsafe { Q32(vmaxq_u32(self.0, o.0)) }
    }

    #[inline(always)]
    unsafe fn select(m: uint32x4_t, a: Self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { Q32(vbslq_u32(m, b.0, a.0)) }
    }
}

impl Vals<uint32x4_t> for Q32 {
    #[inline(always)]
    unsafe fn pick(m: uint32x4_t, a: Self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { Q32(vbslq_u32(m, b.0, a.0)) }
    }
}

impl Reg for Q64 {
    const L: usize = 2;

    #[inline(always)]
    unsafe fn perm<const KIND: u8, const A: usize, const B: usize>(self) -> Self {
        let idx: &[u8; 16] = const { &bytes::<16>(KIND, A, B, 2, 8) };
        // SAFETY: see above.
        unsafe { Q64(vreinterpretq_u64_u8(vqtbl1q_u8(vreinterpretq_u8_u64(self.0), vld1q_u8(idx.as_ptr())))) }
    }
}

impl Lanes for Q64 {
    type Mask = uint64x2_t;

    #[inline(always)]
    unsafe fn lo_mask<const KIND: u8, const A: usize, const B: usize>() -> uint64x2_t {
        let m: &[u64; 2] = const { &lanes(pattern(KIND, A, B, 2).lo, u64::MAX, 0) };
        // SAFETY: see above.
        unsafe { vld1q_u64(m.as_ptr()) }
    }

    #[inline(always)]
    unsafe fn hi_mask<const KIND: u8, const A: usize, const B: usize>() -> uint64x2_t {
        let m: &[u64; 2] = const { &lanes(pattern(KIND, A, B, 2).hi, u64::MAX, 0) };
        // SAFETY: see above.
        unsafe { vld1q_u64(m.as_ptr()) }
    }

    #[inline(always)]
    unsafe fn eq(self, o: Self) -> uint64x2_t {
        // SAFETY: see above.
        unsafe { vceqq_u64(self.0, o.0) }
    }

    #[inline(always)]
    unsafe fn min(self, o: Self) -> Self {
        // SAFETY: see above.
        unsafe { Q64(vbslq_u64(vcgtq_u64(self.0, o.0), o.0, self.0)) }
    }

    #[inline(always)]
    unsafe fn max(self, o: Self) -> Self {
        // SAFETY: see above.
        unsafe { Q64(vbslq_u64(vcgtq_u64(self.0, o.0), self.0, o.0)) }
    }

    #[inline(always)]
    unsafe fn select(m: uint64x2_t, a: Self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { Q64(vbslq_u64(m, b.0, a.0)) }
    }
}

impl Vals<uint64x2_t> for Q64 {
    #[inline(always)]
    unsafe fn pick(m: uint64x2_t, a: Self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { Q64(vbslq_u64(m, b.0, a.0)) }
    }
}

/// Values beside 32-bit keys: sign-extend the 2 lanes of the key mask.
impl Vals<uint32x2_t> for Q64 {
    #[inline(always)]
    unsafe fn pick(m: uint32x2_t, a: Self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe {
            let wide = vreinterpretq_u64_s64(vmovl_s32(vreinterpret_s32_u32(m)));
            Q64(vbslq_u64(wide, b.0, a.0))
        }
    }
}

impl Reg for D32 {
    const L: usize = 2;

    #[inline(always)]
    unsafe fn perm<const KIND: u8, const A: usize, const B: usize>(self) -> Self {
        let idx: &[u8; 8] = const { &bytes::<8>(KIND, A, B, 2, 4) };
        // SAFETY: see above.
        unsafe { D32(vreinterpret_u32_u8(vtbl1_u8(vreinterpret_u8_u32(self.0), vld1_u8(idx.as_ptr())))) }
    }
}

impl Lanes for D32 {
    type Mask = uint32x2_t;

    #[inline(always)]
    unsafe fn lo_mask<const KIND: u8, const A: usize, const B: usize>() -> uint32x2_t {
        let m: &[u32; 2] = const { &lanes(pattern(KIND, A, B, 2).lo, u32::MAX, 0) };
        // SAFETY: see above.
        unsafe { vld1_u32(m.as_ptr()) }
    }

    #[inline(always)]
    unsafe fn hi_mask<const KIND: u8, const A: usize, const B: usize>() -> uint32x2_t {
        let m: &[u32; 2] = const { &lanes(pattern(KIND, A, B, 2).hi, u32::MAX, 0) };
        // SAFETY: see above.
        unsafe { vld1_u32(m.as_ptr()) }
    }

    #[inline(always)]
    unsafe fn eq(self, o: Self) -> uint32x2_t {
        // SAFETY: see above.
        unsafe { vceq_u32(self.0, o.0) }
    }

    #[inline(always)]
    unsafe fn min(self, o: Self) -> Self {
        // SAFETY: see above.
        unsafe { D32(vmin_u32(self.0, o.0)) }
    }

    #[inline(always)]
    unsafe fn max(self, o: Self) -> Self {
        // SAFETY: see above.
        unsafe { D32(vmax_u32(self.0, o.0)) }
    }

    #[inline(always)]
    unsafe fn select(m: uint32x2_t, a: Self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { D32(vbsl_u32(m, b.0, a.0)) }
    }
}

impl Vals<uint32x2_t> for D32 {
    #[inline(always)]
    unsafe fn pick(m: uint32x2_t, a: Self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { D32(vbsl_u32(m, b.0, a.0)) }
    }
}

/// Values beside 64-bit keys: narrow the 2 lanes of the key mask.
impl Vals<uint64x2_t> for D32 {
    #[inline(always)]
    unsafe fn pick(m: uint64x2_t, a: Self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { D32(vbsl_u32(vmovn_u64(m), b.0, a.0)) }
    }
}

/// Memory words of one register type (keys and values alike; NEON compares unsigned, so
/// keys need no other form). Partial loads and stores keep `Mem`'s buffered defaults.
macro_rules! mem {
    ($t:ident, $word:ty, $load:ident, $store:ident) => {
        // SAFETY (all methods): `Mem`'s contract: NEON and `p` valid for `L` words.
        impl Mem<$t> for $word {
            #[inline(always)]
            unsafe fn load_key(p: *const $word) -> $t {
                // SAFETY: see the impl.
                unsafe { $t($load(p)) }
            }

            #[inline(always)]
            unsafe fn store_key(w: $t, p: *mut $word) {
                // SAFETY: see the impl.
                unsafe { $store(p, w.0) }
            }

            #[inline(always)]
            unsafe fn load_val(p: *const $word) -> $t {
                // SAFETY: see the impl.
                unsafe { $t($load(p)) }
            }

            #[inline(always)]
            unsafe fn store_val(w: $t, p: *mut $word) {
                // SAFETY: see the impl.
                unsafe { $store(p, w.0) }
            }
        }
    };
}

mem!(Q32, u32, vld1q_u32, vst1q_u32);
mem!(Q64, u64, vld1q_u64, vst1q_u64);
mem!(D32, u32, vld1_u32, vst1_u32);

/// Registers per block: keys alone, and pairs (key and value registers each).
const R_KEYS: usize = 16;
const R_PAIRS: usize = 8;

macro_rules! entries {
    ($($name:ident, $net:ident, $r:ident: $unit:ty, ($($k:ident: $kt:ty),*), $v:expr;)*) => {$(
        /// The sorting network on this width's registers.
        ///
        /// # Safety
        /// The CPU supports NEON.
        #[target_feature(enable = "neon")]
        pub(crate) unsafe fn $name($($k: &mut [$kt]),*) {
            let (kp, vp, n) = $v;
            // SAFETY: the CPU supports the features (the caller's promise: it holds a
            // `Checked` for this width); `kp` and `vp` point to `n` entries each.
            unsafe { net::$net::<$unit, $r>(kp, vp, n) }
        }
    )*};
}

entries! {
    bitonic_u32, bitonic, R_KEYS: Keys<Q32, u32>, (keys: u32),
        (keys.as_mut_ptr(), net::no_vals(), keys.len());
    bitonic_u64, bitonic, R_KEYS: Keys<Q64, u64>, (keys: u64),
        (keys.as_mut_ptr(), net::no_vals(), keys.len());
    odd_even_u32, odd_even, R_KEYS: Keys<Q32, u32>, (keys: u32),
        (keys.as_mut_ptr(), net::no_vals(), keys.len());
    odd_even_u64, odd_even, R_KEYS: Keys<Q64, u64>, (keys: u64),
        (keys.as_mut_ptr(), net::no_vals(), keys.len());
    bitonic_u32_u32, bitonic, R_PAIRS: Pairs<Q32, Q32, u32, u32>, (keys: u32, vals: u32),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
    bitonic_u32_u64, bitonic, R_PAIRS: Pairs<D32, Q64, u32, u64>, (keys: u32, vals: u64),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
    bitonic_u64_u32, bitonic, R_PAIRS: Pairs<Q64, D32, u64, u32>, (keys: u64, vals: u32),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
    bitonic_u64_u64, bitonic, R_PAIRS: Pairs<Q64, Q64, u64, u64>, (keys: u64, vals: u64),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
    odd_even_u32_u32, odd_even, R_PAIRS: Pairs<Q32, Q32, u32, u32>, (keys: u32, vals: u32),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
    odd_even_u32_u64, odd_even, R_PAIRS: Pairs<D32, Q64, u32, u64>, (keys: u32, vals: u64),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
    odd_even_u64_u32, odd_even, R_PAIRS: Pairs<Q64, D32, u64, u32>, (keys: u64, vals: u32),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
    odd_even_u64_u64, odd_even, R_PAIRS: Pairs<Q64, Q64, u64, u64>, (keys: u64, vals: u64),
        (keys.as_mut_ptr(), vals.as_mut_ptr(), keys.len().min(vals.len()));
}
