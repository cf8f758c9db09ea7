//! CSR5 SpMM (`level2::spmm_csr5`, each tile read once for `k` columns) against the CSR
//! SpMM (`level2::spmm_csr`) and `k` CSR5 SpMVs on the columns of `X`, per `Isa` and
//! precision, `k` = 1, 8, 32, on the matrices CSR5 is made for (`web_like`, `rmat`,
//! `dc2_like`) and `poisson2d`: prints the table of `benches/records/csr5-spmm-*.md`.
//!
//! ```text
//! cargo run --release --example csr5_spmm --features gen -- [rounds] [small|quick]
//! ```
//!
//! The three are timed in turn, round after round, and each keeps its fastest round, so a
//! burst of foreign load on a shared machine does not land on one of them alone (the
//! criterion groups `csr5_spmm/` of `benches/spmm.rs` time the same calls one after
//! another). Times are per vector (a call's time divided by `k`).

use std::time::Instant;

use spblas::generate::{SuiteScale, suite_entries};
use spblas::level2::{spmm_csr, spmm_csr5};
use spblas::{Csr5Owned, CsrOwned, DenseMut, DenseRef, Exec, Isa, Scalar, SpMv};

#[path = "../benches/common/web_like.rs"]
mod web_like;

/// One cell: the fastest round of each of the three, in µs per vector.
struct Cell {
    spmvs: f64,
    csr: f64,
    csr5: f64,
}

fn cell<T: Scalar>(a: &CsrOwned<T, u32>, c5: &Csr5Owned<T, u32>, isa: Isa, k: usize, rounds: usize) -> Cell {
    let (a, c5, exec) = (a.view(), c5.view(), Exec::from(isa));
    let (m, n) = (a.nrows(), a.ncols());
    let x: Vec<T> = (0..n * k).map(|p| T::from_f64(1.0 + (p % 5) as f64)).collect();
    let xc: Vec<T> = (0..k * n).map(|p| x[(p % n) * k + p / n]).collect();
    let mut y = vec![T::ZERO; m * k];
    let xd = DenseRef::row_major(n, k, &x).unwrap();
    let time = |f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        t.elapsed().as_secs_f64() * 1e6 / k as f64
    };
    let mut best = Cell { spmvs: f64::MAX, csr: f64::MAX, csr5: f64::MAX };
    for _ in 0..rounds {
        best.spmvs = best.spmvs.min(time(&mut || {
            for (xv, yv) in xc.chunks_exact(n.max(1)).zip(y.chunks_exact_mut(m.max(1))) {
                c5.spmv(exec, T::ONE, xv, T::ZERO, yv).unwrap();
            }
        }));
        let mut yd = DenseMut::row_major(m, k, &mut y).unwrap();
        best.csr = best.csr.min(time(&mut || spmm_csr(exec, &a, T::ONE, xd, T::ZERO, &mut yd).unwrap()));
        best.csr5 = best.csr5.min(time(&mut || spmm_csr5(exec, &c5, T::ONE, xd, T::ZERO, &mut yd).unwrap()));
    }
    best
}

/// The rows of one matrix in one precision; the ratios for the geometric means.
fn rows<T: Scalar>(name: &str, a: &CsrOwned<T, u32>, rounds: usize, ratios: &mut Vec<(String, [f64; 3])>) {
    for isa in Isa::available() {
        let c5 = Csr5Owned::from_csr(Exec::from(isa), &a.view()).unwrap();
        let one = cell(a, &c5, isa, 1, rounds).spmvs;
        for k in [1usize, 8, 32] {
            let c = cell(a, &c5, isa, k, rounds);
            let r = [c.csr5 / one, c.csr5 / c.spmvs, c.csr5 / c.csr];
            println!(
                "| {name} | {} | {k} | {isa} | {:.1} | {:.1} | {:.1} | {:.2} | {:.2} | {:.2} |",
                T::NAME,
                c.spmvs,
                c.csr,
                c.csr5,
                r[0],
                r[1],
                r[2]
            );
            ratios.push((format!("{} | {k} | {isa}", T::NAME), r));
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(15);
    let (scale, web) = match args.next().as_deref() {
        Some("small") => (SuiteScale::Small, 20_000),
        _ => (SuiteScale::Quick, 200_000),
    };
    println!(
        "| matrix | prec | k | isa | k CSR5 SpMVs / vec (µs) | CSR SpMM / vec | CSR5 SpMM / vec | CSR5 SpMM ÷ one SpMV | ÷ its k SpMVs | ÷ CSR SpMM |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut ratios = Vec::new();
    rows("web_like", &web_like::web_like::<f64>(web), rounds, &mut ratios);
    rows("web_like", &web_like::web_like::<f32>(web), rounds, &mut ratios);
    for e in suite_entries(scale).iter().filter(|e| ["rmat", "dc2_like", "poisson2d"].contains(&e.name)) {
        rows(e.name, &e.generate::<f64, u32>().unwrap(), rounds, &mut ratios);
        rows(e.name, &e.generate::<f32, u32>().unwrap(), rounds, &mut ratios);
    }
    println!();
    println!("| prec | k | isa | CSR5 SpMM ÷ one SpMV | ÷ its k SpMVs | ÷ CSR SpMM |");
    println!("|---|---|---|---|---|---|");
    let mut keys: Vec<String> = ratios.iter().map(|(k, _)| k.clone()).collect();
    keys.dedup();
    keys.sort();
    keys.dedup();
    for key in keys {
        let v: Vec<[f64; 3]> = ratios.iter().filter(|(k, _)| *k == key).map(|(_, r)| *r).collect();
        let g = |i: usize| (v.iter().map(|r| r[i].ln()).sum::<f64>() / v.len() as f64).exp();
        println!("| {key} | {:.2} | {:.2} | {:.2} |", g(0), g(1), g(2));
    }
}
