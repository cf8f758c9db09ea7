//! The SPIR-V compute kernels of spblas, written in Rust for rust-gpu.
//!
//! Built twice by `gpu/builder` (one module per value type: without and with the `f64`
//! feature) into `src/gpu/spmv_f32.spv` and `src/gpu/spmv_f64.spv`, which the `gpu`
//! feature of spblas exports with the metadata a runtime needs (`src/gpu.rs`). That file
//! documents the bindings, the push constants and the dispatch protocol; this one the
//! algorithms. Indices are `u32` (no `Int64` capability needed).
//!
//! Every SpMV kernel computes `y = alpha * A * x + beta * y` for the rows it owns, with
//! `y` unread when `beta == 0`, and strides over its rows or tiles by the grid, so any
//! number of workgroups is correct.

#![no_std]
// `x % w == 0` rather than `is_multiple_of`, whose zero check costs a branch per row.
#![allow(clippy::manual_is_multiple_of)]

use spirv_std::arch::{subgroup_shuffle, subgroup_shuffle_xor, workgroup_memory_barrier_with_group_sync};
use spirv_std::glam::UVec3;
use spirv_std::spirv;

/// The value type of this module.
#[cfg(not(feature = "f64"))]
pub type V = f32;
/// The value type of this module.
#[cfg(feature = "f64")]
pub type V = f64;

/// The push constants of every kernel (the same block for all, `src/gpu.rs`
/// `SpmvParams`): seven `u32`, then `alpha` and `beta` at the next multiple of their
/// size (28 for `f32`, 32 for `f64`).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct SpmvParams {
    /// Rows of `A` (rows of `y`); for `read_stream`, the elements to read.
    pub nrows: u32,
    /// Complete CSR5 tiles.
    pub ntiles: u32,
    /// CSR5 tile height `sigma` (tiles are `OMEGA` lanes wide).
    pub sigma: u32,
    /// Width of the `y_offset` field of a descriptor word.
    pub ybits: u32,
    /// Width of the `seg_offset` field of a descriptor word.
    pub sbits: u32,
    /// `csr_spmv_vector`: lanes per row, a power of two (capped at the subgroup size).
    pub lanes: u32,
    /// `csr_spmv_stream`: row blocks (`row_blocks` holds `blocks + 1` row indices).
    pub blocks: u32,
    /// `alpha`.
    pub alpha: V,
    /// `beta`.
    pub beta: V,
}

/// The CSR5 tile width on GPUs: 32 lanes, one invocation each (thesis 6.3.2: `omega`
/// is the warp width). The tile kernel shares lane sums through workgroup memory, not
/// subgroup operations, so it is correct for any subgroup size.
pub const OMEGA: u32 = 32;
/// CSR5 tiles per workgroup of the tile kernel.
pub const TILES_PER_GROUP: u32 = 4;
/// Invocations per workgroup of the row kernels.
pub const ROW_GROUP: u32 = 256;
/// Entries a row block of `csr_spmv_stream` holds at most (four per invocation), unless
/// it is one longer row.
pub const STREAM_BLOCK: u32 = 1024;

/// `y[r] = alpha * v + beta * y[r]`, `y[r]` unread when `beta == 0`.
fn put(y: &mut [V], r: u32, alpha: V, beta: V, v: V) {
    let r = r as usize;
    y[r] = if beta == 0.0 { alpha * v } else { alpha * v + beta * y[r] };
}

