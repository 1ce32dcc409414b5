#!/usr/bin/env bash
# cudnn-doctor end to end: fake cuDNN trees built here with cc (libraries that report
# chosen versions, crash, hang, or are garbage), fake site-packages, fake toolkits and a
# fake driver; then the real machine.  Prints "N passed, N failed"; non-zero on failure.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${HD_BUILD:-$root/build}
doctor_src=$build/tools/cudnn-doctor
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
if [ ! -x "$doctor_src" ]; then
  echo "FAIL: $doctor_src not built"
  echo "0 passed, 1 failed"
  exit 1
fi
if ! command -v cc >/dev/null; then
  echo "SKIP no C compiler (cc) to build the fake cuDNN trees"
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/doctor-test.XXXXXX")
trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
# The doctor is copied into its own prefix, so hostdnn's build tree is not "its" prefix
# and the test sees only what it builds (the table comes from the source tree).
mkdir -p "$T/prefix/bin" "$T/prefix/share/hostdnn" "$T/sysroot" "$T/home"
cp "$doctor_src" "$T/prefix/bin/cudnn-doctor"
cp "$root/tools/doctor/compat.tsv" "$T/prefix/share/hostdnn/"
D=$T/prefix/bin/cudnn-doctor
export HOME=$T/home
unset CONDA_PREFIX VIRTUAL_ENV LD_PRELOAD
unset LD_LIBRARY_PATH

# run the doctor hermetically: empty sysroot, no cache, no site-packages of the machine
doc() { "$D" --sysroot "$T/sysroot" --no-color "$@"; }

# expect NAME RC PATTERN... -- last run's output must match every pattern, exit must be RC
expect() {
  local name=$1 want=$2; shift 2
  if [ "$rc" != "$want" ]; then bad "$name: exit $rc, want $want"; sed -n '1,40p' "$T/out" | sed 's/^/    /'; return; fi
  ok
  for p in "$@"; do
    if grep -qE -- "$p" "$T/out"; then ok; else bad "$name: no match for /$p/"; sed -n '1,60p' "$T/out" | sed 's/^/    /'; fi
  done
}
absent() {
  local name=$1; shift
  for p in "$@"; do
    if grep -qE -- "$p" "$T/out"; then bad "$name: unexpected /$p/"; else ok; fi
  done
}
run() { "$@" >"$T/out" 2>&1; rc=$?; }

# ---------- fake libraries ----------
cat >"$T/fake.c" <<'C'
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#ifndef VER
#define VER 8100
#endif
#ifndef CUDART
#define CUDART 11020
#endif
#ifdef MARK
const char fake_impl_marker[] = "made by hostdnn";
#endif
size_t cudnnGetVersion(void)
{
#ifdef CRASH
    *(volatile int *)0 = 1;
#endif
#ifdef HANG
    for (;;)
        pause();
#endif
#if LOADFAIL == 1 /* NVIDIA's shim without a driver: its words, then abort() */
    fprintf(stderr, "Could not load library libcudnn_ops_infer.so.8. Error: libcuda.so.1: cannot open shared object file: No such file or directory\n");
    abort();
#elif LOADFAIL == 2
    fprintf(stderr, "Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: cannot open shared object file: No such file or directory\n");
    abort();
#elif LOADFAIL == 3
    fprintf(stderr, "Could not load library libcudnn_cnn_infer.so.8. Error: libcublasLt.so.11: cannot open shared object file: No such file or directory\n");
    abort();
#endif
    return VER;
}
size_t cudnnGetCudartVersion(void) { return CUDART; }
C
cat >"$T/sub.c" <<'C'
int cudnnSubLibraryMarker(void) { return 0; }
C
# compiled once per flag set and copied after that: cc is the slow part of this script
built() { # KEY CC-ARGS... -> prints the path of the cached build
  local key=$1; shift
  local out=$T/cache/$key.so
  if [ ! -f "$out" ]; then
    mkdir -p "$T/cache"
    cc -shared -fPIC -o "$out" "$@" || return 1
  fi
  echo "$out"
}
# mklib DIR MAJOR VERSION_INT FULLVER [extra cc flags]: shim + sub-libraries, NVIDIA-style
# real files with symlinks (libcudnn.so.8 -> libcudnn.so.8.1.0)
mklib() {
  local dir=$1 major=$2 ver=$3 full=$4; shift 4
  mkdir -p "$dir"
  local key="shim$major-$ver$(echo "$*" | tr -c 'A-Za-z0-9' '_')"
  local lib sub
  lib=$(built "$key" -Wl,-soname,libcudnn.so.$major -DVER=$ver "$@" "$T/fake.c") || return 1
  sub=$(built sub "$T/sub.c") || return 1
  cp "$lib" "$dir/libcudnn.so.$full"
  ln -sf "libcudnn.so.$full" "$dir/libcudnn.so.$major"
  local subs
  if [ "$major" = 8 ]; then subs="ops_infer ops_train cnn_infer cnn_train adv_infer adv_train"
  else subs="graph ops cnn adv heuristic engines_precompiled engines_runtime_compiled"; fi
  for s in $subs; do
    cp "$sub" "$dir/libcudnn_$s.so.$full"
    ln -sf "libcudnn_$s.so.$full" "$dir/libcudnn_$s.so.$major"
  done
}
mkheader() { # DIR MAJOR MINOR PATCH
  mkdir -p "$1"
  printf '#define CUDNN_MAJOR %s\n#define CUDNN_MINOR %s\n#define CUDNN_PATCHLEVEL %s\n' "$2" "$3" "$4" >"$1/cudnn_version.h"
}

