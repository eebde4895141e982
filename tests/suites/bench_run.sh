# bench_run: bench/tools/run.sh (`make bench`) end to end without a GPU:
# a bench tree of two programs and the ceilings, a fake nvcc (programs that
# print their KSBENCH lines, faster once a variant is compiled in), a fake
# ks-nvcc (substitutes what the variant cache holds) and a fake ks
# (gpu-lock, capture, optimize, stats), tests/data/bench_run/. What runs for
# real is run.sh's sequencing, markers, budget, parallel programs and
# ablations, and collect.py / summarize.py over what it leaves.

suite_probe() {
	command -v python3 >/dev/null 2>&1 || echo "python3 is not available"
}

bench_tree() {
	local p
	mkdir -p root/bench root/bin
	cp -R "$ROOT/bench/tools" root/bench/tools
	cp "$ROOT/tests/data/bench_run/ks" "$ROOT/tests/data/bench_run/ks-nvcc" root/
	cp "$ROOT/tests/data/bench_run/nvcc" root/bin/nvcc
	printf 'list:\n\t@echo ceilings alpha beta\n' >root/bench/Makefile
	for p in ceilings alpha beta; do
		mkdir -p root/bench/$p
		echo "__global__ void ${p}_kernel(float *x) {}" >root/bench/$p/main.cu
		printf 'NVCC ?= nvcc\nARCH ?= sm_90\nLIBS =\nall: %s\n%s: main.cu\n\t$(NVCC) -O3 -arch=$(ARCH) -I../common -o $@ main.cu $(LIBS)\nclean:\n\trm -f %s\n' \
			"$p" "$p" "$p" >root/bench/$p/Makefile
	done
	PATH=$PWD/root/bin:$PATH
	FAKE_KS_LOG=$PWD/ks.log
	export PATH FAKE_KS_LOG
}

run_bench() {
	set +e
	bash root/bench/tools/run.sh --out "$PWD/res" --work "$PWD/work" \
		--date 2026-01-02 --no-torch "$@" >out.txt 2>&1
	status=$?
	set -e
}

results() {		# a python expression over the results JSON r
	python3 - "$PWD/res/2026-01-02-unknown-gpu.json" "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
k = {x["program"]: x for x in r["kernels"]}
print(eval(sys.argv[2]))
PY
}

test_bench_run_whole_suite_with_ablations() {
	bench_tree
	# the tree's copy carries an older .git: the sender's word wins
	git -C root init -q
	git -C root -c user.email=t@example.com -c user.name=t commit -q --allow-empty -m old
	KS_BENCH_SOURCE=ab12cd3 run_bench --ablate
	[ "$status" = 0 ] || { cat out.txt; fail "run.sh exit status $status"; }
	expect_file res/2026-01-02-unknown-gpu.json
	expect_eq "PASS PASS" "$(results 'r["programs"]["alpha"]["status"] + " " + r["programs"]["beta"]["status"]')"
	# both kernels verified, compiled in, and the program faster for it
	expect_eq "2 2" "$(results 'str(len(r["kernels"])) + " " + str(sum(x["in_program"] for x in r["kernels"]))')"
	expect_eq "10 2" "$(results '"%g %g" % (k["alpha"]["original_ms"], k["alpha"]["after_ms"])')"
	expect_eq "1.0" "$(results 'r["summary"]["success_rate"]')"
	# the GPU time of a kernel is its ks optimize row's (the final check in)
	expect_eq "4.5" "$(results 'k["alpha"]["gpu_s"]')"
	# and where it went, summed over the task's records
	expect_eq "1.0 1.5 0.8 4.0" "$(results '"%.1f %.1f %.1f %.1f" % tuple(k["alpha"]["gpu_phases_s"][n] for n in ("setup", "random", "base-metrics", "compile"))')"
	# both ablations, on the same captures, each in its own KS_DIR
	expect_eq "2 2" "$(results 'str(len(r["ablations"]["no-long-term-memory"]["kernels"])) + " " + str(len(r["ablations"]["no-short-term-memory"]["kernels"]))')"
	expect_contains "$(grep '^optimize' ks.log)" "--no-long-term-memory --no-cache --no-metrics [KS_DIR=$PWD/work/alpha/ks-no-long-term-memory]"
	expect_contains "$(grep '^optimize' ks.log)" "--no-short-term-memory --no-cache [KS_DIR=$PWD/work/beta/ks-no-short-term-memory]"
	# the ablations' variants are reviewed, not cached, and count as found
	expect_eq 0 "$(grep '^optimize' ks.log | grep -v -e '--no-long' -e '--no-short' | grep -c -e '--no-cache' || true)"
	[ -e work/alpha/ks-no-long-term-memory/cache ] && fail "an ablation wrote a variant cache"
	expect_eq "2 2" "$(results 'str(r["ablations"]["no-long-term-memory"]["summary"]["verified"]) + " " + str(r["summary"]["verified"])')"
	[ -L work/alpha/ks-no-long-term-memory/captures ] || fail "the ablation does not share the captures"
	# the program runs and the capture hold the GPU alone
	expect_eq 2 "$(grep -c "^gpu-lock -- timeout -k 10 300 $PWD/work/alpha/" ks.log)"
	expect_contains "$(cat out.txt)" "bench: 2 programs, 0 not passing both runs"
	# the run's record names the command with its options
	expect_contains "$(cat res/partial-bench-2026-01-02/run.json)" \
		"run.sh --out $PWD/res --work $PWD/work --date 2026-01-02 --no-torch --ablate"
	# and each call with its time and the source it ran (the tree's
	# copy is told it, whatever its .git says)
	expect_eq "1 T ab12cd3" "$(results 'str(len(r["calls"])) + " " + r["calls"][0]["utc"][10] + " " + r["calls"][0]["source"]')"
	# a second run does nothing again
	: >ks.log
	run_bench --ablate
	expect_eq 0 "$status"
	expect_eq "" "$(grep -v "^version" ks.log)"
}

