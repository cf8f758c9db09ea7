//! The DIA SpMV of the plans' blocked copy (thesis 5.2.1; [`crate::level2::dia`] holds
//! the layout): each block of rows holds its slots of every diagonal one after another.
//! Rows whose slots all lie inside the matrix run in strips of `S` rows whose sums stay
//! in registers while the diagonals stream past; the rows at the top and bottom edges
//! (some slots padding) add each diagonal's in-range stretch into a buffer. Either way a
//! row adds its slots in offset order, so every row's bits are those of a row-by-row loop
//! on every width.

use super::super::Checked;
use crate::Scalar;
use core::ops::Range;

/// A DIA matrix's parts, borrowed, as the kernel walks them: `nrows × ncols`, the sorted
/// `offsets`, and `data`, whose slot of row `i` on diagonal `d` lies at `(i / block) *
/// block_stride + d * diag_stride + i % block`. The plans' blocked copy: `diag_stride =
/// block`, `block_stride = ndiag * block`; [`crate::Dia`] (each diagonal whole):
/// `diag_stride = nrows`, `block_stride = block`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Blocks<'s, T> {
    pub(crate) nrows: usize,
    pub(crate) ncols: usize,
    pub(crate) block: usize,
    pub(crate) block_stride: usize,
    pub(crate) diag_stride: usize,
    pub(crate) offsets: &'s [isize],
    pub(crate) data: &'s [T],
}

/// Most rows in a block of [`Blocks`]: the edge buffer's length.
pub(crate) const MAX_BLOCK: usize = 256;

/// `acc[k] += vals[k] * x[first + k + off]`: one diagonal's stretch of rows
/// `first..first + acc.len()`, all inside the matrix (the caller clipped them).
#[inline(always)]
pub(crate) fn add_diagonal<T: Scalar>(acc: &mut [T], vals: &[T], x: &[T], first: usize, off: isize) {
    let x0 = first.wrapping_add_signed(off);
    let Some(xs) = x.get(x0..x0 + acc.len()) else { return };
    for ((a, &v), &xj) in acc.iter_mut().zip(vals).zip(xs) {
        *a += v * xj;
    }
}

/// `y[k] = alpha * acc[k] + beta * y[k]` for finished sums.
#[inline(always)]
pub(crate) fn put_block<T: Scalar>(y: &mut [T], acc: &[T], alpha: T, beta: T) {
    for (yi, &dot) in y.iter_mut().zip(acc) {
        *yi = crate::level2::axpby(alpha, dot, beta, *yi);
    }
}

/// The rows `first..first + y_rows.len()` of `y = alpha * A * x + beta * y` (`alpha !=
/// 0`, lengths checked by the caller), strips of `S` rows where every slot lies inside
/// the matrix.
#[inline(always)]
pub(crate) fn blocks_loop<T: Scalar, const S: usize>(
    a: Blocks<'_, T>,
    first: usize,
    alpha: T,
    x: &[T],
    beta: T,
    y_rows: &mut [T],
) {
    let (m, n, block, ds) = (a.nrows, a.ncols, a.block.clamp(1, MAX_BLOCK), a.diag_stride);
    let (Some(&lo_off), Some(&hi_off)) = (a.offsets.first(), a.offsets.last()) else {
        crate::level2::scale_y(beta, y_rows);
        return;
    };
    // Rows whose slots on every diagonal meet a column of the matrix: `i + lo_off >= 0`
    // and `i + hi_off < n`.
    let inner = lo_off.min(0).unsigned_abs()..n.saturating_sub(hi_off.max(0).unsigned_abs());
    let end = first + y_rows.len();
    let mut r = first;
    while r < end {
        let b0 = r - r % block;
        let rows = r..(b0 + block).min(m).min(end);
        let slots = a.data.get(b0 / block * a.block_stride..).unwrap_or(&[]);
        let y_blk = &mut y_rows[rows.start - first..rows.end - first];
        let (lo, hi) = (inner.start.clamp(rows.start, rows.end), inner.end.clamp(rows.start, rows.end));
        let (lo, hi) = if lo < hi { (lo, hi) } else { (rows.end, rows.end) };
        // Strips of S interior rows; the edge rows and a short tail by the buffer.
        let strips_end = lo + (hi - lo) / S * S;
        edge(a, slots, b0, rows.start..lo, alpha, x, beta, &mut y_blk[..lo - rows.start]);
        let mut s = lo;
        while s < strips_end {
            let acc = strip::<T, S>(a.offsets, slots, ds, s - b0, x, s);
            put_block(&mut y_blk[s - rows.start..s - rows.start + S], &acc, alpha, beta);
            s += S;
        }
        edge(a, slots, b0, strips_end..rows.end, alpha, x, beta, &mut y_blk[strips_end - rows.start..]);
        r = rows.end;
    }
}

