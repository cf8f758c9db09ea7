//! CSR5 (thesis ch. 6, 8.5): conversion round trips (copying and in place), validation of
//! the auxiliary arrays, and SpMV against a dense reference on every available `Isa` —
//! whole, and by tile ranges in any order plus carries.

mod common;

use common::{RawCsr, assert_close, csr, reference_spmv, scalars, splitmix, vector};
use proptest::prelude::*;
use spblas::Exec;
use spblas::TUNING;
use spblas::formats::csr5::{Csr5Aux, Csr5Parts, DescFormat, omega_for};
use spblas::level2::csr5::{owned_rows, spmv_tiles};
use spblas::level2::{Carry, SpmvChoice, SpmvConfig, SpmvPlan, apply_carries};
use spblas::{
    Csr, Csr5, Csr5Layout, Csr5Owned, CsrOwned, DimError, FormatError, Gathers, Index, Isa, Scalar, SpMv,
};

/// Owned CSR5 arrays built by `Csr5::from_csr` with `layout`.
struct Built<T, I> {
    col_idx: Vec<I>,
    vals: Vec<T>,
    tile_ptr: Vec<I>,
    tile_desc: Vec<u32>,
    empty_offset_ptr: Vec<I>,
    empty_offset: Vec<I>,
}

fn build<T: Scalar, I: Index>(a: &Csr<'_, T, I>, layout: &Csr5Layout) -> Built<T, I> {
    let mut b = Built {
        col_idx: vec![I::ZERO; layout.nnz()],
        vals: vec![T::ZERO; layout.nnz()],
        tile_ptr: vec![I::ZERO; layout.tile_ptr_len()],
        tile_desc: vec![0; layout.tile_desc_len()],
        empty_offset_ptr: vec![I::ZERO; layout.tile_ptr_len()],
        empty_offset: vec![I::ZERO; layout.empty_offset_len()],
    };
    Csr5::from_csr(
        a,
        layout,
        &mut b.col_idx,
        &mut b.vals,
        Csr5Aux {
            tile_ptr: &mut b.tile_ptr,
            tile_desc: &mut b.tile_desc,
            empty_offset_ptr: &mut b.empty_offset_ptr,
            empty_offset: &mut b.empty_offset,
        },
    )
    .unwrap();
    b
}

impl<T: Scalar, I: Index> Built<T, I> {
    fn parts(&self) -> Csr5Parts<'_, I> {
        Csr5Parts {
            tile_ptr: &self.tile_ptr,
            tile_desc: &self.tile_desc,
            empty_offset_ptr: &self.empty_offset_ptr,
            empty_offset: &self.empty_offset,
        }
    }
    fn view<'a>(&'a self, a: &Csr<'a, T, I>, layout: &Csr5Layout) -> Csr5<'a, T, I> {
        Csr5::new(
            a.nrows(),
            a.ncols(),
            (layout.omega(), layout.sigma()),
            a.row_ptr(),
            &self.col_idx,
            &self.vals,
            self.parts(),
        )
        .unwrap()
    }
}

fn bits<T: Scalar>(v: &[T]) -> Vec<u64> {
    v.iter().map(|x| x.to_f64().to_bits()).collect()
}

/// The `(omega, sigma)` pairs tried for one `Isa`: for each `omega` its kernels run
/// (AVX2: two registers, its default, and one, which AVX-512 runs on the AVX2 kernel;
/// NEON: one, its default, two and four; WebAssembly SIMD: two, its default, one and
/// four), its own layout, small tiles that make many tiles out of a small matrix, and
/// tall tiles whose descriptor is split (two words per lane) where the fields do not pack
/// into one.
fn params<T: Scalar>(isa: Isa) -> Vec<(usize, usize)> {
    let w = omega_for::<T>(isa);
    let widths = match isa {
        Isa::Avx2 | Isa::Avx512 => vec![w, w / 2],
        Isa::Neon => vec![w, 2 * w, 4 * w],
        Isa::Wasm128 => vec![w, w / 2, 2 * w],
        // The tile loop takes the portable layout's `omega`; the row walk every other.
        _ => vec![w, 1, w / 2, 2 * w, 32],
    };
    let mut all = Vec::new();
    for w in widths {
        let tall = (512 / w).min(32);
        all.extend([(w, 1), (w, 2), (w, 3), (w, 7), (w, 16), (w, 25.min(tall)), (w, tall)]);
    }
    all
}

