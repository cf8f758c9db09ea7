//! Stage 3 of the CSR-based SpGEMM (thesis 9.4.2): the row kernels, numeric (indices
//! and values) and symbolic (indices only), one per accumulation method.

use crate::arch::generic::esc::{ESC_REG_COLS, ESC_REG_MAX, EscBuf, has_esc_row};
use crate::arch::{Checked, prefetch};
use crate::level1::{esc_in_place, heap_fuse_in_place, merge_scaled_slices, words_out};
use crate::primitives::Key;
use crate::primitives::heap::DHeap;
use crate::primitives::scan::ScanElem;
use crate::primitives::sort::bitonic_sort;
use crate::{Csr, Exec, Index, RowOrder, Scalar};

/// How a row of `C = A·B` accumulates its candidate products `a_ik * b_kj` (thesis
/// 9.4.2; the methods are chapter 7's sparse vector additions, widened from two inputs
/// to all the rows of `B` that the row of `A` references). Every method gives the same
/// column indices; values agree up to the order of the floating-point additions (exact
/// where the sums are, e.g. small integers).
///
/// | method | thesis | cost per row (`m` = upper bound, `n` = `b.ncols()`) | scratch |
/// |---|---|---|---|
/// | [`Heap`](RowMethod::Heap) | 7.4.1 | `O(m log m)` | `m` pairs |
/// | [`BitonicEsc`](RowMethod::BitonicEsc) | 7.4.2, 9.4.2 | `O(m log² m)`, SIMD | `m` pairs + `m / 32` words |
/// | [`Merge`](RowMethod::Merge) | 7.4.3, 9.4.2 | `O(m · nnz(row of A))` | `2 m` pairs |
/// | [`Spa`](RowMethod::Spa) | 7.3, Alg. 27 | `O(m + min(span / 64, k log² k))` | `n` values + `n / 64` words |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RowMethod {
    /// Expand all `m` products into scratch, heapify them (a d-heap of SIMD arity) and
    /// drain it, fusing equal columns (thesis 7.4.1; `level1`'s heap core).
    Heap,
    /// Expand, bitonic sort of the `(column, value)` pairs on the chosen
    /// [`Isa`](crate::Isa), compress by segmented sum and scan (thesis 7.4.2 and the ESC
    /// of 9.4.2; `level1`'s ESC core). On [`Isa::Avx512`](crate::Isa::Avx512) a row of at
    /// most 32 candidates (and `B` of at most `2^27 - 1` columns) never leaves the
    /// registers: its columns become 32-bit keys `column << 5 | slot`, sorted by a
    /// 15-step network over two `zmm`, the values fetched by slot, equal columns summed by
    /// a shift-and-masked-add scan and compressed out (`vpcompress`), faster than the
    /// in-memory network on the suite's `A²` (`benches/records/kernel-notes-2026-11.md`,
    /// "SpGEMM row kernels"). Elsewhere rows of at most
    /// [`Tuning::esc_insertion_max`](crate::Tuning::esc_insertion_max) candidates are
    /// sorted by insertion, which costs less than the network's fixed stages there.
    BitonicEsc,
    /// Add the scaled rows of `B` into the result one after the other with the
    /// branch-free merge of 7.4.3 (the merge method of 9.4.2, serially). Needs `B`
    /// [`Canonical`](crate::RowOrder::Canonical).
    Merge,
    /// Dense accumulator (sparse accumulator, 7.3): a value per column of `C` plus a bit
    /// per column marking the occupied ones; the first touch of a column records it. The
    /// row comes out in order by scanning the marker words between the smallest and the
    /// largest column touched, or, when that span is more than
    /// [`Tuning::spa_sort_ratio`](crate::Tuning::spa_sort_ratio) words per distinct column, by sorting the `k` recorded columns
    /// (by insertion up to [`Tuning::spa_insertion_max`](crate::Tuning::spa_insertion_max), by the bitonic network on the chosen
    /// `Isa` beyond) — so a short row in a wide matrix does not pay for
    /// the width. A row of a canonical `B` whose columns are consecutive (bands, dense
    /// blocks; at least 8 of them) is added as one run: marker bits a word at a time,
    /// values by one loop over consecutive slots, faster than per product on bands and
    /// blocks (`benches/records/kernel-notes-2026-11.md`, "SpGEMM row kernels"). A row
    /// whose products (by `B`'s mean row length) reach every column, a circuit's rail,
    /// starts its dense row at `-0.0` and adds each product without the first-touch
    /// branch. Rows of `A` and `B` may be in any order.
    Spa,
}

