#!/usr/bin/env bash
# Builds enc5 and runs every test: the C++ suite and the Python module's pytest suite (both through
# CTest). With --sanitize, runs the C++ suite under AddressSanitizer + UBSan instead (the Python
# module is not built there: an ASan-built extension cannot load into a normal interpreter).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=release
if [ "${1:-}" = "--sanitize" ]; then preset=sanitize; fi
if [ "$preset" = release ]; then
  bash scripts/deps.sh
  bash scripts/python-deps.sh
  cmake --preset release -DENC5_BUILD_PYTHON=ON >/dev/null
fi
bash scripts/build.sh "$preset"
ctest --preset "$preset" -j"$(nproc)"
