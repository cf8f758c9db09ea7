//! The AVX2 (+FMA) CSR5 tile kernel (thesis 8.5, Alg. 32): the shared tile loop of
//! `arch::generic::spmv_csr5` over 256-bit registers — 4 `f64` or 8 `f32` lanes, so
//! `omega` = 4 / 8, or two registers per step for `omega` = 8 / 16 (the default layout,
//! see [`omega_for`]) — with hardware gathers of `x`, or where [`Gathers::current`] says so
//! (where loads measured faster) a scalar load per lane put together with `_mm256_set_*`: the same values.
//!
//! `f32` with `u32` columns uses the 32-bit gather, whose indices are signed: it runs only
//! when `x` has at most `2^31` entries (beyond, the portable kernel runs). `u64`
//! columns gather `f32` in two halves; `f64` zero-extends `u32` columns to 64 bits.
//!
//! [`omega_for`]: crate::formats::csr5::omega_for

use core::arch::x86_64::*;
use core::ops::Range;

use bytemuck::{try_cast, try_cast_slice_mut};

use crate::arch::Checked;
use crate::arch::generic::spmv_csr5::{Lanes, Pair, TileArgs, recast, tile_entries};
use crate::{Gathers, Index, Isa, Scalar};

/// Four `f64` lanes; `HW`: `x` is read by hardware gathers, else by a load per lane
/// ([`Gathers`]).
#[derive(Clone, Copy)]
pub(crate) struct F64x4<const HW: bool>(__m256d);

/// Eight `f32` lanes; `HW` as for [`F64x4`].
#[derive(Clone, Copy)]
pub(crate) struct F32x8<const HW: bool>(__m256);

macro_rules! f64x4_lanes {
    ($i:ty, $gather:expr) => {
        impl<const HW: bool> Lanes<f64, $i> for F64x4<HW> {
            const W: usize = 4;
            type Slots = ();
            unsafe fn slots(_p: *const u32) {}
            const RUN_CHAINS: usize = 2;
            #[inline(always)]
            unsafe fn load(p: *const f64) -> Self {
                // SAFETY: `p` is valid for 4 reads (trait contract).
                F64x4(unsafe { _mm256_loadu_pd(p) })
            }
            #[inline(always)]
            unsafe fn gather(x: *const f64, idx: *const $i) -> Self {
                // SAFETY: `idx` is valid for 4 reads and each index is inside `x`.
                F64x4(unsafe { if HW { $gather(x, idx) } else { loads4(x, idx) } })
            }
            #[inline(always)]
            unsafe fn fma(self, a: Self, b: Self) -> Self {
                // SAFETY: FMA is present (trait contract).
                F64x4(unsafe { _mm256_fmadd_pd(a.0, b.0, self.0) })
            }
            #[inline(always)]
            unsafe fn add(self, o: Self) -> Self {
                // SAFETY: the width's features are present (trait contract).
                F64x4(unsafe { _mm256_add_pd(self.0, o.0) })
            }
            #[inline(always)]
            unsafe fn lane0(v: f64) -> Self {
                // SAFETY: AVX is present (trait contract).
                F64x4(unsafe { _mm256_set_pd(0.0, 0.0, 0.0, v) })
            }
            #[inline(always)]
            unsafe fn clear(self, mask: u32) -> Self {
                // SAFETY: AVX2 is present (trait contract).
                unsafe {
                    let sel = _mm256_set_epi64x(8, 4, 2, 1);
                    let hit = _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_set1_epi64x(mask as i64), sel), sel);
                    F64x4(_mm256_andnot_pd(_mm256_castsi256_pd(hit), self.0))
                }
            }
            #[inline(always)]
            unsafe fn store(self, out: *mut f64) {
                // SAFETY: `out` is valid for 4 writes (trait contract).
                unsafe { _mm256_storeu_pd(out, self.0) }
            }
            #[inline(always)]
            unsafe fn heads(words: *const u32, j: u32) -> u32 {
                // SAFETY: `words` is valid for 4 reads (trait contract); bit `j` moves to
                // the sign bit, which `movemask` collects.
                unsafe {
                    let w = _mm_loadu_si128(words.cast());
                    let s = _mm_sll_epi32(w, _mm_cvtsi32_si128(31 - j as i32));
                    _mm_movemask_ps(_mm_castsi128_ps(s)) as u32
                }
            }
        }
    };
}

