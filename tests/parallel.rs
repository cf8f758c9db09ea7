//! Thread drivers: the threaded CSR SpMV equals the serial one bit for bit (each row is
//! computed by the same serial loop), for any thread count; threaded CSR5 and merge path
//! equal the reference.
#![cfg(feature = "parallel")]

mod common;

use common::{assert_close, csr, reference_spmv, vector};
use proptest::prelude::*;
use spblas::formats::csr5::omega_for;
use spblas::parallel::{balanced_row_partition, spmv_csr, spmv_csr_merge_path, spmv_csr5};
use spblas::{Csr5Layout, Csr5Owned, Isa, SpMv};

proptest! {
    #[test]
    fn threaded_csr5_spmv_matches_reference(raw in csr::<f64, u32>(80, 20, false), threads in 0usize..9, sigma in 1usize..5, seed: u64) {
        let a = raw.owned();
        let a = a.view();
        let x = vector::<f64>(a.ncols(), seed);
        let y0 = vector::<f64>(a.nrows(), seed + 1);
        let (want, bound) = reference_spmv(a.nrows(), a.iter(), 1.5, &x, 0.5, &y0);
        for isa in Isa::available() {
            let layout = Csr5Layout::with_params(&a, omega_for::<f64>(isa), sigma).unwrap();
            let c5 = Csr5Owned::from_csr_layout(&a, &layout).unwrap();
            let mut got = y0.clone();
            spmv_csr5(&c5.view(), isa, 1.5, &x, 0.5, &mut got, threads).unwrap();
            assert_close(&got, &want, &bound, (a.max_row_len() + 3) as f64)?;
        }
    }

    #[test]
    fn threaded_csr_spmv_equals_serial_bitwise(raw in csr::<f64, u32>(60, 20, false), threads in 0usize..7, seed: u64) {
        let a = raw.owned();
        let a = a.view();
        let x = vector::<f64>(a.ncols(), seed);
        let y0 = vector::<f64>(a.nrows(), seed + 1);
        let mut want = y0.clone();
        a.spmv_isa(Isa::Portable, 1.5, &x, 0.5, &mut want).unwrap();
        let mut got = y0.clone();
        spmv_csr(&a, Isa::Portable, 1.5, &x, 0.5, &mut got, threads).unwrap();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn threaded_merge_path_spmv_matches_reference(raw in csr::<f64, u32>(60, 40, false), threads in 0usize..9, seed: u64) {
        let a = raw.owned();
        let a = a.view();
        let x = vector::<f64>(a.ncols(), seed);
        let y0 = vector::<f64>(a.nrows(), seed + 1);
        let (want, bound) = reference_spmv(a.nrows(), a.iter(), 1.5, &x, 0.5, &y0);
        for isa in Isa::available() {
            let mut got = y0.clone();
            spmv_csr_merge_path(&a, isa, 1.5, &x, 0.5, &mut got, threads).unwrap();
            assert_close(&got, &want, &bound, (a.max_row_len() + 3) as f64)?;
        }
    }

    #[test]
    fn row_partition_is_monotone_and_covers_all_rows(raw in csr::<f64, u32>(60, 20, false), parts in 1usize..9) {
        let a = raw.owned();
        let a = a.view();
        let mut b = vec![0; parts + 1];
        balanced_row_partition(&a, parts, &mut b).unwrap();
        prop_assert_eq!(b[0], 0);
        prop_assert_eq!(b[parts], a.nrows());
        prop_assert!(b.windows(2).all(|w| w[0] <= w[1]));
        // Each part holds at most its share plus one row.
        let total = a.nnz() + a.nrows();
        for w in b.windows(2) {
            let work = a.row_ptr()[w[1]] as usize - a.row_ptr()[w[0]] as usize + (w[1] - w[0]);
            let max_row = a.max_row_len() + 1;
            prop_assert!(work <= total.div_ceil(parts) + max_row, "part {:?} has work {}", w, work);
        }
    }
}

#[test]
fn threaded_merge_path_splits_one_long_row() {
    // One row of 10 000 entries between empty rows: every worker gets a piece of it.
    let n = 10_000;
    let row_ptr: Vec<u32> = vec![0, 0, n, n, n];
    let col_idx: Vec<u32> = (0..n).collect();
    let vals: Vec<f64> = (0..n).map(|j| (j % 7) as f64).collect();
    let a = spblas::Csr::<f64, u32>::new(4, n as usize, &row_ptr, &col_idx, &vals).unwrap();
    let x = vec![1.0; n as usize];
    let want: f64 = vals.iter().sum();
    for threads in [1, 2, 3, 8] {
        let mut y = vec![f64::NAN; 4];
        spmv_csr_merge_path(&a, Isa::Portable, 1.0, &x, 0.0, &mut y, threads).unwrap();
        assert_eq!(y, [0.0, want, 0.0, 0.0]);
    }
}

#[test]
fn threaded_drivers_reject_wrong_lengths_and_leave_y_untouched() {
    let a = spblas::Csr::<f64, u32>::new(2, 3, &[0, 1, 2], &[0, 2], &[1.0, 2.0]).unwrap();
    let mut y = [7.0; 3];
    assert!(spmv_csr_merge_path(&a, Isa::Portable, 1.0, &[1.0; 3], 0.0, &mut y, 2).is_err());
    assert!(spmv_csr(&a, Isa::Portable, 1.0, &[1.0; 2], 0.0, &mut y[..2], 2).is_err());
    assert_eq!(y, [7.0; 3]);
}

#[test]
fn undersized_bounds_buffer_is_an_error() {
    let a = spblas::Csr::<f64, u32>::new(1, 1, &[0, 1], &[0], &[1.0]).unwrap();
    let mut b = [0usize; 2];
    assert!(balanced_row_partition(&a, 2, &mut b).is_err());
}
