//! CSR SpMV methods (thesis 8.3–8.4): every `CsrMethod` on every available `Isa`, for
//! f32/f64 values and u16/u32/u64/usize/i32/i64 indices, against the dense reference; BLAS edge cases,
//! errors, determinism, and the merge-path piece API.

mod common;

use common::{RawCsr, assert_close, csr, reference_spmv, scalars, splitmix, vector};
use proptest::prelude::*;
use spblas::Exec;
use spblas::TUNING;
use spblas::formats::MAX_PANELS;
use spblas::level2::{
    Carry, CsrMethod, SpmvChoice, SpmvConfig, SpmvPlan, SpmvPlanLayout, SpmvPlanView, apply_carries,
    merge_path_splits, spmv_csr, spmv_merge_path_piece,
};
use spblas::{Csr, CsrOwned, DimError, Gathers, Index, Isa, RowOrder, Scalar, SpMv};

/// Every method × every available `Isa` equals the dense reference; with `beta == 0`, `y`
/// starts as NaN (it must not be read).
fn check_methods<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    alpha: T,
    beta: T,
    seed: u64,
) -> Result<(), TestCaseError> {
    let x = vector::<T>(a.ncols(), seed);
    let y0 = vector::<T>(a.nrows(), seed.wrapping_add(1));
    let (want, bound) = reference_spmv(a.nrows(), a.iter(), alpha, &x, beta, &y0);
    let factor = (a.max_row_len() + 3) as f64;
    for isa in Isa::available() {
        for method in CsrMethod::ALL {
            let mut y = y0.clone();
            if beta == T::ZERO {
                y.fill(T::from_f64(f64::NAN));
            }
            spmv_csr(Exec::from(isa), a, method, alpha, &x, beta, &mut y).unwrap();
            assert_close(&y, &want, &bound, factor)
                .map_err(|e| TestCaseError::fail(format!("{method} on {isa}: {e}")))?;
        }
        // The trait runs `choose`'s pick.
        let mut y = y0.clone();
        a.spmv(Exec::from(isa), alpha, &x, beta, &mut y).unwrap();
        assert_close(&y, &want, &bound, factor)?;
        // Plans: by rule, CSR5 forced (a converted copy), and CSR5 column panels of a
        // third of the columns and of the narrowest width allowed (up to `MAX_PANELS`
        // panels, many of them empty), on the plan's `Isa`.
        let panels = |columns: usize| SpmvChoice::Csr5Panels { columns: columns.max(1) };
        for plan in [
            SpmvPlan::new(Exec::from(isa), a).unwrap(),
            SpmvPlan::with_config(Exec::from(isa), a, SpmvConfig::new().choice(SpmvChoice::Csr5)).unwrap(),
            SpmvPlan::with_config(
                Exec::from(isa),
                a,
                SpmvConfig::new().choice(panels(a.ncols().div_ceil(3))),
            )
            .unwrap(),
            SpmvPlan::with_config(
                Exec::from(isa),
                a,
                SpmvConfig::new().choice(panels(a.ncols().div_ceil(MAX_PANELS))),
            )
            .unwrap(),
        ] {
            let mut y = y0.clone();
            if beta == T::ZERO {
                y.fill(T::from_f64(f64::NAN));
            }
            plan.spmv(Exec::new(), alpha, &x, beta, &mut y).unwrap();
            assert_close(&y, &want, &bound, factor)
                .map_err(|e| TestCaseError::fail(format!("plan {} on {isa}: {e}", plan.choice())))?;
        }
        // Plans in caller buffers: the rule's (panels become one CSR5 copy) and CSR5
        // forced give the owned plan's bits for the same choice.
        for layout in [
            SpmvPlanLayout::new(Exec::from(isa), a).unwrap(),
            SpmvPlanLayout::with_choice(Exec::from(isa), a, SpmvChoice::Csr5).unwrap(),
        ] {
            let (mut idx, mut vals, mut words) = (
                vec![I::MAX; layout.idx_len()],
                vec![T::ZERO; layout.vals_len()],
                vec![0u32; layout.words_len()],
            );
            let view = SpmvPlanView::from_buffers(a, &layout, &mut idx, &mut vals, &mut words).unwrap();
            prop_assert_eq!(view.choice(), layout.choice());
            let owned =
                SpmvPlan::with_config(Exec::from(isa), a, SpmvConfig::new().choice(layout.choice())).unwrap();
            let (mut y1, mut y2) = (y0.clone(), y0.clone());
            view.spmv(Exec::new(), alpha, &x, beta, &mut y1).unwrap();
            owned.spmv(Exec::new(), alpha, &x, beta, &mut y2).unwrap();
            let bits = |v: &[T]| v.iter().map(|t| t.to_f64().to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(&y1), bits(&y2), "buffer plan {} on {}", layout.choice(), isa);
        }
    }
    Ok(())
}

fn check_raw<T: Scalar, I: Index>(
    raw: &RawCsr<T, I>,
    alpha: f64,
    beta: f64,
    seed: u64,
) -> Result<(), TestCaseError> {
    let a = raw.owned();
    check_methods(&a.view(), T::from_f64(alpha), T::from_f64(beta), seed)
}

/// A matrix with row `i` of length `len(i)`, columns spread pseudo-randomly over `ncols`
/// (unsorted, duplicates possible), small values.
fn from_lens<T: Scalar, I: Index>(
    nrows: usize,
    ncols: usize,
    len: impl Fn(usize) -> usize,
    seed: u64,
) -> CsrOwned<T, I> {
    let mut row_ptr = vec![I::ZERO];
    let (mut col_idx, mut vals) = (Vec::new(), Vec::new());
    for i in 0..nrows {
        let n = if ncols == 0 { 0 } else { len(i) };
        for k in 0..n {
            let h = splitmix(seed ^ ((i as u64) << 24) ^ k as u64);
            col_idx.push(I::from_usize((h % ncols as u64) as usize).unwrap());
            vals.push(T::from_f64(((h >> 40) % 9) as f64 * 0.5 - 2.0));
        }
        row_ptr.push(I::from_usize(col_idx.len()).unwrap());
    }
    CsrOwned::from_parts(nrows, ncols, row_ptr, col_idx, vals).unwrap()
}

/// Rows made of runs of consecutive columns, which the SIMD widths read as one load of
/// `x` per register instead of a gather: up to three runs of up to 40 columns per row,
/// each whole, ending on the last column of `x`, with one column off, or in reverse
/// order (`seed` picks).
fn from_runs<T: Scalar, I: Index>(nrows: usize, ncols: usize, seed: u64) -> CsrOwned<T, I> {
    let mut row_ptr = vec![I::ZERO];
    let (mut col_idx, mut vals) = (Vec::new(), Vec::new());
    for i in 0..nrows {
        let h = splitmix(seed ^ (i as u64) << 20);
        for r in 0..(h % 4) as usize {
            let g = splitmix(h ^ r as u64);
            let len = ((g >> 8) % 41) as usize % (ncols + 1);
            let start =
                if g.is_multiple_of(4) { ncols - len } else { ((g >> 20) as usize) % (ncols - len + 1) };
            let mut run: Vec<usize> = (start..start + len).collect();
            match (g >> 32) % 4 {
                0 if len > 1 => {
                    let k = ((g >> 40) as usize) % len;
                    run[k] = (run[k] + 2) % ncols;
                }
                1 => run.reverse(),
                _ => {}
            }
            for (k, c) in run.into_iter().enumerate() {
                col_idx.push(I::from_usize(c).unwrap());
                vals.push(T::from_f64(((g >> (k % 48)) % 9) as f64 * 0.5 - 2.0));
            }
        }
        row_ptr.push(I::from_usize(col_idx.len()).unwrap());
    }
    CsrOwned::from_parts(nrows, ncols, row_ptr, col_idx, vals).unwrap()
}