macro_rules! f32x8_lanes {
    ($i:ty, $gather:expr) => {
        impl<const HW: bool> Lanes<f32, $i> for F32x8<HW> {
            const W: usize = 8;
            type Slots = ();
            unsafe fn slots(_p: *const u32) {}
            const RUN_CHAINS: usize = 2;
            #[inline(always)]
            unsafe fn load(p: *const f32) -> Self {
                // SAFETY: `p` is valid for 8 reads (trait contract).
                F32x8(unsafe { _mm256_loadu_ps(p) })
            }
            #[inline(always)]
            unsafe fn gather(x: *const f32, idx: *const $i) -> Self {
                // SAFETY: `idx` is valid for 8 reads and each index is inside `x`.
                F32x8(unsafe { if HW { $gather(x, idx) } else { loads8(x, idx) } })
            }
            #[inline(always)]
            unsafe fn fma(self, a: Self, b: Self) -> Self {
                // SAFETY: FMA is present (trait contract).
                F32x8(unsafe { _mm256_fmadd_ps(a.0, b.0, self.0) })
            }
            #[inline(always)]
            unsafe fn add(self, o: Self) -> Self {
                // SAFETY: the width's features are present (trait contract).
                F32x8(unsafe { _mm256_add_ps(self.0, o.0) })
            }
            #[inline(always)]
            unsafe fn lane0(v: f32) -> Self {
                // SAFETY: AVX is present (trait contract).
                F32x8(unsafe { _mm256_set_ps(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, v) })
            }
            #[inline(always)]
            unsafe fn clear(self, mask: u32) -> Self {
                // SAFETY: AVX2 is present (trait contract).
                unsafe {
                    let sel = _mm256_set_epi32(128, 64, 32, 16, 8, 4, 2, 1);
                    let hit = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(mask as i32), sel), sel);
                    F32x8(_mm256_andnot_ps(_mm256_castsi256_ps(hit), self.0))
                }
            }
            #[inline(always)]
            unsafe fn store(self, out: *mut f32) {
                // SAFETY: `out` is valid for 8 writes (trait contract).
                unsafe { _mm256_storeu_ps(out, self.0) }
            }
            #[inline(always)]
            unsafe fn heads(words: *const u32, j: u32) -> u32 {
                // SAFETY: `words` is valid for 8 reads (trait contract).
                unsafe {
                    let w = _mm256_loadu_si256(words.cast());
                    let s = _mm256_sll_epi32(w, _mm_cvtsi32_si128(31 - j as i32));
                    _mm256_movemask_ps(_mm256_castsi256_ps(s)) as u32
                }
            }
        }
    };
}

/// # Safety
/// AVX2 is present; `idx` valid for 4 reads, each index inside `x`.
#[inline(always)]
unsafe fn gather_f64_u32(x: *const f64, idx: *const u32) -> __m256d {
    // SAFETY: the caller's contract; the zero-extended indices are the column indices.
    unsafe { _mm256_i64gather_pd::<8>(x, _mm256_cvtepu32_epi64(_mm_loadu_si128(idx.cast()))) }
}

/// # Safety
/// As [`gather_f64_u32`] for 64-bit indices (each below `2^63`, as every `x` index is).
#[inline(always)]
unsafe fn gather_f64_u64(x: *const f64, idx: *const u64) -> __m256d {
    // SAFETY: the caller's contract.
    unsafe { _mm256_i64gather_pd::<8>(x, _mm256_loadu_si256(idx.cast())) }
}

/// # Safety
/// AVX2 is present; `idx` valid for 8 reads, each index inside `x` and below `2^31`.
#[inline(always)]
unsafe fn gather_f32_u32(x: *const f32, idx: *const u32) -> __m256 {
    // SAFETY: the caller's contract (the dispatch checks `x.len() <= 2^31`).
    unsafe { _mm256_i32gather_ps::<4>(x, _mm256_loadu_si256(idx.cast())) }
}

/// # Safety
/// AVX2 is present; `idx` valid for 8 reads, each index inside `x`.
#[inline(always)]
unsafe fn gather_f32_u64(x: *const f32, idx: *const u64) -> __m256 {
    // SAFETY: the caller's contract; two gathers of four lanes each.
    unsafe {
        let lo = _mm256_i64gather_ps::<4>(x, _mm256_loadu_si256(idx.cast()));
        let hi = _mm256_i64gather_ps::<4>(x, _mm256_loadu_si256(idx.add(4).cast()));
        _mm256_set_m128(hi, lo)
    }
}

