//! The `gpu` feature's SPIR-V kernels run on a real Vulkan device (lavapipe in CI, which
//! `.ci/run` installs; any GPU elsewhere) and checked against the dense reference: CSR
//! scalar, CSR vector, CSR stream and the three CSR5 passes, `f32` and `f64`, on
//! arbitrary matrices (empty, rectangular, empty rows, one huge row, nnz below one tile
//! and at multiples of a tile ± 1, every `sigma` the GPU layout allows, stream blocks
//! full, one entry over and of many short rows) and arbitrary `alpha`, `beta`.
//!
//! With the feature on, a missing Vulkan device fails these tests: they never pass by
//! skipping.
#![cfg(feature = "gpu")]

mod common;
mod vk;

use common::{RawCsr, assert_close, csr, reference_spmv, scalars, splitmix, vector};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use spblas::gpu::{MAX_SIGMA, OMEGA, SpmvParams};
use spblas::{Csr, Csr5Layout, Csr5Owned, Scalar};
use vk::{Gpu, Method};

fn open<T: Scalar>() -> Gpu {
    match Gpu::new::<T>() {
        Ok(g) => {
            eprintln!("gpu tests on {} (subgroup size {})", g.name, g.subgroup_size);
            g
        }
        Err(e) => panic!("the gpu feature's tests need a Vulkan 1.2 device (CI installs lavapipe): {e}"),
    }
}

/// Runs every method on `raw` and compares with the reference.
fn check<T: Scalar>(
    gpu: &Gpu,
    raw: &RawCsr<T, u32>,
    sigma: Option<usize>,
    alpha: T,
    beta: T,
    seed: u64,
) -> Result<(), TestCaseError> {
    let a = Csr::new(raw.nrows, raw.ncols, &raw.row_ptr, &raw.col_idx, &raw.vals).unwrap();
    let x = vector::<T>(a.ncols(), seed);
    let mut y0 = vector::<T>(a.nrows(), seed.wrapping_add(1));
    if beta == T::ZERO {
        // `y` must be only written.
        y0.fill(T::from_f64(f64::NAN));
    }
    let (want, bound) = reference_spmv(a.nrows(), a.iter(), alpha, &x, beta, &y0);
    let factor = (a.max_row_len() + 3) as f64;
    // The vector kernel with the rule's width and with 1, 4 and 32 lanes per row (wider
    // than lavapipe's subgroup of 8: the kernel narrows it).
    let runs = [(Method::CsrScalar, None), (Method::CsrVector, None), (Method::CsrStream, None)]
        .into_iter()
        .chain([1, 4, 32].map(|l| (Method::CsrVector, Some(l))));
    for (method, lanes) in runs {
        let mut p = gpu.upload_csr(&a, alpha, &x, beta, &y0).unwrap();
        if let Some(l) = lanes {
            p.params.lanes = l;
        }
        let y = gpu.spmv(method, &p).unwrap();
        gpu.free_problem(p);
        assert_close(&y, &want, &bound, factor)
            .map_err(|e| TestCaseError::fail(format!("{method:?} (lanes {lanes:?}): {e}")))?;
    }
    // Tiles of `OMEGA` × `sigma`, or the GPU rule's.
    let layout = match sigma {
        Some(s) => Csr5Layout::with_params(&a, OMEGA, s).unwrap(),
        None => spblas::gpu::csr5_layout(&a).unwrap(),
    };
    let c5 = Csr5Owned::from_csr_layout(&a, &layout).unwrap();
    let c = c5.view();
    let p = gpu.upload_csr5(&c, alpha, &x, beta, &y0).unwrap();
    // Three times from the same `y`: an SpMV must not see the carries of the one before.
    for round in 0..3 {
        if round > 0 {
            gpu.write_y(&p, &y0).unwrap();
        }
        let y = gpu.spmv(Method::Csr5, &p).unwrap();
        assert_close(&y, &want, &bound, factor)
            .map_err(|e| TestCaseError::fail(format!("Csr5 (sigma {}, round {round}): {e}", c.sigma())))?;
    }
    gpu.free_problem(p);
    Ok(())
}

fn proptest_all<T: Scalar>() {
    let gpu = open::<T>();
    let mut runner = TestRunner::new(Config { cases: 96, failure_persistence: None, ..Config::default() });
    let strategy = (
        csr::<T, u32>(300, 48, false),
        prop_oneof![Just(None), (1..=MAX_SIGMA).prop_map(Some)],
        scalars(),
        any::<u64>(),
    );
    runner
        .run(&strategy, |(raw, sigma, (alpha, beta), seed)| {
            check(&gpu, &raw, sigma, T::from_f64(alpha), T::from_f64(beta), seed)
        })
        .unwrap();
}

#[test]
fn kernels_match_the_reference_f32() {
    proptest_all::<f32>();
}

#[test]
fn kernels_match_the_reference_f64() {
    proptest_all::<f64>();
}

