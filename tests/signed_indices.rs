//! `i32` and `i64` indices (the index types of C, MKL and SciPy): every constructor
//! rejects a negative index in any of its index arrays with
//! `FormatError::NegativeIndex` naming the array, the position and the value, and never
//! panics on arbitrary signed arrays; a matrix they accept multiplies as the dense
//! reference on every `Isa`.

mod common;

use common::{RawCsr, csr, reference_spmv, vector};
use proptest::prelude::*;
use spblas::formats::csr5::Csr5Parts;
use spblas::level1::SpVec;
use spblas::level3::{SpgemmConfig, spgemm_numeric, spgemm_symbolic, spgemm_workspace_len};
use spblas::{
    Coo, Csr, Csr5, Csr5Owned, CsrOwned, DimError, Ell, EllOwned, Exec, FormatError, Index, Isa, Jds,
    JdsOwned, Scalar, Sell, SellOwned, SpMv,
};

/// The negative values a corrupted entry takes: -1, the type's minimum and others.
fn negative<I: Index>(pick: u64) -> I {
    let v: i64 = match pick % 4 {
        0 => -1,
        1 => i64::MIN,
        2 => -2 - (pick >> 2) as i64 % 1000,
        _ => -(1 << 31),
    };
    // `I` is `i32` or `i64`: `v` in the type's width (`i64::MIN` as `i32` is 0, so that
    // case takes `i32::MIN` instead).
    if I::BYTES == 4 {
        let w = v as i32;
        bytemuck::pod_read_unaligned(&(if w >= 0 { i32::MIN } else { w }).to_ne_bytes())
    } else {
        bytemuck::pod_read_unaligned(&v.to_ne_bytes())
    }
}

/// `err` is `NegativeIndex` for `value` at `position` of `array`.
fn names<I: Index>(
    err: Result<impl core::fmt::Debug, FormatError>,
    array: &str,
    position: usize,
    value: I,
) -> Result<(), TestCaseError> {
    let want = FormatError::NegativeIndex { array: "", position, value: value.negative().unwrap() };
    match err {
        Err(FormatError::NegativeIndex { array: a, position: p, value: v }) => {
            prop_assert_eq!((a, p, v), (array, position, value.negative().unwrap()));
            // The sentence names the value.
            let e = FormatError::NegativeIndex { array: a, position: p, value: v };
            prop_assert!(e.to_string().contains(&v.to_string()));
            Ok(())
        }
        other => Err(TestCaseError::fail(format!("{array}[{position}] = {value}: {other:?}, not {want:?}"))),
    }
}

/// `v` with entry `at % len` set to a negative value; `None` when `v` is empty.
fn corrupt<I: Index>(v: &[I], at: usize, pick: u64) -> Option<(Vec<I>, usize, I)> {
    if v.is_empty() {
        return None;
    }
    let (mut w, p, n) = (v.to_vec(), at % v.len(), negative::<I>(pick));
    w[p] = n;
    Some((w, p, n))
}

