//! Page hints for large owned outputs (feature `std`, Linux): transparent huge pages,
//! for SpGEMM outputs when the caller asks (`SpgemmConfig::huge_pages`).
//!
//! A fresh output array is mapped a page at a time on first touch: for a large SpGEMM
//! output (`poisson2d`'s 156 MB `A²`, 38,000 faults of 4 KiB pages) that can cost more
//! than the product's own arithmetic (`benches/records/kernel-notes-2026-11.md`, "Huge
//! pages for SpGEMM outputs"). Where the kernel runs transparent huge pages in `madvise`
//! mode (the default of most distributions), `MADV_HUGEPAGE` asks it to back the range
//! with 2 MiB pages instead: 512 times fewer faults. (On a virtual machine that reports
//! free 2 MiB blocks to its host the same pages can cost more, which is why the hint is
//! the caller's choice.)

/// Asks the kernel to back `v`'s allocation (its capacity, used or not) by transparent
/// huge pages. Only a hint: contents, addresses and validity stay as they are, a refusal
/// is ignored, and allocations under 8 MiB (four 2 MiB huge pages, the size on x86-64 and
/// on AArch64 with 4 KiB base pages) are not worth the system call. A no-op off
/// Linux, without `std`, and under Miri.
///
/// The range is the allocation widened to whole base pages, not narrowed to whole huge
/// pages: a narrower range splits the allocator's mapping in three, and `mremap` (how
/// glibc's `realloc` grows and shrinks a large block in place) refuses a range that spans
/// several mappings, so every later growth became a copy into fresh 4 KiB pages
/// (`benches/records/kernel-notes-2026-11.md`, "Huge pages for SpGEMM outputs").
/// Widened, the mapping stays one, keeps the hint as it grows, and the kernel puts huge
/// pages wherever 2 MiB-aligned stretches of it allow.
pub(crate) fn advise_huge<X>(v: &alloc::vec::Vec<X>) {
    #[cfg(not(all(feature = "std", target_os = "linux", not(miri))))]
    let _ = v;
    #[cfg(all(feature = "std", target_os = "linux", not(miri)))]
    {
        let bytes = v.capacity().saturating_mul(core::mem::size_of::<X>());
        if bytes < 8 << 20 {
            return;
        }
        // SAFETY: `sysconf` only reads a constant of the process.
        let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(0);
        if !page.is_power_of_two() {
            return;
        }
        let start = v.as_ptr() as usize;
        let lo = start & !(page - 1);
        let hi = start.saturating_add(bytes).saturating_add(page - 1) & !(page - 1);
        // SAFETY: `madvise(MADV_HUGEPAGE)` changes only how the kernel backs the pages of
        // `[lo, hi)`: the pages holding `v`'s live allocation (page-aligned, as madvise
        // requires; the first and last may hold the allocator's other memory too, whose
        // backing may change alike). It reads and writes no memory, moves no mapping and
        // keeps every byte's contents, so no Rust value anywhere can observe it. Its
        // result is ignored on purpose: a kernel without transparent huge pages refuses
        // the hint (EINVAL) and the pages stay small.
        unsafe {
            libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
        }
    }
}
