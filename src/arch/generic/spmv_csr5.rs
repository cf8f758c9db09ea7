//! The CSR5 tile kernel (thesis 8.5, Alg. 32), written once over a register of `W` lanes
//! ([`Lanes`]) and instantiated by every width: the portable one (`portable::spmv_csr5`, plain arrays, any
//! power-of-two `W`), and AVX2 / AVX-512 / NEON in their own folders.
//!
//! One tile, lane `i` taking column `i` (`sigma` consecutive entries), step `j` taking
//! row `j` of the transposed tile:
//! 1. every step loads `W` values and `W` column indices, gathers `x`, and adds the
//!    products into one accumulator register;
//! 2. at a step whose `bit_flag` has heads (one mask per step, taken from the descriptor
//!    words), each lane with a head closes the segment it was summing: a *green* segment
//!    (one that started in this lane) is written to `y` at once; the first closed piece
//!    of a lane is *red* (it belongs to a segment started in a lane to the left) and is
//!    kept; the lanes with heads restart from zero (AVX-512 appends a step's green
//!    segments to a list with one `vcompress` of the values and one of their slots,
//!    and places the list after the tile: no branch per green lane, see
//!    [`Lanes::COMPRESS`]);
//! 3. after `sigma` steps each lane's open piece is *blue* (its last segment), or red
//!    again if the lane had no head at all. The fast segmented sum of Alg. 13 adds to
//!    each blue piece the red pieces of the `seg_offset` head-less lanes to its right and
//!    of the lane after them; the sum is run backwards lane by lane
//!    (`s_i = red_{i+1} + (seg_offset_i > 0 ? s_{i+1} : 0)`) rather than as the thesis's
//!    scan-and-subtract, which would mix the magnitudes of neighbouring rows into each
//!    row's rounding error;
//! 4. the tile's last segment, if its row goes on in the next tile, is handed on as a
//!    carry that seeds lane 0 of the next tile (whose first entry is a head by
//!    construction); in a tile with empty rows the rows come from `empty_offset`, and the
//!    empty rows between its segments get `beta * y`.
//!
//! Additions to the thesis's loop, each measured on the suite against the row-scalar loop
//! (`benches/records/kernel-notes-2026-11.md`, "CSR5 tile loop"):
//! - every step prefetches the values and column indices [`PF_AHEAD`] entries ahead: the
//!   tile layout reads two streams at a stride of `W` entries per step with a gather
//!   between, and the hardware prefetchers alone left the loop well below the bandwidth;
//! - a tile with heads at few steps runs the steps between them without testing the
//!   descriptor (the OR of its lanes' `bit_flag`s says which steps have heads);
//! - a tile that lies inside one row which goes on into the next tile (long rows) skips
//!   the descriptor, the segment pass and `y`: its products join that row's sum in
//!   lanes, which are added up once, where the row ends.

use core::mem::MaybeUninit;
use core::ops::Range;

use crate::arch::{PF_AHEAD, PF_X_AHEAD};
use crate::formats::csr5::tile::DescFormat;
use crate::{Index, Scalar};

/// A register of `W` lanes of `T`, as one width provides it.
///
/// # Safety
/// Implementations run only where their CPU features are present (the dispatch proves
/// it with a `Checked`), and every pointer passed is valid for `W` elements.
pub(crate) trait Lanes<T: Scalar, I: Index>: Copy {
    /// Lanes per register.
    const W: usize;
    /// Accumulators of a lane-wise row sum (tiles inside one long row): 2 where one
    /// register's multiply-add chain would bound the loop: AVX2 takes 2; AVX-512 keeps 1
    /// (two 16-wide gathers of missing lines in flight cost more than the second chain
    /// gains); the 128-bit widths, not measured, take 2 by AVX2's reasoning. Measurements:
    /// `benches/records/kernel-notes-2026-11.md`, "RUN_CHAINS".
    const RUN_CHAINS: usize = 1;
    /// Whether a step may prefetch `x` at the columns [`PF_X_AHEAD`] entries ahead (where
    /// [`TileArgs::prefetch_x`] asks). On long rows over a wide `x` (`lp_like`) the hints
    /// lifted AVX-512's hardware gathers of lines missing L1 to AVX2's level, and cost AVX2
    /// itself, so only AVX-512's hardware gathers take them (`examples/suite.rs --only
    /// spmv`).
    const PREFETCH_X: bool = false;
    /// `W` values from `p`.
    unsafe fn load(p: *const T) -> Self;
    /// `x[idx[i]]` for each lane; every `idx[i]` indexes `x`.
    unsafe fn gather(x: *const T, idx: *const I) -> Self;
    /// `self + a * b`, lane-wise.
    unsafe fn fma(self, a: Self, b: Self) -> Self;
    /// `self + o`, lane-wise.
    unsafe fn add(self, o: Self) -> Self;
    /// `[v, 0, .., 0]`.
    unsafe fn lane0(v: T) -> Self;
    /// Lanes whose bit is set in `mask` become zero (bits from `W` on are ignored).
    unsafe fn clear(self, mask: u32) -> Self;
    /// Writes the `W` lanes to `out`.
    unsafe fn store(self, out: *mut T);
    /// Bit `i` = bit `j` of `words[i]`, for the `W` descriptor words at `words`.
    unsafe fn heads(words: *const u32, j: u32) -> u32;
    /// How a step's green segments leave the register: `false`, by a store of the
    /// register and a store per green lane into its slot (a loop over the mask's bits,
    /// whose exit the branch predictor misses on irregular rows); `true`, by
    /// [`Lanes::compress`] into a per-tile list that is placed after the tile. Measured
    /// on the suite (`examples/suite.rs --only spmv`): on AVX-512 it gained on the
    /// irregular matrices (`dc2_like`, `rmat`) and tied elsewhere, so it compresses; AVX2,
    /// with a table-driven permute in place of `vcompress`, lost with one register per step
    /// and with two, so it and the narrower widths do not.
    const COMPRESS: bool = false;
    /// `W` slot counters (`()` where `COMPRESS` is false: the next three are never called).
    type Slots: Copy;
    /// Loads `W` slot counters from `p`.
    unsafe fn slots(p: *const u32) -> Self::Slots;
    /// Stores `W` slot counters at `p`.
    unsafe fn store_slots(_s: Self::Slots, _p: *mut u32) {}
    /// Writes the lanes `m` of `self` to `vals` and their slots to `at`, lowest lane
    /// first (both valid for `W` writes; the lanes past `m`'s count are unspecified);
    /// the slots of lanes `m` go up by one.
    unsafe fn compress(self, _m: u32, _s: &mut Self::Slots, _vals: *mut T, _at: *mut u32) {}
}

