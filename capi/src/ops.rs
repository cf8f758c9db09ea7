//! Each C function once, generic over the value type `T` (`f32`, `f64`) and the index
//! type `I` (`u32`, `u64`, `i32`, `i64`); `exports.rs` names the instances. Every function checks its
//! pointers through `raw`, validates the matrix with spblas's constructors, then runs
//! spblas's safe API on the detected width (`Exec::new()`); an error is a status and
//! leaves the caller's outputs untouched.
#![allow(unsafe_code)]

use spblas_core::formats::{Csr5Aux, Csr5Parts};
use spblas_core::level3::{self, SpgemmConfig};
use spblas_core::primitives::Key;
use spblas_core::primitives::scan::ScanElem;
use spblas_core::{Csr, Csr5, Csr5Layout, Exec, Index, Scalar, SpMv};

use crate::raw;
use crate::status::{ERR_INVALID_ARGUMENT, ERR_TOO_LARGE, SPBLAS_OK, Status, of_dim, of_format};
use crate::types::{Csr5Matrix, CsrArrays, spblas_csr5_layout};

/// `Ok` as `SPBLAS_OK`, an error as its status.
pub(crate) fn status(r: Result<(), Status>) -> Status {
    r.err().unwrap_or(SPBLAS_OK)
}

/// The validated CSR matrix of C's arrays: `row_ptr` holds `nrows + 1` entries, the last
/// one the entry count `nnz`, and `col_idx` and `vals` hold `nnz` each.
///
/// # Safety
/// The header's promise for a CSR matrix: each non-NULL pointer points to the entries its
/// length says, initialised and not written during the call (or for a plan's life).
pub(crate) unsafe fn csr<'a, T: Scalar, I: Index>(
    nrows: usize,
    ncols: usize,
    row_ptr: *const I,
    col_idx: *const I,
    vals: *const T,
) -> Result<Csr<'a, T, I>, Status> {
    let rp_len = nrows.checked_add(1).ok_or(ERR_TOO_LARGE)?;
    // SAFETY: the caller's promise.
    let row_ptr: &[I] = unsafe { raw::slice(row_ptr, rp_len)? };
    let nnz = entries(row_ptr)?;
    // SAFETY: the caller's promise.
    let (col_idx, vals) = unsafe { (raw::slice(col_idx, nnz)?, raw::slice(vals, nnz)?) };
    Csr::new(nrows, ncols, row_ptr, col_idx, vals).map_err(of_format)
}

/// The entry count a row pointer array ends with (0 for an empty array).
fn entries<I: Index>(row_ptr: &[I]) -> Result<usize, Status> {
    row_ptr.last().copied().unwrap_or(I::ZERO).try_to_usize().ok_or(ERR_TOO_LARGE)
}

/// [`csr`] of a C struct.
///
/// # Safety
/// As [`csr`], and `a` is NULL or points to an initialised struct.
pub(crate) unsafe fn csr_of<'a, T: Scalar, I: Index>(
    a: *const CsrArrays<T, I>,
) -> Result<Csr<'a, T, I>, Status> {
    // SAFETY: the caller's promise.
    unsafe {
        let a = raw::borrow(a)?;
        csr(a.nrows, a.ncols, a.row_ptr, a.col_idx, a.vals)
    }
}

/// `x` (`ncols` entries) and `y` (`nrows` entries) of an SpMV.
///
/// # Safety
/// The header's promise for vectors: `x` readable, `y` readable and writable, and `y`
/// overlapping nothing else of the call.
unsafe fn vectors<'a, T>(
    nrows: usize,
    ncols: usize,
    x: *const T,
    y: *mut T,
) -> Result<(&'a [T], &'a mut [T]), Status> {
    // SAFETY: the caller's promise.
    unsafe { Ok((raw::slice(x, ncols)?, raw::slice_mut(y, nrows)?)) }
}

