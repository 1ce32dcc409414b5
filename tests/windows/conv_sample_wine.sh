#!/usr/bin/env bash
# NVIDIA's conv_sample (cudnn_samples_v8), cross-compiled with MinGW-w64 g++ against the
# Windows zip's headers and import libraries (cuda/lib/x64/cudnn.lib, hostcuda cudart.lib)
# and run under Wine with cuda\bin and hostcuda\bin on PATH, as a Windows user would.
#
#   tests/windows/conv_sample_wine.sh ZIP SAMPLES_DIR
#
# SAMPLES_DIR holds the samples, fetched by you (their licence keeps them out of this tree;
# this script downloads nothing): the first folder below it with conv_sample.cpp is used.
# The sources are copied to a scratch folder and never modified.  Two substitutes, as in
# tests/samples/run_nvidia_samples.sh: fp16_dev.cu (a CUDA kernel launch) is replaced by
# tests/samples/fp16_dev_host.cpp; and the sample's timer has only Linux and QNX branches,
# so it is compiled with -D__QNX__ to take the clock_gettime one (MinGW's winpthreads has it).
# The cases: every configuration of the sample's run_conv_sample.sh that checks its result
# ("Test PASSED" against the sample's own CPU reference), its dgrad -fold case, and its one
# small INT8x32 benchmark case (a clean exit is the check; -b runs only time the call).
# Prints one line per case and "N passed, N failed"; without MinGW g++, wine or the samples,
# a SKIP line.
set -u
zip=${1:?usage: conv_sample_wine.sh ZIP SAMPLES_DIR}
src=${2:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
skip() { echo "SKIP: $*"; echo "0 passed, 0 failed"; exit 0; }
CXX=${MINGW_CXX:-x86_64-w64-mingw32-g++}
command -v wine >/dev/null 2>&1 || skip "wine is not installed"
command -v "$CXX" >/dev/null 2>&1 || skip "$CXX is not installed (apt-get install g++-mingw-w64-x86-64)"
[ -n "$src" ] && [ -d "$src" ] || skip "no samples folder given (fetch cudnn_samples_v8; docs/windows.md)"
d=$(find "$src" -name conv_sample.cpp -type f -print -quit 2>/dev/null)
[ -n "$d" ] || skip "conv_sample.cpp not found below $src"
d=$(dirname "$d")
zip=$(cd "$(dirname "$zip")" && pwd)/$(basename "$zip")
. "$root/tools/windows/wine_env.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

cd "$T" && unzip -q "$zip" -d pkg || { echo "FAIL: cannot unpack $zip"; echo "0 passed, 1 failed"; exit 1; }
mkdir w && cp -r "$d"/. w/ && cp "$root/tests/samples/fp16_dev_host.cpp" w/
if ! (cd w && "$CXX" -std=c++11 -O1 -w -D__QNX__ -I../pkg/cuda/include -I../pkg/hostcuda/include -I. \
      conv_sample.cpp fp16_emu.cpp fp16_dev_host.cpp ../pkg/cuda/lib/x64/cudnn.lib \
      ../pkg/hostcuda/lib/x64/cudart.lib -static -lpthread -o conv_sample.exe) >build.log 2>&1; then
  echo "FAIL: conv_sample.exe does not build against the zip:"
  grep -m8 -i error build.log | sed 's/^/    /'
  echo "0 passed, 1 failed"
  exit 1
fi
export WINEPATH="Z:${T//\//\\}\\pkg\\cuda\\bin;Z:${T//\//\\}\\pkg\\hostcuda\\bin"

case_run() {  # NAME EXPECT ARGS...
  local name=$1 expect=$2; shift 2
  (cd w && timeout 600 wine conv_sample.exe "$@") 2>&1 | tr -d '\r' >"$name.out"
  local rc=${PIPESTATUS[0]}
  if [ "$rc" -eq 0 ] && grep -q -- "$expect" "$name.out"; then
    pass=$((pass + 1)); printf 'PASS  %-22s %s\n' "$name" "$*"
  else
    fail=$((fail + 1)); printf 'FAIL  %-22s %s (exit %s)\n' "$name" "$*" "$rc"
    tail -n 6 "$name.out" | sed 's/^/        /'
  fi
}

case_run small_3x3 "Test PASSED" -c16 -h14 -w14 -k8 -r3 -s3 -pad_h1 -pad_w1 -u1 -v1
case_run half_3x3 "Test PASSED" -dataType1 -c16 -h14 -w14 -k8 -r3 -s3 -pad_h1 -pad_w1 -u1 -v1
i=0
if [ -f w/run_conv_sample.sh ]; then
  while read -r line; do
    case $line in ./conv_sample*) ;; *) continue ;; esac
    # shellcheck disable=SC2086
    set -- ${line#./conv_sample}
    case " $* " in
      *" -b "*) case " $* " in *" -c32 "*) ;; *) continue ;; esac   # the large INT8 timing runs are left out
                i=$((i + 1)); case_run "run$i" "Testing conv" "$@" ;;
      *) i=$((i + 1)); case_run "run$i" "Test PASSED" "$@" ;;
    esac
  done <w/run_conv_sample.sh
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
