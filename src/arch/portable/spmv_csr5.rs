//! The `portable` width of the CSR5 tile kernel (thesis 5.4): [`Port`], `W` lanes in an
//! array, run by `generic::spmv_csr5`'s tile loop for the portable layout's `omega`
//! (32 bytes of lanes, [`omega_for`]), and a row walk for any other `omega`.
//!
//! One `omega` and no segment buffer keep the kernel small where it matters most, on
//! microcontrollers: one instance of the tile loop per value type (not one per `omega`
//! from 1 to 32) and a stack frame of a few lane arrays (`examples/firmware`, whose
//! `check.py` holds the size and stack budgets).

use core::ops::Range;

use crate::arch::generic::spmv_csr5::{Lanes, TileArgs, run_tiles_in, scale_rows};
use crate::formats::csr5::omega_for;
use crate::{Index, Isa, Scalar};

/// The portable register: `W` values in an array (`W` a power of two up to 64).
#[derive(Clone, Copy)]
pub(crate) struct Port<T, const W: usize>([T; W]);

impl<T: Scalar, I: Index, const W: usize> Lanes<T, I> for Port<T, W> {
    const W: usize = W;
    type Slots = ();
    unsafe fn slots(_p: *const u32) {}
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
    unsafe fn add(self, o: Self) -> Self {
        Port(core::array::from_fn(|i| self.0[i] + o.0[i]))
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

/// The portable kernel for any `omega` a layout allows (1, 2, 4, .., 32): the tile loop
/// for the portable layout's, [`by_rows`] for the others.
pub(crate) fn tiles<T: Scalar, I: Index>(
    omega: usize,
    a: &TileArgs<'_, T, I>,
    tiles: Range<usize>,
    carry: T,
    y: &mut [T],
) -> (T, bool) {
    if omega != omega_for::<T>(Isa::Portable) {
        return by_rows(omega, a, tiles, carry, y);
    }
    // SAFETY: the portable register needs no CPU feature; `a` comes from a validated view
    // whose `omega` is the `W` chosen here.
    unsafe {
        match omega {
            4 => run_tiles_in::<T, I, Port<T, 4>, 4, 0>(a, tiles, carry, y),
            8 => run_tiles_in::<T, I, Port<T, 8>, 8, 0>(a, tiles, carry, y),
            _ => by_rows(omega, a, tiles, carry, y),
        }
    }
}

/// Complete tiles of any `omega`, as [`run_tiles_in`] runs them but row by row: each row's
/// entries in CSR order, found in their tiles by position (entry `q` of a tile lies in
/// lane `q / sigma` at step `q % sigma`, stored at `step * omega + lane`). The rows the
/// tiles own, `tile_ptr[tiles.start]..tile_ptr[tiles.end]`, are written (`alpha * s +
/// beta * y`; the empty ones `beta * y`), the first seeded with `carry`; the row
/// `tile_ptr[tiles.end]`, if it starts inside the tiles, goes on past them: its partial sum
/// is returned with `true`. Sums in row order: bit for bit the row-scalar loop's where no
/// carry enters.
fn by_rows<T: Scalar, I: Index>(
    omega: usize,
    a: &TileArgs<'_, T, I>,
    tiles: Range<usize>,
    carry: T,
    y: &mut [T],
) -> (T, bool) {
    let (sigma, rp) = (a.sigma, a.row_ptr);
    let len = omega * sigma;
    let (Some(first), Some(last)) = (a.tile_ptr.get(tiles.start), a.tile_ptr.get(tiles.end)) else {
        return (carry, false);
    };
    if tiles.is_empty() {
        return (carry, false);
    }
    let (first, last) = (first.unflagged().to_usize(), last.unflagged().to_usize());
    let end_of = |r: usize| rp.get(r + 1).map_or(0, |e| e.to_usize());
    // The entry cursor `p` (CSR position) and where it is stored: tile base, lane, step.
    let (mut p, p1) = (tiles.start * len, tiles.end * len);
    let (mut base, mut lane, mut step) = (p, 0, 0);
    let mut sum = carry;
    for r in first..=last {
        let end = if r == last { p1 } else { end_of(r) };
        if r == last && rp.get(r).is_none_or(|s| s.to_usize() >= p1) {
            break;
        }
        while p < end {
            let at = base + step * omega + lane;
            let (Some(&v), Some(c)) = (a.vals.get(at), a.col_idx.get(at)) else {
                return (T::ZERO, false);
            };
            sum += v * a.x.get(c.to_usize()).copied().unwrap_or(T::ZERO);
            p += 1;
            step += 1;
            if step == sigma {
                (step, lane) = (0, lane + 1);
                if lane == omega {
                    (lane, base) = (0, base + len);
                }
            }
        }
        if r == last {
            return (sum, true);
        }
        let i = r.wrapping_sub(a.y0);
        if rp.get(r).is_some_and(|s| s.to_usize() == end) {
            scale_rows(y, i..i.saturating_add(1), a.beta);
        } else if let Some(yr) = y.get_mut(i) {
            *yr = if a.beta == T::ZERO { a.alpha * sum } else { a.alpha * sum + a.beta * *yr };
        }
        sum = T::ZERO;
    }
    (T::ZERO, false)
}
