#!/usr/bin/env python3
"""collect.py: turns the output of the benchmark programs into results JSON.

Modes (one per call):

  --parse LOG --program P [--rc N] [--timed-out] [--build-failed]
          [--wall S] -o OUT
      Reads one program's output (its KSBENCH lines and its closing
      PASS/FAIL line) and writes that program's partial JSON.

  --meta --date YYYY-MM-DD -o OUT
      Writes the run's metadata: GPU name and driver (nvidia-smi), nvcc
      version.

  --merge PARTIAL_DIR [--programs "p1 p2 ..."] [-o OUT]
      Assembles the final results JSON from a partial folder (meta.json,
      ceilings.json and one <program>.json per program): the ceilings, and
      for every kernel its floor and the fraction of it reached. Programs
      named in --programs without a partial JSON are listed as NOT_RUN.
      Without -o, writes baseline-<date>-<gpu-slug>.json next to the partial
      folder. Prints the path written.

  --table RESULTS
      Prints a markdown table (program, kernel, median ms, floor ms, % of
      floor, vendor ms) of a results JSON.

The floor of a kernel is max(bytes / copy bandwidth, flops / SGEMM rate),
both measured by the ceilings program (medians). A naive kernel's vendor
counterpart is the vendor kernel of the same program with the same bytes and
flops (the same job); failing that, the program's only vendor kernel.

Standard library only.
"""

import argparse
import json
import os
import re
import subprocess
import sys

CEILINGS = "ceilings"
COPY_KERNEL = "copy_d2d"
SGEMM_KERNEL = "cublas_sgemm_8192"
KERNEL_FIELDS = ("kernel", "role", "median_ms", "min_ms", "max_ms", "reps",
                 "bytes", "flops")


def warn(msg):
    print("collect.py: " + msg, file=sys.stderr)


def write_json(path, obj):
    """Writes obj to path atomically (a killed run leaves no half file)."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def read_json(path):
    with open(path) as f:
        return json.load(f)


# --- parse -----------------------------------------------------------------

def parse_log(text, program):
    """Returns (kernels, pass_seen, fail_line) from a program's output."""
    kernels = []
    pass_seen = False
    fail_line = None
    for lineno, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if line.startswith("KSBENCH "):
            # printf writes a NaN or infinite time as nan or inf, which
            # JSON lacks: read those as null.
            body = re.sub(r":\s*[-+]?(nan|inf)\b", ":null",
                          line[len("KSBENCH "):], flags=re.I)
            try:
                rec = json.loads(body)
            except ValueError as e:
                warn("%s line %d: bad KSBENCH line (%s): %s"
                     % (program, lineno, e, line))
                continue
            if not isinstance(rec, dict) or "kernel" not in rec:
                warn("%s line %d: KSBENCH line without a kernel" %
                     (program, lineno))
                continue
            if rec.get("program") != program:
                warn("%s line %d: KSBENCH line of program %r"
                     % (program, lineno, rec.get("program")))
            kernels.append({k: rec.get(k) for k in KERNEL_FIELDS})
        elif line == "PASS " + program:
            pass_seen = True
        elif line.startswith("FAIL") and fail_line is None:
            fail_line = line
    return kernels, pass_seen, fail_line


def cmd_parse(args):
    try:
        with open(args.parse, errors="replace") as f:
            text = f.read()
    except OSError as e:
        text = ""
        warn("cannot read %s: %s" % (args.parse, e))
    kernels, pass_seen, fail_line = parse_log(text, args.program)
    if args.build_failed:
        status, reason = "BUILD_FAIL", "build failed"
        kernels = []
    elif args.timed_out:
        status, reason = "TIMEOUT", "killed after the time limit"
    elif args.rc == 0 and pass_seen and fail_line is None:
        status, reason = "PASS", None
    else:
        status = "FAIL"
        if fail_line:
            reason = re.sub(r"^FAIL %s: " % re.escape(args.program), "",
                            fail_line)
        elif args.rc != 0:
            reason = "exit status %d" % args.rc
        else:
            reason = "no PASS line"
    out = {
        "program": args.program,
        "status": status,
        "exit_status": args.rc,
        "reason": reason,
        "wall_s": args.wall,
        "log": os.path.basename(args.parse),
        "kernels": kernels,
    }
    write_json(args.output, out)
    print("%s: %s%s" % (args.program, status, ": " + reason if reason else ""))
    return 0


# --- meta ------------------------------------------------------------------

