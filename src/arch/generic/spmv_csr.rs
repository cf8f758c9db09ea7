//! What every width's CSR SpMV kernels (thesis 8.3–8.4) share:
//!
//! - [`DotVec`]: one register (or register group) of `vals[k] * x[col_idx[k]]` lanes, with
//!   the gather, the fused multiply-add, a masked tail and the horizontal sum. Each width
//!   implements it for the four operand pairs (f32/f64 values × u32/u64 indices);
//! - [`simd_dot`], [`row_loop`], [`simd_products`]: the loops over those registers (a row's
//!   dot product with four accumulators, the CSR-vector row loop of Alg. 29, the
//!   entry-wise products of Alg. 30 step 2), written once and instantiated by each width
//!   through [`spmv_csr_kernels`];
//! - [`Stencil`]: a width's block of 8 or 16 short rows of a structured-grid operator
//!   computed at once inside [`row_loop`] (one load of `x` per entry instead of a
//!   gather or a load per row), with the lane tables [`StencilTab`];
//! - the dispatchers [`rows`], [`dot`], [`products`]: the generic `(T, I)` of the level-2
//!   code cast to the concrete pair (an exact `TypeId` match, `usize`, `i32` and `i64` as
//!   the unsigned type of their width), then a `match` on a [`Checked`] `Isa` — the only
//!   way from the safe layers into a width's `unsafe` kernels. Any other pair (`u16`
//!   indices) matches none and runs the portable kernels.
//!
//! Every kernel is sound for *any* slices: row ranges are taken with `get`, and every
//! gathered column index is clamped to `x.len() - 1` (one `min` per register, far cheaper
//! than the gather) so a malformed matrix can give a wrong sum, never an out-of-bounds
//! read. A validated `Csr` never triggers the clamp.

// The vectorised drivers serve the SIMD widths only; targets without one keep them unused.
#![cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(dead_code, unused_macros))]

use core::any::TypeId;

use crate::arch::portable::spmv_csr as portable;
use crate::arch::{Checked, PF_AHEAD};
use crate::{Index, Scalar};

/// `x[c]`. Bounds-checked like the row-scalar loop of `level2::csr` (so short rows
/// compile to the same loop there and here); a validated matrix never fails the check.
#[inline(always)]
pub(crate) fn x_at<T: Scalar, I: Index>(x: &[T], c: I) -> T {
    x[c.to_usize()]
}

/// The sequential dot product of one row (thesis Alg. 28, lines 3–5).
#[inline(always)]
pub(crate) fn dot_seq<T: Scalar, I: Index>(cols: &[I], vals: &[T], x: &[T]) -> T {
    cols.iter().zip(vals).fold(T::ZERO, |acc, (&c, &v)| acc + v * x_at(x, c))
}

/// `x + min(c, xmax)`: in bounds of `x` when `xmax < x.len()`. How the widths without a
/// gather instruction (NEON, WebAssembly SIMD) address each lane's `x`.
#[cfg(any(target_arch = "aarch64", all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
pub(crate) fn at<T, I: Index>(x: *const T, c: I, xmax: usize) -> *const T {
    x.wrapping_add(c.to_usize().min(xmax))
}

/// The row loop shared by every width: rows shorter than `short` run `dots.0` inline (the
/// sequential loop of the row-scalar method, or one masked register where the width
/// gathers in hardware: [`DotVec::MASKED_SHORT`]), and longer rows call `dots.1`, the
/// width's out-of-line vector dot product, or, in a canonical matrix, `dots.2` with the
/// row's stretch of `x` when the row is one run of consecutive columns ([`dense_run`];
/// [`simd_dot_x`] on the SIMD widths).
///
/// A short row also prefetches `vals` and `col_idx` [`PF_AHEAD`] entries ahead, as the
/// CSR5 tile loop does: short rows keep the core busy with bookkeeping, and the hardware
/// prefetchers alone left the loop well below the streaming bandwidth. Rows up to
/// [`PF_ROW_MAX`] entries prefetch every line of their span. Empty rows skip the hints
/// (they cost `rmat`, half its rows empty), and `beta == 0` has a loop of its own that
/// never reads `y` (one loop with a select read `y` for every row and gave back most of
/// the gain). Measurements: `benches/records/kernel-notes-2026-11.md`, "CSR row loop
/// prefetch".
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn row_loop<T: Scalar, I: Index, S: Stencil<T, I>>(
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[T],
    x: &[T],
    alpha: T,
    beta: T,
    y: &mut [T],
    short: usize,
    canonical: bool,
    dots: (impl Fn(&[I], &[T], &[T]) -> T, impl Fn(&[I], &[T], &[T]) -> T, impl Fn(&[T], &[T]) -> T),
) {
    let rows = Rows { short, canonical };
    let dots = (&dots.0, &dots.1, &dots.2);
    row_loop_with::<T, I, S>(
        row_ptr,
        col_idx,
        vals,
        x,
        alpha,
        beta,
        y,
        #[inline(always)]
        |w: &[I]| row_dot(w, col_idx, vals, x, rows, dots),
    );
}

/// [`row_loop_with`] for `beta == 0` (`B0`) or not, `row` giving the dot product of the row
/// whose two `row_ptr` entries it gets. Where the width has a stencil block
/// ([`Stencil`] with `W > 0` rows), the row at a try offers the block the `W` rows from
/// it; a block that declines sends the next `W` rows through the plain loop before the
/// next try, twice as many after each further decline up to [`STENCIL_BACKOFF_MAX`], so
/// matrices without stencil blocks run the plain loop between rare declined tries.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn rows_by<T: Scalar, I: Index, S: Stencil<T, I>, const B0: bool>(
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[T],
    x: &[T],
    alpha: T,
    beta: T,
    y: &mut [T],
    row: impl Fn(&[I]) -> T,
) {
    let m = y.len().min(row_ptr.len().saturating_sub(1));
    let block_w = S::W.min(STENCIL_MAX_W);
    // Plain `for` loops, no closures of its own: a closure here has not the caller's
    // target features, and where LLVM leaves one out of line every intrinsic that `row`
    // inlines into it becomes a call (the AVX2 `f32` row-vector kernel so ran at a fraction
    // of the row loop's speed: `benches/records/peers-csr5-loads-*.md`).
    let (mut i, mut next_try, mut wait) = (0usize, 0usize, block_w);
    let entries = match (row_ptr.first(), row_ptr.get(m)) {
        (Some(a), Some(b)) => b.to_usize().wrapping_sub(a.to_usize()),
        _ => usize::MAX,
    };
    if block_w > 0 && entries <= m {
        // At most one entry a row on average (a diagonal, a column vector, a
        // permutation): every block is tried, without the backoff's bookkeeping, and a
        // block that is not one goes row by row.
        while i + block_w <= m {
            let rows = &row_ptr[i..=i + block_w];
            let yb = &mut y[i..i + block_w];
            // SAFETY: `S` is the width's register type, whose features the caller enabled;
            // `rows` holds `block_w + 1` entries, `yb` `block_w`, and the block bounds its
            // own reads.
            if !unsafe { S::block::<B0>(rows, col_idx, vals, x, alpha, beta, yb) } {
                for (yi, w) in yb.iter_mut().zip(rows.windows(2)) {
                    put::<T, B0>(yi, row(w), alpha, beta);
                }
            }
            i += block_w;
        }
    }
    while i < m {
        // The rows up to the next try, one by one.
        let end = if block_w == 0 { m } else { next_try.clamp(i, m) };
        for (yi, w) in y[i..end].iter_mut().zip(row_ptr[i..=end].windows(2)) {
            put::<T, B0>(yi, row(w), alpha, beta);
        }
        i = end;
        if block_w == 0 || i + block_w > m {
            // No block fits any more: the rows left go one by one.
            next_try = m;
            continue;
        }
        // SAFETY: `S` is the width's register type, whose features the caller enabled
        // (`NoStencil` has none); `row_ptr[i..=i + block_w]` holds `block_w + 1` entries,
        // `y[i..i + block_w]` `block_w`, and the block bounds its own reads.
        let rows = &row_ptr[i..=i + block_w];
        if unsafe { S::block::<B0>(rows, col_idx, vals, x, alpha, beta, &mut y[i..i + block_w]) } {
            i += block_w;
            (next_try, wait) = (i, block_w);
        } else {
            (next_try, wait) = (i + wait, (wait * 2).min(STENCIL_BACKOFF_MAX));
        }
    }
}

