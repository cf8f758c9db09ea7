//! Symmetric storage (`Symmetric`: one triangle of a real symmetric matrix in CSR): its
//! SpMV and SpMM against the dense reference of the whole matrix and against `SpMv for
//! Csr` on the expanded matrix, on every available `Isa`, f32/f64, u32/i32/u16 indices,
//! both triangles, one and two threads (the SpMV's threads give the serial bits), the
//! edge shapes (0 × 0, diagonal only, no diagonal, empty rows, one dense row and one
//! dense column of the triangle, unsorted rows, duplicates), the BLAS rules for `alpha`
//! and `beta`, and the errors.

mod common;

use common::{assert_close, reference_spmv, splitmix, vector};
use proptest::prelude::*;
use spblas::{
    Csr, CsrOwned, DenseLayout, DenseMut, DenseRef, DimError, Exec, Index, Isa, Scalar, SpMm, SpMv,
    Symmetric, Triangle,
};

/// The shapes of a stored triangle the tests draw.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// Random rows of 0 to `max_len` entries.
    Random,
    /// The diagonal only.
    Diagonal,
    /// Random rows with the diagonal left out.
    NoDiagonal,
    /// The triangle's longest row full, the others short or empty.
    DenseRow,
    /// The triangle's longest column full (every row holds it), nothing else.
    DenseColumn,
    /// Most rows empty.
    Sparse,
}

/// A stored triangle as triplets: `n`, the triangle, and `(row, col, value)` in row order
/// (rows unsorted and with duplicates, or canonical).
#[derive(Clone, Debug)]
struct Tri<T> {
    n: usize,
    triangle: Triangle,
    entries: Vec<(usize, usize, T)>,
}

impl<T: Scalar> Tri<T> {
    /// The CSR arrays of the triangle (rows in the stored order).
    fn csr<I: Index>(&self) -> (Vec<I>, Vec<I>, Vec<T>) {
        let mut row_ptr = vec![I::ZERO; self.n + 1];
        let (mut col_idx, mut vals) = (Vec::new(), Vec::new());
        // Entries come in row order.
        let mut k = 0;
        for i in 0..self.n {
            while let Some(&(_, j, v)) = self.entries.get(k).filter(|e| e.0 == i) {
                col_idx.push(I::from_usize(j).unwrap());
                vals.push(v);
                k += 1;
            }
            row_ptr[i + 1] = I::from_usize(col_idx.len()).unwrap();
        }
        assert_eq!(k, self.entries.len(), "entries out of row order");
        (row_ptr, col_idx, vals)
    }

    /// Every entry of the whole matrix `T + Tᵀ − diag(T)`.
    fn full(&self) -> Vec<(usize, usize, T)> {
        let mut f = Vec::new();
        for &(i, j, v) in &self.entries {
            f.push((i, j, v));
            if i != j {
                f.push((j, i, v));
            }
        }
        f
    }

    /// The longest row of the whole matrix, plus a few: the tolerance factor.
    fn factor(&self) -> f64 {
        let mut len = vec![0usize; self.n];
        self.full().iter().for_each(|e| len[e.0] += 1);
        (len.iter().max().copied().unwrap_or(0) + 3) as f64
    }
}

fn value<T: Scalar>(h: u64) -> T {
    match h % 5 {
        0 => T::ZERO,
        1 => T::from_f64(((h >> 8) % 2000) as f64 - 1000.0),
        _ => T::from_f64(((h >> 8) % 17) as f64 * 0.5 - 4.0),
    }
}

