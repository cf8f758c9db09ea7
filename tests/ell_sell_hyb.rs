//! ELL, SELL and HYB: validation, CSR round trips, the HYB split rule and reference SpMV
//! against a dense reference on every available ISA.

mod common;

use common::{RawCsr, check_spmv_against, csr, scalars};
use proptest::prelude::*;
use spblas::Exec;
use spblas::formats::pad;
use spblas::{
    Coo, Csr, CsrOwned, DimError, Ell, EllLayout, EllOwned, FormatError, Hyb, HybLayout, HybOwned, Index,
    Isa, Scalar, Sell, SellLayout, SellOwned, SpMv,
};

const SLICE_HEIGHTS: [usize; 6] = [1, 2, 3, 4, 8, 32];

fn bits<T: Scalar>(v: &[T]) -> Vec<u64> {
    v.iter().map(|x| x.to_f64().to_bits()).collect()
}

/// `back` has exactly the arrays of `a`, values bit for bit.
fn assert_same_csr<T: Scalar, I: Index>(
    back: &Csr<'_, T, I>,
    a: &Csr<'_, T, I>,
) -> Result<(), TestCaseError> {
    prop_assert_eq!(back.shape(), a.shape());
    prop_assert_eq!(back.row_ptr(), a.row_ptr());
    prop_assert_eq!(back.col_idx(), a.col_idx());
    prop_assert_eq!(bits(back.vals()), bits(a.vals()));
    prop_assert_eq!(back.row_order(), a.row_order());
    Ok(())
}

// ---------------------------------------------------------------- ELL

fn check_ell<T: Scalar, I: Index>(
    raw: &RawCsr<T, I>,
    alpha: T,
    beta: T,
    seed: u64,
) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    let max = a.max_row_len();
    for width in [max, max + 2] {
        let layout = EllLayout::with_width(&a, width).unwrap();
        prop_assert_eq!(layout.width(), width);
        prop_assert_eq!(layout.len(), a.nrows() * width);
        // Oversized buffers: only the prefix is written.
        let (mut c, mut v) = (vec![I::ZERO; layout.len() + 3], vec![T::ONE; layout.len() + 3]);
        let ell = Ell::from_csr(&a, &layout, &mut c, &mut v).unwrap();
        prop_assert_eq!(ell.nnz(), a.nnz());
        prop_assert_eq!(ell.stored_len(), layout.len());
        let again = Ell::new(ell.nrows(), ell.ncols(), ell.width(), ell.col_idx(), ell.vals()).unwrap();
        prop_assert_eq!(again.nnz(), a.nnz());
        for i in 0..a.nrows() {
            prop_assert_eq!(ell.row_len(i), a.row_range(i).map(|r| r.len()));
        }
        prop_assert_eq!(ell.row_len(a.nrows()), None);
        let owned = EllOwned::from_csr_width(&a, width).unwrap();
        prop_assert_eq!(owned.view().col_idx(), ell.col_idx());
        prop_assert_eq!(bits(owned.view().vals()), bits(ell.vals()));
        let (mut rp, mut c2, mut v2) =
            (vec![I::ZERO; a.nrows() + 1], vec![I::ZERO; a.nnz()], vec![T::ZERO; a.nnz()]);
        let back = ell.to_csr(&mut rp, &mut c2, &mut v2).unwrap();
        assert_same_csr(&back, &a)?;
        check_spmv_against(&ell, &a, alpha, beta, seed)?;
    }
    prop_assert_eq!(EllLayout::new(&a).unwrap().width(), max);
    prop_assert_eq!(EllOwned::from_csr(&a).unwrap().width(), max);
    Ok(())
}

// ---------------------------------------------------------------- SELL

fn check_sell<T: Scalar, I: Index>(
    raw: &RawCsr<T, I>,
    alpha: T,
    beta: T,
    seed: u64,
) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    for c in SLICE_HEIGHTS {
        let layout = SellLayout::new(&a, c).unwrap();
        let nslices = a.nrows().div_ceil(c);
        prop_assert_eq!(layout.nslices(), nslices);
        prop_assert_eq!(layout.slice_ptr_len(), nslices + 1);
        // Expected length: each slice is as wide as its longest row.
        let want_len: usize = (0..nslices)
            .map(|s| {
                let rows = s * c..(s * c + c).min(a.nrows());
                rows.len() * rows.map(|i| a.row_range(i).unwrap().len()).max().unwrap_or(0)
            })
            .sum();
        prop_assert_eq!(layout.len(), want_len);
        let mut sp = vec![I::ZERO; layout.slice_ptr_len() + 1];
        let (mut ci, mut v) = (vec![I::ZERO; layout.len() + 2], vec![T::ONE; layout.len() + 2]);
        let sell = Sell::from_csr(&a, &layout, &mut sp, &mut ci, &mut v).unwrap();
        prop_assert_eq!(sell.nnz(), a.nnz());
        prop_assert_eq!(sell.nslices(), nslices);
        prop_assert_eq!(sell.slice_height(), c);
        let again =
            Sell::new(sell.nrows(), sell.ncols(), c, sell.slice_ptr(), sell.col_idx(), sell.vals()).unwrap();
        prop_assert_eq!(again.nnz(), a.nnz());
        for s in 0..nslices {
            let (r0, h, start, w) = sell.slice(s).unwrap();
            prop_assert_eq!(r0, s * c);
            prop_assert_eq!(h, c.min(a.nrows() - s * c));
            prop_assert_eq!(start, sell.slice_ptr()[s].to_usize());
            prop_assert_eq!(w * h, sell.slice_ptr()[s + 1].to_usize() - start);
        }
        prop_assert_eq!(sell.slice(nslices), None);
        let owned = SellOwned::from_csr_slice_height(&a, c).unwrap();
        prop_assert_eq!(owned.view().slice_ptr(), sell.slice_ptr());
        prop_assert_eq!(owned.view().col_idx(), sell.col_idx());
        prop_assert_eq!(bits(owned.view().vals()), bits(sell.vals()));
        let (mut rp, mut c2, mut v2) =
            (vec![I::ZERO; a.nrows() + 1], vec![I::ZERO; a.nnz()], vec![T::ZERO; a.nnz()]);
        let back = sell.to_csr(&mut rp, &mut c2, &mut v2).unwrap();
        assert_same_csr(&back, &a)?;
        check_spmv_against(&sell, &a, alpha, beta, seed)?;
    }
    let owned = SellOwned::from_csr(&a).unwrap();
    prop_assert_eq!(owned.slice_height(), spblas::formats::sell::DEFAULT_SLICE_HEIGHT);
    prop_assert_eq!(owned.nnz(), a.nnz());
    Ok(())
}

