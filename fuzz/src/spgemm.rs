//! Target `spgemm`: `C = A·B` equals the dense triple loop — exactly (small integers) —
//! through `spgemm_symbolic_with` + `spgemm_numeric_with` under the per-bin rule and
//! under a forced `RowMethod`, on an available `Isa` (both picked by the input), and
//! through `spgemm` (the hybrid allocation). The pattern of `C` is the structural one (explicit zeros and
//! cancellations kept), rows sorted without duplicates, and the symbolic row pointers
//! are exactly those of the result. Undersized `row_ptr`, `col_idx`, `vals` and
//! workspaces are errors, a forced merge on a non-canonical `B` is
//! `DimError::NotCanonical`, and inner dimensions that differ are `DimError::Inner` —
//! from every entry point.
//!
//! The same input also checks the matrix sum `alpha·A + beta·B` (`add_symbolic` +
//! `add_numeric`, and `add`) against the dense sum — the union pattern, rows sorted
//! without duplicates, exact values — with `B` itself where the shapes agree and `A`
//! otherwise, and a shape mismatch as `DimError::Shape`.
//!
//! `A` and `B` come from two recipes (rows in input order: unsorted columns and
//! duplicates included); `B` takes `A`'s column count as its row count unless the input
//! asks for a mismatch.

use std::collections::BTreeSet;

use arbitrary::{Arbitrary, Unstructured};
use spblas::level3::{
    RowMethod, SpgemmConfig, add, add_numeric, add_symbolic, add_workspace_len, scale, scale_cols,
    scale_rows, spgemm, spgemm_numeric, spgemm_symbolic, spgemm_workspace_len,
};
use spblas::{Csr, DimError, Isa, RowOrder};

use crate::formats::{Recipe, recipe_csr};
use spblas::Exec;

#[derive(Debug, Arbitrary)]
pub struct Input {
    pub a: Recipe,
    pub b: Recipe,
    /// Keep `B`'s own row count (an inner-dimension mismatch, mostly).
    pub mismatch: bool,
}

/// Runs the target; returns the number of products checked.
pub fn run(data: &[u8]) -> usize {
    let Ok(mut input) = Input::arbitrary_take_rest(Unstructured::new(data)) else {
        return 0;
    };
    let (m, k, ap, ai, av) = recipe_csr(&input.a);
    if !input.mismatch {
        // `recipe_csr` takes the row count modulo `MAX_DIM + 1`; `k` is already below it.
        input.b.nrows = k as u8;
    }
    let (kb, n, bp, bi, bv) = recipe_csr(&input.b);
    let a = Csr::new(m, k, &ap, &ai, &av).expect("a recipe is valid CSR");
    let b = Csr::new(kb, n, &bp, &bi, &bv).expect("a recipe is valid CSR");
    let pick = usize::from(input.a.args.seed) | usize::from(input.a.args.alpha as u8) << 8;
    let isa = Isa::available().nth(pick % Isa::available().count()).expect("pick % count is below the count");
    let (alpha, beta) = ((pick % 5) as f64 - 2.0, ((pick >> 3) % 3) as f64 - 1.0);
    if a.shape() == b.shape() {
        check_sum(Exec::from(isa), alpha, &a, beta, &b);
    } else {
        check_sum(Exec::from(isa), alpha, &a, beta, &a);
        assert!(matches!(add(Exec::from(isa), alpha, &a, beta, &b), Err(DimError::Shape { .. })));
    }
    if k != kb {
        check_mismatch(&a, &b);
        return 0;
    }
    let (pattern, dense) = reference(&a, &b);
    let mut checked = 0;
    // The per-bin rule and one forced method, on one `Isa`, picked by `A`'s SpMV
    // arguments (unused here): all five on every `Isa` made every input cost 10 to 15
    // products, and the fuzzer reaches every pair across inputs anyway.
    let forced = [RowMethod::Heap, RowMethod::BitonicEsc, RowMethod::Merge, RowMethod::Spa];
    for method in [None, Some(forced[(pick >> 8) % forced.len()])] {
        let (exec, cfg) = (Exec::from(isa), SpgemmConfig { method, ..SpgemmConfig::new() });
        if method == Some(RowMethod::Merge) && b.row_order() != RowOrder::Canonical {
            let e = spgemm_workspace_len(exec, cfg, &a, &b);
            assert!(
                matches!(e, Err(DimError::NotCanonical { .. })),
                "forced merge on non-canonical B: {e:?}"
            );
            assert!(matches!(spgemm(exec, cfg, &a, &b), Err(DimError::NotCanonical { .. })));
            continue;
        }
        check_two_phase(exec, cfg, &a, &b, &pattern, &dense);
        let c = spgemm(exec, cfg, &a, &b).unwrap_or_else(|e| panic!("spgemm {isa:?} {cfg:?}: {e}"));
        let c = c.view();
        assert_eq!(c.row_order(), RowOrder::Canonical);
        compare(&format!("spgemm {isa:?} {cfg:?}"), c.row_ptr(), c.col_idx(), c.vals(), &pattern, &dense, n);
        checked += 1;
    }
    checked
}