/// A triangle of order up to `max_n` with rows of up to `max_len` entries.
fn triangle<T: Scalar>(max_n: usize, max_len: usize) -> impl Strategy<Value = Tri<T>> {
    let shape = prop_oneof![
        5 => Just(Shape::Random),
        1 => Just(Shape::Diagonal),
        2 => Just(Shape::NoDiagonal),
        1 => Just(Shape::DenseRow),
        1 => Just(Shape::DenseColumn),
        1 => Just(Shape::Sparse),
    ];
    let tri = prop_oneof![Just(Triangle::Lower), Just(Triangle::Upper)];
    (0..=max_n, shape, tri, any::<bool>(), any::<u64>()).prop_map(
        move |(n, shape, triangle, canonical, seed)| {
            let lower = triangle == Triangle::Lower;
            // Row `i`'s columns on its side of the diagonal: `lo..=hi`.
            let side = |i: usize| if lower { (0, i) } else { (i, n - 1) };
            let far = if lower { n.saturating_sub(1) } else { 0 };
            let mut entries = Vec::new();
            for i in 0..n {
                let h = splitmix(seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let (lo, hi) = side(i);
                let mut cols: Vec<usize> = match shape {
                    Shape::Diagonal => vec![i],
                    Shape::DenseRow if i == far => (lo..=hi).collect(),
                    Shape::DenseColumn => vec![if lower { 0 } else { n - 1 }],
                    Shape::Sparse if !h.is_multiple_of(6) => vec![],
                    Shape::DenseRow | Shape::Sparse => {
                        (0..h % 3).map(|k| lo + (splitmix(h ^ k) as usize) % (hi - lo + 1)).collect()
                    }
                    Shape::Random | Shape::NoDiagonal => (0..h % (max_len as u64 + 1))
                        .map(|k| lo + (splitmix(h ^ k) as usize) % (hi - lo + 1))
                        .collect(),
                };
                if matches!(shape, Shape::NoDiagonal) {
                    cols.retain(|&j| j != i);
                }
                if canonical {
                    cols.sort_unstable();
                    cols.dedup();
                }
                for (k, j) in cols.into_iter().enumerate() {
                    entries.push((i, j, value::<T>(splitmix(h ^ (k as u64 + 101)))));
                }
            }
            Tri { n, triangle, entries }
        },
    )
}

/// The threads the tests run with: one and, with `parallel`, two.
fn thread_counts() -> &'static [usize] {
    if cfg!(feature = "parallel") { &[1, 2] } else { &[1] }
}

/// SpMV of the view on every `Isa` and thread count against the dense reference and
/// against the CSR SpMV of the whole matrix; two threads give one thread's bits; `y` starts
/// as NaN when `beta == 0`.
fn check_spmv<T: Scalar, I: Index>(
    tri: &Tri<T>,
    alpha: f64,
    beta: f64,
    seed: u64,
) -> Result<(), TestCaseError> {
    let (rp, ci, v) = tri.csr::<I>();
    let t = Csr::new(tri.n, tri.n, &rp, &ci, &v).unwrap();
    let a = Symmetric::new(t, tri.triangle).unwrap();
    prop_assert_eq!(a.shape(), (tri.n, tri.n));
    let full = CsrOwned::<T, I>::from_triplets(tri.n, tri.n, &tri.full()).unwrap();
    let (alpha, beta) = (T::from_f64(alpha), T::from_f64(beta));
    let x = vector::<T>(tri.n, seed);
    let y0 = vector::<T>(tri.n, seed ^ 7);
    let (want, bound) = reference_spmv(tri.n, tri.full().into_iter(), alpha, &x, beta, &y0);
    let factor = tri.factor();
    let start = |y: &mut Vec<T>| {
        if beta == T::ZERO {
            y.fill(T::from_f64(f64::NAN));
        }
    };
    for isa in Isa::available() {
        let mut serial = y0.clone();
        for &threads in thread_counts() {
            let mut y = y0.clone();
            start(&mut y);
            a.spmv(Exec::from(isa).threads(threads), alpha, &x, beta, &mut y).unwrap();
            assert_close(&y, &want, &bound, factor)
                .map_err(|e| TestCaseError::fail(format!("{isa}, {threads} threads: {e}")))?;
            if threads == 1 {
                serial = y;
            } else {
                let same = y.iter().zip(&serial).all(|(p, q)| p.to_f64().to_bits() == q.to_f64().to_bits());
                prop_assert!(same, "{}: two threads differ from one", isa);
            }
        }
        // The CSR SpMV of the expanded matrix computes the same product.
        let mut yf = y0.clone();
        full.view().spmv(Exec::from(isa), alpha, &x, beta, &mut yf).unwrap();
        let yf: Vec<f64> = yf.iter().map(|v| v.to_f64()).collect();
        assert_close(&serial, &yf, &bound, 2.0 * factor)
            .map_err(|e| TestCaseError::fail(format!("{isa} against full CSR: {e}")))?;
    }
    Ok(())
}