# fake NVIDIA drivers: libcuda.so.1 -> libcuda.so.<release>, cuDriverGetVersion() = 11.2
printf 'int cuDriverGetVersion(int *v){ *v = 11020; return 0; }\n' >"$T/cuda.c"
for r in 470.82.01 450.80.02; do
  mkdir -p "$T/drv-$r"
  cc -shared -fPIC -o "$T/drv-$r/libcuda.so.$r" -Wl,-soname,libcuda.so.1 "$T/cuda.c"
  ln -s "libcuda.so.$r" "$T/drv-$r/libcuda.so.1"
done
DRV=$T/drv-470.82.01

mklib "$T/good/lib" 8 8100 8.1.0 -DMARK || { echo "FAIL: cc"; echo "0 passed, 1 failed"; exit 1; }
mkheader "$T/good/include" 8 1 0
mklib "$T/old/lib" 8 8005 8.0.5
mkheader "$T/old/include" 8 0 5

# ---------- 1. a healthy hostdnn-style install on LD_LIBRARY_PATH ----------
LD_LIBRARY_PATH=$T/good/lib run doc
expect healthy 0 "^cudnn-doctor: HEALTHY: libcudnn.so.8 -> $T/good/lib/libcudnn.so.8 \(hostdnn cuDNN 8.1.0\)" \
  "hostdnn cuDNN 8.1.0 \(cudnnGetVersion 8100, built for CUDA 11.2\); found via LD_LIBRARY_PATH" \
  "sub-libraries: 6 of 6 present" "header $T/good/include/cudnn_version.h \(8.1.0\)" "SONAME libcudnn.so.8" \
  "\[no-driver\] no NVIDIA driver .*hostdnn does not need one|driver"
absent healthy "ERROR" "WARN "

# ---------- 2. shadowing: an older copy first on LD_LIBRARY_PATH ----------
LD_LIBRARY_PATH=$T/old/lib:$T/good/lib:$DRV run doc
expect shadowed 0 "OK WITH WARNINGS" "\[shadowed\] $T/old/lib/libcudnn.so.8 \(NVIDIA cuDNN 8.0.5, via LD_LIBRARY_PATH\) shadows $T/good/lib/libcudnn.so.8 \(hostdnn cuDNN 8.1.0" \
  "fix: to use it instead: put $T/good/lib first on LD_LIBRARY_PATH" "\[header-mismatch\]|header $T/old/include" \
  "WARN  \[no-libcuda-so\] only libcuda.so.1 is present" "fix: create the link: sudo ln -s libcuda.so.1 $DRV/libcuda.so"
LD_LIBRARY_PATH=$T/old/lib:$T/good/lib:$DRV run doc --strict
expect shadowed-strict 1

# ---------- 3. garbage named libcudnn.so.8 comes first ----------
mkdir -p "$T/garbage"
head -c 3000 /dev/urandom >"$T/garbage/libcudnn.so.8"
printf '\x7fELF\x02\x01\x01junk' >>"$T/garbage/libcudnn.so.8" # not even a valid ELF tail
LD_LIBRARY_PATH=$T/garbage:$T/good/lib run doc
expect garbage 1 "PROBLEMS FOUND" "ERROR \[not-elf\] $T/garbage/libcudnn.so.8 is not a valid shared library \(invalid ELF header" \
  "every dlopen of libcudnn.so.8 fails"
mkdir -p "$T/short"; echo hi >"$T/short/libcudnn.so.8"
LD_LIBRARY_PATH=$T/short run doc
expect short-file 1 "file too short"

# ---------- 4. a library that crashes in cudnnGetVersion ----------
mkdir -p "$T/crash"
cc -shared -fPIC -o "$T/crash/libcudnn.so.8" -Wl,-soname,libcudnn.so.8 -DCRASH "$T/fake.c"
LD_LIBRARY_PATH=$T/crash run doc
expect crash 1 "ERROR \[crashed\] $T/crash/libcudnn.so.8 crashed .*signal 11" "fix: replace or remove"

# ---------- 4b. NVIDIA's own loader failure is named, not called a crash ----------
# the cuDNN 8.5 wheel on a machine without a driver: found through --site-packages
mklib "$T/lf/site/nvidia/cudnn/lib" 8 8500 8.5.0 -DLOADFAIL=1
run doc --site-packages "$T/lf/site"
expect loadfail-driver 1 "\[loader-no-driver\] $T/lf/site/nvidia/cudnn/lib/libcudnn.so.8 is not broken: it stops because the NVIDIA driver is missing -- libcudnn_ops_infer.so.8 cannot be loaded without libcuda.so.1" \
  "fix: install the NVIDIA driver \(it provides libcuda.so.1" "loader-failed: Could not load library libcudnn_ops_infer.so.8. Error: libcuda.so.1"
absent loadfail-driver "\[crashed\]" "\[no-driver\]" "replace or remove"
run doc --site-packages "$T/lf/site" --json
expect loadfail-json 1 '"probe": "loader-failed"' '"cause": "missing-driver"' '"missing": "libcuda.so.1"' \
  '"probe_output": "Could not load library libcudnn_ops_infer.so.8. Error: libcuda.so.1'