/// `y[i] = alpha * d (+ beta * y[i])` for [`rows_by`]; `B0` is a constant, so `y` is never
/// read for it. A function, not a closure: it holds no intrinsics, and `rows_by`'s loops
/// stay free of closures.
#[inline(always)]
fn put<T: Scalar, const B0: bool>(yi: &mut T, d: T, alpha: T, beta: T) {
    *yi = if B0 { alpha * d } else { alpha * d + beta * *yi };
}

// The stencil block parts below serve the x86-64 widths' kernels; NEON has no stencil
// blocks yet (`STENCIL_W = 0`), so on other targets they are compiled but unused.

/// The lane tables of a stencil block ([`Stencil`]) of `W` rows of `L` entries, whose
/// `W L` values (and columns) are `L` registers of `W` lanes in row-major order: flat
/// position `W v + t` of register `v` holds entry `(W v + t) mod L` of row
/// `(W v + t) / L`. Built at compile time; lanes past `W` are unused.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) struct StencilTab<const L: usize, const W: usize> {
    /// Per entry `k`: lane `j` (row `j`) takes lane `(j L + k) mod W` ...
    pub lane: [[u32; 16]; L],
    /// ... of register `v` where bit `j` of `from[k][v]` is set, `(j L + k) / W == v`.
    pub from: [[u16; L]; L],
    /// Per entry `k`: bit `t` of `at[k][v]` set where lane `t` of register `v` holds entry
    /// `k`, `(W v + t) mod L == k`. For odd `L` (and `W` a power of two) these lanes are
    /// lanes `lane[k]`, one per row, so a blend of the `L` registers by `at[k]` and one
    /// permute by `lane[k]` gather entry `k` of every row (*blend-first*).
    pub at: [[u16; L]; L],
}

#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
impl<const L: usize, const W: usize> StencilTab<L, W> {
    /// The tables.
    pub const TAB: Self = {
        let mut t = StencilTab { lane: [[0; 16]; L], from: [[0; L]; L], at: [[0; L]; L] };
        let mut v = 0;
        while v < L {
            let mut l = 0;
            while l < W {
                let f = W * v + l;
                t.at[f % L][v] |= 1 << l;
                l += 1;
            }
            v += 1;
        }
        let mut k = 0;
        while k < L {
            let mut j = 0;
            while j < W {
                let f = j * L + k;
                t.lane[k][j] = (f % W) as u32;
                t.from[k][f / W] |= 1 << j;
                j += 1;
            }
            k += 1;
        }
        t
    };
}

/// How a width tests that the `W` rows of a stencil try have one length: the part of a
/// stencil block that does not depend on the value type.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) trait RowLengths {
    /// The first entry `s` and common length `l` (1 to 7) of the `W` rows whose `row_ptr`
    /// entries are `rp` (`W + 1` of them); `None` if their lengths differ or lie outside
    /// 1 to 7. Each width compares them as vectors, which a compare per entry slowed
    /// (`benches/records/kernel-notes-2026-11.md`, "Stencil blocks in the CSR row
    /// kernels").
    ///
    /// # Safety
    /// The width's target features are enabled.
    unsafe fn lengths<const W: usize>(rp: &[u32]) -> Option<(usize, usize)>;
}

/// A width's stencil block of `L` entries a row for value type `T` (the kernels behind
/// [`Stencil::block`] once the rows' common length `L` is known).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) trait StencilBlock<T>: RowLengths {
    /// The block of rows of `L` entries from entry `s`; as [`Stencil::block`].
    ///
    /// # Safety
    /// The width's target features are enabled.
    unsafe fn block<const L: usize>(
        s: usize,
        cols: &[u32],
        vals: &[T],
        x: &[T],
        out: &mut [T; STENCIL_MAX_W],
    ) -> bool;
}

/// `K`'s block for rows of `l` entries (2 to 7; `false` for any other `l`) from entry `s`.
///
/// # Safety
/// As [`StencilBlock::block`].
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) unsafe fn stencil_by_len<T, K: StencilBlock<T>>(
    l: usize,
    s: usize,
    cols: &[u32],
    vals: &[T],
    x: &[T],
    out: &mut [T; STENCIL_MAX_W],
) -> bool {
    // SAFETY: the caller's contract.
    unsafe {
        match l {
            2 => K::block::<2>(s, cols, vals, x, out),
            3 => K::block::<3>(s, cols, vals, x, out),
            4 => K::block::<4>(s, cols, vals, x, out),
            5 => K::block::<5>(s, cols, vals, x, out),
            6 => K::block::<6>(s, cols, vals, x, out),
            7 => K::block::<7>(s, cols, vals, x, out),
            _ => false,
        }
    }
}

/// [`Stencil::block`] for a width whose register type is `V` and whose blocks `K` take `W`
/// rows: the rows' common length `l` (1 to 7) from `rp` (`W + 1` entries,
/// [`RowLengths::lengths`]), then [`one_entry_rows`] for `l == 1` or `K`'s block of `l`
/// entries a row.
///
/// # Safety
/// As [`Stencil::block`].
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) unsafe fn stencil_rows<
    V: DotVec<I = u32>,
    K: StencilBlock<V::T>,
    const W: usize,
    const B0: bool,
>(
    rp: &[u32],
    cols: &[u32],
    vals: &[V::T],
    x: &[V::T],
    alpha: V::T,
    beta: V::T,
    y: &mut [V::T],
) -> bool {
    // SAFETY: the caller's contract.
    unsafe {
        let Some((s, l)) = K::lengths::<W>(rp) else { return false };
        if l == 1 {
            return W == V::W && one_entry_rows::<V, B0>(s, cols, vals, x, alpha, beta, y);
        }
        let mut d = [V::T::ZERO; STENCIL_MAX_W];
        if !stencil_by_len::<V::T, K>(l, s, cols, vals, x, &mut d) {
            return false;
        }
        for (yi, &di) in y.iter_mut().zip(&d[..W]) {
            put::<V::T, B0>(yi, di, alpha, beta);
        }
        true
    }
}

/// A register of rows of one entry each (a diagonal, a column vector, a permutation)
/// from entry `s`: `y = alpha * (0 + vals * x[cols]) (+ beta * y)` lane by lane, `x` by
/// one load where the columns are one run (a diagonal) and by the register's gather or
/// loads otherwise, `y` written from the register. The operations are [`dot_seq`]'s and
/// [`put`]'s, so the bits are the row loop's. Why: the row loop runs its bookkeeping for
/// every row, and sums returned through memory (as the longer blocks return theirs) cost
/// a store forwarded to scalar loads per register (`benches/records/peers-spmv-onerow-*.md`).
/// `false`, writing nothing, where the entries or `y` are not there or `x` is empty or
/// too long for the gather.
///
/// # Safety
/// `V`'s width's target features are enabled.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
unsafe fn one_entry_rows<V: DotVec, const B0: bool>(
    s: usize,
    cols: &[V::I],
    vals: &[V::T],
    x: &[V::T],
    alpha: V::T,
    beta: V::T,
    y: &mut [V::T],
) -> bool {
    let w = V::W;
    let Some(xmax) = x.len().checked_sub(1).filter(|&m| m < V::MAX_X) else { return false };
    let (Some(cb), Some(vb), true) = (cols.get(s..s + w), vals.get(s..s + w), y.len() >= w) else {
        return false;
    };
    // SAFETY: the caller's promise (features); `cb`, `vb` and `y` hold `W` elements and
    // the register reads `x[..=xmax]` only, `xmax < MAX_X`.
    unsafe {
        let d = V::add(V::zero(), V::mul_run(vb.as_ptr(), cb.as_ptr(), x.as_ptr(), xmax));
        d.put::<B0>(alpha, beta, y.as_mut_ptr());
    }
    true
}

