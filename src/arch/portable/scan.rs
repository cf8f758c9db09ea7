//! The `portable` width of the scan family (thesis 4.3.2–4.4.4): plain sequential Rust
//! in the order of the thesis's serial algorithms. Scans follow Alg. 6–9, the segmented
//! scan Alg. 11's result, the segmented sum Alg. 12's result (summed from the tail of each
//! segment backwards), the fast segmented sum Alg. 13. Only `reduce` departs from Alg. 3:
//! it keeps eight partial sums (the top level of Alg. 4's tree) so that the compiler can
//! vectorise it. The names are the SIMD widths' entry points' (`generic::scan_entries`).

use crate::arch::generic::scan::{
    Elem, FlagMask, InOut, exclusive_tail, inclusive_tail, seg_offset_tail, seg_scan_tail, seg_sum_tail,
};

/// Sum of `v` (thesis Alg. 3) in eight interleaved partial sums, combined pairwise; `0`
/// when empty.
#[inline]
pub(crate) fn reduce<T: Elem>(v: &[T]) -> T {
    let mut acc = [T::ZERO; 8];
    let mut chunks = v.chunks_exact(8);
    for c in &mut chunks {
        for (a, &x) in acc.iter_mut().zip(c) {
            *a = a.add(x);
        }
    }
    for (a, &x) in acc.iter_mut().zip(chunks.remainder()) {
        *a = a.add(x);
    }
    let [a0, a1, a2, a3, a4, a5, a6, a7] = acc;
    a0.add(a4).add(a1.add(a5)).add(a2.add(a6).add(a3.add(a7)))
}

/// Inclusive scan (Alg. 6/7).
#[inline]
pub(crate) fn inclusive<T: Elem>(io: InOut<'_, T>) {
    // SAFETY: `InOut` holds pointers valid for `len()` elements, equal or disjoint.
    unsafe { inclusive_tail(io.src(), io.dst(), 0, io.len(), T::IDENTITY) };
}

/// Exclusive scan (Alg. 8/9); returns the total.
#[inline]
pub(crate) fn exclusive<T: Elem>(io: InOut<'_, T>) -> T {
    // SAFETY: as in `inclusive`.
    unsafe { exclusive_tail(io.src(), io.dst(), 0, io.len(), T::ZERO) }
}

/// Segmented scan, inclusive or exclusive (`EXCL`, Alg. 11's result); position 0
/// always starts a segment.
#[inline]
pub(crate) fn seg_scan<T: Elem, F: FlagMask, const EXCL: bool>(io: InOut<'_, T>, flags: F) {
    // SAFETY: as in `inclusive`.
    unsafe { seg_scan_tail::<T, F, EXCL>(io.src(), io.dst(), 0, io.len(), flags, T::IDENTITY) };
}

/// Segmented sum (Alg. 12's result); position 0 always starts a segment.
#[inline]
pub(crate) fn seg_sum<T: Elem, F: FlagMask>(io: InOut<'_, T>, flags: F) {
    // SAFETY: as in `inclusive`.
    unsafe { seg_sum_tail(io.src(), io.dst(), 0, io.len(), flags, T::IDENTITY) };
}

/// Fast segmented sum with `seg_offset` (Alg. 13), out of place.
#[inline]
pub(crate) fn seg_offset_sum<T: Elem>(src: &[T], seg_offset: &[u32], dst: &mut [T]) {
    let n = src.len().min(seg_offset.len()).min(dst.len());
    let (src, seg_offset, dst) = (&src[..n], &seg_offset[..n], &mut dst[..n]);
    // SAFETY: three slices of length `n`; `dst` is a `&mut`, so it overlaps neither.
    unsafe {
        inclusive_tail(src.as_ptr(), dst.as_mut_ptr(), 0, n, T::IDENTITY);
        seg_offset_tail(src.as_ptr(), seg_offset.as_ptr(), dst.as_mut_ptr(), 0, n, n);
    }
}
