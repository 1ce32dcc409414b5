#!/usr/bin/env python3
"""Write docs/coverage.md: the true state of every cuDNN 8.1 function in hostdnn.

    python3 tools/gen/coverage.py BUILD_DIR [OUT]

"implemented" comes from the build (BUILD_DIR/gen/implemented.tsv, written by gen_api.py:
a function has an HD_IMPL definition, otherwise it is a generated NOT_SUPPORTED stub);
"tested" means a test program or script under tests/ calls the function by name.
tests/scripts/coverage.sh fails when the committed file differs from what this writes.
"""
import collections
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read_tsv(path):
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        return [dict(zip(head, line.rstrip("\n").split("\t"))) for line in f if line.strip()]


def tested_names():
    names = set()
    tests = os.path.join(ROOT, "tests")
    for dirpath, _, files in os.walk(tests):
        for fn in files:
            if fn.endswith((".c", ".h", ".sh", ".py", ".cpp")):
                text = open(os.path.join(dirpath, fn), encoding="utf-8", errors="replace").read()
                names.update(re.findall(r"\b(cudnn[A-Z]\w*)\s*\(", text))
                names.update(re.findall(r"ORACLE_FN\((cudnn\w+)\)", text))
    return names


def notes():
    """Hand-kept limits of implemented functions (docs/coverage-notes.tsv): what they refuse."""
    path = os.path.join(ROOT, "docs", "coverage-notes.tsv")
    if not os.path.exists(path):
        return {}
    return {r["function"]: r["note"] for r in read_tsv(path)}


KINDS = (("hostdnn", "Not yet implemented in hostdnn",
           "cuDNN 8.1 runs these requests; hostdnn refuses them for now."),
          ("cudnn", "cuDNN 8.1's own limits",
           "cuDNN 8.1 refuses these requests too (or they lie outside what its types can express)."),
          ("passthrough", "Refusals passed on",
           "The status comes from a refusal decided elsewhere (the convolution solvers: docs/algorithms.md)."),
          ("internal", "Not refusals of a request",
           "The status appears without refusing anything the caller asked for."))


def not_supported_sites():
    """Every statement under src/ that mentions CUDNN_STATUS_NOT_SUPPORTED, as (file, line, text)."""
    sites = []
    src = os.path.join(ROOT, "src")
    for dirpath, _, files in os.walk(src):
        for fn in sorted(files):
            if not fn.endswith((".c", ".h", ".inc")):
                continue
            path = os.path.join(dirpath, fn)
            rel = os.path.relpath(path, ROOT)
            lines = open(path, encoding="utf-8").read().split("\n")
            for i, line in enumerate(lines):
                if "CUDNN_STATUS_NOT_SUPPORTED" not in line:
                    continue
                # the statement: back to its start (at most 3 lines), on to its ';' (at most 4)
                j = i
                while j > i - 3 and not re.search(r"\breturn\b|=|\bcase\b", lines[j]):
                    j -= 1
                k = i
                while ";" not in lines[k] and k < i + 4:
                    k += 1
                sites.append((rel, i + 1, " ".join(x.strip() for x in lines[j:k + 1])))
    return sites


def classify_sites():
    """Match every site with its row of docs/not-supported.tsv; any gap is an error."""
    rows = read_tsv(os.path.join(ROOT, "docs", "not-supported.tsv"))
    used = [0] * len(rows)
    errors = []
    for rel, line, text in not_supported_sites():
        hits = [i for i, r in enumerate(rows) if r["file"] == rel and r["match"] in text]
        if len(hits) != 1:
            errors.append("%s:%d: %s row(s) of docs/not-supported.tsv match this CUDNN_STATUS_NOT_SUPPORTED: %s"
                          % (rel, line, len(hits), text[:120]))
            continue
        used[hits[0]] += 1
    for i, r in enumerate(rows):
        if r["kind"] not in dict((k[0], 1) for k in KINDS):
            errors.append("docs/not-supported.tsv: kind %r of %s / %r is not one of %s"
                          % (r["kind"], r["file"], r["match"], ", ".join(k[0] for k in KINDS)))
        if used[i] != int(r["count"]):
            errors.append("docs/not-supported.tsv: %s / %r matches %d site(s), count says %s"
                          % (r["file"], r["match"], used[i], r["count"]))
    if errors:
        sys.stderr.write("\n".join(errors) + "\n")
        sys.exit(1)
    return rows


