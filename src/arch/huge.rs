//! Transparent huge pages for large, freshly grown arrays (Linux with `std`).
//!
//! A new output array of many megabytes costs one page fault per 4 KiB page when it is
//! first written: on a short-row SpGEMM (`poisson2d` `A²`: 156 MB of output) the faults
//! were a third of the product. Advising the array's pages with `MADV_HUGEPAGE` (what
//! PyTorch's CPU allocator does for large blocks) lets the kernel back it with 2 MiB
//! pages where its transparent huge pages are in `madvise` mode (`always` needs no
//! advice, `never` ignores it), one fault per 512 pages.
//!
//! The advice covers the pages the array's buffer lies in, rounded out to page
//! boundaries: for a large allocation (glibc `mmap`s those) that is exactly its own
//! mapping, so the allocator's `mremap` growth keeps working and carries the advice
//! along. It changes no contents and never faults; a refusal is ignored.

/// Arrays shorter than this (bytes) get no advice: a huge page would hold more than the
/// array itself, and smaller blocks come from the allocator's shared heap.
#[cfg(feature = "alloc")]
const MIN_BYTES: usize = 4 << 20;

/// Advises the pages of `v`'s buffer (its whole capacity) to be backed by huge pages.
/// A no-op below [`MIN_BYTES`], off Linux, without `std`, and under Miri.
#[cfg(feature = "alloc")]
#[inline]
pub(crate) fn advise_huge<T>(v: &alloc::vec::Vec<T>) {
    let bytes = v.capacity().saturating_mul(core::mem::size_of::<T>());
    #[cfg(all(feature = "std", target_os = "linux", not(miri)))]
    if bytes >= MIN_BYTES {
        // SAFETY: `sysconf` reads a constant of the system.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if page > 0 && (page as usize).is_power_of_two() {
            let page = page as usize;
            let start = v.as_ptr() as usize & !(page - 1);
            let end = (v.as_ptr() as usize).saturating_add(bytes).saturating_add(page - 1) & !(page - 1);
            // SAFETY: `madvise(MADV_HUGEPAGE)` is a hint on `[start, end)`, pages mapped
            // for `v`'s buffer (rounded out to whole pages, which are mapped with it): it
            // reads and writes no memory of the process, changes no contents, and fails
            // harmlessly (EINVAL, ENOMEM) where it does not apply; its result is
            // deliberately ignored.
            unsafe {
                let _ = libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(all(feature = "std", target_os = "linux", not(miri))))]
    let _ = (bytes, MIN_BYTES);
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;

    /// The advice changes nothing a program can see: contents stay, growth and writes
    /// after it work (on Linux the pages may now be huge).
    #[test]
    fn advice_keeps_contents_and_growth() {
        let n = if cfg!(miri) { 1 << 10 } else { (MIN_BYTES / 8) * 3 };
        let mut v: alloc::vec::Vec<u64> = (0..n as u64).collect();
        advise_huge(&v);
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u64));
        v.reserve(n);
        advise_huge(&v);
        v.extend(n as u64..2 * n as u64);
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u64));
        let empty: alloc::vec::Vec<u64> = alloc::vec::Vec::new();
        advise_huge(&empty);
    }
}
