//! CSR5 (thesis chapter 6): CSR whose entries are cut into tiles of `omega` lanes ×
//! `sigma` steps, stored transposed inside each tile so that a SIMD register of `omega`
//! lanes walks a tile in `sigma` steps, plus two small groups of arrays that let every
//! tile find its rows on its own.
//!
//! The five groups (6.3):
//! - `row_ptr` — the CSR row pointer, unchanged (shared with the CSR matrix);
//! - `col_idx`, `vals` — the CSR arrays with every *complete* tile transposed: the entry
//!   at original position `t*omega*sigma + i*sigma + j` (lane `i`, step `j`) is stored at
//!   `t*omega*sigma + j*omega + i`. The `nnz mod (omega*sigma)` entries after the last
//!   complete tile stay in CSR order (the *tail*);
//! - `tile_ptr` (`ntiles + 1` entries, 6.3.3, Alg. 24) — the row holding each tile's first
//!   entry, and at `ntiles` the row holding the tail's first entry (`nrows` when there is
//!   no tail). The top bit flags a tile with empty rows (the thesis's "negative" pointer;
//!   an index type keeps `nrows <= I::MAX >> 1` for it);
//! - `tile_desc` (`omega` `u32` words per complete tile, 6.3.4–6.3.5, Alg. 25) — the
//!   bit-packed `bit_flag`, `y_offset`, `seg_offset` of each lane ([`tile`]);
//! - `empty_offset` with its pointer `empty_offset_ptr` (`ntiles + 1`, Alg. 26) — for a
//!   flagged tile, the row of each of its segments relative to `tile_ptr`, since empty
//!   rows break the "segment `k` is row `tile_ptr + k`" rule.
//!
//! **Which tile writes which row.** A tile's segments are its heads (the first entry of a
//! row, and its own first entry). A row is finished, and written, by the tile (or the
//! tail) holding its last entry; a tile whose last segment runs on passes the partial sum
//! to the next tile. The empty rows strictly between a tile's first row and the row
//! after it belong to that tile (hence the flag); the empty rows before the first entry
//! belong to no tile and are written before tile 0, the empty rows after the last entry
//! belong to the tail (or, with no tail, to the last tile).
//!
//! **Parameters** (6.3.2). `omega` is the number of SIMD lanes of the value type on the
//! chosen [`Isa`] ([`omega_for`]); `sigma` follows the thesis's rule from the average row
//! length with bounds tuned for CPUs ([`sigma_for`]), and both can be set by hand
//! ([`Csr5Layout::with_params`]).

pub(crate) mod build;
pub mod tile;

use self::build::{TileRows, advance, walk_tile};
pub use self::tile::{DescFormat, TileDesc};
use crate::formats::{
    Csr, any_at_or_above, check_buf, check_col, check_dims, check_len, check_ptr, negative,
};
use crate::{FormatError, Index, Isa, Scalar};

/// The tile width `omega` (6.3.2) for `T` on `isa`: the SIMD lanes of `T` the kernel
/// steps through at once.
///
/// AVX-512: 8 `f64` / 16 `f32` (one register). AVX2: also 8 / 16, as two 256-bit
/// registers per step — more lanes per tile spread the per-tile work (descriptor,
/// `seg_offset` sum, `y` pass) and the per-step head test over more entries, so two
/// registers beat the thesis's one (4 / 8) on every class but `dense` `f32`; four
/// registers (16 / 32), and two AVX-512 registers, lost again
/// (`benches/records/kernel-notes-2026-11.md`, "CSR5 tile width"). Layouts of one AVX2
/// register (4 / 8, by [`Csr5Layout::with_params`]) run the AVX2 kernel too. NEON: 2 / 4,
/// one register (its kernel also runs two and four registers per step, so the x86-64
/// layouts run vectorised on AArch64; which is fastest there is not measured).
/// The portable path uses 4 / 8: its kernel keeps `omega` independent accumulators, and
/// four `f64` chains already cover the latency of a scalar multiply-add on current cores
/// while keeping the tail of lanes that carry partial sums short.
pub fn omega_for<T: Scalar>(isa: Isa) -> usize {
    let bytes = match isa {
        Isa::Avx512 | Isa::Avx2 => 64,
        Isa::Neon => 16,
        // Two `v128` per step: the same layouts as AVX2's.
        Isa::Portable | Isa::Wasm128 => 32,
    };
    bytes / core::mem::size_of::<T>()
}

/// The bounds `<r, s, t, u>` of the thesis's `sigma` rule (6.3.2), for CPUs:
/// `sigma = r` if `nnz/row <= r`; `nnz/row` if `r < nnz/row <= s`; `s` if
/// `s < nnz/row <= t`; `u` beyond `t`. Each result is capped at 32 (the `bit_flag` word)
/// and at `MAX_TILE / omega` (512 entries per tile, the kernels' stack buffers).
///
/// The rule is flat at 32: tiles of 32 steps spread the per-tile work (descriptor
/// decode, the `seg_offset` sum, the `y` pass) over twice the entries of 16, and no
/// class preferred a middle value (`cargo bench --bench spmv --features gen --
/// csr5_sigma`; `benches/records/kernel-notes-2026-11.md`, "CSR5 tile height"). The
/// bounds stay as named parameters for [`Csr5Layout::with_params`] callers who tune per
/// matrix.
pub const SIGMA_BOUNDS: (usize, usize, usize, usize) = (32, 32, 256, 32);

