//! Level 3: sparse matrix-matrix multiplication `C = A·B` in CSR (thesis chapter 9), and
//! the sum `C = alpha·A + beta·B` and scalings of sparse matrices ([`add_symbolic`],
//! [`add_numeric`], [`add`]; [`scale`], [`scale_rows`], [`scale_cols`]; chapter 7's
//! vector additions row by row).
//!
//! The four stages of the CSR-based framework (thesis 9.4):
//! 1. [`upper_bound`] — each row of `C` has at most as many entries as the rows of `B`
//!    that its row of `A` references hold (9.4.1); their sum is `nnz(Ĉ)`.
//! 2. [`bin_rows`] — rows are grouped into [`Bin`]s by that bound (9.4.2, Alg. 35).
//! 3. A row kernel per bin ([`RowMethod`]): nothing for empty rows, a scaled copy for
//!    single-product rows, and an accumulation — heap, bitonic ESC, merge or dense
//!    accumulator — for the rest.
//! 4. Arrange — rows land at their place in `C`: at `row_ptr` from the symbolic phase
//!    ([`spgemm_symbolic`] then [`spgemm_numeric`], the "precise" method), or, with
//!    `alloc`, by a CPU form of the thesis's hybrid allocation ([`spgemm`], 9.4.3): rows
//!    appended in order into arrays sized in advance by an estimate of `nnz(C)` (a
//!    sample of rows counted exactly) and grown by
//!    [`Tuning::spgemm_growth`](crate::Tuning::spgemm_growth) (1.5x) when a row does not
//!    fit, no symbolic pass. There, rows that repeat the pattern of an earlier
//!    dense-accumulator row (stencils, bands, blocks) reuse its learnt slots instead of
//!    marking and sorting again. Without an allocator, [`spgemm_bounded`] does the same
//!    in caller buffers as large as the upper bound: one pass, rows packed as they come.
//!
//! Stages 1–3 are public ([`upper_bound`], [`bin_rows`], [`spgemm_numeric_rows`] for one
//! bin's rows), so a caller can time them or run bins as independent chunks.
//!
//! **Semantics.** `C`'s rows come out sorted by column without duplicates
//! ([`RowOrder::Canonical`]); products that fall on one
//! column are summed; explicit zeros and cancellations are kept (the pattern of `C`
//! depends on the patterns of `A` and `B` only). `A` and `B` may have unsorted rows and
//! duplicates: every method but [`RowMethod::Merge`] takes products in any order, and
//! forcing the merge on a `B` that is not canonical is [`DimError::NotCanonical`] (the
//! automatic rule never picks it then). Values from different methods may differ in the
//! last bits (the additions run in different orders).
//!
//! **Memory.** No function here allocates, but [`spgemm`], [`spgemm_reuse`],
//! [`galerkin`] and [`a_at`] (feature `alloc`). The scratch is one index buffer and one
//! value buffer whose lengths [`spgemm_workspace_len`] gives ([`SpgemmWorkspace`]).
//!
//! # Bins
//!
//! The thesis bins rows into 38 groups sized to a GPU's thread groups and scratchpad;
//! one CPU core has neither, so the bins here are five, and their kernels were chosen by
//! measurement:
//!
//! | [`Bin`] | upper bound | kernel |
//! |---|---|---|
//! | `Empty` | 0 | none |
//! | `Single` | 1, or one entry in the row of `A` with a canonical `B` | scaled copy of a row of `B` |
//! | `Short` | `2..=`[`Tuning::spgemm_short_max`](crate::Tuning::spgemm_short_max) (32) | [`Tuning::spgemm_short_method`](crate::Tuning::spgemm_short_method): SPA; [`Tuning::spgemm_short_spread_method`](crate::Tuning::spgemm_short_spread_method): bitonic ESC when a sample of short rows references rows of `B` spanning more than [`Tuning::spgemm_short_spa_span`](crate::Tuning::spgemm_short_spa_span) columns |
//! | `Medium` | up to [`Tuning::spgemm_medium_max`](crate::Tuning::spgemm_medium_max) (256) | [`Tuning::spgemm_medium_method`](crate::Tuning::spgemm_medium_method): bitonic ESC; SPA when the referenced rows of `B` span at most `ub` columns (tested per row, unless a sample shows the rows of `B` that rows of `A` reference lying far apart) |
//! | `Long` | above | [`Tuning::spgemm_long_method`](crate::Tuning::spgemm_long_method): SPA |
//!
//! Why (`benches/spgemm.rs`, group `bins`, every row forced onto each method; the tables
//! in `benches/records/kernel-notes-2026-11.md`, "SpGEMM bin kernels"): the heap
//! (`O(m log m)`) and the merge (`O(m)` per row of `A`) never won. Random columns are the
//! sorting network's best case (few duplicates); on a stencil `A²` (half of the products
//! duplicates) the SPA beat the ESC on short rows, hence the SPA for `Short` — but on
//! random and power-law graphs (short rows spanning almost every column) each SPA update
//! misses the cache and the ESC made the whole `A²` faster, hence the short bin's
//! sampled span test
//! ([`Tuning::spgemm_short_spread_method`](crate::Tuning::spgemm_short_spread_method)). On
//! a band (upper bound 289, 9 products per entry of `C`) the SPA won on medium rows too,
//! hence the medium bin's per-row span test: the ESC sorts all `m` candidates, the SPA only
//! the distinct ones. The other methods stay available to force ([`SpgemmConfig::method`]).