/// A named matrix shape: `(name, nrows, ncols, length of row i)`.
type Shape = (&'static str, usize, usize, Box<dyn Fn(usize) -> usize>);

/// The structured shapes the methods' block/tile/piece edges need.
fn shapes() -> Vec<Shape> {
    let b = TUNING.segment_block;
    let t = TUNING.speculative_tile;
    let mut v: Vec<Shape> = vec![
        ("0x0", 0, 0, Box::new(|_| 1)),
        ("0 rows", 0, 7, Box::new(|_| 1)),
        ("0 cols", 6, 0, Box::new(|_| 1)),
        ("nnz 0", 9, 9, Box::new(|_| 0)),
        ("leading/trailing empty", 40, 30, Box::new(|i| if (5..35).contains(&i) { i % 4 } else { 0 })),
        ("nrows >> nnz", 5000, 300, Box::new(|i| usize::from(i % 37 == 5))),
        ("one row of 10000", 50, 20_000, Box::new(|i| if i == 17 { 10_000 } else { i % 3 })),
        ("first row of 10000", 20, 3000, Box::new(|i| if i == 0 { 10_000 } else { 1 })),
        ("last row of 10000", 20, 3000, Box::new(|i| if i == 19 { 10_000 } else { 0 })),
        ("rectangular wide", 3, 1000, Box::new(|i| 300 + i)),
        ("rectangular tall", 1000, 3, Box::new(|i| i % 5)),
        // Empty rows exactly at block/tile edges: rows of 16 with every 16th row empty.
        ("empty at edges", 600, 500, Box::new(|i| if i % 17 == 16 { 0 } else { 16 })),
        // Empty runs after a row ending on a multiple of the tile size.
        ("empty runs", 300, 64, Box::new(|i| if i % 3 == 0 { 32 } else { 0 })),
        ("mixed lengths", 700, 900, Box::new(|i| (i * 7919) % 41)),
        ("long rows", 40, 5000, Box::new(|i| 500 + (i * 37) % 300)),
    ];
    // nnz exactly a multiple of the block/tile/piece size, and ±1: one row, and rows of 16.
    for &n in &[
        b - 1,
        b,
        b + 1,
        2 * b - 1,
        2 * b,
        2 * b + 1,
        t,
        3 * t + 1,
        TUNING.merge_path_piece - 1,
        TUNING.merge_path_piece,
    ] {
        v.push(("one row, nnz at an edge", 1, 4096, Box::new(move |_| n)));
        let rows = n / 16;
        let extra = n % 16;
        v.push((
            "rows of 16, nnz at an edge",
            rows + 1,
            97,
            Box::new(move |i| if i < rows { 16 } else { extra }),
        ));
    }
    v
}

fn structured<T: Scalar, I: Index>() {
    for (name, m, n, len) in shapes() {
        let a = from_lens::<T, I>(m, n, &*len, 11);
        for (alpha, beta) in [(1.0, 0.0), (-2.5, 0.5), (1.0, 1.0), (0.0, 0.5), (0.0, 0.0)] {
            let r = check_methods(&a.view(), T::from_f64(alpha), T::from_f64(beta), 3);
            assert!(r.is_ok(), "{name} ({m}x{n}), {} {}, alpha {alpha} beta {beta}: {r:?}", T::NAME, I::NAME);
        }
    }
}

#[test]
fn every_method_equals_the_reference_on_structured_shapes_f64_u32() {
    structured::<f64, u32>();
}

#[test]
fn every_method_equals_the_reference_on_structured_shapes_f32_u64() {
    structured::<f32, u64>();
}

#[test]
fn every_method_equals_the_reference_on_structured_shapes_f32_u32() {
    structured::<f32, u32>();
}

#[test]
fn every_method_equals_the_reference_on_structured_shapes_f64_u16() {
    structured::<f64, u16>();
}

#[test]
fn every_method_equals_the_reference_on_structured_shapes_f32_u16() {
    structured::<f32, u16>();
}

#[test]
fn every_method_equals_the_reference_on_structured_shapes_f64_i32() {
    structured::<f64, i32>();
}

#[test]
fn every_method_equals_the_reference_on_structured_shapes_f32_i64() {
    structured::<f32, i64>();
}

#[test]
fn every_method_equals_the_reference_on_structured_shapes_f64_usize() {
    structured::<f64, usize>();
}

/// Dense rows and bands, whose every register is a run of consecutive columns, the last
/// one ending on `x`'s last entry where `n` is a multiple of the register width.
#[test]
fn every_method_equals_the_reference_on_runs_of_columns() {
    for n in [1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 48, 64, 65] {
        let dense = from_runs_dense::<f32, u32>(n);
        let r = check_methods(&dense.view(), 1.5, 0.0, 5);
        assert!(r.is_ok(), "dense {n}x{n} f32: {r:?}");
        let dense = from_runs_dense::<f64, u64>(n);
        let r = check_methods(&dense.view(), 1.5, -1.0, 5);
        assert!(r.is_ok(), "dense {n}x{n} f64: {r:?}");
        let dense = from_runs_dense::<f32, u16>(n);
        let r = check_methods(&dense.view(), -0.5, 1.0, 5);
        assert!(r.is_ok(), "dense {n}x{n} f32/u16: {r:?}");
    }
}

/// Rows of one run of columns, which the row-vector loop of a canonical matrix reads
/// without `col_idx`: runs of every length from 1 to 80 (every masked tail of every
/// width) and of 255–2048, at several offsets, two ending on `x`'s last entry, rows
/// with a gap (their ends do not span their length), empty rows between. And rows whose
/// ends span their length but that are no run: sorted with a duplicate, or unsorted,
/// long and of 39 entries. Those matrices are not canonical and must be read entry by
/// entry (mutation caught: the run path taken whatever the row order).
#[test]
fn runs_of_columns_read_x_as_a_stretch_only_when_canonical() {
    fn build<T: Scalar, I: Index>(rows: &[Vec<usize>], ncols: usize) -> CsrOwned<T, I> {
        let mut row_ptr = vec![I::ZERO];
        let (mut col_idx, mut vals) = (Vec::new(), Vec::new());
        for r in rows {
            for (k, &c) in r.iter().enumerate() {
                col_idx.push(I::from_usize(c).unwrap());
                vals.push(T::from_f64(((c + k) % 13) as f64 * 0.25 - 1.5));
            }
            row_ptr.push(I::from_usize(col_idx.len()).unwrap());
        }
        CsrOwned::from_parts(rows.len(), ncols, row_ptr, col_idx, vals).unwrap()
    }
    let n = 3000;
    let run = |c0: usize, len: usize| (c0..c0 + len).collect::<Vec<_>>();
    let mut gap = run(5, 257);
    gap.remove(100);
    let canonical = vec![
        run(0, 256),
        vec![],
        run(17, 255),
        run(n - 300, 300),
        run(1, 2048),
        vec![],
        gap,
        run(700, 1000),
        run(3, 257),
        run(n - 39, 39),
    ];
    let mut medium_gap = run(40, 40);
    medium_gap.remove(20);
    let canonical =
        [canonical, (1..=80).map(|len| run((len * 37) % (n - len), len)).collect(), vec![medium_gap]]
            .concat();
    let mut dup = run(0, 256);
    dup[1] = 0;
    let mut unsorted = run(0, 256);
    for (k, c) in unsorted.iter_mut().enumerate().take(255).skip(1) {
        *c = (k * 7) % 250 + 1;
    }
    let mut unsorted_39 = run(10, 39);
    unsorted_39[1..38].reverse();
    for (what, rows, order) in [
        ("canonical", canonical.clone(), RowOrder::Canonical),
        ("sorted with a duplicate", [canonical.clone(), vec![dup]].concat(), RowOrder::Sorted),
        ("unsorted", [canonical.clone(), vec![unsorted]].concat(), RowOrder::Unsorted),
        ("unsorted, 39 entries", [canonical, vec![unsorted_39]].concat(), RowOrder::Unsorted),
    ] {
        let a = build::<f64, u32>(&rows, n);
        assert_eq!(a.view().row_order(), order, "{what}");
        let r = check_methods(&a.view(), 1.5, -0.5, 9);
        assert!(r.is_ok(), "{what} f64: {r:?}");
        let a = build::<f32, u64>(&rows, n);
        let r = check_methods(&a.view(), -2.0, 0.0, 10);
        assert!(r.is_ok(), "{what} f32: {r:?}");
        let a = build::<f64, u16>(&rows, n);
        let r = check_methods(&a.view(), 0.5, 1.0, 11);
        assert!(r.is_ok(), "{what} f64/u16: {r:?}");
    }
}

/// An `n x n` matrix with every entry present, rows in column order.
fn from_runs_dense<T: Scalar, I: Index>(n: usize) -> CsrOwned<T, I> {
    let row_ptr = (0..=n).map(|i| I::from_usize(i * n).unwrap()).collect();
    let col_idx = (0..n * n).map(|k| I::from_usize(k % n).unwrap()).collect();
    let vals = (0..n * n).map(|k| T::from_f64((k % 11) as f64 * 0.25 - 1.0)).collect();
    CsrOwned::from_parts(n, n, row_ptr, col_idx, vals).unwrap()
}

proptest! {
    #[test]
    fn every_method_equals_the_reference_on_column_runs(
        nrows in 0usize..24, ncols in 1usize..70, (a, b) in scalars(), seed: u64
    ) {
        let m = from_runs::<f32, u32>(nrows, ncols, seed);
        check_methods(&m.view(), a as f32, b as f32, seed)?;
        let m = from_runs::<f64, u64>(nrows, ncols, seed);
        check_methods(&m.view(), a, b, seed)?;
        let m = from_runs::<f64, u32>(nrows, ncols, seed);
        check_methods(&m.view(), a, b, seed)?;
        let m = from_runs::<f32, u64>(nrows, ncols, seed);
        check_methods(&m.view(), a as f32, b as f32, seed)?;
        let m = from_runs::<f32, u16>(nrows, ncols, seed);
        check_methods(&m.view(), a as f32, b as f32, seed)?;
        let m = from_runs::<f64, u16>(nrows, ncols, seed);
        check_methods(&m.view(), a, b, seed)?;
        let m = from_runs::<f32, i32>(nrows, ncols, seed);
        check_methods(&m.view(), a as f32, b as f32, seed)?;
        let m = from_runs::<f64, i64>(nrows, ncols, seed);
        check_methods(&m.view(), a, b, seed)?;
    }

    #[test]
    fn every_method_equals_the_reference_f64_u32(raw in csr::<f64, u32>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_raw(&raw, a, b, seed)?;
    }

    #[test]
    fn every_method_equals_the_reference_f32_u64(raw in csr::<f32, u64>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_raw(&raw, a, b, seed)?;
    }

    #[test]
    fn every_method_equals_the_reference_f32_u32(raw in csr::<f32, u32>(60, 40, false), (a, b) in scalars(), seed: u64) {
        check_raw(&raw, a, b, seed)?;
    }

    #[test]
    fn every_method_equals_the_reference_f64_u16(raw in csr::<f64, u16>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_raw(&raw, a, b, seed)?;
    }

    #[test]
    fn every_method_equals_the_reference_f32_u16_long_rows(raw in csr::<f32, u16>(30, 150, true), (a, b) in scalars(), seed: u64) {
        check_raw(&raw, a, b, seed)?;
    }

    #[test]
    fn every_method_equals_the_reference_f64_u64_long_rows(raw in csr::<f64, u64>(30, 150, true), (a, b) in scalars(), seed: u64) {
        check_raw(&raw, a, b, seed)?;
    }

    #[test]
    fn merge_path_pieces_in_any_order_equal_the_whole_run(
        raw in csr::<f64, u32>(60, 30, false),
        pieces in 1usize..12,
        (alpha, beta) in scalars(),
        seed: u64,
    ) {
        let a = raw.owned();
        let a = a.view();
        merge_pieces_check(&a, pieces, alpha, beta, seed)?;
    }

    #[test]
    fn merge_path_pieces_in_any_order_equal_the_whole_run_u16(
        raw in csr::<f32, u16>(60, 30, false),
        pieces in 1usize..12,
        (alpha, beta) in scalars(),
        seed: u64,
    ) {
        let a = raw.owned();
        let a = a.view();
        merge_pieces_check(&a, pieces, alpha as f32, beta as f32, seed)?;
    }
}

/// Runs the merge-path pieces of `a` forwards and in a shuffled order; both give the
/// same `y` bit for bit, and it equals the reference.
fn merge_pieces_check<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    pieces: usize,
    alpha: T,
    beta: T,
    seed: u64,
) -> Result<(), TestCaseError> {
    let x = vector::<T>(a.ncols(), seed);
    let y0 = vector::<T>(a.nrows(), seed.wrapping_add(1));
    let (want, bound) = reference_spmv(a.nrows(), a.iter(), alpha, &x, beta, &y0);
    let mut splits = vec![(0, 0); pieces + 1];
    merge_path_splits(a, pieces, &mut splits).unwrap();
    prop_assert_eq!(splits[0], (0, 0));
    prop_assert_eq!(splits[pieces], (a.nrows(), a.nnz()));
    let total = a.nrows() + a.nnz();
    for w in splits.windows(2) {
        let items = (w[1].0 + w[1].1) - (w[0].0 + w[0].1);
        prop_assert!(items <= total.div_ceil(pieces) && items + 1 >= total / pieces);
    }
    let mut order: Vec<usize> = (0..pieces).collect();
    let mut results = Vec::new();
    for shuffled in [false, true] {
        if shuffled {
            for k in (1..order.len()).rev() {
                order.swap(k, (splitmix(seed ^ k as u64) % (k as u64 + 1)) as usize);
            }
        }
        for isa in Isa::available() {
            let mut y = y0.clone();
            if beta == T::ZERO {
                y.fill(T::from_f64(f64::NAN));
            }
            let mut carries = vec![Carry::default(); pieces];
            for &p in &order {
                let (s, e) = (splits[p], splits[p + 1]);
                carries[p] = spmv_merge_path_piece(a, isa, s, e, alpha, &x, beta, &mut y[s.0..e.0]).unwrap();
            }
            apply_carries(&carries, &mut y).unwrap();
            assert_close(&y, &want, &bound, (a.max_row_len() + 3) as f64)?;
            results.push((isa, y));
        }
    }
    let n = results.len() / 2;
    for k in 0..n {
        let (isa, ref y1) = results[k];
        let y2 = &results[k + n].1;
        prop_assert!(y1.iter().zip(y2).all(|(p, q)| p.to_f64().to_bits() == q.to_f64().to_bits()), "{}", isa);
    }
    Ok(())
}

