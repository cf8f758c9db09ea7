//! The symmetric-storage SpMV row loop shared by every width: `y = alpha * A * x + beta *
//! y` for `A = T + Tᵀ − diag(T)` with only the triangle `T` stored (CSR), in one pass
//! over `T`.
//!
//! Row `i` of `T` gives `y[i]` its dot product with `x` (the CSR row loop of thesis 8.3:
//! short rows by the sequential loop, longer ones by the width's vector dot product, the
//! `long` of [`sym_loop`]) and scatters `alpha * x[i] * a_ij` into `y[j]` for its
//! off-diagonal entries (the transposed part, as `level2::csc` scatters rows). The
//! scatter is a load and a store per entry, scalar on every width, except a row of
//! consecutive columns in a canonical matrix, whose scatter is one contiguous `axpy`
//! the compiler vectorises under the width's features.
//!
//! Rows run in the order that lets every `y[i]` be written first by its own row:
//! top-down for a lower triangle (row `i` scatters into rows above it, already
//! written), bottom-up for an upper one. So `beta * y[i]` is folded into row `i`'s write
//! and `beta == 0` never reads `y`. A block of rows ([`SymBlock`]) scatters only into its
//! own rows; entries whose column lies outside the block on the far side of the diagonal
//! (*cross* entries, [`Cross`]) are left for a second step once every block has written
//! its rows, which is how the threaded driver splits the work without private copies of
//! `y` (`parallel::spmv_symmetric`).

// The entry-point macro serves the SIMD widths only; targets without one leave it unused.
#![cfg_attr(
    not(any(
        target_arch = "x86_64",
        target_arch = "aarch64",
        all(target_arch = "wasm32", target_feature = "simd128")
    )),
    allow(unused_macros)
)]

use crate::arch::generic::spmv_csr::x_at;
use crate::arch::{PF_AHEAD, prefetch_span};
use crate::{Index, Scalar};

/// One block of rows `start..end` of a symmetric product and its stored triangle: the
/// block writes `y`'s rows `start..end` (its chunk of `y` starts at row `start`) and
/// scatters only into them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SymBlock {
    /// The block's first row.
    pub start: usize,
    /// One past its last row.
    pub end: usize,
    /// The lower triangle is stored (rows run top-down); else the upper (bottom-up).
    pub lower: bool,
    /// The rows are canonical (strictly increasing columns): a row whose ends are its
    /// length apart is one run of consecutive columns.
    pub canonical: bool,
}

impl SymBlock {
    /// The rows row `i` scatters into inside the block, as `(first, count)`: `start..i`
    /// for a lower triangle, `i + 1..end` for an upper one (never `i` itself: the
    /// diagonal is stored once).
    #[inline(always)]
    pub(crate) fn window<const LOWER: bool>(self, i: usize) -> (usize, usize) {
        if LOWER { (self.start, i - self.start) } else { (i + 1, self.end - i - 1) }
    }

    /// Whether column `j` of a row of the block lies past the block's edge on the far
    /// side of the diagonal: a cross entry, left for [`Cross`]'s step.
    #[inline(always)]
    pub(crate) fn crosses<const LOWER: bool>(self, j: usize) -> bool {
        if LOWER { j < self.start } else { j >= self.end }
    }
}

/// The rows of a block holding cross entries and the rows of `y` those entries scatter
/// into, each as a half-open span (empty when the block has none): what the second step
/// of a split symmetric product reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cross {
    /// Rows `rows.0..rows.1` of the block hold every cross entry.
    pub rows: (usize, usize),
    /// Their columns lie in `targets.0..targets.1`.
    pub targets: (usize, usize),
}

impl Cross {
    /// No cross entry.
    pub(crate) const NONE: Cross = Cross { rows: (usize::MAX, 0), targets: (usize::MAX, 0) };

    /// Whether there is no cross entry.
    pub(crate) fn is_empty(self) -> bool {
        self.rows.0 >= self.rows.1
    }

    /// Adds row `i`'s cross entries in columns `lo..hi`. Inline: a call in the row loops,
    /// even a cold one, made them keep their pointers on the stack across it.
    #[inline(always)]
    pub(crate) fn add(&mut self, i: usize, lo: usize, hi: usize) {
        self.rows = (self.rows.0.min(i), self.rows.1.max(i + 1));
        self.targets = (self.targets.0.min(lo), self.targets.1.max(hi));
    }
}

