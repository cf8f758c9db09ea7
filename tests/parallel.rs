//! Thread drivers: the threaded CSR SpMV equals the serial one bit for bit (each row is
//! computed by the same serial loop), for any thread count; threaded CSR5 and merge path
//! equal the reference; a plan on threads runs as it runs alone.
#![cfg(feature = "parallel")]

mod common;

use common::{RawCsr, assert_close, csr, reference_spmv, vector};
use proptest::prelude::*;
use spblas::formats::csr5::omega_for;
use spblas::level2::{SpmvChoice, SpmvConfig, SpmvPlan, balanced_row_partition, spmv_csr};
use spblas::{Csr5Layout, Csr5Owned, CsrMethod, CsrOwned, DimError, Exec, Index, Isa, SpMv};
use std::sync::OnceLock;

/// Runs `f` in a pool of 9 threads: the drivers run no more tasks than their pool has
/// threads, so the counts below (up to 8) split the work that many ways on any machine.
/// Where no thread can start (WebAssembly without threads), on this thread: the drivers
/// then run serially, as they must.
fn wide<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    match POOL.get_or_init(|| rayon::ThreadPoolBuilder::new().num_threads(9).build().ok()) {
        Some(pool) => pool.install(f),
        None => f(),
    }
}

/// `exec` on `threads` tasks.
fn on(isa: Isa, threads: usize) -> Exec {
    Exec::from(isa).threads(threads)
}

/// The plan that runs `choice` on `isa`.
fn plan_of<'a, I: Index>(a: &spblas::Csr<'a, f64, I>, isa: Isa, choice: SpmvChoice) -> SpmvPlan<'a, f64, I> {
    SpmvPlan::with_config(Exec::from(isa), a, SpmvConfig::new().choice(choice)).unwrap()
}

fn threaded_csr5_spmv_matches_reference_check<I: Index>(
    raw: &RawCsr<f64, I>,
    threads: usize,
    sigma: usize,
    seed: u64,
) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    let x = vector::<f64>(a.ncols(), seed);
    let y0 = vector::<f64>(a.nrows(), seed + 1);
    let (want, bound) = reference_spmv(a.nrows(), a.iter(), 1.5, &x, 0.5, &y0);
    for isa in Isa::available() {
        let layout = Csr5Layout::with_params(&a, omega_for::<f64>(isa), sigma).unwrap();
        let c5 = Csr5Owned::from_csr_layout(&a, &layout).unwrap();
        let mut got = y0.clone();
        c5.view().spmv(on(isa, threads), 1.5, &x, 0.5, &mut got).unwrap();
        assert_close(&got, &want, &bound, (a.max_row_len() + 3) as f64)?;
    }
    Ok(())
}

fn threaded_csr_spmv_equals_serial_bitwise_check<I: Index>(
    raw: &RawCsr<f64, I>,
    threads: usize,
    seed: u64,
) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    let x = vector::<f64>(a.ncols(), seed);
    let y0 = vector::<f64>(a.nrows(), seed + 1);
    let mut want = y0.clone();
    a.spmv(Exec::from(Isa::Portable), 1.5, &x, 0.5, &mut want).unwrap();
    let mut got = y0.clone();
    a.spmv(on(Isa::Portable, threads), 1.5, &x, 0.5, &mut got).unwrap();
    prop_assert_eq!(got, want);
    Ok(())
}

fn threaded_merge_path_spmv_matches_reference_check<I: Index>(
    raw: &RawCsr<f64, I>,
    threads: usize,
    seed: u64,
) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    let x = vector::<f64>(a.ncols(), seed);
    let y0 = vector::<f64>(a.nrows(), seed + 1);
    let (want, bound) = reference_spmv(a.nrows(), a.iter(), 1.5, &x, 0.5, &y0);
    for isa in Isa::available() {
        let mut got = y0.clone();
        spmv_csr(on(isa, threads), &a, CsrMethod::MergePath, 1.5, &x, 0.5, &mut got).unwrap();
        assert_close(&got, &want, &bound, (a.max_row_len() + 3) as f64)?;
    }
    Ok(())
}

