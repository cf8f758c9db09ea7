//! SpMV per format, per `Isa` (every one this machine has), per precision (criterion);
//! also the SpMV plans (`plan/`, the rule's choice, and `csr5-panels/`, cache blocking),
//! the CSR methods (`csr_methods/`), CSR5's tile height (`csr5_sigma/`) and width
//! (`csr5_omega/`), CSR and CSR5 with each index type (`index_type/`: `u32`, `i32`, `u64`,
//! `i64`), CSR → CSR5 conversion next to the row-scalar SpMV (`csr5_conversion/`), and
//! `Aᵀx` next to `Ax` (`spmv_transpose/`). Each group has same-run baselines: `loop`, a
//! plain CSR row loop written here (a plain scatter loop in `spmv_transpose/`), and every
//! kernel's `portable` path.
//!
//! ```text
//! cargo bench --bench spmv --features gen,mtx                          # the small suite
//! SPBLAS_BENCH_MTX=a.mtx,b.mtx.gz cargo bench --bench spmv --features gen,mtx   # your matrices
//! SPBLAS_BENCH_SCALE=full cargo bench --bench spmv --features gen,mtx  # thesis-scale
//! ```
//!
//! (`benches/common/inputs.rs` says how the two variables combine.) Throughput is reported
//! in bytes by the thesis formula (section 8.4.2), so criterion's "thrpt" column is the
//! same GB/s the suite example prints; the HTML report with its charts is under
//! `target/criterion/report/index.html`.

use std::hint::black_box;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use spblas::Exec;
use spblas::SpmvConfig;
use spblas::TUNING;
use spblas::formats::Csr5Aux;
use spblas::formats::csr5::omega_for;
use spblas::level2::{CsrMethod, SpmvChoice, SpmvPlan, spmv_csr, spmv_csr_transpose};
use spblas::{
    CooOwned, Csr, Csr5, Csr5Layout, Csr5Owned, CsrOwned, EllLayout, EllOwned, Gathers, HybOwned, Index, Isa,
    JdsOwned, Scalar, SellOwned, SpMv,
};

#[path = "common/inputs.rs"]
mod inputs;

/// The plain CSR row loop (thesis Alg. 28), written here as a user would: the baseline
/// every kernel and width is compared with in the same run.
fn row_loop<T: Scalar>(a: &Csr<'_, T, u32>, x: &[T], y: &mut [T]) {
    let (rp, ci, v) = (a.row_ptr(), a.col_idx(), a.vals());
    for (i, yi) in y.iter_mut().enumerate() {
        let mut sum = T::ZERO;
        for k in rp[i] as usize..rp[i + 1] as usize {
            sum += v[k] * x[ci[k] as usize];
        }
        *yi = sum;
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
                b.iter(|| f.spmv(Exec::from(isa), T::ONE, black_box(&x), T::ZERO, black_box(&mut *y)))
            });
        }
    };
    g.bench_function("loop", |b| b.iter(|| row_loop(&a, black_box(&x), black_box(&mut y))));
    run(&mut g, &mut y, "csr", &a);
    // CSR5's tile width depends on the `Isa` (omega = its lanes), so one layout per path;
    // on x86-64 the tiles read `x` by hardware gathers or by a load per lane (`Gathers`):
    // ids `csr5/<isa>` (this CPU's default) and `csr5-hardware/<isa>`, `csr5-loads/<isa>`.
    for isa in Isa::available() {
        if let Ok(c5) = Csr5Owned::from_csr(Exec::from(isa), &a) {
            let c5 = c5.view();
            g.bench_function(BenchmarkId::new("csr5", isa.name()), |b| {
                b.iter(|| c5.spmv(Exec::from(isa), T::ONE, black_box(&x), T::ZERO, black_box(&mut y)))
            });
            if matches!(isa, Isa::Avx2 | Isa::Avx512) {
                for mode in [Gathers::Hardware, Gathers::Loads] {
                    Gathers::set(Some(mode));
                    g.bench_function(BenchmarkId::new(format!("csr5-{}", mode.name()), isa.name()), |b| {
                        b.iter(|| c5.spmv(Exec::from(isa), T::ONE, black_box(&x), T::ZERO, black_box(&mut y)))
                    });
                    Gathers::set(None);
                }
            }
        }
    }
    // Plans: the rule's (`plan/<isa>`, `SpmvPlan::new`) and CSR5 column panels wherever
    // `x` spans two panels or more (`csr5-panels/<isa>`).
    for isa in Isa::available() {
        let columns = TUNING.panel_bytes / size_of::<T>();
        let panels = (a.ncols() > columns).then_some(SpmvChoice::Csr5Panels { columns });
        for (id, choice) in [("plan", Some(SpmvChoice::choose(&a, isa))), ("csr5-panels", panels)] {
            if let Some(plan) = choice
                .and_then(|c| SpmvPlan::with_config(Exec::from(isa), &a, SpmvConfig::new().choice(c)).ok())
            {
                g.bench_function(BenchmarkId::new(id, isa.name()), |b| {
                    b.iter(|| plan.spmv(Exec::new(), T::ONE, black_box(&x), T::ZERO, black_box(&mut y)))
                });
            }
        }
    }
    run(&mut g, &mut y, "coo", &CooOwned::from_csr(&a).unwrap().view());
    run(&mut g, &mut y, "jds", &JdsOwned::from_csr(&a).unwrap().view());
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
    g.bench_function(format!("loop/{}", T::NAME), |b| {
        b.iter(|| row_loop(&a, black_box(&x), black_box(&mut y)))
    });
    for method in CsrMethod::ALL {
        for isa in Isa::available() {
            if method == CsrMethod::RowScalar && isa != Isa::Portable {
                continue;
            }
            let id = format!("csr/{}/{}/{}", method.name(), isa.name(), T::NAME);
            g.bench_function(id, |b| {
                b.iter(|| {
                    spmv_csr(Exec::from(isa), &a, method, T::ONE, black_box(&x), T::ZERO, black_box(&mut y))
                })
            });
        }
    }
}

