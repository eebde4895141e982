# eligibility: the table `ks capture` prints after the program exits (each
# new capture's original replayed, the verdict kept beside it) and `ks
# captures` prints again, without a GPU. A stand-in program writes the
# captures and the library's report lines; a fake ks-replay (KS_REPLAY)
# plays the GPU's part and logs when each of its runs starts and ends; the
# fake nvcc builds the shims.

# write_capture DIR KERNEL DEMANGLED LAUNCH: a capture of 16 bytes.
write_capture() {
	mkdir -p "$1"
	python3 - "$@" <<'PY'
import json, struct, sys
d, kernel, demangled, launch = sys.argv[1:5]
base = 0x7f0000000000
params = struct.pack("<Q", base)
cap = {"format": 1, "kernel": kernel, "demangled": demangled,
       "api": "cuLaunchKernel", "grid": [1, 1, 1], "block": [32, 1, 1],
       "shmem": 0, "cooperative": False, "launch": int(launch),
       "device": "NVIDIA H200", "cc": [9, 0], "cuda_version": 13000,
       "program": None, "time": "2025-11-30T10:00:00Z",
       "record": sys.argv[5] if len(sys.argv) > 5 else None, "note": None,
       "param_size": len(params), "param_bytes": params.hex(),
       "params": [{"offset": 0, "size": 8, "kind": "pointer", "type": "float *",
                   "pointers": [{"at": 0, "buffer": 0, "offset": 0}]}],
       "buffers": [{"id": 0, "mem": "device", "name": None, "base": hex(base),
                    "size": 16, "dtype": "f32", "written": True,
                    "in": "b0.in", "out": "b0.out"}]}
open(d + "/b0.in", "wb").write(struct.pack("<4f", 1, 2, 3, 4))
open(d + "/b0.out", "wb").write(struct.pack("<4f", 2, 4, 6, 8))
open(d + "/launch.json", "w").write(json.dumps(cap))
PY
}

# A build record whose object registers both kernels, built by the fake nvcc.
write_record() {
	mkdir -p "$KS_DIR/builds"
	printf 'host\0_Z5scalePf\0_Z4histPf\0_Z4slowPf\0' >k.o
	: >k.cu
	cat >"$KS_DIR/builds/rec.json" <<JSON
{"format": 1, "time": "2025-11-30T09:00:00Z", "cwd": "$TEST_DIR",
 "source": "$TEST_DIR/k.cu", "output": "$TEST_DIR/k.o",
 "nvcc": "$FAKE_DIR/nvcc", "argv": ["-c", "k.cu", "-o", "k.o"]}
JSON
}

# The fake ks-replay: --probe answers unless FAKE_NO_GPU; a review writes
# the verdict the capture's "fake-verdict" file names (default eligible).
write_replay() {
	cat >fake-replay <<'SH'
#!/bin/sh
log=$(dirname "$0")/replay.log
if [ "$1" = --probe ]; then
	[ -z "${FAKE_NO_GPU:-}" ] || { echo "no GPU: no CUDA device" >&2; exit 4; }
	echo "Fake GPU"
	exit 0
fi
cap= json= prev=
for a in "$@"; do
	[ "$prev" = --capture ] && cap=$a
	[ "$prev" = --json ] && json=$a
	prev=$a
done
echo "start $cap" >>"$log"
# The replays must not run under the capture library.
[ -z "${CUDA_INJECTION64_PATH:-}${KS_CAPTURE_DIR:-}" ] || echo "injected $cap" >>"$log"
sleep 0.3
echo "end $cap" >>"$log"
if [ -f "$cap/fake-verdict" ]; then
	why=$(cat "$cap/fake-verdict")
	printf '{"format": 1, "capture": "%s", "original": {"reproduces": false, "why": "%s"}, "verdict": "ineligible", "error": null}\n' "$cap" "$why" >"$json"
else
	printf '{"format": 1, "capture": "%s", "original": {"reproduces": true, "why": null}, "verdict": "eligible", "error": null}\n' "$cap" >"$json"
fi
SH
	chmod +x fake-replay
	export KS_REPLAY=$TEST_DIR/fake-replay
}

# The stand-in program: three captures of two kernels, as the library would.
write_program() {
	write_record
	write_capture c1 _Z5scalePf 'scale(float*)' 1 "$KS_DIR/builds/rec.json"
	write_capture c2 _Z5scalePf 'scale(float*)' 2 "$KS_DIR/builds/rec.json"
	write_capture c3 _Z4histPf 'hist(float*)' 1 "$KS_DIR/builds/rec.json"
	echo "buffer 0: 1 of 4 f32 elements differ from the reference; two runs of the original differ from each other too" >c3/fake-verdict
	cat >prog.sh <<'SH'
#!/bin/sh
echo "program output"
echo "started pid $$" >>"$KS_CAPTURE_REPORT"
mkdir -p "$KS_CAPTURE_DIR/_Z5scalePf" "$KS_CAPTURE_DIR/_Z4histPf"
cp -R c1 "$KS_CAPTURE_DIR/_Z5scalePf/1"
cp -R c2 "$KS_CAPTURE_DIR/_Z5scalePf/2"
cp -R c3 "$KS_CAPTURE_DIR/_Z4histPf/1"
for d in _Z5scalePf/1 _Z5scalePf/2 _Z4histPf/1; do
	echo "captured $KS_CAPTURE_DIR/$d" >>"$KS_CAPTURE_REPORT"
done
SH
	chmod +x prog.sh
	: >fake-lib.so
	export KS_CAPTURE_LIB=$TEST_DIR/fake-lib.so
}