fn check_roundtrip<T: Scalar, I: Index>(raw: &RawCsr<T, I>) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    let mut all = vec![(1, 1), (2, 5), (32, 1)];
    for isa in Isa::available() {
        all.extend(params::<T>(isa));
    }
    for (omega, sigma) in all {
        let layout = Csr5Layout::with_params(&a, omega, sigma).unwrap();
        prop_assert_eq!(layout.tiles(), a.nnz() / (omega * sigma));
        let b = build(&a, &layout);
        let c5 = b.view(&a, &layout);
        prop_assert_eq!(c5.tiles(), layout.tiles());
        // Every tile's descriptor: y_offset counts the heads to the left, the heads
        // total the tile's segments, and lane 0 step 0 is a head.
        for t in 0..c5.tiles() {
            let d = c5.tile(t).unwrap();
            let mut heads = 0;
            for i in 0..omega {
                let (flags, y_off, _) = d.lane(i);
                prop_assert_eq!(y_off, heads);
                heads += flags.count_ones() as usize;
            }
            prop_assert!(d.lane(0).0 & 1 == 1);
            prop_assert_eq!(heads, d.segments());
        }
        let (mut c, mut v) = (vec![I::ZERO; a.nnz()], vec![T::ZERO; a.nnz()]);
        c5.to_csr(&mut c, &mut v).unwrap();
        prop_assert_eq!(&c[..], a.col_idx());
        prop_assert_eq!(bits(&v), bits(a.vals()));

        // In place: the same arrays as the copying conversion, and back again.
        let (mut c, mut v) = (a.col_idx().to_vec(), a.vals().to_vec());
        let (mut tp, mut td) = (vec![I::ZERO; layout.tile_ptr_len()], vec![0u32; layout.tile_desc_len()]);
        let (mut ep, mut eo) =
            (vec![I::ZERO; layout.tile_ptr_len()], vec![I::ZERO; layout.empty_offset_len()]);
        {
            let aux = Csr5Aux {
                tile_ptr: &mut tp,
                tile_desc: &mut td,
                empty_offset_ptr: &mut ep,
                empty_offset: &mut eo,
            };
            let ip = Csr5::from_csr_in_place(a.nrows(), a.ncols(), a.row_ptr(), &mut c, &mut v, &layout, aux)
                .unwrap();
            prop_assert_eq!(ip.col_idx(), &b.col_idx[..]);
            prop_assert_eq!(bits(ip.vals()), bits(&b.vals));
        }
        prop_assert_eq!(&tp, &b.tile_ptr);
        prop_assert_eq!(&td, &b.tile_desc);
        prop_assert_eq!(&ep, &b.empty_offset_ptr);
        prop_assert_eq!(&eo, &b.empty_offset);
        Csr5::<T, I>::to_csr_in_place(&layout, &mut c, &mut v).unwrap();
        prop_assert_eq!(&c[..], a.col_idx());
        prop_assert_eq!(bits(&v), bits(a.vals()));
    }
    // Owned, in place: the copying conversion's arrays for each `Isa`'s layout, and
    // the same matrix (row order included) back.
    for isa in Isa::available() {
        let want = Csr5Owned::from_csr(Exec::from(isa), &a).unwrap();
        let got = Csr5Owned::from_csr_owned(Exec::from(isa), CsrOwned::from_csr(&a).unwrap())
            .map_err(|(e, _)| e)
            .unwrap();
        prop_assert_eq!(got.layout(), want.layout());
        let (g, w) = (got.view(), want.view());
        prop_assert_eq!(g.col_idx(), w.col_idx());
        prop_assert_eq!(bits(g.vals()), bits(w.vals()));
        prop_assert_eq!((g.tile_ptr(), g.tile_desc()), (w.tile_ptr(), w.tile_desc()));
        prop_assert_eq!((g.empty_offset_ptr(), g.empty_offset()), (w.empty_offset_ptr(), w.empty_offset()));
        let back = got.into_csr_owned();
        let back = back.view();
        prop_assert_eq!(
            (back.nrows(), back.ncols(), back.row_order()),
            (a.nrows(), a.ncols(), a.row_order())
        );
        prop_assert_eq!((back.row_ptr(), back.col_idx()), (a.row_ptr(), a.col_idx()));
        prop_assert_eq!(bits(back.vals()), bits(a.vals()));
    }
    Ok(())
}

