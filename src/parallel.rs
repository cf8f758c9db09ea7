//! Thread drivers (feature `parallel`) over the chunked kernels, reached through an
//! [`Exec`](crate::Exec) with more than one thread: the core splits work into independent
//! chunks; this module runs them as tasks on the caller's [`rayon`] pool (the global pool,
//! or the one a caller entered with `ThreadPool::install`), so workers persist between calls
//! and threaded SpMV inside rayon code adds no threads of its own. Nothing else in the crate
//! depends on threads.
//!
//! Every driver takes a task count `threads`: 0 runs [`available_threads`] tasks, or one on
//! the calling thread when the work is too small to repay a fork (fewer than 32 768 rows
//! plus entries); any other value runs that many tasks, capped by the work items and by the
//! pool's threads (more tasks than workers would only queue, each with its piece of the
//! bookkeeping, so a request for 100 000 threads costs what one for the pool's size
//! costs). No driver spawns an OS thread per call. Where the pool cannot be started (the OS
//! refuses threads), every driver runs serially instead of failing.

use core::ops::Range;
use core::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;

use std::vec::Vec;

use crate::arch::Checked;
use crate::arch::generic::spmv_sym::Cross;
use crate::formats::{Csr, CsrOwned};
use crate::formats::{Symmetric, Triangle};
use crate::level2::csr::{serial_csr, spmv_rows_by};
use crate::level2::spmm::{spmm_cols, spmm_rows};
use crate::level2::symmetric::{block as sym_block, cross_step, sym_block_spmm, sym_block_spmv};
use crate::level2::trsv::{LEVEL_WORK, Levels, RHS_BLOCK, row_block, row_one, solve_order};
use crate::level2::{
    Carry, DenseLayout, DenseMut, DenseRef, Run, SpmvPlan, apply_carries, balanced_row_partition, check_spmv,
    merge_path_splits, spmv_merge_path_piece,
};
use crate::level3::{
    Ctx, Piece, RegionRows, Rule, Sizing, SpgemmConfig, SpgemmStats, Walk, advance_of, advise, count_nnz,
    give_back, hybrid_product, region_rows, region_stats, room_err, row_upper_bound, sampled_advance,
    sampled_cost, walk_rows,
};
use crate::primitives::Key;
use crate::primitives::scan::ScanElem;
use crate::tuning::SERIAL_WORK;
use crate::{CsrMethod, DimError, Index, Isa, RowOrder, Scalar};

/// Whether the rayon pool the drivers would run on is there. Inside a pool it is; outside,
/// the global pool is started once here, by the fallible builder, so that a refused thread
/// becomes a serial run instead of rayon's panic (WebAssembly without threads refuses
/// every one: there the drivers run serially, and never trap).
fn pool_ready() -> bool {
    static READY: OnceLock<bool> = OnceLock::new();
    if rayon::current_thread_index().is_some() {
        return true;
    }
    *READY.get_or_init(|| usable_after(rayon::ThreadPoolBuilder::new().build_global()))
}

/// Whether the global pool works after our attempt to build it ended in `built`.
fn usable_after(built: Result<(), rayon::ThreadPoolBuildError>) -> bool {
    match built {
        Ok(()) => true,
        // The OS refused a thread (rayon's I/O error, the only kind with a source).
        Err(e) if std::error::Error::source(&e).is_some() => false,
        // Someone (the caller, or rayon on an earlier use) built it already.
        Err(_) => global_pool_usable(),
    }
}

/// Whether the global pool someone else built works: asking it panics if their build
/// failed, which is caught where panics unwind. Where they abort, a pool built before ours
/// is taken as working.
#[cfg(panic = "unwind")]
fn global_pool_usable() -> bool {
    std::panic::catch_unwind(rayon::current_num_threads).is_ok()
}
#[cfg(not(panic = "unwind"))]
fn global_pool_usable() -> bool {
    true
}

/// The number of tasks [`Exec::threads`](crate::Exec::threads)`(0)` asks for (feature
/// `parallel`): the current rayon pool's threads (the caller's pool inside
/// `ThreadPool::install`, else the global pool, which `RAYON_NUM_THREADS` sizes), or 1
/// where no pool can be started.
pub fn available_threads() -> usize {
    if pool_ready() { rayon::current_num_threads().max(1) } else { 1 }
}

/// The task count for a request of `threads` capped by `most` (the work items) and by the
/// pool's threads: as asked, or for 0, [`available_threads`] but 1 below [`serial_work`]
/// rows plus entries. 1 where no pool can be started.
fn tasks(threads: usize, most: usize, work: usize) -> usize {
    let threads = match threads {
        // Below the floor without asking (small calls never start the measurement).
        0 if work < SERIAL_WORK || work < serial_work() => 1,
        0 => available_threads(),
        // One task needs no pool: it is not asked for (nor started) then.
        1 => 1,
        t => t.min(available_threads()),
    };
    threads.clamp(1, most.max(1))
}

/// Rows plus entries below which `threads(0)` runs on the calling thread: where a serial
/// SpMV takes twice as long as waking the pool for a fork and join (from then on two
/// tasks pay), measured once on the first call that asks (under a millisecond) and kept
/// within [`SERIAL_WORK`] and 64 times that. A pool's wake-up costs what the machine makes
/// it: 20–40 µs on a 16-core host, 40 µs on a 2-vCPU VM whose serial SpMV runs three
/// times as fast, where the fixed [`SERIAL_WORK`] threaded calls that ran 2x slower than
/// serial ones (`benches/records/overhead-2026-11-29-xeon-avx512.md`).
///
/// Callers that arrive while the measurement runs take [`SERIAL_WORK`] rather than wait:
/// the measurement forks on the pool, whose workers may be such callers.
fn serial_work() -> usize {
    // 0: not measured; 1: being measured; else the threshold.
    static WORK: AtomicUsize = AtomicUsize::new(0);
    match WORK.load(Ordering::Acquire) {
        0 if WORK.compare_exchange(0, 1, Ordering::AcqRel, Ordering::Acquire).is_ok() => {
            let work = if pool_ready() && available_threads() >= 2 {
                let work = (2.0 * wake_ns() * serial_rate()) as usize;
                work.clamp(SERIAL_WORK, 64 * SERIAL_WORK)
            } else {
                SERIAL_WORK
            };
            WORK.store(work, Ordering::Release);
            work
        }
        0 | 1 => SERIAL_WORK,
        work => work,
    }
}

/// The median of three fork-joins of two empty tasks, each after the pool's workers have
/// had time to go to sleep (as between the calls of an application), in nanoseconds.
fn wake_ns() -> f64 {
    use std::time::{Duration, Instant};
    let mut t = [0f64; 3];
    for ti in &mut t {
        std::thread::sleep(Duration::from_micros(200));
        let start = Instant::now();
        fork(std::vec![0u8; 2], core::hint::black_box);
        *ti = start.elapsed().as_nanos() as f64;
    }
    t.sort_by(f64::total_cmp);
    t[1]
}

/// Rows plus entries per nanosecond of the serial row loop on a 4096-row matrix of eight
/// scattered entries a row (in cache, as the calls `serial_work` decides are): the best of
/// three runs.
fn serial_rate() -> f64 {
    use std::time::Instant;
    const M: usize = 4096;
    let row_ptr: Vec<u32> = (0..=M as u32).map(|i| 8 * i).collect();
    let col_idx: Vec<u32> =
        (0..8 * M as u32).map(|k| (k.wrapping_mul(2_654_435_761) >> 20) % M as u32).collect();
    let vals = std::vec![1.0f64; 8 * M];
    let x = std::vec![1.0f64; M];
    let mut y = std::vec![0.0f64; M];
    let Ok(a) = Csr::new(M, M, &row_ptr, &col_idx, &vals) else {
        return 1.0;
    };
    let mut best = f64::MAX;
    for _ in 0..3 {
        let start = Instant::now();
        crate::level2::csr::spmv_rows(
            &a,
            crate::arch::Checked::detect(),
            0..M,
            1.0,
            core::hint::black_box(&x),
            0.0,
            &mut y,
        );
        best = best.min(start.elapsed().as_nanos() as f64);
    }
    (M + 8 * M) as f64 / best.max(1.0)
}

