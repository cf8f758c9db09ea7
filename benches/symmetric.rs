//! Symmetric storage (`Symmetric`: the lower triangle `L` of each square input, the matrix
//! `L + Lᵀ − diag(L)`) against full storage of the same matrix in CSR, in the same run,
//! per `Isa` (every one this machine has) and precision (criterion):
//!
//! - `symmetric/spmv/<matrix>/<T>`: `full_csr/<isa>` (`SpMv for Csr` on the whole matrix)
//!   and `symmetric/<isa>` (`SpMv for Symmetric` on the triangle); with `parallel`, both on
//!   the pool's threads (`*_threads`, the detected width);
//! - `symmetric/spmm/<matrix>/<T>/k8`: the same for SpMM with `k = 8` row-major columns.
//!
//! Throughput is in entries of the whole matrix, so the two storages' rates compare
//! directly (symmetric storage reads about half the matrix bytes for the same product).
//!
//! ```text
//! SPBLAS_BENCH_SCALE=quick cargo bench --bench symmetric --features gen,mtx
//! SPBLAS_BENCH_MTX=a.mtx cargo bench --bench symmetric --features gen,mtx   # your matrices
//! ```
//!
//! Records: `benches/records/symmetric-*.md`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use spblas::{CsrOwned, DenseMut, DenseRef, Exec, Isa, Scalar, SpMm, SpMv, Symmetric, Triangle};

#[path = "common/inputs.rs"]
mod inputs;

/// The whole matrix's entries from the lower triangle of `a`.
fn lower_and_full<T: Scalar>(a: &CsrOwned<T, u32>) -> (CsrOwned<T, u32>, CsrOwned<T, u32>) {
    let lower: Vec<(usize, usize, T)> = a.view().iter().filter(|&(i, j, _)| j <= i).collect();
    let mut full = lower.clone();
    full.extend(lower.iter().filter(|e| e.0 != e.1).map(|&(i, j, v)| (j, i, v)));
    let n = a.view().nrows();
    (CsrOwned::from_triplets(n, n, &lower).unwrap(), CsrOwned::from_triplets(n, n, &full).unwrap())
}

fn bench_one<T: Scalar>(c: &mut Criterion, name: &str, a: &CsrOwned<T, u32>) {
    let (lower, full) = lower_and_full(a);
    let (l, f) = (lower.view(), full.view());
    let s = Symmetric::new(l, Triangle::Lower).unwrap();
    let n = f.nrows();
    let x: Vec<T> = (0..n).map(|i| T::from_f64(1.0 + (i % 7) as f64)).collect();
    let mut y = vec![T::ZERO; n];
    let mut g = c.benchmark_group(format!("symmetric/spmv/{name}/{}", T::NAME));
    g.throughput(Throughput::Elements(f.nnz() as u64));
    for isa in Isa::available() {
        let ex = Exec::from(isa);
        g.bench_function(BenchmarkId::new("full_csr", isa.name()), |b| {
            b.iter(|| f.spmv(ex, T::ONE, black_box(&x), T::ZERO, black_box(&mut y)))
        });
        g.bench_function(BenchmarkId::new("symmetric", isa.name()), |b| {
            b.iter(|| s.spmv(ex, T::ONE, black_box(&x), T::ZERO, black_box(&mut y)))
        });
    }
    #[cfg(feature = "parallel")]
    {
        let ex = Exec::new().threads(0);
        g.bench_function("full_csr_threads", |b| {
            b.iter(|| f.spmv(ex, T::ONE, black_box(&x), T::ZERO, black_box(&mut y)))
        });
        g.bench_function("symmetric_threads", |b| {
            b.iter(|| s.spmv(ex, T::ONE, black_box(&x), T::ZERO, black_box(&mut y)))
        });
    }
    g.finish();

    let k = 8;
    let xk: Vec<T> = (0..n * k).map(|p| T::from_f64(1.0 + (p % 5) as f64)).collect();
    let mut yk = vec![T::ZERO; n * k];
    let xd = DenseRef::row_major(n, k, &xk).unwrap();
    let mut yd = DenseMut::row_major(n, k, &mut yk).unwrap();
    let mut g = c.benchmark_group(format!("symmetric/spmm/{name}/{}/k{k}", T::NAME));
    g.throughput(Throughput::Elements(f.nnz() as u64));
    for isa in Isa::available() {
        let ex = Exec::from(isa);
        g.bench_function(BenchmarkId::new("full_csr", isa.name()), |b| {
            b.iter(|| f.spmm(ex, T::ONE, black_box(xd), T::ZERO, black_box(&mut yd)))
        });
        g.bench_function(BenchmarkId::new("symmetric", isa.name()), |b| {
            b.iter(|| s.spmm(ex, T::ONE, black_box(xd), T::ZERO, black_box(&mut yd)))
        });
    }
    g.finish();
}

fn symmetric(c: &mut Criterion) {
    for input in inputs::inputs() {
        let name = input.name();
        let a = inputs::load::<f64>(&input);
        if a.view().nrows() != a.view().ncols() {
            continue;
        }
        bench_one(c, name, &a);
        bench_one(c, name, &inputs::load::<f32>(&input));
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(1));
    targets = symmetric
}
criterion_main!(benches);
