//! CSR5 SpMM (`Y = alpha * A * X + beta * Y`, each tile read once for `k` columns): every
//! available `Isa`, f32/f64, u32/i32/u16 indices, tiles of several shapes, both layouts
//! of `X` and `Y` with padded leading dimensions, against a dense reference and against
//! the CSR SpMM; tile ranges plus carries in any order; threads; edge shapes (empty rows
//! across tiles, one row over many tiles, fewer entries than a tile), BLAS rules, errors,
//! and the SpMM of planned matrices.

mod common;

use common::dense::{Block, layout};
use common::{RawCsr, csr, scalars, splitmix, vector};
use proptest::prelude::*;
use spblas::level2::csr5::{apply_spmm_carry, owned_rows, spmm_tiles};
use spblas::level2::{SpmvChoice, SpmvConfig, SpmvPlan, spmm_csr, spmm_csr5};
use spblas::{
    Csr, Csr5Layout, Csr5Owned, CsrOwned, DenseLayout, DenseMut, DenseRef, DimError, Exec, Index, Isa,
    Scalar, SpMm, SpmvPlanLayout, SpmvPlanView,
};

/// `Y` against the dense reference `alpha * A * X + beta * Y0` in f64, each element
/// within `(max row length + 4) * eps` of `Σ |alpha a_ij x_jc| + |beta y_ic|` (the pieces
/// of a row split between tiles or ranges add one more rounding).
fn assert_ref<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    alpha: T,
    x: &Block<T>,
    beta: T,
    y0: &Block<T>,
    y: &Block<T>,
) -> Result<(), TestCaseError> {
    let (m, k) = (a.nrows(), x.cols);
    let (mut acc, mut mag) = (vec![0.0f64; m * k], vec![0.0f64; m * k]);
    let al = alpha.to_f64();
    for (i, j, v) in a.iter() {
        for c in 0..k {
            let p = v.to_f64() * x.at(j, c).to_f64();
            acc[i * k + c] += p;
            mag[i * k + c] += (al * p).abs();
        }
    }
    let (b, eps) = (beta.to_f64(), T::EPSILON.to_f64());
    let factor = (a.max_row_len() + 4) as f64;
    for i in 0..m {
        for c in 0..k {
            let (want, bound) = if b == 0.0 {
                (al * acc[i * k + c], mag[i * k + c])
            } else {
                let yv = y0.at(i, c).to_f64();
                (al * acc[i * k + c] + b * yv, mag[i * k + c] + (b * yv).abs())
            };
            let got = y.at(i, c).to_f64();
            let tol = factor * eps * bound + f64::MIN_POSITIVE;
            prop_assert!((got - want).abs() <= tol, "Y[{i}, {c}]: got {got} want {want} (tol {tol})");
        }
    }
    prop_assert!(y.padding_untouched(), "padding of Y written");
    Ok(())
}

/// The tile shapes a case runs: tiny ones (many tiles, many carries), each width's own.
fn shapes<T: Scalar, I: Index>(a: &Csr<'_, T, I>, pick: u64) -> Vec<Csr5Layout> {
    let mut out = Vec::new();
    let tiny = [(1usize, 1usize), (2, 2), (4, 3), (4, 4), (8, 4), (2, 32)];
    out.push(Csr5Layout::with_params(a, tiny[(pick % 6) as usize].0, tiny[(pick % 6) as usize].1));
    out.push(Csr5Layout::with_params(a, 4, 2));
    out.push(Csr5Layout::new(a, Isa::detect()));
    // Rows past the top bit of `u16` have no CSR5 form; those cases test the others.
    out.into_iter().filter_map(Result::ok).collect()
}

