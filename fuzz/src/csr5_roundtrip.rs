//! Target `csr5_roundtrip`: CSR → CSR5 → CSR is the identity, for the layout of every
//! available `Isa` (`Csr5Layout::new`) and for arbitrary `(omega, sigma)`
//! (`Csr5Layout::with_params`, when it accepts them); CSR5 SpMV equals the dense
//! reference on every available `Isa`, whole and cut into tile ranges
//! (`spmv_tiles` + `apply_carries`); `Csr5::new` accepts exactly the arrays the
//! conversion writes and rejects them with one entry changed (or does not panic); the
//! in-place conversions (`from_csr_in_place` / `to_csr_in_place`, and
//! `Csr5Owned::from_csr_owned` / `into_csr_owned`) are the identity too. A layout made
//! for another matrix of the same shape either makes `from_csr` fail or gives a view
//! that `Csr5::new` accepts and whose SpMV is that matrix's.
//! Index types `u16`, `u32` and `u64`.

use arbitrary::{Arbitrary, Unstructured};
use spblas::formats::csr5::{Csr5Aux, Csr5Parts};
use spblas::level2::csr5::spmv_tiles;
use spblas::level2::{Carry, apply_carries};
use spblas::{Csr, Csr5, Csr5Layout, Csr5Owned, CsrOwned, Index, Isa};

use crate::formats::{Recipe, recipe_csr};
use crate::{Dense, SpmvArgs, Val, check_spmv, same};
use spblas::Exec;

#[derive(Debug, Arbitrary)]
pub struct Input {
    /// The index type: `u64` where bit 0 is set (as the `bool` this byte once was), else
    /// `u16` where bit 1 is, else `u32`.
    pub index: u8,
    /// Index into `OMEGAS`, or (past its end) a raw value.
    pub omega: u8,
    pub sigma: u8,
    /// Tile ranges for `spmv_tiles`: the cut points, modulo `tiles + 2`.
    pub cuts: [u8; 3],
    /// A change to one auxiliary array before `Csr5::new`: `(array, position, value)`.
    pub corrupt: Option<(u8, u16, u32)>,
    /// The entries of another matrix of the same shape, converted with this one's layouts.
    pub other: Option<Vec<(u8, u8, Val)>>,
    pub recipe: Recipe,
}

const OMEGAS: [usize; 6] = [1, 2, 4, 8, 16, 32];

/// Runs the target; returns the number of layouts converted.
pub fn run(data: &[u8]) -> usize {
    let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) else {
        return 0;
    };
    let (nrows, ncols, rp, ci, v) = recipe_csr(&input.recipe);
    if input.index & 1 == 1 {
        let rp: Vec<u64> = rp.iter().map(|&p| u64::from(p)).collect();
        let ci: Vec<u64> = ci.iter().map(|&p| u64::from(p)).collect();
        check::<u64>(&input, nrows, ncols, &rp, &ci, &v)
    } else if input.index & 2 == 2 {
        // A recipe is far below `u16`'s limits (and CSR5's 32 767 rows).
        let narrow = |a: &[u32]| a.iter().map(|&p| u16::try_from(p).expect("a recipe fits u16")).collect();
        let (rp, ci): (Vec<u16>, Vec<u16>) = (narrow(&rp), narrow(&ci));
        check::<u16>(&input, nrows, ncols, &rp, &ci, &v)
    } else {
        check::<u32>(&input, nrows, ncols, &rp, &ci, &v)
    }
}