/// Runs `f` on every task, in parallel on the rayon pool (on the calling thread alone when
/// there is one task or no pool), and returns the results in task order. The calling thread
/// runs the first task itself and hands the others to the pool (`rayon::in_place_scope`):
/// from outside a pool that costs one wake-up of a worker, not a round trip of the whole
/// call through the pool, and the caller then spins for the others' end
/// ([`spin_until_done`]) rather than sleep until a worker wakes it (a 2-thread call on
/// 1024 rows: 29–58 µs → 3–4 µs over its work, `benches/records/overhead-*.md`). A panic in
/// a task (a bug) is passed on to the caller.
fn fork<A: Send, R: Send>(tasks: Vec<A>, f: impl Fn(A) -> R + Sync + Send) -> Vec<R> {
    if tasks.len() <= 1 || !pool_ready() {
        return tasks.into_iter().map(f).collect();
    }
    let mut out: Vec<Option<R>> = (0..tasks.len()).map(|_| None).collect();
    let f = &f;
    // Tasks handed to the pool and not finished yet.
    let pending = &AtomicUsize::new(tasks.len() - 1);
    rayon::in_place_scope(|s| {
        let mut work = tasks.into_iter().zip(out.iter_mut());
        let first = work.next();
        for (a, slot) in work {
            s.spawn(move |_| {
                *slot = Some(f(a));
                pending.fetch_sub(1, Ordering::Release);
            });
        }
        if let Some((a, slot)) = first {
            *slot = Some(f(a));
        }
        if rayon::current_thread_index().is_none() {
            spin_until_done(pending);
        }
    });
    // The scope waited for every task, so every slot is filled.
    out.into_iter().flatten().collect()
}

/// Waits for `pending` to reach 0 by spinning, for at most [`SPIN_WAIT`]. A thread outside
/// the pool that leaves `in_place_scope` before its tasks are done sleeps on a lock until
/// a worker wakes it, which costs a wake-up per call (tens of µs on a VM); a worker of the
/// pool waits by stealing work instead, so only outside callers spin. Past the bound (the
/// other tasks are long, or wait for a CPU) the scope's sleeping wait takes over.
fn spin_until_done(pending: &AtomicUsize) {
    let start = std::time::Instant::now();
    while pending.load(Ordering::Acquire) != 0 {
        for _ in 0..64 {
            core::hint::spin_loop();
        }
        if start.elapsed() > SPIN_WAIT {
            return;
        }
    }
}

/// How long [`fork`]'s caller spins for its tasks before it sleeps.
const SPIN_WAIT: std::time::Duration = std::time::Duration::from_micros(100);

/// `alpha`, `x` and `beta` of one SpMV: what every chunk of it reads.
#[derive(Clone, Copy)]
pub(crate) struct Operands<'x, T> {
    pub alpha: T,
    pub x: &'x [T],
    pub beta: T,
}

/// The skeleton of every threaded SpMV: `y` cut into consecutive chunks, one per piece
/// (of the piece's row count; the last takes what is left), and `run(piece, chunk)` on
/// every piece as a task of [`fork`]; the results in piece order.
fn on_rows<P: Send, R: Send, T: Send>(
    y: &mut [T],
    pieces: impl IntoIterator<Item = (P, usize)>,
    run: impl Fn(P, &mut [T]) -> R + Sync + Send,
) -> Vec<R> {
    let mut work = Vec::new();
    let mut rest = y;
    for (piece, rows) in pieces {
        let rows = rows.min(rest.len());
        let (chunk, tail) = core::mem::take(&mut rest).split_at_mut(rows);
        work.push((piece, chunk));
        rest = tail;
    }
    fork(work, |(piece, chunk)| run(piece, chunk))
}

/// [`on_rows`] for chunk kernels that leave the part of a row they did not finish (the
/// calibrator of thesis 8.5): the carries are added to `y` once every piece has run.
fn on_rows_carried<P: Send, T: Scalar>(
    y: &mut [T],
    pieces: impl IntoIterator<Item = (P, usize)>,
    run: impl Fn(P, &mut [T]) -> Result<Option<Carry<T>>, DimError> + Sync + Send,
) -> Result<(), DimError> {
    let results = on_rows(&mut *y, pieces, run);
    let mut carries = Vec::with_capacity(results.len());
    for carry in results {
        carries.extend(carry?);
    }
    apply_carries(&carries, y)
}

/// [`crate::level2::spmv_csr`] on `threads` tasks: merge path by equal pieces of the merge
/// of row ends and entries (one long row split between tasks), the other methods on the
/// [`balanced_row_partition`] blocks, each block by the serial kernel. One task runs the
/// serial kernel.
pub(crate) fn spmv_csr<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    method: CsrMethod,
    isa: Isa,
    op: Operands<'_, T>,
    y: &mut [T],
    threads: usize,
) -> Result<(), DimError> {
    let work = a.nrows() + a.nnz();
    if tasks(threads, work, work) == 1 {
        return serial_csr(a, method, isa, op.alpha, op.x, op.beta, y);
    }
    check_spmv(isa, a.nrows(), a.ncols(), op.x, y)?;
    if method == CsrMethod::MergePath {
        // Merge path (Merrill & Garland, SC'16): `threads` pieces of equal rows plus
        // entries, each finishing its own rows; the carries at the end.
        let threads = tasks(threads, work, work);
        let mut splits = std::vec![(0usize, 0usize); threads + 1];
        merge_path_splits(a, threads, &mut splits)?;
        let pieces = splits.windows(2).map(|w| ((w[0], w[1]), w[1].0 - w[0].0));
        return on_rows_carried(y, pieces, |(start, end), chunk| {
            spmv_merge_path_piece(a, isa, start, end, op.alpha, op.x, op.beta, chunk).map(Some)
        });
    }
    let threads = tasks(threads, a.nrows(), work);
    let mut bounds = std::vec![0usize; threads + 1];
    balanced_row_partition(a, threads, &mut bounds)?;
    let pieces = bounds.windows(2).map(|w| (w[0]..w[1], w[1] - w[0]));
    on_rows(y, pieces, |rows, chunk| spmv_rows_by(a, method, isa, rows, op.alpha, op.x, op.beta, chunk));
    Ok(())
}

/// [`crate::level2::spmm_csr`] on `threads` tasks (`alpha != 0`, shapes checked): a
/// row-major `Y` by [`balanced_row_partition`] blocks of rows (weighted by `k`), a
/// column-major one by equal blocks of columns, each chunk by the serial kernel, so the
/// result equals the serial one bit for bit.
#[allow(clippy::too_many_arguments)]
pub(crate) fn spmm_csr<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    isa: Checked,
    alpha: T,
    x: DenseRef<'_, T>,
    beta: T,
    y: &mut DenseMut<'_, T>,
    threads: usize,
) {
    let (k, m) = (x.cols(), a.nrows());
    let work = (m + a.nnz()).saturating_mul(k.max(1));
    let (ld, layout) = (y.ld(), y.layout());
    let ys = layout.strides(ld);
    match layout {
        DenseLayout::RowMajor => {
            let threads = tasks(threads, m, work);
            let mut bounds = std::vec![0usize; threads + 1];
            if threads == 1 || balanced_row_partition(a, threads, &mut bounds).is_err() {
                spmm_rows(a, isa, 0..m, alpha, x, beta, y.data_mut(), ys);
                return;
            }
            let pieces = bounds.windows(2).map(|w| (w[0]..w[1], (w[1] - w[0]) * ld));
            on_rows(y.data_mut(), pieces, |rows, chunk| spmm_rows(a, isa, rows, alpha, x, beta, chunk, ys));
        }
        DenseLayout::ColMajor => {
            let threads = tasks(threads, k, work);
            let pieces = (0..threads).map(|p| {
                let (c0, c1) = (k * p / threads, k * (p + 1) / threads);
                (c0..c1, (c1 - c0) * ld)
            });
            on_rows(y.data_mut(), pieces, |cols, chunk| spmm_cols(a, isa, cols, alpha, x, beta, chunk, ys));
        }
    }
}

