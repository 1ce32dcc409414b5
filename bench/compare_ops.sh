#!/usr/bin/env bash
# The memory-bound part of `make bench-compare` (also `make bench-ops` alone): hostdnn and
# oneDNN 2.6 on relu, add, batch norm forward/backward, max pooling, softmax and the NCHW->NHWC
# transform on one large fp32 tensor, next to the STREAM triad of the same moment; then the
# "ops" section of docs/performance.md (bench/report_ops.py).
#
#   bench/compare_ops.sh BUILD_DIR
#   env: ROUNDS=5  REPS=5  OPS_SHAPE="--n 32 --c 64 --h 112 --w 112"  THREADS=1,2
#        DOCS_DIR=<where performance.md is> (default: docs/)
#
# The machine is noisy: each round runs STREAM, hostdnn and oneDNN one after the other
# (interleaved), and the report takes the median over rounds of each program's median.
set -u
build=${1:?usage: bench/compare_ops.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${ROUNDS:-5}
REPS=${REPS:-5}
OPS_SHAPE=${OPS_SHAPE:---n 32 --c 64 --h 112 --w 112}
THREADS=${THREADS:-1,2}
# oneDNN's OpenMP threads would otherwise spin at barriers, which on a shared 2-core machine
# starves the partner thread (see docs/performance.md, method); hostdnn-bench sets the same.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

# The anchor comes from Debian: install it when missing (needs root and the package mirror).
if [ ! -f /usr/include/dnnl.h ]; then
  echo "installing libdnnl-dev ..." >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libdnnl-dev >/dev/null 2>&1 || \
    echo "warning: could not install libdnnl-dev; the oneDNN column will be missing" >&2
  cmake -S "$root" -B "$build" >/dev/null && cmake --build "$build" -j 2 >/dev/null
fi

out=$build/bench-ops.txt
: > "$out"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for round in $(seq 1 "$ROUNDS"); do
  printf '\rops round %d/%d' "$round" "$ROUNDS" >&2
  if [ -x "$build/tools/hostdnn-bench" ]; then
    # "threads=2   best / median" -> "stream triad stream-t2 0 <median GB/s>"
    "$build/tools/hostdnn-bench" --mode=stream --threads=2 --reps=5 2>/dev/null |
      sed -n 's/^threads=\([0-9]*\) *\([0-9.]*\) *\/ *\([0-9.]*\).*/stream triad stream-t\1 0 \3/p' >> "$out"
  fi
  # shellcheck disable=SC2086
  "$build/bench/hostdnn_ops" --reps "$REPS" --threads "$THREADS" $OPS_SHAPE >> "$out" 2>/dev/null
  # shellcheck disable=SC2086
  [ -x "$build/bench/onednn_ops" ] && "$build/bench/onednn_ops" --reps "$REPS" --threads "$THREADS" $OPS_SHAPE >> "$out" 2>/dev/null
done
echo >&2
load1=$(cut -d' ' -f1-3 /proc/loadavg)
/usr/bin/python3 "$root/bench/report_ops.py" "$out" "${DOCS_DIR:-$root/docs}" "$ROUNDS" "$REPS" "$load0" "$load1"
