#!/usr/bin/env bash
# make check: the normal pass, then the same suite built with ASan+UBSan.  Prints each pass
# and a final "N passed, N failed, N skipped" over both; exits non-zero if anything failed.
#   tests/check.sh BUILD ASAN_BUILD CMAKE JOBS [CMAKE_OPTIONS for the sanitizer tree]
set -u
build=$1 asan=$2 cmake=$3 jobs=$4 opts=${5:-}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
echo "== tests (release build: $build)"
tests/run_all.sh "$build" | tee "$build/check-normal.txt"
r1=${PIPESTATUS[0]}
echo "== tests under AddressSanitizer + UndefinedBehaviorSanitizer ($asan)"
if $cmake -S . -B "$asan" -DCMAKE_BUILD_TYPE=Debug -DHOSTDNN_SANITIZE=ON $opts >/dev/null && \
   $cmake --build "$asan" -j "$jobs" >"$root/$asan.build.log" 2>&1; then
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    tests/run_all.sh "$asan" --sanitized | tee "$asan/check-asan.txt"
  r2=${PIPESTATUS[0]}
else
  tail -n 40 "$root/$asan.build.log"
  echo "sanitizer build failed"
  r2=1
fi
# "N passed, N failed" and an optional ", N skipped" -> "N N N"
counts() {
  tail -n 1 "$1" | sed -E 's/^([a-z]+: )?([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?.*/\2 \3 0\5/'
}
p1=$(counts "$build/check-normal.txt")
p2="0 1 0"
[ -f "$asan/check-asan.txt" ] && p2=$(counts "$asan/check-asan.txt")
set -- $p1 $p2
pass=$(( $1 + $4 )); fail=$(( $2 + $5 )); skipped=$(( 10#$3 + 10#$6 ))
[ $r1 -ne 0 ] && [ $2 -eq 0 ] && fail=$((fail + 1))
[ $r2 -ne 0 ] && [ $5 -eq 0 ] && fail=$((fail + 1))
echo "total: $pass passed, $fail failed, $skipped skipped"
[ $fail -eq 0 ]
