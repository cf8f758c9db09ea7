#!/usr/bin/env python3
"""cuSPARSE beside the spblas GPU kernels, on the same matrices, in one run.

    python3 benches/gpu/cusparse.py DIR [--record FILE]

DIR is what `examples/gpu.rs --export DIR` wrote: the suite's matrices (`NAME.bin`)
and the spblas timings (`spblas.jsonl`). This script times NVIDIA cuSPARSE's SpMV
(`cusparseSpMV` through CuPy, `y = A x`, int32 indices) on each matrix in `f32` and
`f64`, the way the example timed spblas: the median of its runs, each after reading
the same flush buffer (flushed) or straight after the run before (warm), by CUDA
events; the host issues each SpMV while a spin kernel holds the GPU, so no launch
latency is timed. Every result is checked against the CPU's `y` within the rounding
bound of any summation order. It prints the ratio table, cuSPARSE time / spblas time
(above 1: spblas is faster), and writes it to FILE as Markdown.

cuSPARSE algorithms: `default` (CUSPARSE_SPMV_ALG_DEFAULT, what `A @ x` runs), `alg2`
(CUSPARSE_SPMV_CSR_ALG2), and `default+pre` (after `cusparseSpMV_preprocess`, where the
library has it). spblas: `plan` is the kernel `spblas::gpu::GpuPlan` picks (what a user
gets), `best` the fastest spblas kernel of the run.
"""
import ctypes
import json
import math
import os
import statistics
import sys

import numpy as np
import cupy as cp
import cupyx.scipy.sparse as cps
from cupy_backends.cuda.libs import cusparse as _cs
from cupyx import cusparse as cxs
from cupy._core import _dtype

SINK = None  # set in main: where READ would write (never does)
SPIN = cp.RawKernel(r"""
extern "C" __global__ void spin(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) { }
}
""", "spin")
READ = cp.RawKernel(r"""
extern "C" __global__ void read_all(const double4* a, long long n, double* out) {
    double s = 0.0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        double4 v = a[i];
        s += v.x + v.y + v.z + v.w;
    }
    if (s == 12345.0) out[0] = s;  // keeps the loads; never true for a zero buffer
}
""", "read_all")


def load(path):
    raw = open(path, "rb").read()
    nrows, ncols, nnz = np.frombuffer(raw, np.uint64, 3)
    nrows, ncols, nnz = int(nrows), int(ncols), int(nnz)
    off = 24
    def take(dtype, n):
        nonlocal off
        a = np.frombuffer(raw, dtype, n, off)
        off += n * np.dtype(dtype).itemsize
        return a
    row_ptr = take(np.uint32, nrows + 1)
    col_idx = take(np.uint32, nnz)
    vals = take(np.float64, nnz)
    x = take(np.float64, ncols)
    y = take(np.float64, nrows)
    absy = take(np.float64, nrows)
    return nrows, ncols, row_ptr, col_idx, vals, x, y, absy


def preprocess_fn():
    """cusparseSpMV_preprocess from the libcusparse CuPy loaded, or None."""
    for line in open("/proc/self/maps"):
        if "libcusparse.so" in line:
            lib = ctypes.CDLL(line.split()[-1])
            f = getattr(lib, "cusparseSpMV_preprocess", None)
            if f is not None:
                f.restype = ctypes.c_int
                f.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                              ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                              ctypes.c_int, ctypes.c_void_p]
            return f
    return None


