//! How a kernel runs: which SIMD width ([`Isa`]) and how many threads, passed to every
//! kernel as one [`Exec`] value (ARCHITECTURE.md, conventions).
//!
//! `Exec::new()` detects the widest width and stays on the calling thread; a forced width
//! lets benchmarks and users compare widths. Asking for an `Isa` that this machine cannot
//! run is an error, never undefined behaviour.

use core::fmt;

/// A SIMD instruction set a kernel can be run on (ARCHITECTURE.md, principle 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Isa {
    /// Plain Rust, every target.
    Portable,
    /// x86-64 with AVX2 and FMA.
    Avx2,
    /// x86-64 with AVX-512 F, VL, BW and DQ (the subset the kernels use) plus AVX2/FMA and
    /// POPCNT (which every AVX-512 CPU has; the register ESC counts its mask bits with it).
    Avx512,
    /// AArch64 Advanced SIMD (NEON).
    Neon,
    /// WebAssembly SIMD (`simd128`: 128-bit `v128`). WebAssembly cannot ask at run time: a
    /// module either uses SIMD or not, so this is available exactly when the crate is
    /// built with `-C target-feature=+simd128`.
    Wasm128,
}

impl Isa {
    /// Every `Isa`, narrowest first.
    pub const ALL: [Isa; 5] = [Isa::Portable, Isa::Avx2, Isa::Avx512, Isa::Neon, Isa::Wasm128];

    /// The widest `Isa` this machine can run, by runtime detection: on x86-64 by `CPUID`
    /// and `XGETBV` with or without `std` (so kernels, firmware and other `no_std` builds
    /// get AVX2 and AVX-512 where the CPU has them), on AArch64 by `std`'s detection or,
    /// without `std`, the compile-time `target_feature`s. Detected once; later calls are
    /// one atomic load.
    pub fn detect() -> Isa {
        let mask = available_mask();
        Isa::ALL.into_iter().rev().find(|isa| mask & isa.bit() != 0).unwrap_or(Isa::Portable)
    }

    /// Every `Isa` this machine can run, narrowest first; always starts with `Portable`.
    pub fn available() -> impl Iterator<Item = Isa> {
        Isa::ALL.into_iter().filter(|isa| isa.is_available())
    }

    /// Whether this machine can run `self`. Cheap enough for every kernel call: the CPU is
    /// asked once, then the answer is one atomic load.
    #[inline]
    pub fn is_available(self) -> bool {
        available_mask() & self.bit() != 0
    }

    /// This `Isa`'s bit in the availability mask.
    #[inline]
    const fn bit(self) -> u8 {
        match self {
            Isa::Portable => 1,
            Isa::Avx2 => 2,
            Isa::Avx512 => 4,
            Isa::Neon => 8,
            Isa::Wasm128 => 16,
        }
    }

    /// Short lower-case name (`"portable"`, `"avx2"`, `"avx512"`, `"neon"`, `"wasm128"`).
    pub fn name(&self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
            Isa::Neon => "neon",
            Isa::Wasm128 => "wasm128",
        }
    }

    /// Parses a name as printed by [`Isa::name`].
    pub fn from_name(name: &str) -> Option<Isa> {
        Isa::ALL.into_iter().find(|isa| isa.name() == name)
    }
}

/// How a kernel runs: the SIMD width and the most threads it may use. Every kernel takes
/// one as its first argument, so a width or a thread count is chosen the same way
/// everywhere (the `Par` argument of faer, the handle of cuSPARSE).
///
/// ```
/// use spblas::{Exec, Isa};
/// let auto = Exec::new(); // the widest width here, the calling thread only
/// let forced = Exec::new().isa(Isa::Portable).threads(4);
/// assert_eq!(forced.resolved_isa(), Isa::Portable);
/// assert_eq!(auto.resolved_isa(), Isa::detect());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Exec {
    isa: Option<Isa>,
    threads: usize,
}

impl Exec {
    /// The widest [`Isa`] this machine has ([`Isa::detect`]), on the calling thread only.
    pub const fn new() -> Exec {
        Exec { isa: None, threads: 1 }
    }

