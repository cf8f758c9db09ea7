//! The CSR5 tile transposition (thesis 6.3.4: each tile of `omega` lanes × `sigma`
//! steps stored step-major so one SIMD load fetches a step of every lane), as square
//! `W × W` register transposes, `W` the smaller side of the tile.
//!
//! A tile is a `rows × cols` row-major block; transposing it gives `cols × rows`. CSR →
//! CSR5 transposes `omega × sigma` tiles, CSR5 → CSR `sigma × omega` ones. Every width
//! that has a block kernel for the element size and `W` moves whole `W × W` blocks
//! through registers (a load and a store per row of the block, the shuffles between);
//! the rest of the longer side, and any width without a kernel, moves entry by entry.
//! The result is the same on every width.

use bytemuck::Pod;

use crate::Isa;
use crate::arch::Checked;

/// A tile kernel: transposes the `rows × cols` tile at `src` into `dst` in `k × k`
/// blocks, `k` the kernel's block size, which divides `rows` and `cols`.
///
/// # Safety
/// The CPU has the kernel's width; `rows * cols` entries are readable at `src` and
/// writable at `dst`, the two do not overlap, and `k` divides `rows` and `cols`.
pub(crate) type TileFn<X> = unsafe fn(*const X, *mut X, usize, usize);

/// The `k × k` blocks of a `rows × cols` tile, each transposed by `$block(src, ss, dst,
/// ds)` (row `i < k` of the source block at `src + i * ss`, row `j` of the destination
/// block at `dst + j * ds`): the loop every width's tile kernel runs, so that the block
/// code inlines into it.
macro_rules! grid {
    ($block:ident, $k:expr, $src:expr, $dst:expr, $rows:expr, $cols:expr) => {{
        let (src, dst, rows, cols) = ($src, $dst, $rows, $cols);
        let mut bi = 0;
        while bi < rows {
            let mut bj = 0;
            while bj < cols {
                $block(src.add(bi * cols + bj), cols, dst.add(bj * rows + bi), rows);
                bj += $k;
            }
            bi += $k;
        }
    }};
}
pub(crate) use grid;

/// The largest block size `k` (a power of two, `k * size <= 64`) that divides `rows` and
/// `cols` and whose rows of `k * size` bytes never straddle a line boundary at either
/// address (both a multiple of `k * size`): split loads and stores cost more than the
/// shuffles save.
fn block_size(size: usize, src: usize, dst: usize, rows: usize, cols: usize) -> usize {
    let mut k = 64 / size;
    while k > 1
        && !(rows.is_multiple_of(k)
            && cols.is_multiple_of(k)
            && src.is_multiple_of(k * size)
            && dst.is_multiple_of(k * size))
    {
        k /= 2;
    }
    k
}

/// The tile kernel of width `isa` for blocks of `k × k` entries of 4 bytes, if it has one.
fn tile32(isa: Checked, k: usize) -> Option<TileFn<u32>> {
    match isa.isa() {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => crate::arch::x86_64::avx2::transpose::tile32(k),
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => crate::arch::x86_64::avx512::transpose::tile32(k),
        #[cfg(target_arch = "aarch64")]
        Isa::Neon => crate::arch::aarch64::neon::transpose::tile32(k),
        _ => None,
    }
}

/// [`tile32`] for entries of 8 bytes.
fn tile64(isa: Checked, k: usize) -> Option<TileFn<u64>> {
    match isa.isa() {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => crate::arch::x86_64::avx2::transpose::tile64(k),
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => crate::arch::x86_64::avx512::transpose::tile64(k),
        #[cfg(target_arch = "aarch64")]
        Isa::Neon => crate::arch::aarch64::neon::transpose::tile64(k),
        _ => None,
    }
}

/// Transposes one `rows × cols` tile `src` (row-major, `rows * cols` entries) into `dst`
/// (`cols × rows`): by `kernel` if given (its block size divides `rows` and `cols`), else
/// entry by entry.
#[inline]
fn tile<X: Copy>(kernel: Option<TileFn<X>>, src: &[X], dst: &mut [X], rows: usize, cols: usize) {
    let (src, dst) = (&src[..rows * cols], &mut dst[..rows * cols]);
    match kernel {
        // SAFETY: the kernel's width is checked (the `Checked` that chose it) and its
        // block size divides `rows` and `cols` (`block_size`); `src` and `dst` hold
        // `rows * cols` entries each and are distinct slices.
        Some(k) => unsafe { k(src.as_ptr(), dst.as_mut_ptr(), rows, cols) },
        None => {
            for (r, row) in src.chunks_exact(cols).enumerate() {
                for (c, &x) in row.iter().enumerate() {
                    dst[c * rows + r] = x;
                }
            }
        }
    }
}