/// What the tile kernel reads: a validated CSR5 view's arrays, `x`, `alpha`, `beta`.
#[derive(Clone, Copy)]
pub(crate) struct TileArgs<'a, T, I> {
    pub sigma: usize,
    /// The CSR row pointer (the kernels for layouts no width takes walk rows by it).
    pub row_ptr: &'a [I],
    pub format: DescFormat,
    pub col_idx: &'a [I],
    pub vals: &'a [T],
    pub tile_ptr: &'a [I],
    pub tile_desc: &'a [u32],
    pub empty_offset_ptr: &'a [I],
    pub empty_offset: &'a [I],
    pub x: &'a [T],
    pub alpha: T,
    pub beta: T,
    /// Prefetch `x` ahead of the gathers ([`Lanes::PREFETCH_X`]): set by
    /// [`prefetch_x`] for matrices whose rows are a tile or longer on average.
    pub prefetch_x: bool,
    /// The row `y[0]` holds: `y` is the slice of rows a tile range owns.
    pub y0: usize,
}

/// Whether tiles of `omega * sigma` entries of a matrix of `nrows` rows, `nnz` entries
/// and `ncols` columns of `T` prefetch `x` ([`Lanes::PREFETCH_X`]): where rows are a
/// tile long or longer on average (most tiles lie inside one row, a gather and a
/// multiply-add a step) and `x` does not fit a 64 KiB L1. On rows shorter than a tile the
/// hints cost time (`rmat`, `dc2_like`, `uniform_random`: rows of 1–8 entries over a wide
/// `x`), so they stay off there.
pub(crate) fn prefetch_x<T>(nrows: usize, ncols: usize, nnz: usize, omega: usize, sigma: usize) -> bool {
    nnz / nrows.max(1) >= omega * sigma && ncols.saturating_mul(core::mem::size_of::<T>()) > 64 << 10
}

/// `y[rows] = beta * y[rows]` (zeros when `beta == 0`): empty rows.
#[inline(always)]
pub(crate) fn scale_rows<T: Scalar>(y: &mut [T], rows: Range<usize>, beta: T) {
    let Some(ys) = y.get_mut(rows) else { return };
    if beta == T::ZERO {
        ys.fill(T::ZERO);
    } else if beta != T::ONE {
        ys.iter_mut().for_each(|v| *v *= beta);
    }
}

/// Most segments a tile can hold (`omega * sigma`, see `formats::csr5::build::MAX_TILE`):
/// the size of the stack buffer of segment sums (4 KiB of `f64`).
pub(crate) const MAX_SEGMENTS: usize = 512;

/// The `#[target_feature]` entries of a width's tile kernel, one per value and index
/// type: `$name(a, tiles, y, hw)` runs [`run_tiles`] with the lanes `$v<true>` (hardware
/// gathers of `x`) or `$v<false>` (a load per lane), as `hw` says ([`crate::Gathers`]).
/// x86-64 only: NEON has no gathers to choose between.
#[cfg(target_arch = "x86_64")]
macro_rules! tile_entries {
    ($feature:literal; $($name:ident: $t:ty, $i:ty, $v:ident;)*) => {$(
        #[doc = concat!("# Safety\nThe target features `", $feature, "` are present; as `run_tiles`.")]
        #[target_feature(enable = $feature)]
        unsafe fn $name(
            a: &$crate::arch::generic::spmv_csr5::TileArgs<'_, $t, $i>,
            tiles: core::ops::Range<usize>,
            y: &mut [$t],
            hw: bool,
        ) -> ($t, bool) {
            use $crate::arch::generic::spmv_csr5::run_tiles;
            // SAFETY: the caller's contract.
            unsafe {
                if hw {
                    run_tiles::<$t, $i, $v<true>>(a, tiles, 0.0, y)
                } else {
                    run_tiles::<$t, $i, $v<false>>(a, tiles, 0.0, y)
                }
            }
        }
    )*};
}
#[cfg(target_arch = "x86_64")]
pub(crate) use tile_entries;

