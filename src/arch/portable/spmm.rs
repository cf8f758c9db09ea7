//! The `portable` width of the CSR SpMM row kernel: `generic::spmm`'s tiles over plain
//! arrays of four lanes, whose loops the compiler vectorises with whatever the target's
//! baseline has (SSE2 on x86-64, NEON on AArch64), under the names the SIMD widths'
//! entry points share.

use core::ops::Range;

use crate::Index;
use crate::Scalar;
use crate::arch::generic::spmm::{MmVec, RowMajor, rows_row_major, sym_row_major};
use crate::arch::generic::spmm_csr5::{Mm5, VecCols, walk};
use crate::arch::generic::spmv_sym::{Cross, SymBlock};

/// `N` lanes of `T` as a plain array.
#[derive(Clone, Copy)]
pub(crate) struct Plain<T, const N: usize>([T; N]);

macro_rules! plain {
    ($n:literal, half $h:literal) => {
        impl<T: Scalar> MmVec for Plain<T, $n> {
            type T = T;
            type Half = Plain<T, $h>;
            const W: usize = $n;
            #[inline(always)]
            unsafe fn splat(v: T) -> Self {
                Plain([v; $n])
            }
            #[inline(always)]
            unsafe fn load(p: *const T) -> Self {
                // SAFETY: the caller promises `N` readable elements at `p`.
                Plain(unsafe { p.cast::<[T; $n]>().read_unaligned() })
            }
            #[inline(always)]
            unsafe fn store(self, p: *mut T) {
                // SAFETY: the caller promises `N` writable elements at `p`.
                unsafe { p.cast::<[T; $n]>().write_unaligned(self.0) }
            }
            #[inline(always)]
            unsafe fn fma(acc: Self, a: Self, b: Self) -> Self {
                Plain(core::array::from_fn(|l| acc.0[l] + a.0[l] * b.0[l]))
            }
            #[inline(always)]
            unsafe fn mul(a: Self, b: Self) -> Self {
                Plain(core::array::from_fn(|l| a.0[l] * b.0[l]))
            }
            #[inline(always)]
            unsafe fn add(a: Self, b: Self) -> Self {
                Plain(core::array::from_fn(|l| a.0[l] + b.0[l]))
            }
        }
    };
}

plain!(4, half 2);
plain!(2, half 2);

/// The row-major CSR SpMM on four plain lanes.
#[allow(clippy::too_many_arguments)]
fn rows_plain<T: Scalar, I: Index>(
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[T],
    x: &[T],
    alpha: T,
    beta: T,
    y: &mut [T],
    s: RowMajor,
) {
    // SAFETY: `Plain` needs no target feature; the kernel bounds its reads and writes.
    unsafe { rows_row_major::<Plain<T, 4>, I>(row_ptr, col_idx, vals, x, alpha, beta, y, s) }
}

/// [`rows_plain`] for `f64`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn rows_f64<I: Index>(
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[f64],
    x: &[f64],
    alpha: f64,
    beta: f64,
    y: &mut [f64],
    s: RowMajor,
) {
    rows_plain(row_ptr, col_idx, vals, x, alpha, beta, y, s)
}

/// [`rows_plain`] for `f32`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn rows_f32<I: Index>(
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[f32],
    x: &[f32],
    alpha: f32,
    beta: f32,
    y: &mut [f32],
    s: RowMajor,
) {
    rows_plain(row_ptr, col_idx, vals, x, alpha, beta, y, s)
}

/// The CSR5 SpMM of a tile range on four plain lanes; see [`walk`].
fn tiles_plain<T: Scalar, I: Index>(
    a: &Mm5<'_, T, I>,
    tiles: Range<usize>,
    y: &mut [T],
    carry: &mut [T],
) -> bool {
    // SAFETY: `Plain` needs no target feature; the dispatcher sends only a row-major `X`
    // holding a row here; the walk bounds its reads and writes.
    unsafe { walk::<T, I, VecCols<Plain<T, 4>>>(a, tiles, y, carry) }
}

/// [`tiles_plain`] for `f64`.
pub(crate) fn tiles_f64<I: Index>(
    a: &Mm5<'_, f64, I>,
    tiles: Range<usize>,
    y: &mut [f64],
    carry: &mut [f64],
) -> bool {
    tiles_plain(a, tiles, y, carry)
}

/// [`tiles_plain`] for `f32`.
pub(crate) fn tiles_f32<I: Index>(
    a: &Mm5<'_, f32, I>,
    tiles: Range<usize>,
    y: &mut [f32],
    carry: &mut [f32],
) -> bool {
    tiles_plain(a, tiles, y, carry)
}

/// The symmetric-storage row-major SpMM of one block on four plain lanes.
#[allow(clippy::too_many_arguments)]
fn sym_plain<T: Scalar, I: Index>(
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[T],
    x: &[T],
    alpha: T,
    beta: T,
    y: &mut [T],
    s: RowMajor,
    b: SymBlock,
) -> Cross {
    // SAFETY: `Plain` needs no target feature; the kernel bounds its reads and writes.
    unsafe { sym_row_major::<Plain<T, 4>, I>(row_ptr, col_idx, vals, x, alpha, beta, y, s, b) }
}

/// [`sym_plain`] for `f64`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn sym_f64<I: Index>(
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[f64],
    x: &[f64],
    alpha: f64,
    beta: f64,
    y: &mut [f64],
    s: RowMajor,
    b: SymBlock,
) -> Cross {
    sym_plain(row_ptr, col_idx, vals, x, alpha, beta, y, s, b)
}

/// [`sym_plain`] for `f32`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn sym_f32<I: Index>(
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[f32],
    x: &[f32],
    alpha: f32,
    beta: f32,
    y: &mut [f32],
    s: RowMajor,
    b: SymBlock,
) -> Cross {
    sym_plain(row_ptr, col_idx, vals, x, alpha, beta, y, s, b)
}
