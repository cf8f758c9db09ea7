//! Level 1: sparse vector operations (thesis chapter 7).
//!
//! - [`SpVec`] — a validated, borrowed sparse vector (a canonical CSR row: indices
//!   strictly increasing, below the dimension); [`SpVecOwned`] with `alloc`.
//! - **Sparse + sparse addition** (7.3–7.4), the operation SpGEMM (chapter 9) is built
//!   from: [`add`] / [`add_isa`] for `x + y`, [`add_scaled`] / [`add_scaled_isa`] for
//!   `alpha * x + beta * y`, by one of four [`AddMethod`]s — sparse accumulator,
//!   heap, bitonic ESC, merge — into caller buffers of the upper-bound length
//!   `nnz(x) + nnz(y)`, with the workspace [`add_workspace_len`] asks for.
//!   [`AddMethod::choose`] picks the method from the upper bound, as the thesis does.
//!   [`add_merge_partition`] and [`add_merge_piece`] expose the merge method's
//!   independent pieces to a runtime.
//! - [`dot_dense`], [`dot`] (sparse · sparse by merge), [`axpy`] (into dense),
//!   [`gather`], [`scatter`].
//!
//! Explicit zeros are entries: an addition keeps every index of either input, even
//! where the values cancel. Errors ([`crate::DimError`]) are returned before anything
//! is written; no function here allocates (but [`add_owned`]) or panics.
//!
//! # Choosing the addition method
//!
//! The thesis maps short outputs to the heap method, medium ones to bitonic ESC and
//! long ones to merge (7.2 and the SpGEMM bins of 9.4.2); on a GPU the first two run in
//! scratchpad memory. On one CPU core it comes out differently:
//!
//! - the SPA, whose dense scratch stays in L1 for short outputs, wins for up to about
//!   `m = 256` candidates in dimensions up to 1024;
//! - the bitonic ESC, sorted, summed and compressed in registers on AVX-512 for
//!   `m <= 32`, wins for short vectors in a large space (`m` about 16–24 at
//!   `n = 2^20`: 58–82 ns against the merge's 69–116), where the SPA would scan its
//!   markers across the span and each step of the merge waits on the one before;
//! - the merge (branch-free, four interleaved merge path chains) wins everything else;
//! - the heap wins nowhere (1.6x the merge at `m = 4`, 3x the ESC at `m = 16`).
//!
//! [`AddMethod::choose_isa`] encodes that. Measured with `benches/level1.rs`:
//! `cargo bench --bench level1 -- --warm-up-time 0.3 --measurement-time 1`, f64 values,
//! u32 indices, `AddMethod::ALL` and the rule (`auto`, asked per call) on AVX-512 (the
//! 2-core development VM, Xeon), each input about `nnz` random entries in dimension
//! `n = 2 nnz` / `4 nnz` / `32 nnz` / `2^20`; medians of 20 samples in ns, the fastest
//! method in bold, heap and ESC only up to 8K; `auto / best` over the fastest method:
//!
//! | n | nnz | spa | heap | bitonic ESC | merge | auto | auto / best |
//! |---|---|---|---|---|---|---|---|
//! | 2 nnz | 2 | **21** | 38 | 57 | 23 | 23 | 1.07 |
//! | 2 nnz | 8 | **33** | 171 | 67 | 53 | 33 | 1.01 |
//! | 2 nnz | 16 | **53** | 433 | 154 | 117 | 54 | 1.02 |
//! | 2 nnz | 32 | **101** | 1066 | 320 | 186 | 100 | 0.99 |
//! | 2 nnz | 128 | **549** | 5502 | 1608 | 551 | 549 | 1.00 |
//! | 2 nnz | 512 | 3070 | 26321 | 8828 | **2194** | 2175 | 0.99 |
//! | 2 nnz | 2K | 13487 | 113830 | 45723 | **8926** | 8863 | 0.99 |
//! | 2 nnz | 8K | 55083 | 548300 | 274130 | **35397** | 35912 | 1.01 |
//! | 2 nnz | 32K | 223090 |  |  | **143150** | 144630 | 1.01 |
//! | 2 nnz | 100K | 711630 |  |  | **440240** | 443750 | 1.01 |
//! | 4 nnz | 2 | **20** | 35 | 55 | 21 | 21 | 1.03 |
//! | 4 nnz | 8 | **32** | 164 | 64 | 57 | 33 | 1.05 |
//! | 4 nnz | 16 | **57** | 417 | 134 | 122 | 58 | 1.02 |
//! | 4 nnz | 32 | **109** | 1099 | 335 | 205 | 114 | 1.05 |
//! | 4 nnz | 128 | **466** | 5604 | 1645 | 663 | 469 | 1.01 |
//! | 4 nnz | 512 | 2768 | 26505 | 9132 | **2676** | 2618 | 0.98 |
//! | 4 nnz | 2K | 12056 | 114450 | 47455 | **10322** | 10388 | 1.01 |
//! | 4 nnz | 8K | 49290 | 548140 | 278650 | **41081** | 41077 | 1.00 |
//! | 4 nnz | 32K | 203990 |  |  | **164780** | 164300 | 1.00 |
//! | 4 nnz | 100K | 709550 |  |  | **505100** | 500520 | 0.99 |
//! | 32 nnz | 2 | **20** | 36 | 53 | 22 | 20 | 1.03 |
//! | 32 nnz | 8 | **36** | 169 | 64 | 62 | 38 | 1.04 |
//! | 32 nnz | 16 | **63** | 438 | 143 | 142 | 65 | 1.03 |
//! | 32 nnz | 32 | **124** | 1140 | 341 | 227 | 124 | 1.00 |
//! | 32 nnz | 128 | 1292 | 5419 | 1613 | **746** | 708 | 0.95 |
//! | 32 nnz | 512 | 5628 | 26299 | 9275 | **2946** | 2944 | 1.00 |
//! | 32 nnz | 2K | 24156 | 114310 | 49870 | **11752** | 11673 | 0.99 |
//! | 32 nnz | 8K | 98873 | 562340 | 284340 | **46508** | 47585 | 1.02 |
//! | 32 nnz | 32K | 591120 |  |  | **185840** | 186110 | 1.00 |
//! | 32 nnz | 100K | 1807800 |  |  | **569020** | 585850 | 1.03 |
//! | 2^20 | 2 | 2988 | 40 | 47 | **25** | 25 | 1.00 |
//! | 2^20 | 4 | 4243 | 72 | 51 | **38** | 39 | 1.01 |
//! | 2^20 | 6 | 4795 | 118 | **53** | 54 | 54 | 1.01 |
//! | 2^20 | 8 | 5201 | 190 | **58** | 69 | 63 | 1.09 |
//! | 2^20 | 12 | 5515 | 348 | **82** | 116 | 79 | 0.95 |
//! | 2^20 | 16 | 5711 | 484 | 181 | **146** | 133 | 0.91 |
//! | 2^20 | 32 | 6343 | 1185 | 359 | **225** | 228 | 1.01 |
//! | 2^20 | 128 | 9410 | 5800 | 1756 | **769** | 765 | 0.99 |
//! | 2^20 | 512 | 19684 | 26658 | 10356 | **2895** | 2857 | 0.99 |
//! | 2^20 | 2K | 52083 | 113450 | 50198 | **11655** | 11564 | 0.99 |
//! | 2^20 | 8K | 139890 | 562760 | 268360 | **47198** | 47131 | 1.00 |
//!
//! `m` is about `2 nnz`. Where the rule is below 1, the inputs of one size straddle a
//! threshold and it picks per call. Each method wins somewhere but the heap; the rule
//! is within 10% of the fastest method everywhere (repeated runs put `2^20`/8 at
//! 1.02–1.09 and `2^20`/4 at 1.01–1.08).
//!
//! On an AMD EPYC VM (AVX-512, same command with `--measurement-time 0.6`) the
//! crossovers move: the SPA stays ahead in larger spaces (`32 nnz`/128, `n` = 4096: 345
//! ns against the merge's 607, where the Xeon VM measured 1292 against 746; `4 nnz`/512
//! and `2 nnz`/512: 1.2x ahead), and the merge leads the register ESC at every length
//! at `2^20` (26–92 ns against 60–132). There the rule is within 10% in 37 of 41 cells
//! and 1.75x the SPA in the worst (`32 nnz`/128). The two machines disagree on the same
//! cells, so no fixed threshold serves both.

mod add;
mod ops;
mod rule;
mod spvec;

#[cfg(feature = "alloc")]
pub use add::add_owned;
pub use add::{
    AddMethod, MERGE_PIECE, add, add_isa, add_merge_partition, add_merge_piece, add_scaled, add_scaled_isa,
    add_workspace_len,
};
pub(crate) use add::{esc_in_place, esc_words, heap_fuse_in_place, merge_scaled_slices};
pub use ops::{axpy, dot, dot_dense, gather, scatter};
pub use rule::AddRule;
pub use spvec::SpVec;
#[cfg(feature = "alloc")]
pub use spvec::SpVecOwned;
