//! Sparse triangular solve (`level2::trsv`): every method against a dense forward/back
//! substitution on diagonally dominant triangular matrices (well conditioned, so the
//! tolerance can be tight), on every `Isa`, both precisions and three index types,
//! lower/upper, unit/non-unit, one and several right-hand sides, unsorted rows with
//! duplicates; every method and thread count equal to the substitution bit for bit; the
//! errors naming the row; the threaded methods inside pools of 1 and 3 busy threads.

mod common;

use common::splitmix;
use proptest::prelude::*;
use spblas::level2::{Diagonal, Triangle, TriangularSolve, TrsvMethod, check_triangular, trsm, trsv};
use spblas::{Csr, DimError, Exec, Index, Isa, Scalar};

/// The structures the issue asks for.
#[derive(Clone, Copy, Debug)]
enum Structure {
    /// Random entries in the triangle, about `density` per row.
    Random,
    /// Only the diagonal: every row independent (one level).
    DiagonalOnly,
    /// Bidiagonal: each row reads the one before it (`n` levels).
    Chain,
    /// The last row (lower; the first, upper) full, the others diagonal.
    OneDenseRow,
}

/// A triangular test matrix: CSR arrays (rows possibly unsorted, with duplicates) and the
/// dense matrix they hold, diagonal entries included as stored (for `n <= 1024`; empty
/// above).
#[derive(Clone, Debug)]
struct Tri<T, I> {
    n: usize,
    row_ptr: Vec<I>,
    col_idx: Vec<I>,
    vals: Vec<T>,
    dense: Vec<f64>,
}

impl<T: Scalar, I: Index> Tri<T, I> {
    fn view(&self) -> Csr<'_, T, I> {
        Csr::new(self.n, self.n, &self.row_ptr, &self.col_idx, &self.vals).unwrap()
    }
}

fn ix<I: Index>(i: usize) -> I {
    I::from_usize(i).unwrap()
}

/// A diagonally dominant triangular matrix: off-diagonal values in `[-1, 1]` (halves),
/// the diagonal `±(1 + sum |off|)` — split in two duplicate entries in some rows, and
/// stored even where the solve is asked for a unit diagonal (where it must be ignored).
/// `shuffle` reverses and rotates rows so they are unsorted.
fn triangular<T: Scalar, I: Index>(
    n: usize,
    triangle: Triangle,
    structure: Structure,
    density: usize,
    shuffle: bool,
    seed: u64,
) -> Tri<T, I> {
    let mut row_ptr = vec![ix::<I>(0)];
    // The dense copy only where a reference will use it.
    let keep_dense = n <= 1024;
    let (mut col_idx, mut vals) = (Vec::new(), Vec::new());
    let mut dense = vec![0.0f64; if keep_dense { n * n } else { 0 }];
    for i in 0..n {
        let h = |k: u64| splitmix(seed ^ (i as u64).wrapping_mul(0x9E37_79B9) ^ k.wrapping_mul(0x51_7CC1));
        let mut row: Vec<(usize, f64)> = Vec::new();
        let others = match triangle {
            Triangle::Lower => 0..i,
            Triangle::Upper => i + 1..n,
        };
        match structure {
            Structure::Random if !others.is_empty() => {
                for k in 0..(h(1) as usize % (2 * density + 1)) {
                    let j = others.start + h(10 + k as u64) as usize % others.len();
                    row.push((j, ((h(100 + k as u64) % 5) as f64 - 2.0) * 0.5));
                }
            }
            Structure::Chain => match triangle {
                Triangle::Lower if i > 0 => row.push((i - 1, -0.5)),
                Triangle::Upper if i + 1 < n => row.push((i + 1, -0.5)),
                _ => {}
            },
            Structure::OneDenseRow => {
                let dense_row = match triangle {
                    Triangle::Lower => n - 1,
                    Triangle::Upper => 0,
                };
                if i == dense_row {
                    row.extend(others.clone().map(|j| (j, if j % 2 == 0 { 0.5 } else { -1.0 })));
                }
            }
            _ => {}
        }
        let off: f64 = row.iter().map(|(_, v)| v.abs()).sum();
        let d = (1.0 + off) * if h(2) % 3 == 0 { -1.0 } else { 1.0 };
        if h(3) % 4 == 0 {
            // Two diagonal entries adding up to `d` (exact in f32: halves and small sums).
            row.push((i, d - 0.5));
            row.push((i, 0.5));
        } else {
            row.push((i, d));
        }
        if shuffle {
            row.reverse();
            let len = row.len();
            row.rotate_left(h(4) as usize % len);
        }
        for (j, v) in row {
            let v = T::from_f64(v);
            col_idx.push(ix::<I>(j));
            vals.push(v);
            if keep_dense {
                dense[i * n + j] += v.to_f64();
            }
        }
        row_ptr.push(ix::<I>(col_idx.len()));
    }
    Tri { n, row_ptr, col_idx, vals, dense }
}

