//! The main job: every format's SpMV over the generated benchmark suite (or `.mtx` /
//! `.mtx.gz` files given as arguments), printed as one table.
//!
//! ```text
//! cargo run --release --example suite --features gen,mtx
//! cargo run --release --example suite --features gen,mtx -- --small --precision both
//! cargo run --release --example suite --features gen,mtx -- path/to/matrix.mtx.gz
//! cargo run --release --example suite --features gen,mtx -- --only spgemm --matrix banded
//! ```
//!
//! Columns: GFlop/s = 2 nnz / t; GB/s by the thesis byte formula (section 8.4.2):
//! `((m + 1 + nnz) * sizeof(idx) + (2 nnz + m) * sizeof(val)) / t`, the same CSR byte
//! count for every format so the column compares formats on one scale; `%stream` is that
//! GB/s over the best of three streaming kernels (one-stream read, four-stream read, copy)
//! over the same number of bytes, measured in the same run (the machine's achievable
//! bandwidth for this working set); `fill` = stored slots / nnz; `x base` = speedup over
//! the row-scalar CSR loop (thesis Alg. 28), the two timed in alternating blocks in the
//! same run, each block warmed up with its own arrays (the suite matrices are 47–120 MB,
//! so on a core with a large L3 they partly stay cached, as in an iterative solver, and
//! so does the stream reference); `conv` = CSR-to-format conversion time in units of
//! that baseline's SpMV (for CSR5 into preallocated buffers, timed in alternating
//! blocks with the baseline as the SpMVs are; the note adds `in place
//! conv`, `Csr5Owned::from_csr_owned` transposing an owned matrix's own arrays, the
//! thesis's way, allocation of the small tile arrays included). Times are medians.
//!
//! A second table, SpGEMM (thesis chapter 9), squares every square matrix whose `A²` has
//! at most [`SPGEMM_MAX_PRODUCTS`] candidate products: `level3::spgemm` (hybrid
//! allocation, per-bin rule) against a plain Gustavson loop with a dense accumulator
//! (what SciPy/sprs do), timed alternately; GFlop/s = `2 nnz(Ĉ) / t` (one multiply-add
//! per candidate product); `C/Ĉ` = `nnz(C) / nnz(Ĉ)`; the bytes the hybrid allocation
//! took against the precise (symbolic + numeric) method's exact arrays; and the precise
//! path's stages, each timed on its own: upper bound, binning, symbolic, numeric (the
//! last two each redo the first two inside).

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use spblas::Csr5Owned;
use spblas::Exec;
use spblas::TUNING;
use spblas::generate::{SuiteScale, suite_entries};
use spblas::io::read_mtx_path;
use spblas::level2::{CsrMethod, SpmvChoice, SpmvConfig, SpmvPlan, spmv_csr};
use spblas::level3::{
    Bin, NBINS, SpgemmConfig, bin_rows, spgemm, spgemm_numeric, spgemm_numeric_rows, spgemm_reuse,
    spgemm_symbolic, spgemm_workspace_len, upper_bound,
};
use spblas::primitives::Key;
use spblas::primitives::scan::ScanElem;
use spblas::{
    CooOwned, Csr, Csr5, Csr5Layout, CsrOwned, Dia, DiaOwned, EllLayout, EllOwned, Gathers, HybOwned, Index,
    Isa, JdsOwned, Scalar, SellLayout, SellOwned, SpMv,
};

/// Formats whose padded storage would exceed this many slots per entry are skipped.
const MAX_FILL: f64 = 3.0;
/// Minimum measuring time per kernel, and repetition bounds.
const MIN_TIME: Duration = Duration::from_millis(300);
const MIN_REPS: usize = 5;
const MAX_REPS: usize = 200;
/// SELL slice height used in the table.
const SELL_HEIGHT: usize = 8;
/// `A²` is skipped when it has more candidate products than this (time and memory).
const SPGEMM_MAX_PRODUCTS: usize = 250_000_000;

struct Args {
    files: Vec<PathBuf>,
    scale: SuiteScale,
    f32: bool,
    f64: bool,
    isa: Isa,
    sigma: Option<usize>,
    /// The SpMV table / the SpGEMM table (`--only` picks one).
    spmv: bool,
    spgemm: bool,
    /// Generated matrices to run (`--matrix NAME`, repeatable; empty: all).
    matrices: Vec<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        files: Vec::new(),
        scale: SuiteScale::Full,
        f32: false,
        f64: true,
        isa: Isa::detect(),
        sigma: None,
        spmv: true,
        spgemm: true,
        matrices: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--small" => args.scale = SuiteScale::Small,
            "--precision" => match it.next().as_deref() {
                Some("f32") => (args.f32, args.f64) = (true, false),
                Some("f64") => (args.f32, args.f64) = (false, true),
                Some("both") => (args.f32, args.f64) = (true, true),
                other => return Err(format!("--precision takes f32, f64 or both, not {other:?}")),
            },
            "--isa" => {
                let name = it.next().unwrap_or_default();
                args.isa = Isa::from_name(&name).ok_or(format!("unknown isa {name:?}"))?;
                if !args.isa.is_available() {
                    return Err(format!("isa {name} is not available on this machine"));
                }
            }
            "--sigma" => {
                let v = it.next().unwrap_or_default();
                args.sigma = Some(v.parse().map_err(|_| format!("--sigma takes a number, not {v:?}"))?);
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
            "-h" | "--help" => {
                println!(
                    "usage: suite [--small] [--precision f32|f64|both] [--isa portable|avx2|avx512|neon] [--sigma N] [--gathers hardware|loads] [--only spmv|spgemm] [--matrix NAME ...] [FILE.mtx[.gz] ...]"
                );
                std::process::exit(0);
            }
            f if !f.starts_with('-') => args.files.push(PathBuf::from(f)),
            f => return Err(format!("unknown option {f}")),
        }
    }
    Ok(args)
}

