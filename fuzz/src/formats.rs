//! Target `formats`: every format constructor on arbitrary arrays never panics; when it
//! accepts, every kernel on the view (SpMV on each available `Isa`, `iter`, `to_dense`,
//! `to_csr`; for CSR also the transposed product, alone and on threads, and the
//! symmetric view of each triangle with its SpMV) runs and matches
//! a dense reference built straight from the raw arrays by the format's documented
//! layout; `Csc::new` accepts exactly what `Csr::new` accepts on the same arrays; and
//! every conversion `X::from_csr` into buffers sized by its layout query reproduces the
//! matrix.
//!
//! Raw CSR, COO, ELL, JDS and SELL arrays also go to the `i32` constructors, read as
//! signed (so half of the values are negative).
//!
//! Two kinds of input: `Raw` arrays (mostly rejected: the constructors' error paths) and
//! a `Recipe`, a valid CSR matrix (unsorted rows and duplicates included) converted to
//! each format, whose arrays are then fed back to the constructors with at most one
//! entry changed (near-valid inputs, accepted or rejected by one invariant).

use arbitrary::{Arbitrary, Unstructured};
use spblas::formats::pad;
use spblas::{
    Coo, Csc, Csr, Dia, DiaLayout, Ell, EllLayout, Hyb, HybLayout, Jds, JdsLayout, Sell, SellLayout, SpMv,
};

use crate::{Dense, Dim, Idx, MAX_DIM, SpmvArgs, Val, check_spmv, idx, small, vals};
use spblas::Exec;

/// Which constructor a raw input goes to.
#[derive(Clone, Copy, Debug, Arbitrary)]
pub enum RawFormat {
    Csr,
    Coo,
    Ell,
    Hyb,
    Jds,
    Dia,
    Sell,
    Csr5,
    Csc,
}

/// Arbitrary arrays for one constructor.
#[derive(Debug, Arbitrary)]
pub struct Raw {
    pub format: RawFormat,
    pub nrows: Dim,
    pub ncols: Dim,
    pub param: Dim,
    /// CSR5 `sigma`.
    pub param2: Dim,
    pub args: SpmvArgs,
    pub a: Vec<Idx>,
    pub b: Vec<Idx>,
    pub c: Vec<Idx>,
    pub offsets: Vec<i16>,
    pub v: Vec<Val>,
}

/// A valid matrix: `(row, col, value)` entries kept in the given order within each row.
#[derive(Clone, Debug, Arbitrary)]
pub struct Recipe {
    pub nrows: u8,
    pub ncols: u8,
    /// ELL/HYB width, SELL slice height (taken modulo a small range).
    pub param: u8,
    pub args: SpmvArgs,
    /// At most one change to the converted arrays: `(array, position, value)`.
    pub mutation: Option<(u8, u16, Idx)>,
    pub entries: Vec<(u8, u8, Val)>,
}

#[derive(Debug, Arbitrary)]
pub enum Input {
    Raw(Raw),
    Recipe(Recipe),
}

/// Runs the target on `data`; returns the number of constructors that accepted (the
/// seed generator keeps inputs with a positive count).
pub fn run(data: &[u8]) -> usize {
    let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) else {
        return 0;
    };
    match input {
        Input::Raw(raw) => run_raw(&raw),
        Input::Recipe(r) => run_recipe(&r),
    }
}

/// The CSR arrays of a recipe: rows in order, each row's entries in input order.
pub fn recipe_csr(r: &Recipe) -> (usize, usize, Vec<u32>, Vec<u32>, Vec<f64>) {
    let nrows = usize::from(r.nrows) % (MAX_DIM + 1);
    let ncols = usize::from(r.ncols) % (MAX_DIM + 1);
    let mut row_ptr = vec![0u32; nrows + 1];
    let mut entries: Vec<(usize, u32, f64)> = Vec::new();
    if nrows > 0 && ncols > 0 {
        for &(i, j, v) in r.entries.iter().take(512) {
            entries.push((usize::from(i) % nrows, u32::from(j) % ncols as u32, v.0));
        }
    }
    entries.sort_by_key(|e| e.0); // stable: unsorted columns and duplicates stay
    for e in &entries {
        row_ptr[e.0 + 1] += 1;
    }
    for i in 0..nrows {
        row_ptr[i + 1] += row_ptr[i];
    }
    let col_idx = entries.iter().map(|e| e.1).collect();
    let vals = entries.iter().map(|e| e.2).collect();
    (nrows, ncols, row_ptr, col_idx, vals)
}

