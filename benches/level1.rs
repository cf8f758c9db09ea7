//! Sparse vector addition (thesis chapter 7) per method, per length and per density, on
//! every `Isa` this machine has and both precisions, and the automatic rules against
//! them: the numbers behind the rule. `auto` is the fixed `AddMethod::choose`
//! (`AddRule::DEFAULT`), `tuned` the rule `AddRule::tune` fits to this machine and width
//! at the start of the run (printed; its own inputs, not these). `loop` is the same-run
//! baseline: a plain two-pointer merge written here, as a user would.
//!
//! Each input has about `nnz` entries (2 .. 32K) drawn at random from dimension `n`:
//! `dense` is `n = 2 nnz` (inputs half full, output ~75%), `4x` is `n = 4 nnz`, `32x` is
//! `n = 32 nnz`, `1M` is `n = 2^20` (2 to 8K entries). `u32` indices; groups
//! `add/<density>/<f32|f64>`, ids `<method>/<isa>/<nnz>`.
//!
//! Calls run in turn through `2^17 / nnz` distinct input pairs (at most 16K), so no pair
//! comes back before about 256K candidate entries have passed. Fewer pairs measure the
//! branch predictor, not the method: a current core learns the branches of a few dozen
//! short inputs timed millions of times. An earlier version of this bench rotated among 64
//! pairs, which made the (then branchy) SPA look several times faster than it is and put
//! it ahead where the merge wins (`benches/records/kernel-notes-2026-11.md`, "Sparse
//! vector addition methods").
//!
//! `cargo bench --bench level1` (all), `cargo bench --bench level1 -- 'add/4x/f64'` (one
//! density and precision), `-- --warm-up-time 0.2 --measurement-time 0.5` for a quick pass.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use spblas::level1::{AddMethod, AddRule, SpVec, add, add_workspace_len};
use spblas::primitives::scan::ScanElem;
use spblas::{Exec, Isa, Scalar};

/// The dimension of the `1M` inputs.
const LONG: usize = 1 << 20;

/// xorshift64: deterministic inputs, no dependency.
fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

/// About `nnz` distinct sorted indices below `n`, with values: each index kept with
/// probability `nnz / n` where `n <= 8 nnz`, else `nnz` draws, sorted, repeats dropped
/// (as `AddRule::tune` draws its inputs).
fn sparse<T: Scalar>(n: usize, nnz: usize, seed: u64) -> (Vec<u32>, Vec<T>) {
    let mut r = rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut idx: Vec<u32> = if n <= 8 * nnz {
        let cut = ((nnz as f64 / n as f64) * u32::MAX as f64) as u64;
        (0..n as u32).filter(|_| (r() & 0xffff_ffff) < cut).collect()
    } else {
        (0..nnz).map(|_| (r() % n as u64) as u32).collect()
    };
    idx.sort_unstable();
    idx.dedup();
    let vals = idx.iter().map(|_| T::from_f64((r() % 1000) as f64 * 0.25)).collect();
    (idx, vals)
}

/// How one benchmark id picks the method: always the same, or by a rule per call.
#[derive(Clone, Copy)]
enum Choice {
    Fixed(AddMethod),
    Rule(AddRule),
}

/// The baseline: a plain two-pointer merge of two sorted sparse vectors, written as a
/// user would; returns the entries written.
fn plain_add<T: Scalar>(x: (&[u32], &[T]), y: (&[u32], &[T]), zi: &mut [u32], zv: &mut [T]) -> usize {
    let (mut i, mut j, mut k) = (0, 0, 0);
    while i < x.0.len() && j < y.0.len() {
        let (a, b) = (x.0[i], y.0[j]);
        if a < b {
            (zi[k], zv[k]) = (a, x.1[i]);
            i += 1;
        } else if b < a {
            (zi[k], zv[k]) = (b, y.1[j]);
            j += 1;
        } else {
            (zi[k], zv[k]) = (a, x.1[i] + y.1[j]);
            i += 1;
            j += 1;
        }
        k += 1;
    }
    for (&a, &v) in x.0[i..].iter().zip(&x.1[i..]) {
        (zi[k], zv[k]) = (a, v);
        k += 1;
    }
    for (&b, &v) in y.0[j..].iter().zip(&y.1[j..]) {
        (zi[k], zv[k]) = (b, v);
        k += 1;
    }
    k
}