/// The columns and values of a stencil try of `w` rows of `l` entries from entry `s`
/// (`w l` of each), prefetching the streams [`PF_AHEAD`] past them (one hint per 64-byte
/// line, as the short rows do); `None` if they are not in the arrays, or if the first
/// row's columns `c_k` leave no room for `x[c_k..c_k + w]` (which a stencil block reads;
/// the width's column test then checks the other rows against them) below `2^32`.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) fn stencil_slices<'a, T>(
    cols: &'a [u32],
    vals: &'a [T],
    x_len: usize,
    s: usize,
    w: usize,
    l: usize,
) -> Option<(&'a [u32], &'a [T])> {
    let n = w * l;
    let (cb, vb) = (cols.get(s..s + n)?, vals.get(s..s + n)?);
    crate::arch::prefetch_span(cols, s + PF_AHEAD, n);
    crate::arch::prefetch_span(vals, s + PF_AHEAD, n);
    // Columns stay below 2^32 too: the widths' column tests add in 32-bit lanes.
    let end = (x_len as u64).min(1 << 32);
    cb[..l].iter().all(|&c| u64::from(c) + w as u64 <= end).then_some((cb, vb))
}

/// Most rows of a stencil block ([`DotVec::stencil`]): 16 `f32` lanes of AVX-512.
pub(crate) const STENCIL_MAX_W: usize = 16;
/// Longest wait, in rows, between two tries of a stencil block after declines.
const STENCIL_BACKOFF_MAX: usize = 4096;

/// The longest row whose streams [`row_dot`] prefetches line by line, [`PF_AHEAD`]
/// entries past its start (a row below the width's `SHORT` takes one line of each).
/// Longer rows stream long enough for the hardware prefetchers alone.
///
/// Measurements: `benches/records/kernel-notes-2026-11.md`, "PF_ROW_MAX".
const PF_ROW_MAX: usize = 256;

/// One row of [`row_loop`]: its dot product, `w` its two `row_ptr` entries.
#[inline(always)]
fn row_dot<T: Scalar, I: Index>(
    w: &[I],
    col_idx: &[I],
    vals: &[T],
    x: &[T],
    rows: Rows,
    (short_dot, long, run): Dots<
        '_,
        impl Fn(&[I], &[T], &[T]) -> T,
        impl Fn(&[I], &[T], &[T]) -> T,
        impl Fn(&[T], &[T]) -> T,
    >,
) -> T {
    let r = w[0].to_usize()..w[1].to_usize();
    let (cols, vs) = (&col_idx[r.clone()], &vals[r.clone()]);
    let n = cols.len();
    if n == 0 {
        T::ZERO
    } else if n < rows.short {
        crate::arch::prefetch(vals, r.start + PF_AHEAD);
        crate::arch::prefetch(col_idx, r.start + PF_AHEAD);
        short_dot(cols, vs, x)
    } else {
        if n <= PF_ROW_MAX {
            crate::arch::prefetch_span(col_idx, r.start + PF_AHEAD, n);
            crate::arch::prefetch_span(vals, r.start + PF_AHEAD, n);
        }
        // Only a canonical row can be a run: other rows skip the test of its ends.
        if rows.canonical
            && let Some(xs) = dense_run(cols, x)
        {
            run(vs, xs)
        } else {
            long(cols, vs, x)
        }
    }
}

/// [`row_loop`]'s three dot products: rows below `short` entries, longer rows, and rows
/// that are one run of consecutive columns.
type Dots<'a, S, L, R> = (&'a S, &'a L, &'a R);

/// How [`row_loop`] runs its rows: below `short` entries by the short dot product, and
/// whether the matrix is [`RowOrder::Canonical`](crate::RowOrder::Canonical) (for
/// [`dense_run`]).
#[derive(Clone, Copy)]
pub(crate) struct Rows {
    short: usize,
    canonical: bool,
}

/// The stretch `x[c0..c0 + n]` that a row of a canonical matrix (strictly increasing
/// columns) reads when its last column is its first plus `n - 1`: its columns are then
/// `c0, c0 + 1, ..`, known without reading the `n - 2` between, so the row streams its
/// values and that stretch of `x` and skips a third of its bytes (`col_idx`). Only for
/// canonical rows: a sorted row with duplicates or an unsorted one can have those ends
/// and other columns.
#[inline(always)]
fn dense_run<'x, T, I: Index>(cols: &[I], x: &'x [T]) -> Option<&'x [T]> {
    let (first, last) = (cols.first()?.to_usize(), cols.last()?.to_usize());
    (last.wrapping_sub(first) == cols.len() - 1).then_some(())?;
    x.get(first..first + cols.len())
}

/// One register (or fixed register group) of `W` product lanes for value type `T` and
/// index type `I`. Implemented by each width for (f32|f64) × (u32|u64); every method is
/// `#[inline(always)]` so that it inlines into the `#[target_feature]` kernel that
/// instantiates the drivers below.
///
/// Lane `j` of a gather reads `x[min(cols[j], xmax)]`: the caller passes
/// `xmax = x.len() - 1`, and `x.len() <= MAX_X`, so every read lies inside `x`.
pub(crate) trait DotVec: Copy {
    /// Value type.
    type T: Scalar;
    /// Index type.
    type I: Index;
    /// Lanes per register group.
    const W: usize;
    /// The longest `x` the gathers address (`i32::MAX` for 32-bit signed gather offsets).
    const MAX_X: usize;
    /// Rows shorter than this take [`DotVec::MASKED_SHORT`]'s path, not the four
    /// accumulators of [`simd_dot`] (measured per width).
    const SHORT: usize;
    /// Whether rows shorter than [`DotVec::SHORT`] take one masked register
    /// ([`simd_short`]) instead of the sequential loop: where the width gathers in
    /// hardware, a row of uneven short length is then one gather and no loop whose exit
    /// the branch predictor misses (MKL's CSR kernel does the same; `dc2_like`,
    /// `circuit_like`, `rmat_s14_ef16` in `benches/records/peers-spmv-short-*.md`).
    const MASKED_SHORT: bool = false;