/// Median time of `f` over enough repetitions to fill [`MIN_TIME`].
fn median_time(mut f: impl FnMut()) -> Duration {
    f(); // warm up caches and page in the buffers
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < MIN_REPS || (start.elapsed() < MIN_TIME && times.len() < MAX_REPS) {
        let t = Instant::now();
        f();
        times.push(t.elapsed());
    }
    times.sort();
    times[times.len() / 2]
}

/// The thesis's SpMV byte count (section 8.4.2).
fn csr_bytes<T: Scalar, I: Index>(m: usize, nnz: usize) -> usize {
    (m + 1 + nnz) * I::BYTES + (2 * nnz + m) * std::mem::size_of::<T>()
}

/// The machine's achievable single-thread bandwidth for a working set of `bytes` bytes:
/// the best of a one-stream read (a sum the compiler cannot drop), a four-stream read
/// (SpMV reads several arrays at once, and a single stream leaves prefetchers idle on
/// some server cores) and a copy counted as bytes read plus written.
fn stream_gbs(bytes: usize) -> f64 {
    let n = (bytes / 8).max(64) / 32 * 32;
    let buf: Vec<u64> = (0..n as u64).collect();
    let gbs = |t: Duration, b: usize| b as f64 / t.as_secs_f64() / 1e9;
    let one = median_time(|| {
        // Eight independent accumulators: bound by the loads, not by an add chain.
        let mut acc = [0u64; 8];
        for c in buf.chunks_exact(8) {
            for (a, &b) in acc.iter_mut().zip(c) {
                *a = a.wrapping_add(b);
            }
        }
        black_box(acc);
    });
    let four = median_time(|| {
        let q = n / 4;
        let (p0, rest) = buf.split_at(q);
        let (p1, rest) = rest.split_at(q);
        let (p2, p3) = rest.split_at(q);
        let mut acc = [[0u64; 8]; 4];
        for (((c0, c1), c2), c3) in
            p0.chunks_exact(8).zip(p1.chunks_exact(8)).zip(p2.chunks_exact(8)).zip(p3.chunks_exact(8))
        {
            for (k, c) in [c0, c1, c2, c3].into_iter().enumerate() {
                for (a, &b) in acc[k].iter_mut().zip(c) {
                    *a = a.wrapping_add(b);
                }
            }
        }
        black_box(acc);
    });
    let (src, _) = buf.split_at(n / 2);
    let mut dst = vec![0u64; n / 2];
    let copy = median_time(|| {
        dst.copy_from_slice(black_box(src));
        black_box(&mut dst);
    });
    gbs(one, n * 8).max(gbs(four, n * 8)).max(gbs(copy, n * 8))
}

struct Row {
    format: &'static str,
    fill: f64,
    conv: Option<Duration>,
    /// CSR5 only: the baseline's median timed in alternating blocks with the conversion
    /// ([`median_pair`]), which `conv` is then counted in instead of the baseline's own
    /// median.
    conv_base: Option<Duration>,
    /// CSR5 only: the in-place conversion (the thesis's way, 6.3.1), median.
    conv_in_place: Option<Duration>,
    /// The kernel's median time.
    spmv: Option<Duration>,
    /// Speedup over the baseline (row-scalar CSR), the two timed in alternating blocks.
    ratio: Option<f64>,
    note: String,
}

/// The speedup of `f` over `base` and `f`'s median time, both from [`median_pair`].
fn ratio_and_time(base: &mut dyn FnMut(), f: &mut dyn FnMut()) -> (f64, Duration) {
    let (tb, tf) = median_pair(base, f);
    (tb.as_secs_f64() / tf.as_secs_f64().max(1e-12), tf)
}

/// Untimed warm-up runs, then timed runs, per block of [`median_pair`].
const PAIR_WARM: usize = 4;
const PAIR_BLOCK: usize = 4;

