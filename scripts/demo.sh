#!/usr/bin/env bash
# Builds enc5 and runs its main job: the layer on the embedded demo frame.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh release
echo "enc5: running the layer on the embedded demo frame: build/release/enc5 run $*" >&2
exec build/release/enc5 run "$@"
