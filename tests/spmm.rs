//! CSR SpMM (`Y = alpha * A * X + beta * Y`, dense `X`, `Y` of `k` columns): every
//! available `Isa`, f32/f64, u16/u32/u64/usize indices, both layouts of `X` and `Y` with
//! padded leading dimensions, against a dense reference; BLAS edge cases, errors, threads
//! and agreement with SpMV at `k = 1`.

mod common;

use common::dense::{Block, layout};
use common::{RawCsr, csr, scalars, splitmix, vector};
use proptest::prelude::*;
use spblas::level2::spmm_csr;
use spblas::{CsrOwned, DenseLayout, DenseMut, DenseRef, DimError, Exec, Index, Isa, Scalar, SpMm, SpMv};

/// Checks `Y` against the dense reference `alpha * A * X + beta * Y0` in f64, each element
/// within `(max row length + 3) * eps` of `Σ |alpha a_ij x_jc| + |beta y_ic|`.
fn assert_spmm<T: Scalar, I: Index>(
    a: &spblas::Csr<'_, T, I>,
    alpha: T,
    x: &Block<T>,
    beta: T,
    y0: &Block<T>,
    y: &Block<T>,
) -> Result<(), TestCaseError> {
    let (m, k) = (a.nrows(), x.cols);
    let mut acc = vec![0.0f64; m * k];
    let mut mag = vec![0.0f64; m * k];
    let al = alpha.to_f64();
    for (i, j, v) in a.iter() {
        for c in 0..k {
            let p = v.to_f64() * x.at(j, c).to_f64();
            acc[i * k + c] += p;
            mag[i * k + c] += (al * p).abs();
        }
    }
    let (b, eps) = (beta.to_f64(), T::EPSILON.to_f64());
    let factor = (a.max_row_len() + 3) as f64;
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

/// One case: SpMM on every `Isa` (serially and, with `parallel`, on three tasks, which must
/// give the serial bits) against the reference; `Y` starts as NaN when `beta == 0`.
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
        for i in 0..y0.rows {
            for c in 0..k {
                let p = y0.pos(i, c);
                y0.data[p] = T::from_f64(f64::NAN);
            }
        }
    }
    for isa in Isa::available() {
        let mut y = y0.clone();
        a.spmm(Exec::from(isa), alpha, x.view(), beta, &mut y.view_mut()).unwrap();
        assert_spmm(&a, alpha, &x, beta, &y0, &y).map_err(|e| TestCaseError::fail(format!("{isa}: {e}")))?;
        #[cfg(feature = "parallel")]
        {
            let mut yt = y0.clone();
            spmm_csr(Exec::from(isa).threads(3), &a, alpha, x.view(), beta, &mut yt.view_mut()).unwrap();
            let same = yt.data.iter().zip(&y.data).all(|(p, q)| p.to_f64().to_bits() == q.to_f64().to_bits());
            prop_assert!(same, "{isa}: three tasks differ from one");
        }
    }
    Ok(())
}

/// `k` from 1 to 64, often at the edges of register tiles.
fn columns() -> impl Strategy<Value = usize> {
    prop_oneof![
        2 => prop::sample::select(vec![1usize, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64]),
        1 => 1usize..=64,
    ]
}