// ---------------------------------------------------------------- HYB

/// The split rule by brute force: the largest k in 0..=max with 3 * #{len >= k} >= nrows.
fn rule_by_scan<T: Scalar, I: Index>(a: &Csr<'_, T, I>) -> usize {
    let lens: Vec<usize> = (0..a.nrows()).map(|i| a.row_range(i).unwrap().len()).collect();
    (0..=a.max_row_len())
        .filter(|&k| 3 * lens.iter().filter(|&&l| l >= k).count() >= a.nrows())
        .max()
        .unwrap()
}

fn check_hyb<T: Scalar, I: Index>(
    raw: &RawCsr<T, I>,
    alpha: T,
    beta: T,
    seed: u64,
) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    let rule = HybLayout::new(&a).unwrap();
    prop_assert_eq!(rule.width(), rule_by_scan(&a));
    let max = a.max_row_len();
    for k in [0, 1, rule.width(), max, max + 3] {
        let layout = HybLayout::with_width(&a, k).unwrap();
        prop_assert_eq!(layout.width(), k);
        prop_assert_eq!(layout.ell_len(), a.nrows() * k);
        let spill: usize = (0..a.nrows()).map(|i| a.row_range(i).unwrap().len().saturating_sub(k)).sum();
        prop_assert_eq!(layout.coo_nnz(), spill);
        let (el, cn) = (layout.ell_len(), layout.coo_nnz());
        let (mut ec, mut ev) = (vec![I::ZERO; el], vec![T::ZERO; el]);
        let (mut cr, mut cc, mut cv) = (vec![I::ZERO; cn + 1], vec![I::ZERO; cn], vec![T::ZERO; cn + 4]);
        let hyb = Hyb::from_csr(&a, &layout, &mut ec, &mut ev, &mut cr, &mut cc, &mut cv).unwrap();
        prop_assert_eq!(hyb.nnz(), a.nnz());
        prop_assert_eq!(hyb.width(), k);
        prop_assert_eq!(hyb.coo().nnz(), spill);
        prop_assert_eq!(hyb.ell().nnz(), a.nnz() - spill);
        prop_assert!(hyb.coo().is_sorted() || a.row_order() == spblas::RowOrder::Unsorted);
        // The parts re-validate and re-join.
        let e = hyb.ell();
        let e2 = Ell::new(e.nrows(), e.ncols(), e.width(), e.col_idx(), e.vals()).unwrap();
        let c = hyb.coo();
        let c2 = Coo::new(c.nrows(), c.ncols(), c.row_idx(), c.col_idx(), c.vals()).unwrap();
        prop_assert_eq!(Hyb::new(e2, c2).unwrap().nnz(), a.nnz());
        let owned = HybOwned::from_csr_width(&a, k).unwrap();
        prop_assert_eq!(owned.view().ell().col_idx(), hyb.ell().col_idx());
        prop_assert_eq!(owned.view().coo().row_idx(), hyb.coo().row_idx());
        prop_assert_eq!(owned.view().coo().col_idx(), hyb.coo().col_idx());
        prop_assert_eq!(bits(owned.view().coo().vals()), bits(hyb.coo().vals()));
        prop_assert_eq!(owned.nnz(), a.nnz());
        let mut entries: Vec<(usize, usize, u64)> =
            hyb.iter().map(|(i, j, v)| (i, j, v.to_f64().to_bits())).collect();
        let mut want: Vec<(usize, usize, u64)> =
            a.iter().map(|(i, j, v)| (i, j, v.to_f64().to_bits())).collect();
        entries.sort();
        want.sort();
        prop_assert_eq!(entries, want);
        let (mut rp, mut c2, mut v2) =
            (vec![I::ZERO; a.nrows() + 1], vec![I::ZERO; a.nnz()], vec![T::ZERO; a.nnz()]);
        let back = hyb.to_csr(&mut rp, &mut c2, &mut v2).unwrap();
        assert_same_csr(&back, &a)?;
        check_spmv_against(&hyb, &a, alpha, beta, seed)?;
    }
    prop_assert_eq!(HybOwned::from_csr(&a).unwrap().width(), rule.width());
    Ok(())
}

/// `i` as an index of type `I` (the tests keep every index in range).
fn ix<I: Index>(i: usize) -> I {
    I::from_usize(i).unwrap()
}

