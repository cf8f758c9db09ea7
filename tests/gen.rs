//! Tests of the deterministic matrix generators (feature `gen`).
#![cfg(feature = "gen")]

use spblas::generate::{self, MatrixClass, Spec, SuiteScale};
use spblas::{Csr, CsrOwned, FormatError, RowOrder};

type M = CsrOwned<f64, u32>;

fn row_lens(a: &M) -> Vec<usize> {
    let v = a.view();
    v.row_ptr().windows(2).map(|w| (w[1] - w[0]) as usize).collect()
}

fn assert_canonical(a: &M) {
    let v = a.view();
    // Re-validate from scratch: the recorded order must match the arrays.
    let again = Csr::new(v.nrows(), v.ncols(), v.row_ptr(), v.col_idx(), v.vals()).unwrap();
    assert_eq!(again.row_order(), RowOrder::Canonical);
    assert_eq!(v.row_order(), RowOrder::Canonical);
}

/// Every seeded generator, at a small size, as a function of the seed.
fn seeded(seed: u64) -> Vec<(&'static str, M)> {
    vec![
        ("banded", generate::banded(300, 3, 5, seed).unwrap()),
        ("dense_block", generate::dense_block(20, 30, seed).unwrap()),
        ("block_diagonal", generate::block_diagonal(10, 7, seed).unwrap()),
        ("rmat", generate::rmat(10, 8, seed).unwrap()),
        ("dc2_like", generate::dc2_like(2000, 3, 1500, seed).unwrap()),
        ("lp_like", generate::lp_like(50, 20_000, 300, seed).unwrap()),
        ("uniform_random", generate::uniform_random(500, 800, 7, seed).unwrap()),
        ("one_dense_row", generate::one_dense_row(10, 40, 3, seed).unwrap()),
        ("single_row", generate::single_row(33, seed).unwrap()),
        ("single_column", generate::single_column(33, seed).unwrap()),
        ("tall_sparse", generate::tall_sparse(100_000, 50, seed).unwrap()),
    ]
}

#[test]
fn same_seed_gives_identical_matrices() {
    for ((name, a), (_, b)) in seeded(7).into_iter().zip(seeded(7)) {
        assert_eq!(a, b, "{name}");
    }
    assert_eq!(generate::poisson2d::<f64, u32>(9).unwrap(), generate::poisson2d::<f64, u32>(9).unwrap());
}

#[test]
fn different_seed_gives_different_matrices() {
    for ((name, a), (_, b)) in seeded(1).into_iter().zip(seeded(2)) {
        assert_ne!(a, b, "{name}");
    }
}

#[test]
fn every_generator_writes_canonical_rows() {
    for (name, a) in seeded(3) {
        assert_canonical(&a);
        assert!(a.view().vals().iter().all(|v| v.is_finite()), "{name}");
    }
    assert_canonical(&generate::poisson2d(17).unwrap());
    assert_canonical(&generate::poisson3d_27(6).unwrap());
}

/// Pins the exact output, so a change to any mapping from random bits to matrices (ours
/// or a dependency's) shows up as a failure rather than silently different benchmarks.
#[test]
fn output_is_pinned_across_versions() {
    fn fingerprint(a: &M) -> u64 {
        let v = a.view();
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        let mut eat = |x: u64| {
            h ^= x;
            h = h.wrapping_mul(0x0100_0000_01b3);
        };
        eat(v.nrows() as u64);
        eat(v.ncols() as u64);
        v.row_ptr().iter().for_each(|&p| eat(u64::from(p)));
        v.col_idx().iter().for_each(|&c| eat(u64::from(c)));
        v.vals().iter().for_each(|x| eat(x.to_bits()));
        h
    }
    let mut got: Vec<(&str, u64)> = seeded(12345).iter().map(|(n, a)| (*n, fingerprint(a))).collect();
    got.push(("poisson2d", fingerprint(&generate::poisson2d(5).unwrap())));
    got.push(("poisson3d_27", fingerprint(&generate::poisson3d_27(3).unwrap())));
    let expected = [
        ("banded", 0x2887_cab8_c1bc_b1d6),
        ("dense_block", 0xa4ae_5262_cf41_d6c5),
        ("block_diagonal", 0x928c_df55_bff4_678f),
        ("rmat", 0xd787_e4a4_c5b6_2401),
        ("dc2_like", 0x1ce6_8e72_e892_559e),
        ("lp_like", 0x5ac4_69f4_4b57_959c),
        ("uniform_random", 0xd3ba_7779_ad9a_d1ee),
        ("one_dense_row", 0xe451_5793_0185_43e5),
        ("single_row", 0xed4e_b4d3_161d_341c),
        ("single_column", 0x6b7d_6078_2019_f39c),
        ("tall_sparse", 0x0029_f1ed_46c1_5a31),
        ("poisson2d", 0x62bc_a4a1_3592_ccf0),
        ("poisson3d_27", 0xf170_f8da_cfb9_e8da),
    ];
    assert_eq!(got, expected, "{got:#x?}");
}

