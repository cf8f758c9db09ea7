//! Sparse + sparse matrices, `C = alpha·A + beta·B` in CSR (the Sparse BLAS operation of
//! MKL's `mkl_sparse_?_add` and cuSPARSE's `csrgeam`), row by row with the sparse vector
//! additions of thesis chapter 7; and the scalings `alpha·A`, `diag(d)·A`, `A·diag(d)`.
//!
//! Like SpGEMM (thesis 9.4), the sum runs in two phases into caller buffers:
//! [`add_symbolic`] counts each row of `C` (the union of the two rows' columns) and writes
//! `C`'s `row_ptr` by a prefix sum; [`add_numeric`] fills `col_idx` and `vals`. With
//! `alloc`, [`add`] does both into fresh arrays. The scratch is one index and one value
//! buffer whose lengths [`add_workspace_len`] gives ([`AddWorkspace`]).
//!
//! **Rows.** Where both operands are [`RowOrder::Canonical`], each row pair is merged
//! (thesis 7.4.3: one pass, `O(m)`) straight into `C`'s row, and the symbolic phase counts
//! the union by a merge of the column lists. Otherwise (unsorted rows or duplicates in
//! either) every row goes through the sparse accumulator (thesis 7.3, Alg. 27), which
//! takes entries in any order: values into a dense row, a bit per column marking the
//! occupied ones, read back in column order between the smallest and largest column
//! present. On sorted rows the merge ran at a plain merge's speed or better where the
//! chapter-7 rule's SPA and ESC, through the vector API, did not
//! (`benches/records/matadd-2026-11-28-xeon-avx512.md`).
//!
//! **Semantics.** `C`'s rows are sorted by column without duplicates
//! ([`RowOrder::Canonical`]); its pattern is the union of `A`'s and `B`'s whatever the
//! values (explicit zeros and cancellations are kept, as in SpGEMM), so the symbolic phase
//! depends on the patterns only. Each value is `alpha·a_ij + beta·b_ij`, the term of an
//! absent entry left out; duplicates within a row of `A` or `B` are summed.

use crate::formats::{Csr, RowOrder};
use crate::primitives::Key;
use crate::primitives::scan::ScanElem;
use crate::{DimError, Exec, Index, Scalar};

use super::stages::check_buf;
use super::{check_row_ptr, words_in};

/// The buffers [`add_symbolic`] (`idx` only) and [`add_numeric`] (both) need, from
/// [`add_workspace_len`]: `idx` holds the marker bits of the columns (`ncols / 64`
/// words), `vals` the SPA's dense row (`ncols` values) — both empty where the operands
/// are canonical (the merge needs neither).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AddWorkspace {
    /// Length of the index workspace, in `I`.
    pub idx: usize,
    /// Length of the value workspace, in `T` (numeric phase only).
    pub vals: usize,
}

/// Whether both operands are canonical (the merge applies to every row).
fn both_canonical<T: Scalar, I: Index>(a: &Csr<'_, T, I>, b: &Csr<'_, T, I>) -> bool {
    a.row_order() == RowOrder::Canonical && b.row_order() == RowOrder::Canonical
}

/// The `Isa` and the shapes.
fn check_operands<T: Scalar, I: Index>(
    exec: Exec,
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
) -> Result<(), DimError> {
    crate::primitives::check_isa(exec.resolved_isa())?;
    if a.shape() != b.shape() {
        return Err(DimError::Shape { left: a.shape(), right: b.shape() });
    }
    Ok(())
}

/// The workspace of `A + B` (either phase; the symbolic one uses `idx` only).
///
/// # Errors
/// [`DimError::IsaUnavailable`]; [`DimError::Shape`] if `A` and `B` differ in shape.
pub fn add_workspace_len<T: Scalar, I: Index>(
    exec: Exec,
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
) -> Result<AddWorkspace, DimError> {
    check_operands(exec, a, b)?;
    if both_canonical(a, b) {
        return Ok(AddWorkspace::default());
    }
    let n = a.ncols();
    Ok(AddWorkspace { idx: words_in::<I>(n.div_ceil(64)), vals: n })
}

