//! Thesis chapter 4 primitives per `Isa` and size (criterion), each against a baseline
//! measured in the same run: scan and segmented sum against a `memcpy` of the same bytes,
//! sorts against `sort_unstable`, merges against a serial merge, k-selection against
//! `select_nth_unstable`.
//!
//! `cargo bench --bench primitives` (all), `cargo bench --bench primitives -- scan` (one
//! family).

use criterion::{criterion_group, criterion_main};

#[path = "primitives/heap.rs"]
mod heap;
#[path = "primitives/merge.rs"]
mod merge;
#[path = "primitives/scan.rs"]
mod scan;
#[path = "primitives/sort.rs"]
mod sort;

criterion_group! {
    name = benches;
    config = criterion::Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(1));
    targets = scan::bench, sort::bench, merge::bench, heap::bench
}
criterion_main!(benches);
