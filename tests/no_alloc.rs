//! Kernels own no memory (ARCHITECTURE.md, principle 1): a counting global allocator proves that
//! every kernel — SpMV of every format on every available `Isa` and every CSR method,
//! CSR and CSR5 SpMM (whole, by tile ranges, through a plan), symmetric storage (its check, SpMV and SpMM), the transposed CSR product, the CSR5 conversions (copying and in place), the
//! conversions into caller buffers (CSC both ways, canonical CSR from triplets or COO,
//! and into `CsrHeapless`), the plans in
//! caller buffers, the primitives, Level 1 with its workspace, and SpGEMM's symbolic,
//! numeric and one-pass bounded forms with theirs, and the triangular solves with their
//! analyses — makes zero heap allocations, with `u32` indices and again with `u16`, `i32`
//! (a `Csr<f64, i32>` SpMV as SciPy's arrays give it) and `i64`.
//!
//! Counting is per thread (the test harness allocates on other threads), and only inside
//! [`allocations`]. Inputs and buffers are made before counting; `Isa::available()` is
//! asked once first, so runtime detection (cached after the first call) is not counted
//! either, though it does not allocate.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use spblas::Exec;
use spblas::SpmvConfig;
use spblas::formats::csr5::Csr5Aux;
use spblas::level1::{
    AddMethod, AddRule, SpVec, add, add_workspace_len, axpy, dot, dot_dense, gather, scatter,
};
use spblas::level3::{
    RowMethod, SpgemmConfig, add_numeric, add_symbolic, add_workspace_len as add_matrices_workspace_len,
    scale as mat_scale, scale_cols, scale_rows, spgemm_bounded, spgemm_numeric, spgemm_symbolic,
    spgemm_workspace_len,
};
use spblas::primitives::Key;
use spblas::primitives::heap::{DHeap, k_select};
use spblas::primitives::merge::{merge, merge_path};
use spblas::primitives::scan::{exclusive_scan, inclusive_scan, reduce};
use spblas::primitives::segmented::{
    HeadFlags, seg_offset_from_heads, segmented_scan, segmented_sum, segmented_sum_seg_offset,
};
use spblas::primitives::sort::{bitonic_sort, bitonic_sort_pairs, odd_even_sort};
use spblas::{
    Coo, Csc, Csr, Csr5, Csr5Layout, CsrMethod, CsrOwned, Dia, DiaLayout, Ell, EllLayout, Hyb, HybLayout,
    Index, Isa, Jds, JdsLayout, Sell, SellLayout, SpMv,
};
use spblas::{DenseLayout, DenseMut, DenseRef, SpMm, Symmetric, Triangle};

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
}

fn note() {
    // `try_with`: the thread-locals may be gone while a thread shuts down.
    if COUNTING.try_with(Cell::get).unwrap_or(false) {
        let _ = COUNT.try_with(|c| c.set(c.get() + 1));
    }
}

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
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

/// Runs `f` and returns the number of allocations it made on this thread.
fn allocations<R>(f: impl FnOnce() -> R) -> (usize, R) {
    COUNT.with(|c| c.set(0));
    COUNTING.with(|c| c.set(true));
    let r = f();
    COUNTING.with(|c| c.set(false));
    (COUNT.with(Cell::get), r)
}

/// Asserts that `f` allocates nothing.
#[track_caller]
fn assert_no_alloc<R>(what: &str, f: impl FnOnce() -> R) -> R {
    let (n, r) = allocations(f);
    assert_eq!(n, 0, "{what} made {n} heap allocation(s)");
    r
}

/// The `Isa`s to run: all available. `SPBLAS_EXPECT_ISA=<name>` (set by `.ci/miri` for its
/// AVX2 run) asserts that the named one is among them, so a run meant for a SIMD path
/// cannot silently test only the portable one.
fn isas() -> Vec<Isa> {
    let v: Vec<Isa> = Isa::available().collect();
    let _ = Isa::detect();
    if let Ok(name) = std::env::var("SPBLAS_EXPECT_ISA") {
        let isa = Isa::from_name(&name).expect("SPBLAS_EXPECT_ISA names an Isa");
        assert!(v.contains(&isa), "{isa} expected but not available ({v:?})");
    }
    v
}

/// Sizes: smaller under Miri (`.ci/miri` runs this file as its tour of every kernel),
/// still crossing a segmented-sum block (256 entries) and several CSR5 tiles.
const ROWS: usize = if cfg!(miri) { 40 } else { 300 };
const COLS: usize = if cfg!(miri) { 30 } else { 200 };
const LONG_ROW: usize = if cfg!(miri) { 270 } else { 400 };
const N: usize = if cfg!(miri) { 150 } else { 1000 };

/// A matrix with empty rows, one long row and unsorted columns with duplicates, so the
/// blocks of the segmented methods and several CSR5 tiles are crossed.
fn matrix<I: Index>() -> CsrOwned<f64, I> {
    let (mut row_ptr, mut col_idx, mut vals) = (vec![I::ZERO], Vec::new(), Vec::new());
    for i in 0..ROWS {
        let len = if i == 17 { LONG_ROW } else { (i * 7 + 3) % 9 };
        for k in 0..len {
            col_idx.push(ix((i * 13 + k * 29) % COLS));
            vals.push(((i + k) % 11) as f64 - 5.0);
        }
        row_ptr.push(ix(col_idx.len()));
    }
    CsrOwned::from_parts(ROWS, COLS, row_ptr, col_idx, vals).unwrap()
}

/// `i` as an index of type `I` (every index here fits `u16`).
fn ix<I: Index>(i: usize) -> I {
    I::from_usize(i).unwrap()
}

#[test]
fn the_counter_sees_allocations() {
    let (n, v) = allocations(|| vec![1u8; 10]);
    assert!(n >= 1 && v.len() == 10);
}