/// The tile height for tiles of `omega` lanes of a matrix with `nnz_per_row` entries per
/// row on average, by the rule of [`SIGMA_BOUNDS`].
pub fn sigma_for(omega: usize, nnz_per_row: usize) -> usize {
    sigma_by(SIGMA_BOUNDS, omega, nnz_per_row)
}

/// The thesis's `sigma` rule (6.3.2) with bounds `<r, s, t, u>` (CPU: [`SIGMA_BOUNDS`]),
/// capped like [`sigma_for`].
pub fn sigma_by(bounds: (usize, usize, usize, usize), omega: usize, nnz_per_row: usize) -> usize {
    let (r, s, t, u) = bounds;
    let sigma = if nnz_per_row <= r {
        r
    } else if nnz_per_row <= s {
        nnz_per_row
    } else if nnz_per_row <= t {
        s
    } else {
        u
    };
    sigma.min(32).min(build::MAX_TILE / omega.max(1)).max(1)
}

/// The sizes of the CSR5 form of one CSR matrix for one `(omega, sigma)`: what
/// [`Csr5::from_csr`] needs from the caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Csr5Layout {
    nrows: usize,
    ncols: usize,
    nnz: usize,
    omega: usize,
    sigma: usize,
    /// The descriptor packing of `(omega, sigma)`, found valid when the layout was made.
    format: DescFormat,
    ntiles: usize,
    empty_offset_len: usize,
}

impl Csr5Layout {
    /// The layout for running on `isa`: `omega` from [`omega_for`], `sigma` from
    /// [`sigma_for`]. Costs one pass over `row_ptr` (to size `empty_offset`).
    ///
    /// # Errors
    /// As [`Csr5Layout::with_params`].
    pub fn new<T: Scalar, I: Index>(csr: &Csr<'_, T, I>, isa: Isa) -> Result<Self, FormatError> {
        let omega = omega_for::<T>(isa);
        let per_row = if csr.nrows() == 0 { 0 } else { csr.nnz() / csr.nrows() };
        Csr5Layout::with_params(csr, omega, sigma_for(omega, per_row))
    }

    /// The layout with tiles of `omega` lanes × `sigma` steps.
    ///
    /// # Errors
    /// [`FormatError::Parameter`] if `omega` is not one of 1, 2, 4, .., 32 or the
    /// descriptor of `(omega, sigma)` does not fit 32 bits (`sigma` is then out of range);
    /// [`FormatError::TooLarge`] if `nrows` needs the index type's top bit (the
    /// `tile_ptr` flag) or a tile is larger than 512 entries.
    pub fn with_params<T: Scalar, I: Index>(
        csr: &Csr<'_, T, I>,
        omega: usize,
        sigma: usize,
    ) -> Result<Self, FormatError> {
        let (format, ntiles) = check_params::<I>(csr.nrows(), csr.nnz(), omega, sigma)?;
        let mut empty_offset_len = 0usize;
        let mut r = advance(csr.row_ptr(), 0, 0);
        let len = omega * sigma;
        for t in 0..ntiles {
            let mut heads = 0usize;
            let rows = walk_tile(csr.row_ptr(), t * len, len, r, |_, _| heads += 1);
            if rows.dirty {
                empty_offset_len += heads;
            }
            r = rows.r1;
        }
        Ok(Csr5Layout {
            nrows: csr.nrows(),
            ncols: csr.ncols(),
            nnz: csr.nnz(),
            omega,
            sigma,
            format,
            ntiles,
            empty_offset_len,
        })
    }

    /// Tile width (SIMD lanes).
    pub fn omega(&self) -> usize {
        self.omega
    }
    /// Tile height (steps).
    pub fn sigma(&self) -> usize {
        self.sigma
    }
    /// Number of complete tiles, `floor(nnz / (omega * sigma))`.
    pub fn tiles(&self) -> usize {
        self.ntiles
    }
    /// Entries per tile, `omega * sigma`.
    pub fn tile_len(&self) -> usize {
        self.omega * self.sigma
    }
    /// Length of `col_idx` and `vals`: `nnz`.
    pub fn nnz(&self) -> usize {
        self.nnz
    }
    /// Length of `tile_ptr` and of `empty_offset_ptr`: `tiles + 1`.
    pub fn tile_ptr_len(&self) -> usize {
        self.ntiles + 1
    }
    /// Length of `tile_desc`: `tiles * omega * words_per_lane` words (one word per lane
    /// when the descriptor packs, two for tiles taller than
    /// [`DescFormat::max_packed_sigma`]).
    pub fn tile_desc_len(&self) -> usize {
        self.ntiles * self.omega * self.format.words_per_lane()
    }
    /// Length of `empty_offset`: the number of segments in the tiles that hold empty rows.
    pub fn empty_offset_len(&self) -> usize {
        self.empty_offset_len
    }
    /// Bytes of the arrays CSR5 adds to CSR for index type `I` (the thesis's "extra
    /// space", 6.3.5).
    pub fn extra_bytes<I: Index>(&self) -> usize {
        (2 * self.tile_ptr_len() + self.empty_offset_len) * I::BYTES + self.tile_desc_len() * 4
    }
}

