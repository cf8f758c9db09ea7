//! AVX-512 block kernels of the CSR5 tile transposition
//! ([`crate::arch::generic::transpose`]): a `W × W` block of 32- or 64-bit entries, `W`
//! rows in `W` registers (zmm, or ymm/xmm through VL), transposed by `log2 W` rounds of
//! two-source permutes (`vpermt2d`/`vpermt2q`), each round swapping the off-diagonal
//! sub-blocks of one size.

use core::arch::x86_64::*;

use crate::arch::generic::transpose::tile_kernels;

/// The permute indices of the round that swaps `b × b` sub-blocks of a `w`-wide block:
/// `(lo, hi)` for the pair of rows `(i, i + b)`, where lane `c` of the new row `i` is lane
/// `c` of row `i` if `c & b == 0`, else lane `c - b` of row `i + b`; and of the new row
/// `i + b` lane `c + b` of row `i` if `c & b == 0`, else lane `c` of row `i + b`
/// (second-source lanes are numbered from `w`).
const fn round(w: usize, b: usize) -> ([i64; 16], [i64; 16]) {
    let (mut lo, mut hi) = ([0i64; 16], [0i64; 16]);
    let mut c = 0;
    while c < w {
        if c & b == 0 {
            lo[c] = c as i64;
            hi[c] = (c + b) as i64;
        } else {
            lo[c] = (w + c - b) as i64;
            hi[c] = (w + c) as i64;
        }
        c += 1;
    }
    (lo, hi)
}

/// The rounds of a `w`-wide block (`b = w/2, w/4, .., 1`), indices as `i32` lanes.
const fn rounds32<const W: usize>() -> [[[i32; 16]; 2]; 4] {
    let mut out = [[[0i32; 16]; 2]; 4];
    let (mut b, mut r) = (W / 2, 0);
    while b >= 1 {
        let (lo, hi) = round(W, b);
        let mut c = 0;
        while c < 16 {
            out[r][0][c] = lo[c] as i32;
            out[r][1][c] = hi[c] as i32;
            c += 1;
        }
        b /= 2;
        r += 1;
    }
    out
}

/// [`rounds32`] as `i64` lanes.
const fn rounds64<const W: usize>() -> [[[i64; 16]; 2]; 4] {
    let mut out = [[[0i64; 16]; 2]; 4];
    let (mut b, mut r) = (W / 2, 0);
    while b >= 1 {
        let (lo, hi) = round(W, b);
        out[r] = [lo, hi];
        b /= 2;
        r += 1;
    }
    out
}

macro_rules! kernel {
    ($name:ident, $x:ty, $lane:ty, $w:expr, $v:ty, $load:ident, $store:ident, $perm:ident, $idx:ident, $rounds:ident) => {
        /// Transposes the `W × W` block whose row `i` starts at `src + i * ss` into the
        /// one whose row `j` starts at `dst + j * ds` (the blocks of the tile kernels
        /// below).
        ///
        /// # Safety
        /// The CPU supports AVX-512 F, VL, BW and DQ; the `W` rows of `W` entries at
        /// `src` (stride `ss`) are readable, those at `dst` (stride `ds`) writable, and
        /// the two do not overlap.
        #[target_feature(enable = "avx512f,avx512vl,avx512bw,avx512dq")]
        #[inline]
        unsafe fn $name(src: *const $x, ss: usize, dst: *mut $x, ds: usize) {
            const W: usize = $w;
            const R: [[[$lane; 16]; 2]; 4] = $rounds::<W>();
            // SAFETY: the caller's promise: row `i < W` is `W` readable entries at
            // `src + i * ss`, row `j` `W` writable ones at `dst + j * ds`; the index
            // tables hold 16 lanes, at least `W`.
            unsafe {
                let mut r: [$v; W] = core::array::from_fn(|i| $load(src.add(i * ss).cast()));
                let mut b = W / 2;
                let mut k = 0;
                while b >= 1 {
                    let (lo, hi) = ($idx(R[k][0].as_ptr().cast()), $idx(R[k][1].as_ptr().cast()));
                    let mut i = 0;
                    while i < W {
                        if i & b == 0 {
                            let (x, y) = (r[i], r[i + b]);
                            r[i] = $perm(x, lo, y);
                            r[i + b] = $perm(x, hi, y);
                        }
                        i += 1;
                    }
                    b /= 2;
                    k += 1;
                }
                for (j, v) in r.iter().enumerate() {
                    $store(dst.add(j * ds).cast(), *v);
                }
            }
        }
    };
}

kernel!(
    t32x16,
    u32,
    i32,
    16,
    __m512i,
    _mm512_loadu_si512,
    _mm512_storeu_si512,
    _mm512_permutex2var_epi32,
    _mm512_loadu_si512,
    rounds32
);
kernel!(
    t32x8,
    u32,
    i32,
    8,
    __m256i,
    _mm256_loadu_si256,
    _mm256_storeu_si256,
    _mm256_permutex2var_epi32,
    _mm256_loadu_si256,
    rounds32
);
kernel!(
    t32x4,
    u32,
    i32,
    4,
    __m128i,
    _mm_loadu_si128,
    _mm_storeu_si128,
    _mm_permutex2var_epi32,
    _mm_loadu_si128,
    rounds32
);
kernel!(
    t64x8,
    u64,
    i64,
    8,
    __m512i,
    _mm512_loadu_si512,
    _mm512_storeu_si512,
    _mm512_permutex2var_epi64,
    _mm512_loadu_si512,
    rounds64
);
kernel!(
    t64x4,
    u64,
    i64,
    4,
    __m256i,
    _mm256_loadu_si256,
    _mm256_storeu_si256,
    _mm256_permutex2var_epi64,
    _mm256_loadu_si256,
    rounds64
);
kernel!(
    t64x2,
    u64,
    i64,
    2,
    __m128i,
    _mm_loadu_si128,
    _mm_storeu_si128,
    _mm_permutex2var_epi64,
    _mm_loadu_si128,
    rounds64
);

tile_kernels!("avx512f,avx512vl,avx512bw,avx512dq";
    u32: 4 => t32x4, 8 => t32x8, 16 => t32x16;
    u64: 2 => t64x2, 4 => t64x4, 8 => t64x8);
