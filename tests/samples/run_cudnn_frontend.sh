#!/usr/bin/env bash
# Build the samples of NVIDIA's cudnn-frontend (v0.1, v0.2) with plain g++ against hostdnn
# and run every test case of them, one process per case.
#
#   tests/samples/run_cudnn_frontend.sh FRONTEND_DIR [PREFIX]
#
# FRONTEND_DIR holds one or more cudnn-frontend checkouts (any folder below it with
# include/cudnn_frontend.h and samples/test_list.cpp), fetched by you: this script downloads
# nothing.  env HD_INCLUDE_DIR / HD_LIB_DIR: hostdnn's headers and libraries (default
# PREFIX/include, PREFIX/lib).  The sample sources are compiled as they are; the one
# substitute is fp16_dev.cu (a CUDA kernel launch), replaced by tests/samples/fp16_dev_host.cpp.
# Two compiler flags make up for the age of that code with gcc 12 / glibc 2.36: -include limits
# (the frontend headers use std::numeric_limits without including <limits>, which older
# libstdc++ headers pulled in for them) and CATCH_CONFIG_NO_POSIX_SIGNALS (the bundled Catch2
# sizes an array with MINSIGSTKSZ, no longer a constant).
# Objects of catch.cpp (slow to compile, never changes) are kept in HD_FRONTEND_CACHE when set.
#
# The fusion samples do not check their results; tests/samples/frontend_check.cpp calls the
# same sample functions on known inputs and compares what they write with a float64
# reference, and runs as one more case per checkout.
#
# Prints one line per case (PASS / FAIL) and "N passed, N failed".
set -u
src=${1:?usage: run_cudnn_frontend.sh FRONTEND_DIR [PREFIX]}
prefix=${2:-/usr/local}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$src" && pwd)
CXX=${CXX:-g++}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
incdir=${HD_INCLUDE_DIR:-$prefix/include}
libdir=${HD_LIB_DIR:-$prefix/lib}
cache=${HD_FRONTEND_CACHE:-$work/cache}
mkdir -p "$cache"
export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
pass=0 fail=0

report() {  # STATUS NAME DETAIL
  printf '%-5s %s %s\n' "$1" "$2" "$3"
  case $1 in PASS) pass=$((pass + 1)) ;; *) fail=$((fail + 1)) ;; esac
}

for fe in $(find -L "$src" -path '*/samples/test_list.cpp' -type f 2>/dev/null | sort); do
  top=$(dirname "$(dirname "$fe")")
  [ -f "$top/include/cudnn_frontend.h" ] || continue
  tag=$(basename "$top")
  d=$work/$tag
  mkdir -p "$d"
  cp -r "$top/samples/." "$d/"
  rm -f "$d/fp16_dev.cu"
  cp "$here/fp16_dev_host.cpp" "$d/fp16_dev_host.cpp"
  catchinc=$top/contrib/catch2
  flags="-std=c++14 -O1 -w -include limits -DCATCH_CONFIG_NO_POSIX_SIGNALS -I$incdir -I$top/include -I$catchinc -I$d"
  objs=""
  ok=1
  for f in "$d"/*.cpp; do
    b=$(basename "$f" .cpp)
    o=$d/$b.o
    if [ "$b" = catch ]; then
      key=$(cat "$f" "$catchinc/catch.hpp" | sha1sum | cut -c1-16)
      o=$cache/catch-$key.o
      [ -f "$o" ] || $CXX $flags -c "$f" -o "$o" 2>"$d/$b.err" || { ok=0; report FAIL "$tag/build" "$b.cpp: $(head -n 3 "$d/$b.err")"; }
    else
      $CXX $flags -c "$f" -o "$o" 2>"$d/$b.err" || { ok=0; report FAIL "$tag/build" "$b.cpp: $(grep -m 3 error "$d/$b.err")"; }
    fi
    [ "$b" = test_list ] || [ "$b" = catch ] || objs="$objs $o"
    [ "$b" = catch ] && catcho=$o
  done
  [ $ok = 1 ] || continue
  libs="-L$libdir -Wl,-rpath,$libdir -lcudnn -lcudart -lm"
  if ! $CXX -o "$d/run_tests" "$d/test_list.o" "$catcho" $objs $libs 2>"$d/link.err"; then
    report FAIL "$tag/link" "$(head -n 3 "$d/link.err")"
    continue
  fi
  "$d/run_tests" --list-test-names-only 2>/dev/null | sed '/^$/d' | grep -v 'test cases' >"$d/cases"
  while IFS= read -r name; do
    [ -n "$name" ] || continue
    if (cd "$d" && timeout 600 ./run_tests "$name") >"$d/case.out" 2>&1; then
      report PASS "$tag" "$name"
    else
      report FAIL "$tag" "$name: $(grep -E -m 2 'FAILED|failed|error|Exception|Error' "$d/case.out" | tr '\n' ' ')"
    fi
  done <"$d/cases"
  # The float64 check of the fusion samples' outputs.
  if [ -f "$here/frontend_check.cpp" ] && [ -f "$d/fusion_sample.h" ]; then
    if $CXX $flags -o "$d/frontend_check" "$here/frontend_check.cpp" "$catcho" $objs $libs 2>"$d/check.err"; then
      if (cd "$d" && timeout 600 ./frontend_check) >"$d/check.out" 2>&1; then
        report PASS "$tag" "fusion outputs against float64: $(grep -h "worst" "$d/check.out" | tr "\n" " ")"
      else
        report FAIL "$tag" "fusion outputs against float64: $(grep -m 3 FAIL "$d/check.out" | tr '\n' ' ') $(tail -n 1 "$d/check.out")"
      fi
    else
      report FAIL "$tag" "frontend_check.cpp does not build: $(grep -m 3 error "$d/check.err")"
    fi
  fi
done
[ $((pass + fail)) -gt 0 ] || report FAIL "frontend" "no cudnn-frontend checkout with samples/test_list.cpp below $src"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
