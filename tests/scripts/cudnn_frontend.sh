#!/usr/bin/env bash
# NVIDIA's cudnn-frontend samples (v0.1, v0.2: conv, heuristics, fallback, find/get plan, and
# the fusion graphs) against this build tree, every test case, plus a float64 check of the
# fusion samples' outputs (tests/samples/run_cudnn_frontend.sh, tests/samples/frontend_check.cpp).
#
# The frontend is not in this tree and CI cannot fetch it: set HOSTDNN_FRONTEND to a folder
# holding cudnn-frontend checkouts (e.g. v0.1/ and v0.2/ from github.com/NVIDIA/cudnn-frontend)
# to run them; without it this prints a SKIP line.  Not run in the sanitized pass (the samples
# are plain programs; the library calls they make are covered by the unit tests there).
set -u
. "$(dirname "$0")/../shlib.sh"
if sanitized; then
  skip "cudnn-frontend samples: not run in the sanitized pass"
elif [ -z "${HOSTDNN_FRONTEND:-}" ] || [ ! -d "${HOSTDNN_FRONTEND:-}" ]; then
  skip "cudnn-frontend samples: set HOSTDNN_FRONTEND to a folder of cudnn-frontend checkouts to run them (docs/backend.md)"
elif ! command -v g++ >/dev/null 2>&1; then
  skip "cudnn-frontend samples: g++ is not installed"
else
  out=$(HD_INCLUDE_DIR=$HD_ROOT/include HD_LIB_DIR=$HD_BUILD/lib HD_FRONTEND_CACHE=$HD_BUILD/frontend-cache \
        bash "$HD_ROOT/tests/samples/run_cudnn_frontend.sh" "$HOSTDNN_FRONTEND" 2>&1)
  printf '%s\n' "$out" | grep -E '^(PASS|FAIL)'
  if ! add_counts "$out"; then
    bad "run_cudnn_frontend.sh printed no closing line"
  fi
fi
finish