class Spmv:
    """One cuSPARSE SpMV y = A x with its descriptors and buffer made once."""

    def __init__(self, a, x, y, alg, pre):
        self.handle = cp.cuda.device.get_cusparse_handle()
        self.a, self.x, self.y = a, x, y
        self.alpha = np.array(1.0, a.dtype)
        self.beta = np.array(0.0, a.dtype)
        self.da = cxs.SpMatDescriptor.create(a)
        self.dx = cxs.DnVecDescriptor.create(x)
        self.dy = cxs.DnVecDescriptor.create(y)
        self.ct = _dtype.to_cuda_dtype(a.dtype)
        self.alg = alg
        size = _cs.spMV_bufferSize(self.handle, 0, self.alpha.ctypes.data, self.da.desc, self.dx.desc,
                                   self.beta.ctypes.data, self.dy.desc, self.ct, alg)
        self.buf = cp.empty(max(size, 1), cp.int8)
        if pre is not None:
            st = pre(self.handle, 0, self.alpha.ctypes.data, self.da.desc, self.dx.desc,
                     self.beta.ctypes.data, self.dy.desc, self.ct, alg, self.buf.data.ptr)
            if st != 0:
                raise RuntimeError(f"cusparseSpMV_preprocess: status {st}")

    def __call__(self):
        _cs.spMV(self.handle, 0, self.alpha.ctypes.data, self.da.desc, self.dx.desc,
                 self.beta.ctypes.data, self.dy.desc, self.ct, self.alg, self.buf.data.ptr)


