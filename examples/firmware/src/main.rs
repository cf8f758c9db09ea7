//! spblas on a Cortex-M4F without an allocator: a CSR matrix and its CSR5 form in
//! `static` buffers, CSR and CSR5 SpMV in `f32` and `f64`, a matrix with `u16` indices
//! built from triplets in any order and run through an SpMV plan in static buffers, a
//! bitonic sort and a segmented sum, each checked against a plain loop. Exits with status
//! 0 when every result matches.
//!
//! `cargo run --release` (in this folder) boots it on QEMU's `mps2-an386` board.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use cortex_m_semihosting::hprintln;
use spblas::formats::csr5::Csr5Aux;
use spblas::primitives::{segmented, sort};
use spblas::{Csr, Csr5, Csr5Layout, Exec, Isa, SpMv, SpmvPlanLayout, SpmvPlanView};
use spblas_firmware::{GRID, N, NNZ_MAX, exit, spmv_reference, stack, test_matrix};

/// Room for the CSR5 arrays of the test matrix: tiles of at least 4 × 4 entries.
const TILES_MAX: usize = NNZ_MAX / 16 + 1;

/// The buffers of one precision: the matrix in CSR, its CSR5 copy, `x` and `y`.
struct Buffers<'b, T> {
    row_ptr: &'b mut [u32; N + 1],
    col_idx: &'b mut [u32; NNZ_MAX],
    vals: &'b mut [T; NNZ_MAX],
    c5_col: &'b mut [u32; NNZ_MAX],
    c5_vals: &'b mut [T; NNZ_MAX],
    tile_ptr: &'b mut [u32; TILES_MAX + 1],
    tile_desc: &'b mut [u32; TILES_MAX * 16],
    empty_ptr: &'b mut [u32; TILES_MAX + 1],
    empty: &'b mut [u32; NNZ_MAX],
    x: &'b mut [T; N],
    want: &'b mut [T; N],
    y_csr: &'b mut [T; N],
    y_csr5: &'b mut [T; N],
}

