#!/usr/bin/env bash
# The memory-bound part of `make bench-compare` (also `make bench-ops` alone): hostdnn and
# oneDNN 2.6 on the memory-bound primitives of ResNet-50, VGG-16, MobileNet-v2, AlexNet and
# DeepLab-v3 (activations forward and backward, add, bias add, batch norm training and
# inference, max / average / global average pooling, softmax CHANNEL and INSTANCE and its
# backward, the layout transform), each from NCHW and from NHWC tensors, next to the STREAM
# triad of the same moment; then the "ops" section of docs/performance.md (bench/report_ops.py).
#
#   bench/compare_ops.sh BUILD_DIR
#   env: ROUNDS=5  REPS=5  THREADS=1,2  LAYOUTS="nchw nhwc"
#        OPS_SETS=<lines "SHAPE:OPS", default below>  DOCS_DIR=<where performance.md is> (default: docs/)
#
# The machine is noisy: each round runs STREAM, hostdnn and oneDNN one after the other
# (interleaved), and the report takes the median over rounds of each program's median.
set -u
build=${1:?usage: bench/compare_ops.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${ROUNDS:-5}
REPS=${REPS:-5}
THREADS=${THREADS:-1,2}
LAYOUTS=${LAYOUTS:-nchw nhwc}
# Each op on the tensor of the network layer it stands for (all far larger than the caches):
# VGG/ResNet stem activations, the ResNet-50 stem max pool, DenseNet/ResNet-style 2x2 average
# pooling, ResNet-50's global average pool, ResNet-50 batch norm, DeepLab-v3's 21-class softmax.
OPS_SETS=${OPS_SETS:-"--n 32 --c 64 --h 112 --w 112:relu relu6 sigmoid tanh relu_bwd add add_bias pool_max pool_max_bwd nchw2nhwc
--n 32 --c 128 --h 56 --w 56:pool_avg pool_avg_bwd
--n 128 --c 2048 --h 7 --w 7:pool_gap pool_gap_bwd
--n 64 --c 64 --h 56 --w 56:bn_fwd bn_bwd bn_infer
--n 16 --c 21 --h 128 --w 128:softmax softmax_inst softmax_bwd"}
# oneDNN and PyTorch run with their OpenMP defaults, as in a user's program: a thread that
# ends its part of a parallel region spins briefly, then sleeps -- as hostdnn's pool polls
# briefly, then sleeps.  Each library runs in a process of its own, so the spinning takes no
# time from the others' calls.  WAIT=passive sets OMP_WAIT_POLICY=passive (no spinning: on
# batch-1 calls that costs oneDNN 1.6-1.7x, docs/performance.md).
if [ "${WAIT:-default}" = passive ]; then export OMP_WAIT_POLICY=passive; fi

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
  while IFS=: read -r shape ops; do
    [ -n "$shape" ] || continue
    for layout in $LAYOUTS; do
      # shellcheck disable=SC2086
      "$build/bench/hostdnn_ops" --reps "$REPS" --threads "$THREADS" --layout "$layout" $shape $ops >> "$out" 2>/dev/null
      # shellcheck disable=SC2086
      [ -x "$build/bench/onednn_ops" ] && "$build/bench/onednn_ops" --reps "$REPS" --threads "$THREADS" \
        --layout "$layout" $shape $ops >> "$out" 2>/dev/null
    done
  done <<< "$OPS_SETS"
done
echo >&2
load1=$(cut -d' ' -f1-3 /proc/loadavg)
/usr/bin/python3 "$root/bench/report_ops.py" "$out" "${DOCS_DIR:-$root/docs}" "$ROUNDS" "$REPS" "$load0" "$load1"