#[test]
fn merge_path_pieces_on_structured_shapes() {
    for (name, m, n, len) in shapes() {
        let a = from_lens::<f64, u32>(m, n, &*len, 5);
        for pieces in [1, 2, 3, 7, 64, 1000] {
            let r = merge_pieces_check(&a.view(), pieces, -1.5, 0.5, 9);
            assert!(r.is_ok(), "{name}, {pieces} pieces: {r:?}");
            let r = merge_pieces_check(&a.view(), pieces, 1.0, 0.0, 9);
            assert!(r.is_ok(), "{name}, {pieces} pieces, beta 0: {r:?}");
        }
    }
}

#[test]
fn alpha_zero_reads_neither_a_nor_x() {
    let a = from_lens::<f64, u32>(50, 40, |i| i % 7, 1);
    let a = a.view();
    let x = vec![f64::NAN; 40];
    let y0 = vector::<f64>(50, 2);
    for isa in Isa::available() {
        for method in CsrMethod::ALL {
            let mut y = y0.clone();
            spmv_csr(Exec::from(isa), &a, method, 0.0, &x, 0.5, &mut y).unwrap();
            assert!(y.iter().zip(&y0).all(|(p, q)| *p == 0.5 * q), "{method} {isa}");
            let mut y = vec![f64::NAN; 50];
            spmv_csr(Exec::from(isa), &a, method, 0.0, &x, 0.0, &mut y).unwrap();
            assert!(y.iter().all(|&p| p == 0.0), "{method} {isa}");
        }
    }
}

#[test]
fn beta_zero_never_leaks_nan_from_y() {
    for (name, m, n, len) in shapes() {
        let a = from_lens::<f32, u32>(m, n, &*len, 4);
        let a = a.view();
        let x = vector::<f32>(n, 1);
        for isa in Isa::available() {
            for method in CsrMethod::ALL {
                let mut y = vec![f32::NAN; m];
                spmv_csr(Exec::from(isa), &a, method, 1.0, &x, 0.0, &mut y).unwrap();
                assert!(y.iter().all(|v| v.is_finite()), "{name}: {method} {isa}");
            }
        }
    }
}

#[test]
fn length_errors_and_unavailable_isa_leave_y_untouched() {
    let a = from_lens::<f64, u64>(30, 20, |i| i % 5, 1);
    let a = a.view();
    let x = vector::<f64>(20, 1);
    let y0 = vector::<f64>(30, 2);
    let same = |y: &[f64]| y.iter().zip(&y0).all(|(p, q)| p.to_bits() == q.to_bits());
    for method in CsrMethod::ALL {
        for isa in Isa::available() {
            let mut y = y0.clone();
            let e = spmv_csr(Exec::from(isa), &a, method, 1.0, &x[..19], 0.5, &mut y).unwrap_err();
            assert_eq!(e, DimError::Length { operand: "x", expected: 20, got: 19 });
            assert!(same(&y));
            let mut y_short = y0[..29].to_vec();
            let e = spmv_csr(Exec::from(isa), &a, method, 1.0, &x, 0.5, &mut y_short).unwrap_err();
            assert_eq!(e, DimError::Length { operand: "y", expected: 30, got: 29 });
            assert!(y_short.iter().zip(&y0).all(|(p, q)| p.to_bits() == q.to_bits()));
        }
        for isa in Isa::ALL.into_iter().filter(|i| !i.is_available()) {
            let mut y = y0.clone();
            let e = spmv_csr(Exec::from(isa), &a, method, 1.0, &x, 0.5, &mut y).unwrap_err();
            assert_eq!(e, DimError::IsaUnavailable { isa });
            assert!(same(&y));
        }
    }
}

#[test]
fn repeated_calls_give_identical_results() {
    for (name, m, n, len) in shapes() {
        let a = from_lens::<f64, u32>(m, n, &*len, 8);
        let a = a.view();
        let x = vector::<f64>(n, 3);
        let y0 = vector::<f64>(m, 4);
        for isa in Isa::available() {
            for method in CsrMethod::ALL {
                let mut y1 = y0.clone();
                spmv_csr(Exec::from(isa), &a, method, 1.5, &x, -0.5, &mut y1).unwrap();
                for _ in 0..2 {
                    let mut y2 = y0.clone();
                    spmv_csr(Exec::from(isa), &a, method, 1.5, &x, -0.5, &mut y2).unwrap();
                    assert!(
                        y1.iter().zip(&y2).all(|(p, q)| p.to_bits() == q.to_bits()),
                        "{name}: {method} {isa}"
                    );
                }
            }
        }
    }
}

#[test]
fn merge_path_piece_errors() {
    let a = from_lens::<f64, u32>(10, 10, |i| if i == 4 { 0 } else { 3 }, 1);
    let a = a.view();
    let x = vector::<f64>(10, 1);
    let isa = Isa::Portable;
    let mut splits = [(0, 0); 3];
    assert_eq!(merge_path_splits(&a, 0, &mut splits), Err(DimError::Parameter { name: "pieces", value: 0 }));
    assert_eq!(
        merge_path_splits(&a, 3, &mut splits),
        Err(DimError::BufferTooSmall { buffer: "splits", needed: 4, got: 3 })
    );
    assert_eq!(splits, [(0, 0); 3]);
    let mut y = vec![7.0; 10];
    // Row 1 starts at entry 3: (1, 2) is off the path, as is (0, 4) (row 0 overrun).
    for bad in [(1, 2), (0, 4), (11, 27), (10, 26)] {
        let r = spmv_merge_path_piece(&a, isa, bad, (10, 27), 1.0, &x, 0.0, &mut y[bad.0.min(10)..]);
        assert!(matches!(r, Err(DimError::Parameter { name: "start", .. })), "{bad:?}: {r:?}");
    }
    let r = spmv_merge_path_piece(&a, isa, (2, 6), (1, 3), 1.0, &x, 0.0, &mut y[..0]);
    assert!(matches!(r, Err(DimError::Parameter { name: "end", .. })));
    let r = spmv_merge_path_piece(&a, isa, (0, 0), (3, 9), 1.0, &x, 0.0, &mut y[..2]);
    assert_eq!(r, Err(DimError::Length { operand: "y", expected: 3, got: 2 }));
    let r = spmv_merge_path_piece(&a, isa, (0, 0), (3, 9), 1.0, &x[..9], 0.0, &mut y[..3]);
    assert_eq!(r, Err(DimError::Length { operand: "x", expected: 10, got: 9 }));
    if let Some(bad) = Isa::ALL.into_iter().find(|i| !i.is_available()) {
        let r = spmv_merge_path_piece(&a, bad, (0, 0), (3, 9), 1.0, &x, 0.0, &mut y[..3]);
        assert_eq!(r, Err(DimError::IsaUnavailable { isa: bad }));
    }
    assert!(y.iter().all(|&v| v == 7.0));
    let e = apply_carries(&[Carry { row: 3, value: 1.0 }, Carry { row: 11, value: 1.0 }], &mut y);
    assert_eq!(e, Err(DimError::Parameter { name: "carry.row", value: 11 }));
    assert!(y.iter().all(|&v| v == 7.0));
    // The end of the path carries nothing.
    apply_carries(&[Carry { row: 10, value: 1.0 }], &mut y).unwrap();
    assert!(y.iter().all(|&v| v == 7.0));
}

