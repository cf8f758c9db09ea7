//! JDS and DIA: validation, conversions to and from CSR, and reference SpMV against a dense
//! reference, on every available `Isa`.

mod common;

use common::{RawCsr, check_spmv_against, csr, scalars};
use proptest::prelude::*;
use spblas::Exec;
use spblas::{
    Csr, CsrOwned, Dia, DiaLayout, DiaOwned, DimError, FormatError, Index, Isa, Jds, JdsLayout, JdsOwned,
    RowOrder, Scalar, SpMv,
};

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

/// JDS arrays of a CSR matrix, through the borrowed conversion.
#[derive(Clone, Debug)]
struct RawJds<T, I> {
    nrows: usize,
    ncols: usize,
    perm: Vec<I>,
    jd_ptr: Vec<I>,
    col_idx: Vec<I>,
    vals: Vec<T>,
}

fn to_jds<T: Scalar, I: Index>(a: &Csr<'_, T, I>) -> RawJds<T, I> {
    let layout = JdsLayout::new(a);
    let mut perm = vec![I::ZERO; layout.perm_len()];
    let mut jd_ptr = vec![I::ZERO; layout.jd_ptr_len()];
    let mut col_idx = vec![I::ZERO; layout.nnz()];
    let mut vals = vec![T::ZERO; layout.nnz()];
    Jds::from_csr(a, &mut perm, &mut jd_ptr, &mut col_idx, &mut vals).unwrap();
    RawJds { nrows: a.nrows(), ncols: a.ncols(), perm, jd_ptr, col_idx, vals }
}

impl<T: Scalar, I: Index> RawJds<T, I> {
    fn validate(&self) -> Result<Jds<'_, T, I>, FormatError> {
        Jds::new(self.nrows, self.ncols, &self.perm, &self.jd_ptr, &self.col_idx, &self.vals)
    }
}

/// DIA arrays of a CSR matrix, through the three borrowed steps.
fn to_dia<T: Scalar, I: Index>(a: &Csr<'_, T, I>) -> (Vec<isize>, Vec<T>) {
    let mut offsets = vec![0isize; Dia::offsets_scratch_len(a)];
    let ndiag = Dia::offsets_from_csr(a, &mut offsets).unwrap();
    offsets.truncate(ndiag);
    let layout = DiaLayout::new(a, ndiag).unwrap();
    let mut data = vec![T::ZERO; layout.data_len()];
    Dia::from_csr(a, &offsets, &mut data).unwrap();
    (offsets, data)
}

/// Dense row-major copy of `entries`, adding duplicates in the order given.
fn dense<T: Scalar>(nrows: usize, ncols: usize, entries: impl Iterator<Item = (usize, usize, T)>) -> Vec<T> {
    let mut d = vec![T::ZERO; nrows * ncols];
    for (i, j, v) in entries {
        d[i * ncols + j] += v;
    }
    d
}

// ---------------------------------------------------------------------------------------
// JDS
// ---------------------------------------------------------------------------------------

fn check_jds_roundtrip<T: Scalar, I: Index>(raw: &RawCsr<T, I>) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    let j = to_jds(&a);
    // The converted arrays pass full validation.
    let v = j.validate().unwrap();
    prop_assert_eq!(v.ndiag(), a.max_row_len());
    prop_assert_eq!(v.max_row_len(), a.max_row_len());
    prop_assert_eq!(v.nnz(), a.nnz());
    // Stable order by non-increasing length.
    let len = |i: usize| a.row_range(i).unwrap().len();
    let mut want: Vec<usize> = (0..a.nrows()).collect();
    want.sort_by_key(|&i| std::cmp::Reverse(len(i)));
    let perm: Vec<usize> = j.perm.iter().map(|p| p.to_usize()).collect();
    prop_assert_eq!(&perm, &want);
    for (p, &row) in perm.iter().enumerate() {
        prop_assert_eq!(v.row_len(p), len(row));
    }
    // Back to CSR: the very same arrays.
    let (mut rp, mut c, mut x) =
        (vec![I::ZERO; a.nrows() + 1], vec![I::ZERO; a.nnz()], vec![T::ZERO; a.nnz()]);
    let back = v.to_csr(&mut rp, &mut c, &mut x).unwrap();
    prop_assert_eq!(back.row_ptr(), a.row_ptr());
    prop_assert_eq!(back.col_idx(), a.col_idx());
    prop_assert_eq!(back.vals(), a.vals());
    prop_assert_eq!(back.row_order(), a.row_order());
    // iter() yields the same entries (diagonal-major order).
    let mut got: Vec<(usize, usize, u64)> = v.iter().map(|(i, j, x)| (i, j, x.to_f64().to_bits())).collect();
    let mut exp: Vec<(usize, usize, u64)> = a.iter().map(|(i, j, x)| (i, j, x.to_f64().to_bits())).collect();
    got.sort();
    exp.sort();
    prop_assert_eq!(got, exp);
    // The owned variant holds the same arrays.
    let o = JdsOwned::from_csr(&a).unwrap();
    let ov = o.view();
    prop_assert_eq!(ov.perm(), &j.perm[..]);
    prop_assert_eq!(ov.jd_ptr(), &j.jd_ptr[..]);
    prop_assert_eq!(ov.col_idx(), &j.col_idx[..]);
    prop_assert_eq!(ov.vals(), &j.vals[..]);
    let o2 = JdsOwned::from_parts(
        j.nrows,
        j.ncols,
        j.perm.clone(),
        j.jd_ptr.clone(),
        j.col_idx.clone(),
        j.vals.clone(),
    )
    .unwrap();
    prop_assert_eq!(o2, o);
    Ok(())
}

fn check_jds_spmv<T: Scalar, I: Index>(
    raw: &RawCsr<T, I>,
    alpha: T,
    beta: T,
    seed: u64,
) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    let j = to_jds(&a);
    check_spmv_against(&j.validate().unwrap(), &a, alpha, beta, seed)
}

