#!/usr/bin/env bash
# docs/coverage.md must be exactly what the build and the tests say (run `make coverage`).
. "$(dirname "$0")/../shlib.sh"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
check "coverage generator runs" python3 "$HD_ROOT/tools/gen/coverage.py" "$HD_BUILD" "$tmp"
check "docs/coverage.md is up to date (run make coverage)" diff -u "$HD_ROOT/docs/coverage.md" "$tmp"
finish
