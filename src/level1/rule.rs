//! The rule that picks the addition method ([`AddRule`]; thesis 7.2 and the bins of
//! 9.4.2), its fixed default, and (feature `std`) its calibration on this machine.

use crate::Isa;
use crate::arch::Checked;
use crate::arch::generic::esc::{ESC_REG_COLS, ESC_REG_MAX, has_esc_row};

use super::AddMethod;

/// Where [`AddRule::choose`] uses each [`AddMethod`], by the output's upper bound
/// `m = nnz(x) + nnz(y)` and the dimension `n` (thesis 7.2: the method follows the
/// upper bound, as the SpGEMM bins of 9.4.2 do):
///
/// 1. [`Spa`](AddMethod::Spa) if `n <= spa_small_n` (the whole space in a marker word
///    or two), or if `n <= spa_max_n` and `n <= spa_max_ratio * m` (a dense output:
///    the marker scan, `n / 64` words, is short next to the `m` entries, and the dense
///    scratch of `n` values fits in cache);
/// 2. else [`BitonicEsc`](AddMethod::BitonicEsc) if `esc_min_m <= m <= esc_max_m`,
///    `m <= 32`, `n >= esc_min_ratio * m`, `n < 2^27` and the sort runs in registers on
///    the `Isa` (AVX-512): short inputs in a large space;
/// 3. else [`Merge`](AddMethod::Merge).
///
/// The heap method has no place: on one CPU core it loses to the merge at every length
/// measured. [`AddRule::DEFAULT`] is the fixed rule behind [`AddMethod::choose`];
/// [`AddRule::tune`] fits the thresholds to this machine, since the crossovers move
/// between CPUs (`benches/records/kernel-notes-2026-11.md`, "Sparse vector addition
/// methods", has two that disagree).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AddRule {
    /// Dimension up to which the SPA is used whatever `m`.
    pub spa_small_n: usize,
    /// Largest dimension `n` given to the SPA above `spa_small_n`.
    pub spa_max_n: usize,
    /// Largest `n / m` given to the SPA above `spa_small_n` (`usize::MAX`: no limit).
    pub spa_max_ratio: usize,
    /// Shortest upper bound given to the register ESC.
    pub esc_min_m: usize,
    /// Longest upper bound given to the register ESC (at most 32 is used;
    /// `esc_max_m < esc_min_m` turns it off).
    pub esc_max_m: usize,
    /// Smallest `n / m` given to the register ESC (`0`: no limit).
    pub esc_min_ratio: usize,
}

impl AddRule {
    /// The fixed rule, fitted on two machines (`benches/records/kernel-notes-2026-11.md`,
    /// "Sparse vector addition methods"): the SPA in dimensions up to 64, and up to 2^19
    /// where `n <= 4 m`; the register ESC for `16 <= m <= 32` with `n >= 4 m`; the merge
    /// otherwise.
    pub const DEFAULT: AddRule = AddRule {
        spa_small_n: 64,
        spa_max_n: 1 << 19,
        spa_max_ratio: 4,
        esc_min_m: 16,
        esc_max_m: 32,
        esc_min_ratio: 4,
    };

    /// The method for inputs with `nnz_x` and `nnz_y` entries in dimension `n` on `isa`,
    /// by the three steps of [`AddRule`]. O(1); never fails (an `isa` this machine cannot
    /// run just gets no ESC).
    pub fn choose(&self, isa: Isa, nnz_x: usize, nnz_y: usize, n: usize) -> AddMethod {
        let m = nnz_x.saturating_add(nnz_y);
        if n <= self.spa_small_n || (n <= self.spa_max_n && n <= m.saturating_mul(self.spa_max_ratio)) {
            AddMethod::Spa
        } else if m >= self.esc_min_m
            && m <= self.esc_max_m.min(ESC_REG_MAX)
            && n >= m.saturating_mul(self.esc_min_ratio)
            && n <= ESC_REG_COLS
            && Checked::new(isa).is_ok_and(has_esc_row)
        {
            AddMethod::BitonicEsc
        } else {
            AddMethod::Merge
        }
    }
}

