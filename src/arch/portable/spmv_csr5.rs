//! The CSR5 tile kernel (thesis 8.5, Alg. 32), written once over a register of `W` lanes
//! ([`Lanes`]) and instantiated by every width: the portable one here (plain arrays, any
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
//!    kept; the lanes with heads restart from zero;
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

use core::ops::Range;

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
    /// `W` values from `p`.
    unsafe fn load(p: *const T) -> Self;
    /// `x[idx[i]]` for each lane; every `idx[i]` indexes `x`.
    unsafe fn gather(x: *const T, idx: *const I) -> Self;
    /// `self + a * b`, lane-wise.
    unsafe fn fma(self, a: Self, b: Self) -> Self;
    /// `[v, 0, .., 0]`.
    unsafe fn lane0(v: T) -> Self;
    /// Lanes whose bit is set in `mask` become zero.
    unsafe fn clear(self, mask: u32) -> Self;
    /// Writes the `W` lanes to `out`.
    unsafe fn store(self, out: *mut T);
    /// Bit `i` = bit `j` of `words[i]`, for the `W` descriptor words at `words`.
    unsafe fn heads(words: *const u32, j: u32) -> u32;
}

/// What the tile kernel reads: a validated CSR5 view's arrays, `x`, `alpha`, `beta`.
#[derive(Clone, Copy)]
pub(crate) struct TileArgs<'a, T, I> {
    pub sigma: usize,
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
}

