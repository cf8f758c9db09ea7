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

/// The `omega * words_per_lane` descriptor words of one tile from its head positions
/// (Alg. 25): `bit_flag` per lane, `y_offset` = heads in lanes to the left, `seg_offset`
/// = headless lanes contiguous to the right.
pub(crate) fn lane_words(format: DescFormat, omega: usize, flags: &[u32], words: &mut [u32]) {
    let mut seg = [0usize; 64];
    for i in (0..omega.saturating_sub(1)).rev() {
        seg[i] = if flags[i + 1] == 0 { seg[i + 1] + 1 } else { 0 };
    }
    let mut y = 0usize;
    for (i, &bits) in flags.iter().enumerate().take(omega) {
        format.pack(words, omega, i, bits, y, seg[i]);
        y += bits.count_ones() as usize;
    }
}

/// Copies whole tiles of `(src_a, src_b)` into `(dst_a, dst_b)` transposed (lane-major
/// → step-major: original position `i * sigma + j` to `j * omega + i`), and the remainder
/// after the last whole tile unchanged. Both arrays go through one tile at a time while
/// it is in L1; `omega` of 2..32 gets a loop with the lane count fixed at compile time.
pub(crate) fn transpose_tiles<A: Copy, B: Copy>(
    src_a: &[A],
    src_b: &[B],
    dst_a: &mut [A],
    dst_b: &mut [B],
    omega: usize,
    sigma: usize,
) {
    match omega {
        2 => tiles_w::<A, B, 2>(src_a, src_b, dst_a, dst_b, sigma),
        4 => tiles_w::<A, B, 4>(src_a, src_b, dst_a, dst_b, sigma),
        8 => tiles_w::<A, B, 8>(src_a, src_b, dst_a, dst_b, sigma),
        16 => tiles_w::<A, B, 16>(src_a, src_b, dst_a, dst_b, sigma),
        32 => tiles_w::<A, B, 32>(src_a, src_b, dst_a, dst_b, sigma),
        _ => {
            // omega == 1 (or any other): the transposition is the identity per lane order.
            let whole = src_a.len() / (omega * sigma).max(1) * (omega * sigma);
            for (k, (&a, &b)) in src_a[..whole].iter().zip(&src_b[..whole]).enumerate() {
                let (t, r) = (k / (omega * sigma), k % (omega * sigma));
                let d = t * omega * sigma + (r % sigma) * omega + r / sigma;
                dst_a[d] = a;
                dst_b[d] = b;
            }
            dst_a[whole..src_a.len()].copy_from_slice(&src_a[whole..]);
            dst_b[whole..src_b.len()].copy_from_slice(&src_b[whole..]);
        }
    }
}

fn tiles_w<A: Copy, B: Copy, const W: usize>(
    src_a: &[A],
    src_b: &[B],
    dst_a: &mut [A],
    dst_b: &mut [B],
    sigma: usize,
) {
    let len = W * sigma;
    let whole = src_a.len() / len * len;
    let tiles = src_a[..whole]
        .chunks_exact(len)
        .zip(src_b[..whole].chunks_exact(len))
        .zip(dst_a[..whole].chunks_exact_mut(len).zip(dst_b[..whole].chunks_exact_mut(len)));
    for ((sa, sb), (da, db)) in tiles {
        for (j, (oa, ob)) in da.chunks_exact_mut(W).zip(db.chunks_exact_mut(W)).enumerate() {
            for i in 0..W {
                oa[i] = sa[i * sigma + j];
                ob[i] = sb[i * sigma + j];
            }
        }
    }
    dst_a[whole..src_a.len()].copy_from_slice(&src_a[whole..]);
    dst_b[whole..src_b.len()].copy_from_slice(&src_b[whole..]);
}

/// Copies whole tiles back to CSR order (step-major → lane-major), and the remainder
/// unchanged: the inverse of [`transpose_tiles`].
pub(crate) fn untranspose_tiles<A: Copy, B: Copy>(
    src_a: &[A],
    src_b: &[B],
    dst_a: &mut [A],
    dst_b: &mut [B],
    omega: usize,
    sigma: usize,
) {
    let len = omega * sigma;
    let whole = src_a.len() / len.max(1) * len;
    for (((sa, sb), da), db) in src_a[..whole]
        .chunks_exact(len)
        .zip(src_b[..whole].chunks_exact(len))
        .zip(dst_a[..whole].chunks_exact_mut(len))
        .zip(dst_b[..whole].chunks_exact_mut(len))
    {
        for (i, (oa, ob)) in da.chunks_exact_mut(sigma).zip(db.chunks_exact_mut(sigma)).enumerate() {
            for j in 0..sigma {
                oa[j] = sa[j * omega + i];
                ob[j] = sb[j * omega + i];
            }
        }
    }
    dst_a[whole..src_a.len()].copy_from_slice(&src_a[whole..]);
    dst_b[whole..src_b.len()].copy_from_slice(&src_b[whole..]);
}

/// Transposes every whole tile of `a` and `b` in place (a `rows × cols` row-major block
/// to `cols × rows`; `rows * cols <= MAX_TILE`): each tile is copied to a stack buffer
/// (one array at a time, at most `MAX_TILE` elements of 8 bytes: 4 KiB) and written back
/// transposed, so every cache line is read once and written once, with no second copy
/// of the matrix and no per-element division.
pub(crate) fn transpose_in_place<A: Copy + Default, B: Copy + Default>(
    a: &mut [A],
    b: &mut [B],
    rows: usize,
    cols: usize,
) {
    transpose_one(a, rows, cols);
    transpose_one(b, rows, cols);
}

fn transpose_one<X: Copy + Default>(v: &mut [X], rows: usize, cols: usize) {
    let len = rows * cols;
    if len <= 1 || rows == 1 || cols == 1 || len > MAX_TILE {
        return;
    }
    let mut buf = [X::default(); MAX_TILE];
    let whole = v.len() / len * len;
    for tile in v[..whole].chunks_exact_mut(len) {
        buf[..len].copy_from_slice(tile);
        for (c, out) in tile.chunks_exact_mut(rows).enumerate() {
            for (r, o) in out.iter_mut().enumerate() {
                *o = buf[r * cols + c];
            }
        }
    }
}
