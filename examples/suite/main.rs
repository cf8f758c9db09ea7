//! The main job: SpMV per storage format and method, and SpGEMM `A²`, over the generated
//! benchmark suite (or your `.mtx` / `.mtx.gz` files), one thread, as tables.
//!
//! ```text
//! cargo run --release --example suite --features gen,mtx                 # quick: about a minute
//! cargo run --release --example suite --features gen,mtx -- --full       # thesis-scale matrices
//! cargo run --release --example suite --features gen,mtx -- --plot suite.svg --out suite.json
//! cargo run --release --example suite --features gen,mtx -- path/to/matrix.mtx.gz
//! ```
//!
//! `--help` lists the options; [`output::LEGEND`] explains every column (printed once at
//! the start of a run, and by `--help`).

#[path = "../../benches/common/matrix.rs"]
mod matrix;
mod measure;
mod output;

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use spblas::generate::{SuiteScale, suite_entries};
use spblas::level2::{
    CsrMethod, DenseMut, DenseRef, Diagonal, SpMm, SpmvConfig, SpmvPlan, Triangle, spmm_csr5, spmv_csr,
    spmv_csr_transpose, trsv,
};
use spblas::level3::{
    SpgemmConfig, add_numeric, add_symbolic, add_workspace_len, spgemm, spgemm_reuse, upper_bound,
};
use spblas::primitives::Key;
use spblas::primitives::scan::ScanElem;
use spblas::{
    CooOwned, Csr, Csr5, Csr5Layout, Csr5Owned, CsrOwned, Dia, DiaOwned, EllLayout, EllOwned, Exec, Gathers,
    HybOwned, Index, Isa, JdsOwned, Scalar, SellLayout, SellOwned, SpMv, Symmetric,
};

use spblas::formats::Csr5Aux;

use matrix::Input;
use measure::{Budget, SPGEMM_BLOCKS, SPMV_BLOCKS, median, median_pair, stream_gbs};
use output::{SpgemmRow, SpmvRow};

/// Formats whose padded storage would exceed this many slots per entry are skipped.
const MAX_FILL: f64 = 3.0;
/// SELL slice height in the table.
const SELL_HEIGHT: usize = 8;
/// The SpMV rows of each matrix, in table order.
const METHODS: [&str; 21] = [
    "csr row-scalar",
    "Csr::spmv",
    "SpmvPlan::new",
    "SpmvPlan::tune",
    "csr row-vector",
    "csr segsum",
    "csr speculative",
    "csr merge-path",
    "transpose (Aᵀx)",
    "spmm k=8",
    "csr5 spmm k=8",
    "symmetric lower",
    "trsv lower",
    "add A+Aᵀ",
    "csr5",
    "coo",
    "ell",
    "hyb",
    "jds",
    "sell-8",
    "dia",
];
/// The SpMV rows with `--isa all`: the methods with a kernel per SIMD width, on every
/// available `Isa`, after the row-scalar baseline (which has one kernel for all).
const WIDTH_METHODS: [&str; 6] =
    ["csr row-scalar", "Csr::spmv", "SpmvPlan::new", "csr row-vector", "csr5", "sell-8"];

/// What one run measures and where its results go (`--help`).
pub struct Args {
    files: Vec<PathBuf>,
    scale: SuiteScale,
    f32: bool,
    f64: bool,
    /// The SIMD paths to run: one, or every available one (`--isa all`).
    isas: Vec<Isa>,
    spmv: bool,
    spgemm: bool,
    /// Generated matrices to run (`--matrix NAME`, repeatable; empty: all).
    matrices: Vec<String>,
    out: Option<PathBuf>,
    plot: Option<PathBuf>,
    record: bool,
    /// The command line as given, for records.
    command: String,
}

impl Args {
    fn budget(&self) -> Budget {
        match self.scale {
            SuiteScale::Full => Budget { kernel: Duration::from_millis(300) },
            _ => Budget { kernel: Duration::from_millis(40) },
        }
    }

    /// `A²` is skipped when it has more candidate products than this (time and memory).
    fn spgemm_max_products(&self) -> usize {
        match self.scale {
            SuiteScale::Full => 250_000_000,
            _ => 50_000_000,
        }
    }

    /// The SpMV rows of each matrix and `Isa`.
    fn methods(&self) -> &'static [&'static str] {
        if self.isas.len() > 1 { &WIDTH_METHODS } else { &METHODS }
    }

    fn precisions(&self) -> Vec<&'static str> {
        [(self.f64, "f64"), (self.f32, "f32")].into_iter().filter(|p| p.0).map(|p| p.1).collect()
    }
}

const USAGE: &str = "\
usage: suite [OPTIONS] [FILE.mtx[.gz] ...]

SpMV per storage format and method, and SpGEMM A·A, on one thread, over the generated
benchmark suite or the Matrix Market files given.

  (default)        the quick suite: nine generated matrices of about 1M entries
  --full           the thesis-scale suite: 3.9M-10.3M entries per matrix (minutes)
  --small          tiny matrices (< 50K entries): a smoke test, cache-resident
  --only spmv|spgemm           one of the two tables
  --matrix NAME                a generated matrix by name (repeatable)
  --isa portable|avx2|avx512|neon|wasm128|all
                               the SIMD path (default: the best detected); `all` runs
                               the methods with a kernel per width on every path this
                               machine has, with their speedup over the portable path
  --precision f32|f64|both     value type (default f64)
  --gathers hardware|loads     CSR5 gathers (default: measured on this machine)
  --out FILE.json|FILE.csv     results as data (CSV: FILE-spmv.csv and FILE-spgemm.csv)
  --plot FILE.svg              the chart: GB/s per method and matrix, and the bound
                               (default: target/suite.svg)
  --record                     write benches/records/suite-DATE-CPU.md (machine, command, tables)
  -h, --help                   this text and the legend of the columns
