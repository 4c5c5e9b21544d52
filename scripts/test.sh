#!/usr/bin/env bash
# Builds enc5 and runs every test: the C++ suite and the Python module's pytest suite (both through
# CTest). With --sanitize, runs the C++ suite under AddressSanitizer + UBSan instead (the Python
# module is not built there: an ASan-built extension cannot load into a normal interpreter).
set -euo pipefail
cd "$(dirname "$0")/.."
# With --tsan, builds the threaded tests under ThreadSanitizer (preset tsan) and runs those only.
preset=release
if [ "${1:-}" = "--sanitize" ]; then preset=sanitize; fi
if [ "${1:-}" = "--tsan" ]; then preset=tsan; fi
# CI (CI=true): warnings in enc5's own code are errors in the release build (measured warning-free;
# the sanitizer builds are not yet: docs/testing.md).
werror=()
if [ "${CI:-}" = true ] && [ "$preset" = release ]; then werror=(-DENC5_WERROR=ON); fi
if [ "$preset" = release ]; then
  bash scripts/deps.sh
  bash scripts/python-deps.sh
  cmake --preset release -DENC5_BUILD_PYTHON=ON "${werror[@]}" >/dev/null
fi
bash scripts/build.sh "$preset"
ctest --preset "$preset" -j"$(nproc)"
