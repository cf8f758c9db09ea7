//! CSR5 SpMV (`f32`, `u32`) on every `Isa` this build has, for WebAssembly: built with
//! `-C target-feature=+simd128` that is the portable path and `Isa::Wasm128`; without it,
//! the portable path alone (the scalar baseline). Three matrices of about 1M entries;
//! the median of 41 calls per `Isa`, three rounds.
//!
//! ```sh
//! cargo build --release --example wasm_csr5 --features gen --target wasm32-wasip1
//! RUSTFLAGS="-C target-feature=+simd128" cargo build --release --example wasm_csr5 \
//!     --features gen --target wasm32-wasip1 --target-dir target/wasm-simd128
//! python3 .ci/wasm-run target/wasm32-wasip1/release/examples/wasm_csr5.wasm uniform
//! python3 .ci/wasm-run target/wasm-simd128/wasm32-wasip1/release/examples/wasm_csr5.wasm uniform
//! ```
//!
//! Matrices (first argument): `uniform` (100K rows of 10 random columns), `poisson`
//! (2D 5-point, 448²), `banded` (50K rows, 21 diagonals). Records: `benches/records/wasm-*`.

use std::time::Instant;

use spblas::{Csr5Owned, Exec, Isa, SpMv};

fn median_ms(mut f: impl FnMut(), reps: usize) -> f64 {
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[reps / 2] * 1e3
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let which = std::env::args().nth(1).unwrap_or_else(|| "uniform".into());
    let a = match which.as_str() {
        "poisson" => spblas::generate::poisson2d::<f32, u32>(448)?,
        "banded" => spblas::generate::banded::<f32, u32>(50_000, 10, 10, 7)?,
        _ => spblas::generate::uniform_random::<f32, u32>(100_000, 100_000, 10, 7)?,
    };
    let v = a.view();
    let x: Vec<f32> = (0..v.ncols()).map(|j| 1.0 + (j % 7) as f32 * 0.25).collect();
    let mut y = vec![0.0f32; v.nrows()];
    let c5 = Csr5Owned::from_csr(Exec::new(), &v)?;
    let c = c5.view();
    println!("{which}: {} entries, omega {}, sigma {}", v.nnz(), c.omega(), c.sigma());
    for round in 0..3 {
        for isa in Isa::available() {
            let e = Exec::new().isa(isa);
            c.spmv(e, 1.0, &x, 0.0, &mut y)?;
            let t = median_ms(
                || {
                    let _ = c.spmv(e, 1.0, &x, 0.0, &mut y);
                },
                41,
            );
            println!("round {round} csr5 f32 {isa}: {t:.3} ms");
        }
    }
    Ok(())
}
