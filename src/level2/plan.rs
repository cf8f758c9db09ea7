//! SpMV plans: how to run `y = alpha * A * x + beta * y` many times on one CSR matrix,
//! converting it to CSR5 (thesis chapter 6, SpMV 8.5) where that pays instead of running
//! a conversion-free CSR method (8.3–8.4).
//!
//! [`CsrMethod::choose`] picks among the CSR methods only, because `SpMv for Csr` may not
//! allocate or convert. Yet on the irregular matrices CSR5 leads all of them (thesis Fig.
//! 8.9–8.11, and here on the AVX-512 machines measured: `benches/records/peers-*`), and
//! its conversion costs about one SpMV, which an iterative solver repays in its first
//! products. Where `x` is wide and read at random by long rows (LP constraint matrices),
//! the plan also blocks for the cache: CSR5 on column panels whose stretch of `x` stays in
//! L2 ([`SpmvChoice::Csr5Panels`]). [`SpmvChoice`] names the choice among the three;
//! [`SpmvPlan`] (feature `alloc`) holds it with the copies it needs and runs it.

use super::csr::{CHOOSE_LONG, CsrMethod, RowSample, entries_in_long_runs, sampled_rows};
use crate::formats::Csr;
use crate::{DimError, Exec, Index, Isa, Scalar};

/// How a plan runs SpMV on a CSR matrix: a CSR method on the matrix as it is, or CSR5
/// SpMV (Alg. 32) on a converted copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpmvChoice {
    /// [`super::spmv_csr`] by this method, no conversion.
    Csr(CsrMethod),
    /// CSR5 with [`crate::Csr5Layout::new`]'s layout for the plan's [`Isa`].
    Csr5,
    /// Cache blocking (Nishtala, Vuduc, Demmel and Yelick, "When cache blocking of
    /// sparse matrix vector multiply works and why", 2007) over CSR5: the matrix split
    /// into [`CsrOwned::column_panels`](crate::CsrOwned::column_panels) of `columns`
    /// columns, each converted to CSR5, run one after another (the first with `beta`,
    /// the rest adding to `y`). Each panel reads only its own stretch of `x`, which
    /// the L2 cache holds when `columns` is `Tuning::panel_bytes` of `x`; `x` read at random from
    /// a larger cache or memory is what bounds the wide irregular matrices.
    Csr5Panels {
        /// Columns per panel.
        columns: usize,
    },
    /// DIA (thesis 5.2.1) copy: the matrix stored on its diagonals, read with no
    /// indices. For stencils and bands, whose few diagonals hold almost every slot, that
    /// reads 8 or 4 bytes an entry where CSR reads 12 or 8 (plus `row_ptr`). The same bits
    /// as the row-scalar loop wherever `x` is finite (a padding zero inside the matrix
    /// times an infinite or NaN `x` gives NaN, as in any DIA or dense product).
    Dia,
}

/// Most diagonals [`SpmvChoice::choose`] takes DIA for.
const DIA_MAX_DIAGS: usize = 64;

/// Whether `a` looks like a stencil or band to [`SpmvChoice::choose`]: canonical, and
/// over 64 evenly spaced rows (all their entries) at most `DIA_MAX_DIAGS` distinct
/// diagonals `j - i`, whose slots in the sampled rows the entries fill 7 in 8. O(1): at
/// most 64 × 64 reads. [`SpmvPlan`] checks the whole matrix before it converts
/// (`ndiag * nrows <= 5/4 nnz`).
fn dia_like<T: Scalar, I: Index>(a: &Csr<'_, T, I>) -> bool {
    let (m, row_ptr, col_idx) = (a.nrows(), a.row_ptr(), a.col_idx());
    if a.row_order() != crate::RowOrder::Canonical || a.nnz() == 0 || m < DIA_MAX_DIAGS {
        return false;
    }
    let mut offs = [0i128; DIA_MAX_DIAGS];
    let (mut ndiag, mut seen) = (0usize, 0usize);
    let samples = 64.min(m);
    for k in 0..samples {
        let i = k * m / samples;
        let (r0, r1) = (row_ptr[i].to_usize(), row_ptr[i + 1].to_usize());
        if r1 - r0 > DIA_MAX_DIAGS {
            return false;
        }
        for c in &col_idx[r0..r1] {
            let d = c.to_usize() as i128 - i as i128;
            if !offs[..ndiag].contains(&d) {
                if ndiag == DIA_MAX_DIAGS {
                    return false;
                }
                offs[ndiag] = d;
                ndiag += 1;
            }
        }
        seen += r1 - r0;
    }
    // Every slot of the sampled rows on those diagonals, as the copy would store them.
    8 * seen >= 7 * ndiag * samples
}

/// The bytes of `x` one column panel of [`SpmvChoice::choose`] reads: 512 KiB, half the
/// L2 cache of an AMD Zen 4 core and a quarter of an Intel Sapphire Rapids one.
///
/// Random reads of `x` by gathers cost about twice as much once `x` outgrows L2, and
/// panels from 256 KiB to 1 MiB ran level on a wide LP matrix, well ahead of one CSR5
/// (`benches/records/kernel-notes-2026-11.md`, "Column panels of the SpMV plan").
pub(crate) const PANEL_BYTES: usize = 512 << 10;

/// The columns of one panel of [`SpmvChoice::choose`] for values of type `T`:
/// [`PANEL_BYTES`] of `x`.
pub(crate) const fn panel_columns<T>() -> usize {
    PANEL_BYTES / size_of::<T>()
}

/// The fewest entries a row holds in each panel, on average, for its entries to count
/// toward [`SpmvChoice::choose`]'s split into column panels: every panel runs all the
/// rows (reads and writes `y`, closes their segments), which the reads of `x` it saves
/// must repay. The split needs 3 in 8 entries, sampled by position, in such rows.
///
/// On the square irregular matrices of the suite (about one entry a row in each panel)
/// panels lost to one CSR5; on `lp_like` (long rows in every panel) they won, and on
/// `rmat`, with a heavy tail of long rows, in `f32`. With a share `p` of the entries
/// gaining and the rest losing at the ratios measured, panels pay from `p` ≈ 0.4, hence 3
/// in 8 (`examples/suite.rs --only spmv`; `benches/records/kernel-notes-2026-11.md`,
/// "Column panels of the SpMV plan"). This is the AVX2 threshold; AVX-512 takes
/// [`PANEL_MIN_ROW_AVX512`].
pub(crate) const PANEL_MIN_ROW: usize = 32;