/// Tiles ahead of the one being transposed whose source lines are prefetched: a tile's
/// blocks read its lines out of order (a line of every row per block), which the
/// hardware prefetchers do not follow.
const AHEAD: usize = 2;

/// Prefetches the `len` entries of `s` from `at` (nothing past the end).
#[inline(always)]
fn ahead<X>(s: &[X], at: usize, len: usize) {
    let step = (64 / core::mem::size_of::<X>().max(1)).max(1);
    let mut k = at;
    while k < at + len {
        crate::arch::prefetch(s, k);
        k += step;
    }
}

/// Transposes every whole `rows × cols` tile of `src` into `dst` (same length) and
/// copies the entries after the last whole tile unchanged, on `isa`'s block kernel.
pub(crate) fn transpose_tiles_on<X: Pod>(isa: Checked, src: &[X], dst: &mut [X], rows: usize, cols: usize) {
    let n = src.len().min(dst.len());
    let len = rows * cols;
    let whole = n.checked_div(len).map_or(0, |t| t * len);
    let size = core::mem::size_of::<X>();
    let k = block_size(size, src.as_ptr() as usize, dst.as_ptr() as usize, rows, cols);
    match size {
        4 => {
            if let (Ok(s), Ok(d)) = (
                bytemuck::try_cast_slice::<X, u32>(&src[..whole]),
                bytemuck::try_cast_slice_mut(&mut dst[..whole]),
            ) {
                let b = tile32(isa, k);
                for (t, (st, dt)) in s.chunks_exact(len).zip(d.chunks_exact_mut(len)).enumerate() {
                    ahead(s, (t + AHEAD) * len, len);
                    tile(b, st, dt, rows, cols);
                }
            }
        }
        8 => {
            if let (Ok(s), Ok(d)) = (
                bytemuck::try_cast_slice::<X, u64>(&src[..whole]),
                bytemuck::try_cast_slice_mut(&mut dst[..whole]),
            ) {
                let b = tile64(isa, k);
                for (t, (st, dt)) in s.chunks_exact(len).zip(d.chunks_exact_mut(len)).enumerate() {
                    ahead(s, (t + AHEAD) * len, len);
                    tile(b, st, dt, rows, cols);
                }
            }
        }
        _ => {
            for (st, dt) in
                src[..whole].chunks_exact(len.max(1)).zip(dst[..whole].chunks_exact_mut(len.max(1)))
            {
                tile(None, st, dt, rows, cols);
            }
        }
    }
    dst[whole..n].copy_from_slice(&src[whole..n]);
}

