#!/bin/bash
# GPU machine, by hand: check and time the stencil_smem_halo variants of
# the three bench stencils (jacobi2d, stencil3d7, stencil3d25).
#
# CANDS holds candidate TUs made by tests/data/transforms/stencil-cands.sh
# on a machine whose libclang parses CUDA 13's CCCL headers. The script
#   1. builds ks, each original with plain nvcc (the baseline), every
#      candidate as a whole program, and each original through ks-nvcc
#      with -c (a build record for the Reviewer) and nvcc to link;
#   2. runs each original at full size: its checks and its KSBENCH line
#      (the baseline row);
#   3. runs every candidate program at the small size (odd sides) and at
#      full size (its own checks against the CPU reference, jacobi2d's
#      bit for bit, and its KSBENCH line);
#   4. per program, while time is left: captures the original kernel's
#      first launch and reviews the fastest passing point with `ks replay
#      --candidate --time` (original and candidate interleaved);
# and prints a table (also OUT/summary.txt; the logs as OUT/logs.tgz).
#   bash tests/data/transforms/gpu-stencil.sh OUT CANDS [SECONDS]
# (KS_GST_PROGS="p1 p2" names fewer programs)
#   5. with KS_GST_NCU="d p2 ..." (orig: the original), while time is
#      left, profiles those points' first launch with ncu (clocks as found; the raw metrics of
#      the sections SpeedOfLight, Occupancy, SchedulerStats,
#      WarpStateStats, InstructionStats, MemoryWorkloadAnalysis, LaunchStats)
#      and adds a line each to the table: registers, occupancy, issue
#      slots busy, cycles between a warp's instructions, thread
#      instructions an output, shared wavefronts per 32 outputs (where
#      the sections report them), the largest stall reasons.
# (KS_GPU_COPY_GBPS and KS_GPU_SGEMM_TFLOPS: the ceilings of the floor's
# percentages where the GPU is not the H200 they default to)
set -u
out=${1:?usage: gpu-stencil.sh OUT CANDS [SECONDS]}
cands=$(cd "${2:?usage: gpu-stencil.sh OUT CANDS [SECONDS]}" && pwd)
budget=${3:-300}
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top" || exit 1
mkdir -p "$out"
out=$(cd "$out" && pwd)
logs=$out/logs
mkdir -p "$logs"
t0=$(date +%s)
left() { echo $((budget - ($(date +%s) - t0))); }
stamp() { echo "$(date -u +%T) +$(($(date +%s) - t0))s $*" | tee -a "$logs/log.txt"; }
export KS_DIR=$top/.ks-gpu-stencil KS_CAPTURE_MAX_BYTES=8G KS_REVIEW_RANDOM=1
rm -rf "$KS_DIR"
progs=${KS_GST_PROGS:-"stencil3d25 stencil3d7 jacobi2d"}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >"$logs/gpu.txt" 2>&1
nvcc --version | tail -n 2 >>"$logs/gpu.txt"
( make -j16 all >"$logs/make.log" 2>&1; echo "make rc=$?" >>"$logs/make.log" ) &
mk=$!
jobs=()
for p in $progs; do
	jobs+=("cd bench/$p && nvcc -O3 -arch=sm_90 -I../common -o base main.cu >base.build 2>&1")
	for c in "$cands/$p"/*.cu; do
		[ -e "$c" ] || continue
		t=$(basename "$c" .cu)
		cp "$c" "bench/$p/cand-$t.cu"
		jobs+=("cd bench/$p && nvcc -O3 -arch=sm_90 -I../common -I. -o cand-$t cand-$t.cu >cand-$t.build 2>&1")
	done
done
printf '%s\n' "${jobs[@]}" | xargs -P 12 -I{} bash -c '{}'
wait $mk
stamp "built ks ($(tail -n 1 "$logs/make.log")) and ${#jobs[@]} programs"
for p in $progs; do
	( cd "bench/$p" && ../../ks-nvcc -O3 -arch=sm_90 -I../common -c main.cu -o main.o \
		>orig.build 2>&1 && nvcc -O3 -arch=sm_90 -o "$p" main.o >>orig.build 2>&1 ) &
done
wait
stamp "built the recorded originals"
# 2. baseline
for p in $progs; do
	timeout 60 "bench/$p/base" >"$logs/$p-base.txt" 2>&1
	stamp "$p base rc=$? $(grep -E '^(PASS|FAIL)' "$logs/$p-base.txt")"
done
# 3. candidates, small then full
for p in $progs; do
	for c in "$cands/$p"/*.cu; do
		t=$(basename "$c" .cu)
		b=bench/$p/cand-$t
		if [ ! -x "$b" ]; then
			stamp "$p $t BUILD FAILED: $(head -c 300 "$b.build")"
			continue
		fi
		timeout 30 "$b" --small >"$logs/$p-$t-small.txt" 2>&1
		rs=$?
		timeout 60 "$b" >"$logs/$p-$t-full.txt" 2>&1
		stamp "$p $t small_rc=$rs full_rc=$? $(grep -E '^(PASS|FAIL)' "$logs/$p-$t-full.txt")"
	done
done
# 4. reviews of the fastest passing point per program (a review of
# stencil3d25 took 21 s on an H200, capture 9 s and replay 12 s)
for p in $progs; do
	[ "$(left)" -gt 45 ] || { stamp "no time for the review of $p"; continue; }
	k=${p}_kernel
	best=$(python3 - "$logs" "$p" "$k" <<'PY'
import glob, json, os, sys
out, p, k = sys.argv[1:]
best = None
for f in glob.glob(f"{out}/{p}-*-full.txt"):
    t = os.path.basename(f)[len(p) + 1:-len("-full.txt")]
    txt = open(f).read()
    sm = f.replace("-full", "-small")
    if f"PASS {p}" not in txt or not os.path.exists(sm) or f"PASS {p}" not in open(sm).read():
        continue
    for line in txt.splitlines():
        if line.startswith("KSBENCH"):
            r = json.loads(line[len("KSBENCH"):])
            if best is None or r["median_ms"] < best[0]:
                best = (r["median_ms"], t)
print(best[1] if best else "")
PY
)
	[ -n "$best" ] || { stamp "no passing point for $p"; continue; }
	timeout 60 ./ks capture --kernel "^$k" -- "./bench/$p/$p" >"$logs/$p-capture.txt" 2>&1
	stamp "captured $p rc=$?"
	capdir=$(sed -n 's/^ks: captured //p' "$logs/$p-capture.txt" | head -1)
	[ -n "$capdir" ] || { stamp "no capture of $p"; continue; }
	timeout $(($(left) - 5)) ./ks replay "$capdir" --candidate "$top/bench/$p/cand-$best.cu" \
		--time --json >"$logs/$p-replay.json" 2>"$logs/$p-replay.err"
	stamp "replay $p $best rc=$?"
	echo "$best" >"$logs/$p-best.txt"
done
# 5. ncu on the points KS_GST_NCU names
for p in $progs; do
	for t in ${KS_GST_NCU:-}; do
		b=bench/$p/cand-$t
		[ "$t" = orig ] && b=bench/$p/base
		[ -x "$b" ] || continue
		[ "$(left)" -gt 25 ] || { stamp "no time for ncu on $p $t"; continue; }
		timeout $(($(left) - 5)) ncu --clock-control none --kernel-name "regex:${p}_kernel" \
			--launch-count 1 --section SpeedOfLight --section Occupancy \
			--section SchedulerStats --section WarpStateStats --section InstructionStats \
			--section MemoryWorkloadAnalysis --section LaunchStats --csv --page raw \
			"$b" >"$logs/$p-$t-ncu.csv" 2>"$logs/$p-$t-ncu.err"
		stamp "ncu $p $t rc=$?"
	done
done
# table
# shellcheck disable=SC2086 # the programs are words
python3 - "$logs" $progs <<'PY' >"$out/summary.txt"
import glob, json, os, sys
# the floor's ceilings: the H200's measured copy rate and SGEMM rate,
# unless KS_GPU_COPY_GBPS and KS_GPU_SGEMM_TFLOPS name this GPU's
COPY = float(os.environ.get("KS_GPU_COPY_GBPS") or 4270)
SGEMM = float(os.environ.get("KS_GPU_SGEMM_TFLOPS") or 51.1)
CEIL = (f"{COPY:g} GB/s, {SGEMM:g} TFLOP/s" +
        ("" if os.environ.get("KS_GPU_COPY_GBPS") else ": the H200's"))
out, progs = sys.argv[1], sys.argv[2:]
def ksb(path):
    rows = []
    try:
        for line in open(path):
            if line.startswith("KSBENCH"):
                rows.append(json.loads(line[len("KSBENCH"):]))
    except OSError:
        pass
    return rows
def floor(r):
    return max(r["bytes"] / (COPY * 1e9), r["flops"] / (SGEMM * 1e12)) * 1e3
def ncu_line(path, base):
    import csv
    try:
        rows = [r for r in csv.reader(l for l in open(path) if l.startswith('"'))]
    except OSError as e:
        return f"none ({e.__class__.__name__})"
    if len(rows) < 3:
        return "none (no kernel profiled; the .err file says why)"
    head, vals = rows[0], rows[2]
    m = dict(zip(head, vals))
    def num(k):
        try:
            return float(m[k].replace(",", ""))
        except (KeyError, ValueError):
            return None
    # the outputs: the program's bytes are 8 an output (one read, one write)
    outs = base[0]["bytes"] / 8 if base else None
    def per(k, scale=1.0):
        v = num(k)
        return f"{v * scale / outs:.1f}" if v is not None and outs else "?"
    stalls = sorted(((num(k), k) for k in head
                     if k.startswith("smsp__average_warps_issue_stalled_") and k.endswith("_per_issue_active.ratio")
                     and num(k) is not None), reverse=True)[:5]
    st = ", ".join(f"{k[len('smsp__average_warps_issue_stalled_'):-len('_per_issue_active.ratio')]} {v:.2f}"
                   for v, k in stalls)
    if not st:
        # the sampled stall reasons where the ratios are not in the report
        pre = "smsp__pcsamp_warps_issue_stalled_"
        smp = [(num(k), k) for k in head if k.startswith(pre) and "not_issued" not in k
               and num(k) is not None]
        tot = sum(v for v, _ in smp) or 1.0
        st = ", ".join(f"{k[len(pre):]} {100 * v / tot:.0f}% of samples"
                       for v, k in sorted(smp, reverse=True)[:5])
    def g(*ks):
        return next((m[k] for k in ks if k in m), "?")
    return (f"{g('gpu__time_duration.sum')} ns; registers {g('launch__registers_per_thread')}, "
            f"occupancy {g('sm__warps_active.avg.pct_of_peak_sustained_active')} %, "
            f"issue slots busy {g('smsp__issue_active.avg.pct_of_peak_sustained_active', 'sm__inst_issued.avg.pct_of_peak_sustained_active')} %, "
            f"cycles between a warp's instructions {g('smsp__average_warp_latency_per_inst_issued.ratio')}, "
            f"SM {g('sm__throughput.avg.pct_of_peak_sustained_elapsed')} %, "
            f"DRAM {g('gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed')} %; "
            f"thread instructions an output {per('smsp__inst_executed.sum', 32.0)}, "
            f"shared wavefronts per 32 outputs {per('l1tex__data_pipe_lsu_wavefronts_mem_shared.sum', 32.0)}; "
            f"stalls: {st or '?'}")
print(open(f"{out}/gpu.txt").read().strip())
print(f"# program point: median ms [min,max] reps, % of floor ({CEIL}); small/full checks")
for p in progs:
    for r in ksb(f"{out}/{p}-base.txt"):
        print(f"{p} baseline: {r['median_ms']:.4f} [{r['min_ms']:.4f},{r['max_ms']:.4f}] n={r['reps']} "
              f"{100 * floor(r) / r['median_ms']:.1f}% of floor; "
              f"{'PASS' if f'PASS {p}' in open(f'{out}/{p}-base.txt').read() else 'FAIL'}")
        print("  " + next(l for l in open(f"{out}/{p}-base.txt") if l.startswith("KSBENCH")).strip())
    for f in sorted(glob.glob(f"{out}/{p}-*-full.txt")):
        t = os.path.basename(f)[len(p) + 1:-len("-full.txt")]
        sm = f.replace("-full", "-small")
        oks = "PASS" if os.path.exists(sm) and f"PASS {p}" in open(sm).read() else "FAIL"
        ok = "PASS" if f"PASS {p}" in open(f).read() else "FAIL"
        for r in ksb(f):
            print(f"{p} {t}: {r['median_ms']:.4f} [{r['min_ms']:.4f},{r['max_ms']:.4f}] n={r['reps']} "
                  f"{100 * floor(r) / r['median_ms']:.1f}% of floor; small {oks} full {ok}")
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
    except OSError:
        print(f"{p} REVIEW none (not reviewed: no time, no capture or no passing point; logs/log.txt says which)")
    except ValueError as e:
        print(f"{p} REVIEW none (the replay's JSON unreadable: {e})")
    for f in sorted(glob.glob(f"{out}/{p}-*-ncu.csv")):
        t = os.path.basename(f)[len(p) + 1:-len("-ncu.csv")]
        print(f"{p} NCU {t}: {ncu_line(f, ksb(f'{out}/{p}-base.txt'))}")
PY
for p in $progs; do cp "bench/$p/"*.build "$logs/" 2>/dev/null; done
tar -czf "$out/logs.tgz" -C "$out" logs
rm -rf "$logs"
cat "$out/summary.txt"
stamp "done" 2>/dev/null || true