/// Writes, inside a 128-bit width's `spmv_csr5.rs` (NEON, WebAssembly SIMD), the tile
/// kernel's entry points over its `F64x2` / `F32x4` lanes — one, two or four registers per
/// step — and `tiles`, which picks the one the layout's `omega` fits (`None` otherwise: the
/// portable kernel runs). `$isa` is the width's `Isa`; `$attr` its entry points' target
/// feature (none where the feature is compiled into the whole module).
#[cfg(any(target_arch = "aarch64", all(target_arch = "wasm32", target_feature = "simd128")))]
macro_rules! tiles_128 {
    ($isa:path $(, #[$attr:meta])?) => {
        macro_rules! entry {
            ($name:ident: $t:ty, $i:ty, $v:ty) => {
                /// # Safety
                /// The width's target features are present; as `run_tiles`.
                $(#[$attr])?
                unsafe fn $name(
                    a: &$crate::arch::generic::spmv_csr5::TileArgs<'_, $t, $i>,
                    tiles: core::ops::Range<usize>,
                    y: &mut [$t],
                ) -> ($t, bool) {
                    // SAFETY: the caller's contract.
                    unsafe { $crate::arch::generic::spmv_csr5::run_tiles::<$t, $i, $v>(a, tiles, 0.0, y) }
                }
            };
        }
        entry!(f64_u32: f64, u32, F64x2);
        entry!(f64_u64: f64, u64, F64x2);
        entry!(f32_u32: f32, u32, F32x4);
        entry!(f32_u64: f32, u64, F32x4);
        entry!(f64_u32_2: f64, u32, Pair<F64x2>);
        entry!(f64_u64_2: f64, u64, Pair<F64x2>);
        entry!(f32_u32_2: f32, u32, Pair<F32x4>);
        entry!(f32_u64_2: f32, u64, Pair<F32x4>);
        entry!(f64_u32_4: f64, u32, Pair<Pair<F64x2>>);
        entry!(f64_u64_4: f64, u64, Pair<Pair<F64x2>>);
        entry!(f32_u32_4: f32, u32, Pair<Pair<F32x4>>);
        entry!(f32_u64_4: f32, u64, Pair<Pair<F32x4>>);

        /// Runs complete tiles with this width's kernel when the layout's `omega` is one,
        /// two or four registers of lanes of `T`; `None` otherwise (the portable kernel
        /// then runs).
        pub(crate) fn tiles<T: $crate::Scalar, I: $crate::Index>(
            c: $crate::arch::Checked,
            omega: usize,
            a: &$crate::arch::generic::spmv_csr5::TileArgs<'_, T, I>,
            range: core::ops::Range<usize>,
            y: &mut [T],
        ) -> Option<(T, bool)> {
            use $crate::arch::generic::spmv_csr5::recast;
            let lanes = 16 / size_of::<T>();
            let regs = [1, 2, 4].into_iter().find(|&r| r * lanes == omega)?;
            if c.isa() != $isa {
                return None;
            }
            macro_rules! go {
                ($t:ty, $i:ty, $one:ident, $two:ident, $four:ident) => {{
                    let (a, y) = (recast::<T, I, $t, $i>(a)?, bytemuck::try_cast_slice_mut::<T, $t>(y).ok()?);
                    // SAFETY: `c` proves the width; `a` is a validated view whose `omega` is
                    // `regs` registers of lanes.
                    let (v, g) = unsafe {
                        match regs {
                            1 => $one(&a, range, y),
                            2 => $two(&a, range, y),
                            _ => $four(&a, range, y),
                        }
                    };
                    (bytemuck::try_cast(v).ok()?, g)
                }};
            }
            let (carry, goes_on) = match (size_of::<T>(), I::BYTES) {
                (8, 4) => go!(f64, u32, f64_u32, f64_u32_2, f64_u32_4),
                (8, 8) => go!(f64, u64, f64_u64, f64_u64_2, f64_u64_4),
                (4, 4) => go!(f32, u32, f32_u32, f32_u32_2, f32_u32_4),
                (4, 8) => go!(f32, u64, f32_u64, f32_u64_2, f32_u64_4),
                _ => return None,
            };
            Some((carry, goes_on))
        }
    };
}
#[cfg(any(target_arch = "aarch64", all(target_arch = "wasm32", target_feature = "simd128")))]
pub(crate) use tiles_128;

/// Runs the complete tiles `tiles` (Alg. 32), seeding the first with `carry`; returns
/// the partial sum of the last tile's last segment and whether its row goes on into tile
/// `tiles.end` (then it was not written).
///
/// Segment sums go to a stack buffer in segment order (a green segment's slot is its
/// lane's running segment index, starting at the lane's `y_offset`) and reach `y` in one
/// contiguous pass per tile — `alpha * s + beta * y` over consecutive rows in a tile
/// without empty rows — so the per-head work inside the step loop is one store. (A
/// variant that stored every lane to its slot at each step with heads, branch-free, ran
/// slower on short rows: `benches/records/kernel-notes-2026-11.md`, "Segment sums of the
/// CSR5 tile loop".)
///
/// # Safety
/// `V`'s features are present; `a` comes from a validated CSR5 view with `omega == V::W`,
/// `omega * sigma <= MAX_SEGMENTS` and `tiles.end <= tiles`; `y` holds the rows the
/// range owns, from row `a.y0` (rows outside it are skipped, never written).
#[cfg_attr(
    not(any(
        target_arch = "x86_64",
        target_arch = "aarch64",
        all(target_arch = "wasm32", target_feature = "simd128")
    )),
    allow(dead_code)
)]
#[inline(always)]
pub(crate) unsafe fn run_tiles<T: Scalar, I: Index, V: Lanes<T, I>>(
    a: &TileArgs<'_, T, I>,
    tiles: Range<usize>,
    carry: T,
    y: &mut [T],
) -> (T, bool) {
    // SAFETY: the caller's contract.
    unsafe { run_tiles_in::<T, I, V, 32, MAX_SEGMENTS>(a, tiles, carry, y) }
}

