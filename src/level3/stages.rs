//! Stages 1 and 2 of the CSR-based SpGEMM framework (thesis 9.4.1–9.4.2): the upper
//! bound of every row of `C`, and the binning of rows by it.

use crate::{Csr, DimError, Index, RowOrder, Scalar};

use super::RowMethod;

/// Upper bound (candidate products) up to which a row is [`Bin::Short`].
///
/// Re-tuned for one CPU core (see the [module docs](super#bins)): up to here the dense
/// accumulator's few scattered updates beat sorting the candidates on structured
/// matrices and tie on random ones; it is also the hybrid allocation's smallest room.
pub(crate) const SHORT_MAX: usize = 32;

/// Upper bound up to which a row is [`Bin::Medium`]; above it a row is [`Bin::Long`].
/// The bitonic ESC beat the SPA up to 256 candidates and lost from 512 on
/// (`benches/records/kernel-notes-2026-11.md`, "SpGEMM bin kernels").
pub(crate) const MEDIUM_MAX: usize = 256;

/// The method of the [`Bin::Short`] rows — unless the rows of `B` they reference spread
/// over more than [`SHORT_SPA_SPAN`] columns, see [`SHORT_SPREAD_METHOD`].
pub(crate) const SHORT_METHOD: RowMethod = RowMethod::Spa;
/// The method of the [`Bin::Short`] rows when a sample of them shows the rows of `B`
/// they reference spanning more than [`SHORT_SPA_SPAN`] columns (median): then each SPA
/// update lands on a cache line of its own in a dense array as wide as `C`, while the
/// bitonic ESC sorts its few candidates in registers. On the suite's `A²` the ESC won on
/// `uniform_random` (median span 930K columns) and lost on `poisson2d` (span 4K), hence
/// the span test (`benches/records/kernel-notes-2026-11.md`, "SpGEMM bin kernels").
pub(crate) const SHORT_SPREAD_METHOD: RowMethod = RowMethod::BitonicEsc;
/// The median span (columns) of the referenced rows of `B` above which short rows take
/// [`SHORT_SPREAD_METHOD`]: 16K columns, a dense window of 128 KiB of `f64`, about one
/// core's L2 (suite spans: stencils 4K, random and power-law graphs 880K-930K).
pub(crate) const SHORT_SPA_SPAN: usize = 16 << 10;
/// Rows of `A` sampled (evenly spaced) for the short bin's span test and the prefetch
/// test ([`sample`]): the choices are one per product, so that no row pays for a test of
/// its own.
const SHORT_SAMPLE: usize = 63;
/// The method of the [`Bin::Medium`] rows — except rows whose referenced rows of `B`
/// span no more columns than the upper bound (so the products pile up on few columns:
/// stencils, bands), which take [`RowMethod::Spa`]: the sorting network sorts all `m`
/// candidates, the SPA only the distinct ones.
pub(crate) const MEDIUM_METHOD: RowMethod = RowMethod::BitonicEsc;
/// The method of the [`Bin::Long`] rows.
pub(crate) const LONG_METHOD: RowMethod = RowMethod::Spa;

/// The factor by which the owned SpGEMM (`spgemm`) grows its output arrays when a row does
/// not fit, as a fraction `(numerator, denominator)`: 3/2, so the arrays never hold more
/// than 1.5x the entries written when they last grew.
pub(crate) const GROWTH: (usize, usize) = (3, 2);

/// The bin of a row of `C` (thesis 9.4.2, which has 38 bins for a GPU's thread-group
/// sizes; one CPU core needs five). Rows are grouped by bin so that each kernel runs over
/// a batch of similar rows, and each bin is an independent chunk for a runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Bin {
    /// Upper bound 0: the row of `C` is empty; nothing to compute.
    Empty,
    /// A single product (upper bound 1), or one entry in the row of `A` with `B`
    /// [`Canonical`](RowOrder::Canonical): the row of `C` is a scaled copy of one row of
    /// `B`, already sorted; no accumulation.
    Single,
    /// Upper bound `2..=`[`Tuning::spgemm_short_max`](crate::Tuning::spgemm_short_max).
    Short,
    /// Upper bound up to [`Tuning::spgemm_medium_max`](crate::Tuning::spgemm_medium_max).
    Medium,
    /// Anything longer.
    Long,
}

/// Number of bins.
pub const NBINS: usize = 5;

impl Bin {
    /// Every bin, in order.
    pub const ALL: [Bin; NBINS] = [Bin::Empty, Bin::Single, Bin::Short, Bin::Medium, Bin::Long];

