"""Smoke test of the shared library through Python's ctypes (no other dependency).

    cargo build -p spblas-capi --profile capi
    python3 capi/tests/ctypes_smoke.py target/capi/libspblas.so

Runs a CSR SpMV and a plan on a small matrix against a plain loop, then the error paths
(NULL, an invalid matrix, a bad plan argument). Exits non-zero on the first failure.
"""

import ctypes as C
import sys


def main(path):
    lib = C.CDLL(path)
    u32p, f64p = C.POINTER(C.c_uint32), C.POINTER(C.c_double)
    lib.spblas_csr_spmv_f64_u32.argtypes = [
        C.c_size_t, C.c_size_t, u32p, u32p, f64p, C.c_double, f64p, C.c_double, f64p]
    lib.spblas_csr_spmv_f64_u32.restype = C.c_int32
    lib.spblas_status_message.argtypes = [C.c_int32]
    lib.spblas_status_message.restype = C.c_char_p
    lib.spblas_isa_name.restype = C.c_char_p
    lib.spblas_plan_f64_u32_create.argtypes = [
        C.c_size_t, C.c_size_t, u32p, u32p, f64p, C.POINTER(C.c_void_p)]
    lib.spblas_plan_f64_u32_create.restype = C.c_int32
    lib.spblas_plan_f64_u32_spmv.argtypes = [C.c_void_p, C.c_double, f64p, C.c_double, f64p]
    lib.spblas_plan_f64_u32_spmv.restype = C.c_int32
    lib.spblas_plan_f64_u32_destroy.argtypes = [C.c_void_p]
    lib.spblas_plan_f64_u32_destroy.restype = None

    # 3 x 4: [[1, 0, 2, 0], [0, 0, 0, 0], [3, 4, 0, 5]]
    rp = (C.c_uint32 * 4)(0, 2, 2, 5)
    ci = (C.c_uint32 * 5)(0, 2, 0, 1, 3)
    v = (C.c_double * 5)(1, 2, 3, 4, 5)
    x = (C.c_double * 4)(1, 2, 3, 4)
    dense = [[1, 0, 2, 0], [0, 0, 0, 0], [3, 4, 0, 5]]

    def expect(y0, alpha, beta):
        return [alpha * sum(a * b for a, b in zip(row, x)) + beta * y for row, y in zip(dense, y0)]

    ok, bad = 0, []

    def check(cond, what):
        nonlocal ok
        if cond:
            ok += 1
        else:
            bad.append(what)

    y = (C.c_double * 3)(1, 1, 1)
    s = lib.spblas_csr_spmv_f64_u32(3, 4, rp, ci, v, 2.0, x, 0.5, y)
    check(s == 0, f"spmv status {s}")
    check(list(y) == expect([1, 1, 1], 2.0, 0.5), f"spmv result {list(y)}")

    s = lib.spblas_csr_spmv_f64_u32(3, 4, None, ci, v, 2.0, x, 0.5, y)
    check(s == 1 and lib.spblas_status_message(s).startswith(b"a pointer"), f"NULL row_ptr: {s}")
    before = list(y)
    s = lib.spblas_csr_spmv_f64_u32(3, 2, rp, ci, v, 2.0, x, 0.5, y)
    check(s == 4 and list(y) == before, f"column out of bounds: {s}")

    plan = C.c_void_p()
    s = lib.spblas_plan_f64_u32_create(3, 4, rp, ci, v, C.byref(plan))
    check(s == 0 and plan.value, f"plan create {s}")
    y = (C.c_double * 3)(0, 0, 0)
    s = lib.spblas_plan_f64_u32_spmv(plan, 1.0, x, 0.0, y)
    check(s == 0 and list(y) == expect([0, 0, 0], 1.0, 0.0), f"plan spmv {s} {list(y)}")
    check(lib.spblas_plan_f64_u32_spmv(None, 1.0, x, 0.0, y) == 1, "NULL plan")
    lib.spblas_plan_f64_u32_destroy(plan)
    lib.spblas_plan_f64_u32_destroy(None)

    check(lib.spblas_isa_name() in (b"portable", b"avx2", b"avx512", b"neon"), "isa name")
    if bad:
        print("ctypes smoke test FAILED:", *bad, sep="\n  ")
        return 1
    print(f"ctypes smoke test: {ok} checks passed on {lib.spblas_isa_name().decode()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "target/capi/libspblas.so"))