#[test]
fn method_names_round_trip() {
    let names: Vec<&str> = CsrMethod::ALL.iter().map(|m| m.name()).collect();
    assert_eq!(names, ["row-scalar", "row-vector", "segmented-sum", "speculative", "merge-path"]);
    for m in CsrMethod::ALL {
        assert_eq!(CsrMethod::from_name(m.name()), Some(m));
        assert_eq!(m.to_string(), m.name());
    }
    assert_eq!(CsrMethod::from_name("csr5"), None);
}

#[test]
fn choose_is_a_valid_method_for_every_shape_and_isa() {
    for (_, m, n, len) in shapes() {
        let a = from_lens::<f32, u32>(m, n, &*len, 2);
        for isa in Isa::ALL {
            assert!(CsrMethod::ALL.contains(&CsrMethod::choose(&a.view(), isa)));
        }
    }
}

/// A structured-grid operator: row `i` holds the columns `i + d` (inside `0..ncols`) for
/// the sorted offsets `d`, so away from the edges consecutive rows of one length form the
/// stencil blocks that the AVX2 and AVX-512 row loops compute at once; `bend` moves one entry of
/// that row one column right (where it stays inside `x`), breaking its block.
fn stencil<T: Scalar>(
    nrows: usize,
    ncols: usize,
    offsets: &[i64],
    bend: Option<usize>,
    seed: u64,
) -> CsrOwned<T, u32> {
    let mut row_ptr = vec![0u32];
    let (mut col_idx, mut vals) = (Vec::new(), Vec::new());
    for i in 0..nrows {
        let start = col_idx.len();
        for &d in offsets {
            let c = i as i64 + d;
            if (0..ncols as i64).contains(&c) {
                col_idx.push(c as u32);
                // Eighths in `-1..1`: with `x` in quarters, every row's sum is exact.
                let h = splitmix(seed ^ ((i as u64) << 20) ^ col_idx.len() as u64);
                vals.push(T::from_f64(((h >> 60) as f64 - 8.0) * 0.125));
            }
        }
        if bend == Some(i) && col_idx.len() > start && (*col_idx.last().unwrap() as usize) + 1 < ncols {
            *col_idx.last_mut().unwrap() += 1;
        }
        row_ptr.push(col_idx.len() as u32);
    }
    CsrOwned::from_parts(nrows, ncols, row_ptr, col_idx, vals).unwrap()
}

/// RowVector equals RowScalar on the portable path bit for bit on every `Isa`, for
/// `beta` zero (`y` NaN) and not. The callers' values are dyadic numbers of a few bits
/// (or rows of at most two entries), so every sum is exact in any order: a wrong lane,
/// entry, row or mask shows up as a different number.
fn row_vector_equals_row_scalar<T: Scalar>(a: &Csr<'_, T, u32>, what: &str) {
    let x = vector::<T>(a.ncols(), 7);
    let y0 = vector::<T>(a.nrows(), 8);
    for beta in [T::ZERO, T::from_f64(0.75)] {
        let run = |method, isa| {
            let mut y = if beta == T::ZERO { vec![T::from_f64(f64::NAN); a.nrows()] } else { y0.clone() };
            spmv_csr(Exec::from(isa), a, method, T::from_f64(1.5), &x, beta, &mut y).unwrap();
            y.iter().map(|v| v.to_f64().to_bits()).collect::<Vec<_>>()
        };
        let want = run(CsrMethod::RowScalar, Isa::Portable);
        for isa in Isa::available() {
            assert_eq!(run(CsrMethod::RowVector, isa), want, "{what} on {isa:?}, beta {beta:?}");
        }
    }
}

/// On stencil matrices RowVector (whose AVX2 and AVX-512 row loops compute stencil
/// blocks of 4 to 16 rows at once, and the other short rows by one masked register)
/// equals RowScalar bit for bit on every `Isa`, in `f32` and `f64`, for `beta` zero (`y`
/// NaN) and not: every row length 1 to 7, row counts around the block sizes, square and
/// rectangular `x` (columns that end at the last entry of `x`), and a bent row inside a
/// block. Values are eighths in `-1..1`, so sums are exact in any order.
#[test]
fn stencil_blocks_equal_the_scalar_loop_bitwise() {
    let offsets: [&[i64]; 9] = [
        &[0],
        &[-1, 1],
        &[-1, 0, 1],
        &[-9, -1, 0, 1],
        &[-40, -1, 0, 1, 40],
        &[-3, -2, -1, 0, 1, 2],
        &[-3, -2, -1, 0, 1, 2, 3],
        &[-20, -2, -1, 0, 1, 2, 20],
        &[0, 3, 7, 11],
    ];
    for (o, off) in offsets.iter().enumerate() {
        for m in [1usize, 8, 9, 15, 16, 17, 33, 300] {
            for n in [m, m + 3, m.saturating_sub(2).max(1)] {
                for bend in [None, Some(m / 2), Some(m.saturating_sub(1))] {
                    let what = format!("offsets #{o}, {m} x {n}, bend {bend:?}");
                    row_vector_equals_row_scalar(&stencil::<f32>(m, n, off, bend, 3).view(), &what);
                    row_vector_equals_row_scalar(&stencil::<f64>(m, n, off, bend, 3).view(), &what);
                }
            }
        }
    }
}

/// Rows of one entry each (a column vector, a permutation, a reversed or shifted
/// diagonal), which the AVX2 and AVX-512 row loops take a register of rows at a time,
/// `x` by one load or one gather: RowVector equals RowScalar bit for bit on every `Isa`,
/// in `f32` and `f64`, for `beta` zero (`y` NaN) and not, with row counts around the
/// block sizes, columns up to the last entry of `x`, and empty or two-entry rows breaking
/// the blocks.
#[test]
fn one_entry_blocks_equal_the_scalar_loop_bitwise() {
    /// The column of row `i` of `m` rows and `n` columns.
    type ColumnOf = fn(usize, usize, usize) -> usize;
    fn build<T: Scalar>(
        m: usize,
        n: usize,
        col: impl Fn(usize) -> usize,
        odd: Option<(usize, usize)>,
    ) -> CsrOwned<T, u32> {
        let mut row_ptr = vec![0u32];
        let (mut col_idx, mut vals) = (Vec::new(), Vec::new());
        for i in 0..m {
            let len = match odd {
                Some((every, len)) if i % every == every - 1 => len,
                _ => 1,
            };
            let mut cols: Vec<u32> = (0..len).map(|k| ((col(i) + k) % n) as u32).collect();
            cols.sort_unstable();
            cols.dedup();
            for c in cols {
                col_idx.push(c);
                let h = splitmix(0x51 ^ ((i as u64) << 20) ^ u64::from(c));
                vals.push(T::from_f64(((h >> 11) as f64 / (1u64 << 53) as f64) * 4.0 - 2.0));
            }
            row_ptr.push(col_idx.len() as u32);
        }
        CsrOwned::from_parts(m, n, row_ptr, col_idx, vals).unwrap()
    }
    for m in [1usize, 4, 8, 9, 15, 16, 17, 33, 300] {
        let n = m + 5;
        let cols: [(&str, ColumnOf, usize); 6] = [
            ("column vector", |_, _, _| 0, 1),
            ("column 0 of a wide matrix", |_, _, _| 0, n),
            ("reversed diagonal", |i, m, _| m - 1 - i, m),
            ("permutation", |i, m, _| (i * 7 + 3) % m, m),
            ("scattered", |i, _, n| splitmix(i as u64) as usize % n, n),
            ("diagonal ending at the last column", |i, m, n| i + n - m, n),
        ];
        for (name, col, n) in cols {
            for odd in [None, Some((13, 0)), Some((11, 2))] {
                let what = format!("{name}, {m} x {n}, odd rows {odd:?}");
                row_vector_equals_row_scalar(&build::<f32>(m, n, |i| col(i, m, n), odd).view(), &what);
                row_vector_equals_row_scalar(&build::<f64>(m, n, |i| col(i, m, n), odd).view(), &what);
            }
        }
    }
}

/// Stencil rows of 8 to 33 entries, past the stencil blocks' 7 (the row loop tries a
/// block on them and then takes the vector dot product): RowVector equals the reference
/// within rounding on every `Isa`, in `f32` and `f64`, for `beta` zero (`y` NaN) and not,
/// with rows of a 27-point stencil (nine runs of three), a 9-point one, one run of 32 (a
/// band), rows of 33 and of 12 (two runs and two lone columns), a bent row, and square
/// and rectangular `x`.
#[test]
fn long_stencil_blocks_equal_the_reference() {
    fn check<T: Scalar>(a: &Csr<'_, T, u32>, what: &str) {
        let x = vector::<T>(a.ncols(), 7);
        let y0 = vector::<T>(a.nrows(), 8);
        for beta in [T::ZERO, T::from_f64(0.75)] {
            let alpha = T::from_f64(1.5);
            let (want, bound) = reference_spmv(a.nrows(), a.iter(), alpha, &x, beta, &y0);
            for isa in Isa::available() {
                let mut y = if beta == T::ZERO { vec![T::from_f64(f64::NAN); a.nrows()] } else { y0.clone() };
                spmv_csr(Exec::from(isa), a, CsrMethod::RowVector, alpha, &x, beta, &mut y).unwrap();
                let factor = (a.max_row_len() + 3) as f64;
                if let Err(e) = assert_close(&y, &want, &bound, factor) {
                    panic!("{what} on {isa:?}, beta {beta:?}: {e}");
                }
            }
        }
    }
    let runs =
        |k: i64, w: i64| -> Vec<i64> { (-k..=k).flat_map(|r| (-1..=1).map(move |d| r * w + d)).collect() };
    let p27: Vec<i64> = (-1..=1).flat_map(|z| runs(1, 10).into_iter().map(move |o| z * 100 + o)).collect();
    let offsets: [Vec<i64>; 5] = [
        p27,
        runs(1, 20),
        (0..32).collect(),
        (-16..=16).collect(),
        (-4..4).chain([40, 41, 90, 200]).collect(),
    ];
    for (o, off) in offsets.iter().enumerate() {
        for m in [1usize, 8, 9, 17, 300, 1000] {
            for n in [m, m + 40, m.saturating_sub(2).max(1)] {
                for bend in [None, Some(m / 2), Some(m.saturating_sub(1))] {
                    let what = format!("offsets #{o} ({} a row), {m} x {n}, bend {bend:?}", off.len());
                    check(&stencil::<f32>(m, n, off, bend, 3).view(), &what);
                    check(&stencil::<f64>(m, n, off, bend, 3).view(), &what);
                }
            }
        }
    }
}

