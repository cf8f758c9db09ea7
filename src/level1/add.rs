//! Sparse vector + sparse vector addition (thesis chapter 7): the sparse accumulator
//! (7.3, Alg. 27), the heap method (7.4.1), the bitonic ESC method (7.4.2) and the merge
//! method (7.4.3), into caller buffers, and the rule that picks one ([`AddMethod::choose`]).

use crate::arch::Checked;
use crate::arch::generic::esc::{ESC_REG_COLS, ESC_REG_MAX, EscBuf, has_esc_row};
use crate::primitives::Key;
use crate::primitives::heap::{DHeapPairs, Max};
use crate::primitives::merge::merge_path_partition;
use crate::primitives::scan::{ScanElem, exclusive_scan};
use crate::primitives::segmented::{HeadFlags, segmented_sum};
use crate::primitives::sort::bitonic_sort_pairs;
use crate::scalar::pick;
use crate::{DimError, Exec, Index, Isa, Scalar};

use super::{AddRule, SpVec};

/// How [`add`] combines two sparse vectors (thesis chapter 7). Every method gives the
/// same indices and the same values, bit for bit (each output value is one addition, or
/// a copy); they differ in speed and workspace only.
///
/// | method | thesis | cost (`m = nnz(x) + nnz(y)`, `n` = dimension) | workspace |
/// |---|---|---|---|
/// | [`Spa`](AddMethod::Spa) | 7.3, Alg. 27 | `O(m + span / 64)` | `n` values + `n / 64` words |
/// | [`Heap`](AddMethod::Heap) | 7.4.1, Fig. 7.1 | `O(m log m)` | none (the heap lives in the output) |
/// | [`BitonicEsc`](AddMethod::BitonicEsc) | 7.4.2, Fig. 7.2 | `O(m log² m)` | `2 m / 64` words |
/// | [`Merge`](AddMethod::Merge) | 7.4.3, Fig. 7.3 | `O(m)` | none |
///
/// ([`add_workspace_len`] gives the exact workspace in values of `T`; `span` is the
/// distance between the smallest and the largest index present.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AddMethod {
    /// Sparse accumulator (7.3, Alg. 27): the entries of `x`, then of `y`, are
    /// accumulated into a dense scratch of length `n`, with a bit per position marking
    /// which are occupied (so explicit zeros survive — the thesis drops zero sums); the
    /// marked positions are read back in order, 64 at a time. Only the marker words
    /// between the smallest and the largest index are cleared and scanned, so the cost
    /// is `O(m + span / 64)`, not the thesis's `O(n)`. Scalar on every [`Isa`].
    Spa,
    /// Heap method (7.4.1): all `m` candidate entries go into an implicit d-heap
    /// ([`DHeapPairs`], arity the SIMD width of the `Isa`, child search in SIMD) built in
    /// place in the output buffers; a heapsort-like drain
    /// ([`DHeapPairs::into_sorted_fused`]) fuses each popped entry into the head of the
    /// sorted, duplicate-free sequence at the tail of the buffer when their indices are
    /// equal, and the sequence is then moved to the front.
    Heap,
    /// Bitonic ESC (7.4.2): expand — concatenate both inputs in the output buffers; sort
    /// by index with the bitonic network ([`bitonic_sort_pairs`]); compress — head
    /// flags where the index changes, a segmented sum ([`segmented_sum`]) leaves each
    /// index's total at its head, and an exclusive all-scan ([`exclusive_scan`]) of
    /// the heads per 64-entry block gives every block its output offset, so blocks compact
    /// independently. SIMD on every step.
    BitonicEsc,
    /// Merge (7.4.3): one pass over both sorted lists, fusing equal indices, written
    /// branch-free. Above [`Tuning::add_merge_piece`](crate::Tuning::add_merge_piece)
    /// outputs the merge is cut by merge path
    /// ([`add_merge_partition`], Alg. 18) into independent pieces ([`add_merge_piece`]),
    /// which the serial driver runs in order; a runtime can run them in parallel.
    Merge,
}

impl AddMethod {
    /// Every method, in the order of the thesis.
    pub const ALL: [AddMethod; 4] =
        [AddMethod::Spa, AddMethod::Heap, AddMethod::BitonicEsc, AddMethod::Merge];

    /// Short lower-case name (`"spa"`, `"heap"`, `"bitonic_esc"`, `"merge"`).
    pub fn name(&self) -> &'static str {
        match self {
            AddMethod::Spa => "spa",
            AddMethod::Heap => "heap",
            AddMethod::BitonicEsc => "bitonic_esc",
            AddMethod::Merge => "merge",
        }
    }

    /// The method [`add`] should use on `isa` for inputs with `nnz_x` and `nnz_y`
    /// entries in dimension `n`: [`AddRule::DEFAULT`]'s choice, by the output's upper
    /// bound `m = nnz_x + nnz_y` (as the thesis bins SpGEMM rows, Alg. 35) and the size
    /// of the SPA's dense scratch:
    ///
    /// - [`Spa`](AddMethod::Spa) if `n <= 64`, or if `n <= 4 m` and `n <= 2^19`: a
    ///   small space, or a dense output, where one pass over the marker words costs less
    ///   than the merge's step per entry;
    /// - [`BitonicEsc`](AddMethod::BitonicEsc) if `16 <= m <= 32`, `n >= 4 m` and the
    ///   sort runs in registers on `isa` (AVX-512): short vectors in a large space, where
    ///   the branch-free network beats the merge's dependent steps;
    /// - [`Merge`](AddMethod::Merge) otherwise.
    ///
    /// The heap method, the thesis's choice for short rows on a GPU (where a thread
    /// group runs it in scratchpad memory), loses everywhere on one CPU core (`O(m log m)`
    /// against the `O(m)` merge). It stays available to force (and for other machines).
    /// Why: the [module docs](super#choosing-the-addition-method); the numbers:
    /// `benches/records/kernel-notes-2026-11.md`, "Sparse vector addition methods". The
    /// crossovers move between machines, and [`AddRule::tune`] (feature `std`) fits them
    /// to this one.
    pub fn choose(isa: Isa, nnz_x: usize, nnz_y: usize, n: usize) -> AddMethod {
        AddRule::DEFAULT.choose(isa, nnz_x, nnz_y, n)
    }
}