/// Dense substitution in `f64`: `X = alpha * A⁻¹ B` (row-major, `k` columns), the
/// diagonal taken as ones where `unit`.
fn reference(
    dense: &[f64],
    n: usize,
    triangle: Triangle,
    unit: bool,
    alpha: f64,
    b: &[f64],
    k: usize,
) -> Vec<f64> {
    let mut x = vec![0.0; n * k];
    for t in 0..n {
        let i = match triangle {
            Triangle::Lower => t,
            Triangle::Upper => n - 1 - t,
        };
        for c in 0..k {
            let mut s = alpha * b[i * k + c];
            for j in 0..n {
                if j != i {
                    s -= dense[i * n + j] * x[j * k + c];
                }
            }
            x[i * k + c] = if unit { s } else { s / dense[i * n + i] };
        }
    }
    x
}

fn rhs<T: Scalar>(len: usize, seed: u64) -> Vec<T> {
    (0..len).map(|i| T::from_f64(((splitmix(seed ^ i as u64) % 17) as f64 - 8.0) * 0.25)).collect()
}

fn same<T: Scalar>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(p, q)| p.to_f64().to_bits() == q.to_f64().to_bits())
}

/// Checks `got` against the reference: diagonal dominance keeps the solution's error
/// within a small multiple of `n` roundings of its largest component.
fn close<T: Scalar>(got: &[T], want: &[f64], n: usize) -> Result<(), TestCaseError> {
    prop_assert_eq!(got.len(), want.len());
    let scale = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    let tol = 16.0 * (n as f64 + 2.0) * T::EPSILON.to_f64() * scale;
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let err = (g.to_f64() - w).abs();
        prop_assert!(err <= tol, "component {}: got {} want {} (err {}, tol {})", i, g, w, err, tol);
    }
    Ok(())
}

fn structure() -> impl Strategy<Value = Structure> {
    prop_oneof![
        5 => Just(Structure::Random),
        1 => Just(Structure::DiagonalOnly),
        1 => Just(Structure::Chain),
        1 => Just(Structure::OneDenseRow),
    ]
}

fn triangle() -> impl Strategy<Value = Triangle> {
    prop_oneof![Just(Triangle::Lower), Just(Triangle::Upper)]
}

fn diagonal() -> impl Strategy<Value = Diagonal> {
    prop_oneof![Just(Diagonal::NonUnit), Just(Diagonal::Unit)]
}