/// [`RowMethod::Spa`] sorts its recorded columns instead of scanning the marker words when
/// the span covers more than this many words per distinct column.
pub(crate) const SPA_SORT_RATIO: usize = 1;

impl RowMethod {
    /// Every method.
    pub const ALL: [RowMethod; 4] =
        [RowMethod::Heap, RowMethod::BitonicEsc, RowMethod::Merge, RowMethod::Spa];

    /// Short lower-case name.
    pub fn name(&self) -> &'static str {
        match self {
            RowMethod::Heap => "heap",
            RowMethod::BitonicEsc => "bitonic_esc",
            RowMethod::Merge => "merge",
            RowMethod::Spa => "spa",
        }
    }
}

/// What runs on one row: nothing, a copy, or an accumulation method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kernel {
    Empty,
    Copy,
    Acc(RowMethod),
}

/// The operands and the checked `Isa` every row kernel reads.
#[derive(Clone, Copy)]
pub(crate) struct Ctx<'c, 'm, T, I> {
    pub a: &'c Csr<'m, T, I>,
    pub b: &'c Csr<'m, T, I>,
    pub isa: Checked,
}

impl<'c, 'm, T: Scalar, I: Index> Ctx<'c, 'm, T, I> {
    #[inline(always)]
    fn b_row(&self, k: I) -> (&'m [I], &'m [T]) {
        self.b_row_at(k.to_usize())
    }

    /// Row `k` of `B` (`k` a column index of a validated `A`, so below `b.nrows()`).
    #[inline(always)]
    pub(crate) fn b_row_at(&self, k: usize) -> (&'m [I], &'m [T]) {
        let bp = self.b.row_ptr();
        let r = bp[k].to_usize()..bp[k + 1].to_usize();
        (&self.b.col_idx()[r.clone()], &self.b.vals()[r])
    }

    /// Row `i` of `A` (empty past the end).
    #[inline(always)]
    pub(crate) fn a_row(&self, i: usize) -> (&'m [I], &'m [T]) {
        self.a.row(i).unwrap_or((&[], &[]))
    }

    /// [`prefetch_b_rows`] for this product.
    #[inline(always)]
    pub(crate) fn prefetch(&self, near: usize, far: usize) {
        prefetch_b_rows(self.a, self.b, near, far);
    }

    /// Every candidate product of row `i`, in expansion order.
    #[inline(always)]
    fn for_each_product(&self, i: usize, mut f: impl FnMut(I, T)) {
        let (ac, av) = self.a_row(i);
        for (&k, &a) in ac.iter().zip(av) {
            let (bc, bv) = self.b_row(k);
            for (&j, &b) in bc.iter().zip(bv) {
                f(j, a * b);
            }
        }
    }

    /// Expand (the E of ESC): the products of row `i` into `oi`/`ov` (at least the upper
    /// bound long); returns how many.
    fn expand(&self, i: usize, oi: &mut [I], ov: &mut [T]) -> usize {
        let (ac, av) = self.a_row(i);
        let mut o = 0;
        for (&k, &a) in ac.iter().zip(av) {
            let (bc, bv) = self.b_row(k);
            let n = bc.len();
            oi[o..o + n].copy_from_slice(bc);
            for (d, &b) in ov[o..o + n].iter_mut().zip(bv) {
                *d = a * b;
            }
            o += n;
        }
        o
    }

    fn expand_keys(&self, i: usize, oi: &mut [I]) -> usize {
        let (ac, _) = self.a_row(i);
        let mut o = 0;
        for &k in ac {
            let (bc, _) = self.b_row(k);
            oi[o..o + bc.len()].copy_from_slice(bc);
            o += bc.len();
        }
        o
    }
}

/// The scratch every row kernel may use, carved from the caller's workspace.
pub(crate) struct Scratch<'w, T, I> {
    /// Expansion / merge buffers (`idx` and `vals` of equal length).
    pub si: &'w mut [I],
    pub sv: &'w mut [T],
    /// ESC head flags and offsets.
    pub esc: &'w mut [u64],
    /// SPA marker bits (all zero between rows) and dense values.
    pub bits: &'w mut [u64],
    pub dense: &'w mut [T],
    /// The register ESC's row and result.
    pub reg: &'w mut EscBuf<T>,
}