/// [`PANEL_MIN_ROW`] on AVX-512, whose tile loop closes a step's segments without a
/// branch per row (`vcompress`), so that running every row in every panel costs it less
/// than it costs AVX2: on `rmat` `f64` panels won against one CSR5 on AVX-512 and lost on
/// AVX2, and halving the threshold moves no other suite matrix
/// (`benches/records/kernel-notes-2026-11.md`, "Column panels of the SpMV plan").
pub(crate) const PANEL_MIN_ROW_AVX512: usize = 16;

/// The per-panel row threshold of [`SpmvChoice::choose`]'s panel rule on `isa`.
const fn panel_min_row(isa: Isa) -> usize {
    match isa {
        Isa::Avx512 => PANEL_MIN_ROW_AVX512,
        _ => PANEL_MIN_ROW,
    }
}

/// Longest mean row length for which [`SpmvChoice::choose`] takes CSR5 for uneven rows
/// near the diagonal.
const CSR5_NEAR_SHORT: usize = 8;

/// Panels of `x` from which [`SpmvChoice::choose`] splits into them: an `x` of two
/// (1 MiB) lies within the second-level cache of current cores, and the split then ran
/// below row-vector (`lp_like` of `examples/suite`, `benches/records/peers-csr5-loads-*.md`).
const PANELS_MIN: usize = 3;

/// Entries [`SpmvChoice::choose`] samples by position for its panel rule.
pub(crate) const PANEL_SAMPLES: usize = 64;

/// Of [`PANEL_SAMPLES`] entries of `a` picked by position (each row weighed by its
/// length, as its share of the work), how many lie in rows of at least `len` entries:
/// `(long, sampled)`, by [`sampled_rows`].
fn entries_in_rows_of<T: Scalar, I: Index>(a: &Csr<'_, T, I>, len: usize) -> (usize, usize) {
    let sampled = PANEL_SAMPLES.min(a.nnz());
    let long = sampled_rows(a, sampled).filter(|r| r.len() >= len).count();
    (long, sampled)
}

impl SpmvChoice {
    /// The choice for `a` on `isa` by a fixed cheap rule (the row sample of
    /// [`CsrMethod::choose`], at most 576 reads, and where `x` spans two panels
    /// [`Tuning::panel_samples`](crate::Tuning::panel_samples) binary searches of `row_ptr`):
    ///
    /// - [`Dia`](SpmvChoice::Dia) on every `Isa` when a sample of 64 rows finds a
    ///   canonical matrix on at most 64 diagonals whose slots its entries fill 7 in 8:
    ///   stencils and bands, where MKL's optimized SpMV led every
    ///   CSR method (the peer tables in `benches/records/`).
    ///
    /// and on AVX2 and AVX-512:
    ///
    /// - [`Csr`](SpmvChoice::Csr)`(`[`RowVector`](CsrMethod::RowVector)`)` when 3 in 4
    ///   sampled entries lie in rows of 8 or more that are one run of consecutive columns
    ///   (dense and banded rows, read by vector loads);
    /// - [`Csr`](SpmvChoice::Csr)`(`[`CsrMethod::choose`]`)` (row-vector) when rows hold
    ///   64 entries or more on average and no panels split them (below): its several
    ///   sums per row led CSR5 on such rows;
    /// - else [`Csr5`](SpmvChoice::Csr5) when more than half of the sampled entries read `x`
    ///   far from the diagonal (past 256 KiB) and the sampled row lengths span at least
    ///   4 (uneven rows, or empty rows among rows of 4 or more): the irregular matrices
    ///   CSR5 was made for;
    /// - on AVX-512, and on AVX2 where the CPU gathers in hardware
    ///   ([`Gathers::current`](crate::Gathers::current) is `Hardware`),
    ///   [`Csr5`](SpmvChoice::Csr5) also when the sampled row lengths span at least 4
    ///   near the diagonal too and rows hold 8 entries or fewer on average (circuits),
    ///   and when more than 1 in 4 sampled entries read `x` far from the diagonal, rows
    ///   of even length too (`uniform_random` in `f32`, 46% far: CSR5 1.41–1.64 of the
    ///   row loop on both machines where the CSR methods tied it,
    ///   `benches/records/suite-2026-12-07-*`, `benches/records/peers-csr5-loads-*`);
    /// - [`Csr5`](SpmvChoice::Csr5) when rows hold 16 to 63 entries on average and
    ///   fewer than 7 in 8 sampled neighbours are consecutive columns: long rows that
    ///   row-vector must gather (a 3D stencil, a FEM operator's rows of small clusters);
    /// - [`Csr5Panels`](SpmvChoice::Csr5Panels) with
    ///   [`Tuning::panel_bytes`](crate::Tuning::panel_bytes) of `x` per panel, before
    ///   any of these, when `x` spans three panels or more, most sampled entries read `x` far
    ///   from the diagonal, and at least 3 in 8 of
    ///   [`Tuning::panel_samples`](crate::Tuning::panel_samples) entries picked by
    ///   position lie in rows of [`Tuning::panel_min_row`](crate::Tuning::panel_min_row)
    ///   entries per panel or more
    ///   ([`Tuning::panel_min_row_avx512`](crate::Tuning::panel_min_row_avx512) on
    ///   AVX-512): wide matrices of long rows (an LP constraint matrix) or with a heavy
    ///   tail of them (a power-law graph: in `f32` on both widths, in `f64` on AVX-512),
    ///   whose reads of `x` miss the L2 cache;
    /// - [`Csr`](SpmvChoice::Csr)`(`[`CsrMethod::choose`]`)` otherwise, on portable and
    ///   NEON, and for `u16` indices, whose CSR5 tiles run the portable kernel on every
    ///   width (and hold fewer than 32 768 rows).
    ///
    /// Why (suite runs per machine and width, `examples/suite.rs --only spmv`; the
    /// speedups in `benches/records/kernel-notes-2026-11.md`, "SpMV plan rule", and the
    /// peer and gather tables in `benches/records/`):
    /// - On the irregular matrices (`rmat`, `dc2_like`, `lp_like`) CSR5 led the
    ///   conversion-free pick on AVX-512 and on AVX2, once AVX2 tiles had 8 lanes (two
    ///   registers per step, [`omega_for`](crate::formats::csr5::omega_for)): tiles of
    ///   one AVX2 `f64` register lost `dc2_like` to the segmented sum.
    /// - Rows of 27 in nine runs of three (`poisson3d_27`) go to CSR5, which led
    ///   row-vector on every machine and width measured; rows of one run (`banded`,
    ///   `dense`, `block_diagonal`) and the short rows of `poisson2d` stay with
    ///   row-vector, which reads their `x` by plain loads.
    /// - Uneven short rows near the diagonal (`circuit_like`, `dc2_like` of the peer
    ///   suite) and rows of one length that read `x` all over (`uniform_random`, 5 a
    ///   row): CSR5 led the CSR methods with hardware gathers on both widths, and on
    ///   AVX-512 with a load per lane too (`benches/records/peers-csr5-loads-*.md`); on
    ///   AVX2 with loads it tied or trailed them (`benches/records/peers-*`,
    ///   `benches/records/gathers-*`); with 14 entries a row (`rmat_s14_ef16`)
    ///   row-vector led CSR5 (`benches/records/peers-spmv-short-*.md`).
    /// - The portable CSR5 kernel lost to the row loop on `rmat` and `dc2_like`, so
    ///   portable and NEON (not measured) keep CSR.
    pub fn choose<T: Scalar, I: Index>(a: &Csr<'_, T, I>, isa: Isa) -> SpmvChoice {
        if dia_like(a) {
            return SpmvChoice::Dia;
        }
        if !matches!(isa, Isa::Avx2 | Isa::Avx512) || I::BYTES < 4 {
            return SpmvChoice::Csr(CsrMethod::choose(a, isa));
        }
        // Rows of consecutive columns read `x` by vector loads in the row loop, whatever
        // its width: neither panels nor CSR5 save them a miss.
        if entries_in_long_runs(a) {
            return SpmvChoice::Csr(CsrMethod::RowVector);
        }
        // One row sample serves both rules.
        let s = RowSample::of(a);
        let columns = panel_columns::<T>();
        let panels = a.ncols().div_ceil(columns);
        if panels >= PANELS_MIN && s.scattered() {
            let (long, sampled) = entries_in_rows_of(a, panel_min_row(isa).saturating_mul(panels));
            if sampled > 0 && 8 * long >= 3 * sampled {
                return SpmvChoice::Csr5Panels { columns };
            }
        }
        // AVX-512's CSR5 tiles led the CSR methods on these rows whether this core
        // gathers in hardware or by a load per lane; AVX2's only with hardware gathers.
        // Rows of 64 entries or more on average that no panels split: the row loop's
        // several sums per row led CSR5 (`lp_like`, `lp_wide`).
        if a.nnz() >= CHOOSE_LONG.saturating_mul(a.nrows()) {
            return SpmvChoice::Csr(CsrMethod::choose_sampled(a, isa, Some(&s)));
        }
        let wide = isa == Isa::Avx512 || crate::Gathers::current() == crate::Gathers::Hardware;
        // Near the diagonal, only short uneven rows: from 8 entries a row on average the
        // row-vector loop led CSR5 (`rmat_s14_ef16`).
        let short = a.nnz() <= CSR5_NEAR_SHORT * a.nrows();
        let irregular =
            (s.scattered() && s.uneven()) || (wide && (!s.mostly_near() || (s.uneven() && short)));
        let long_gathered = a.nnz() >= 16 * a.nrows() && !s.runs();
        if irregular || long_gathered {
            SpmvChoice::Csr5
        } else {
            SpmvChoice::Csr(CsrMethod::choose_sampled(a, isa, Some(&s)))
        }
    }

