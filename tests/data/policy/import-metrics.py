#!/usr/bin/env python3
"""import-metrics.py: the counters record-metrics.sh brought back, as JSON.

    import-metrics.py metrics.tar.gz > metrics-<date>-h200.json

Reads raw/<program>.csv (ncu --csv --print-units base) and info.txt from the
archive, names each metric as src/review/metricset.c does, and prints
{"format": 1, "recorded": {...}, "programs": {program: {kernel: metrics}}}.
A kernel's metrics have the shape of a replay's "metrics.original" object
(docs/CAPTURE.md): "ranges", one key per metric, "unavailable", plus the
launch's "block" and "grid" as ncu reported them.
"""
import csv
import io
import json
import os
import re
import sys
import tarfile

ROOT = os.path.dirname(os.path.abspath(__file__)) + "/../../.."


def metric_names():
    text = open(os.path.join(ROOT, "src/review/metricset.c")).read()
    rows = re.findall(r'\{\s*"([a-z0-9_]+)",\s*"([a-z0-9_.]+)"', text)
    return {metric: name for name, metric in rows}, [n for n, _ in rows]


def dims(s):
    return [int(x) for x in re.findall(r"\d+", s)]


def main():
    names, order = metric_names()
    tar = tarfile.open(sys.argv[1])
    info = tar.extractfile("info.txt").read().decode().splitlines()
    programs = {}
    for m in sorted(tar.getnames()):
        if not (m.startswith("raw/") and m.endswith(".csv")):
            continue
        prog = m[4:-4]
        text = tar.extractfile(m).read().decode()
        lines = [l for l in text.splitlines() if l.startswith('"')]
        kernels = {}
        for row in csv.DictReader(io.StringIO("\n".join(lines))):
            kname = row["Kernel Name"].split("(")[0]
            k = kernels.setdefault(kname, {"id": row["ID"], "values": {}})
            if k["id"] != row["ID"]:
                continue    # a second launch of the kernel: the first counts
            k["block"] = dims(row["Block Size"])
            k["grid"] = dims(row["Grid Size"])
            name = names.get(row["Metric Name"])
            value = row["Metric Value"].replace(",", "")
            if name and value not in ("", "n/a"):
                k["values"][name] = float(value)
        out = {}
        for kname, k in kernels.items():
            o = {"source": "ncu", "ranges": 1}
            for n in order:
                if n in k["values"]:
                    o[n] = k["values"][n]
            o["unavailable"] = [n for n in order if n not in k["values"]]
            o["block"] = k["block"]
            o["grid"] = k["grid"]
            out[kname] = o
        programs[prog] = out
    gpu = info[1].split(", ")
    rec = {
        "date": info[0][:10],
        "time": info[0],
        "gpu": gpu[0],
        "driver": gpu[1] if len(gpu) > 1 else None,
        "sm_clock_max": gpu[2] if len(gpu) > 2 else None,
        "nvcc": info[2],
        "ncu": info[4],
        "command": "tests/data/policy/record-metrics.sh OUT 60 (ncu --csv "
                   "--print-units base --clock-control none --metrics <metricset> "
                   "-k regex:^(<kernels>)$ -c <n> --kill yes bench/<p>/<p>, full size)",
    }
    json.dump({"format": 1, "recorded": rec, "programs": programs}, sys.stdout,
              indent=1, sort_keys=False)
    sys.stdout.write("\n")


main()
