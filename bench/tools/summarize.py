#!/usr/bin/env python3
"""summarize.py: the results of a `make bench` run (bench/tools/run.sh).

Modes (one per call):

  --program P --dir DIR -o OUT
      One program's partial result from its folder of the partial folder
      (run0.log, run1.log, optimize.json, stats-build1.txt, torch.log,
      ablate-*.json, tasks/, wall, failed-step).

  --merge PARTIAL_DIR [--programs "p1 p2 ..."] [-o OUT]
      The final results JSON: the run's metadata, the ceilings, one record
      per kernel and the summary (below). Without -o, writes
      <date>-<gpu-slug>.json next to the partial folder; prints its path.

  --table RESULTS
      Prints the per-kernel table and the summary as markdown.

Per kernel (a naive kernel of a program; chains are listed apart):
original_ms and after_ms are the program's own medians before and after
the rebuild through ks-nvcc (two runs of the program, same machine);
review_original_ms, review_best_ms and review_speedup come from the best
variant's review by `ks optimize` (original and variant timed interleaved
on the captures); verified: a variant passed the Reviewer and went to the
cache; substituted: the rebuild compiled it in (substituted.txt: the
kernels whose variant files the rewritten TUs name);
in_program: both, and the rebuilt program printed PASS; wrong: substituted
and the rebuilt program failed. floor_ms = max(bytes / copy bandwidth,
flops / SGEMM rate) from the ceilings program; floor_pct_before/after =
100 floor / original_ms, after_ms. vendor_ms and torch_ms: the vendor
library's and PyTorch eager's time of the same job in the same run.

Summary, over the naive kernels whose program passed its first run:
success_rate = in_program / kernels; speedup = review_speedup for a kernel
whose variant is in the program, 1 for the others (the program runs its
original code); fast_1, fast_2 = the fraction of kernels whose variant is
in the program with speedup > 1, > 2 (KernelBench's fast_p); mean and
geomean of that speedup; the program-measured original_ms / after_ms as
well; speedup over Torch = torch_ms / after_ms (kernels with a torch time);
geomean % of floor before and after; GPU-minutes: the steps' wall time and
the Reviewer's time. The loop's own goal, over the kernels with headroom
(below HEADROOM_PCT = 80 % of their floor before): headroom_kernels and
headroom_verified (those with a verified variant); slower_in_program (a
variant in the program whose program ran slower after than before);
max_rounds and max_task_gpu_s (the most reviews and GPU seconds one task
took). Nothing is estimated: a value not measured is null.

Standard library only.
"""

import argparse
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import collect  # noqa: E402  (parse_log, pair_vendors, rate, slug)

ABLATIONS = ("no-long-term-memory", "no-short-term-memory")
# A kernel below this % of its floor has headroom: the loop's goal counts
# the verified variants among those.
HEADROOM_PCT = 80.0
STEPS = ("build0", "run0", "capture", "optimize", "build1", "run1")


def read(path, default=None):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return default


def read_json(path, default=None):
    text = read(path)
    if text is None:
        return default
    try:
        return json.loads(text)
    except ValueError:
        return default


def base_name(demangled):
    """gemm_naive(float const*, ...) -> gemm_naive."""
    return re.split(r"[(<\s]", (demangled or "").strip(), 1)[0].split("::")[-1]


def task_of(label, rows):
    """The optimize row of the kernel whose KSBENCH name is `label`."""
    for r in rows or []:
        if base_name(r.get("kernel")) in (label, label + "_kernel"):
            return r
    return None


def task_totals(tdir):
    """GPU ms, reviews and tokens of a task, from its trajectory."""
    text = read(os.path.join(tdir, "trajectory.jsonl"))
    if text is None:
        return None
    gpu = 0.0
    reviews = tokens = 0
    phases = {}
    for line in text.splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        gpu += r.get("gpu_ms") or 0
        # Where the time went (docs/LOOP.md, "What a round costs").
        for name, sec in (r.get("cost") or {}).items():
            if isinstance(sec, (int, float)):
                phases[name] = phases.get(name, 0) + sec
        tokens += r.get("tokens") or 0
        if r.get("round", 0) > 0 and r.get("verdict") not in (None, "declined", "seen"):
            reviews += 1
    return {"gpu_ms": gpu, "reviews": reviews, "tokens": tokens, "phases": phases}


