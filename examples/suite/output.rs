//! The suite's output: the legend, table lines, JSON / CSV, the SVG chart and the record.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;
use spblas::generate::SuiteScale;
use spblas::{Gathers, Isa};

use crate::Args;

/// Every column of both tables, printed once at the start of a run and by `--help`.
pub const LEGEND: &str = "\
Legend. Times are medians of samples of at least 1 ms each (a fast kernel runs several
times per sample); each kernel is timed in alternating blocks with a baseline, so that
both see the same machine state, and its ratio to that baseline is the steadiest number.

SpMV y = A·x (thesis ch. 6-8), one thread:
  isa      the SIMD path (--isa; `all`: every path this machine has)
  method   csr row-scalar: the plain CSR row loop (thesis Alg. 28), the baseline of `x rs`
           Csr::spmv: the default call on a CSR matrix (its method by rule, in the note)
           SpmvPlan::new / SpmvPlan::tune: the plan chosen by rule / by timing (note: which)
           csr row-vector, segsum, speculative, merge-path: one CSR method forced
           transpose (Aᵀx): y = Aᵀ·x on the same CSR matrix (level2::spmv_csr_transpose:
           rows scattered into y, no copy of Aᵀ; x has m entries, y n), against A·x's baseline
           spmm k=8: Y = A·X for a row-major X of 8 columns (level2::spmm_csr, A read once);
           time, GFlop/s and x rs per vector (the block's time / 8), GB/s as for one SpMV
           csr5 spmm k=8: the same by CSR5 tiles (level2::spmm_csr5, each tile read once)
           symmetric lower: y = S·x for S stored as A's lower triangle with its diagonal
           (Symmetric: each stored entry read once for both positions; S = A for
           symmetric A); GFlop/s and GB/s count A's nnz
           trsv lower: L·x = b by serial substitution (level2::trsv), L the strictly lower
           part of A plus a dominant diagonal; GFlop/s and GB/s still count A's nnz
           add A+Aᵀ: C = A + Aᵀ, the numeric phase into caller buffers (level3::add_numeric,
           rows merged); x rs compares one sum with one SpMV
           csr5, coo, ell, hyb, jds, sell-8, dia: the matrix converted to that format
  fill     stored slots per entry (the padding of ELL, SELL, DIA); above 3: skipped
  conv     one-time cost (conversion, plan build or tuning) in SpMVs of csr row-scalar
  us       microseconds per SpMV
  GFlop/s  2·nnz / time
  GB/s     CSR bytes / time, by the thesis's count (8.4.2): (m+1+nnz)·sizeof(index) +
           (2·nnz+m)·sizeof(value); the same bytes for every format, so the column ranks them
  bound    GB/s of the best of three streaming kernels (one-stream read, four-stream read,
           copy) over the same number of bytes, in this run: the memory bound for this size
  %bound   GB/s / bound. Above 100% means x came from cache for most entries (the count
           charges one read of x per entry) or the matrix fits in cache while the streaming
           kernels did not run as fast there
  x rs     speedup over csr row-scalar (above 1: faster)
  x port   with --isa all: speedup over the same method on the portable path (the ratio
           of the two `x rs`, both against the same baseline kernel)

SpGEMM C = A·A (thesis ch. 9), one thread, square matrices up to a product limit:
  nnz(A), products   entries of A; multiply-adds of A·A (the upper bound of thesis 9.4.1)
  nnz(C)   entries of C
  ms       level3::spgemm into fresh memory, as a first product is
  GFlop/s  2·products / time
  x gus    speedup over Gustavson's row-by-row product with a dense accumulator (what
           SciPy and sprs run), into fresh memory as well
  warm ms, x gus warm   both into the memory of their earlier product (level3::spgemm_reuse
           against Gustavson into kept vectors): the kernels without page faults
  MB       memory level3::spgemm took (output and workspace, hybrid allocation 9.4.4)";