impl Default for AddRule {
    fn default() -> AddRule {
        AddRule::DEFAULT
    }
}

#[cfg(feature = "std")]
mod tune {
    use std::time::Instant;
    use std::vec;
    use std::vec::Vec;

    use super::{AddRule, ESC_REG_MAX, has_esc_row};
    use crate::arch::Checked;
    use crate::level1::{AddMethod, SpVec, add, add_workspace_len};
    use crate::primitives::scan::ScanElem;
    use crate::{DimError, Exec, Isa, Scalar};

    /// The inputs [`AddRule::tune`] times, as `(n, nnz)`: each input has about `nnz`
    /// random entries in dimension `n`, for `n = 2 nnz`, `4 nnz`, `32 nnz` (9 lengths
    /// from 2 to 32K each) and `n = 2^20` (11 lengths from 2 to 8192) — the grid of
    /// `benches/level1.rs` up to 32K, where the methods cross.
    const TUNE_CELLS: [(usize, usize); 38] = {
        const LENS: [usize; 9] = [2, 8, 16, 32, 128, 512, 2048, 8192, 32768];
        const LONG: [usize; 11] = [2, 4, 6, 8, 12, 16, 32, 128, 512, 2048, 8192];
        let mut cells = [(0, 0); 38];
        let mut k = 0;
        let mut f = 0;
        while f < 3 {
            let factor = [2, 4, 32][f];
            let mut j = 0;
            while j < LENS.len() {
                cells[k] = (LENS[j] * factor, LENS[j]);
                k += 1;
                j += 1;
            }
            f += 1;
        }
        let mut j = 0;
        while j < LONG.len() {
            cells[k] = (1 << 20, LONG[j]);
            k += 1;
            j += 1;
        }
        cells
    };

    /// Candidate thresholds searched by [`AddRule::tune`].
    const SPA_SMALL: [usize; 6] = [0, 16, 32, 64, 128, 256];
    const SPA_N: [usize; 11] =
        [256, 1024, 4096, 8192, 16384, 32768, 1 << 16, 1 << 18, 1 << 20, 1 << 24, usize::MAX];
    const SPA_RATIO: [usize; 9] = [0, 1, 2, 3, 4, 6, 8, 16, 32];
    const ESC_EDGES: [usize; 8] = [2, 4, 8, 12, 16, 20, 24, 32];
    const ESC_RATIO: [usize; 5] = [0, 2, 4, 8, 16];

    /// Distinct input pairs of a cell with `nnz` entries per input: `2^17 / nnz`, at
    /// most [`MAX_PAIRS`]. Calls run through them in turn, so no pair comes back before
    /// about 256K candidate entries (64K below 8 entries per input) have passed. The
    /// branch predictor of a current core learns the branches of a few dozen short
    /// inputs timed over and over, which no stream of distinct additions gets, and a
    /// branchy method then looks several times faster than it is
    /// (`benches/records/kernel-notes-2026-11.md`, "Sparse vector addition methods").
    /// `benches/level1.rs` uses the same count.
    fn pairs(nnz: usize) -> usize {
        ((1 << 17) / nnz.max(1)).clamp(1, MAX_PAIRS)
    }
    /// The most input pairs per cell.
    const MAX_PAIRS: usize = 1 << 14;
    /// Seconds one timed batch of calls lasts, about (far above the clock's resolution).
    const BATCH_SECS: f64 = 50e-6;
    /// Calls in the warm-up batch that sizes the timed ones.
    const WARM_CALLS: usize = 16;

    /// xorshift64.
    fn next(s: &mut u64) -> u64 {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        *s
    }

