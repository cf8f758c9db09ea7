//! CSR SpMV without conversion (thesis chapter 8, sections 8.3–8.4): five ways to compute
//! `y = alpha * A * x + beta * y` straight from `row_ptr`/`col_idx`/`vals`.
//!
//! | [`CsrMethod`] | thesis | idea |
//! |---|---|---|
//! | [`RowScalar`](CsrMethod::RowScalar) | 8.3.1, Alg. 28 | one sequential dot product per row |
//! | [`RowVector`](CsrMethod::RowVector) | 8.3.1, Alg. 29 | each row's dot product on SIMD lanes (gather `x` by `col_idx`) |
//! | [`SegmentedSum`](CsrMethod::SegmentedSum) | 8.3.2, Alg. 30 | products of a block of entries, head flags from `row_ptr`, one segmented sum |
//! | [`SpeculativeSegmentedSum`](CsrMethod::SpeculativeSegmentedSum) | 8.4.1, Alg. 31 | fixed tiles of entries that find their rows by binary search and write speculatively |
//! | [`MergePath`](CsrMethod::MergePath) | Merrill & Garland, SC'16 | the merge of row ends with entry indices, cut into equal pieces with a carry each |
//!
//! Every method is allocation-free: the segmented methods keep one block of products
//! and its head flags in fixed stack buffers ([`SEGMENT_BLOCK`] and [`SPECULATIVE_TILE`]
//! entries), so the kernels run in firmware. Every method computes the same products; the
//! order of additions differs between methods and [`Isa`]s (floating-point rounding only).
//! [`spmv_csr`] runs one method; [`SpMv`] for [`Csr`] runs the one [`CsrMethod::choose`]
//! picks.
//!
//! Merge path is also exposed as pieces ([`merge_path_splits`], [`spmv_merge_path_piece`],
//! [`apply_carries`](super::apply_carries)) so a thread runtime can run them independently
//! (ARCHITECTURE.md, principle 5).

use core::ops::Range;

use super::{Carry, SpMv, axpby, check_spmv, scale_y};
use crate::arch::Checked;
use crate::arch::generic::spmv_csr as kern;
use crate::formats::Csr;
use crate::primitives::segmented::{self, HeadFlags};
use crate::{DimError, Exec, Index, Isa, Scalar};

/// Entries per block of [`CsrMethod::SegmentedSum`]: the stack buffer of products (2 KiB
/// of `f64`) and its 4 words of head flags.
pub(crate) const SEGMENT_BLOCK: usize = 256;

/// Entries per tile of [`CsrMethod::SpeculativeSegmentedSum`] (the thesis's `W × T`).
pub(crate) const SPECULATIVE_TILE: usize = 256;

/// Merge-path items (rows plus entries) per piece when [`spmv_csr`] runs
/// [`CsrMethod::MergePath`] on one thread.
pub(crate) const MERGE_PATH_PIECE: usize = 2048;

/// How [`spmv_csr`] computes a CSR SpMV (thesis 8.3–8.4; see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CsrMethod {
    /// CSR-scalar (thesis 8.3.1, Alg. 28): one sequential dot product per row. The
    /// baseline every other method is measured against.
    RowScalar,
    /// CSR-vector (thesis 8.3.1, Alg. 29) on one CPU core: each row's dot product on SIMD
    /// lanes (a gather of `x` by `col_idx`, four register accumulators for long rows, a
    /// masked tail); rows shorter than 8 entries are one masked register on AVX2 and
    /// AVX-512 (no loop to mispredict), the scalar loop of `RowScalar` on the widths
    /// without a gather instruction. On `Isa::Portable`, four scalar accumulators.
    RowVector,
    /// Segmented sum (thesis 8.3.2, Alg. 30) over blocks of [`Tuning::segment_block`](crate::Tuning::segment_block) entries:
    /// products into a stack buffer, head flags from `row_ptr`, one SIMD segmented sum,
    /// the open row carried from block to block; each row is written once.
    SegmentedSum,
    /// Speculative segmented sum (thesis 8.4.1, Alg. 31) on one CPU: tiles of
    /// [`Tuning::speculative_tile`](crate::Tuning::speculative_tile) entries find their row range by binary search in `row_ptr`,
    /// build their segment descriptor on the fly, and write their partial sums to
    /// consecutive rows; tiles holding empty rows ("dirty") are fixed right away.
    SpeculativeSegmentedSum,
    /// Merge-based SpMV (Merrill & Garland, SC'16): the merge of `row_ptr[1..]` with
    /// `0..nnz` cut into pieces of [`Tuning::merge_path_piece`](crate::Tuning::merge_path_piece) items, run in order, each
    /// returning a [`Carry`] for its last, unfinished row.
    MergePath,
}

impl CsrMethod {
    /// Every method, in the order of the thesis.
    pub const ALL: [CsrMethod; 5] = [
        CsrMethod::RowScalar,
        CsrMethod::RowVector,
        CsrMethod::SegmentedSum,
        CsrMethod::SpeculativeSegmentedSum,
        CsrMethod::MergePath,
    ];