fn check<I: Index>(input: &Input, nrows: usize, ncols: usize, rp: &[I], ci: &[I], v: &[f64]) -> usize {
    let csr = Csr::new(nrows, ncols, rp, ci, v).expect("a recipe is valid CSR");
    let dense = Dense::from_iter(nrows, ncols, csr.iter());
    let args = input.recipe.args;
    let mut layouts = Vec::new();
    for isa in Isa::available() {
        layouts.push(Csr5Layout::new(&csr, isa).expect("Csr5Layout::new on a valid CSR"));
    }
    let omega = OMEGAS.get(usize::from(input.omega)).copied().unwrap_or(usize::from(input.omega));
    let sigma = usize::from(input.sigma);
    if let Ok(l) = Csr5Layout::with_params(&csr, omega, sigma) {
        assert_eq!((l.omega(), l.sigma()), (omega, sigma));
        layouts.push(l);
    }
    for layout in &layouts {
        roundtrip(input, &csr, layout, &dense, args);
    }
    if let Some(entries) = &input.other {
        let recipe = Recipe { entries: entries.clone(), mutation: None, ..input.recipe.clone() };
        let (n2, m2, rp2, ci2, v2) = recipe_csr(&recipe);
        let (rp2, ci2): (Vec<I>, Vec<I>) = (
            rp2.iter().map(|&p| I::from_usize(p as usize).expect("a recipe fits")).collect(),
            ci2.iter().map(|&p| I::from_usize(p as usize).expect("a recipe fits")).collect(),
        );
        let other = Csr::new(n2, m2, &rp2, &ci2, &v2).expect("a recipe is valid CSR");
        let other_dense = Dense::from_iter(n2, m2, other.iter());
        for layout in &layouts {
            foreign_layout(&other, layout, &other_dense, args);
        }
    }
    // Owned, in place: the copying conversion's arrays, and the same matrix back.
    for isa in Isa::available() {
        let want = Csr5Owned::from_csr(Exec::from(isa), &csr).expect("Csr5Owned::from_csr_isa");
        let got =
            Csr5Owned::from_csr_owned(Exec::from(isa), CsrOwned::from_csr(&csr).expect("CsrOwned::from_csr"))
                .map_err(|(e, _)| e)
                .expect("Csr5Owned::from_csr_owned on a valid CSR");
        let (g, w) = (got.view(), want.view());
        assert!(g.col_idx() == w.col_idx() && same(g.vals(), w.vals()), "from_csr_owned entries differ");
        assert!(
            g.tile_ptr() == w.tile_ptr() && g.tile_desc() == w.tile_desc(),
            "from_csr_owned tiles differ"
        );
        assert!(g.empty_offset() == w.empty_offset(), "from_csr_owned empty_offset differs");
        check_spmv("csr5 owned in place", &g, &dense, args);
        let back = got.into_csr_owned();
        let back = back.view();
        assert!(
            back.row_ptr() == csr.row_ptr()
                && back.col_idx() == csr.col_idx()
                && same(back.vals(), csr.vals())
                && back.row_order() == csr.row_order(),
            "into_csr_owned is not the matrix converted"
        );
    }
    layouts.len()
}

/// The arrays `Csr5::from_csr` writes, sized by a layout (`nnz` entries).
struct Buffers<I> {
    col_idx: Vec<I>,
    vals: Vec<f64>,
    tile_ptr: Vec<I>,
    tile_desc: Vec<u32>,
    empty_offset_ptr: Vec<I>,
    empty_offset: Vec<I>,
}

impl<I: Index> Buffers<I> {
    fn new(layout: &Csr5Layout, nnz: usize) -> Self {
        Buffers {
            col_idx: vec![I::ZERO; nnz],
            vals: vec![0.0; nnz],
            tile_ptr: vec![I::ZERO; layout.tile_ptr_len()],
            tile_desc: vec![0; layout.tile_desc_len()],
            empty_offset_ptr: vec![I::ZERO; layout.tile_ptr_len()],
            empty_offset: vec![I::ZERO; layout.empty_offset_len()],
        }
    }

    fn convert<'a>(
        &'a mut self,
        csr: &Csr<'a, f64, I>,
        layout: &Csr5Layout,
    ) -> Result<Csr5<'a, f64, I>, spblas::FormatError> {
        let aux = Csr5Aux {
            tile_ptr: &mut self.tile_ptr,
            tile_desc: &mut self.tile_desc,
            empty_offset_ptr: &mut self.empty_offset_ptr,
            empty_offset: &mut self.empty_offset,
        };
        Csr5::from_csr(csr, layout, &mut self.col_idx, &mut self.vals, aux)
    }
}

/// `Csr5::from_csr` of `csr` with a layout made for another matrix: an error, or a view
/// that `Csr5::new` accepts and whose SpMV is `csr`'s.
fn foreign_layout<I: Index>(csr: &Csr<'_, f64, I>, layout: &Csr5Layout, dense: &Dense, args: SpmvArgs) {
    let mut b = Buffers::new(layout, layout.nnz().max(csr.nnz()));
    let Ok(csr5) = b.convert(csr, layout) else { return };
    let parts = Csr5Parts {
        tile_ptr: csr5.tile_ptr(),
        tile_desc: csr5.tile_desc(),
        empty_offset_ptr: csr5.empty_offset_ptr(),
        empty_offset: csr5.empty_offset(),
    };
    let omsig = (layout.omega(), layout.sigma());
    let again = Csr5::new(csr.nrows(), csr.ncols(), omsig, csr.row_ptr(), csr5.col_idx(), csr5.vals(), parts)
        .expect("Csr5::new rejects what from_csr wrote with a foreign layout");
    check_spmv("csr5 foreign layout", &again, dense, args);
    check_spmv("csr5 foreign layout", &csr5, dense, args);
}

