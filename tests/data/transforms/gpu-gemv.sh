#!/bin/bash
# GPU machine, by hand: gemv_warp_per_row at six GEMV shapes, against
# cuBLAS in the same run. tests/data/transforms/gemv_shapes.cu launches a
# naive row GEMV (y = A x) and a naive transposed one (y = A^T x), each at
# a square, a tall (many short rows) and a wide (few long rows) shape. The
# script
#   1. builds ks, and the program through ks-nvcc with -c (a build record)
#      and nvcc to link with cuBLAS;
#   2. runs it with --small (odd sides) and at full size: its own checks
#      of the naive kernels, and cuBLAS's median per shape (KSBENCH);
#   3. captures every launch (`ks capture --launch all`) and runs `ks try`
#      on each capture, the rows once per group of lanes (32, 8, 128), the
#      transposed case once per width of column block (32, 8) (the
#      Reviewer's interleaved timing of every point it visits, captured
#      and one fresh input set);
# and prints a table: per shape the original, the best point and its
# time, the speedup, % of the floor (bytes over the copy bandwidth) and
# the variant's time over cuBLAS's. Everything is logged under OUT.
#   bash tests/data/transforms/gpu-gemv.sh OUT [SECONDS [POINTS]]
# (or inside a session: bench/tools/gpu-session.sh ... --extra
# tests/data/transforms/gpu-gemv.sh --extra-s SECONDS)
# (KS_GPU_COPY_GBPS: the copy bandwidth of the floor, default the H200's
# 4270 GB/s; POINTS: ks try's --budget per search, default 3)
set -u
out=${1:?usage: gpu-gemv.sh OUT [SECONDS [POINTS]]}
budget=${2:-300}
points=${3:-3}
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top" || exit 1
mkdir -p "$out"
out=$(cd "$out" && pwd)
t0=$(date +%s)
left() { echo $((budget - ($(date +%s) - t0))); }
stamp() { echo "$(date -u +%T) +$(($(date +%s) - t0))s $*" >>"$out/log.txt"; }
export KS_DIR=$top/.ks-gpu-gemv KS_CAPTURE_MAX_BYTES=8G KS_REVIEW_RANDOM=1
rm -rf "$KS_DIR"
w=$top/.ks-gpu-gemv-build
rm -rf "$w"
mkdir -p "$w"
cp tests/data/transforms/gemv_shapes.cu "$w/"
make -j16 all >"$out/make.log" 2>&1 || { stamp "make failed"; tail -20 "$out/make.log"; exit 1; }
stamp "built ks"
if ! (cd "$w" && "$top/ks-nvcc" -O3 -arch=sm_90 -c gemv_shapes.cu -o gemv_shapes.o &&
	nvcc -O3 -arch=sm_90 -o gemv_shapes gemv_shapes.o -lcublas) >"$out/build.log" 2>&1; then
	stamp "program build failed"
	tail -20 "$out/build.log"
	exit 1
fi
timeout 120 "$w/gemv_shapes" --small >"$out/small.txt" 2>&1
stamp "small rc=$?"
timeout 200 "$w/gemv_shapes" >"$out/full.txt" 2>&1
stamp "full rc=$?"
timeout 300 ./ks capture --launch all -- "$w/gemv_shapes" >"$out/capture.txt" 2>&1
stamp "capture rc=$?"
# the rows at each group of lanes, the transposed case at each width of
# column block (a search from one default point would stop before the
# last of them)
for c in "$KS_DIR"/captures/*/*/; do
	c=${c%/}
	k=$(basename "$(dirname "$c")")
	n=$(basename "$c")
	case $k in *gemv_rows*) fixes="lanes=32 lanes=8 lanes=128" ;; *) fixes="cols=32 cols=8" ;; esac
	for x in $fixes; do
		[ "$(left)" -gt 30 ] || { stamp "no time for $k $n $x"; continue; }
		f=$k-$n-$x
		timeout "$(left)" ./ks try "$c" --skill gemv_warp_per_row --param "$x" \
			--budget "$points" --json >"$out/try-$f.json" 2>"$out/try-$f.err"
		stamp "try $f: rc $?"
	done
done
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import glob, json, os, sys
out = sys.argv[1]
bw = float(os.environ.get("KS_GPU_COPY_GBPS", "4270")) * 1e9
blas = {}
for line in open(out + "/full.txt"):
    if line.startswith("KSBENCH"):
        r = json.loads(line[len("KSBENCH"):])
        blas.setdefault(r["kernel"], []).append(r)
checks = [l.strip() for f in ("small", "full") for l in open("%s/%s.txt" % (out, f))
          if l.startswith(("PASS", "FAIL"))]
print("naive kernels' checks (small, full):", " ".join(checks) or "none")
print("floor: bytes at %.0f GB/s%s" % (bw / 1e9, "" if os.environ.get("KS_GPU_COPY_GBPS") else " (the H200's)"))
print("| shape | M x N | original ms | best point | variant ms [p10, p90] | speedup | % floor after | cuBLAS ms | variant / cuBLAS |")
print("|---|---|---:|---|---:|---:|---:|---:|---:|")
for f in sorted(glob.glob(out + "/try-*.json")):
    base = os.path.basename(f)[len("try-"):-len(".json")]
    base, fixed = base.rsplit("-", 1)
    kdir, n = base.rsplit("-", 1)
    kern = "gemv_cols" if "gemv_cols" in kdir else "gemv_rows"
    shapes = blas.get(kern, [])
    sh = shapes[int(n) - 1] if n.isdigit() and 0 < int(n) <= len(shapes) else None
    name = "%s (%s)" % (sh["shape"] if sh else "%s launch %s" % (kern, n), fixed)
    dims = "%d x %d" % (sh["M"], sh["N"]) if sh else "?"
    try:
        j = json.load(open(f))
    except Exception as e:
        print("| %s | %s | no result: %s |" % (name, dims, e))
        continue
    b = j.get("best")
    if b is None:
        why = "; ".join("%s: %s" % (p["params"], p.get("why")) for p in j.get("points", []))
        print("| %s | %s | | none verified | | | | | %s |" % (name, dims, why))
        continue
    p = j["points"][b]
    o, c = p["original"], p["candidate"]
    floor = sh["bytes"] / bw * 1e3 if sh else None
    print("| %s | %s | %.4f | %s | %.4f [%.4f, %.4f] | %.2fx | %s | %s | %s |" % (
        name, dims, o["median_ms"], p["params"], c["median_ms"], c["lo_ms"], c["hi_ms"],
        p["speedup"], "%.1f %%" % (100 * floor / c["median_ms"]) if floor else "?",
        "%.4f" % sh["cublas_ms"] if sh else "?",
        "%.2f" % (c["median_ms"] / sh["cublas_ms"]) if sh else "?"))
    for q in j["points"]:
        if q is not p:
            print("  other point %s: %s %s" % (q["params"], q["state"],
                  "%.4f ms" % q["candidate"]["median_ms"] if q["state"] == "verified" else q.get("why")))
PY
stamp end
