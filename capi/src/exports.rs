//! The exported C functions and type names: one thin instance of `ops` per value and
//! index type. The `f64_u32` family carries the full documentation (it becomes the
//! header's); the other three point to it.
#![allow(unsafe_code, non_camel_case_types)]
// Every function's contract is the one the header states once (the crate docs): each
// pointer points to as many initialised elements as its length says, outputs overlap no
// input, nothing else writes the arrays during the call. Each function's comment says
// what its lengths are; a `# Safety` section per function would repeat the first part.
#![allow(clippy::missing_safety_doc)]

use crate::ops;
#[cfg(feature = "std")]
use crate::ops::Plan;
use crate::status::Status;
use crate::types::{Csr5Matrix, CsrArrays, spblas_csr5_layout};

// ---------------------------------------------------------------------------------------
// `double` values, `uint32_t` indices.
// ---------------------------------------------------------------------------------------
/// `y = alpha * A x + beta * y` for the CSR matrix `A` (`nrows` x `ncols`) given by its
/// arrays, on the widest instruction set of this machine, by the default CSR method. `x`
/// has `ncols` entries, `y` `nrows` (with `beta == 0`, `y` is only written). The arrays
/// are validated first (one pass over `row_ptr` and `col_idx`); for a matrix multiplied
/// many times, a plan (`spblas_plan_f64_u32_create`) validates once and picks a method.
///
/// Returns `SPBLAS_OK`, or an `SPBLAS_ERR_*` status with `y` untouched.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn spblas_csr_spmv_f64_u32(
    nrows: usize,
    ncols: usize,
    row_ptr: *const u32,
    col_idx: *const u32,
    vals: *const f64,
    alpha: f64,
    x: *const f64,
    beta: f64,
    y: *mut f64,
) -> Status {
    // SAFETY: the header's promise for these arrays.
    unsafe { ops::csr_spmv(nrows, ncols, row_ptr, col_idx, vals, alpha, x, beta, y) }
}

