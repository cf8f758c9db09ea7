//! The sparse vector view [`SpVec`] (and, with `alloc`, [`SpVecOwned`]): one CSR row
//! (thesis 7.4: "CSR-based sparse vector addition"), indices strictly increasing.

use crate::{FormatError, Index, Scalar};

/// A validated, borrowed sparse vector of dimension `n`: `nnz` (index, value) pairs.
///
/// Invariants (checked by [`SpVec::new`]):
/// - `indices.len() == vals.len()`;
/// - every index is `< n`;
/// - indices are strictly increasing (sorted, no duplicates) — the canonical CSR row the
///   thesis's addition methods assume (7.4.3, footnote 1).
///
/// Values may be zero: an explicitly stored zero is an entry like any other.
///
/// ```
/// use spblas::level1::SpVec;
/// let x = SpVec::new(10, &[1u32, 4, 7], &[1.0f64, -2.0, 0.0])?;
/// assert_eq!((x.dim(), x.nnz()), (10, 3));
/// assert_eq!(x.get(4), Some(-2.0));
/// assert_eq!(x.get(5), None);
/// assert!(SpVec::new(10, &[4u32, 1], &[1.0f64, 2.0]).is_err()); // not increasing
/// # Ok::<(), spblas::FormatError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SpVec<'a, T, I> {
    n: usize,
    indices: &'a [I],
    vals: &'a [T],
}

impl<'a, T: Scalar, I: Index> SpVec<'a, T, I> {
    /// Builds a view of dimension `n` after checking every invariant listed on [`SpVec`],
    /// in one pass.
    ///
    /// # Errors
    /// The first violation, the vector read as row 0 of a `1 x n` matrix:
    /// [`FormatError::Length`] (`"vals"`) if the lengths differ, then for the first bad
    /// position [`FormatError::NegativeIndex`] (`"indices"`),
    /// [`FormatError::ColumnOutOfBounds`] (index `>= n`),
    /// [`FormatError::UnsortedRow`] (index smaller than its predecessor) or
    /// [`FormatError::DuplicateEntry`] (index equal to its predecessor).
    pub fn new(n: usize, indices: &'a [I], vals: &'a [T]) -> Result<Self, FormatError> {
        if vals.len() != indices.len() {
            return Err(FormatError::Length { array: "vals", expected: indices.len(), got: vals.len() });
        }
        let mut prev: Option<usize> = None;
        for (position, &i) in indices.iter().enumerate() {
            let col = match i.try_to_usize() {
                Some(col) if col < n => col,
                col => {
                    if let Some(e) = crate::formats::negative("indices", position, i) {
                        return Err(e);
                    }
                    return Err(FormatError::ColumnOutOfBounds {
                        row: 0,
                        position,
                        col: col.unwrap_or(usize::MAX),
                        ncols: n,
                    });
                }
            };
            match prev {
                Some(p) if col < p => return Err(FormatError::UnsortedRow { row: 0, position }),
                Some(p) if col == p => return Err(FormatError::DuplicateEntry { row: 0, position, col }),
                _ => {}
            }
            prev = Some(col);
        }
        Ok(SpVec { n, indices, vals })
    }

    /// Builds a view without any check.
    ///
    /// # Safety
    /// Every invariant listed on [`SpVec`] must hold. The kernels index dense scratch of
    /// length `n` with the indices and rely on their order to size their outputs.
    #[allow(unsafe_code)] // declares a contract for the caller; the body is safe code
    pub unsafe fn new_unchecked(n: usize, indices: &'a [I], vals: &'a [T]) -> Self {
        SpVec { n, indices, vals }
    }

    /// The empty vector of dimension `n`.
    pub fn empty(n: usize) -> Self {
        SpVec { n, indices: &[], vals: &[] }
    }

    /// The dimension `n` (the length of the dense vector this one stands for).
    pub fn dim(&self) -> usize {
        self.n
    }

    /// Number of stored entries (explicit zeros included).
    pub fn nnz(&self) -> usize {
        self.indices.len()
    }