/// `choose`'s documented rule on the shapes that decide it: random columns over a 4 MiB
/// `x` (which fits the caches' reach, so almost every read is far from the diagonal),
/// rows of 1..=10 entries (uneven), of 10..=29 (uneven, longer) or of 5 (even); the same
/// over an 8 MiB `x` (beyond it) and uneven rows of `f64` over 4 MiB and over 768 KiB (about
/// 60% of the reads near the diagonal: not mostly near, so the row loop), even rows of
/// `f64` over 4 MiB (read all over: row-vector with 8 lanes); uneven rows over a
/// 64-column `x` (`f32` and `f64`: where lanes are loads, only AVX-512's 8 `f64` lanes
/// near the diagonal take them); a 2D five-point grid
/// (short even rows near the diagonal); dense rows and one dense row among empty ones
/// (entries in long runs); a matrix with no more entries than rows, and one too small to
/// sample.
#[test]
fn choose_follows_its_documented_rule() {
    let (m, n) = (4096, 1 << 20);
    let uneven = from_lens::<f32, u32>(m, n, |i| 1 + i % 10, 3);
    let even = from_lens::<f32, u32>(m, n, |_| 5, 3);
    let uneven64 = from_lens::<f64, u32>(m, n, |i| 1 + i % 10, 3);
    let even64 = from_lens::<f64, u32>(m, n, |_| 5, 3);
    let longer = from_lens::<f32, u32>(m, n, |i| 10 + i % 20, 3);
    let near = from_lens::<f32, u32>(m, 64, |i| 1 + i % 10, 3);
    let near64 = from_lens::<f64, u32>(m, 64, |i| 1 + i % 10, 3);
    // The same over a 4 MiB `x` of `f64`: scattered, so the row loop where lanes are loads.
    let uneven64_fits = from_lens::<f64, u32>(m, n / 2, |i| 1 + i % 10, 3);
    let uneven64_mid = from_lens::<f64, u32>(m, 96 << 10, |i| 1 + i % 10, 3);
    // Even rows of `f64` over a 4 MiB `x`: read all over, so the register where 8 lanes.
    let even64_fits = from_lens::<f64, u32>(m, n / 2, |_| 5, 3);
    let sparse = from_lens::<f32, u32>(m, n, |i| usize::from(i % 3 == 0), 3);
    let diagonal = stencil::<f64>(m, m, &[0], None, 3);
    let grid = stencil::<f64>(m, m, &[-64, -1, 0, 1, 64], None, 3);
    let clusters = stencil::<f64>(m, m, &[-65, -64, -63, -1, 0, 1, 63, 64, 65], None, 3);
    let dense = from_runs_dense::<f64, u32>(64);
    let tiny = from_runs_dense::<f64, u32>(40);
    let one_row = {
        let row_ptr: Vec<u32> = (0..=1000u32).map(|i| if i > 500 { 100_000 } else { 0 }).collect();
        let col_idx: Vec<u32> = (0..100_000).collect();
        CsrOwned::from_parts(1000, 100_000, row_ptr, col_idx, vec![1.0f64; 100_000]).unwrap()
    };
    for isa in Isa::ALL {
        // Where lanes are loaded one by one: RowVector for short uneven rows over an `x` in
        // the caches' reach in registers of 8 `f64` (AVX-512), scattered rows beyond it,
        // and rows it reads without gathers.
        let loads = matches!(isa, Isa::Avx2 | Isa::Avx512) && Gathers::current() == Gathers::Loads;
        let rs_if_loads = if loads { CsrMethod::RowScalar } else { CsrMethod::RowVector };
        let rs_if_loads_narrow = if isa == Isa::Avx512 { CsrMethod::RowVector } else { rs_if_loads };
        assert_eq!(CsrMethod::choose(&uneven.view(), isa), rs_if_loads, "{isa:?}");
        assert_eq!(CsrMethod::choose(&even.view(), isa), rs_if_loads, "{isa:?}");
        assert_eq!(CsrMethod::choose(&longer.view(), isa), rs_if_loads, "{isa:?}");
        assert_eq!(CsrMethod::choose(&uneven64.view(), isa), CsrMethod::RowVector, "{isa:?}");
        assert_eq!(CsrMethod::choose(&even64.view(), isa), CsrMethod::RowVector, "{isa:?}");
        assert_eq!(CsrMethod::choose(&near.view(), isa), rs_if_loads, "{isa:?}");
        assert_eq!(CsrMethod::choose(&near64.view(), isa), rs_if_loads_narrow, "{isa:?}");
        assert_eq!(CsrMethod::choose(&uneven64_fits.view(), isa), rs_if_loads, "{isa:?}");
        assert_eq!(CsrMethod::choose(&uneven64_mid.view(), isa), rs_if_loads, "{isa:?}");
        assert_eq!(CsrMethod::choose(&even64_fits.view(), isa), rs_if_loads_narrow, "{isa:?}");
        assert_eq!(CsrMethod::choose(&grid.view(), isa), CsrMethod::RowVector, "{isa:?}");
        // Nine entries a row, fewer on the grid's edge: uneven in the sample (`f64`).
        assert_eq!(CsrMethod::choose(&clusters.view(), isa), rs_if_loads_narrow, "{isa:?}");
        assert_eq!(CsrMethod::choose(&dense.view(), isa), CsrMethod::RowVector, "{isa:?}");
        assert_eq!(CsrMethod::choose(&one_row.view(), isa), CsrMethod::RowVector, "{isa:?}");
        assert_eq!(CsrMethod::choose(&sparse.view(), isa), CsrMethod::RowScalar, "{isa:?}");
        // One entry a row: the x86-64 widths' stencil blocks.
        let one = if cfg!(target_arch = "x86_64") && matches!(isa, Isa::Avx2 | Isa::Avx512) {
            CsrMethod::RowVector
        } else {
            CsrMethod::RowScalar
        };
        assert_eq!(CsrMethod::choose(&diagonal.view(), isa), one, "{isa:?}");
        assert_eq!(CsrMethod::choose(&tiny.view(), isa), CsrMethod::RowScalar, "{isa:?}");
    }
}

/// The thread driver runs `choose`'s row method per chunk, so it equals the serial
/// `SpMv` bit for bit on every `Isa` (the SIMD row kernel included).
#[cfg(feature = "parallel")]
#[test]
fn threaded_row_methods_equal_serial_bitwise_on_every_isa() {
    for (name, m, n, len) in shapes() {
        let a = from_lens::<f64, u32>(m, n, &*len, 6);
        let a = a.view();
        let x = vector::<f64>(n, 1);
        let y0 = vector::<f64>(m, 2);
        for isa in Isa::available() {
            let mut want = y0.clone();
            a.spmv(Exec::from(isa), 1.5, &x, 0.5, &mut want).unwrap();
            for threads in [1, 2, 5] {
                let mut got = y0.clone();
                a.spmv(Exec::from(isa).threads(threads), 1.5, &x, 0.5, &mut got).unwrap();
                assert!(
                    got.iter().zip(&want).all(|(p, q)| p.to_bits() == q.to_bits()),
                    "{name} {isa} {threads}"
                );
            }
        }
    }
}

/// `CsrMethod::tune` returns one of the methods and leaves `A x` in `y` (whatever was
/// there), on every shape and `Isa`; wrong lengths and an unavailable `Isa` are errors
/// that leave `y` alone.
#[test]
fn tune_picks_a_method_and_leaves_the_product_in_y() {
    for (_, m, n, len) in shapes() {
        let a = from_lens::<f64, u32>(m, n, &*len, 3);
        let a = a.view();
        let x = vector::<f64>(n, 7);
        let (want, bound) = reference_spmv(m, a.iter(), 1.0, &x, 0.0, &vec![0.0; m]);
        for isa in Isa::available() {
            let mut y = vec![f64::NAN; m];
            let method = CsrMethod::tune(Exec::from(isa), &a, &x, &mut y, 3).unwrap();
            assert!(CsrMethod::ALL.contains(&method));
            assert_close(&y, &want, &bound, (a.max_row_len() + 3) as f64).unwrap();
        }
        let mut y = vec![1.5; m + 1];
        assert!(matches!(CsrMethod::tune(Exec::new(), &a, &x, &mut y, 3), Err(DimError::Length { .. })));
        assert!(y.iter().all(|&v| v == 1.5));
        if let Some(missing) = Isa::ALL.into_iter().find(|i| !i.is_available()) {
            let mut y = vec![1.5; m];
            assert!(CsrMethod::tune(Exec::from(missing), &a, &x, &mut y, 3).is_err());
            assert!(y.iter().all(|&v| v == 1.5));
        }
    }
}