/// [`run_tiles`] with its scratch sized by the caller: `L >= V::W` values per lane array
/// and `S` segment slots, or `S == 0` for no segment buffer: each segment's sum then goes
/// to its row of `y` when it closes (the same operations on the same values, so the same
/// bits), and the kernel's stack frame is a few lane arrays — what a microcontroller's
/// stack of a few KiB can hold (the portable width). Tiles longer than `S > 0` slots, or
/// lanes wider than `L`, are not run.
///
/// # Safety
/// As [`run_tiles`].
#[inline(always)]
pub(crate) unsafe fn run_tiles_in<T: Scalar, I: Index, V: Lanes<T, I>, const L: usize, const S: usize>(
    a: &TileArgs<'_, T, I>,
    tiles: Range<usize>,
    mut carry: T,
    y: &mut [T],
) -> (T, bool) {
    let w = V::W;
    let sigma = a.sigma;
    let len = w * sigma;
    let mut goes_on = false;
    if (S > 0 && len > S) || len > MAX_SEGMENTS || w > 32 || w > L {
        return (carry, goes_on);
    }
    let full = if w == 32 { u32::MAX } else { (1u32 << w) - 1 };
    let nwords = w * a.format.words_per_lane();
    // Scratch for every tile: lane values, red pieces, segment slots, seg_offset, sums.
    let mut lanes = [T::ZERO; L];
    let mut red = [T::ZERO; L];
    let mut cnt = [0u32; L];
    let mut seg = [0usize; L];
    let mut sums = [T::ZERO; S];
    // The compressed green segments of a tile (`Lanes::COMPRESS`): written before read,
    // so left uninitialised (4 KiB and 2 KiB that a small SpMV would otherwise clear).
    let mut gvals = [MaybeUninit::<T>::uninit(); MAX_SEGMENTS + 32];
    let mut gslots = [MaybeUninit::<u32>::uninit(); MAX_SEGMENTS + 32];
    let xp = a.x.as_ptr();
    // The open sum of a row that runs through whole tiles, kept in lanes (see below), in
    // memory between tiles: a register live across the whole tile loop is spilled around
    // its calls (`memset` for empty rows) and then stays in memory inside the step loop
    // too, a store-to-load round trip per step (`benches/records/kernel-notes-2026-11.md`,
    // "Segment sums of the CSR5 tile loop").
    let mut run_buf = [T::ZERO; L];
    // The row's sum when it ends: its lanes, added up in lane order.
    let run_total = |b: &[T; L]| b[..w].iter().fold(T::ZERO, |s, &x| s + x);
    let mut in_run = false;
    for t in tiles {
        let (Some(&tp), Some(&tn), Some(words)) =
            (a.tile_ptr.get(t), a.tile_ptr.get(t + 1), a.tile_desc.get(t * nwords..(t + 1) * nwords))
        else {
            break;
        };
        let (Some(cols), Some(vals)) =
            (a.col_idx.get(t * len..(t + 1) * len), a.vals.get(t * len..(t + 1) * len))
        else {
            break;
        };
        let r0 = tp.unflagged().to_usize();
        let next = tn.unflagged().to_usize();
        let dirty = tp.is_flagged();
        let eoff: &[I] = if dirty {
            let e = (a.empty_offset_ptr.get(t), a.empty_offset_ptr.get(t + 1));
            let (Some(e0), Some(e1)) = e else { break };
            a.empty_offset.get(e0.to_usize()..e1.to_usize()).unwrap_or(&[])
        } else {
            &[]
        };
        let (cp, vp) = (cols.as_ptr(), vals.as_ptr());
        // The prefetch index of the tile's step 0 (see `step`).
        let ahead = t * len + PF_AHEAD;
        if !dirty && r0 == next {
            // The whole tile lies in row `r0`, which goes on into tile `t + 1`: no head,
            // no segment, nothing for `y`. Its products join the row's sum in lanes,
            // seeded by the carry, and the lanes are added up once, when the row ends
            // (long rows then cost what a row-wise SIMD dot product costs, with no
            // per-tile descriptor work or horizontal sum).
            // SAFETY: as the step loop below.
            unsafe {
                let mut acc = if in_run { V::load(run_buf.as_ptr()) } else { V::lane0(carry) };
                let mut j = 0;
                if V::RUN_CHAINS >= 2 {
                    let mut acc2 = V::lane0(T::ZERO);
                    while j + 2 <= sigma {
                        // One prefetch per pair of steps (the second's line is the first's
                        // or the next one, prefetched by the next pair).
                        acc = step(a, ahead, vp, cp, j, acc);
                        acc2 = acc2.fma(V::load(vp.add((j + 1) * w)), V::gather(xp, cp.add((j + 1) * w)));
                        j += 2;
                    }
                    acc = acc.add(acc2);
                }
                while j < sigma {
                    acc = step(a, ahead, vp, cp, j, acc);
                    j += 1;
                }
                acc.store(run_buf.as_mut_ptr());
            }
            (in_run, carry, goes_on) = (true, T::ZERO, true);
            continue;
        }
        if in_run {
            carry = run_total(&run_buf);
            in_run = false;
        }
        let (mut seen, mut steps) = (0u32, 0u32);
        // The flag words, then (split descriptor) the offset words; packed, they coincide.
        let (flags, offs) = (&words[..w], &words[nwords - w..]);
        let mut last_heads = 0;
        for (i, (&f, &o)) in flags.iter().zip(offs).enumerate() {
            cnt[i] = a.format.y_offset(o) as u32;
            seg[i] = a.format.seg_offset(o);
            let b = a.format.bit_flag(f);
            seen |= u32::from(b != 0) << i;
            steps |= b;
            if b != 0 {
                last_heads = b.count_ones() as usize;
            }
        }
        // The tile's segments: each head of the last lane with one starts a segment after
        // those of the lanes before it (its `y_offset`); a tile without heads is one.
        let last_lane = seen.checked_ilog2().map_or(0, |b| b as usize);
        let nseg = (cnt[last_lane] as usize + last_heads.max(1)).min(len);
        let row_of = |k: usize| if dirty { r0 + eoff.get(k).map_or(0, |v| v.to_usize()) } else { r0 + k };
        goes_on = row_of(nseg - 1) == next;
        if dirty {
            // The tile's rows `r0..next` (those of them in `y`) become `beta * y` in one
            // pass, then each segment's row, from `empty_offset`, gets `alpha * s` added:
            // `alpha * s + beta * y` (`alpha * s` when `beta == 0`), the same operations in
            // the same order as the clean tiles' pass below. (A `beta * y` pass per run
            // of empty rows between segments cost a `memset` call each: `rmat`, half its
            // rows empty, spent a tenth of its CSR5 time there.)
            let y0 = a.y0;
            let (lo, hi) = (r0.saturating_sub(y0).min(y.len()), next.saturating_sub(y0).min(y.len()));
            scale_rows(y, lo..hi.max(lo), a.beta);
        }
        // Steps after the first with a head in some lane.
        steps &= !1;
        let mut out = Sums {
            sums: &mut sums,
            y: &mut *y,
            row_of,
            y0: a.y0,
            dirty,
            alpha: a.alpha,
            beta: a.beta,
            handed_on: if goes_on { nseg - 1 } else { usize::MAX },
            carry: T::ZERO,
        };
        // SAFETY: the caller proved `V`'s features; `cp`/`vp` hold the tile's `len = W *
        // sigma` entries, so step `j` reads `W` at offset `j * W < len`; every column of a
        // validated view is `< ncols == x.len()`; `words` holds `W` (flag) words first; `lanes` and
        // `red` hold `L >= W` values.
        unsafe {
            let open = V::heads(words.as_ptr(), 0);
            let reds = V::lane0(T::ZERO);
            let mut acc = step(a, ahead, vp, cp, 0, V::lane0(carry));
            let slots = V::slots(cnt.as_ptr());
            let mut st = Heads {
                lanes: &mut lanes,
                out: &mut out,
                cnt: &mut cnt,
                open,
                reds,
                slots,
                gvals: &mut gvals,
                gslots: &mut gslots,
                ng: 0,
            };
            // Skipping the head-free steps pays where a tile has heads at a few steps and
            // costs where most steps have them; so the skip runs where at most a quarter
            // of the steps have heads (`benches/records/kernel-notes-2026-11.md`, "Head-free
            // steps").
            if steps.count_ones() as usize * 4 > sigma {
                // Heads at many steps (short rows): test every step.
                for j in 1..sigma {
                    let m = V::heads(words.as_ptr(), j as u32);
                    if m != 0 {
                        acc = st.close(m, acc);
                    }
                    acc = step(a, ahead, vp, cp, j, acc);
                }
            } else {
                // Few steps with heads: run the head-free ones between them without
                // looking at the descriptor.
                let mut j = 1;
                while j < sigma {
                    let next = (steps.trailing_zeros() as usize).min(sigma);
                    while j < next {
                        acc = step(a, ahead, vp, cp, j, acc);
                        j += 1;
                    }
                    if j >= sigma {
                        break;
                    }
                    steps &= steps - 1;
                    acc = st.close(V::heads(words.as_ptr(), j as u32), acc);
                    acc = step(a, ahead, vp, cp, j, acc);
                    j += 1;
                }
            }
            if V::COMPRESS {
                // The lanes' final slots (for the blue pieces below), and the green
                // segments into theirs.
                V::store_slots(st.slots, st.cnt.as_mut_ptr());
                for (v, k) in st.gvals.iter().zip(st.gslots.iter()).take(st.ng) {
                    // SAFETY: `compress` wrote the first `ng` entries of both lists.
                    st.out.put(k.assume_init() as usize, v.assume_init());
                }
            }
            let (open, reds) = (st.open, st.reds);
            // Lanes without any head are one red piece.
            let reds = reds.add(acc.clear(!(full & !open)));
            acc.store(lanes.as_mut_ptr());
            reds.store(red.as_mut_ptr());
        }
        // Step 3: each blue piece plus the red pieces of the head-less run to its right
        // and of the lane after it (Alg. 13's extent, summed backwards).
        let mut run = T::ZERO;
        for i in (0..w).rev() {
            let next_red = if i + 1 < w { red[i + 1] } else { T::ZERO };
            run = if seg[i] > 0 { next_red + run } else { next_red };
            if seen >> i & 1 == 1 {
                out.put(cnt[i] as usize, lanes[i] + run);
            }
        }
        if S == 0 {
            carry = out.carry;
            continue;
        }
        carry = if goes_on { sums[nseg - 1] } else { T::ZERO };
        let done = if goes_on { nseg - 1 } else { nseg };
        if dirty {
            // Each segment's row, from `empty_offset`, gets `alpha * s` added to the
            // `beta * y` written above.
            for (k, &s) in sums[..done].iter().enumerate() {
                if let Some(yr) = y.get_mut(row_of(k).wrapping_sub(a.y0)) {
                    *yr = if a.beta == T::ZERO { a.alpha * s } else { a.alpha * s + *yr };
                }
            }
        } else if let Some(ys) = y.get_mut(r0.wrapping_sub(a.y0)..(r0 + done).wrapping_sub(a.y0)) {
            let (al, be) = (a.alpha, a.beta);
            if be == T::ZERO {
                ys.iter_mut().zip(&sums[..done]).for_each(|(yv, &s)| *yv = al * s);
            } else {
                ys.iter_mut().zip(&sums[..done]).for_each(|(yv, &s)| *yv = al * s + be * *yv);
            }
        }
    }
    if in_run {
        carry = run_total(&run_buf);
    }
    (carry, goes_on)
}