/// [`crate::level2::spmm_csr5`] on `threads` tasks (`alpha != 0`, shapes checked): a
/// row-major `Y` by equal tile ranges (as [`spmv_csr5`]: equal entries), each range by the
/// serial tile walk into its own rows, the `k`-wide carries of rows that cross ranges
/// added at the end (within rounding of the serial result: such a row's pieces add in
/// another order); a column-major `Y` by equal blocks of columns, each over all tiles by
/// the serial kernel (the serial bits).
#[allow(clippy::too_many_arguments)]
pub(crate) fn spmm_csr5<T: Scalar, I: Index>(
    a: &crate::formats::Csr5<'_, T, I>,
    isa: Checked,
    alpha: T,
    x: DenseRef<'_, T>,
    beta: T,
    y: &mut DenseMut<'_, T>,
    threads: usize,
) {
    use crate::level2::csr5::{mm_tiles, owned_rows};
    let (k, n) = (x.cols(), a.tiles() + 1);
    let work = (a.nrows() + a.nnz()).saturating_mul(k.max(1));
    let (ld, layout) = (y.ld(), y.layout());
    let ys = layout.strides(ld);
    match layout {
        DenseLayout::RowMajor => {
            let threads = tasks(threads, n, work);
            if threads == 1 {
                mm_tiles(a, isa, 0..n, alpha, x, beta, y.data_mut(), ys, &mut [], true);
                return;
            }
            let pieces = (0..threads).map(|p| {
                let tiles = n * p / threads..n * (p + 1) / threads;
                let rows = owned_rows(a, tiles.clone()).map_or(0, |r| r.len());
                (tiles, rows * ld)
            });
            let carries = on_rows(y.data_mut(), pieces, |tiles, chunk| {
                let mut carry = std::vec![T::ZERO; k];
                let end = owned_rows(a, tiles.clone()).map_or(0, |r| r.end);
                mm_tiles(a, isa, tiles, alpha, x, beta, chunk, ys, &mut carry, true).then_some((end, carry))
            });
            let data = y.data_mut();
            for (row, carry) in carries.into_iter().flatten() {
                if let Some(yr) = data.get_mut(row * ld..) {
                    yr.iter_mut().zip(&carry).for_each(|(v, &c)| *v += c);
                }
            }
        }
        DenseLayout::ColMajor => {
            let threads = tasks(threads, k, work);
            let xs = x.layout().strides(x.ld()).1;
            let pieces = (0..threads).map(|p| {
                let (c0, c1) = (k * p / threads, k * (p + 1) / threads);
                (c0..c1, (c1 - c0) * ld)
            });
            on_rows(y.data_mut(), pieces, |cols, chunk| {
                let xd = x.data().get(cols.start * xs..).unwrap_or(&[]);
                if let Ok(xc) = DenseRef::new(x.rows(), cols.len(), x.ld(), x.layout(), xd) {
                    mm_tiles(a, isa, 0..n, alpha, xc, beta, chunk, ys, &mut [], k == 1);
                }
            });
        }
    }
}

/// `SpMv for Symmetric` on `threads` tasks (`alpha != 0`, shapes checked): the stored
/// triangle's rows in [`balanced_row_partition`] blocks (weighted as twice the entries:
/// each is read for a dot product and a scatter), each block writing its rows of `y` and
/// scattering only into them ([`sym_block_spmv`]), then the cross entries by
/// [`cross_all`]. No copy of `y`; the serial result bit for bit. One task runs the serial
/// kernel.
#[allow(clippy::too_many_arguments)]
pub(crate) fn spmv_symmetric<T: Scalar, I: Index>(
    a: &Symmetric<'_, T, I>,
    isa: Checked,
    alpha: T,
    x: &[T],
    beta: T,
    y: &mut [T],
    threads: usize,
) {
    let (t, n) = (a.triangle_csr(), a.n());
    let work = n + 2 * t.nnz();
    let threads = tasks(threads, n, work);
    let mut bounds = std::vec![0usize; threads + 1];
    if threads == 1 || balanced_row_partition(&t, threads, &mut bounds).is_err() {
        sym_block_spmv(a, isa, 0..n, alpha, x, beta, y);
        return;
    }
    let pieces = bounds.windows(2).map(|w| (w[0]..w[1], w[1] - w[0]));
    let crosses = on_rows(y, pieces, |rows, chunk| sym_block_spmv(a, isa, rows, alpha, x, beta, chunk));
    cross_all(a, &bounds, &crosses, alpha, (x, (1, 0)), 1, y, (1, 0));
}

/// `SpMm for Symmetric` on `threads` tasks (`alpha != 0`, shapes checked): a row-major `Y`
/// as [`spmv_symmetric`] (blocks of rows, then the cross entries; within rounding of the
/// serial result, the cross step not fusing its multiply-adds), a column-major one by
/// equal blocks of columns, each a whole pass over the triangle (the serial bits).
#[allow(clippy::too_many_arguments)]
pub(crate) fn spmm_symmetric<T: Scalar, I: Index>(
    a: &Symmetric<'_, T, I>,
    isa: Checked,
    alpha: T,
    x: DenseRef<'_, T>,
    beta: T,
    y: &mut DenseMut<'_, T>,
    threads: usize,
) {
    let (t, n, k) = (a.triangle_csr(), a.n(), x.cols());
    let work = (n + 2 * t.nnz()).saturating_mul(k.max(1));
    let (ld, layout) = (y.ld(), y.layout());
    let ys = layout.strides(ld);
    match layout {
        DenseLayout::RowMajor => {
            let threads = tasks(threads, n, work);
            let mut bounds = std::vec![0usize; threads + 1];
            if threads == 1 || balanced_row_partition(&t, threads, &mut bounds).is_err() {
                sym_block_spmm(a, isa, 0..n, 0..k, alpha, x, beta, y.data_mut(), ys);
                return;
            }
            let pieces = bounds.windows(2).map(|w| (w[0]..w[1], (w[1] - w[0]) * ld));
            let crosses = on_rows(y.data_mut(), pieces, |rows, chunk| {
                sym_block_spmm(a, isa, rows, 0..k, alpha, x, beta, chunk, ys)
            });
            let xs = x.layout().strides(x.ld());
            cross_all(a, &bounds, &crosses, alpha, (x.data(), xs), k, y.data_mut(), ys);
        }
        DenseLayout::ColMajor => {
            let threads = tasks(threads, k, work);
            let pieces = (0..threads).map(|p| {
                let (c0, c1) = (k * p / threads, k * (p + 1) / threads);
                (c0..c1, (c1 - c0) * ld)
            });
            on_rows(y.data_mut(), pieces, |cols, chunk| {
                sym_block_spmm(a, isa, 0..n, cols, alpha, x, beta, chunk, ys)
            });
        }
    }
}

/// The cross entries of every block of a split symmetric product (`bounds`: the blocks'
/// row boundaries, `crosses` what each left), after every block has written its rows:
/// all blocks at once, each into the rows of its neighbour (the block before it for a
/// lower triangle, after it for an upper one), where every block's targets lie in that
/// neighbour and the entries are worth a fork; else block by block in the serial order
/// on the calling thread. Either way each `Y[j, ..]` receives its additions in the
/// serial kernel's order. `x`, `k`, `ys` as [`cross_step`].
#[allow(clippy::too_many_arguments)]
fn cross_all<T: Scalar, I: Index>(
    a: &Symmetric<'_, T, I>,
    bounds: &[usize],
    crosses: &[Cross],
    alpha: T,
    x: (&[T], (usize, usize)),
    k: usize,
    y: &mut [T],
    ys: (usize, usize),
) {
    let lower = a.triangle() == Triangle::Lower;
    let row_ptr = a.triangle_csr().row_ptr();
    let blocks: Vec<_> = bounds.windows(2).map(|w| sym_block(a, w[0]..w[1])).collect();
    let entries = |c: &Cross| {
        if c.is_empty() { 0 } else { row_ptr[c.rows.1].to_usize() - row_ptr[c.rows.0].to_usize() }
    };
    let work = crosses.iter().map(entries).sum::<usize>().saturating_mul(k.max(1));
    // The neighbour whose rows block `p`'s cross entries scatter into, if they all do.
    let neighbour = |p: usize| if lower { p.checked_sub(1) } else { Some(p + 1) };
    let disjoint = crosses.iter().enumerate().all(|(p, c)| {
        c.is_empty()
            || neighbour(p).is_some_and(|q| {
                q + 1 < bounds.len() && bounds[q] <= c.targets.0 && c.targets.1 <= bounds[q + 1]
            })
    });
    if disjoint && work >= SERIAL_WORK {
        // Chunk `q` (block `q`'s rows of `Y`) takes the cross entries of the block whose
        // neighbour it is.
        let pieces = (0..blocks.len()).map(|q| (q, (bounds[q + 1] - bounds[q]) * ys.0.max(1)));
        on_rows(y, pieces, |q, chunk| {
            let src = if lower { q + 1 } else { q.wrapping_sub(1) };
            if let (Some(&b), Some(&c)) = (blocks.get(src), crosses.get(src)) {
                cross_step(a, b, c, alpha, x, k, chunk, bounds[q], ys);
            }
        });
        return;
    }
    let mut order: Vec<usize> = (0..blocks.len()).collect();
    if !lower {
        order.reverse();
    }
    for p in order {
        cross_step(a, blocks[p], crosses[p], alpha, x, k, y, 0, ys);
    }
}