/// Numeric row `i` into `di`/`dv` (equal lengths, the row's room). With `exact`, the row
/// must fill its room exactly. Returns the row's length, or `Err(len)` if it does not fit
/// (or, with `exact`, differs); `di`/`dv` are unspecified then.
pub(crate) fn numeric_row<T: Scalar + ScanElem, I: Index + Key>(
    ctx: &Ctx<'_, '_, T, I>,
    kernel: Kernel,
    i: usize,
    di: &mut [I],
    dv: &mut [T],
    s: &mut Scratch<'_, T, I>,
    exact: bool,
) -> Result<usize, usize> {
    let room = di.len();
    let check = |n: usize| if n > room || (exact && n != room) { Err(n) } else { Ok(n) };
    match kernel {
        Kernel::Empty => check(0),
        Kernel::Copy => {
            // A single product, or a single row of a canonical `B`: the products are the
            // row, in order, without duplicates.
            let mut o = 0;
            ctx.for_each_product(i, |j, v| {
                if o < room {
                    di[o] = j;
                    dv[o] = v;
                }
                o += 1;
            });
            check(o)
        }
        Kernel::Acc(RowMethod::Spa) => spa_numeric(ctx, i, di, dv, s, exact),
        Kernel::Acc(RowMethod::Merge) => {
            let n = merge_row(ctx, i, s);
            check(n)?;
            di[..n].copy_from_slice(&s.si[..n]);
            dv[..n].copy_from_slice(&s.sv[..n]);
            Ok(n)
        }
        Kernel::Acc(method) => {
            let m = super::stages::row_upper_bound(ctx.a, ctx.b, i);
            if method == RowMethod::BitonicEsc
                && m <= ESC_REG_MAX
                && let Some(n) = esc_short(ctx, i, s.reg)
            {
                check(n)?;
                for (d, &c) in di.iter_mut().zip(&s.reg.cols[..n]) {
                    *d = I::from_usize_unchecked(c as usize);
                }
                dv[..n].copy_from_slice(&s.reg.vals[..n]);
                return Ok(n);
            }
            // In the row's own room when it holds every candidate (the hybrid
            // allocation's short rows), else in scratch and copied.
            let in_place = room >= m;
            let (oi, ov) =
                if in_place { (&mut di[..m], &mut dv[..m]) } else { (&mut s.si[..m], &mut s.sv[..m]) };
            ctx.expand(i, oi, ov);
            let n = if method == RowMethod::Heap {
                heap_fuse_in_place(ctx.isa, oi, ov)
            } else if m <= ESC_INSERTION_MAX {
                esc_insertion(oi, ov)
            } else {
                esc_in_place(ctx.isa, oi, ov, s.esc)
            };
            check(n)?;
            if !in_place {
                di[..n].copy_from_slice(&s.si[..n]);
                dv[..n].copy_from_slice(&s.sv[..n]);
            }
            Ok(n)
        }
    }
}

/// [`RowMethod::BitonicEsc`] on a short row in registers (`arch::generic::esc`): the
/// row's candidates expanded into `buf.row` (the caller's, reused: lanes past the row's
/// own are ignored, so it needs no clearing), then sorted, compressed and summed on the
/// context's `Isa`, the row's columns and sums left at the front of `buf.cols`/`buf.vals`. Returns
/// the row's length; `None` (the caller runs another method) where the `Isa` has no
/// register ESC, the row has more than [`ESC_REG_MAX`] candidates, or `B` has more than
/// [`ESC_REG_COLS`] columns — each known before anything is expanded but the count.
#[inline]
pub(crate) fn esc_short<T: Scalar, I: Index>(
    ctx: &Ctx<'_, '_, T, I>,
    i: usize,
    buf: &mut EscBuf<T>,
) -> Option<usize> {
    if !has_esc_row(ctx.isa) || ctx.b.ncols() > ESC_REG_COLS {
        return None;
    }
    let (ac, av) = ctx.a_row(i);
    let row = &mut buf.row;
    let mut slots = row.cols.iter_mut().zip(row.vals.iter_mut());
    let mut n = 0;
    for (&kb, &x) in ac.iter().zip(av) {
        let (bc, bv) = ctx.b_row(kb);
        for (&j, &y) in bc.iter().zip(bv) {
            let (c, v) = slots.next()?;
            // Below `ESC_REG_COLS` (checked above), so the cast keeps it.
            *c = j.to_usize() as u32;
            *v = x * y;
            n += 1;
        }
    }
    row.n = n;
    // A canonical row of `B` holds a column once, so a column occurs at most once per
    // entry of the row of `A`.
    let max_run = if ctx.b.row_order() == RowOrder::Canonical { ac.len() } else { ESC_REG_MAX };
    buf.run(ctx.isa, max_run)
}

