#!/usr/bin/env bash
# hostdnn-bench command line: problem strings parse to their canonical form, bad ones are
# refused with a reason, a tiny gemm run prints a result line, and conv mode runs small
# problems in both layouts with its correctness and bitwise checks.  "N passed, N failed".
set -u
. "$(dirname "$0")/../shlib.sh"
build=$HD_BUILD
bench=$build/tools/hostdnn-bench
if [ ! -x "$bench" ]; then
  # configured without the benchmarks (HOSTDNN_BUILD_BENCH=OFF): nothing to test
  if grep -q '^HOSTDNN_BUILD_BENCH:BOOL=OFF' "$build/CMakeCache.txt" 2>/dev/null; then
    skip "hostdnn-bench not built (HOSTDNN_BUILD_BENCH=OFF)"
  else
    bad "no $bench"
  fi
  finish
  exit
fi

out=$("$bench" --mode=conv --check=parse g1n16c64h56w56k64r3s3p1u1 mb32c3h224k64r7p3u2 g32c128h28k128r3p1 \
      g1n16c64h56w56k64r3s3p2u1d2_dilated2 2>&1)
for want in "g1n16c64h56w56k64r3s3p1q1u1v1l1j1  output 56x56, 3.699 GFLOP" \
            "g1n32c3h224w224k64r7s7p3q3u2v2l1j1  output 112x112" \
            "g32n1c128h28w28k128r3s3p1q1u1v1l1j1  output 28x28" \
            "g1n16c64h56w56k64r3s3p2q2u1v1l2j2_dilated2  output 56x56"; do
  if echo "$out" | grep -qF "$want"; then ok; else bad "conv parse: want '$want' in: $out"; fi
done
for p in m10n2 x5 m0n1k1 g2c3h5k4r3 c8h3k8r5 n1mb1c1h1k1r1 m1n1k1ta2 m1n1m1k1 ""; do
  if "$bench" --mode=gemm --reps=1 --min-time=0 "$p" >/dev/null 2>&1; then bad "accepted bad problem '$p'"; else ok; fi
done
out=$("$bench" --mode=gemm --threads=2 --reps=1 --min-time=0 m33n17k9ta1 m5n7k300tb1 2>&1)
if echo "$out" | grep -qE '^m33n17k9ta1 +\| thr=1 .*\| thr=2 '; then ok; else bad "gemm line: $out"; fi
if echo "$out" | grep -qE '^m5n7k300tb1 '; then ok; else bad "gemm line 2: $out"; fi
for layout in nchw nhwc; do
  out=$("$bench" --mode=conv --check=all --layout=$layout --reps=1 --min-time=0 --threads=2 \
        g1n2c5h9w7k6r3s3p1u1_a g2n1c8h8k4r3s3p0u2d1_b g1n1c3h11k4r5s5p2u1d2_c g4n2c4h6k4r3s3p1u1_dw 2>&1)
  rc=$?
  lines=$(echo "$out" | grep -c "corr ok.*bitwise identical")
  if [ $rc -eq 0 ] && [ "$lines" -eq 12 ] && echo "$out" | grep -q "conv: 0 problem(s) failed"; then ok
  else bad "conv --check=all $layout (exit $rc, $lines good lines): $out"; fi
done
if "$bench" --mode=conv --check=nope m1 >/dev/null 2>&1; then bad "unknown check accepted"; else ok; fi
if "$bench" --mode=nope >/dev/null 2>&1; then bad "unknown mode accepted"; else ok; fi
if "$bench" --help | grep -q usage; then ok; else bad "--help"; fi
finish