/// A [`SpmvPlan`]'s SpMV on `isa`, on `threads` tasks: a CSR5 plan as [`spmv_csr5`] (equal
/// tile ranges, then the carries), a CSR5-panels plan by [`spmv_csr5_panels`], a DIA plan on
/// equal row blocks (the serial plan's bits), and the CSR methods as [`spmv_csr`].
pub(crate) fn spmv_plan<T: Scalar, I: Index>(
    plan: &SpmvPlan<'_, T, I>,
    isa: Isa,
    op: Operands<'_, T>,
    y: &mut [T],
    threads: usize,
) -> Result<(), DimError> {
    let a = plan.matrix();
    match plan.run() {
        Run::Csr5(c5) => spmv_csr5(&c5.view(), isa, op, y, threads),
        Run::Csr5Panels(panels, _) => spmv_csr5_panels(panels, isa, op, y, threads),
        Run::Dia(d) => {
            // Rows of DIA hold equal work: equal row blocks, each by the serial kernel.
            check_spmv(isa, a.nrows(), a.ncols(), op.x, y)?;
            let isa = Checked::new(isa)?;
            let m = a.nrows();
            let threads = tasks(threads, m, m + a.nnz());
            let cut = |p: usize| m * p / threads;
            let pieces = (0..threads).map(|p| (cut(p), cut(p + 1) - cut(p)));
            on_rows(y, pieces, |first, chunk| d.view().rows(isa, first, op.alpha, op.x, op.beta, chunk));
            Ok(())
        }
        &Run::Csr(m) => spmv_csr(&a, m, isa, op, y, threads),
    }
}

/// `y = alpha * A * x + beta * y` for CSR5 (thesis 8.5) on `threads` tasks: the tile indices
/// `0..=tiles` cut into `threads` ranges of equal tile counts (equal entries: the load
/// balance CSR5 is built for), each range by [`crate::level2::csr5::spmv_tiles`] on its own
/// rows of `y`, the carries added at the end. Errors as `SpMv for Csr5`; `y` is untouched
/// on error.
pub(crate) fn spmv_csr5<T: Scalar, I: Index>(
    a: &crate::formats::Csr5<'_, T, I>,
    isa: Isa,
    op: Operands<'_, T>,
    y: &mut [T],
    threads: usize,
) -> Result<(), DimError> {
    use crate::level2::csr5::{owned_rows, spmv_tiles};
    check_spmv(isa, a.nrows(), a.ncols(), op.x, y)?;
    let n = a.tiles() + 1;
    let threads = tasks(threads, n, a.nrows() + a.nnz());
    let pieces = (0..threads).map(|p| {
        let tiles = n * p / threads..n * (p + 1) / threads;
        let rows = owned_rows(a, tiles.clone()).map_or(0, |r| r.len());
        (tiles, rows)
    });
    on_rows_carried(y, pieces, |tiles, chunk| spmv_tiles(a, isa, tiles, op.alpha, op.x, op.beta, chunk))
}

/// `y = alpha * A * x + beta * y` for the CSR5 column panels of a
/// [`crate::level2::SpmvChoice::Csr5Panels`] plan (all of one shape, `A` their sum) on
/// `threads` tasks. Worker `w` runs range `w` of equal
/// tile ranges of every panel in turn, adding into a `y` of its own that spans only the
/// rows those ranges own (so no worker waits for another between panels, and all read
/// the same panel's stretch of `x` at once, each from its own L2 cache); then the
/// workers' `y`s are added up, row blocks in parallel. Within rounding of the serial
/// plan (the sums associate differently), the same bits for the same thread count.
///
/// A whole `y` per worker cost a matrix of many rows (`rmat`, 16 panels of `f64`) more to
/// clear and add up than the panels saved; a join per panel cost more than each worker's
/// share of a panel (`scaling --matrix rmat|lp_like`, `benches/records/scaling-*`).
///
/// Errors as `SpMv for Csr5`, and [`DimError::Overflow`] (`"room"`) if the workers' `y`s
/// cannot be allocated; `y` is untouched on error.
fn spmv_csr5_panels<T: Scalar, I: Index>(
    panels: &[crate::Csr5Owned<T, I>],
    isa: Isa,
    op: Operands<'_, T>,
    y: &mut [T],
    threads: usize,
) -> Result<(), DimError> {
    let Operands { alpha, x, beta } = op;
    use crate::level2::csr5::{owned_rows, spmv_tiles};
    let Some(first) = panels.first() else {
        return Err(DimError::Parameter { name: "panels", value: 0 });
    };
    let (m, n) = (first.view().nrows(), first.view().ncols());
    check_spmv(isa, m, n, x, y)?;
    if let Some(k) = panels.iter().position(|p| (p.view().nrows(), p.view().ncols()) != (m, n)) {
        return Err(DimError::Parameter { name: "panels", value: k });
    }
    let most = panels.iter().map(|p| p.view().tiles() + 1).max().unwrap_or(1);
    let threads = tasks(threads, most, m + panels.iter().map(|p| p.view().nnz()).sum::<usize>());
    if alpha == T::ZERO || threads == 1 {
        return crate::level2::spmv_panels(panels, isa, alpha, x, beta, y);
    }
    // Worker `w` runs tile range `w` of every panel that has one: its rows in panel `p`
    // are `owned_rows`, plus the row its carry goes to (the row after them). Its `y` covers
    // the span of those rows over all panels, not all of `y`: on a matrix of many rows
    // (`rmat`, 1M) a whole `y` per worker cost more to clear and to sum than the panels
    // saved.
    let room =
        DimError::Overflow { what: "room", value: m, max: isize::MAX as usize / size_of::<T>().max(1) };
    let partial = fork((0..threads).collect(), |w| -> Result<(Range<usize>, Vec<T>), DimError> {
        let mine: Vec<_> = panels
            .iter()
            .filter_map(|p| {
                let a = p.view();
                let n = a.tiles() + 1;
                let tiles = n * w / threads..n * (w + 1) / threads;
                let rows = owned_rows(&a, tiles.clone()).unwrap_or(0..0);
                (!tiles.is_empty()).then_some((a, tiles, rows))
            })
            .collect();
        let (lo, hi) =
            mine.iter().fold((m, 0), |(lo, hi), (_, _, r)| (lo.min(r.start), hi.max((r.end + 1).min(m))));
        let span = lo..hi.max(lo);
        let mut own = Vec::new();
        own.try_reserve_exact(span.len()).map_err(|_| room)?;
        own.resize(span.len(), T::ZERO);
        for (a, tiles, rows) in mine {
            let local = rows.start - span.start..rows.end - span.start;
            let carry = spmv_tiles(&a, isa, tiles, alpha, x, T::ONE, &mut own[local])?;
            for c in carry.iter().filter(|c| c.row < m) {
                let slot = c.row.checked_sub(span.start).and_then(|i| own.get_mut(i));
                let slot = slot.ok_or(DimError::Parameter { name: "carry.row", value: c.row })?;
                *slot += c.value;
            }
        }
        Ok((span, own))
    });
    let mut parts = Vec::with_capacity(threads);
    for r in partial {
        // Only the allocation can fail after the checks above.
        parts.push(r?);
    }
    // y = beta y + the workers' sums, in worker order, on row blocks of at least
    // SUM_ROWS rows (a block of fewer costs less than the thread that would add it).
    let blocks = threads.min(m.div_ceil(SUM_ROWS)).max(1);
    let block = m.div_ceil(blocks).max(1);
    let parts = &parts;
    let sum_block = move |b: usize, chunk: &mut [T]| {
        let first = b * block;
        let rows = first..first + chunk.len();
        // The workers whose spans meet this block, in worker order.
        let near: Vec<&(Range<usize>, Vec<T>)> =
            parts.iter().filter(|(span, _)| span.start < rows.end && rows.start < span.end).collect();
        for (k, yi) in chunk.iter_mut().enumerate() {
            let i = first + k;
            let sum = near
                .iter()
                .filter(|(span, _)| span.contains(&i))
                .fold(T::ZERO, |acc, (span, own)| acc + own[i - span.start]);
            *yi = if beta == T::ZERO { sum } else { beta * *yi + sum };
        }
    };
    on_rows(y, (0..blocks).map(|b| (b, block)), sum_block);
    Ok(())
}