def stats_of(text):
    out = {}
    for line in (text or "").splitlines():
        parts = line.split()
        if len(parts) == 2:
            try:
                out[parts[0]] = int(parts[1])
            except ValueError:
                pass
    return out


def substituted_of(text):
    """The mangled names of the kernels the rebuild compiled in, or None
    when the run did not say (an older run.sh)."""
    if text is None:
        return None
    return sorted({line.strip() for line in text.splitlines() if line.strip()})


def wall_of(text):
    steps = {}
    for line in (text or "").splitlines():
        parts = line.split()
        if len(parts) >= 2:
            try:
                steps[parts[0]] = steps.get(parts[0], 0) + int(parts[1])
            except ValueError:
                pass
    return steps


def program_result(d, p):
    """One program's partial result from its folder d (what run.sh
    leaves): its runs, the optimize rows and tasks, the ablations done."""
    k0, pass0, fail0 = collect.parse_log(read(os.path.join(d, "run0.log"), ""), p)
    k1, pass1, fail1 = collect.parse_log(read(os.path.join(d, "run1.log"), ""), p)
    torch = []
    for line in (read(os.path.join(d, "torch.log"), "") or "").splitlines():
        if line.startswith("KSBENCH "):
            try:
                torch.append(json.loads(line[len("KSBENCH "):]))
            except ValueError:
                pass
    rows = read_json(os.path.join(d, "optimize.json"))
    tasks = {}
    tdir = os.path.join(d, "tasks")
    if os.path.isdir(tdir):
        for t in sorted(os.listdir(tdir)):
            tot = task_totals(os.path.join(tdir, t))
            if tot:
                tasks[t] = tot
    abl = {}
    for a in ABLATIONS:
        ar = read_json(os.path.join(d, "ablate-%s.json" % a))
        if ar is None:
            continue
        at = {}
        adir = os.path.join(d, "ablate-%s" % a, "tasks")
        if os.path.isdir(adir):
            for t in sorted(os.listdir(adir)):
                tot = task_totals(os.path.join(adir, t))
                if tot:
                    at[t] = tot
        abl[a] = {"rows": ar, "tasks": at}
    failed = (read(os.path.join(d, "failed-step")) or "").strip() or None
    # The rebuilt program's run failing is its result, not a step that
    # could not run: with a variant compiled in, that variant is wrong.
    if failed == "run1":
        failed = None
    ok = failed is None and pass0 and pass1 and not fail0 and not fail1
    status = "PASS" if ok else "FAIL"
    reason = None
    if failed:
        reason = "step %s failed" % failed
    elif not pass1 or fail1:
        reason = "rebuilt program: " + (fail1 or "no PASS line")
    out = {
        "program": p, "status": status, "reason": reason,
        "failed_step": failed, "pass_before": bool(pass0 and not fail0),
        "pass_after": bool(pass1 and not fail1),
        "before": k0, "after": k1, "torch": torch, "optimize": rows,
        "tasks": tasks, "ablations": abl,
        "stats_build1": stats_of(read(os.path.join(d, "stats-build1.txt"))),
        "substituted": substituted_of(read(os.path.join(d, "substituted.txt"))),
        "wall_s": wall_of(read(os.path.join(d, "wall"))),
    }
    return out


def cmd_program(args):
    out = program_result(args.dir, args.program)
    collect.write_json(args.output, out)
    print("%s: %s%s" % (out["program"], out["status"],
                        ": " + out["reason"] if out["reason"] else ""))
    return 0


# --- merge -----------------------------------------------------------------

def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    if not xs:
        return None
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def frac(n, d):
    return n / d if d else None


def by_name(kernels):
    return {k.get("kernel"): k for k in kernels or []}