/// [`RowMethod::Merge`] on row `i` in the two halves of the scratch; the result is left
/// in `s.si[..n]`/`s.sv[..n]`. `B` is canonical (checked at the border).
fn merge_row<T: Scalar, I: Index + Key>(
    ctx: &Ctx<'_, '_, T, I>,
    i: usize,
    s: &mut Scratch<'_, T, I>,
) -> usize {
    let m = super::stages::row_upper_bound(ctx.a, ctx.b, i);
    let (ac, av) = ctx.a_row(i);
    let (p_i, q_i) = s.si[..2 * m].split_at_mut(m);
    let (p_v, q_v) = s.sv[..2 * m].split_at_mut(m);
    // The running sum lives in `cur`; each step merges it with the next scaled row of B
    // into `next`, then they swap.
    let (mut cur_i, mut cur_v, mut next_i, mut next_v) = (p_i, p_v, q_i, q_v);
    let (mut len, mut steps) = (0, 0usize);
    for (&k, &a) in ac.iter().zip(av) {
        let (bc, bv) = ctx.b_row(k);
        len = merge_scaled_slices(ctx.isa, T::ONE, &cur_i[..len], &cur_v[..len], a, bc, bv, next_i, next_v);
        core::mem::swap(&mut cur_i, &mut next_i);
        core::mem::swap(&mut cur_v, &mut next_v);
        steps += 1;
    }
    // After an odd number of steps the result is in the second half.
    if steps % 2 == 1 && len > 0 {
        s.si.copy_within(m..m + len, 0);
        s.sv.copy_within(m..m + len, 0);
    }
    len
}

/// Clears the marker bits row `i` set: word by word over the span, or bit by bit along
/// the products when those are fewer.
fn spa_clear<T: Scalar, I: Index>(ctx: &Ctx<'_, '_, T, I>, i: usize, bits: &mut [u64], lo: usize, hi: usize) {
    if lo > hi {
        return;
    }
    let (w0, w1) = (lo / 64, hi / 64);
    if w1 - w0 < super::stages::row_upper_bound(ctx.a, ctx.b, i) {
        bits[w0..=w1].fill(0);
    } else {
        ctx.for_each_product(i, |j, _| bits[j.to_usize() / 64] = 0);
    }
}

/// Prefetches for the row loops of `A·B`, typically [`PREFETCH_ROWS`] rows ahead: the
/// rows of `B` that row `near` of `A` references (the first lines of their `col_idx` and
/// `vals`; their `row_ptr` entries were asked for one step before), and the `row_ptr`
/// entries of `B` that row `far` references. Rows out of range ask for nothing.
#[inline(always)]
pub(crate) fn prefetch_b_rows<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
    near: usize,
    far: usize,
) {
    let (ac, bp) = (a.col_idx(), b.row_ptr());
    for &k in a.row_range(near).map_or(&[][..], |r| &ac[r]) {
        let start = bp.get(k.to_usize()).map_or(usize::MAX, |s| s.to_usize());
        prefetch(b.col_idx(), start);
        prefetch(b.vals(), start);
    }
    for &k in a.row_range(far).map_or(&[][..], |r| &ac[r]) {
        prefetch(bp, k.to_usize());
    }
}

/// How many rows ahead of the row being computed the row loops prefetch the rows of `B`
/// it will read (and twice as far ahead their `row_ptr` entries): rows of `B` that a
/// random or power-law `A` references are cache misses one after the other, which the
/// prefetches overlap.
pub(crate) const PREFETCH_ROWS: usize = 8;

/// A row of `B` at least this long whose columns are consecutive (a band, a dense block)
/// goes into the SPA as one run: its marker bits set a word at a time and its values
/// added by one loop over consecutive slots, with no test per product.
const SPA_RUN_MIN: usize = 8;

