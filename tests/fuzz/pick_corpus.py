#!/usr/bin/env python3
"""Choose the corpus kept in the repository from a fuzzing run.

libFuzzer's -merge=1 keeps every input that adds a feature: thousands of files after a long
run.  The repository keeps at most N per harness (tests/fuzz/corpus/<name>, replayed by make
check), so this picks them greedily by the features libFuzzer recorded for each input in a
merge control file: each pick adds the most code edges (COV lines) not yet covered, and once
every edge is in, the most features (FT lines: edges with hit counts, comparisons).  Inputs named regress-*
(the findings) are always kept.

  build-fuzz/tests/fuzz/fuzz_desc -merge=1 -merge_control_file=ctl.txt EMPTY_DIR INPUT_DIRS...
  tests/fuzz/pick_corpus.py ctl.txt N OUT_DIR
"""
import hashlib
import os
import shutil
import sys


def read_control(path):
    """Files in order, and the edge and feature sets of each (COV and FT lines)."""
    with open(path) as f:
        lines = f.read().split("\n")
    nfiles = int(lines[0])
    files = lines[2:2 + nfiles]
    sets = {"FT": {}, "COV": {}}
    for line in lines[2 + nfiles:]:
        parts = line.split()
        if len(parts) >= 2 and parts[0] in sets:
            sets[parts[0]][int(parts[1])] = set(int(x) for x in parts[2:])
    return files, sets["COV"], sets["FT"]


def greedy(files, sets, keep, limit):
    """Add to KEEP, up to LIMIT files, those that add the most of SETS not yet covered."""
    covered = set()
    for i in keep:
        covered |= sets.get(i, set())
    candidates = set(sets) - set(keep)
    while len(keep) < limit and candidates:
        best = max(candidates, key=lambda i: (len(sets[i] - covered), -os.path.getsize(files[i])))
        gain = sets[best] - covered
        if not gain:
            break
        keep.append(best)
        covered |= gain
        candidates.discard(best)


def share(sets, keep):
    every, got = set(), set()
    for i, s in sets.items():
        every |= s
        if i in keep:
            got |= s
    return "%d of %d (%.1f%%)" % (len(got), len(every), 100.0 * len(got) / max(1, len(every)))


def main():
    ctl, limit, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    files, edges, feats = read_control(ctl)
    keep = [i for i, p in enumerate(files) if os.path.basename(p).startswith("regress-")]
    greedy(files, edges, keep, limit)
    greedy(files, feats, keep, limit)
    os.makedirs(out, exist_ok=True)
    for i in keep:
        name = os.path.basename(files[i])
        if not name.startswith("regress-"):
            with open(files[i], "rb") as f:
                name = hashlib.sha1(f.read()).hexdigest()[:16]
        shutil.copyfile(files[i], os.path.join(out, name))
    print("%d files: edges %s, features %s" % (len(keep), share(edges, keep), share(feats, keep)))


if __name__ == "__main__":
    main()
