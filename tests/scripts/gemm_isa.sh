#!/usr/bin/env bash
# GEMM under every ISA cap: runs test_gemm_ukernels and test_gemm with HOSTDNN_MAX_ISA set to
# scalar, avx2 and avx512, checks that the cap picks the matching kernels (when the hardware
# has that ISA at all), and sums the programs' own counts.  Prints "N passed, N failed".
set -u
. "$(dirname "$0")/../shlib.sh"
bin=$HD_BUILD/tests/bin
hw=$(HOSTDNN_MAX_ISA= "$bin/test_gemm_ukernels" 2>/dev/null | sed -n 's/^cpu isa in effect: \([a-z0-9]*\).*/\1/p')
rank() { case $1 in scalar) echo 0;; avx2) echo 1;; avx512) echo 2;; *) echo -1;; esac; }
# Under the sanitizers test_gemm already covers every kernel family in one process (its own
# run); only the micro-kernel tests and the kernel choice are repeated per cap, to stay fast.
progs="test_gemm_ukernels test_gemm"
[ "${HD_MODE:-}" = "--sanitized" ] && progs="test_gemm_ukernels"
for cap in scalar avx2 avx512; do
  for prog in $progs; do
    out=$(HOSTDNN_MAX_ISA=$cap "$bin/$prog" 2>&1)
    rc=$?
    if ! add_counts "$out"; then
      bad "$prog with HOSTDNN_MAX_ISA=$cap (exit $rc): no closing line"
    elif [ $rc -ne 0 ]; then
      echo "FAIL $prog with HOSTDNN_MAX_ISA=$cap (exit $rc)"
    fi
    [ $rc -ne 0 ] && echo "$out" | grep -E 'FAIL|error|Sanitizer' | head -n 20
  done
  # The kernels chosen must be those of min(cap, hardware).
  want=$cap
  if [ "$(rank "$cap")" -gt "$(rank "$hw")" ]; then
    want=$hw
    skip "the $cap kernels under HOSTDNN_MAX_ISA=$cap: this CPU has only $hw"
  fi
  got=$(HOSTDNN_MAX_ISA=$cap "$bin/test_gemm" --names 2>/dev/null | sed -n 's/^default kernels: //p')
  if echo "$got" | grep -q "f32-gemm-[0-9x]*-$want f64-gemm-[0-9x]*-$want (isa $want)"; then ok
  else bad "HOSTDNN_MAX_ISA=$cap: kernels '$got', want the $want ones"; fi
done
# The unpacked fallback (used when packing memory cannot be allocated) must give the same
# results as the packed path: test_gemm compares with the reference and across thread counts
# and ISAs bitwise, so running it whole with the fallback forced covers it.  Not under the
# sanitizers (slow there, and the plain run already covers the code it shares).
if [ "${HD_MODE:-}" != "--sanitized" ]; then
  out=$(HOSTDNN_GEMM_UNPACKED=1 "$bin/test_gemm" 2>&1)
  rc=$?
  if ! add_counts "$out"; then
    bad "test_gemm with HOSTDNN_GEMM_UNPACKED=1 (exit $rc): no closing line"
  elif [ $rc -ne 0 ]; then
    echo "FAIL test_gemm with HOSTDNN_GEMM_UNPACKED=1 (exit $rc)"
  fi
  [ $rc -ne 0 ] && echo "$out" | grep -E 'FAIL|error' | head -n 20
  # bitwise: the determinism problem's results, per type and ISA, as with packing
  want=$("$bin/test_gemm" 2>/dev/null | grep '^checksum')
  got=$(echo "$out" | grep '^checksum')
  if [ -n "$want" ] && [ "$want" = "$got" ]; then ok
  else
    bad "unpacked fallback results differ from the packed ones:"
    echo "packed:"; echo "$want"; echo "unpacked:"; echo "$got"
  fi
fi
finish