/// Validates the CSR matrix given by its arrays and builds a plan for `y = alpha * A x +
/// beta * y` into `*out` (as MKL's inspector-executor does): the method for this matrix and
/// this machine, and the copies it needs (the plan allocates; CSR5 tiles, for instance).
/// The plan **borrows** `row_ptr`, `col_idx` and `vals`: they must stay alive and
/// unchanged until `spblas_plan_f64_u32_destroy`. Needs the library's default `std`
/// feature.
///
/// Returns `SPBLAS_OK`, or an `SPBLAS_ERR_*` status with `*out` untouched.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f64_u32_create(
    nrows: usize,
    ncols: usize,
    row_ptr: *const u32,
    col_idx: *const u32,
    vals: *const f64,
    out: *mut *mut Plan<f64, u32>,
) -> Status {
    // SAFETY: the header's promise for these arrays, which outlive the plan.
    unsafe { ops::plan_create(nrows, ncols, row_ptr, col_idx, vals, out) }
}
/// `y = alpha * A x + beta * y` by the plan: `x` has the matrix's `ncols` entries, `y` its
/// `nrows`.
///
/// Returns `SPBLAS_OK`, or an `SPBLAS_ERR_*` status with `y` untouched.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f64_u32_spmv(
    plan: *const Plan<f64, u32>,
    alpha: f64,
    x: *const f64,
    beta: f64,
    y: *mut f64,
) -> Status {
    // SAFETY: the header's promise: a live plan and vectors of its dimensions.
    unsafe { ops::plan_spmv(plan, alpha, x, beta, y) }
}
/// Frees a plan. NULL is accepted (and does nothing).
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f64_u32_destroy(plan: *mut Plan<f64, u32>) {
    // SAFETY: the header's promise: NULL or a plan not destroyed before.
    unsafe { ops::plan_destroy(plan) }
}
/// The CSR5 layout of `a` for the widest instruction set of this machine: the lengths of
/// the buffers `spblas_csr5_build_f64_u32` fills. Validates `a`; allocates nothing.
///
/// Returns `SPBLAS_OK`, or an `SPBLAS_ERR_*` status with `*out` untouched.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_layout_f64_u32(
    a: *const CsrArrays<f64, u32>,
    out: *mut spblas_csr5_layout,
) -> Status {
    // SAFETY: the header's promise for `a`'s arrays and `out`.
    unsafe { ops::csr5_layout(a, out) }
}
/// Converts `a` into CSR5 (thesis 6.3) in the caller's buffers of `out`, whose lengths
/// `layout` (from `spblas_csr5_layout_f64_u32` for the same `a`) gives, and fills in
/// `out`'s other fields. `out->row_ptr` is `a->row_ptr`: it must outlive `out`.
/// Allocates nothing.
///
/// Returns `SPBLAS_OK`, or an `SPBLAS_ERR_*` status (`SPBLAS_ERR_INVALID_ARGUMENT` for a
/// layout not made for `a`) with `out` untouched.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_build_f64_u32(
    a: *const CsrArrays<f64, u32>,
    layout: *const spblas_csr5_layout,
    out: *mut Csr5Matrix<f64, u32>,
) -> Status {
    // SAFETY: the header's promise for `a`'s arrays, `layout` and `out`'s buffers.
    unsafe { ops::csr5_build(a, layout, out) }
}
/// `y = alpha * A x + beta * y` for the CSR5 matrix `m` (as `spblas_csr5_build_f64_u32`
/// left it), on the widest instruction set of this machine. `m` is validated first (a
/// pass over its arrays). Allocates nothing.
///
/// Returns `SPBLAS_OK`, or an `SPBLAS_ERR_*` status with `y` untouched.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_spmv_f64_u32(
    m: *const Csr5Matrix<f64, u32>,
    alpha: f64,
    x: *const f64,
    beta: f64,
    y: *mut f64,
) -> Status {
    // SAFETY: the header's promise for `m`'s arrays and the vectors.
    unsafe { ops::csr5_spmv(m, alpha, x, beta, y) }
}
/// The workspace lengths the SpGEMM `C = A * B` needs (thesis chapter 9): `*idx_len`
/// indices and `*vals_len` values. The symbolic phase needs the index workspace, the
/// numeric phase both. Validates `a` and `b`; allocates nothing.
///
/// Returns `SPBLAS_OK`, or an `SPBLAS_ERR_*` status with the outputs untouched.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_spgemm_workspace_f64_u32(
    a: *const CsrArrays<f64, u32>,
    b: *const CsrArrays<f64, u32>,
    idx_len: *mut usize,
    vals_len: *mut usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the outputs.
    unsafe { ops::spgemm_workspace(a, b, idx_len, vals_len) }
}
/// The symbolic phase of `C = A * B`: the row pointers of `C` into `c_row_ptr`
/// (`a->nrows + 1` entries) and its entry count into `*c_nnz`, with an index workspace of
/// `workspace_len` entries (`spblas_spgemm_workspace_f64_u32`). Allocates nothing.
///
/// Returns `SPBLAS_OK`, or an `SPBLAS_ERR_*` status with the outputs untouched.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_spgemm_symbolic_f64_u32(
    a: *const CsrArrays<f64, u32>,
    b: *const CsrArrays<f64, u32>,
    c_row_ptr: *mut u32,
    workspace: *mut u32,
    workspace_len: usize,
    c_nnz: *mut usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the buffers.
    unsafe { ops::spgemm_symbolic(a, b, c_row_ptr, workspace, workspace_len, c_nnz) }
}
/// The numeric phase of `C = A * B`: columns (sorted in each row) and values into
/// `c_col_idx` and `c_vals` (`c_row_ptr[a->nrows]` entries each), with `c_row_ptr` from
/// the symbolic phase and the workspaces of `spblas_spgemm_workspace_f64_u32`. Allocates
/// nothing.
///
/// Returns `SPBLAS_OK`, or an `SPBLAS_ERR_*` status (`SPBLAS_ERR_INVALID_ARGUMENT` for
/// row pointers the symbolic phase did not make); `C`'s arrays may then be partly
/// written.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn spblas_spgemm_numeric_f64_u32(
    a: *const CsrArrays<f64, u32>,
    b: *const CsrArrays<f64, u32>,
    c_row_ptr: *const u32,
    c_col_idx: *mut u32,
    c_vals: *mut f64,
    workspace_idx: *mut u32,
    workspace_idx_len: usize,
    workspace_vals: *mut f64,
    workspace_vals_len: usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the buffers.
    unsafe {
        ops::spgemm_numeric(
            a,
            b,
            c_row_ptr,
            c_col_idx,
            c_vals,
            workspace_idx,
            workspace_idx_len,
            workspace_vals,
            workspace_vals_len,
        )
    }
}

// ---------------------------------------------------------------------------------------
// `double` values, `uint64_t` indices.
// ---------------------------------------------------------------------------------------
/// As the `f64_u32` function of the same name, for `double` values and `uint64_t` indices.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn spblas_csr_spmv_f64_u64(
    nrows: usize,
    ncols: usize,
    row_ptr: *const u64,
    col_idx: *const u64,
    vals: *const f64,
    alpha: f64,
    x: *const f64,
    beta: f64,
    y: *mut f64,
) -> Status {
    // SAFETY: the header's promise for these arrays.
    unsafe { ops::csr_spmv(nrows, ncols, row_ptr, col_idx, vals, alpha, x, beta, y) }
}