/// Width of the chart's legend column, in pixels.
const LEGEND_WIDTH: u32 = 230;
/// Bar colours, one per method: distinct hues, none too pale to see on white.
const COLORS: [(u8, u8, u8); 20] = [
    (0, 0, 0),
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
    (57, 59, 121),
    (173, 73, 74),
    (99, 121, 57),
    (206, 109, 189),
    (255, 187, 120),
    (152, 223, 138),
    (31, 60, 90),
    (158, 218, 229),
    (120, 60, 20),
];

/// The machine, described plainly.
#[derive(Clone, Debug, Serialize)]
pub struct Machine {
    pub cpu: String,
    pub logical_cores: usize,
    pub l3: Option<String>,
    pub isa: String,
    pub gathers: String,
}

impl Machine {
    pub fn detect(isas: &[Isa]) -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let field = |key: &str| {
            cpuinfo.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                (k.trim() == key).then(|| v.trim().to_string())
            })
        };
        let cpu = field("model name")
            .or_else(|| field("Model"))
            .or_else(|| field("CPU part").map(|p| format!("Arm CPU part {p}")))
            .unwrap_or_else(|| format!("unknown {} CPU", std::env::consts::ARCH));
        let l3 = std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cache/index3/size")
            .ok()
            .map(|s| s.trim().to_string());
        Machine {
            cpu,
            logical_cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            l3,
            isa: isas.iter().map(|i| i.name()).collect::<Vec<_>>().join(", "),
            gathers: Gathers::current().name().to_string(),
        }
    }

    fn line(&self) -> String {
        let l3 = self.l3.as_ref().map_or(String::new(), |s| format!(", L3 {s}"));
        format!("{}, {} logical cores{l3}", self.cpu, self.logical_cores)
    }

    /// The CPU model as a file-name part: `amd-epyc-7763-64-core`, `intel-xeon`.
    fn slug(&self) -> String {
        let model = self.cpu.split('@').next().unwrap_or_default();
        let words: Vec<String> = model
            .split(|c: char| !c.is_ascii_alphanumeric())
            .map(str::to_ascii_lowercase)
            .filter(|w| !w.is_empty() && !matches!(w.as_str(), "r" | "tm" | "cpu" | "processor"))
            .collect();
        let mut s = words.join("-");
        s.truncate(40);
        s.trim_end_matches('-').to_string()
    }
}

fn scale_name(scale: SuiteScale) -> &'static str {
    match scale {
        SuiteScale::Small => "small",
        SuiteScale::Quick => "quick",
        _ => "full",
    }
}

/// The first lines of a run.
pub fn title(args: &Args, machine: &Machine) -> String {
    let what =
        if args.files.is_empty() { format!("{} suite", scale_name(args.scale)) } else { "files".into() };
    format!(
        "spblas {what}: one thread, isa {}, CSR5 gathers {}\nmachine: {}\n",
        machine.isa,
        machine.gathers,
        machine.line()
    )
}