#[test]
fn spmv_of_every_format_and_csr_method_allocates_nothing() {
    spmv_formats::<u32>();
}

#[test]
// The `u32` case's generic code again: natively only (under Miri it would double the time).
#[cfg_attr(miri, ignore)]
fn spmv_of_every_format_and_csr_method_allocates_nothing_u16() {
    spmv_formats::<u16>();
}

#[test]
// The generic code with the index types of C, MKL and SciPy: `i32` SpMV runs the `u32`
// kernels, `i64` the `u64` ones. Natively only, as the `u16` case.
#[cfg_attr(miri, ignore)]
fn spmv_of_every_format_and_csr_method_allocates_nothing_i32_i64() {
    spmv_formats::<i32>();
    spmv_formats::<i64>();
}

fn spmv_formats<I: Index>() {
    let isas = isas();
    let owned = matrix::<I>();
    let a = owned.view();
    let x: Vec<f64> = (0..a.ncols()).map(|j| j as f64).collect();
    let mut y = vec![1.0; a.nrows()];

    // Conversions into caller buffers, each sized by its layout query first.
    let nnz = a.nnz();
    let (mut cr, mut cc, mut cv) = (vec![I::ZERO; nnz], vec![I::ZERO; nnz], vec![0.0; nnz]);
    let coo = assert_no_alloc("Coo::from_csr", || Coo::from_csr(&a, &mut cr, &mut cc, &mut cv).unwrap());
    let el = EllLayout::new(&a).unwrap();
    let (mut ec, mut ev) = (vec![I::ZERO; el.len()], vec![0.0; el.len()]);
    let ell = assert_no_alloc("Ell::from_csr", || Ell::from_csr(&a, &el, &mut ec, &mut ev).unwrap());
    let hl = HybLayout::new(&a).unwrap();
    let (mut hec, mut hev) = (vec![I::ZERO; hl.ell_len()], vec![0.0; hl.ell_len()]);
    let (mut hr, mut hc, mut hv) =
        (vec![I::ZERO; hl.coo_nnz()], vec![I::ZERO; hl.coo_nnz()], vec![0.0; hl.coo_nnz()]);
    let hyb = assert_no_alloc("Hyb::from_csr", || {
        Hyb::from_csr(&a, &hl, &mut hec, &mut hev, &mut hr, &mut hc, &mut hv).unwrap()
    });
    let jl = JdsLayout::new(&a);
    let (mut perm, mut jd_ptr) = (vec![I::ZERO; jl.perm_len()], vec![I::ZERO; jl.jd_ptr_len()]);
    let (mut jc, mut jv) = (vec![I::ZERO; jl.nnz()], vec![0.0; jl.nnz()]);
    let jds = assert_no_alloc("Jds::from_csr", || {
        Jds::from_csr(&a, &mut perm, &mut jd_ptr, &mut jc, &mut jv).unwrap()
    });
    let mut offsets = vec![0isize; Dia::<f64>::offsets_scratch_len(&a)];
    let ndiag = assert_no_alloc("Dia::offsets_from_csr", || Dia::offsets_from_csr(&a, &mut offsets).unwrap());
    let dl = DiaLayout::new(&a, ndiag).unwrap();
    let mut data = vec![0.0; dl.data_len()];
    let dia = assert_no_alloc("Dia::from_csr", || Dia::from_csr(&a, &offsets[..ndiag], &mut data).unwrap());
    let sl = SellLayout::new(&a, 8).unwrap();
    let (mut sp, mut sc, mut sv) =
        (vec![I::ZERO; sl.slice_ptr_len()], vec![I::ZERO; sl.len()], vec![0.0; sl.len()]);
    let sell =
        assert_no_alloc("Sell::from_csr", || Sell::from_csr(&a, &sl, &mut sp, &mut sc, &mut sv).unwrap());

    // Validating constructors.
    assert_no_alloc("Csr::new", || {
        Csr::new(a.nrows(), a.ncols(), a.row_ptr(), a.col_idx(), a.vals()).unwrap()
    });
    assert_no_alloc("Jds::new", || {
        Jds::new(a.nrows(), a.ncols(), jds.perm(), jds.jd_ptr(), jds.col_idx(), jds.vals()).unwrap()
    });
    assert_no_alloc("Sell::new", || {
        Sell::new(a.nrows(), a.ncols(), 8, sell.slice_ptr(), sell.col_idx(), sell.vals()).unwrap()
    });

    // Back to CSR.
    let (mut rp2, mut ci2, mut v2) = (vec![I::ZERO; a.nrows() + 1], vec![I::ZERO; nnz], vec![0.0; nnz]);
    assert_no_alloc("Ell::to_csr", || ell.to_csr(&mut rp2, &mut ci2, &mut v2).map(|_| ()).unwrap());
    assert_no_alloc("Jds::to_csr", || jds.to_csr(&mut rp2, &mut ci2, &mut v2).map(|_| ()).unwrap());
    assert_no_alloc("Sell::to_csr", || sell.to_csr(&mut rp2, &mut ci2, &mut v2).map(|_| ()).unwrap());
    assert_no_alloc("Hyb::to_csr", || hyb.to_csr(&mut rp2, &mut ci2, &mut v2).map(|_| ()).unwrap());
    assert_no_alloc("Coo::to_csr", || coo.to_csr(&mut rp2, &mut ci2, &mut v2).map(|_| ()).unwrap());
    assert_no_alloc("Coo::to_canonical_csr", || {
        coo.to_canonical_csr(&mut rp2, &mut ci2, &mut v2).map(|_| ()).unwrap()
    });

    // CSC: converted, validated, back to CSR; its SpMV and the transposed CSR product.
    let (np, cnnz) = Csc::from_csr_len(&a);
    let (mut cp, mut ri, mut cv) = (vec![I::ZERO; np], vec![I::ZERO; cnnz], vec![0.0; cnnz]);
    let csc = assert_no_alloc("Csc::from_csr", || Csc::from_csr(&a, &mut cp, &mut ri, &mut cv).unwrap());
    assert_no_alloc("Csc::new", || {
        Csc::new(csc.nrows(), csc.ncols(), csc.col_ptr(), csc.row_idx(), csc.vals()).unwrap()
    });
    assert_no_alloc("Csc::to_csr", || csc.to_csr(&mut rp2, &mut ci2, &mut v2).map(|_| ()).unwrap());
    let mut yt = vec![1.0; a.ncols()];
    for &isa in &isas {
        for (alpha, beta) in [(1.0, 0.0), (2.0, 0.5), (0.0, 1.0)] {
            assert_no_alloc("spmv_csr_transpose", || {
                spblas::level2::spmv_csr_transpose(Exec::from(isa), &a, alpha, &y, beta, &mut yt).unwrap()
            });
        }
    }

    let views: [(&str, &dyn SpMv<f64>); 9] = [
        ("csr", &a),
        ("coo", &coo),
        ("ell", &ell),
        ("hyb", &hyb),
        ("jds", &jds),
        ("dia", &dia),
        ("sell", &sell),
        ("csc", &csc),
        ("csr (again)", &a),
    ];
    for &isa in &isas {
        for (name, m) in views {
            for (alpha, beta) in [(1.0, 0.0), (2.0, 0.5), (0.0, 1.0)] {
                assert_no_alloc(name, || m.spmv(Exec::from(isa), alpha, &x, beta, &mut y).unwrap());
            }
        }
        for method in CsrMethod::ALL {
            assert_no_alloc(method.name(), || {
                spblas::level2::spmv_csr(Exec::from(isa), &a, method, 1.0, &x, 0.5, &mut y).unwrap()
            });
        }
        // Rows of one entry each, a permutation and a diagonal: the row loop's blocks of
        // one-entry rows, which write `y` from the register.
        for step in [7usize, 1] {
            let col = |i: usize| if step == 1 { i } else { (i * step + 3) % ROWS };
            let t: Vec<_> = (0..ROWS).map(|i| (i, col(i), 1.0 + i as f64)).collect();
            let ones = CsrOwned::<f64, I>::from_triplets(ROWS, ROWS, &t).unwrap();
            let x1: Vec<f64> = (0..ROWS).map(|j| j as f64 - 2.0).collect();
            for beta in [0.0, 0.5] {
                assert_no_alloc("one-entry rows", || {
                    let e = Exec::from(isa);
                    spblas::level2::spmv_csr(e, &ones.view(), CsrMethod::RowVector, 1.5, &x1, beta, &mut y)
                        .unwrap()
                });
            }
            for (i, &yi) in y.iter().enumerate() {
                let p = 1.5 * ((1.0 + i as f64) * x1[col(i)]);
                assert_eq!(yi, p + 0.5 * p, "{isa}: one-entry row {i}");
            }
        }
        // Choosing, by rule or by timing, allocates nothing either.
        assert_no_alloc("CsrMethod::choose", || CsrMethod::choose(&a, isa));
        assert_no_alloc("CsrMethod::tune", || CsrMethod::tune(Exec::from(isa), &a, &x, &mut y, 2).unwrap());
        assert_no_alloc("SpmvChoice::choose", || spblas::level2::SpmvChoice::choose(&a, isa));
        // A plan allocates once, when made (its CSR5 copy); its products allocate nothing.
        let panels = spblas::level2::SpmvChoice::Csr5Panels { columns: a.ncols().div_ceil(3).max(1) };
        for choice in [spblas::level2::SpmvChoice::choose(&a, isa), spblas::level2::SpmvChoice::Csr5, panels]
        {
            let plan =
                spblas::level2::SpmvPlan::with_config(Exec::from(isa), &a, SpmvConfig::new().choice(choice))
                    .unwrap();
            assert_no_alloc("SpmvPlan spmv", || plan.spmv(Exec::new(), 1.0, &x, 0.5, &mut y).unwrap());
        }
        // A plan in caller buffers allocates nothing at all: layout, build, products.
        for choice in [spblas::level2::SpmvChoice::choose(&a, isa), spblas::level2::SpmvChoice::Csr5] {
            let layout = assert_no_alloc("SpmvPlanLayout", || {
                spblas::SpmvPlanLayout::with_choice(Exec::from(isa), &a, choice).unwrap()
            });
            let (mut idx, mut vals, mut words) = (
                vec![I::ZERO; layout.idx_len()],
                vec![0.0; layout.vals_len()],
                vec![0u32; layout.words_len()],
            );
            let plan = assert_no_alloc("SpmvPlanView::from_buffers", || {
                spblas::SpmvPlanView::from_buffers(&a, &layout, &mut idx, &mut vals, &mut words).unwrap()
            });
            assert_no_alloc("SpmvPlanView spmv", || plan.spmv(Exec::new(), 1.0, &x, 0.5, &mut y).unwrap());
        }
    }
    // The DIA copy too (a tridiagonal matrix).
    let t: Vec<_> = (0..300usize)
        .flat_map(|i| (i.saturating_sub(1)..(i + 2).min(300)).map(move |j| (i, j, 1.0 + j as f64)))
        .collect();
    let tri = CsrOwned::<f64, u32>::from_triplets(300, 300, &t).unwrap();
    let tri = tri.view();
    let layout =
        assert_no_alloc("SpmvPlanLayout dia", || spblas::SpmvPlanLayout::new(Exec::new(), &tri).unwrap());
    assert_eq!(layout.choice(), spblas::level2::SpmvChoice::Dia);
    let mut slots = vec![0.0; layout.vals_len()];
    let plan = assert_no_alloc("SpmvPlanView::from_buffers dia", || {
        spblas::SpmvPlanView::from_buffers(&tri, &layout, &mut [], &mut slots, &mut []).unwrap()
    });
    let (x, mut y) = (vec![1.0; 300], vec![0.0; 300]);
    assert_no_alloc("SpmvPlanView spmv dia", || plan.spmv(Exec::new(), 1.0, &x, 0.0, &mut y).unwrap());
}

