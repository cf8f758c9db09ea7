//! Whether this core should gather: [`Gathers::detect`]'s answer beside what it stands
//! for, on the generated suite. For every x86-64 width and precision, the CSR5 SpMV with
//! `x` read by hardware gathers and by a load per lane, and the two CSR row methods the
//! same answer picks between (`CsrMethod::choose`), all interleaved (medians of at least
//! 7 rounds). `loads/hw` below 1 says loads are faster; `rv/rs` below 1 says row-vector is.
//!
//! ```text
//! cargo run --release --example gathers --features gen            # the full suite
//! cargo run --release --example gathers --features gen -- --small
//! ```

use std::hint::black_box;
use std::time::Duration;

use spblas::Exec;
use spblas::generate::{SuiteScale, suite_entries};
use spblas::level2::spmv_csr;
use spblas::{Csr5Owned, CsrMethod, CsrOwned, Gathers, Isa, Scalar, SpMv};

#[path = "common/timing.rs"]
mod timing;

/// Rounds at least, and at most this long per matrix once they are done.
const MIN_ROUNDS: usize = 7;
const MIN_TIME: Duration = Duration::from_millis(400);

/// Geometric mean of ratios.
fn geomean(v: &[f64]) -> f64 {
    (v.iter().map(|r| r.ln()).sum::<f64>() / v.len().max(1) as f64).exp()
}

fn run<T: Scalar>(scale: SuiteScale, isa: Isa) {
    let (mut gathers, mut rows) = (Vec::new(), Vec::new());
    for entry in suite_entries(scale) {
        let a: CsrOwned<T, u32> = entry.generate().expect("suite matrices generate");
        let a = a.view();
        let c5 = Csr5Owned::from_csr(Exec::from(isa), &a).expect("suite matrices convert");
        let c5 = c5.view();
        let x: Vec<T> = (0..a.ncols()).map(|j| T::from_f64(1.0 + (j % 7) as f64)).collect();
        let m = a.nrows();
        let (mut y0, mut y1, mut y2, mut y3) =
            (vec![T::ZERO; m], vec![T::ZERO; m], vec![T::ZERO; m], vec![T::ZERO; m]);
        let exec = Exec::from(isa);
        let ok = "available isa, matching lengths";
        let csr5 = |mode: Gathers, y: &mut [T]| {
            Gathers::set(Some(mode));
            c5.spmv(exec, T::ONE, black_box(&x), T::ZERO, y).expect(ok);
        };
        let csr = |method: CsrMethod, y: &mut [T]| {
            spmv_csr(exec, &a, method, T::ONE, black_box(&x), T::ZERO, y).expect(ok);
        };
        let times = timing::interleaved_medians(
            &mut [
                &mut || csr5(Gathers::Hardware, &mut y0),
                &mut || csr5(Gathers::Loads, &mut y1),
                &mut || csr(CsrMethod::RowVector, &mut y2),
                &mut || csr(CsrMethod::RowScalar, &mut y3),
            ],
            MIN_ROUNDS,
            MIN_TIME,
            usize::MAX,
        );
        Gathers::set(None);
        let [hw, loads, rv, rs] = [0, 1, 2, 3].map(|k| times[k].as_secs_f64());
        gathers.push(loads / hw);
        rows.push(rv / rs);
        println!(
            "| {:<7} | {:<4} | {:<16} | {:>9.1} | {:>9.1} | {:>5.2} | {:>9.1} | {:>9.1} | {:>5.2} |",
            isa.name(),
            T::NAME,
            entry.name,
            hw * 1e6,
            loads * 1e6,
            loads / hw,
            rv * 1e6,
            rs * 1e6,
            rv / rs
        );
    }
    println!(
        "| {:<7} | {:<4} | **geomean**       |           |           | **{:.2}** |           |           | **{:.2}** |",
        isa.name(),
        T::NAME,
        geomean(&gathers),
        geomean(&rows)
    );
}

fn main() {
    let scale = if std::env::args().any(|a| a == "--small") { SuiteScale::Small } else { SuiteScale::Full };
    println!("Gathers::detect() = {}", Gathers::detect().name());
    println!();
    println!(
        "| isa | prec | matrix | CSR5 hw µs | CSR5 loads µs | loads/hw | row-vector µs | row-scalar µs | rv/rs |"
    );
    println!("|---|---|---|---:|---:|---:|---:|---:|---:|");
    for isa in Isa::available().filter(|i| matches!(i, Isa::Avx2 | Isa::Avx512)) {
        run::<f64>(scale, isa);
        run::<f32>(scale, isa);
    }
}
