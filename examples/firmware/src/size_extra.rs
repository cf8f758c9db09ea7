// `size.rs` with the buffers of two more probes, kept apart so that they do not change how
// the compiler lays out the budgeted ones: "plan", the rule's SpMV plan in static buffers,
// and "triplets", canonical CSR from triplets, each with an SpMV ("base": neither; the
// `size_base_extra` image these two are measured against).

// `#[entry]` turns each `static mut` into an argument of the function it generates.
#[allow(clippy::too_many_arguments)]
#[entry]
fn main() -> ! {
    static mut ROW_PTR: [u32; N + 1] = [0; N + 1];
    static mut COL_IDX: [u32; NNZ_MAX] = [0; NNZ_MAX];
    static mut VALS: [T; NNZ_MAX] = [0.0; NNZ_MAX];
    static mut C5_COL: [u32; NNZ_MAX] = [0; NNZ_MAX];
    static mut C5_VALS: [T; NNZ_MAX] = [0.0; NNZ_MAX];
    static mut TILE_PTR: [u32; NNZ_MAX] = [0; NNZ_MAX];
    static mut TILE_DESC: [u32; NNZ_MAX] = [0; NNZ_MAX];
    static mut EMPTY_PTR: [u32; NNZ_MAX] = [0; NNZ_MAX];
    static mut EMPTY: [u32; NNZ_MAX] = [0; NNZ_MAX];
    static mut X: [T; N] = [1.0; N];
    static mut Y: [T; N] = [0.0; N];
    static mut IDX: [u32; 3 * NNZ_MAX] = [0; 3 * NNZ_MAX];
    static mut TRIPLETS: [(usize, usize, T); NNZ_MAX] = [(0, 0, 0.0); NNZ_MAX];
    let (x, y) = (&X[..], &mut Y[..]);
    let nnz = test_matrix(GRID, ROW_PTR, COL_IDX, VALS);
    let ok = match PROBE {
        "csr" => Csr::new(N, N, &ROW_PTR[..], &COL_IDX[..nnz], &VALS[..nnz])
            .is_ok_and(|a| a.spmv(Exec::new(), 1.0, x, 0.0, y).is_ok()),
        "csr5" => Csr::new(N, N, &ROW_PTR[..], &COL_IDX[..nnz], &VALS[..nnz]).is_ok_and(|a| {
            let aux = Csr5Aux {
                tile_ptr: &mut TILE_PTR[..],
                tile_desc: &mut TILE_DESC[..],
                empty_offset_ptr: &mut EMPTY_PTR[..],
                empty_offset: &mut EMPTY[..],
            };
            Csr5Layout::new(&a, Isa::detect())
                .and_then(|l| Csr5::from_csr(&a, &l, &mut C5_COL[..], &mut C5_VALS[..], aux))
                .is_ok_and(|c5| c5.spmv(Exec::new(), 1.0, x, 0.0, y).is_ok())
        }),
        "plan" => Csr::new(N, N, &ROW_PTR[..], &COL_IDX[..nnz], &VALS[..nnz]).is_ok_and(|a| {
            SpmvPlanLayout::new(Exec::new(), &a).is_ok_and(|l| {
                SpmvPlanView::from_buffers(&a, &l, &mut IDX[..], &mut C5_VALS[..], &mut TILE_DESC[..])
                    .is_ok_and(|p| p.spmv(Exec::new(), 1.0, x, 0.0, y).is_ok())
            })
        }),
        "triplets" => {
            // The entries as triplets, last row first.
            let mut k = 0;
            for i in (0..N).rev() {
                for e in ROW_PTR[i] as usize..ROW_PTR[i + 1] as usize {
                    TRIPLETS[k] = (i, COL_IDX[e] as usize, VALS[e]);
                    k += 1;
                }
            }
            Csr::from_triplets(N, N, &TRIPLETS[..k], &mut EMPTY_PTR[..N + 1], &mut C5_COL[..], &mut C5_VALS[..])
                .is_ok_and(|a| a.spmv(Exec::new(), 1.0, x, 0.0, y).is_ok())
        }
        _ => {
            spmv_reference(&ROW_PTR[..], &COL_IDX[..nnz], &VALS[..nnz], x, y);
            true
        }
    };
    core::hint::black_box(&*y);
    exit(ok)
}