/// CSR5 with tiles of 8, 16, 24 and 32 steps on every path, the portable one included,
/// ids `csr5_sigma/<matrix>/<isa>/<f32|f64>/<sigma>`: the sweep behind
/// `formats::csr5::SIGMA_BOUNDS`.
fn bench_sigma<T: Scalar>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    a: &CsrOwned<T, u32>,
) {
    let a = a.view();
    let x: Vec<T> = (0..a.ncols()).map(|j| T::from_f64(1.0 + (j % 5) as f64)).collect();
    let mut y = vec![T::ZERO; a.nrows()];
    for isa in Isa::available() {
        for sigma in [8, 16, 24, 32] {
            let Ok(layout) = Csr5Layout::with_params(&a, omega_for::<T>(isa), sigma) else { continue };
            let Ok(c5) = Csr5Owned::from_csr_layout(&a, &layout) else { continue };
            let c5 = c5.view();
            g.bench_function(format!("{}/{}/{sigma}", isa.name(), T::NAME), |b| {
                b.iter(|| c5.spmv(Exec::from(isa), T::ONE, black_box(&x), T::ZERO, black_box(&mut y)))
            });
        }
    }
}

/// CSR5 with every tile width `omega` that runs vectorised on each SIMD path, ids
/// `csr5_omega/<matrix>/<isa>/<f32|f64>/<omega>`: one, two or four registers of lanes
/// per step (AVX2: 4 / 8 `f64`, 8 / 16 `f32`; AVX-512: the same, 4 / 8 on the AVX2
/// kernel; NEON: 2 / 4 / 8 and 4 / 8 / 16), `sigma` by `sigma_for`. The sweep behind
/// `formats::csr5::omega_for`. Not on the portable path, which has one tile loop, for its
/// own `omega` (timed by `csr5_sigma/`), and runs any other `omega` by a row walk.
fn bench_omega<T: Scalar>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    a: &CsrOwned<T, u32>,
) {
    let a = a.view();
    let x: Vec<T> = (0..a.ncols()).map(|j| T::from_f64(1.0 + (j % 5) as f64)).collect();
    let mut y = vec![T::ZERO; a.nrows()];
    let per_row = a.nnz() / a.nrows().max(1);
    for isa in Isa::available().filter(|&i| i != Isa::Portable) {
        let lanes = |bytes: usize| bytes / std::mem::size_of::<T>();
        let omegas = if matches!(isa, Isa::Neon | Isa::Wasm128) {
            vec![lanes(16), lanes(32), lanes(64)]
        } else {
            vec![lanes(32), lanes(64)]
        };
        for omega in omegas {
            let sigma = spblas::formats::csr5::sigma_for(omega, per_row);
            let Ok(layout) = Csr5Layout::with_params(&a, omega, sigma) else { continue };
            let Ok(c5) = Csr5Owned::from_csr_layout(&a, &layout) else { continue };
            let c5 = c5.view();
            g.bench_function(format!("{}/{}/{omega}", isa.name(), T::NAME), |b| {
                b.iter(|| c5.spmv(Exec::from(isa), T::ONE, black_box(&x), T::ZERO, black_box(&mut y)))
            });
        }
    }
}

