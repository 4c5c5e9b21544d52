#!/usr/bin/env bash
# Configures and builds one CMake preset (default: release). Usage: scripts/build.sh [PRESET [TARGET...]]
# (no target: everything the preset builds; scripts/demo.sh builds the target rrswin alone).
# Says what it is doing, step by step; ninja's progress is shown as it comes (on a terminal one
# line that updates: "[N/M] Building ...").
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
shift || true
targets=()
for t in "$@"; do targets+=(--target "$t"); done
echo "rrswin: checking the Debian packages the build needs (scripts/deps.sh)" >&2
bash scripts/deps.sh
echo "rrswin: configuring (cmake --preset $preset, into build/$preset)" >&2
cmake --preset "$preset" >/dev/null
echo "rrswin: building ${*:-everything} (cmake --build --preset $preset; the first build takes minutes on 2 cores, later ones seconds)" >&2
cmake --build --preset "$preset" "${targets[@]}" -- -j"$(nproc)"
echo "rrswin: build done: build/$preset" >&2