/// Median times of `base` and `f`, run in alternating blocks ([`PAIR_WARM`] untimed warm-up runs,
/// then [`PAIR_BLOCK`] timed ones, of `base`, then of `f`, ..) so that both see the same machine
/// state: on a shared, noisy machine the ratio of the two medians is far steadier than either time
/// alone. Blocks, not single runs: alternating run by run keeps both kernels' arrays in the caches
/// at once, and a format with arrays of its own (CSR5, ELL, ..) then finds less of them cached than
/// the CSR methods that share the baseline's, while the baseline finds less of *its* arrays cached
/// next to it. On the suite's 47–120 MB matrices and a large L3 that skewed both ways: CSR5 on
/// `dense` read as 1.7x slower than row-vector CSR in time and faster than it against the baseline.
/// The warm-up is several runs because a last-level cache does not give way to a new working set at
/// once: after a CSR5 block, the row-scalar loop on `dense` took five runs to come back from 5.8 to
/// 2.7 ms (dev VM).
fn median_pair(base: &mut dyn FnMut(), f: &mut dyn FnMut()) -> (Duration, Duration) {
    let (mut tb, mut tf) = (Vec::new(), Vec::new());
    let start = Instant::now();
    let block = |g: &mut dyn FnMut(), out: &mut Vec<Duration>| {
        for _ in 0..PAIR_WARM {
            g();
        }
        for _ in 0..PAIR_BLOCK {
            let t = Instant::now();
            g();
            out.push(t.elapsed());
        }
    };
    while tb.len() < MIN_REPS || (start.elapsed() < 2 * MIN_TIME && tb.len() < MAX_REPS) {
        block(base, &mut tb);
        block(f, &mut tf);
    }
    tb.sort();
    tf.sort();
    (tb[tb.len() / 2], tf[tf.len() / 2])
}

/// Times `a`'s SpMV into `y` ([`ratio_and_time`]).
fn measure<T: Scalar>(
    a: &dyn SpMv<T>,
    isa: Isa,
    x: &[T],
    y: &mut [T],
    base: &mut dyn FnMut(),
) -> (f64, Duration) {
    ratio_and_time(base, &mut || {
        a.spmv(Exec::from(isa), T::ONE, black_box(x), T::ZERO, y).expect("dimensions checked");
        black_box(&mut *y);
    })
}

/// Largest |y - y_ref| relative to max |y_ref|.
fn rel_diff<T: Scalar>(y: &[T], y_ref: &[T]) -> f64 {
    let scale = y_ref.iter().fold(0.0f64, |m, v| m.max(v.to_f64().abs())).max(f64::MIN_POSITIVE);
    y.iter().zip(y_ref).fold(0.0f64, |m, (a, b)| m.max((a.to_f64() - b.to_f64()).abs())) / scale
}

/// CSR5 (thesis ch. 6): conversion into preallocated buffers (the thesis's steps 2–4;
/// allocation is the caller's) timed against the baseline, then the SpMV checked and
/// timed.
fn csr5_row<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    isa: Isa,
    sigma: Option<usize>,
    x: &[T],
    y_ref: &[T],
    base: &mut dyn FnMut(),
) -> Result<Row, spblas::FormatError> {
    let layout = match sigma {
        Some(s) => Csr5Layout::with_params(a, spblas::formats::csr5::omega_for::<T>(isa), s)?,
        None => Csr5Layout::new(a, isa)?,
    };
    let mut col = vec![I::ZERO; layout.nnz()];
    let mut vals = vec![T::ZERO; layout.nnz()];
    let mut tp = vec![I::ZERO; layout.tile_ptr_len()];
    let mut td = vec![0u32; layout.tile_desc_len()];
    let mut ep = vec![I::ZERO; layout.tile_ptr_len()];
    let mut eo = vec![I::ZERO; layout.empty_offset_len()];
    let mut convert = || {
        let aux = spblas::formats::Csr5Aux {
            tile_ptr: &mut tp,
            tile_desc: &mut td,
            empty_offset_ptr: &mut ep,
            empty_offset: &mut eo,
        };
        Csr5::from_csr(a, &layout, &mut col, &mut vals, aux).map(|_| ())
    };
    convert()?;
    // In alternating blocks with the baseline, as the SpMV speedups are: the conversion
    // and the SpMV both run at the memory's pace, so their ratio is steadier than
    // either time alone (the two timed apart, `block_diagonal` f32 read 1.6–2.7 SpMVs in
    // four runs of the dev VM).
    let (conv_base, conv) = median_pair(base, &mut || convert().expect("converted once already"));
    // In place (the thesis's way): `Csr5Owned::from_csr_owned` on a fresh copy of the
    // matrix each time (the copy is not timed), with this `Isa`'s own layout.
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < MIN_REPS || (start.elapsed() < MIN_TIME && times.len() < MAX_REPS) {
        let owned = CsrOwned::from_csr(a)?;
        let t0 = Instant::now();
        let c5 = Csr5Owned::from_csr_owned(Exec::from(isa), owned).map_err(|(e, _)| e)?;
        times.push(t0.elapsed());
        black_box(&c5);
    }
    times.sort();
    let in_place = times[times.len() / 2];
    let aux = spblas::formats::Csr5Aux {
        tile_ptr: &mut tp,
        tile_desc: &mut td,
        empty_offset_ptr: &mut ep,
        empty_offset: &mut eo,
    };
    let c5 = Csr5::from_csr(a, &layout, &mut col, &mut vals, aux)?;
    let mut y = vec![T::from_f64(f64::NAN); a.nrows()];
    let (ratio, t) = measure(&c5, isa, x, &mut y, base);
    let d = rel_diff(&y, y_ref);
    let mut note = format!(
        "omega {} sigma {}, +{:.1}% bytes",
        layout.omega(),
        layout.sigma(),
        100.0 * layout.extra_bytes::<I>() as f64 / csr_bytes::<T, I>(a.nrows(), a.nnz()).max(1) as f64
    );
    if d > 1e3 * T::EPSILON.to_f64() {
        note = format!("MISMATCH: rel diff {d:.2e}; {note}");
    }
    Ok(Row {
        format: "csr5",
        fill: 1.0,
        conv: Some(conv),
        conv_base: Some(conv_base),
        conv_in_place: Some(in_place),
        spmv: Some(t),
        ratio: Some(ratio),
        note,
    })
}

