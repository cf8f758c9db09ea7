//! CSR SpMM (`Y = A X`, `X` and `Y` dense, row-major, `k` columns) per `Isa` (every one
//! this machine has), per precision and `k` in 1, 4, 8, 16, 64 (criterion). Same-run
//! baselines in each group: `loop`, a plain SpMM loop written here (each entry times a
//! row of `X`), and `spmv_columns`, `k` separate SpMVs by the default `Csr::spmv` on the
//! columns of `X` (stored column by column for it).
//!
//! ```text
//! cargo bench --bench spmm --features gen,mtx                          # the small suite
//! SPBLAS_BENCH_SCALE=quick cargo bench --bench spmm --features gen,mtx # larger matrices
//! SPBLAS_BENCH_MTX=a.mtx cargo bench --bench spmm --features gen,mtx   # your matrices
//! ```
//!
//! Throughput is in vectors (`k` per call), so criterion's "thrpt" column is vectors per
//! second and one SpMM's time per vector is comparable with one SpMV's across `k`.
//!
//! `csr5_spmm/{matrix}/{prec}/k{k}` (`k` in 1, 8, 32; the irregular matrices CSR5 is made
//! for, `web_like` (generated here: a web crawl's power-law rows, a tenth empty, a few very
//! long), `rmat` and `dc2_like`, and `poisson2d`, or the `SPBLAS_BENCH_MTX` files): per
//! `Isa`, the CSR5 SpMM (`csr5`, the copy laid out for that `Isa`) against the CSR SpMM
//! (`csr`) and `k` CSR5 SpMVs on the columns of `X` (`csr5_spmvs`), in the same run:
//!
//! ```text
//! SPBLAS_BENCH_SCALE=quick cargo bench --bench spmm --features gen,mtx -- csr5_spmm/
//! ```

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use spblas::level2::{spmm_csr, spmm_csr5};
use spblas::{Csr, Csr5Owned, CsrOwned, DenseMut, DenseRef, Exec, Isa, Scalar, SpMm, SpMv};

#[path = "common/inputs.rs"]
mod inputs;
#[path = "common/web_like.rs"]
mod web_like;
use web_like::web_like;

/// The `k` of each group.
const KS: [usize; 5] = [1, 4, 8, 16, 64];

/// The plain SpMM loop, written here as a user would: row `i` of `Y` is the sum of
/// `a_ij * X[j, ..]` over the row's entries.
fn spmm_loop<T: Scalar>(a: &Csr<'_, T, u32>, x: &[T], k: usize, y: &mut [T]) {
    let (rp, ci, v) = (a.row_ptr(), a.col_idx(), a.vals());
    for (i, yr) in y.chunks_exact_mut(k).enumerate() {
        yr.fill(T::ZERO);
        for p in rp[i] as usize..rp[i + 1] as usize {
            let (av, xr) = (v[p], &x[ci[p] as usize * k..][..k]);
            for (yv, &xv) in yr.iter_mut().zip(xr) {
                *yv += av * xv;
            }
        }
    }
}

fn bench_one<T: Scalar>(c: &mut Criterion, name: &str, a: &CsrOwned<T, u32>) {
    let a = a.view();
    let (m, n) = (a.nrows(), a.ncols());
    for k in KS {
        let mut g = c.benchmark_group(format!("spmm/{name}/{}/k{k}", T::NAME));
        g.throughput(Throughput::Elements(k as u64));
        let x: Vec<T> = (0..n * k).map(|p| T::from_f64(1.0 + (p % 5) as f64)).collect();
        let mut y = vec![T::ZERO; m * k];
        g.bench_function("loop", |b| b.iter(|| spmm_loop(&a, black_box(&x), k, black_box(&mut y))));
        // The columns of `X` one after another, for the SpMVs.
        let xc: Vec<T> = (0..k * n).map(|p| x[(p % n) * k + p / n]).collect();
        g.bench_function("spmv_columns", |b| {
            b.iter(|| {
                for (xv, yv) in xc.chunks_exact(n.max(1)).zip(y.chunks_exact_mut(m.max(1))) {
                    let _ = a.spmv(Exec::new(), T::ONE, black_box(xv), T::ZERO, black_box(yv));
                }
            })
        });
        let xd = DenseRef::row_major(n, k, &x).unwrap();
        let mut yd = DenseMut::row_major(m, k, &mut y).unwrap();
        for isa in Isa::available() {
            g.bench_function(BenchmarkId::new("csr", isa.name()), |b| {
                b.iter(|| a.spmm(Exec::from(isa), T::ONE, black_box(xd), T::ZERO, black_box(&mut yd)))
            });
        }
        g.finish();
    }
}

