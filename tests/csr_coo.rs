//! CSR and COO: validation, conversions and reference SpMV against a dense reference.

mod common;

use common::{RawCsr, check_spmv_against, csr, scalars};
use proptest::prelude::*;
use spblas::Exec;
use spblas::{Coo, Csr, CsrOwned, DimError, FormatError, Index, Isa, RowOrder, Scalar, SpMv};

fn check_csr_spmv<T: Scalar, I: Index>(
    raw: &RawCsr<T, I>,
    alpha: T,
    beta: T,
    seed: u64,
) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    check_spmv_against(&a, &a, alpha, beta, seed)?;
    // COO of the same matrix gives the same product.
    let nnz = a.nnz();
    let (mut r, mut c, mut v) = (vec![I::ZERO; nnz], vec![I::ZERO; nnz], vec![T::ZERO; nnz]);
    let coo = Coo::from_csr(&a, &mut r, &mut c, &mut v).unwrap();
    check_spmv_against(&coo, &a, alpha, beta, seed)
}

/// `i` as an index of type `I` (the strategies keep every index in range).
fn ix<I: Index>(i: usize) -> I {
    I::from_usize(i).unwrap()
}

fn roundtrip_check<I: Index>(raw: &RawCsr<f64, I>) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    let nnz = a.nnz();
    let (mut r, mut c, mut v) = (vec![I::ZERO; nnz], vec![I::ZERO; nnz], vec![0.0; nnz]);
    let coo = Coo::from_csr(&a, &mut r, &mut c, &mut v).unwrap();
    prop_assert_eq!(coo.is_sorted(), a.row_order() != RowOrder::Unsorted);
    let (mut rp, mut c2, mut v2) = (vec![I::ZERO; a.nrows() + 1], vec![I::ZERO; nnz], vec![0.0; nnz]);
    let back = coo.to_csr(&mut rp, &mut c2, &mut v2).unwrap();
    prop_assert_eq!(back.row_ptr(), a.row_ptr());
    prop_assert_eq!(back.col_idx(), a.col_idx());
    prop_assert_eq!(back.vals(), a.vals());
    prop_assert_eq!(back.row_order(), a.row_order());
    Ok(())
}

/// Column panels: panel `p` holds, row by row and in order, exactly the entries of
/// columns `p * w .. (p + 1) * w`; each keeps the shape and states its row order.
fn panels_check<I: Index>(raw: &RawCsr<f64, I>, w: usize) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    let panels = CsrOwned::column_panels(&a, w).unwrap();
    prop_assert_eq!(panels.len(), a.ncols().div_ceil(w).max(1));
    prop_assert_eq!(panels.iter().map(CsrOwned::nnz).sum::<usize>(), a.nnz());
    for (p, panel) in panels.iter().enumerate() {
        let v = panel.view();
        prop_assert_eq!(v.shape(), a.shape());
        let order = Csr::new(a.nrows(), a.ncols(), v.row_ptr(), v.col_idx(), v.vals()).unwrap().row_order();
        prop_assert_eq!(v.row_order(), order);
        prop_assert!(a.row_order() == RowOrder::Unsorted || order >= a.row_order());
        for i in 0..a.nrows() {
            let (c, x) = a.row(i).unwrap();
            let want: Vec<(I, f64)> =
                c.iter().zip(x).filter(|e| e.0.to_usize() / w == p).map(|(&c, &x)| (c, x)).collect();
            let (pc, px) = v.row(i).unwrap();
            let got: Vec<(I, f64)> = pc.iter().copied().zip(px.iter().copied()).collect();
            prop_assert_eq!(got, want, "row {} of panel {}", i, p);
        }
    }
    Ok(())
}

fn coo_shuffle_check<I: Index>(raw: &RawCsr<f64, I>, seed: u64) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    let mut t: Vec<(I, I, f64)> = a.iter().map(|(i, j, v)| (ix(i), ix(j), v)).collect();
    // Deterministic shuffle.
    for k in (1..t.len()).rev() {
        let j = (common::splitmix(seed ^ k as u64) % (k as u64 + 1)) as usize;
        t.swap(k, j);
    }
    let r: Vec<I> = t.iter().map(|e| e.0).collect();
    let c: Vec<I> = t.iter().map(|e| e.1).collect();
    let v: Vec<f64> = t.iter().map(|e| e.2).collect();
    let coo = Coo::new(a.nrows(), a.ncols(), &r, &c, &v).unwrap();
    let (mut rp, mut c2, mut v2) = (vec![I::ZERO; a.nrows() + 1], vec![I::ZERO; t.len()], vec![0.0; t.len()]);
    let back = coo.to_csr(&mut rp, &mut c2, &mut v2).unwrap();
    prop_assert_eq!(back.row_ptr(), a.row_ptr());
    // Within a row the order is the shuffled COO order: compare as sorted sets.
    for i in 0..a.nrows() {
        let (bc, bv) = back.row(i).unwrap();
        let mut got: Vec<(I, u64)> = bc.iter().zip(bv).map(|(&c, &v)| (c, v.to_bits())).collect();
        let (ac, av) = a.row(i).unwrap();
        let mut want: Vec<(I, u64)> = ac.iter().zip(av).map(|(&c, &v)| (c, v.to_bits())).collect();
        got.sort();
        want.sort();
        prop_assert_eq!(got, want);
    }
    Ok(())
}