/// The marker words inside the index workspace.
fn marks_of<I: Index>(idx: &mut [I], ncols: usize) -> &mut [u64] {
    let words = bytemuck::pod_align_to_mut::<I, u64>(idx).1;
    let k = ncols.div_ceil(64).min(words.len());
    &mut words[..k]
}

/// Symbolic phase of `C = alpha·A + beta·B`: the length of each row of `C` (the union of
/// the columns of the two rows), written as row pointers into `c_row_ptr[..nrows + 1]`;
/// returns `nnz(C)`. `workspace` must hold [`add_workspace_len`]`(..)?.idx` indices; its
/// contents on entry do not matter.
///
/// ```
/// use spblas::level3::{add_numeric, add_symbolic, add_workspace_len};
/// use spblas::{Csr, Exec};
/// // A = [[1, 0, 2], [0, 3, 0]], B = [[0, 4, -2], [5, 0, 0]].
/// let a = Csr::new(2, 3, &[0u32, 2, 3], &[0u32, 2, 1], &[1.0f64, 2.0, 3.0])?;
/// let b = Csr::new(2, 3, &[0u32, 2, 3], &[1u32, 2, 0], &[4.0f64, -2.0, 5.0])?;
/// let ws = add_workspace_len(Exec::new(), &a, &b)?;
/// let (mut wi, mut wv) = (vec![0u32; ws.idx], vec![0.0f64; ws.vals]);
/// let mut row_ptr = [0u32; 3];
/// let nnz = add_symbolic(Exec::new(), &a, &b, &mut row_ptr, &mut wi)?;
/// let (mut col_idx, mut vals) = (vec![0u32; nnz], vec![0.0f64; nnz]);
/// add_numeric(Exec::new(), 1.0, &a, 1.0, &b, &row_ptr, &mut col_idx, &mut vals, (&mut wi, &mut wv))?;
/// // C = A + B = [[1, 4, 0], [5, 3, 0]]: the cancelled (0, 2) stays as an explicit zero.
/// assert_eq!((row_ptr, col_idx, vals), ([0, 3, 5], vec![0, 1, 2, 0, 1], vec![1.0, 4.0, 0.0, 5.0, 3.0]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// Before `c_row_ptr` is written: [`DimError::IsaUnavailable`], [`DimError::Shape`];
/// [`DimError::BufferTooSmall`] (`"c_row_ptr"`, `"workspace"`); [`DimError::Overflow`]
/// (`"nnz(C)"`) if `nnz(C)` does not fit `I`.
pub fn add_symbolic<T: Scalar, I: Index>(
    exec: Exec,
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
    c_row_ptr: &mut [I],
    workspace: &mut [I],
) -> Result<usize, DimError> {
    let ws = add_workspace_len(exec, a, b)?;
    let nrows = a.nrows();
    check_buf("c_row_ptr", nrows + 1, c_row_ptr.len())?;
    check_buf("workspace", ws.idx, workspace.len())?;
    let canonical = both_canonical(a, b);
    let marks = marks_of(workspace, a.ncols());
    // The total first (nothing written on overflow), then the pointers.
    let lens = |i: usize, marks: &mut [u64]| -> usize {
        let (ra, rb) = (row_cols(a, i), row_cols(b, i));
        if canonical { union_len(ra, rb) } else { distinct_len(ra, rb, marks) }
    };
    marks.fill(0);
    let mut total = 0usize;
    for i in 0..nrows {
        total = total.saturating_add(lens(i, marks));
    }
    if total > I::MAX_USIZE {
        return Err(DimError::Overflow { what: "nnz(C)", value: total, max: I::MAX_USIZE });
    }
    let mut at = 0usize;
    c_row_ptr[0] = I::ZERO;
    for i in 0..nrows {
        at += lens(i, marks);
        c_row_ptr[i + 1] = I::from_usize_unchecked(at);
    }
    Ok(total)
}

/// The columns of row `i` (empty past the last row).
fn row_cols<'m, T: Scalar, I: Index>(m: &Csr<'m, T, I>, i: usize) -> &'m [I] {
    m.row(i).map_or(&[][..], |r| r.0)
}

