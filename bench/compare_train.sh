#!/usr/bin/env bash
# Whole training steps: hostdnn (examples/train_net, cuDNN calls only) vs PyTorch CPU
# (bench/torch_train_step.py, oneDNN kernels through torch.backends.mkldnn), ResNet-50 and
# MobileNet-v2, batch 16, 224x224, fp32, SGD; each in NCHW and NHWC (PyTorch: contiguous and
# channels_last), interleaved over rounds.  Prints every run's median step (wall clock and the
# process's CPU time), then markdown tables of the medians over rounds and the ratio of
# PyTorch's best layout to each hostdnn one, for the wall clock and for the CPU time.
#
#   bench/compare_train.sh BUILD_DIR [NET...]        (NET: resnet50 mobilenet_v2)
#   env: ROUNDS=2 STEPS=3 (timed steps after one warm-up) THREADS=2 BATCH=16 IMAGE=224
#        TORCH=1 (0 leaves PyTorch out)  PROFILE=1 (hostdnn prints its time per layer kind)
#
# ratio = PyTorch's best median / hostdnn's median: above 1 hostdnn is faster.  On a shared
# machine the CPU time moves less than the wall clock when other processes take the cores.
set -u
build=${1:?usage: bench/compare_train.sh BUILD_DIR [NET...]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
nets=("$@")
[ ${#nets[@]} -eq 0 ] && nets=(resnet50 mobilenet_v2)
ROUNDS=${ROUNDS:-2}
STEPS=${STEPS:-3}
THREADS=${THREADS:-2}
BATCH=${BATCH:-16}
IMAGE=${IMAGE:-224}
TORCH=${TORCH:-1}
PROFILE=${PROFILE:-0}
# oneDNN and PyTorch run with their OpenMP defaults, as in a user's program: a thread that
# ends its part of a parallel region spins briefly, then sleeps -- as hostdnn's pool polls
# briefly, then sleeps.  Each library runs in a process of its own, so the spinning takes no
# time from the others' calls.  WAIT=passive sets OMP_WAIT_POLICY=passive (no spinning: on
# batch-1 calls that costs oneDNN 1.6-1.7x, docs/performance.md).
export OMP_NUM_THREADS=$THREADS HOSTDNN_NUM_THREADS=$THREADS
if [ "${WAIT:-default}" = passive ]; then export OMP_WAIT_POLICY=passive; fi
/usr/bin/python3 -c "import torch" 2>/dev/null || { echo "note: no PyTorch for /usr/bin/python3" >&2; TORCH=0; }
exe=$build/examples/train_net
[ -x "$exe" ] || { echo "$exe not built (HOSTDNN_BUILD_EXAMPLES=ON)" >&2; exit 1; }

raw=$build/bench-train.txt
: > "$raw"
args="--batch $BATCH --image $IMAGE --steps $STEPS"
for r in $(seq 1 "$ROUNDS"); do
  for net in "${nets[@]}"; do
    for layout in nchw nhwc; do
      out=$(HDNET_PROFILE=$PROFILE "$exe" --net "$net" --layout "$layout" $args 2>&1)
      [ "$PROFILE" = 1 ] && printf '%s\n' "$out" | sed -n '/^profile/,$p' >&2
      ms=$(printf '%s\n' "$out" | sed -n 's/^median step: \([0-9.]*\) ms.*CPU time \([0-9.]*\) ms/\1 \2/p')
      echo "$r $net hostdnn-$layout ${ms:-nan nan}" | tee -a "$raw"
      if [ "$TORCH" = 1 ]; then
        ms=$(/usr/bin/python3 "$root/bench/torch_train_step.py" --net "$net" --layout "$layout" $args \
             --threads "$THREADS" 2>&1 | sed -n 's/^median step: \([0-9.]*\) ms.*CPU time \([0-9.]*\) ms/\1 \2/p')
        echo "$r $net torch-$layout ${ms:-nan nan}" | tee -a "$raw"
      fi
    done
  done
done

python3 - "$raw" <<'PY'
import math, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    r, net, lib, ms, cpu = line.split()
    rows.setdefault((net, lib), []).append((float(ms), float(cpu)))
libs = ("hostdnn-nchw", "hostdnn-nhwc", "torch-nchw", "torch-nhwc")
for what, col in (("wall clock", 0), ("CPU time (all threads)", 1)):
    med = {k: statistics.median(x[col] for x in v) for k, v in rows.items()
           if not any(math.isnan(x[col]) for x in v)}
    print("\n%s, median over rounds of each run's median step (ms)\n" % what)
    print("| net | " + " | ".join(libs) + " | torch best / hostdnn-nchw | torch best / hostdnn-nhwc |")
    print("|---" * (len(libs) + 3) + "|")
    for net in dict.fromkeys(k[0] for k in rows):
        cells = ["%.0f" % med[(net, l)] if (net, l) in med else "-" for l in libs]
        best = min([med[(net, l)] for l in libs[2:] if (net, l) in med], default=None)
        ratios = ["%.2f" % (best / med[(net, l)]) if best and (net, l) in med else "-" for l in libs[:2]]
        print("| %s | %s | %s |" % (net, " | ".join(cells), " | ".join(ratios)))
PY
