//! Thread scaling of the threaded SpMV (feature `parallel`, an `Exec` with threads) over
//! the generated suite: CSR row blocks balanced by entries (`SpMv for Csr`), merge path
//! (`spmv_csr` by `CsrMethod::MergePath`), CSR5 tile ranges (`SpMv for Csr5`) and the
//! rule's plan (`SpmvPlan::new`), each at 1, 2, 4, .. threads.
//!
//! ```text
//! cargo run --release --example scaling --features gen,parallel
//! cargo run --release --example scaling --features gen,parallel -- --small --threads 1,2,4
//! cargo run --release --example scaling --features gen,parallel -- --spgemm
//! cargo run --release --example scaling --features gen,parallel -- --matrix lp_like
//! ```
//!
//! With `--spgemm` it measures the threaded SpGEMM instead (`level3::spgemm` on threads, `A²` of
//! every square suite matrix with at most 250M candidate products), fresh and into the
//! arrays of the product before (`spgemm_reuse`): the median of five runs of each per
//! thread count and the speedup over one thread. The SpGEMM output carries the
//! huge page hint by default (`SpgemmConfig::huge_pages`), `--no-huge-pages` drops it;
//! `--huge-pages` hints the SpMV plan's copies too (`SpmvConfig::huge_pages(true)`).
//! Beside them, the machine's ceiling for the same work: `A`'s rows cut into as many
//! blocks as threads (equal candidate products), each block's product with `A` serial on
//! a thread of its own, no coordination and no assembly of one `C` (*slices*, fresh and
//! reused). Where the slices do not reach a speedup, the threaded product cannot either:
//! what bounds both is the machine (memory, page faults), not the product's threading.
//!
//! For every matrix and thread count the four drivers and a threaded streaming read of
//! the same number of bytes run interleaved (one call of each per round, the median of
//! each over the rounds), so all five see the same machine state. Columns: GB/s by the
//! thesis's byte formula (8.4.2); `%rd`, that as a share of the threaded read; `x rb`,
//! the speedup over the row-block driver at the same thread count; `x 1t`, CSR5's
//! speedup over its own one-thread run; the plan's choice in the last column. The
//! drivers run on rayon's global pool (`RAYON_NUM_THREADS` sizes it).
//!
//! With `--overhead` it measures what a threaded call costs beyond its work instead: on
//! small random matrices (8 entries a row), the serial `Csr::spmv` and the row-block
//! driver at each thread count and at 0 (the driver's own choice, serial below its
//! threshold), in µs per call, and the overhead `t(threads) - t(serial) / threads`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use spblas::generate::{SuiteScale, suite_entries};
use spblas::level2::spmv_csr;
use spblas::level2::{SpmvConfig, SpmvPlan};
use spblas::level3::{SpgemmConfig, upper_bound};
use spblas::level3::{spgemm, spgemm_reuse};
use spblas::{Csr, Csr5Owned, CsrMethod, CsrOwned, Exec, Isa, Scalar, SpMv, available_threads};

#[path = "common/timing.rs"]
mod timing;

const MIN_ROUNDS: usize = 10;
const MAX_ROUNDS: usize = 2_000;
const MIN_TIME: Duration = Duration::from_millis(600);

/// [`timing::interleaved_medians`] with this example's rounds.
fn medians(fs: &mut [&mut dyn FnMut()]) -> Vec<Duration> {
    timing::interleaved_medians(fs, MIN_ROUNDS, MIN_TIME, MAX_ROUNDS)
}

/// A read of all of `buf` by `threads` workers (eight accumulators each, so loads and
/// not an add chain bound it).
fn threaded_read(buf: &[u64], threads: usize) {
    let chunk = buf.len().div_ceil(threads).max(8);
    std::thread::scope(|s| {
        for part in buf.chunks(chunk) {
            s.spawn(move || {
                let mut acc = [0u64; 8];
                for c in part.chunks_exact(8) {
                    for (a, &b) in acc.iter_mut().zip(c) {
                        *a = a.wrapping_add(b);
                    }
                }
                black_box(acc);
            });
        }
    });
}

