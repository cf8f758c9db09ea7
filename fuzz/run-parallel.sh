#!/usr/bin/env bash
# Runs every fuzz target at the same time, each in libFuzzer's fork mode with several
# worker processes, for a bounded time: long runs on a many-core machine.
#
#   fuzz/run-parallel.sh [SECONDS] [LOG_DIR]
#
# SECONDS (default 600) for all targets together; LOG_DIR (default fuzz/logs, git-ignored)
# receives one log per target. Workers: the machine's cores shared among the targets, the
# slow ones (isa_equivalence, spgemm, threads, mtx_stream) getting twice the share;
# WORKERS=N gives every target N. Corpora, seeds and regressions as in run-all.sh; a crash
# leaves its input in fuzz/artifacts/<target>/ and makes the script exit non-zero after
# all targets have finished. FUZZ_BUILD_FLAGS as in run-all.sh (default `-O -a`);
# `-O -a -s none` (no AddressSanitizer) runs about twice as many inputs.
#
# FUZZ_BIN=DIR runs the prebuilt target binaries in DIR instead (every executable there,
# or TARGETS="a b"): no cargo, no Rust, no network, for a machine that has none. The
# script then still runs from the folder above its own: a copy of it at X/fuzz/ with the
# binaries in X/fuzz/bin and the corpora in X/fuzz/min, X/fuzz/seeds, X/fuzz/regressions
# (fuzz/README.md, "Prebuilt binaries") writes X/fuzz/corpus, logs and artifacts.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-600}"
logs="${2:-fuzz/logs}"
flags="${FUZZ_BUILD_FLAGS:--O -a}"
mkdir -p "$logs"
if [ -n "${FUZZ_BIN:-}" ]; then
  bin="$FUZZ_BIN"
  targets="${TARGETS:-$(find "$bin" -maxdepth 1 -type f -perm -u+x -printf '%f\n' | sort)}"
else
  # shellcheck disable=SC2086
  cargo +nightly fuzz build $flags
  host="$(rustc -vV | sed -n 's/^host: //p')"
  bin="fuzz/target/$host/release"
  targets="${TARGETS:-$(cargo +nightly fuzz list)}"
fi
[ -n "$targets" ] || { echo "no fuzz targets in ${bin}" >&2; exit 1; }
n=$(echo "$targets" | wc -w)
share=$(( $(nproc) / (n + 4) ))
[ "$share" -ge 1 ] || share=1
mkdir -p fuzz/artifacts  # (find on a missing folder would end the script: pipefail)
before=$(find fuzz/artifacts -type f | wc -l)
for t in $targets; do
  w="${WORKERS:-$share}"
  case "$t" in isa_equivalence|spgemm|threads|mtx_stream) [ -n "${WORKERS:-}" ] || w=$((2 * share)) ;; esac
  mkdir -p "fuzz/corpus/$t" "fuzz/min/$t" "fuzz/seeds/$t" "fuzz/regressions/$t" "fuzz/artifacts/$t"
  "$bin/$t" -fork="$w" -max_total_time="$secs" -artifact_prefix="fuzz/artifacts/$t/" \
    "fuzz/corpus/$t" "fuzz/min/$t" "fuzz/seeds/$t" "fuzz/regressions/$t" >"$logs/$t.log" 2>&1 &
done
wait || true
total=0
for t in $targets; do
  runs=$(grep -aoE '^#[0-9]+' "$logs/$t.log" | tail -1 | tr -d '#')
  total=$((total + ${runs:-0}))
  echo "$t: ${runs:-0} inputs in ${secs}s ($(grep -ac 'crash-' "$logs/$t.log" || true) crash lines)"
done
echo "all targets: $total inputs"
after=$(find fuzz/artifacts -type f | wc -l)
if [ "$after" -gt "$before" ]; then
  echo "new crash inputs in fuzz/artifacts/" >&2
  exit 1
fi
