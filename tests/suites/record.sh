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

# ---- one-command builds: compile and link (or -lib) in one nvcc command --

# The record of source $1 (absolute), one line per field: mode,
# output, depfile, relocatable, language, argv and command_argv ('|'
# between words), and the word at source_index.
record_of() {
	python3 - "$KS_DIR/builds" "$1" <<'PY'
import json, os, sys
d, src = sys.argv[1], sys.argv[2]
for f in sorted(x for x in os.listdir(d) if x.endswith(".json")):
    r = json.load(open(os.path.join(d, f)))
    if r["source"] == src:
        print(r["mode"]); print(r["output"]); print(r["depfile"])
        print(str(r["relocatable"]).lower()); print(r["language"])
        print("|".join(r["argv"])); print("|".join(r["command_argv"]))
        print(r["command_argv"][r["source_index"]])
PY
}

field() { # record_of-output line-number
	sed -n "$2p" <<<"$1"
}

test_one_command_one_source() {
	use_fake_nvcc
	"$KS_NVCC_BIN" -O3 -arch=sm_90 -use_fast_math prog.cu -o prog
	# nvcc itself gets the command unchanged.
	expect_eq '-O3|-arch=sm_90|-use_fast_math|prog.cu|-o|prog' "$(nvcc_calls)"
	expect_eq 1 "$(record_count)"
	r=$(record_of "$TEST_DIR/prog.cu")
	expect_eq compile-link "$(field "$r" 1)"
	expect_eq "$TEST_DIR/prog" "$(field "$r" 2)"
	expect_eq cu "$(field "$r" 5)"
	expect_eq '-O3|-arch=sm_90|-use_fast_math|prog.cu|-c' "$(field "$r" 6)"
	expect_eq '-O3|-arch=sm_90|-use_fast_math|prog.cu|-o|prog' "$(field "$r" 7)"
	expect_eq prog.cu "$(field "$r" 8)"
	expect_contains "$(cat "$KS_DIR"/builds/*.json)" '"device_flags": ["-use_fast_math"]'
	expect_contains "$(cat "$KS_DIR"/builds/*.json)" '{"virtual": "compute_90", "real": "sm_90"}'
	expect_stat one-command 1
	expect_stat compile 0
}

test_one_command_several_sources_next_to_cpp() {
	use_fake_nvcc
	"$KS_NVCC_BIN" -arch=sm_80 -Iinc -DW=4 -ccbin g++ -Xcompiler -fopenmp \
		a.cu main.cpp util.c b.cu lib.o libx.a -lcublas -L/opt/lib -o app
	# The two CUDA sources; not the C++, C, object or library inputs.
	expect_eq 2 "$(record_count)"
	expect_eq "" "$(record_of "$TEST_DIR/main.cpp")"
	expect_eq "" "$(record_of "$TEST_DIR/util.c")"
	ra=$(record_of "$TEST_DIR/a.cu")
	rb=$(record_of "$TEST_DIR/b.cu")
	expect_eq '-arch=sm_80|-Iinc|-DW=4|-ccbin|g++|-Xcompiler|-fopenmp|a.cu|-c' "$(field "$ra" 6)"
	expect_eq '-arch=sm_80|-Iinc|-DW=4|-ccbin|g++|-Xcompiler|-fopenmp|b.cu|-c' "$(field "$rb" 6)"
	expect_eq "$(field "$ra" 7)" "$(field "$rb" 7)"
	expect_eq a.cu "$(field "$ra" 8)"
	expect_eq b.cu "$(field "$rb" 8)"
	expect_eq "$TEST_DIR/app" "$(field "$rb" 2)"
	expect_stat one-command 1
	# A rebuild replaces both records.
	"$KS_NVCC_BIN" -arch=sm_80 a.cu main.cpp b.cu -o app
	expect_eq 2 "$(record_count)"
	"$KS_BIN" builds >builds.txt
	expect_contains "$(cat builds.txt)" "$TEST_DIR/a.cu -> $TEST_DIR/app"
	expect_contains "$(cat builds.txt)" "$TEST_DIR/b.cu -> $TEST_DIR/app"
	"$KS_BIN" builds --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d)==2 and all(r["mode"]=="compile-link" for r in d)'
}

