#!/usr/bin/env sh
# Build cudnn-doctor.exe with MinGW-w64 (no CMake, no DLLs beyond Windows' own):
#   tools/doctor/build-windows.sh OUTDIR      -> OUTDIR/cudnn-doctor.exe, OUTDIR/compat.tsv
# CC overrides the compiler (default x86_64-w64-mingw32-gcc).  The Linux-only stages
# (ELF, ld.so.cache, fork probe, site-packages) are left out; the *_win.c files come in.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-windows.sh OUTDIR}
cc=${CC:-x86_64-w64-mingw32-gcc}
command -v "$cc" >/dev/null 2>&1 || { echo "build-windows.sh: $cc not found" >&2; exit 2; }
mkdir -p "$out"
version=$(sed -n 's/^project([^)]*VERSION \([0-9.]*\).*/\1/p' "$here/../../CMakeLists.txt" | head -n 1)
srcs="main util findings compat report snapdiff version cpu headers loaderr probe winsearch windows wincheck live_win probe_win"
files=""
for s in $srcs; do files="$files $here/$s.c"; done
# shellcheck disable=SC2086
"$cc" -std=c11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -D__USE_MINGW_ANSI_STDIO=1 -D_WIN32_WINNT=0x0601 \
  -DHD_DOCTOR_VERSION="\"${version:-0.0.0}\"" -I"$here" $files \
  -static -static-libgcc -s -o "$out/cudnn-doctor.exe"
cp "$here/compat.tsv" "$out/compat.tsv"