/// `i` as an index of type `I` (the tests keep every index in range).
fn ix<I: Index>(i: usize) -> I {
    I::from_usize(i).unwrap()
}

fn corrupted_jds<I: Index>(raw: &RawCsr<f64, I>, which: usize, pick: usize) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    let mut j = to_jds(&a);
    let (m, nnz, ndiag) = (j.nrows, j.col_idx.len(), j.jd_ptr.len() - 1);
    let expected = match which {
        0 if m > 1 => {
            // Repeat an earlier row later: the later position is reported.
            let b = 1 + pick % (m - 1);
            let a0 = pick % b;
            j.perm[b] = j.perm[a0];
            "NotAPermutation"
        }
        1 if m > 0 => {
            j.perm[pick % m] = ix(m + pick % 3);
            "RowOutOfBounds"
        }
        2 => {
            j.jd_ptr[0] = ix(1 + pick % 4);
            "PtrStart"
        }
        3 if ndiag >= 2 && j.jd_ptr[1] > I::ZERO => {
            j.jd_ptr[1] = ix(j.jd_ptr[2].to_usize() + 1);
            "PtrDecreasing"
        }
        4 if ndiag >= 1 => {
            j.jd_ptr[ndiag] = ix(j.jd_ptr[ndiag].to_usize() + 1);
            "PtrEnd"
        }
        5 => {
            // Append a diagonal one longer than allowed.
            let max =
                if ndiag == 0 { m } else { j.jd_ptr[ndiag].to_usize() - j.jd_ptr[ndiag - 1].to_usize() };
            for _ in 0..=max {
                j.col_idx.push(I::ZERO);
                j.vals.push(1.0);
            }
            j.jd_ptr.push(ix(nnz + max + 1));
            let err = j.validate().unwrap_err();
            prop_assert_eq!(err, FormatError::JaggedDiagonal { diagonal: ndiag, len: max + 1, max });
            "JaggedDiagonal"
        }
        6 if nnz > 0 => {
            j.col_idx[pick % nnz] = ix(a.ncols() + pick % 3);
            "ColumnOutOfBounds"
        }
        7 => {
            j.vals.push(1.0);
            "Length"
        }
        8 => {
            j.perm.push(I::ZERO);
            "Length"
        }
        9 => {
            j.jd_ptr.clear();
            "Length"
        }
        _ => return Ok(()),
    };
    let err = j.validate().unwrap_err();
    let got = format!("{err:?}");
    prop_assert!(got.starts_with(expected), "expected {}, got {}", expected, got);
    prop_assert!(!err.to_string().is_empty());
    // The caller-scratch variant reports the same error, whatever the window size.
    for words in [1usize, 2] {
        let mut scratch = vec![u64::MAX; words];
        let e2 =
            Jds::new_with_scratch(j.nrows, j.ncols, &j.perm, &j.jd_ptr, &j.col_idx, &j.vals, &mut scratch);
        prop_assert_eq!(e2.unwrap_err(), err);
    }
    // And the owned variant.
    let e3 = JdsOwned::from_parts(
        j.nrows,
        j.ncols,
        j.perm.clone(),
        j.jd_ptr.clone(),
        j.col_idx.clone(),
        j.vals.clone(),
    );
    prop_assert_eq!(e3.unwrap_err(), err);
    Ok(())
}

proptest! {
    #[test]
    fn csr_jds_csr_roundtrip_is_identity_f64_u32(raw in csr::<f64, u32>(40, 12, false)) {
        check_jds_roundtrip(&raw)?;
    }

    #[test]
    fn csr_jds_csr_roundtrip_is_identity_f32_u64(raw in csr::<f32, u64>(40, 12, false)) {
        check_jds_roundtrip(&raw)?;
    }

    #[test]
    fn csr_jds_csr_roundtrip_is_identity_f64_usize(raw in csr::<f64, usize>(30, 8, true)) {
        check_jds_roundtrip(&raw)?;
    }

    #[test]
    fn jds_spmv_equals_dense_reference_f64_u32(raw in csr::<f64, u32>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_jds_spmv(&raw, a, b, seed)?;
    }

    #[test]
    fn jds_spmv_equals_dense_reference_f32_u64(raw in csr::<f32, u64>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_jds_spmv(&raw, a as f32, b as f32, seed)?;
    }

    #[test]
    fn jds_spmv_equals_dense_reference_f64_usize(raw in csr::<f64, usize>(30, 8, true), (a, b) in scalars(), seed: u64) {
        check_jds_spmv(&raw, a, b, seed)?;
    }

    #[test]
    fn corrupted_jds_is_rejected_with_the_matching_error(raw in csr::<f64, u32>(20, 6, false), which in 0usize..10, pick: usize) {
        corrupted_jds(&raw, which, pick)?;
    }

    #[test]
    fn corrupted_jds_is_rejected_with_the_matching_error_u16(raw in csr::<f64, u16>(20, 6, false), which in 0usize..10, pick: usize) {
        corrupted_jds(&raw, which, pick)?;
    }

    #[test]
    fn csr_jds_csr_roundtrip_and_spmv_u16(raw in csr::<f64, u16>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_jds_roundtrip(&raw)?;
        check_jds_spmv(&raw, a, b, seed)?;
    }

    #[test]
    fn csr_jds_csr_roundtrip_and_spmv_f32_u16_canonical(raw in csr::<f32, u16>(30, 8, true), (a, b) in scalars(), seed: u64) {
        check_jds_roundtrip(&raw)?;
        check_jds_spmv(&raw, a as f32, b as f32, seed)?;
    }

}

