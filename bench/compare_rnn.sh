#!/usr/bin/env bash
# RNN speed: hostdnn (public cuDNN v8 RNN calls) vs oneDNN 2.6 (lstm / lbr_gru primitives) vs
# PyTorch (torch.nn.LSTM / GRU), fp32, interleaved over rounds; prints the medians over rounds
# of each library's median time, GFLOP/s and the ratios as a markdown table.
#
#   bench/compare_rnn.sh BUILD_DIR [PROBLEM...]     (PROBLEM as in bench/hostdnn_rnn.c)
#   env: ROUNDS=3 REPS=5 THREADS=2 TORCH=0 (1 adds PyTorch: Debian's build is slow here, minutes per round)
#        BASE=<another build dir>  also times that build's hostdnn_rnn (column "base": an
#        earlier hostdnn, for before/after figures; base / hostdnn > 1 means faster now)
#        ISA=native|avx2  (avx2 caps both hostdnn and oneDNN to AVX2 + FMA: HOSTDNN_MAX_ISA,
#        ONEDNN_MAX_CPU_ISA; PyTorch has no such switch and is left out then)
#
# ratio = the other library's time / hostdnn's time: above 1 hostdnn is faster.  hostdnn's
# "train" is RNNForward(TRAINING) + RNNBackwardData_v8 + RNNBackwardWeights_v8 timed as one;
# oneDNN's is forward_training + its one backward primitive; PyTorch's forward + backward.
set -u
build=${1:?usage: bench/compare_rnn.sh BUILD_DIR [PROBLEM...]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
probs=("$@")
[ ${#probs[@]} -eq 0 ] && probs=(lstm-i512h512t50n32l1d1 gru-i512h512t50n32l1d1 lstm-i1024h1024t50n1l1d1
  gru-i1024h1024t50n1l1d1 lstm-i512h512t50n32l2d2 gru-i512h512t50n32l2d2)
ROUNDS=${ROUNDS:-3}
REPS=${REPS:-5}
THREADS=${THREADS:-2}
TORCH=${TORCH:-0}
ISA=${ISA:-native}
BASE=${BASE:-}
# oneDNN and PyTorch run with their OpenMP defaults, as in a user's program: a thread that
# ends its part of a parallel region spins briefly, then sleeps -- as hostdnn's pool polls
# briefly, then sleeps.  Each library runs in a process of its own, so the spinning takes no
# time from the others' calls.  WAIT=passive sets OMP_WAIT_POLICY=passive (no spinning: on
# batch-1 calls that costs oneDNN 1.6-1.7x, docs/performance.md).
export OMP_NUM_THREADS=$THREADS HOSTDNN_NUM_THREADS=$THREADS
if [ "${WAIT:-default}" = passive ]; then export OMP_WAIT_POLICY=passive; fi
if [ "$ISA" = avx2 ]; then
  export HOSTDNN_MAX_ISA=avx2 ONEDNN_MAX_CPU_ISA=AVX2
  TORCH=0
fi
[ -x "$build/bench/onednn_rnn" ] || echo "note: $build/bench/onednn_rnn not built (libdnnl-dev missing?)" >&2
/usr/bin/python3 -c "import torch" 2>/dev/null || TORCH=0

raw=$build/bench-rnn.txt
: > "$raw"
for r in $(seq 1 "$ROUNDS"); do
  for p in "${probs[@]}"; do
    # Each program with its own build's library: the RUNPATH it carries names the directory it
    # was built in, which a copied build dir no longer matches.
    LD_LIBRARY_PATH="$build/lib" "$build/bench/hostdnn_rnn" --reps "$REPS" "$p" | sed "s/^/$r /" >> "$raw"
    [ -n "$BASE" ] && LD_LIBRARY_PATH="$(cd "$BASE" && pwd)/lib" "$BASE/bench/hostdnn_rnn" --reps "$REPS" "$p" | sed "s/^/$r /; s/ hostdnn / base /" >> "$raw"
    [ -x "$build/bench/onednn_rnn" ] && GLIBC_TUNABLES=glibc.malloc.hugetlb=1 \
      "$build/bench/onednn_rnn" --reps "$REPS" "$p" | sed "s/^/$r /" >> "$raw"
    [ "$TORCH" = 1 ] && GLIBC_TUNABLES=glibc.malloc.hugetlb=1 \
      /usr/bin/python3 "$root/bench/torch_rnn.py" --reps "$REPS" --threads "$THREADS" "$p" | sed "s/^/$r /" >> "$raw"
  done
  echo "round $r of $ROUNDS done" >&2
done

python3 - "$raw" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    r, prob, pas, lib, ms, gf = line.split()
    rows.setdefault((prob, pas, lib), []).append((float(ms), float(gf)))
med = {k: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v), len(v)) for k, v in rows.items()}
libs = [l for l in ("base", "onednn", "torch") if any(k[2] == l for k in med)]
head = "| problem | pass | hostdnn ms | GFLOP/s |" + "".join(" %s ms | GFLOP/s | %s / hostdnn |" % (l, l) for l in libs)
print(head)
print("|" + "---|" * (head.count("|") - 1))
probs = []
for k in med:
    if k[0] not in probs: probs.append(k[0])
for prob in probs:
    for pas in ("inf", "fwd", "bwd_d", "bwd_w", "train"):
        h = med.get((prob, pas, "hostdnn"))
        if not h: continue
        line = "| %s | %s | %.1f | %.1f |" % (prob, pas, h[0], h[1])
        for l in libs:
            o = med.get((prob, pas, l))
            line += " %.1f | %.1f | %.2f |" % (o[0], o[1], o[0] / h[0]) if o else " - | - | - |"
        print(line)
n = max(v[2] for v in med.values())
print("\nmedians over %d rounds" % n)
EOF
