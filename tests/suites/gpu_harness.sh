# gpu_harness: the GPU suite's runner (integration/gpu/harness.sh) has the
# semantics of tests/run, checked here without a GPU: a failed command in
# the middle of a test fails it, a failed command in a pipeline too, a
# skip is not a pass, and the suite without a GPU says why and passes
# nothing.

# A test file for the harness: $1 = the tests to run.
harness_script() {
	cat >tests.sh <<EOF
source "$ROOT/integration/gpu/harness.sh"
t_ok() { echo "DETAIL: fine"; true; }
t_middle() { false; echo "DETAIL: not reached"; true; }
t_pipeline() { false | cat; echo "DETAIL: not reached"; }
t_compare() { [ "\$(echo 1)" = 2 ]; echo "DETAIL: not reached"; }
t_skip() { gpu_skip "no such thing here"; }
gpu_run_tests "$TEST_DIR/logs" "$TEST_DIR/results.txt" $1
EOF
}

test_every_check_decides() {
	harness_script "t_ok t_middle t_pipeline t_compare t_skip"
	set +e
	bash tests.sh >out.txt 2>&1
	status=$?
	set -e
	expect_eq 1 "$status" "status"
	expect_eq "1 passed, 3 failed" "$(tail -n 1 out.txt)"
	expect_contains "$(cat out.txt)" "PASS t_ok"
	expect_contains "$(cat out.txt)" "FAIL t_middle"
	expect_contains "$(cat out.txt)" "FAIL t_pipeline"
	expect_contains "$(cat out.txt)" "FAIL t_compare"
	expect_contains "$(cat out.txt)" "SKIP t_skip"
	expect_contains "$(cat out.txt)" "no such thing here"
	expect_not_contains "$(cat out.txt)" "not reached"
}

test_all_passing_is_status_0() {
	harness_script "t_ok t_skip"
	bash tests.sh >out.txt 2>&1
	expect_eq "1 passed, 0 failed" "$(tail -n 1 out.txt)"
}

test_without_a_gpu_the_suite_says_why() {
	# An nvidia-smi that lists no GPU, first on PATH.
	mkdir bin
	printf '#!/bin/sh\nexit 9\n' >bin/nvidia-smi
	chmod +x bin/nvidia-smi
	PATH=$TEST_DIR/bin:$PATH KS_GPU_WORK=$TEST_DIR/work \
		bash "$ROOT/integration/gpu/run.sh" >out.txt 2>&1
	expect_contains "$(cat out.txt)" "gpu-test: skipped: no GPU"
	expect_eq "0 passed, 0 failed" "$(tail -n 1 out.txt)"
}
