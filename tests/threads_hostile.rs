//! Thread counts far past the work and the pool: every threaded entry point (CSR SpMV by
//! every method, CSR5 SpMV, the plans, SpGEMM) runs with 0, 1, 2, 7, 64, 50 000 and
//! 100 000 threads on small matrices (empty and 1x1 among them), inside rayon pools of
//! 1 and 4 threads and on the global pool, and gives the serial results: the same bits
//! where the serial kernel runs each row, within rounding where a row's sum is split
//! (merge path, CSR5). A request for 100 000 threads allocates no more than one for the
//! pool's size, so no memory grows with the count asked for.
#![cfg(feature = "parallel")]

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use common::{assert_close, reference_spmv, vector};
use spblas::level2::{SpmvChoice, SpmvConfig, SpmvPlan, spmv_csr};
use spblas::level3::{SpgemmConfig, spgemm};
use spblas::{Csr, Csr5Owned, CsrMethod, CsrOwned, Exec, SpMv};

/// Counts the bytes allocated on every thread while [`COUNTING`] is on.
struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static BYTES: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        }
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            BYTES.fetch_add(layout.size(), Ordering::Relaxed);
        }
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            BYTES.fetch_add(new_size, Ordering::Relaxed);
        }
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The tests of this file one at a time, so the byte count sees one call only.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The bytes `f` allocates, on any thread.
fn bytes_of<R>(f: impl FnOnce() -> R) -> (usize, R) {
    BYTES.store(0, Ordering::SeqCst);
    COUNTING.store(true, Ordering::SeqCst);
    let r = f();
    COUNTING.store(false, Ordering::SeqCst);
    (BYTES.load(Ordering::SeqCst), r)
}

const COUNTS: [usize; 7] = [0, 1, 2, 7, 64, 50_000, 100_000];

/// The row methods, whose threaded form runs the serial kernel on row blocks.
const ROWWISE: [CsrMethod; 3] = [CsrMethod::RowScalar, CsrMethod::RowVector, CsrMethod::SegmentedSum];

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|t| t.to_bits()).collect()
}

/// A matrix of `m × n` with row `i` holding `len(i)` entries (unsorted where `i` is odd).
fn from_lens(m: usize, n: usize, len: impl Fn(usize) -> usize) -> CsrOwned<f64, u32> {
    let mut t = Vec::new();
    for i in 0..m {
        for k in 0..len(i).min(n) {
            t.push((i, (i * 7 + k * 13) % n, 0.25 * ((i + 3 * k) % 11) as f64 - 1.0));
        }
    }
    let a = CsrOwned::from_triplets(m, n, &t).unwrap();
    // Odd rows reversed: an unsorted matrix as well as a canonical one.
    let (m, n, row_ptr, mut col_idx, mut vals) = a.into_parts();
    for i in (1..m).step_by(2) {
        let r = row_ptr[i] as usize..row_ptr[i + 1] as usize;
        col_idx[r.clone()].reverse();
        vals[r].reverse();
    }
    CsrOwned::from_parts(m, n, row_ptr, col_idx, vals).unwrap()
}

fn transpose(a: &Csr<'_, f64, u32>) -> CsrOwned<f64, u32> {
    let t: Vec<_> = a.iter().map(|(i, j, v)| (j, i, v)).collect();
    CsrOwned::from_triplets(a.ncols(), a.nrows(), &t).unwrap()
}

/// Empty, 1x1 (with and without its entry), without rows or columns, and small ones
/// with empty rows, one long row and unsorted rows.
fn matrices() -> Vec<CsrOwned<f64, u32>> {
    vec![
        CsrOwned::from_triplets(0, 0, &[]).unwrap(),
        CsrOwned::from_triplets(1, 1, &[]).unwrap(),
        CsrOwned::from_triplets(1, 1, &[(0, 0, 2.5)]).unwrap(),
        CsrOwned::from_triplets(3, 0, &[]).unwrap(),
        CsrOwned::from_triplets(0, 3, &[]).unwrap(),
        from_lens(40, 30, |i| if i == 17 { 30 } else { i % 4 }),
        from_lens(9, 9, |i| i % 3),
    ]
}

