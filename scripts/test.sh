#!/usr/bin/env bash
# Builds enc5 and runs every test. With --sanitize, runs the suite under ASan + UBSan instead.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=release
if [ "${1:-}" = "--sanitize" ]; then preset=sanitize; fi
bash scripts/build.sh "$preset"
ctest --preset "$preset" -j"$(nproc)"
