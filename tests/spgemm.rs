//! SpGEMM (`level3`, thesis chapter 9) against a dense reference: every row method and
//! the per-bin rule, every available `Isa`, the symbolic, numeric and hybrid paths.
//! Values are small integers, so every sum is exact in f32 and f64 and the comparison is
//! exact (including explicit zeros and cancellations, which must be kept).

mod common;

use std::collections::BTreeMap;

use common::splitmix;
use proptest::prelude::*;
use spblas::Exec;
use spblas::TUNING;
use spblas::level3::{
    Bin, NBINS, RowMethod, SpgemmConfig, a_at, bin_rows, galerkin, spgemm, spgemm_bounded, spgemm_numeric,
    spgemm_numeric_rows, spgemm_reuse, spgemm_symbolic, spgemm_workspace_len, upper_bound,
};
use spblas::primitives::Key;
use spblas::primitives::scan::ScanElem;
use spblas::{Csr, CsrOwned, DimError, Index, Isa, RowOrder, Scalar};

/// `nrows x ncols` with row lengths from `len(i)`, random columns (sorted and deduplicated
/// when `canonical`, else in random order with repeats) and values in -4..=4.
fn gen_csr<T: Scalar, I: Index>(
    nrows: usize,
    ncols: usize,
    seed: u64,
    canonical: bool,
    len: impl Fn(usize, u64) -> usize,
) -> CsrOwned<T, I> {
    let mut row_ptr = vec![I::ZERO];
    let (mut col_idx, mut vals) = (Vec::new(), Vec::new());
    for i in 0..nrows {
        let h = splitmix(seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let l = if ncols == 0 { 0 } else { len(i, h) };
        let mut cols: Vec<usize> =
            (0..l).map(|k| (splitmix(h.wrapping_add(k as u64)) % ncols as u64) as usize).collect();
        if canonical {
            cols.sort_unstable();
            cols.dedup();
        }
        for (k, &c) in cols.iter().enumerate() {
            col_idx.push(I::from_usize(c).unwrap());
            vals.push(T::from_f64((splitmix(h ^ (k as u64 + 7)) % 9) as f64 - 4.0));
        }
        row_ptr.push(I::from_usize(col_idx.len()).unwrap());
    }
    CsrOwned::from_parts(nrows, ncols, row_ptr, col_idx, vals).unwrap()
}

/// The exact product as sorted `(row, col, value)`: every column any product reaches,
/// values summed in f64 (exact for these inputs).
fn reference<T: Scalar, I: Index>(a: &Csr<'_, T, I>, b: &Csr<'_, T, I>) -> Vec<(usize, usize, f64)> {
    let mut rows: Vec<BTreeMap<usize, f64>> = vec![BTreeMap::new(); a.nrows()];
    for (i, k, av) in a.iter() {
        let (bc, bv) = b.row(k).unwrap();
        for (&j, &bv) in bc.iter().zip(bv) {
            *rows[i].entry(j.to_usize()).or_insert(0.0) += av.to_f64() * bv.to_f64();
        }
    }
    rows.iter().enumerate().flat_map(|(i, r)| r.iter().map(move |(&j, &v)| (i, j, v))).collect()
}

fn entries<T: Scalar, I: Index>(c: &Csr<'_, T, I>) -> Vec<(usize, usize, f64)> {
    c.iter().map(|(i, j, v)| (i, j, v.to_f64())).collect()
}

/// Every configuration to run: the per-bin rule and each forced method, on every `Isa`.
fn configs() -> Vec<(Exec, SpgemmConfig)> {
    let mut v = Vec::new();
    for isa in Isa::available() {
        v.push((Exec::from(isa), SpgemmConfig::new()));
        for m in RowMethod::ALL {
            v.push((Exec::from(isa), SpgemmConfig::new().method(m)));
        }
    }
    v
}

/// Runs symbolic + numeric and the hybrid `spgemm_with` under `cfg` and checks both
/// against `want`; a forced merge on a non-canonical `B` must be refused instead.
fn check_config<T: Scalar + ScanElem, I: Index + Key>(
    (exec, cfg): (Exec, SpgemmConfig),
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
    want: &[(usize, usize, f64)],
) -> Result<(), TestCaseError> {
    if cfg.method == Some(RowMethod::Merge) && b.row_order() != RowOrder::Canonical {
        prop_assert_eq!(
            spgemm_workspace_len(exec, cfg, a, b).unwrap_err(),
            DimError::NotCanonical { operand: "b" }
        );
        prop_assert_eq!(spgemm(exec, cfg, a, b).unwrap_err(), DimError::NotCanonical { operand: "b" });
        return Ok(());
    }
    let ws = spgemm_workspace_len(exec, cfg, a, b).unwrap();
    // Garbage in the workspace must not matter.
    let mut wi = vec![I::from_usize(3).unwrap(); ws.idx];
    let mut wv = vec![T::from_f64(f64::NAN); ws.vals];
    let mut row_ptr = vec![I::ZERO; a.nrows() + 1];
    let nnz = spgemm_symbolic(exec, cfg, a, b, &mut row_ptr, &mut wi).unwrap();
    prop_assert_eq!(nnz, want.len(), "symbolic nnz, {:?}", (exec, cfg));
    // Exact row lengths.
    let mut counts = vec![0usize; a.nrows()];
    for &(i, _, _) in want {
        counts[i] += 1;
    }
    for i in 0..a.nrows() {
        prop_assert_eq!(row_ptr[i + 1].to_usize() - row_ptr[i].to_usize(), counts[i], "row {} {:?}", i, cfg);
    }
    let (mut ci, mut cv) = (vec![I::ZERO; nnz], vec![T::from_f64(f64::NAN); nnz]);
    wi.fill(I::from_usize(1).unwrap());
    spgemm_numeric(exec, cfg, a, b, &row_ptr, &mut ci, &mut cv, (&mut wi, &mut wv)).unwrap();
    let c = Csr::new(a.nrows(), b.ncols(), &row_ptr, &ci, &cv).unwrap();
    prop_assert_eq!(c.row_order(), RowOrder::Canonical);
    prop_assert_eq!(entries(&c), want, "numeric {:?}", (exec, cfg));
    // Stage 3 bin by bin (the public per-bin entry point) gives the same arrays; rows of
    // other bins stay untouched.
    let mut ub = vec![I::ZERO; a.nrows()];
    upper_bound(a, b, &mut ub).unwrap();
    let mut perm = vec![I::ZERO; a.nrows()];
    let mut bin_ptr = [0usize; NBINS + 1];
    bin_rows(a, b, &ub, &mut perm, &mut bin_ptr).unwrap();
    let (mut pi, mut pv) = (vec![I::MAX; nnz], vec![T::from_f64(-7.0); nnz]);
    for k in 0..NBINS {
        let rows = &perm[bin_ptr[k]..bin_ptr[k + 1]];
        spgemm_numeric_rows(exec, cfg, a, b, rows, &row_ptr, &mut pi, &mut pv, (&mut wi, &mut wv)).unwrap();
        for &r in rows {
            let range = row_ptr[r.to_usize()].to_usize()..row_ptr[r.to_usize() + 1].to_usize();
            prop_assert_eq!(&pi[range.clone()], &ci[range.clone()]);
            prop_assert!(pv[range.clone()].iter().zip(&cv[range]).all(|(x, y)| x.to_f64() == y.to_f64()));
        }
    }
    prop_assert!(pi == ci, "per-bin {:?}", (exec, cfg));
    // One pass into buffers of the upper bound: the precise path's arrays, bit for bit;
    // one entry short of the bound is an error before anything is written.
    let total = upper_bound(a, b, &mut ub).unwrap();
    let (mut bp, mut bi, mut bv) = (vec![I::MAX; a.nrows() + 1], vec![I::MAX; total], vec![T::ZERO; total]);
    let got = spgemm_bounded(exec, cfg, a, b, &mut bp, &mut bi, &mut bv, (&mut wi, &mut wv)).unwrap();
    prop_assert_eq!(got, nnz);
    prop_assert_eq!(&bp, &row_ptr);
    prop_assert_eq!(&bi[..nnz], &ci[..]);
    prop_assert!(bv[..nnz].iter().zip(&cv).all(|(x, y)| x.to_f64().to_bits() == y.to_f64().to_bits()));
    if total > 0 {
        let mut short = vec![I::MAX; total - 1];
        let e =
            spgemm_bounded(exec, cfg, a, b, &mut bp, &mut short, &mut bv, (&mut wi, &mut wv)).unwrap_err();
        prop_assert_eq!(e, DimError::BufferTooSmall { buffer: "c_col_idx", needed: total, got: total - 1 });
        prop_assert!(short.iter().all(|&v| v == I::MAX));
    }
    let h = spgemm(exec, cfg, a, b).unwrap();
    prop_assert_eq!(h.view().row_order(), RowOrder::Canonical);
    prop_assert_eq!((h.nrows(), h.ncols()), (a.nrows(), b.ncols()));
    prop_assert_eq!(entries(&h.view()), want, "hybrid {:?}", (exec, cfg));
    // Into the memory of an earlier matrix (`b`'s copy, then this product itself): the
    // same arrays as a fresh product, bit for bit.
    let mut r = CsrOwned::from_csr(b).unwrap();
    for _ in 0..2 {
        spgemm_reuse(exec, cfg, a, b, &mut r).unwrap();
        let (rv, hv) = (r.view(), h.view());
        prop_assert_eq!((r.nrows(), r.ncols()), (h.nrows(), h.ncols()));
        prop_assert_eq!(rv.row_order(), RowOrder::Canonical);
        prop_assert_eq!(rv.row_ptr(), hv.row_ptr());
        prop_assert_eq!(rv.col_idx(), hv.col_idx());
        prop_assert!(
            rv.vals().iter().zip(hv.vals()).all(|(x, y)| x.to_f64().to_bits() == y.to_f64().to_bits()),
            "reuse {:?}",
            cfg
        );
    }
    Ok(())
}

fn check_all<T: Scalar + ScanElem, I: Index + Key>(
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
) -> Result<(), TestCaseError> {
    let want = reference(a, b);
    for run in configs() {
        check_config(run, a, b, &want)?;
    }
    Ok(())
}

/// Shapes `(m, k, n)` with zeros, row lengths up to `max_len` with now and then a row
/// far longer (so every bin is hit), canonical or unsorted-with-duplicates inputs.
fn operands<T: Scalar, I: Index>() -> impl Strategy<Value = (CsrOwned<T, I>, CsrOwned<T, I>)> {
    // Wide `B`s (thousands of marker words) send short SPA rows down the sorting path.
    let n = prop_oneof![3 => 0usize..=300, 1 => 20_000usize..=60_000];
    (0usize..=40, 0usize..=40, n, 0usize..=12, any::<u64>(), any::<bool>(), any::<bool>()).prop_map(
        |(m, k, n, max_len, seed, ca, cb)| {
            let len = move |_i: usize, h: u64| {
                if h.is_multiple_of(11) {
                    40 + (h >> 8) as usize % 60
                } else {
                    (h >> 8) as usize % (max_len + 1)
                }
            };
            let a = gen_csr::<T, I>(m, k, seed, ca, len);
            let b = gen_csr::<T, I>(k, n, seed.wrapping_add(1), cb, len);
            (a, b)
        },
    )
}

/// `A` random and `B` whose rows are mostly runs of consecutive columns (lengths around
/// the SPA's run threshold and across marker words: 1..=200 from any start), the rest
/// random: the SPA adds such rows as runs, the other methods as products.
fn run_operands() -> impl Strategy<Value = (CsrOwned<f64, u32>, CsrOwned<f64, u32>)> {
    (0usize..=30, 1usize..=40, 1usize..=700, any::<u64>(), 0usize..=40).prop_map(|(m, k, n, seed, max_a)| {
        let a = gen_csr::<f64, u32>(m, k, seed, true, move |_, h| (h >> 8) as usize % (max_a + 1));
        let mut row_ptr = vec![0u32];
        let (mut col_idx, mut vals) = (Vec::new(), Vec::new());
        for r in 0..k {
            let h = splitmix(seed ^ 0xB0B ^ (r as u64) << 20);
            let cols: Vec<usize> = if h.is_multiple_of(4) {
                let l = (h >> 8) as usize % 12;
                let mut c: Vec<usize> =
                    (0..l).map(|t| (splitmix(h + t as u64) % n as u64) as usize).collect();
                c.sort_unstable();
                c.dedup();
                c
            } else {
                let start = (h >> 8) as usize % n;
                let len = 1 + (h >> 24) as usize % 200;
                (start..n.min(start + len)).collect()
            };
            for (t, &c) in cols.iter().enumerate() {
                col_idx.push(c as u32);
                vals.push((splitmix(h ^ (t as u64 + 3)) % 9) as f64 - 4.0);
            }
            row_ptr.push(col_idx.len() as u32);
        }
        (a, CsrOwned::from_parts(k, n, row_ptr, col_idx, vals).unwrap())
    })
}

/// `n x n` whose rows repeat a pattern: offsets from the diagonal (`shifted`) or a block
/// repeated in place (rows of one block of `bs` share their columns), a row in `noise`
/// perturbed in each of four ways (one column added or dropped, all shifted by one, a
/// middle column moved by one); canonical, or shuffled with one entry repeated. Values:
/// small integers (`exact`, so sums are exact) or values whose sums round differently in
/// every order.
#[allow(clippy::too_many_arguments)] // a test generator: each knob is a property dimension
fn patterned<I: Index>(
    n: usize,
    offsets: &[i64],
    bs: usize,
    shifted: bool,
    canonical: bool,
    exact: bool,
    seed: u64,
    noise: u64,
) -> CsrOwned<f64, I> {
    let mut row_ptr = vec![I::ZERO];
    let (mut col_idx, mut vals) = (Vec::new(), Vec::new());
    for i in 0..n {
        let h = splitmix(seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let base = if shifted { i as i64 } else { (i - i % bs) as i64 };
        let mut cols: Vec<usize> = offsets
            .iter()
            .map(|&o| if shifted { base + o } else { base + o.rem_euclid(bs as i64) })
            .filter(|&c| 0 <= c && c < n as i64)
            .map(|c| c as usize)
            .collect();
        match h % noise {
            0 => cols.push((h >> 8) as usize % n),
            1 if !cols.is_empty() => {
                cols.remove((h >> 8) as usize % cols.len());
            }
            // The same columns one further right: same length, another offset.
            2 => cols = cols.iter().map(|&c| c + 1).filter(|&c| c < n).collect(),
            // A middle column moved by one: same length, first and last column (only the
            // columns, or the pattern ids of `B`'s rows, tell the pattern apart).
            3 if cols.len() >= 3 => {
                cols.sort_unstable();
                let m = 1 + (h >> 8) as usize % (cols.len() - 2);
                if cols[m] + 1 < cols[m + 1] {
                    cols[m] += 1;
                } else if cols[m] > cols[m - 1] + 1 {
                    cols[m] -= 1;
                }
            }
            _ => {}
        }
        cols.sort_unstable();
        cols.dedup();
        if !canonical && !cols.is_empty() {
            cols.push(cols[(h >> 16) as usize % cols.len()]);
            let r = (h >> 24) as usize % cols.len();
            cols.rotate_left(r);
        }
        for (k, &c) in cols.iter().enumerate() {
            col_idx.push(I::from_usize(c).unwrap());
            let r = splitmix(h ^ (k as u64 + 7));
            vals.push(if exact { (r % 9) as f64 - 4.0 } else { (r % 2000) as f64 / 7.0 - 100.0 });
        }
        row_ptr.push(I::from_usize(col_idx.len()).unwrap());
    }
    CsrOwned::from_parts(n, n, row_ptr, col_idx, vals).unwrap()
}

/// Column offsets of [`patterned`] rows: a scatter, or a band (the plans' runs).
fn pattern_offsets() -> impl Strategy<Value = Vec<i64>> {
    prop_oneof![
        proptest::collection::vec(-12i64..12, 1..9),
        (-8i64..=0, 0i64..8).prop_map(|(lo, hi)| (lo..=hi).collect::<Vec<_>>()),
    ]
}

/// The hybrid on [`patterned`] operands equals the dense reference (exact values) and,
/// with inexact values, the precise path (which has no plans) bit for bit, on every `Isa`.
/// A product with more entries than `I` counts is an overflow from both paths.
fn check_patterned<I: Index + Key>(
    n: usize,
    offsets: &[i64],
    bs: usize,
    shifted: bool,
    canonical: bool,
    seed: u64,
    noise: u64,
) -> Result<(), TestCaseError> {
    for exact in [true, false] {
        let a = patterned::<I>(n, offsets, bs, shifted, canonical, exact, seed, noise);
        let b = patterned::<I>(n, offsets, bs, shifted, canonical, exact, seed ^ 0x5EED, noise);
        let (a, b) = (a.view(), b.view());
        let want_nnz = reference(&a, &b).len();
        for isa in Isa::available() {
            let (exec, cfg) = (Exec::from(isa), SpgemmConfig::new());
            let mut h = CsrOwned::from_triplets(0, 0, &[]).unwrap();
            if want_nnz > I::MAX_USIZE {
                let overflow = |e: DimError| matches!(e, DimError::Overflow { what: "nnz(C)", .. });
                prop_assert!(spgemm_reuse(exec, cfg, &a, &b, &mut h).is_err_and(overflow));
                prop_assert!(spgemm(exec, cfg, &a, &b).is_err_and(overflow));
                let ws = spgemm_workspace_len(exec, cfg, &a, &b).unwrap();
                let mut wi = vec![I::ZERO; ws.idx];
                let mut row_ptr = vec![I::MAX; n + 1];
                let r = spgemm_symbolic(exec, cfg, &a, &b, &mut row_ptr, &mut wi);
                prop_assert!(r.is_err_and(overflow));
                prop_assert!(row_ptr.iter().all(|&p| p == I::MAX));
                continue;
            }
            let stats = spgemm_reuse(exec, cfg, &a, &b, &mut h).unwrap();
            let h = h.view();
            prop_assert_eq!(h.row_order(), RowOrder::Canonical);
            prop_assert_eq!(stats.nnz_c, h.nnz());
            if exact {
                prop_assert_eq!(entries(&h), reference(&a, &b), "{:?}", isa);
                continue;
            }
            let ws = spgemm_workspace_len(exec, cfg, &a, &b).unwrap();
            let (mut wi, mut wv) = (vec![I::ZERO; ws.idx], vec![0.0f64; ws.vals]);
            let mut row_ptr = vec![I::ZERO; n + 1];
            let nnz = spgemm_symbolic(exec, cfg, &a, &b, &mut row_ptr, &mut wi).unwrap();
            let (mut ci, mut cv) = (vec![I::ZERO; nnz], vec![0.0f64; nnz]);
            spgemm_numeric(exec, cfg, &a, &b, &row_ptr, &mut ci, &mut cv, (&mut wi, &mut wv)).unwrap();
            prop_assert_eq!(h.row_ptr(), &row_ptr[..], "{:?}", isa);
            prop_assert_eq!(h.col_idx(), &ci[..], "{:?}", isa);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(h.vals()), bits(&cv), "{:?}", isa);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::common::cases(24)))]

    /// As above on products long enough for the plans to number `B`'s row patterns
    /// (after 256 matches; blocks of 1024 rows): ids then stand for the columns of the
    /// rows of `B`, including rows that differ from their neighbours in a middle
    /// column only.
    #[test]
    fn repeated_row_patterns_with_pattern_ids_match_the_precise_path_bitwise(
        n in 1500usize..4000,
        offsets in pattern_offsets(),
        bs in 1usize..40,
        shifted: bool,
        canonical: bool,
        seed: u64,
    ) {
        check_patterned::<u32>(n, &offsets, bs, shifted, canonical, seed, 64)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::common::cases(48)))]

    /// Rows that repeat a pattern (stencils, bands, blocks) take the hybrid's row plans:
    /// the product equals the dense reference (exact values) and, with inexact values,
    /// the precise path (which has no plans) bit for bit, on every `Isa`.
    #[test]
    fn repeated_row_patterns_match_dense_and_the_precise_path_bitwise(
        n in 1usize..300,
        offsets in pattern_offsets(),
        bs in 1usize..40,
        shifted: bool,
        canonical: bool,
        seed: u64,
    ) {
        check_patterned::<u32>(n, &offsets, bs, shifted, canonical, seed, 16)?;
    }

    #[test]
    fn spgemm_with_consecutive_column_runs_in_b_matches_dense((a, b) in run_operands()) {
        prop_assert_eq!(b.view().row_order(), RowOrder::Canonical);
        check_all(&a.view(), &b.view())?;
    }

    #[test]
    fn spgemm_matches_dense_every_method_and_isa_f64_u32((a, b) in operands::<f64, u32>()) {
        check_all(&a.view(), &b.view())?;
    }

    #[test]
    fn spgemm_matches_dense_every_method_and_isa_f32_u64((a, b) in operands::<f32, u64>()) {
        check_all(&a.view(), &b.view())?;
    }

    #[test]
    fn spgemm_matches_dense_every_method_and_isa_f64_u16((a, b) in operands::<f64, u16>()) {
        check_all(&a.view(), &b.view())?;
    }

    #[test]
    fn spgemm_matches_dense_every_method_and_isa_f32_u16((a, b) in operands::<f32, u16>()) {
        check_all(&a.view(), &b.view())?;
    }

    /// `u16` products of repeated row patterns: up to 1 400 rows of up to 49 entries,
    /// so some products have more entries than `u16` counts (an overflow, never a
    /// wrapped row pointer) and the others take the row plans with pattern ids.
    #[test]
    fn repeated_row_patterns_u16_match_or_overflow(
        n in 1100usize..1400,
        offsets in pattern_offsets(),
        bs in 1usize..40,
        shifted: bool,
        canonical: bool,
        seed: u64,
    ) {
        check_patterned::<u16>(n, &offsets, bs, shifted, canonical, seed, 64)?;
    }

    #[test]
    fn spgemm_matches_dense_usize((a, b) in operands::<f64, usize>()) {
        let want = reference(&a.view(), &b.view());
        check_config((Exec::new(), SpgemmConfig::new()), &a.view(), &b.view(), &want)?;
    }

    #[test]
    fn upper_bound_sums_referenced_rows_and_bins_partition_rows((a, b) in operands::<f64, u32>()) {
        let (a, b) = (a.view(), b.view());
        let mut ub = vec![0u32; a.nrows()];
        let total = upper_bound(&a, &b, &mut ub).unwrap();
        let mut sum = 0;
        for (i, &u) in ub.iter().enumerate() {
            let want: usize = a.row(i).unwrap().0.iter().map(|&k| b.row(k as usize).unwrap().0.len()).sum();
            prop_assert_eq!(u as usize, want);
            sum += want;
        }
        prop_assert_eq!(total, sum);
        let mut perm = vec![0u32; a.nrows()];
        let mut bin_ptr = [0usize; NBINS + 1];
        bin_rows(&a, &b, &ub, &mut perm, &mut bin_ptr).unwrap();
        prop_assert_eq!(bin_ptr[NBINS], a.nrows());
        let mut seen = perm.clone();
        seen.sort_unstable();
        prop_assert!(seen.iter().enumerate().all(|(i, &r)| r as usize == i));
        for (k, bin) in Bin::ALL.into_iter().enumerate() {
            for &r in &perm[bin_ptr[k]..bin_ptr[k + 1]] {
                let alen = a.row(r as usize).unwrap().0.len();
                prop_assert_eq!(Bin::of(ub[r as usize] as usize, alen, b.row_order()), bin);
            }
        }
    }
}