fn run_recipe(r: &Recipe) -> usize {
    let (nrows, ncols, row_ptr, col_idx, vals) = recipe_csr(r);
    let csr = Csr::new(nrows, ncols, &row_ptr, &col_idx, &vals).expect("a recipe is valid CSR");
    let dense = Dense::from_iter(nrows, ncols, csr.iter());
    check_csr_view(&csr, &dense, r.args);
    // The recipe folded into the lower triangle of an `nrows × nrows` matrix (row `i`'s
    // columns taken modulo `i + 1`, order and duplicates kept), so the symmetric view is
    // accepted and its kernels run on most recipes.
    let folded: Vec<u32> = (0..nrows)
        .flat_map(|i| {
            col_idx[row_ptr[i] as usize..row_ptr[i + 1] as usize].iter().map(move |&c| c % (i as u32 + 1))
        })
        .collect();
    let lower = Csr::new(nrows, nrows, &row_ptr, &folded, &vals).expect("a folded recipe is valid CSR");
    check_symmetric(&lower, r.args);
    extreme_layouts(&csr);
    conversions(&csr, &dense, usize::from(r.param), r.args, r.mutation)
}

/// Layout queries with parameters at the maxima: an error or a layout, never a panic
/// or an overflow (nothing is allocated from them here).
fn extreme_layouts(csr: &Csr<'_, f64, u32>) {
    for p in [usize::MAX, usize::MAX - 1, u32::MAX as usize, u32::MAX as usize + 1, 1 << 32, 1 << 63] {
        if let Ok(l) = EllLayout::with_width(csr, p) {
            assert_eq!(Some(l.len()), csr.nrows().checked_mul(p), "ell layout length");
        }
        if let Ok(l) = HybLayout::with_width(csr, p) {
            assert_eq!(l.coo_nnz(), 0, "hyb: a width above every row leaves COO empty");
        }
        let _ = SellLayout::new(csr, p);
        let _ = DiaLayout::new(csr, p);
        let _ = spblas::Csr5Layout::with_params(csr, p, 16);
        let _ = spblas::Csr5Layout::with_params(csr, 4, p);
    }
}

fn run_raw(r: &Raw) -> usize {
    let (nrows, ncols, p) = (r.nrows.0, r.ncols.0, r.param.0);
    let (a, b, c, v) = (idx(&r.a), idx(&r.b), idx(&r.c), vals(&r.v));
    let offsets: Vec<isize> = r.offsets.iter().map(|&o| isize::from(o)).collect();
    let ok = match r.format {
        RawFormat::Csr => {
            raw_signed(r.format, (nrows, ncols, p), (&a, &b, &c), &v, r.args);
            raw_csr(nrows, ncols, &a, &b, &v, r.args)
        }
        RawFormat::Coo => {
            raw_signed(r.format, (nrows, ncols, p), (&a, &b, &c), &v, r.args);
            raw_coo(nrows, ncols, &a, &b, &v, r.args)
        }
        RawFormat::Ell | RawFormat::Jds | RawFormat::Sell => {
            raw_signed(r.format, (nrows, ncols, p), (&a, &b, &c), &v, r.args);
            match r.format {
                RawFormat::Ell => raw_ell(nrows, ncols, p, &b, &v, r.args),
                RawFormat::Jds => raw_jds(nrows, ncols, &a, &c, &b, &v, r.args),
                _ => raw_sell(nrows, ncols, p, &a, &b, &v, r.args),
            }
        }
        RawFormat::Hyb => {
            let split = v.len().min(b.len());
            let (ev, cv) = v.split_at(split);
            raw_hyb(nrows, ncols, p, (&b, ev), (&a, &c, cv), r.args)
        }
        RawFormat::Dia => raw_dia(nrows, ncols, &offsets, &v, r.args),
        RawFormat::Csr5 => {
            // tile_ptr, empty_offset_ptr and empty_offset share `c`, cut in three; the
            // descriptor words are the raw offsets.
            let (tp, rest) = c.split_at(c.len() / 3);
            let (eop, eo) = rest.split_at(rest.len() / 2);
            let desc: Vec<u32> = r.offsets.iter().map(|&o| o as u16 as u32 * 0x0001_0001).collect();
            raw_csr5(nrows, ncols, (p, r.param2.0), (&a, &b, &v), (tp, &desc, eop, eo), r.args)
        }
        RawFormat::Csc => raw_csc(nrows, ncols, &a, &b, &v, r.args),
    };
    usize::from(ok)
}