    /// The bin of a row with upper bound `ub` whose row of `A` has `a_row_len` entries,
    /// for a `B` of row order `b_order`.
    #[inline]
    pub fn of(ub: usize, a_row_len: usize, b_order: RowOrder) -> Bin {
        match ub {
            0 => Bin::Empty,
            1 => Bin::Single,
            _ if a_row_len == 1 && b_order == RowOrder::Canonical => Bin::Single,
            _ if ub <= SHORT_MAX => Bin::Short,
            _ if ub <= MEDIUM_MAX => Bin::Medium,
            _ => Bin::Long,
        }
    }

    /// Position in [`Bin::ALL`].
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// Short lower-case name.
    pub fn name(&self) -> &'static str {
        match self {
            Bin::Empty => "empty",
            Bin::Single => "single",
            Bin::Short => "short",
            Bin::Medium => "medium",
            Bin::Long => "long",
        }
    }

    /// The accumulation method the automatic rule runs on this bin's rows (`None` for
    /// [`Bin::Empty`] and [`Bin::Single`], which need none).
    pub fn method(self) -> Option<RowMethod> {
        match self {
            Bin::Empty | Bin::Single => None,
            Bin::Short => Some(SHORT_METHOD),
            Bin::Medium => Some(MEDIUM_METHOD),
            Bin::Long => Some(LONG_METHOD),
        }
    }
}

pub(crate) fn check_inner<T: Scalar, I: Index>(a: &Csr<'_, T, I>, b: &Csr<'_, T, I>) -> Result<(), DimError> {
    if a.ncols() != b.nrows() {
        return Err(DimError::Inner { left_ncols: a.ncols(), right_nrows: b.nrows() });
    }
    Ok(())
}

pub(crate) fn check_buf(buffer: &'static str, needed: usize, got: usize) -> Result<(), DimError> {
    if got < needed { Err(DimError::BufferTooSmall { buffer, needed, got }) } else { Ok(()) }
}

/// Upper bound of row `i` of `A·B`: the sum of the lengths of the rows of `B` that row
/// `i` of `A` references (thesis 9.4.1). `i < a.nrows()`, `a.ncols() == b.nrows()`.
#[inline]
pub(crate) fn row_upper_bound<T: Scalar, I: Index>(a: &Csr<'_, T, I>, b: &Csr<'_, T, I>, i: usize) -> usize {
    let bp = b.row_ptr();
    let r = a.row_range(i).unwrap_or(0..0);
    // Saturating: on a 32-bit target 64K entries times a row of 64K already overflow.
    a.col_idx()[r]
        .iter()
        .fold(0usize, |s, &k| s.saturating_add(bp[k.to_usize() + 1].to_usize() - bp[k.to_usize()].to_usize()))
}

/// [`row_upper_bound`] summed only until it reaches `limit` (then some value
/// `>= limit`): telling a short row costs no walk of a long one.
fn row_upper_bound_to<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
    i: usize,
    limit: usize,
) -> usize {
    let bp = b.row_ptr();
    let mut sum = 0usize;
    for &k in &a.col_idx()[a.row_range(i).unwrap_or(0..0)] {
        sum = sum.saturating_add(bp[k.to_usize() + 1].to_usize() - bp[k.to_usize()].to_usize());
        if sum >= limit {
            break;
        }
    }
    sum
}

/// [`row_upper_bound`] and, in the same walk, the longest row of `B` that row `i` of `A`
/// references (a lower bound of the row of `C` when `B` is canonical).
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn row_bounds<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
    i: usize,
) -> (usize, usize) {
    let bp = b.row_ptr();
    let r = a.row_range(i).unwrap_or(0..0);
    a.col_idx()[r].iter().fold((0usize, 0usize), |(s, m), &k| {
        let len = bp[k.to_usize() + 1].to_usize() - bp[k.to_usize()].to_usize();
        (s.saturating_add(len), m.max(len))
    })
}

/// What a sample of [`SHORT_SAMPLE`] evenly spaced rows of `A` says about `A·B`, read in
/// `O(SHORT_SAMPLE)` rows, so that the choices below cost no row a pass of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Sample {
    /// The method of the [`Bin::Short`] rows: [`SHORT_METHOD`], or
    /// [`SHORT_SPREAD_METHOD`] when the median [`b_span`] of the sampled short rows is
    /// above [`SHORT_SPA_SPAN`] (`B` with unsorted rows counts as spread).
    pub short: RowMethod,
    /// Whether the rows of `B` that a row of `A` references lie far apart: the median
    /// span of the sampled rows' own columns is above [`PREFETCH_SPAN`]. Then the row
    /// loops prefetch those rows ahead, and medium rows take [`MEDIUM_METHOD`] without
    /// their own span test, whose reads of far rows of `B` miss the cache and which sends
    /// rows of such products to the ESC anyway (`benches/records/kernel-notes-2026-11.md`,
    /// "SpGEMM bin kernels").
    pub spread: bool,
}