    /// Short lower-case name, as in benchmark ids: `"row-scalar"`, `"row-vector"`,
    /// `"segmented-sum"`, `"speculative"`, `"merge-path"`.
    pub fn name(self) -> &'static str {
        match self {
            CsrMethod::RowScalar => "row-scalar",
            CsrMethod::RowVector => "row-vector",
            CsrMethod::SegmentedSum => "segmented-sum",
            CsrMethod::SpeculativeSegmentedSum => "speculative",
            CsrMethod::MergePath => "merge-path",
        }
    }

    /// Parses a name as printed by [`CsrMethod::name`].
    pub fn from_name(name: &str) -> Option<CsrMethod> {
        CsrMethod::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The method [`SpMv`] runs for `a` on `isa`: O(1) reads of the matrix (a sample of at
    /// most 64 rows, 8 entries each, and 32 binary searches of `row_ptr`).
    ///
    /// - [`RowScalar`](CsrMethod::RowScalar) for matrices of fewer than 2048 entries
    ///   (choosing would cost more than any method saves);
    /// - for no more entries than rows, [`RowVector`](CsrMethod::RowVector) on AVX2 and
    ///   AVX-512 where the sampled rows are rarely empty (one entry a row: its blocks
    ///   take a register of one-entry rows at once, `x` by one load on a diagonal and
    ///   by a gather or scalar loads on a column vector or a permutation, where the scalar loop runs
    ///   each row's bookkeeping, `benches/records/peers-spmv-onerow-*.md`), else
    ///   [`RowScalar`](CsrMethod::RowScalar);
    /// - where the width gathers in hardware ([`Gathers::current`](crate::Gathers::current)
    ///   is `Hardware`, or not AVX2/AVX-512), [`RowVector`](CsrMethod::RowVector): its
    ///   short rows are one masked register each, with no loop whose exit the branch
    ///   predictor misses on uneven lengths (`benches/records/peers-spmv-short-*.md`);
    /// - where it loads each lane instead, [`RowVector`](CsrMethod::RowVector) for rows
    ///   of 64 entries or more on average (its several sums beat the row loop's one chain of
    ///   additions); on AVX-512 in `f64`, for short rows of uneven lengths (under 16 on
    ///   average) that read `x` mostly near the diagonal (3 reads in 4) where `x` fits a
    ///   core's caches (its kernels then fill their 8 lanes by scalar loads: one masked
    ///   register a row where the row loop mispredicts its exit), and for short rows of
    ///   even lengths that read `x` all over (more than 1 read in 4 far from the diagonal:
    ///   `uniform_random` in `f64`, 1.00–1.36 of the row loop, `benches/records/suite-*`,
    ///   `benches/records/peers-csr5-loads-*`); for rows of mostly
    ///   scattered columns where `x` does not fit (every read waits on memory, and a gather
    ///   keeps more of them in flight); and for the shapes whose rows it reads without
    ///   gathers: most entries in rows of 8 or more that are each one run of consecutive
    ///   columns (dense and banded rows of a canonical matrix: `x` by vector loads), or
    ///   short rows of even lengths that read `x` near the diagonal and are rarely empty (a
    ///   structured grid: its stencil blocks); else [`RowScalar`](CsrMethod::RowScalar).
    ///
    /// Why: RowVector is the row loop with SIMD dot products for long rows, stencil blocks
    /// and software prefetches; where a gather is a scalar load per lane those cost more
    /// than they save on irregular rows, and the plain loop of RowScalar led it on every
    /// power-law, circuit and mostly-empty matrix of the peer suite (tables in
    /// `benches/records/`). The speculative and merge-path methods never led both row
    /// methods on one core, so `choose` never picks them; thread runtimes call merge path
    /// explicitly through its piece API.
    pub fn choose<T: Scalar, I: Index>(a: &Csr<'_, T, I>, isa: Isa) -> CsrMethod {
        CsrMethod::choose_sampled(a, isa, None)
    }

    /// [`CsrMethod::choose`] with `a`'s row sample if the caller already took it; else
    /// the sample is taken only where the rule needs it (slow gathers, short rows), so
    /// `SpMv for Csr` reads no sample on other CPUs.
    pub(crate) fn choose_sampled<T: Scalar, I: Index>(
        a: &Csr<'_, T, I>,
        isa: Isa,
        sample: Option<&RowSample>,
    ) -> CsrMethod {
        let (m, nnz) = (a.nrows(), a.nnz());
        let sampled = || sample.copied().unwrap_or_else(|| RowSample::of(a));
        if nnz < CHOOSE_TINY {
            return CsrMethod::RowScalar;
        }
        if nnz <= m {
            // One entry a row (a diagonal, a column vector, a permutation): the x86-64
            // widths' stencil blocks take them a register of rows at a time.
            let stencils = cfg!(target_arch = "x86_64") && matches!(isa, Isa::Avx2 | Isa::Avx512);
            let one = stencils && sampled().rarely_empty();
            return if one { CsrMethod::RowVector } else { CsrMethod::RowScalar };
        }
        let slow_gathers =
            matches!(isa, Isa::Avx2 | Isa::Avx512) && crate::Gathers::current() == crate::Gathers::Loads;
        if !slow_gathers {
            return CsrMethod::RowVector;
        }
        // Long rows on average: the width's dot product keeps several sums where the row
        // loop waits on one chain of additions, whatever its gathers cost.
        if nnz >= CHOOSE_LONG.saturating_mul(m) {
            return CsrMethod::RowVector;
        }
        let s = sampled();
        let fits = kern::x_by_loads(a.ncols().saturating_mul(size_of::<T>()));
        // Where `x` fits a core's caches the row-vector kernels fill their lanes by scalar
        // loads, and short rows of uneven lengths near the diagonal are then one masked
        // register each where the row loop mispredicts its exit: with 8 lanes (`f64` on
        // AVX-512). A register of 16 `f32` loads for rows of a few entries, AVX2's, and
        // rows of columns scattered over such an `x` (most reads miss the L2 cache: the
        // benchmark suite's `rmat`) did not beat the row loop. Further out, rows of scattered
        // columns wait on memory whichever way they read `x`, and a gather keeps more
        // reads in flight than the row loop.
        let eight_lanes = isa == Isa::Avx512 && size_of::<T>() == 8;
        let irregular = if fits {
            // Short rows of one length that read `x` all over (`uniform_random`, 5 a row)
            // too: the register's loads are independent where the loop's sum waits.
            let read_well = if s.uneven() { s.mostly_near() } else { !s.mostly_near() };
            eight_lanes && nnz < CHOOSE_UNEVEN_SHORT.saturating_mul(m) && read_well
        } else {
            s.scattered()
        };
        let grid = nnz <= CHOOSE_SHORT * m && !s.uneven() && s.near_diagonal() && s.rarely_empty();
        if irregular || grid || entries_in_long_runs(a) { CsrMethod::RowVector } else { CsrMethod::RowScalar }
    }

    /// The fastest method for `a` on `exec` (its width and threads) on this machine, by
    /// timing (feature `std`): `y = A x` by every method of [`CsrMethod::ALL`], once to warm up and then in
    /// `rounds` rounds (at least 1, at most 64), the methods in a different order each
    /// round. [`CsrMethod::choose`]'s method stays unless another's median is at least 5%
    /// lower, so repeated tuning of one matrix gives one answer. Costs `(rounds + 1) * 5`
    /// SpMVs, which an iterative solver's hundreds of products repay. `x` and `y` are the
    /// caller's (no allocation); `y` is overwritten, its contents on return are `A x`.
    ///
    /// # Errors
    /// As [`spmv_csr`]: [`DimError::IsaUnavailable`] or [`DimError::Length`], before
    /// anything is timed or written.
    #[cfg(feature = "std")]
    pub fn tune<T: Scalar, I: Index>(
        exec: Exec,
        a: &Csr<'_, T, I>,
        x: &[T],
        y: &mut [T],
        rounds: usize,
    ) -> Result<CsrMethod, DimError> {
        let isa = exec.resolved_isa();
        let exec = exec.isa(isa);
        check_spmv(isa, a.nrows(), a.ncols(), x, y)?;
        // `choose`'s method first: the incumbent that another must beat by the margin.
        let first = CsrMethod::choose(a, isa);
        let mut order = [first; 5];
        let mut n = 1;
        for m in CsrMethod::ALL.into_iter().filter(|&m| m != first) {
            order[n] = m;
            n += 1;
        }
        let k = fastest(n, rounds, |k| spmv_csr(exec, a, order[k], T::ONE, x, T::ZERO, y))?;
        Ok(order[k])
    }
}

/// The fastest of `n` candidates (at most 8) by timing (feature `std`): `run(k)` runs
/// candidate `k`, all of them once to warm up and then in `rounds` rounds (clamped to
/// 1..=64), their order rotated each round so that no candidate always follows the same
/// one. Candidate 0 is the incumbent (the rule's choice): another replaces it only when its
/// median is at least [`TUNE_MARGIN`] below the incumbent's, so noise between runs of equal
/// candidates cannot flip the choice; among those, the smallest median wins. The tuning
/// loop of [`CsrMethod::tune`] and [`super::SpmvPlan::tune`].
#[cfg(feature = "std")]
pub(crate) fn fastest(
    n: usize,
    rounds: usize,
    mut run: impl FnMut(usize) -> Result<(), DimError>,
) -> Result<usize, DimError> {
    use std::time::{Duration, Instant};
    let (n, rounds) = (n.clamp(1, 8), rounds.clamp(1, 64));
    let mut times = [[Duration::MAX; 64]; 8];
    for round in 0..=rounds {
        for k in 0..n {
            let which = (k + round) % n;
            let t = Instant::now();
            run(which)?;
            if round > 0 {
                times[which][round - 1] = t.elapsed();
            }
        }
    }
    let mut medians = [Duration::MAX; 8];
    for (k, t) in times[..n].iter_mut().enumerate() {
        let t = &mut t[..rounds];
        t.sort_unstable();
        medians[k] = t[rounds / 2];
    }
    let bar = medians[0].mul_f64(1.0 - TUNE_MARGIN);
    let best = (1..n).filter(|&k| medians[k] <= bar).min_by_key(|&k| medians[k]);
    Ok(best.unwrap_or(0))
}

/// How much faster than the rule's choice a timed candidate must be for `tune` to take
/// it: the spread of one median between runs on a shared machine.
#[cfg(feature = "std")]
const TUNE_MARGIN: f64 = 0.05;

/// Rows sampled by [`RowSample`].
const CHOOSE_SAMPLES: usize = 64;
/// Entries read from each sampled row by [`RowSample`].
const CHOOSE_ENTRIES: usize = 8;
/// Least spread (longest minus shortest) of the sampled row lengths for which
/// [`RowSample::uneven`] calls them uneven.
const CHOOSE_UNEVEN: usize = 4;
/// Longest mean row length of a structured grid's short rows for [`CsrMethod::choose`].
const CHOOSE_SHORT: usize = 8;
/// Mean row length below which [`CsrMethod::choose`] takes row-vector for uneven rows where
/// its lanes are filled by scalar loads (`rmat_s14_ef16`, 14 a row, led the row loop;
/// 27-point stencils and rows of one length did not: `benches/records/row-vector-loads-*`).
const CHOOSE_UNEVEN_SHORT: usize = 16;
/// Mean row length from which [`CsrMethod::choose`] takes row-vector even where gathers
/// are slow (`lp_wide`, 2 500 entries a row: 1.09–1.15x the plain loop against the row
/// loop's 0.94–0.96, `benches/records/peers-rowscalar-*`; `fem3d_27pt`'s 27 stay scalar).
pub(crate) const CHOOSE_LONG: usize = 64;
/// Entries below which [`CsrMethod::choose`] takes the row loop without sampling.
const CHOOSE_TINY: usize = 2048;
/// Entries [`entries_in_long_runs`] samples.
const RUN_SAMPLES: usize = 32;
/// Shortest row whose dot product [`CsrMethod::RowVector`] runs on SIMD lanes.
const RUN_MIN_ROW: usize = 8;

/// The rows holding `count` entries of `a` picked by position, each row weighed by its
/// length (its share of the work): the golden-ratio sequence `frac(k φ) nnz`, since
/// evenly spaced positions alias with a matrix whose long rows recur with a period (one
/// row in 64, say) and can miss all of them. A binary search of `row_ptr` per sample,
/// O(log m); nothing for a matrix without entries.
pub(crate) fn sampled_rows<'a, T: Scalar, I: Index>(
    a: &Csr<'a, T, I>,
    count: usize,
) -> impl Iterator<Item = Range<usize>> + 'a {
    let (nnz, row_ptr) = (a.nnz(), a.row_ptr());
    (0..if nnz == 0 { 0 } else { count }).filter_map(move |k| {
        let u = (k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let p = ((u as u128 * nnz as u128) >> 64) as usize;
        // The row holding entry `p`: the last `i` with `row_ptr[i] <= p`.
        let i = row_ptr.partition_point(|r| r.to_usize() <= p).saturating_sub(1);
        Some(row_ptr.get(i)?.to_usize()..row_ptr.get(i + 1)?.to_usize())
    })
}

