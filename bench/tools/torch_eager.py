#!/usr/bin/env python3
"""torch_eager.py: the PyTorch eager time of each bench program's job.

For every bench program (or those named), times the PyTorch eager operation
that does the same job as each of the program's kernels, at the program's
full size (the shapes of its README.md), on the GPU, and prints one line per
operation in the programs' own format with role "torch":

  KSBENCH {"program":"softmax","kernel":"torch_softmax","role":"torch",
           "for":"softmax","op":"torch.softmax(x, dim=1)","median_ms":...,
           "min_ms":...,"max_ms":...,"reps":...}

`for` names the program's kernel (its KSBENCH name) the operation stands
beside. Timing as bench/common/bench.h does it: 3 warm-up calls, then at
least 20 timed calls and at least 200 ms in all, each bracketed by CUDA
events with the L2 cache flushed (a 512 MiB buffer written) before it; the
median, minimum and maximum. The operation is called as a user would call
it (eager, allocating its output). TF32 is off for matmul and cuDNN: the
programs compute in full fp32.

Inputs are random with a fixed seed; only their shapes and dtypes follow
the programs (the times of these operations do not depend on the values,
except histc's and argmax's, whose inputs follow the programs' ranges).

Usage: torch_eager.py [--list] [--small] [PROGRAM ...]
Exit status 0 when every operation asked for ran; 1 when one failed (its
line is then "KSBENCH-ERROR {...}" on stderr); 2 without torch or a GPU.
"""

import json
import statistics
import sys

# The operations per program: (the program's kernel, the call as text, a
# factory returning a no-argument function). Shapes: the READMEs' full sizes.
# Factories take `t` (torch), `F` (torch.nn.functional) and `small` (the
# program's --small size, for a quick check of this script).


def _u(t, shape, lo=-1.0, hi=1.0, dtype=None):
    x = t.rand(shape, device="cuda", dtype=dtype or t.float32)
    return x * (hi - lo) + lo