/// The course notes' example (Fig. 10.1, sorted in Fig. 10.15, JDS in Fig. 10.16).
#[test]
fn jds_of_the_course_notes_example() {
    // Row 0: 3 0 1 0 / Row 1: 0 0 0 0 / Row 2: 0 2 4 1 / Row 3: 1 0 0 1
    let a = Csr::<f32, u32>::new(
        4,
        4,
        &[0, 2, 2, 5, 7],
        &[0, 2, 1, 2, 3, 0, 3],
        &[3.0, 1.0, 2.0, 4.0, 1.0, 1.0, 1.0],
    )
    .unwrap();
    assert_eq!(JdsLayout::new(&a).jd_ptr_len(), 4);
    let (mut perm, mut jd_ptr, mut col, mut val) = ([9u32; 4], [9u32; 5], [9u32; 8], [9.0f32; 8]);
    let j = Jds::from_csr(&a, &mut perm, &mut jd_ptr, &mut col, &mut val).unwrap();
    // Rows 0 and 3 both have two entries: row 0 stays first (stable).
    assert_eq!(j.perm(), &[2, 0, 3, 1]);
    assert_eq!(j.jd_ptr(), &[0, 3, 6, 7]);
    assert_eq!(j.col_idx(), &[1, 0, 0, 2, 2, 3, 3]);
    assert_eq!(j.vals(), &[2.0, 3.0, 1.0, 4.0, 1.0, 1.0, 1.0]);
    assert_eq!((0..5).map(|p| j.row_len(p)).collect::<Vec<_>>(), [3, 2, 2, 0, 0]);
    let mut y = [f32::NAN; 4];
    j.spmv(Exec::new(), 1.0, &[1.0, 2.0, 3.0, 4.0], 0.0, &mut y).unwrap();
    assert_eq!(y, [6.0, 0.0, 20.0, 5.0]);
    // Only the prefixes were written.
    assert_eq!(jd_ptr[4], 9);
    assert_eq!((col[7], val[7]), (9, 9.0));
    // The same arrays built by hand validate.
    let h = Jds::<f32, u32>::new(
        4,
        4,
        &[2, 0, 3, 1],
        &[0, 3, 6, 7],
        &[1, 0, 0, 2, 2, 3, 3],
        &[2.0, 3.0, 1.0, 4.0, 1.0, 1.0, 1.0],
    );
    assert!(h.is_ok());
}

#[test]
fn jds_hand_made_corruptions_name_the_fault() {
    let c = [0u32, 1, 2];
    let v = [1.0f64; 3];
    // Diagonal 1 longer than diagonal 0.
    assert_eq!(
        Jds::<f64, u32>::new(3, 3, &[0, 1, 2], &[0, 1, 3], &c, &v).unwrap_err(),
        FormatError::JaggedDiagonal { diagonal: 1, len: 2, max: 1 }
    );
    // First diagonal longer than nrows.
    assert_eq!(
        Jds::<f64, u32>::new(2, 3, &[0, 1], &[0, 3], &c, &v).unwrap_err(),
        FormatError::JaggedDiagonal { diagonal: 0, len: 3, max: 2 }
    );
    // Two repeats: the earliest second occurrence is named.
    assert_eq!(
        Jds::<f64, u32>::new(4, 3, &[3, 1, 1, 3], &[0, 3], &c, &v).unwrap_err(),
        FormatError::NotAPermutation { position: 2, row: 1 }
    );
    assert_eq!(
        Jds::<f64, u32>::new(3, 3, &[0, 3, 1], &[0, 3], &c, &v).unwrap_err(),
        FormatError::RowOutOfBounds { position: 1, row: 3, nrows: 3 }
    );
    // Column out of bounds names the original row.
    assert_eq!(
        Jds::<f64, u32>::new(3, 2, &[2, 0, 1], &[0, 3], &[0, 1, 2], &v).unwrap_err(),
        FormatError::ColumnOutOfBounds { row: 1, position: 2, col: 2, ncols: 2 }
    );
    assert_eq!(
        Jds::<f64, u32>::new(3, 3, &[0, 1, 2], &[1, 3], &c, &v).unwrap_err(),
        FormatError::PtrStart { array: "jd_ptr", got: 1 }
    );
    assert_eq!(
        Jds::<f64, u32>::new(3, 3, &[0, 1, 2], &[0, 2], &c, &v).unwrap_err(),
        FormatError::PtrEnd { array: "jd_ptr", expected: 3, got: 2 }
    );
    assert_eq!(
        Jds::<f64, u32>::new(3, 3, &[0, 1, 2], &[0, 2, 1, 3], &c, &v).unwrap_err(),
        FormatError::PtrDecreasing { array: "jd_ptr", position: 1 }
    );
    // Trailing empty diagonals are allowed and cost nothing.
    let j = Jds::<f64, u32>::new(3, 3, &[0, 1, 2], &[0, 3, 3, 3], &c, &v).unwrap();
    assert_eq!((j.ndiag(), j.max_row_len()), (3, 1));
    let mut y = [f64::NAN; 3];
    j.spmv(Exec::new(), 1.0, &[1.0, 2.0, 3.0], 0.0, &mut y).unwrap();
    assert_eq!(y, [1.0, 2.0, 3.0]);
}

#[test]
fn jds_permutation_check_works_beyond_the_stack_window() {
    // More rows than the 32 768 ids of the no-alloc window; every row one entry, in
    // reverse order so the permutation is not the identity.
    let n = 70_000usize;
    let perm: Vec<u32> = (0..n as u32).rev().collect();
    let jd_ptr = [0u32, n as u32];
    let col: Vec<u32> = (0..n as u32).map(|i| i % 5).collect();
    let vals = vec![1.0f32; n];
    assert!(Jds::new(n, 5, &perm, &jd_ptr, &col, &vals).is_ok());
    let mut scratch = [0u64; 3];
    assert!(Jds::new_with_scratch(n, 5, &perm, &jd_ptr, &col, &vals, &mut scratch).is_ok());
    let mut bad = perm.clone();
    bad[n - 1] = bad[10];
    let want = Err(FormatError::NotAPermutation { position: n - 1, row: n - 11 });
    assert_eq!(Jds::new(n, 5, &bad, &jd_ptr, &col, &vals).map(|_| ()), want);
    assert_eq!(Jds::new_with_scratch(n, 5, &bad, &jd_ptr, &col, &vals, &mut scratch).map(|_| ()), want);
    assert_eq!(Jds::<f32, u32>::perm_scratch_len(n), n.div_ceil(64));
}

