# subst_onecmd: substitution in one-command builds (`nvcc a.cu b.cpp -o
# app`), seen from the nvcc below ks-nvcc. Uses the fake nvcc, which logs
# the words it gets: a substituted build is one call, the whole command
# with the source replaced by the rewritten TU in KS_DIR/tmp/; anything
# that fails is the exact original command. The variants are verified by
# construction (the original plus a branch on 0x5eed5eed, which nothing
# else holds). tests/suites/subst.sh does the same with the real nvcc.

suite_probe() {
	[ -f "$BUILD/src/cache/store.o" ] || echo "no $BUILD/src/cache/store.o (run make test)"
}

# The fake nvcc, the seed tool, src/app.cu (kernel scale, a quoted
# include), src/other.cu (kernel twice, no variant), main.cpp, variant.cu.
setup() {
	local flags="" o
	use_fake_nvcc
	o=$(nm "$BUILD/src/core/buf.o" 2>/dev/null)
	case $o in *__asan*) flags="$flags -fsanitize=address" ;; esac
	case $o in *__ubsan*) flags="$flags -fsanitize=undefined" ;; esac
	# shellcheck disable=SC2086
	${CC:-cc} -std=c11 -D_GNU_SOURCE $flags -o seed-tool \
		"$ROOT/tests/data/subst/seed-tool.c" "$BUILD"/src/cache/*.o \
		"$BUILD"/src/core/*.o
	mkdir -p src
	echo '#define SCALE_BLOCK 256' >src/util.h
	cat >src/app.cu <<'EOF'
#include "util.h"

__global__ void scale(float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] *= a;
}

void
run(float *x, int n)
{
	scale<<<(n + SCALE_BLOCK - 1) / SCALE_BLOCK, SCALE_BLOCK>>>(x, 2.0f, n);
}
EOF
	cat >src/other.cu <<'EOF'
__global__ void twice(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] *= 2.0f;
}

void
run_twice(float *x, int n)
{
	twice<<<(n + 255) / 256, 256>>>(x, n);
}
EOF
	echo 'int main() { return 0; }' >main.cpp
	cat >variant.cu <<'EOF'
// scale plus a marker, the same results (verified by construction)
// ks-nvcc: definition
__global__ void scale(float *__restrict__ x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (n == 0x5eed5eed)
		return;
	if (i < n)
		x[i] *= a;
}
EOF
}

# The key of scale for sm_90 in the build of the words given: built once
# through ks-nvcc (recorded), then `ks analyze --manifest` on the record
# of the source $1.
key_of() {
	local src=$1 rec
	shift
	"$KS_NVCC_BIN" "$@" >/dev/null
	# shellcheck disable=SC2046
	rec=$(ls -t $(grep -l "\"source\": \"$TEST_DIR/$src\"" "$KS_DIR"/builds/*.json) | head -n 1)
	"$KS_BIN" analyze --record "$rec" --manifest >/dev/null
	find "$KS_DIR/manifests" -type f ! -name '*.lock' -exec cat {} + |
		awk '$1 == "kernel" && $3 == "sm_90" && $4 == "_Z5scalePffi" { print $2; exit }'
}

seed() { # key [variant] [arch]
	./seed-tool "$KS_DIR/cache" "$1" _Z5scalePffi "${3:-900}" "${2:-variant.cu}"
}

# The one rewritten TU under KS_DIR/tmp named $1.
tmp_tu() {
	find "$KS_DIR/tmp" -name "$1" -path '*/ks-nvcc.*'
}

test_one_source_gets_its_variant() {
	setup
	k=$(key_of src/app.cu -arch=sm_90 -O3 src/app.cu main.cpp -o app)
	expect_ne "" "$k" "key"
	seed "$k"
	: >"$FAKE_NVCC_LOG"
	"$KS_NVCC_BIN" -arch=sm_90 -O3 src/app.cu main.cpp -o app
	t=$(tmp_tu app.cu)
	expect_ne "" "$t" "the rewritten TU"
	# One nvcc call: the whole command, the source replaced in its place.
	expect_eq "-arch=sm_90|-O3|$t|main.cpp|-o|app" "$(nvcc_calls)"
	expect_contains "$(cat "$t")" "0x5eed5eed"
	expect_contains "$(cat app)" "fake object of main.cpp"
	expect_stat subst-compiled 1
	expect_stat subst-one-command 1
	expect_stat subst-kernel 1
	expect_stat subst-manifest-hit 1
	expect_stat one-command 2
	# Without -o: nvcc's a.out, named.
	: >"$FAKE_NVCC_LOG"
	"$KS_NVCC_BIN" -arch=sm_90 -O3 src/app.cu main.cpp
	expect_eq "-arch=sm_90|-O3|$t|main.cpp|-o|a.out" "$(nvcc_calls)"
	expect_file a.out
}

