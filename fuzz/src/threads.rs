//! Target `threads`: every threaded entry point, with any thread count from 0 to 100 000,
//! returns what the calling thread alone returns, bit for bit (values are small integers,
//! so sums are exact in any order): CSR SpMV by a `CsrMethod` the input picks, CSR5
//! SpMV, `SpmvPlan` (the rule's choice and a forced CSR5 plan) and `level3::spgemm`
//! (`A·A` on square matrices). Never a panic or an abort, and no memory that grows with the count: a count
//! beyond the work or the pool is clamped.

use arbitrary::{Arbitrary, Unstructured};
use spblas::level2::{CsrMethod, SpmvChoice, SpmvConfig, SpmvPlan, spmv_csr};
use spblas::level3::{SpgemmConfig, spgemm};
use spblas::{Csr, Csr5Owned, Exec, Isa, SpMv};

use crate::formats::{Recipe, recipe_csr};
use crate::same;

#[derive(Debug, Arbitrary)]
pub struct Input {
    /// The thread count, modulo 100 001; a few small counts are likelier.
    pub threads: u32,
    /// Which available `Isa`, modulo their number; bits 3 and up: which `CsrMethod`.
    pub isa: u8,
    pub recipe: Recipe,
}

/// Runs the target; returns the number of entry points compared.
pub fn run(data: &[u8]) -> usize {
    let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) else {
        return 0;
    };
    let threads = match input.threads % 8 {
        0..=3 => (input.threads >> 3) as usize % 9,
        _ => (input.threads % 100_001) as usize,
    };
    let isas: Vec<Isa> = Isa::available().collect();
    let isa = isas[usize::from(input.isa) % isas.len()];
    let (nrows, ncols, rp, ci, v) = recipe_csr(&input.recipe);
    let a = Csr::new(nrows, ncols, &rp, &ci, &v).expect("a recipe is valid CSR");
    let (one, many) = (Exec::from(isa), Exec::from(isa).threads(threads));
    let args = input.recipe.args;
    let (alpha, beta, x, y0) = (args.alpha(), args.beta(), args.x(ncols), args.y(nrows));
    let mut compared = 0;
    let mut both = |name: &str, f: &dyn Fn(Exec, &mut [f64])| {
        let (mut y1, mut y2) = (y0.clone(), y0.clone());
        f(one, &mut y1);
        f(many, &mut y2);
        assert!(same(&y1, &y2), "{name} on {isa} with {threads} threads: {y2:?}, alone {y1:?}");
        compared += 1;
    };
    // One method per input (the fuzzer reaches all of them across inputs), not five.
    let method = CsrMethod::ALL[usize::from(input.isa >> 3) % CsrMethod::ALL.len()];
    both(method.name(), &|e, y| spmv_csr(e, &a, method, alpha, &x, beta, y).expect("csr spmv"));
    let c5 = Csr5Owned::from_csr(one, &a).expect("csr5 of a valid CSR");
    both("csr5", &|e, y| c5.view().spmv(e, alpha, &x, beta, y).expect("csr5 spmv"));
    let ruled = SpmvPlan::new(one, &a).expect("plan");
    both("plan", &|e, y| ruled.spmv(e, alpha, &x, beta, y).expect("plan spmv"));
    let forced =
        SpmvPlan::with_config(one, &a, SpmvConfig::new().choice(SpmvChoice::Csr5)).expect("csr5 plan");
    both("csr5 plan", &|e, y| forced.spmv(e, alpha, &x, beta, y).expect("plan spmv"));
    if nrows == ncols {
        let cfg = SpgemmConfig::new();
        let c1 = spgemm(one, cfg, &a, &a).expect("spgemm alone");
        let c2 = spgemm(many, cfg, &a, &a).expect("spgemm threaded");
        let (c1, c2) = (c1.view(), c2.view());
        assert_eq!(c1.row_ptr(), c2.row_ptr(), "spgemm row_ptr with {threads} threads");
        assert_eq!(c1.col_idx(), c2.col_idx(), "spgemm col_idx with {threads} threads");
        assert!(same(c1.vals(), c2.vals()), "spgemm values with {threads} threads");
        compared += 1;
    }
    compared
}
