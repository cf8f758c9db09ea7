//! SpGEMM (thesis chapter 9): `C = A²` against a same-run baseline, on every `Isa` this
//! machine has and both precisions, and each row method forced onto rows of one bin (the
//! numbers behind the bin rule in the `level3` docs).
//!
//! Throughput is in flops, `2 nnz(Ĉ)` (one multiply and one add per candidate product),
//! so criterion's "elem/s" column reads as flop/s.
//!
//! - `spgemm/<matrix>/<f32|f64>/ours/<isa>`: `level3::spgemm` (hybrid allocation, per-bin
//!   rule); `.../precise/<isa>`: workspace query, symbolic and numeric phases into caller
//!   buffers (allocations included); `.../gustavson`: the baseline, a plain Gustavson
//!   loop with a dense accumulator, a row-stamp marker and a sort of each row's columns,
//!   into growing `Vec`s (what SciPy/sprs do; written here, not in the library). The
//!   matrices: the generated suite's square ones, or yours (`SPBLAS_BENCH_MTX`,
//!   `benches/common/inputs.rs`; a matrix that is not square is skipped with a note).
//! - `bins/<f32|f64>/ub<m>/n<ncols>/<method>/<isa>`: `A` (`rows x 4096`, `r` entries per
//!   row) times `B` (`4096 x ncols`, `c` entries per row) with `r · c = m`, every row
//!   forced onto one method; `ncols` 4K (the SPA's scratch in L1/L2) or 1M (in
//!   L3/memory).
//!
//! - `add/<matrix>/<f32|f64>/...`: the matrix sum `C = A + Aᵀ` (`level3`): `numeric/<isa>`
//!   the numeric phase into kept buffers, `two-phase/<isa>` workspace, symbolic and
//!   numeric with their allocations, `owned/<isa>` `level3::add`; the baselines `merge`
//!   (a plain two-pointer merge of each row pair into kept buffers, what SciPy's
//!   `csr_plus_csr` runs on canonical rows) and `copy` (copying both operands' columns and
//!   values: the memory floor); and `scale`, `scale_rows`, `scale_cols` of `A` (one
//!   value written per entry, against `copy`). Throughput in entries of `A` and `Aᵀ`.
//!
//! `cargo bench --bench spgemm --features gen,mtx -- --warm-up-time 0.5 --measurement-time 2`

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use spblas::Exec;
use spblas::generate::uniform_random;
use spblas::level3::{
    RowMethod, SpgemmConfig, add, add_numeric, add_symbolic, add_workspace_len, scale, scale_cols,
    scale_rows, spgemm, spgemm_numeric, spgemm_symbolic, spgemm_workspace_len,
};
use spblas::primitives::scan::ScanElem;
use spblas::{Csr, CsrOwned, Isa, Scalar};

#[path = "common/inputs.rs"]
mod inputs;

/// Candidate products of `A·B`: `nnz(Ĉ)`.
fn products<T: Scalar>(a: &Csr<'_, T, u32>, b: &Csr<'_, T, u32>) -> u64 {
    let bp = b.row_ptr();
    a.col_idx().iter().map(|&k| u64::from(bp[k as usize + 1] - bp[k as usize])).sum()
}

/// The baseline: Gustavson's row-by-row product with a dense accumulator (thesis 9.3),
/// rows sorted by column, into `Vec`s that grow as needed; the accumulator and the
/// marker are allocated per call, as SciPy does.
fn gustavson<T: Scalar>(a: &Csr<'_, T, u32>, b: &Csr<'_, T, u32>) -> usize {
    let (mut acc, mut mark) = (vec![T::ZERO; b.ncols()], vec![u32::MAX; b.ncols()]);
    let mut row_ptr = Vec::with_capacity(a.nrows() + 1);
    let (mut col_idx, mut vals) = (Vec::new(), Vec::new());
    let mut touched: Vec<u32> = Vec::new();
    row_ptr.push(0u32);
    for i in 0..a.nrows() {
        touched.clear();
        let (ac, av) = a.row(i).unwrap();
        for (&k, &x) in ac.iter().zip(av) {
            let (bc, bv) = b.row(k as usize).unwrap();
            for (&j, &y) in bc.iter().zip(bv) {
                let j = j as usize;
                if mark[j] != i as u32 {
                    mark[j] = i as u32;
                    acc[j] = x * y;
                    touched.push(j as u32);
                } else {
                    acc[j] += x * y;
                }
            }
        }
        touched.sort_unstable();
        for &j in &touched {
            col_idx.push(j);
            vals.push(acc[j as usize]);
        }
        row_ptr.push(col_idx.len() as u32);
    }
    black_box((&row_ptr, &col_idx, &vals));
    col_idx.len()
}