test_several_sources_the_kernel_in_the_second() {
	setup
	k=$(key_of src/app.cu -arch=sm_90 src/other.cu src/app.cu main.cpp -lm -o app)
	seed "$k"
	: >"$FAKE_NVCC_LOG"
	KS_LOG=$TEST_DIR/log "$KS_NVCC_BIN" -arch=sm_90 src/other.cu src/app.cu main.cpp -lm -o app
	t=$(tmp_tu app.cu)
	# (`ks analyze` asked nvcc for its macros and other.cu's headers.)
	expect_eq "-arch=sm_90|src/other.cu|$t|main.cpp|-lm|-o|app" "$(nvcc_calls | grep -e '-o|app$')"
	expect_eq "" "$(tmp_tu other.cu)" "a rewritten TU of the source without variants"
	expect_contains "$(cat log)" "substitution: _Z5scalePffi for sm_90 from $KS_DIR/cache/"
	# (sm_90's key and the five newer GPUs its PTX reaches)
	expect_contains "$(cat log)" "no verified variant for the 6 kernel keys of src/other.cu"
	# Each source's TU was looked up (other.cu's manifest through ks).
	expect_stat subst-ks-asked 1
	expect_stat subst-compiled 1
	# The same source's key as in a one-source build: its compile alone
	# is the same.
	k1=$(key_of src/app.cu -arch=sm_90 src/app.cu -o app1)
	expect_eq "$k" "$k1" "key of scale"
}

test_x_cu_keeps_the_source_name() {
	setup
	cp src/app.cu src/app.cpp
	k=$(key_of src/app.cpp -arch=sm_90 -x cu src/app.cpp -o app)
	seed "$k"
	: >"$FAKE_NVCC_LOG"
	"$KS_NVCC_BIN" -arch=sm_90 -x cu src/app.cpp -o app
	t=$(tmp_tu app.cpp)
	expect_ne "" "$t" "the rewritten TU, named as the source"
	expect_eq "-arch=sm_90|-x|cu|$t|-o|app" "$(nvcc_calls)"
}

test_a_miss_or_a_bad_entry_runs_the_exact_command() {
	setup
	k=$(key_of src/app.cu -arch=sm_90 src/app.cu main.cpp -o app)
	# An entry under the sm_90 key that says it was verified on sm_80.
	seed "$k" variant.cu 800
	: >"$FAKE_NVCC_LOG"
	"$KS_NVCC_BIN" -arch=sm_90 src/app.cu main.cpp -o app
	expect_eq "-arch=sm_90|src/app.cu|main.cpp|-o|app" "$(nvcc_calls)"
	expect_stat subst-entry-mismatch 1
	# A corrupt entry: ignored, counted, the command as given.
	seed "$k"
	d=$KS_DIR/cache/${k:0:2}/$k
	printf '\n// one more line\n' >>"$d/variant.cu"
	: >"$FAKE_NVCC_LOG"
	"$KS_NVCC_BIN" -arch=sm_90 src/app.cu main.cpp -o app
	expect_eq "-arch=sm_90|src/app.cu|main.cpp|-o|app" "$(nvcc_calls)"
	expect_stat cache-corrupt 1
	expect_stat subst-no-variant 2
	# A manifest miss whose `ks` fails: the command as given.
	seed "$k"
	rm -rf "$KS_DIR/manifests"
	printf '#!/bin/sh\nexit 1\n' >fake-ks
	chmod +x fake-ks
	: >"$FAKE_NVCC_LOG"
	KS_KS=$TEST_DIR/fake-ks "$KS_NVCC_BIN" -arch=sm_90 src/app.cu main.cpp -o app
	expect_eq "-arch=sm_90|src/app.cu|main.cpp|-o|app" "$(nvcc_calls)"
	expect_stat subst-fallback-ks-failed 1
	expect_stat subst-compiled 0
}

