//! Deterministic, seeded generators of test and benchmark matrices (feature `gen`).
//!
//! The thesis measures its kernels on two classes of matrices (section 8.4.2, Table 8.2;
//! section 8.5.2, Table 8.4; Appendix A, Table A.1): *regular* ones, whose rows have
//! roughly the same length (Dense, QCD, the FEM matrices), and *irregular* ones, with a
//! few very long rows among many short ones (Webbase, LP, ASIC_680k, dc2, ins2, ...).
//! Those matrices come from the University of Florida (SuiteSparse) collection; this
//! module generates stand-ins for each class so tests and benchmarks need no downloads:
//!
//! | generator | class | stands in for (thesis Table 8.2 / 8.4) |
//! |---|---|---|
//! | [`poisson2d`], [`poisson3d_27`] | regular | FEM/Cantilever, FEM/Spheres (stencils) |
//! | [`banded`] | regular | QCD, Epidemiology (equal row lengths) |
//! | [`dense_block`], [`block_diagonal`] | regular | Dense (2K × 2K), Protein (dense blocks) |
//! | [`rmat`] | irregular | Webbase, eu-2005, in-2004 (power-law graphs) |
//! | [`dc2_like`] | irregular | dc2, ASIC_680k, ins2 (circuits: one row with 100K+ entries) |
//! | [`lp_like`] | irregular | LP / rail4284 (4K × 1.1M, 1 to 56K entries per row) |
//! | [`uniform_random`] | irregular | no structure at all: worst locality of `x` |
//!
//! plus edge cases for kernels' corner paths: [`empty`], [`one_dense_row`],
//! [`single_row`], [`single_column`], [`tall_sparse`]. [`suite`] (and the lazy
//! [`suite_entries`]) bundle one of each class at three sizes: [`SuiteScale::Small`] for
//! tests, [`SuiteScale::Quick`] for the quick benchmark run and [`SuiteScale::Full`] for the
//! thesis-scale table.
//!
//! Every generator writes the CSR arrays directly in canonical order (rows sorted by
//! column, no duplicates), so [`crate::Csr::row_order`] of the result is
//! [`crate::RowOrder::Canonical`].
//!
//! # Determinism
//! A random generator seeds `Xoshiro256PlusPlus` with `seed_from_u64(seed)` (SplitMix64;
//! both follow their authors' reference C code) and maps each raw `u64` to a range or a
//! value itself, with plain integer arithmetic, instead of through a distribution
//! library. So `(generator, parameters, seed)` gives the same matrix on every machine,
//! Rust version and dependency release. Random values lie in `(-1, 1)`, on the grid of
//! odd multiples of `2^-24`: they are never zero and are exactly the same for `f32` and
//! `f64` (R-MAT sums its duplicates in `f64` and rounds once).
//!
//! # Example
//! ```
//! use spblas::generate::{self, MatrixClass, SuiteScale};
//! use spblas::RowOrder;
//!
//! let a = generate::poisson2d::<f64, u32>(4)?; // 16 × 16, 5-point stencil
//! assert_eq!((a.nrows(), a.nnz()), (16, 64));
//! assert_eq!(a.view().row_order(), RowOrder::Canonical);
//!
//! // Same seed, same matrix.
//! let b = generate::rmat::<f32, u32>(10, 8, 42)?;
//! assert_eq!(b, generate::rmat::<f32, u32>(10, 8, 42)?);
//!
//! for entry in generate::suite_entries(SuiteScale::Small) {
//!     let m = entry.generate::<f64, u32>()?;
//!     assert!(m.nnz() < 50_000, "{} is small", entry.name);
//!     let _ = entry.class == MatrixClass::Regular;
//! }
//! # Ok::<(), spblas::FormatError>(())
//! ```

use alloc::vec::Vec;

use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

use crate::formats::{check_dims, checked_mul, try_room, try_vec};
use crate::{CsrOwned, FormatError, Index, Scalar};

// ---------------------------------------------------------------------------------------
// Random stream and helpers
// ---------------------------------------------------------------------------------------

/// `2^-24`: the spacing of the value grid.
const TWO_POW_M24: f64 = 1.0 / 16_777_216.0;

/// A seeded xoshiro256++ stream with our own, version-independent range mappings.
#[derive(Clone)]
struct Stream(Xoshiro256PlusPlus);

impl Stream {
    fn new(seed: u64) -> Self {
        Stream(Xoshiro256PlusPlus::seed_from_u64(seed))
    }

    /// A stream 2^128 draws ahead, so that values never overlap the pattern's draws and
    /// changing how many draws the pattern takes never shifts the values' stream start.
    fn jumped(&self) -> Self {
        let mut s = self.clone();
        s.0.jump();
        s
    }

