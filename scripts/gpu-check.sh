#!/usr/bin/env bash
# gpu-check: the CUDA ports (src/cuda) on the GPU this machine has, in one run (issues 13, 37).
#   1. builds rrswin, the ports' PTX and cubins and the launcher rrswin-gpu (build/gpu);
#   2. checks the device's own FP8 mma against the numerics core (random 32-term m16n8k32 tiles);
#   3. runs enc5's kernel on the demo, stress, odd-extent and block-offset frames and compares them
#      byte for byte with the golden model (rrswin run --layer enc5 --engine golden) under the profile that
#      models the device (sm_89 -> ada, sm_90/sm_100 -> hopper, sm_120 -> blackwell, a model);
#   4. times enc5's kernel (ms per frame) for the real, 1080p and 4K geometries against the CPU
#      engine in the same run;
#   5. every layer but enc5 with a port (build/gpu/cuda/<layer>_kernel.sm_89.ptx): its synthetic replay
#      captures (the layer's token grid at a 1280 x 720 render, and 21 x 13 tokens at block offsets
#      3,5) on the GPU (rrswin-gpu replay) against the golden model's replay of the same captures, and
#      the token grid's launch timed: with enc5's, the network's kernels at 720p, layer by layer;
# and prints a summary to paste into docs/performance.md. Without an NVIDIA GPU it says so and
# exits 0. Usage: bash scripts/gpu-check.sh   (work files in build/gpu-check; ~3-6 min)
#        bash scripts/gpu-check.sh --interpreter [RRSWIN]   (step 5 without a GPU: the PTX interpreter in its place)
set -euo pipefail
cd "$(dirname "$0")/.."

# Step 5, every layer with a port on its synthetic replay captures against the golden model's replay
# of the same captures. `check_layers gpu` launches the ports' modules of $BUILD/cuda on the device
# (rrswin-gpu replay) and times them; `check_layers interpreter` runs the checked-in PTX in rrswin's
# PTX interpreter instead (`rrswin ptx run --capture`: the same files), the border launch only and
# untimed: what `--interpreter` runs without a GPU to keep this loop itself tested (ctest
# gpu_check_interpreter).
check_layers() {
  local mode=$1
  echo "== layers: each port on synthetic replay captures, $mode vs golden model"
  echo >>"$summary"
  echo "| layer | token grid (720p) | border launch (21x13, offset 3,5) | GPU ms per launch (token grid) | CPU fast engine ms/frame (1 thread) |" >>"$summary"
  echo "|---|---|---|---|---|" >>"$summary"
  # enc5's kernel is checked and timed by steps 3 and 4 (its frames, its real grid: enc5_real_ms).
  local ported="" missing="" network_ms=${enc5_real_ms:-0} L ptx lmod launch lname lopts d r gms cms
  [ -n "${enc5_real_ms:-}" ] && ported=" enc5"
  for L in $("$E" layers | awk '$1 ~ /^(enc|dec)[0-5]$/ && $1 != "enc5" { print $1 }'); do
    if [ "$mode" = gpu ]; then ptx="$BUILD/cuda/${L}_kernel.sm_89.ptx"; else ptx="src/cuda/generated/${L}_kernel.sm_89.ptx"; fi
    if [ ! -f "$ptx" ]; then
      missing="$missing $L"
      continue
    fi
    # enc0's captures are in rrswin's stand-in convention (+8 the staged input tensor, +88 the texture
    # standing for input_noise: its prologue from the network input +304 is decoded by no source;
    # docs/readings.md §10), the offsets its port reads: it runs here like every other layer.
    ported="$ported $L"
    mkdir -p "$WORK/$L"
    lmod="$BUILD/cuda/${L}_kernel.sm_${sm}.cubin"
    [ -f "$lmod" ] || lmod="$ptx"
    # The decoders' +88 is sampled at f32 coordinates: the launch's sampler is the reading
    # decoder-sampler, linear by default (docs/readings.md); every other texture is read at texels.
    local sampler=()
    case "$L" in dec*) sampler=(--sampler 88=linear) ;; esac
    local results=() launches=("grid|--seed 1" "border|--seed 2 --ex 21 --ey 13 --block-offset 3,5")
    [ "$mode" = gpu ] || { results=("-"); launches=("${launches[1]}"); }
    for launch in "${launches[@]}"; do
      IFS='|' read -r lname lopts <<<"$launch"
      d="$WORK/$L/$lname"
      # shellcheck disable=SC2086
      "$E" capture --layer "$L" --synthetic $lopts -o "$d/cap" >"$d.capture.log" 2>&1 || { cat "$d.capture.log"; exit 1; }
      "$E" replay --layer "$L" "$d/cap" --engine golden --profile "$compare_profile" -o "$d/golden" >"$d.golden.log" 2>&1 ||
        { cat "$d.golden.log"; exit 1; }
      if [ "$mode" = gpu ]; then
        "$G" replay --module "$lmod" --capture "$d/cap" "${sampler[@]}" -o "$d/gpu" >"$d.gpu.log" 2>&1 || { cat "$d.gpu.log"; exit 1; }
      else
        "$E" ptx run "$ptx" --capture "$d/cap" --profile "$compare_profile" "${sampler[@]}" -o "$d/gpu" >"$d.gpu.log" 2>&1 ||
          { cat "$d.gpu.log"; exit 1; }
      fi
      r="equal"
      "$E" diff "$d/golden" "$d/gpu" >"$d.diff.txt" 2>&1 || { r="DIFFERENT"; fails=$((fails + 1)); }
      results+=("$r")
    done
    gms="-"
    cms="-"
    if [ "$mode" = gpu ]; then
      gms=$("$G" replay --module "$lmod" --capture "$WORK/$L/grid/cap" "${sampler[@]}" --repeat 50 -o "$WORK/$L/grid/gpu-timed" |
        sed -n 's/.*; \([0-9.]*\) ms per launch.*/\1/p')
      cms=$("$E" bench --layer "$L" --profile ada --reps 3 --threads 1 2>/dev/null |
        awk -v l="$L" '$1 == l && $5 == "ada" && (m == "" || $7 < m) { m = $7 } END { print m }')
      network_ms=$(awk -v a="$network_ms" -v b="$gms" 'BEGIN { printf "%.4f", a + b }')
    fi
    echo "  $L: token grid ${results[0]}, border launch ${results[1]}; GPU $gms ms, CPU ${cms:-?} ms"
    echo "| $L | ${results[0]} | ${results[1]} | $gms | ${cms:-?} |" >>"$summary"
  done
  {
    echo
    [ "$mode" = gpu ] && echo "network at 720p, the sum of the ported layers' launches:$ported: $network_ms ms on the GPU"
    [ -n "$missing" ] && echo "layers without a CUDA port yet (not run):$missing"
    true
  } | tee -a "$summary"
}

