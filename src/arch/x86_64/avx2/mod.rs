//! The `avx2` width of each primitive family (thesis chapter 4).

use core::arch::x86_64::*;

/// This width's registers of `T`: the type each family's vector trait (`ScanVec`, ...)
/// is implemented for, so that the generic kernels in `arch::generic` can be
/// instantiated per (width, element type).
pub(crate) struct Avx2<T>(core::marker::PhantomData<T>);

/// All-ones in the lowest `n` of 8 32-bit lanes (`n` clamped to 8): the lane mask of
/// `vpmaskmov` loads and stores and of the masked gathers (sort, SpMV tails).
///
/// # Safety
/// AVX2 is enabled.
#[inline(always)]
unsafe fn mask32x8(n: usize) -> __m256i {
    // SAFETY: register operations only; the caller promises AVX2.
    unsafe {
        _mm256_cmpgt_epi32(_mm256_set1_epi32(n.min(8) as i32), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
    }
}

/// All-ones in the lowest `n` of 4 64-bit lanes (`n` clamped to 4), as [`mask32x8`].
///
/// # Safety
/// AVX2 is enabled.
#[inline(always)]
unsafe fn mask64(n: usize) -> __m256i {
    // SAFETY: register operations only; the caller promises AVX2.
    unsafe { _mm256_cmpgt_epi64(_mm256_set1_epi64x(n.min(4) as i64), _mm256_setr_epi64x(0, 1, 2, 3)) }
}

/// All-ones in the lowest `n` of 4 32-bit lanes (`n` clamped to 4), as [`mask32x8`].
///
/// # Safety
/// SSE2 is enabled (every x86-64 CPU).
#[inline(always)]
unsafe fn mask32x4(n: usize) -> __m128i {
    // SAFETY: register operations only.
    unsafe { _mm_cmpgt_epi32(_mm_set1_epi32(n.min(4) as i32), _mm_setr_epi32(0, 1, 2, 3)) }
}

pub(crate) mod dia;
pub(crate) mod heap;
pub(crate) mod merge;
pub(crate) mod scan;
pub(crate) mod scatter;
pub(crate) mod sort;
pub(crate) mod spmm;
pub(crate) mod spmv_csr;
pub(crate) mod spmv_csr5;
pub(crate) mod transpose;