#[test]
fn spmm_allocates_nothing() {
    spmm::<u32>();
}

#[test]
#[cfg_attr(miri, ignore)]
fn spmm_allocates_nothing_u16() {
    spmm::<u16>();
}

/// CSR SpMM on every `Isa`, both layouts, `k` across the register tiles, and building
/// the dense views.
fn spmm<I: Index>() {
    let isas = isas();
    let owned = matrix::<I>();
    let a = owned.view();
    for k in [1usize, 7, 8, 17, if cfg!(miri) { 20 } else { 64 }] {
        let x: Vec<f64> = (0..a.ncols() * k).map(|p| (p % 9) as f64).collect();
        let mut y = vec![1.0; a.nrows() * k];
        for layout in [DenseLayout::RowMajor, DenseLayout::ColMajor] {
            let (ldx, ldy) = if layout == DenseLayout::RowMajor { (k, k) } else { (a.ncols(), a.nrows()) };
            let xd =
                assert_no_alloc("DenseRef::new", || DenseRef::new(a.ncols(), k, ldx, layout, &x).unwrap());
            let mut yd = assert_no_alloc("DenseMut::new", || {
                DenseMut::new(a.nrows(), k, ldy, layout, &mut y).unwrap()
            });
            for &isa in &isas {
                for (alpha, beta) in [(1.0, 0.0), (2.0, 0.5), (0.0, 1.0)] {
                    assert_no_alloc("spmm", || a.spmm(Exec::from(isa), alpha, xd, beta, &mut yd).unwrap());
                }
            }
        }
    }
}