#[test]
fn values_lie_in_open_unit_interval_and_match_across_precisions() {
    let a64 = generate::uniform_random::<f64, u32>(200, 300, 9, 5).unwrap();
    let a32 = generate::uniform_random::<f32, u32>(200, 300, 9, 5).unwrap();
    assert_eq!(a64.view().col_idx(), a32.view().col_idx());
    for (&x, &y) in a64.view().vals().iter().zip(a32.view().vals()) {
        assert!(x > -1.0 && x < 1.0 && x != 0.0, "{x}");
        assert_eq!(x, f64::from(y));
    }
}

#[test]
fn index_type_does_not_change_the_matrix() {
    let a = generate::rmat::<f64, u32>(9, 4, 1).unwrap();
    let b = generate::rmat::<f64, u64>(9, 4, 1).unwrap();
    let c = generate::rmat::<f64, usize>(9, 4, 1).unwrap();
    let bv = b.view();
    let cv = c.view();
    assert!(a.view().iter().eq(bv.iter()));
    assert!(a.view().iter().eq(cv.iter()));
}

#[test]
fn poisson2d_has_the_5_point_stencil() {
    for n in [0usize, 1, 2, 3, 10] {
        let a: M = generate::poisson2d(n).unwrap();
        assert_eq!((a.nrows(), a.ncols()), (n * n, n * n));
        assert_eq!(a.nnz(), (5 * n * n).saturating_sub(4 * n));
        let v = a.view();
        for i in 0..n {
            for j in 0..n {
                let r = i * n + j;
                let (cols, vals) = v.row(r).unwrap();
                let sum: f64 = vals.iter().sum();
                let diag = cols.iter().position(|&c| c as usize == r).unwrap();
                assert_eq!(vals[diag], 4.0);
                assert!(vals.iter().enumerate().all(|(k, &x)| k == diag || x == -1.0));
                let interior = i > 0 && j > 0 && i + 1 < n && j + 1 < n;
                assert_eq!(sum == 0.0, interior, "row {r}");
                assert_eq!(cols.len() == 5, interior);
            }
        }
    }
    // Symmetric.
    let a: M = generate::poisson2d(6).unwrap();
    let mut d = vec![0.0; 36 * 36];
    a.view().to_dense(&mut d).unwrap();
    for i in 0..36 {
        for j in 0..36 {
            assert_eq!(d[i * 36 + j], d[j * 36 + i]);
        }
    }
}

#[test]
fn poisson3d_27_has_the_27_point_stencil() {
    for n in [0usize, 1, 2, 5] {
        let a: M = generate::poisson3d_27(n).unwrap();
        assert_eq!((a.nrows(), a.ncols()), (n * n * n, n * n * n));
        let expected = if n == 0 { 0 } else { (3 * n - 2).pow(3) };
        assert_eq!(a.nnz(), expected);
        let v = a.view();
        for r in 0..n * n * n {
            let (x, y, z) = (r % n, r / n % n, r / (n * n));
            let interior = [x, y, z].iter().all(|&t| t > 0 && t + 1 < n);
            let (cols, vals) = v.row(r).unwrap();
            let diag = cols.iter().position(|&c| c as usize == r).unwrap();
            assert_eq!(vals[diag], 26.0);
            let sum: f64 = vals.iter().sum();
            assert_eq!(sum == 0.0, interior, "row {r}");
            assert_eq!(cols.len() == 27, interior);
        }
    }
}

#[test]
fn banded_rows_cover_the_band() {
    for (n, lower, upper) in [(0, 2, 2), (1, 3, 0), (10, 2, 3), (10, 20, 0), (7, 6, 6), (50, 0, 0)] {
        let a: M = generate::banded(n, lower, upper, 1).unwrap();
        let v = a.view();
        let mut count = 0;
        for i in 0..n {
            let (cols, _) = v.row(i).unwrap();
            let want: Vec<u32> =
                (i.saturating_sub(lower)..=(i + upper).min(n - 1)).map(|c| c as u32).collect();
            assert_eq!(cols, &want[..]);
            count += want.len();
        }
        assert_eq!(a.nnz(), count);
    }
}