/// Checks `(omega, sigma)` against the matrix; returns the descriptor format and the
/// number of complete tiles.
fn check_params<I: Index>(
    nrows: usize,
    nnz: usize,
    omega: usize,
    sigma: usize,
) -> Result<(DescFormat, usize), FormatError> {
    if !omega.is_power_of_two() || omega > 32 {
        return Err(FormatError::Parameter { name: "omega", value: omega });
    }
    let format =
        DescFormat::new(omega, sigma).ok_or(FormatError::Parameter { name: "sigma", value: sigma })?;
    let len = omega * sigma;
    if len > build::MAX_TILE {
        return Err(FormatError::TooLarge { what: "omega * sigma", value: len, max: build::MAX_TILE });
    }
    if nrows > I::MAX_UNFLAGGED {
        return Err(FormatError::TooLarge { what: "nrows", value: nrows, max: I::MAX_UNFLAGGED });
    }
    Ok((format, nnz / len))
}

/// The output buffers of the arrays CSR5 adds (each at least as long as the
/// [`Csr5Layout`] says; only that prefix is used).
#[derive(Debug)]
pub struct Csr5Aux<'b, I> {
    /// [`Csr5Layout::tile_ptr_len`] entries.
    pub tile_ptr: &'b mut [I],
    /// [`Csr5Layout::tile_desc_len`] words.
    pub tile_desc: &'b mut [u32],
    /// [`Csr5Layout::tile_ptr_len`] entries.
    pub empty_offset_ptr: &'b mut [I],
    /// [`Csr5Layout::empty_offset_len`] entries.
    pub empty_offset: &'b mut [I],
}

/// The arrays CSR5 adds, borrowed, for [`Csr5::new`].
#[derive(Clone, Copy, Debug)]
pub struct Csr5Parts<'a, I> {
    /// `tiles + 1` entries.
    pub tile_ptr: &'a [I],
    /// `tiles * omega` words.
    pub tile_desc: &'a [u32],
    /// `tiles + 1` entries.
    pub empty_offset_ptr: &'a [I],
    /// The segments' relative rows of the flagged tiles.
    pub empty_offset: &'a [I],
}

/// A validated, borrowed CSR5 matrix (see the [module docs](self) for the layout).
#[derive(Clone, Copy, Debug)]
pub struct Csr5<'a, T, I> {
    nrows: usize,
    ncols: usize,
    omega: usize,
    sigma: usize,
    format: DescFormat,
    row_ptr: &'a [I],
    col_idx: &'a [I],
    vals: &'a [T],
    tile_ptr: &'a [I],
    tile_desc: &'a [u32],
    empty_offset_ptr: &'a [I],
    empty_offset: &'a [I],
}

/// Receives what the tile walk finds: written out by [`Writer`], compared by [`Checker`].
trait Sink<I> {
    /// Head `k` of the current tile lies in row `r0 + rel`.
    fn head(&mut self, k: usize, rel: usize);
    /// Tile `t` is done: its rows, its `omega` packed words and its number of heads.
    fn tile(&mut self, t: usize, rows: TileRows, words: &[u32], heads: usize) -> Result<(), FormatError>;
    /// The tail starts in row `r` (`tile_ptr[ntiles]`).
    fn tail(&mut self, ntiles: usize, r: usize) -> Result<(), FormatError>;
}

/// Walks every complete tile of a matrix with `row_ptr` (Alg. 24–26) into `sink`.
fn walk<I: Index>(
    row_ptr: &[I],
    omega: usize,
    sigma: usize,
    format: DescFormat,
    ntiles: usize,
    sink: &mut impl Sink<I>,
) -> Result<(), FormatError> {
    let len = omega * sigma;
    let mut r = advance(row_ptr, 0, 0);
    let mut flags = [0u32; 32];
    let mut words = [0u32; 64];
    let nwords = omega * format.words_per_lane();
    for t in 0..ntiles {
        flags[..omega].fill(0);
        let mut heads = 0usize;
        // Heads come in increasing position: the lane moves forward, no division needed.
        let (mut lane, mut lane_start) = (0usize, 0usize);
        let rows = walk_tile(row_ptr, t * len, len, r, |row, pos| {
            while pos >= lane_start + sigma {
                lane += 1;
                lane_start += sigma;
            }
            flags[lane] |= 1 << (pos - lane_start);
            sink.head(heads, row - r);
            heads += 1;
        });
        build::lane_words(format, omega, &flags[..omega], &mut words[..nwords]);
        sink.tile(t, rows, &words[..nwords], heads)?;
        r = rows.r1;
    }
    sink.tail(ntiles, r)
}

/// The `tile_ptr` entry of a tile.
fn tile_ptr_entry<I: Index>(rows: TileRows) -> I {
    let p = I::from_usize_unchecked(rows.r0);
    if rows.dirty { p.flagged() } else { p }
}

/// Writes the arrays into caller buffers (already checked long enough, except
/// `empty_offset`, whose need is only known at the end).
struct Writer<'w, I> {
    tile_ptr: &'w mut [I],
    tile_desc: &'w mut [u32],
    empty_offset_ptr: &'w mut [I],
    empty_offset: &'w mut [I],
    used: usize,
    needed: usize,
}