    /// All lanes zero.
    ///
    /// # Safety
    /// The width's target features are enabled.
    unsafe fn zero() -> Self;
    /// `acc + vals[j] * x[min(cols[j], xmax)]` in every lane `j < W`.
    ///
    /// # Safety
    /// The width's target features are enabled; `vals` and `cols` are valid for reading
    /// `W` elements; `x` for `xmax + 1` elements, and `xmax < MAX_X`.
    unsafe fn fma(
        acc: Self,
        vals: *const Self::T,
        cols: *const Self::I,
        x: *const Self::T,
        xmax: usize,
    ) -> Self;
    /// As [`DotVec::fma`], for a row that may be one run of consecutive columns: where
    /// the `W` columns are `c, c + 1, ..`, `x` is read by one load instead of a gather
    /// (x86-64 widths: a compare of the columns with `c + lane` first; the default is
    /// `fma`).
    ///
    /// # Safety
    /// As [`DotVec::fma`].
    #[inline(always)]
    unsafe fn fma_run(
        acc: Self,
        vals: *const Self::T,
        cols: *const Self::I,
        x: *const Self::T,
        xmax: usize,
    ) -> Self {
        // SAFETY: the caller's contract.
        unsafe { Self::fma(acc, vals, cols, x, xmax) }
    }
    /// `vals[j] * x[min(cols[j], xmax)]` in every lane `j < W`.
    ///
    /// # Safety
    /// As [`DotVec::fma`].
    unsafe fn mul(vals: *const Self::T, cols: *const Self::I, x: *const Self::T, xmax: usize) -> Self;
    /// As [`DotVec::mul`], `x` by one load where the `W` columns are one run (as
    /// [`DotVec::fma_run`]; the default is `mul`).
    ///
    /// # Safety
    /// As [`DotVec::fma`].
    #[inline(always)]
    unsafe fn mul_run(vals: *const Self::T, cols: *const Self::I, x: *const Self::T, xmax: usize) -> Self {
        // SAFETY: the caller's contract.
        unsafe { Self::mul(vals, cols, x, xmax) }
    }
    /// `acc + vals[j] * x[..]` in lanes `j < n`, `acc` elsewhere; reads only `n` elements
    /// of `vals` and `cols`.
    ///
    /// # Safety
    /// As [`DotVec::fma`], but `vals` and `cols` need only be valid for `n < W` elements.
    unsafe fn fma_tail(
        acc: Self,
        vals: *const Self::T,
        cols: *const Self::I,
        x: *const Self::T,
        xmax: usize,
        n: usize,
    ) -> Self;
    /// Lane-wise sum.
    ///
    /// # Safety
    /// The width's target features are enabled.
    unsafe fn add(a: Self, b: Self) -> Self;
    /// Sum of all lanes.
    ///
    /// # Safety
    /// The width's target features are enabled.
    unsafe fn sum(self) -> Self::T;
    /// Stores the `W` lanes to `out`.
    ///
    /// # Safety
    /// The width's target features are enabled; `out` is valid for writing `W` elements.
    unsafe fn store(self, out: *mut Self::T);
    /// `y[j] = alpha * lane j (+ beta * y[j])` for `j < W`, [`put`]'s operations lane by
    /// lane (`B0`: `y` is never read). The default stores the lanes and runs `put`.
    ///
    /// # Safety
    /// The width's target features are enabled; `y` is valid for reading and writing
    /// `W` elements.
    #[inline(always)]
    unsafe fn put<const B0: bool>(self, alpha: Self::T, beta: Self::T, y: *mut Self::T) {
        let mut d = [Self::T::ZERO; 16];
        let w = Self::W.min(d.len());
        // SAFETY: the caller's contract; `d` holds 16 >= `w` lanes (no width has more).
        unsafe {
            self.store(d.as_mut_ptr());
            for (j, &dj) in d[..w].iter().enumerate() {
                put::<Self::T, B0>(&mut *y.add(j), dj, alpha, beta);
            }
        }
    }
    /// `acc + vals[j] * x[j]` in every lane `j < W`, by plain loads: a register of a row
    /// known to be one run of consecutive columns, `x` at the register's first column,
    /// so no column is read.
    ///
    /// # Safety
    /// The width's target features are enabled; `vals` and `x` are valid for reading
    /// `W` elements.
    unsafe fn fma_x(acc: Self, vals: *const Self::T, x: *const Self::T) -> Self;
    /// [`DotVec::fma_x`] in lanes `j < n`, `acc` elsewhere; reads only `n` elements of
    /// `vals` and `x`. The default is [`DotVec::fma_tail`] at offsets `0, 1, ..` (NEON,
    /// whose tails are scalar anyway); the x86-64 widths load under a mask.
    ///
    /// # Safety
    /// As [`DotVec::fma_x`], but `vals` and `x` need only be valid for `0 < n < W`
    /// elements.
    #[inline(always)]
    unsafe fn fma_x_tail(acc: Self, vals: *const Self::T, x: *const Self::T, n: usize) -> Self {
        let iota: [Self::I; 16] = core::array::from_fn(Self::I::from_usize_unchecked);
        // SAFETY: the masked lanes `j < n` read `vals[j]` and `x[j]`, `j <= xmax = n - 1`.
        unsafe { Self::fma_tail(acc, vals, iota.as_ptr(), x, n - 1, n) }
    }
    /// Rows in a stencil block ([`Stencil`]); 0: the width has none.
    const STENCIL_W: usize = 0;
    /// [`Stencil::block`] on this width (the default declines every block).
    ///
    /// # Safety
    /// As [`Stencil::block`].
    #[inline(always)]
    unsafe fn stencil<const B0: bool>(
        _rp: &[Self::I],
        _cols: &[Self::I],
        _vals: &[Self::T],
        _x: &[Self::T],
        _alpha: Self::T,
        _beta: Self::T,
        _y: &mut [Self::T],
    ) -> bool {
        false
    }
}

/// A width's stencil block for [`row_loop`]: `W` rows (0: none) computed at once when
/// they are one *stencil block*: all of one length below [`DotVec::SHORT`], and entry
/// `k` of row `j` at column `c_k + j`, where `c_k` is entry `k` of the first row (the
/// rows of a structured-grid operator away from the grid's edges, which DIA would store
/// by diagonals). Entry `k` of the rows is then one load of `x[c_k..]`, and the values
/// come from an in-register transpose. Rows of one entry each are a block whatever their
/// columns ([`one_entry_rows`]). A type, not a closure, so that the block inlines
/// into the width's `#[target_feature]` row loop (a closure does not inherit the features).
pub(crate) trait Stencil<T, I> {
    /// Rows per block, at most [`STENCIL_MAX_W`]; 0: no block.
    const W: usize;
    /// `y[j] = alpha * (row j · x) (+ beta * y[j])` ([`put`]; `B0`: `y` is never read)
    /// for the `W` rows whose `row_ptr` entries are `rp`, when they are a stencil block.
    /// Lane `j` adds its products in entry order from zero, by separate multiplies and
    /// adds: the operations of [`dot_seq`], so each row is bitwise the sequential loop's.
    /// Returns `false`, writing nothing, when the rows are not such a block.
    ///
    /// # Safety
    /// The width's target features are enabled; `rp` holds `W + 1` entries and `y` `W`.
    #[allow(clippy::too_many_arguments)]
    unsafe fn block<const B0: bool>(
        rp: &[I],
        cols: &[I],
        vals: &[T],
        x: &[T],
        alpha: T,
        beta: T,
        y: &mut [T],
    ) -> bool;
}

/// No stencil block (the portable width).
pub(crate) struct NoStencil;

impl<T, I> Stencil<T, I> for NoStencil {
    const W: usize = 0;
    #[inline(always)]
    unsafe fn block<const B0: bool>(_: &[I], _: &[I], _: &[T], _: &[T], _: T, _: T, _: &mut [T]) -> bool {
        false
    }
}

impl<V: DotVec> Stencil<V::T, V::I> for V {
    const W: usize = V::STENCIL_W;
    #[inline(always)]
    unsafe fn block<const B0: bool>(
        rp: &[V::I],
        cols: &[V::I],
        vals: &[V::T],
        x: &[V::T],
        alpha: V::T,
        beta: V::T,
        y: &mut [V::T],
    ) -> bool {
        // SAFETY: the caller's contract, which is `stencil`'s.
        unsafe { V::stencil::<B0>(rp, cols, vals, x, alpha, beta, y) }
    }
}

/// Whether a run of `w` columns from `c0` lies inside `x[..=xmax]` (`c0 + w - 1 <=
/// xmax`, without overflow): the bound under which a width's register reads a run of
/// consecutive columns as one load of `x` instead of a gather.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) fn run_fits(c0: u64, w: u64, xmax: usize) -> bool {
    (xmax as u64).checked_sub(w - 1).is_some_and(|last| c0 <= last)
}

/// The dot product of a row shorter than [`DotVec::SHORT`] on `V`'s lanes: whole
/// registers, then one masked tail, into one accumulator (no loop for rows under `W`),
/// summed across the lanes ([`DotVec::sum`]: another order of additions than
/// [`dot_seq`]'s, so the last bit can differ from the row-scalar method's).
///
/// # Safety
/// The width's target features are enabled.
#[inline(always)]
pub(crate) unsafe fn simd_short<V: DotVec>(cols: &[V::I], vals: &[V::T], x: &[V::T]) -> V::T {
    let n = cols.len().min(vals.len());
    if x.is_empty() || x.len() > V::MAX_X {
        return dot_seq(cols, vals, x);
    }
    let (w, xmax) = (V::W, x.len() - 1);
    let (c, v, xp) = (cols.as_ptr(), vals.as_ptr(), x.as_ptr());
    // SAFETY (every call below): the features are the caller's promise; each register
    // reads `vals[k..k + W]`/`cols[k..k + W]` with `k + W <= n`, the tail `n - k < W`
    // elements, inside both slices; gathers clamp to `xmax = x.len() - 1 < MAX_X`.
    unsafe {
        let mut acc = V::zero();
        let mut k = 0;
        while k + w <= n {
            acc = V::fma(acc, v.add(k), c.add(k), xp, xmax);
            k += w;
        }
        if k < n {
            acc = V::fma_tail(acc, v.add(k), c.add(k), xp, xmax, n - k);
        }
        acc.sum()
    }
}

