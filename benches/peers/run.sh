#!/usr/bin/env bash
# Runs the peers side by side (one process per library × thread count × matrix, the Rust
# libraries together in one process, passes in alternating library order, each process gated
# on a quiet machine by the load monitor), then prints the tables and writes cells.json.
#   benches/peers/run.sh [WORK] [PASSES] [MATRICES...]   (defaults: $HOME/.cache/spblas-peers, 2, the suite)
set -euo pipefail
work=${1:-$HOME/.cache/spblas-peers}; passes=${2:-2}; shift $(( $# > 2 ? 2 : $# )) || true
cd "$work"
SPMV=${*:-"fem3d_27pt poisson2d_5pt banded_21 diagonal dense_2000 rmat_s20_ef16 rmat_s14_ef16 web_like dc2_like lp_wide circuit_like empty_rows_90pct edge_one_dense_row edge_row_vector edge_col_vector"}
SPGEMM=${*:-"fem3d_27pt poisson2d_5pt banded_21 diagonal rmat_s14_ef16 web_like dc2_like lp_wide circuit_like empty_rows_90pct edge_one_dense_row edge_row_vector"}
export RUSTBENCH="$work/target/release/rustbench" GATE_MAX=${GATE_MAX:-60}
venv/bin/python monitor.py $$ logs/monitor.jsonl & mon=$!
./run_pass.sh before stream
for p in $(seq 1 "$passes"); do ./run_pass.sh $p spmv $SPMV; ./run_pass.sh $p spgemm $SPGEMM; done
./run_pass.sh after stream
kill $mon 2>/dev/null || true
venv/bin/python analyze2.py results logs/monitor.jsonl