/// Held while a test forces a [`Gathers`] mode.
static GATHERS_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// SpMV of the CSR5 form for each available `Isa` (with that `Isa`'s `omega`) against the
/// dense reference, whole and by random tile ranges; `beta == 0` starts `y` as NaN.
fn check_spmv<T: Scalar, I: Index>(
    raw: &RawCsr<T, I>,
    alpha: T,
    beta: T,
    seed: u64,
) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    let x = vector::<T>(a.ncols(), seed);
    let y0 = vector::<T>(a.nrows(), seed ^ 0x55);
    let (want, bound) = reference_spmv(a.nrows(), a.iter(), alpha, &x, beta, &y0);
    let factor = (a.max_row_len() + 3) as f64;
    let start = || {
        let mut y = y0.clone();
        if beta == T::ZERO {
            y.fill(T::from_f64(f64::NAN));
        }
        y
    };
    for isa in Isa::available() {
        for (omega, sigma) in params::<T>(isa) {
            let layout = Csr5Layout::with_params(&a, omega, sigma).unwrap();
            let b = build(&a, &layout);
            let c5 = b.view(&a, &layout);
            let mut y = start();
            c5.spmv(Exec::from(isa), alpha, &x, beta, &mut y).unwrap();
            assert_close(&y, &want, &bound, factor)?;
            // Repeated calls give the same bits.
            let mut y2 = start();
            c5.spmv(Exec::from(isa), alpha, &x, beta, &mut y2).unwrap();
            prop_assert_eq!(bits(&y), bits(&y2));
            // Both ways of reading `x` (hardware gathers, a load per lane) give the same
            // bits. The mode is process-wide: the lock keeps other tests' choices out.
            {
                let _only = GATHERS_LOCK.lock().unwrap_or_else(|e| e.into_inner());
                for g in [Gathers::Hardware, Gathers::Loads] {
                    Gathers::set(Some(g));
                    let mut y3 = start();
                    c5.spmv(Exec::from(isa), alpha, &x, beta, &mut y3).unwrap();
                    Gathers::set(None);
                    prop_assert_eq!(bits(&y), bits(&y3), "{:?} {:?}", isa, g);
                }
            }

            // Tile ranges in a shuffled order, then the carries.
            let n = c5.tiles() + 1;
            let mut cuts = vec![0, n];
            let mut h = seed;
            for _ in 0..3 {
                h = splitmix(h);
                cuts.push((h % (n as u64 + 1)) as usize);
            }
            cuts.sort_unstable();
            let ranges: Vec<_> = cuts.windows(2).map(|w| w[0]..w[1]).collect();
            let mut y = start();
            // Each range's own rows, carved out of `y` in order, then run shuffled.
            let mut parts = Vec::new();
            let mut rest: &mut [T] = &mut y;
            let mut next_row = 0;
            for r in ranges {
                let rows = owned_rows(&c5, r.clone()).unwrap();
                prop_assert!(rows.start == next_row || rows.is_empty());
                let (mine, tail) = std::mem::take(&mut rest).split_at_mut(rows.len());
                next_row += rows.len();
                rest = tail;
                parts.push((r, mine));
            }
            prop_assert_eq!(next_row, a.nrows());
            if h & 1 == 1 {
                parts.reverse();
            }
            let mut carries: Vec<Carry<T>> = Vec::new();
            for (r, mine) in parts {
                carries.extend(spmv_tiles(&c5, isa, r, alpha, &x, beta, mine).unwrap());
            }
            apply_carries(&carries, &mut y).unwrap();
            assert_close(&y, &want, &bound, factor)?;
        }
    }
    // The owned form on the detected `Isa`.
    let owned = Csr5Owned::from_csr(Exec::new(), &a).unwrap();
    let mut y = start();
    owned.view().spmv(Exec::new(), alpha, &x, beta, &mut y).unwrap();
    assert_close(&y, &want, &bound, factor)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::common::cases(96)))]

    #[test]
    fn csr5_roundtrip_preserves_entries_u32(raw in csr::<f64, u32>(40, 9, false)) {
        check_roundtrip(&raw)?;
    }

    #[test]
    fn csr5_roundtrip_preserves_entries_u64_f32(raw in csr::<f32, u64>(40, 9, false)) {
        check_roundtrip(&raw)?;
    }

    #[test]
    fn csr5_roundtrip_preserves_entries_u16_f32(raw in csr::<f32, u16>(40, 9, false)) {
        check_roundtrip(&raw)?;
    }

    #[test]
    fn csr5_spmv_matches_reference_f64_u16(raw in csr::<f64, u16>(48, 12, false), (al, be) in scalars(), s in any::<u64>()) {
        check_spmv(&raw, al, be, s)?;
    }

    #[test]
    fn csr5_spmv_matches_reference_f32_u16(raw in csr::<f32, u16>(48, 12, false), (al, be) in scalars(), s in any::<u64>()) {
        check_spmv(&raw, al as f32, be as f32, s)?;
    }

    #[test]
    fn csr5_spmv_matches_reference_f64_u32(raw in csr::<f64, u32>(48, 12, false), (al, be) in scalars(), s in any::<u64>()) {
        check_spmv(&raw, al, be, s)?;
    }

    #[test]
    fn csr5_spmv_matches_reference_f32_u32(raw in csr::<f32, u32>(48, 12, false), (al, be) in scalars(), s in any::<u64>()) {
        check_spmv(&raw, al as f32, be as f32, s)?;
    }

    #[test]
    fn csr5_spmv_matches_reference_f64_u64(raw in csr::<f64, u64>(48, 12, false), (al, be) in scalars(), s in any::<u64>()) {
        check_spmv(&raw, al, be, s)?;
    }

    #[test]
    fn csr5_spmv_matches_reference_f32_usize(raw in csr::<f32, usize>(48, 12, false), (al, be) in scalars(), s in any::<u64>()) {
        check_spmv(&raw, al as f32, be as f32, s)?;
    }
}