/// Whether at least 3 in 4 of [`RUN_SAMPLES`] entries, picked by [`sampled_rows`], lie in rows
/// of [`RUN_MIN_ROW`] entries or more that are one run of consecutive columns, in a
/// canonical matrix: dense and banded rows, which the row-vector loop reads by vector
/// loads of `x` with no `col_idx`. Weighted by entries, so one dense row among empty ones
/// counts for its entries. O(log m) per sample.
pub(crate) fn entries_in_long_runs<T: Scalar, I: Index>(a: &Csr<'_, T, I>) -> bool {
    let col_idx = a.col_idx();
    if !canonical(a) || a.nnz() == 0 {
        return false;
    }
    let runs = sampled_rows(a, RUN_SAMPLES)
        .filter(|r| r.len() >= RUN_MIN_ROW)
        // Strictly increasing columns whose ends span the row's length are one run.
        .filter(|r| {
            let (c0, c1) = (col_idx[r.start].to_usize(), col_idx[r.end - 1].to_usize());
            c1.wrapping_sub(c0) == r.len() - 1
        })
        .count();
    4 * runs >= 3 * RUN_SAMPLES
}
/// Distance from the diagonal, in bytes of `x`, beyond which [`RowSample`] counts a
/// read of `x` as scattered: past a 256 KiB L2, so most such reads miss it.
const CHOOSE_FAR_BYTES: usize = 256 << 10;

