//! The C boundary: raw pointers and lengths from C turned into slices, and handles turned
//! into references. The only `unsafe` of this library; everything past these functions
//! is spblas's safe API.
//!
//! What can be checked is checked: a NULL pointer with a non-zero length, a pointer not
//! aligned to its element type, and a length whose bytes overflow `isize` are statuses,
//! never slices. What cannot be checked from here — that the memory behind a pointer is
//! really that long, initialised, and not written by another thread meanwhile — is the
//! caller's promise, stated once in the header's introduction.
#![allow(unsafe_code)]

use core::mem::size_of;

use crate::status::{ERR_MISALIGNED, ERR_NULL_POINTER, ERR_TOO_LARGE, Status};

/// Whether `len` elements of `T` at `p` could form a slice: `p` non-NULL (or `len == 0`),
/// aligned, and `len * size_of::<T>()` within `isize::MAX`.
fn check<T>(p: *const T, len: usize) -> Result<(), Status> {
    if len.checked_mul(size_of::<T>()).is_none_or(|b| b > isize::MAX as usize) {
        return Err(ERR_TOO_LARGE);
    }
    if p.is_null() {
        return if len == 0 { Ok(()) } else { Err(ERR_NULL_POINTER) };
    }
    if !p.is_aligned() {
        return Err(ERR_MISALIGNED);
    }
    Ok(())
}

/// `len` elements at `p` as a shared slice (empty for `len == 0`, whatever `p` is).
///
/// # Safety
/// Unless `p` is NULL or `len == 0`: `p` points to `len` initialised `T`s that nothing
/// writes for `'a`.
pub(crate) unsafe fn slice<'a, T>(p: *const T, len: usize) -> Result<&'a [T], Status> {
    check(p, len)?;
    if len == 0 {
        return Ok(&[]);
    }
    // SAFETY: `p` is non-NULL and aligned, `len * size_of::<T>() <= isize::MAX` (checked
    // above); the caller promises `len` initialised elements not written for `'a`.
    Ok(unsafe { core::slice::from_raw_parts(p, len) })
}

/// `len` elements at `p` as a mutable slice (empty for `len == 0`, whatever `p` is).
///
/// # Safety
/// Unless `p` is NULL or `len == 0`: `p` points to `len` initialised `T`s that nothing
/// else reads or writes for `'a`.
pub(crate) unsafe fn slice_mut<'a, T>(p: *mut T, len: usize) -> Result<&'a mut [T], Status> {
    check(p, len)?;
    if len == 0 {
        return Ok(&mut []);
    }
    // SAFETY: as in `slice`, and the caller promises exclusive access for `'a`.
    Ok(unsafe { core::slice::from_raw_parts_mut(p, len) })
}

/// A shared reference to the struct at `p`.
///
/// # Safety
/// Unless `p` is NULL: `p` points to an initialised `T` that nothing writes for `'a`.
pub(crate) unsafe fn borrow<'a, T>(p: *const T) -> Result<&'a T, Status> {
    check(p, 1)?;
    // SAFETY: non-NULL and aligned (checked); the caller promises a live `T`.
    Ok(unsafe { &*p })
}

/// An exclusive reference to the struct at `p`.
///
/// # Safety
/// Unless `p` is NULL: `p` points to an initialised `T` nothing else uses for `'a`.
pub(crate) unsafe fn borrow_mut<'a, T>(p: *mut T) -> Result<&'a mut T, Status> {
    check(p, 1)?;
    // SAFETY: non-NULL and aligned (checked); the caller promises exclusive access.
    Ok(unsafe { &mut *p })
}

#[cfg(feature = "std")]
pub(crate) use boxed::{from_handle, into_handle};

#[cfg(feature = "std")]
mod boxed {
    extern crate alloc;
    use alloc::boxed::Box;
    use alloc::vec::Vec;

    use crate::status::{ERR_OUT_OF_MEMORY, Status};

    /// `v` moved to the heap, as a raw handle for C. The memory is reserved fallibly, so a
    /// refused allocation is [`ERR_OUT_OF_MEMORY`] rather than an abort.
    pub(crate) fn into_handle<T>(v: T) -> Result<*mut T, Status> {
        let mut one = Vec::new();
        one.try_reserve_exact(1).map_err(|_| ERR_OUT_OF_MEMORY)?;
        one.push(v);
        let b: Box<[T]> = one.into_boxed_slice();
        Ok(Box::into_raw(b).cast::<T>())
    }

    /// Drops the value behind a handle from [`into_handle`]; NULL is accepted.
    ///
    /// # Safety
    /// `p` is NULL or came from [`into_handle`] and has not been passed here before.
    pub(crate) unsafe fn from_handle<T>(p: *mut T) {
        if p.is_null() {
            return;
        }
        // SAFETY: `p` came from `into_handle`: a boxed slice of one `T`, not yet freed.
        drop(unsafe { Box::from_raw(core::ptr::slice_from_raw_parts_mut(p, 1)) });
    }
}