#[test]
fn csr5_spmm_allocates_nothing() {
    csr5_spmm::<u32>();
}

#[test]
#[cfg_attr(miri, ignore)]
fn csr5_spmm_allocates_nothing_u16_i32() {
    csr5_spmm::<u16>();
    csr5_spmm::<i32>();
}

/// CSR5 SpMM on every `Isa`, both layouts, `k` across the register blocks: whole, by tile
/// ranges with their carries, and through a plan in caller buffers.
fn csr5_spmm<I: Index>() {
    use spblas::level2::csr5::{apply_spmm_carry, owned_rows, spmm_tiles};
    let isas = isas();
    let owned = matrix::<I>();
    let a = owned.view();
    for &isa in &isas {
        let layout = Csr5Layout::new(&a, isa).unwrap();
        let nnz = layout.nnz();
        let (mut ci, mut v) = (vec![I::ZERO; nnz], vec![0.0; nnz]);
        let mut tile_ptr = vec![I::ZERO; layout.tile_ptr_len()];
        let mut tile_desc = vec![0u32; layout.tile_desc_len()];
        let mut eop = vec![I::ZERO; layout.tile_ptr_len()];
        let mut eo = vec![I::ZERO; layout.empty_offset_len()];
        let aux = Csr5Aux {
            tile_ptr: &mut tile_ptr,
            tile_desc: &mut tile_desc,
            empty_offset_ptr: &mut eop,
            empty_offset: &mut eo,
        };
        let m = Csr5::from_csr(&a, &layout, &mut ci, &mut v, aux).unwrap();
        for k in [1usize, 7, 8, 17, if cfg!(miri) { 20 } else { 64 }] {
            let x: Vec<f64> = (0..a.ncols() * k).map(|p| (p % 9) as f64).collect();
            let mut y = vec![1.0; a.nrows() * k];
            let mut carry = vec![0.0; k];
            for layout in [DenseLayout::RowMajor, DenseLayout::ColMajor] {
                let (ldx, ldy) =
                    if layout == DenseLayout::RowMajor { (k, k) } else { (a.ncols(), a.nrows()) };
                let xd = DenseRef::new(a.ncols(), k, ldx, layout, &x).unwrap();
                let mut yd = DenseMut::new(a.nrows(), k, ldy, layout, &mut y).unwrap();
                for (alpha, beta) in [(1.0, 0.0), (2.0, 0.5), (0.0, 1.0)] {
                    assert_no_alloc("csr5 spmm", || {
                        m.spmm(Exec::from(isa), alpha, xd, beta, &mut yd).unwrap()
                    });
                }
                if layout == DenseLayout::RowMajor {
                    // The first two tiles, then the rest, then the carry.
                    let split = m.tiles().min(2);
                    let r = owned_rows(&m, 0..split).unwrap();
                    let (head, tail) = y.split_at_mut(r.end * k);
                    let mut yh = DenseMut::row_major(r.len(), k, head).unwrap();
                    let mut yt = DenseMut::row_major(a.nrows() - r.end, k, tail).unwrap();
                    let n = m.tiles() + 1;
                    let row = assert_no_alloc("spmm_tiles", || {
                        spmm_tiles(&m, isa, split..n, 1.0, xd, 0.0, &mut yt, &mut carry).unwrap();
                        spmm_tiles(&m, isa, 0..split, 1.0, xd, 0.0, &mut yh, &mut carry).unwrap()
                    });
                    let mut yd = DenseMut::row_major(a.nrows(), k, &mut y).unwrap();
                    if let Some(row) = row {
                        assert_no_alloc("apply_spmm_carry", || {
                            apply_spmm_carry(row, &carry, &mut yd).unwrap()
                        });
                    }
                }
            }
        }
        let plan_layout =
            spblas::SpmvPlanLayout::with_choice(Exec::from(isa), &a, spblas::level2::SpmvChoice::Csr5)
                .unwrap();
        let mut idx = vec![I::ZERO; plan_layout.idx_len()];
        let mut vals = vec![0.0; plan_layout.vals_len()];
        let mut words = vec![0u32; plan_layout.words_len()];
        let plan =
            spblas::SpmvPlanView::from_buffers(&a, &plan_layout, &mut idx, &mut vals, &mut words).unwrap();
        let x: Vec<f64> = (0..a.ncols() * 9).map(|p| (p % 9) as f64).collect();
        let mut y = vec![1.0; a.nrows() * 9];
        let xd = DenseRef::row_major(a.ncols(), 9, &x).unwrap();
        let mut yd = DenseMut::row_major(a.nrows(), 9, &mut y).unwrap();
        assert_no_alloc("SpmvPlanView spmm", || plan.spmm(Exec::new(), 1.0, xd, 0.0, &mut yd).unwrap());
    }
}

