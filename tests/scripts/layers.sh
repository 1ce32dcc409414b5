#!/usr/bin/env bash
# The direction of includes between the layers of src/, and the size of source files.
#
#   core     src/core                      includes only core
#   kernels  src/kernels/<family>          includes core and its own family (plus CROSS below)
#   engines  src/conv src/norm src/rnn src/attn src/fusion
#                                          includes core, kernels and engines, never the API
#                                          layer (src/ops src/cnn src/adv src/backend)
#
# An include without a folder ("cudnn.h", "enum_names.h") is a public or generated header and
# allowed everywhere; angle-bracket includes are system headers.  Every .c, .h and .inc under
# src/, tests/, tools/, bench/ and examples/ has at most MAX_LINES lines.
#
# Three contracts of the middle layer, checked in the source:
#   - no code under src/ calls an exported cudnn* entry point (they log the call; internal
#     code calls hd_impl_cudnnX, test_internal_calls checks the log at run time);
#   - one per-thread scratch limit, HD_SCRATCH_SLOTS (src/core/parallel.h), no local copies;
#   - the convolution engine reads the instruction set from its problem (hd_conv_problem.isa,
#     set in conv_problem.c), never from hd_cpu_isa() in a solver.
# Prints "N passed, N failed".
. "$(dirname "$0")/../shlib.sh"
cd "$HD_ROOT" || exit 1

MAX_LINES=800

# Kernel families that may include another family's header, each for a stated reason:
#   igemm -> gemm       the indirect GEMM stores its tiles with the packed GEMM's store helpers
#   wino4 -> transpose  the Winograd transforms use the register transposes
#   conv  -> transpose  the im2col and backward-filter copies use the register transposes
#   softmax -> eltwise  the AVX-512 softmax uses the eltwise family's exp polynomial (one copy)
#   gemm  -> transpose  the AVX-512 A ('N') and B ('T') panel packers use the register transposes
#   dwconv -> transpose the AVX2 gather and scatter of blocked rows use the 8x8 register transpose
#   softmax -> eltwise  (also the AVX2 exp polynomial, f32-exp-avx2.h)
#   softmax -> transpose the 16-group NHWC softmax moves its groups into channel rows with the
#                       16x16 register transpose
CROSS="igemm:gemm wino4:transpose conv:transpose softmax:eltwise gemm:transpose dwconv:transpose softmax:transpose"

# Known violations that other work removes; delete a line once its file is fixed.
KNOWN_INCLUDES=""
# Known oversize files; delete a line once its file is split.
KNOWN_OVERSIZE=""

known() { case "$2" in *"
$1
"*) return 0;; esac; return 1; }

sources() { find "$@" -type f \( -name '*.c' -o -name '*.h' -o -name '*.inc' \) 2>/dev/null | sort; }

# The quoted includes with a folder: "dir/..." -> the path inside the quotes.
includes() { sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\/[^"]*\)".*/\1/p' "$1"; }

# allowed LAYER FILE INCLUDE -> 0 if FILE (in LAYER) may include INCLUDE
allowed() {
  local layer=$1 file=$2 inc=$3 top=${3%%/*}
  case $layer in
  core) [ "$top" = core ] ;;
  kernels)
    [ "$top" = core ] && return 0
    [ "$top" = kernels ] || return 1
    local own=${file#src/kernels/}; own=${own%%/*}
    local fam=${inc#kernels/}; fam=${fam%%/*}
    [ "$fam" = "$own" ] && return 0
    case " $CROSS " in *" $own:$fam "*) return 0;; esac
    return 1 ;;
  engines)
    case $top in core|kernels|conv|norm|rnn|attn|fusion) return 0;; esac
    return 1 ;;
  esac
}

check_layer() {
  local layer=$1; shift
  local files n=0 bad_list="" f inc
  files=$(sources "$@")
  for f in $files; do
    n=$((n + 1))
    for inc in $(includes "$f"); do
      allowed "$layer" "$f" "$inc" && continue
      if known "$f:$inc" "$KNOWN_INCLUDES"; then
        echo "known exception: $f includes $inc"
        continue
      fi
      bad_list="$bad_list $f:$inc"
    done
  done
  if [ -z "$bad_list" ]; then
    ok
  else
    bad "$layer: includes against the direction:$(printf '\n  %s' $bad_list)"
  fi
  echo "$layer: $n files checked"
}

check_layer core src/core
check_layer kernels src/kernels
check_layer engines src/conv src/norm src/rnn src/attn src/fusion

# src/kernels holds only families: no files at its top level.
top=$(find src/kernels -maxdepth 1 -type f | sort)
if [ -z "$top" ]; then ok; else bad "files at the top of src/kernels (put them in a family):" $top; fi

# A known exception that no longer happens can be deleted from the lists (a note, not a failure,
# so that the change that fixes a file does not have to touch this test).
for e in $KNOWN_INCLUDES; do
  f=${e%%:*} inc=${e#*:}
  [ -f "$f" ] && includes "$f" | grep -qxF "$inc" || echo "note: known exception $e no longer happens: delete it"
done

over=""
for f in $(sources src tests tools bench examples); do
  n=$(wc -l < "$f")
  [ "$n" -le "$MAX_LINES" ] && continue
  if known "$f" "$KNOWN_OVERSIZE"; then
    echo "known oversize: $f ($n lines)"
  else
    over="$over $f($n)"
  fi
done
if [ -z "$over" ]; then ok; else bad "files over $MAX_LINES lines:$over"; fi
for f in $KNOWN_OVERSIZE; do
  [ -f "$f" ] && [ "$(wc -l < "$f")" -gt "$MAX_LINES" ] || echo "note: $f is no longer oversize: delete it from KNOWN_OVERSIZE"
done

# Calls of exported cudnn* functions in src/ (comments, strings and the HD_IMPL definitions
# aside).  The host CUDA runtime and cuBLAS call no cuDNN function either.
calls=$(grep -rnE '(^|[^_A-Za-z0-9"])cudnn[A-Z][A-Za-z0-9_]*[[:space:]]*\(' src --include='*.c' --include='*.h' --include='*.inc' |
  grep -vE '^[^:]+:[0-9]+:[[:space:]]*(\*|/\*|//)' | grep -vE 'HD_IMPL\(|/\*.*cudnn[A-Z]|"[^"]*cudnn[A-Z][^"]*"' |
  grep -vE '^[^:]+:[0-9]+:(cudnnStatus_t|size_t|const char \*) cudnn' || true)
if [ -z "$calls" ]; then ok; else bad "internal calls through exported cudnn* functions (use hd_impl_):$(printf '\n  %s' "$calls")"; fi

slots=$(grep -rnE '#[[:space:]]*define[[:space:]]+[A-Z_]*SLOTS[[:space:]]' src | grep -v '^src/core/parallel.h:' || true)
if [ -z "$slots" ]; then ok; else bad "scratch-slot limits besides HD_SCRATCH_SLOTS:$(printf '\n  %s' "$slots")"; fi

isa=$(grep -rn 'hd_cpu_isa()' src/conv | grep -v '^src/conv/conv_problem.c:' | grep -vE ':[[:space:]]*(\*|/\*|//)' || true)
if [ -z "$isa" ]; then ok; else bad "convolution code choosing kernels from hd_cpu_isa() instead of its problem's isa:$(printf '\n  %s' "$isa")"; fi

finish
