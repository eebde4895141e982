#!/usr/bin/env bash
# run.sh: the whole product over the benchmark suite, on a GPU machine, the
# way a user runs it (`make bench`).
#
# Per program: build through ks-nvcc (main.cu compiled with -c through
# ks-nvcc, which records the build; linked by nvcc), run it (its KSBENCH
# lines and PASS), `ks capture` its naive kernels, `ks optimize` them
# (rules only, or with an LLM), rebuild through ks-nvcc (the verified
# variants substituted from the variant cache), run it again and check its
# PASS. Then the PyTorch eager time of the same jobs (torch_eager.py), and,
# with --ablate, `ks optimize --no-long-term-memory` and
# `--no-short-term-memory` over the same captures. The ceilings program is
# built with plain nvcc and run first (the floors). summarize.py writes
# DIR/<date>-<gpu>.json with the per-kernel results and the summary.
#
# Resumable: each step of a program leaves a marker, and a finished program
# its partial result DIR/partial-bench-<date>/<P>.json (the done-marker); a
# run cut short continues where it stopped, within the step (a killed `ks
# optimize` resumes its tasks from their trajectories). The work folder
# holds the captures and binaries (large); the partial folder only logs,
# trajectories, variants and results (small), and the markers of the steps
# whose results are all in it (<P>/steps/). Carried to another machine, the
# partial folder continues there: the first build and the capture run again
# only for an optimize or ablation not done yet, the rebuild only for a
# second run not done yet; a cut optimize's tasks resume from their
# trajectories. A program done without its ablations is taken up again by
# a run with --ablate for them alone.
#
# Usage: bench/tools/run.sh [options]
#   --out DIR        results folder (default: bench/results)
#   --work DIR       work folder: KS_DIRs, captures, binaries
#                    (default: ${TMPDIR:-/tmp}/ks-bench)
#   --only "P1 P2"   run only these programs
#   --date DATE      the run's date, YYYY-MM-DD (default: today, UTC)
#   --budget S       start no new step after S seconds, and cut a running
#                    `ks optimize` at S (it resumes on the next run);
#                    0 = no limit (default); exit status 3: run again
#   --rounds N       ks optimize --rounds (default: 15)
#   --task-budget M  ks optimize --budget, GPU-minutes per task (default: none)
#   --jobs N         ks optimize --jobs (default: 1)
#   --parallel N     programs at a time (default: 1): their builds and
#                    checks side by side, while one GPU lock for all
#                    (KS_GPU_LOCK) gives every timed run the GPU alone:
#                    the reviews' timing and counters, each program's own
#                    runs, its capture and its PyTorch times
#   --llm URL        ks optimize --llm URL (default: none, rules only)
#   --optimize-args "A B"  more options for every ks optimize (--no-metrics)
#   --ablate         also the two ablations on the same captures
#   --no-torch       skip the PyTorch eager times
#   --timeout S      time limit of each program run (default: 300)
#   --retry-failed   run again the programs whose result is not PASS, from
#                    their first step that did not succeed
#   --merge          only write the final JSON from the partial folder
#   --copy-to DIR    copy the partial folder to DIR (a device's $OUT) as
#                    partial-bench-<date>.tgz, after each program and at
#                    the end (also when stopped by SIGTERM or SIGINT)
#
# Exit status: 0 when every program ran through and passed twice, 1 when
# some did not, 2 on a usage error, 3 when the budget stopped the run.
set -u

tools=$(cd "$(dirname "$0")" && pwd)
bench=$(dirname "$tools")
root=$(dirname "$bench")
collect() { python3 "$tools/collect.py" "$@"; }
summarize() { python3 "$tools/summarize.py" "$@"; }

out=$bench/results
work=${TMPDIR:-/tmp}/ks-bench
only=
date=$(date -u +%F)
budget_s=0
rounds=15
task_budget=
jobs=1
parallel=1
llm=none
ablate=0
torch=1
timeout_s=300
merge_only=0
copy_to=
retry=0
opt_args=

