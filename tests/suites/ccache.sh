# ccache: the stacking recipe of docs/MANUAL.md ("Compiler caches"):
# ks-nvcc outermost, ccache as its compiler (KS_NVCC names a ccache
# masquerade link called nvcc). ccache then hashes the TU that is really
# compiled, the original or the rewritten one, so adding or removing a
# variant can never be answered with the other's object. Checked with the
# real ccache and the real nvcc: the device code (.nv_fatbin) of each
# build is compared with the builds before it.

suite_probe() {
	have_real_nvcc || { echo "no nvcc"; return; }
	command -v ccache >/dev/null 2>&1 || { echo "no ccache (make deps installs it)"; return; }
	[ -f "$BUILD/src/cache/store.o" ] || echo "no $BUILD/src/cache/store.o (run make test)"
}

fatbin() { # object -> its .nv_fatbin section in object.fatbin
	objcopy -O binary --only-section=.nv_fatbin "$1" "$1.fatbin"
	echo "$1.fatbin"
}

ccache_hits() {
	ccache --print-stats | awk -F'\t' '$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { n += $2 } END { print n + 0 }'
}

test_adding_and_removing_a_variant_never_serves_a_stale_object() {
	local k
	mkdir -p ccbin src
	ln -s "$(command -v ccache)" ccbin/nvcc
	export CCACHE_DIR=$TEST_DIR/ccache PATH=$(dirname "$(real_nvcc)"):$PATH
	export KS_NVCC=$TEST_DIR/ccbin/nvcc
	${CC:-cc} -std=c11 -D_GNU_SOURCE -o seed-tool "$ROOT/tests/data/subst/seed-tool.c" \
		"$BUILD"/src/cache/*.o "$BUILD"/src/core/*.o $(nm "$BUILD/src/core/buf.o" |
		grep -q __asan && echo -fsanitize=address) $(nm "$BUILD/src/core/buf.o" |
		grep -q __ubsan && echo -fsanitize=undefined)
	write_kernel src/app.cu
	cat >variant.cu <<'EOF'
// ks-nvcc: definition
__global__ void scale(float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (n == 0x5eed5eed)
		return;
	if (i < n)
		x[i] *= a;
}
EOF
	# 1: the original, through ccache (a miss).
	"$KS_NVCC_BIN" -arch=sm_90 -c src/app.cu -o orig.o
	"$KS_BIN" analyze --record "$(ls "$KS_DIR"/builds/*.json)" --manifest >/dev/null
	k=$(find "$KS_DIR/manifests" -type f ! -name '*.lock' -exec cat {} + |
		awk '$1 == "kernel" && $3 == "sm_90" { print $2; exit }')
	expect_ne "" "$k" "key"
	expect_eq 0 "$(ccache_hits)" "hits before"
	# 2: a variant added: the rewritten TU is compiled (a ccache miss).
	./seed-tool "$KS_DIR/cache" "$k" _Z5scalePffi 900 variant.cu
	"$KS_NVCC_BIN" -arch=sm_90 -c src/app.cu -o var.o
	expect_stat subst-compiled 1
	expect_eq 0 "$(ccache_hits)" "a variant added is no hit"
	cmp -s "$(fatbin orig.o)" "$(fatbin var.o)" && fail "the variant's object is the original's"
	# 3: the variant removed: the original again, from ccache.
	"$KS_BIN" cache rm "$k"
	"$KS_NVCC_BIN" -arch=sm_90 -c src/app.cu -o again.o
	expect_eq 1 "$(ccache_hits)" "the original from ccache"
	expect_same_file "$(fatbin orig.o)" "$(fatbin again.o)"
	# 4: the variant back: its object from ccache, not the original's.
	./seed-tool "$KS_DIR/cache" "$k" _Z5scalePffi 900 variant.cu
	"$KS_NVCC_BIN" -arch=sm_90 -c src/app.cu -o var2.o
	expect_eq 2 "$(ccache_hits)" "the variant from ccache"
	expect_same_file "$(fatbin var.o)" "$(fatbin var2.o)"
	expect_stat subst-compiled 2
}