fn triplets_check<I: Index>(
    nrows: usize,
    ncols: usize,
    t: &[(usize, usize, f64)],
) -> Result<(), TestCaseError> {
    let a = CsrOwned::<f64, I>::from_triplets(nrows, ncols, t).unwrap();
    let a = a.view();
    prop_assert_eq!(a.row_order(), RowOrder::Canonical);
    let mut dense = vec![0.0; nrows * ncols];
    for &(r, c, v) in t {
        dense[r * ncols + c] += v;
    }
    let mut got = vec![f64::NAN; nrows * ncols];
    a.to_dense(&mut got).unwrap();
    prop_assert_eq!(got, dense);
    let distinct: std::collections::BTreeSet<(usize, usize)> = t.iter().map(|e| (e.0, e.1)).collect();
    prop_assert_eq!(a.nnz(), distinct.len());
    Ok(())
}

/// Zero to two columns out of bounds (by 0..3 past the last); the error must name the
/// first in row order, and a valid matrix must get the row order a row-by-row scan
/// gives.
fn validation_check<I: Index>(
    raw: &RawCsr<f64, I>,
    picks: &[usize],
    over: usize,
) -> Result<(), TestCaseError> {
    let mut r = raw.clone();
    let nnz = r.col_idx.len();
    for &p in picks.iter().skip(1) {
        if nnz > 0 {
            r.col_idx[p % nnz] = ix(r.ncols + over);
        }
    }
    let mut want = Ok(RowOrder::Canonical);
    'rows: for row in 0..r.nrows {
        let (s, e) = (r.row_ptr[row].to_usize(), r.row_ptr[row + 1].to_usize());
        for k in s..e {
            let c = r.col_idx[k];
            if c.to_usize() >= r.ncols {
                want = Err(FormatError::ColumnOutOfBounds {
                    row,
                    position: k,
                    col: c.to_usize(),
                    ncols: r.ncols,
                });
                break 'rows;
            }
            if k > s && c < r.col_idx[k - 1] {
                want = want.map(|_| RowOrder::Unsorted);
            } else if k > s && c == r.col_idx[k - 1] && want == Ok(RowOrder::Canonical) {
                want = Ok(RowOrder::Sorted);
            }
        }
    }
    let got = Csr::new(r.nrows, r.ncols, &r.row_ptr, &r.col_idx, &r.vals).map(|a| a.row_order());
    prop_assert_eq!(got, want);
    Ok(())
}

/// Entries in row-major order, some pairs swapped, zero to two row or column indices out
/// of bounds: the error must name the first entry an entry-by-entry scan rejects (its row
/// before its column), and `is_sorted` must be that scan's.
fn coo_validation_check<I: Index>(
    raw: &RawCsr<f64, I>,
    seed: u64,
    picks: &[(usize, bool)],
    over: usize,
) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    let mut t: Vec<(I, I)> = a.iter().map(|(i, j, _)| (ix(i), ix(j))).collect();
    if !t.is_empty() && !seed.is_multiple_of(3) {
        for k in 0..(seed % 4) as usize {
            let i = (common::splitmix(seed ^ k as u64) % t.len() as u64) as usize;
            let j = (common::splitmix(seed.rotate_left(7) ^ k as u64) % t.len() as u64) as usize;
            t.swap(i, j);
        }
    }
    let (mut r, mut c): (Vec<I>, Vec<I>) = t.into_iter().unzip();
    let nnz = r.len();
    for &(p, row) in picks {
        if nnz > 0 {
            if row { r[p % nnz] = ix(a.nrows() + over) } else { c[p % nnz] = ix(a.ncols() + over) }
        }
    }
    let v = vec![1.0; nnz];
    let mut want = Ok(true);
    for k in 0..nnz {
        let (rk, ck) = (r[k].to_usize(), c[k].to_usize());
        if rk >= a.nrows() {
            want = Err(FormatError::RowOutOfBounds { position: k, row: rk, nrows: a.nrows() });
            break;
        }
        if ck >= a.ncols() {
            want = Err(FormatError::ColumnOutOfBounds { row: rk, position: k, col: ck, ncols: a.ncols() });
            break;
        }
        if k > 0 && (r[k], c[k]) < (r[k - 1], c[k - 1]) {
            want = want.map(|_| false);
        }
    }
    let got = Coo::new(a.nrows(), a.ncols(), &r, &c, &v).map(|coo| coo.is_sorted());
    prop_assert_eq!(got, want);
    Ok(())
}

fn corrupted_check<I: Index>(raw: &RawCsr<f64, I>, which: usize, pick: usize) -> Result<(), TestCaseError> {
    let mut r = raw.clone();
    let nnz = r.col_idx.len();
    let expected = match which {
        0 => {
            r.row_ptr[0] = ix(1);
            "PtrStart"
        }
        1 if r.nrows > 0 => {
            let last = r.row_ptr.len() - 1;
            r.row_ptr[last] = ix(r.row_ptr[last].to_usize() + 1);
            "PtrEnd"
        }
        2 if nnz > 0 => {
            let k = pick % nnz;
            r.col_idx[k] = ix(r.ncols + pick % 3);
            "ColumnOutOfBounds"
        }
        3 => {
            r.vals.push(1.0);
            "Length"
        }
        4 => {
            r.row_ptr.pop();
            "Length"
        }
        5 if r.nrows > 1 && nnz > 0 => {
            // Make row_ptr decrease somewhere inside.
            let i = 1 + pick % (r.nrows - 1);
            r.row_ptr[i] = ix(r.row_ptr[i + 1].to_usize() + 1);
            "PtrDecreasing"
        }
        _ => return Ok(()),
    };
    let err = Csr::new(r.nrows, r.ncols, &r.row_ptr, &r.col_idx, &r.vals).unwrap_err();
    let got = format!("{err:?}");
    prop_assert!(got.starts_with(expected), "expected {}, got {}", expected, got);
    prop_assert!(!err.to_string().is_empty());
    Ok(())
}