    #[inline(always)]
    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `0..n` by Lemire's multiply-shift (bias below `n / 2^64`); `n > 0`.
    #[inline(always)]
    fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// [`Stream::below`] for `usize` ranges (exact: `usize` is at most 64 bits wide).
    #[inline(always)]
    fn below_usize(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// Uniform on the odd multiples of `2^-24` in `(-1, 1)`: exact in `f32` and `f64`,
    /// symmetric around zero, never zero.
    #[inline(always)]
    fn value(&mut self) -> f64 {
        let k = self.next_u64() >> 40;
        (2 * k + 1) as f64 * TWO_POW_M24 - 1.0
    }

    /// Uniform on the odd multiples of `2^-53` in `(0, 1)`.
    #[inline(always)]
    fn unit_open(&mut self) -> f64 {
        let k = self.next_u64() >> 11;
        (2 * k + 1) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }
}

fn checked_add(what: &'static str, a: usize, b: usize) -> Result<usize, FormatError> {
    a.checked_add(b).ok_or(FormatError::TooLarge { what, value: usize::MAX, max: usize::MAX })
}

fn param(name: &'static str, value: usize) -> FormatError {
    FormatError::Parameter { name, value }
}

/// Writes `k` distinct values of `0..n` into `out` (cleared first), in increasing order.
/// Needs `k <= n`.
///
/// Dense requests (`k >= n / 8`) use selection sampling (Knuth's Algorithm S, one draw per
/// candidate, output already sorted); sparse ones draw `k`, sort, drop duplicates and draw
/// again for the shortfall, which needs few rounds when `k < n / 8`.
fn sample_distinct<P: Pos>(rng: &mut Stream, n: P, k: usize, out: &mut Vec<P>) {
    let n = n.to_u64();
    debug_assert!(k as u64 <= n);
    out.clear();
    if k == 0 {
        return;
    }
    if k as u64 >= n / 8 {
        let mut need = k as u64;
        for c in 0..n {
            if need == 0 {
                break;
            }
            // When `n - c == need` every draw is below `need`: the tail is taken whole.
            if rng.below(n - c) < need {
                out.push(P::from_u64(c));
                need -= 1;
            }
        }
    } else {
        while out.len() < k {
            let need = k - out.len();
            for _ in 0..need {
                out.push(P::from_u64(rng.below(n)));
            }
            out.sort_unstable();
            out.dedup();
        }
    }
}

/// A position [`sample_distinct`] draws: a column (`usize`), or a cell of a matrix whose
/// `nrows²` cells may pass `usize` on 32-bit targets (`u64`). Every value drawn is below
/// an `n` of the same type, so the conversions are exact.
trait Pos: Copy + Ord {
    fn to_u64(self) -> u64;
    fn from_u64(v: u64) -> Self;
}

impl Pos for usize {
    #[inline(always)]
    fn to_u64(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn from_u64(v: u64) -> Self {
        v as usize
    }
}

impl Pos for u64 {
    #[inline(always)]
    fn to_u64(self) -> u64 {
        self
    }
    #[inline(always)]
    fn from_u64(v: u64) -> Self {
        v
    }
}

/// Appends rows to canonical CSR arrays and validates them once at the end.
struct Builder<T, I> {
    nrows: usize,
    ncols: usize,
    row_ptr: Vec<I>,
    col_idx: Vec<I>,
    vals: Vec<T>,
}

impl<T: Scalar, I: Index> Builder<T, I> {
    /// Checks the dimensions against `I` and reserves `nnz` entries (exact when known, an
    /// estimate otherwise; the arrays grow past it if needed).
    fn new(nrows: usize, ncols: usize, nnz: usize) -> Result<Self, FormatError> {
        check_dims::<I>(nrows, ncols, 0)?;
        let mut row_ptr = try_room("nrows + 1", checked_add("nrows + 1", nrows, 1)?)?;
        row_ptr.push(I::ZERO);
        Ok(Builder { nrows, ncols, row_ptr, col_idx: try_room("nnz", nnz)?, vals: try_room("nnz", nnz)? })
    }

    /// Appends one entry to the current row; columns must come in increasing order.
    #[inline(always)]
    fn push(&mut self, col: usize, val: f64) {
        self.col_idx.push(I::from_usize_unchecked(col));
        self.vals.push(T::from_f64(val));
    }

    /// Closes the current row.
    #[inline(always)]
    fn end_row(&mut self) {
        // Wraps only if nnz outgrows `I`, which `finish` then reports.
        self.row_ptr.push(I::from_usize_unchecked(self.col_idx.len()));
    }

