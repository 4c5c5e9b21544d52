#!/usr/bin/env bash
# Installs the Debian packages enc5 needs, only those that are missing (silent when all are there).
set -euo pipefail
need=(g++ cmake ninja-build libgtest-dev libbenchmark-dev openexr libopenexr-dev)
missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "enc5: installing missing Debian packages: ${missing[*]}" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