/// One case: for each tile shape and `Isa`, the whole SpMM against the reference (`Y`
/// starts NaN when `beta == 0`) and within rounding of the CSR SpMM; ranges of tiles in
/// reverse order plus carries; with `parallel`, two tasks (a column-major `Y`: the serial
/// bits).
#[allow(clippy::too_many_arguments)]
fn check<T: Scalar, I: Index>(
    raw: &RawCsr<T, I>,
    k: usize,
    lx: DenseLayout,
    ly: DenseLayout,
    pad: usize,
    alpha: f64,
    beta: f64,
    seed: u64,
) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    let (alpha, beta) = (T::from_f64(alpha), T::from_f64(beta));
    let x = Block::<T>::new(a.ncols(), k, pad, lx, seed);
    let mut y0 = Block::<T>::new(a.nrows(), k, pad, ly, seed ^ 0xabc);
    if beta == T::ZERO {
        y0.nan_inside();
    }
    for layout in shapes(&a, seed) {
        let c5 = Csr5Owned::from_csr_layout(&a, &layout).unwrap();
        let c5 = c5.view();
        for isa in Isa::available() {
            let at = |e: TestCaseError| {
                TestCaseError::fail(format!("{isa}, omega {} sigma {}: {e}", c5.omega(), c5.sigma()))
            };
            let mut y = y0.clone();
            c5.spmm(Exec::from(isa), alpha, x.view(), beta, &mut y.view_mut()).unwrap();
            assert_ref(&a, alpha, &x, beta, &y0, &y).map_err(at)?;
            let mut yc = y0.clone();
            spmm_csr(Exec::from(isa), &a, alpha, x.view(), beta, &mut yc.view_mut()).unwrap();
            assert_ref(&a, alpha, &x, beta, &y0, &yc).map_err(at)?;
            // Tile ranges of three tiles, run last to first, then the carries.
            let mut yr = y0.clone();
            let n = c5.tiles() + 1;
            let mut carries = Vec::new();
            for s in (0..n).step_by(3).rev() {
                let tiles = s..(s + 3).min(n);
                let rows = owned_rows(&c5, tiles.clone()).unwrap();
                let (rs, cs) = match ly {
                    DenseLayout::RowMajor => (yr.ld, 1),
                    DenseLayout::ColMajor => (1, yr.ld),
                };
                // The owned rows as a block of their own (a copy, written back).
                let mut part =
                    Block::<T> { rows: rows.len(), cols: k, ld: yr.ld, layout: ly, data: Vec::new() };
                let len =
                    if rows.is_empty() || k == 0 { 0 } else { (rows.len() - 1) * rs + (k - 1) * cs + 1 };
                if len > 0 {
                    part.data = yr.data[rows.start * rs..][..len].to_vec();
                }
                let mut carry = vec![T::from_f64(f64::NAN); k + 1];
                let r = spmm_tiles(&c5, isa, tiles, alpha, x.view(), beta, &mut part.view_mut(), &mut carry)
                    .unwrap();
                if len > 0 {
                    yr.data[rows.start * rs..][..len].copy_from_slice(&part.data);
                }
                if let Some(row) = r {
                    prop_assert_eq!(row, rows.end);
                    carries.push((row, carry));
                }
            }
            for (row, carry) in &carries {
                apply_spmm_carry(*row, carry, &mut yr.view_mut()).unwrap();
            }
            assert_ref(&a, alpha, &x, beta, &y0, &yr).map_err(at)?;
            #[cfg(feature = "parallel")]
            {
                let mut yt = y0.clone();
                spmm_csr5(Exec::from(isa).threads(2), &c5, alpha, x.view(), beta, &mut yt.view_mut())
                    .unwrap();
                assert_ref(&a, alpha, &x, beta, &y0, &yt).map_err(at)?;
                if ly == DenseLayout::ColMajor {
                    let same = yt
                        .data
                        .iter()
                        .zip(&y.data)
                        .all(|(p, q)| p.to_f64().to_bits() == q.to_f64().to_bits());
                    prop_assert!(same, "{isa}: two tasks (column blocks) differ from one");
                }
            }
        }
    }
    Ok(())
}

/// The `k` the issue names, and any up to 64.
fn columns() -> impl Strategy<Value = usize> {
    prop_oneof![
        3 => prop::sample::select(vec![1usize, 2, 3, 7, 8, 9, 16, 33]),
        1 => 1usize..=64,
    ]
}

