#!/usr/bin/env bash
# Build NVIDIA's public samples with plain g++ against an installed hostdnn and run them.
#
#   tests/samples/run_nvidia_samples.sh SAMPLES_DIR [PREFIX]
#
# SAMPLES_DIR holds the sample sources, fetched by you (this script downloads nothing):
# cuDNN 8 samples (conv_sample, mnistCUDNN, multiHeadAttention, RNN_v8.0 folders, e.g. from
# cudnn_samples_v8) and/or cuda-samples (deviceQuery.cpp plus Common/helper_cuda.h), anywhere
# below it.  PREFIX is hostdnn's install prefix (default /usr/local): PREFIX/include and
# PREFIX/lib.  Sources are copied to a scratch folder and never modified; the only substitute
# is fp16_dev.cu (a CUDA kernel launch), replaced by tests/samples/fp16_dev_host.cpp.
#
# Prints one line per sample (PASS / FAIL / SKIP and why) and "N passed, N failed".
set -u
src=${1:?usage: run_nvidia_samples.sh SAMPLES_DIR [PREFIX]}
prefix=${2:-/usr/local}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$src" && pwd)
CXX=${CXX:-g++}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
inc="-I$prefix/include"
libs="-L$prefix/lib -Wl,-rpath,$prefix/lib"
export LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
pass=0 fail=0 skip=0

report() {  # STATUS NAME DETAIL
  printf '%-5s %-20s %s\n' "$1" "$2" "$3"
  case $1 in PASS) pass=$((pass + 1)) ;; FAIL) fail=$((fail + 1)) ;; *) skip=$((skip + 1)) ;; esac
}

# Folder of the first file named $1 below SAMPLES_DIR.
find_dir() { local f; f=$(find "$src" -name "$1" -type f -print -quit 2>/dev/null); [ -n "$f" ] && dirname "$f"; }

# Copy a sample folder to the scratch area; echo the copy's path.
stage() { local d=$work/$2; mkdir -p "$d"; cp -r "$1"/. "$d"/; echo "$d"; }

# Run CMD (in DIR) with a time limit; pass if its output contains EXPECT and it exits 0.
run_check() {  # NAME DIR EXPECT CMD...
  local name=$1 dir=$2 expect=$3; shift 3
  (cd "$dir" && timeout 900 "$@") >"$work/$name.out" 2>&1
  local rc=$?
  if [ $rc -eq 0 ] && grep -q -- "$expect" "$work/$name.out"; then
    report PASS "$name" "found \"$expect\""
  else
    report FAIL "$name" "exit $rc; last lines:"
    tail -n 5 "$work/$name.out" | sed 's/^/        /'
  fi
}

build() {  # NAME DIR ARGS... ; compile into DIR/NAME, report on failure
  local name=$1 dir=$2; shift 2
  if ! (cd "$dir" && $CXX -std=c++11 -O1 -w "$@" -o "$name") >"$work/$name.build" 2>&1; then
    report FAIL "$name" "does not build:"
    grep -m5 -i "error" "$work/$name.build" | sed 's/^/        /'
    return 1
  fi
}

# ---- cuda-samples: deviceQuery ----
d=$(find_dir deviceQuery.cpp)
c=$(find_dir helper_cuda.h)
if [ -z "$d" ] || [ -z "$c" ]; then
  report SKIP deviceQuery "deviceQuery.cpp or Common/helper_cuda.h not found"
else
  w=$(stage "$d" deviceQuery)
  build deviceQuery "$w" $inc -I"$c" deviceQuery.cpp $libs -lcudart &&
    run_check deviceQuery "$w" "Result = PASS" ./deviceQuery
fi

# ---- cuDNN samples ----
d=$(find_dir mnistCUDNN.cpp)
if [ -z "$d" ]; then
  report SKIP mnistCUDNN "mnistCUDNN.cpp not found"
elif ! echo '#include <FreeImage.h>' | $CXX $inc -E -x c++ - >/dev/null 2>&1; then
  report SKIP mnistCUDNN "needs FreeImage (FreeImage.h, libfreeimage), e.g. apt-get install libfreeimage-dev"
else
  w=$(stage "$d" mnistCUDNN)
  cp "$here/fp16_dev_host.cpp" "$w/"
  build mnistCUDNN "$w" $inc -I. mnistCUDNN.cpp fp16_emu.cpp fp16_dev_host.cpp $libs \
      -lcudart -lcublas -lcublasLt -lcudnn -lfreeimage -lm &&
    run_check mnistCUDNN "$w" "Test passed!" ./mnistCUDNN
fi

d=$(find_dir conv_sample.cpp)
if [ -z "$d" ]; then
  report SKIP conv_sample "conv_sample.cpp not found"
else
  w=$(stage "$d" conv_sample)
  cp "$here/fp16_dev_host.cpp" "$w/"
  if build conv_sample "$w" $inc -I. conv_sample.cpp fp16_emu.cpp fp16_dev_host.cpp $libs -lcudart -lcudnn -lm; then
    # Small shapes from run_conv_sample.sh (float, then the default data type).
    run_check conv_sample_3x3 "$w" "Test PASSED" ./conv_sample -c16 -h14 -w14 -k8 -r3 -s3 -pad_h1 -pad_w1 -u1 -v1
    run_check conv_sample_1x1s2 "$w" "Test PASSED" ./conv_sample -c32 -h7 -w7 -k16 -r1 -s1 -pad_h0 -pad_w0 -u2 -v2
  fi
fi

d=$(find_dir multiHeadAttention.cpp)
if [ -z "$d" ]; then
  report SKIP multiHeadAttention "multiHeadAttention.cpp not found"
else
  w=$(stage "$d" multiHeadAttention)
  if build multiHeadAttention "$w" $inc -I. multiHeadAttention.cpp $libs -lcudart -lcudnn -lm; then
    # The sample prints no verdict; it exits non-zero on any cuDNN/CUDA error.
    run_check multiHeadAttention "$w" "" ./multiHeadAttention -attnTrain1 -attnDataType0 -attnNumHeads3 \
        -attnBatchSize6 -attnBeamSize1 -attnQsize8 -attnKsize8 -attnVsize8 -attnProjQsize2 -attnProjKsize2 \
        -attnProjVsize2 -attnProjOsize8 -attnResLink0 -attnSeqLenQ3 -attnSeqLenK10
  fi
fi

d=$(find_dir RNN_example.cu)
if [ -n "$d" ] && grep -q '<<<' "$d/RNN_example.cu"; then
  report SKIP RNN_v8.0 "RNN_example.cu launches a CUDA kernel (<<<>>>): not buildable by a host compiler unmodified"
elif [ -z "$d" ]; then
  report SKIP RNN_v8.0 "RNN_example.cu not found"
fi

echo "$pass passed, $fail failed ($skip skipped)"
[ "$fail" -eq 0 ]