/// `y = alpha * A x + beta * y` by the default CSR method.
///
/// # Safety
/// As [`csr`] and [`vectors`].
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn csr_spmv<T: Scalar, I: Index>(
    nrows: usize,
    ncols: usize,
    row_ptr: *const I,
    col_idx: *const I,
    vals: *const T,
    alpha: T,
    x: *const T,
    beta: T,
    y: *mut T,
) -> Status {
    status((|| {
        // SAFETY: the caller's promise.
        let a = unsafe { csr(nrows, ncols, row_ptr, col_idx, vals)? };
        // SAFETY: the caller's promise.
        let (x, y) = unsafe { vectors(nrows, ncols, x, y)? };
        a.spmv(Exec::new(), alpha, x, beta, y).map_err(of_dim)
    })())
}

/// The CSR5 layout of `a` for the detected width.
///
/// # Safety
/// As [`csr_of`]; `out` NULL or writable.
pub(crate) unsafe fn csr5_layout<T: Scalar, I: Index>(
    a: *const CsrArrays<T, I>,
    out: *mut spblas_csr5_layout,
) -> Status {
    status((|| {
        // SAFETY: the caller's promise.
        let a = unsafe { csr_of(a)? };
        let l = Csr5Layout::new(&a, Exec::new().resolved_isa()).map_err(of_format)?;
        // SAFETY: the caller's promise.
        *unsafe { raw::borrow_mut(out)? } = spblas_csr5_layout::of(&l);
        Ok(())
    })())
}

/// The layout `l` describes for `a`, remade (one pass over `row_ptr`) so that a struct
/// edited or made for another matrix is refused rather than trusted.
fn layout_for<T: Scalar, I: Index>(a: &Csr<'_, T, I>, l: &spblas_csr5_layout) -> Result<Csr5Layout, Status> {
    let made = Csr5Layout::with_params(a, l.omega, l.sigma).map_err(of_format)?;
    if spblas_csr5_layout::of(&made) != *l {
        return Err(ERR_INVALID_ARGUMENT);
    }
    Ok(made)
}

/// Converts `a` into the CSR5 buffers of `out` for `layout`, then fills in `out`'s
/// matrix fields.
///
/// # Safety
/// As [`csr_of`]; `layout` NULL or readable; `out` NULL or a struct whose buffers hold
/// the lengths `layout` gives, writable, overlapping nothing else.
pub(crate) unsafe fn csr5_build<T: Scalar, I: Index>(
    a: *const CsrArrays<T, I>,
    layout: *const spblas_csr5_layout,
    out: *mut Csr5Matrix<T, I>,
) -> Status {
    status((|| {
        // SAFETY: the caller's promise.
        let (a, l, m) = unsafe { (csr_of(a)?, *raw::borrow(layout)?, raw::borrow_mut(out)?) };
        let made = layout_for(&a, &l)?;
        // SAFETY: the caller's promise: `out`'s buffers hold what `layout` says.
        let (col_idx, vals, aux) = unsafe {
            (
                raw::slice_mut(m.col_idx, l.nnz)?,
                raw::slice_mut(m.vals, l.nnz)?,
                Csr5Aux {
                    tile_ptr: raw::slice_mut(m.tile_ptr, l.tile_ptr_len)?,
                    tile_desc: raw::slice_mut(m.tile_desc, l.tile_desc_len)?,
                    empty_offset_ptr: raw::slice_mut(m.empty_offset_ptr, l.tile_ptr_len)?,
                    empty_offset: raw::slice_mut(m.empty_offset, l.empty_offset_len)?,
                },
            )
        };
        Csr5::from_csr(&a, &made, col_idx, vals, aux).map_err(of_format)?;
        m.layout = l;
        m.nrows = a.nrows();
        m.ncols = a.ncols();
        m.row_ptr = a.row_ptr().as_ptr();
        Ok(())
    })())
}