/// The first column of the row `bc` of a canonical `B` if it is a run of at least
/// [`SPA_RUN_MIN`] consecutive columns.
#[inline(always)]
fn run_start<I: Index>(canonical: bool, bc: &[I]) -> Option<usize> {
    match (bc.first(), bc.last()) {
        (Some(f), Some(l))
            if canonical && bc.len() >= SPA_RUN_MIN && l.to_usize() - f.to_usize() == bc.len() - 1 =>
        {
            Some(f.to_usize())
        }
        _ => None,
    }
}

/// Sets the marker bits of columns `j0..j0 + len` a word at a time, calling `fresh(j)`
/// for each column not marked before, in ascending order.
#[inline(always)]
fn mark_run(bits: &mut [u64], j0: usize, len: usize, mut fresh: impl FnMut(usize)) {
    let end = j0 + len;
    let mut j = j0;
    while j < end {
        let w = j / 64;
        let upto = end.min((w + 1) * 64);
        let n = upto - j;
        let m = if n == 64 { u64::MAX } else { ((1u64 << n) - 1) << (j % 64) };
        let mut new = m & !bits[w];
        bits[w] |= m;
        while new != 0 {
            fresh(w * 64 + new.trailing_zeros() as usize);
            new &= new - 1;
        }
        j = upto;
    }
}

/// Whether the SPA should sort its `k` recorded columns rather than scan `words` marker
/// words.
#[inline]
fn spa_sorts(k: usize, words: usize) -> bool {
    words > k.saturating_mul(SPA_SORT_RATIO)
}

/// [`RowMethod::Spa`] on a row whose `room` (`di.len() == dv.len()`) is at least its
/// distinct columns (the hybrid's short rows, room `min(ub, ncols)`): no run detection,
/// no span bookkeeping, the recorded columns sorted by insertion (at most
/// [`SPA_INSERTION_MAX`], else by the bitonic network). Returns the row's length; a row
/// with more distinct columns than `room` (not reached from the hybrid) keeps only the
/// first `room` recorded ones and clears its marker bits.
#[cfg(feature = "alloc")]
pub(crate) fn spa_short<T: Scalar, I: Index + Key>(
    ctx: &Ctx<'_, '_, T, I>,
    i: usize,
    di: &mut [I],
    dv: &mut [T],
    bits: &mut [u64],
    dense: &mut [T],
) -> usize {
    let room = di.len().min(dv.len());
    let mut k = 0usize;
    let (ac, av) = ctx.a_row(i);
    for (&kb, &x) in ac.iter().zip(av) {
        let (bc, bv) = ctx.b_row(kb);
        for (&j, &y) in bc.iter().zip(bv) {
            let (j, v) = (j.to_usize(), x * y);
            let (w, bit) = (j / 64, 1u64 << (j % 64));
            let word = bits[w];
            if word & bit != 0 {
                dense[j] += v;
            } else {
                bits[w] = word | bit;
                dense[j] = v;
                if k < room {
                    di[k] = I::from_usize_unchecked(j);
                }
                k += 1;
            }
        }
    }
    let (over, k) = (k > room, k.min(room));
    spa_sorted_out(ctx.isa, &mut di[..k], dv, bits, dense);
    if over {
        // Columns past the room (none from the hybrid) still hold marker bits.
        ctx.for_each_product(i, |j, _| bits[j.to_usize() / 64] = 0);
    }
    k
}