/// CSR → CSR5 conversion next to the row-scalar SpMV it is measured in, ids
/// `csr5_conversion/<matrix>/<f32|f64>/spmv` (the baseline) and
/// `.../<isa>/<what>` on each SIMD path (its own tile width): `copy` `Csr5::from_csr` into
/// preallocated buffers (non-temporal stores from `primitives::scan::STREAM_MIN_BYTES` of
/// output, so the full suite streams and the small one does not), `in_place`
/// `Csr5Owned::from_csr_owned` (the copy of the matrix it consumes is made just before,
/// outside the timing, as the suite does), `back` `Csr5::to_csr`.
fn bench_conversion<T: Scalar>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    a: &CsrOwned<T, u32>,
) {
    let a = a.view();
    let x: Vec<T> = (0..a.ncols()).map(|j| T::from_f64(1.0 + (j % 5) as f64)).collect();
    let mut y = vec![T::ZERO; a.nrows()];
    g.bench_function(format!("{}/spmv", T::NAME), |b| {
        b.iter(|| {
            spmv_csr(Exec::new(), &a, CsrMethod::RowScalar, T::ONE, black_box(&x), T::ZERO, black_box(&mut y))
        })
    });
    for isa in Isa::available() {
        let Ok(layout) = Csr5Layout::new(&a, isa) else { continue };
        let (mut col, mut vals) = (vec![0u32; layout.nnz()], vec![T::ZERO; layout.nnz()]);
        let (mut tp, mut td) = (vec![0u32; layout.tile_ptr_len()], vec![0u32; layout.tile_desc_len()]);
        let (mut ep, mut eo) = (vec![0u32; layout.tile_ptr_len()], vec![0u32; layout.empty_offset_len()]);
        g.bench_function(format!("{}/{}/copy", T::NAME, isa.name()), |b| {
            b.iter(|| {
                let aux = Csr5Aux {
                    tile_ptr: &mut tp,
                    tile_desc: &mut td,
                    empty_offset_ptr: &mut ep,
                    empty_offset: &mut eo,
                };
                black_box(Csr5::from_csr(&a, &layout, &mut col, &mut vals, aux).map(|c| c.tiles()))
            })
        });
        g.bench_function(format!("{}/{}/in_place", T::NAME, isa.name()), |b| {
            b.iter_batched(
                || CsrOwned::from_csr(&a).unwrap(),
                |owned| {
                    black_box(
                        Csr5Owned::from_csr_owned(Exec::from(isa), owned)
                            .map(|c| c.layout().tiles())
                            .map_err(|(e, _)| e),
                    )
                },
                BatchSize::PerIteration,
            )
        });
        let Ok(c5) = Csr5Owned::from_csr_layout(&a, &layout) else { continue };
        let c5 = c5.view();
        g.bench_function(format!("{}/{}/back", T::NAME, isa.name()), |b| {
            b.iter(|| black_box(c5.to_csr(&mut col, &mut vals)))
        });
    }
}

/// The plain scatter loop of `y = Aᵀx` (row `i` adds `a_ij * x[i]` to `y[j]`), written here
/// as a user would: the same-run baseline of the transposed product.
fn scatter_loop<T: Scalar>(a: &Csr<'_, T, u32>, x: &[T], y: &mut [T]) {
    let (rp, ci, v) = (a.row_ptr(), a.col_idx(), a.vals());
    y.fill(T::ZERO);
    for (i, &xi) in x.iter().enumerate() {
        for k in rp[i] as usize..rp[i + 1] as usize {
            y[ci[k] as usize] += v[k] * xi;
        }
    }
}

/// `Aᵀx` on CSR without forming `Aᵀ` next to `Ax` on the same matrix, ids
/// `spmv_transpose/<matrix>/<f32|f64>/...`: `loop` (the plain scatter loop), `ax/<isa>`
/// (`Csr::spmv`, the default `A * x`) and `atx/<isa>` (`level2::spmv_csr_transpose`) on
/// every path; `atx / ax` is the ratio `benches/records/transpose-*.md` reports.
fn bench_transpose<T: Scalar>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    a: &CsrOwned<T, u32>,
) {
    let a = a.view();
    let x: Vec<T> = (0..a.ncols()).map(|j| T::from_f64(1.0 + (j % 5) as f64)).collect();
    let xt: Vec<T> = (0..a.nrows()).map(|i| T::from_f64(1.0 + (i % 5) as f64)).collect();
    let (mut y, mut yt) = (vec![T::ZERO; a.nrows()], vec![T::ZERO; a.ncols()]);
    g.bench_function(format!("{}/loop", T::NAME), |b| {
        b.iter(|| scatter_loop(&a, black_box(&xt), black_box(&mut yt)))
    });
    for isa in Isa::available() {
        g.bench_function(format!("{}/ax/{}", T::NAME, isa.name()), |b| {
            b.iter(|| a.spmv(Exec::from(isa), T::ONE, black_box(&x), T::ZERO, black_box(&mut y)))
        });
        g.bench_function(format!("{}/atx/{}", T::NAME, isa.name()), |b| {
            b.iter(|| {
                spmv_csr_transpose(Exec::from(isa), &a, T::ONE, black_box(&xt), T::ZERO, black_box(&mut yt))
            })
        });
    }
}