    /// About `nnz` distinct sorted random indices below `n`, with values: each index
    /// kept with probability `nnz / n` where `n <= 8 nnz`, else `nnz` draws, sorted, with
    /// repeats dropped (O(nnz log nnz) however large `n` is).
    fn sparse<T: Scalar>(n: usize, nnz: usize, seed: u64) -> (Vec<u32>, Vec<T>) {
        let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut idx: Vec<u32> = if n <= 8 * nnz {
            let cut = ((nnz as f64 / n as f64) * u32::MAX as f64) as u64;
            (0..n as u32).filter(|_| (next(&mut s) & 0xffff_ffff) < cut).collect()
        } else {
            (0..nnz).map(|_| (next(&mut s) % n as u64) as u32).collect()
        };
        idx.sort_unstable();
        idx.dedup();
        let vals = idx.iter().map(|_| T::from_f64((next(&mut s) % 1000) as f64 * 0.25)).collect();
        (idx, vals)
    }

    /// How `rule` does against the fastest timed method over all cells: how many cells
    /// it is more than 10% slower on, and the sum of the log ratios (the log of the
    /// geometric mean slowdown, times the cells).
    fn score(rule: &AddRule, isa: Isa, cells: &[(usize, usize, [f64; 3])]) -> (usize, f64) {
        let (mut over, mut sum) = (0usize, 0.0f64);
        for &(n, m, t) in cells {
            let best = t.iter().copied().fold(f64::INFINITY, f64::min);
            let got = match rule.choose(isa, m, 0, n) {
                AddMethod::Spa => t[0],
                AddMethod::BitonicEsc => t[1],
                _ => t[2],
            };
            let r = got / best;
            over += usize::from(r > 1.1);
            sum += r.ln();
        }
        (over, sum)
    }

