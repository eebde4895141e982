# subst: ks-nvcc compiles verified variants from the cache, with the real
# nvcc (tests/suites/subst_onecmd.sh shows the words nvcc gets in
# one-command builds). Each test seeds the cache with a variant that is verified by
# construction (the original kernel plus a branch on the constant
# 0x5eed5eed = 1592614637, which nothing else contains) and looks for
# that constant in the per-arch PTX that a -keep build leaves: the real
# nvcc is reached through a toolkit copy whose bin/nvcc adds -keep (the
# user's command has none, so ks-nvcc acts on it as on any compile).

suite_probe() {
	have_real_nvcc || { echo "no nvcc"; return; }
	[ -f "$BUILD/src/cache/store.o" ] || echo "no $BUILD/src/cache/store.o (run make test)"
}

MARK=1592614637

# A toolkit whose nvcc keeps its temporaries in $KEEP_DIR; the seed tool;
# the sources: src/app.cu (kernel scale, a quoted include of src/util.h)
# and its variant.
setup() {
	local cuda f flags="" o
	cuda=$(cd "$(dirname "$(real_nvcc)")/.." && pwd -P)
	mkdir -p tk/bin kd src
	for f in "$cuda"/*; do [ "${f##*/}" = bin ] || ln -s "$f" tk/; done
	for f in "$cuda"/bin/*; do ln -s "$f" tk/bin/; done
	rm tk/bin/nvcc
	printf '#!/bin/sh\n[ -n "$KS_TEST_NVCC_SLEEP" ] && sleep "$KS_TEST_NVCC_SLEEP"\nexec %s/bin/nvcc -keep -keep-dir "$KEEP_DIR" "$@"\n' "$cuda" >tk/bin/nvcc
	chmod +x tk/bin/nvcc
	export KS_NVCC=$TEST_DIR/tk/bin/nvcc KEEP_DIR=$TEST_DIR/kd
	o=$(nm "$BUILD/src/core/buf.o" 2>/dev/null)
	case $o in *__asan*) flags="$flags -fsanitize=address" ;; esac
	case $o in *__ubsan*) flags="$flags -fsanitize=undefined" ;; esac
	# shellcheck disable=SC2086
	${CC:-cc} -std=c11 -D_GNU_SOURCE $flags -o seed-tool \
		"$ROOT/tests/data/subst/seed-tool.c" "$BUILD"/src/cache/*.o \
		"$BUILD"/src/core/*.o
	cat >src/util.h <<'EOF'
#define SCALE_BLOCK 256
EOF
	cat >src/app.cu <<'EOF'
#include <cstdio>
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

ARCHS2="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"

# The kernel key of scale for arch $1 in the build of the words after it:
# built once through ks-nvcc (recorded), then `ks analyze --manifest`.
key_for() {
	local arch=$1 rec
	shift
	"$KS_NVCC_BIN" "$@" >/dev/null
	rec=$(ls -t "$KS_DIR"/builds/*.json | head -n 1)
	"$KS_BIN" analyze --record "$rec" --manifest >/dev/null
	find "$KS_DIR/manifests" -type f ! -name '*.lock' -exec cat {} + |
		awk -v a="$arch" '$1 == "kernel" && $3 == a { print $2; exit }'
}

seed() { # key arch [variant] [cache dir]
	./seed-tool "${4:-$KS_DIR/cache}" "$1" _Z5scalePffi "$2" "${3:-variant.cu}"
}

# Lines of kd/$1 holding the marker.
marks() {
	grep -c -- "$MARK" "kd/$1" || true
}

test_a_seeded_variant_is_compiled_in() {
	setup
	k=$(key_for sm_90 -arch=sm_90 -c src/app.cu -o app.o)
	expect_ne "" "$k" "key"
	expect_eq 0 "$(marks app.ptx)" "marker before seeding"
	seed "$k" 900
	rm -rf kd/* app.o
	"$KS_NVCC_BIN" -arch=sm_90 -MD -c src/app.cu -o app.o
	expect_file app.o
	expect_eq 1 "$(marks app.ptx)" "marker in the PTX"
	expect_stat subst-compiled 1
	expect_stat subst-manifest-hit 1
	# The depfile names the user's files, as plain nvcc would.
	expect_contains "$(cat app.d)" "app.o : src/app.cu"
	expect_contains "$(cat app.d)" "src/util.h"
	expect_not_contains "$(cat app.d)" "ks-nvcc."
	expect_not_contains "$(cat app.d)" "$TEST_DIR/src"
	# KS_LOG says what was used.
	KS_LOG=$TEST_DIR/log "$KS_NVCC_BIN" -arch=sm_90 -c src/app.cu -o app.o
	expect_contains "$(cat log)" "substitution: _Z5scalePffi for sm_90 from $KS_DIR/cache/"
	# KS_SUBST=0 compiles the original.
	rm -rf kd/*
	KS_SUBST=0 "$KS_NVCC_BIN" -arch=sm_90 -c src/app.cu -o app.o
	expect_eq 0 "$(marks app.ptx)" "marker with KS_SUBST=0"
}

test_messages_point_at_the_users_file() {
	setup
	k=$(key_for sm_90 -arch=sm_90 -c src/app.cu -o app.o)
	seed "$k" 900
	# A host-side warning, on line 3 of the user's file.
	sed -i '3i #warning "look here"' src/app.cu
	k=$(key_for sm_90 -arch=sm_90 -c src/app.cu -o app.o 2>/dev/null)
	seed "$k" 900
	rm -rf kd/*
	"$KS_NVCC_BIN" -arch=sm_90 -c src/app.cu -o app.o 2>err.txt
	expect_eq 1 "$(marks app.ptx)" "marker"
	expect_contains "$(cat err.txt)" "src/app.cu:3"
	expect_not_contains "$(cat err.txt)" "ks-nvcc."
}

test_a_corrupt_entry_is_ignored_and_counted() {
	setup
	k=$(key_for sm_90 -arch=sm_90 -c src/app.cu -o app.o)
	seed "$k" 900
	d=$KS_DIR/cache/${k:0:2}/$k
	printf '\n// one more line\n' >>"$d/variant.cu"
	rm -rf kd/*
	"$KS_NVCC_BIN" -arch=sm_90 -c src/app.cu -o app.o
	expect_file app.o
	expect_eq 0 "$(marks app.ptx)" "marker from a corrupt entry"
	expect_stat cache-corrupt 1
	expect_stat subst-no-variant 1
	# Truncated to nothing: the same.
	: >"$d/variant.cu"
	"$KS_NVCC_BIN" -arch=sm_90 -c src/app.cu -o app.o
	expect_stat cache-corrupt 2
	"$KS_BIN" cache verify >out.txt 2>&1 && fail "verify passed a corrupt entry"
	expect_contains "$(cat out.txt)" "$k"
}

test_cache_list_names_each_entry() {
	setup
	k=$(key_for sm_90 -arch=sm_90 -c src/app.cu -o app.o)
	seed "$k" 900
	expect_eq "$k  sm_90  x2.00   _Z5scalePffi" "$("$KS_BIN" cache list)" "the line"
	"$KS_BIN" cache list --json >list.json
	expect_eq "$k _Z5scalePffi 900 2" "$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r) == 1, r
print(r[0]["key"], r[0]["symbol"], r[0]["arch"], r[0]["speedup"])' list.json)" "the JSON"
}

# The cache's own commands, on entries seeded under made-up keys (nothing
# is built): show, export, import (a corrupt entry skipped, the size
# limit kept), rm and clear, and their errors.
test_cache_show_export_import_rm_clear() {
	local k1=0123456789abcdef0123456789abcdef k2=fedcba9876543210fedcba9876543210 rc
	setup
	seed $k1 900
	./seed-tool "$KS_DIR/cache" $k2 _Z5scalePffi 800 variant.cu 3
	"$KS_BIN" cache show $k1 >show.txt
	expect_contains "$(cat show.txt)" '"arch": 900'
	expect_contains "$(cat show.txt)" "n == 0x5eed5eed"
	rc=0; "$KS_BIN" cache show 00000000000000000000000000000000 2>err.txt || rc=$?
	expect_eq 105 "$rc" "show of a missing key"
	expect_contains "$(cat err.txt)" "no verified entry"
	expect_eq "2 entries exported, 0 skipped" "$("$KS_BIN" cache export exp)" "export"
	printf '// one more line\n' >>"exp/${k1:0:2}/$k1/variant.cu"
	expect_eq "1 entry imported, 1 skipped" \
		"$(KS_DIR=$TEST_DIR/other "$KS_BIN" cache import exp 2>err.txt)" "import"
	expect_contains "$(cat err.txt)" "$k1: not imported (it fails its checks)"
	expect_eq "$k2  sm_80  x3.00   _Z5scalePffi" \
		"$(KS_DIR=$TEST_DIR/other "$KS_BIN" cache list)" "the imported cache"
	# A mistyped path is an error, not an empty cache.
	rc=0; "$KS_BIN" cache import no-such-dir 2>err.txt || rc=$?
	expect_eq 105 "$rc" "import of a missing folder"
	expect_contains "$(cat err.txt)" "no cache directory at 'no-such-dir'"
	: >afile
	rc=0; "$KS_BIN" cache export afile/sub 2>err.txt || rc=$?
	expect_eq 105 "$rc" "export under a file"
	expect_eq 1 "$(grep -c error err.txt)" "one error for the export"
	# An import keeps the size limit (two entries of about 1 KB each).
	"$KS_BIN" cache export exp2 >/dev/null
	KS_CACHE_MAX_SIZE=1K KS_DIR=$TEST_DIR/small "$KS_BIN" cache import exp2 >imp.txt
	expect_contains "$(cat imp.txt)" "removed to stay under 1K"
	[ "$(KS_DIR=$TEST_DIR/small "$KS_BIN" cache list | wc -l)" -lt 2 ] ||
		fail "both entries kept under a 1K limit"
	# rm and clear act on the primary cache.
	KS_DIR=$TEST_DIR/other "$KS_BIN" cache rm $k2
	expect_eq "" "$(KS_DIR=$TEST_DIR/other "$KS_BIN" cache list)" "after rm"
	rc=0; KS_DIR=$TEST_DIR/other "$KS_BIN" cache rm $k2 2>err.txt || rc=$?
	expect_eq 105 "$rc" "rm of a removed key"
	expect_eq "2 entries removed" "$("$KS_BIN" cache clear)" "clear"
	expect_eq "" "$("$KS_BIN" cache list)" "after clear"
}

test_a_variant_for_another_arch_is_not_applied() {
	setup
	k80=$(key_for sm_80 -arch=sm_80 -c src/app.cu -o app.o)
	seed "$k80" 800
	rm -rf kd/*
	"$KS_NVCC_BIN" -arch=sm_90 -c src/app.cu -o app.o
	expect_eq 0 "$(marks app.ptx)" "sm_80 variant in an sm_90 build"
	expect_stat subst-compiled 0
	# An entry under the sm_90 key that says it was verified on sm_80.
	k90=$(key_for sm_90 -arch=sm_90 -c src/app.cu -o app.o)
	seed "$k90" 800
	rm -rf kd/*
	"$KS_NVCC_BIN" -arch=sm_90 -c src/app.cu -o app.o
	expect_eq 0 "$(marks app.ptx)" "a mislabelled entry"
	expect_stat subst-entry-mismatch 1
}

test_a_multi_arch_build_gets_the_variant_only_for_its_arch() {
	setup
	# shellcheck disable=SC2086
	k=$(key_for sm_90 $ARCHS2 -c src/app.cu -o app.o)
	seed "$k" 900
	rm -rf kd/*
	# shellcheck disable=SC2086
	"$KS_NVCC_BIN" $ARCHS2 -c src/app.cu -o app.o
	expect_eq 1 "$(marks app.compute_90.ptx)" "marker for sm_90"
	expect_eq 0 "$(marks app.compute_80.ptx)" "marker for sm_80"
	expect_eq 1 "$(grep -c '.entry _Z5scalePffi' kd/app.compute_80.ptx)" "sm_80 keeps the kernel"
}

# A build that names no target (sm_75 and compute_75's PTX) runs on an
# sm_90 GPU by compiling that PTX at load time: a variant verified there is
# compiled in with sm_90's target added, and sm_75 keeps the original.
test_a_gpu_the_build_reaches_through_ptx_gets_its_target_added() {
	setup
	k=$(key_for sm_90 -c src/app.cu -o app.o)
	expect_ne "" "$k" "key for sm_90 of a build without -arch"
	seed "$k" 900
	rm -rf kd/* app.o
	KS_LOG=$TEST_DIR/log "$KS_NVCC_BIN" -c src/app.cu -o app.o
	expect_file app.o
	expect_eq 1 "$(marks app.compute_90.ptx)" "marker for sm_90"
	expect_eq 0 "$(marks app.compute_75.ptx)" "marker for sm_75"
	expect_file kd/app.compute_75.sm_75.cubin
	expect_file kd/app.compute_90.cubin
	expect_contains "$(cat log)" "reaches sm_90 only through its PTX"
	expect_stat subst-compiled 1
	# Named targets that reach it: only sm_90's is added.
	k=$(key_for sm_90 -arch=sm_80 -c src/app.cu -o app.o)
	seed "$k" 900
	rm -rf kd/*
	"$KS_NVCC_BIN" -arch=sm_80 -c src/app.cu -o app.o
	expect_eq 1 "$(marks app.compute_90.ptx)" "marker for sm_90 (-arch=sm_80)"
	expect_eq 0 "$(marks app.compute_80.ptx)" "marker for sm_80"
	expect_eq 0 "$(ls kd | grep -c compute_75)" "no sm_75 target added"
}

# A one-command build (compile and link): the variant reaches the PTX of
# its source; the other sources and the link are the command's own.
# An instance of a template kernel: its variant (an alias typedef among
# its helpers, a launcher) is compiled in for that instance alone, and
# every host launch goes through the launcher template.
test_an_instance_of_a_template_gets_its_variant() {
	local k k2 rec entry
	setup
	cat >src/tapp.cu <<'EOF'
template <class T> __global__ void tscale(T *p, T s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i] *= s;
}

template <class T> void run_t(T *p, int n)
{
	tscale<<<(n + 255) / 256, 256>>>(p, (T)2, n);
}

void go(float *f, double *d, int n)
{
	run_t(f, n);
	run_t(d, n);
	tscale<float><<<1, 32>>>(f, 3.0f, 32);
}
EOF
	cat >tvariant.cu <<'EOF'
// ks-nvcc: helpers
typedef float ks_tp_tscale_T;
// ks-nvcc: definition
__global__ void tscale(ks_tp_tscale_T *p, ks_tp_tscale_T s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (n == 0x5eed5eed)
		return;
	if (i < n)
		p[i] *= s;
}
// ks-nvcc: launcher
static void
ks_launch_tscale(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
		 ks_tp_tscale_T *p, ks_tp_tscale_T s, int n)
{
	tscale<<<grid, block, shmem, stream>>>(p, s, n);
}
EOF
	"$KS_NVCC_BIN" -arch=sm_90 -c src/tapp.cu -o tapp.o >/dev/null
	rec=$(ls -t "$KS_DIR"/builds/*.json | head -n 1)
	"$KS_BIN" analyze --record "$rec" --manifest >/dev/null
	k=$(find "$KS_DIR/manifests" -type f ! -name '*.lock' -exec cat {} + |
		awk '$1 == "kernel" && $3 == "sm_90" && $4 == "_Z6tscaleIfEvPT_S0_i" { print $2; exit }')
	expect_ne "" "$k" "key of tscale<float>"
	# an entry that does not name its instance is not used
	./seed-tool "$KS_DIR/cache" "$k" _Z6tscaleIfEvPT_S0_i 900 tvariant.cu 2
	rm -rf kd/* tapp.o
	KS_LOG=$TEST_DIR/log0 "$KS_NVCC_BIN" -arch=sm_90 -c src/tapp.cu -o tapp.o
	expect_eq 0 "$(marks tapp.ptx)" "marker without the instance named"
	expect_contains "$(cat log0)" "an instance of a template whose entry does not name its template arguments"
	./seed-tool "$KS_DIR/cache" "$k" _Z6tscaleIfEvPT_S0_i 900 tvariant.cu 2 float
	rm -rf kd/* tapp.o
	KS_LOG=$TEST_DIR/log "$KS_NVCC_BIN" -arch=sm_90 -c src/tapp.cu -o tapp.o
	expect_file tapp.o
	expect_contains "$(cat log)" "substitution: _Z6tscaleIfEvPT_S0_i for sm_90 from"
	expect_eq 1 "$(marks tapp.ptx)" "marker in the PTX"
	entry=$(awk '/\.entry/ { e = $3 } /'"$MARK"'/ { print e }' kd/tapp.ptx)
	expect_eq "_Z6tscaleIfEvPT_S0_i(" "$entry" "the entry holding the variant"
	expect_eq 2 "$(grep -c '\.entry _Z6tscaleI[fd]EvPT_S0_i' kd/tapp.ptx)" "both instances"
	# the host code calls the launcher template
	grep -rq 'ks_launch_tscale' kd/ || fail "no launcher template in the host code"
	# a variant of the double instance with helpers too, one of the same
	# name as the float variant's (its alias): renamed in the later, both
	# compiled in
	k2=$(find "$KS_DIR/manifests" -type f ! -name '*.lock' -exec cat {} + |
		awk '$1 == "kernel" && $3 == "sm_90" && $4 == "_Z6tscaleIdEvPT_S0_i" { print $2; exit }')
	expect_ne "" "$k2" "key of tscale<double>"
	cat >dvariant.cu <<'EOF'
// ks-nvcc: helpers
typedef double ks_tp_tscale_T;
__device__ static double twice_d(double v) { return v; }
// ks-nvcc: definition
__global__ void tscale(ks_tp_tscale_T *p, ks_tp_tscale_T s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (n == 0x5eed5eee)
		return;
	if (i < n)
		p[i] = twice_d(p[i]) * s;
}
EOF
	./seed-tool "$KS_DIR/cache" "$k2" _Z6tscaleIdEvPT_S0_i 900 dvariant.cu 3 double
	rm -rf kd/* tapp.o
	KS_LOG=$TEST_DIR/log2 "$KS_NVCC_BIN" -arch=sm_90 -c src/tapp.cu -o tapp.o
	expect_file tapp.o
	expect_contains "$(cat log2)" "substitution: _Z6tscaleIfEvPT_S0_i for sm_90 from"
	expect_contains "$(cat log2)" "substitution: _Z6tscaleIdEvPT_S0_i for sm_90 from"
	expect_eq 1 "$(marks tapp.ptx)" "the float variant's marker"
	expect_eq 1 "$(grep -c 1592614638 kd/tapp.ptx || true)" "the double variant's marker"
	grep -rq 'typedef double ks_tp_tscale_T_i1;' kd/ || fail "the double variant's alias not renamed"
	# helpers the rewriter cannot read (a namespace) beside the float
	# variant's: the faster of the two alone
	cat >dvariant.cu <<'EOF'
// ks-nvcc: helpers
namespace { __device__ double twice_d(double v) { return v; } }
// ks-nvcc: definition
__global__ void tscale(double *p, double s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (n == 0x5eed5eee)
		return;
	if (i < n)
		p[i] = twice_d(p[i]) * s;
}
EOF
	./seed-tool "$KS_DIR/cache" "$k2" _Z6tscaleIdEvPT_S0_i 900 dvariant.cu 3 double
	rm -rf kd/* tapp.o
	KS_LOG=$TEST_DIR/log3 "$KS_NVCC_BIN" -arch=sm_90 -c src/tapp.cu -o tapp.o
	expect_file tapp.o
	expect_contains "$(cat log3)" "_Z6tscaleIfEvPT_S0_i: not used, the variant of another instance of tscale is faster and their helpers cannot be told apart"
	expect_eq 0 "$(marks tapp.ptx)" "the float variant's marker"
	expect_eq 1 "$(grep -c 1592614638 kd/tapp.ptx || true)" "the double variant's marker"
}

test_a_one_command_build_gets_the_variant() {
	setup
	printf 'void run(float *x, int n);\nint main() { run(0, 0); return 0; }\n' >src/main.cpp
	printf '__global__ void twice(float *x) { x[0] *= 2; }\n' >src/other.cu
	k=$(key_for sm_90 -arch=sm_90 -MD src/main.cpp src/other.cu src/app.cu -o app)
	expect_ne "" "$k" "key"
	seed "$k" 900
	rm -rf kd/* app app.d
	"$KS_NVCC_BIN" -arch=sm_90 -MD src/main.cpp src/other.cu src/app.cu -o app
	expect_file app
	expect_eq 1 "$(marks app.ptx)" "marker in the PTX of app.cu"
	expect_eq 0 "$(marks other.ptx)" "marker in the PTX of other.cu"
	expect_eq 1 "$(grep -c '.entry _Z5twicePf' kd/other.ptx)" "other.cu's kernel"
	expect_stat subst-one-command 1
	# nvcc writes the depfile of the last source: app.cu, as the user
	# named it.
	expect_contains "$(cat app.d)" "src/app.cu"
	expect_contains "$(cat app.d)" "src/util.h"
	expect_not_contains "$(cat app.d)" "ks-nvcc."
}

test_secondary_cache_read_only() {
	setup
	k=$(key_for sm_90 -arch=sm_90 -c src/app.cu -o app.o)
	seed "$k" 900 variant.cu "$TEST_DIR/team"
	chmod -R a-w team
	rm -rf kd/*
	KS_CACHE_SECONDARY=/nonexistent:$TEST_DIR/team "$KS_NVCC_BIN" -arch=sm_90 -c src/app.cu -o app.o
	expect_eq 1 "$(marks app.ptx)" "marker from the secondary cache"
	expect_no_file "$KS_DIR/cache/${k:0:2}"
	chmod -R u+w team
}

test_a_manifest_miss_asks_ks_once_then_hits() {
	setup
	k=$(key_for sm_90 -arch=sm_90 -c src/app.cu -o app.o)
	seed "$k" 900
	rm -rf "$KS_DIR/manifests" kd/*
	"$KS_NVCC_BIN" -arch=sm_90 -c src/app.cu -o app.o
	expect_eq 1 "$(marks app.ptx)" "marker after asking ks"
	expect_stat subst-ks-asked 1
	"$KS_NVCC_BIN" -arch=sm_90 -c src/app.cu -o app.o
	expect_stat subst-ks-asked 1
	expect_stat subst-manifest-hit 1
}

test_an_empty_cache_never_starts_ks() {
	setup
	printf '#!/bin/sh\ntouch %s/ks-ran\nexit 1\n' "$TEST_DIR" >fake-ks
	chmod +x fake-ks
	KS_KS=$TEST_DIR/fake-ks "$KS_NVCC_BIN" -arch=sm_90 -c src/app.cu -o app.o
	expect_file app.o
	expect_no_file ks-ran
	expect_stat subst-manifest-miss 0
	# With something in the cache, it is asked.
	seed 0123456789abcdef0123456789abcdef 900
	KS_KS=$TEST_DIR/fake-ks "$KS_NVCC_BIN" -arch=sm_90 -c src/app.cu -o app.o
	expect_file ks-ran
	expect_stat subst-fallback-ks-failed 1
}

# Every forced failure compiles the original: the build succeeds, with
# the same stdout and stderr as plain nvcc, and a counter says why.
test_forced_failures_fall_back_to_the_original() {
	setup
	k=$(key_for sm_90 -arch=sm_90 -c src/app.cu -o app.o)
	"$(real_nvcc)" -arch=sm_90 -c src/app.cu -o plain.o 2>plain.err
	# A variant that does not compile.
	sed 's/return;/return/; s/x\[i\] \*= a;/x[i] *= a +;/' variant.cu >bad.cu
	seed "$k" 900 bad.cu
	"$KS_NVCC_BIN" -arch=sm_90 -c src/app.cu -o app.o 2>err.txt
	expect_file app.o
	expect_eq "$(cat plain.err)" "$(cat err.txt)" "stderr after a failed variant"
	expect_stat subst-fallback-compile 1
	seed "$k" 900
	# No room for the rewritten TU (KS_DIR/tmp is a file).
	rm -rf "$KS_DIR/tmp"
	echo x >"$KS_DIR/tmp"
	"$KS_NVCC_BIN" -arch=sm_90 -c src/app.cu -o app.o
	expect_stat subst-fallback-tmp 1
	rm "$KS_DIR/tmp"
	# A kernel of the same name in a namespace: the lexical scan cannot
	# tell which definition is the variant's.
	cp src/app.cu keep.cu
	printf 'namespace other {\n__global__ void scale(float *x, float a, int n) {}\n}\n' >>src/app.cu
	# The new kernel is not in scale's closure: the key stays, so the
	# build inside key_for already tried and fell back.
	k2=$(key_for sm_90 -arch=sm_90 -c src/app.cu -o app.o)
	expect_eq "$k" "$k2" "key of scale"
	"$KS_NVCC_BIN" -arch=sm_90 -c src/app.cu -o app.o
	expect_file app.o
	expect_stat subst-fallback-scan 2
	cp keep.cu src/app.cu
	# `ks` past its time bound, on a manifest miss.
	rm -rf "$KS_DIR/manifests"
	printf '#!/bin/sh\nsleep 5\n' >slow-ks
	chmod +x slow-ks
	KS_KS=$TEST_DIR/slow-ks KS_SUBST_TIMEOUT=300 "$KS_NVCC_BIN" -arch=sm_90 -c src/app.cu -o app.o
	expect_stat subst-fallback-ks-timeout 1
	# Under KS_STRICT=1 a fallback is an error.
	rm -rf "$KS_DIR/manifests"
	set +e
	KS_STRICT=1 KS_KS=$TEST_DIR/slow-ks KS_SUBST_TIMEOUT=300 "$KS_NVCC_BIN" -arch=sm_90 -c src/app.cu -o app.o 2>err.txt
	rc=$?
	set -e
	expect_eq 106 "$rc" "exit status under KS_STRICT"
	expect_contains "$(cat err.txt)" "substitution failed (ks-timeout)"
}

# Builds and ks cache commands at once: every build succeeds and every
# object holds the original or the variant, whole; the cache verifies.
test_concurrent_builds_and_cache_commands() {
	setup
	# The plain nvcc: parallel -keep builds would share their keep dir.
	KS_NVCC=$(real_nvcc)
	k=$(key_for sm_90 -arch=sm_90 -c src/app.cu -o app.o)
	seed "$k" 900
	pids=""
	for i in 1 2 3; do
		(trap - EXIT; for j in 1 2; do "$KS_NVCC_BIN" -arch=sm_90 -c src/app.cu -o "o$i$j.o" || exit 1; done) &
		pids="$pids $!"
	done
	(trap - EXIT; for j in 1 2 3 4 5 6; do
		"$KS_BIN" cache rm "$k" >/dev/null 2>&1 || true
		seed "$k" 900
		"$KS_BIN" cache list >/dev/null
		"$KS_BIN" cache verify >/dev/null || exit 1
	done) &
	pids="$pids $!"
	for p in $pids; do wait "$p" || fail "a concurrent job failed"; done
	for i in 1 2 3; do for j in 1 2; do expect_file "o$i$j.o"; done; done
	"$KS_BIN" cache verify
	expect_stat cache-corrupt 0
	expect_eq 0 "$(find "$KS_DIR/cache" -name '*.tmp.*' | wc -l)" "temporaries left"
}

# Two instances of one template, each with a builtin transform's variant:
# the transforms name their helpers after the kernel (`ks_sb_tscale`), so
# the two variants declare the same names; the later one's are renamed,
# both are compiled in and the object builds.
test_two_instances_with_a_transforms_helpers() {
	local k k2 rec
	have_libclang || skip_test "no libclang 16-19 (see ks doctor)"
	setup
	cat >src/tapp.cu <<'EOF'
template <class T> __global__ void tscale(const T *x, T *y, T s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = x[i] * s;
}

void go(const float *xf, float *yf, const double *xd, double *yd, int n)
{
	tscale<<<(n + 255) / 256, 256>>>(xf, yf, 2.0f, n);
	tscale<<<(n + 255) / 256, 256>>>(xd, yd, 2.0, n);
}
EOF
	"$KS_BIN" transform 'src/tapp.cu:tscale<float>' --skill vectorize_memory \
		--arch sm_90 -o fv.cu
	"$KS_BIN" transform 'src/tapp.cu:tscale<double>' --skill vectorize_memory \
		--arch sm_90 -o dv.cu
	grep -q '^ks_sb_tscale(' fv.cu || fail "no helper ks_sb_tscale in the float variant"
	grep -q '^ks_sb_tscale(' dv.cu || fail "no helper ks_sb_tscale in the double variant"
	"$KS_NVCC_BIN" -arch=sm_90 -c src/tapp.cu -o tapp.o >/dev/null
	rec=$(ls -t "$KS_DIR"/builds/*.json | head -n 1)
	"$KS_BIN" analyze --record "$rec" --manifest >/dev/null
	k=$(find "$KS_DIR/manifests" -type f ! -name '*.lock' -exec cat {} + |
		awk '$1 == "kernel" && $3 == "sm_90" && $4 ~ /^_Z6tscaleIfE/ { print $2; exit }')
	k2=$(find "$KS_DIR/manifests" -type f ! -name '*.lock' -exec cat {} + |
		awk '$1 == "kernel" && $3 == "sm_90" && $4 ~ /^_Z6tscaleIdE/ { print $2; exit }')
	expect_ne "" "$k" "key of tscale<float>"
	expect_ne "" "$k2" "key of tscale<double>"
	./seed-tool "$KS_DIR/cache" "$k" _Z6tscaleIfEvPKT_PS0_S0_i 900 fv.cu 2 float
	./seed-tool "$KS_DIR/cache" "$k2" _Z6tscaleIdEvPKT_PS0_S0_i 900 dv.cu 3 double
	rm -rf kd/* tapp.o
	KS_LOG=$TEST_DIR/log "$KS_NVCC_BIN" -arch=sm_90 -c src/tapp.cu -o tapp.o
	expect_file tapp.o
	expect_contains "$(cat log)" "substitution: _Z6tscaleIfEvPKT_PS0_S0_i for sm_90 from"
	expect_contains "$(cat log)" "substitution: _Z6tscaleIdEvPKT_PS0_S0_i for sm_90 from"
	expect_not_contains "$(cat log)" "cannot rewrite"
	grep -rq 'ks_sb_tscale_i1' kd/ || fail "the later variant's helpers not renamed"
	# both instances' variant kernels are in the sm_90 image
	expect_eq 2 "$(grep -c '\.entry _Z1[0-9]ks_xf_tscale' kd/tapp.ptx || true)" \
		"the two variants' helper kernels"
}

# A kernel defined in a header the TU includes (its quoted include
# replaced by the header's text): its variant is compiled in, the
# header's own quoted include still found beside it, the depfile still
# names the header, and a diagnostic in the header's text names the
# header's file and line as plain nvcc does.
test_a_kernel_defined_in_a_header_gets_its_variant() {
	local k
	setup
	mkdir -p src/kern
	cat >src/kern/scale.cuh <<'EOF'
#pragma once
#include "block.h"
#warning "line 3 of the header"
__global__ void scale(float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] *= a;
}
EOF
	printf '#define HDR_BLOCK 256\n' >src/kern/block.h
	cat >src/happ.cu <<'EOF'
#include "util.h"
#include "kern/scale.cuh"

void
run(float *x, int n)
{
	scale<<<(n + HDR_BLOCK - 1) / HDR_BLOCK, HDR_BLOCK>>>(x, 2.0f, n);
}
EOF
	k=$(key_for sm_90 -arch=sm_90 -c src/happ.cu -o happ.o)
	expect_ne "" "$k" "key of scale"
	seed "$k" 900
	rm -rf kd/* happ.o
	KS_LOG=$TEST_DIR/log "$KS_NVCC_BIN" -arch=sm_90 -MD -c src/happ.cu -o happ.o 2>err.txt
	expect_file happ.o
	expect_contains "$(cat log)" "substitution: _Z5scalePffi for sm_90 from"
	expect_contains "$(cat log)" "is defined in $TEST_DIR/src/kern/scale.cuh: that header brought into src/happ.cu"
	expect_eq 1 "$(marks happ.ptx)" "marker in the PTX"
	# named as plain nvcc names them
	expect_contains "$(cat err.txt)" "src/kern/scale.cuh:3:"
	expect_contains "$(cat happ.d)" " src/kern/scale.cuh "
	expect_contains "$(cat happ.d)" " src/kern/block.h"
	expect_contains "$(cat happ.d)" " src/util.h "
	expect_not_contains "$(cat happ.d)" "ks-nvcc."
	expect_not_contains "$(cat happ.d)" "$TEST_DIR/src"
}

# The same kernel's header reached through another header (happ.cu
# includes kern/all.h, which includes scale.cuh beside it): both headers
# brought into the TU a level at a time; diagnostics after each include
# name the file and line they are in, and the depfile names every header
# as plain nvcc does. Included a second time as well, it is left alone.
test_a_kernel_defined_in_a_header_through_another_header_gets_its_variant() {
	local k
	setup
	mkdir -p src/kern
	cat >src/kern/scale.cuh <<'EOF'
#pragma once
#include "block.h"
#warning "line 3 of the header"
__global__ void scale(float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		x[i] *= a;
}
EOF
	printf '#define HDR_BLOCK 256\n' >src/kern/block.h
	cat >src/kern/all.h <<'EOF'
#pragma once
#include "scale.cuh"
#warning "line 3 of all.h"
EOF
	cat >src/happ.cu <<'EOF'
#include "util.h"
#include "kern/all.h"
#warning "line 3 of happ.cu"

void
run(float *x, int n)
{
	scale<<<(n + HDR_BLOCK - 1) / HDR_BLOCK, HDR_BLOCK>>>(x, 2.0f, n);
}
EOF
	k=$(key_for sm_90 -arch=sm_90 -c src/happ.cu -o happ.o)
	expect_ne "" "$k" "key of scale"
	seed "$k" 900
	rm -rf kd/* happ.o
	KS_LOG=$TEST_DIR/log "$KS_NVCC_BIN" -arch=sm_90 -MD -c src/happ.cu -o happ.o 2>err.txt
	expect_file happ.o
	expect_contains "$(cat log)" "substitution: _Z5scalePffi for sm_90 from"
	expect_contains "$(cat log)" "is defined in $TEST_DIR/src/kern/scale.cuh, reached through $TEST_DIR/src/kern/all.h: that header brought into src/happ.cu"
	expect_contains "$(cat log)" "is defined in $TEST_DIR/src/kern/scale.cuh: that header brought into src/happ.cu"
	expect_eq 1 "$(marks happ.ptx)" "marker in the PTX"
	# named as plain nvcc names them, each line in its own file
	expect_contains "$(cat err.txt)" "src/kern/scale.cuh:3:"
	expect_contains "$(cat err.txt)" "src/kern/all.h:3:"
	expect_contains "$(cat err.txt)" "src/happ.cu:3:"
	expect_contains "$(cat happ.d)" " src/kern/all.h "
	expect_eq 1 "$(grep -c 'src/happ.cu' happ.d)" "the TU named once, as plain nvcc does"
	expect_contains "$(cat happ.d)" " src/kern/scale.cuh "
	expect_contains "$(cat happ.d)" " src/kern/block.h"
	expect_contains "$(cat happ.d)" " src/util.h "
	expect_not_contains "$(cat happ.d)" "ks-nvcc."
	expect_not_contains "$(cat happ.d)" "$TEST_DIR/src"
	# the header also included by the TU itself: not substituted, said why
	sed -i 's|#include "util.h"|#include "util.h"\n#include "kern/scale.cuh"|' src/happ.cu
	rm -rf kd/* happ.o
	KS_LOG=$TEST_DIR/log2 "$KS_NVCC_BIN" -arch=sm_90 -c src/happ.cu -o happ.o 2>/dev/null
	expect_file happ.o
	expect_eq 0 "$(marks happ.ptx)" "no marker for a header included twice"
	expect_contains "$(cat log2)" "is included 2 times"
}

# A template kernel defined in a header the TU includes: its instance's
# variant is compiled in through the header brought into the TU.
test_an_instance_of_a_template_in_a_header() {
	local k rec
	setup
	cat >src/tk.cuh <<'EOF'
#pragma once
template <class T> __global__ void tscale(T *p, T s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i] *= s;
}
EOF
	cat >src/tapp.cu <<'EOF'
#include "tk.cuh"

void go(float *f, double *d, int n)
{
	tscale<<<(n + 255) / 256, 256>>>(f, 2.0f, n);
	tscale<<<(n + 255) / 256, 256>>>(d, 2.0, n);
}
EOF
	cat >tvariant.cu <<'EOF'
// ks-nvcc: definition
__global__ void tscale(float *p, float s, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (n == 0x5eed5eed)
		return;
	if (i < n)
		p[i] *= s;
}
EOF
	"$KS_NVCC_BIN" -arch=sm_90 -c src/tapp.cu -o tapp.o >/dev/null
	rec=$(ls -t "$KS_DIR"/builds/*.json | head -n 1)
	"$KS_BIN" analyze --record "$rec" --manifest >/dev/null
	k=$(find "$KS_DIR/manifests" -type f ! -name '*.lock' -exec cat {} + |
		awk '$1 == "kernel" && $3 == "sm_90" && $4 == "_Z6tscaleIfEvPT_S0_i" { print $2; exit }')
	expect_ne "" "$k" "key of tscale<float>"
	./seed-tool "$KS_DIR/cache" "$k" _Z6tscaleIfEvPT_S0_i 900 tvariant.cu 2 float
	rm -rf kd/* tapp.o
	KS_LOG=$TEST_DIR/log "$KS_NVCC_BIN" -arch=sm_90 -c src/tapp.cu -o tapp.o
	expect_file tapp.o
	expect_contains "$(cat log)" "that header brought into src/tapp.cu"
	expect_contains "$(cat log)" "substitution: _Z6tscaleIfEvPT_S0_i for sm_90 from"
	expect_eq 1 "$(marks tapp.ptx)" "marker in the PTX"
	expect_eq 2 "$(grep -c '\.entry _Z6tscaleI[fd]EvPT_S0_i' kd/tapp.ptx)" "both instances"
}