    /// Short lower-case name: the [`CsrMethod::name`], `"csr5"` or `"csr5-panels"`.
    pub fn name(self) -> &'static str {
        match self {
            SpmvChoice::Csr(m) => m.name(),
            SpmvChoice::Csr5 => "csr5",
            SpmvChoice::Csr5Panels { .. } => "csr5-panels",
            SpmvChoice::Dia => "dia",
        }
    }
}

impl core::fmt::Display for SpmvChoice {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// The distinct diagonals `j - i` of a canonical `a`, sorted, if at most
/// [`DIA_MAX_DIAGS`]: what a plan's DIA copy stores, found without scratch memory.
fn diagonals<T: Scalar, I: Index>(a: &Csr<'_, T, I>) -> Option<([isize; DIA_MAX_DIAGS], usize)> {
    let mut offs = [0isize; DIA_MAX_DIAGS];
    let mut n = 0;
    for (i, j, _) in a.iter() {
        let d = j as isize - i as isize;
        if let Err(at) = offs[..n].binary_search(&d) {
            if n == DIA_MAX_DIAGS {
                return None;
            }
            offs.copy_within(at..n, at + 1);
            offs[at] = d;
            n += 1;
        }
    }
    Some((offs, n))
}

/// What an [`SpmvPlanView`] needs, worked out without allocating: the choice (as
/// [`SpmvChoice::choose`] makes it, or the caller's) and the lengths of the caller's
/// buffers for its copy — the firmware form of [`SpmvPlan`](crate::SpmvPlan). Made for one
/// matrix (its shape and entry count are checked when the plan is built).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpmvPlanLayout {
    choice: SpmvChoice,
    isa: Isa,
    shape: (usize, usize, usize),
    csr5: Option<crate::Csr5Layout>,
    offsets: [isize; DIA_MAX_DIAGS],
    ndiag: usize,
    dia_len: usize,
}