/// Every choice a plan can hold (each CSR method, CSR5, and the rule's), on every
/// `Isa`: on threads it equals the reference, and where its blocks run the serial
/// plan's own kernel (the row methods, the segmented sum) the serial plan bit for bit.
fn threaded_plan_runs_as_the_serial_plan_check<I: Index>(
    raw: &RawCsr<f64, I>,
    threads: usize,
    seed: u64,
) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    let x = vector::<f64>(a.ncols(), seed);
    let y0 = vector::<f64>(a.nrows(), seed + 1);
    let (want, bound) = reference_spmv(a.nrows(), a.iter(), 1.5, &x, 0.5, &y0);
    let panels = SpmvChoice::Csr5Panels { columns: a.ncols().div_ceil(4).max(1) };
    let choices = CsrMethod::ALL.iter().map(|&m| SpmvChoice::Csr(m)).chain([SpmvChoice::Csr5, panels]);
    for isa in Isa::available() {
        let plans = choices.clone().map(|c| plan_of(&a, isa, c));
        for plan in plans.chain([SpmvPlan::new(Exec::from(isa), &a).unwrap()]) {
            let mut serial = y0.clone();
            plan.spmv(Exec::new(), 1.5, &x, 0.5, &mut serial).unwrap();
            let mut got = y0.clone();
            plan.spmv(Exec::new().threads(threads), 1.5, &x, 0.5, &mut got).unwrap();
            assert_close(&got, &want, &bound, (a.max_row_len() + 3) as f64)?;
            let rows = [CsrMethod::RowScalar, CsrMethod::RowVector, CsrMethod::SegmentedSum];
            if rows.iter().any(|&m| plan.choice() == SpmvChoice::Csr(m)) {
                let bits = |v: &[f64]| v.iter().map(|t| t.to_bits()).collect::<Vec<_>>();
                prop_assert_eq!(bits(&got), bits(&serial), "{} on {:?}", plan.choice(), isa);
            }
        }
    }
    Ok(())
}

fn row_partition_is_monotone_and_covers_all_rows_check<I: Index>(
    raw: &RawCsr<f64, I>,
    parts: usize,
) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    let mut b = vec![0; parts + 1];
    balanced_row_partition(&a, parts, &mut b).unwrap();
    prop_assert_eq!(b[0], 0);
    prop_assert_eq!(b[parts], a.nrows());
    prop_assert!(b.windows(2).all(|w| w[0] <= w[1]));
    // Each part holds at most its share plus one row.
    let total = a.nnz() + a.nrows();
    for w in b.windows(2) {
        let work = a.row_ptr()[w[1]].to_usize() - a.row_ptr()[w[0]].to_usize() + (w[1] - w[0]);
        let max_row = a.max_row_len() + 1;
        prop_assert!(work <= total.div_ceil(parts) + max_row, "part {:?} has work {}", w, work);
    }
    Ok(())
}