/// # Safety
/// AVX is present; `idx` valid for 4 reads, each index inside `x`.
#[inline(always)]
unsafe fn loads4<I: Index>(x: *const f64, idx: *const I) -> __m256d {
    // SAFETY: the caller's contract: every `idx.add(k)` for `k < 4` is readable and
    // names an element of `x`.
    unsafe {
        let g = |k: usize| *x.add((*idx.add(k)).to_usize());
        _mm256_set_pd(g(3), g(2), g(1), g(0))
    }
}

/// # Safety
/// AVX is present; `idx` valid for 8 reads, each index inside `x`.
#[inline(always)]
unsafe fn loads8<I: Index>(x: *const f32, idx: *const I) -> __m256 {
    // SAFETY: as `loads4`, for 8 lanes.
    unsafe {
        let g = |k: usize| *x.add((*idx.add(k)).to_usize());
        _mm256_set_ps(g(7), g(6), g(5), g(4), g(3), g(2), g(1), g(0))
    }
}

f64x4_lanes!(u32, gather_f64_u32);
f64x4_lanes!(u64, gather_f64_u64);
f32x8_lanes!(u32, gather_f32_u32);
f32x8_lanes!(u64, gather_f32_u64);

/// Eight `f64` lanes in two registers: `omega` = 8, the tile of [`omega_for`].
///
/// [`omega_for`]: crate::formats::csr5::omega_for
type F64x4x2<const HW: bool> = Pair<F64x4<HW>>;
/// Sixteen `f32` lanes in two registers: `omega` = 16.
type F32x8x2<const HW: bool> = Pair<F32x8<HW>>;

tile_entries! {
    "avx2,fma";
    f64_u32_2: f64, u32, F64x4x2;
    f64_u64_2: f64, u64, F64x4x2;
    f32_u32_2: f32, u32, F32x8x2;
    f32_u64_2: f32, u64, F32x8x2;
    f64_u32: f64, u32, F64x4;
    f64_u64: f64, u64, F64x4;
    f32_u32: f32, u32, F32x8;
    f32_u64: f32, u64, F32x8;
}

/// Runs complete tiles with this width's kernel when the layout's `omega` is one or two
/// registers of lanes of `T` (4 or 8 `f64`, 8 or 16 `f32`); `None` otherwise (the
/// portable kernel then runs).
pub(crate) fn tiles<T: Scalar, I: Index>(
    c: Checked,
    omega: usize,
    a: &TileArgs<'_, T, I>,
    range: Range<usize>,
    y: &mut [T],
) -> Option<(T, bool)> {
    let lanes = 32 / size_of::<T>();
    if !matches!(c.isa(), Isa::Avx2 | Isa::Avx512) || (omega != lanes && omega != 2 * lanes) {
        return None;
    }
    let (hw, pair) = (Gathers::current() == Gathers::Hardware, omega == 2 * lanes);
    macro_rules! go {
        ($t:ty, $i:ty, $one:ident, $two:ident) => {{
            let (a, y) = (recast::<T, I, $t, $i>(a)?, try_cast_slice_mut::<T, $t>(y).ok()?);
            // SAFETY: `c` proves AVX2+FMA (AVX-512 machines have them too); `a` is a
            // validated view whose `omega` is the register's lanes (`$one`) or twice
            // them (`$two`); for `f32` with `u32` columns every column is below
            // `x.len() <= 2^31` (checked below).
            let (v, g) = unsafe { if pair { $two(&a, range, y, hw) } else { $one(&a, range, y, hw) } };
            (try_cast(v).ok()?, g)
        }};
    }
    let (carry, goes_on) = match (size_of::<T>(), I::BYTES) {
        (8, 4) => go!(f64, u32, f64_u32, f64_u32_2),
        (8, 8) => go!(f64, u64, f64_u64, f64_u64_2),
        (4, 4) if a.x.len() <= 1 << 31 => go!(f32, u32, f32_u32, f32_u32_2),
        (4, 8) => go!(f32, u64, f32_u64, f32_u64_2),
        _ => return None,
    };
    Some((carry, goes_on))
}

/// `f64` entries of the table the gather measurement reads: 8 KiB, in L1 on every x86-64
/// core, so it times the instructions and not the memory behind them.
const CAL_X: usize = 1024;
/// Column indices read per pass: 256 steps of 4 `f64` lanes, and 128 of 8 `f32` lanes.
const CAL_COLS: usize = 1024;
/// Interleaved passes of each way; the fastest pass of each counts, so an interrupt or a
/// clock step that hits one pass does not decide.
const CAL_PASSES: usize = 9;