macro_rules! props {
    ($($name:ident: $t:ty, $i:ty;)*) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(crate::common::cases(24)))]
            $(
                #[test]
                fn $name(
                    raw in csr::<$t, $i>(40, 12, false),
                    k in columns(),
                    lx in layout(),
                    ly in layout(),
                    pad in 0usize..3,
                    (alpha, beta) in scalars(),
                    seed in any::<u64>(),
                ) {
                    check(&raw, k, lx, ly, pad, alpha, beta, seed)?;
                }
            )*
        }
    };
}

props! {
    csr5_spmm_f64_u32_matches_dense_reference_on_every_isa: f64, u32;
    csr5_spmm_f32_u32_matches_dense_reference_on_every_isa: f32, u32;
    csr5_spmm_f64_i32_matches_dense_reference_on_every_isa: f64, i32;
    csr5_spmm_f32_i32_matches_dense_reference_on_every_isa: f32, i32;
    csr5_spmm_f64_u16_matches_dense_reference_on_every_isa: f64, u16;
}

/// A matrix from `(row, len)` rules: `len(i)` entries in row `i` at scattered columns.
fn matrix(m: usize, n: usize, len: impl Fn(usize) -> usize) -> CsrOwned<f64, u32> {
    let mut t = Vec::new();
    for i in 0..m {
        for q in 0..len(i).min(n) {
            let j = (splitmix((i * 131 + q) as u64) % n as u64) as usize;
            t.push((i, j, ((i * 5 + q * 3) % 11) as f64 - 5.0));
        }
    }
    CsrOwned::from_triplets(m, n, &t).unwrap()
}

/// Every tile shape, `Isa`, `k`, layout pair and thread count on one matrix against the
/// reference.
fn run_edges(a: &CsrOwned<f64, u32>, what: &str) {
    let a = a.view();
    let mut layouts = vec![(1, 1), (2, 2), (4, 4), (4, 8), (8, 32)];
    layouts.retain(|&(o, s)| o * s <= 512);
    for (omega, sigma) in layouts {
        let c5 = Csr5Owned::from_csr_layout(&a, &Csr5Layout::with_params(&a, omega, sigma).unwrap()).unwrap();
        let c5 = c5.view();
        for k in [1usize, 3, 8, 9, 33] {
            for (lx, ly) in [
                (DenseLayout::RowMajor, DenseLayout::RowMajor),
                (DenseLayout::ColMajor, DenseLayout::ColMajor),
                (DenseLayout::RowMajor, DenseLayout::ColMajor),
            ] {
                let x = Block::<f64>::new(a.ncols(), k, 1, lx, 5);
                let y0 = Block::<f64>::new(a.nrows(), k, 2, ly, 6);
                for isa in Isa::available() {
                    for threads in [1usize, 2] {
                        let mut y = y0.clone();
                        let exec = Exec::from(isa).threads(threads);
                        spmm_csr5(exec, &c5, 1.5, x.view(), -0.5, &mut y.view_mut()).unwrap();
                        assert_ref(&a, 1.5, &x, -0.5, &y0, &y).unwrap_or_else(|e| {
                            panic!(
                                "{what}: {isa}, {threads} threads, omega {omega} sigma {sigma}, k {k}: {e}"
                            )
                        });
                    }
                }
            }
        }
    }
}

/// Runs of empty rows inside tiles and across tile boundaries, leading and trailing empty
/// rows.
#[test]
fn runs_of_empty_rows_across_tiles() {
    let a = matrix(120, 50, |i| if (i / 7) % 3 == 1 || !(5..=110).contains(&i) { 0 } else { 1 + i % 5 });
    run_edges(&a, "empty rows");
}

/// One row of 400 entries, spanning many tiles, between short rows and empty rows.
#[test]
fn one_long_row_spans_many_tiles() {
    let a = matrix(40, 500, |i| match i {
        17 => 400,
        16 | 18 => 0,
        _ => i % 4,
    });
    run_edges(&a, "long row");
}