/// What [`CsrMethod::choose`] and [`super::SpmvChoice::choose`] learn of a matrix from
/// [`CHOOSE_SAMPLES`] evenly spaced rows (at most [`CHOOSE_ENTRIES`] entries of each).
/// O(1): at most 576 reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowSample {
    /// Rows sampled (`min(64, nrows)`).
    pub samples: usize,
    /// Sampled rows with no entry.
    pub empty: usize,
    /// Longest minus shortest sampled row length.
    pub spread: usize,
    /// Sampled entries, and those farther than [`CHOOSE_FAR_BYTES`] from the (scaled)
    /// diagonal.
    pub seen: usize,
    pub far: usize,
    /// Pairs of neighbouring sampled entries in a row, and those whose second column is
    /// the first plus one.
    pub pairs: usize,
    pub consecutive: usize,
}

impl RowSample {
    pub(crate) fn of<T: Scalar, I: Index>(a: &Csr<'_, T, I>) -> Self {
        let (m, n, row_ptr, col_idx) = (a.nrows(), a.ncols(), a.row_ptr(), a.col_idx());
        let far_cols = CHOOSE_FAR_BYTES / size_of::<T>();
        let (mut empty, mut seen, mut far) = (0usize, 0usize, 0usize);
        let (mut pairs, mut consecutive) = (0usize, 0usize);
        let (mut shortest, mut longest) = (usize::MAX, 0usize);
        let samples = CHOOSE_SAMPLES.min(m);
        for k in 0..samples {
            let i = k * m / samples;
            let r = rp(row_ptr, i)..rp(row_ptr, i + 1);
            if r.is_empty() {
                empty += 1;
            }
            (shortest, longest) = (shortest.min(r.len()), longest.max(r.len()));
            // The diagonal of a rectangular matrix: row i's share of the columns.
            let diag = (i as u128 * n as u128 / m as u128) as usize;
            let cols = &col_idx[r];
            for c in cols.iter().take(CHOOSE_ENTRIES) {
                seen += 1;
                far += usize::from(c.to_usize().abs_diff(diag) > far_cols);
            }
            for w in cols.windows(2).take(CHOOSE_ENTRIES - 1) {
                pairs += 1;
                consecutive += usize::from(w[1].to_usize() == w[0].to_usize().wrapping_add(1));
            }
        }
        let spread = longest.saturating_sub(shortest);
        RowSample { samples, empty, spread, seen, far, pairs, consecutive }
    }

    /// No more than one sampled row in 16 is empty.
    pub(crate) fn rarely_empty(&self) -> bool {
        self.empty * 16 <= self.samples
    }

    /// The sampled lengths span at least [`CHOOSE_UNEVEN`].
    pub(crate) fn uneven(&self) -> bool {
        self.spread >= CHOOSE_UNEVEN
    }

    /// More than half of the sampled entries lie farther than [`CHOOSE_FAR_BYTES`] of
    /// `x` from the diagonal.
    pub(crate) fn scattered(&self) -> bool {
        2 * self.far > self.seen
    }

    /// At most one sampled entry in 4 lies farther than [`CHOOSE_FAR_BYTES`] of `x` from
    /// the diagonal: rows that read `x` mostly near it. Columns drawn at random over an
    /// `x` of 1 MiB land 45% far (the benchmark suite's `dc2_like` in `f64`, where
    /// row-vector ran 0.96–0.99 of the row loop, `benches/records/suite-2026-12-07-*`); the
    /// peer suite's circuits 9–18%.
    pub(crate) fn mostly_near(&self) -> bool {
        4 * self.far <= self.seen
    }

    /// At most one sampled entry in 8 lies farther than [`CHOOSE_FAR_BYTES`] of `x` from
    /// the diagonal: a grid's stencil, not rows of random columns of which a fair share
    /// land near the diagonal by chance (`uniform_random` in `f32`: 46% far, where
    /// row-vector ran 0.59–0.63 of the row loop, `benches/records/peers-rowscalar-*`).
    pub(crate) fn near_diagonal(&self) -> bool {
        8 * self.far <= self.seen
    }

    /// At least 7 in 8 sampled neighbours are consecutive columns: rows made of runs
    /// (dense, banded, block rows), which row-vector reads with one load of `x` per
    /// register.
    pub(crate) fn runs(&self) -> bool {
        8 * self.consecutive >= 7 * self.pairs
    }
}

impl core::fmt::Display for CsrMethod {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

impl<T: Scalar, I: Index> SpMv<T> for Csr<'_, T, I> {
    /// [`spmv_csr`] by [`CsrMethod::choose`]'s method for `exec`'s `Isa`.
    fn spmv(&self, exec: Exec, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
        let isa = exec.resolved_isa();
        spmv_csr(exec.isa(isa), self, CsrMethod::choose(self, isa), alpha, x, beta, y)
    }
}

/// `y = alpha * A * x + beta * y` for CSR `a` by `method` (thesis 8.3–8.4) on `exec`.
///
/// BLAS semantics: `beta == 0` never reads `y` (NaN in `y` cannot leak); `alpha == 0`
/// reads neither `A` nor `x` and gives `y = beta * y`. Empty rows get `beta * y` (`0`
/// when `beta == 0`). Allocation-free on one thread; no panics.
///
/// With more than one thread (feature `parallel`), merge path cuts the merge of row ends
/// and entries into equal pieces (one long row split between tasks); the other methods run
/// on row ranges of about equal entries ([`balanced_row_partition`](super::balanced_row_partition)),
/// each by the serial kernel, so the rows come out as the serial method's bit for bit (the
/// speculative segmented sum's blocks run the segmented sum: within rounding).
///
/// # Errors
/// [`DimError::IsaUnavailable`] if this machine cannot run `exec`'s `Isa`,
/// [`DimError::Length`] if `x.len() != ncols` or `y.len() != nrows`; `y` is untouched in
/// both cases.
pub fn spmv_csr<T: Scalar, I: Index>(
    exec: Exec,
    a: &Csr<'_, T, I>,
    method: CsrMethod,
    alpha: T,
    x: &[T],
    beta: T,
    y: &mut [T],
) -> Result<(), DimError> {
    let isa = exec.resolved_isa();
    #[cfg(feature = "parallel")]
    if exec.thread_limit() != 1 {
        let op = crate::parallel::Operands { alpha, x, beta };
        return crate::parallel::spmv_csr(a, method, isa, op, y, exec.thread_limit());
    }
    serial_csr(a, method, isa, alpha, x, beta, y)
}