/// `vals[j] * x[col_idx[j]]` summed over `j = from, from + step, ...` below `end`, four
/// entries a round: their loads are issued together, so four gathers of `x` are in
/// flight where a plain loop waits for each (the GPU compiler does not unroll a loop
/// whose every load may leave it through a bounds check).
fn dot(vals: &[V], col_idx: &[u32], x: &[V], from: u32, end: u32, step: u32) -> V {
    let (mut s0, mut s1, mut s2, mut s3): (V, V, V, V) = (0.0, 0.0, 0.0, 0.0);
    let mut j = from;
    while j < end && end - j > 3 * step {
        let (j1, j2, j3) = (j + step, j + 2 * step, j + 3 * step);
        let (c0, c1, c2, c3) =
            (col_idx[j as usize], col_idx[j1 as usize], col_idx[j2 as usize], col_idx[j3 as usize]);
        let (v0, v1, v2, v3) = (vals[j as usize], vals[j1 as usize], vals[j2 as usize], vals[j3 as usize]);
        s0 += v0 * x[c0 as usize];
        s1 += v1 * x[c1 as usize];
        s2 += v2 * x[c2 as usize];
        s3 += v3 * x[c3 as usize];
        j += 4 * step;
    }
    while j < end {
        s0 += vals[j as usize] * x[col_idx[j as usize] as usize];
        j += step;
    }
    (s0 + s1) + (s2 + s3)
}

/// The sum of `v` over each run of `width` lanes (a power of two, at most the subgroup),
/// in every lane of the run: butterfly shuffles, in uniform control flow.
fn vector_sum(mut v: V, width: u32) -> V {
    let mut off = width / 2;
    while off > 0 {
        v += subgroup_shuffle_xor(v, off);
        off /= 2;
    }
    v
}

/// Row-block scalar CSR SpMV (thesis Alg. 28): one invocation per row.
#[allow(clippy::too_many_arguments)]
#[spirv(compute(threads(256)))]
pub fn csr_spmv_scalar(
    #[spirv(global_invocation_id)] gid: UVec3,
    #[spirv(num_workgroups)] groups: UVec3,
    #[spirv(push_constant)] p: &SpmvParams,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] row_ptr: &[u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] col_idx: &[u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] vals: &[V],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 3)] x: &[V],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 4)] y: &mut [V],
) {
    let stride = groups.x * ROW_GROUP;
    let mut r = gid.x;
    while r < p.nrows {
        let sum = dot(vals, col_idx, x, row_ptr[r as usize], row_ptr[r as usize + 1], 1);
        put(y, r, p.alpha, p.beta, sum);
        r += stride;
    }
}

/// Row-block vector CSR SpMV (thesis Alg. 29): a vector of `p.lanes` lanes per row
/// (a power of two up to the subgroup size, chosen by the host from the average row
/// length), striding over the row and adding up with butterfly shuffles.
#[allow(clippy::too_many_arguments)]
#[spirv(compute(threads(256)))]
pub fn csr_spmv_vector(
    #[spirv(workgroup_id)] group: UVec3,
    #[spirv(num_workgroups)] groups: UVec3,
    #[spirv(subgroup_id)] subgroup: u32,
    #[spirv(num_subgroups)] subgroups: u32,
    #[spirv(subgroup_local_invocation_id)] lane: u32,
    #[spirv(subgroup_size)] lanes: u32,
    #[spirv(push_constant)] p: &SpmvParams,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] row_ptr: &[u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] col_idx: &[u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] vals: &[V],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 3)] x: &[V],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 4)] y: &mut [V],
) {
    let width = if p.lanes == 0 {
        1
    } else if p.lanes < lanes {
        p.lanes
    } else {
        lanes
    };
    // `width` is a power of two: shifts and masks, not divisions.
    let shift = width.trailing_zeros();
    let per_subgroup = lanes >> shift;
    let stride = groups.x * subgroups * per_subgroup;
    // `base` is the same in every lane of a subgroup: the shuffles run in uniform
    // control flow.
    let mut base = (group.x * subgroups + subgroup) * per_subgroup;
    while base < p.nrows {
        let r = base + (lane >> shift);
        let mut sum: V = 0.0;
        if r < p.nrows {
            let from = row_ptr[r as usize] + (lane & (width - 1));
            sum = dot(vals, col_idx, x, from, row_ptr[r as usize + 1], width);
        }
        sum = vector_sum(sum, width);
        if r < p.nrows && lane & (width - 1) == 0 {
            put(y, r, p.alpha, p.beta, sum);
        }
        base += stride;
    }
}