/// Where a tile's segment sums go: slot `k` of `sums` (`S > 0`), or (`S == 0`) segment
/// `k`'s row of `y` at once — `alpha * s + beta * y`, `alpha * s + y` on a row the tile's
/// `beta` pass already scaled — except the segment handed on to the next tile, whose
/// partial sum is kept in `carry`.
struct Sums<'s, T, F, const S: usize> {
    sums: &'s mut [T; S],
    y: &'s mut [T],
    row_of: F,
    y0: usize,
    dirty: bool,
    alpha: T,
    beta: T,
    handed_on: usize,
    carry: T,
}

impl<T: Scalar, F: Fn(usize) -> usize, const S: usize> Sums<'_, T, F, S> {
    #[inline(always)]
    fn put(&mut self, k: usize, v: T) {
        if S > 0 {
            if let Some(s) = self.sums.get_mut(k) {
                *s = v;
            }
        } else if k == self.handed_on {
            self.carry = v;
        } else if let Some(yr) = self.y.get_mut((self.row_of)(k).wrapping_sub(self.y0)) {
            *yr = if self.beta == T::ZERO {
                self.alpha * v
            } else if self.dirty {
                self.alpha * v + *yr
            } else {
                self.alpha * v + self.beta * *yr
            };
        }
    }
}