def not_supported_section(rows):
    total = sum(int(r["count"]) for r in rows)
    by = collections.OrderedDict((k[0], [r for r in rows if r["kind"] == k[0]]) for k in KINDS)
    n = dict((k, sum(int(r["count"]) for r in v)) for k, v in by.items())
    o = ["## Requests answered CUDNN_STATUS_NOT_SUPPORTED", "",
         "Every statement under `src/` that produces `CUDNN_STATUS_NOT_SUPPORTED` (%d of them) is classified"
         % total,
         "in docs/not-supported.tsv; this generator fails when one is missing or a row matches nothing.",
         "%d refuse what cuDNN 8.1 refuses too, %d are requests hostdnn does not implement yet, %d pass on"
         % (n["cudnn"], n["hostdnn"], n["passthrough"]),
         "a refusal decided elsewhere, and %d are not refusals. Each refusal logs its reason (docs/logging.md)."
         % n["internal"], ""]
    for key, title, text in KINDS:
        o += ["### %s" % title, "", text, "", "| where | request | places |", "|---|---|---:|"]
        for r in by[key]:
            o.append("| `%s` | %s | %s |" % (r["file"], r["note"], r["count"]))
        o.append("")
    return o


def main():
    build = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "docs", "coverage.md")
    rows = read_tsv(os.path.join(build, "gen", "implemented.tsv"))
    tested = tested_names()
    limits = notes()
    ns_rows = classify_sites()
    # A function whose every request is refused (a "hostdnn" row of docs/not-supported.tsv
    # whose note reads "NAME: not implemented") is not implemented, whatever its HD_IMPL
    # checks first: it is never counted as done.
    refused = set()
    for r in ns_rows:
        m = re.match(r"(cudnn\w+): not implemented\b", r["note"])
        if r["kind"] == "hostdnn" and m:
            refused.add(m.group(1))
    for r in rows:
        if r["name"] in refused:
            r["state"] = "refused"
    libs = collections.OrderedDict()
    for r in rows:
        libs.setdefault(r["library"], []).append(r)
    n_impl = sum(r["state"] == "implemented" for r in rows)
    n_tested = sum(r["state"] == "implemented" and r["name"] in tested for r in rows)
    o = ["# Coverage of the cuDNN 8.1 API", "",
         "Generated by `make coverage` (tools/gen/coverage.py) from the build and the tests; do not edit.",
         "",
         "- **implemented**: hostdnn has a real implementation (`HD_IMPL`) of the function.",
         "- **not implemented**: the function exists and is exported, logs an error and returns",
         "  `CUDNN_STATUS_NOT_SUPPORTED` (some check their arguments first, then refuse every request).",
         "- **tested**: a test under `tests/` calls it.",
         "",
         "Within an implemented function, requests that cuDNN 8.1 itself refuses, or that hostdnn does",
         "not support yet, still answer `CUDNN_STATUS_NOT_SUPPORTED` with a logged reason: the last",
         "section lists every one of them, the **limits** column (from docs/coverage-notes.tsv) names",
         "the main ones, and the area documents (docs/*.md) give the details.",
         "",
         "| library | functions | implemented | implemented and tested | not implemented |",
         "|---|---:|---:|---:|---:|"]
    for lib, rs in libs.items():
        i = sum(r["state"] == "implemented" for r in rs)
        t = sum(r["state"] == "implemented" and r["name"] in tested for r in rs)
        o.append("| %s | %d | %d | %d | %d |" % (lib, len(rs), i, t, len(rs) - i))
    o.append("| **all** | **%d** | **%d** | **%d** | **%d** |" % (len(rows), n_impl, n_tested, len(rows) - n_impl))
    o.append("")
    for lib, rs in libs.items():
        o.append("## libcudnn_%s" % lib)
        o.append("")
        o.append("| function | group | state | tested | deprecated in 8.x | limits |")
        o.append("|---|---|---|---|---|---|")
        for r in rs:
            impl = r["state"] == "implemented"
            state = "implemented" if impl else "**not implemented** (NOT_SUPPORTED)"
            if r["state"] == "refused":
                state = "**not implemented** (NOT_SUPPORTED after checking its arguments)"
            o.append("| `%s` | %s | %s | %s | %s | %s |" % (
                r["name"], r["group"], state,
                "yes" if (impl and r["name"] in tested) else ("-" if not impl else "no"),
                "yes" if r["deprecated"] == "yes" else "", limits.get(r["name"], "")))
        o.append("")
    o += not_supported_section(ns_rows)
    text = "\n".join(o)
    with open(out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
