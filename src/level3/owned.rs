//! Owned conveniences (feature `alloc`): `C = A·B` by the thesis's hybrid allocation
//! (9.4.3), the Galerkin triple product and `A·Aᵀ` (9.5).

use alloc::vec::Vec;

use super::rows::{self, Ctx, Kernel, Scratch};
use super::stages::check_inner;
use super::stages::row_upper_bound;
use super::{Bin, NBINS, SpgemmConfig, bin_rows, carve_idx, check_operands, kernel_for, needs, upper_bound};
use crate::primitives::Key;
use crate::primitives::scan::ScanElem;
use crate::{Csr, CsrOwned, DimError, Index, RowOrder, Scalar};

/// What one [`spgemm_with_stats`] did: sizes, and the memory of the hybrid allocation
/// against the precise (two-pass) method.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpgemmStats {
    /// `nnz(C)`.
    pub nnz_c: usize,
    /// `nnz(Ĉ)`: the sum of the rows' upper bounds.
    pub nnz_upper: usize,
    /// Rows per [`Bin`], in the order of [`Bin::ALL`].
    pub rows_per_bin: [usize; NBINS],
    /// Rows of the long bin (upper bound above [`HYBRID_MAX`]), allocated
    /// progressively; the others were computed straight into upper-bound room.
    pub progressive_rows: usize,
    /// Peak bytes of the output arrays in the hybrid method (upper bound for the short
    /// and medium rows, [`LONG_ROOM`] for each long one, grown 2x when a long row needs
    /// more) and of the staging row, `row_ptr` included. Pages are written only up to
    /// `nnz(C)`.
    pub bytes_hybrid: usize,
    /// Bytes the precise method allocates for the same `C` (exact room for every row).
    pub bytes_precise: usize,
    /// Bytes of the workspace ([`super::spgemm_workspace_len`]'s two buffers).
    pub bytes_workspace: usize,
}

/// Rows whose upper bound is at most this (every bin but [`Bin::Long`]) get their upper
/// bound as room in [`spgemm_with_stats`]; longer rows get [`LONG_ROOM`] each and the
/// arrays grow when one needs more.
pub const HYBRID_MAX: usize = super::MEDIUM_MAX;

/// Initial room per long row in [`spgemm_with_stats`] (the thesis's fixed size, 9.4.3).
pub const LONG_ROOM: usize = 256;

/// `C = A·B` as a new canonical [`CsrOwned`] on [`crate::Isa::detect`] by the per-bin
/// rule; see [`spgemm_with_stats`].
///
/// ```
/// use spblas::CsrOwned;
/// let a = CsrOwned::<f64, u32>::from_triplets(2, 3, &[(0, 0, 1.0), (0, 2, 2.0), (1, 1, 3.0)])?;
/// let b = CsrOwned::<f64, u32>::from_triplets(3, 2, &[(0, 1, 4.0), (1, 0, 5.0), (2, 1, 6.0)])?;
/// let c = spblas::level3::spgemm(&a.view(), &b.view())?;
/// assert_eq!(c.view().iter().collect::<Vec<_>>(), [(0, 1, 16.0), (1, 0, 15.0)]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`spgemm_with_stats`].
pub fn spgemm<T: Scalar + ScanElem, I: Index + Key>(
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
) -> Result<CsrOwned<T, I>, DimError> {
    spgemm_with(SpgemmConfig::new(), a, b)
}

/// [`spgemm_with_stats`] without the statistics.
///
/// # Errors
/// As [`spgemm_with_stats`].
pub fn spgemm_with<T: Scalar + ScanElem, I: Index + Key>(
    cfg: SpgemmConfig,
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
) -> Result<CsrOwned<T, I>, DimError> {
    spgemm_with_stats(cfg, a, b).map(|(c, _)| c)
}

