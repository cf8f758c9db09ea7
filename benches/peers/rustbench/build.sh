#!/bin/bash
# Builds rustbench (sprs, nalgebra-sparse, faer, spblas, plain row loop) into OUT_DIR (default ./build
# next to this script). The spblas checkout comes from the environment, so no path is stored here:
#   SPBLAS_PATH=<spblas checkout> benches/peers/rustbench/build.sh [OUT_DIR]
# The binary is OUT_DIR/target/release/rustbench (CARGO_TARGET_DIR overrides).
set -e
: "${SPBLAS_PATH:?set SPBLAS_PATH to the spblas checkout}"
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/build}
mkdir -p "$out/src"
sed "s|@SPBLAS_PATH@|$(cd "$SPBLAS_PATH" && pwd)|" "$here/Cargo.toml.in" > "$out/Cargo.toml"
cp "$here/src/main.rs" "$out/src/main.rs"
[ -f "$out/Cargo.lock" ] || cp "$here/Cargo.lock" "$out/Cargo.lock"
cd "$out" && RUSTFLAGS="${RUSTFLAGS:--C target-cpu=native}" cargo build --release
