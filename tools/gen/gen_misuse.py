#!/usr/bin/env python3
"""Write misuse_table.h: every cuDNN 8.1 function as the misuse harness sees it.

For each of the 261 functions of functions.tsv the table lists its parameters by class (handle,
descriptor of a kind, input or output data pointer, output scalar, integer, size, enum, real,
integer array, other) and a wrapper that calls the function from an array of generic values, so
tests/unit/test_misuse_all.c can mutate any argument of any function without hand-written calls.
Enum types carry their valid values (enums.tsv), so the harness can pick one in range and one
just outside.

    python3 tools/gen/gen_misuse.py BUILD/gen/misuse_table.h

The build runs it (tests/CMakeLists.txt), so the table always follows the inventory.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import apidata  # noqa: E402

# Opaque object types and the descriptor kind the harness builds for them.
DESC_KINDS = [
    ("cudnnTensorDescriptor_t", "TENSOR"),
    ("cudnnFilterDescriptor_t", "FILTER"),
    ("cudnnConvolutionDescriptor_t", "CONV"),
    ("cudnnPoolingDescriptor_t", "POOLING"),
    ("cudnnActivationDescriptor_t", "ACTIVATION"),
    ("cudnnLRNDescriptor_t", "LRN"),
    ("cudnnOpTensorDescriptor_t", "OPTENSOR"),
    ("cudnnReduceTensorDescriptor_t", "REDUCE"),
    ("cudnnTensorTransformDescriptor_t", "TRANSFORM"),
    ("cudnnDropoutDescriptor_t", "DROPOUT"),
    ("cudnnSpatialTransformerDescriptor_t", "SPATIAL_TF"),
    ("cudnnCTCLossDescriptor_t", "CTC"),
    ("cudnnRNNDescriptor_t", "RNN"),
    ("cudnnRNNDataDescriptor_t", "RNN_DATA"),
    ("cudnnSeqDataDescriptor_t", "SEQ_DATA"),
    ("cudnnAttnDescriptor_t", "ATTN"),
    ("cudnnFusedOpsConstParamPack_t", "FUSED_CONST"),
    ("cudnnFusedOpsVariantParamPack_t", "FUSED_VARIANT"),
    ("cudnnFusedOpsPlan_t", "FUSED_PLAN"),
    ("cudnnAlgorithmDescriptor_t", "ALGO_DESC"),
    ("cudnnAlgorithmPerformance_t", "ALGO_PERF"),
    ("cudnnPersistentRNNPlan_t", "PERSIST_PLAN"),
    ("cudnnBackendDescriptor_t", "BACKEND"),
]
DESC = dict(DESC_KINDS)

INTS = {"int": (4, 1), "int32_t": (4, 1), "unsigned": (4, 0), "uint32_t": (4, 0),
        "int64_t": (8, 1), "unsigned long long": (8, 0)}
SCALAR_SIZE = {"int": 4, "int32_t": 4, "unsigned": 4, "uint32_t": 4, "int64_t": 8,
               "unsigned long long": 8, "size_t": 8, "double": 8, "float": 4, "void *": 8,
               "cudaStream_t": 8, "cudnnCallback_t": 8, "cudnnHandle_t": 8}
# Pointers to structs the API fills: arrays of results, sized by a count argument.
OUT_STRUCTS = {"cudnnConvolutionFwdAlgoPerf_t", "cudnnConvolutionBwdDataAlgoPerf_t",
               "cudnnConvolutionBwdFilterAlgoPerf_t", "cudnnAlgorithm_t"}


def strip_const(t):
    t = re.sub(r"^const\s+", "", t.strip())
    return re.sub(r"\s+const$", "", t)


def classify(p, enums):
    """(class, sub, size, cast) of one parameter."""
    t = p.ctype.strip()
    base = strip_const(t)
    const = t.startswith("const ") or t.endswith(" const")
    if p.array:
        elem = strip_const(t)
        cast = ("const " if const else "") + elem + " *"
        return ("MS_IARR_IN" if const else "MS_IARR_OUT", "0", "sizeof(%s)" % elem, cast)
    if base in ("cudnnHandle_t",):
        return ("MS_HANDLE", "0", "0", base)
    if base in DESC:
        return ("MS_DESC", "MS_K_" + DESC[base], "1" if const else "0", base)
    if base == "void *":
        return ("MS_IN" if const else "MS_OUT", "0", "0", t)
    if base == "size_t":
        return ("MS_SIZE", "0", "8", "size_t")
    if base in INTS:
        size, signed = INTS[base]
        return ("MS_INT", str(signed), str(size), base)
    if base in ("double", "float"):
        return ("MS_REAL", "0", "sizeof(%s)" % base, base)
    if base in enums:
        return ("MS_ENUM", "MS_E_" + base, "4", base)
    if base == "cudnnAlgorithm_t":
        return ("MS_OTHER", "MS_O_ALGO", "0", base)
    if base == "cudnnCallback_t":
        return ("MS_OTHER", "MS_O_CALLBACK", "0", base)
    if base == "cudaStream_t":
        return ("MS_OTHER", "MS_O_STREAM", "0", base)
    m = re.match(r"^(.*?)\s*\*$", base)
    if m:
        pointee = strip_const(m.group(1))
        if pointee.endswith("Descriptor_t") and pointee == "cudnnTensorDescriptor_t" and const:
            return ("MS_DESC_ARR", "MS_K_TENSOR", "1", t)
        if const:
            return ("MS_IARR_IN", "0", "sizeof(%s)" % pointee, t)
        if pointee in OUT_STRUCTS:
            return ("MS_OUT", "1", "sizeof(%s)" % pointee, t)
        if pointee == "cudnnRuntimeTag_t":
            return ("MS_OTHER", "MS_O_TAG", "0", t)
        if pointee == "cudnnAlgorithmPerformance_t":
            return ("MS_OUT", "1", "sizeof(%s)" % pointee, t)
        return ("MS_SCALAR_OUT", "0", "sizeof(%s)" % pointee, t)
    raise SystemExit("gen_misuse: no class for %s %s" % (t, p.name))


def value(cls, sub, cast, i):
    v = "v[%d]" % i
    if cls in ("MS_INT", "MS_ENUM", "MS_SIZE"):
        return "(%s)%s.i" % (cast, v)
    if cls == "MS_REAL":
        return "(%s)%s.d" % (cast, v)
    if cls == "MS_OTHER" and sub == "MS_O_ALGO":
        return "*(const cudnnAlgorithm_t *)%s.p" % v
    if cls == "MS_OTHER" and sub == "MS_O_CALLBACK":
        return "(cudnnCallback_t)%s.fp" % v
    return "(%s)%s.p" % (cast, v)


def main(out):
    enums = apidata.enums()
    fns = apidata.functions()
    lines = []
    w = lines.append
    w("/* Generated by tools/gen/gen_misuse.py from the cuDNN 8.1 API inventory: do not edit.")
    w(" * Every function's parameters by class and a wrapper calling it from generic values;")
    w(" * tests/unit/test_misuse_all.c is the harness that uses it. */")
    w("#ifndef HD_TEST_MISUSE_TABLE_H")
    w("#define HD_TEST_MISUSE_TABLE_H")
    w("#include <cudnn.h>")
    w("#include <stddef.h>")
    w("#include <stdint.h>")
    w("#pragma GCC diagnostic ignored \"-Wdeprecated-declarations\"")
    w("")
    w("typedef union ms_val { void *p; long long i; double d; void (*fp)(void); } ms_val;")
    w("enum ms_class { MS_HANDLE, MS_DESC, MS_DESC_ARR, MS_IN, MS_OUT, MS_SCALAR_OUT, MS_INT, MS_SIZE,")
    w("    MS_REAL, MS_ENUM, MS_IARR_IN, MS_IARR_OUT, MS_OTHER };")
    w("enum ms_other { MS_O_ALGO = 1, MS_O_CALLBACK, MS_O_STREAM, MS_O_TAG };")
    w("enum ms_kind { " + ", ".join("MS_K_" + k for _, k in DESC_KINDS) + ", MS_K_COUNT };")
    w("static const char *const ms_kind_name[] = { " + ", ".join('"%s"' % k.lower() for _, k in DESC_KINDS) + " };")
    names = list(enums)
    w("enum ms_enum_id { " + ", ".join("MS_E_" + n for n in names) + ", MS_E_COUNT };")
    w("typedef struct ms_enum { const char *name; int count; const int *values; } ms_enum;")
    for n in names:
        vals = sorted(set(v for _, v in enums[n][1]))
        w("static const int ms_ev_%s[] = { %s };" % (n, ", ".join(str(x) for x in vals)))
    w("static const ms_enum ms_enums[] = {")
    for n in names:
        w('    { "%s", (int)(sizeof ms_ev_%s / sizeof(int)), ms_ev_%s },' % (n, n, n))
    w("};")
    w("")
    w("/* cls: enum ms_class; sub: descriptor kind, enum id, MS_OTHER kind, MS_INT signedness, or")
    w(" * 1 for an MS_OUT array of structs; size: element or scalar size (for MS_DESC, 1 = const). */")
    w("typedef struct ms_param { const char *name; const char *ctype; int cls, sub, size; } ms_param;")
    w("/* status: 1 when the function returns a cudnnStatus_t (the wrapper's answer is its own). */")
    w("typedef struct ms_func { const char *name, *group, *direction; int np, status; const ms_param *p;")
    w("    cudnnStatus_t (*call)(const ms_val *v); } ms_func;")
    w("")
    for f in fns:
        params = [classify(p, enums) for p in f.params]
        if params:
            w("static const ms_param ms_p_%s[] = {" % f.name)
            for p, c in zip(f.params, params):
                w('    { "%s", "%s", %s, %s, %s },' % (p.name, p.ctype + (p.array or ""), c[0], c[1], c[2]))
            w("};")
        args = ", ".join(value(c[0], c[1], c[3], i) for i, c in enumerate(params))
        vv = "v" if params else "(void)v"
        w("static cudnnStatus_t ms_c_%s(const ms_val *v)" % f.name)
        if f.ret == "cudnnStatus_t":
            w("{%s return %s(%s); }" % (" (void)v;" if not params else "", f.name, args))
        elif f.ret == "const char *":
            w("{ return %s(%s) ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_INTERNAL_ERROR; }" % (f.name, args))
        else:
            w("{ %s; return %s() ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_INTERNAL_ERROR; }" % (vv, f.name))
    w("")
    w("static const ms_func ms_funcs[] = {")
    for f in fns:
        p = "ms_p_" + f.name if f.params else "NULL"
        w('    { "%s", "%s", "%s", %d, %d, %s, ms_c_%s },' % (f.name, f.group, f.direction, len(f.params),
                                                     f.ret == "cudnnStatus_t", p, f.name))
    w("};")
    w("#define MS_NFUNCS ((int)(sizeof ms_funcs / sizeof ms_funcs[0]))")
    w("#endif")
    with open(out, "w") as fh:
        fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: gen_misuse.py OUT.h")
    main(sys.argv[1])