#[test]
fn symmetric_spmv_and_spmm_allocate_nothing() {
    symmetric::<u32>();
}

#[test]
#[cfg_attr(miri, ignore)]
fn symmetric_spmv_and_spmm_allocate_nothing_i32() {
    symmetric::<i32>();
}

/// The symmetric view of the lower triangle of [`matrix`] (its check included), its SpMV
/// and its SpMM on every `Isa`, both triangles, `k` across the register tiles, both
/// layouts, one thread.
fn symmetric<I: Index>() {
    let isas = isas();
    let owned = matrix::<I>();
    let full = owned.view();
    let n = full.nrows().min(full.ncols());
    let lower: Vec<(usize, usize, f64)> = full.iter().filter(|&(i, j, _)| j <= i && i < n).collect();
    let upper: Vec<(usize, usize, f64)> = lower.iter().map(|&(i, j, v)| (j, i, v)).collect();
    for (entries, triangle) in [(lower, Triangle::Lower), (upper, Triangle::Upper)] {
        let t = CsrOwned::<f64, I>::from_triplets(n, n, &entries).unwrap();
        let a = assert_no_alloc("Symmetric::new", || Symmetric::new(t.view(), triangle).unwrap());
        let x: Vec<f64> = (0..n).map(|i| (i % 5) as f64).collect();
        let mut y = vec![1.0; n];
        for &isa in &isas {
            for (alpha, beta) in [(1.0, 0.0), (2.0, 0.5), (0.0, 1.0)] {
                assert_no_alloc("symmetric spmv", || {
                    a.spmv(Exec::from(isa), alpha, &x, beta, &mut y).unwrap()
                });
            }
        }
        for k in [1usize, 8, 17] {
            let x: Vec<f64> = (0..n * k).map(|p| (p % 9) as f64).collect();
            let mut y = vec![1.0; n * k];
            for layout in [DenseLayout::RowMajor, DenseLayout::ColMajor] {
                let ld = if layout == DenseLayout::RowMajor { k } else { n };
                let xd = DenseRef::new(n, k, ld, layout, &x).unwrap();
                let mut yd = DenseMut::new(n, k, ld, layout, &mut y).unwrap();
                for &isa in &isas {
                    assert_no_alloc("symmetric spmm", || {
                        a.spmm(Exec::from(isa), 1.5, xd, 0.5, &mut yd).unwrap()
                    });
                }
            }
        }
    }
}

#[test]
fn csr5_conversions_and_spmv_allocate_nothing() {
    csr5_conversions::<u32>();
}

#[test]
// The `u32` case's generic code again: natively only (under Miri it would double the time).
#[cfg_attr(miri, ignore)]
fn csr5_conversions_and_spmv_allocate_nothing_u16() {
    csr5_conversions::<u16>();
}

#[test]
#[cfg_attr(miri, ignore)]
fn csr5_conversions_and_spmv_allocate_nothing_i32() {
    csr5_conversions::<i32>();
}

fn csr5_conversions<I: Index>() {
    let isas = isas();
    let owned = matrix::<I>();
    let a = owned.view();
    let x: Vec<f64> = (0..a.ncols()).map(|j| j as f64).collect();
    let mut y = vec![1.0; a.nrows()];
    for &isa in &isas {
        let layout = assert_no_alloc("Csr5Layout::new", || Csr5Layout::new(&a, isa).unwrap());
        let nnz = layout.nnz();
        let (mut ci, mut v) = (vec![I::ZERO; nnz], vec![0.0; nnz]);
        let mut tile_ptr = vec![I::ZERO; layout.tile_ptr_len()];
        let mut tile_desc = vec![0u32; layout.tile_desc_len()];
        let mut eop = vec![I::ZERO; layout.tile_ptr_len()];
        let mut eo = vec![I::ZERO; layout.empty_offset_len()];
        let m = assert_no_alloc("Csr5::from_csr", || {
            let aux = Csr5Aux {
                tile_ptr: &mut tile_ptr,
                tile_desc: &mut tile_desc,
                empty_offset_ptr: &mut eop,
                empty_offset: &mut eo,
            };
            Csr5::from_csr(&a, &layout, &mut ci, &mut v, aux).unwrap()
        });
        assert_no_alloc("csr5 spmv", || m.spmv(Exec::from(isa), 1.0, &x, 0.5, &mut y).unwrap());
        let (mut bc, mut bv) = (vec![I::ZERO; nnz], vec![0.0; nnz]);
        assert_no_alloc("Csr5::to_csr", || m.to_csr(&mut bc, &mut bv).unwrap());
        assert_eq!(bc, a.col_idx());

        // In place.
        let (mut ci3, mut v3) = (a.col_idx().to_vec(), a.vals().to_vec());
        let mut tile_ptr = vec![I::ZERO; layout.tile_ptr_len()];
        let mut tile_desc = vec![0u32; layout.tile_desc_len()];
        let mut eop = vec![I::ZERO; layout.tile_ptr_len()];
        let mut eo = vec![I::ZERO; layout.empty_offset_len()];
        assert_no_alloc("Csr5::from_csr_in_place", || {
            let aux = Csr5Aux {
                tile_ptr: &mut tile_ptr,
                tile_desc: &mut tile_desc,
                empty_offset_ptr: &mut eop,
                empty_offset: &mut eo,
            };
            let m =
                Csr5::from_csr_in_place(a.nrows(), a.ncols(), a.row_ptr(), &mut ci3, &mut v3, &layout, aux)
                    .unwrap();
            m.spmv(Exec::from(isa), 1.0, &x, 0.0, &mut y).unwrap();
        });
        assert_no_alloc("Csr5::to_csr_in_place", || {
            Csr5::<f64, I>::to_csr_in_place(&layout, &mut ci3, &mut v3).unwrap()
        });
        assert_eq!(ci3, a.col_idx());
    }
}

