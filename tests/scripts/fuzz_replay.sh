#!/usr/bin/env bash
# Replay the fuzzers' corpus (tests/fuzz/corpus/<harness>) through each harness built with the
# test build's compiler (tests/fuzz: fuzz_replay_<harness>), so that every input the fuzzers
# kept -- the crashes they found among them -- runs in make check, also under ASan+UBSan.
source "$(dirname "$0")/../shlib.sh"
for h in desc compute; do
  exe=$HD_BUILD/tests/fuzz/fuzz_replay_$h
  dir=$HD_ROOT/tests/fuzz/corpus/$h
  if [ ! -x "$exe" ]; then
    bad "$exe was not built"
    continue
  fi
  n=$(find "$dir" -type f | wc -l)
  if [ "$n" -eq 0 ]; then
    bad "no corpus in $dir"
    continue
  fi
  # one check per corpus file (the replay's closing line); a crash leaves no closing line
  out=$("$exe" "$dir" 2>&1)
  rc=$?
  if ! add_counts "$out" || [ $rc -ne 0 ]; then
    bad "fuzz_replay_$h over $n files (exit $rc)"
    printf '%s\n' "$out" | tail -n 20 >&2
  fi
done
finish
