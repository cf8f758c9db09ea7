#!/usr/bin/env bash
# Runs every fuzz target for a bounded time, one after another; fails on the first crash.
#
#   fuzz/run-all.sh [SECONDS] [LOG_DIR]
#
# SECONDS per target (default 30). LOG_DIR (default fuzz/logs, git-ignored) receives one
# libFuzzer log per target. Each target reads the committed minimized corpus
# (fuzz/min/<target>), seeds (fuzz/seeds/<target>) and regressions, and its working corpus
# (fuzz/corpus/<target>, git-ignored), and adds new inputs to the latter. A crash leaves its input in fuzz/artifacts/<target>/ and stops the script with
# a non-zero status. Extra cargo-fuzz build flags can be given in FUZZ_BUILD_FLAGS
# (default: `-O -a`, release with debug assertions, AddressSanitizer). KEEP_GOING=1 runs
# the remaining targets after a crash (for long unattended runs) and fails at the end.
# TARGETS="a b" runs only those targets.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-30}"
logs="${2:-fuzz/logs}"
flags="${FUZZ_BUILD_FLAGS:--O -a}"
mkdir -p "$logs"
failed=""
targets="${TARGETS:-$(cargo +nightly fuzz list)}"
# shellcheck disable=SC2086
cargo +nightly fuzz build $flags
for t in $targets; do
  mkdir -p "fuzz/corpus/$t" "fuzz/min/$t" "fuzz/regressions/$t"
  echo "--- $t: ${secs}s (log: $logs/$t.log)"
  # shellcheck disable=SC2086
  if ! cargo +nightly fuzz run $flags "$t" "fuzz/corpus/$t" "fuzz/min/$t" "fuzz/seeds/$t" "fuzz/regressions/$t" -- \
      -max_total_time="$secs" -print_final_stats=1 >"$logs/$t.log" 2>&1; then
    echo "!!! $t failed; the end of its log:" >&2
    tail -n 60 "$logs/$t.log" >&2
    failed="$failed $t"
    [ "${KEEP_GOING:-0}" = 1 ] || exit 1
  fi
  grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb)|#[0-9]+ *DONE' "$logs/$t.log" || true
done
if [ -n "$failed" ]; then
  echo "crashed:$failed" >&2
  exit 1
fi
echo "all targets ran clean"
