//! Owned conveniences (feature `alloc`): `C = A·B` by the thesis's hybrid allocation
//! (9.4.3), the Galerkin triple product and `A·Aᵀ` (9.5).

use alloc::vec::Vec;

use super::plan::RowPlan;
use super::rows::{self, Ctx, Kernel, PREFETCH_ROWS, Scratch};
use super::stages::{GROWTH, check_inner};
use super::stages::{row_bounds, row_upper_bound};
use super::{Bin, NBINS, RowMethod, Rule, SpgemmConfig, check_operands, kernel_for};
use crate::arch::Checked;
use crate::arch::generic::esc::{ESC_REG_MAX, EscBuf};
use crate::primitives::Key;
use crate::primitives::scan::ScanElem;
use crate::{Csr, CsrOwned, DimError, Exec, Index, RowOrder, Scalar};
use core::ops::Range;

/// What one [`spgemm_reuse`] did: sizes, and the memory of the hybrid allocation
/// against the precise (two-pass) method.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpgemmStats {
    /// `nnz(C)`.
    pub nnz_c: usize,
    /// `nnz(Ĉ)`: the sum of the rows' upper bounds.
    pub nnz_upper: usize,
    /// Rows per [`Bin`], in the order of [`Bin::ALL`].
    pub rows_per_bin: [usize; NBINS],
    /// The room the output arrays started with: `nnz(C)` as estimated from a sample of
    /// rows (see [`spgemm`]).
    pub nnz_start: usize,
    /// How many times the output arrays grew (by [`Tuning::spgemm_growth`](crate::Tuning::spgemm_growth)) past that start.
    pub grows: usize,
    /// Peak bytes of the hybrid method: the output arrays' largest capacity, the staging
    /// row and `row_ptr`.
    pub bytes_hybrid: usize,
    /// Bytes the precise method allocates for the same `C` (exact room for every row).
    pub bytes_precise: usize,
    /// Bytes of the workspace the rows grew (besides the staging row): the SPA's dense
    /// row and marker words if any row used it, the sorting methods' expansion buffers
    /// as long as their longest row (twice that for the merge), and the row plans'
    /// pattern ids of `B`'s rows (4 bytes a row of `B`) once plans have matched 256 rows.
    /// Without the ids, at most [`super::spgemm_workspace_len`]'s, which also holds the
    /// per-row upper bounds and the bin permutation that rows computed in order do not
    /// need.
    pub bytes_workspace: usize,
}

/// Where [`append_rows`] appends the rows of `C`: an owned array that grows, or a fixed
/// region of a shared output (the threaded product's pieces, [`Region`]).
pub(crate) trait Out<X: Copy> {
    fn len(&self) -> usize;
    fn capacity(&self) -> usize;
    /// Makes room for `extra` more elements; whether the array moved to a larger room.
    /// On failure, the capacity it needed (a region never grows).
    fn grow(&mut self, extra: usize, huge: bool) -> Result<bool, usize>;
    fn push(&mut self, x: X);
    fn extend_from_slice(&mut self, xs: &[X]);
    fn extend_iter(&mut self, xs: impl Iterator<Item = X>);
    fn resize(&mut self, len: usize, x: X);
    fn truncate(&mut self, len: usize);
    /// The elements from `start` on.
    fn tail(&mut self, start: usize) -> &mut [X];
}

impl<X: Copy> Out<X> for Vec<X> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn capacity(&self) -> usize {
        Vec::capacity(self)
    }
    /// Nothing if they fit (inlined: every row asks), else capacity grows to the larger
    /// of what is needed and [`GROWTH`] times the old capacity.
    #[inline(always)]
    fn grow(&mut self, extra: usize, huge: bool) -> Result<bool, usize> {
        match self.len().checked_add(extra) {
            Some(need) if need <= self.capacity() => Ok(false),
            need => grow_vec(self, need.ok_or(usize::MAX)?, huge),
        }
    }
    fn push(&mut self, x: X) {
        Vec::push(self, x)
    }
    fn extend_from_slice(&mut self, xs: &[X]) {
        Vec::extend_from_slice(self, xs)
    }
    fn extend_iter(&mut self, xs: impl Iterator<Item = X>) {
        Extend::extend(self, xs)
    }
    fn resize(&mut self, len: usize, x: X) {
        Vec::resize(self, len, x)
    }
    fn truncate(&mut self, len: usize) {
        Vec::truncate(self, len)
    }
    fn tail(&mut self, start: usize) -> &mut [X] {
        &mut self[start..]
    }
}

/// [`Out::grow`] of a `Vec` that needs `need` elements of room, more than it has.
#[cold]
fn grow_vec<X>(v: &mut Vec<X>, need: usize, huge: bool) -> Result<bool, usize> {
    let target = need.max(v.capacity().saturating_mul(GROWTH.0) / GROWTH.1);
    v.try_reserve_exact(target - v.len()).map_err(|_| target)?;
    advise(v, huge);
    Ok(true)
}

#[cfg(feature = "parallel")]
/// A fixed region of a shared output array, filled from its start: the room one piece
/// of the threaded product writes its rows into, where they stay.
pub(crate) struct Region<'r, X> {
    pub buf: &'r mut [X],
    pub len: usize,
}

#[cfg(feature = "parallel")]
impl<X: Copy> Out<X> for Region<'_, X> {
    fn len(&self) -> usize {
        self.len
    }
    fn capacity(&self) -> usize {
        self.buf.len()
    }
    fn grow(&mut self, extra: usize, _huge: bool) -> Result<bool, usize> {
        let need = self.len.checked_add(extra).ok_or(usize::MAX)?;
        if need <= self.buf.len() { Ok(false) } else { Err(need) }
    }
    // The row loop made room (`grow`) before every write below.
    fn push(&mut self, x: X) {
        self.buf[self.len] = x;
        self.len += 1;
    }
    fn extend_from_slice(&mut self, xs: &[X]) {
        self.buf[self.len..self.len + xs.len()].copy_from_slice(xs);
        self.len += xs.len();
    }
    fn extend_iter(&mut self, xs: impl Iterator<Item = X>) {
        for x in xs {
            self.push(x);
        }
    }
    fn resize(&mut self, len: usize, x: X) {
        if len > self.len {
            self.buf[self.len..len].fill(x);
        }
        self.len = len;
    }
    fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }
    fn tail(&mut self, start: usize) -> &mut [X] {
        &mut self.buf[start..self.len]
    }
}

#[cfg(feature = "parallel")]
/// A [`Region`] that spills into arrays of its own once a row does not fit: the rows
/// up to there stay in the region, the rest go to `over`.
pub(crate) struct Spill<'r, X> {
    pub region: Region<'r, X>,
    pub over: Vec<X>,
    pub spilled: bool,
}

