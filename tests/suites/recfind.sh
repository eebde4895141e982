# recfind: which build record compiled a kernel (review/build.h,
# ks_build_rec_find), the lookup of a capture's build. Uses the fake nvcc:
# an object it writes holds the names of the "// fake-kernel: NAME" lines
# of its sources, as nvcc's objects hold the kernels they register, and a
# one-command build's executable holds every source's.

suite_probe() {
	[ -f "$BUILD/src/review/build.o" ] || echo "no $BUILD/src/review/build.o (run make test)"
}

# The lookup as a program, linked from the build's objects.
find_tool() {
	local flags="" o
	o=$(nm "$BUILD/src/core/buf.o" 2>/dev/null)
	case $o in *__asan*) flags="$flags -fsanitize=address" ;; esac
	case $o in *__ubsan*) flags="$flags -fsanitize=undefined" ;; esac
	# shellcheck disable=SC2086
	${CC:-cc} -std=c11 -D_GNU_SOURCE $flags -o find-tool \
		"$ROOT/tests/data/rec/find-tool.c" "$BUILD/src/review/build.o" \
		"$BUILD"/src/nvcc/*.o "$BUILD"/src/core/*.o -lcjson
}

# The source of the record found for kernel $1.
found() {
	./find-tool "$KS_DIR" "$1" | cut -d' ' -f1
}

kernel_src() { # file mangled...
	local f=$1
	shift
	: >"$f"
	for k in "$@"; do printf '// fake-kernel: %s\n' "$k" >>"$f"; done
}

# The compiles ks made of one source alone (to builds/objects/).
own_compiles() {
	nvcc_calls | grep -c -- "$KS_DIR/builds/objects/" || true
}

test_one_source_needs_no_compile_of_its_own() {
	use_fake_nvcc
	find_tool
	kernel_src prog.cu _Z4stepPf
	"$KS_NVCC_BIN" -O3 -arch=sm_90 prog.cu -o prog
	expect_eq "$TEST_DIR/prog.cu" "$(found _Z4stepPf)"
	expect_eq 0 "$(own_compiles)" "compiles of a source alone"
	expect_no_file "$KS_DIR/builds/objects"
	./find-tool "$KS_DIR" _Z5otherPf 2>err.txt && fail "found a kernel no object has"
	expect_contains "$(cat err.txt)" "no build record's object defines _Z5otherPf"
}

test_several_sources_the_kernel_in_the_second() {
	use_fake_nvcc
	find_tool
	kernel_src a.cu _Z5firstPf
	kernel_src b.cu _Z6secondPf _Z5thirdPfi
	"$KS_NVCC_BIN" -arch=sm_80 -DN=4 a.cu b.cu -o app
	# The executable holds all three; each record is its own source's.
	expect_eq "$TEST_DIR/b.cu" "$(found _Z6secondPf)"
	expect_eq "$TEST_DIR/a.cu" "$(found _Z5firstPf)"
	expect_eq "$TEST_DIR/b.cu" "$(found _Z5thirdPfi)"
	# Each source compiled alone once, as its record says, with ks's -o.
	expect_eq 2 "$(own_compiles)" "compiles of a source alone"
	expect_contains "$(nvcc_calls)" "-arch=sm_80|-DN=4|b.cu|-c|-o|$KS_DIR/builds/objects/"
	expect_eq 2 "$(find "$KS_DIR/builds/objects" -name '*.o' | wc -l)" "objects kept"
	# Kept: asked again, nothing is compiled.
	expect_eq "$TEST_DIR/b.cu" "$(found _Z6secondPf)"
	expect_eq 2 "$(own_compiles)" "compiles after a second lookup"
	# A rebuild (the kernel moved) rewrites the records: compiled again,
	# the older objects removed.
	kernel_src a.cu _Z5firstPf _Z6secondPf
	kernel_src b.cu _Z5thirdPfi
	sleep 1
	"$KS_NVCC_BIN" -arch=sm_80 -DN=4 a.cu b.cu -o app
	expect_eq "$TEST_DIR/a.cu" "$(found _Z6secondPf)"
	expect_eq 2 "$(find "$KS_DIR/builds/objects" -name '*.o' | wc -l)" "objects after the rebuild"
}

test_a_cpp_next_to_a_cu() {
	use_fake_nvcc
	find_tool
	kernel_src k.cu _Z6kernelPf
	kernel_src main.cpp _Z8host_fnv
	"$KS_NVCC_BIN" -arch=sm_90 k.cu main.cpp -o app
	# One CUDA source: the executable speaks for it.
	expect_eq "$TEST_DIR/k.cu" "$(found _Z6kernelPf)"
	expect_eq 0 "$(own_compiles)" "compiles of a source alone"
	# A name only the .cpp holds is not the .cu's: but the executable
	# cannot tell them apart, and there is no other record.
	expect_eq "$TEST_DIR/k.cu" "$(found _Z8host_fnv)"
}

test_x_cu_makes_several_cuda_sources() {
	use_fake_nvcc
	find_tool
	kernel_src foo.c _Z3foov
	kernel_src bar.cpp _Z3barPf
	"$KS_NVCC_BIN" foo.c -x cu bar.cpp -o x
	expect_eq 2 "$(record_count)"
	expect_eq "$TEST_DIR/bar.cpp" "$(found _Z3barPf)"
	expect_eq "$TEST_DIR/foo.c" "$(found _Z3foov)"
	expect_contains "$(nvcc_calls)" "-x|cu|bar.cpp|-c|-o|$KS_DIR/builds/objects/"
	# -x cu from NVCC_APPEND_FLAGS with one source: its own, no compile.
	rm -rf "$KS_DIR/builds"
	: >"$FAKE_NVCC_LOG"
	NVCC_APPEND_FLAGS="-x cu" "$KS_NVCC_BIN" foo.c -o z
	expect_eq "$TEST_DIR/foo.c" "$(found _Z3foov)"
	expect_eq 0 "$(own_compiles)" "compiles of a source alone"
}

test_own_compile_runs_with_the_recorded_flags() {
	use_fake_nvcc
	find_tool
	kernel_src a.cu _Z1aPf
	kernel_src b.cu _Z1bPf
	NVCC_PREPEND_FLAGS="-O3" NVCC_APPEND_FLAGS="-lineinfo" \
		"$KS_NVCC_BIN" a.cu b.cu -o app
	# An nvcc that logs the flags of its environment.
	rm fakebin/nvcc
	cat >fakebin/nvcc <<EOF
#!/bin/sh
echo "env|\$NVCC_PREPEND_FLAGS|\$NVCC_APPEND_FLAGS" >>"\$FAKE_NVCC_LOG"
exec "$FAKE_DIR/nvcc" "\$@"
EOF
	chmod +x fakebin/nvcc
	expect_eq "$TEST_DIR/b.cu" "$(NVCC_PREPEND_FLAGS=-G found _Z1bPf)"
	expect_contains "$(cat "$FAKE_NVCC_LOG")" "env|-O3|-lineinfo"
	expect_not_contains "$(cat "$FAKE_NVCC_LOG")" "env|-G"
}

test_a_c_build_and_a_one_command_build() {
	use_fake_nvcc
	find_tool
	kernel_src a.cu _Z1aPf
	kernel_src b.cu _Z1bPf
	"$KS_NVCC_BIN" a.cu b.cu -o app
	sleep 1
	# b.cu built on its own later: the newest record, its object its own.
	"$KS_NVCC_BIN" -c b.cu -o b.o
	: >"$FAKE_NVCC_LOG"
	r=$(./find-tool "$KS_DIR" _Z1bPf)
	expect_contains "$r" "$TEST_DIR/b.cu"
	expect_contains "$(cat "$(echo "$r" | cut -d' ' -f2)")" '"mode": "compile"'
	expect_eq 0 "$(own_compiles)" "compiles of a source alone"
}

test_a_failing_own_compile_is_not_a_guess() {
	use_fake_nvcc
	find_tool
	kernel_src a.cu _Z1aPf
	kernel_src b.cu _Z1bPf
	"$KS_NVCC_BIN" a.cu b.cu -o app
	FAKE_NVCC_EXIT=1 FAKE_NVCC_STDERR="b.cu(1): error: gone" \
		./find-tool "$KS_DIR" _Z1bPf 2>err.txt && fail "picked a record it could not check"
	expect_contains "$(cat err.txt)" "failed"
	expect_contains "$(cat err.txt)" "error: gone"
	expect_eq 0 "$(find "$KS_DIR/builds/objects" -name '*.o' | wc -l)" "objects of a failed compile"
	expect_eq 0 "$(find "$KS_DIR/builds/objects" -name '*tmp*' | wc -l)" "temporaries left"
	# Once it compiles again, the answer is right.
	expect_eq "$TEST_DIR/b.cu" "$(found _Z1bPf)"
}

test_a_format_1_record_is_read_as_a_c_build() {
	use_fake_nvcc
	find_tool
	mkdir -p "$KS_DIR/builds"
	printf 'x\0_Z3oldPf\0' >old.o
	cat >"$KS_DIR/builds/0123456789abcdef.json" <<EOF
{"format": 1, "time": "2025-01-01T00:00:00Z", "cwd": "$TEST_DIR",
 "source": "$TEST_DIR/old.cu", "output": "$TEST_DIR/old.o",
 "argv": ["-c", "old.cu", "-o", "old.o"], "archs": []}
EOF
	expect_eq "$TEST_DIR/old.cu" "$(found _Z3oldPf)"
	expect_eq 0 "$(own_compiles)" "compiles of a source alone"
}