mod add;
pub(crate) mod rows;
pub(crate) mod stages;

#[cfg(feature = "alloc")]
mod owned;
#[cfg(feature = "alloc")]
mod plan;

#[cfg(feature = "alloc")]
pub use add::add;
pub use add::{AddWorkspace, add_numeric, add_symbolic, add_workspace_len, scale, scale_cols, scale_rows};
#[cfg(feature = "parallel")]
pub(crate) use owned::{
    Piece, RegionRows, Sizing, Walk, advance_of, advise, count_nnz, give_back, hybrid_product, region_rows,
    region_stats, room_err, sampled_advance, sampled_cost, walk_rows,
};
#[cfg(feature = "alloc")]
pub use owned::{SpgemmStats, a_at, galerkin, spgemm, spgemm_reuse};
pub use rows::RowMethod;
use stages::SHORT_METHOD;
pub(crate) use stages::row_upper_bound;
pub use stages::{Bin, NBINS, bin_rows, upper_bound};

use crate::arch::Checked;
use crate::arch::generic::esc::EscBuf;
use crate::primitives::Key;
use crate::primitives::scan::ScanElem;
use crate::{Csr, DimError, Exec, Index, RowOrder, Scalar};

pub(crate) use rows::Ctx;
use rows::{Kernel, PREFETCH_ROWS, Scratch};
use stages::{check_buf, check_inner};

/// How to compute an SpGEMM: optionally one accumulation method forced onto every
/// non-empty row (for tests and benchmarks), and whether the owned products ask for huge
/// pages (on by default). The width and threads are the [`Exec`] of each call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SpgemmConfig {
    /// `None` (default): the per-bin rule. `Some(m)`: `m` on every non-empty row, the
    /// single-product bin included.
    pub method: Option<RowMethod>,
    /// Whether the products that allocate their output (feature `alloc`: [`spgemm`],
    /// [`spgemm_reuse`]) ask the kernel to back output arrays
    /// of 8 MiB or more by transparent huge pages (`madvise(MADV_HUGEPAGE)`; feature
    /// `std` on Linux, elsewhere nothing). On by default, as NumPy does for its arrays
    /// (and so SciPy's products). The results are the same either way; the speed
    /// depends on the machine:
    ///
    /// - First-touch page faults of a fresh output were over half the time of a Poisson
    ///   `A²`, and the hint cut them, on one thread and on 16.
    /// - On a virtual machine whose balloon driver hands free 2 MiB blocks back to the
    ///   host (free page reporting), huge pages touched after a pause must be backed
    ///   again by the host: products a few seconds apart ran slower with the hint than
    ///   without it there (SciPy's too, whose arrays NumPy hints alike).
    ///
    /// Measurements: `benches/records/kernel-notes-2026-11.md`, "Huge pages for SpGEMM
    /// outputs".
    ///
    /// Turn it off for products spaced seconds apart on such a machine, after measuring.
    pub huge_pages: bool,
}

impl Default for SpgemmConfig {
    fn default() -> Self {
        SpgemmConfig { method: None, huge_pages: true }
    }
}

