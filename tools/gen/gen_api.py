#!/usr/bin/env python3
"""Generate the exported layer of every hostdnn library from the API facts.

    python3 tools/gen/gen_api.py SRC_ROOT OUT_DIR

For each sub-library it writes
  api_<lib>.c        one exported cudnn* entry point per function of that library: logs the call
                     and its arguments (CUDNN_LOGINFO_DBG), then calls the implementation
                     hd_impl_<name> written in src/ with HD_IMPL(name), or, where none exists
                     yet, answers CUDNN_STATUS_NOT_SUPPORTED with an error-level log;
  exports_<lib>.map  the linker version script exporting exactly that library's functions
                     (not for ops_infer, whose script also carries the private interface and
                     is written by gen_private.py from the compiled objects);
and for libcudnn.so.8
  shim_thunks.c      every function, forwarded to the sub-library that owns it;
  exports_cudnn.map
exports_<lib>.def (and exports_cudnn.def) give the same public lists for the Windows DLLs;
plus enum_names.c (enumerator names for the log), hd_impl.h (the prototype of every
hd_impl_<name>: internal code calls these, never the exported, logging cudnn* entry points)
and implemented.tsv (name, library, state), which docs/coverage.md is built from.

An implementation is found by scanning the library's source folders for a definition
`HD_IMPL(cudnnName)(...) {`; finding one in the wrong library's folder is an error.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import apidata  # noqa: E402

LIB_DIRS = {
    "ops_infer": ["src/ops/infer"],
    "ops_train": ["src/ops/train"],
    "cnn_infer": ["src/cnn/infer", "src/backend"],
    "cnn_train": ["src/cnn/train"],
    "adv_infer": ["src/adv/infer"],
    "adv_train": ["src/adv/train"],
}

# Calls made by the library itself while logging; logging them would recurse or flood the log.
QUIET = {"cudnnGetCallback"}

DEF_RE = re.compile(r"\bHD_IMPL\s*\(\s*(cudnn\w+)\s*\)\s*\(")


def scan_impls(src_root):
    found = {}
    for lib, dirs in LIB_DIRS.items():
        for d in dirs:
            top = os.path.join(src_root, d)
            for dirpath, _, files in os.walk(top):
                for fn in sorted(files):
                    if not fn.endswith(".c"):
                        continue
                    path = os.path.join(dirpath, fn)
                    text = open(path, encoding="utf-8").read()
                    for m in DEF_RE.finditer(text):
                        # A definition has its parameter list followed by a body.
                        i, depth = m.end() - 1, 0
                        while i < len(text):
                            if text[i] == "(":
                                depth += 1
                            elif text[i] == ")":
                                depth -= 1
                                if depth == 0:
                                    break
                            i += 1
                        rest = text[i + 1:].lstrip()
                        if rest.startswith("{"):
                            found.setdefault(m.group(1), []).append((lib, os.path.relpath(path, src_root)))
    return found


def zero_of(ret):
    if ret == "cudnnStatus_t":
        return "CUDNN_STATUS_NOT_SUPPORTED"
    if ret.endswith("*"):
        return "NULL"
    return "0"


def log_arg(p, enum_types):
    """C statement that logs one argument, chosen by its type."""
    t = p.ctype.replace("const ", "").strip()
    if t.endswith(" const"):
        t = t[:-len(" const")]
    n = p.name
    if t == "cudnnAlgorithm_t":
        return 'hd_log_arg_int("%s", "%s", (long long)%s.algo.convFwdAlgo);' % (n, t, n)
    if t == "cudnnCallback_t":
        return 'hd_log_arg_ptr("%s", "%s", (const void *)(uintptr_t)%s);' % (n, t, n)
    if p.array or t.endswith("*"):
        return 'hd_log_arg_ptr("%s", "%s", (const void *)%s);' % (n, p.ctype + (p.array and "[]"), n)
    if t in enum_types:
        return 'hd_log_arg_enum("%s", "%s", (int)%s, hd_enum_name_%s((int)%s));' % (n, t, n, t, n)
    if t in ("float", "double"):
        return 'hd_log_arg_double("%s", "%s", (double)%s);' % (n, t, n)
    if t in ("int", "int32_t", "int64_t", "long long", "long"):
        return 'hd_log_arg_int("%s", "%s", (long long)%s);' % (n, t, n)
    if t in ("unsigned", "unsigned int", "size_t", "uint32_t", "uint64_t", "unsigned long long"):
        return 'hd_log_arg_uint("%s", "%s", (unsigned long long)%s);' % (n, t, n)
    if t.endswith("_t") and t.startswith("cudnn"):
        # descriptors, the handle, the backend descriptor (void *)
        return 'hd_log_arg_ptr("%s", "%s", (const void *)%s);' % (n, t, n)
    if t == "cudaStream_t":
        return 'hd_log_arg_ptr("%s", "%s", (const void *)%s);' % (n, t, n)
    raise SystemExit("gen_api: no log rule for parameter type %r of %s" % (p.ctype, n))


def handle_arg(f):
    for p in f.params:
        if p.ctype.strip() == "cudnnHandle_t":
            return p.name
    return "NULL"


def emit_impl_decls(funcs, impls):
    o = ["/* Generated by tools/gen/gen_api.py: the implementation behind every implemented cuDNN",
         " * function.  Code inside a library calls these (hd_impl_cudnnX), not the exported cudnnX,",
         " * which would log a call the user never made.  A library may call its own; another",
         " * library's only through the private interface (ops_infer's, see gen_private.py). */",
         "#ifndef HD_GEN_HD_IMPL_H", "#define HD_GEN_HD_IMPL_H", ""]
    for f in funcs:
        if f.name in impls:
            args = ", ".join(p.ctype_with_name for p in f.params) or "void"
            o.append("%s hd_impl_%s(%s);" % (f.ret, f.name, args))
    o += ["", "#endif", ""]
    return "\n".join(o)


def emit_api(lib, funcs, impls, enum_types):
    o = ["/* Generated by tools/gen/gen_api.py: exported entry points of libcudnn_%s. */" % lib,
         '#include "core/api.h"', '#include "hd_impl.h"', ""]
    for f in funcs:
        if f.library != lib:
            continue
        have = f.name in impls
        args = ", ".join(p.ctype_with_name for p in f.params) or "void"
        names = ", ".join(p.name for p in f.params)
        o.append("HD_EXPORT %s CUDNNWINAPI %s(%s)" % (f.ret, f.name, args))
        o.append("{")
        if f.name not in QUIET:
            o.append("    if (hd_log_info_enabled()) {")
            o.append('        hd_log_call_begin("%s");' % f.name)
            for p in f.params:
                o.append("        " + log_arg(p, enum_types))
            o.append("        hd_log_call_end((const void *)%s);" % handle_arg(f))
            o.append("    }")
        if have:
            o.append("    return hd_impl_%s(%s);" % (f.name, names))
        else:
            for p in f.params:
                o.append("    (void)%s;" % p.name)
            if f.ret == "cudnnStatus_t":
                o.append('    return hd_not_implemented("%s");' % f.name)
            else:
                o.append('    (void)hd_not_implemented("%s");' % f.name)
                o.append("    return %s;" % zero_of(f.ret))
        o.append("}")
        o.append("")
    return "\n".join(o)


def emit_map(names, node="CUDNN_8"):
    # Unversioned exports, like NVIDIA's libraries: a global list and everything else local.
    o = ["{", "  global:"]
    for n in names:
        o.append("    %s;" % n)
    o += ["  local:", "    *;", "};", ""]
    return "\n".join(o)


def emit_def(dll, names):
    # The Windows build's export list (cmake/windows.cmake): the same names, undecorated.
    o = ["LIBRARY %s" % dll, "EXPORTS"]
    for n in names:
        o.append("    %s" % n)
    return "\n".join(o) + "\n"


def emit_shim(funcs):
    o = ["/* Generated by tools/gen/gen_api.py: libcudnn.so.8 forwards every call to the",
         " * sub-library that implements it, loaded on first use (see src/shim/shim.c). */",
         '#include "shim/shim.h"', ""]
    for f in funcs:
        args = ", ".join(p.ctype_with_name for p in f.params) or "void"
        names = ", ".join(p.name for p in f.params)
        ptypes = ", ".join(p.ctype + (" *" if p.array else "") for p in f.params) or "void"
        o.append("typedef %s (*hd_fp_%s)(%s);" % (f.ret, f.name, ptypes))
        o.append("HD_EXPORT %s CUDNNWINAPI %s(%s)" % (f.ret, f.name, args))
        o.append("{")
        o.append("    static void *volatile slot;")
        o.append('    hd_fp_%s fn = (hd_fp_%s)hd_shim_resolve(HD_LIB_%s, "%s", &slot);' % (
            f.name, f.name, f.library.upper(), f.name))
        if f.ret == "void":
            o.append("    if (fn) fn(%s);" % names)
        else:
            o.append("    if (!fn) return %s;" % (
                "CUDNN_STATUS_NOT_INITIALIZED" if f.ret == "cudnnStatus_t" else zero_of(f.ret)))
            o.append("    return fn(%s);" % names)
        o.append("}")
        o.append("")
    return "\n".join(o)


def emit_enum_names(enums):
    o = ["/* Generated by tools/gen/gen_api.py: enumerator names for API logging. */",
         '#include "core/api.h"', ""]
    for t, (lib, items) in enums.items():
        o.append("const char *hd_enum_name_%s(int v)" % t)
        o.append("{")
        o.append("    switch (v) {")
        seen = set()
        for n, v in items:
            if v in seen:
                continue
            seen.add(v)
            o.append('    case %d: return "%s";' % (v, n))
        o.append("    default: return \"(out of range)\";")
        o.append("    }")
        o.append("}")
        o.append("")
    return "\n".join(o)


def emit_enum_decls(enums):
    o = ["/* Generated by tools/gen/gen_api.py. */", "#ifndef HD_GEN_ENUM_NAMES_H", "#define HD_GEN_ENUM_NAMES_H", ""]
    for t in enums:
        o.append("const char *hd_enum_name_%s(int v);" % t)
    o += ["", "#endif", ""]
    return "\n".join(o)


def write(path, text):
    # Leave unchanged files alone so the build does not recompile them.
    if os.path.exists(path) and open(path).read() == text:
        return
    with open(path, "w") as f:
        f.write(text)


def main():
    src_root, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    funcs = apidata.functions()
    enums = apidata.enums()
    enum_types = set(enums)
    impls = scan_impls(src_root)
    errors = []
    by_name = {f.name: f for f in funcs}
    for name, places in impls.items():
        if name not in by_name:
            errors.append("%s is not a cuDNN 8.1 function (defined in %s)" % (name, places[0][1]))
            continue
        if len(places) > 1:
            errors.append("%s is defined more than once: %s" % (name, ", ".join(p[1] for p in places)))
        for lib, path in places:
            if lib != by_name[name].library:
                errors.append("%s belongs to %s but is defined in %s" % (name, by_name[name].library, path))
    if errors:
        sys.exit("gen_api: " + "\n  ".join(errors))
    for lib in apidata.LIBS:
        write(os.path.join(out, "api_%s.c" % lib), emit_api(lib, funcs, impls, enum_types))
        names = [f.name for f in funcs if f.library == lib]
        if lib != "ops_infer":
            write(os.path.join(out, "exports_%s.map" % lib), emit_map(names))
        write(os.path.join(out, "exports_%s.def" % lib), emit_def("cudnn_%s64_8.dll" % lib, names))
    write(os.path.join(out, "hd_impl.h"), emit_impl_decls(funcs, impls))
    write(os.path.join(out, "exports_cudnn.map"), emit_map([f.name for f in funcs]))
    write(os.path.join(out, "exports_cudnn.def"), emit_def("cudnn64_8.dll", [f.name for f in funcs]))
    write(os.path.join(out, "shim_thunks.c"), emit_shim(funcs))
    write(os.path.join(out, "enum_names.c"), emit_enum_names(enums))
    write(os.path.join(out, "enum_names.h"), emit_enum_decls(enums))
    rows = ["name\tlibrary\tgroup\tdirection\tdeprecated\tstate"]
    for f in funcs:
        rows.append("%s\t%s\t%s\t%s\t%s\t%s" % (f.name, f.library, f.group, f.direction,
                                              "yes" if f.deprecated else "no",
                                              "implemented" if f.name in impls else "not-implemented"))
    write(os.path.join(out, "implemented.tsv"), "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