/// `|x ∪ y|` for two strictly increasing lists: a merge that only counts.
fn union_len<I: Index>(x: &[I], y: &[I]) -> usize {
    let (mut p, mut q, mut n) = (0, 0, 0);
    while let (Some(u), Some(v)) = (x.get(p), y.get(q)) {
        let (u, v) = (u.to_usize(), v.to_usize());
        p += usize::from(u <= v);
        q += usize::from(v <= u);
        n += 1;
    }
    n + (x.len() - p.min(x.len())) + (y.len() - q.min(y.len()))
}

/// The number of distinct columns in `x` and `y` (any order, duplicates allowed): a bit
/// per column set once, the bits cleared again after.
fn distinct_len<I: Index>(x: &[I], y: &[I], marks: &mut [u64]) -> usize {
    let mut n = 0;
    for c in x.iter().chain(y) {
        let j = c.to_usize();
        if let Some(w) = marks.get_mut(j / 64) {
            let bit = 1u64 << (j % 64);
            n += usize::from(*w & bit == 0);
            *w |= bit;
        }
    }
    for c in x.iter().chain(y) {
        if let Some(w) = marks.get_mut(c.to_usize() / 64) {
            *w = 0;
        }
    }
    n
}

/// Numeric phase of `C = alpha·A + beta·B`: row `i` of `C` — sorted by column, duplicates
/// summed, zeros kept — into `c_col_idx`/`c_vals[c_row_ptr[i]..c_row_ptr[i + 1]]`.
/// `c_row_ptr` is what [`add_symbolic`] wrote for the same operands (any `alpha`, `beta`:
/// the pattern does not depend on them). `workspace` must hold [`add_workspace_len`]
/// indices and values; its contents on entry do not matter.
///
/// # Errors
/// Before anything is written: [`DimError::IsaUnavailable`], [`DimError::Shape`];
/// [`DimError::Length`] (`c_row_ptr` shorter than `nrows + 1`), [`DimError::OutOfRange`]
/// (not starting at 0), [`DimError::Unsorted`] (decreasing);
/// [`DimError::BufferTooSmall`] (`"c_col_idx"` / `"c_vals"` shorter than
/// `c_row_ptr[nrows]`, `"workspace.idx"`, `"workspace.vals"`). While computing:
/// [`DimError::RowLength`] for the first row whose length differs from `c_row_ptr`'s; the
/// rows before it are then written, the rest of `c_col_idx`/`c_vals` is unspecified.
#[allow(clippy::too_many_arguments)]
pub fn add_numeric<T: Scalar + ScanElem, I: Index + Key>(
    exec: Exec,
    alpha: T,
    a: &Csr<'_, T, I>,
    beta: T,
    b: &Csr<'_, T, I>,
    c_row_ptr: &[I],
    c_col_idx: &mut [I],
    c_vals: &mut [T],
    workspace: (&mut [I], &mut [T]),
) -> Result<(), DimError> {
    let ws = add_workspace_len(exec, a, b)?;
    let (nrows, ncols) = a.shape();
    let nnz = check_row_ptr(c_row_ptr, nrows)?;
    check_buf("c_col_idx", nnz, c_col_idx.len())?;
    check_buf("c_vals", nnz, c_vals.len())?;
    check_buf("workspace.idx", ws.idx, workspace.0.len())?;
    check_buf("workspace.vals", ws.vals, workspace.1.len())?;
    let canonical = both_canonical(a, b);
    let marks = marks_of(workspace.0, ncols);
    marks.fill(0);
    for i in 0..nrows {
        let (s, e) = (c_row_ptr[i].to_usize(), c_row_ptr[i + 1].to_usize());
        let (ra, rb) = (a.row(i).unwrap_or((&[], &[])), b.row(i).unwrap_or((&[], &[])));
        let got = if canonical {
            merge_row(alpha, ra, beta, rb, &mut c_col_idx[s..e], &mut c_vals[s..e])
        } else {
            spa_row(
                alpha,
                ra,
                beta,
                rb,
                &mut workspace.1[..ncols],
                marks,
                &mut c_col_idx[s..e],
                &mut c_vals[s..e],
            )
        };
        if got != e - s {
            return Err(DimError::RowLength { operand: "c_row_ptr", row: i, expected: e - s, got });
        }
    }
    Ok(())
}

