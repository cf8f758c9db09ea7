//! The CSR5 tile transposition (thesis 6.3.4: each tile of `omega` lanes × `sigma`
//! steps stored step-major so one SIMD load fetches a step of every lane), through
//! registers in `k × k` blocks.
//!
//! A tile is a `rows × cols` row-major block; transposing it gives `cols × rows`. CSR →
//! CSR5 transposes `omega × sigma` tiles, CSR5 → CSR `sigma × omega` ones. A width with
//! a kernel for the element size and the block size `k` ([`block_size`]: it divides both
//! sides and no block row straddles a cache line) moves the tile block by block — a load
//! and a store per row of a block, the shuffles between; otherwise the tile moves entry
//! by entry. The result is the same on every width.

use bytemuck::Pod;

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use crate::Isa;
use crate::arch::Checked;

/// A tile kernel: transposes the `rows × cols` tile at `src` into `dst` in `k × k`
/// blocks, `k` the kernel's block size, which divides `rows` and `cols`.
///
/// # Safety
/// The CPU has the kernel's width; `rows * cols` entries are readable at `src` and
/// writable at `dst`, the two do not overlap, and `k` divides `rows` and `cols`.
pub(crate) type TileFn<X> = unsafe fn(*const X, *mut X, usize, usize);

/// A width's tile selectors `tile32(k)` and `tile64(k)` (the [`TileFn`] for `k × k`
/// blocks of 4- and 8-byte entries, if the width has one), each kernel the loop over a
/// tile's blocks with the block function `$b(src, ss, dst, ds)` — row `i < k` of the
/// source block at `src + i * ss`, row `j` of the destination block at `dst + j * ds` —
/// inlined under the width's target features `$feat`.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! tile_kernels {
    ($feat:literal; u32: $($k32:literal => $b32:ident),*; u64: $($k64:literal => $b64:ident),*) => {
        /// The tile kernel for `k × k` blocks of 4-byte entries, if this width has one.
        pub(crate) fn tile32(k: usize) -> Option<$crate::arch::generic::transpose::TileFn<u32>> {
            match k {
                $($k32 => Some(tile_kernels!(@tile $feat, u32, $k32, $b32)),)*
                _ => None,
            }
        }

        /// The tile kernel for `k × k` blocks of 8-byte entries, if this width has one.
        pub(crate) fn tile64(k: usize) -> Option<$crate::arch::generic::transpose::TileFn<u64>> {
            match k {
                $($k64 => Some(tile_kernels!(@tile $feat, u64, $k64, $b64)),)*
                _ => None,
            }
        }
    };
    (@tile $feat:literal, $x:ty, $k:literal, $b:ident) => {{
        /// Transposes a tile in `k × k` blocks by the width's block function.
        ///
        /// # Safety
        /// As `TileFn`; the CPU has the width's features.
        #[target_feature(enable = $feat)]
        unsafe fn tile(src: *const $x, dst: *mut $x, rows: usize, cols: usize) {
            // SAFETY: `k` divides `rows` and `cols` (the caller's promise), so every
            // block lies inside the `rows * cols` entries at `src` and `dst`, which do
            // not overlap; the features are the caller's promise too.
            unsafe {
                let mut bi = 0;
                while bi < rows {
                    let mut bj = 0;
                    while bj < cols {
                        $b(src.add(bi * cols + bj), cols, dst.add(bj * rows + bi), rows);
                        bj += $k;
                    }
                    bi += $k;
                }
            }
        }
        tile as $crate::arch::generic::transpose::TileFn<$x>
    }};
}
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) use tile_kernels;

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

/// An entry word the tile kernels move: `u32` or `u64`.
trait Word: Pod {
    /// The tile kernel of width `isa` for `k × k` blocks of this word, if it has one.
    fn kernel(isa: Checked, k: usize) -> Option<TileFn<Self>>;
}