test_capture_ends_with_the_table() {
	write_program
	write_replay
	"$KS_BIN" capture --no-globals --no-types -- ./prog.sh >out.txt 2>err.txt
	expect_eq "program output" "$(cat out.txt)"
	err=$(cat err.txt)
	expect_contains "$err" "ks: checking 3 captures (replaying each original)"
	expect_contains "$err" "kernel         launches  bytes  reproduces  reason"
	expect_contains "$err" "scale(float*)  2         32 B   yes"
	expect_contains "$err" "hist(float*)   1         16 B   no          buffer 0: 1 of 4 f32 elements differ from the reference; two runs of the original differ"
	for d in _Z5scalePf/1 _Z5scalePf/2 _Z4histPf/1; do
		expect_file "$KS_DIR/captures/$d/eligibility.json"
	done
	v=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["verdict"], j["reproduces"])' \
		"$KS_DIR/captures/_Z4histPf/1/eligibility.json")
	expect_eq "ineligible False" "$v"
	expect_eq 3 "$(grep -c '^start ' replay.log)"
	expect_eq 0 "$(grep -c '^injected ' replay.log)"
	# `ks captures` shows the table again, without replaying.
	out=$("$KS_BIN" captures)
	expect_contains "$out" "scale(float*)  2         32 B   yes"
	expect_contains "$out" "hist(float*)   1         16 B   no"
	expect_eq 3 "$(grep -c '^start ' replay.log)"
	json=$("$KS_BIN" captures --json)
	python3 -c '
import json, sys
l = json.loads(sys.argv[1])
r = {(e["kernel"], e["launch"]): (e["reproduces"], e["verdict"]) for e in l}
assert r[("_Z4histPf", 1)] == (False, "ineligible"), r
assert r[("_Z5scalePf", 2)] == (True, "eligible"), r' "$json"
}

test_the_shim_builds_with_the_builds_nvcc_flags() {
	write_program
	write_replay
	# The build had flags in NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS (a TU
	# may not compile without them); an nvcc that logs them.
	cat >env-nvcc <<EOF
#!/bin/sh
echo "env|\$NVCC_PREPEND_FLAGS|\$NVCC_APPEND_FLAGS" >>"$TEST_DIR/env.log"
exec "$FAKE_DIR/nvcc" "\$@"
EOF
	chmod +x env-nvcc
	python3 - "$KS_DIR/builds/rec.json" "$TEST_DIR/env-nvcc" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r.update(nvcc=sys.argv[2], prepend_flags="-DA=1",
         append_flags="-DcudaThreadSynchronize=cudaDeviceSynchronize")
json.dump(r, open(sys.argv[1], "w"))
PY
	# ks's own environment's flags are not the build's.
	NVCC_APPEND_FLAGS=-DOTHER "$KS_BIN" capture --no-globals --no-types -- ./prog.sh >/dev/null 2>err.txt
	expect_contains "$(cat err.txt)" "scale(float*)  2         32 B   yes"
	# One shim build per capture, each with the build's flags only.
	expect_eq 3 "$(grep -c . env.log)" "shim builds"
	expect_eq 3 "$(grep -c -x 'env|-DA=1|-DcudaThreadSynchronize=cudaDeviceSynchronize' env.log)" \
		"shim builds with the build's flags"
}

test_gpu_runs_one_at_a_time() {
	write_program
	write_replay
	"$KS_BIN" capture --no-globals --no-types -- ./prog.sh >/dev/null 2>err.txt
	# Every start is followed by its own end before the next start.
	python3 - replay.log <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")[:-1]
lines = [l for l in lines if not l.startswith("injected ")]
assert len(lines) == 6, lines
for i in range(0, 6, 2):
    a, b = lines[i].split(" ", 1), lines[i + 1].split(" ", 1)
    assert a[0] == "start" and b[0] == "end" and a[1] == b[1], lines
PY
}

test_no_check_skips_the_table() {
	write_program
	write_replay
	"$KS_BIN" capture --no-check --no-globals --no-types -- ./prog.sh >/dev/null 2>err.txt
	expect_not_contains "$(cat err.txt)" "reproduces"
	expect_no_file replay.log
	expect_no_file "$KS_DIR/captures/_Z5scalePf/1/eligibility.json"
	out=$("$KS_BIN" captures)
	expect_contains "$out" "scale(float*)  2         32 B   not checked  -"
	# --check replays them now.
	out=$("$KS_BIN" captures --check 2>/dev/null)
	expect_contains "$out" "scale(float*)  2         32 B   yes"
	expect_eq 3 "$(grep -c '^start ' replay.log)"
}

test_without_a_gpu_it_says_so() {
	write_program
	write_replay
	FAKE_NO_GPU=1 "$KS_BIN" capture --no-globals --no-types -- ./prog.sh >/dev/null 2>err.txt
	expect_contains "$(cat err.txt)" "not checked: no GPU to replay on (no GPU: no CUDA device)"
	expect_contains "$(cat err.txt)" "not checked  -"
	expect_no_file replay.log
}

test_a_review_that_cannot_run_is_named() {
	write_program
	write_replay
	# The build of the shim fails: the verdict is an error with nvcc's reason.
	FAKE_NVCC_EXIT=2 "$KS_BIN" capture --no-globals --no-types -- ./prog.sh >/dev/null 2>err.txt
	expect_contains "$(cat err.txt)" "nvcc failed (status 2) building"
	v=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["verdict"], j["stage"])' \
		"$KS_DIR/captures/_Z5scalePf/1/eligibility.json")
	expect_eq "error build" "$v"
}