/// Step `j` of a tile (values at `vp`, columns at `cp`, `ahead` = the prefetch index of
/// its step 0): its products added into `acc`.
///
/// # Safety
/// As `run_tiles`'s step loop: `V`'s features are present, step `j` lies in the tile.
#[inline(always)]
unsafe fn step<T: Scalar, I: Index, V: Lanes<T, I>>(
    a: &TileArgs<'_, T, I>,
    ahead: usize,
    vp: *const T,
    cp: *const I,
    j: usize,
    acc: V,
) -> V {
    let w = V::W;
    crate::arch::prefetch(a.vals, ahead + j * w);
    crate::arch::prefetch(a.col_idx, ahead + j * w);
    if V::PREFETCH_X && a.prefetch_x {
        let at = ahead - PF_AHEAD + j * w + PF_X_AHEAD;
        if let Some(cs) = a.col_idx.get(at..at + w) {
            cs.iter().for_each(|c| crate::arch::prefetch(a.x, c.to_usize()));
        }
    }
    // SAFETY: the caller's contract.
    unsafe { acc.fma(V::load(vp.add(j * w)), V::gather(a.x.as_ptr(), cp.add(j * w))) }
}

/// The per-tile state that steps with heads update (step 2 of the module docs).
struct Heads<'s, 'o, T, V, S, F, const L: usize, const N: usize> {
    lanes: &'s mut [T; L],
    out: &'s mut Sums<'o, T, F, N>,
    cnt: &'s mut [u32; L],
    /// Lanes that have seen a head.
    open: u32,
    /// The red pieces.
    reds: V,
    /// `Lanes::COMPRESS`: the lanes' slots, and the tile's green segments so far (`ng`
    /// values and their slots; a tile has at most `MAX_SEGMENTS`, and each compress
    /// writes `W <= 32` entries).
    slots: S,
    gvals: &'s mut [MaybeUninit<T>; MAX_SEGMENTS + 32],
    gslots: &'s mut [MaybeUninit<u32>; MAX_SEGMENTS + 32],
    ng: usize,
}