/// Canonical CSR from triplets in any order (duplicates, one long row) into caller
/// buffers, from the same triplets as COO, and (feature `heapless`) into fixed-capacity
/// storage: the firmware's way to a canonical matrix, with no allocator.
#[test]
fn canonical_conversions_allocate_nothing() {
    const M: usize = 40;
    let t: Vec<(usize, usize, f64)> = (0..N)
        .map(|k| {
            let r = if k % 3 == 0 { 7 } else { (k * 31) % M };
            (r, (k * 17 + k / 5) % COLS, (k % 9) as f64 - 4.0)
        })
        .collect();
    let (mut rp, mut ci, mut v) = (vec![0u32; M + 1], vec![0u32; N], vec![0.0; N]);
    let nnz = assert_no_alloc("Csr::from_triplets", || {
        Csr::from_triplets(M, COLS, &t, &mut rp, &mut ci, &mut v).unwrap().nnz()
    });
    assert!(nnz < N);
    let r: Vec<u32> = t.iter().map(|e| e.0 as u32).collect();
    let c: Vec<u32> = t.iter().map(|e| e.1 as u32).collect();
    let x: Vec<f64> = t.iter().map(|e| e.2).collect();
    let coo = Coo::new(M, COLS, &r, &c, &x).unwrap();
    let (mut rp2, mut ci2, mut v2) = (vec![0u32; M + 1], vec![0u32; N], vec![0.0; N]);
    assert_no_alloc("Coo::to_canonical_csr", || coo.to_canonical_csr(&mut rp2, &mut ci2, &mut v2).unwrap());
    assert_eq!((&rp, &ci[..nnz], &v[..nnz]), (&rp2, &ci2[..nnz], &v2[..nnz]));
    #[cfg(feature = "heapless")]
    {
        type Fixed = spblas::CsrHeapless<f64, u32, { M + 1 }, N>;
        let h = assert_no_alloc("CsrHeapless::from_triplets", || Fixed::from_triplets(M, COLS, &t).unwrap());
        assert_eq!(h.view().col_idx(), &ci[..nnz]);
        assert_no_alloc("CsrHeapless::from_coo", || Fixed::from_coo(&coo).unwrap().nnz());
    }
}

#[test]
fn primitives_allocate_nothing() {
    let isas = isas();
    let n = N;
    let src_f: Vec<f64> = (0..n).map(|i| (i % 13) as f64).collect();
    let src_u: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let flags: Vec<bool> = (0..n).map(|i| i % 7 == 0).collect();
    let mut seg_offset = vec![0u32; n];
    assert_no_alloc("seg_offset_from_heads", || {
        seg_offset_from_heads(HeadFlags::bools(&flags), &mut seg_offset).unwrap()
    });
    let mut dst = vec![0.0; n];
    let (mut a, mut b) = (src_u[..n / 3].to_vec(), src_u[n / 3..].to_vec());
    a.sort_unstable();
    b.sort_unstable();
    let mut out = vec![0u32; n];
    let mut splits = vec![(0usize, 0usize); 5];
    let mut kout = vec![0u32; 10];
    for &isa in &isas {
        let mut v = src_f.clone();
        let mut u = src_u.clone();
        let mut w = src_u.clone();
        let mut vals: Vec<u64> = (0..n as u64).collect();
        assert_no_alloc("reduce", || reduce(Exec::from(isa), &src_f).unwrap());
        assert_no_alloc("inclusive_scan", || inclusive_scan(Exec::from(isa), &mut v).unwrap());
        assert_no_alloc("exclusive_scan", || exclusive_scan(Exec::from(isa), &mut u).unwrap());
        let mut v = src_f.clone();
        assert_no_alloc("segmented_scan", || {
            segmented_scan(Exec::from(isa), &mut v, HeadFlags::bools(&flags)).unwrap()
        });
        assert_no_alloc("segmented_sum", || {
            segmented_sum(Exec::from(isa), &mut v, HeadFlags::bools(&flags)).unwrap()
        });
        assert_no_alloc("seg_offset sum", || {
            segmented_sum_seg_offset(Exec::from(isa), &src_f, &seg_offset, &mut dst).unwrap()
        });
        let mut u = src_u.clone();
        assert_no_alloc("bitonic_sort", || bitonic_sort(Exec::from(isa), &mut u).unwrap());
        assert_no_alloc("odd_even_sort", || odd_even_sort(Exec::from(isa), &mut w).unwrap());
        let mut u = src_u.clone();
        assert_no_alloc("bitonic_sort_pairs", || {
            bitonic_sort_pairs(Exec::from(isa), &mut u, &mut vals).unwrap()
        });
        assert_no_alloc("merge", || merge(Exec::from(isa), &a, &b, &mut out).unwrap());
        assert_no_alloc("merge_path", || {
            merge_path(Exec::from(isa), &a, &b, 4, &mut splits, &mut out).unwrap()
        });
        assert_no_alloc("k_select", || k_select(Exec::from(isa), &src_u, 10, &mut kout).unwrap());
        let mut hb = src_u.clone();
        assert_no_alloc("d-heap", || {
            let mut h = DHeap::<u32>::from_slice(Exec::from(isa), &mut hb).unwrap();
            h.pop();
            h.push(3).unwrap();
            h.into_sorted().len()
        });
        // `u16` keys (the `u16` index type's sorts, merges and heaps).
        let mut k16: Vec<u16> = src_u.iter().map(|&k| (k >> 16) as u16).collect();
        let mut v16: Vec<u64> = (0..n as u64).collect();
        assert_no_alloc("bitonic_sort u16", || bitonic_sort(Exec::from(isa), &mut k16).unwrap());
        let (a16, b16) = k16.split_at(n / 3);
        let mut out16 = vec![0u16; n];
        assert_no_alloc("merge u16", || merge(Exec::from(isa), a16, b16, &mut out16).unwrap());
        assert_no_alloc("odd_even_sort u16", || odd_even_sort(Exec::from(isa), &mut out16).unwrap());
        assert_no_alloc("bitonic_sort_pairs u16", || {
            bitonic_sort_pairs(Exec::from(isa), &mut out16, &mut v16).unwrap()
        });
        assert_no_alloc("d-heap u16", || {
            let mut h = DHeap::<u16>::from_slice(Exec::from(isa), &mut out16).unwrap();
            h.pop();
            h.push(3).unwrap();
            h.into_sorted().len()
        });
    }
}

