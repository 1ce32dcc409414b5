#!/usr/bin/env bash
# ABI cross-check of hostdnn's CUDA runtime / cuBLAS headers against an installed CUDA toolkit
# (CUDA_INC, default /usr/local/cuda/include; skipped when absent):
#  - every enumerator and flag macro of ours that the toolkit also defines has the same value;
#  - struct cudaDeviceProp: fields in the common prefix sit at the same offsets, fields the
#    toolkit still has come in the same order with the same sizes, and the fields CUDA 12/13
#    dropped are exactly the ones docs/cuda-runtime.md lists;
#  - struct cudaPointerAttributes: same offsets; vector types (float4, dim3 ...): same size and alignment.
# Prints "N passed, N failed".
set -u
. "$(dirname "$0")/../shlib.sh"
root=$HD_ROOT
cuda=${CUDA_INC:-/usr/local/cuda/include}
if [ ! -f "$cuda/driver_types.h" ] || ! command -v g++ >/dev/null; then
  skip "no CUDA toolkit headers at $cuda (or no g++)"
  finish
  exit
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$root/include" "$cuda" "$work" <<'PY'
import re, sys, os
ours, cuda, work = sys.argv[1:4]
def text(d, names):
    return "\n".join(open(os.path.join(d, n)).read() for n in names if os.path.exists(os.path.join(d, n)))
files = ["driver_types.h", "library_types.h", "cublas_api.h"]
mine, theirs = text(ours, files), text(cuda, files)
strip = lambda s: re.sub(r"/\*.*?\*/", "", re.sub(r"//[^\n]*", "", s, flags=re.S), flags=re.S)
mine, theirs_clean = strip(mine), strip(theirs)
enums = sorted(set(re.findall(r"\b((?:cuda|CUDA_|CUBLAS_)\w*)\s*=", mine)))
macros = sorted(set(re.findall(r"#define\s+(cuda(?:Stream|Event|HostAlloc|HostRegister|MemAttach|Device)\w*)\s+0x", mine)))
common = [n for n in enums + macros if re.search(r"\b%s\b" % re.escape(n), theirs_clean)]
values = "".join('  std::printf("V %%s %%lld\\n", "%s", (long long)(%s));\n' % (n, n) for n in common)
# cudaDeviceProp fields
def fields(src, struct):
    m = re.search(r"struct\s+(?:__device_builtin__\s+)?%s\s*\{(.*?)\};" % struct, src, re.S)
    out = []
    for decl in m.group(1).split(";"):
        decl = decl.strip()
        mm = re.match(r"(.*?)\b(\w+)\s*(\[[^\]]*\])?$", decl, re.S)
        if decl and mm:
            out.append(mm.group(2))
    return out
fo, ft = fields(mine, "cudaDeviceProp"), fields(theirs_clean, "cudaDeviceProp")
po, pt = fields(mine, "cudaPointerAttributes"), fields(theirs_clean, "cudaPointerAttributes")
open(os.path.join(work, "fields_ours"), "w").write("\n".join(fo))
open(os.path.join(work, "fields_theirs"), "w").write("\n".join(ft))
def layout(fl, pl):
    s = '#include <cstdio>\n#include <cstddef>\n#include <driver_types.h>\n#include <library_types.h>\n#include <cublas_api.h>\n#include <vector_types.h>\nint main() {\n' + values
    s += '  std::printf("sizeof %zu\\n", sizeof(cudaDeviceProp));\n'
    for n in fl:
        s += '  std::printf("%s %%zu %%zu\\n", offsetof(cudaDeviceProp, %s), sizeof(((cudaDeviceProp*)0)->%s));\n' % (n, n, n)
    for n in pl:
        s += '  std::printf("ptr.%s %%zu\\n", offsetof(cudaPointerAttributes, %s));\n' % (n, n)
    for b in ["char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "longlong", "ulonglong",
              "float", "double"]:
        for n in (1, 2, 3, 4):
            t = "%s%d" % (b, n)
            s += '  std::printf("vec.%s %%zu %%zu\\n", sizeof(%s), alignof(%s));\n' % (t, t, t)
    s += '  std::printf("vec.dim3 %zu %zu\\n", sizeof(dim3), alignof(dim3));\n'
    return s + "  return 0;\n}\n"
open(os.path.join(work, "prog_ours.cpp"), "w").write(layout(fo, [p for p in po if p in pt]))
open(os.path.join(work, "prog_theirs.cpp"), "w").write(layout(ft, [p for p in po if p in pt]))
PY


