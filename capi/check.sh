#!/usr/bin/env bash
# The C library end to end: builds libspblas.{a,so} (`--profile capi`), checks that the
# committed header is current, compiles examples/c/main.c as plain C99 against the static
# and the shared library and runs both, runs the ctypes smoke test of the shared library,
# then builds the library without `std` and runs the example against it too. Needs a C
# compiler (`cc`) and python3. Run from anywhere; part of .ci/test.
set -euo pipefail
cd "$(dirname "$0")/.."
CFLAGS="-std=c99 -O2 -Wall -Wextra -Werror -pedantic -ffunction-sections -fdata-sections -Icapi/include"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

cargo test -p spblas-capi
cargo build -p spblas-capi --profile capi
lib=target/capi

cc $CFLAGS examples/c/main.c "$lib/libspblas.a" -Wl,--gc-sections -lpthread -ldl -lm -o "$out/static"
"$out/static"
cc $CFLAGS examples/c/main.c -L"$lib" -lspblas -Wl,-rpath,"$PWD/$lib" -lm -o "$out/shared"
"$out/shared"
python3 capi/tests/ctypes_smoke.py "$lib/libspblas.so"

cargo build -p spblas-capi --profile capi --no-default-features --target-dir target/capi-no-std
cc $CFLAGS -DSPBLAS_NO_PLAN examples/c/main.c target/capi-no-std/capi/libspblas.a -Wl,--gc-sections -lm \
  -o "$out/no_std"
"$out/no_std"

strip "$out/static" "$out/no_std"
echo "C example, static, --gc-sections, stripped: $(stat -c %s "$out/static") bytes (std), $(stat -c %s "$out/no_std") bytes (no std)"