fn spa_numeric<T: Scalar, I: Index + Key>(
    ctx: &Ctx<'_, '_, T, I>,
    i: usize,
    di: &mut [I],
    dv: &mut [T],
    s: &mut Scratch<'_, T, I>,
    exact: bool,
) -> Result<usize, usize> {
    let room = di.len();
    let (bits, dense) = (&mut *s.bits, &mut *s.dense);
    let (ac, av) = ctx.a_row(i);
    let (b, ncols) = (ctx.b, ctx.b.ncols());
    if ac.len().saturating_mul(b.nnz().div_ceil(b.nrows().max(1))) >= ncols
        && let (Some(bw), Some(dw)) = (bits.get_mut(..ncols.div_ceil(64)), dense.get_mut(..ncols))
    {
        return spa_dense(ctx, i, di, dv, bw, dw, exact);
    }
    let (mut lo, mut hi, mut k) = (usize::MAX, 0usize, 0usize);
    let canonical = ctx.b.row_order() == RowOrder::Canonical;
    for (&kb, &x) in ac.iter().zip(av) {
        let (bc, bv) = ctx.b_row(kb);
        if let Some(j0) = run_start(canonical, bc) {
            // A fresh column starts from `-0.0`, the identity of `+` (so `-0.0` products
            // stay `-0.0`, as the first touch below stores them).
            mark_run(bits, j0, bc.len(), |j| {
                dense[j] = -T::ZERO;
                if k < room {
                    di[k] = I::from_usize_unchecked(j);
                }
                k += 1;
            });
            lo = lo.min(j0);
            hi = hi.max(j0 + bc.len() - 1);
            for (d, &y) in dense[j0..j0 + bc.len()].iter_mut().zip(bv) {
                *d += x * y;
            }
            continue;
        }
        for (&j, &y) in bc.iter().zip(bv) {
            let (j, v) = (j.to_usize(), x * y);
            let (w, bit) = (j / 64, 1u64 << (j % 64));
            if bits[w] & bit != 0 {
                dense[j] += v;
            } else {
                bits[w] |= bit;
                dense[j] = v;
                if k < room {
                    di[k] = I::from_usize_unchecked(j);
                }
                k += 1;
                lo = lo.min(j);
                hi = hi.max(j);
            }
        }
    }
    if k > room || (exact && k != room) {
        spa_clear(ctx, i, bits, lo, hi);
        return Err(k);
    }
    if k == 0 {
        return Ok(0);
    }
    let (w0, w1) = (lo / 64, hi / 64);
    if spa_sorts(k, w1 - w0 + 1) {
        spa_sorted_out(ctx.isa, &mut di[..k], dv, bits, dense);
    } else {
        words_out(&mut bits[w0..=w1], w0 * 64, di, dv, dense);
    }
    Ok(k)
}

/// [`RowMethod::Spa`] on a row expected to touch every column of `C` (its products, by
/// `B`'s mean row length, at least `ncols`: a dense rail of a circuit matrix): the dense
/// row set to `-0.0` first, the identity of `+`, so that each product is one
/// unconditional add and marker bit (the sums equal the SPA's, bit for bit), the row read
/// out by the marker words, instead of a first-touch test on every product: a few
/// percent on `dc2_like` (`benches/records/peers-spgemm-reuse-*.md`). `bits` holds the
/// marker words of the `dense.len()` columns.
fn spa_dense<T: Scalar, I: Index>(
    ctx: &Ctx<'_, '_, T, I>,
    i: usize,
    di: &mut [I],
    dv: &mut [T],
    bits: &mut [u64],
    dense: &mut [T],
    exact: bool,
) -> Result<usize, usize> {
    dense.fill(-T::ZERO);
    ctx.for_each_product(i, |j, v| {
        let j = j.to_usize();
        bits[j / 64] |= 1u64 << (j % 64);
        dense[j] += v;
    });
    let k = bits.iter().map(|w| w.count_ones() as usize).sum::<usize>();
    if k > di.len() || (exact && k != di.len()) {
        bits.fill(0);
        return Err(k);
    }
    words_out(bits, 0, di, dv, dense);
    Ok(k)
}

