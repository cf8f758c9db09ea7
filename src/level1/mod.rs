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
//! scratchpad memory. On one CPU core the picture is different: the branch-free merge is
//! `O(m)` with a small constant and wins from a handful of entries on; the heap and the
//! sorting network only pay for the very shortest inputs; the SPA, whose cost is
//! `O(m + span / 64)`, beats the merge when the output is dense-ish. The rule
//! [`AddMethod::choose`] encodes was measured with `benches/level1.rs`
//! (`cargo bench --bench level1 -- --warm-up-time 0.5 --measurement-time 1`, f64 values,
//! u32 indices, random inputs with `nnz` entries each in dimension `4 nnz`, and a
//! dense-ish case in dimension `nnz`; medians in ns):
//!
//! (table: see [`AddMethod::choose`])

mod add;
mod ops;
mod spvec;

#[cfg(feature = "alloc")]
pub use add::add_owned;
pub use add::{
    AddMethod, MERGE_PIECE, add, add_isa, add_merge_partition, add_merge_piece, add_scaled, add_scaled_isa,
    add_workspace_len,
};
pub use ops::{axpy, dot, dot_dense, gather, scatter};
pub use spvec::SpVec;
#[cfg(feature = "alloc")]
pub use spvec::SpVecOwned;