/// [`crate::level2::spmv_csr_transpose`] on `threads` tasks: the rows of `A` in
/// [`balanced_row_partition`] blocks, the first scattered into `y` (scaled by `beta` first),
/// each other into a zeroed `y` of its own; then the copies added into `y` in task order,
/// column blocks in parallel. Tasks are capped at one per `ncols` rows plus entries (each
/// copy costs `ncols` to clear and to add). One task, or `alpha == 0`, runs the serial
/// kernel. Errors as the serial kernel, and [`DimError::Overflow`] (`"room"`) if a copy
/// cannot be allocated; `y` is untouched on error.
pub(crate) fn spmv_csr_transpose<T: Scalar, I: Index>(
    a: &Csr<'_, T, I>,
    isa: Isa,
    op: Operands<'_, T>,
    y: &mut [T],
    threads: usize,
) -> Result<(), DimError> {
    use crate::level2::csc::{scatter_rows, serial_transpose};
    let Operands { alpha, x, beta } = op;
    let (m, n) = (a.nrows(), a.ncols());
    let work = m + a.nnz();
    let threads = tasks(threads, m.min((work / n.max(1)).max(1)), work);
    if threads == 1 || alpha == T::ZERO {
        return serial_transpose(a, isa, alpha, x, beta, y);
    }
    check_spmv(isa, n, m, x, y)?;
    let isa = Checked::new(isa)?;
    let mut bounds = std::vec![0usize; threads + 1];
    balanced_row_partition(a, threads, &mut bounds)?;
    // Every copy is had before `y` is touched. Zeroed by the allocator: fresh pages are
    // cleared where they are first touched, by the task that scatters into them.
    let room =
        DimError::Overflow { what: "room", value: n, max: isize::MAX as usize / size_of::<T>().max(1) };
    let mut copies: Vec<Vec<T>> = Vec::new();
    copies.try_reserve_exact(threads - 1).map_err(|_| room)?;
    for _ in 1..threads {
        copies.push(bytemuck::allocation::try_zeroed_vec(n).map_err(|_| room)?);
    }
    let mut work: Vec<(Range<usize>, &mut [T], bool)> = Vec::with_capacity(threads);
    work.push((bounds[0]..bounds[1], &mut *y, true));
    for (w, own) in bounds[1..].windows(2).zip(copies.iter_mut()) {
        work.push((w[0]..w[1], own.as_mut_slice(), false));
    }
    fork(work, |(rows, out, first)| {
        if first {
            crate::level2::scale_y(beta, out);
        }
        scatter_rows(a, isa, rows, alpha, x, out);
    });
    let blocks = threads.min(n.div_ceil(SUM_ROWS)).max(1);
    let block = n.div_ceil(blocks).max(1);
    let copies = &copies;
    on_rows(y, (0..blocks).map(|b| (b, block)), move |b: usize, chunk: &mut [T]| {
        let cols = b * block..b * block + chunk.len();
        for own in copies {
            for (yj, &c) in chunk.iter_mut().zip(&own[cols.clone()]) {
                *yj += c;
            }
        }
    });
    Ok(())
}

/// Rows of `y` below which [`spmv_csr5_panels`] sums the workers' `y`s on one thread.
const SUM_ROWS: usize = 4096;

/// [`crate::level3::spgemm`] on `threads` tasks (the operands checked, `isa` their token):
/// the rows of `A` cut into contiguous ranges holding about equal shares of the candidate
/// products (the upper bounds of 9.4.1, summed over fine row blocks in parallel), each
/// range multiplied by the row loop of the serial hybrid allocation into its region of
/// one shared output, and the regions slid together. The kernel choice (the per-bin rule
/// and its sample, or `cfg.method`) is made once for the whole product, so every row
/// comes out exactly as on one thread; one task runs the serial product. The output
/// goes into `reuse`'s arrays where given ([`crate::level3::spgemm_reuse`]), which keep
/// their capacity. Errors as `spgemm`.
pub(crate) fn spgemm<T: Scalar + ScanElem, I: Index + Key>(
    isa: Checked,
    cfg: SpgemmConfig,
    a: &Csr<'_, T, I>,
    b: &Csr<'_, T, I>,
    threads: usize,
    reuse: Option<Piece<T, I>>,
) -> Result<(CsrOwned<T, I>, SpgemmStats), DimError> {
    let nrows = a.nrows();
    let threads = tasks(threads, nrows, nrows + a.nnz());
    if threads == 1 {
        return hybrid_product(isa, cfg, a, b, reuse);
    }
    let keep = reuse.is_some();
    let Piece { row_ptr: old_ptr, col_idx: old_ci, vals: old_v } =
        reuse.unwrap_or(Piece { row_ptr: Vec::new(), col_idx: Vec::new(), vals: Vec::new() });
    let rule = Rule::new(cfg.method, a, b);
    // Fine blocks of equal rows plus entries of `A`, their costs ([`row_cost`]) summed
    // in parallel: from samples of their rows ([`Sizing::Sampled`]), or by a walk of
    // every row ([`walk_rows`]) that also gives what each range's advance allocation
    // needs. The ranges are cut in the blocks where the running cost passes each
    // `k / threads` share.
    let ctx = Ctx { a, b, isa };
    let sizing = Sizing::of(&ctx);
    let nblocks = threads.saturating_mul(SPGEMM_BLOCKS).min(nrows);
    let mut fine = std::vec![0usize; nblocks + 1];
    balanced_row_partition(a, nblocks, &mut fine)?;
    let blocks: Vec<Range<usize>> = fine.windows(2).map(|w| w[0]..w[1]).collect();
    let walks: Vec<Walk> = fork(blocks.chunks(SPGEMM_BLOCKS).collect(), |chunk| {
        let walk = |rows: &Range<usize>| match sizing {
            Sizing::Sampled { .. } => {
                Walk { cost: sampled_cost(&ctx, rows.clone(), row_cost), ..Walk::EMPTY }
            }
            Sizing::Walked => walk_rows(&ctx, rule, rows.clone(), row_cost),
        };
        chunk.iter().map(walk).collect::<Vec<Walk>>()
    })
    .into_iter()
    .flatten()
    .collect();
    let total = walks.iter().fold(0usize, |s, w| s.saturating_add(w.cost));
    let mut bounds = Vec::with_capacity(threads + 1);
    bounds.push(0);
    let mut run = 0usize;
    for (rows, w) in blocks.iter().zip(&walks) {
        let before = run;
        run = run.saturating_add(w.cost);
        let share = (total as u128 * bounds.len() as u128 / threads as u128) as usize;
        if bounds.len() < threads && run >= share {
            let cut = if let Sizing::Sampled { .. } = sizing {
                // Sampled rows cost alike: the cut where the share falls, pro rata.
                // (A block past two shares was cut for the first: `before` may pass this one.)
                let into = share.saturating_sub(before) as u128 * rows.len() as u128 / w.cost.max(1) as u128;
                rows.start + (into as usize).min(rows.len())
            } else {
                // The cut at the row end inside the block nearest the share, not at the
                // block's end: a block holding a heavy row (a circuit's rail, a seventh
                // of `dc2_like`'s products) would otherwise move it with the cut.
                let (mut at, mut cut) = (before, rows.end);
                for i in rows.clone() {
                    let next = at.saturating_add(row_cost(row_upper_bound(a, b, i)));
                    if next >= share {
                        cut = if share.saturating_sub(at) <= next - share { i } else { i + 1 };
                        break;
                    }
                    at = next;
                }
                cut
            };
            bounds.push(cut.max(bounds.last().copied().unwrap_or(0)));
        }
    }
    while bounds.len() <= threads {
        bounds.push(nrows);
    }
    let ranges: Vec<_> = bounds.windows(2).map(|w| w[0]..w[1]).collect();
    // Each range's advance allocation (its sampled estimate of its rows' `nnz`) and the
    // bound of `nnz(C)` it sums.
    let mut room_of: Vec<(Range<usize>, Walk)> = ranges.iter().map(|r| (r.clone(), Walk::EMPTY)).collect();
    if sizing == Sizing::Walked {
        // Each range's walk: its whole blocks' walks, and the rows of a block a cut
        // splits walked again on either side of the cut.
        let mut k = 0;
        for (rows, w) in blocks.iter().zip(&walks) {
            let mut at = rows.start;
            while at < rows.end {
                while ranges[k].end <= at {
                    k += 1;
                }
                let end = ranges[k].end.min(rows.end);
                if at == rows.start && end == rows.end {
                    room_of[k].1.add(w);
                } else {
                    room_of[k].1.add(&walk_rows(&ctx, rule, at..end, row_cost));
                }
                at = end;
            }
        }
    }
    let (mut room, mut bound) = (Vec::with_capacity(ranges.len()), 0usize);
    for r in fork(room_of, |(rows, w)| match sizing {
        Sizing::Sampled { longest } => sampled_advance(&ctx, rows, longest, &mut Vec::new()),
        Sizing::Walked => advance_of(&ctx, rows, &w, &mut Vec::new()),
    }) {
        let r = r.map_err(room_err)?;
        room.push(r.start);
        bound = bound.saturating_add(r.bound);
    }
    // Where the bound passes `I::MAX`, the ranges' rows are counted (in parallel) before
    // any piece allocates its output: a product that cannot fit is refused without it.
    if bound > I::MAX_USIZE {
        let mut nnz = 0usize;
        for count in fork(ranges.clone(), |rows| count_nnz(isa, a, b, rows, None)) {
            nnz = nnz.saturating_add(count?);
        }
        if nnz > I::MAX_USIZE {
            return Err(DimError::Overflow { what: "nnz(C)", value: nnz, max: I::MAX_USIZE });
        }
    }
    // One output for all pieces, zeroed by the allocator (fresh pages nothing touched
    // yet), cut into one region per range as large as that range's advance allocation:
    // each task writes its rows into its own region, where they stay, and the regions
    // are then slid together. Pieces computed apart and copied into the output touched
    // every page of `C` twice, and those first touches were most of the threaded
    // product's time (`benches/records/spgemm-estimate-*.md`).
    let total = room.iter().fold(0usize, |s, &r| s.saturating_add(r));
    let mut col_idx = sized(old_ci, total)?;
    let mut vals = sized(old_v, total)?;
    advise(&col_idx, cfg.huge_pages);
    advise(&vals, cfg.huge_pages);
    let mut tasks = Vec::with_capacity(ranges.len());
    let (mut ci_rest, mut v_rest) = (&mut col_idx[..], &mut vals[..]);
    for (rows, &r) in ranges.iter().zip(&room) {
        let (ci, ci_next) = core::mem::take(&mut ci_rest).split_at_mut(r);
        let (v, v_next) = core::mem::take(&mut v_rest).split_at_mut(r);
        (ci_rest, v_rest) = (ci_next, v_next);
        tasks.push((rows.clone(), ci, v));
    }
    let pieces = fork(tasks, |(rows, ci, v)| region_rows(isa, rule, cfg.huge_pages, a, b, rows, (ci, v)));
    let mut parts: Vec<RegionRows<T, I>> = Vec::with_capacity(pieces.len());
    for p in pieces {
        // An error (allocation) is passed on.
        parts.push(p?);
    }
    let nnz = parts.iter().fold(0usize, |s, p| s.saturating_add(p.in_region + p.over_idx.len()));
    if nnz > I::MAX_USIZE {
        return Err(DimError::Overflow { what: "nnz(C)", value: nnz, max: I::MAX_USIZE });
    }
    let mut row_ptr = sized(old_ptr, nrows + 1)?;
    // The ranges write every entry but the first (a reused array's is already 0).
    row_ptr[0] = I::ZERO;
    advise(&row_ptr, cfg.huge_pages);
    let stats = region_stats(&parts, total, nnz, nrows);
    if parts.iter().all(|p| p.over_idx.is_empty()) {
        // Slide each region down to where the ones before it end (`base + len <= nnz
        // <= I::MAX`, checked above).
        let (mut base, mut row) = (0usize, 0usize);
        for p in &parts {
            let rp = &p.row_ptr;
            shift_ends(&mut row_ptr[row + 1..row + rp.len()], &rp[1..], base);
            (base, row) = (base + p.in_region, row + rp.len() - 1);
        }
        let pieces: Vec<(usize, usize)> = parts.iter().zip(&room).map(|(p, &r)| (r, p.in_region)).collect();
        slide(&mut col_idx, &mut vals, &pieces, threads, WAVE_NS);
        col_idx.truncate(nnz);
        vals.truncate(nnz);
        if !keep {
            give_back(&mut col_idx);
            give_back(&mut vals);
        }
        let c = CsrOwned::from_parts_trusted(nrows, b.ncols(), row_ptr, col_idx, vals, RowOrder::Canonical);
        return Ok((c, stats));
    }
    // Some rows spilled past their region (an estimate fell short): every piece, its
    // region's part then its spill, is copied into a fresh output by its own task.
    let mut out_ci: Vec<I> = bytemuck::allocation::try_zeroed_vec(nnz).map_err(|_| room_err(nnz))?;
    let mut out_v: Vec<T> = bytemuck::allocation::try_zeroed_vec(nnz).map_err(|_| room_err(nnz))?;
    advise(&out_ci, cfg.huge_pages);
    advise(&out_v, cfg.huge_pages);
    let mut copies = Vec::with_capacity(parts.len());
    let (mut rp_out, mut ci_out, mut v_out) = (&mut row_ptr[1..], &mut out_ci[..], &mut out_v[..]);
    let (mut base, mut region) = (0usize, 0usize);
    for (p, &r) in parts.iter().zip(&room) {
        let (len, over) = (p.in_region, p.over_idx.len());
        let src = (&p.row_ptr[1..], &col_idx[region..region + len], &vals[region..region + len]);
        let (rp_o, rp_rest) = core::mem::take(&mut rp_out).split_at_mut(src.0.len());
        let (ci_o, ci_rest) = core::mem::take(&mut ci_out).split_at_mut(len + over);
        let (v_o, v_rest) = core::mem::take(&mut v_out).split_at_mut(len + over);
        (rp_out, ci_out, v_out) = (rp_rest, ci_rest, v_rest);
        copies.push((base, p, src, (rp_o, ci_o, v_o)));
        (base, region) = (base + len + over, region + r);
    }
    fork(copies, |(base, p, (rp, ci, v), (rp_o, ci_o, v_o))| {
        shift_ends(rp_o, rp, base);
        let (ci_in, ci_over) = ci_o.split_at_mut(ci.len());
        let (v_in, v_over) = v_o.split_at_mut(ci.len());
        ci_in.copy_from_slice(ci);
        v_in.copy_from_slice(v);
        ci_over.copy_from_slice(&p.over_idx);
        v_over.copy_from_slice(&p.over_vals);
    });
    Ok((CsrOwned::from_parts_trusted(nrows, b.ncols(), row_ptr, out_ci, out_v, RowOrder::Canonical), stats))
}