/// CSR-stream SpMV (row blocks, as CSR-Adaptive): workgroup `b` takes rows
/// `row_blocks[b]..row_blocks[b + 1]`, whose entries (at most `STREAM_BLOCK`) are one
/// contiguous range of the CSR arrays. Its invocations read that range four entries
/// each, consecutive invocations on consecutive entries (the loads and the gathers of
/// `x` coalesce, as in no row kernel), and stage the products in workgroup memory; then
/// each row is summed there by a vector of lanes (a power of two: the block's rows
/// share the workgroup). A block of one longer row is summed by the whole workgroup.
#[allow(clippy::too_many_arguments)]
#[spirv(compute(threads(256)))]
pub fn csr_spmv_stream(
    #[spirv(local_invocation_index)] lid: u32,
    #[spirv(workgroup_id)] group: UVec3,
    #[spirv(num_workgroups)] groups: UVec3,
    #[spirv(subgroup_id)] subgroup: u32,
    #[spirv(num_subgroups)] subgroups: u32,
    #[spirv(subgroup_local_invocation_id)] lane: u32,
    #[spirv(subgroup_size)] lanes: u32,
    #[spirv(push_constant)] p: &SpmvParams,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] row_ptr: &[u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] col_idx: &[u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] vals: &[V],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 3)] x: &[V],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 4)] y: &mut [V],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 10)] row_blocks: &[u32],
    #[spirv(workgroup)] prod: &mut [V; 1024],
) {
    // The invocation's place in subgroup order, so that the vectors below are runs of
    // lanes of one subgroup.
    let me = subgroup * lanes + lane;
    let size = subgroups * lanes;
    // `b` is the same in every invocation of the workgroup: the barriers are reached by
    // all of them.
    let mut b = group.x;
    while b < p.blocks {
        let r0 = row_blocks[b as usize];
        let r1 = row_blocks[b as usize + 1];
        let e0 = row_ptr[r0 as usize];
        let e1 = row_ptr[r1 as usize];
        let n = e1 - e0;
        if n > STREAM_BLOCK {
            // One long row: the whole workgroup strides over it.
            let mut sum = dot(vals, col_idx, x, e0 + me, e1, size);
            sum = vector_sum(sum, lanes);
            if lane == 0 {
                prod[subgroup as usize] = sum;
            }
            workgroup_memory_barrier_with_group_sync();
            if me == 0 {
                let mut total: V = 0.0;
                let mut s = 0;
                while s < subgroups {
                    total += prod[s as usize];
                    s += 1;
                }
                put(y, r0, p.alpha, p.beta, total);
            }
        } else {
            // Stage the products, four loads of each kind in flight per invocation.
            let (i0, i1, i2, i3) = (lid, lid + ROW_GROUP, lid + 2 * ROW_GROUP, lid + 3 * ROW_GROUP);
            let (mut c0, mut c1, mut c2, mut c3) = (0u32, 0u32, 0u32, 0u32);
            let (mut v0, mut v1, mut v2, mut v3): (V, V, V, V) = (0.0, 0.0, 0.0, 0.0);
            if i0 < n {
                c0 = col_idx[(e0 + i0) as usize];
                v0 = vals[(e0 + i0) as usize];
            }
            if i1 < n {
                c1 = col_idx[(e0 + i1) as usize];
                v1 = vals[(e0 + i1) as usize];
            }
            if i2 < n {
                c2 = col_idx[(e0 + i2) as usize];
                v2 = vals[(e0 + i2) as usize];
            }
            if i3 < n {
                c3 = col_idx[(e0 + i3) as usize];
                v3 = vals[(e0 + i3) as usize];
            }
            if i0 < n {
                prod[i0 as usize] = v0 * x[c0 as usize];
            }
            if i1 < n {
                prod[i1 as usize] = v1 * x[c1 as usize];
            }
            if i2 < n {
                prod[i2 as usize] = v2 * x[c2 as usize];
            }
            if i3 < n {
                prod[i3 as usize] = v3 * x[c3 as usize];
            }
            workgroup_memory_barrier_with_group_sync();
            // A vector of `width` lanes per row: the largest power of two with every row
            // of the block at once (at most the subgroup).
            let rows = r1 - r0;
            let fit = size / rows.max(1);
            let mut width = if fit == 0 { 1 } else { 1u32 << (31 - fit.leading_zeros()) };
            if width > lanes {
                width = lanes;
            }
            let shift = width.trailing_zeros();
            let per_round = size >> shift;
            // `base` is the same in every invocation: the shuffles run in uniform
            // control flow.
            let mut base = 0u32;
            while base < rows {
                let i = base + (me >> shift);
                let mut sum: V = 0.0;
                if i < rows {
                    let r = r0 + i;
                    let end = row_ptr[r as usize + 1] - e0;
                    let mut j = row_ptr[r as usize] - e0 + (me & (width - 1));
                    while j < end {
                        sum += prod[j as usize];
                        j += width;
                    }
                }
                sum = vector_sum(sum, width);
                if i < rows && me & (width - 1) == 0 {
                    put(y, r0 + i, p.alpha, p.beta, sum);
                }
                base += per_round;
            }
        }
        // `prod` is rewritten by the next block.
        workgroup_memory_barrier_with_group_sync();
        b += groups.x;
    }
}