/// `SpmvChoice::choose` follows its documented rule: on AVX2 and AVX-512, CSR5 for rows
/// that read `x` all over and are of uneven lengths (empty rows among long ones count),
/// for short uneven rows near the diagonal and even rows of which more than 1 read in 4
/// lies far from it on AVX-512 and where the gathers are hardware,
/// and for long rows (16 entries or more on average) that are not runs of consecutive
/// columns; otherwise `CsrMethod::choose`'s method. `SpmvPlan::new` makes that choice,
/// with the CSR5 copy exactly when it says CSR5.
#[test]
fn spmv_choice_follows_its_documented_rule() {
    let (m, n) = (4096, 1 << 20);
    let uneven = from_lens::<f64, u32>(m, n, |i| 1 + i % 10, 3);
    let some_empty = from_lens::<f64, u32>(m, n, |i| if i % 3 == 0 { 0 } else { 6 }, 3);
    let even = from_lens::<f64, u32>(m, n, |_| 5, 3);
    let near = from_lens::<f64, u32>(m, 64, |i| 1 + i % 10, 3);
    let near_long = from_lens::<f64, u32>(m, 64, |i| 4 + i % 20, 3);
    // Even rows over 100 000 columns: about 45% of the reads far from the diagonal (more
    // than 1 in 4); over 48 000, almost all near it.
    let even_mid = from_lens::<f64, u32>(m, 100_000, |_| 5, 3);
    let even_near = from_lens::<f64, u32>(m, 48_000, |_| 5, 3);
    // `f32` too.
    let uneven32 = from_lens::<f32, u32>(m, n, |i| 1 + i % 10, 3);
    for isa in [Isa::Avx2, Isa::Avx512] {
        assert_eq!(SpmvChoice::choose(&uneven32.view(), isa), SpmvChoice::Csr5, "{isa:?}");
    }
    // Rows of 27 near the diagonal in runs of three (a 27-point stencil's shape), and
    // rows of 20 in one run (a band).
    let grid = |len: usize, run: usize| {
        let t: Vec<(usize, usize, f64)> = (0..m)
            .flat_map(|i| (0..len).map(move |k| (i, (i + (k / run) * 64 + k % run) % m, 1.0)))
            .collect();
        CsrOwned::<f64, u32>::from_triplets(m, m, &t).unwrap()
    };
    let (stencil27, band) = (grid(27, 3), grid(20, 20));
    let short_stencil = grid(15, 3);
    // Few long rows over a wide `x` (an LP matrix): 1024 entries a row over 16 panels of
    // `f64` (64 a row in each), over 8 of `f32`; rows of 100 and 412 (6 and 26 per panel:
    // under AVX2's 32, the longer over AVX-512's 16) stay with the row loop on AVX2 and
    // split on AVX-512; `x` of three panels still splits, of one or two does not (the row
    // loop, 1024 a row).
    let lp = from_lens::<f64, u32>(64, n, |_| 1024, 5);
    let lp32 = from_lens::<f32, u32>(64, n, |_| 1024, 5);
    let lp_short = from_lens::<f64, u32>(64, n, |i| if i % 2 == 0 { 100 } else { 412 }, 5);
    let lp_narrow = from_lens::<f64, u32>(64, (TUNING.panel_bytes / size_of::<f64>()) * 3, |_| 1024, 5);
    let lp_one = from_lens::<f64, u32>(64, TUNING.panel_bytes / size_of::<f64>(), |_| 1024, 5);
    let lp_two = from_lens::<f64, u32>(64, (TUNING.panel_bytes / size_of::<f64>()) * 2, |_| 1024, 5);
    // Heavy-tailed rows (a power-law graph): one row in 64 of 600 entries (37.5 a panel),
    // the others of 11 (46% of the entries in long rows: split) or of 28 (25%: CSR5).
    let heavy =
        |short: usize| from_lens::<f64, u32>(4096, n, move |i| if i % 64 == 0 { 600 } else { short }, 5);
    let (heavy46, heavy25) = (heavy(11), heavy(28));
    // One row in 16 of 300 entries (19 a panel: AVX-512's long rows, not AVX2's), the
    // others of 11 (65% of the entries).
    let heavy300 = from_lens::<f64, u32>(4096, n, |i| if i % 16 == 0 { 300 } else { 11 }, 5);
    // One row of 200 000 consecutive columns among 999 empty ones over a wide `x`: the row
    // loop reads it by vector loads, neither panels nor CSR5.
    let one_row = {
        let row_ptr: Vec<u32> = (0..=1000u32).map(|i| if i > 500 { 200_000 } else { 0 }).collect();
        CsrOwned::from_parts(1000, n, row_ptr, (0..200_000).collect(), vec![1.0f64; 200_000]).unwrap()
    };
    for isa in Isa::ALL {
        let simd = matches!(isa, Isa::Avx2 | Isa::Avx512);
        let split = |c: usize| if simd { SpmvChoice::Csr5Panels { columns: c } } else { SpmvChoice::Csr5 };
        let split512 = if isa == Isa::Avx512 { split(65536) } else { SpmvChoice::Csr5 };
        // Rows of 64 or more on average that no panels split: the row loop.
        let rv = SpmvChoice::Csr(CsrMethod::RowVector);
        let split512_long = if isa == Isa::Avx512 { split(65536) } else { rv };
        let cases = [
            (SpmvChoice::choose(&lp.view(), isa), split(65536)),
            (SpmvChoice::choose(&lp32.view(), isa), split(131072)),
            (SpmvChoice::choose(&lp_short.view(), isa), split512_long),
            (SpmvChoice::choose(&heavy300.view(), isa), split512),
            (SpmvChoice::choose(&lp_narrow.view(), isa), split(65536)),
            (SpmvChoice::choose(&lp_one.view(), isa), rv),
            (SpmvChoice::choose(&lp_two.view(), isa), rv),
            (SpmvChoice::choose(&heavy46.view(), isa), split(65536)),
            (SpmvChoice::choose(&heavy25.view(), isa), SpmvChoice::Csr5),
            (SpmvChoice::choose(&one_row.view(), isa), SpmvChoice::Csr(CsrMethod::RowVector)),
        ];
        for (k, (got, want)) in cases.into_iter().enumerate() {
            // Portable and NEON keep CSR: whatever `CsrMethod::choose` says.
            if simd {
                assert_eq!(got, want, "case {k} on {isa:?}");
            } else {
                assert!(matches!(got, SpmvChoice::Csr(_)), "case {k} on {isa:?}");
            }
        }
        if simd && isa.is_available() {
            let plan = SpmvPlan::new(Exec::from(isa), &lp.view()).unwrap();
            assert_eq!(plan.choice(), split(65536));
            assert_eq!(plan.panels().map(<[_]>::len), Some(16));
            assert!(plan.csr5().is_none());
        }
    }
    for isa in Isa::ALL {
        let simd = matches!(isa, Isa::Avx2 | Isa::Avx512);
        let wide = isa == Isa::Avx512 || (simd && Gathers::current() == Gathers::Hardware);
        for (what, a, csr5) in [
            ("uneven", &uneven, simd),
            ("some empty", &some_empty, simd),
            // Even rows far from the diagonal: CSR5 on AVX-512, and on AVX2 where the
            // gathers are hardware.
            ("even", &even, wide),
            ("even, partly far", &even_mid, wide),
            ("even, near", &even_near, false),
            // Uneven rows near the diagonal: the same.
            ("near", &near, wide),
            // ... if they are short (8 entries or fewer on average): not of 13.5.
            ("near, longer", &near_long, false),
            ("27-point rows", &stencil27, simd),
            ("band rows", &band, false),
            ("stencil rows of 15", &short_stencil, false),
        ] {
            let a = a.view();
            let want = if csr5 { SpmvChoice::Csr5 } else { SpmvChoice::Csr(CsrMethod::choose(&a, isa)) };
            // The band's sample finds 20 full diagonals (DIA); its rows wrap around in the
            // last 19 rows, 19 diagonals more, so the plan refuses the copy and falls back.
            let rule = if what == "band rows" { SpmvChoice::Dia } else { want };
            assert_eq!(SpmvChoice::choose(&a, isa), rule, "{what} on {isa:?}");
            if isa.is_available() {
                let plan = SpmvPlan::new(Exec::from(isa), &a).unwrap();
                assert_eq!(plan.choice(), want, "{what} on {isa:?}");
                assert_eq!(plan.csr5().is_some(), csr5, "{what} on {isa:?}");
                assert_eq!(plan.isa(), isa);
            }
        }
    }
    assert_eq!(SpmvChoice::Csr5.name(), "csr5");
    assert_eq!(SpmvChoice::Csr5Panels { columns: 8 }.to_string(), "csr5-panels");
    assert_eq!(
        (
            TUNING.panel_bytes,
            (TUNING.panel_bytes / size_of::<f64>()),
            (TUNING.panel_bytes / size_of::<f32>())
        ),
        (512 << 10, 65536, 131072)
    );
    assert_eq!(SpmvChoice::Csr(CsrMethod::MergePath).to_string(), "merge-path");
}