/// Exact length of row `i` of `C` (the symbolic phase), with the index-only form of
/// `kernel`: the heap and ESC sort the expanded column indices and count the distinct
/// ones; the SPA (and the merge, whose count is the SPA's) counts first touches of its
/// marker bits.
pub(crate) fn symbolic_row<T: Scalar, I: Index + Key>(
    ctx: &Ctx<'_, '_, T, I>,
    kernel: Kernel,
    i: usize,
    si: &mut [I],
    bits: &mut [u64],
) -> usize {
    match kernel {
        Kernel::Empty => 0,
        // One product, or one canonical row of `B`: every product is distinct.
        Kernel::Copy => super::stages::row_upper_bound(ctx.a, ctx.b, i),
        Kernel::Acc(RowMethod::Heap | RowMethod::BitonicEsc) => {
            let m = ctx.expand_keys(i, si);
            let keys = &mut si[..m];
            let sorted: &[I] = if kernel == Kernel::Acc(RowMethod::Heap) {
                match DHeap::<I>::from_slice(Exec::from(ctx.isa), keys) {
                    Ok(h) => h.into_sorted(),
                    // Not reached: the `Isa` is checked.
                    Err(_) => return 0,
                }
            } else if m <= ESC_INSERTION_MAX {
                insertion_sort(keys);
                keys
            } else {
                let _ = bitonic_sort(Exec::from(ctx.isa), keys);
                keys
            };
            usize::from(!sorted.is_empty()) + sorted.windows(2).filter(|w| w[0] != w[1]).count()
        }
        Kernel::Acc(_) => {
            let (mut lo, mut hi, mut k) = (usize::MAX, 0usize, 0usize);
            let canonical = ctx.b.row_order() == RowOrder::Canonical;
            for &kb in ctx.a_row(i).0 {
                let bc = ctx.b_row(kb).0;
                if let Some(j0) = run_start(canonical, bc) {
                    mark_run(bits, j0, bc.len(), |_| k += 1);
                    lo = lo.min(j0);
                    hi = hi.max(j0 + bc.len() - 1);
                    continue;
                }
                for &j in bc {
                    let j = j.to_usize();
                    let (w, bit) = (j / 64, 1u64 << (j % 64));
                    if bits[w] & bit == 0 {
                        bits[w] |= bit;
                        k += 1;
                        lo = lo.min(j);
                        hi = hi.max(j);
                    }
                }
            }
            spa_clear(ctx, i, bits, lo, hi);
            k
        }
    }
}

/// The SPA's way out by sorting: sorts the recorded columns `cols` (by insertion up to
/// [`SPA_INSERTION_MAX`], else by the bitonic network on `isa`), writes their values from
/// `dense` into `dv` in that order and clears their marker words.
fn spa_sorted_out<T: Scalar, I: Index + Key>(
    isa: Checked,
    cols: &mut [I],
    dv: &mut [T],
    bits: &mut [u64],
    dense: &[T],
) {
    if cols.len() <= SPA_INSERTION_MAX {
        insertion_sort(cols);
    } else {
        // Cannot fail: the `Isa` is checked.
        let _ = bitonic_sort(Exec::from(isa), cols);
    }
    for (c, v) in cols.iter().zip(dv.iter_mut()) {
        let j = c.to_usize();
        *v = dense[j];
        bits[j / 64] = 0;
    }
}

/// The SPA sorts up to this many recorded columns by insertion: they come in as runs
/// of sorted rows of `B`, few places apart, where the bitonic network's fixed stages cost
/// more (`benches/records/kernel-notes-2026-11.md`, "SpGEMM row kernels").
pub(crate) const SPA_INSERTION_MAX: usize = 32;

/// [`RowMethod::BitonicEsc`] sorts rows of up to this many candidates by insertion
/// instead of the bitonic network where the register ESC does not run (widths other
/// than AVX-512, or `B` too wide): the network's fixed stages, head flags, segmented
/// sum and scan cost more than an insertion sort of a few pairs
/// (`benches/records/kernel-notes-2026-11.md`, "SpGEMM row kernels").
pub(crate) const ESC_INSERTION_MAX: usize = 32;

/// The ESC of a short row by insertion: sorts the pairs `oi`/`ov` by column (stable, so
/// equal columns keep their expansion order) and sums equal columns into the first of
/// each run, in place. Returns the number of distinct columns, left at the front.
fn esc_insertion<T: Scalar, I: Index>(oi: &mut [I], ov: &mut [T]) -> usize {
    let m = oi.len().min(ov.len());
    for i in 1..m {
        let (c, v) = (oi[i], ov[i]);
        let mut j = i;
        while j > 0 && oi[j - 1] > c {
            oi[j] = oi[j - 1];
            ov[j] = ov[j - 1];
            j -= 1;
        }
        oi[j] = c;
        ov[j] = v;
    }
    let mut n = 0;
    for k in 0..m {
        if n > 0 && oi[n - 1] == oi[k] {
            ov[n - 1] += ov[k];
        } else {
            oi[n] = oi[k];
            ov[n] = ov[k];
            n += 1;
        }
    }
    n
}

/// Sorts `v` ascending by insertion (for [`SPA_INSERTION_MAX`] entries at most).
fn insertion_sort<I: Index>(v: &mut [I]) {
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1] > x {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}
