#!/usr/bin/env bash
# integration/gpu/run.sh: capture and replay on a real GPU (`make gpu-test`).
#
# Builds the sample project and four benchmark programs through ks-nvcc,
# captures their kernels with `ks capture` (its eligibility table where
# the test does not replay each capture itself), replays every capture (the
# original must reproduce its outputs), restores the globals of a TU that
# includes CUB, names why each of a set of kernels does not reproduce,
# stops runs past their time bound, shows each correctness rule
# rejecting a deliberately wrong candidate (integration/gpu/candidates/),
# accepts hand-optimized GEMM candidates with a measured speedup, collects
# metrics, runs the sanitizer, measures the capture overhead, and takes a
# build that names no target through capture, optimize and the rebuild.
#
#   integration/gpu/run.sh [TEST...]     all tests, or those named
#
# Skips itself (status 0, with the reason) without a GPU or without
# ks-replay and libks-capture.so. Every command of a test decides it
# (integration/gpu/harness.sh: the semantics of tests/run). Work and logs
# go to $KS_GPU_WORK (default build/gpu-test); the last lines are a table,
# "N passed, N failed", and the status is 0 only when nothing failed.
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/integration/gpu
WORK=${KS_GPU_WORK:-$ROOT/build/gpu-test}
KS=$ROOT/ks
KSNVCC=$ROOT/ks-nvcc
# shellcheck source=integration/gpu/harness.sh
source "$HERE/harness.sh"

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q GPU; then
	gpu_probe_skip "no GPU (nvidia-smi lists none)"
fi
if [ ! -x "$ROOT/ks-replay" ] || [ ! -f "$ROOT/libks-capture.so" ]; then
	gpu_probe_skip "ks-replay or libks-capture.so not built (needs the CUDA toolkit with CUPTI)"
fi

NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
rm -rf "$WORK"
mkdir -p "$WORK/logs"
export KS_DIR=$WORK/ksdir KS_NVCC=$NVCC
unset KS_DISABLE KS_TOL_F32 KS_REPLAY_TIMEOUT
RESULTS=$WORK/results.txt
: >"$RESULTS"

RELU_TYPES='const float *;float *;size_t'
GEMM_TYPES='const float *;const float *;float *;int;int;int'

detail() { echo "DETAIL: $*"; }

