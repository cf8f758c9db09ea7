//! SpMM: `Y = alpha * A * X + beta * Y` for a sparse `A` and dense `X`, `Y` of `k`
//! columns, in caller slices ([`DenseRef`], [`DenseMut`]).
//!
//! Row-major `X` and `Y` are the fast layout: each entry `a_ij` adds `a_ij * X[j, ..]` to
//! row `i` of `Y` with vector FMAs over the `k` columns, `A` read once per tile of up to
//! four registers of columns (`arch::generic::spmm`) instead of once per column; the
//! row-block loop of thesis 8.3 with the dot product widened to `k` lanes. Other layouts
//! run a plain loop over blocks of four columns (`A` read once per block, each entry a
//! strided read of `X`): correct on every `Isa`, slower.

use core::ops::Range;

use crate::arch::Checked;
use crate::arch::generic::spmm::{self as kern, RowMajor};
use crate::formats::Csr;
use crate::{CsrMethod, DimError, Exec, Index, Isa, Scalar};

/// How a dense block is laid out in its slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DenseLayout {
    /// Element `(i, j)` at `i * ld + j`: rows contiguous (C order). The fast layout of
    /// [`SpMm`].
    RowMajor,
    /// Element `(i, j)` at `i + j * ld`: columns contiguous (Fortran order).
    ColMajor,
}

impl DenseLayout {
    /// `(row stride, column stride)` for leading dimension `ld`.
    #[inline]
    pub(crate) fn strides(self, ld: usize) -> (usize, usize) {
        match self {
            DenseLayout::RowMajor => (ld, 1),
            DenseLayout::ColMajor => (1, ld),
        }
    }
}

/// The checks of a dense block's shape: `ld` at least the contiguous dimension, and the
/// slice long enough for the last element (rows or columns of zero take no storage).
fn check_dense(rows: usize, cols: usize, ld: usize, layout: DenseLayout, len: usize) -> Result<(), DimError> {
    let (outer, inner) = match layout {
        DenseLayout::RowMajor => (rows, cols),
        DenseLayout::ColMajor => (cols, rows),
    };
    if ld < inner {
        return Err(DimError::Parameter { name: "ld", value: ld });
    }
    let needed = if outer == 0 || inner == 0 {
        0
    } else {
        (outer - 1).checked_mul(ld).and_then(|n| n.checked_add(inner)).ok_or(DimError::Overflow {
            what: "dense block size",
            value: usize::MAX,
            max: usize::MAX,
        })?
    };
    if len < needed {
        return Err(DimError::BufferTooSmall { buffer: "data", needed, got: len });
    }
    Ok(())
}

/// A dense `rows × cols` block read from a caller slice: `X` of [`SpMm`]. Validated by
/// [`DenseRef::new`], so kernels index it without further checks.
#[derive(Clone, Copy, Debug)]
pub struct DenseRef<'a, T> {
    rows: usize,
    cols: usize,
    ld: usize,
    layout: DenseLayout,
    data: &'a [T],
}

impl<'a, T> DenseRef<'a, T> {
    /// The block of `rows × cols` elements of `data` in `layout`, rows (row-major) or
    /// columns (column-major) `ld` elements apart.
    ///
    /// # Errors
    /// [`DimError::Parameter`] (`"ld"`) if `ld` is below `cols` (row-major) or `rows`
    /// (column-major); [`DimError::BufferTooSmall`] if `data` ends before the last
    /// element; [`DimError::Overflow`] if that position overflows `usize`.
    pub fn new(
        rows: usize,
        cols: usize,
        ld: usize,
        layout: DenseLayout,
        data: &'a [T],
    ) -> Result<Self, DimError> {
        check_dense(rows, cols, ld, layout, data.len())?;
        Ok(DenseRef { rows, cols, ld, layout, data })
    }

    /// A packed row-major block (`ld == cols`).
    ///
    /// # Errors
    /// As [`DenseRef::new`].
    pub fn row_major(rows: usize, cols: usize, data: &'a [T]) -> Result<Self, DimError> {
        Self::new(rows, cols, cols, DenseLayout::RowMajor, data)
    }

