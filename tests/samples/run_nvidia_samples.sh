#!/usr/bin/env bash
# Build NVIDIA's public samples with plain g++ against an installed hostdnn and run them.
#
#   tests/samples/run_nvidia_samples.sh SAMPLES_DIR [PREFIX]
#
# env HD_INCLUDE_DIR / HD_LIB_DIR: take the headers and libraries from there instead of
# PREFIX/include and PREFIX/lib (tests/scripts/nvidia_samples.sh points them at a build tree).
#
# SAMPLES_DIR holds the sample sources, fetched by you (this script downloads nothing):
# cuDNN 8 samples (conv_sample, mnistCUDNN, multiHeadAttention, RNN, RNN_v8.0 folders, e.g. from
# cudnn_samples_v8) and/or cuda-samples (deviceQuery.cpp plus Common/helper_cuda.h), anywhere
# below it.  PREFIX is hostdnn's install prefix (default /usr/local): PREFIX/include and
# PREFIX/lib.  Sources are copied to a scratch folder and never modified; the substitutes are
# fp16_dev.cu (a CUDA kernel launch), replaced by tests/samples/fp16_dev_host.cpp, and the
# kernel and its launcher in RNN_v8.0's RNN_example.h and in RNN's RNN_example.cu, removed from
# the scratch copy and replaced by tests/samples/rnn_init_host.cpp (see the RNN sections), and
# multiHeadAttention's attn_ref.py, run by Python 3 with one Python 2 integer division made
# explicit ("/" -> "//" in the reshape of load_weights) and nothing else changed.
#
# SAMPLES_ONLY="mha rnn ..." runs only those groups (device conv mnist mha rnn_v8 rnn).
#
# SAMPLES_ALL=1 also runs every configuration of conv_sample's run_conv_sample.sh.
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
incdir=${HD_INCLUDE_DIR:-$prefix/include}
libdir=${HD_LIB_DIR:-$prefix/lib}
inc="-I$incdir"
libs="-L$libdir -Wl,-rpath,$libdir"
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
want() { [ -z "${SAMPLES_ONLY:-}" ] && return 0; case " $SAMPLES_ONLY " in *" $1 "*) return 0 ;; esac; return 1; }
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
if ! want device; then :
elif [ -z "$d" ] || [ -z "$c" ]; then
  report SKIP deviceQuery "deviceQuery.cpp or Common/helper_cuda.h not found"
else
  w=$(stage "$d" deviceQuery)
  build deviceQuery "$w" $inc -I"$c" deviceQuery.cpp $libs -lcudart &&
    run_check deviceQuery "$w" "Result = PASS" ./deviceQuery
fi

# ---- cuDNN samples ----
d=$(find_dir mnistCUDNN.cpp)
if ! want mnist; then :
elif [ -z "$d" ]; then
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
if ! want conv; then :
elif [ -z "$d" ]; then
  report SKIP conv_sample "conv_sample.cpp not found"
else
  w=$(stage "$d" conv_sample)
  cp "$here/fp16_dev_host.cpp" "$w/"
  if build conv_sample "$w" $inc -I. conv_sample.cpp fp16_emu.cpp fp16_dev_host.cpp $libs -lcudart -lcudnn -lm; then
    # Small shapes from run_conv_sample.sh (float, then the default data type).
    run_check conv_sample_3x3 "$w" "Test PASSED" ./conv_sample -c16 -h14 -w14 -k8 -r3 -s3 -pad_h1 -pad_w1 -u1 -v1
    run_check conv_sample_1x1s2 "$w" "Test PASSED" ./conv_sample -c32 -h7 -w7 -k16 -r1 -s1 -pad_h0 -pad_w0 -u2 -v2
    # SAMPLES_ALL=1: every configuration of the sample's own run_conv_sample.sh (several
    # minutes: the INT8 benchmark shapes are large).  Runs with -b only time the convolution,
    # so for them a clean exit is the check; the others must print "Test PASSED".
    if [ "${SAMPLES_ALL:-0}" = 1 ] && [ -f "$w/run_conv_sample.sh" ]; then
      i=0
      while read -r line; do
        case $line in ./conv_sample*) ;; *) continue ;; esac
        i=$((i + 1))
        # shellcheck disable=SC2086
        set -- ${line#./conv_sample}
        case " $* " in
          *" -b "*) run_check "conv_sample_run$i" "$w" "Testing conv" ./conv_sample "$@" ;;
          *) run_check "conv_sample_run$i" "$w" "Test PASSED" ./conv_sample "$@" ;;
        esac
      done < "$w/run_conv_sample.sh"
    fi
  fi