/// The merge (thesis 7.4.3) of two strictly increasing rows straight into `C`'s row: one
/// pass, equal columns fused into `alpha·a + beta·b` (the values of
/// [`level1::add_scaled`](crate::level1::add_scaled)'s merge).
/// Writes at most `out_i.len()` entries and returns how many the row has.
fn merge_row<T: Scalar, I: Index>(
    alpha: T,
    (a_cols, a_vals): (&[I], &[T]),
    beta: T,
    (b_cols, b_vals): (&[I], &[T]),
    out_i: &mut [I],
    out_v: &mut [T],
) -> usize {
    let (mut p, mut q, mut n) = (0, 0, 0);
    loop {
        let (c, v) = match (a_cols.get(p), b_cols.get(q)) {
            (Some(&x), Some(&y)) if x.to_usize() == y.to_usize() => {
                let v = alpha * a_vals[p] + beta * b_vals[q];
                p += 1;
                q += 1;
                (x, v)
            }
            (Some(&x), Some(&y)) if x.to_usize() < y.to_usize() => {
                p += 1;
                (x, alpha * a_vals[p - 1])
            }
            (_, Some(&y)) => {
                q += 1;
                (y, beta * b_vals[q - 1])
            }
            (Some(&x), None) => {
                p += 1;
                (x, alpha * a_vals[p - 1])
            }
            (None, None) => return n,
        };
        if let (Some(oi), Some(ov)) = (out_i.get_mut(n), out_v.get_mut(n)) {
            *oi = c;
            *ov = v;
        }
        n += 1;
    }
}

/// Thesis Alg. 27 on two rows in any order: `alpha·a` then `beta·b` into `dense`, a bit
/// per column marking the occupied ones; the marked columns read back in order, 64 at a
/// time, between the smallest and the largest column present, their bits cleared. Writes
/// at most `out_i.len()` entries and returns how many the row has.
#[allow(clippy::too_many_arguments)]
fn spa_row<T: Scalar, I: Index>(
    alpha: T,
    (a_cols, a_vals): (&[I], &[T]),
    beta: T,
    (b_cols, b_vals): (&[I], &[T]),
    dense: &mut [T],
    marks: &mut [u64],
    out_i: &mut [I],
    out_v: &mut [T],
) -> usize {
    let (mut lo, mut hi) = (usize::MAX, 0usize);
    let mut put = |j: usize, v: T| {
        if let (Some(w), Some(d)) = (marks.get_mut(j / 64), dense.get_mut(j)) {
            let bit = 1u64 << (j % 64);
            if *w & bit == 0 {
                *w |= bit;
                *d = v;
            } else {
                *d += v;
            }
            lo = lo.min(j);
            hi = hi.max(j);
        }
    };
    for (c, &v) in a_cols.iter().zip(a_vals) {
        put(c.to_usize(), alpha * v);
    }
    for (c, &v) in b_cols.iter().zip(b_vals) {
        put(c.to_usize(), beta * v);
    }
    if lo > hi {
        return 0;
    }
    let mut n = 0;
    for w in lo / 64..=hi / 64 {
        let Some(word) = marks.get_mut(w) else { break };
        let mut bits = *word;
        *word = 0;
        while bits != 0 {
            let j = w * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if let (Some(oi), Some(ov), Some(&d), Some(col)) =
                (out_i.get_mut(n), out_v.get_mut(n), dense.get(j), I::from_usize(j))
            {
                *oi = col;
                *ov = d;
            }
            n += 1;
        }
    }
    n
}

