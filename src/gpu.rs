//! SPIR-V compute kernels for CSR and CSR5 SpMV (feature `gpu`), built from Rust with
//! rust-gpu (`gpu/kernels`, built by `gpu/builder`), with what a Vulkan (or wgpu, or
//! any SPIR-V) runtime needs to run them: entry points, workgroup sizes, bindings, push
//! constants and the dispatch order.
//!
//! spblas runs nothing on the GPU itself: it stays `no_std` and brings no GPU runtime.
//! The modules are plain data ([`spirv`], [`spirv_bytes`]); the caller uploads the
//! arrays of a validated view ([`Csr`] or [`Csr5`] with `u32` indices), fills the push
//! constants from [`SpmvParams`], and dispatches. `tests/gpu.rs` and `examples/gpu.rs`
//! do that with Vulkan through `ash`.
//!
//! **Modules.** One per value type: `f32` (Vulkan 1.2, `GroupNonUniformShuffle`) and
//! `f64` (the same and `Float64`: enable `shaderFloat64`). Both hold every [`Kernel`].
//!
//! **Bindings** ([`BINDINGS`], descriptor set 0, all storage buffers): one layout for
//! every kernel, each kernel using the subset [`Kernel::bindings`] lists.
//!
//! **Dispatch.** [`Method::choose`] picks the kernel for a matrix; [`Method::steps`]
//! lists its dispatches and barriers, [`Kernel::groups`] the workgroup count (x only).
//! Every kernel strides over its rows, blocks or tiles by the grid, so fewer groups are
//! correct too.
//! - CSR ([`Kernel::CsrScalar`], [`Kernel::CsrVector`]): one dispatch.
//! - CSR stream ([`Kernel::CsrStream`]): one dispatch, with the row blocks of
//!   [`row_blocks`] bound as `row_blocks`.
//! - CSR5: [`Kernel::Csr5Tiles`] and [`Kernel::Csr5Rows`] (in either order, no barrier
//!   between them), then a compute-to-compute memory barrier, then
//!   [`Kernel::Csr5Calibrate`]. `carry` holds `tiles + 1` values and needs no
//!   initialisation.
//!
//! Results equal the CPU kernels up to the order of floating-point additions.

use crate::formats::csr5::DescFormat;
use crate::{Csr, Csr5, FormatError, Scalar};

/// The CSR5 tile width of the GPU kernels (thesis 6.3.2: `omega` is the warp width);
/// build the CSR5 view with [`csr5_layout`].
pub const OMEGA: usize = 32;

/// The largest `sigma` the GPU kernels take: `OMEGA * sigma` is at most 512 entries (the
/// CSR5 tile limit), and the descriptor then packs into one word per lane.
pub const MAX_SIGMA: usize = 16;

/// The bounds `<r, s, t, u>` of the thesis's `sigma` rule on GPUs (6.3.2), applied with
/// the cap [`MAX_SIGMA`]: `sigma = 8` up to 8 entries per row, the row length up to 16,
/// and 16 beyond.
///
/// The thesis's `<4, 32, 256, 4>` (double precision, nVidia Maxwell) lost to the best
/// `sigma` of a sweep on current GPUs: short tiles multiply the tiles' fixed cost
/// (descriptor, tile pointer, the calibrator's check). CSR5 now serves the skewed
/// matrices ([`Method::choose`]), where `sigma = 8` beat 6 and 7 (`rmat`, `dc2_like`) and
/// 16 won on long rows (`examples/gpu.rs` sweep;
/// `benches/records/gpu-cusparse-2026-11-29-h200.md`).
pub const SIGMA_BOUNDS: (usize, usize, usize, usize) = (8, 16, 256, 16);

/// [`csr5_layout`] takes [`MAX_SIGMA`] where one row holds at least `1 / HEAVY_ROW_SHARE`
/// of the entries.
const HEAVY_ROW_SHARE: usize = 64;

/// Values each [`Kernel::ReadStream`] invocation reads, four loads in flight at a time
/// (a subgroup writes one sum, so the writes are under 1% of the traffic).
pub const STREAM_PER_INVOCATION: usize = 8;

/// Entries a row block of [`Kernel::CsrStream`] holds at most (four per invocation of
/// its workgroup of 256), unless the block is one longer row.
pub const STREAM_BLOCK: usize = 1024;