# the same copy first on the loader path: an error, and no second "no driver" finding
LD_LIBRARY_PATH=$T/lf/site/nvidia/cudnn/lib run doc
expect loadfail-winner 1 "ERROR \[loader-no-driver\]"
if [ "$(grep -c 'driver\]' "$T/out")" = 1 ]; then ok; else bad "loadfail-winner: one driver finding expected"; fi
mklib "$T/lf/sub" 8 8500 8.5.0 -DLOADFAIL=2
LD_LIBRARY_PATH=$T/lf/sub run doc
expect loadfail-sublib 1 "ERROR \[loader-sublib-missing\] $T/lf/sub/libcudnn.so.8 cannot find its sub-library libcudnn_cnn_infer.so.8" \
  "fix: install the complete cuDNN"
mklib "$T/lf/dep" 8 8500 8.5.0 -DLOADFAIL=3
LD_LIBRARY_PATH=$T/lf/dep:$DRV run doc
expect loadfail-dep 1 "ERROR \[loader-dep-missing\] .*sub-library libcudnn_cnn_infer.so.8 is present but needs libcublasLt.so.11" \
  "fix: install cuBLAS"
absent loadfail-dep "\[crashed\]"

# ---------- 5. a library that hangs ----------
mkdir -p "$T/hang"
cc -shared -fPIC -o "$T/hang/libcudnn.so.8" -Wl,-soname,libcudnn.so.8 -DHANG "$T/fake.c"
t0=$(date +%s)
LD_LIBRARY_PATH=$T/hang run doc --timeout 500
t1=$(date +%s)
expect hang 1 "ERROR \[hung\] $T/hang/libcudnn.so.8 hung .*no answer within 500 ms"
if [ $((t1 - t0)) -le 10 ]; then ok; else bad "hang: took $((t1 - t0)) s"; fi

# ---------- 6. a missing v8 sub-library ----------
cp -a "$T/good" "$T/partial"
rm "$T/partial/lib/libcudnn_cnn_train.so.8" "$T/partial/lib/libcudnn_cnn_train.so.8.1.0"
LD_LIBRARY_PATH=$T/partial/lib run doc
expect sublib-missing 1 "ERROR \[sublib-missing\] libcudnn_cnn_train.so.8 is missing for $T/partial/lib/libcudnn.so.8" \
  "sub-libraries: 5 of 6 present; missing libcudnn_cnn_train.so.8"

# a bare shim: every sub-library missing, in one finding
mkdir -p "$T/bare"; cp "$T/good/lib/libcudnn.so.8.1.0" "$T/bare/libcudnn.so.8"
LD_LIBRARY_PATH=$T/bare run doc
expect bare-shim 1 "ERROR \[sublib-missing\] libcudnn_ops_infer.so.8, libcudnn_ops_train.so.8, libcudnn_cnn_infer.so.8, libcudnn_cnn_train.so.8, libcudnn_adv_infer.so.8, libcudnn_adv_train.so.8 are missing for $T/bare/libcudnn.so.8"
if [ "$(grep -c 'sublib-missing' "$T/out")" = 1 ]; then ok; else bad "bare-shim: one finding expected"; fi
# an empty LD_LIBRARY_PATH entry is the current directory
(cd "$T/bare" && LD_LIBRARY_PATH=":$T/good/lib" "$D" --sysroot "$T/sysroot" --no-color >"$T/out" 2>&1); rc=$?
expect empty-entry 0 "WARN  \[ld-library-path-empty-entry\] LD_LIBRARY_PATH=\":$T/good/lib\" has an empty entry" \
  "libcudnn.so.8 resolves to ./libcudnn.so.8 .*-> $T/bare/libcudnn.so.8"

# ---------- 7. a sub-library from another release ----------
cp -a "$T/good" "$T/mixed"
rm "$T/mixed/lib/libcudnn_cnn_infer.so.8" "$T/mixed/lib/libcudnn_cnn_infer.so.8.1.0"
cp "$T/cache/sub.so" "$T/mixed/lib/libcudnn_cnn_infer.so.8.0.5"
ln -s libcudnn_cnn_infer.so.8.0.5 "$T/mixed/lib/libcudnn_cnn_infer.so.8"
LD_LIBRARY_PATH=$T/mixed/lib run doc
expect sublib-version 1 "ERROR \[sublib-version\] mixed versions: $T/mixed/lib/libcudnn.so.8 is 8.1.0 but $T/mixed/lib/libcudnn_cnn_infer.so.8 .* is 8.0.5"
# a sub-library whose own dependency is gone
cp -a "$T/good" "$T/deps"
rm "$T/deps/lib/libcudnn_adv_infer.so.8.1.0"
echo 'int dep_fn(void){return 1;}' >"$T/dep.c"
cc -shared -fPIC -o "$T/libgone.so" -Wl,-soname,libgone.so "$T/dep.c"
printf 'int dep_fn(void);\nint adv(void){return dep_fn();}\n' >"$T/adv.c"
cc -shared -fPIC -o "$T/deps/lib/libcudnn_adv_infer.so.8.1.0" "$T/adv.c" -L"$T" -lgone
rm "$T/libgone.so"
LD_LIBRARY_PATH=$T/deps/lib run doc
expect sublib-load 1 "ERROR \[sublib-load\] $T/deps/lib/libcudnn_adv_infer.so.8 \(for $T/deps/lib/libcudnn.so.8\) does not load: load-failed: libgone.so: cannot open shared object file" \
  "fix: make $T/deps/lib/libcudnn_adv_infer.so.8 loadable"