/// Two matrices of one shape (`nrows`, `ncols`, `nnz`) whose entries fall in rows drawn
/// from `seed_a` and `seed_b` (many empty rows where `nrows` is large), small integer
/// values so that every SpMV is exact.
fn same_shape_pair(
    nrows: usize,
    ncols: usize,
    nnz: usize,
    (seed_a, seed_b): (u64, u64),
) -> (CsrOwned<f64, u32>, CsrOwned<f64, u32>) {
    let make = |seed: u64| {
        let mut rows: Vec<usize> = (0..nnz).map(|k| splitmix(seed ^ k as u64) as usize % nrows).collect();
        rows.sort_unstable();
        let mut row_ptr = vec![0u32; nrows + 1];
        for &r in &rows {
            row_ptr[r + 1] += 1;
        }
        for i in 0..nrows {
            row_ptr[i + 1] += row_ptr[i];
        }
        let col_idx = (0..nnz).map(|k| (splitmix(!seed ^ k as u64) % ncols as u64) as u32).collect();
        let vals = (0..nnz).map(|k| (splitmix(seed.rotate_left(7) ^ k as u64) % 7) as f64 - 3.0).collect();
        CsrOwned::from_parts(nrows, ncols, row_ptr, col_idx, vals).unwrap()
    };
    (make(seed_a), make(seed_b))
}

/// `Csr5::from_csr` of `b` with the layout made for `a` (same shape): an error, or a
/// view that `Csr5::new` accepts and whose SpMV is `b`'s.
fn check_foreign_layout(
    a: &Csr<'_, f64, u32>,
    b: &Csr<'_, f64, u32>,
    (omega, sigma): (usize, usize),
) -> Result<(), TestCaseError> {
    let Ok(layout) = Csr5Layout::with_params(a, omega, sigma) else {
        return Ok(());
    };
    let mut out = Built {
        col_idx: vec![0u32; layout.nnz()],
        vals: vec![0.0; layout.nnz()],
        tile_ptr: vec![0; layout.tile_ptr_len()],
        tile_desc: vec![0; layout.tile_desc_len()],
        empty_offset_ptr: vec![0; layout.tile_ptr_len()],
        empty_offset: vec![0; layout.empty_offset_len()],
    };
    let aux = Csr5Aux {
        tile_ptr: &mut out.tile_ptr,
        tile_desc: &mut out.tile_desc,
        empty_offset_ptr: &mut out.empty_offset_ptr,
        empty_offset: &mut out.empty_offset,
    };
    let got = Csr5::from_csr(b, &layout, &mut out.col_idx, &mut out.vals, aux).map(|c5| {
        let parts = Csr5Parts {
            tile_ptr: c5.tile_ptr(),
            tile_desc: c5.tile_desc(),
            empty_offset_ptr: c5.empty_offset_ptr(),
            empty_offset: c5.empty_offset(),
        };
        let checked =
            Csr5::new(b.nrows(), b.ncols(), (omega, sigma), b.row_ptr(), c5.col_idx(), c5.vals(), parts);
        let x = vector::<f64>(b.ncols(), 9);
        let (mut y, mut want) = (vector::<f64>(b.nrows(), 10), vector::<f64>(b.nrows(), 10));
        c5.spmv(Exec::new(), 1.0, &x, 0.5, &mut y).unwrap();
        b.spmv(Exec::new(), 1.0, &x, 0.5, &mut want).unwrap();
        (checked.map(drop), bits(&y) == bits(&want))
    });
    match got {
        Err(e) => prop_assert!(matches!(e, FormatError::Length { array: "empty_offset", .. }), "{e:?}"),
        Ok((checked, same)) => {
            prop_assert_eq!(checked, Ok(()));
            prop_assert!(same, "SpMV differs from CSR's");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::common::cases(512)))]

    /// A layout made for another matrix of the same shape.
    #[test]
    fn csr5_layout_of_another_matrix_is_refused_or_right(
        nrows in 1usize..60,
        ncols in 1usize..12,
        nnz in 0usize..160,
        seeds: (u64, u64),
        omega in prop::sample::select(vec![1usize, 2, 4, 8, 16, 32]),
        sigma in 1usize..9,
    ) {
        let (a, b) = same_shape_pair(nrows, ncols, nnz, seeds);
        check_foreign_layout(&a.view(), &b.view(), (omega, sigma))?;
        check_foreign_layout(&b.view(), &a.view(), (omega, sigma))?;
    }
}

/// A CSR matrix from row lengths (columns cycle, values from the row and position).
fn from_lens<T: Scalar, I: Index>(ncols: usize, lens: &[usize]) -> RawCsr<T, I> {
    let mut row_ptr = vec![I::ZERO];
    let (mut col_idx, mut vals) = (Vec::new(), Vec::new());
    for (r, &len) in lens.iter().enumerate() {
        for k in 0..len {
            col_idx.push(I::from_usize((r * 7 + k * 3) % ncols).unwrap());
            vals.push(T::from_f64(((r + k) % 5) as f64 - 1.5));
        }
        row_ptr.push(I::from_usize(col_idx.len()).unwrap());
    }
    RawCsr { nrows: lens.len(), ncols, row_ptr, col_idx, vals }
}

