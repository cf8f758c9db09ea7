//! Target `trsv`: the triangular solves on an arbitrary small CSR matrix (unsorted rows,
//! duplicates, entries on either side of the diagonal, sometimes not square) and flags.
//! Never a panic: either the error a plain validator predicts (not square, the first entry
//! outside the triangle by row, a missing or zero diagonal), with `x` untouched, or the
//! solution of a plain substitution over the stored entries bit for bit, from the one-shot
//! `trsm`, the analysed solve by every method, on one thread and on the input's thread
//! count; where the solution is moderate, its residual against the dense matrix is within
//! rounding.

use arbitrary::{Arbitrary, Unstructured};
use spblas::level2::{Diagonal, Triangle, TriangularSolve, TrsvMethod, trsm};
use spblas::{Csr, DimError, Exec, Isa};

use crate::{Dense, Val};

#[derive(Debug, Arbitrary)]
pub struct Input {
    pub n: u8,
    /// Not square when odd (one more column).
    pub wide: u8,
    pub upper: bool,
    pub unit: bool,
    /// Move entries into the declared triangle (by swapping row and column), so most
    /// inputs solve.
    pub fold: bool,
    /// Add a diagonal entry `1 + row % 3` to every row.
    pub diagonal: bool,
    pub alpha: i8,
    pub nrhs: u8,
    pub threads: u8,
    pub isa: u8,
    pub entries: Vec<(u8, u8, Val)>,
}

/// Runs the target; returns 1 for an error checked, more for solutions compared.
pub fn run(data: &[u8]) -> usize {
    let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) else {
        return 0;
    };
    let n = usize::from(input.n % 24);
    let ncols = n + usize::from(input.wide % 8 == 7);
    let (triangle, diag) = (
        if input.upper { Triangle::Upper } else { Triangle::Lower },
        if input.unit { Diagonal::Unit } else { Diagonal::NonUnit },
    );
    // Entries grouped by row, in input order within a row.
    let mut rows: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    if n > 0 {
        for &(r, c, v) in input.entries.iter().take(200) {
            let (mut i, mut j) = (usize::from(r) % n, usize::from(c) % ncols);
            let outside = if input.upper { j < i } else { j > i };
            if input.fold && outside && j < n {
                (i, j) = (j, i);
            }
            rows[i].push((j, v.0));
        }
        if input.diagonal {
            for (i, row) in rows.iter_mut().enumerate() {
                row.push((i, 1.0 + (i % 3) as f64));
            }
        }
    }
    let mut rp = vec![0u32];
    let (mut ci, mut vals) = (Vec::new(), Vec::new());
    for row in &rows {
        for &(j, v) in row {
            ci.push(j as u32);
            vals.push(v);
        }
        rp.push(ci.len() as u32);
    }
    let a = Csr::new(n, ncols, &rp, &ci, &vals).expect("valid CSR");
    let k = usize::from(input.nrhs % 4);
    let alpha = f64::from(input.alpha % 4);
    let b: Vec<f64> = (0..n * k).map(|p| ((p * 7 + usize::from(input.n)) % 9) as f64 - 4.0).collect();
    let isas: Vec<Isa> = Isa::available().collect();
    let isa = isas[usize::from(input.isa) % isas.len()];
    let threads = usize::from(input.threads % 10);
    let (one, many) = (Exec::from(isa), Exec::from(isa).threads(threads));

    let expected = predict(&rows, n, ncols, triangle, diag);
    // The one-shot solve: the predicted error (alpha = 0 checks only the shape), or the bits.
    for e in [one, many] {
        let mut x = b.clone();
        let got = trsm(e, &a, triangle, diag, alpha, &mut x, k);
        match expected {
            Err(err @ DimError::NotSquare { .. }) => assert_eq!(got, Err(err)),
            Err(err) if alpha != 0.0 => assert_eq!(got, Err(err)),
            _ => {
                got.as_ref().expect("a valid solve");
                let want = if alpha == 0.0 {
                    vec![0.0; n * k]
                } else {
                    substitute(&rows, triangle, diag, alpha, &b, k)
                };
                assert!(bits(&x, &want), "trsm {x:?}, want {want:?}");
            }
        }
        if got.is_err() {
            assert!(bits(&x, &b), "x written on error");
        }
    }
    let mut ws = vec![0usize; TriangularSolve::<f64, u32>::levels_len(n)];
    let analysed = TriangularSolve::analyse_levels(one, &a, triangle, diag, &mut ws);
    let s = match (analysed, expected) {
        (Err(got), Err(want)) => {
            assert_eq!(got, want);
            return 1;
        }
        (Ok(s), Ok(())) => s,
        (got, want) => panic!("analysis {:?}, predicted {want:?}", got.map(|_| ())),
    };
    let want = substitute(&rows, triangle, diag, alpha, &b, k);
    let mut compared = 1;
    for e in [one, many] {
        for m in [TrsvMethod::Substitution, TrsvMethod::LevelSet, TrsvMethod::SyncFree] {
            let mut x = b.clone();
            s.solve_with(e, m, alpha, &mut x, k).expect("an analysed solve");
            assert!(bits(&x, &want), "{} on {threads} threads: {x:?}, want {want:?}", m.name());
            compared += 1;
        }
    }
    // Wrong length: an error, x untouched.
    let mut x = vec![5.0; n * k + 1];
    assert!(s.solve(many, alpha, &mut x, k).is_err());
    assert!(x.iter().all(|&v| v == 5.0));
    // The residual, where the solution is moderate (no overflow, little cancellation).
    if alpha != 0.0 && want.iter().all(|v| v.abs() < 1e6) {
        let dense = Dense::from_iter(
            n,
            n,
            rows.iter().enumerate().flat_map(|(i, r)| r.iter().map(move |&(j, v)| (i, j, v))),
        );
        for c in 0..k {
            for i in 0..n {
                let mut ax = 0.0f64;
                for j in 0..n {
                    let aij = if j == i && diag == Diagonal::Unit { 1.0 } else { dense.a[i * n + j] };
                    ax += aij * want[j * k + c];
                }
                // The bound is on the stored entries, duplicates apart: two that cancel in
                // the dense matrix still leave their rounding in the substitution's sum.
                let unit = if diag == Diagonal::Unit { want[i * k + c].abs() } else { 0.0 };
                let mag = rows[i]
                    .iter()
                    .filter(|&&(j, _)| j != i || diag == Diagonal::NonUnit)
                    .map(|&(j, v)| (v * want[j * k + c]).abs())
                    .sum::<f64>()
                    + unit;
                let rhs = alpha * b[i * k + c];
                let tol = 64.0 * (n as f64 + 1.0) * f64::EPSILON * (mag + rhs.abs());
                assert!((ax - rhs).abs() <= tol, "residual row {i}: {ax} vs {rhs}");
            }
        }
    }
    compared
}