/// Fewer entries than one tile: everything is the tail.
#[test]
fn fewer_entries_than_a_tile() {
    let a = matrix(9, 6, |i| i % 3);
    run_edges(&a, "nnz < tile");
}

/// 0 × 0, 0 × n, n × 0, no entries, and `k = 0`: `Y` is as BLAS says.
#[test]
fn empty_shapes() {
    for isa in Isa::available() {
        for (m, n, k) in [(0, 0, 3), (0, 4, 3), (4, 0, 3), (4, 4, 0), (6, 5, 2), (0, 0, 0)] {
            let a = CsrOwned::<f64, u32>::from_triplets(m, n, &[]).unwrap();
            let c5 = Csr5Owned::from_csr(Exec::from(isa), &a.view()).unwrap();
            let xv = vec![1.0; n * k];
            for threads in [1, 2] {
                let exec = Exec::from(isa).threads(threads);
                let mut yv = vec![f64::NAN; m * k];
                let x = DenseRef::row_major(n, k, &xv).unwrap();
                spmm_csr5(exec, &c5.view(), 1.0, x, 0.0, &mut DenseMut::row_major(m, k, &mut yv).unwrap())
                    .unwrap();
                assert!(yv.iter().all(|&v| v == 0.0), "{isa} {m}x{n}, k {k}");
                let x = DenseRef::col_major(n, k, &xv).unwrap();
                let mut yv = vec![3.0; m * k];
                spmm_csr5(exec, &c5.view(), 2.0, x, 0.5, &mut DenseMut::col_major(m, k, &mut yv).unwrap())
                    .unwrap();
                assert!(yv.iter().all(|&v| v == 1.5), "{isa} {m}x{n}, k {k}");
            }
        }
    }
}

/// `alpha == 0` reads neither `A` nor `X` (NaN in both cannot leak) and scales `Y` by
/// `beta`; `beta == 0` writes zeros over NaN; padding is never written.
#[test]
fn alpha_zero_reads_neither_a_nor_x_and_beta_zero_never_reads_y() {
    let a = CsrOwned::<f64, u32>::from_triplets(3, 2, &[(0, 0, f64::NAN), (2, 1, f64::NAN)]).unwrap();
    let c5 =
        Csr5Owned::from_csr_layout(&a.view(), &Csr5Layout::with_params(&a.view(), 1, 1).unwrap()).unwrap();
    let xv = [f64::NAN; 2 * 5];
    for isa in Isa::available() {
        for layout in [DenseLayout::RowMajor, DenseLayout::ColMajor] {
            let ld = if layout == DenseLayout::RowMajor { 6 } else { 4 };
            let inside = |p: usize| match layout {
                DenseLayout::RowMajor => p % 6 < 5 && p / 6 < 3,
                DenseLayout::ColMajor => p % 4 < 3 && p / 4 < 5,
            };
            let x = DenseRef::new(2, 5, 5, DenseLayout::RowMajor, &xv).unwrap();
            let mut yv = vec![2.0; 20];
            let mut y = DenseMut::new(3, 5, ld, layout, &mut yv).unwrap();
            spmm_csr5(Exec::from(isa), &c5.view(), 0.0, x, 0.5, &mut y).unwrap();
            for (p, &v) in yv.iter().enumerate() {
                assert_eq!(v, if inside(p) { 1.0 } else { 2.0 }, "{isa} {layout:?} at {p}");
            }
            let mut yv = vec![f64::NAN; 20];
            let mut y = DenseMut::new(3, 5, ld, layout, &mut yv).unwrap();
            spmm_csr5(Exec::from(isa), &c5.view(), 0.0, x, 0.0, &mut y).unwrap();
            assert!(yv.iter().enumerate().all(|(p, v)| !inside(p) || *v == 0.0), "{isa} {layout:?}");
        }
    }
    // `beta == 0` with finite `A` and `X`: NaN in `Y` never leaks, on rows with entries,
    // empty rows, and rows split between tiles.
    let b = matrix(30, 10, |i| if i % 4 == 0 { 0 } else { 1 + i % 6 });
    let c5 =
        Csr5Owned::from_csr_layout(&b.view(), &Csr5Layout::with_params(&b.view(), 2, 2).unwrap()).unwrap();
    for isa in Isa::available() {
        for k in [1usize, 4, 17] {
            let xv = vector::<f64>(10 * k, 3);
            let mut yv = vec![f64::NAN; 30 * k];
            let x = DenseRef::row_major(10, k, &xv).unwrap();
            spmm_csr5(
                Exec::from(isa),
                &c5.view(),
                1.0,
                x,
                0.0,
                &mut DenseMut::row_major(30, k, &mut yv).unwrap(),
            )
            .unwrap();
            assert!(yv.iter().all(|v| v.is_finite()), "{isa}, k {k}");
        }
    }
}