macro_rules! word {
    ($w:ty, $sel:ident) => {
        impl Word for $w {
            fn kernel(isa: Checked, k: usize) -> Option<TileFn<$w>> {
                match isa.isa() {
                    #[cfg(target_arch = "x86_64")]
                    Isa::Avx2 => crate::arch::x86_64::avx2::transpose::$sel(k),
                    #[cfg(target_arch = "x86_64")]
                    Isa::Avx512 => crate::arch::x86_64::avx512::transpose::$sel(k),
                    #[cfg(target_arch = "aarch64")]
                    Isa::Neon => crate::arch::aarch64::neon::transpose::$sel(k),
                    // No kernels for this width (or this target).
                    _ => {
                        let _ = k;
                        None
                    }
                }
            }
        }
    };
}
word!(u32, tile32);
word!(u64, tile64);

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

/// The whole tiles of `src` (a multiple of `rows * cols` entries, `rows * cols > 0`)
/// transposed into `dst` as words `W` by their kernel for blocks of `k`; `false` (nothing
/// written) if `X` is not a `W`.
fn tiles_as<X: Pod, W: Word>(
    isa: Checked,
    src: &[X],
    dst: &mut [X],
    rows: usize,
    cols: usize,
    k: usize,
) -> bool {
    let (Ok(s), Ok(d)) = (bytemuck::try_cast_slice::<X, W>(src), bytemuck::try_cast_slice_mut::<X, W>(dst))
    else {
        return false;
    };
    let (len, kernel) = (rows * cols, W::kernel(isa, k));
    for (t, (st, dt)) in s.chunks_exact(len).zip(d.chunks_exact_mut(len)).enumerate() {
        ahead(s, (t + AHEAD) * len, len);
        tile(kernel, st, dt, rows, cols);
    }
    true
}

/// The largest tile (`rows * cols` entries) the streaming path and the in-place
/// transposition hold in their stack buffer ([`Line`]).
pub(crate) const MAX_TILE: usize = crate::arch::generic::spmv_csr5::MAX_SEGMENTS;

/// A stack buffer of one tile, aligned to a cache line so that the block kernels can
/// be as wide as the other array's alignment allows.
#[repr(C, align(64))]
pub(crate) struct Line<X>(pub(crate) [X; MAX_TILE]);

impl<X: Pod> Line<X> {
    /// A zeroed buffer.
    pub(crate) fn new() -> Self {
        Line([X::zeroed(); MAX_TILE])
    }
}

/// Transposes every whole `rows × cols` tile of `src` into `dst` (same length) and
/// copies the entries after the last whole tile unchanged, on `isa`'s block kernel.
///
/// With `stream` (for outputs too large to stay cached; x86-64 only, elsewhere ignored)
/// `dst` is written with non-temporal stores, which save reading every destination line
/// before its write (the read-for-ownership, a third of a copy's memory traffic): each
/// tile is transposed into a cache-line-aligned stack buffer and streamed out from there
/// by a [`LineWriter`], so the stores fill whole lines whatever `dst`'s alignment.
/// Measurements: `benches/records/kernel-notes-2026-11.md`, "CSR5 conversion cost".
pub(crate) fn transpose_tiles_on<X: Pod>(
    isa: Checked,
    src: &[X],
    dst: &mut [X],
    (rows, cols): (usize, usize),
    stream: bool,
) {
    let n = src.len().min(dst.len());
    let len = rows * cols;
    let whole = n.checked_div(len).map_or(0, |t| t * len);
    let (s, d) = (&src[..whole], &mut dst[..whole]);
    let size = core::mem::size_of::<X>();
    if STREAMS && stream && len <= MAX_TILE && matches!(size, 4 | 8) {
        let mut buf = Line::<X>::new();
        let buf = &mut buf.0[..len];
        let k = block_size(size, s.as_ptr() as usize, buf.as_ptr() as usize, rows, cols);
        let mut out = LineWriter::new(bytemuck::cast_slice_mut(d));
        for (t, st) in s.chunks_exact(len).enumerate() {
            ahead(s, (t + AHEAD) * len, len);
            match size {
                4 => tiles_as::<X, u32>(isa, st, buf, rows, cols, k),
                _ => tiles_as::<X, u64>(isa, st, buf, rows, cols, k),
            };
            out.put(bytemuck::cast_slice(buf));
        }
        out.finish();
    } else {
        let k = block_size(size, s.as_ptr() as usize, d.as_ptr() as usize, rows, cols);
        let done = match size {
            4 => tiles_as::<X, u32>(isa, s, d, rows, cols, k),
            8 => tiles_as::<X, u64>(isa, s, d, rows, cols, k),
            _ => false,
        };
        if !done {
            for (st, dt) in s.chunks_exact(len.max(1)).zip(d.chunks_exact_mut(len.max(1))) {
                tile(None, st, dt, rows, cols);
            }
        }
    }
    dst[whole..n].copy_from_slice(&src[whole..n]);
}

