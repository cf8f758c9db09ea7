//! The transposed CSR product (`level2::spmv_csr_transpose`) and the CSC view: against
//! the dense reference on every available `Isa`, f32/f64 values, u16/u32/usize indices,
//! the edge shapes and BLAS cases; `Csc::new` accepts and rejects exactly what
//! `Csr::new` does on the same arrays (errors renamed for columns); CSR → CSC → CSR; the
//! threaded form against the reference.

mod common;

use common::{RawCsr, assert_close, check_spmv_against, csr, reference_spmv, scalars, vector};
use proptest::prelude::*;
use spblas::level2::spmv_csr_transpose;
use spblas::{Csc, Csr, CsrOwned, DimError, Exec, FormatError, Index, Isa, RowOrder, Scalar, SpMv};

/// The reference `alpha * Aᵀ * x + beta * y` of `a` and the tolerance factor (the longest
/// column plus a few).
fn transposed_reference<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    alpha: T,
    x: &[T],
    beta: T,
    y0: &[T],
) -> (Vec<f64>, Vec<f64>, f64) {
    let (want, bound) = reference_spmv(a.ncols(), a.iter().map(|(i, j, v)| (j, i, v)), alpha, x, beta, y0);
    let mut col_len = vec![0usize; a.ncols()];
    a.col_idx().iter().for_each(|&c| col_len[c.to_usize()] += 1);
    (want, bound, (col_len.iter().max().copied().unwrap_or(0) + 3) as f64)
}

/// `Aᵀx` by the kernel on every `Isa`, and the CSC of `A` (converted, and the same arrays
/// read as the CSC of `Aᵀ` by `Csc::new`) by `SpMv`, against the reference; `y` starts as
/// NaN when `beta == 0`.
fn check_transposed<T: Scalar, I: Index>(
    raw: &RawCsr<T, I>,
    alpha: f64,
    beta: f64,
    seed: u64,
) -> Result<(), TestCaseError> {
    let owned = raw.owned();
    let a = owned.view();
    let (alpha, beta) = (T::from_f64(alpha), T::from_f64(beta));
    let x = vector::<T>(a.nrows(), seed);
    let y0 = vector::<T>(a.ncols(), seed.wrapping_add(1));
    let (want, bound, factor) = transposed_reference(&a, alpha, &x, beta, &y0);
    for isa in Isa::available() {
        let mut y = y0.clone();
        if beta == T::ZERO {
            y.fill(T::from_f64(f64::NAN));
        }
        spmv_csr_transpose(Exec::from(isa), &a, alpha, &x, beta, &mut y).unwrap();
        assert_close(&y, &want, &bound, factor).map_err(|e| TestCaseError::fail(format!("{isa}: {e}")))?;
    }
    // The same arrays read as a CSC: the matrix is Aᵀ, its SpMV the product above.
    let at = Csc::new(a.ncols(), a.nrows(), a.row_ptr(), a.col_idx(), a.vals()).unwrap();
    prop_assert_eq!(at.shape(), (a.ncols(), a.nrows()));
    prop_assert_eq!(at.col_order(), a.row_order());
    for isa in Isa::available() {
        let mut y = y0.clone();
        if beta == T::ZERO {
            y.fill(T::from_f64(f64::NAN));
        }
        at.spmv(Exec::from(isa), alpha, &x, beta, &mut y).unwrap();
        assert_close(&y, &want, &bound, factor)
            .map_err(|e| TestCaseError::fail(format!("csc {isa}: {e}")))?;
    }
    // A converted into CSC: its SpMV is A x.
    let (np, nnz) = Csc::from_csr_len(&a);
    let (mut cp, mut ri, mut cv) = (vec![I::ZERO; np], vec![I::ZERO; nnz], vec![T::ZERO; nnz]);
    let c = Csc::from_csr(&a, &mut cp, &mut ri, &mut cv).unwrap();
    prop_assert_eq!(c.shape(), a.shape());
    prop_assert!(c.col_order() != RowOrder::Unsorted);
    check_spmv_against(&c, &a, alpha, beta, seed)
}

/// Each row's `(col, value)` pairs stably sorted by column: what CSR → CSC → CSR gives.
fn rows_sorted<T: Scalar, I: Index>(a: &Csr<'_, T, I>) -> (Vec<I>, Vec<I>, Vec<T>) {
    let (mut ci, mut v) = (Vec::new(), Vec::new());
    for i in 0..a.nrows() {
        let (c, x) = a.row(i).unwrap();
        let mut pairs: Vec<(I, T)> = c.iter().copied().zip(x.iter().copied()).collect();
        pairs.sort_by_key(|p| p.0);
        ci.extend(pairs.iter().map(|p| p.0));
        v.extend(pairs.iter().map(|p| p.1));
    }
    (a.row_ptr().to_vec(), ci, v)
}