/// `C = A·B` (feature `alloc`) by the hybrid allocation of thesis 9.4.3, with no
/// symbolic pass: after the upper bound and the binning, one allocation holds the upper
/// bound of every row outside the long bin plus [`LONG_ROOM`] per long row (Alg. 35's
/// `C̃`). Rows are then computed in row order and appended — a single-row copy straight
/// into `C`, an accumulated row through a staging row — so rows land packed and the
/// arrange stage costs nothing; when a long row needs more room than is left the arrays
/// grow (at least 2x, the progressive part). Finally the arrays are shrunk to
/// `nnz(C)`. The [`SpgemmStats`] say how many bytes that took against the precise
/// method.
///
/// (A first version computed rows bin by bin into fixed upper-bound rooms and packed
/// them afterwards, as on a GPU; on a CPU the untrimmed room cost 3x on a banded `A²`,
/// whose `nnz(Ĉ)` is 9x `nnz(C)`, in page faults alone. A second one counted long rows
/// exactly first; that symbolic pass made it slower than a plain Gustavson loop.)
///
/// # Errors
/// [`DimError::IsaUnavailable`], [`DimError::Inner`], [`DimError::NotCanonical`] (a
/// forced merge on a non-canonical `B`); [`DimError::Overflow`] (`"nnz(C)"`) if `nnz(C)`
/// does not fit `I`, or (`"room"`) if the room or the workspace cannot be allocated.
pub fn spgemm_with_stats<T: Scalar + ScanElem, I: Index + Key>(
    cfg: SpgemmConfig,
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
) -> Result<(CsrOwned<T, I>, SpgemmStats), DimError> {
    let isa = check_operands(&cfg, a, b)?;
    let nrows = a.nrows();
    let n = needs(&cfg, a, b);
    let wl = n.workspace::<I>();
    let room_err = DimError::Overflow { what: "room", value: usize::MAX, max: isize::MAX as usize };
    // A workspace too large to allocate is an error, not an abort.
    let (mut wi, mut wv) = (Vec::new(), Vec::new());
    wi.try_reserve_exact(wl.idx).map_err(|_| room_err)?;
    wv.try_reserve_exact(wl.vals).map_err(|_| room_err)?;
    wi.resize(wl.idx, I::ZERO);
    wv.resize(wl.vals, T::ZERO);
    let (ub, perm, si, esc, bits) = carve_idx(&n, &mut wi);
    let (sv, rest) = wv.split_at_mut(n.scratch);
    let mut s = Scratch { si, sv, esc, bits, dense: &mut rest[..n.dense] };
    let nnz_upper = upper_bound(a, b, ub)?;
    let mut bin_ptr = [0usize; NBINS + 1];
    bin_rows(a, b, ub, perm, &mut bin_ptr)?;
    let ctx = Ctx { a, b, isa };
    // Room: the bound for every row outside the long bin, [`LONG_ROOM`] for each long one.
    let long = Bin::Long.index();
    let mut total = 0usize;
    for (k, &r) in perm.iter().enumerate() {
        let room = if k >= bin_ptr[long] { LONG_ROOM } else { ub[r.to_usize()].to_usize() };
        total = total.checked_add(room).ok_or(room_err)?;
    }
    let (mut col_idx, mut vals) = (Vec::new(), Vec::new());
    col_idx.try_reserve_exact(total).map_err(|_| room_err)?;
    vals.try_reserve_exact(total).map_err(|_| room_err)?;
    let mut peak = (col_idx.capacity(), vals.capacity());
    // Accumulated rows are computed in a staging buffer as long as the longest row can
    // be (`min(ub, ncols)`) and appended: zero-filling their room in `C` instead cost
    // more than the copy where `nnz(Ĉ)` is many times `nnz(C)` (a band: 9x).
    let stage = ub.iter().map(|u| u.to_usize().min(b.ncols())).max().unwrap_or(0);
    let (mut stage_i, mut stage_v) = (Vec::new(), Vec::new());
    stage_i.try_reserve_exact(stage).map_err(|_| room_err)?;
    stage_v.try_reserve_exact(stage).map_err(|_| room_err)?;
    stage_i.resize(stage, I::ZERO);
    stage_v.resize(stage, T::ZERO);
    let mut row_ptr = Vec::with_capacity(nrows + 1);
    row_ptr.push(I::ZERO);
    let (ap, order) = (a.row_ptr(), b.row_order());
    for i in 0..nrows {
        let ub_i = row_upper_bound(a, b, i);
        let bin = Bin::of(ub_i, ap[i + 1].to_usize() - ap[i].to_usize(), order);
        let kernel = kernel_for(a, b, i, ub_i, bin, cfg.method);
        // A row needs at most `min(ub, ncols)`; if the room left is short, the arrays
        // grow (`Vec::reserve`: at least 2x, the thesis's progression).
        let room = ub_i.min(b.ncols());
        let start = col_idx.len();
        col_idx.try_reserve(room).map_err(|_| room_err)?;
        vals.try_reserve(room).map_err(|_| room_err)?;
        peak = (peak.0.max(col_idx.capacity()), peak.1.max(vals.capacity()));
        // Not reached: a row never outgrows its upper bound, nor `b.ncols()`.
        let too_long = |got| DimError::RowLength { operand: "room", row: i, expected: room, got };
        if matches!(kernel, Kernel::Acc(_)) {
            let (di, dv) = (&mut stage_i[..room], &mut stage_v[..room]);
            let len = rows::numeric_row(&ctx, kernel, i, di, dv, &mut s, false).map_err(too_long)?;
            col_idx.extend_from_slice(&di[..len]);
            vals.extend_from_slice(&dv[..len]);
        } else {
            // Empty, or a copy of exactly `room` entries: straight into `C`.
            col_idx.resize(start + room, I::ZERO);
            vals.resize(start + room, T::ZERO);
            let (di, dv) = (&mut col_idx[start..], &mut vals[start..]);
            rows::numeric_row(&ctx, kernel, i, di, dv, &mut s, true).map_err(too_long)?;
        }
        let end = col_idx.len();
        row_ptr.push(I::from_usize(end).ok_or(DimError::Overflow {
            what: "nnz(C)",
            value: end,
            max: I::MAX_USIZE,
        })?);
    }
    let nnz = col_idx.len();
    col_idx.shrink_to_fit();
    vals.shrink_to_fit();
    let ptr_bytes = (nrows + 1) * core::mem::size_of::<I>();
    let mut rows_per_bin = [0usize; NBINS];
    for (k, c) in rows_per_bin.iter_mut().enumerate() {
        *c = bin_ptr[k + 1] - bin_ptr[k];
    }
    let (si_, st_) = (core::mem::size_of::<I>(), core::mem::size_of::<T>());
    let stats = SpgemmStats {
        nnz_c: nnz,
        nnz_upper,
        rows_per_bin,
        progressive_rows: rows_per_bin[long],
        bytes_hybrid: ((peak.0 + stage) * si_ + (peak.1 + stage) * st_).saturating_add(ptr_bytes),
        bytes_precise: nnz.saturating_mul(si_ + st_).saturating_add(ptr_bytes),
        bytes_workspace: wl.idx * si_ + wl.vals * st_,
    };
    let c = CsrOwned::from_parts_trusted(nrows, b.ncols(), row_ptr, col_idx, vals, RowOrder::Canonical);
    Ok((c, stats))
}

