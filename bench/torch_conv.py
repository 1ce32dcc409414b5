#!/usr/bin/python3
"""The PyTorch side of `make bench-compare`: times convolutions with PyTorch (Debian's
python3-torch, run with /usr/bin/python3) on hostdnn-bench problem strings.

    /usr/bin/python3 bench/torch_conv.py [--reps N] [--dir fwd|bwd_d|bwd_w] [--threads T] PROBLEM...

Prints "<problem> <dir> torch-<layout> <median ms> <GFLOP/s>" for NCHW (contiguous) and NHWC
(channels_last) tensors.
"""
import re
import sys
import time


def parse(s):
    d = {"g": 1, "u": 1, "d": 1, "p": 0}
    for k, v in re.findall(r"([gnchwkrspud])(\d+)", s.split("_")[0]):
        d[k] = int(v)
    d["oh"] = (d["h"] + 2 * d["p"] - (d["d"] * (d["r"] - 1) + 1)) // d["u"] + 1
    d["ow"] = (d["w"] + 2 * d["p"] - (d["d"] * (d["s"] - 1) + 1)) // d["u"] + 1
    return d


def main():
    import torch
    import torch.nn.functional as F
    from torch.nn import grad as G

    reps, direction, threads, probs = 11, "fwd", 2, []
    a = sys.argv[1:]
    while a:
        x = a.pop(0)
        if x == "--reps":
            reps = int(a.pop(0))
        elif x == "--dir":
            direction = a.pop(0)
        elif x == "--threads":
            threads = int(a.pop(0))
        else:
            probs.append(x)
    torch.set_num_threads(threads)
    torch.set_grad_enabled(False)
    for s in probs:
        p = parse(s)
        flops = 2.0 * p["n"] * p["k"] * p["oh"] * p["ow"] * (p["c"] // p["g"]) * p["r"] * p["s"]
        for layout in ("nchw", "nhwc"):
            fmt = torch.channels_last if layout == "nhwc" else torch.contiguous_format
            x = torch.randn(p["n"], p["c"], p["h"], p["w"]).contiguous(memory_format=fmt)
            w = torch.randn(p["k"], p["c"] // p["g"], p["r"], p["s"]).contiguous(memory_format=fmt)
            dy = torch.randn(p["n"], p["k"], p["oh"], p["ow"]).contiguous(memory_format=fmt)
            kw = dict(stride=p["u"], padding=p["p"], dilation=p["d"], groups=p["g"])
            if direction == "fwd":
                fn = lambda: F.conv2d(x, w, **kw)
            elif direction == "bwd_d":
                fn = lambda: G.conv2d_input(x.shape, w, dy, **kw)
            else:
                fn = lambda: G.conv2d_weight(x, w.shape, dy, **kw)
            fn()
            fn()
            ts = []
            for _ in range(reps):
                t0 = time.perf_counter()
                fn()
                ts.append((time.perf_counter() - t0) * 1e3)
            ts.sort()
            ms = ts[len(ts) // 2]
            print("%s %s torch-%s %.4f %.2f" % (s, direction, layout, ms, flops / (ms * 1e6)), flush=True)


if __name__ == "__main__":
    main()