/// `B` is `k x n` with row `r` holding exactly one entry, so a row of `A` with `t`
/// entries has upper bound `t`; `A` gets one row per target bound (each bin edge and
/// its neighbours), plus rows whose products collide.
#[test]
fn rows_on_every_bin_edge_match_dense_every_method_and_isa() {
    let targets = [
        0usize,
        1,
        2,
        3,
        TUNING.spgemm_short_max - 1,
        TUNING.spgemm_short_max,
        TUNING.spgemm_short_max + 1,
        TUNING.spgemm_medium_max - 1,
        TUNING.spgemm_medium_max,
        TUNING.spgemm_medium_max + 1,
    ];
    let k = TUNING.spgemm_medium_max + 8;
    let n = 700;
    for canonical_b in [true, false] {
        // Row r of B: one entry at column (r * 7) % n, or for non-canonical B two equal
        // columns (a duplicate), which doubles the bound.
        let mut trip = Vec::new();
        for r in 0..k {
            trip.push((r, (r * 7) % n, ((r % 5) as f64) - 2.0));
        }
        let b: CsrOwned<f64, u32> = if canonical_b {
            CsrOwned::from_triplets(k, n, &trip).unwrap()
        } else {
            let mut row_ptr = vec![0u32];
            let (mut ci, mut cv) = (Vec::new(), Vec::new());
            for r in 0..k {
                ci.extend([((r * 7) % n) as u32, ((r * 7) % n) as u32]);
                cv.extend([1.0, -1.0]);
                row_ptr.push(ci.len() as u32);
            }
            CsrOwned::from_parts(k, n, row_ptr, ci, cv).unwrap()
        };
        let per_b_row = if canonical_b { 1 } else { 2 };
        let mut trip = Vec::new();
        for (i, &t) in targets.iter().enumerate() {
            // Bound `t` (rounded down to the B rows' length), distinct rows of B but
            // colliding columns: (r * 7) % n repeats every n / gcd(7, n) rows.
            for r in 0..t / per_b_row {
                trip.push((i, r, ((r % 3) as f64) + 1.0));
            }
        }
        let a = CsrOwned::<f64, u32>::from_triplets(targets.len(), k, &trip).unwrap();
        let (av, bv) = (a.view(), b.view());
        let mut ub = vec![0u32; av.nrows()];
        upper_bound(&av, &bv, &mut ub).unwrap();
        if canonical_b {
            assert_eq!(ub.iter().map(|&u| u as usize).collect::<Vec<_>>(), targets);
            let bins: Vec<Bin> = (0..targets.len())
                .map(|i| Bin::of(ub[i] as usize, av.row(i).unwrap().0.len(), bv.row_order()))
                .collect();
            assert_eq!(bins[0], Bin::Empty);
            assert_eq!(bins[1], Bin::Single);
            assert_eq!(bins[5], Bin::Short);
            assert_eq!(bins[6], Bin::Medium);
            assert_eq!(bins[8], Bin::Medium);
            assert_eq!(bins[9], Bin::Long);
        }
        check_all(&av, &bv).unwrap();
    }
}