    /// Validates (one pass, as [`CsrOwned::from_parts`] does) and hands over the arrays.
    fn finish(self) -> Result<CsrOwned<T, I>, FormatError> {
        debug_assert_eq!(self.row_ptr.len(), self.nrows + 1);
        CsrOwned::from_parts(self.nrows, self.ncols, self.row_ptr, self.col_idx, self.vals)
    }
}

// ---------------------------------------------------------------------------------------
// Regular matrices
// ---------------------------------------------------------------------------------------

/// The 5-point finite-difference Laplacian on an `n × n` grid with Dirichlet boundary:
/// `n² × n²`, `5n² - 4n` entries.
///
/// Grid point `(i, j)` is row `i * n + j`. Each row holds `4` on the diagonal and `-1`
/// for each of its (up to four) grid neighbours, so interior rows sum to zero and the
/// matrix is symmetric positive definite — the classic conjugate-gradient test problem.
/// A regular matrix (at most 5 entries per row), standing in for the thesis's FEM
/// stencil matrices (Table 8.4, r3/r4).
///
/// # Errors
/// [`FormatError::TooLarge`] if `n²` (or the entry count) overflows or does not fit `I`
/// (for `u32`, `n ≤ 65535`), or the arrays cannot be allocated.
pub fn poisson2d<T: Scalar, I: Index>(n: usize) -> Result<CsrOwned<T, I>, FormatError> {
    let m = checked_mul("n * n", n, n)?;
    // 5 per row minus the 4n grid neighbours missing on the boundary.
    let nnz = checked_mul("nnz", 5, m)? - 4 * n;
    check_dims::<I>(m, m, nnz)?;
    let mut b = Builder::<T, I>::new(m, m, nnz)?;
    for i in 0..n {
        for j in 0..n {
            let r = i * n + j;
            if i > 0 {
                b.push(r - n, -1.0);
            }
            if j > 0 {
                b.push(r - 1, -1.0);
            }
            b.push(r, 4.0);
            if j + 1 < n {
                b.push(r + 1, -1.0);
            }
            if i + 1 < n {
                b.push(r + n, -1.0);
            }
            b.end_row();
        }
    }
    b.finish()
}

/// The 27-point stencil on an `n × n × n` grid with Dirichlet boundary: `n³ × n³`,
/// `(3n - 2)³` entries (for `n ≥ 1`).
///
/// Grid point `(z, y, x)` is row `(z * n + y) * n + x`. Each row holds `26` on the
/// diagonal and `-1` for each of its (up to 26) neighbours in the surrounding
/// `3 × 3 × 3` cube, so interior rows sum to zero; the matrix is symmetric and
/// weakly diagonally dominant. A regular matrix with 27 entries in interior rows, like the
/// thesis's 3-D FEM matrices (FEM/Cantilever: 64 per row, FEM/Spheres: 72; Table 8.4).
///
/// # Errors
/// [`FormatError::TooLarge`] if `n³` (or the entry count) overflows or does not fit `I`,
/// or the arrays cannot be allocated.
pub fn poisson3d_27<T: Scalar, I: Index>(n: usize) -> Result<CsrOwned<T, I>, FormatError> {
    let m = checked_mul("n * n * n", checked_mul("n * n * n", n, n)?, n)?;
    checked_mul("nnz", 27, m)?;
    let nnz = if n == 0 { 0 } else { (3 * n - 2) * (3 * n - 2) * (3 * n - 2) };
    check_dims::<I>(m, m, nnz)?;
    let mut b = Builder::<T, I>::new(m, m, nnz)?;
    // Neighbour offsets in increasing column order: z slowest, x fastest.
    for z in 0..n {
        for y in 0..n {
            for x in 0..n {
                let r = (z * n + y) * n + x;
                for zz in z.saturating_sub(1)..=(z + 1).min(n - 1) {
                    for yy in y.saturating_sub(1)..=(y + 1).min(n - 1) {
                        for xx in x.saturating_sub(1)..=(x + 1).min(n - 1) {
                            let c = (zz * n + yy) * n + xx;
                            b.push(c, if c == r { 26.0 } else { -1.0 });
                        }
                    }
                }
                b.end_row();
            }
        }
    }
    b.finish()
}

/// An `n × n` band matrix: row `i` holds columns `i - lower ..= i + upper` (clipped to
/// the matrix), with random values.
///
/// `lower` and `upper` larger than `n - 1` act as `n - 1`. Every interior row has the
/// same length `lower + upper + 1`: a regular matrix like the thesis's QCD
/// (39 per row) or Epidemiology (2–4 per row) (Table 8.2 / 8.4), and the best case of the
/// DIA and ELL formats.
///
/// # Errors
/// [`FormatError::TooLarge`] if the entry count overflows or a dimension does not fit
/// `I`, or the arrays cannot be allocated.
pub fn banded<T: Scalar, I: Index>(
    n: usize,
    lower: usize,
    upper: usize,
    seed: u64,
) -> Result<CsrOwned<T, I>, FormatError> {
    let (lower, upper) = (lower.min(n.saturating_sub(1)), upper.min(n.saturating_sub(1)));
    // n (lower + upper + 1) minus the triangles cut off at the two corners.
    let width = checked_add("lower + upper + 1", checked_add("lower + upper + 1", lower, upper)?, 1)?;
    let full = checked_mul("nnz", n, width)?;
    let nnz = full - lower * (lower + 1) / 2 - upper * (upper + 1) / 2;
    check_dims::<I>(n, n, nnz)?;
    let mut rng = Stream::new(seed);
    let mut b = Builder::<T, I>::new(n, n, nnz)?;
    for i in 0..n {
        for c in i.saturating_sub(lower)..=(i + upper).min(n - 1) {
            b.push(c, rng.value());
        }
        b.end_row();
    }
    b.finish()
}

/// A dense `nrows × ncols` matrix stored as CSR: every entry present, random values.
///
/// The thesis's r1 *Dense* (2K × 2K, 4.0M entries; Table 8.2 / 8.4): the most regular
/// matrix there is, and the upper bound on SpMV throughput since `x` is read in order.
///
/// # Errors
/// [`FormatError::TooLarge`] if `nrows * ncols` overflows or a dimension or the count
/// does not fit `I`, or the arrays cannot be allocated.
pub fn dense_block<T: Scalar, I: Index>(
    nrows: usize,
    ncols: usize,
    seed: u64,
) -> Result<CsrOwned<T, I>, FormatError> {
    let nnz = checked_mul("nrows * ncols", nrows, ncols)?;
    check_dims::<I>(nrows, ncols, nnz)?;
    let mut rng = Stream::new(seed);
    let mut b = Builder::<T, I>::new(nrows, ncols, nnz)?;
    for _ in 0..nrows {
        for c in 0..ncols {
            b.push(c, rng.value());
        }
        b.end_row();
    }
    b.finish()
}

/// `nblocks` dense `block × block` blocks along the diagonal: a square matrix of order
/// `nblocks * block` with `nblocks * block²` random entries, `block` per row.
///
/// A regular matrix with dense sub-blocks, as in the thesis's Protein or QCD matrices
/// (Table 8.4); also the shape of a batch of small dense problems.
///
/// # Errors
/// [`FormatError::TooLarge`] if the order or the entry count overflows or does not fit
/// `I`, or the arrays cannot be allocated.
pub fn block_diagonal<T: Scalar, I: Index>(
    nblocks: usize,
    block: usize,
    seed: u64,
) -> Result<CsrOwned<T, I>, FormatError> {
    let n = checked_mul("nblocks * block", nblocks, block)?;
    let nnz = checked_mul("nnz", n, block)?;
    check_dims::<I>(n, n, nnz)?;
    let mut rng = Stream::new(seed);
    let mut b = Builder::<T, I>::new(n, n, nnz)?;
    for i in 0..n {
        let start = i - i % block;
        for c in start..start + block {
            b.push(c, rng.value());
        }
        b.end_row();
    }
    b.finish()
}

// ---------------------------------------------------------------------------------------
// Irregular matrices
// ---------------------------------------------------------------------------------------

/// R-MAT quadrant probabilities `a`, `a + b`, `a + b + c` for (a, b, c, d) = (0.57, 0.19,
/// 0.19, 0.05), as fractions of `2^32` (rounded to nearest).
const RMAT_A: u64 = 2_448_131_359;
const RMAT_AB: u64 = 3_264_175_145;
const RMAT_ABC: u64 = 4_080_218_931;

/// One R-MAT edge: `scale` quadrant choices, 32 random bits each (two per draw).
#[inline]
fn rmat_edge(rng: &mut Stream, scale: u32) -> (usize, usize) {
    let (mut r, mut c) = (0usize, 0usize);
    let mut bits = 0u64;
    for level in 0..scale {
        if level % 2 == 0 {
            bits = rng.next_u64();
        }
        let u = bits & 0xFFFF_FFFF;
        bits >>= 32;
        // Quadrants [0, a): (0, 0); [a, a+b): (0, 1); [a+b, a+b+c): (1, 0); else (1, 1),
        // computed without branches (the choice is random, so branches would mispredict).
        let rb = (u >= RMAT_AB) as usize;
        let cb = ((u >= RMAT_A) ^ (u >= RMAT_AB) ^ (u >= RMAT_ABC)) as usize;
        r = (r << 1) | rb;
        c = (c << 1) | cb;
    }
    (r, c)
}

/// A seeded bijection of `0..2^scale`: each step (multiplication by an odd constant,
/// `x ^= x >> shift`, adding a constant, all modulo `2^scale`) is invertible.
struct Relabel {
    mask: usize,
    shift: u32,
    mul: [usize; 2],
    add: usize,
}

impl Relabel {
    fn new(rng: &mut Stream, scale: u32) -> Self {
        let mask = if scale == 0 { 0 } else { usize::MAX >> (usize::BITS - scale) };
        Relabel {
            mask,
            shift: scale.div_ceil(2).max(1),
            mul: [rng.next_u64() as usize | 1, rng.next_u64() as usize | 1],
            add: rng.next_u64() as usize,
        }
    }