impl SpgemmConfig {
    /// The per-bin rule, the huge page hint on.
    pub fn new() -> Self {
        Self::default()
    }
    /// The same with `method` forced on every non-empty row.
    pub fn method(self, method: RowMethod) -> Self {
        SpgemmConfig { method: Some(method), ..self }
    }
    /// The same with the huge page hint on or off (see [`SpgemmConfig::huge_pages`]).
    pub fn huge_pages(self, on: bool) -> Self {
        SpgemmConfig { huge_pages: on, ..self }
    }
}

/// Lengths of the two scratch buffers [`spgemm_symbolic`] (`idx` only) and
/// [`spgemm_numeric`] (both) need, from [`spgemm_workspace_len`].
///
/// `idx` holds the row bounds and the bin permutation (`2 nrows`), the expansion buffer
/// of the heap/ESC/merge rows (the largest such bound, twice for the merge) and, as
/// `u64` words, the ESC flags and the SPA's marker bits (`ncols / 64`); `vals` holds the
/// expansion buffer's values and the SPA's dense row (`ncols`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SpgemmWorkspace {
    /// Length of the index workspace, in `I`.
    pub idx: usize,
    /// Length of the value workspace, in `T` (numeric phase only).
    pub vals: usize,
}

/// What the rows of one product need, computed by one pass over `A`.
#[derive(Clone, Copy, Debug, Default)]
struct Needs {
    nrows: usize,
    /// Expansion/merge pairs.
    scratch: usize,
    esc_words: usize,
    bits_words: usize,
    dense: usize,
    /// The kernel choice these needs were counted under.
    rule: Rule,
}

/// `I` or `T` elements whose bytes hold `words` `u64`s wherever the slice starts.
fn words_in<X>(words: usize) -> usize {
    if words == 0 { 0 } else { words.saturating_add(1).saturating_mul(8) / core::mem::size_of::<X>() }
}

impl Needs {
    fn workspace<I>(&self) -> SpgemmWorkspace {
        let words = self.esc_words.saturating_add(self.bits_words);
        SpgemmWorkspace {
            idx: self
                .nrows
                .saturating_mul(2)
                .saturating_add(self.scratch)
                .saturating_add(words_in::<I>(words)),
            vals: self.scratch.saturating_add(self.dense),
        }
    }
}

/// The kernel row `i` (upper bound `ub`, in `bin`) runs under `method` (`None`: the
/// per-bin rule; a medium row whose products concentrate, see [`stages::MEDIUM_METHOD`], takes
/// the SPA instead).
fn kernel_for<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
    i: usize,
    ub: usize,
    bin: Bin,
    rule: Rule,
) -> Kernel {
    match (bin, rule.forced) {
        (Bin::Empty, _) => Kernel::Empty,
        (_, Some(m)) => Kernel::Acc(m),
        (Bin::Single, None) => Kernel::Copy,
        (Bin::Short, None) => Kernel::Acc(rule.short),
        (Bin::Medium, None) if !rule.spread && stages::b_span(a, b, i) <= ub => Kernel::Acc(RowMethod::Spa),
        (bin, None) => Kernel::Acc(bin.method().unwrap_or(RowMethod::Spa)),
    }
}

/// The kernel choice of one product `A·B`: a forced method, or the per-bin rule with the
/// short bin's method decided once from a sample of rows ([`stages::SHORT_SPREAD_METHOD`]); and
/// whether the row loops prefetch, from the same sample.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rule {
    forced: Option<RowMethod>,
    short: RowMethod,
    /// Whether the rows of `B` a row of `A` references lie far apart (`Sample::spread`):
    /// the row loops prefetch, medium rows skip their span test.
    spread: bool,
}

impl Default for Rule {
    fn default() -> Self {
        Rule { forced: None, short: SHORT_METHOD, spread: false }
    }
}

impl Rule {
    pub(crate) fn new<T: Scalar, I: Index>(
        method: Option<RowMethod>,
        a: &Csr<'_, T, I>,
        b: &Csr<'_, T, I>,
    ) -> Rule {
        let sample = stages::sample(a, b);
        let short = if method.is_some() { SHORT_METHOD } else { sample.short };
        Rule { forced: method, short, spread: sample.spread }
    }
}

