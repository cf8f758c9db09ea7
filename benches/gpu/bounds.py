#!/usr/bin/env python3
"""Measured lower bounds for SpMV on each matrix: how fast can any kernel go?

    python3 benches/gpu/bounds.py DIR [--record FILE] [--only NAME,NAME]

DIR is what `examples/gpu.rs --export DIR` wrote (`NAME.bin`, `spblas.jsonl`). Every
SpMV reads each entry's value and column index once and gathers `x` at each column;
these probes do exactly that and nothing else (no row bookkeeping, no `y`), coalesced,
four independent entries per thread per round, at their best grid:

- `stream`: `vals` and `col_idx` alone (the matrix's bytes, no gather);
- `gather`: `vals[i] * x[col_idx[i]]` over the entries in CSR order;
- `gather_csr5`: the same on the entries in the CSR5 storage order the spblas kernel
  reads (OMEGA = 32, the plan's `sigma`: complete tiles transposed, the tail as is).

Each is timed as `cusparse.py` times cuSPARSE (median of the runs, each after reading
the flush buffer, CUDA events, a spin kernel hiding the launch), beside cuSPARSE's
default algorithm in the same run; spblas's plan time comes from `spblas.jsonl`. The
table says how far cuSPARSE and spblas are above the probe, and whether 1.3x faster
than cuSPARSE is within the probe's reach. Written to FILE as Markdown with --record.
"""
import json
import os
import sys

import numpy as np
import cupy as cp
import cupyx.scipy.sparse as cps

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cusparse as cu  # noqa: E402 - the sibling script's loader, timer and SpMV

OMEGA = 32
THREADS = 256
BLOCKS_PER_SM = (2, 4, 8, 16, 32)
SRC = r"""
// Grid-strided over the n entries: a warp reads 32 consecutive entries; each round a
// thread reads four (i, i + stride, i + 2 stride, i + 3 stride), loads issued together.
// The guarded store keeps the loads and is never taken for real data.
template <typename V>
__global__ void stream(const V* __restrict__ vals, const int* __restrict__ col,
                       const V* __restrict__ x, long long n, V* out) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    V s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (; i + 3 * stride < n; i += 4 * stride) {
        V v0 = vals[i], v1 = vals[i + stride], v2 = vals[i + 2 * stride], v3 = vals[i + 3 * stride];
        int c0 = col[i], c1 = col[i + stride], c2 = col[i + 2 * stride], c3 = col[i + 3 * stride];
        s0 += v0 + (V)c0; s1 += v1 + (V)c1; s2 += v2 + (V)c2; s3 += v3 + (V)c3;
    }
    for (; i < n; i += stride) s0 += vals[i] + (V)col[i];
    V s = (s0 + s1) + (s2 + s3);
    if (s == (V)-1.2345e30) out[0] = s;
}

template <typename V>
__global__ void gather(const V* __restrict__ vals, const int* __restrict__ col,
                       const V* __restrict__ x, long long n, V* out) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    V s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (; i + 3 * stride < n; i += 4 * stride) {
        V v0 = vals[i], v1 = vals[i + stride], v2 = vals[i + 2 * stride], v3 = vals[i + 3 * stride];
        int c0 = col[i], c1 = col[i + stride], c2 = col[i + 2 * stride], c3 = col[i + 3 * stride];
        V x0 = x[c0], x1 = x[c1], x2 = x[c2], x3 = x[c3];
        s0 += v0 * x0; s1 += v1 * x1; s2 += v2 * x2; s3 += v3 * x3;
    }
    for (; i < n; i += stride) s0 += vals[i] * x[col[i]];
    V s = (s0 + s1) + (s2 + s3);
    if (s == (V)-1.2345e30) out[0] = s;
}
"""
NAMES = [f"{k}<{t}>" for k in ("stream", "gather") for t in ("float", "double")]
MODULE = cp.RawModule(code=SRC, name_expressions=NAMES)