/// Whether this build has [`LineWriter`]'s non-temporal stores (x86-64, not under Miri).
const STREAMS: bool = cfg!(all(target_arch = "x86_64", not(miri)));

/// Writes a byte array front to back, chunk by chunk, with a non-temporal store of every
/// whole 64-byte line (`movntdq`, SSE2: every x86-64 CPU; plain copies elsewhere): a
/// line that two chunks share is staged in `line` until complete, so every line but the
/// array's partial first and last ones is streamed whole, whatever the chunks' sizes and
/// the array's alignment. [`LineWriter::finish`] writes the last partial line and fences
/// the stores, before anything else may touch the array.
struct LineWriter<'a> {
    dst: &'a mut [u8],
    /// Bytes of `dst` written or staged.
    pos: usize,
    /// Offset of `dst`'s first whole line; the bytes before it are written plainly.
    head: usize,
    /// The staged start of the line that ends after `pos`.
    line: [u8; 64],
    /// Bytes staged in `line` (those of `dst[pos - fill..pos]`).
    fill: usize,
}

impl<'a> LineWriter<'a> {
    fn new(dst: &'a mut [u8]) -> Self {
        let head = dst.as_ptr().align_offset(64).min(dst.len());
        LineWriter { dst, pos: 0, head, line: [0; 64], fill: 0 }
    }

    /// Streams the 64 bytes of `src` to `dst[at..at + 64]`, `at` on a line boundary.
    #[inline(always)]
    fn line_out(dst: &mut [u8], at: usize, src: &[u8]) {
        let (d, s) = (&mut dst[at..at + 64], &src[..64]);
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        // SAFETY: `d` and `s` hold 64 bytes each (the slicing above), and `d` starts on a
        // 64-byte boundary (`at - head` is a multiple of 64), so each 16-byte store is
        // aligned as `movntdq` requires; SSE2 is part of x86-64. `finish` fences before
        // the array can be touched again, as Rust requires after these stores.
        unsafe {
            use core::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
            for k in 0..4 {
                let v = _mm_loadu_si128(s.as_ptr().add(16 * k).cast::<__m128i>());
                _mm_stream_si128(d.as_mut_ptr().add(16 * k).cast::<__m128i>(), v);
            }
        }
        #[cfg(not(all(target_arch = "x86_64", not(miri))))]
        d.copy_from_slice(s);
    }

