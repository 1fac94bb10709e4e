#!/usr/bin/env bash
# Builds the libFuzzer targets with clang + ASan + UBSan and runs each for
# RUNS inputs (default 1,000,000). Not part of npm test: `npm run fuzz`.
# TARGETS="resampler" limits the run to some targets; MAX_TIME_S caps each run.
set -euo pipefail
cd "$(dirname "$0")"
RUNS="${RUNS:-1000000}"
CXX="${CXX_FUZZ:-clang++}"
mkdir -p bin out
FLAGS=(-std=c++17 -O1 -g -fno-exceptions -fsanitize=fuzzer,address,undefined
  -fno-sanitize-recover=undefined -Wno-psabi -DVC_NO_MULTIVERSION -I../include)
CORE=(../src/core/status.cc ../src/core/framer.cc ../src/core/g711.cc ../src/core/resampler.cc
  ../src/core/vad.cc ../src/core/echo_canceller.cc ../src/core/echo_cancel_stage.cc ../src/core/waveform_lag.cc ../src/core/bargein.cc ../src/core/bargein_bursts.cc ../src/core/bargein_caps.cc
  ../src/core/bargein_double_talk.cc ../src/core/bargein_line_levels.cc ../src/core/channel.cc ../src/core/echo_chain.cc)
status=0
for t in ${TARGETS:-framer g711 resampler channel echo_chain}; do
  echo "== fuzz_$t: building"
  "$CXX" "${FLAGS[@]}" "fuzz_$t.cc" "${CORE[@]}" -o "bin/fuzz_$t"
  mkdir -p "out/corpus_$t"
  echo "== fuzz_$t: running $RUNS inputs"
  if UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "bin/fuzz_$t" -runs="$RUNS" -max_len=8192 -max_total_time="${MAX_TIME_S:-0}" \
      -print_final_stats=1 -artifact_prefix="out/$t-" "out/corpus_$t" >"out/$t.log" 2>&1; then
    echo "fuzz_$t: OK $(grep -E 'stat::number_of_executed_units' "out/$t.log" | awk '{print $2}') inputs," \
      "$(grep -E 'stat::average_exec_per_sec' "out/$t.log" | awk '{print $2}') exec/s," \
      "coverage $(grep -oE 'cov: [0-9]+' "out/$t.log" | tail -1)"
  else
    echo "fuzz_$t: FAILED (see native/fuzz/out/$t.log)"; tail -30 "out/$t.log"; status=1
  fi
done
exit $status