/// The edge cases the reference implementation got wrong, on every `Isa`, each with
/// `beta == 0` over a NaN `y` and with `alpha = -2.5, beta = 0.5`.
#[test]
fn csr5_edge_cases_match_reference() {
    let w = 16 * 32; // the largest native tile (AVX-512 f32, sigma 32)
    let cases: Vec<(&str, usize, Vec<usize>)> = vec![
        ("nnz = 0", 5, vec![0; 9]),
        ("0 x 0", 0, vec![]),
        ("nnz < one tile", 7, vec![1, 0, 2]),
        ("nnz = tile", 64, vec![w / 4; 4]),
        ("nnz = tile + 1", 64, vec![w / 4, w / 4, w / 4, w / 4 + 1]),
        ("nnz = tile - 1", 64, vec![w / 4, w / 4, w / 4, w / 4 - 1]),
        ("nnz = 3 tiles", 31, vec![3; w]),
        ("all rows empty", 3, vec![0; 1000]),
        ("leading and trailing empty rows", 9, [vec![0; 300], vec![5; 200], vec![0; 300]].concat()),
        ("m >> nnz", 4, (0..5000).map(|r| usize::from(r % 97 == 0)).collect()),
        ("one row over many tiles", 1000, [vec![1; 5], vec![10_000], vec![0, 2]].concat()),
        ("rectangular wide", 50_000, (0..300).map(|r| r % 11).collect()),
        // Rows of a tile and more over an `x` past L1: AVX-512 prefetches `x` ahead of
        // its gathers, up to the last tile's last columns.
        ("long rows, wide x", 20_000, vec![600, 1500, 3, 900, 0, 2000, 1]),
    ];
    for (name, ncols, lens) in cases {
        let raw = from_lens::<f64, u32>(ncols.max(1), &lens);
        let raw = RawCsr { ncols, ..raw };
        let raw = if ncols == 0 {
            RawCsr { col_idx: vec![], vals: vec![], row_ptr: vec![0; lens.len() + 1], ..raw }
        } else {
            raw
        };
        for (al, be) in [(1.0, 0.0), (-2.5, 0.5)] {
            check_spmv(&raw, al, be, 7).unwrap_or_else(|e| panic!("{name}: {e}"));
            let raw32 = RawCsr::<f32, u64> {
                nrows: raw.nrows,
                ncols: raw.ncols,
                row_ptr: raw.row_ptr.iter().map(|&p| p as u64).collect(),
                col_idx: raw.col_idx.iter().map(|&c| c as u64).collect(),
                vals: raw.vals.iter().map(|&v| v as f32).collect(),
            };
            check_spmv(&raw32, al as f32, be as f32, 7).unwrap_or_else(|e| panic!("{name} (f32/u64): {e}"));
            let raw16 = RawCsr::<f64, u16> {
                nrows: raw.nrows,
                ncols: raw.ncols,
                row_ptr: raw.row_ptr.iter().map(|&p| u16::try_from(p).unwrap()).collect(),
                col_idx: raw.col_idx.iter().map(|&c| u16::try_from(c).unwrap()).collect(),
                vals: raw.vals.clone(),
            };
            check_spmv(&raw16, al, be, 7).unwrap_or_else(|e| panic!("{name} (f64/u16): {e}"));
        }
    }
}

/// A conversion whose `col_idx` and `vals` (u32 and f64, 1.65M entries, 19.8 MB in all)
/// reach the size from which the copying transposition streams its stores
/// (`STREAM_MIN_BYTES`): the same arrays as the in-place conversion (which never
/// streams), on every `Isa`'s layout, at an odd offset into the buffers, and the round
/// trip back.
#[test]
#[cfg_attr(miri, ignore)]
fn large_conversions_stream_to_the_same_arrays() {
    let lens: Vec<usize> = (0..150_000).map(|r| [3, 17, 0, 9, 26][r % 5]).collect();
    let raw = from_lens::<f64, u32>(70_001, &lens);
    let a = raw.owned();
    let a = a.view();
    assert!(a.nnz() * 12 >= TUNING.stream_min_bytes);
    for isa in Isa::available() {
        let layout = Csr5Layout::new(&a, isa).unwrap();
        let want = Csr5Owned::from_csr_owned(Exec::from(isa), CsrOwned::from_csr(&a).unwrap())
            .map_err(|(e, _)| e)
            .unwrap();
        let w = want.view();
        // One entry in, so neither array starts on a cache line.
        let (mut c, mut v) = (vec![0u32; a.nnz() + 1], vec![0.0f64; a.nnz() + 1]);
        let b = build(&a, &layout);
        let got = {
            let mut b = Built { col_idx: Vec::new(), vals: Vec::new(), ..b };
            let aux = Csr5Aux {
                tile_ptr: &mut b.tile_ptr,
                tile_desc: &mut b.tile_desc,
                empty_offset_ptr: &mut b.empty_offset_ptr,
                empty_offset: &mut b.empty_offset,
            };
            let g = Csr5::from_csr(&a, &layout, &mut c[1..], &mut v[1..], aux).unwrap();
            (g.col_idx().to_vec(), bits(g.vals()))
        };
        assert_eq!(got.0, w.col_idx(), "{isa:?}");
        assert_eq!(got.1, bits(w.vals()), "{isa:?}");
        let (mut c2, mut v2) = (vec![0u32; a.nnz() + 1], vec![0.0f64; a.nnz() + 1]);
        w.to_csr(&mut c2[1..], &mut v2[1..]).unwrap();
        assert_eq!(&c2[1..], a.col_idx(), "{isa:?}");
        assert_eq!(bits(&v2[1..]), bits(a.vals()), "{isa:?}");
    }
}