def kernel_record(prog, name, k0, k1, pairs, idx, bw, fl, rel):
    """One naive kernel of one program."""
    rec = {"program": prog["program"], "kernel": name,
           "bytes": k0.get("bytes"), "flops": k0.get("flops"),
           "original_ms": k0.get("median_ms"),
           "original_lo_ms": k0.get("min_ms"), "original_hi_ms": k0.get("max_ms"),
           "after_ms": k1.get("median_ms") if k1 else None,
           "after_lo_ms": k1.get("min_ms") if k1 else None,
           "after_hi_ms": k1.get("max_ms") if k1 else None}
    floor = None
    if bw and fl and rec["bytes"] is not None and rec["flops"] is not None:
        floor = 1e3 * max(rec["bytes"] / bw, rec["flops"] / fl)
        rec["bound"] = "memory" if rec["bytes"] / bw >= rec["flops"] / fl else "compute"
    rec["floor_ms"] = floor
    rec["floor_pct_before"] = 100 * floor / rec["original_ms"] \
        if floor and rec["original_ms"] else None
    rec["floor_pct_after"] = 100 * floor / rec["after_ms"] \
        if floor and rec["after_ms"] else None
    v = pairs.get(idx)
    rec["vendor_kernel"] = v.get("kernel") if v else None
    v1 = by_name(prog.get("after")).get(rec["vendor_kernel"]) if v else None
    rec["vendor_ms"] = (v1 or v).get("median_ms") if v else None
    t = [x for x in prog.get("torch") or [] if x.get("for") == name]
    rec["torch_op"] = t[0].get("op") if t else None
    rec["torch_ms"] = t[0].get("median_ms") if t else None
    rec["program_speedup"] = rec["original_ms"] / rec["after_ms"] \
        if rec["original_ms"] and rec["after_ms"] else None
    rec["speedup_vs_torch"] = rec["torch_ms"] / rec["after_ms"] \
        if rec["torch_ms"] and rec["after_ms"] else None
    row = task_of(name, prog.get("optimize"))
    rec["task"] = row.get("task") if row else None
    rec["demangled"] = row.get("kernel") if row else None
    rec["end"] = row.get("end") if row else None
    rec["cache"] = row.get("cache") if row else None
    rec["rounds"] = row.get("rounds") if row else None
    rec["skills"] = (row.get("skills") or None) if row else None
    verified = bool(row and row.get("cache") == "cached" and (row.get("speedup") or 0) > 0)
    rec["verified"] = verified
    rec["review_original_ms"] = row["original_us"] / 1e3 \
        if row and row.get("original_us") else None
    rec["review_best_ms"] = row["best_us"] / 1e3 \
        if verified and row.get("best_us") else None
    rec["review_speedup"] = row.get("speedup") if verified else None
    tot = (prog.get("tasks") or {}).get(rec["task"]) if rec["task"] else None
    # The row's: its steps and the final check (older rows lack it).
    rec["gpu_s"] = row["gpu_s"] if row and row.get("gpu_s") is not None else \
        (tot["gpu_ms"] / 1e3 if tot else None)
    rec["gpu_phases_s"] = (tot.get("phases") or None) if tot else None
    rec["reviews"] = tot["reviews"] if tot else None
    rec["tokens"] = tot["tokens"] if tot else None
    names = prog.get("substituted")
    if names is not None:
        # The task is named by the kernel's mangled name (its first 100
        # characters and a hash when longer).
        t = rec["task"] or ""
        rec["substituted"] = bool(verified and (t in names or (
            len(t) > 100 and any(n[:100] == t[:100] for n in names))))
    else:
        # Only the count is known: every verified kernel of the program
        # compiled in, or it cannot be said which.
        subst = (prog.get("stats_build1") or {}).get("subst-kernel", 0)
        nver = sum(1 for r in prog.get("optimize") or []
                   if r.get("cache") == "cached" and (r.get("speedup") or 0) > 0)
        rec["substituted"] = bool(verified and subst >= nver > 0)
    rec["in_program"] = rec["substituted"] and bool(prog.get("pass_after"))
    rec["wrong"] = rec["substituted"] and not prog.get("pass_after") and \
        prog.get("failed_step") is None
    rec["speedup"] = rec["review_speedup"] if rec["in_program"] else \
        (1.0 if prog.get("pass_before") else None)
    if rec["task"]:
        rec["task_dir"] = os.path.join(rel, prog["program"], "tasks", rec["task"])
        rec["source_file"] = os.path.join(rel, prog["program"], "main.cu")
    return rec


