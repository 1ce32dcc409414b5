#!/usr/bin/python3
"""The PyTorch side of bench/compare_train.sh: one SGD training step of ResNet-50 (v1.5) or
MobileNet-v2, built here layer for layer as examples/net/net_models.c builds them (torchvision
may be absent), timed on the CPU.

    /usr/bin/python3 bench/torch_train_step.py [--net resnet50|mobilenet_v2] [--layout nchw|nhwc]
        [--batch 16] [--image 224] [--steps 3] [--threads 2] [--classes 1000]

nhwc runs the model and the input in torch.channels_last; nchw in the default contiguous
format.  torch.backends.mkldnn stays enabled (oneDNN kernels).  After one warm-up step it prints
each step's loss and time, then "median step: <ms> ms (...), CPU time <ms> ms" (the process's CPU
time, all threads).
"""
import statistics
import sys
import time


def scaled(c, width=1.0):
    v = c * width
    r = max(8, int(v + 4) // 8 * 8)
    return r + 8 if r < 0.9 * v else r


def build(nn, net, classes):
    def conv_bn(cin, cout, k, stride=1, groups=1, act=None):
        layers = [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)]
        if act == "relu":
            layers.append(nn.ReLU())
        elif act == "relu6":
            layers.append(nn.ReLU6())
        return nn.Sequential(*layers)

    class Bottleneck(nn.Module):
        def __init__(self, cin, width, stride):
            super().__init__()
            cout = 4 * width
            self.body = nn.Sequential(conv_bn(cin, width, 1, act="relu"), conv_bn(width, width, 3, stride, act="relu"),
                                      conv_bn(width, cout, 1))
            self.skip = conv_bn(cin, cout, 1, stride) if stride != 1 or cin != cout else None
            self.relu = nn.ReLU()

        def forward(self, x):
            return self.relu(self.body(x) + (self.skip(x) if self.skip is not None else x))

    class InvertedResidual(nn.Module):
        def __init__(self, cin, cout, stride, t):
            super().__init__()
            hidden = cin * t
            layers = [conv_bn(cin, hidden, 1, act="relu6")] if t != 1 else []
            layers += [conv_bn(hidden, hidden, 3, stride, groups=hidden, act="relu6"), conv_bn(hidden, cout, 1)]
            self.body = nn.Sequential(*layers)
            self.residual = stride == 1 and cin == cout

        def forward(self, x):
            return self.body(x) + x if self.residual else self.body(x)

    if net == "resnet50":
        layers = [conv_bn(3, 64, 7, 2, act="relu"), nn.MaxPool2d(3, 2, 1)]
        cin = 64
        for s, (n, w) in enumerate(zip((3, 4, 6, 3), (64, 128, 256, 512))):
            for b in range(n):
                layers.append(Bottleneck(cin, w, 2 if b == 0 and s > 0 else 1))
                cin = 4 * w
    else:
        layers = [conv_bn(3, 32, 3, 2, act="relu6")]
        cin = 32
        for t, c, n, s in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                           (6, 320, 1, 1)):
            for b in range(n):
                layers.append(InvertedResidual(cin, scaled(c), s if b == 0 else 1, t))
                cin = scaled(c)
        layers.append(conv_bn(cin, 1280, 1, act="relu6"))
        cin = 1280
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, classes)]
    return nn.Sequential(*layers)


def main():
    import torch
    import torch.nn as nn

    opt = {"net": "resnet50", "layout": "nchw", "batch": 16, "image": 224, "steps": 3, "threads": 2, "classes": 1000}
    a = sys.argv[1:]
    while a:
        k = a.pop(0).lstrip("-")
        if k not in opt or not a:
            sys.exit(__doc__)
        opt[k] = a.pop(0) if k in ("net", "layout") else int(a.pop(0))
    torch.set_num_threads(opt["threads"])
    torch.backends.mkldnn.enabled = True
    torch.manual_seed(0)
    fmt = torch.channels_last if opt["layout"] == "nhwc" else torch.contiguous_format
    model = build(nn, opt["net"], opt["classes"]).to(memory_format=fmt)
    model.train()
    sgd = torch.optim.SGD(model.parameters(), lr=0.05)
    lossf = nn.CrossEntropyLoss()
    x = torch.randn(opt["batch"], 3, opt["image"], opt["image"]).contiguous(memory_format=fmt)
    y = torch.arange(opt["batch"]) % opt["classes"]
    print(f"torch {torch.__version__} {opt['net']} {opt['layout']} batch {opt['batch']} image {opt['image']} "
          f"threads {torch.get_num_threads()} mkldnn {torch.backends.mkldnn.is_available()}")
    times, cpu = [], []
    for s in range(opt["steps"] + 1):
        t0, c0 = time.perf_counter(), time.process_time()
        sgd.zero_grad(set_to_none=True)
        loss = lossf(model(x), y)
        loss.backward()
        sgd.step()
        t = time.perf_counter() - t0
        if s > 0:
            times.append(t)
            cpu.append(time.process_time() - c0)
        print(f"step {s:3d}  loss {loss.item():.4f}  {1e3 * t:8.1f} ms{'  (warm-up)' if s == 0 else ''}")
    med, cmed, n = statistics.median(times), statistics.median(cpu), len(times)
    print(f"median step: {1e3 * med:.1f} ms ({n} steps, {opt['batch'] / med:.1f} images/s), CPU time {1e3 * cmed:.1f} ms")


if __name__ == "__main__":
    main()