fn roundtrip<I: Index>(
    input: &Input,
    csr: &Csr<'_, f64, I>,
    layout: &Csr5Layout,
    dense: &Dense,
    args: SpmvArgs,
) {
    let nnz = csr.nnz();
    assert_eq!(layout.nnz(), nnz);
    assert_eq!(layout.tiles(), nnz / layout.tile_len());
    short_buffers_write_nothing(csr, layout, input.cuts[0]);
    let mut b = Buffers::new(layout, nnz);
    let csr5 = b.convert(csr, layout).expect("Csr5::from_csr with the layout's sizes");
    assert_eq!((csr5.nrows(), csr5.ncols(), csr5.nnz()), (csr.nrows(), csr.ncols(), nnz));

    // SpMV, whole.
    check_spmv("csr5", &csr5, dense, args);
    // SpMV by tile ranges with carries.
    for isa in Isa::available() {
        spmv_by_pieces(&csr5, isa, input.cuts, dense, args);
    }

    // Back to CSR.
    let (mut bc, mut bv) = (vec![I::ZERO; nnz], vec![f64::NAN; nnz]);
    csr5.to_csr(&mut bc, &mut bv).expect("to_csr");
    assert!(bc == csr.col_idx(), "csr5 to_csr: col_idx differs");
    assert!(same(&bv, csr.vals()), "csr5 to_csr: vals differ");
    if nnz > 0 {
        let mut short = vec![I::ZERO; nnz - 1];
        assert!(csr5.to_csr(&mut short, &mut bv).is_err(), "csr5 to_csr into a short buffer");
    }

    // The validating constructor accepts what the conversion wrote ...
    let parts = Csr5Parts {
        tile_ptr: csr5.tile_ptr(),
        tile_desc: csr5.tile_desc(),
        empty_offset_ptr: csr5.empty_offset_ptr(),
        empty_offset: csr5.empty_offset(),
    };
    let shape = (csr.nrows(), csr.ncols());
    let omsig = (layout.omega(), layout.sigma());
    let again = Csr5::new(shape.0, shape.1, omsig, csr.row_ptr(), csr5.col_idx(), csr5.vals(), parts)
        .expect("Csr5::new rejects what from_csr wrote");
    check_spmv("csr5 new", &again, dense, args);
    // ... and with one entry changed, it accepts only an equivalent matrix (or rejects).
    if let Some((which, pos, value)) = input.corrupt {
        let (mut tp, mut td, mut eop, mut eo) = (
            parts.tile_ptr.to_vec(),
            parts.tile_desc.to_vec(),
            parts.empty_offset_ptr.to_vec(),
            parts.empty_offset.to_vec(),
        );
        let mut ci2 = csr5.col_idx().to_vec();
        let p = usize::from(pos);
        let val = I::from_usize(value as usize).unwrap_or(I::MAX);
        fn set<X>(arr: &mut [X], p: usize, v: X) {
            if !arr.is_empty() {
                let n = arr.len();
                arr[p % n] = v;
            }
        }
        match which % 5 {
            0 => set(&mut tp, p, val),
            1 => set(&mut td, p, value),
            2 => set(&mut eop, p, val),
            3 => set(&mut eo, p, val),
            _ => set(&mut ci2, p, val),
        }
        let parts = Csr5Parts { tile_ptr: &tp, tile_desc: &td, empty_offset_ptr: &eop, empty_offset: &eo };
        if let Ok(m) = Csr5::new(shape.0, shape.1, omsig, csr.row_ptr(), &ci2, csr5.vals(), parts) {
            // Accepted: the auxiliary arrays must still be the conversion's (the change
            // was a no-op), and the column change is checked by SpMV.
            assert!(
                tp == csr5.tile_ptr() && td == csr5.tile_desc(),
                "Csr5::new accepted a changed tile array"
            );
            assert!(
                eop == csr5.empty_offset_ptr() && eo == csr5.empty_offset(),
                "Csr5::new accepted a changed empty_offset"
            );
            let mut d = Dense::zeros(shape.0, shape.1);
            let mut back = (vec![I::ZERO; nnz], vec![0.0; nnz]);
            m.to_csr(&mut back.0, &mut back.1).expect("to_csr");
            for i in 0..shape.0 {
                for k in csr.row_ptr()[i].to_usize()..csr.row_ptr()[i + 1].to_usize() {
                    d.add(i, back.0[k].to_usize(), back.1[k]);
                }
            }
            check_spmv("csr5 new (changed col_idx)", &m, &d, args);
        }
    }

    // In place: validate + transpose where the arrays lie, and back.
    let (mut ci3, mut v3) = (csr.col_idx().to_vec(), csr.vals().to_vec());
    let mut tile_ptr = vec![I::ZERO; layout.tile_ptr_len()];
    let mut tile_desc = vec![0u32; layout.tile_desc_len()];
    let mut eop = vec![I::ZERO; layout.tile_ptr_len()];
    let mut eo = vec![I::ZERO; layout.empty_offset_len()];
    let aux = Csr5Aux {
        tile_ptr: &mut tile_ptr,
        tile_desc: &mut tile_desc,
        empty_offset_ptr: &mut eop,
        empty_offset: &mut eo,
    };
    let inplace = Csr5::from_csr_in_place(shape.0, shape.1, csr.row_ptr(), &mut ci3, &mut v3, layout, aux)
        .expect("from_csr_in_place");
    assert!(inplace.col_idx() == csr5.col_idx(), "in-place col_idx differs from from_csr");
    assert!(same(inplace.vals(), csr5.vals()), "in-place vals differ from from_csr");
    check_spmv("csr5 in place", &inplace, dense, args);
    Csr5::<f64, I>::to_csr_in_place(layout, &mut ci3, &mut v3).expect("to_csr_in_place");
    assert!(ci3 == csr.col_idx() && same(&v3, csr.vals()), "in-place roundtrip is not the identity");
    // Wrong lengths: an error, nothing changed.
    if nnz > 0 {
        let before = ci3.clone();
        assert!(Csr5::<f64, I>::to_csr_in_place(layout, &mut ci3[..nnz - 1], &mut v3).is_err());
        assert!(ci3 == before, "to_csr_in_place changed data on error");
    }
}