test_a_failure_in_one_source_runs_the_whole_original() {
	setup
	k=$(key_of src/app.cu -arch=sm_90 src/app.cu src/other.cu -o app)
	seed "$k"
	# other.cu's manifest is missing and `ks` cannot answer: app.cu has a
	# variant, but the command runs as given.
	printf '#!/bin/sh\nexit 1\n' >fake-ks
	chmod +x fake-ks
	: >"$FAKE_NVCC_LOG"
	KS_KS=$TEST_DIR/fake-ks "$KS_NVCC_BIN" -arch=sm_90 src/app.cu src/other.cu -o app
	expect_eq "-arch=sm_90|src/app.cu|src/other.cu|-o|app" "$(nvcc_calls)"
	expect_stat subst-fallback-ks-failed 1
	expect_stat subst-compiled 0
	# Under KS_STRICT=1 it is an error.
	find "$KS_DIR/manifests" -name '*.noanswer' -delete
	set +e
	KS_STRICT=1 KS_KS=$TEST_DIR/fake-ks "$KS_NVCC_BIN" -arch=sm_90 src/app.cu src/other.cu -o app 2>err.txt
	rc=$?
	set -e
	expect_eq 106 "$rc" "exit status under KS_STRICT"
	expect_contains "$(cat err.txt)" "substitution failed (ks-failed)"
}

test_a_failing_variant_compile_falls_back_unseen() {
	setup
	k=$(key_of src/app.cu -arch=sm_90 src/app.cu main.cpp -o app)
	seed "$k"
	# An nvcc that fails on a rewritten TU, loudly.
	rm fakebin/nvcc
	cat >fakebin/nvcc <<EOF
#!/bin/sh
case "\$*" in *ks-nvcc.*) echo "variant error" >&2; exit 2 ;; esac
exec "$FAKE_DIR/nvcc" "\$@"
EOF
	chmod +x fakebin/nvcc
	: >"$FAKE_NVCC_LOG"
	"$KS_NVCC_BIN" -arch=sm_90 src/app.cu main.cpp -o app 2>err.txt
	# The failed attempt is not seen; the original command ran after it.
	expect_eq "" "$(cat err.txt)" "stderr"
	expect_eq "-arch=sm_90|src/app.cu|main.cpp|-o|app" "$(nvcc_calls)"
	expect_contains "$(cat app)" "fake object of main.cpp"
	expect_stat subst-fallback-compile 1
	expect_stat subst-compiled 0
}

test_keep_builds_are_not_substituted() {
	setup
	k=$(key_of src/app.cu -arch=sm_90 src/app.cu main.cpp -o app)
	seed "$k"
	: >"$FAKE_NVCC_LOG"
	# The intermediates a -keep build leaves are the user's source's.
	"$KS_NVCC_BIN" -arch=sm_90 -keep src/app.cu main.cpp -o app
	"$KS_NVCC_BIN" -arch=sm_90 -keep -c src/app.cu -o app.o
	expect_eq "-arch=sm_90|-keep|src/app.cu|main.cpp|-o|app
-arch=sm_90|-keep|-c|src/app.cu|-o|app.o" "$(nvcc_calls)"
	expect_stat passthru-keep 2
	expect_stat subst-manifest-hit 0
}

test_subst_off_and_record_off() {
	setup
	k=$(key_of src/app.cu -arch=sm_90 src/app.cu main.cpp -o app)
	seed "$k"
	: >"$FAKE_NVCC_LOG"
	KS_SUBST=0 "$KS_NVCC_BIN" -arch=sm_90 src/app.cu main.cpp -o app
	KS_RECORD=0 "$KS_NVCC_BIN" -arch=sm_90 src/app.cu main.cpp -o app
	expect_eq "-arch=sm_90|src/app.cu|main.cpp|-o|app
-arch=sm_90|src/app.cu|main.cpp|-o|app" "$(nvcc_calls)"
	expect_stat subst-compiled 0
	# A source that cannot be recorded (named in NVCC_PREPEND_FLAGS):
	# the command as given.
	: >"$FAKE_NVCC_LOG"
	NVCC_PREPEND_FLAGS="src/other.cu" "$KS_NVCC_BIN" -arch=sm_90 src/app.cu -o app
	expect_eq "-arch=sm_90|src/app.cu|-o|app" "$(nvcc_calls)"
	expect_stat record-failed 1
	expect_stat subst-compiled 0
}
