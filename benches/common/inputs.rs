//! The matrices the SpMV and SpGEMM benches run on: the generated suite, the user's
//! Matrix Market files, or both.
//!
//! - `SPBLAS_BENCH_MTX=a.mtx,b.mtx.gz`: those files (indices `u32`); a file that cannot
//!   be read stops the run with its path and the reason.
//! - `SPBLAS_BENCH_SCALE=small|quick|full`: the generated suite at that size (default
//!   `small`); with `SPBLAS_BENCH_MTX` set, the suite runs only when this is set too.

use spblas::generate::{SuiteScale, suite_entries};

#[path = "matrix.rs"]
mod matrix;
pub use matrix::Input;

/// The inputs, user files first. Exits with status 2 on a bad variable or a missing file
/// (criterion owns the command line, so the benches take their inputs from the
/// environment).
pub fn inputs() -> Vec<Input> {
    let files = std::env::var("SPBLAS_BENCH_MTX").ok().filter(|s| !s.trim().is_empty());
    let scale = match std::env::var("SPBLAS_BENCH_SCALE").as_deref() {
        Ok("small") => Some(SuiteScale::Small),
        Ok("quick") => Some(SuiteScale::Quick),
        Ok("full") => Some(SuiteScale::Full),
        Ok(other) => stop(&format!("SPBLAS_BENCH_SCALE takes small, quick or full, not {other:?}")),
        Err(_) => None,
    };
    let mut out = Vec::new();
    for path in files.iter().flat_map(|f| f.split(',')).map(str::trim).filter(|p| !p.is_empty()) {
        if let Err(e) = std::fs::metadata(path) {
            stop(&format!("SPBLAS_BENCH_MTX: {path}: {e}"));
        }
        let file =
            std::path::Path::new(path).file_name().map_or(path.into(), |s| s.to_string_lossy().into_owned());
        let name = file.trim_end_matches(".gz").trim_end_matches(".mtx").to_string();
        out.push(Input::File { path: path.into(), name });
    }
    if files.is_none() || scale.is_some() {
        out.extend(suite_entries(scale.unwrap_or(SuiteScale::Small)).iter().map(Input::Generated));
    }
    out
}

/// The matrix with `T` values; exits with status 2 if it cannot be read.
pub fn load<T: spblas::Scalar>(input: &Input) -> spblas::CsrOwned<T, u32> {
    input.load().unwrap_or_else(|e| match input {
        Input::File { .. } => stop(&format!("SPBLAS_BENCH_MTX: {e}")),
        Input::Generated(_) => stop(&e),
    })
}

fn stop(msg: &str) -> ! {
    eprintln!("bench: {msg}");
    std::process::exit(2);
}