/// What a CSR5 tile needs to place a segment sum: its first row, whether it has empty
/// rows, where its `empty_offset` entries start, and whether its first segment goes on
/// from the tile before (then that sum is the tile's carry, not a row of `y`).
#[derive(Copy, Clone)]
struct TileRows {
    t: u32,
    r0: u32,
    dirty: bool,
    eo: u32,
    cont: bool,
}

/// Hands segment `seg` of a tile its sum: to `carry[t]` when it is the tile's first
/// segment and continues a row from an earlier tile, else to its row of `y`.
#[allow(clippy::too_many_arguments)]
fn put_segment(
    rows: TileRows,
    seg: u32,
    v: V,
    p: &SpmvParams,
    empty_offset: &[u32],
    y: &mut [V],
    carry: &mut [V],
) {
    if seg == 0 && rows.cont {
        carry[rows.t as usize] = v;
    } else {
        let r = if rows.dirty { rows.r0 + empty_offset[(rows.eo + seg) as usize] } else { rows.r0 + seg };
        put(y, r, p.alpha, p.beta, v);
    }
}

/// A lane's walk over its `sigma` entries of a CSR5 tile: the open piece's `sum`, the
/// piece before its first head (`first`, red), whether it met a head, and the segment
/// the open piece belongs to.
struct Walk {
    sum: V,
    first: V,
    heads: bool,
    seg: u32,
}

impl Walk {
    /// One entry's product; at a head the piece summed so far is closed first.
    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        head: bool,
        prod: V,
        rows: TileRows,
        p: &SpmvParams,
        empty_offset: &[u32],
        y: &mut [V],
        carry: &mut [V],
    ) {
        if head {
            if self.heads {
                put_segment(rows, self.seg, self.sum, p, empty_offset, y, carry);
                self.seg += 1;
            } else {
                self.first = self.sum;
                self.heads = true;
            }
            self.sum = 0.0;
        }
        self.sum += prod;
    }
}