#[test]
fn dense_and_block_diagonal_shapes() {
    let a: M = generate::dense_block(5, 7, 1).unwrap();
    assert_eq!((a.nrows(), a.ncols(), a.nnz()), (5, 7, 35));
    assert!(row_lens(&a).iter().all(|&l| l == 7));
    let b: M = generate::block_diagonal(4, 3, 1).unwrap();
    assert_eq!((b.nrows(), b.ncols(), b.nnz()), (12, 12, 36));
    for (i, j, _) in b.view().iter() {
        assert_eq!(i / 3, j / 3);
    }
    let e: M = generate::block_diagonal(0, 3, 1).unwrap();
    assert_eq!((e.nrows(), e.nnz()), (0, 0));
    let e: M = generate::block_diagonal(3, 0, 1).unwrap();
    assert_eq!((e.nrows(), e.nnz()), (0, 0));
}

#[test]
fn rmat_is_power_law_skewed() {
    let scale = 14;
    let a: M = generate::rmat(scale, 16, 99).unwrap();
    let n = 1 << scale;
    assert_eq!((a.nrows(), a.ncols()), (n, n));
    // Duplicates were summed, so fewer entries than edges, but most edges are distinct.
    assert!(a.nnz() <= 16 * n && a.nnz() > 8 * n, "nnz {}", a.nnz());
    let lens = row_lens(&a);
    let mean = a.nnz() as f64 / n as f64;
    let max = *lens.iter().max().unwrap() as f64;
    assert!(max > 20.0 * mean, "max {max} mean {mean}");
    // Many empty rows, as in a power-law graph.
    assert!(lens.iter().filter(|&&l| l == 0).count() > n / 10);
    // The relabelling scatters heavy rows: the longest is not always row 0.
    let argmax = lens.iter().position(|&l| l as f64 == max).unwrap();
    let b: M = generate::rmat(scale, 16, 100).unwrap();
    let lens_b = row_lens(&b);
    let argmax_b = lens_b.iter().position(|l| l == lens_b.iter().max().unwrap()).unwrap();
    assert_ne!(argmax, argmax_b);
    assert!(matches!(generate::rmat::<f64, u32>(0, 3, 1), Ok(m) if m.nrows() == 1 && m.nnz() == 1));
}

#[test]
fn dc2_like_has_few_huge_rows_and_many_short_ones() {
    let (n, heavy_rows, heavy_len) = (5000, 3, 4000);
    let a: M = generate::dc2_like(n, heavy_rows, heavy_len, 11).unwrap();
    assert_eq!((a.nrows(), a.ncols()), (n, n));
    let v = a.view();
    let lens = row_lens(&a);
    assert_eq!(lens.iter().filter(|&&l| l == heavy_len).count(), heavy_rows);
    for (i, &l) in lens.iter().enumerate() {
        if l != heavy_len {
            assert!((1..=10).contains(&l), "row {i} has {l}");
            assert!(v.row(i).unwrap().0.contains(&(i as u32)), "row {i} lacks its diagonal");
        }
    }
    let short = lens.iter().filter(|&&l| l <= 10).count() as f64;
    let short_mean = lens.iter().filter(|&&l| l <= 10).sum::<usize>() as f64 / short;
    assert!((4.5..6.5).contains(&short_mean), "{short_mean}");
    // Tiny orders work too.
    for n in 0..4 {
        let t: M = generate::dc2_like(n, n.min(1), n, 1).unwrap();
        assert_canonical(&t);
    }
    assert_eq!(
        generate::dc2_like::<f64, u32>(10, 11, 1, 0).unwrap_err(),
        FormatError::Parameter { name: "heavy_rows", value: 11 }
    );
    assert_eq!(
        generate::dc2_like::<f64, u32>(10, 1, 11, 0).unwrap_err(),
        FormatError::Parameter { name: "heavy_len", value: 11 }
    );
}