/// One row's dot product on `V`'s lanes: four register accumulators over blocks of
/// `4 W`, then single registers, then one masked tail (thesis Alg. 29's per-row
/// reduction, with the row's lanes in SIMD registers instead of threads).
///
/// # Safety
/// The width's target features are enabled.
#[inline(always)]
pub(crate) unsafe fn simd_dot<V: DotVec>(cols: &[V::I], vals: &[V::T], x: &[V::T]) -> V::T {
    let n = cols.len().min(vals.len());
    if n < V::SHORT || x.is_empty() || x.len() > V::MAX_X {
        return dot_seq(cols, vals, x);
    }
    // A row whose last column is its first plus its length minus one may be one run of
    // consecutive columns (dense, banded and block rows): its registers try a load of
    // `x` before a gather. Other rows never pay for the test.
    if cols[n - 1].to_usize().wrapping_sub(cols[0].to_usize()) == n - 1 {
        // SAFETY: the caller's promise.
        unsafe { simd_dot_regs::<V, true>(cols, vals, x, n) }
    } else {
        // SAFETY: the caller's promise.
        unsafe { simd_dot_regs::<V, false>(cols, vals, x, n) }
    }
}

/// One register of [`simd_dot_regs`]: [`DotVec::fma_run`] if `RUN`, else [`DotVec::fma`].
/// (A closure here would not inherit the kernel's target features.)
///
/// # Safety
/// As [`DotVec::fma`].
#[inline(always)]
unsafe fn reg<V: DotVec, const RUN: bool>(
    acc: V,
    vals: *const V::T,
    cols: *const V::I,
    x: *const V::T,
    xmax: usize,
) -> V {
    // SAFETY: the caller's contract.
    unsafe { if RUN { V::fma_run(acc, vals, cols, x, xmax) } else { V::fma(acc, vals, cols, x, xmax) } }
}

/// [`simd_dot`]'s registers over the first `n >= SHORT` entries (`n <= ` both lengths,
/// `x` non-empty and at most `MAX_X` long), by [`DotVec::fma_run`] if `RUN`, else by
/// [`DotVec::fma`].
///
/// # Safety
/// The width's target features are enabled.
#[inline(always)]
unsafe fn simd_dot_regs<V: DotVec, const RUN: bool>(
    cols: &[V::I],
    vals: &[V::T],
    x: &[V::T],
    n: usize,
) -> V::T {
    let n = n.min(cols.len()).min(vals.len());
    let (w, xmax) = (V::W, x.len().saturating_sub(1));
    let (c, v, xp) = (cols.as_ptr(), vals.as_ptr(), x.as_ptr());
    // SAFETY (every call below): the features are the caller's promise; each register
    // reads `vals[k..k + W]`/`cols[k..k + W]` with `k + W <= n` (the tail reads `n - k`
    // elements), inside both slices; gathers clamp to `xmax = x.len() - 1 < MAX_X`.
    unsafe {
        let (mut a0, mut a1, mut a2, mut a3) = (V::zero(), V::zero(), V::zero(), V::zero());
        let mut k = 0;
        while k + 4 * w <= n {
            a0 = reg::<V, RUN>(a0, v.add(k), c.add(k), xp, xmax);
            a1 = reg::<V, RUN>(a1, v.add(k + w), c.add(k + w), xp, xmax);
            a2 = reg::<V, RUN>(a2, v.add(k + 2 * w), c.add(k + 2 * w), xp, xmax);
            a3 = reg::<V, RUN>(a3, v.add(k + 3 * w), c.add(k + 3 * w), xp, xmax);
            k += 4 * w;
        }
        while k + w <= n {
            a0 = reg::<V, RUN>(a0, v.add(k), c.add(k), xp, xmax);
            k += w;
        }
        if k < n {
            a1 = V::fma_tail(a1, v.add(k), c.add(k), xp, xmax, n - k);
        }
        V::sum(V::add(V::add(a0, a1), V::add(a2, a3)))
    }
}

/// The dot product of a row that is one run of consecutive columns, `vals` against the
/// stretch `x` of the run (equal lengths; [`dense_run`]), on `V`'s lanes as
/// [`simd_dot_regs`] but without reading a column: four register accumulators over
/// blocks of `4 W` ([`DotVec::fma_x`]), the rest in independent registers and one
/// masked tail.
///
/// Why: it skips [`simd_dot_regs`]' compare of every register's columns with a run,
/// which dense and block rows paid on both widths; rows at the streaming floor tie
/// (`examples/suite.rs --only spmv`).
///
/// # Safety
/// The width's target features are enabled.
#[inline(always)]
pub(crate) unsafe fn simd_dot_x<V: DotVec>(vals: &[V::T], x: &[V::T]) -> V::T {
    let n = vals.len().min(x.len());
    let w = V::W;
    let (v, xp) = (vals.as_ptr(), x.as_ptr());
    // SAFETY (every call below): the features are the caller's promise; each register
    // reads `vals[k..k + W]` and `x[k..k + W]` with `k + W <= n`, the tail `n - k`
    // elements of each, inside both slices.
    unsafe {
        let (mut a0, mut a1, mut a2, mut a3) = (V::zero(), V::zero(), V::zero(), V::zero());
        let mut k = 0;
        while k + 4 * w <= n {
            a0 = V::fma_x(a0, v.add(k), xp.add(k));
            a1 = V::fma_x(a1, v.add(k + w), xp.add(k + w));
            a2 = V::fma_x(a2, v.add(k + 2 * w), xp.add(k + 2 * w));
            a3 = V::fma_x(a3, v.add(k + 3 * w), xp.add(k + 3 * w));
            k += 4 * w;
        }
        // The rest (under four registers) in independent accumulators: a row of 39
        // `f32` on AVX-512 is two registers and a tail, added in parallel.
        if k + 2 * w <= n {
            a0 = V::fma_x(a0, v.add(k), xp.add(k));
            a1 = V::fma_x(a1, v.add(k + w), xp.add(k + w));
            k += 2 * w;
        }
        if k + w <= n {
            a2 = V::fma_x(a2, v.add(k), xp.add(k));
            k += w;
        }
        if k < n {
            a3 = V::fma_x_tail(a3, v.add(k), xp.add(k), n - k);
        }
        V::sum(V::add(V::add(a0, a1), V::add(a2, a3)))
    }
}

/// `out[k] = vals[k] * x[cols[k]]` for `k < min(lengths)` on `V`'s lanes (thesis Alg. 30
/// step 2, Alg. 31 lines 23–26).
///
/// # Safety
/// The width's target features are enabled.
#[inline(always)]
pub(crate) unsafe fn simd_products<V: DotVec>(cols: &[V::I], vals: &[V::T], x: &[V::T], out: &mut [V::T]) {
    let n = cols.len().min(vals.len()).min(out.len());
    if x.is_empty() || x.len() > V::MAX_X {
        portable::products_portable(cols, vals, x, out);
        return;
    }
    let (w, xmax) = (V::W, x.len() - 1);
    let (c, v, xp, o) = (cols.as_ptr(), vals.as_ptr(), x.as_ptr(), out.as_mut_ptr());
    let mut k = 0;
    while k + w <= n {
        // SAFETY: the features are the caller's promise; `k + W <= n` keeps the reads of
        // `vals`/`cols` and the write to `out` in bounds; the gather clamps to `xmax`.
        unsafe { V::mul(v.add(k), c.add(k), xp, xmax).store(o.add(k)) };
        k += w;
    }
    portable::products_portable(&cols[k..n], &vals[k..n], x, &mut out[k..n]);
}

