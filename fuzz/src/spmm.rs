//! Target `spmm`: CSR SpMM (`level2::spmm_csr`, `SpMm for Csr`) and CSR5 SpMM
//! (`level2::spmm_csr5` on the `Isa`'s layout and on a tile shape from the input, and by
//! two tile ranges plus the carry, `level2::csr5::spmm_tiles`) on dense blocks of
//! arbitrary shape, layout, leading dimension and slice length. `DenseRef::new` /
//! `DenseMut::new` refuse a short slice or a small `ld` with an error, never a panic; an
//! accepted block goes through SpMM on every available `Isa`, serially and on 0 to 8
//! tasks, and equals the dense reference exactly (small integers: sums are exact in any
//! order); `Y`'s padding is never written, NaN in `Y` never leaks when `beta == 0`, and a
//! `Y` or `X` of the wrong shape is an error that leaves `Y` untouched.

use arbitrary::{Arbitrary, Unstructured};
use spblas::level2::csr5::{apply_spmm_carry, owned_rows, spmm_tiles};
use spblas::level2::{spmm_csr, spmm_csr5};
use spblas::{Csr, Csr5Layout, Csr5Owned, DenseLayout, DenseMut, DenseRef, Exec, Isa, SpMm};

use crate::formats::{Recipe, recipe_csr};

#[derive(Debug, Arbitrary)]
pub struct Input {
    /// `k`, modulo 80.
    pub k: u8,
    /// Bit 0: `X` column-major; bit 1: `Y` column-major; bits 2..: threads modulo 9.
    pub layouts: u8,
    /// Padding of `X`'s and `Y`'s leading dimension, modulo 4; 3 asks for an `ld` one
    /// short (refused).
    pub pad: (u8, u8),
    /// Elements cut from the end of `X`'s and `Y`'s slices (modulo 3; any cut is refused
    /// unless the block is empty).
    pub cut: (u8, u8),
    /// Rows of `Y` off by one (bit 0: one fewer, bit 1: one more), a shape error; bits
    /// 2–3: the CSR5 tile width `omega` (1, 2, 4, 8), bits 4–7: its height `sigma` - 1.
    pub wrong: u8,
    pub recipe: Recipe,
}

/// `(ld, slice length)` of a `rows × cols` block in `layout` with `pad`, cut by `cut`.
fn shape(rows: usize, cols: usize, layout: DenseLayout, pad: u8, cut: u8) -> (usize, usize) {
    let (outer, inner) = if layout == DenseLayout::RowMajor { (rows, cols) } else { (cols, rows) };
    let ld = if pad % 4 == 3 { inner.saturating_sub(1) } else { inner + usize::from(pad % 4) };
    let len = if outer == 0 || inner == 0 { 0 } else { (outer - 1) * ld + inner };
    (ld, len.saturating_sub(usize::from(cut % 3)))
}

/// Whether a `rows × cols` block in `layout` with leading dimension `ld` fits `len`
/// elements (the documented rule of `DenseRef::new`).
fn fits(rows: usize, cols: usize, layout: DenseLayout, ld: usize, len: usize) -> bool {
    let (outer, inner) = if layout == DenseLayout::RowMajor { (rows, cols) } else { (cols, rows) };
    ld >= inner && (outer == 0 || inner == 0 || (outer - 1) * ld + inner <= len)
}

fn pos(layout: DenseLayout, ld: usize, i: usize, j: usize) -> usize {
    if layout == DenseLayout::RowMajor { i * ld + j } else { i + j * ld }
}