fn corrupted_ell<I: Index>(raw: &RawCsr<f64, I>, which: usize, pick: usize) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    let (m, n) = a.shape();
    let width = a.max_row_len() + 2;
    let mut c = vec![I::ZERO; m * width];
    let mut v = vec![0.0; m * width];
    Ell::from_csr(&a, &EllLayout::with_width(&a, width).unwrap(), &mut c, &mut v).unwrap();
    let pads: Vec<usize> = (0..c.len()).filter(|&p| c[p] == I::MAX).collect();
    let followed: Vec<usize> = pads.iter().copied().filter(|&p| p + m < c.len()).collect();
    let reals: Vec<usize> = (0..c.len()).filter(|&p| c[p] != I::MAX).collect();
    let mut w = width;
    let expected = match which {
        0 if !followed.is_empty() => {
            let p = followed[pick % followed.len()];
            c[p + m] = I::ZERO;
            FormatError::Padding { row: p % m, position: p }
        }
        1 if !pads.is_empty() => {
            let p = pads[pick % pads.len()];
            v[p] = if pick.is_multiple_of(2) { 1.0 } else { f64::NAN };
            FormatError::Padding { row: p % m, position: p }
        }
        2 if !reals.is_empty() => {
            let p = reals[pick % reals.len()];
            let col = n + pick % 3;
            c[p] = ix(col);
            FormatError::ColumnOutOfBounds { row: p % m, position: p, col, ncols: n }
        }
        3 => {
            c.push(I::ZERO);
            FormatError::Length { array: "col_idx", expected: m * width, got: m * width + 1 }
        }
        4 if !v.is_empty() => {
            v.pop();
            FormatError::Length { array: "vals", expected: m * width, got: m * width - 1 }
        }
        5 if m >= 2 => {
            w = usize::MAX / 2 + 1;
            FormatError::TooLarge { what: "nrows * width", value: usize::MAX, max: usize::MAX }
        }
        _ => return Ok(()),
    };
    let err = Ell::new(m, n, w, &c, &v).unwrap_err();
    prop_assert_eq!(err, expected);
    prop_assert!(!err.to_string().is_empty());
    prop_assert_eq!(EllOwned::from_parts(m, n, w, c, v).unwrap_err(), expected);
    Ok(())
}

fn corrupted_sell<I: Index>(
    raw: &RawCsr<f64, I>,
    ci: usize,
    which: usize,
    pick: usize,
) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    let (m, n) = a.shape();
    let ch = SLICE_HEIGHTS[ci];
    let layout = SellLayout::new(&a, ch).unwrap();
    let mut sp = vec![I::ZERO; layout.slice_ptr_len()];
    let mut c = vec![I::ZERO; layout.len()];
    let mut v = vec![0.0; layout.len()];
    Sell::from_csr(&a, &layout, &mut sp, &mut c, &mut v).unwrap();
    let ns = layout.nslices();
    // (slot, row, height of its slice, end of its slice)
    let slots: Vec<(usize, usize, usize, usize)> = (0..ns)
        .flat_map(|s| {
            let (start, end) = (sp[s].to_usize(), sp[s + 1].to_usize());
            let h = ch.min(m - s * ch);
            (start..end).map(move |p| (p, s * ch + (p - start) % h, h, end))
        })
        .collect();
    let pads: Vec<_> = slots.iter().copied().filter(|e| c[e.0] == I::MAX).collect();
    let followed: Vec<_> = pads.iter().copied().filter(|e| e.0 + e.2 < e.3).collect();
    let reals: Vec<_> = slots.iter().copied().filter(|e| c[e.0] != I::MAX).collect();
    let tall: Vec<usize> = (0..ns).filter(|&s| ch.min(m - s * ch) > 1).collect();
    let mut height = ch;
    let expected = match which {
        0 if !followed.is_empty() => {
            let (p, row, h, _) = followed[pick % followed.len()];
            c[p + h] = I::ZERO;
            FormatError::Padding { row, position: p }
        }
        1 if !pads.is_empty() => {
            let (p, row, _, _) = pads[pick % pads.len()];
            v[p] = -3.0;
            FormatError::Padding { row, position: p }
        }
        2 if !reals.is_empty() => {
            let (p, row, _, _) = reals[pick % reals.len()];
            let col = n + pick % 3;
            c[p] = ix(col);
            FormatError::ColumnOutOfBounds { row, position: p, col, ncols: n }
        }
        3 if !tall.is_empty() => {
            // One extra padding slot at the end of a slice of height > 1.
            let s = tall[pick % tall.len()];
            let end = sp[s + 1].to_usize();
            c.insert(end, I::MAX);
            v.insert(end, 0.0);
            for q in &mut sp[s + 1..] {
                *q = ix(q.to_usize() + 1);
            }
            let len = end + 1 - sp[s].to_usize();
            FormatError::SliceLength { slice: s, len, height: ch.min(m - s * ch) }
        }
        4 => {
            sp[0] = ix(1);
            FormatError::PtrStart { array: "slice_ptr", got: 1 }
        }
        5 if ns >= 2 => {
            let j = 1 + pick % (ns - 1);
            sp[j] = ix(sp[j + 1].to_usize() + 1);
            FormatError::PtrDecreasing { array: "slice_ptr", position: j }
        }
        6 if ns >= 1 => {
            sp[ns] = ix(sp[ns].to_usize() + 1);
            FormatError::PtrEnd { array: "slice_ptr", expected: c.len(), got: c.len() + 1 }
        }
        7 => {
            sp.push(sp[ns]);
            FormatError::Length { array: "slice_ptr", expected: ns + 1, got: ns + 2 }
        }
        8 => {
            v.push(0.0);
            FormatError::Length { array: "vals", expected: c.len(), got: c.len() + 1 }
        }
        9 => {
            height = 0;
            FormatError::Parameter { name: "slice_height", value: 0 }
        }
        _ => return Ok(()),
    };
    let err = Sell::new(m, n, height, &sp, &c, &v).unwrap_err();
    prop_assert_eq!(err, expected);
    prop_assert!(!err.to_string().is_empty());
    prop_assert_eq!(SellOwned::from_parts(m, n, height, sp, c, v).unwrap_err(), expected);
    Ok(())
}

