#!/usr/bin/env bash
# Installs what the fuzz targets and the sanitized unit tests need on Debian
# bookworm, idempotently: clang 19 (libFuzzer, ASan and UBSan come with
# libclang-rt-19-dev). Everything else is scripts/install-deps.sh's.
set -euo pipefail
source "$(dirname "$0")/lib-packages.sh"
ensure_packages clang-19 libclang-rt-19-dev
echo "kiln: fuzzing dependencies present"