# The value of a Python expression over the JSON file $1 (as `j`).
jget() {
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# The newest capture of a kernel (mangled-name prefix).
capture_of() { # kernel-dir-glob [launch]
	local d
	for d in "$KS_DIR"/captures/$1/*/; do
		[ -f "$d/launch.json" ] || continue
		if [ -z "${2:-}" ] || [ "$(jget "$d/launch.json" 'j["launch"]')" = "$2" ]; then
			echo "${d%/}"
		fi
	done | tail -n 1
}

# ks replay with --json into $WORK/<name>.json; prints its status.
replay_json() { # name, then ks replay arguments
	local name=$1 status
	shift
	set +e
	"$KS" replay "$@" --json >"$WORK/$name.json" 2>"$WORK/$name.err"
	status=$?
	set -e
	echo "$status"
}

# A candidate TU: the original with one kernel replaced.
candidate() { # original.cu kernel snippet out.cu
	local snip=$HERE/candidates/$3.cu
	case $3 in /*) snip=$3 ;; esac
	python3 "$HERE/splice.py" "$1" "$2" "$snip" >"$4"
}

# --- the programs -------------------------------------------------------------

t_build() {
	make -C "$ROOT/integration/projects/make-app" NVCC="$KSNVCC" BUILD="$WORK/make-app" >/dev/null
	# Benchmark programs in two steps, so that the compile is recorded.
	for p in relu softmax histogram gemm_square; do
		mkdir -p "$WORK/bench/$p"
		cp -R "$ROOT/bench/$p/." "$WORK/bench/$p/"
		cp -R "$ROOT/bench/common" "$WORK/bench/" 2>/dev/null || true
		libs=
		[ "$p" = gemm_square ] && libs=-lcublas
		(cd "$WORK/bench/$p" &&
			"$KSNVCC" -O3 -arch=sm_90 -I../common -c main.cu -o main.o &&
			"$NVCC" -arch=sm_90 -o "$p" main.o $libs)
	done
	n=$(ls "$KS_DIR"/builds/*.json | wc -l)
	detail "$n build records (make-app: saxpy.cu, stencil.cu; 4 benchmark programs)"
	[ "$n" -ge 6 ]
}

t_capture_app() {
	local app=$WORK/make-app/make-app
	"$app" >"$WORK/app-plain.txt"
	"$KS" capture -- "$app" >"$WORK/app-captured.txt" 2>"$WORK/app-capture.err"
	cat "$WORK/app-capture.err"
	cmp "$WORK/app-plain.txt" "$WORK/app-captured.txt"
	grep -q '^PASS$' "$WORK/app-captured.txt"
	n=$(grep -c '^ks: captured' "$WORK/app-capture.err")
	# The eligibility table: each of the 3 kernels reproduces.
	[ "$(grep -cE ' yes$' "$WORK/app-capture.err")" = 3 ]
	for k in _Z5saxpyifPKfPf _Z9block_sumPKfiPf _Z11jacobi_step6grid2dPKfPf; do
		[ -n "$(capture_of "$k")" ] || { echo "no capture of $k"; return 1; }
	done
	typed=$(jget "$(capture_of _Z11jacobi_step6grid2dPKfPf)/launch.json" \
		'";".join(str(p["type"]) for p in j["params"])')
	detail "output and status unchanged; $n captures (saxpy, block_sum, jacobi_step); jacobi types from analysis: $typed"
	"$KS" captures
}

t_capture_launch_n() {
	"$KS" capture --no-check --kernel jacobi --launch 5 -- "$WORK/make-app/make-app" >/dev/null
	d=$(capture_of _Z11jacobi_step6grid2dPKfPf 5)
	[ -n "$d" ]
	detail "jacobi_step launch 5 captured: $(jget "$d/launch.json" 'j["launch"]'), struct parameter of $(jget "$d/launch.json" 'j["params"][0]["size"]') bytes"
}

t_replay_app() {
	local ok=0 d
	for d in "$KS_DIR"/captures/_Z5saxpy*/* "$KS_DIR"/captures/_Z9block_sum*/* \
		"$KS_DIR"/captures/_Z11jacobi*/*; do
		"$KS" replay "$d"
		ok=$((ok + 1))
	done
	detail "$ok captures of make-app replayed; each original reproduces its outputs"
}

t_capture_bench() {
	local p d n=0
	for p in relu softmax histogram; do
		(cd "$WORK/bench/$p" && BENCH_SCALE=small "$KS" capture --no-check -- ./"$p" | tail -n 1)
	done
	(cd "$WORK/bench/relu" && BENCH_SCALE=small "$KS" capture --no-check --kernel relu --launch 2 -- ./relu >/dev/null)
	for d in "$KS_DIR"/captures/*relu*/* "$KS_DIR"/captures/*softmax*/* \
		"$KS_DIR"/captures/*hist*/*; do
		[ -f "$d/launch.json" ] || continue
		"$KS" replay "$d" >"$WORK/logs/replay-$(basename "$(dirname "$d")")-$(basename "$d").txt"
		n=$((n + 1))
	done
	detail "$n captures of relu, softmax, histogram (static cudart, BENCH_SCALE=small) replay their outputs"
	[ "$n" -ge 4 ]
}

# --- the correctness rules, each with a wrong candidate ----------------------------

# reject NAME CAPTURE SNIPPET EXPECTED-WHY [ks replay args...]
reject() {
	local name=$1 cap=$2 snip=$3 want=$4 status why
	shift 4
	candidate "$WORK/bench/relu/main.cu" relu_kernel "$snip" "$WORK/$name.cu"
	status=$(replay_json "$name" "$cap" --candidate "$WORK/$name.cu" --types "$RELU_TYPES" "$@")
	why=$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
c = j.get("candidate") or {}
print(c.get("why") or j.get("error") or "")' "$WORK/$name.json" 2>/dev/null)
	echo "$name: status $status: $why"
	[ "$status" = 1 ] && case $why in *"$want"*) true ;; *) false ;; esac
}

