# xf_pool: pool_window_rows through `ks transform`. The pooling kernels of
# tests/data/transforms/pool.cu (constant 3x3 window with the column loop
# outside, average counting the padding with window and stride as
# parameters, L2 pooling through a local pointer) and the bench's maxpool
# and avgpool are recognized; their TUs compile with the real nvcc for
# sm_80 and sm_90 with warnings as errors (the variant's kernels, with
# 16-byte loads, in the sm_90 code only); on the CPU (pool_emu.h on
# cuda_emu.h: blocks one after another, threads as fibers switched at the barriers) each
# variant gives the original's outputs bit for bit at odd sizes, aligned
# and misaligned, with the variant's kernel launched (and the original
# where the window's parameters are none of the instances'), under
# AddressSanitizer where g++ has it; a variant with its window shifted
# does not; look-alikes are declined with their reason. Needs libclang
# (16-19), nvcc for the compile tests and a C++20 g++ for the CPU checks.

DATA=$ROOT/tests/data/transforms
ARCHS="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"
STRICT="-Werror all-warnings -Xcompiler -Wall,-Wextra,-Wshadow,-Werror"

suite_probe() {
	"$KS_BIN" transform "$DATA/pool.cu:maxpool_const" --skill pool_window_rows \
		>/dev/null 2>probe.err ||
		echo "ks transform cannot parse here: $(head -c 200 probe.err)"
	rm -f probe.err
}

# Transform kernel $2 of $1 (--param k=v after) into tu-$2.cu and compile
# it for both archs, keeping the PTX in kd/.
tu() {
	local src=$1 k=$2 p args=()
	shift 2
	for p in "$@"; do args+=(--param "$p"); done
	"$KS_BIN" transform "$src:$k" --skill pool_window_rows --arch sm_90 "${args[@]}" \
		--tu -o "tu-$k.cu" -- -I.
	rm -rf kd
	mkdir kd
	# shellcheck disable=SC2086
	"$(real_nvcc)" $ARCHS $STRICT -I. -keep -keep-dir kd -c "tu-$k.cu" -o "tu-$k.o"
}

# Lines of PTX file $1 matching $3 inside the entries whose name has $2.
entry_count() {
	awk -v k="$2" -v pat="$3" '/\.entry / { on = index($0, k) > 0 } on && $0 ~ pat { n++ }
		END { print n + 0 }' "$1"
}

have_emu() {
	command -v g++ >/dev/null && command -v python3 >/dev/null &&
		echo 'int main(){}' | g++ -std=c++20 -x c++ - -o /dev/null 2>/dev/null
}

# -fsanitize=address when this g++ links it (a read past x's end fails).
asan_flag() {
	if echo 'int main(){}' | g++ -std=c++20 -fsanitize=address -x c++ - -o /dev/null \
		2>/dev/null; then
		echo -fsanitize=address
	fi
}

# The variant of kernel $2 of $1 (--param k=v after) as variant.inc, its
# launches rewritten for pool_emu.h, built into check-$2.
emu_build() {
	local src=$1 k=$2 p args=()
	shift 2
	for p in "$@"; do args+=(--param "$p"); done
	"$KS_BIN" transform "$src:$k" --skill pool_window_rows "${args[@]}" -- -I. >"v-$k.cu"
	rewrite_launches "v-$k.cu"
	# shellcheck disable=SC2046
	# shellcheck disable=SC2086
	g++ -std=c++20 -O1 $(asan_flag) -pthread -Wno-unknown-pragmas -I. -DKS_K="$k" \
		${EMU_DEFS:-} pool_check.cpp -o "check-$k"
}

rewrite_launches() {
	python3 - "$1" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
s = re.sub(r'(\w+(?:<[^<>;]*>)?)<<<(.*?)>>>\(', r'ks_pl_emu_cfg(\1, \2)(', s, flags=re.S)
open('variant.inc', 'w').write(s)
PY
}