fn roundtrip_check<I: Index>(raw: &RawCsr<f64, I>) -> Result<(), TestCaseError> {
    let owned = raw.owned();
    let a = owned.view();
    let (np, nnz) = Csc::from_csr_len(&a);
    prop_assert_eq!((np, nnz), (a.ncols() + 1, a.nnz()));
    let (mut cp, mut ri, mut cv) = (vec![I::ZERO; np + 2], vec![I::ZERO; nnz + 1], vec![0.0; nnz + 3]);
    let c = Csc::from_csr(&a, &mut cp, &mut ri, &mut cv).unwrap();
    // The view over the prefixes is a valid CSC with the same entries.
    let again = Csc::new(c.nrows(), c.ncols(), c.col_ptr(), c.row_idx(), c.vals()).unwrap();
    let mut entries: Vec<_> = again.iter().map(|(i, j, v)| (i, j, v.to_bits())).collect();
    let mut want: Vec<_> = a.iter().map(|(i, j, v)| (i, j, v.to_bits())).collect();
    entries.sort_unstable();
    want.sort_unstable();
    prop_assert_eq!(entries, want);
    for j in 0..c.ncols() {
        let (rows, _) = c.col(j).unwrap();
        prop_assert!(rows.windows(2).all(|w| w[0] <= w[1]), "column {} unsorted", j);
    }
    prop_assert!(c.col(c.ncols()).is_none());
    let mut dense_a = vec![0.0; a.nrows() * a.ncols()];
    let mut dense_c = vec![1.0; a.nrows() * a.ncols()];
    a.to_dense(&mut dense_a).unwrap();
    c.to_dense(&mut dense_c).unwrap();
    prop_assert_eq!(&dense_a, &dense_c);
    // Back to CSR: each row stably sorted by column.
    prop_assert_eq!(c.to_csr_len(), (a.nrows() + 1, a.nnz()));
    let (mut rp, mut ci, mut v) = (vec![I::ZERO; a.nrows() + 1], vec![I::ZERO; nnz], vec![0.0; nnz]);
    let back = c.to_csr(&mut rp, &mut ci, &mut v).unwrap();
    let (wrp, wci, wv) = rows_sorted(&a);
    prop_assert_eq!(back.row_ptr(), &wrp[..]);
    prop_assert_eq!(back.col_idx(), &wci[..]);
    prop_assert_eq!(back.vals(), &wv[..]);
    Ok(())
}

/// A `Csr::new` error of the CSR of `Aᵀ` as `Csc::new` names it for `A`.
fn renamed(e: FormatError) -> FormatError {
    let name = |s: &'static str| match s {
        "row_ptr" => "col_ptr",
        "col_idx" => "row_idx",
        "nrows" => "ncols",
        "ncols" => "nrows",
        other => other,
    };
    match e {
        FormatError::Length { array, expected, got } => {
            FormatError::Length { array: name(array), expected, got }
        }
        FormatError::TooLarge { what, value, max } => FormatError::TooLarge { what: name(what), value, max },
        FormatError::PtrStart { array, got } => FormatError::PtrStart { array: name(array), got },
        FormatError::PtrDecreasing { array, position } => {
            FormatError::PtrDecreasing { array: name(array), position }
        }
        FormatError::PtrEnd { array, expected, got } => {
            FormatError::PtrEnd { array: name(array), expected, got }
        }
        FormatError::ColumnOutOfBounds { position, col, ncols, .. } => {
            FormatError::RowOutOfBounds { position, row: col, nrows: ncols }
        }
        other => other,
    }
}