/// `v` at length `len`: a reused array cut to it, or grown to it within its capacity (so
/// memory faulted in before is written again, not fresh pages); past its capacity, or
/// with no array to reuse, a fresh zeroed one, whose pages the tasks touch first.
fn sized<X: bytemuck::Zeroable + Copy>(mut v: Vec<X>, len: usize) -> Result<Vec<X>, DimError> {
    if v.len() >= len {
        v.truncate(len);
        Ok(v)
    } else if v.capacity() >= len {
        v.resize(len, X::zeroed());
        Ok(v)
    } else {
        drop(v);
        bytemuck::allocation::try_zeroed_vec(len).map_err(|_| room_err(len))
    }
}

/// Moves the pieces of `col_idx` and `vals` together to the front, in order: piece `k`
/// is `pieces[k].1` entries at the start of its region of `pieces[k].0`. A piece moves
/// left by the room left over before it (its `gap`). Where the tasks pay for it, the move
/// goes in waves of `gap` entries, each split among the tasks: a wave's destination holds
/// only entries that earlier waves already moved and its source lies `gap` entries past
/// it, so the copies of a wave are disjoint. Where the gap is too small for waves (room
/// capped at the upper bound: gaps of tens of entries) the piece moves in one chunk per
/// task ([`shift_in_chunks`]). On one thread the slide of a large product was a serial
/// copy of most of `C` (`benches/records/scaling-2026-11-29-xeon-avx512.md`,
/// `benches/records/spgemm-sizing-*.md`).
fn slide<T: Copy + Send + Sync, I: Copy + Send + Sync>(
    col_idx: &mut [I],
    vals: &mut [T],
    pieces: &[(usize, usize)],
    threads: usize,
    wave_ns: usize,
) {
    let (mut base, mut region) = (0usize, 0usize);
    for &(room, len) in pieces {
        let gap = region - base;
        if gap > 0 && len > 0 {
            // A wave costs about a fork; the serial copy about a byte per nanosecond
            // per 10 (memmove's speed on one core), of which the tasks save all but
            // their share.
            let waves = len.div_ceil(gap);
            let bytes = len * (size_of::<T>() + size_of::<I>());
            if threads > 1 && waves.saturating_mul(wave_ns) < bytes / 10 - bytes / 10 / threads {
                let mut done = 0;
                while done < len {
                    let w = gap.min(len - done);
                    let at = base + done;
                    let (ci_dst, ci_src) = col_idx[at..at + gap + w].split_at_mut(gap);
                    let (v_dst, v_src) = vals[at..at + gap + w].split_at_mut(gap);
                    let chunk = w.div_ceil(threads).max(WAVE_CHUNK);
                    let work: Vec<_> = ci_dst[..w]
                        .chunks_mut(chunk)
                        .zip(ci_src[..w].chunks(chunk))
                        .zip(v_dst[..w].chunks_mut(chunk).zip(v_src[..w].chunks(chunk)))
                        .collect();
                    fork(work, |((cd, cs), (vd, vs))| {
                        cd.copy_from_slice(cs);
                        vd.copy_from_slice(vs);
                    });
                    done += w;
                }
            } else if threads > 1
                && gap.saturating_mul(threads) <= len / 16
                && wave_ns < bytes / 10 - bytes / 10 / threads
                && shift_in_chunks(&mut col_idx[base..region + len], gap, threads)
            {
                // The values as the columns (both or neither: the columns' side room was
                // had, the values' is asked for below).
                if !shift_in_chunks(&mut vals[base..region + len], gap, threads) {
                    vals.copy_within(region..region + len, base);
                }
            } else {
                col_idx.copy_within(region..region + len, base);
                vals.copy_within(region..region + len, base);
            }
        }
        base += len;
        region += room;
    }
}

