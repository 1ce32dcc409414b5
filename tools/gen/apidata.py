"""Read the cuDNN 8.1 API facts (tools/gen/api/*.tsv) into plain Python objects.

The TSVs are a copy of the project's ABI inventory (../shared/api).  Every generator in
tools/gen reads them through this module so there is exactly one parser.
"""
import csv
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
API_DIR = os.path.join(HERE, "api")

# Sub-library order follows cuDNN 8's dependency graph: ops_infer is the bottom.
LIBS = ["ops_infer", "ops_train", "cnn_infer", "cnn_train", "adv_infer", "adv_train"]

# The seven cudnnBackend* functions have no sub-library of their own in the TSV; cuDNN 8
# ships them in libcudnn_cnn_infer, so that is where hostdnn puts them too.
BACKEND_HOME = "cnn_infer"


def _read(name):
    with open(os.path.join(API_DIR, name), newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


class Param:
    def __init__(self, ctype, name):
        self.ctype = ctype
        self.name = name


class Function:
    def __init__(self, row):
        self.name = row["name"]
        self.header = row["library"]          # header that declares it
        self.library = BACKEND_HOME if row["library"] == "backend" else row["library"]
        self.group = row["group"]
        self.direction = row["direction"]
        self.deprecated = row["deprecated"] == "yes"
        self.signature = row["signature"]
        self.ret, self.params = parse_signature(self.signature, self.name)

    def decl(self):
        """Prototype with the calling-convention and deprecation macros in cuDNN's places."""
        args = ", ".join(p.ctype_with_name for p in self.params) if self.params else "void"
        dep = "CUDNN_DEPRECATED " if self.deprecated else ""
        return "%s%s CUDNNWINAPI\n%s(%s);" % (dep, self.ret, self.name, args)


def parse_signature(sig, name):
    head, rest = sig.split(name + "(", 1)
    ret = head.strip()
    inner = rest.rsplit(")", 1)[0].strip()
    params = []
    if inner and inner != "void":
        for part in split_params(inner):
            part = part.strip()
            m = re.match(r"^(.*?)(\w+)(\s*\[\s*\w*\s*\])?$", part)
            ctype, pname, arr = m.group(1).strip(), m.group(2), m.group(3) or ""
            p = Param(ctype, pname)
            p.array = arr
            p.ctype_with_name = part
            params.append(p)
    return ret, params


def split_params(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


def functions(include_82=False):
    rows = _read("functions.tsv")
    return [Function(r) for r in rows if include_82 or r["since"] == "<=8.1"]


def enums(include_82=False):
    """Ordered dict: type -> (library, [(name, value)])."""
    out = {}
    for r in _read("enums.tsv"):
        if not include_82 and r["since"] != "<=8.1":
            continue
        lib = r["library"]
        out.setdefault(r["type"], (lib, []))[1].append((r["name"], int(r["value"])))
    return out


def constants():
    return [r for r in _read("constants.tsv") if r["since"] == "<=8.1"]


def structs():
    return _read("structs.tsv")