#[test]
fn one_b_row_of_100k_entries() {
    let n = 250_000;
    let b = gen_csr::<f64, u32>(3, n, 5, true, |i, _| if i == 1 { 2 } else { 100_000 });
    assert!(b.view().row(0).unwrap().0.len() > 80_000);
    // Row 0: a scaled copy (single bin); row 1: two long rows accumulated; row 2: empty.
    let a = CsrOwned::<f64, u32>::from_triplets(3, 3, &[(0, 0, 2.0), (1, 0, 1.0), (1, 2, -1.0), (1, 1, 3.0)])
        .unwrap();
    let (av, bv) = (a.view(), b.view());
    let want = reference(&av, &bv);
    let isa = Isa::detect();
    check_config((Exec::from(isa), SpgemmConfig::new()), &av, &bv, &want).unwrap();
    for m in RowMethod::ALL {
        check_config((Exec::from(isa), SpgemmConfig::new().method(m)), &av, &bv, &want).unwrap();
    }
}

#[test]
fn empty_shapes() {
    for (m, k, n) in [(0, 0, 0), (0, 5, 0), (3, 0, 4), (0, 3, 7), (4, 3, 0), (2, 2, 2)] {
        let a = CsrOwned::<f64, u32>::from_triplets(m, k, &[]).unwrap();
        let b = CsrOwned::<f64, u32>::from_triplets(k, n, &[]).unwrap();
        let (av, bv) = (a.view(), b.view());
        check_all(&av, &bv).unwrap();
        let c = spgemm(Exec::new(), SpgemmConfig::new(), &av, &bv).unwrap();
        assert_eq!((c.nrows(), c.ncols(), c.nnz()), (m, n, 0));
    }
}

