//! What the Matrix Market reader holds in memory on hostile input, measured by a global
//! allocator that counts the bytes live on the test's thread and can refuse to go past a
//! cap, as a memory-limited process would be refused:
//!
//! - a comment line of 100 MB (a few hundred KB as `.gz`) is refused once it passes
//!   `MtxLimits::max_line_len`, holding no more than that limit of it;
//! - a file of many entry lines whose entries fit under the cap but whose assembly into
//!   CSR does not is an `MtxError::Alloc`, not an abort; without the cap, the assembly
//!   needs no memory beyond the entries and the CSR arrays.
//!
//! Counting is per thread (the test harness allocates on other threads) and only inside
//! [`measure`]; a `realloc` counts its growth only, as the large, in-place reallocations
//! of a real allocator do.
#![cfg(feature = "mtx")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::{self, BufReader, Read, Write};

use spblas::CsrOwned;
use spblas::io::{MtxError, MtxLimits, read_mtx, read_mtx_with};

struct Capped;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
    static CAP: Cell<usize> = const { Cell::new(usize::MAX) };
}

fn counting() -> bool {
    // `try_with`: the thread-locals may be gone while a thread shuts down.
    COUNTING.try_with(Cell::get).unwrap_or(false)
}

/// Books `grow` more bytes live, in one allocation of `size`; `false` (nothing booked)
/// where that passes the cap.
fn grow(grow: usize, size: usize) -> bool {
    if !counting() {
        return true;
    }
    let live = LIVE.with(Cell::get);
    if live.saturating_add(grow) > CAP.with(Cell::get) {
        return false;
    }
    LIVE.with(|c| c.set(live + grow));
    PEAK.with(|c| c.set(c.get().max(live + grow)));
    LARGEST.with(|c| c.set(c.get().max(size)));
    true
}

fn shrink(bytes: usize) {
    if counting() {
        LIVE.with(|c| c.set(c.get().saturating_sub(bytes)));
    }
}