/// The border checks every entry point shares: the `Isa`, the inner dimensions, and a
/// canonical `B` for a forced merge.
pub(crate) fn check_operands<T: Scalar, I: Index>(
    exec: Exec,
    cfg: &SpgemmConfig,
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
) -> Result<Checked, DimError> {
    let isa = Checked::new(exec.resolved_isa())?;
    check_inner(a, b)?;
    if cfg.method == Some(RowMethod::Merge) && b.row_order() != RowOrder::Canonical {
        return Err(DimError::NotCanonical { operand: "b" });
    }
    Ok(isa)
}

fn needs<T: Scalar, I: Index>(cfg: &SpgemmConfig, a: &Csr<'_, T, I>, b: &Csr<'_, T, I>) -> Needs {
    needs_in(Rule::new(cfg.method, a, b), a, b, 0..a.nrows())
}

/// [`needs`] of the rows `rows` (inside `0..a.nrows()`) under `rule`.
fn needs_in<T: Scalar, I: Index>(
    rule: Rule,
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
    rows: core::ops::Range<usize>,
) -> Needs {
    let mut n = Needs { nrows: a.nrows(), rule, ..Needs::default() };
    let (ap, order) = (a.row_ptr(), b.row_order());
    let (mut heap_esc, mut esc, mut merge, mut bits, mut spa) = (0usize, 0usize, 0usize, false, false);
    for i in rows.clone() {
        if rule.spread {
            rows::prefetch_b_rows(a, b, usize::MAX, i + 2 * PREFETCH_ROWS);
        }
        let ub = stages::row_upper_bound(a, b, i);
        let bin = Bin::of(ub, ap[i + 1].to_usize() - ap[i].to_usize(), order);
        let kernel = kernel_for(a, b, i, ub, bin, rule);
        match kernel {
            Kernel::Empty | Kernel::Copy => {}
            Kernel::Acc(RowMethod::Heap) => heap_esc = heap_esc.max(ub),
            Kernel::Acc(RowMethod::BitonicEsc) => {
                heap_esc = heap_esc.max(ub);
                esc = esc.max(ub);
            }
            Kernel::Acc(RowMethod::Merge) => {
                merge = merge.max(ub);
                bits = true;
            }
            Kernel::Acc(RowMethod::Spa) => spa = true,
        }
    }
    n.scratch = heap_esc.max(merge.saturating_mul(2));
    n.esc_words = crate::level1::esc_words(esc);
    if bits || spa {
        n.bits_words = b.ncols().div_ceil(64);
    }
    if spa {
        n.dense = b.ncols();
    }
    n
}

/// The workspace [`spgemm_symbolic`] and [`spgemm_numeric`] need for `A·B` under `cfg`;
/// one pass over `A`. Lengths saturate at `usize::MAX` (no such buffer
/// exists: the product then fails with [`DimError::BufferTooSmall`]).
///
/// # Errors
/// [`DimError::IsaUnavailable`], [`DimError::Inner`], [`DimError::NotCanonical`] (a
/// forced merge on a non-canonical `B`).
pub fn spgemm_workspace_len<T: Scalar, I: Index>(
    exec: Exec,
    cfg: SpgemmConfig,
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
) -> Result<SpgemmWorkspace, DimError> {
    check_operands(exec, &cfg, a, b)?;
    Ok(needs(&cfg, a, b).workspace::<I>())
}

/// The index workspace cut into its parts: bounds, permutation, scratch indices, ESC and
/// marker words.
type IdxParts<'w, I> = (&'w mut [I], &'w mut [I], &'w mut [I], &'w mut [u64], &'w mut [u64]);

fn carve_idx<'w, I: Index>(n: &Needs, idx: &'w mut [I]) -> IdxParts<'w, I> {
    let (ub, rest) = idx.split_at_mut(n.nrows);
    let (perm, rest) = rest.split_at_mut(n.nrows);
    let (si, rest) = rest.split_at_mut(n.scratch);
    let words = bytemuck::pod_align_to_mut::<I, u64>(rest).1;
    let (esc, rest) = words.split_at_mut(n.esc_words);
    let bits = &mut rest[..n.bits_words];
    bits.fill(0);
    (ub, perm, si, esc, bits)
}

/// The bounds, the permutation and the scratch of [`numeric_workspace`].
type NumericParts<'w, T, I> = (&'w mut [I], &'w mut [I], Scratch<'w, T, I>);