#[test]
fn level1_with_workspace_allocates_nothing() {
    level1_with_workspace::<u32>();
}

#[test]
// The `u32` case's generic code again: natively only (under Miri it would double the time).
#[cfg_attr(miri, ignore)]
fn level1_with_workspace_allocates_nothing_u16() {
    level1_with_workspace::<u16>();
}

#[test]
#[cfg_attr(miri, ignore)]
fn level1_with_workspace_allocates_nothing_i64() {
    level1_with_workspace::<i64>();
}

fn level1_with_workspace<I: Index + Key>() {
    let isas = isas();
    let n = 3 * N;
    let xi: Vec<I> = (0..n).step_by(3).map(ix).collect();
    let yi: Vec<I> = (0..n).step_by(5).map(ix).collect();
    let xv: Vec<f64> = xi.iter().map(|&i| (i.to_usize() % 7) as f64).collect();
    let yv: Vec<f64> = yi.iter().map(|&i| (i.to_usize() % 5) as f64).collect();
    let x = SpVec::new(n, &xi, &xv).unwrap();
    let y = SpVec::new(n, &yi, &yv).unwrap();
    let m = x.nnz() + y.nnz();
    let (mut oi, mut ov) = (vec![I::ZERO; m], vec![0.0; m]);
    let dense: Vec<f64> = (0..n).map(|i| i as f64).collect();
    for &isa in &isas {
        for method in AddMethod::ALL {
            let mut ws = vec![0.0; add_workspace_len::<f64>(method, x.nnz(), y.nnz(), n)];
            assert_no_alloc(method.name(), || {
                add(Exec::from(isa), x, y, &mut oi, &mut ov, method, &mut ws).unwrap()
            });
        }
        assert_no_alloc("AddMethod::choose_isa", || AddMethod::choose(isa, 8, 8, 1 << 20));
        assert_no_alloc("AddRule::choose", || AddRule::DEFAULT.choose(isa, 8, 8, 1 << 20));
    }
    let mut d = dense.clone();
    let mut g = vec![0.0; xi.len()];
    assert_no_alloc("dot", || dot(x, y).unwrap());
    assert_no_alloc("dot_dense", || dot_dense(x, &dense).unwrap());
    assert_no_alloc("axpy", || axpy(2.0, x, &mut d).unwrap());
    assert_no_alloc("gather", || gather(&dense, &xi, &mut g).unwrap());
    assert_no_alloc("scatter", || scatter(x, &mut d).unwrap());
}

#[test]
fn spgemm_symbolic_numeric_and_bounded_allocate_nothing() {
    spgemm_phases::<u32>();
}

#[test]
// The `u32` case's generic code again: natively only (under Miri it would double the time).
#[cfg_attr(miri, ignore)]
fn spgemm_symbolic_numeric_and_bounded_allocate_nothing_u16() {
    spgemm_phases::<u16>();
}

#[test]
#[cfg_attr(miri, ignore)]
fn spgemm_symbolic_numeric_and_bounded_allocate_nothing_i32() {
    spgemm_phases::<i32>();
}

#[test]
fn matrix_sum_and_scalings_allocate_nothing() {
    let isas = isas();
    let a = matrix::<u32>();
    let a = a.view();
    // B: canonical, same shape; with A (unsorted, duplicates) every row takes the SPA,
    // with B + B (both canonical) the chapter-7 rule's methods.
    let mut t = Vec::new();
    for i in 0..ROWS {
        for k in 0..(i % 5) {
            t.push((i, (i * 3 + k * 37) % COLS, k as f64 - 1.5));
        }
    }
    let b = CsrOwned::from_triplets(ROWS, COLS, &t).unwrap();
    let b = b.view();
    for isa in isas {
        let exec = Exec::from(isa);
        for (x, y) in [(&a, &b), (&b, &b)] {
            let ws = add_matrices_workspace_len(exec, x, y).unwrap();
            let (mut wi, mut wv) = (vec![0u32; ws.idx], vec![0.0f64; ws.vals]);
            let mut row_ptr = vec![0u32; ROWS + 1];
            let nnz =
                assert_no_alloc("add_symbolic", || add_symbolic(exec, x, y, &mut row_ptr, &mut wi).unwrap());
            let (mut ci, mut cv) = (vec![0u32; nnz], vec![0.0f64; nnz]);
            assert_no_alloc("add_numeric", || {
                add_numeric(exec, 2.0, x, -1.0, y, &row_ptr, &mut ci, &mut cv, (&mut wi, &mut wv)).unwrap()
            });
            assert!(nnz > 0, "{isa:?}");
        }
    }
    let mut out = vec![0.0f64; a.nnz()];
    let (dr, dc) = (vec![2.0f64; ROWS], vec![0.5f64; COLS]);
    assert_no_alloc("scale", || mat_scale(&a, 3.0, &mut out).unwrap());
    assert_no_alloc("scale_rows", || scale_rows(&a, &dr, &mut out).unwrap());
    assert_no_alloc("scale_cols", || scale_cols(&a, &dc, &mut out).unwrap());
}