t_rules() {
	local c1 c2 x0 out=$WORK/rules.txt bad=0
	c1=$(capture_of '*relu*' 1)
	c2=$(capture_of '*relu*' 2)
	[ -n "$c1" ] && [ -n "$c2" ] ||
		{ echo "no relu captures: t_capture_bench makes them (run it first)"; return 1; }
	: >"$out"
	reject wrong_value "$c1" relu_wrong_value "differ from the reference" >>"$out" || bad=$((bad + 1))
	reject no_writes "$c2" relu_no_writes "misplaced" >>"$out" || bad=$((bad + 1))
	echo "no_writes: output-only buffers $(jget "$WORK/no_writes.json" 'j["original"]["output_only"]')" >>"$out"
	reject writes_input "$c1" relu_writes_input "leaves alone" >>"$out" || bad=$((bad + 1))
	(export KS_TOL_F32=10,0; reject constant "$c1" relu_constant "constant") >>"$out" || bad=$((bad + 1))
	reject nan "$c1" relu_nan "NaN misplaced" >>"$out" || bad=$((bad + 1))
	x0=$(python3 -c 'import struct,sys; print("0x%08xu" % struct.unpack("<I", open(sys.argv[1], "rb").read(4))[0])' "$c1/b0.in")
	sed "s/KS_X0/$x0/" "$HERE/candidates/relu_overfit.cu" >"$WORK/overfit-snippet.cu"
	reject overfit "$c1" "$WORK/overfit-snippet.cu" "input set 1" >>"$out" || bad=$((bad + 1))
	reject fault "$c1" relu_fault "illegal" >>"$out" || bad=$((bad + 1))
	(export KS_REPLAY_TIMEOUT=15000; reject hang "$c1" relu_hang "did not finish") >>"$out" || bad=$((bad + 1))
	cat "$out"
	detail "$((8 - bad)) of 8 wrong candidates rejected by the rule each breaks (rules.txt)"
	[ "$bad" = 0 ]
}

# Candidates that game the review (state across launches, work skipped when
# the outputs already hold results, work moved off the timed stream).
t_adversarial() {
	local c1 out=$WORK/adversarial.txt bad=0
	c1=$(capture_of '*relu*' 1)
	[ -n "$c1" ] || { echo "no relu capture: t_capture_bench makes it (run it first)"; return 1; }
	: >"$out"
	reject stateful "$c1" relu_stateful "captured inputs again" --random 1 >>"$out" || bad=$((bad + 1))
	reject lazy "$c1" relu_lazy "after the last timed run" --random 1 --time >>"$out" || bad=$((bad + 1))
	reject stream "$c1" relu_stream "past the timed region" --random 1 --time >>"$out" || bad=$((bad + 1))
	echo "stream: tails $(jget "$WORK/stream.json" '(j["timing"]["original_tail_ms"], j["timing"]["candidate_tail_ms"])')" >>"$out"
	cat "$out"
	detail "$((3 - bad)) of 3 gaming candidates rejected (adversarial.txt)"
	[ "$bad" = 0 ]
}