/// The structural pattern of each row of `C` and the dense values (exact: small
/// integers, at most a few thousand products per entry).
fn reference(a: &Csr<'_, f64, u32>, b: &Csr<'_, f64, u32>) -> (Vec<BTreeSet<u32>>, Vec<f64>) {
    let n = b.ncols();
    let mut pattern = vec![BTreeSet::new(); a.nrows()];
    let mut dense = vec![0.0; a.nrows() * n];
    for (i, p) in pattern.iter_mut().enumerate() {
        let (ac, av) = a.row(i).expect("row in range");
        for (&kk, &x) in ac.iter().zip(av) {
            let (bc, bv) = b.row(kk as usize).expect("inner dimensions agree");
            for (&j, &y) in bc.iter().zip(bv) {
                p.insert(j);
                dense[i * n + j as usize] += x * y;
            }
        }
    }
    (pattern, dense)
}

fn compare(
    what: &str,
    row_ptr: &[u32],
    col_idx: &[u32],
    vals: &[f64],
    pattern: &[BTreeSet<u32>],
    dense: &[f64],
    n: usize,
) {
    assert_eq!(row_ptr.len(), pattern.len() + 1, "{what}: row_ptr length");
    for (i, p) in pattern.iter().enumerate() {
        let r = row_ptr[i] as usize..row_ptr[i + 1] as usize;
        let want: Vec<u32> = p.iter().copied().collect();
        assert_eq!(&col_idx[r.clone()], &want[..], "{what}: columns of row {i}");
        for (&j, &v) in col_idx[r.clone()].iter().zip(&vals[r]) {
            assert_eq!(v, dense[i * n + j as usize], "{what}: value at ({i}, {j})");
        }
    }
}

