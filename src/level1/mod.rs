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
//!   waits on the one before: from `m` between 8 and 32, depending on the machine;
//! - the merge (branch-free, four interleaved merge path chains) wins the rest: sparse
//!   outputs in large spaces;
//! - the heap wins nowhere (`O(m log m)` against the merge's `O(m)`).
//!
//! [`AddRule::DEFAULT`], behind [`AddMethod::choose`], encodes that;
//! [`AddRule::tune`] refits its thresholds on the machine at hand. The numbers behind it:
//! `cargo bench --bench level1`, with inputs rotating among enough distinct pairs that
//! the branch predictor cannot learn them (the bench's docs say why); tables of two
//! machines in `benches/records/kernel-notes-2026-11.md`, "Sparse vector addition
//! methods".

pub(crate) mod add;
mod ops;
mod rule;
mod spvec;

#[cfg(feature = "alloc")]
pub use add::add_owned;
pub use add::{AddMethod, add, add_merge_partition, add_merge_piece, add_scaled, add_workspace_len};
pub(crate) use add::{esc_in_place, esc_words, heap_fuse_in_place, merge_scaled_slices, words_out};
pub use ops::{axpy, dot, dot_dense, gather, scatter};
pub use rule::AddRule;
pub use spvec::SpVec;
#[cfg(feature = "alloc")]
pub use spvec::SpVecOwned;