/// Every serial form (one-shot, analysed, level order; `trsv` per column and `trsm` for
/// all) on every `Isa` against the reference, and all of them equal bit for bit.
#[allow(clippy::too_many_arguments)]
fn serial_check<T: Scalar, I: Index>(
    n: usize,
    tri: Triangle,
    diag: Diagonal,
    st: Structure,
    density: usize,
    shuffle: bool,
    k: usize,
    alpha: f64,
    seed: u64,
) -> Result<(), TestCaseError> {
    let m = triangular::<T, I>(n, tri, st, density, shuffle, seed);
    let a = m.view();
    let b = rhs::<T>(n * k, seed.wrapping_add(7));
    let b64: Vec<f64> = b.iter().map(|v| v.to_f64()).collect();
    let alpha_t = T::from_f64(alpha);
    let want = reference(&m.dense, n, tri, diag == Diagonal::Unit, alpha_t.to_f64(), &b64, k);
    let mut first: Option<Vec<T>> = None;
    for isa in Isa::available() {
        let e = Exec::from(isa);
        let mut x = b.clone();
        trsm(e, &a, tri, diag, alpha_t, &mut x, k).unwrap();
        close(&x, &want, n)?;
        let mut ws = vec![usize::MAX; TriangularSolve::<T, I>::levels_len(n)];
        let s = TriangularSolve::analyse_levels(e, &a, tri, diag, &mut ws).unwrap();
        for method in [TrsvMethod::Substitution, TrsvMethod::LevelSet, TrsvMethod::SyncFree] {
            let mut y = b.clone();
            s.solve_with(e, method, alpha_t, &mut y, k).unwrap();
            prop_assert!(same(&x, &y), "{} on {}", method.name(), isa);
        }
        // Each column alone by `trsv`: the bits of `trsm`'s column.
        for c in 0..k {
            let mut col: Vec<T> = (0..n).map(|i| b[i * k + c]).collect();
            trsv(e, &a, tri, diag, alpha_t, &mut col).unwrap();
            let of_trsm: Vec<T> = (0..n).map(|i| x[i * k + c]).collect();
            prop_assert!(same(&col, &of_trsm), "column {} on {}", c, isa);
        }
        match &first {
            None => first = Some(x),
            Some(f) => prop_assert!(same(f, &x), "{} differs from the first Isa", isa),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::common::cases(64)))]

    #[test]
    fn serial_solves_match_dense_substitution_f64_u32(
        n in 0usize..=24, tri in triangle(), diag in diagonal(), st in structure(), density in 0usize..4,
        shuffle in any::<bool>(), k in prop_oneof![Just(1usize), Just(3), Just(11)],
        alpha in prop_oneof![Just(1.0), Just(-2.5), Just(0.0)], seed in any::<u64>(),
    ) {
        serial_check::<f64, u32>(n, tri, diag, st, density, shuffle, k, alpha, seed)?;
    }

    #[test]
    fn serial_solves_match_dense_substitution_f32_u16(
        n in 0usize..=24, tri in triangle(), diag in diagonal(), st in structure(), density in 0usize..4,
        shuffle in any::<bool>(), k in prop_oneof![Just(1usize), Just(2), Just(9)],
        alpha in prop_oneof![Just(1.0), Just(0.5)], seed in any::<u64>(),
    ) {
        serial_check::<f32, u16>(n, tri, diag, st, density, shuffle, k, alpha, seed)?;
    }

    #[test]
    fn serial_solves_match_dense_substitution_f64_usize(
        n in 0usize..=16, tri in triangle(), diag in diagonal(), st in structure(), density in 0usize..3,
        shuffle in any::<bool>(), seed in any::<u64>(),
    ) {
        serial_check::<f64, usize>(n, tri, diag, st, density, shuffle, 1, 1.0, seed)?;
    }
}

#[test]
fn the_check_can_fail() {
    // A wrong answer is caught: the solution of another right-hand side.
    let m = triangular::<f64, u32>(8, Triangle::Lower, Structure::Random, 2, false, 3);
    let b = rhs::<f64>(8, 1);
    let b64: Vec<f64> = b.iter().map(|v| v + 1.0).collect();
    let want = reference(&m.dense, 8, Triangle::Lower, false, 1.0, &b64, 1);
    let mut x = b.clone();
    trsv(Exec::new(), &m.view(), Triangle::Lower, Diagonal::NonUnit, 1.0, &mut x).unwrap();
    assert!(close(&x, &want, 8).is_err());
}

#[cfg(feature = "parallel")]
mod threaded {
    use super::*;
    use std::sync::OnceLock;

    /// A pool of 9 threads, so counts up to 8 split the work that many ways.
    fn wide<R: Send>(f: impl FnOnce() -> R + Send) -> R {
        static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
        match POOL.get_or_init(|| rayon::ThreadPoolBuilder::new().num_threads(9).build().ok()) {
            Some(pool) => pool.install(f),
            None => f(),
        }
    }

