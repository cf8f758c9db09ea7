//! The README's "Borrowing from sprs / nalgebra-sparse / faer / SciPy": each library's
//! CSR arrays are borrowed into a `Csr` (no copy: the view's slices are the library's
//! own memory), and spblas's SpMV on every `Isa` equals the library's own product.
#![cfg(not(target_family = "wasm"))]

use spblas::{Csr, Exec, Isa, SpMv};

/// A small matrix with an empty row, a dense-ish row and unsorted-free rows:
/// `(row, col, value)`, 5 x 6.
const ENTRIES: [(usize, usize, f64); 9] = [
    (0, 0, 4.0),
    (0, 3, -1.0),
    (1, 1, 2.5),
    (3, 0, 1.0),
    (3, 1, -2.0),
    (3, 2, 0.5),
    (3, 5, 3.0),
    (4, 4, -1.5),
    (4, 5, 2.0),
];
const SHAPE: (usize, usize) = (5, 6);
const X: [f64; 6] = [1.0, -2.0, 0.5, 3.0, -1.0, 0.25];

/// `y = A x` on every `Isa` this machine runs; all agree with `want` to rounding.
fn check(a: &Csr<'_, f64, impl spblas::Index>, want: &[f64]) {
    for isa in Isa::available() {
        let mut y = vec![f64::NAN; a.nrows()];
        a.spmv(Exec::from(isa), 1.0, &X, 0.0, &mut y).unwrap();
        for (g, w) in y.iter().zip(want) {
            assert!((g - w).abs() <= 1e-12 * (1.0 + w.abs()), "{isa}: {y:?} != {want:?}");
        }
    }
}

/// The view borrows `slice`'s memory: same address, same length.
fn same<T>(view: &[T], slice: &[T]) -> bool {
    core::ptr::eq(view, slice)
}

#[test]
fn borrow_sprs_csmat() {
    // sprs: `CsMat<N>` has `usize` indices; `CsMatI<N, I, Iptr>` others (here `i32`, as
    // SciPy's). `indptr().raw_storage()` is the pointer array of an unsliced matrix
    // (`proper_indptr()` rebases an outer slice, copying only then).
    let mut tri = sprs::TriMat::new(SHAPE);
    for &(r, c, v) in &ENTRIES {
        tri.add_triplet(r, c, v);
    }
    let m: sprs::CsMat<f64> = tri.to_csr();
    let mut want = vec![0.0; SHAPE.0];
    sprs::prod::mul_acc_mat_vec_csr(m.view(), &X[..], &mut want[..]);

    let indptr = m.indptr();
    let a = Csr::new(m.rows(), m.cols(), indptr.raw_storage(), m.indices(), m.data()).unwrap();
    assert!(same(a.col_idx(), m.indices()) && same(a.vals(), m.data()));
    check(&a, &want);

    let mut tri32 = sprs::TriMatI::<f64, i32>::new(SHAPE);
    for &(r, c, v) in &ENTRIES {
        tri32.add_triplet(r, c, v);
    }
    let m32: sprs::CsMatI<f64, i32> = tri32.to_csr();
    let indptr = m32.indptr();
    let a = Csr::<f64, i32>::new(m32.rows(), m32.cols(), indptr.raw_storage(), m32.indices(), m32.data())
        .unwrap();
    assert!(same(a.row_ptr(), indptr.raw_storage()));
    check(&a, &want);
}

#[test]
fn borrow_nalgebra_sparse_csr() {
    // nalgebra-sparse: `csr_data()` gives `(row_offsets, col_indices, values)`, `usize`.
    let coo = nalgebra_sparse::CooMatrix::try_from_triplets_iter(SHAPE.0, SHAPE.1, ENTRIES).unwrap();
    let m = nalgebra_sparse::CsrMatrix::from(&coo);
    let want = &m * &nalgebra_sparse::na::DVector::from_column_slice(&X);

    let (row_ptr, col_idx, vals) = m.csr_data();
    let a = Csr::new(m.nrows(), m.ncols(), row_ptr, col_idx, vals).unwrap();
    assert!(same(a.row_ptr(), m.pattern().major_offsets()) && same(a.vals(), m.values()));
    check(&a, want.as_slice());
}

#[test]
fn borrow_faer_sparse_row_mat() {
    // faer: `SparseRowMatRef`'s `symbolic().row_ptr()`, `symbolic().col_idx()` and
    // `val()`; its index types include `u32`, `u64` and `usize`. (An unsorted-capable
    // matrix may carry `row_nnz`; then the rows are not contiguous and `row_nnz()` is
    // `Some`: build such views row by row instead.)
    let triplets: Vec<_> =
        ENTRIES.iter().map(|&(r, c, v)| faer::sparse::Triplet::new(r as u32, c as u32, v)).collect();
    let m =
        faer::sparse::SparseRowMat::<u32, f64>::try_new_from_triplets(SHAPE.0, SHAPE.1, &triplets).unwrap();
    let m = m.as_ref();
    let mut want = faer::Mat::<f64>::zeros(SHAPE.0, 1);
    let x = faer::Mat::<f64>::from_fn(SHAPE.1, 1, |i, _| X[i]);
    faer::sparse::linalg::matmul::sparse_dense_matmul(
        want.as_mut(),
        faer::Accum::Replace,
        m,
        x.as_ref(),
        1.0,
        faer::Par::Seq,
    );
    let want: Vec<f64> = (0..SHAPE.0).map(|i| want[(i, 0)]).collect();

    let s = m.symbolic();
    assert!(s.row_nnz().is_none());
    let a = Csr::new(s.nrows(), s.ncols(), s.row_ptr(), s.col_idx(), m.val()).unwrap();
    assert!(same(a.col_idx(), s.col_idx()) && same(a.vals(), m.val()));
    check(&a, &want);
}

#[test]
fn borrow_scipy_int32_arrays() {
    // SciPy's `csr_matrix` holds `indptr` and `indices` as `int32` (as `int64` past 2^31
    // entries) and `data` as `float64`; through PyO3 / numpy (`PyReadonlyArray1<i32>`'s
    // `as_slice()`) or a C pointer (`std::slice::from_raw_parts`), they arrive as
    // slices. Here, the arrays SciPy gives this matrix.
    let indptr: [i32; 6] = [0, 2, 3, 3, 7, 9];
    let indices: [i32; 9] = [0, 3, 1, 0, 1, 2, 5, 4, 5];
    let data: [f64; 9] = [4.0, -1.0, 2.5, 1.0, -2.0, 0.5, 3.0, -1.5, 2.0];
    let a = Csr::<f64, i32>::new(SHAPE.0, SHAPE.1, &indptr, &indices, &data).unwrap();
    assert!(same(a.col_idx(), &indices[..]));
    let mut want = vec![0.0; SHAPE.0];
    for &(r, c, v) in &ENTRIES {
        want[r] += v * X[c];
    }
    check(&a, &want);
    // A negative index (an uninitialised or corrupted array) is an error, not a panic.
    let mut bad = indices;
    bad[4] = -1;
    assert_eq!(
        Csr::<f64, i32>::new(SHAPE.0, SHAPE.1, &indptr, &bad, &data).unwrap_err(),
        spblas::FormatError::NegativeIndex { array: "col_idx", position: 4, value: -1 }
    );
}