#[cfg(feature = "parallel")]
impl<X: Copy> Out<X> for Spill<'_, X> {
    fn len(&self) -> usize {
        self.region.len + self.over.len()
    }
    fn capacity(&self) -> usize {
        self.region.buf.len() + self.over.capacity()
    }
    fn grow(&mut self, extra: usize, huge: bool) -> Result<bool, usize> {
        if !self.spilled && self.region.grow(extra, huge).is_ok() {
            return Ok(false);
        }
        self.spilled = true;
        self.over.grow(extra, huge)
    }
    // Once spilled, every row starts past the region: `grow` runs before its writes.
    fn push(&mut self, x: X) {
        if self.spilled { self.over.push(x) } else { self.region.push(x) }
    }
    fn extend_from_slice(&mut self, xs: &[X]) {
        if self.spilled { self.over.extend_from_slice(xs) } else { self.region.extend_from_slice(xs) }
    }
    fn extend_iter(&mut self, xs: impl Iterator<Item = X>) {
        if self.spilled { Out::extend_iter(&mut self.over, xs) } else { self.region.extend_iter(xs) }
    }
    fn resize(&mut self, len: usize, x: X) {
        if self.spilled {
            self.over.resize(len.saturating_sub(self.region.len), x)
        } else {
            self.region.resize(len, x)
        }
    }
    fn truncate(&mut self, len: usize) {
        self.over.truncate(len.saturating_sub(self.region.len));
        self.region.truncate(len);
    }
    fn tail(&mut self, start: usize) -> &mut [X] {
        if self.spilled {
            let at = start.saturating_sub(self.region.len).min(self.over.len());
            &mut self.over[at..]
        } else {
            self.region.tail(start)
        }
    }
}

/// [`Out::grow`] on both output arrays; whether the column array grew.
fn grow_both<I: Copy, T: Copy>(
    col_idx: &mut impl Out<I>,
    vals: &mut impl Out<T>,
    extra: usize,
    huge: bool,
) -> Result<bool, usize> {
    let grew = col_idx.grow(extra, huge)?;
    vals.grow(extra, huge)?;
    Ok(grew)
}

/// The error of an output or workspace that cannot be allocated: `value` elements asked.
pub(crate) fn room_err(value: usize) -> DimError {
    DimError::Overflow { what: "room", value, max: isize::MAX as usize }
}

/// Gives back the room of `v` past its length when it is more than an eighth of it: room
/// left over from an estimate of `nnz(C)`, where an allocator may copy to shrink.
pub(crate) fn give_back<X>(v: &mut Vec<X>) {
    if v.capacity() - v.len() > v.len() / 8 {
        v.shrink_to_fit();
    }
}

/// The huge page hint of [`SpgemmConfig::huge_pages`] on an output array, if `huge`.
pub(crate) fn advise<X>(v: &Vec<X>, huge: bool) {
    if huge {
        crate::arch::advise_huge(v);
    }
}

/// The product of row `i` of `A` with `B` when it has one candidate product: the entry
/// `(j, a_ik * b_kj)` of the one nonempty row `k` of `B` it references; `None` when it
/// references none. `i` is a row of `A` (the caller's loop runs over them).
#[inline(always)]
fn single_product<T: Scalar, I: Index>(ctx: &Ctx<'_, '_, T, I>, i: usize) -> Option<(I, T)> {
    let (ap, a) = (ctx.a.row_ptr(), ctx.a);
    (ap[i].to_usize()..ap[i + 1].to_usize()).find_map(|p| {
        let (bc, bv) = ctx.b_row_at(a.col_idx()[p].to_usize());
        Some((*bc.first()?, a.vals()[p] * *bv.first()?))
    })
}

/// Closes a row of `C`: records the arrays' peak capacities and pushes the row's end to
/// `row_ptr`.
fn end_row<I: Index, T: Copy>(
    col_idx: &impl Out<I>,
    vals: &impl Out<T>,
    peak: &mut (usize, usize),
    row_ptr: &mut Vec<I>,
) -> Result<(), DimError> {
    *peak = (peak.0.max(col_idx.capacity()), peak.1.max(vals.capacity()));
    let end = col_idx.len();
    row_ptr.push(I::from_usize(end).ok_or(DimError::Overflow {
        what: "nnz(C)",
        value: end,
        max: I::MAX_USIZE,
    })?);
    Ok(())
}

/// `C = A·B` (feature `alloc`) by a CPU form of the hybrid allocation of thesis 9.4.3,
/// with no symbolic pass: one allocation sized in advance, then progressive growth.
/// Rows are computed in row order and appended — a single-row copy straight into `C`,
/// an accumulated row through a staging row — so they land packed and the arrange stage
/// costs nothing. The advance allocation is an estimate of `nnz(C)`: the exact lengths
/// of up to 1024 spread rows against their upper bounds, scaled to all rows, plus a
/// sixteenth, kept between a lower bound (per row the longest row of a canonical `B` it
/// references) and the upper bound `nnz(Ĉ)`. Where no row of `A` or `B` is 16 times its
/// matrix's mean and `nnz(A)` times the longest row of `B` fits the index type (stencils,
/// bands, FEM matrices of 16K rows and more), the sampled rows' lengths are scaled by
/// the entries of `A` instead, and no walk over every row's upper bound precedes the
/// product. When a row does not fit, the arrays grow
/// by [`Tuning::spgemm_growth`](crate::Tuning::spgemm_growth) (1.5x); room more than an
/// eighth past `nnz(C)` is given back at the end. So the output holds about `nnz(C)`
/// entries where the thesis's upper-bound room holds `nnz(Ĉ)`, with no symbolic pass.
/// The [`SpgemmStats`] say how many bytes that took against the precise method.
///
/// Rows that repeat the pattern of an earlier dense-accumulator row, shifted (stencils,
/// bands) or in place (blocks), are computed by a learnt row plan: the row's products
/// summed into known output slots, no marker bits, no sort, no staging copy; the values
/// are the accumulator's bit for bit. After 256 such rows the rows of `B` get pattern ids
/// (neighbours with equal column offsets share one), and a plan then checks a row of `B`
/// by its id instead of its columns. Row plans save the marking and sorting on stencils,
/// bands and blocks, and cost the spread matrices nothing measurable.
///
/// (Earlier versions: upper-bound room for rows up to 256 products and a fixed room of
/// 256 per longer row, as the thesis's GPU code, held several times the precise bytes
/// (banded `A²`: `nnz(Ĉ)` is 9x `nnz(C)`), and writing rows into fixed rooms then
/// packing them cost more in page faults; counting long rows exactly first made it slower
/// than a plain Gustavson loop.) Measurements: `benches/records/kernel-notes-2026-11.md`,
/// "SpGEMM output allocation".
///
/// With more than one thread (feature `parallel`), the rows of `A` are cut into
/// contiguous ranges holding about equal shares of the candidate products (the upper
/// bounds of 9.4.1), each range multiplied as above, and the pieces joined; the kernel
/// choice is made once for the whole product, so every row comes out as on one thread.
///
/// ```
/// use spblas::level3::{SpgemmConfig, spgemm};
/// use spblas::{CsrOwned, Exec};
/// let a = CsrOwned::<f64, u32>::from_triplets(2, 3, &[(0, 0, 1.0), (0, 2, 2.0), (1, 1, 3.0)])?;
/// let b = CsrOwned::<f64, u32>::from_triplets(3, 2, &[(0, 1, 4.0), (1, 0, 5.0), (2, 1, 6.0)])?;
/// let c = spgemm(Exec::new(), SpgemmConfig::new(), &a.view(), &b.view())?;
/// assert_eq!(c.view().iter().collect::<Vec<_>>(), [(0, 1, 16.0), (1, 0, 15.0)]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`DimError::IsaUnavailable`], [`DimError::Inner`], [`DimError::NotCanonical`] (a
/// forced merge on a non-canonical `B`); [`DimError::Overflow`] (`"nnz(C)"`, with its
/// value) if `nnz(C)` does not fit `I`, found before any room for `C` is allocated (the
/// rows are counted, as the symbolic phase counts them, only where the sum of their upper
/// bounds passes `I::MAX`), or (`"room"`, with the elements asked for) if the room or the
/// workspace cannot be allocated.
pub fn spgemm<T: Scalar + ScanElem, I: Index + Key>(
    exec: Exec,
    cfg: SpgemmConfig,
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
) -> Result<CsrOwned<T, I>, DimError> {
    let isa = check_operands(exec, &cfg, a, b)?;
    product_on(exec, isa, cfg, a, b, None).map(|(c, _)| c)
}