/// The precise method: workspace query, symbolic, numeric; then every undersized buffer.
fn check_two_phase(
    exec: Exec,
    cfg: SpgemmConfig,
    a: &Csr<'_, f64, u32>,
    b: &Csr<'_, f64, u32>,
    pattern: &[BTreeSet<u32>],
    dense: &[f64],
) {
    let m = a.nrows();
    let ws = spgemm_workspace_len(exec, cfg, a, b).unwrap_or_else(|e| panic!("workspace {cfg:?}: {e}"));
    let (mut wi, mut wv) = (vec![7u32; ws.idx], vec![f64::NAN; ws.vals]);
    let mut row_ptr = vec![u32::MAX; m + 1];
    let nnz = spgemm_symbolic(exec, cfg, a, b, &mut row_ptr, &mut wi)
        .unwrap_or_else(|e| panic!("symbolic {cfg:?}: {e}"));
    assert_eq!(nnz, pattern.iter().map(BTreeSet::len).sum::<usize>(), "symbolic {cfg:?}: nnz(C)");
    let (mut ci, mut cv) = (vec![u32::MAX; nnz], vec![f64::NAN; nnz]);
    spgemm_numeric(exec, cfg, a, b, &row_ptr, &mut ci, &mut cv, (&mut wi, &mut wv))
        .unwrap_or_else(|e| panic!("numeric {cfg:?}: {e}"));
    compare(&format!("symbolic + numeric {cfg:?}"), &row_ptr, &ci, &cv, pattern, dense, b.ncols());

    // Undersized buffers: errors, and the outputs untouched.
    let mut short_ptr = vec![5u32; m];
    assert!(spgemm_symbolic(exec, cfg, a, b, &mut short_ptr, &mut wi).is_err(), "{cfg:?}: short row_ptr");
    assert!(short_ptr.iter().all(|&p| p == 5), "{cfg:?}: row_ptr written on error");
    if ws.idx > 0 {
        let mut rp = vec![5u32; m + 1];
        let e = spgemm_symbolic(exec, cfg, a, b, &mut rp, &mut wi[..ws.idx - 1]);
        assert!(matches!(e, Err(DimError::BufferTooSmall { .. })), "{cfg:?}: short index workspace: {e:?}");
        assert!(rp.iter().all(|&p| p == 5), "{cfg:?}: row_ptr written on error");
        let e = spgemm_numeric(exec, cfg, a, b, &row_ptr, &mut ci, &mut cv, (&mut wi[..ws.idx - 1], &mut wv));
        assert!(e.is_err(), "{cfg:?}: numeric with a short index workspace");
    }
    if ws.vals > 0 {
        let e =
            spgemm_numeric(exec, cfg, a, b, &row_ptr, &mut ci, &mut cv, (&mut wi, &mut wv[..ws.vals - 1]));
        assert!(e.is_err(), "{cfg:?}: numeric with a short value workspace");
    }
    if nnz > 0 {
        let mut ci2 = vec![9u32; nnz - 1];
        let mut cv2 = vec![9.0; nnz];
        let e = spgemm_numeric(exec, cfg, a, b, &row_ptr, &mut ci2, &mut cv2, (&mut wi, &mut wv));
        assert!(e.is_err(), "{cfg:?}: short col_idx");
        assert!(
            ci2.iter().all(|&c| c == 9) && cv2.iter().all(|&v| v == 9.0),
            "{cfg:?}: outputs written on error"
        );
        let mut ci3 = vec![9u32; nnz];
        let mut cv3 = vec![9.0; nnz - 1];
        let e = spgemm_numeric(exec, cfg, a, b, &row_ptr, &mut ci3, &mut cv3, (&mut wi, &mut wv));
        assert!(e.is_err(), "{cfg:?}: short vals");
        assert!(
            ci3.iter().all(|&c| c == 9) && cv3.iter().all(|&v| v == 9.0),
            "{cfg:?}: outputs written on error"
        );
    }
}

/// Inner dimensions that differ: `DimError::Inner` from every entry point.
fn check_mismatch(a: &Csr<'_, f64, u32>, b: &Csr<'_, f64, u32>) {
    let (exec, cfg) = (Exec::new(), SpgemmConfig::new());
    assert!(matches!(spgemm_workspace_len(exec, cfg, a, b), Err(DimError::Inner { .. })));
    let mut rp = vec![3u32; a.nrows() + 1];
    let mut wi = vec![0u32; 64];
    assert!(matches!(spgemm_symbolic(exec, cfg, a, b, &mut rp, &mut wi), Err(DimError::Inner { .. })));
    assert!(rp.iter().all(|&p| p == 3), "row_ptr written on a dimension error");
    let (mut ci, mut cv, mut wv) = (vec![0u32; 4], vec![0.0; 4], vec![0.0; 64]);
    let zeros = vec![0u32; a.nrows() + 1];
    let e = spgemm_numeric(exec, cfg, a, b, &zeros, &mut ci, &mut cv, (&mut wi, &mut wv));
    assert!(matches!(e, Err(DimError::Inner { .. })), "{e:?}");
    assert!(matches!(spgemm(exec, cfg, a, b), Err(DimError::Inner { .. })));
}