/// `y = alpha * A x + beta * y` on the CSR5 matrix `m`, validated first (a pass over its
/// arrays).
///
/// # Safety
/// `m` NULL or a struct [`csr5_build`] filled, whose arrays are unchanged since; as
/// [`vectors`].
pub(crate) unsafe fn csr5_spmv<T: Scalar, I: Index>(
    m: *const Csr5Matrix<T, I>,
    alpha: T,
    x: *const T,
    beta: T,
    y: *mut T,
) -> Status {
    status((|| {
        // SAFETY: the caller's promise.
        let m = unsafe { raw::borrow(m)? };
        let l = m.layout;
        let rp_len = m.nrows.checked_add(1).ok_or(ERR_TOO_LARGE)?;
        // SAFETY: the caller's promise: the arrays `csr5_build` filled, of the layout's
        // lengths.
        let c = unsafe {
            Csr5::new(
                m.nrows,
                m.ncols,
                (l.omega, l.sigma),
                raw::slice(m.row_ptr, rp_len)?,
                raw::slice(m.col_idx, l.nnz)?,
                raw::slice(m.vals, l.nnz)?,
                Csr5Parts {
                    tile_ptr: raw::slice(m.tile_ptr, l.tile_ptr_len)?,
                    tile_desc: raw::slice(m.tile_desc, l.tile_desc_len)?,
                    empty_offset_ptr: raw::slice(m.empty_offset_ptr, l.tile_ptr_len)?,
                    empty_offset: raw::slice(m.empty_offset, l.empty_offset_len)?,
                },
            )
            .map_err(of_format)?
        };
        // SAFETY: the caller's promise.
        let (x, y) = unsafe { vectors(m.nrows, m.ncols, x, y)? };
        c.spmv(Exec::new(), alpha, x, beta, y).map_err(of_dim)
    })())
}

/// The workspace lengths of `A * B`.
///
/// # Safety
/// As [`csr_of`] for `a` and `b`; `idx_len`, `vals_len` NULL or writable.
pub(crate) unsafe fn spgemm_workspace<T: Scalar, I: Index>(
    a: *const CsrArrays<T, I>,
    b: *const CsrArrays<T, I>,
    idx_len: *mut usize,
    vals_len: *mut usize,
) -> Status {
    status((|| {
        // SAFETY: the caller's promise.
        let (a, b) = unsafe { (csr_of(a)?, csr_of(b)?) };
        let w = level3::spgemm_workspace_len(Exec::new(), SpgemmConfig::default(), &a, &b).map_err(of_dim)?;
        // SAFETY: the caller's promise.
        let (i, v) = unsafe { (raw::borrow_mut(idx_len)?, raw::borrow_mut(vals_len)?) };
        (*i, *v) = (w.idx, w.vals);
        Ok(())
    })())
}

/// The symbolic phase of `A * B`: `c_row_ptr` (`a.nrows + 1` entries) and `nnz(C)`.
///
/// # Safety
/// As [`csr_of`] for `a` and `b`; `c_row_ptr` and `workspace` (`workspace_len` entries)
/// writable and overlapping nothing else; `c_nnz` NULL or writable.
pub(crate) unsafe fn spgemm_symbolic<T: Scalar, I: Index + Key>(
    a: *const CsrArrays<T, I>,
    b: *const CsrArrays<T, I>,
    c_row_ptr: *mut I,
    workspace: *mut I,
    workspace_len: usize,
    c_nnz: *mut usize,
) -> Status {
    status((|| {
        // SAFETY: the caller's promise.
        let (a, b) = unsafe { (csr_of(a)?, csr_of(b)?) };
        let rp_len = a.nrows().checked_add(1).ok_or(ERR_TOO_LARGE)?;
        // SAFETY: the caller's promise.
        let (rp, ws) =
            unsafe { (raw::slice_mut(c_row_ptr, rp_len)?, raw::slice_mut(workspace, workspace_len)?) };
        // SAFETY: the caller's promise.
        let out = unsafe { raw::borrow_mut(c_nnz)? };
        *out =
            level3::spgemm_symbolic(Exec::new(), SpgemmConfig::default(), &a, &b, rp, ws).map_err(of_dim)?;
        Ok(())
    })())
}