/// Wrong shapes, a short carry, tile ranges out of range, carries for rows past `Y` and an
/// unavailable `Isa` are errors that leave `Y` and the carry untouched.
#[test]
fn errors_leave_y_untouched() {
    let a = matrix(6, 5, |i| i % 4);
    let c5 =
        Csr5Owned::from_csr_layout(&a.view(), &Csr5Layout::with_params(&a.view(), 2, 2).unwrap()).unwrap();
    let c5 = c5.view();
    let xv = vec![1.0; 64];
    let mut yv = vec![7.0; 64];
    let x = DenseRef::row_major(5, 3, &xv).unwrap();
    let cases: [(DenseRef<'_, f64>, (usize, usize), &str); 3] = [
        (DenseRef::row_major(4, 3, &xv).unwrap(), (6, 3), "x.rows"),
        (x, (5, 3), "y.rows"),
        (x, (6, 4), "y.cols"),
    ];
    for (x, (m, k), operand) in cases {
        let mut y = DenseMut::row_major(m, k, &mut yv).unwrap();
        match spmm_csr5(Exec::new(), &c5, 1.0, x, 0.0, &mut y) {
            Err(DimError::Length { operand: o, .. }) => assert_eq!(o, operand),
            other => panic!("{operand}: {other:?}"),
        }
        assert!(yv.iter().all(|&v| v == 7.0));
    }
    let rows = owned_rows(&c5, 0..1).unwrap();
    let mut y = DenseMut::row_major(rows.len(), 3, &mut yv).unwrap();
    let mut carry = [9.0; 2];
    assert!(matches!(
        spmm_tiles(&c5, Isa::detect(), 0..1, 1.0, x, 0.0, &mut y, &mut carry),
        Err(DimError::BufferTooSmall { buffer: "carry", needed: 3, got: 2 })
    ));
    let mut carry = [9.0; 3];
    let n = c5.tiles() + 1;
    assert!(matches!(
        spmm_tiles(&c5, Isa::detect(), 0..n + 1, 1.0, x, 0.0, &mut y, &mut carry),
        Err(DimError::OutOfRange { operand: "tiles", .. })
    ));
    assert!(matches!(
        spmm_tiles(
            &c5,
            Isa::detect(),
            0..1,
            1.0,
            DenseRef::row_major(4, 3, &xv).unwrap(),
            0.0,
            &mut y,
            &mut carry
        ),
        Err(DimError::Length { operand: "x.rows", .. })
    ));
    assert!(carry.iter().all(|&v| v == 9.0) && yv.iter().all(|&v| v == 7.0));
    let mut y = DenseMut::row_major(6, 3, &mut yv).unwrap();
    assert!(matches!(
        apply_spmm_carry(6, &carry, &mut y),
        Err(DimError::Parameter { name: "carry.row", value: 6 })
    ));
    assert!(matches!(
        apply_spmm_carry(2, &carry[..2], &mut y),
        Err(DimError::BufferTooSmall { buffer: "carry", needed: 3, got: 2 })
    ));
    assert!(yv.iter().all(|&v| v == 7.0));
    for isa in Isa::ALL.into_iter().filter(|i| !i.is_available()) {
        let mut y = DenseMut::row_major(6, 3, &mut yv).unwrap();
        assert!(matches!(
            spmm_csr5(Exec::from(isa), &c5, 1.0, x, 0.0, &mut y),
            Err(DimError::IsaUnavailable { .. })
        ));
        assert!(yv.iter().all(|&v| v == 7.0));
    }
}

/// A plan multiplies by `k` vectors on the format it planned: CSR5 tiles, CSR5 column
/// panels, DIA's matrix by CSR rows, a CSR method; the view form too.
#[test]
fn planned_matrices_run_spmm_on_their_format() {
    let a = matrix(300, 200, |i| if i % 9 == 0 { 0 } else { 1 + (i * 7) % 13 });
    let a = a.view();
    let mut band = Vec::new();
    for i in 0..200usize {
        for j in i.saturating_sub(1)..(i + 2).min(200) {
            band.push((i, j, if i == j { 2.0 } else { -1.0 }));
        }
    }
    let band = CsrOwned::<f64, u32>::from_triplets(200, 200, &band).unwrap();
    let band = band.view();
    let cases: Vec<(Csr<'_, f64, u32>, SpmvChoice)> = vec![
        (a, SpmvChoice::Csr5),
        (a, SpmvChoice::Csr5Panels { columns: 48 }),
        (a, SpmvChoice::Csr(spblas::CsrMethod::RowScalar)),
        (band, SpmvChoice::Dia),
    ];
    for (m, choice) in cases {
        for k in [1usize, 8, 13] {
            let x = Block::<f64>::new(m.ncols(), k, 1, DenseLayout::RowMajor, 7);
            let y0 = Block::<f64>::new(m.nrows(), k, 0, DenseLayout::RowMajor, 8);
            for isa in Isa::available() {
                let plan =
                    SpmvPlan::with_config(Exec::from(isa), &m, SpmvConfig::new().choice(choice)).unwrap();
                assert_eq!(plan.choice(), choice);
                for threads in [1usize, 2] {
                    let mut y = y0.clone();
                    plan.spmm(Exec::new().threads(threads), 2.0, x.view(), 0.5, &mut y.view_mut()).unwrap();
                    assert_ref(&m, 2.0, &x, 0.5, &y0, &y)
                        .unwrap_or_else(|e| panic!("{choice} {isa} k {k}: {e}"));
                }
                // The same bits as the CSR5 SpMM on the plan's copy.
                if let Some(c) = plan.csr5() {
                    let (mut y, mut yc) = (y0.clone(), y0.clone());
                    plan.spmm(Exec::new(), 2.0, x.view(), 0.5, &mut y.view_mut()).unwrap();
                    spmm_csr5(Exec::from(isa), &c.view(), 2.0, x.view(), 0.5, &mut yc.view_mut()).unwrap();
                    assert!(y.data.iter().zip(&yc.data).all(|(p, q)| p.to_bits() == q.to_bits()));
                }
            }
        }
    }
    // The plan in caller buffers.
    for isa in Isa::available() {
        let layout = SpmvPlanLayout::with_choice(Exec::from(isa), &a, SpmvChoice::Csr5).unwrap();
        let (mut idx, mut vals, mut words) =
            (vec![0u32; layout.idx_len()], vec![0.0f64; layout.vals_len()], vec![0u32; layout.words_len()]);
        let plan = SpmvPlanView::from_buffers(&a, &layout, &mut idx, &mut vals, &mut words).unwrap();
        assert_eq!(plan.choice(), SpmvChoice::Csr5);
        let x = Block::<f64>::new(200, 9, 0, DenseLayout::RowMajor, 1);
        let y0 = Block::<f64>::new(300, 9, 0, DenseLayout::RowMajor, 2);
        let mut y = y0.clone();
        plan.spmm(Exec::new(), 1.0, x.view(), -1.0, &mut y.view_mut()).unwrap();
        assert_ref(&a, 1.0, &x, -1.0, &y0, &y).unwrap();
    }
}
