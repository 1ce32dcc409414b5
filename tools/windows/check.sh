#!/usr/bin/env bash
# make check-windows: run the cross-compiled test programs under Wine and close with the
# same "N passed, N failed" line as tests/run_all.sh.  Programs in tests/windows-skip.tsv are
# not built; they are listed with the reason.
#   tools/windows/check.sh BUILD_DIR [PACKAGE_ZIP]
# With PACKAGE_ZIP, the zip's checks run too (tools/windows/check_package.sh).
set -u
build=${1:?usage: check.sh BUILD_DIR [PACKAGE_ZIP]}
zip=${2:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$build" && pwd)
. "$root/tools/windows/wine_env.sh"
export WINEPATH="Z:${build//\//\\}\\bin"
# One wineserver for the whole run (persistent until the end): otherwise each program may start
# while the previous program's server is shutting down, and a program was seen killed (SIGKILL)
# right after printing its closing line.
wineserver -p 2>/dev/null || true
trap 'wineserver -k 2>/dev/null || true' EXIT
log=$build/test-logs
mkdir -p "$log"
total_pass=0 total_fail=0 ran=0

run_one() {
  local name=$1; shift
  local out=$log/$name.log t0=$(date +%s.%N)
  timeout 900 "$@" >"$out" 2>&1
  local rc=$? p=0 f=0
  # Wine's own client/server link can drop (the program never ran to its end through no fault of
  # its own): run it once more, and say so.
  # A SIGKILL (137; timeout itself sends TERM, 124) comes from outside the program: Wine's
  # server going away, or the kernel's OOM killer.  Also run once more, and say so.
  if [ "$rc" -ne 0 ] && { grep -q 'wine client error' "$out" || [ "$rc" -eq 137 ]; }; then
    echo "  note: $name lost its link to wineserver or was killed from outside (exit $rc); run again"
    timeout 900 "$@" >"$out" 2>&1
    rc=$?
  fi
  local dt=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
  local line=$(tr -d '\r' <"$out" | grep -E '^([A-Za-z]+: )?[0-9]+ passed, [0-9]+ failed' | tail -n 1)
  if [ -n "$line" ]; then
    p=$(echo "$line" | sed -E 's/^([A-Za-z]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2/')
    f=$(echo "$line" | sed -E 's/^([A-Za-z]+: )?([0-9]+) passed, ([0-9]+) failed.*/\3/')
  fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  if [ -z "$line" ] && [ "$rc" -eq 0 ]; then f=1; fi
  total_pass=$((total_pass + p)); total_fail=$((total_fail + f)); ran=$((ran + 1))
  if [ "$f" -ne 0 ]; then
    printf '  FAIL %-40s %5s passed %4s failed  (%ss, exit %s)\n' "$name" "$p" "$f" "$dt" "$rc"
    tr -d '\r' <"$out" | grep -E 'FAIL|ERROR|error' | head -n 20 | sed 's/^/       /'
  else
    printf '  ok   %-40s %5s passed  (%ss)\n' "$name" "$p" "$dt"
  fi
}

for exe in "$build"/tests/bin/test_*.exe; do
  [ -f "$exe" ] || continue
  run_one "$(basename "$exe" .exe)" wine "$exe"
done
if [ -n "$zip" ]; then
  run_one package "$root/tools/windows/check_package.sh" "$zip" "$build/gen/private_ops_infer.txt"
fi
# the doctor against staged broken installs (fake DLLs, its own Wine prefix)
run_one doctor_wine bash "$root/tests/windows/doctor_wine.sh"
# NVIDIA's conv_sample built against the zip: its sources are not in the tree, so it runs
# where HOSTDNN_SAMPLES names a fetched cudnn_samples_v8 (docs/windows.md)
if [ -n "$zip" ] && [ -n "${HOSTDNN_SAMPLES:-}" ]; then
  run_one conv_sample_wine bash "$root/tests/windows/conv_sample_wine.sh" "$zip" "$HOSTDNN_SAMPLES"
fi
echo "skipped on Windows (tests/windows-skip.tsv):"
grep -E '^test_' "$root/tests/windows-skip.tsv" | sed 's/\t/: /; s/^/  /'
if [ -z "${HOSTDNN_SAMPLES:-}" ]; then
  echo "  conv_sample_wine: HOSTDNN_SAMPLES is not set (NVIDIA's samples are not in the tree; docs/windows.md)"
fi
echo "windows: $ran programs under Wine"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