t_launches() {
	local d n=0 status
	mkdir -p "$WORK/launches"
	cp "$HERE/programs/launches.cu" "$WORK/launches/"
	(cd "$WORK/launches" && "$KSNVCC" -arch=sm_90 -c launches.cu -o launches.o &&
		"$NVCC" -arch=sm_90 -o launches launches.o)
	(cd "$WORK/launches" && "$KS" capture --no-check --launch all -- ./launches) | grep '^PASS$' >/dev/null
	for d in "$KS_DIR"/captures/_Z6affinePfi/* "$KS_DIR"/captures/_Z9square_exPKfPfi/* \
		"$KS_DIR"/captures/_Z11negate_coopPfi/*; do
		[ -f "$d/launch.json" ] || { echo "missing capture $d"; return 1; }
		"$KS" replay "$d"
		n=$((n + 1))
	done
	d=$(capture_of _Z6affinePfi)
	jget "$d/launch.json" '[(b["mem"], b["name"], b["written"]) for b in j["buffers"]]'
	[ "$(jget "$d/launch.json" 'sorted(b["name"] for b in j["buffers"] if b["mem"] == "global")')" = "['coef', 'launches']" ]
	[ "$(jget "$(capture_of _Z9square_exPKfPfi)/launch.json" 'j["api"]')" = cuLaunchKernelEx ]
	[ "$(jget "$(capture_of _Z11negate_coopPfi)/launch.json" '(j["cooperative"], j["buffers"][0]["mem"])')" = "(True, 'managed')" ]
	candidate "$WORK/launches/launches.cu" affine affine_good "$WORK/affine_good.cu"
	status=$(replay_json affine_good "$d" --candidate "$WORK/affine_good.cu" --types 'float *;int')
	cat "$WORK/affine_good.json"
	[ "$status" = 0 ]
	detail "$n captures replayed: <<<>>> with __constant__ and __device__ globals (restored, compared), cudaLaunchKernelEx, cooperative launch on managed memory; a candidate using the globals accepted"
}

t_good_candidate_and_sanitize() {
	local c1 status
	c1=$(capture_of '*relu*' 1)
	candidate "$WORK/bench/relu/main.cu" relu_kernel relu_good "$WORK/good.cu"
	status=$(replay_json good "$c1" --candidate "$WORK/good.cu" --types "$RELU_TYPES" --sanitize)
	cat "$WORK/good.json"
	[ "$status" = 0 ]
	[ "$(jget "$WORK/good.json" 'j["sanitize"]["memcheck"]["clean"] and j["sanitize"]["racecheck"]["clean"]')" = True ]
	candidate "$WORK/bench/relu/main.cu" relu_kernel relu_oob "$WORK/oob.cu"
	status=$(replay_json oob "$c1" --candidate "$WORK/oob.cu" --types "$RELU_TYPES" --sanitize)
	cat "$WORK/oob.json"
	[ "$status" = 1 ]
	[ "$(jget "$WORK/oob.json" '(j["candidate"]["correct"], j["sanitize"]["memcheck"]["clean"])')" = "(True, False)" ]
	status=$(replay_json good_ncu "$c1" --candidate "$WORK/good.cu" --types "$RELU_TYPES" --metrics --ncu)
	cat "$WORK/good_ncu.json"
	[ "$status" = 0 ]
	detail "relu_good accepted (captured inputs and 3 fresh sets), memcheck and racecheck clean (memcheck $(jget "$WORK/good.json" 'j["sanitize"]["memcheck"]["seconds"]') s); relu_oob correct on every element but rejected by memcheck ($(jget "$WORK/oob.json" 'j["sanitize"]["memcheck"]["report"].splitlines()[0]')); metrics by ncu: $(jget "$WORK/good_ncu.json" '(j["metrics"]["source"], len(j["metrics"]["candidate"]) - 2, "values")')"
}

# --- what replay restores, bounds and explains ---------------------------------------

# The verdict file's field $2 of the newest capture of kernel glob $1.
verdict_of() { jget "$(capture_of "$1")/eligibility.json" "j[\"$2\"]"; }

t_cub_global() {
	local d status
	mkdir -p "$WORK/cub"
	cp "$HERE/programs/cub_global.cu" "$WORK/cub/"
	(cd "$WORK/cub" && "$KSNVCC" -O3 -arch=sm_90 -c cub_global.cu -o cub_global.o &&
		"$NVCC" -arch=sm_90 -o cub_global cub_global.o)
	(cd "$WORK/cub" && "$KS" capture --kernel block_sums -- ./cub_global) \
		2>"$WORK/cub/capture.err" | grep '^PASS$' >/dev/null
	cat "$WORK/cub/capture.err"
	d=$(capture_of '*block_sums*')
	[ -n "$d" ]
	jget "$d/launch.json" '[(b["mem"], b["name"]) for b in j["buffers"] if b["mem"] == "global"][:4]'
	# The capture holds CCCL's internal-linkage objects and the TU's own.
	n_internal=$(jget "$d/launch.json" 'sum(1 for b in j["buffers"] if "_INTERNAL_" in (b["name"] or ""))')
	[ "$n_internal" -gt 1 ]
	# The table ks capture printed says it reproduces.
	grep -E '^(block_sums\(|_Z10block_sums).* yes' "$WORK/cub/capture.err"
	# The check's review: bias and scale_by (by its path-independent name)
	# restored, CCCL's objects left alone, nothing the kernel reaches missing.
	rev=$(ls -t "$KS_DIR"/replay/_Z10block_sums*/review.json | head -n 1)
	cat "$rev"
	g=$(jget "$rev" 'j["original"]["globals"]')
	[ "$(jget "$rev" 'j["original"]["globals"]["restored"]')" = 2 ]
	[ "$(jget "$rev" 'j["original"]["globals"]["uncaptured"]')" = "[]" ]
	candidate "$WORK/cub/cub_global.cu" block_sums block_sums_good "$WORK/cub_good.cu"
	status=$(replay_json cub_good "$d" --candidate "$WORK/cub_good.cu")
	cat "$WORK/cub_good.json"
	[ "$status" = 0 ]
	detail "CUB TU ($n_internal internal-linkage globals captured): the original reproduces, globals $g; a candidate TU (another main file) accepted"
}