fn run_matrix<T: Scalar>(name: &str, a: &CsrOwned<T, u32>, isa: Isa, cfg: SpmvConfig, threads: &[usize]) {
    let a = a.view();
    let c5 = Csr5Owned::from_csr(Exec::from(isa), &a).expect("suite matrices convert");
    let c5 = c5.view();
    let x: Vec<T> = (0..a.ncols()).map(|j| T::from_f64(1.0 + (j % 7) as f64)).collect();
    let (m, nnz) = (a.nrows(), a.nnz());
    let plan = SpmvPlan::with_config(Exec::from(isa), &a, cfg).expect("available isa");
    let (mut y_rb, mut y_mp, mut y_c5) = (vec![T::ZERO; m], vec![T::ZERO; m], vec![T::ZERO; m]);
    let mut y_pl = vec![T::ZERO; m];
    let bytes = (m + 1 + nnz) * 4 + (2 * nnz + m) * std::mem::size_of::<T>();
    let buf: Vec<u64> = (0..(bytes / 8).max(64) as u64).collect();
    let gbs = |t: Duration| bytes as f64 / t.as_secs_f64() / 1e9;
    let mut csr5_one = None;
    for &t in threads {
        let times = medians(&mut [
            &mut || {
                a.spmv(Exec::from(isa).threads(t), T::ONE, black_box(&x), T::ZERO, &mut y_rb)
                    .expect("checked")
            },
            &mut || {
                let exec = Exec::from(isa).threads(t);
                spmv_csr(exec, &a, CsrMethod::MergePath, T::ONE, black_box(&x), T::ZERO, &mut y_mp)
                    .expect("checked")
            },
            &mut || {
                c5.spmv(Exec::from(isa).threads(t), T::ONE, black_box(&x), T::ZERO, &mut y_c5)
                    .expect("checked")
            },
            &mut || {
                plan.spmv(Exec::new().threads(t), T::ONE, black_box(&x), T::ZERO, &mut y_pl).expect("checked")
            },
            &mut || threaded_read(black_box(&buf), t),
        ]);
        let [t_rb, t_mp, t_c5, t_pl, t_rd] = times[..] else { unreachable!("five timings") };
        let one = *csr5_one.get_or_insert(t_c5);
        println!(
            "| {:<16} | {:<4} | {:>3} | {:>7.2} {:>4.0}% | {:>7.2} {:>4.0}% {:>5.2} | {:>7.2} {:>4.0}% {:>5.2} {:>5.2} | {:>7.2} {:>4.0}% {:>5.2} | {:>7.2} | {} |",
            name,
            T::NAME,
            t,
            gbs(t_rb),
            100.0 * t_rd.as_secs_f64() / t_rb.as_secs_f64(),
            gbs(t_mp),
            100.0 * t_rd.as_secs_f64() / t_mp.as_secs_f64(),
            t_rb.as_secs_f64() / t_mp.as_secs_f64(),
            gbs(t_c5),
            100.0 * t_rd.as_secs_f64() / t_c5.as_secs_f64(),
            t_rb.as_secs_f64() / t_c5.as_secs_f64(),
            one.as_secs_f64() / t_c5.as_secs_f64(),
            gbs(t_pl),
            100.0 * t_rd.as_secs_f64() / t_pl.as_secs_f64(),
            t_rb.as_secs_f64() / t_pl.as_secs_f64(),
            gbs(t_rd),
            plan.choice(),
        );
    }
}

