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
    /// Rows computed into the progressive side buffer (upper bound above
    /// [`HYBRID_MAX`]); the others were computed into upper-bound room.
    pub progressive_rows: usize,
    /// Bytes of output arrays the hybrid method allocated: the upper-bound room (grown
    /// to `nnz(C)` if smaller), the side buffer's capacity and the long rows' staging
    /// buffer, `row_ptr` included.
    pub bytes_hybrid: usize,
    /// Bytes the precise method allocates for the same `C` (exact room for every row).
    pub bytes_precise: usize,
    /// Bytes of the workspace ([`super::spgemm_workspace_len`]'s two buffers).
    pub bytes_workspace: usize,
}

/// Rows whose upper bound is at most this (the [`Bin::Empty`], [`Bin::Single`] and
/// [`Bin::Short`] bins; a single-row copy's bound is exact) are computed straight into
/// upper-bound room of `C` by [`spgemm_with_stats`]; longer rows are computed once into
/// a staging buffer and appended to a growing side buffer (the thesis's progressive
/// allocation, 9.4.3). Upper-bound room for medium rows cost 3x on a banded `A²`
/// (`nnz(Ĉ) / nnz(C)` = 9: 70 MB of room touched for 8 MB of result), while the side
/// buffer costs one extra copy of the row.
pub const HYBRID_MAX: usize = super::SHORT_MAX;

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