";

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        files: Vec::new(),
        scale: SuiteScale::Quick,
        f32: false,
        f64: true,
        isas: vec![Isa::detect()],
        spmv: true,
        spgemm: true,
        matrices: Vec::new(),
        out: None,
        plot: None,
        record: false,
        command: std::env::args().skip(1).collect::<Vec<_>>().join(" "),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--full" => args.scale = SuiteScale::Full,
            "--small" => args.scale = SuiteScale::Small,
            "--precision" => match it.next().as_deref() {
                Some("f32") => (args.f32, args.f64) = (true, false),
                Some("f64") => (args.f32, args.f64) = (false, true),
                Some("both") => (args.f32, args.f64) = (true, true),
                other => return Err(format!("--precision takes f32, f64 or both, not {other:?}")),
            },
            "--isa" => {
                let name = it.next().unwrap_or_default();
                if name == "all" {
                    args.isas = Isa::available().collect();
                } else {
                    let isa = Isa::from_name(&name).ok_or(format!("unknown isa {name:?}"))?;
                    if !isa.is_available() {
                        return Err(format!("isa {name} is not available on this machine"));
                    }
                    args.isas = vec![isa];
                }
            }
            "--gathers" => match it.next().as_deref() {
                Some("hardware") => Gathers::set(Some(Gathers::Hardware)),
                Some("loads") => Gathers::set(Some(Gathers::Loads)),
                other => return Err(format!("--gathers takes hardware or loads, not {other:?}")),
            },
            "--only" => match it.next().as_deref() {
                Some("spmv") => (args.spmv, args.spgemm) = (true, false),
                Some("spgemm") => (args.spmv, args.spgemm) = (false, true),
                other => return Err(format!("--only takes spmv or spgemm, not {other:?}")),
            },
            "--matrix" => args.matrices.push(it.next().ok_or("--matrix takes a suite matrix name")?),
            "--out" => {
                let p = PathBuf::from(it.next().ok_or("--out takes a file name")?);
                match p.extension().and_then(|e| e.to_str()) {
                    Some("json" | "csv") => args.out = Some(p),
                    _ => return Err(format!("--out takes FILE.json or FILE.csv, not {}", p.display())),
                }
            }
            "--plot" => args.plot = Some(PathBuf::from(it.next().ok_or("--plot takes a file name")?)),
            "--record" => args.record = true,
            "-h" | "--help" => {
                println!("{USAGE}\n{}", output::LEGEND);
                std::process::exit(0);
            }
            f if !f.starts_with('-') => args.files.push(PathBuf::from(f)),
            f => return Err(format!("unknown option {f}")),
        }
    }
    let known: Vec<&str> = suite_entries(args.scale).iter().map(|e| e.name).collect();
    if let Some(m) = args.matrices.iter().find(|m| !known.contains(&m.as_str())) {
        return Err(format!("no generated matrix {m:?}; the suite has {}", known.join(", ")));
    }
    Ok(args)
}

/// A matrix loaded in one value type.
enum Matrix {
    F64(CsrOwned<f64, u32>),
    F32(CsrOwned<f32, u32>),
}

impl Matrix {
    fn load(input: &Input, prec: &str) -> Matrix {
        let loaded =
            if prec == "f32" { input.load().map(Matrix::F32) } else { input.load().map(Matrix::F64) };
        loaded.unwrap_or_else(|e| fail(&e))
    }

    /// [`csr_bytes`] of the matrix.
    fn bytes(&self) -> usize {
        match self {
            Matrix::F64(a) => csr_bytes::<f64, u32>(a.view().nrows(), a.view().nnz()),
            Matrix::F32(a) => csr_bytes::<f32, u32>(a.view().nrows(), a.view().nnz()),
        }
    }
}

/// The thesis's SpMV byte count (section 8.4.2).
fn csr_bytes<T: Scalar, I: Index>(m: usize, nnz: usize) -> usize {
    (m + 1 + nnz) * I::BYTES + (2 * nnz + m) * std::mem::size_of::<T>()
}

/// Largest |y - y_ref| relative to max |y_ref|.
fn rel_diff<T: Scalar>(y: &[T], y_ref: &[T]) -> f64 {
    let scale = y_ref.iter().fold(0.0f64, |m, v| m.max(v.to_f64().abs())).max(f64::MIN_POSITIVE);
    y.iter().zip(y_ref).fold(0.0f64, |m, (a, b)| m.max((a.to_f64() - b.to_f64()).abs())) / scale
}

/// The note of a result checked against the reference product.
fn check_note<T: Scalar>(y: &[T], y_ref: &[T], note: String) -> String {
    let d = rel_diff(y, y_ref);
    if d > 1e3 * T::EPSILON.to_f64() { format!("MISMATCH: rel diff {d:.2e}; {note}") } else { note }
}

/// What one SpMV row measured before it becomes a [`SpmvRow`].
struct Measured {
    /// Stored slots per entry.
    fill: f64,
    /// One-time cost (conversion, plan build, tuning).
    conv: Option<Duration>,
    /// The baseline's median timed alongside the conversion, when it was (CSR5).
    conv_base: Option<Duration>,
    time: Duration,
    x_base: f64,
    note: String,
}

impl Measured {
    /// A row with no fill or one-time cost: `t` and its speed-up over the baseline's `tb`.
    fn against(tb: Duration, t: Duration, note: String) -> Self {
        let x_base = tb.as_secs_f64() / t.as_secs_f64().max(1e-12);
        Measured { fill: 1.0, conv: None, conv_base: None, time: t, x_base, note }
    }
}

