//! CSR → CSR5 (thesis 6.3.3–6.3.4, Alg. 24–26): the tile walk that finds each tile's
//! rows, heads and empty rows, the descriptor words, and the tile transposition.

use super::tile::DescFormat;
use crate::Index;

/// Largest tile (`omega * sigma`) the in-place transposition handles: its visited set is
/// a stack bitset of this many bits (256 bytes).
pub(crate) const MAX_TILE: usize = crate::arch::portable::spmv_csr5::MAX_SEGMENTS;

/// One complete tile as the walk sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TileRows {
    /// The row holding the tile's first entry (`tile_ptr[t]` without the flag).
    pub r0: usize,
    /// The row holding the first entry after the tile, or `nrows` when the tile ends the
    /// entries (`tile_ptr[t + 1]` without the flag).
    pub r1: usize,
    /// Whether a row strictly between `r0` and `r1` is empty (the `tile_ptr` flag).
    pub dirty: bool,
}

/// The row holding entry `e` (the largest `r` with `row_ptr[r] <= e`; `nrows` for
/// `e >= nnz`), walking forward from a row `r` known not to be past it.
#[inline]
pub(crate) fn advance<I: Index>(row_ptr: &[I], mut r: usize, e: usize) -> usize {
    let nrows = row_ptr.len() - 1;
    while r < nrows && row_ptr[r + 1].to_usize() <= e {
        r += 1;
    }
    r
}

/// Walks tile `start..start + len` whose first entry lies in row `r0`, calling
/// `on_head(row, position_in_tile)` for each segment head in order — position 0 (row
/// `r0`, the forced head of 6.3.4) first — and returns the tile's [`TileRows`].
///
/// Costs one step per row the tile touches; a row whose head lies in the tile is a head,
/// a row strictly between `r0` and the row after the tile that is empty makes it dirty.
#[inline]
pub(crate) fn walk_tile<I: Index>(
    row_ptr: &[I],
    start: usize,
    len: usize,
    r0: usize,
    mut on_head: impl FnMut(usize, usize),
) -> TileRows {
    let nrows = row_ptr.len() - 1;
    let end = start + len;
    on_head(r0, 0);
    let mut dirty = false;
    let mut r = r0;
    while r < nrows && row_ptr[r + 1].to_usize() <= end {
        r += 1;
        if r == nrows {
            break;
        }
        let (s, e) = (row_ptr[r].to_usize(), row_ptr[r + 1].to_usize());
        if e > end {
            // `r` holds entry `end`: it is `r1`, and a head here if it starts before `end`.
            if s < end {
                on_head(r, s - start);
            }
        } else if s == e {
            // An empty row between `r0` and `r1` (one at position `end` included): this
            // tile writes it.
            dirty = true;
        } else {
            on_head(r, s - start);
        }
    }
    TileRows { r0, r1: r, dirty }
}

/// The `omega` descriptor words of one tile from its head positions (Alg. 25):
/// `bit_flag` per lane, `y_offset` = heads in lanes to the left, `seg_offset` = headless
/// lanes contiguous to the right.
pub(crate) fn lane_words(format: DescFormat, omega: usize, flags: &mut [u32]) {
    // `flags` holds the raw bit_flag of each lane on entry and the packed words on exit.
    let mut seg = [0usize; 64];
    for i in (0..omega.saturating_sub(1)).rev() {
        seg[i] = if flags[i + 1] == 0 { seg[i + 1] + 1 } else { 0 };
    }
    let mut y = 0usize;
    for (i, f) in flags.iter_mut().enumerate().take(omega) {
        let bits = *f;
        *f = format.pack(bits, y, seg[i]);
        y += bits.count_ones() as usize;
    }
}

/// Copies whole tiles of `src` into `dst` transposed (lane-major → step-major), and the
/// remainder after the last whole tile unchanged.
pub(crate) fn transpose_tiles<X: Copy>(src: &[X], dst: &mut [X], omega: usize, sigma: usize) {
    let len = omega * sigma;
    let whole = src.len() / len * len;
    for (s, d) in src[..whole].chunks_exact(len).zip(dst[..whole].chunks_exact_mut(len)) {
        for (i, lane) in s.chunks_exact(sigma).enumerate() {
            for (j, &v) in lane.iter().enumerate() {
                d[j * omega + i] = v;
            }
        }
    }
    dst[whole..src.len()].copy_from_slice(&src[whole..]);
}

/// Copies whole tiles of `src` into `dst` back to CSR order (step-major → lane-major),
/// and the remainder unchanged: the inverse of [`transpose_tiles`].
pub(crate) fn untranspose_tiles<X: Copy>(src: &[X], dst: &mut [X], omega: usize, sigma: usize) {
    transpose_tiles(src, dst, sigma, omega);
}

/// Transposes every whole tile of `a` and `b` in place by following the cycles of the
/// permutation `k -> (k % cols) * rows + k / cols` (a `rows × cols` row-major block to
/// `cols × rows`), with a stack bitset of visited positions; `rows * cols <= MAX_TILE`.
pub(crate) fn transpose_in_place<A: Copy, B: Copy>(a: &mut [A], b: &mut [B], rows: usize, cols: usize) {
    let len = rows * cols;
    debug_assert!(len <= MAX_TILE && a.len() == b.len());
    if len <= 1 || rows == 1 || cols == 1 {
        return;
    }
    let whole = a.len() / len * len;
    for (ta, tb) in a[..whole].chunks_exact_mut(len).zip(b[..whole].chunks_exact_mut(len)) {
        let mut seen = [0u64; MAX_TILE / 64];
        for k0 in 1..len - 1 {
            if seen[k0 / 64] >> (k0 % 64) & 1 == 1 {
                continue;
            }
            let (mut va, mut vb) = (ta[k0], tb[k0]);
            let mut k = k0;
            loop {
                let next = (k % cols) * rows + k / cols;
                seen[next / 64] |= 1 << (next % 64);
                core::mem::swap(&mut va, &mut ta[next]);
                core::mem::swap(&mut vb, &mut tb[next]);
                k = next;
                if k == k0 {
                    break;
                }
            }
        }
    }
}