proptest! {
    #[test]
    fn csr_and_coo_spmv_equal_dense_reference_f64_u32(raw in csr::<f64, u32>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_csr_spmv(&raw, a, b, seed)?;
    }

    #[test]
    fn csr_and_coo_spmv_equal_dense_reference_f32_u64(raw in csr::<f32, u64>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_csr_spmv(&raw, a as f32, b as f32, seed)?;
    }

    #[test]
    fn csr_and_coo_spmv_equal_dense_reference_f64_usize(raw in csr::<f64, usize>(30, 8, true), (a, b) in scalars(), seed: u64) {
        check_csr_spmv(&raw, a, b, seed)?;
    }

    #[test]
    fn csr_and_coo_spmv_equal_dense_reference_f64_u16(raw in csr::<f64, u16>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_csr_spmv(&raw, a, b, seed)?;
    }

    #[test]
    fn csr_and_coo_spmv_equal_dense_reference_f32_u16(raw in csr::<f32, u16>(30, 8, true), (a, b) in scalars(), seed: u64) {
        check_csr_spmv(&raw, a as f32, b as f32, seed)?;
    }

    #[test]
    fn csr_coo_csr_roundtrip_preserves_entries(raw in csr::<f64, u32>(40, 12, false)) {
        roundtrip_check(&raw)?;
    }

    #[test]
    fn csr_coo_csr_roundtrip_preserves_entries_u16(raw in csr::<f64, u16>(40, 12, false)) {
        roundtrip_check(&raw)?;
    }

    #[test]
    fn column_panels_split_every_row_by_columns(raw in csr::<f64, u32>(30, 12, false), w in 1usize..8) {
        panels_check(&raw, w)?;
    }

    #[test]
    fn column_panels_split_every_row_by_columns_u16(raw in csr::<f64, u16>(30, 12, false), w in 1usize..8) {
        panels_check(&raw, w)?;
    }

    #[test]
    fn coo_to_csr_is_a_stable_sort_of_shuffled_entries(raw in csr::<f64, u32>(30, 10, true), seed: u64) {
        coo_shuffle_check(&raw, seed)?;
    }

    #[test]
    fn coo_to_csr_is_a_stable_sort_of_shuffled_entries_u16(raw in csr::<f64, u16>(30, 10, true), seed: u64) {
        coo_shuffle_check(&raw, seed)?;
    }

    #[test]
    fn from_triplets_sums_duplicates_like_dense(nrows in 0usize..20, ncols in 0usize..20, raw in proptest::collection::vec((0usize..20, 0usize..20, -4i32..4), 0..80)) {
        let t: Vec<(usize, usize, f64)> = raw.into_iter().filter(|e| e.0 < nrows && e.1 < ncols).map(|(r, c, v)| (r, c, v as f64)).collect();
        triplets_check::<u32>(nrows, ncols, &t)?;
        triplets_check::<u16>(nrows, ncols, &t)?;
        triplets_check::<i32>(nrows, ncols, &t)?;
        triplets_check::<i64>(nrows, ncols, &t)?;
    }

    #[test]
    fn validation_matches_a_row_by_row_reference(
        raw in csr::<f64, u32>(40, 8, false),
        picks in proptest::collection::vec(any::<usize>(), 0..3),
        over in 0usize..3,
    ) {
        validation_check(&raw, &picks, over)?;
    }

    #[test]
    fn validation_matches_a_row_by_row_reference_u16(
        raw in csr::<f64, u16>(40, 8, false),
        picks in proptest::collection::vec(any::<usize>(), 0..3),
        over in 0usize..3,
    ) {
        validation_check(&raw, &picks, over)?;
    }

    #[test]
    fn coo_validation_matches_an_entry_by_entry_reference(
        raw in csr::<f64, u32>(40, 8, true),
        seed: u64,
        picks in proptest::collection::vec((any::<usize>(), any::<bool>()), 0..3),
        over in 0usize..3,
    ) {
        coo_validation_check(&raw, seed, &picks, over)?;
    }

    #[test]
    fn coo_validation_matches_an_entry_by_entry_reference_u16(
        raw in csr::<f64, u16>(40, 8, true),
        seed: u64,
        picks in proptest::collection::vec((any::<usize>(), any::<bool>()), 0..3),
        over in 0usize..3,
    ) {
        coo_validation_check(&raw, seed, &picks, over)?;
    }

    #[test]
    fn corrupted_csr_is_rejected_with_the_matching_error(raw in csr::<f64, u32>(20, 6, false), which in 0usize..6, pick: usize) {
        corrupted_check(&raw, which, pick)?;
    }

    #[test]
    fn corrupted_csr_is_rejected_with_the_matching_error_u16(raw in csr::<f64, u16>(20, 6, false), which in 0usize..6, pick: usize) {
        corrupted_check(&raw, which, pick)?;
    }
}

#[test]
fn beta_zero_overwrites_nan_and_alpha_zero_skips_matrix() {
    let a = Csr::<f64, u32>::new(2, 2, &[0, 1, 2], &[0, 1], &[2.0, 3.0]).unwrap();
    let mut y = [f64::NAN, f64::INFINITY];
    a.spmv(Exec::new(), 1.0, &[1.0, 1.0], 0.0, &mut y).unwrap();
    assert_eq!(y, [2.0, 3.0]);
    // alpha = 0: x is not read, so NaN in x does not leak.
    let mut y = [1.0, 2.0];
    a.spmv(Exec::new(), 0.0, &[f64::NAN, f64::NAN], 2.0, &mut y).unwrap();
    assert_eq!(y, [2.0, 4.0]);
}