/// The raw arrays read as `i32` (the index type of C, MKL and SciPy): values from
/// `2^31` up are negative. The constructor never panics; an accepted view holds no
/// negative index, and multiplies as the dense reference; a negative index the `u32`
/// view would take is refused by naming it (`NegativeIndex`), and with every index
/// non-negative `i32` accepts exactly what `u32` accepts (below `i32`'s size limits).
fn raw_signed(
    format: RawFormat,
    (nrows, ncols, p): (usize, usize, usize),
    (a, b, c): (&[u32], &[u32], &[u32]),
    v: &[f64],
    args: SpmvArgs,
) {
    let cast = |x: &[u32]| x.iter().map(|&u| u as i32).collect::<Vec<i32>>();
    let (sa, sb, sc) = (cast(a), cast(b), cast(c));
    let fits = |x: &[u32]| x.iter().all(|&u| u <= i32::MAX as u32);
    let limits = nrows < i32::MAX as usize && ncols < i32::MAX as usize;
    let (signed, unsigned, arrays_fit) = match format {
        RawFormat::Csr => {
            let s = Csr::<f64, i32>::new(nrows, ncols, &sa, &sb, v);
            if let Ok(m) = &s
                && small(nrows, ncols)
            {
                let mut d = Dense::zeros(nrows, ncols);
                for (i, j, x) in m.iter() {
                    d.add(i, j, x);
                }
                check_csr_view_i32(m, &d, args);
            }
            (s.map(|_| ()), Csr::<f64, u32>::new(nrows, ncols, a, b, v).map(|_| ()), fits(a) && fits(b))
        }
        RawFormat::Coo => {
            let s = Coo::<f64, i32>::new(nrows, ncols, &sa, &sb, v);
            if let Ok(m) = &s
                && small(nrows, ncols)
            {
                let mut d = Dense::zeros(nrows, ncols);
                for k in 0..v.len() {
                    d.add(a[k] as usize, b[k] as usize, v[k]);
                }
                check_spmv("coo i32", m, &d, args);
            }
            (s.map(|_| ()), Coo::<f64, u32>::new(nrows, ncols, a, b, v).map(|_| ()), fits(a) && fits(b))
        }
        RawFormat::Ell => {
            // `u32`'s padding is `u32::MAX`, `i32`'s `i32::MAX`: no equivalence to check.
            (Ell::<f64, i32>::new(nrows, ncols, p, &sb, v).map(|_| ()), Ok(()), false)
        }
        RawFormat::Jds => (
            Jds::<f64, i32>::new(nrows, ncols, &sa, &sc, &sb, v).map(|_| ()),
            Jds::<f64, u32>::new(nrows, ncols, a, c, b, v).map(|_| ()),
            fits(a) && fits(b) && fits(c),
        ),
        _ => (Sell::<f64, i32>::new(nrows, ncols, p, &sa, &sb, v).map(|_| ()), Ok(()), false),
    };
    match signed {
        Ok(()) => {
            assert!(!arrays_fit || unsigned.is_ok() || !limits, "{format:?}: i32 accepts what u32 refuses")
        }
        Err(spblas::FormatError::NegativeIndex { value, .. }) => assert!(value < 0),
        Err(_) => {}
    }
    if arrays_fit && limits && unsigned.is_ok() {
        assert!(signed.is_ok(), "{format:?}: u32 accepts, i32 refuses: {signed:?}");
    }
}

/// SpMV of an `i32` CSR view on every `Isa` against the dense reference.
fn check_csr_view_i32(csr: &Csr<'_, f64, i32>, dense: &Dense, args: SpmvArgs) {
    check_spmv("csr i32", csr, dense, args);
}

/// Applies `mutation` to a copy of one of `arrays` (chosen by its first field).
fn mutate(arrays: &mut [&mut Vec<u32>], mutation: Option<(u8, u16, Idx)>) {
    let Some((which, pos, value)) = mutation else { return };
    if arrays.is_empty() {
        return;
    }
    let k = usize::from(which) % arrays.len();
    let arr = &mut arrays[k];
    if arr.is_empty() {
        return;
    }
    let p = usize::from(pos) % arr.len();
    arr[p] = value.0;
}