# Without a GPU: the layer loop in the PTX interpreter (see check_layers), with the rrswin given
# (default build/release/rrswin); work files next to it, in gpu-check-interpreter/.
if [ "${1:-}" = "--interpreter" ]; then
  E="${2:-build/release/rrswin}"
  BUILD=$(dirname "$E")
  WORK="$BUILD/gpu-check-interpreter"
  rm -rf "$WORK"
  mkdir -p "$WORK"
  summary="$WORK/summary.txt"
  : >"$summary"
  compare_profile=ada
  sm=89
  fails=0
  check_layers interpreter
  if [ "$fails" -ne 0 ]; then
    echo "gpu-check --interpreter: $fails output(s) differ (details in $WORK)"
    exit 1
  fi
  echo "gpu-check --interpreter: every port's border launch byte-identical to the golden model (ada)"
  exit 0
fi

if ! command -v nvidia-smi >/dev/null 2>&1; then
  echo "gpu-check: nvidia-smi not found: no NVIDIA GPU on this machine, nothing to check (exit 0)."
  exit 0
fi
if ! nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  echo "gpu-check: nvidia-smi lists no GPU: nothing to check (exit 0)."
  exit 0
fi

BUILD=build/gpu
WORK=build/gpu-check
rm -rf "$WORK"
mkdir -p "$WORK"
jobs=$(nproc)

echo "== build (rrswin, kernel PTX/cubins, rrswin-gpu) in $BUILD"
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DRRSWIN_BUILD_TESTS=OFF -DRRSWIN_BUILD_BENCH=OFF -DRRSWIN_BUILD_PYTHON=OFF >"$WORK/cmake.log" 2>&1 ||
  { cat "$WORK/cmake.log"; exit 1; }
cmake --build "$BUILD" -j"$jobs" -t rrswin -t rrswin-gpu -t rrswin_cuda_kernel >"$WORK/build.log" 2>&1 || { tail -50 "$WORK/build.log"; exit 1; }
E="$BUILD/rrswin"
G="$BUILD/rrswin-gpu"
grep -h "rrswin CUDA kernel sm_" "$WORK/build.log" | sed 's/^-- //' >"$WORK/resources.txt" || true

info=$("$G" info)
echo "$info"
sm=$(echo "$info" | sed -n 's/.*(sm_\([0-9]*\)).*/\1/p')
profile=$(echo "$info" | sed -n 's/^profile: \([a-z]*\)$/\1/p')
module="$BUILD/cuda/enc5_kernel.sm_${sm}.cubin"
if [ ! -f "$module" ]; then
  module="$BUILD/cuda/enc5_kernel.sm_89.ptx"  # no cubin for this target: the driver JITs the PTX
fi
compare_profile="$profile"
note=""
if [ -z "$profile" ]; then
  compare_profile=ada
  note="sm_$sm has no rrswin profile: compared against ada (differences are the device's, not a kernel bug)"
