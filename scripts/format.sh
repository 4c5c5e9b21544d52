#!/usr/bin/env bash
# Formats rrswin's C++ with .clang-format, using clang-format 14 (Debian's clang-format-14: the
# version whose output the tree is kept in; another version formats some constructs differently).
#   bash scripts/format.sh           rewrite every file in place
#   bash scripts/format.sh --check   change nothing; list the files that differ and exit 1 (for CI)
# The files: every .cpp/.hpp/.cc/.h/.cu/.cuh tracked by git under src/, tests/, bench/, fuzz/,
# python/src/ (not tests/tier_check/'s fixtures, whose line numbers a test names).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=apply
case "${1:-}" in
  --check) mode=check ;;
  "") ;;
  *) echo "usage: bash scripts/format.sh [--check]" >&2; exit 2 ;;
esac
cf=""
for c in clang-format-14 clang-format; do
  if command -v "$c" >/dev/null && "$c" --version | grep -q 'version 14\.'; then cf="$c"; break; fi
done
if [ -z "$cf" ]; then
  # A fresh machine has only its base image: install Debian's clang-format-14 (as scripts/deps.sh
  # installs the build's packages).
  echo "rrswin: clang-format 14 not found: installing Debian's clang-format-14" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends clang-format-14 >&2 ||
    { echo "rrswin: could not install clang-format-14 (apt-get install clang-format-14)" >&2; exit 2; }
  cf=clang-format-14
fi
mapfile -t files < <(git ls-files -- 'src/*' 'tests/*' 'bench/*' 'fuzz/*' 'python/src/*' |
  grep -E '\.(cpp|hpp|cc|h|cu|cuh)$' | grep -v '^tests/tier_check/')
if [ "$mode" = apply ]; then
  "$cf" -i --style=file "${files[@]}"
  echo "rrswin: formatted ${#files[@]} files with $cf" >&2
  exit 0
fi
bad=()
for f in "${files[@]}"; do
  "$cf" --style=file "$f" | cmp -s - "$f" || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
  printf 'rrswin: not formatted (bash scripts/format.sh fixes them):\n' >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "rrswin: all ${#files[@]} files formatted ($cf)" >&2