/// One entry of `row_ptr` or `col_idx` (or the length of `vals`) changed: `Csc::new` on the
/// arrays as the CSC of the `ncols x nrows` matrix agrees with `Csr::new`, error for error.
fn rejects_check<I: Index>(
    raw: &RawCsr<f64, I>,
    which: usize,
    pick: usize,
    value: usize,
) -> Result<(), TestCaseError> {
    let mut r = raw.clone();
    let v = I::from_usize(value % (raw.nrows.max(raw.ncols) + 4)).unwrap();
    match which {
        0 => {
            let k = pick % r.row_ptr.len();
            r.row_ptr[k] = v;
        }
        1 if !r.col_idx.is_empty() => {
            let k = pick % r.col_idx.len();
            r.col_idx[k] = v;
        }
        2 => r.vals.push(1.0),
        3 => {
            r.row_ptr.pop();
        }
        _ => {}
    }
    let csr = Csr::new(r.nrows, r.ncols, &r.row_ptr, &r.col_idx, &r.vals);
    let csc = Csc::new(r.ncols, r.nrows, &r.row_ptr, &r.col_idx, &r.vals);
    match (csr, csc) {
        (Ok(a), Ok(c)) => {
            prop_assert_eq!(c.col_order(), a.row_order());
            prop_assert_eq!(c.nnz(), a.nnz());
        }
        (Err(e), Err(f)) => {
            prop_assert_eq!(f, renamed(e));
            prop_assert!(!f.to_string().is_empty());
        }
        (a, c) => prop_assert!(false, "csr {:?} but csc {:?}", a.map(|_| ()), c.map(|_| ())),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::common::cases(64)))]

    #[test]
    fn transposed_spmv_equals_dense_reference_f64_u32(raw in csr::<f64, u32>(30, 10, false), (a, b) in scalars(), seed: u64) {
        check_transposed(&raw, a, b, seed)?;
    }

    #[test]
    fn transposed_spmv_equals_dense_reference_f32_u32(raw in csr::<f32, u32>(30, 10, false), (a, b) in scalars(), seed: u64) {
        check_transposed(&raw, a, b, seed)?;
    }

    #[test]
    fn transposed_spmv_equals_dense_reference_f64_u16(raw in csr::<f64, u16>(30, 10, false), (a, b) in scalars(), seed: u64) {
        check_transposed(&raw, a, b, seed)?;
    }

    #[test]
    fn transposed_spmv_equals_dense_reference_f32_u16(raw in csr::<f32, u16>(30, 10, true), (a, b) in scalars(), seed: u64) {
        check_transposed(&raw, a, b, seed)?;
    }

    #[test]
    fn transposed_spmv_equals_dense_reference_f64_usize(raw in csr::<f64, usize>(30, 10, false), (a, b) in scalars(), seed: u64) {
        check_transposed(&raw, a, b, seed)?;
    }

    #[test]
    fn transposed_spmv_equals_dense_reference_f32_usize(raw in csr::<f32, usize>(30, 10, true), (a, b) in scalars(), seed: u64) {
        check_transposed(&raw, a, b, seed)?;
    }

    #[test]
    fn csr_csc_csr_roundtrip_sorts_rows_stably(raw in csr::<f64, u32>(30, 10, false)) {
        roundtrip_check(&raw)?;
    }

    #[test]
    fn csr_csc_csr_roundtrip_sorts_rows_stably_u16(raw in csr::<f64, u16>(30, 10, false)) {
        roundtrip_check(&raw)?;
    }

    #[test]
    fn csc_new_rejects_what_csr_new_rejects(raw in csr::<f64, u32>(20, 6, false), which in 0usize..5, pick: usize, value: usize) {
        rejects_check(&raw, which, pick, value)?;
    }

    #[test]
    fn csc_new_rejects_what_csr_new_rejects_u16(raw in csr::<f64, u16>(20, 6, false), which in 0usize..5, pick: usize, value: usize) {
        rejects_check(&raw, which, pick, value)?;
    }
}

/// Rows built from pieces: runs of consecutive columns (lengths around the scatter's
/// chunk of 8, so chunks fall inside, across and outside them), single columns, and
/// near-runs that fool an edge test (`c, c + 2, c + 2, ..., c + 7`: first and last eight
/// apart, not a run), each row then kept, reversed or rotated (and, by
/// [`check_runs_both`], also sorted without duplicates). The kernel must give the plain
/// scatter loop's bits (the same adds in the same order per `y[j]`).
fn runs_matrix<T: Scalar>() -> impl Strategy<Value = (usize, usize, Vec<Vec<(usize, T)>>)> {
    let piece = (0u8..3, 0usize..64, 1usize..20, -4i32..5);
    (1usize..12, 24usize..80, prop::collection::vec((prop::collection::vec(piece, 0..5), 0u8..3), 12))
        .prop_map(|(m, n, rows)| {
            let rows = rows
                .into_iter()
                .take(m)
                .map(|(pieces, order)| {
                    let mut row: Vec<(usize, T)> = Vec::new();
                    for (kind, start, len, v) in pieces {
                        let cols: Vec<usize> = match kind {
                            0 => (start..start + len).collect(),
                            1 => vec![start],
                            _ => (0..8).map(|t| start + if t == 1 { 2 } else { t }).collect(),
                        };
                        for (t, c) in cols.into_iter().enumerate() {
                            row.push((c % n, T::from_f64(f64::from(v) + t as f64 * 0.375)));
                        }
                    }
                    match order {
                        1 => row.reverse(),
                        2 => {
                            let k = row.len() / 3;
                            row.rotate_left(k);
                        }
                        _ => {}
                    }
                    row
                })
                .collect();
            (m, n, rows)
        })
}

