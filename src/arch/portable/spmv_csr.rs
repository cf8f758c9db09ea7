//! The `portable` width of the CSR SpMV kernels (thesis 8.3–8.4): `generic::spmv_csr`'s
//! row loop with plain-Rust dot products (four scalar accumulators; a row of consecutive
//! columns as a dense dot product the compiler vectorises), under the names the SIMD
//! widths' entry points share.

use crate::arch::generic::spmv_csr::{NoStencil, dot_seq, row_loop, scalar_row_loop, x_at};
use crate::arch::generic::spmv_sym::{Cross, SymBlock, sym_loop};
use crate::{Index, Scalar};

/// Rows shorter than this run the plain sequential loop in the portable row kernel: four
/// accumulators only pay once a row holds a few of their rounds. (The SIMD widths use 8
/// too, `DotVec::SHORT`: on short rows the masked single-register path plus its
/// horizontal sum costs more than the scalar loop;
/// `benches/records/kernel-notes-2026-11.md`, "Short rows of the CSR row loop".)
const PORTABLE_SHORT: usize = 8;

/// One row's dot product with four independent accumulators: the CSR-vector reduction of
/// Alg. 29 on scalar registers (four additions in flight instead of one chain).
#[inline(always)]
pub(crate) fn dot_unrolled<T: Scalar, I: Index>(cols: &[I], vals: &[T], x: &[T]) -> T {
    let n = cols.len().min(vals.len());
    let (cols, vals) = (&cols[..n], &vals[..n]);
    let mut acc = [T::ZERO; 4];
    let (c4, v4) = (cols.chunks_exact(4), vals.chunks_exact(4));
    let (cr, vr) = (c4.remainder(), v4.remainder());
    for (c, v) in c4.zip(v4) {
        for l in 0..4 {
            acc[l] += v[l] * x_at(x, c[l]);
        }
    }
    let tail = dot_seq(cr, vr, x);
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
}

/// The portable row-scalar loop ([`scalar_row_loop`]), one entry point per type pair as
/// the widths have.
macro_rules! scalar_rows_portable {
    ($($name:ident: $t:ty, $i:ty;)*) => {$(
        #[allow(clippy::too_many_arguments)]
        pub(crate) fn $name(
            row_ptr: &[$i],
            col_idx: &[$i],
            vals: &[$t],
            x: &[$t],
            alpha: $t,
            beta: $t,
            y: &mut [$t],
        ) {
            scalar_row_loop(row_ptr, col_idx, vals, x, alpha, beta, y)
        }
    )*};
}
scalar_rows_portable! {
    scalar_rows_f64_u32: f64, u32;
    scalar_rows_f64_u64: f64, u64;
    scalar_rows_f32_u32: f32, u32;
    scalar_rows_f32_u64: f32, u64;
}

/// The portable CSR-vector row loop: `y[i] = alpha * (row i · x) + beta * y[i]` for the
/// rows whose bounds are `row_ptr[i]..row_ptr[i + 1]` (`row_ptr.len() == y.len() + 1`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn rows_portable<T: Scalar, I: Index>(
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[T],
    x: &[T],
    alpha: T,
    beta: T,
    y: &mut [T],
    canonical: bool,
) {
    row_loop::<T, I, NoStencil>(
        row_ptr,
        col_idx,
        vals,
        x,
        alpha,
        beta,
        y,
        PORTABLE_SHORT,
        canonical,
        (dot_seq, dot_long, dense_long),
    );
}

/// The portable symmetric-storage SpMV of one block: [`sym_loop`] with [`dot_long`] for
/// rows of [`PORTABLE_SHORT`] entries or more.
#[allow(clippy::too_many_arguments)]
pub(crate) fn sym_portable<T: Scalar, I: Index>(
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[T],
    x: &[T],
    alpha: T,
    beta: T,
    y: &mut [T],
    b: SymBlock,
) -> Cross {
    sym_loop(row_ptr, col_idx, vals, x, alpha, beta, y, b, PORTABLE_SHORT, dot_long)
}

/// [`dense_dot`] out of line, as [`dot_long`].
#[inline(never)]
pub(crate) fn dense_long<T: Scalar>(vals: &[T], x: &[T]) -> T {
    dense_dot(vals, x)
}