def ops_for(program, t, F, small):
    s = small
    if program in ("gemm_square",):
        n = 103 if s else 4096
        a, b = _u(t, (n, n)), _u(t, (n, n))
        return [("gemm_naive", "torch.matmul(A, B)", lambda: t.matmul(a, b))]
    if program == "gemm_tall_skinny":
        m, n, k = (301, 24, 37) if s else (65536, 128, 1024)
        a, b = _u(t, (m, k)), _u(t, (k, n))
        return [("gemm_naive", "torch.matmul(A, B)", lambda: t.matmul(a, b))]
    if program == "gemm_transposed":
        m, n, k = (103, 77, 59) if s else (4096, 4096, 4096)
        a, b = _u(t, (k, m)), _u(t, (k, n))   # A stored K x M
        return [("gemm_tn_naive", "torch.matmul(A.t(), B)",
                 lambda: t.matmul(a.t(), b))]
    if program == "gemm_batched":
        bt, n = (3, 37) if s else (64, 512)
        a, b = _u(t, (bt, n, n)), _u(t, (bt, n, n))
        return [("gemm_batched_naive", "torch.bmm(A, B)", lambda: t.bmm(a, b))]
    if program == "gemv":
        m, n = (301, 203) if s else (16384, 16384)
        a, x = _u(t, (m, n)), _u(t, (n,))
        return [("gemv_naive", "torch.mv(A, x)", lambda: t.mv(a, x))]
    if program == "gemm_bias_act_scale":
        m, n, k = (133, 71, 40) if s else (32768, 4096, 1024)
        a, b, bias = _u(t, (m, k)), _u(t, (k, n)), _u(t, (n,))
        c = t.matmul(a, b)
        return [
            ("gemm_naive", "torch.matmul(A, B)", lambda: t.matmul(a, b)),
            ("add_bias", "C + bias", lambda: c + bias),
            ("gelu", "F.gelu(C)", lambda: F.gelu(c)),
            ("scale", "0.7 * C", lambda: 0.7 * c),
            ("chain", "0.7 * F.gelu(torch.matmul(A, B) + bias)",
             lambda: 0.7 * F.gelu(t.matmul(a, b) + bias)),
        ]
    if program in ("relu", "gelu", "sigmoid", "softplus"):
        n = 100003 if s else 1 << 28
        x = _u(t, (n,), -4.0, 4.0)
        call = {"relu": ("torch.relu(x)", lambda: t.relu(x)),
                "gelu": ("F.gelu(x)", lambda: F.gelu(x)),
                "sigmoid": ("torch.sigmoid(x)", lambda: t.sigmoid(x)),
                "softplus": ("F.softplus(x)", lambda: F.softplus(x))}[program]
        return [(program, call[0], call[1])]
    if program in ("softmax", "log_softmax", "layernorm", "rmsnorm"):
        rows, cols = (37, 29) if s else (262144, 1024)
        x = _u(t, (rows, cols), -8.0, 8.0)
        if program == "softmax":
            return [("softmax", "torch.softmax(x, dim=1)",
                     lambda: t.softmax(x, dim=1))]
        if program == "log_softmax":
            return [("log_softmax", "torch.log_softmax(x, dim=1)",
                     lambda: t.log_softmax(x, dim=1))]
        g, b = _u(t, (cols,)), _u(t, (cols,))
        if program == "layernorm":
            return [("layernorm", "F.layer_norm(x, (cols,), g, b, eps=1e-5)",
                     lambda: F.layer_norm(x, (cols,), g, b, eps=1e-5))]
        if hasattr(F, "rms_norm"):
            return [("rmsnorm", "F.rms_norm(x, (cols,), w, eps=1e-6)",
                     lambda: F.rms_norm(x, (cols,), g, eps=1e-6))]
        return [("rmsnorm", "x * torch.rsqrt(x.pow(2).mean(1, keepdim=True) + 1e-6) * w",
                 lambda: x * t.rsqrt(x.pow(2).mean(1, keepdim=True) + 1e-6) * g)]
    if program == "conv2d":
        n, c, h, w, k = (2, 3, 19, 21, 5) if s else (16, 64, 128, 128, 64)
        x, wt, b = _u(t, (n, c, h, w)), _u(t, (k, c, 3, 3)), _u(t, (k,))
        return [("conv2d", "F.conv2d(x, w, b, padding=1)",
                 lambda: F.conv2d(x, wt, b, padding=1))]
    if program == "conv_norm":
        n, c, h, w, k = (2, 3, 19, 21, 5) if s else (32, 32, 224, 224, 64)
        x, wt, b = _u(t, (n, c, h, w)), _u(t, (k, c, 3, 3)), _u(t, (k,))
        mean, var = _u(t, (k,)), _u(t, (k,), 0.5, 2.0)
        gamma, beta = _u(t, (k,)), _u(t, (k,))
        y = F.conv2d(x, wt, b, padding=1)

        def bn(v):
            return F.batch_norm(v, mean, var, gamma, beta, training=False,
                                eps=1e-5)
        return [
            ("conv2d", "F.conv2d(x, w, b, padding=1)",
             lambda: F.conv2d(x, wt, b, padding=1)),
            ("batchnorm", "F.batch_norm(y, mean, var, gamma, beta, eps=1e-5)",
             lambda: bn(y)),
            ("relu", "torch.relu(y)", lambda: t.relu(y)),
            ("chain", "torch.relu(F.batch_norm(F.conv2d(x, w, b, padding=1), ...))",
             lambda: t.relu(bn(F.conv2d(x, wt, b, padding=1)))),
        ]
    if program == "reduce_sum":
        r, c = (37, 77) if s else (65536, 4096)
        x = _u(t, (r, c))
        return [("reduce_sum", "x.sum(dim=1)", lambda: x.sum(dim=1))]
    if program == "reduce_max":
        b, r, c = (3, 17, 45) if s else (64, 1024, 4096)
        x = _u(t, (b, r, c), -4.0, 4.0)
        return [("reduce_max", "x.amax(dim=1)", lambda: x.amax(dim=1))]
    if program == "argmax":
        r, c = (50, 33) if s else (65536, 4096)
        x = t.floor(_u(t, (r, c), -64.0, 64.0) * 8) / 8   # a 1/8 grid
        return [("argmax", "x.argmax(dim=1)", lambda: x.argmax(dim=1))]
    if program == "transpose":
        r, c = (45, 70) if s else (16384, 16384)
        x = _u(t, (r, c))
        return [("transpose", "x.t().contiguous()", lambda: x.t().contiguous())]
    if program == "permute3d":
        a, b, c = (6, 10, 13) if s else (128, 1024, 2048)
        x = _u(t, (a, b, c))
        return [("permute3d", "x.permute(2, 0, 1).contiguous()",
                 lambda: x.permute(2, 0, 1).contiguous())]
    if program in ("maxpool", "avgpool"):
        n, c, h, w = (2, 3, 13, 11) if s else (64, 64, 224, 224)
        x = _u(t, (n, c, h, w))
        if program == "maxpool":
            return [("maxpool", "F.max_pool2d(x, 3, 2, 1)",
                     lambda: F.max_pool2d(x, 3, 2, 1))]
        return [("avgpool", "F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)",
                 lambda: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False))]
    if program == "cumsum":
        r, c = (37, 150) if s else (65536, 4096)
        x = _u(t, (r, c))
        return [("cumsum", "torch.cumsum(x, dim=1)", lambda: t.cumsum(x, dim=1))]
    if program == "histogram":
        n = 50001 if s else 1 << 28
        x = _u(t, (n,), -16.0, 4112.0)
        return [("histogram", "torch.histc(x, bins=4096, min=0, max=4096)",
                 lambda: t.histc(x, bins=4096, min=0, max=4096))]
    if program == "mse_loss":
        n = 100003 if s else 1 << 26
        tg = _u(t, (n,))
        p = tg + _u(t, (n,), -0.5, 0.5)
        return [("mse_atomic", "F.mse_loss(p, t)", lambda: F.mse_loss(p, tg))]
    if program == "cross_entropy":
        r, c = (37, 100) if s else (65536, 4096)
        x = _u(t, (r, c), -4.0, 4.0)
        lab = t.randint(0, c, (r,), device="cuda")
        return [("cross_entropy", "F.cross_entropy(logits, labels)",
                 lambda: F.cross_entropy(x, lab))]
    return None