/// Workspace query, symbolic and numeric phases, all buffers allocated here.
fn precise<T: Scalar + ScanElem>(exec: Exec, a: &Csr<'_, T, u32>, b: &Csr<'_, T, u32>) -> usize {
    let cfg = SpgemmConfig::new();
    let ws = spgemm_workspace_len(exec, cfg, a, b).unwrap();
    let (mut wi, mut wv) = (vec![0u32; ws.idx], vec![T::ZERO; ws.vals]);
    let mut row_ptr = vec![0u32; a.nrows() + 1];
    let nnz = spgemm_symbolic(exec, cfg, a, b, &mut row_ptr, &mut wi).unwrap();
    let (mut ci, mut cv) = (vec![0u32; nnz], vec![T::ZERO; nnz]);
    spgemm_numeric(exec, cfg, a, b, &row_ptr, &mut ci, &mut cv, (&mut wi, &mut wv)).unwrap();
    black_box((&ci, &cv));
    nnz
}

fn bench_square_one<T: Scalar + ScanElem>(c: &mut Criterion, name: &str, a: &CsrOwned<T, u32>) {
    let a = a.view();
    let mut g = c.benchmark_group(format!("spgemm/{name}/{}", T::NAME));
    g.throughput(Throughput::Elements(2 * products(&a, &a)));
    g.bench_function("gustavson", |bch| bch.iter(|| gustavson(black_box(&a), &a)));
    for isa in Isa::available() {
        let exec = Exec::from(isa);
        g.bench_function(BenchmarkId::new("ours", isa.name()), |bch| {
            bch.iter(|| spgemm(exec, SpgemmConfig::new(), black_box(&a), &a).unwrap())
        });
        g.bench_function(BenchmarkId::new("precise", isa.name()), |bch| {
            bch.iter(|| precise(exec, black_box(&a), &a))
        });
    }
    g.finish();
}

fn bench_square(c: &mut Criterion) {
    for input in inputs::inputs() {
        let (name, a) = (input.name(), inputs::load::<f64>(&input));
        let v = a.view();
        if v.nrows() != v.ncols() {
            eprintln!("spgemm: {name} is {} x {}, not square: skipped", v.nrows(), v.ncols());
            continue;
        }
        bench_square_one(c, name, &a);
        bench_square_one(c, name, &inputs::load::<f32>(&input));
    }
}

/// The baseline sum: each row pair of two canonical matrices merged by two pointers into
/// `ci`/`cv` (sized by the caller); returns `nnz(C)`.
fn merge_rows<T: Scalar>(a: &Csr<'_, T, u32>, b: &Csr<'_, T, u32>, ci: &mut [u32], cv: &mut [T]) -> usize {
    let mut n = 0;
    for i in 0..a.nrows() {
        let ((ac, av), (bc, bv)) = (a.row(i).unwrap(), b.row(i).unwrap());
        let (mut p, mut q) = (0, 0);
        while p < ac.len() || q < bc.len() {
            let (x, y) = (ac.get(p).copied().unwrap_or(u32::MAX), bc.get(q).copied().unwrap_or(u32::MAX));
            let (c, v) = if x < y {
                p += 1;
                (x, av[p - 1])
            } else if y < x {
                q += 1;
                (y, bv[q - 1])
            } else {
                p += 1;
                q += 1;
                (x, av[p - 1] + bv[q - 1])
            };
            ci[n] = c;
            cv[n] = v;
            n += 1;
        }
    }
    n
}