/// The product on the threads of `exec` (feature `parallel`; else on the calling thread),
/// into `reuse`'s memory if given: what [`spgemm`] and [`spgemm_reuse`] run once their
/// operands are checked (`isa` their token).
fn product_on<T: Scalar + ScanElem, I: Index + Key>(
    exec: Exec,
    isa: Checked,
    cfg: SpgemmConfig,
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
    reuse: Option<Piece<T, I>>,
) -> Result<(CsrOwned<T, I>, SpgemmStats), DimError> {
    #[cfg(feature = "parallel")]
    if exec.thread_limit() != 1 {
        return crate::parallel::spgemm(isa, cfg, a, b, exec.thread_limit(), reuse);
    }
    #[cfg(not(feature = "parallel"))]
    let _ = exec;
    hybrid_product(isa, cfg, a, b, reuse)
}

/// The whole of `C = A·B` by [`hybrid_rows`] (into `reuse`'s memory if given), as a
/// canonical [`CsrOwned`]; the operands already checked (`isa` their token).
pub(crate) fn hybrid_product<T: Scalar + ScanElem, I: Index + Key>(
    isa: Checked,
    cfg: SpgemmConfig,
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
    reuse: Option<Piece<T, I>>,
) -> Result<(CsrOwned<T, I>, SpgemmStats), DimError> {
    let nrows = a.nrows();
    let rule = Rule::new(cfg.method, a, b);
    let (piece, stats) = hybrid_rows(isa, rule, cfg.huge_pages, a, b, 0..nrows, reuse)?;
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

/// [`spgemm`] (on the threads of `exec`, as it) into the memory of an earlier product
/// `c`, which it replaces, returning what the product did ([`SpgemmStats`]):
/// `c`'s arrays are cleared and refilled, growing only where the new product is larger,
/// and they keep their capacity (no shrink). A product repeated on a pattern that does
/// not grow (AMG setup, time steps) then writes to memory already faulted in instead of
/// fresh pages, whose first touch can cost more than the product's own computation
/// (`benches/records/kernel-notes-2026-11.md`, "Huge pages for SpGEMM outputs").
///
/// ```
/// use spblas::level3::{SpgemmConfig, spgemm_reuse};
/// use spblas::{CsrOwned, Exec};
/// let a = CsrOwned::<f64, u32>::from_triplets(2, 2, &[(0, 0, 2.0), (0, 1, 1.0), (1, 1, 3.0)])?;
/// let mut c = CsrOwned::<f64, u32>::from_triplets(0, 0, &[])?;
/// for _ in 0..3 {
///     spgemm_reuse(Exec::new(), SpgemmConfig::new(), &a.view(), &a.view(), &mut c)?;
/// }
/// assert_eq!(c.view().iter().collect::<Vec<_>>(), [(0, 0, 4.0), (0, 1, 5.0), (1, 1, 9.0)]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`spgemm`]. Operand errors leave `c` as it was; an allocation failure during the
/// product leaves it an empty `0 × 0` matrix.
pub fn spgemm_reuse<T: Scalar + ScanElem, I: Index + Key>(
    exec: Exec,
    cfg: SpgemmConfig,
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
    c: &mut CsrOwned<T, I>,
) -> Result<SpgemmStats, DimError> {
    let isa = check_operands(exec, &cfg, a, b)?;
    let empty =
        CsrOwned::from_parts_trusted(0, 0, alloc::vec![I::ZERO], Vec::new(), Vec::new(), RowOrder::Canonical);
    let (_, _, row_ptr, col_idx, vals) = core::mem::replace(c, empty).into_parts();
    let (product, stats) = product_on(exec, isa, cfg, a, b, Some(Piece { row_ptr, col_idx, vals }))?;
    *c = product;
    Ok(stats)
}

/// The rows `rows` of `C = A·B` as computed by the hybrid allocation: `row_ptr` has
/// `rows.len() + 1` entries from 0.
pub(crate) struct Piece<T, I> {
    pub row_ptr: Vec<I>,
    pub col_idx: Vec<I>,
    pub vals: Vec<T>,
}

impl<T, I> Default for Piece<T, I> {
    /// No arrays (a product with nothing to reuse).
    fn default() -> Self {
        Piece { row_ptr: Vec::new(), col_idx: Vec::new(), vals: Vec::new() }
    }
}

/// The per-row scratch of [`hybrid_rows`], grown as rows need it (so a product that never
/// sorts allocates no expansion buffer, and one that never touches the SPA no dense
/// array), fallibly: an allocation failure is an error, not an abort.
struct Work<T, I> {
    si: Vec<I>,
    sv: Vec<T>,
    esc: Vec<u64>,
    bits: Vec<u64>,
    dense: Vec<T>,
    /// The staging row of accumulated rows.
    stage_i: Vec<I>,
    stage_v: Vec<T>,
}

/// Grows `v` (zero-filled) to at least `len` elements: to twice its length if that is
/// more (so that rows of growing bounds cost amortized constant allocations), but not
/// past `cap` (the most any row needs) unless `len` is. On failure, the length it asked
/// for.
fn fit<X: Copy>(v: &mut Vec<X>, len: usize, cap: usize, zero: X) -> Result<(), usize> {
    if v.len() >= len {
        return Ok(());
    }
    let target = len.max(v.len().saturating_mul(2).min(cap));
    v.try_reserve_exact(target - v.len()).map_err(|_| target)?;
    v.resize(target, zero);
    Ok(())
}

impl<T: Scalar, I: Index> Work<T, I> {
    fn new() -> Self {
        Work {
            si: Vec::new(),
            sv: Vec::new(),
            esc: Vec::new(),
            bits: Vec::new(),
            dense: Vec::new(),
            stage_i: Vec::new(),
            stage_v: Vec::new(),
        }
    }

    /// Makes room for `method` on a row of upper bound `ub` (room `room`) in a product
    /// with `ncols` columns; the SPA's arrays are sized once, for every column.
    fn fit(&mut self, method: RowMethod, ub: usize, room: usize, ncols: usize) -> Result<(), usize> {
        const ANY: usize = usize::MAX;
        fit(&mut self.stage_i, room, ncols, I::ZERO)?;
        fit(&mut self.stage_v, room, ncols, T::ZERO)?;
        match method {
            RowMethod::Spa => {
                fit(&mut self.bits, ncols.div_ceil(64), ANY, 0)?;
                fit(&mut self.dense, ncols, ANY, T::ZERO)
            }
            RowMethod::Heap | RowMethod::BitonicEsc => {
                fit(&mut self.esc, crate::level1::esc_words(ub), ANY, 0)?;
                fit(&mut self.si, ub, ANY, I::ZERO)?;
                fit(&mut self.sv, ub, ANY, T::ZERO)
            }
            RowMethod::Merge => {
                fit(&mut self.si, ub.saturating_mul(2), ANY, I::ZERO)?;
                fit(&mut self.sv, ub.saturating_mul(2), ANY, T::ZERO)
            }
        }
    }

    /// Bytes of the staging row.
    fn stage_bytes(&self) -> usize {
        self.stage_i.len() * core::mem::size_of::<I>() + self.stage_v.len() * core::mem::size_of::<T>()
    }

    /// Bytes of everything else.
    fn scratch_bytes(&self) -> usize {
        self.si.len() * core::mem::size_of::<I>()
            + (self.sv.len() + self.dense.len()) * core::mem::size_of::<T>()
            + (self.esc.len() + self.bits.len()) * 8
    }
}

/// The room the hybrid allocation starts with for the rows `rows` of `C = A·B`: the sum
/// of the rows' upper bounds each capped at `ncols` (`bound`, a bound of `nnz(C)`) and
/// the advance allocation ([`estimate_nnz`], marker words in `bits`).
pub(crate) struct Advance {
    pub bound: usize,
    pub start: usize,
}

/// [`Advance`] of the rows `rows`: sampled where [`Sizing::of`] allows
/// ([`sampled_advance`]), else by one walk of `A`'s indices and `B`'s `row_ptr`
/// ([`walk_rows`]) and a sample of rows counted exactly.
///
/// # Errors
/// The elements of `bits` asked for, if they cannot be allocated.
pub(crate) fn advance<T: Scalar, I: Index + Key>(
    ctx: &Ctx<'_, '_, T, I>,
    rule: Rule,
    rows: Range<usize>,
    bits: &mut Vec<u64>,
) -> Result<Advance, usize> {
    match Sizing::of(ctx) {
        Sizing::Sampled { longest } => sampled_advance(ctx, rows, longest, bits),
        Sizing::Walked => {
            let walk = walk_rows(ctx, rule, rows.clone(), |_| 0);
            advance_of(ctx, rows, &walk, bits)
        }
    }
}

/// How a product sizes its output in advance (and the threaded one cuts its ranges).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sizing {
    /// From samples of rows alone: no row of `A` or `B` is [`HEAVY`] times its
    /// matrix's mean length, and `nnz(A)` times the `longest` row of `B` bounds `nnz(Ĉ)`
    /// within `I::MAX`, so no product can overflow: the walk over every index of `A`
    /// that the upper bounds take (a tenth of a short-row product's time) is not
    /// needed for refusing one, nor for seeing the heavy rows
    /// (`benches/records/spgemm-sizing-*.md`).
    Sampled { longest: usize },
    /// By a walk of every row's upper bound: the bound above passes `I::MAX` (long rows
    /// of `B`, whose rows of `C` the sizing must see), or there are too few rows to
    /// sample.
    Walked,
}

