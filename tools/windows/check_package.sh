#!/usr/bin/env bash
# Checks of the Windows zip (make check-windows runs them; docs/windows.md):
#   - the layout is exactly NVIDIA's, plus hostcuda/, tools/ and README.md;
#   - each DLL exports exactly the names of its Linux counterpart and imports only Windows
#     system DLLs (and its sibling cuDNN DLLs);
#   - an object compiled for the MSVC ABI links with lld-link against cudnn.lib, and the .exe
#     runs under Wine (the version probe) with cuda/bin on PATH and with the DLLs beside it;
#   - tools/cudnn-doctor.exe from the zip, under Wine, finds cuda/bin and says HEALTHY (8.1.0);
#   - a MinGW program links against the same cudnn.lib; cudart.lib links with lld-link.
#   tools/windows/check_package.sh ZIP [PRIVATE_LIST]
# PRIVATE_LIST (the build's gen/private_ops_infer.txt) names the private hd_ functions that
# cudnn_ops_infer64_8.dll exports for its five siblings, as libcudnn_ops_infer.so.8 does under
# the version node HOSTDNN_PRIVATE_8.1 (docs/architecture.md); without it, any hd_ name counts.
# Closes with "N passed, N failed".
set -u
zip=$(cd "$(dirname "${1:?usage: check_package.sh ZIP [PRIVATE_LIST]}")" && pwd)/$(basename "$1")
private=${2:+$(cd "$(dirname "$2")" && pwd)/$(basename "$2")}
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tools/windows/wine_env.sh"
prefix=${HD_MINGW_PREFIX:-x86_64-w64-mingw32}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
check() { local what=$1; shift; if "$@" >"$tmp/out" 2>&1; then ok; else bad "$what"; sed -n '1,15p' "$tmp/out"; fi; }
winpath() { echo "Z:${1//\//\\}"; }

cd "$tmp" && unzip -q "$zip" -d pkg || { echo "0 passed, 1 failed"; exit 1; }
subs="ops_infer ops_train cnn_infer cnn_train adv_infer adv_train"

# ---- layout ----
{
  echo cuda/bin/cudnn64_8.dll
  for s in $subs; do echo "cuda/bin/cudnn_${s}64_8.dll"; done
  for h in cudnn.h cudnn_version.h cudnn_ops_infer.h cudnn_ops_train.h cudnn_cnn_infer.h \
           cudnn_cnn_train.h cudnn_adv_infer.h cudnn_adv_train.h cudnn_backend.h; do echo "cuda/include/$h"; done
  echo cuda/lib/x64/cudnn.lib; echo cuda/lib/x64/cudnn64_8.lib
  for s in $subs; do echo "cuda/lib/x64/cudnn_$s.lib"; echo "cuda/lib/x64/cudnn_${s}64_8.lib"; done
  echo cuda/LICENSE.txt
} | sort >want_cuda
(cd pkg && find cuda -type f | sort) >have_cuda
check "cuda/ holds exactly the vendor layout" diff want_cuda have_cuda
for f in hostcuda/bin/cudart64_110.dll hostcuda/bin/cublas64_11.dll hostcuda/bin/cublasLt64_11.dll \
         hostcuda/lib/x64/cudart.lib hostcuda/lib/x64/cublas.lib hostcuda/lib/x64/cublasLt.lib \
         hostcuda/include/cuda_runtime.h README.md; do
  check "$f in the zip" test -f "pkg/$f"
done
check "tools/cudnn-doctor.exe and its compat.tsv in the zip" test -f pkg/tools/cudnn-doctor.exe -a -f pkg/tools/compat.tsv
(cd pkg && find . -path ./tools -prune -o -name '*.exe' -print) >stray_exe
check "no programs outside tools/" test ! -s stray_exe

# ---- exports and imports ----
for s in "" $subs; do
  dll=cudnn${s:+_$s}64_8.dll
  map=${s:-cudnn}
  "$root/tools/windows/dll_exports.sh" "pkg/cuda/bin/$dll" "$prefix-objdump" >have_exp
  python3 - "$root" "$map" "$private" have_exp >want_exp <<'PY'
import sys
sys.path.insert(0, sys.argv[1] + "/tools/gen")
import apidata
lib, private, have = sys.argv[2], sys.argv[3], sys.argv[4]
names = [f.name for f in apidata.functions() if lib == "cudnn" or f.library == lib]
if lib == "ops_infer":
    if private:
        names += open(private).read().split()
    else:
        names += [n for n in open(have).read().split() if n.startswith("hd_")]
print("\n".join(sorted(names)))
PY
  LC_ALL=C sort -o want_exp want_exp; LC_ALL=C sort -o have_exp have_exp
  check "$dll exports exactly the Linux library's functions" diff want_exp have_exp