/// Kernels of an accepted CSR view.
fn check_csr_view(csr: &Csr<'_, f64, u32>, dense: &Dense, args: SpmvArgs) {
    let mut out = vec![f64::NAN; dense.a.len()];
    csr.to_dense(&mut out).expect("to_dense into a sized buffer");
    assert!(crate::same(&out, &dense.a), "csr to_dense");
    if !dense.a.is_empty() {
        let mut short = vec![7.0; dense.a.len() - 1];
        assert!(csr.to_dense(&mut short).is_err(), "to_dense into a short buffer");
        assert!(short.iter().all(|&v| v == 7.0), "to_dense wrote on error");
    }
    check_spmv("csr", csr, dense, args);
    // The reference once, not per method and `Isa`.
    let (x, y0) = (args.x(dense.ncols), args.y(dense.nrows));
    let want = dense.spmv(args.alpha(), &x, args.beta(), &y0);
    for method in spblas::CsrMethod::ALL {
        for isa in spblas::Isa::available() {
            let mut y = y0.clone();
            spblas::level2::spmv_csr(Exec::from(isa), csr, method, args.alpha(), &x, args.beta(), &mut y)
                .unwrap_or_else(|e| panic!("csr {method:?} on {isa}: {e}"));
            assert!(crate::same(&y, &want), "csr {method:?} on {isa}: {y:?} != {want:?}");
        }
    }
    check_transpose(csr, dense, args);
    check_symmetric(csr, args);
}

/// `y = alpha * Aᵀ * x + beta * y` by `spmv_csr_transpose` on every `Isa`, on one thread
/// and on three (exact: small integers), against the transpose of `dense`; wrong lengths
/// are errors that leave `y` untouched.
fn check_transpose(csr: &Csr<'_, f64, u32>, dense: &Dense, args: SpmvArgs) {
    let mut t = Dense::zeros(dense.ncols, dense.nrows);
    for i in 0..dense.nrows {
        for j in 0..dense.ncols {
            t.add(j, i, dense.a[i * dense.ncols + j]);
        }
    }
    let x = args.x(dense.nrows);
    let y0 = args.y(dense.ncols);
    let want = t.spmv(args.alpha(), &x, args.beta(), &y0);
    for isa in spblas::Isa::available() {
        for threads in [1, 3] {
            let exec = Exec::from(isa).threads(threads);
            let mut y = y0.clone();
            spblas::level2::spmv_csr_transpose(exec, csr, args.alpha(), &x, args.beta(), &mut y)
                .unwrap_or_else(|e| panic!("csr transpose on {isa}: {e}"));
            assert!(crate::same(&y, &want), "csr transpose on {isa}, {threads} threads: {y:?} != {want:?}");
            let mut y = y0.clone();
            let short = &x[..x.len().saturating_sub(1)];
            if short.len() != x.len() {
                let r = spblas::level2::spmv_csr_transpose(exec, csr, 1.0, short, 0.0, &mut y);
                assert!(r.is_err(), "csr transpose: short x accepted");
            }
            y.push(1.0);
            let r = spblas::level2::spmv_csr_transpose(exec, csr, 1.0, &x, 0.0, &mut y);
            assert!(r.is_err(), "csr transpose: long y accepted");
            assert!(crate::same_bits(&y[..y0.len()], &y0), "csr transpose: y written on error");
        }
    }
}

/// `Symmetric::new` on the CSR for both triangles: accepted exactly when the matrix is
/// square and every stored entry lies in the triangle (else `NotSquare`, or
/// `NotTriangular` naming a stored entry outside it); when accepted, its SpMV on every
/// `Isa` (and on three threads) equals the dense `T + Tᵀ − diag(T)`.
fn check_symmetric(csr: &Csr<'_, f64, u32>, args: SpmvArgs) {
    use spblas::{DimError, Symmetric, Triangle};
    for triangle in [Triangle::Lower, Triangle::Upper] {
        let inside = |i: usize, j: usize| if triangle == Triangle::Lower { j <= i } else { j >= i };
        let square = csr.nrows() == csr.ncols();
        let valid = square && csr.iter().all(|(i, j, _)| inside(i, j));
        match Symmetric::new(*csr, triangle) {
            Ok(a) => {
                assert!(valid, "symmetric {triangle:?}: accepted a matrix outside the triangle");
                let n = csr.nrows();
                let full = Dense::from_iter(
                    n,
                    n,
                    csr.iter().flat_map(|(i, j, v)| [(i, j, v), (j, i, if i == j { 0.0 } else { v })]),
                );
                check_spmv("symmetric", &a, &full, args);
                let (x, y0) = (args.x(n), args.y(n));
                let want = full.spmv(args.alpha(), &x, args.beta(), &y0);
                for isa in spblas::Isa::available() {
                    let mut y = y0.clone();
                    a.spmv(Exec::from(isa).threads(3), args.alpha(), &x, args.beta(), &mut y)
                        .unwrap_or_else(|e| panic!("symmetric on {isa}, 3 threads: {e}"));
                    assert!(crate::same(&y, &want), "symmetric on {isa}, 3 threads: {y:?} != {want:?}");
                }
            }
            Err(DimError::NotSquare { .. }) => {
                assert!(!square, "symmetric: a square matrix called not square")
            }
            Err(DimError::NotTriangular { row, col }) => {
                assert!(square && !inside(row, col), "symmetric {triangle:?}: ({row}, {col}) is inside");
                assert!(
                    csr.iter().any(|(i, j, _)| (i, j) == (row, col)),
                    "symmetric: ({row}, {col}) not stored"
                );
            }
            Err(e) => panic!("symmetric {triangle:?}: unexpected error {e}"),
        }
    }
}