/// [`spmv_csr`] on the calling thread.
pub(crate) fn serial_csr<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    method: CsrMethod,
    isa: Isa,
    alpha: T,
    x: &[T],
    beta: T,
    y: &mut [T],
) -> Result<(), DimError> {
    check_spmv(isa, a.nrows(), a.ncols(), x, y)?;
    let checked = Checked::new(isa)?;
    if alpha == T::ZERO {
        scale_y(beta, y);
        return Ok(());
    }
    match method {
        CsrMethod::RowScalar => spmv_rows(a, checked, 0..a.nrows(), alpha, x, beta, y),
        CsrMethod::RowVector => {
            kern::rows(checked, a.row_ptr(), a.col_idx(), a.vals(), x, alpha, beta, y, canonical(a))
        }
        CsrMethod::SegmentedSum => segmented_sum(a, checked, 0..a.nrows(), alpha, x, beta, y),
        CsrMethod::SpeculativeSegmentedSum => speculative(a, checked, alpha, x, beta, y),
        CsrMethod::MergePath => merge_path(a, checked, alpha, x, beta, y),
    }
    Ok(())
}

/// `y_rows = alpha * A[rows, :] * x + beta * y_rows`, where `y_rows` holds exactly the
/// rows `rows`: the chunk a thread driver hands to one worker (ARCHITECTURE.md, principle 5).
/// Lengths must have been checked: `x.len() == ncols`, `rows` within `0..nrows`,
/// `y_rows.len() == rows.len()`. The row loop of thesis Alg. 28, compiled for `isa`
/// (the same bits on every width).
pub(crate) fn spmv_rows<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    isa: Checked,
    rows: Range<usize>,
    alpha: T,
    x: &[T],
    beta: T,
    y_rows: &mut [T],
) {
    if alpha == T::ZERO {
        scale_y(beta, y_rows);
        return;
    }
    let row_ptr = &a.row_ptr()[rows.start..=rows.end];
    kern::scalar_rows(isa, row_ptr, a.col_idx(), a.vals(), x, alpha, beta, y_rows);
}

/// The rows `rows` of `y = alpha * A * x + beta * y` (`y_rows` holding exactly those
/// rows) by `method` on `isa`: the chunk kernel of the thread drivers. The row methods
/// compute each row on its own and the segmented sum keeps its blocks on the serial
/// grid, so any partition of the rows reproduces the serial [`spmv_csr`] by that method
/// bit for bit. The speculative segmented sum, which runs over the whole matrix, runs as
/// the segmented sum here (its rows within rounding of the serial ones), and merge path,
/// which splits the work its own way (by merge path pieces on threads), as the row loop.
/// Lengths must have been checked as for [`spmv_rows`]; an unavailable `isa` runs the
/// row-scalar loop.
#[allow(clippy::too_many_arguments)]
pub(crate) fn spmv_rows_by<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    method: CsrMethod,
    isa: Isa,
    rows: Range<usize>,
    alpha: T,
    x: &[T],
    beta: T,
    y_rows: &mut [T],
) {
    match (method, Checked::new(isa)) {
        (CsrMethod::RowVector, Ok(checked)) if alpha != T::ZERO => {
            let row_ptr = &a.row_ptr()[rows.start..=rows.end];
            kern::rows(checked, row_ptr, a.col_idx(), a.vals(), x, alpha, beta, y_rows, canonical(a))
        }
        (CsrMethod::SegmentedSum | CsrMethod::SpeculativeSegmentedSum, Ok(checked)) if alpha != T::ZERO => {
            segmented_sum(a, checked, rows, alpha, x, beta, y_rows)
        }
        (_, Ok(checked)) => spmv_rows(a, checked, rows, alpha, x, beta, y_rows),
        (_, Err(_)) => spmv_rows(a, Checked::detect(), rows, alpha, x, beta, y_rows),
    }
}

/// In-place segmented sum of `v` with `v.len()` head flags packed in `words` (position 0
/// always heads a segment): the primitive of thesis 4.4.4 on the checked `Isa`.
fn seg_sum<T: Scalar>(isa: Checked, v: &mut [T], words: &[u64]) {
    let len = v.len();
    let Ok(flags) = HeadFlags::bits(words, len) else { return };
    // Neither call can fail: the `Isa` is checked and there are exactly `len` flags.
    if let Some(v) = kern::cast_mut::<T, f64>(v) {
        let _ = segmented::segmented_sum(Exec::from(isa), v, flags);
    } else if let Some(v) = kern::cast_mut::<T, f32>(v) {
        let _ = segmented::segmented_sum(Exec::from(isa), v, flags);
    }
}

/// `row_ptr[i]` as `usize`.
#[inline(always)]
/// Whether `a`'s rows are strictly increasing, which lets the row-vector loop read a long
/// row of one run of columns without its `col_idx`.
fn canonical<T: Scalar, I: Index>(a: &Csr<'_, T, I>) -> bool {
    a.row_order() == crate::RowOrder::Canonical
}

fn rp<I: Index>(row_ptr: &[I], i: usize) -> usize {
    row_ptr[i].to_usize()
}

