#!/usr/bin/env python3
"""torch_rnn.py -- the PyTorch side of bench/compare_rnn.sh: times torch.nn.LSTM / torch.nn.GRU
(fp32, CPU; PyTorch's GRU is the cell cuDNN computes) on the problems hostdnn_rnn takes.

    torch_rnn.py [--reps R] [--threads N] PROBLEM...   PROBLEM as in bench/hostdnn_rnn.c

Passes: inf (under torch.no_grad), fwd (forward with autograd recording), train (forward and
backward of <y, dy>, weight gradients included).  Output lines, FLOPs counted as in
hostdnn_rnn.c: "<problem> <pass> torch <median ms> <GFLOP/s>"."""
import re
import sys
import time

import torch


def parse(s):
    m = re.fullmatch(r"(lstm|gru)-i(\d+)h(\d+)t(\d+)n(\d+)l(\d+)d([12])", s)
    if not m:
        raise SystemExit("bad problem " + s)
    cell = m.group(1)
    i, h, t, n, l, d = (int(x) for x in m.groups()[1:])
    return cell, i, h, t, n, l, d


def gflop(cell, i, h, t, n, l, d):
    g = 4 if cell == "lstm" else 3
    f = 0.0
    for layer in range(l):
        inw = i if layer == 0 else d * h
        f += 2.0 * g * h * (inw + h) * n * t * d
    return f * 1e-9


def bench(fn, reps, warm_ms=30.0):
    t0 = time.perf_counter()
    fn()
    while (time.perf_counter() - t0) * 1e3 < warm_ms:
        fn()
    ts = []
    for _ in range(reps):
        a = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - a) * 1e3)
    ts.sort()
    return ts[len(ts) // 2]


def main():
    args = sys.argv[1:]
    reps, threads = 5, 2
    while args and args[0].startswith("--"):
        if args[0] == "--reps":
            reps = int(args[1])
        elif args[0] == "--threads":
            threads = int(args[1])
        args = args[2:]
    torch.set_num_threads(threads)
    for name in args:
        cell, i, h, t, n, l, d = parse(name)
        mod = (torch.nn.LSTM if cell == "lstm" else torch.nn.GRU)(i, h, num_layers=l, bidirectional=d == 2)
        x = torch.randn(t, n, i)
        dy = torch.randn(t, n, d * h)
        gf = gflop(cell, i, h, t, n, l, d)

        def inf():
            with torch.no_grad():
                mod(x)

        def fwd():
            mod(x)

        def train():
            y, _ = mod(x)
            y.backward(dy)

        for pname, fn, mult in (("inf", inf, 1), ("fwd", fwd, 1), ("train", train, 3)):
            ms = bench(fn, reps)
            print("%s %s torch %.3f %.2f" % (name, pname, ms, mult * gf / (ms * 1e-3)), flush=True)


if __name__ == "__main__":
    main()