/// `scale`, `scale_rows` and `scale_cols` against the products entry by entry (the same
/// one multiply, so the same bits), and short outputs or factors refused untouched.
fn check_scaling(alpha: f64, a: &Csr<'_, f64, u32>) {
    let (m, n) = a.shape();
    let dr: Vec<f64> = (0..m).map(|i| 0.5 + (i % 5) as f64).collect();
    let dc: Vec<f64> = (0..n).map(|j| 1.5 - (j % 3) as f64).collect();
    let mut out = vec![f64::NAN; a.nnz()];
    scale(a, alpha, &mut out).unwrap_or_else(|e| panic!("scale: {e}"));
    assert!(a.vals().iter().zip(&out).all(|(v, o)| (alpha * v).to_bits() == o.to_bits()), "scale");
    scale_rows(a, &dr, &mut out).unwrap_or_else(|e| panic!("scale_rows: {e}"));
    assert!(a.iter().zip(&out).all(|((i, _, v), o)| (dr[i] * v).to_bits() == o.to_bits()), "scale_rows");
    scale_cols(a, &dc, &mut out).unwrap_or_else(|e| panic!("scale_cols: {e}"));
    assert!(a.iter().zip(&out).all(|((_, j, v), o)| (v * dc[j]).to_bits() == o.to_bits()), "scale_cols");
    if a.nnz() > 0 {
        let mut short = vec![5.0; a.nnz() - 1];
        assert!(scale(a, alpha, &mut short).is_err() && short.iter().all(|&v| v == 5.0), "short scale");
    }
    if m > 0 {
        let mut keep = vec![5.0; a.nnz()];
        assert!(
            scale_rows(a, &dr[..m - 1], &mut keep).is_err() && keep.iter().all(|&v| v == 5.0),
            "short rows"
        );
    }
}

/// `alpha·A + beta·B` by both phases and by `add` against the dense sum.
fn check_sum(exec: Exec, alpha: f64, a: &Csr<'_, f64, u32>, beta: f64, b: &Csr<'_, f64, u32>) {
    let (m, n) = a.shape();
    let mut pattern = vec![BTreeSet::new(); m];
    let mut dense = vec![0.0; m * n];
    for (s, mat) in [(alpha, a), (beta, b)] {
        for (i, j, v) in mat.iter() {
            pattern[i].insert(j as u32);
            dense[i * n + j] += s * v;
        }
    }
    let ws = add_workspace_len(exec, a, b).unwrap_or_else(|e| panic!("add workspace: {e}"));
    let (mut wi, mut wv) = (vec![7u32; ws.idx], vec![f64::NAN; ws.vals]);
    let mut row_ptr = vec![u32::MAX; m + 1];
    let nnz = add_symbolic(exec, a, b, &mut row_ptr, &mut wi).unwrap_or_else(|e| panic!("add_symbolic: {e}"));
    assert_eq!(nnz, pattern.iter().map(BTreeSet::len).sum::<usize>(), "add_symbolic: nnz(C)");
    let (mut ci, mut cv) = (vec![u32::MAX; nnz], vec![f64::NAN; nnz]);
    add_numeric(exec, alpha, a, beta, b, &row_ptr, &mut ci, &mut cv, (&mut wi, &mut wv))
        .unwrap_or_else(|e| panic!("add_numeric: {e}"));
    compare("add_symbolic + add_numeric", &row_ptr, &ci, &cv, &pattern, &dense, n);
    let c = add(exec, alpha, a, beta, b).unwrap_or_else(|e| panic!("add: {e}"));
    let c = c.view();
    compare("add", c.row_ptr(), c.col_idx(), c.vals(), &pattern, &dense, n);
    check_scaling(alpha, a);
    if nnz > 0 {
        let mut short = vec![5u32; nnz - 1];
        let e = add_numeric(exec, alpha, a, beta, b, &row_ptr, &mut short, &mut cv, (&mut wi, &mut wv));
        assert!(matches!(e, Err(DimError::BufferTooSmall { .. })), "add_numeric, short col_idx: {e:?}");
        assert!(short.iter().all(|&c| c == 5), "add_numeric: outputs written on error");
    }
}