/// The sums of the `S` rows `row..row + S`, all of whose slots lie inside the matrix, at
/// `slots[d * diag_stride + k..]` on diagonal `d`.
#[inline(always)]
fn strip<T: Scalar, const S: usize>(
    offsets: &[isize],
    slots: &[T],
    diag_stride: usize,
    k: usize,
    x: &[T],
    row: usize,
) -> [T; S] {
    let mut acc = [T::ZERO; S];
    for (d, &off) in offsets.iter().enumerate() {
        let x0 = row.wrapping_add_signed(off);
        let at = d * diag_stride + k;
        let vals = slots.get(at..at + S).and_then(|v| <&[T; S]>::try_from(v).ok());
        let xs = x.get(x0..x0 + S).and_then(|v| <&[T; S]>::try_from(v).ok());
        let (Some(vals), Some(xs)) = (vals, xs) else { continue };
        for t in 0..S {
            acc[t] += vals[t] * xs[t];
        }
    }
    acc
}

/// Rows `rows` of one block (starting at row `b0`, its slots at `slots`), some of whose
/// slots may be padding: each diagonal's in-range stretch added into a buffer, then
/// `y_rows` written.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn edge<T: Scalar>(
    a: Blocks<'_, T>,
    slots: &[T],
    b0: usize,
    rows: Range<usize>,
    alpha: T,
    x: &[T],
    beta: T,
    y_rows: &mut [T],
) {
    if rows.is_empty() {
        return;
    }
    let mut acc = [T::ZERO; MAX_BLOCK];
    let acc = &mut acc[..rows.len()];
    for (d, &off) in a.offsets.iter().enumerate() {
        // Rows of `rows` whose column `i + off` lies in `0..ncols`.
        let in_range = crate::formats::dia::row_range(a.nrows, a.ncols, off);
        let (lo, hi) = (in_range.start.max(rows.start), in_range.end.min(rows.end));
        if lo >= hi {
            continue;
        }
        let at = d * a.diag_stride;
        let Some(vals) = slots.get(at + (lo - b0)..at + (hi - b0)) else {
            continue;
        };
        add_diagonal(&mut acc[lo - rows.start..hi - rows.start], vals, x, lo, off);
    }
    put_block(y_rows, acc, alpha, beta);
}

/// Stamps out a width's `#[target_feature]` entry point `rows`: [`blocks_loop`] with
/// strips of `$strip` rows, compiled with the width's features.
#[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(unused_macros))]
macro_rules! dia_kernels {
    ($feature:literal, $strip:literal) => {
        /// The blocked DIA SpMV on this width; see
        /// [`blocks_loop`](crate::arch::generic::dia::blocks_loop).
        ///
        /// # Safety
        /// The CPU supports the target features enabled here.
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn rows<T: $crate::Scalar>(
            a: $crate::arch::generic::dia::Blocks<'_, T>,
            first: usize,
            alpha: T,
            x: &[T],
            beta: T,
            y: &mut [T],
        ) {
            $crate::arch::generic::dia::blocks_loop::<T, $strip>(a, first, alpha, x, beta, y)
        }
    };
}
#[allow(unused_imports)]
pub(crate) use dia_kernels;

/// Rows a strip of the portable build holds: 8 `f64` fill half of SSE2's registers.
const PORTABLE_STRIP: usize = 8;

/// The rows `first..first + y_rows.len()` of `y = alpha * A * x + beta * y` for the
/// blocked DIA copy `a` on `isa`'s width (lengths checked by the caller).
pub(crate) fn blocks_rows<T: Scalar>(
    isa: Checked,
    a: Blocks<'_, T>,
    first: usize,
    alpha: T,
    x: &[T],
    beta: T,
    y_rows: &mut [T],
) {
    if alpha == T::ZERO {
        crate::level2::scale_y(beta, y_rows);
        return;
    }
    crate::arch::dispatch!(
        isa,
        dia::rows::<T>(a, first, alpha, x, beta, y_rows),
        else blocks_loop::<T, PORTABLE_STRIP>(a, first, alpha, x, beta, y_rows)
    )
}
