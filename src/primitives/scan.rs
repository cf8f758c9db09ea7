//! Reduction and all-scans (thesis 4.3.2 and 4.4.2: Alg. 3, 4 and 6–10) on caller
//! slices, on every [`Isa`](crate::Isa).
//!
//! | function | result |
//! |---|---|
//! | [`reduce`] | `v[0] + v[1] + .. + v[n-1]`; `0` when empty |
//! | [`inclusive_scan`] | `v[i] <- v[0] + .. + v[i]` (in place) |
//! | [`exclusive_scan`] | `v[i] <- v[0] + .. + v[i-1]`, `v[0] <- 0`; returns the total |
//! | [`inclusive_scan_into`], [`exclusive_scan_into`] | the same from `src` into `dst` |
//!
//! Each runs on its [`Exec`]'s width and fails with [`DimError::IsaUnavailable`] if this
//! machine cannot run it. The out-of-place forms fail
//! with [`DimError::Length`] unless `dst.len() == src.len()`; on any error nothing is
//! written. Nothing allocates, nothing panics, and empty slices are fine.
//!
//! **Element types** ([`ScanElem`]): `u32`, `u64`, `usize`, `i32`, `i64` with wrapping
//! addition — exact, bit-identical on every `Isa` — and `f32`, `f64`.
//!
//! **Floating point.** The SIMD paths scan each vector in-register in `log2(W)` steps
//! and then add the running total, and `reduce` keeps several partial sums, so the
//! additions happen in another order than the sequential loop's. Results equal the
//! sequential scan up to rounding: like any reordering of a sum of `k` terms, the
//! difference at a position is bounded by a small multiple of
//! `k * eps * (|x_0| + .. + |x_i|)` (in practice far less), and the sign of a zero
//! result may differ. Each path on its own is deterministic. NaN and infinities propagate
//! as IEEE addition makes them.
//!
//! ```
//! use spblas::Exec;
//! use spblas::primitives::scan::{exclusive_scan, inclusive_scan, reduce};
//! let mut v = [3u32, 6, 7, 8, 9, 12]; // the thesis's example (4.4)
//! assert_eq!(reduce(Exec::new(), &v)?, 45);
//! inclusive_scan(Exec::new(), &mut v)?;
//! assert_eq!(v, [3, 9, 16, 24, 33, 45]);
//! let mut w = [3u32, 6, 7, 8, 9, 12];
//! assert_eq!(exclusive_scan(Exec::new(), &mut w)?, 45);
//! assert_eq!(w, [0, 3, 9, 16, 24, 33]);
//! # Ok::<(), spblas::DimError>(())
//! ```

use core::fmt::Debug;

use crate::arch::Checked;
use crate::{DimError, Exec};

/// An element type the scan primitives run on: `u32`, `u64`, `usize`, `i32`, `i64`
/// (wrapping addition) and `f32`, `f64` (IEEE addition). Sealed.
///
/// Not the same trait as [`Key`](super::Key), though it names the same types: a scan
/// needs an *addition* (wrapping, or IEEE with its rounding and signed zeros), a sort,
/// merge or heap a *total order* (floats by `total_cmp`). The two are unrelated — `-0.0`
/// and `+0.0` are distinct keys but add the same, wrapping `i32` addition is the same
/// bits as `u32` addition (so scans of `i32` run the `u32` kernels) while their orders
/// differ — and a type could have one without the other.
pub trait ScanElem: sealed::Sealed + Copy + Default + PartialEq + Debug + Send + Sync + 'static {}

pub(crate) mod sealed {
    use crate::arch::Checked;
    use crate::arch::generic::scan::{ArchScanElem, FlagMask, InOut};

    /// In place, or from a source into a destination of the same length.
    pub enum Io<'a, T> {
        InPlace(&'a mut [T]),
        Copy(&'a [T], &'a mut [T]),
    }

