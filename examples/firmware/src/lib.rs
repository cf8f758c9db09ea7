//! What the firmware programs share: a test matrix written into caller buffers, plain
//! reference loops, the exit status through semihosting, a panic handler, and a measure
//! of how much stack the program used.
#![no_std]

use core::hint::black_box;

use cortex_m_semihosting::debug;

/// The side of the test grid. Read through `black_box` so the compiler cannot work out
/// the products at build time: the images hold the kernels a real program runs.
pub const GRID: usize = 16;
/// Rows of the test matrix (`GRID * GRID`).
pub const N: usize = GRID * GRID;
/// Room for its entries: five a row (the stencil) plus one dense row.
pub const NNZ_MAX: usize = 5 * N + N;

/// Writes the test matrix into `row_ptr`, `col_idx` and `vals` and returns its entry count:
/// the 5-point Laplacian of a `g × g` grid (4 on the diagonal, -1 to each neighbour),
/// except row `g` (which holds every column, 1..=4 cycling) and a run of empty rows
/// (`2g..3g`), so that CSR5 meets long rows, short rows and empty rows. Small integers
/// throughout: every sum is exact in `f32`, so every method gives the same bits.
pub fn test_matrix<T: From<i16> + Copy>(
    g: usize,
    row_ptr: &mut [u32],
    col_idx: &mut [u32],
    vals: &mut [T],
) -> usize {
    let g = black_box(g);
    let n = g * g;
    let mut k = 0;
    let mut push = |c: usize, v: i16, k: &mut usize| {
        col_idx[*k] = c as u32;
        vals[*k] = T::from(v);
        *k += 1;
    };
    for (i, start) in row_ptr.iter_mut().enumerate().take(n) {
        *start = k as u32;
        if i == g {
            (0..n).for_each(|c| push(c, (c % 4) as i16 + 1, &mut k));
            continue;
        }
        if (2 * g..3 * g).contains(&i) {
            continue;
        }
        let (r, c) = (i / g, i % g);
        if r > 0 {
            push(i - g, -1, &mut k);
        }
        if c > 0 {
            push(i - 1, -1, &mut k);
        }
        push(i, 4, &mut k);
        if c + 1 < g {
            push(i + 1, -1, &mut k);
        }
        if r + 1 < g {
            push(i + g, -1, &mut k);
        }
    }
    row_ptr[n] = k as u32;
    k
}

/// `y = A x` by the plain row loop: the reference every kernel is checked against.
pub fn spmv_reference<T>(row_ptr: &[u32], col_idx: &[u32], vals: &[T], x: &[T], y: &mut [T])
where
    T: Copy + Default + core::ops::Add<Output = T> + core::ops::Mul<Output = T>,
{
    for (i, yi) in y.iter_mut().enumerate() {
        let (a, b) = (row_ptr[i] as usize, row_ptr[i + 1] as usize);
        *yi = (a..b).fold(T::default(), |s, k| s + vals[k] * x[col_idx[k] as usize]);
    }
}

/// Ends the program with QEMU's exit status 0 (`ok`) or 1.
pub fn exit(ok: bool) -> ! {
    debug::exit(if ok { debug::EXIT_SUCCESS } else { debug::EXIT_FAILURE });
    // Semihosting is off (a real board without a debugger): stop here.
    loop {
        cortex_m::asm::wfi();
    }
}

/// A panic is a failed run: exit status 1 without formatting the message (which would pull
/// `core::fmt` into every image).
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    exit(false)
}

/// Stack use, measured by painting: [`paint`] fills the free RAM below the stack with a
/// pattern at start-up, and [`peak`] later finds how far down the stack has overwritten
/// it. Covers every call the program made in between, interrupts included.
pub mod stack {
    const PAINT: u32 = 0x5EED_F00D;

    unsafe extern "C" {
        // cortex-m-rt's symbols: the end of `.bss`/`.uninit` and the initial stack pointer.
        static mut __sheap: u32;
        static _stack_start: u32;
    }

    fn bounds() -> (*mut u32, usize) {
        let lo = &raw mut __sheap;
        let hi = &raw const _stack_start as usize;
        (lo, hi)
    }

    /// Paints from the end of the static data to 256 bytes below the current stack pointer.
    #[inline(never)]
    pub fn paint() {
        let (lo, _) = bounds();
        let sp = cortex_m::register::msp::read() as usize - 256;
        let words = (sp - lo as usize) / 4;
        for k in 0..words {
            // SAFETY: the words between the end of the static data and the stack pointer
            // (less a margin for this function's own frame) belong to no one yet.
            unsafe { lo.add(k).write_volatile(PAINT) };
        }
    }

    /// The most bytes of stack used since [`paint`].
    pub fn peak() -> usize {
        let (lo, hi) = bounds();
        let mut k = 0;
        // SAFETY: reads of the painted region only, stopping at the first word the stack
        // has written, which lies below the stack's top.
        while lo as usize + 4 * k < hi && unsafe { lo.add(k).read_volatile() } == PAINT {
            k += 1;
        }
        hi - (lo as usize + 4 * k)
    }
}