impl Sizing {
    pub(crate) fn of<T: Scalar, I: Index>(ctx: &Ctx<'_, '_, T, I>) -> Sizing {
        let (a, b) = (ctx.a, ctx.b);
        if a.nrows() < SAMPLED_ROWS {
            return Sizing::Walked;
        }
        let longest = longest_row(b);
        // No row [`HEAVY`] times its matrix's mean: a sample of rows then sees what
        // the rows cost (a power-law graph's heavy rows it would miss). `A`'s rows are
        // read only if the rest holds.
        let even = |longest: usize, m: &Csr<'_, T, I>| longest <= HEAVY * m.nnz().div_ceil(m.nrows().max(1));
        let fits = a.nnz().checked_mul(longest).is_some_and(|bound| bound <= I::MAX_USIZE);
        if fits && even(longest, b) && even(longest_row(a), a) {
            Sizing::Sampled { longest }
        } else {
            Sizing::Walked
        }
    }
}

/// The length of the longest row of `m`, from its `row_ptr`.
fn longest_row<T: Scalar, I: Index>(m: &Csr<'_, T, I>) -> usize {
    m.row_ptr().windows(2).fold(0usize, |l, w| l.max(w[1].to_usize() - w[0].to_usize()))
}

/// Rows of `A` from which [`Sizing::of`] samples instead of walking.
const SAMPLED_ROWS: usize = 1 << 14;

/// [`Advance`] of the rows `rows` from samples alone ([`Sizing::Sampled`]): the bound is
/// their entries of `A` times the `longest` row of `B`; the room, the exact lengths of up
/// to [`ESTIMATE_ROWS`] spread rows ([`spread_rows`]) per entry of `A` they hold, times the rows'
/// entries (free from `row_ptr`), plus a sixteenth, within the bound.
///
/// # Errors
/// The elements of `bits` asked for, if they cannot be allocated.
pub(crate) fn sampled_advance<T: Scalar, I: Index + Key>(
    ctx: &Ctx<'_, '_, T, I>,
    rows: Range<usize>,
    longest: usize,
    bits: &mut Vec<u64>,
) -> Result<Advance, usize> {
    let ap = ctx.a.row_ptr();
    let entries = ap[rows.end].to_usize() - ap[rows.start].to_usize();
    let bound = entries.saturating_mul(longest);
    let samples = (rows.len() / 16).min(ESTIMATE_ROWS);
    let words = ctx.b.ncols().div_ceil(64);
    if samples == 0 || words > bound {
        return Ok(Advance { bound, start: 0 });
    }
    fit(bits, words, usize::MAX, 0)?;
    let spa = Kernel::Acc(RowMethod::Spa);
    let (mut seen, mut len) = (0usize, 0usize);
    for i in spread_rows(rows.clone(), samples) {
        seen += ap[i + 1].to_usize() - ap[i].to_usize();
        len += rows::symbolic_row(ctx, spa, i, &mut [], bits);
    }
    let est = if seen == 0 { 0 } else { (entries as u128 * len as u128 / seen as u128) as usize };
    Ok(Advance { bound, start: est.saturating_add(est / 16).min(bound) })
}

