# evidence: compiler evidence from the real nvcc (ptxas -v, PTX, and SASS
# where a cuobjdump exists), through ks_evidence_collect(). The kernels are
# tests/data/evidence/kernels.cu; the unit tests read a captured copy of the
# same output, this suite checks that the nvcc at hand still says so.

suite_probe() {
	have_real_nvcc || { echo "no nvcc"; return; }
	[ -f "$BUILD/src/evidence/evidence.o" ] || echo "no $BUILD/src/evidence/evidence.o (run make test)"
}

# Build tests/data/evidence/evidence-tool.c against the build's objects,
# with the sanitizers those objects were built with.
build_tool() {
	local flags="" o
	o=$(nm "$BUILD/src/core/buf.o" 2>/dev/null)
	case $o in *__asan*) flags="$flags -fsanitize=address" ;; esac
	case $o in *__ubsan*) flags="$flags -fsanitize=undefined" ;; esac
	# shellcheck disable=SC2086
	${CC:-cc} -std=c11 -D_GNU_SOURCE $flags -o "$TEST_DIR/evidence-tool" \
		"$ROOT/tests/data/evidence/evidence-tool.c" \
		"$BUILD"/src/evidence/*.o "$BUILD"/src/nvcc/{nvopts,derive,arch}.o \
		"$BUILD"/src/core/*.o
}

# The value of one feature in the tool's output: out kernel arch feature
feature() {
	awk -v k="$2" -v a="$3" -v f="$4" '$1 == k && $2 == a && $3 == f { print $4 }' "$1"
}

expect_feature() { # out kernel arch feature want
	expect_eq "$5" "$(feature "$1" "$2" "$3" "$4")" "$4 of $2 on $3"
}

VEC4=_Z10vec4_scalePK6float4PS_fi
SIN=_Z9sin_scalePKfPfi
DAXPY=_Z5daxpydPKdPdi
LOCAL=_Z11local_tablePKiPfi
SPILL=_Z12reg_pressurePKfPfi
SUM=_Z9block_sumPKfPfi
WMMA=_Z9wmma_tilePK6__halfS1_Pf
CALL=_Z11call_helperPd

test_features_from_the_real_compiler() {
	build_tool
	cp "$ROOT/tests/data/evidence/kernels.cu" .
	mkdir tmp
	# The recorded command, outputs and depfile included: none may appear.
	TMPDIR=$TEST_DIR/tmp KS_CUOBJDUMP= ./evidence-tool "$(real_nvcc)" \
		-O3 -gencode arch=compute_80,code=sm_80 \
		-gencode arch=compute_90,code=sm_90 -MD -MF obj/k.d \
		-c kernels.cu -o obj/k.o >out.txt
	expect_no_file obj
	expect_eq "" "$(ls tmp)" "temporary files left"
	for arch in sm_80 sm_90; do
		expect_feature out.txt $VEC4 $arch has_vec128_global 1
		expect_feature out.txt $DAXPY $arch has_vec128_global 0
		expect_feature out.txt $SPILL $arch spills 1
		expect_feature out.txt $SPILL $arch uses_local_memory 1
		expect_feature out.txt $LOCAL $arch spills 0
		expect_feature out.txt $LOCAL $arch uses_local_memory 1
		expect_feature out.txt $VEC4 $arch uses_local_memory 0
		expect_feature out.txt $VEC4 $arch fp64_ops 0
		expect_feature out.txt $SIN $arch sfu_ops 0
		expect_feature out.txt $WMMA $arch uses_tensor_cores 1
		expect_feature out.txt $SUM $arch uses_tensor_cores 0
		expect_feature out.txt $SUM $arch smem_static_bytes 128
		expect_feature out.txt $SUM $arch barriers 1
		expect_feature out.txt $SUM $arch atomics 1
		expect_feature out.txt $VEC4 $arch counts_from_sass 0
		[ "$(feature out.txt $DAXPY $arch fp64_ops)" -ge 1 ] || fail "no fp64 in daxpy on $arch"
		[ "$(feature out.txt $CALL $arch fp64_ops)" -ge 1 ] || fail "callee's fp64 not folded on $arch"
		[ "$(feature out.txt $SPILL $arch spill_stores_bytes)" -gt 0 ] || fail "no spill bytes on $arch"
		[ "$(feature out.txt $SUM $arch shuffles)" -ge 2 ] || fail "no shuffles on $arch"
		[ "$(feature out.txt $VEC4 $arch regs_per_thread)" -gt 0 ] || fail "no registers on $arch"
	done
}

test_fast_math_makes_sin_a_special_function() {
	build_tool
	sed -n '/^__global__ void sin_scale/,/^}/p' "$ROOT/tests/data/evidence/kernels.cu" >sin.cu
	KS_CUOBJDUMP= ./evidence-tool "$(real_nvcc)" -arch=sm_90 -c sin.cu -o sin.o >precise.txt
	KS_CUOBJDUMP= ./evidence-tool "$(real_nvcc)" -use_fast_math -arch=sm_90 -c sin.cu -o sin.o >fast.txt
	expect_feature precise.txt $SIN sm_90 sfu_ops 0
	[ "$(feature precise.txt $SIN sm_90 fp64_ops)" -ge 1 ] || fail "precise sinf has no fp64 slow path"
	[ "$(feature fast.txt $SIN sm_90 sfu_ops)" -ge 1 ] || fail "fast sinf is no sfu op"
	expect_feature fast.txt $SIN sm_90 fp64_ops 0
}

test_a_failing_compile_says_why() {
	build_tool
	printf '__global__ void k(float *x) { x[0] = undefined_name; }\n' >bad.cu
	if ./evidence-tool "$(real_nvcc)" -arch=sm_90 -c bad.cu -o bad.o >out.txt 2>err.txt; then
		fail "a broken source gave evidence"
	fi
	expect_contains "$(cat err.txt)" "nvcc failed (status"
	expect_contains "$(cat err.txt)" 'identifier "undefined_name" is undefined'
}

# The SASS parser on a real dump, where the toolkit has cuobjdump (the
# build machine has none: then this only says so).
test_sass_where_cuobjdump_exists() {
	local dump
	dump=${KS_CUOBJDUMP:-$(dirname "$(real_nvcc)")/cuobjdump}
	if [ ! -x "$dump" ]; then
		echo "no cuobjdump at $dump: SASS not checked here"
		return 0
	fi
	build_tool
	cp "$ROOT/tests/data/evidence/kernels.cu" .
	./evidence-tool --cuobjdump "$dump" "$(real_nvcc)" -arch=sm_90 -c kernels.cu -o k.o >out.txt
	expect_feature out.txt $VEC4 sm_90 counts_from_sass 1
	expect_feature out.txt $VEC4 sm_90 has_vec128_global 1
	expect_feature out.txt $DAXPY sm_90 has_vec128_global 0
	expect_feature out.txt $WMMA sm_90 uses_tensor_cores 1
	expect_feature out.txt $VEC4 sm_90 fp64_ops 0
	[ "$(feature out.txt $DAXPY sm_90 fp64_ops)" -ge 1 ] || fail "no DFMA in daxpy"
	[ "$(feature out.txt $SPILL sm_90 local_stores)" -ge 1 ] || fail "no STL in the spilling kernel"
	[ "$(feature out.txt $SUM sm_90 shuffles)" -ge 2 ] || fail "no SHFL"
	expect_feature out.txt $SUM sm_90 barriers 1
}

# `ks evidence`: the build record's words, or the words after --; a file
# with neither says how to give them.
test_the_command_reads_the_record_or_the_words() {
	local rc=0
	cp "$ROOT/tests/data/evidence/kernels.cu" .
	"$KS_BIN" evidence kernels.cu >out.txt 2>err.txt || rc=$?
	expect_eq 105 "$rc" "without a record"
	expect_contains "$(cat err.txt)" "no build record of '$TEST_DIR/kernels.cu'"
	KS_NVCC=$(real_nvcc) "$KS_NVCC_BIN" -arch=sm_80 -c kernels.cu -o kernels.o
	"$KS_BIN" evidence kernels.cu >out.txt
	expect_contains "$(cat out.txt)" "$VEC4 sm_80 (ptxas, ptx"
	"$KS_BIN" evidence --json kernels.cu -- -arch=sm_90 >ev.json
	expect_eq "sm_90 1 1" "$(python3 -c '
import json, sys
r = {e["kernel"]: e for e in json.load(open(sys.argv[1]))}
v, s = r[sys.argv[2]], r[sys.argv[3]]
print(v["arch"], v["features"]["has_vec128_global"], s["features"]["spills"])' ev.json $VEC4 $SPILL)" "the JSON"
}
