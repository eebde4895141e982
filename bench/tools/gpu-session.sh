#!/usr/bin/env bash
# gpu-session.sh: one time-bounded session on a GPU machine that was handed
# a copy of the tree: build, then any of the GPU suite, the stencil
# candidates' check, and a slice of the bench run, each started only while
# time is left, and everything it made packed into three files of OUT (a
# remote runner that hands back few files loses nothing):
#   OUT/session.txt               the steps with their times, and the tables
#   OUT/logs.tgz                  build, suite and stencil logs (what the
#                                 suite's tests wrote: suite-work.tgz)
#   OUT/partial-bench-<date>.tgz  the bench run's partial folder (run.sh)
#
#   bench/tools/gpu-session.sh --out OUT [--limit S] [--tail S]
#       [--deps DIR] [--llvm TARXZ] [--source REV]
#       [--suite] [--stencil CANDS [--stencil-progs "P..."] [--stencil-s S]]
#       [--gemm CANDS [--gemm-s S]] [--extra SCRIPT [--extra-s S]]
#       [--bench "P..." [--parallel N] [--task-budget M] [--date D] [--ablate]
#        [--bench-args "A B"]]
#
# --limit: seconds for the whole session (default 570); --tail: seconds kept
# at the end for packing (default 20). --deps: source DIR/env.sh (headers
# and libraries staged for a machine without them: cJSON, xxHash, libcurl,
# libyaml, clang-c; the build needs them all). --llvm: a libclang 19
# packed by bench/tools/stage-libclang.sh, unpacked to /opt/llvm and used.
# --source: the commit the tree was copied from (for the bench's run.json).
# The suite runs first (integration/gpu/run.sh, in $KS_GPU_WORK, default
# /tmp/gpu-session-suite), then the stencil
# candidates (tests/data/transforms/gpu-stencil.sh; KS_GST_NCU in the
# environment reaches it), then the GEMM and GEMV candidates
# (tests/data/transforms/gpu-gemm.sh, CANDS from gemm-cands.sh), then
# `bash SCRIPT DIR S` (a check written for the session: DIR its log
# folder, packed with the others, S its seconds), then the bench
# (bench/tools/run.sh with --budget the time left, and --bench-args'
# options, such as --out and --work). Exit status 0.
set -u
t0=$(date +%s)
out='' limit=570 tail=20 deps='' llvm='' source='' suite=0 cands='' sprogs='' ss=''
bench='' parallel=4 tbudget=3 date=$(date -u +%F) ablate='' bargs=''
gcands='' gs='' extra='' xs=''
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=${2:?}; shift ;;
	--limit) limit=${2:?}; shift ;;
	--tail) tail=${2:?}; shift ;;
	--deps) deps=${2:?}; shift ;;
	--llvm) llvm=${2:?}; shift ;;
	--source) source=${2:?}; shift ;;
	--suite) suite=1 ;;
	--stencil) cands=${2:?}; shift ;;
	--stencil-progs) sprogs=${2:?}; shift ;;
	--stencil-s) ss=${2:?}; shift ;;
	--gemm) gcands=${2:?}; shift ;;
	--gemm-s) gs=${2:?}; shift ;;
	--extra) extra=${2:?}; shift ;;
	--extra-s) xs=${2:?}; shift ;;
	--bench) bench=${2:?}; shift ;;
	--parallel) parallel=${2:?}; shift ;;
	--task-budget) tbudget=${2:?}; shift ;;
	--date) date=${2:?}; shift ;;
	--ablate) ablate=--ablate ;;
	--bench-args) bargs=${2?}; shift ;;
	*) echo "gpu-session.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$out" ] || { echo "gpu-session.sh: --out DIR is needed" >&2; exit 2; }
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
mkdir -p "$out"
out=$(cd "$out" && pwd)
logs=$(mktemp -d)
left() { echo $((limit - tail - ($(date +%s) - t0))); }
say() { echo "$(date -u +%T) +$(($(date +%s) - t0))s $*" >>"$out/session.txt"; }
# shellcheck disable=SC2317 # called by the EXIT trap
pack() {
	tar czf "$out/logs.tgz" -C "$logs" . 2>/dev/null
	say "end"
	cat "$out/session.txt"
}
trap pack EXIT

