#!/bin/bash
# GPU machine, by hand: check and time the GEMM and GEMV variants.
#
# CANDS holds candidate TUs made on a machine whose libclang parses CUDA
# 13's CCCL headers (`ks transform FILE.cu:KERNEL --skill ID [--param k=v]
# --arch sm_90 --tu`): CANDS/<prog>/<point>.cu for the bench programs,
# CANDS/odd/<kernel>[-<point>].cu for tests/data/transforms/gemm.cu (and
# CANDS/odd/orig.cu, that file as it is). The script
#   1. builds ks, every candidate as a whole program with plain nvcc, and
#      each bench program through ks-nvcc with -c (so it has a build
#      record) and nvcc to link;
#   2. runs every odd-size program (each checks all its kernels against a
#      CPU reference: PASS/FAIL lines);
#   3. runs every bench candidate program at the small size (odd sizes,
#      its own check) and at full size (its KSBENCH lines: the variant as
#      the naive kernel, and cuBLAS, in the same process);
#   4. per bench program, in order, while time is left: captures the
#      original kernel's first launch and reviews the fastest passing
#      point with `ks replay --candidate --time` (captured and one fresh
#      input set, original and candidate interleaved);
# and prints a table. Everything is logged under OUT.
# With ONLY_REVIEW=1, steps 2 and 3 are skipped and the point `d` (the
# default) is reviewed.
#   bash tests/data/transforms/gpu-gemm.sh OUT CANDS [SECONDS]
# (KS_GPU_COPY_GBPS and KS_GPU_SGEMM_TFLOPS: the ceilings of the floor's
# percentages where the GPU is not the H200 they default to)
set -u
only_review=${ONLY_REVIEW:-0}
out=${1:?usage: gpu-gemm.sh OUT CANDS [SECONDS]}
cands=$(cd "${2:?usage: gpu-gemm.sh OUT CANDS [SECONDS]}" && pwd)
budget=${3:-400}
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top" || exit 1
mkdir -p "$out"
t0=$(date +%s)
left() { echo $((budget - ($(date +%s) - t0))); }
stamp() { echo "$(date -u +%T) +$(($(date +%s) - t0))s $*" >>"$out/log.txt"; }
export KS_DIR=$top/.ks-gpu-gemm KS_CAPTURE_MAX_BYTES=8G KS_REVIEW_RANDOM=1
rm -rf "$KS_DIR"
progs="gemm_square gemv gemm_transposed gemm_batched gemm_tall_skinny gemm_bias_act_scale"
kernel_of() {
	case $1 in
	gemm_transposed) echo gemm_tn_naive ;;
	gemm_batched) echo gemm_batched_naive ;;
	gemv) echo gemv_naive ;;
	*) echo gemm_naive ;;
	esac
}
make -j16 all >"$out/make.log" 2>&1 || { stamp "make failed"; tail -20 "$out/make.log"; }
stamp built ks
# candidates go next to the program's main.cu, where its includes resolve
jobs=()
for p in $progs; do
	for c in "$cands/$p"/*.cu; do
		[ -e "$c" ] || continue
		t=$(basename "$c" .cu)
		cp "$c" "bench/$p/cand-$t.cu"
		[ "$only_review" = 1 ] && continue
		jobs+=("cd bench/$p && nvcc -O3 -arch=sm_90 -I../common -o cand-$t cand-$t.cu -lcublas >cand-$t.build 2>&1")
	done
	jobs+=("cd bench/$p && ../../ks-nvcc -O3 -arch=sm_90 -I../common -c main.cu -o main.o >orig.build 2>&1 && nvcc -O3 -arch=sm_90 -o $p main.o -lcublas >>orig.build 2>&1")
done
for c in "$cands"/odd/*.cu; do
	[ "$only_review" = 1 ] && break
	t=$(basename "$c" .cu)
	jobs+=("cd $cands/odd && nvcc -O3 -arch=sm_90 -o $t.bin $t.cu >$t.build 2>&1")
done
printf '%s\n' "${jobs[@]}" | xargs -P 16 -I{} bash -c '{}'
stamp "built ${#jobs[@]} programs"
# 2. odd sizes
for b in "$cands"/odd/*.bin; do
	[ "$only_review" = 1 ] && break
	t=$(basename "$b" .bin)
	timeout 60 "$b" >"$out/odd-$t.txt" 2>&1
	echo "odd $t rc=$? pass=$(grep -c '^PASS' "$out/odd-$t.txt") fail=$(grep -c '^FAIL' "$out/odd-$t.txt")" >>"$out/odd.txt"
done
for c in "$cands"/odd/*.cu; do
	[ "$only_review" = 1 ] && break
	t=$(basename "$c" .cu)
	[ -e "$cands/odd/$t.bin" ] || echo "odd $t BUILD FAILED: $(head -c 300 "$cands/odd/$t.build")" >>"$out/odd.txt"
done
grep -h '^FAIL' "$out"/odd-*.txt >>"$out/odd.txt" 2>/dev/null
stamp "odd done"
# 3. bench candidates, small then full
for p in $progs; do
	for c in "$cands/$p"/*.cu; do
		[ "$only_review" = 1 ] && break
		t=$(basename "$c" .cu)
		b=bench/$p/cand-$t
		if [ ! -x "$b" ]; then
			echo "$p $t BUILD FAILED: $(head -c 300 "$b.build")" >>"$out/bench.txt"
			continue
		fi
		timeout 60 "$b" --small >"$out/$p-$t-small.txt" 2>&1
		rs=$?
		timeout 90 "$b" >"$out/$p-$t-full.txt" 2>&1
		echo "$p $t small_rc=$rs full_rc=$?" >>"$out/bench.txt"
	done
	stamp "bench $p"
done
# 4. reviews of the fastest passing point per program
for p in $progs; do
	[ "$(left)" -gt 75 ] || { stamp "no time for the review of $p"; continue; }
	k=$(kernel_of "$p")
	best=$(python3 - "$out" "$p" "$k" <<'PY'
import glob, json, os, sys
out, p, k = sys.argv[1:]
best = None
for f in glob.glob(f"{out}/{p}-*-full.txt"):
    t = os.path.basename(f)[len(p) + 1:-len("-full.txt")]
    txt = open(f).read()
    if f"PASS {p}" not in txt or f"PASS {p}" not in open(f.replace("-full", "-small")).read():
        continue
    for line in txt.splitlines():
        if line.startswith("KSBENCH"):
            r = json.loads(line[len("KSBENCH"):])
            if r["kernel"] == k and (best is None or r["median_ms"] < best[0]):
                best = (r["median_ms"], t)
print(best[1] if best else "")
PY
)
	[ "$only_review" = 1 ] && best=d
	[ -n "$best" ] || { stamp "no passing point for $p"; continue; }
	timeout 60 ./ks capture --kernel "^$k" -- "./bench/$p/$p" >"$out/$p-capture.txt" 2>&1
	stamp "captured $p rc=$?"
	capdir=$(sed -n 's/^ks: captured //p' "$out/$p-capture.txt" | head -1)
	[ -n "$capdir" ] || { stamp "no capture of $p"; continue; }
	timeout $(($(left) - 10)) ./ks replay "$capdir" --candidate "$top/bench/$p/cand-$best.cu" --time --json \
		>"$out/$p-replay.json" 2>"$out/$p-replay.err"
	stamp "replay $p $best rc=$?"
	echo "$best" >"$out/$p-best.txt"
done
# table
python3 - "$out" $progs <<'PY' >"$out/table.txt"
import glob, json, os, sys
# the floor's ceilings: the H200's measured copy rate and SGEMM rate,
# unless KS_GPU_COPY_GBPS and KS_GPU_SGEMM_TFLOPS name this GPU's
COPY = float(os.environ.get("KS_GPU_COPY_GBPS") or 4270)
SGEMM = float(os.environ.get("KS_GPU_SGEMM_TFLOPS") or 51.1)
CEIL = (f"{COPY:g} GB/s, {SGEMM:g} TFLOP/s" +
        ("" if os.environ.get("KS_GPU_COPY_GBPS") else ": the H200's"))
out, progs = sys.argv[1], sys.argv[2:]
def ksb(path):
    rows = {}
    try:
        for line in open(path):
            if line.startswith("KSBENCH"):
                r = json.loads(line[len("KSBENCH"):])
                rows[r["kernel"]] = r
    except OSError:
        pass
    return rows
print(f"# program point: variant ms [min,max], cuBLAS ms, % of cuBLAS, % of floor ({CEIL})")
for p in progs:
    for f in sorted(glob.glob(f"{out}/{p}-*-full.txt")):
        t = os.path.basename(f)[len(p) + 1:-len("-full.txt")]
        rows = ksb(f)
        ok = "PASS" if f"PASS {p}" in open(f).read() else "FAIL"
        sm = f.replace("-full", "-small")
        oks = "PASS" if os.path.exists(sm) and f"PASS {p}" in open(sm).read() else "FAIL"
        nv = [r for r in rows.values() if r["role"] == "naive"]
        vd = [r for r in rows.values() if r["role"] == "vendor"]
        for r in nv:
            floor = max(r["bytes"] / (COPY * 1e9), r["flops"] / (SGEMM * 1e12)) * 1e3
            v = vd[0]["median_ms"] if vd else float("nan")
            print(f"{p} {t} {r['kernel']}: {r['median_ms']:.4f} [{r['min_ms']:.4f},{r['max_ms']:.4f}] "
                  f"vendor {v:.4f} -> {100 * v / r['median_ms']:.1f}% of vendor, "
                  f"{100 * floor / r['median_ms']:.1f}% of floor; small {oks} full {ok}")
    cap = ksb(f"{out}/{p}-capture.txt")
    for k, r in cap.items():
        print(f"{p} original {k}: {r['median_ms']:.4f} [{r['min_ms']:.4f},{r['max_ms']:.4f}] ({r['role']})")
    try:
        j = json.load(open(f"{out}/{p}-replay.json"))
        tm = j.get("timing") or {}
        o, c = tm.get("original") or {}, tm.get("candidate") or {}
        cand = j.get("candidate") or {}
        print(f"{p} REVIEW {open(f'{out}/{p}-best.txt').read().strip()}: verdict {j.get('verdict')} "
              f"correct {cand.get('correct')} random {cand.get('random')} why {cand.get('why')} "
              f"stage {j.get('stage')} error {j.get('error')}; original {o.get('median_ms')} "
              f"[{o.get('lo_ms')},{o.get('hi_ms')}] n={o.get('n')} candidate {c.get('median_ms')} "
              f"[{c.get('lo_ms')},{c.get('hi_ms')}] n={c.get('n')} {tm.get('verdict')} x{tm.get('speedup')}")
    except (OSError, ValueError) as e:
        print(f"{p} REVIEW none ({e.__class__.__name__})")
PY
cat "$out/odd.txt" "$out/bench.txt" "$out/table.txt"
stamp done