# sub-library only found elsewhere on LD_LIBRARY_PATH
cp -a "$T/good" "$T/split"
mkdir -p "$T/split2"
mv "$T/split/lib/libcudnn_adv_train.so."* "$T/split2/"
LD_LIBRARY_PATH=$T/split/lib:$T/split2 run doc
expect sublib-elsewhere 0 "WARN  \[sublib-elsewhere\] libcudnn_adv_train.so.8 is not beside $T/split/lib/libcudnn.so.8; it is found through LD_LIBRARY_PATH"

# ---------- 8. headers that do not match ----------
cp -a "$T/good" "$T/hdr"
mkheader "$T/hdr/include" 8 0 4
LD_LIBRARY_PATH=$T/hdr/lib run doc
expect header-minor 0 "WARN  \[header-mismatch\] header $T/hdr/include/cudnn_version.h says cuDNN 8.0.4 but $T/hdr/lib/libcudnn.so.8 is 8.1.0"
mkheader "$T/hdr/include" 9 1 0
LD_LIBRARY_PATH=$T/hdr/lib run doc
expect header-major 1 "ERROR \[header-mismatch\] header $T/hdr/include/cudnn_version.h says cuDNN 9.1.0"
# a v7-era header: version macros live in cudnn.h
cp -a "$T/good" "$T/hdr7"; rm "$T/hdr7/include/cudnn_version.h"
printf '#define CUDNN_MAJOR 7\n#define CUDNN_MINOR 6\n#define CUDNN_PATCHLEVEL 5\n' >"$T/hdr7/include/cudnn.h"
LD_LIBRARY_PATH=$T/hdr7/lib run doc
expect header-v7 1 "header $T/hdr7/include/cudnn.h says cuDNN 7.6.5"

# ---------- 9. broken symlinks and loops are skipped by the loader ----------
mkdir -p "$T/broken" "$T/loop"
ln -s "$T/nowhere/libcudnn.so.8.9.9" "$T/broken/libcudnn.so.8"
ln -s libcudnn.so.8 "$T/loop/libcudnn.so.8"
LD_LIBRARY_PATH=$T/broken:$T/loop:$T/good/lib run doc
expect links 0 "WARN  \[broken-symlink\] $T/broken/libcudnn.so.8 is a broken symbolic link" \
  "WARN  \[symlink-loop\] $T/loop/libcudnn.so.8 is a symbolic link loop" \
  "libcudnn.so.8 resolves to $T/good/lib/libcudnn.so.8"

# ---------- 10. unreadable directory (root can read anything: skipped then) ----------
if [ "$(id -u)" != 0 ]; then
  mkdir -p "$T/locked"; chmod 000 "$T/locked"
  LD_LIBRARY_PATH=$T/locked:$T/good/lib run doc
  expect unreadable 0 "\[unreadable-dir\] cannot search $T/locked"
  chmod 755 "$T/locked"
else
  echo "SKIP unreadable-dir check (running as root)"
fi

# ---------- 11. installed but not on the loader path ----------
run doc --search "$T/good/lib"
expect not-on-path 1 "ERROR \[not-on-loader-path\] libcudnn.so.8 is installed at $T/good/lib/libcudnn.so.8 \(--search\)" \
  "fix: put $T/good/lib first on LD_LIBRARY_PATH .*ldconfig"
run doc
expect nothing 1 "ERROR \[no-cudnn\] no libcudnn.so.7/8/9 found anywhere"

# conda envs and their site-packages are found without being named
mkdir -p "$HOME/miniconda3/envs/tf/lib/python3.10/site-packages/torch-2.3.0.dist-info"
cp -a "$T/good/lib/." "$HOME/miniconda3/envs/tf/lib/"
printf 'Name: torch\nVersion: 2.3.0\n' >"$HOME/miniconda3/envs/tf/lib/python3.10/site-packages/torch-2.3.0.dist-info/METADATA"
run doc
expect conda 1 "$HOME/miniconda3/envs/tf/lib/libcudnn.so.8" "found via conda env \(not searched by the loader\)" \
  "torch 2.3.0 in $HOME/miniconda3/envs/tf/lib/python3.10/site-packages" "ERROR \[not-on-loader-path\]"
rm -rf "$HOME/miniconda3"

# a copy in a dir listed in /etc/ld.so.conf.d but missing from the cache: stale cache
SR=$T/sysroot-conf
mkdir -p "$SR/etc/ld.so.conf.d" "$SR/opt/cudnn"
printf '# multiarch\ninclude /etc/ld.so.conf.d/*.conf\n' >"$SR/etc/ld.so.conf"
printf '/opt/cudnn\n' >"$SR/etc/ld.so.conf.d/cudnn.conf"
cp -a "$T/good/lib/." "$SR/opt/cudnn/"
run "$D" --sysroot "$SR" --no-color
expect stale-cache 1 "ERROR \[not-on-loader-path\] libcudnn.so.8 is installed at $SR/opt/cudnn/libcudnn.so.8 \(ld.so.conf dir\)" \
  "fix: $SR/opt/cudnn is listed in /etc/ld.so.conf\(.d\) but the cache is stale: run sudo ldconfig"
