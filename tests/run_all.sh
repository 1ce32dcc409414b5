#!/usr/bin/env bash
# Run every test program and test script of a build; print "N passed, N failed, N skipped" at
# the end, after the list of skipped checks with their reasons.
#   tests/run_all.sh BUILD_DIR [--sanitized]
# A program or script counts its own checks; one that crashes or prints no closing line
# counts as one failure.  Skips: the ", N skipped" of a closing line, or else the number of
# "SKIP <reason>" lines the program printed (tests/harness.h SKIP, tests/shlib.sh skip).
# The same programs and scripts are CTest tests too (tests/CMakeLists.txt: ctest -L quick).
set -u
build=${1:?usage: run_all.sh BUILD_DIR [--sanitized]}
mode=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
export HD_ROOT=$root HD_BUILD=$build HD_MODE=$mode
export LD_LIBRARY_PATH=$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
total_pass=0
total_fail=0
total_skip=0
log=$build/test-logs
mkdir -p "$log"
skips=$log/skipped.txt
: >"$skips"

# The closing line: "N passed, N failed" with an optional ", N skipped", maybe after "word: ".
closing='^([A-Za-z]+: )?[0-9]+ passed, [0-9]+ failed'

# Per-program time limit: a hung test fails instead of stalling the run.  Sanitized builds are
# unoptimised and instrumented, and the convolution sweeps run many times slower there (most
# on a CPU without AVX-512, whose scalar and AVX2 paths carry more of the work): a longer limit.
limit=600
[ -n "$mode" ] && limit=1500

run_one() {
  local name=$1; shift
  local out=$log/$name.log
  local t0=$(date +%s.%N)
  timeout "$limit" "$@" >"$out" 2>&1
  local rc=$?
  local dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
  local line=$(grep -E "$closing" "$out" | tail -n 1)
  local p=0 f=0 s=0
  if [ -n "$line" ]; then
    p=$(echo "$line" | sed -E 's/^([A-Za-z]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2/')
    f=$(echo "$line" | sed -E 's/^([A-Za-z]+: )?([0-9]+) passed, ([0-9]+) failed.*/\3/')
    s=$(echo "$line" | sed -nE 's/^([A-Za-z]+: )?[0-9]+ passed, [0-9]+ failed, ([0-9]+) skipped.*/\2/p')
  fi
  grep -E '^SKIP ' "$out" | sed -E "s/^SKIP /$name: /" >>"$skips"
  [ -z "$s" ] && s=$(grep -cE '^SKIP ' "$out")
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  if [ -z "$line" ] && [ "$rc" -eq 0 ]; then f=1; fi
  total_pass=$((total_pass + p))
  total_fail=$((total_fail + f))
  total_skip=$((total_skip + s))
  local sk=""
  [ "$s" -gt 0 ] && sk="  $s skipped"
  if [ "$f" -ne 0 ]; then
    printf '  FAIL %-40s %5s passed %4s failed  (%ss, exit %s)%s\n' "$name" "$p" "$f" "$dt" "$rc" "$sk"
    sed -n '1,60p' "$out" | grep -E 'FAIL|ERROR|error|Sanitizer|runtime error' | head -n 30 | sed 's/^/       /'
  else
    printf '  ok   %-40s %5s passed  (%ss)%s\n' "$name" "$p" "$dt" "$sk"
  fi
}

for exe in "$build"/tests/bin/test_*; do
  [ -x "$exe" ] || continue
  run_one "$(basename "$exe")" "$exe"
done
for s in "$root"/tests/scripts/*.sh; do
  [ -f "$s" ] || continue
  run_one "$(basename "$s" .sh)" bash "$s"
done
if [ -s "$skips" ]; then
  echo "skipped:"
  sed 's/^/  /' "$skips"
fi
echo "${mode:+sanitized: }$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