impl SpmvPlanLayout {
    /// The layout of [`SpmvChoice::choose`]'s plan for `a` on `exec`'s [`Isa`], with two
    /// changes where the copy cannot be had: column panels become one CSR5 copy (the
    /// panels' copies need an allocator), and a DIA or CSR5 copy the matrix does not fit
    /// (more than 64 diagonals or a fill above 5 slots per 4 entries; more rows than `I`
    /// holds without its top bit) becomes [`CsrMethod::choose`]'s method, which needs no
    /// buffers. Costs a pass over the entries where DIA is chosen, over `row_ptr` for CSR5.
    ///
    /// # Errors
    /// [`DimError::IsaUnavailable`] if this machine cannot run `exec`'s `Isa`.
    pub fn new<T: Scalar, I: Index>(exec: Exec, a: &Csr<'_, T, I>) -> Result<Self, DimError> {
        let isa = exec.resolved_isa();
        let choice = match SpmvChoice::choose(a, isa) {
            SpmvChoice::Csr5Panels { .. } => SpmvChoice::Csr5,
            c => c,
        };
        SpmvPlanLayout::with_choice(exec, a, choice)
            .or_else(|_| SpmvPlanLayout::with_choice(exec, a, SpmvChoice::Csr(CsrMethod::choose(a, isa))))
    }

    /// The layout of the plan that runs `choice`.
    ///
    /// # Errors
    /// [`DimError::IsaUnavailable`]; [`DimError::Parameter`] (`"choice"`) for
    /// [`SpmvChoice::Csr5Panels`] (it needs an allocator: [`SpmvPlan`](crate::SpmvPlan));
    /// for [`SpmvChoice::Csr5`], [`DimError::Overflow`] (`"nrows"`) if `a` has more rows
    /// than `I` holds without its top bit; for [`SpmvChoice::Dia`],
    /// [`DimError::NotCanonical`] if `a` is not canonical (DIA would add duplicates up),
    /// [`DimError::Parameter`] (`"dia diagonals"`, `"dia fill"`) beyond 64 diagonals or 5
    /// slots per 4 entries.
    pub fn with_choice<T: Scalar, I: Index>(
        exec: Exec,
        a: &Csr<'_, T, I>,
        choice: SpmvChoice,
    ) -> Result<Self, DimError> {
        let isa = exec.resolved_isa();
        crate::arch::Checked::new(isa)?;
        let mut l = SpmvPlanLayout {
            choice,
            isa,
            shape: (a.nrows(), a.ncols(), a.nnz()),
            csr5: None,
            offsets: [0; DIA_MAX_DIAGS],
            ndiag: 0,
            dia_len: 0,
        };
        match choice {
            SpmvChoice::Csr(_) => {}
            SpmvChoice::Csr5 => {
                l.csr5 = Some(crate::Csr5Layout::new(a, isa).map_err(|e| match e {
                    crate::FormatError::TooLarge { what, value, max } => {
                        DimError::Overflow { what, value, max }
                    }
                    _ => DimError::Parameter { name: "csr5 layout", value: 0 },
                })?);
            }
            SpmvChoice::Csr5Panels { columns } => {
                return Err(DimError::Parameter { name: "choice", value: columns });
            }
            SpmvChoice::Dia => {
                if a.row_order() != crate::RowOrder::Canonical {
                    return Err(DimError::NotCanonical { operand: "A" });
                }
                let (offsets, ndiag) = diagonals(a)
                    .ok_or(DimError::Parameter { name: "dia diagonals", value: DIA_MAX_DIAGS + 1 })?;
                let len = super::dia::blocks_len(a.nrows(), ndiag).ok_or(DimError::Overflow {
                    what: "dia",
                    value: a.nrows(),
                    max: 0,
                })?;
                if ndiag.saturating_mul(a.nrows()).saturating_mul(4) > a.nnz().saturating_mul(5) {
                    return Err(DimError::Parameter { name: "dia fill", value: ndiag });
                }
                (l.offsets, l.ndiag, l.dia_len) = (offsets, ndiag, len);
            }
        }
        Ok(l)
    }

    /// What the plan runs.
    pub fn choice(&self) -> SpmvChoice {
        self.choice
    }

    /// Indices the plan's copy needs: for CSR5 its `col_idx` and the arrays of
    /// [`Csr5Aux`](crate::formats::csr5::Csr5Aux) but `tile_desc`; else none.
    pub fn idx_len(&self) -> usize {
        self.csr5.map_or(0, |c| c.nnz() + 2 * c.tile_ptr_len() + c.empty_offset_len())
    }

    /// Values the plan's copy needs: CSR5's `vals`, or DIA's slots.
    pub fn vals_len(&self) -> usize {
        self.csr5.map_or(self.dia_len, |c| c.nnz())
    }

    /// Descriptor words the plan's copy needs (CSR5's `tile_desc`).
    pub fn words_len(&self) -> usize {
        self.csr5.map_or(0, |c| c.tile_desc_len())
    }
}

/// A plan whose copy lives in the caller's buffers: [`SpmvPlanLayout`]'s choice, built
/// by [`SpmvPlanView::from_buffers`] and run through [`SpMv`](super::SpMv) with the same
/// kernels (and bits) as [`SpmvPlan`](crate::SpmvPlan)'s.
///
/// ```
/// use spblas::{Csr, Exec, SpMv, SpmvChoice, SpmvPlanLayout, SpmvPlanView};
/// // A tridiagonal 300 x 300 matrix: a stencil, so the plan stores its diagonals.
/// let n: usize = 300;
/// let mut row_ptr = [0u32; 301];
/// let (mut col_idx, mut vals) = ([0u32; 898], [0.0f64; 898]);
/// let mut k = 0;
/// for i in 0..n {
///     for j in i.saturating_sub(1)..(i + 2).min(n) {
///         (col_idx[k], vals[k]) = (j as u32, if i == j { 2.0 } else { -1.0 });
///         k += 1;
///     }
///     row_ptr[i + 1] = k as u32;
/// }
/// let a = Csr::new(n, n, &row_ptr, &col_idx, &vals)?;
/// let layout = SpmvPlanLayout::new(Exec::new(), &a)?;
/// assert_eq!(layout.choice(), SpmvChoice::Dia);
/// let (mut idx, mut slots, mut words) = ([0u32; 0], [0.0f64; 1536], [0u32; 0]);
/// assert!(layout.vals_len() <= slots.len());
/// let plan = SpmvPlanView::from_buffers(&a, &layout, &mut idx, &mut slots, &mut words)?;
/// let (x, mut y) = ([1.0; 300], [0.0; 300]);
/// plan.spmv(Exec::new(), 1.0, &x, 0.0, &mut y)?;
/// assert_eq!((y[0], y[1], y[299]), (1.0, 0.0, 1.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SpmvPlanView<'a, T, I> {
    a: Csr<'a, T, I>,
    isa: Isa,
    run: RunView<'a, T, I>,
}