/// CSR5 SpMV, pass 1 of 2 (thesis 8.5, Alg. 32, GPU form): the complete tiles, `OMEGA`
/// invocations each.
///
/// Lane `i` walks its `sigma` entries (step `j` reads entry `t*OMEGA*sigma + j*OMEGA + i`,
/// so a subgroup's loads are contiguous). At each head (`bit_flag` bit) it closes the
/// piece it was summing: the first piece of a lane is *red* (it belongs to the segment
/// open in the lanes to its left) and goes to workgroup memory; later ones are whole
/// segments and are written at once. After the walk the lane's open piece is *blue*; a
/// lane with heads adds to it the red pieces of the `seg_offset` head-less lanes to its
/// right and of the lane after them (the `seg_offset` sum, Alg. 13) and writes it. A
/// tile's first segment that continues a row from an earlier tile goes to `carry[t]`
/// instead; `csr5_spmv_calibrate` adds those where the row began.
#[allow(clippy::too_many_arguments)]
#[spirv(compute(threads(128)))]
pub fn csr5_spmv_tiles(
    #[spirv(local_invocation_index)] lid: u32,
    #[spirv(workgroup_id)] group: UVec3,
    #[spirv(num_workgroups)] groups: UVec3,
    #[spirv(push_constant)] p: &SpmvParams,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] row_ptr: &[u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] col_idx: &[u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] vals: &[V],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 3)] x: &[V],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 4)] y: &mut [V],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 5)] tile_ptr: &[u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 6)] tile_desc: &[u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 7)] empty_offset_ptr: &[u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 8)] empty_offset: &[u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 9)] carry: &mut [V],
    #[spirv(workgroup)] red: &mut [V; 128],
) {
    let lane = lid % OMEGA;
    let sub = lid / OMEGA;
    let sigma = p.sigma;
    let len = OMEGA * sigma;
    let flag_mask = (1u32 << sigma) - 1;
    let y_mask = (1u32 << p.ybits) - 1;
    let s_mask = (1u32 << p.sbits) - 1;
    let stride = groups.x * TILES_PER_GROUP;
    // `base` is the same in every invocation of the workgroup, so the barriers below are
    // reached by all of them.
    let mut base = group.x * TILES_PER_GROUP;
    while base < p.ntiles {
        let t = base + sub;
        let active = t < p.ntiles;
        let mut heads = false;
        let mut blue: V = 0.0;
        let mut seg = 0u32;
        let mut seg_offset = 0u32;
        let mut rows = TileRows { t, r0: 0, dirty: false, eo: 0, cont: false };
        if active {
            let word = tile_desc[(t * OMEGA + lane) as usize];
            let bit_flag = word & flag_mask;
            seg = (word >> sigma) & y_mask;
            seg_offset = (word >> (sigma + p.ybits)) & s_mask;
            let tp = tile_ptr[t as usize];
            rows.r0 = tp & 0x7fff_ffff;
            rows.dirty = tp >> 31 != 0;
            if rows.dirty {
                rows.eo = empty_offset_ptr[t as usize];
            }
            rows.cont = row_ptr[rows.r0 as usize] != t * len;
            let mut walk = Walk { sum: 0.0, first: 0.0, heads: false, seg };
            let mut k = t * len + lane;
            let mut j = 0u32;
            // Four steps a round, their loads issued together (as `dot`), then their heads
            // in order; `sigma` is the same in every lane, so the branches are uniform.
            while sigma - j >= 4 {
                let (k1, k2, k3) = (k + OMEGA, k + 2 * OMEGA, k + 3 * OMEGA);
                let (c0, c1, c2, c3) =
                    (col_idx[k as usize], col_idx[k1 as usize], col_idx[k2 as usize], col_idx[k3 as usize]);
                let (v0, v1, v2, v3) =
                    (vals[k as usize], vals[k1 as usize], vals[k2 as usize], vals[k3 as usize]);
                let (p0, p1, p2, p3) =
                    (v0 * x[c0 as usize], v1 * x[c1 as usize], v2 * x[c2 as usize], v3 * x[c3 as usize]);
                walk.step((bit_flag >> j) & 1 != 0, p0, rows, p, empty_offset, y, carry);
                walk.step((bit_flag >> (j + 1)) & 1 != 0, p1, rows, p, empty_offset, y, carry);
                walk.step((bit_flag >> (j + 2)) & 1 != 0, p2, rows, p, empty_offset, y, carry);
                walk.step((bit_flag >> (j + 3)) & 1 != 0, p3, rows, p, empty_offset, y, carry);
                k += 4 * OMEGA;
                j += 4;
            }
            // The last one to three steps in one round too (a tile of `sigma = 7` then
            // takes two rounds of loads, not four).
            let left = sigma - j;
            if left > 0 {
                let (k1, k2) = (k + OMEGA, k + 2 * OMEGA);
                let c0 = col_idx[k as usize];
                let v0 = vals[k as usize];
                let (mut c1, mut v1, mut c2, mut v2): (u32, V, u32, V) = (0, 0.0, 0, 0.0);
                if left > 1 {
                    c1 = col_idx[k1 as usize];
                    v1 = vals[k1 as usize];
                }
                if left > 2 {
                    c2 = col_idx[k2 as usize];
                    v2 = vals[k2 as usize];
                }
                walk.step((bit_flag >> j) & 1 != 0, v0 * x[c0 as usize], rows, p, empty_offset, y, carry);
                if left > 1 {
                    let p1 = v1 * x[c1 as usize];
                    walk.step((bit_flag >> (j + 1)) & 1 != 0, p1, rows, p, empty_offset, y, carry);
                }
                if left > 2 {
                    let p2 = v2 * x[c2 as usize];
                    walk.step((bit_flag >> (j + 2)) & 1 != 0, p2, rows, p, empty_offset, y, carry);
                }
            }
            heads = walk.heads;
            seg = walk.seg;
            if heads {
                blue = walk.sum;
                red[lid as usize] = walk.first;
            } else {
                red[lid as usize] = walk.sum;
            }
        }
        workgroup_memory_barrier_with_group_sync();
        if heads {
            let last = if lane + seg_offset + 1 < OMEGA { lane + seg_offset + 1 } else { OMEGA - 1 };
            let mut l = lane + 1;
            while l <= last {
                blue += red[(sub * OMEGA + l) as usize];
                l += 1;
            }
            put_segment(rows, seg, blue, p, empty_offset, y, carry);
        }
        // `red` is rewritten by the next round.
        workgroup_memory_barrier_with_group_sync();
        base += stride;
    }
}