proptest! {
    #[test]
    fn threaded_csr5_spmv_matches_reference(raw in csr::<f64, u32>(80, 20, false), threads in 0usize..9, sigma in 1usize..5, seed: u64) {
        wide(|| threaded_csr5_spmv_matches_reference_check(&raw, threads, sigma, seed))?;
    }

    #[test]
    fn threaded_csr5_spmv_matches_reference_u16(raw in csr::<f64, u16>(80, 20, false), threads in 0usize..9, sigma in 1usize..5, seed: u64) {
        wide(|| threaded_csr5_spmv_matches_reference_check(&raw, threads, sigma, seed))?;
    }

    #[test]
    fn threaded_csr_spmv_equals_serial_bitwise(raw in csr::<f64, u32>(60, 20, false), threads in 0usize..7, seed: u64) {
        wide(|| threaded_csr_spmv_equals_serial_bitwise_check(&raw, threads, seed))?;
    }

    #[test]
    fn threaded_csr_spmv_equals_serial_bitwise_u16(raw in csr::<f64, u16>(60, 20, false), threads in 0usize..7, seed: u64) {
        wide(|| threaded_csr_spmv_equals_serial_bitwise_check(&raw, threads, seed))?;
    }

    #[test]
    fn threaded_merge_path_spmv_matches_reference(raw in csr::<f64, u32>(60, 40, false), threads in 0usize..9, seed: u64) {
        wide(|| threaded_merge_path_spmv_matches_reference_check(&raw, threads, seed))?;
    }

    #[test]
    fn threaded_merge_path_spmv_matches_reference_u16(raw in csr::<f64, u16>(60, 40, false), threads in 0usize..9, seed: u64) {
        wide(|| threaded_merge_path_spmv_matches_reference_check(&raw, threads, seed))?;
    }

    #[test]
    fn threaded_plan_runs_as_the_serial_plan(raw in csr::<f64, u32>(60, 30, false), threads in 0usize..9, seed: u64) {
        wide(|| threaded_plan_runs_as_the_serial_plan_check(&raw, threads, seed))?;
    }

    #[test]
    fn threaded_plan_runs_as_the_serial_plan_u16(raw in csr::<f64, u16>(60, 30, false), threads in 0usize..9, seed: u64) {
        wide(|| threaded_plan_runs_as_the_serial_plan_check(&raw, threads, seed))?;
    }

    #[test]
    fn row_partition_is_monotone_and_covers_all_rows(raw in csr::<f64, u32>(60, 20, false), parts in 1usize..9) {
        row_partition_is_monotone_and_covers_all_rows_check(&raw, parts)?;
    }

    #[test]
    fn row_partition_is_monotone_and_covers_all_rows_u16(raw in csr::<f64, u16>(60, 20, false), parts in 1usize..9) {
        row_partition_is_monotone_and_covers_all_rows_check(&raw, parts)?;
    }
}

/// Short rows of uneven lengths (1 to 10) scattered over a wide `x`, in f32: a plan of
/// the segmented sum, which the threaded driver runs on row ranges, must still give the
/// serial bits at every thread count (its blocks stay on the serial grid).
#[test]
fn threaded_segmented_sum_equals_serial_bitwise() {
    wide(|| {
        let (m, n) = (3000usize, 1_000_000usize);
        let mut row_ptr = vec![0u32];
        let mut col_idx = Vec::new();
        for i in 0..m {
            // Distinct sorted columns: strides of a large odd step, reduced mod `n`.
            let mut row: Vec<u32> = (0..1 + i % 10).map(|k| ((i * 7919 + k * 262_147) % n) as u32).collect();
            row.sort_unstable();
            row.dedup();
            col_idx.extend(row);
            row_ptr.push(col_idx.len() as u32);
        }
        let vals: Vec<f32> = (0..col_idx.len()).map(|k| (k % 13) as f32 * 0.25 - 1.5).collect();
        let a = spblas::Csr::<f32, u32>::new(m, n, &row_ptr, &col_idx, &vals).unwrap();
        let x: Vec<f32> = (0..a.ncols()).map(|j| 1.0 + j as f32 / 7.0).collect();
        let y0: Vec<f32> = (0..a.nrows()).map(|i| i as f32 / 3.0).collect();
        for isa in Isa::available() {
            let config = SpmvConfig::new().choice(SpmvChoice::Csr(CsrMethod::SegmentedSum));
            let plan = SpmvPlan::with_config(Exec::from(isa), &a, config).unwrap();
            let mut want = y0.clone();
            spmv_csr(Exec::from(isa), &a, CsrMethod::SegmentedSum, 1.5, &x, 0.5, &mut want).unwrap();
            for threads in 0..8 {
                let mut got = y0.clone();
                plan.spmv(Exec::new().threads(threads), 1.5, &x, 0.5, &mut got).unwrap();
                let bits = |v: &[f32]| v.iter().map(|t| t.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "{isa:?}, {threads} threads");
            }
        }
    });
}

