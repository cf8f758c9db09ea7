//! One matrix of a benchmark run (the criterion benches' and the main job's): a generated
//! suite entry or a Matrix Market file, loaded when its turn comes, so that only one is
//! in memory at a time, in the value type it runs in.

use std::path::PathBuf;

use spblas::generate::SuiteEntry;
use spblas::io::read_mtx_path;
use spblas::{CsrOwned, Scalar};

pub enum Input {
    Generated(&'static SuiteEntry),
    /// The file, and the name its rows carry in tables and benchmark ids.
    File {
        path: PathBuf,
        name: String,
    },
}

impl Input {
    /// The name in tables and benchmark ids.
    pub fn name(&self) -> &str {
        match self {
            Input::Generated(e) => e.name,
            Input::File { name, .. } => name,
        }
    }

    /// The matrix with `T` values, or why it cannot be had (naming the file or entry).
    pub fn load<T: Scalar>(&self) -> Result<CsrOwned<T, u32>, String> {
        match self {
            Input::Generated(e) => e.generate().map_err(|err| format!("cannot generate {}: {err}", e.name)),
            Input::File { path, .. } => {
                read_mtx_path(path).map_err(|err| format!("{}: {err}", path.display()))
            }
        }
    }
}