fn foreign_layouts<I: Index>(raw: &RawCsr<f64, I>, other: &RawCsr<f64, I>) -> Result<(), TestCaseError> {
    let a = raw.owned();
    let a = a.view();
    let b = other.owned();
    let b = b.view();
    let lb = EllLayout::new(&b).unwrap();
    let (mut c, mut v) = (vec![I::ZERO; lb.len()], vec![0.0; lb.len()]);
    match Ell::from_csr(&a, &lb, &mut c, &mut v) {
        Ok(e) => prop_assert_eq!(e.nnz(), a.nnz()),
        Err(FormatError::Parameter { name: "width", .. } | FormatError::BufferTooSmall { .. }) => {}
        Err(e) => prop_assert!(false, "unexpected {:?}", e),
    }
    let sl = SellLayout::new(&b, 3).unwrap();
    let (mut sp, mut c, mut v) =
        (vec![I::ZERO; sl.slice_ptr_len()], vec![I::ZERO; sl.len()], vec![0.0; sl.len()]);
    match Sell::from_csr(&a, &sl, &mut sp, &mut c, &mut v) {
        Ok(s) => prop_assert_eq!(s.nnz(), a.nnz()),
        Err(FormatError::BufferTooSmall { .. }) => {}
        Err(e) => prop_assert!(false, "unexpected {:?}", e),
    }
    let hl = HybLayout::new(&b).unwrap();
    let (el, cn) = (hl.ell_len(), hl.coo_nnz());
    let (mut ec, mut ev, mut cr, mut cc, mut cv) =
        (vec![I::ZERO; el], vec![0.0; el], vec![I::ZERO; cn], vec![I::ZERO; cn], vec![0.0; cn]);
    match Hyb::from_csr(&a, &hl, &mut ec, &mut ev, &mut cr, &mut cc, &mut cv) {
        Ok(h) => prop_assert_eq!(h.nnz(), a.nnz()),
        Err(FormatError::BufferTooSmall { .. }) => {}
        Err(e) => prop_assert!(false, "unexpected {:?}", e),
    }
    Ok(())
}

proptest! {
    #[test]
    fn ell_roundtrip_and_spmv_f64_u32(raw in csr::<f64, u32>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_ell(&raw, a, b, seed)?;
    }
    #[test]
    fn ell_roundtrip_and_spmv_f32_u64(raw in csr::<f32, u64>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_ell(&raw, a as f32, b as f32, seed)?;
    }
    #[test]
    fn ell_roundtrip_and_spmv_f64_usize_canonical(raw in csr::<f64, usize>(30, 8, true), (a, b) in scalars(), seed: u64) {
        check_ell(&raw, a, b, seed)?;
    }

    #[test]
    fn sell_roundtrip_and_spmv_f64_u32(raw in csr::<f64, u32>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_sell(&raw, a, b, seed)?;
    }
    #[test]
    fn sell_roundtrip_and_spmv_f32_u64(raw in csr::<f32, u64>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_sell(&raw, a as f32, b as f32, seed)?;
    }
    #[test]
    fn sell_roundtrip_and_spmv_f64_usize_canonical(raw in csr::<f64, usize>(30, 8, true), (a, b) in scalars(), seed: u64) {
        check_sell(&raw, a, b, seed)?;
    }

    #[test]
    fn hyb_roundtrip_and_spmv_f64_u32(raw in csr::<f64, u32>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_hyb(&raw, a, b, seed)?;
    }
    #[test]
    fn hyb_roundtrip_and_spmv_f32_u64(raw in csr::<f32, u64>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_hyb(&raw, a as f32, b as f32, seed)?;
    }
    #[test]
    fn hyb_roundtrip_and_spmv_f64_usize_canonical(raw in csr::<f64, usize>(30, 8, true), (a, b) in scalars(), seed: u64) {
        check_hyb(&raw, a, b, seed)?;
    }

    #[test]
    fn ell_sell_hyb_roundtrip_and_spmv_f64_u16(raw in csr::<f64, u16>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_ell(&raw, a, b, seed)?;
        check_sell(&raw, a, b, seed)?;
        check_hyb(&raw, a, b, seed)?;
    }
    #[test]
    fn ell_sell_hyb_roundtrip_and_spmv_f32_u16_canonical(raw in csr::<f32, u16>(30, 8, true), (a, b) in scalars(), seed: u64) {
        check_ell(&raw, a as f32, b as f32, seed)?;
        check_sell(&raw, a as f32, b as f32, seed)?;
        check_hyb(&raw, a as f32, b as f32, seed)?;
    }

    #[test]
    fn corrupted_ell_is_rejected_with_the_matching_error(raw in csr::<f64, u32>(20, 6, false), which in 0usize..6, pick: usize) {
        corrupted_ell(&raw, which, pick)?;
    }

    #[test]
    fn corrupted_ell_is_rejected_with_the_matching_error_u16(raw in csr::<f64, u16>(20, 6, false), which in 0usize..6, pick: usize) {
        corrupted_ell(&raw, which, pick)?;
    }

    #[test]
    fn corrupted_sell_is_rejected_with_the_matching_error(raw in csr::<f64, u32>(30, 6, false), ci in 0usize..6, which in 0usize..10, pick: usize) {
        corrupted_sell(&raw, ci, which, pick)?;
    }

    #[test]
    fn corrupted_sell_is_rejected_with_the_matching_error_u16(raw in csr::<f64, u16>(30, 6, false), ci in 0usize..6, which in 0usize..10, pick: usize) {
        corrupted_sell(&raw, ci, which, pick)?;
    }

    #[test]
    fn layouts_made_for_another_matrix_never_write_out_of_bounds(raw in csr::<f64, u32>(20, 6, false), other in csr::<f64, u32>(20, 6, false)) {
        foreign_layouts(&raw, &other)?;
    }

    #[test]
    fn layouts_made_for_another_matrix_never_write_out_of_bounds_u16(raw in csr::<f64, u16>(20, 6, false), other in csr::<f64, u16>(20, 6, false)) {
        foreign_layouts(&raw, &other)?;
    }
}

// ---------------------------------------------------------------- hand-made examples

/// A CSR matrix whose row `i` holds `lens[i]` entries in columns `0..lens[i]`.
fn with_lens(lens: &[usize]) -> CsrOwned<f64, u32> {
    let ncols = lens.iter().copied().max().unwrap_or(0).max(1);
    let t: Vec<(usize, usize, f64)> = lens
        .iter()
        .enumerate()
        .flat_map(|(i, &l)| (0..l).map(move |j| (i, j, (i * 10 + j) as f64 + 1.0)))
        .collect();
    CsrOwned::from_triplets(lens.len(), ncols, &t).unwrap()
}

