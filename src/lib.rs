//! # spblas
//!
//! Sparse BLAS kernels after Weifeng Liu's thesis *Parallel and Scalable Sparse Basic
//! Linear Algebra Subprograms* (2015): storage formats (chapter 5), primitives (chapter
//! 4), Level 1/2/3 algorithms (chapters 7–9), built `#![no_std]` for firmware and other
//! runtimes.
//!
//! - **Kernels own no memory.** They read borrowed slices and write caller slices; a
//!   layout query says how long those must be. The `alloc` feature adds owned
//!   conveniences (`CsrOwned`, ...) on top, and `heapless` fixed-capacity ones
//!   (`CsrHeapless`), never a second implementation.
//! - **Validate at the border, trust inside.** Every format view is built by a `new` that
//!   checks every invariant and names the first violation in a [`FormatError`]. No safe
//!   public function panics on bad input; wrong dimensions are a [`DimError`].
//! - **One way to say how a kernel runs.** Every kernel takes an [`Exec`] first: the SIMD
//!   width ([`Isa`], detected unless forced) and the most threads it may use (feature
//!   `parallel`; the calling thread by default).
//!
//! ## Formats
//!
//! Every format is a borrowed view built by a validating `new`, with a conversion from
//! CSR into caller slices (a layout query gives their lengths) and one back, and every
//! one implements [`SpMv`]:
//!
//! | format | view | thesis |
//! |---|---|---|
//! | CSR | [`Csr`] | 5.2.4 |
//! | CSC | [`Csc`] | 5.2.4 by columns: the arrays of the CSR of `Aᵀ` ([`level2::spmv_csr_transpose`] is its SpMV) |
//! | CSR5 | [`Csr5`] ([`Csr5Layout`]) | chapter 6: tiles of `omega` lanes × `sigma` steps, transposed |
//! | COO | [`Coo`] | 5.2.3 |
//! | ELL | [`Ell`] | 5.2.2 (column-major, explicit padding) |
//! | SELL | [`Sell`] | 5.4.1 (sliced ELL) |
//! | HYB | [`Hyb`] | 5.3.1 (ELL + COO) |
//! | JDS | [`Jds`] | jagged diagonals, rows permuted by length |
//! | DIA | [`Dia`] | 5.2.1 |
//! | symmetric | [`Symmetric`] ([`Triangle`]) | one triangle of a real symmetric matrix in CSR (MKL's `SPARSE_MATRIX_TYPE_SYMMETRIC`); its SpMV and SpMM read each stored entry once for both positions |
//!
//! ## SpMV: the entry point
//!
//! `y = alpha * A * x + beta * y` is [`SpMv::spmv`], with an [`Exec`] first, on any
//! format. For a CSR matrix, the usual case:
//!
//! - [`Csr`]'s `spmv` (see the quick start below) converts nothing and allocates nothing:
//!   it runs the CSR method that [`CsrMethod::choose`] picks from a sample of the rows
//!   and from how this core gathers ([`Gathers`]).
//! - For a matrix multiplied many times (an iterative solver), build an [`SpmvPlan`]
//!   once (feature `alloc`), by rule ([`SpmvPlan::new`]) or by timing
//!   ([`SpmvPlan::tune`], feature `std`), and call its `spmv` the same way:
//!   [`SpmvChoice::choose`] may also convert to CSR5, CSR5 column panels or DIA where
//!   that pays, and the plan holds the copies. Without an allocator, [`SpmvPlanLayout`]
//!   and [`SpmvPlanView`] make the same choice into caller buffers.
//!
//! ## Modules
//! - [`primitives`]: scan, segmented sum, sorts, merges, d-heap (chapter 4).
//! - [`formats`]: the views above and their conversions.
//! - [`level1`]: sparse vectors ([`level1::SpVec`]), sparse + sparse addition by four
//!   methods (chapter 7), dot products, axpy, gather/scatter.
//! - [`level2`]: the [`SpMv`] trait for every format, the CSR methods and the plans;
//!   the sparse triangular solve ([`level2::trsv`], [`level2::TriangularSolve`]); SpMM
//!   ([`SpMm`]: dense `X`, `Y` of `k` columns, [`DenseRef`], [`DenseMut`]) on CSR
//!   ([`level2::spmm_csr`]), CSR5 ([`level2::spmm_csr5`]: each tile read once for all
//!   `k`) and the plans (on the planned format); SpMV and SpMM of symmetric storage
//!   ([`Symmetric`]).
//! - [`level3`]: SpGEMM `C = A·B` in CSR (chapter 9): upper bound, binning, per-bin row
//!   kernels, symbolic and numeric phases into caller buffers; with `alloc`, the hybrid
//!   allocation ([`level3::spgemm`]), the Galerkin product and `A·Aᵀ`. The sum
//!   `C = alpha·A + beta·B` ([`level3::add_symbolic`], [`level3::add_numeric`]) and the
//!   scalings ([`level3::scale`], [`level3::scale_rows`], [`level3::scale_cols`]).
//! - `gpu`, `io`, `generate`: behind features, below.
//!
//! ## Features
//!
//! | feature | default | adds |
//! |---|---|---|
//! | `std` | yes | runtime NEON detection on AArch64; the choices tuned by timing on this machine ([`CsrMethod::tune`], [`SpmvPlan::tune`], [`AddRule::tune`](level1::AddRule::tune)); on Linux, the huge page hint for large owned outputs ([`SpgemmConfig::huge_pages`](level3::SpgemmConfig::huge_pages), on by default; [`SpmvConfig::huge_pages`], opt-in); implies `alloc` |
//! | `alloc` | | owned variants ([`CsrOwned`], [`Csr5Owned`], [`CooOwned`], [`EllOwned`], [`SellOwned`], [`HybOwned`], [`JdsOwned`], [`DiaOwned`], [`SpVecOwned`](level1::SpVecOwned)), [`SpmvPlan`], and [`level3::spgemm`], `spgemm_reuse`, `galerkin`, `a_at`, [`level3::add`] |
//! | `heapless` | | `CsrHeapless`: an owned CSR in fixed-capacity storage, for firmware without an allocator |
//! | `parallel` | | threads for [`Exec::threads`]: the SpMV (symmetric storage included), SpMM (CSR, CSR5, symmetric), SpGEMM and triangular solve kernels run as tasks on the caller's rayon pool; `available_threads` |
//! | `mtx` | | `io`: Matrix Market read and write (coordinate real/integer/pattern, general/symmetric/skew-symmetric, gzip) |
//! | `gen` | | `generate`: deterministic, seeded matrices of the thesis's benchmark classes, and the benchmark suite |
//! | `gpu` | | `gpu`: SPIR-V modules of the CSR and CSR5 SpMV kernels (rust-gpu) with bindings and dispatch metadata; no runtime |
//!
//! Without default features the crate is `no_std` with no allocator: every view,
//! conversion and kernel works on caller buffers.
//!
//! ## More in the README
//!
//! The README's sections *The two commands* (the benchmark suite and the test suite),
//! *From C*, *From WebAssembly*, *On a microcontroller*, *Formats* (the invariants each
//! `new` checks), *SpGEMM*, *GPU kernels*, *Measured* (against other libraries, tables
//! in `benches/records/`) and *Thesis map*.
//!
//! ## Quick start
//! ```
//! use spblas::{Csr, Exec, SpMv};
//! // [[1, 0, 2],
//! //  [0, 0, 0],
//! //  [0, 3, 0]]
//! let row_ptr = [0u32, 2, 2, 3];
//! let col_idx = [0u32, 2, 1];
//! let vals = [1.0f64, 2.0, 3.0];
//! let a = Csr::new(3, 3, &row_ptr, &col_idx, &vals)?;
//! let x = [1.0, 1.0, 1.0];
//! let mut y = [f64::NAN; 3]; // beta = 0: y is only written
//! a.spmv(Exec::new(), 1.0, &x, 0.0, &mut y)?;
//! assert_eq!(y, [3.0, 0.0, 3.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![no_std]
#![deny(missing_docs)]
#![forbid(unsafe_op_in_unsafe_fn)]
#![deny(unsafe_code)]
// No panics in library code (ARCHITECTURE.md, principle 2): no `unwrap`/`expect`/`panic!` and
// friends outside tests, and every public `Result` says when it fails. Indexing is not
// linted (`clippy::indexing_slicing`): the kernels index slices whose bounds the format
// validation established, and `get(..)` everywhere would add error paths that cannot be
// taken; the fuzz targets (`fuzz/`) check instead that no input reaches a bad index.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented,
        clippy::missing_panics_doc
    )
)]
#![deny(clippy::missing_errors_doc)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod arch;
mod error;
pub mod formats;
// The feature is `gen`; the module cannot be, `gen` being a keyword in
// edition 2024.
#[cfg(feature = "gen")]
pub mod generate;
#[cfg(feature = "gpu")]
pub mod gpu;
#[cfg(feature = "mtx")]
pub mod io;
pub mod isa;
pub mod level1;
pub mod level2;
pub mod level3;
#[cfg(feature = "parallel")]
mod parallel;
pub mod primitives;
mod scalar;
mod tuning;