#[derive(Clone, Copy, Debug)]
enum RunView<'a, T, I> {
    Csr(CsrMethod),
    Csr5(crate::Csr5<'a, T, I>),
    Dia(super::dia::DiaBlocksRef<'a, T>),
}

impl<'a, T: Scalar, I: Index> SpmvPlanView<'a, T, I> {
    /// Builds `layout`'s copy of `a` into `idx`, `vals` and `words` (each at least as long
    /// as the layout's `*_len` says; only that prefix is used) and returns the plan,
    /// borrowing them.
    ///
    /// # Errors
    /// [`DimError::Length`] (`"layout"`) if `layout` was made for a matrix of another shape
    /// or entry count; [`DimError::BufferTooSmall`] (`"idx"`, `"vals"`, `"words"`) before
    /// anything is written.
    pub fn from_buffers(
        a: &Csr<'a, T, I>,
        layout: &'a SpmvPlanLayout,
        idx: &'a mut [I],
        vals: &'a mut [T],
        words: &'a mut [u32],
    ) -> Result<Self, DimError> {
        if layout.shape != (a.nrows(), a.ncols(), a.nnz()) {
            return Err(DimError::Length { operand: "layout", expected: layout.shape.2, got: a.nnz() });
        }
        for (buffer, needed, got) in [
            ("idx", layout.idx_len(), idx.len()),
            ("vals", layout.vals_len(), vals.len()),
            ("words", layout.words_len(), words.len()),
        ] {
            if got < needed {
                return Err(DimError::BufferTooSmall { buffer, needed, got });
            }
        }
        let run = match (layout.choice, layout.csr5) {
            (SpmvChoice::Csr(m), _) => RunView::Csr(m),
            (SpmvChoice::Dia, _) => {
                let (offsets, data) = (&layout.offsets[..layout.ndiag], &mut vals[..layout.dia_len]);
                super::dia::fill_blocks(a, offsets, data);
                RunView::Dia(super::dia::DiaBlocksRef { nrows: a.nrows(), ncols: a.ncols(), offsets, data })
            }
            (_, Some(c)) => {
                let (col_idx, rest) = idx.split_at_mut(c.nnz());
                let (tile_ptr, rest) = rest.split_at_mut(c.tile_ptr_len());
                let (empty_offset_ptr, empty_offset) = rest.split_at_mut(c.tile_ptr_len());
                let aux = crate::formats::csr5::Csr5Aux {
                    tile_ptr,
                    tile_desc: words,
                    empty_offset_ptr,
                    empty_offset,
                };
                let c5 = crate::Csr5::from_csr(a, &c, col_idx, vals, aux).map_err(|_| DimError::Length {
                    operand: "layout",
                    expected: c.nnz(),
                    got: a.nnz(),
                })?;
                RunView::Csr5(c5)
            }
            (_, None) => RunView::Csr(CsrMethod::choose(a, layout.isa)),
        };
        Ok(SpmvPlanView { a: *a, isa: layout.isa, run })
    }

    /// What the plan runs.
    pub fn choice(&self) -> SpmvChoice {
        match self.run {
            RunView::Csr(m) => SpmvChoice::Csr(m),
            RunView::Csr5(_) => SpmvChoice::Csr5,
            RunView::Dia(_) => SpmvChoice::Dia,
        }
    }

    /// The [`Isa`] the plan was made for, which [`SpMv::spmv`](super::SpMv::spmv) runs on.
    pub fn isa(&self) -> Isa {
        self.isa
    }
}

impl<T: Scalar, I: Index> super::SpMv<T> for SpmvPlanView<'_, T, I> {
    /// Runs the plan's choice on the plan's [`Isa`] unless `exec` names another; CSR and
    /// CSR5 on `exec`'s threads (feature `parallel`), DIA on the calling thread.
    fn spmv(&self, exec: Exec, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
        let isa = exec.requested_isa().unwrap_or(self.isa);
        let exec = exec.isa(isa);
        match &self.run {
            RunView::Csr(m) => super::spmv_csr(exec, &self.a, *m, alpha, x, beta, y),
            RunView::Csr5(c) => c.spmv(exec, alpha, x, beta, y),
            RunView::Dia(d) => {
                super::check_spmv(isa, self.a.nrows(), self.a.ncols(), x, y)?;
                d.rows(crate::arch::Checked::new(isa)?, 0, alpha, x, beta, y);
                Ok(())
            }
        }
    }
}

impl<T: Scalar, I: Index> super::SpMm<T> for SpmvPlanView<'_, T, I> {
    /// SpMM on the planned format: a CSR5 plan by its tiles
    /// ([`spmm_csr5`](super::spmm_csr5)), the others by CSR rows
    /// ([`spmm_csr`](super::spmm_csr); DIA has no SpMM of its own); on the plan's
    /// [`Isa`] unless `exec` names another, on `exec`'s threads (feature `parallel`).
    fn spmm(
        &self,
        exec: Exec,
        alpha: T,
        x: super::DenseRef<'_, T>,
        beta: T,
        y: &mut super::DenseMut<'_, T>,
    ) -> Result<(), DimError> {
        let exec = exec.isa(exec.requested_isa().unwrap_or(self.isa));
        match &self.run {
            RunView::Csr5(c) => super::spmm_csr5(exec, c, alpha, x, beta, y),
            RunView::Csr(_) | RunView::Dia(_) => super::spmm_csr(exec, &self.a, alpha, x, beta, y),
        }
    }
}

#[cfg(feature = "parallel")]
pub(crate) use owned::{Run, spmv_panels};
#[cfg(feature = "alloc")]
pub use owned::{SpmvConfig, SpmvPlan};

#[cfg(feature = "alloc")]
mod owned {
    use alloc::boxed::Box;
    use alloc::vec::Vec;

    use super::{Csr, CsrMethod, Index, Isa, Scalar, SpmvChoice};
    use crate::arch::Checked;
    use crate::formats::{Csr5Layout, Csr5Owned, CsrOwned, Dia, DiaLayout};
    use crate::level2::dia::DiaBlocks;
    use crate::level2::{DenseMut, DenseRef, SpMm, SpMv, spmm_csr, spmm_csr5};
    use crate::{DimError, Exec, FormatError};