#[test]
fn jds_undersized_buffers_are_rejected_and_left_untouched() {
    let a = Csr::<f64, u32>::new(3, 3, &[0, 2, 3, 3], &[0, 2, 1], &[1.0, 2.0, 3.0]).unwrap();
    let l = JdsLayout::new(&a);
    assert_eq!((l.perm_len(), l.jd_ptr_len(), l.ndiag(), l.nnz()), (3, 3, 2, 3));
    let cases: [(usize, usize, usize, usize, &str, usize); 4] = [
        (2, 3, 3, 3, "perm", 3),
        (3, 2, 3, 3, "jd_ptr", 3),
        (3, 3, 2, 3, "col_idx", 3),
        (3, 3, 3, 2, "vals", 3),
    ];
    for (pl, jl, cl, vl, array, needed) in cases {
        let (mut p, mut j, mut c, mut v) = (vec![7u32; pl], vec![7u32; jl], vec![7u32; cl], vec![7.0; vl]);
        let err = Jds::from_csr(&a, &mut p, &mut j, &mut c, &mut v).unwrap_err();
        let got = [pl, jl, cl, vl].into_iter().find(|&x| x < needed).unwrap();
        assert_eq!(err, FormatError::BufferTooSmall { array, needed, got });
        assert!(p.iter().chain(&j).chain(&c).all(|&x| x == 7) && v.iter().all(|&x| x == 7.0));
    }
    let o = JdsOwned::from_csr(&a).unwrap();
    let j = o.view();
    for (rl, cl, vl, array, needed) in
        [(3, 3, 3, "row_ptr", 4), (4, 2, 3, "col_idx", 3), (4, 3, 2, "vals", 3)]
    {
        let (mut r, mut c, mut v) = (vec![7u32; rl], vec![7u32; cl], vec![7.0; vl]);
        let err = j.to_csr(&mut r, &mut c, &mut v).unwrap_err();
        let got = [rl, cl, vl].into_iter().find(|&x| x < needed).unwrap();
        assert_eq!(err, FormatError::BufferTooSmall { array, needed, got });
        assert!(r.iter().chain(&c).all(|&x| x == 7) && v.iter().all(|&x| x == 7.0));
    }
}

// ---------------------------------------------------------------------------------------
// DIA
// ---------------------------------------------------------------------------------------

fn check_dia_roundtrip<T: Scalar, I: Index>(raw: &RawCsr<T, I>) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    let (m, n) = a.shape();
    let (offsets, data) = to_dia(&a);
    // The offsets are exactly the distinct diagonals holding entries, in order.
    let want: std::collections::BTreeSet<isize> = a.iter().map(|(i, j, _)| j as isize - i as isize).collect();
    prop_assert_eq!(&offsets, &want.into_iter().collect::<Vec<_>>());
    prop_assert!(Dia::offsets_scratch_len(&a) <= (m + n).saturating_sub(1));
    let d = Dia::new(m, n, &offsets, &data).unwrap();
    // Back to CSR: canonical, no zero values, equal to the dense sum of the entries.
    let nnz = d.csr_nnz();
    let (mut rp, mut c, mut v) = (vec![I::ZERO; m + 1], vec![I::ZERO; nnz], vec![T::ZERO; nnz]);
    let back = d.to_csr(&mut rp, &mut c, &mut v).unwrap();
    prop_assert_eq!(back.nnz(), nnz);
    prop_assert_eq!(back.row_order(), RowOrder::Canonical);
    prop_assert!(back.vals().iter().all(|&x| x != T::ZERO));
    let got = dense(m, n, back.iter());
    let want = dense(m, n, a.iter());
    prop_assert_eq!(&got, &want);
    // The in-range slots are the dense matrix on those diagonals.
    for (i, j, x) in d.iter() {
        prop_assert_eq!(x, want[i * n + j]);
    }
    // Fill ratio and layout.
    let layout = DiaLayout::new(&a, offsets.len()).unwrap();
    prop_assert_eq!(layout.data_len(), offsets.len() * m);
    prop_assert!(layout.fill_ratio() >= 1.0 || a.nnz() > layout.data_len());
    // Owned variant agrees.
    let o = DiaOwned::from_csr(&a).unwrap();
    prop_assert_eq!(o.view().offsets(), &offsets[..]);
    prop_assert_eq!(o.view().data(), &data[..]);
    prop_assert_eq!(DiaOwned::from_parts(m, n, offsets.clone(), data.clone()).unwrap(), o);
    Ok(())
}

fn check_dia_spmv<T: Scalar, I: Index>(
    raw: &RawCsr<T, I>,
    alpha: T,
    beta: T,
    seed: u64,
) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    let (offsets, mut data) = to_dia(&a);
    // Padding slots are never read: poison them.
    let m = a.nrows();
    for (d, &off) in offsets.iter().enumerate() {
        for i in 0..m {
            let j = i as isize + off;
            if j < 0 || j >= a.ncols() as isize {
                data[d * m + i] = T::from_f64(f64::NAN);
            }
        }
    }
    let d = Dia::new(a.nrows(), a.ncols(), &offsets, &data).unwrap();
    check_spmv_against(&d, &a, alpha, beta, seed)
}

