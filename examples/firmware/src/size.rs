// The body of the size probes (`src/bin/size_*.rs`): the test matrix in static buffers,
// then the operation the probe names (`PROBE`: "base" runs none). Each image's `.text`
// less the base image's is what that operation adds to a firmware image.

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
        _ => {
            spmv_reference(&ROW_PTR[..], &COL_IDX[..nnz], &VALS[..nnz], x, y);
            true
        }
    };
    core::hint::black_box(&*y);
    exit(ok)
}
