//! The other Level 1 operations (thesis 2.3, Table 2.1): dot products, axpy, gather and
//! scatter between a sparse and a dense vector.

use crate::{DimError, Index, Scalar};

use super::SpVec;

fn check_dense(operand: &'static str, n: usize, got: usize) -> Result<(), DimError> {
    if n != got { Err(DimError::Length { operand, expected: n, got }) } else { Ok(()) }
}

/// Sparse · dense dot product `sum_k x.vals[k] * y[x.indices[k]]` (summed in index
/// order; `0` for an empty `x`).
///
/// ```
/// use spblas::level1::{SpVec, dot_dense};
/// let x = SpVec::new(4, &[1u32, 3], &[2.0f64, -1.0])?;
/// assert_eq!(dot_dense(x, &[5.0, 6.0, 7.0, 8.0])?, 4.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`DimError::Length`] (`"y"`) unless `y.len() == x.dim()`.
pub fn dot_dense<T: Scalar, I: Index>(x: SpVec<'_, T, I>, y: &[T]) -> Result<T, DimError> {
    check_dense("y", x.dim(), y.len())?;
    let mut acc = T::ZERO;
    for (i, v) in x.iter() {
        acc += v * y[i];
    }
    Ok(acc)
}

/// Sparse · sparse dot product: one merge pass over both sorted index lists (as the
/// merge method of thesis 7.4.3), summing `x_i * y_i` over the shared indices in index
/// order; `0` if none are shared.
///
/// ```
/// use spblas::level1::{SpVec, dot};
/// let x = SpVec::new(6, &[0u32, 2, 5], &[1.0f64, 2.0, 3.0])?;
/// let y = SpVec::new(6, &[2u32, 3, 5], &[4.0f64, 9.0, -1.0])?;
/// assert_eq!(dot(x, y)?, 8.0 - 3.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// [`DimError::Length`] (`"y"`) unless `y.dim() == x.dim()`.
pub fn dot<T: Scalar, I: Index>(x: SpVec<'_, T, I>, y: SpVec<'_, T, I>) -> Result<T, DimError> {
    check_dense("y", x.dim(), y.dim())?;
    let (xi, xv, yi, yv) = (x.indices(), x.vals(), y.indices(), y.vals());
    let (mut a, mut b) = (0, 0);
    let mut acc = T::ZERO;
    while a < xi.len() && b < yi.len() {
        let (ka, kb) = (xi[a], yi[b]);
        if ka == kb {
            acc += xv[a] * yv[b];
        }
        a += usize::from(ka <= kb);
        b += usize::from(kb <= ka);
    }
    Ok(acc)
}

/// Sparse axpy into a dense vector: `y[i] += alpha * x_i` for every stored entry of `x`
/// (the other entries of `y` are not touched; with `alpha == 0` the entries of `y` at
/// `x`'s indices become `y[i] + 0 * x_i`, as BLAS axpy computes).
///
/// # Errors
/// [`DimError::Length`] (`"y"`) unless `y.len() == x.dim()`; `y` is untouched.
pub fn axpy<T: Scalar, I: Index>(alpha: T, x: SpVec<'_, T, I>, y: &mut [T]) -> Result<(), DimError> {
    check_dense("y", x.dim(), y.len())?;
    for (i, v) in x.iter() {
        y[i] += alpha * v;
    }
    Ok(())
}

/// Gather (Sparse BLAS `usga`): `out_vals[k] = y[indices[k]]`, the values of a sparse
/// vector with pattern `indices` taken from the dense `y`. `indices` need not be sorted
/// (pass the result to [`SpVec::new`] with sorted ones to get a vector).
///
/// ```
/// use spblas::level1::gather;
/// let mut v = [0.0f64; 2];
/// gather(&[5.0, 6.0, 7.0], &[2u32, 0], &mut v)?;
/// assert_eq!(v, [7.0, 5.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// Before anything is written: [`DimError::Length`] (`"out_vals"`) unless
/// `out_vals.len() == indices.len()`; for the first index not below `y.len()`,
/// [`DimError::OutOfRange`] (`"indices"`, its position and value, `max = y.len() - 1`),
/// or [`DimError::Length`] (`"y"`) when `y` is empty.
pub fn gather<T: Scalar, I: Index>(y: &[T], indices: &[I], out_vals: &mut [T]) -> Result<(), DimError> {
    check_dense("out_vals", indices.len(), out_vals.len())?;
    for (position, &i) in indices.iter().enumerate() {
        match i.try_to_usize() {
            Some(v) if v < y.len() => {}
            v => {
                let value = v.unwrap_or(usize::MAX);
                return Err(if y.is_empty() {
                    DimError::Length { operand: "y", expected: value.saturating_add(1), got: 0 }
                } else {
                    DimError::OutOfRange { operand: "indices", position, value, max: y.len() - 1 }
                });
            }
        }
    }
    for (o, &i) in out_vals.iter_mut().zip(indices) {
        *o = y[i.to_usize()];
    }
    Ok(())
}

/// Scatter (Sparse BLAS `ussc`): `y[i] = x_i` for every stored entry of `x`; the other
/// entries of `y` are not touched (zero `y` first for the dense form, or use
/// [`SpVec::to_dense`]).
///
/// # Errors
/// [`DimError::Length`] (`"y"`) unless `y.len() == x.dim()`; `y` is untouched.
pub fn scatter<T: Scalar, I: Index>(x: SpVec<'_, T, I>, y: &mut [T]) -> Result<(), DimError> {
    check_dense("y", x.dim(), y.len())?;
    for (i, v) in x.iter() {
        y[i] = v;
    }
    Ok(())
}