/// Each index array of each format, one entry made negative: the constructor names it.
fn every_constructor_names_a_negative_index<I: Index>(
    raw: &RawCsr<f64, I>,
    at: usize,
    pick: u64,
) -> Result<(), TestCaseError> {
    let (m, n) = (raw.nrows, raw.ncols);
    let a = raw.owned();
    let a = a.view();
    // CSR: row_ptr, col_idx; also through the owned constructor.
    if let Some((rp, p, v)) = corrupt(&raw.row_ptr, at, pick) {
        names(Csr::new(m, n, &rp, &raw.col_idx, &raw.vals), "row_ptr", p, v)?;
        names(CsrOwned::from_parts(m, n, rp, raw.col_idx.clone(), raw.vals.clone()), "row_ptr", p, v)?;
    }
    if let Some((ci, p, v)) = corrupt(&raw.col_idx, at, pick) {
        names(Csr::new(m, n, &raw.row_ptr, &ci, &raw.vals), "col_idx", p, v)?;
        // In place into CSR5: refused before anything moves.
        let layout = spblas::Csr5Layout::with_params(&a, 2, 2).unwrap();
        let mut aux = (vec![I::ZERO; layout.tile_ptr_len()], vec![0u32; layout.tile_desc_len()]);
        let mut aux2 = (vec![I::ZERO; layout.tile_ptr_len()], vec![I::ZERO; layout.empty_offset_len()]);
        let (mut ci2, mut vals) = (ci.clone(), raw.vals.clone());
        let r = Csr5::from_csr_in_place(
            m,
            n,
            &raw.row_ptr,
            &mut ci2,
            &mut vals,
            &layout,
            spblas::formats::csr5::Csr5Aux {
                tile_ptr: &mut aux.0,
                tile_desc: &mut aux.1,
                empty_offset_ptr: &mut aux2.0,
                empty_offset: &mut aux2.1,
            },
        );
        names(r.map(|_| ()), "col_idx", p, v)?;
        prop_assert_eq!(&ci2, &ci);
    }
    // COO: row_idx, col_idx.
    let coo = spblas::CooOwned::from_csr(&a).unwrap();
    let coo = coo.view();
    if let Some((ri, p, v)) = corrupt(coo.row_idx(), at, pick) {
        names(Coo::new(m, n, &ri, coo.col_idx(), coo.vals()), "row_idx", p, v)?;
    }
    if let Some((ci, p, v)) = corrupt(coo.col_idx(), at, pick) {
        names(Coo::new(m, n, coo.row_idx(), &ci, coo.vals()), "col_idx", p, v)?;
    }
    // ELL and SELL: a real slot (one after padding would be a `Padding` error first).
    let ell = EllOwned::from_csr(&a).unwrap();
    let ell = ell.view();
    let reals: Vec<usize> = (0..ell.col_idx().len()).filter(|&p| ell.col_idx()[p] != I::MAX).collect();
    if !reals.is_empty() {
        let p = reals[at % reals.len()];
        let (mut ci, v) = (ell.col_idx().to_vec(), negative::<I>(pick));
        ci[p] = v;
        names(Ell::new(m, n, ell.width(), &ci, ell.vals()), "col_idx", p, v)?;
    }
    // (HYB is built from validated ELL and COO views: their constructors are its check.)
    let sell = SellOwned::from_csr_slice_height(&a, 4).unwrap();
    let sell = sell.view();
    if let Some((sp, p, v)) = corrupt(sell.slice_ptr(), at, pick) {
        names(Sell::new(m, n, 4, &sp, sell.col_idx(), sell.vals()), "slice_ptr", p, v)?;
    }
    let reals: Vec<usize> = (0..sell.col_idx().len()).filter(|&p| sell.col_idx()[p] != I::MAX).collect();
    if !reals.is_empty() {
        let p = reals[at % reals.len()];
        let (mut ci, v) = (sell.col_idx().to_vec(), negative::<I>(pick));
        ci[p] = v;
        names(Sell::new(m, n, 4, sell.slice_ptr(), &ci, sell.vals()), "col_idx", p, v)?;
    }
    // JDS: perm, jd_ptr, col_idx.
    let jds = JdsOwned::from_csr(&a).unwrap();
    let j = jds.view();
    if let Some((pm, p, v)) = corrupt(j.perm(), at, pick) {
        names(Jds::new(m, n, &pm, j.jd_ptr(), j.col_idx(), j.vals()), "perm", p, v)?;
    }
    if let Some((jp, p, v)) = corrupt(j.jd_ptr(), at, pick) {
        names(Jds::new(m, n, j.perm(), &jp, j.col_idx(), j.vals()), "jd_ptr", p, v)?;
    }
    if let Some((ci, p, v)) = corrupt(j.col_idx(), at, pick) {
        names(Jds::new(m, n, j.perm(), j.jd_ptr(), &ci, j.vals()), "col_idx", p, v)?;
    }
    // CSR5: row_ptr and col_idx (storage position) are named; a negative auxiliary
    // entry differs from the conversion (the flag of `tile_ptr` is its sign: flipping
    // the sign of an entry is a mismatch too).
    let c5 = Csr5Owned::from_csr_layout(&a, &spblas::Csr5Layout::with_params(&a, 2, 2).unwrap()).unwrap();
    let c = c5.view();
    let parts = Csr5Parts {
        tile_ptr: c.tile_ptr(),
        tile_desc: c.tile_desc(),
        empty_offset_ptr: c.empty_offset_ptr(),
        empty_offset: c.empty_offset(),
    };
    let new5 = |rp: &[I], ci: &[I], parts: Csr5Parts<'_, I>| {
        Csr5::new(m, n, (2, 2), rp, ci, c.vals(), parts).map(|_| ())
    };
    prop_assert!(new5(c.row_ptr(), c.col_idx(), parts).is_ok());
    if let Some((rp, p, v)) = corrupt(c.row_ptr(), at, pick) {
        names(new5(&rp, c.col_idx(), parts), "row_ptr", p, v)?;
    }
    if let Some((ci, p, v)) = corrupt(c.col_idx(), at, pick) {
        names(new5(c.row_ptr(), &ci, parts), "col_idx", p, v)?;
    }
    for (k, array) in [(0, "tile_ptr"), (1, "empty_offset_ptr"), (2, "empty_offset")] {
        let src = [c.tile_ptr(), c.empty_offset_ptr(), c.empty_offset()][k];
        if let Some((bad, _, v)) = corrupt(src, at, pick) {
            if src[at % src.len()] == v {
                continue;
            }
            let mut p = parts;
            match k {
                0 => p.tile_ptr = &bad,
                1 => p.empty_offset_ptr = &bad,
                _ => p.empty_offset = &bad,
            }
            match new5(c.row_ptr(), c.col_idx(), p) {
                Err(FormatError::Csr5Mismatch { .. } | FormatError::Length { .. }) => {}
                other => return Err(TestCaseError::fail(format!("{array}: {other:?}"))),
            }
        }
    }
    // A sparse vector: row 0 of a one-row matrix.
    let mut ix: Vec<I> = a.row_range(0).map(|r| raw.col_idx[r].to_vec()).unwrap_or_default();
    ix.sort();
    ix.dedup();
    let vals = vec![1.0f64; ix.len()];
    prop_assert!(SpVec::new(n, &ix, &vals).is_ok());
    if let Some((ix, p, v)) = corrupt(&ix, at, pick) {
        names(SpVec::new(n, &ix, &vals), "indices", p, v)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::common::cases(64)))]

    #[test]
    fn every_constructor_names_a_negative_i32(raw in csr::<f64, i32>(20, 6, false), at: usize, pick: u64) {
        every_constructor_names_a_negative_index(&raw, at, pick)?;
    }

    #[test]
    fn every_constructor_names_a_negative_i64(raw in csr::<f64, i64>(20, 6, false), at: usize, pick: u64) {
        every_constructor_names_a_negative_index(&raw, at, pick)?;
    }

    /// Arbitrary signed arrays (negative values among them): `Csr::new` and `Coo::new`
    /// return, and what they accept multiplies as the dense reference on every `Isa`.
    #[test]
    fn arbitrary_signed_arrays_are_refused_or_multiply_right(
        nrows in 0usize..6,
        ncols in 0usize..6,
        row_ptr in proptest::collection::vec(-3i32..8, 0..8),
        col_idx in proptest::collection::vec(-3i32..7, 0..8),
        seed: u64,
    ) {
        let vals: Vec<f64> = (0..col_idx.len()).map(|k| k as f64 - 2.5).collect();
        if let Ok(a) = Csr::new(nrows, ncols, &row_ptr, &col_idx, &vals) {
            prop_assert!(row_ptr.iter().chain(&col_idx).all(|&v| v >= 0));
            check_every_isa(&a, seed)?;
        }
        let n = row_ptr.len().min(col_idx.len());
        if let Ok(c) = Coo::new(nrows, ncols, &row_ptr[..n], &col_idx[..n], &vals[..n]) {
            prop_assert!(row_ptr[..n].iter().chain(&col_idx[..n]).all(|&v| v >= 0));
            let x = vector::<f64>(ncols, seed);
            let entries = (0..n).map(|k| (row_ptr[k] as usize, col_idx[k] as usize, vals[k]));
            let (want, _) = reference_spmv(nrows, entries, 1.0, &x, 0.0, &vec![0.0; nrows]);
            for isa in Isa::available() {
                let mut y = vec![f64::NAN; nrows];
                c.spmv(Exec::from(isa), 1.0, &x, 0.0, &mut y).unwrap();
                prop_assert_eq!(&y, &want);
            }
        }
    }
}