/// Pseudo-random columns below [`CAL_X`] (a 32-bit LCG's high bits), fixed at compile time.
static CAL_IDX: [u32; CAL_COLS] = {
    let mut idx = [0u32; CAL_COLS];
    let (mut s, mut k) = (0x2545_f491u32, 0);
    while k < CAL_COLS {
        s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        idx[k] = (s >> 22) % CAL_X as u32;
        k += 1;
    }
    idx
};
static CAL_F64: [f64; CAL_X] = [1.0; CAL_X];
static CAL_F32: [f32; CAL_X] = [1.0; CAL_X];

/// Time-stamp counter ticks, after earlier instructions have finished.
#[inline(always)]
fn ticks() -> u64 {
    // SAFETY: `lfence` and `rdtsc` exist on every x86-64 CPU and touch no memory.
    unsafe {
        _mm_lfence();
        _rdtsc()
    }
}

/// Ticks for one pass over [`CAL_IDX`]: a tile step's work for every column, in both
/// precisions (`f64` 4 lanes a step, `f32` 8) — load the values, read `x` at the columns
/// by hardware gathers (`HW`) or a load per lane, multiply-add — as the CSR5 tile kernels
/// above do. The value loads and FMAs are there because they compete with the loads for
/// the same ports: timed alone, loads beat gathers on cores where the kernels gather
/// faster.
///
/// # Safety
/// AVX2 and FMA are present.
#[target_feature(enable = "avx2,fma")]
unsafe fn cal_pass<const HW: bool>() -> u64 {
    let (x64, x32, idx) = (CAL_F64.as_ptr(), CAL_F32.as_ptr(), CAL_IDX.as_ptr());
    let (mut a64, mut a32) = ([_mm256_setzero_pd(); 4], [_mm256_setzero_ps(); 4]);
    let t0 = ticks();
    // SAFETY: every step reads 4 or 8 indices inside `CAL_IDX` and as many values inside
    // a table at the same offset (`CAL_COLS` is a multiple of 32 and at most `CAL_X`),
    // and every index is below `CAL_X`, the length of both tables.
    unsafe {
        for k in (0..CAL_COLS).step_by(16) {
            for (j, acc) in a64.iter_mut().enumerate() {
                let p = idx.add(k + 4 * j);
                let v = if HW { gather_f64_u32(x64, p) } else { loads4(x64, p) };
                *acc = _mm256_fmadd_pd(_mm256_loadu_pd(x64.add(k + 4 * j)), v, *acc);
            }
        }
        for k in (0..CAL_COLS).step_by(32) {
            for (j, acc) in a32.iter_mut().enumerate() {
                let p = idx.add(k + 8 * j);
                let v = if HW { gather_f32_u32(x32, p) } else { loads8(x32, p) };
                *acc = _mm256_fmadd_ps(_mm256_loadu_ps(x32.add(k + 8 * j)), v, *acc);
            }
        }
    }
    let t = ticks().wrapping_sub(t0);
    core::hint::black_box((a64, a32));
    t
}

/// The fastest of [`CAL_PASSES`] interleaved passes by hardware gathers and by loads, in
/// time-stamp ticks: what [`Gathers::detect`] decides by. About 20 µs.
pub(crate) fn gather_costs(c: Checked) -> (u64, u64) {
    let (mut hw, mut loads) = (u64::MAX, u64::MAX);
    if !matches!(c.isa(), Isa::Avx2 | Isa::Avx512) {
        return (0, 0);
    }
    for _ in 0..CAL_PASSES {
        // SAFETY: `c` proves AVX2 and FMA (AVX-512 machines have them too).
        unsafe {
            hw = hw.min(cal_pass::<true>());
            loads = loads.min(cal_pass::<false>());
        }
    }
    (hw, loads)
}

#[cfg(all(test, feature = "std"))]
mod tests {
    extern crate std;

    use super::*;

    /// Both ways are timed and take time (a pass that the compiler had removed would read
    /// 0 or near it); the numbers go to the test log for the record of this machine.
    #[test]
    fn gather_costs_are_measured() {
        let Ok(c) = Checked::new(Isa::Avx2) else { return };
        let (hw, loads) = gather_costs(c);
        std::eprintln!("gather costs (ticks per pass): hardware {hw}, loads {loads}");
        // 384 reads of 4 or 8 lanes: under a tick a read means nothing was timed.
        assert!(hw >= 384 && loads >= 384, "hardware {hw}, loads {loads}");
        assert_eq!(gather_costs(Checked::new(Isa::Portable).unwrap()), (0, 0));
    }
}