#[test]
fn lp_like_is_wide_with_exact_nnz_and_skewed_rows() {
    let (nrows, ncols, per_row) = (4096, 200_000, 60);
    let a: M = generate::lp_like(nrows, ncols, per_row, 5).unwrap();
    assert_eq!((a.nrows(), a.ncols(), a.nnz()), (nrows, ncols, nrows * per_row));
    let lens = row_lens(&a);
    assert!(lens.iter().all(|&l| l >= 1 && l <= ncols));
    let max = *lens.iter().max().unwrap();
    let min = *lens.iter().min().unwrap();
    assert!(max >= 10 * per_row, "max {max}");
    assert!(min * 10 <= per_row, "min {min}");
    // Rows longer than ncols get capped and the excess moves elsewhere.
    let b: M = generate::lp_like(300, 40, 30, 5).unwrap();
    assert_eq!(b.nnz(), 300 * 30);
    assert!(row_lens(&b).iter().all(|&l| (1..=40).contains(&l)));
    let full: M = generate::lp_like(3, 8, 8, 5).unwrap();
    assert_eq!(full.nnz(), 24);
    let none: M = generate::lp_like(5, 8, 0, 5).unwrap();
    assert_eq!(none.nnz(), 0);
    assert!(matches!(generate::lp_like::<f64, u32>(3, 8, 9, 0), Err(FormatError::Parameter { .. })));
}

#[test]
fn uniform_random_rows_have_exact_length() {
    let a: M = generate::uniform_random(1000, 3000, 12, 8).unwrap();
    assert_eq!((a.nrows(), a.ncols(), a.nnz()), (1000, 3000, 12_000));
    assert!(row_lens(&a).iter().all(|&l| l == 12));
    // Full rows (selection sampling path) and tiny column counts.
    let d: M = generate::uniform_random(4, 9, 9, 8).unwrap();
    assert_eq!(d.nnz(), 36);
    let z: M = generate::uniform_random(4, 0, 0, 8).unwrap();
    assert_eq!(z.nnz(), 0);
    assert!(matches!(generate::uniform_random::<f64, u32>(3, 8, 9, 0), Err(FormatError::Parameter { .. })));
}

#[test]
fn edge_cases_have_their_shapes() {
    for (r, c) in [(0, 0), (0, 5), (5, 0), (1000, 3)] {
        let e: M = generate::empty(r, c).unwrap();
        assert_eq!((e.nrows(), e.ncols(), e.nnz()), (r, c, 0));
        assert!(e.view().row_ptr().iter().all(|&p| p == 0));
        assert_eq!(e.view().row_ptr().len(), r + 1);
    }
    let a: M = generate::one_dense_row(6, 9, 4, 1).unwrap();
    assert_eq!(row_lens(&a), [0, 0, 0, 0, 9, 0]);
    assert!(matches!(generate::one_dense_row::<f64, u32>(6, 9, 6, 1), Err(FormatError::Parameter { .. })));
    assert!(generate::one_dense_row::<f64, u32>(0, 9, 0, 1).is_err());
    let s: M = generate::single_row(17, 1).unwrap();
    assert_eq!((s.nrows(), s.ncols(), s.nnz()), (1, 17, 17));
    let s: M = generate::single_row(0, 1).unwrap();
    assert_eq!((s.nrows(), s.ncols(), s.nnz()), (1, 0, 0));
    let c: M = generate::single_column(23, 1).unwrap();
    assert_eq!((c.nrows(), c.ncols(), c.nnz()), (23, 1, 23));
    assert!(c.view().col_idx().iter().all(|&j| j == 0));
    let t: M = generate::tall_sparse(1_000_000, 100, 1).unwrap();
    assert_eq!((t.nrows(), t.ncols(), t.nnz()), (1_000_000, 1_000_000, 100));
    assert!(row_lens(&t).iter().filter(|&&l| l == 0).count() >= 1_000_000 - 100);
    let full: M = generate::tall_sparse(3, 9, 1).unwrap();
    assert_eq!(full.nnz(), 9);
    assert!(matches!(generate::tall_sparse::<f64, u32>(3, 10, 1), Err(FormatError::Parameter { .. })));
}