/// `SpmvPlan::tune` returns a CSR or CSR5 plan that computes `A x`, and leaves `A x` in
/// `y`; plans refuse an unavailable `Isa` and wrong lengths, leaving `y` alone.
#[test]
fn spmv_plan_tune_and_errors() {
    for (name, m, n, len) in shapes() {
        let a = from_lens::<f64, u32>(m, n, &*len, 3);
        let a = a.view();
        let x = vector::<f64>(n, 7);
        let (want, bound) = reference_spmv(m, a.iter(), 1.0, &x, 0.0, &vec![0.0; m]);
        let factor = (a.max_row_len() + 3) as f64;
        for isa in Isa::available() {
            let mut y = vec![f64::NAN; m];
            let plan = SpmvPlan::tune(Exec::from(isa), &a, SpmvConfig::new(), &x, &mut y, 3).unwrap();
            assert_close(&y, &want, &bound, factor).unwrap();
            assert_eq!(plan.csr5().is_some(), plan.choice() == SpmvChoice::Csr5, "{name}");
            let panels = matches!(plan.choice(), SpmvChoice::Csr5Panels { .. });
            assert_eq!(plan.panels().is_some(), panels, "{name}");
            let mut y = vec![f64::NAN; m];
            plan.spmv(Exec::new(), 1.0, &x, 0.0, &mut y).unwrap();
            assert_close(&y, &want, &bound, factor).unwrap();
            // Wrong lengths: errors, `y` untouched.
            let mut y = vec![1.5; m + 1];
            assert!(
                matches!(plan.spmv(Exec::new(), 1.0, &x, 0.0, &mut y), Err(DimError::Length { .. })),
                "{name}"
            );
            assert!(y.iter().all(|&v| v == 1.5));
            assert!(matches!(
                SpmvPlan::tune(Exec::from(isa), &a, SpmvConfig::new(), &x, &mut y, 3),
                Err(DimError::Length { .. })
            ));
            assert!(y.iter().all(|&v| v == 1.5));
        }
        // Panel widths of 0, or of more than `MAX_PANELS` panels, are errors.
        let wide = SpmvChoice::Csr5Panels { columns: 1 };
        for (columns, ok) in [(0, false), (n.div_ceil(MAX_PANELS).max(1), true), (n.max(1), true)] {
            let plan = SpmvPlan::with_config(
                Exec::from(Isa::Portable),
                &a,
                SpmvConfig::new().choice(SpmvChoice::Csr5Panels { columns }),
            );
            assert_eq!(plan.is_ok(), ok, "{name}: {columns} columns");
            if !ok {
                assert!(matches!(plan, Err(DimError::Parameter { name: "columns", .. })), "{name}");
            }
        }
        if n > MAX_PANELS {
            let err = SpmvPlan::with_config(Exec::from(Isa::Portable), &a, SpmvConfig::new().choice(wide));
            assert!(matches!(err, Err(DimError::Parameter { name: "columns", .. })), "{name}");
        }
        if let Some(missing) = Isa::ALL.into_iter().find(|i| !i.is_available()) {
            assert!(matches!(SpmvPlan::new(Exec::from(missing), &a), Err(DimError::IsaUnavailable { .. })));
            assert!(matches!(
                SpmvPlan::with_config(Exec::from(missing), &a, SpmvConfig::new().choice(SpmvChoice::Csr5)),
                Err(DimError::IsaUnavailable { .. })
            ));
            let mut y = vec![1.5; m];
            assert!(SpmvPlan::tune(Exec::from(missing), &a, SpmvConfig::new(), &x, &mut y, 3).is_err());
            assert!(y.iter().all(|&v| v == 1.5));
            let plan = SpmvPlan::new(Exec::from(Isa::Portable), &a).unwrap();
            assert!(matches!(
                plan.spmv(Exec::from(missing), 1.0, &x, 0.0, &mut y),
                Err(DimError::IsaUnavailable { .. })
            ));
            assert!(y.iter().all(|&v| v == 1.5));
        }
    }
}

/// `SpmvConfig`: its defaults are `SpmvPlan::new`'s; with the huge page hint on, every
/// plan computes bit for bit what the same plan without it does, and its copies of 8 MiB
/// or more (CSR5, one column panel) carry the kernel's `hg` flag where `/proc` shows it.
#[test]
fn spmv_config_builds_the_plans_and_huge_pages_change_nothing() {
    // 320,000 rows of 7 entries: 2.24M in all, so the CSR5 copy's columns (9 MB of u32)
    // and values (18 MB of f64) pass the hint's 8 MiB. Elsewhere than x86-64 (AArch64
    // under qemu, where `/proc` shows no flags) a tenth of that, below the hint.
    let n = if cfg!(target_arch = "x86_64") { 320_000 } else { 32_000 };
    let a = from_lens::<f64, u32>(n, n, |_| 7, 11);
    let a = a.view();
    let x = vector::<f64>(n, 5);
    let off = SpmvConfig::new();
    assert_eq!((off.choice, off.huge_pages), (None, false));
    let on = off.huge_pages(true);
    let hinted = |c: &spblas::Csr5Owned<f64, u32>| {
        let v = c.view();
        for (what, addr) in [("col_idx", v.col_idx().as_ptr() as usize), ("vals", v.vals().as_ptr() as usize)]
        {
            let Some(flags) = common::vm_flags_of(addr) else {
                return;
            };
            assert!(flags.split_whitespace().any(|f| f == "hg"), "{what}: VmFlags {flags:?}");
        }
    };
    for isa in Isa::available() {
        let ruled = SpmvPlan::with_config(Exec::from(isa), &a, off).unwrap();
        assert_eq!(ruled.choice(), SpmvPlan::new(Exec::from(isa), &a).unwrap().choice(), "{isa:?}");
        for choice in [
            SpmvChoice::Csr(CsrMethod::RowVector),
            SpmvChoice::Csr5,
            SpmvChoice::Csr5Panels { columns: n },
            SpmvChoice::Csr5Panels { columns: n / 3 },
        ] {
            let plain = SpmvPlan::with_config(Exec::from(isa), &a, SpmvConfig::new().choice(choice)).unwrap();
            let huge = SpmvPlan::with_config(Exec::from(isa), &a, on.choice(choice)).unwrap();
            assert_eq!((plain.choice(), huge.choice(), huge.isa()), (choice, choice, isa));
            let (mut y0, mut y1) = (vec![f64::NAN; n], vec![f64::NAN; n]);
            plain.spmv(Exec::new(), 1.5, &x, 0.0, &mut y0).unwrap();
            huge.spmv(Exec::new(), 1.5, &x, 0.0, &mut y1).unwrap();
            assert_eq!(y0, y1, "{isa:?} {choice}");
            if let Some(c) = huge.csr5() {
                hinted(c);
            }
            if choice == (SpmvChoice::Csr5Panels { columns: n }) {
                hinted(&huge.panels().unwrap()[0]);
            }
        }
        let mut y = vec![f64::NAN; n];
        let tuned = SpmvPlan::tune(Exec::from(isa), &a, on.choice(SpmvChoice::Csr5), &x, &mut y, 2).unwrap();
        let mut y1 = vec![f64::NAN; n];
        SpmvPlan::with_config(Exec::from(isa), &a, SpmvConfig::new().choice(tuned.choice()))
            .unwrap()
            .spmv(Exec::new(), 1.0, &x, 0.0, &mut y1)
            .unwrap();
        assert_eq!(y, y1, "{isa:?}: tune_with leaves its plan's A x in y");
        if let Some(c) = tuned.csr5() {
            hinted(c);
        }
    }
    if let Some(missing) = Isa::ALL.into_iter().find(|i| !i.is_available()) {
        let err = SpmvPlan::with_config(Exec::from(missing), &a, on.choice(SpmvChoice::Csr5));
        assert!(matches!(err, Err(DimError::IsaUnavailable { .. })));
    }
}