    /// The threaded level-set and sync-free solves of a matrix large enough to fork (levels
    /// of hundreds of rows for `Random` and `DiagonalOnly`, one row per level for `Chain`)
    /// equal the substitution bit for bit, on 1 to 8 threads.
    fn threaded_check<T: Scalar + Send + Sync, I: Index + Send + Sync>(
        n: usize,
        tri: Triangle,
        diag: Diagonal,
        st: Structure,
        k: usize,
        seed: u64,
    ) -> Result<(), TestCaseError> {
        let m = triangular::<T, I>(n, tri, st, 2, true, seed);
        let a = m.view();
        let b = rhs::<T>(n * k, seed ^ 5);
        let mut ws = vec![0usize; TriangularSolve::<T, I>::levels_len(n)];
        let s = TriangularSolve::analyse_levels(Exec::new(), &a, tri, diag, &mut ws).unwrap();
        let alpha = T::from_f64(-1.5);
        let mut want = b.clone();
        s.solve_with(Exec::new(), TrsvMethod::Substitution, alpha, &mut want, k).unwrap();
        let b64: Vec<f64> = b.iter().map(|v| v.to_f64()).collect();
        close(&want, &reference(&m.dense, n, tri, diag == Diagonal::Unit, -1.5, &b64, k), n)?;
        for threads in 1..=8 {
            for method in [TrsvMethod::LevelSet, TrsvMethod::SyncFree] {
                let mut x = b.clone();
                wide(|| s.solve_with(Exec::new().threads(threads), method, alpha, &mut x, k)).unwrap();
                prop_assert!(same(&x, &want), "{} on {} threads", method.name(), threads);
            }
            let mut x = b.clone();
            wide(|| trsm(Exec::new().threads(threads), &a, tri, diag, alpha, &mut x, k)).unwrap();
            prop_assert!(same(&x, &want), "trsm on {} threads", threads);
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::common::cases(16)))]

        #[test]
        fn threaded_solves_equal_the_substitution_bitwise_f64(
            n in 100usize..600, tri in triangle(), diag in diagonal(), st in structure(),
            k in prop_oneof![Just(1usize), Just(3)], seed in any::<u64>(),
        ) {
            threaded_check::<f64, u32>(n, tri, diag, st, k, seed)?;
        }

        #[test]
        fn threaded_solves_equal_the_substitution_bitwise_f32(
            n in 100usize..400, tri in triangle(), diag in diagonal(), st in structure(), seed in any::<u64>(),
        ) {
            threaded_check::<f32, u16>(n, tri, diag, st, 1, seed)?;
        }
    }

    /// Deadlock freedom: asked for 8 threads inside pools of 1 and 3 threads, and in the
    /// pool of 3 from many solves at once (the pool busy, so spawned tasks start late or
    /// not until the caller's task is done), every solve finishes with the serial bits.
    /// Levels wide enough for the level-set method to fork (past
    /// `TUNING.trsv_level_work`): a third of the rows read nothing, so level 0 alone holds
    /// several tasks' share; and the diagonal alone, one level of `n` rows. Both threaded
    /// methods equal the substitution bit for bit on 2 to 8 threads.
    #[test]
    fn wide_levels_split_between_tasks() {
        let n = 3 * spblas::TUNING.trsv_level_work;
        for (st, k) in [(Structure::Random, 1), (Structure::DiagonalOnly, 1), (Structure::Random, 2)] {
            let m = triangular::<f64, u32>(n, Triangle::Lower, st, 1, true, 21);
            let a = m.view();
            let b = rhs::<f64>(n * k, 4);
            let mut ws = vec![0usize; TriangularSolve::<f64, u32>::levels_len(n)];
            let s =
                TriangularSolve::analyse_levels(Exec::new(), &a, Triangle::Lower, Diagonal::NonUnit, &mut ws)
                    .unwrap();
            let mut want = b.clone();
            s.solve_with(Exec::new(), TrsvMethod::Substitution, 2.0, &mut want, k).unwrap();
            for threads in [2, 3, 8] {
                for method in [TrsvMethod::LevelSet, TrsvMethod::SyncFree] {
                    let mut x = b.clone();
                    wide(|| s.solve_with(Exec::new().threads(threads), method, 2.0, &mut x, k)).unwrap();
                    assert!(same(&x, &want), "{} on {threads} threads, {st:?}", method.name());
                }
            }
        }
    }

    // WebAssembly without threads can start no pool (there the solves run serially, as
    // the tests above check).
    #[cfg(not(target_family = "wasm"))]
    #[test]
    fn threaded_solves_finish_in_small_and_busy_pools() {
        use rayon::prelude::*;
        let n = 3000;
        for (tri, st) in [(Triangle::Lower, Structure::Random), (Triangle::Upper, Structure::Chain)] {
            let m = triangular::<f64, u32>(n, tri, st, 3, true, 11);
            let a = m.view();
            let b = rhs::<f64>(n, 2);
            let mut ws = vec![0usize; TriangularSolve::<f64, u32>::levels_len(n)];
            let s =
                TriangularSolve::analyse_levels(Exec::new(), &a, tri, Diagonal::NonUnit, &mut ws).unwrap();
            let mut want = b.clone();
            s.solve_with(Exec::new(), TrsvMethod::Substitution, 1.0, &mut want, 1).unwrap();
            for size in [1, 3] {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(size).build().unwrap();
                pool.install(|| {
                    (0..12usize).into_par_iter().for_each(|r| {
                        let method = if r % 2 == 0 { TrsvMethod::SyncFree } else { TrsvMethod::LevelSet };
                        let mut x = b.clone();
                        s.solve_with(Exec::new().threads(8), method, 1.0, &mut x, 1).unwrap();
                        assert!(same(&x, &want), "{} in a pool of {size}", method.name());
                    });
                });
            }
            // From outside any pool (the global pool), with `threads(0)`.
            let mut x = b.clone();
            s.solve_with(Exec::new().threads(0), TrsvMethod::SyncFree, 1.0, &mut x, 1).unwrap();
            assert!(same(&x, &want));
        }
    }
}

