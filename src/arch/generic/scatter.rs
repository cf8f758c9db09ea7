//! The row scatter of `y += alpha * Aᵀ * x` on CSR (`level2::spmv_csr_transpose`, CSC
//! SpMV): row `i` adds `alpha * x[i] * a_ij` into `y[j]`.
//!
//! An entry's add is a load and a store of its own `y[j]`, so a row of scattered columns
//! runs one entry at a time on every width. A run of consecutive columns, though, is an
//! axpy on `y[c..c + len]`: whole registers, no gathers or scatters
//! (`benches/records/transpose-*.md`: on banded and dense rows the entry-by-entry
//! scatter ran 0.1–0.5× `A * x`). A canonical row (strictly increasing columns) whose
//! first and last columns are `len - 1` apart is one run and is added as one axpy; other
//! rows are walked in chunks of [`run_len`] entries, and a chunk whose columns are `c, c
//! + 1, ...` is added as one vector operation, any other entry by itself (in canonical
//! rows the chunk's first and last columns decide; otherwise every column is compared).
//! The adds are the same (`y[j] + v * s`, no fused multiply-add) in the same order per
//! `y[j]` either way, so the result is the same bits on every width.

use core::ops::Range;

use crate::arch::Checked;
use crate::{Index, Scalar};

/// Entries a chunk holds: 64 bytes of values (a register on AVX-512, two on AVX2).
#[inline(always)]
pub(crate) const fn run_len<T>() -> usize {
    64 / size_of::<T>()
}

/// `y += alpha * A[rows, :]ᵀ * x[rows]` for the CSR arrays `row_ptr`, `col_idx`, `vals`
/// (validated: every column below `y.len()`, `rows` within the rows, `x` one entry a
/// row; `CANONICAL`: every row strictly increasing). Written once, compiled per width by
/// the entry points so the runs use that width's registers.
#[inline(always)]
pub(crate) fn scatter_loop<T: Scalar, I: Index, const CANONICAL: bool>(
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[T],
    rows: Range<usize>,
    alpha: T,
    x: &[T],
    y: &mut [T],
) {
    let run = run_len::<T>();
    for i in rows {
        let s = alpha * x[i];
        let r = row_ptr[i].to_usize()..row_ptr[i + 1].to_usize();
        let (cols, vs) = (&col_idx[r.clone()], &vals[r]);
        let (Some(first), Some(last)) = (cols.first(), cols.last()) else { continue };
        let c0 = first.to_usize();
        if CANONICAL
            && cols.len() >= run
            && last.to_usize().wrapping_sub(c0) == cols.len() - 1
            && let Some(yr) = y.get_mut(c0..c0 + vs.len())
        {
            axpy(yr, vs, s);
            continue;
        }
        let (cc, vc) = (cols.chunks_exact(run), vs.chunks_exact(run));
        let (ct, vt) = (cc.remainder(), vc.remainder());
        for (c, v) in cc.zip(vc) {
            let c0 = c[0].to_usize();
            let is_run = c[run - 1].to_usize().wrapping_sub(c0) == run - 1
                && (CANONICAL || c.iter().enumerate().fold(true, |ok, (t, j)| ok & (j.to_usize() == c0 + t)));
            match y.get_mut(c0..c0 + run) {
                Some(yc) if is_run => axpy(yc, v, s),
                _ => scatter(y, c, v, s),
            }
        }
        scatter(y, ct, vt, s);
    }
}

/// `y[t] += v[t] * s` over the common length.
#[inline(always)]
fn axpy<T: Scalar>(y: &mut [T], v: &[T], s: T) {
    for (yj, &a) in y.iter_mut().zip(v) {
        *yj += a * s;
    }
}

/// `y[cols[t]] += v[t] * s`, one entry at a time.
#[inline(always)]
fn scatter<T: Scalar, I: Index>(y: &mut [T], cols: &[I], v: &[T], s: T) {
    for (&j, &a) in cols.iter().zip(v) {
        y[j.to_usize()] += a * s;
    }
}

/// Stamps out a width's `#[target_feature]` entry point `rows`: [`scatter_loop`]
/// compiled with the width's features (none on targets without explicit widths).
#[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(unused_macros))]
macro_rules! scatter_kernels {
    ($feature:literal) => {
        /// The `Aᵀx` row scatter on this width; see
        /// [`scatter_loop`](crate::arch::generic::scatter::scatter_loop).
        ///
        /// # Safety
        /// The CPU supports the target features enabled here.
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn rows<T: $crate::Scalar, I: $crate::Index, const CANONICAL: bool>(
            row_ptr: &[I],
            col_idx: &[I],
            vals: &[T],
            rows: core::ops::Range<usize>,
            alpha: T,
            x: &[T],
            y: &mut [T],
        ) {
            $crate::arch::generic::scatter::scatter_loop::<T, I, CANONICAL>(
                row_ptr, col_idx, vals, rows, alpha, x, y,
            )
        }
    };
}
#[allow(unused_imports)]
pub(crate) use scatter_kernels;

/// [`scatter_loop`] on `isa`'s width (the portable build elsewhere: its baseline
/// registers, `simd128` in the WebAssembly SIMD build); `canonical`: every row strictly
/// increasing ([`RowOrder::Canonical`](crate::RowOrder::Canonical)).
#[allow(clippy::too_many_arguments)]
pub(crate) fn scatter_rows<T: Scalar, I: Index>(
    isa: Checked,
    canonical: bool,
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[T],
    rows: Range<usize>,
    alpha: T,
    x: &[T],
    y: &mut [T],
) {
    if canonical {
        dispatch!(
            isa,
            scatter::rows::<T, I, true>(row_ptr, col_idx, vals, rows, alpha, x, y),
            else scatter_loop::<T, I, true>(row_ptr, col_idx, vals, rows, alpha, x, y)
        )
    } else {
        dispatch!(
            isa,
            scatter::rows::<T, I, false>(row_ptr, col_idx, vals, rows, alpha, x, y),
            else scatter_loop::<T, I, false>(row_ptr, col_idx, vals, rows, alpha, x, y)
        )
    }
}