    #[inline(always)]
    fn apply(&self, x: usize) -> usize {
        let mut x = x.wrapping_mul(self.mul[0]) & self.mask;
        x ^= x >> self.shift;
        x = x.wrapping_mul(self.mul[1]) & self.mask;
        x ^= x >> self.shift;
        x.wrapping_add(self.add) & self.mask
    }
}

/// An R-MAT power-law graph (Chakrabarti, Zhan & Faloutsos, 2004) as its adjacency
/// matrix: `2^scale × 2^scale`, `edge_factor · 2^scale` edges drawn with quadrant
/// probabilities (a, b, c, d) = (0.57, 0.19, 0.19, 0.05) (the Graph500 parameters),
/// duplicate edges summed, so `nnz` is somewhat below the edge count.
///
/// As in Graph500, the vertex labels are then scrambled by one seeded permutation
/// (applied to rows and columns alike; a bijective hash of odd multiplications and
/// xor-shifts modulo `2^scale`, so it costs no memory), so the heavy rows are scattered
/// rather than all at the top. Each edge has a random value; duplicate edges add up (in
/// `f64`, rounded once), so values may leave `(-1, 1)`. Self-loops are kept.
///
/// Many rows are empty and a few are very long: the irregular class of web and social
/// graphs in the thesis (Webbase, eu-2005, in-2004; Table 8.4), "a few rows with O(n)
/// nonzero entries and many rows with O(1)" (section 8.4.2).
///
/// # Errors
/// [`FormatError::TooLarge`] if `2^scale` or the edge count overflows `usize`, or
/// `2^scale` or the entry count does not fit `I` (for `u32`, `scale ≤ 31`), or the
/// arrays cannot be allocated.
pub fn rmat<T: Scalar, I: Index>(
    scale: u32,
    edge_factor: usize,
    seed: u64,
) -> Result<CsrOwned<T, I>, FormatError> {
    let n = 1usize.checked_shl(scale).ok_or(FormatError::TooLarge {
        what: "2^scale",
        value: usize::MAX,
        max: 1 << (usize::BITS - 1),
    })?;
    let edges = checked_mul("edge_factor * 2^scale", edge_factor, n)?;
    check_dims::<I>(n, n, 0)?;

    let mut rng = Stream::new(seed);
    let mut val_rng = rng.jumped();
    let perm = Relabel::new(&mut val_rng.jumped(), scale);

    // Two passes over the same edge stream (a cloned generator) instead of storing the
    // edges: count per row, then scatter into per-row buckets. Edges are made in batches
    // and counted/scattered in a short loop of their own: the scattered accesses miss the
    // cache, and a short loop lets many misses overlap.
    const BATCH: usize = 512;
    let edge_rng = rng.clone();
    let mut next = try_vec("2^scale + 1", n + 1, 0usize)?;
    let mut rows = [0usize; BATCH];
    let mut cols = [0usize; BATCH];
    let mut done = 0;
    while done < edges {
        let len = BATCH.min(edges - done);
        for r in &mut rows[..len] {
            *r = perm.apply(rmat_edge(&mut rng, scale).0);
        }
        for &r in &rows[..len] {
            next[r + 1] += 1;
        }
        done += len;
    }
    for i in 0..n {
        next[i + 1] += next[i];
    }
    let row_start: Vec<usize> = {
        let mut v = try_room("2^scale + 1", n + 1)?;
        v.extend_from_slice(&next);
        v
    };
    // Only the columns are stored (as `I`: they fit, `check_dims` said so); values are
    // drawn when the entries are written, one per edge, duplicates summed.
    let mut bucket = try_vec("edges", edges, I::ZERO)?;
    let mut rng = edge_rng;
    let mut done = 0;
    while done < edges {
        let len = BATCH.min(edges - done);
        for (r, c) in rows[..len].iter_mut().zip(&mut cols[..len]) {
            let e = rmat_edge(&mut rng, scale);
            (*r, *c) = (perm.apply(e.0), perm.apply(e.1));
        }
        for (&r, &c) in rows[..len].iter().zip(&cols[..len]) {
            bucket[next[r]] = I::from_usize_unchecked(c);
            next[r] += 1;
        }
        done += len;
    }
    drop(next);

    let mut b = Builder::<T, I>::new(n, n, edges)?;
    for i in 0..n {
        let row = &mut bucket[row_start[i]..row_start[i + 1]];
        row.sort_unstable();
        let mut k = 0;
        while k < row.len() {
            let c = row[k];
            let mut v = val_rng.value();
            k += 1;
            while k < row.len() && row[k] == c {
                v += val_rng.value();
                k += 1;
            }
            b.push(c.to_usize(), v);
        }
        b.end_row();
    }
    b.finish()
}

/// Longest short row of [`dc2_like`].
const DC2_SHORT_MAX: usize = 10;

/// A circuit-like `n × n` matrix with wildly different row lengths, after the thesis's
/// *dc2* (117K × 117K, 766K entries, rows of 1, 6 on average, and 114K; Table 8.2 i7,
/// Table 8.4 i8), ASIC_680k and ins2.
///
/// `heavy_rows` rows, at random distinct positions, each hold `heavy_len` distinct
/// random columns. Every other row `i` holds its diagonal entry plus 0–9 random distinct
/// off-diagonal columns (length uniform in `1..=10`, capped at `n`). Values are random.
/// `nnz` is random: about `5.5 (n - heavy_rows) + heavy_rows · heavy_len`.
///
/// # Errors
/// [`FormatError::Parameter`] if `heavy_rows > n` or `heavy_len > n`;
/// [`FormatError::TooLarge`] if a dimension or the entry count does not fit `I`, or the
/// arrays cannot be allocated.
pub fn dc2_like<T: Scalar, I: Index>(
    n: usize,
    heavy_rows: usize,
    heavy_len: usize,
    seed: u64,
) -> Result<CsrOwned<T, I>, FormatError> {
    if heavy_rows > n {
        return Err(param("heavy_rows", heavy_rows));
    }
    if heavy_len > n {
        return Err(param("heavy_len", heavy_len));
    }
    check_dims::<I>(n, n, 0)?;
    let estimate = (n - heavy_rows)
        .saturating_mul(DC2_SHORT_MAX + 1)
        .div_ceil(2)
        .saturating_add(heavy_rows.saturating_mul(heavy_len));
    let mut rng = Stream::new(seed);
    let mut val_rng = rng.jumped();
    let mut heavy = Vec::new();
    sample_distinct(&mut rng, n, heavy_rows, &mut heavy);
    let mut b = Builder::<T, I>::new(n, n, estimate)?;
    let mut cols = Vec::new();
    let mut next_heavy = heavy.iter().copied().peekable();
    for i in 0..n {
        if next_heavy.peek() == Some(&i) {
            next_heavy.next();
            sample_distinct(&mut rng, n, heavy_len, &mut cols);
            for &c in &cols {
                b.push(c, val_rng.value());
            }
        } else {
            let len = 1 + rng.below_usize(DC2_SHORT_MAX.min(n));
            // Off-diagonal columns drawn from the n - 1 others, then shifted past `i`.
            sample_distinct(&mut rng, n - 1, len - 1, &mut cols);
            let split = cols.partition_point(|&c| c < i);
            for &c in &cols[..split] {
                b.push(c, val_rng.value());
            }
            b.push(i, val_rng.value());
            for &c in &cols[split..] {
                b.push(c + 1, val_rng.value());
            }
        }
        b.end_row();
    }
    b.finish()
}

/// Row-length weights of [`lp_like`]: `f · 2^e` with `f` uniform in `(0, 1)` and `e`
/// geometric (`P(e ≥ j) = 5^-j`, capped at 40): a heavy tail whose maximum over 4K rows
/// is some 20–40 times the mean, as in the thesis's LP matrix.
fn lp_weight(rng: &mut Stream) -> f64 {
    let mut e = 0;
    while e < 40 && rng.below(5) == 0 {
        e += 1;
    }
    rng.unit_open() * (1u64 << e) as f64
}

/// A wide linear-programming-like `nrows × ncols` matrix with exactly
/// `nrows · nnz_per_row` entries spread over rows of very different lengths, after the
/// thesis's *LP* (rail4284: 4K × 1.1M, 11.3M entries, rows of 1, 2.6K on average and
/// 56.2K; Table 8.2 i4, Table 8.4 i2).
///
/// Row lengths follow a heavy-tailed random distribution (every row gets at least one
/// entry when `nnz_per_row ≥ 1`, none exceeds `ncols`); each row holds that many
/// distinct random columns with random values. Few, long rows over a very wide `x`: the
/// case where row-parallel SpMV leaves most threads idle.
///
/// # Errors
/// [`FormatError::Parameter`] if `nnz_per_row > ncols`; [`FormatError::TooLarge`] if
/// `nrows · nnz_per_row` overflows or a dimension or the count does not fit `I`, or the
/// arrays cannot be allocated.
pub fn lp_like<T: Scalar, I: Index>(
    nrows: usize,
    ncols: usize,
    nnz_per_row: usize,
    seed: u64,
) -> Result<CsrOwned<T, I>, FormatError> {
    if nnz_per_row > ncols {
        return Err(param("nnz_per_row", nnz_per_row));
    }
    let total = checked_mul("nrows * nnz_per_row", nrows, nnz_per_row)?;
    check_dims::<I>(nrows, ncols, total)?;
    let mut rng = Stream::new(seed);
    let mut val_rng = rng.jumped();

    // Lengths: one entry per row, the rest shared out in proportion to the weights by
    // rounding their running sum (so they add up to `total` exactly).
    let mut len: Vec<usize> = try_vec("nrows", nrows, 0)?;
    if nnz_per_row > 0 {
        let mut cum: Vec<f64> = try_room("nrows", nrows)?;
        let mut sum = 0.0f64;
        for _ in 0..nrows {
            sum += lp_weight(&mut rng);
            cum.push(sum);
        }
        let rest = total - nrows;
        let mut prev = 0usize;
        for (i, &s) in cum.iter().enumerate() {
            let upto = if i + 1 == nrows { rest } else { ((rest as f64 * (s / sum)) as usize).min(rest) };
            let upto = upto.max(prev);
            len[i] = 1 + (upto - prev);
            prev = upto;
        }
        // A row may not exceed `ncols`; hand its excess to the rows with room, in order
        // (there is room: total ≤ nrows · ncols).
        let mut excess = 0usize;
        for l in len.iter_mut() {
            if *l > ncols {
                excess += *l - ncols;
                *l = ncols;
            }
        }
        for l in len.iter_mut() {
            if excess == 0 {
                break;
            }
            let add = excess.min(ncols - *l);
            *l += add;
            excess -= add;
        }
    }

    let mut b = Builder::<T, I>::new(nrows, ncols, total)?;
    let mut cols = Vec::new();
    for &l in &len {
        sample_distinct(&mut rng, ncols, l, &mut cols);
        for &c in &cols {
            b.push(c, val_rng.value());
        }
        b.end_row();
    }
    b.finish()
}

/// An `nrows × ncols` matrix whose every row holds exactly `nnz_per_row` distinct,
/// uniformly random columns, with random values.
///
/// Equal row lengths, but no locality at all in the reads of `x`: the thesis groups such
/// unstructured matrices (Economics, Circuit) by their access pattern rather than row
/// lengths; here it is the worst case for caches and counted as irregular.
///
/// # Errors
/// [`FormatError::Parameter`] if `nnz_per_row > ncols`; [`FormatError::TooLarge`] if
/// `nrows · nnz_per_row` overflows or a dimension or the count does not fit `I`, or the
/// arrays cannot be allocated.
pub fn uniform_random<T: Scalar, I: Index>(
    nrows: usize,
    ncols: usize,
    nnz_per_row: usize,
    seed: u64,
) -> Result<CsrOwned<T, I>, FormatError> {
    if nnz_per_row > ncols {
        return Err(param("nnz_per_row", nnz_per_row));
    }
    let nnz = checked_mul("nrows * nnz_per_row", nrows, nnz_per_row)?;
    check_dims::<I>(nrows, ncols, nnz)?;
    let mut rng = Stream::new(seed);
    let mut val_rng = rng.jumped();
    let mut b = Builder::<T, I>::new(nrows, ncols, nnz)?;
    let mut cols = Vec::new();
    for _ in 0..nrows {
        sample_distinct(&mut rng, ncols, nnz_per_row, &mut cols);
        for &c in &cols {
            b.push(c, val_rng.value());
        }
        b.end_row();
    }
    b.finish()
}

// ---------------------------------------------------------------------------------------
// Edge cases
// ---------------------------------------------------------------------------------------

/// An `nrows × ncols` matrix without entries (`0 × 0` included): `row_ptr` is all zeros.
///
/// # Errors
/// [`FormatError::TooLarge`] if a dimension does not fit `I`, or `row_ptr` cannot be
/// allocated.
pub fn empty<T: Scalar, I: Index>(nrows: usize, ncols: usize) -> Result<CsrOwned<T, I>, FormatError> {
    check_dims::<I>(nrows, ncols, 0)?;
    let row_ptr = try_vec("nrows + 1", checked_add("nrows + 1", nrows, 1)?, I::ZERO)?;
    CsrOwned::from_parts(nrows, ncols, row_ptr, Vec::new(), Vec::new())
}

/// An `nrows × ncols` matrix whose row `row` is dense (all `ncols` columns, random values)
/// and every other row is empty: the extreme of the irregular class (one row holds every
/// entry, as dc2's 114K row nearly does), which splits across every tile or thread.
///
/// # Errors
/// [`FormatError::Parameter`] if `row >= nrows`; [`FormatError::TooLarge`] if a dimension
/// does not fit `I`, or the arrays cannot be allocated.
pub fn one_dense_row<T: Scalar, I: Index>(
    nrows: usize,
    ncols: usize,
    row: usize,
    seed: u64,
) -> Result<CsrOwned<T, I>, FormatError> {
    if row >= nrows {
        return Err(param("row", row));
    }
    check_dims::<I>(nrows, ncols, ncols)?;
    let mut rng = Stream::new(seed);
    let mut b = Builder::<T, I>::new(nrows, ncols, ncols)?;
    for i in 0..nrows {
        if i == row {
            for c in 0..ncols {
                b.push(c, rng.value());
            }
        }
        b.end_row();
    }
    b.finish()
}

/// A dense `1 × ncols` matrix (random values): SpMV becomes a single dot product.
///
/// # Errors
/// [`FormatError::TooLarge`] if `ncols` does not fit `I`, or the arrays cannot be
/// allocated.
pub fn single_row<T: Scalar, I: Index>(ncols: usize, seed: u64) -> Result<CsrOwned<T, I>, FormatError> {
    one_dense_row(1, ncols, 0, seed)
}

/// A dense `nrows × 1` matrix (random values): every row holds one entry in column 0, so
/// every lane of a SIMD kernel reads the same `x[0]`.
///
/// # Errors
/// [`FormatError::TooLarge`] if `nrows` does not fit `I`, or the arrays cannot be
/// allocated.
pub fn single_column<T: Scalar, I: Index>(nrows: usize, seed: u64) -> Result<CsrOwned<T, I>, FormatError> {
    check_dims::<I>(nrows, 1, nrows)?;
    let mut rng = Stream::new(seed);
    let mut b = Builder::<T, I>::new(nrows, 1, nrows)?;
    for _ in 0..nrows {
        b.push(0, rng.value());
        b.end_row();
    }
    b.finish()
}

/// A square `nrows × nrows` matrix with exactly `nnz` entries at distinct, uniformly
/// random positions, for `nrows ≫ nnz`: almost every row is empty, so `row_ptr` dwarfs
/// the entries and a tile or thread chunk spans thousands of empty rows.
///
/// # Errors
/// [`FormatError::Parameter`] if `nnz > nrows²`; [`FormatError::TooLarge`] if `nrows²`
/// overflows `u64`, or `nrows` or `nnz` does not fit `I`, or the arrays cannot be
/// allocated.
pub fn tall_sparse<T: Scalar, I: Index>(
    nrows: usize,
    nnz: usize,
    seed: u64,
) -> Result<CsrOwned<T, I>, FormatError> {
    // Cells counted in `u64`: `nrows²` passes a 32-bit `usize` long before `nrows` does.
    let n = nrows as u64;
    let cells = n.checked_mul(n).ok_or(FormatError::TooLarge {
        what: "nrows * nrows",
        value: usize::MAX,
        max: usize::MAX,
    })?;
    if nnz as u64 > cells {
        return Err(param("nnz", nnz));
    }
    check_dims::<I>(nrows, nrows, nnz)?;
    let mut rng = Stream::new(seed);
    let mut val_rng = rng.jumped();
    // Positions in row-major order are already in CSR order.
    let mut pos: Vec<u64> = try_room("nnz", nnz)?;
    sample_distinct(&mut rng, cells, nnz, &mut pos);
    let mut b = Builder::<T, I>::new(nrows, nrows, nnz)?;
    let mut k = 0;
    for i in 0..n {
        while k < pos.len() && pos[k] / n == i {
            // Below `nrows`, so it fits `usize`.
            b.push((pos[k] % n) as usize, val_rng.value());
            k += 1;
        }
        b.end_row();
    }
    b.finish()
}

// ---------------------------------------------------------------------------------------
// Suite
// ---------------------------------------------------------------------------------------

/// The thesis's two matrix classes (sections 8.4.2 and 8.5.2): benchmarks report their
/// results per class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MatrixClass {
    /// Rows of roughly the same length (thesis Table 8.4 r1–r14: Dense, Protein, FEM,
    /// QCD, ...): Poisson stencils, banded and dense-block matrices.
    Regular,
    /// A few very long rows among many short ones, or no structure (Table 8.4 i1–i10:
    /// Webbase, LP, Circuit5M, dc2, ...): R-MAT, dc2-like, LP-like and uniform random.
    Irregular,
}

impl MatrixClass {
    /// `"regular"` or `"irregular"`, for tables.
    pub fn name(&self) -> &'static str {
        match self {
            MatrixClass::Regular => "regular",
            MatrixClass::Irregular => "irregular",
        }
    }
}

