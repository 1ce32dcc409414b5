#!/usr/bin/env bash
# make coverage: regenerate docs/coverage.md from the build in $1.
set -e
cd "$(dirname "$0")/../.."
python3 tools/gen/coverage.py "${1:-build}"
echo "docs/coverage.md updated"
