#!/usr/bin/env bash
# cudnn-doctor.exe on a Windows machine, under Wine: fake cuDNN DLLs built here with
# MinGW-w64 (each answering a chosen cudnnGetVersion; one that crashes, one that hangs, one
# that behaves like NVIDIA's shim and prints "Could not load library ... Error code 126"),
# staged in a private WINEPREFIX to reproduce the classic failures: no DLL, an older copy
# earlier on PATH, a missing sub-library, a copy in the program's folder against one on
# PATH, a crashing copy, a missing zlibwapi.dll, a missing driver.  Each must give its
# finding and its fix.  Prints "N passed, N failed"; without wine or MinGW, a SKIP line.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
skip() { echo "SKIP: $*"; echo "0 passed, 0 failed"; exit 0; }
CC=${MINGW_CC:-x86_64-w64-mingw32-gcc}
RC=${MINGW_WINDRES:-x86_64-w64-mingw32-windres}
command -v wine >/dev/null 2>&1 || skip "wine is not installed (apt-get install wine64)"
command -v "$CC" >/dev/null 2>&1 || skip "$CC is not installed (apt-get install gcc-mingw-w64-x86-64)"
command -v "$RC" >/dev/null 2>&1 || skip "$RC is not installed (binutils-mingw-w64-x86-64)"

t_start=$(date +%s)
T=$(mktemp -d "${TMPDIR:-/tmp}/doctor-wine.XXXXXX")
export WINEPREFIX=$T/prefix WINEARCH=win64 WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
unset CUDA_PATH WINEPATH
cleanup() {
  wineserver -k >/dev/null 2>&1
  rm -rf "$T"
}
trap cleanup EXIT

# the prefix is made once, while the DLLs compile (wineboot takes tens of seconds); a
# persistent wineserver saves its start on every run after that
wineserver -p >/dev/null 2>&1
wine wineboot -i >"$T/wineboot.log" 2>&1 &
boot=$!

F=$T/f
mkdir -p "$F"
cat >"$F/fake.c" <<'C'
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <windows.h>
#ifndef VER
#define VER 8100
#endif
__declspec(dllexport) size_t cudnnGetVersion(void)
{
#ifdef CRASH
    *(volatile int *)0 = 1;
#endif
#ifdef HANG
    for (;;)
        Sleep(1000);
#endif
#ifdef NVLOAD /* NVIDIA's shim: the sub-library on first use, its words, abort() */
    if (!LoadLibraryA("cudnn_cnn_infer64_8.dll")) {
        printf("Could not load library cudnn_cnn_infer64_8.dll. Error code %lu\nPlease make sure "
               "cudnn_cnn_infer64_8.dll is in your library path!\n", (unsigned long)GetLastError());
        abort();
    }
#endif
    return VER;
}
__declspec(dllexport) size_t cudnnGetCudartVersion(void) { return 11020; }
#ifdef ZLIB
__declspec(dllimport) unsigned long zlibCompileFlags(void);
__declspec(dllexport) unsigned long fake_zlib(void) { return zlibCompileFlags(); }
#endif
#ifdef DRV
__declspec(dllimport) int cuDriverGetVersion(int *);
__declspec(dllexport) int fake_drv(int *v) { return cuDriverGetVersion(v); }
#endif
#ifdef CRASHLOAD
BOOL WINAPI DllMain(HINSTANCE h, DWORD r, LPVOID p)
{
    (void)h;
    (void)p;
    if (r == DLL_PROCESS_ATTACH)
        *(volatile int *)0 = 1;
    return TRUE;
}
#endif
C
printf '__declspec(dllexport) unsigned long zlibCompileFlags(void) { return 0; }\n' >"$F/z.c"
printf '__declspec(dllexport) int cuDriverGetVersion(int *v) { *v = 11020; return 0; }\n' >"$F/drv.c"
printf '__declspec(dllexport) int cublasLtCreate(void **p) { *p = 0; return 0; }\n' >"$F/lt.c"
printf '#include <stddef.h>\n__declspec(dllimport) size_t cudnnGetVersion(void);\nint main(void) { return (int)cudnnGetVersion() == 0; }\n' >"$F/prog.c"
verrc() { printf '1 VERSIONINFO\nFILEVERSION %s\nPRODUCTVERSION %s\nBEGIN\nEND\n' "$2" "$2" >"$F/$1.rc"; "$RC" -O coff -o "$F/$1.o" "$F/$1.rc"; }
dll() { local out=$1; shift; mkdir -p "$(dirname "$F/$out")"; "$CC" -shared -O1 -o "$F/$out" "$@" || echo "cc failed: $out" >>"$F/errors"; }
verrc v84 8,4,0,27
verrc drvver 31,0,15,3623
dll zlib/zlibwapi.dll "$F/z.c"
dll drv/nvcuda.dll "$F/drv.c" "$F/drvver.o"
dll lt/cublasLt64_11.dll "$F/lt.c"
# two at a time: the machine is shared
{ dll v81/cudnn64_8.dll -DVER=8100 "$F/fake.c"; dll v805/cudnn64_8.dll -DVER=8005 "$F/fake.c"; } &
{ dll v84/cudnn64_8.dll -DVER=8400 "$F/fake.c"; dll crash/cudnn64_8.dll -DCRASH "$F/fake.c"; } &
wait $(jobs -p | grep -v "^$boot\$") 2>/dev/null
{ dll nv84/cudnn64_8.dll -DVER=8400 -DNVLOAD "$F/fake.c" "$F/v84.o"; dll subz/cudnn_cnn_infer64_8.dll -DVER=8400 -DZLIB "$F/fake.c" "$F/zlib/zlibwapi.dll"; } &
{ dll subd/cudnn_cnn_infer64_8.dll -DVER=8400 -DDRV "$F/fake.c" "$F/drv/nvcuda.dll"; dll hang/cudnn64_8.dll -DHANG "$F/fake.c"; } &
dll crashload/cudnn64_8.dll -DCRASHLOAD "$F/fake.c"
"$CC" -O1 -o "$F/prog.exe" "$F/prog.c" "$F/v805/cudnn64_8.dll" || echo "cc failed: prog.exe" >>"$F/errors"
mkdir -p "$T/bin"
"$root/tools/doctor/build-windows.sh" "$T/bin" || echo "build-windows.sh failed" >>"$F/errors"
wait
if [ -s "$F/errors" ]; then
  cat "$F/errors"
  echo "0 passed, 1 failed"
  exit 1