fi

# ---- multiHeadAttention ----
# The sample prints no verdict of its own; it exits non-zero on any cuDNN/CUDA error.  With
# -attnFileDump1 it writes its inputs, weights and results as text, and its attn_ref.py (numpy
# + autograd) recomputes the forward output and every gradient and prints PASS/FAIL per
# result; that reference handles one sequence (batch 1, beam 1), full windows (RandGeom0) and
# no dropout, so the other configurations (batches, beams, random geometry, dropout) must run
# cleanly.  The reference configurations: run_ref.sh's, plus inference, residuals, one and
# eight heads, double data, other layouts and seeds.
mha_ref() {  # NAME ARGS... ; run with file dumps, then the reference: every result must PASS
  local name=$1; shift
  local r=$work/mha_$name
  mkdir -p "$r" && cp "$w/multiHeadAttention" "$r/" && sed 's|np.shape(w)\[0\] / nheads|np.shape(w)[0] // nheads|' \
      "$w/attn_ref.py" >"$r/attn_ref.py"
  if ! (cd "$r" && timeout 900 ./multiHeadAttention -attnFileDump1 "$@") >"$work/$name.out" 2>&1; then
    report FAIL "$name" "the sample failed; last lines:"
    tail -n 5 "$work/$name.out" | sed 's/^/        /'
    return
  fi
  (cd "$r" && timeout 900 python3 attn_ref.py) >"$work/$name.ref" 2>&1
  local np nf
  np=$(grep -c '^PASS: ' "$work/$name.ref")
  nf=$(grep -c '^FAIL: ' "$work/$name.ref")
  local want_n=1
  case " $* " in *" -attnTrain1 "*) want_n=8 ;; esac
  if [ "$nf" -eq 0 ] && [ "$np" -eq "$want_n" ]; then
    report PASS "$name" "attn_ref.py: $np of $want_n results PASS"
  else
    report FAIL "$name" "attn_ref.py: $np PASS, $nf FAIL (of $want_n); last lines:"
    grep -E '^(PASS|FAIL)|Error|error' "$work/$name.ref" | tail -n 8 | sed 's/^/        /'
  fi
}

d=$(find_dir multiHeadAttention.cpp)
if ! want mha; then :
elif [ -z "$d" ]; then
  report SKIP multiHeadAttention "multiHeadAttention.cpp not found"