/// Which size of [`suite`] to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SuiteScale {
    /// Every matrix below 50K entries: quick enough for tests in debug builds.
    Small,
    /// About 1M entries per matrix (0.8M–1.0M), 8.7M in all: past the private caches of
    /// most cores, small enough that the whole suite runs in about a minute.
    Quick,
    /// The benchmark sizes: 3.9M–10.3M entries per matrix (the thesis's range, Table
    /// 8.4), 54.5M in all. Each fits in memory many times over alongside its conversions;
    /// generate them one at a time through [`suite_entries`] to hold only one.
    Full,
}

/// The parameters of one generator call; [`Spec::generate`] runs it. `Debug` prints the
/// parameters, for benchmark tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Spec {
    /// [`poisson2d`].
    Poisson2d {
        /// Grid side.
        n: usize,
    },
    /// [`poisson3d_27`].
    Poisson3d27 {
        /// Grid side.
        n: usize,
    },
    /// [`banded`].
    Banded {
        /// Order.
        n: usize,
        /// Sub-diagonals.
        lower: usize,
        /// Super-diagonals.
        upper: usize,
        /// Seed.
        seed: u64,
    },
    /// [`dense_block`].
    DenseBlock {
        /// Rows.
        nrows: usize,
        /// Columns.
        ncols: usize,
        /// Seed.
        seed: u64,
    },
    /// [`block_diagonal`].
    BlockDiagonal {
        /// Number of blocks.
        nblocks: usize,
        /// Order of each block.
        block: usize,
        /// Seed.
        seed: u64,
    },
    /// [`rmat`].
    Rmat {
        /// log2 of the order.
        scale: u32,
        /// Edges per vertex.
        edge_factor: usize,
        /// Seed.
        seed: u64,
    },
    /// [`dc2_like`].
    Dc2Like {
        /// Order.
        n: usize,
        /// Number of long rows.
        heavy_rows: usize,
        /// Length of each long row.
        heavy_len: usize,
        /// Seed.
        seed: u64,
    },
    /// [`lp_like`].
    LpLike {
        /// Rows.
        nrows: usize,
        /// Columns.
        ncols: usize,
        /// Mean entries per row.
        nnz_per_row: usize,
        /// Seed.
        seed: u64,
    },
    /// [`uniform_random`].
    UniformRandom {
        /// Rows.
        nrows: usize,
        /// Columns.
        ncols: usize,
        /// Entries per row.
        nnz_per_row: usize,
        /// Seed.
        seed: u64,
    },
    /// [`empty`].
    Empty {
        /// Rows.
        nrows: usize,
        /// Columns.
        ncols: usize,
    },
    /// [`one_dense_row`].
    OneDenseRow {
        /// Rows.
        nrows: usize,
        /// Columns.
        ncols: usize,
        /// The dense row.
        row: usize,
        /// Seed.
        seed: u64,
    },
    /// [`single_row`].
    SingleRow {
        /// Columns.
        ncols: usize,
        /// Seed.
        seed: u64,
    },
    /// [`single_column`].
    SingleColumn {
        /// Rows.
        nrows: usize,
        /// Seed.
        seed: u64,
    },
    /// [`tall_sparse`].
    TallSparse {
        /// Rows (and columns).
        nrows: usize,
        /// Entries.
        nnz: usize,
        /// Seed.
        seed: u64,
    },
}