/// The numeric phase's workspace, checked against `n` and cut into the bounds, the
/// permutation and the row kernels' [`Scratch`] (`reg`: the register ESC's buffers).
fn numeric_workspace<'w, T: Scalar, I: Index>(
    n: &Needs,
    (wi, wv): (&'w mut [I], &'w mut [T]),
    reg: &'w mut EscBuf<T>,
) -> Result<NumericParts<'w, T, I>, DimError> {
    let wl = n.workspace::<I>();
    check_buf("workspace.idx", wl.idx, wi.len())?;
    check_buf("workspace.vals", wl.vals, wv.len())?;
    let (ub, perm, si, esc, bits) = carve_idx(n, wi);
    let (sv, rest) = wv.split_at_mut(n.scratch);
    Ok((ub, perm, Scratch { si, sv, esc, bits, dense: &mut rest[..n.dense], reg }))
}

/// Symbolic phase of `C = A·B` (the precise method's first pass, thesis 9.4.3): the exact
/// row lengths of `C`, by the same bins as the numeric phase with index-only kernels,
/// written as row pointers into `row_ptr_c[..a.nrows() + 1]`; returns `nnz(C)`.
/// `workspace` must hold [`spgemm_workspace_len`]`(exec, cfg, a, b)?.idx` indices; its
/// contents on entry do not matter.
///
/// ```
/// use spblas::{Csr, Exec};
/// use spblas::level3::{SpgemmConfig, spgemm_numeric, spgemm_symbolic, spgemm_workspace_len};
/// // A = [[1, 2], [0, 3]], B = A: A² = [[1, 8], [0, 9]].
/// let a = Csr::new(2, 2, &[0u32, 2, 3], &[0, 1, 1], &[1.0f64, 2.0, 3.0])?;
/// let ws = spgemm_workspace_len(Exec::new(), SpgemmConfig::new(), &a, &a)?;
/// let (mut wi, mut wv) = (vec![0u32; ws.idx], vec![0.0f64; ws.vals]);
/// let mut row_ptr = [0u32; 3];
/// let nnz = spgemm_symbolic(Exec::new(), SpgemmConfig::new(), &a, &a, &mut row_ptr, &mut wi)?;
/// let (mut col_idx, mut vals) = (vec![0u32; nnz], vec![0.0f64; nnz]);
/// spgemm_numeric(
///     Exec::new(),
///     SpgemmConfig::new(),
///     &a,
///     &a,
///     &row_ptr,
///     &mut col_idx,
///     &mut vals,
///     (&mut wi, &mut wv),
/// )?;
/// assert_eq!((row_ptr, col_idx, vals), ([0, 2, 3], vec![0, 1, 1], vec![1.0, 8.0, 9.0]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// Before `row_ptr_c` is written: [`DimError::IsaUnavailable`], [`DimError::Inner`],
/// [`DimError::NotCanonical`]; [`DimError::BufferTooSmall`] (`"row_ptr_c"`,
/// `"workspace"`); [`DimError::Overflow`] (`"nnz(C)"`) if `nnz(C)` does not fit `I`.
pub fn spgemm_symbolic<T: Scalar, I: Index + Key>(
    exec: Exec,
    cfg: SpgemmConfig,
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
    row_ptr_c: &mut [I],
    workspace: &mut [I],
) -> Result<usize, DimError> {
    let isa = check_operands(exec, &cfg, a, b)?;
    let nrows = a.nrows();
    check_buf("row_ptr_c", nrows + 1, row_ptr_c.len())?;
    let n = needs(&cfg, a, b);
    check_buf("workspace", n.workspace::<I>().idx, workspace.len())?;
    let (ub, perm, si, _, bits) = carve_idx(&n, workspace);
    upper_bound(a, b, ub)?;
    let mut bin_ptr = [0usize; NBINS + 1];
    bin_rows(a, b, ub, perm, &mut bin_ptr)?;
    let ctx = Ctx { a, b, isa };
    // Row lengths go into `ub` (no longer needed once binned), so `row_ptr_c` is written
    // only when the total is known to fit.
    for (k, bin) in Bin::ALL.into_iter().enumerate() {
        let list = &perm[bin_ptr[k]..bin_ptr[k + 1]];
        for (t, &r) in list.iter().enumerate() {
            if n.rule.spread {
                let ahead = |d: usize| list.get(t + d).map_or(usize::MAX, |r| r.to_usize());
                ctx.prefetch(ahead(PREFETCH_ROWS), ahead(2 * PREFETCH_ROWS));
            }
            let i = r.to_usize();
            let kernel = kernel_for(a, b, i, ub[i].to_usize(), bin, n.rule);
            // A row's length is at most `b.ncols() < I::MAX`.
            ub[i] = I::from_usize_unchecked(rows::symbolic_row(&ctx, kernel, i, si, bits));
        }
    }
    let total = ub.iter().fold(0usize, |s, &l| s.saturating_add(l.to_usize()));
    if total > I::MAX_USIZE {
        return Err(DimError::Overflow { what: "nnz(C)", value: total, max: I::MAX_USIZE });
    }
    row_ptr_c[0] = I::ZERO;
    let mut sum = 0;
    for (p, &l) in row_ptr_c[1..=nrows].iter_mut().zip(ub.iter()) {
        sum += l.to_usize();
        *p = I::from_usize_unchecked(sum);
    }
    Ok(total)
}