#[test]
fn threaded_merge_path_splits_one_long_row() {
    wide(|| {
        // One row of 10 000 entries between empty rows: every worker gets a piece of it.
        let n = 10_000;
        let row_ptr: Vec<u32> = vec![0, 0, n, n, n];
        let col_idx: Vec<u32> = (0..n).collect();
        let vals: Vec<f64> = (0..n).map(|j| (j % 7) as f64).collect();
        let a = spblas::Csr::<f64, u32>::new(4, n as usize, &row_ptr, &col_idx, &vals).unwrap();
        let x = vec![1.0; n as usize];
        let want: f64 = vals.iter().sum();
        for threads in [1, 2, 3, 8] {
            let mut y = vec![f64::NAN; 4];
            spmv_csr(on(Isa::Portable, threads), &a, CsrMethod::MergePath, 1.0, &x, 0.0, &mut y).unwrap();
            assert_eq!(y, [0.0, want, 0.0, 0.0]);
        }
    });
}

/// A plan of CSR5 column panels on threads: wrong lengths are refused, leaving `y` alone;
/// with `alpha == 0` it scales `y` (zeros for `beta == 0`, even over NaN).
#[test]
fn threaded_panel_plan_checks_lengths_and_scales() {
    wide(|| {
        let a = spblas::CsrOwned::<f64, u32>::from_triplets(2, 4, &[(0, 0, 1.0), (1, 3, 2.0), (0, 2, 4.0)])
            .unwrap();
        let a = a.view();
        let plan = plan_of(&a, Isa::Portable, SpmvChoice::Csr5Panels { columns: 2 });
        let mut y = [7.0; 2];
        let x = [1.0; 4];
        assert!(plan.spmv(Exec::new().threads(2), 1.0, &x[..3], 0.0, &mut y).is_err());
        assert!(plan.spmv(Exec::new().threads(2), 1.0, &x, 0.0, &mut y[..1]).is_err());
        assert_eq!(y, [7.0; 2]);
        for threads in [0, 1, 2, 5] {
            let exec = Exec::new().threads(threads);
            let mut y = [f64::NAN; 2];
            plan.spmv(exec, 1.0, &x, 0.0, &mut y).unwrap();
            assert_eq!(y, [5.0, 2.0]);
            plan.spmv(exec, 2.0, &x, 0.5, &mut y).unwrap();
            assert_eq!(y, [12.5, 5.0]);
            let mut y = [f64::NAN; 2];
            plan.spmv(exec, 0.0, &x, 0.0, &mut y).unwrap();
            assert_eq!(y, [0.0; 2]);
        }
    });
}

/// Enough rows that the workers' `y`s are summed on several blocks (and few enough that
/// the sum stays on one thread): every row gets the same exact integers either way.
#[test]
fn panel_driver_sums_many_rows_exactly() {
    wide(|| {
        for m in [100usize, 3 * 4096 + 17] {
            let n = 64;
            let trip: Vec<(usize, usize, f64)> = (0..m)
                .flat_map(|i| (0..5).map(move |k| (i, (i * 7 + k * 13) % n, (1 + (i + k) % 5) as f64)))
                .collect();
            let a = CsrOwned::<f64, u32>::from_triplets(m, n, &trip).unwrap();
            let a = a.view();
            let plan = plan_of(&a, Isa::Portable, SpmvChoice::Csr5Panels { columns: 16 });
            let x: Vec<f64> = (0..n).map(|j| (j % 9) as f64).collect();
            let mut want = vec![0.0; m];
            for &(i, j, v) in &trip {
                want[i] += v * x[j];
            }
            for threads in [1, 2, 3, 8] {
                let mut y: Vec<f64> = (0..m).map(|i| i as f64).collect();
                plan.spmv(Exec::new().threads(threads), 2.0, &x, 0.5, &mut y).unwrap();
                let exact: Vec<f64> = (0..m).map(|i| 0.5 * i as f64 + 2.0 * want[i]).collect();
                assert_eq!(y, exact, "m {m} threads {threads}");
            }
        }
    });
}