usage() {
	sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'
	exit 2
}

cmdline="$0 $*"
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=${2:?}; shift ;;
	--work) work=${2:?}; shift ;;
	--only) only=${2?}; shift ;;
	--date) date=${2:?}; shift ;;
	--budget) budget_s=${2:?}; shift ;;
	--rounds) rounds=${2:?}; shift ;;
	--task-budget) task_budget=${2?}; shift ;;
	--jobs) jobs=${2:?}; shift ;;
	--parallel) parallel=${2:?}; shift ;;
	--llm) llm=${2:?}; shift ;;
	--ablate) ablate=1 ;;
	--optimize-args) opt_args=${2?}; shift ;;
	--no-torch) torch=0 ;;
	--timeout) timeout_s=${2:?}; shift ;;
	--merge) merge_only=1 ;;
	--retry-failed) retry=1 ;;
	--copy-to) copy_to=${2:?}; shift ;;
	-h | --help) usage ;;
	*) echo "run.sh: unknown option $1" >&2; usage ;;
	esac
	shift
done

mkdir -p "$out" "$work" || exit 2
out=$(cd "$out" && pwd)
work=$(cd "$work" && pwd)
partial=$out/partial-bench-$date
mkdir -p "$partial" || exit 2
all=$(make -s --no-print-directory -C "$bench" list) || exit 2
all=$(echo "$all" | tr ' ' '\n' | grep -vx ceilings | tr '\n' ' ')

merge() {
	summarize --merge "$partial" --programs "$all"
}
# The long-term memories of the run (knowledge/, and an ablation's own)
# travel in the partial folder: a run split over machines learns across
# its programs as one run on one machine does. Kept whole or not at all.
keep_knowledge() {
	local d n
	for d in "$work"/knowledge "$work"/knowledge-*; do
		[ -d "$d" ] || continue
		n=$(basename "$d")
		rm -rf "$partial/.$n.tmp" &&
			cp -a "$d" "$partial/.$n.tmp" &&
			rm -rf "$partial/$n" && mv "$partial/.$n.tmp" "$partial/$n" ||
			rm -rf "$partial/.$n.tmp"
	done
}
copy_out() {		# [quiet]: no message
	local t=$copy_to/.partial-bench-$date.tgz.$$
	keep_knowledge
	[ -n "$copy_to" ] || return 0
	# Whole or not at all: a copy cut by a kill leaves the last one.
	mkdir -p "$copy_to" && tar czf "$t" -C "$out" "partial-bench-$date" &&
		mv -f "$t" "$copy_to/partial-bench-$date.tgz" || { rm -f "$t"; return 1; }
	[ -n "${1:-}" ] ||
		echo "bench: partial folder copied to $copy_to/partial-bench-$date.tgz"
}
if [ "$merge_only" = 1 ]; then
	merge
	exit $?
fi

command -v nvcc >/dev/null 2>&1 || PATH=/usr/local/cuda/bin:$PATH
NV=$(command -v nvcc) || { echo "run.sh: no nvcc" >&2; exit 2; }
export KS_NVCC=$NV
export LD_LIBRARY_PATH=$(dirname "$(dirname "$NV")")/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export KS_CAPTURE_MAX_BYTES=${KS_CAPTURE_MAX_BYTES:-8G}
KS=$root/ks KSNVCC=$root/ks-nvcc
for p in "$KS" "$KSNVCC"; do
	[ -x "$p" ] || { echo "run.sh: $p not built (make all first)" >&2; exit 2; }