test_one_command_x_cu_makes_every_source_cuda() {
	use_fake_nvcc
	# nvcc's -x applies to every input wherever it stands (the last one
	# wins): foo.c and bar.cpp are both compiled as CUDA.
	"$KS_NVCC_BIN" foo.c -x cu bar.cpp -o x
	expect_eq 2 "$(record_count)"
	r=$(record_of "$TEST_DIR/foo.c")
	expect_eq cu "$(field "$r" 5)"
	expect_eq 'foo.c|-x|cu|-c' "$(field "$r" 6)"
	r=$(record_of "$TEST_DIR/bar.cpp")
	expect_eq '-x|cu|bar.cpp|-c' "$(field "$r" 6)"
	# A later -x c++ takes it back: nothing is CUDA.
	rm -f "$KS_DIR"/builds/*.json
	"$KS_NVCC_BIN" -x cu foo.c -x c++ bar.cpp -o y
	expect_eq 0 "$(record_count)"
	expect_stat passthru-not-cuda 1
	# -x cu from NVCC_APPEND_FLAGS counts too.
	NVCC_APPEND_FLAGS="-x cu" "$KS_NVCC_BIN" foo.c -o z
	expect_eq 1 "$(record_count)"
	expect_eq 'foo.c|-c' "$(field "$(record_of "$TEST_DIR/foo.c")" 6)"
	expect_contains "$(cat "$KS_DIR"/builds/*.json)" '"append_flags": "-x cu"'
}

test_one_command_rdc_and_link() {
	use_fake_nvcc
	"$KS_NVCC_BIN" -rdc=true -gencode arch=compute_90,code=sm_90 a.cu b.cu \
		-lcudadevrt -Xnvlink -v -MD -o app
	expect_eq 2 "$(record_count)"
	r=$(record_of "$TEST_DIR/b.cu")
	expect_eq true "$(field "$r" 4)"
	expect_eq '-rdc=true|-gencode|arch=compute_90,code=sm_90|b.cu|-c' "$(field "$r" 6)"
	# The command's depfile (app.d for -MD -o app).
	expect_eq "$TEST_DIR/app.d" "$(field "$r" 3)"
}

test_one_command_lib() {
	use_fake_nvcc
	"$KS_NVCC_BIN" -lib -arch=sm_90 k.cu host.cpp -o libk.a
	expect_eq 1 "$(record_count)"
	r=$(record_of "$TEST_DIR/k.cu")
	expect_eq lib "$(field "$r" 1)"
	expect_eq "$TEST_DIR/libk.a" "$(field "$r" 2)"
	expect_eq '-arch=sm_90|k.cu|-c' "$(field "$r" 6)"
}

test_one_command_not_recorded() {
	use_fake_nvcc
	"$KS_NVCC_BIN" main.cpp util.c -o app
	"$KS_NVCC_BIN" -v a.cu -o app
	"$KS_NVCC_BIN" -keep a.cu -o app
	"$KS_NVCC_BIN" -arch=native a.cu -o app
	"$KS_NVCC_BIN" a.cu -o app -rdc=maybe
	expect_eq 0 "$(record_count)"
	expect_stat passthru-not-cuda 1
	expect_stat passthru-verbose 1
	expect_stat passthru-keep 1
	expect_stat passthru-arch-symbolic 1
	expect_stat passthru-bad-value 1
	expect_stat one-command 0
	expect_eq 5 "$(nvcc_calls | wc -l)"
}

test_one_command_failing_is_recorded_as_a_compile_is() {
	use_fake_nvcc
	# ks-nvcc records before it becomes nvcc, so it cannot know nvcc's
	# verdict: a failing compile is recorded, -c or not, and nvcc's
	# status, stdout and stderr are the caller's.
	set +e
	FAKE_NVCC_EXIT=1 FAKE_NVCC_STDERR="a.cu(1): error: boom" \
		"$KS_NVCC_BIN" -c a.cu -o a.o 2>err1.txt
	s1=$?
	FAKE_NVCC_EXIT=1 FAKE_NVCC_STDERR="a.cu(1): error: boom" \
		"$KS_NVCC_BIN" a.cu main.cpp -o app 2>err2.txt
	s2=$?
	set -e
	expect_eq 1 "$s1"
	expect_eq 1 "$s2"
	expect_eq "a.cu(1): error: boom" "$(cat err1.txt)"
	expect_eq "a.cu(1): error: boom" "$(cat err2.txt)"
	expect_eq 2 "$(record_count)"
	expect_stat compile 1
	expect_stat one-command 1
}

test_one_command_record_problems_pass_through() {
	use_fake_nvcc
	# A CUDA source named in NVCC_PREPEND_FLAGS has no word of its own
	# in the command, and comes back in every other source's compile
	# (a record's compile runs with the same NVCC_*_FLAGS): nothing is
	# recorded.
	NVCC_PREPEND_FLAGS="extra.cu" "$KS_NVCC_BIN" a.cu -o app
	expect_eq 0 "$(record_count)"
	expect_stat record-failed 1
	expect_eq 'a.cu|-o|app' "$(nvcc_calls)"
	# An unwritable record directory: nvcc runs all the same.
	: >"$FAKE_NVCC_LOG"
	mkdir -p "$KS_DIR"
	rm -rf "$KS_DIR/builds"
	: >"$KS_DIR/builds"
	"$KS_NVCC_BIN" a.cu b.cu -o app2
	expect_eq 'a.cu|b.cu|-o|app2' "$(nvcc_calls)"
	expect_stat record-failed 2
}
