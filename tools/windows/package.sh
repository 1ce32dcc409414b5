#!/usr/bin/env bash
# make windows-package: hostdnn-<version>-windows-x64.zip from a MinGW-w64 build (build-win/),
# laid out like NVIDIA's cuDNN 8.1 zip for Windows (docs/windows.md):
#   cuda/bin/        cudnn64_8.dll and the six cudnn_*64_8.dll
#   cuda/include/    the nine cuDNN headers
#   cuda/lib/x64/    import libraries for MSVC-compatible linkers (and MinGW's):
#                    cudnn.lib, cudnn64_8.lib, cudnn_<sub>.lib, cudnn_<sub>64_8.lib
#   cuda/LICENSE.txt
#   hostcuda/        the host CUDA runtime and cuBLAS subset (bin/, lib/x64/, include/), apart
#                    so that unpacking into a CUDA folder never replaces a real cudart or cuBLAS
#   tools/cudnn-doctor.exe, tools/compat.tsv
#   README.md        docs/windows.md
#   tools/windows/package.sh BUILD_DIR OUT_DIR
# DOCTOR_EXE=path uses a cudnn-doctor.exe built elsewhere; otherwise tools/doctor is
# cross-compiled here (tools/doctor/build-windows.sh).
set -euo pipefail
build=$(cd "${1:?usage: package.sh BUILD_DIR OUT_DIR}" && pwd)
mkdir -p "${2:?usage: package.sh BUILD_DIR OUT_DIR}"
out=$(cd "$2" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
prefix=${HD_MINGW_PREFIX:-x86_64-w64-mingw32}
dlltool=${LLVM_DLLTOOL:-$(command -v llvm-dlltool || ls /usr/bin/llvm-dlltool-* 2>/dev/null | head -n 1 || true)}
[ -n "$dlltool" ] || { echo "package.sh: llvm-dlltool not found (apt-get install llvm)" >&2; exit 1; }
version=$(sed -n 's/^project(hostdnn VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
name=hostdnn-$version-windows-x64
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
pkg=$stage/pkg
mkdir -p "$pkg/cuda/bin" "$pkg/cuda/include" "$pkg/cuda/lib/x64" "$pkg/hostcuda/bin" \
         "$pkg/hostcuda/lib/x64" "$pkg/hostcuda/include" "$pkg/tools"

strip_to() { "$prefix-strip" --strip-unneeded -o "$2" "$1"; }
# An MSVC-style import library (short import members) for DLL from a .def.
implib() { "$dlltool" -m i386:x86-64 -d "$1" -D "$2" -l "$3"; }

subs="ops_infer ops_train cnn_infer cnn_train adv_infer adv_train"
strip_to "$build/bin/cudnn64_8.dll" "$pkg/cuda/bin/cudnn64_8.dll"
implib "$build/gen/exports_cudnn.def" cudnn64_8.dll "$pkg/cuda/lib/x64/cudnn64_8.lib"
cp "$pkg/cuda/lib/x64/cudnn64_8.lib" "$pkg/cuda/lib/x64/cudnn.lib"
for s in $subs; do
  strip_to "$build/bin/cudnn_${s}64_8.dll" "$pkg/cuda/bin/cudnn_${s}64_8.dll"
  implib "$build/gen/exports_$s.def" "cudnn_${s}64_8.dll" "$pkg/cuda/lib/x64/cudnn_${s}64_8.lib"
  cp "$pkg/cuda/lib/x64/cudnn_${s}64_8.lib" "$pkg/cuda/lib/x64/cudnn_$s.lib"
done
for h in cudnn.h cudnn_version.h cudnn_ops_infer.h cudnn_ops_train.h cudnn_cnn_infer.h \
         cudnn_cnn_train.h cudnn_adv_infer.h cudnn_adv_train.h cudnn_backend.h; do
  cp "$root/include/$h" "$pkg/cuda/include/"
done

for pair in cudart:cudart64_110 cublas:cublas64_11 cublasLt:cublasLt64_11; do
  t=${pair%%:*} dll=${pair#*:}
  strip_to "$build/bin/$dll.dll" "$pkg/hostcuda/bin/$dll.dll"
  implib "$build/gen/exports_$t.def" "$dll.dll" "$pkg/hostcuda/lib/x64/$t.lib"
done
# The host stand-ins for the CUDA toolkit's headers (what cudnn.h and cuBLAS programs include).
(cd "$root/include" && for f in *.h crt/*.h; do
   case $f in cudnn*|hostdnn.h) continue ;; esac
   mkdir -p "$pkg/hostcuda/include/$(dirname "$f")"
   cp "$f" "$pkg/hostcuda/include/$f"
 done)

# cudnn-doctor.exe and the table it reads beside itself (tools/doctor/build-windows.sh).
if [ -n "${DOCTOR_EXE:-}" ]; then
  cp "$DOCTOR_EXE" "$pkg/tools/cudnn-doctor.exe"
  cp "$root/tools/doctor/compat.tsv" "$pkg/tools/"
else
  CC="$prefix-gcc" "$root/tools/doctor/build-windows.sh" "$pkg/tools" >"$stage/doctor.log" 2>&1 ||
    { echo "package.sh: cudnn-doctor.exe does not build:" >&2; sed -n '1,20p' "$stage/doctor.log" >&2; exit 1; }
fi

cp "$root/LICENSE" "$pkg/cuda/LICENSE.txt"
cp "$root/docs/windows.md" "$pkg/README.md"

rm -f "$out/$name.zip"
(cd "$pkg" && find . -type f | sed 's|^\./||' | LC_ALL=C sort | zip -q -X -D "$out/$name.zip" -@)
echo "$out/$name.zip ($(du -k "$out/$name.zip" | cut -f1) KiB)"
