//! Interleaved timing for the examples that print tables (`scaling`, `gathers`).

use std::time::{Duration, Instant};

/// The median time of each of `fs`, timed in turn round after round after one warm-up
/// call each, so that every closure sees the same machine state (ARCHITECTURE.md,
/// principle 6): at least `min_rounds` rounds, then more until `min_time` has passed or
/// `max_rounds` are done. Each round starts one closure later than the one before, so
/// that none always runs right after the same other.
pub fn interleaved_medians(
    fs: &mut [&mut dyn FnMut()],
    min_rounds: usize,
    min_time: Duration,
    max_rounds: usize,
) -> Vec<Duration> {
    fs.iter_mut().for_each(|f| f());
    let n = fs.len();
    let mut times = vec![Vec::new(); n];
    let start = Instant::now();
    let mut round = 0;
    while n > 0 && (round < min_rounds || (start.elapsed() < min_time && round < max_rounds)) {
        for k in 0..n {
            let k = (k + round) % n;
            let s = Instant::now();
            fs[k]();
            times[k].push(s.elapsed());
        }
        round += 1;
    }
    times
        .into_iter()
        .map(|mut t| {
            t.sort();
            t.get(t.len() / 2).copied().unwrap_or_default()
        })
        .collect()
}