#[test]
fn threaded_drivers_reject_wrong_lengths_and_leave_y_untouched() {
    let a = spblas::Csr::<f64, u32>::new(2, 3, &[0, 1, 2], &[0, 2], &[1.0, 2.0]).unwrap();
    let mut y = [7.0; 3];
    let exec = on(Isa::Portable, 2);
    assert!(spmv_csr(exec, &a, CsrMethod::MergePath, 1.0, &[1.0; 3], 0.0, &mut y).is_err());
    assert!(a.spmv(exec, 1.0, &[1.0; 2], 0.0, &mut y[..2]).is_err());
    assert_eq!(y, [7.0; 3]);
    for choice in [
        SpmvChoice::Csr(CsrMethod::RowScalar),
        SpmvChoice::Csr(CsrMethod::MergePath),
        SpmvChoice::Csr5,
        SpmvChoice::Csr5Panels { columns: 2 },
    ] {
        let plan = plan_of(&a, Isa::Portable, choice);
        assert!(plan.spmv(exec, 1.0, &[1.0; 2], 0.0, &mut y[..2]).is_err());
        assert!(plan.spmv(exec, 1.0, &[1.0; 3], 0.0, &mut y).is_err());
        assert_eq!(y, [7.0; 3]);
    }
}

#[test]
fn undersized_bounds_buffer_is_an_error() {
    let a = spblas::Csr::<f64, u32>::new(1, 1, &[0, 1], &[0], &[1.0]).unwrap();
    let mut b = [0usize; 2];
    assert!(balanced_row_partition(&a, 2, &mut b).is_err());
}

/// The threaded SpGEMM equals the serial hybrid one exactly (same rows, same kernels,
/// same sums), for any thread count, on the per-bin rule and on every forced method.
#[test]
fn threaded_spgemm_equals_serial_exactly() {
    wide(|| {
        threaded_spgemm::<u32>();
    });
}

/// As for `u32`; the largest product has more entries than `u16` counts, an overflow
/// on threads as it is serially.
#[test]
fn threaded_spgemm_equals_serial_exactly_u16() {
    wide(|| {
        threaded_spgemm::<u16>();
    });
}