#[test]
fn wrong_vector_lengths_are_errors_and_leave_y_untouched() {
    let a = Csr::<f32, u32>::new(2, 3, &[0, 1, 2], &[0, 2], &[2.0, 3.0]).unwrap();
    let mut y = [7.0f32; 2];
    assert_eq!(
        a.spmv(Exec::new(), 1.0, &[1.0; 2], 0.0, &mut y),
        Err(DimError::Length { operand: "x", expected: 3, got: 2 })
    );
    let mut y3 = [7.0f32; 3];
    assert_eq!(
        a.spmv(Exec::new(), 1.0, &[1.0; 3], 0.0, &mut y3),
        Err(DimError::Length { operand: "y", expected: 2, got: 3 })
    );
    assert_eq!(y, [7.0; 2]);
}

#[test]
fn unavailable_isa_is_an_error() {
    let a = Csr::<f64, u32>::new(1, 1, &[0, 1], &[0], &[1.0]).unwrap();
    for isa in Isa::ALL {
        let mut y = [0.0];
        let r = a.spmv(Exec::from(isa), 1.0, &[1.0], 0.0, &mut y);
        if isa.is_available() {
            assert_eq!(r, Ok(()));
        } else {
            assert_eq!(r, Err(DimError::IsaUnavailable { isa }));
        }
    }
}

#[test]
fn dimensions_that_do_not_fit_the_index_type_are_rejected() {
    let row_ptr = [0u32];
    let r = Csr::<f64, u32>::new(0, u32::MAX as usize, &row_ptr, &[], &[]);
    assert!(matches!(r, Err(FormatError::TooLarge { what: "ncols", .. })));
    let r = Csr::<f64, u32>::new(0, u32::MAX as usize - 1, &row_ptr, &[], &[]);
    assert!(r.is_ok());
}

/// `u16` at its limits: 65 534 rows and columns (`u16::MAX` stays free as the padding
/// marker) and 65 535 entries are a matrix; one more of any is `TooLarge`, from `new`,
/// `from_triplets` and the transposition alike, never a wrapped index.
#[test]
fn u16_holds_65534_rows_and_columns_and_65535_entries() {
    let max = 65_534usize;
    // Row `max - 1` holds all 65 535 entries, its columns cycling through every column.
    let mut row_ptr = vec![0u16; max + 1];
    row_ptr[max] = u16::MAX;
    let col_idx: Vec<u16> = (0..65_535usize).map(|k| (k % max) as u16).collect();
    let vals: Vec<f64> = (0..65_535).map(|k| (k % 7) as f64 - 3.0).collect();
    let a = Csr::<f64, u16>::new(max, max, &row_ptr, &col_idx, &vals).unwrap();
    assert_eq!((a.nrows(), a.ncols(), a.nnz(), a.max_row_len()), (max, max, 65_535, 65_535));
    assert_eq!(a.row_order(), RowOrder::Unsorted);
    // The product on every width and method against the reference.
    let x: Vec<f64> = (0..max).map(|j| ((j * 31) % 9) as f64 * 0.5 - 2.0).collect();
    let want: f64 = col_idx.iter().zip(&vals).map(|(&c, &v)| v * x[c as usize]).sum();
    for isa in Isa::available() {
        for method in spblas::level2::CsrMethod::ALL {
            let mut y = vec![f64::NAN; max];
            spblas::level2::spmv_csr(Exec::from(isa), &a, method, 1.0, &x, 0.0, &mut y).unwrap();
            assert!(y[..max - 1].iter().all(|&v| v == 0.0), "{method} on {isa}");
            assert!((y[max - 1] - want).abs() <= 1e-9 * want.abs().max(1.0), "{method} on {isa}");
        }
    }
    // The transpose: 65 534 rows of up to two entries, back again.
    let (np, nnz) = a.transpose_len();
    let (mut tp, mut tc, mut tv) = (vec![0u16; np], vec![0u16; nnz], vec![0.0; nnz]);
    let t = a.transpose_into(&mut tp, &mut tc, &mut tv).unwrap();
    assert_eq!((t.nrows(), t.ncols(), t.nnz()), (max, max, 65_535));
    assert_eq!(t.row(0).unwrap().0, &[max as u16 - 1, max as u16 - 1]);
    // COO of it, and back.
    let (mut r, mut c, mut v) = (vec![0u16; nnz], vec![0u16; nnz], vec![0.0; nnz]);
    let coo = Coo::from_csr(&a, &mut r, &mut c, &mut v).unwrap();
    let (mut rp, mut c2, mut v2) = (vec![0u16; max + 1], vec![0u16; nnz], vec![0.0; nnz]);
    let back = coo.to_csr(&mut rp, &mut c2, &mut v2).unwrap();
    assert_eq!((back.row_ptr(), back.col_idx()), (a.row_ptr(), a.col_idx()));

    // One more row, column or entry does not fit.
    let too_large = |r: Result<Csr<'_, f64, u16>, FormatError>, what: &str| {
        assert!(matches!(r, Err(FormatError::TooLarge { what: w, .. }) if w == what), "{what}: {r:?}");
    };
    too_large(Csr::new(0, max + 1, &[0], &[], &[]), "ncols");
    let rows = vec![0u16; max + 2];
    too_large(Csr::new(max + 1, 1, &rows, &[], &[]), "nrows");
    let (c, v) = (vec![0u16; 65_536], vec![0.0; 65_536]);
    too_large(Csr::new(1, 1, &[0, 0], &c, &v), "nnz");
    let t: Vec<(usize, usize, f64)> = (0..65_536).map(|k| (k % 3, k % 5, 1.0)).collect();
    let r = CsrOwned::<f64, u16>::from_triplets(3, 5, &t);
    assert!(matches!(r, Err(FormatError::TooLarge { what: "nnz", value: 65_536, max: 65_535 })), "{r:?}");
}

