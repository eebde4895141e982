# capture: `ks capture` around a program, the captures it finishes and lists,
# without a GPU. A stand-in program plays the injection library's part: it
# writes a capture directory and the report lines libks-capture.so writes,
# so that ks's side (environment, exit status, build record, listing) runs
# for real.

# A capture of scale(float *x, float a, int n) with 4 floats in buffer 0,
# written where $1 says; `written` is left unknown, as the library leaves
# nothing unknown but ks must cope.
write_capture() { # dir
	mkdir -p "$1"
	python3 - "$1" <<'PY'
import json, struct, sys
d = sys.argv[1]
base = 0x7f0000000000
params = struct.pack("<Qfi", base + 4, 2.0, 3)
cap = {"format": 1, "kernel": "_Z5scalePffi",
       "demangled": "scale(float*, float, int)", "api": "cuLaunchKernel",
       "grid": [1, 1, 1], "block": [256, 1, 1], "shmem": 0,
       "cooperative": False, "launch": 1, "device": "NVIDIA H200",
       "cc": [9, 0], "cuda_version": 13000, "program": None,
       "time": "2025-11-30T10:00:00Z", "record": None, "note": None,
       "param_size": len(params), "param_bytes": params.hex(),
       "params": [
           {"offset": 0, "size": 8, "kind": "pointer", "type": None,
            "pointers": [{"at": 0, "buffer": 0, "offset": 4}]},
           {"offset": 8, "size": 4, "kind": "value", "type": None, "pointers": []},
           {"offset": 12, "size": 4, "kind": "value", "type": None, "pointers": []}],
       "buffers": [{"id": 0, "mem": "device", "name": None, "base": hex(base),
                    "size": 16, "dtype": "bytes", "written": True,
                    "in": "b0.in", "out": "b0.out"}]}
open(d + "/b0.in", "wb").write(struct.pack("<4f", 1, 2, 3, 4))
open(d + "/b0.out", "wb").write(struct.pack("<4f", 1, 4, 6, 8))
open(d + "/launch.json", "w").write(json.dumps(cap))
PY
}

# The stand-in for a CUDA program run under libks-capture.so.
write_program() {
	cat >prog.sh <<'SH'
#!/bin/sh
echo "program output"
echo "injection=$CUDA_INJECTION64_PATH launch=$KS_CAPTURE_LAUNCH max=$KS_CAPTURE_MAX_BYTES kernel=${KS_CAPTURE_KERNEL-unset}" >env.txt
echo "started pid $$" >>"$KS_CAPTURE_REPORT"
mkdir -p "$KS_CAPTURE_DIR/_Z5scalePffi"
cp -R captured "$KS_CAPTURE_DIR/_Z5scalePffi/1"
echo "captured $KS_CAPTURE_DIR/_Z5scalePffi/1" >>"$KS_CAPTURE_REPORT"
echo "skipped _Z5scalePffi launch 2: its buffers hold 9 bytes, over the limit of 8 (--max-bytes)" >>"$KS_CAPTURE_REPORT"
exit 7
SH
	chmod +x prog.sh
	write_capture captured
	: >fake-lib.so
	export KS_CAPTURE_LIB=$TEST_DIR/fake-lib.so
}

# A build record whose object registers _Z5scalePffi.
write_record() {
	mkdir -p "$KS_DIR/builds"
	printf 'host code\0_Z5scalePffi\0more\0' >scale.o
	cat >"$KS_DIR/builds/abc.json" <<JSON
{"format": 1, "time": "2025-11-30T09:00:00Z", "cwd": "$TEST_DIR",
 "source": "$TEST_DIR/scale.cu", "output": "$TEST_DIR/scale.o",
 "nvcc": "/usr/local/cuda/bin/nvcc", "argv": ["-c", "scale.cu", "-o", "scale.o"]}
JSON
}

test_program_output_and_status_unchanged() {
	write_program
	set +e
	out=$("$KS_BIN" capture --launch 2 --max-bytes 64M -- ./prog.sh 2>err.txt)
	status=$?
	set -e
	expect_eq 7 "$status"
	expect_eq "program output" "$out"
	expect_contains "$(cat env.txt)" "injection=$TEST_DIR/fake-lib.so launch=2 max=64M kernel=unset"
	expect_contains "$(cat err.txt)" "ks: captured $KS_DIR/captures/_Z5scalePffi/1"
	expect_contains "$(cat err.txt)" "skipped _Z5scalePffi launch 2: its buffers hold 9 bytes"
	expect_no_file "$(ls "$KS_DIR"/captures/.report-* 2>/dev/null | head -n 1)"
}

test_default_launch_and_limit() {
	write_program
	"$KS_BIN" capture -- ./prog.sh >/dev/null 2>&1 || true
	# Several shapes per kernel by default; the limit follows the machine.
	expect_contains "$(cat env.txt)" "launch=distinct:3 max=auto"
	"$KS_BIN" capture --launch distinct:5 --max-bytes 2G -- ./prog.sh >/dev/null 2>&1 || true
	expect_contains "$(cat env.txt)" "launch=distinct:5 max=2G"
	KS_CAPTURE_MAX_BYTES=3G "$KS_BIN" capture -- ./prog.sh >/dev/null 2>&1 || true
	expect_contains "$(cat env.txt)" "max=3G"
	out=$("$KS_BIN" config)
	expect_contains "$out" "capture_max_bytes = auto  (default)"
	expect_contains "$out" "capture_max_bytes (auto) = at most "
	out=$(KS_CAPTURE_MAX_BYTES=8G "$KS_BIN" config)
	expect_contains "$out" "capture_max_bytes = 8G  (environment: KS_CAPTURE_MAX_BYTES)"
}

