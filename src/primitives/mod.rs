//! Thesis chapter 4 primitives on caller slices, each dispatched over [`crate::Isa`]:
//! [`scan`] (reduce, inclusive/exclusive scan, 4.3.2–4.4.2), [`segmented`] (segmented
//! scan and sum, the fast `seg_offset` sum, 4.4.3–4.4.4), [`sort`] (bitonic and odd-even
//! merge sort, 4.5.2–4.5.3), [`merge`] (serial, ranking and merge-path merge, 4.5.4–4.5.5)
//! and [`heap`] (implicit d-heap with SIMD child search, k-selection, 4.6).
//!
//! Every primitive has a plain form that runs on [`crate::Isa::detect`] and an `_isa`
//! form; asking for an `Isa` this machine lacks is [`crate::DimError::IsaUnavailable`].
//! No primitive allocates.

pub mod heap;
pub mod merge;
pub mod scan;
pub mod segmented;
pub mod sort;

use crate::arch::Checked;
use crate::{DimError, Isa};

/// Fails with [`DimError::IsaUnavailable`] unless this machine can run `isa`: the check of
/// [`Checked::new`] for a caller that has no kernel to hand the token to (today the
/// reference SpMV kernels of `level2`; a SIMD kernel takes the [`Checked`] instead).
#[inline]
pub(crate) fn check_isa(isa: Isa) -> Result<(), DimError> {
    Checked::new(isa).map(|_| ())
}
