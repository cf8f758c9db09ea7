//! The WebAssembly SIMD CSR5 tile kernel (thesis 8.5, Alg. 32): the shared tile loop of
//! `arch::generic::spmv_csr5` over `v128` registers — 2 `f64` or 4 `f32` lanes, one, two
//! or four registers per step (`omega` = 2 / 4, 4 / 8 or 8 / 16; `omega_for` picks two).
//! `simd128` has no gather and no fused multiply-add: `x` is put together lane by lane
//! (`replace_lane`), and a step multiplies, then adds.
//!
//! Built only with `-C target-feature=+simd128`, which the whole module then has: the
//! functions need no `#[target_feature]` and are safe to call whenever they compile.

use crate::arch::generic::spmv_csr5::{Lanes, Pair};
use core::arch::wasm32::*;

/// Two `f64` lanes.
#[derive(Clone, Copy)]
pub(crate) struct F64x2(v128);

/// Four `f32` lanes.
#[derive(Clone, Copy)]
pub(crate) struct F32x4(v128);

/// Bit `i` of `words[i]` at step `j`, for 4 words: each word's bit `j` shifted to the
/// top of its lane, then one `bitmask`.
///
/// # Safety
/// `words` is valid for 4 reads.
#[inline(always)]
unsafe fn heads4(words: *const u32, j: u32) -> u32 {
    // SAFETY: the caller's contract; `v128_load` needs no alignment.
    let w = unsafe { v128_load(words.cast()) };
    u32::from(i32x4_bitmask(i32x4_shl(w, 31 - j)))
}

/// As [`heads4`] for 2 words.
///
/// # Safety
/// `words` is valid for 2 reads.
#[inline(always)]
unsafe fn heads2(words: *const u32, j: u32) -> u32 {
    // SAFETY: the caller's contract: two words, read as one 64-bit lane.
    let w = unsafe { v128_load64_zero(words.cast()) };
    u32::from(i32x4_bitmask(i32x4_shl(w, 31 - j))) & 0b11
}

/// All-ones in the 32-bit lanes whose bit is set in `mask`.
#[inline(always)]
fn mask32(mask: u32) -> v128 {
    u32x4_ne(v128_and(u32x4_splat(mask), u32x4(1, 2, 4, 8)), u32x4_splat(0))
}

/// All-ones in the 64-bit lanes whose bit is set in `mask`.
#[inline(always)]
fn mask64(mask: u32) -> v128 {
    i64x2_ne(v128_and(u64x2_splat(u64::from(mask)), u64x2(1, 2)), u64x2_splat(0))
}

macro_rules! f64x2_lanes {
    ($i:ty) => {
        impl Lanes<f64, $i> for F64x2 {
            const W: usize = 2;
            type Slots = ();
            unsafe fn slots(_p: *const u32) {}
            const RUN_CHAINS: usize = 2;
            #[inline(always)]
            unsafe fn load(p: *const f64) -> Self {
                // SAFETY: `p` is valid for 2 reads (trait contract); `v128_load` needs no
                // alignment.
                F64x2(unsafe { v128_load(p.cast()) })
            }
            #[inline(always)]
            unsafe fn gather(x: *const f64, idx: *const $i) -> Self {
                // SAFETY: `idx` is valid for 2 reads and each index is inside `x`.
                unsafe { F64x2(f64x2(*x.add(*idx as usize), *x.add(*idx.add(1) as usize))) }
            }
            #[inline(always)]
            unsafe fn fma(self, a: Self, b: Self) -> Self {
                F64x2(f64x2_add(self.0, f64x2_mul(a.0, b.0)))
            }
            #[inline(always)]
            unsafe fn add(self, o: Self) -> Self {
                F64x2(f64x2_add(self.0, o.0))
            }
            #[inline(always)]
            unsafe fn lane0(v: f64) -> Self {
                F64x2(f64x2(v, 0.0))
            }
            #[inline(always)]
            unsafe fn clear(self, mask: u32) -> Self {
                F64x2(v128_andnot(self.0, mask64(mask)))
            }
            #[inline(always)]
            unsafe fn store(self, out: *mut f64) {
                // SAFETY: `out` is valid for 2 writes (trait contract).
                unsafe { v128_store(out.cast(), self.0) }
            }
            #[inline(always)]
            unsafe fn heads(words: *const u32, j: u32) -> u32 {
                // SAFETY: the trait contract.
                unsafe { heads2(words, j) }
            }
        }
    };
}

macro_rules! f32x4_lanes {
    ($i:ty) => {
        impl Lanes<f32, $i> for F32x4 {
            const W: usize = 4;
            type Slots = ();
            unsafe fn slots(_p: *const u32) {}
            const RUN_CHAINS: usize = 2;
            #[inline(always)]
            unsafe fn load(p: *const f32) -> Self {
                // SAFETY: `p` is valid for 4 reads (trait contract).
                F32x4(unsafe { v128_load(p.cast()) })
            }
            #[inline(always)]
            unsafe fn gather(x: *const f32, idx: *const $i) -> Self {
                // SAFETY: `idx` is valid for 4 reads and each index is inside `x`.
                unsafe {
                    F32x4(f32x4(
                        *x.add(*idx as usize),
                        *x.add(*idx.add(1) as usize),
                        *x.add(*idx.add(2) as usize),
                        *x.add(*idx.add(3) as usize),
                    ))
                }
            }
            #[inline(always)]
            unsafe fn fma(self, a: Self, b: Self) -> Self {
                F32x4(f32x4_add(self.0, f32x4_mul(a.0, b.0)))
            }
            #[inline(always)]
            unsafe fn add(self, o: Self) -> Self {
                F32x4(f32x4_add(self.0, o.0))
            }
            #[inline(always)]
            unsafe fn lane0(v: f32) -> Self {
                F32x4(f32x4(v, 0.0, 0.0, 0.0))
            }
            #[inline(always)]
            unsafe fn clear(self, mask: u32) -> Self {
                F32x4(v128_andnot(self.0, mask32(mask)))
            }
            #[inline(always)]
            unsafe fn store(self, out: *mut f32) {
                // SAFETY: `out` is valid for 4 writes (trait contract).
                unsafe { v128_store(out.cast(), self.0) }
            }
            #[inline(always)]
            unsafe fn heads(words: *const u32, j: u32) -> u32 {
                // SAFETY: the trait contract.
                unsafe { heads4(words, j) }
            }
        }
    };
}

f64x2_lanes!(u32);
f64x2_lanes!(u64);
f32x4_lanes!(u32);
f32x4_lanes!(u64);

crate::arch::generic::spmv_csr5::tiles_128!(crate::Isa::Wasm128);