fn main() {
    let mut scale = SuiteScale::Full;
    let mut threads: Vec<usize> = Vec::new();
    let mut isa = Isa::detect();
    let mut spgemm_only = false;
    let mut overhead = false;
    let mut huge_pages = false;
    let mut spgemm_huge = true;
    let mut only: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--small" => scale = SuiteScale::Small,
            "--spgemm" => spgemm_only = true,
            "--overhead" => overhead = true,
            "--huge-pages" => huge_pages = true,
            "--no-huge-pages" => spgemm_huge = false,
            "--matrix" => only.push(args.next().unwrap_or_default()),
            "--threads" => {
                let v = args.next().unwrap_or_default();
                threads = v.split(',').filter_map(|s| s.parse().ok()).filter(|&t| t > 0).collect();
            }
            "--isa" => {
                let v = args.next().unwrap_or_default();
                isa = Isa::available().find(|i| i.name() == v).unwrap_or_else(|| {
                    eprintln!("--isa {v:?} is not available here");
                    std::process::exit(2)
                });
            }
            _ => {
                eprintln!(
                    "usage: scaling [--small] [--spgemm | --overhead] [--huge-pages] [--threads 1,2,4] [--isa portable|avx2|avx512|neon] [--matrix NAME ...]"
                );
                std::process::exit(2);
            }
        }
    }
    if threads.is_empty() {
        let max = available_threads();
        threads = std::iter::successors(Some(1), |&t| (t * 2 <= max).then_some(t * 2)).collect();
        if threads.last() != Some(&max) {
            threads.push(max);
        }
    }
    println!("isa {}, {} hardware threads", isa.name(), available_threads());
    if overhead {
        call_overhead(isa, &threads);
        return;
    }
    if spgemm_only {
        spgemm_scaling(scale, isa, SpgemmConfig::new().huge_pages(spgemm_huge), &threads);
        return;
    }
    println!("plan huge page hint {}", if huge_pages { "on" } else { "off" });
    println!(
        "| matrix           | prec | thr | row-block GB/s %rd | merge-path GB/s %rd  x rb | csr5 GB/s  %rd  x rb  x 1t | plan GB/s  %rd  x rb | read GB/s | plan |"
    );
    println!(
        "|------------------|------|-----|--------------------|---------------------------|----------------------------|----------------------|-----------|------|"
    );
    for entry in suite_entries(scale).iter().filter(|e| only.is_empty() || only.iter().any(|n| n == e.name)) {
        let a = entry.generate::<f64, u32>().expect("suite matrices generate");
        run_matrix(entry.name, &a, isa, SpmvConfig::new().huge_pages(huge_pages), &threads);
    }
}

/// The threaded SpGEMM `A²` at each thread count, a fresh product (`spgemm`) and one into
/// the arrays of the one before (`spgemm_reuse`) alternated: median of five runs of each,
/// speedup over one thread.
fn spgemm_scaling(scale: SuiteScale, isa: Isa, cfg: SpgemmConfig, threads: &[usize]) {
    println!("huge page hint {}", if cfg.huge_pages { "on" } else { "off" });
    println!(
        "| matrix           | thr | fresh ms | x 1t | reused ms | x 1t | slices ms | x 1t | slices reused ms | x 1t |"
    );
    println!(
        "|------------------|-----|----------|------|-----------|------|-----------|------|------------------|------|"
    );
    for entry in suite_entries(scale) {
        let a = entry.generate::<f64, u32>().expect("suite matrices generate");
        let a = a.view();
        let mut ub = vec![0u32; a.nrows()];
        if a.nrows() != a.ncols() || upper_bound(&a, &a, &mut ub).map_or(true, |p| p > 250_000_000) {
            continue;
        }
        let mut one = None;
        for &t in threads {
            let exec = Exec::from(isa).threads(t);
            let mut c = spgemm(exec, cfg, &a, &a).expect("square");
            let (mut fresh, mut reused) = (Vec::new(), Vec::new());
            for _ in 0..5 {
                let s = Instant::now();
                black_box(spgemm(exec, cfg, &a, &a).expect("square"));
                fresh.push(s.elapsed());
                let s = Instant::now();
                spgemm_reuse(exec, cfg, &a, &a, &mut c).expect("square");
                reused.push(s.elapsed());
            }
            let (sf, sr) = slices_times(isa, cfg, &a, &ub, t);
            let ms = |mut v: Vec<Duration>| {
                v.sort();
                v[v.len() / 2].as_secs_f64() * 1e3
            };
            let (f, r, sf, sr) = (ms(fresh), ms(reused), ms(sf), ms(sr));
            let (f1, r1, sf1, sr1) = *one.get_or_insert((f, r, sf, sr));
            println!(
                "| {:<16} | {t:>3} | {f:>8.1} | {:>4.1} | {r:>9.1} | {:>4.1} | {sf:>9.1} | {:>4.1} | {sr:>16.1} | {:>4.1} |",
                entry.name,
                f1 / f,
                r1 / r,
                sf1 / sf,
                sr1 / sr
            );
        }
    }
}