/// A matrix with rows of the given lengths (columns spread by a hash).
fn rows<T: Scalar>(ncols: usize, lens: &[usize], seed: u64) -> RawCsr<T, u32> {
    let mut row_ptr = vec![0u32];
    let mut col_idx = Vec::new();
    let mut vals = Vec::new();
    for (i, &len) in lens.iter().enumerate() {
        let mut cols: Vec<u32> = (0..len)
            .map(|j| (splitmix(seed ^ ((i as u64) << 32) ^ j as u64) % ncols as u64) as u32)
            .collect();
        cols.sort_unstable();
        for c in cols {
            col_idx.push(c);
            vals.push(T::from_f64(((splitmix(c as u64 ^ seed) % 9) as f64 - 4.0) * 0.5));
        }
        row_ptr.push(col_idx.len() as u32);
    }
    RawCsr { nrows: lens.len(), ncols, row_ptr, col_idx, vals }
}

/// The shapes the issue names, each made on purpose: 0 × 0, all rows empty, nnz below one
/// tile, nnz at 1, 2, 3 tiles ± 1, one row across many tiles between empty rows, runs of
/// empty rows inside tiles, far more rows than entries, one column, many rows each
/// across many tiles.
fn edge_cases<T: Scalar>() {
    let gpu = open::<T>();
    let tile = OMEGA * MAX_SIGMA;
    let mut cases: Vec<(&str, RawCsr<T, u32>)> = vec![
        ("0 x 0", rows(1, &[], 1)),
        ("all empty", rows(7, &[0; 50], 2)),
        ("below one tile", rows(40, &[3, 0, 5, 1, 0, 9], 3)),
        ("one huge row", rows(5000, &[0, 0, 3, 20 * tile + 17, 0, 1, 0], 4)),
        ("huge row first", rows(900, &[9 * tile, 2], 5)),
        ("m >> nnz", rows(30, &(0..20_000).map(|i| usize::from(i % 97 == 0) * 3).collect::<Vec<_>>(), 6)),
        (
            "empty rows inside tiles",
            rows(64, &(0..3000).map(|i| if i % 3 == 0 { 0 } else { i % 5 }).collect::<Vec<_>>(), 7),
        ),
        ("one column", rows(1, &[1; 1500], 8)),
        // CSR stream blocks: exactly full, one entry over (a long row alone), a long row
        // after short ones, more empty rows than a block takes, rows of every vector
        // width.
        (
            "stream blocks",
            rows(
                3000,
                &[&[1024, 1025, 1, 1023, 2, 3000][..], &[0; 2500], &[512, 512, 513, 300, 40, 9], &[1; 1100]]
                    .concat(),
                12,
            ),
        ),
        // Rows of 1 to 40 tiles side by side: calibrator runs short and long, several
        // long ones in one subgroup, ending at every point of a round.
        (
            "rows across tiles",
            rows(700, &(0..160).map(|i| (1 + (i * 7) % 40) * tile / 3 + i % 5).collect::<Vec<_>>(), 11),
        ),
        // Long rows back to back (a tile ends one long run and heads the next), the last
        // ending in the tail; then rows of a tile each, half a tile off (every tile ends
        // one run of two and heads the next).
        ("long rows into the tail", rows(3000, &[30 * tile + 5, 25 * tile + 100, 40 * tile + 7], 13)),
        ("runs of two", rows(500, &[&[tile / 2][..], &[tile; 60]].concat(), 14)),
    ];
    for k in 1..=3 {
        for d in [-1isize, 0, 1] {
            let nnz = (k * tile) as isize + d;
            let mut lens = vec![7usize; nnz as usize / 7];
            lens.push(nnz as usize % 7);
            cases.push(("k tiles +- 1", rows(100, &lens, 9 + k as u64)));
        }
    }
    for (name, raw) in &cases {
        for (alpha, beta) in [(1.0, 0.0), (-2.5, 0.5), (0.0, 1.0)] {
            for sigma in [None, Some(1), Some(5)] {
                check(&gpu, raw, sigma, T::from_f64(alpha), T::from_f64(beta), 42).unwrap_or_else(|e| {
                    panic!(
                        "{name} ({}x{}, nnz {}), sigma {sigma:?}: {e}",
                        raw.nrows,
                        raw.ncols,
                        raw.vals.len()
                    )
                });
            }
        }
    }
}

#[test]
fn edge_cases_f32() {
    edge_cases::<f32>();
}

#[test]
fn edge_cases_f64() {
    edge_cases::<f64>();
}

/// The bandwidth probe sums what it reads: the partial sums add up to the whole.
#[test]
fn read_stream_sums_its_input() {
    let gpu = open::<f64>();
    let n = 100_003;
    let v: Vec<f64> = (0..n).map(|i| (i % 10) as f64).collect();
    let p = SpmvParams::<f64>::read_stream(n).unwrap();
    let groups = spblas::gpu::Kernel::ReadStream.groups(&p);
    let invocations = groups as usize * spblas::gpu::Kernel::ReadStream.workgroup_size() as usize;
    let vals = gpu.upload(&v).unwrap();
    let y = gpu.zeroed((invocations * 8) as u64).unwrap();
    let set = gpu.descriptor_set(&[(2, &vals), (4, &y)]).unwrap();
    let push = p.push_constants();
    let steps =
        [vk::Step::Dispatch { kernel: spblas::gpu::Kernel::ReadStream, groups, push: push.as_bytes() }];
    gpu.run(set, &steps).unwrap();
    let sums: Vec<f64> = gpu.download(&y, invocations).unwrap();
    assert_eq!(sums.iter().sum::<f64>(), v.iter().sum::<f64>());
    gpu.free_set(set);
    gpu.free(vals);
    gpu.free(y);
}