/// `y[r] = alpha * v + beta * y[r]` (`y[r]` unread when `beta == 0`).
#[inline(always)]
fn put<T: Scalar>(y: &mut [T], r: usize, alpha: T, beta: T, v: T) {
    if let Some(yr) = y.get_mut(r) {
        *yr = if beta == T::ZERO { alpha * v } else { alpha * v + beta * *yr };
    }
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

/// Runs the complete tiles `tiles` (Alg. 32), seeding the first with `carry`; returns
/// the partial sum of the last tile's last segment and whether its row goes on into tile
/// `tiles.end` (then it was not written).
///
/// # Safety
/// `V`'s features are present; `a` comes from a validated CSR5 view with `omega == V::W`
/// and `tiles.end <= tiles`; `y.len() == nrows`.
#[inline(always)]
pub(crate) unsafe fn run_tiles<T: Scalar, I: Index, V: Lanes<T, I>>(
    a: &TileArgs<'_, T, I>,
    tiles: Range<usize>,
    mut carry: T,
    y: &mut [T],
) -> (T, bool) {
    let w = V::W;
    let sigma = a.sigma;
    let len = w * sigma;
    let mut goes_on = false;
    for t in tiles {
        let (Some(&tp), Some(&tn), Some(words)) =
            (a.tile_ptr.get(t), a.tile_ptr.get(t + 1), a.tile_desc.get(t * w..(t + 1) * w))
        else {
            break;
        };
        let r0 = tp.unflagged().to_usize();
        let next = tn.unflagged().to_usize();
        let eoff: &[I] = if tp.is_flagged() {
            let (e0, e1) = (a.empty_offset_ptr[t].to_usize(), a.empty_offset_ptr[t + 1].to_usize());
            a.empty_offset.get(e0..e1).unwrap_or(&[])
        } else {
            &[]
        };
        let dirty = tp.is_flagged();
        let row_of = |k: usize| if dirty { r0 + eoff.get(k).map_or(0, |v| v.to_usize()) } else { r0 + k };

        // Per lane: the index (in the tile) of its current segment, its red piece, and
        // the length of the head-less run to its right.
        let mut cnt = [0usize; 64];
        let mut seg = [0usize; 64];
        for (i, &wd) in words.iter().enumerate() {
            cnt[i] = a.format.y_offset(wd);
            seg[i] = a.format.seg_offset(wd);
        }
        let mut red = [T::ZERO; 64];
        let mut lanes = [T::ZERO; 64];
        let base = t * len;
        let cp = a.col_idx[base..base + len].as_ptr();
        let vp = a.vals[base..base + len].as_ptr();
        let xp = a.x.as_ptr();
        // SAFETY: the caller proved `V`'s features; `cp`/`vp` point to the tile's `len =
        // W * sigma` entries, so step `j` reads `W` at offset `j * W < len`; every column
        // index of a validated view is `< ncols == x.len()`; `words` holds `W` words.
        unsafe {
            let mut seen = V::heads(words.as_ptr(), 0);
            let mut acc = V::lane0(carry).fma(V::load(vp), V::gather(xp, cp));
            for j in 1..sigma {
                let m = V::heads(words.as_ptr(), j as u32);
                if m != 0 {
                    acc.store(lanes.as_mut_ptr());
                    let mut bits = m;
                    while bits != 0 {
                        let i = bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        if seen >> i & 1 == 1 {
                            put(y, row_of(cnt[i]), a.alpha, a.beta, lanes[i]);
                            cnt[i] += 1;
                        } else {
                            red[i] = lanes[i];
                        }
                    }
                    seen |= m;
                    acc = acc.clear(m);
                }
                acc = acc.fma(V::load(vp.add(j * w)), V::gather(xp, cp.add(j * w)));
            }
            acc.store(lanes.as_mut_ptr());
        }
        // Head-less lanes are one red piece; then the backward segmented sum (step 3).
        let seen = {
            let mut s = 0u32;
            for (i, &wd) in words.iter().enumerate() {
                if a.format.bit_flag(wd) != 0 {
                    s |= 1 << i;
                }
            }
            s
        };
        let mut run = T::ZERO;
        let mut sums = [T::ZERO; 64];
        for i in (0..w).rev() {
            if seen >> i & 1 == 0 {
                red[i] = lanes[i];
            }
            // `run` is s_{i+1}; s_i = red_{i+1} + (seg_offset_i > 0 ? s_{i+1} : 0).
            let next_red = if i + 1 < w { red[i + 1] } else { T::ZERO };
            let s = if seg[i] > 0 { next_red + run } else { next_red };
            sums[i] = s;
            run = s;
        }
        let last_lane = seen.checked_ilog2().map_or(usize::MAX, |b| b as usize);
        carry = T::ZERO;
        goes_on = false;
        let mut bits = seen;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let v = lanes[i] + sums[i];
            let r = row_of(cnt[i]);
            if i == last_lane && r == next {
                carry = v;
                goes_on = true;
            } else {
                put(y, r, a.alpha, a.beta, v);
            }
        }
        if dirty {
            // The empty rows between the segments, and after the last one up to `next`.
            let nseg = eoff.len();
            for k in 1..nseg {
                scale_rows(y, row_of(k - 1) + 1..row_of(k), a.beta);
            }
            if nseg > 0 {
                scale_rows(y, row_of(nseg - 1) + 1..next, a.beta);
            }
        }
    }
    (carry, goes_on)
}

/// The portable register: `W` values in an array (`W` a power of two up to 64).
#[derive(Clone, Copy)]
pub(crate) struct Port<T, const W: usize>([T; W]);

