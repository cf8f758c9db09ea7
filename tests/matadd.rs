//! `C = alpha·A + beta·B` (level3::add_symbolic / add_numeric / add) and the scalings
//! against a dense reference on every `Isa`, `f32` and `f64`, `u32`, `i32` and `u16`
//! indices, canonical and unsorted operands with duplicates, the edge shapes, and every
//! error.

mod common;

use common::splitmix;
use proptest::prelude::*;
use spblas::level3::{add, add_numeric, add_symbolic, add_workspace_len, scale, scale_cols, scale_rows};
use spblas::primitives::Key;
use spblas::primitives::scan::ScanElem;
use spblas::{Csr, CsrOwned, DimError, Exec, Index, Isa, RowOrder, Scalar};

/// Arrays of an `nrows x ncols` matrix from `seed`: up to `max_len` entries a row (a
/// dense row now and then), values halves in -4..4 (exact sums), rows unsorted with
/// duplicates unless `canonical`.
fn arrays<T: Scalar, I: Index>(
    nrows: usize,
    ncols: usize,
    max_len: usize,
    seed: u64,
    canonical: bool,
) -> (Vec<I>, Vec<I>, Vec<T>) {
    let (mut rp, mut ci, mut v) = (vec![I::ZERO], Vec::new(), Vec::new());
    for i in 0..nrows {
        let h = splitmix(seed ^ (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let len = if ncols == 0 {
            0
        } else if h.is_multiple_of(11) {
            ncols
        } else {
            (h % (max_len as u64 + 1)) as usize
        };
        let mut row: Vec<(usize, f64)> = (0..len)
            .map(|k| {
                let g = splitmix(h ^ (k as u64 + 7));
                let col = if len == ncols { k } else { (g % ncols as u64) as usize };
                (col, ((g >> 20) % 17) as f64 * 0.5 - 4.0)
            })
            .collect();
        if canonical {
            row.sort_by_key(|e| e.0);
            row.dedup_by_key(|e| e.0);
        } else if row.len() > 1 {
            row.reverse();
            let dup = row[0];
            row.push(dup);
        }
        for (c, x) in row {
            ci.push(I::from_usize(c).unwrap());
            v.push(T::from_f64(x));
        }
        rp.push(I::from_usize(ci.len()).unwrap());
    }
    (rp, ci, v)
}

/// Dense `alpha·A + beta·B` and, per row, the set of columns present in either.
fn reference<T: Scalar, I: Index>(
    alpha: f64,
    a: &Csr<'_, T, I>,
    beta: f64,
    b: &Csr<'_, T, I>,
) -> (Vec<Vec<f64>>, Vec<Vec<bool>>) {
    let (m, n) = a.shape();
    let (mut d, mut p) = (vec![vec![0.0; n]; m], vec![vec![false; n]; m]);
    for (s, mat) in [(alpha, a), (beta, b)] {
        for (i, j, v) in mat.iter() {
            d[i][j] += s * v.to_f64();
            p[i][j] = true;
        }
    }
    (d, p)
}

/// The sum by both phases on `isa` and by the owned form, checked against the reference:
/// the union pattern, canonical rows, exact values (halves times the scalars below).
fn check_sum<T: Scalar + ScanElem, I: Index + Key>(
    isa: Isa,
    alpha: T,
    a: &Csr<'_, T, I>,
    beta: T,
    b: &Csr<'_, T, I>,
) -> Result<(), TestCaseError> {
    let exec = Exec::from(isa);
    let (want, pattern) = reference(alpha.to_f64(), a, beta.to_f64(), b);
    let ws = add_workspace_len(exec, a, b).unwrap();
    let (mut wi, mut wv) = (vec![I::ZERO; ws.idx], vec![T::from_f64(f64::NAN); ws.vals]);
    let mut rp = vec![I::ZERO; a.nrows() + 1];
    let nnz = add_symbolic(exec, a, b, &mut rp, &mut wi).unwrap();
    let (mut ci, mut cv) = (vec![I::ZERO; nnz], vec![T::ZERO; nnz]);
    add_numeric(exec, alpha, a, beta, b, &rp, &mut ci, &mut cv, (&mut wi, &mut wv)).unwrap();
    let c = Csr::new(a.nrows(), a.ncols(), &rp, &ci, &cv).unwrap();
    prop_assert!(c.nrows() == 0 || nnz == 0 || c.row_order() == RowOrder::Canonical);
    for i in 0..a.nrows() {
        let (cols, vals) = c.row(i).unwrap();
        let expect: Vec<usize> = (0..a.ncols()).filter(|&j| pattern[i][j]).collect();
        let got: Vec<usize> = cols.iter().map(|c| c.to_usize()).collect();
        prop_assert_eq!(&got, &expect, "{} row {}", isa, i);
        for (&j, v) in got.iter().zip(vals) {
            prop_assert_eq!(v.to_f64(), want[i][j], "{} ({}, {})", isa, i, j);
        }
    }
    let owned = add(exec, alpha, a, beta, b).unwrap();
    let o = owned.view();
    prop_assert_eq!((o.row_ptr(), o.col_idx()), (&rp[..], &ci[..]));
    prop_assert!(o.vals().iter().zip(&cv).all(|(p, q)| p.to_f64().to_bits() == q.to_f64().to_bits()));
    Ok(())
}

fn sums<T: Scalar + ScanElem, I: Index + Key>(
    (nrows, ncols, max_len, seed, canon_a, canon_b, scalars): (
        usize,
        usize,
        usize,
        u64,
        bool,
        bool,
        (f64, f64),
    ),
) -> Result<(), TestCaseError> {
    let (ra, ca, va) = arrays::<T, I>(nrows, ncols, max_len, seed, canon_a);
    let (rb, cb, vb) = arrays::<T, I>(nrows, ncols, max_len, seed ^ 0x5555, canon_b);
    let a = Csr::new(nrows, ncols, &ra, &ca, &va).unwrap();
    let b = Csr::new(nrows, ncols, &rb, &cb, &vb).unwrap();
    let (alpha, beta) = (T::from_f64(scalars.0), T::from_f64(scalars.1));
    for isa in Isa::available() {
        check_sum(isa, alpha, &a, beta, &b)?;
        // A + A: the same columns in both rows (every entry an addition).
        check_sum(isa, alpha, &a, beta, &a)?;
    }
    Ok(())
}

fn cases() -> impl Strategy<Value = (usize, usize, usize, u64, bool, bool, (f64, f64))> {
    let scalar = prop_oneof![Just(1.0), Just(0.0), Just(-2.0), Just(0.5)];
    (0usize..14, 0usize..150, 0usize..9, any::<u64>(), any::<bool>(), any::<bool>(), (scalar.clone(), scalar))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::common::cases(32)))]

    #[test]
    fn sums_match_the_dense_reference_f64_u32(c in cases()) {
        sums::<f64, u32>(c)?;
    }

    #[test]
    fn sums_match_the_dense_reference_f32_i32(c in cases()) {
        sums::<f32, i32>(c)?;
    }

    #[test]
    fn sums_match_the_dense_reference_f64_u16(c in cases()) {
        sums::<f64, u16>(c)?;
    }
}