    /// Runs on `isa`. Kernels return [`DimError::IsaUnavailable`](crate::DimError) when
    /// this machine cannot run it.
    #[must_use]
    pub const fn isa(self, isa: Isa) -> Exec {
        Exec { isa: Some(isa), ..self }
    }

    /// Uses at most `threads` tasks on the caller's rayon pool (feature `parallel`), and
    /// never more than the pool has threads: `1` (the default) runs on the calling thread;
    /// `0` as many as the pool has, or the calling thread alone where the work is too
    /// small to repay a fork. Kernels that have no threaded form (those not listed in the
    /// `parallel` feature's notes), and every kernel without the feature, run on the
    /// calling thread: the count is a ceiling, never a promise.
    #[must_use]
    pub const fn threads(self, threads: usize) -> Exec {
        Exec { threads, ..self }
    }

    /// The `Isa` the kernels run on: the one given to [`Exec::isa`], else [`Isa::detect`].
    pub fn resolved_isa(self) -> Isa {
        match self.isa {
            Some(isa) => isa,
            None => Isa::detect(),
        }
    }

    /// The `Isa` given to [`Exec::isa`], if any.
    pub const fn requested_isa(self) -> Option<Isa> {
        self.isa
    }

    /// The thread ceiling given to [`Exec::threads`] (`1` unless set).
    pub const fn thread_limit(self) -> usize {
        self.threads
    }
}

impl Default for Exec {
    /// [`Exec::new`].
    fn default() -> Exec {
        Exec::new()
    }
}

impl From<Isa> for Exec {
    /// `Exec::new().isa(isa)`.
    fn from(isa: Isa) -> Exec {
        Exec::new().isa(isa)
    }
}

impl From<crate::arch::Checked> for Exec {
    /// A checked `Isa` inside the crate, handed to a public kernel.
    fn from(isa: crate::arch::Checked) -> Exec {
        Exec::new().isa(isa.isa())
    }
}

/// The `Isa`s this machine can run, one bit each (see `Isa::bit`).
fn detect_mask() -> u8 {
    let mut mask = Isa::Portable.bit();
    let (avx2, avx512) = x86_widths();
    if avx2 {
        mask |= Isa::Avx2.bit();
        if avx512 {
            mask |= Isa::Avx512.bit();
        }
    }
    if has_neon() {
        mask |= Isa::Neon.bit();
    }
    if cfg!(all(target_arch = "wasm32", target_feature = "simd128")) {
        mask |= Isa::Wasm128.bit();
    }
    mask
}

/// [`detect_mask`], asked of the CPU once (on x86-64 by `CPUID`, with or without `std`;
/// on AArch64 by `std`'s detection, or without `std` the compile-time target features).
#[cfg(target_has_atomic = "8")]
#[inline]
fn available_mask() -> u8 {
    use core::sync::atomic::{AtomicU8, Ordering};
    const READY: u8 = 0x80;
    static MASK: AtomicU8 = AtomicU8::new(0);
    let m = MASK.load(Ordering::Relaxed);
    if m & READY != 0 {
        return m;
    }
    let m = detect_mask() | READY;
    MASK.store(m, Ordering::Relaxed);
    m
}

/// Targets without byte atomics have no x86-64 or AArch64 widths to ask about at run
/// time: the mask is a constant there.
#[cfg(not(target_has_atomic = "8"))]
#[inline]
fn available_mask() -> u8 {
    detect_mask()
}

impl fmt::Display for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `(AVX2 and FMA, AVX-512 F/VL/BW/DQ and POPCNT)`: by `CPUID` and `XGETBV`
/// (`arch::x86_64::cpu_widths`), with or without `std`; under Miri, which has no
/// `CPUID`, the compile-time target features.
#[cfg(all(target_arch = "x86_64", not(miri)))]
fn x86_widths() -> (bool, bool) {
    crate::arch::x86_64::cpu_widths()
}
#[cfg(all(target_arch = "x86_64", miri))]
fn x86_widths() -> (bool, bool) {
    (
        cfg!(all(target_feature = "avx2", target_feature = "fma")),
        cfg!(all(
            target_feature = "avx512f",
            target_feature = "avx512vl",
            target_feature = "avx512bw",
            target_feature = "avx512dq",
            target_feature = "popcnt"
        )),
    )
}
#[cfg(not(target_arch = "x86_64"))]
fn x86_widths() -> (bool, bool) {
    (false, false)
}