/// Rows of `B` that one row of `A` references may lie this far apart (median over a
/// sample) before the row loops prefetch them: closer ones (stencils, bands; about 2K
/// for the suite's `poisson2d`) come through the caches in order, and prefetching them
/// only adds work; far ones (`uniform_random`, `dc2_like`: spans near 1M) miss, and the
/// prefetches made the whole `A²` faster (`benches/records/kernel-notes-2026-11.md`,
/// "SpGEMM row prefetch").
pub(crate) const PREFETCH_SPAN: usize = 16 << 10;

/// The [`Sample`] of `A·B`.
pub(crate) fn sample<T: Scalar, I: Index>(a: &Csr<'_, T, I>, b: &Csr<'_, T, I>) -> Sample {
    let (nrows, ap, ac) = (a.nrows(), a.row_ptr(), a.col_idx());
    let (mut spans, mut own) = ([0usize; SHORT_SAMPLE], [0usize; SHORT_SAMPLE]);
    let (mut k, mut m) = (0, 0);
    for s in 0..SHORT_SAMPLE.min(nrows) {
        // Evenly spaced: row `s * nrows / SHORT_SAMPLE` (no overflow: `s < 64`, and
        // `nrows < I::MAX`, so in `u128` it is exact).
        let i = (s as u128 * nrows as u128 / SHORT_SAMPLE.min(nrows) as u128) as usize;
        let r = ap[i].to_usize()..ap[i + 1].to_usize();
        // A sorted row's span is its ends; only an unsorted one is scanned.
        let ends = match a.row_order() {
            RowOrder::Unsorted => (ac[r.clone()].iter().min(), ac[r.clone()].iter().max()),
            _ => (ac[r.clone()].first(), ac[r.clone()].last()),
        };
        if let (Some(lo), Some(hi)) = ends {
            own[m] = hi.to_usize() - lo.to_usize() + 1;
            m += 1;
        }
        // Only whether the row is short matters: its bound is summed no further than
        // that (a sampled row of 100K entries was a fifth of `A·Aᵀ` of a row vector).
        let ub = row_upper_bound_to(a, b, i, SHORT_MAX + 1);
        if Bin::of(ub, r.len(), b.row_order()) == Bin::Short {
            spans[k] = b_span(a, b, i);
            k += 1;
        }
    }
    let median = |v: &mut [usize]| {
        v.sort_unstable();
        v.get(v.len() / 2).copied()
    };
    Sample {
        short: match median(&mut spans[..k]) {
            Some(span) if span > SHORT_SPA_SPAN => SHORT_SPREAD_METHOD,
            _ => SHORT_METHOD,
        },
        spread: median(&mut own[..m]).is_some_and(|span| span > PREFETCH_SPAN),
    }
}

/// Columns spanned by the rows of `B` that row `i` of `A` references (largest last column
/// minus smallest first column, plus one; 0 if all are empty), read off their ends in
/// `O(nnz(row of A))`; `usize::MAX` if `B`'s rows are unsorted (unknown without a pass).
pub(crate) fn b_span<T: Scalar, I: Index>(a: &Csr<'_, T, I>, b: &Csr<'_, T, I>, i: usize) -> usize {
    if b.row_order() == RowOrder::Unsorted {
        return usize::MAX;
    }
    let (bp, bc) = (b.row_ptr(), b.col_idx());
    let (mut lo, mut hi) = (usize::MAX, 0usize);
    let r = a.row_range(i).unwrap_or(0..0);
    for &k in &a.col_idx()[r] {
        let (s, e) = (bp[k.to_usize()].to_usize(), bp[k.to_usize() + 1].to_usize());
        if s < e {
            lo = lo.min(bc[s].to_usize());
            hi = hi.max(bc[e - 1].to_usize());
        }
    }
    if lo > hi { 0 } else { hi - lo + 1 }
}

/// Stage 1 (thesis 9.4.1): the upper bound of each row of `C = A·B` into
/// `ub[..a.nrows()]`, each saturated at the largest value of `I`; returns their sum
/// `nnz(Ĉ)` (saturated at `usize::MAX`). One pass over `A`'s column indices.
///
/// # Errors
/// [`DimError::Inner`] if `a.ncols() != b.nrows()`; [`DimError::BufferTooSmall`]
/// (`"ub"`) if `ub` is shorter than `a.nrows()`. Nothing is written then.
pub fn upper_bound<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
    ub: &mut [I],
) -> Result<usize, DimError> {
    check_inner(a, b)?;
    check_buf("ub", a.nrows(), ub.len())?;
    let mut total = 0usize;
    for (i, u) in ub[..a.nrows()].iter_mut().enumerate() {
        let r = row_upper_bound(a, b, i);
        *u = I::from_usize(r.min(I::MAX_USIZE)).unwrap_or(I::MAX);
        total = total.saturating_add(r);
    }
    Ok(total)
}