/// Runs the target; returns the number of SpMMs compared.
pub fn run(data: &[u8]) -> usize {
    let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) else {
        return 0;
    };
    let (nrows, ncols, rp, ci, v) = recipe_csr(&input.recipe);
    let a = Csr::new(nrows, ncols, &rp, &ci, &v).expect("a recipe is valid CSR");
    let k = usize::from(input.k % 80);
    let lay =
        |bit: u8| if input.layouts >> bit & 1 == 1 { DenseLayout::ColMajor } else { DenseLayout::RowMajor };
    let (lx, ly) = (lay(0), lay(1));
    let threads = usize::from(input.layouts >> 2) % 9;
    let (ldx, nx) = shape(ncols, k, lx, input.pad.0, input.cut.0);
    let (ldy, ny) = shape(nrows, k, ly, input.pad.1, input.cut.1);
    let args = input.recipe.args;
    let (alpha, beta) = (args.alpha(), args.beta());
    let mut xv = vec![0.0; nx];
    for (p, s) in xv.iter_mut().enumerate() {
        *s = ((p * 7 + usize::from(args.seed)) % 9) as f64 - 4.0;
    }
    let sentinel = 99.0;
    let mut y0 = vec![sentinel; ny];
    let x = match DenseRef::new(ncols, k, ldx, lx, &xv) {
        Ok(x) => x,
        Err(_) => {
            assert!(!fits(ncols, k, lx, ldx, nx), "X refused: ld {ldx}, len {nx}");
            return 0;
        }
    };
    if DenseMut::new(nrows, k, ldy, ly, &mut y0).is_err() {
        assert!(!fits(nrows, k, ly, ldy, ny), "Y refused: ld {ldy}, len {ny}");
        return 0;
    }
    assert!(fits(nrows, k, ly, ldy, ny), "Y accepted: ld {ldy}, len {ny}");
    assert!(fits(ncols, k, lx, ldx, nx), "X accepted: ld {ldx}, len {nx}");
    for i in 0..nrows {
        for c in 0..k {
            let yv = if beta == 0.0 { f64::NAN } else { ((i * 5 + c * 3) % 7) as f64 - 3.0 };
            y0[pos(ly, ldy, i, c)] = yv;
        }
    }
    let mut want = y0.clone();
    for i in 0..nrows {
        for c in 0..k {
            let dot: f64 = (rp[i] as usize..rp[i + 1] as usize)
                .map(|p| v[p] * x.data()[pos(lx, ldx, ci[p] as usize, c)])
                .sum();
            let w = &mut want[pos(ly, ldy, i, c)];
            *w = if beta == 0.0 { alpha * dot } else { alpha * dot + beta * *w };
        }
    }
    let mut compared = 0;
    for isa in Isa::available() {
        for exec in [Exec::from(isa), Exec::from(isa).threads(threads)] {
            let mut yv = y0.clone();
            let mut y = DenseMut::new(nrows, k, ldy, ly, &mut yv).expect("accepted above");
            a.spmm(exec, alpha, x, beta, &mut y).expect("spmm");
            let same = yv.iter().zip(&want).all(|(p, q)| p == q || (p.is_nan() && q.is_nan()));
            assert!(same, "spmm on {isa}, {threads} threads: {yv:?}, want {want:?}");
            assert!(!yv.iter().any(|p| p.is_nan()) || beta != 0.0 || nrows * k == 0, "NaN leaked");
            compared += 1;
        }
        // CSR5: the `Isa`'s layout and the input's tile shape, whole on both thread
        // counts, and (row-major `Y`) by two tile ranges plus the carry.
        let omega = [1usize, 2, 4, 8][usize::from(input.wrong >> 2 & 3)];
        let sigma = 1 + usize::from(input.wrong >> 4);
        for layout in [Csr5Layout::new(&a, isa), Csr5Layout::with_params(&a, omega, sigma)] {
            let c5 =
                Csr5Owned::from_csr_layout(&a, &layout.expect("a recipe has a CSR5 form")).expect("csr5");
            let c5 = c5.view();
            for exec in [Exec::from(isa), Exec::from(isa).threads(threads)] {
                let mut yv = y0.clone();
                let mut y = DenseMut::new(nrows, k, ldy, ly, &mut yv).expect("accepted above");
                spmm_csr5(exec, &c5, alpha, x, beta, &mut y).expect("csr5 spmm");
                let same = yv.iter().zip(&want).all(|(p, q)| p == q || (p.is_nan() && q.is_nan()));
                assert!(same, "csr5 spmm on {isa}, {threads} threads: {yv:?}, want {want:?}");
                compared += 1;
            }
            if ly == DenseLayout::RowMajor {
                let n = c5.tiles() + 1;
                let split = n / 2;
                let r = owned_rows(&c5, 0..split).expect("in range");
                let mut yv = y0.clone();
                let mut carry = vec![f64::NAN; k];
                let (head, tail) = yv.split_at_mut((r.end * ldy).min(ny));
                let mut yt = DenseMut::new(nrows - r.end, k, ldy, ly, tail).expect("the rows after");
                let last =
                    spmm_tiles(&c5, isa, split..n, alpha, x, beta, &mut yt, &mut carry).expect("tail ranges");
                assert_eq!(last, None, "the last range carried");
                let mut yh = DenseMut::new(r.len(), k, ldy, ly, head).expect("the rows before");
                let row =
                    spmm_tiles(&c5, isa, 0..split, alpha, x, beta, &mut yh, &mut carry).expect("head ranges");
                let mut y = DenseMut::new(nrows, k, ldy, ly, &mut yv).expect("accepted above");
                if let Some(row) = row {
                    assert_eq!(row, r.end, "carry for another row");
                    apply_spmm_carry(row, &carry, &mut y).expect("carry");
                }
                let same = yv.iter().zip(&want).all(|(p, q)| p == q || (p.is_nan() && q.is_nan()));
                assert!(same, "csr5 spmm by ranges on {isa}: {yv:?}, want {want:?}");
                compared += 1;
            }
        }
        // A `Y` with a row too few or too many is refused, untouched.
        let fewer = (input.wrong & 1 == 1).then(|| nrows.checked_sub(1)).flatten();
        let more = (input.wrong & 2 == 2).then_some(nrows + 1);
        for m in fewer.into_iter().chain(more) {
            let (ld, len) = shape(m, k, ly, 0, 0);
            let mut yv = vec![sentinel; len];
            let mut y = DenseMut::new(m, k, ld, ly, &mut yv).expect("packed block");
            assert!(spmm_csr(Exec::from(isa), &a, alpha, x, beta, &mut y).is_err(), "wrong rows accepted");
            let c5 = Csr5Owned::from_csr(Exec::from(isa), &a).expect("csr5");
            assert!(
                spmm_csr5(Exec::from(isa), &c5.view(), alpha, x, beta, &mut y).is_err(),
                "wrong rows accepted"
            );
            assert!(yv.iter().all(|&p| p == sentinel), "refused SpMM wrote Y");
        }
    }
    compared
}