# A program done without its ablations has its <P>.json taken away while
# a later run does them; a merge in between still counts its kernels,
# and says its ablations are pending.
test_bench_run_merge_keeps_a_program_whose_ablations_run() {
	bench_tree
	run_bench
	[ "$status" = 0 ] || { cat out.txt; fail "run.sh exit status $status"; }
	# what run.sh does before the ablations of a program done without them
	rm res/partial-bench-2026-01-02/alpha.json
	python3 root/bench/tools/summarize.py --merge res/partial-bench-2026-01-02 \
		--programs "alpha beta" -o res/2026-01-02-unknown-gpu.json >/dev/null
	expect_eq "PASS True None" "$(results 'r["programs"]["alpha"]["status"] + " " + str(r["programs"]["alpha"].get("ablations_pending")) + " " + str(r["programs"]["beta"].get("ablations_pending"))')"
	expect_eq "10 2" "$(results '"%g %g" % (k["alpha"]["original_ms"], k["alpha"]["after_ms"])')"
	expect_contains "$(python3 root/bench/tools/summarize.py --table res/2026-01-02-unknown-gpu.json)" \
		"ablations pending (not in the ablation lines): alpha"
	# a program not past its second run stays out
	rm res/partial-bench-2026-01-02/alpha/steps/run1.ok
	python3 root/bench/tools/summarize.py --merge res/partial-bench-2026-01-02 \
		--programs "alpha beta" -o res/2026-01-02-unknown-gpu.json >/dev/null
	expect_eq "NOT_RUN 1" "$(results 'r["programs"]["alpha"]["status"] + " " + str(len(r["kernels"]))')"
}

# bench/tools/gpu-session.sh: the build, then a slice of the run, packed
# into three files (a remote runner hands back few).
test_gpu_session_packs_a_bench_slice() {
	bench_tree
	printf 'all:\n\t@echo built\n' >root/Makefile
	mkdir -p root/integration/gpu root/tests/data/transforms
	# the suite's own logs and trajectories come back, its captures not
	cat >root/integration/gpu/run.sh <<'EOF'
w=$KS_GPU_WORK
mkdir -p "$w/logs" "$w/ksdir-x/tasks/_Z1kv" "$w/ksdir-x/captures/_Z1kv/1"
echo "round 1" >"$w/logs/x-optimize.txt"
echo '{"round": 0}' >"$w/ksdir-x/tasks/_Z1kv/trajectory.jsonl"
echo data >"$w/ksdir-x/captures/_Z1kv/1/trajectory.jsonl"
echo "14 passed, 0 failed"
EOF
	cp "$ROOT/bench/tools/gpu-session.sh" root/bench/tools/
	KS_GPU_WORK=$PWD/sw bash root/bench/tools/gpu-session.sh --out "$PWD/o" --limit 120 --source ab12cd3 \
		--suite --bench "alpha beta" --date 2026-01-02 \
		--bench-args "--out $PWD/res --work $PWD/work --no-torch" >session.out 2>&1
	expect_eq "logs.tgz partial-bench-2026-01-02.tgz session.txt" "$(cd o && echo *)"
	expect_contains "$(cat o/session.txt)" "suite rc=0: 14 passed, 0 failed"
	expect_contains "$(cat o/session.txt)" "bench rc=0"
	expect_contains "$(cat o/session.txt)" "| alpha | alpha | 10 | 2 | 5.00x | yes |"
	expect_contains "$(tar tzf o/logs.tgz)" "./bench.log"
	tar xzf o/logs.tgz -C o ./suite-work.tgz
	expect_eq "./ksdir-x/tasks/_Z1kv/trajectory.jsonl ./logs/x-optimize.txt" \
		"$(tar tzf o/suite-work.tgz | sort | tr '\n' ' ' | sed 's/ $//')"
	# the run's record names the source and a budget within the limit,
	# 40 s short of what is left of it (for what a cut step leaves to do)
	expect_contains "$(cat res/partial-bench-2026-01-02/run.json)" '"source": "ab12cd3"'
	budget=$(sed -n 's/.*--budget \([0-9]*\).*/\1/p' res/partial-bench-2026-01-02/run.json | head -1)
	[ "$budget" -gt 20 ] && [ "$budget" -le 60 ] || fail "budget $budget, not within the limit"
}

