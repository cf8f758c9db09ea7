//! The matrices the SpMV and SpGEMM benches run on: the generated suite, the user's
//! Matrix Market files, or both.
//!
//! - `SPBLAS_BENCH_MTX=a.mtx,b.mtx.gz`: those files (values as `f64`, indices `u32`);
//!   a file that cannot be read stops the run with its path and the reason.
//! - `SPBLAS_BENCH_SCALE=small|quick|full`: the generated suite at that size (default
//!   `small`); with `SPBLAS_BENCH_MTX` set, the suite runs only when this is set too.

use spblas::CsrOwned;
use spblas::generate::{SuiteScale, suite_entries};
use spblas::io::read_mtx_path;

/// `(name, matrix)` pairs, user files first. Exits with status 2 on a bad variable or file
/// (criterion owns the command line, so the benches take their inputs from the
/// environment).
pub fn matrices() -> Vec<(String, CsrOwned<f64, u32>)> {
    let files = std::env::var("SPBLAS_BENCH_MTX").ok().filter(|s| !s.trim().is_empty());
    let scale = match std::env::var("SPBLAS_BENCH_SCALE").as_deref() {
        Ok("small") => Some(SuiteScale::Small),
        Ok("quick") => Some(SuiteScale::Quick),
        Ok("full") => Some(SuiteScale::Full),
        Ok(other) => stop(&format!("SPBLAS_BENCH_SCALE takes small, quick or full, not {other:?}")),
        Err(_) => None,
    };
    let mut out = Vec::new();
    if let Some(files) = &files {
        for path in files.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match read_mtx_path::<f64, u32>(path) {
                Ok(a) => {
                    let name = std::path::Path::new(path)
                        .file_name()
                        .map_or(path.to_string(), |s| s.to_string_lossy().into_owned());
                    let name = name.trim_end_matches(".gz").trim_end_matches(".mtx").to_string();
                    out.push((name, a));
                }
                Err(e) => stop(&format!("SPBLAS_BENCH_MTX: {path}: {e}")),
            }
        }
    }
    if files.is_none() || scale.is_some() {
        for entry in suite_entries(scale.unwrap_or(SuiteScale::Small)) {
            let a =
                entry.generate().unwrap_or_else(|e| stop(&format!("cannot generate {}: {e}", entry.name)));
            out.push((entry.name.to_string(), a));
        }
    }
    out
}

/// The same matrix with `f32` values.
pub fn to_f32(a: &CsrOwned<f64, u32>) -> CsrOwned<f32, u32> {
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

fn stop(msg: &str) -> ! {
    eprintln!("bench: {msg}");
    std::process::exit(2);
}