impl<T: Scalar, V: Copy, S: Copy, F: Fn(usize) -> usize, const L: usize, const N: usize>
    Heads<'_, '_, T, V, S, F, L, N>
{
    /// The heads `m` of a step close the lanes' open pieces of `acc`; those lanes restart.
    ///
    /// # Safety
    /// `V`'s features are present.
    #[inline(always)]
    unsafe fn close<I: Index>(&mut self, m: u32, acc: V) -> V
    where
        V: Lanes<T, I, Slots = S>,
    {
        // Green: lanes already inside a segment of their own close it.
        let green = m & self.open;
        // SAFETY: the caller's contract; `lanes` holds `L >= W` values; the green lists
        // hold `W` entries from `n` (see the field docs).
        unsafe {
            if green != 0 && V::COMPRESS {
                // `ng <= MAX_SEGMENTS`, so both lists have 32 >= W entries from `ng`.
                let n = self.ng.min(MAX_SEGMENTS);
                let (v, k) = (self.gvals[n..].as_mut_ptr(), self.gslots[n..].as_mut_ptr());
                acc.compress(green, &mut self.slots, v.cast(), k.cast());
                self.ng = n + green.count_ones() as usize;
            } else if green != 0 {
                acc.store(self.lanes.as_mut_ptr());
                let mut bits = green;
                while bits != 0 {
                    let i = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    self.out.put(self.cnt[i] as usize, self.lanes[i]);
                    self.cnt[i] += 1;
                }
            }
            // Red: a lane's first head closes a piece of an earlier lane's segment.
            self.reds = self.reds.add(acc.clear(!(m & !self.open)));
            self.open |= m;
            acc.clear(m)
        }
    }
}

/// Two registers of one width as one register of twice its lanes, for tiles of `omega`
/// = 2 x the width's lanes (AVX2's default layout, see
/// [`omega_for`](crate::formats::csr5::omega_for)). Green segments leave by the branch
/// per lane (`COMPRESS` false), and a long row runs one chain per register
/// (`RUN_CHAINS` 1: two per register spilled; "RUN_CHAINS" in the kernel-notes record).
#[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(dead_code))]
#[derive(Clone, Copy)]
pub(crate) struct Pair<V>(V, V);

impl<T: Scalar, I: Index, V: Lanes<T, I>> Lanes<T, I> for Pair<V> {
    const W: usize = 2 * V::W;
    type Slots = ();
    unsafe fn slots(_p: *const u32) {}
    #[inline(always)]
    unsafe fn load(p: *const T) -> Self {
        // SAFETY: `p` is valid for `2 * V::W` reads (trait contract).
        unsafe { Pair(V::load(p), V::load(p.add(V::W))) }
    }
    #[inline(always)]
    unsafe fn gather(x: *const T, idx: *const I) -> Self {
        // SAFETY: `idx` is valid for `2 * V::W` reads, each inside `x` (trait contract).
        unsafe { Pair(V::gather(x, idx), V::gather(x, idx.add(V::W))) }
    }
    #[inline(always)]
    unsafe fn fma(self, a: Self, b: Self) -> Self {
        // SAFETY: the trait contract.
        unsafe { Pair(self.0.fma(a.0, b.0), self.1.fma(a.1, b.1)) }
    }
    #[inline(always)]
    unsafe fn add(self, o: Self) -> Self {
        // SAFETY: the trait contract.
        unsafe { Pair(self.0.add(o.0), self.1.add(o.1)) }
    }
    #[inline(always)]
    unsafe fn lane0(v: T) -> Self {
        // SAFETY: the trait contract.
        unsafe { Pair(V::lane0(v), V::lane0(T::ZERO)) }
    }
    #[inline(always)]
    unsafe fn clear(self, mask: u32) -> Self {
        // SAFETY: the trait contract; each half reads only the low `V::W` bits it is given.
        unsafe { Pair(self.0.clear(mask), self.1.clear(mask >> V::W)) }
    }
    #[inline(always)]
    unsafe fn store(self, out: *mut T) {
        // SAFETY: `out` is valid for `2 * V::W` writes (trait contract).
        unsafe {
            self.0.store(out);
            self.1.store(out.add(V::W));
        }
    }
    #[inline(always)]
    unsafe fn heads(words: *const u32, j: u32) -> u32 {
        // SAFETY: `words` is valid for `2 * V::W` reads (trait contract).
        unsafe { V::heads(words, j) | V::heads(words.add(V::W), j) << V::W }
    }
}