/// Workgroups a dispatch asks for at most: the smallest `maxComputeWorkGroupCount[0]`
/// Vulkan allows.
pub const MAX_GROUPS: u32 = 65_535;

#[repr(C, align(4))]
struct Aligned<B: ?Sized>(B);

static F32: &Aligned<[u8]> = &Aligned(*include_bytes!("gpu/spmv_f32.spv"));
static F64: &Aligned<[u8]> = &Aligned(*include_bytes!("gpu/spmv_f64.spv"));

/// The SPIR-V module for value type `T`, as bytes (4-byte aligned, little-endian words).
pub fn spirv_bytes<T: Scalar>() -> &'static [u8] {
    if core::mem::size_of::<T>() == 4 { &F32.0 } else { &F64.0 }
}

/// The SPIR-V module for value type `T`, as the `u32` words Vulkan's
/// `VkShaderModuleCreateInfo` (and wgpu's `ShaderSource::SpirV`) take.
pub fn spirv<T: Scalar>() -> &'static [u32] {
    // Cannot fail: the bytes are 4-aligned and a SPIR-V module is whole words (the
    // tests check the magic number and the length).
    bytemuck::try_cast_slice(spirv_bytes::<T>()).unwrap_or(&[])
}

/// One storage-buffer binding of descriptor set 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The binding number.
    pub binding: u32,
    /// What it holds (the thesis's array names).
    pub name: &'static str,
    /// Whether some kernel writes it.
    pub writable: bool,
    /// Its element type: `"u32"` or `"T"` (the module's value type).
    pub elem: &'static str,
}

const fn bind(binding: u32, name: &'static str, writable: bool, elem: &'static str) -> Binding {
    Binding { binding, name, writable, elem }
}

/// Every binding of the SpMV kernels, by number. `y` needs `nrows` values
/// ([`Kernel::ReadStream`]: one per invocation, `groups * workgroup_size`); `carry`
/// `tiles + 1`; `row_blocks` the `blocks + 1` values of [`row_blocks`].
pub const BINDINGS: [Binding; 11] = [
    bind(0, "row_ptr", false, "u32"),
    bind(1, "col_idx", false, "u32"),
    bind(2, "vals", false, "T"),
    bind(3, "x", false, "T"),
    bind(4, "y", true, "T"),
    bind(5, "tile_ptr", false, "u32"),
    bind(6, "tile_desc", false, "u32"),
    bind(7, "empty_offset_ptr", false, "u32"),
    bind(8, "empty_offset", false, "u32"),
    bind(9, "carry", true, "T"),
    bind(10, "row_blocks", false, "u32"),
];

/// The kernels of each module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Row-block scalar CSR SpMV (thesis Alg. 28): an invocation per row.
    CsrScalar,
    /// Row-block vector CSR SpMV (Alg. 29): a vector of [`SpmvParams::lanes`] lanes per
    /// row (a power of two near the average row length, at most the subgroup), reduced
    /// with subgroup shuffles.
    CsrVector,
    /// CSR stream (row blocks, as CSR-Adaptive): a workgroup per block of rows with at
    /// most [`STREAM_BLOCK`] entries ([`row_blocks`]); its invocations read the block's
    /// entries side by side (coalesced loads and gathers of `x`), stage the products in
    /// workgroup memory and sum each row there with a vector of lanes; a block of one
    /// longer row is summed by the whole workgroup.
    CsrStream,
    /// CSR5 SpMV pass 1 (Alg. 32): the complete tiles, `OMEGA` invocations each, with
    /// the `seg_offset` sum in workgroup memory; whole segments are written straight
    /// from their lanes; a tile's first segment that continues a row goes to `carry`.
    Csr5Tiles,
    /// CSR5 SpMV pass 1, beside the tiles: empty rows (`beta * y`) and the tail.
    Csr5Rows,
    /// CSR5 SpMV pass 2, the calibrator: an invocation per tile; the first tile of a run
    /// continuing one row adds up the run's carries (a long run with its subgroup) and
    /// adds them to the row.
    Csr5Calibrate,
    /// The read-bandwidth probe: sums `nrows` values of `vals` (grid-strided), one sum
    /// per subgroup into `y` (at its first lane's invocation index; `y` needs one value
    /// per invocation, zeroed). The baseline for judging SpMV's GB/s.
    ReadStream,
}