/// The error a solve must return, by a plain reading of the rows: not square, then row by
/// row the first entry outside the triangle, then (non-unit) a missing or zero diagonal.
fn predict(
    rows: &[Vec<(usize, f64)>],
    n: usize,
    ncols: usize,
    t: Triangle,
    d: Diagonal,
) -> Result<(), DimError> {
    if ncols != n {
        return Err(DimError::NotSquare { nrows: n, ncols });
    }
    for (i, row) in rows.iter().enumerate() {
        if let Some(&(j, _)) = row.iter().find(|&&(j, _)| if t == Triangle::Upper { j < i } else { j > i }) {
            return Err(DimError::NotTriangular { row: i, col: j });
        }
        let diag: Vec<f64> = row.iter().filter(|&&(j, _)| j == i).map(|&(_, v)| v).collect();
        if d == Diagonal::NonUnit {
            if diag.is_empty() {
                return Err(DimError::MissingDiagonal { row: i });
            }
            if diag.iter().sum::<f64>() == 0.0 {
                return Err(DimError::ZeroDiagonal { row: i });
            }
        }
    }
    Ok(())
}

/// Plain substitution over the stored entries: `(alpha b_i - sum a_ij x_j) * (1 / sum a_ii)`,
/// the products subtracted in storage order (the documented operations of every method).
fn substitute(
    rows: &[Vec<(usize, f64)>],
    t: Triangle,
    d: Diagonal,
    alpha: f64,
    b: &[f64],
    k: usize,
) -> Vec<f64> {
    let n = rows.len();
    let mut x = b.to_vec();
    for s in 0..n {
        let i = if t == Triangle::Upper { n - 1 - s } else { s };
        for c in 0..k {
            let (mut acc, mut dii) = (alpha * b[i * k + c], 0.0);
            for &(j, v) in &rows[i] {
                if j == i {
                    dii += v;
                } else {
                    acc -= v * x[j * k + c];
                }
            }
            x[i * k + c] = if d == Diagonal::Unit { acc } else { acc * (1.0 / dii) };
        }
    }
    if alpha == 0.0 {
        x.fill(0.0);
    }
    x
}

/// Equal bits (NaN and infinities included: every method computes the same operations).
fn bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(p, q)| p.to_bits() == q.to_bits())
}