/// The plain scatter: `y[j] += v * (alpha * x[i])` entry by entry, rows in order.
fn plain_scatter<T: Scalar>(rows: &[Vec<(usize, T)>], alpha: T, x: &[T], y: &mut [T]) {
    for (i, row) in rows.iter().enumerate() {
        let s = alpha * x[i];
        for &(j, v) in row {
            y[j] += v * s;
        }
    }
}

/// [`check_runs`] on the rows as given and on each row sorted with its duplicates summed
/// (canonical rows take the kernel's other path).
fn check_runs_both<T: Scalar>(
    m: usize,
    n: usize,
    rows: &[Vec<(usize, T)>],
    seed: u64,
) -> Result<(), TestCaseError> {
    check_runs(m, n, rows, seed, false)?;
    let canonical: Vec<Vec<(usize, T)>> = rows
        .iter()
        .map(|row| {
            let mut r = row.clone();
            r.sort_by_key(|e| e.0);
            let mut out: Vec<(usize, T)> = Vec::new();
            for (j, v) in r {
                match out.last_mut() {
                    Some(last) if last.0 == j => last.1 += v,
                    _ => out.push((j, v)),
                }
            }
            out
        })
        .collect();
    check_runs(m, n, &canonical, seed, true)
}

fn check_runs<T: Scalar>(
    m: usize,
    n: usize,
    rows: &[Vec<(usize, T)>],
    seed: u64,
    canonical: bool,
) -> Result<(), TestCaseError> {
    let mut rp = vec![0u32];
    let (mut ci, mut vals) = (Vec::new(), Vec::new());
    for row in rows {
        for &(j, v) in row {
            ci.push(j as u32);
            vals.push(v);
        }
        rp.push(ci.len() as u32);
    }
    let a = Csr::new(m, n, &rp, &ci, &vals).unwrap();
    if canonical {
        prop_assert_eq!(a.row_order(), RowOrder::Canonical);
    }
    let (x, y0) = (vector::<T>(m, seed), vector::<T>(n, seed.wrapping_add(1)));
    let alpha = T::from_f64(-1.5);
    let mut want = y0.clone();
    plain_scatter(rows, alpha, &x, &mut want);
    for isa in Isa::available() {
        let mut y = y0.clone();
        spmv_csr_transpose(Exec::from(isa), &a, alpha, &x, T::ONE, &mut y).unwrap();
        let same = y.iter().zip(&want).all(|(p, q)| p.to_f64().to_bits() == q.to_f64().to_bits());
        prop_assert!(same, "{}: {:?} want {:?}", isa, y, want);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::common::cases(128)))]

    #[test]
    fn runs_of_columns_give_the_plain_scatters_bits_f64((m, n, rows) in runs_matrix::<f64>(), seed: u64) {
        check_runs_both(m, n, &rows, seed)?;
    }

    #[test]
    fn runs_of_columns_give_the_plain_scatters_bits_f32((m, n, rows) in runs_matrix::<f32>(), seed: u64) {
        check_runs_both(m, n, &rows, seed)?;
    }
}

/// `m x n` with row `i` holding `len(i)` entries at pseudo-random columns (duplicates
/// possible, unsorted).
fn from_lens(m: usize, n: usize, len: impl Fn(usize) -> usize) -> CsrOwned<f64, u32> {
    let mut t = Vec::new();
    for i in 0..m {
        for k in 0..if n == 0 { 0 } else { len(i) } {
            t.push((i, (i * 7919 + k * 104_729) % n, ((i + 3 * k) % 9) as f64 - 4.0));
        }
    }
    let mut rp = vec![0u32; m + 1];
    for &(i, _, _) in &t {
        rp[i + 1] += 1;
    }
    for i in 0..m {
        rp[i + 1] += rp[i];
    }
    let ci = t.iter().map(|e| e.1 as u32).collect();
    let v = t.iter().map(|e| e.2).collect();
    CsrOwned::from_parts(m, n, rp, ci, v).unwrap()
}

