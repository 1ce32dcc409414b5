#!/usr/bin/env bash
# NVIDIA's cuDNN 8 samples against this build tree, in make check: conv_sample, mnistCUDNN,
# multiHeadAttention (with its attn_ref.py reference), RNN_v8.0 and RNN (golden checksums,
# dropout), built with plain g++ by tests/samples/run_nvidia_samples.sh.
#
# The samples are not in this tree (their licence keeps them out) and CI cannot fetch them:
# set HOSTDNN_SAMPLES to a checkout of cudnn_samples_v8 (e.g. github.com/johnpzh/cudnn_samples_v8)
# to run them; without it this prints a SKIP line.  Not run in the sanitized pass (the
# samples are plain programs; the library calls they make are covered by the unit tests there).
set -u
. "$(dirname "$0")/../shlib.sh"
if sanitized; then
  skip "NVIDIA samples: not run in the sanitized pass"
elif [ -z "${HOSTDNN_SAMPLES:-}" ] || [ ! -d "${HOSTDNN_SAMPLES:-}" ]; then
  skip "NVIDIA samples: set HOSTDNN_SAMPLES to a cudnn_samples_v8 checkout to run them (docs/rnn.md)"
elif ! command -v g++ >/dev/null 2>&1; then
  skip "NVIDIA samples: g++ is not installed"
else
  out=$(HD_INCLUDE_DIR=$HD_ROOT/include HD_LIB_DIR=$HD_BUILD/lib SAMPLES_ONLY=${SAMPLES_ONLY:-"conv mha rnn_v8 rnn"} \
        bash "$HD_ROOT/tests/samples/run_nvidia_samples.sh" "$HOSTDNN_SAMPLES" 2>&1)
  printf '%s\n' "$out" | grep -E '^(PASS|FAIL|SKIP)|^        ' | sed 's/^SKIP /SKIP NVIDIA sample /'
  line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
  if [ -n "$line" ]; then
    set -- $line
    passed=$((passed + $1)); failed=$((failed + ${3%,}))
  else
    bad "run_nvidia_samples.sh printed no closing line"
  fi
  n=$(printf '%s\n' "$out" | grep -c '^SKIP ')
  skipped=$((skipped + n))
fi
finish
