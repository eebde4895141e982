#!/bin/bash
# GPU machine, by hand: build ks, build the elementwise bench programs
# through ks-nvcc (-c, so that each gets a build record), capture each
# kernel's first launch, `ks try` it with a builtin transform, and print a
# table (kernel, skill, best point, original and variant ms with spreads,
# % of the floor before and after). Floors: bytes / the copy bandwidth
# measured by bench/ceilings in the same run.
# One review of a 2 GiB capture builds two shared objects and checks the
# captured and one fresh input set of 2^28 elements on the CPU: tens of
# seconds; each `ks try` gets 150 s per point. PROGS narrows the programs
# ("relu").
#   bash tests/data/transforms/gpu-try.sh OUTDIR [SKILL [BUDGET]]
set -u
out=${1:?usage: gpu-try.sh OUTDIR [SKILL [BUDGET]]}
skill=${2:-vectorize_memory}
budget=${3:-2}
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top" || exit 1
mkdir -p "$out"
export KS_DIR=$top/.ks-gpu-try KS_CAPTURE_MAX_BYTES=4G KS_REVIEW_RANDOM=${KS_REVIEW_RANDOM:-1}
rm -rf "$KS_DIR"
progs=${PROGS:-relu gelu sigmoid softplus}
stamp() { echo "$(date -u +%T) $*"; }
( cd bench/ceilings && nvcc -O3 -arch=sm_90 -I../common -o ceilings main.cu -lcublas \
	>"$out/ceilings.build" 2>&1 && ./ceilings >"$out/ceilings.txt" 2>&1 ) &
for p in $progs; do
	( cd "bench/$p" && "$top/ks-nvcc" -O3 -arch=sm_90 -I../common -c main.cu -o main.o &&
	  nvcc -O3 -arch=sm_90 -o "$p" main.o ) >"$out/$p.build" 2>&1 &
done
wait
stamp built
for p in $progs; do
	./ks capture --kernel "${p}_kernel" -- "./bench/$p/$p" >"$out/$p.capture" 2>&1
	stamp "captured $p"
done
for d in "$KS_DIR"/captures/*/1; do
	k=$(basename "$(dirname "$d")")
	timeout $((150 * budget)) ./ks try "$d" --skill "$skill" --budget "$budget" --json \
		>"$out/$k.try.json" 2>"$out/$k.try.err"
	stamp "try $k: rc $?"
done
python3 - "$out" "$skill" <<'PY'
import glob, json, re, sys
out, skill = sys.argv[1], sys.argv[2]
bw = None
try:
    for line in open(out + "/ceilings.txt"):
        if line.startswith("KSBENCH") and '"copy_d2d"' in line:
            r = json.loads(line[len("KSBENCH"):])
            bw = r["bytes"] / (r["median_ms"] / 1e3)
except OSError:
    pass
print("copy bandwidth:", "%.0f GB/s" % (bw / 1e9) if bw else "not measured (4270 GB/s assumed)")
bw = bw or 4270e9
print("| kernel | skill | best params | original ms [p10, p90] | variant ms [p10, p90] | speedup | % floor before | % floor after |")
print("|---|---|---|---|---|---|---|---|")
for f in sorted(glob.glob(out + "/*.try.json")):
    try:
        j = json.load(open(f))
    except Exception as e:
        print("|", f, "| no result:", e, "|"); continue
    floor = 2 * 4 * 2**28 / bw * 1e3
    b = j.get("best")
    if b is None:
        why = "; ".join("%s: %s" % (p["params"], p.get("why")) for p in j["points"])
        print("| %s | %s | none verified | | | | | %s |" % (j["kernel"], skill, why)); continue
    p = j["points"][b]; o = p["original"]; c = p["candidate"]
    print("| %s | %s | %s | %.4f [%.4f, %.4f] | %.4f [%.4f, %.4f] | %.2fx | %.1f%% | %.1f%% |" % (
        j["kernel"], skill, p["params"], o["median_ms"], o["lo_ms"], o["hi_ms"],
        c["median_ms"], c["lo_ms"], c["hi_ms"], p["speedup"],
        100 * floor / o["median_ms"], 100 * floor / c["median_ms"]))
    for q in j["points"]:
        if q is not p:
            print("  other point %s: %s %s" % (q["params"], q["state"],
                  "%.4f ms" % q["candidate"]["median_ms"] if q["state"] == "verified" else q.get("why")))
PY