/// SpMM of the view (`k` columns, layouts `lx`, `ly`, leading dimensions padded by `pad`)
/// on every `Isa` and thread count against the dense reference; `Y` starts as NaN when
/// `beta == 0` and its padding is never written.
#[allow(clippy::too_many_arguments)]
fn check_spmm<T: Scalar, I: Index>(
    tri: &Tri<T>,
    k: usize,
    lx: DenseLayout,
    ly: DenseLayout,
    pad: usize,
    alpha: f64,
    beta: f64,
    seed: u64,
) -> Result<(), TestCaseError> {
    const SENTINEL: f64 = 4321.0;
    let (rp, ci, v) = tri.csr::<I>();
    let t = Csr::new(tri.n, tri.n, &rp, &ci, &v).unwrap();
    let a = Symmetric::new(t, tri.triangle).unwrap();
    let n = tri.n;
    let (alpha, beta) = (T::from_f64(alpha), T::from_f64(beta));
    let pos = |l: DenseLayout, ld: usize, i: usize, c: usize| match l {
        DenseLayout::RowMajor => i * ld + c,
        DenseLayout::ColMajor => i + c * ld,
    };
    let lead = |l: DenseLayout| match l {
        DenseLayout::RowMajor => k + pad,
        DenseLayout::ColMajor => n + pad,
    };
    let len = |l: DenseLayout| {
        let (outer, inner) = if l == DenseLayout::RowMajor { (n, k) } else { (k, n) };
        if outer == 0 || inner == 0 { 0 } else { (outer - 1) * lead(l) + inner }
    };
    let (ldx, ldy) = (lead(lx), lead(ly));
    let mut xd = vec![T::from_f64(SENTINEL); len(lx)];
    let mut y0 = vec![T::from_f64(SENTINEL); len(ly)];
    let xv = vector::<T>(n * k, seed);
    let yv = vector::<T>(n * k, seed ^ 3);
    for i in 0..n {
        for c in 0..k {
            xd[pos(lx, ldx, i, c)] = xv[i * k + c];
            y0[pos(ly, ldy, i, c)] = if beta == T::ZERO { T::from_f64(f64::NAN) } else { yv[i * k + c] };
        }
    }
    let factor = tri.factor();
    let full = tri.full();
    for isa in Isa::available() {
        for &threads in thread_counts() {
            let mut y = y0.clone();
            let xr = DenseRef::new(n, k, ldx, lx, &xd).unwrap();
            let mut ym = DenseMut::new(n, k, ldy, ly, &mut y).unwrap();
            a.spmm(Exec::from(isa).threads(threads), alpha, xr, beta, &mut ym).unwrap();
            for c in 0..k {
                let xc: Vec<T> = (0..n).map(|i| xv[i * k + c]).collect();
                let yc: Vec<T> = (0..n).map(|i| yv[i * k + c]).collect();
                let (want, bound) = reference_spmv(n, full.iter().copied(), alpha, &xc, beta, &yc);
                let got: Vec<T> = (0..n).map(|i| y[pos(ly, ldy, i, c)]).collect();
                assert_close(&got, &want, &bound, factor)
                    .map_err(|e| TestCaseError::fail(format!("{isa}, {threads} threads, column {c}: {e}")))?;
            }
            let mut inside = vec![false; y.len()];
            (0..n).for_each(|i| (0..k).for_each(|c| inside[pos(ly, ldy, i, c)] = true));
            let kept = y.iter().zip(&inside).all(|(v, &ins)| ins || v.to_f64() == SENTINEL);
            prop_assert!(kept, "{}: padding of Y written", isa);
        }
    }
    Ok(())
}

fn scalars() -> impl Strategy<Value = (f64, f64)> {
    (prop_oneof![Just(1.0), Just(0.0), Just(-2.5)], prop_oneof![Just(0.0), Just(1.0), Just(0.5)])
}