/// `Csr5::from_csr` with one buffer (chosen by `which`) one element short: an error, and
/// no buffer written (ARCHITECTURE.md, principle 2: nothing half-written on error).
fn short_buffers_write_nothing<I: Index>(csr: &Csr<'_, f64, I>, layout: &Csr5Layout, which: u8) {
    let nnz = csr.nnz();
    let mut lens = [
        nnz,
        nnz,
        layout.tile_ptr_len(),
        layout.tile_desc_len(),
        layout.tile_ptr_len(),
        layout.empty_offset_len(),
    ];
    let k = usize::from(which) % lens.len();
    if lens[k] == 0 {
        return;
    }
    lens[k] -= 1;
    let mark = I::from_usize(7).unwrap_or(I::ZERO);
    let (mut ci, mut v) = (vec![mark; lens[0]], vec![7.0f64; lens[1]]);
    let (mut tp, mut td) = (vec![mark; lens[2]], vec![7u32; lens[3]]);
    let (mut eop, mut eo) = (vec![mark; lens[4]], vec![mark; lens[5]]);
    let aux =
        Csr5Aux { tile_ptr: &mut tp, tile_desc: &mut td, empty_offset_ptr: &mut eop, empty_offset: &mut eo };
    assert!(Csr5::from_csr(csr, layout, &mut ci, &mut v, aux).is_err(), "from_csr with a short buffer {k}");
    let untouched = ci.iter().chain(&tp).chain(&eop).chain(&eo).all(|&x| x == mark)
        && v.iter().all(|&x| x == 7.0)
        && td.iter().all(|&x| x == 7);
    assert!(untouched, "from_csr wrote into its buffers before failing (short buffer {k})");
}

/// SpMV cut into up to four tile ranges, each into its own slice of `y`, then carries.
fn spmv_by_pieces<I: Index>(a: &Csr5<'_, f64, I>, isa: Isa, cuts: [u8; 3], dense: &Dense, args: SpmvArgs) {
    let (alpha, beta) = (args.alpha(), args.beta());
    let x = args.x(dense.ncols);
    let y0 = args.y(dense.nrows);
    let want = dense.spmv(alpha, &x, beta, &y0);
    let n = a.tiles() + 1;
    let mut bounds: Vec<usize> = cuts.iter().map(|&c| usize::from(c) % (n + 1)).collect();
    bounds.push(0);
    bounds.push(n);
    bounds.sort_unstable();
    let mut y = y0.clone();
    let mut carries: Vec<Carry<f64>> = Vec::new();
    for w in bounds.windows(2) {
        let rows = spblas::level2::csr5::owned_rows(a, w[0]..w[1]).expect("owned_rows of a valid range");
        let yr = &mut y[rows.clone()];
        if let Some(c) = spmv_tiles(a, isa, w[0]..w[1], alpha, &x, beta, yr).expect("spmv_tiles") {
            carries.push(c);
        }
    }
    apply_carries(&carries, &mut y).expect("apply_carries");
    assert!(same(&y, &want), "csr5 by pieces {bounds:?} on {isa}: {y:?} != {want:?}");
    // A range past the end is an error.
    let mut y = y0.clone();
    assert!(
        spmv_tiles(a, isa, 0..n + 1, alpha, &x, beta, &mut y).is_err(),
        "tile range past the end accepted"
    );
}