/// As the `f64_u32` function of the same name, for `double` values and `uint64_t` indices.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f64_u64_create(
    nrows: usize,
    ncols: usize,
    row_ptr: *const u64,
    col_idx: *const u64,
    vals: *const f64,
    out: *mut *mut Plan<f64, u64>,
) -> Status {
    // SAFETY: the header's promise for these arrays, which outlive the plan.
    unsafe { ops::plan_create(nrows, ncols, row_ptr, col_idx, vals, out) }
}
/// As the `f64_u32` function of the same name, for `double` values and `uint64_t` indices.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f64_u64_spmv(
    plan: *const Plan<f64, u64>,
    alpha: f64,
    x: *const f64,
    beta: f64,
    y: *mut f64,
) -> Status {
    // SAFETY: the header's promise: a live plan and vectors of its dimensions.
    unsafe { ops::plan_spmv(plan, alpha, x, beta, y) }
}
/// As the `f64_u32` function of the same name, for `double` values and `uint64_t` indices.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f64_u64_destroy(plan: *mut Plan<f64, u64>) {
    // SAFETY: the header's promise: NULL or a plan not destroyed before.
    unsafe { ops::plan_destroy(plan) }
}
/// As the `f64_u32` function of the same name, for `double` values and `uint64_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_layout_f64_u64(
    a: *const CsrArrays<f64, u64>,
    out: *mut spblas_csr5_layout,
) -> Status {
    // SAFETY: the header's promise for `a`'s arrays and `out`.
    unsafe { ops::csr5_layout(a, out) }
}
/// As the `f64_u32` function of the same name, for `double` values and `uint64_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_build_f64_u64(
    a: *const CsrArrays<f64, u64>,
    layout: *const spblas_csr5_layout,
    out: *mut Csr5Matrix<f64, u64>,
) -> Status {
    // SAFETY: the header's promise for `a`'s arrays, `layout` and `out`'s buffers.
    unsafe { ops::csr5_build(a, layout, out) }
}
/// As the `f64_u32` function of the same name, for `double` values and `uint64_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_spmv_f64_u64(
    m: *const Csr5Matrix<f64, u64>,
    alpha: f64,
    x: *const f64,
    beta: f64,
    y: *mut f64,
) -> Status {
    // SAFETY: the header's promise for `m`'s arrays and the vectors.
    unsafe { ops::csr5_spmv(m, alpha, x, beta, y) }
}
/// As the `f64_u32` function of the same name, for `double` values and `uint64_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_spgemm_workspace_f64_u64(
    a: *const CsrArrays<f64, u64>,
    b: *const CsrArrays<f64, u64>,
    idx_len: *mut usize,
    vals_len: *mut usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the outputs.
    unsafe { ops::spgemm_workspace(a, b, idx_len, vals_len) }
}
/// As the `f64_u32` function of the same name, for `double` values and `uint64_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_spgemm_symbolic_f64_u64(
    a: *const CsrArrays<f64, u64>,
    b: *const CsrArrays<f64, u64>,
    c_row_ptr: *mut u64,
    workspace: *mut u64,
    workspace_len: usize,
    c_nnz: *mut usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the buffers.
    unsafe { ops::spgemm_symbolic(a, b, c_row_ptr, workspace, workspace_len, c_nnz) }
}
/// As the `f64_u32` function of the same name, for `double` values and `uint64_t` indices.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn spblas_spgemm_numeric_f64_u64(
    a: *const CsrArrays<f64, u64>,
    b: *const CsrArrays<f64, u64>,
    c_row_ptr: *const u64,
    c_col_idx: *mut u64,
    c_vals: *mut f64,
    workspace_idx: *mut u64,
    workspace_idx_len: usize,
    workspace_vals: *mut f64,
    workspace_vals_len: usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the buffers.
    unsafe {
        ops::spgemm_numeric(
            a,
            b,
            c_row_ptr,
            c_col_idx,
            c_vals,
            workspace_idx,
            workspace_idx_len,
            workspace_vals,
            workspace_vals_len,
        )
    }
}

// ---------------------------------------------------------------------------------------
// `float` values, `uint32_t` indices.
// ---------------------------------------------------------------------------------------
/// As the `f64_u32` function of the same name, for `float` values and `uint32_t` indices.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn spblas_csr_spmv_f32_u32(
    nrows: usize,
    ncols: usize,
    row_ptr: *const u32,
    col_idx: *const u32,
    vals: *const f32,
    alpha: f32,
    x: *const f32,
    beta: f32,
    y: *mut f32,
) -> Status {
    // SAFETY: the header's promise for these arrays.
    unsafe { ops::csr_spmv(nrows, ncols, row_ptr, col_idx, vals, alpha, x, beta, y) }
}

