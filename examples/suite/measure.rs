//! Timing: medians of samples of at least [`SAMPLE_MIN`] each, and pairs of kernels timed
//! in alternating blocks.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// The shortest sample: a kernel faster than this runs several times per sample, so that
/// the timer's resolution and call overhead stay below a thousandth of what is measured.
pub const SAMPLE_MIN: Duration = Duration::from_millis(1);
/// Samples per kernel, at least.
const MIN_SAMPLES: usize = 5;
/// Blocks per kernel of a pair, at least.
const MIN_BLOCKS: usize = 3;

/// How long each measurement may run: the quick default, or the full suite's longer one.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Time per single kernel ([`median`]), and per kernel of a pair ([`median_pair`]).
    pub kernel: Duration,
}

/// Calls per sample of `f` so that a sample lasts at least [`SAMPLE_MIN`] (after one warm-up
/// call, which also pages in the output).
fn calls_per_sample(f: &mut dyn FnMut()) -> usize {
    f();
    let t = Instant::now();
    f();
    let one = t.elapsed().as_secs_f64().max(1e-9);
    ((SAMPLE_MIN.as_secs_f64() / one).ceil() as usize).clamp(1, 1 << 20)
}

/// Time per call of one sample of `k` calls.
fn sample(f: &mut dyn FnMut(), k: usize) -> Duration {
    let t = Instant::now();
    for _ in 0..k {
        f();
    }
    t.elapsed() / k as u32
}

fn median_of(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Median time per call of `f`: samples of at least [`SAMPLE_MIN`] until `budget.kernel`
/// has passed (at least [`MIN_SAMPLES`]).
pub fn median(budget: Budget, f: &mut dyn FnMut()) -> Duration {
    let k = calls_per_sample(f);
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < MIN_SAMPLES || (start.elapsed() < budget.kernel && times.len() < 10_000) {
        times.push(sample(f, k));
    }
    median_of(times)
}

/// How a pair alternates: untimed warm-up calls and timed samples per block.
#[derive(Clone, Copy, Debug)]
pub struct Blocks {
    /// Untimed calls at the start of each block (at least one sample's worth unless 0).
    pub warm_calls: usize,
    /// Timed samples per block.
    pub samples: usize,
}

/// SpMV: a last-level cache gives way to a new working set over several calls, so each
/// block starts with four untimed calls.
pub const SPMV_BLOCKS: Blocks = Blocks { warm_calls: 4, samples: 4 };
/// SpGEMM: each call is long and allocates its own output, so it finds little of the other
/// kernel's data in the caches either way: no warm-up, one sample.
pub const SPGEMM_BLOCKS: Blocks = Blocks { warm_calls: 0, samples: 1 };

/// Median times per call of `base` and `f`, run in alternating blocks (`base`, then `f`,
/// then `base`, ..) so that both see the same machine state: on a shared, noisy machine
/// the ratio of the two medians is far steadier than either time alone. Blocks rather than
/// single calls, so that each kernel finds its own arrays in the caches as it would when
/// called repeatedly.
pub fn median_pair(
    budget: Budget,
    blocks: Blocks,
    base: &mut dyn FnMut(),
    f: &mut dyn FnMut(),
) -> (Duration, Duration) {
    let (kb, kf) = (calls_per_sample(base), calls_per_sample(f));
    let (mut tb, mut tf) = (Vec::new(), Vec::new());
    let block = |g: &mut dyn FnMut(), k: usize, out: &mut Vec<Duration>| {
        let warm = if blocks.warm_calls == 0 { 0 } else { blocks.warm_calls.max(k) };
        for _ in 0..warm {
            g();
        }
        for _ in 0..blocks.samples {
            out.push(sample(g, k));
        }
    };
    let start = Instant::now();
    let mut n = 0;
    while n < MIN_BLOCKS || (start.elapsed() < 2 * budget.kernel && n < 1000) {
        block(base, kb, &mut tb);
        block(f, kf, &mut tf);
        n += 1;
    }
    (median_of(tb), median_of(tf))
}

/// The machine's achievable single-thread bandwidth in GB/s for a working set of `bytes`
/// bytes: the best of a one-stream read (a sum the compiler cannot drop), a four-stream
/// read (SpMV reads several arrays at once, and a single stream leaves the prefetchers of
/// some cores idle) and a copy counted as bytes read plus written.
pub fn stream_gbs(budget: Budget, bytes: usize) -> f64 {
    let n = (bytes / 8).max(64) / 32 * 32;
    let buf: Vec<u64> = (0..n as u64).collect();
    let gbs = |t: Duration| (n * 8) as f64 / t.as_secs_f64().max(1e-12) / 1e9;
    let one = median(budget, &mut || {
        // Eight independent accumulators: bound by the loads, not by an add chain.
        let mut acc = [0u64; 8];
        for c in buf.chunks_exact(8) {
            for (a, &b) in acc.iter_mut().zip(c) {
                *a = a.wrapping_add(b);
            }
        }
        black_box(acc);
    });
    let four = median(budget, &mut || {
        let q = n / 4;
        let (p0, rest) = buf.split_at(q);
        let (p1, rest) = rest.split_at(q);
        let (p2, p3) = rest.split_at(q);
        let mut acc = [[0u64; 8]; 4];
        for (((c0, c1), c2), c3) in
            p0.chunks_exact(8).zip(p1.chunks_exact(8)).zip(p2.chunks_exact(8)).zip(p3.chunks_exact(8))
        {
            for (k, c) in [c0, c1, c2, c3].into_iter().enumerate() {
                for (a, &b) in acc[k].iter_mut().zip(c) {
                    *a = a.wrapping_add(b);
                }
            }
        }
        black_box(acc);
    });
    let (src, _) = buf.split_at(n / 2);
    let mut dst = vec![0u64; n / 2];
    let copy = median(budget, &mut || {
        dst.copy_from_slice(black_box(src));
        black_box(&mut dst);
    });
    gbs(one).max(gbs(four)).max(gbs(copy))
}