/// Moves `buf[gap..]` to the front of `buf` on `threads` tasks, where `gap` is small
/// against the length (a product's regions sized by an estimate that the upper bound
/// capped, `uniform_random`: gaps of tens of entries, which waves would take hundreds of
/// thousands of forks to close): the moved part cut into one chunk per task, each
/// chunk's first `gap` elements set aside, each chunk moved down by `gap` within
/// itself, then the set-aside heads written into the `gap` elements before their
/// chunks (the previous chunk's tail, which its move left behind). Whether it ran: not
/// if the side room for the heads cannot be had (the caller copies serially then).
fn shift_in_chunks<X: Copy + Send + Sync>(buf: &mut [X], gap: usize, threads: usize) -> bool {
    let len = buf.len() - gap;
    let chunk = len.div_ceil(threads).max(1);
    let heads = len.div_ceil(chunk);
    let mut side: Vec<X> = Vec::new();
    if gap == 0 || chunk < 2 * gap || side.try_reserve_exact(heads * gap).is_err() {
        return false;
    }
    // A chunk's head: its first `gap` elements, all of a last chunk shorter than that.
    let moved = &mut buf[gap..];
    for c in moved.chunks(chunk) {
        side.extend_from_slice(&c[..gap.min(c.len())]);
    }
    fork(moved.chunks_mut(chunk).collect(), |c: &mut [X]| {
        if c.len() > gap {
            c.copy_within(gap.., 0);
        }
    });
    // Chunk `k` starts at `gap + k * chunk` in `buf`; its head goes `gap` before.
    let mut at = 0;
    for k in 0..heads {
        let h = gap.min(len - k * chunk);
        buf[k * chunk..k * chunk + h].copy_from_slice(&side[at..at + h]);
        at += h;
    }
    true
}

/// What [`slide`] counts a wave (a fork of copies) to cost, in nanoseconds: about a
/// threaded call's overhead at 16 threads (`benches/records/overhead-*.md`).
const WAVE_NS: usize = 20_000;

/// Entries a task of a [`slide`] wave copies at least.
const WAVE_CHUNK: usize = 1 << 12;

/// A piece's row ends `ends` (from its own start) as ends in the whole output, whose
/// entries before the piece number `base` (the caller checked `base + ends <= I::MAX`).
fn shift_ends<I: Index>(out: &mut [I], ends: &[I], base: usize) {
    for (o, &e) in out.iter_mut().zip(ends) {
        *o = I::from_usize_unchecked(base + e.to_usize());
    }
}

/// Row blocks per task whose costs ([`row_cost`]) [`spgemm`] sums to place its cuts.
const SPGEMM_BLOCKS: usize = 16;

/// The cost by which [`spgemm`] balances its ranges, in candidate products of a long row,
/// of a row with `ub` candidate products: `ub` plus [`ROW_COST`] for a row that
/// accumulates (two or more candidates), `ub + 1` for an empty or single one (so that
/// runs of them split too).
fn row_cost(ub: usize) -> usize {
    if ub <= 1 { ub + 1 } else { ub.saturating_add(ROW_COST) }
}

/// What a row that accumulates costs besides its products, in products of a long row: a
/// short row sorts its candidates in a fixed network of registers whatever their
/// number, where a circuit's rail adds each product to its dense row for a few
/// nanoseconds. Balancing by products alone gave `dc2_like`'s two threads 58% and 42%
/// of the time; `benches/records/peers-spgemm-reuse-*.md`.
const ROW_COST: usize = 32;

/// One triangular solve's operands, as the drivers below read them (checked by
/// [`crate::level2::TriangularSolve`]).
#[derive(Clone, Copy)]
pub(crate) struct Solve<'s, 'a, T, I> {
    pub a: &'s Csr<'a, T, I>,
    pub triangle: Triangle,
    pub unit: bool,
    pub alpha: T,
    pub nrhs: usize,
}

/// The solution of a threaded triangular solve while it is being computed: each value's
/// bits in an atomic (`f32` through the exact widening to `f64`), so workers read the rows
/// others solved in safe Rust; Relaxed accesses are plain loads and stores on x86-64 and
/// AArch64. `None` where the allocation is refused (the caller then solves serially).
fn atomic_values(len: usize) -> Option<Vec<AtomicU64>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).ok()?;
    v.resize_with(len, || AtomicU64::new(0));
    Some(v)
}

#[inline(always)]
fn load<T: Scalar>(v: &AtomicU64) -> T {
    T::from_f64(f64::from_bits(v.load(Ordering::Relaxed)))
}

#[inline(always)]
fn store<T: Scalar>(v: &AtomicU64, t: T) {
    v.store(t.to_f64().to_bits(), Ordering::Relaxed);
}

/// Solves row `i` reading `b` from `b` and the solved rows from `xs`, writing row `i` of
/// `xs`: the row kernels of the serial solve, so the same bits.
#[inline(always)]
fn solve_row_shared<T: Scalar, I: Index>(p: Solve<'_, '_, T, I>, i: usize, b: &[T], xs: &[AtomicU64]) {
    let a = p.a;
    let r = a.row_ptr()[i].to_usize()..a.row_ptr()[i + 1].to_usize();
    let (cols, vals) = (&a.col_idx()[r.clone()], &a.vals()[r]);
    let k = p.nrhs;
    if k == 1 {
        store(&xs[i], row_one(cols, vals, i, p.unit, p.alpha * b[i], |j| load(&xs[j])));
        return;
    }
    for r0 in (0..k).step_by(RHS_BLOCK) {
        let w = RHS_BLOCK.min(k - r0);
        let mut acc = [T::ZERO; RHS_BLOCK];
        let acc = &mut acc[..w];
        for (c, s) in acc.iter_mut().enumerate() {
            *s = p.alpha * b[i * k + r0 + c];
        }
        row_block(cols, vals, i, p.unit, acc, |j, c| load(&xs[j * k + r0 + c]));
        for (c, &s) in acc.iter().enumerate() {
            store(&xs[i * k + r0 + c], s);
        }
    }
}

/// Copies the solution out of the atomics into `x`.
fn copy_out<T: Scalar>(xs: &[AtomicU64], x: &mut [T]) {
    for (xi, v) in x.iter_mut().zip(xs) {
        *xi = load(v);
    }
}

/// Rows each worker of [`trsv_sync_free`] takes from the counter at a time: fewer
/// round trips on the counter's cache line, at the price of a later start for the rows
/// that wait on the block's first rows.
pub(crate) const SYNC_FREE_ROWS: usize = 16;

/// The synchronization-free triangular solve (Liu, Li, Hou and Vinter, Euro-Par 2016) on
/// `threads` tasks. Workers take blocks of [`SYNC_FREE_ROWS`] consecutive rows in solve
/// order (`order`, the rows sorted by level, where the analysis made it: neighbours there
/// are independent, where in the natural order of a stencil each row reads the one
/// before) from one atomic counter and solve them in order; before a row, a worker spins
/// until every row it reads has its flag set (Acquire), and after it sets the row's flag
/// (Release). Rows are handed out in an order where every row comes after those it
/// reads, so a row only waits on rows already
/// taken by a running task, each of which waits only on rows before its own: the first
/// unsolved row can always go on, whatever the number of tasks the pool runs at once
/// (one is enough; tasks that start late find no rows left). Returns `false`, having
/// written nothing, where it runs on one task or the scratch cannot be allocated.
pub(crate) fn trsv_sync_free<T: Scalar, I: Index>(
    p: Solve<'_, '_, T, I>,
    order: Option<&[usize]>,
    x: &mut [T],
    threads: usize,
) -> bool {
    let n = p.a.nrows();
    let tasks = tasks(threads, n.div_ceil(SYNC_FREE_ROWS), n + p.a.nnz());
    if tasks == 1 {
        return false;
    }
    let Some(xs) = atomic_values(x.len()) else { return false };
    let mut done = Vec::new();
    if done.try_reserve_exact(n).is_err() {
        return false;
    }
    done.resize_with(n, || AtomicBool::new(false));
    let next = AtomicUsize::new(0);
    let (b, xs, done, next) = (&*x, &xs[..], &done[..], &next);
    let (row_ptr, col_idx) = (p.a.row_ptr(), p.a.col_idx());
    fork((0..tasks).collect(), |_| {
        loop {
            let first = next.fetch_add(SYNC_FREE_ROWS, Ordering::Relaxed);
            if first >= n {
                break;
            }
            for t in first..(first + SYNC_FREE_ROWS).min(n) {
                let i = order.map_or_else(|| solve_order(p.triangle, n, t), |o| o[t]);
                for c in &col_idx[row_ptr[i].to_usize()..row_ptr[i + 1].to_usize()] {
                    let j = c.to_usize();
                    if j != i {
                        wait(&done[j]);
                    }
                }
                solve_row_shared(p, i, b, xs);
                done[i].store(true, Ordering::Release);
            }
        }
    });
    copy_out(xs, x);
    true
}