/// Rows of at most one candidate product, which go straight into `C`: a permutation
/// times a matrix, a diagonal with empty rows squared, rows of `A` whose one product
/// comes from their last entry (the others reference empty rows of `B`), and a `B` whose
/// rows are unsorted with duplicates elsewhere — every method, every `Isa`, the hybrid
/// product and the threaded one.
#[test]
fn rows_of_one_product_go_straight_into_c() {
    let n = 300;
    let perm: Vec<(usize, usize, f64)> = (0..n).map(|i| (i, (i * 7 + 3) % n, 1.0 + (i % 5) as f64)).collect();
    let diag: Vec<(usize, usize, f64)> =
        (0..n).filter(|i| i % 3 != 0).map(|i| (i, i, -2.0 + (i % 4) as f64)).collect();
    // Row i of `a_late` references rows 3i+1 and 3i+2 of `b_sparse` (empty) and then row
    // 3i (one entry); every fifth row of `b_sparse` also holds an unsorted duplicate pair.
    let a_late: Vec<(usize, usize, f64)> =
        (0..n / 3).flat_map(|i| [(i, 3 * i + 1, 5.0), (i, 3 * i + 2, 6.0), (i, 3 * i, 2.0)]).collect();
    let mut b_sparse: Vec<(usize, usize, f64)> = (0..n).step_by(3).map(|k| (k, (k * 11) % n, 3.0)).collect();
    b_sparse.extend((0..n).step_by(5).flat_map(|k| [(k, 9, 1.0), (k, 2, 4.0), (k, 9, 2.0)]));
    let m = |t: &[(usize, usize, f64)], rows: usize| CsrOwned::<f64, u32>::from_triplets(rows, n, t).unwrap();
    let cases = [
        (m(&perm, n), m(&perm, n)),
        (m(&diag, n), m(&diag, n)),
        (m(&a_late, n / 3), m(&b_sparse, n)),
        (m(&perm, n), m(&b_sparse, n)),
    ];
    for (a, b) in &cases {
        let (a, b) = (a.view(), b.view());
        check_all(&a, &b).unwrap();
        let want = reference(&a, &b);
        assert_eq!(entries(&spgemm(Exec::new(), SpgemmConfig::new(), &a, &b).unwrap().view()), want);
        #[cfg(feature = "parallel")]
        for threads in [1, 2, 3] {
            let c = spgemm(Exec::new().threads(threads), SpgemmConfig::new(), &a, &b).unwrap();
            assert_eq!(entries(&c.view()), want, "{threads} threads");
        }
    }
}

fn small() -> (CsrOwned<f64, u32>, CsrOwned<f64, u32>) {
    let a = gen_csr::<f64, u32>(6, 5, 1, false, |_, h| (h % 5) as usize);
    let b = gen_csr::<f64, u32>(5, 7, 2, false, |_, h| (h % 5) as usize);
    (a, b)
}

#[test]
fn dimension_mismatch_is_an_error_everywhere() {
    let (a, _) = small();
    let a = a.view();
    let err = DimError::Inner { left_ncols: 5, right_nrows: 6 };
    assert_eq!(spgemm_workspace_len(Exec::new(), SpgemmConfig::new(), &a, &a).unwrap_err(), err);
    let mut row_ptr = vec![7u32; 7];
    assert_eq!(
        spgemm_symbolic(Exec::new(), SpgemmConfig::new(), &a, &a, &mut row_ptr, &mut [0u32; 1000])
            .unwrap_err(),
        err
    );
    assert_eq!(row_ptr, vec![7u32; 7]);
    let (mut ci, mut cv) = (vec![9u32; 10], vec![9.0f64; 10]);
    let rp = [0u32; 7];
    assert_eq!(
        spgemm_numeric(
            Exec::new(),
            SpgemmConfig::new(),
            &a,
            &a,
            &rp,
            &mut ci,
            &mut cv,
            (&mut [0u32; 1000], &mut [0.0; 1000])
        )
        .unwrap_err(),
        err
    );
    assert_eq!((ci, cv), (vec![9u32; 10], vec![9.0; 10]));
    assert_eq!(spgemm(Exec::new(), SpgemmConfig::new(), &a, &a).unwrap_err(), err);
    let mut c = CsrOwned::from_csr(&a).unwrap();
    assert_eq!(spgemm_reuse(Exec::new(), SpgemmConfig::new(), &a, &a, &mut c).unwrap_err(), err);
    assert_eq!(c.view().vals(), a.vals());
    assert_eq!(upper_bound(&a, &a, &mut [0u32; 6]).unwrap_err(), err);
    let t = CsrOwned::<f64, u32>::from_triplets(5, 6, &[]).unwrap();
    // Pᵀ (5 x 6) · A (6 x 5) · P: P must have 5 rows.
    assert_eq!(
        galerkin(Exec::new(), SpgemmConfig::new(), &t.view(), &a, &a).unwrap_err(),
        DimError::Inner { left_ncols: 5, right_nrows: 6 }
    );
    assert_eq!(
        galerkin(Exec::new(), SpgemmConfig::new(), &a, &a, &t.view()).unwrap_err(),
        DimError::Inner { left_ncols: 5, right_nrows: 6 }
    );
}