done
case $parallel in
'' | *[!0-9]* | 0) echo "run.sh: --parallel takes a number of programs" >&2; exit 2 ;;
esac
# One GPU lock over every program's KS_DIR: `ks gpu-lock` runs a program,
# its capture and its PyTorch times with the GPU to themselves, in turn
# with the reviews of every ks optimize of the run.
export KS_GPU_LOCK=${KS_GPU_LOCK:-$work/gpu}
gpu_alone() { "$KS" gpu-lock -- "$@"; }
[ -f "$partial/meta.json" ] || collect --meta --date "$date" -o "$partial/meta.json"
# How the run was asked for, for the results.
# A run can span machines and commits: each call is kept with its time and
# the source it ran: KS_BENCH_SOURCE where whoever sent a copy of the tree
# says it (a copy's .git, where one travels, can be older than its files),
# else git's commit.
source_id=${KS_BENCH_SOURCE:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null)}
python3 - "$partial/run.json" "$rounds" "$task_budget" "$jobs" "$llm" "$ablate" \
	"$("$KS" version 2>/dev/null)" "$cmdline" "$source_id" <<'EOF'
import json, os, sys, time
path, rounds, tb, jobs, llm, ablate, ver, cmd, src = sys.argv[1:]
old = {}
if os.path.exists(path):
    old = json.load(open(path))
old.update({"rounds": int(rounds), "task_budget_min": float(tb) if tb else None,
            "jobs": int(jobs), "llm": None if llm == "none" else llm,
            "ablate": ablate == "1", "ks_version": ver})
old.setdefault("commands", []).append(cmd)
old.setdefault("calls", []).append({"utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                    "source": src or None, "command": cmd})
json.dump(old, open(path, "w"), indent=2)
EOF

# A run continued on another machine: its long-term memories as they were
# (a work folder that has them is this machine's, at least as new).
for d in "$partial"/knowledge "$partial"/knowledge-*; do
	[ -d "$d" ] && [ ! -e "$work/$(basename "$d")" ] && cp -a "$d" "$work/"
done

start=$(date +%s)
stopped=0
# Killed (the time limit of a device call): what is done travels on.
trap 'copy_out quiet; exit 3' TERM INT
left() {		# seconds of budget left (a large number without one)
	[ "$budget_s" -gt 0 ] || { echo 1000000; return; }
	echo $((budget_s - ($(date +%s) - start)))
}
budget_spent() {
	[ "$(left)" -gt 0 ] && return 1
	stopped=1
	return 0
}
# A step's marker, in the program's work folder $w or its partial folder
# $r (program()'s): a step whose results are all in the partial folder is
# done on any machine that has it; one whose results are binaries, captures
# or counters, only on the machine that ran it.
marker() {
	case $1 in
	build0 | capture | stats0 | build1 | stats1) echo "$w/$1.ok" ;;
	*) echo "$r/steps/$1.ok" ;;
	esac
}
done_step() { [ -f "$(marker "$1")" ]; }
ablations="no-long-term-memory no-short-term-memory"
# Whether a step still to run needs the captures: the optimize, or, with
# --ablate, an ablation.
captures_needed() {
	local abl
	done_step optimize || return 0
	[ "$ablate" = 1 ] || return 1
	for abl in $ablations; do
		done_step "ablate-$abl" || return 0
	done
	return 1
}
# step NAME CMD...: run CMD unless its marker says it ran; the marker is
# written when CMD succeeds, and the step's name kept in $failed when it
# fails. Adds the step's seconds to the program's wall file.
step() {
	local name=$1 t0 rc
	shift
	done_step "$name" && return 0
	budget_spent && return 1
	t0=$(date +%s)
	"$@"
	rc=$?
	echo "$name $(($(date +%s) - t0)) $rc" >>"$r/wall"
	if [ $rc = 0 ]; then
		: >"$(marker "$name")"
	else
		failed=$name
	fi
	return $rc
}