else
  w=$(stage "$d" multiHeadAttention)
  if build multiHeadAttention "$w" $inc -I. multiHeadAttention.cpp $libs -lcudart -lcudnn -lm; then
    run_check multiHeadAttention "$w" "" ./multiHeadAttention -attnTrain1 -attnDataType0 -attnNumHeads3 \
        -attnBatchSize6 -attnBeamSize1 -attnQsize8 -attnKsize8 -attnVsize8 -attnProjQsize2 -attnProjKsize2 \
        -attnProjVsize2 -attnProjOsize8 -attnResLink0 -attnSeqLenQ3 -attnSeqLenK10
    run_check mha_beams_randgeom "$w" "" ./multiHeadAttention -attnTrain1 -attnNumHeads4 -attnBatchSize5 \
        -attnBeamSize3 -attnQsize16 -attnKsize12 -attnVsize10 -attnProjQsize4 -attnProjKsize4 -attnProjVsize6 \
        -attnProjOsize16 -attnSeqLenQ7 -attnSeqLenK9 -attnRandGeom1 -attnRandSeed7
    run_check mha_dropout "$w" "" ./multiHeadAttention -attnTrain1 -attnNumHeads8 -attnBatchSize4 -attnBeamSize1 \
        -attnQsize32 -attnKsize32 -attnVsize32 -attnProjQsize4 -attnProjKsize4 -attnProjVsize4 -attnProjOsize32 \
        -attnSeqLenQ8 -attnSeqLenK12 -attnDropoutRate0.5
    if ! python3 -c 'import numpy, autograd' 2>/dev/null; then
      report SKIP mha_reference "attn_ref.py needs numpy and autograd (pip install autograd)"
    else
      base="-attnBeamSize1 -attnBatchSize1 -attnRandGeom0"
      mha_ref mha_ref_run_ref_sh -attnTrain1 -attnDataType0 -attnResLink1 -attnDataLayout3 -attnNumHeads3 $base \
          -attnQsize8 -attnKsize8 -attnVsize8 -attnProjQsize2 -attnProjKsize2 -attnProjVsize2 -attnProjOsize8 \
          -attnResLink0 -attnSeqLenQ4 -attnSeqLenK10 -attnSmScaler1.0 -attnRandSeed1234
      mha_ref mha_ref_inference -attnTrain0 -attnNumHeads3 $base -attnQsize8 -attnKsize8 -attnVsize8 \
          -attnProjQsize2 -attnProjKsize2 -attnProjVsize2 -attnProjOsize8 -attnSeqLenQ4 -attnSeqLenK10 -attnRandSeed5
      mha_ref mha_ref_residual -attnTrain1 -attnResLink1 -attnNumHeads2 $base -attnQsize6 -attnKsize5 -attnVsize4 \
          -attnProjQsize3 -attnProjKsize3 -attnProjVsize3 -attnProjOsize6 -attnSeqLenQ5 -attnSeqLenK7 -attnRandSeed11
      mha_ref mha_ref_one_head -attnTrain1 -attnNumHeads1 $base -attnQsize8 -attnKsize8 -attnVsize8 \
          -attnProjQsize4 -attnProjKsize4 -attnProjVsize4 -attnProjOsize8 -attnSeqLenQ6 -attnSeqLenK6 -attnRandSeed3
      mha_ref mha_ref_eight_heads_double -attnTrain1 -attnDataType1 -attnNumHeads8 $base -attnQsize16 -attnKsize16 \
          -attnVsize16 -attnProjQsize2 -attnProjKsize2 -attnProjVsize2 -attnProjOsize16 -attnSeqLenQ3 \
          -attnSeqLenK12 -attnSmScaler0.5 -attnRandSeed21
      for layout in 0 1 2; do
        mha_ref "mha_ref_layout$layout" -attnTrain1 -attnDataLayout$layout -attnNumHeads3 $base -attnQsize8 \
            -attnKsize8 -attnVsize8 -attnProjQsize2 -attnProjKsize2 -attnProjVsize2 -attnProjOsize8 -attnSeqLenQ4 \
            -attnSeqLenK10 -attnRandSeed$((100 + layout))
      done
    fi
  fi
fi

# ---- RNN_v8.0 ----
# The sample keeps its CUDA kernel in RNN_example.h: a template kernel initGPUData_ker and the
# template launcher initGPUData() that starts it with <<<...>>>.  In the scratch copy of that
# header (the original is never touched) exactly those lines -- from the "template" line above
# "__global__" to the closing brace after the "<<<" launch -- are replaced by one declaration of
# initGPUData(); tests/samples/rnn_init_host.cpp defines it as a host loop.  RNN_example.cu
# is then compiled unchanged as C++ (-x c++), with <stdlib.h> pre-included (-include), as nvcc
# does implicitly through cuda_runtime.h.  The checksums of the four documented configurations
# are compared with the sample's golden_N.txt at the tolerances those files give (the sample's
# compare.py is Python 2, so the comparison is done here in awk).
rnn_patch_kernel() {  # FILE ; 0 when the kernel and its launcher were replaced
  local h=$1 s e
  s=$(grep -n '^__global__' "$h" | cut -d: -f1)
  e=$(grep -n 'initGPUData_ker<<<' "$h" | cut -d: -f1)
  case "$s$e" in *[!0-9]* | '') return 1 ;; esac
  [ "$(grep -c '^__global__' "$h")" -eq 1 ] && [ "$(grep -c '<<<' "$h")" -eq 1 ] || return 1
  sed -n "$((s - 1))p" "$h" | grep -q '^template <typename T_ELEM>$' || return 1
  sed -n "$((e + 1))p" "$h" | grep -q '^}$' || return 1
  sed -i "$((s - 1)),$((e + 1))c\\template <typename T_ELEM> void initGPUData(T_ELEM *data, int numElements, T_ELEM value);" "$h"
  ! grep -q '<<<\|__global__' "$h"
}
rnn_patch_header() {  # DIR (RNN_v8.0: the kernel is in RNN_example.h)
  rnn_patch_kernel "$1/RNN_example.h" && ! grep -q '<<<\|__global__' "$1/RNN_example.cu"
}

