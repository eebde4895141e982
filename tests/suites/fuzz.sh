# fuzz: a short run (about a second) of each libFuzzer harness of
# tests/fuzz, on its seeds; `make fuzz` runs them for longer. Skipped, with
# the reason, where clang has no libFuzzer.

suite_probe() {
	MAKEFLAGS= make -s --no-print-directory -C "$ROOT" fuzz-probe
}

# Build the harnesses once (later calls find them up to date).
fuzz_run() { # name [seconds]
	local b=${KS_BUILD:-build}
	MAKEFLAGS= make -s --no-print-directory -C "$ROOT" -j2 BUILD="$b" \
		fuzz-build >build.log 2>&1 || { cat build.log; fail "make fuzz-build"; }
	case $b in /*) ;; *) b=$ROOT/$b ;; esac
	mkdir -p corpus work
	set +e
	KS_FUZZ_KSNVCC=$b/ks-nvcc KS_FUZZ_RECORDER=$b/fuzz/argv-recorder \
		KS_FUZZ_WORK=$TEST_DIR/work \
		"$b/fuzz/fuzz_$1" -max_total_time="${2:-1}" -max_len=4096 -timeout=10 \
		-artifact_prefix="$TEST_DIR/crash-" corpus "$ROOT/tests/fuzz/seeds/$1" \
		>fuzz.log 2>&1
	status=$?
	set -e
	[ $status -eq 0 ] || {
		grep -E 'ERROR|invariant failed|SUMMARY|#[0-9]+ in ' fuzz.log | head -n 20
		fail "fuzz_$1 found a crash (status $status)"
	}
	# It ran: the seeds were read and units executed.
	grep -q 'INITED' fuzz.log || fail "fuzz_$1 did not start"
}

test_fuzz_argv() { fuzz_run argv; }
test_fuzz_conf() { fuzz_run conf; }
test_fuzz_stats() { fuzz_run stats; }
test_fuzz_manifest() { fuzz_run manifest; }
test_fuzz_capture() { fuzz_run capture; }
test_fuzz_record() { fuzz_run record; }
test_fuzz_optfile() { fuzz_run optfile; }
test_fuzz_nvccver() { fuzz_run nvccver; }
test_fuzz_sample() { fuzz_run sample; }
test_fuzz_rewrite() { fuzz_run rewrite; }
# The analysis walk over generated kernels: a few seconds (a parse each).
test_fuzz_walk() {
	"$KS_BIN" doctor 2>/dev/null | grep -q '^libclang  *ok' ||
		skip_test "no libclang 16-19 (see ks doctor)"
	fuzz_run walk 5
}