/// SpMV on every `Isa` equals the dense reference (small integers and halves: exact).
fn check_every_isa<T: Scalar, I: Index>(a: &Csr<'_, T, I>, seed: u64) -> Result<(), TestCaseError> {
    let x = vector::<T>(a.ncols(), seed);
    let (want, _) = reference_spmv(a.nrows(), a.iter(), T::ONE, &x, T::ZERO, &vec![T::ZERO; a.nrows()]);
    for isa in Isa::available() {
        let mut y = vec![T::from_f64(f64::NAN); a.nrows()];
        a.spmv(Exec::from(isa), T::ONE, &x, T::ZERO, &mut y).unwrap();
        for (g, w) in y.iter().zip(&want) {
            prop_assert!(
                (g.to_f64() - w.to_f64()).abs() <= 1e-9 * (1.0 + w.to_f64().abs()),
                "{} on {}",
                I::NAME,
                isa
            );
        }
    }
    Ok(())
}

/// SpGEMM's numeric phase takes `C`'s row pointers from the caller: a negative one is
/// refused (a decrease from the 0 it must start at), and nothing is written.
#[test]
fn spgemm_numeric_refuses_negative_row_pointers() {
    let (rp, ci, v) = (vec![0i32, 2, 3], vec![0i32, 1, 1], vec![1.0f64, 2.0, 3.0]);
    let a = Csr::new(2, 2, &rp, &ci, &v).unwrap();
    let (exec, cfg) = (Exec::new(), SpgemmConfig::new());
    let ws = spgemm_workspace_len(exec, cfg, &a, &a).unwrap();
    let (mut wi, mut wv) = (vec![0i32; ws.idx], vec![0.0f64; ws.vals]);
    let mut c_rp = vec![0i32; 3];
    let nnz = spgemm_symbolic(exec, cfg, &a, &a, &mut c_rp, &mut wi).unwrap();
    assert_eq!(nnz, 3);
    for (p, bad) in [(0, -1), (1, -2), (2, i32::MIN)] {
        let mut rp = c_rp.clone();
        rp[p] = bad;
        let (mut c_ci, mut c_v) = (vec![7i32; 4], vec![7.0f64; 4]);
        let r = spgemm_numeric(exec, cfg, &a, &a, &rp, &mut c_ci, &mut c_v, (&mut wi, &mut wv));
        assert!(matches!(r, Err(DimError::OutOfRange { .. } | DimError::Unsorted { .. })), "{p}: {r:?}");
        assert!(c_ci.iter().all(|&c| c == 7) && c_v.iter().all(|&v| v == 7.0));
    }
}