# --gemm runs the GEMM candidates' check and --extra a script written for
# the session, each given its log folder and seconds, both packed.
test_gpu_session_runs_the_gemm_check_and_an_extra_script() {
	bench_tree
	printf 'all:\n\t@echo built\n' >root/Makefile
	mkdir -p root/tests/data/transforms cands
	printf 'mkdir -p "$1"; echo "odd mem_scaled rc=0 pass=3 fail=0" | tee "$1/odd.txt"; echo "cands $2 s $3"\n' \
		>root/tests/data/transforms/gpu-gemm.sh
	printf 'echo "poly $1 $2" >"$1/poly.txt"; echo "gemm 4.20x"\n' >extra.sh
	cp "$ROOT/bench/tools/gpu-session.sh" root/bench/tools/
	bash root/bench/tools/gpu-session.sh --out "$PWD/o" --limit 120 \
		--gemm "$PWD/cands" --gemm-s 60 --extra "$PWD/extra.sh" --extra-s 30 \
		>session.out 2>&1
	expect_contains "$(cat o/session.txt)" "gemm rc=0"
	expect_contains "$(cat o/session.txt)" "odd mem_scaled rc=0 pass=3 fail=0"
	expect_contains "$(cat o/session.txt)" "cands $PWD/cands s 45"
	expect_contains "$(cat o/session.txt)" "extra $PWD/extra.sh rc=0"
	expect_contains "$(cat o/session.txt)" "gemm 4.20x"
	expect_contains "$(tar tzf o/logs.tgz)" "./gemm/odd.txt"
	expect_contains "$(tar tzf o/logs.tgz)" "./extra/poly.txt"
}

test_bench_run_budget_stops_and_resumes() {
	bench_tree
	# the budget outlasts the ceilings' steps on a loaded machine, the
	# first build outlasts the budget
	FAKE_NVCC_SLOW=6 run_bench --budget 4
	expect_eq 3 "$status"
	expect_contains "$(cat out.txt)" "budget of 4s spent; run again to continue"
	expect_file work/alpha/build0.ok
	expect_no_file res/partial-bench-2026-01-02/alpha/steps/run0.ok
	expect_no_file res/partial-bench-2026-01-02/alpha.json
	run_bench
	[ "$status" = 0 ] || { cat out.txt; fail "run.sh exit status $status"; }
	expect_eq "PASS PASS" "$(results 'r["programs"]["alpha"]["status"] + " " + r["programs"]["beta"]["status"]')"
	# the first build was not done again: build0 and build1, once each
	expect_eq 2 "$(wc -l <work/alpha/ks/builds/log)"
}