/// Stage 2 (thesis 9.4.2, Alg. 35's binning): a stable counting sort of the rows by
/// [`Bin::of`] their upper bound `ub` (from [`upper_bound`]):
/// `perm[bin_ptr[k]..bin_ptr[k + 1]]` are the rows of bin `Bin::ALL[k]`, ascending.
///
/// # Errors
/// [`DimError::Inner`]; [`DimError::Length`] (`"ub"`) if `ub` is shorter than
/// `a.nrows()`; [`DimError::BufferTooSmall`] (`"perm"`). Nothing is written then.
pub fn bin_rows<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
    ub: &[I],
    perm: &mut [I],
    bin_ptr: &mut [usize; NBINS + 1],
) -> Result<(), DimError> {
    check_inner(a, b)?;
    let n = a.nrows();
    if ub.len() < n {
        return Err(DimError::Length { operand: "ub", expected: n, got: ub.len() });
    }
    check_buf("perm", n, perm.len())?;
    let order = b.row_order();
    let ap = a.row_ptr();
    let bin = |i: usize| Bin::of(ub[i].to_usize(), ap[i + 1].to_usize() - ap[i].to_usize(), order).index();
    let mut counts = [0usize; NBINS + 1];
    for i in 0..n {
        counts[bin(i) + 1] += 1;
    }
    for k in 0..NBINS {
        counts[k + 1] += counts[k];
    }
    *bin_ptr = counts;
    for i in 0..n {
        let k = bin(i);
        perm[counts[k]] = I::from_usize_unchecked(i);
        counts[k] += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec;
    use std::vec::Vec;

    /// `n x ncols` with row `i` holding columns `cols(i)` (sorted, distinct).
    fn build(n: usize, ncols: usize, cols: impl Fn(usize) -> [u32; 3]) -> (Vec<u32>, Vec<u32>, Vec<f64>) {
        let mut rp = vec![0u32];
        let mut ci = Vec::new();
        for i in 0..n {
            let mut c = cols(i).map(|c| c % ncols as u32);
            c.sort_unstable();
            ci.extend(c);
            rp.push(ci.len() as u32);
        }
        let v = vec![1.0; ci.len()];
        (rp, ci, v)
    }

    #[test]
    // Tens of thousands of rows (the spans must pass 16K): minutes under Miri, for safe
    // code only (the prefetch it drives is a no-op there).
    #[cfg_attr(miri, ignore)]
    fn sample_follows_the_spans() {
        // Wide enough that two thirds of it pass both spans (16K).
        let n = 30_000usize;
        // A band: row `i` at `i, i + 1, i + 2`: spans of 5 columns.
        let (rp, ci, v) = build(n, n, |i| [i as u32, i as u32 + 1, i as u32 + 2]);
        let band = Csr::<f64, u32>::new(n, n, &rp, &ci, &v).unwrap();
        assert_eq!(sample(&band, &band), Sample { short: SHORT_METHOD, spread: false });
        // Spread: columns a third of the matrix apart, so every short row spans 2/3 of it.
        let third = (n / 3) as u32;
        let (rp, ci, v) = build(n, n, |i| [i as u32, i as u32 + third, i as u32 + 2 * third]);
        let spread = Csr::<f64, u32>::new(n, n, &rp, &ci, &v).unwrap();
        assert_eq!(sample(&spread, &spread), Sample { short: SHORT_SPREAD_METHOD, spread: true });
        // No short rows sampled (an empty matrix): the default.
        let empty = Csr::<f64, u32>::new(0, 0, &[0], &[], &[]).unwrap();
        assert_eq!(sample(&empty, &empty), Sample { short: SHORT_METHOD, spread: false });
    }

    #[test]
    fn bounded_upper_bound_stops_at_its_limit() {
        // Row 0 references the rows of `B` holding 3 entries each (nine products); row 1
        // references nothing.
        let (rp, ci, v) = build(4, 4, |i| [i as u32, i as u32 + 1, i as u32 + 2]);
        let b = Csr::<f64, u32>::new(4, 4, &rp, &ci, &v).unwrap();
        let a = Csr::<f64, u32>::new(2, 4, &[0, 3, 3], &[0, 1, 2], &[1.0; 3]).unwrap();
        assert_eq!(row_upper_bound(&a, &b, 0), 9);
        assert_eq!(row_upper_bound_to(&a, &b, 0, 100), 9);
        assert_eq!(row_upper_bound_to(&a, &b, 0, 4), 6);
        assert_eq!(row_upper_bound_to(&a, &b, 0, 1), 3);
        assert_eq!(row_upper_bound_to(&a, &b, 1, 1), 0);
    }
}