/// 0 x 0, 0 x n, n x 0, all rows empty, one dense row, one dense column: the kernel and
/// the CSC against the reference on every `Isa`.
#[test]
fn edge_shapes_match_the_reference() {
    type Lens<'f> = &'f dyn Fn(usize) -> usize;
    let shapes: [(usize, usize, Lens<'_>); 6] = [
        (0, 0, &|_| 0),
        (0, 7, &|_| 0),
        (7, 0, &|_| 0),
        (9, 5, &|_| 0),
        (6, 300, &|i| if i == 2 { 300 } else { 0 }),
        (300, 1, &|_| 1),
    ];
    for (m, n, len) in shapes {
        let a = from_lens(m, n, len);
        let raw = RawCsr {
            nrows: m,
            ncols: n,
            row_ptr: a.view().row_ptr().to_vec(),
            col_idx: a.view().col_idx().to_vec(),
            vals: a.view().vals().to_vec(),
        };
        for (alpha, beta) in [(1.0, 0.0), (-2.5, 0.5), (0.0, 1.0), (0.0, 0.0)] {
            check_transposed(&raw, alpha, beta, 11).unwrap_or_else(|e| panic!("{m} x {n}: {e}"));
        }
    }
}

/// `alpha == 0` reads neither `A` nor `x`: NaN in `x` does not reach `y = beta * y`; and
/// `beta == 0` with NaN in `y` gives the product alone.
#[test]
fn alpha_zero_reads_no_x_and_beta_zero_reads_no_y() {
    let a = from_lens(40, 30, |i| i % 5);
    let a = a.view();
    for isa in Isa::available() {
        let x = vec![f64::NAN; 40];
        let mut y: Vec<f64> = (0..30).map(|j| j as f64).collect();
        spmv_csr_transpose(Exec::from(isa), &a, 0.0, &x, 0.5, &mut y).unwrap();
        assert_eq!(y, (0..30).map(|j| j as f64 * 0.5).collect::<Vec<_>>());
        spmv_csr_transpose(Exec::from(isa), &a, 0.0, &x, 0.0, &mut y).unwrap();
        assert_eq!(y, vec![0.0; 30]);
        let x = vec![1.0; 40];
        let mut y = vec![f64::NAN; 30];
        spmv_csr_transpose(Exec::from(isa), &a, 1.0, &x, 0.0, &mut y).unwrap();
        let mut want = vec![0.0; 30];
        for (_, j, v) in a.iter() {
            want[j] += v;
        }
        assert_eq!(y, want, "{isa}");
    }
}

/// Wrong lengths of `x` (must be `nrows`) and `y` (`ncols`) are `DimError::Length` naming
/// the operand, with `y` untouched, on one thread and on several.
#[test]
fn wrong_lengths_are_errors_and_leave_y_alone() {
    let a = from_lens(50, 20, |i| i % 4);
    let a = a.view();
    let c = Csc::new(20, 50, a.row_ptr(), a.col_idx(), a.vals()).unwrap();
    for threads in [1, 4] {
        let exec = Exec::new().threads(threads);
        let mut y = vec![7.0; 20];
        let e = spmv_csr_transpose(exec, &a, 1.0, &[1.0; 20], 0.0, &mut y).unwrap_err();
        assert_eq!(e, DimError::Length { operand: "x", expected: 50, got: 20 });
        let mut short = vec![7.0; 19];
        let e = spmv_csr_transpose(exec, &a, 1.0, &[1.0; 50], 0.0, &mut short).unwrap_err();
        assert_eq!(e, DimError::Length { operand: "y", expected: 20, got: 19 });
        let e = c.spmv(exec, 1.0, &[1.0; 20], 0.0, &mut y).unwrap_err();
        assert_eq!(e, DimError::Length { operand: "x", expected: 50, got: 20 });
        assert!(y.iter().chain(&short).all(|&v| v == 7.0));
    }
}

/// The errors of `Csc` name its own arrays, and short buffers of the conversions are
/// errors that write nothing.
#[test]
fn csc_errors_name_columns_and_short_buffers_write_nothing() {
    let (cp, ri, v) = ([0u32, 1, 3], [2u32, 0, 5], [1.0f64, 2.0, 3.0]);
    assert_eq!(
        Csc::new(4, 2, &cp, &ri, &v).unwrap_err(),
        FormatError::RowOutOfBounds { position: 2, row: 5, nrows: 4 }
    );
    assert!(matches!(Csc::new(4, 3, &cp, &ri, &v), Err(FormatError::Length { array: "col_ptr", .. })));
    assert!(matches!(
        Csc::new(6, 2, &[1u32, 1, 3], &ri, &v),
        Err(FormatError::PtrStart { array: "col_ptr", .. })
    ));
    assert!(matches!(
        Csc::<f64, u16>::new(70_000, 0, &[0], &[], &[]),
        Err(FormatError::TooLarge { what: "nrows", .. })
    ));
    let c = Csc::new(6, 2, &cp, &ri, &v).unwrap();
    assert_eq!(c.iter().collect::<Vec<_>>(), [(2, 0, 1.0), (0, 1, 2.0), (5, 1, 3.0)]);
    let (mut rp, mut ci, mut vv) = ([9u32; 7], [9u32; 3], [9.0f64; 2]);
    assert_eq!(
        c.to_csr(&mut rp, &mut ci, &mut vv).unwrap_err(),
        FormatError::BufferTooSmall { array: "vals", needed: 3, got: 2 }
    );
    assert!(rp.iter().chain(&ci).all(|&x| x == 9) && vv == [9.0; 2]);
    let a = c.as_transposed_csr();
    let (mut cp2, mut ri2, mut v2) = ([9u32; 6], [9u32; 3], [9.0f64; 3]);
    assert_eq!(
        Csc::from_csr(&a, &mut cp2, &mut ri2, &mut v2).unwrap_err(),
        FormatError::BufferTooSmall { array: "col_ptr", needed: 7, got: 6 }
    );
    assert!(cp2.iter().chain(&ri2).all(|&x| x == 9) && v2 == [9.0; 3]);
    let mut dense = [0.0; 11];
    assert!(c.to_dense(&mut dense).is_err());
    assert_eq!(dense, [0.0; 11]);
}

#[cfg(feature = "parallel")]
mod threads {
    use super::*;
    use std::sync::OnceLock;

    /// Runs `f` in a pool of 9 threads, so the thread counts below split the work that
    /// many ways on any machine (on this thread where none can start).
    fn wide<R: Send>(f: impl FnOnce() -> R + Send) -> R {
        static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
        match POOL.get_or_init(|| rayon::ThreadPoolBuilder::new().num_threads(9).build().ok()) {
            Some(pool) => pool.install(f),
            None => f(),
        }
    }

    fn threaded_check(
        raw: &RawCsr<f64, u32>,
        threads: usize,
        (alpha, beta): (f64, f64),
        seed: u64,
    ) -> Result<(), TestCaseError> {
        let owned = raw.owned();
        let a = owned.view();
        let x = vector::<f64>(a.nrows(), seed);
        let y0 = vector::<f64>(a.ncols(), seed + 1);
        let (want, bound, factor) = transposed_reference(&a, alpha, &x, beta, &y0);
        for isa in Isa::available() {
            let mut y = y0.clone();
            if beta == 0.0 {
                y.fill(f64::NAN);
            }
            wide(|| spmv_csr_transpose(Exec::from(isa).threads(threads), &a, alpha, &x, beta, &mut y))
                .unwrap();
            assert_close(&y, &want, &bound, factor)?;
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::common::cases(64)))]

        #[test]
        fn threaded_transposed_spmv_matches_reference(raw in csr::<f64, u32>(60, 20, false), threads in 0usize..9, ab in scalars(), seed: u64) {
            threaded_check(&raw, threads, ab, seed)?;
        }
    }

    /// A matrix past the serial threshold and with more columns than one block of the
    /// sum: `threads(0)` and explicit counts equal the serial product within rounding.
    #[test]
    fn threaded_transposed_spmv_on_a_wide_matrix() {
        let a = from_lens(3000, 9000, |i| 20 + i % 21);
        let a = a.view();
        let x = vector::<f64>(3000, 5);
        let y0 = vector::<f64>(9000, 6);
        let mut serial = y0.clone();
        spmv_csr_transpose(Exec::new(), &a, 1.5, &x, 0.5, &mut serial).unwrap();
        for threads in [0, 2, 4, 8] {
            let mut y = y0.clone();
            wide(|| spmv_csr_transpose(Exec::new().threads(threads), &a, 1.5, &x, 0.5, &mut y)).unwrap();
            for (p, q) in y.iter().zip(&serial) {
                assert!((p - q).abs() <= 1e-12 * (1.0 + q.abs()), "threads {threads}: {p} vs {q}");
            }
        }
    }
}