fn layout() -> impl Strategy<Value = DenseLayout> {
    prop_oneof![3 => Just(DenseLayout::RowMajor), 1 => Just(DenseLayout::ColMajor)]
}

macro_rules! props {
    ($($spmv:ident, $spmm:ident: $t:ty, $i:ty;)*) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(common::cases(24)))]
            $(
                #[test]
                fn $spmv(tri in triangle::<$t>(40, 12), (alpha, beta) in scalars(), seed in any::<u64>()) {
                    check_spmv::<$t, $i>(&tri, alpha, beta, seed)?;
                }

                #[test]
                fn $spmm(
                    tri in triangle::<$t>(24, 8),
                    k in prop::sample::select(vec![1usize, 2, 3, 4, 5, 8, 9, 16, 17, 33]),
                    lx in layout(),
                    ly in layout(),
                    pad in 0usize..2,
                    (alpha, beta) in scalars(),
                    seed in any::<u64>(),
                ) {
                    check_spmm::<$t, $i>(&tri, k, lx, ly, pad, alpha, beta, seed)?;
                }
            )*
        }
    };
}

props! {
    spmv_f64_u32_matches_the_whole_matrix, spmm_f64_u32_matches_the_whole_matrix: f64, u32;
    spmv_f32_u32_matches_the_whole_matrix, spmm_f32_u32_matches_the_whole_matrix: f32, u32;
    spmv_f64_i32_matches_the_whole_matrix, spmm_f64_i32_matches_the_whole_matrix: f64, i32;
    spmv_f32_u16_matches_the_whole_matrix, spmm_f32_u16_matches_the_whole_matrix: f32, u16;
}

/// A lower (or upper) triangle of order `n` with `per_row` random entries a row plus the
/// diagonal, canonical: large enough that two threads run the cross entries' step on
/// both threads (every entry of the second block's cross part scatters into the first).
fn wide<T: Scalar>(n: usize, per_row: usize, triangle: Triangle) -> Tri<T> {
    let mut entries = Vec::new();
    for i in 0..n {
        let (lo, hi) = if triangle == Triangle::Lower { (0, i) } else { (i, n - 1) };
        let mut cols: Vec<usize> =
            (0..per_row).map(|k| lo + (splitmix((i * 131 + k) as u64) as usize) % (hi - lo + 1)).collect();
        cols.push(i);
        cols.sort_unstable();
        cols.dedup();
        entries.extend(cols.into_iter().map(|j| (i, j, value::<T>(splitmix((i ^ (j << 20)) as u64)))));
    }
    Tri { n, triangle, entries }
}

/// Matrices past the threads' work threshold, both triangles: two threads (the cross step
/// of the SpMV on both threads, of the SpMM with `k = 8`) against the reference, and the
/// SpMV's two threads give the serial bits; also a banded triangle (cross entries in a few
/// rows only) and the whole-pool request (`threads(0)`).
#[test]
fn large_matrices_split_on_threads_agree_with_serial() {
    for triangle in [Triangle::Lower, Triangle::Upper] {
        let tri = wide::<f64>(3000, 14, triangle);
        check_spmv::<f64, u32>(&tri, -1.5, 0.5, 11).unwrap();
        check_spmm::<f64, u32>(&tri, 8, DenseLayout::RowMajor, DenseLayout::RowMajor, 1, 2.0, 0.0, 12)
            .unwrap();
        let band = Tri {
            n: 20_000,
            triangle,
            entries: (0..20_000usize)
                .flat_map(|i| {
                    let span = if triangle == Triangle::Lower {
                        i.saturating_sub(3)..=i
                    } else {
                        i..=(i + 3).min(19_999)
                    };
                    span.map(move |j| (i, j, value::<f64>(splitmix((i * 7 + j) as u64))))
                })
                .collect(),
        };
        check_spmv::<f64, u32>(&band, 1.0, 1.0, 13).unwrap();
        let (rp, ci, v) = band.csr::<u32>();
        let a = Symmetric::new(Csr::new(band.n, band.n, &rp, &ci, &v).unwrap(), triangle).unwrap();
        let x = vector::<f64>(band.n, 5);
        let (mut y1, mut y0) = (vec![0.0; band.n], vec![0.0; band.n]);
        a.spmv(Exec::new(), 1.0, &x, 0.0, &mut y1).unwrap();
        a.spmv(Exec::new().threads(0), 1.0, &x, 0.0, &mut y0).unwrap();
        assert!(y1.iter().zip(&y0).all(|(p, q)| p.to_bits() == q.to_bits()), "{triangle:?}");
    }
}