/// Checks `c_row_ptr[..nrows + 1]`: starts at 0, never decreases; returns its last entry.
fn check_row_ptr<I: Index>(c_row_ptr: &[I], nrows: usize) -> Result<usize, DimError> {
    if c_row_ptr.len() < nrows + 1 {
        return Err(DimError::Length { operand: "c_row_ptr", expected: nrows + 1, got: c_row_ptr.len() });
    }
    let p = &c_row_ptr[..=nrows];
    if p[0] != I::ZERO {
        return Err(DimError::OutOfRange {
            operand: "c_row_ptr",
            position: 0,
            value: p[0].to_usize(),
            max: 0,
        });
    }
    if let Some(position) = p.windows(2).position(|w| w[1] < w[0]) {
        return Err(DimError::Unsorted { operand: "c_row_ptr", position: position + 1 });
    }
    Ok(p[nrows].to_usize())
}

/// Numeric phase of `C = A·B` (thesis 9.4.2–9.4.3): row `i` of `C` — sorted by column,
/// duplicates summed, zeros kept — into `c_col_idx`/`c_vals[c_row_ptr[i]..c_row_ptr[i +
/// 1]]`, each row by its bin's kernel. `c_row_ptr` is what [`spgemm_symbolic`] wrote
/// for the same operands (any `cfg`: the lengths do not depend on the method).
/// `workspace` must hold [`spgemm_workspace_len`]`(cfg, a, b)?` indices and values;
/// its contents on entry do not matter.
///
/// # Errors
/// Before anything is written: [`DimError::IsaUnavailable`], [`DimError::Inner`],
/// [`DimError::NotCanonical`]; [`DimError::Length`] (`c_row_ptr` shorter than `nrows +
/// 1`), [`DimError::OutOfRange`] (not starting at 0), [`DimError::Unsorted`]
/// (decreasing); [`DimError::BufferTooSmall`] (`"c_col_idx"` / `"c_vals"` shorter than
/// `c_row_ptr[nrows]`, `"workspace.idx"`, `"workspace.vals"`). While computing:
/// [`DimError::RowLength`] for the first row whose length differs from `c_row_ptr`'s;
/// the rows computed before it are then written, the rest of `c_col_idx`/`c_vals` is
/// unspecified.
#[allow(clippy::too_many_arguments)]
pub fn spgemm_numeric<T: Scalar + ScanElem, I: Index + Key>(
    exec: Exec,
    cfg: SpgemmConfig,
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
    c_row_ptr: &[I],
    c_col_idx: &mut [I],
    c_vals: &mut [T],
    workspace: (&mut [I], &mut [T]),
) -> Result<(), DimError> {
    let isa = check_operands(exec, &cfg, a, b)?;
    let nrows = a.nrows();
    let nnz = check_row_ptr(c_row_ptr, nrows)?;
    check_buf("c_col_idx", nnz, c_col_idx.len())?;
    check_buf("c_vals", nnz, c_vals.len())?;
    let n = needs(&cfg, a, b);
    let mut reg = EscBuf::new();
    let (ub, perm, mut s) = numeric_workspace(&n, workspace, &mut reg)?;
    upper_bound(a, b, ub)?;
    let mut bin_ptr = [0usize; NBINS + 1];
    bin_rows(a, b, ub, perm, &mut bin_ptr)?;
    let ctx = Ctx { a, b, isa };
    for k in 0..NBINS {
        numeric_rows(&ctx, n.rule, &perm[bin_ptr[k]..bin_ptr[k + 1]], c_row_ptr, c_col_idx, c_vals, &mut s)?;
    }
    Ok(())
}