    /// Appends `b` (the caller never puts more than `dst` holds).
    #[inline]
    fn put(&mut self, mut b: &[u8]) {
        if self.pos < self.head {
            let k = (self.head - self.pos).min(b.len());
            self.dst[self.pos..self.pos + k].copy_from_slice(&b[..k]);
            self.pos += k;
            b = &b[k..];
        }
        if self.fill > 0 && !b.is_empty() {
            let k = (64 - self.fill).min(b.len());
            self.line[self.fill..self.fill + k].copy_from_slice(&b[..k]);
            self.fill += k;
            self.pos += k;
            b = &b[k..];
            if self.fill == 64 {
                Self::line_out(self.dst, self.pos - 64, &self.line);
                self.fill = 0;
            }
        }
        let mut whole = b.chunks_exact(64);
        for l in &mut whole {
            Self::line_out(self.dst, self.pos, l);
            self.pos += 64;
        }
        let rest = whole.remainder();
        self.line[..rest.len()].copy_from_slice(rest);
        self.fill += rest.len();
        self.pos += rest.len();
    }

    /// Writes the staged partial last line and orders every store before what follows.
    fn finish(self) {
        let start = self.pos - self.fill;
        self.dst[start..self.pos].copy_from_slice(&self.line[..self.fill]);
        crate::arch::store_fence();
    }
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
    for t in v[..whole].chunks_exact_mut(len) {
        buf.copy_from_slice(t);
        let done = match size {
            4 => tiles_as::<X, u32>(isa, buf, t, rows, cols, k),
            8 => tiles_as::<X, u64>(isa, buf, t, rows, cols, k),
            _ => false,
        };
        if !done {
            tile(None, buf, t, rows, cols);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Isa;

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

    /// The line writer puts any sequence of chunks at any alignment byte for byte, the
    /// lines between its first and last streamed (on x86-64) and the rest plain.
    #[test]
    fn line_writer_writes_every_chunking_at_every_alignment() {
        let src: [u8; 700] = core::array::from_fn(|k| (k as u8).wrapping_mul(151).wrapping_add(7));
        let mut dst = Lines([0u8; MAX]);
        let chunkings: &[&[usize]] =
            &[&[700], &[1; 700], &[64; 10], &[5, 59, 64, 1, 200, 3], &[63, 65, 127, 129, 0, 316]];
        let offsets: &[usize] = if cfg!(miri) { &[0, 1, 17] } else { &[0, 1, 8, 16, 17, 32, 48, 63] };
        for &chunks in chunkings {
            for &off in offsets {
                for total in [0usize, 1, 63, 64, 65, 300, 700] {
                    dst.0.fill(0xAA);
                    let mut out = LineWriter::new(&mut dst.0[off..off + total]);
                    let mut at = 0;
                    for &c in chunks {
                        let c = c.min(total - at);
                        out.put(&src[at..at + c]);
                        at += c;
                    }
                    out.put(&src[at..total]);
                    out.finish();
                    assert_eq!(dst.0[off..off + total], src[..total], "{chunks:?} at {off}, {total} bytes");
                    assert!(dst.0[..off].iter().chain(&dst.0[off + total..]).all(|&b| b == 0xAA));
                }
            }
        }
    }

    /// Every available width's tile kernels (both element sizes, each tile shape the
    /// CSR5 layouts and their inverses use, lengths with and without a remainder,
    /// source and destination at every alignment of a line, so every block size runs)
    /// against the entry-by-entry transposition, copying (plain and streamed) and in place.
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
                                for stream in [false, true] {
                                    got.0[d..d + n].fill(0);
                                    transpose_tiles_on(c, s, &mut got.0[d..d + n], (rows, cols), stream);
                                    assert_eq!(
                                        got.0[d..d + n],
                                        want.0[..n],
                                        "{isa:?} u64 {rows}x{cols} n={n} at {so} {d} stream {stream}"
                                    );
                                }
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
                                for stream in [false, true] {
                                    g32.0[d..d + n].fill(0);
                                    transpose_tiles_on(c, s, &mut g32.0[d..d + n], (rows, cols), stream);
                                    assert_eq!(
                                        g32.0[d..d + n],
                                        w32.0[..n],
                                        "{isa:?} u32 {rows}x{cols} n={n} at {so} {d} stream {stream}"
                                    );
                                }
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
