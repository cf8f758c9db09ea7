//! Owned conveniences (feature `alloc`): `C = A·B` by the thesis's hybrid allocation
//! (9.4.3), the Galerkin triple product and `A·Aᵀ` (9.5).

use alloc::vec::Vec;

use super::rows::{self, Ctx, Kernel, PREFETCH_ROWS, Scratch};
use super::stages::check_inner;
use super::stages::row_upper_bound;
use super::{Bin, NBINS, Needs, Rule, SpgemmConfig, carve_idx, check_operands, kernel_for, needs, needs_in};
use crate::arch::Checked;
use crate::primitives::Key;
use crate::primitives::scan::ScanElem;
use crate::{Csr, CsrOwned, DimError, Index, RowOrder, Scalar};
use core::ops::Range;

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
    /// The lower bound of `nnz(C)` the output arrays started with (see
    /// [`spgemm_with_stats`]).
    pub nnz_lower: usize,
    /// How many times the output arrays grew (by [`GROWTH`]) past that start.
    pub grows: usize,
    /// Peak bytes of the hybrid method: the output arrays' largest capacity, the staging
    /// row and `row_ptr`.
    pub bytes_hybrid: usize,
    /// Bytes the precise method allocates for the same `C` (exact room for every row).
    pub bytes_precise: usize,
    /// Bytes of the workspace: [`super::spgemm_workspace_len`]'s two buffers less the
    /// per-row upper bounds and the bin permutation (`2 nrows` indices), which rows
    /// computed in order do not need.
    pub bytes_workspace: usize,
}

/// The factor by which [`spgemm_with_stats`] grows its output arrays when a row does
/// not fit, as a fraction `(numerator, denominator)`: 3/2, so the arrays never hold more
/// than 1.5x the entries written when they last grew.
pub const GROWTH: (usize, usize) = (3, 2);

/// Makes room for `extra` more elements: nothing if they fit, else capacity grows to
/// the larger of what is needed and [`GROWTH`] times the old capacity.
fn grow<X>(v: &mut Vec<X>, extra: usize) -> Result<bool, ()> {
    let need = v.len().checked_add(extra).ok_or(())?;
    if need <= v.capacity() {
        return Ok(false);
    }
    let target = need.max(v.capacity().saturating_mul(GROWTH.0) / GROWTH.1);
    v.try_reserve_exact(target - v.len()).map_err(|_| ())?;
    Ok(true)
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

/// `C = A·B` (feature `alloc`) by a CPU form of the hybrid allocation of thesis 9.4.3,
/// with no symbolic pass: one allocation sized in advance, then progressive growth.
/// Rows are computed in row order and appended — a single-row copy straight into `C`,
/// an accumulated row through a staging row — so they land packed and the arrange stage
/// costs nothing. The advance allocation is a *lower* bound of `nnz(C)`: per row, the
/// longest row of `B` it references (exact for single-product rows; `B` canonical, else
/// nothing is assumed), capped at `ncols`; when a row does not fit, the arrays grow by
/// [`GROWTH`] (1.5x). So the output never holds more than 1.5x `nnz(C)` entries, where
/// the thesis's upper-bound room holds `nnz(Ĉ)`; finally the arrays are shrunk to
/// `nnz(C)`. The [`SpgemmStats`] say how many bytes that took against the precise
/// method.
///
/// (Earlier versions, measured on the suite: upper-bound room for rows up to 256
/// products and a fixed room of 256 per longer row, as the thesis's GPU code, held 2.8x
/// to 7x the precise bytes (banded `A²`: `nnz(Ĉ)` is 9x `nnz(C)`), and writing rows
/// into fixed rooms then packing them cost 3x in page faults; counting long rows exactly
/// first made it slower than a plain Gustavson loop.)
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
    let (piece, stats) = hybrid_rows(isa, needs(&cfg, a, b).rule, a, b, 0..nrows)?;
    let c = CsrOwned::from_parts_trusted(
        nrows,
        b.ncols(),
        piece.row_ptr,
        piece.col_idx,
        piece.vals,
        RowOrder::Canonical,
    );
    Ok((c, stats))
}

/// The rows `rows` of `C = A·B` as computed by the hybrid allocation: `row_ptr` has
/// `rows.len() + 1` entries from 0.
pub(crate) struct Piece<T, I> {
    pub row_ptr: Vec<I>,
    pub col_idx: Vec<I>,
    pub vals: Vec<T>,
}