/// Output length above which [`AddMethod::Merge`] is cut into merge path pieces of about
/// this many candidate entries (one binary search per piece; each piece's working set
/// stays in L2).
pub(crate) const MERGE_PIECE: usize = 1 << 16;

/// The most pieces the serial [`AddMethod::Merge`] driver cuts a merge into.
const MAX_PIECES: usize = 64;

/// `T` values whose bytes hold `words` aligned `u64` words, wherever the slice starts.
fn words_len<T>(words: usize) -> usize {
    words.saturating_add(1).saturating_mul(8) / core::mem::size_of::<T>()
}

/// The aligned `u64` words inside a `T` slice (at least `k` of them if the slice has
/// [`words_len::<T>(k)`](words_len) values).
fn words_of<T: Scalar>(ws: &mut [T]) -> &mut [u64] {
    bytemuck::pod_align_to_mut::<T, u64>(ws).1
}

/// Length of the `workspace` (in values of `T`) that [`add`] with `method` needs for
/// inputs of `nnz_x` and `nnz_y` entries in dimension `n`:
///
/// - [`Spa`](AddMethod::Spa): `n` values plus the bytes of `n / 64` marker words;
/// - [`BitonicEsc`](AddMethod::BitonicEsc): the bytes of `2 * ceil(m / 64)` words (head
///   flags and block offsets), `m = nnz_x + nnz_y`;
/// - [`Heap`](AddMethod::Heap), [`Merge`](AddMethod::Merge): `0`.
///
/// Each word count includes one word of slack, so any `&mut [T]` of this length works,
/// aligned or not. Saturates at `usize::MAX` (no such buffer exists: the call then fails).
pub fn add_workspace_len<T: Scalar>(method: AddMethod, nnz_x: usize, nnz_y: usize, n: usize) -> usize {
    match method {
        AddMethod::Spa => n.saturating_add(words_len::<T>(n.div_ceil(64))),
        AddMethod::BitonicEsc => words_len::<T>(nnz_x.saturating_add(nnz_y).div_ceil(64).saturating_mul(2)),
        AddMethod::Heap | AddMethod::Merge => 0,
    }
}

/// Scales the values of `x` and `y` on their way to the output.
trait Scale<T>: Copy {
    fn x(self, v: T) -> T;
    fn y(self, v: T) -> T;
}

/// `x + y`.
#[derive(Clone, Copy)]
struct Unit;

impl<T> Scale<T> for Unit {
    #[inline(always)]
    fn x(self, v: T) -> T {
        v
    }
    #[inline(always)]
    fn y(self, v: T) -> T {
        v
    }
}

/// `alpha * x + beta * y`.
#[derive(Clone, Copy)]
struct By<T> {
    alpha: T,
    beta: T,
}

impl<T: Scalar> Scale<T> for By<T> {
    #[inline(always)]
    fn x(self, v: T) -> T {
        self.alpha * v
    }
    #[inline(always)]
    fn y(self, v: T) -> T {
        self.beta * v
    }
}

/// `z = x + y` on `exec`; see [`add_scaled`].
///
/// ```
/// use spblas::level1::{AddMethod, SpVec, add, add_workspace_len};
/// use spblas::{Exec, Isa};
/// let x = SpVec::new(8, &[0u32, 3, 5], &[1.0f64, 2.0, 3.0])?;
/// let y = SpVec::new(8, &[3u32, 6], &[-2.0f64, 4.0])?;
/// let method = AddMethod::choose(Isa::detect(), x.nnz(), y.nnz(), x.dim());
/// let mut ws = vec![0.0; add_workspace_len::<f64>(method, x.nnz(), y.nnz(), x.dim())];
/// let (mut zi, mut zv) = ([0u32; 5], [0.0f64; 5]);
/// let nnz = add(Exec::new(), x, y, &mut zi, &mut zv, method, &mut ws)?;
/// assert_eq!(&zi[..nnz], &[0, 3, 5, 6]);
/// assert_eq!(&zv[..nnz], &[1.0, 0.0, 3.0, 4.0]); // 2 - 2 = 0 is kept
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// As [`add_scaled`].
pub fn add<T: Scalar + ScanElem, I: Index + Key>(
    exec: Exec,
    x: SpVec<'_, T, I>,
    y: SpVec<'_, T, I>,
    out_indices: &mut [I],
    out_vals: &mut [T],
    method: AddMethod,
    workspace: &mut [T],
) -> Result<usize, DimError> {
    let isa = exec.resolved_isa();
    add_impl(Checked::new(isa)?, Unit, x, y, out_indices, out_vals, method, workspace)
}

