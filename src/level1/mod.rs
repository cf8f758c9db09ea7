//! Level 1: sparse vector operations (thesis chapter 7).
//!
//! - [`SpVec`] — a validated, borrowed sparse vector (a canonical CSR row: indices
//!   strictly increasing, below the dimension); [`SpVecOwned`] with `alloc`.
//! - **Sparse + sparse addition** (7.3–7.4), the operation SpGEMM (chapter 9) is built
//!   from: [`add`](fn@add) for `x + y`, [`add_scaled`] for
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
//! - the SPA wins every dense output (inputs at least a quarter full, `n <= 4 m`: one
//!   pass over `n / 64` marker words costs less than the merge's step per entry), up
//!   to 100K entries, and anything in a space of at most 64 positions;
//! - the bitonic ESC, sorted, summed and compressed in registers on AVX-512 for
//!   `m <= 32`, wins short vectors in a large space, where each step of the merge
//!   waits on the one before: near `m = 32` on the machine of the table below, from
//!   `m = 8` on others;
//! - the merge (branch-free, four interleaved merge path chains) wins the rest: sparse
//!   outputs in large spaces;
//! - the heap wins nowhere (`O(m log m)` against the merge's `O(m)`: 1.5–23x slower).
//!
//! [`AddRule::DEFAULT`], behind [`AddMethod::choose`], encodes that;
//! [`AddRule::tune`] refits its thresholds on the machine at hand.
//!
//! Measured with `benches/level1.rs`:
//! `cargo bench --bench level1 -- --warm-up-time 0.3 --measurement-time 0.6`, f64
//! values, u32 indices, AVX-512, each input about `nnz` random entries in dimension
//! `n = 2 nnz` / `4 nnz` / `32 nnz` / `2^20`, calls rotating among `2^17 / nnz`
//! distinct input pairs (at most 16K) so that the branch predictor cannot learn them
//! (the bench's docs say why; earlier tables here rotated among 64 pairs and
//! measured the SPA up to 4x too fast). Medians of 20 samples in ns, the fastest method
//! in bold, heap and ESC only up to 8K; `auto` is the default rule and `tuned` the rule
//! `AddRule::tune` fitted at the start of the run (here: the default), both asked per
//! call; `/ best` over the fastest method. The 2-core AMD EPYC development VM:
//!
//! | n | nnz | spa | heap | bitonic ESC | merge | auto | tuned | auto / best | tuned / best |
//! |---|---|---|---|---|---|---|---|---|---|
//! | 2 nnz | 2 | **27** | 55 | 60 | 33 | 27 | 28 | 1.02 | 1.03 |
//! | 2 nnz | 8 | **47** | 244 | 74 | 55 | 48 | 48 | 1.01 | 1.01 |
//! | 2 nnz | 16 | **68** | 568 | 127 | 81 | 68 | 68 | 1.01 | 1.01 |
//! | 2 nnz | 32 | **109** | 1408 | 227 | 156 | 108 | 108 | 0.99 | 1.00 |
//! | 2 nnz | 128 | **418** | 6452 | 1006 | 552 | 425 | 426 | 1.02 | 1.02 |
//! | 2 nnz | 512 | **1602** | 30812 | 5255 | 1871 | 1587 | 1682 | 0.99 | 1.05 |
//! | 2 nnz | 2K | **6419** | 133170 | 29345 | 7288 | 6468 | 6477 | 1.01 | 1.01 |
//! | 2 nnz | 8K | **25825** | 649240 | 176570 | 28205 | 26015 | 25664 | 1.01 | 0.99 |
//! | 2 nnz | 32K | **103490** |  |  | 116420 | 103800 | 103100 | 1.00 | 1.00 |
//! | 2 nnz | 100K | **321070** |  |  | 343000 | 321090 | 319380 | 1.00 | 0.99 |
//! | 4 nnz | 2 | **29** | 61 | 60 | 35 | 29 | 29 | 1.01 | 1.02 |
//! | 4 nnz | 8 | **50** | 247 | 76 | 60 | 50 | 51 | 1.02 | 1.02 |
//! | 4 nnz | 16 | **72** | 583 | 132 | 91 | 72 | 72 | 1.00 | 1.00 |
//! | 4 nnz | 32 | **136** | 1502 | 236 | 179 | 138 | 138 | 1.01 | 1.01 |
//! | 4 nnz | 128 | **525** | 6513 | 1076 | 599 | 521 | 517 | 0.99 | 0.98 |
//! | 4 nnz | 512 | **1976** | 34639 | 5701 | 2154 | 1965 | 1965 | 0.99 | 0.99 |
//! | 4 nnz | 2K | **7897** | 137060 | 31098 | 8565 | 8018 | 7865 | 1.02 | 1.00 |
//! | 4 nnz | 8K | **31586** | 653320 | 171290 | 32643 | 31822 | 31597 | 1.01 | 1.00 |
//! | 4 nnz | 32K | **127430** |  |  | 135050 | 127530 | 126870 | 1.00 | 1.00 |
//! | 4 nnz | 100K | **386170** |  |  | 398330 | 385150 | 381150 | 1.00 | 0.99 |
//! | 32 nnz | 2 | **19** | 45 | 59 | 30 | 19 | 19 | 1.01 | 1.02 |
//! | 32 nnz | 8 | 91 | 209 | 60 | **57** | 60 | 61 | 1.05 | 1.06 |
//! | 32 nnz | 16 | 201 | 521 | **76** | 92 | 78 | 79 | 1.02 | 1.03 |
//! | 32 nnz | 32 | 400 | 1362 | 197 | **175** | 177 | 180 | 1.01 | 1.03 |
//! | 32 nnz | 128 | 1605 | 6214 | 936 | **566** | 568 | 571 | 1.00 | 1.01 |
//! | 32 nnz | 512 | 6230 | 32377 | 5122 | **2412** | 2415 | 2426 | 1.00 | 1.01 |
//! | 32 nnz | 2K | 25316 | 132750 | 26535 | **9337** | 9292 | 9293 | 1.00 | 1.00 |
//! | 32 nnz | 8K | 102250 | 645800 | 142790 | **36490** | 36006 | 35846 | 0.99 | 0.98 |
//! | 32 nnz | 32K | 404910 |  |  | **152470** | 149710 | 161820 | 0.98 | 1.06 |
//! | 32 nnz | 100K | 1543900 |  |  | **450280** | 442330 | 443070 | 0.98 | 0.98 |
//! | 2^20 | 2 | 2992 | 45 | 58 | **31** | 32 | 32 | 1.01 | 1.02 |
//! | 2^20 | 4 | 3948 | 84 | 60 | **39** | 40 | 41 | 1.01 | 1.03 |
//! | 2^20 | 6 | 4385 | 134 | 60 | **48** | 48 | 49 | 1.01 | 1.02 |
//! | 2^20 | 8 | 4693 | 219 | 60 | **57** | 62 | 63 | 1.09 | 1.11 |
//! | 2^20 | 12 | 4995 | 383 | **75** | 76 | 72 | 72 | 0.96 | 0.96 |
//! | 2^20 | 16 | 5057 | 537 | **77** | 92 | 73 | 76 | 0.96 | 0.99 |
//! | 2^20 | 32 | 5790 | 1366 | **187** | 194 | 190 | 198 | 1.02 | 1.05 |
//! | 2^20 | 128 | 8139 | 6298 | 898 | **677** | 688 | 695 | 1.02 | 1.03 |
//! | 2^20 | 512 | 14798 | 31021 | 4779 | **2284** | 2340 | 2382 | 1.02 | 1.04 |
//! | 2^20 | 2K | 44686 | 137430 | 28929 | **9291** | 9303 | 9340 | 1.00 | 1.01 |
//! | 2^20 | 8K | 139680 | 634820 | 155910 | **36730** | 37337 | 36742 | 1.02 | 1.00 |
//!
//! Each method wins somewhere but the heap: the SPA 21 cells, the merge 16, the ESC 4.
//! The rule is within 10% of the fastest method in all 41 cells (worst 1.09 at
//! `2^20`/8, the ESC at 16 candidates against the merge); the run before, same build
//! but for `tune`'s scoring, gave 39 of 41 (1.10 and 1.17, both the ESC at 16
//! candidates, where it and the merge are within 15%). `tune` returned the default
//! here; its column is the same rule timed twice. On an Intel Xeon (one core,
//! same binary; a noisier machine, where the same method timed twice in one run
//! differed by up to 2x, so this counts the method the rule picks, timed in its own
//! column) the default is within 10% in 39 of 41 cells (`2^20`/6: the merge 1.30x the
//! ESC, which wins there from `m = 8`; `4 nnz`/100K: the SPA 1.10x the merge), and the
//! rule `AddRule::tune` fitted there (ESC from `m = 8`, SPA to `n = 2^16` and
//! `n <= 3 m`) in 40 (`4 nnz`/32K: the merge 1.26x the SPA).

pub(crate) mod add;
mod ops;
mod rule;
mod spvec;

#[cfg(feature = "alloc")]
pub use add::add_owned;
pub use add::{AddMethod, add, add_merge_partition, add_merge_piece, add_scaled, add_workspace_len};
pub(crate) use add::{esc_in_place, esc_words, heap_fuse_in_place, merge_scaled_slices};
pub use ops::{axpy, dot, dot_dense, gather, scatter};
pub use rule::AddRule;
pub use spvec::SpVec;
#[cfg(feature = "alloc")]
pub use spvec::SpVecOwned;