#[test]
fn row_order_is_recorded() {
    let sorted_dup = Csr::<f64, u32>::new(1, 3, &[0, 3], &[0, 1, 1], &[1.0; 3]).unwrap();
    assert_eq!(sorted_dup.row_order(), RowOrder::Sorted);
    let unsorted = Csr::<f64, u32>::new(1, 3, &[0, 2], &[2, 1], &[1.0; 2]).unwrap();
    assert_eq!(unsorted.row_order(), RowOrder::Unsorted);
    let canonical = Csr::<f64, u32>::new(2, 3, &[0, 1, 2], &[2, 1], &[1.0; 2]).unwrap();
    assert_eq!(canonical.row_order(), RowOrder::Canonical);
}

#[test]
fn column_panels_reject_bad_widths() {
    let a = CsrOwned::<f64, u32>::from_triplets(2, 600, &[(0, 0, 1.0), (1, 599, 2.0)]).unwrap();
    let a = a.view();
    for w in [0, 1, 2] {
        // 600 and 300 panels are more than `MAX_PANELS` (256).
        let e = CsrOwned::column_panels(&a, w).unwrap_err();
        assert_eq!(e, FormatError::Parameter { name: "columns", value: w });
    }
    assert_eq!(spblas::formats::MAX_PANELS, 256);
    let p = CsrOwned::column_panels(&a, 3).unwrap();
    assert_eq!((p.len(), p[0].nnz(), p[199].nnz(), p[100].nnz()), (200, 1, 1, 0));
    // No columns: one empty panel of the matrix's shape.
    let e = CsrOwned::<f64, u32>::from_triplets(3, 0, &[]).unwrap();
    let p = CsrOwned::column_panels(&e.view(), 5).unwrap();
    assert_eq!((p.len(), p[0].nrows(), p[0].ncols(), p[0].nnz()), (1, 3, 0, 0));
}

#[test]
fn empty_matrices_work() {
    let a = Csr::<f64, u32>::new(0, 0, &[0], &[], &[]).unwrap();
    let mut y: [f64; 0] = [];
    a.spmv(Exec::new(), 1.0, &[], 0.0, &mut y).unwrap();
    let a = Csr::<f64, u32>::new(3, 0, &[0, 0, 0, 0], &[], &[]).unwrap();
    let mut y = [f64::NAN; 3];
    a.spmv(Exec::new(), 1.0, &[], 0.0, &mut y).unwrap();
    assert_eq!(y, [0.0; 3]);
}

/// A `nrows` whose arrays cannot be allocated comes back as an error naming the array,
/// not an abort: the row counts (`nrows + 1` words) of `from_triplets`.
// Sizes past 2^32: a 64-bit `usize`.
#[cfg(target_pointer_width = "64")]
#[test]
fn triplets_whose_rows_cannot_be_allocated_are_an_error() {
    let huge = 1usize << 60;
    let r = CsrOwned::<f64, u64>::from_triplets(huge, 4, &[(huge - 1, 3, 1.0)]);
    assert!(
        matches!(r, Err(FormatError::TooLarge { what: "nrows + 1", value, .. }) if value == huge + 1),
        "{r:?}"
    );
    // The same entry in a matrix that fits.
    let a = CsrOwned::<f64, u64>::from_triplets(5, 4, &[(4, 3, 1.0)]).unwrap();
    assert_eq!(a.view().row_ptr(), &[0, 0, 0, 0, 0, 1]);
}

/// The canonical CSR of triplets by its definition, independent of the crate: entry
/// positions stably sorted by `(row, col)`, each cell's values added left to right in
/// input order (the first value as it is, so `-0.0` alone stays `-0.0`). Values as bits.
fn reference_canonical<T: Scalar>(
    nrows: usize,
    t: &[(usize, usize, T)],
) -> (Vec<usize>, Vec<usize>, Vec<u64>) {
    let mut order: Vec<usize> = (0..t.len()).collect();
    order.sort_by_key(|&k| (t[k].0, t[k].1));
    let (mut row_ptr, mut cols, mut vals) = (vec![0usize; nrows + 1], Vec::new(), Vec::<T>::new());
    let mut last = None;
    for k in order {
        let (r, c, v) = t[k];
        if last == Some((r, c)) {
            *vals.last_mut().unwrap() += v;
        } else {
            cols.push(c);
            vals.push(v);
            row_ptr[r + 1] += 1;
            last = Some((r, c));
        }
    }
    for i in 0..nrows {
        row_ptr[i + 1] += row_ptr[i];
    }
    (row_ptr, cols, vals.iter().map(|v| v.to_f64().to_bits()).collect())
}

/// A view's arrays in the reference's terms.
fn parts<T: Scalar, I: Index>(a: &Csr<'_, T, I>) -> (Vec<usize>, Vec<usize>, Vec<u64>) {
    (
        a.row_ptr().iter().map(|p| p.to_usize()).collect(),
        a.col_idx().iter().map(|c| c.to_usize()).collect(),
        a.vals().iter().map(|v| v.to_f64().to_bits()).collect(),
    )
}

/// Triplets in any order with many duplicates: `(nrows, ncols, triplets)`. Shapes with
/// no rows or no columns (then no triplets), all triplets in one cell, one long row, and
/// values whose sums depend on the order of addition (`1e16 + 1 - 1e16`, signed zeros).
fn triplets() -> impl Strategy<Value = (usize, usize, Vec<(usize, usize, f64)>)> {
    let value = prop_oneof![
        proptest::sample::select(vec![0.0, -0.0, 1.0, -1.0, 0.1, 1e16, -1e16, 3.5e-3]),
        -100.0f64..100.0,
    ];
    let raw = proptest::collection::vec((0usize..64, 0usize..64, value), 0..300);
    (0usize..12, 0usize..12, 0u8..4, raw).prop_map(|(m, n, mode, raw)| {
        if m == 0 || n == 0 {
            return (m, n, Vec::new());
        }
        let t = raw
            .into_iter()
            .map(|(r, c, v)| match mode {
                // Every triplet in one cell.
                0 => (m - 1, n / 2, v),
                // One long row, columns in any order.
                1 => (m / 2, c % n, v),
                // Few cells: many duplicates.
                2 => (r % 2 % m, c % 2 % n, v),
                _ => (r % m, c % n, v),
            })
            .collect();
        (m, n, t)
    })
}

