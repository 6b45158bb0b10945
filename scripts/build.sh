#!/usr/bin/env bash
# Installs dependencies (if missing) and builds kiln into build/ with CMake and
# Ninja. Extra arguments go to the CMake configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
ninja -C build