def median_ms(fn, runs, flush):
    """The median of `runs` timed runs, after as many untimed ones (clocks up)."""
    starts = [cp.cuda.Event() for _ in range(2 * runs)]
    ends = [cp.cuda.Event() for _ in range(2 * runs)]
    for i in range(2 * runs):
        if flush is not None:
            READ((132 * 8,), (256,), (flush, np.int64(flush.nbytes // 32), SINK))
        SPIN((1,), (1,), (np.int64(200_000),))  # ~0.1 ms: the host issues fn meanwhile
        starts[i].record()
        fn()
        ends[i].record()
    ends[-1].synchronize()
    return statistics.median(cp.cuda.get_elapsed_time(s, e) for s, e in zip(starts[runs:], ends[runs:]))


def err_in_bounds(got, want, absy, lens, eps):
    bound = (lens + 3.0) * eps * absy
    d = np.abs(got.astype(np.float64) - want)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(d == 0.0, 0.0, d / bound)
    return float(np.max(r)) if r.size else 0.0


# The table's summary lines: every cell, each precision, each class of matrix.
CLASSES = (("all", lambda r: True), ("f32", lambda r: r["prec"] == "f32"),
           ("f64", lambda r: r["prec"] == "f64"), ("regular", lambda r: r["cls"] == "regular"),
           ("irregular", lambda r: r["cls"] == "irregular"))


def emit(md, record):
    """Prints the Markdown lines `md` and writes them to `record` if given."""
    text = "\n".join(md)
    print("\n" + text)
    if record:
        with open(record, "w") as f:
            f.write(text + "\n")


def geomean(v):
    v = [t for t in v if t and t > 0]
    return math.exp(sum(math.log(t) for t in v) / len(v)) if v else float("nan")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    record = sys.argv[sys.argv.index("--record") + 1] if "--record" in sys.argv else None
    lines = [json.loads(l) for l in open(os.path.join(d, "spblas.jsonl"))]
    head, cells = lines[0], lines[1:]
    runs, flush_mb = head["runs"], head["flush_mb"]
    global SINK
    SINK = cp.zeros(1, cp.float64)
    flush = cp.zeros(flush_mb << 20, cp.uint8) if flush_mb > 0 else None
    pre = preprocess_fn()
    dev = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    out = []
    matrices = []
    for c in cells:
        if c["matrix"] not in matrices:
            matrices.append(c["matrix"])
    for name in matrices:
        nrows, ncols, row_ptr, col_idx, vals, x, want, absy = load(os.path.join(d, name + ".bin"))
        lens = np.diff(row_ptr.astype(np.int64)).astype(np.float64)
        for prec, dt, eps in (("f32", np.float32, 2.0**-23), ("f64", np.float64, 2.0**-52)):
            a = cps.csr_matrix((cp.asarray(vals.astype(dt)), cp.asarray(col_idx.astype(np.int32)),
                                cp.asarray(row_ptr.astype(np.int32))), shape=(nrows, ncols))
            xd = cp.asarray(x.astype(dt))
            yd = cp.zeros(nrows, dt)
            times = {}
            for label, alg, p in (("default", 0, None), ("alg2", 3, None), ("default+pre", 0, pre)):
                if label.endswith("+pre") and pre is None:
                    continue
                try:
                    f = Spmv(a, xd, yd, alg, p)
                except Exception as e:  # noqa: BLE001 - an algorithm the library refuses
                    print(f"{name} {prec} {label}: {e}", file=sys.stderr)
                    continue
                yd.fill(cp.nan)
                fl = median_ms(f, runs, flush)
                wm = median_ms(f, runs, None)
                err = err_in_bounds(cp.asnumpy(yd), want, absy, lens, eps)
                if not err <= 1.0:
                    sys.exit(f"cuSPARSE {label} wrong on {name} {prec}: {err:.2f} times the bound")
                times[label] = (fl, wm)
                del f
            mine = {c["method"]: c for c in cells if c["matrix"] == name and c["prec"] == prec}
            kernels = {m: c for m, c in mine.items() if not m.startswith("pass_") and m != "plan"}
            plan = mine.get("plan") or mine["csr5"]
            best = min(kernels.values(), key=lambda c: c["flushed_ms"])
            cu = times["default"]
            cu_best = min(times.values(), key=lambda t: t[0])
            any_c = next(iter(mine.values()))
            out.append(dict(matrix=name, cls=any_c["class"], prec=prec, nnz=any_c["nnz"],
                            bytes=any_c["bytes"], cu=cu, cu_best=cu_best,
                            cu_best_name=min(times, key=lambda k: times[k][0]),
                            plan=plan, best=best))
            print(f"{name:<15} {prec} cuSPARSE {cu[0]:.4f}/{cu[1]:.4f} ms, spblas plan "
                  f"{plan.get('chose', plan['method'])} {plan['flushed_ms']:.4f}/{plan['warm_ms']:.4f} ms",
                  flush=True)
            del a, xd, yd
    read = {"f32": head["read_gbs"], "f64": head["read_gbs"]}
    md = [f"cuSPARSE time / spblas time on {dev} ({head['device']} through Vulkan), "
          f"median of {runs} runs, flushed (after reading {flush_mb} MB) and warm; "
          f"read bandwidth (`read_stream`, 1 GiB): {head['read_gbs']:.0f} GB/s. "
          "Above 1: spblas is faster.", "",
          "| matrix | class | prec | nnz | cuSPARSE ms | spblas plan (kernel) ms | plan / cuSPARSE | "
          "plan warm | plan % read bw | best spblas kernel | best / best cuSPARSE |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in out:
        p, b = r["plan"], r["best"]
        gbs = r["bytes"] / (p["flushed_ms"] * 1e6)
        md.append(
            f"| {r['matrix']} | {r['cls']} | {r['prec']} | {r['nnz']} | {r['cu'][0]:.4f} | "
            f"{p['flushed_ms']:.4f} ({p.get('chose', p['method'])}) | **{r['cu'][0] / p['flushed_ms']:.2f}** | "
            f"{r['cu'][1] / p['warm_ms']:.2f} | {100 * gbs / read[r['prec']]:.0f}% | "
            f"{b['method']} {b['flushed_ms']:.4f} | {r['cu_best'][0] / b['flushed_ms']:.2f} ({r['cu_best_name']}) |")
    md.append("")
    for label, sel in CLASSES:
        rs = [r for r in out if sel(r)]
        ratios = [r["cu"][0] / r["plan"]["flushed_ms"] for r in rs]
        warm = [r["cu"][1] / r["plan"]["warm_ms"] for r in rs]
        worst = min(rs, key=lambda r: r["cu"][0] / r["plan"]["flushed_ms"])
        md.append(f"- {label}: plan / cuSPARSE geomean **{geomean(ratios):.2f}** flushed, "
                  f"{geomean(warm):.2f} warm; worst {worst['matrix']} {worst['prec']} "
                  f"{worst['cu'][0] / worst['plan']['flushed_ms']:.2f}")
    emit(md, record)


if __name__ == "__main__":
    main()