/// Thesis Alg. 30, blocked so that its buffers fit on the stack, for the rows `rows`
/// (`y_rows` holding exactly those rows): for each block of [`SEGMENT_BLOCK`] entries,
/// (2) the products, (1) head flags at the starts of the rows that begin inside the block,
/// the open row's running sum (`carry`) folded into the first product, (3) one segmented
/// sum, (4) each row that ends inside the block written once from its head. Rows are
/// written in order, so the scatter/gather of steps 1 and 4 walk `row_ptr` once in total.
///
/// The blocks lie on the fixed grid `k · SEGMENT_BLOCK` of entry indices whatever `rows`
/// is: a range that starts or ends inside a block computes that whole block, with head
/// flags at its own first row and just past its last row. Every row's products therefore
/// sit at the same positions of the same block as in the run over all rows, and the
/// segmented sum adds them in the same order: any partition of the rows reproduces the
/// serial result bit for bit (the chunk kernel of the thread drivers).
fn segmented_sum<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    isa: Checked,
    rows: Range<usize>,
    alpha: T,
    x: &[T],
    beta: T,
    y_rows: &mut [T],
) {
    let (row_ptr, col_idx, vals) = (a.row_ptr(), a.col_idx(), a.vals());
    let (nnz, end) = (a.nnz(), rows.end);
    let (first, last) = (rp(row_ptr, rows.start), rp(row_ptr, end));
    let mut buf = [T::ZERO; SEGMENT_BLOCK];
    let mut words = [0u64; SEGMENT_BLOCK / 64];
    let mut y = |r: usize, sum: T| {
        let yi = &mut y_rows[r - rows.start];
        *yi = axpby(alpha, sum, beta, *yi);
    };
    // `r`: the first row not yet written. Leading empty rows end at `first`.
    let mut r = rows.start;
    while r < end && rp(row_ptr, r + 1) == first {
        y(r, T::ZERO);
        r += 1;
    }
    let mut carry = T::ZERO;
    let mut b0 = first - first % SEGMENT_BLOCK;
    while b0 < last {
        // Invariant: rows before `r` are written; row `r` holds entry `max(b0, first)`
        // and `carry` is the sum of its entries before `b0`.
        let b1 = (b0 + SEGMENT_BLOCK).min(nnz);
        let prod = &mut buf[..b1 - b0];
        kern::products(isa, &col_idx[b0..b1], &vals[b0..b1], x, prod);
        words.fill(0);
        // Heads: the range's first row (where the block holds earlier rows' entries), the
        // rows that begin in the block, and the row past the range (whose entries the
        // block may hold).
        if first > b0 {
            let h = first - b0;
            words[h / 64] |= 1 << (h % 64);
        }
        let mut j = r + 1;
        while j <= end && rp(row_ptr, j) < b1 {
            let h = rp(row_ptr, j) - b0;
            words[h / 64] |= 1 << (h % 64);
            j += 1;
        }
        if rp(row_ptr, r) < b0 {
            prod[0] += carry;
        }
        seg_sum(isa, prod, &words);
        while r < end && rp(row_ptr, r + 1) <= b1 {
            let (s, e) = (rp(row_ptr, r), rp(row_ptr, r + 1));
            y(r, if s == e { T::ZERO } else { prod[s.max(b0) - b0] });
            r += 1;
        }
        carry = if r < end && rp(row_ptr, r) < b1 { prod[rp(row_ptr, r).max(b0) - b0] } else { T::ZERO };
        b0 = b1;
    }
    // Trailing rows (all empty: every entry of the range was consumed).
    while r < end {
        y(r, T::ZERO);
        r += 1;
    }
}

/// The rightmost row `r` with `row_ptr[r] <= b` (thesis Alg. 31 line 6: "the binary
/// search needs to return the rightmost match"), for `b <= nnz`.
#[inline]
fn rightmost_row<I: Index>(row_ptr: &[I], b: usize) -> usize {
    row_ptr.partition_point(|p| p.to_usize() <= b).saturating_sub(1)
}

/// Thesis Alg. 31 on one CPU core. Tile `t` covers entries `b0..b1`
/// ([`SPECULATIVE_TILE`] each); its row range `start..=stop` comes from binary searches of
/// `b0` and `b1` in `row_ptr` (rightmost match). The tile
///
/// 1. builds its segment descriptor from the offsets `row_ptr[j] - b0`, `start < j <=
///    stop`, flagging duplicate offsets (an empty row) as *dirty* (lines 14–21);
/// 2. computes its products, adds the transmitted sum of a row begun in an earlier tile
///    to the first one (lines 22–31) and runs the segmented sum (line 33);
/// 3. writes the k-th segment's sum to row `start + k` — the speculation that every row
///    in the range is non-empty, so no `row_ptr` is read for the writes (lines 36–52);
///    the last segment, if its row continues, is transmitted instead.
///
/// A dirty tile is fixed right after its segmented sum, not in a second pass as on the
/// GPU: on one core nothing is gained by deferring (there is no other processor to hand
/// the fix-up to), the tile's sums are still in the stack buffer while a second pass
/// would need a speculator list (an allocation, or a bound on dirty tiles) and the sums
/// again, and a speculative write into a wrong slot would destroy the `y` value that
/// `beta * y` of that slot's own row still needs. So a dirty tile skips the speculative
/// write and places each sum by walking its `row_ptr` range (empty rows get `beta * y`).
fn speculative<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    isa: Checked,
    alpha: T,
    x: &[T],
    beta: T,
    y: &mut [T],
) {
    let (row_ptr, col_idx, vals) = (a.row_ptr(), a.col_idx(), a.vals());
    let (m, nnz) = (a.nrows(), a.nnz());
    // Rows before the first tile's start are the leading empty rows.
    let first = if nnz == 0 { m } else { rightmost_row(row_ptr, 0) };
    for yi in &mut y[..first] {
        *yi = axpby(alpha, T::ZERO, beta, *yi);
    }
    let mut buf = [T::ZERO; SPECULATIVE_TILE];
    let mut words = [0u64; SPECULATIVE_TILE / 64];
    let mut start = first;
    let mut transmitter = T::ZERO;
    let mut b0 = 0;
    while b0 < nnz {
        let b1 = (b0 + SPECULATIVE_TILE).min(nnz);
        let stop = if b1 == nnz { m } else { rightmost_row(row_ptr, b1) };
        // 1. Segment descriptor and dirty check.
        words.fill(0);
        let mut dirty = false;
        let mut prev = rp(row_ptr, start);
        for j in start + 1..=stop {
            let p = rp(row_ptr, j);
            dirty |= p == prev;
            prev = p;
            if p < b1 {
                let h = p - b0;
                words[h / 64] |= 1 << (h % 64);
            }
        }
        // 2. Products, transmitted sum, segmented sum.
        let prod = &mut buf[..b1 - b0];
        kern::products(isa, &col_idx[b0..b1], &vals[b0..b1], x, prod);
        if rp(row_ptr, start) < b0 {
            prod[0] += transmitter;
        }
        seg_sum(isa, prod, &words);
        // The last row continues past the tile when it starts before `b1` but ends after.
        let open = stop < m && rp(row_ptr, stop) < b1;
        if dirty {
            // The fix-up: place each sum by its row's start.
            for (r, yr) in (start..stop).zip(&mut y[start..stop]) {
                let (s, e) = (rp(row_ptr, r), rp(row_ptr, r + 1));
                let sum = if s == e { T::ZERO } else { prod[s.max(b0) - b0] };
                *yr = axpby(alpha, sum, beta, *yr);
            }
        } else {
            // 3. The speculative write: the k-th head belongs to row `start + k`.
            let ys = &mut y[start..stop];
            let mut k = 0;
            let mut put = |pos: usize| {
                if let Some(yr) = ys.get_mut(k) {
                    *yr = axpby(alpha, prod[pos], beta, *yr);
                }
                k += 1;
            };
            put(0);
            for (wi, &w) in words.iter().enumerate() {
                let mut w = w & !u64::from(wi == 0);
                while w != 0 {
                    put(wi * 64 + w.trailing_zeros() as usize);
                    w &= w - 1;
                }
            }
        }
        transmitter = if open { prod[rp(row_ptr, stop).max(b0) - b0] } else { T::ZERO };
        start = stop;
        b0 = b1;
    }
}