/// The lower triangle of `[[2, 1, 0], [1, 2, 1], [0, 1, 2]]`.
const LOWER: ([u32; 4], [u32; 5], [f64; 5]) = ([0, 1, 3, 5], [0, 0, 1, 1, 2], [2.0, 1.0, 2.0, 1.0, 2.0]);

#[test]
fn entries_outside_the_triangle_and_non_square_matrices_are_errors() {
    let (rp, ci, v) = LOWER;
    let t = Csr::new(3, 3, &rp, &ci, &v).unwrap();
    assert!(Symmetric::new(t, Triangle::Lower).is_ok());
    // Row 1 holds column 0: below the diagonal, outside the upper triangle.
    let e = Symmetric::new(t, Triangle::Upper).unwrap_err();
    assert_eq!(e, DimError::NotTriangular { row: 1, col: 0 });
    // Unsorted: row 1 holds (1, 2) after (1, 0).
    let (rp2, ci2, v2) = ([0u32, 1, 3, 3], [0u32, 0, 2], [1.0f64, 1.0, 1.0]);
    let t = Csr::new(3, 3, &rp2, &ci2, &v2).unwrap();
    assert_eq!(Symmetric::new(t, Triangle::Lower).unwrap_err(), DimError::NotTriangular { row: 1, col: 2 });
    let (rp3, ci3, v3) = ([0u32, 1, 2], [0u32, 1], [1.0f64, 1.0]);
    let t = Csr::new(2, 3, &rp3, &ci3, &v3).unwrap();
    assert_eq!(Symmetric::new(t, Triangle::Lower).unwrap_err(), DimError::NotSquare { nrows: 2, ncols: 3 });
    assert!(!DimError::NotTriangular { row: 1, col: 2 }.to_string().is_empty());
}

#[test]
fn wrong_lengths_are_errors_and_leave_y_untouched() {
    let (rp, ci, v) = LOWER;
    let a = Symmetric::new(Csr::new(3, 3, &rp, &ci, &v).unwrap(), Triangle::Lower).unwrap();
    let mut y = [7.0; 3];
    let e = a.spmv(Exec::new(), 1.0, &[1.0; 2], 0.0, &mut y).unwrap_err();
    assert_eq!(e, DimError::Length { operand: "x", expected: 3, got: 2 });
    let e = a.spmv(Exec::new(), 1.0, &[1.0; 3], 0.0, &mut y[..2]).unwrap_err();
    assert_eq!(e, DimError::Length { operand: "y", expected: 3, got: 2 });
    assert_eq!(y, [7.0; 3]);
    let xd = [1.0; 6];
    let mut yd = [7.0; 6];
    let e = a.spmm(
        Exec::new(),
        1.0,
        DenseRef::row_major(2, 3, &xd).unwrap(),
        0.0,
        &mut DenseMut::row_major(3, 2, &mut yd).unwrap(),
    );
    assert_eq!(e.unwrap_err(), DimError::Length { operand: "x.rows", expected: 3, got: 2 });
    let e = a.spmm(
        Exec::new(),
        1.0,
        DenseRef::row_major(3, 2, &xd).unwrap(),
        0.0,
        &mut DenseMut::row_major(2, 3, &mut yd).unwrap(),
    );
    assert_eq!(e.unwrap_err(), DimError::Length { operand: "y.rows", expected: 3, got: 2 });
    let e = a.spmm(
        Exec::new(),
        1.0,
        DenseRef::row_major(3, 2, &xd).unwrap(),
        0.0,
        &mut DenseMut::row_major(3, 1, &mut yd[..3]).unwrap(),
    );
    assert_eq!(e.unwrap_err(), DimError::Length { operand: "y.cols", expected: 2, got: 1 });
    assert_eq!(yd, [7.0; 6]);
    // A width this machine lacks is an error too.
    if let Some(&missing) = Isa::ALL.iter().find(|i| !i.is_available()) {
        let e = a.spmv(Exec::from(missing), 1.0, &[1.0; 3], 0.0, &mut y).unwrap_err();
        assert!(matches!(e, DimError::IsaUnavailable { .. }));
        assert_eq!(y, [7.0; 3]);
    }
}