fi
t_built=$(date +%s)

C=$WINEPREFIX/drive_c
SYS=$C/windows/system32
if [ ! -d "$SYS" ]; then cat "$T/wineboot.log"; echo "FAIL: wineboot made no prefix"; echo "0 passed, 1 failed"; exit 1; fi
W=$C/t
mkdir -p "$W/bin"
cp "$T/bin/cudnn-doctor.exe" "$T/bin/compat.tsv" "$W/bin/"
SUBS="ops_infer ops_train cnn_infer cnn_train adv_infer adv_train"
# stage DIR SHIM SUB: cudnn64_8.dll plus the six sub-libraries
stage() {
  mkdir -p "$W/$1"
  cp "$F/$2/cudnn64_8.dll" "$W/$1/cudnn64_8.dll"
  for s in $SUBS; do cp "$F/$3/cudnn64_8.dll" "$W/$1/cudnn_${s}64_8.dll"; done
}
stage good v81 v81
cp "$F/lt/cublasLt64_11.dll" "$W/good/"
stage old v805 v805
cp "$F/drv/nvcuda.dll" "$SYS/nvcuda.dll"

out=$T/out
# wrun 'WINEPATH' ARGS...: the doctor under wine with that PATH prefix
wrun() {
  local wp=$1; shift
  WINEPATH=$wp wine 'C:\t\bin\cudnn-doctor.exe' --no-color "$@" >"$out" 2>&1
  rc=$?
  tr -d '\r' <"$out" >"$out.n" && mv "$out.n" "$out"
}
expect() {
  local name=$1 want=$2; shift 2
  if [ "$rc" != "$want" ]; then bad "$name: exit $rc, want $want"; sed -n '1,60p' "$out" | sed 's/^/    /'; return; fi
  ok
  for p in "$@"; do
    if grep -qE -- "$p" "$out"; then ok; else bad "$name: no match for /$p/"; sed -n '1,60p' "$out" | sed 's/^/    /'; fi
  done
}
absent() {
  local name=$1; shift
  for p in "$@"; do
    if grep -qE -- "$p" "$out"; then bad "$name: unexpected /$p/"; else ok; fi
  done
}
B='\\' # a backslash in a pattern

# ---------- 1. healthy: cuDNN 8.1.0 on PATH, the driver in System32, cuBLASLt beside it ----------
wrun 'C:\t\good'
expect healthy 0 "^cudnn-doctor: HEALTHY: cudnn64_8.dll -> C:${B}t${B}good${B}cudnn64_8.dll \(NVIDIA cuDNN 8.1.0\)" \
  "NVIDIA cuDNN 8.1.0 \(cudnnGetVersion 8100, built for CUDA 11.2\); found via PATH -- this is the one a program loads" \
  "sub-libraries: 6 of 6 present" "driver: 536.23 \(CUDA API 11.2\)" "info  \[driver-ok\] driver 536.23 meets CUDA 11.2" \
  "\[win-python-path\].*fix: in Python, call os.add_dll_directory|os.add_dll_directory\(r\"C:${B}t${B}good\"\)"
