#!/usr/bin/env bash
# The names a PE DLL exports, one a line, sorted (objdump's export table).
#   tools/windows/dll_exports.sh FILE.dll [OBJDUMP]
set -eu
"${2:-x86_64-w64-mingw32-objdump}" -p "$1" |
  sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/p' | sed -n 's/^\s*\[ *[0-9]*\] //p' | sort
