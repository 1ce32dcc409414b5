#!/usr/bin/env bash
# Each library exports exactly its functions from functions.tsv (cudnnBackend* -> cnn_infer),
# unversioned, libcudnn.so.8 exports all 261, and SONAMEs, versions and links follow cuDNN 8.
# libcudnn_ops_infer also exports the private interface: exactly the hd_ functions listed in
# build/gen/private_ops_infer.txt, all under the version node HOSTDNN_PRIVATE_8.1, and no other
# version node; the runtime (core, kernels, engines) exists in ops_infer only.
. "$(dirname "$0")/../shlib.sh"
lib=$HD_BUILD/lib
tsv=$HD_ROOT/tools/gen/api/functions.tsv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -F'\t' 'NR>1 && $6=="<=8.1" { l=$2; if (l=="backend") l="cnn_infer"; print $1 > "'$tmp'/want_" l; print $1 > "'$tmp'/want_all" }' "$tsv"
# Public exports: defined functions without a version (nm prints NAME@@NODE for versioned ones).
exports() { nm -D --defined-only "$1" | awk '$2 ~ /^[TWVi]$/ && $3 !~ /@/ {print $3}' | sort; }
private() { nm -D --defined-only "$1" | awk '$3 ~ /@/ {print $3}' | sort; }
nodes() { readelf -V "$1" | sed -n '/Version definition/,/Version needs/p' | sed -n 's/.*Name: \([^ ]*\).*/\1/p' | sort -u | tr '\n' ' '; }
for l in ops_infer ops_train cnn_infer cnn_train adv_infer adv_train; do
  so=$lib/libcudnn_$l.so.8.1.0
  sort "$tmp/want_$l" > "$tmp/w"
  exports "$so" > "$tmp/g"
  check "libcudnn_$l exports exactly its $(wc -l < "$tmp/w") functions" diff "$tmp/w" "$tmp/g"
  check "libcudnn_$l: no hd_ symbol among the unversioned exports" bash -c "! grep -q '^hd_' '$tmp/g'"
  if [ "$l" = ops_infer ]; then
    sed 's/$/@@HOSTDNN_PRIVATE_8.1/' "$HD_BUILD/gen/private_ops_infer.txt" | sort > "$tmp/pw"
    private "$so" > "$tmp/pg"
    check "libcudnn_ops_infer exports exactly its $(wc -l < "$tmp/pw") private functions under HOSTDNN_PRIVATE_8.1" \
      diff "$tmp/pw" "$tmp/pg"
    check "libcudnn_ops_infer: every private name is hd_" bash -c "! grep -v '^hd_' '$HD_BUILD/gen/private_ops_infer.txt'"
    check "libcudnn_ops_infer defines the one version node HOSTDNN_PRIVATE_8.1" \
      test "$(nodes "$so")" = "HOSTDNN_PRIVATE_8.1 libcudnn_ops_infer.so.8 "
  else
    check "libcudnn_$l exports nothing versioned" test -z "$(private "$so")"
    check "libcudnn_$l carries no copy of the runtime (thread pool, logging)" \
      bash -c "! nm --defined-only '$so' | grep -qE ' (hd_parallel_for|hd_log_call_begin|hd_aligned_alloc)\$'"
    check "libcudnn_$l imports the runtime from ops_infer's private interface" \
      bash -c "nm -D --undefined-only '$so' | grep -q 'hd_fail@HOSTDNN_PRIVATE_8.1'"
  fi
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