fn threaded_spgemm<I: Index + spblas::primitives::Key>() {
    use spblas::CsrOwned;
    use spblas::level3::{RowMethod, SpgemmConfig, spgemm, spgemm_reuse};
    let mut s = 0x1234_5678_9ABC_DEF0u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for (m, k, n, per_row) in
        [(0, 0, 0, 0), (1, 5, 7, 3), (300, 200, 250, 6), (2000, 1500, 40_000, 4), (500, 500, 500, 60)]
    {
        let mut t = Vec::new();
        for i in 0..m {
            // Every fifth row empty, every 97th row long.
            let len = if i % 5 == 0 {
                0
            } else if i % 97 == 0 {
                per_row * 20
            } else {
                1 + next() as usize % per_row.max(1)
            };
            for _ in 0..len.min(k) {
                t.push((i, next() as usize % k, (next() % 9) as f64 - 4.0));
            }
        }
        let a = CsrOwned::<f64, I>::from_triplets(m, k, &t).unwrap();
        let mut tb = Vec::new();
        for i in 0..k {
            for _ in 0..(next() as usize % (per_row + 1)) {
                tb.push((i, next() as usize % n.max(1), (next() % 7) as f64 - 3.0));
            }
        }
        let b = CsrOwned::<f64, I>::from_triplets(k, n, &tb).unwrap();
        let (av, bv) = (a.view(), b.view());
        let mut cfgs = vec![SpgemmConfig::new()];
        cfgs.extend(RowMethod::ALL.map(|m| SpgemmConfig::new().method(m)));
        for cfg in cfgs {
            let want = match spgemm(Exec::new(), cfg, &av, &bv) {
                Ok(c) => c,
                Err(e) => {
                    assert!(matches!(e, DimError::Overflow { what: "nnz(C)", .. }), "{e:?}");
                    assert!(I::MAX_USIZE < u32::MAX as usize, "{e:?}");
                    for threads in [0, 2, 7] {
                        let got = spgemm(Exec::new().threads(threads), cfg, &av, &bv);
                        assert_eq!(got.map(|c| c.nnz()), Err(e), "the same count on {threads} threads");
                        let mut c = CsrOwned::from_csr(&bv).unwrap();
                        let got = spgemm_reuse(Exec::new().threads(threads), cfg, &av, &bv, &mut c);
                        assert_eq!(got.map(|s| s.nnz_c), Err(e), "reused, {threads} threads");
                    }
                    continue;
                }
            };
            let mut serial = CsrOwned::from_triplets(0, 0, &[]).unwrap();
            let st = spgemm_reuse(Exec::new(), cfg, &av, &bv, &mut serial).unwrap();
            let same = |got: &CsrOwned<f64, I>, what: &str| {
                let (w, g) = (want.view(), got.view());
                assert_eq!((g.nrows(), g.ncols()), (w.nrows(), w.ncols()), "{what}");
                assert_eq!(g.row_ptr(), w.row_ptr(), "{what}");
                assert_eq!(g.col_idx(), w.col_idx(), "{what}");
                assert!(g.vals().iter().zip(w.vals()).all(|(x, y)| x.to_bits() == y.to_bits()), "{what}");
                assert_eq!(g.row_order(), spblas::RowOrder::Canonical, "{what}");
            };
            for threads in [0, 1, 2, 3, 7, 64] {
                let exec = Exec::new().threads(threads);
                let got = spgemm(exec, cfg, &av, &bv).unwrap();
                same(&got, &format!("{cfg:?} threads {threads}"));
                // Into the memory of another matrix (`b`'s copy, `a`'s: smaller or larger
                // than `C`), then into that of this product itself.
                for earlier in [&b, &a] {
                    let mut c = CsrOwned::from_csr(&earlier.view()).unwrap();
                    for round in 0..2 {
                        let s = spgemm_reuse(exec, cfg, &av, &bv, &mut c).unwrap();
                        same(&c, &format!("{cfg:?} threads {threads}, reused, round {round}"));
                        assert_eq!(
                            (s.nnz_c, s.nnz_upper, s.rows_per_bin, s.bytes_precise),
                            (st.nnz_c, st.nnz_upper, st.rows_per_bin, st.bytes_precise),
                            "{cfg:?} threads {threads}"
                        );
                        assert!(s.bytes_hybrid >= s.bytes_precise, "{s:?}");
                    }
                }
            }
        }
    }
    // Dimension errors as in the serial product.
    let a = CsrOwned::<f64, I>::from_triplets(2, 3, &[]).unwrap();
    assert!(spgemm(Exec::new().threads(4), SpgemmConfig::new(), &a.view(), &a.view()).is_err());
}

/// Short rows of `A` holding most of the products: their block passes several threads'
/// shares, and the cuts after it start past their share. The product is the serial one
/// bit for bit on up to 8 tasks ([`wide`]; the cuts must not underflow, even in debug
/// builds).
#[test]
fn threaded_spgemm_with_rows_past_many_shares() {
    use spblas::level3::{SpgemmConfig, spgemm};
    let n = 3000;
    let mut t: Vec<(usize, usize, f64)> = (0..n).map(|i| (i, (i * 7) % n, 1.0 + (i % 3) as f64)).collect();
    // Row 1500 is long; rows 100..140 hold one entry each, in column 1500: short rows of
    // `A` whose products (a long row of `B` each) outweigh the rest of the matrix.
    t.extend((0..n).step_by(2).map(|j| (1500, j, 0.5)));
    t.extend((100..140).map(|i| (i, 1500, 0.25)));
    let a = CsrOwned::<f64, u32>::from_triplets(n, n, &t).unwrap();
    let a = a.view();
    let want = spgemm(Exec::new(), SpgemmConfig::new(), &a, &a).unwrap();
    for threads in [2, 5, 8] {
        let got = wide(|| spgemm(Exec::new().threads(threads), SpgemmConfig::new(), &a, &a).unwrap());
        assert_eq!(got.view().row_ptr(), want.view().row_ptr(), "{threads} threads");
        assert_eq!(got.view().col_idx(), want.view().col_idx(), "{threads} threads");
        assert!(got.view().vals().iter().zip(want.view().vals()).all(|(x, y)| x.to_bits() == y.to_bits()));
    }
}