#[test]
fn hyb_split_rule_on_hand_made_examples() {
    // (row lengths, K): K is the largest k with at least a third of the rows of length >= k.
    let cases: &[(&[usize], usize)] = &[
        (&[], 0),
        (&[0, 0, 0], 0),
        (&[7], 7),
        (&[3, 2, 1], 3),                   // one row in three suffices
        (&[1, 1, 1, 1, 1, 10], 1),         // need 2 of 6: only one row has 2 or more
        (&[4, 4, 0, 0, 0, 0, 0, 0, 0], 0), // need 3 of 9: only two non-empty rows
        (&[2, 2, 2, 0, 0, 0, 0, 0, 0], 2), // exactly a third
        (&[5, 1, 1, 1, 1, 1, 1], 1),
        (&[3, 3, 2, 2, 1, 1], 3),
        (&[0, 0, 0, 5, 5, 5, 5, 5, 5], 5),
        (&[9, 8, 7, 6, 5, 4, 3, 2, 1, 0], 6), // need 4 of 10: lengths 9, 8, 7, 6
    ];
    for &(lens, k) in cases {
        let a = with_lens(lens);
        let a = a.view();
        let layout = HybLayout::new(&a).unwrap();
        assert_eq!(layout.width(), k, "lens {lens:?}");
        assert_eq!(layout.ell_len(), lens.len() * k);
        assert_eq!(layout.coo_nnz(), lens.iter().map(|&l| l.saturating_sub(k)).sum::<usize>());
        assert_eq!(rule_by_scan(&a), k);
    }
}

#[test]
fn hyb_split_puts_the_first_k_entries_in_ell_and_the_rest_in_coo() {
    // Thesis Figure 5.8 style: one long row spills into COO.
    let a = with_lens(&[1, 1, 6, 2, 1, 1]);
    let a = a.view();
    let layout = HybLayout::new(&a).unwrap();
    assert_eq!(layout.width(), 2); // need 2 of 6 rows: rows 2 and 3 have 2 or more
    let h = HybOwned::from_csr(&a).unwrap();
    let h = h.view();
    assert_eq!(h.ell().width(), 2);
    assert_eq!(h.coo().row_idx(), &[2, 2, 2, 2]);
    assert_eq!(h.coo().col_idx(), &[2, 3, 4, 5]);
    assert_eq!(h.coo().vals(), &[23.0, 24.0, 25.0, 26.0]);
    // Row 3 (length 2) fills both slots; row 0 pads its second slot.
    let (e, m) = (h.ell(), 6);
    assert_eq!((e.col_idx()[3], e.col_idx()[m + 3]), (0, 1));
    assert_eq!((e.col_idx()[0], e.col_idx()[m]), (0, u32::MAX));
    assert_eq!(e.vals()[m], 0.0);
}

#[test]
fn ell_is_column_major_with_explicit_padding() {
    // Thesis Figure 5.4, matrix A_2 (6 x 6), nnzr_max = 4.
    let t = [
        (0, 0, 1.0),
        (0, 1, 2.0),
        (1, 0, 1.0),
        (1, 1, 2.0),
        (1, 2, 3.0),
        (2, 0, 1.0),
        (2, 1, 2.0),
        (2, 2, 3.0),
        (2, 3, 4.0),
        (3, 2, 1.0),
        (3, 3, 2.0),
        (3, 4, 3.0),
        (3, 5, 4.0),
        (4, 3, 1.0),
        (4, 4, 2.0),
        (4, 5, 3.0),
        (5, 4, 1.0),
        (5, 5, 2.0),
    ];
    let a = CsrOwned::<f64, u32>::from_triplets(6, 6, &t).unwrap();
    let e = EllOwned::from_csr(&a.view()).unwrap();
    let e = e.view();
    assert_eq!(e.width(), 4);
    let p = u32::MAX;
    #[rustfmt::skip]
    let want: [u32; 24] = [
        0, 0, 0, 2, 3, 4,
        1, 1, 1, 3, 4, 5,
        p, 2, 2, 4, 5, p,
        p, p, 3, 5, p, p,
    ];
    assert_eq!(e.col_idx(), &want);
    assert_eq!(e.nnz(), 18);
    let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let mut y = [f64::NAN; 6];
    e.spmv(Exec::new(), 1.0, &x, 0.0, &mut y).unwrap();
    assert_eq!(y, [5.0, 14.0, 30.0, 3.0 + 8.0 + 15.0 + 24.0, 4.0 + 10.0 + 18.0, 5.0 + 12.0]);
}

#[test]
fn sell_slices_are_column_major_blocks() {
    // Thesis Figure 5.10, matrix A_5 with nb = 3: slices of 8 and 6 entries.
    let t = [
        (0, 0, 1.0),
        (0, 1, 2.0),
        (1, 0, 1.0),
        (1, 2, 2.0),
        (2, 0, 1.0),
        (2, 1, 2.0),
        (2, 4, 3.0),
        (2, 5, 4.0),
        (3, 2, 1.0),
        (3, 3, 2.0),
        (4, 2, 1.0),
        (4, 3, 2.0),
        (5, 4, 1.0),
        (5, 5, 2.0),
    ];
    let a = CsrOwned::<f64, u32>::from_triplets(6, 6, &t).unwrap();
    let s = SellOwned::from_csr_slice_height(&a.view(), 3).unwrap();
    let s = s.view();
    assert_eq!(s.slice_ptr(), &[0, 12, 18]);
    let p = u32::MAX;
    #[rustfmt::skip]
    let want: [u32; 18] = [
        0, 0, 0,  1, 2, 1,  p, p, 4,  p, p, 5, // slice 0: width 4
        2, 2, 4,  3, 3, 5,                     // slice 1: width 2
    ];
    assert_eq!(s.col_idx(), &want);
    assert_eq!(s.slice(1), Some((3, 3, 12, 2)));
    // nrows not a multiple of c: the last slice is lower.
    let s = SellOwned::from_csr_slice_height(&a.view(), 4).unwrap();
    let s = s.view();
    assert_eq!(s.slice(1), Some((4, 2, 16, 2)));
    assert_eq!(s.slice_ptr(), &[0, 16, 20]);
    assert_eq!(s.row_len(2), Some(4));
    assert_eq!(s.row_len(6), None);
}