#[test]
fn undersized_buffers_are_errors_and_leave_outputs_untouched() {
    let (a, b) = small();
    let (a, b) = (a.view(), b.view());
    let ws = spgemm_workspace_len(Exec::new(), SpgemmConfig::new(), &a, &b).unwrap();
    assert!(ws.idx > 0 && ws.vals > 0);
    let mut row_ptr = vec![7u32; 7];
    let mut wi = vec![0u32; ws.idx];
    assert_eq!(
        spgemm_symbolic(Exec::new(), SpgemmConfig::new(), &a, &b, &mut row_ptr[..6], &mut wi).unwrap_err(),
        DimError::BufferTooSmall { buffer: "row_ptr_c", needed: 7, got: 6 }
    );
    assert_eq!(
        spgemm_symbolic(Exec::new(), SpgemmConfig::new(), &a, &b, &mut row_ptr, &mut wi[..ws.idx - 1])
            .unwrap_err(),
        DimError::BufferTooSmall { buffer: "workspace", needed: ws.idx, got: ws.idx - 1 }
    );
    assert_eq!(row_ptr, vec![7u32; 7]);
    let nnz = spgemm_symbolic(Exec::new(), SpgemmConfig::new(), &a, &b, &mut row_ptr, &mut wi).unwrap();
    assert!(nnz > 1);
    let mut wv = vec![0.0f64; ws.vals];
    let (mut ci, mut cv) = (vec![9u32; nnz], vec![9.0f64; nnz]);
    let untouched = |ci: &[u32], cv: &[f64]| ci.iter().all(|&c| c == 9) && cv.iter().all(|&v| v == 9.0);
    // Every call below has one buffer one element short.
    let numeric = |ci: &mut [u32], cv: &mut [f64], wi: &mut [u32], wv: &mut [f64]| {
        spgemm_numeric(Exec::new(), SpgemmConfig::new(), &a, &b, &row_ptr, ci, cv, (wi, wv)).unwrap_err()
    };
    let e = numeric(&mut ci[..nnz - 1], &mut cv, &mut wi, &mut wv);
    assert_eq!(e, DimError::BufferTooSmall { buffer: "c_col_idx", needed: nnz, got: nnz - 1 });
    let e = numeric(&mut ci, &mut cv[..nnz - 1], &mut wi, &mut wv);
    assert_eq!(e, DimError::BufferTooSmall { buffer: "c_vals", needed: nnz, got: nnz - 1 });
    let e = numeric(&mut ci, &mut cv, &mut wi[..ws.idx - 1], &mut wv);
    assert_eq!(e, DimError::BufferTooSmall { buffer: "workspace.idx", needed: ws.idx, got: ws.idx - 1 });
    let e = numeric(&mut ci, &mut cv, &mut wi, &mut wv[..ws.vals - 1]);
    assert_eq!(e, DimError::BufferTooSmall { buffer: "workspace.vals", needed: ws.vals, got: ws.vals - 1 });
    let e = spgemm_numeric(
        Exec::new(),
        SpgemmConfig::new(),
        &a,
        &b,
        &row_ptr[..6],
        &mut ci,
        &mut cv,
        (&mut wi, &mut wv),
    )
    .unwrap_err();
    assert_eq!(e, DimError::Length { operand: "c_row_ptr", expected: 7, got: 6 });
    let mut bad = row_ptr.clone();
    bad[0] = 1;
    let e =
        spgemm_numeric(Exec::new(), SpgemmConfig::new(), &a, &b, &bad, &mut ci, &mut cv, (&mut wi, &mut wv))
            .unwrap_err();
    assert!(matches!(e, DimError::OutOfRange { operand: "c_row_ptr", .. }));
    let mut bad = row_ptr.clone();
    bad[3] = bad[4] + 1;
    let e =
        spgemm_numeric(Exec::new(), SpgemmConfig::new(), &a, &b, &bad, &mut ci, &mut cv, (&mut wi, &mut wv))
            .unwrap_err();
    assert_eq!(e, DimError::Unsorted { operand: "c_row_ptr", position: 4 });
    assert!(untouched(&ci, &cv));
    let e = spgemm_numeric_rows(
        Exec::new(),
        SpgemmConfig::new(),
        &a,
        &b,
        &[0, 6],
        &row_ptr,
        &mut ci,
        &mut cv,
        (&mut wi, &mut wv),
    )
    .unwrap_err();
    assert_eq!(e, DimError::OutOfRange { operand: "rows", position: 1, value: 6, max: 5 });
    assert!(untouched(&ci, &cv));
    // Pointers that pass the checks but disagree with the product: found while computing.
    // Move one entry's room from the first non-empty row to the next row.
    let mut shifted = row_ptr.clone();
    let i = (1..7).find(|&i| row_ptr[i - 1] < row_ptr[i]).unwrap();
    shifted[i] -= 1;
    let e = spgemm_numeric(
        Exec::new(),
        SpgemmConfig::new(),
        &a,
        &b,
        &shifted,
        &mut ci,
        &mut cv,
        (&mut wi, &mut wv),
    )
    .unwrap_err();
    assert!(matches!(e, DimError::RowLength { operand: "c_row_ptr", .. }), "{e:?}");
    // And a correct call works after all that.
    spgemm_numeric(Exec::new(), SpgemmConfig::new(), &a, &b, &row_ptr, &mut ci, &mut cv, (&mut wi, &mut wv))
        .unwrap();
    let c = Csr::new(6, 7, &row_ptr, &ci, &cv).unwrap();
    assert_eq!(entries(&c), reference(&a, &b));
}

#[test]
fn unavailable_isa_is_an_error() {
    let (a, b) = small();
    for isa in Isa::ALL.into_iter().filter(|i| !i.is_available()) {
        let (exec, cfg) = (Exec::from(isa), SpgemmConfig::new());
        assert_eq!(
            spgemm_workspace_len(exec, cfg, &a.view(), &b.view()).unwrap_err(),
            DimError::IsaUnavailable { isa }
        );
        assert_eq!(spgemm(exec, cfg, &a.view(), &b.view()).unwrap_err(), DimError::IsaUnavailable { isa });
    }
}

// The counts here pass 2^32: they need a 64-bit `usize`.
#[cfg(target_pointer_width = "64")]
#[test]
fn nnz_of_c_overflowing_u32_is_an_error() {
    // A column of 65 537 ones times a row of 65 537 ones: C is dense, 65 537² > u32::MAX
    // entries. Every row is a single-row copy, so the symbolic phase is O(nrows).
    let n = 65_537usize;
    let a =
        CsrOwned::<f32, u32>::from_parts(n, 1, (0..=n as u32).collect(), vec![0; n], vec![1.0; n]).unwrap();
    let b = CsrOwned::<f32, u32>::from_parts(1, n, vec![0, n as u32], (0..n as u32).collect(), vec![1.0; n])
        .unwrap();
    let (a, b) = (a.view(), b.view());
    let ws = spgemm_workspace_len(Exec::new(), SpgemmConfig::new(), &a, &b).unwrap();
    let mut row_ptr = vec![5u32; n + 1];
    let e = spgemm_symbolic(Exec::new(), SpgemmConfig::new(), &a, &b, &mut row_ptr, &mut vec![0u32; ws.idx])
        .unwrap_err();
    assert_eq!(e, DimError::Overflow { what: "nnz(C)", value: n * n, max: u32::MAX as usize });
    assert!(row_ptr.iter().all(|&p| p == 5));
    // With u64 indices the same count fits.
    let a64 =
        CsrOwned::<f32, u64>::from_parts(n, 1, (0..=n as u64).collect(), vec![0; n], vec![1.0; n]).unwrap();
    let b64 =
        CsrOwned::<f32, u64>::from_parts(1, n, vec![0, n as u64], (0..n as u64).collect(), vec![1.0; n])
            .unwrap();
    let ws = spgemm_workspace_len(Exec::new(), SpgemmConfig::new(), &a64.view(), &b64.view()).unwrap();
    let mut rp = vec![0u64; n + 1];
    assert_eq!(
        spgemm_symbolic(
            Exec::new(),
            SpgemmConfig::new(),
            &a64.view(),
            &b64.view(),
            &mut rp,
            &mut vec![0u64; ws.idx]
        )
        .unwrap(),
        n * n
    );
}

