#!/usr/bin/env bash
# Installs the Debian packages rrswin needs, only those that are missing (silent when all are there).
set -euo pipefail
need=(g++ cmake ninja-build libgtest-dev libbenchmark-dev openexr libopenexr-dev libopenblas-dev libmpfr-dev)
missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "rrswin: installing missing Debian packages: ${missing[*]}" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "rrswin: apt-get update" >&2
  $sudo apt-get update
  echo "rrswin: apt-get install ${missing[*]}" >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi
