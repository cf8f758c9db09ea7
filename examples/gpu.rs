//! The `gpu` feature's SpMV kernels on the built-in suite, through Vulkan (`ash`):
//! CSR scalar, CSR vector and CSR5 on the first Vulkan device, `f32` and `f64`, each
//! timed by GPU timestamps (median of 25 runs recorded in one command buffer), flushed
//! and warm, and checked against the CPU SpMV.
//!
//! ```text
//! cargo run --release --example gpu --features gpu,gen -- [small|full] [--flush MB] [--export DIR] [--only NAMES]
//! ```
//!
//! `--flush MB` (default 256): every flushed run starts after reading that many MB (a
//! few times the GPU's last-level cache), so the matrix comes from memory; the warm
//! runs follow each other with nothing between. `--export DIR` writes each matrix with
//! its `x` and CPU `y` (`DIR/NAME.bin`) and every timing as JSON lines
//! (`DIR/spblas.jsonl`), which `benches/gpu/cusparse.py` reads to time cuSPARSE on the
//! same matrices and print the ratio table (`benches/gpu/README.md`). `--only a,b` runs
//! only the suite matrices of those names.
//!
//! GB/s counts the thesis's SpMV bytes (8.4.2); the percentage divides it by the
//! device's read bandwidth measured in the same run (`read_stream` over 1 GiB). The last
//! column is CSR5 at other tile heights (the thesis's `sigma` sweep, Fig. 8.14), each
//! result checked too.

#[path = "../tests/vk/mod.rs"]
mod vk;

use std::io::Write;

use spblas::Exec;
use spblas::generate::{SuiteEntry, SuiteScale, suite_entries};
use spblas::gpu::Kernel;
use spblas::{Csr5Owned, CsrOwned, Scalar, SpMv};
use vk::{Gpu, Method, Problem, Step, steps};

const RUNS: usize = 25;

/// Reads of the flush buffer before each batch of timed runs (milliseconds of work).
const WARM_UP_FLUSHES: usize = 100;

/// Bytes the read-bandwidth probe streams: far beyond any GPU cache.
const STREAM_BYTES: usize = 1 << 30;

/// What a result is checked against: the CPU's `y = A x` in `f64`, and each row's bound
/// on the rounding error of any summation order, `(len + 3) * eps * sum |a_ij x_j|`.
struct Want {
    y: Vec<f64>,
    bound32: Vec<f64>,
    bound64: Vec<f64>,
}