# A larger launch replaced capture 1 by 2: only 2 is reported captured
# and checked, and the replacement is said.
test_replaced_capture_is_not_reported() {
	write_program
	cat >prog.sh <<'SH'
#!/bin/sh
echo "started pid $$" >>"$KS_CAPTURE_REPORT"
mkdir -p "$KS_CAPTURE_DIR/_Z5scalePffi"
cp -R captured "$KS_CAPTURE_DIR/_Z5scalePffi/1"
echo "captured $KS_CAPTURE_DIR/_Z5scalePffi/1" >>"$KS_CAPTURE_REPORT"
cp -R captured "$KS_CAPTURE_DIR/_Z5scalePffi/2"
echo "captured $KS_CAPTURE_DIR/_Z5scalePffi/2" >>"$KS_CAPTURE_REPORT"
rm -rf "$KS_CAPTURE_DIR/_Z5scalePffi/1"
printf "replaced %s\t%s\n" "$KS_CAPTURE_DIR/_Z5scalePffi/1" "$KS_CAPTURE_DIR/_Z5scalePffi/2" >>"$KS_CAPTURE_REPORT"
SH
	"$KS_BIN" capture --no-check -- ./prog.sh >/dev/null 2>err.txt
	expect_contains "$(cat err.txt)" "ks: replaced $KS_DIR/captures/_Z5scalePffi/1 by $KS_DIR/captures/_Z5scalePffi/2 (a launch of at least 2 times its threads)"
	expect_contains "$(cat err.txt)" "ks: captured $KS_DIR/captures/_Z5scalePffi/2"
	expect_not_contains "$(cat err.txt)" "ks: captured $KS_DIR/captures/_Z5scalePffi/1"
	expect_eq 1 "$("$KS_BIN" captures --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')"
}

test_capture_finds_the_build_record() {
	write_program
	write_record
	"$KS_BIN" capture --kernel 'scale|other' --no-globals -- ./prog.sh >/dev/null 2>&1 || true
	expect_contains "$(cat env.txt)" "kernel=scale|other"
	expect_contains "$(cat "$KS_DIR/captures/_Z5scalePffi/1/launch.json")" \
		"\"record\": \"$KS_DIR/builds/abc.json\""
	out=$("$KS_BIN" captures)
	expect_contains "$out" "scale(float*, float, int) launch 1"
	expect_contains "$out" "1 buffers (1 written), 16 bytes"
	json=$("$KS_BIN" captures --json)
	python3 -c 'import json,sys; l=json.loads(sys.argv[1]); assert l[0]["kernel"]=="_Z5scalePffi", l' "$json"
}

test_signal_and_exec_failure() {
	: >fake-lib.so
	export KS_CAPTURE_LIB=$TEST_DIR/fake-lib.so
	set +e
	"$KS_BIN" capture -- sh -c 'kill -TERM $$' 2>/dev/null
	status=$?
	"$KS_BIN" capture -- ./does-not-exist 2>err.txt
	status2=$?
	set -e
	expect_eq 143 "$status"
	expect_eq 127 "$status2"
	expect_contains "$(cat err.txt)" "cannot run './does-not-exist'"
	expect_contains "$(cat err.txt)" "the capture library was not loaded"
}

test_bad_options_are_usage_errors() {
	for args in "--launch 0 -- true" "--launch soon -- true" "--max-bytes 1T -- true" \
		"--launch distinct:0 -- true" "--launch distinct:x -- true" \
		"--kernel ( -- true" "--launch 1" "--frob -- true"; do
		set +e
		# shellcheck disable=SC2086
		"$KS_BIN" capture $args 2>err.txt
		status=$?
		set -e
		expect_eq 104 "$status" "ks capture $args"
	done
}

test_missing_library_is_an_error() {
	export KS_CAPTURE_LIB=$TEST_DIR/none.so
	set +e
	"$KS_BIN" capture -- true 2>err.txt
	status=$?
	set -e
	expect_eq 105 "$status"
	expect_contains "$(cat err.txt)" "libks-capture.so not found"
}

test_shim_from_a_capture() {
	write_capture "$KS_DIR/captures/_Z5scalePffi/3"
	out=$("$KS_BIN" shim --capture _Z5scalePffi)
	expect_contains "$out" "ks_shim_call(&scale, ks_p"
	expect_contains "$out" "want[] = { 8, 4, 4, 0 }"
}

test_replay_of_a_missing_capture() {
	set +e
	"$KS_BIN" replay nothing-here 2>err.txt
	status=$?
	set -e
	expect_eq 105 "$status"
	expect_contains "$(cat err.txt)" "no capture 'nothing-here'"
}
