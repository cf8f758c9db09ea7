//! The `gpu` feature's SpMV kernels on the built-in suite, through Vulkan (`ash`):
//! CSR scalar, CSR vector and CSR5 on the first Vulkan device, `f32` and `f64`, each
//! timed by GPU timestamps (median of 25 runs recorded in one command buffer) and
//! checked against the CPU SpMV.
//!
//! ```text
//! cargo run --release --example gpu --features gpu,gen [-- small|full [FLUSH_MB]]
//! ```
//!
//! With `FLUSH_MB` > 0 every timed run starts after writing that many MB (pick a few
//! times the GPU's last-level cache: 192 for an H100's 50 MB L2), so matrices are read
//! from memory, not from a cache warmed by the run before.
//!
//! GB/s counts the thesis's SpMV bytes (8.4.2); the percentage divides it by the
//! device's read bandwidth measured in the same run (`read_stream` over 1 GiB), and the
//! last figure is the speedup over the CSR scalar kernel. The last column is CSR5's time
//! at other tile heights (the thesis's `sigma` sweep, Fig. 8.14); `cal ms` the CSR5
//! calibrator pass alone.

#[path = "../tests/vk/mod.rs"]
mod vk;

use spblas::Exec;
use spblas::generate::{SuiteScale, suite_entries};
use spblas::gpu::{Kernel, SpmvParams};
use spblas::{Csr5Owned, CsrOwned, Scalar, SpMv};
use vk::{Gpu, Method, Step};

const RUNS: usize = 25;

/// Bytes the read-bandwidth probe streams: far beyond any GPU cache.
const STREAM_BYTES: usize = 1 << 30;