pub use error::{DimError, FormatError};
#[cfg(feature = "heapless")]
pub use formats::CsrHeapless;
pub use formats::{Coo, Csc, Csr, Csr5, Csr5Layout, RowOrder};
#[cfg(feature = "alloc")]
pub use formats::{CooOwned, Csr5Owned, CsrOwned};
pub use formats::{Dia, DiaLayout, Jds, JdsLayout};
#[cfg(feature = "alloc")]
pub use formats::{DiaOwned, JdsOwned};
pub use formats::{Ell, EllLayout, Hyb, HybLayout, Sell, SellLayout, Symmetric, Triangle};
#[cfg(feature = "alloc")]
pub use formats::{EllOwned, HybOwned, SellOwned};
pub use isa::{Exec, Gathers, Isa};
pub use level2::{
    CsrMethod, DenseLayout, DenseMut, DenseRef, SpMm, SpMv, SpmvChoice, SpmvPlanLayout, SpmvPlanView,
};
#[cfg(feature = "parallel")]
pub use parallel::available_threads;
// The plan is the recommended SpMV for a matrix multiplied many times (an iterative
// solver): at the root, beside the borrowed `SpMv` path.
#[cfg(feature = "alloc")]
pub use level2::{SpmvConfig, SpmvPlan};
pub use scalar::{Index, Scalar};
pub use tuning::{TUNING, Tuning};

/// The README's code blocks, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