def run_quiet(cmd):
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True, timeout=60)
        return r.stdout if r.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def cmd_meta(args):
    smi = run_quiet(["nvidia-smi", "--query-gpu=name,driver_version",
                     "--format=csv,noheader"]).strip().splitlines()
    gpu = driver = None
    if smi:
        parts = [p.strip() for p in smi[0].split(",")]
        gpu = parts[0] or None
        driver = parts[1] if len(parts) > 1 else None
    nvcc = None
    for line in run_quiet(["nvcc", "--version"]).splitlines():
        if "release" in line:
            nvcc = line.strip()
    out = {"date": args.date, "gpu": gpu, "gpu_count": len(smi),
           "driver": driver, "nvcc": nvcc}
    write_json(args.output, out)
    return 0


# --- merge -----------------------------------------------------------------

def slug(name):
    s = re.sub(r"[^a-z0-9]+", "-", (name or "").lower()).strip("-")
    return s or "unknown-gpu"


def rate(rec, field):
    """Amount per second of a KSBENCH record, from its median time."""
    ms = rec.get("median_ms")
    amount = rec.get(field)
    if not ms or ms <= 0 or not amount:
        return None
    return amount / (ms * 1e-3)


def find_kernel(prog, name):
    for k in prog.get("kernels", []):
        if k.get("kernel") == name:
            return k
    return None


def same_job(a, b):
    def close(x, y):
        if x is None or y is None:
            return False
        return abs(x - y) <= 1e-6 * max(abs(x), abs(y))
    return close(a.get("bytes"), b.get("bytes")) and \
        close(a.get("flops"), b.get("flops"))


def pair_vendors(kernels):
    """Maps the index of each naive kernel to its vendor kernel."""
    naive = [i for i, k in enumerate(kernels) if k.get("role") == "naive"]
    vendor = [k for k in kernels if k.get("role") == "vendor"]
    pairs = {}
    used = set()
    for i in naive:
        for v in vendor:
            if same_job(kernels[i], v):
                pairs[i] = v
                used.add(id(v))
                break
    if len(vendor) == 1 and id(vendor[0]) not in used:
        for i in naive:
            pairs.setdefault(i, vendor[0])
    return pairs


def cmd_merge(args):
    partial = args.merge.rstrip("/")
    meta_path = os.path.join(partial, "meta.json")
    meta = read_json(meta_path) if os.path.exists(meta_path) else {}
    date = meta.get("date")
    if not date:
        m = re.search(r"partial-(\d{4}-\d{2}-\d{2})$", partial)
        date = m.group(1) if m else None

    progs = {}
    for fn in sorted(os.listdir(partial)):
        if not fn.endswith(".json") or fn == "meta.json":
            continue
        try:
            rec = read_json(os.path.join(partial, fn))
        except (OSError, ValueError) as e:
            warn("skipping %s: %s" % (fn, e))
            continue
        if isinstance(rec, dict) and rec.get("program"):
            progs[rec["program"]] = rec

    ceil = progs.pop(CEILINGS, None)
    ceilings = {"status": ceil["status"] if ceil else "NOT_RUN",
                "copy_gbps": None, "sgemm_tflops": None,
                "copy_d2d": None, "cublas_sgemm_8192": None}
    bw = fl = None
    if ceil:
        c = find_kernel(ceil, COPY_KERNEL)
        g = find_kernel(ceil, SGEMM_KERNEL)
        ceilings["copy_d2d"] = c
        ceilings["cublas_sgemm_8192"] = g
        bw = rate(c, "bytes") if c else None
        fl = rate(g, "flops") if g else None
        ceilings["copy_gbps"] = bw / 1e9 if bw else None
        ceilings["sgemm_tflops"] = fl / 1e12 if fl else None
    if not bw or not fl:
        warn("no ceilings measured: floors left out")

    names = list(progs)
    if args.programs:
        for p in args.programs.split():
            if p != CEILINGS and p not in progs:
                names.append(p)
    programs = {}
    for name in sorted(names):
        rec = progs.get(name)
        if rec is None:
            programs[name] = {"status": "NOT_RUN", "kernels": []}
            continue
        kernels = [dict(k) for k in rec.get("kernels", [])]
        pairs = pair_vendors(kernels)
        for i, k in enumerate(kernels):
            floor = None
            if bw and fl and k.get("bytes") is not None and \
                    k.get("flops") is not None:
                tb, tf = k["bytes"] / bw, k["flops"] / fl
                floor = 1e3 * max(tb, tf)
                k["bound"] = "memory" if tb >= tf else "compute"
            k["floor_ms"] = floor
            med = k.get("median_ms")
            k["floor_fraction"] = floor / med if floor and med else None
            if k.get("role") == "naive":
                v = pairs.get(i)
                k["vendor_kernel"] = v.get("kernel") if v else None
                k["vendor_ms"] = v.get("median_ms") if v else None
        programs[name] = {
            "status": rec.get("status"),
            "reason": rec.get("reason"),
            "wall_s": rec.get("wall_s"),
            "kernels": kernels,
        }

    out = {
        "date": date,
        "gpu": meta.get("gpu"),
        "gpu_count": meta.get("gpu_count"),
        "driver": meta.get("driver"),
        "nvcc": meta.get("nvcc"),
        "ceilings": ceilings,
        "programs": programs,
    }
    path = args.output or os.path.join(
        os.path.dirname(os.path.abspath(partial)),
        "baseline-%s-%s.json" % (date or "undated", slug(meta.get("gpu"))))
    write_json(path, out)
    print(path)
    return 0


