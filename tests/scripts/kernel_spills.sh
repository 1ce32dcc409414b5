#!/usr/bin/env bash
# No GEMM-class micro-kernel keeps an accumulator on the stack.  The kernels hold their C tile
# in vector registers; when the compiler runs out of registers it spills an accumulator, and
# that FMA chain then goes through a store and a reload every k step (the AVX2 6x16 kernel ran
# at 43% of its peak that way).  The sign in the object code is an FMA whose memory operand
# is on the stack.  Checked over the compiled GEMM, indirect GEMM, dot and Winograd-GEMM
# kernels of the build (its optimised objects; a sanitized build spills by design and is
# skipped).  Prints "N passed, N failed".
set -u
. "$(dirname "$0")/../shlib.sh"
if sanitized; then
  skip "kernel register spills: a sanitized build is not optimised"
  finish; exit
fi
if ! command -v objdump >/dev/null 2>&1; then
  skip "kernel register spills: objdump is not installed"
  finish; exit
fi
objs=$(find "$HD_BUILD/CMakeFiles" -path '*src/kernels/*' -name '*.o' 2>/dev/null |
       grep -E '/(gemm|igemm|dot|wino4)/[^/]*(gemm|dot)[^/]*-(avx2|avx512)\.c\.o$' | sort)
if [ -z "$objs" ]; then
  skip "kernel register spills: no kernel objects under $HD_BUILD/CMakeFiles"
  finish; exit
fi
for o in $objs; do
  name=$(basename "$o" .c.o)
  spills=$(objdump -d --no-show-raw-insn "$o" | grep -E 'vfn?m(add|sub)[0-9a-z]*ps|vfn?m(add|sub)[0-9a-z]*pd' |
           grep -E '\(%r(sp|bp)\)' | head -n 3)
  if [ -z "$spills" ]; then ok; else bad "$name: an FMA reads its operand from the stack:
$spills"; fi
done
finish