impl Kernel {
    /// Every kernel.
    pub const ALL: [Kernel; 7] = [
        Kernel::CsrScalar,
        Kernel::CsrVector,
        Kernel::CsrStream,
        Kernel::Csr5Tiles,
        Kernel::Csr5Rows,
        Kernel::Csr5Calibrate,
        Kernel::ReadStream,
    ];

    /// The entry point's name in the module.
    pub const fn entry_point(self) -> &'static str {
        match self {
            Kernel::CsrScalar => "csr_spmv_scalar",
            Kernel::CsrVector => "csr_spmv_vector",
            Kernel::CsrStream => "csr_spmv_stream",
            Kernel::Csr5Tiles => "csr5_spmv_tiles",
            Kernel::Csr5Rows => "csr5_spmv_rows",
            Kernel::Csr5Calibrate => "csr5_spmv_calibrate",
            Kernel::ReadStream => "read_stream",
        }
    }

    /// Invocations per workgroup (`local_size_x`; y and z are 1).
    pub const fn workgroup_size(self) -> u32 {
        match self {
            Kernel::Csr5Tiles => 128,
            _ => 256,
        }
    }

    /// The binding numbers the kernel uses (a subset of [`BINDINGS`]).
    pub const fn bindings(self) -> &'static [u32] {
        match self {
            Kernel::CsrScalar | Kernel::CsrVector => &[0, 1, 2, 3, 4],
            Kernel::CsrStream => &[0, 1, 2, 3, 4, 10],
            Kernel::Csr5Tiles => &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
            Kernel::Csr5Rows => &[0, 1, 2, 3, 4, 9],
            Kernel::Csr5Calibrate => &[0, 4, 5, 9],
            Kernel::ReadStream => &[2, 4],
        }
    }

    /// The workgroups (x) that give every row or tile of `p` its own invocation or
    /// subgroup, at most [`MAX_GROUPS`] (the kernels stride over the rest).
    /// [`Kernel::CsrVector`] asks for `lanes` invocations per row; on a narrower
    /// subgroup the grid stride covers the rest.
    pub fn groups<T: Scalar>(self, p: &SpmvParams<T>) -> u32 {
        let work = match self {
            Kernel::CsrScalar | Kernel::Csr5Rows => p.nrows as usize,
            Kernel::ReadStream => (p.nrows as usize).div_ceil(STREAM_PER_INVOCATION),
            Kernel::CsrVector => (p.nrows as usize).saturating_mul(p.lanes.max(1) as usize),
            Kernel::Csr5Tiles => (p.ntiles as usize).saturating_mul(OMEGA),
            Kernel::Csr5Calibrate => p.ntiles as usize + 1,
            Kernel::CsrStream => return (p.blocks as usize).clamp(1, MAX_GROUPS as usize) as u32,
        };
        let per = self.workgroup_size() as usize;
        let groups = work.div_ceil(per).clamp(1, MAX_GROUPS as usize);
        groups as u32
    }
}

/// The push constants of every kernel: seven `u32` (the fields in order), then `alpha` and
/// `beta` at the next multiple of their size (offset 28 for `f32`, 32 for `f64`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpmvParams<T> {
    /// Rows (for [`Kernel::ReadStream`]: values to read).
    pub nrows: u32,
    /// Complete CSR5 tiles (0 for CSR).
    pub ntiles: u32,
    /// CSR5 `sigma` (0 for CSR).
    pub sigma: u32,
    /// Width of the descriptor's `y_offset` field.
    pub ybits: u32,
    /// Width of the descriptor's `seg_offset` field.
    pub sbits: u32,
    /// [`Kernel::CsrVector`]: lanes per row, a power of two from 1 to 32 (0 for the
    /// other kernels).
    pub lanes: u32,
    /// [`Kernel::CsrStream`]: the row blocks of [`row_blocks`] (0 for the other
    /// kernels).
    pub blocks: u32,
    /// `alpha`.
    pub alpha: T,
    /// `beta`.
    pub beta: T,
}

/// Bytes of the push-constant block at most (the `f64` one).
pub const PUSH_CONSTANT_BYTES: u32 = 48;

/// The push-constant bytes of one dispatch ([`SpmvParams::push_constants`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PushConstants {
    bytes: [u8; PUSH_CONSTANT_BYTES as usize],
    len: usize,
}

impl PushConstants {
    /// The bytes to push at offset 0 (36 for `f32`, 48 for `f64`).
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or(&[])
    }
}