/// The hybrid allocation of [`spgemm_with_stats`] on the rows `rows` of `A` (a range
/// inside `0..a.nrows()`), under `rule`: the serial product and each piece of the
/// threaded one ([`crate::parallel::spgemm`]) run this, so a row comes out the same
/// whichever runs it.
pub(crate) fn hybrid_rows<T: Scalar + ScanElem, I: Index + Key>(
    isa: Checked,
    rule: Rule,
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
    rows: Range<usize>,
) -> Result<(Piece<T, I>, SpgemmStats), DimError> {
    // One pass over the rows sizes everything: the workspace, the staging row, the
    // advance allocation and the statistics. Rows are computed in order, so the per-row
    // upper bounds and the bin permutation of the precise method are not needed (nor
    // stored).
    let n = Needs { nrows: 0, ..needs_in(rule, a, b, rows.clone()) };
    let wl = n.workspace::<I>();
    let room_err = DimError::Overflow { what: "room", value: usize::MAX, max: isize::MAX as usize };
    // A workspace too large to allocate is an error, not an abort.
    let (mut wi, mut wv) = (Vec::new(), Vec::new());
    wi.try_reserve_exact(wl.idx).map_err(|_| room_err)?;
    wv.try_reserve_exact(wl.vals).map_err(|_| room_err)?;
    wi.resize(wl.idx, I::ZERO);
    wv.resize(wl.vals, T::ZERO);
    let (_, _, si, esc, bits) = carve_idx(&n, &mut wi);
    let (sv, rest) = wv.split_at_mut(n.scratch);
    let mut s = Scratch { si, sv, esc, bits, dense: &mut rest[..n.dense] };
    let ctx = Ctx { a, b, isa };
    let (mut col_idx, mut vals) = (Vec::new(), Vec::new());
    col_idx.try_reserve_exact(n.lower).map_err(|_| room_err)?;
    vals.try_reserve_exact(n.lower).map_err(|_| room_err)?;
    let mut peak = (col_idx.capacity(), vals.capacity());
    let mut grows = 0usize;
    // Accumulated rows are computed in a staging buffer as long as the longest row can
    // be (`min(ub, ncols)`) and appended: zero-filling their room in `C` instead cost
    // more than the copy where `nnz(Ĉ)` is many times `nnz(C)` (a band: 9x).
    let stage = n.room;
    let (mut stage_i, mut stage_v) = (Vec::new(), Vec::new());
    stage_i.try_reserve_exact(stage).map_err(|_| room_err)?;
    stage_v.try_reserve_exact(stage).map_err(|_| room_err)?;
    stage_i.resize(stage, I::ZERO);
    stage_v.resize(stage, T::ZERO);
    let mut row_ptr = Vec::new();
    row_ptr.try_reserve_exact(rows.len() + 1).map_err(|_| room_err)?;
    row_ptr.push(I::ZERO);
    let (ap, order) = (a.row_ptr(), b.row_order());
    for i in rows.clone() {
        if n.rule.spread {
            ctx.prefetch(i + PREFETCH_ROWS, i + 2 * PREFETCH_ROWS);
        }
        let ub_i = row_upper_bound(a, b, i);
        let bin = Bin::of(ub_i, ap[i + 1].to_usize() - ap[i].to_usize(), order);
        let kernel = kernel_for(a, b, i, ub_i, bin, n.rule);
        // A row needs at most `min(ub, ncols)`.
        let room = ub_i.min(b.ncols());
        let start = col_idx.len();
        // Not reached: a row never outgrows its upper bound, nor `b.ncols()`.
        let too_long = |got| DimError::RowLength { operand: "room", row: i, expected: room, got };
        if matches!(kernel, Kernel::Acc(_)) {
            let (di, dv) = (&mut stage_i[..room], &mut stage_v[..room]);
            let len = rows::numeric_row(&ctx, kernel, i, di, dv, &mut s, false).map_err(too_long)?;
            let grew = grow(&mut col_idx, len).map_err(|_| room_err)?;
            grow(&mut vals, len).map_err(|_| room_err)?;
            grows += usize::from(grew);
            col_idx.extend_from_slice(&di[..len]);
            vals.extend_from_slice(&dv[..len]);
        } else {
            // Empty, or a copy of exactly `room` entries: straight into `C`.
            let grew = grow(&mut col_idx, room).map_err(|_| room_err)?;
            grow(&mut vals, room).map_err(|_| room_err)?;
            grows += usize::from(grew);
            col_idx.resize(start + room, I::ZERO);
            vals.resize(start + room, T::ZERO);
            let (di, dv) = (&mut col_idx[start..], &mut vals[start..]);
            rows::numeric_row(&ctx, kernel, i, di, dv, &mut s, true).map_err(too_long)?;
        }
        peak = (peak.0.max(col_idx.capacity()), peak.1.max(vals.capacity()));
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
    let ptr_bytes = (rows.len() + 1) * core::mem::size_of::<I>();
    let (si_, st_) = (core::mem::size_of::<I>(), core::mem::size_of::<T>());
    let stats = SpgemmStats {
        nnz_c: nnz,
        nnz_upper: n.upper,
        rows_per_bin: n.rows_per_bin,
        nnz_lower: n.lower,
        grows,
        bytes_hybrid: ((peak.0 + stage) * si_ + (peak.1 + stage) * st_).saturating_add(ptr_bytes),
        bytes_precise: nnz.saturating_mul(si_ + st_).saturating_add(ptr_bytes),
        bytes_workspace: wl.idx * si_ + wl.vals * st_,
    };
    Ok((Piece { row_ptr, col_idx, vals }, stats))
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