#[test]
fn edge_shapes() {
    let e: (Vec<u32>, Vec<u32>, Vec<f64>) = (vec![0], vec![], vec![]);
    // 0 x 0, 0 x 5, 3 x 0, all-empty rows.
    for (m, n) in [(0usize, 0usize), (0, 5), (3, 0), (4, 6)] {
        let rp = vec![0u32; m + 1];
        let a = Csr::new(m, n, &rp, &e.1, &e.2).unwrap();
        let c = add(Exec::new(), 1.0, &a, 1.0, &a).unwrap();
        assert_eq!((c.nrows(), c.ncols(), c.nnz()), (m, n, 0));
    }
    // One dense row plus an empty one: the whole row, cancellations kept as zeros.
    let a = Csr::new(2, 4, &[0u32, 4, 4], &[0, 1, 2, 3], &[1.0f64, 2.0, 3.0, 4.0]).unwrap();
    let c = add(Exec::new(), 1.0, &a, -1.0, &a).unwrap();
    let c = c.view();
    assert_eq!((c.row_ptr(), c.col_idx(), c.vals()), (&[0u32, 4, 4][..], &[0, 1, 2, 3][..], &[0.0; 4][..]));
}

#[test]
fn errors_name_what_is_wrong() {
    let a = Csr::new(2, 3, &[0u32, 1, 2], &[0, 2], &[1.0f64, 2.0]).unwrap();
    let b = Csr::new(3, 2, &[0u32, 1, 1, 2], &[0, 1], &[1.0f64, 2.0]).unwrap();
    let exec = Exec::new();
    let shape = Err(DimError::Shape { left: (2, 3), right: (3, 2) });
    assert_eq!(add_workspace_len(exec, &a, &b).map(|_| ()), shape);
    assert_eq!(add(exec, 1.0, &a, 1.0, &b).map(|_| ()), shape);
    let ws = add_workspace_len(exec, &a, &a).unwrap();
    let (mut wi, mut wv) = (vec![0u32; ws.idx], vec![0.0f64; ws.vals]);
    let mut rp = [7u32; 3];
    assert_eq!(
        add_symbolic(exec, &a, &a, &mut rp[..2], &mut wi),
        Err(DimError::BufferTooSmall { buffer: "c_row_ptr", needed: 3, got: 2 })
    );
    assert_eq!(rp, [7; 3], "nothing written on error");
    if ws.idx > 0 {
        assert!(matches!(
            add_symbolic(exec, &a, &a, &mut rp, &mut wi[..ws.idx - 1]),
            Err(DimError::BufferTooSmall { buffer: "workspace", .. })
        ));
    }
    let nnz = add_symbolic(exec, &a, &a, &mut rp, &mut wi).unwrap();
    let (mut ci, mut cv) = (vec![0u32; nnz], vec![0.0f64; nnz]);
    assert!(matches!(
        add_numeric(exec, 1.0, &a, 1.0, &a, &rp, &mut ci[..nnz - 1], &mut cv, (&mut wi, &mut wv)),
        Err(DimError::BufferTooSmall { buffer: "c_col_idx", .. })
    ));
    // Row pointers that are not the symbolic phase's: the first row whose length differs.
    let wrong = [0u32, 0, 2];
    assert_eq!(
        add_numeric(exec, 1.0, &a, 1.0, &a, &wrong, &mut ci, &mut cv, (&mut wi, &mut wv)),
        Err(DimError::RowLength { operand: "c_row_ptr", row: 0, expected: 0, got: 1 })
    );
    // nnz(C) beyond u16 while each operand fits: two rows of 32 000 + 32 000 columns.
    let n = 64_000usize;
    let half = n / 2;
    let rows = |lo: usize| -> (Vec<u16>, Vec<u16>, Vec<f64>) {
        let cols: Vec<u16> = (0..2).flat_map(|_| (lo..lo + half).map(|c| c as u16)).collect();
        (vec![0, half as u16, (2 * half) as u16], cols, vec![1.0; 2 * half])
    };
    let (ra, ca, va) = rows(0);
    let (rb, cb, vb) = rows(half);
    let (x, y) = (Csr::new(2, n, &ra, &ca, &va).unwrap(), Csr::new(2, n, &rb, &cb, &vb).unwrap());
    let ws = add_workspace_len(exec, &x, &y).unwrap();
    let (mut wi16, mut rp16) = (vec![0u16; ws.idx], [9u16; 3]);
    assert_eq!(
        add_symbolic(exec, &x, &y, &mut rp16, &mut wi16),
        Err(DimError::Overflow { what: "nnz(C)", value: 4 * half, max: u16::MAX as usize })
    );
    assert_eq!(rp16, [9; 3]);
    // An unavailable width.
    if let Some(isa) =
        [Isa::Avx512, Isa::Avx2, Isa::Neon].into_iter().find(|i| !Isa::available().any(|j| j == *i))
    {
        assert_eq!(
            add_workspace_len(Exec::from(isa), &a, &a).map(|_| ()),
            Err(DimError::IsaUnavailable { isa })
        );
    }
}

