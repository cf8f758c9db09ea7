//! SpMV per format, per `Isa`, per precision over the generated suite (criterion).
//!
//! `cargo bench --bench spmv --features gen` runs the small suite;
//! `SPBLAS_BENCH_SCALE=full cargo bench --bench spmv --features gen` the full one.
//! Throughput is reported in bytes by the thesis formula (section 8.4.2), so criterion's
//! "thrpt" column is the same GB/s the suite example prints.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use spblas::formats::csr5::omega_for;
use spblas::generate::{SuiteScale, suite_entries};
use spblas::level2::{CsrMethod, spmv_csr};
use spblas::{
    CooOwned, Csr, Csr5Layout, Csr5Owned, CsrOwned, EllLayout, EllOwned, HybOwned, Index, Isa, JdsOwned,
    Scalar, SellOwned, SpMv,
};

fn scale() -> SuiteScale {
    match std::env::var("SPBLAS_BENCH_SCALE").as_deref() {
        Ok("full") => SuiteScale::Full,
        _ => SuiteScale::Small,
    }
}

fn bytes<T: Scalar, I: Index>(a: &Csr<'_, T, I>) -> u64 {
    let (m, nnz) = (a.nrows() as u64, a.nnz() as u64);
    (m + 1 + nnz) * I::BYTES as u64 + (2 * nnz + m) * std::mem::size_of::<T>() as u64
}

fn bench_one<T: Scalar>(c: &mut Criterion, name: &str, a: &CsrOwned<T, u32>) {
    let a = a.view();
    let mut g = c.benchmark_group(format!("spmv/{name}/{}", T::NAME));
    g.throughput(Throughput::Bytes(bytes(&a)));
    let x: Vec<T> = (0..a.ncols()).map(|j| T::from_f64(1.0 + (j % 5) as f64)).collect();
    let mut y = vec![T::ZERO; a.nrows()];
    let run = |g: &mut criterion::BenchmarkGroup<'_, _>, y: &mut [T], format: &str, f: &dyn SpMv<T>| {
        for isa in Isa::available() {
            g.bench_function(BenchmarkId::new(format, isa.name()), |b| {
                b.iter(|| f.spmv_isa(isa, T::ONE, black_box(&x), T::ZERO, black_box(&mut *y)))
            });
        }
    };
    run(&mut g, &mut y, "csr", &a);
    // CSR5's tile width depends on the `Isa` (omega = its lanes), so one layout per path.
    for isa in Isa::available() {
        if let Ok(c5) = Csr5Owned::from_csr_isa(&a, isa) {
            let c5 = c5.view();
            g.bench_function(BenchmarkId::new("csr5", isa.name()), |b| {
                b.iter(|| c5.spmv_isa(isa, T::ONE, black_box(&x), T::ZERO, black_box(&mut y)))
            });
        }
    }
    run(&mut g, &mut y, "coo", &CooOwned::from_csr(&a).view());
    run(&mut g, &mut y, "jds", &JdsOwned::from_csr(&a).view());
    if let Ok(h) = HybOwned::from_csr(&a) {
        run(&mut g, &mut y, "hyb", &h.view());
    }
    // Padded formats only where the padding stays small.
    if EllLayout::new(&a).is_ok_and(|l| l.len() <= 2 * a.nnz().max(1))
        && let Ok(e) = EllOwned::from_csr(&a)
    {
        run(&mut g, &mut y, "ell", &e.view());
        if let Ok(s) = SellOwned::from_csr(&a) {
            run(&mut g, &mut y, "sell", &s.view());
        }
    }
    g.finish();
}

/// The CSR methods of thesis 8.3–8.4 on one matrix, ids `csr/<method>/<isa>/<f32|f64>`.
/// Row-scalar does not depend on the `Isa`, so it runs once per precision (as
/// `portable`): the same-run baseline the other methods' times are divided by.
fn bench_methods<T: Scalar>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    a: &CsrOwned<T, u32>,
) {
    let a = a.view();
    let x: Vec<T> = (0..a.ncols()).map(|j| T::from_f64(1.0 + (j % 5) as f64)).collect();
    let mut y = vec![T::ZERO; a.nrows()];
    for method in CsrMethod::ALL {
        for isa in Isa::available() {
            if method == CsrMethod::RowScalar && isa != Isa::Portable {
                continue;
            }
            let id = format!("csr/{}/{}/{}", method.name(), isa.name(), T::NAME);
            g.bench_function(id, |b| {
                b.iter(|| spmv_csr(&a, method, isa, T::ONE, black_box(&x), T::ZERO, black_box(&mut y)))
            });
        }
    }
}

/// CSR5 with tiles of 8, 16, 24 and 32 steps on each SIMD path, ids
/// `csr5_sigma/<matrix>/<isa>/<f32|f64>/<sigma>`: the sweep behind
/// `formats::csr5::SIGMA_BOUNDS`.
fn bench_sigma<T: Scalar>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    a: &CsrOwned<T, u32>,
) {
    let a = a.view();
    let x: Vec<T> = (0..a.ncols()).map(|j| T::from_f64(1.0 + (j % 5) as f64)).collect();
    let mut y = vec![T::ZERO; a.nrows()];
    for isa in Isa::available().filter(|&i| i != Isa::Portable) {
        for sigma in [8, 16, 24, 32] {
            let Ok(layout) = Csr5Layout::with_params(&a, omega_for::<T>(isa), sigma) else { continue };
            let Ok(c5) = Csr5Owned::from_csr_layout(&a, &layout) else { continue };
            let c5 = c5.view();
            g.bench_function(format!("{}/{}/{sigma}", isa.name(), T::NAME), |b| {
                b.iter(|| c5.spmv_isa(isa, T::ONE, black_box(&x), T::ZERO, black_box(&mut y)))
            });
        }
    }
}

fn spmv(c: &mut Criterion) {
    for entry in suite_entries(scale()) {
        let a = entry.generate::<f64, u32>().expect("suite matrices generate");
        bench_one(c, entry.name, &a);
        let a32 = entry.generate::<f32, u32>().expect("suite matrices generate");
        bench_one(c, entry.name, &a32);
        let mut g = c.benchmark_group(format!("csr_methods/{}", entry.name));
        bench_methods(&mut g, &a);
        bench_methods(&mut g, &a32);
        g.finish();
        let mut g = c.benchmark_group(format!("csr5_sigma/{}", entry.name));
        bench_sigma(&mut g, &a);
        bench_sigma(&mut g, &a32);
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(1));
    targets = spmv
}
criterion_main!(benches);
