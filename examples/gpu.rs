//! The `gpu` feature's SpMV kernels on the built-in suite, through Vulkan (`ash`):
//! CSR scalar, CSR vector and CSR5 on the first Vulkan device, `f32` and `f64`, each
//! timed by GPU timestamps (median of 25 runs recorded in one command buffer) and
//! checked against the CPU SpMV.
//!
//! ```text
//! cargo run --release --example gpu --features gpu,gen [-- small|full]
//! ```
//!
//! GB/s counts the thesis's SpMV bytes (8.4.2); `%rd` divides it by the device's read
//! bandwidth measured in the same run (`read_stream` over the same number of bytes), and
//! `xS` is the speedup over the CSR scalar kernel.

#[path = "../tests/vk/mod.rs"]
mod vk;

use spblas::generate::{SuiteScale, suite_entries};
use spblas::gpu::{Kernel, SpmvParams};
use spblas::{Csr5Owned, CsrOwned, Scalar, SpMv};
use vk::{Gpu, Method, Step};

const RUNS: usize = 25;

/// The median duration in ms of `RUNS` repetitions of `steps`, each fenced by a barrier.
fn median_ms(gpu: &Gpu, set: ash::vk::DescriptorSet, steps: &[Step<'_>]) -> Result<f64, String> {
    let mut all = vec![Step::Timestamp];
    for _ in 0..RUNS {
        for s in steps {
            all.push(match s {
                Step::Dispatch { kernel, groups, push } => {
                    Step::Dispatch { kernel: *kernel, groups: *groups, push }
                }
                Step::Barrier => Step::Barrier,
                Step::Timestamp => Step::Timestamp,
            });
        }
        all.push(Step::Barrier);
        all.push(Step::Timestamp);
    }
    let t = gpu.run(set, &all)?;
    let mut d: Vec<f64> = t.windows(2).map(|w| (w[1] - w[0]) / 1e6).collect();
    d.sort_by(f64::total_cmp);
    Ok(d[d.len() / 2])
}

/// The device's read bandwidth over `bytes` bytes (GB/s), by `read_stream`.
fn read_gbs<T: Scalar>(gpu: &Gpu, bytes: usize) -> Result<f64, String> {
    let n = bytes / std::mem::size_of::<T>();
    let p = SpmvParams::<T>::read_stream(n).map_err(|e| e.to_string())?;
    let groups = Kernel::ReadStream.groups(&p);
    let vals = gpu.upload(&vec![T::ONE; n])?;
    let y = gpu.zeroed(
        (groups as usize * Kernel::ReadStream.workgroup_size() as usize * std::mem::size_of::<T>()) as u64,
    )?;
    let set = gpu.descriptor_set(&[(2, &vals), (4, &y)])?;
    let push = p.push_constants();
    let ms =
        median_ms(gpu, set, &[Step::Dispatch { kernel: Kernel::ReadStream, groups, push: push.as_bytes() }])?;
    gpu.free_set(set);
    gpu.free(vals);
    gpu.free(y);
    Ok((n * std::mem::size_of::<T>()) as f64 / (ms * 1e6))
}

fn max_rel_err<T: Scalar>(y: &[T], want: &[T]) -> f64 {
    let scale = want.iter().map(|v| v.to_f64().abs()).fold(0.0, f64::max).max(f64::MIN_POSITIVE);
    y.iter().zip(want).map(|(a, b)| (a.to_f64() - b.to_f64()).abs() / scale).fold(0.0, f64::max)
}

fn run<T: Scalar>(gpu: &Gpu, name: &str, class: &str, a: &CsrOwned<T, u32>) -> Result<(), String> {
    let a = a.view();
    let x: Vec<T> = (0..a.ncols()).map(|i| T::from_f64(((i * 7919) % 17) as f64 * 0.125 - 1.0)).collect();
    let mut want = vec![T::ZERO; a.nrows()];
    a.spmv(T::ONE, &x, T::ZERO, &mut want).map_err(|e| e.to_string())?;
    let y0 = vec![T::ZERO; a.nrows()];
    let bytes = (a.nrows() + 1 + a.nnz()) * 4 + (2 * a.nnz() + a.nrows()) * std::mem::size_of::<T>();
    let stream = read_gbs::<T>(gpu, bytes)?;
    let layout = spblas::gpu::csr5_layout(&a).map_err(|e| e.to_string())?;
    let c = Csr5Owned::from_csr_layout(&a, &layout).map_err(|e| e.to_string())?;
    let csr = gpu.upload_csr(&a, T::ONE, &x, T::ZERO, &y0)?;
    let csr5 = gpu.upload_csr5(&c.view(), T::ONE, &x, T::ZERO, &y0)?;
    let mut cells = Vec::new();
    let mut base = 0.0;
    let mut err = 0.0f64;
    for method in Method::ALL {
        let p = if method == Method::Csr5 { &csr5 } else { &csr };
        let push = p.params.push_constants();
        let steps = method.steps(&p.params, push.as_bytes());
        let ms = median_ms(gpu, p.set, &steps)?;
        err = err.max(max_rel_err(&gpu.read_y(p)?, &want));
        if method == Method::CsrScalar {
            base = ms;
        }
        let gbs = bytes as f64 / (ms * 1e6);
        cells.push(format!("{ms:8.3} {gbs:6.0} {:4.0}% {:5.2}x", 100.0 * gbs / stream, base / ms));
    }
    println!(
        "{name:<15} {class:<9} {:<4} {:>9} {:>2} | {:>5.0} | {} | {err:.1e}",
        T::NAME,
        a.nnz(),
        layout.sigma(),
        stream,
        cells.join(" | ")
    );
    gpu.free_problem(csr);
    gpu.free_problem(csr5);
    Ok(())
}

fn to_f32(a: &CsrOwned<f64, u32>) -> Result<CsrOwned<f32, u32>, String> {
    let v = a.view();
    let vals: Vec<f32> = v.vals().iter().map(|&x| x as f32).collect();
    CsrOwned::from_parts(v.nrows(), v.ncols(), v.row_ptr().to_vec(), v.col_idx().to_vec(), vals)
        .map_err(|e| e.to_string())
}

fn main() -> Result<(), String> {
    let scale = match std::env::args().nth(1).as_deref() {
        None | Some("full") => SuiteScale::Full,
        Some("small") => SuiteScale::Small,
        Some(o) => return Err(format!("unknown scale {o:?} (small or full)")),
    };
    let g32 = Gpu::new::<f32>()?;
    let g64 = Gpu::new::<f64>()?;
    println!(
        "spblas gpu: SpMV y = A x on {} (subgroup {}), {RUNS} runs, median",
        g32.name, g32.subgroup_size
    );
    println!("each method: ms, GB/s (thesis bytes), % of read_stream GB/s, speedup over CSR scalar\n");
    println!(
        "{:<15} {:<9} {:<4} {:>9} {:>2} | {:>5} | {:^27} | {:^27} | {:^27} | max err",
        "matrix", "class", "prec", "nnz", "s", "rd", "CSR scalar", "CSR vector", "CSR5"
    );
    for entry in suite_entries(scale) {
        let a: CsrOwned<f64, u32> = entry.generate().map_err(|e| e.to_string())?;
        run(&g32, entry.name, entry.class.name(), &to_f32(&a)?)?;
        run(&g64, entry.name, entry.class.name(), &a)?;
    }
    Ok(())
}
