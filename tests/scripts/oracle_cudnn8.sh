#!/usr/bin/env bash
# Optional: the descriptor differential tests against NVIDIA's real cuDNN 8 (instead of 9).
# NVIDIA's cuDNN 8 runtime is on PyPI; to enable this test:
#   pip download --no-deps nvidia-cudnn-cu11==8.5.0.96 nvidia-cublas-cu11==11.10.3.66 -d /tmp/w
#   (cd /tmp/w && for f in *.whl; do unzip -qo "$f" -d x; done)
#   export HD_CUDNN8_DIR=/tmp/w/x/nvidia
# The wheels are large and never committed; without HD_CUDNN8_DIR this test is skipped.
. "$(dirname "$0")/../shlib.sh"
d=${HD_CUDNN8_DIR:-}
if sanitized; then
  skip "cuDNN 8 oracle: not loaded under the sanitizers"
  finish
  exit
fi
if [ -z "$d" ] || [ ! -f "$d/cudnn/lib/libcudnn_ops_infer.so.8" ]; then
  skip "cuDNN 8 oracle: HD_CUDNN8_DIR${d:+=$d} does not hold NVIDIA's cuDNN 8 wheels (see this script's header)"
  finish
  exit
fi
# NVIDIA's cuDNN is loaded by full path in a namespace of its own (tests/oracle.h); its folder
# must not be on LD_LIBRARY_PATH, where our libcudnn.so.8 would find NVIDIA's sub-libraries.
keep=""
IFS=: read -r -a parts <<<"${LD_LIBRARY_PATH:-}"
for p in "${parts[@]}"; do
  [ -n "$p" ] && [ "$p" != "$d/cudnn/lib" ] && keep=${keep:+$keep:}$p
done
export LD_LIBRARY_PATH=$d/cublas/lib${keep:+:$keep}
for t in "$HD_BUILD"/tests/bin/test_oracle_*; do
  out=$(HD_ORACLE_LIB=$d/cudnn/lib/libcudnn.so.8 "$t" 2>&1)
  rc=$?
  echo "$out" | tail -n 3
  if [ $rc -eq 0 ] && echo "$out" | grep -q "NVIDIA cuDNN 8"; then ok; else bad "$(basename "$t") against cuDNN 8"; fi
done
finish