    /// A conversion's [`FormatError`] as the plan's [`DimError`]: a parameter stays a
    /// parameter, a size (rows needing the flag bit, arrays that cannot be allocated)
    /// keeps its own fields as an overflow. A valid `Csr` raises nothing else; anything
    /// else reads as an overflow of `"conversion"`.
    fn dim_error(e: FormatError) -> DimError {
        match e {
            FormatError::Parameter { name, value } => DimError::Parameter { name, value },
            FormatError::TooLarge { what, value, max } => DimError::Overflow { what, value, max },
            _ => DimError::Overflow { what: "conversion", value: 0, max: 0 },
        }
    }

    /// How [`SpmvPlan::with_config`] and [`SpmvPlan::tune`] build a plan (feature
    /// `alloc`): the choice (`None`: [`SpmvChoice::choose`]'s) and whether the copies ask
    /// for huge pages. The width and threads are the [`Exec`] the plan is built with.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct SpmvConfig {
        /// `None` (default): [`SpmvChoice::choose`]'s choice, as [`SpmvPlan::new`].
        /// `Some(c)`: `c`. [`SpmvPlan::tune`] ignores it: it times the candidates and
        /// picks.
        pub choice: Option<SpmvChoice>,
        /// Whether the CSR5 copies (one matrix, or the column panels) ask the kernel to
        /// back their entry arrays of 8 MiB or more by transparent huge pages
        /// (`madvise(MADV_HUGEPAGE)` before the first write; feature `std` on Linux,
        /// elsewhere nothing). Off by default. The results are the same either way; the
        /// speed depends on the machine (`benches/records/kernel-notes-2026-11.md`,
        /// "Huge pages for the SpMV plan's copies"):
        ///
        /// - The SpMV gains where 4 KiB pages cost it (TLB misses, and page placement that
        ///   varies from copy to copy), and building back to back spends less on page
        ///   faults.
        /// - But on a virtual machine whose balloon driver hands free 2 MiB blocks back to
        ///   the host (free page reporting; see `SpgemmConfig::huge_pages`), huge pages
        ///   touched first in a process, or after a pause, must be backed again by the
        ///   host, and building took longer.
        ///
        /// Turn it on for a plan that runs many products (an iterative solver), after
        /// measuring on the target machine.
        pub huge_pages: bool,
    }

    impl SpmvConfig {
        /// The rule's choice, no huge pages.
        pub fn new() -> Self {
            Self::default()
        }
        /// The same with `choice` forced.
        pub fn choice(self, choice: SpmvChoice) -> Self {
            SpmvConfig { choice: Some(choice), ..self }
        }
        /// The same with the huge page hint on or off ([`SpmvConfig::huge_pages`]).
        pub fn huge_pages(self, on: bool) -> Self {
            SpmvConfig { huge_pages: on, ..self }
        }
    }

    /// A CSR matrix with the way to run its SpMV (feature `alloc`): a [`SpmvChoice`] on
    /// one [`Isa`], and for [`SpmvChoice::Csr5`] the CSR5 copy of the matrix (as much
    /// memory again as the CSR arrays, plus about 1–4% for the tile descriptors).
    ///
    /// Build it once, by rule ([`SpmvPlan::new`]) or by timing ([`SpmvPlan::tune`]), and
    /// run it through [`SpMv`] as often as needed; every run computes the same `y` as
    /// the CSR methods, within rounding (CSR5 adds in another order).
    ///
    /// ```
    /// use spblas::{CsrOwned, Exec, SpMv, SpmvChoice, SpmvConfig, SpmvPlan};
    /// let a = CsrOwned::<f64, u32>::from_triplets(2, 3, &[(0, 0, 2.0), (0, 2, 1.0), (1, 1, 3.0)])?;
    /// let a = a.view();
    /// let plan = SpmvPlan::with_config(Exec::new(), &a, SpmvConfig::new().choice(SpmvChoice::Csr5))?;
    /// let mut y = [0.0; 2];
    /// plan.spmv(Exec::new(), 1.0, &[1.0, 1.0, 1.0], 0.0, &mut y)?;
    /// assert_eq!(y, [3.0, 3.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[derive(Clone, Debug)]
    pub struct SpmvPlan<'a, T, I> {
        a: Csr<'a, T, I>,
        isa: Isa,
        run: Run<T, I>,
    }

    /// What a plan runs, with what it needs (the CSR5 copy's headers boxed, so a CSR
    /// plan stays small).
    #[derive(Clone, Debug)]
    pub(crate) enum Run<T, I> {
        Csr(CsrMethod),
        Csr5(Box<Csr5Owned<T, I>>),
        /// The panels with entries (the first alone when none has), and their width.
        Csr5Panels(Vec<Csr5Owned<T, I>>, usize),
        Dia(Box<DiaBlocks<T>>),
    }

    impl<'a, T: Scalar, I: Index> SpmvPlan<'a, T, I> {
        /// The plan of [`SpmvChoice::choose`] for `a` on `exec`'s [`Isa`], converting to
        /// CSR5 if it says so. Should the conversion be impossible (more rows than the
        /// index type holds without its top bit, the `tile_ptr` flag), the plan keeps
        /// [`CsrMethod::choose`]'s method. The plan runs on that `Isa`; the threads are
        /// those of each [`SpMv::spmv`] call.
        ///
        /// # Errors
        /// [`DimError::IsaUnavailable`] if this machine cannot run `exec`'s `Isa`.
        pub fn new(exec: Exec, a: &Csr<'a, T, I>) -> Result<Self, DimError> {
            SpmvPlan::with_config(exec, a, SpmvConfig::new())
        }

        /// The plan `config` describes: [`SpmvPlan::new`]'s if it names no choice, else
        /// the one that runs `config.choice`, the copies on huge pages if it asks
        /// ([`SpmvConfig::huge_pages`]).
        ///
        /// # Errors
        /// [`DimError::IsaUnavailable`] if this machine cannot run `exec`'s `Isa`;
        /// for a forced choice, [`DimError::Overflow`] (`"nrows"`) if it is CSR5 or CSR5
        /// panels and `a` has more rows than `I` holds without its top bit;
        /// [`DimError::Parameter`] (`"columns"`) if the panels' `columns` is 0 or makes
        /// more than [`MAX_PANELS`](crate::formats::MAX_PANELS) panels;
        /// [`DimError::Overflow`] with the format error's own fields if the arrays of the
        /// copies cannot be allocated.
        pub fn with_config(exec: Exec, a: &Csr<'a, T, I>, config: SpmvConfig) -> Result<Self, DimError> {
            let (isa, huge) = (exec.resolved_isa(), config.huge_pages);
            Checked::new(isa)?;
            match config.choice {
                Some(choice) => SpmvPlan::build(a, isa, choice, huge),
                None => SpmvPlan::build(a, isa, SpmvChoice::choose(a, isa), huge)
                    .or_else(|_| SpmvPlan::build(a, isa, SpmvChoice::Csr(CsrMethod::choose(a, isa)), huge)),
            }
        }

        /// The plan that runs `choice` on `isa` (checked), the copies on huge pages if
        /// `huge`.
        fn build(a: &Csr<'a, T, I>, isa: Isa, choice: SpmvChoice, huge: bool) -> Result<Self, DimError> {
            let run = match choice {
                SpmvChoice::Csr(m) => Run::Csr(m),
                SpmvChoice::Csr5 => {
                    let layout = Csr5Layout::new(a, isa).map_err(dim_error)?;
                    Run::Csr5(Box::new(Csr5Owned::from_csr_paged(a, &layout, huge).map_err(dim_error)?))
                }
                SpmvChoice::Csr5Panels { columns } => {
                    let panels = CsrOwned::column_panels_paged(a, columns, huge).map_err(dim_error)?;
                    // Panels without entries add nothing; the first stays when all are
                    // empty, to scale `y` by `beta`.
                    let full = panels.iter().filter(|p| p.nnz() > 0).count();
                    let mut c5 = Vec::new();
                    c5.try_reserve_exact(full.max(1)).map_err(|_| DimError::Overflow {
                        what: "panels",
                        value: full,
                        max: crate::formats::MAX_PANELS,
                    })?;
                    for (k, p) in panels.into_iter().enumerate() {
                        if p.nnz() > 0 || (k == 0 && full == 0) {
                            c5.push(
                                Csr5Owned::from_csr_owned(Exec::from(isa), p)
                                    .map_err(|(e, _)| dim_error(e))?,
                            );
                        }
                    }
                    Run::Csr5Panels(c5, columns)
                }
                SpmvChoice::Dia => Run::Dia(Box::new(dia_copy(a)?)),
            };
            Ok(SpmvPlan { a: *a, isa, run })
        }

        /// The fastest plan for `a` on `exec` (its width and threads) on this machine, by
        /// timing (feature `std`): the rule's plan ([`SpmvPlan::new`]), the row-scalar and
        /// row-vector methods, CSR5 (converted once), DIA where the rule's sample finds few
        /// full diagonals and, when `x` is wide enough for two column panels, CSR5 panels,
        /// run in turn, in rotating order, for `rounds` rounds after a warm-up. The copies
        /// it times (and the one it keeps) are on huge pages if `config` asks
        /// ([`SpmvConfig::huge_pages`]); `config.choice` is ignored. Another plan replaces
        /// the rule's only when its median is at least 5% lower (so noise between equal
        /// plans cannot flip the choice from run to run). Costs one or two conversions and
        /// at most `5 * (rounds + 1)` SpMVs; `rounds` is clamped to 1..=64. `x` and `y` are
        /// the caller's; `y` is overwritten and holds `A x` on return.
        ///
        /// # Errors
        /// As [`spmv_csr`](crate::level2::spmv_csr): [`DimError::IsaUnavailable`] or
        /// [`DimError::Length`], before
        /// anything is timed or written.
        #[cfg(feature = "std")]
        pub fn tune(
            exec: Exec,
            a: &Csr<'a, T, I>,
            config: SpmvConfig,
            x: &[T],
            y: &mut [T],
            rounds: usize,
        ) -> Result<Self, DimError> {
            let (isa, huge) = (exec.resolved_isa(), config.huge_pages);
            let exec = exec.isa(isa);
            crate::level2::check_spmv(isa, a.nrows(), a.ncols(), x, y)?;
            // The rule's plan first (the incumbent), then the two row methods (the others
            // never led both on one core), CSR5 and, for a wide `x`, the panels.
            let rule = SpmvChoice::choose(a, isa);
            let columns = super::panel_columns::<T>();
            let mut choices = Vec::with_capacity(5);
            choices.push(rule);
            choices.extend([CsrMethod::RowScalar, CsrMethod::RowVector].map(SpmvChoice::Csr));
            choices.push(SpmvChoice::Csr5);
            if super::dia_like(a) {
                choices.push(SpmvChoice::Dia);
            }
            if a.ncols() > columns {
                choices.push(SpmvChoice::Csr5Panels { columns });
            }
            let mut plans = Vec::with_capacity(choices.len());
            for (k, &c) in choices.iter().enumerate() {
                if k > 0 && plans.iter().any(|p: &SpmvPlan<'a, T, I>| p.choice() == c) {
                    continue;
                }
                match SpmvPlan::build(a, isa, c, huge) {
                    Ok(p) => plans.push(p),
                    // The rule's plan falls back as in `SpmvPlan::new`; another that cannot
                    // be built (memory, a DIA copy of too many empty slots) is left out.
                    Err(_) if k == 0 => {
                        plans.push(SpmvPlan::build(a, isa, SpmvChoice::Csr(CsrMethod::choose(a, isa)), huge)?)
                    }
                    Err(_) => {}
                }
            }
            let k = crate::level2::csr::fastest(plans.len(), rounds, |k| {
                plans[k].spmv(exec, T::ONE, x, T::ZERO, y)
            })?;
            Ok(plans.swap_remove(k))
        }

        /// What the plan runs.
        pub fn choice(&self) -> SpmvChoice {
            match self.run {
                Run::Csr(m) => SpmvChoice::Csr(m),
                Run::Csr5(_) => SpmvChoice::Csr5,
                Run::Csr5Panels(_, columns) => SpmvChoice::Csr5Panels { columns },
                Run::Dia(_) => SpmvChoice::Dia,
            }
        }

        /// The [`Isa`] the plan was made for, which [`SpMv::spmv`] runs on.
        pub fn isa(&self) -> Isa {
            self.isa
        }

        /// The CSR matrix.
        pub fn matrix(&self) -> Csr<'a, T, I> {
            self.a
        }

        /// What the plan runs, with the CSR5 copy: for the drivers that run it their own
        /// way (`parallel::spmv_plan`).
        #[cfg(feature = "parallel")]
        pub(crate) fn run(&self) -> &Run<T, I> {
            &self.run
        }

        /// The CSR5 copy, for [`SpmvChoice::Csr5`].
        pub fn csr5(&self) -> Option<&Csr5Owned<T, I>> {
            match &self.run {
                Run::Csr5(c) => Some(c),
                _ => None,
            }
        }

        /// The CSR5 copies of the column panels that hold entries (the first alone when
        /// none does), in column order, for [`SpmvChoice::Csr5Panels`].
        pub fn panels(&self) -> Option<&[Csr5Owned<T, I>]> {
            match &self.run {
                Run::Csr5Panels(p, _) => Some(p),
                _ => None,
            }
        }
    }

    /// The DIA copy of a plan, by row blocks: only of a canonical matrix (DIA adds
    /// duplicates up, which would change the sums) whose diagonals hold at least 4 in 5 of
    /// its slots.
    fn dia_copy<T: Scalar, I: Index>(a: &Csr<'_, T, I>) -> Result<DiaBlocks<T>, DimError> {
        if a.row_order() != crate::RowOrder::Canonical {
            return Err(DimError::NotCanonical { operand: "A" });
        }
        let span = Dia::<T>::offsets_scratch_len(a);
        let mut offsets = Vec::new();
        offsets.try_reserve_exact(span).map_err(|_| DimError::Overflow {
            what: "offsets",
            value: span,
            max: 0,
        })?;
        offsets.resize(span, 0isize);
        let ndiag = Dia::<T>::offsets_from_csr(a, &mut offsets).map_err(dim_error)?;
        let layout = DiaLayout::new(a, ndiag).map_err(dim_error)?;
        if 4 * layout.data_len() > 5 * a.nnz() {
            return Err(DimError::Parameter { name: "dia fill", value: ndiag });
        }
        offsets.truncate(ndiag);
        DiaBlocks::from_csr(a, offsets).ok_or(DimError::Overflow { what: "dia", value: a.nrows(), max: 0 })
    }

    /// `y = alpha * A * x + beta * y` for `A` the sum of `panels` (all of one shape, as
    /// [`crate::CsrOwned::column_panels`] makes them), one after another: the first with
    /// `beta`, the rest adding to `y`. The first call checks the lengths and the `Isa`
    /// for all, before `y` is touched.
    pub(crate) fn spmv_panels<T: Scalar, I: Index>(
        panels: &[Csr5Owned<T, I>],
        isa: Isa,
        alpha: T,
        x: &[T],
        beta: T,
        y: &mut [T],
    ) -> Result<(), DimError> {
        let mut beta = beta;
        for p in panels {
            p.view().spmv(Exec::new().isa(isa), alpha, x, beta, y)?;
            beta = T::ONE;
            if alpha == T::ZERO {
                break;
            }
        }
        Ok(())
    }

    impl<T: Scalar, I: Index> SpMm<T> for SpmvPlan<'_, T, I> {
        /// SpMM on the planned format: a CSR5 plan by its tiles
        /// ([`spmm_csr5`](crate::level2::spmm_csr5)), a CSR5-panels plan panel after
        /// panel (the first with `beta`, the rest adding), the others by CSR rows
        /// ([`spmm_csr`](crate::level2::spmm_csr); DIA has no SpMM of its own); on the
        /// plan's [`Isa`] unless `exec` names another, on `exec`'s threads (feature
        /// `parallel`).
        fn spmm(
            &self,
            exec: Exec,
            alpha: T,
            x: DenseRef<'_, T>,
            beta: T,
            y: &mut DenseMut<'_, T>,
        ) -> Result<(), DimError> {
            let exec = exec.isa(exec.requested_isa().unwrap_or(self.isa));
            match &self.run {
                Run::Csr5(c) => spmm_csr5(exec, &c.view(), alpha, x, beta, y),
                Run::Csr5Panels(panels, _) => {
                    // Every panel has `A`'s shape; the first call checks them all.
                    let mut beta = beta;
                    for p in panels {
                        spmm_csr5(exec, &p.view(), alpha, x, beta, y)?;
                        beta = T::ONE;
                        if alpha == T::ZERO {
                            break;
                        }
                    }
                    Ok(())
                }
                Run::Csr(_) | Run::Dia(_) => spmm_csr(exec, &self.a, alpha, x, beta, y),
            }
        }
    }

    impl<T: Scalar, I: Index> SpMv<T> for SpmvPlan<'_, T, I> {
        /// Runs the plan's choice on the plan's [`Isa`] ([`SpmvPlan::isa`]) unless `exec`
        /// names another (a CSR5 copy laid out for another width runs correctly, on that
        /// width's portable tile loop if the lane counts differ), on `exec`'s threads
        /// (feature `parallel`: CSR5 by equal tile ranges, the panels by tile ranges of
        /// every panel per task, DIA and the CSR methods by row blocks).
        fn spmv(&self, exec: Exec, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
            let isa = exec.requested_isa().unwrap_or(self.isa);
            #[cfg(feature = "parallel")]
            if exec.thread_limit() != 1 {
                let op = crate::parallel::Operands { alpha, x, beta };
                return crate::parallel::spmv_plan(self, isa, op, y, exec.thread_limit());
            }
            match &self.run {
                Run::Csr(m) => crate::level2::csr::serial_csr(&self.a, *m, isa, alpha, x, beta, y),
                Run::Csr5(c) => c.view().spmv(Exec::new().isa(isa), alpha, x, beta, y),
                Run::Csr5Panels(panels, _) => spmv_panels(panels, isa, alpha, x, beta, y),
                Run::Dia(d) => {
                    crate::level2::check_spmv(isa, self.a.nrows(), self.a.ncols(), x, y)?;
                    d.view().rows(crate::arch::Checked::new(isa)?, 0, alpha, x, beta, y);
                    Ok(())
                }
            }
        }
    }
}
