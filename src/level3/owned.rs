//! Owned conveniences (feature `alloc`): `C = A·B` by the thesis's hybrid allocation
//! (9.4.3), the Galerkin triple product and `A·Aᵀ` (9.5).

use alloc::vec;
use alloc::vec::Vec;

use super::rows::{self, Ctx, Scratch};
use super::stages::check_inner;
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
    /// Rows whose length was counted exactly first (the long bin).
    pub symbolic_rows: usize,
    /// Bytes of the output arrays allocated by the hybrid method (upper-bound room for
    /// short rows, exact room for long ones) before packing, `row_ptr` included.
    pub bytes_hybrid: usize,
    /// Bytes the precise method allocates for the same `C` (exact room for every row).
    pub bytes_precise: usize,
    /// Bytes of the workspace ([`super::spgemm_workspace_len`]'s two buffers).
    pub bytes_workspace: usize,
}

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

/// `C = A·B` (feature `alloc`) by the hybrid allocation of thesis 9.4.3: after the upper
/// bound and the binning, rows of the long bin (upper bound above
/// [`super::MEDIUM_MAX`]) are counted exactly by the symbolic kernel; every other row
/// gets its upper bound as room and is computed in one pass, with no symbolic pass;
/// then the rows are packed in place (arrange) and the arrays trimmed. Allocates the
/// workspace, the room (`bytes_hybrid` in the [`SpgemmStats`]) and `row_ptr`.
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
    let wl = n.workspace::<T, I>();
    let (mut wi, mut wv) = (vec![I::ZERO; wl.idx], vec![T::ZERO; wl.vals]);
    let (ub, perm, si, esc, bits) = carve_idx(&n, &mut wi);
    let (sv, rest) = wv.split_at_mut(n.scratch);
    let mut s = Scratch { si, sv, esc, bits, dense: &mut rest[..n.dense] };
    let nnz_upper = upper_bound(a, b, ub)?;
    let mut bin_ptr = [0usize; NBINS + 1];
    bin_rows(a, b, ub, perm, &mut bin_ptr)?;
    let ctx = Ctx { a, b, isa };
    // Room per row: the upper bound, or for the long bin the exact length.
    let long = Bin::Long.index();
    let mut room = vec![0usize; nrows + 1];
    for (k, bin) in Bin::ALL.into_iter().enumerate() {
        for &r in &perm[bin_ptr[k]..bin_ptr[k + 1]] {
            let i = r.to_usize();
            room[i + 1] = if k == long {
                rows::symbolic_row(&ctx, kernel_for(bin, cfg.method), i, &mut *s.si, &mut *s.bits)
            } else {
                ub[i].to_usize()
            };
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
    for (k, bin) in Bin::ALL.into_iter().enumerate() {
        let kernel = kernel_for(bin, cfg.method);
        for &r in &perm[bin_ptr[k]..bin_ptr[k + 1]] {
            let i = r.to_usize();
            let range = room[i]..room[i + 1];
            let len = rows::numeric_row(
                &ctx,
                kernel,
                i,
                &mut col_idx[range.clone()],
                &mut vals[range],
                &mut s,
                false,
            )
            // Not reached: a row never outgrows its upper bound or its exact count.
            .map_err(|got| DimError::RowLength {
                operand: "room",
                row: i,
                expected: room[i + 1] - room[i],
                got,
            })?;
            // Row lengths fit `I` (each is at most `b.ncols()`).
            ub[i] = I::from_usize_unchecked(len);
        }
    }
    // Arrange: pack the rows down in order (each moves to at most its room's start).
    let mut row_ptr = Vec::with_capacity(nrows + 1);
    row_ptr.push(I::ZERO);
    let mut o = 0usize;
    for i in 0..nrows {
        let len = ub[i].to_usize();
        col_idx.copy_within(room[i]..room[i] + len, o);
        vals.copy_within(room[i]..room[i] + len, o);
        o += len;
        row_ptr.push(I::from_usize(o).ok_or(DimError::Overflow {
            what: "nnz(C)",
            value: o,
            max: I::MAX_USIZE,
        })?);
    }
    col_idx.truncate(o);
    vals.truncate(o);
    col_idx.shrink_to_fit();
    vals.shrink_to_fit();
    let pair = core::mem::size_of::<I>() + core::mem::size_of::<T>();
    let ptr_bytes = (nrows + 1) * core::mem::size_of::<I>();
    let mut rows_per_bin = [0usize; NBINS];
    for (k, c) in rows_per_bin.iter_mut().enumerate() {
        *c = bin_ptr[k + 1] - bin_ptr[k];
    }
    let stats = SpgemmStats {
        nnz_c: o,
        nnz_upper,
        rows_per_bin,
        symbolic_rows: rows_per_bin[long],
        bytes_hybrid: total.saturating_mul(pair).saturating_add(ptr_bytes),
        bytes_precise: o.saturating_mul(pair).saturating_add(ptr_bytes),
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