# --- table -----------------------------------------------------------------

def ms(v):
    if v is None:
        return ""
    if v >= 100:
        return "%.1f" % v
    if v >= 1:
        return "%.2f" % v
    return "%.3f" % v


def cmd_table(args):
    res = read_json(args.table)
    c = res.get("ceilings") or {}
    gbps, tflops = c.get("copy_gbps"), c.get("sgemm_tflops")
    head = "%s, driver %s, %s, %s." % (
        res.get("gpu") or "unknown GPU", res.get("driver") or "?",
        res.get("nvcc") or "nvcc ?", res.get("date") or "undated")
    if gbps and tflops:
        head += (" Ceilings: copy %.0f GB/s, SGEMM %.1f TFLOP/s;"
                 " floor = max(bytes / copy, flops / SGEMM)." % (gbps, tflops))
    else:
        head += " Ceilings not measured: no floors."
    print(head)
    print()
    print("| program | kernel | median ms | floor ms | % of floor | vendor ms |")
    print("|---|---|---:|---:|---:|---:|")
    for name, p in (res.get("programs") or {}).items():
        status = p.get("status")
        kernels = p.get("kernels") or []
        if status != "PASS":
            print("| %s | (%s) | | | | |" % (name, status))
            if status != "TIMEOUT":
                continue
        for k in kernels:
            kname = k.get("kernel") or "?"
            if k.get("role") != "naive":
                kname += " (%s)" % k.get("role")
            frac = k.get("floor_fraction")
            pct = "%.1f%%" % (100.0 * frac) if frac is not None else ""
            print("| %s | %s | %s | %s | %s | %s |" % (
                name, kname, ms(k.get("median_ms")), ms(k.get("floor_ms")),
                pct, ms(k.get("vendor_ms"))))
    return 0


def main():
    ap = argparse.ArgumentParser(
        description="Collects benchmark results (see the module docstring).")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--parse", metavar="LOG",
                      help="parse one program's output")
    mode.add_argument("--meta", action="store_true",
                      help="write the run's metadata")
    mode.add_argument("--merge", metavar="PARTIAL_DIR",
                      help="assemble the final JSON from a partial folder")
    mode.add_argument("--table", metavar="RESULTS",
                      help="print a markdown table of a results JSON")
    ap.add_argument("-o", "--output", help="file to write")
    ap.add_argument("--program", help="--parse: the program's name")
    ap.add_argument("--rc", type=int, default=0,
                    help="--parse: the program's exit status")
    ap.add_argument("--timed-out", action="store_true",
                    help="--parse: the program was killed at its time limit")
    ap.add_argument("--build-failed", action="store_true",
                    help="--parse: the program did not build")
    ap.add_argument("--wall", type=float, help="--parse: seconds it ran")
    ap.add_argument("--date", help="--meta: the run's date, YYYY-MM-DD")
    ap.add_argument("--programs",
                    help="--merge: every program expected, space-separated")
    args = ap.parse_args()
    if args.parse is not None:
        if not args.program or not args.output:
            ap.error("--parse needs --program and -o")
        return cmd_parse(args)
    if args.meta:
        if not args.date or not args.output:
            ap.error("--meta needs --date and -o")
        return cmd_meta(args)
    if args.merge is not None:
        return cmd_merge(args)
    return cmd_table(args)


if __name__ == "__main__":
    sys.exit(main())
