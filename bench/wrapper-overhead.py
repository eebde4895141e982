#!/usr/bin/env python3
"""Wrapper overhead: what ks-nvcc adds to a compile, measured in alternation.

Runs the same command directly with nvcc and through ks-nvcc, alternating
A B A B so that drift of the machine hits both alike, and prints the median
of the paired differences. The cases:

  compile    a small .cu, `-c -arch=sm_90`, the real nvcc (ks-nvcc records it)
  version    `--version`, the real nvcc
  floor      a do-nothing compiler in place of nvcc: what is left is the
             wrapper's own cost (classify, record, stats, exec), with an
             empty variant cache
  hit        the same with a non-empty cache and the TU's manifest present
             but no variant for its kernel: the direct-mode lookup (read
             and hash the TU and its headers, look the keys up)
  subst      the same with a variant for the kernel: lookup, rewrite,
             the rewritten TU written, the compiler run as a child
  miss       a non-empty cache and no manifest: `ks analyze --manifest`
             runs (the libclang parse) before the compile; compared with
             the parse alone (`analyze`)

Usage: bench/wrapper-overhead.py [--pairs N] [--ks-nvcc PATH]
The state directory is a fresh temporary one (an empty cache).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

KERNEL = r"""
__global__ void scale(float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= a;
}
void run(float *x, int n) { scale<<<(n + 255) / 256, 256>>>(x, 2.0f, n); }
"""


def timed(cmd, env, cwd):
    t = time.perf_counter()
    r = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        sys.exit("failed: %s" % " ".join(cmd))
    return dt


def paired(name, direct, wrapped, env, cwd, pairs):
    timed(direct, env, cwd)  # warm-up: page cache, nvcc version cache
    timed(wrapped, env, cwd)
    a, b = [], []
    for _ in range(pairs):
        a.append(timed(direct, env, cwd))
        b.append(timed(wrapped, env, cwd))
    diffs = [y - x for x, y in zip(a, b)]
    print("%-8s nvcc median %8.2f ms | ks-nvcc median %8.2f ms | "
          "added: median %6.2f ms (paired), min %6.2f, max %6.2f, n=%d"
          % (name, 1e3 * statistics.median(a), 1e3 * statistics.median(b),
             1e3 * statistics.median(diffs), 1e3 * min(diffs),
             1e3 * max(diffs), pairs))
    return statistics.median(diffs)


VARIANT = r"""// ks-nvcc: definition
__global__ void scale(float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (n == 0x5eed5eed)
		return;
	if (i < n)
		x[i] *= a;
}
"""


def counter(env, name):
    try:
        for line in open(os.path.join(env["KS_DIR"], "stats")):
            k, v = line.split()
            if k == name:
                return int(v)
    except OSError:
        pass
    return 0


def expect(env, name, what):
    """The case measured what it says, or the run stops."""
    if counter(env, name) == 0:
        sys.exit("%s: counter %s stayed 0" % (what, name))


def subst_cases(root, work, env, nvcc, noop, ks, comp, pairs):
    """The direct-mode lookup, a substitution and a manifest miss, over
    the do-nothing compiler (its version is the real nvcc's, so the
    manifest `ks analyze` writes for the real build is the one ks-nvcc
    looks up)."""
    build = os.path.join(root, os.environ.get("BUILD", "build"))
    seed = os.path.join(work, "seed-tool")
    objs = [os.path.join(d, f) for sub in ("src/cache", "src/core")
            for d in [os.path.join(build, sub)] for f in sorted(os.listdir(d))
            if f.endswith(".o")]
    subprocess.run(["cc", "-std=c11", "-D_GNU_SOURCE", "-o", seed,
                    os.path.join(root, "tests/data/subst/seed-tool.c")] + objs,
                   check=True)
    ksbin = os.path.join(root, "ks")
    cache = os.path.join(env["KS_DIR"], "cache")
    with open(os.path.join(work, "variant.cu"), "w") as f:
        f.write(VARIANT)
    aenv = dict(env, KS_NVCC=nvcc)
    analyze = [ksbin, "analyze", "k.cu", "--manifest", "--"] + comp
    subprocess.run(analyze, env=aenv, cwd=work, check=True,
                   stdout=subprocess.DEVNULL)
    mdir = os.path.join(env["KS_DIR"], "manifests")
    key = None
    for d, _, files in os.walk(mdir):
        for fn in files:
            if fn.endswith(".lock"):
                continue
            for line in open(os.path.join(d, fn)):
                if line.startswith("kernel "):
                    key = line.split()[1]
    if not key:
        sys.exit("no kernel key in the manifest")
    # Not this kernel's key: the cache is not empty, nothing applies.
    subprocess.run([seed, cache, "0" * 31 + "1", "_Z5scalePffi", "900",
                    os.path.join(work, "variant.cu")], check=True)
    paired("hit", [noop] + comp, [ks, noop] + comp, env, work, max(pairs, 50))
    expect(env, "subst-manifest-hit", "hit")
    if counter(env, "subst-manifest-miss"):
        sys.exit("hit: a manifest miss")
    subprocess.run([seed, cache, key, "_Z5scalePffi", "900",
                    os.path.join(work, "variant.cu")], check=True)
    paired("subst", [noop] + comp, [ks, noop] + comp, env, work, max(pairs, 30))
    expect(env, "subst-compiled", "subst")
    subprocess.run([ksbin, "cache", "rm", key], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    menv = dict(env, KS_SUBST_TIMEOUT="60000")

    def fresh():
        shutil.rmtree(mdir, ignore_errors=True)

    # The child ks-nvcc starts does this very analysis (its nvcc -M is the
    # do-nothing compiler's here too).
    nenv = dict(env, KS_NVCC=noop)
    builds = os.path.join(env["KS_DIR"], "builds")
    rec = max((os.path.join(builds, f) for f in os.listdir(builds)),
              key=os.path.getmtime)
    analyze = [ksbin, "analyze", "--record", rec, "--manifest"]
    a, b, c = [], [], []
    for _ in range(max(pairs, 10)):
        a.append(timed([noop] + comp, env, work))
        fresh()
        b.append(timed([ks, noop] + comp, menv, work))
        fresh()
        c.append(timed(analyze, nenv, work))
    expect(env, "subst-ks-asked", "miss")
    if counter(env, "subst-fallback-ks-failed") or counter(env, "subst-fallback-ks-timeout"):
        sys.exit("miss: ks did not answer")
    ms = lambda v: 1e3 * statistics.median(v)
    print("miss     nvcc median %8.2f ms | ks-nvcc median %8.2f ms | "
          "analyze alone %8.2f ms | added beyond the analysis: %6.2f ms, n=%d"
          % (ms(a), ms(b), ms(c), ms(b) - ms(a) - ms(c), len(a)))


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=15)
    ap.add_argument("--ks-nvcc", default=os.path.join(root, "ks-nvcc"))
    args = ap.parse_args()
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not os.access(nvcc, os.X_OK):
        print("skip: nvcc not found")
        return 0
    work = tempfile.mkdtemp(prefix="ks-overhead-")
    try:
        env = {k: v for k, v in os.environ.items() if not k.startswith("KS_")}
        env["KS_DIR"] = os.path.join(work, "ks")
        with open(os.path.join(work, "k.cu"), "w") as f:
            f.write(KERNEL)
        noop = os.path.join(work, "noop-nvcc")
        subprocess.run(["cc", "-O2", "-x", "c", "-o", noop, "-"],
                       input=b'#include <stdio.h>\n#include <string.h>\n'
                       b'int main(int c, char **v) { if (c > 1 && !strcmp(v[1], "--version"))'
                       b' puts("Cuda compilation tools, release 13.0, V13.0.88"); return 0; }',
                       check=True)
        print("ks-nvcc overhead, %s, nvcc %s" % (time.strftime("%Y-%m-%d"), nvcc))
        ks = args.ks_nvcc
        comp = ["-c", "-arch=sm_90", "k.cu", "-o", "k.o"]
        paired("compile", [nvcc] + comp, [ks, nvcc] + comp, env, work, args.pairs)
        paired("version", [nvcc, "--version"], [ks, nvcc, "--version"], env,
               work, max(args.pairs, 30))
        paired("floor", [noop] + comp, [ks, noop] + comp, env, work,
               max(args.pairs, 50))
        subst_cases(root, work, env, nvcc, noop, ks, comp, args.pairs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