/// Stamps out a width's `#[target_feature]` CSR kernels for one operand pair from its
/// [`DotVec`] register type: `rows_*` ([`row_loop`] around `dot_*`), `dot_*` ([`simd_dot`]) and,
/// where named, `products_*` ([`simd_products`]).
macro_rules! spmv_csr_kernels {
    ($feature:literal, $vec:ty, $t:ty, $i:ty, $rows:ident, $dot:ident $(, $products:ident)?) => {
        /// The CSR-vector row loop (thesis Alg. 29) on this width: rows of at least
        /// `SHORT` entries take this width's dot product, shorter ones one masked register
        /// or the scalar loop (`MASKED_SHORT`;
        /// [`row_loop`](crate::arch::generic::spmv_csr::row_loop)).
        ///
        /// # Safety
        /// The CPU supports the target features enabled here.
        #[target_feature(enable = $feature)]
        #[allow(clippy::too_many_arguments)]
        pub(crate) unsafe fn $rows(
            row_ptr: &[$i],
            col_idx: &[$i],
            vals: &[$t],
            x: &[$t],
            alpha: $t,
            beta: $t,
            y: &mut [$t],
            canonical: bool,
        ) {
            let short = <$vec as $crate::arch::generic::spmv_csr::DotVec>::SHORT;
            $crate::arch::generic::spmv_csr::row_loop::<$t, $i, $vec>(
                row_ptr,
                col_idx,
                vals,
                x,
                alpha,
                beta,
                y,
                short,
                canonical,
                (
                    |c: &[$i], v: &[$t], xx: &[$t]| {
                        if <$vec as $crate::arch::generic::spmv_csr::DotVec>::MASKED_SHORT {
                            // SAFETY: this width's features are enabled on this function
                            // (the caller's promise); the dot bounds its own reads.
                            unsafe { $crate::arch::generic::spmv_csr::simd_short::<$vec>(c, v, xx) }
                        } else {
                            $crate::arch::generic::spmv_csr::dot_seq(c, v, xx)
                        }
                    },
                    |c: &[$i], v: &[$t], xx: &[$t]| {
                        // SAFETY: `$dot` needs this width's features, which are enabled on
                        // this function (the caller's promise); it bounds its own reads.
                        unsafe { $dot(c, v, xx) }
                    },
                    |v: &[$t], xx: &[$t]| {
                        // SAFETY: as `$dot`.
                        unsafe { dot_x(v, xx) }
                    },
                ),
            );

            /// One row of consecutive columns on this width; see
            /// [`simd_dot_x`](crate::arch::generic::spmv_csr::simd_dot_x). Out of line,
            /// as `$dot`.
            ///
            /// # Safety
            /// The CPU supports the target features enabled here.
            #[inline(never)]
            #[target_feature(enable = $feature)]
            unsafe fn dot_x(vals: &[$t], x: &[$t]) -> $t {
                // SAFETY: the features are enabled on this function; the reads are
                // bounded inside.
                unsafe { $crate::arch::generic::spmv_csr::simd_dot_x::<$vec>(vals, x) }
            }
        }

        /// One row's dot product on this width; see
        /// [`simd_dot`](crate::arch::generic::spmv_csr::simd_dot). Out of line: the row
        /// loop calls it for long rows only.
        ///
        /// # Safety
        /// The CPU supports the target features enabled here.
        #[inline(never)]
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn $dot(cols: &[$i], vals: &[$t], x: &[$t]) -> $t {
            // SAFETY: the features are enabled on this function; bounds are checked inside.
            unsafe { $crate::arch::generic::spmv_csr::simd_dot::<$vec>(cols, vals, x) }
        }

        $(
            /// Entry-wise products on this width; see
            /// [`simd_products`](crate::arch::generic::spmv_csr::simd_products).
            ///
            /// # Safety
            /// The CPU supports the target features enabled here.
            #[target_feature(enable = $feature)]
            pub(crate) unsafe fn $products(cols: &[$i], vals: &[$t], x: &[$t], out: &mut [$t]) {
                // SAFETY: the features are enabled on this function; bounds are checked
                // inside.
                unsafe { $crate::arch::generic::spmv_csr::simd_products::<$vec>(cols, vals, x, out) }
            }
        )?
    };
}

#[allow(unused_imports)]
pub(crate) use spmv_csr_kernels;

/// One row's dot product in the CSR-vector row loop where `V` fills its lanes by scalar
/// loads ([`crate::Gathers::Loads`]; `w` its two `row_ptr` entries): [`simd_short`]
/// (rows shorter than [`DotVec::SHORT`]), [`simd_dot_x`] (a canonical row of one run of
/// columns) or [`simd_dot`], inline and without [`row_dot`]'s prefetch hints: with
/// loads in place of gathers the rows' bookkeeping is what is left of their cost, and
/// those hints and calls cost these rows more than they gave
/// (`benches/records/row-vector-loads-*.md`). The registers and sums are [`row_dot`]'s, so
/// the values are those of the gathers. The loop around it is [`row_loop`]'s
/// (stencil blocks included).
///
/// # Safety
/// `V`'s width's target features are enabled.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline(always)]
pub(crate) unsafe fn loads_row_dot<V: DotVec>(
    w: &[V::I],
    col_idx: &[V::I],
    vals: &[V::T],
    x: &[V::T],
    canonical: bool,
) -> V::T {
    let r = w[0].to_usize()..w[1].to_usize();
    let (cols, vs) = (&col_idx[r.clone()], &vals[r]);
    let n = cols.len();
    if n == 0 {
        V::T::ZERO
    } else if n < V::SHORT {
        // SAFETY: the caller's promise; the dot bounds its reads.
        unsafe { simd_short::<V>(cols, vs, x) }
    } else if canonical && let Some(xs) = dense_run(cols, x) {
        // SAFETY: as above.
        unsafe { simd_dot_x::<V>(vs, xs) }
    } else {
        // SAFETY: as above.
        unsafe { simd_dot::<V>(cols, vs, x) }
    }
}

/// [`row_loop`] with `row` for each row's dot product (`row` gets the row's two
/// `row_ptr` entries): the stencil blocks of `S`, `beta == 0` never reading `y`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn row_loop_with<T: Scalar, I: Index, S: Stencil<T, I>>(
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[T],
    x: &[T],
    alpha: T,
    beta: T,
    y: &mut [T],
    row: impl Fn(&[I]) -> T,
) {
    if beta == T::ZERO {
        rows_by::<T, I, S, true>(row_ptr, col_idx, vals, x, alpha, beta, y, row);
    } else {
        rows_by::<T, I, S, false>(row_ptr, col_idx, vals, x, alpha, beta, y, row);
    }
}

/// The entry point `$rows` of the row loop by [`loads_row_dot`] of one width (`$feature`) for the register
/// type `$vec` (its lanes filled by scalar loads) of one (value, index) pair.
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_macros))]
macro_rules! loads_rows_kernel {
    ($feature:literal, $vec:ty, $t:ty, $i:ty, $rows:ident) => {
        /// The CSR-vector row loop on this width with `x` read by scalar loads; see
        /// [`loads_row_dot`](crate::arch::generic::spmv_csr::loads_row_dot).
        ///
        /// # Safety
        /// The CPU supports the target features enabled here.
        #[target_feature(enable = $feature)]
        #[allow(clippy::too_many_arguments)]
        pub(crate) unsafe fn $rows(
            row_ptr: &[$i],
            col_idx: &[$i],
            vals: &[$t],
            x: &[$t],
            alpha: $t,
            beta: $t,
            y: &mut [$t],
            canonical: bool,
        ) {
            // The closure is written here so that it inherits this function's features.
            $crate::arch::generic::spmv_csr::row_loop_with::<$t, $i, $vec>(
                row_ptr,
                col_idx,
                vals,
                x,
                alpha,
                beta,
                y,
                #[inline(always)]
                |w: &[$i]| {
                    // SAFETY: the features are enabled on this function (the caller's
                    // promise); the dot bounds its reads.
                    unsafe {
                        $crate::arch::generic::spmv_csr::loads_row_dot::<$vec>(w, col_idx, vals, x, canonical)
                    }
                },
            )
        }
    };
}
#[allow(unused_imports)]
pub(crate) use loads_rows_kernel;