/// Builds a CSR view of `rows` (`(col, val)` lists in the given order).
fn raw(n: usize, ncols: usize, rows: &[&[(u32, f64)]]) -> (Vec<u32>, Vec<u32>, Vec<f64>, usize, usize) {
    let mut rp = vec![0u32];
    let (mut ci, mut v) = (Vec::new(), Vec::new());
    for r in rows {
        for &(c, x) in *r {
            ci.push(c);
            v.push(x);
        }
        rp.push(ci.len() as u32);
    }
    (rp, ci, v, n, ncols)
}

#[test]
fn errors_name_the_row_and_leave_x_alone() {
    use Diagonal::*;
    use Triangle::*;
    let solve = |rows: &[&[(u32, f64)]], ncols: usize, tri, diag, xlen: usize| {
        let (rp, ci, v, n, nc) = raw(rows.len(), ncols, rows);
        let a = Csr::new(n, nc, &rp, &ci, &v).unwrap();
        let mut x = vec![7.0; xlen];
        let r = trsv(Exec::new(), &a, tri, diag, 1.0, &mut x);
        assert!(r.is_ok() || x.iter().all(|&v| v == 7.0), "x written on error");
        let analysed = TriangularSolve::analyse(Exec::new(), &a, tri, diag).map(|_| ());
        (r, analysed)
    };
    // Not square.
    let (r, s) = solve(&[&[(0, 1.0)], &[(1, 1.0)]], 3, Lower, NonUnit, 2);
    assert_eq!(r, Err(DimError::NotSquare { nrows: 2, ncols: 3 }));
    assert_eq!(s, r);
    // An entry above the diagonal of a lower solve, and below for an upper one.
    let rows: &[&[(u32, f64)]] = &[&[(0, 1.0)], &[(1, 1.0), (2, 3.0)], &[(2, 1.0)]];
    assert_eq!(solve(rows, 3, Lower, NonUnit, 3).0, Err(DimError::NotTriangular { row: 1, col: 2 }));
    assert_eq!(solve(rows, 3, Lower, Unit, 3).0, Err(DimError::NotTriangular { row: 1, col: 2 }));
    let rows: &[&[(u32, f64)]] = &[&[(0, 1.0)], &[(1, 1.0)], &[(2, 1.0), (0, 3.0)]];
    assert_eq!(solve(rows, 3, Upper, NonUnit, 3).1, Err(DimError::NotTriangular { row: 2, col: 0 }));
    // A missing diagonal; a zero one; duplicates adding up to zero.
    let rows: &[&[(u32, f64)]] = &[&[(0, 1.0)], &[(0, 2.0)], &[(2, 1.0)]];
    assert_eq!(solve(rows, 3, Lower, NonUnit, 3).0, Err(DimError::MissingDiagonal { row: 1 }));
    let rows: &[&[(u32, f64)]] = &[&[(0, 1.0)], &[(1, 1.0)], &[(2, 0.0), (1, 1.0)]];
    assert_eq!(solve(rows, 3, Lower, NonUnit, 3).0, Err(DimError::ZeroDiagonal { row: 2 }));
    let rows: &[&[(u32, f64)]] = &[&[(0, 2.0), (0, -2.0)]];
    assert_eq!(solve(rows, 1, Upper, NonUnit, 1).1, Err(DimError::ZeroDiagonal { row: 0 }));
    // With a unit diagonal, a missing or zero stored diagonal is fine (ignored).
    let rows: &[&[(u32, f64)]] = &[&[(0, 0.0)], &[(0, 2.0)]];
    assert_eq!(solve(rows, 2, Lower, Unit, 2).1, Ok(()));
    // Wrong length of x.
    let rows: &[&[(u32, f64)]] = &[&[(0, 1.0)], &[(1, 1.0)]];
    assert_eq!(
        solve(rows, 2, Lower, NonUnit, 3).0,
        Err(DimError::Length { operand: "x", expected: 2, got: 3 })
    );
}