proptest! {
    #[test]
    fn csr_dia_csr_equals_canonical_form_f64_u32(raw in csr::<f64, u32>(40, 12, false)) {
        check_dia_roundtrip(&raw)?;
    }

    #[test]
    fn csr_dia_csr_equals_canonical_form_f32_u64(raw in csr::<f32, u64>(40, 12, false)) {
        check_dia_roundtrip(&raw)?;
    }

    #[test]
    fn csr_dia_csr_equals_canonical_form_f64_usize(raw in csr::<f64, usize>(30, 8, true)) {
        check_dia_roundtrip(&raw)?;
    }

    #[test]
    fn dia_spmv_equals_dense_reference_f64_u32(raw in csr::<f64, u32>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_dia_spmv(&raw, a, b, seed)?;
    }

    #[test]
    fn dia_spmv_equals_dense_reference_f32_u64(raw in csr::<f32, u64>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_dia_spmv(&raw, a as f32, b as f32, seed)?;
    }

    #[test]
    fn dia_spmv_equals_dense_reference_f64_usize(raw in csr::<f64, usize>(30, 8, true), (a, b) in scalars(), seed: u64) {
        check_dia_spmv(&raw, a, b, seed)?;
    }

    #[test]
    fn csr_dia_csr_roundtrip_and_spmv_f64_u16(raw in csr::<f64, u16>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_dia_roundtrip(&raw)?;
        check_dia_spmv(&raw, a, b, seed)?;
    }

    #[test]
    fn csr_dia_csr_roundtrip_and_spmv_f32_u16_canonical(raw in csr::<f32, u16>(30, 8, true), (a, b) in scalars(), seed: u64) {
        check_dia_roundtrip(&raw)?;
        check_dia_spmv(&raw, a as f32, b as f32, seed)?;
    }

    #[test]
    fn corrupted_dia_is_rejected_with_the_matching_error(raw in csr::<f64, u32>(20, 6, false), which in 0usize..6, pick: usize) {
        let a = raw.owned();
        let a = a.view();
        let (m, n) = a.shape();
        let (mut offsets, mut data) = to_dia(&a);
        let nd = offsets.len();
        let expected = match which {
            0 if nd > 1 => { let k = 1 + pick % (nd - 1); offsets.swap(k - 1, k); "DiagonalOffset" }
            1 if nd > 1 => { let k = 1 + pick % (nd - 1); offsets[k] = offsets[k - 1]; "DiagonalOffset" }
            2 if nd > 0 => { offsets[nd - 1] = n as isize + (pick % 3) as isize; "DiagonalOffset" }
            3 if nd > 0 => { offsets[0] = -(m as isize) - (pick % 3) as isize; "DiagonalOffset" }
            4 => { data.push(0.0); "Length" }
            5 if !data.is_empty() => { data.pop(); "Length" }
            _ => return Ok(()),
        };
        let err = Dia::new(m, n, &offsets, &data).unwrap_err();
        let got = format!("{err:?}");
        prop_assert!(got.starts_with(expected), "expected {}, got {}", expected, got);
        prop_assert!(!err.to_string().is_empty());
        prop_assert_eq!(DiaOwned::from_parts(m, n, offsets.clone(), data.clone()).unwrap_err(), err);
        // from_csr validates the offsets the same way, before writing.
        if expected == "DiagonalOffset" {
            let mut out = vec![7.0; data.len()];
            prop_assert_eq!(Dia::from_csr(&a, &offsets, &mut out).unwrap_err(), err);
            prop_assert!(out.iter().all(|&x| x == 7.0));
        }
    }

    #[test]
    fn dia_from_csr_rejects_a_missing_diagonal_and_writes_nothing(raw in csr::<f64, u32>(20, 6, false), pick: usize) {
        let a = raw.owned();
        let a = a.view();
        let (mut offsets, _) = to_dia(&a);
        if offsets.is_empty() { return Ok(()); }
        let removed = offsets.remove(pick % offsets.len());
        let mut data = vec![7.0; offsets.len() * a.nrows()];
        let err = Dia::from_csr(&a, &offsets, &mut data).unwrap_err();
        let (position, (row, col, _)) = a.iter().enumerate().find(|(_, (i, j, _))| *j as isize - *i as isize == removed).unwrap();
        prop_assert_eq!(err, FormatError::DiagonalNotStored { row, position, offset: col as isize - row as isize });
        prop_assert!(data.iter().all(|&x| x == 7.0));
    }
}

/// Thesis Fig. 5.2: a tridiagonal 6×6 matrix on offsets [-1, 0, 1], with the two padded
/// fill-ins.
#[test]
fn dia_of_thesis_figure_5_2() {
    let t = [
        (0, 0, 1.0),
        (0, 1, 2.0),
        (1, 0, 1.0),
        (1, 1, 2.0),
        (1, 2, 3.0),
        (2, 1, 1.0),
        (2, 2, 2.0),
        (2, 3, 3.0),
        (3, 2, 1.0),
        (3, 3, 2.0),
        (3, 4, 3.0),
        (4, 3, 1.0),
        (4, 4, 2.0),
        (4, 5, 3.0),
        (5, 4, 1.0),
        (5, 5, 2.0),
    ];
    let a = CsrOwned::<f64, u32>::from_triplets(6, 6, &t).unwrap();
    let a = a.view();
    assert_eq!(Dia::offsets_scratch_len(&a), 3);
    let mut offsets = [0isize; 11];
    let ndiag = Dia::offsets_from_csr(&a, &mut offsets).unwrap();
    assert_eq!(&offsets[..ndiag], &[-1, 0, 1]);
    let layout = DiaLayout::new(&a, ndiag).unwrap();
    assert_eq!(layout.data_len(), 18);
    assert!((layout.fill_ratio() - 18.0 / 16.0).abs() < 1e-12);
    let mut data = [9.0; 18];
    let d = Dia::from_csr(&a, &offsets[..ndiag], &mut data).unwrap();
    assert_eq!(d.diagonal(0).unwrap(), &[0.0, 1.0, 1.0, 1.0, 1.0, 1.0]); // * 1 1 1 1 1
    assert_eq!(d.diagonal(1).unwrap(), &[1.0, 2.0, 2.0, 2.0, 2.0, 2.0]);
    assert_eq!(d.diagonal(2).unwrap(), &[2.0, 3.0, 3.0, 3.0, 3.0, 0.0]); // 2 3 3 3 3 *
    assert_eq!(d.diagonal(3), None);
    // The padded fill-ins may hold anything: NaN is never read.
    let mut hand =
        [f64::NAN, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0, 3.0, f64::NAN];
    let h = Dia::new(6, 6, &[-1, 0, 1], &hand).unwrap();
    assert_eq!(h.csr_nnz(), 16);
    let mut y = [f64::NAN; 6];
    h.spmv(Exec::new(), 1.0, &[1.0; 6], 0.0, &mut y).unwrap();
    assert_eq!(y, [3.0, 6.0, 6.0, 6.0, 6.0, 3.0]);
    let (mut rp, mut c, mut v) = ([0u32; 7], [0u32; 16], [0.0; 16]);
    let back = h.to_csr(&mut rp, &mut c, &mut v).unwrap();
    assert_eq!(back.row_ptr(), a.row_ptr());
    assert_eq!(back.col_idx(), a.col_idx());
    assert_eq!(back.vals(), a.vals());
    hand[0] = f64::INFINITY;
    assert!(Dia::new(6, 6, &[-1, 0, 1], &hand).is_ok());
}