elif ! "$E" eval fma.rn.f16 0x3c00 0x3c00 0x0000 --profile "$profile" >/dev/null 2>&1; then
  compare_profile=ada
  note="this rrswin has no '$profile' profile yet: compared against ada"
fi
[ -n "$note" ] && echo "note: $note"

summary="$WORK/summary.txt"
{
  echo "### gpu-check $(date -u +%Y-%m-%d) on $(echo "$info" | head -1 | sed 's/^device: //')"
  echo
  echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), module $(basename "$module"), golden profile $compare_profile${note:+ ($note)}"
  echo
  echo "resources (ptxas -v):"
  sed 's/^/  /' "$WORK/resources.txt"
  echo
} >"$summary"

echo "== FP8 mma harness (device mma vs the numerics core, $compare_profile)"
set +e
mma_line=$("$G" mma-check --tiles 4096 --seed 1 --profile "$compare_profile")
mma_rc=$?
set -e
echo "$mma_line"
echo "$mma_line" | sed 's/^/  /' >>"$summary"

echo "== frames: GPU vs golden model"
fails=0
# name | rrswin run --layer enc5 options (inputs) | ex ey | block offset
frames=(
  "demo||40 23|0,0"
  "stress|--stress|40 23|0,0"
  "odd|--seed 5 --ex 37 --ey 21|37 21|0,0"
  "offset|--seed 6 --stress --ex 29 --ey 19 --block-offset 3,5|29 19|3,5"
)
echo >>"$summary"
echo "| frame | extents | offset | arena | surface |" >>"$summary"
echo "|---|---|---|---|---|" >>"$summary"
for f in "${frames[@]}"; do
  IFS='|' read -r name opts ext off <<<"$f"
  read -r ex ey <<<"$ext"
  gold="$WORK/$name/golden"
  gpu="$WORK/$name/gpu"
  # shellcheck disable=SC2086
  "$E" run --layer enc5 -o "$gold" --save-inputs --engine golden --profile "$compare_profile" $opts >"$WORK/$name.golden.log" 2>&1
  "$G" run --module "$module" --frame "$gold" --ex "$ex" --ey "$ey" --block-offset "$off" -o "$gpu" >"$WORK/$name.gpu.log" 2>&1 ||
    { cat "$WORK/$name.gpu.log"; exit 1; }
  ra="equal"
  rs="equal"
  "$E" diff "$gold/arena.bin" "$gpu/arena.bin" --ex "$ex" --ey "$ey" >"$WORK/$name.diff-arena.txt" 2>&1 || { ra="DIFFERENT"; fails=$((fails + 1)); }
  "$E" diff "$gold/surface112.exr" "$gpu/surface112.exr" >"$WORK/$name.diff-surface.txt" 2>&1 || { rs="DIFFERENT"; fails=$((fails + 1)); }
  echo "  $name (${ex}x${ey}, offset $off): arena $ra, surface $rs"
  echo "| $name | ${ex}x${ey} | $off | $ra | $rs |" >>"$summary"
done

echo "== timing: GPU kernel vs CPU engine (ms per frame)"
echo >>"$summary"
echo "| geometry | tokens | GPU kernel ms/frame | CPU fast engine ms/frame ($(nproc) threads) |" >>"$summary"
echo "|---|---|---|---|" >>"$summary"
for geo in "real 40 23" "1080p 60 34" "4k 120 68"; do
  read -r gname ex ey <<<"$geo"
  dir="$WORK/time-$gname"
  "$E" run --layer enc5 -o "$dir" --save-inputs --ex "$ex" --ey "$ey" >/dev/null 2>&1
  gms=$("$G" run --module "$module" --frame "$dir" --ex "$ex" --ey "$ey" --repeat 50 -o "$dir/gpu" | sed -n 's/.*; \([0-9.]*\) ms per frame.*/\1/p')
  cms=$("$E" bench --geometry "$gname" --profile ada --no-golden --no-reference --reps 3 2>/dev/null |
    awk -v g="$gname" '$1 == g && $4 == "fast" { if (min == "" || $7 < min) min = $7 } END { print min }')
  [ "$gname" = real ] && enc5_real_ms=$gms
  echo "  $gname (${ex}x${ey} tokens): GPU $gms ms, CPU $cms ms"
  echo "| $gname | ${ex}x${ey} | $gms | $cms |" >>"$summary"
done

check_layers gpu

echo
echo "================ summary (paste into docs/performance.md) ================"
cat "$summary"
echo "=========================================================================="
if [ "$mma_rc" -ne 0 ] || [ "$fails" -ne 0 ]; then
  echo "gpu-check: $fails output(s) differ, mma harness exit $mma_rc (details in $WORK)"
  exit 1
fi
echo "gpu-check: all outputs byte-identical to the golden model ($compare_profile)"