/// `C = A·B` in one pass, without the symbolic phase, where the caller's `c_col_idx` and
/// `c_vals` hold the product's upper bound `nnz(Ĉ)` ([`upper_bound`]'s sum: the products
/// before duplicates merge, thesis 9.4.1): each row is computed, by its bin's kernel (or
/// `cfg.method`), straight to where it ends up, after the rows before it, so the arrays
/// come out compact. What firmware wants when memory for the bound is there and time
/// for a second pass is not. Writes `c_row_ptr[..nrows + 1]` and returns `nnz(C)`; the
/// result is the same as [`spgemm_symbolic`] + [`spgemm_numeric`]'s. `workspace` as
/// theirs ([`spgemm_workspace_len`]). Runs on the calling thread.
///
/// ```
/// use spblas::{Csr, Exec};
/// use spblas::level3::{SpgemmConfig, spgemm_bounded, spgemm_workspace_len};
/// // A = [[1, 2], [0, 3]]: A² = [[1, 8], [0, 9]] (4 products merge into 3 entries).
/// let a = Csr::new(2, 2, &[0u32, 2, 3], &[0, 1, 1], &[1.0f64, 2.0, 3.0])?;
/// let ws = spgemm_workspace_len(Exec::new(), SpgemmConfig::new(), &a, &a)?;
/// let (mut wi, mut wv) = ([0u32; 64], [0.0f64; 64]);
/// assert!(ws.idx <= wi.len() && ws.vals <= wv.len());
/// let (mut row_ptr, mut col_idx, mut vals) = ([0u32; 3], [0u32; 4], [0.0f64; 4]);
/// let cfg = SpgemmConfig::new();
/// let nnz = spgemm_bounded(Exec::new(), cfg, &a, &a, &mut row_ptr, &mut col_idx, &mut vals, (&mut wi, &mut wv))?;
/// assert_eq!((row_ptr, &col_idx[..nnz], &vals[..nnz]), ([0, 2, 3], &[0, 1, 1][..], &[1.0, 8.0, 9.0][..]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// Before anything is written: [`DimError::IsaUnavailable`], [`DimError::Inner`],
/// [`DimError::NotCanonical`]; [`DimError::BufferTooSmall`] (`"c_row_ptr"` shorter than
/// `nrows + 1`, `"workspace.idx"`, `"workspace.vals"`, and `"c_col_idx"` / `"c_vals"`
/// shorter than the upper bound: then run the two phases, which need only `nnz(C)`).
/// While computing: [`DimError::Overflow`] (`"nnz(C)"`) if `nnz(C)` does not fit `I`; the
/// rows before are then written.
#[allow(clippy::too_many_arguments)]
pub fn spgemm_bounded<T: Scalar + ScanElem, I: Index + Key>(
    exec: Exec,
    cfg: SpgemmConfig,
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
    c_row_ptr: &mut [I],
    c_col_idx: &mut [I],
    c_vals: &mut [T],
    workspace: (&mut [I], &mut [T]),
) -> Result<usize, DimError> {
    let isa = check_operands(exec, &cfg, a, b)?;
    let nrows = a.nrows();
    check_buf("c_row_ptr", nrows + 1, c_row_ptr.len())?;
    let n = needs(&cfg, a, b);
    let mut reg = EscBuf::new();
    let (ub, _, mut s) = numeric_workspace(&n, workspace, &mut reg)?;
    let total = upper_bound(a, b, ub)?;
    check_buf("c_col_idx", total, c_col_idx.len())?;
    check_buf("c_vals", total, c_vals.len())?;
    let ctx = Ctx { a, b, isa };
    let (ap, order) = (a.row_ptr(), b.row_order());
    let mut end = 0usize;
    c_row_ptr[0] = I::ZERO;
    for i in 0..nrows {
        let ub_i = row_upper_bound(a, b, i);
        let bin = Bin::of(ub_i, ap[i + 1].to_usize() - ap[i].to_usize(), order);
        let kernel = kernel_for(a, b, i, ub_i, bin, n.rule);
        // The rows before took at most their bounds, so this row's bound fits after them.
        let room = end..end + ub_i;
        let len = rows::numeric_row(
            &ctx,
            kernel,
            i,
            &mut c_col_idx[room.clone()],
            &mut c_vals[room],
            &mut s,
            false,
        )
        .map_err(|got| DimError::RowLength {
            operand: "upper bound",
            row: i,
            expected: ub_i,
            got,
        })?;
        end += len;
        c_row_ptr[i + 1] =
            I::from_usize(end).ok_or(DimError::Overflow { what: "nnz(C)", value: end, max: I::MAX_USIZE })?;
    }
    Ok(end)
}