/// Spins until `flag` is set: a few rounds of `spin_loop`, then yields the core (the
/// row waited on may belong to a worker this one would otherwise keep off the core).
#[inline(always)]
fn wait(flag: &AtomicBool) {
    let mut spins = 0u32;
    while !flag.load(Ordering::Acquire) {
        if spins < 128 {
            core::hint::spin_loop();
            spins += 1;
        } else {
            std::thread::yield_now();
        }
    }
}

/// The level-set triangular solve on `threads` tasks: level by level, the rows of a level
/// of at least `2 * LEVEL_WORK` rows plus entries cut into equal parts run as tasks, a
/// join (the end of the fork) between levels; smaller levels on the calling thread. Returns `false`, having written nothing, where it runs on
/// one task or the scratch cannot be allocated.
pub(crate) fn trsv_level_set<T: Scalar, I: Index>(
    p: Solve<'_, '_, T, I>,
    levels: Levels<'_>,
    x: &mut [T],
    threads: usize,
) -> bool {
    let n = p.a.nrows();
    let tasks = tasks(threads, n, n + p.a.nnz());
    if tasks == 1 {
        return false;
    }
    let Some(xs) = atomic_values(x.len()) else { return false };
    let (b, xs) = (&*x, &xs[..]);
    let row_ptr = p.a.row_ptr();
    for w in levels.ptr.windows(2) {
        let rows = &levels.rows[w[0]..w[1]];
        let work = rows.len() * p.nrhs
            + rows
                .iter()
                .map(|&i| (row_ptr[i + 1].to_usize() - row_ptr[i].to_usize()) * p.nrhs)
                .sum::<usize>();
        let parts = (work / LEVEL_WORK).clamp(1, tasks.min(rows.len()));
        if parts == 1 {
            rows.iter().for_each(|&i| solve_row_shared(p, i, b, xs));
            continue;
        }
        let cut = |q: usize| rows.len() * q / parts;
        fork((0..parts).map(|q| &rows[cut(q)..cut(q + 1)]).collect(), |part| {
            part.iter().for_each(|&i| solve_row_shared(p, i, b, xs));
        });
    }
    copy_out(xs, x);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Csr5Owned, CsrOwned, Exec};

    /// The waves of `slide` leave what the serial move leaves: pieces with no gap, gaps
    /// smaller and larger than the piece, empty pieces, a last wave shorter than the gap.
    // Not under Miri: the measurement forks onto rayon (see below).
    #[cfg_attr(miri, ignore)]
    #[test]
    fn serial_work_is_measured_within_its_bounds() {
        // The first call measures (or finds another test's call measuring: then it
        // answers the floor); the measurement takes a few milliseconds.
        serial_work();
        std::thread::sleep(std::time::Duration::from_millis(50));
        let w = serial_work();
        assert!((SERIAL_WORK..=64 * SERIAL_WORK).contains(&w), "{w}");
        assert_eq!(tasks(0, 1000, w - 1), 1);
        assert_eq!(tasks(0, 1000, w), available_threads().min(1000));
        assert_eq!(tasks(3, 1000, 0), 3.min(available_threads()));
    }

    // Not under Miri: the waves fork onto rayon, whose crossbeam-epoch Miri flags under
    // Stacked Borrows; `slide` itself is safe code.
    #[cfg_attr(miri, ignore)]
    #[test]
    fn slide_in_waves_equals_the_serial_move() {
        let shapes: [&[(usize, usize)]; 5] = [
            &[(10, 7), (20, 20), (9, 0), (50, 33), (5, 5), (1000, 999)],
            &[(3, 3), (4, 4)],
            &[(100, 1), (100, 100), (30_000, 29_000), (20_000, 2)],
            &[(9000, 1), (9000, 8999), (20_000, 19_000)],
            // Gaps of a few entries against long pieces: moved in chunks, not waves.
            &[(100_000, 99_990), (100_000, 99_985), (50_003, 50_001), (70_001, 69_999)],
        ];
        for pieces in shapes {
            let total: usize = pieces.iter().map(|p| p.0).sum();
            let ci: Vec<u32> = (0..total as u32).collect();
            let v: Vec<f64> = (0..total).map(|i| i as f64 * 0.5).collect();
            let mut want = Vec::new();
            let mut region = 0;
            for &(room, len) in pieces {
                want.extend(region as u32..(region + len) as u32);
                region += room;
            }
            for (threads, wave_ns) in [(1, 0), (2, 0), (4, 0), (4, WAVE_NS), (4, 50_000)] {
                let (mut c, mut w) = (ci.clone(), v.clone());
                slide(&mut c, &mut w, pieces, threads, wave_ns);
                assert_eq!(&c[..want.len()], &want[..], "{pieces:?} {threads}");
                let wv: Vec<f64> = want.iter().map(|&i| i as f64 * 0.5).collect();
                assert_eq!(&w[..want.len()], &wv[..]);
            }
        }
    }

    #[cfg_attr(miri, ignore)]
    #[test]
    fn shift_in_chunks_moves_down_by_the_gap() {
        for len in [1usize, 2, 7, 64, 1000, 1001, 4099] {
            for gap in [1usize, 2, 3, 17, 100] {
                for threads in [1usize, 2, 3, 8] {
                    let mut buf: Vec<u64> = (0..(gap + len) as u64).collect();
                    let ran = shift_in_chunks(&mut buf, gap, threads);
                    let chunk = len.div_ceil(threads);
                    assert_eq!(ran, chunk >= 2 * gap, "{len} {gap} {threads}");
                    if ran {
                        let want: Vec<u64> = (gap as u64..(gap + len) as u64).collect();
                        assert_eq!(&buf[..len], &want[..], "{len} {gap} {threads}");
                    }
                }
            }
        }
    }

    /// A pool the OS refused a thread for is not used (the drivers then run serially);
    /// one that was built is.
    #[test]
    fn a_refused_thread_means_no_pool() {
        let refused = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .spawn_handler(|_| Err(std::io::Error::other("no more threads")))
            .build()
            .map(drop);
        assert!(refused.is_err());
        assert!(!usable_after(refused));
        assert!(usable_after(Ok(())));
    }

    /// The panel driver refuses no panels and panels of different shapes (a plan never
    /// hands it either), leaving `y` alone.
    #[test]
    fn panel_driver_refuses_no_panels_and_mixed_shapes() {
        let a = CsrOwned::<f64, u32>::from_triplets(2, 4, &[(0, 0, 1.0), (1, 3, 2.0)]).unwrap();
        let panel = Csr5Owned::from_csr(Exec::from(Isa::Portable), &a.view()).unwrap();
        let b = CsrOwned::<f64, u32>::from_triplets(2, 3, &[(0, 2, 1.0)]).unwrap();
        let other = Csr5Owned::from_csr(Exec::from(Isa::Portable), &b.view()).unwrap();
        let (x, mut y) = ([1.0; 4], [7.0; 2]);
        let op = Operands { alpha: 1.0, x: &x, beta: 0.0 };
        let none: &[Csr5Owned<f64, u32>] = &[];
        assert!(matches!(
            spmv_csr5_panels(none, Isa::Portable, op, &mut y, 2),
            Err(DimError::Parameter { name: "panels", value: 0 })
        ));
        assert!(matches!(
            spmv_csr5_panels(&[panel, other], Isa::Portable, op, &mut y, 2),
            Err(DimError::Parameter { name: "panels", value: 1 })
        ));
        assert_eq!(y, [7.0; 2]);
    }
}
