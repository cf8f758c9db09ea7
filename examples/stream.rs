//! The scan family against `memcpy` with interleaved timing: for each element type and
//! `Isa`, rounds of (memcpy, inclusive scan, segmented sum with bool flags, with bit
//! flags, `seg_offset` sum), each one call per round into the same `dst`, and the median
//! of each over the rounds. The criterion groups of `benches/primitives.rs` time memcpy in
//! its own window, and on a shared server its rate moves by 2x between windows; here every
//! ratio compares calls made side by side.
//!
//! ```text
//! cargo run --release --example stream             # 32M elements
//! cargo run --release --example stream -- --n 4M
//! ```
//!
//! GB/s count the bytes each primitive moves (as in `benches/primitives.rs`): memcpy and
//! the scan read `src` and write `dst` (`2 n s`); the segmented sum reads a flag byte more
//! per element (`+ n`; bit flags `+ n / 8`); the `seg_offset` sum a `u32` (`+ 4 n`).
//! `%cpy` divides by memcpy's GB/s from the same rounds.

use std::hint::black_box;
use std::time::{Duration, Instant};

use spblas::Exec;
use spblas::Isa;
use spblas::primitives::scan::{ScanElem, inclusive_scan_into};
use spblas::primitives::segmented::{
    HeadFlags, seg_offset_from_heads, segmented_sum_into, segmented_sum_seg_offset,
};

const MIN_ROUNDS: usize = 8;
const MIN_TIME: Duration = Duration::from_secs(2);

trait Elem: ScanElem {
    const NAME: &'static str;
    fn from_seed(s: u64) -> Self;
}
impl Elem for u32 {
    const NAME: &'static str = "u32";
    fn from_seed(s: u64) -> Self {
        s as u32
    }
}
impl Elem for f32 {
    const NAME: &'static str = "f32";
    fn from_seed(s: u64) -> Self {
        (s >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    }
}
impl Elem for f64 {
    const NAME: &'static str = "f64";
    fn from_seed(s: u64) -> Self {
        (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    }
}

/// Median time of each closure over interleaved rounds.
fn medians(fs: &mut [&mut dyn FnMut()]) -> Vec<Duration> {
    fs.iter_mut().for_each(|f| f());
    let mut times = vec![Vec::new(); fs.len()];
    let start = Instant::now();
    while times[0].len() < MIN_ROUNDS || start.elapsed() < MIN_TIME {
        for (f, t) in fs.iter_mut().zip(&mut times) {
            let s = Instant::now();
            f();
            t.push(s.elapsed());
        }
    }
    times
        .into_iter()
        .map(|mut t| {
            t.sort();
            t[t.len() / 2]
        })
        .collect()
}

fn run<T: Elem>(n: usize) {
    let mut s = 0x9E37_79B9_7F4A_7C15u64 ^ n as u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let src: Vec<T> = (0..n).map(|_| T::from_seed(next())).collect();
    // One head per 8 elements on average, at random.
    let flags: Vec<bool> = (0..n).map(|_| next().is_multiple_of(8)).collect();
    let mut words = vec![0u64; n.div_ceil(64)];
    for (i, &f) in flags.iter().enumerate() {
        words[i / 64] |= u64::from(f) << (i % 64);
    }
    let mut seg_offset = vec![0u32; n];
    seg_offset_from_heads(&flags, &mut seg_offset).expect("lengths agree");
    let heads = HeadFlags::bits(&words, n).expect("enough words");
    let mut dst = vec![T::default(); n];
    let sz = size_of::<T>();
    let bytes = [2 * n * sz, 2 * n * sz, 2 * n * sz + n, 2 * n * sz + n / 8, 2 * n * sz + 4 * n];
    for isa in Isa::available() {
        let d = std::cell::RefCell::new(&mut dst);
        let t = medians(&mut [
            &mut || d.borrow_mut().copy_from_slice(black_box(&src)),
            &mut || {
                inclusive_scan_into(Exec::from(isa), black_box(&src), &mut d.borrow_mut()).expect("checked")
            },
            &mut || {
                segmented_sum_into(Exec::from(isa), black_box(&src), &flags, &mut d.borrow_mut())
                    .expect("checked")
            },
            &mut || {
                segmented_sum_into(Exec::from(isa), black_box(&src), heads, &mut d.borrow_mut())
                    .expect("checked")
            },
            &mut || {
                segmented_sum_seg_offset(Exec::from(isa), black_box(&src), &seg_offset, &mut d.borrow_mut())
                    .expect("checked")
            },
        ]);
        let gbs: Vec<f64> = t.iter().zip(bytes).map(|(t, b)| b as f64 / t.as_secs_f64() / 1e9).collect();
        let pct = |k: usize| 100.0 * gbs[k] / gbs[0];
        println!(
            "| {:<4} | {:<8} | {:>6.1} | {:>6.1} {:>4.0}% | {:>6.1} {:>4.0}% | {:>6.1} {:>4.0}% | {:>6.1} {:>4.0}% |",
            T::NAME,
            isa.name(),
            gbs[0],
            gbs[1],
            pct(1),
            gbs[2],
            pct(2),
            gbs[3],
            pct(3),
            gbs[4],
            pct(4),
        );
    }
}

fn main() {
    let mut n = 1usize << 25;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match (a.as_str(), args.next()) {
            ("--n", Some(v)) => {
                let (num, mul) = match v.strip_suffix(['M', 'K']) {
                    Some(num) if v.ends_with('M') => (num, 1 << 20),
                    Some(num) => (num, 1 << 10),
                    None => (v.as_str(), 1),
                };
                n = num.parse::<usize>().map(|k| k * mul).unwrap_or_else(|_| {
                    eprintln!("--n takes a count like 32M, 4096 or 64K");
                    std::process::exit(2)
                });
            }
            _ => {
                eprintln!("usage: stream [--n 32M]");
                std::process::exit(2);
            }
        }
    }
    println!("n = {n}");
    println!(
        "| type | isa      | memcpy | incl scan  %cpy | seg sum    %cpy | seg bits   %cpy | seg_offset %cpy |"
    );
    println!(
        "|------|----------|--------|-----------------|-----------------|-----------------|-----------------|"
    );
    run::<u32>(n);
    run::<f32>(n);
    run::<f64>(n);
}