# --- the ceilings, with plain nvcc ------------------------------------------
passed() {		# a partial result whose status is PASS
	python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])).get("status") != "PASS")' "$1"
}
if [ ! -f "$partial/ceilings.json" ] || { [ "$retry" = 1 ] && ! passed "$partial/ceilings.json"; }; then
	echo "bench: ceilings"
	make -s --no-print-directory -C "$bench/ceilings" clean >/dev/null 2>&1
	make --no-print-directory -C "$bench/ceilings" NVCC="$NV" \
		>"$partial/ceilings-build.log" 2>&1
	t0=$(date +%s)
	(cd "$bench/ceilings" && exec timeout -k 10 "$timeout_s" ./ceilings) \
		>"$partial/ceilings.log" 2>&1
	rc=$?
	collect --parse "$partial/ceilings.log" --program ceilings --rc $rc \
		--wall $(($(date +%s) - t0)) -o "$partial/ceilings.json"
fi

# --- one program -------------------------------------------------------------
libs_of() {		# the program's link libraries, from its Makefile
	sed -n 's/^LIBS *= *//p' "$bench/$1/Makefile"
}
build() {		# program, binary folder, log
	local p=$1 b=$2 log=$3
	mkdir -p "$b" && rm -f "$b/main.o" "$b/$p" &&
		(cd "$bench/$p" &&
		 "$KSNVCC" -O3 -arch=sm_90 -I../common -c main.cu -o "$b/main.o" &&
		 "$NV" -O3 -arch=sm_90 -o "$b/$p" "$b/main.o" $(libs_of "$p")) \
			>"$log" 2>&1
}
run_prog() {		# program, binary folder, log
	local p=$1 b=$2 log=$3 rc
	(cd "$bench/$p" && exec "$KS" gpu-lock -- timeout -k 10 "$timeout_s" "$b/$p") \
		>"$log" 2>&1
	rc=$?
	grep -qx "PASS $p" "$log" && [ $rc = 0 ]
}
# The regex of the program's naive kernels (their KSBENCH names, each also
# with _kernel after it; chains are no kernel), on the demangled name
# ("NAME(") or the mangled one ("_Z<len>NAME<parameter code>").
kernel_regex() {
	local names
	names=$(grep '^KSBENCH ' "$1" | grep '"role":"naive"' |
		sed 's/.*"kernel":"\([^"]*\)".*/\1/' | grep -vx chain | sort -u)
	[ -n "$names" ] || return 1
	names=$(echo $names | sed 's/\([^ ]*\)/\1|\1_kernel/g; s/ /|/g')
	echo "^(($names)\\(|_Z[0-9]+($names)[A-Za-z])"
}
capture() {		# program, KS_DIR, binary folder, run log, log
	local re
	re=$(kernel_regex "$4") || { echo "no naive kernel in $4" >"$5"; return 1; }
	echo "$re" >"$(dirname "$5")/kernels.re"
	(cd "$bench/$1" && KS_DIR=$2 exec "$KS" gpu-lock -- timeout -k 10 \
		$((timeout_s * 3)) "$KS" capture --kernel "$re" -- "$3/$1") >"$5" 2>&1
}
optimize() {		# KS_DIR, json, log, extra options...
	local ksd=$1 json=$2 log=$3 cap rc
	shift 3
	# Cut at the budget's end, with 10 s of grace for the task's own
	# trajectory record: the budget is a bound the caller plans with
	# (a device call's time limit).
	cap=$(left)
	[ "$cap" -gt 0 ] || { stopped=1; return 1; }
	KS_DIR=$ksd timeout -k 10 "$cap" "$KS" optimize --json --llm "$llm" \
		--rounds "$rounds" ${task_budget:+--budget "$task_budget"} \
		--jobs "$jobs" $opt_args "$@" >"$json.tmp" 2>"$log"
	rc=$?
	# 0: a variant cached, 1: none (both are a finished run).
	if [ $rc = 0 ] || [ $rc = 1 ]; then
		mv "$json.tmp" "$json"
		return 0
	fi
	echo "ks optimize exit status $rc" >>"$log"
	# Cut at the budget (124, or 137 after the grace period): the
	# next run resumes its tasks.
	{ [ $rc = 124 ] || [ $rc = 137 ]; } && stopped=1
	return 1
}
# After the rebuild: the counters, and which kernels were compiled in (the
# rewritten TUs name each variant's file in the cache by #line; its
# variant.json names the kernel).
after_build1() {	# KS_DIR, results folder
	"$KS" stats >"$2/stats-build1.txt" || return 1
	grep -ho '^#line [0-9]* "[^"]*/variant\.cu"' "$1"/tmp/ks-nvcc.*/*.cu 2>/dev/null |
		sed 's/^#line [0-9]* "\(.*\)\/variant\.cu"$/\1/' | sort -u |
		while read -r d; do
			python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kernel"])' \
				"$d/variant.json"
		done >"$2/substituted.txt"
}
# A KS_DIR over another one's captures and build records, for an ablation.
ablation_dir() {	# main KS_DIR, ablation KS_DIR, knowledge folder
	mkdir -p "$2" "$3" || return 1
	[ -e "$2/captures" ] || ln -s "$1/captures" "$2/captures"
	[ -e "$2/knowledge" ] || ln -s "$3" "$2/knowledge"
	rm -rf "$2/builds" && cp -a "$1/builds" "$2/builds"
}
keep_tasks() {		# KS_DIR, destination: trajectories and candidates
	[ -d "$1/tasks" ] || return 0
	mkdir -p "$2" && cp -a "$1/tasks/." "$2/"
}

program() {
	local p=$1 w=$work/$p r=$partial/$p ksd ok=1 abl t0 rc failed=
	ksd=$w/ks
	mkdir -p "$w" "$r/steps" "$work/knowledge" || return 1
	# One long-term memory for the whole run, as one user's KS_DIR would
	# hold it; each program its own captures, tasks and cache.
	mkdir -p "$ksd" && { [ -e "$ksd/knowledge" ] || ln -s "$work/knowledge" "$ksd/knowledge"; }
	echo "bench: $p"
	export KS_DIR=$ksd
	# The first build for the first run, or for a capture.
	if ! done_step run0 || captures_needed; then
		step build0 build "$p" "$w/b0" "$r/build0.log" || ok=0
	fi
	[ $ok = 1 ] && { step run0 run_prog "$p" "$w/b0" "$r/run0.log" || ok=0; }
	if [ $ok = 1 ] && captures_needed; then
		step capture capture "$p" "$ksd" "$w/b0" "$r/run0.log" "$r/capture.log" || ok=0
	fi
	if [ $ok = 1 ] && ! done_step optimize; then
		# Tasks cut on another machine resume from their trajectories
		# (a task whose captures differ starts afresh).
		[ -d "$ksd/tasks" ] || [ ! -d "$r/tasks" ] || cp -a "$r/tasks" "$ksd/tasks"
		step optimize optimize "$ksd" "$r/optimize.json" "$r/optimize.log" || ok=0
	fi
	if [ $ok = 1 ] && ! done_step run1; then
		# The variants, also when found on another machine.
		[ -d "$ksd/cache" ] || [ ! -d "$r/cache" ] || cp -a "$r/cache" "$ksd/cache"
		step stats0 sh -c '"$0" stats -z >/dev/null' "$KS" &&
		step build1 build "$p" "$w/b1" "$r/build1.log" &&
		step stats1 after_build1 "$ksd" "$r" &&
		step run1 run_prog "$p" "$w/b1" "$r/run1.log" || ok=0
	fi
	keep_tasks "$ksd" "$r/tasks"
	[ -d "$ksd/cache" ] && { rm -rf "$r/cache"; cp -a "$ksd/cache" "$r/cache"; }
	cp "$bench/$p/main.cu" "$r/main.cu"
	# A program that failed before its optimize is done too: its result
	# says which step failed. One cut by the budget is not.
	if [ "$stopped" = 1 ] && [ "$ok" = 0 ]; then
		return 1
	fi
	if [ "$torch" = 1 ] && ! done_step torch; then
		# Its times belong in the result: a spent budget leaves the
		# program for the next run.
		budget_spent && return 1
		t0=$(date +%s)
		gpu_alone python3 "$tools/torch_eager.py" "$p" >"$r/torch.log" 2>&1
		rc=$?
		echo "torch $(($(date +%s) - t0)) $rc" >>"$r/wall"
		: >"$(marker torch)"
	fi
	if [ "$ablate" = 1 ] && [ -d "$ksd/captures" ]; then
		for abl in $ablations; do
			done_step "ablate-$abl" && continue
			budget_spent && return 1
			ablation_dir "$ksd" "$w/ks-$abl" "$work/knowledge-$abl" || continue
			# --no-cache: an ablation measures the search and
			# feeds no build, so its best variant skips the final
			# sanitizer check and the cache; rules-only without the
			# long-term memory, the fixed skill order reads no
			# counters, so none are measured
			step "ablate-$abl" optimize "$w/ks-$abl" \
				"$r/ablate-$abl.json" "$r/ablate-$abl.log" "--$abl" --no-cache \
				$([ "$abl" = no-long-term-memory ] && [ "$llm" = none ] && echo --no-metrics)
			keep_tasks "$w/ks-$abl" "$r/ablate-$abl/tasks"
			[ "$stopped" = 1 ] && return 1
		done
	fi
	rm -f "$r/failed-step"
	[ "$ok" = 1 ] || echo "${failed:-unknown}" >"$r/failed-step"
	summarize --program "$p" --dir "$r" -o "$partial/$p.json"
}

# Whether a program done before has ablations to run: its optimize done
# and, with --ablate, an ablation not (its markers are in the partial
# folder).
ablations_left() {
	local r=$partial/$1
	done_step optimize && captures_needed
}

wanted=${only:-$all}
status=0
for p in $wanted; do
	case " $all " in
	*" $p "*) ;;
	*) echo "run.sh: no program $p" >&2; exit 2 ;;
	esac
	if [ -f "$partial/$p.json" ]; then
		{ [ "$retry" = 1 ] && ! passed "$partial/$p.json"; } || ablations_left "$p" ||
			continue
		# Steps that succeeded keep their markers; the failed one runs again.
		rm -f "$partial/$p.json" "$partial/$p/failed-step"
	fi
	if [ "$parallel" -gt 1 ]; then
		# A program's `stopped` stays in its subshell: the budget is
		# the clock's, asked again below.
		while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do
			wait -n
			copy_out quiet
		done
		budget_spent && break
		program "$p" >"$partial/$p.out" 2>&1 &
		continue
	fi
	program "$p" || true
	copy_out quiet
	if [ "$stopped" = 1 ]; then
		break
	fi
done
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do
	wait -n
	copy_out quiet
done
if [ "$parallel" -gt 1 ]; then
	for p in $wanted; do
		[ -f "$partial/$p.out" ] && cat "$partial/$p.out"
	done
	for p in $wanted; do
		[ -f "$partial/$p.json" ] || { [ "$budget_s" -gt 0 ] && stopped=1; }
	done
fi
[ "$stopped" = 1 ] && echo "bench: budget of ${budget_s}s spent; run again to continue"

final=$(merge) || status=1
[ -n "$final" ] && echo "bench: wrote $final" && summarize --table "$final"
copy_out
[ "$stopped" = 1 ] && exit 3
[ -n "$final" ] && python3 - "$final" "$wanted" <<'EOF' || status=1
import json, sys
r = json.load(open(sys.argv[1]))
bad = [p for p in sys.argv[2].split()
       if r["programs"].get(p, {}).get("status") != "PASS"]
print("bench: %d programs, %d not passing both runs%s" % (
    len(sys.argv[2].split()), len(bad), (": " + " ".join(bad)) if bad else ""))
sys.exit(1 if bad else 0)
EOF
exit $status