/// Stage 3 on the rows listed, each by its bin's kernel (see [`kernel_for`]).
fn numeric_rows<T: Scalar + ScanElem, I: Index + Key>(
    ctx: &Ctx<'_, '_, T, I>,
    rule: Rule,
    rows: &[I],
    c_row_ptr: &[I],
    c_col_idx: &mut [I],
    c_vals: &mut [T],
    s: &mut Scratch<'_, T, I>,
) -> Result<(), DimError> {
    let (a, b) = (ctx.a, ctx.b);
    let (ap, order) = (a.row_ptr(), b.row_order());
    for (t, &r) in rows.iter().enumerate() {
        if rule.spread {
            let ahead = |d: usize| rows.get(t + d).map_or(usize::MAX, |r| r.to_usize());
            ctx.prefetch(ahead(PREFETCH_ROWS), ahead(2 * PREFETCH_ROWS));
        }
        let i = r.to_usize();
        let ub = row_upper_bound(a, b, i);
        let bin = Bin::of(ub, ap[i + 1].to_usize() - ap[i].to_usize(), order);
        let kernel = kernel_for(a, b, i, ub, bin, rule);
        let range = c_row_ptr[i].to_usize()..c_row_ptr[i + 1].to_usize();
        let expected = range.len();
        let (di, dv) = (&mut c_col_idx[range.clone()], &mut c_vals[range]);
        rows::numeric_row(ctx, kernel, i, di, dv, s, true).map_err(|got| DimError::RowLength {
            operand: "c_row_ptr",
            row: i,
            expected,
            got,
        })?;
    }
    Ok(())
}

/// [`spgemm_numeric`] restricted to the rows listed in `rows` (stage 3 on part of
/// `C`; the other rows of `c_col_idx`/`c_vals` are not touched): e.g. one bin's rows,
/// `perm[bin_ptr[k]..bin_ptr[k + 1]]` from [`bin_rows`], to time or schedule bins
/// separately. Each row still takes its own bin's kernel (or `cfg.method`). Arguments
/// and workspace as [`spgemm_numeric`].
///
/// # Errors
/// As [`spgemm_numeric`], plus [`DimError::OutOfRange`] (`"rows"`) for a row not
/// below `a.nrows()`, checked before anything is written.
#[allow(clippy::too_many_arguments)]
pub fn spgemm_numeric_rows<T: Scalar + ScanElem, I: Index + Key>(
    exec: Exec,
    cfg: SpgemmConfig,
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
    rows: &[I],
    c_row_ptr: &[I],
    c_col_idx: &mut [I],
    c_vals: &mut [T],
    workspace: (&mut [I], &mut [T]),
) -> Result<(), DimError> {
    let isa = check_operands(exec, &cfg, a, b)?;
    let nrows = a.nrows();
    if let Some(position) = rows.iter().position(|r| r.to_usize() >= nrows) {
        let value = rows[position].to_usize();
        return Err(DimError::OutOfRange { operand: "rows", position, value, max: nrows.saturating_sub(1) });
    }
    let nnz = check_row_ptr(c_row_ptr, nrows)?;
    check_buf("c_col_idx", nnz, c_col_idx.len())?;
    check_buf("c_vals", nnz, c_vals.len())?;
    let n = needs(&cfg, a, b);
    let mut reg = EscBuf::new();
    let (_, _, mut s) = numeric_workspace(&n, workspace, &mut reg)?;
    numeric_rows(&Ctx { a, b, isa }, n.rule, rows, c_row_ptr, c_col_idx, c_vals, &mut s)
}