/// The `k` of the CSR5 groups.
const KS_CSR5: [usize; 3] = [1, 8, 32];

/// The suite matrices of the CSR5 groups (with `web_like`).
const CSR5_SUITE: [&str; 3] = ["rmat", "dc2_like", "poisson2d"];

/// CSR5 SpMM against CSR SpMM and `k` CSR5 SpMVs, per `Isa`, on one matrix.
fn bench_csr5<T: Scalar>(c: &mut Criterion, name: &str, a: &CsrOwned<T, u32>) {
    let a = a.view();
    let (m, n) = (a.nrows(), a.ncols());
    let copies: Vec<(Isa, Csr5Owned<T, u32>)> =
        Isa::available().map(|isa| (isa, Csr5Owned::from_csr(Exec::from(isa), &a).unwrap())).collect();
    for k in KS_CSR5 {
        let mut g = c.benchmark_group(format!("csr5_spmm/{name}/{}/k{k}", T::NAME));
        // Calls of milliseconds: equal iterations per sample keep a group within seconds.
        g.sampling_mode(SamplingMode::Flat);
        g.throughput(Throughput::Elements(k as u64));
        let x: Vec<T> = (0..n * k).map(|p| T::from_f64(1.0 + (p % 5) as f64)).collect();
        let xc: Vec<T> = (0..k * n).map(|p| x[(p % n) * k + p / n]).collect();
        let mut y = vec![T::ZERO; m * k];
        let xd = DenseRef::row_major(n, k, &x).unwrap();
        for (isa, c5) in &copies {
            let (exec, c5) = (Exec::from(*isa), c5.view());
            g.bench_function(BenchmarkId::new("csr5_spmvs", isa.name()), |b| {
                b.iter(|| {
                    for (xv, yv) in xc.chunks_exact(n.max(1)).zip(y.chunks_exact_mut(m.max(1))) {
                        let _ = c5.spmv(exec, T::ONE, black_box(xv), T::ZERO, black_box(yv));
                    }
                })
            });
            let mut yd = DenseMut::row_major(m, k, &mut y).unwrap();
            g.bench_function(BenchmarkId::new("csr", isa.name()), |b| {
                b.iter(|| spmm_csr(exec, &a, T::ONE, black_box(xd), T::ZERO, black_box(&mut yd)))
            });
            g.bench_function(BenchmarkId::new("csr5", isa.name()), |b| {
                b.iter(|| spmm_csr5(exec, &c5, T::ONE, black_box(xd), T::ZERO, black_box(&mut yd)))
            });
        }
        g.finish();
    }
}

fn csr5_spmm(c: &mut Criterion) {
    let web = match std::env::var("SPBLAS_BENCH_SCALE").as_deref() {
        Ok("quick") => 200_000,
        Ok("full") => 1_000_000,
        _ => 20_000,
    };
    if std::env::var("SPBLAS_BENCH_MTX").is_err() {
        bench_csr5(c, "web_like", &web_like::<f64>(web));
        bench_csr5(c, "web_like", &web_like::<f32>(web));
    }
    for input in inputs::inputs() {
        let name = input.name();
        if matches!(input, inputs::Input::Generated(_)) && !CSR5_SUITE.contains(&name) {
            continue;
        }
        bench_csr5(c, name, &inputs::load::<f64>(&input));
        bench_csr5(c, name, &inputs::load::<f32>(&input));
    }
}

fn spmm(c: &mut Criterion) {
    for input in inputs::inputs() {
        let name = input.name();
        bench_one(c, name, &inputs::load::<f64>(&input));
        bench_one(c, name, &inputs::load::<f32>(&input));
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(1));
    targets = spmm, csr5_spmm
}
criterion_main!(benches);