def ablation_records(prog, kernels):
    out = {}
    for a, ab in (prog.get("ablations") or {}).items():
        recs = []
        for k in kernels:
            row = task_of(k["kernel"], ab.get("rows"))
            # the ablations run with --no-cache: their best variant is
            # "reviewed" (correct on the captures and fresh inputs, not
            # put through the final sanitizer check nor cached)
            v = bool(row and row.get("cache") in ("cached", "reviewed") and
                     (row.get("speedup") or 0) > 0)
            tot = (ab.get("tasks") or {}).get(row.get("task")) if row else None
            recs.append({"program": k["program"], "kernel": k["kernel"],
                         "task": row.get("task") if row else None,
                         "verified": v,
                         "review_speedup": row.get("speedup") if v else None,
                         "speedup": row.get("speedup") if v else 1.0,
                         "rounds": row.get("rounds") if row else None,
                         "skills": (row.get("skills") or None) if row else None,
                         "end": row.get("end") if row else None,
                         "gpu_s": row["gpu_s"] if row and row.get("gpu_s") is not None
                         else (tot["gpu_ms"] / 1e3 if tot else None)})
        out[a] = recs
    return out


def summary_of(kernels, wall_s=None):
    n = len(kernels)
    ok = [k for k in kernels if k.get("in_program")]
    sp = [k.get("speedup") for k in kernels if k.get("speedup") is not None]
    s = {"kernels": n,
         "verified": sum(1 for k in kernels if k.get("verified")),
         "in_program": len(ok),
         "wrong": sum(1 for k in kernels if k.get("wrong")),
         "success_rate": frac(len(ok), n),
         "fast_1": frac(sum(1 for k in ok if (k.get("speedup") or 0) > 1), n),
         "fast_2": frac(sum(1 for k in ok if (k.get("speedup") or 0) > 2), n),
         "mean_speedup": mean(sp), "geomean_speedup": geomean(sp),
         "mean_program_speedup": mean([k.get("program_speedup") for k in kernels]),
         "geomean_program_speedup": geomean([k.get("program_speedup") for k in kernels]),
         "mean_speedup_vs_torch": mean([k.get("speedup_vs_torch") for k in kernels]),
         "geomean_speedup_vs_torch": geomean([k.get("speedup_vs_torch") for k in kernels]),
         "torch_kernels": sum(1 for k in kernels if k.get("speedup_vs_torch")),
         "geomean_floor_pct_before": geomean([k.get("floor_pct_before") for k in kernels]),
         "geomean_floor_pct_after": geomean([k.get("floor_pct_after") for k in kernels]),
         "review_gpu_minutes": sum(k.get("gpu_s") or 0 for k in kernels) / 60}
    room = [k for k in kernels if k.get("floor_pct_before") is not None
            and k["floor_pct_before"] < HEADROOM_PCT]
    s["headroom_kernels"] = len(room)
    s["headroom_verified"] = sum(1 for k in room if k.get("verified"))
    s["slower_in_program"] = sum(1 for k in ok if k.get("program_speedup") is not None
                                 and k["program_speedup"] < 1)
    rounds = [k["rounds"] for k in kernels if k.get("rounds") is not None]
    gpu = [k["gpu_s"] for k in kernels if k.get("gpu_s") is not None]
    s["max_rounds"] = max(rounds) if rounds else None
    s["max_task_gpu_s"] = max(gpu) if gpu else None
    if wall_s is not None:
        s["gpu_minutes"] = wall_s / 60
    return s


def ablation_summary(recs):
    n = len(recs)
    ok = [r for r in recs if r.get("verified")]
    sp = [r.get("speedup") for r in recs]
    return {"kernels": n, "verified": len(ok), "success_rate": frac(len(ok), n),
            "fast_1": frac(sum(1 for r in ok if r["speedup"] > 1), n),
            "fast_2": frac(sum(1 for r in ok if r["speedup"] > 2), n),
            "mean_speedup": mean(sp), "geomean_speedup": geomean(sp),
            "review_gpu_minutes": sum(r.get("gpu_s") or 0 for r in recs) / 60}


