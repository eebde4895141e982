# record: single-source CUDA compiles leave a build record; nothing else does.
# Uses the fake nvcc.

record_file() {
	ls "$KS_DIR"/builds/*.json
}

test_compile_writes_a_record() {
	use_fake_nvcc
	mkdir obj
	NVCC_APPEND_FLAGS="-lineinfo" "$KS_NVCC_BIN" -O3 -arch=sm_90 -use_fast_math -Iinc -DN=4 -c k.cu -o obj/k.o
	expect_eq 1 "$(record_count)"
	r=$(cat "$(record_file)")
	expect_contains "$r" "\"source\": \"$TEST_DIR/k.cu\""
	expect_contains "$r" "\"output\": \"$TEST_DIR/obj/k.o\""
	expect_contains "$r" "\"cwd\": \"$TEST_DIR\""
	expect_contains "$r" "\"nvcc\": \"$TEST_DIR/fakebin/nvcc\""
	expect_contains "$r" "\"nvcc_version\": \"13.0.88\""
	expect_contains "$r" '"argv": ["-O3", "-arch=sm_90", "-use_fast_math", "-Iinc", "-DN=4", "-c", "k.cu", "-o", "obj/k.o"]'
	expect_contains "$r" '"append_flags": "-lineinfo"'
	expect_contains "$r" '{"virtual": "compute_90", "real": "sm_90"}'
	expect_contains "$r" '"language": "cu"'
	expect_stat compile 1
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$(record_file)"
}

test_recompile_replaces_the_record() {
	use_fake_nvcc
	"$KS_NVCC_BIN" -c k.cu -o k.o
	"$KS_NVCC_BIN" -O2 -c k.cu -o k.o
	expect_eq 1 "$(record_count)"
	expect_contains "$(cat "$(record_file)")" '"-O2"'
	"$KS_NVCC_BIN" -c k.cu -o other.o
	expect_eq 2 "$(record_count)"
}

test_nvcc_version_is_asked_once() {
	use_fake_nvcc
	"$KS_NVCC_BIN" -c a.cu -o a.o
	"$KS_NVCC_BIN" -c b.cu -o b.o
	expect_eq 1 "$(grep -c -- '--version' "$FAKE_NVCC_LOG")"
}

test_non_compiles_leave_no_record() {
	use_fake_nvcc
	"$KS_NVCC_BIN" -o app a.o b.o
	"$KS_NVCC_BIN" -E k.cu >/dev/null
	"$KS_NVCC_BIN" -M k.cu >/dev/null
	"$KS_NVCC_BIN" --version >/dev/null
	"$KS_NVCC_BIN" -dlink a.o -o dl.o
	"$KS_NVCC_BIN" -c host.cpp -o host.o
	"$KS_NVCC_BIN" -c a.cu b.cu
	"$KS_NVCC_BIN" -ptx k.cu
	expect_eq 0 "$(record_count)"
	expect_stat invocations 8
	expect_stat compile 0
}

test_record_off() {
	use_fake_nvcc
	KS_RECORD=0 "$KS_NVCC_BIN" -c k.cu -o k.o
	expect_eq 0 "$(record_count)"
	expect_stat compile 1
}

test_options_file_is_expanded_in_the_record() {
	use_fake_nvcc
	printf -- '-O3 -DA=1\n-arch=sm_80\n' >opts.txt
	"$KS_NVCC_BIN" --options-file opts.txt -c k.cu -o k.o
	# nvcc itself receives the argv unchanged.
	expect_eq '--options-file|opts.txt|-c|k.cu|-o|k.o' "$(nvcc_calls)"
	r=$(cat "$(record_file)")
	expect_contains "$r" '"argv": ["-O3", "-DA=1", "-arch=sm_80", "-c", "k.cu", "-o", "k.o"]'
	expect_contains "$r" '"real": "sm_80"'
}

test_parallel_compiles_all_recorded() {
	use_fake_nvcc
	for i in $(seq 1 24); do
		"$KS_NVCC_BIN" -c "k$i.cu" -o "k$i.o" &
	done
	wait
	expect_eq 24 "$(record_count)"
	expect_stat compile 24
	expect_stat invocations 24
	for f in "$KS_DIR"/builds/*.json; do
		python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$f"
	done
	# no temporary files left behind
	expect_eq "" "$(ls "$KS_DIR/builds" | grep -v '\.json$' || true)"
}

test_ks_builds_lists_records() {
	use_fake_nvcc
	"$KS_NVCC_BIN" -arch=sm_90 -c k.cu -o k.o
	out=$("$KS_BIN" builds)
	expect_contains "$out" "$TEST_DIR/k.cu -> $TEST_DIR/k.o"
	expect_contains "$out" "sm_90"
	"$KS_BIN" builds --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d)==1'
}