/// Builds the test matrix and its CSR5 form in `b`, runs CSR and CSR5 SpMV and compares
/// both with the plain loop. Returns whether all agree.
fn spmv_checks<T>(name: &str, b: Buffers<'_, T>) -> bool
where
    T: spblas::Scalar + From<i16> + Default,
{
    let nnz = test_matrix(GRID, b.row_ptr, b.col_idx, b.vals);
    let Ok(a) = Csr::new(N, N, &b.row_ptr[..], &b.col_idx[..nnz], &b.vals[..nnz]) else {
        return false;
    };
    let (x, want, y_csr, y_csr5) = (b.x, b.want, b.y_csr, b.y_csr5);
    for (i, v) in x.iter_mut().enumerate() {
        *v = T::from((i % 7) as i16 - 3);
    }
    spmv_reference(a.row_ptr(), a.col_idx(), a.vals(), &x[..], &mut want[..]);
    let csr_ok = a.spmv(Exec::new(), T::ONE, &x[..], T::ZERO, &mut y_csr[..]).is_ok() && y_csr == want;

    let Ok(layout) = Csr5Layout::new(&a, Isa::detect()) else { return false };
    let aux = Csr5Aux {
        tile_ptr: &mut b.tile_ptr[..],
        tile_desc: &mut b.tile_desc[..],
        empty_offset_ptr: &mut b.empty_ptr[..],
        empty_offset: &mut b.empty[..],
    };
    let Ok(c5) = Csr5::from_csr(&a, &layout, &mut b.c5_col[..], &mut b.c5_vals[..], aux) else {
        return false;
    };
    let csr5_ok = c5.spmv(Exec::new(), T::ONE, &x[..], T::ZERO, &mut y_csr5[..]).is_ok() && y_csr5 == want;
    hprintln!(
        "{}: CSR SpMV {}, CSR5 SpMV {} ({} x {} tiles of {} x {})",
        name,
        verdict(csr_ok),
        verdict(csr5_ok),
        N,
        N,
        layout.omega(),
        layout.sigma()
    );
    csr_ok && csr5_ok
}

/// Side of the grid of the `u16` part.
const G16: usize = 8;
/// Its rows.
const N16: usize = G16 * G16;
/// Its triplets: the 5-point Laplacian with every off-diagonal entry given as two halves.
const T16: usize = 9 * N16;

/// The `G16 × G16` Laplacian as triplets in reverse order, each `-1` split into two `-0.5`
/// (duplicates, added up by the conversion), into `t`; returns how many.
fn laplacian_triplets(t: &mut [(usize, usize, f32); T16]) -> usize {
    let mut k = 0;
    for i in (0..N16).rev() {
        let (r, c) = (i / G16, i % G16);
        let mut put = |j: usize, v: f32| {
            t[k] = (i, j, v);
            k += 1;
        };
        put(i, 4.0);
        for (near, j) in [
            (r > 0, i.wrapping_sub(G16)),
            (c > 0, i.wrapping_sub(1)),
            (c + 1 < G16, i + 1),
            (r + 1 < G16, i + G16),
        ] {
            if near {
                put(j, -0.5);
                put(j, -0.5);
            }
        }
    }
    k
}

/// Builds the Laplacian with `u16` indices from its triplets (canonical CSR in static
/// buffers), makes the SpMV plan the rule picks (its copy in static buffers too) and
/// checks the plan's product against a loop over the triplets.
fn plan_checks(
    t: &mut [(usize, usize, f32); T16],
    csr: (&mut [u16; N16 + 1], &mut [u16; T16], &mut [f32; T16]),
    plan_vals: &mut [f32; 4 * N16 + 256 * 5],
    x: &mut [f32; N16],
    y: &mut [f32; N16],
) -> bool {
    let n = laplacian_triplets(t);
    let t = &t[..n];
    let Ok(a) = Csr::from_triplets(N16, N16, t, csr.0, csr.1, csr.2) else { return false };
    for (j, v) in x.iter_mut().enumerate() {
        *v = (j % 5) as f32 - 2.0;
    }
    let mut want = [0.0f32; N16];
    t.iter().for_each(|&(i, j, v)| want[i] += v * x[j]);
    let Ok(layout) = SpmvPlanLayout::new(Exec::new(), &a) else { return false };
    let Ok(plan) = SpmvPlanView::from_buffers(&a, &layout, &mut [], &mut plan_vals[..], &mut []) else {
        return false;
    };
    let ok = plan.spmv(Exec::new(), 1.0, &x[..], 0.0, &mut y[..]).is_ok() && y[..] == want[..];
    hprintln!(
        "u16 indices: {} triplets -> {} entries, plan {}: {}",
        n,
        a.nnz(),
        layout.choice(),
        verdict(ok)
    );
    ok
}

fn verdict(ok: bool) -> &'static str {
    if ok { "ok" } else { "WRONG" }
}