#[test]
fn explicit_zeros_and_cancellations_are_kept() {
    // Row 0 of A·B: 1*1 + 1*(-1) = 0 at column 0 stays an entry.
    let a = CsrOwned::<f64, u32>::from_triplets(1, 2, &[(0, 0, 1.0), (0, 1, 1.0)]).unwrap();
    let b = CsrOwned::<f64, u32>::from_triplets(2, 2, &[(0, 0, 1.0), (1, 0, -1.0), (1, 1, 0.0)]).unwrap();
    for (exec, cfg) in configs() {
        let c = spgemm(exec, cfg, &a.view(), &b.view()).unwrap();
        assert_eq!(entries(&c.view()), vec![(0, 0, 0.0), (0, 1, 0.0)], "{exec:?} {cfg:?}");
    }
}

#[test]
fn hybrid_stats_account_for_bounds_bins_and_growth() {
    // Mostly short rows, every 50th row long.
    let a = gen_csr::<f64, u32>(300, 300, 9, true, |i, h| if i % 50 == 0 { 120 } else { (h % 5) as usize });
    // Into an empty matrix: the stats of a fresh product.
    let mut c = CsrOwned::<f64, u32>::from_triplets(0, 0, &[]).unwrap();
    let st = spgemm_reuse(Exec::new(), SpgemmConfig::new(), &a.view(), &a.view(), &mut c).unwrap();
    assert_eq!(st.nnz_c, c.nnz());
    let mut ub = vec![0u32; 300];
    assert_eq!(st.nnz_upper, upper_bound(&a.view(), &a.view(), &mut ub).unwrap());
    assert!(st.nnz_c <= st.nnz_upper && st.nnz_start <= st.nnz_upper, "{st:?}");
    assert!(st.nnz_start > 0);
    assert_eq!(st.rows_per_bin.iter().sum::<usize>(), 300);
    assert_eq!(st.bytes_precise, c.nnz() * 12 + 301 * 4);
    // The output arrays hold at most their start or GROWTH (1.5x) the entries, plus the
    // staging row.
    // (The staging row grows by doubling, never past `ncols`.)
    let stage = ub.iter().map(|&u| (u as usize).min(300)).max().unwrap().saturating_mul(2).min(300);
    assert!(st.bytes_hybrid >= st.bytes_precise, "{st:?}");
    assert!(
        st.bytes_hybrid
            <= ((st.nnz_c * TUNING.spgemm_growth.0 / TUNING.spgemm_growth.1).max(st.nnz_start) + stage) * 12
                + 301 * 4,
        "{st:?}"
    );
    assert_eq!(entries(&c.view()), reference(&a.view(), &a.view()));
    // A start below nnz(C) makes the arrays grow.
    assert!(st.nnz_start >= st.nnz_c || st.grows > 0, "{st:?}");
}

/// The 5-point stencil (4 on the diagonal, -1 to each grid neighbour) on a `g x g` grid.
fn stencil_5pt(g: usize) -> CsrOwned<f64, u32> {
    let mut t = Vec::new();
    for r in 0..g {
        for c in 0..g {
            let i = r * g + c;
            t.push((i, i, 4.0));
            for (dr, dc) in [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)] {
                let (rr, cc) = (r as i64 + dr, c as i64 + dc);
                if (0..g as i64).contains(&rr) && (0..g as i64).contains(&cc) {
                    t.push((i, rr as usize * g + cc as usize, -1.0));
                }
            }
        }
    }
    CsrOwned::from_triplets(g * g, g * g, &t).unwrap()
}

#[test]
fn hybrid_room_starts_at_the_sampled_estimate() {
    // A 5-point stencil on a 100 x 100 grid: rows of `A²` hold 13 entries inside, the
    // longest referenced row of `B` (the old lower-bound start) only 5.
    let a = stencil_5pt(100);
    let mut c = CsrOwned::<f64, u32>::from_triplets(0, 0, &[]).unwrap();
    let st = spgemm_reuse(Exec::new(), SpgemmConfig::new(), &a.view(), &a.view(), &mut c).unwrap();
    // The sample sees the stencil's ratio of distinct to candidate products: the room
    // covers nnz(C) without growing, with at most an eighth to spare.
    assert_eq!(st.grows, 0, "{st:?}");
    assert!(st.nnz_c <= st.nnz_start && st.nnz_start <= st.nnz_c + st.nnz_c / 8, "{st:?}");
    assert_eq!(entries(&c.view()), reference(&a.view(), &a.view()));
    // A fresh product: the room past nnz(C) is within an eighth, or given back.
    let c = spgemm(Exec::new(), SpgemmConfig::new(), &a.view(), &a.view()).unwrap();
    assert_eq!(entries(&c.view()), reference(&a.view(), &a.view()));
}

/// Products of 16K rows and more whose `nnz(A)` times the longest row of `B` fits the
/// index type: their room and (threaded) cuts come from samples of rows, not a walk of
/// every row. The products are exact, the same on every thread count bit for bit, and a
/// stencil's sampled room covers `nnz(C)` without growing.
#[test]
fn sampled_sizing_products_match_the_reference() {
    // A 5-point stencil on a 130 x 130 grid (16 900 rows).
    let stencil = stencil_5pt(130);
    // Random columns, every fifth row empty and every 97th longer (not 16 times the
    // mean): the sample can miss the longer rows, and the room then grows.
    let uneven = gen_csr::<f64, u32>(20_000, 20_000, 5, true, |i, h| {
        if i % 5 == 0 {
            0
        } else if i % 97 == 0 {
            24
        } else {
            1 + (h % 3) as usize
        }
    });
    for (name, a) in [("stencil", &stencil), ("uneven", &uneven)] {
        let a = a.view();
        let want = reference(&a, &a);
        let mut c = CsrOwned::<f64, u32>::from_triplets(0, 0, &[]).unwrap();
        let st = spgemm_reuse(Exec::new(), SpgemmConfig::new(), &a, &a, &mut c).unwrap();
        assert_eq!(entries(&c.view()), want, "{name}");
        if name == "stencil" {
            assert_eq!(st.grows, 0, "{st:?}");
            assert!(st.nnz_c <= st.nnz_start && st.nnz_start <= st.nnz_c + st.nnz_c / 8, "{st:?}");
        }
        #[cfg(feature = "parallel")]
        for threads in [2, 3, 7] {
            let got = spgemm(Exec::new().threads(threads), SpgemmConfig::new(), &a, &a).unwrap();
            assert_eq!(got.view().row_ptr(), c.view().row_ptr(), "{name} {threads} threads");
            assert_eq!(got.view().col_idx(), c.view().col_idx(), "{name} {threads} threads");
            assert!(got.view().vals().iter().zip(c.view().vals()).all(|(x, y)| x.to_bits() == y.to_bits()));
        }
    }
    // `u16` indices: 20 000 rows of one entry (a permutation), `nnz(C)` within 65 535.
    let perm: Vec<(usize, usize, f64)> = (0..20_000).map(|i| (i, (i * 7919) % 20_000, 2.0)).collect();
    let p = CsrOwned::<f64, u16>::from_triplets(20_000, 20_000, &perm).unwrap();
    let p = p.view();
    let want = reference(&p, &p);
    assert_eq!(entries(&spgemm(Exec::new(), SpgemmConfig::new(), &p, &p).unwrap().view()), want);
    #[cfg(feature = "parallel")]
    assert_eq!(entries(&spgemm(Exec::new().threads(3), SpgemmConfig::new(), &p, &p).unwrap().view()), want);
}