impl<T: Scalar> SpmvParams<T> {
    /// The parameters of a CSR SpMV `y = alpha * a * x + beta * y`; `lanes` (for
    /// [`Kernel::CsrVector`]) is an eighth of the average row length rounded up to a
    /// power of two, from 1 to 32: each lane takes about two rounds of four entries,
    /// which on an H200 beat one entry per lane by up to 5x on rows of 27 to 48 entries
    /// (more rows share a subgroup; `benches/records/gpu-cusparse-2026-11-29-h200.md`).
    ///
    /// # Errors
    /// None today (a `Csr<T, u32>` fits the kernels' `u32` arithmetic); kept a `Result`
    /// like [`SpmvParams::csr5`].
    pub fn csr(a: &Csr<'_, T, u32>, alpha: T, beta: T) -> Result<Self, FormatError> {
        let nrows = u32::try_from(a.nrows()).map_err(|_| FormatError::TooLarge {
            what: "nrows",
            value: a.nrows(),
            max: u32::MAX as usize,
        })?;
        let per_row = if a.nrows() == 0 { 1 } else { a.nnz().div_ceil(a.nrows()) };
        let lanes = per_row.div_ceil(8).clamp(1, 32).next_power_of_two() as u32;
        // At most `nrows` blocks: fits `u32` as `nrows` does.
        let blocks = walk_row_blocks(a.row_ptr(), |_, _| {}) as u32;
        Ok(SpmvParams { nrows, ntiles: 0, sigma: 0, ybits: 0, sbits: 0, lanes, blocks, alpha, beta })
    }

    /// The parameters of a CSR5 SpMV `y = alpha * a * x + beta * y`.
    ///
    /// # Errors
    /// [`FormatError::Parameter`] if `a` was not built with `omega == OMEGA` and
    /// `sigma <= MAX_SIGMA` ([`csr5_layout`] builds it so).
    pub fn csr5(a: &Csr5<'_, T, u32>, alpha: T, beta: T) -> Result<Self, FormatError> {
        if a.omega() != OMEGA {
            return Err(FormatError::Parameter { name: "omega", value: a.omega() });
        }
        let format: DescFormat = a.desc_format();
        if a.sigma() > MAX_SIGMA || format.words_per_lane() != 1 {
            return Err(FormatError::Parameter { name: "sigma", value: a.sigma() });
        }
        let too_large = |what, value| FormatError::TooLarge { what, value, max: u32::MAX as usize };
        Ok(SpmvParams {
            nrows: u32::try_from(a.nrows()).map_err(|_| too_large("nrows", a.nrows()))?,
            ntiles: u32::try_from(a.tiles()).map_err(|_| too_large("tiles", a.tiles()))?,
            sigma: a.sigma() as u32,
            ybits: format.y_bits(),
            sbits: format.seg_bits(),
            lanes: 0,
            blocks: 0,
            alpha,
            beta,
        })
    }

    /// The parameters of a [`Kernel::ReadStream`] over `len` values.
    ///
    /// # Errors
    /// [`FormatError::TooLarge`] if `len` does not fit `u32`.
    pub fn read_stream(len: usize) -> Result<Self, FormatError> {
        let nrows = u32::try_from(len).map_err(|_| FormatError::TooLarge {
            what: "len",
            value: len,
            max: u32::MAX as usize,
        })?;
        Ok(SpmvParams {
            nrows,
            ntiles: 0,
            sigma: 0,
            ybits: 0,
            sbits: 0,
            lanes: 0,
            blocks: 0,
            alpha: T::ONE,
            beta: T::ZERO,
        })
    }

    /// The bytes to push: the layout of the kernels' `SpmvParams` block.
    pub fn push_constants(&self) -> PushConstants {
        let mut bytes = [0u8; PUSH_CONSTANT_BYTES as usize];
        let words = [self.nrows, self.ntiles, self.sigma, self.ybits, self.sbits, self.lanes, self.blocks];
        for (dst, w) in bytes.chunks_exact_mut(4).zip(words) {
            dst.copy_from_slice(&w.to_le_bytes());
        }
        let v = core::mem::size_of::<T>();
        let at = (4 * words.len()).next_multiple_of(v);
        let (a, b) = (bytemuck::bytes_of(&self.alpha), bytemuck::bytes_of(&self.beta));
        for (at, src) in [(at, a), (at + v, b)] {
            if let Some(dst) = bytes.get_mut(at..at + v) {
                dst.copy_from_slice(src);
            }
        }
        PushConstants { bytes, len: at + 2 * v }
    }
}