#[test]
fn analysis_errors_and_solve_lengths() {
    let (rp, ci, v) = (vec![0u32, 1, 3], vec![0u32, 0, 1], vec![2.0f64, 1.0, 4.0]);
    let a = Csr::new(2, 2, &rp, &ci, &v).unwrap();
    let mut short = [0usize; 6];
    assert_eq!(
        TriangularSolve::analyse_levels(Exec::new(), &a, Triangle::Lower, Diagonal::NonUnit, &mut short)
            .err(),
        Some(DimError::BufferTooSmall { buffer: "workspace", needed: 7, got: 6 })
    );
    let s = TriangularSolve::analyse(Exec::new(), &a, Triangle::Lower, Diagonal::NonUnit).unwrap();
    assert_eq!(s.level_count(), None);
    let mut x = [2.0, 9.0, 1.0, 1.0];
    assert_eq!(
        s.solve_with(Exec::new(), TrsvMethod::LevelSet, 1.0, &mut x[..2], 1),
        Err(DimError::Parameter { name: "levels", value: 0 })
    );
    assert_eq!(
        s.solve(Exec::new(), 1.0, &mut x, 1),
        Err(DimError::Length { operand: "x", expected: 2, got: 4 })
    );
    assert_eq!(x, [2.0, 9.0, 1.0, 1.0]);
    // Two right-hand sides, row-major: [[2, 4], [9, 18]] -> [[1, 2], [2, 4]].
    let mut x = [2.0, 4.0, 9.0, 18.0];
    s.solve(Exec::new(), 1.0, &mut x, 2).unwrap();
    assert_eq!(x, [1.0, 2.0, 2.0, 4.0]);
    // nrhs = 0 with an empty x does nothing.
    s.solve(Exec::new(), 1.0, &mut [], 0).unwrap();
    for isa in [Isa::Portable, Isa::Avx2, Isa::Avx512, Isa::Neon] {
        if !isa.is_available() {
            let mut x = [2.0, 9.0];
            assert_eq!(s.solve(Exec::from(isa), 1.0, &mut x, 1), Err(DimError::IsaUnavailable { isa }));
        }
    }
}

#[test]
fn edge_shapes() {
    // 0 x 0: nothing to do, on every method; a 0 x n matrix is not square.
    let a = Csr::<f64, u32>::new(0, 0, &[0], &[], &[]).unwrap();
    let mut ws = [0usize; 1];
    let s = TriangularSolve::analyse_levels(Exec::new(), &a, Triangle::Lower, Diagonal::NonUnit, &mut ws)
        .unwrap();
    assert_eq!(s.level_count(), Some(0));
    for m in [TrsvMethod::Substitution, TrsvMethod::LevelSet, TrsvMethod::SyncFree] {
        s.solve_with(Exec::new().threads(4), m, 1.0, &mut [], 1).unwrap();
    }
    let a = Csr::<f64, u32>::new(0, 3, &[0], &[], &[]).unwrap();
    assert_eq!(
        trsv(Exec::new(), &a, Triangle::Upper, Diagonal::Unit, 1.0, &mut []),
        Err(DimError::NotSquare { nrows: 0, ncols: 3 })
    );
    let a = Csr::<f64, u32>::new(3, 0, &[0, 0, 0, 0], &[], &[]).unwrap();
    assert!(trsv(Exec::new(), &a, Triangle::Upper, Diagonal::Unit, 1.0, &mut [0.0; 3]).is_err());
    // 1 x 1.
    let a = Csr::<f32, u16>::new(1, 1, &[0, 1], &[0], &[4.0]).unwrap();
    let mut x = [2.0f32];
    trsv(Exec::new(), &a, Triangle::Upper, Diagonal::NonUnit, 1.0, &mut x).unwrap();
    assert_eq!(x, [0.5]);
    // alpha = 0: zeros, x not read (NaN does not leak), A not checked.
    let a = Csr::<f64, u32>::new(2, 2, &[0, 1, 2], &[1, 0], &[1.0, 1.0]).unwrap();
    let mut x = [f64::NAN; 2];
    trsv(Exec::new(), &a, Triangle::Lower, Diagonal::NonUnit, 0.0, &mut x).unwrap();
    assert_eq!(x, [0.0, 0.0]);
    // Unit diagonal with stored diagonal entries (ignored), unsorted row.
    let a = Csr::<f64, u32>::new(2, 2, &[0, 1, 3], &[0, 1, 0], &[5.0, 9.0, 2.0]).unwrap();
    let mut x = [1.0, 1.0];
    trsv(Exec::new(), &a, Triangle::Lower, Diagonal::Unit, 1.0, &mut x).unwrap();
    assert_eq!(x, [1.0, -1.0]);
    // Level counts: a chain has n levels, the diagonal alone one.
    for (st, levels) in [(Structure::Chain, 50), (Structure::DiagonalOnly, 1)] {
        let m = triangular::<f64, u32>(50, Triangle::Upper, st, 0, false, 1);
        let mut ws = vec![0usize; TriangularSolve::<f64, u32>::levels_len(50)];
        let s = TriangularSolve::analyse_levels(
            Exec::new(),
            &m.view(),
            Triangle::Upper,
            Diagonal::NonUnit,
            &mut ws,
        )
        .unwrap();
        assert_eq!(s.level_count(), Some(levels));
    }
}

