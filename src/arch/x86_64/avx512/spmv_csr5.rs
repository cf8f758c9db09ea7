//! The AVX-512 (F, VL, DQ) CSR5 tile kernel (thesis 8.5, Alg. 32): the shared tile loop
//! of `arch::generic::spmv_csr5` over 512-bit registers — 8 `f64` or 16 `f32` lanes, so
//! `omega` = 8 / 16 — with hardware gathers, mask registers for the per-step heads
//! (`vptestmd`), zero-masking moves to restart the lanes that closed a segment, and
//! `vcompress` to append those segments to the tile's list (`Lanes::COMPRESS`).
//!
//! Or, where [`Gathers::current`] says so (where loads measured faster), a
//! scalar load per lane put together with `_mm512_set_*`: the same values.
//!
//! `f32` with `u32` columns uses the 32-bit gather, whose indices are signed: it runs only
//! when `x` has at most `2^31` entries (beyond, the portable kernel runs).

use core::arch::x86_64::*;
use core::ops::Range;

use bytemuck::{try_cast, try_cast_slice_mut};

use crate::arch::Checked;
use crate::arch::generic::spmv_csr5::{Lanes, TileArgs, recast, tile_entries};
use crate::{Gathers, Index, Isa, Scalar};

/// Eight `f64` lanes; `HW`: `x` is read by hardware gathers, else by a load per lane
/// ([`Gathers`]).
#[derive(Clone, Copy)]
pub(crate) struct F64x8<const HW: bool>(__m512d);

/// Sixteen `f32` lanes; `HW` as for [`F64x8`].
#[derive(Clone, Copy)]
pub(crate) struct F32x16<const HW: bool>(__m512);

macro_rules! f64x8_lanes {
    ($i:ty, $gather:expr) => {
        impl<const HW: bool> Lanes<f64, $i> for F64x8<HW> {
            const W: usize = 8;
            const COMPRESS: bool = true;
            const PREFETCH_X: bool = HW;
            type Slots = __m256i;
            #[inline(always)]
            unsafe fn slots(p: *const u32) -> __m256i {
                // SAFETY: `p` is valid for 8 reads (trait contract).
                unsafe { _mm256_loadu_si256(p.cast()) }
            }
            #[inline(always)]
            unsafe fn store_slots(s: __m256i, p: *mut u32) {
                // SAFETY: `p` is valid for 8 writes (trait contract).
                unsafe { _mm256_storeu_si256(p.cast(), s) }
            }
            #[inline(always)]
            unsafe fn compress(self, m: u32, s: &mut __m256i, vals: *mut f64, out: *mut u32) {
                // SAFETY: AVX-512F+VL; `vals` and `out` valid for 8 writes (trait contract).
                unsafe {
                    let k = m as u8;
                    _mm512_storeu_pd(vals, _mm512_maskz_compress_pd(k, self.0));
                    _mm256_storeu_si256(out.cast(), _mm256_maskz_compress_epi32(k, *s));
                    *s = _mm256_mask_add_epi32(*s, k, *s, _mm256_set1_epi32(1));
                }
            }
            #[inline(always)]
            unsafe fn load(p: *const f64) -> Self {
                // SAFETY: `p` is valid for 8 reads (trait contract).
                F64x8(unsafe { _mm512_loadu_pd(p) })
            }
            #[inline(always)]
            unsafe fn gather(x: *const f64, idx: *const $i) -> Self {
                // SAFETY: `idx` is valid for 8 reads and each index is inside `x`.
                F64x8(unsafe { if HW { $gather(x, idx) } else { loads8(x, idx) } })
            }
            #[inline(always)]
            unsafe fn fma(self, a: Self, b: Self) -> Self {
                // SAFETY: AVX-512F is present (trait contract).
                F64x8(unsafe { _mm512_fmadd_pd(a.0, b.0, self.0) })
            }
            #[inline(always)]
            unsafe fn add(self, o: Self) -> Self {
                // SAFETY: the width's features are present (trait contract).
                F64x8(unsafe { _mm512_add_pd(self.0, o.0) })
            }
            #[inline(always)]
            unsafe fn lane0(v: f64) -> Self {
                // SAFETY: AVX-512F is present (trait contract).
                F64x8(unsafe { _mm512_maskz_mov_pd(1, _mm512_set1_pd(v)) })
            }
            #[inline(always)]
            unsafe fn clear(self, mask: u32) -> Self {
                // SAFETY: AVX-512F is present (trait contract).
                F64x8(unsafe { _mm512_maskz_mov_pd(!(mask as u8), self.0) })
            }
            #[inline(always)]
            unsafe fn store(self, out: *mut f64) {
                // SAFETY: `out` is valid for 8 writes (trait contract).
                unsafe { _mm512_storeu_pd(out, self.0) }
            }
            #[inline(always)]
            unsafe fn heads(words: *const u32, j: u32) -> u32 {
                // SAFETY: `words` is valid for 8 reads (trait contract); AVX-512F+VL.
                unsafe {
                    _mm256_test_epi32_mask(_mm256_loadu_si256(words.cast()), _mm256_set1_epi32(1 << j)) as u32
                }
            }
        }
    };
}

