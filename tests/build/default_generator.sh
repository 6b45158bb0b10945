#!/usr/bin/env bash
# Configures kiln with CMake's default generator (Unix Makefiles, not
# Ninja) and builds the generated MLIR sources, the step that once failed
# there because Makefiles do not create output directories:
#   default_generator.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src=$1
work=$2/default-generator
rm -rf "$work"
cmake -S "$src" -B "$work" -DCMAKE_BUILD_TYPE=Release >"$work.log" 2>&1 ||
  { cat "$work.log"; exit 1; }
cmake --build "$work" --target KilnIRIncGen KilnPassesIncGen -j2
test -s "$work/compiler/include/kiln/Dialect/Kiln/IR/KilnOps.h.inc"
test -s "$work/compiler/include/kiln/Dialect/Kiln/Transforms/Passes.h.inc"
rm -rf "$work" "$work.log"
echo "default generator: configured and generated the dialect's sources"