// ---------------------------------------------------------------- errors and edge cases

#[test]
fn sizes_that_overflow_are_rejected_without_panic() {
    let a = with_lens(&[1, 0, 2]);
    let a = a.view();
    assert!(matches!(
        EllLayout::with_width(&a, usize::MAX),
        Err(FormatError::TooLarge { what: "nrows * width", .. })
    ));
    assert!(matches!(
        HybLayout::with_width(&a, usize::MAX),
        Err(FormatError::TooLarge { what: "nrows * width", .. })
    ));
    assert!(matches!(
        EllOwned::from_csr_width(&a, usize::MAX),
        Err(FormatError::TooLarge { what: "nrows * width", .. })
    ));
    // Fits usize but not memory: a clean error instead of an allocation abort.
    assert!(matches!(EllOwned::from_csr_width(&a, usize::MAX / 4), Err(FormatError::TooLarge { .. })));
    assert!(matches!(HybOwned::from_csr_width(&a, usize::MAX / 4), Err(FormatError::TooLarge { .. })));
    assert_eq!(EllLayout::with_width(&a, 1), Err(FormatError::Parameter { name: "width", value: 1 }));
    assert_eq!(SellLayout::new(&a, 0), Err(FormatError::Parameter { name: "slice_height", value: 0 }));
    assert_eq!(
        SellOwned::from_csr_slice_height(&a, 0).unwrap_err(),
        FormatError::Parameter { name: "slice_height", value: 0 }
    );
    // Dimensions that do not fit the index type.
    // (Past `u32::MAX` rows only where `usize` holds them.)
    if let Some(big) = (u32::MAX as usize).checked_add(1) {
        assert!(matches!(
            Ell::<f64, u32>::new(big, 1, 0, &[], &[]),
            Err(FormatError::TooLarge { what: "nrows", .. })
        ));
    }
    assert!(matches!(
        Ell::<f64, u32>::new(1, u32::MAX as usize, 0, &[], &[]),
        Err(FormatError::TooLarge { what: "ncols", .. })
    ));
    assert!(matches!(
        Sell::<f64, u32>::new(0, u32::MAX as usize, 1, &[0], &[], &[]),
        Err(FormatError::TooLarge { what: "ncols", .. })
    ));
    assert!(matches!(
        Ell::<f64, usize>::new(3, 2, usize::MAX / 2, &[], &[]),
        Err(FormatError::TooLarge { what: "nrows * width", .. })
    ));
    // usize::MAX rows (a pointer array would need usize::MAX + 1 entries): errors, not
    // panics.
    assert!(matches!(
        Sell::<f64, usize>::new(usize::MAX, 0, 1, &[0], &[], &[]),
        Err(FormatError::TooLarge { what: "nrows", .. })
    ));
    assert!(matches!(
        Ell::<f64, usize>::new(usize::MAX, 0, 0, &[], &[]),
        Err(FormatError::TooLarge { what: "nrows", .. })
    ));
}

#[test]
fn sell_length_that_does_not_fit_the_index_type_is_rejected() {
    // 70_000 rows, one of 70_000 entries: one slice of 70_000 x 70_000 slots > u32::MAX.
    let n = 70_000usize;
    let mut row_ptr = vec![0u32; n + 1];
    for r in row_ptr.iter_mut().skip(1) {
        *r = n as u32;
    }
    let col_idx: Vec<u32> = (0..n as u32).collect();
    let vals = vec![1.0f64; n];
    let a = Csr::new(n, n, &row_ptr, &col_idx, &vals).unwrap();
    assert!(matches!(SellLayout::new(&a, n), Err(FormatError::TooLarge { what: "len", .. })));
    assert!(SellLayout::new(&a, 1).is_ok());
}

/// `u16` counts SELL's slots, padding included, in `slice_ptr`: 300 rows, one of 300
/// entries, in one slice are 90 000 slots, past `u16::MAX`, an error from the layout and
/// the owned form; in slices of one row they fit. ELL addresses no slot by index, so its
/// 90 000 slots hold `u16` columns, and HYB splits the same matrix into ELL and COO.
#[test]
fn u16_sell_slots_that_do_not_fit_are_an_error() {
    let n = 300usize;
    let t: Vec<(usize, usize, f64)> =
        (0..n).map(|j| (7, j, j as f64 * 0.5 - 3.0)).chain((0..n).map(|i| (i, i, 1.0))).collect();
    let a = CsrOwned::<f64, u16>::from_triplets(n, n, &t).unwrap();
    let a = a.view();
    let too_large =
        |e: FormatError| matches!(e, FormatError::TooLarge { what: "len", value: 90_000, max: 65_535 });
    assert!(SellLayout::new(&a, n).is_err_and(too_large));
    assert!(SellOwned::from_csr_slice_height(&a, n).is_err_and(too_large));
    let x: Vec<f64> = (0..n).map(|j| (j % 5) as f64 - 2.0).collect();
    let mut want = vec![0.0; n];
    a.spmv(Exec::from(Isa::Portable), 1.0, &x, 0.0, &mut want).unwrap();
    let sell = SellOwned::from_csr_slice_height(&a, 1).unwrap();
    let ell = EllOwned::from_csr(&a).unwrap();
    assert_eq!(ell.view().stored_len(), n * n);
    let hyb = HybOwned::from_csr(&a).unwrap();
    for isa in Isa::available() {
        for m in [&sell.view() as &dyn SpMv<f64>, &ell.view(), &hyb.view()] {
            let mut y = vec![f64::NAN; n];
            m.spmv(Exec::from(isa), 1.0, &x, 0.0, &mut y).unwrap();
            assert_eq!(y, want, "{isa}");
        }
    }
}