/// [`dot_unrolled`] out of line, so the row loop around it stays the short loop of the
/// row-scalar method.
#[inline(never)]
pub(crate) fn dot_long<T: Scalar, I: Index>(cols: &[I], vals: &[T], x: &[T]) -> T {
    dot_unrolled(cols, vals, x)
}

/// `Σ v[k] * x[k]` over two equal stretches (a row of consecutive columns on the portable
/// width): 32 independent accumulators over blocks of 32, which the compiler keeps in
/// registers and vectorises, folded pairwise to four; the rest four at a time into
/// those four, then one by one. A row under 32 entries never touches the 32 (summing
/// them would cost a short row more than its products).
#[inline(always)]
pub(crate) fn dense_dot<T: Scalar>(v: &[T], x: &[T]) -> T {
    const L: usize = 32;
    let (vc, xc) = (v.chunks_exact(L), x.chunks_exact(L));
    let (v4, x4) = (vc.remainder().chunks_exact(4), xc.remainder().chunks_exact(4));
    let tail = dot_pairs(v4.remainder(), x4.remainder());
    let mut a = [T::ZERO; 4];
    if vc.len() > 0 {
        let mut acc = [T::ZERO; L];
        for (p, q) in vc.zip(xc) {
            for l in 0..L {
                acc[l] += p[l] * q[l];
            }
        }
        let mut w = L;
        while w > 4 {
            w /= 2;
            for l in 0..w {
                let s = acc[l + w];
                acc[l] += s;
            }
        }
        a.copy_from_slice(&acc[..4]);
    }
    for (p, q) in v4.zip(x4) {
        for l in 0..4 {
            a[l] += p[l] * q[l];
        }
    }
    (a[0] + a[1]) + (a[2] + a[3]) + tail
}

/// `Σ v[k] * x[k]`, in order.
#[inline(always)]
fn dot_pairs<T: Scalar>(v: &[T], x: &[T]) -> T {
    v.iter().zip(x).fold(T::ZERO, |acc, (&a, &b)| acc + a * b)
}

/// `out[k] = vals[k] * x[cols[k]]` (thesis Alg. 30, step 2), portable.
pub(crate) fn products_portable<T: Scalar, I: Index>(cols: &[I], vals: &[T], x: &[T], out: &mut [T]) {
    for ((o, &c), &v) in out.iter_mut().zip(cols).zip(vals) {
        *o = v * x_at(x, c);
    }
}

// The portable width under the same names as the SIMD widths, so the dispatch reads as
// one `match`.
macro_rules! portable_names {
    ($t:ty, $i:ty, $rows:ident, $dot:ident, $products:ident, $sym:ident) => {
        /// [`sym_portable`] for one operand pair.
        #[allow(clippy::too_many_arguments)]
        pub(crate) fn $sym(
            row_ptr: &[$i],
            col_idx: &[$i],
            vals: &[$t],
            x: &[$t],
            alpha: $t,
            beta: $t,
            y: &mut [$t],
            b: SymBlock,
        ) -> Cross {
            sym_portable(row_ptr, col_idx, vals, x, alpha, beta, y, b)
        }
        /// [`rows_portable`] for one operand pair.
        #[allow(clippy::too_many_arguments)]
        pub(crate) fn $rows(
            row_ptr: &[$i],
            col_idx: &[$i],
            vals: &[$t],
            x: &[$t],
            alpha: $t,
            beta: $t,
            y: &mut [$t],
            canonical: bool,
        ) {
            rows_portable(row_ptr, col_idx, vals, x, alpha, beta, y, canonical)
        }
        /// [`dot_unrolled`] for one operand pair.
        pub(crate) fn $dot(cols: &[$i], vals: &[$t], x: &[$t]) -> $t {
            dot_unrolled(cols, vals, x)
        }
        /// [`products_portable`] for one operand pair.
        pub(crate) fn $products(cols: &[$i], vals: &[$t], x: &[$t], out: &mut [$t]) {
            products_portable(cols, vals, x, out)
        }
    };
}

portable_names!(f32, u32, rows_f32_u32, dot_f32_u32, products_f32_u32, sym_f32_u32);
portable_names!(f32, u64, rows_f32_u64, dot_f32_u64, products_f32_u64, sym_f32_u64);
portable_names!(f64, u32, rows_f64_u32, dot_f64_u32, products_f64_u32, sym_f64_u32);
portable_names!(f64, u64, rows_f64_u64, dot_f64_u64, products_f64_u64, sym_f64_u64);