/// Every threaded entry point at every count in [`COUNTS`] on every matrix, against
/// the serial run.
fn every_driver_at_every_count() {
    for a in matrices() {
        let a = a.view();
        let x = vector::<f64>(a.ncols(), 5);
        let y0 = vector::<f64>(a.nrows(), 6);
        let (want, bound) = reference_spmv(a.nrows(), a.iter(), 1.5, &x, 0.5, &y0);
        let factor = (a.max_row_len() + 3) as f64;
        let c5 = Csr5Owned::from_csr(Exec::new(), &a).unwrap();
        let panels = SpmvChoice::Csr5Panels { columns: a.ncols().div_ceil(3).max(1) };
        let choices = CsrMethod::ALL.iter().map(|&m| SpmvChoice::Csr(m)).chain([SpmvChoice::Csr5, panels]);
        let plans: Vec<SpmvPlan<'_, f64, u32>> = choices
            .map(|c| SpmvPlan::with_config(Exec::new(), &a, SpmvConfig::new().choice(c)).unwrap())
            .chain([SpmvPlan::new(Exec::new(), &a).unwrap()])
            .collect();
        let b = transpose(&a);
        let product = spgemm(Exec::new(), SpgemmConfig::new(), &a, &b.view()).unwrap();
        for threads in COUNTS {
            let exec = Exec::new().threads(threads);
            let shape = (a.nrows(), a.ncols(), threads);
            for method in CsrMethod::ALL {
                let mut serial = y0.clone();
                spmv_csr(Exec::new(), &a, method, 1.5, &x, 0.5, &mut serial).unwrap();
                let mut got = y0.clone();
                spmv_csr(exec, &a, method, 1.5, &x, 0.5, &mut got).unwrap();
                assert_close(&got, &want, &bound, factor).unwrap();
                if ROWWISE.contains(&method) {
                    assert_eq!(bits(&got), bits(&serial), "{method:?} {shape:?}");
                }
            }
            let mut got = y0.clone();
            c5.view().spmv(exec, 1.5, &x, 0.5, &mut got).unwrap();
            assert_close(&got, &want, &bound, factor).unwrap();
            for plan in &plans {
                let mut serial = y0.clone();
                plan.spmv(Exec::new(), 1.5, &x, 0.5, &mut serial).unwrap();
                let mut got = y0.clone();
                plan.spmv(exec, 1.5, &x, 0.5, &mut got).unwrap();
                assert_close(&got, &want, &bound, factor).unwrap();
                if ROWWISE.iter().any(|&m| plan.choice() == SpmvChoice::Csr(m)) {
                    assert_eq!(bits(&got), bits(&serial), "{} {shape:?}", plan.choice());
                }
            }
            let got = spgemm(exec, SpgemmConfig::new(), &a, &b.view()).unwrap();
            let (g, w) = (got.view(), product.view());
            assert_eq!(
                (g.nrows(), g.ncols(), g.row_ptr(), g.col_idx()),
                (w.nrows(), w.ncols(), w.row_ptr(), w.col_idx())
            );
            assert_eq!(bits(g.vals()), bits(w.vals()), "spgemm {shape:?}");
        }
    }
}

/// Runs `f` in a pool of `threads` threads, or on this thread where none can start
/// (WebAssembly without threads: the drivers then run serially, as they must).
fn in_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(f),
        Err(_) => f(),
    }
}

#[test]
fn every_count_on_the_global_pool() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    every_driver_at_every_count();
}

#[test]
fn every_count_in_a_pool_of_one() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    in_pool(1, every_driver_at_every_count);
}

#[test]
fn every_count_in_a_pool_of_four() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    in_pool(4, every_driver_at_every_count);
}

/// Enough rows and entries (more than 100 000 work items) that a count of 100 000 is not
/// capped by the work: inside a pool of 4 it must cost what 4 tasks cost, not a piece,
/// a task or a partial `y` per thread asked for.
#[test]
fn memory_does_not_grow_with_the_count_asked_for() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let a = from_lens(60_000, 5000, |i| 2 + i % 2);
    let a: Csr<'_, f64, u32> = a.view();
    let x = vector::<f64>(a.ncols(), 1);
    let c5 = Csr5Owned::from_csr(Exec::new(), &a).unwrap();
    let panels = SpmvChoice::Csr5Panels { columns: 1000 };
    let plan = SpmvPlan::with_config(Exec::new(), &a, SpmvConfig::new().choice(panels)).unwrap();
    // A times a matrix of one entry a row: C as large as A.
    let b = from_lens(a.ncols(), 700, |_| 1);
    in_pool(4, || {
        let mut y = vec![0.0; a.nrows()];
        let run = |threads: usize, y: &mut [f64]| {
            let exec = Exec::new().threads(threads);
            let mut total = 0;
            for method in CsrMethod::ALL {
                total += bytes_of(|| spmv_csr(exec, &a, method, 1.0, &x, 0.0, y).unwrap()).0;
            }
            total += bytes_of(|| c5.view().spmv(exec, 1.0, &x, 0.0, y).unwrap()).0;
            total += bytes_of(|| plan.spmv(exec, 1.0, &x, 0.0, y).unwrap()).0;
            let (bytes, c) = bytes_of(|| spgemm(exec, SpgemmConfig::new(), &a, &b.view()).unwrap());
            drop(c);
            total + bytes
        };
        // Warm: the pool's queues grown once, outside the counts compared.
        run(4, &mut y);
        let four = run(4, &mut y);
        for threads in [64, 50_000, 100_000] {
            let many = run(threads, &mut y);
            assert!(many <= four + (64 << 10), "{threads} threads allocated {many} bytes, 4 threads {four}");
        }
    });
}