impl<I: Index> Sink<I> for Writer<'_, I> {
    fn head(&mut self, k: usize, rel: usize) {
        // Tentative: kept only if the tile turns out flagged.
        if let Some(slot) = self.empty_offset.get_mut(self.used + k) {
            *slot = I::from_usize_unchecked(rel);
        }
    }
    fn tile(&mut self, t: usize, rows: TileRows, words: &[u32], heads: usize) -> Result<(), FormatError> {
        self.tile_ptr[t] = tile_ptr_entry(rows);
        self.empty_offset_ptr[t] = I::from_usize_unchecked(self.used);
        self.tile_desc[t * words.len()..(t + 1) * words.len()].copy_from_slice(words);
        if rows.dirty {
            self.needed += heads;
            if self.needed <= self.empty_offset.len() {
                self.used = self.needed;
            }
        }
        Ok(())
    }
    fn tail(&mut self, ntiles: usize, r: usize) -> Result<(), FormatError> {
        // `empty_offset` is cut to the layout's length, the one part of a layout that
        // depends on where the empty rows lie: a layout made for another matrix of this
        // shape differs here or nowhere (every other array is written from this
        // `row_ptr`), and one that differs would leave arrays `Csr5::new` refuses.
        check_len("empty_offset", self.empty_offset.len(), self.needed)?;
        self.tile_ptr[ntiles] = I::from_usize_unchecked(r);
        self.empty_offset_ptr[ntiles] = I::from_usize_unchecked(self.used);
        Ok(())
    }
}

/// Compares given arrays against what the walk finds.
struct Checker<'c, I> {
    parts: Csr5Parts<'c, I>,
    cursor: usize,
    mismatch: Option<(&'static str, usize)>,
}

impl<I: Index> Checker<'_, I> {
    fn fail(&mut self, array: &'static str, position: usize) {
        if self.mismatch.is_none() {
            self.mismatch = Some((array, position));
        }
    }
}

impl<I: Index> Sink<I> for Checker<'_, I> {
    fn head(&mut self, k: usize, rel: usize) {
        // Remembered per tile: compared in `tile` once we know whether it is flagged.
        let _ = (k, rel);
    }
    fn tile(&mut self, t: usize, rows: TileRows, words: &[u32], heads: usize) -> Result<(), FormatError> {
        if self.parts.tile_ptr[t] != tile_ptr_entry::<I>(rows) {
            self.fail("tile_ptr", t);
        }
        let n = words.len();
        let w = &self.parts.tile_desc[t * n..(t + 1) * n];
        if let Some(i) = w.iter().zip(words).position(|(a, b)| a != b) {
            self.fail("tile_desc", t * n + i);
        }
        if self.parts.empty_offset_ptr[t].try_to_usize() != Some(self.cursor) {
            self.fail("empty_offset_ptr", t);
        }
        if rows.dirty {
            self.cursor += heads;
        }
        match self.mismatch {
            Some((array, position)) => Err(FormatError::Csr5Mismatch { array, position }),
            None => Ok(()),
        }
    }
    fn tail(&mut self, ntiles: usize, r: usize) -> Result<(), FormatError> {
        if self.parts.tile_ptr[ntiles].try_to_usize() != Some(r) {
            return Err(FormatError::Csr5Mismatch { array: "tile_ptr", position: ntiles });
        }
        if self.parts.empty_offset_ptr[ntiles].try_to_usize() != Some(self.cursor) {
            return Err(FormatError::Csr5Mismatch { array: "empty_offset_ptr", position: ntiles });
        }
        check_len("empty_offset", self.parts.empty_offset.len(), self.cursor)
    }
}