/// Checks `to_csr` of a view: the CSR it writes is valid and equals `dense`.
fn check_to_csr(
    name: &str,
    nnz: usize,
    dense: &Dense,
    to_csr: impl Fn(&mut [u32], &mut [u32], &mut [f64]) -> Result<(usize, Vec<f64>), spblas::FormatError>,
) {
    let mut rp = vec![0u32; dense.nrows + 1];
    let mut ci = vec![0u32; nnz];
    let mut cv = vec![0.0f64; nnz];
    let (got_nnz, got) = to_csr(&mut rp, &mut ci, &mut cv).unwrap_or_else(|e| panic!("{name} to_csr: {e}"));
    assert_eq!(got_nnz, nnz, "{name} to_csr nnz");
    assert!(crate::same(&got, &dense.a), "{name} to_csr");
    if nnz > 0 {
        let mut short = vec![9.0f64; nnz - 1];
        let mut ci = vec![0u32; nnz];
        assert!(to_csr(&mut rp, &mut ci, &mut short).is_err(), "{name} to_csr into a short buffer");
        assert!(short.iter().all(|&v| v == 9.0), "{name} to_csr wrote on error");
    }
}

/// The dense form of a CSR view (for `to_csr` results).
fn csr_dense(c: &Csr<'_, f64, u32>) -> (usize, Vec<f64>) {
    (c.nnz(), Dense::from_iter(c.nrows(), c.ncols(), c.iter()).a)
}

fn raw_csr(nrows: usize, ncols: usize, rp: &[u32], ci: &[u32], v: &[f64], args: SpmvArgs) -> bool {
    let Ok(csr) = Csr::new(nrows, ncols, rp, ci, v) else { return false };
    if !small(nrows, ncols) {
        return true;
    }
    let mut d = Dense::zeros(nrows, ncols);
    for i in 0..nrows {
        for k in rp[i] as usize..rp[i + 1] as usize {
            d.add(i, ci[k] as usize, v[k]);
        }
    }
    check_csr_view(&csr, &d, args);
    true
}

fn raw_csc(nrows: usize, ncols: usize, cp: &[u32], ri: &[u32], v: &[f64], args: SpmvArgs) -> bool {
    let csc = Csc::new(nrows, ncols, cp, ri, v);
    // The arrays are those of the CSR of the transpose: accepted exactly when that is.
    let t = Csr::new(ncols, nrows, cp, ri, v);
    assert_eq!(csc.is_ok(), t.is_ok(), "csc: {:?} but csr of the transpose: {:?}", csc.err(), t.err());
    let Ok(csc) = csc else { return false };
    if !small(nrows, ncols) {
        return true;
    }
    let mut d = Dense::zeros(nrows, ncols);
    for j in 0..ncols {
        for k in cp[j] as usize..cp[j + 1] as usize {
            d.add(ri[k] as usize, j, v[k]);
        }
    }
    let mut out = vec![f64::NAN; d.a.len()];
    csc.to_dense(&mut out).expect("csc to_dense into a sized buffer");
    assert!(crate::same(&out, &d.a), "csc to_dense");
    check_view("csc", &csc, csc.iter(), &d, args);
    check_to_csr("csc", csc.nnz(), &d, |a, b, c| csc.to_csr(a, b, c).map(|c| csr_dense(&c)));
    true
}

fn raw_coo(nrows: usize, ncols: usize, ri: &[u32], ci: &[u32], v: &[f64], args: SpmvArgs) -> bool {
    let Ok(coo) = Coo::new(nrows, ncols, ri, ci, v) else { return false };
    if !small(nrows, ncols) {
        return true;
    }
    let mut d = Dense::zeros(nrows, ncols);
    for k in 0..v.len() {
        d.add(ri[k] as usize, ci[k] as usize, v[k]);
    }
    check_spmv("coo", &coo, &d, args);
    check_to_csr("coo", coo.nnz(), &d, |a, b, c| coo.to_csr(a, b, c).map(|c| csr_dense(&c)));
    true
}

