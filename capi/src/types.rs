//! The structs C code fills in or receives. Generic in Rust; the header declares one
//! struct per value and index type (`spblas_csr_f64_u32`, ...) through the aliases in
//! `exports.rs`.

use spblas_core::Csr5Layout;

/// A CSR matrix given by its arrays (borrowed: the library never frees or keeps them past
/// the call).
///
/// `row_ptr` has `nrows + 1` entries starting at 0, non-decreasing, the last one the
/// entry count `nnz`; `col_idx` and `vals` have `nnz` entries, every column below
/// `ncols`. Rows need not be sorted. Arrays of length 0 may be NULL.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CsrArrays<T, I> {
    /// Rows.
    pub nrows: usize,
    /// Columns.
    pub ncols: usize,
    /// `nrows + 1` row offsets.
    pub row_ptr: *const I,
    /// `nnz` column indices.
    pub col_idx: *const I,
    /// `nnz` values.
    pub vals: *const T,
}

/// The sizes of a CSR matrix's CSR5 form: what `spblas_csr5_layout_*` reports and
/// `spblas_csr5_build_*` needs. Fill it only from the layout query: the build remakes it
/// from the matrix and refuses a struct that differs.
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct spblas_csr5_layout {
    /// Tile width (SIMD lanes).
    pub omega: usize,
    /// Tile height (entries per lane).
    pub sigma: usize,
    /// Complete tiles.
    pub tiles: usize,
    /// Entries: the length of the CSR5 `col_idx` and `vals`.
    pub nnz: usize,
    /// Length of `tile_ptr` and of `empty_offset_ptr`.
    pub tile_ptr_len: usize,
    /// Length of `tile_desc` (32-bit words).
    pub tile_desc_len: usize,
    /// Length of `empty_offset`.
    pub empty_offset_len: usize,
}

impl spblas_csr5_layout {
    pub(crate) fn of(l: &Csr5Layout) -> Self {
        spblas_csr5_layout {
            omega: l.omega(),
            sigma: l.sigma(),
            tiles: l.tiles(),
            nnz: l.nnz(),
            tile_ptr_len: l.tile_ptr_len(),
            tile_desc_len: l.tile_desc_len(),
            empty_offset_len: l.empty_offset_len(),
        }
    }
}

/// A CSR5 matrix (thesis chapter 5) in caller memory. Before `spblas_csr5_build_*` the
/// caller sets the six buffer pointers, each to an array of the length the layout gives;
/// the build fills them and sets `layout`, `nrows`, `ncols` and `row_ptr` (the CSR
/// matrix's, shared). The struct and its arrays then describe the matrix for
/// `spblas_csr5_spmv_*` as long as nothing changes them.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Csr5Matrix<T, I> {
    /// Set by the build.
    pub layout: spblas_csr5_layout,
    /// Set by the build.
    pub nrows: usize,
    /// Set by the build.
    pub ncols: usize,
    /// Set by the build: the CSR matrix's `row_ptr`, which must outlive this struct.
    pub row_ptr: *const I,
    /// `layout.nnz` column indices, tiles transposed.
    pub col_idx: *mut I,
    /// `layout.nnz` values, tiles transposed.
    pub vals: *mut T,
    /// `layout.tile_ptr_len` entries.
    pub tile_ptr: *mut I,
    /// `layout.tile_desc_len` words.
    pub tile_desc: *mut u32,
    /// `layout.tile_ptr_len` entries.
    pub empty_offset_ptr: *mut I,
    /// `layout.empty_offset_len` entries.
    pub empty_offset: *mut I,
}