fn run_matrix<T: Scalar, I: Index>(
    name: &str,
    class: &str,
    a: &Csr<'_, T, I>,
    isa: Isa,
    sigma: Option<usize>,
) {
    let (m, n, nnz) = (a.nrows(), a.ncols(), a.nnz());
    let x: Vec<T> = (0..n).map(|j| T::from_f64(1.0 + (j % 7) as f64 * 0.125)).collect();
    let mut y_ref = vec![T::ZERO; m];
    // The same-run baseline: the row-scalar CSR loop (thesis Alg. 28).
    let mut y_base = vec![T::ZERO; m];
    let mut base = || {
        spmv_csr(Exec::from(isa), a, CsrMethod::RowScalar, T::ONE, black_box(&x), T::ZERO, &mut y_base)
            .expect("dimensions checked");
        black_box(&mut y_base);
    };
    a.spmv(Exec::from(isa), T::ONE, &x, T::ZERO, &mut y_ref).expect("dimensions checked");
    let csr_t = median_time(&mut base);
    let bytes = csr_bytes::<T, I>(m, nnz);
    let stream = stream_gbs(bytes);
    let mut rows = vec![Row {
        conv_in_place: None,
        conv_base: None,
        format: "csr",
        fill: 1.0,
        conv: Some(Duration::ZERO),
        spmv: Some(csr_t),
        ratio: Some(1.0),
        note: "row-scalar (the baseline)".into(),
    }];
    // The conversion-free CSR methods (thesis ch. 8), each against the baseline; `csr
    // auto` is what `SpMv for Csr` picks (`CsrMethod::choose`), `csr tuned` what
    // `CsrMethod::tune` picks by timing on this machine.
    // Tuned with 5 timed rounds.
    let auto = CsrMethod::choose(a, isa);
    let mut y_tune = vec![T::ZERO; m];
    let tuned = CsrMethod::tune(Exec::from(isa), a, &x, &mut y_tune, 5).expect("dimensions checked");
    let runs = CsrMethod::ALL.into_iter().skip(1).map(|c| (Some(c), c)).chain([(None, auto), (None, tuned)]);
    for (k, (method, m_used)) in runs.enumerate() {
        let is_tuned = k == CsrMethod::ALL.len();
        let mut y = vec![T::from_f64(f64::NAN); m];
        let (ratio, t) = ratio_and_time(&mut base, &mut || {
            spmv_csr(Exec::from(isa), a, m_used, T::ONE, black_box(&x), T::ZERO, &mut y)
                .expect("dimensions checked");
            black_box(&mut y);
        });
        let d = rel_diff(&y, &y_ref);
        let mut note = match method {
            Some(_) => String::new(),
            None if is_tuned => format!("tuned = {}", tuned.name()),
            None => format!("auto = {}", auto.name()),
        };
        if d > 1e3 * T::EPSILON.to_f64() {
            note = format!("MISMATCH: rel diff {d:.2e} {note}");
        }
        let format = match method {
            Some(CsrMethod::RowVector) => "csr row-vector",
            Some(CsrMethod::SegmentedSum) => "csr segsum",
            Some(CsrMethod::SpeculativeSegmentedSum) => "csr speculative",
            Some(CsrMethod::MergePath) => "csr merge-path",
            None if is_tuned => "csr tuned",
            _ => "csr auto",
        };
        rows.push(Row {
            conv_in_place: None,
            conv_base: None,
            format,
            fill: 1.0,
            conv: Some(Duration::ZERO),
            spmv: Some(t),
            ratio: Some(ratio),
            note,
        });
    }
    // Plans (`SpmvPlan`): the rule's choice among the CSR methods, CSR5 and CSR5 column
    // panels (`plan`, its conversion timed as the plan's), and the timed choice (`plan
    // tuned`, 5 rounds).
    let t0 = Instant::now();
    let ruled = SpmvPlan::new(Exec::from(isa), a).expect("isa available");
    let ruled_conv = t0.elapsed();
    let tuned_plan = SpmvPlan::tune(Exec::from(isa), a, SpmvConfig::new(), &x, &mut y_tune, 5)
        .expect("dimensions checked");
    // The rule's plan again with its copies on huge pages (`SpmvConfig::huge_pages`),
    // where it has copies.
    let t0 = Instant::now();
    let huge =
        SpmvPlan::with_config(Exec::from(isa), a, SpmvConfig::new().huge_pages(true)).expect("isa available");
    let huge_conv = t0.elapsed();
    let mut plans = vec![("plan", &ruled, ruled_conv), ("plan tuned", &tuned_plan, Duration::ZERO)];
    if !matches!(huge.choice(), SpmvChoice::Csr(_)) {
        plans.push(("plan huge", &huge, huge_conv));
    }
    // CSR5 column panels (cache blocking) wherever `x` spans two panels or more, whether
    // or not the rule picks them.
    let columns = TUNING.panel_bytes / size_of::<T>();
    let t0 = Instant::now();
    let panels = (a.ncols() > columns).then(|| {
        SpmvPlan::with_config(
            Exec::from(isa),
            a,
            SpmvConfig::new().choice(SpmvChoice::Csr5Panels { columns }),
        )
        .expect("isa available")
    });
    let panels_conv = t0.elapsed();
    if let Some(p) = &panels {
        plans.push(("csr5 panels", p, panels_conv));
    }
    for (format, plan, conv) in plans {
        let mut y = vec![T::from_f64(f64::NAN); m];
        let (ratio, t) = ratio_and_time(&mut base, &mut || {
            plan.spmv(Exec::new(), T::ONE, black_box(&x), T::ZERO, &mut y).expect("dimensions checked");
            black_box(&mut y);
        });
        let d = rel_diff(&y, &y_ref);
        let mut note = match plan.panels() {
            Some(p) if format == "csr5 panels" => {
                format!("{} panels with entries, {columns} columns each", p.len())
            }
            _ => format!("{format} = {}", plan.choice()),
        };
        if d > 1e3 * T::EPSILON.to_f64() {
            note = format!("MISMATCH: rel diff {d:.2e} {note}");
        }
        rows.push(Row {
            conv_in_place: None,
            conv_base: None,
            format,
            fill: 1.0,
            conv: Some(conv),
            spmv: Some(t),
            ratio: Some(ratio),
            note,
        });
    }
    let nnz_f = nnz.max(1) as f64;

    // Converts (timed), checks the product against CSR, times the SpMV. The owned format
    // lives only for its own measurement.
    macro_rules! bench {
        ($format:expr, $fill:expr, $build:expr) => {{
            let (format, fill) = ($format, $fill);
            if fill > MAX_FILL {
                rows.push(Row {
                    conv_in_place: None,
                    conv_base: None,
                    format,
                    fill,
                    conv: None,
                    spmv: None,
                    ratio: None,
                    note: format!("skipped: fill > {MAX_FILL}"),
                });
            } else {
                let t0 = Instant::now();
                let built: Result<_, spblas::FormatError> = $build;
                match built {
                    Ok(owned) => {
                        let conv = t0.elapsed();
                        let mut y = vec![T::from_f64(f64::NAN); m];
                        let (ratio, t) = measure(&owned.view(), isa, &x, &mut y, &mut base);
                        let d = rel_diff(&y, &y_ref);
                        let note = if d <= 1e3 * T::EPSILON.to_f64() {
                            String::new()
                        } else {
                            format!("MISMATCH: rel diff {d:.2e}")
                        };
                        rows.push(Row {
                            conv_in_place: None,
                            conv_base: None,
                            format,
                            fill,
                            conv: Some(conv),
                            spmv: Some(t),
                            ratio: Some(ratio),
                            note,
                        });
                    }
                    Err(e) => rows.push(Row {
                        conv_in_place: None,
                        conv_base: None,
                        format,
                        fill,
                        conv: None,
                        spmv: None,
                        ratio: None,
                        note: e.to_string(),
                    }),
                }
            }
        }};
    }

    match csr5_row(a, isa, sigma, &x, &y_ref, &mut base) {
        Ok(r) => rows.push(r),
        Err(e) => rows.push(Row {
            conv_in_place: None,
            conv_base: None,
            format: "csr5",
            fill: 1.0,
            conv: None,
            spmv: None,
            ratio: None,
            note: e.to_string(),
        }),
    }
    bench!("coo", 1.0, CooOwned::from_csr(a));
    bench!("ell", EllLayout::new(a).map_or(f64::INFINITY, |l| l.len() as f64 / nnz_f), EllOwned::from_csr(a));
    bench!("hyb", 1.0, HybOwned::from_csr(a));
    bench!("jds", 1.0, JdsOwned::from_csr(a));
    bench!(
        "sell-8",
        SellLayout::new(a, SELL_HEIGHT).map_or(f64::INFINITY, |l| l.len() as f64 / nnz_f),
        SellOwned::from_csr_slice_height(a, SELL_HEIGHT)
    );
    let dia_fill = {
        let mut scratch = vec![0isize; Dia::<T>::offsets_scratch_len(a)];
        Dia::<T>::offsets_from_csr(a, &mut scratch).map_or(f64::INFINITY, |nd| (nd * m) as f64 / nnz_f)
    };
    bench!("dia", dia_fill, DiaOwned::from_csr(a));

    for r in rows {
        let (spmv, gflops, gbs, pct) = match r.spmv {
            Some(t) => {
                let s = t.as_secs_f64();
                let gbs = bytes as f64 / s / 1e9;
                (
                    format!("{:.3}", s * 1e3),
                    format!("{:.2}", 2.0 * nnz as f64 / s / 1e9),
                    format!("{gbs:.2}"),
                    format!("{:.0}%", 100.0 * gbs / stream),
                )
            }
            None => ("-".into(), "-".into(), "-".into(), "-".into()),
        };
        // Speedup over the baseline timed alongside; conversion in units of the
        // baseline's SpMV timed on its own, as the conversion is.
        let base = csr_t.as_secs_f64();
        let speedup = r.ratio.map_or("-".to_string(), |q| format!("{q:.2}"));
        let conv = match (r.conv, r.format) {
            (_, f) if f.starts_with("csr") && !f.starts_with("csr5") => "-".to_string(),
            (Some(c), _) => format!("{:.1}", c.as_secs_f64() / r.conv_base.map_or(base, |b| b.as_secs_f64())),
            (None, _) => "-".into(),
        };
        let note = match r.conv_in_place {
            Some(c) => format!("in place conv {:.1}; {}", c.as_secs_f64() / base, r.note),
            None => r.note,
        };
        println!(
            "| {name:<16} | {class:<9} | {:>4} | {m:>9} | {n:>9} | {nnz:>10} | {:<14} | {:>6.2} | {conv:>6} | {spmv:>9} | {speedup:>6} | {gflops:>7} | {gbs:>6} | {stream:>6.1} | {pct:>7} | {}",
            T::NAME,
            r.format,
            r.fill,
            note
        );
    }
}

