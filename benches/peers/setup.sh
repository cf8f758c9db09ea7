#!/usr/bin/env bash
# Sets up the peer harness in a work folder (default: $HOME/.cache/spblas-peers): a Python venv
# with SciPy, MKL (sparse_dot_mkl + mkl), python-graphblas; the generated matrix suite (and its
# cached .npz/.csr forms); STREAM; and the Rust bench (sprs, nalgebra-sparse, faer, spblas).
#   SPBLAS_PATH=<spblas checkout> benches/peers/setup.sh [WORK] [--small]
# Run it from anywhere; the spblas side is rebuilt against SPBLAS_PATH each time.
set -euo pipefail
: "${SPBLAS_PATH:?set SPBLAS_PATH to the spblas checkout (e.g. SPBLAS_PATH=\$PWD from its root)}"
here=$(cd "$(dirname "$0")" && pwd)
work=${1:-$HOME/.cache/spblas-peers}; small=${2:-}
mkdir -p "$work/logs" "$work/results"
cp "$here"/*.py "$here"/run_pass.sh "$here"/stream.c "$work/"
cd "$work"
[ -x venv/bin/python ] || python3 -m venv venv
venv/bin/pip install -q numpy scipy sparse_dot_mkl mkl python-graphblas psutil
mdir=matrices; [ "$small" = --small ] && mdir=matrices-small
[ -f $mdir/manifest.json ] || venv/bin/python gen_matrices.py ${small:+--small} --out $mdir
[ -f cache/manifest.done ] || { venv/bin/python convert.py $mdir cache && touch cache/manifest.done; }
mkdir -p stream && gcc -O3 -march=native -fopenmp stream.c -o stream/stream
CARGO_TARGET_DIR="$work/target" "$here/rustbench/build.sh" "$work/rustbench"
echo "ready: $work (run benches/peers/run.sh $work)"