impl Spec {
    /// Runs the generator.
    ///
    /// # Errors
    /// Those of the generator called.
    pub fn generate<T: Scalar, I: Index>(&self) -> Result<CsrOwned<T, I>, FormatError> {
        match *self {
            Spec::Poisson2d { n } => poisson2d(n),
            Spec::Poisson3d27 { n } => poisson3d_27(n),
            Spec::Banded { n, lower, upper, seed } => banded(n, lower, upper, seed),
            Spec::DenseBlock { nrows, ncols, seed } => dense_block(nrows, ncols, seed),
            Spec::BlockDiagonal { nblocks, block, seed } => block_diagonal(nblocks, block, seed),
            Spec::Rmat { scale, edge_factor, seed } => rmat(scale, edge_factor, seed),
            Spec::Dc2Like { n, heavy_rows, heavy_len, seed } => dc2_like(n, heavy_rows, heavy_len, seed),
            Spec::LpLike { nrows, ncols, nnz_per_row, seed } => lp_like(nrows, ncols, nnz_per_row, seed),
            Spec::UniformRandom { nrows, ncols, nnz_per_row, seed } => {
                uniform_random(nrows, ncols, nnz_per_row, seed)
            }
            Spec::Empty { nrows, ncols } => empty(nrows, ncols),
            Spec::OneDenseRow { nrows, ncols, row, seed } => one_dense_row(nrows, ncols, row, seed),
            Spec::SingleRow { ncols, seed } => single_row(ncols, seed),
            Spec::SingleColumn { nrows, seed } => single_column(nrows, seed),
            Spec::TallSparse { nrows, nnz, seed } => tall_sparse(nrows, nnz, seed),
        }
    }
}

