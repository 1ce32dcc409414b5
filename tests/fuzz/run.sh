#!/usr/bin/env bash
# make fuzz: run each libFuzzer harness of a HOSTDNN_FUZZ=ON build for RUNS inputs (at most
# SECONDS), starting from its corpus in tests/fuzz/corpus/<name>; inputs that add coverage land in
# BUILD/corpus-<name> (merge them into the repository's corpus with -merge=1 when they are worth
# keeping), crashes in BUILD/crash-*.  One line per harness with its executions.
#   tests/fuzz/run.sh BUILD RUNS SECONDS
set -u
build=$1 runs=$2 secs=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
status=0
for h in desc compute; do
  mkdir -p "$build/corpus-$h"
  log=$build/fuzz-$h.log
  echo "== fuzz_$h: $runs runs, at most ${secs}s"
  # -rss_limit_mb: the harnesses stay small; a leak or runaway allocation is a finding.
  "$build/tests/fuzz/fuzz_$h" -runs="$runs" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
    -artifact_prefix="$build/" "$build/corpus-$h" "$root/tests/fuzz/corpus/$h" >"$log" 2>&1
  rc=$?
  grep -E '^#[0-9]+.*(DONE|pulse)|Done [0-9]+ runs' "$log" | tail -n 2
  if [ $rc -ne 0 ]; then
    status=1
    grep -E -A 20 'ERROR|runtime error|deadly signal|timeout' "$log" | head -n 40
  fi
done
exit $status