# a renamed library: SONAME says another major
mkdir -p "$T/renamed"
cc -shared -fPIC -o "$T/renamed/libcudnn.so.8" -Wl,-soname,libcudnn.so.7 -DVER=8100 -DMARK "$T/fake.c"
cp -a "$T/good/lib/libcudnn_"* "$T/renamed/"
LD_LIBRARY_PATH=$T/renamed run doc
expect soname 0 "WARN  \[soname-mismatch\] $T/renamed/libcudnn.so.8 has SONAME libcudnn.so.7"

# ---------- 12. cuDNN 9 numbering and sub-libraries ----------
mklib "$T/v9/lib" 9 90100 9.1.0 -DMARK -DCUDART=12040
mkheader "$T/v9/include" 9 1 0
LD_LIBRARY_PATH=$T/v9/lib run doc
expect v9 0 "cuDNN 9.1.0 \(cudnnGetVersion 90100, built for CUDA 12.4\)" "sub-libraries: 7 of 7 present"
rm "$T/v9/lib/libcudnn_engines_precompiled.so.9"
LD_LIBRARY_PATH=$T/v9/lib run doc
expect v9-missing 1 "\[sublib-missing\] libcudnn_engines_precompiled.so.9 is missing"

# ---------- 13. --for PROGRAM: DT_RPATH beats LD_LIBRARY_PATH, DT_RUNPATH does not ----------
mkdir -p "$T/app/bin" "$T/app/lib"
cp -a "$T/good/lib/." "$T/app/lib/"
printf 'unsigned long cudnnGetVersion(void);\nint main(void){return (int)(cudnnGetVersion()==0);}\n' >"$T/app.c"
cc -o "$T/app/bin/rpath-app" "$T/app.c" -L"$T/app/lib" -l:libcudnn.so.8 -Wl,--disable-new-dtags -Wl,-rpath,'$ORIGIN/../lib'
cc -o "$T/app/bin/runpath-app" "$T/app.c" -L"$T/app/lib" -l:libcudnn.so.8 -Wl,--enable-new-dtags -Wl,-rpath,'$ORIGIN/../lib'
LD_LIBRARY_PATH=$T/old/lib run doc --for "$T/app/bin/rpath-app"
expect for-rpath 0 "\[for-program\] $T/app/bin/rpath-app needs libcudnn.so.8 \(DT_NEEDED\); DT_RPATH $T/app/bin/../lib" \
  "libcudnn.so.8 resolves to $T/app/bin/../lib/libcudnn.so.8 \(hostdnn cuDNN 8.1.0, via DT_RPATH\)"
LD_LIBRARY_PATH=$T/old/lib:$DRV run doc --for "$T/app/bin/runpath-app"
expect for-runpath 0 "DT_RUNPATH $T/app/bin/../lib" \
  "libcudnn.so.8 resolves to $T/old/lib/libcudnn.so.8 \(NVIDIA cuDNN 8.0.5, via LD_LIBRARY_PATH\)" \
  "\[shadowed\] .* shadows $T/app/bin/../lib/libcudnn.so.8 .*via DT_RUNPATH"
run doc --for "$T/nonexistent-program"
expect for-missing 2 "no such program"
run doc --for "$T/fake.c"
expect for-not-elf 2 "not a readable ELF program"

# ---------- 14. frameworks from package metadata ----------
S=$T/site
mkdir -p "$S/torch-2.1.0+cu118.dist-info" "$S/tensorflow-2.10.0.dist-info" "$S/torch"
printf 'Metadata-Version: 2.1\nName: torch\nVersion: 2.1.0+cu118\n' >"$S/torch-2.1.0+cu118.dist-info/METADATA"
printf "__version__ = '2.1.0+cu118'\ncuda: Optional[str] = '11.8'\n" >"$S/torch/version.py"
printf 'Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.10.0\n' >"$S/tensorflow-2.10.0.dist-info/METADATA"
LD_LIBRARY_PATH=$T/good/lib run doc --site-packages "$S"
expect frameworks 1 "torch 2.1.0\+cu118 in $S" "built with CUDA 11.8, cuDNN 8.7.0.84 \(compat.tsv" \
  "ERROR \[framework-cudnn-old\] PyTorch 2.1.0\+cu118 was built with cuDNN 8.7.0.84 but would load $T/good/lib/libcudnn.so.8 = cuDNN 8.1.0 \(via LD_LIBRARY_PATH\)" \
  "fix: remove $T/good/lib from LD_LIBRARY_PATH" \
  "info  \[framework-ok\] TensorFlow 2.10.0 \(built with cuDNN 8.1\) would load $T/good/lib/libcudnn.so.8 = cuDNN 8.1.0"