/// Sparse vector addition `z = alpha * x + beta * y` (thesis chapter 7) by `method`, on
/// `isa`, into `out_indices[..nnz]` / `out_vals[..nnz]`; returns `nnz`.
///
/// **Result.** The indices of `z` are the union of those of `x` and `y`, strictly
/// increasing, whatever the values: an index in both gets `alpha * x_i + beta * y_i`
/// even if that is zero (explicit zeros and cancellations are kept, so the pattern does
/// not depend on the values — what SpGEMM's symbolic phase needs); an index in one only
/// gets `alpha * x_i` (or `beta * y_i`), zero when `alpha` (`beta`) is. [`add`] is the
/// case `alpha = beta = 1` without the multiplications. All methods and all `Isa`s give
/// the same bits (each value is one product per input and at most one addition).
///
/// **Buffers.** `out_indices` and `out_vals` must hold the upper bound
/// `m = x.nnz() + y.nnz()` entries: the heap and ESC methods work in `[..m]` and leave
/// `[nnz..m]` with unspecified values; entries past `m` are never touched. `workspace`
/// must hold [`add_workspace_len`] values; its contents on entry do not matter and are
/// unspecified afterwards.
///
/// # Errors
/// Before anything is written: [`DimError::IsaUnavailable`] if this machine cannot run
/// `isa`; [`DimError::Length`] (`"y"`) if `y.dim() != x.dim()`;
/// [`DimError::BufferTooSmall`] (`"out_indices"`, `"out_vals"` or `"workspace"`) if a
/// buffer is shorter than needed.
#[allow(clippy::too_many_arguments)]
pub fn add_scaled<T: Scalar + ScanElem, I: Index + Key>(
    exec: Exec,
    alpha: T,
    x: SpVec<'_, T, I>,
    beta: T,
    y: SpVec<'_, T, I>,
    out_indices: &mut [I],
    out_vals: &mut [T],
    method: AddMethod,
    workspace: &mut [T],
) -> Result<usize, DimError> {
    let isa = exec.resolved_isa();
    add_impl(Checked::new(isa)?, By { alpha, beta }, x, y, out_indices, out_vals, method, workspace)
}

fn check_buf(buffer: &'static str, needed: usize, got: usize) -> Result<(), DimError> {
    if got < needed { Err(DimError::BufferTooSmall { buffer, needed, got }) } else { Ok(()) }
}