    impl<'a, T: bytemuck::Pod> Io<'a, T> {
        /// The same memory as another integer type of the same size and alignment.
        fn cast<U: bytemuck::Pod>(self) -> Io<'a, U> {
            match self {
                Io::InPlace(v) => Io::InPlace(bytemuck::cast_slice_mut(v)),
                Io::Copy(s, d) => Io::Copy(bytemuck::cast_slice(s), bytemuck::cast_slice_mut(d)),
            }
        }
    }

    impl<'a, T> Io<'a, T> {
        fn arch(self) -> InOut<'a, T> {
            match self {
                Io::InPlace(v) => InOut::in_place(v),
                Io::Copy(s, d) => InOut::copy(s, d),
            }
        }
    }

    /// The per-type dispatch to the `arch` kernels, behind a [`Checked`] `Isa`. Private:
    /// the methods are not nameable outside the crate.
    pub trait Sealed: Sized {
        fn reduce_isa(isa: Checked, v: &[Self]) -> Self;
        fn inclusive_isa(isa: Checked, io: Io<'_, Self>);
        fn exclusive_isa(isa: Checked, io: Io<'_, Self>) -> Self;
        fn seg_scan_isa<F: FlagMask>(isa: Checked, io: Io<'_, Self>, flags: F, exclusive: bool);
        fn seg_sum_isa<F: FlagMask>(isa: Checked, io: Io<'_, Self>, flags: F);
        fn seg_offset_isa(isa: Checked, src: &[Self], seg_offset: &[u32], dst: &mut [Self]);
    }

    /// The element types the arch kernels have.
    macro_rules! native {
        ($($t:ty),*) => {$(
            impl Sealed for $t {
                #[inline]
                fn reduce_isa(isa: Checked, v: &[$t]) -> $t {
                    <$t>::reduce_on(isa, v)
                }
                #[inline]
                fn inclusive_isa(isa: Checked, io: Io<'_, $t>) {
                    <$t>::inclusive_on(isa, io.arch())
                }
                #[inline]
                fn exclusive_isa(isa: Checked, io: Io<'_, $t>) -> $t {
                    <$t>::exclusive_on(isa, io.arch())
                }
                #[inline]
                fn seg_scan_isa<F: FlagMask>(isa: Checked, io: Io<'_, $t>, flags: F, exclusive: bool) {
                    <$t>::seg_scan_on(isa, io.arch(), flags, exclusive)
                }
                #[inline]
                fn seg_sum_isa<F: FlagMask>(isa: Checked, io: Io<'_, $t>, flags: F) {
                    <$t>::seg_sum_on(isa, io.arch(), flags)
                }
                #[inline]
                fn seg_offset_isa(isa: Checked, src: &[$t], seg_offset: &[u32], dst: &mut [$t]) {
                    <$t>::seg_offset_on(isa, src, seg_offset, dst)
                }
            }
        )*};
    }

    native!(u32, u64, f32, f64);

    /// Integer types scanned as the unsigned type of the same width: wrapping addition is
    /// the same bit operation for both.
    macro_rules! via {
        ($($t:ty => $u:ty),*) => {$(
            impl Sealed for $t {
                #[inline]
                fn reduce_isa(isa: Checked, v: &[$t]) -> $t {
                    <$u>::reduce_isa(isa, bytemuck::cast_slice(v)) as $t
                }
                #[inline]
                fn inclusive_isa(isa: Checked, io: Io<'_, $t>) {
                    <$u>::inclusive_isa(isa, io.cast())
                }
                #[inline]
                fn exclusive_isa(isa: Checked, io: Io<'_, $t>) -> $t {
                    <$u>::exclusive_isa(isa, io.cast()) as $t
                }
                #[inline]
                fn seg_scan_isa<F: FlagMask>(isa: Checked, io: Io<'_, $t>, flags: F, exclusive: bool) {
                    <$u>::seg_scan_isa(isa, io.cast(), flags, exclusive)
                }
                #[inline]
                fn seg_sum_isa<F: FlagMask>(isa: Checked, io: Io<'_, $t>, flags: F) {
                    <$u>::seg_sum_isa(isa, io.cast(), flags)
                }
                #[inline]
                fn seg_offset_isa(isa: Checked, src: &[$t], seg_offset: &[u32], dst: &mut [$t]) {
                    <$u>::seg_offset_isa(
                        isa,
                        bytemuck::cast_slice(src),
                        seg_offset,
                        bytemuck::cast_slice_mut(dst),
                    )
                }
            }
        )*};
    }

    via!(i32 => u32, i64 => u64);
    #[cfg(target_pointer_width = "64")]
    via!(usize => u64);
    #[cfg(target_pointer_width = "32")]
    via!(usize => u32);
}

use sealed::Io;

impl ScanElem for u32 {}
impl ScanElem for u64 {}
impl ScanElem for i32 {}
impl ScanElem for i64 {}
#[cfg(any(target_pointer_width = "32", target_pointer_width = "64"))]
impl ScanElem for usize {}
impl ScanElem for f32 {}
impl ScanElem for f64 {}

/// Fails with [`DimError::Length`] (operand `"dst"`) unless `dst.len() == src_len`.
#[inline]
pub(crate) fn check_dst(src_len: usize, dst_len: usize) -> Result<(), DimError> {
    if src_len == dst_len {
        Ok(())
    } else {
        Err(DimError::Length { operand: "dst", expected: src_len, got: dst_len })
    }
}

/// Sum of `v` (thesis Alg. 3/4) on `exec`; `0` when `v` is empty. Integers wrap.
///
/// # Errors
/// [`DimError::IsaUnavailable`] if this machine cannot run `exec`'s `Isa`.
pub fn reduce<T: ScanElem>(exec: Exec, v: &[T]) -> Result<T, DimError> {
    let isa = exec.resolved_isa();
    Ok(T::reduce_isa(Checked::new(isa)?, v))
}

/// In-place inclusive scan (thesis Alg. 7) on `exec`:
/// `v[i] <- v[0] + .. + v[i]`.
///
/// # Errors
/// [`DimError::IsaUnavailable`] if this machine cannot run `exec`'s `Isa` (`v` is untouched).
pub fn inclusive_scan<T: ScanElem>(exec: Exec, v: &mut [T]) -> Result<(), DimError> {
    let isa = exec.resolved_isa();
    T::inclusive_isa(Checked::new(isa)?, Io::InPlace(v));
    Ok(())
}

/// In-place exclusive scan (thesis Alg. 9) on `exec`:
/// `v[i] <- v[0] + .. + v[i-1]`, `v[0] <- 0`. Returns the total `v[0] + .. + v[n-1]`
/// (`0` when empty), which is what turns row counts into a `row_ptr`.
///
/// # Errors
/// [`DimError::IsaUnavailable`] if this machine cannot run `exec`'s `Isa` (`v` is untouched).
pub fn exclusive_scan<T: ScanElem>(exec: Exec, v: &mut [T]) -> Result<T, DimError> {
    let isa = exec.resolved_isa();
    Ok(T::exclusive_isa(Checked::new(isa)?, Io::InPlace(v)))
}

/// Out-of-place inclusive scan (thesis Alg. 6) on `exec`:
/// `dst[i] = src[0] + .. + src[i]`.
///
/// # Errors
/// [`DimError::IsaUnavailable`] if this machine cannot run `exec`'s `Isa`; [`DimError::Length`]
/// unless `dst.len() == src.len()`. `dst` is untouched on error.
pub fn inclusive_scan_into<T: ScanElem>(exec: Exec, src: &[T], dst: &mut [T]) -> Result<(), DimError> {
    let isa = Checked::new(exec.resolved_isa())?;
    check_dst(src.len(), dst.len())?;
    T::inclusive_isa(isa, Io::Copy(src, dst));
    Ok(())
}

/// Out-of-place exclusive scan (thesis Alg. 8) on `exec`:
/// `dst[i] = src[0] + .. + src[i-1]`, `dst[0] = 0`; returns the total.
///
/// # Errors
/// [`DimError::IsaUnavailable`] if this machine cannot run `exec`'s `Isa`; [`DimError::Length`]
/// unless `dst.len() == src.len()`. `dst` is untouched on error.
pub fn exclusive_scan_into<T: ScanElem>(exec: Exec, src: &[T], dst: &mut [T]) -> Result<T, DimError> {
    let isa = Checked::new(exec.resolved_isa())?;
    check_dst(src.len(), dst.len())?;
    Ok(T::exclusive_isa(isa, Io::Copy(src, dst)))
}
