#!/usr/bin/env bash
# make bench-compare: hostdnn, oneDNN 2.6 and PyTorch on the same convolution shapes, side by
# side in one run, then docs/performance.md (the "Convolution" section) and docs/perf-chart.png.
#
#   bench/compare.sh BUILD_DIR [shape-file...]     (default: bench/shapes/report.txt)
#   env: DIRS="fwd bwd_d bwd_w"  ROUNDS=3  REPS=5  BATCHES="16 1"  LIMIT=<first N shapes>  THREADS=2
#        FILTER=<extended regex>: only the shapes whose line matches it (e.g. FILTER='d2|conv2')
#        BATCHES: each shape is run at each of these batch sizes (its n is replaced); "keep" runs
#        the shape files' own batch sizes (BATCH=N is the older spelling of BATCHES=N)
#        ALGO=heuristic|find  (how hostdnn picks its algorithm: the _v7 first choice, as most
#        programs do, or cudnnFind's measured best)
#        FIND=1  also time hostdnn's cudnnFind choice on NCHW (the heuristic-vs-Find column);
#        FIND=0 skips it
#        WAIT=passive: oneDNN and PyTorch with OMP_WAIT_POLICY=passive (default: their own default)
#        TORCH=0 skips PyTorch (quicker runs while tuning); DOCS=DIR writes performance.md and
#        the chart there instead of docs/ (a scratch report that leaves the committed one alone)
#
# The machine is noisy: each round runs every library on a shape before moving on
# (interleaved), and the report takes the median over rounds of each library's median.
set -u
build=${1:?usage: bench/compare.sh BUILD_DIR [shape-file...]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
files=("$@")
[ ${#files[@]} -eq 0 ] && files=("$root/bench/shapes/report.txt")
DIRS=${DIRS:-fwd bwd_d bwd_w}
ROUNDS=${ROUNDS:-3}
REPS=${REPS:-5}
BATCHES=${BATCHES:-${BATCH:-16 1}}
LIMIT=${LIMIT:-1000}
THREADS=${THREADS:-2}
ALGO=${ALGO:-heuristic}
FIND=${FIND:-1}
TORCH=${TORCH:-1}
DOCS=${DOCS:-$root/docs}
mkdir -p "$DOCS"
# oneDNN and PyTorch run with their OpenMP defaults, as in a user's program: a thread that
# ends its part of a parallel region spins briefly, then sleeps -- as hostdnn's pool polls
# briefly, then sleeps.  Each library runs in a process of its own, so the spinning takes no
# time from the others' calls.  WAIT=passive sets OMP_WAIT_POLICY=passive (no spinning: on
# batch-1 calls that costs oneDNN 1.6-1.7x, docs/performance.md).
export OMP_NUM_THREADS=$THREADS HOSTDNN_NUM_THREADS=$THREADS
if [ "${WAIT:-default}" = passive ]; then export OMP_WAIT_POLICY=passive; fi

# The anchors come from Debian; install them when missing (needs root and the package mirror).
need=()
[ -f /usr/include/dnnl.h ] || need+=(libdnnl-dev)
/usr/bin/python3 -c "import torch" 2>/dev/null || need+=(python3-torch)
dpkg -s libopenblas0-openmp >/dev/null 2>&1 || need+=(libopenblas0-openmp)
/usr/bin/python3 -c "import matplotlib" 2>/dev/null || need+=(python3-matplotlib)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing ${need[*]} ..."
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null 2>&1 || \
    echo "warning: could not install ${need[*]}; those columns will be missing"
  cmake -S "$root" -B "$build" >/dev/null && cmake --build "$build" -j 2 >/dev/null
fi

# hostdnn's cudaMalloc puts buffers of 4 MiB or more on 2 MiB pages (docs/cuda-runtime.md);
# oneDNN and PyTorch allocate through glibc's malloc, whose hugetlb tunable does the same for
# them, so that both sides run on the same page size (a fair comparison, not a speed-up for oneDNN).
anchor_env=(GLIBC_TUNABLES=glibc.malloc.hugetlb=1)

out=$build/bench-compare.txt
: > "$out"
base=()
shapes=()
for f in "${files[@]}"; do
  while read -r s; do
    [ -z "$s" ] || [ "${s#\#}" != "$s" ] && continue
    [ -n "${FILTER:-}" ] && ! echo "$s" | grep -Eq -- "$FILTER" && continue
    base+=("$s")
  done < "$f"
done
base=("${base[@]:0:$LIMIT}")
if [ "$BATCHES" = keep ]; then
  shapes=("${base[@]}")
else
  for b in $BATCHES; do
    for s in "${base[@]}"; do shapes+=("$(echo "$s" | sed -E "s/n[0-9]+/n$b/")"); done
  done
fi
total=$(( ${#shapes[@]} * $(echo $DIRS | wc -w) * ROUNDS ))
i=0
for round in $(seq 1 "$ROUNDS"); do
  for d in $DIRS; do
    for s in "${shapes[@]}"; do
      i=$((i + 1))
      printf '\r[%3d/%3d] round %d %-6s %-45s' "$i" "$total" "$round" "$d" "$s" >&2
      for layout in nchw nhwc; do
        "$build/bench/hostdnn_conv" --reps "$REPS" --algo "$ALGO" --dir "$d" --layout "$layout" "$s" >> "$out" 2>/dev/null
      done
      if [ "$FIND" = 1 ] && [ "$ALGO" != find ]; then
        "$build/bench/hostdnn_conv" --reps "$REPS" --algo find --dir "$d" --layout nchw "$s" 2>/dev/null | \
          sed 's/ hostdnn-nchw / hostdnn-nchw_find /' >> "$out"
      fi
      [ -x "$build/bench/onednn_conv" ] && env "${anchor_env[@]}" "$build/bench/onednn_conv" --reps "$REPS" --dir "$d" "$s" >> "$out" 2>/dev/null
      [ "$TORCH" = 1 ] && env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "${anchor_env[@]}" /usr/bin/python3 "$root/bench/torch_conv.py" --reps "$REPS" \
        --threads "$THREADS" --dir "$d" "$s" >> "$out" 2>/dev/null
    done
  done
done
echo >&2
# Peak FLOP/s probe from hostdnn-bench, when built, for the share-of-peak column.  The peak is
# a ceiling, so the best of three probes is taken: a single probe that meets a busy neighbour
# on this shared VM has come out at half the two-thread peak.
peak=""
if [ -x "$build/tools/hostdnn-bench" ]; then
  # the f32 row of the widest ISA --mode=peak measured (avx512, else avx2: a machine without
  # AVX-512 prints "(not available)" there), column threads=$THREADS
  peak=$(for t in 1 2 3; do "$build/tools/hostdnn-bench" --mode=peak --threads="$THREADS" 2>/dev/null | \
    awk '$2 == "f32" && $NF ~ /^[0-9.]+$/ { v = $NF } END { if (v != "") print v }'; done | sort -g | tail -n 1)
fi
/usr/bin/python3 "$root/bench/report.py" "$out" "$DOCS" "${peak:-0}" "$THREADS"
