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
//! scratchpad memory. On one CPU core it comes out differently: the SPA, whose dense
//! scratch stays in L1 for short outputs, wins for up to `m = 256` candidates in
//! dimensions up to 1024 (and loses 2x at `m = 256`, `n = 4096`); the merge (branch-free, four interleaved merge path chains) wins
//! everything longer or sparser; the heap and the sorting network win nowhere (2x the
//! SPA at `m = 4`, 10x and 3x the merge at `m = 256`). [`AddMethod::choose`] encodes
//! that. Measured with `benches/level1.rs`:
//! `cargo bench --bench level1 -- --warm-up-time 0.5 --measurement-time 1`, f64 values,
//! u32 indices, `AddMethod::ALL` on AVX-512 (x86-64, 2 shared cores), each input about
//! `nnz` random entries in dimension `n = 2 nnz` / `4 nnz` / `32 nnz`; fastest of 20
//! samples (the medians were noisy on the shared machine), in ns, heap and ESC only
//! up to 8K:
//!
//! | n | nnz | spa | heap | bitonic ESC | merge | choose |
//! |---|---|---|---|---|---|---|
//! | 2 nnz | 2 | **28** | 54 | 56 | 31 | spa |
//! | 2 nnz | 8 | **43** | 226 | 62¹ | 69 | spa |
//! | 2 nnz | 32 | **121** | 1459 | 389 | 236 | spa |
//! | 2 nnz | 128 | **746** | 7624 | 1958 | 747 | spa |
//! | 2 nnz | 512 | 4840 | 36605 | 11239 | **2864** | merge |
//! | 2 nnz | 2K | 19118 | 162471 | 62689 | **11688** | merge |
//! | 2 nnz | 8K | 80291 | 771610 | 385302 | **46129** | merge |
//! | 2 nnz | 32K | 366387 | | | **192820** | merge |
//! | 2 nnz | 100K | 1109515 | | | **589894** | merge |
//! | 4 nnz | 2 | **27** | 51 | 53 | 32 | spa |
//! | 4 nnz | 8 | **43** | 220 | 57¹ | 74 | spa |
//! | 4 nnz | 32 | **124** | 1447 | 403 | 254 | spa |
//! | 4 nnz | 128 | **557** | 7502 | 2059 | 925 | spa |
//! | 4 nnz | 512 | 4032 | 36633 | 10732 | **3431** | merge |
//! | 4 nnz | 2K | 17373 | 158851 | 84185 | **13447** | merge |
//! | 4 nnz | 8K | 73651 | 727323 | 385740 | **53619** | merge |
//! | 4 nnz | 32K | 324449 | | | **226004** | merge |
//! | 4 nnz | 100K | 1028336 | | | **673605** | merge |
//! | 32 nnz | 2 | **23** | 51 | 51 | 30 | spa |
//! | 32 nnz | 8 | **48** | 227 | 59¹ | 80 | spa |
//! | 32 nnz | 32 | **148** | 1585 | 408 | 287 | spa |
//! | 32 nnz | 128 | 1777 | 7407 | 2148 | **928** | merge |
//! | 32 nnz | 512 | 8055 | 36096 | 11054 | **3726** | merge |
//! | 32 nnz | 2K | 33658 | 168329 | 61547 | **14987** | merge |
//! | 32 nnz | 8K | 141632 | 712417 | 398511 | **60149** | merge |
//! | 32 nnz | 32K | 619263 | | | **245952** | merge |
//! | 32 nnz | 100K | 1913580 | | | **733810** | merge |
//!
//! The rule picks the fastest method in every row (at `2 nnz`/128 the SPA and the merge
//! tie). `m` is about `2 nnz`.
//!
//! ¹ Since measured again (same command): on AVX-512 an ESC of `m <= 32` candidates runs
//! in registers (`arch::portable::esc`, the kernel of SpGEMM's short rows), 2x faster
//! than the in-memory network at `m = 16` (57–62 ns against 113–120) but still behind
//! the SPA (33 ns) at every length; at `m = 4` it is no faster (49–53 ns: the sort's
//! dependency chain and the vector reloads of the candidates cost about the same).

mod add;
mod ops;
mod spvec;

#[cfg(feature = "alloc")]
pub use add::add_owned;
pub use add::{
    AddMethod, MERGE_PIECE, add, add_isa, add_merge_partition, add_merge_piece, add_scaled, add_scaled_isa,
    add_workspace_len,
};
pub(crate) use add::{esc_in_place, esc_words, heap_fuse_in_place, merge_scaled_slices};
pub use ops::{axpy, dot, dot_dense, gather, scatter};
pub use spvec::SpVec;
#[cfg(feature = "alloc")]
pub use spvec::SpVecOwned;
