//! Merges (thesis 4.5.4–4.5.5): the vectorised bitonic merge on every available `Isa`
//! against a plain serial merge (Alg. 16, branchy, written here) in the same group, for
//! u32, f32 and f64 keys, output sizes 1K to 1M (two random sorted lists of n/2 each; small
//! sizes rotate among distinct inputs so branch prediction cannot memorise them). Also
//! merge path with 8 pieces run in sequence (partition overhead) and, up to 32K, the
//! O(n log n) ranking merge (Alg. 17).
//!
//! `cargo bench --bench primitives -- merge/`

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput};
use spblas::Exec;
use spblas::Isa;
use spblas::primitives::Key;
use spblas::primitives::merge::{merge, merge_path, ranking_merge};

/// A merge under test: `(a, b, out)`.
type MergeFn<'f, K> = dyn FnMut(&[K], &[K], &mut [K]) + 'f;

/// Thesis Alg. 16 as written: one branch per output key.
fn plain_merge<K: Key>(a: &[K], b: &[K], out: &mut [K]) {
    let (mut i, mut j) = (0, 0);
    for o in out.iter_mut() {
        if i < a.len() && (j >= b.len() || a[i].key_cmp(&b[j]).is_le()) {
            *o = a[i];
            i += 1;
        } else {
            *o = b[j];
            j += 1;
        }
    }
}

/// xorshift64: deterministic inputs, no dependency.
fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

fn sorted_list<K: Key>(n: usize, seed: u64, f: fn(u64) -> K) -> Vec<K> {
    let mut r = rng(seed);
    let mut v: Vec<K> = (0..n).map(|_| f(r())).collect();
    v.sort_by(|x, y| x.key_cmp(y));
    v
}

fn group<K: Key + Default>(c: &mut Criterion, name: &str, f: fn(u64) -> K) {
    let mut g = c.benchmark_group(format!("merge/{name}"));
    for n in [1usize << 10, 1 << 15, 1 << 20] {
        // Small sizes rotate among distinct input pairs (1M keys in all), so that the
        // branch predictor cannot learn one input's decisions across iterations.
        let sets = ((1usize << 20) / n).clamp(1, 64);
        let inputs: Vec<(Vec<K>, Vec<K>)> = (0..sets as u64)
            .map(|s| {
                (sorted_list(n / 2, 2 * s + 1 + n as u64, f), sorted_list(n - n / 2, 2 * s + 2 + n as u64, f))
            })
            .collect();
        let mut out = vec![K::default(); n];
        g.throughput(Throughput::Elements(n as u64));
        let mut run = |id: BenchmarkId, m: &mut MergeFn<'_, K>| {
            let mut t = 0usize;
            g.bench_function(id, |bch| {
                bch.iter(|| {
                    let (a, b) = &inputs[t % sets];
                    t = t.wrapping_add(1);
                    m(black_box(a), black_box(b), black_box(&mut out))
                })
            });
        };
        run(BenchmarkId::new("plain_serial", n), &mut |a, b, o| plain_merge(a, b, o));
        for isa in Isa::available() {
            run(BenchmarkId::new(isa.name(), n), &mut |a, b, o| merge(Exec::from(isa), a, b, o).unwrap());
            let mut splits = [(0, 0); 9];
            run(BenchmarkId::new(format!("merge_path8/{isa}"), n), &mut |a, b, o| {
                merge_path(Exec::from(isa), a, b, 8, &mut splits, o).unwrap()
            });
            if n <= 1 << 15 {
                run(BenchmarkId::new(format!("ranking/{isa}"), n), &mut |a, b, o| {
                    ranking_merge(Exec::from(isa), a, b, o).unwrap()
                });
            }
        }
    }
    g.finish();
}

pub fn bench(c: &mut Criterion) {
    group::<u32>(c, "u32", |x| (x >> 32) as u32);
    group::<f32>(c, "f32", |x| (x >> 40) as f32 * (1.0 / (1u32 << 24) as f32) - 0.5);
    group::<f64>(c, "f64", |x| (x >> 11) as f64 * (1.0 / (1u64 << 53) as f64) - 0.5);
}