/// A DIA plan and the [`spblas::Dia`] format compute the row-scalar loop's bits (finite
/// `x`) on every `Isa`, for `beta` zero and not, on stencils, a band, a diagonal and
/// rectangular matrices (tall and wide, diagonals far out: rows whose slots are partly
/// padding at both ends of blocks and strips); the rule picks
/// DIA for them and not for random rows or dense rows (more than 64 diagonals); a matrix
/// with one stray entry off its diagonals (a diagonal of one entry: too many empty slots)
/// is refused when DIA is forced, and `SpmvPlan::new` falls back to a CSR method there.
#[test]
fn dia_plans_equal_the_row_loop() {
    let band: Vec<i64> = (-10..=10).collect();
    let cases = [
        ("grid", stencil::<f64>(4096, 4096, &[-64, -1, 0, 1, 64], None, 3)),
        ("band", stencil::<f64>(1000, 1000, &band, None, 5)),
        ("diagonal", stencil::<f64>(500, 500, &[0], None, 7)),
        ("rectangular", stencil::<f64>(200, 300, &[-3, 0, 2], None, 9)),
        ("tall", stencil::<f64>(1100, 300, &[-700, -250, -37, 0, 1, 40, 299], None, 13)),
        ("wide", stencil::<f64>(257, 2000, &[-100, -1, 0, 3, 31, 33, 500, 1800], None, 15)),
    ];
    for (what, a) in &cases {
        let a = a.view();
        let x = vector::<f64>(a.ncols(), 11);
        let dia = spblas::DiaOwned::from_csr(&a).unwrap();
        for isa in Isa::available() {
            for (alpha, beta) in [(1.0, 0.0), (1.5, -0.5), (0.0, 2.0)] {
                let y0 = if beta == 0.0 { vec![f64::NAN; a.nrows()] } else { vector::<f64>(a.nrows(), 13) };
                let mut want = y0.clone();
                spmv_csr(Exec::from(isa), &a, CsrMethod::RowScalar, alpha, &x, beta, &mut want).unwrap();
                let mut got = y0.clone();
                dia.view().spmv(Exec::from(isa), alpha, &x, beta, &mut got).unwrap();
                let bits = |v: &[f64]| v.iter().map(|t| t.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "Dia: {what} on {isa:?}, alpha {alpha}, beta {beta}");
            }
            if matches!(*what, "tall" | "wide") {
                continue;
            }
            assert_eq!(SpmvChoice::choose(&a, isa), SpmvChoice::Dia, "{what} on {isa:?}");
            let plan = SpmvPlan::new(Exec::from(isa), &a).unwrap();
            assert_eq!(plan.choice(), SpmvChoice::Dia, "{what}");
            let layout = SpmvPlanLayout::new(Exec::from(isa), &a).unwrap();
            assert_eq!(layout.choice(), SpmvChoice::Dia, "{what}");
            let mut slots = vec![f64::NAN; layout.vals_len()];
            let view = SpmvPlanView::from_buffers(&a, &layout, &mut [], &mut slots, &mut []).unwrap();
            for (alpha, beta) in [(1.0, 0.0), (1.5, -0.5), (0.0, 2.0)] {
                let y0 = if beta == 0.0 { vec![f64::NAN; a.nrows()] } else { vector::<f64>(a.nrows(), 13) };
                let mut want = y0.clone();
                spmv_csr(Exec::from(isa), &a, CsrMethod::RowScalar, alpha, &x, beta, &mut want).unwrap();
                let mut got = y0.clone();
                plan.spmv(Exec::new(), alpha, &x, beta, &mut got).unwrap();
                let bits = |v: &[f64]| v.iter().map(|t| t.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "{what} on {isa:?}, alpha {alpha}, beta {beta}");
                let mut got = y0.clone();
                view.spmv(Exec::new(), alpha, &x, beta, &mut got).unwrap();
                assert_eq!(bits(&got), bits(&want), "buffers: {what} on {isa:?}, alpha {alpha}, beta {beta}");
            }
        }
    }
    let random = from_lens::<f64, u32>(4096, 4096, |i| 1 + i % 7, 3);
    let dense = from_runs_dense::<f64, u32>(100);
    for isa in Isa::ALL {
        assert_ne!(SpmvChoice::choose(&random.view(), isa), SpmvChoice::Dia);
        assert_ne!(SpmvChoice::choose(&dense.view(), isa), SpmvChoice::Dia);
    }
    // One entry moved off its diagonal adds a diagonal of 700 slots for it.
    let bent = stencil::<f64>(700, 700, &[-1, 0, 1], Some(350), 11);
    let bent = bent.view();
    let forced =
        SpmvPlan::with_config(Exec::from(Isa::Portable), &bent, SpmvConfig::new().choice(SpmvChoice::Dia));
    assert!(matches!(forced, Err(DimError::Parameter { name: "dia fill", .. })));
    let forced = SpmvPlanLayout::with_choice(Exec::from(Isa::Portable), &bent, SpmvChoice::Dia);
    assert!(matches!(forced, Err(DimError::Parameter { name: "dia fill", .. })));
    assert_ne!(SpmvPlanLayout::new(Exec::from(Isa::Portable), &bent).unwrap().choice(), SpmvChoice::Dia);
    // A layout is for one matrix; short buffers are errors.
    let grid = cases[0].1.view();
    let layout = SpmvPlanLayout::new(Exec::from(Isa::Portable), &grid).unwrap();
    let mut short = vec![0.0; layout.vals_len() - 1];
    let e = SpmvPlanView::from_buffers(&grid, &layout, &mut [], &mut short, &mut []).unwrap_err();
    assert!(matches!(e, DimError::BufferTooSmall { buffer: "vals", .. }));
    assert!(matches!(
        SpmvPlanView::from_buffers(&bent, &layout, &mut [], &mut short, &mut []),
        Err(DimError::Length { operand: "layout", .. })
    ));
    assert_ne!(SpmvPlan::new(Exec::from(Isa::Portable), &bent).unwrap().choice(), SpmvChoice::Dia);
}

/// `raw`'s arrays as another index type (every value fits).
fn reindex<T: Scalar, I: Index, J: Index>(raw: &RawCsr<T, I>) -> RawCsr<T, J> {
    let map = |v: &[I]| v.iter().map(|i| J::from_usize(i.to_usize()).unwrap()).collect();
    RawCsr {
        nrows: raw.nrows,
        ncols: raw.ncols,
        row_ptr: map(&raw.row_ptr),
        col_idx: map(&raw.col_idx),
        vals: raw.vals.clone(),
    }
}

/// Every method on every `Isa` with `I` and with `J` indices: the same bits. (`i32` and
/// `i64` run the kernels of `u32` and `u64`, whose bits a valid signed index has.)
fn same_bits<T: Scalar, I: Index, J: Index>(
    raw: &RawCsr<T, I>,
    alpha: T,
    beta: T,
    seed: u64,
) -> Result<(), TestCaseError> {
    let (a, b) = (raw.owned(), reindex::<T, I, J>(raw).owned());
    let (a, b) = (a.view(), b.view());
    let x = vector::<T>(a.ncols(), seed);
    let y0 = vector::<T>(a.nrows(), seed.wrapping_add(1));
    for isa in Isa::available() {
        for method in CsrMethod::ALL {
            let (mut ya, mut yb) = (y0.clone(), y0.clone());
            spmv_csr(Exec::from(isa), &a, method, alpha, &x, beta, &mut ya).unwrap();
            spmv_csr(Exec::from(isa), &b, method, alpha, &x, beta, &mut yb).unwrap();
            let bits = |y: &[T]| y.iter().map(|v| v.to_f64().to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(&ya), bits(&yb), "{} on {}: {} against {}", method, isa, I::NAME, J::NAME);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::common::cases(64)))]

    #[test]
    fn every_method_equals_the_reference_f64_i32(raw in csr::<f64, i32>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_raw(&raw, a, b, seed)?;
    }

    #[test]
    fn every_method_equals_the_reference_f32_i32_long_rows(raw in csr::<f32, i32>(30, 150, true), (a, b) in scalars(), seed: u64) {
        check_raw(&raw, a, b, seed)?;
    }

    #[test]
    fn every_method_equals_the_reference_f32_i64(raw in csr::<f32, i64>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_raw(&raw, a, b, seed)?;
    }

    #[test]
    fn every_method_equals_the_reference_f64_i64_long_rows(raw in csr::<f64, i64>(30, 150, true), (a, b) in scalars(), seed: u64) {
        check_raw(&raw, a, b, seed)?;
    }

    #[test]
    fn signed_indices_give_the_bits_of_the_unsigned_ones(raw in csr::<f64, u32>(24, 60, false), (a, b) in scalars(), seed: u64) {
        same_bits::<f64, u32, i32>(&raw, a, b, seed)?;
        same_bits::<f64, u64, i64>(&reindex::<f64, u32, u64>(&raw), a, b, seed)?;
        let vals = raw.vals.iter().map(|&v| v as f32).collect();
        let raw = RawCsr { nrows: raw.nrows, ncols: raw.ncols, row_ptr: raw.row_ptr, col_idx: raw.col_idx, vals };
        same_bits::<f32, u32, i32>(&raw, a as f32, b as f32, seed)?;
        same_bits::<f32, u64, i64>(&reindex::<f32, u32, u64>(&raw), a as f32, b as f32, seed)?;
    }

    #[test]
    fn merge_path_pieces_in_any_order_equal_the_whole_run_i32(
        raw in csr::<f32, i32>(60, 30, false),
        pieces in 1usize..12,
        (alpha, beta) in scalars(),
        seed: u64,
    ) {
        let a = raw.owned();
        let a = a.view();
        merge_pieces_check(&a, pieces, alpha as f32, beta as f32, seed)?;
    }
}

/// The row-scalar method is the plain row loop bit for bit on every `Isa` (its first
/// `len mod 4` products are selected without a branch, an unselected one adding `+0.0`),
/// on values whose sums round differently in any other order: magnitudes from `1e-8` to
/// `1e16`, `-0.0`, infinities and NaN in `A` and in `x`, rows of 0 to 13 entries. A NaN
/// compares as any NaN: Rust leaves a NaN result's sign and payload unspecified.
fn row_scalar_is_the_plain_loop<T: Scalar>(seed: u64) {
    let pick = |s: u64| -> f64 {
        match s % 11 {
            0 => 1e16,
            1 => -1e16,
            2 => -0.0,
            3 => 1e-8,
            4 if s % 97 == 4 => f64::INFINITY,
            5 if s % 89 == 5 => f64::NAN,
            _ => (s % 9) as f64 - 4.0 + 0.1,
        }
    };
    let bits = |v: f64| if v.is_nan() { f64::NAN.to_bits() } else { v.to_bits() };
    let (m, n) = (60usize, 23usize);
    let (mut rp, mut ci, mut va) = (vec![0u32], Vec::new(), Vec::new());
    let mut s = seed;
    for _ in 0..m {
        s = splitmix(s);
        for k in 0..(s % 14) as usize {
            ci.push(((s >> 8) as usize + 5 * k) as u32 % n as u32);
            va.push(T::from_f64(pick(splitmix(s ^ k as u64))));
        }
        rp.push(ci.len() as u32);
    }
    let x: Vec<T> = (0..n).map(|j| T::from_f64(pick(splitmix(seed ^ (1000 + j as u64))))).collect();
    let a = Csr::new(m, n, &rp, &ci, &va).unwrap();
    let want: Vec<u64> = (0..m)
        .map(|i| {
            let mut acc = T::ZERO;
            for k in rp[i] as usize..rp[i + 1] as usize {
                acc += va[k] * x[ci[k] as usize];
            }
            bits((T::ONE * acc).to_f64())
        })
        .collect();
    for isa in Isa::available() {
        let mut y = vec![T::from_f64(f64::NAN); m];
        spmv_csr(Exec::from(isa), &a, CsrMethod::RowScalar, T::ONE, &x, T::ZERO, &mut y).unwrap();
        let got: Vec<u64> = y.iter().map(|v| bits(v.to_f64())).collect();
        assert_eq!(got, want, "seed {seed} on {isa:?}");
    }
}

#[test]
fn row_scalar_is_the_plain_loop_bitwise() {
    for seed in 0..64 {
        row_scalar_is_the_plain_loop::<f64>(seed);
        row_scalar_is_the_plain_loop::<f32>(seed);
    }
}
