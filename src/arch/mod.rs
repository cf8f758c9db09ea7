//! The only home of `unsafe` SIMD intrinsics (ARCHITECTURE.md, principle 4).
//!
//! [`generic`] holds each kernel family (`scan`, `sort`, `merge`, `heap`, `spmv_csr`,
//! `spmv_csr5`, `transpose`, `esc`) once, over the narrow vector trait it needs, with the
//! family's dispatcher. One module per width — [`portable`], `x86_64::avx2`,
//! `x86_64::avx512`, `aarch64::neon` — holds, one file per family, only that width's
//! impls of those traits and thin `#[target_feature]` entry points named alike in every
//! width, so each dispatcher is one [`dispatch!`].
//!
//! Besides the intrinsics, the crate's two other `unsafe` hints live here too:
//! `prefetch` (cache hints) and `pages` (the transparent huge page hint of large owned
//! outputs: one `madvise` call, feature `std` on Linux).
//!
//! # One way in: a [`Checked`] `Isa`
//!
//! Every SIMD kernel is a `#[target_feature(enable = "..")] unsafe fn` (or an `unsafe fn`
//! that only calls such functions) whose `# Safety` says the CPU has the width's features.
//! The safe layers above `arch` never call one directly. They turn the caller's [`Isa`]
//! into a [`Checked`] once, at the border (`Checked::new(isa)?`, which is
//! [`DimError::IsaUnavailable`] when this machine cannot run it), and pass the token to a
//! dispatcher here: a per-type trait method (`ArchScanElem::*_on`, `SortWord::sort_on`,
//! `ArchKey::merge_on`, `ArchHeapKey::*_on`) whose body is one [`dispatch!`] from the
//! checked width to that width's entry point, an `unsafe` call per width. The token is the
//! proof that makes each of those calls sound, so no kernel checks the CPU again and
//! nothing below the border falls back silently to another width: the `Isa` the caller
//! named is the `Isa` that runs.
//!
//! Every `unsafe` block carries a `// SAFETY:` comment on why the features are present
//! (the token) and why each access is in bounds.
//!
//! # Keys
//!
//! [`OrdBits`] (`key.rs`) is all the sorting, merging and heap kernels know of a key type:
//! its total order as a signed integer image (merge, heap) or an unsigned word (sort).
//! The public sealed `primitives::Key` builds on it and on the dispatchers.
#![allow(unsafe_code)]

use crate::{DimError, Isa};

/// Calls the entry point `$f` of the kernel family `$family` (the file of that name in
/// each width's folder) on the checked `$isa`'s width — `x86_64::avx2::$family`,
/// `x86_64::avx512::$family`, `aarch64::neon::$family` — or evaluates `$portable` on
/// `Portable` and on any width not compiled for this target, which a [`Checked`] never
/// names. The one `match` from a checked `Isa` to the widths' `#[target_feature]` entry
/// points; `$g` are the entry point's generic arguments.
macro_rules! dispatch {
    (
        $isa:expr,
        $family:ident::$f:ident $(::<$($g:tt),+>)? ($($arg:expr),*),
        else $portable:expr
    ) => {
        match $isa.isa() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Checked` proves AVX2 (+FMA) is available.
            $crate::Isa::Avx2 => unsafe {
                $crate::arch::x86_64::avx2::$family::$f$(::<$($g),+>)?($($arg),*)
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Checked` proves AVX-512 F/VL/BW/DQ (and AVX2) are available.
            $crate::Isa::Avx512 => unsafe {
                $crate::arch::x86_64::avx512::$family::$f$(::<$($g),+>)?($($arg),*)
            },
            #[cfg(target_arch = "aarch64")]
            // SAFETY: `Checked` proves NEON is available.
            $crate::Isa::Neon => unsafe {
                $crate::arch::aarch64::neon::$family::$f$(::<$($g),+>)?($($arg),*)
            },
            _ => $portable,
        }
    };
}
pub(crate) use dispatch;

pub(crate) mod generic;
mod key;
#[cfg(feature = "alloc")]
mod pages;
pub(crate) mod portable;
mod prefetch;

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86_64;

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;

#[cfg(target_arch = "wasm32")]
pub(crate) mod wasm32;

pub use key::OrdBits;
#[cfg(feature = "alloc")]
pub(crate) use pages::advise_huge;
pub(crate) use prefetch::{PF_AHEAD, PF_X_AHEAD, prefetch, prefetch_span, store_fence};

/// Whether a scalar load per lane reads `x` clearly faster than a hardware gather on this
/// core: measured once ([`crate::Gathers::detect`]) by timing both on an L1-resident table
/// (`avx2::spmv_csr5::gather_costs`); loads must take at most [`LOADS_SHARE`] of the
/// gathers' time. `false` without AVX2 (no kernel gathers then) and under Miri.
pub(crate) fn slow_gathers() -> bool {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if let Ok(c) = Checked::new(crate::Isa::Avx2) {
        let (hw, loads) = x86_64::avx2::spmv_csr5::gather_costs(c);
        return loads.saturating_mul(LOADS_SHARE.1) <= hw.saturating_mul(LOADS_SHARE.0);
    }
    false
}

/// Loads replace gathers only at or below this share (numerator, denominator) of their
/// time in the calibration, whose table sits in L1: in the kernels, where `x` comes from
/// further out, the gap narrows, and cores whose calibrated loads took well over half the
/// gathers' time ran the kernels faster with gathers (`examples/gathers.rs`, records in
/// `benches/records/`).
#[cfg(all(target_arch = "x86_64", not(miri)))]
const LOADS_SHARE: (u64, u64) = (1, 2);

/// Proof that this machine can run an [`Isa`]: the token every dispatcher into the SIMD
/// kernels takes.
///
/// A `Checked` is made only by [`Checked::new`], which asks [`Isa::is_available`], or by
/// [`Checked::detect`]; so holding one means the CPU has the width's target features, and
/// a dispatcher's `unsafe` call into that width's `#[target_feature]` kernel is sound. Make
/// it once where a caller's `Isa` enters the crate (the `_isa` functions, a heap's
/// constructor, a plan for a future SpMV kernel) and pass it down — it is `Copy` and one
/// byte — instead of checking availability again inside a kernel, and never fall back to
/// another width below the check.
///
/// `pub` only so that the dispatch traits, which are supertraits of public sealed traits,
/// can name it; `arch` is private, so nothing outside the crate can name or make one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checked {
    isa: Isa,
}

impl Checked {
    /// `isa` as a token if this machine can run it.
    ///
    /// # Errors
    /// [`DimError::IsaUnavailable`] otherwise.
    #[inline]
    pub(crate) fn new(isa: Isa) -> Result<Checked, DimError> {
        if isa.is_available() { Ok(Checked { isa }) } else { Err(DimError::IsaUnavailable { isa }) }
    }

    /// [`Isa::detect`], checked: the widest `Isa` this machine can run (`Portable`, which
    /// every machine runs, should detection ever name one it cannot).
    #[inline]
    pub(crate) fn detect() -> Checked {
        Checked::new(Isa::detect()).unwrap_or(Checked { isa: Isa::Portable })
    }

    /// The checked `Isa`.
    #[inline]
    pub(crate) fn isa(self) -> Isa {
        self.isa
    }
}