PROGRAMS = ["argmax", "avgpool", "conv2d", "conv_norm", "cross_entropy",
            "cumsum", "gelu", "gemm_batched", "gemm_bias_act_scale",
            "gemm_square", "gemm_tall_skinny", "gemm_transposed", "gemv",
            "histogram", "layernorm", "log_softmax", "maxpool", "mse_loss",
            "permute3d", "reduce_max", "reduce_sum", "relu", "rmsnorm",
            "sigmoid", "softmax", "softplus", "transpose"]


def time_op(t, fn, flush, min_reps=20, min_ms=200.0):
    """Median, min, max (ms) and reps of fn, as bench_time measures."""
    for _ in range(3):
        fn()
    t.cuda.synchronize()
    times = []
    total = 0.0
    while len(times) < min_reps or total < min_ms:
        flush.zero_()
        a = t.cuda.Event(enable_timing=True)
        b = t.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ms = a.elapsed_time(b)
        times.append(ms)
        total += ms
        if len(times) >= 10000:
            break
    return statistics.median(times), min(times), max(times), len(times)


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    if "--list" in argv:
        print(" ".join(PROGRAMS))
        return 0
    small = "--small" in argv
    try:
        import torch as t
        import torch.nn.functional as F
    except ImportError as e:
        print("torch_eager.py: no torch (%s)" % e, file=sys.stderr)
        return 2
    if not t.cuda.is_available():
        print("torch_eager.py: no GPU for torch", file=sys.stderr)
        return 2
    t.backends.cuda.matmul.allow_tf32 = False
    t.backends.cudnn.allow_tf32 = False
    t.manual_seed(0)
    flush = t.empty(128 << 20, dtype=t.float32, device="cuda")  # 512 MiB
    rc = 0
    for prog in args or PROGRAMS:
        try:
            ops = ops_for(prog, t, F, small)
        except Exception as e:  # out of memory and the like: say which
            print("KSBENCH-ERROR " + json.dumps({"program": prog,
                  "error": str(e)[:300]}), file=sys.stderr)
            rc = 1
            continue
        if ops is None:
            print("torch_eager.py: no operation for %s" % prog, file=sys.stderr)
            rc = 1
            continue
        for kernel, text, fn in ops:
            try:
                med, lo, hi, reps = time_op(t, fn, flush)
            except Exception as e:
                print("KSBENCH-ERROR " + json.dumps({"program": prog,
                      "for": kernel, "error": str(e)[:300]}), file=sys.stderr)
                rc = 1
                continue
            print("KSBENCH " + json.dumps({
                "program": prog, "kernel": "torch_" + kernel, "role": "torch",
                "for": kernel, "op": text, "median_ms": round(med, 5),
                "min_ms": round(lo, 5), "max_ms": round(hi, 5), "reps": reps,
                "torch": t.__version__}, separators=(",", ":")), flush=True)
        del ops
        t.cuda.empty_cache()
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
