#!/usr/bin/env bash
# Builds rrswin and runs its main job: the layer on the embedded demo frame.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh release rrswin  # the tool alone: the tests are scripts/test.sh's
echo "rrswin: running the layer on the embedded demo frame: build/release/rrswin run $*" >&2
exec build/release/rrswin run "$@"