/// Thesis Fig. 5.3: two weak diagonals (offsets ±2) with one entry each still cost six
/// slots apiece; zeros inside the matrix are fill and are not given back by `to_csr`.
#[test]
fn dia_of_thesis_figure_5_3() {
    let rows: [[f64; 6]; 6] = [
        [1.0, 2.0, 0.0, 0.0, 0.0, 0.0],
        [1.0, 2.0, 3.0, 0.0, 0.0, 0.0],
        [1.0, 2.0, 3.0, 4.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 2.0, 3.0, 4.0],
        [0.0, 0.0, 0.0, 1.0, 2.0, 3.0],
        [0.0, 0.0, 0.0, 0.0, 1.0, 2.0],
    ];
    let t: Vec<(usize, usize, f64)> = (0..6)
        .flat_map(|i| (0..6).map(move |j| (i, j)))
        .filter(|&(i, j)| rows[i][j] != 0.0)
        .map(|(i, j)| (i, j, rows[i][j]))
        .collect();
    let a = CsrOwned::<f64, u32>::from_triplets(6, 6, &t).unwrap();
    let o = DiaOwned::from_csr(&a.view()).unwrap();
    let d = o.view();
    assert_eq!(d.offsets(), &[-2, -1, 0, 1, 2]);
    assert_eq!(d.diagonal(0).unwrap(), &[0.0, 0.0, 1.0, 0.0, 0.0, 0.0]);
    assert_eq!(d.diagonal(1).unwrap(), &[0.0, 1.0, 2.0, 1.0, 1.0, 1.0]);
    assert_eq!(d.diagonal(2).unwrap(), &[1.0, 2.0, 3.0, 2.0, 2.0, 2.0]);
    assert_eq!(d.diagonal(3).unwrap(), &[2.0, 3.0, 4.0, 3.0, 3.0, 0.0]);
    assert_eq!(d.diagonal(4).unwrap(), &[0.0, 0.0, 0.0, 4.0, 0.0, 0.0]);
    assert_eq!(d.csr_nnz(), t.len());
    assert_eq!(d.row_range(-2), 2..6);
    assert_eq!(d.row_range(2), 0..4);
    let layout = DiaLayout::new(&a.view(), 5).unwrap();
    assert!((layout.fill_ratio() - 30.0 / t.len() as f64).abs() < 1e-12);
}

#[test]
fn dia_explicit_zeros_are_dropped_and_duplicates_summed() {
    // Row 0: an explicit zero at (0,0), a duplicate pair at (0,1) that cancels, one at
    // (1,1) that adds up.
    let a = Csr::<f64, u32>::new(2, 2, &[0, 3, 5], &[0, 1, 1, 1, 1], &[0.0, 2.0, -2.0, 1.5, 2.5]).unwrap();
    let o = DiaOwned::from_csr(&a).unwrap();
    let d = o.view();
    assert_eq!(d.offsets(), &[0, 1]);
    assert_eq!(d.data(), &[0.0, 4.0, 0.0, 0.0]);
    assert_eq!(d.csr_nnz(), 1);
    let (mut rp, mut c, mut v) = ([9u32; 3], [9u32; 1], [9.0; 1]);
    let back = d.to_csr(&mut rp, &mut c, &mut v).unwrap();
    assert_eq!((back.row_ptr(), back.col_idx(), back.vals()), (&[0u32, 0, 1][..], &[1u32][..], &[4.0][..]));
    // -0.0 counts as zero, NaN does not.
    let d = Dia::new(1, 2, &[0, 1], &[-0.0, f64::NAN]).unwrap();
    assert_eq!(d.csr_nnz(), 1);
}

#[test]
fn dia_offsets_out_of_range_for_the_shape() {
    // No diagonal meets an empty matrix.
    for (m, n) in [(0usize, 0usize), (0, 5), (5, 0)] {
        assert!(Dia::<f64>::new(m, n, &[], &[]).is_ok());
        assert_eq!(
            Dia::<f64>::new(m, n, &[0], &[]).unwrap_err(),
            FormatError::DiagonalOffset { position: 0, offset: 0 }
        );
    }
    // 2×3: offsets -1..=2.
    assert!(Dia::<f64>::new(2, 3, &[-1, 0, 1, 2], &[0.0; 8]).is_ok());
    assert_eq!(
        Dia::<f64>::new(2, 3, &[-2, 0], &[0.0; 4]).unwrap_err(),
        FormatError::DiagonalOffset { position: 0, offset: -2 }
    );
    assert_eq!(
        Dia::<f64>::new(2, 3, &[0, 3], &[0.0; 4]).unwrap_err(),
        FormatError::DiagonalOffset { position: 1, offset: 3 }
    );
    assert_eq!(
        Dia::<f64>::new(2, 3, &[1, 0], &[0.0; 4]).unwrap_err(),
        FormatError::DiagonalOffset { position: 1, offset: 0 }
    );
    assert_eq!(
        Dia::<f64>::new(2, 3, &[1, 1], &[0.0; 4]).unwrap_err(),
        FormatError::DiagonalOffset { position: 1, offset: 1 }
    );
    assert_eq!(
        Dia::<f64>::new(2, 3, &[0, 1], &[0.0; 5]).unwrap_err(),
        FormatError::Length { array: "data", expected: 4, got: 5 }
    );
}