/// As the `f64_u32` function of the same name, for `float` values and `uint32_t` indices.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f32_u32_create(
    nrows: usize,
    ncols: usize,
    row_ptr: *const u32,
    col_idx: *const u32,
    vals: *const f32,
    out: *mut *mut Plan<f32, u32>,
) -> Status {
    // SAFETY: the header's promise for these arrays, which outlive the plan.
    unsafe { ops::plan_create(nrows, ncols, row_ptr, col_idx, vals, out) }
}
/// As the `f64_u32` function of the same name, for `float` values and `uint32_t` indices.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f32_u32_spmv(
    plan: *const Plan<f32, u32>,
    alpha: f32,
    x: *const f32,
    beta: f32,
    y: *mut f32,
) -> Status {
    // SAFETY: the header's promise: a live plan and vectors of its dimensions.
    unsafe { ops::plan_spmv(plan, alpha, x, beta, y) }
}
/// As the `f64_u32` function of the same name, for `float` values and `uint32_t` indices.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f32_u32_destroy(plan: *mut Plan<f32, u32>) {
    // SAFETY: the header's promise: NULL or a plan not destroyed before.
    unsafe { ops::plan_destroy(plan) }
}
/// As the `f64_u32` function of the same name, for `float` values and `uint32_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_layout_f32_u32(
    a: *const CsrArrays<f32, u32>,
    out: *mut spblas_csr5_layout,
) -> Status {
    // SAFETY: the header's promise for `a`'s arrays and `out`.
    unsafe { ops::csr5_layout(a, out) }
}
/// As the `f64_u32` function of the same name, for `float` values and `uint32_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_build_f32_u32(
    a: *const CsrArrays<f32, u32>,
    layout: *const spblas_csr5_layout,
    out: *mut Csr5Matrix<f32, u32>,
) -> Status {
    // SAFETY: the header's promise for `a`'s arrays, `layout` and `out`'s buffers.
    unsafe { ops::csr5_build(a, layout, out) }
}
/// As the `f64_u32` function of the same name, for `float` values and `uint32_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_spmv_f32_u32(
    m: *const Csr5Matrix<f32, u32>,
    alpha: f32,
    x: *const f32,
    beta: f32,
    y: *mut f32,
) -> Status {
    // SAFETY: the header's promise for `m`'s arrays and the vectors.
    unsafe { ops::csr5_spmv(m, alpha, x, beta, y) }
}
/// As the `f64_u32` function of the same name, for `float` values and `uint32_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_spgemm_workspace_f32_u32(
    a: *const CsrArrays<f32, u32>,
    b: *const CsrArrays<f32, u32>,
    idx_len: *mut usize,
    vals_len: *mut usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the outputs.
    unsafe { ops::spgemm_workspace(a, b, idx_len, vals_len) }
}
/// As the `f64_u32` function of the same name, for `float` values and `uint32_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_spgemm_symbolic_f32_u32(
    a: *const CsrArrays<f32, u32>,
    b: *const CsrArrays<f32, u32>,
    c_row_ptr: *mut u32,
    workspace: *mut u32,
    workspace_len: usize,
    c_nnz: *mut usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the buffers.
    unsafe { ops::spgemm_symbolic(a, b, c_row_ptr, workspace, workspace_len, c_nnz) }
}
/// As the `f64_u32` function of the same name, for `float` values and `uint32_t` indices.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn spblas_spgemm_numeric_f32_u32(
    a: *const CsrArrays<f32, u32>,
    b: *const CsrArrays<f32, u32>,
    c_row_ptr: *const u32,
    c_col_idx: *mut u32,
    c_vals: *mut f32,
    workspace_idx: *mut u32,
    workspace_idx_len: usize,
    workspace_vals: *mut f32,
    workspace_vals_len: usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the buffers.
    unsafe {
        ops::spgemm_numeric(
            a,
            b,
            c_row_ptr,
            c_col_idx,
            c_vals,
            workspace_idx,
            workspace_idx_len,
            workspace_vals,
            workspace_vals_len,
        )
    }
}

// ---------------------------------------------------------------------------------------
// `float` values, `uint64_t` indices.
// ---------------------------------------------------------------------------------------
/// As the `f64_u32` function of the same name, for `float` values and `uint64_t` indices.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn spblas_csr_spmv_f32_u64(
    nrows: usize,
    ncols: usize,
    row_ptr: *const u64,
    col_idx: *const u64,
    vals: *const f32,
    alpha: f32,
    x: *const f32,
    beta: f32,
    y: *mut f32,
) -> Status {
    // SAFETY: the header's promise for these arrays.
    unsafe { ops::csr_spmv(nrows, ncols, row_ptr, col_idx, vals, alpha, x, beta, y) }
}

/// As the `f64_u32` function of the same name, for `float` values and `uint64_t` indices.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f32_u64_create(
    nrows: usize,
    ncols: usize,
    row_ptr: *const u64,
    col_idx: *const u64,
    vals: *const f32,
    out: *mut *mut Plan<f32, u64>,
) -> Status {
    // SAFETY: the header's promise for these arrays, which outlive the plan.
    unsafe { ops::plan_create(nrows, ncols, row_ptr, col_idx, vals, out) }
}
/// As the `f64_u32` function of the same name, for `float` values and `uint64_t` indices.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f32_u64_spmv(
    plan: *const Plan<f32, u64>,
    alpha: f32,
    x: *const f32,
    beta: f32,
    y: *mut f32,
) -> Status {
    // SAFETY: the header's promise: a live plan and vectors of its dimensions.
    unsafe { ops::plan_spmv(plan, alpha, x, beta, y) }
}
/// As the `f64_u32` function of the same name, for `float` values and `uint64_t` indices.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f32_u64_destroy(plan: *mut Plan<f32, u64>) {
    // SAFETY: the header's promise: NULL or a plan not destroyed before.
    unsafe { ops::plan_destroy(plan) }
}
/// As the `f64_u32` function of the same name, for `float` values and `uint64_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_layout_f32_u64(
    a: *const CsrArrays<f32, u64>,
    out: *mut spblas_csr5_layout,
) -> Status {
    // SAFETY: the header's promise for `a`'s arrays and `out`.
    unsafe { ops::csr5_layout(a, out) }
}
/// As the `f64_u32` function of the same name, for `float` values and `uint64_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_build_f32_u64(
    a: *const CsrArrays<f32, u64>,
    layout: *const spblas_csr5_layout,
    out: *mut Csr5Matrix<f32, u64>,
) -> Status {
    // SAFETY: the header's promise for `a`'s arrays, `layout` and `out`'s buffers.
    unsafe { ops::csr5_build(a, layout, out) }
}
/// As the `f64_u32` function of the same name, for `float` values and `uint64_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_spmv_f32_u64(
    m: *const Csr5Matrix<f32, u64>,
    alpha: f32,
    x: *const f32,
    beta: f32,
    y: *mut f32,
) -> Status {
    // SAFETY: the header's promise for `m`'s arrays and the vectors.
    unsafe { ops::csr5_spmv(m, alpha, x, beta, y) }
}
/// As the `f64_u32` function of the same name, for `float` values and `uint64_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_spgemm_workspace_f32_u64(
    a: *const CsrArrays<f32, u64>,
    b: *const CsrArrays<f32, u64>,
    idx_len: *mut usize,
    vals_len: *mut usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the outputs.
    unsafe { ops::spgemm_workspace(a, b, idx_len, vals_len) }
}
/// As the `f64_u32` function of the same name, for `float` values and `uint64_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_spgemm_symbolic_f32_u64(
    a: *const CsrArrays<f32, u64>,
    b: *const CsrArrays<f32, u64>,
    c_row_ptr: *mut u64,
    workspace: *mut u64,
    workspace_len: usize,
    c_nnz: *mut usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the buffers.
    unsafe { ops::spgemm_symbolic(a, b, c_row_ptr, workspace, workspace_len, c_nnz) }
}
/// As the `f64_u32` function of the same name, for `float` values and `uint64_t` indices.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn spblas_spgemm_numeric_f32_u64(
    a: *const CsrArrays<f32, u64>,
    b: *const CsrArrays<f32, u64>,
    c_row_ptr: *const u64,
    c_col_idx: *mut u64,
    c_vals: *mut f32,
    workspace_idx: *mut u64,
    workspace_idx_len: usize,
    workspace_vals: *mut f32,
    workspace_vals_len: usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the buffers.
    unsafe {
        ops::spgemm_numeric(
            a,
            b,
            c_row_ptr,
            c_col_idx,
            c_vals,
            workspace_idx,
            workspace_idx_len,
            workspace_vals,
            workspace_vals_len,
        )
    }
}