macro_rules! f32x16_lanes {
    ($i:ty, $gather:expr) => {
        impl<const HW: bool> Lanes<f32, $i> for F32x16<HW> {
            const W: usize = 16;
            const COMPRESS: bool = true;
            const PREFETCH_X: bool = HW;
            type Slots = __m512i;
            #[inline(always)]
            unsafe fn slots(p: *const u32) -> __m512i {
                // SAFETY: `p` is valid for 16 reads (trait contract).
                unsafe { _mm512_loadu_si512(p.cast()) }
            }
            #[inline(always)]
            unsafe fn store_slots(s: __m512i, p: *mut u32) {
                // SAFETY: `p` is valid for 16 writes (trait contract).
                unsafe { _mm512_storeu_si512(p.cast(), s) }
            }
            #[inline(always)]
            unsafe fn compress(self, m: u32, s: &mut __m512i, vals: *mut f32, out: *mut u32) {
                // SAFETY: AVX-512F; `vals` and `out` valid for 16 writes (trait contract).
                unsafe {
                    let k = m as u16;
                    _mm512_storeu_ps(vals, _mm512_maskz_compress_ps(k, self.0));
                    _mm512_storeu_si512(out.cast(), _mm512_maskz_compress_epi32(k, *s));
                    *s = _mm512_mask_add_epi32(*s, k, *s, _mm512_set1_epi32(1));
                }
            }
            #[inline(always)]
            unsafe fn load(p: *const f32) -> Self {
                // SAFETY: `p` is valid for 16 reads (trait contract).
                F32x16(unsafe { _mm512_loadu_ps(p) })
            }
            #[inline(always)]
            unsafe fn gather(x: *const f32, idx: *const $i) -> Self {
                // SAFETY: `idx` is valid for 16 reads and each index is inside `x`.
                F32x16(unsafe { if HW { $gather(x, idx) } else { loads16(x, idx) } })
            }
            #[inline(always)]
            unsafe fn fma(self, a: Self, b: Self) -> Self {
                // SAFETY: AVX-512F is present (trait contract).
                F32x16(unsafe { _mm512_fmadd_ps(a.0, b.0, self.0) })
            }
            #[inline(always)]
            unsafe fn add(self, o: Self) -> Self {
                // SAFETY: the width's features are present (trait contract).
                F32x16(unsafe { _mm512_add_ps(self.0, o.0) })
            }
            #[inline(always)]
            unsafe fn lane0(v: f32) -> Self {
                // SAFETY: AVX-512F is present (trait contract).
                F32x16(unsafe { _mm512_maskz_mov_ps(1, _mm512_set1_ps(v)) })
            }
            #[inline(always)]
            unsafe fn clear(self, mask: u32) -> Self {
                // SAFETY: AVX-512F is present (trait contract).
                F32x16(unsafe { _mm512_maskz_mov_ps(!(mask as u16), self.0) })
            }
            #[inline(always)]
            unsafe fn store(self, out: *mut f32) {
                // SAFETY: `out` is valid for 16 writes (trait contract).
                unsafe { _mm512_storeu_ps(out, self.0) }
            }
            #[inline(always)]
            unsafe fn heads(words: *const u32, j: u32) -> u32 {
                // SAFETY: `words` is valid for 16 reads (trait contract).
                unsafe {
                    _mm512_test_epi32_mask(_mm512_loadu_si512(words.cast()), _mm512_set1_epi32(1 << j)) as u32
                }
            }
        }
    };
}