# a wheel-style torch: pinned nvidia-cudnn-cu12 and the wheel's library in site-packages
S2=$T/site2
mkdir -p "$S2/torch-2.4.0.dist-info" "$S2/torch/lib" "$S2/tensorflow_cpu-2.15.0.dist-info"
printf 'Name: torch\nVersion: 2.4.0\nRequires-Dist: nvidia-cudnn-cu12==9.1.0.70; platform_system == "Linux"\n' >"$S2/torch-2.4.0.dist-info/METADATA"
printf 'Name: tensorflow-cpu\nVersion: 2.15.0\n' >"$S2/tensorflow_cpu-2.15.0.dist-info/METADATA"
mklib "$S2/nvidia/cudnn/lib" 9 90100 9.1.0
run doc --site-packages "$S2" --driver-version 550.54.14
expect wheel 1 "METADATA pins nvidia-cudnn-cu12==9.1.0.70" \
  "\[framework-ok\] PyTorch 2.4.0 \(built with cuDNN 9.1.0.70\) would load $S2/nvidia/cudnn/lib/libcudnn.so.9 = cuDNN 9.1.0 \(via DT_RUNPATH\)" \
  "pip nvidia-cudnn wheel" "\[framework-cpu\] TensorFlow 2.15.0 .* is a CPU-only build"
# TF 2.15 (cuDNN 8.9) against cuDNN 8.1 -> too old; no cuDNN 8 at all -> none loads
S3=$T/site3
mkdir -p "$S3/tensorflow-2.15.0.dist-info"
printf 'Name: tensorflow\nVersion: 2.15.0\n' >"$S3/tensorflow-2.15.0.dist-info/METADATA"
LD_LIBRARY_PATH=$T/good/lib run doc --site-packages "$S3"
expect tf-old 1 "ERROR \[framework-cudnn-old\] TensorFlow 2.15.0 was built with cuDNN 8.9"
run doc --site-packages "$S3"
expect tf-none 1 "ERROR \[framework-no-cudnn\] TensorFlow 2.15.0 needs libcudnn.so.8"

# Debian's python3-torch: an egg-info with PKG-INFO in dist-packages, a CPU-only build
S4=$T/site4
mkdir -p "$S4/torch-1.13.0a0+gitunknown.egg-info" "$S4/torch"
printf 'Metadata-Version: 2.1\nName: torch\nVersion: 1.13.0a0+gitunknown\n' >"$S4/torch-1.13.0a0+gitunknown.egg-info/PKG-INFO"
printf "__version__ = '1.13.0a0'\ncuda = None\n" >"$S4/torch/version.py"
run doc --site-packages "$S4"
expect egg-info 1 "torch 1.13.0a0\+gitunknown in $S4" "CPU-only build"

# ---------- 15. CUDA toolkit and driver minimums ----------
mkdir -p "$T/sysroot-cuda/usr/local/cuda-11.2"
echo "CUDA Version 11.2.0" >"$T/sysroot-cuda/usr/local/cuda-11.2/version.txt"
mklib "$T/nv/lib" 8 8100 8.1.0
cudadoc() { "$D" --sysroot "$T/sysroot-cuda" --no-color "$@"; }
ln -s libcuda.so.1 "$T/drv-450.80.02/libcuda.so"
LD_LIBRARY_PATH=$T/nv/lib:$T/drv-450.80.02 run cudadoc
expect driver-minor 0 "toolkit $T/sysroot-cuda/usr/local/cuda-11.2: 11.2.0 \(version.txt\)" \
  "driver: 450.80.02 \(CUDA API 11.2\)" \
  "WARN  \[driver-minor-compat\] the driver 450.80.02 is older than 460.27.03 that CUDA 11.2 \(toolkit\) needs; it runs with limited features" \
  "fix: update the driver to >= 460.27.03"
absent driver-minor "no-libcuda-so"
LD_LIBRARY_PATH=$T/nv/lib:$T/drv-450.80.02 run cudadoc --driver-version 440.33
expect driver-old 1 "ERROR \[driver-old\] the driver 440.33 is older than 460.27.03 that CUDA 11.2 \(toolkit\) needs"
LD_LIBRARY_PATH=$T/nv/lib:$T/drv-450.80.02 run cudadoc --driver-version 470.82.01
expect driver-ok 0 "\[driver-ok\] driver 470.82.01 meets CUDA 11.2" \
  "WARN  \[no-cublaslt\] $T/nv/lib/libcudnn.so.8 \(NVIDIA cuDNN 8.1.0, built for CUDA 11\) needs libcublasLt.so.11"
cp "$T/cache/sub.so" "$T/nv/lib/libcublasLt.so.11"
LD_LIBRARY_PATH=$T/nv/lib:$T/drv-450.80.02 run cudadoc --driver-version 470.82.01
expect cublaslt-found 0
absent cublaslt-found "no-cublaslt"
LD_LIBRARY_PATH=$T/nv/lib run cudadoc
if [ -e /proc/driver/nvidia/version ] || ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1 '; then
  echo "SKIP no-driver check (this machine has a driver)"
else
  expect no-driver 1 "ERROR \[no-driver\] no NVIDIA driver: libcuda.so.1 cannot be loaded" "driver: none"
fi

# ---------- 16. snapshots and diff ----------
LD_LIBRARY_PATH=$T/good/lib run doc snapshot "$T/a.json"
expect snapshot 0 "snapshot written to $T/a.json"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["tool"]=="cudnn-doctor" and d["copies"][0]["version"]=="8.1.0"' "$T/a.json" 2>/dev/null; then ok; else bad "snapshot is not the expected JSON"; fi
LD_LIBRARY_PATH=$T/old/lib:$DRV run doc snapshot "$T/b.json"
run "$D" diff "$T/a.json" "$T/a.json"
expect diff-same 0 "^0 changes"
run "$D" diff "$T/a.json" "$T/b.json"
expect diff 1 "^~ cuda.driver.present: false -> true" "^~ loader.loads.libcudnn.so.8: $T/good/lib/libcudnn.so.8 -> $T/old/lib/libcudnn.so.8" \
  "^- copies\[$T/good/lib/libcudnn.so.8\]" "^\+ copies\[$T/old/lib/libcudnn.so.8\]"