    /// A packed column-major block (`ld == rows`).
    ///
    /// # Errors
    /// As [`DenseRef::new`].
    pub fn col_major(rows: usize, cols: usize, data: &'a [T]) -> Result<Self, DimError> {
        Self::new(rows, cols, rows, DenseLayout::ColMajor, data)
    }

    /// Rows.
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// Columns.
    pub fn cols(&self) -> usize {
        self.cols
    }
    /// The leading dimension: elements between rows (row-major) or columns (column-major).
    pub fn ld(&self) -> usize {
        self.ld
    }
    /// The layout.
    pub fn layout(&self) -> DenseLayout {
        self.layout
    }
    /// The slice.
    pub fn data(&self) -> &'a [T] {
        self.data
    }
}

/// A dense `rows × cols` block written into a caller slice: `Y` of [`SpMm`]. Elements
/// between the block's rows (or columns) when `ld` exceeds them are never touched.
#[derive(Debug)]
pub struct DenseMut<'a, T> {
    rows: usize,
    cols: usize,
    ld: usize,
    layout: DenseLayout,
    data: &'a mut [T],
}

impl<'a, T> DenseMut<'a, T> {
    /// As [`DenseRef::new`], writable.
    ///
    /// # Errors
    /// As [`DenseRef::new`].
    pub fn new(
        rows: usize,
        cols: usize,
        ld: usize,
        layout: DenseLayout,
        data: &'a mut [T],
    ) -> Result<Self, DimError> {
        check_dense(rows, cols, ld, layout, data.len())?;
        Ok(DenseMut { rows, cols, ld, layout, data })
    }

    /// A packed row-major block (`ld == cols`).
    ///
    /// # Errors
    /// As [`DenseRef::new`].
    pub fn row_major(rows: usize, cols: usize, data: &'a mut [T]) -> Result<Self, DimError> {
        Self::new(rows, cols, cols, DenseLayout::RowMajor, data)
    }

    /// A packed column-major block (`ld == rows`).
    ///
    /// # Errors
    /// As [`DenseRef::new`].
    pub fn col_major(rows: usize, cols: usize, data: &'a mut [T]) -> Result<Self, DimError> {
        Self::new(rows, cols, rows, DenseLayout::ColMajor, data)
    }

    /// Rows.
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// Columns.
    pub fn cols(&self) -> usize {
        self.cols
    }
    /// The leading dimension.
    pub fn ld(&self) -> usize {
        self.ld
    }
    /// The layout.
    pub fn layout(&self) -> DenseLayout {
        self.layout
    }
    /// The slice, read-only.
    pub fn data(&self) -> &[T] {
        self.data
    }
    /// The slice.
    pub fn data_mut(&mut self) -> &mut [T] {
        self.data
    }
    /// The same block, read-only.
    pub fn view(&self) -> DenseRef<'_, T> {
        DenseRef { rows: self.rows, cols: self.cols, ld: self.ld, layout: self.layout, data: self.data }
    }
}

/// `Y = alpha * A * X + beta * Y` for a sparse `A` and dense `X`, `Y` (SpMM).
pub trait SpMm<T: Scalar> {
    /// Runs on `exec`'s [`Isa`] and threads (feature `parallel`), as [`SpMv`](super::SpMv).
    /// `beta == 0` never reads `Y`; `alpha == 0` reads neither `A` nor `X`.
    ///
    /// # Errors
    /// [`DimError::IsaUnavailable`] if this machine cannot run `exec`'s `Isa`;
    /// [`DimError::Length`] if `X` has not `ncols` rows (`"x.rows"`), `Y` not `nrows` rows
    /// (`"y.rows"`) or `Y` not `X`'s columns (`"y.cols"`). `Y` is untouched then.
    fn spmm(
        &self,
        exec: Exec,
        alpha: T,
        x: DenseRef<'_, T>,
        beta: T,
        y: &mut DenseMut<'_, T>,
    ) -> Result<(), DimError>;
}

impl<T: Scalar, I: Index> SpMm<T> for Csr<'_, T, I> {
    fn spmm(
        &self,
        exec: Exec,
        alpha: T,
        x: DenseRef<'_, T>,
        beta: T,
        y: &mut DenseMut<'_, T>,
    ) -> Result<(), DimError> {
        spmm_csr(exec, self, alpha, x, beta, y)
    }
}