impl<'a, T: Scalar, I: Index> Csr5<'a, T, I> {
    /// Converts `csr` into caller buffers (thesis 6.3, Alg. 24–26): copies `col_idx` and
    /// `vals` with every complete tile transposed and fills the arrays of `aux`. `row_ptr`
    /// is shared with `csr`. Costs one pass over `row_ptr` and one copy of the entries,
    /// the tiles transposed in register blocks on the widest `Isa` of this machine (as
    /// wide as the buffers' alignment allows: 16-byte aligned arrays move in 4 × 4 blocks
    /// of indices and 2 × 2 of `f64`, 64-byte aligned ones in blocks of a cache line per
    /// row); outputs of [`Tuning::stream_min_bytes`](crate::Tuning::stream_min_bytes)
    /// or more are written with non-temporal stores (x86-64). On the suite that comes to
    /// one or two row-scalar SpMVs on the regular matrices and under one on the irregular
    /// ones, where the thesis reports 3.7–6.1 on CPUs (`benches/spmv.rs`, group
    /// `csr5_conversion`; `benches/records/kernel-notes-2026-11.md`, "CSR5 conversion
    /// cost").
    ///
    /// # Errors
    /// [`FormatError::Length`] if `layout` was made for another shape, or (`"empty_offset"`)
    /// for another matrix of this shape whose empty rows lie elsewhere;
    /// [`FormatError::BufferTooSmall`] naming the first buffer shorter than the layout
    /// says. On error nothing is written — unless `layout` was made for another matrix of
    /// the same shape, which can leave the auxiliary buffers partly written. A layout of
    /// another matrix that passes is equal to this matrix's own.
    pub fn from_csr(
        csr: &Csr<'a, T, I>,
        layout: &Csr5Layout,
        col_idx: &'a mut [I],
        vals: &'a mut [T],
        aux: Csr5Aux<'a, I>,
    ) -> Result<Csr5<'a, T, I>, FormatError> {
        check_layout(csr.nrows(), csr.ncols(), csr.nnz(), layout)?;
        check_buf("col_idx", col_idx.len(), layout.nnz)?;
        check_buf("vals", vals.len(), layout.nnz)?;
        let aux = fill_aux(csr.row_ptr(), layout, aux)?;
        let (col_idx, vals) = (&mut col_idx[..layout.nnz], &mut vals[..layout.nnz]);
        build::transpose_tiles(csr.col_idx(), csr.vals(), col_idx, vals, layout.omega, layout.sigma);
        Ok(Csr5::assemble(csr.nrows(), csr.ncols(), layout, csr.row_ptr(), col_idx, vals, aux))
    }

    /// Converts a CSR matrix given by its arrays into CSR5 **in place** (the thesis's
    /// way, 6.3.1): `col_idx` and `vals` are validated as [`Csr::new`] does and then
    /// transposed tile by tile where they lie, so no second copy of the entries exists.
    /// [`Csr5::to_csr_in_place`] undoes it.
    ///
    /// # Errors
    /// As [`Csr::new`] for the arrays, then as [`Csr5::from_csr`]. On error `col_idx` and
    /// `vals` are unchanged.
    pub fn from_csr_in_place(
        nrows: usize,
        ncols: usize,
        row_ptr: &'a [I],
        col_idx: &'a mut [I],
        vals: &'a mut [T],
        layout: &Csr5Layout,
        aux: Csr5Aux<'a, I>,
    ) -> Result<Csr5<'a, T, I>, FormatError> {
        Csr::new(nrows, ncols, row_ptr, col_idx, vals)?;
        check_layout(nrows, ncols, col_idx.len(), layout)?;
        let aux = fill_aux(row_ptr, layout, aux)?;
        build::transpose_in_place(col_idx, vals, layout.omega, layout.sigma);
        Ok(Csr5::assemble(nrows, ncols, layout, row_ptr, col_idx, vals, aux))
    }

    /// Writes the entries back in CSR order (6.3.6): `col_idx` and `vals` then pair with
    /// [`Csr5::row_ptr`] as a CSR matrix equal to the one converted.
    ///
    /// # Errors
    /// [`FormatError::BufferTooSmall`] if a buffer holds fewer than `nnz` entries; nothing
    /// is written then.
    pub fn to_csr(&self, col_idx: &mut [I], vals: &mut [T]) -> Result<(), FormatError> {
        let nnz = self.nnz();
        check_buf("col_idx", col_idx.len(), nnz)?;
        check_buf("vals", vals.len(), nnz)?;
        build::untranspose_tiles(
            self.col_idx,
            self.vals,
            &mut col_idx[..nnz],
            &mut vals[..nnz],
            self.omega,
            self.sigma,
        );
        Ok(())
    }

    /// Transposes the tiles of arrays converted by [`Csr5::from_csr_in_place`] with
    /// `layout` back to CSR order, in place.
    ///
    /// # Errors
    /// [`FormatError::Length`] if `col_idx` or `vals` does not hold `layout.nnz()`
    /// entries; nothing is changed then.
    pub fn to_csr_in_place(
        layout: &Csr5Layout,
        col_idx: &mut [I],
        vals: &mut [T],
    ) -> Result<(), FormatError> {
        check_len("col_idx", col_idx.len(), layout.nnz)?;
        check_len("vals", vals.len(), layout.nnz)?;
        build::transpose_in_place(col_idx, vals, layout.sigma, layout.omega);
        Ok(())
    }

    /// Builds a view of CSR5 arrays after checking every invariant: the CSR ones
    /// (`row_ptr`, column bounds, lengths) and that `tile_ptr`, `tile_desc`,
    /// `empty_offset_ptr` and `empty_offset` are exactly what the conversion of this
    /// `row_ptr` with `(omega, sigma)` produces. Costs one pass over `row_ptr` and the
    /// column indices.
    ///
    /// # Errors
    /// [`FormatError::Parameter`] / [`FormatError::TooLarge`] as
    /// [`Csr5Layout::with_params`]; the CSR errors of [`Csr::new`] (for a column out of
    /// bounds, `row` is the row of the entry's CSR position); [`FormatError::Length`] for
    /// an auxiliary array of the wrong length; [`FormatError::Csr5Mismatch`] naming the
    /// first entry that differs. A negative `i32` / `i64` entry of `row_ptr` or `col_idx`
    /// is [`FormatError::NegativeIndex`] (`col_idx`: its storage position).
    pub fn new(
        nrows: usize,
        ncols: usize,
        (omega, sigma): (usize, usize),
        row_ptr: &'a [I],
        col_idx: &'a [I],
        vals: &'a [T],
        parts: Csr5Parts<'a, I>,
    ) -> Result<Csr5<'a, T, I>, FormatError> {
        let nnz = col_idx.len();
        check_dims::<I>(nrows, ncols, nnz)?;
        let (format, ntiles) = check_params::<I>(nrows, nnz, omega, sigma)?;
        check_len("row_ptr", row_ptr.len(), nrows + 1)?;
        check_len("vals", vals.len(), nnz)?;
        check_ptr("row_ptr", row_ptr, nnz)?;
        check_len("tile_ptr", parts.tile_ptr.len(), ntiles + 1)?;
        check_len("tile_desc", parts.tile_desc.len(), ntiles * omega * format.words_per_lane())?;
        check_len("empty_offset_ptr", parts.empty_offset_ptr.len(), ntiles + 1)?;
        let len = omega * sigma;
        // A branch-free pass (vectorised); the entry loop only to name the first column
        // out of bounds (in storage order).
        if any_at_or_above(col_idx, ncols) {
            let mut r = 0usize;
            for (pos, &c) in col_idx.iter().enumerate() {
                // The CSR position of storage position `pos`, for the error's row.
                let orig = if pos < ntiles * len {
                    let (t, k) = (pos / len, pos % len);
                    t * len + (k % omega) * sigma + k / omega
                } else {
                    pos
                };
                if let Some(e) = negative("col_idx", pos, c) {
                    return Err(e);
                }
                if c.try_to_usize().is_none_or(|c| c >= ncols) {
                    r = advance(row_ptr, 0, orig);
                }
                check_col(c, ncols, r, orig)?;
            }
        }
        let mut checker = Checker { parts, cursor: 0, mismatch: None };
        walk(row_ptr, omega, sigma, format, ntiles, &mut checker)?;
        // The relative rows of each flagged tile: strictly increasing from 0, inside the
        // tile's row range.
        for t in 0..ntiles {
            let tp = parts.tile_ptr[t];
            if !tp.is_flagged() {
                continue;
            }
            let (a, b) = (parts.empty_offset_ptr[t].to_usize(), parts.empty_offset_ptr[t + 1].to_usize());
            let mut heads = 0usize;
            let mut ok = true;
            let r0 = tp.unflagged().to_usize();
            let mut k = 0usize;
            walk_tile(row_ptr, t * len, len, r0, |row, _| {
                if parts.empty_offset.get(a + k).and_then(|v| v.try_to_usize()) != Some(row - r0) {
                    ok = false;
                }
                k += 1;
                heads += 1;
            });
            if !ok || heads != b - a {
                return Err(FormatError::Csr5Mismatch { array: "empty_offset", position: a });
            }
        }
        Ok(Csr5::from_checked(nrows, ncols, (omega, sigma, format), row_ptr, col_idx, vals, parts))
    }

    /// Builds a view without checking anything.
    ///
    /// # Safety
    /// Every invariant [`Csr5::new`] checks must hold. The SpMV kernels index `x`, `y`
    /// and the arrays with the stored values without bounds checks on the SIMD paths.
    #[allow(unsafe_code)]
    pub unsafe fn new_unchecked(
        nrows: usize,
        ncols: usize,
        (omega, sigma): (usize, usize),
        row_ptr: &'a [I],
        col_idx: &'a [I],
        vals: &'a [T],
        parts: Csr5Parts<'a, I>,
    ) -> Csr5<'a, T, I> {
        const ONE_BY_ONE: DescFormat = match DescFormat::new(1, 1) {
            Some(f) => f,
            None => panic!("a 1x1 tile always fits"),
        };
        let format = DescFormat::new(omega, sigma).unwrap_or(ONE_BY_ONE);
        Csr5::from_checked(nrows, ncols, (omega, sigma, format), row_ptr, col_idx, vals, parts)
    }

    /// The view of arrays built with `layout` (which checked `omega` and `sigma`).
    fn assemble(
        nrows: usize,
        ncols: usize,
        layout: &Csr5Layout,
        row_ptr: &'a [I],
        col_idx: &'a [I],
        vals: &'a [T],
        parts: Csr5Parts<'a, I>,
    ) -> Csr5<'a, T, I> {
        let params = (layout.omega, layout.sigma, layout.format);
        Csr5::from_checked(nrows, ncols, params, row_ptr, col_idx, vals, parts)
    }

    /// The one place the struct is put together, for every constructor above.
    fn from_checked(
        nrows: usize,
        ncols: usize,
        (omega, sigma, format): (usize, usize, DescFormat),
        row_ptr: &'a [I],
        col_idx: &'a [I],
        vals: &'a [T],
        parts: Csr5Parts<'a, I>,
    ) -> Csr5<'a, T, I> {
        Csr5 {
            nrows,
            ncols,
            omega,
            sigma,
            format,
            row_ptr,
            col_idx,
            vals,
            tile_ptr: parts.tile_ptr,
            tile_desc: parts.tile_desc,
            empty_offset_ptr: parts.empty_offset_ptr,
            empty_offset: parts.empty_offset,
        }
    }

    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.nrows
    }
    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.ncols
    }
    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.col_idx.len()
    }
    /// Tile width (lanes).
    pub fn omega(&self) -> usize {
        self.omega
    }
    /// Tile height (steps).
    pub fn sigma(&self) -> usize {
        self.sigma
    }
    /// Number of complete tiles.
    pub fn tiles(&self) -> usize {
        self.tile_ptr.len() - 1
    }
    /// The CSR row pointer (unchanged by the conversion).
    pub fn row_ptr(&self) -> &'a [I] {
        self.row_ptr
    }
    /// Column indices, complete tiles transposed.
    pub fn col_idx(&self) -> &'a [I] {
        self.col_idx
    }
    /// Values, complete tiles transposed.
    pub fn vals(&self) -> &'a [T] {
        self.vals
    }
    /// Tile pointers with the empty-row flag in the top bit ([`Index::is_flagged`]).
    pub fn tile_ptr(&self) -> &'a [I] {
        self.tile_ptr
    }
    /// Descriptor words, `omega` per tile ([`tile`]).
    pub fn tile_desc(&self) -> &'a [u32] {
        self.tile_desc
    }
    /// Where each tile's run of `empty_offset` starts.
    pub fn empty_offset_ptr(&self) -> &'a [I] {
        self.empty_offset_ptr
    }
    /// The segments' rows, relative to `tile_ptr`, of the flagged tiles.
    pub fn empty_offset(&self) -> &'a [I] {
        self.empty_offset
    }
    /// How the descriptor words pack their fields.
    pub fn desc_format(&self) -> DescFormat {
        self.format
    }
    /// The decoded descriptor of complete tile `t`, `None` past the last.
    pub fn tile(&self, t: usize) -> Option<TileDesc<'a>> {
        let n = self.omega * self.format.words_per_lane();
        let w = self.tile_desc.get(t * n..(t + 1) * n)?;
        Some(TileDesc::new(self.format, w))
    }
}

