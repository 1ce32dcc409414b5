#!/usr/bin/env bash
# GEMM under every ISA cap: runs test_gemm_ukernels and test_gemm with HOSTDNN_MAX_ISA set to
# scalar, avx2 and avx512, checks that the cap picks the matching kernels (when the hardware
# has that ISA at all), and sums the programs' own counts.  Prints "N passed, N failed".
set -u
build=${HD_BUILD:?run through tests/run_all.sh (HD_BUILD)}
bin=$build/tests/bin
pass=0 fail=0
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
    line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
    if [ -z "$line" ] || [ $rc -ne 0 ]; then
      echo "FAIL $prog with HOSTDNN_MAX_ISA=$cap (exit $rc)"
      echo "$out" | grep -E 'FAIL|error|Sanitizer' | head -n 20
    fi
    if [ -n "$line" ]; then
      pass=$((pass + $(echo "$line" | cut -d' ' -f1)))
      fail=$((fail + $(echo "$line" | cut -d' ' -f3)))
    fi
    [ $rc -ne 0 ] && [ -z "$line" ] && fail=$((fail + 1))
  done
  # The kernels chosen must be those of min(cap, hardware).
  want=$cap
  if [ "$(rank "$cap")" -gt "$(rank "$hw")" ]; then
    want=$hw
    echo "SKIP the $cap kernels under HOSTDNN_MAX_ISA=$cap: this CPU has only $hw"
  fi
  got=$(HOSTDNN_MAX_ISA=$cap "$bin/test_gemm" --names 2>/dev/null | sed -n 's/^default kernels: //p')
  if echo "$got" | grep -q "f32-gemm-[0-9x]*-$want f64-gemm-[0-9x]*-$want (isa $want)"; then
    pass=$((pass + 1))
  else
    echo "FAIL HOSTDNN_MAX_ISA=$cap: kernels '$got', want the $want ones"
    fail=$((fail + 1))
  fi
done
# The unpacked fallback (used when packing memory cannot be allocated) must give the same
# results as the packed path: test_gemm compares with the reference and across thread counts
# and ISAs bitwise, so running it whole with the fallback forced covers it.  Not under the
# sanitizers (slow there, and the plain run already covers the code it shares).
if [ "${HD_MODE:-}" != "--sanitized" ]; then
  out=$(HOSTDNN_GEMM_UNPACKED=1 "$bin/test_gemm" 2>&1)
  rc=$?
  line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
  if [ -n "$line" ]; then
    pass=$((pass + $(echo "$line" | cut -d' ' -f1)))
    fail=$((fail + $(echo "$line" | cut -d' ' -f3)))
  fi
  if [ $rc -ne 0 ] || [ -z "$line" ]; then
    echo "FAIL test_gemm with HOSTDNN_GEMM_UNPACKED=1 (exit $rc)"
    echo "$out" | grep -E 'FAIL|error' | head -n 20
    [ -z "$line" ] && fail=$((fail + 1))
  fi
  # bitwise: the determinism problem's results, per type and ISA, as with packing
  want=$("$bin/test_gemm" 2>/dev/null | grep '^checksum')
  got=$(echo "$out" | grep '^checksum')
  if [ -n "$want" ] && [ "$want" = "$got" ]; then
    pass=$((pass + 1))
  else
    echo "FAIL unpacked fallback results differ from the packed ones:"
    echo "packed:"; echo "$want"; echo "unpacked:"; echo "$got"
    fail=$((fail + 1))
  fi
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