/// The drivers run on the caller's rayon pool: inside a pool of 3 threads, 0 threads means
/// 3 tasks and the results equal the serial ones bit for bit (the row blocks) or within
/// rounding (CSR5, merge path); a request for 50 000 threads runs on the pool's 3 threads
/// instead of spawning them, and a matrix too small to split runs on the calling thread.
// WebAssembly without threads can start no pool (there the drivers run serially, as
// every other test here checks).
#[cfg(not(target_family = "wasm"))]
#[test]
fn drivers_run_on_the_callers_pool() {
    let n = 20_000;
    let raw = from_lens_f64(n, n, |i| 1 + i % 7);
    let a = raw.view();
    let x: Vec<f64> = (0..n).map(|j| 1.0 + (j % 5) as f64 * 0.5).collect();
    let mut want = vec![0.0; n];
    a.spmv(Exec::new(), 1.0, &x, 0.0, &mut want).unwrap();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    pool.install(|| {
        assert_eq!(spblas::available_threads(), 3);
        for threads in [0, 2, 50_000] {
            let mut got = vec![f64::NAN; n];
            a.spmv(Exec::new().threads(threads), 1.0, &x, 0.0, &mut got).unwrap();
            assert_eq!(got, want, "{threads} threads");
            let mut got = vec![f64::NAN; n];
            spmv_csr(Exec::new().threads(threads), &a, CsrMethod::MergePath, 1.0, &x, 0.0, &mut got).unwrap();
            assert!(got.iter().zip(&want).all(|(g, w)| (g - w).abs() <= 1e-9 * w.abs().max(1.0)));
        }
    });
    // From a thread outside any pool too (the global pool).
    let mut got = vec![f64::NAN; n];
    a.spmv(Exec::new().threads(0), 1.0, &x, 0.0, &mut got).unwrap();
    assert_eq!(got, want);
}

#[cfg(not(target_family = "wasm"))]
fn from_lens_f64(m: usize, n: usize, len: impl Fn(usize) -> usize) -> CsrOwned<f64, u32> {
    let mut row_ptr = vec![0u32];
    let mut col_idx = Vec::new();
    for i in 0..m {
        let mut row: Vec<u32> = (0..len(i)).map(|k| ((i * 7919 + k * 104_729) % n) as u32).collect();
        row.sort_unstable();
        row.dedup();
        col_idx.extend(row);
        row_ptr.push(col_idx.len() as u32);
    }
    let vals = (0..col_idx.len()).map(|k| (k % 13) as f64 * 0.25 - 1.5).collect();
    CsrOwned::from_parts(m, n, row_ptr, col_idx, vals).unwrap()
}

/// A DIA plan on threads gives the serial plan's bits at every task count.
#[test]
fn threaded_dia_plan_equals_serial_bitwise() {
    wide(|| {
        let n = 50_000;
        let offsets = [-224isize, -1, 0, 1, 224];
        let mut triplets = Vec::new();
        for i in 0..n {
            for d in offsets {
                let j = i as isize + d;
                if (0..n as isize).contains(&j) {
                    triplets.push((i, j as usize, 1.0 + ((i * 7 + j as usize) % 11) as f64 * 0.125));
                }
            }
        }
        let a = CsrOwned::<f64, u32>::from_triplets(n, n, &triplets).unwrap();
        let a = a.view();
        let x: Vec<f64> = (0..n).map(|j| 0.5 + (j % 9) as f64 * 0.25).collect();
        let y0: Vec<f64> = (0..n).map(|i| (i % 5) as f64).collect();
        let plan = plan_of(&a, Isa::detect(), SpmvChoice::Dia);
        let mut want = y0.clone();
        plan.spmv(Exec::new(), 1.5, &x, 0.5, &mut want).unwrap();
        for threads in 0..6 {
            let mut got = y0.clone();
            plan.spmv(Exec::new().threads(threads), 1.5, &x, 0.5, &mut got).unwrap();
            assert_eq!(got, want, "{threads} threads");
        }
    });
}
