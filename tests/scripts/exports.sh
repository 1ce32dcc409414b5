#!/usr/bin/env bash
# Each library exports exactly its functions from functions.tsv (cudnnBackend* -> cnn_infer),
# libcudnn.so.8 exports all 261, and SONAMEs, versions and links follow cuDNN 8.
. "$(dirname "$0")/../shlib.sh"
lib=$HD_BUILD/lib
tsv=$HD_ROOT/tools/gen/api/functions.tsv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -F'\t' 'NR>1 && $6=="<=8.1" { l=$2; if (l=="backend") l="cnn_infer"; print $1 > "'$tmp'/want_" l; print $1 > "'$tmp'/want_all" }' "$tsv"
exports() { nm -D --defined-only "$1" | awk '$2 ~ /^[TWVi]$/ {print $3}' | sort; }
for l in ops_infer ops_train cnn_infer cnn_train adv_infer adv_train; do
  so=$lib/libcudnn_$l.so.8.1.0
  sort "$tmp/want_$l" > "$tmp/w"
  exports "$so" > "$tmp/g"
  check "libcudnn_$l exports exactly its $(wc -l < "$tmp/w") functions" diff "$tmp/w" "$tmp/g"
  check "libcudnn_$l SONAME" bash -c "readelf -d '$so' | grep -q 'SONAME.*\\[libcudnn_$l.so.8\\]'"
  check "libcudnn_$l.so.8 link" test "$(readlink "$lib/libcudnn_$l.so.8")" = "libcudnn_$l.so.8.1.0"
  check "libcudnn_$l.so link" test -L "$lib/libcudnn_$l.so"
  check "libcudnn_${l}_static.a" test -f "$lib/libcudnn_${l}_static.a"
done
sort "$tmp/want_all" > "$tmp/w"
exports "$lib/libcudnn.so.8.1.0" > "$tmp/g"
check "libcudnn.so.8 exports all $(wc -l < "$tmp/w") functions" diff "$tmp/w" "$tmp/g"
check "libcudnn SONAME" bash -c "readelf -d '$lib/libcudnn.so.8.1.0' | grep -q 'SONAME.*\\[libcudnn.so.8\\]'"
check "libcudnn_static.a" test -f "$lib/libcudnn_static.a"
# cuDNN 8's dependency order: ops_infer at the bottom; the shim loads the rest at run time.
needed() { readelf -d "$lib/libcudnn_$1.so.8" | sed -n 's/.*NEEDED.*\[libcudnn_\(.*\)\.so\.8\]/\1/p' | sort | tr '\n' ' '; }
check "ops_infer needs no cuDNN library" test -z "$(needed ops_infer)"
check "ops_train needs ops_infer" test "$(needed ops_train)" = "ops_infer "
check "cnn_infer needs ops_infer" test "$(needed cnn_infer)" = "ops_infer "
check "cnn_train needs ops_infer ops_train cnn_infer" test "$(needed cnn_train)" = "cnn_infer ops_infer ops_train "
check "adv_infer needs ops_infer" test "$(needed adv_infer)" = "ops_infer "
check "adv_train needs adv_infer ops_infer ops_train" test "$(needed adv_train)" = "adv_infer ops_infer ops_train "
check "libcudnn.so.8 has no cuDNN DT_NEEDED" bash -c "! readelf -d '$lib/libcudnn.so.8' | grep -q 'NEEDED.*libcudnn_'"
finish