/// The output arrays of [`gustavson`]: `(row_ptr, col_idx, vals)`.
type Arrays<T, I> = (Vec<I>, Vec<I>, Vec<T>);

/// The SpGEMM baseline: Gustavson's row-by-row product (thesis 9.3) with a dense
/// accumulator and a row-stamp marker (allocated per call, as SciPy does), each row's
/// columns sorted, into growing `Vec`s.
fn gustavson<T: Scalar, I: Index>(a: &Csr<'_, T, I>, b: &Csr<'_, T, I>) -> Arrays<T, I> {
    let mut out = (Vec::with_capacity(a.nrows() + 1), Vec::new(), Vec::new());
    gustavson_into(a, b, &mut out);
    out
}

/// [`gustavson`] into the arrays of an earlier product (cleared, their memory kept): the
/// baseline of `level3::spgemm_reuse`.
fn gustavson_into<T: Scalar, I: Index>(a: &Csr<'_, T, I>, b: &Csr<'_, T, I>, out: &mut Arrays<T, I>) {
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

/// One line of the SpGEMM table for `A²`, or `None` if `A` is not square or `A²` too
/// large.
fn spgemm_line<T: Scalar + ScanElem, I: Index + Key>(
    name: &str,
    class: &str,
    a: &Csr<'_, T, I>,
    isa: Isa,
) -> Option<String> {
    if a.nrows() != a.ncols() {
        return None;
    }
    let (exec, cfg) = (Exec::from(isa), SpgemmConfig::new());
    let mut ub = vec![I::ZERO; a.nrows()];
    let products = upper_bound(a, a, &mut ub).expect("square");
    if products > SPGEMM_MAX_PRODUCTS {
        return Some(format!(
            "| {name:<16} | {class:<9} | {:>4} | {:>10} | {products:>11} | skipped: more than {SPGEMM_MAX_PRODUCTS} products",
            T::NAME,
            a.nnz()
        ));
    }
    let mut c = CsrOwned::from_triplets(0, 0, &[]).expect("empty");
    let st = spgemm_reuse(exec, cfg, a, a, &mut c).expect("square, isa available");
    let (bp, bc, bv) = gustavson(a, a);
    let cv = c.view();
    let agree = bp == cv.row_ptr() && bc == cv.col_idx();
    let scale = bv.iter().fold(0.0f64, |m, v| m.max(v.to_f64().abs())).max(f64::MIN_POSITIVE);
    let diff =
        bv.iter().zip(cv.vals()).fold(0.0f64, |m, (x, y)| m.max((x.to_f64() - y.to_f64()).abs())) / scale;
    let (tb, t) = median_pair(
        &mut || {
            black_box(gustavson(black_box(a), a));
        },
        &mut || {
            black_box(spgemm(exec, cfg, black_box(a), a).expect("checked"));
        },
    );
    // Ours with the huge page hint (`SpgemmConfig::huge_pages(true)`), against the base
    // again (which stays on 4 KiB pages); back to back, as all these timings are.
    let thp = cfg.huge_pages(true);
    let (tb4, t4) = median_pair(
        &mut || {
            black_box(gustavson(black_box(a), a));
        },
        &mut || {
            black_box(spgemm(exec, thp, black_box(a), a).expect("checked"));
        },
    );
    // Both into the memory of their earlier products (`spgemm_reuse`): no page faults of
    // fresh output, the kernels alone.
    let (mut gout, mut cout) = (gustavson(a, a), c.clone());
    let (tbw, tw) = median_pair(&mut || gustavson_into(black_box(a), a, &mut gout), &mut || {
        black_box(spgemm_reuse(exec, cfg, black_box(a), a, &mut cout).expect("checked"));
    });
    // The precise path's stages, each on its own.
    let ws = spgemm_workspace_len(exec, cfg, a, a).expect("checked");
    let (mut wi, mut wv) = (vec![I::ZERO; ws.idx], vec![T::ZERO; ws.vals]);
    let mut perm = vec![I::ZERO; a.nrows()];
    let mut bin_ptr = [0usize; NBINS + 1];
    let t_ub = median_time(|| {
        upper_bound(black_box(a), a, &mut ub).expect("checked");
    });
    let t_bin = median_time(|| bin_rows(black_box(a), a, &ub, &mut perm, &mut bin_ptr).expect("checked"));
    let mut row_ptr = vec![I::ZERO; a.nrows() + 1];
    let t_sym = median_time(|| {
        spgemm_symbolic(exec, cfg, black_box(a), a, &mut row_ptr, &mut wi).expect("checked");
    });
    let (mut ci, mut cvals) = (vec![I::ZERO; st.nnz_c], vec![T::ZERO; st.nnz_c]);
    let t_num = median_time(|| {
        spgemm_numeric(exec, cfg, black_box(a), a, &row_ptr, &mut ci, &mut cvals, (&mut wi, &mut wv))
            .expect("checked");
    });
    // Stage 3 bin by bin.
    let mut per_bin = Vec::new();
    for (k, bin) in Bin::ALL.iter().enumerate() {
        let rows = &perm[bin_ptr[k]..bin_ptr[k + 1]];
        if rows.is_empty() || matches!(bin, Bin::Empty) {
            continue;
        }
        let t = median_time(|| {
            spgemm_numeric_rows(
                exec,
                cfg,
                black_box(a),
                a,
                rows,
                &row_ptr,
                &mut ci,
                &mut cvals,
                (&mut wi, &mut wv),
            )
            .expect("checked");
        });
        per_bin.push(format!("{}={:.2}", bin.name(), t.as_secs_f64() * 1e3));
    }
    let flops = 2.0 * products as f64;
    let gf = |t: Duration| flops / t.as_secs_f64() / 1e9;
    let ms = |t: Duration| t.as_secs_f64() * 1e3;
    let mb = |b: usize| b as f64 / (1 << 20) as f64;
    let bins: Vec<String> = Bin::ALL
        .iter()
        .filter(|b| st.rows_per_bin[b.index()] > 0)
        .map(|b| format!("{}={}", b.name(), st.rows_per_bin[b.index()]))
        .collect();
    let note =
        if agree { format!("max rel diff {diff:.1e}") } else { "PATTERN DIFFERS from baseline".into() };
    Some(format!(
        "| {name:<16} | {class:<9} | {:>4} | {:>10} | {products:>11} | {:>10} | {:>5.3} | {:>8.2} | {:>8.2} | {:>6.2} | {:>8.2} | {:>6.2} | {:>7.2} | {:>6.2} | {:>6.2} | {:>6.2} | {:>8.1} | {:>8.1} | {:>6.2} | {:>6.2} | {:>7.2} | {:>7.2} | rows {}; num ms {}; {}",
        T::NAME,
        a.nnz(),
        st.nnz_c,
        st.nnz_c as f64 / products.max(1) as f64,
        ms(t),
        ms(tb),
        tb.as_secs_f64() / t.as_secs_f64(),
        ms(t4),
        tb4.as_secs_f64() / t4.as_secs_f64(),
        ms(tw),
        tbw.as_secs_f64() / tw.as_secs_f64(),
        gf(t),
        gf(tb),
        mb(st.bytes_hybrid),
        mb(st.bytes_precise),
        ms(t_ub),
        ms(t_bin),
        ms(t_sym),
        ms(t_num),
        bins.join(" "),
        per_bin.join(" "),
        note
    ))
}

fn spgemm_header(isa: Isa) {
    println!(
        "\nSpGEMM C = A·A (thesis ch. 9), isa = {isa}, single thread; ours = level3::spgemm (hybrid allocation), base = Gustavson with a dense accumulator, timed alternately; THP = ours with its output hinted to transparent huge pages (SpgemmConfig::huge_pages(true)) against the base again; warm = both into the memory of their earlier product (level3::spgemm_reuse), no page faults of fresh output\n"
    );
    println!(
        "| {:<16} | {:<9} | {:>4} | {:>10} | {:>11} | {:>10} | {:>5} | {:>8} | {:>8} | {:>6} | {:>8} | {:>6} | {:>7} | {:>6} | {:>6} | {:>6} | {:>8} | {:>8} | {:>6} | {:>6} | {:>7} | {:>7} | rows and numeric ms per bin, check",
        "matrix",
        "class",
        "prec",
        "nnz(A)",
        "nnz(Ĉ)",
        "nnz(C)",
        "C/Ĉ",
        "ours ms",
        "base ms",
        "x base",
        "THP ms",
        "THP x",
        "warm ms",
        "warm x",
        "GF/s",
        "base",
        "hyb MB",
        "prec MB",
        "ub ms",
        "bin ms",
        "sym ms",
        "num ms"
    );
    println!(
        "|{:-<18}|{:-<11}|{:-<6}|{:-<12}|{:-<13}|{:-<12}|{:-<7}|{:-<10}|{:-<10}|{:-<8}|{:-<10}|{:-<8}|{:-<9}|{:-<8}|{:-<8}|{:-<8}|{:-<10}|{:-<10}|{:-<8}|{:-<8}|{:-<9}|{:-<9}|------",
        "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", ""
    );
}

fn header() {
    println!(
        "| {:<16} | {:<9} | {:>4} | {:>9} | {:>9} | {:>10} | {:<14} | {:>6} | {:>6} | {:>9} | {:>6} | {:>7} | {:>6} | {:>6} | {:>7} | note",
        "matrix",
        "class",
        "prec",
        "rows",
        "cols",
        "nnz",
        "format",
        "fill",
        "conv",
        "spmv ms",
        "x base",
        "GFlop/s",
        "GB/s",
        "stream",
        "%stream"
    );
    println!(
        "|{:-<18}|{:-<11}|{:-<6}|{:-<11}|{:-<11}|{:-<12}|{:-<16}|{:-<8}|{:-<8}|{:-<11}|{:-<8}|{:-<9}|{:-<8}|{:-<8}|{:-<9}|------",
        "", "", "", "", "", "", "", "", "", "", "", "", "", "", ""
    );
}

fn to_f32<I: Index>(a: &CsrOwned<f64, I>) -> CsrOwned<f32, I> {
    let v = a.view();
    CsrOwned::from_parts(
        v.nrows(),
        v.ncols(),
        v.row_ptr().to_vec(),
        v.col_idx().to_vec(),
        v.vals().iter().map(|&x| x as f32).collect(),
    )
    .expect("same pattern as a valid matrix")
}

/// The SpMV rows of `a` (printed now) and its SpGEMM lines (returned, printed after the
/// SpMV table).
fn run_both(args: &Args, name: &str, class: &str, a: &CsrOwned<f64, u32>) -> Vec<String> {
    let mut lines = Vec::new();
    if args.f64 {
        if args.spmv {
            run_matrix(name, class, &a.view(), args.isa, args.sigma);
        }
        if args.spgemm {
            lines.extend(spgemm_line(name, class, &a.view(), args.isa));
        }
    }
    if args.f32 {
        let a32 = to_f32(a);
        if args.spmv {
            run_matrix(name, class, &a32.view(), args.isa, args.sigma);
        }
        if args.spgemm {
            lines.extend(spgemm_line(name, class, &a32.view(), args.isa));
        }
    }
    lines
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("suite: {e}");
            std::process::exit(2);
        }
    };
    if args.spmv {
        println!(
            "spblas suite: SpMV y = A x per format, isa = {}, single thread, CSR5 gathers = {}; GB/s by the thesis formula (8.4.2)\n",
            args.isa,
            Gathers::current().name()
        );
        header();
    }
    let mut spgemm_lines = Vec::new();
    if args.files.is_empty() {
        for entry in suite_entries(args.scale) {
            if !args.matrices.is_empty() && !args.matrices.iter().any(|m| m == entry.name) {
                continue;
            }
            let a = match entry.generate::<f64, u32>() {
                Ok(a) => a,
                Err(e) => {
                    eprintln!("suite: cannot generate {}: {e}", entry.name);
                    std::process::exit(1);
                }
            };
            spgemm_lines.extend(run_both(&args, entry.name, entry.class.name(), &a));
        }
    } else {
        for path in &args.files {
            let a = match read_mtx_path::<f64, u32>(path) {
                Ok(a) => a,
                Err(e) => {
                    eprintln!("suite: {}: {e}", path.display());
                    std::process::exit(1);
                }
            };
            let name = path.file_name().map_or("?".into(), |s| s.to_string_lossy().into_owned());
            spgemm_lines.extend(run_both(&args, &name, "file", &a));
        }
    }
    if args.spgemm {
        spgemm_header(args.isa);
        for line in &spgemm_lines {
            println!("{line}");
        }
    }
}