macro_rules! spmm_props {
    ($($name:ident: $t:ty, $i:ty;)*) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(crate::common::cases(48)))]
            $(
                #[test]
                fn $name(
                    raw in csr::<$t, $i>(20, 10, false),
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

spmm_props! {
    spmm_f64_u32_matches_dense_reference_on_every_isa: f64, u32;
    spmm_f64_u16_matches_dense_reference_on_every_isa: f64, u16;
    spmm_f64_usize_matches_dense_reference_on_every_isa: f64, usize;
    spmm_f32_u32_matches_dense_reference_on_every_isa: f32, u32;
    spmm_f32_u64_matches_dense_reference_on_every_isa: f32, u64;
    spmm_f32_u16_matches_dense_reference_on_every_isa: f32, u16;
}

/// A matrix of `m × n` with rows of `(i * 7) % 13` entries, one dense row, and unsorted
/// rows.
fn sample(m: usize, n: usize) -> CsrOwned<f64, u32> {
    let mut t = Vec::new();
    for i in 0..m {
        let len = if i == m / 2 { n } else { (i * 7) % 13 };
        for q in 0..len.min(n) {
            let j = if i == m / 2 { q } else { (splitmix((i * 31 + q) as u64) % n as u64) as usize };
            t.push((i, j, ((i * 5 + q * 3) % 11) as f64 - 5.0));
        }
    }
    CsrOwned::from_triplets(m, n, &t).unwrap()
}

/// At `k = 1`, SpMM is SpMV (within rounding) on every `Isa` and layout.
#[test]
fn k_one_equals_spmv() {
    let a = sample(300, 200);
    let a = a.view();
    let xv = vector::<f64>(200, 3);
    let y0 = vector::<f64>(300, 4);
    for isa in Isa::available() {
        let mut want = y0.clone();
        a.spmv(Exec::from(isa), 1.5, &xv, -0.5, &mut want).unwrap();
        for layout in [DenseLayout::RowMajor, DenseLayout::ColMajor] {
            let (ldx, ldy) = if layout == DenseLayout::RowMajor { (1, 1) } else { (200, 300) };
            let x = DenseRef::new(200, 1, ldx, layout, &xv).unwrap();
            let mut yv = y0.clone();
            let mut y = DenseMut::new(300, 1, ldy, layout, &mut yv).unwrap();
            a.spmm(Exec::from(isa), 1.5, x, -0.5, &mut y).unwrap();
            for (p, q) in yv.iter().zip(&want) {
                assert!((p - q).abs() <= 1e-12 * (1.0 + q.abs()), "{isa} {layout:?}: {p} vs {q}");
            }
        }
    }
}

/// `alpha == 0` reads neither `A` nor `X` (NaN in both cannot leak) and scales `Y` by
/// `beta`; `beta == 0` with it writes zeros over NaN. Padding is never written.
#[test]
fn alpha_zero_reads_neither_a_nor_x() {
    let a = CsrOwned::<f64, u32>::from_triplets(3, 2, &[(0, 0, f64::NAN), (2, 1, f64::NAN)]).unwrap();
    let xv = [f64::NAN; 2 * 5];
    for isa in Isa::available() {
        for layout in [DenseLayout::RowMajor, DenseLayout::ColMajor] {
            let ld = if layout == DenseLayout::RowMajor { 6 } else { 4 };
            let x = DenseRef::new(2, 5, 5, DenseLayout::RowMajor, &xv).unwrap();
            let mut yv = vec![2.0; 20];
            let mut y = DenseMut::new(3, 5, ld, layout, &mut yv).unwrap();
            spmm_csr(Exec::from(isa), &a.view(), 0.0, x, 0.5, &mut y).unwrap();
            let inside = |p: usize| match layout {
                DenseLayout::RowMajor => p % 6 < 5 && p / 6 < 3,
                DenseLayout::ColMajor => p % 4 < 3 && p / 4 < 5,
            };
            for (p, &v) in yv.iter().enumerate() {
                assert_eq!(v, if inside(p) { 1.0 } else { 2.0 }, "{isa} {layout:?} at {p}");
            }
            let mut yv = vec![f64::NAN; 20];
            let mut y = DenseMut::new(3, 5, ld, layout, &mut yv).unwrap();
            spmm_csr(Exec::from(isa), &a.view(), 0.0, x, 0.0, &mut y).unwrap();
            assert!(yv.iter().enumerate().all(|(p, v)| !inside(p) || *v == 0.0), "{isa} {layout:?}");
        }
    }
}

/// Empty shapes: 0 × 0, 0 × n, n × 0 and `k = 0` run and leave `Y` as BLAS says.
#[test]
fn empty_shapes() {
    for isa in Isa::available() {
        for (m, n, k) in [(0, 0, 3), (0, 4, 3), (4, 0, 3), (4, 4, 0), (0, 0, 0)] {
            let a = CsrOwned::<f64, u32>::from_triplets(m, n, &[]).unwrap();
            let xv = vec![1.0; n * k];
            let mut yv = vec![f64::NAN; m * k];
            let x = DenseRef::row_major(n, k, &xv).unwrap();
            spmm_csr(
                Exec::from(isa),
                &a.view(),
                1.0,
                x,
                0.0,
                &mut DenseMut::row_major(m, k, &mut yv).unwrap(),
            )
            .unwrap();
            assert!(yv.iter().all(|&v| v == 0.0), "{isa} {m}x{n}, k {k}");
            let x = DenseRef::col_major(n, k, &xv).unwrap();
            let mut yv = vec![3.0; m * k];
            spmm_csr(
                Exec::from(isa),
                &a.view(),
                2.0,
                x,
                0.5,
                &mut DenseMut::col_major(m, k, &mut yv).unwrap(),
            )
            .unwrap();
            assert!(yv.iter().all(|&v| v == 1.5), "{isa} {m}x{n}, k {k}");
        }
    }
}

/// Wrong shapes are errors that leave `Y` untouched; blocks whose `ld` or slice is too
/// small are refused when built.
#[test]
fn wrong_shapes_are_errors() {
    let a = sample(6, 5);
    let a = a.view();
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
        match spmm_csr(Exec::new(), &a, 1.0, x, 0.0, &mut y) {
            Err(DimError::Length { operand: o, .. }) => assert_eq!(o, operand),
            other => panic!("{operand}: {other:?}"),
        }
        assert!(yv.iter().all(|&v| v == 7.0));
    }
    assert!(matches!(
        DenseRef::new(3, 4, 3, DenseLayout::RowMajor, &xv),
        Err(DimError::Parameter { name: "ld", value: 3 })
    ));
    assert!(matches!(
        DenseRef::new(4, 3, 3, DenseLayout::ColMajor, &xv),
        Err(DimError::Parameter { name: "ld", value: 3 })
    ));
    assert!(matches!(
        DenseMut::new(4, 4, 5, DenseLayout::RowMajor, &mut yv[..18]),
        Err(DimError::BufferTooSmall { needed: 19, got: 18, .. })
    ));
    assert!(matches!(
        DenseRef::new(2, usize::MAX / 2, usize::MAX / 2 + 1, DenseLayout::ColMajor, &xv),
        Err(DimError::Overflow { .. })
    ));
    // The exact length is enough.
    assert!(DenseMut::new(4, 4, 5, DenseLayout::RowMajor, &mut yv[..19]).is_ok());
}

/// An unavailable `Isa` is an error, `Y` untouched.
#[test]
fn unavailable_isa_is_an_error() {
    let a = sample(4, 4);
    let xv = vec![1.0; 8];
    let mut yv = vec![7.0; 8];
    for isa in Isa::ALL.into_iter().filter(|i| !i.is_available()) {
        let x = DenseRef::row_major(4, 2, &xv).unwrap();
        let r = spmm_csr(
            Exec::from(isa),
            &a.view(),
            1.0,
            x,
            0.0,
            &mut DenseMut::row_major(4, 2, &mut yv).unwrap(),
        );
        assert!(matches!(r, Err(DimError::IsaUnavailable { .. })));
        assert!(yv.iter().all(|&v| v == 7.0));
    }
}

/// One dense row of 300 entries among short rows, `k` past every tile width, and a larger
/// matrix split on many tasks: every `Isa` and thread count gives the serial result bit
/// for bit (rows are whole in one task), near the reference.
#[test]
fn threads_and_dense_row_agree_with_serial() {
    let a = sample(2000, 300);
    let a = a.view();
    for k in [1usize, 5, 8, 13, 40, 64] {
        for (lx, ly) in [
            (DenseLayout::RowMajor, DenseLayout::RowMajor),
            (DenseLayout::ColMajor, DenseLayout::ColMajor),
            (DenseLayout::RowMajor, DenseLayout::ColMajor),
        ] {
            let x = Block::<f64>::new(300, k, 1, lx, 9);
            let y0 = Block::<f64>::new(2000, k, 2, ly, 10);
            for isa in Isa::available() {
                let mut y = y0.clone();
                spmm_csr(Exec::from(isa), &a, -1.0, x.view(), 2.0, &mut y.view_mut()).unwrap();
                assert_spmm(&a, -1.0, &x, 2.0, &y0, &y).unwrap();
                for threads in [0usize, 2, 4, 7] {
                    let mut yt = y0.clone();
                    spmm_csr(Exec::from(isa).threads(threads), &a, -1.0, x.view(), 2.0, &mut yt.view_mut())
                        .unwrap();
                    assert!(
                        yt.data.iter().zip(&y.data).all(|(p, q)| p.to_bits() == q.to_bits()),
                        "{isa}, {threads} threads, k {k}"
                    );
                }
            }
        }
    }
}
