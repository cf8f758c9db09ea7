//! Thesis chapter 4 primitives on caller slices, each dispatched over [`crate::Isa`]:
//! [`scan`] (reduce, inclusive/exclusive scan, 4.3.2–4.4.2), [`segmented`] (segmented
//! scan and sum, the fast `seg_offset` sum, 4.4.3–4.4.4), [`sort`] (bitonic and odd-even
//! merge sort, 4.5.2–4.5.3), [`merge`] (serial, ranking and merge-path merge, 4.5.4–4.5.5)
//! and [`heap`] (implicit d-heap with SIMD child search, k-selection, 4.6).
//!
//! Every primitive takes an [`Exec`](crate::Exec) first (its width detected unless forced);
//! asking for an `Isa` this machine lacks is [`crate::DimError::IsaUnavailable`].
//! No primitive allocates.
//!
//! Element types: the sorts, merges and heaps order their keys, any [`Key`]; the scans
//! add their elements, any [`scan::ScanElem`].

pub mod heap;
pub mod merge;
pub mod scan;
pub mod segmented;
pub mod sort;

use core::cmp::Ordering;
use core::fmt::Debug;

use crate::arch::Checked;
use crate::{DimError, Isa};

mod sealed {
    use crate::arch::generic::heap::ArchHeapKey;
    use crate::arch::generic::merge::ArchKey;

    /// Seals [`super::Key`]; carries the key's order bits ([`crate::arch::OrdBits`],
    /// through `ArchKey`) and the merge and heap kernels of every width.
    pub trait Sealed: ArchKey + ArchHeapKey {}
    impl Sealed for u16 {}
    impl Sealed for u32 {}
    impl Sealed for i32 {}
    impl Sealed for f32 {}
    impl Sealed for u64 {}
    impl Sealed for i64 {}
    impl Sealed for f64 {}
    #[cfg(any(target_pointer_width = "32", target_pointer_width = "64"))]
    impl Sealed for usize {}
}

/// A key the sorts ([`sort`]), merges ([`merge`]) and heaps ([`heap`]) accept: `u16`,
/// `u32`, `i32`, `f32`, `u64`, `i64`, `f64`, `usize`, compared by their *total order*.
/// Sealed. (`u16`, there for the `u16` index type, runs the portable kernels on every
/// width.)
///
/// Integers are ordered by value. Floats are ordered as by [`f32::total_cmp`] /
/// [`f64::total_cmp`]: `-NaN < -inf < … < -0.0 < +0.0 < … < +inf < +NaN`, NaNs further
/// by payload; every bit pattern has its place, so no comparison panics or is
/// inconsistent, and keys equal in this order are bit-identical. Inside, each key maps to
/// integer bits with the same order (a bijection, so NaN payloads and signed zeros come
/// back bit for bit) — which is all the SIMD kernels compare.
pub trait Key: sealed::Sealed + Copy + PartialEq + Debug + Send + Sync + 'static {
    /// Compares two keys in the total order the kernels use.
    ///
    /// ```
    /// use spblas::primitives::Key;
    /// use core::cmp::Ordering;
    /// assert_eq!((-0.0f32).key_cmp(&0.0), Ordering::Less);
    /// assert_eq!(f64::NAN.key_cmp(&f64::INFINITY), Ordering::Greater);
    /// assert_eq!((-1i32).key_cmp(&1), Ordering::Less);
    /// ```
    #[inline]
    fn key_cmp(&self, other: &Self) -> Ordering {
        self.ord().cmp(&other.ord())
    }
}

impl Key for u16 {}
impl Key for u32 {}
impl Key for i32 {}
impl Key for f32 {}
impl Key for u64 {}
impl Key for i64 {}
impl Key for f64 {}
#[cfg(any(target_pointer_width = "32", target_pointer_width = "64"))]
impl Key for usize {}

/// Fails with [`DimError::IsaUnavailable`] unless this machine can run `isa`: the check of
/// [`Checked::new`] for a caller that has no kernel to hand the token to (today the
/// reference SpMV kernels of `level2`; a SIMD kernel takes the [`Checked`] instead).
#[inline]
pub(crate) fn check_isa(isa: Isa) -> Result<(), DimError> {
    Checked::new(isa).map(|_| ())
}
