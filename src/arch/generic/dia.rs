//! The DIA SpMV (thesis 5.2.1) of the plans' blocked copy, whose block of rows holds its
//! slots of every diagonal one after another, and of [`crate::Dia`], whose diagonals are
//! whole ([`Blocks`] addresses both; [`crate::level2::dia`] holds the layouts). Rows
//! whose slots all lie inside the matrix run in strips of `S` rows whose sums stay in
//! registers while the diagonals stream past; the rows at the top and bottom edges (some
//! slots padding) add each diagonal's in-range stretch into a buffer. Either way a row
//! adds its slots in offset order, so every row's bits are those of a row-by-row loop on
//! every width.

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

/// Rows the edge path sums at once in a buffer on the stack (512 bytes of `f64`).
const EDGE_ROWS: usize = 64;

/// `acc[k] += vals[k] * x[first + k + off]`: one diagonal's stretch of rows
/// `first..first + acc.len()`, all inside the matrix (the caller clipped them).
#[inline(always)]
fn add_diagonal<T: Scalar>(acc: &mut [T], vals: &[T], x: &[T], first: usize, off: isize) {
    let x0 = first.wrapping_add_signed(off);
    let Some(xs) = x.get(x0..x0 + acc.len()) else { return };
    for ((a, &v), &xj) in acc.iter_mut().zip(vals).zip(xs) {
        *a += v * xj;
    }
}

/// `y[k] = alpha * acc[k] + beta * y[k]` for finished sums.
#[inline(always)]
fn put_block<T: Scalar>(y: &mut [T], acc: &[T], alpha: T, beta: T) {
    for (yi, &dot) in y.iter_mut().zip(acc) {
        *yi = crate::level2::axpby(alpha, dot, beta, *yi);
    }
}

/// The rows `first..first + y_rows.len()` of `y = alpha * A * x + beta * y` (`alpha !=
/// 0`, lengths checked by the caller): strips of `S` rows (`S` divides `a.block`, so no
/// strip straddles two blocks) where every slot lies inside the matrix, the rest by
/// [`edge`].
#[inline(always)]
pub(crate) fn blocks_loop<T: Scalar, const S: usize>(
    a: Blocks<'_, T>,
    first: usize,
    alpha: T,
    x: &[T],
    beta: T,
    y_rows: &mut [T],
) {
    let end = first + y_rows.len();
    let (Some(&lo_off), Some(&hi_off)) = (a.offsets.first(), a.offsets.last()) else {
        crate::level2::scale_y(beta, y_rows);
        return;
    };
    // Rows whose slots on every diagonal meet a column of the matrix (`i + lo_off >= 0`
    // and `i + hi_off < n`), whole strips of them.
    let lo = lo_off.min(0).unsigned_abs().max(first).next_multiple_of(S);
    let hi = a.ncols.saturating_sub(hi_off.max(0).unsigned_abs()).min(end) / S * S;
    if lo >= hi || a.block == 0 || !a.block.is_multiple_of(S) {
        edge(a, first..end, alpha, x, beta, y_rows);
        return;
    }
    let (head, rest) = y_rows.split_at_mut(lo - first);
    let (body, tail) = rest.split_at_mut(hi - lo);
    edge(a, first..lo, alpha, x, beta, head);
    for (k, y_s) in body.chunks_exact_mut(S).enumerate() {
        let row = lo + k * S;
        let slots = a.data.get(row / a.block * a.block_stride + row % a.block..).unwrap_or(&[]);
        let acc = strip::<T, S>(a.offsets, slots, a.diag_stride, x, row);
        put_block(y_s, &acc, alpha, beta);
    }
    edge(a, hi..end, alpha, x, beta, tail);
}

/// The sums of the `S` rows `row..row + S`, all of whose slots lie inside the matrix, at
/// `slots[d * diag_stride..]` on diagonal `d`.
#[inline(always)]
fn strip<T: Scalar, const S: usize>(
    offsets: &[isize],
    slots: &[T],
    diag_stride: usize,
    x: &[T],
    row: usize,
) -> [T; S] {
    let mut acc = [T::ZERO; S];
    for (d, &off) in offsets.iter().enumerate() {
        let (at, x0) = (d * diag_stride, row.wrapping_add_signed(off));
        let vals = slots.get(at..at + S).and_then(|v| <&[T; S]>::try_from(v).ok());
        let xs = x.get(x0..x0 + S).and_then(|v| <&[T; S]>::try_from(v).ok());
        let (Some(vals), Some(xs)) = (vals, xs) else { continue };
        for t in 0..S {
            acc[t] += vals[t] * xs[t];
        }
    }
    acc
}

/// Rows `rows` (`y_rows` holds exactly those), some of whose slots may be padding: at
/// most [`EDGE_ROWS`] rows of one block at a time, each diagonal's in-range stretch
/// added into a buffer, then `y_rows` written.
#[inline(always)]
fn edge<T: Scalar>(a: Blocks<'_, T>, rows: Range<usize>, alpha: T, x: &[T], beta: T, y_rows: &mut [T]) {
    let mut buf = [T::ZERO; EDGE_ROWS];
    let block = a.block.max(1);
    let mut r0 = rows.start;
    while r0 < rows.end {
        let (b0, r1) = (r0 - r0 % block, (r0 + EDGE_ROWS).min(rows.end));
        let r1 = r1.min(b0 + block);
        let slots = a.data.get(b0 / block * a.block_stride..).unwrap_or(&[]);
        let acc = &mut buf[..r1 - r0];
        acc.fill(T::ZERO);
        for (d, &off) in a.offsets.iter().enumerate() {
            // Rows of `r0..r1` whose column `i + off` lies in `0..ncols`.
            let in_range = crate::formats::dia::row_range(a.nrows, a.ncols, off);
            let (lo, hi) = (in_range.start.max(r0), in_range.end.min(r1));
            if lo >= hi {
                continue;
            }
            let at = d * a.diag_stride;
            let Some(vals) = slots.get(at + (lo - b0)..at + (hi - b0)) else {
                continue;
            };
            add_diagonal(&mut acc[lo - r0..hi - r0], vals, x, lo, off);
        }
        put_block(&mut y_rows[r0 - rows.start..r1 - rows.start], acc, alpha, beta);
        r0 = r1;
    }
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
