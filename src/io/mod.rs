//! File formats (feature `mtx`): reading matrices into [`CsrOwned`](crate::CsrOwned) and
//! writing [`Csr`](crate::Csr) views out.
//!
//! - [`mtx`]: the NIST Matrix Market exchange format (`.mtx`, and `.mtx.gz` as
//!   SuiteSparse ships it).

pub mod mtx;

pub use mtx::{
    MtxError, MtxField, MtxFormat, MtxHeader, MtxLimits, MtxObject, MtxSymmetry, read_mtx, read_mtx_header,
    read_mtx_header_path, read_mtx_path, read_mtx_path_with, read_mtx_with, write_mtx, write_mtx_path,
};