/// `C = alpha·A + beta·B` into fresh arrays ([`add_symbolic`] then [`add_numeric`]),
/// each reserved fallibly.
///
/// # Errors
/// As [`add_symbolic`]; [`DimError::Overflow`] (`"room"`) if memory for `C` or the
/// workspace cannot be reserved.
#[cfg(feature = "alloc")]
pub fn add<T: Scalar + ScanElem, I: Index + Key>(
    exec: Exec,
    alpha: T,
    a: &Csr<'_, T, I>,
    beta: T,
    b: &Csr<'_, T, I>,
) -> Result<crate::CsrOwned<T, I>, DimError> {
    use alloc::vec::Vec;
    fn filled<X: Copy>(len: usize, v: X) -> Result<Vec<X>, DimError> {
        let mut out = Vec::new();
        out.try_reserve_exact(len).map_err(|_| DimError::Overflow {
            what: "room",
            value: len,
            max: usize::MAX,
        })?;
        out.resize(len, v);
        Ok(out)
    }
    let ws = add_workspace_len(exec, a, b)?;
    let (mut wi, mut wv) = (filled(ws.idx, I::ZERO)?, filled(ws.vals, T::ZERO)?);
    let mut row_ptr = filled(a.nrows() + 1, I::ZERO)?;
    let nnz = add_symbolic(exec, a, b, &mut row_ptr, &mut wi)?;
    let (mut col_idx, mut vals) = (filled(nnz, I::ZERO)?, filled(nnz, T::ZERO)?);
    add_numeric(exec, alpha, a, beta, b, &row_ptr, &mut col_idx, &mut vals, (&mut wi, &mut wv))?;
    Ok(crate::CsrOwned::from_parts_trusted(a.nrows(), a.ncols(), row_ptr, col_idx, vals, RowOrder::Canonical))
}

/// `out_vals = alpha · vals(A)`: the values of `alpha·A`, whose structure is `A`'s (use
/// them with `A`'s `row_ptr` and `col_idx`).
///
/// # Errors
/// [`DimError::BufferTooSmall`] (`"out_vals"`) if it is shorter than `nnz(A)`; nothing is
/// written then.
pub fn scale<T: Scalar, I: Index>(a: &Csr<'_, T, I>, alpha: T, out_vals: &mut [T]) -> Result<(), DimError> {
    check_buf("out_vals", a.nnz(), out_vals.len())?;
    for (o, &v) in out_vals.iter_mut().zip(a.vals()) {
        *o = alpha * v;
    }
    Ok(())
}

/// `out_vals` = the values of `diag(d)·A` (row `i` times `d[i]`), `A`'s structure.
///
/// # Errors
/// [`DimError::Length`] (`"d"`) unless `d.len() == nrows`; [`DimError::BufferTooSmall`]
/// (`"out_vals"`). Nothing is written then.
pub fn scale_rows<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    d: &[T],
    out_vals: &mut [T],
) -> Result<(), DimError> {
    if d.len() != a.nrows() {
        return Err(DimError::Length { operand: "d", expected: a.nrows(), got: d.len() });
    }
    check_buf("out_vals", a.nnz(), out_vals.len())?;
    for (w, &di) in a.row_ptr().windows(2).zip(d) {
        let r = w[0].to_usize()..w[1].to_usize();
        for (o, &v) in out_vals[r.clone()].iter_mut().zip(&a.vals()[r]) {
            *o = di * v;
        }
    }
    Ok(())
}

/// `out_vals` = the values of `A·diag(d)` (column `j` times `d[j]`), `A`'s structure.
///
/// # Errors
/// [`DimError::Length`] (`"d"`) unless `d.len() == ncols`; [`DimError::BufferTooSmall`]
/// (`"out_vals"`). Nothing is written then.
pub fn scale_cols<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    d: &[T],
    out_vals: &mut [T],
) -> Result<(), DimError> {
    if d.len() != a.ncols() {
        return Err(DimError::Length { operand: "d", expected: a.ncols(), got: d.len() });
    }
    check_buf("out_vals", a.nnz(), out_vals.len())?;
    for ((o, &v), c) in out_vals.iter_mut().zip(a.vals()).zip(a.col_idx()) {
        *o = v * d.get(c.to_usize()).copied().unwrap_or(T::ZERO);
    }
    Ok(())
}
