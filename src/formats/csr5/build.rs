//! CSR → CSR5 (thesis 6.3.3–6.3.4, Alg. 24–26): the tile walk that finds each tile's
//! rows, heads and empty rows, the descriptor words, and the tile transposition.

use bytemuck::Pod;

use super::tile::DescFormat;
use crate::Index;
use crate::arch::Checked;
use crate::arch::generic::scan::STREAM_MIN_BYTES;
use crate::arch::generic::transpose::{Line, transpose_tiles_in_place_on, transpose_tiles_on};

/// Largest tile (`omega * sigma`) the in-place transposition handles: its stack buffer
/// holds this many entries (4 KiB of 8-byte entries).
pub(crate) use crate::arch::generic::transpose::MAX_TILE;

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
    // Right to left, so `seg_offset` needs no array: `y_offset` is the heads of the whole
    // tile less those of this lane and the lanes to its right.
    let flags = &flags[..omega.min(flags.len())];
    let mut y: usize = flags.iter().map(|b| b.count_ones() as usize).sum();
    let mut seg = 0;
    for (i, &bits) in flags.iter().enumerate().rev() {
        y -= bits.count_ones() as usize;
        format.pack(words, omega, i, bits, y, seg);
        seg = if bits == 0 { seg + 1 } else { 0 };
    }
}

/// Copies whole tiles of `(src_a, src_b)` into `(dst_a, dst_b)` transposed (lane-major
/// → step-major: original position `i * sigma + j` to `j * omega + i`), and the remainder
/// after the last whole tile unchanged, one array after the other, by register-block
/// transposes on the widest `Isa` of this machine (`arch::generic::transpose`; the result
/// is the same on every `Isa`). When the two outputs together reach
/// [`STREAM_MIN_BYTES`] they are written with non-temporal stores (x86-64).
pub(crate) fn transpose_tiles<A: Pod, B: Pod>(
    src_a: &[A],
    src_b: &[B],
    dst_a: &mut [A],
    dst_b: &mut [B],
    omega: usize,
    sigma: usize,
) {
    let (isa, stream) = (Checked::detect(), streams(dst_a, dst_b));
    transpose_tiles_on(isa, src_a, dst_a, (omega, sigma), stream);
    transpose_tiles_on(isa, src_b, dst_b, (omega, sigma), stream);
}

/// Whether a copy into `a` and `b` is large enough to stream ([`STREAM_MIN_BYTES`]).
fn streams<A, B>(a: &[A], b: &[B]) -> bool {
    core::mem::size_of_val(a).saturating_add(core::mem::size_of_val(b)) >= STREAM_MIN_BYTES
}

/// Copies whole tiles back to CSR order (step-major → lane-major), and the remainder
/// unchanged: the inverse of [`transpose_tiles`] (streamed as it is).
pub(crate) fn untranspose_tiles<A: Pod, B: Pod>(
    src_a: &[A],
    src_b: &[B],
    dst_a: &mut [A],
    dst_b: &mut [B],
    omega: usize,
    sigma: usize,
) {
    let (isa, stream) = (Checked::detect(), streams(dst_a, dst_b));
    transpose_tiles_on(isa, src_a, dst_a, (sigma, omega), stream);
    transpose_tiles_on(isa, src_b, dst_b, (sigma, omega), stream);
}

/// Transposes every whole tile of `a` and `b` in place (a `rows × cols` row-major block
/// to `cols × rows`; `rows * cols <= MAX_TILE`): each tile is copied to a stack buffer
/// (one array at a time, at most `MAX_TILE` elements of 8 bytes: 4 KiB) and written back
/// transposed, so every cache line is read once and written once, with no second copy
/// of the matrix.
pub(crate) fn transpose_in_place<A: Pod, B: Pod>(a: &mut [A], b: &mut [B], rows: usize, cols: usize) {
    let isa = Checked::detect();
    transpose_tiles_in_place_on(isa, a, rows, cols, &mut Line::<A>::new().0);
    transpose_tiles_in_place_on(isa, b, rows, cols, &mut Line::<B>::new().0);
}