for side in ours theirs; do
  inc=$root/include; [ $side = theirs ] && inc=$cuda
  if g++ -std=c++11 -O0 -w -I"$inc" "$work/prog_$side.cpp" -o "$work/prog_$side" 2>"$work/err_$side"; then
    "$work/prog_$side" >"$work/out_$side"
    grep '^V ' "$work/out_$side" | cut -c3- >"$work/v_$side"
    grep -v '^V ' "$work/out_$side" >"$work/l_$side"
  else
    bad "the check program does not compile against $side headers"; sed -n 1,10p "$work/err_$side"
  fi
done
[ -s "$work/v_ours" ] && [ -s "$work/v_theirs" ] && {
  n=$(wc -l <"$work/v_ours")
  # Values that changed after CUDA 11.2 (documented in docs/cuda-runtime.md): name=11.2 value.
  changed=" cudaDeviceMask=31 "
  while read -r name val; do
    tv=$(grep -m1 "^$name " "$work/v_theirs" | cut -d' ' -f2)
    if [ "$tv" = "$val" ]; then ok
    elif [[ $changed == *" $name=$val "* ]]; then ok
    else bad "$name = $val here, $tv in $cuda"; fi
  done <"$work/v_ours"
  echo "compared $n enumerators and flags"
}
[ -s "$work/l_ours" ] && [ -s "$work/l_theirs" ] && {
  # common prefix: identical offsets
  prefix=1
  paste -d' ' "$work/fields_ours" "$work/fields_theirs" >"$work/pairs"
  while read -r a b; do
    [ "$a" = "$b" ] || { prefix=0; break; }
    oa=$(grep -m1 "^$a " "$work/l_ours" | cut -d' ' -f2-); ob=$(grep -m1 "^$a " "$work/l_theirs" | cut -d' ' -f2-)
    if [ "$oa" = "$ob" ]; then ok; else bad "cudaDeviceProp.$a at/size $oa here, $ob in $cuda"; fi
  done <"$work/pairs"
  # fields both have: same order and same size
  grep -x -F -f "$work/fields_theirs" "$work/fields_ours" >"$work/common_ours"
  grep -x -F -f "$work/fields_ours" "$work/fields_theirs" >"$work/common_theirs"
  if cmp -s "$work/common_ours" "$work/common_theirs"; then ok; else bad "common cudaDeviceProp fields are in a different order"; fi
  while read -r f; do
    sa=$(grep -m1 "^$f " "$work/l_ours" | cut -d' ' -f3); sb=$(grep -m1 "^$f " "$work/l_theirs" | cut -d' ' -f3)
    if [ "$sa" = "$sb" ]; then ok; else bad "cudaDeviceProp.$f is $sa bytes here, $sb in $cuda"; fi
  done <"$work/common_ours"
  # the fields CUDA 11.2 has and newer toolkits dropped (documented in docs/cuda-runtime.md)
  dropped=$(grep -v -x -F -f "$work/fields_theirs" "$work/fields_ours" | tr '\n' ' ')
  expect="clockRate deviceOverlap kernelExecTimeoutEnabled computeMode maxTexture1DLinear memoryClockRate singleToDoublePrecisionPerfRatio cooperativeMultiDeviceLaunch "
  if [ -z "$dropped" ] || [ "$dropped" = "$expect" ]; then ok; else bad "fields missing from $cuda: '$dropped', documented: '$expect'"; fi
  s=$(grep -m1 "^sizeof " "$work/l_ours" | cut -d' ' -f2)
  if [ "$s" = 728 ]; then ok; else bad "sizeof(cudaDeviceProp) is $s, CUDA 11.2 has 728"; fi
  # vector types: size and alignment
  while read -r name sz al; do
    t=$(grep -m1 "^$name " "$work/l_theirs" | cut -d' ' -f2-)
    if [ "$t" = "$sz $al" ]; then ok
    else bad "$name: size/align $sz $al here, $t in $cuda"; fi
  done < <(grep "^vec\." "$work/l_ours")
  grep "^ptr\." "$work/l_ours" >"$work/p_ours"; grep "^ptr\." "$work/l_theirs" >"$work/p_theirs"
  if [ -s "$work/p_ours" ] && cmp -s "$work/p_ours" "$work/p_theirs"; then ok; else bad "cudaPointerAttributes offsets differ"; fi
}
finish