/// CSR5 SpMV, pass 1 of 2, beside `csr5_spmv_tiles`: one invocation per row for what the
/// tiles do not cover. An empty row gets `beta * y`; a row with entries in the tail (the
/// `nnz mod (OMEGA*sigma)` entries after the last complete tile, in CSR order) sums
/// them, and writes its row when it starts in the tail or else hands the sum on as
/// `carry[ntiles]`.
#[allow(clippy::too_many_arguments)]
#[spirv(compute(threads(256)))]
pub fn csr5_spmv_rows(
    #[spirv(global_invocation_id)] gid: UVec3,
    #[spirv(num_workgroups)] groups: UVec3,
    #[spirv(push_constant)] p: &SpmvParams,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] row_ptr: &[u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] col_idx: &[u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] vals: &[V],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 3)] x: &[V],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 4)] y: &mut [V],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 9)] carry: &mut [V],
) {
    let tail = p.ntiles * OMEGA * p.sigma;
    let stride = groups.x * ROW_GROUP;
    let mut r = gid.x;
    while r < p.nrows {
        let start = row_ptr[r as usize];
        let end = row_ptr[r as usize + 1];
        if start == end {
            put(y, r, 0.0, p.beta, 0.0);
        } else if end > tail {
            let sum = dot(vals, col_idx, x, if start > tail { start } else { tail }, end, 1);
            if start >= tail {
                put(y, r, p.alpha, p.beta, sum);
            } else {
                carry[p.ntiles as usize] = sum;
            }
        }
        r += stride;
    }
}

/// The row holding the first entry of tile `t` (the tail for `t == ntiles`), and whether
/// that entry continues the row from an earlier tile.
fn tile_start(t: u32, p: &SpmvParams, row_ptr: &[u32], tile_ptr: &[u32]) -> (u32, bool) {
    let r = tile_ptr[t as usize] & 0x7fff_ffff;
    let first = t * OMEGA * p.sigma;
    // No tail: `tile_ptr[ntiles] == nrows`, and nothing continues.
    let cont = r < p.nrows && row_ptr[r as usize] != first;
    (r, cont)
}

