//! Instruction-set selection: which SIMD width a dispatched kernel runs on.
//!
//! Every dispatched kernel has a plain form that uses [`Isa::detect`] and an `_isa` form
//! that takes the `Isa` to run, so benchmarks and users can compare widths. Asking for an
//! `Isa` that this machine cannot run is an error, never undefined behaviour.

use core::fmt;

/// A SIMD instruction set a kernel can be run on (DESIGN principle 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Isa {
    /// Plain Rust, every target.
    Portable,
    /// x86-64 with AVX2 and FMA.
    Avx2,
    /// x86-64 with AVX-512 F, VL, BW and DQ (the subset the kernels use) plus AVX2/FMA.
    Avx512,
    /// AArch64 Advanced SIMD (NEON).
    Neon,
}

impl Isa {
    /// Every `Isa`, narrowest first.
    pub const ALL: [Isa; 4] = [Isa::Portable, Isa::Avx2, Isa::Avx512, Isa::Neon];

    /// The widest `Isa` this machine can run: by runtime detection with `std`, from the
    /// compile-time `target_feature`s without it.
    pub fn detect() -> Isa {
        let mut best = Isa::Portable;
        for isa in Isa::available() {
            best = isa;
        }
        best
    }

    /// Every `Isa` this machine can run, narrowest first; always starts with `Portable`.
    pub fn available() -> impl Iterator<Item = Isa> {
        Isa::ALL.into_iter().filter(|isa| isa.is_available())
    }

    /// Whether this machine can run `self`.
    pub fn is_available(self) -> bool {
        match self {
            Isa::Portable => true,
            Isa::Avx2 => has_avx2(),
            Isa::Avx512 => has_avx2() && has_avx512(),
            Isa::Neon => has_neon(),
        }
    }

    /// Short lower-case name (`"portable"`, `"avx2"`, `"avx512"`, `"neon"`).
    pub fn name(&self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
            Isa::Neon => "neon",
        }
    }

    /// Parses a name as printed by [`Isa::name`].
    pub fn from_name(name: &str) -> Option<Isa> {
        Isa::ALL.into_iter().find(|isa| isa.name() == name)
    }
}

impl fmt::Display for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(all(target_arch = "x86_64", feature = "std"))]
fn has_avx2() -> bool {
    std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
}
#[cfg(all(target_arch = "x86_64", not(feature = "std")))]
fn has_avx2() -> bool {
    cfg!(all(target_feature = "avx2", target_feature = "fma"))
}
#[cfg(not(target_arch = "x86_64"))]
fn has_avx2() -> bool {
    false
}

#[cfg(all(target_arch = "x86_64", feature = "std"))]
fn has_avx512() -> bool {
    std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512vl")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512dq")
}
#[cfg(all(target_arch = "x86_64", not(feature = "std")))]
fn has_avx512() -> bool {
    cfg!(all(
        target_feature = "avx512f",
        target_feature = "avx512vl",
        target_feature = "avx512bw",
        target_feature = "avx512dq"
    ))
}
#[cfg(not(target_arch = "x86_64"))]
fn has_avx512() -> bool {
    false
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