/// The SpMV rows of one matrix ([`METHODS`], in order); each is handed to `emit` as soon
/// as it is measured.
#[allow(clippy::too_many_arguments)]
fn spmv_rows<T: Scalar + ScanElem, I: Index + Key>(
    budget: Budget,
    isa: Isa,
    methods: &[&'static str],
    bound: f64,
    name: &str,
    a: &Csr<'_, T, I>,
    emit: &mut dyn FnMut(SpmvRow),
) {
    let (m, n, nnz) = (a.nrows(), a.ncols(), a.nnz());
    let exec = Exec::from(isa);
    let x: Vec<T> = (0..n).map(|j| T::from_f64(1.0 + (j % 7) as f64 * 0.125)).collect();
    let mut y_ref = vec![T::ZERO; m];
    a.spmv(exec, T::ONE, &x, T::ZERO, &mut y_ref).expect("dimensions checked");
    let mut y_base = vec![T::ZERO; m];
    let mut base = || {
        spmv_csr(exec, a, CsrMethod::RowScalar, T::ONE, black_box(&x), T::ZERO, &mut y_base)
            .expect("dimensions checked");
        black_box(&mut y_base);
    };
    let bytes = csr_bytes::<T, I>(m, nnz);
    let base_t = median(budget, &mut base);
    let nnz_f = nnz.max(1) as f64;
    let mut y = vec![T::ZERO; m];

    // Times `run` against the baseline after resetting `y` to NaN, checks `y`.
    let mut timed =
        |run: &mut dyn FnMut(&mut [T]), note: String, base: &mut dyn FnMut()| -> (Duration, f64, String) {
            y.fill(T::from_f64(f64::NAN));
            let (tb, t) = median_pair(budget, SPMV_BLOCKS, base, &mut || {
                run(&mut y);
                black_box(&mut y);
            });
            let note = check_note(&y, &y_ref, note);
            (t, tb.as_secs_f64() / t.as_secs_f64().max(1e-12), note)
        };

    for &method in methods {
        let measured: Result<Measured, String> = match method {
            "csr row-scalar" => Ok(Measured {
                fill: 1.0,
                conv: None,
                conv_base: None,
                time: base_t,
                x_base: 1.0,
                note: "the baseline".into(),
            }),
            "Csr::spmv" | "csr row-vector" | "csr segsum" | "csr speculative" | "csr merge-path" => {
                let (c, note) = match method {
                    "Csr::spmv" => {
                        let c = CsrMethod::choose(a, isa);
                        (c, format!("= {}", c.name()))
                    }
                    "csr row-vector" => (CsrMethod::RowVector, String::new()),
                    "csr segsum" => (CsrMethod::SegmentedSum, String::new()),
                    "csr speculative" => (CsrMethod::SpeculativeSegmentedSum, String::new()),
                    _ => (CsrMethod::MergePath, String::new()),
                };
                let default = method == "Csr::spmv";
                let mut run = |y: &mut [T]| {
                    if default {
                        a.spmv(exec, T::ONE, black_box(&x), T::ZERO, y).expect("dimensions checked");
                    } else {
                        spmv_csr(exec, a, c, T::ONE, black_box(&x), T::ZERO, y).expect("dimensions checked");
                    }
                };
                let (time, x_base, note) = timed(&mut run, note, &mut base);
                Ok(Measured { fill: 1.0, conv: None, conv_base: None, time, x_base, note })
            }
            "SpmvPlan::new" | "SpmvPlan::tune" => {
                let t0 = Instant::now();
                let plan = if method == "SpmvPlan::new" {
                    SpmvPlan::new(exec, a).map_err(|e| e.to_string())
                } else {
                    let mut y_tune = vec![T::ZERO; m];
                    SpmvPlan::tune(exec, a, SpmvConfig::new(), &x, &mut y_tune, 5).map_err(|e| e.to_string())
                };
                let conv = t0.elapsed();
                plan.map(|plan| {
                    let mut run = |y: &mut [T]| {
                        plan.spmv(Exec::new(), T::ONE, black_box(&x), T::ZERO, y)
                            .expect("dimensions checked");
                    };
                    let (time, x_base, note) = timed(&mut run, format!("= {}", plan.choice()), &mut base);
                    Measured { fill: 1.0, conv: Some(conv), conv_base: None, time, x_base, note }
                })
            }
            "transpose (Aᵀx)" => transposed(budget, exec, a, &mut base),
            "spmm k=8" => spmm8(budget, exec, a, false, &mut base),
            "csr5 spmm k=8" => spmm8(budget, exec, a, true, &mut base),
            "symmetric lower" => symmetric_lower(budget, exec, a, &mut base),
            "trsv lower" => lower_solve(budget, exec, a, &mut base),
            "add A+Aᵀ" => add_transpose(budget, exec, a, &mut base),
            "csr5" => csr5(budget, isa, a, &x, &mut base, &mut timed),
            _ => {
                // The other formats: fill first (skipped above MAX_FILL), then converted
                // (timed once) and measured.
                let fill = match method {
                    "ell" => EllLayout::new(a).map_or(f64::INFINITY, |l| l.len() as f64 / nnz_f),
                    "sell-8" => {
                        SellLayout::new(a, SELL_HEIGHT).map_or(f64::INFINITY, |l| l.len() as f64 / nnz_f)
                    }
                    "dia" => {
                        let mut scratch = vec![0isize; Dia::<T>::offsets_scratch_len(a)];
                        Dia::<T>::offsets_from_csr(a, &mut scratch)
                            .map_or(f64::INFINITY, |nd| (nd * m) as f64 / nnz_f)
                    }
                    _ => 1.0,
                };
                if fill > MAX_FILL {
                    Err(format!("skipped: fill > {MAX_FILL}"))
                } else {
                    let t0 = Instant::now();
                    // The owned format, moved into the closure that runs its SpMV.
                    let x = &x;
                    macro_rules! runner {
                        ($built:expr) => {
                            $built.map(|o| {
                                Box::new(move |y: &mut [T]| {
                                    o.view()
                                        .spmv(exec, T::ONE, black_box(&x), T::ZERO, y)
                                        .expect("dimensions checked")
                                }) as Box<dyn FnMut(&mut [T]) + '_>
                            })
                        };
                    }
                    let owned = match method {
                        "coo" => runner!(CooOwned::from_csr(a)),
                        "ell" => runner!(EllOwned::from_csr(a)),
                        "hyb" => runner!(HybOwned::from_csr(a)),
                        "jds" => runner!(JdsOwned::from_csr(a)),
                        "sell-8" => runner!(SellOwned::from_csr_slice_height(a, SELL_HEIGHT)),
                        _ => runner!(DiaOwned::from_csr(a)),
                    };
                    let conv = t0.elapsed();
                    owned.map_err(|e| e.to_string()).map(|mut run| {
                        let (time, x_base, note) = timed(&mut *run, String::new(), &mut base);
                        Measured { fill, conv: Some(conv), conv_base: None, time, x_base, note }
                    })
                }
            }
        };
        let mut row = SpmvRow {
            matrix: name.to_string(),
            prec: T::NAME,
            isa: isa.name(),
            rows: m,
            cols: n,
            nnz,
            method,
            fill: None,
            conv: None,
            time_us: None,
            gflops: None,
            gbs: None,
            bound_gbs: bound,
            x_base: None,
            x_portable: None,
            note: String::new(),
        };
        match measured {
            Ok(r) => {
                let s = r.time.as_secs_f64().max(1e-12);
                let base_s = r.conv_base.unwrap_or(base_t).as_secs_f64();
                row.fill = Some(r.fill);
                row.conv = r.conv.map(|c| c.as_secs_f64() / base_s);
                row.time_us = Some(s * 1e6);
                row.gflops = Some(2.0 * nnz as f64 / s / 1e9);
                row.gbs = Some(bytes as f64 / s / 1e9);
                row.x_base = Some(r.x_base);
                row.note = r.note;
            }
            Err(note) => row.note = note,
        }
        emit(row);
    }
}

/// The timing closure of [`spmv_rows`]: runs, times against the baseline, checks.
type Timed<'t, T> =
    dyn FnMut(&mut dyn FnMut(&mut [T]), String, &mut dyn FnMut()) -> (Duration, f64, String) + 't;

/// `y = Aᵀx` on the CSR matrix by [`spmv_csr_transpose`] (no copy of `Aᵀ`), timed against
/// the baseline `Ax` and checked against `Aᵀ` made by `Csr::transpose_into` times `x`.
fn transposed<T: Scalar, I: Index>(
    budget: Budget,
    exec: Exec,
    a: &Csr<'_, T, I>,
    base: &mut dyn FnMut(),
) -> Result<Measured, String> {
    let (m, n) = (a.nrows(), a.ncols());
    let xt: Vec<T> = (0..m).map(|i| T::from_f64(1.0 + (i % 7) as f64 * 0.125)).collect();
    let (np, nnz) = a.transpose_len();
    let (mut rp, mut ci, mut v) = (vec![I::ZERO; np], vec![I::ZERO; nnz], vec![T::ZERO; nnz]);
    let at = a.transpose_into(&mut rp, &mut ci, &mut v).map_err(|e| e.to_string())?;
    let mut y_ref = vec![T::ZERO; n];
    at.spmv(exec, T::ONE, &xt, T::ZERO, &mut y_ref).map_err(|e| e.to_string())?;
    let mut yt = vec![T::from_f64(f64::NAN); n];
    let (tb, t) = median_pair(budget, SPMV_BLOCKS, base, &mut || {
        spmv_csr_transpose(exec, a, T::ONE, black_box(&xt), T::ZERO, &mut yt).expect("dimensions checked");
        black_box(&mut yt);
    });
    let note = check_note(&yt, &y_ref, "rows scattered into y".into());
    Ok(Measured::against(tb, t, note))
}

/// Columns of the SpMM row's dense block.
const SPMM_K: usize = 8;

/// `Y = A·X` for a row-major `X` of [`SPMM_K`] columns, reading `A` once for all of them:
/// by CSR rows (`level2::spmm_csr`) or, with `csr5`, by the tiles of `A` converted to
/// CSR5 (`level2::spmm_csr5`); checked against one SpMV per column. The row's time is per
/// vector (the block's time over k), so `x rs` compares it with one SpMV of the baseline.
fn spmm8<T: Scalar, I: Index>(
    budget: Budget,
    exec: Exec,
    a: &Csr<'_, T, I>,
    csr5: bool,
    base: &mut dyn FnMut(),
) -> Result<Measured, String> {
    let (m, n, k) = (a.nrows(), a.ncols(), SPMM_K);
    let xd: Vec<T> = (0..n * k).map(|i| T::from_f64(1.0 + (i % 11) as f64 * 0.125)).collect();
    let x = DenseRef::row_major(n, k, &xd).map_err(|e| e.to_string())?;
    // The reference: column j of Y is A times column j of X.
    let mut y_ref = vec![T::ZERO; m * k];
    let (mut xj, mut yj) = (vec![T::ZERO; n], vec![T::ZERO; m]);
    for j in 0..k {
        xj.iter_mut().enumerate().for_each(|(r, v)| *v = xd[r * k + j]);
        a.spmv(exec, T::ONE, &xj, T::ZERO, &mut yj).map_err(|e| e.to_string())?;
        yj.iter().enumerate().for_each(|(r, v)| y_ref[r * k + j] = *v);
    }
    let c5 = if csr5 { Some(Csr5Owned::from_csr(exec, a).map_err(|e| e.to_string())?) } else { None };
    let mut yd = vec![T::from_f64(f64::NAN); m * k];
    let (tb, t) = median_pair(budget, SPMV_BLOCKS, base, &mut || {
        let mut y = DenseMut::row_major(m, k, &mut yd).expect("dimensions checked");
        match &c5 {
            Some(c5) => spmm_csr5(exec, &c5.view(), T::ONE, black_box(x), T::ZERO, &mut y),
            None => a.spmm(exec, T::ONE, black_box(x), T::ZERO, &mut y),
        }
        .expect("dimensions checked");
        black_box(&mut yd);
    });
    let t = t / k as u32;
    let note = check_note(&yd, &y_ref, format!("time per vector of k = {k}, row-major"));
    Ok(Measured::against(tb, t, note))
}

/// `y = S·x` for the symmetric `S` stored as the lower triangle of `A` (diagonal
/// included; `S = A` where `A` is symmetric, as the suite's stencils are), by
/// `Symmetric`'s SpMV (each stored entry read once for both positions), checked against
/// the SpMV of `S` in full CSR storage. GFlop/s and GB/s still count `A`'s nnz.
fn symmetric_lower<T: Scalar, I: Index>(
    budget: Budget,
    exec: Exec,
    a: &Csr<'_, T, I>,
    base: &mut dyn FnMut(),
) -> Result<Measured, String> {
    if a.nrows() != a.ncols() {
        return Err("skipped: not square".into());
    }
    let n = a.nrows();
    let lower =
        CsrOwned::<T, I>::from_triplets(n, n, &a.iter().filter(|&(i, j, _)| j <= i).collect::<Vec<_>>())
            .map_err(|e| e.to_string())?;
    let s = Symmetric::new(lower.view(), Triangle::Lower).map_err(|e| e.to_string())?;
    let mirrored: Vec<(usize, usize, T)> = lower
        .view()
        .iter()
        .flat_map(|(i, j, v)| [(i, j, v), (j, i, v)].into_iter().take(1 + usize::from(i != j)))
        .collect();
    let full = CsrOwned::<T, I>::from_triplets(n, n, &mirrored).map_err(|e| e.to_string())?;
    let x: Vec<T> = (0..n).map(|j| T::from_f64(1.0 + (j % 7) as f64 * 0.125)).collect();
    let mut y_ref = vec![T::ZERO; n];
    full.view().spmv(exec, T::ONE, &x, T::ZERO, &mut y_ref).map_err(|e| e.to_string())?;
    let mut y = vec![T::from_f64(f64::NAN); n];
    let (tb, t) = median_pair(budget, SPMV_BLOCKS, base, &mut || {
        s.spmv(exec, T::ONE, black_box(&x), T::ZERO, &mut y).expect("dimensions checked");
        black_box(&mut y);
    });
    let note = check_note(
        &y,
        &y_ref,
        format!("{} stored of {} in full storage", lower.view().nnz(), full.view().nnz()),
    );
    Ok(Measured::against(tb, t, note))
}

/// `C = A + Aᵀ` for a square `A`: the symbolic phase once (`level3::add_symbolic`), the
/// numeric phase (`level3::add_numeric`, the rows merged) timed into the same buffers,
/// checked by `C·x` against `A·x + Aᵀ·x`. `x rs` compares one sum with one SpMV of the
/// baseline.
fn add_transpose<T: Scalar + ScanElem, I: Index + Key>(
    budget: Budget,
    exec: Exec,
    a: &Csr<'_, T, I>,
    base: &mut dyn FnMut(),
) -> Result<Measured, String> {
    if a.nrows() != a.ncols() {
        return Err("skipped: not square".into());
    }
    let n = a.nrows();
    let (np, nnz) = a.transpose_len();
    let (mut rp, mut ci, mut v) = (vec![I::ZERO; np], vec![I::ZERO; nnz], vec![T::ZERO; nnz]);
    let at = a.transpose_into(&mut rp, &mut ci, &mut v).map_err(|e| e.to_string())?;
    let ws = add_workspace_len(exec, a, &at).map_err(|e| e.to_string())?;
    let (mut wi, mut wv) = (vec![I::ZERO; ws.idx], vec![T::ZERO; ws.vals]);
    let mut c_rp = vec![I::ZERO; n + 1];
    let c_nnz = add_symbolic(exec, a, &at, &mut c_rp, &mut wi).map_err(|e| e.to_string())?;
    let (mut c_ci, mut c_v) = (vec![I::ZERO; c_nnz], vec![T::ZERO; c_nnz]);
    let (tb, t) = median_pair(budget, SPMV_BLOCKS, base, &mut || {
        add_numeric(exec, T::ONE, a, T::ONE, &at, &c_rp, &mut c_ci, &mut c_v, (&mut wi, &mut wv))
            .expect("symbolic phase ran");
        black_box(&mut c_v);
    });
    let c = Csr::new(n, n, &c_rp, &c_ci, &c_v).map_err(|e| e.to_string())?;
    let x: Vec<T> = (0..n).map(|j| T::from_f64(1.0 + (j % 7) as f64 * 0.125)).collect();
    let (mut y, mut y_ref) = (vec![T::ZERO; n], vec![T::ZERO; n]);
    a.spmv(exec, T::ONE, &x, T::ZERO, &mut y_ref).map_err(|e| e.to_string())?;
    at.spmv(exec, T::ONE, &x, T::ONE, &mut y_ref).map_err(|e| e.to_string())?;
    c.spmv(exec, T::ONE, &x, T::ZERO, &mut y).map_err(|e| e.to_string())?;
    let note = check_note(&y, &y_ref, format!("nnz(C) = {c_nnz}, numeric phase; C·x against A·x + Aᵀ·x"));
    Ok(Measured::against(tb, t, note))
}

/// `L x = b` for `L` = the strictly lower part of the matrix plus a dominant diagonal
/// (`1 + Σ|l_ij|`, so every matrix has a well-conditioned solve), by `level2::trsv`'s
/// serial substitution, checked by its backward error. `x rs` compares it with the
/// baseline SpMV of the whole matrix.
fn lower_solve<T: Scalar, I: Index>(
    budget: Budget,
    exec: Exec,
    a: &Csr<'_, T, I>,
    base: &mut dyn FnMut(),
) -> Result<Measured, String> {
    if a.nrows() != a.ncols() {
        return Err("skipped: not square".into());
    }
    let m = a.nrows();
    let (mut rp, mut ci, mut v) = (vec![I::ZERO], Vec::new(), Vec::new());
    for i in 0..m {
        let (cols, vals) = a.row(i).ok_or("row out of range")?;
        let mut diag = 1.0f64;
        for (c, x) in cols.iter().zip(vals) {
            if c.to_usize() < i {
                ci.push(*c);
                v.push(*x);
                diag += x.to_f64().abs();
            }
        }
        ci.push(I::from_usize(i).ok_or("index")?);
        v.push(T::from_f64(diag));
        rp.push(I::from_usize(ci.len()).ok_or("index")?);
    }
    let l = Csr::new(m, m, &rp, &ci, &v).map_err(|e| e.to_string())?;
    let b: Vec<T> = (0..m).map(|i| T::from_f64(1.0 + (i % 7) as f64 * 0.125)).collect();
    let mut xs = b.clone();
    let (tb, t) = median_pair(budget, SPMV_BLOCKS, base, &mut || {
        xs.copy_from_slice(&b);
        trsv(exec, &l, Triangle::Lower, Diagonal::NonUnit, T::ONE, black_box(&mut xs))
            .expect("checked triangular");
    });
    let note = format!("nnz(L) = {}, serial substitution; backward error of x", l.nnz());
    let omega = backward_error(&l, &xs, &b);
    // A few units of rounding in practice; 100 catches a solution off by 1e-4 in `f32`.
    let note = if omega > 100.0 * T::EPSILON.to_f64() {
        format!("MISMATCH: backward error {omega:.2e}; {note}")
    } else {
        note
    };
    Ok(Measured::against(tb, t, note))
}

/// The componentwise backward error of a solution `x` of `L x = b`:
/// `max_i |L x - b|_i / (|L| |x| + |b|)_i`, in `f64` from the stored values, so that the
/// check adds no rounding of its own. Substitution is backward stable in this sense (each
/// row's error is a few units of `T`'s rounding relative to `|L| |x|`); a plain residual
/// against `max |b|` is not, and fails `f32` rows of thousands of entries whose terms
/// cancel.
fn backward_error<T: Scalar, I: Index>(l: &Csr<'_, T, I>, x: &[T], b: &[T]) -> f64 {
    (0..l.nrows()).fold(0.0f64, |w, i| {
        let (cols, vals) = l.row(i).unwrap_or((&[], &[]));
        let (mut r, mut s) = (-b[i].to_f64(), b[i].to_f64().abs());
        for (c, v) in cols.iter().zip(vals) {
            let p = v.to_f64() * x[c.to_usize()].to_f64();
            (r, s) = (r + p, s + p.abs());
        }
        if s > 0.0 { w.max(r.abs() / s) } else { w }
    })
}

/// CSR5 (thesis ch. 6): the conversion into preallocated buffers (allocation is the
/// caller's) timed in alternating blocks with the baseline, as the SpMV is, then the SpMV.
fn csr5<T: Scalar, I: Index>(
    budget: Budget,
    isa: Isa,
    a: &Csr<'_, T, I>,
    x: &[T],
    base: &mut dyn FnMut(),
    timed: &mut Timed<'_, T>,
) -> Result<Measured, String> {
    let layout = Csr5Layout::new(a, isa).map_err(|e| e.to_string())?;
    let mut col = vec![I::ZERO; layout.nnz()];
    let mut vals = vec![T::ZERO; layout.nnz()];
    let mut tp = vec![I::ZERO; layout.tile_ptr_len()];
    let mut td = vec![0u32; layout.tile_desc_len()];
    let mut ep = vec![I::ZERO; layout.tile_ptr_len()];
    let mut eo = vec![I::ZERO; layout.empty_offset_len()];
    let mut convert = || {
        let aux = Csr5Aux {
            tile_ptr: &mut tp,
            tile_desc: &mut td,
            empty_offset_ptr: &mut ep,
            empty_offset: &mut eo,
        };
        Csr5::from_csr(a, &layout, &mut col, &mut vals, aux).map(|_| ())
    };
    convert().map_err(|e| e.to_string())?;
    let (conv_base, conv) =
        median_pair(budget, SPMV_BLOCKS, base, &mut || convert().expect("converted once already"));
    let aux =
        Csr5Aux { tile_ptr: &mut tp, tile_desc: &mut td, empty_offset_ptr: &mut ep, empty_offset: &mut eo };
    let c5 = Csr5::from_csr(a, &layout, &mut col, &mut vals, aux).map_err(|e| e.to_string())?;
    let mut run = |y: &mut [T]| {
        c5.spmv(Exec::from(isa), T::ONE, black_box(x), T::ZERO, y).expect("dimensions checked");
    };
    let note = format!("omega {} sigma {}", layout.omega(), layout.sigma());
    let (time, x_base, note) = timed(&mut run, note, base);
    Ok(Measured { fill: 1.0, conv: Some(conv), conv_base: Some(conv_base), time, x_base, note })
}

/// The SpGEMM baseline: Gustavson's row-by-row product (thesis 9.3) with a dense
/// accumulator and a row-stamp marker, each row's columns sorted, into the given arrays
/// (cleared, their memory kept) — what SciPy and sprs do.
fn gustavson_into<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
    out: &mut (Vec<I>, Vec<I>, Vec<T>),
) {
    let (mut acc, mut mark) = (vec![T::ZERO; b.ncols()], vec![usize::MAX; b.ncols()]);
    let (row_ptr, col_idx, vals) = out;
    row_ptr.clear();
    col_idx.clear();
    vals.clear();
    let mut touched: Vec<usize> = Vec::new();
    row_ptr.push(I::ZERO);
    for i in 0..a.nrows() {
        touched.clear();
        let (ac, av) = a.row(i).expect("row in range");
        for (&k, &x) in ac.iter().zip(av) {
            let (bc, bv) = b.row(k.to_usize()).expect("inner dimensions checked");
            for (&j, &y) in bc.iter().zip(bv) {
                let j = j.to_usize();
                if mark[j] != i {
                    mark[j] = i;
                    acc[j] = x * y;
                    touched.push(j);
                } else {
                    acc[j] += x * y;
                }
            }
        }
        touched.sort_unstable();
        for &j in &touched {
            col_idx.push(I::from_usize(j).expect("column fits"));
            vals.push(acc[j]);
        }
        row_ptr.push(I::from_usize(col_idx.len()).expect("nnz fits"));
    }
}