/// The Galerkin triple product `Pᵀ·A·P` of algebraic multigrid (thesis 9.5.1), as two
/// products `(Pᵀ·A)·P` by [`spgemm`]; the caller passes `Pᵀ` (e.g. from
/// [`Csr::transpose_into`]).
///
/// # Errors
/// [`DimError::Inner`] if `p_t.ncols() != a.nrows()` or `a.ncols() != p.nrows()` (checked
/// before anything is computed); otherwise as [`spgemm_with_stats`].
pub fn galerkin<T: Scalar + ScanElem, I: Index + Key>(
    p_t: &Csr<'_, T, I>,
    a: &Csr<'_, T, I>,
    p: &Csr<'_, T, I>,
) -> Result<CsrOwned<T, I>, DimError> {
    check_inner(p_t, a)?;
    check_inner(a, p)?;
    let pa = spgemm(p_t, a)?;
    spgemm(&pa.view(), p)
}

/// `A·Aᵀ` (thesis 9.5), with `Aᵀ` built by [`Csr::transpose_into`] (the CSC of `A`).
///
/// # Errors
/// [`DimError::Overflow`] if `nnz(A·Aᵀ)` does not fit `I`, or (`"transpose"`, `"room"`)
/// if `Aᵀ` or the product cannot be allocated.
pub fn a_at<T: Scalar + ScanElem, I: Index + Key>(a: &Csr<'_, T, I>) -> Result<CsrOwned<T, I>, DimError> {
    let (np, nnz) = a.transpose_len();
    let room_err = DimError::Overflow { what: "transpose", value: np, max: isize::MAX as usize };
    let (mut rp, mut ci, mut v) = (Vec::new(), Vec::new(), Vec::new());
    // `ncols` may be huge with few entries: an error, not an abort.
    rp.try_reserve_exact(np).map_err(|_| room_err)?;
    rp.resize(np, I::ZERO);
    ci.resize(nnz, I::ZERO);
    v.resize(nnz, T::ZERO);
    let at = a
        .transpose_into(&mut rp, &mut ci, &mut v)
        // Not reached: a valid `A` has a valid transpose (same nnz, dimensions swapped).
        .map_err(|_| DimError::Overflow { what: "transpose", value: nnz, max: I::MAX_USIZE })?;
    spgemm(a, &at)
}