/// Strictly increasing rows take a shorter check and solve (the diagonal at the row's
/// edge): on every 3 × 3 pattern of absent, zero and non-zero entries, both agree with
/// the entry-by-entry forms run on the same rows stored in reverse (unsorted) order —
/// the same error and row, or the same solution (small integers: exact sums).
#[test]
fn canonical_rows_check_and_solve_as_unsorted_ones() {
    use Diagonal::*;
    use Triangle::*;
    let n = 3;
    for code in 0..3usize.pow(9) {
        let mut rows: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
        let mut c = code;
        for (k, row) in (0..n * n).map(|k| (k, k / n)) {
            match c % 3 {
                1 => rows[row].push(((k % n) as u32, 0.0)),
                2 => rows[row].push(((k % n) as u32, 1.0 + (k % 2) as f64)),
                _ => {}
            }
            c /= 3;
        }
        let fwd: Vec<&[(u32, f64)]> = rows.iter().map(|r| r.as_slice()).collect();
        let rev_rows: Vec<Vec<(u32, f64)>> = rows.iter().map(|r| r.iter().rev().copied().collect()).collect();
        let rev: Vec<&[(u32, f64)]> = rev_rows.iter().map(|r| r.as_slice()).collect();
        let (rp, ci, v, _, _) = raw(n, n, &fwd);
        let (rp2, ci2, v2, _, _) = raw(n, n, &rev);
        let a = Csr::new(n, n, &rp, &ci, &v).unwrap();
        let b = Csr::new(n, n, &rp2, &ci2, &v2).unwrap();
        assert_eq!(a.row_order(), spblas::RowOrder::Canonical);
        for tri in [Lower, Upper] {
            for diag in [NonUnit, Unit] {
                let (ra, rb) = (check_triangular(&a, tri, diag), check_triangular(&b, tri, diag));
                let row_of = |r: &Result<(), DimError>| match r {
                    Ok(()) => None,
                    Err(DimError::NotTriangular { row, .. }) => Some((0, *row)),
                    Err(DimError::MissingDiagonal { row }) => Some((1, *row)),
                    Err(DimError::ZeroDiagonal { row }) => Some((2, *row)),
                    Err(e) => panic!("unexpected {e:?}"),
                };
                assert_eq!(row_of(&ra), row_of(&rb), "pattern {code}, {tri:?}, {diag:?}");
                if let Err(DimError::NotTriangular { row, col }) = ra {
                    // The first entry outside the triangle in storage order.
                    let want = rows[row].iter().map(|e| e.0 as usize).find(|&j| match tri {
                        Lower => j > row,
                        Upper => j < row,
                    });
                    assert_eq!(Some(col), want, "pattern {code}");
                }
                if ra.is_ok() {
                    let (mut xa, mut xb) = (vec![1.0, 2.0, 3.0], vec![1.0, 2.0, 3.0]);
                    trsv(Exec::new(), &a, tri, diag, 2.0, &mut xa).unwrap();
                    trsv(Exec::new(), &b, tri, diag, 2.0, &mut xb).unwrap();
                    assert_eq!(xa, xb, "pattern {code}, {tri:?}, {diag:?}");
                }
            }
        }
    }
}