fn check_dims<T: Scalar, I: Index>(x: &SpVec<'_, T, I>, y: &SpVec<'_, T, I>) -> Result<(), DimError> {
    if x.dim() != y.dim() {
        return Err(DimError::Length { operand: "y", expected: x.dim(), got: y.dim() });
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn add_impl<T: Scalar + ScanElem, I: Index + Key, S: Scale<T>>(
    isa: Checked,
    s: S,
    x: SpVec<'_, T, I>,
    y: SpVec<'_, T, I>,
    out_indices: &mut [I],
    out_vals: &mut [T],
    method: AddMethod,
    workspace: &mut [T],
) -> Result<usize, DimError> {
    check_dims(&x, &y)?;
    let m = x.nnz() + y.nnz();
    check_buf("out_indices", m, out_indices.len())?;
    check_buf("out_vals", m, out_vals.len())?;
    check_buf("workspace", add_workspace_len::<T>(method, x.nnz(), y.nnz(), x.dim()), workspace.len())?;
    let (oi, ov) = (&mut out_indices[..m], &mut out_vals[..m]);
    Ok(match method {
        AddMethod::Spa => spa(s, x, y, oi, ov, workspace),
        AddMethod::Heap => heap(isa, s, x, y, oi, ov),
        AddMethod::BitonicEsc => esc(isa, s, x, y, oi, ov, workspace),
        AddMethod::Merge => merge_pieces(isa, s, x, y, oi, ov),
    })
}

/// Thesis Alg. 27 with a bit marker per position (see [`AddMethod::Spa`]).
fn spa<T: Scalar, I: Index, S: Scale<T>>(
    s: S,
    x: SpVec<'_, T, I>,
    y: SpVec<'_, T, I>,
    oi: &mut [I],
    ov: &mut [T],
    ws: &mut [T],
) -> usize {
    let (xi, yi) = (x.indices(), y.indices());
    let (lo, hi) = match (xi.first(), xi.last(), yi.first(), yi.last()) {
        (Some(a), Some(b), Some(c), Some(d)) => (a.min(c).to_usize(), b.max(d).to_usize()),
        (Some(a), Some(b), None, None) | (None, None, Some(a), Some(b)) => (a.to_usize(), b.to_usize()),
        _ => return 0,
    };
    let (dense, rest) = ws.split_at_mut(x.dim());
    let marks = words_of(rest);
    let (w0, w1) = (lo / 64, hi / 64);
    marks[w0..=w1].fill(0);
    // The marker bits of one word are gathered in a register and stored once per word
    // (the indices are sorted), so no store waits on the previous one. `y` tests its
    // index against `x`'s bits only, which is exact: `y` has no index twice.
    let (mut cur, mut acc) = (w0, 0u64);
    for (i, v) in x.iter() {
        dense[i] = s.x(v);
        if i / 64 != cur {
            marks[cur] |= acc;
            (cur, acc) = (i / 64, 0);
        }
        acc |= 1 << (i % 64);
    }
    marks[cur] |= acc;
    (cur, acc) = (w0, 0);
    for (i, v) in y.iter() {
        let v = s.y(v);
        if i / 64 != cur {
            marks[cur] |= acc;
            (cur, acc) = (i / 64, 0);
        }
        let bit = 1u64 << (i % 64);
        // Whether `x` has `i` is a coin toss for the branch predictor: `pick`, not a
        // branch, which mispredicted on about half the entries of random inputs
        // (`benches/records/kernel-notes-2026-11.md`, "Branch-free selects in level 1").
        dense[i] = pick(marks[cur] & bit != 0, dense[i] + v, v);
        acc |= bit;
    }
    marks[cur] |= acc;
    words_out(&mut marks[w0..=w1], w0 * 64, oi, ov, dense)
}

/// The marked positions of `words` (marker words of the positions from `first`), in
/// order, into `oi` with their values from `dense` into `ov`; the words cleared, the
/// count returned. The read-out of every bit-marker SPA: this one's and SpGEMM's rows.
pub(crate) fn words_out<T: Scalar, I: Index>(
    words: &mut [u64],
    first: usize,
    oi: &mut [I],
    ov: &mut [T],
    dense: &[T],
) -> usize {
    let mut o = 0;
    for (w, word) in words.iter_mut().enumerate() {
        let base = first + w * 64;
        let mut b = *word;
        while b != 0 {
            let i = base + b.trailing_zeros() as usize;
            oi[o] = I::from_usize_unchecked(i);
            ov[o] = dense[i];
            o += 1;
            b &= b - 1;
        }
        *word = 0;
    }
    o
}

/// Expand: `x` then `y` (scaled) into `oi`/`ov`, which hold exactly `m` entries.
fn expand<T: Scalar, I: Index, S: Scale<T>>(
    s: S,
    x: SpVec<'_, T, I>,
    y: SpVec<'_, T, I>,
    oi: &mut [I],
    ov: &mut [T],
) {
    let nx = x.nnz();
    oi[..nx].copy_from_slice(x.indices());
    oi[nx..].copy_from_slice(y.indices());
    for (o, &v) in ov[..nx].iter_mut().zip(x.vals()) {
        *o = s.x(v);
    }
    for (o, &v) in ov[nx..].iter_mut().zip(y.vals()) {
        *o = s.y(v);
    }
}

/// Thesis 7.4.1: heap of all candidates in the output, fusing drain, move to the front.
fn heap<T: Scalar, I: Index + Key, S: Scale<T>>(
    isa: Checked,
    s: S,
    x: SpVec<'_, T, I>,
    y: SpVec<'_, T, I>,
    oi: &mut [I],
    ov: &mut [T],
) -> usize {
    expand(s, x, y, oi, ov);
    heap_fuse_in_place(isa, oi, ov)
}

/// The heap method's core (thesis 7.4.1) on candidates already in `oi`/`ov` (equal
/// lengths, any order, duplicates allowed): heapify, fusing drain, move to the front.
/// Returns the number of distinct indices, sorted and summed in `[..nnz]`. Shared with
/// the SpGEMM row kernels (`level3`).
pub(crate) fn heap_fuse_in_place<T: Scalar, I: Index + Key>(
    isa: Checked,
    oi: &mut [I],
    ov: &mut [T],
) -> usize {
    let m = oi.len();
    let nnz = match DHeapPairs::<I, T, Max>::from_slices(Exec::from(isa), oi, ov) {
        Ok(h) => h.into_sorted_fused(|acc, v| *acc += v).0.len(),
        // Not reached: the `Isa` is checked and the lengths are equal.
        Err(_) => return 0,
    };
    oi.copy_within(m - nnz..m, 0);
    ov.copy_within(m - nnz..m, 0);
    nnz
}

/// Thesis 7.4.2: expand, bitonic sort, compress by segmented sum and all-scan.
fn esc<T: Scalar + ScanElem, I: Index + Key, S: Scale<T>>(
    isa: Checked,
    s: S,
    x: SpVec<'_, T, I>,
    y: SpVec<'_, T, I>,
    oi: &mut [I],
    ov: &mut [T],
    ws: &mut [T],
) -> usize {
    if oi.is_empty() {
        return 0;
    }
    if oi.len() <= ESC_REG_MAX && x.dim() <= ESC_REG_COLS && has_esc_row(isa) {
        // Short: in registers where the width has them (`arch::generic::esc`). Each
        // input holds an index once, so no index occurs more than twice.
        let mut buf = EscBuf::new();
        let row = &mut buf.row;
        let (xi, yi) = (x.indices().iter(), y.indices().iter());
        for (c, &i) in row.cols.iter_mut().zip(xi.chain(yi)) {
            // Below `ESC_REG_COLS` (the dimension is), so the cast keeps it.
            *c = i.to_usize() as u32;
        }
        let (xv, yv) = (x.vals().iter().map(|&v| s.x(v)), y.vals().iter().map(|&v| s.y(v)));
        for (o, v) in row.vals.iter_mut().zip(xv.chain(yv)) {
            *o = v;
        }
        row.n = oi.len();
        if let Some(n) = buf.run(isa, 2) {
            for (o, &c) in oi.iter_mut().zip(&buf.cols[..n]) {
                *o = I::from_usize_unchecked(c as usize);
            }
            ov[..n].copy_from_slice(&buf.vals[..n]);
            return n;
        }
    }
    expand(s, x, y, oi, ov);
    esc_in_place(isa, oi, ov, words_of(ws))
}

/// `u64` words [`esc_in_place`] needs for `m` candidates: head flags and block offsets.
pub(crate) fn esc_words(m: usize) -> usize {
    m.div_ceil(64).saturating_mul(2)
}

/// The bitonic ESC method's sort and compress (thesis 7.4.2) on candidates already in
/// `oi`/`ov` (equal lengths, any order, duplicates allowed); `words` holds at least
/// [`esc_words`]`(m)` words. Returns the number of distinct indices, sorted and summed
/// in `[..nnz]`. Shared with the SpGEMM row kernels (`level3`).
pub(crate) fn esc_in_place<T: Scalar + ScanElem, I: Index + Key>(
    isa: Checked,
    oi: &mut [I],
    ov: &mut [T],
    words: &mut [u64],
) -> usize {
    let m = oi.len();
    if m == 0 || ov.len() != m || words.len() < esc_words(m) {
        return 0;
    }
    // The primitives below cannot fail: the `Isa` is checked and every length
    // is right by construction; an error would only leave the output unfinished.
    let isa = isa.isa();
    if bitonic_sort_pairs(Exec::from(isa), oi, ov).is_err() {
        return 0;
    }
    let nw = m.div_ceil(64);
    let (flags, rest) = words.split_at_mut(nw);
    let offsets = &mut rest[..nw];
    // Head flags: position i starts a segment where its index differs from i - 1.
    for (w, f) in flags.iter_mut().enumerate() {
        let start = w * 64;
        let end = (start + 64).min(m);
        let mut bits = 0u64;
        for i in start.max(1)..end {
            bits |= u64::from(oi[i] != oi[i - 1]) << (i - start);
        }
        if w == 0 {
            bits |= 1;
        }
        *f = bits;
    }
    let Ok(heads) = HeadFlags::bits(flags, m) else { return 0 };
    if segmented_sum(Exec::from(isa), ov, heads).is_err() {
        return 0;
    }
    for (o, f) in offsets.iter_mut().zip(flags.iter()) {
        *o = u64::from(f.count_ones());
    }
    let Ok(nnz) = exclusive_scan(Exec::from(isa), offsets) else { return 0 };
    // Each block's heads go to its offset; offsets never pass the block's own start,
    // so compacting in place, block after block, reads nothing already overwritten.
    for (w, (&f, &offset)) in flags.iter().zip(offsets.iter()).enumerate() {
        let mut pos = offset as usize;
        let mut bits = f;
        while bits != 0 {
            let i = w * 64 + bits.trailing_zeros() as usize;
            oi[pos] = oi[i];
            ov[pos] = ov[i];
            pos += 1;
            bits &= bits - 1;
        }
    }
    nnz as usize
}

/// One serial merge of thesis 7.4.3 in progress: `x` and `y` (one piece of them) into
/// `oi`/`ov`, fusing equal indices; `a`, `b`, `o` are the read and write cursors.
struct Run<'r, T, I> {
    xi: &'r [I],
    xv: &'r [T],
    yi: &'r [I],
    yv: &'r [T],
    oi: &'r mut [I],
    ov: &'r mut [T],
    a: usize,
    b: usize,
    o: usize,
}

impl<'r, T: Scalar, I: Index> Run<'r, T, I> {
    /// `oi`/`ov` must hold at least `xi.len() + yi.len()` entries (the callers check).
    fn new(xi: &'r [I], xv: &'r [T], yi: &'r [I], yv: &'r [T], oi: &'r mut [I], ov: &'r mut [T]) -> Self {
        let (na, nb) = (xi.len(), yi.len());
        let (xv, yv) = (&xv[..na], &yv[..nb]);
        let (oi, ov) = (&mut oi[..na + nb], &mut ov[..na + nb]);
        Run { xi, xv, yi, yv, oi, ov, a: 0, b: 0, o: 0 }
    }

    /// Whether both lists still have entries.
    #[inline(always)]
    fn live(&self) -> bool {
        self.a < self.xi.len() && self.b < self.yi.len()
    }

    /// One branch-free step (both lists non-empty): write the smaller index and advance
    /// the list(s) it came from; on equal indices the value is `x_i + y_i`.
    #[inline(always)]
    fn step<S: Scale<T>>(&mut self, s: S) {
        let (ka, kb) = (self.xi[self.a], self.yi[self.b]);
        let (va, vb) = (s.x(self.xv[self.a]), s.y(self.yv[self.b]));
        let (ta, tb) = (ka <= kb, kb <= ka);
        self.oi[self.o] = if ta { ka } else { kb };
        self.ov[self.o] = pick(ta & tb, va + vb, pick(ta, va, vb));
        self.a += usize::from(ta);
        self.b += usize::from(tb);
        self.o += 1;
    }

    /// Runs to the end (the merge loop, then the rest of whichever list is left);
    /// returns the entries written.
    fn finish<S: Scale<T>>(mut self, s: S) -> usize {
        while self.live() {
            self.step(s);
        }
        let (a, b, mut o) = (self.a, self.b, self.o);
        for (src_i, src_v, is_x) in
            [(&self.xi[a..], &self.xv[a..], true), (&self.yi[b..], &self.yv[b..], false)]
        {
            let r = src_i.len();
            self.oi[o..o + r].copy_from_slice(src_i);
            for (d, &v) in self.ov[o..o + r].iter_mut().zip(src_v) {
                *d = if is_x { s.x(v) } else { s.y(v) };
            }
            o += r;
        }
        o
    }
}

/// The serial merge of thesis 7.4.3 on one piece; `oi`/`ov` hold at least
/// `xi.len() + yi.len()` entries. Returns the entries written.
#[allow(clippy::too_many_arguments)]
fn merge_fused<T: Scalar, I: Index, S: Scale<T>>(
    s: S,
    xi: &[I],
    xv: &[T],
    yi: &[I],
    yv: &[T],
    oi: &mut [I],
    ov: &mut [T],
) -> usize {
    Run::new(xi, xv, yi, yv, oi, ov).finish(s)
}

/// [`merge_fused`] as `C` chains: the piece is cut by merge path (`C - 1` binary
/// searches) and the `C` sub-merges are stepped in lockstep in one loop. Each step of a
/// branch-free merge waits for the previous one's loads (its cursors), so one merge runs
/// at load latency; independent chains overlap those latencies. Each chain writes into
/// its own upper-bound region; the regions are then packed (`copy_within`).
#[allow(clippy::too_many_arguments)]
fn merge_chains<const C: usize, T: Scalar, I: Index + Key, S: Scale<T>>(
    s: S,
    xi: &[I],
    xv: &[T],
    yi: &[I],
    yv: &[T],
    oi: &mut [I],
    ov: &mut [T],
) -> usize {
    let m = xi.len() + yi.len();
    let mut splits = [(0usize, 0usize); 9];
    if !(C == 2 || C == 4) || merge_path_partition(Exec::from(Isa::Portable), xi, yi, C, &mut splits).is_err()
    {
        return merge_fused(s, xi, xv, yi, yv, oi, ov);
    }
    for sp in &mut splits[1..C] {
        *sp = fix_split(xi, yi, *sp);
    }
    // Each chain gets its upper-bound region of the output.
    let (mut rest_i, mut rest_v) = (&mut oi[..m], &mut ov[..m]);
    let mut run = |p: usize| {
        let ((a0, b0), (a1, b1)) = (splits[p], splits[p + 1]);
        let len = (a1 - a0) + (b1 - b0);
        let (ci, ti) = core::mem::take(&mut rest_i).split_at_mut(len);
        let (cv, tv) = core::mem::take(&mut rest_v).split_at_mut(len);
        (rest_i, rest_v) = (ti, tv);
        Run::new(&xi[a0..a1], &xv[a0..a1], &yi[b0..b1], &yv[b0..b1], ci, cv)
    };
    // The chains as separate locals (an array of them keeps them in memory, a store and
    // a load per step), stepped while all are live; each then finishes alone.
    let mut counts = [0usize; C];
    if C == 2 {
        let (mut r0, mut r1) = (run(0), run(1));
        while r0.live() & r1.live() {
            r0.step(s);
            r1.step(s);
        }
        counts[..2].copy_from_slice(&[r0.finish(s), r1.finish(s)]);
    } else {
        let (mut r0, mut r1, mut r2, mut r3) = (run(0), run(1), run(2), run(3));
        while r0.live() & r1.live() & r2.live() & r3.live() {
            r0.step(s);
            r1.step(s);
            r2.step(s);
            r3.step(s);
        }
        counts[..4].copy_from_slice(&[r0.finish(s), r1.finish(s), r2.finish(s), r3.finish(s)]);
    }
    let mut o = counts[0];
    for p in 1..C {
        let start = splits[p].0 + splits[p].1;
        oi.copy_within(start..start + counts[p], o);
        ov.copy_within(start..start + counts[p], o);
        o += counts[p];
    }
    o
}

/// The merge of one piece, on as many chains as its length pays for.
#[allow(clippy::too_many_arguments)]
fn merge_piece<T: Scalar, I: Index + Key, S: Scale<T>>(
    s: S,
    xi: &[I],
    xv: &[T],
    yi: &[I],
    yv: &[T],
    oi: &mut [I],
    ov: &mut [T],
) -> usize {
    match xi.len() + yi.len() {
        0..MERGE_TWO => merge_fused(s, xi, xv, yi, yv, oi, ov),
        MERGE_TWO..MERGE_FOUR => merge_chains::<2, T, I, S>(s, xi, xv, yi, yv, oi, ov),
        _ => merge_chains::<4, T, I, S>(s, xi, xv, yi, yv, oi, ov),
    }
}

/// Candidates from which a merge piece runs as two chains ([`merge_chains`]).
const MERGE_TWO: usize = 64;
/// Candidates from which a merge piece runs as four chains.
const MERGE_FOUR: usize = 256;

/// Moves a split point so that no index lies on both sides: merge path puts `x[i - 1]`
/// before an equal `y[j]`, so such a pair would straddle the cut; take `y[j]` along.
#[inline]
fn fix_split<I: Index>(xi: &[I], yi: &[I], (i, j): (usize, usize)) -> (usize, usize) {
    if i > 0 && j < yi.len() && xi[i - 1] == yi[j] { (i, j + 1) } else { (i, j) }
}

/// Thesis 7.4.3 driver: one piece, or merge path pieces run in order, each writing at
/// the running output position (never past its own upper-bound region's start).
fn merge_pieces<T: Scalar, I: Index + Key, S: Scale<T>>(
    isa: Checked,
    s: S,
    x: SpVec<'_, T, I>,
    y: SpVec<'_, T, I>,
    oi: &mut [I],
    ov: &mut [T],
) -> usize {
    merge_slices(isa, s, x.indices(), x.vals(), y.indices(), y.vals(), oi, ov)
}

/// `alpha * x + beta * y` by the merge method (thesis 7.4.3) on raw slices: `xi` and `yi`
/// strictly increasing, `xv`/`yv` as long as their indices, `oi`/`ov` at least
/// `xi.len() + yi.len()` long. Returns the entries written. Shared with the SpGEMM row
/// kernels (`level3`), whose rows of `B` are validated canonical once per product.
#[allow(clippy::too_many_arguments)]
pub(crate) fn merge_scaled_slices<T: Scalar, I: Index + Key>(
    isa: Checked,
    alpha: T,
    xi: &[I],
    xv: &[T],
    beta: T,
    yi: &[I],
    yv: &[T],
    oi: &mut [I],
    ov: &mut [T],
) -> usize {
    let m = xi.len() + yi.len();
    if xv.len() != xi.len() || yv.len() != yi.len() || oi.len() < m || ov.len() < m {
        return 0;
    }
    merge_slices(isa, By { alpha, beta }, xi, xv, yi, yv, &mut oi[..m], &mut ov[..m])
}

#[allow(clippy::too_many_arguments)]
fn merge_slices<T: Scalar, I: Index + Key, S: Scale<T>>(
    isa: Checked,
    s: S,
    xi: &[I],
    xv: &[T],
    yi: &[I],
    yv: &[T],
    oi: &mut [I],
    ov: &mut [T],
) -> usize {
    let m = oi.len();
    let parts = m.div_ceil(MERGE_PIECE).clamp(1, MAX_PIECES);
    if parts == 1 {
        return merge_piece(s, xi, xv, yi, yv, oi, ov);
    }
    let mut splits = [(0usize, 0usize); MAX_PIECES + 1];
    if merge_path_partition(Exec::from(isa), xi, yi, parts, &mut splits).is_err() {
        // Not reached (checked `Isa`, `parts >= 1`, enough splits): one piece instead.
        return merge_fused(s, xi, xv, yi, yv, oi, ov);
    }
    let mut o = 0;
    let mut start = (0, 0);
    for &end in &splits[1..=parts] {
        let end = fix_split(xi, yi, end);
        o += merge_piece(
            s,
            &xi[start.0..end.0],
            &xv[start.0..end.0],
            &yi[start.1..end.1],
            &yv[start.1..end.1],
            &mut oi[o..],
            &mut ov[o..],
        );
        start = end;
    }
    o
}

/// Merge path partition for the merge method (thesis 7.4.3 with Alg. 18): writes
/// `parts + 1` split points `(i, j)` into `splits[..=parts]` that cut the addition into
/// `parts` independent pieces of about `m / parts` candidates each (`m = x.nnz() +
/// y.nnz()`); piece `p` adds `x[splits[p].0..splits[p + 1].0]` and
/// `y[splits[p].1..splits[p + 1].1]` ([`add_merge_piece`]). Unlike a plain merge path,
/// no index is cut in two: where `x` and `y` share the index at a cut, both entries go to
/// the earlier piece (so a piece may be one longer).
///
/// # Running the pieces
/// Piece `p` writes at most `(i' - i) + (j' - j)` entries; give it the region
/// `out[i + j .. i' + j']` (the regions are disjoint: `split_at_mut`) and run the pieces
/// in any order or in parallel; each returns its count `r_p`. Then an exclusive scan of
/// the `r_p` gives each piece's final offset, never past its region's start, so moving
/// the pieces down in order `p = 0, 1, ..` (`copy_within`) packs the result. The serial
/// [`AddMethod::Merge`] skips the move by writing each piece at the running offset.
///
/// ```
/// use spblas::level1::{SpVec, add_merge_partition, add_merge_piece};
/// let xi: Vec<u32> = (0..1000).map(|k| 2 * k).collect();
/// let yi: Vec<u32> = (0..700).map(|k| 3 * k).collect();
/// let (xv, yv) = (vec![1.0f64; 1000], vec![2.0f64; 700]);
/// let (x, y) = (SpVec::new(3000, &xi, &xv)?, SpVec::new(3000, &yi, &yv)?);
/// let parts = 4;
/// let mut splits = [(0, 0); 5];
/// add_merge_partition(x, y, parts, &mut splits)?;
/// let (mut zi, mut zv) = (vec![0u32; 1700], vec![0.0f64; 1700]);
/// let counts: Vec<usize> = std::thread::scope(|s| {
///     let (mut ri, mut rv) = (&mut zi[..], &mut zv[..]);
///     let mut handles = Vec::new();
///     for w in splits.windows(2) {
///         let (start, end) = (w[0], w[1]);
///         let len = (end.0 - start.0) + (end.1 - start.1);
///         let (ci, ti) = std::mem::take(&mut ri).split_at_mut(len);
///         let (cv, tv) = std::mem::take(&mut rv).split_at_mut(len);
///         (ri, rv) = (ti, tv);
///         handles.push(s.spawn(move || add_merge_piece(1.0, x, 1.0, y, start, end, ci, cv)));
///     }
///     handles.into_iter().map(|h| h.join().unwrap().unwrap()).collect()
/// });
/// // Pack: piece p's entries move from its region start down to the running offset.
/// let mut o = 0;
/// for (w, &r) in splits.windows(2).zip(&counts) {
///     let s = w[0].0 + w[0].1;
///     zi.copy_within(s..s + r, o);
///     zv.copy_within(s..s + r, o);
///     o += r;
/// }
/// assert_eq!(o, 1000 + 700 - 334); // multiples of 6 below 3000 are shared
/// assert!(zi[..o].windows(2).all(|w| w[0] < w[1]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`DimError::Length`] (`"y"`) if the dimensions differ; [`DimError::Parameter`] if
/// `parts == 0`; [`DimError::BufferTooSmall`] if `splits.len() < parts + 1`.
pub fn add_merge_partition<T: Scalar, I: Index + Key>(
    x: SpVec<'_, T, I>,
    y: SpVec<'_, T, I>,
    parts: usize,
    splits: &mut [(usize, usize)],
) -> Result<(), DimError> {
    check_dims(&x, &y)?;
    merge_path_partition(Exec::from(Isa::Portable), x.indices(), y.indices(), parts, splits)?;
    let (xi, yi) = (x.indices(), y.indices());
    for s in &mut splits[1..parts] {
        *s = fix_split(xi, yi, *s);
    }
    Ok(())
}

/// One piece of the merge method (see [`add_merge_partition`]): `alpha * x + beta * y`
/// restricted to `x[start.0..end.0]` and `y[start.1..end.1]`, into `out_indices` /
/// `out_vals` (at least `(end.0 - start.0) + (end.1 - start.1)` entries each); returns
/// the entries written. With split points from [`add_merge_partition`] the pieces'
/// outputs, concatenated, are [`add_scaled`]'s; with other cuts an index shared by `x`
/// and `y` may come out twice (once per piece), never anything worse.
///
/// # Errors
/// [`DimError::Length`] (`"y"`) if the dimensions differ; [`DimError::Parameter`] if
/// `end` lies past an input or `start` after `end`; [`DimError::BufferTooSmall`] if an
/// output is too short. Nothing is written then.
#[allow(clippy::too_many_arguments)]
pub fn add_merge_piece<T: Scalar, I: Index + Key>(
    alpha: T,
    x: SpVec<'_, T, I>,
    beta: T,
    y: SpVec<'_, T, I>,
    start: (usize, usize),
    end: (usize, usize),
    out_indices: &mut [I],
    out_vals: &mut [T],
) -> Result<usize, DimError> {
    check_dims(&x, &y)?;
    if end.0 > x.nnz() {
        return Err(DimError::Parameter { name: "end.0", value: end.0 });
    }
    if end.1 > y.nnz() {
        return Err(DimError::Parameter { name: "end.1", value: end.1 });
    }
    if start.0 > end.0 {
        return Err(DimError::Parameter { name: "start.0", value: start.0 });
    }
    if start.1 > end.1 {
        return Err(DimError::Parameter { name: "start.1", value: start.1 });
    }
    let m = (end.0 - start.0) + (end.1 - start.1);
    check_buf("out_indices", m, out_indices.len())?;
    check_buf("out_vals", m, out_vals.len())?;
    Ok(merge_piece(
        By { alpha, beta },
        &x.indices()[start.0..end.0],
        &x.vals()[start.0..end.0],
        &y.indices()[start.1..end.1],
        &y.vals()[start.1..end.1],
        out_indices,
        out_vals,
    ))
}

/// `x + y` as a new owned vector (feature `alloc`), by [`AddMethod::choose`] on `exec`;
/// allocates the upper bound and the workspace, then trims.
///
/// # Errors
/// [`DimError::IsaUnavailable`] if this machine cannot run `exec`'s `Isa`;
/// [`DimError::Length`] (`"y"`) if the dimensions differ.
#[cfg(feature = "alloc")]
pub fn add_owned<T: Scalar + ScanElem, I: Index + Key>(
    exec: Exec,
    x: SpVec<'_, T, I>,
    y: SpVec<'_, T, I>,
) -> Result<super::SpVecOwned<T, I>, DimError> {
    use alloc::vec;
    let isa = Checked::new(exec.resolved_isa())?;
    check_dims(&x, &y)?;
    let method = AddMethod::choose(isa.isa(), x.nnz(), y.nnz(), x.dim());
    let m = x.nnz() + y.nnz();
    let mut ws = vec![T::ZERO; add_workspace_len::<T>(method, x.nnz(), y.nnz(), x.dim())];
    let (mut zi, mut zv) = (vec![I::ZERO; m], vec![T::ZERO; m]);
    let nnz = add(Exec::from(isa), x, y, &mut zi, &mut zv, method, &mut ws)?;
    zi.truncate(nnz);
    zv.truncate(nnz);
    // One more pass to re-validate; it cannot fail, the sum satisfies every invariant.
    super::SpVecOwned::from_parts(x.dim(), zi, zv)
        .map_err(|_| DimError::Parameter { name: "add", value: nnz })
}