rnn_compare() {  # RESULT GOLDEN ; prints each checksum off by more than the golden tolerance
  [ -s "$1" ] || { echo "no $1 written"; return 1; }
  awk '
    FNR == 1 { f++ }
    f == 1 { for (i = 1; i < NF; i++) if ($(i + 1) == "checksum") res[$i] = $(i + 2) }
    f == 2 && /GOLDEN/ { sec = 1; next }
    f == 2 && /TOLERANCE/ { sec = 2; next }
    f == 2 && sec == 1 { for (i = 1; i < NF; i++) if ($(i + 1) == "checksum") gold[$i] = $(i + 2) }
    f == 2 && sec == 2 && /type=/ { k = $1; sub(/:$/, "", k); kind[k] = $2; tol[k] = $NF }
    END {
      bad = 0; n = 0
      for (k in gold) {
        n++
        if (!(k in res)) { print "missing " k " checksum"; bad = 1; continue }
        t = res[k] + 0; g = gold[k] + 0; d = t - g; if (d < 0) d = -d
        m = t < 0 ? -t : t; if ((g < 0 ? -g : g) > m) m = g < 0 ? -g : g
        e = kind[k] ~ /abs/ ? d : (m > 0 ? d / m : 0)
        tl = (k in tol) ? tol[k] + 0 : 1e-3
        if (e > tl) { printf "%s checksum %s vs golden %s (error %.2e > %g)\n", k, res[k], gold[k], e, tl; bad = 1 }
      }
      if (n == 0) { print "no checksums in the golden file"; bad = 1 }
      exit bad
    }' "$1" "$2"
}

d=$(find_dir RNN_example.h)
if ! want rnn_v8; then :
elif [ -z "$d" ] || [ ! -f "$d/RNN_example.cu" ]; then
  report SKIP RNN_v8.0 "RNN_example.cu / RNN_example.h (RNN_v8.0) not found"
else
  w=$(stage "$d" RNN_v8.0)
  cp "$here/rnn_init_host.cpp" "$w/"
  if ! rnn_patch_header "$w"; then
    report FAIL RNN_v8.0 "RNN_example.h: the kernel/launcher lines are not where this script expects them"
  elif build RNN "$w" $inc -I. -include stdlib.h -x c++ RNN_example.cu -x none fp16_emu.cpp rnn_init_host.cpp \
      $libs -lcudart -lcudnn -lm; then
    # golden_N.txt: the readme's configuration with cellMode N-1 (RELU, TANH, LSTM, GRU).
    for n in 1 2 3 4; do
      name=RNN_v8.0_golden_$n
      if [ ! -f "$w/golden_$n.txt" ]; then
        report SKIP "$name" "golden_$n.txt not found"
        continue
      fi
      rm -f "$w/result.txt"
      (cd "$w" && timeout 900 ./RNN -dataType1 -seqLength20 -numLayers2 -inputSize512 -hiddenSize512 -projSize512 \
          -miniBatch64 -inputMode1 -dirMode0 -cellMode$((n - 1)) -biasMode3 -algorithm0 -mathPrecision1 -mathType0 \
          -dropout0.0 -printWeights0) >"$work/$name.out" 2>&1
      rc=$?
      if [ $rc -eq 0 ] && (cd "$w" && rnn_compare result.txt "golden_$n.txt") >"$work/$name.cmp" 2>&1; then
        report PASS "$name" "checksums match golden_$n.txt"
      else
        report FAIL "$name" "exit $rc; last lines:"
        tail -n 5 "$work/$name.out" "$work/$name.cmp" 2>/dev/null | sed 's/^/        /'
      fi
    done
    # Other data types, directions and algorithms (no golden values: must run and print dw).
    small="-seqLength7 -numLayers2 -inputSize24 -hiddenSize32 -projSize32 -miniBatch5 -biasMode3 -inputMode1"
    run_check RNN_v8.0_half_lstm "$w" "dw checksum" ./RNN $small -dataType0 -mathPrecision1 -cellMode2
    run_check RNN_v8.0_double_gru_bidir "$w" "dw checksum" ./RNN $small -dataType2 -mathPrecision2 -cellMode3 -dirMode1
    run_check RNN_v8.0_persist_dynamic "$w" "dw checksum" ./RNN $small -dataType1 -mathPrecision1 -cellMode2 \
        -algorithm2
    run_check RNN_v8.0_skip_input "$w" "dw checksum" ./RNN -seqLength7 -numLayers3 -inputSize32 -hiddenSize32 \
        -projSize32 -miniBatch5 -biasMode1 -dataType1 -mathPrecision1 -cellMode0 -inputMode0
    # inter-layer dropout (training): the readme's LSTM configuration with -dropout0.5
    run_check RNN_v8.0_dropout "$w" "dw checksum" ./RNN -dataType1 -seqLength20 -numLayers2 -inputSize512 \
        -hiddenSize512 -projSize512 -miniBatch64 -inputMode1 -dirMode0 -cellMode2 -biasMode3 -algorithm0 \
        -mathPrecision1 -mathType0 -dropout0.5 -printWeights0
    run_check RNN_v8.0_dropout_gru_bidir "$w" "dw checksum" ./RNN $small -dataType1 -mathPrecision1 -cellMode3 \
        -dirMode1 -numLayers3 -dropout0.3
  fi