/// The merge-path split on diagonal `d` (Merrill & Garland, Alg. "MergePathSearch"): the
/// point `(i, j)` with `i + j = d` where the merge of the row ends `row_ptr[1..]` with the
/// entry indices `0..nnz` crosses the diagonal — rows `0..i` are finished and entries
/// `0..j` consumed. Ties finish the row first, so empty rows are passed before the next
/// entry. (A local search: the second list is the implicit `0..nnz`, which
/// `primitives::merge`'s slice-based search cannot take without materialising it.)
fn merge_path_search<I: Index>(row_ptr: &[I], m: usize, nnz: usize, d: usize) -> (usize, usize) {
    let (mut lo, mut hi) = (d.saturating_sub(nnz), d.min(m));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        // In bounds: mid < hi <= m, and mid >= lo >= d - nnz, so d - mid - 1 < nnz.
        if rp(row_ptr, mid + 1) < d - mid {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    (lo, d - lo)
}

/// Writes the `pieces + 1` merge-path split points of `a` into `splits[..=pieces]`:
/// `splits[p]` is the point `(row, entry)` where piece `p` starts and piece `p - 1` ends,
/// on the diagonal `(nrows + nnz) * p / pieces` (Merrill & Garland, SC'16). So
/// `splits[0] == (0, 0)`, `splits[pieces] == (nrows, nnz)`, and every piece holds the
/// same number of path items (rows plus entries, ±1).
///
/// # Errors
/// [`DimError::Parameter`] if `pieces == 0`; [`DimError::BufferTooSmall`] if
/// `splits.len() < pieces + 1`. `splits` is untouched on error.
pub fn merge_path_splits<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    pieces: usize,
    splits: &mut [(usize, usize)],
) -> Result<(), DimError> {
    if pieces == 0 {
        return Err(DimError::Parameter { name: "pieces", value: 0 });
    }
    let needed = pieces.saturating_add(1);
    if splits.len() < needed {
        return Err(DimError::BufferTooSmall { buffer: "splits", needed, got: splits.len() });
    }
    let (m, nnz) = (a.nrows(), a.nnz());
    let total = (m + nnz) as u128;
    for (p, s) in splits[..needed].iter_mut().enumerate() {
        let d = (total * p as u128 / pieces as u128) as usize;
        *s = merge_path_search(a.row_ptr(), m, nnz, d);
    }
    Ok(())
}

/// Whether `(i, j)` lies on the merge path of `a`: rows `0..i` finished
/// (`row_ptr[i] <= j`) and row `i` not overrun (`j <= row_ptr[i + 1]`).
fn on_path<I: Index>(row_ptr: &[I], m: usize, nnz: usize, (i, j): (usize, usize)) -> bool {
    i <= m && j <= nnz && rp(row_ptr, i) <= j && (i == m || j <= rp(row_ptr, i + 1))
}

/// Runs one merge-path piece of `y = alpha * A * x + beta * y`: from split point `start`
/// to split point `end` (as written by [`merge_path_splits`], or any two points on the
/// merge path with `start <= end`).
///
/// `y_rows` is `y[start.0..end.0]`: exactly the rows that *finish* inside the piece. Each
/// gets `alpha * (its entries from start.1 on) + beta * y`. The entries of row `end.0` that
/// lie inside the piece are returned as a [`Carry`] instead.
///
/// Contract for a thread runtime: the pieces of one split list write disjoint `y` ranges
/// and read only `A` and `x`, so they may run in any order or concurrently; once all have
/// run, [`apply_carries`](super::apply_carries) adds the carries (a row's first pieces
/// may finish after the piece that writes it, so carries are applied last). `beta == 0`
/// never reads `y`; `alpha == 0` reads neither `A` nor `x` and returns a zero carry.
///
/// # Errors
/// [`DimError::IsaUnavailable`], [`DimError::Length`] (`x.len() != ncols`, or `y_rows`
/// not `end.0 - start.0` long), [`DimError::Parameter`] (`"start"`/`"end"`, giving the
/// row) if a point is off the merge path or `end` precedes `start`. `y_rows` is untouched
/// on error.
#[allow(clippy::too_many_arguments)]
pub fn spmv_merge_path_piece<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    isa: Isa,
    start: (usize, usize),
    end: (usize, usize),
    alpha: T,
    x: &[T],
    beta: T,
    y_rows: &mut [T],
) -> Result<Carry<T>, DimError> {
    let (m, nnz, row_ptr) = (a.nrows(), a.nnz(), a.row_ptr());
    let checked = Checked::new(isa)?;
    if x.len() != a.ncols() {
        return Err(DimError::Length { operand: "x", expected: a.ncols(), got: x.len() });
    }
    if !on_path(row_ptr, m, nnz, start) {
        return Err(DimError::Parameter { name: "start", value: start.0 });
    }
    if !on_path(row_ptr, m, nnz, end) || end.0 < start.0 || end.1 < start.1 {
        return Err(DimError::Parameter { name: "end", value: end.0 });
    }
    if y_rows.len() != end.0 - start.0 {
        return Err(DimError::Length { operand: "y", expected: end.0 - start.0, got: y_rows.len() });
    }
    Ok(merge_path_piece(a, checked, start, end, alpha, x, beta, y_rows))
}