/// Tiles after a run's first that its invocation adds up alone (four: the checks below
/// are unrolled, so their loads are in flight together) before its subgroup takes a
/// longer run over. A second round of four, measured on the H100, won on `lp_like` (rows
/// of a few tiles) what it lost on `dense`.
const SHORT_RUN: u32 = 4;

/// Whether tile `u` (the tail for `u == ntiles`), after a tile whose first entry is in
/// row `r`, also starts in row `r`: then it continues `r` (its first entry cannot be the
/// head of a row an earlier tile already holds), with no `row_ptr` read.
fn continues(u: u32, r: u32, p: &SpmvParams, tile_ptr: &[u32]) -> bool {
    u <= p.ntiles && tile_ptr[u as usize] & 0x7fff_ffff == r
}

/// Tile `u`'s carry if it continues row `r` (0 if not, or past the tail), and whether it
/// does. Both loads are made unconditionally (at the tail's index past it), so a round's
/// loads are in flight together.
fn run_carry(u: u32, r: u32, p: &SpmvParams, tile_ptr: &[u32], carry: &[V]) -> (V, bool) {
    let at = if u < p.ntiles { u } else { p.ntiles };
    let (tp, c) = (tile_ptr[at as usize], carry[at as usize]);
    let m = u <= p.ntiles && tp & 0x7fff_ffff == r;
    (if m { c } else { 0.0 }, m)
}

/// CSR5 SpMV, pass 2 of 2 (the calibrator): one invocation per tile and the tail. Where a
/// run of tiles continues the same row, the invocation of the run's first tile adds up
/// the run's carries and adds `alpha` times the sum to the row, which pass 1 wrote from
/// the tile holding its head. A run longer than `SHORT_RUN + 1` tiles (a row of 250K
/// entries spans 500 tiles of 512) is finished by the whole subgroup, its lanes taking
/// every `subgroup_size`-th tile, eight a round. The run is a prefix of the tiles after
/// its first (rows only grow), so a lane stops at the first tile outside it.
#[allow(clippy::too_many_arguments)]
#[spirv(compute(threads(256)))]
pub fn csr5_spmv_calibrate(
    #[spirv(workgroup_id)] group: UVec3,
    #[spirv(num_workgroups)] groups: UVec3,
    #[spirv(subgroup_id)] subgroup: u32,
    #[spirv(num_subgroups)] subgroups: u32,
    #[spirv(subgroup_local_invocation_id)] lane: u32,
    #[spirv(subgroup_size)] lanes: u32,
    #[spirv(push_constant)] p: &SpmvParams,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] row_ptr: &[u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 4)] y: &mut [V],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 5)] tile_ptr: &[u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 9)] carry: &[V],
) {
    let stride = groups.x * subgroups * lanes;
    // `base` is the same in every lane of a subgroup: the shuffles run in uniform control
    // flow.
    let mut base = (group.x * subgroups + subgroup) * lanes;
    while base <= p.ntiles {
        let t = base + lane;
        let mut long_run = 0u32;
        let mut r = 0u32;
        let mut u = 0u32;
        let mut acc: V = 0.0;
        if t <= p.ntiles {
            let (rt, cont) = tile_start(t, p, row_ptr, tile_ptr);
            // A run starts at a continuing tile whose predecessor does not continue the
            // same row (it holds the row's head, or starts in an earlier row).
            if cont
                && !(t > 0 && {
                    let (rp, cp) = tile_start(t - 1, p, row_ptr, tile_ptr);
                    cp && rp == rt
                })
            {
                r = rt;
                // The next `SHORT_RUN` tiles' checks, then their carries, each four
                // loads in flight (a run is a prefix: a tile outside ends it).
                let m1 = continues(t + 1, r, p, tile_ptr);
                let m2 = continues(t + 2, r, p, tile_ptr);
                let m3 = continues(t + 3, r, p, tile_ptr);
                let m4 = continues(t + 4, r, p, tile_ptr);
                acc = carry[t as usize];
                if m1 {
                    acc += carry[(t + 1) as usize];
                }
                if m2 {
                    acc += carry[(t + 2) as usize];
                }
                if m3 {
                    acc += carry[(t + 3) as usize];
                }
                if m4 {
                    acc += carry[(t + 4) as usize];
                    long_run = 1;
                    u = t + 1 + SHORT_RUN;
                } else {
                    y[r as usize] += p.alpha * acc;
                }
            }
        }
        // The long runs, one at a time, by the whole subgroup.
        let mut l = 0u32;
        while l < lanes {
            if subgroup_shuffle(long_run, l) != 0 {
                let rl = subgroup_shuffle(r, l);
                // Eight tiles per lane per round, their loads in flight together.
                let mut v = subgroup_shuffle(u, l) + lane;
                let mut part: V = 0.0;
                let mut done = false;
                while !done {
                    let (a0, _) = run_carry(v, rl, p, tile_ptr, carry);
                    let (a1, _) = run_carry(v + lanes, rl, p, tile_ptr, carry);
                    let (a2, _) = run_carry(v + 2 * lanes, rl, p, tile_ptr, carry);
                    let (a3, _) = run_carry(v + 3 * lanes, rl, p, tile_ptr, carry);
                    let (a4, _) = run_carry(v + 4 * lanes, rl, p, tile_ptr, carry);
                    let (a5, _) = run_carry(v + 5 * lanes, rl, p, tile_ptr, carry);
                    let (a6, _) = run_carry(v + 6 * lanes, rl, p, tile_ptr, carry);
                    let (a7, m7) = run_carry(v + 7 * lanes, rl, p, tile_ptr, carry);
                    part += ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
                    // Done once any lane has left the run (every later tile is outside).
                    let mut out = if m7 { 0u32 } else { 1u32 };
                    let mut off = lanes / 2;
                    while off > 0 {
                        out |= subgroup_shuffle_xor(out, off);
                        off /= 2;
                    }
                    done = out != 0;
                    v += 8 * lanes;
                }
                part = vector_sum(part, lanes);
                if lane == l {
                    y[r as usize] += p.alpha * (acc + part);
                }
            }
            l += 1;
        }
        base += stride;
    }
}

