//! d-heaps and k-selection (thesis 4.6) on every available `Isa`, each against std in the
//! same group:
//! - `heap/k_select/{u32,u64}`: the k smallest of 1M random keys (k = 16, 256, 4096) by
//!   the heap scan, against `select_nth_unstable` (on a fresh copy each iteration; the
//!   copy is setup, not timed);
//! - `heap/push_pop/{u32,u64}`: n pushes then n pops (n = 64K, 1M) against
//!   `std::collections::BinaryHeap` (capacity reserved outside the timing); the d-heaps
//!   start at `aligned_offset` (child groups cache-aligned), as in every heap bench;
//! - `heap/heapify_pop/{u32,u64,f32,f64}`: heapify n keys, then n pops (heap sort), where the
//!   SIMD find-max-child does all the work, against `BinaryHeap::from` + `pop` (the input
//!   copy is setup, not timed; no `BinaryHeap` for floats, which are not `Ord`).
//!
//! `cargo bench --bench primitives -- heap/`

use std::collections::BinaryHeap;
use std::hint::black_box;

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput};
use spblas::Exec;
use spblas::Isa;
use spblas::primitives::Key;
use spblas::primitives::heap::{self, DHeap, Max, aligned_offset};

fn random_u64(n: usize, seed: u64) -> Vec<u64> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect()
}

fn k_select<K: Key + Ord + Default>(c: &mut Criterion, name: &str, f: fn(u64) -> K) {
    let n = 1 << 20;
    let data: Vec<K> = random_u64(n, 7).into_iter().map(f).collect();
    let mut g = c.benchmark_group(format!("heap/k_select/{name}"));
    g.throughput(Throughput::Elements(n as u64));
    for k in [16usize, 256, 4096] {
        g.bench_function(BenchmarkId::new("select_nth_unstable", k), |b| {
            b.iter_batched_ref(
                || data.clone(),
                |d| {
                    d.select_nth_unstable(k - 1);
                },
                BatchSize::LargeInput,
            )
        });
        let mut out = vec![K::default(); k];
        for isa in Isa::available() {
            g.bench_function(BenchmarkId::new(isa.name(), k), |b| {
                b.iter(|| heap::k_select(Exec::from(isa), black_box(&data), k, black_box(&mut out)))
            });
        }
    }
    g.finish();
}

fn push_pop<K: Key + Ord + Default>(c: &mut Criterion, name: &str, f: fn(u64) -> K) {
    let mut g = c.benchmark_group(format!("heap/push_pop/{name}"));
    for n in [1usize << 16, 1 << 20] {
        let keys: Vec<K> = random_u64(n, 11).into_iter().map(f).collect();
        g.throughput(Throughput::Elements(n as u64));
        let mut std_heap = BinaryHeap::with_capacity(n);
        g.bench_function(BenchmarkId::new("BinaryHeap", n), |b| {
            b.iter(|| {
                for &k in &keys {
                    std_heap.push(k);
                }
                let mut s = K::default();
                while let Some(k) = std_heap.pop() {
                    s = k;
                }
                s
            })
        });
        let mut buf = vec![K::default(); n + 16];
        for isa in Isa::available() {
            g.bench_function(BenchmarkId::new(isa.name(), n), |b| {
                b.iter(|| {
                    let mut h = DHeap::<K, Max>::new_aligned(Exec::from(isa), &mut buf).unwrap();
                    for &k in &keys {
                        let _ = h.push(k);
                    }
                    let mut s = K::default();
                    while let Some(k) = h.pop() {
                        s = k;
                    }
                    s
                })
            });
        }
    }
    g.finish();
}

/// `heap/heapify_pop/{name}`; `std_heap` runs the `BinaryHeap` baseline (for `Ord` keys).
fn heapify_pop<K: Key + Default>(
    c: &mut Criterion,
    name: &str,
    f: fn(u64) -> K,
    std_heap: Option<fn(Vec<K>) -> K>,
) {
    let mut g = c.benchmark_group(format!("heap/heapify_pop/{name}"));
    for n in [1usize << 16, 1 << 20] {
        let keys: Vec<K> = random_u64(n, 13).into_iter().map(f).collect();
        g.throughput(Throughput::Elements(n as u64));
        if let Some(std_heap) = std_heap {
            g.bench_function(BenchmarkId::new("BinaryHeap", n), |b| {
                b.iter_batched(|| keys.clone(), std_heap, BatchSize::LargeInput)
            });
        }
        for isa in Isa::available() {
            g.bench_function(BenchmarkId::new(isa.name(), n), |b| {
                b.iter_batched_ref(
                    || {
                        let mut buf = vec![K::default(); n + 16];
                        let s = aligned_offset(isa, &buf);
                        buf[s..s + n].copy_from_slice(&keys);
                        (buf, s)
                    },
                    |(buf, s)| {
                        let mut h =
                            DHeap::<K, Max>::from_slice(Exec::from(isa), &mut buf[*s..*s + n]).unwrap();
                        let mut last = K::default();
                        while let Some(k) = h.pop() {
                            last = k;
                        }
                        last
                    },
                    BatchSize::LargeInput,
                )
            });
        }
    }
    g.finish();
}

/// `BinaryHeap::from` + n pops: the baseline of [`heapify_pop`].
fn std_heapify_pop<K: Ord + Default>(v: Vec<K>) -> K {
    let mut h = BinaryHeap::from(v);
    let mut last = K::default();
    while let Some(k) = h.pop() {
        last = k;
    }
    last
}

pub fn bench(c: &mut Criterion) {
    k_select::<u32>(c, "u32", |x| (x >> 32) as u32);
    k_select::<u64>(c, "u64", |x| x);
    push_pop::<u32>(c, "u32", |x| (x >> 32) as u32);
    push_pop::<u64>(c, "u64", |x| x);
    heapify_pop::<u32>(c, "u32", |x| (x >> 32) as u32, Some(std_heapify_pop));
    heapify_pop::<u64>(c, "u64", |x| x, Some(std_heapify_pop));
    // Uniform in [0, 1): the bits' top 53 as the mantissa.
    heapify_pop::<f32>(c, "f32", |x| (x >> 40) as f32 / (1u32 << 24) as f32, None);
    heapify_pop::<f64>(c, "f64", |x| (x >> 11) as f64 / (1u64 << 53) as f64, None);
}