// ---------------------------------------------------------------------------------------
// `double` values, `int32_t` indices.
// ---------------------------------------------------------------------------------------
/// As the `f64_u32` function of the same name, for `double` values and `int32_t` indices.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn spblas_csr_spmv_f64_i32(
    nrows: usize,
    ncols: usize,
    row_ptr: *const i32,
    col_idx: *const i32,
    vals: *const f64,
    alpha: f64,
    x: *const f64,
    beta: f64,
    y: *mut f64,
) -> Status {
    // SAFETY: the header's promise for these arrays.
    unsafe { ops::csr_spmv(nrows, ncols, row_ptr, col_idx, vals, alpha, x, beta, y) }
}

/// As the `f64_u32` function of the same name, for `double` values and `int32_t` indices.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f64_i32_create(
    nrows: usize,
    ncols: usize,
    row_ptr: *const i32,
    col_idx: *const i32,
    vals: *const f64,
    out: *mut *mut Plan<f64, i32>,
) -> Status {
    // SAFETY: the header's promise for these arrays, which outlive the plan.
    unsafe { ops::plan_create(nrows, ncols, row_ptr, col_idx, vals, out) }
}
/// As the `f64_u32` function of the same name, for `double` values and `int32_t` indices.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f64_i32_spmv(
    plan: *const Plan<f64, i32>,
    alpha: f64,
    x: *const f64,
    beta: f64,
    y: *mut f64,
) -> Status {
    // SAFETY: the header's promise: a live plan and vectors of its dimensions.
    unsafe { ops::plan_spmv(plan, alpha, x, beta, y) }
}
/// As the `f64_u32` function of the same name, for `double` values and `int32_t` indices.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f64_i32_destroy(plan: *mut Plan<f64, i32>) {
    // SAFETY: the header's promise: NULL or a plan not destroyed before.
    unsafe { ops::plan_destroy(plan) }
}
/// As the `f64_u32` function of the same name, for `double` values and `int32_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_layout_f64_i32(
    a: *const CsrArrays<f64, i32>,
    out: *mut spblas_csr5_layout,
) -> Status {
    // SAFETY: the header's promise for `a`'s arrays and `out`.
    unsafe { ops::csr5_layout(a, out) }
}
/// As the `f64_u32` function of the same name, for `double` values and `int32_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_build_f64_i32(
    a: *const CsrArrays<f64, i32>,
    layout: *const spblas_csr5_layout,
    out: *mut Csr5Matrix<f64, i32>,
) -> Status {
    // SAFETY: the header's promise for `a`'s arrays, `layout` and `out`'s buffers.
    unsafe { ops::csr5_build(a, layout, out) }
}
/// As the `f64_u32` function of the same name, for `double` values and `int32_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_spmv_f64_i32(
    m: *const Csr5Matrix<f64, i32>,
    alpha: f64,
    x: *const f64,
    beta: f64,
    y: *mut f64,
) -> Status {
    // SAFETY: the header's promise for `m`'s arrays and the vectors.
    unsafe { ops::csr5_spmv(m, alpha, x, beta, y) }
}
/// As the `f64_u32` function of the same name, for `double` values and `int32_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_spgemm_workspace_f64_i32(
    a: *const CsrArrays<f64, i32>,
    b: *const CsrArrays<f64, i32>,
    idx_len: *mut usize,
    vals_len: *mut usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the outputs.
    unsafe { ops::spgemm_workspace(a, b, idx_len, vals_len) }
}
/// As the `f64_u32` function of the same name, for `double` values and `int32_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_spgemm_symbolic_f64_i32(
    a: *const CsrArrays<f64, i32>,
    b: *const CsrArrays<f64, i32>,
    c_row_ptr: *mut i32,
    workspace: *mut i32,
    workspace_len: usize,
    c_nnz: *mut usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the buffers.
    unsafe { ops::spgemm_symbolic(a, b, c_row_ptr, workspace, workspace_len, c_nnz) }
}
/// As the `f64_u32` function of the same name, for `double` values and `int32_t` indices.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn spblas_spgemm_numeric_f64_i32(
    a: *const CsrArrays<f64, i32>,
    b: *const CsrArrays<f64, i32>,
    c_row_ptr: *const i32,
    c_col_idx: *mut i32,
    c_vals: *mut f64,
    workspace_idx: *mut i32,
    workspace_idx_len: usize,
    workspace_vals: *mut f64,
    workspace_vals_len: usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the buffers.
    unsafe {
        ops::spgemm_numeric(
            a,
            b,
            c_row_ptr,
            c_col_idx,
            c_vals,
            workspace_idx,
            workspace_idx_len,
            workspace_vals,
            workspace_vals_len,
        )
    }
}

