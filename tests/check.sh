#!/usr/bin/env bash
# make check: the normal pass, then the same suite built with ASan+UBSan.  Prints each pass
# and a final "N passed, N failed" over both; exits non-zero if anything failed.
set -u
build=$1 asan=$2 cmake=$3 jobs=$4
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
echo "== tests (release build: $build)"
tests/run_all.sh "$build" | tee "$build/check-normal.txt"
r1=${PIPESTATUS[0]}
echo "== tests under AddressSanitizer + UndefinedBehaviorSanitizer ($asan)"
if $cmake -S . -B "$asan" -DCMAKE_BUILD_TYPE=Debug -DHOSTDNN_SANITIZE=ON >/dev/null && \
   $cmake --build "$asan" -j "$jobs" >"$root/$asan.build.log" 2>&1; then
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    tests/run_all.sh "$asan" --sanitized | tee "$asan/check-asan.txt"
  r2=${PIPESTATUS[0]}
else
  tail -n 40 "$root/$asan.build.log"
  echo "sanitizer build failed"
  r2=1
fi
p1=$(tail -n 1 "$build/check-normal.txt" | sed -E 's/^([a-z]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2 \3/')
p2="0 1"
[ -f "$asan/check-asan.txt" ] && p2=$(tail -n 1 "$asan/check-asan.txt" | sed -E 's/^([a-z]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2 \3/')
set -- $p1 $p2
pass=$(( $1 + $3 )); fail=$(( $2 + $4 ))
[ $r1 -ne 0 ] && [ $2 -eq 0 ] && fail=$((fail + 1))
[ $r2 -ne 0 ] && [ $4 -eq 0 ] && fail=$((fail + 1))
echo "total: $pass passed, $fail failed"
[ $fail -eq 0 ]