/// `Y = alpha * A * X + beta * Y` for a CSR `A` (thesis 8.3's row loop with `k` sums per
/// row): row-major `X` and `Y` by the width's vector kernel, reading `A` once per tile of
/// up to four registers of columns; other layouts by a plain loop over blocks of four
/// columns; one contiguous column (`k == 1`) by SpMV's row kernels
/// ([`CsrMethod::choose`]'s). Widths agree within rounding (FMA or not). With `exec.threads(..)` (feature
/// `parallel`), rows split in blocks of equal entries as [`spmv_csr`](super::spmv_csr)'s
/// (column-major `Y`: blocks of columns), each by the serial kernel.
///
/// # Errors
/// As [`SpMm::spmm`].
pub fn spmm_csr<T: Scalar, I: Index>(
    exec: Exec,
    a: &Csr<'_, T, I>,
    alpha: T,
    x: DenseRef<'_, T>,
    beta: T,
    y: &mut DenseMut<'_, T>,
) -> Result<(), DimError> {
    let isa = exec.resolved_isa();
    let checked = check_spmm(isa, a, &x, y)?;
    if alpha == T::ZERO {
        scale_dense(beta, y);
        return Ok(());
    }
    #[cfg(feature = "parallel")]
    if exec.thread_limit() != 1 {
        crate::parallel::spmm_csr(a, checked, alpha, x, beta, y, exec.thread_limit());
        return Ok(());
    }
    let ys = y.layout.strides(y.ld);
    match y.layout {
        DenseLayout::RowMajor => spmm_rows(a, checked, 0..a.nrows(), alpha, x, beta, y.data, ys),
        DenseLayout::ColMajor => spmm_cols(a, checked, 0..x.cols, alpha, x, beta, y.data, ys),
    }
    Ok(())
}

/// The checks every SpMM makes before touching `Y`; the `Isa` as a token.
pub(crate) fn check_spmm<T: Scalar, I: Index>(
    isa: Isa,
    a: &Csr<'_, T, I>,
    x: &DenseRef<'_, T>,
    y: &DenseMut<'_, T>,
) -> Result<Checked, DimError> {
    check_dense_shapes(isa, a.nrows(), a.ncols(), x, y)
}

/// [`check_spmm`] for a matrix of `nrows × ncols`.
pub(crate) fn check_dense_shapes<T>(
    isa: Isa,
    nrows: usize,
    ncols: usize,
    x: &DenseRef<'_, T>,
    y: &DenseMut<'_, T>,
) -> Result<Checked, DimError> {
    let checked = Checked::new(isa)?;
    if x.rows != ncols {
        return Err(DimError::Length { operand: "x.rows", expected: ncols, got: x.rows });
    }
    if y.rows != nrows {
        return Err(DimError::Length { operand: "y.rows", expected: nrows, got: y.rows });
    }
    if y.cols != x.cols {
        return Err(DimError::Length { operand: "y.cols", expected: x.cols, got: y.cols });
    }
    Ok(checked)
}

/// `Y = beta * Y` over the block's elements only, writing zeros when `beta == 0` (NaN in
/// `Y` cannot leak).
pub(crate) fn scale_dense<T: Scalar>(beta: T, y: &mut DenseMut<'_, T>) {
    if beta == T::ONE {
        return;
    }
    let (outer, inner) = match y.layout {
        DenseLayout::RowMajor => (y.rows, y.cols),
        DenseLayout::ColMajor => (y.cols, y.rows),
    };
    if inner == 0 {
        return;
    }
    for line in y.data.chunks_mut(y.ld.max(1)).take(outer) {
        let n = inner.min(line.len());
        super::scale_y(beta, &mut line[..n]);
    }
}

