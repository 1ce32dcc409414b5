#!/usr/bin/env bash
# Compare the misuse harness's answers (tests/unit/test_misuse_all.c) between hostdnn and
# NVIDIA's cuDNN 8.5, call by call, for the functions that take no handle (NVIDIA's library runs
# them without a GPU; every call with a handle fails there at cudnnCreate).
#
#   eval "$(bash /work/shared/oracle/cudnn8.sh)"    # sets HD_CUDNN8_LIB and LD_LIBRARY_PATH
#   tools/misuse_oracle.sh [BUILD_DIR]              # default build
#
# Prints every call hostdnn answers SUCCESS and cuDNN refuses (hostdnn too lenient) and exits
# non-zero if there is one; with -a also the calls cuDNN answers SUCCESS and hostdnn refuses
# (mostly destroyed and wrong-kind objects, which cuDNN does not detect).  Not part of make
# check: the harness there must not depend on NVIDIA's library.
set -eu
all=0
[ "${1:-}" = -a ] && { all=1; shift; }
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
: "${HD_CUDNN8_LIB:?run eval \"\$(bash /work/shared/oracle/cudnn8.sh)\" first}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -std=c11 -O1 -I"$root/include" -I"$root/tests" -I"$root/tests/unit" -I"$root/$build/gen" \
   "$root/tests/unit/test_misuse_all.c" \
   -o "$tmp/misuse_nv" "$HD_CUDNN8_LIB" -lm
"$tmp/misuse_nv" -v >"$tmp/nv.txt" 2>/dev/null || true
env -u LD_LIBRARY_PATH "$root/$build/tests/bin/test_misuse_all" -v >"$tmp/hd.txt" 2>/dev/null || true
python3 - "$tmp/nv.txt" "$tmp/hd.txt" "$root/$build/gen/misuse_table.h" "$all" <<'EOF'
import re
import sys


def parse(path):
    """function -> {(parameter, mutation): status} from a -v listing."""
    out, cur = {}, None
    for line in open(path):
        if line.startswith("cudnn"):
            cur = out.setdefault(line.strip(), {})
        elif cur is not None and line.startswith("  "):
            m = re.match(r"  (\S+)\s+(.*?)\s+-> (CUDNN_STATUS_\w+)", line)
            if m:
                cur[(m.group(1), re.sub(r"\s+", " ", m.group(2)))] = m.group(3)
    return out


nv, hd = parse(sys.argv[1]), parse(sys.argv[2])
table, show_all = open(sys.argv[3]).read(), sys.argv[4] == "1"
ok = "CUDNN_STATUS_SUCCESS"
lenient = stricter = compared = 0
for fn in sorted(nv):
    m = re.search(r"ms_p_%s\[\] = \{(.*?)\};" % fn, table, re.S)
    if not m or "MS_HANDLE" in m.group(1) or nv[fn].get(("-", "valid call")) != ok:
        continue
    compared += 1
    for key, want in nv[fn].items():
        got = hd.get(fn, {}).get(key)
        if got is None or got == want:
            continue
        if got == ok:
            lenient += 1
            print("%s(%s = %s): hostdnn SUCCESS, cuDNN 8.5 %s" % (fn, key[0], key[1], want))
        elif want == ok:
            stricter += 1
            if show_all:
                print("%s(%s = %s): hostdnn %s, cuDNN 8.5 SUCCESS" % (fn, key[0], key[1], got))
print("%d functions compared: hostdnn accepts %d calls cuDNN 8.5 refuses, refuses %d it accepts"
      % (compared, lenient, stricter))
sys.exit(1 if lenient else 0)
EOF