fi

# ---- RNN (the legacy-API sample: cudnnRNNForwardTraining, cudnnRNNBackwardData/Weights) ----
# Its kernel and launcher sit in RNN_example.cu itself; they are replaced the same way in the
# scratch copy.  Golden checksums: the readme's four configurations (-mode0..3; the sample has
# no -inputSize flag, whatever its readme says: inputSize follows hiddenSize).
d=$(find_dir RNN_example.cu)
for cand in $(find "$src" -name RNN_example.cu -type f 2>/dev/null); do
  [ -f "$(dirname "$cand")/RNN_example.h" ] || { d=$(dirname "$cand"); break; }
  d=""
done
if ! want rnn; then :
elif [ -z "$d" ]; then
  report SKIP RNN_legacy "RNN_example.cu without RNN_example.h (the RNN sample) not found"
else
  w=$(stage "$d" RNN_legacy)
  cp "$here/rnn_init_host.cpp" "$w/"
  if ! rnn_patch_kernel "$w/RNN_example.cu"; then
    report FAIL RNN_legacy "RNN_example.cu: the kernel/launcher lines are not where this script expects them"
  elif build RNN "$w" $inc -I. -include stdlib.h -x c++ RNN_example.cu -x none fp16_emu.cpp rnn_init_host.cpp \
      $libs -lcudart -lcudnn -lm; then
    for n in 1 2 3 4; do
      name=RNN_legacy_golden_$n
      if [ ! -f "$w/golden_$n.txt" ]; then
        report SKIP "$name" "golden_$n.txt not found"
        continue
      fi
      rm -f "$w/result.txt"
      (cd "$w" && timeout 900 ./RNN -seqLength20 -numLayers2 -hiddenSize512 -miniBatch64 -mode$((n - 1))) >"$work/$name.out" 2>&1
      rc=$?
      if [ $rc -eq 0 ] && (cd "$w" && rnn_compare result.txt "golden_$n.txt") >"$work/$name.cmp" 2>&1; then
        report PASS "$name" "checksums match golden_$n.txt"
      else
        report FAIL "$name" "exit $rc; last lines:"
        tail -n 5 "$work/$name.out" "$work/$name.cmp" 2>/dev/null | sed 's/^/        /'
      fi
    done
    small="-seqLength9 -numLayers3 -hiddenSize32 -miniBatch5"
    run_check RNN_legacy_dropout "$w" "dw checksum" ./RNN $small -mode2 -dropout0.5
    run_check RNN_legacy_bidir_gru "$w" "dw checksum" ./RNN $small -mode3 -bidirectional
    run_check RNN_legacy_double "$w" "dw checksum" ./RNN $small -mode1 -Pd
    run_check RNN_legacy_half "$w" "dw checksum" ./RNN $small -mode2 -Ph
    run_check RNN_legacy_persistent "$w" "dw checksum" ./RNN $small -mode0 -algo2
  fi
fi

echo "$pass passed, $fail failed ($skip skipped)"
[ "$fail" -eq 0 ]