#[cfg(feature = "parallel")]
/// The cost ([`Walk::cost`], by `cost`) of the rows `rows` from up to [`COST_SAMPLES`]
/// spread ones: what the threaded product cuts its ranges by under [`Sizing::Sampled`],
/// where no row is heavy. The sampled rows' cost per entry of `A` (each row counted one
/// entry more, so that empty rows count) times the rows' entries, which `row_ptr` gives:
/// scaled by rows alone, a block of `empty_rows_90pct` held three sampled rows that
/// were not empty, and the two threads' shares came out 15% apart.
pub(crate) fn sampled_cost<T: Scalar, I: Index>(
    ctx: &Ctx<'_, '_, T, I>,
    rows: Range<usize>,
    cost: impl Fn(usize) -> usize,
) -> usize {
    let samples = rows.len().min(COST_SAMPLES);
    if samples == 0 {
        return 0;
    }
    let ap = ctx.a.row_ptr();
    let (mut sum, mut weight) = (0usize, 0usize);
    for i in spread_rows(rows.clone(), samples) {
        sum = sum.saturating_add(cost(row_upper_bound(ctx.a, ctx.b, i)));
        weight += ap[i + 1].to_usize() - ap[i].to_usize() + 1;
    }
    let entries = ap[rows.end].to_usize() - ap[rows.start].to_usize() + rows.len();
    (sum as u128 * entries as u128 / weight as u128).min(usize::MAX as u128) as usize
}

/// `samples` rows of `rows` (at most its length, above 0), one in each of `samples`
/// equal strides, at a pseudo-random place in it: evenly spaced rows alias with the
/// period of a grid (every sampled row of `fem3d_27pt` fell on one face of its cube,
/// where rows are shorter, and the room came out 4% short).
fn spread_rows(rows: Range<usize>, samples: usize) -> impl Iterator<Item = usize> {
    let stride = rows.len() / samples;
    (0..samples).map(move |k| {
        let jitter = (k as u64).wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        rows.start + k * stride + (jitter as usize) % stride
    })
}

#[cfg(feature = "parallel")]
/// Rows of a fine block that [`sampled_cost`] reads, at most.
const COST_SAMPLES: usize = 64;

/// [`Advance`] of the rows `rows` from their [`Walk`]: the bound it sums and the estimate
/// of [`estimate_nnz`] (`bits` its marker words).
///
/// # Errors
/// The elements of `bits` asked for, if they cannot be allocated.
pub(crate) fn advance_of<T: Scalar, I: Index + Key>(
    ctx: &Ctx<'_, '_, T, I>,
    rows: Range<usize>,
    walk: &Walk,
    bits: &mut Vec<u64>,
) -> Result<Advance, usize> {
    let bound = walk.classes.iter().fold(0usize, |s, &u| s.saturating_add(u));
    let start = estimate_nnz(ctx, rows, walk.lower, bound, &walk.classes, bits)?;
    Ok(Advance { bound, start })
}

/// What a walk of rows of `A` over `B`'s `row_ptr` counts, in sums that add up over
/// consecutive rows: the threaded product walks fine blocks once and adds their walks
/// up per range, instead of a walk for its cuts and another for each range's advance.
#[derive(Clone, Copy)]
pub(crate) struct Walk {
    /// The upper bounds capped at `ncols`, summed over the rows whose bound has `c`
    /// significant bits, for telling the heavy rows apart ([`estimate_nnz`]).
    pub classes: [usize; usize::BITS as usize + 1],
    /// Per row the longest row of a canonical `B` it references, summed: a lower bound.
    pub lower: usize,
    /// The walk's `cost` of each row's uncapped upper bound, summed.
    pub cost: usize,
}

impl Walk {
    pub(crate) const EMPTY: Walk = Walk { classes: [0; usize::BITS as usize + 1], lower: 0, cost: 0 };

    #[cfg(feature = "parallel")]
    /// Adds the walk of the rows that follow.
    pub(crate) fn add(&mut self, other: &Walk) {
        for (c, o) in self.classes.iter_mut().zip(&other.classes) {
            *c = c.saturating_add(*o);
        }
        self.lower = self.lower.saturating_add(other.lower);
        self.cost = self.cost.saturating_add(other.cost);
    }
}

/// The [`Walk`] of the rows `rows` (rows of `B` prefetched ahead where they lie far
/// apart, `rule.spread`), counting `cost(ub)` for each row's upper bound `ub`.
pub(crate) fn walk_rows<T: Scalar, I: Index + Key>(
    ctx: &Ctx<'_, '_, T, I>,
    rule: Rule,
    rows: Range<usize>,
    cost: impl Fn(usize) -> usize,
) -> Walk {
    let (a, b, ncols) = (ctx.a, ctx.b, ctx.b.ncols());
    let canonical = b.row_order() == RowOrder::Canonical;
    let mut w = Walk::EMPTY;
    for i in rows {
        if rule.spread {
            rows::prefetch_b_rows(a, b, usize::MAX, i + 2 * PREFETCH_ROWS);
        }
        let (ub, longest) = row_bounds(a, b, i);
        w.cost = w.cost.saturating_add(cost(ub));
        let ub = ub.min(ncols);
        let c = (usize::BITS - ub.leading_zeros()) as usize;
        w.classes[c] = w.classes[c].saturating_add(ub);
        w.lower = w.lower.saturating_add(if canonical { longest.min(ncols) } else { 0 });
    }
    w
}

/// What [`append_rows`] counted on its way.
struct Tally {
    peak: (usize, usize),
    grows: usize,
    upper: usize,
    rows_per_bin: [usize; NBINS],
    id_bytes: usize,
}