// ---------------------------------------------------------------------------------------
// `double` values, `int64_t` indices.
// ---------------------------------------------------------------------------------------
/// As the `f64_u32` function of the same name, for `double` values and `int64_t` indices.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn spblas_csr_spmv_f64_i64(
    nrows: usize,
    ncols: usize,
    row_ptr: *const i64,
    col_idx: *const i64,
    vals: *const f64,
    alpha: f64,
    x: *const f64,
    beta: f64,
    y: *mut f64,
) -> Status {
    // SAFETY: the header's promise for these arrays.
    unsafe { ops::csr_spmv(nrows, ncols, row_ptr, col_idx, vals, alpha, x, beta, y) }
}

/// As the `f64_u32` function of the same name, for `double` values and `int64_t` indices.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f64_i64_create(
    nrows: usize,
    ncols: usize,
    row_ptr: *const i64,
    col_idx: *const i64,
    vals: *const f64,
    out: *mut *mut Plan<f64, i64>,
) -> Status {
    // SAFETY: the header's promise for these arrays, which outlive the plan.
    unsafe { ops::plan_create(nrows, ncols, row_ptr, col_idx, vals, out) }
}
/// As the `f64_u32` function of the same name, for `double` values and `int64_t` indices.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f64_i64_spmv(
    plan: *const Plan<f64, i64>,
    alpha: f64,
    x: *const f64,
    beta: f64,
    y: *mut f64,
) -> Status {
    // SAFETY: the header's promise: a live plan and vectors of its dimensions.
    unsafe { ops::plan_spmv(plan, alpha, x, beta, y) }
}
/// As the `f64_u32` function of the same name, for `double` values and `int64_t` indices.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f64_i64_destroy(plan: *mut Plan<f64, i64>) {
    // SAFETY: the header's promise: NULL or a plan not destroyed before.
    unsafe { ops::plan_destroy(plan) }
}
/// As the `f64_u32` function of the same name, for `double` values and `int64_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_layout_f64_i64(
    a: *const CsrArrays<f64, i64>,
    out: *mut spblas_csr5_layout,
) -> Status {
    // SAFETY: the header's promise for `a`'s arrays and `out`.
    unsafe { ops::csr5_layout(a, out) }
}
/// As the `f64_u32` function of the same name, for `double` values and `int64_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_build_f64_i64(
    a: *const CsrArrays<f64, i64>,
    layout: *const spblas_csr5_layout,
    out: *mut Csr5Matrix<f64, i64>,
) -> Status {
    // SAFETY: the header's promise for `a`'s arrays, `layout` and `out`'s buffers.
    unsafe { ops::csr5_build(a, layout, out) }
}
/// As the `f64_u32` function of the same name, for `double` values and `int64_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_spmv_f64_i64(
    m: *const Csr5Matrix<f64, i64>,
    alpha: f64,
    x: *const f64,
    beta: f64,
    y: *mut f64,
) -> Status {
    // SAFETY: the header's promise for `m`'s arrays and the vectors.
    unsafe { ops::csr5_spmv(m, alpha, x, beta, y) }
}
/// As the `f64_u32` function of the same name, for `double` values and `int64_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_spgemm_workspace_f64_i64(
    a: *const CsrArrays<f64, i64>,
    b: *const CsrArrays<f64, i64>,
    idx_len: *mut usize,
    vals_len: *mut usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the outputs.
    unsafe { ops::spgemm_workspace(a, b, idx_len, vals_len) }
}
/// As the `f64_u32` function of the same name, for `double` values and `int64_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_spgemm_symbolic_f64_i64(
    a: *const CsrArrays<f64, i64>,
    b: *const CsrArrays<f64, i64>,
    c_row_ptr: *mut i64,
    workspace: *mut i64,
    workspace_len: usize,
    c_nnz: *mut usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the buffers.
    unsafe { ops::spgemm_symbolic(a, b, c_row_ptr, workspace, workspace_len, c_nnz) }
}
/// As the `f64_u32` function of the same name, for `double` values and `int64_t` indices.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn spblas_spgemm_numeric_f64_i64(
    a: *const CsrArrays<f64, i64>,
    b: *const CsrArrays<f64, i64>,
    c_row_ptr: *const i64,
    c_col_idx: *mut i64,
    c_vals: *mut f64,
    workspace_idx: *mut i64,
    workspace_idx_len: usize,
    workspace_vals: *mut f64,
    workspace_vals_len: usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the buffers.
    unsafe {
        ops::spgemm_numeric(
            a,
            b,
            c_row_ptr,
            c_col_idx,
            c_vals,
            workspace_idx,
            workspace_idx_len,
            workspace_vals,
            workspace_vals_len,
        )
    }
}