/// One matrix of the benchmark suite, not yet generated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SuiteEntry {
    /// Short name for tables (`"poisson2d"`, `"dc2_like"`, ...); the same at both scales.
    pub name: &'static str,
    /// Regular or irregular, as the thesis classifies.
    pub class: MatrixClass,
    /// The thesis matrix it stands in for (Table 8.2 / 8.4 names).
    pub analog: &'static str,
    /// The generator and its parameters.
    pub spec: Spec,
}

impl SuiteEntry {
    /// Generates the matrix.
    ///
    /// # Errors
    /// Those of the generator; [`FormatError::TooLarge`] if `I` cannot index it (`u32`
    /// indexes every suite matrix).
    pub fn generate<T: Scalar, I: Index>(&self) -> Result<CsrOwned<T, I>, FormatError> {
        self.spec.generate()
    }
}

/// One generated matrix of the suite.
#[derive(Clone, Debug, PartialEq)]
pub struct SuiteMatrix<T, I> {
    /// Short name for tables.
    pub name: &'static str,
    /// Regular or irregular.
    pub class: MatrixClass,
    /// The thesis matrix it stands in for.
    pub analog: &'static str,
    /// The matrix.
    pub matrix: CsrOwned<T, I>,
}

const SMALL: &[SuiteEntry] = &[
    SuiteEntry {
        name: "poisson2d",
        class: MatrixClass::Regular,
        analog: "FEM stencils",
        spec: Spec::Poisson2d { n: 64 },
    },
    SuiteEntry {
        name: "poisson3d_27",
        class: MatrixClass::Regular,
        analog: "FEM/Cantilever",
        spec: Spec::Poisson3d27 { n: 12 },
    },
    SuiteEntry {
        name: "banded",
        class: MatrixClass::Regular,
        analog: "QCD",
        spec: Spec::Banded { n: 1000, lower: 9, upper: 9, seed: 3 },
    },
    SuiteEntry {
        name: "dense",
        class: MatrixClass::Regular,
        analog: "Dense",
        spec: Spec::DenseBlock { nrows: 128, ncols: 128, seed: 4 },
    },
    SuiteEntry {
        name: "block_diagonal",
        class: MatrixClass::Regular,
        analog: "Protein",
        spec: Spec::BlockDiagonal { nblocks: 32, block: 24, seed: 5 },
    },
    SuiteEntry {
        name: "rmat",
        class: MatrixClass::Irregular,
        analog: "Webbase",
        spec: Spec::Rmat { scale: 12, edge_factor: 8, seed: 6 },
    },
    SuiteEntry {
        name: "dc2_like",
        class: MatrixClass::Irregular,
        analog: "dc2",
        spec: Spec::Dc2Like { n: 4096, heavy_rows: 2, heavy_len: 3000, seed: 7 },
    },
    SuiteEntry {
        name: "lp_like",
        class: MatrixClass::Irregular,
        analog: "LP (rail4284)",
        spec: Spec::LpLike { nrows: 64, ncols: 16384, nnz_per_row: 400, seed: 8 },
    },
    SuiteEntry {
        name: "uniform_random",
        class: MatrixClass::Irregular,
        analog: "Economics",
        spec: Spec::UniformRandom { nrows: 4096, ncols: 4096, nnz_per_row: 5, seed: 9 },
    },
];

