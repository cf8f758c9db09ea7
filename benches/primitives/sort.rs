//! Bitonic and odd-even merge sort per `Isa` and size, against `sort_unstable` (keys) and
//! `sort_unstable_by_key` on zipped pairs, measured in the same group. Inputs are
//! uniformly random; every iteration copies the input into a reused buffer and sorts it,
//! so the (small) copy is timed for the baseline and for the networks alike: a batched
//! setup with a fresh allocation per iteration costs more than sorting 16 keys.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput};
use spblas::Exec;
use spblas::Isa;
use spblas::primitives::sort::{bitonic_sort, bitonic_sort_pairs, odd_even_sort, odd_even_sort_pairs};

const SIZES: [usize; 8] = [8, 16, 32, 64, 128, 256, 1024, 4096];

/// Deterministic xorshift input, the same on every run.
fn random(n: usize, seed: u64) -> Vec<u64> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        })
        .collect()
}

pub fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("sort/u32");
    for n in SIZES {
        let keys: Vec<u32> = random(n, 0x5eed).into_iter().map(|x| x as u32).collect();
        let mut buf = keys.clone();
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("sort_unstable", n), &keys, |b, k| {
            b.iter(|| {
                buf.copy_from_slice(k);
                buf.sort_unstable();
                black_box(&mut buf);
            })
        });
        for isa in Isa::available() {
            g.bench_with_input(BenchmarkId::new(format!("bitonic/{isa}"), n), &keys, |b, k| {
                b.iter(|| {
                    buf.copy_from_slice(k);
                    bitonic_sort(Exec::from(isa), &mut buf).unwrap();
                    black_box(&mut buf);
                })
            });
            g.bench_with_input(BenchmarkId::new(format!("odd_even/{isa}"), n), &keys, |b, k| {
                b.iter(|| {
                    buf.copy_from_slice(k);
                    odd_even_sort(Exec::from(isa), &mut buf).unwrap();
                    black_box(&mut buf);
                })
            });
        }
    }
    g.finish();

    pairs::<u32>(c, "sort/u32_u32", |x| x as u32);
    pairs::<f32>(c, "sort/u32_f32", |x| (x >> 40) as f32);
    pairs::<f64>(c, "sort/u32_f64", |x| (x >> 11) as f64);
}

fn pairs<V: bytemuck::Pod>(c: &mut Criterion, name: &str, val: fn(u64) -> V) {
    let mut g = c.benchmark_group(name);
    for n in SIZES {
        let keys: Vec<u32> = random(n, 0xbeef).into_iter().map(|x| x as u32).collect();
        let vals: Vec<V> = random(n, 0xcafe).into_iter().map(val).collect();
        let zipped: Vec<(u32, V)> = keys.iter().copied().zip(vals.iter().copied()).collect();
        let (mut kb, mut vb, mut zb) = (keys.clone(), vals.clone(), zipped.clone());
        let input = (keys, vals);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("sort_unstable_by_key", n), &zipped, |b, z| {
            b.iter(|| {
                zb.copy_from_slice(z);
                zb.sort_unstable_by_key(|p| p.0);
                black_box(&mut zb);
            })
        });
        for isa in Isa::available() {
            g.bench_with_input(BenchmarkId::new(format!("bitonic/{isa}"), n), &input, |b, (k, v)| {
                b.iter(|| {
                    kb.copy_from_slice(k);
                    vb.copy_from_slice(v);
                    bitonic_sort_pairs(Exec::from(isa), &mut kb, &mut vb).unwrap();
                    black_box((&mut kb, &mut vb));
                })
            });
            g.bench_with_input(BenchmarkId::new(format!("odd_even/{isa}"), n), &input, |b, (k, v)| {
                b.iter(|| {
                    kb.copy_from_slice(k);
                    vb.copy_from_slice(v);
                    odd_even_sort_pairs(Exec::from(isa), &mut kb, &mut vb).unwrap();
                    black_box((&mut kb, &mut vb));
                })
            });
        }
    }
    g.finish();
}