t_review_cases() {
	local d status log=$WORK/cases/capture.err
	mkdir -p "$WORK/cases"
	cp "$HERE/programs/review_cases.cu" "$WORK/cases/"
	(cd "$WORK/cases" && "$KSNVCC" -arch=sm_90 -c review_cases.cu -o review_cases.o &&
		"$NVCC" -arch=sm_90 -o review_cases review_cases.o)
	(cd "$WORK/cases" && "$KS" capture --no-globals -- ./review_cases) 2>"$log" |
		grep '^PASS$' >/dev/null
	cat "$log"
	grep -E '^(spin\(|_Z4spin).* yes' "$log"
	grep -E '^(stamp\(|_Z5stamp).* no ' "$log"
	[ "$(verdict_of '_Z4spin*' verdict)" = eligible ]
	# Its indices poisoned, take faults: the review runs again poisoning
	# only what the launch wrote, and it reproduces.
	[ "$(verdict_of '_Z4take*' verdict)" = eligible ]
	case $(verdict_of '_Z5stamp*' why) in
	*"two runs of the original differ from each other too"*"not deterministic"*) ;;
	*) echo "stamp: $(verdict_of '_Z5stamp*' why)"; return 1 ;;
	esac
	case $(verdict_of '_Z10read_ticks*' why) in
	*"agree with each other"*"the capture does not hold"*ticks*) ;;
	*) echo "read_ticks: $(verdict_of '_Z10read_ticks*' why)"; return 1 ;;
	esac
	# The capture follows the pointers stored in ptrs to the allocation
	# they name, and the replay lays it out again: gather reproduces.
	[ "$(verdict_of '_Z6gather*' verdict)" = eligible ] ||
		{ echo "gather: $(verdict_of '_Z6gather*' why)"; return 1; }
	"$KS" captures >"$WORK/cases/captures.txt"
	grep -E '^(read_ticks\(|_Z10read_ticks).* no ' "$WORK/cases/captures.txt"
	detail "spin, take (32-bit indices) and gather (stored pointers followed) reproduce; stamp: not deterministic; read_ticks: an uncaptured global named"
}

t_time_bound() {
	local d long status start secs which
	d=$(capture_of '_Z4spin*')
	[ -n "$d" ]
	long=$WORK/spin_long
	rm -rf "$long"
	cp -R "$d" "$long"
	rm -f "$long/eligibility.json"
	which=$(jget "$long/launch.json" 'j["params"][0]["pointers"][0]["buffer"]')
	# The loop count raised from 1000 to 2^40: hours, not microseconds.
	python3 -c 'import struct,sys; open(sys.argv[1], "wb").write(struct.pack("<q", 1 << 40))' "$long/b$which.in"
	# Where the capture did not record the launch's duration, one is given.
	python3 - "$long/launch.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j.setdefault("duration_ns", 20000)
json.dump(j, open(sys.argv[1], "w"))
PY
	start=$(date +%s)
	status=$(KS_REPLAY_BOUND_MIN=3000 replay_json spin_long "$long")
	secs=$(($(date +%s) - start))
	cat "$WORK/spin_long.json"
	[ "$status" = 1 ]
	why=$(jget "$WORK/spin_long.json" 'j["original"]["why"]')
	case $why in "did not finish in 3 s (captured launch took "*" ms)") ;; *) echo "why: $why"; return 1 ;; esac
	[ "$secs" -lt 60 ]
	# A candidate is held to a bound relative to the original on replay.
	candidate "$WORK/cases/review_cases.cu" spin spin_slow "$WORK/spin_slow.cu"
	status=$(KS_REPLAY_BOUND_MIN=2000 replay_json spin_slow "$d" --candidate "$WORK/spin_slow.cu")
	cat "$WORK/spin_slow.json"
	[ "$status" = 1 ]
	cwhy=$(jget "$WORK/spin_slow.json" 'j["candidate"]["why"]')
	case $cwhy in "did not finish in 2 s (the original took "*" ms on replay)") ;; *) echo "why: $cwhy"; return 1 ;; esac
	detail "original with its loop count raised: ineligible in ${secs} s ($why); slow candidate rejected ($cwhy)"
}