/// Every canonical conversion of `t` (triplets into buffers, COO into buffers, the
/// owned and fixed-capacity types) against the reference, bit for bit.
fn check_canonical<I: Index>(m: usize, n: usize, t: &[(usize, usize, f64)]) -> Result<(), TestCaseError> {
    let want = reference_canonical(m, t);
    let nnz = t.len();
    // Longer buffers than needed, marked: only `row_ptr[..m + 1]` and `..nnz` are touched.
    let mark = I::from_usize(7).unwrap();
    let (mut rp, mut ci, mut v) = (vec![mark; m + 3], vec![mark; nnz + 2], vec![f64::NAN; nnz + 2]);
    let a = Csr::from_triplets(m, n, t, &mut rp, &mut ci, &mut v).unwrap();
    prop_assert_eq!(a.row_order(), RowOrder::Canonical);
    prop_assert_eq!(a.shape(), (m, n));
    prop_assert_eq!(&parts(&a), &want);
    let again = Csr::new(m, n, a.row_ptr(), a.col_idx(), a.vals()).unwrap();
    prop_assert_eq!(again.row_order(), RowOrder::Canonical);
    prop_assert_eq!(&rp[m + 1..], &[mark; 2][..]);
    prop_assert_eq!(&ci[nnz..], &[mark; 2][..]);
    prop_assert!(v[nnz..].iter().all(|x| x.is_nan()));

    let r: Vec<I> = t.iter().map(|e| I::from_usize(e.0).unwrap()).collect();
    let c: Vec<I> = t.iter().map(|e| I::from_usize(e.1).unwrap()).collect();
    let x: Vec<f64> = t.iter().map(|e| e.2).collect();
    let coo = Coo::new(m, n, &r, &c, &x).unwrap();
    let (mut rp, mut ci, mut v) = (vec![I::ZERO; m + 1], vec![I::ZERO; nnz], vec![0.0; nnz]);
    let b = coo.to_canonical_csr(&mut rp, &mut ci, &mut v).unwrap();
    prop_assert_eq!(b.row_order(), RowOrder::Canonical);
    prop_assert_eq!(&parts(&b), &want);

    let owned = CsrOwned::<f64, I>::from_triplets(m, n, t).unwrap();
    prop_assert_eq!(owned.view().row_order(), RowOrder::Canonical);
    prop_assert_eq!(&parts(&owned.view()), &want);

    #[cfg(feature = "heapless")]
    {
        let h = spblas::CsrHeapless::<f64, I, 13, 300>::from_triplets(m, n, t).unwrap();
        prop_assert_eq!(h.view().row_order(), RowOrder::Canonical);
        prop_assert_eq!(&parts(&h.view()), &want);
        let h = spblas::CsrHeapless::<f64, I, 13, 300>::from_coo(&coo).unwrap();
        prop_assert_eq!(&parts(&h.view()), &want);
    }
    Ok(())
}

proptest! {
    #[test]
    fn canonical_conversions_equal_the_reference_bit_for_bit_u32((m, n, t) in triplets()) {
        check_canonical::<u32>(m, n, &t)?;
    }

    #[test]
    fn canonical_conversions_equal_the_reference_bit_for_bit_u64((m, n, t) in triplets()) {
        check_canonical::<u64>(m, n, &t)?;
    }

    /// A buffer one short, or a triplet outside the shape: the same error from every
    /// entry point, and the buffers untouched.
    #[test]
    fn canonical_conversion_errors_write_nothing((m, n, mut t) in triplets(), short in 0usize..4, bad in any::<prop::sample::Index>()) {
        let nnz = t.len();
        let lens = [m + 1, nnz, nnz];
        if short < 3 && lens[short] > 0 {
            let mut l = lens;
            l[short] -= 1;
            let (mut rp, mut ci, mut v) = (vec![9u32; l[0]], vec![9u32; l[1]], vec![f64::NAN; l[2]]);
            let e = Csr::from_triplets(m, n, &t, &mut rp, &mut ci, &mut v).unwrap_err();
            let name = ["row_ptr", "col_idx", "vals"][short];
            prop_assert_eq!(e, FormatError::BufferTooSmall { array: name, needed: lens[short], got: l[short] });
            prop_assert!(rp.iter().chain(&ci).all(|&x| x == 9) && v.iter().all(|x| x.is_nan()));
            if nnz > 0 {
                let r: Vec<u32> = t.iter().map(|e| e.0 as u32).collect();
                let c: Vec<u32> = t.iter().map(|e| e.1 as u32).collect();
                let x: Vec<f64> = t.iter().map(|e| e.2).collect();
                let coo = Coo::new(m, n, &r, &c, &x).unwrap();
                let e2 = coo.to_canonical_csr(&mut rp, &mut ci, &mut v).unwrap_err();
                prop_assert_eq!(e2, e);
                prop_assert!(rp.iter().chain(&ci).all(|&x| x == 9) && v.iter().all(|x| x.is_nan()));
            }
        }
        // One triplet moved outside the shape (a row or a column past the end).
        if !t.is_empty() {
            let k = bad.index(t.len());
            if short % 2 == 0 { t[k].0 = m + short; } else { t[k].1 = n + short; }
            let want = CsrOwned::<f64, u32>::from_triplets(m, n, &t).unwrap_err();
            let (mut rp, mut ci, mut v) = (vec![9u32; m + 1], vec![9u32; nnz], vec![f64::NAN; nnz]);
            prop_assert_eq!(Csr::from_triplets(m, n, &t, &mut rp, &mut ci, &mut v).unwrap_err(), want);
            prop_assert!(rp.iter().chain(&ci).all(|&x| x == 9) && v.iter().all(|x| x.is_nan()));
            let first = t.iter().position(|e| e.0 >= m || e.1 >= n).unwrap();
            let expect = if t[first].0 >= m {
                FormatError::RowOutOfBounds { position: first, row: t[first].0, nrows: m }
            } else {
                FormatError::ColumnOutOfBounds { row: t[first].0, position: first, col: t[first].1, ncols: n }
            };
            prop_assert_eq!(want, expect);
            #[cfg(feature = "heapless")]
            prop_assert_eq!(spblas::CsrHeapless::<f64, u32, 13, 300>::from_triplets(m, n, &t).unwrap_err(), want);
        }
    }
}