absent healthy "ERROR" "WARN "
wrun 'C:\t\good' snapshot 'C:\t\a.json'
expect snapshot 0 "snapshot written to C:${B}t${B}a.json"
wrun 'C:\t\good' --json
expect json 0 '"os": "windows"' '"mode": "plain program"' '"probe": "ok"' '"cudnnGetVersion": 8100' '"cudnn64_8.dll": "C:\\\\t\\\\good\\\\cudnn64_8.dll"'

# ---------- 2. DLL not found ----------
wrun ''
expect not-found 1 "ERROR \[win-no-cudnn\] no cudnn64_7/8/9.dll anywhere on the DLL search path of a plain program" \
  "fix: install cuDNN .* and add its bin folder to PATH, or copy the DLLs into the program's folder"
# installed under CUDA_PATH but not on PATH: the fix names the folder
mkdir -p "$W/cuda/bin"; cp "$W/good/"*.dll "$W/cuda/bin/"
CUDA_PATH='C:\t\cuda' wrun ''
expect not-on-path 1 "ERROR \[win-not-on-search-path\] cudnn64_8.dll is installed at C:${B}t${B}cuda${B}bin${B}cudnn64_8.dll \(CUDA_PATH\)" \
  "fix: put C:${B}t${B}cuda${B}bin first on PATH \(set PATH=C:${B}t${B}cuda${B}bin;%PATH%" "toolkit C:${B}t${B}cuda"
CUDA_PATH='C:\t\nowhere' wrun 'C:\t\good'
expect cuda-path-bad 0 "WARN  \[cuda-path-missing\] CUDA_PATH=C:${B}t${B}nowhere names a folder that does not exist"

# ---------- 3. an 8.0.5 copy earlier on PATH shadows 8.1.0 ----------
wrun 'C:\t\old;C:\t\good'
expect shadowed 0 "OK WITH WARNINGS" \
  "WARN  \[win-shadowed\] C:${B}t${B}old${B}cudnn64_8.dll \(NVIDIA cuDNN 8.0.5, via PATH\) shadows C:${B}t${B}good${B}cudnn64_8.dll \(NVIDIA cuDNN 8.1.0, via PATH\)" \
  "fix: put C:${B}t${B}good before C:${B}t${B}old on PATH \(set PATH=C:${B}t${B}good;%PATH%\)"
wrun 'C:\t\old;C:\t\good' --strict
expect shadowed-strict 1
wrun 'C:\t\old;C:\t\good' snapshot 'C:\t\b.json'
expect snapshot-b 0
wine 'C:\t\bin\cudnn-doctor.exe' diff 'C:\t\a.json' 'C:\t\b.json' >"$out" 2>&1
rc=$?
expect diff 1 "change" "8.0.5"

# ---------- 4. cudnn64_8.dll present, cudnn_cnn_infer64_8.dll missing ----------
stage part nv84 v84
rm "$W/part/cudnn_cnn_infer64_8.dll"
wrun 'C:\t\part'
expect sublib-nv 1 "ERROR \[loader-sublib-missing\] C:${B}t${B}part${B}cudnn64_8.dll cannot find its sub-library cudnn_cnn_infer64_8.dll .*Could not load library cudnn_cnn_infer64_8.dll. Error code 126" \
  "fix: copy cudnn_cnn_infer64_8.dll from the same cuDNN 8.4.0 release into C:${B}t${B}part" \
  "sub-libraries: 5 of 6 present; missing cudnn_cnn_infer64_8.dll"
absent sublib-nv "\[crashed\]"
wrun 'C:\t\part' --json
expect sublib-json 1 '"probe": "loader-failed"' '"cause": "missing-sublibrary"' '"code": 126'
# a shim that does not load it at once: found by looking
stage part2 v81 v81
rm "$W/part2/cudnn_cnn_infer64_8.dll"
wrun 'C:\t\part2'
expect sublib-static 1 "ERROR \[win-sublib-missing\] cudnn_cnn_infer64_8.dll is missing for C:${B}t${B}part2${B}cudnn64_8.dll" \
  "fix: copy cudnn_cnn_infer64_8.dll from the bin folder of the same cuDNN 8.1.0 release into C:${B}t${B}part2"