/// Checks that `layout` describes a matrix of this shape.
fn check_layout(nrows: usize, ncols: usize, nnz: usize, layout: &Csr5Layout) -> Result<(), FormatError> {
    check_len("row_ptr", nrows + 1, layout.nrows + 1)?;
    check_len("ncols", ncols, layout.ncols)?;
    check_len("col_idx", nnz, layout.nnz)
}

/// Fills the auxiliary arrays after checking their lengths; on error nothing is written
/// except possibly `empty_offset` slots (the layout says how many it needs, and a
/// buffer long enough never fails).
fn fill_aux<'a, I: Index>(
    row_ptr: &[I],
    layout: &Csr5Layout,
    aux: Csr5Aux<'a, I>,
) -> Result<Csr5Parts<'a, I>, FormatError> {
    let Csr5Aux { tile_ptr, tile_desc, empty_offset_ptr, empty_offset } = aux;
    check_buf("tile_ptr", tile_ptr.len(), layout.tile_ptr_len())?;
    check_buf("tile_desc", tile_desc.len(), layout.tile_desc_len())?;
    check_buf("empty_offset_ptr", empty_offset_ptr.len(), layout.tile_ptr_len())?;
    check_buf("empty_offset", empty_offset.len(), layout.empty_offset_len)?;
    let format = layout.format;
    let tile_ptr = &mut tile_ptr[..layout.tile_ptr_len()];
    let tile_desc = &mut tile_desc[..layout.tile_desc_len()];
    let empty_offset_ptr = &mut empty_offset_ptr[..layout.tile_ptr_len()];
    let empty_offset = &mut empty_offset[..layout.empty_offset_len];
    let mut w = Writer { tile_ptr, tile_desc, empty_offset_ptr, empty_offset, used: 0, needed: 0 };
    walk(row_ptr, layout.omega, layout.sigma, format, layout.ntiles, &mut w)?;
    let Writer { tile_ptr, tile_desc, empty_offset_ptr, empty_offset, .. } = w;
    Ok(Csr5Parts { tile_ptr, tile_desc, empty_offset_ptr, empty_offset })
}