/// The hybrid allocation of [`spgemm`] on the rows `rows` of `A` (a range
/// inside `0..a.nrows()`), under `rule`, its output arrays hinted to huge pages if
/// `huge` ([`SpgemmConfig::huge_pages`]). The serial product runs this and each piece of
/// the threaded one ([`crate::parallel::spgemm`]) [`region_rows`], both the row loop
/// [`append_rows`], so a row comes out the same whichever runs it.
pub(crate) fn hybrid_rows<T: Scalar + ScanElem, I: Index + Key>(
    isa: Checked,
    rule: Rule,
    huge: bool,
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
    rows: Range<usize>,
    reuse: Option<Piece<T, I>>,
) -> Result<(Piece<T, I>, SpgemmStats), DimError> {
    // Rows are computed in order, in one pass that also counts the statistics; the
    // workspace and the staging row grow as the rows need them (sizing them in a pass
    // of their own, with the kernel choice per row, cost a tenth of the product on
    // short-row matrices).
    let ctx = Ctx { a, b, isa };
    let mut w = Work::<T, I>::new();
    let Advance { bound, start } = advance(&ctx, rule, rows.clone(), &mut w.bits).map_err(room_err)?;
    // A product whose `nnz(C)` cannot fit `I` is refused here, before any room for it is
    // allocated; without this, rows were appended until the count passed `I::MAX`, after
    // gigabytes of output.
    if bound > I::MAX_USIZE {
        let nnz = count_nnz(isa, a, b, rows.clone(), Some(bound))?;
        if nnz > I::MAX_USIZE {
            return Err(DimError::Overflow { what: "nnz(C)", value: nnz, max: I::MAX_USIZE });
        }
    }
    // Reused arrays keep their memory (already faulted in): cleared, and kept at their
    // capacity at the end instead of shrunk.
    let keep = reuse.is_some();
    let Piece { mut row_ptr, mut col_idx, mut vals } = reuse.unwrap_or_default();
    row_ptr.clear();
    col_idx.clear();
    vals.clear();
    col_idx.try_reserve_exact(start).map_err(|_| room_err(start))?;
    vals.try_reserve_exact(start).map_err(|_| room_err(start))?;
    advise(&col_idx, huge);
    advise(&vals, huge);
    row_ptr.try_reserve_exact(rows.len() + 1).map_err(|_| room_err(rows.len() + 1))?;
    advise(&row_ptr, huge);
    row_ptr.push(I::ZERO);
    let t = append_rows(&ctx, rule, huge, rows.clone(), &mut col_idx, &mut vals, &mut row_ptr, &mut w)?;
    let nnz = col_idx.len();
    if !keep {
        give_back(&mut col_idx);
        give_back(&mut vals);
    }
    let ptr_bytes = (rows.len() + 1) * core::mem::size_of::<I>();
    let (si_, st_) = (core::mem::size_of::<I>(), core::mem::size_of::<T>());
    let stage = w.stage_bytes();
    let stats = SpgemmStats {
        nnz_c: nnz,
        nnz_upper: t.upper,
        rows_per_bin: t.rows_per_bin,
        nnz_start: start,
        grows: t.grows,
        bytes_hybrid: (t.peak.0 * si_ + t.peak.1 * st_).saturating_add(stage).saturating_add(ptr_bytes),
        bytes_precise: nnz.saturating_mul(si_ + st_).saturating_add(ptr_bytes),
        bytes_workspace: w.scratch_bytes().saturating_add(t.id_bytes),
    };
    Ok((Piece { row_ptr, col_idx, vals }, stats))
}

#[cfg(feature = "parallel")]
/// The rows of one range of a threaded `C = A·B` ([`region_rows`]): their `row_ptr`
/// (from 0, one entry more than rows), how many entries stayed in the range's region, and
/// the columns and values of the rows that did not fit there.
pub(crate) struct RegionRows<T, I> {
    pub row_ptr: Vec<I>,
    pub in_region: usize,
    pub over_idx: Vec<I>,
    pub over_vals: Vec<T>,
    /// What the row loop counted, and the bytes of its staging row and of the rest of
    /// its workspace, for [`region_stats`].
    tally: Tally,
    stage: usize,
    scratch: usize,
}

#[cfg(feature = "parallel")]
/// The [`SpgemmStats`] of a threaded product from its ranges' `parts`, whose regions
/// started at `start` entries in all, with `nnz` entries and `nrows` rows: each field as
/// the serial product counts it, summed over the ranges (the peak output the regions
/// plus each range's largest spill).
pub(crate) fn region_stats<T, I>(
    parts: &[RegionRows<T, I>],
    start: usize,
    nnz: usize,
    nrows: usize,
) -> SpgemmStats {
    let (si_, st_) = (core::mem::size_of::<I>(), core::mem::size_of::<T>());
    let ptr_bytes = (nrows + 1) * si_;
    let mut stats = SpgemmStats {
        nnz_c: nnz,
        nnz_upper: 0,
        rows_per_bin: [0; NBINS],
        nnz_start: start,
        grows: 0,
        bytes_hybrid: ptr_bytes,
        bytes_precise: nnz.saturating_mul(si_ + st_).saturating_add(ptr_bytes),
        bytes_workspace: 0,
    };
    for p in parts {
        let t = &p.tally;
        stats.nnz_upper = stats.nnz_upper.saturating_add(t.upper);
        for (sum, r) in stats.rows_per_bin.iter_mut().zip(t.rows_per_bin) {
            *sum += r;
        }
        stats.grows += t.grows;
        let peak = (t.peak.0 * si_).saturating_add(t.peak.1 * st_);
        stats.bytes_hybrid = stats.bytes_hybrid.saturating_add(peak).saturating_add(p.stage);
        stats.bytes_workspace = stats.bytes_workspace.saturating_add(p.scratch).saturating_add(t.id_bytes);
    }
    stats
}

#[cfg(feature = "parallel")]
/// The rows `rows` of `C = A·B` by the row loop of [`hybrid_rows`], into the regions
/// `col_idx`/`vals` (equal lengths) of a shared output, spilling into arrays of their own
/// from the first row that does not fit ([`Spill`]).
///
/// # Errors
/// [`DimError::Overflow`] (`"room"`) if the workspace or the spill cannot be allocated.
pub(crate) fn region_rows<T: Scalar + ScanElem, I: Index + Key>(
    isa: Checked,
    rule: Rule,
    huge: bool,
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
    rows: Range<usize>,
    (col_idx, vals): (&mut [I], &mut [T]),
) -> Result<RegionRows<T, I>, DimError> {
    let ctx = Ctx { a, b, isa };
    let mut w = Work::<T, I>::new();
    let mut row_ptr = Vec::new();
    row_ptr.try_reserve_exact(rows.len() + 1).map_err(|_| room_err(rows.len() + 1))?;
    row_ptr.push(I::ZERO);
    let mut ci = Spill { region: Region { buf: col_idx, len: 0 }, over: Vec::new(), spilled: false };
    let mut v = Spill { region: Region { buf: vals, len: 0 }, over: Vec::new(), spilled: false };
    let tally = append_rows(&ctx, rule, huge, rows, &mut ci, &mut v, &mut row_ptr, &mut w)?;
    Ok(RegionRows {
        row_ptr,
        in_region: ci.region.len,
        over_idx: ci.over,
        over_vals: v.over,
        tally,
        stage: w.stage_bytes(),
        scratch: w.scratch_bytes(),
    })
}