/// Five times each, fresh and reused: `A`'s rows in `t` blocks of about equal candidate
/// products (`ub`, per row), each block times `A` by the serial product on a thread of its
/// own, all at once (the *slices* of the module documentation).
fn slices_times(
    isa: Isa,
    cfg: SpgemmConfig,
    a: &Csr<'_, f64, u32>,
    ub: &[u32],
    t: usize,
) -> (Vec<Duration>, Vec<Duration>) {
    let mut prefix = vec![0u64];
    for &u in ub {
        prefix.push(prefix[prefix.len() - 1] + u64::from(u));
    }
    let total = prefix[prefix.len() - 1];
    // Block `k` ends at the first row whose prefix reaches `k / t` of the products.
    let mut cuts: Vec<usize> =
        (0..=t).map(|k| prefix.partition_point(|&p| p * (t as u64) < total * k as u64)).collect();
    cuts[0] = 0;
    cuts[t] = a.nrows();
    let rp = a.row_ptr();
    let slices: Vec<CsrOwned<f64, u32>> = cuts
        .windows(2)
        .map(|w| {
            let (r0, r1) = (w[0], w[1].max(w[0]));
            let (s, e) = (rp[r0] as usize, rp[r1] as usize);
            let row_ptr = rp[r0..=r1].iter().map(|&p| p - rp[r0]).collect();
            let (cols, vals) = (a.col_idx()[s..e].to_vec(), a.vals()[s..e].to_vec());
            CsrOwned::from_parts(r1 - r0, a.ncols(), row_ptr, cols, vals).expect("rows of a valid matrix")
        })
        .collect();
    let serial = Exec::from(isa).threads(1);
    let mut outs: Vec<_> =
        slices.iter().map(|b| spgemm(serial, cfg, &b.view(), a).expect("square")).collect();
    let (mut fresh, mut reused) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        let s = Instant::now();
        std::thread::scope(|sc| {
            for b in &slices {
                sc.spawn(move || black_box(spgemm(serial, cfg, &b.view(), a).expect("square")));
            }
        });
        fresh.push(s.elapsed());
        let s = Instant::now();
        std::thread::scope(|sc| {
            for (b, c) in slices.iter().zip(outs.iter_mut()) {
                sc.spawn(move || spgemm_reuse(serial, cfg, &b.view(), a, c).expect("square"));
            }
        });
        reused.push(s.elapsed());
    }
    (fresh, reused)
}

/// Per-call cost of the row-block driver on small matrices against the serial call, all
/// interleaved (see [`medians`]).
fn call_overhead(isa: Isa, threads: &[usize]) {
    println!("| rows | entries | serial µs | threads | driver µs | overhead µs | auto µs |");
    println!("|------|---------|-----------|---------|-----------|-------------|---------|");
    for m in [128usize, 1024, 4096, 16384, 65536] {
        let mut row_ptr = vec![0u32];
        let mut col_idx = Vec::new();
        for i in 0..m {
            let mut row: Vec<u32> = (0..8).map(|k| ((i * 7919 + k * 104_729) % m) as u32).collect();
            row.sort_unstable();
            row.dedup();
            col_idx.extend(row);
            row_ptr.push(col_idx.len() as u32);
        }
        let vals = vec![1.0f64; col_idx.len()];
        let a = spblas::Csr::<f64, u32>::new(m, m, &row_ptr, &col_idx, &vals).expect("valid");
        let x = vec![1.0f64; m];
        let (mut y0, mut y1, mut y2) = (vec![0.0; m], vec![0.0; m], vec![0.0; m]);
        for &t in threads {
            let times = medians(&mut [
                &mut || a.spmv(Exec::from(isa), 1.0, black_box(&x), 0.0, &mut y0).expect("checked"),
                &mut || {
                    a.spmv(Exec::from(isa).threads(t), 1.0, black_box(&x), 0.0, &mut y1).expect("checked")
                },
                &mut || {
                    a.spmv(Exec::from(isa).threads(0), 1.0, black_box(&x), 0.0, &mut y2).expect("checked")
                },
            ]);
            let us = |d: Duration| d.as_secs_f64() * 1e6;
            let (s, d, auto) = (us(times[0]), us(times[1]), us(times[2]));
            println!(
                "| {m} | {} | {s:.2} | {t} | {d:.2} | {:.2} | {auto:.2} |",
                col_idx.len(),
                d - s / t as f64
            );
        }
    }
}