fn bench_add_one<T: Scalar + ScanElem>(c: &mut Criterion, name: &str, a: &CsrOwned<T, u32>) {
    let a = a.view();
    let (np, nnz) = a.transpose_len();
    let (mut rp, mut ti, mut tv) = (vec![0u32; np], vec![0u32; nnz], vec![T::ZERO; nnz]);
    let b = a.transpose_into(&mut rp, &mut ti, &mut tv).unwrap();
    // The baselines need canonical rows: sort A's (b, a transpose, is canonical already).
    let sorted = CsrOwned::from_triplets(a.nrows(), a.ncols(), &a.iter().collect::<Vec<_>>()).unwrap();
    let a = sorted.view();
    let mut g = c.benchmark_group(format!("add/{name}/{}", T::NAME));
    g.throughput(Throughput::Elements((a.nnz() + b.nnz()) as u64));
    let total = a.nnz() + b.nnz();
    let (mut ci, mut cv) = (vec![0u32; total], vec![T::ZERO; total]);
    g.bench_function("merge", |bch| bch.iter(|| merge_rows(black_box(&a), &b, &mut ci, &mut cv)));
    g.bench_function("copy", |bch| {
        bch.iter(|| {
            ci[..a.nnz()].copy_from_slice(black_box(a.col_idx()));
            cv[..a.nnz()].copy_from_slice(a.vals());
            ci[a.nnz()..].copy_from_slice(b.col_idx());
            cv[a.nnz()..].copy_from_slice(b.vals());
        })
    });
    // Scaling writes one value per entry: against `copy` above, a bandwidth bound.
    let d: Vec<T> = (0..a.nrows().max(a.ncols())).map(|i| T::from_f64(0.5 + (i % 5) as f64)).collect();
    let mut sv = vec![T::ZERO; a.nnz()];
    g.bench_function("scale", |bch| bch.iter(|| scale(black_box(&a), T::from_f64(2.5), &mut sv).unwrap()));
    g.bench_function("scale_rows", |bch| {
        bch.iter(|| scale_rows(black_box(&a), &d[..a.nrows()], &mut sv).unwrap())
    });
    g.bench_function("scale_cols", |bch| {
        bch.iter(|| scale_cols(black_box(&a), &d[..a.ncols()], &mut sv).unwrap())
    });
    for isa in Isa::available() {
        let exec = Exec::from(isa);
        let ws = add_workspace_len(exec, &a, &b).unwrap();
        let (mut wi, mut wv) = (vec![0u32; ws.idx], vec![T::ZERO; ws.vals]);
        let mut row_ptr = vec![0u32; a.nrows() + 1];
        let nnz = add_symbolic(exec, &a, &b, &mut row_ptr, &mut wi).unwrap();
        let (mut ci, mut cv) = (vec![0u32; nnz], vec![T::ZERO; nnz]);
        g.bench_function(BenchmarkId::new("numeric", isa.name()), |bch| {
            bch.iter(|| {
                add_numeric(
                    exec,
                    T::ONE,
                    black_box(&a),
                    T::ONE,
                    &b,
                    &row_ptr,
                    &mut ci,
                    &mut cv,
                    (&mut wi, &mut wv),
                )
                .unwrap()
            })
        });
        g.bench_function(BenchmarkId::new("two-phase", isa.name()), |bch| {
            bch.iter(|| {
                let ws = add_workspace_len(exec, black_box(&a), &b).unwrap();
                let (mut wi, mut wv) = (vec![0u32; ws.idx], vec![T::ZERO; ws.vals]);
                let mut row_ptr = vec![0u32; a.nrows() + 1];
                let nnz = add_symbolic(exec, &a, &b, &mut row_ptr, &mut wi).unwrap();
                let (mut ci, mut cv) = (vec![0u32; nnz], vec![T::ZERO; nnz]);
                add_numeric(exec, T::ONE, &a, T::ONE, &b, &row_ptr, &mut ci, &mut cv, (&mut wi, &mut wv))
                    .unwrap();
                black_box((ci, cv))
            })
        });
        g.bench_function(BenchmarkId::new("owned", isa.name()), |bch| {
            bch.iter(|| add(exec, T::ONE, black_box(&a), T::ONE, &b).unwrap())
        });
    }
    g.finish();
}

fn bench_add(c: &mut Criterion) {
    for input in inputs::inputs() {
        let (name, a) = (input.name(), inputs::load::<f64>(&input));
        if a.view().nrows() != a.view().ncols() {
            continue;
        }
        bench_add_one(c, name, &a);
        bench_add_one(c, name, &inputs::load::<f32>(&input));
    }
}

fn bench_bins_of<T: Scalar + ScanElem>(c: &mut Criterion) {
    // (upper bound per row, entries per row of A)
    for (m, r) in [(8usize, 2usize), (32, 4), (128, 8), (256, 16), (512, 16), (2048, 32)] {
        let cb = m / r;
        for ncols in [1usize << 12, 1 << 20] {
            // About 2^18 products per product.
            let rows = ((1usize << 18) / m).max(1);
            let inner = 4096;
            let a: CsrOwned<T, u32> = uniform_random(rows, inner, r, 5).unwrap();
            let b: CsrOwned<T, u32> = uniform_random(inner, ncols, cb, 6).unwrap();
            let (a, b) = (a.view(), b.view());
            let mut g = c.benchmark_group(format!("bins/{}/ub{m}/n{ncols}", T::NAME));
            g.throughput(Throughput::Elements(2 * products(&a, &b)));
            // The heap and the merge lose by far from 128 on (the `bins` table in
            // `benches/records/kernel-notes-2026-11.md`); above that they would only make the
            // run long.
            for method in RowMethod::ALL
                .into_iter()
                .filter(|&x| m <= 128 || matches!(x, RowMethod::BitonicEsc | RowMethod::Spa))
            {
                let cfg = SpgemmConfig::new().method(method);
                for isa in Isa::available() {
                    g.bench_function(BenchmarkId::new(method.name(), isa.name()), |bch| {
                        bch.iter(|| spgemm(Exec::from(isa), cfg, black_box(&a), &b).unwrap())
                    });
                }
            }
            g.finish();
        }
    }
}

fn bench_bins(c: &mut Criterion) {
    bench_bins_of::<f64>(c);
    bench_bins_of::<f32>(c);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = bench_square, bench_add, bench_bins
}
criterion_main!(benches);