# --- speed ------------------------------------------------------------------------------

# racecheck on a sample of the blocks (review/sample.h): a race in every
# block is still found, a race-free shared-memory candidate passes, and the
# full-size GEMM's tiled candidate is racechecked on its sample by default.
t_racecheck_sample() {
	local c1 cg status
	c1=$(capture_of '*relu*' 1)
	for v in relu_smem_good relu_race; do
		candidate "$WORK/bench/relu/main.cu" relu_kernel "$v" "$WORK/$v.cu"
		status=$(KS_RACECHECK_SAMPLE=1 replay_json "$v" "$c1" --candidate "$WORK/$v.cu" \
			--types "$RELU_TYPES" --sanitize)
		cat "$WORK/$v.json"
		echo "$v: status $status"
		[ "$(jget "$WORK/$v.json" 'j["candidate"]["correct"] and "sampled" in j["sanitize"]["racecheck"]')" = True ]
	done
	[ "$(jget "$WORK/relu_smem_good.json" 'j["sanitize"]["racecheck"]["clean"]')" = True ]
	[ "$(jget "$WORK/relu_race.json" 'j["sanitize"]["racecheck"]["clean"]')" = False ]
	cg=$(capture_of '*gemm_naive*' 1)
	[ -n "$cg" ]
	candidate "$WORK/bench/gemm_square/main.cu" gemm_naive gemm_tiled "$WORK/gemm_tiled.cu"
	status=$(replay_json gemm_sanitize "$cg" --candidate "$WORK/gemm_tiled.cu" --types "$GEMM_TYPES" --sanitize)
	cat "$WORK/gemm_sanitize.json"
	[ "$status" = 0 ]
	[ "$(jget "$WORK/gemm_sanitize.json" '"sampled" in j["sanitize"]["racecheck"] and j["sanitize"]["racecheck"]["clean"]')" = True ]
	detail "relu_smem_good clean and relu_race's hazard found on a sample of the blocks; $(jget "$WORK/relu_race.json" 'j["sanitize"]["racecheck"]["report"].splitlines()[0]'); gemm_tiled at full size: memcheck $(jget "$WORK/gemm_sanitize.json" 'j["sanitize"]["memcheck"]["seconds"]') s, racecheck on the sample $(jget "$WORK/gemm_sanitize.json" 'j["sanitize"]["racecheck"]["seconds"]') s"
}

t_gemm() {
	local c status out=$WORK/gemm.txt
	(cd "$WORK/bench/gemm_square" && "$KS" capture --no-check --kernel gemm_naive -- ./gemm_square | tail -n 2)
	c=$(capture_of '*gemm_naive*' 1)
	[ -n "$c" ]
	: >"$out"
	for v in gemm_tiled gemm_launcher; do
		candidate "$WORK/bench/gemm_square/main.cu" gemm_naive "$v" "$WORK/$v.cu"
		args=(--time)
		[ "$v" = gemm_launcher ] && args+=(--metrics)
		status=$(replay_json "$v" "$c" --candidate "$WORK/$v.cu" --types "$GEMM_TYPES" "${args[@]}")
		cat "$WORK/$v.json"
		[ "$status" = 0 ] || { echo "$v: status $status"; return 1; }
		python3 -c '
import json, sys
j = json.load(open(sys.argv[1])); t = j["timing"]
print("%s: original %.3f ms [%.3f, %.3f] (n=%d), candidate %.3f ms [%.3f, %.3f] (n=%d): %s, %.2fx" % (
    sys.argv[2], t["original"]["median_ms"], t["original"]["lo_ms"], t["original"]["hi_ms"],
    t["original"]["n"], t["candidate"]["median_ms"], t["candidate"]["lo_ms"],
    t["candidate"]["hi_ms"], t["candidate"]["n"], t["verdict"], t["speedup"]))' "$WORK/$v.json" "$v" >>"$out"
		[ "$(jget "$WORK/$v.json" 'j["timing"]["verdict"]')" = faster ]
	done
	python3 -c '
import json, sys
m = json.load(open(sys.argv[1])).get("metrics") or {}
print("metrics source: %s; error: %s" % (m.get("source"), m.get("error") or m.get("cupti_error")))
for side in ("original", "candidate"):
    s = m.get(side) or {}
    print(side, {k: v for k, v in s.items() if k != "unavailable"}, "unavailable:", s.get("unavailable"))' \
		"$WORK/gemm_launcher.json" >>"$out"
	cat "$out"
	detail "$(head -n 2 "$out" | tr '\n' ' ')"
}

