//! Owned conveniences (feature `alloc`): `C = A·B` by the thesis's hybrid allocation
//! (9.4.3), the Galerkin triple product and `A·Aᵀ` (9.5).

use alloc::vec;
use alloc::vec::Vec;

use super::rows::{self, Ctx, Scratch};
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
    /// Rows whose length was counted exactly before computing them (upper bound above
    /// [`HYBRID_MAX`]: the long bin); the others were computed straight into upper-bound
    /// room.
    pub symbolic_rows: usize,
    /// Bytes of the output arrays the hybrid method allocated (upper bound for the short
    /// and medium rows, exact length for the long ones), `row_ptr` included. Pages are
    /// written only up to `nnz(C)` plus one row's room.
    pub bytes_hybrid: usize,
    /// Bytes the precise method allocates for the same `C` (exact room for every row).
    pub bytes_precise: usize,
    /// Bytes of the workspace ([`super::spgemm_workspace_len`]'s two buffers).
    pub bytes_workspace: usize,
}

/// Rows whose upper bound is at most this (every bin but [`Bin::Long`]) get their upper
/// bound as room in [`spgemm_with_stats`] and are computed in one pass; longer rows are
/// counted exactly first.
pub const HYBRID_MAX: usize = super::MEDIUM_MAX;

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

/// `C = A·B` (feature `alloc`) by the hybrid allocation of thesis 9.4.3. After the upper
/// bound and the binning, the rows of the long bin (upper bound above [`HYBRID_MAX`])
/// are counted exactly by the symbolic kernel; every other row gets its upper bound as
/// room, with no symbolic pass. One allocation of the summed room holds `C`; the rows are
/// then computed in row order, each straight into the room at the end of the rows
/// before it (the room is trimmed to the row's length at once, so rows land packed and
/// the arrange stage is free), and the arrays finally shrunk to `nnz(C)`. The
/// [`SpgemmStats`] say how many bytes that took against the precise method.
///
/// (A first version computed rows bin by bin into fixed upper-bound rooms and packed
/// them afterwards, as on a GPU; on a CPU the untrimmed room cost 3x on a banded `A²`,
/// whose `nnz(Ĉ)` is 9x `nnz(C)`, in page faults alone.)
///
/// # Errors
/// [`DimError::IsaUnavailable`], [`DimError::Inner`], [`DimError::NotCanonical`] (a
/// forced merge on a non-canonical `B`); [`DimError::Overflow`] (`"nnz(C)"`) if `nnz(C)`
/// does not fit `I`, or (`"room"`) if the room cannot be allocated.
pub fn spgemm_with_stats<T: Scalar + ScanElem, I: Index + Key>(
    cfg: SpgemmConfig,
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
) -> Result<(CsrOwned<T, I>, SpgemmStats), DimError> {
    let isa = check_operands(&cfg, a, b)?;
    let nrows = a.nrows();
    let n = needs(&cfg, a, b);
    let wl = n.workspace::<I>();
    let (mut wi, mut wv) = (vec![I::ZERO; wl.idx], vec![T::ZERO; wl.vals]);
    let (ub, perm, si, esc, bits) = carve_idx(&n, &mut wi);
    let (sv, rest) = wv.split_at_mut(n.scratch);
    let mut s = Scratch { si, sv, esc, bits, dense: &mut rest[..n.dense] };
    let nnz_upper = upper_bound(a, b, ub)?;
    let mut bin_ptr = [0usize; NBINS + 1];
    bin_rows(a, b, ub, perm, &mut bin_ptr)?;
    let ctx = Ctx { a, b, isa };
    // Room per row, in `ub`: the exact length for the long bin, the bound for the rest.
    let long = Bin::Long.index();
    for &r in &perm[bin_ptr[long]..bin_ptr[long + 1]] {
        let i = r.to_usize();
        let kernel = kernel_for(Bin::Long, cfg.method);
        // A row's length is at most `b.ncols() < I::MAX`.
        ub[i] = I::from_usize_unchecked(rows::symbolic_row(&ctx, kernel, i, &mut *s.si, &mut *s.bits));
    }
    let room_err = DimError::Overflow { what: "room", value: usize::MAX, max: isize::MAX as usize };
    let total = ub.iter().try_fold(0usize, |t, &r| t.checked_add(r.to_usize())).ok_or(room_err)?;
    let (mut col_idx, mut vals) = (Vec::new(), Vec::new());
    col_idx.try_reserve_exact(total).map_err(|_| room_err)?;
    vals.try_reserve_exact(total).map_err(|_| room_err)?;
    let (cap_i, cap_v) = (col_idx.capacity(), vals.capacity());
    let mut row_ptr = Vec::with_capacity(nrows + 1);
    row_ptr.push(I::ZERO);
    let (ap, order) = (a.row_ptr(), b.row_order());
    for i in 0..nrows {
        let bin = Bin::of(row_upper_bound(a, b, i), ap[i + 1].to_usize() - ap[i].to_usize(), order);
        let room = ub[i].to_usize();
        let start = col_idx.len();
        col_idx.resize(start + room, I::ZERO);
        vals.resize(start + room, T::ZERO);
        let len = rows::numeric_row(
            &ctx,
            kernel_for(bin, cfg.method),
            i,
            &mut col_idx[start..],
            &mut vals[start..],
            &mut s,
            bin == Bin::Long,
        )
        // Not reached: a row never outgrows its upper bound, nor its exact count.
        .map_err(|got| DimError::RowLength { operand: "room", row: i, expected: room, got })?;
        col_idx.truncate(start + len);
        vals.truncate(start + len);
        let end = start + len;
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
        symbolic_rows: rows_per_bin[long],
        bytes_hybrid: (cap_i * si_ + cap_v * st_).saturating_add(ptr_bytes),
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
/// [`DimError::Overflow`] if `nnz(A·Aᵀ)` does not fit `I`.
pub fn a_at<T: Scalar + ScanElem, I: Index + Key>(a: &Csr<'_, T, I>) -> Result<CsrOwned<T, I>, DimError> {
    let (np, nnz) = a.transpose_len();
    let (mut rp, mut ci, mut v) = (vec![I::ZERO; np], vec![I::ZERO; nnz], vec![T::ZERO; nnz]);
    let at = a
        .transpose_into(&mut rp, &mut ci, &mut v)
        // Not reached: a valid `A` has a valid transpose (same nnz, dimensions swapped).
        .map_err(|_| DimError::Overflow { what: "transpose", value: nnz, max: I::MAX_USIZE })?;
    spgemm(a, &at)
}