/// Three significant digits, or an exponent outside 0.001..100 000.
fn sig(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if !(1e-3..1e5).contains(&a) {
        format!("{v:.1e}")
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

fn opt(v: Option<f64>) -> String {
    v.map_or("-".into(), sig)
}

/// One SpMV result.
#[derive(Clone, Debug, Serialize)]
pub struct SpmvRow {
    pub matrix: String,
    pub prec: &'static str,
    pub isa: &'static str,
    pub rows: usize,
    pub cols: usize,
    pub nnz: usize,
    pub method: &'static str,
    pub fill: Option<f64>,
    /// One-time cost in SpMVs of the baseline.
    pub conv: Option<f64>,
    pub time_us: Option<f64>,
    pub gflops: Option<f64>,
    pub gbs: Option<f64>,
    pub bound_gbs: f64,
    pub x_base: Option<f64>,
    /// `--isa all`: the speedup over the same method on the portable path.
    pub x_portable: Option<f64>,
    pub note: String,
}

/// A table column: title, width, and whether it is right-aligned (numbers).
struct Col(&'static str, usize, bool);

const SPMV_COLS: [Col; 16] = [
    Col("matrix", 14, false),
    Col("prec", 4, false),
    Col("isa", 8, false),
    Col("rows", 9, true),
    Col("cols", 9, true),
    Col("nnz", 9, true),
    Col("method", 15, false),
    Col("fill", 6, true),
    Col("conv", 6, true),
    Col("us", 7, true),
    Col("GFlop/s", 7, true),
    Col("GB/s", 6, true),
    Col("bound", 6, true),
    Col("%bound", 6, true),
    Col("x rs", 5, true),
    Col("x port", 6, true),
];

const SPGEMM_COLS: [Col; 12] = [
    Col("matrix", 14, false),
    Col("prec", 4, false),
    Col("isa", 8, false),
    Col("nnz(A)", 9, true),
    Col("products", 10, true),
    Col("nnz(C)", 10, true),
    Col("ms", 7, true),
    Col("GFlop/s", 7, true),
    Col("x gus", 5, true),
    Col("warm ms", 7, true),
    Col("x gus warm", 10, true),
    Col("MB", 6, true),
];

/// A markdown table line of `cells` in `cols`, then the note.
fn cells(cols: &[Col], cells: &[String], note: &str) -> String {
    let padded: Vec<String> = cols
        .iter()
        .zip(cells)
        .map(|(c, v)| if c.2 { format!("{v:>w$}", w = c.1) } else { format!("{v:<w$}", w = c.1) })
        .collect();
    format!("| {} | {note}", padded.join(" | "))
}

/// The header and rule of a table of `cols`.
fn header(cols: &[Col]) -> String {
    let titles: Vec<String> = cols.iter().map(|c| c.0.to_string()).collect();
    let rule: Vec<String> = cols
        .iter()
        .map(|c| if c.2 { format!("{}:", "-".repeat(c.1 + 1)) } else { "-".repeat(c.1 + 2) })
        .collect();
    format!("{}\n|{}|------", cells(cols, &titles, "note"), rule.join("|"))
}

/// The SpMV table's columns; `widths` adds the one of `--isa all`.
fn spmv_cols(widths: bool) -> &'static [Col] {
    if widths { &SPMV_COLS } else { &SPMV_COLS[..SPMV_COLS.len() - 1] }
}

/// The SpMV table's header.
pub fn spmv_header(widths: bool) -> String {
    header(spmv_cols(widths))
}

impl SpmvRow {
    /// The row in the table; `widths` adds the column of `--isa all`.
    pub fn line(&self, widths: bool) -> String {
        let pct = self.gbs.map_or("-".into(), |g| format!("{:.0}%", 100.0 * g / self.bound_gbs.max(1e-12)));
        let values = [
            self.matrix.clone(),
            self.prec.into(),
            self.isa.into(),
            self.rows.to_string(),
            self.cols.to_string(),
            self.nnz.to_string(),
            self.method.into(),
            opt(self.fill),
            opt(self.conv),
            opt(self.time_us),
            opt(self.gflops),
            opt(self.gbs),
            sig(self.bound_gbs),
            pct,
            opt(self.x_base),
            opt(self.x_portable),
        ];
        cells(spmv_cols(widths), &values, &self.note)
    }
}

/// One SpGEMM result.
#[derive(Clone, Debug, Serialize)]
pub struct SpgemmRow {
    pub matrix: String,
    pub prec: &'static str,
    pub isa: &'static str,
    pub nnz_a: usize,
    pub products: usize,
    pub nnz_c: Option<usize>,
    pub time_ms: Option<f64>,
    pub gflops: Option<f64>,
    pub x_gustavson: Option<f64>,
    pub warm_ms: Option<f64>,
    pub x_gustavson_warm: Option<f64>,
    pub mb: Option<f64>,
    pub note: String,
}

/// The SpGEMM table's title.
pub fn spgemm_title(max_products: usize) -> String {
    format!("SpGEMM C = A·A, square matrices with at most {max_products} products")
}

/// The SpGEMM table's header.
pub fn spgemm_header() -> String {
    header(&SPGEMM_COLS)
}

impl SpgemmRow {
    pub fn line(&self) -> String {
        let values = [
            self.matrix.clone(),
            self.prec.into(),
            self.isa.into(),
            self.nnz_a.to_string(),
            self.products.to_string(),
            self.nnz_c.map_or("-".into(), |n| n.to_string()),
            opt(self.time_ms),
            opt(self.gflops),
            opt(self.x_gustavson),
            opt(self.warm_ms),
            opt(self.x_gustavson_warm),
            opt(self.mb),
        ];
        cells(&SPGEMM_COLS, &values, &self.note)
    }
}

/// Geometric mean of the positive values, and how many there were.
fn geomean(v: impl Iterator<Item = f64>) -> Option<(f64, usize)> {
    let (sum, n) = v.filter(|x| *x > 0.0).fold((0.0, 0), |(s, n), x| (s + x.ln(), n + 1));
    (n > 0).then(|| ((sum / n as f64).exp(), n))
}

/// The summary: per value type, SIMD path and method, the geometric means over the
/// matrices of `x rs`, `%bound` (and `x port` with `--isa all`); per value type and path,
/// those of SpGEMM's `x gus` and `x gus warm`.
pub fn summary(spmv: &[SpmvRow], spgemm: &[SpgemmRow], widths: bool) -> String {
    let mut s = String::from("Summary: geometric means over the matrices\n\n");
    if !spmv.is_empty() {
        let mut keys: Vec<(&str, &str, &str)> = Vec::new();
        for r in spmv {
            if !keys.contains(&(r.prec, r.isa, r.method)) {
                keys.push((r.prec, r.isa, r.method));
            }
        }
        let port = if widths { " x port |" } else { "" };
        let port_rule = if widths { "-------:|" } else { "" };
        s += &format!(
            "| SpMV method     | prec | isa      | matrices |  x rs | %bound |{port}\n|-----------------|------|----------|---------:|------:|-------:|{port_rule}\n"
        );
        for (prec, isa, method) in keys {
            let rows: Vec<&SpmvRow> =
                spmv.iter().filter(|r| (r.prec, r.isa, r.method) == (prec, isa, method)).collect();
            let Some((x, n)) = geomean(rows.iter().filter_map(|r| r.x_base)) else { continue };
            let bound = geomean(rows.iter().filter_map(|r| Some(r.gbs? / r.bound_gbs)));
            let bound = bound.map_or("-".into(), |b| format!("{:.0}%", 100.0 * b.0));
            let port = if widths {
                format!(
                    " {:>6} |",
                    geomean(rows.iter().filter_map(|r| r.x_portable)).map_or("-".into(), |g| sig(g.0))
                )
            } else {
                String::new()
            };
            s += &format!(
                "| {method:<15} | {prec:<4} | {isa:<8} | {n:>8} | {:>5} | {bound:>6} |{port}\n",
                sig(x)
            );
        }
    }
    if !spgemm.is_empty() {
        let mut keys: Vec<(&str, &str)> = Vec::new();
        for r in spgemm {
            if !keys.contains(&(r.prec, r.isa)) {
                keys.push((r.prec, r.isa));
            }
        }
        s += "\n| SpGEMM A·A      | prec | isa      | matrices | x gus | x gus warm |\n|-----------------|------|----------|---------:|------:|-----------:|\n";
        for (prec, isa) in keys {
            let rows: Vec<&SpgemmRow> = spgemm.iter().filter(|r| (r.prec, r.isa) == (prec, isa)).collect();
            let Some((x, n)) = geomean(rows.iter().filter_map(|r| r.x_gustavson)) else { continue };
            let warm =
                geomean(rows.iter().filter_map(|r| r.x_gustavson_warm)).map_or("-".into(), |g| sig(g.0));
            s += &format!(
                "| level3::spgemm  | {prec:<4} | {isa:<8} | {n:>8} | {:>5} | {warm:>10} |\n",
                sig(x)
            );
        }
    }
    s
}

/// Everything a run measured.
#[derive(Serialize)]
pub struct Results {
    pub machine: Machine,
    pub command: String,
    /// `--isa all`: rows of every width, with their speedup over the portable path.
    pub widths: bool,
    /// Seconds the measurements took (after the build, before the outputs).
    pub seconds: f64,
    pub spmv: Vec<SpmvRow>,
    pub spgemm: Vec<SpgemmRow>,
}

type Error = Box<dyn std::error::Error>;

/// One table as CSV, a header line and a line per row. Returns the path.
fn write_csv<R: Serialize>(path: &str, rows: &[R]) -> Result<String, Error> {
    let mut w = csv::Writer::from_path(path)?;
    for r in rows {
        w.serialize(r)?;
    }
    w.flush()?;
    Ok(path.to_string())
}

impl Results {
    /// `--out`: one JSON document, or two CSV files (`FILE-spmv.csv`, `FILE-spgemm.csv`).
    /// Returns the names written.
    pub fn write_data(&self, path: &Path) -> Result<String, Error> {
        if path.extension().is_some_and(|e| e == "json") {
            std::fs::write(path, serde_json::to_string_pretty(self)? + "\n")?;
            return Ok(path.display().to_string());
        }
        let stem = path.with_extension("");
        let mut written = Vec::new();
        if !self.spmv.is_empty() {
            written.push(write_csv(&format!("{}-spmv.csv", stem.display()), &self.spmv)?);
        }
        if !self.spgemm.is_empty() {
            written.push(write_csv(&format!("{}-spgemm.csv", stem.display()), &self.spgemm)?);
        }
        Ok(written.join(" and "))
    }

    /// `--plot`: GB/s of every method, grouped by matrix (and precision), with the
    /// streaming bound of each matrix's working set as a line across its group.
    pub fn plot(&self, path: &Path) -> Result<(), Error> {
        use plotters::prelude::*;
        use plotters::style::text_anchor::{HPos, Pos, VPos};
        let mut groups: Vec<(String, f64)> = Vec::new();
        let mut methods: Vec<String> = Vec::new();
        let series =
            |r: &SpmvRow| if self.widths { format!("{} {}", r.method, r.isa) } else { r.method.to_string() };
        for r in &self.spmv {
            let g = format!("{} {}", r.matrix, r.prec);
            if groups.last().is_none_or(|l| l.0 != g) {
                groups.push((g, r.bound_gbs));
            }
            if !methods.contains(&series(r)) {
                methods.push(series(r));
            }
        }
        if groups.is_empty() {
            return Err("no SpMV results to plot (--only spgemm)".into());
        }
        let ymax =
            self.spmv.iter().filter_map(|r| r.gbs).chain(groups.iter().map(|g| g.1)).fold(0.0f64, f64::max)
                * 1.15;
        let width = (140 + groups.len() * (methods.len() * 7 + 24)).max(900) as u32;
        let root = SVGBackend::new(path, (width + LEGEND_WIDTH, 620)).into_drawing_area();
        root.fill(&WHITE)?;
        let (left, right) = root.split_horizontally(width);
        let caption = format!("spblas SpMV, one thread: {} ({})", self.machine.cpu, self.machine.isa);
        let mut chart = ChartBuilder::on(&left)
            .caption(caption, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(10)
            .y_label_area_size(60)
            .build_cartesian_2d(0f64..groups.len() as f64, 0f64..ymax.max(1e-3))?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .disable_x_axis()
            .y_desc("GB/s (thesis byte count, 8.4.2)")
            .draw()?;
        let slot = 0.9 / methods.len() as f64;
        let color = |k: usize| {
            let (r, g, b) = COLORS[k % COLORS.len()];
            RGBColor(r, g, b)
        };
        for (k, method) in methods.iter().enumerate() {
            let bars: Vec<_> = self
                .spmv
                .iter()
                .filter(|r| series(r) == *method)
                .filter_map(|r| {
                    let g = groups.iter().position(|g| g.0 == format!("{} {}", r.matrix, r.prec))?;
                    let x0 = g as f64 + 0.05 + k as f64 * slot;
                    Some(Rectangle::new([(x0, 0.0), (x0 + slot * 0.85, r.gbs?)], color(k).filled()))
                })
                .collect();
            chart.draw_series(bars)?;
        }
        chart.draw_series(groups.iter().enumerate().map(|(g, (_, b))| {
            PathElement::new(vec![(g as f64 + 0.02, *b), (g as f64 + 0.98, *b)], BLACK.stroke_width(2))
        }))?;
        let label = ("sans-serif", 13).into_font().color(&BLACK).pos(Pos::new(HPos::Center, VPos::Top));
        chart.draw_series(
            groups
                .iter()
                .enumerate()
                .map(|(g, (name, _))| Text::new(name.clone(), (g as f64 + 0.5, ymax * 0.99), label.clone())),
        )?;
        // The legend, beside the chart so that it hides no bar.
        let text = ("sans-serif", 13).into_font().color(&BLACK);
        let y0 = 50;
        for (k, method) in methods.iter().enumerate() {
            let y = y0 + 20 * k as i32;
            right.draw(&Rectangle::new([(10, y), (24, y + 12)], color(k).filled()))?;
            right.draw(&Text::new(method.clone(), (32, y), text.clone()))?;
        }
        let y = y0 + 20 * methods.len() as i32 + 6;
        right.draw(&PathElement::new(vec![(8, y + 6), (26, y + 6)], BLACK.stroke_width(2)))?;
        right.draw(&Text::new("bound: streaming kernels", (32, y), text.clone()))?;
        right.draw(&Text::new("over the same bytes", (32, y + 16), text))?;
        root.present()?;
        Ok(())
    }

    /// `--record`: a dated record under `benches/records/` with the machine, the command,
    /// the legend and both tables. Returns its path.
    pub fn record(&self, max_products: usize) -> Result<PathBuf, Error> {
        let date = time::OffsetDateTime::now_utc().date();
        // The checkout the command runs in, else the one the suite was built from.
        let here = Path::new("benches/records");
        let dir =
            if here.is_dir() { here.to_path_buf() } else { Path::new(env!("CARGO_MANIFEST_DIR")).join(here) };
        let mut path = dir.join(format!("suite-{date}-{}.md", self.machine.slug()));
        let mut k = 2;
        while path.exists() {
            path = dir.join(format!("suite-{date}-{}-{k}.md", self.machine.slug()));
            k += 1;
        }
        let git = |a: &[&str]| {
            std::process::Command::new("git")
                .args(a)
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        };
        let commit = match (
            git(&["rev-parse", "--short", "HEAD"]),
            git(&["status", "--porcelain", "--untracked-files=no"]),
        ) {
            (Some(c), Some(s)) if !s.is_empty() => format!("`{c}` with local changes"),
            (Some(c), _) => format!("`{c}`"),
            _ => "unknown".into(),
        };
        let mut s = String::new();
        writeln!(s, "# Suite, {date}: {}\n", self.machine.line())?;
        writeln!(
            s,
            "Written by `cargo run --release --example suite --features gen,mtx -- {}` at commit {commit}; one thread, isa {}, CSR5 gathers {}; measured in {:.0} s.\n",
            self.command, self.machine.isa, self.machine.gathers, self.seconds
        )?;
        writeln!(s, "```text\n{LEGEND}\n```\n")?;
        if !self.spmv.is_empty() {
            writeln!(s, "## SpMV y = A·x\n\n{}", spmv_header(self.widths))?;
            for r in &self.spmv {
                writeln!(s, "{}", r.line(self.widths))?;
            }
        }
        if !self.spgemm.is_empty() {
            writeln!(s, "\n## {}\n\n{}", spgemm_title(max_products), spgemm_header())?;
            for r in &self.spgemm {
                writeln!(s, "{}", r.line())?;
            }
        }
        writeln!(s, "\n## {}", summary(&self.spmv, &self.spgemm, self.widths))?;
        std::fs::write(&path, s)?;
        Ok(path)
    }
}
