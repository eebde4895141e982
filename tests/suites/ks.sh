# ks: the engine's command line.

test_version_and_help() {
	expect_contains "$("$KS_BIN" --version)" "ks "
	expect_eq "$("$KS_BIN" --version)" "$("$KS_BIN" version)"
	h=$("$KS_BIN" help)
	expect_contains "$h" "doctor"
	expect_contains "$h" "stats"
}

test_unknown_command_is_usage_error() {
	set +e
	"$KS_BIN" frobnicate 2>err.txt
	status=$?
	set -e
	expect_eq 104 "$status"
	expect_contains "$(cat err.txt)" "unknown command 'frobnicate'"
}

test_config_prints_origins() {
	mkdir -p "$KS_DIR"
	echo "record = 0" >"$KS_DIR/ks.conf"
	out=$(KS_DEBUG=0 "$KS_BIN" config)
	expect_contains "$out" "record         = 0  (config file)"
	expect_contains "$out" "debug          = 0  (environment: KS_DEBUG)"
	expect_contains "$out" "disable        = 0  (default)"
	expect_contains "$out" "dir            = $KS_DIR  (environment: KS_DIR)"
}

test_stats_and_zero() {
	use_fake_nvcc
	"$KS_NVCC_BIN" -c k.cu -o k.o
	expect_contains "$("$KS_BIN" stats)" "compile 1"
	"$KS_BIN" stats -z
	expect_eq "" "$("$KS_BIN" stats)"
}

test_doctor_reports() {
	use_fake_nvcc
	out=$("$KS_BIN" doctor)
	expect_contains "$out" "nvcc               ok       $TEST_DIR/fakebin/nvcc (13.0.88)"
	expect_contains "$out" "libclang"
	expect_contains "$out" "features:"
	expect_contains "$out" "LLM agents"
}

test_doctor_without_nvcc_fails() {
	export PATH=/usr/bin:/bin
	set +e
	KS_NVCC=/nonexistent/nvcc "$KS_BIN" doctor >out.txt
	status=$?
	set -e
	expect_eq 105 "$status"
	expect_contains "$(cat out.txt)" "nvcc               missing"
}