/// Rows `rows` of `Y = alpha * A * X + beta * Y` for a row-major `Y` whose row
/// `rows.start` starts `y_rows` (`ys`: `Y`'s strides). Shapes must have been checked.
/// The chunk a thread driver hands to one worker.
#[allow(clippy::too_many_arguments)]
pub(crate) fn spmm_rows<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    isa: Checked,
    rows: Range<usize>,
    alpha: T,
    x: DenseRef<'_, T>,
    beta: T,
    y_rows: &mut [T],
    ys: (usize, usize),
) {
    if let Some((xv, yv)) = vectors(&x, ys, y_rows, rows.len()) {
        let method = CsrMethod::choose(a, isa.isa());
        super::csr::spmv_rows_by(a, method, isa.isa(), rows, alpha, xv, beta, yv);
        return;
    }
    let row_ptr = &a.row_ptr()[rows.start..=rows.end];
    if x.layout == DenseLayout::RowMajor && ys.1 == 1 {
        let s = RowMajor { k: x.cols, ldx: x.ld, ldy: ys.0, ahead: x_misses(a, x.cols * size_of::<T>()) };
        kern::rows(isa, row_ptr, a.col_idx(), a.vals(), x.data, alpha, beta, y_rows, s);
    } else {
        strided(a, row_ptr, 0..x.cols, alpha, x, beta, y_rows, ys);
    }
}

/// Bytes of `X`'s rows that stay in cache while the rows of `A` near one row are read:
/// what a server core's L2 holds beside `A`'s and `Y`'s streams.
const X_WINDOW: usize = 1 << 20;

/// Rows of `A` [`x_misses`] samples.
const X_SAMPLE_ROWS: usize = 64;

/// Whether the rows of `X` that `A`'s entries read would miss the cache, so the row-major
/// kernel should ask for them ahead (`x_row` bytes a row of `X`). Not where all of `X`
/// fits in [`X_WINDOW`], nor where the entries stay within half a window of the
/// diagonal (bands, stencils, meshes in their natural order: the rows just read, and
/// the hardware's stream prefetch, hold them); otherwise, where more than one in 32
/// entries of [`X_SAMPLE_ROWS`] evenly spaced rows lies farther out (a miss costs as much
/// as the hints of dozens of entries). Where `X` stays
/// cached the hints are pure cost; on random columns over a large `X` they hide most of
/// the misses (`benches/records/spmm-*.md`).
pub(crate) fn x_misses<T: Scalar, I: Index>(a: &Csr<'_, T, I>, x_row: usize) -> bool {
    let (m, n) = a.shape();
    let window = X_WINDOW / x_row.max(1);
    if n <= window || m == 0 {
        return false;
    }
    let (mut far, mut total) = (0usize, 0usize);
    let samples = X_SAMPLE_ROWS.min(m);
    for s in 0..samples {
        let i = (s as u128 * m as u128 / samples as u128) as usize;
        // Row `i`'s place on the diagonal of an `m × n` matrix.
        let d = (i as u128 * n as u128 / m as u128) as usize;
        if let Some((cols, _)) = a.row(i) {
            total += cols.len();
            far += cols.iter().filter(|c| c.to_usize().abs_diff(d) > window / 2).count();
        }
    }
    far > total / 32
}

/// `X` and the `m` rows of `Y` as plain vectors where `k == 1` and both are contiguous:
/// SpMV's row kernels run them then (the SpMM tiles have no column to vectorise over).
pub(crate) fn vectors<'x, 'y, T>(
    x: &DenseRef<'x, T>,
    ys: (usize, usize),
    y: &'y mut [T],
    m: usize,
) -> Option<(&'x [T], &'y mut [T])> {
    let contiguous = x.cols == 1 && (x.layout == DenseLayout::ColMajor || x.ld == 1) && (ys.0 == 1 || m <= 1);
    if !contiguous {
        return None;
    }
    Some((x.data.get(..x.rows)?, y.get_mut(..m)?))
}

/// Columns `cols` of `Y = alpha * A * X + beta * Y` for a column-major `Y` whose column
/// `cols.start` starts `y_cols`; the chunk of a thread driver over columns.
#[allow(clippy::too_many_arguments)]
pub(crate) fn spmm_cols<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    isa: Checked,
    cols: Range<usize>,
    alpha: T,
    x: DenseRef<'_, T>,
    beta: T,
    y_cols: &mut [T],
    ys: (usize, usize),
) {
    if cols.len() == 1
        && let Some(xc) = x.data.get(cols.start * x.layout.strides(x.ld).1..)
        && let Ok(xc) = DenseRef::new(x.rows, 1, x.ld, x.layout, xc)
        && let Some((xv, yv)) = vectors(&xc, ys, y_cols, a.nrows())
    {
        let method = CsrMethod::choose(a, isa.isa());
        super::csr::spmv_rows_by(a, method, isa.isa(), 0..a.nrows(), alpha, xv, beta, yv);
        return;
    }
    strided(a, a.row_ptr(), cols, alpha, x, beta, y_cols, ys);
}