/// # Safety
/// AVX-512F is present; `idx` valid for 8 reads, each index inside `x`.
#[inline(always)]
unsafe fn gather_f64_u32(x: *const f64, idx: *const u32) -> __m512d {
    // SAFETY: the caller's contract; the zero-extended indices are the column indices.
    unsafe { _mm512_i64gather_pd::<8>(_mm512_cvtepu32_epi64(_mm256_loadu_si256(idx.cast())), x) }
}

/// # Safety
/// As [`gather_f64_u32`] for 64-bit indices (each below `2^63`, as every `x` index is).
#[inline(always)]
unsafe fn gather_f64_u64(x: *const f64, idx: *const u64) -> __m512d {
    // SAFETY: the caller's contract.
    unsafe { _mm512_i64gather_pd::<8>(_mm512_loadu_si512(idx.cast()), x) }
}

/// # Safety
/// AVX-512F is present; `idx` valid for 16 reads, each index inside `x` and below `2^31`.
#[inline(always)]
unsafe fn gather_f32_u32(x: *const f32, idx: *const u32) -> __m512 {
    // SAFETY: the caller's contract (the dispatch checks `x.len() <= 2^31`).
    unsafe { _mm512_i32gather_ps::<4>(_mm512_loadu_si512(idx.cast()), x) }
}

/// # Safety
/// AVX-512F and DQ are present; `idx` valid for 16 reads, each index inside `x`.
#[inline(always)]
unsafe fn gather_f32_u64(x: *const f32, idx: *const u64) -> __m512 {
    // SAFETY: the caller's contract; two gathers of eight lanes each.
    unsafe {
        let lo = _mm512_i64gather_ps::<4>(_mm512_loadu_si512(idx.cast()), x);
        let hi = _mm512_i64gather_ps::<4>(_mm512_loadu_si512(idx.add(8).cast()), x);
        _mm512_insertf32x8::<1>(_mm512_castps256_ps512(lo), hi)
    }
}

/// Reads the `x` entries named by `idx[2p]` and `idx[2p + 1]`. With 4-byte indices the
/// pair comes from one 8-byte read, so a 16-lane step issues 8 index reads instead of 16:
/// where the scalar loads beat `vgather`, a CSR5 step is bound by loads (thesis 8.5).
/// Only the f32 step uses it; the f64 step and the AVX2 f32 step (8 lanes) gained
/// nothing. Lanes built from a broadcast load each, merged by blends instead of shuffles,
/// were tried and not kept (`benches/records/kernel-notes-2026-11.md`, "Paired index
/// reads in the CSR5 tile kernels").
///
/// # Safety
/// `idx` valid for reads at `2p` and `2p + 1`, each index inside `x`.
#[inline(always)]
unsafe fn pair<T: Copy, I: Index>(x: *const T, idx: *const I, p: usize) -> (T, T) {
    // SAFETY: the caller's contract: `idx.add(2p)` and `idx.add(2p + 1)` are readable
    // (for 4-byte indices, the 8 bytes at `idx.add(2p)`) and name elements of `x`.
    unsafe {
        if I::BYTES == 4 {
            let w = idx.add(2 * p).cast::<u64>().read_unaligned();
            (*x.add(w as u32 as usize), *x.add((w >> 32) as usize))
        } else {
            (*x.add((*idx.add(2 * p)).to_usize()), *x.add((*idx.add(2 * p + 1)).to_usize()))
        }
    }
}