# --- overhead --------------------------------------------------------------------------

t_overhead() {
	local app=$WORK/make-app/make-app
	python3 - "$KS" "$app" "$WORK" <<'PY'
import statistics, subprocess, sys, time
ks, app, work = sys.argv[1:4]
def run(cmd, n):
    t = []
    for _ in range(n):
        s = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t.append(time.perf_counter() - s)
    return statistics.median(t)
plain = run([app], 5)
idle = run([ks, "capture", "--no-check", "--kernel", "no_such_kernel", "--", app], 5)
first = run([ks, "capture", "--no-check", "--no-types", "--", app], 3)
typed = run([ks, "capture", "--no-check", "--", app], 1)
print("DETAIL: make-app wall time, median: plain %.3f s; under ks capture capturing nothing %.3f s (+%.0f%%); capturing the first launch of its 3 kernels %.3f s (+%.0f%%); the same with the types from the analysis of the 2 TUs %.3f s" % (
    plain, idle, 100 * (idle / plain - 1), first, 100 * (first / plain - 1), typed))
PY
}

# A build that names no target (nvcc's default: sm_75 and compute_75's PTX,
# which the driver compiles for this GPU at load time) through the whole
# product: capture, optimize, rebuild. The variant is verified here, so it
# carries this GPU's arch, and the rebuild adds that target to compile it in.
t_reach() {
	local d=$WORK/reach cc k=_Z4flipPKfPfii sp
	export KS_DIR=$WORK/ksdir-reach
	mkdir -p "$d"
	cp "$HERE/programs/reach.cu" "$d/"
	cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d .)
	[ "$cc" -gt 75 ] || gpu_skip "this GPU is sm_$cc: the default target builds its SASS"
	(cd "$d" && "$KSNVCC" -O3 -o reach reach.cu)
	(cd "$d" && "$KS" capture -- ./reach)
	"$KS" optimize --llm none --rounds 2 --no-metrics "$k" >"$WORK/logs/reach-optimize.txt" 2>&1
	"$KS" cache list --json >"$WORK/logs/reach-cache.json"
	sp=$(jget "$WORK/logs/reach-cache.json" "'%.2f' % [r['speedup'] for r in j if r['symbol'] == '$k' and r['arch'] == ${cc}0][0]")
	rm -f "$d/reach"
	(cd "$d" && KS_LOG=$WORK/logs/reach-subst.log "$KSNVCC" -O3 -o reach reach.cu)
	grep "substitution:" "$WORK/logs/reach-subst.log"
	grep -q "reaches sm_$cc only through its PTX" "$WORK/logs/reach-subst.log"
	grep -q "substitution: $k for sm_$cc from" "$WORK/logs/reach-subst.log"
	(cd "$d" && ./reach) | grep -x PASS
	detail "a transpose built without -arch: its variant verified on sm_$cc (x$sp) compiled in with sm_$cc's target added; the program passes its check"
}