/// The plain SpMM for any strides: columns `cols` of `X` in blocks of four, each block one
/// pass over the rows of `row_ptr`; `Y`'s element `(r, c)` (relative to the row and
/// column the chunk starts at) at `r * ys.0 + c * ys.1` of `y`.
#[allow(clippy::too_many_arguments)]
fn strided<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    row_ptr: &[I],
    cols: Range<usize>,
    alpha: T,
    x: DenseRef<'_, T>,
    beta: T,
    y: &mut [T],
    ys: (usize, usize),
) {
    const B: usize = 4;
    let (col_idx, vals) = (a.col_idx(), a.vals());
    let xs = x.layout.strides(x.ld);
    let mut c0 = cols.start;
    while c0 < cols.end {
        let nb = B.min(cols.end - c0);
        for (i, w) in row_ptr.windows(2).enumerate() {
            let r = w[0].to_usize()..w[1].to_usize();
            let mut acc = [T::ZERO; B];
            for (&j, &v) in col_idx[r.clone()].iter().zip(&vals[r]) {
                let base = j.to_usize() * xs.0 + c0 * xs.1;
                for (c, s) in acc[..nb].iter_mut().enumerate() {
                    *s += v * x.data[base + c * xs.1];
                }
            }
            for (c, &s) in acc[..nb].iter().enumerate() {
                let yi = &mut y[i * ys.0 + (c0 - cols.start + c) * ys.1];
                *yi = super::axpby(alpha, s, beta, *yi);
            }
        }
        c0 += nb;
    }
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use alloc::vec::Vec;

    use super::x_misses;
    use crate::CsrOwned;

    /// `n × n` with entries at `cols(i)` in row `i`.
    fn matrix(n: usize, cols: impl Fn(usize) -> Vec<usize>) -> CsrOwned<f64, u32> {
        let t: Vec<(usize, usize, f64)> =
            (0..n).flat_map(|i| cols(i).into_iter().map(move |j| (i, j, 1.0))).collect();
        CsrOwned::from_triplets(n, n, &t).unwrap()
    }

    // Matrices of 200 000 rows: minutes under Miri, and no unsafe code below `x_misses`.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn x_misses_only_where_columns_leave_the_cached_window() {
        let n = 200_000; // 12.8 MB of `X` at 8 `f64` columns: more than the window.
        let band = matrix(n, |i| (i.saturating_sub(3)..(i + 4).min(n)).collect());
        assert!(!x_misses(&band.view(), 64), "a band stays near the diagonal");
        let plane = matrix(n, |i| [i.saturating_sub(4000), i, (i + 4000).min(n - 1)].to_vec());
        assert!(!x_misses(&plane.view(), 64), "a stencil's planes stay within half a window");
        let random = matrix(n, |i| (0..4).map(|q| (i * 7919 + q * 104_729 * 31) % n).collect());
        assert!(x_misses(&random.view(), 64), "scattered columns over a large X");
        // A far entry in about one row of four (one entry in 17) is enough.
        let sparse_far = matrix(n, |i| {
            let mut c: Vec<usize> = (i.saturating_sub(1)..(i + 3).min(n)).collect();
            if (i.wrapping_mul(2_654_435_761) >> 7) % 4 == 0 {
                c.push((i + n / 2) % n);
            }
            c
        });
        assert!(x_misses(&sparse_far.view(), 64), "a few far entries per row");
        assert!(!x_misses(&random.view(), 4), "X of one f32 column fits");
        let small = matrix(1000, |i| [(i * 7919) % 1000].to_vec());
        assert!(!x_misses(&small.view(), 64), "all of X fits");
    }
}