/// The SpGEMM row of `A²`: `None` if `A` is not square.
fn spgemm_row<T: Scalar + ScanElem, I: Index + Key>(
    budget: Budget,
    isa: Isa,
    max_products: usize,
    name: &str,
    a: &Csr<'_, T, I>,
) -> Option<SpgemmRow> {
    if a.nrows() != a.ncols() {
        return None;
    }
    let (exec, cfg) = (Exec::from(isa), SpgemmConfig::new());
    let mut ub = vec![I::ZERO; a.nrows()];
    let products = upper_bound(a, a, &mut ub).expect("square");
    let mut row = SpgemmRow {
        matrix: name.to_string(),
        prec: T::NAME,
        isa: isa.name(),
        nnz_a: a.nnz(),
        products,
        nnz_c: None,
        time_ms: None,
        gflops: None,
        x_gustavson: None,
        warm_ms: None,
        x_gustavson_warm: None,
        mb: None,
        note: String::new(),
    };
    if products > max_products {
        row.note = format!("skipped: more than {max_products} products");
        return Some(row);
    }
    let mut c = CsrOwned::from_triplets(0, 0, &[]).expect("empty");
    let st = match spgemm_reuse(exec, cfg, a, a, &mut c) {
        Ok(st) => st,
        Err(e) => {
            row.note = e.to_string();
            return Some(row);
        }
    };
    let fresh = || (Vec::with_capacity(a.nrows() + 1), Vec::new(), Vec::new());
    let mut g = fresh();
    gustavson_into(a, a, &mut g);
    let cv = c.view();
    let agree = g.0 == cv.row_ptr() && g.1 == cv.col_idx();
    let diff = rel_diff(cv.vals(), &g.2);
    // Into fresh memory, as a user's first product.
    let (tb, t) = median_pair(
        budget,
        SPGEMM_BLOCKS,
        &mut || {
            let mut out = fresh();
            gustavson_into(black_box(a), a, &mut out);
            black_box(out);
        },
        &mut || {
            black_box(spgemm(exec, cfg, black_box(a), a).expect("checked"));
        },
    );
    // Both into the memory of their earlier products: the kernels alone.
    let mut cw = c.clone();
    let (tbw, tw) =
        median_pair(budget, SPGEMM_BLOCKS, &mut || gustavson_into(black_box(a), a, &mut g), &mut || {
            black_box(spgemm_reuse(exec, cfg, black_box(a), a, &mut cw).expect("checked"));
        });
    let ms = |t: Duration| t.as_secs_f64() * 1e3;
    row.nnz_c = Some(st.nnz_c);
    row.time_ms = Some(ms(t));
    row.gflops = Some(2.0 * products as f64 / t.as_secs_f64().max(1e-12) / 1e9);
    row.x_gustavson = Some(tb.as_secs_f64() / t.as_secs_f64().max(1e-12));
    row.warm_ms = Some(ms(tw));
    row.x_gustavson_warm = Some(tbw.as_secs_f64() / tw.as_secs_f64().max(1e-12));
    row.mb = Some(st.bytes_hybrid as f64 / (1 << 20) as f64);
    row.note = if !agree {
        "MISMATCH: pattern differs from Gustavson".into()
    } else if diff > 1e3 * T::EPSILON.to_f64() {
        format!("MISMATCH: rel diff {diff:.2e}")
    } else {
        String::new()
    };
    Some(row)
}