// ---------------------------------------------------------------------------------------
// `float` values, `int32_t` indices.
// ---------------------------------------------------------------------------------------
/// As the `f64_u32` function of the same name, for `float` values and `int32_t` indices.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn spblas_csr_spmv_f32_i32(
    nrows: usize,
    ncols: usize,
    row_ptr: *const i32,
    col_idx: *const i32,
    vals: *const f32,
    alpha: f32,
    x: *const f32,
    beta: f32,
    y: *mut f32,
) -> Status {
    // SAFETY: the header's promise for these arrays.
    unsafe { ops::csr_spmv(nrows, ncols, row_ptr, col_idx, vals, alpha, x, beta, y) }
}

/// As the `f64_u32` function of the same name, for `float` values and `int32_t` indices.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f32_i32_create(
    nrows: usize,
    ncols: usize,
    row_ptr: *const i32,
    col_idx: *const i32,
    vals: *const f32,
    out: *mut *mut Plan<f32, i32>,
) -> Status {
    // SAFETY: the header's promise for these arrays, which outlive the plan.
    unsafe { ops::plan_create(nrows, ncols, row_ptr, col_idx, vals, out) }
}
/// As the `f64_u32` function of the same name, for `float` values and `int32_t` indices.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f32_i32_spmv(
    plan: *const Plan<f32, i32>,
    alpha: f32,
    x: *const f32,
    beta: f32,
    y: *mut f32,
) -> Status {
    // SAFETY: the header's promise: a live plan and vectors of its dimensions.
    unsafe { ops::plan_spmv(plan, alpha, x, beta, y) }
}
/// As the `f64_u32` function of the same name, for `float` values and `int32_t` indices.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f32_i32_destroy(plan: *mut Plan<f32, i32>) {
    // SAFETY: the header's promise: NULL or a plan not destroyed before.
    unsafe { ops::plan_destroy(plan) }
}
/// As the `f64_u32` function of the same name, for `float` values and `int32_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_layout_f32_i32(
    a: *const CsrArrays<f32, i32>,
    out: *mut spblas_csr5_layout,
) -> Status {
    // SAFETY: the header's promise for `a`'s arrays and `out`.
    unsafe { ops::csr5_layout(a, out) }
}
/// As the `f64_u32` function of the same name, for `float` values and `int32_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_build_f32_i32(
    a: *const CsrArrays<f32, i32>,
    layout: *const spblas_csr5_layout,
    out: *mut Csr5Matrix<f32, i32>,
) -> Status {
    // SAFETY: the header's promise for `a`'s arrays, `layout` and `out`'s buffers.
    unsafe { ops::csr5_build(a, layout, out) }
}
/// As the `f64_u32` function of the same name, for `float` values and `int32_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_spmv_f32_i32(
    m: *const Csr5Matrix<f32, i32>,
    alpha: f32,
    x: *const f32,
    beta: f32,
    y: *mut f32,
) -> Status {
    // SAFETY: the header's promise for `m`'s arrays and the vectors.
    unsafe { ops::csr5_spmv(m, alpha, x, beta, y) }
}
/// As the `f64_u32` function of the same name, for `float` values and `int32_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_spgemm_workspace_f32_i32(
    a: *const CsrArrays<f32, i32>,
    b: *const CsrArrays<f32, i32>,
    idx_len: *mut usize,
    vals_len: *mut usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the outputs.
    unsafe { ops::spgemm_workspace(a, b, idx_len, vals_len) }
}
/// As the `f64_u32` function of the same name, for `float` values and `int32_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_spgemm_symbolic_f32_i32(
    a: *const CsrArrays<f32, i32>,
    b: *const CsrArrays<f32, i32>,
    c_row_ptr: *mut i32,
    workspace: *mut i32,
    workspace_len: usize,
    c_nnz: *mut usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the buffers.
    unsafe { ops::spgemm_symbolic(a, b, c_row_ptr, workspace, workspace_len, c_nnz) }
}
/// As the `f64_u32` function of the same name, for `float` values and `int32_t` indices.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn spblas_spgemm_numeric_f32_i32(
    a: *const CsrArrays<f32, i32>,
    b: *const CsrArrays<f32, i32>,
    c_row_ptr: *const i32,
    c_col_idx: *mut i32,
    c_vals: *mut f32,
    workspace_idx: *mut i32,
    workspace_idx_len: usize,
    workspace_vals: *mut f32,
    workspace_vals_len: usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the buffers.
    unsafe {
        ops::spgemm_numeric(
            a,
            b,
            c_row_ptr,
            c_col_idx,
            c_vals,
            workspace_idx,
            workspace_idx_len,
            workspace_vals,
            workspace_vals_len,
        )
    }
}