#[cfg(all(target_arch = "aarch64", feature = "std"))]
fn has_neon() -> bool {
    std::arch::is_aarch64_feature_detected!("neon")
}
#[cfg(all(target_arch = "aarch64", not(feature = "std")))]
fn has_neon() -> bool {
    cfg!(target_feature = "neon")
}
#[cfg(not(target_arch = "aarch64"))]
fn has_neon() -> bool {
    false
}

/// How the x86-64 CSR5 tile kernels read `x` at a step's column indices: one hardware
/// gather instruction per step, or one scalar load per lane put together in a register.
/// Both give the same values, bit for bit.
///
/// Which is faster depends on the core, not on the matrix: gathers are microcoded on AMD
/// cores and slowed by the Gather Data Sampling mitigation on affected Intel ones, fast
/// elsewhere. So [`Gathers::detect`] measures instead of asking the vendor: once per
/// process it times both ways on a table in L1 (about 20 µs), and takes
/// [`Loads`](Gathers::Loads) where they take at most half the gathers' time (what it
/// measured on two machines: `benches/records/gathers-*.md`). The same answer picks the
/// CSR row method ([`crate::CsrMethod::choose`]).
///
/// The CSR row-vector kernels follow it too where `x` fits a core's caches (up to 4 MiB):
/// further out every read waits on memory, and a gather keeps more of them in flight
/// (`benches/records/row-vector-loads-*.md`); the values are the same either way. The
/// segmented sums' products always gather in hardware.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Gathers {
    /// `vgatherdpd` and kin.
    Hardware,
    /// A scalar load per lane.
    Loads,
}

/// The [`Gathers`] in force ([`Gathers::code`]): 0 until first asked or set.
static GATHERS: core::sync::atomic::AtomicU8 = core::sync::atomic::AtomicU8::new(0);

impl Gathers {
    /// This core's faster way, measured (see the type's docs). Without AVX2, on
    /// non-x86-64 targets and under Miri, [`Hardware`](Gathers::Hardware) (no kernel there
    /// gathers).
    pub fn detect() -> Gathers {
        if crate::arch::slow_gathers() { Gathers::Loads } else { Gathers::Hardware }
    }

    /// The mode the kernels use now: the last [`Gathers::set`], else [`Gathers::detect`]
    /// (asked once; later calls are one atomic load).
    #[inline]
    pub fn current() -> Gathers {
        use core::sync::atomic::Ordering;
        let mut g = GATHERS.load(Ordering::Relaxed);
        if g == 0 {
            g = Gathers::detect().code();
            // A concurrent `set` wins: only an unset value is replaced.
            let _ = GATHERS.compare_exchange(0, g, Ordering::Relaxed, Ordering::Relaxed);
            g = GATHERS.load(Ordering::Relaxed);
        }
        if g == 2 { Gathers::Loads } else { Gathers::Hardware }
    }

    /// Makes every later kernel call in this process use `self` (to compare the two on a
    /// machine, as the suite and the benchmarks do); `None` goes back to
    /// [`Gathers::detect`].
    pub fn set(mode: Option<Gathers>) {
        let code = mode.map_or(0, Gathers::code);
        GATHERS.store(code, core::sync::atomic::Ordering::Relaxed);
    }

    /// 1 hardware, 2 loads.
    fn code(self) -> u8 {
        match self {
            Gathers::Hardware => 1,
            Gathers::Loads => 2,
        }
    }

    /// Short lower-case name (`"hardware"`, `"loads"`).
    pub fn name(&self) -> &'static str {
        match self {
            Gathers::Hardware => "hardware",
            Gathers::Loads => "loads",
        }
    }
}