fn bench_of<T: Scalar + ScanElem>(c: &mut Criterion) {
    let rules: Vec<(Isa, AddRule)> = Isa::available()
        .map(|isa| {
            let t = std::time::Instant::now();
            let tuned = AddRule::tune::<T>(isa, 5).unwrap();
            eprintln!(
                "AddRule::tune on {} {}: {tuned:?} ({:.0} ms)",
                isa.name(),
                T::NAME,
                t.elapsed().as_secs_f64() * 1e3
            );
            (isa, tuned)
        })
        .collect();
    // `factor` 0: the dimension is fixed at `LONG` (short vectors of a long space, as
    // rows of a large matrix), up to 8K entries.
    for (density, factor) in [("dense", 2usize), ("4x", 4), ("32x", 32), ("1M", 0)] {
        let mut g = c.benchmark_group(format!("add/{density}/{}", T::NAME));
        let lens: &[usize] = if factor == 0 { &[2, 8, 32, 512, 8192] } else { &[2, 16, 128, 2048, 32768] };
        for &nnz in lens {
            let n = if factor == 0 { LONG } else { nnz * factor };
            let sets = ((1usize << 17) / nnz).clamp(1, 1 << 14);
            let inputs: Vec<_> = (0..sets as u64)
                .map(|s| {
                    (sparse::<T>(n, nnz, 2 * s + 1 + nnz as u64), sparse::<T>(n, nnz, 2 * s + 2 + nnz as u64))
                })
                .collect();
            // Views built once: validation (one pass) is not what is measured.
            let views: Vec<_> = inputs
                .iter()
                .map(|((xi, xv), (yi, yv))| (SpVec::new(n, xi, xv).unwrap(), SpVec::new(n, yi, yv).unwrap()))
                .collect();
            let m = inputs.iter().map(|(x, y)| x.0.len() + y.0.len()).max().unwrap_or(0);
            let mut zi = vec![0u32; m];
            let mut zv = vec![T::ZERO; m];
            let ws_len =
                AddMethod::ALL.iter().map(|&a| add_workspace_len::<T>(a, m, 0, n)).max().unwrap_or(0);
            let mut ws = vec![T::ZERO; ws_len];
            g.throughput(Throughput::Elements(m as u64));
            let mut t = 0usize;
            g.bench_function(BenchmarkId::new("loop", nnz), |b| {
                b.iter(|| {
                    let ((xi, xv), (yi, yv)) = &inputs[t % sets];
                    t = t.wrapping_add(1);
                    plain_add((black_box(xi), xv), (black_box(yi), yv), &mut zi, &mut zv)
                })
            });
            // The O(m log m) heap and O(m log^2 m) ESC are far behind from a few hundred
            // entries on; above 8K they would only make the run long.
            let methods: Vec<(&str, Choice)> = AddMethod::ALL
                .iter()
                .filter(|&&m| nnz <= 8192 || matches!(m, AddMethod::Spa | AddMethod::Merge))
                .map(|&m| (m.name(), Choice::Fixed(m)))
                .collect();
            for &(isa, tuned) in &rules {
                // `auto` / `tuned`: the rule asked per call, as a caller would (it is O(1));
                // `auto` is `AddRule::DEFAULT`, the rule behind `AddMethod::choose_isa`.
                for &(name, choice) in methods
                    .iter()
                    .chain(&[("auto", Choice::Rule(AddRule::DEFAULT)), ("tuned", Choice::Rule(tuned))])
                {
                    let mut t = 0usize;
                    g.bench_function(BenchmarkId::new(format!("{name}/{}", isa.name()), nnz), |b| {
                        b.iter(|| {
                            let (x, y) = views[t % sets];
                            t = t.wrapping_add(1);
                            let (x, y) = (black_box(x), black_box(y));
                            let method = match choice {
                                Choice::Fixed(m) => m,
                                Choice::Rule(rule) => rule.choose(isa, x.nnz(), y.nnz(), n),
                            };
                            add(Exec::from(isa), x, y, &mut zi, &mut zv, method, &mut ws).unwrap()
                        })
                    });
                }
            }
        }
        g.finish();
    }
}

fn bench(c: &mut Criterion) {
    bench_of::<f64>(c);
    bench_of::<f32>(c);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(1));
    targets = bench
}
criterion_main!(benches);