/// The row loop of the hybrid allocation: the rows `rows` of `C = A·B` appended to
/// `col_idx`/`vals` (growing as [`Out::grow`] allows) and their ends to `row_ptr`.
#[allow(clippy::too_many_arguments)]
fn append_rows<T: Scalar + ScanElem, I: Index + Key>(
    ctx: &Ctx<'_, '_, T, I>,
    rule: Rule,
    huge: bool,
    rows: Range<usize>,
    col_idx: &mut impl Out<I>,
    vals: &mut impl Out<T>,
    row_ptr: &mut Vec<I>,
    w: &mut Work<T, I>,
) -> Result<Tally, DimError> {
    let (a, b) = (ctx.a, ctx.b);
    let (ap, order, ncols) = (a.row_ptr(), b.row_order(), b.ncols());
    let (mut peak, mut grows) = ((col_idx.capacity(), vals.capacity()), 0usize);
    let (mut upper, mut rows_per_bin) = (0usize, [0usize; NBINS]);
    let mut reg = EscBuf::new();
    let mut plan = RowPlan::new();
    for i in rows {
        if rule.spread {
            ctx.prefetch(i + PREFETCH_ROWS, i + 2 * PREFETCH_ROWS);
        }
        // A row that repeats the learnt pattern: straight into `C`.
        if rule.forced.is_none() && plan.len() > 0 {
            let grew = grow_both(col_idx, vals, plan.len(), huge).map_err(room_err)?;
            if plan.apply(ctx, i, col_idx, vals) {
                grows += usize::from(grew);
                upper = upper.saturating_add(plan.ub);
                rows_per_bin[plan.bin.index()] += 1;
                end_row(col_idx, vals, &mut peak, row_ptr)?;
                continue;
            }
        }
        let ub_i = row_upper_bound(a, b, i);
        let bin = Bin::of(ub_i, ap[i + 1].to_usize() - ap[i].to_usize(), order);
        upper = upper.saturating_add(ub_i);
        rows_per_bin[bin.index()] += 1;
        if ub_i <= 1 && rule.forced.is_none() {
            // No product or one (a diagonal, a permutation, most rows of a mostly empty
            // matrix): the entry goes straight into `C`, with no kernel to choose.
            if let Some((j, v)) = single_product(ctx, i) {
                grows += usize::from(grow_both(col_idx, vals, 1, huge).map_err(room_err)?);
                col_idx.push(j);
                vals.push(v);
            }
            end_row(col_idx, vals, &mut peak, row_ptr)?;
            continue;
        }
        let kernel = kernel_for(a, b, i, ub_i, bin, rule);
        // A row needs at most `min(ub, ncols)`.
        let room = ub_i.min(ncols);
        let start = col_idx.len();
        // Not reached: a row never outgrows its upper bound, nor `b.ncols()`.
        let too_long = |got| DimError::RowLength { operand: "room", row: i, expected: room, got };
        if kernel == Kernel::Acc(RowMethod::BitonicEsc)
            && ub_i <= ESC_REG_MAX
            && let Some(len) = rows::esc_short(ctx, i, &mut reg)
        {
            // A short row sorted in registers: straight from them into `C`.
            grows += usize::from(grow_both(col_idx, vals, len, huge).map_err(room_err)?);
            col_idx.extend_iter(reg.cols[..len].iter().map(|&c| I::from_usize_unchecked(c as usize)));
            vals.extend_from_slice(&reg.vals[..len]);
        } else if let Kernel::Acc(method) = kernel {
            // Accumulated rows are computed in the staging row and appended: zero-filling
            // their room in `C` instead cost more than the copy where `nnz(Ĉ)` is many
            // times `nnz(C)` (a band: 9x).
            w.fit(method, ub_i, room, ncols).map_err(room_err)?;
            let (di, dv) = (&mut w.stage_i[..room], &mut w.stage_v[..room]);
            let len = if method == RowMethod::Spa && bin == Bin::Short {
                // The short rows' lean SPA (most rows of stencil products).
                rows::spa_short(ctx, i, di, dv, &mut w.bits, &mut w.dense)
            } else {
                let mut s = Scratch {
                    si: &mut w.si,
                    sv: &mut w.sv,
                    esc: &mut w.esc,
                    bits: &mut w.bits,
                    dense: &mut w.dense,
                    reg: &mut reg,
                };
                rows::numeric_row(ctx, kernel, i, di, dv, &mut s, false).map_err(too_long)?
            };
            if method == RowMethod::Spa && rule.forced.is_none() {
                plan.learn(ctx, i, ub_i, bin, &di[..len]);
            }
            grows += usize::from(grow_both(col_idx, vals, len, huge).map_err(room_err)?);
            col_idx.extend_from_slice(&di[..len]);
            vals.extend_from_slice(&dv[..len]);
        } else {
            // Empty, or a copy of exactly `room` entries: straight into `C`.
            grows += usize::from(grow_both(col_idx, vals, room, huge).map_err(room_err)?);
            col_idx.resize(start + room, I::ZERO);
            vals.resize(start + room, T::ZERO);
            let (di, dv) = (col_idx.tail(start), vals.tail(start));
            let mut s = Scratch {
                si: &mut [],
                sv: &mut [],
                esc: &mut [],
                bits: &mut [],
                dense: &mut [],
                reg: &mut reg,
            };
            rows::numeric_row(ctx, kernel, i, di, dv, &mut s, true).map_err(too_long)?;
        }
        end_row(col_idx, vals, &mut peak, row_ptr)?;
    }
    Ok(Tally { peak, grows, upper, rows_per_bin, id_bytes: plan.id_bytes() })
}

/// Rows of `A` whose exact lengths in `C` [`estimate_nnz`] counts, at most.
const ESTIMATE_ROWS: usize = 1024;