head -c 500 /dev/urandom >"$T/garbage.json"
run "$D" diff "$T/a.json" "$T/garbage.json"
expect diff-garbage 2 "garbage.json: (invalid JSON|not a cudnn-doctor)"
echo '{"tool": "something-else"}' >"$T/other.json"
run "$D" diff "$T/other.json" "$T/a.json"
expect diff-foreign 2 "not a cudnn-doctor snapshot"
printf '{"tool": "cudnn-doctor", "copies": [' >"$T/cut.json"
run "$D" diff "$T/a.json" "$T/cut.json"
expect diff-truncated 2 "invalid JSON"
run "$D" diff "$T/a.json" "$T/missing.json"
expect diff-missing 2 "cannot read"
LD_LIBRARY_PATH=$T/good/lib run doc --json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["status"]=="healthy"' "$T/out" 2>/dev/null; then ok; else bad "--json output"; fi

# odd characters in paths survive the JSON round trip
W2="$T/we\"ird \\dir"
mkdir -p "$W2"; cp -a "$T/good/lib/." "$W2/"
LD_LIBRARY_PATH=$W2 run doc --json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["copies"][0]["path"]==sys.argv[2]+"/libcudnn.so.8"' "$T/out" "$W2" 2>/dev/null; then ok; else bad "JSON escaping of $W2"; fi
# colors: only on request or on a terminal (the output here is a file)
LD_LIBRARY_PATH=$T/good/lib run "$D" --sysroot "$T/sysroot"
if grep -q $'\033\[' "$T/out"; then bad "colors written to a file"; else ok; fi
LD_LIBRARY_PATH=$T/good/lib run "$D" --sysroot "$T/sysroot" --color
if grep -q $'\033\[' "$T/out"; then ok; else bad "--color wrote no colors"; fi

# ---------- 17. usage errors ----------
run "$D" --frobnicate; expect unknown-option 2 "unknown option '--frobnicate'"
run "$D" stray; expect stray-arg 2 "unexpected argument 'stray'"
run "$D" --timeout abc; expect bad-timeout 2 "--timeout wants milliseconds"
run "$D" --search; expect missing-value 2 "needs a value"
run "$D" diff "$T/a.json"; expect diff-args 2 "exactly two"
run "$D" snapshot; expect snapshot-args 2 "snapshot needs a FILE"
run "$D" --compat "$T/fake.c"; expect bad-compat 2 "bad compatibility table"
run "$D" --help; expect help 0 "usage: cudnn-doctor"

# ---------- 18. Windows DLL search order on a fake tree ----------
W=$T/win
# mkdll "PATH MACHINE MAJOR MINOR PATCH"...: minimal PE files with a VS_FIXEDFILEINFO
# block, several per python start (python is slow to start on a busy machine)
mkdll() {
  python3 - "$@" <<'PY'
import os, struct, sys
for spec in sys.argv[1:]:
    path, machine, a, b, c = spec.rsplit(" ", 4)
    machine, a, b, c = int(machine, 16), int(a), int(b), int(c)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    buf = bytearray(256)
    buf[0:2] = b"MZ"
    struct.pack_into("<I", buf, 0x3c, 0x80)
    buf[0x80:0x84] = b"PE\0\0"
    struct.pack_into("<H", buf, 0x84, machine)
    buf += struct.pack("<IIII", 0xFEEF04BD, 0x10000, (a << 16) | b, (c << 16))
    open(path, "wb").write(bytes(buf))
PY
}
mkdir -p "$W/C/Windows/System32" "$W/C/app"
specs=("$W/C/cudnn/bin/cudnn64_8.dll 8664 8 4 0")
for s in ops_infer ops_train cnn_infer cnn_train adv_infer adv_train; do specs+=("$W/C/cudnn/bin/cudnn_${s}64_8.dll 8664 8 4 0"); done
mkdll "${specs[@]}"
wdoc() { doc --windows-tree "$W" --win-app-dir 'C:\app' "$@"; }
run wdoc --win-path 'C:\Tools;C:\CUDNN\Bin'
expect win-path 1 "cudnn64_8.dll -> C:\\\\CUDNN\\\\Bin\\\\cudnn64_8.dll \(PATH, NVIDIA 8.4.0\)" \
  "ERROR \[win-zlib-missing\] \[windows, plain program\] cuDNN 8.4.0 needs zlibwapi.dll" \
  "ERROR \[win-path-not-searched\] \[windows, Python >= 3.8 extension\] .*cudnn64_8.dll is only on PATH" \
  "os.add_dll_directory\(r\"C:\\\\CUDNN\\\\Bin\"\)"
