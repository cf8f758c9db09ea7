//! Scan family (thesis 4.3.2–4.4.4) per element type, size and `Isa`: `reduce`,
//! out-of-place inclusive scan, segmented sum (bool head flags, one segment head per
//! 8 elements on average, random) and the fast `seg_offset` segmented sum, each against
//! a `memcpy` (`copy_from_slice`) of the same bytes in the same group.
//!
//! Group `scan/<type>/<n>`; ids `memcpy` and `<primitive>/<isa>`. Throughput is the
//! bytes each one moves, so every GB/s compares directly with the memcpy row's (the
//! memory bandwidth in the same run): memcpy and the scans read `src` and write `dst`
//! (`2 n s` bytes, `s = size_of::<T>()`), `reduce` reads `n s`, segmented sum reads one
//! flag byte per element more (`2 n s + n`; `segmented_sum_bits`: a flag bit, `2 n s +
//! n / 8`), and the `seg_offset` sum reads a `u32` offset per element (`2 n s + 4 n`).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput};
use spblas::Exec;
use spblas::Isa;
use spblas::primitives::scan::{self, ScanElem};
use spblas::primitives::segmented;

/// Element types benchmarked, with a way to make values from a seed.
trait BenchElem: ScanElem {
    const NAME: &'static str;
    fn from_seed(s: u64) -> Self;
}
impl BenchElem for u32 {
    const NAME: &'static str = "u32";
    fn from_seed(s: u64) -> Self {
        s as u32
    }
}
impl BenchElem for f32 {
    const NAME: &'static str = "f32";
    fn from_seed(s: u64) -> Self {
        (s >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    }
}
impl BenchElem for f64 {
    const NAME: &'static str = "f64";
    fn from_seed(s: u64) -> Self {
        (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    }
}

/// A small xorshift stream: reproducible inputs without a dependency.
fn stream(mut s: u64) -> impl FnMut() -> u64 {
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

const SIZES: [(usize, &str); 4] = [(1 << 10, "1K"), (1 << 16, "64K"), (1 << 22, "4M"), (1 << 25, "32M")];

pub fn bench(c: &mut Criterion) {
    bench_type::<u32>(c);
    bench_type::<f32>(c);
    bench_type::<f64>(c);
}

fn bench_type<T: BenchElem>(c: &mut Criterion) {
    for (n, label) in SIZES {
        let mut next = stream(0x9E37_79B9_7F4A_7C15 ^ n as u64);
        let src: Vec<T> = (0..n).map(|_| T::from_seed(next())).collect();
        let flags: Vec<bool> = (0..n).map(|_| next().is_multiple_of(8)).collect();
        let mut words = vec![0u64; n.div_ceil(64)];
        for (i, &f) in flags.iter().enumerate() {
            words[i / 64] |= u64::from(f) << (i % 64);
        }
        let mut seg_offset = vec![0u32; n];
        segmented::seg_offset_from_heads(&flags, &mut seg_offset).expect("lengths agree");
        let mut dst = vec![T::default(); n];

        let mut g = c.benchmark_group(format!("scan/{}/{label}", T::NAME));
        let s = size_of::<T>();
        let moved = |bytes: usize| Throughput::Bytes(bytes as u64);
        g.throughput(moved(2 * n * s));
        g.bench_function("memcpy", |b| b.iter(|| dst.copy_from_slice(black_box(&src))));
        for isa in Isa::available() {
            g.throughput(moved(n * s));
            g.bench_function(BenchmarkId::new("reduce", isa), |b| {
                b.iter(|| scan::reduce(Exec::from(isa), black_box(&src)).expect("isa available"))
            });
            g.throughput(moved(2 * n * s));
            g.bench_function(BenchmarkId::new("inclusive_scan", isa), |b| {
                b.iter(|| {
                    scan::inclusive_scan_into(Exec::from(isa), black_box(&src), &mut dst)
                        .expect("lengths agree")
                })
            });
            g.throughput(moved(2 * n * s + n));
            g.bench_function(BenchmarkId::new("segmented_sum", isa), |b| {
                b.iter(|| {
                    segmented::segmented_sum_into(Exec::from(isa), black_box(&src), &flags, &mut dst)
                        .expect("lengths agree")
                })
            });
            g.throughput(moved(2 * n * s + n / 8));
            g.bench_function(BenchmarkId::new("segmented_sum_bits", isa), |b| {
                let heads = segmented::HeadFlags::bits(&words, n).expect("enough words");
                b.iter(|| {
                    segmented::segmented_sum_into(Exec::from(isa), black_box(&src), heads, &mut dst)
                        .expect("lengths agree")
                })
            });
            g.throughput(moved(2 * n * s + 4 * n));
            g.bench_function(BenchmarkId::new("seg_offset_sum", isa), |b| {
                b.iter(|| {
                    segmented::segmented_sum_seg_offset(
                        Exec::from(isa),
                        black_box(&src),
                        &seg_offset,
                        &mut dst,
                    )
                    .expect("valid offsets")
                })
            });
        }
        g.finish();
    }
}