/// The reference of an ELL block: slot `k` of row `i` at `base + k * h + i`.
fn ell_block(d: &mut Dense, row0: usize, h: usize, width: usize, base: usize, ci: &[u32], v: &[f64]) {
    for i in 0..h {
        for k in 0..width {
            let p = base + k * h + i;
            if ci[p] != pad::<u32>() {
                d.add(row0 + i, ci[p] as usize, v[p]);
            }
        }
    }
}

fn raw_ell(nrows: usize, ncols: usize, width: usize, ci: &[u32], v: &[f64], args: SpmvArgs) -> bool {
    let Ok(ell) = Ell::new(nrows, ncols, width, ci, v) else { return false };
    if !small(nrows, ncols) {
        return true;
    }
    let mut d = Dense::zeros(nrows, ncols);
    ell_block(&mut d, 0, nrows, width, 0, ci, v);
    check_view("ell", &ell, ell.iter(), &d, args);
    check_to_csr("ell", ell.nnz(), &d, |a, b, c| ell.to_csr(a, b, c).map(|c| csr_dense(&c)));
    true
}

fn raw_hyb(
    nrows: usize,
    ncols: usize,
    width: usize,
    (eci, ev): (&[u32], &[f64]),
    (cri, cci, cv): (&[u32], &[u32], &[f64]),
    args: SpmvArgs,
) -> bool {
    // Either part may be rejected on its own; the pair is then not a HYB.
    let (Ok(ell), Ok(coo)) = (Ell::new(nrows, ncols, width, eci, ev), Coo::new(nrows, ncols, cri, cci, cv))
    else {
        return false;
    };
    let Ok(hyb) = Hyb::new(ell, coo) else { return false };
    if !small(nrows, ncols) {
        return true;
    }
    let mut d = Dense::zeros(nrows, ncols);
    ell_block(&mut d, 0, nrows, width, 0, eci, ev);
    for k in 0..cv.len() {
        d.add(cri[k] as usize, cci[k] as usize, cv[k]);
    }
    check_view("hyb", &hyb, hyb.iter(), &d, args);
    check_to_csr("hyb", hyb.nnz(), &d, |a, b, c| hyb.to_csr(a, b, c).map(|c| csr_dense(&c)));
    true
}

fn raw_jds(
    nrows: usize,
    ncols: usize,
    perm: &[u32],
    jd_ptr: &[u32],
    ci: &[u32],
    v: &[f64],
    args: SpmvArgs,
) -> bool {
    let Ok(jds) = Jds::new(nrows, ncols, perm, jd_ptr, ci, v) else { return false };
    // The scratch form must agree with the stack-bitset form.
    let mut scratch = vec![0u64; Jds::<f64, u32>::perm_scratch_len(nrows)];
    assert!(
        Jds::new_with_scratch(nrows, ncols, perm, jd_ptr, ci, v, &mut scratch).is_ok(),
        "jds: new accepts, new_with_scratch rejects"
    );
    if !small(nrows, ncols) {
        return true;
    }
    let mut d = Dense::zeros(nrows, ncols);
    for dg in 0..jd_ptr.len() - 1 {
        for k in jd_ptr[dg] as usize..jd_ptr[dg + 1] as usize {
            let p = k - jd_ptr[dg] as usize;
            d.add(perm[p] as usize, ci[k] as usize, v[k]);
        }
    }
    check_view("jds", &jds, jds.iter(), &d, args);
    check_to_csr("jds", jds.nnz(), &d, |a, b, c| jds.to_csr(a, b, c).map(|c| csr_dense(&c)));
    true
}

fn raw_dia(nrows: usize, ncols: usize, offsets: &[isize], data: &[f64], args: SpmvArgs) -> bool {
    let Ok(dia) = Dia::new(nrows, ncols, offsets, data) else { return false };
    if !small(nrows, ncols) {
        return true;
    }
    let mut d = Dense::zeros(nrows, ncols);
    for (k, &off) in offsets.iter().enumerate() {
        for i in 0..nrows {
            let j = i as isize + off;
            if j >= 0 && (j as usize) < ncols {
                d.add(i, j as usize, data[k * nrows + i]);
            }
        }
    }
    check_view("dia", &dia, dia.iter(), &d, args);
    check_to_csr("dia", dia.csr_nnz(), &d, |a, b, c| dia.to_csr::<u32>(a, b, c).map(|c| csr_dense(&c)));
    true
}