// Sizes past 2^32: a 64-bit `usize`.
#[cfg(target_pointer_width = "64")]
#[test]
fn dimensions_that_do_not_fit_the_index_type_are_errors() {
    assert!(matches!(generate::poisson2d::<f64, u32>(70_000), Err(FormatError::TooLarge { .. })));
    assert!(matches!(generate::poisson3d_27::<f64, u32>(2000), Err(FormatError::TooLarge { .. })));
    assert!(matches!(generate::rmat::<f64, u32>(32, 1, 0), Err(FormatError::TooLarge { .. })));
    assert!(matches!(generate::rmat::<f64, u64>(64, 1, 0), Err(FormatError::TooLarge { .. })));
    assert!(matches!(generate::poisson2d::<f64, u64>(usize::MAX), Err(FormatError::TooLarge { .. })));
    assert!(matches!(generate::dense_block::<f64, u64>(usize::MAX, 2, 0), Err(FormatError::TooLarge { .. })));
    assert!(matches!(generate::empty::<f64, u32>(1usize << 33, 1), Err(FormatError::TooLarge { .. })));
    assert!(matches!(generate::empty::<f64, u32>(1, u32::MAX as usize), Err(FormatError::TooLarge { .. })));
    assert!(matches!(
        generate::banded::<f64, u64>(usize::MAX, usize::MAX, usize::MAX, 0),
        Err(FormatError::TooLarge { .. })
    ));
    // Absurd sizes that fit the type come back as errors, not aborts.
    assert!(matches!(generate::empty::<f64, u64>(usize::MAX / 2, 1), Err(FormatError::TooLarge { .. })));
}

#[test]
fn small_suite_matrices_validate_and_are_small() {
    let suite = generate::suite::<f64, u32>(SuiteScale::Small).unwrap();
    assert_eq!(suite.len(), generate::suite_entries(SuiteScale::Small).len());
    let mut names: Vec<&str> = suite.iter().map(|m| m.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), suite.len(), "names are unique");
    assert!(suite.iter().any(|m| m.class == MatrixClass::Regular));
    assert!(suite.iter().any(|m| m.class == MatrixClass::Irregular));
    for m in &suite {
        assert!(m.matrix.nnz() > 1000 && m.matrix.nnz() < 50_000, "{}: {}", m.name, m.matrix.nnz());
        assert_canonical(&m.matrix);
        // Irregular matrices have some row far longer than the mean (uniform_random is
        // irregular by its access pattern, not its row lengths).
        let lens = row_lens(&m.matrix);
        let mean = m.matrix.nnz() as f64 / m.matrix.nrows() as f64;
        let max = *lens.iter().max().unwrap() as f64;
        if m.class == MatrixClass::Regular {
            assert!(max <= 1.5 * mean, "{}", m.name);
        } else if m.name != "uniform_random" {
            assert!(max >= 3.0 * mean, "{}: max {max}, mean {mean}", m.name);
        }
    }
    // The three scales list the same matrices, in the same order and classes.
    let full = generate::suite_entries(SuiteScale::Full);
    let small = generate::suite_entries(SuiteScale::Small);
    let quick = generate::suite_entries(SuiteScale::Quick);
    for other in [small, quick] {
        assert!(full.iter().zip(other).all(|(f, s)| f.name == s.name && f.class == s.class));
        assert_eq!(full.len(), other.len());
    }
    assert_eq!(small[0].spec, Spec::Poisson2d { n: 64 });
}

#[test]
fn spec_generate_matches_the_direct_call() {
    let s = Spec::Dc2Like { n: 500, heavy_rows: 2, heavy_len: 300, seed: 4 };
    assert_eq!(s.generate::<f32, u64>().unwrap(), generate::dc2_like::<f32, u64>(500, 2, 300, 4).unwrap());
    let s = Spec::TallSparse { nrows: 1000, nnz: 3, seed: 4 };
    assert_eq!(s.generate::<f64, u32>().unwrap(), generate::tall_sparse::<f64, u32>(1000, 3, 4).unwrap());
}

/// The generators take `u16` indices: the same matrix as with `u32` where it fits, and
/// `TooLarge` (never a wrapped index) where its rows or entries do not.
#[test]
fn generators_build_u16_matrices_that_fit_and_refuse_the_rest() {
    let a = generate::poisson2d::<f64, u16>(100).unwrap();
    let b = generate::poisson2d::<f64, u32>(100).unwrap();
    let (a, b) = (a.view(), b.view());
    assert!(a.nnz() > 40_000 && a.nnz() <= 65_535);
    assert!(a.row_ptr().iter().zip(b.row_ptr()).all(|(&p, &q)| u32::from(p) == q));
    assert!(a.col_idx().iter().zip(b.col_idx()).all(|(&p, &q)| u32::from(p) == q));
    assert_eq!(a.vals(), b.vals());
    assert!(matches!(generate::poisson2d::<f64, u16>(200), Err(FormatError::TooLarge { .. })));
    assert!(matches!(
        generate::empty::<f64, u16>(70_000, 3),
        Err(FormatError::TooLarge { what: "nrows", .. })
    ));
}