# shellcheck disable=SC1091
[ -n "$deps" ] && source "$deps/env.sh"
if [ -n "$llvm" ]; then
	mkdir -p /opt/llvm && tar xJf "$llvm" -C /opt/llvm &&
		export KS_LIBCLANG=/opt/llvm/lib/libclang-19.so.19 \
			LD_LIBRARY_PATH=/opt/llvm/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
[ -n "$source" ] && export KS_BENCH_SOURCE=$source
say "source ${source:-?}; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
if ! make -j"$(nproc)" all >"$logs/build.log" 2>&1; then
	say "build FAILED: $(tail -n 3 "$logs/build.log" | tr '\n' ' ')"
	exit 0
fi
say "built"
if [ "$suite" = 1 ]; then
	sw=${KS_GPU_WORK:-/tmp/gpu-session-suite}
	KS_GPU_WORK=$sw timeout "$(left)" bash integration/gpu/run.sh \
		>"$logs/suite.log" 2>&1
	say "suite rc=$?: $(tail -n 1 "$logs/suite.log")"
	grep -E '^(PASS|FAIL|SKIP) ' "$logs/suite.log" >>"$out/session.txt"
	# What the tests wrote beside suite.log (their steps' logs, the
	# optimize tasks' trajectories), so that a failure can be read where
	# the session is read; no captures, nothing over 1 MB.
	(cd "$sw" 2>/dev/null &&
		find . -type f -size -1024k \( -path './logs/*' -o -name trajectory.jsonl \) \
			-not -path '*/captures/*' -print0 |
		tar czf "$logs/suite-work.tgz" --null -T -) 2>/dev/null
fi
if [ -n "$cands" ]; then
	s=${ss:-$(left)}
	[ "$s" -gt "$(left)" ] && s=$(left)
	KS_GST_PROGS=${sprogs:-} timeout "$s" bash tests/data/transforms/gpu-stencil.sh \
		"$logs/stencil" "$cands" $((s - 15)) >"$logs/stencil.log" 2>&1
	say "stencil rc=$?"
	cat "$logs/stencil/summary.txt" >>"$out/session.txt" 2>/dev/null
fi
if [ -n "$gcands" ]; then
	s=${gs:-$(left)}
	[ "$s" -gt "$(left)" ] && s=$(left)
	timeout "$s" bash tests/data/transforms/gpu-gemm.sh "$logs/gemm" "$gcands" \
		$((s - 15)) >"$logs/gemm.log" 2>&1
	say "gemm rc=$?"
	tail -n 40 "$logs/gemm.log" >>"$out/session.txt"
fi
if [ -n "$extra" ]; then
	s=${xs:-$(left)}
	[ "$s" -gt "$(left)" ] && s=$(left)
	mkdir -p "$logs/extra"
	timeout "$s" bash "$extra" "$logs/extra" "$s" >"$logs/extra.log" 2>&1
	say "extra $extra rc=$?"
	tail -n 40 "$logs/extra.log" >>"$out/session.txt"
fi
if [ -n "$bench" ] && [ "$(left)" -gt 90 ]; then
	# The run's budget keeps 40 s for what a cut leaves to do (a cut
	# step's grace, the program runs and copies after it, the merge); a
	# run still going at the end is stopped by SIGTERM, which copies its
	# partial folder out before it exits.
	# shellcheck disable=SC2086
	timeout -k 5 "$(left)" bash bench/tools/run.sh --only "$bench" \
		--parallel "$parallel" --task-budget "$tbudget" \
		--budget $(($(left) - 40)) --date "$date" \
		--copy-to "$out" $ablate $bargs >"$logs/bench.log" 2>&1
	say "bench rc=$?"
	grep -E '^(\||kernels|below|ablation|bench: [0-9])' "$logs/bench.log" >>"$out/session.txt"
fi
exit 0