    impl AddRule {
        /// Fits the thresholds of an [`AddRule`] to this machine by timing (feature
        /// `std`).
        ///
        /// The inputs: about `nnz` random entries each, `T` values, u32 indices, in
        /// dimension `n = 2 nnz`, `4 nnz`, `32 nnz` (`nnz` 2–32K) and `2^20` (`nnz`
        /// 2–8192, finer below 16): the grid of `benches/level1.rs` up to 32K. For each,
        /// the SPA, the merge and (where `isa` has it) the register ESC are timed on up
        /// to 16K random input pairs, taken in turn so that the branch predictor cannot
        /// learn them (no pair comes back within 256K candidate entries); the ESC's calls
        /// over 32 candidates run the merge, as a rule would give them. After a warm-up,
        /// `rounds` rounds (at least 1, at most 64) give each method its median time per
        /// call.
        ///
        /// The rule: of all rules over a grid of thresholds (`spa_small_n` 0–256,
        /// `spa_max_n` 256–∞, `spa_max_ratio` 0–32, ESC edges among 2–32 or off,
        /// `esc_min_ratio` 0–16), scored at each input's median candidate count, the one
        /// more than 10% slower than the fastest method on the fewest inputs wins (ties:
        /// the smallest geometric mean slowdown, then [`AddRule::DEFAULT`] and the order
        /// of search).
        ///
        /// Costs well under a second at 5 rounds and up to 20 MB of inputs and scratch;
        /// run it once per process (or once per machine, and store the six numbers), then
        /// pass the rule's [`choose`](AddRule::choose) to [`add`](fn@crate::level1::add).
        ///
        /// # Errors
        /// [`DimError::IsaUnavailable`] if this machine cannot run `isa`.
        pub fn tune<T: Scalar + ScanElem>(isa: Isa, rounds: usize) -> Result<AddRule, DimError> {
            let checked = Checked::new(isa)?;
            let esc = has_esc_row(checked);
            let rounds = rounds.clamp(1, 64);
            let mut cells = Vec::with_capacity(TUNE_CELLS.len());
            let mut ws = Vec::new();
            for (c, &(n, nnz)) in TUNE_CELLS.iter().enumerate() {
                let inputs: Vec<_> = (0..pairs(nnz) as u64)
                    .map(|p| {
                        let seed = ((c as u64) << 32) + 2 * p;
                        (sparse::<T>(n, nnz, seed), sparse::<T>(n, nnz, seed + 1))
                    })
                    .collect();
                // (The generator's indices are sorted and distinct: every view is valid.)
                let views: Vec<_> = inputs
                    .iter()
                    .filter_map(|((xi, xv), (yi, yv))| {
                        Some((SpVec::new(n, xi, xv).ok()?, SpVec::new(n, yi, yv).ok()?))
                    })
                    .collect();
                if views.is_empty() {
                    continue;
                }
                // The candidate counts, sorted: their least, median and greatest. The rule
                // is scored at the median (the mean, rounded down, sat one below an ESC
                // edge that most calls reach).
                let mut ms: Vec<usize> = views.iter().map(|(x, y)| x.nnz() + y.nnz()).collect();
                ms.sort_unstable();
                let (m_min, m_med, m_max) = (ms[0], ms[ms.len() / 2], ms[ms.len() - 1]);
                let (mut zi, mut zv) = (vec![0u32; m_max], vec![T::ZERO; m_max]);
                let len = add_workspace_len::<T>(AddMethod::Spa, m_max, 0, n).max(add_workspace_len::<T>(
                    AddMethod::BitonicEsc,
                    m_max,
                    0,
                    n,
                ));
                ws.resize(len, T::ZERO);
                let methods = [AddMethod::Spa, AddMethod::BitonicEsc, AddMethod::Merge];
                // Calls per timed batch, per method: set in the warm-up round so that a
                // batch lasts about BATCH_SECS. Each method goes on through the pairs
                // where its last batch stopped.
                let mut calls = [WARM_CALLS; 3];
                let mut at = [0usize; 3];
                let mut times = [[f64::INFINITY; 64]; 3];
                for round in 0..=rounds {
                    for k in 0..3 {
                        // Rotate the order so that no method always follows the same one.
                        let which = (k + round) % 3;
                        if which == 1 && !(esc && m_min <= ESC_REG_MAX) {
                            continue;
                        }
                        let t = Instant::now();
                        for _ in 0..calls[which] {
                            let (x, y) = views[at[which] % views.len()];
                            at[which] = at[which].wrapping_add(1);
                            let (x, y) = (core::hint::black_box(x), core::hint::black_box(y));
                            // A rule gives the ESC no call over 32 candidates: the
                            // merge runs those, as it would under the rule.
                            let method = if which == 1 && x.nnz() + y.nnz() > ESC_REG_MAX {
                                AddMethod::Merge
                            } else {
                                methods[which]
                            };
                            add(Exec::from(isa), x, y, &mut zi, &mut zv, method, &mut ws)?;
                        }
                        let per_call = t.elapsed().as_secs_f64() / calls[which] as f64;
                        if round == 0 {
                            calls[which] =
                                (BATCH_SECS / per_call).ceil().clamp(WARM_CALLS as f64, 1e6) as usize;
                        } else {
                            times[which][round - 1] = per_call;
                        }
                    }
                }
                let mut med = [f64::INFINITY; 3];
                for (k, t) in times.iter_mut().enumerate() {
                    let t = &mut t[..rounds];
                    t.sort_unstable_by(f64::total_cmp);
                    med[k] = t[rounds / 2];
                }
                cells.push((n, m_med, med));
            }
            let mut escs = vec![(1, 0)];
            for (i, &lo) in ESC_EDGES.iter().enumerate() {
                escs.extend(ESC_EDGES[i..].iter().map(|&hi| (lo, hi)));
            }
            let mut best = (score(&AddRule::DEFAULT, isa, &cells), AddRule::DEFAULT);
            for &spa_small_n in &SPA_SMALL {
                for &spa_max_n in &SPA_N {
                    for &spa_max_ratio in &SPA_RATIO {
                        for &(esc_min_m, esc_max_m) in &escs {
                            for &esc_min_ratio in &ESC_RATIO {
                                let rule = AddRule {
                                    spa_small_n,
                                    spa_max_n,
                                    spa_max_ratio,
                                    esc_min_m,
                                    esc_max_m,
                                    esc_min_ratio,
                                };
                                let s = score(&rule, isa, &cells);
                                if s.0 < best.0.0 || (s.0 == best.0.0 && s.1 < best.0.1) {
                                    best = (s, rule);
                                }
                            }
                        }
                    }
                }
            }
            Ok(best.1)
        }
    }
}