/// The symmetric SpMV of one block `b` (rows `b.start..b.end`, `y` its rows of the
/// result): `y[i] = alpha * (row i · x) + beta * y[i]` plus the scatter of every row's
/// off-diagonal entries into the block's rows; returns the cross entries left out.
/// Rows shorter than `short` run one fused scalar loop (dot product and scatter in one
/// pass over the row); longer rows take `long` (the width's dot product) and then the
/// scatter. `row_ptr` is the whole triangle's (`n + 1` entries), `x` all of `x`.
///
/// Sound for any slices (rows past `row_ptr` or `y` are skipped); a validated
/// [`Symmetric`](crate::Symmetric) with `x.len() == n` computes the product.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn sym_loop<T: Scalar, I: Index>(
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[T],
    x: &[T],
    alpha: T,
    beta: T,
    y: &mut [T],
    b: SymBlock,
    short: usize,
    long: impl Fn(&[I], &[T], &[T]) -> T,
) -> Cross {
    let end = b.end.min(b.start.saturating_add(y.len())).min(row_ptr.len().saturating_sub(1));
    if b.start >= end {
        return Cross::NONE;
    }
    let b = SymBlock { end, ..b };
    let args = Args { row_ptr, col_idx, vals, x, alpha, beta, b, short };
    // Four loops, so that `beta == 0` never reads `y` and the triangle's tests are constants.
    match (b.lower, beta == T::ZERO) {
        (true, true) => rows_by::<T, I, true, true>(args, y, &long),
        (true, false) => rows_by::<T, I, true, false>(args, y, &long),
        (false, true) => rows_by::<T, I, false, true>(args, y, &long),
        (false, false) => rows_by::<T, I, false, false>(args, y, &long),
    }
}

/// What every row of [`sym_loop`] reads.
#[derive(Clone, Copy)]
struct Args<'a, T, I> {
    row_ptr: &'a [I],
    col_idx: &'a [I],
    vals: &'a [T],
    x: &'a [T],
    alpha: T,
    beta: T,
    b: SymBlock,
    short: usize,
}

/// [`sym_loop`]'s rows in the triangle's order (`b.end` within `row_ptr` and `y`).
#[inline(always)]
fn rows_by<T: Scalar, I: Index, const LOWER: bool, const B0: bool>(
    a: Args<'_, T, I>,
    y: &mut [T],
    long: &impl Fn(&[I], &[T], &[T]) -> T,
) -> Cross {
    let mut cross = Cross::NONE;
    if LOWER {
        for i in a.b.start..a.b.end {
            row::<T, I, LOWER, B0>(a, i, y, long, &mut cross);
        }
    } else {
        for i in (a.b.start..a.b.end).rev() {
            row::<T, I, LOWER, B0>(a, i, y, long, &mut cross);
        }
    }
    cross
}

/// Row `i` of [`sym_loop`]: its dot product into `y[i]` and its scatter.
#[inline(always)]
fn row<T: Scalar, I: Index, const LOWER: bool, const B0: bool>(
    a: Args<'_, T, I>,
    i: usize,
    y: &mut [T],
    long: &impl Fn(&[I], &[T], &[T]) -> T,
    cross: &mut Cross,
) {
    let b = a.b;
    let (s, e) = (a.row_ptr[i].to_usize(), a.row_ptr[i + 1].to_usize());
    let (cols, vs) = match (a.col_idx.get(s..e), a.vals.get(s..e)) {
        (Some(c), Some(v)) => (c, v),
        _ => (&[][..], &[][..]),
    };
    // `alpha * x[i]`: each scattered entry adds `a_ij` times it.
    let xs = a.alpha * a.x.get(i).copied().unwrap_or(T::ZERO);
    let (w0, wn) = b.window::<LOWER>(i);
    // `y`'s index of row `w0`, the window's first.
    let base = w0 - b.start;
    // The streams run forwards for a lower triangle, backwards for an upper one.
    let ahead = if LOWER { s + PF_AHEAD } else { s.saturating_sub(PF_AHEAD) };
    // Short rows go without the software prefetch of the CSR row loop: it slowed this
    // loop, whose scatter keeps the load ports busier (`benches/records/symmetric-*.md`).
    let d = if cols.len() < a.short {
        let mut acc = T::ZERO;
        for (&c, &v) in cols.iter().zip(vs) {
            acc += v * x_at(a.x, c);
            let j = c.to_usize();
            let o = j.wrapping_sub(w0);
            if o < wn {
                y[base + o] += v * xs;
            } else if b.crosses::<LOWER>(j) {
                cross.add(i, j, j + 1);
            }
        }
        acc
    } else {
        prefetch_span(a.col_idx, ahead, cols.len().min(256));
        prefetch_span(a.vals, ahead, cols.len().min(256));
        let d = long(cols, vs, a.x);
        scatter::<T, I, LOWER>(i, cols, vs, xs, y, b, cross);
        d
    };
    let yi = &mut y[i - b.start];
    *yi = if B0 { a.alpha * d } else { a.alpha * d + a.beta * *yi };
}

