#!/usr/bin/env bash
# A refusal must be visible with CUDNN_LOGERR_DBG=1 alone: every call that returns an error
# status logs its reason at error level (hd_fail / HD_FAIL), never only at warning level.
# Fails on `return hd_warn(` anywhere in src/ unless the status is CUDNN_STATUS_SUCCESS
# (hd_warn is for answers that are not failures).  The run-time side is test_logging's
# "NOT_SUPPORTED refusals" sections.  Prints "N passed, N failed".
. "$(dirname "$0")/../shlib.sh"
cd "$HD_ROOT" || exit 1

# Paths exempt from the check (none now); one per line.
EXEMPT=""

exempt() {
  local p
  for p in $EXEMPT; do
    case $1 in "$p"*) return 0;; esac
  done
  return 1
}

# hd_warn returned as the call's answer: the log is warning level, the status an error.
# Comment lines (starting with *, /* or //) are not code.
sites=$(grep -rnE 'return[[:space:]]+hd_warn[[:space:]]*\(' src --include='*.c' --include='*.h' --include='*.inc' |
  grep -vE '^[^:]+:[0-9]+:[[:space:]]*(\*|/\*|//)' |
  grep -vE 'hd_warn[[:space:]]*\([[:space:]]*CUDNN_STATUS_SUCCESS[[:space:]]*,' || true)
found="" n_exempt=0
while IFS= read -r line; do
  [ -n "$line" ] || continue
  f=${line%%:*}
  if exempt "$f"; then
    echo "exempt (reworked elsewhere): $line"
    n_exempt=$((n_exempt + 1))
  else
    found="$found
  $line"
  fi
done <<<"$sites"
if [ -z "$found" ]; then ok; else bad "error returns logged at warning level only (use hd_fail / HD_FAIL):$found"; fi

# A status-less refusal path: the generated stubs answer through hd_not_implemented, which
# must log at error level too.
if grep -A3 '^cudnnStatus_t hd_not_implemented' src/core/log.c | grep -q 'return hd_fail('; then ok
else bad "hd_not_implemented (src/core/log.c) must log through hd_fail"; fi

echo "$n_exempt exempt site(s)"
finish