#[test]
fn scalings_match_the_dense_reference() {
    let (rp, ci, v) = arrays::<f64, u32>(9, 7, 5, 42, false);
    let a = Csr::new(9, 7, &rp, &ci, &v).unwrap();
    let (dr, dc): (Vec<f64>, Vec<f64>) =
        ((0..9).map(|i| i as f64 - 3.0).collect(), (0..7).map(|j| 0.5 * j as f64).collect());
    let mut out = vec![f64::NAN; a.nnz()];
    scale(&a, -2.0, &mut out).unwrap();
    assert!(out.iter().zip(a.vals()).all(|(o, x)| *o == -2.0 * x));
    scale_rows(&a, &dr, &mut out).unwrap();
    let s = Csr::new(9, 7, &rp, &ci, &out).unwrap();
    assert!(s.iter().zip(a.iter()).all(|((i, j, o), (_, _, x))| {
        let _ = j;
        o == dr[i] * x
    }));
    scale_cols(&a, &dc, &mut out).unwrap();
    let s = Csr::new(9, 7, &rp, &ci, &out).unwrap();
    assert!(s.iter().zip(a.iter()).all(|((_, j, o), (_, _, x))| o == x * dc[j]));
    // Wrong lengths: errors, nothing written.
    let mut keep = vec![5.0; a.nnz()];
    assert_eq!(
        scale_rows(&a, &dr[..8], &mut keep),
        Err(DimError::Length { operand: "d", expected: 9, got: 8 })
    );
    assert_eq!(
        scale_cols(&a, &dc[..6], &mut keep),
        Err(DimError::Length { operand: "d", expected: 7, got: 6 })
    );
    let short = a.nnz() - 1;
    assert_eq!(
        scale(&a, 1.0, &mut keep[..short]),
        Err(DimError::BufferTooSmall { buffer: "out_vals", needed: a.nnz(), got: short })
    );
    assert!(keep.iter().all(|&k| k == 5.0));
    // An owned matrix scaled into new values keeps its structure.
    let o = CsrOwned::from_parts(9, 7, rp.clone(), ci.clone(), v.clone()).unwrap();
    let mut nv = vec![0.0; o.nnz()];
    scale(&o.view(), 0.5, &mut nv).unwrap();
    assert!(Csr::new(9, 7, &rp, &ci, &nv).is_ok());
}