/// The scatter of a long row `i`: `y[j] += v * xs` for its entries in the block's window,
/// the cross entries noted. A canonical row of consecutive columns scatters into one
/// contiguous stretch of `y` (a loop the compiler vectorises).
#[inline(always)]
fn scatter<T: Scalar, I: Index, const LOWER: bool>(
    i: usize,
    cols: &[I],
    vs: &[T],
    xs: T,
    y: &mut [T],
    b: SymBlock,
    cross: &mut Cross,
) {
    let (w0, wn) = b.window::<LOWER>(i);
    let base = w0 - b.start;
    let n = cols.len().min(vs.len());
    let (c0, cl) = match (cols.first(), cols.get(n.wrapping_sub(1))) {
        (Some(f), Some(l)) => (f.to_usize(), l.to_usize()),
        _ => (0, usize::MAX),
    };
    if b.canonical && cl.wrapping_sub(c0) == n.wrapping_sub(1) {
        // Columns `c0..c0 + n`: the window's part in place, the rest noted as cross.
        let (lo, hi) = (c0.max(w0), (c0 + n).min(w0 + wn));
        if lo < hi {
            let ys = &mut y[base + lo - w0..base + hi - w0];
            for (yv, &v) in ys.iter_mut().zip(&vs[lo - c0..hi - c0]) {
                *yv += v * xs;
            }
        }
        if LOWER && c0 < b.start {
            cross.add(i, c0, (c0 + n).min(b.start));
        } else if !LOWER && c0 + n > b.end {
            cross.add(i, c0.max(b.end), c0 + n);
        }
        return;
    }
    for (&c, &v) in cols.iter().zip(vs) {
        let j = c.to_usize();
        let o = j.wrapping_sub(w0);
        if o < wn {
            y[base + o] += v * xs;
        } else if b.crosses::<LOWER>(j) {
            cross.add(i, j, j + 1);
        }
    }
}

/// Stamps out a width's `#[target_feature]` symmetric SpMV entry point `$sym` for one
/// operand pair: [`sym_loop`] with the width's `DotVec::SHORT` and its dot product `$dot`
/// (the CSR row kernels' `dot_*`), compiled with the width's features so the contiguous
/// scatter is vectorised with them.
macro_rules! spmv_sym_kernels {
    ($feature:literal, $vec:ty, $t:ty, $i:ty, $sym:ident, $dot:ident) => {
        /// The symmetric-storage SpMV of one block on this width; see
        /// [`sym_loop`](crate::arch::generic::spmv_sym::sym_loop).
        ///
        /// # Safety
        /// The CPU supports the target features enabled here.
        #[target_feature(enable = $feature)]
        #[allow(clippy::too_many_arguments)]
        pub(crate) unsafe fn $sym(
            row_ptr: &[$i],
            col_idx: &[$i],
            vals: &[$t],
            x: &[$t],
            alpha: $t,
            beta: $t,
            y: &mut [$t],
            b: $crate::arch::generic::spmv_sym::SymBlock,
        ) -> $crate::arch::generic::spmv_sym::Cross {
            let short = <$vec as $crate::arch::generic::spmv_csr::DotVec>::SHORT;
            $crate::arch::generic::spmv_sym::sym_loop::<$t, $i>(
                row_ptr,
                col_idx,
                vals,
                x,
                alpha,
                beta,
                y,
                b,
                short,
                |c, v, xx| {
                    // SAFETY: `$dot` needs this width's features, which are enabled on this
                    // function (the caller's promise); it bounds its own reads.
                    unsafe { $dot(c, v, xx) }
                },
            )
        }
    };
}

#[allow(unused_imports)]
pub(crate) use spmv_sym_kernels;
