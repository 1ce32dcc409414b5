# Shared helpers for the shell tests: counting checks and the closing line.
# Source it, call ok/bad or check "description" command..., then finish.
# skip "reason" counts a check that cannot run here and prints "SKIP reason"; finish then
# closes with "N passed, N failed, N skipped" (tests/run_all.sh lists the SKIP lines).
HD_ROOT=${HD_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
HD_BUILD=${HD_BUILD:-$HD_ROOT/build}
HD_SHARED=${HD_SHARED:-$HD_ROOT/../shared}
passed=0
failed=0
skipped=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
check() {
  local what=$1; shift
  if "$@" >/tmp/hd_check.$$ 2>&1; then ok; else bad "$what"; sed -n '1,20p' /tmp/hd_check.$$ >&2; fi
  rm -f /tmp/hd_check.$$
}
skip() { skipped=$((skipped + 1)); echo "SKIP $*"; }
# add_counts "$output": add the passes and failures of the last closing line in a test
# program's output (its skips are its own, made on purpose by the caller's settings); returns
# non-zero when the output has no closing line.
add_counts() {
  local line
  line=$(printf '%s\n' "$1" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
  [ -n "$line" ] || return 1
  set -- $line
  passed=$((passed + $1))
  failed=$((failed + ${3%,}))
}
sanitized() { case "${HD_MODE:-}" in *sanitized*) return 0;; esac; return 1; }
finish() {
  if [ "$skipped" -gt 0 ]; then echo "$passed passed, $failed failed, $skipped skipped"
  else echo "$passed passed, $failed failed"; fi
  [ "$failed" -eq 0 ]
}