def cmd_merge(args):
    partial = args.merge.rstrip("/")
    meta = read_json(os.path.join(partial, "meta.json"), {})
    run = read_json(os.path.join(partial, "run.json"), {})
    ceil = read_json(os.path.join(partial, "ceilings.json"))
    bw = fl = None
    ceilings = {"status": ceil.get("status") if ceil else "NOT_RUN",
                "copy_gbps": None, "sgemm_tflops": None}
    if ceil:
        c = collect.find_kernel(ceil, collect.COPY_KERNEL)
        g = collect.find_kernel(ceil, collect.SGEMM_KERNEL)
        bw = collect.rate(c, "bytes") if c else None
        fl = collect.rate(g, "flops") if g else None
        ceilings["copy_gbps"] = bw / 1e9 if bw else None
        ceilings["sgemm_tflops"] = fl / 1e12 if fl else None
    date = meta.get("date")
    out_path = args.output or os.path.join(
        os.path.dirname(os.path.abspath(partial)),
        "%s-%s.json" % (date or "undated", collect.slug(meta.get("gpu"))))
    rel = os.path.relpath(os.path.abspath(partial),
                          os.path.dirname(os.path.abspath(out_path)))
    names = sorted(set((args.programs or "").split()) |
                   {fn[:-5] for fn in os.listdir(partial)
                    if fn.endswith(".json") and fn not in
                    ("meta.json", "run.json", "ceilings.json")})
    programs, kernels, chains, abl = {}, [], [], {a: [] for a in ABLATIONS}
    wall = 0
    for name in names:
        prog = read_json(os.path.join(partial, name + ".json"))
        # A program whose <P>.json run.sh took away to run its
        # ablations has its own result already: its second run is done
        # (the markers in <P>/steps). Read from its folder, it counts,
        # its ablations marked pending, so that a summary taken while
        # they run does not leave the program out.
        pending = False
        if prog is None and os.path.exists(
                os.path.join(partial, name, "steps", "run1.ok")):
            prog = program_result(os.path.join(partial, name), name)
            pending = True
        if not prog or prog.get("program") != name:
            programs[name] = {"status": "NOT_RUN"}
            continue
        w = prog.get("wall_s") or {}
        wall += sum(w.values())
        programs[name] = {"status": prog.get("status"), "reason": prog.get("reason"),
                          "pass_before": prog.get("pass_before"),
                          "pass_after": prog.get("pass_after"),
                          "substituted": (prog.get("stats_build1") or {}).get("subst-kernel"),
                          "wall_s": w}
        if pending:
            programs[name]["ablations_pending"] = True
        k0 = prog.get("before") or []
        after = by_name(prog.get("after"))
        pairs = collect.pair_vendors(k0)
        mine = []
        for i, k in enumerate(k0):
            if k.get("role") != "naive":
                continue
            rec = kernel_record(prog, k.get("kernel"), k, after.get(k.get("kernel")),
                                pairs, i, bw, fl, rel)
            if k.get("kernel") == "chain":
                chains.append(rec)
            elif prog.get("pass_before"):
                mine.append(rec)
        kernels += mine
        for a, recs in ablation_records(prog, mine).items():
            abl.setdefault(a, []).extend(recs)
    res = {"format": 1, "kind": "ks-bench", "date": date, "gpu": meta.get("gpu"),
           "gpu_count": meta.get("gpu_count"), "driver": meta.get("driver"),
           "nvcc": meta.get("nvcc"), "ks_version": run.get("ks_version"),
           "mode": "llm" if run.get("llm") else "rules-only", "llm": run.get("llm"),
           "rounds": run.get("rounds"), "task_budget_min": run.get("task_budget_min"),
           "commands": run.get("commands"), "calls": run.get("calls"), "ceilings": ceilings,
           "programs": programs, "kernels": kernels, "chains": chains,
           "summary": summary_of(kernels, wall),
           "ablations": {a: {"kernels": r, "summary": ablation_summary(r)}
                         for a, r in abl.items() if r}}
    collect.write_json(out_path, res)
    print(out_path)
    return 0


# --- table -----------------------------------------------------------------

def f(v, fmt="%.3g", dash="—"):
    return dash if v is None else fmt % v