fn raw_sell(
    nrows: usize,
    ncols: usize,
    c: usize,
    slice_ptr: &[u32],
    ci: &[u32],
    v: &[f64],
    args: SpmvArgs,
) -> bool {
    let Ok(sell) = Sell::new(nrows, ncols, c, slice_ptr, ci, v) else { return false };
    if !small(nrows, ncols) {
        return true;
    }
    let mut d = Dense::zeros(nrows, ncols);
    for s in 0..slice_ptr.len() - 1 {
        let row0 = s * c;
        let h = c.min(nrows - row0);
        let (a, b) = (slice_ptr[s] as usize, slice_ptr[s + 1] as usize);
        ell_block(&mut d, row0, h, (b - a) / h, a, ci, v);
    }
    check_view("sell", &sell, sell.iter(), &d, args);
    check_to_csr("sell", sell.nnz(), &d, |a, b, c| sell.to_csr(a, b, c).map(|c| csr_dense(&c)));
    true
}

fn raw_csr5(
    nrows: usize,
    ncols: usize,
    omega_sigma: (usize, usize),
    (rp, ci, v): (&[u32], &[u32], &[f64]),
    (tile_ptr, tile_desc, empty_offset_ptr, empty_offset): (&[u32], &[u32], &[u32], &[u32]),
    args: SpmvArgs,
) -> bool {
    let parts = spblas::formats::Csr5Parts { tile_ptr, tile_desc, empty_offset_ptr, empty_offset };
    let Ok(m) = spblas::Csr5::new(nrows, ncols, omega_sigma, rp, ci, v, parts) else { return false };
    if !small(nrows, ncols) {
        return true;
    }
    // Accepted: the entries in CSR order pair with `row_ptr`.
    let nnz = ci.len();
    let (mut bc, mut bv) = (vec![0u32; nnz], vec![0.0f64; nnz]);
    m.to_csr(&mut bc, &mut bv).expect("csr5 to_csr");
    let mut d = Dense::zeros(nrows, ncols);
    for i in 0..nrows {
        for k in rp[i] as usize..rp[i + 1] as usize {
            d.add(i, bc[k] as usize, bv[k]);
        }
    }
    check_spmv("csr5 (raw)", &m, &d, args);
    true
}

/// `iter` and SpMV of a view against the reference.
fn check_view(
    name: &str,
    a: &dyn SpMv<f64>,
    it: impl Iterator<Item = (usize, usize, f64)>,
    d: &Dense,
    args: SpmvArgs,
) {
    let from_iter = Dense::from_iter(d.nrows, d.ncols, it);
    assert!(crate::same(&from_iter.a, &d.a), "{name}: iter disagrees with the layout");
    check_spmv(name, a, d, args);
}

