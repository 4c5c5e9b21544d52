#!/usr/bin/env bash
# Builds rrswin and runs its main job: the network (all eleven layers, enc0 .. enc5, dec4 .. dec0) on
# the embedded demo frame at a 256 x 128 render, with previews: out/<layer>/, out/summary.txt and the
# overview out/network.png. Arguments are rrswin run's and come after these defaults, so they win:
# bash scripts/demo.sh -o x --render 512,256; bash scripts/demo.sh --layer enc5 (enc5 alone).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh release rrswin  # the tool alone: the tests are scripts/test.sh's
echo "rrswin: running the network on the embedded demo frame: build/release/rrswin run -o out --preview $*" >&2
exec build/release/rrswin run -o out --preview "$@"