def cmd_table(args):
    r = read_json(args.table)
    if r is None:
        print("summarize.py: cannot read %s" % args.table, file=sys.stderr)
        return 1
    c = r.get("ceilings") or {}
    print("%s, driver %s, %s, %s, %s. Ceilings: copy %s GB/s, SGEMM %s TFLOP/s." % (
        r.get("gpu") or "unknown GPU", r.get("driver") or "?", r.get("nvcc") or "nvcc ?",
        r.get("date") or "undated", r.get("mode"), f(c.get("copy_gbps"), "%.0f"),
        f(c.get("sgemm_tflops"), "%.1f")))
    print()
    print("| program | kernel | original ms | after ms | speedup | verified | rounds "
          "| skills | GPU s | % floor before | after | vendor ms | torch ms |")
    print("|---|---|---:|---:|---:|---|---:|---|---:|---:|---:|---:|---:|")
    for k in r.get("kernels") or []:
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            k["program"], k["kernel"], f(k.get("original_ms")), f(k.get("after_ms")),
            f(k.get("review_speedup"), "%.2fx"),
            "wrong" if k.get("wrong") else ("yes" if k.get("in_program") else
                                             ("cached" if k.get("verified") else "no")),
            f(k.get("rounds"), "%d"), k.get("skills") or "—", f(k.get("gpu_s"), "%.0f"),
            f(k.get("floor_pct_before"), "%.1f%%"), f(k.get("floor_pct_after"), "%.1f%%"),
            f(k.get("vendor_ms")), f(k.get("torch_ms"))))
    s = r.get("summary") or {}
    print()
    print("kernels %d, in the program %d, wrong %d; success %s, fast_1 %s, fast_2 %s; "
          "speedup mean %s geomean %s; over Torch geomean %s (%d kernels); "
          "%% of floor geomean %s -> %s; GPU-minutes %s (Reviewer %s)" % (
              s.get("kernels", 0), s.get("in_program", 0), s.get("wrong", 0),
              f(s.get("success_rate"), "%.2f"), f(s.get("fast_1"), "%.2f"),
              f(s.get("fast_2"), "%.2f"), f(s.get("mean_speedup"), "%.2fx"),
              f(s.get("geomean_speedup"), "%.2fx"),
              f(s.get("geomean_speedup_vs_torch"), "%.2fx"), s.get("torch_kernels", 0),
              f(s.get("geomean_floor_pct_before"), "%.1f%%"),
              f(s.get("geomean_floor_pct_after"), "%.1f%%"),
              f(s.get("gpu_minutes"), "%.1f"), f(s.get("review_gpu_minutes"), "%.1f")))
    if s.get("headroom_kernels") is not None:
        print("below %.0f%% of the floor before: %d kernels, %d verified (%s); slower in "
              "the program %d; rounds at most %s, GPU seconds a task at most %s" % (
                  HEADROOM_PCT, s["headroom_kernels"], s.get("headroom_verified", 0),
                  f(frac(s.get("headroom_verified", 0), s["headroom_kernels"]), "%.2f"),
                  s.get("slower_in_program", 0), f(s.get("max_rounds"), "%d"),
                  f(s.get("max_task_gpu_s"), "%.0f")))
    for a, ab in (r.get("ablations") or {}).items():
        s = ab.get("summary") or {}
        print("ablation %s: verified %d of %d, fast_1 %s, speedup mean %s geomean %s, "
              "Reviewer GPU-minutes %s" % (
                  a, s.get("verified", 0), s.get("kernels", 0), f(s.get("fast_1"), "%.2f"),
                  f(s.get("mean_speedup"), "%.2fx"), f(s.get("geomean_speedup"), "%.2fx"),
                  f(s.get("review_gpu_minutes"), "%.1f")))
    pending = sorted(n for n, p in (r.get("programs") or {}).items()
                     if p.get("ablations_pending"))
    if pending:
        print("ablations pending (not in the ablation lines): %s" % " ".join(pending))
    return 0


def main():
    ap = argparse.ArgumentParser(description="make bench results (see the docstring).")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--program", help="one program's partial result")
    mode.add_argument("--merge", metavar="PARTIAL_DIR", help="the final JSON")
    mode.add_argument("--table", metavar="RESULTS", help="a markdown table")
    ap.add_argument("--dir", help="--program: the program's folder")
    ap.add_argument("--programs", help="--merge: every program expected")
    ap.add_argument("-o", "--output")
    args = ap.parse_args()
    if args.program:
        if not args.dir or not args.output:
            ap.error("--program needs --dir and -o")
        return cmd_program(args)
    if args.merge:
        return cmd_merge(args)
    return cmd_table(args)


if __name__ == "__main__":
    sys.exit(main())