/// The row-scalar loop (thesis Alg. 28): `y[i] = alpha * Σ vals[k] * x[cols[k]] + beta *
/// y[i]` over the rows `row_ptr[i]..row_ptr[i + 1]` (`row_ptr.len() == y.len() + 1`), each
/// row's products added in order into one running sum, so every width and the plain loop
/// give the same bits. `beta == 0` never uses `y`. Safe code: compiled into each width's
/// [`scalar_rows_kernels`] so that its selects below become the width's masked moves or
/// blends (the x86-64 baseline has neither and branches instead).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn scalar_row_loop<T: Scalar, I: Index>(
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[T],
    x: &[T],
    alpha: T,
    beta: T,
    y: &mut [T],
) {
    let Some(&first) = row_ptr.first() else { return };
    let mut start = first.to_usize();
    for (yi, end) in y.iter_mut().zip(&row_ptr[1..]) {
        let r = start..end.to_usize();
        start = r.end;
        let dot = scalar_dot(&col_idx[r.clone()], &vals[r], x);
        *yi = if beta == T::ZERO { alpha * dot } else { alpha * dot + beta * *yi };
    }
}

/// One row's `Σ vals[k] * x[cols[k]]` in order into one running sum. The first `len mod 4`
/// entries are added without a branch on their count (three selected products; an
/// unselected one adds `+0.0`, which leaves a sum that starts at `+0.0` unchanged), the
/// rest four per pass. Why: a loop over rows of uneven length mispredicts its exit about
/// once a row, and a separate loop for the remainder a second time; here only the loop of
/// fours is left, whose trip count varies four times less (`benches/records/peers-rowscalar-*`).
/// Four entries a pass also keep the loop bound by its additions wherever it lands in the
/// code: the plain loop's body is so short that straddling a 64-byte line made the front
/// end set its speed (`benches/records/house-2-*`).
#[inline(always)]
fn scalar_dot<T: Scalar, I: Index>(cols: &[I], vals: &[T], x: &[T]) -> T {
    let n = cols.len().min(vals.len());
    let mut acc = T::ZERO;
    if n == 0 {
        return acc;
    }
    let r = n % 4;
    for i in 0..3 {
        let k = if i < r { i } else { 0 };
        let p = vals[k] * x[cols[k].to_usize()];
        acc += if i < r { p } else { T::ZERO };
    }
    for (c, v) in cols[r..n].chunks_exact(4).zip(vals[r..n].chunks_exact(4)) {
        acc += v[0] * x[c[0].to_usize()];
        acc += v[1] * x[c[1].to_usize()];
        acc += v[2] * x[c[2].to_usize()];
        acc += v[3] * x[c[3].to_usize()];
    }
    acc
}

/// The [`scalar_row_loop`] entry points of one width (`$feature`), one per value and index
/// type of its kernels.
macro_rules! scalar_rows_kernels {
    ($feature:literal) => {
        $crate::arch::generic::spmv_csr::scalar_rows_kernels!(@one $feature, f64, u32, scalar_rows_f64_u32);
        $crate::arch::generic::spmv_csr::scalar_rows_kernels!(@one $feature, f64, u64, scalar_rows_f64_u64);
        $crate::arch::generic::spmv_csr::scalar_rows_kernels!(@one $feature, f32, u32, scalar_rows_f32_u32);
        $crate::arch::generic::spmv_csr::scalar_rows_kernels!(@one $feature, f32, u64, scalar_rows_f32_u64);
    };
    (@one $feature:literal, $t:ty, $i:ty, $name:ident) => {
        /// The row-scalar loop ([`scalar_row_loop`](crate::arch::generic::spmv_csr::scalar_row_loop))
        /// compiled for this width.
        ///
        /// # Safety
        /// The CPU supports the target features enabled here.
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn $name(
            row_ptr: &[$i],
            col_idx: &[$i],
            vals: &[$t],
            x: &[$t],
            alpha: $t,
            beta: $t,
            y: &mut [$t],
        ) {
            $crate::arch::generic::spmv_csr::scalar_row_loop(row_ptr, col_idx, vals, x, alpha, beta, y)
        }
    };
}
#[allow(unused_imports)]
pub(crate) use scalar_rows_kernels;

/// Whether `A` is exactly `B`, or `usize`, `i32` or `i64` standing for the unsigned type
/// of its width: a validated view holds no negative `i32` / `i64` index, and a
/// non-negative one has the bits of the unsigned value (the `Index` contract).
#[inline(always)]
fn same_type<A: 'static, B: 'static>() -> bool {
    let (a, b) = (TypeId::of::<A>(), TypeId::of::<B>());
    a == b
        || ((a == TypeId::of::<usize>() || a == TypeId::of::<i32>() || a == TypeId::of::<i64>())
            && size_of::<A>() == size_of::<B>()
            && (b == TypeId::of::<u64>() || b == TypeId::of::<u32>()))
}

/// `s` as a slice of `B` when `A` is `B` (see [`same_type`]).
#[inline(always)]
pub(crate) fn cast<A: bytemuck::Pod, B: bytemuck::Pod>(s: &[A]) -> Option<&[B]> {
    if same_type::<A, B>() { bytemuck::try_cast_slice(s).ok() } else { None }
}

/// `s` as a mutable slice of `B` when `A` is `B`.
#[inline(always)]
pub(crate) fn cast_mut<A: bytemuck::Pod, B: bytemuck::Pod>(s: &mut [A]) -> Option<&mut [B]> {
    if same_type::<A, B>() { bytemuck::try_cast_slice_mut(s).ok() } else { None }
}

/// `v` as a `B` when `A` is `B`.
#[inline(always)]
pub(crate) fn cast_val<A: bytemuck::Pod, B: bytemuck::Pod>(v: A) -> Option<B> {
    if same_type::<A, B>() { bytemuck::try_cast(v).ok() } else { None }
}

/// [`crate::arch::dispatch!`] into this family's entry points, the portable one named
/// as the widths' (`$f`).
macro_rules! dispatch {
    ($isa:expr, $f:ident($($arg:expr),*)) => {{
        // WebAssembly SIMD has this family only, so it is named here rather than in
        // `arch::dispatch!`.
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        if $isa.isa() == crate::Isa::Wasm128 {
            // SAFETY: `simd128` is compiled into the whole module.
            unsafe { crate::arch::wasm32::simd128::spmv_csr::$f($($arg),*) }
        } else {
            crate::arch::dispatch!($isa, spmv_csr::$f($($arg),*), else portable::$f($($arg),*))
        }
        #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
        crate::arch::dispatch!($isa, spmv_csr::$f($($arg),*), else portable::$f($($arg),*))
    }};
}