#[test]
fn hyb_parts_of_different_shapes_are_rejected() {
    let ell = Ell::<f64, u32>::new(2, 3, 1, &[0, u32::MAX], &[1.0, 0.0]).unwrap();
    let coo = Coo::<f64, u32>::new(3, 3, &[2], &[1], &[1.0]).unwrap();
    assert_eq!(
        Hyb::new(ell, coo).unwrap_err(),
        FormatError::Length { array: "coo.nrows", expected: 2, got: 3 }
    );
    let coo = Coo::<f64, u32>::new(2, 4, &[1], &[3], &[1.0]).unwrap();
    assert_eq!(
        Hyb::new(ell, coo).unwrap_err(),
        FormatError::Length { array: "coo.ncols", expected: 3, got: 4 }
    );
    let coo = Coo::<f64, u32>::new(2, 3, &[1, 0], &[2, 0], &[1.0, 5.0]).unwrap();
    let h = Hyb::new(ell, coo).unwrap();
    // COO entries in any order, even on a position the ELL part holds: they add up, and
    // to_csr puts each row's ELL entries first.
    let mut y = [f64::NAN; 2];
    h.spmv(Exec::new(), 1.0, &[1.0, 2.0, 3.0], 0.0, &mut y).unwrap();
    assert_eq!(y, [6.0, 3.0]);
    let (mut rp, mut c, mut v) = ([0u32; 3], [0u32; 3], [0.0; 3]);
    let back = h.to_csr(&mut rp, &mut c, &mut v).unwrap();
    assert_eq!(back.row_ptr(), &[0, 2, 3]);
    assert_eq!(back.col_idx(), &[0, 0, 2]);
    assert_eq!(back.vals(), &[1.0, 5.0, 1.0]);
}

/// Every buffer still holds only the sentinel 7.
fn assert_untouched(bufs: &[&[u32]], vbufs: &[&[f64]]) {
    for b in bufs {
        assert!(b.iter().all(|&x| x == 7), "buffer written");
    }
    for b in vbufs {
        assert!(b.iter().all(|&x| x == 7.0), "buffer written");
    }
}

#[test]
fn undersized_buffers_are_errors_and_stay_untouched() {
    let a = with_lens(&[3, 0, 1, 5, 2]);
    let a = a.view();
    let nnz = a.nnz();
    // ELL
    let l = EllLayout::new(&a).unwrap();
    for short in 0..2 {
        let mut c = vec![7u32; l.len() - usize::from(short == 0)];
        let mut v = vec![7.0; l.len() - usize::from(short == 1)];
        let err = Ell::from_csr(&a, &l, &mut c, &mut v).unwrap_err();
        let name = ["col_idx", "vals"][short];
        assert_eq!(err, FormatError::BufferTooSmall { array: name, needed: l.len(), got: l.len() - 1 });
        assert_untouched(&[&c], &[&v]);
    }
    // SELL
    let l = SellLayout::new(&a, 2).unwrap();
    for short in 0..3 {
        let mut sp = vec![7u32; l.slice_ptr_len() - usize::from(short == 0)];
        let mut c = vec![7u32; l.len() - usize::from(short == 1)];
        let mut v = vec![7.0; l.len() - usize::from(short == 2)];
        let err = Sell::from_csr(&a, &l, &mut sp, &mut c, &mut v).unwrap_err();
        assert!(matches!(err, FormatError::BufferTooSmall { .. }), "{err:?}");
        assert_untouched(&[&sp, &c], &[&v]);
    }
    // HYB
    let l = HybLayout::with_width(&a, 2).unwrap();
    for short in 0..5 {
        let s = |k: usize| usize::from(short == k);
        let mut ec = vec![7u32; l.ell_len() - s(0)];
        let mut ev = vec![7.0; l.ell_len() - s(1)];
        let mut cr = vec![7u32; l.coo_nnz() - s(2)];
        let mut cc = vec![7u32; l.coo_nnz() - s(3)];
        let mut cv = vec![7.0; l.coo_nnz() - s(4)];
        let err = Hyb::from_csr(&a, &l, &mut ec, &mut ev, &mut cr, &mut cc, &mut cv).unwrap_err();
        let name = ["ell_col_idx", "ell_vals", "coo_row_idx", "coo_col_idx", "coo_vals"][short];
        assert!(matches!(err, FormatError::BufferTooSmall { array, .. } if array == name), "{err:?}");
        assert_untouched(&[&ec, &cr, &cc], &[&ev, &cv]);
    }
    // to_csr of each format.
    let e = EllOwned::from_csr(&a).unwrap();
    let s = SellOwned::from_csr_slice_height(&a, 3).unwrap();
    let h = HybOwned::from_csr_width(&a, 1).unwrap();
    for short in 0..3 {
        let s_ = |k: usize| usize::from(short == k);
        let mut rp = vec![7u32; a.nrows() + 1 - s_(0)];
        let mut c = vec![7u32; nnz - s_(1)];
        let mut v = vec![7.0; nnz - s_(2)];
        let name = ["row_ptr", "col_idx", "vals"][short];
        let errs = [
            e.view().to_csr(&mut rp, &mut c, &mut v).unwrap_err(),
            s.view().to_csr(&mut rp, &mut c, &mut v).unwrap_err(),
            h.view().to_csr(&mut rp, &mut c, &mut v).unwrap_err(),
        ];
        for err in errs {
            assert!(matches!(err, FormatError::BufferTooSmall { array, .. } if array == name), "{err:?}");
        }
        assert_untouched(&[&rp, &c], &[&v]);
    }
}