/// The median duration in ms of `RUNS` repetitions of `steps`, each after a cache flush
/// (`flushed`) or straight after the one before.
fn median_ms(
    gpu: &Gpu,
    set: ash::vk::DescriptorSet,
    steps: &[Step<'_>],
    flushed: bool,
) -> Result<f64, String> {
    // The GPU's clocks drop while the host prepares the next matrix: warm them up with
    // flush reads and one untimed pass of the runs, then time the second pass.
    let mut all: Vec<Step<'_>> = (0..WARM_UP_FLUSHES).map(|_| Step::Flush).collect();
    for _ in 0..2 * RUNS {
        if flushed {
            all.push(Step::Flush);
        }
        all.push(Step::Timestamp);
        all.extend_from_slice(steps);
        all.push(Step::Barrier);
        all.push(Step::Timestamp);
    }
    let t = gpu.run(set, &all)?;
    let mut d: Vec<f64> = t.chunks_exact(2).skip(RUNS).map(|w| (w[1] - w[0]) / 1e6).collect();
    d.sort_by(f64::total_cmp);
    Ok(d[d.len() / 2])
}

/// The device's read bandwidth over `bytes` bytes (GB/s), by `read_stream`.
fn read_gbs<T: Scalar>(gpu: &Gpu, bytes: usize) -> Result<f64, String> {
    let s = gpu.stream::<T>(bytes as u64)?;
    let d = [Step::Dispatch { kernel: Kernel::ReadStream, groups: s.groups, push: &s.push }];
    let ms = median_ms(gpu, s.set, &d, true)?;
    gpu.free_stream(s);
    Ok(bytes as f64 / (ms * 1e6))
}

/// The largest error of `y` in units of its row's bound: at most 1 when correct.
fn err_in_bounds<T: Scalar>(y: &[T], want: &Want) -> f64 {
    let bound = if std::mem::size_of::<T>() == 4 { &want.bound32 } else { &want.bound64 };
    let e = y.iter().zip(&want.y).zip(bound).map(|((a, b), m)| {
        let d = (a.to_f64() - b).abs();
        if d == 0.0 { 0.0 } else { d / m }
    });
    e.fold(0.0, |m, v| if v.is_nan() || m.is_nan() { f64::NAN } else { m.max(v) })
}

/// One timed method on one matrix.
struct Cell {
    method: String,
    flushed: f64,
    warm: f64,
    err: f64,
}

/// Times `steps` on `p` flushed and warm and checks `y` after them.
fn time<T: Scalar>(
    gpu: &Gpu,
    p: &Problem<T>,
    steps: &[Step<'_>],
    want: &Want,
    method: String,
) -> Result<Cell, String> {
    let flushed = median_ms(gpu, p.set, steps, true)?;
    let warm = median_ms(gpu, p.set, steps, false)?;
    let err = err_in_bounds(&gpu.read_y(p)?, want);
    if err.is_nan() || err > 1.0 {
        return Err(format!("{method}: wrong result (error {err:.2} times its bound)"));
    }
    Ok(Cell { method, flushed, warm, err })
}

/// Everything measured on one matrix in one precision.
fn run<T: Scalar>(
    gpu: &Gpu,
    stream: f64,
    entry: &SuiteEntry,
    a: &CsrOwned<T, u32>,
    x: &[T],
    want: &Want,
    json: &mut Option<std::fs::File>,
) -> Result<(), String> {
    let (name, class) = (entry.name, entry.class.name());
    let a = a.view();
    let y0 = vec![T::ZERO; a.nrows()];
    let bytes = (a.nrows() + 1 + a.nnz()) * 4 + (2 * a.nnz() + a.nrows()) * std::mem::size_of::<T>();
    let layout = spblas::gpu::csr5_layout(&a).map_err(|e| e.to_string())?;
    let rule_sigma = layout.sigma();
    let mut cells = Vec::new();
    let csr = gpu.upload_csr(&a, T::ONE, x, T::ZERO, &y0)?;
    // Clocks up after the host's work on this matrix (about 0.1 s of reads).
    let warm_up: Vec<Step<'_>> = (0..20 * WARM_UP_FLUSHES).map(|_| Step::Flush).collect();
    gpu.run(csr.set, &warm_up)?;
    for method in [Method::CsrScalar, Method::CsrVector, Method::CsrStream] {
        let push = csr.params.push_constants();
        let s = steps(method, &csr.params, push.as_bytes());
        cells.push(time(gpu, &csr, &s, want, label(method).to_string())?);
    }
    // The vector kernel at other widths than the rule's.
    let rule_lanes = csr.params.lanes;
    for lanes in [2u32, 4, 8, 16, 32].into_iter().filter(|&l| l != rule_lanes) {
        let mut params = csr.params;
        params.lanes = lanes;
        let push = params.push_constants();
        let s = steps(Method::CsrVector, &params, push.as_bytes());
        cells.push(time(gpu, &csr, &s, want, format!("csr_vector_lanes{lanes}"))?);
    }
    gpu.free_problem(csr);
    // CSR5 at the rule's `sigma`, its passes alone, and the thesis's sweep (Fig. 8.14).
    let mut sigmas = vec![rule_sigma];
    sigmas.extend([4usize, 6, 7, 8, 12, 16].into_iter().filter(|&s| s != rule_sigma));
    for sigma in sigmas {
        let l = spblas::Csr5Layout::with_params(&a, spblas::gpu::OMEGA, sigma).map_err(|e| e.to_string())?;
        let c = Csr5Owned::from_csr_layout(&a, &l).map_err(|e| e.to_string())?;
        let p = gpu.upload_csr5(&c.view(), T::ONE, x, T::ZERO, &y0)?;
        let push = p.params.push_constants();
        let s = steps(Method::Csr5, &p.params, push.as_bytes());
        let name = if sigma == rule_sigma { "csr5".to_string() } else { format!("csr5_sigma{sigma}") };
        cells.push(time(gpu, &p, &s, want, name)?);
        if sigma == rule_sigma {
            // Each pass alone (their sum exceeds the whole: the whole overlaps two).
            for (kernel, label) in [
                (Kernel::Csr5Tiles, "pass_tiles"),
                (Kernel::Csr5Rows, "pass_rows"),
                (Kernel::Csr5Calibrate, "pass_calibrate"),
            ] {
                let d = [Step::Dispatch { kernel, groups: kernel.groups(&p.params), push: push.as_bytes() }];
                let (f, w) = (median_ms(gpu, p.set, &d, true)?, median_ms(gpu, p.set, &d, false)?);
                cells.push(Cell { method: label.to_string(), flushed: f, warm: w, err: 0.0 });
            }
        }
        gpu.free_problem(p);
    }
    let line = |c: &Cell| {
        let gbs = bytes as f64 / (c.flushed * 1e6);
        format!("{:8.4} {:8.4} {:4.0}%", c.flushed, c.warm, 100.0 * gbs / stream)
    };
    // What `Method::choose` takes: the time a user gets.
    let chose = label(Method::choose(&a));
    let plan = cells.iter().find(|c| c.method == chose).map(|c| (c.flushed, c.warm)).unwrap_or_default();
    cells.push(Cell { method: "plan".to_string(), flushed: plan.0, warm: plan.1, err: 0.0 });
    let is_main = |c: &&Cell| ["csr_scalar", "csr_vector", "csr_stream", "csr5"].contains(&c.method.as_str());
    let main: Vec<String> = cells.iter().filter(is_main).map(line).collect();
    let rest: Vec<String> =
        cells.iter().filter(|c| !is_main(c)).map(|c| format!("{}:{:.4}", c.method, c.flushed)).collect();
    println!(
        "{name:<15} {class:<9} {:<4} {:>9} {:>2} | {} | {}",
        T::NAME,
        a.nnz(),
        rule_sigma,
        main.join(" | "),
        rest.join(" ")
    );
    if let Some(f) = json {
        for c in &cells {
            let v = serde_json::json!({
                "matrix": name, "class": class, "prec": T::NAME, "nrows": a.nrows(), "ncols": a.ncols(),
                "nnz": a.nnz(), "bytes": bytes, "method": c.method, "sigma": rule_sigma,
                "flushed_ms": c.flushed, "warm_ms": c.warm, "err": c.err, "chose": chose,
            });
            writeln!(f, "{v}").map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// The name of a method in the output.
fn label(m: Method) -> &'static str {
    match m {
        Method::CsrScalar => "csr_scalar",
        Method::CsrVector => "csr_vector",
        Method::CsrStream => "csr_stream",
        Method::Csr5 => "csr5",
    }
}

fn to_f32(a: &CsrOwned<f64, u32>) -> Result<CsrOwned<f32, u32>, String> {
    let v = a.view();
    let vals: Vec<f32> = v.vals().iter().map(|&x| x as f32).collect();
    CsrOwned::from_parts(v.nrows(), v.ncols(), v.row_ptr().to_vec(), v.col_idx().to_vec(), vals)
        .map_err(|e| e.to_string())
}

/// `DIR/NAME.bin`: `nrows`, `ncols`, `nnz` (little-endian `u64`), `row_ptr`, `col_idx`
/// (`u32`), `vals`, `x`, the CPU's `y = A x` and `sum |a_ij x_j|` per row (`f64`).
fn export(
    dir: &std::path::Path,
    name: &str,
    a: &CsrOwned<f64, u32>,
    x: &[f64],
    want: &Want,
    abs: &[f64],
) -> Result<(), String> {
    let v = a.view();
    let mut out = Vec::new();
    for n in [v.nrows(), v.ncols(), v.nnz()] {
        out.extend_from_slice(&(n as u64).to_le_bytes());
    }
    out.extend_from_slice(bytemuck::cast_slice(v.row_ptr()));
    out.extend_from_slice(bytemuck::cast_slice(v.col_idx()));
    for s in [v.vals(), x, &want.y, abs] {
        out.extend_from_slice(bytemuck::cast_slice(s));
    }
    std::fs::write(dir.join(format!("{name}.bin")), out).map_err(|e| e.to_string())
}

fn main() -> Result<(), String> {
    let mut scale = SuiteScale::Full;
    let mut flush_mb: u64 = 256;
    let mut dir: Option<std::path::PathBuf> = None;
    let mut only: Option<Vec<String>> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "full" => scale = SuiteScale::Full,
            "small" => scale = SuiteScale::Small,
            "--flush" => {
                let v = args.next().ok_or("--flush needs MB")?;
                flush_mb = v.parse().map_err(|e| format!("--flush {v:?}: {e}"))?;
            }
            "--export" => dir = Some(args.next().ok_or("--export needs a folder")?.into()),
            "--only" => {
                let v = args.next().ok_or("--only needs matrix names")?;
                only = Some(v.split(',').map(str::to_string).collect());
            }
            o => {
                return Err(format!(
                    "unknown argument {o:?} (small|full, --flush MB, --export DIR, --only NAMES)"
                ));
            }
        }
    }
    let mut g32 = Gpu::new::<f32>()?;
    let mut g64 = Gpu::new::<f64>()?;
    g32.set_flush::<f32>(flush_mb << 20)?;
    g64.set_flush::<f64>(flush_mb << 20)?;
    let mut json = match &dir {
        Some(d) => {
            std::fs::create_dir_all(d).map_err(|e| e.to_string())?;
            Some(std::fs::File::create(d.join("spblas.jsonl")).map_err(|e| e.to_string())?)
        }
        None => None,
    };
    println!(
        "spblas gpu: SpMV y = A x on {} (subgroup {}), {RUNS} runs, median; flushed: after reading {flush_mb} MB",
        g32.name, g32.subgroup_size,
    );
    // The same memory through two modules: the better probe is the device's bandwidth
    // (single probes have come out up to 2.5x low on an H200).
    let (rd32, rd64) = (read_gbs::<f32>(&g32, STREAM_BYTES)?, read_gbs::<f64>(&g64, STREAM_BYTES)?);
    let read = rd32.max(rd64);
    println!(
        "read bandwidth (read_stream over {} MiB): {read:.0} GB/s (f32 module {rd32:.0}, f64 module {rd64:.0})",
        STREAM_BYTES >> 20
    );
    for (g, t) in [(&g32, "f32"), (&g64, "f64")] {
        for k in Kernel::ALL {
            let s: Vec<String> = g.statistics(k).iter().map(|(n, v)| format!("{n}={v}")).collect();
            if !s.is_empty() {
                println!("{t} {}: {}", k.entry_point(), s.join(", "));
            }
        }
    }
    if let Some(f) = &mut json {
        let v = serde_json::json!({
            "device": g32.name, "subgroup": g32.subgroup_size, "flush_mb": flush_mb, "runs": RUNS,
            "read_gbs": read, "read_gbs_f32": rd32, "read_gbs_f64": rd64,
        });
        writeln!(f, "{v}").map_err(|e| e.to_string())?;
    }
    println!("each method: flushed ms, warm ms, % of the read bandwidth (flushed)\n");
    println!(
        "{:<15} {:<9} {:<4} {:>9} {:>2} | {:^24} | {:^24} | {:^24} | {:^24} | others (flushed ms)",
        "matrix", "class", "prec", "nnz", "s", "CSR scalar", "CSR vector", "CSR stream", "CSR5"
    );
    let chosen = |name: &str| only.as_ref().is_none_or(|o| o.iter().any(|n| n == name));
    for entry in suite_entries(scale).iter().filter(|e| chosen(e.name)) {
        let a: CsrOwned<f64, u32> = entry.generate().map_err(|e| e.to_string())?;
        let x: Vec<f64> = (0..a.ncols()).map(|i| ((i * 7919) % 17) as f64 * 0.125 - 1.0).collect();
        let v = a.view();
        let mut y = vec![0.0; a.nrows()];
        v.spmv(Exec::new(), 1.0, &x, 0.0, &mut y).map_err(|e| e.to_string())?;
        let abs_a = CsrOwned::from_parts(
            v.nrows(),
            v.ncols(),
            v.row_ptr().to_vec(),
            v.col_idx().to_vec(),
            v.vals().iter().map(|t| t.abs()).collect(),
        )
        .map_err(|e| e.to_string())?;
        let abs_x: Vec<f64> = x.iter().map(|t| t.abs()).collect();
        let mut abs = vec![0.0; a.nrows()];
        abs_a.view().spmv(Exec::new(), 1.0, &abs_x, 0.0, &mut abs).map_err(|e| e.to_string())?;
        drop(abs_a);
        let bound = |eps: f64| -> Vec<f64> {
            let rp = v.row_ptr();
            (0..v.nrows()).map(|i| (f64::from(rp[i + 1] - rp[i]) + 3.0) * eps * abs[i]).collect()
        };
        let want = Want { bound32: bound(f64::from(f32::EPSILON)), bound64: bound(f64::EPSILON), y };
        if let Some(d) = &dir {
            export(d, entry.name, &a, &x, &want, &abs)?;
        }
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        run(&g32, read, entry, &to_f32(&a)?, &x32, &want, &mut json)?;
        run(&g64, read, entry, &a, &x, &want, &mut json)?;
    }
    Ok(())
}