mkdll "$W/C/Windows/System32/zlibwapi.dll 14c 1 2 11"
run wdoc --win-path 'C:\cudnn\bin' --win-dll-dir 'C:\cudnn\bin'
expect win-zlib32 1 "ERROR \[win-zlib-arch\] \[windows, plain program\] C:\\\\Windows\\\\System32\\\\zlibwapi.dll is a 32-bit DLL"
mkdll "$W/C/Windows/System32/zlibwapi.dll 8664 1 2 11"
rm "$W/C/cudnn/bin/cudnn_cnn_infer64_8.dll"
mkdll "$W/C/app/cudnn_cnn_infer64_8.dll 8664 8 2 1"
run wdoc --win-path 'C:\cudnn\bin' --win-dll-dir 'C:\cudnn\bin'
expect win-mixed 1 "ERROR \[win-sublib-version\] \[windows, plain program\] mixed versions: C:\\\\cudnn\\\\bin\\\\cudnn64_8.dll is 8.4.0 but C:\\\\app\\\\cudnn_cnn_infer64_8.dll is 8.2.1"
absent win-mixed "win-zlib"
rm "$W/C/app/cudnn_cnn_infer64_8.dll"; rm "$W/C/cudnn/bin/cudnn_adv_train64_8.dll"
mkdll "$W/C/cudnn/bin/cudnn_cnn_infer64_8.dll 8664 8 4 0"
run wdoc --win-path 'C:\cudnn\bin' --win-dll-dir 'C:\cudnn\bin'
expect win-missing 1 "ERROR \[win-sublib-missing\] \[windows, plain program\] cudnn_adv_train64_8.dll is not found"
mkdll "$W/C/cudnn/bin/cudnn_adv_train64_8.dll 8664 8 4 0"
# an older copy in the application dir shadows the one on PATH
specs=("$W/C/app/cudnn64_8.dll 8664 8 1 0")
for s in ops_infer ops_train cnn_infer cnn_train adv_infer adv_train; do specs+=("$W/C/app/cudnn_${s}64_8.dll 8664 8 1 0"); done
mkdll "${specs[@]}"
run wdoc --win-path 'C:\cudnn\bin' --win-dll-dir 'C:\cudnn\bin'
expect win-shadow 0 "cudnn64_8.dll -> C:\\\\app\\\\cudnn64_8.dll \(application dir, NVIDIA 8.1.0\)" \
  "WARN  \[win-shadowed\] \[windows, plain program\] C:\\\\app\\\\cudnn64_8.dll \(8.1.0\) shadows C:\\\\cudnn\\\\bin\\\\cudnn64_8.dll \(8.4.0, PATH\)"
absent win-shadow "zlib" # 8.1 needs no zlib
# cuDNN 9.2+ has zlib built in
mkdir -p "$W/C/c9"
specs=("$W/C/c9/cudnn64_9.dll 8664 9 2 0")
for s in graph ops cnn adv heuristic engines_precompiled engines_runtime_compiled; do specs+=("$W/C/c9/cudnn_${s}64_9.dll 8664 9 2 0"); done
mkdll "${specs[@]}"
rm "$W/C/Windows/System32/zlibwapi.dll"
run doc --windows-tree "$W" --win-app-dir 'C:\nowhere' --win-path 'C:\c9' --win-dll-dir 'C:\c9'
expect win-v9 0 "cudnn64_9.dll -> C:\\\\c9\\\\cudnn64_9.dll \(PATH, NVIDIA 9.2.0\)" \
  "cudnn64_9.dll -> C:\\\\c9\\\\cudnn64_9.dll \(added DLL dir, NVIDIA 9.2.0\)"
absent win-v9 "zlib"
run doc --windows-tree "$T/no-such-tree"
expect win-bad-root 2 "is not a directory"

# ---------- 19. this machine: NVIDIA's cuDNN under /usr/local/cuda, hostdnn's build ----------
hdr=/usr/local/cuda/include/cudnn_version.h
if [ -f "$hdr" ] && [ -e /usr/local/cuda/lib64/libcudnn.so.9 ]; then
  v=$(awk '/#define CUDNN_MAJOR/{a=$3} /#define CUDNN_MINOR/{b=$3} /#define CUDNN_PATCHLEVEL/{c=$3} END{print a"."b"."c}' "$hdr")
  run "$doctor_src" --no-color --search /usr/local/cuda/lib64
  if grep -qE "NVIDIA cuDNN $v \(cudnnGetVersion" "$T/out"; then ok; else bad "real machine: NVIDIA cuDNN $v not reported"; sed -n '1,30p' "$T/out"; fi
  if grep -qE "header .*cudnn_version.h \($v\)" "$T/out"; then ok; else bad "real machine: header $v not reported"; fi
  if [ -e /proc/driver/nvidia/version ]; then
    echo "SKIP cuDNN 9 without a driver check: driver present"
  elif grep -q "ERROR \[no-driver\] no NVIDIA driver" "$T/out" && [ "$rc" = 1 ]; then ok; else bad "real machine: no driver not reported"; fi
else
  echo "SKIP no NVIDIA cuDNN 9 under /usr/local/cuda"
fi
if [ -e "$build/lib/libcudnn.so.8" ]; then
  LD_LIBRARY_PATH=$build/lib run "$doctor_src" --no-color
  if grep -qE "hostdnn cuDNN 8\.1\.0 \(cudnnGetVersion 8100, built for CUDA 11.2\); found via LD_LIBRARY_PATH" "$T/out"; then ok
  else bad "hostdnn build not reported as 8100"; sed -n '1,30p' "$T/out"; fi
  if grep -qE "sub-libraries: 6 of 6 present" "$T/out"; then ok; else bad "hostdnn sub-libraries"; fi
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