#[test]
fn spmv_checks_isa_and_lengths_before_touching_y() {
    let a = with_lens(&[2, 0, 3]);
    let a = a.view();
    let e = EllOwned::from_csr(&a).unwrap();
    let s = SellOwned::from_csr_slice_height(&a, 2).unwrap();
    let h = HybOwned::from_csr_width(&a, 1).unwrap();
    let (e, s, h) = (e.view(), s.view(), h.view());
    let ms: [&dyn SpMv<f64>; 3] = [&e, &s, &h];
    for m in ms {
        let mut y = [7.0; 3];
        assert_eq!(
            m.spmv(Exec::new(), 1.0, &[1.0; 2], 0.0, &mut y),
            Err(DimError::Length { operand: "x", expected: 3, got: 2 })
        );
        let mut y4 = [7.0; 4];
        assert_eq!(
            m.spmv(Exec::new(), 1.0, &[1.0; 3], 0.0, &mut y4),
            Err(DimError::Length { operand: "y", expected: 3, got: 4 })
        );
        assert_eq!(y, [7.0; 3]);
        assert_eq!(y4, [7.0; 4]);
        for isa in Isa::ALL {
            let mut y = [7.0; 3];
            let r = m.spmv(Exec::from(isa), 1.0, &[1.0; 3], 1.0, &mut y);
            if isa.is_available() {
                assert_eq!(r, Ok(()));
                assert_eq!(y, [7.0 + 3.0, 7.0, 7.0 + 66.0]);
            } else {
                assert_eq!(r, Err(DimError::IsaUnavailable { isa }));
                assert_eq!(y, [7.0; 3]);
            }
        }
        // alpha = 0 reads neither A nor x; beta = 0 never reads y.
        let mut y = [1.0, 2.0, 3.0];
        m.spmv(Exec::new(), 0.0, &[f64::NAN; 3], 2.0, &mut y).unwrap();
        assert_eq!(y, [2.0, 4.0, 6.0]);
        let mut y = [f64::NAN; 3];
        m.spmv(Exec::new(), 0.0, &[f64::NAN; 3], 0.0, &mut y).unwrap();
        assert_eq!(y, [0.0; 3]);
    }
}

#[test]
fn empty_shapes_work() {
    for (m, n) in [(0, 0), (0, 5), (5, 0), (4, 4)] {
        let row_ptr = vec![0u32; m + 1];
        let a = Csr::<f64, u32>::new(m, n, &row_ptr, &[], &[]).unwrap();
        let e = EllOwned::from_csr(&a).unwrap();
        let s = SellOwned::from_csr_slice_height(&a, 3).unwrap();
        let h = HybOwned::from_csr(&a).unwrap();
        assert_eq!((e.width(), e.nnz()), (0, 0));
        assert_eq!(s.view().slice_ptr().len(), m.div_ceil(3) + 1);
        assert_eq!(h.width(), 0);
        let x = vec![1.0; n];
        for mat in [&e.view() as &dyn SpMv<f64>, &s.view(), &h.view()] {
            let mut y = vec![f64::NAN; m];
            mat.spmv(Exec::new(), 1.0, &x, 0.0, &mut y).unwrap();
            assert!(y.iter().all(|&v| v == 0.0));
        }
    }
    // A valid ELL of width > 0 on a matrix without columns holds only padding.
    let e = Ell::<f64, u32>::new(2, 0, 2, &[u32::MAX; 4], &[0.0; 4]).unwrap();
    assert_eq!(e.nnz(), 0);
    assert_eq!(
        Ell::<f64, u32>::new(2, 0, 1, &[0, u32::MAX], &[0.0; 2]).unwrap_err(),
        FormatError::ColumnOutOfBounds { row: 0, position: 0, col: 0, ncols: 0 }
    );
    assert_eq!(pad::<u32>(), u32::MAX);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::common::cases(64)))]

    #[test]
    fn ell_sell_hyb_roundtrip_and_spmv_f64_i32(raw in csr::<f64, i32>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_ell(&raw, a, b, seed)?;
        check_sell(&raw, a, b, seed)?;
        check_hyb(&raw, a, b, seed)?;
    }

    #[test]
    fn ell_sell_hyb_roundtrip_and_spmv_f32_i32_canonical(raw in csr::<f32, i32>(30, 8, true), (a, b) in scalars(), seed: u64) {
        check_ell(&raw, a as f32, b as f32, seed)?;
        check_sell(&raw, a as f32, b as f32, seed)?;
        check_hyb(&raw, a as f32, b as f32, seed)?;
    }

    #[test]
    fn ell_sell_hyb_roundtrip_and_spmv_f64_i64(raw in csr::<f64, i64>(40, 12, false), (a, b) in scalars(), seed: u64) {
        check_ell(&raw, a, b, seed)?;
        check_sell(&raw, a, b, seed)?;
        check_hyb(&raw, a, b, seed)?;
    }

    #[test]
    fn ell_sell_hyb_roundtrip_and_spmv_f32_i64_canonical(raw in csr::<f32, i64>(30, 8, true), (a, b) in scalars(), seed: u64) {
        check_ell(&raw, a as f32, b as f32, seed)?;
        check_sell(&raw, a as f32, b as f32, seed)?;
        check_hyb(&raw, a as f32, b as f32, seed)?;
    }

    #[test]
    fn corrupted_ell_and_sell_are_rejected_with_the_matching_error_signed(raw in csr::<f64, i32>(30, 6, false), wide in csr::<f64, i64>(20, 6, false), ci in 0usize..6, which in 0usize..10, pick: usize) {
        corrupted_ell(&raw, which % 6, pick)?;
        corrupted_ell(&wide, which % 6, pick)?;
        corrupted_sell(&raw, ci, which, pick)?;
    }

    #[test]
    fn layouts_made_for_another_matrix_never_write_out_of_bounds_i32(raw in csr::<f64, i32>(20, 6, false), other in csr::<f64, i32>(20, 6, false)) {
        foreign_layouts(&raw, &other)?;
    }
}