def csr5_order(nnz, sigma):
    """perm[p] = the CSR entry at CSR5 storage position p: in each complete tile of
    L = OMEGA * sigma entries, position t*L + j*OMEGA + i holds entry t*L + i*sigma + j."""
    tile = OMEGA * sigma
    nt = nnz // tile
    perm = np.arange(nnz, dtype=np.int64)
    perm[:nt * tile] = perm[:nt * tile].reshape(nt, OMEGA, sigma).transpose(0, 2, 1).reshape(-1)
    return perm


def probe_ms(kern, args, runs, flush, sms):
    """(flushed median ms, blocks) of the kernel at its best grid."""
    best = None
    for k in BLOCKS_PER_SM:
        blocks = sms * k
        ms = cu.median_ms(lambda b=blocks: kern((b,), (THREADS,), args), runs, flush)
        if best is None or ms < best[0]:
            best = (ms, blocks)
    return best


def main():
    args = sys.argv[1:]

    def opt(flag):
        if flag not in args or args.index(flag) + 1 >= len(args):
            return None
        i = args.index(flag)
        v = args[i + 1]
        del args[i:i + 2]
        return v

    record, only = opt("--record"), opt("--only")
    if len(args) != 1:
        sys.exit(__doc__)
    d = args[0]
    lines = [json.loads(ln) for ln in open(os.path.join(d, "spblas.jsonl"))]
    head, cells = lines[0], lines[1:]
    runs, flush_mb, read_gbs = head["runs"], head["flush_mb"], head["read_gbs"]
    cu.SINK = cp.zeros(1, cp.float64)
    flush = cp.zeros(flush_mb << 20, cp.uint8) if flush_mb > 0 else None
    props = cp.cuda.runtime.getDeviceProperties(0)
    dev, sms = props["name"].decode(), props["multiProcessorCount"]
    matrices = []
    for c in cells:
        if c["matrix"] not in matrices:
            matrices.append(c["matrix"])
    if only:
        want = only.split(",")
        missing = [n for n in want if n not in matrices]
        if missing:
            print(f"not in spblas.jsonl: {', '.join(missing)}", file=sys.stderr)
        matrices = [n for n in matrices if n in want]
    out = []
    for name in matrices:
        nrows, ncols, row_ptr, col_idx, vals, x, _, _ = cu.load(os.path.join(d, name + ".bin"))
        nnz = len(vals)
        for prec, dt, ctype in (("f32", np.float32, "float"), ("f64", np.float64, "double")):
            mine = {c["method"]: c for c in cells if c["matrix"] == name and c["prec"] == prec}
            if not mine:
                continue
            plan = mine.get("plan") or mine["csr5"]
            cell = next(iter(mine.values()))
            sigma = cell["sigma"]
            v_h, c_h = vals.astype(dt), col_idx.astype(np.int32)
            vd, cd, xd = cp.asarray(v_h), cp.asarray(c_h), cp.asarray(x.astype(dt))
            sink = cp.zeros(1, dt)
            n = np.int64(nnz)
            t = {}
            t["stream"] = probe_ms(MODULE.get_function(f"stream<{ctype}>"), (vd, cd, xd, n, sink),
                                   runs, flush, sms)
            g = MODULE.get_function(f"gather<{ctype}>")
            t["gather"] = probe_ms(g, (vd, cd, xd, n, sink), runs, flush, sms)
            perm = csr5_order(nnz, sigma)
            vals_p, cols_p = cp.asarray(v_h[perm]), cp.asarray(c_h[perm])
            del perm
            t["gather_csr5"] = probe_ms(g, (vals_p, cols_p, xd, n, sink), runs, flush, sms)
            del vals_p, cols_p, v_h, c_h
            a = cps.csr_matrix((vd, cd, cp.asarray(row_ptr.astype(np.int32))), shape=(nrows, ncols))
            yd = cp.zeros(nrows, dt)
            f = cu.Spmv(a, xd, yd, 0, None)
            cu_ms = cu.median_ms(f, runs, flush)
            del f, a, yd, vd, cd, xd, sink
            floor = min(t["gather"][0], t["gather_csr5"][0])
            r = dict(matrix=name, cls=cell["class"], prec=prec, nnz=cell["nnz"], bytes=cell["bytes"],
                     stream=t["stream"][0], gather=t["gather"][0], gather_csr5=t["gather_csr5"][0],
                     cu=cu_ms, plan=plan["flushed_ms"], chose=plan.get("chose", plan["method"]),
                     pct=100 * cell["bytes"] / (t["gather"][0] * 1e6) / read_gbs,
                     cu_gather=cu_ms / t["gather"][0], plan_gather=plan["flushed_ms"] / floor,
                     reach=cu_ms / 1.3 >= floor)
            out.append(r)
            grids = " ".join(f"{k}@{t[k][1]}" for k in t)
            print(f"{name:<15} {prec} sigma {sigma:>2} stream {r['stream']:.4f} gather {r['gather']:.4f} "
                  f"csr5 {r['gather_csr5']:.4f} cuSPARSE {cu_ms:.4f} plan {r['plan']:.4f} ({r['chose']}) ms; "
                  f"gather {r['pct']:.0f}% read bw, cu/gather {r['cu_gather']:.2f}, "
                  f"plan/gather {r['plan_gather']:.2f}, 1.3x {'yes' if r['reach'] else 'no'} "
                  f"(blocks {grids})", flush=True)
        del row_ptr, col_idx, vals, x
        cp.get_default_memory_pool().free_all_blocks()
    md = [f"Measured SpMV lower bounds on {dev}, median of {runs} runs, each after reading "
          f"{flush_mb} MB (flushed); read bandwidth (`read_stream`): {read_gbs:.0f} GB/s. "
          "`stream` reads `vals` and `col_idx` alone; `gather` also gathers `x` at each column "
          f"(CSR order); `gather_csr5` the same in the CSR5 storage order (OMEGA {OMEGA}, the "
          f"plan's `sigma`); each at its best grid (SMs x {BLOCKS_PER_SM}, {THREADS} threads). "
          "cuSPARSE (`CUSPARSE_SPMV_ALG_DEFAULT`) ran in the same process; spblas's plan time "
          "is from `spblas.jsonl`. Floor = min(gather, gather_csr5); 1.3x reachable: cuSPARSE "
          "/ 1.3 >= floor.", "",
          "| matrix | class | prec | nnz | bytes | stream ms | gather ms | gather_csr5 ms | "
          "cuSPARSE ms | spblas plan ms (kernel) | gather % read bw | cuSPARSE / gather | "
          "spblas / gather (floor) | 1.3x cuSPARSE reachable? |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in out:
        md.append(f"| {r['matrix']} | {r['cls']} | {r['prec']} | {r['nnz']} | {r['bytes']} | "
                  f"{r['stream']:.4f} | {r['gather']:.4f} | {r['gather_csr5']:.4f} | {r['cu']:.4f} | "
                  f"{r['plan']:.4f} ({r['chose']}) | {r['pct']:.0f}% | {r['cu_gather']:.2f} | "
                  f"{r['plan_gather']:.2f} | {'yes' if r['reach'] else 'no'} |")
    md.append("")
    for label, sel in cu.CLASSES:
        rs = [r for r in out if sel(r)]
        if not rs:
            continue
        md.append(f"- {label}: cuSPARSE / gather geomean {cu.geomean([r['cu_gather'] for r in rs]):.2f}, "
                  f"spblas / floor {cu.geomean([r['plan_gather'] for r in rs]):.2f}; "
                  f"1.3x reachable on {sum(r['reach'] for r in rs)} of {len(rs)}")
    cu.emit(md, record)


if __name__ == "__main__":
    main()