// Sizes past 2^32: a 64-bit `usize`.
#[cfg(target_pointer_width = "64")]
#[test]
fn dia_sizes_that_overflow_are_errors_not_panics() {
    let big = isize::MAX as usize;
    assert!(matches!(
        Dia::<f64>::new(big, 2, &[-1, 0, 1], &[]),
        Err(FormatError::TooLarge { what: "ndiag * nrows", .. })
    ));
    assert!(matches!(Dia::<f64>::data_len(big, 3), Err(FormatError::TooLarge { .. })));
    assert_eq!(Dia::<f64>::data_len(big, 1), Ok(big));
    assert!(matches!(
        Dia::<f64>::new(big + 1, 2, &[], &[]),
        Err(FormatError::TooLarge { what: "nrows", .. })
    ));
    assert!(matches!(
        Dia::<f64>::new(2, big + 1, &[], &[]),
        Err(FormatError::TooLarge { what: "ncols", .. })
    ));
    // A valid u64 CSR too wide for isize offsets.
    let col = [big as u64 + 1];
    let a = Csr::<f64, u64>::new(1, big + 2, &[0, 1], &col, &[1.0]).unwrap();
    assert!(matches!(
        Dia::offsets_from_csr(&a, &mut [0isize; 4]),
        Err(FormatError::TooLarge { what: "ncols", .. })
    ));
    assert!(matches!(DiaOwned::from_csr(&a), Err(FormatError::TooLarge { .. })));
    assert_eq!(Dia::offsets_scratch_len(&a), 1);
    // A huge but representable DIA: the owned conversion reports TooLarge instead of
    // aborting on allocation.
    // Diagonals -1 and w - 1: a span of w + 1 slots, more isize values than fit memory.
    let w = 1usize << 61;
    let col = [(w - 1) as u64, 0];
    let a = Csr::<f64, u64>::new(2, w, &[0, 1, 2], &col, &[1.0, 1.0]).unwrap();
    assert_eq!(Dia::offsets_scratch_len(&a), w + 1);
    assert!(matches!(DiaOwned::from_csr(&a), Err(FormatError::TooLarge { what: "offsets", .. })));
    assert_eq!(
        Dia::offsets_from_csr(&a, &mut [0isize; 4]),
        Err(FormatError::BufferTooSmall { array: "offsets", needed: w + 1, got: 4 })
    );
}

#[test]
fn dia_undersized_buffers_are_rejected_and_left_untouched() {
    let a = Csr::<f64, u32>::new(3, 3, &[0, 2, 3, 3], &[0, 2, 1], &[1.0, 2.0, 3.0]).unwrap();
    assert_eq!(Dia::offsets_scratch_len(&a), 3); // diagonals 0..=2
    let mut small = [7isize; 2];
    assert_eq!(
        Dia::offsets_from_csr(&a, &mut small),
        Err(FormatError::BufferTooSmall { array: "offsets", needed: 3, got: 2 })
    );
    assert_eq!(small, [7; 2]);
    let mut offsets = [7isize; 5]; // nrows + ncols - 1 slots also work
    let nd = Dia::offsets_from_csr(&a, &mut offsets).unwrap();
    assert_eq!(&offsets[..nd], &[0, 2]);
    let mut data = [7.0; 5];
    assert_eq!(
        Dia::from_csr(&a, &offsets[..nd], &mut data).unwrap_err(),
        FormatError::BufferTooSmall { array: "data", needed: 6, got: 5 }
    );
    assert_eq!(data, [7.0; 5]);
    let o = DiaOwned::from_csr(&a).unwrap();
    let d = o.view();
    assert_eq!(d.csr_nnz(), 3);
    for (rl, cl, vl, array, needed) in
        [(3, 3, 3, "row_ptr", 4), (4, 2, 3, "col_idx", 3), (4, 3, 2, "vals", 3)]
    {
        let (mut r, mut c, mut v) = (vec![7u32; rl], vec![7u32; cl], vec![7.0; vl]);
        let err = d.to_csr(&mut r, &mut c, &mut v).unwrap_err();
        let got = [rl, cl, vl].into_iter().find(|&x| x < needed).unwrap();
        assert_eq!(err, FormatError::BufferTooSmall { array, needed, got });
        assert!(r.iter().chain(&c).all(|&x| x == 7) && v.iter().all(|&x| x == 7.0));
    }
    // An index type too small for the result is TooLarge, not a wrong answer (a matrix
    // that wide needs a 64-bit `usize`).
    #[cfg(target_pointer_width = "64")]
    {
        let wide = Dia::<f64>::new(1, u32::MAX as usize, &[0], &[1.0]).unwrap();
        let (mut r, mut c, mut v) = ([0u32; 2], [0u32; 1], [0.0; 1]);
        assert!(matches!(
            wide.to_csr(&mut r, &mut c, &mut v),
            Err(FormatError::TooLarge { what: "ncols", .. })
        ));
    }
}

// ---------------------------------------------------------------------------------------
// Both: SpMV contract
// ---------------------------------------------------------------------------------------

#[test]
fn empty_shapes_work_for_both_formats() {
    for (m, n) in [(0usize, 0usize), (0, 4), (4, 0), (3, 3)] {
        let row_ptr = vec![0u32; m + 1];
        let a = Csr::<f64, u32>::new(m, n, &row_ptr, &[], &[]).unwrap();
        let j = JdsOwned::from_csr(&a).unwrap();
        let d = DiaOwned::from_csr(&a).unwrap();
        assert_eq!(j.view().ndiag(), 0);
        assert_eq!(d.view().ndiag(), 0);
        assert_eq!(j.view().perm().len(), m);
        let x = vec![f64::NAN; n];
        for isa in Isa::available() {
            let mut y = vec![f64::NAN; m];
            j.view().spmv(Exec::from(isa), 1.0, &x, 0.0, &mut y).unwrap();
            assert!(y.iter().all(|&v| v == 0.0));
            let mut y = vec![f64::NAN; m];
            d.view().spmv(Exec::from(isa), 1.0, &x, 0.0, &mut y).unwrap();
            assert!(y.iter().all(|&v| v == 0.0));
        }
        assert_eq!(DiaLayout::new(&a, 0).unwrap().fill_ratio(), 1.0);
    }
}