/// Calls `f(block, end_row)` for each row block of [`Kernel::CsrStream`] and returns
/// their number: rows are added to a block while its entries stay within
/// [`STREAM_BLOCK`] and its rows within `STREAM_BLOCK` (so its vectors take at most four
/// rounds); a row longer than that is a block alone.
fn walk_row_blocks(row_ptr: &[u32], mut f: impl FnMut(usize, u32)) -> usize {
    let nrows = row_ptr.len().saturating_sub(1);
    let at = |r: usize| row_ptr.get(r).copied().unwrap_or(0) as usize;
    let (mut blocks, mut r) = (0, 0);
    while r < nrows {
        let start = r;
        r += 1;
        if at(r) - at(start) <= STREAM_BLOCK {
            while r < nrows && at(r + 1) - at(start) <= STREAM_BLOCK && r - start < STREAM_BLOCK {
                r += 1;
            }
        }
        f(blocks, r as u32);
        blocks += 1;
    }
    blocks
}

/// The row blocks of [`Kernel::CsrStream`] for `a`, written to `out` (binding
/// `row_blocks`): `out[0] = 0` and `out[b + 1]` the end of block `b`; returns the number
/// of values written, [`SpmvParams::blocks`]` + 1`.
///
/// # Errors
/// [`FormatError::TooLarge`] if `out` is shorter than that (at most `nrows + 1` values;
/// [`row_blocks_len`] tells exactly).
pub fn row_blocks<T: Scalar>(a: &Csr<'_, T, u32>, out: &mut [u32]) -> Result<usize, FormatError> {
    let need = row_blocks_len(a);
    let max = out.len();
    let dst = out.get_mut(..need).ok_or(FormatError::TooLarge { what: "row_blocks", value: need, max })?;
    if let Some(first) = dst.first_mut() {
        *first = 0;
    }
    walk_row_blocks(a.row_ptr(), |b, end| {
        if let Some(d) = dst.get_mut(b + 1) {
            *d = end;
        }
    });
    Ok(need)
}

/// The number of values [`row_blocks`] writes for `a`.
pub fn row_blocks_len<T: Scalar>(a: &Csr<'_, T, u32>) -> usize {
    walk_row_blocks(a.row_ptr(), |_, _| {}) + 1
}

/// The ways to run `y = alpha * A * x + beta * y` on the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// [`Kernel::CsrScalar`] on the CSR arrays.
    CsrScalar,
    /// [`Kernel::CsrVector`] on the CSR arrays.
    CsrVector,
    /// [`Kernel::CsrStream`] on the CSR arrays and their [`row_blocks`].
    CsrStream,
    /// The three CSR5 passes on the arrays of a [`csr5_layout`] CSR5 matrix.
    Csr5,
}

/// One step of a [`Method`]: a dispatch, or a compute-to-compute memory barrier (shader
/// writes before shader reads and writes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// `vkCmdDispatch(kernel.groups(params), 1, 1)`.
    Dispatch(Kernel),
    /// A memory barrier.
    Barrier,
}

impl Method {
    /// Every method.
    pub const ALL: [Method; 4] = [Method::CsrScalar, Method::CsrVector, Method::CsrStream, Method::Csr5];

    /// The dispatches and barriers of one SpMV, in order.
    pub const fn steps(self) -> &'static [Step] {
        match self {
            Method::CsrScalar => &[Step::Dispatch(Kernel::CsrScalar)],
            Method::CsrVector => &[Step::Dispatch(Kernel::CsrVector)],
            Method::CsrStream => &[Step::Dispatch(Kernel::CsrStream)],
            Method::Csr5 => &[
                Step::Dispatch(Kernel::Csr5Tiles),
                Step::Dispatch(Kernel::Csr5Rows),
                Step::Barrier,
                Step::Dispatch(Kernel::Csr5Calibrate),
            ],
        }
    }

    /// The method for `a`, by its row lengths (one pass over `row_ptr`): the scalar
    /// kernel for short rows of even length, the vector kernel for rows of even length
    /// up to a few hundred entries, the stream kernel for longer even rows over a short
    /// `x`, and CSR5 for the rest: rows whose lengths are skewed (one invocation or
    /// vector would serialise on the longest row) or long over a long `x`. Measured
    /// against cuSPARSE on an H200: `benches/records/gpu-cusparse-2026-11-29-h200.md`.
    pub fn choose<T: Scalar>(a: &Csr<'_, T, u32>) -> Method {
        let max = a.max_row_len();
        let per_row = if a.nrows() == 0 { 0 } else { a.nnz().div_ceil(a.nrows()) };
        let even = max <= 8 * per_row.max(8);
        if per_row <= 8 && max <= 64 {
            Method::CsrScalar
        } else if per_row <= 256 && even {
            Method::CsrVector
        } else if even && a.ncols() <= 1 << 16 {
            // Long even rows over a short `x` (its gathers hit the cache): the stream
            // kernel's coalesced loads; over a long `x` the gathers bound every kernel
            // and CSR5's tiles keep more of them in flight.
            Method::CsrStream
        } else {
            Method::Csr5
        }
    }
}

