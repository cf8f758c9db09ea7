//! Build a small CSR matrix from triplets, run SpMV on every available ISA, print `y`;
//! then the way to run it fastest when it is multiplied many times: a plan.
//!
//! `cargo run --example quickstart`

use spblas::Exec;
use spblas::{CsrOwned, Isa, SpMv, SpmvPlan};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The 4x4 example of the course notes (Fig. 10.1):
    // [3 0 1 0]
    // [0 0 0 0]
    // [0 2 4 1]
    // [1 0 0 1]
    let triplets =
        [(0, 0, 3.0), (0, 2, 1.0), (2, 1, 2.0), (2, 2, 4.0), (2, 3, 1.0), (3, 0, 1.0), (3, 3, 1.0)];
    let a = CsrOwned::<f64, u32>::from_triplets(4, 4, &triplets)?;
    let a = a.view();
    println!("A: {}x{}, nnz = {}, row_ptr = {:?}", a.nrows(), a.ncols(), a.nnz(), a.row_ptr());
    let x = [1.0, 2.0, 3.0, 4.0];
    for isa in Isa::available() {
        let mut y = [0.0; 4];
        a.spmv(Exec::from(isa), 1.0, &x, 0.0, &mut y)?;
        println!("{:>8}: y = A x = {y:?}", isa.name());
    }
    // A matrix multiplied many times (an iterative solver): the plan chooses the kernel
    // once for this matrix and this CPU (converting to CSR5 or DIA where that pays), then
    // every product runs it.
    let plan = SpmvPlan::new(Exec::new(), &a)?;
    let mut y = [0.0; 4];
    plan.spmv(Exec::new(), 1.0, &x, 0.0, &mut y)?;
    println!("{:>8}: y = A x = {y:?} (the plan: {})", "plan", plan.choice().name());
    Ok(())
}