fn dense_mul(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for l in 0..k {
            for j in 0..n {
                c[i * n + j] += a[i * k + l] * b[l * n + j];
            }
        }
    }
    c
}

fn dense<I: Index>(c: &Csr<'_, f64, I>) -> Vec<f64> {
    let mut d = vec![0.0; c.nrows() * c.ncols()];
    c.to_dense(&mut d).unwrap();
    d
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::common::cases(32)))]

    #[test]
    fn transpose_into_matches_dense(seed in any::<u64>(), m in 0usize..20, n in 0usize..20, canon in any::<bool>()) {
        let a = gen_csr::<f64, u32>(m, n, seed, canon, |_, h| (h % 6) as usize);
        let a = a.view();
        let (np, nnz) = a.transpose_len();
        let (mut rp, mut ci, mut v) = (vec![0u32; np], vec![0u32; nnz], vec![0.0; nnz]);
        let at = a.transpose_into(&mut rp, &mut ci, &mut v).unwrap();
        let d = dense(&a);
        let dt = dense(&at);
        for i in 0..m {
            for j in 0..n {
                prop_assert_eq!(d[i * n + j], dt[j * m + i]);
            }
        }
        prop_assert!(at.row_order() != RowOrder::Unsorted);
        // Re-validation agrees with the order claimed.
        let re = Csr::new(n, m, at.row_ptr(), at.col_idx(), at.vals()).unwrap();
        prop_assert_eq!(re.row_order(), at.row_order());
    }

    #[test]
    fn galerkin_and_a_at_match_dense(seed in any::<u64>(), n in 0usize..25, c in 0usize..10) {
        let a = gen_csr::<f64, u32>(n, n, seed, false, |_, h| (h % 5) as usize);
        let p = gen_csr::<f64, u32>(n, c, seed ^ 1, true, |_, h| (h % 3) as usize);
        let (av, pv) = (a.view(), p.view());
        let (np, nnz) = pv.transpose_len();
        let (mut rp, mut ci, mut v) = (vec![0u32; np], vec![0u32; nnz], vec![0.0; nnz]);
        let pt = pv.transpose_into(&mut rp, &mut ci, &mut v).unwrap();
        let g = galerkin(Exec::new(), SpgemmConfig::new(), &pt, &av, &pv).unwrap();
        let (da, dp, dpt) = (dense(&av), dense(&pv), dense(&pt));
        let want = dense_mul(&dense_mul(&dpt, &da, c, n, n), &dp, c, n, c);
        prop_assert_eq!(dense(&g.view()), want);
        let aat = a_at(Exec::new(), SpgemmConfig::new(), &av).unwrap();
        let mut dat = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                dat[j * n + i] = da[i * n + j];
            }
        }
        prop_assert_eq!(dense(&aat.view()), dense_mul(&da, &dat, n, n, n));
        prop_assert_eq!(aat.view().row_order(), RowOrder::Canonical);
    }
}

// Dimensions of 2^60: a 64-bit `usize`.
#[cfg(target_pointer_width = "64")]
#[test]
fn huge_ncols_are_errors_or_work_without_dense_scratch() {
    let n = 1usize << 60;
    let a = CsrOwned::<f64, u64>::from_parts(1, 2, vec![0, 2], vec![0, 1], vec![2.0, 3.0]).unwrap();
    let b = CsrOwned::<f64, u64>::from_parts(2, n, vec![0, 1, 2], vec![5, (n - 1) as u64], vec![1.0, 1.0])
        .unwrap();
    let (av, bv) = (a.view(), b.view());
    // The SPA's dense row would need 2^63 bytes: an error, not an abort.
    let e = spgemm(Exec::new(), SpgemmConfig::new().method(RowMethod::Spa), &av, &bv).unwrap_err();
    assert!(matches!(e, DimError::Overflow { what: "room", .. }), "{e:?}");
    // The automatic rule sees a short row spread over 2^60 columns and sorts instead.
    let c = spgemm(Exec::new(), SpgemmConfig::new(), &av, &bv).unwrap();
    assert_eq!(entries(&c.view()), vec![(0, 5, 2.0), (0, n - 1, 3.0)]);
    // The sorting methods and the merge (whose numeric form, all the hybrid runs, needs
    // no marker bits) need no dense scratch and work.
    for m in [RowMethod::BitonicEsc, RowMethod::Heap, RowMethod::Merge] {
        let c = spgemm(Exec::new(), SpgemmConfig::new().method(m), &av, &bv).unwrap();
        assert_eq!(entries(&c.view()), vec![(0, 5, 2.0), (0, n - 1, 3.0)]);
    }
    // A single-row copy needs none either.
    let one = CsrOwned::<f64, u64>::from_parts(1, 2, vec![0, 1], vec![1], vec![4.0]).unwrap();
    let c = spgemm(Exec::new(), SpgemmConfig::new(), &one.view(), &bv).unwrap();
    assert_eq!(entries(&c.view()), vec![(0, n - 1, 4.0)]);
    // Aᵀ of a 1 x 2^60 matrix would need 2^60 row pointers.
    let e = a_at(Exec::new(), SpgemmConfig::new(), &bv).unwrap_err();
    assert!(matches!(e, DimError::Overflow { what: "transpose", .. }), "{e:?}");
}