// `#[entry]` turns each `static mut` into an argument of the function it generates.
#[allow(clippy::too_many_arguments)]
#[entry]
fn main() -> ! {
    static mut ROW_PTR: [u32; N + 1] = [0; N + 1];
    static mut COL_IDX: [u32; NNZ_MAX] = [0; NNZ_MAX];
    static mut C5_COL: [u32; NNZ_MAX] = [0; NNZ_MAX];
    static mut TILE_PTR: [u32; TILES_MAX + 1] = [0; TILES_MAX + 1];
    static mut TILE_DESC: [u32; TILES_MAX * 16] = [0; TILES_MAX * 16];
    static mut EMPTY_PTR: [u32; TILES_MAX + 1] = [0; TILES_MAX + 1];
    static mut EMPTY: [u32; NNZ_MAX] = [0; NNZ_MAX];
    static mut X32: [[f32; N]; 4] = [[0.0; N]; 4];
    static mut X64: [[f64; N]; 4] = [[0.0; N]; 4];
    static mut VALS32: [f32; NNZ_MAX] = [0.0; NNZ_MAX];
    static mut C5_VALS32: [f32; NNZ_MAX] = [0.0; NNZ_MAX];
    static mut VALS64: [f64; NNZ_MAX] = [0.0; NNZ_MAX];
    static mut TRIPLETS: [(usize, usize, f32); T16] = [(0, 0, 0.0); T16];
    static mut ROW_PTR16: [u16; N16 + 1] = [0; N16 + 1];
    static mut COL_IDX16: [u16; T16] = [0; T16];
    static mut VALS16: [f32; T16] = [0.0; T16];
    static mut PLAN_VALS: [f32; 4 * N16 + 256 * 5] = [0.0; 4 * N16 + 256 * 5];
    static mut XY16: [[f32; N16]; 2] = [[0.0; N16]; 2];
    static mut C5_VALS64: [f64; NNZ_MAX] = [0.0; NNZ_MAX];

    stack::paint();
    hprintln!("spblas on {:?}", Isa::detect());
    let [x32, want32, y_csr32, y_csr532] = X32;
    let f32_ok = spmv_checks(
        "f32",
        Buffers {
            row_ptr: &mut *ROW_PTR,
            col_idx: &mut *COL_IDX,
            vals: VALS32,
            c5_col: &mut *C5_COL,
            c5_vals: C5_VALS32,
            tile_ptr: &mut *TILE_PTR,
            tile_desc: &mut *TILE_DESC,
            empty_ptr: &mut *EMPTY_PTR,
            empty: &mut *EMPTY,
            x: x32,
            want: want32,
            y_csr: y_csr32,
            y_csr5: y_csr532,
        },
    );
    let [x64, want64, y_csr64, y_csr564] = X64;
    let f64_ok = spmv_checks(
        "f64",
        Buffers {
            row_ptr: ROW_PTR,
            col_idx: COL_IDX,
            vals: VALS64,
            c5_col: C5_COL,
            c5_vals: C5_VALS64,
            tile_ptr: TILE_PTR,
            tile_desc: TILE_DESC,
            empty_ptr: EMPTY_PTR,
            empty: EMPTY,
            x: x64,
            want: want64,
            y_csr: y_csr64,
            y_csr5: y_csr564,
        },
    );

    let [x16, y16] = XY16;
    let plan_ok = plan_checks(TRIPLETS, (ROW_PTR16, COL_IDX16, VALS16), PLAN_VALS, x16, y16);

    // A bitonic sort (thesis 4.4.2) of pseudo-random keys against insertion sort.
    let mut keys = [0u32; 200];
    let mut s = 0x1234_5678u32;
    for k in keys.iter_mut() {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        *k = s % 1000;
    }
    let mut want = keys;
    for i in 1..want.len() {
        let mut j = i;
        while j > 0 && want[j - 1] > want[j] {
            want.swap(j - 1, j);
            j -= 1;
        }
    }
    let sort_ok = sort::bitonic_sort(Exec::new(), &mut keys).is_ok() && keys == want;
    hprintln!("bitonic sort of {} keys: {}", keys.len(), verdict(sort_ok));

    // A segmented sum (thesis 4.3.3): each segment's total lands on its head.
    let heads: [bool; 100] = core::array::from_fn(|i| i % 7 == 0 || i % 11 == 3);
    let mut v: [f32; 100] = core::array::from_fn(|i| (i % 5) as f32);
    let mut want = [0.0f32; 100];
    let mut head = 0;
    for i in 0..v.len() {
        if heads[i] || i == 0 {
            head = i;
        }
        want[head] += v[i];
    }
    let seg_ok = segmented::segmented_sum(Exec::new(), &mut v, &heads).is_ok()
        && (0..v.len()).filter(|&i| heads[i] || i == 0).all(|i| v[i] == want[i]);
    hprintln!("segmented sum of {} values: {}", v.len(), verdict(seg_ok));

    hprintln!("peak stack: {} bytes", stack::peak());
    exit(f32_ok && f64_ok && plan_ok && sort_ok && seg_ok)
}
