#!/usr/bin/env bash
# Builds the libFuzzer harnesses (preset fuzz: clang, ASan + UBSan) and runs each one for
# SECONDS_EACH seconds (default 30) on a seed corpus that rrswin's own synthetic writers produce at
# run time, with the wrap-around dictionary fuzz/numbers.dict. Exits non-zero on the first finding
# (a crash, a sanitizer report, a timeout, std::bad_alloc); the input is saved as
# build/fuzz/findings/<harness>/crash-* (rerun: build/fuzz/fuzz/fuzz_<harness> FILE).
# CI (.ci/run): RRSWIN_FUZZ_JOBS=2 bash scripts/fuzz.sh 20 -- 14 harnesses, 2 at a time: about 2.5 min.
#
#   bash scripts/fuzz.sh            # 30 s each
#   bash scripts/fuzz.sh 3600       # the long run (docs/testing.md "Fuzzing")
#   RRSWIN_FUZZ_ONLY=manifest bash scripts/fuzz.sh 600    # one harness
#   RRSWIN_FUZZ_JOBS=2                # harnesses run at the same time (default 1)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
jobs="${RRSWIN_FUZZ_JOBS:-1}"
command -v clang++ >/dev/null || { echo "fuzz.sh: clang++ is needed (Debian: apt-get install clang)" >&2; exit 2; }
echo "fuzz.sh: building the harnesses (cmake --preset fuzz)" >&2
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -- -j"$(nproc)"
bin=build/fuzz/fuzz
# Every harness fuzz/fuzz_NAME.cpp (fuzz/CMakeLists.txt builds the same list), so a new one runs too.
harnesses=()
for f in fuzz/fuzz_*.cpp; do h="${f#fuzz/fuzz_}"; harnesses+=("${h%.cpp}"); done
if [ -n "${RRSWIN_FUZZ_ONLY:-}" ]; then harnesses=($RRSWIN_FUZZ_ONLY); fi
work=build/fuzz/run
mkdir -p "$work" build/fuzz/findings

run_one() {
  local h="$1" seeds="$work/seeds/$1" corpus="$work/corpus/$1" found="build/fuzz/findings/$1"
  local max_len=65536
  [ "$h" = weight_image ] && max_len=440000  # the image is 431136 bytes
  # A hang is an input over 10 s; layer_capture replays a layer's frame under ASan + UBSan, where an
  # operand with NaN codes takes the exact mma path: a 2 x 2-block dec4 frame so took 14 s (0.29 s
  # in the release build), so it gets 40 s (docs/testing.md "Fuzzing"); network_capture replays ten
  # layers of a 64 x 64 frame per input (about 1.5 s), and network_inputs runs the network on one, so
  # they get the same.
  local timeout=10
  case "$h" in layer_capture | network_capture | network_inputs) timeout=40 ;; esac
  rm -rf "$seeds" && mkdir -p "$seeds" "$corpus" "$found"
  RRSWIN_FUZZ_WRITE_SEEDS="$seeds" "$bin/fuzz_$h" >/dev/null 2>&1
  # -timeout: a single input over $timeout s is a hang; -rss_limit_mb: an allocation no check stopped.
  if "$bin/fuzz_$h" "$corpus" "$seeds" -dict=fuzz/numbers.dict -max_total_time="$seconds" -timeout="$timeout" \
       -rss_limit_mb=2560 -max_len="$max_len" -artifact_prefix="$found/" -print_final_stats=1 >"$work/$h.log" 2>&1; then
    echo "fuzz.sh: $h: no finding in ${seconds} s ($(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/$h.log" | grep -o '[0-9]*$') inputs)" >&2
  else
    echo "fuzz.sh: $h: FINDING (log: $work/$h.log, input: $(ls "$found" | head -1))" >&2
    tail -40 "$work/$h.log" >&2
    return 1
  fi
}

status=0
pids=()
for h in "${harnesses[@]}"; do
  run_one "$h" &
  pids+=($!)
  if [ "${#pids[@]}" -ge "$jobs" ]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
exit $status