/// Returns from the enclosing row-loop dispatcher through the width's entry point for the
/// (value, index) pair that `T` and `I` are — `$f64_u32`, `$f64_u64`, `$f32_u32` or
/// `$f32_u64` — with the row loop's arrays and scalars as that pair and then `$extra`;
/// falls through for pairs the widths lack (the caller's portable loop follows).
macro_rules! row_entry {
    (
        $isa:expr, [$f64_u32:ident, $f64_u64:ident, $f32_u32:ident, $f32_u64:ident],
        ($rp:expr, $ci:expr, $v:expr, $x:expr, $al:expr, $be:expr, $y:expr) $(, $extra:expr)*
    ) => {
        row_entry!(via dispatch, $isa, [$f64_u32, $f64_u64, $f32_u32, $f32_u64], ($rp, $ci, $v, $x, $al, $be, $y) $(, $extra)*)
    };
    (
        via $via:ident, $isa:expr, [$f64_u32:ident, $f64_u64:ident, $f32_u32:ident, $f32_u64:ident],
        ($rp:expr, $ci:expr, $v:expr, $x:expr, $al:expr, $be:expr, $y:expr) $(, $extra:expr)*
    ) => {
        row_entry!(@one $via, $isa, f64, u32, $f64_u32, ($rp, $ci, $v, $x, $al, $be, $y) $(, $extra)*);
        row_entry!(@one $via, $isa, f64, u64, $f64_u64, ($rp, $ci, $v, $x, $al, $be, $y) $(, $extra)*);
        row_entry!(@one $via, $isa, f32, u32, $f32_u32, ($rp, $ci, $v, $x, $al, $be, $y) $(, $extra)*);
        row_entry!(@one $via, $isa, f32, u64, $f32_u64, ($rp, $ci, $v, $x, $al, $be, $y) $(, $extra)*);
    };
    (
        @one $via:ident, $isa:expr, $t:ty, $i:ty, $f:ident,
        ($rp:expr, $ci:expr, $v:expr, $x:expr, $al:expr, $be:expr, $y:expr) $(, $extra:expr)*
    ) => {
        if let (Some(rp), Some(ci), Some(v), Some(xx), Some(al), Some(be)) = (
            cast::<_, $i>($rp),
            cast::<_, $i>($ci),
            cast::<_, $t>($v),
            cast::<_, $t>($x),
            cast_val::<_, $t>($al),
            cast_val::<_, $t>($be),
        ) && let Some(yy) = cast_mut::<_, $t>($y)
        {
            return $via!($isa, $f(rp, ci, v, xx, al, be, yy $(, $extra)*));
        }
    };
}

/// Whether the x86-64 row-vector kernels read an `x` of `bytes` bytes by scalar loads
/// instead of gathers: where this core's gathers are slow ([`crate::Gathers::Loads`]) and
/// `x` fits in a core's own caches. Further out every read waits on memory, and a gather,
/// one instruction however many lanes, kept more of them in flight
/// (`benches/records/row-vector-loads-*.md`). Always `false` off x86-64.
#[inline]
pub(crate) fn x_by_loads(bytes: usize) -> bool {
    cfg!(target_arch = "x86_64")
        && bytes <= LOADS_X_BYTES
        && crate::Gathers::current() == crate::Gathers::Loads
}

/// The largest `x`, in bytes, that [`x_by_loads`] reads by scalar loads: beyond the
/// second-level cache of current x86-64 cores (1–2 MiB), within reach of their shared
/// third level.
const LOADS_X_BYTES: usize = 4 << 20;

/// The CSR-vector row loop (thesis Alg. 29) on `isa`: `y[i] = alpha * (row i · x) +
/// beta * y[i]`, row `i` bounded by `row_ptr[i]..row_ptr[i + 1]` (`row_ptr.len() ==
/// y.len() + 1`). `beta == 0` never reads `y`. `canonical`: the rows are strictly
/// increasing, so rows of one run read `x` without `col_idx` ([`dense_run`]).
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn rows<T: Scalar, I: Index>(
    isa: Checked,
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[T],
    x: &[T],
    alpha: T,
    beta: T,
    y: &mut [T],
    canonical: bool,
) {
    #[cfg(target_arch = "x86_64")]
    if matches!(isa.isa(), crate::Isa::Avx2 | crate::Isa::Avx512) && x_by_loads(size_of_val(x)) {
        /// The x86-64 widths' entry point `$f` (the guard above leaves no other `Isa`).
        macro_rules! x86 {
            ($c:expr, $f:ident($($arg:expr),*)) => {
                if $c.isa() == crate::Isa::Avx512 {
                    // SAFETY: `Checked` proves AVX-512 F/VL/BW/DQ (and AVX2) available.
                    unsafe { crate::arch::x86_64::avx512::spmv_csr::$f($($arg),*) }
                } else {
                    // SAFETY: `Checked` proves AVX2 (+FMA) available.
                    unsafe { crate::arch::x86_64::avx2::spmv_csr::$f($($arg),*) }
                }
            };
        }
        row_entry!(
            via x86,
            isa,
            [rows_loads_f64_u32, rows_loads_f64_u64, rows_loads_f32_u32, rows_loads_f32_u64],
            (row_ptr, col_idx, vals, x, alpha, beta, y),
            canonical
        );
    }
    row_entry!(
        isa,
        [rows_f64_u32, rows_f64_u64, rows_f32_u32, rows_f32_u64],
        (row_ptr, col_idx, vals, x, alpha, beta, y),
        canonical
    );
    portable::rows_portable(row_ptr, col_idx, vals, x, alpha, beta, y, canonical);
}

/// The row-scalar loop ([`scalar_row_loop`]) on `isa`: the same additions in the same
/// order on every width (bit for bit the plain loop), compiled with the width's features.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn scalar_rows<T: Scalar, I: Index>(
    isa: Checked,
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[T],
    x: &[T],
    alpha: T,
    beta: T,
    y: &mut [T],
) {
    row_entry!(
        isa,
        [scalar_rows_f64_u32, scalar_rows_f64_u64, scalar_rows_f32_u32, scalar_rows_f32_u64],
        (row_ptr, col_idx, vals, x, alpha, beta, y)
    );
    scalar_row_loop(row_ptr, col_idx, vals, x, alpha, beta, y);
}

/// One dot product `Σ vals[k] * x[cols[k]]` on `isa` (the summation order is the
/// width's: several accumulators).
#[inline]
pub(crate) fn dot<T: Scalar, I: Index>(isa: Checked, cols: &[I], vals: &[T], x: &[T]) -> T {
    macro_rules! on {
        ($t:ty, $i:ty, $f:ident) => {
            if let (Some(c), Some(v), Some(xx)) = (cast::<I, $i>(cols), cast::<T, $t>(vals), cast::<T, $t>(x))
            {
                let d: $t = dispatch!(isa, $f(c, v, xx));
                if let Some(d) = cast_val::<$t, T>(d) {
                    return d;
                }
            }
        };
    }
    on!(f64, u32, dot_f64_u32);
    on!(f64, u64, dot_f64_u64);
    on!(f32, u32, dot_f32_u32);
    on!(f32, u64, dot_f32_u64);
    portable::dot_unrolled(cols, vals, x)
}

/// `out[k] = vals[k] * x[cols[k]]` for `k < min(lengths)` on `isa`.
#[inline]
pub(crate) fn products<T: Scalar, I: Index>(isa: Checked, cols: &[I], vals: &[T], x: &[T], out: &mut [T]) {
    macro_rules! on {
        ($t:ty, $i:ty, $f:ident) => {
            if let (Some(c), Some(v), Some(xx)) = (cast::<I, $i>(cols), cast::<T, $t>(vals), cast::<T, $t>(x))
                && let Some(o) = cast_mut::<T, $t>(out)
            {
                dispatch!(isa, $f(c, v, xx, o));
                return;
            }
        };
    }
    on!(f64, u32, products_f64_u32);
    on!(f64, u64, products_f64_u64);
    on!(f32, u32, products_f32_u32);
    on!(f32, u64, products_f32_u64);
    portable::products_portable(cols, vals, x, out);
}

/// The symmetric-storage SpMV of one block on `isa` ([`sym_loop`](super::spmv_sym::sym_loop)
/// with the width's dot product for long rows); returns the cross entries it left out.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn sym<T: Scalar, I: Index>(
    isa: Checked,
    row_ptr: &[I],
    col_idx: &[I],
    vals: &[T],
    x: &[T],
    alpha: T,
    beta: T,
    y: &mut [T],
    b: super::spmv_sym::SymBlock,
) -> super::spmv_sym::Cross {
    row_entry!(
        isa,
        [sym_f64_u32, sym_f64_u64, sym_f32_u32, sym_f32_u64],
        (row_ptr, col_idx, vals, x, alpha, beta, y),
        b
    );
    portable::sym_portable(row_ptr, col_idx, vals, x, alpha, beta, y, b)
}