/// Converts `csr` into every format through its layout query and checks the result;
/// then feeds the converted arrays, with `mutation` applied, to the raw constructors.
/// Returns the number of accepted constructions.
fn conversions(
    csr: &Csr<'_, f64, u32>,
    dense: &Dense,
    param: usize,
    args: SpmvArgs,
    mutation: Option<(u8, u16, Idx)>,
) -> usize {
    let (nrows, ncols, nnz) = (csr.nrows(), csr.ncols(), csr.nnz());
    let mut accepted = 1;

    // COO
    let (mut ri, mut ci, mut v) = (vec![0u32; nnz], vec![0u32; nnz], vec![0.0; nnz]);
    let coo = Coo::from_csr(csr, &mut ri, &mut ci, &mut v).expect("coo from_csr");
    check_spmv("coo from_csr", &coo, dense, args);
    let (mut ri, mut ci) = (ri.clone(), ci.clone());
    mutate(&mut [&mut ri, &mut ci], mutation);
    accepted += usize::from(raw_coo(nrows, ncols, &ri, &ci, &v, args));

    // ELL, with the natural width and with `param` when it is wide enough.
    let widths = [EllLayout::new(csr).map(|l| l.width()).unwrap_or(0), param % 8 + csr.max_row_len()];
    for w in widths {
        let layout = EllLayout::with_width(csr, w).expect("ell layout");
        let (mut ci, mut v) = (vec![0u32; layout.len()], vec![0.0; layout.len()]);
        let ell = Ell::from_csr(csr, &layout, &mut ci, &mut v).expect("ell from_csr");
        check_view("ell from_csr", &ell, ell.iter(), dense, args);
        let mut ci = ci.clone();
        mutate(&mut [&mut ci], mutation);
        accepted += usize::from(raw_ell(nrows, ncols, w, &ci, &v, args));
    }
    // A width below the longest row is an error, not a truncation.
    if csr.max_row_len() > 0 {
        assert!(EllLayout::with_width(csr, csr.max_row_len() - 1).is_err(), "ell: too narrow accepted");
    }

    // HYB with the rule's width and with `param`.
    for layout in
        [HybLayout::new(csr).expect("hyb layout"), HybLayout::with_width(csr, param % 6).expect("hyb w")]
    {
        let mut ec = vec![0u32; layout.ell_len()];
        let mut ev = vec![0.0; layout.ell_len()];
        let (mut cr, mut cc, mut cv) =
            (vec![0u32; layout.coo_nnz()], vec![0u32; layout.coo_nnz()], vec![0.0; layout.coo_nnz()]);
        let hyb =
            Hyb::from_csr(csr, &layout, &mut ec, &mut ev, &mut cr, &mut cc, &mut cv).expect("hyb from_csr");
        check_view("hyb from_csr", &hyb, hyb.iter(), dense, args);
        let (mut ec, mut cr, mut cc) = (ec.clone(), cr.clone(), cc.clone());
        mutate(&mut [&mut ec, &mut cr, &mut cc], mutation);
        accepted += usize::from(raw_hyb(nrows, ncols, layout.width(), (&ec, &ev), (&cr, &cc, &cv), args));
    }

    // JDS
    let layout = JdsLayout::new(csr);
    let (mut perm, mut jd_ptr) = (vec![0u32; layout.perm_len()], vec![0u32; layout.jd_ptr_len()]);
    let (mut ci, mut v) = (vec![0u32; layout.nnz()], vec![0.0; layout.nnz()]);
    let jds = Jds::from_csr(csr, &mut perm, &mut jd_ptr, &mut ci, &mut v).expect("jds from_csr");
    check_view("jds from_csr", &jds, jds.iter(), dense, args);
    let (mut perm, mut jd_ptr, mut ci) = (perm.clone(), jd_ptr.clone(), ci.clone());
    mutate(&mut [&mut perm, &mut jd_ptr, &mut ci], mutation);
    accepted += usize::from(raw_jds(nrows, ncols, &perm, &jd_ptr, &ci, &v, args));

    // DIA: offsets into scratch, then data.
    let mut scratch = vec![0isize; Dia::<f64>::offsets_scratch_len(csr)];
    let ndiag = Dia::offsets_from_csr(csr, &mut scratch).expect("dia offsets");
    let layout = DiaLayout::new(csr, ndiag).expect("dia layout");
    let offsets = &scratch[..ndiag];
    let mut data = vec![0.0; layout.data_len()];
    let dia = Dia::from_csr(csr, offsets, &mut data).expect("dia from_csr");
    check_view("dia from_csr", &dia, dia.iter(), dense, args);
    let mut offs = offsets.to_vec();
    if let Some((_, pos, value)) = mutation
        && !offs.is_empty()
    {
        let p = usize::from(pos) % offs.len();
        offs[p] = (value.0 as i32 as isize).clamp(-(1 << 20), 1 << 20);
    }
    accepted += usize::from(raw_dia(nrows, ncols, &offs, &data, args));

    // SELL with slice heights 1..=9.
    let c = param % 9 + 1;
    let layout = SellLayout::new(csr, c).expect("sell layout");
    let mut sp = vec![0u32; layout.slice_ptr_len()];
    let (mut ci, mut v) = (vec![0u32; layout.len()], vec![0.0; layout.len()]);
    let sell = Sell::from_csr(csr, &layout, &mut sp, &mut ci, &mut v).expect("sell from_csr");
    check_view("sell from_csr", &sell, sell.iter(), dense, args);
    let (mut sp, mut ci) = (sp.clone(), ci.clone());
    mutate(&mut [&mut sp, &mut ci], mutation);
    accepted += usize::from(raw_sell(nrows, ncols, c, &sp, &ci, &v, args));

    // CSC, through its length query; its arrays with one entry changed go back through
    // `Csc::new`.
    let (np, cnnz) = Csc::from_csr_len(csr);
    let (mut cp, mut ri, mut v) = (vec![0u32; np], vec![0u32; cnnz], vec![0.0; cnnz]);
    let csc = Csc::from_csr(csr, &mut cp, &mut ri, &mut v).expect("csc from_csr");
    check_view("csc from_csr", &csc, csc.iter(), dense, args);
    let (mut cp, mut ri) = (cp.clone(), ri.clone());
    mutate(&mut [&mut cp, &mut ri], mutation);
    accepted += usize::from(raw_csc(nrows, ncols, &cp, &ri, &v, args));

    // A mutated CSR too.
    let (mut rp, mut ci) = (csr.row_ptr().to_vec(), csr.col_idx().to_vec());
    mutate(&mut [&mut rp, &mut ci], mutation);
    accepted += usize::from(raw_csr(nrows, ncols, &rp, &ci, csr.vals(), args));
    accepted
}