/// [`spmv_merge_path_piece`] after its checks.
#[allow(clippy::too_many_arguments)]
fn merge_path_piece<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    isa: Checked,
    (i0, j0): (usize, usize),
    (i1, j1): (usize, usize),
    alpha: T,
    x: &[T],
    beta: T,
    y_rows: &mut [T],
) -> Carry<T> {
    if alpha == T::ZERO {
        scale_y(beta, y_rows);
        return Carry { row: i1, value: T::ZERO };
    }
    let (row_ptr, col_idx, vals) = (a.row_ptr(), a.col_idx(), a.vals());
    let dot = |r: Range<usize>| kern::dot(isa, &col_idx[r.clone()], &vals[r], x);
    if i0 == i1 {
        // The piece lies inside one row.
        return Carry { row: i1, value: alpha * dot(j0..j1) };
    }
    // The first row, from `j0` on; then whole rows; then the last row's head as the carry.
    let first = dot(j0..rp(row_ptr, i0 + 1));
    y_rows[0] = axpby(alpha, first, beta, y_rows[0]);
    kern::rows(isa, &row_ptr[i0 + 1..=i1], col_idx, vals, x, alpha, beta, &mut y_rows[1..], canonical(a));
    let tail = if i1 < a.nrows() { dot(rp(row_ptr, i1)..j1) } else { T::ZERO };
    Carry { row: i1, value: alpha * tail }
}

/// [`CsrMethod::MergePath`] on one thread: pieces of [`MERGE_PATH_PIECE`] path items run
/// in order. A row's carry waits until the piece that finishes the row has written it,
/// then is added, so one pending carry suffices (no list, no allocation).
fn merge_path<T: Scalar, I: Index>(a: &Csr<'_, T, I>, isa: Checked, alpha: T, x: &[T], beta: T, y: &mut [T]) {
    let (m, nnz) = (a.nrows(), a.nnz());
    let total = m + nnz;
    let mut prev = (0, 0);
    let mut pending = Carry { row: 0, value: T::ZERO };
    let mut d = 0;
    while d < total {
        d = (d + MERGE_PATH_PIECE).min(total);
        let cur = merge_path_search(a.row_ptr(), m, nnz, d);
        let c = merge_path_piece(a, isa, prev, cur, alpha, x, beta, &mut y[prev.0..cur.0]);
        if c.row == pending.row {
            pending.value += c.value;
        } else {
            // The pending row finished inside this piece.
            y[pending.row] += pending.value;
            pending = c;
        }
        prev = cur;
    }
}

#[cfg(test)]
mod tests {
    // The crate is `no_std` without the `std` feature; the test harness has it anyway.
    extern crate std;
    use std::vec::Vec;

    use super::*;
    use proptest::prelude::*;

    /// Rows of the given lengths with pseudo-random columns below `ncols` and values that
    /// round differently in every order of addition (so the comparison sees the order).
    fn matrix<T: Scalar>(lens: &[usize], ncols: usize, seed: u64) -> (Vec<u32>, Vec<u32>, Vec<T>) {
        let mut h = seed | 1;
        let mut next = move || {
            h ^= h << 13;
            h ^= h >> 7;
            h ^= h << 17;
            h
        };
        let mut row_ptr = Vec::from([0u32]);
        let (mut cols, mut vals) = (Vec::new(), Vec::new());
        for &len in lens {
            for _ in 0..len {
                cols.push((next() % ncols as u64) as u32);
                vals.push(T::from_f64((next() % 2000) as f64 / 7.0 - 100.0));
            }
            row_ptr.push(cols.len() as u32);
        }
        (row_ptr, cols, vals)
    }

    /// Runs the segmented-sum SpMV over all rows and over the row ranges between `cuts`
    /// on every `Isa`, and asks for the same bits.
    fn check<T: Scalar>(
        lens: &[usize],
        ncols: usize,
        cuts: &[usize],
        seed: u64,
    ) -> Result<(), TestCaseError> {
        let (row_ptr, cols, vals) = matrix::<T>(lens, ncols, seed);
        let m = lens.len();
        let a = Csr::new(m, ncols, &row_ptr, &cols, &vals).expect("valid CSR");
        let x: Vec<T> = (0..ncols).map(|j| T::from_f64(1.0 + j as f64 / 3.0)).collect();
        let y0: Vec<T> = (0..m).map(|i| T::from_f64(i as f64 / 9.0)).collect();
        let mut bounds: Vec<usize> = cuts.iter().map(|&c| c % (m + 1)).collect();
        bounds.extend([0, m]);
        bounds.sort_unstable();
        for isa in Isa::ALL {
            let Ok(c) = Checked::new(isa) else { continue };
            let (alpha, beta) = (T::from_f64(1.5), T::from_f64(0.25));
            let mut whole = y0.clone();
            segmented_sum(&a, c, 0..m, alpha, &x, beta, &mut whole);
            let mut parts = y0.clone();
            for w in bounds.windows(2) {
                segmented_sum(&a, c, w[0]..w[1], alpha, &x, beta, &mut parts[w[0]..w[1]]);
            }
            let bits = |v: &[T]| v.iter().map(|t| t.to_f64().to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(&whole), bits(&parts), "{:?}", isa);
        }
        Ok(())
    }

    fn lens() -> impl Strategy<Value = Vec<usize>> {
        proptest::collection::vec(prop_oneof![4 => 0usize..9, 1 => Just(0usize), 1 => 0usize..700], 0..48)
    }

    proptest! {
        /// The thread drivers' chunk kernel: any partition of the rows (cuts inside
        /// blocks, empty ranges, ranges of empty rows) gives the serial bits.
        #[test]
        #[cfg_attr(miri, ignore)]
        fn segmented_sum_over_row_ranges_equals_the_whole_bitwise(
            lens in lens(), ncols in 1usize..300, cuts in proptest::collection::vec(0usize..64, 0..6), seed: u64,
        ) {
            check::<f64>(&lens, ncols, &cuts, seed)?;
            check::<f32>(&lens, ncols, &cuts, seed)?;
        }
    }
}
