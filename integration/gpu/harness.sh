# integration/gpu/harness.sh: the GPU suite's runner, with the semantics of
# tests/run. Sourced by integration/gpu/run.sh (and by the CPU suite
# tests/suites/gpu_harness.sh, which checks these semantics).
#
# Each test is a function run in a subshell with `set -e -o pipefail`, as a
# statement of its own (never inside a condition, where bash ignores
# `set -e`): every command of a test decides it, a failed command in a
# pipeline too. A test that cannot run here says `gpu_skip REASON`. The
# output is one line per test (PASS, FAIL or SKIP, its time, its last
# "DETAIL: " line), the failed tests' log tails, then "N passed, N failed".

# skip the running test (from inside a test function).
gpu_skip() {
	echo "SKIP: $*"
	exit 77
}

# gpu_probe_skip REASON: the whole suite cannot run here.
gpu_probe_skip() {
	echo "gpu-test: skipped: $*"
	echo "0 passed, 0 failed"
	exit 0
}

# gpu_run_tests LOGDIR RESULTS TEST...: run the tests; returns 0 only when
# none failed.
gpu_run_tests() {
	local logs=$1 results=$2 t start status verdict d
	local passed=0 failed=0 skipped=0 failures=()
	shift 2
	mkdir -p "$logs"
	for t in "$@"; do
		start=$(date +%s)
		(
			set -e -o pipefail
			"$t"
		) >"$logs/$t.log" 2>&1
		status=$?
		if [ $status -eq 0 ]; then
			verdict=PASS
			passed=$((passed + 1))
		elif [ $status -eq 77 ]; then
			verdict=SKIP
			skipped=$((skipped + 1))
		else
			verdict=FAIL
			failed=$((failed + 1))
			failures+=("$t")
			tail -n 25 "$logs/$t.log" | sed "s/^/    $t: /"
		fi
		d=$(grep -e '^DETAIL: ' -e '^SKIP: ' "$logs/$t.log" | tail -n 1 | cut -c 7- | sed 's/^: //')
		printf '%s %s (%ss) %s\n' "$verdict" "$t" "$(($(date +%s) - start))" "$d" | tee -a "$results"
	done
	echo
	for t in "${failures[@]+"${failures[@]}"}"; do echo "failed: $t"; done
	[ $skipped -eq 0 ] || echo "skipped: $skipped tests (reasons above)"
	echo "$passed passed, $failed failed"
	[ $failed -eq 0 ]
}