# A template kernel, launched for float and double: the float instance is
# captured, its plain copy transformed (the instance view), the variant
# cached with its template arguments and compiled in for that instance
# alone at the rebuild; both instances' results are checked by the program.
t_template() {
	local d=$WORK/tmpl cc k=_Z6flip_tIfEvPKT_PS0_ii k2=_Z6flip_tIdEvPKT_PS0_ii sp sp2
	export KS_DIR=$WORK/ksdir-tmpl
	mkdir -p "$d"
	cp "$HERE/programs/tmpl.cu" "$d/"
	cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d .)
	(cd "$d" && "$KSNVCC" -O3 -arch=sm_$cc -o tmpl tmpl.cu)
	(cd "$d" && "$KS" capture --kernel '^_Z6flip_t' -- ./tmpl)
	"$KS" optimize --llm none --rounds 2 --no-metrics '^_Z6flip_t' >"$WORK/logs/tmpl-optimize.txt" 2>&1
	"$KS" cache list --json >"$WORK/logs/tmpl-cache.json"
	sp=$(jget "$WORK/logs/tmpl-cache.json" "'%.2f' % [r['speedup'] for r in j if r['symbol'] == '$k' and r['arch'] == ${cc}0][0]")
	sp2=$(jget "$WORK/logs/tmpl-cache.json" "'%.2f' % [r['speedup'] for r in j if r['symbol'] == '$k2' and r['arch'] == ${cc}0][0]")
	rm -f "$d/tmpl"
	(cd "$d" && KS_LOG=$WORK/logs/tmpl-subst.log "$KSNVCC" -O3 -arch=sm_$cc -o tmpl tmpl.cu)
	grep "substitution:" "$WORK/logs/tmpl-subst.log"
	grep -q "substitution: $k for sm_$cc from" "$WORK/logs/tmpl-subst.log"
	grep -q "substitution: $k2 for sm_$cc from" "$WORK/logs/tmpl-subst.log"
	(cd "$d" && ./tmpl) | grep -x PASS
	detail "flip_t of a template launched for float and double: the variants of both instances (float x$sp, double x$sp2) compiled into one TU; both pass the program's check"
}

t_header() {
	local d=$WORK/hdr cc k=_Z6flip_hPKfPfii sp
	export KS_DIR=$WORK/ksdir-hdr
	rm -rf "$d"
	cp -r "$HERE/programs/hdr" "$d"
	cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d .)
	(cd "$d" && "$KSNVCC" -O3 -arch=sm_$cc -MD -c main.cu -o main.o && "$KSNVCC" -arch=sm_$cc -o hdr main.o)
	(cd "$d" && "$KS" capture --kernel "$k" -- ./hdr)
	"$KS" optimize --llm none --rounds 2 --no-metrics "$k" >"$WORK/logs/hdr-optimize.txt" 2>&1
	"$KS" cache list --json >"$WORK/logs/hdr-cache.json"
	sp=$(jget "$WORK/logs/hdr-cache.json" "'%.2f' % [r['speedup'] for r in j if r['symbol'] == '$k' and r['arch'] == ${cc}0][0]")
	rm -f "$d/hdr" "$d/main.o"
	(cd "$d" && KS_LOG=$WORK/logs/hdr-subst.log "$KSNVCC" -O3 -arch=sm_$cc -MD -c main.cu -o main.o && "$KSNVCC" -arch=sm_$cc -o hdr main.o)
	grep "substitution:" "$WORK/logs/hdr-subst.log"
	grep -q "substitution: $k for sm_$cc from" "$WORK/logs/hdr-subst.log"
	grep -q " kernels/flip.cuh" "$d/main.d"
	grep -q " kernels/all.h" "$d/main.d"
	[ "$(grep -c 'main.cu' "$d/main.d")" = 1 ]
	(cd "$d" && ./hdr) | grep -x PASS
	detail "flip_h, defined in a header the program includes through another: its variant (x$sp) compiled in with both headers brought into the TU; the depfile names both headers and the TU once; the program's check passes"
}

ALL="t_build t_capture_app t_capture_launch_n t_replay_app t_capture_bench t_launches t_rules t_adversarial t_good_candidate_and_sanitize t_gemm t_racecheck_sample t_overhead t_cub_global t_review_cases t_time_bound t_reach t_template t_header"
TESTS=${*:-$ALL}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/gpu: /'
"$NVCC" --version | tail -n 1 | sed 's/^/nvcc: /'
# shellcheck disable=SC2086
gpu_run_tests "$WORK/logs" "$RESULTS" $TESTS
