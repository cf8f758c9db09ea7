//! Sparse triangular solve (`level2::trsv`) against same-run baselines, on every `Isa`
//! and both precisions.
//!
//! The matrix is `L`, the lower triangle of a suite matrix (its diagonal replaced by
//! `1 + sum |off-diagonal|`, so every solve stays finite), or of your files
//! (`SPBLAS_BENCH_MTX`, `benches/common/inputs.rs`; square ones only). Throughput is in
//! entries of `L`.
//!
//! - `trsv/<matrix>/<f32|f64>/spmv`: one SpMV `y = L x` (`Csr::spmv`, detected `Isa`, one
//!   thread): the same entries read without the chain of dependencies, the floor a solve
//!   is measured against.
//! - `.../plain`: the baseline, forward substitution as a plain loop (written here).
//! - `.../substitution/<isa>`: the analysed solve on one thread;
//!   `.../checked/<isa>`: `trsv`, its checks of `L` included.
//! - `.../level-set/2t`, `.../sync-free/2t`: the threaded methods on 2 threads.
//!
//! Each solve starts from a fresh copy of `b` (made outside the timing). The level count
//! of each `L` is printed to stderr.
//!
//! `SPBLAS_BENCH_SCALE=quick cargo bench --bench trsv --features gen,mtx,parallel`

use std::hint::black_box;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use spblas::level2::{Diagonal, Triangle, TriangularSolve, TrsvMethod, trsv};
use spblas::{Csr, CsrOwned, Exec, Isa, Scalar, SpMv};

#[path = "common/inputs.rs"]
mod inputs;

/// The suite matrices benched unless files are given: a 2D and a 3D stencil (levels along
/// the grid's wavefronts) and a random matrix (few, wide levels).
const SUITE: [&str; 3] = ["poisson2d", "poisson3d_27", "uniform_random"];

/// The lower triangle of `a` with a dominant diagonal.
fn lower<T: Scalar>(a: &Csr<'_, T, u32>) -> CsrOwned<T, u32> {
    let mut t = Vec::with_capacity(a.nnz() / 2 + a.nrows());
    for i in 0..a.nrows() {
        let (cols, vals) = a.row(i).unwrap();
        let mut off = 0.0f64;
        for (&j, &v) in cols.iter().zip(vals) {
            if (j as usize) < i {
                t.push((i, j as usize, v));
                off += v.to_f64().abs();
            }
        }
        t.push((i, i, T::from_f64(1.0 + off)));
    }
    CsrOwned::from_triplets(a.nrows(), a.ncols(), &t).unwrap()
}

/// The baseline: forward substitution, the diagonal the last entry of each sorted row.
fn plain<T: Scalar>(l: &Csr<'_, T, u32>, x: &mut [T]) {
    let (rp, ci, v) = (l.row_ptr(), l.col_idx(), l.vals());
    for i in 0..l.nrows() {
        let (s, e) = (rp[i] as usize, rp[i + 1] as usize);
        let mut acc = x[i];
        for k in s..e - 1 {
            acc -= v[k] * x[ci[k] as usize];
        }
        x[i] = acc / v[e - 1];
    }
}

fn bench_one<T: Scalar>(c: &mut Criterion, name: &str, a: &CsrOwned<T, u32>) {
    let l = lower(&a.view());
    let l = l.view();
    let n = l.nrows();
    let b: Vec<T> = (0..n).map(|i| T::from_f64((i % 7) as f64 - 3.0)).collect();
    let mut ws = vec![0usize; TriangularSolve::<T, u32>::levels_len(n)];
    let s = TriangularSolve::analyse_levels(Exec::new(), &l, Triangle::Lower, Diagonal::NonUnit, &mut ws)
        .unwrap();
    if T::NAME == "f64" {
        eprintln!("trsv: {name}: n = {n}, nnz(L) = {}, levels = {}", l.nnz(), s.level_count().unwrap());
    }
    let mut g = c.benchmark_group(format!("trsv/{name}/{}", T::NAME));
    g.throughput(Throughput::Elements(l.nnz() as u64));
    let mut y = vec![T::ZERO; n];
    g.bench_function("spmv", |bch| {
        bch.iter(|| l.spmv(Exec::new(), T::ONE, black_box(&b), T::ZERO, &mut y).unwrap())
    });
    let fresh = || b.clone();
    g.bench_function("plain", |bch| bch.iter_batched_ref(fresh, |x| plain(&l, x), BatchSize::LargeInput));
    for isa in Isa::available() {
        let e = Exec::from(isa);
        g.bench_function(BenchmarkId::new("substitution", isa.name()), |bch| {
            bch.iter_batched_ref(
                fresh,
                |x| s.solve_with(e, TrsvMethod::Substitution, T::ONE, x, 1).unwrap(),
                BatchSize::LargeInput,
            )
        });
        g.bench_function(BenchmarkId::new("checked", isa.name()), |bch| {
            bch.iter_batched_ref(
                fresh,
                |x| trsv(e, &l, Triangle::Lower, Diagonal::NonUnit, T::ONE, x).unwrap(),
                BatchSize::LargeInput,
            )
        });
    }
    for method in [TrsvMethod::LevelSet, TrsvMethod::SyncFree] {
        g.bench_function(BenchmarkId::new(method.name(), "2t"), |bch| {
            bch.iter_batched_ref(
                fresh,
                |x| s.solve_with(Exec::new().threads(2), method, T::ONE, x, 1).unwrap(),
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

fn bench_trsv(c: &mut Criterion) {
    for input in inputs::inputs() {
        let from_file = matches!(input, inputs::Input::File { .. });
        if !from_file && !SUITE.contains(&input.name()) {
            continue;
        }
        let a64 = inputs::load::<f64>(&input);
        if a64.nrows() != a64.ncols() {
            eprintln!("trsv: {} is not square, skipped", input.name());
            continue;
        }
        bench_one(c, input.name(), &a64);
        drop(a64);
        bench_one(c, input.name(), &inputs::load::<f32>(&input));
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = bench_trsv
}
criterion_main!(benches);