#[test]
fn beta_zero_overwrites_nan_and_alpha_zero_skips_matrix() {
    let a = Csr::<f64, u32>::new(3, 2, &[0, 1, 1, 3], &[0, 0, 1], &[2.0, 3.0, 4.0]).unwrap();
    let j = JdsOwned::from_csr(&a).unwrap();
    let d = DiaOwned::from_csr(&a).unwrap();
    let ms: [&dyn SpMv<f64>; 2] = [&j.view(), &d.view()];
    for m in ms {
        let mut y = [f64::NAN, f64::INFINITY, f64::NAN];
        m.spmv(Exec::new(), 1.0, &[1.0, 1.0], 0.0, &mut y).unwrap();
        assert_eq!(y, [2.0, 0.0, 7.0]);
        // alpha = 0: x is not read, so NaN in x does not leak.
        let mut y = [1.0, 2.0, 3.0];
        m.spmv(Exec::new(), 0.0, &[f64::NAN, f64::NAN], 2.0, &mut y).unwrap();
        assert_eq!(y, [2.0, 4.0, 6.0]);
        let mut y = [f64::NAN; 3];
        m.spmv(Exec::new(), 0.0, &[f64::NAN, f64::NAN], 0.0, &mut y).unwrap();
        assert_eq!(y, [0.0; 3]);
        let mut y = [1.0, 2.0, 3.0];
        m.spmv(Exec::new(), 2.0, &[1.0, -1.0], 1.0, &mut y).unwrap();
        assert_eq!(y, [5.0, 2.0, 1.0]);
    }
}

#[test]
fn wrong_lengths_and_unavailable_isa_are_errors_and_leave_y_untouched() {
    let a = Csr::<f32, u32>::new(2, 3, &[0, 1, 2], &[0, 2], &[2.0, 3.0]).unwrap();
    let j = JdsOwned::from_csr(&a).unwrap();
    let d = DiaOwned::from_csr(&a).unwrap();
    let ms: [&dyn SpMv<f32>; 2] = [&j.view(), &d.view()];
    for m in ms {
        let mut y = [7.0f32; 2];
        assert_eq!(
            m.spmv(Exec::new(), 1.0, &[1.0; 2], 0.0, &mut y),
            Err(DimError::Length { operand: "x", expected: 3, got: 2 })
        );
        let mut y3 = [7.0f32; 3];
        assert_eq!(
            m.spmv(Exec::new(), 1.0, &[1.0; 3], 0.0, &mut y3),
            Err(DimError::Length { operand: "y", expected: 2, got: 3 })
        );
        assert_eq!(y, [7.0; 2]);
        assert_eq!(y3, [7.0; 3]);
        for isa in Isa::ALL {
            let mut y = [7.0f32; 2];
            let r = m.spmv(Exec::from(isa), 1.0, &[1.0; 3], 0.0, &mut y);
            if isa.is_available() {
                assert_eq!(r, Ok(()));
                assert_eq!(y, [2.0, 3.0]);
            } else {
                assert_eq!(r, Err(DimError::IsaUnavailable { isa }));
                assert_eq!(y, [7.0; 2]);
            }
        }
    }
}

#[test]
fn jds_accessors_never_panic_on_any_index() {
    let a = Csr::<f64, u32>::new(2, 2, &[0, 2, 3], &[0, 1, 1], &[1.0, 2.0, 3.0]).unwrap();
    let o = JdsOwned::from_csr(&a).unwrap();
    let j = o.view();
    assert_eq!(
        (j.diagonal_len(0), j.diagonal_len(1), j.diagonal_len(2), j.diagonal_len(usize::MAX)),
        (2, 1, 0, 0)
    );
    assert_eq!((j.row_len(0), j.row_len(1), j.row_len(usize::MAX)), (2, 1, 0));
    let d = DiaOwned::from_csr(&a).unwrap();
    let d = d.view();
    assert_eq!(d.diagonal(usize::MAX), None);
    assert_eq!(d.row_range(isize::MIN), 2..2);
    assert_eq!(d.row_range(isize::MAX), 0..0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::common::cases(64)))]

    #[test]
    fn csr_jds_dia_roundtrip_and_spmv_f64_i32(raw in csr::<f64, i32>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_jds_roundtrip(&raw)?;
        check_jds_spmv(&raw, a, b, seed)?;
        check_dia_roundtrip(&raw)?;
        check_dia_spmv(&raw, a, b, seed)?;
    }

    #[test]
    fn csr_jds_dia_roundtrip_and_spmv_f32_i64_canonical(raw in csr::<f32, i64>(30, 8, true), (a, b) in scalars(), seed: u64) {
        check_jds_roundtrip(&raw)?;
        check_jds_spmv(&raw, a as f32, b as f32, seed)?;
        check_dia_roundtrip(&raw)?;
        check_dia_spmv(&raw, a as f32, b as f32, seed)?;
    }

    #[test]
    fn csr_jds_dia_roundtrip_and_spmv_f32_i32(raw in csr::<f32, i32>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_jds_spmv(&raw, a as f32, b as f32, seed)?;
        check_dia_spmv(&raw, a as f32, b as f32, seed)?;
    }

    #[test]
    fn csr_jds_dia_roundtrip_and_spmv_f64_i64(raw in csr::<f64, i64>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_jds_spmv(&raw, a, b, seed)?;
        check_dia_spmv(&raw, a, b, seed)?;
    }

    #[test]
    fn corrupted_jds_is_rejected_with_the_matching_error_signed(raw in csr::<f64, i32>(20, 6, false), wide in csr::<f64, i64>(20, 6, false), which in 0usize..10, pick: usize) {
        corrupted_jds(&raw, which, pick)?;
        corrupted_jds(&wide, which, pick)?;
    }
}
