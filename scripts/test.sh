#!/usr/bin/env bash
# Builds rrswin and runs every test: the C++ suite and the Python module's pytest suite (both through
# CTest). With --sanitize, runs the C++ suite under AddressSanitizer + UBSan instead (the Python
# module is not built there: an ASan-built extension cannot load into a normal interpreter).
set -euo pipefail
cd "$(dirname "$0")/.."
# With --tsan, builds the threaded tests under ThreadSanitizer (preset tsan) and runs those only.
preset=release
if [ "${1:-}" = "--sanitize" ]; then preset=sanitize; fi
if [ "${1:-}" = "--tsan" ]; then preset=tsan; fi
# CI (CI=true): warnings in rrswin's own code are errors in the release build; the sanitize, tsan and
# fuzz presets set RRSWIN_WERROR themselves (CMakePresets.json; docs/testing.md).
werror=()
if [ "${CI:-}" = true ] && [ "$preset" = release ]; then werror=(-DRRSWIN_WERROR=ON); fi
# The C++ suite needs no Python: when the Python test packages cannot be installed (no network,
# an interpreter that refuses pip), the module and its pytest suite are left out, the C++ suite
# runs anyway, and the Python part is reported skipped with the reason: a failure under CI=true.
python_skipped=""
if [ "$preset" = release ]; then
  bash scripts/deps.sh
  python=ON
  if ! deps_log="$(bash scripts/python-deps.sh 2>&1)"; then
    python=OFF
    python_skipped="scripts/python-deps.sh failed: $(printf '%s\n' "$deps_log" | tail -n 3 | tr '\n' ' ')"
    echo "rrswin: the Python module and its tests are SKIPPED ($python_skipped); running the C++ suite" >&2
  fi
  cmake --preset release -DRRSWIN_BUILD_PYTHON="$python" "${werror[@]}" >/dev/null
fi
bash scripts/build.sh "$preset"
ctest --preset "$preset" -j"$(nproc)"
if [ -n "$python_skipped" ]; then
  echo "rrswin: C++ suite passed; Python part SKIPPED: $python_skipped" >&2
  if [ "${CI:-}" = true ]; then
    echo "rrswin: CI=true: a skipped Python suite is a failure" >&2
    exit 1
  fi
fi
