//! Cache hints: prefetches, for the irregular reads of the level-3 row loops (the rows of
//! `B` that coming rows of `A` reference) and the CSR5 tile transposition, and the store
//! fence that ends a run of non-temporal stores.

/// Asks for the cache line holding `slice[index]` ahead of its use. A hint: it reads
/// nothing a program can observe and never faults; an `index` past the end asks for
/// nothing. A no-op on the portable build and under Miri.
#[inline(always)]
pub(crate) fn prefetch<T>(slice: &[T], index: usize) {
    if index >= slice.len() {
        return;
    }
    let p = slice.as_ptr().wrapping_add(index);
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: `prefetcht0` is SSE, part of every x86-64 CPU; it is a hint that never
    // faults and reads nothing observable, and `p` points into `slice` anyway.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>())
    };
    #[cfg(all(target_arch = "aarch64", not(miri)))]
    // SAFETY: `prfm` is a hint of every AArch64 CPU: it never faults, writes nothing and
    // changes no flags; `p` points into `slice` anyway.
    unsafe {
        core::arch::asm!("prfm pldl1keep, [{0}]", in(reg) p, options(nostack, readonly, preserves_flags))
    };
    #[cfg(any(miri, not(any(target_arch = "x86_64", target_arch = "aarch64"))))]
    let _ = p;
}

/// Orders every non-temporal store this thread made before all its later memory
/// accesses (`sfence` on x86-64, which Rust requires after `_mm*_stream_*` before the
/// memory is accessed again). A no-op where no kernel stores non-temporally.
#[inline(always)]
pub(crate) fn store_fence() {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: `sfence` is SSE, part of every x86-64 CPU; it only orders stores.
    unsafe {
        core::arch::x86_64::_mm_sfence()
    };
}
