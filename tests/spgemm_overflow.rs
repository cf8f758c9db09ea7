//! SpGEMM whose `nnz(C)` passes the index type: `70000×1 · 1×70000` of ones in `u32` has
//! 4.9e9 entries. The product is refused with `Overflow { what: "nnz(C)" }` and the real
//! count, serially and on threads, with `B`'s row canonical and unsorted, and never holds
//! more than a few megabytes while it finds out: a counting allocator (its own test binary)
//! tracks the bytes live on every thread and refuses any allocation past a cap, so a
//! product that tried to fill its output fails fast instead of taking the machine's memory.
#![cfg(all(feature = "alloc", target_pointer_width = "64"))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use spblas::level3::{SpgemmConfig, spgemm, spgemm_reuse};
use spblas::{CsrOwned, DimError, Exec, RowOrder};

/// Tracks live bytes and their peak while [`ARMED`]; refuses what would pass [`CAP`].
struct Capped;

static ARMED: AtomicBool = AtomicBool::new(false);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// Far above what refusing the product needs, far below its output (59 GB).
const CAP: usize = 256 << 20;

fn take(size: usize) -> bool {
    if !ARMED.load(Ordering::Relaxed) {
        return true;
    }
    let live = LIVE.fetch_add(size, Ordering::Relaxed) + size;
    if live > CAP {
        LIVE.fetch_sub(size, Ordering::Relaxed);
        return false;
    }
    PEAK.fetch_max(live, Ordering::Relaxed);
    true
}

fn give(size: usize) {
    if ARMED.load(Ordering::Relaxed) {
        // Blocks from before arming may be freed while armed: never below zero.
        let _ = LIVE.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |l| Some(l.saturating_sub(size)));
    }
}

// SAFETY: forwards every call to the system allocator unchanged, or refuses it by
// returning null, which `GlobalAlloc` allows.
unsafe impl GlobalAlloc for Capped {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !take(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !take(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() && !take(new_size - layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: as above.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if new_size < layout.size() {
            give(layout.size() - new_size);
        } else if p.is_null() {
            give(new_size - layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        give(layout.size());
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Capped = Capped;

/// One measured call at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// `f`'s result and the most bytes live (beyond those before it) while it ran.
fn peak_of<R>(f: impl FnOnce() -> R) -> (R, usize) {
    LIVE.store(0, Ordering::SeqCst);
    PEAK.store(0, Ordering::SeqCst);
    ARMED.store(true, Ordering::SeqCst);
    let r = f();
    ARMED.store(false, Ordering::SeqCst);
    (r, PEAK.load(Ordering::SeqCst))
}

const N: usize = 70_000;
const NNZ_C: usize = N * N;

/// `A` (`N × 1`) and `B` (`1 × N`), all ones; `B`'s row reversed if not `canonical`.
fn operands(canonical: bool) -> (CsrOwned<f32, u32>, CsrOwned<f32, u32>) {
    let a = CsrOwned::from_parts(N, 1, (0..=N as u32).collect(), vec![0; N], vec![1.0; N]).unwrap();
    let mut cols: Vec<u32> = (0..N as u32).collect();
    if !canonical {
        cols.reverse();
    }
    let b = CsrOwned::from_parts(1, N, vec![0, N as u32], cols, vec![1.0; N]).unwrap();
    let order = if canonical { RowOrder::Canonical } else { RowOrder::Unsorted };
    assert_eq!(b.view().row_order(), order);
    (a, b)
}

fn refused(canonical: bool, exec: Exec) {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (a, b) = operands(canonical);
    let (a, b) = (a.view(), b.view());
    let (got, peak) = peak_of(|| spgemm(exec, SpgemmConfig::new(), &a, &b));
    let want = DimError::Overflow { what: "nnz(C)", value: NNZ_C, max: u32::MAX as usize };
    assert_eq!(got.unwrap_err(), want, "canonical {canonical}, {exec:?}");
    assert!(peak < 4 << 20, "{peak} bytes live (canonical {canonical}, {exec:?})");
    if exec.thread_limit() == 1 {
        let mut c = CsrOwned::from_triplets(0, 0, &[]).unwrap();
        let (got, peak) = peak_of(|| spgemm_reuse(exec, SpgemmConfig::new(), &a, &b, &mut c));
        assert_eq!(got.unwrap_err(), want);
        assert!(peak < 4 << 20, "reuse: {peak} bytes live");
    }
}

#[test]
fn canonical_b_is_refused_before_the_output_exists() {
    refused(true, Exec::new());
}

#[test]
fn unsorted_b_is_refused_before_the_output_exists() {
    refused(false, Exec::new());
}

#[cfg(feature = "parallel")]
#[test]
fn on_threads_too() {
    let run = || {
        for canonical in [true, false] {
            for threads in [0, 2, 4, 100_000] {
                refused(canonical, Exec::new().threads(threads));
            }
        }
    };
    // In a pool of 4, or on this thread where none can start (WebAssembly without threads).
    match rayon::ThreadPoolBuilder::new().num_threads(4).build() {
        Ok(pool) => pool.install(run),
        Err(_) => run(),
    }
}