fn spgemm_phases<I: Index + Key>() {
    let isas = isas();
    let a = matrix::<I>();
    let a = a.view();
    // B = Aᵀ-shaped (COLS x ROWS) canonical, so the merge can be forced too.
    let mut t = Vec::new();
    for j in 0..COLS {
        for k in 0..(j % 6) {
            t.push((j, (j * 17 + k * 41) % ROWS, (k % 5) as f64 - 2.0));
        }
    }
    let b = CsrOwned::from_triplets(COLS, ROWS, &t).unwrap();
    let b = b.view();
    let methods = [
        None,
        Some(RowMethod::Heap),
        Some(RowMethod::BitonicEsc),
        Some(RowMethod::Merge),
        Some(RowMethod::Spa),
    ];
    for isa in isas {
        for m in methods {
            let (exec, cfg) = (Exec::from(isa), SpgemmConfig { method: m, ..SpgemmConfig::new() });
            let ws = spgemm_workspace_len(exec, cfg, &a, &b).unwrap();
            let (mut wi, mut wv) = (vec![I::ZERO; ws.idx], vec![0.0f64; ws.vals]);
            let mut row_ptr = vec![I::ZERO; a.nrows() + 1];
            let nnz = assert_no_alloc("spgemm_symbolic", || {
                spgemm_symbolic(exec, cfg, &a, &b, &mut row_ptr, &mut wi).unwrap()
            });
            let (mut ci, mut cv) = (vec![I::ZERO; nnz], vec![0.0f64; nnz]);
            assert_no_alloc("spgemm_numeric", || {
                spgemm_numeric(exec, cfg, &a, &b, &row_ptr, &mut ci, &mut cv, (&mut wi, &mut wv)).unwrap()
            });
            assert!(nnz > 0, "{isa:?} {m:?}");
            // One pass into buffers of the upper bound.
            let mut ub = vec![I::ZERO; a.nrows()];
            let total = spblas::level3::upper_bound(&a, &b, &mut ub).unwrap();
            let (mut bp, mut bi, mut bv) =
                (vec![I::ZERO; a.nrows() + 1], vec![I::ZERO; total], vec![0.0f64; total]);
            let got = assert_no_alloc("spgemm_bounded", || {
                spgemm_bounded(exec, cfg, &a, &b, &mut bp, &mut bi, &mut bv, (&mut wi, &mut wv)).unwrap()
            });
            assert_eq!((got, &bp), (nnz, &row_ptr), "{isa:?} {m:?}");
        }
    }
}

#[test]
fn triangular_solves_allocate_nothing() {
    triangular_solves::<u32>();
}

#[test]
#[cfg_attr(miri, ignore)]
fn triangular_solves_allocate_nothing_u16() {
    triangular_solves::<u16>();
}

/// The one-shot solves (one and three right-hand sides), the analyses (with the level
/// sets in a caller buffer) and the analysed solves by every method on one thread, on a
/// lower and an upper triangle with unsorted rows.
fn triangular_solves<I: Index>() {
    use spblas::level2::{Diagonal, Triangle, TriangularSolve, TrsvMethod, trsm, trsv};
    let isas = isas();
    for tri in [Triangle::Lower, Triangle::Upper] {
        let (mut row_ptr, mut col_idx, mut vals) = (vec![I::ZERO], Vec::new(), Vec::new());
        for i in 0..ROWS {
            // The diagonal first, then up to three entries of the triangle, columns falling.
            col_idx.push(ix(i));
            vals.push(4.0);
            for k in 1..=(i * 7 % 4) {
                let j = match tri {
                    Triangle::Lower => i.checked_sub(k * 5),
                    Triangle::Upper => Some(i + k * 5).filter(|&j| j < ROWS),
                };
                if let Some(j) = j {
                    col_idx.push(ix(j));
                    vals.push(-1.0);
                }
            }
            row_ptr.push(ix(col_idx.len()));
        }
        let a = CsrOwned::from_parts(ROWS, ROWS, row_ptr, col_idx, vals).unwrap();
        let a = a.view();
        let mut ws = vec![0usize; TriangularSolve::<f64, I>::levels_len(ROWS)];
        let (mut x, mut x3) = (vec![1.0f64; ROWS], vec![1.0f64; 3 * ROWS]);
        for &isa in &isas {
            let e = Exec::from(isa);
            for diag in [Diagonal::NonUnit, Diagonal::Unit] {
                assert_no_alloc("trsv", || trsv(e, &a, tri, diag, 1.0, &mut x).unwrap());
                assert_no_alloc("trsm", || trsm(e, &a, tri, diag, 0.5, &mut x3, 3).unwrap());
                assert_no_alloc("TriangularSolve::analyse", || {
                    TriangularSolve::analyse(e, &a, tri, diag).unwrap();
                });
                let s = assert_no_alloc("TriangularSolve::analyse_levels", || {
                    TriangularSolve::analyse_levels(e, &a, tri, diag, &mut ws).unwrap()
                });
                for m in [TrsvMethod::Substitution, TrsvMethod::LevelSet, TrsvMethod::SyncFree] {
                    assert_no_alloc("TriangularSolve::solve_with", || {
                        s.solve_with(e, m, 1.0, &mut x, 1).unwrap();
                        s.solve_with(e, m, 1.0, &mut x3, 3).unwrap();
                    });
                }
            }
        }
    }
}
