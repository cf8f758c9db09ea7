//! Inputs found by the fuzz targets (`fuzz/`), each written out as plain calls on the
//! library and named after the property it broke. The fuzz input itself is kept in
//! `fuzz/regressions/<target>/` and replayed by `cargo test` in `fuzz/`.

use spblas::Exec;
use spblas::formats::csr5::DescFormat;
use spblas::{Csr5Layout, Csr5Owned, CsrOwned, Index, Isa, SpMv};

/// `csr5_roundtrip`: tiles of one lane × 32 steps. The packed descriptor put the (empty)
/// offsets above a full 32-bit `bit_flag`, a shift by 32 — a panic with overflow checks,
/// garbage without. Such a tile now takes the split descriptor.
#[test]
fn csr5_one_lane_of_32_steps_round_trips_and_multiplies() {
    one_lane_of_32_steps::<u32>();
    one_lane_of_32_steps::<u16>();
}

fn one_lane_of_32_steps<I: Index>() {
    assert_eq!(DescFormat::new(1, 32).map(|f| f.words_per_lane()), Some(2));
    assert_eq!(DescFormat::max_packed_sigma(1), 31);
    let t: Vec<(usize, usize, f64)> =
        (0..40).flat_map(|r| (0..r % 5).map(move |k| (r, (r + 3 * k) % 9, (k + 1) as f64))).collect();
    let b = CsrOwned::<f64, I>::from_triplets(40, 9, &t).unwrap();
    let b = b.view();
    let l = Csr5Layout::with_params(&b, 1, 32).unwrap();
    assert!(l.tiles() >= 2);
    let c5 = Csr5Owned::from_csr_layout(&b, &l).unwrap();
    let (mut ci, mut v) = (vec![I::ZERO; b.nnz()], vec![0.0; b.nnz()]);
    c5.view().to_csr(&mut ci, &mut v).unwrap();
    assert_eq!((&ci[..], &v[..]), (b.col_idx(), b.vals()));
    let x: Vec<f64> = (0..9).map(|j| j as f64 - 4.0).collect();
    let (mut y, mut want) = (vec![0.0; 40], vec![0.0; 40]);
    for isa in Isa::available() {
        c5.view().spmv(Exec::from(isa), 1.0, &x, 0.0, &mut y).unwrap();
        b.spmv(Exec::from(isa), 1.0, &x, 0.0, &mut want).unwrap();
        assert_eq!(y, want, "{isa:?} {}", I::NAME);
    }
}
