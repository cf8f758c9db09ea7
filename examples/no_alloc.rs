//! The firmware shape of the API: no allocator, every buffer the caller's own (here
//! fixed-size arrays; in firmware, statics or a stack frame). Layout queries say how long
//! each buffer must be before anything is converted, and bad input is an error value.
//!
//! `cargo run --example no_alloc`

use spblas::Exec;
use spblas::level3::SpgemmConfig;
use spblas::primitives::{scan, sort};
use spblas::{Csr, Ell, EllLayout, FormatError, Isa, SpMv};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A 4x4 matrix in CSR, borrowed from constant arrays (course notes, Fig. 10.1).
    const ROW_PTR: [u32; 5] = [0, 2, 2, 5, 7];
    const COL_IDX: [u32; 7] = [0, 2, 1, 2, 3, 0, 3];
    const VALS: [f32; 7] = [3.0, 1.0, 2.0, 4.0, 1.0, 1.0, 1.0];
    let a = Csr::new(4, 4, &ROW_PTR, &COL_IDX, &VALS)?;

    // ELL needs nrows * width slots: ask first, then convert into our own buffers.
    let layout = EllLayout::new(&a)?;
    let (mut ell_col, mut ell_val) = ([0u32; 16], [0.0f32; 16]);
    assert!(layout.len() <= ell_col.len(), "static buffers sized for this matrix");
    let ell = Ell::from_csr(&a, &layout, &mut ell_col, &mut ell_val)?;

    let x = [1.0f32, 2.0, 3.0, 4.0];
    let (mut y_csr, mut y_ell) = ([0.0f32; 4], [0.0f32; 4]);
    a.spmv(Exec::new(), 1.0, &x, 0.0, &mut y_csr)?;
    ell.spmv(Exec::new(), 1.0, &x, 0.0, &mut y_ell)?;
    println!("isa {}: y = {y_csr:?} (CSR), {y_ell:?} (ELL, width {})", Isa::detect(), layout.width());

    // Primitives work in place on caller slices too.
    let mut lens = [0u32; 4];
    for (l, w) in lens.iter_mut().zip(ROW_PTR.windows(2)) {
        *l = w[1] - w[0];
    }
    sort::bitonic_sort(Exec::new(), &mut lens)?;
    scan::inclusive_scan(Exec::new(), &mut lens)?;
    println!("sorted row lengths, scanned: {lens:?}");

    // SpGEMM C = A·A (thesis ch. 9): ask for the workspace, count (symbolic), fill (numeric).
    let ws = spblas::level3::spgemm_workspace_len(Exec::new(), SpgemmConfig::new(), &a, &a)?;
    let (mut ws_idx, mut ws_vals) = ([0u32; 64], [0.0f32; 64]);
    assert!(ws.idx <= ws_idx.len() && ws.vals <= ws_vals.len(), "static buffers sized for this matrix");
    let mut c_row_ptr = [0u32; 5];
    let nnz = spblas::level3::spgemm_symbolic(
        Exec::new(),
        SpgemmConfig::new(),
        &a,
        &a,
        &mut c_row_ptr,
        &mut ws_idx,
    )?;
    let (mut c_col, mut c_val) = ([0u32; 16], [0.0f32; 16]);
    spblas::level3::spgemm_numeric(
        Exec::new(),
        SpgemmConfig::new(),
        &a,
        &a,
        &c_row_ptr,
        &mut c_col,
        &mut c_val,
        (&mut ws_idx, &mut ws_vals),
    )?;
    let c = Csr::new(4, 4, &c_row_ptr, &c_col[..nnz], &c_val[..nnz])?;
    println!("A·A: row_ptr {c_row_ptr:?}, {} entries, rows sorted: {:?}", c.nnz(), c.row_order());

    // Bad input is an error naming the fault, never a panic.
    let bad: Result<Csr<'_, f32, u32>, FormatError> = Csr::new(4, 4, &ROW_PTR, &[0, 2, 1, 9, 3, 0, 3], &VALS);
    println!("a column index out of range: {}", bad.unwrap_err());
    Ok(())
}