/// The same arguments seen as another value/index type of the same size (`T` is `f32`
/// or `f64`, `I` is `u32`, `u64` or `usize`; `u16` has no typed kernel and runs the
/// portable one): how a width picks its typed kernel.
#[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(dead_code))]
pub(crate) fn recast<'a, T: Scalar, I: Index, T2: Scalar, I2: Index>(
    a: &TileArgs<'a, T, I>,
) -> Option<TileArgs<'a, T2, I2>> {
    use bytemuck::{try_cast, try_cast_slice};
    Some(TileArgs {
        sigma: a.sigma,
        row_ptr: try_cast_slice(a.row_ptr).ok()?,
        format: a.format,
        col_idx: try_cast_slice(a.col_idx).ok()?,
        vals: try_cast_slice(a.vals).ok()?,
        tile_ptr: try_cast_slice(a.tile_ptr).ok()?,
        tile_desc: a.tile_desc,
        empty_offset_ptr: try_cast_slice(a.empty_offset_ptr).ok()?,
        empty_offset: try_cast_slice(a.empty_offset).ok()?,
        x: try_cast_slice(a.x).ok()?,
        alpha: try_cast(a.alpha).ok()?,
        beta: try_cast(a.beta).ok()?,
        prefetch_x: a.prefetch_x,
        y0: a.y0,
    })
}

/// Runs complete tiles on `isa` when one of its kernels fits the layout (`omega` one
/// register of the width's lanes for `T`, or two or four where the width runs them; on
/// AVX-512 also AVX2's widths), otherwise on the portable kernel; the result is the same up
/// to rounding. `isa` must be available (the caller checked it; an unavailable one runs
/// portable).
pub(crate) fn tiles_isa<T: Scalar, I: Index>(
    isa: crate::Isa,
    omega: usize,
    a: &TileArgs<'_, T, I>,
    range: Range<usize>,
    y: &mut [T],
) -> (T, bool) {
    #[cfg(any(
        target_arch = "x86_64",
        target_arch = "aarch64",
        all(target_arch = "wasm32", target_feature = "simd128")
    ))]
    if let Ok(c) = crate::arch::Checked::new(isa) {
        #[cfg(target_arch = "wasm32")]
        let done = match c.isa() {
            crate::Isa::Wasm128 => {
                crate::arch::wasm32::simd128::spmv_csr5::tiles(c, omega, a, range.clone(), y)
            }
            _ => None,
        };
        #[cfg(target_arch = "aarch64")]
        let done = match c.isa() {
            crate::Isa::Neon => crate::arch::aarch64::neon::spmv_csr5::tiles(c, omega, a, range.clone(), y),
            _ => None,
        };
        #[cfg(target_arch = "x86_64")]
        let done = match c.isa() {
            crate::Isa::Avx2 => crate::arch::x86_64::avx2::spmv_csr5::tiles(c, omega, a, range.clone(), y),
            // A layout the AVX-512 kernel does not take may be AVX2's (one register).
            crate::Isa::Avx512 => {
                crate::arch::x86_64::avx512::spmv_csr5::tiles(c, omega, a, range.clone(), y)
                    .or_else(|| crate::arch::x86_64::avx2::spmv_csr5::tiles(c, omega, a, range.clone(), y))
            }
            _ => None,
        };
        if let Some(r) = done {
            return r;
        }
    }
    let _ = isa;
    crate::arch::portable::spmv_csr5::tiles(omega, a, range, T::ZERO, y)
}

#[cfg(test)]
mod tests {
    use super::prefetch_x;

    #[test]
    fn only_long_rows_over_an_x_past_l1_prefetch_x() {
        // `lp_like` (4096 x 2^20, 2500 a row), AVX-512 `f64` tiles of 8 x 32.
        assert!(prefetch_x::<f64>(4096, 1 << 20, 4096 * 2500, 8, 32));
        // `f32` tiles of 16 x 32: rows of 2500 are still longer.
        assert!(prefetch_x::<f32>(4096, 1 << 20, 4096 * 2500, 16, 32));
        // Rows shorter than a tile (`rmat`: 8 a row).
        assert!(!prefetch_x::<f64>(1 << 20, 1 << 20, 8 << 20, 8, 32));
        // `dense` 2048 x 2048: long rows, but `x` (16 KiB) stays in L1.
        assert!(!prefetch_x::<f64>(2048, 2048, 2048 * 2048, 8, 32));
        // No rows.
        assert!(!prefetch_x::<f64>(0, 1 << 20, 0, 8, 32));
    }
}