/// Duplicates add up in input order: `(1e16 + 1) - 1e16` is 0 (1 is lost), while any
/// other order gives 1. A lone `-0.0` stays `-0.0`.
#[test]
fn canonical_duplicates_add_up_in_input_order() {
    let t = [(0, 1, -0.0), (1, 0, 1e16), (1, 0, 1.0), (1, 0, -1e16), (0, 0, 2.0)];
    let (mut rp, mut ci, mut v) = ([0u32; 3], [0u32; 5], [0.0f64; 5]);
    let a = Csr::from_triplets(2, 2, &t, &mut rp, &mut ci, &mut v).unwrap();
    assert_eq!((a.row_ptr(), a.col_idx()), (&[0, 2, 3][..], &[0, 1, 0][..]));
    assert_eq!(a.vals().iter().map(|x| x.to_bits()).collect::<Vec<_>>(), [2.0, -0.0, 0.0].map(f64::to_bits));
    let mut r = t;
    r.swap(2, 3);
    let (mut rp, mut ci, mut v) = ([0u32; 3], [0u32; 5], [0.0f64; 5]);
    assert_eq!(Csr::from_triplets(2, 2, &r, &mut rp, &mut ci, &mut v).unwrap().vals()[2], 1.0);
}

/// A hostile input: one row of 200 000 entries in descending column order with every
/// cell twice. The per-row sort is `O(n log n)` on any input, so this runs at once.
#[test]
fn one_long_reversed_row_converts_quickly() {
    let n = 100_000usize;
    let t: Vec<(usize, usize, f64)> = (0..2 * n).map(|k| (0, n - 1 - k / 2, k as f64)).collect();
    let (mut rp, mut ci, mut v) = (vec![0u32; 2], vec![0u32; 2 * n], vec![0.0f64; 2 * n]);
    let start = std::time::Instant::now();
    let a = Csr::from_triplets(1, n, &t, &mut rp, &mut ci, &mut v).unwrap();
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(a.nnz(), n);
    assert!(a.col_idx().iter().enumerate().all(|(j, &c)| c as usize == j));
    assert_eq!(a.vals()[0], (2 * n - 2) as f64 + (2 * n - 1) as f64);
}

/// Dimensions that do not fit the index type: the same error from the borrowed, owned
/// and fixed-capacity builders.
#[test]
fn canonical_conversion_rejects_dimensions_beyond_the_index_type() {
    let big = u32::MAX as usize;
    let (mut rp, mut ci, mut v) = ([0u32; 1], [0u32; 0], [0.0f64; 0]);
    let e = Csr::<f64, u32>::from_triplets(0, big, &[], &mut rp, &mut ci, &mut v).unwrap_err();
    assert!(matches!(e, FormatError::TooLarge { what: "ncols", .. }), "{e:?}");
    assert_eq!(CsrOwned::<f64, u32>::from_triplets(0, big, &[]).unwrap_err(), e);
    let e = Csr::<f64, u32>::from_triplets(big, 0, &[], &mut rp, &mut ci, &mut v).unwrap_err();
    assert!(matches!(e, FormatError::TooLarge { what: "nrows", .. }), "{e:?}");
    #[cfg(feature = "heapless")]
    assert_eq!(spblas::CsrHeapless::<f64, u32, 4, 4>::from_triplets(big, 0, &[]).unwrap_err(), e);
    // Empty shapes convert to empty matrices.
    let a = Csr::<f64, u32>::from_triplets(0, 0, &[], &mut rp, &mut ci, &mut v).unwrap();
    assert_eq!((a.nrows(), a.ncols(), a.nnz(), a.row_ptr()), (0, 0, 0, &[0u32][..]));
}