/// `beta == 0` never reads `y` (NaN in it cannot leak); `alpha == 0` reads neither `A` nor
/// `x` (NaN in `x` cannot leak) and gives `beta * y`.
#[test]
fn alpha_and_beta_follow_blas_rules() {
    let (rp, ci, v) = LOWER;
    let a = Symmetric::new(Csr::new(3, 3, &rp, &ci, &v).unwrap(), Triangle::Lower).unwrap();
    for isa in Isa::available() {
        for &threads in thread_counts() {
            let ex = Exec::from(isa).threads(threads);
            let mut y = [f64::NAN; 3];
            a.spmv(ex, 1.0, &[1.0, 2.0, 3.0], 0.0, &mut y).unwrap();
            assert_eq!(y, [4.0, 8.0, 8.0]);
            let mut y = [1.0, 2.0, 3.0];
            a.spmv(ex, 0.0, &[f64::NAN; 3], 2.0, &mut y).unwrap();
            assert_eq!(y, [2.0, 4.0, 6.0]);
            let mut y = [f64::NAN; 3];
            a.spmv(ex, 0.0, &[f64::NAN; 3], 0.0, &mut y).unwrap();
            assert_eq!(y, [0.0; 3]);
            let mut y = [1.0, 1.0, 1.0];
            a.spmv(ex, 2.0, &[1.0, 2.0, 3.0], -1.0, &mut y).unwrap();
            assert_eq!(y, [7.0, 15.0, 15.0]);
            // SpMM, two columns: the second is twice the first.
            let xd = [1.0, 2.0, 2.0, 4.0, 3.0, 6.0];
            let mut yd = [f64::NAN; 6];
            a.spmm(
                ex,
                1.0,
                DenseRef::row_major(3, 2, &xd).unwrap(),
                0.0,
                &mut DenseMut::row_major(3, 2, &mut yd).unwrap(),
            )
            .unwrap();
            assert_eq!(yd, [4.0, 8.0, 8.0, 16.0, 8.0, 16.0]);
            let mut yd = [1.0; 6];
            a.spmm(
                ex,
                0.0,
                DenseRef::row_major(3, 2, &[f64::NAN; 6]).unwrap(),
                3.0,
                &mut DenseMut::row_major(3, 2, &mut yd).unwrap(),
            )
            .unwrap();
            assert_eq!(yd, [3.0; 6]);
        }
    }
}

/// The 0 × 0 matrix: every product is empty and succeeds; `to_dense` of the whole matrix.
#[test]
fn empty_matrix_and_dense_expansion() {
    let t = Csr::<f64, u32>::new(0, 0, &[0], &[], &[]).unwrap();
    let a = Symmetric::new(t, Triangle::Upper).unwrap();
    let mut y: [f64; 0] = [];
    a.spmv(Exec::new(), 1.0, &[], 0.0, &mut y).unwrap();
    a.spmm(
        Exec::new(),
        1.0,
        DenseRef::row_major(0, 3, &[]).unwrap(),
        0.0,
        &mut DenseMut::row_major(0, 3, &mut []).unwrap(),
    )
    .unwrap();
    let (rp, ci, v) = LOWER;
    let a = Symmetric::new(Csr::new(3, 3, &rp, &ci, &v).unwrap(), Triangle::Lower).unwrap();
    assert_eq!((a.n(), a.nnz(), a.triangle()), (3, 5, Triangle::Lower));
    let mut d = [0.0; 9];
    a.to_dense(&mut d).unwrap();
    assert_eq!(d, [2.0, 1.0, 0.0, 1.0, 2.0, 1.0, 0.0, 1.0, 2.0]);
    assert!(a.to_dense(&mut [0.0; 8]).is_err());
}
