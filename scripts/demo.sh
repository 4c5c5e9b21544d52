#!/usr/bin/env bash
# Builds enc5 and runs its main job: the layer on the embedded demo frame.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh release
exec build/release/enc5 run "$@"