const QUICK: &[SuiteEntry] = &[
    SuiteEntry {
        name: "poisson2d",
        class: MatrixClass::Regular,
        analog: "FEM stencils",
        spec: Spec::Poisson2d { n: 450 },
    },
    SuiteEntry {
        name: "poisson3d_27",
        class: MatrixClass::Regular,
        analog: "FEM/Cantilever",
        spec: Spec::Poisson3d27 { n: 33 },
    },
    SuiteEntry {
        name: "banded",
        class: MatrixClass::Regular,
        analog: "QCD",
        spec: Spec::Banded { n: 25_000, lower: 19, upper: 19, seed: 3 },
    },
    SuiteEntry {
        name: "dense",
        class: MatrixClass::Regular,
        analog: "Dense",
        spec: Spec::DenseBlock { nrows: 1000, ncols: 1000, seed: 4 },
    },
    SuiteEntry {
        name: "block_diagonal",
        class: MatrixClass::Regular,
        analog: "Protein",
        spec: Spec::BlockDiagonal { nblocks: 430, block: 48, seed: 5 },
    },
    SuiteEntry {
        name: "rmat",
        class: MatrixClass::Irregular,
        analog: "Webbase",
        spec: Spec::Rmat { scale: 17, edge_factor: 8, seed: 6 },
    },
    SuiteEntry {
        name: "dc2_like",
        class: MatrixClass::Irregular,
        analog: "dc2",
        spec: Spec::Dc2Like { n: 125_000, heavy_rows: 4, heavy_len: 31_250, seed: 7 },
    },
    SuiteEntry {
        name: "lp_like",
        class: MatrixClass::Irregular,
        analog: "LP (rail4284)",
        spec: Spec::LpLike { nrows: 512, ncols: 1 << 17, nnz_per_row: 2000, seed: 8 },
    },
    SuiteEntry {
        name: "uniform_random",
        class: MatrixClass::Irregular,
        analog: "Economics",
        spec: Spec::UniformRandom { nrows: 200_000, ncols: 200_000, nnz_per_row: 5, seed: 9 },
    },
];

const FULL: &[SuiteEntry] = &[
    SuiteEntry {
        name: "poisson2d",
        class: MatrixClass::Regular,
        analog: "FEM stencils",
        spec: Spec::Poisson2d { n: 1000 },
    },
    SuiteEntry {
        name: "poisson3d_27",
        class: MatrixClass::Regular,
        analog: "FEM/Cantilever",
        spec: Spec::Poisson3d27 { n: 64 },
    },
    SuiteEntry {
        name: "banded",
        class: MatrixClass::Regular,
        analog: "QCD",
        spec: Spec::Banded { n: 100_000, lower: 19, upper: 19, seed: 3 },
    },
    SuiteEntry {
        name: "dense",
        class: MatrixClass::Regular,
        analog: "Dense",
        spec: Spec::DenseBlock { nrows: 2048, ncols: 2048, seed: 4 },
    },
    SuiteEntry {
        name: "block_diagonal",
        class: MatrixClass::Regular,
        analog: "Protein",
        spec: Spec::BlockDiagonal { nblocks: 2000, block: 48, seed: 5 },
    },
    SuiteEntry {
        name: "rmat",
        class: MatrixClass::Irregular,
        analog: "Webbase",
        spec: Spec::Rmat { scale: 20, edge_factor: 8, seed: 6 },
    },
    SuiteEntry {
        name: "dc2_like",
        class: MatrixClass::Irregular,
        analog: "dc2",
        spec: Spec::Dc2Like { n: 1_000_000, heavy_rows: 4, heavy_len: 250_000, seed: 7 },
    },
    SuiteEntry {
        name: "lp_like",
        class: MatrixClass::Irregular,
        analog: "LP (rail4284)",
        spec: Spec::LpLike { nrows: 4096, ncols: 1 << 20, nnz_per_row: 2500, seed: 8 },
    },
    SuiteEntry {
        name: "uniform_random",
        class: MatrixClass::Irregular,
        analog: "Economics",
        spec: Spec::UniformRandom { nrows: 1_000_000, ncols: 1_000_000, nnz_per_row: 5, seed: 9 },
    },
];

/// The suite's entries at `scale`, without generating anything: one per generator class,
/// regular ones first. Generate them one at a time to keep only one in memory.
pub fn suite_entries(scale: SuiteScale) -> &'static [SuiteEntry] {
    match scale {
        SuiteScale::Small => SMALL,
        SuiteScale::Quick => QUICK,
        SuiteScale::Full => FULL,
    }
}

/// Generates every matrix of [`suite_entries`]`(scale)`.
///
/// The [`SuiteScale::Full`] suite holds 54.5M entries, some 0.7 GB as `f64`/`u32`;
/// iterate [`suite_entries`] instead to hold one matrix at a time.
///
/// # Errors
/// The first generator error; [`FormatError::TooLarge`] if `I` cannot index a matrix
/// (`u32` indexes every suite matrix).
pub fn suite<T: Scalar, I: Index>(scale: SuiteScale) -> Result<Vec<SuiteMatrix<T, I>>, FormatError> {
    suite_entries(scale)
        .iter()
        .map(|e| Ok(SuiteMatrix { name: e.name, class: e.class, analog: e.analog, matrix: e.generate()? }))
        .collect()
}