test_pooling_kernels_compile_for_both_archs() {
	have_real_nvcc || skip_test "no nvcc"
	cp "$DATA/pool.cu" .
	for k in maxpool_const avgpool_incl l2pool; do
		tu pool.cu $k
		expect_ne 0 "$(entry_count kd/tu-$k.compute_90.ptx ks_pl_$k 'ld\.global\.nc\.v4')" \
			"$k: 16-byte window loads in the sm_90 PTX"
		expect_eq 0 "$(entry_count kd/tu-$k.compute_80.ptx ks_pl_$k 'ld\.global')" \
			"$k: no variant kernel in the sm_80 PTX (the variant is for sm_90)"
		expect_eq 0 "$(entry_count kd/tu-$k.compute_90.ptx ks_pl_$k '(div|rem)\.[us]64')" \
			"$k: 64-bit divisions in the variant"
	done
	tu pool.cu avgpool_incl vo=8 block=128
	tu pool.cu l2pool vo=1 block=512
}

test_bench_pooling_compiles() {
	have_real_nvcc || skip_test "no nvcc"
	local p
	for p in maxpool avgpool; do
		mkdir "$p"
		cp "$ROOT/bench/$p/main.cu" "$ROOT/bench/$p/ref.h" "$ROOT/bench/common/bench.h" "$p/"
		(cd "$p" && tu main.cu ${p}_kernel) || fail "$p did not compile"
		grep -q "ks_pl_${p}_kernel<3, 3, 2, KS_PL_V, 4, 3><<<" "$p/tu-${p}_kernel.cu" ||
			fail "$p: the launcher does not launch the window kernel"
		expect_ne 0 "$(entry_count $p/kd/tu-${p}_kernel.compute_90.ptx ks_pl_ 'st\.global\.v4')" \
			"$p: 16-byte stores"
	done
}

test_variants_match_the_original_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	cp "$DATA/pool.cu" "$DATA/cuda_emu.h" "$DATA/pool_emu.h" "$DATA/pool_check.cpp" .
	local spec k shape pts want out
	# kernel : N C H W K S P [block [offset]] : points : launched
	for spec in "maxpool_const:2 3 13 11 3 2 1::variant" \
		    "maxpool_const:1 2 16 16 3 2 1::variant" \
		    "maxpool_const:1 1 9 40 3 2 1 128 1:vo=8:variant" \
		    "avgpool_incl:2 3 13 11 3 2 1::variant" \
		    "avgpool_incl:1 2 16 16 3 2 1 96:vo=2:variant" \
		    "avgpool_incl:2 2 8 8 2 2 0::variant" \
		    "avgpool_incl:1 3 9 13 2 2 0:vo=8:variant" \
		    "avgpool_incl:1 1 12 16 2 2 1 64 2::variant" \
		    "avgpool_incl:1 3 9 13 3 1 1:vo=8:variant" \
		    "avgpool_incl:1 2 16 16 3 2 2::variant" \
		    "avgpool_incl:1 3 11 16 5 1 2::original" \
		    "avgpool_incl:1 2 9 9 4 2 1::original" \
		    "l2pool:2 3 13 11 3 2 0::variant" \
		    "l2pool:1 2 16 16 3 2 0:vo=1 block=128:variant"; do
		IFS=: read -r k shape pts want <<<"$spec"
		# shellcheck disable=SC2086
		emu_build pool.cu "$k" $pts
		# shellcheck disable=SC2086
		out=$("./check-$k" $shape 2>&1) || fail "$k at $shape ($pts): $out"
		expect_contains "$out" "ok "
		expect_contains "$out" "($want)"
	done
}

