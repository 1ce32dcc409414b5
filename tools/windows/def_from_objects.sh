#!/usr/bin/env bash
# Write a .def export list of the functions named PATTERN (an extended regex) that the object
# files define: the Windows counterpart of a version script with a "prefix*" wildcard.
#   tools/windows/def_from_objects.sh NM PATTERN DLL OUT OBJECT_DIR
set -eu
nm_tool=$1 pattern=$2 dll=$3 out=$4 dir=$5
{
  echo "LIBRARY $dll"
  echo "EXPORTS"
  find "$dir" -name '*.obj' -o -name '*.o' | sort | xargs "$nm_tool" -g --defined-only |
    awk '$2 == "T" {print $3}' | grep -E "^($pattern)\$" | sort -u | sed 's/^/    /'
} >"$out.tmp"
mv "$out.tmp" "$out"