#[test]
fn csr5_layout_rejects_bad_parameters() {
    let a = CsrOwned::<f64, u32>::from_triplets(3, 3, &[(0, 0, 1.0), (2, 1, 2.0)]).unwrap();
    let a = a.view();
    assert!(matches!(
        Csr5Layout::with_params(&a, 3, 4),
        Err(FormatError::Parameter { name: "omega", value: 3 })
    ));
    assert!(matches!(Csr5Layout::with_params(&a, 64, 4), Err(FormatError::Parameter { name: "omega", .. })));
    assert!(matches!(Csr5Layout::with_params(&a, 4, 0), Err(FormatError::Parameter { name: "sigma", .. })));
    assert!(matches!(Csr5Layout::with_params(&a, 4, 33), Err(FormatError::Parameter { name: "sigma", .. })));
    assert!(matches!(
        Csr5Layout::with_params(&a, 32, 32),
        Err(FormatError::TooLarge { what: "omega * sigma", .. })
    ));
    // 4 x 23 packs into one word per lane; 4 x 24 and 8 x 32 take two.
    for (omega, sigma, words) in [(4, 23, 1), (4, 24, 2), (8, 32, 2), (16, 16, 1)] {
        assert_eq!(DescFormat::new(omega, sigma).map(|f| f.words_per_lane()), Some(words));
        let l = Csr5Layout::with_params(&a, omega, sigma).unwrap();
        assert_eq!(l.tile_desc_len(), l.tiles() * omega * words);
    }
    assert_eq!(DescFormat::max_packed_sigma(4), 23);
    for isa in Isa::available() {
        let l = Csr5Layout::new(&a, isa).unwrap();
        assert_eq!(l.omega(), omega_for::<f64>(isa));
    }
}

#[test]
fn csr5_validation_rejects_corrupted_descriptors() {
    corrupted_descriptors::<u32>();
    corrupted_descriptors::<u16>();
    corrupted_descriptors::<i32>();
    corrupted_descriptors::<i64>();
}

fn corrupted_descriptors<I: Index>() {
    let lens: Vec<usize> = (0..200).map(|r| [0, 1, 3, 0, 7][r % 5]).collect();
    let raw = from_lens::<f64, I>(20, &lens);
    let a = raw.owned();
    let a = a.view();
    let layout = Csr5Layout::with_params(&a, 4, 4).unwrap();
    let b = build(&a, &layout);
    assert!(layout.tiles() > 3 && layout.empty_offset_len() > 0);
    let new = |parts: Csr5Parts<'_, I>, col: &[I]| {
        Csr5::new(a.nrows(), a.ncols(), (4, 4), a.row_ptr(), col, &b.vals, parts).map(|_| ())
    };
    let at = |v: usize| I::from_usize(v).unwrap();
    assert!(new(b.parts(), &b.col_idx).is_ok());
    let mut tp = b.tile_ptr.clone();
    // The empty-row flag (the top bit) toggled.
    tp[2] = if tp[2].is_flagged() { tp[2].unflagged() } else { tp[2].flagged() };
    assert!(matches!(
        new(Csr5Parts { tile_ptr: &tp, ..b.parts() }, &b.col_idx),
        Err(FormatError::Csr5Mismatch { array: "tile_ptr", position: 2 })
    ));
    let mut td = b.tile_desc.clone();
    td[5] ^= 1 << 2;
    assert!(matches!(
        new(Csr5Parts { tile_desc: &td, ..b.parts() }, &b.col_idx),
        Err(FormatError::Csr5Mismatch { array: "tile_desc", position: 5 })
    ));
    let mut eo = b.empty_offset.clone();
    eo[1] = at(eo[1].to_usize() + 1);
    assert!(matches!(
        new(Csr5Parts { empty_offset: &eo, ..b.parts() }, &b.col_idx),
        Err(FormatError::Csr5Mismatch { array: "empty_offset", .. })
    ));
    let short = &b.tile_ptr[..b.tile_ptr.len() - 1];
    assert!(matches!(
        new(Csr5Parts { tile_ptr: short, ..b.parts() }, &b.col_idx),
        Err(FormatError::Length { array: "tile_ptr", .. })
    ));
    let mut col = b.col_idx.clone();
    col[9] = at(20);
    assert!(matches!(new(b.parts(), &col), Err(FormatError::ColumnOutOfBounds { col: 20, .. })));
}

