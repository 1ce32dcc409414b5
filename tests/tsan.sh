#!/usr/bin/env bash
# make check-tsan: build the libraries and the programs that run hostdnn from several threads
# with ThreadSanitizer (HOSTDNN_TSAN=ON, configured by the Makefile), then run each with
# halt_on_error, so the first race reported fails the pass.  Prints one line per program and
# "tsan: N passed, N failed".
#   tests/tsan.sh BUILD CMAKE JOBS
set -u
build=$1 cmake=$2 jobs=$3
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# The application-thread test first, then the tests of the worker pool, results across thread
# counts (RNN, attention with dropout, CTC, fused ops), cuBLAS and the host CUDA runtime's
# streams.  test_runtime_single is left out: it counts the process's threads, and
# ThreadSanitizer's runtime adds one of its own.
progs="test_concurrency test_kernel_parallel test_rnn_threads test_attn_dropout test_ctc test_fused_ops_exec
       test_cublas_gemm test_cudart_stream"
if ! $cmake --build "$build" -j "$jobs" --target $progs >"$root/$build.build.log" 2>&1; then
  tail -n 40 "$root/$build.build.log"
  echo "tsan: 0 passed, 1 failed"
  exit 1
fi
export LD_LIBRARY_PATH=$root/$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# second_deadlock_stack: a lock-order report names both acquisitions.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
export HD_ROOT=$root HD_BUILD=$root/$build HD_MODE=--sanitized
pass=0 fail=0
mkdir -p "$build/test-logs"
for p in $progs; do
  out=$build/test-logs/$p.tsan.log
  t0=$(date +%s)
  timeout 600 "$build/tests/bin/$p" >"$out" 2>&1
  rc=$?
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
  if [ $rc -eq 0 ] && [ -n "$line" ] && ! grep -q 'ThreadSanitizer' "$out"; then
    pass=$((pass + 1))
    printf '  ok   %-24s %s (%ss)\n' "$p" "$line" "$(( $(date +%s) - t0 ))"
  else
    fail=$((fail + 1))
    printf '  FAIL %-24s exit %s (%ss)\n' "$p" "$rc" "$(( $(date +%s) - t0 ))"
    grep -E -A 30 'WARNING: ThreadSanitizer|FAIL' "$out" | head -n 60 | sed 's/^/       /'
  fi
done
echo "tsan: $pass passed, $fail failed"
[ $fail -eq 0 ]