done
for d in pkg/cuda/bin/*.dll pkg/hostcuda/bin/*.dll; do
  "$prefix-objdump" -p "$d" | sed -n 's/^\s*DLL Name: //p' |
    grep -viE '^(kernel32|msvcrt|advapi32|ucrtbase|api-ms-win-.*|cudnn_[a-z_]*64_8)\.dll$' >"foreign" || true
  check "$(basename "$d") needs only Windows system DLLs" test ! -s foreign
done

# ---- MSVC ABI: clang + lld-link against cudnn.lib, run under Wine ----
cc=${CLANG:-$(command -v clang || ls /usr/bin/clang-[0-9]* 2>/dev/null | head -n 1)}
lld=${LLD_LINK:-$(command -v lld-link || ls /usr/bin/lld-link-* 2>/dev/null | head -n 1)}
dlltool=${LLVM_DLLTOOL:-$(command -v llvm-dlltool || ls /usr/bin/llvm-dlltool-* 2>/dev/null | head -n 1)}
printf 'LIBRARY kernel32.dll\nEXPORTS\n    GetStdHandle\n    WriteFile\n    ExitProcess\n' >kernel32.def
"$dlltool" -m i386:x86-64 -d kernel32.def -l kernel32.lib
check "clang compiles the probe for the MSVC ABI" "$cc" --target=x86_64-pc-windows-msvc -ffreestanding -O1 \
  -c "$root/tests/windows/version_probe.c" -o probe.obj
check "lld-link links the probe against cudnn.lib" "$lld" /nologo /entry:mainCRTStartup /subsystem:console \
  /nodefaultlib /out:probe.exe probe.obj pkg/cuda/lib/x64/cudnn.lib kernel32.lib
probe() {   # probe WINEPATH EXE: run it; it prints its own passed/failed line
  local line
  line=$( (if [ -n "$1" ]; then export WINEPATH=$1; else unset WINEPATH; fi; wine "$2") 2>&1 |
    tr -d '\r' | tee probe.log | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
  [ "$line" = "5 passed, 0 failed" ] || { cat probe.log; return 1; }
}
check "version probe, cuda/bin on PATH (8100)" probe "$(winpath "$tmp/pkg/cuda/bin")" probe.exe
mkdir -p side && cp pkg/cuda/bin/*.dll side/ && cp probe.exe side/
check "version probe, DLLs next to the .exe" probe "" side/probe.exe
# cudnn64_8.dll loads its sub-libraries from its own folder first: a decoy
# cudnn_ops_infer64_8.dll (another DLL under that name) next to the .exe must not be used.
mkdir -p own/app own/lib && cp pkg/cuda/bin/*.dll own/lib/ && cp probe.exe own/app/ &&
  cp pkg/hostcuda/bin/cublasLt64_11.dll own/app/cudnn_ops_infer64_8.dll
check "sub-libraries come from cudnn64_8.dll's own folder" probe "$(winpath "$tmp/own/lib")" own/app/probe.exe

# a missing sub-library: the message Windows users of cuDNN know (and search for)
mkdir -p miss && cp pkg/cuda/bin/*.dll probe.exe miss/ && rm miss/cudnn_ops_infer64_8.dll
(unset WINEPATH; wine miss/probe.exe) >miss.log 2>&1
check "a missing sub-library is reported as cuDNN reports it" grep -q \
  "^Could not load library cudnn_ops_infer64_8.dll. Error code 126" miss.log

# ---- the zip's own doctor, run as a user would after unpacking: it finds cuda/bin on PATH,
# loads the shim, and reports this release with all six sub-libraries ----
doctor() {
  (export WINEPATH=$(winpath "$tmp/pkg/cuda/bin"); wine pkg/tools/cudnn-doctor.exe --no-color) 2>&1 |
    tr -d '\r' >doctor.log
  grep -qE "^cudnn-doctor: HEALTHY: cudnn64_8.dll -> .*cudnn64_8.dll \(hostdnn cuDNN 8.1.0\)" doctor.log &&
    grep -q "cudnnGetVersion 8100" doctor.log && grep -q "sub-libraries: 6 of 6 present" doctor.log ||
    { cat doctor.log; return 1; }
}
check "cudnn-doctor.exe from the zip reports the zip's cuDNN 8.1.0 as HEALTHY" doctor

# ---- the same import library with MinGW's linker ----
cat >mingw.c <<'C'
#include <stdio.h>
#include <cudnn.h>
int main(void)
{
    size_t v = cudnnGetVersion();
    printf("%d passed, %d failed\n", v == CUDNN_VERSION, v != CUDNN_VERSION);
    return v != CUDNN_VERSION;
}
C
check "MinGW links against cudnn.lib" "$prefix-gcc" mingw.c -Ipkg/cuda/include -Ipkg/hostcuda/include \
  pkg/cuda/lib/x64/cudnn.lib -o mingw.exe
check "the MinGW program runs" env WINEPATH="$(winpath "$tmp/pkg/cuda/bin")" wine mingw.exe

# ---- host CUDA runtime: MSVC ABI against cudart.lib ----
cat >rt.c <<'C'
__declspec(dllimport) int cudaRuntimeGetVersion(int *v);
__declspec(dllimport) void __stdcall ExitProcess(unsigned int code);
void mainCRTStartup(void)
{
    int v = 0;
    ExitProcess(cudaRuntimeGetVersion(&v) == 0 && v == 11020 ? 0u : 1u);
}
C
check "lld-link links against hostcuda cudart.lib" sh -c "'$cc' --target=x86_64-pc-windows-msvc -ffreestanding -c rt.c -o rt.obj &&
  '$lld' /nologo /entry:mainCRTStartup /subsystem:console /nodefaultlib /out:rt.exe rt.obj pkg/hostcuda/lib/x64/cudart.lib kernel32.lib"
check "cudaRuntimeGetVersion() == 11020 under Wine" env WINEPATH="$(winpath "$tmp/pkg/hostcuda/bin")" wine rt.exe

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
