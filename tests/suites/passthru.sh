# passthru: ks-nvcc hands every command to the real nvcc unchanged, in both
# forms, and survives bad configuration. Uses the fake nvcc.

test_compiler_form_passes_argv_unchanged() {
	use_fake_nvcc
	"$KS_NVCC_BIN" -O3 -arch=sm_90 "-DMSG=\"a b\"" -c k.cu -o k.o
	expect_eq '-O3|-arch=sm_90|-DMSG="a b"|-c|k.cu|-o|k.o' "$(nvcc_calls)"
	expect_eq "fake object of k.cu" "$(cat k.o)"
}

test_launcher_form_uses_given_nvcc() {
	use_fake_nvcc
	mkdir other
	# other/nvcc notes its own path, then is the fake nvcc. The nvcc on
	# PATH logs to the same log: one call there and only other/nvcc in
	# who.log mean that the given nvcc ran and the one on PATH did not.
	printf '#!/bin/sh\necho "$0" >>"%s/who.log"\nexec "%s/nvcc" "$@"\n' \
		"$TEST_DIR" "$FAKE_DIR" >other/nvcc
	chmod +x other/nvcc
	"$KS_NVCC_BIN" "$TEST_DIR/other/nvcc" -c k.cu -o k.o
	expect_eq '-c|k.cu|-o|k.o' "$(nvcc_calls)"
	expect_eq "$TEST_DIR/other/nvcc" "$(sort -u who.log)"
}

test_exit_status_stdout_stderr_are_nvccs() {
	use_fake_nvcc
	set +e
	FAKE_NVCC_EXIT=2 FAKE_NVCC_STDOUT="out line" FAKE_NVCC_STDERR="k.cu(3): error: boom" \
		"$KS_NVCC_BIN" -c k.cu -o k.o >out.txt 2>err.txt
	status=$?
	set -e
	expect_eq 2 "$status" "exit status"
	expect_eq "out line" "$(cat out.txt)"
	expect_eq "k.cu(3): error: boom" "$(cat err.txt)"
}

test_silent_on_a_normal_run() {
	use_fake_nvcc
	"$KS_NVCC_BIN" -c k.cu -o k.o >out.txt 2>err.txt
	"$KS_NVCC_BIN" --version >version.txt 2>>err.txt
	expect_eq "" "$(cat out.txt err.txt)"
	expect_contains "$(cat version.txt)" "Cuda compilation tools, release 13.0, V13.0.88"
}

test_masquerade_nvcc_first_on_path() {
	use_fake_nvcc
	use_masquerade
	nvcc -c k.cu -o k.o
	expect_eq '-c|k.cu|-o|k.o' "$(nvcc_calls)"
	expect_stat invocations 1
	expect_stat compile 1
}

test_wrapper_script_calling_nvcc_does_not_loop() {
	# A site "nvcc" script that calls "nvcc" from PATH again, below ks-nvcc.
	use_fake_nvcc
	mkdir site
	printf '#!/bin/sh\nPATH=%s:%s/fakebin:$PATH exec nvcc "$@"\n' "$TEST_DIR/masq" "$TEST_DIR" >site/nvcc
	chmod +x site/nvcc
	use_masquerade
	export PATH=$TEST_DIR/masq:$TEST_DIR/site:$TEST_DIR/fakebin:/usr/bin:/bin
	timeout 10 nvcc -c k.cu -o k.o
	expect_eq '-c|k.cu|-o|k.o' "$(nvcc_calls)"
	# Recorded once: the nested ks-nvcc only passes through.
	expect_stat passthru-nested 1
	expect_eq 1 "$(record_count)"
}

test_no_real_nvcc_is_a_clear_error() {
	use_masquerade
	export PATH=$TEST_DIR/masq:/usr/bin:/bin
	unset CUDA_HOME CUDA_PATH
	if [ -x /usr/local/cuda/bin/nvcc ]; then
		echo "skip-equivalent: /usr/local/cuda/bin/nvcc exists; checking KS_NVCC instead"
		set +e
		KS_NVCC=$TEST_DIR/masq/nvcc nvcc --version >out.txt 2>err.txt
		status=$?
		set -e
	else
		set +e
		nvcc --version >out.txt 2>err.txt
		status=$?
		set -e
	fi
	expect_eq 100 "$status" "exit status"
	expect_contains "$(cat err.txt)" "ks-nvcc: error:"
}

test_disable_passes_through_and_writes_nothing() {
	use_fake_nvcc
	KS_DISABLE=1 "$KS_NVCC_BIN" -c k.cu -o k.o
	expect_eq '-c|k.cu|-o|k.o' "$(nvcc_calls)"
	expect_no_file "$KS_DIR"
}

test_bogus_ks_dir_still_builds() {
	use_fake_nvcc
	echo "not a directory" >afile
	KS_DIR=$TEST_DIR/afile "$KS_NVCC_BIN" -c k.cu -o k.o 2>err.txt
	expect_eq "fake object of k.cu" "$(cat k.o)"
	expect_eq "" "$(cat err.txt)"
	KS_DIR=$TEST_DIR/afile/sub "$KS_NVCC_BIN" -c k.cu -o k2.o 2>err.txt
	expect_eq "fake object of k.cu" "$(cat k2.o)"
	expect_eq "" "$(cat err.txt)"
}

test_unwritable_ks_dir_still_builds() {
	[ "$(id -u)" != 0 ] || {
		# root ignores permissions; a read-only bind is not available here,
		# so use a path below a file, which no user can create.
		echo x >ro
		export KS_DIR=$TEST_DIR/ro/ks
	}
	[ "$(id -u)" = 0 ] || {
		mkdir ro
		chmod 500 ro
		export KS_DIR=$TEST_DIR/ro/ks
	}
	use_fake_nvcc
	"$KS_NVCC_BIN" -c k.cu -o k.o 2>err.txt
	expect_eq "fake object of k.cu" "$(cat k.o)"
	expect_eq "" "$(cat err.txt)"
}

test_bad_config_passes_through_and_logs() {
	use_fake_nvcc
	mkdir -p "$KS_DIR"
	echo "record = perhaps" >"$KS_DIR/ks.conf"
	KS_LOG=$TEST_DIR/log "$KS_NVCC_BIN" -c k.cu -o k.o 2>err.txt
	expect_eq "fake object of k.cu" "$(cat k.o)"
	expect_eq "" "$(cat err.txt)"
	expect_stat passthru-config-error 1
	expect_contains "$(cat log)" "'perhaps' is not a boolean"
	expect_eq 0 "$(record_count)"
}

test_debug_traces_to_stderr_only_when_asked() {
	use_fake_nvcc
	KS_DEBUG=1 "$KS_NVCC_BIN" -c k.cu -o k.o 2>err.txt
	expect_contains "$(cat err.txt)" "ks-nvcc["
	expect_contains "$(cat err.txt)" "real nvcc"
}

test_ldd_shows_only_libc() {
	command -v ldd >/dev/null || return 0
	libs=$(ldd "$KS_NVCC_BIN")
	expect_not_contains "$libs" "libclang"
	expect_not_contains "$libs" "libcurl"
	expect_not_contains "$libs" "libcjson"
	expect_not_contains "$libs" "libcuda"
	expect_not_contains "$libs" "libxxhash"
}