fn fail(msg: &str) -> ! {
    eprintln!("suite: {msg}");
    std::process::exit(1);
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("suite: {e}\n\n{USAGE}");
            std::process::exit(2);
        }
    };
    let inputs: Vec<Input> = if args.files.is_empty() {
        suite_entries(args.scale)
            .iter()
            .filter(|e| args.matrices.is_empty() || args.matrices.iter().any(|m| m == e.name))
            .map(Input::Generated)
            .collect()
    } else {
        args.files
            .iter()
            .map(|p| {
                let name = p.file_name().map_or("?".into(), |s| s.to_string_lossy().into_owned());
                Input::File { path: p.clone(), name }
            })
            .collect()
    };
    let precs = args.precisions();
    let (budget, max_products) = (args.budget(), args.spgemm_max_products());
    let methods = args.methods();
    let nisa = args.isas.len();
    let spmv_steps = if !args.spmv {
        0
    } else if nisa > 1 {
        1 + (methods.len() - 1) * nisa
    } else {
        methods.len()
    };
    let per_input = precs.len() * (spmv_steps + if args.spgemm { nisa } else { 0 });
    let pb = ProgressBar::new((inputs.len() * per_input) as u64);
    pb.set_style(
        ProgressStyle::with_template("{elapsed:>4} [{bar:30}] {pos}/{len} {msg}")
            .expect("a valid template")
            .progress_chars("=> "),
    );
    let machine = output::Machine::detect(&args.isas);
    let started = Instant::now();
    println!("{}", output::title(&args, &machine));
    println!("{}\n", output::LEGEND);

    let (mut spmv, mut spgemm_rows) = (Vec::new(), Vec::new());
    if args.spmv {
        pb.suspend(|| println!("SpMV y = A·x\n\n{}", output::spmv_header(nisa > 1)));
        for input in &inputs {
            let name = input.name();
            for &p in &precs {
                pb.set_message(format!("{name} {p}: loading"));
                let a = Matrix::load(input, p);
                pb.set_message(format!("SpMV {name} {p}"));
                let bound = stream_gbs(budget, a.bytes());
                // Each method's speedup over csr row-scalar on the portable path, for the
                // speedup per width (`--isa all`: the portable path runs first).
                let mut portable: Vec<(&str, f64)> = Vec::new();
                for (k, &isa) in args.isas.iter().enumerate() {
                    // The row-scalar baseline has one kernel for every width: its row once.
                    let methods = if k == 0 { methods } else { &methods[1..] };
                    let mut emit = |mut r: SpmvRow| {
                        if nisa > 1 {
                            if isa == Isa::Portable {
                                portable.extend(r.x_base.map(|x| (r.method, x)));
                            }
                            let on_portable = portable.iter().find(|q| q.0 == r.method).map(|q| q.1);
                            r.x_portable = r.x_base.zip(on_portable).map(|(x, q)| x / q);
                        }
                        pb.suspend(|| println!("{}", r.line(nisa > 1)));
                        pb.inc(1);
                        spmv.push(r);
                    };
                    match &a {
                        Matrix::F32(b) => spmv_rows(budget, isa, methods, bound, name, &b.view(), &mut emit),
                        Matrix::F64(b) => spmv_rows(budget, isa, methods, bound, name, &b.view(), &mut emit),
                    }
                }
            }
        }
    }
    if args.spgemm {
        pb.suspend(|| println!("\n{}\n\n{}", output::spgemm_title(max_products), output::spgemm_header()));
        for input in &inputs {
            let name = input.name();
            for &p in &precs {
                pb.set_message(format!("{name} {p}: loading"));
                let a = Matrix::load(input, p);
                pb.set_message(format!("SpGEMM {name} {p}"));
                for &isa in &args.isas {
                    let row = match &a {
                        Matrix::F32(b) => spgemm_row(budget, isa, max_products, name, &b.view()),
                        Matrix::F64(b) => spgemm_row(budget, isa, max_products, name, &b.view()),
                    };
                    if let Some(r) = row {
                        pb.suspend(|| println!("{}", r.line()));
                        spgemm_rows.push(r);
                    }
                    pb.inc(1);
                }
            }
        }
    }
    pb.finish_and_clear();
    println!("\n{}", output::summary(&spmv, &spgemm_rows, nisa > 1));
    let elapsed = started.elapsed();
    eprintln!("suite: measured in {:.0} s", elapsed.as_secs_f64());
    let results = output::Results {
        machine,
        command: args.command.clone(),
        widths: nisa > 1,
        seconds: elapsed.as_secs_f64(),
        spmv,
        spgemm: spgemm_rows,
    };
    if let Some(p) = &args.out {
        match results.write_data(p) {
            Ok(files) => eprintln!("suite: wrote {files}"),
            Err(e) => fail(&format!("{}: {e}", p.display())),
        }
    }
    // The chart: where `--plot` says, else beside the build (`target/suite.svg`).
    let plot = args.plot.clone().or_else(|| {
        let exe = std::env::current_exe().ok()?;
        Some(exe.ancestors().nth(3)?.join("suite.svg"))
    });
    if let Some(p) = plot.filter(|_| !results.spmv.is_empty()) {
        match results.plot(&p) {
            Ok(()) => eprintln!("suite: chart in {}", p.display()),
            Err(e) => fail(&format!("{}: {e}", p.display())),
        }
    }
    if args.record {
        match results.record(max_products) {
            Ok(p) => eprintln!("suite: wrote {}", p.display()),
            Err(e) => fail(&format!("record: {e}")),
        }
    }
    let wrong = results.spmv.iter().map(|r| &r.note).chain(results.spgemm.iter().map(|r| &r.note));
    let wrong = wrong.filter(|n| n.starts_with("MISMATCH")).count();
    if wrong > 0 {
        fail(&format!("{wrong} results differ from the reference (MISMATCH in the tables)"));
    }
}