/// The numeric phase of `A * B` into `c_col_idx` and `c_vals` (`c_row_ptr[a.nrows]`
/// entries each), with `c_row_ptr` from [`spgemm_symbolic`].
///
/// # Safety
/// As [`csr_of`] for `a` and `b`; `c_row_ptr` readable (`a.nrows + 1` entries); the
/// outputs and workspaces writable and overlapping nothing else.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn spgemm_numeric<T: Scalar + ScanElem, I: Index + Key>(
    a: *const CsrArrays<T, I>,
    b: *const CsrArrays<T, I>,
    c_row_ptr: *const I,
    c_col_idx: *mut I,
    c_vals: *mut T,
    workspace_idx: *mut I,
    workspace_idx_len: usize,
    workspace_vals: *mut T,
    workspace_vals_len: usize,
) -> Status {
    status((|| {
        // SAFETY: the caller's promise.
        let (a, b) = unsafe { (csr_of(a)?, csr_of(b)?) };
        let rp_len = a.nrows().checked_add(1).ok_or(ERR_TOO_LARGE)?;
        // SAFETY: the caller's promise.
        let rp = unsafe { raw::slice(c_row_ptr, rp_len)? };
        let nnz = entries(rp)?;
        // SAFETY: the caller's promise.
        let (ci, cv, wi, wv) = unsafe {
            (
                raw::slice_mut(c_col_idx, nnz)?,
                raw::slice_mut(c_vals, nnz)?,
                raw::slice_mut(workspace_idx, workspace_idx_len)?,
                raw::slice_mut(workspace_vals, workspace_vals_len)?,
            )
        };
        level3::spgemm_numeric(Exec::new(), SpgemmConfig::default(), &a, &b, rp, ci, cv, (wi, wv))
            .map_err(of_dim)
    })())
}

#[cfg(feature = "std")]
pub(crate) use plan::{plan_create, plan_destroy, plan_spmv};

#[cfg(feature = "std")]
mod plan {
    use spblas_core::{Exec, Index, Scalar, SpMv, SpmvPlan};

    use super::{csr, status, vectors};
    use crate::raw;
    use crate::status::{Status, of_dim};

    /// An inspector-executor SpMV plan (opaque to C): the method chosen for one matrix on
    /// this machine and the copies it needs, over the caller's arrays. Made by
    /// `spblas_plan_*_create`, freed by `spblas_plan_*_destroy`.
    pub struct Plan<T: 'static, I: 'static> {
        plan: SpmvPlan<'static, T, I>,
        nrows: usize,
        ncols: usize,
    }

    /// Builds a plan for the CSR matrix of C's arrays into `*out` (untouched on error).
    ///
    /// # Safety
    /// As [`csr`], the arrays living and unchanged until the plan is destroyed; `out`
    /// NULL or writable.
    pub(crate) unsafe fn plan_create<T: Scalar, I: Index>(
        nrows: usize,
        ncols: usize,
        row_ptr: *const I,
        col_idx: *const I,
        vals: *const T,
        out: *mut *mut Plan<T, I>,
    ) -> Status {
        status((|| {
            // SAFETY: the caller's promise.
            let out = unsafe { raw::borrow_mut(out)? };
            // SAFETY: the caller's promise: the arrays outlive the plan.
            let a = unsafe { csr::<'static, T, I>(nrows, ncols, row_ptr, col_idx, vals)? };
            let plan = SpmvPlan::new(Exec::new(), &a).map_err(of_dim)?;
            *out = raw::into_handle(Plan { plan, nrows, ncols })?;
            Ok(())
        })())
    }

    /// `y = alpha * A x + beta * y` by the plan.
    ///
    /// # Safety
    /// `plan` NULL or from [`plan_create`] and not destroyed; as [`vectors`].
    pub(crate) unsafe fn plan_spmv<T: Scalar, I: Index>(
        plan: *const Plan<T, I>,
        alpha: T,
        x: *const T,
        beta: T,
        y: *mut T,
    ) -> Status {
        status((|| {
            // SAFETY: the caller's promise.
            let p = unsafe { raw::borrow(plan)? };
            // SAFETY: the caller's promise.
            let (x, y) = unsafe { vectors(p.nrows, p.ncols, x, y)? };
            p.plan.spmv(Exec::new(), alpha, x, beta, y).map_err(of_dim)
        })())
    }

    /// Frees a plan; NULL is accepted.
    ///
    /// # Safety
    /// `plan` NULL or from [`plan_create`] and not destroyed before.
    pub(crate) unsafe fn plan_destroy<T, I>(plan: *mut Plan<T, I>) {
        // SAFETY: the caller's promise.
        unsafe { raw::from_handle(plan) }
    }
}
#[cfg(feature = "std")]
pub use plan::Plan;