#[test]
fn csr5_errors_leave_outputs_untouched() {
    let raw = from_lens::<f64, u32>(10, &[3, 0, 40, 2]);
    let a = raw.owned();
    let a = a.view();
    let layout = Csr5Layout::with_params(&a, 4, 2).unwrap();
    let mut col = vec![7u32; a.nnz() - 1];
    let mut vals = vec![1.0; a.nnz()];
    let (mut tp, mut td) = (vec![9u32; layout.tile_ptr_len()], vec![9u32; layout.tile_desc_len()]);
    let (mut ep, mut eo) = (vec![9u32; layout.tile_ptr_len()], vec![9u32; layout.empty_offset_len()]);
    let aux =
        Csr5Aux { tile_ptr: &mut tp, tile_desc: &mut td, empty_offset_ptr: &mut ep, empty_offset: &mut eo };
    assert!(matches!(
        Csr5::from_csr(&a, &layout, &mut col, &mut vals, aux),
        Err(FormatError::BufferTooSmall { array: "col_idx", .. })
    ));
    assert!(col.iter().all(|&c| c == 7) && tp.iter().all(|&t| t == 9) && td.iter().all(|&t| t == 9));

    let b = build(&a, &layout);
    let c5 = b.view(&a, &layout);
    let x = vec![1.0; 10];
    let mut y = vec![3.0; 4];
    assert!(matches!(
        c5.spmv(Exec::new(), 1.0, &x[..9], 0.0, &mut y),
        Err(DimError::Length { operand: "x", .. })
    ));
    assert!(matches!(
        spmv_tiles(&c5, Isa::Portable, 0..c5.tiles() + 2, 1.0, &x, 0.0, &mut y),
        Err(DimError::OutOfRange { operand: "tiles", .. })
    ));
    assert_eq!(y, vec![3.0; 4]);
    let missing = [Isa::Avx2, Isa::Avx512, Isa::Neon].into_iter().find(|i| !i.is_available());
    if let Some(isa) = missing {
        assert!(matches!(
            c5.spmv(Exec::from(isa), 1.0, &x, 0.0, &mut y),
            Err(DimError::IsaUnavailable { .. })
        ));
        assert_eq!(y, vec![3.0; 4]);
    }
}

/// A layout made for one `Isa` runs on every other (the portable kernel takes over where
/// `omega` differs).
#[test]
fn csr5_any_layout_runs_on_any_isa() {
    let lens: Vec<usize> = (0..500).map(|r| (r * 13) % 9).collect();
    let raw = from_lens::<f32, u32>(64, &lens);
    let a = raw.owned();
    let a = a.view();
    let x = vector::<f32>(64, 3);
    let (want, bound) = reference_spmv(a.nrows(), a.iter(), 1.0, &x, 0.0, &[]);
    for made in Isa::available() {
        let owned = Csr5Owned::from_csr(Exec::from(made), &a).unwrap();
        for run in Isa::available() {
            let mut y = vec![f32::NAN; a.nrows()];
            owned.view().spmv(Exec::from(run), 1.0, &x, 0.0, &mut y).unwrap();
            assert_close(&y, &want, &bound, 20.0).unwrap();
        }
    }
}

