# integration: the sample projects build through ks-nvcc in every supported
# form, and their device code is what plain nvcc produces. Uses the real
# nvcc, make and cmake.

suite_probe() {
	have_real_nvcc || echo "nvcc is not available"
	command -v cmake >/dev/null || echo "cmake is not available"
	command -v objcopy >/dev/null || echo "objcopy is not available"
}

NVCC=$(real_nvcc 2>/dev/null)
MAKE_APP=$ROOT/integration/projects/make-app
CMAKE_APP=$ROOT/integration/projects/cmake-app

# Write every object's and executable's device code section to <file>.dev.
device_sections() { # dir
	local f
	find "$1" -type f \( -name '*.o' -o -name 'make-app' -o -name 'cmake-app' \
		-o -name 'cmake-app-rdc' \) | while read -r f; do
		objcopy -O binary --only-section=.nv_fatbin \
			--only-section=__nv_relfatbin "$f" "$f.dev" 2>/dev/null || true
	done
}

# Compare the device code of every built file of $2 against reference $1.
expect_same_device_code() { # ref dir
	local f n=0 rel
	device_sections "$1"
	device_sections "$2"
	while read -r f; do
		rel=${f#"$1"/}
		[ -s "$f" ] || continue
		expect_file "$2/$rel"
		expect_same_file "$f" "$2/$rel"
		n=$((n + 1))
	done < <(find "$1" -name '*.dev' | sort)
	[ "$n" -gt 0 ] || fail "no device code compared in $1"
	echo "$n device sections identical"
}

make_app() { # build-dir make-args...
	local b=$1
	shift
	make -s -C "$MAKE_APP" BUILD="$b" "$@" >"$b.log" 2>&1 || {
		cat "$b.log"
		fail "make-app build failed: $*"
	}
}

test_make_app_every_form() {
	make_app "$TEST_DIR/plain" NVCC="$NVCC"
	make_app "$TEST_DIR/nvcc-var" NVCC="$KS_NVCC_BIN"
	expect_eq 2 "$(record_count)" "records after NVCC=ks-nvcc"
	expect_same_device_code "$TEST_DIR/plain" "$TEST_DIR/nvcc-var"
	# A Makefile that compiles with $(CC), CC being nvcc.
	make_app "$TEST_DIR/cc-var" NVCC='$(CC)' CC="$KS_NVCC_BIN"
	expect_same_device_code "$TEST_DIR/plain" "$TEST_DIR/cc-var"
	# A Makefile that hard-codes nvcc: the symlink first on PATH.
	use_masquerade
	make_app "$TEST_DIR/masq" NVCC=nvcc
	expect_same_device_code "$TEST_DIR/plain" "$TEST_DIR/masq"
	expect_stat compile 6
	expect_stat passthru-not-cuda 3
	# The host program's object went through ks-nvcc unrecorded.
	expect_file "$TEST_DIR/masq/host.o"
}

expect_recorded() { # source basenames...
	local s
	for s in "$@"; do
		grep -q "\"source\": \"$CMAKE_APP/$s\"" "$KS_DIR"/builds/*.json ||
			fail "no build record for $s"
	done
}

cmake_app() { # build-dir cmake-args... (env from the caller)
	local b=$1
	shift
	cmake -S "$CMAKE_APP" -B "$b" "$@" >"$b.configure.log" 2>&1 || {
		tail -n 40 "$b.configure.log"
		fail "cmake configure failed: $*"
	}
	cmake --build "$b" >"$b.build.log" 2>&1 || {
		tail -n 40 "$b.build.log"
		fail "cmake build failed: $*"
	}
	rm -rf "$b/CMakeFiles/"[0-9]* # compiler identification, not the build
}

test_cmake_app_launcher_forms() {
	cmake_app "$TEST_DIR/plain" -DCMAKE_CUDA_COMPILER="$NVCC"
	cmake_app "$TEST_DIR/launcher" -DCMAKE_CUDA_COMPILER="$NVCC" \
		-DCMAKE_CUDA_COMPILER_LAUNCHER="$KS_NVCC_BIN"
	expect_same_device_code "$TEST_DIR/plain" "$TEST_DIR/launcher"
	# The 4 .cu files are recorded; the device link is not a compile.
	expect_eq 4 "$(record_count)"
	expect_recorded axpby.cu transpose.cu poly_apply.cu poly_eval.cu
	expect_contains "$(cat "$KS_DIR"/builds/*.json)" '"relocatable": true'
	cmake_app "$TEST_DIR/toolchain" -DCMAKE_CUDA_COMPILER="$NVCC" \
		-DKS_NVCC_WRAPPER="$KS_NVCC_BIN" \
		-DCMAKE_TOOLCHAIN_FILE="$ROOT/integration/cmake/ks-nvcc.cmake"
	expect_same_device_code "$TEST_DIR/plain" "$TEST_DIR/toolchain"
	expect_stat compile 8
}

test_cmake_app_compiler_forms() {
	cmake_app "$TEST_DIR/plain" -DCMAKE_CUDA_COMPILER="$NVCC"
	# CMake's compiler identification runs through ks-nvcc and must pass.
	export KS_NVCC=$NVCC
	cmake_app "$TEST_DIR/compiler" -DCMAKE_CUDA_COMPILER="$KS_NVCC_BIN"
	expect_contains "$(cat "$TEST_DIR/compiler.configure.log")" "NVIDIA 13"
	expect_same_device_code "$TEST_DIR/plain" "$TEST_DIR/compiler"
	CUDACXX=$KS_NVCC_BIN cmake_app "$TEST_DIR/cudacxx"
	expect_same_device_code "$TEST_DIR/plain" "$TEST_DIR/cudacxx"
	expect_recorded axpby.cu transpose.cu poly_apply.cu poly_eval.cu
	# Identification (--version, -v, --keep with a link) and the device
	# links passed through untouched.
	expect_ne 0 "$(stat_value passthru-mode-info)" "--version calls"
	# (a one-command build is recorded, but not with -v: CMake reads
	# nvcc's -v output)
	expect_ne 0 "$(stat_value passthru-verbose)" "identification builds"
	expect_ne 0 "$(stat_value passthru-mode-dlink)" "device links"
}