// ---------------------------------------------------------------------------------------
// `float` values, `int64_t` indices.
// ---------------------------------------------------------------------------------------
/// As the `f64_u32` function of the same name, for `float` values and `int64_t` indices.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn spblas_csr_spmv_f32_i64(
    nrows: usize,
    ncols: usize,
    row_ptr: *const i64,
    col_idx: *const i64,
    vals: *const f32,
    alpha: f32,
    x: *const f32,
    beta: f32,
    y: *mut f32,
) -> Status {
    // SAFETY: the header's promise for these arrays.
    unsafe { ops::csr_spmv(nrows, ncols, row_ptr, col_idx, vals, alpha, x, beta, y) }
}

/// As the `f64_u32` function of the same name, for `float` values and `int64_t` indices.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f32_i64_create(
    nrows: usize,
    ncols: usize,
    row_ptr: *const i64,
    col_idx: *const i64,
    vals: *const f32,
    out: *mut *mut Plan<f32, i64>,
) -> Status {
    // SAFETY: the header's promise for these arrays, which outlive the plan.
    unsafe { ops::plan_create(nrows, ncols, row_ptr, col_idx, vals, out) }
}
/// As the `f64_u32` function of the same name, for `float` values and `int64_t` indices.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f32_i64_spmv(
    plan: *const Plan<f32, i64>,
    alpha: f32,
    x: *const f32,
    beta: f32,
    y: *mut f32,
) -> Status {
    // SAFETY: the header's promise: a live plan and vectors of its dimensions.
    unsafe { ops::plan_spmv(plan, alpha, x, beta, y) }
}
/// As the `f64_u32` function of the same name, for `float` values and `int64_t` indices.
#[cfg(feature = "std")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_plan_f32_i64_destroy(plan: *mut Plan<f32, i64>) {
    // SAFETY: the header's promise: NULL or a plan not destroyed before.
    unsafe { ops::plan_destroy(plan) }
}
/// As the `f64_u32` function of the same name, for `float` values and `int64_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_layout_f32_i64(
    a: *const CsrArrays<f32, i64>,
    out: *mut spblas_csr5_layout,
) -> Status {
    // SAFETY: the header's promise for `a`'s arrays and `out`.
    unsafe { ops::csr5_layout(a, out) }
}
/// As the `f64_u32` function of the same name, for `float` values and `int64_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_build_f32_i64(
    a: *const CsrArrays<f32, i64>,
    layout: *const spblas_csr5_layout,
    out: *mut Csr5Matrix<f32, i64>,
) -> Status {
    // SAFETY: the header's promise for `a`'s arrays, `layout` and `out`'s buffers.
    unsafe { ops::csr5_build(a, layout, out) }
}
/// As the `f64_u32` function of the same name, for `float` values and `int64_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_csr5_spmv_f32_i64(
    m: *const Csr5Matrix<f32, i64>,
    alpha: f32,
    x: *const f32,
    beta: f32,
    y: *mut f32,
) -> Status {
    // SAFETY: the header's promise for `m`'s arrays and the vectors.
    unsafe { ops::csr5_spmv(m, alpha, x, beta, y) }
}
/// As the `f64_u32` function of the same name, for `float` values and `int64_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_spgemm_workspace_f32_i64(
    a: *const CsrArrays<f32, i64>,
    b: *const CsrArrays<f32, i64>,
    idx_len: *mut usize,
    vals_len: *mut usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the outputs.
    unsafe { ops::spgemm_workspace(a, b, idx_len, vals_len) }
}
/// As the `f64_u32` function of the same name, for `float` values and `int64_t` indices.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn spblas_spgemm_symbolic_f32_i64(
    a: *const CsrArrays<f32, i64>,
    b: *const CsrArrays<f32, i64>,
    c_row_ptr: *mut i64,
    workspace: *mut i64,
    workspace_len: usize,
    c_nnz: *mut usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the buffers.
    unsafe { ops::spgemm_symbolic(a, b, c_row_ptr, workspace, workspace_len, c_nnz) }
}
/// As the `f64_u32` function of the same name, for `float` values and `int64_t` indices.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn spblas_spgemm_numeric_f32_i64(
    a: *const CsrArrays<f32, i64>,
    b: *const CsrArrays<f32, i64>,
    c_row_ptr: *const i64,
    c_col_idx: *mut i64,
    c_vals: *mut f32,
    workspace_idx: *mut i64,
    workspace_idx_len: usize,
    workspace_vals: *mut f32,
    workspace_vals_len: usize,
) -> Status {
    // SAFETY: the header's promise for the matrices' arrays and the buffers.
    unsafe {
        ops::spgemm_numeric(
            a,
            b,
            c_row_ptr,
            c_col_idx,
            c_vals,
            workspace_idx,
            workspace_idx_len,
            workspace_vals,
            workspace_vals_len,
        )
    }
}