/// The CSR5 layout the GPU kernels take: tiles of [`OMEGA`] lanes, `sigma` by the
/// thesis's GPU rule ([`SIGMA_BOUNDS`]) capped at [`MAX_SIGMA`].
///
/// # Errors
/// As [`crate::Csr5Layout::with_params`].
pub fn csr5_layout<T: Scalar>(csr: &Csr<'_, T, u32>) -> Result<crate::Csr5Layout, FormatError> {
    let per_row = if csr.nrows() == 0 { 0 } else { csr.nnz() / csr.nrows() };
    let mut sigma = crate::formats::csr5::sigma_by(SIGMA_BOUNDS, OMEGA, per_row).min(MAX_SIGMA);
    // A row of a 64th of the entries or more spans so many tiles that the calibrator's
    // sum of its carries (one subgroup per row) is a large part of the SpMV: the longest
    // tiles halve it (`dc2_like`, four rows of 250K entries among 6.5M: `sigma` 16 took
    // 0.068 ms to 8's 0.078 on an H200; `rmat`, whose longest row holds 0.3%, is
    // fastest at 8; `benches/records/gpu-cusparse-2026-11-29-h200.md`).
    if csr.max_row_len().saturating_mul(HEAVY_ROW_SHARE) >= csr.nnz() && csr.nnz() > 0 {
        sigma = MAX_SIGMA;
    }
    crate::Csr5Layout::with_params(csr, OMEGA, sigma)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modules_are_spirv_with_every_entry_point() {
        for (words, bytes) in [(spirv::<f32>(), spirv_bytes::<f32>()), (spirv::<f64>(), spirv_bytes::<f64>())]
        {
            assert_eq!(words.len() * 4, bytes.len());
            assert_eq!(words[0], 0x0723_0203, "SPIR-V magic number");
            for k in Kernel::ALL {
                let name = k.entry_point().as_bytes();
                assert!(
                    bytes.windows(name.len() + 1).any(|w| &w[..name.len()] == name && w[name.len()] == 0),
                    "{k:?}"
                );
            }
        }
        assert_ne!(spirv::<f32>(), spirv::<f64>());
    }

    #[test]
    fn push_constants_follow_the_kernel_block() {
        let p = SpmvParams::<f64> {
            nrows: 7,
            ntiles: 2,
            sigma: 16,
            ybits: 9,
            sbits: 5,
            lanes: 4,
            blocks: 3,
            alpha: 2.0,
            beta: -1.0,
        };
        let b = p.push_constants();
        let b = b.as_bytes();
        assert_eq!(b.len(), 48);
        assert_eq!(&b[..4], &7u32.to_le_bytes());
        assert_eq!(&b[16..20], &5u32.to_le_bytes());
        assert_eq!(&b[20..24], &4u32.to_le_bytes());
        assert_eq!(&b[24..28], &3u32.to_le_bytes());
        assert_eq!(&b[32..40], &2.0f64.to_le_bytes());
        assert_eq!(&b[40..48], &(-1.0f64).to_le_bytes());
        let p = SpmvParams::<f32> {
            nrows: 1,
            ntiles: 0,
            sigma: 0,
            ybits: 0,
            sbits: 0,
            lanes: 0,
            blocks: 0,
            alpha: 0.5,
            beta: 3.0,
        };
        let b = p.push_constants();
        assert_eq!(b.as_bytes().len(), 36);
        assert_eq!(&b.as_bytes()[28..32], &0.5f32.to_le_bytes());
        assert_eq!(&b.as_bytes()[32..36], &3.0f32.to_le_bytes());
    }

    #[test]
    fn groups_cover_the_work_and_stay_in_bounds() {
        let p = SpmvParams::<f32> {
            nrows: 1000,
            ntiles: 9,
            sigma: 16,
            ybits: 9,
            sbits: 5,
            lanes: 32,
            blocks: 70_000,
            alpha: 1.0,
            beta: 0.0,
        };
        assert_eq!(Kernel::CsrScalar.groups(&p), 4);
        assert_eq!(Kernel::CsrVector.groups(&p), 125);
        assert_eq!(Kernel::Csr5Tiles.groups(&p), 3);
        assert_eq!(Kernel::Csr5Calibrate.groups(&p), 1);
        assert_eq!(Kernel::CsrStream.groups(&p), MAX_GROUPS);
        let empty = SpmvParams::<f32> { nrows: 0, ..p };
        assert_eq!(Kernel::CsrScalar.groups(&empty), 1);
        let huge = SpmvParams::<f32> { nrows: u32::MAX, ..p };
        assert_eq!(Kernel::CsrVector.groups(&huge), MAX_GROUPS);
    }

    #[cfg(feature = "alloc")]
    #[test]
    fn row_blocks_cover_the_rows_within_the_bounds() {
        use alloc::vec::Vec;
        // Rows of 1000, 10 and 14 (exactly a block), one of 5000 (alone), many
        // empty rows (capped at STREAM_BLOCK rows a block), then short rows.
        let mut lens = alloc::vec![1000usize, 10, 14, 5000, 3];
        lens.extend(core::iter::repeat_n(0, 2500));
        lens.extend(core::iter::repeat_n(7, 400));
        let mut row_ptr = alloc::vec![0u32];
        for l in &lens {
            row_ptr.push(row_ptr.last().unwrap() + *l as u32);
        }
        let nnz = *row_ptr.last().unwrap() as usize;
        let col_idx: Vec<u32> = lens.iter().flat_map(|&l| 0..l as u32).collect();
        let vals = alloc::vec![1.0f32; nnz];
        let a = Csr::new(lens.len(), 5000, &row_ptr, &col_idx, &vals).unwrap();
        let n = row_blocks_len(&a);
        let mut out = alloc::vec![u32::MAX; n + 2];
        assert_eq!(row_blocks(&a, &mut out), Ok(n));
        assert!(row_blocks(&a, &mut out[..n - 1]).is_err());
        let b = &out[..n];
        assert_eq!(&b[..5], &[0, 3, 4, 1028, 2052]);
        assert_eq!(b[n - 1] as usize, lens.len());
        for w in b.windows(2) {
            let (r0, r1) = (w[0] as usize, w[1] as usize);
            assert!(r0 < r1);
            let entries = (row_ptr[r1] - row_ptr[r0]) as usize;
            assert!(r1 - r0 == 1 || (entries <= STREAM_BLOCK && r1 - r0 <= STREAM_BLOCK), "{w:?}");
        }
        assert_eq!(SpmvParams::csr(&a, 1.0, 0.0).unwrap().blocks as usize, n - 1);
        let empty = Csr::<f32, u32>::new(0, 3, &[0], &[], &[]).unwrap();
        let mut one = [7u32];
        assert_eq!(row_blocks(&empty, &mut one), Ok(1));
        assert_eq!(one, [0]);
    }

    #[cfg(feature = "alloc")]
    #[test]
    fn csr5_layout_takes_the_longest_tiles_for_a_heavy_row() {
        // 2000 rows of 3 entries, then one row of `heavy` entries.
        let layout = |heavy: u32| {
            let mut row_ptr: alloc::vec::Vec<u32> = (0..=2000u32).map(|i| 3 * i).collect();
            row_ptr.push(6000 + heavy);
            let col_idx: alloc::vec::Vec<u32> =
                (0..2000u32).flat_map(|i| [i, i + 1, i + 2]).chain(0..heavy).collect();
            let vals = alloc::vec![1.0f32; col_idx.len()];
            let a = Csr::new(2001, 10_000, &row_ptr, &col_idx, &vals).unwrap();
            csr5_layout(&a).unwrap().sigma()
        };
        assert_eq!(layout(50), SIGMA_BOUNDS.0);
        assert_eq!(layout(200), MAX_SIGMA);
    }
}