impl<T: Scalar, I: Index, const W: usize> Lanes<T, I> for Port<T, W> {
    const W: usize = W;
    #[inline(always)]
    unsafe fn load(p: *const T) -> Self {
        // SAFETY: `p` is valid for `W` reads (trait contract).
        Port(core::array::from_fn(|i| unsafe { *p.add(i) }))
    }
    #[inline(always)]
    unsafe fn gather(x: *const T, idx: *const I) -> Self {
        // SAFETY: `idx` is valid for `W` reads and each index is in `x` (trait contract).
        Port(core::array::from_fn(|i| unsafe { *x.add((*idx.add(i)).to_usize()) }))
    }
    #[inline(always)]
    unsafe fn fma(self, a: Self, b: Self) -> Self {
        Port(core::array::from_fn(|i| self.0[i] + a.0[i] * b.0[i]))
    }
    #[inline(always)]
    unsafe fn lane0(v: T) -> Self {
        let mut r = [T::ZERO; W];
        r[0] = v;
        Port(r)
    }
    #[inline(always)]
    unsafe fn clear(self, mask: u32) -> Self {
        Port(core::array::from_fn(|i| if mask >> i & 1 == 1 { T::ZERO } else { self.0[i] }))
    }
    #[inline(always)]
    unsafe fn store(self, out: *mut T) {
        // SAFETY: `out` is valid for `W` writes (trait contract).
        unsafe { core::ptr::copy_nonoverlapping(self.0.as_ptr(), out, W) }
    }
    #[inline(always)]
    unsafe fn heads(words: *const u32, j: u32) -> u32 {
        let mut m = 0;
        for i in 0..W {
            // SAFETY: `words` is valid for `W` reads (trait contract).
            m |= ((unsafe { *words.add(i) } >> j) & 1) << i;
        }
        m
    }
}

/// The portable kernel for any `omega` a layout allows (1, 2, 4, .., 32).
pub(crate) fn tiles<T: Scalar, I: Index>(
    omega: usize,
    a: &TileArgs<'_, T, I>,
    tiles: Range<usize>,
    carry: T,
    y: &mut [T],
) -> (T, bool) {
    // SAFETY: the portable register needs no CPU feature; `a` comes from a validated view
    // whose `omega` selects the matching `W`.
    unsafe {
        match omega {
            1 => run_tiles::<T, I, Port<T, 1>>(a, tiles, carry, y),
            2 => run_tiles::<T, I, Port<T, 2>>(a, tiles, carry, y),
            4 => run_tiles::<T, I, Port<T, 4>>(a, tiles, carry, y),
            8 => run_tiles::<T, I, Port<T, 8>>(a, tiles, carry, y),
            16 => run_tiles::<T, I, Port<T, 16>>(a, tiles, carry, y),
            32 => run_tiles::<T, I, Port<T, 32>>(a, tiles, carry, y),
            _ => (carry, false),
        }
    }
}

/// The same arguments seen as another value/index type of the same size (`T` is `f32`
/// or `f64`, `I` is `u32`, `u64` or `usize`): how a width picks its typed kernel.
pub(crate) fn recast<'a, T: Scalar, I: Index, T2: Scalar, I2: Index>(
    a: &TileArgs<'a, T, I>,
) -> Option<TileArgs<'a, T2, I2>> {
    use bytemuck::{try_cast, try_cast_slice};
    Some(TileArgs {
        sigma: a.sigma,
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
    })
}

/// Runs complete tiles on `isa` when its kernel fits the layout (`omega` equal to the
/// width's lanes for `T`), otherwise on the portable kernel; the result is the same up
/// to rounding. `isa` must be available (the caller checked it; an unavailable one runs
/// portable).
pub(crate) fn tiles_isa<T: Scalar, I: Index>(
    isa: crate::Isa,
    omega: usize,
    a: &TileArgs<'_, T, I>,
    range: Range<usize>,
    y: &mut [T],
) -> (T, bool) {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    if let Some(c) = super::merge::Checked::new(isa) {
        #[cfg(target_arch = "aarch64")]
        let done = match c.isa() {
            crate::Isa::Neon => crate::arch::aarch64::neon::spmv_csr5::tiles(c, omega, a, range.clone(), y),
            _ => None,
        };
        #[cfg(target_arch = "x86_64")]
        let done = match c.isa() {
            crate::Isa::Avx2 => crate::arch::x86_64::avx2::spmv_csr5::tiles(c, omega, a, range.clone(), y),
            crate::Isa::Avx512 => {
                crate::arch::x86_64::avx512::spmv_csr5::tiles(c, omega, a, range.clone(), y)
            }
            _ => None,
        };
        if let Some(r) = done {
            return r;
        }
    }
    let _ = isa;
    tiles(omega, a, range, T::ZERO, y)
}