test_one_row_windows_match_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	cp "$DATA/pool.cu" "$DATA/cuda_emu.h" "$DATA/pool_emu.h" "$DATA/pool_check.cpp" .
	local shape out
	# rows of a 2-D array: N * C * Ho rows of W, pooled along x (P = 0)
	EMU_DEFS='-DKS_ARGS=x,y,N*C*Ho,W,Wo,K,S' emu_build pool.cu row_pool
	for shape in "1 3 5 11 3 2 0" "2 1 4 16 3 2 0" "1 2 6 20 3 2 0 64 1"; do
		# shellcheck disable=SC2086
		out=$(./check-row_pool $shape 2>&1) || fail "row_pool at $shape: $out"
		expect_contains "$out" "(variant)"
	done
	EMU_DEFS='-DKS_ARGS=x,y,N*C*Ho,W,Wo,K,S' emu_build pool.cu row_pool vo=8
	# shellcheck disable=SC2086
	out=$(./check-row_pool 1 3 7 21 3 1 0 2>&1) || fail "row_pool k=3 s=1: $out"
	expect_contains "$out" "(variant)"
	# a window the variant has no instance for: the original
	# shellcheck disable=SC2086
	out=$(./check-row_pool 1 3 7 21 5 1 0 2>&1) || fail "row_pool k=5 s=1: $out"
	expect_contains "$out" "(original)"
}

test_bench_variants_match_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	cp "$DATA/cuda_emu.h" "$DATA/pool_emu.h" "$DATA/pool_check.cpp" .
	local p shape out
	for p in maxpool avgpool; do
		cp "$ROOT/bench/$p/main.cu" "$p.cu"
		cp "$ROOT/bench/common/bench.h" "$ROOT/bench/$p/ref.h" .
		emu_build "$p.cu" ${p}_kernel
		for shape in "2 3 13 11 3 2 1" "1 2 16 16 3 2 1" "1 3 12 20 3 2 1 64 3" \
			     "1 1 9 33 3 2 1 128 1"; do
			# shellcheck disable=SC2086
			out=$("./check-${p}_kernel" $shape 2>&1) || fail "$p at $shape: $out"
			expect_contains "$out" "(variant)"
		done
	done
}

test_a_shifted_window_is_caught_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	cp "$DATA/pool.cu" "$DATA/cuda_emu.h" "$DATA/pool_emu.h" "$DATA/pool_check.cpp" .
	local out
	"$KS_BIN" transform pool.cu:avgpool_incl --skill pool_window_rows >v.cu
	# the window's first column one element to the right
	sed -i 's/(long long)KS_S \* ks_d0 + /(long long)KS_S * ks_d0 + 1 + /' v.cu
	grep -q 'ks_d0 + 1 + ' v.cu || fail "the window's origin was not found"
	rewrite_launches v.cu
	g++ -std=c++20 -O1 -pthread -Wno-unknown-pragmas -I. -DKS_K=avgpool_incl \
		pool_check.cpp -o check-broken
	out=$(./check-broken 2 3 13 11 3 2 1) && fail "the shifted window passed: $out"
	expect_contains "$out" "mismatch"
}

test_look_alikes_are_declined_with_their_reason() {
	cp "$DATA/pool.cu" .
	local spec k want out
	for spec in "gather_pool:has a data-dependent index" \
		    "two_windows:reads a second thread-dependent window" \
		    "inclusive_bound:is not written \`for (v = 0; v < bound" \
		    "transposed_out:is not at the flat thread index" \
		    "staged_rows:already cooperates across threads" \
		    "image_pool:a window of several rows over rows without planes" \
		    "guarded_body:has no early exit"; do
		k=${spec%%:*}
		want=${spec#*:}
		out=$("$KS_BIN" transform "pool.cu:$k" --skill pool_window_rows 2>&1) &&
			fail "$k was transformed"
		expect_contains "$out" "$want"
	done
	cp "$DATA/stencil.cu" .
	out=$("$KS_BIN" transform stencil.cu:jacobi --skill pool_window_rows 2>&1) &&
		fail "a stencil was taken for a pooling"
	expect_contains "$out" "declines"
}

test_variants_are_deterministic() {
	cp "$DATA/pool.cu" .
	"$KS_BIN" transform pool.cu:avgpool_incl --skill pool_window_rows >a.cu
	"$KS_BIN" transform pool.cu:avgpool_incl --skill pool_window_rows >b.cu
	cmp -s a.cu b.cu || fail "two runs gave different variants"
}
