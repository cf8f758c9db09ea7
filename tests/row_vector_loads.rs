//! The CSR row-vector kernels with `x` read by scalar loads ([`Gathers::Loads`]) on every
//! available x86-64 width: equal to the same kernels with hardware gathers (the same
//! lanes, so the same values; zeros may differ in sign) and to the dense reference, for
//! f32/f64 values and u32/u64 indices, short, long, unsorted and run-shaped rows. Its own
//! test binary: [`Gathers::set`] is process-wide.

mod common;

use common::{RawCsr, assert_close, csr, reference_spmv, scalars, vector};
use proptest::prelude::*;
use spblas::level2::{CsrMethod, spmv_csr};
use spblas::{Exec, Gathers, Index, Isa, Scalar};

/// Held while a test forces a [`Gathers`] mode.
static GATHERS_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// `y` by the row-vector method on `isa` with `x` read the `g` way (`y` NaN first when
/// `beta == 0`: it must not be read).
fn run<T: Scalar, I: Index>(
    isa: Isa,
    g: Gathers,
    raw: &RawCsr<T, I>,
    (alpha, beta): (T, T),
    x: &[T],
    y0: &[T],
) -> Vec<T> {
    let a = raw.owned();
    let mut y = y0.to_vec();
    if beta == T::ZERO {
        y.fill(T::from_f64(f64::NAN));
    }
    Gathers::set(Some(g));
    let r = spmv_csr(Exec::from(isa), &a.view(), CsrMethod::RowVector, alpha, x, beta, &mut y);
    Gathers::set(None);
    r.unwrap();
    y
}