/// The index type is memory traffic: `u32` and `i32` (SciPy's, MKL's) must run at one
/// speed, as must `u64` and `i64` (the signed types take the unsigned kernels), with
/// the 64-bit types slower by their extra bytes. CSR and CSR5 SpMV on every `Isa`, ids
/// `<T>/<format>-<I>/<isa>`, beside the plain loop (`<T>/loop`, `u32`).
fn bench_index<T: Scalar>(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    a: &CsrOwned<T, u32>,
) {
    fn same<T: Scalar, I: Index>(a: &Csr<'_, T, u32>) -> CsrOwned<T, I> {
        let map = |v: &[u32]| v.iter().map(|&i| I::from_usize(i as usize).unwrap()).collect();
        CsrOwned::from_parts(a.nrows(), a.ncols(), map(a.row_ptr()), map(a.col_idx()), a.vals().to_vec())
            .unwrap()
    }
    fn one<T: Scalar, I: Index>(
        g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
        a: &CsrOwned<T, I>,
        x: &[T],
        y: &mut [T],
    ) {
        let a = a.view();
        for isa in Isa::available() {
            g.bench_function(format!("{}/csr-{}/{}", T::NAME, I::NAME, isa.name()), |b| {
                b.iter(|| a.spmv(Exec::from(isa), T::ONE, black_box(x), T::ZERO, black_box(&mut *y)))
            });
            if let Ok(c5) = Csr5Owned::from_csr(Exec::from(isa), &a) {
                let c5 = c5.view();
                g.bench_function(format!("{}/csr5-{}/{}", T::NAME, I::NAME, isa.name()), |b| {
                    b.iter(|| c5.spmv(Exec::from(isa), T::ONE, black_box(x), T::ZERO, black_box(&mut *y)))
                });
            }
        }
    }
    let v = a.view();
    let x: Vec<T> = (0..v.ncols()).map(|j| T::from_f64(1.0 + (j % 5) as f64)).collect();
    let mut y = vec![T::ZERO; v.nrows()];
    g.bench_function(format!("{}/loop", T::NAME), |b| {
        b.iter(|| row_loop(&v, black_box(&x), black_box(&mut y)))
    });
    one(g, a, &x, &mut y);
    one(g, &same::<T, i32>(&v), &x, &mut y);
    one(g, &same::<T, u64>(&v), &x, &mut y);
    one(g, &same::<T, i64>(&v), &x, &mut y);
}

fn spmv(c: &mut Criterion) {
    for input in inputs::inputs() {
        let name = input.name();
        let (a, a32) = (inputs::load::<f64>(&input), inputs::load::<f32>(&input));
        bench_one(c, name, &a);
        bench_one(c, name, &a32);
        let mut g = c.benchmark_group(format!("csr_methods/{name}"));
        bench_methods(&mut g, &a);
        bench_methods(&mut g, &a32);
        g.finish();
        let mut g = c.benchmark_group(format!("csr5_sigma/{name}"));
        bench_sigma(&mut g, &a);
        bench_sigma(&mut g, &a32);
        g.finish();
        let mut g = c.benchmark_group(format!("csr5_omega/{name}"));
        bench_omega(&mut g, &a);
        bench_omega(&mut g, &a32);
        g.finish();
        let mut g = c.benchmark_group(format!("index_type/{name}"));
        bench_index(&mut g, &a);
        bench_index(&mut g, &a32);
        g.finish();
        let mut g = c.benchmark_group(format!("csr5_conversion/{name}"));
        bench_conversion(&mut g, &a);
        bench_conversion(&mut g, &a32);
        g.finish();
        let mut g = c.benchmark_group(format!("spmv_transpose/{name}"));
        g.throughput(Throughput::Bytes(bytes(&a.view())));
        bench_transpose(&mut g, &a);
        g.throughput(Throughput::Bytes(bytes(&a32.view())));
        bench_transpose(&mut g, &a32);
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