#[cfg(feature = "alloc")]
pub use owned::Csr5Owned;

#[cfg(feature = "alloc")]
mod owned {
    use alloc::vec::Vec;

    use super::{Csr5, Csr5Aux, Csr5Layout, Csr5Parts, build, check_layout, fill_aux};
    use crate::formats::{Csr, CsrOwned, RowOrder, try_room, try_vec, try_vec_paged};
    use crate::{Exec, FormatError, Index, Scalar};

    /// A CSR5 matrix that owns its arrays (feature `alloc`), `row_ptr` included.
    #[derive(Clone, Debug, PartialEq)]
    pub struct Csr5Owned<T, I> {
        layout: Csr5Layout,
        row_ptr: Vec<I>,
        col_idx: Vec<I>,
        vals: Vec<T>,
        tile_ptr: Vec<I>,
        tile_desc: Vec<u32>,
        empty_offset_ptr: Vec<I>,
        empty_offset: Vec<I>,
        /// The row order of the CSR matrix converted, for [`Csr5Owned::into_csr_owned`].
        order: RowOrder,
    }

    /// A layout's auxiliary arrays, zeroed and owned, for the conversions to fill.
    struct Aux<I> {
        tile_ptr: Vec<I>,
        tile_desc: Vec<u32>,
        empty_offset_ptr: Vec<I>,
        empty_offset: Vec<I>,
    }

    impl<I: Index> Aux<I> {
        /// Zeroed arrays of `layout`'s lengths, or [`FormatError::TooLarge`] if they
        /// cannot be allocated.
        fn new(layout: &Csr5Layout) -> Result<Self, FormatError> {
            Ok(Aux {
                tile_ptr: try_vec("tile_ptr", layout.tile_ptr_len(), I::ZERO)?,
                tile_desc: try_vec("tile_desc", layout.tile_desc_len(), 0u32)?,
                empty_offset_ptr: try_vec("empty_offset_ptr", layout.tile_ptr_len(), I::ZERO)?,
                empty_offset: try_vec("empty_offset", layout.empty_offset_len(), I::ZERO)?,
            })
        }