/// The register ESC of short rows packs a column into 27 bits: `B` with `2^27 - 1`
/// columns still runs it (its largest column, `2^27 - 2`, included), one more column
/// takes the general ESC; both give the row.
#[test]
fn short_rows_at_the_register_esc_column_limit() {
    for n in [(1usize << 27) - 1, 1 << 27] {
        let a =
            CsrOwned::<f64, u32>::from_parts(1, 3, vec![0, 3], vec![0, 1, 2], vec![1.0, 2.0, 4.0]).unwrap();
        let last = (n - 1) as u32;
        let b = CsrOwned::<f64, u32>::from_parts(
            3,
            n,
            vec![0, 2, 4, 6],
            vec![0, last, 7, last, 0, 7],
            vec![1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        )
        .unwrap();
        let want = vec![(0, 0, 5.0), (0, 7, 6.0), (0, n - 1, 3.0)];
        for isa in Isa::available() {
            let cfg = SpgemmConfig::new().method(RowMethod::BitonicEsc);
            let c = spgemm(Exec::from(isa), cfg, &a.view(), &b.view()).unwrap();
            assert_eq!(entries(&c.view()), want, "{isa:?}, {n} columns");
        }
    }
}

/// Rows of `B` that differ from their neighbours in a middle column only (same length,
/// same first and last column), deep in a stencil product, after the row plans have
/// numbered `B`'s row patterns: their ids must tell them apart from their neighbours'.
#[test]
fn pattern_ids_tell_a_moved_middle_column_apart() {
    let n = 3000usize;
    let mut t = Vec::new();
    for i in 0..n {
        for o in [-2i64, 0, 2] {
            let moved = o == 0 && [1500, 2000, 2001, 2999].contains(&i);
            let c = i as i64 + o + i64::from(moved);
            if (0..n as i64).contains(&c) {
                t.push((i, c as usize, ((i * 7 + c as usize) % 9) as f64 - 4.5));
            }
        }
    }
    let a = CsrOwned::<f64, u32>::from_triplets(n, n, &t).unwrap();
    let (a, want) = (a.view(), reference(&a.view(), &a.view()));
    for isa in Isa::available() {
        let c = spgemm(Exec::from(isa), SpgemmConfig::new(), &a, &a).unwrap();
        assert_eq!(entries(&c.view()), want, "{isa:?}");
    }
}

/// The huge page hint of `SpgemmConfig::huge_pages`: the same product with it on and
/// off, and, where the kernel shows it (`common::vm_flags_of`), the large output arrays
/// of `spgemm`, `spgemm_reuse` and `parallel::spgemm` carry the `hg` flag with it on.
/// (Not the converse: with it off, an array may still land in heap memory an earlier
/// hinted array left to the allocator, flag and all.)
#[test]
fn huge_page_hint_marks_large_outputs_and_changes_nothing() {
    // A tridiagonal operator of 600,000 rows: `A²` has five entries a row, 3M in all,
    // so its columns (12 MB of u32) and values (24 MB of f64) pass the hint's 8 MiB.
    let n = 600_000;
    let mut t = Vec::with_capacity(3 * n);
    for i in 0..n {
        for (d, v) in [(-1i64, -1.0), (0, 2.0 + (i % 7) as f64), (1, -1.5)] {
            let j = i as i64 + d;
            if (0..n as i64).contains(&j) {
                t.push((i, j as usize, v));
            }
        }
    }
    let a = CsrOwned::<f64, u32>::from_triplets(n, n, &t).unwrap();
    let av = a.view();
    let on = SpgemmConfig::new();
    assert!(on.huge_pages, "on by default");
    let off = on.huge_pages(false);
    let c_on = spgemm(Exec::new(), on, &av, &av).unwrap();
    let c_off = spgemm(Exec::new(), off, &av, &av).unwrap();
    assert_eq!(c_on, c_off);
    assert_eq!(c_on.view().nnz(), 5 * n - 6);
    let mut c_reuse = c_off.clone();
    spgemm_reuse(Exec::new(), on, &av, &av, &mut c_reuse).unwrap();
    assert_eq!(c_reuse, c_on);
    let hinted = |c: &CsrOwned<f64, u32>| {
        let v = c.view();
        for (what, addr) in [("col_idx", v.col_idx().as_ptr() as usize), ("vals", v.vals().as_ptr() as usize)]
        {
            let Some(flags) = common::vm_flags_of(addr) else {
                return;
            };
            assert!(flags.split_whitespace().any(|f| f == "hg"), "{what}: VmFlags {flags:?}");
        }
    };
    hinted(&c_on);
    hinted(&c_reuse);
    #[cfg(feature = "parallel")]
    {
        let c_par = spgemm(Exec::new().threads(3), on, &av, &av).unwrap();
        assert_eq!(c_par, c_on);
        hinted(&c_par);
        assert_eq!(spgemm(Exec::new().threads(3), off, &av, &av).unwrap(), c_on);
    }
}

/// `u16` products at the edge of the index type: a column of 255 or 256 ones times a row
/// of 256 ones is a dense product of 65 280 entries (which `u16` counts) or 65 536 (one
/// past `u16::MAX`). The larger is `DimError::Overflow` from every path, method and
/// width, never a wrapped row pointer; the caller's `row_ptr` is left as it was.
#[test]
fn u16_products_past_65535_entries_are_an_overflow() {
    let n = 256;
    let ones = |rows: usize, cols: usize, t: &dyn Fn(usize) -> (usize, usize)| {
        let t: Vec<(usize, usize, f64)> = (0..rows.max(cols)).map(|k| (t(k).0, t(k).1, 1.0)).collect();
        CsrOwned::<f64, u16>::from_triplets(rows, cols, &t).unwrap()
    };
    let b = ones(1, n, &|k| (0, k));
    for m in [n - 1, n] {
        let a = ones(m, 1, &|k| (k, 0));
        let (av, bv) = (a.view(), b.view());
        let fits = m * n <= usize::from(u16::MAX);
        for (exec, cfg) in configs() {
            let ws = spgemm_workspace_len(exec, cfg, &av, &bv).unwrap();
            let mut wi = vec![0u16; ws.idx];
            let mut row_ptr = vec![7u16; m + 1];
            let r = spgemm_symbolic(exec, cfg, &av, &bv, &mut row_ptr, &mut wi);
            let c = spgemm(exec, cfg, &av, &bv);
            let mut reused = CsrOwned::from_csr(&bv).unwrap();
            let re = spgemm_reuse(exec, cfg, &av, &bv, &mut reused);
            if fits {
                assert_eq!(r, Ok(m * n));
                let c = c.unwrap();
                assert_eq!(c.nnz(), m * n);
                assert!(c.view().vals().iter().all(|&v| v == 1.0));
                assert_eq!(c.view().row_ptr(), &row_ptr[..]);
                assert!(re.is_ok());
                assert_eq!(reused.view().row_ptr(), &row_ptr[..]);
            } else {
                let overflow = DimError::Overflow { what: "nnz(C)", value: m * n, max: 65_535 };
                assert_eq!(r, Err(overflow), "{exec:?} {cfg:?}");
                assert_eq!(row_ptr, vec![7u16; m + 1]);
                // The real count, not where the rows stopped.
                assert_eq!(c.map(|c| c.nnz()), Err(overflow), "{exec:?} {cfg:?}");
                assert_eq!(re.map(|s| s.nnz_c), Err(overflow), "{exec:?} {cfg:?}");
            }
        }
        // `A·Aᵀ` of the column `A` is the same dense square.
        let aat = a_at(Exec::new(), SpgemmConfig::new(), &av);
        assert_eq!(aat.is_ok(), fits, "{:?}", aat.map(|c| c.nnz()));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::common::cases(32)))]

    #[test]
    fn spgemm_matches_dense_every_method_and_isa_f64_i32((a, b) in operands::<f64, i32>()) {
        check_all(&a.view(), &b.view())?;
    }

    #[test]
    fn spgemm_matches_dense_every_method_and_isa_f32_i32((a, b) in operands::<f32, i32>()) {
        check_all(&a.view(), &b.view())?;
    }

    #[test]
    fn spgemm_matches_dense_every_method_and_isa_f64_i64((a, b) in operands::<f64, i64>()) {
        check_all(&a.view(), &b.view())?;
    }

    #[test]
    fn spgemm_matches_dense_every_method_and_isa_f32_i64((a, b) in operands::<f32, i64>()) {
        check_all(&a.view(), &b.view())?;
    }
}

/// The SPA sums each column of a row in expansion order (the first product, then each
/// later one added), bit for bit, on every `Isa`, whatever the rows of `B` are: one
/// entry in one column many times over (a row times a column vector), two lone columns,
/// and runs of consecutive columns between them (added as runs); forced and by the rule
/// (which takes the SPA for these long rows).
#[test]
fn spa_sums_in_expansion_order_bit_for_bit() {
    let n = 3000usize;
    let val = |s: u64| ((splitmix(s) >> 11) as f64 / (1u64 << 53) as f64) * 4.0 - 2.0;
    // Rows of `B` by kind: column 0; column 5; columns 0 and 5; a run of columns 3..15.
    let mut tb = Vec::new();
    for k in 0..n {
        let cols: Vec<usize> = match k % 7 {
            0..=3 => vec![0],
            4 => vec![5],
            5 => vec![0, 5],
            _ => (3..15).collect(),
        };
        for j in cols {
            tb.push((k, j, val((k * 31 + j) as u64)));
        }
    }
    let b = CsrOwned::<f64, u32>::from_triplets(n, 20, &tb).unwrap();
    // Row 0 references every row of `B`; row 1 only the one-column rows; row 2 one row.
    let mut ta = Vec::new();
    for k in 0..n {
        ta.push((0, k, val(0xA000 + k as u64)));
        if k % 7 <= 3 {
            ta.push((1, k, val(0xB000 + k as u64)));
        }
    }
    ta.push((2, 6, -1.5));
    let a = CsrOwned::<f64, u32>::from_triplets(3, n, &ta).unwrap();
    let (av, bv) = (a.view(), b.view());
    let mut want: Vec<(usize, usize, u64)> = Vec::new();
    for i in 0..3 {
        let (ac, avals) = av.row(i).unwrap();
        let mut sums: BTreeMap<usize, f64> = BTreeMap::new();
        for (&k, &x) in ac.iter().zip(avals) {
            let (bc, bvals) = bv.row(k as usize).unwrap();
            for (&j, &y) in bc.iter().zip(bvals) {
                let v = x * y;
                sums.entry(j as usize).and_modify(|s| *s += v).or_insert(v);
            }
        }
        want.extend(sums.into_iter().map(|(j, s)| (i, j, s.to_bits())));
    }
    for isa in Isa::available() {
        for cfg in [SpgemmConfig::new(), SpgemmConfig::new().method(RowMethod::Spa)] {
            let c = spgemm(Exec::from(isa), cfg, &av, &bv).unwrap();
            let got: Vec<(usize, usize, u64)> =
                c.view().iter().map(|(i, j, v)| (i, j, v.to_bits())).collect();
            assert_eq!(got, want, "{isa:?} {cfg:?}");
        }
    }
}