/// Transposes every whole `rows × cols` tile of `v` in place: each tile goes to a stack
/// buffer of `buf.len() >= rows * cols` entries and back transposed, so every cache line
/// is read once and written once, with no second copy of the array.
pub(crate) fn transpose_tiles_in_place_on<X: Pod>(
    isa: Checked,
    v: &mut [X],
    rows: usize,
    cols: usize,
    buf: &mut [X],
) {
    let len = rows * cols;
    if len <= 1 || rows == 1 || cols == 1 || buf.len() < len {
        return;
    }
    let whole = v.len() / len * len;
    let buf = &mut buf[..len];
    let size = core::mem::size_of::<X>();
    let k = block_size(size, buf.as_ptr() as usize, v.as_ptr() as usize, rows, cols);
    match size {
        4 => {
            if let (Ok(t), Ok(b)) = (
                bytemuck::try_cast_slice_mut::<X, u32>(&mut v[..whole]),
                bytemuck::try_cast_slice_mut::<X, u32>(buf),
            ) {
                let k = tile32(isa, k);
                for t in t.chunks_exact_mut(len) {
                    b.copy_from_slice(t);
                    tile(k, b, t, rows, cols);
                }
                return;
            }
        }
        8 => {
            if let (Ok(t), Ok(b)) = (
                bytemuck::try_cast_slice_mut::<X, u64>(&mut v[..whole]),
                bytemuck::try_cast_slice_mut::<X, u64>(buf),
            ) {
                let k = tile64(isa, k);
                for t in t.chunks_exact_mut(len) {
                    b.copy_from_slice(t);
                    tile(k, b, t, rows, cols);
                }
                return;
            }
        }
        _ => {}
    }
    for t in v[..whole].chunks_exact_mut(len) {
        buf.copy_from_slice(t);
        tile(None, buf, t, rows, cols);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: usize = 3 * 512 + 5 + 8;

    /// Arrays aligned to a cache line, so that offsets into them reach every alignment.
    #[repr(C, align(64))]
    struct Lines<X>([X; MAX]);

    /// The entry-by-entry transposition of every whole tile of `src`.
    fn reference(src: &[u64], rows: usize, cols: usize, out: &mut [u64]) {
        let len = rows * cols;
        out.copy_from_slice(src);
        for t in 0..src.len() / len {
            for r in 0..rows {
                for c in 0..cols {
                    out[t * len + c * rows + r] = src[t * len + r * cols + c];
                }
            }
        }
    }

    /// Every available width's tile kernels (both element sizes, each tile shape the
    /// CSR5 layouts and their inverses use, lengths with and without a remainder,
    /// source and destination at every alignment of a line, so every block size runs)
    /// against the entry-by-entry transposition, copying and in place.
    #[test]
    fn every_width_transposes_like_the_reference() {
        let src = Lines::<u64>(core::array::from_fn(|k| (k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        let s32 = Lines::<u32>(core::array::from_fn(|k| (src.0[k] >> 17) as u32));
        let (mut want, mut got) = (Lines([0u64; MAX]), Lines([0u64; MAX]));
        let (mut w32, mut g32) = (Lines([0u32; MAX]), Lines([0u32; MAX]));
        let (mut buf, mut b32) = (Lines([0u64; MAX]), Lines([0u32; MAX]));
        let sigmas: &[usize] = if cfg!(miri) { &[3, 8, 32] } else { &[1, 3, 4, 7, 8, 16, 17, 31, 32] };
        let offsets: &[(usize, usize)] =
            if cfg!(miri) { &[(0, 0), (2, 1)] } else { &[(0, 0), (1, 0), (0, 2), (2, 2), (4, 4), (3, 5)] };
        for isa in Isa::ALL.into_iter().filter(|i| i.is_available()) {
            let c = Checked::new(isa).unwrap_or(Checked::detect());
            for w in [1usize, 2, 4, 8, 16, 32] {
                for &sigma in sigmas {
                    if w * sigma > 512 {
                        continue;
                    }
                    for (rows, cols) in [(w, sigma), (sigma, w)] {
                        for n in [0usize, rows * cols - 1, rows * cols, 3 * rows * cols + 5] {
                            for &(so, d) in offsets {
                                let s = &src.0[so..so + n];
                                reference(s, rows, cols, &mut want.0[..n]);
                                for k in 0..n {
                                    w32.0[k] = (want.0[k] >> 17) as u32;
                                }
                                transpose_tiles_on(c, s, &mut got.0[d..d + n], rows, cols);
                                assert_eq!(
                                    got.0[d..d + n],
                                    want.0[..n],
                                    "{isa:?} u64 {rows}x{cols} n={n} at {so} {d}"
                                );
                                got.0[d..d + n].copy_from_slice(s);
                                transpose_tiles_in_place_on(
                                    c,
                                    &mut got.0[d..d + n],
                                    rows,
                                    cols,
                                    &mut buf.0[so..so + 512],
                                );
                                assert_eq!(
                                    got.0[d..d + n],
                                    want.0[..n],
                                    "{isa:?} u64 in place {rows}x{cols} n={n} at {so} {d}"
                                );
                                let s = &s32.0[so..so + n];
                                transpose_tiles_on(c, s, &mut g32.0[d..d + n], rows, cols);
                                assert_eq!(
                                    g32.0[d..d + n],
                                    w32.0[..n],
                                    "{isa:?} u32 {rows}x{cols} n={n} at {so} {d}"
                                );
                                g32.0[d..d + n].copy_from_slice(s);
                                transpose_tiles_in_place_on(
                                    c,
                                    &mut g32.0[d..d + n],
                                    rows,
                                    cols,
                                    &mut b32.0[so..so + 512],
                                );
                                assert_eq!(
                                    g32.0[d..d + n],
                                    w32.0[..n],
                                    "{isa:?} u32 in place {rows}x{cols} n={n} at {so} {d}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}