/// Loads against gathers (equal values, NaN for NaN) and, when `x` is finite, against the
/// reference. `inf_at_0` puts `+inf` in `x[0]`: the lanes past a row's end read `x[0]`
/// when filled by loads and must still add nothing.
fn check<T: Scalar, I: Index>(
    raw: &RawCsr<T, I>,
    alpha: f64,
    beta: f64,
    seed: u64,
    inf_at_0: bool,
) -> Result<(), TestCaseError> {
    let _held = GATHERS_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let (alpha, beta) = (T::from_f64(alpha), T::from_f64(beta));
    let mut x = vector::<T>(raw.ncols, seed);
    if inf_at_0 && !x.is_empty() {
        x[0] = T::from_f64(f64::INFINITY);
    }
    let y0 = vector::<T>(raw.nrows, seed ^ 0x55);
    let a = raw.owned();
    let a = a.view();
    let (want, bound) = reference_spmv(a.nrows(), a.iter(), alpha, &x, beta, &y0);
    let factor = (a.max_row_len() + 3) as f64;
    for isa in Isa::available().filter(|i| matches!(i, Isa::Avx2 | Isa::Avx512)) {
        let hw = run(isa, Gathers::Hardware, raw, (alpha, beta), &x, &y0);
        let ld = run(isa, Gathers::Loads, raw, (alpha, beta), &x, &y0);
        for (i, (p, q)) in ld.iter().zip(&hw).enumerate() {
            #[allow(clippy::eq_op)]
            let same = p == q || (p != p && q != q);
            prop_assert!(same, "{isa}: row {i}: loads {p:?}, gathers {q:?}");
        }
        if !inf_at_0 {
            assert_close(&ld, &want, &bound, factor)
                .map_err(|e| TestCaseError::fail(format!("{isa}: {e}")))?;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn loads_equal_gathers_f64_u32(raw in csr::<f64, u32>(40, 40, false), (a, b) in scalars(), seed: u64, inf: bool) {
        check(&raw, a, b, seed, inf)?;
    }

    #[test]
    fn loads_equal_gathers_f64_u64(raw in csr::<f64, u64>(40, 40, true), (a, b) in scalars(), seed: u64, inf: bool) {
        check(&raw, a, b, seed, inf)?;
    }

    #[test]
    fn loads_equal_gathers_f32_u32(raw in csr::<f32, u32>(40, 70, false), (a, b) in scalars(), seed: u64, inf: bool) {
        check(&raw, a, b, seed, inf)?;
    }

    #[test]
    fn loads_equal_gathers_f32_u64(raw in csr::<f32, u64>(40, 40, true), (a, b) in scalars(), seed: u64, inf: bool) {
        check(&raw, a, b, seed, inf)?;
    }
}

/// Rows of every length from 0 to 70 over all of a small `x` (dense runs among them when
/// the columns are consecutive), loads against gathers and the reference.
#[test]
fn every_row_length() {
    fn rows<T: Scalar, I: Index>(consecutive: bool) -> RawCsr<T, I> {
        let (nrows, ncols) = (71usize, 80usize);
        let (mut row_ptr, mut col_idx, mut vals) = (vec![I::ZERO], Vec::new(), Vec::new());
        for len in 0..nrows {
            for k in 0..len {
                let c = if consecutive { k + len % 7 } else { (k * 37 + len * 11) % ncols };
                col_idx.push(I::from_usize(c).unwrap());
                vals.push(T::from_f64(((k % 9) as f64 - 4.0) * 0.5));
            }
            row_ptr.push(I::from_usize(col_idx.len()).unwrap());
        }
        RawCsr { nrows, ncols, row_ptr, col_idx, vals }
    }
    for consecutive in [false, true] {
        for inf in [false, true] {
            check(&rows::<f64, u32>(consecutive), 1.0, 0.0, 7, inf).unwrap();
            check(&rows::<f64, u64>(consecutive), -2.5, 0.5, 8, inf).unwrap();
            check(&rows::<f32, u32>(consecutive), 1.0, 1.0, 9, inf).unwrap();
            check(&rows::<f32, u64>(consecutive), 1.0, 0.0, 10, inf).unwrap();
        }
    }
}

/// Rows of one entry each, a register of them at a time on both widths: a column vector,
/// a diagonal ending at the last column of `x` and a permutation, with empty or
/// two-entry rows breaking some blocks; loads against gathers and the reference.
#[test]
fn one_entry_rows() {
    fn rows<T: Scalar>(m: usize, n: usize, col: impl Fn(usize) -> usize, odd: usize) -> RawCsr<T, u32> {
        let (mut row_ptr, mut col_idx, mut vals) = (vec![0u32], Vec::new(), Vec::new());
        for i in 0..m {
            let len = if i % 13 == odd {
                0
            } else if i % 11 == odd {
                2
            } else {
                1
            };
            let mut cols: Vec<usize> = (0..len).map(|k| (col(i) + k) % n).collect();
            cols.sort_unstable();
            cols.dedup();
            for c in cols {
                col_idx.push(c as u32);
                vals.push(T::from_f64(((i % 9) as f64 - 4.0) * 0.5 + 0.25));
            }
            row_ptr.push(col_idx.len() as u32);
        }
        RawCsr { nrows: m, ncols: n, row_ptr, col_idx, vals }
    }
    for m in [7usize, 8, 16, 17, 40, 203] {
        // `odd == 13`: no row breaks a block (`i % 13` and `i % 11` never reach it).
        for odd in [13, 5] {
            let column = |_| 0;
            let diagonal = |i| i + 3;
            let permutation = |i| (i * 7 + 3) % m;
            for inf in [false, true] {
                check(&rows::<f64>(m, 1, column, odd), 1.5, 0.0, 1, inf).unwrap();
                check(&rows::<f32>(m, 1, column, odd), 1.5, 0.75, 2, inf).unwrap();
                check(&rows::<f64>(m, m + 3, diagonal, odd), -1.0, 0.75, 3, inf).unwrap();
                check(&rows::<f32>(m, m + 3, diagonal, odd), 1.0, 0.0, 4, inf).unwrap();
                check(&rows::<f64>(m, m, permutation, odd), 2.0, 0.0, 5, inf).unwrap();
                check(&rows::<f32>(m, m, permutation, odd), 2.0, 1.0, 6, inf).unwrap();
            }
        }
    }
}