test_bench_run_continues_on_another_machine() {
	bench_tree
	# the optimize of alpha cut (as at the budget) after its seed
	FAKE_OPTIMIZE_CUT=$PWD/cut-once run_bench --only alpha --copy-to "$PWD/dev"
	expect_eq 3 "$status"
	expect_file res/partial-bench-2026-01-02/alpha/steps/run0.ok
	expect_no_file res/partial-bench-2026-01-02/alpha/steps/optimize.ok
	expect_file dev/partial-bench-2026-01-02.tgz
	# another machine: only the partial folder travels, as its copy
	rm -rf work res && mkdir res && tar xzf dev/partial-bench-2026-01-02.tgz -C res
	: >ks.log
	run_bench --only alpha --copy-to "$PWD/dev"
	[ "$status" = 0 ] || { cat out.txt; fail "run.sh exit status $status"; }
	# built and captured again for the optimize, which resumed its task;
	# the first run not again
	expect_eq 1 "$(grep -c '^capture' ks.log)"
	expect_eq 1 "$(grep -c '^resumed _Z12alpha_kernelPf' ks.log)"
	expect_eq 0 "$(grep -c "^gpu-lock -- timeout -k 10 300 $PWD/work/alpha/b0/" ks.log)"
	expect_eq "PASS" "$(results 'r["programs"]["alpha"]["status"]')"
	# the long-term memory learned there travels with the partial folder
	expect_eq 1 "$(wc -l <res/partial-bench-2026-01-02/knowledge/outcomes.jsonl)"
	# done without ablations; then, on a third machine, the ablations alone
	rm -rf work res && mkdir res && tar xzf dev/partial-bench-2026-01-02.tgz -C res
	: >ks.log
	run_bench --only alpha --ablate
	[ "$status" = 0 ] || { cat out.txt; fail "run.sh exit status $status"; }
	expect_eq 1 "$(grep -c '^capture' ks.log)"
	expect_eq 2 "$(grep -c '^optimize' ks.log)"
	expect_eq 2 "$(grep '^optimize' ks.log | grep -c -e '--no-cache')"
	expect_eq "" "$(grep "/b1/" ks.log)"
	expect_eq "PASS 1 1" "$(results 'r["programs"]["alpha"]["status"] + " " + str(len(r["kernels"])) + " " + str(len(r["ablations"]["no-short-term-memory"]["kernels"]))')"
	# the run's memory came back to this machine (its copy kept the line
	# learned before), and the ablation without the short-term memory
	# learned into its own
	expect_eq 1 "$(wc -l <work/knowledge/outcomes.jsonl)"
	expect_eq 1 "$(wc -l <res/partial-bench-2026-01-02/knowledge-no-short-term-memory/outcomes.jsonl)"
	# and nothing more to do
	: >ks.log
	run_bench --only alpha --ablate
	expect_eq 0 "$status"
	expect_eq "" "$(grep -v "^version" ks.log)"
}

test_bench_run_parallel_programs() {
	bench_tree
	run_bench --parallel 2 --ablate
	[ "$status" = 0 ] || { cat out.txt; fail "run.sh exit status $status"; }
	expect_contains "$(cat out.txt)" "bench: alpha"
	expect_contains "$(cat out.txt)" "bench: beta"
	expect_eq "2 2" "$(results 'str(len(r["kernels"])) + " " + str(len(r["ablations"]["no-short-term-memory"]["kernels"]))')"
	expect_eq 6 "$(grep -c '^optimize' ks.log)"
}

test_bench_run_failed_step_then_retry() {
	bench_tree
	FAKE_OPTIMIZE_FAILS=$PWD/failed-once run_bench
	expect_eq 1 "$status"
	expect_eq "FAIL" "$(results 'r["programs"]["alpha"]["status"]')"
	expect_eq "step optimize failed" "$(results 'r["programs"]["alpha"]["reason"]')"
	expect_eq "PASS" "$(results 'r["programs"]["beta"]["status"]')"
	: >ks.log
	run_bench --retry-failed
	[ "$status" = 0 ] || { cat out.txt; fail "run.sh exit status $status"; }
	expect_eq "PASS" "$(results 'r["programs"]["alpha"]["status"]')"
	# from the failed step on: no new capture, beta left alone
	expect_eq "" "$(grep '^capture' ks.log)"
	expect_eq "" "$(grep 'work/beta' ks.log)"
}

test_bench_run_a_wrong_variant_shows() {
	bench_tree
	FAKE_PROGRAM_FAILS=1 run_bench --only alpha
	expect_eq 1 "$status"
	expect_eq "FAIL True" "$(results 'r["programs"]["alpha"]["status"] + " " + str(k["alpha"]["wrong"])')"
}

test_make_bench_passes_its_options() {
	out=$(make -n -s -C "$ROOT" bench PROGS="alpha beta" BUDGET=500 ABLATE=1 \
		JOBS=4 ROUNDS=15 BENCH_ARGS="--parallel 2" 2>&1 |
		sed -e :a -e '/\\$/N; s/\\\n//; ta' | tr -s ' \t' '  ' | grep 'run.sh')
	expect_contains "$out" "--only \"alpha beta\" --budget 500"
	expect_contains "$out" "--rounds 15"
	expect_contains "$out" "--jobs 4 --ablate"
	expect_contains "$out" "--parallel 2"
}