        fn borrow(&mut self) -> Csr5Aux<'_, I> {
            Csr5Aux {
                tile_ptr: &mut self.tile_ptr,
                tile_desc: &mut self.tile_desc,
                empty_offset_ptr: &mut self.empty_offset_ptr,
                empty_offset: &mut self.empty_offset,
            }
        }
    }

    impl<T: Scalar, I: Index> Csr5Owned<T, I> {
        /// Converts with the layout for `exec`'s [`Isa`](crate::Isa) ([`Csr5Layout::new`]).
        ///
        /// # Errors
        /// As [`Csr5Layout::new`].
        pub fn from_csr(exec: Exec, csr: &Csr<'_, T, I>) -> Result<Self, FormatError> {
            Csr5Owned::from_csr_layout(csr, &Csr5Layout::new(csr, exec.resolved_isa())?)
        }

        /// Converts with a given layout.
        ///
        /// # Errors
        /// As [`Csr5::from_csr`].
        pub fn from_csr_layout(csr: &Csr<'_, T, I>, layout: &Csr5Layout) -> Result<Self, FormatError> {
            Csr5Owned::from_csr_paged(csr, layout, false)
        }

        /// [`Csr5Owned::from_csr_layout`], its entry arrays backed by huge pages if
        /// `huge` ([`crate::level2::SpmvConfig::huge_pages`]).
        pub(crate) fn from_csr_paged(
            csr: &Csr<'_, T, I>,
            layout: &Csr5Layout,
            huge: bool,
        ) -> Result<Self, FormatError> {
            let mut col_idx = try_vec_paged("col_idx", layout.nnz(), I::ZERO, huge)?;
            let mut vals = try_vec_paged("vals", layout.nnz(), T::ZERO, huge)?;
            let mut aux = Aux::new(layout)?;
            Csr5::from_csr(csr, layout, &mut col_idx, &mut vals, aux.borrow())?;
            let mut row_ptr = try_room("row_ptr", csr.row_ptr().len())?;
            row_ptr.extend_from_slice(csr.row_ptr());
            Ok(Csr5Owned::from_arrays(*layout, row_ptr, col_idx, vals, aux, csr.row_order()))
        }

        /// Converts an owned CSR matrix in place (the thesis's way, 6.3.1), with the
        /// layout for `exec`'s `Isa`: its `col_idx` and `vals` are transposed tile by tile where
        /// they lie, so no second copy of the entries exists, and nothing is validated
        /// again (a [`CsrOwned`] is valid). Costs the auxiliary arrays' pass over
        /// `row_ptr` and one in-cache transpose per tile; [`Csr5Owned::into_csr_owned`]
        /// undoes it.
        ///
        /// # Errors
        /// As [`Csr5Layout::new`], with the matrix handed back unchanged.
        // The error hands the matrix back (its three `Vec` headers, not its entries).
        #[allow(clippy::result_large_err)]
        pub fn from_csr_owned(
            exec: Exec,
            csr: CsrOwned<T, I>,
        ) -> Result<Self, (FormatError, CsrOwned<T, I>)> {
            let layout = match Csr5Layout::new(&csr.view(), exec.resolved_isa()) {
                Ok(l) => l,
                Err(e) => return Err((e, csr)),
            };
            let order = csr.view().row_order();
            let (nrows, ncols, row_ptr, mut col_idx, mut vals) = csr.into_parts();
            // The checks cannot fail (the layout is this matrix's, the buffers are its
            // lengths); the auxiliary arrays' allocation can.
            let done = Aux::new(&layout).and_then(|mut aux| {
                check_layout(nrows, ncols, col_idx.len(), &layout)?;
                fill_aux(&row_ptr, &layout, aux.borrow())?;
                Ok(aux)
            });
            let aux = match done {
                Ok(aux) => aux,
                Err(e) => {
                    return Err((
                        e,
                        CsrOwned::from_parts_trusted(nrows, ncols, row_ptr, col_idx, vals, order),
                    ));
                }
            };
            build::transpose_in_place(&mut col_idx, &mut vals, layout.omega, layout.sigma);
            Ok(Csr5Owned::from_arrays(layout, row_ptr, col_idx, vals, aux, order))
        }

        fn from_arrays(
            layout: Csr5Layout,
            row_ptr: Vec<I>,
            col_idx: Vec<I>,
            vals: Vec<T>,
            aux: Aux<I>,
            order: RowOrder,
        ) -> Self {
            let Aux { tile_ptr, tile_desc, empty_offset_ptr, empty_offset } = aux;
            Csr5Owned {
                layout,
                row_ptr,
                col_idx,
                vals,
                tile_ptr,
                tile_desc,
                empty_offset_ptr,
                empty_offset,
                order,
            }
        }

        /// Back to CSR in place ([`Csr5::to_csr_in_place`] on its own arrays): the
        /// matrix [`Csr5Owned::from_csr_owned`] (or any conversion) started from.
        pub fn into_csr_owned(self) -> CsrOwned<T, I> {
            let Csr5Owned { layout, row_ptr, mut col_idx, mut vals, order, .. } = self;
            build::transpose_in_place(&mut col_idx, &mut vals, layout.sigma, layout.omega);
            CsrOwned::from_parts_trusted(layout.nrows, layout.ncols, row_ptr, col_idx, vals, order)
        }

        /// The layout it was built with.
        pub fn layout(&self) -> &Csr5Layout {
            &self.layout
        }

        /// The validated view every kernel takes.
        pub fn view(&self) -> Csr5<'_, T, I> {
            Csr5::assemble(
                self.layout.nrows,
                self.layout.ncols,
                &self.layout,
                &self.row_ptr,
                &self.col_idx,
                &self.vals,
                Csr5Parts {
                    tile_ptr: &self.tile_ptr,
                    tile_desc: &self.tile_desc,
                    empty_offset_ptr: &self.empty_offset_ptr,
                    empty_offset: &self.empty_offset,
                },
            )
        }
    }
}