/// `u16` CSR5 at its limits: `tile_ptr` keeps its top bit for the empty-row flag, so
/// 32 767 rows convert (with 65 534 columns and 65 535 entries, the most `u16` holds)
/// and multiply like CSR on every `Isa`, and 32 768 rows are an error from every
/// constructor and from the forced plan, while the rule's plan falls back to CSR.
#[test]
fn csr5_u16_holds_32767_rows_and_refuses_32768() {
    let max_rows = 32_767;
    // Two entries a row, some rows empty, and row 3 long enough for 65 535 in all.
    let mut lens: Vec<usize> = (0..max_rows).map(|r| if r % 97 == 5 { 0 } else { 2 }).collect();
    lens[3] += 65_535 - lens.iter().sum::<usize>();
    let ncols = 65_534;
    let mut raw = from_lens::<f64, u16>(ncols, &lens);
    // The last column is the largest that `u16` allows.
    raw.col_idx[0] = u16::try_from(ncols - 1).unwrap();
    assert_eq!((raw.nrows, raw.col_idx.len()), (max_rows, 65_535));
    let a = raw.owned();
    let a = a.view();
    let x = vector::<f64>(ncols, 5);
    let (want, bound) = reference_spmv(a.nrows(), a.iter(), 1.0, &x, 0.0, &[]);
    for isa in Isa::available() {
        let c5 = Csr5Owned::from_csr(Exec::from(isa), &a).unwrap();
        assert!(c5.view().tiles() > 0);
        let mut y = vec![f64::NAN; a.nrows()];
        c5.view().spmv(Exec::from(isa), 1.0, &x, 0.0, &mut y).unwrap();
        assert_close(&y, &want, &bound, 8.0).unwrap();
        let (mut c, mut v) = (vec![0u16; a.nnz()], vec![0.0; a.nnz()]);
        c5.view().to_csr(&mut c, &mut v).unwrap();
        assert_eq!(&c[..], a.col_idx());
    }
    check_roundtrip(&raw).unwrap();

    // One row more needs the flag bit.
    let lens = vec![1usize; max_rows + 1];
    let raw = from_lens::<f64, u16>(16, &lens);
    let a = raw.owned();
    let a = a.view();
    let too_many =
        |e: &FormatError| matches!(e, FormatError::TooLarge { what: "nrows", value: 32_768, max: 32_767 });
    for isa in Isa::available() {
        assert!(Csr5Layout::new(&a, isa).is_err_and(|e| too_many(&e)));
        assert!(Csr5Owned::from_csr(Exec::from(isa), &a).is_err_and(|e| too_many(&e)));
        let owned = Csr5Owned::from_csr_owned(Exec::from(isa), CsrOwned::from_csr(&a).unwrap());
        assert!(owned.is_err_and(|(e, back)| too_many(&e) && back.view().col_idx() == a.col_idx()));
        let forced = SpmvPlan::with_config(Exec::from(isa), &a, SpmvConfig::new().choice(SpmvChoice::Csr5));
        assert!(matches!(forced, Err(DimError::Overflow { what: "nrows", .. })));
        let plan = SpmvPlan::new(Exec::from(isa), &a).unwrap();
        assert!(matches!(plan.choice(), SpmvChoice::Csr(_)));
        let x = vector::<f64>(16, 1);
        let mut y = vec![0.0; a.nrows()];
        plan.spmv(Exec::new(), 1.0, &x, 0.0, &mut y).unwrap();
        let (want, bound) = reference_spmv(a.nrows(), a.iter(), 1.0, &x, 0.0, &[]);
        assert_close(&y, &want, &bound, 4.0).unwrap();
    }
    assert!(Csr5Layout::with_params(&a, 4, 4).is_err_and(|e| too_many(&e)));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::common::cases(64)))]

    #[test]
    fn csr5_roundtrip_preserves_entries_i32(raw in csr::<f64, i32>(40, 9, false)) {
        check_roundtrip(&raw)?;
    }

    #[test]
    fn csr5_roundtrip_preserves_entries_i64_f32(raw in csr::<f32, i64>(40, 9, false)) {
        check_roundtrip(&raw)?;
    }

    #[test]
    fn csr5_spmv_matches_reference_f64_i32(raw in csr::<f64, i32>(48, 12, false), (al, be) in scalars(), s in any::<u64>()) {
        check_spmv(&raw, al, be, s)?;
    }

    #[test]
    fn csr5_spmv_matches_reference_f32_i32(raw in csr::<f32, i32>(48, 12, false), (al, be) in scalars(), s in any::<u64>()) {
        check_spmv(&raw, al as f32, be as f32, s)?;
    }

    #[test]
    fn csr5_spmv_matches_reference_f64_i64(raw in csr::<f64, i64>(48, 12, false), (al, be) in scalars(), s in any::<u64>()) {
        check_spmv(&raw, al, be, s)?;
    }

    #[test]
    fn csr5_spmv_matches_reference_f32_i64(raw in csr::<f32, i64>(48, 12, false), (al, be) in scalars(), s in any::<u64>()) {
        check_spmv(&raw, al as f32, be as f32, s)?;
    }
}

/// The signed types flag a tile with empty rows by its sign, the thesis's negative
/// `tile_ptr`, with the bits of the unsigned flag: the `i32` conversion writes the
/// `u32` arrays' bits, and some tiles are flagged.
#[test]
fn csr5_i32_tile_ptr_is_negative_where_u32_has_its_top_bit() {
    let lens: Vec<usize> = (0..300).map(|r| [0, 1, 3, 0, 7, 0, 0, 2][r % 8]).collect();
    let a = from_lens::<f64, u32>(37, &lens);
    let b = RawCsr::<f64, i32> {
        nrows: a.nrows,
        ncols: a.ncols,
        row_ptr: a.row_ptr.iter().map(|&p| p as i32).collect(),
        col_idx: a.col_idx.iter().map(|&c| c as i32).collect(),
        vals: a.vals.clone(),
    };
    let (a, b) = (a.owned(), b.owned());
    let (a, b) = (a.view(), b.view());
    let layout = Csr5Layout::with_params(&a, 4, 4).unwrap();
    let (ua, sb) = (build(&a, &layout), build(&b, &layout));
    let (va, vb) = (ua.view(&a, &layout), sb.view(&b, &layout));
    let flagged = vb.tile_ptr().iter().filter(|&&p| p < 0).count();
    assert!(flagged > 0);
    assert_eq!(va.tile_ptr().iter().filter(|&&p| p >> 31 == 1).count(), flagged);
    let bits: Vec<u32> = vb.tile_ptr().iter().map(|&p| p as u32).collect();
    assert_eq!(va.tile_ptr(), &bits[..]);
    let bits: Vec<u32> = vb.empty_offset().iter().map(|&p| p as u32).collect();
    assert_eq!(va.empty_offset(), &bits[..]);
}