/// `C = A·B` (feature `alloc`) by the hybrid allocation of thesis 9.4.3, every row
/// computed exactly once, with no symbolic pass: after the upper bound and the binning,
/// rows of the [`Bin::Empty`], [`Bin::Single`] and [`Bin::Short`] bins get their upper
/// bound as room in `C`'s arrays and are computed into it; longer rows (upper bound above
/// [`HYBRID_MAX`]) are computed into a staging buffer and appended to a side buffer
/// that grows as needed (progressive allocation). Arrange: the rows are then moved to
/// their final places in `C`'s arrays in two in-place passes (rows moving down in
/// increasing order, then rows moving up and the side buffer's rows in decreasing order,
/// so no row overwrites one not yet moved), and the arrays trimmed. The
/// [`SpgemmStats`] say how many bytes that took against the precise method.
///
/// # Errors
/// [`DimError::IsaUnavailable`], [`DimError::Inner`], [`DimError::NotCanonical`] (a
/// forced merge on a non-canonical `B`); [`DimError::Overflow`] (`"nnz(C)"`) if `nnz(C)`
/// does not fit `I`, or (`"room"`) if the room does not fit `usize`.
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
    // Room per row (upper bound for the short bins, none for the rest), and the staging
    // room the longest of the rest needs (a row has at most `b.ncols()` entries).
    let in_room = |bin: Bin| bin <= Bin::Short;
    let mut room = vec![0usize; nrows + 1];
    let mut stage = 0usize;
    for (k, bin) in Bin::ALL.into_iter().enumerate() {
        for &r in &perm[bin_ptr[k]..bin_ptr[k + 1]] {
            let i = r.to_usize();
            if in_room(bin) {
                room[i + 1] = row_upper_bound(a, b, i);
            } else {
                stage = stage.max(row_upper_bound(a, b, i).min(b.ncols()));
            }
        }
    }
    for i in 0..nrows {
        room[i + 1] = room[i].checked_add(room[i + 1]).ok_or(DimError::Overflow {
            what: "room",
            value: usize::MAX,
            max: usize::MAX,
        })?;
    }
    let total = room[nrows];
    let (mut col_idx, mut vals) = (vec![I::ZERO; total], vec![T::ZERO; total]);
    let (mut stage_i, mut stage_v) = (vec![I::ZERO; stage], vec![T::ZERO; stage]);
    let (mut side_i, mut side_v) = (Vec::new(), Vec::new());
    // Where each progressive row starts in the side buffer.
    let mut side_at = vec![0usize; nrows];
    let not_reached = |i: usize, expected: usize| {
        // A row never outgrows its upper bound, nor `b.ncols()`.
        move |got: usize| DimError::RowLength { operand: "room", row: i, expected, got }
    };
    for (k, bin) in Bin::ALL.into_iter().enumerate() {
        let kernel = kernel_for(bin, cfg.method);
        for &r in &perm[bin_ptr[k]..bin_ptr[k + 1]] {
            let i = r.to_usize();
            let len = if in_room(bin) {
                let range = room[i]..room[i + 1];
                let (di, dv) = (&mut col_idx[range.clone()], &mut vals[range.clone()]);
                rows::numeric_row(&ctx, kernel, i, di, dv, &mut s, false)
                    .map_err(not_reached(i, range.len()))?
            } else {
                let len = rows::numeric_row(&ctx, kernel, i, &mut stage_i, &mut stage_v, &mut s, false)
                    .map_err(not_reached(i, stage))?;
                side_at[i] = side_i.len();
                side_i.extend_from_slice(&stage_i[..len]);
                side_v.extend_from_slice(&stage_v[..len]);
                len
            };
            // Row lengths fit `I` (each is at most `b.ncols()`); `ub` is free after binning.
            ub[i] = I::from_usize_unchecked(len);
        }
    }
    // Final row pointers.
    let mut row_ptr = Vec::with_capacity(nrows + 1);
    row_ptr.push(I::ZERO);
    let mut nnz = 0usize;
    for &len in ub.iter() {
        nnz += len.to_usize();
        row_ptr.push(I::from_usize(nnz).ok_or(DimError::Overflow {
            what: "nnz(C)",
            value: nnz,
            max: I::MAX_USIZE,
        })?);
    }
    let dst = |i: usize| row_ptr[i].to_usize();
    if nnz > total {
        col_idx.resize(nnz, I::ZERO);
        vals.resize(nnz, T::ZERO);
    }
    let room_bytes = col_idx.len();
    // Arrange, pass 1: rooms whose rows move down (or stay), in increasing order; a row's
    // target never reaches into a later row's room, nor an earlier row not yet moved.
    let room_row = |i: usize| room[i + 1] > room[i];
    for i in 0..nrows {
        let len = ub[i].to_usize();
        if room_row(i) && dst(i) <= room[i] && len > 0 {
            col_idx.copy_within(room[i]..room[i] + len, dst(i));
            vals.copy_within(room[i]..room[i] + len, dst(i));
        }
    }
    // Pass 2: rows moving up and the side buffer's rows, in decreasing order.
    for i in (0..nrows).rev() {
        let (len, d) = (ub[i].to_usize(), dst(i));
        if len == 0 {
            continue;
        }
        if room_row(i) {
            if d > room[i] {
                col_idx.copy_within(room[i]..room[i] + len, d);
                vals.copy_within(room[i]..room[i] + len, d);
            }
        } else {
            col_idx[d..d + len].copy_from_slice(&side_i[side_at[i]..side_at[i] + len]);
            vals[d..d + len].copy_from_slice(&side_v[side_at[i]..side_at[i] + len]);
        }
    }
    col_idx.truncate(nnz);
    vals.truncate(nnz);
    col_idx.shrink_to_fit();
    vals.shrink_to_fit();
    let pair = core::mem::size_of::<I>() + core::mem::size_of::<T>();
    let ptr_bytes = (nrows + 1) * core::mem::size_of::<I>();
    let mut rows_per_bin = [0usize; NBINS];
    for (k, c) in rows_per_bin.iter_mut().enumerate() {
        *c = bin_ptr[k + 1] - bin_ptr[k];
    }
    let stats = SpgemmStats {
        nnz_c: nnz,
        nnz_upper,
        rows_per_bin,
        progressive_rows: rows_per_bin[Bin::Medium.index()] + rows_per_bin[Bin::Long.index()],
        bytes_hybrid: (room_bytes + side_i.capacity().max(side_v.capacity()) + stage)
            .saturating_mul(pair)
            .saturating_add(ptr_bytes),
        bytes_precise: nnz.saturating_mul(pair).saturating_add(ptr_bytes),
        bytes_workspace: wl.idx * core::mem::size_of::<I>() + wl.vals * core::mem::size_of::<T>(),
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
