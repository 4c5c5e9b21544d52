#!/usr/bin/env bash
# Times a kernel translation unit of the working tree (B) against the same file at a git
# revision (A, default HEAD) in ONE process (bench/kernel_ab/kernel_ab.cpp): the two builds run
# alternately on the GEMM benchmark's operands, their output bytes compared every round. Two
# binaries run one after the other compare badly on the development machines, whose speed drifts
# by 30-40 % within minutes (docs/performance.md).
#
# Usage: scripts/kernel-ab.sh [--rev REV] [--tu FILE] [-- KERNEL_AB_OPTIONS]
#   FILE: src/engine/kernels_avx2.cpp (default), kernels_avx512.cpp, kernels_avx512vnni.cpp or
#         kernels_scalar.cpp; A is compiled against REV's whole src/ tree, B against the working
#         tree's, each with the release build's flags for that file.
#   KERNEL_AB_OPTIONS: --profile NAME (default ada), --shape KxN (repeatable), --rounds N; --simd
#         defaults to the file's path.
#   --self-check: A and B both the working tree's file, 3 rounds (CI: the tool still builds and
#         finds equal bytes).
# Needs the release build (scripts/build.sh release) for the libraries and compile_commands.json.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=HEAD
tu=src/engine/kernels_avx2.cpp
self_check=false
while [ $# -gt 0 ]; do
  case "$1" in
    --rev) rev="${2:?--rev needs a revision}"; shift 2 ;;
    --tu) tu="${2:?--tu needs a file}"; shift 2 ;;
    --self-check) self_check=true; shift ;;
    --) shift; break ;;
    *) echo "kernel-ab: unknown option $1 (see the header of scripts/kernel-ab.sh)" >&2; exit 2 ;;
  esac
done
# The self-check needs a path this CPU runs: the scalar kernels where it has no AVX2.
if $self_check && ! grep -qw avx2 /proc/cpuinfo; then tu=src/engine/kernels_scalar.cpp; fi
case "$(basename "$tu")" in
  kernels_avx2.cpp) entry=kernels_avx2; simd=avx2 ;;
  kernels_avx512.cpp) entry=kernels_avx512; simd=avx512 ;;
  kernels_avx512vnni.cpp) entry=kernels_avx512vnni; simd=avx512vnni ;;
  kernels_scalar.cpp) entry=kernels_scalar; simd=scalar ;;
  *) echo "kernel-ab: $tu is not one of the kernel translation units (kernels_{scalar,avx2,avx512,avx512vnni}.cpp)" >&2; exit 2 ;;
esac
tu="src/engine/$(basename "$tu")"
build=build/release
if [ ! -f "$build/compile_commands.json" ] || [ ! -f "$build/librrswin_engine.a" ]; then
  echo "kernel-ab: no release build in $build; building it (scripts/build.sh release)" >&2
  bash scripts/build.sh release
fi
cxx_flags() {  # the release build's command line for $tu, without its -o / -c / source / include
  python3 - "$build/compile_commands.json" "$PWD/$tu" <<'EOF'
import json, shlex, sys
for e in json.load(open(sys.argv[1])):
    if e["file"] == sys.argv[2]:
        args = shlex.split(e["command"])[1:]
        out, skip = [], False
        for a in args:
            if skip: skip = False; continue
            if a in ("-o", "-c"): skip = True; continue
            if a.startswith("-I") or a == sys.argv[2]: continue
            out.append(a)
        print(" ".join(shlex.quote(a) for a in out))
        sys.exit(0)
sys.exit("kernel-ab: " + sys.argv[2] + " is not in " + sys.argv[1])
EOF
}
flags="$(cxx_flags)"
cxx="$(python3 -c 'import json,shlex,sys; print(shlex.split(json.load(open(sys.argv[1]))[0]["command"])[0])' "$build/compile_commands.json")"
out=build/kernel-ab
rm -rf "$out"
mkdir -p "$out/a"
if $self_check; then
  cp -r src "$out/a/"
  set -- --rounds 3 --shape 32x96 --shape 160x32
else
  git archive "$rev" src | tar -x -C "$out/a"
fi
# The harness and both builds share KStepArgs / KernelSet: a revision with another interface
# cannot be compared in one process.
if ! cmp -s "$out/a/src/engine/kernel_args.hpp" src/engine/kernel_args.hpp; then
  echo "kernel-ab: src/engine/kernel_args.hpp differs between $rev and the working tree; an in-process A/B needs the same k-step interface" >&2
  exit 2
fi
compile() {  # compile SRC_ROOT NAME: the TU with its entry renamed kernel_sets_NAME, every other symbol made local
  local root="$1" name="$2"
  # shellcheck disable=SC2086
  eval "$cxx" $flags -I"$root/src" -D"$entry=kernel_sets_$name" -c "$root/$tu" -o "$out/k_$name.o"
  if ! nm "$out/k_$name.o" | awk -v n="kernel_sets_$name" '$2 == "T" && index($3, n) {f = 1} END {exit !f}'; then
    echo "kernel-ab: no kernel_sets_$name in the build of $root/$tu" >&2
    exit 1
  fi
  # The TU's other strong definitions (the decoders and epilogues it exports to the engine) exist
  # in both builds and in the library: local in each. Weak (COMDAT) library code stays as it is.
  nm --defined-only "$out/k_$name.o" | awk -v n="kernel_sets_$name" '$2 == "T" && !index($3, n) {print $3}' >"$out/local_$name.txt"
  if [ -s "$out/local_$name.txt" ]; then objcopy --localize-symbols="$out/local_$name.txt" "$out/k_$name.o"; fi
}
echo "kernel-ab: A = $tu at $( $self_check && echo 'the working tree' || echo "$rev"), B = the working tree's; compiling" >&2
compile "$out/a" a
compile "$PWD" b
eval "$cxx" $flags -I"$PWD/src" -c bench/kernel_ab/kernel_ab.cpp -o "$out/kernel_ab.o"
"$cxx" "$out/kernel_ab.o" "$out/k_a.o" "$out/k_b.o" -o "$out/kernel_ab" \
  -Wl,--start-group "$build"/librrswin_*.a -Wl,--end-group -lquadmath -lpthread
"$out/kernel_ab" --simd "$simd" "$@"