/// The trait's contract for the signed types: negative values exceed every bound and
/// are not `usize`s; the CSR5 flag is the sign, with the unsigned flag's bits.
#[test]
fn signed_index_contract() {
    assert_eq!(i32::MAX_USIZE, i32::MAX as usize);
    assert_eq!(<i32 as Index>::MAX_UNFLAGGED, <u32 as Index>::MAX_UNFLAGGED);
    assert_eq!(<i64 as Index>::MAX_UNFLAGGED, <u64 as Index>::MAX_UNFLAGGED);
    for v in [0i32, 1, 12345, i32::MAX] {
        let u = v as u32;
        assert_eq!(v.flagged() as u32, u.flagged());
        assert!(v.flagged() < 0 && v.flagged().is_flagged() && !v.is_flagged());
        assert_eq!(v.flagged().unflagged(), v);
        assert_eq!(v.to_usize(), u.to_usize());
        assert_eq!(v.try_to_usize(), Some(v as usize));
        assert_eq!(v.negative(), None);
    }
    for v in [-1i32, -7, i32::MIN] {
        assert_eq!(v.try_to_usize(), None);
        assert!(v.exceeds(i32::MAX) && v.exceeds(0));
        assert_eq!(v.negative(), Some(v as i64));
    }
    for v in [-1i64, i64::MIN] {
        assert_eq!(v.try_to_usize(), None);
        assert!(v.exceeds(i64::MAX));
        assert_eq!(v.negative(), Some(v));
    }
    // `usize::MAX` passes `i64::MAX` on 64-bit targets only (wasm32's fits).
    assert_eq!(i64::from_usize(usize::MAX), i64::try_from(usize::MAX).ok());
    assert_eq!(i32::from_usize(1 << 31), None);
    assert_eq!(i32::from_usize((1 << 31) - 1), Some(i32::MAX));
    assert!(!5i64.exceeds(5) && 6i64.exceeds(5));
}