/// The room the hybrid allocation starts with for the rows `rows` of `C = A·B`, given
/// `lower` and `bound`, the sums of the rows' lower and upper bounds of their lengths, and
/// `classes`, the upper bounds summed by their bit length. Heavy rows (an upper bound at
/// least [`HEAVY`] times the mean) are taken at their upper bound; the others at the
/// ratio of exact lengths to upper bounds of up to [`ESTIMATE_ROWS`] spread light
/// rows (one in 16 at most; the symbolic SPA, marker words in `bits`). Plus one
/// sixteenth, within `lower..=bound`. Products of fewer rows, or whose marker words would
/// outnumber `bound`, start at `lower`.
///
/// Each time the arrays outgrow their room, their entries so far are copied (where the
/// allocator cannot move them in place: glibc below its mmap threshold, which freeing a
/// large buffer raises) into pages touched for the first time. Starting at the lower
/// bound (the longest row of `B` referenced: 5 of 13 entries a row of a 5-point
/// stencil's `A²`) grew the arrays three times and made the output's page faults and
/// copies most of the product's time (`benches/records/spgemm-estimate-*.md`). Room
/// reserved past `nnz(C)` is never written, so its pages are never touched, and the
/// final shrink gives it back. The heavy rows are few and would rarely be sampled, but
/// may hold most of `C` (a circuit's rails: 62%), and their ratio is not the light
/// rows': sampled alike, the estimate fell 23% short.
fn estimate_nnz<T: Scalar, I: Index + Key>(
    ctx: &Ctx<'_, '_, T, I>,
    rows: Range<usize>,
    lower: usize,
    bound: usize,
    classes: &[usize],
    bits: &mut Vec<u64>,
) -> Result<usize, usize> {
    let samples = (rows.len() / 16).min(ESTIMATE_ROWS);
    let words = ctx.b.ncols().div_ceil(64);
    if samples < 16 || words > bound || lower >= bound {
        return Ok(lower);
    }
    // The first class whose every row is heavy, and what those rows bound.
    let heavy_min = (bound / rows.len()).saturating_mul(HEAVY).max(1);
    let first_heavy = (usize::BITS - (heavy_min - 1).leading_zeros()) as usize + 1;
    let heavy = classes.iter().skip(first_heavy).fold(0usize, |s, &u| s.saturating_add(u));
    fit(bits, words, usize::MAX, 0)?;
    let spa = Kernel::Acc(RowMethod::Spa);
    let (mut ub, mut len) = (0usize, 0usize);
    for i in spread_rows(rows.clone(), samples) {
        let u = row_upper_bound(ctx.a, ctx.b, i).min(ctx.b.ncols());
        if (usize::BITS - u.leading_zeros()) as usize >= first_heavy {
            continue;
        }
        ub += u;
        len += rows::symbolic_row(ctx, spa, i, &mut [], bits);
    }
    let light = bound - heavy;
    let est = if ub == 0 { lower.min(light) } else { (light as u128 * len as u128 / ub as u128) as usize };
    let est = est.saturating_add(heavy);
    Ok(est.saturating_add(est / 16).clamp(lower, bound))
}

/// [`estimate_nnz`] takes rows whose upper bound is at least this many times the mean as
/// heavy.
const HEAVY: usize = 16;

/// `nnz` of the rows `rows` of `C = A·B`, counted as the symbolic phase counts them
/// (marker bits, one per column of `B`, the only memory it takes), for refusing a
/// product whose `nnz(C)` does not fit `I` before its output is allocated. Consecutive
/// rows of `A` with one entry each in the same column (an outer product, an aggregation's
/// prolongation) copy the same row of `B`: it is counted once for all of them.
///
/// With `bound`, the sum of the rows' upper bounds each capped at `ncols` (below
/// `usize::MAX`), the count stops as soon as the rows counted plus the bounds of the rows
/// left come to at most `I::MAX`, and returns that sum: the product then fits, found at
/// a fraction of the exact count's cost. Any result above `I::MAX` is exact.
///
/// # Errors
/// [`DimError::Overflow`] (`"room"`) if the marker bits cannot be allocated.
pub(crate) fn count_nnz<T: Scalar, I: Index + Key>(
    isa: Checked,
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
    rows: Range<usize>,
    bound: Option<usize>,
) -> Result<usize, DimError> {
    let ncols = b.ncols();
    let words = ncols.div_ceil(64);
    let mut bits: Vec<u64> = Vec::new();
    bits.try_reserve_exact(words).map_err(|_| DimError::Overflow {
        what: "room",
        value: words,
        max: isize::MAX as usize / 8,
    })?;
    bits.resize(words, 0);
    let ctx = Ctx { a, b, isa };
    // The rows' bounds left, while the sum of them is known exactly.
    let mut left = bound.filter(|&u| u < usize::MAX);
    let (mut count, mut last) = (0usize, None::<(I, usize)>);
    for i in rows {
        if let Some(u) = left {
            if count.saturating_add(u) <= I::MAX_USIZE {
                return Ok(count + u);
            }
            left = Some(u - row_upper_bound(a, b, i).min(ncols));
        }
        let spa = Kernel::Acc(RowMethod::Spa);
        let len = match *ctx.a_row(i).0 {
            [] => 0,
            [k] => match last {
                Some((same, len)) if same == k => len,
                _ => {
                    let len = rows::symbolic_row(&ctx, spa, i, &mut [], &mut bits);
                    last = Some((k, len));
                    len
                }
            },
            _ => rows::symbolic_row(&ctx, spa, i, &mut [], &mut bits),
        };
        count = count.saturating_add(len);
    }
    Ok(count)
}

/// The Galerkin triple product `Pᵀ·A·P` of algebraic multigrid (thesis 9.5.1), as two
/// products `(Pᵀ·A)·P` by [`spgemm`]; the caller passes `Pᵀ` (e.g. from
/// [`Csr::transpose_into`]).
///
/// # Errors
/// [`DimError::Inner`] if `p_t.ncols() != a.nrows()` or `a.ncols() != p.nrows()` (checked
/// before anything is computed); otherwise as [`spgemm`].
pub fn galerkin<T: Scalar + ScanElem, I: Index + Key>(
    exec: Exec,
    cfg: SpgemmConfig,
    p_t: &Csr<'_, T, I>,
    a: &Csr<'_, T, I>,
    p: &Csr<'_, T, I>,
) -> Result<CsrOwned<T, I>, DimError> {
    check_inner(p_t, a)?;
    check_inner(a, p)?;
    let pa = spgemm(exec, cfg, p_t, a)?;
    spgemm(exec, cfg, &pa.view(), p)
}

/// `A·Aᵀ` (thesis 9.5) by [`spgemm`], with `Aᵀ` built by [`Csr::transpose_into`] (the CSC
/// of `A`).
///
/// # Errors
/// As [`spgemm`]; [`DimError::Overflow`] (`"transpose"`) if `Aᵀ` cannot be allocated.
pub fn a_at<T: Scalar + ScanElem, I: Index + Key>(
    exec: Exec,
    cfg: SpgemmConfig,
    a: &Csr<'_, T, I>,
) -> Result<CsrOwned<T, I>, DimError> {
    let (np, nnz) = a.transpose_len();
    let room_err = DimError::Overflow { what: "transpose", value: np, max: isize::MAX as usize };
    let (mut rp, mut ci, mut v) = (Vec::new(), Vec::new(), Vec::new());
    // `ncols` may be huge with few entries: an error, not an abort.
    rp.try_reserve_exact(np).map_err(|_| room_err)?;
    ci.try_reserve_exact(nnz).map_err(|_| room_err)?;
    v.try_reserve_exact(nnz).map_err(|_| room_err)?;
    rp.resize(np, I::ZERO);
    ci.resize(nnz, I::ZERO);
    v.resize(nnz, T::ZERO);
    let at = a
        .transpose_into(&mut rp, &mut ci, &mut v)
        // Not reached: a valid `A` has a valid transpose (same nnz, dimensions swapped).
        .map_err(|_| DimError::Overflow { what: "transpose", value: nnz, max: I::MAX_USIZE })?;
    spgemm(exec, cfg, a, &at)
}