/// The median duration in ms of `RUNS` repetitions of `steps`, each timed alone after
/// a cache flush (`Step::Flush`, when the run set a flush buffer).
fn median_ms(gpu: &Gpu, set: ash::vk::DescriptorSet, steps: &[Step<'_>]) -> Result<f64, String> {
    let mut all = Vec::new();
    for _ in 0..RUNS {
        all.push(Step::Flush);
        all.push(Step::Timestamp);
        for s in steps {
            all.push(match s {
                Step::Dispatch { kernel, groups, push } => {
                    Step::Dispatch { kernel: *kernel, groups: *groups, push }
                }
                Step::Barrier => Step::Barrier,
                Step::Timestamp => Step::Timestamp,
                Step::Flush => Step::Flush,
            });
        }
        all.push(Step::Barrier);
        all.push(Step::Timestamp);
    }
    let t = gpu.run(set, &all)?;
    let mut d: Vec<f64> = t.chunks_exact(2).map(|w| (w[1] - w[0]) / 1e6).collect();
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

fn run<T: Scalar>(
    gpu: &Gpu,
    stream: f64,
    name: &str,
    class: &str,
    a: &CsrOwned<T, u32>,
) -> Result<(), String> {
    let a = a.view();
    let x: Vec<T> = (0..a.ncols()).map(|i| T::from_f64(((i * 7919) % 17) as f64 * 0.125 - 1.0)).collect();
    let mut want = vec![T::ZERO; a.nrows()];
    a.spmv(Exec::new(), T::ONE, &x, T::ZERO, &mut want).map_err(|e| e.to_string())?;
    let y0 = vec![T::ZERO; a.nrows()];
    let bytes = (a.nrows() + 1 + a.nnz()) * 4 + (2 * a.nnz() + a.nrows()) * std::mem::size_of::<T>();
    let layout = spblas::gpu::csr5_layout(&a).map_err(|e| e.to_string())?;
    let c = Csr5Owned::from_csr_layout(&a, &layout).map_err(|e| e.to_string())?;
    let csr = gpu.upload_csr(&a, T::ONE, &x, T::ZERO, &y0)?;
    let csr5 = gpu.upload_csr5(&c.view(), T::ONE, &x, T::ZERO, &y0)?;
    // The thesis's sigma sweep (Fig. 8.14): CSR5 at other tile heights, against the rule's.
    let mut sweep = Vec::new();
    for sigma in [4usize, 6, 8, 12, 16] {
        let l = spblas::Csr5Layout::with_params(&a, spblas::gpu::OMEGA, sigma).map_err(|e| e.to_string())?;
        let c = Csr5Owned::from_csr_layout(&a, &l).map_err(|e| e.to_string())?;
        let p = gpu.upload_csr5(&c.view(), T::ONE, &x, T::ZERO, &y0)?;
        let push = p.params.push_constants();
        let ms = median_ms(gpu, p.set, &Method::Csr5.steps(&p.params, push.as_bytes()))?;
        gpu.free_problem(p);
        sweep.push(format!("{sigma}:{ms:.3}"));
    }
    let mut cells = Vec::new();
    let mut base = 0.0;
    let mut err = 0.0f64;
    let mut calibrate = 0.0;
    for method in Method::ALL {
        let p = if method == Method::Csr5 { &csr5 } else { &csr };
        let push = p.params.push_constants();
        let steps = method.steps(&p.params, push.as_bytes());
        let ms = median_ms(gpu, p.set, &steps)?;
        err = err.max(max_rel_err(&gpu.read_y(p)?, &want));
        if method == Method::Csr5 {
            // The calibrator alone (it adds into `y`, whose check is done).
            let d = Step::Dispatch {
                kernel: Kernel::Csr5Calibrate,
                groups: Kernel::Csr5Calibrate.groups(&p.params),
                push: push.as_bytes(),
            };
            calibrate = median_ms(gpu, p.set, &[d])?;
        }
        if method == Method::CsrScalar {
            base = ms;
        }
        let gbs = bytes as f64 / (ms * 1e6);
        cells.push(format!("{ms:8.3} {gbs:6.0} {:4.0}% {:5.2}x", 100.0 * gbs / stream, base / ms));
    }
    println!(
        "{name:<15} {class:<9} {:<4} {:>9} {:>2} | {} | {calibrate:6.3} | {err:.1e} | {}",
        T::NAME,
        a.nnz(),
        layout.sigma(),
        cells.join(" | "),
        sweep.join(" ")
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
    let args: Vec<String> = std::env::args().skip(1).collect();
    let scale = match args.first().map(String::as_str) {
        None | Some("full") => SuiteScale::Full,
        Some("small") => SuiteScale::Small,
        Some(o) => return Err(format!("unknown scale {o:?} (small or full)")),
    };
    let flush_mb: u64 = match args.get(1) {
        None => 0,
        Some(v) => v.parse().map_err(|e| format!("flush MB {v:?}: {e}"))?,
    };
    let mut g32 = Gpu::new::<f32>()?;
    let mut g64 = Gpu::new::<f64>()?;
    g32.set_flush(flush_mb << 20)?;
    g64.set_flush(flush_mb << 20)?;
    println!(
        "spblas gpu: SpMV y = A x on {} (subgroup {}), {RUNS} runs, median; caches flushed before each run: {}",
        g32.name,
        g32.subgroup_size,
        if flush_mb > 0 { format!("yes ({flush_mb} MB written)") } else { "no".to_string() }
    );
    let (rd32, rd64) = (read_gbs::<f32>(&g32, STREAM_BYTES)?, read_gbs::<f64>(&g64, STREAM_BYTES)?);
    println!(
        "read bandwidth (read_stream over {} MiB): f32 {rd32:.0} GB/s, f64 {rd64:.0} GB/s",
        STREAM_BYTES >> 20
    );
    println!("each method: ms, GB/s (thesis bytes), % of that read bandwidth, speedup over CSR scalar\n");
    println!(
        "{:<15} {:<9} {:<4} {:>9} {:>2} | {:^27} | {:^27} | {:^27} | cal ms | max err | CSR5 ms by sigma",
        "matrix", "class", "prec", "nnz", "s", "CSR scalar", "CSR vector", "CSR5"
    );
    for entry in suite_entries(scale) {
        let a: CsrOwned<f64, u32> = entry.generate().map_err(|e| e.to_string())?;
        run(&g32, rd32, entry.name, entry.class.name(), &to_f32(&a)?)?;
        run(&g64, rd64, entry.name, entry.class.name(), &a)?;
    }
    Ok(())
}