/// The fixed-capacity CSR: capacity errors name the array and its room, before anything
/// is built; within room it equals the owned one, and copies views as they are.
#[cfg(feature = "heapless")]
#[test]
fn heapless_csr_reports_exceeded_capacity() {
    use spblas::CsrHeapless;
    type Small = CsrHeapless<f64, u32, 4, 5>;
    let t = [(2, 1, 1.0), (0, 0, 2.0), (2, 1, 3.0), (1, 2, -1.0)];
    let a = Small::from_triplets(3, 3, &t).unwrap();
    assert_eq!((a.nrows(), a.ncols(), a.nnz()), (3, 3, 3));
    let o = CsrOwned::<f64, u32>::from_triplets(3, 3, &t).unwrap();
    assert_eq!(parts(&a.view()), parts(&o.view()));
    // Four rows need five row pointers.
    assert_eq!(
        Small::from_triplets(4, 3, &t).unwrap_err(),
        FormatError::BufferTooSmall { array: "row_ptr", needed: 5, got: 4 }
    );
    // Six triplets need six slots, though they name one cell.
    assert_eq!(
        Small::from_triplets(1, 1, &[(0, 0, 1.0); 6]).unwrap_err(),
        FormatError::BufferTooSmall { array: "col_idx", needed: 6, got: 5 }
    );
    assert_eq!(Small::from_triplets(1, 1, &[(0, 0, 1.0); 5]).unwrap().nnz(), 1);
    // No room at all for row pointers: even a 0 x 0 matrix does not fit.
    assert!(CsrHeapless::<f64, u32, 0, 0>::from_triplets(0, 0, &[]).is_err());
    assert_eq!(CsrHeapless::<f64, u32, 1, 0>::from_triplets(0, 7, &[]).unwrap().ncols(), 7);
    // COO and CSR sources.
    let (r, c, x) = ([1u32, 1, 0, 0, 2, 2], [0u32; 6], [1.0; 6]);
    let coo = Coo::new(3, 1, &r, &c, &x).unwrap();
    assert_eq!(
        Small::from_coo(&coo).unwrap_err(),
        FormatError::BufferTooSmall { array: "col_idx", needed: 6, got: 5 }
    );
    assert_eq!(Small::from_coo(&Coo::new(3, 1, &r[..5], &c[..5], &x[..5]).unwrap()).unwrap().nnz(), 3);
    let unsorted = Csr::<f64, u32>::new(2, 3, &[0, 2, 3], &[2, 0, 1], &[1.0, 2.0, 3.0]).unwrap();
    let mut b = Small::from_csr(&unsorted).unwrap();
    assert_eq!(b.view().row_order(), RowOrder::Unsorted);
    assert_eq!(parts(&b.view()), parts(&unsorted));
    b.vals_mut()[0] = 5.0;
    assert_eq!(b.view().vals(), &[5.0, 2.0, 3.0]);
    assert_eq!(
        CsrHeapless::<f64, u32, 4, 2>::from_csr(&unsorted).unwrap_err(),
        FormatError::BufferTooSmall { array: "col_idx", needed: 3, got: 2 }
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::common::cases(64)))]

    #[test]
    fn csr_and_coo_spmv_equal_dense_reference_f64_i32(raw in csr::<f64, i32>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_csr_spmv(&raw, a, b, seed)?;
    }

    #[test]
    fn csr_and_coo_spmv_equal_dense_reference_f32_i32(raw in csr::<f32, i32>(30, 8, true), (a, b) in scalars(), seed: u64) {
        check_csr_spmv(&raw, a as f32, b as f32, seed)?;
    }

    #[test]
    fn csr_and_coo_spmv_equal_dense_reference_f64_i64(raw in csr::<f64, i64>(30, 8, true), (a, b) in scalars(), seed: u64) {
        check_csr_spmv(&raw, a, b, seed)?;
    }

    #[test]
    fn csr_and_coo_spmv_equal_dense_reference_f32_i64(raw in csr::<f32, i64>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_csr_spmv(&raw, a as f32, b as f32, seed)?;
    }

    #[test]
    fn csr_coo_csr_roundtrip_preserves_entries_signed(raw in csr::<f64, i32>(40, 12, false), wide in csr::<f64, i64>(30, 8, false)) {
        roundtrip_check(&raw)?;
        roundtrip_check(&wide)?;
    }

    #[test]
    fn column_panels_split_every_row_by_columns_i32(raw in csr::<f64, i32>(30, 12, false), w in 1usize..8) {
        panels_check(&raw, w)?;
    }

    #[test]
    fn coo_to_csr_is_a_stable_sort_of_shuffled_entries_signed(raw in csr::<f64, i32>(30, 10, true), wide in csr::<f64, i64>(20, 6, true), seed: u64) {
        coo_shuffle_check(&raw, seed)?;
        coo_shuffle_check(&wide, seed)?;
    }

    #[test]
    fn validation_matches_a_row_by_row_reference_i32(
        raw in csr::<f64, i32>(40, 8, false),
        picks in proptest::collection::vec(any::<usize>(), 0..3),
        over in 0usize..3,
    ) {
        validation_check(&raw, &picks, over)?;
    }

    #[test]
    fn coo_validation_matches_an_entry_by_entry_reference_i64(
        raw in csr::<f64, i64>(40, 8, true),
        seed: u64,
        picks in proptest::collection::vec((any::<usize>(), any::<bool>()), 0..3),
        over in 0usize..3,
    ) {
        coo_validation_check(&raw, seed, &picks, over)?;
    }

    #[test]
    fn corrupted_csr_is_rejected_with_the_matching_error_signed(raw in csr::<f64, i32>(20, 6, false), wide in csr::<f64, i64>(20, 6, false), which in 0usize..6, pick: usize) {
        corrupted_check(&raw, which, pick)?;
        corrupted_check(&wide, which, pick)?;
    }
}

/// `i32` at its limits: `i32::MAX` stays free as the padding marker, so
/// `i32::MAX - 1` columns are a matrix and `i32::MAX` (as many as `u32` would take
/// halved) are `TooLarge`.
#[test]
fn dimensions_that_do_not_fit_i32_are_rejected() {
    let row_ptr = [0i32];
    let r = Csr::<f64, i32>::new(0, i32::MAX as usize, &row_ptr, &[], &[]);
    assert!(matches!(r, Err(FormatError::TooLarge { what: "ncols", .. })));
    let r = Csr::<f64, i32>::new(0, i32::MAX as usize - 1, &row_ptr, &[], &[]);
    assert!(r.is_ok());
    let r = Csr::<f64, i32>::new(0, u32::MAX as usize - 1, &row_ptr, &[], &[]);
    assert!(matches!(r, Err(FormatError::TooLarge { what: "ncols", .. })));
}