/// # Safety
/// AVX-512F is present; `idx` valid for 8 reads, each index inside `x`.
#[inline(always)]
unsafe fn loads8<I: Index>(x: *const f64, idx: *const I) -> __m512d {
    // SAFETY: the caller's contract: every `idx.add(k)` for `k < 8` is readable and
    // names an element of `x`.
    unsafe {
        let g = |k: usize| *x.add((*idx.add(k)).to_usize());
        _mm512_set_pd(g(7), g(6), g(5), g(4), g(3), g(2), g(1), g(0))
    }
}

/// # Safety
/// AVX-512F is present; `idx` valid for 16 reads, each index inside `x`.
#[inline(always)]
unsafe fn loads16<I: Index>(x: *const f32, idx: *const I) -> __m512 {
    // SAFETY: as `loads8`, for 16 lanes.
    unsafe {
        let (a0, a1) = pair(x, idx, 0);
        let (a2, a3) = pair(x, idx, 1);
        let (a4, a5) = pair(x, idx, 2);
        let (a6, a7) = pair(x, idx, 3);
        let (a8, a9) = pair(x, idx, 4);
        let (a10, a11) = pair(x, idx, 5);
        let (a12, a13) = pair(x, idx, 6);
        let (a14, a15) = pair(x, idx, 7);
        _mm512_set_ps(a15, a14, a13, a12, a11, a10, a9, a8, a7, a6, a5, a4, a3, a2, a1, a0)
    }
}

f64x8_lanes!(u32, gather_f64_u32);
f64x8_lanes!(u64, gather_f64_u64);
f32x16_lanes!(u32, gather_f32_u32);
f32x16_lanes!(u64, gather_f32_u64);

tile_entries! {
    "avx512f,avx512vl,avx512bw,avx512dq,popcnt";
    f64_u32: f64, u32, F64x8;
    f64_u64: f64, u64, F64x8;
    f32_u32: f32, u32, F32x16;
    f32_u64: f32, u64, F32x16;
}

/// Runs complete tiles with this width's kernel when the layout's `omega` is its lane
/// count for `T`; `None` otherwise (another kernel then runs).
pub(crate) fn tiles<T: Scalar, I: Index>(
    c: Checked,
    omega: usize,
    a: &TileArgs<'_, T, I>,
    range: Range<usize>,
    y: &mut [T],
) -> Option<(T, bool)> {
    if c.isa() != Isa::Avx512 || omega != 64 / size_of::<T>() {
        return None;
    }
    let hw = Gathers::current() == Gathers::Hardware;
    let (carry, goes_on) = match (size_of::<T>(), I::BYTES) {
        (8, 4) => {
            let (a, y) = (recast::<T, I, f64, u32>(a)?, try_cast_slice_mut::<T, f64>(y).ok()?);
            // SAFETY: `c` proves AVX-512 F/VL/BW/DQ; `a` is a validated view with `omega == 8`.
            let (v, g) = unsafe { f64_u32(&a, range, y, hw) };
            (try_cast(v).ok()?, g)
        }
        (8, 8) => {
            let (a, y) = (recast::<T, I, f64, u64>(a)?, try_cast_slice_mut::<T, f64>(y).ok()?);
            // SAFETY: as above.
            let (v, g) = unsafe { f64_u64(&a, range, y, hw) };
            (try_cast(v).ok()?, g)
        }
        (4, 4) if a.x.len() <= 1 << 31 => {
            let (a, y) = (recast::<T, I, f32, u32>(a)?, try_cast_slice_mut::<T, f32>(y).ok()?);
            // SAFETY: as above, `omega == 16`; every column is below `x.len() <= 2^31`.
            let (v, g) = unsafe { f32_u32(&a, range, y, hw) };
            (try_cast(v).ok()?, g)
        }
        (4, 8) => {
            let (a, y) = (recast::<T, I, f32, u64>(a)?, try_cast_slice_mut::<T, f32>(y).ok()?);
            // SAFETY: as above.
            let (v, g) = unsafe { f32_u64(&a, range, y, hw) };
            (try_cast(v).ok()?, g)
        }
        _ => return None,
    };
    Some((carry, goes_on))
}