    /// Whether no entry is stored.
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// The indices, strictly increasing.
    pub fn indices(&self) -> &'a [I] {
        self.indices
    }

    /// The values, aligned with [`SpVec::indices`].
    pub fn vals(&self) -> &'a [T] {
        self.vals
    }

    /// The stored value at index `i` (binary search), `None` if none is stored.
    pub fn get(&self, i: usize) -> Option<T> {
        let k = self.indices.binary_search_by(|c| c.to_usize().cmp(&i)).ok()?;
        Some(self.vals[k])
    }

    /// The entries `(index, value)` in increasing index order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, T)> + 'a {
        self.indices.iter().map(|i| i.to_usize()).zip(self.vals.iter().copied())
    }

    /// Writes the dense form into `out` (`out.len() == n`): zeros, then the entries.
    ///
    /// # Errors
    /// [`crate::DimError::Length`] (`"out"`) unless `out.len() == n`; `out` is untouched.
    pub fn to_dense(&self, out: &mut [T]) -> Result<(), crate::DimError> {
        if out.len() != self.n {
            return Err(crate::DimError::Length { operand: "out", expected: self.n, got: out.len() });
        }
        out.fill(T::ZERO);
        for (i, v) in self.iter() {
            out[i] = v;
        }
        Ok(())
    }
}

#[cfg(feature = "alloc")]
mod owned {
    use alloc::vec::Vec;

    use super::SpVec;
    use crate::{FormatError, Index, Scalar};

    /// A sparse vector that owns its arrays (feature `alloc`); the same invariants as
    /// [`SpVec`], which [`SpVecOwned::view`] lends.
    #[derive(Clone, Debug, PartialEq)]
    pub struct SpVecOwned<T, I> {
        n: usize,
        indices: Vec<I>,
        vals: Vec<T>,
    }

    impl<T: Scalar, I: Index> SpVecOwned<T, I> {
        /// Takes the arrays after the checks of [`SpVec::new`].
        ///
        /// # Errors
        /// As [`SpVec::new`].
        pub fn from_parts(n: usize, indices: Vec<I>, vals: Vec<T>) -> Result<Self, FormatError> {
            SpVec::new(n, &indices, &vals)?;
            Ok(SpVecOwned { n, indices, vals })
        }

        /// The entries of `dense` that are not zero (`-0.0` counts as zero), indexed by
        /// their positions; dimension `dense.len()`.
        ///
        /// # Errors
        /// [`FormatError::TooLarge`] if a position does not fit `I`.
        pub fn from_dense(dense: &[T]) -> Result<Self, FormatError> {
            let mut indices = Vec::new();
            let mut vals = Vec::new();
            for (i, &v) in dense.iter().enumerate() {
                if v != T::ZERO {
                    let idx = I::from_usize(i).ok_or(FormatError::TooLarge {
                        what: "index",
                        value: i,
                        max: I::MAX_USIZE,
                    })?;
                    indices.push(idx);
                    vals.push(v);
                }
            }
            Ok(SpVecOwned { n: dense.len(), indices, vals })
        }

        /// The borrowed view.
        pub fn view(&self) -> SpVec<'_, T, I> {
            SpVec { n: self.n, indices: &self.indices, vals: &self.vals }
        }

        /// The dimension `n`.
        pub fn dim(&self) -> usize {
            self.n
        }

        /// Number of stored entries.
        pub fn nnz(&self) -> usize {
            self.indices.len()
        }

        /// The indices, strictly increasing.
        pub fn indices(&self) -> &[I] {
            &self.indices
        }

        /// The values, aligned with the indices.
        pub fn vals(&self) -> &[T] {
            &self.vals
        }

        /// The values, to change in place (the pattern stays valid whatever they become).
        pub fn vals_mut(&mut self) -> &mut [T] {
            &mut self.vals
        }

        /// `(n, indices, vals)`.
        pub fn into_parts(self) -> (usize, Vec<I>, Vec<T>) {
            (self.n, self.indices, self.vals)
        }
    }
}

#[cfg(feature = "alloc")]
pub use owned::SpVecOwned;