/// The read-bandwidth probe: every invocation sums a grid-strided share of `vals` (the
/// host dispatches one invocation per `STREAM_PER_INVOCATION` values), the subgroup adds
/// its lanes' sums with shuffles, and its first lane writes the result to `y[invocation]`
/// (`y` holds one value per invocation; the other lanes write nothing, so the writes are
/// a small fraction of the reads, and `y` sums to the sum of the values when it starts at
/// zero). The same bytes as a SpMV's matrix, read the way the GPU reads fastest: the
/// baseline the SpMV kernels' GB/s are judged against.
#[spirv(compute(threads(256)))]
pub fn read_stream(
    #[spirv(global_invocation_id)] gid: UVec3,
    #[spirv(num_workgroups)] groups: UVec3,
    #[spirv(subgroup_local_invocation_id)] lane: u32,
    #[spirv(subgroup_size)] lanes: u32,
    #[spirv(push_constant)] p: &SpmvParams,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] vals: &[V],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 4)] y: &mut [V],
) {
    let stride = groups.x * ROW_GROUP;
    let mut i = gid.x;
    // Four independent loads per round, so each invocation keeps four in flight.
    let (mut s0, mut s1, mut s2, mut s3): (V, V, V, V) = (0.0, 0.0, 0.0, 0.0);
    while i < p.nrows && p.nrows - i > 3 * stride {
        s0 += vals[i as usize];
        s1 += vals[(i + stride) as usize];
        s2 += vals[(i + 2 * stride) as usize];
        s3 += vals[(i + 3 * stride) as usize];
        i += 4 * stride;
    }
    while i < p.nrows {
        s0 += vals[i as usize];
        i += stride;
    }
    let mut sum = (s0 + s1) + (s2 + s3);
    sum = vector_sum(sum, lanes);
    if lane == 0 {
        y[gid.x as usize] = sum;
    }
}