# ---------- 5. two different copies: the program's folder and PATH ----------
mkdir -p "$W/app"
cp "$F/prog.exe" "$W/app/"
for f in "$W/old/"*.dll; do cp "$f" "$W/app/"; done
wrun 'C:\t\good' --for 'C:\t\app\prog.exe'
expect app-dir 0 "WARN  \[win-app-dir-copy\] C:${B}t${B}app${B}cudnn64_8.dll \(NVIDIA cuDNN 8.0.5, via application dir\) shadows C:${B}t${B}good${B}cudnn64_8.dll \(NVIDIA cuDNN 8.1.0, via PATH\)" \
  "fix: the program's own folder always comes first: delete C:${B}t${B}app${B}cudnn64_8.dll" \
  "info  \[for-program\] C:${B}t${B}app${B}prog.exe imports cudnn64_8.dll"

# ---------- 6. a copy that crashes, one that crashes in DllMain, one that hangs ----------
stage crash crash v81
wrun 'C:\t\crash'
expect crash 1 "ERROR \[crashed\] C:${B}t${B}crash${B}cudnn64_8.dll crashed while loading or in cudnnGetVersion \(the child died with exception 0xC0000005 \(access violation\)\)" \
  "fix: delete or replace C:${B}t${B}crash${B}cudnn64_8.dll"
stage crashload crashload v81
wrun 'C:\t\crashload'
expect crash-dllmain 1 "ERROR \[crashed\] C:${B}t${B}crashload${B}cudnn64_8.dll crashed while loading"
stage hang hang v81
t0=$(date +%s)
wrun 'C:\t\hang' --timeout 1500
t1=$(date +%s)
expect hang 1 "ERROR \[hung\] C:${B}t${B}hang${B}cudnn64_8.dll hung .*no answer within 1500 ms"
if [ $((t1 - t0)) -le 30 ]; then ok; else bad "hang: took $((t1 - t0)) s"; fi

# ---------- 7. cuDNN 8.4 without zlibwapi.dll: NVIDIA's error 126 read back to its cause ----------
stage zl nv84 v84
cp "$F/subz/cudnn_cnn_infer64_8.dll" "$W/zl/"
wrun 'C:\t\zl'
expect zlib 1 "ERROR \[win-zlib-missing\] C:${B}t${B}zl${B}cudnn_cnn_infer64_8.dll needs zlibwapi.dll \(cuDNN 8.4.0; .*Error code 126' means this" \
  "fix: put the 64-bit zlibwapi.dll .* beside C:${B}t${B}zl${B}cudnn64_8.dll"
absent zlib "\[crashed\]"
mkdir -p "$W/zlib"; cp "$F/zlib/zlibwapi.dll" "$W/zlib/"
wrun 'C:\t\zl;C:\t\zlib'
expect zlib-fixed 0 "NVIDIA cuDNN 8.4.0 \(cudnnGetVersion 8400"
absent zlib-fixed "win-zlib-missing" "ERROR"

# ---------- 8. no driver: a sub-library that imports nvcuda.dll ----------
stage nodrv nv84 v84
cp "$F/subd/cudnn_cnn_infer64_8.dll" "$W/nodrv/"
cp "$W/zlib/zlibwapi.dll" "$W/nodrv/"
rm "$SYS/nvcuda.dll"
wrun 'C:\t\nodrv'
expect no-driver 1 "ERROR \[loader-no-driver\] C:${B}t${B}nodrv${B}cudnn_cnn_infer64_8.dll needs nvcuda.dll, the NVIDIA driver, which is not installed" \
  "fix: install the NVIDIA display driver" "driver: none"
absent no-driver "\[crashed\]" "\[no-driver\]"
cp "$F/drv/nvcuda.dll" "$SYS/nvcuda.dll"

# ---------- 9. Python >= 3.8: PATH is not searched, os.add_dll_directory is ----------
mkdir -p "$W/py"
wrun 'C:\t\good' --win-python --win-app-dir 'C:\t\py'
expect python 1 "ERROR \[win-not-on-search-path\] cudnn64_8.dll is installed at C:${B}t${B}good${B}cudnn64_8.dll" \
  "fix: call os.add_dll_directory\(r\"C:${B}t${B}good\"\) before importing the framework"
wrun 'C:\t\good' --win-python --win-app-dir 'C:\t\py' --win-dll-dir 'C:\t\good'
expect python-dll-dir 0 "found via added DLL dir -- this is the one a program loads"

# ---------- 10. usage ----------
wrun '' --bogus
expect usage 2 "unknown option '--bogus'"

t_end=$(date +%s)
echo "wine pass: $((t_end - t_start)) s (build $((t_built - t_start)) s, runs $((t_end - t_built)) s)"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