// SAFETY: forwards every call to the system allocator unchanged, or returns null (a
// refused allocation, which `GlobalAlloc` allows) without calling it.
unsafe impl GlobalAlloc for Capped {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !grow(layout.size(), layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !grow(layout.size(), layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            if !grow(new_size - layout.size(), new_size) {
                return std::ptr::null_mut();
            }
        } else {
            shrink(layout.size() - new_size);
        }
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrink(layout.size());
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Capped = Capped;

/// What [`measure`] saw.
#[derive(Debug)]
struct Stats {
    /// The most bytes live at once, counted from the start.
    peak: usize,
    /// The largest single allocation.
    largest: usize,
}

/// Runs `f` with at most `cap` bytes more live on this thread than at its start.
fn measure<R>(cap: usize, f: impl FnOnce() -> R) -> (Stats, R) {
    LIVE.with(|c| c.set(0));
    PEAK.with(|c| c.set(0));
    LARGEST.with(|c| c.set(0));
    CAP.with(|c| c.set(cap));
    COUNTING.with(|c| c.set(true));
    let r = f();
    COUNTING.with(|c| c.set(false));
    (Stats { peak: PEAK.with(Cell::get), largest: LARGEST.with(Cell::get) }, r)
}

const MIB: usize = 1 << 20;

#[test]
fn a_100_mb_comment_line_is_refused_holding_at_most_the_limit() {
    let head = "%%MatrixMarket matrix coordinate real general\n%";
    let total = 100 * MIB as u64;
    // Made as it is read; the stream's own buffer is allocated before counting.
    let mut stream = BufReader::new(head.as_bytes().chain(io::repeat(b'%').take(total)));
    let (stats, r) = measure(usize::MAX, || read_mtx::<f64, u32, _>(&mut stream));
    let e = r.unwrap_err();
    assert!(matches!(e, MtxError::Limit { line: 2, what: "line length", .. }), "{e:?}");
    assert!(stats.largest <= MIB + 2, "{stats:?}");
    assert!(stats.peak <= MIB + 64 * 1024, "{stats:?}");

    // A tighter limit holds less.
    let limits = MtxLimits::default().with_max_line_len(4096);
    let mut stream = BufReader::new(head.as_bytes().chain(io::repeat(b'%').take(total)));
    let (stats, r) = measure(usize::MAX, || read_mtx_with::<f64, u32, _>(&mut stream, &limits));
    assert!(matches!(r, Err(MtxError::Limit { line: 2, what: "line length", max: 4096, .. })), "{r:?}");
    assert!(stats.peak <= 4098, "{stats:?}");
}

// The same through a `.gz` file and the path reader (its decoder and buffer counted).
// Temporary files: none under WASI without a preopened directory.
#[cfg(not(target_family = "wasm"))]
#[test]
fn a_gzipped_comment_line_of_64_mib_is_refused_holding_at_most_the_limit() {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b"%%MatrixMarket matrix coordinate real general\n%").unwrap();
    let chunk = vec![b'c'; MIB];
    for _ in 0..64 {
        gz.write_all(&chunk).unwrap();
    }
    gz.write_all(b"\n1 1 1\n1 1 1\n").unwrap();
    let bytes = gz.finish().unwrap();
    assert!(bytes.len() < MIB, "{}", bytes.len());
    let path = std::env::temp_dir().join(format!("spblas-mtx-memory-{}.mtx.gz", std::process::id()));
    std::fs::write(&path, &bytes).unwrap();
    let (stats, r) = measure(usize::MAX, || spblas::io::read_mtx_path::<f64, u32>(&path));
    let _ = std::fs::remove_file(&path);
    let e = r.unwrap_err();
    assert!(matches!(e, MtxError::Limit { line: 2, what: "line length", .. }), "{e:?}");
    assert!(stats.largest <= MIB + 2, "{stats:?}");
    assert!(stats.peak <= MIB + 512 * 1024, "{stats:?}");
}

/// `n` distinct entry lines `row col 1` of a `side x side` matrix, made as they are read.
struct EntryLines {
    k: usize,
    n: usize,
    side: usize,
    line: [u8; 32],
    len: usize,
    pos: usize,
}

impl EntryLines {
    fn new(n: usize, side: usize) -> Self {
        assert!(n <= side * side);
        EntryLines { k: 0, n, side, line: [0; 32], len: 0, pos: 0 }
    }
}

impl Read for EntryLines {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.len {
            if self.k == self.n {
                return Ok(0);
            }
            let (r, c) = (self.k % self.side + 1, self.k / self.side + 1);
            let mut rest = &mut self.line[..];
            writeln!(rest, "{r} {c} 1")?;
            self.len = 32 - rest.len();
            self.pos = 0;
            self.k += 1;
        }
        let n = buf.len().min(self.len - self.pos);
        buf[..n].copy_from_slice(&self.line[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[test]
fn many_entry_lines_under_a_memory_cap_are_an_alloc_error() {
    let (n, side) = (1 << 18, 512);
    let head = format!("%%MatrixMarket matrix coordinate real general\n{side} {side} {n}\n");
    let file = || BufReader::new(head.as_bytes().chain(EntryLines::new(n, side)));
    // The entries grow by doubling from 2^16 to exactly `n`; then the CSR arrays.
    let entries = n * std::mem::size_of::<(usize, usize, f64)>();
    let csr = (side + 1) * 4 + n * (4 + 8);
    let line = 64;

    // Room for the entries and the row pointer, not for all of the CSR: the assembly's
    // allocation is refused, and that is an error.
    let mut stream = file();
    let (stats, r) = measure(entries + line + csr / 2, || read_mtx::<f64, u32, _>(&mut stream));
    assert!(matches!(r, Err(MtxError::Alloc { what: "col_idx" | "vals", .. })), "{r:?}");
    assert!(stats.peak >= entries, "the entries were not all held: {stats:?}");

    // Room for half the entries: refused while reading.
    let mut stream = file();
    let (_, r) = measure(entries / 2, || read_mtx::<f64, u32, _>(&mut stream));
    assert!(matches!(r, Err(MtxError::Alloc { what: "entries", .. })), "{r:?}");

    // Without a cap: the entries, the CSR arrays and a line, nothing else (no sort scratch).
    let mut stream = file();
    let (stats, r) = measure(usize::MAX, || read_mtx::<f64, u32, _>(&mut stream));
    let a: CsrOwned<f64, u32> = r.unwrap();
    assert_eq!(a.nnz(), n);
    assert!(stats.peak <= entries + csr + line, "{stats:?} above {}", entries + csr + line);
}
