//! Cache hints: prefetches, for the irregular reads of the level-3 row loops (the rows of
//! `B` that coming rows of `A` reference), the CSR5 tile transposition and the SpMV
//! streams of `vals` and `col_idx` (CSR5 tiles, short CSR rows), and the store
//! fence that ends a run of non-temporal stores.

/// How far ahead, in entries, the SpMV loops that stream `vals` and `col_idx` prefetch
/// them: the CSR5 tile loop (4 KiB of `f64` values: two AVX-512 tiles of 8 × 32, 2 KiB
/// of `f32`) and the CSR row loop's short rows. Far enough that a line arrives before the
/// loop does, near enough that it is not evicted first: shorter distances gave back part
/// of the gain, longer ones lost on irregular matrices
/// (`benches/records/kernel-notes-2026-11.md`, "Stream prefetch distance").
pub(crate) const PF_AHEAD: usize = 512;

/// How far ahead, in entries, the CSR5 tile loop prefetches `x` at the columns it will
/// gather (where [`Lanes::PREFETCH_X`](crate::arch::generic::spmv_csr5::Lanes::PREFETCH_X)
/// asks): far enough to hide a miss, short enough that the lines it brings in do not push
/// out of L1 the ones still to be read (`benches/records/kernel-notes-2026-11.md`, "x
/// prefetch distance").
pub(crate) const PF_X_AHEAD: usize = 64;

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

/// [`prefetch`] for every 64-byte line step of `slice[from..from + n]`: entries `from`,
/// `from + 64 / size_of::<T>()`, .., the stretch cut at the slice's end once, so each
/// line costs one hint and one compare (a row of the CSR loop, a stencil block), where a
/// bounds test per hint on top of the loop's own slowed the rows of `poisson3d_27` on both
/// widths (`examples/suite.rs --only spmv`).
#[inline(always)]
pub(crate) fn prefetch_span<T>(slice: &[T], from: usize, n: usize) {
    let end = from.saturating_add(n).min(slice.len());
    let step = (64 / core::mem::size_of::<T>().max(1)).max(1);
    let mut k = from;
    while k < end {
        prefetch(slice, k);
        k += step;
    }
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
