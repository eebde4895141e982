# derived_grid: kernels that derive their coordinates from a flat index by
# division and remainder, through `ks transform`. Variants of kernels in
# other shapes (tests/data/transforms/derived.cu) and of the pooling and
# permute3d benchmark kernels compile with the real nvcc for sm_80 and
# sm_90 with warnings as errors; the helper kernel is in the sm_90 code
# only, divides nothing per element where the grid gives the coordinates,
# and stages through shared memory where the copy is permuted; look-alikes
# are declined with their reason.

suite_probe() {
	have_real_nvcc || { echo "no nvcc"; return; }
	"$KS_BIN" transform "$ROOT/tests/data/transforms/derived.cu:unflatten2" \
		--skill derived_grid >/dev/null 2>probe.err ||
		echo "ks transform cannot parse here: $(head -c 200 probe.err)"
	rm -f probe.err
}

ARCHS="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"
STRICT="-Werror all-warnings -Xcompiler -Wall,-Wextra,-Wshadow,-Werror"

# Rewrite kernel $2 of $1 at the points "$@" (k=v), compile it for both
# archs keeping the PTX in kd/.
rewrite_and_compile() {
	local src=$1 k=$2 p args=()
	shift 2
	for p in "$@"; do args+=(--param "$p"); done
	"$KS_BIN" transform "$src:$k" --skill derived_grid --arch sm_90 "${args[@]}" --tu \
		-o "out-$k.cu"
	rm -rf kd
	mkdir kd
	# shellcheck disable=SC2086
	"$(real_nvcc)" $ARCHS $STRICT -I. -keep -keep-dir kd -c "out-$k.cu" -o "out-$k.o"
}

# The lines of PTX file $1 matching $3 between the entry of kernel $2 and
# the next entry.
entry_count() {
	awk -v k="$2" -v re="$3" '/\.entry / { on = index($0, k) > 0 }
		on && $0 ~ re { n++ } END { print n + 0 }' "$1"
}

# Kernel $1 was rewritten to a helper ks_dg_$1 that loads in sm_90 only
# (and, with $2, the file's launches of it go through the launcher).
expect_helper() {
	local k=$1
	expect_ne 0 "$(entry_count kd/out-$k.compute_90.ptx ks_dg_$k 'ld\.global')" \
		"$k: loads of the helper in the sm_90 PTX"
	expect_eq 0 "$(entry_count kd/out-$k.compute_80.ptx ks_dg_$k 'ld\.global')" \
		"$k: loads of the helper in the sm_80 PTX"
	[ -z "${2:-}" ] ||
		expect_eq 1 "$(grep -c "ks_variant_active_$k() ?" "out-$k.cu")" \
			"$k: launches through the launcher"
}

test_grid_shapes_divide_nothing() {
	cp "$ROOT/tests/data/transforms/derived.cu" .
	rewrite_and_compile derived.cu unflatten2
	expect_helper unflatten2
	expect_eq 0 "$(entry_count kd/out-unflatten2.compute_90.ptx ks_dg_unflatten2 '(div|rem)\.[us](32|64)')" \
		"unflatten2: divisions in the helper"
	rewrite_and_compile derived.cu unflatten2 bx=128 by=1
	expect_helper unflatten2
}

test_permuted_copies_are_tiled() {
	local k
	cp "$ROOT/tests/data/transforms/derived.cu" .
	for k in channels_first rotate3; do
		rewrite_and_compile derived.cu $k
		expect_helper $k
		expect_ne 0 "$(entry_count kd/out-$k.compute_90.ptx ks_dg_$k 'bar\.sync')" \
			"$k: barrier of the tile"
		expect_ne 0 "$(entry_count kd/out-$k.compute_90.ptx ks_dg_$k 'ld\.shared')" \
			"$k: reads of the tile"
	done
	rewrite_and_compile derived.cu rotate3 by=16
	expect_helper rotate3
}

test_bench_kernels_compile_for_both_archs() {
	local spec p k point
	for spec in maxpool:maxpool_kernel: avgpool:avgpool_kernel:bx=16 \
		    permute3d:permute3d_kernel:; do
		IFS=: read -r p k point <<<"$spec"
		mkdir "$p"
		cp "$ROOT/bench/$p/main.cu" "$ROOT/bench/$p/ref.h" \
			"$ROOT/bench/common/bench.h" "$p/"
		(
			cd "$p"
			# shellcheck disable=SC2086
			rewrite_and_compile main.cu "$k" $point
			expect_helper "$k" launches
			if [ "$p" = permute3d ]; then
				expect_ne 0 "$(entry_count kd/out-$k.compute_90.ptx ks_dg_$k 'bar\.sync')" \
					"$k: barrier of the tile"
			else
				expect_eq 0 "$(entry_count kd/out-$k.compute_90.ptx ks_dg_$k '(div|rem)\.[us](32|64)')" \
					"$k: divisions in the helper"
			fi
		)
	done
}

test_look_alikes_are_declined() {
	local spec k why out
	for spec in "by_thread:does not divide its flat thread index by a uniform value" \
		    "two_ways:do not decompose the flat index" \
		    "four_levels:more than three coordinates" \
		    "strided:does not divide its flat thread index" \
		    "staged:already cooperates across threads"; do
		k=${spec%%:*}
		why=${spec#*:}
		if out=$("$KS_BIN" transform "$ROOT/tests/data/transforms/derived.cu:$k" \
			--skill derived_grid 2>&1); then
			fail "$k: transformed"
		fi
		expect_contains "$out" "derived_grid declines $k: "
		expect_contains "$out" "$why"
	done
	if out=$("$KS_BIN" transform "$ROOT/tests/data/transforms/derived.cu:rotate3" \
		--skill derived_grid --param bx=64 2>&1); then
		fail "rotate3 at bx=64: transformed"
	fi
	expect_contains "$out" "32 wide"
}

test_output_is_deterministic() {
	cp "$ROOT/tests/data/transforms/derived.cu" .
	"$KS_BIN" transform derived.cu:rotate3 --skill derived_grid >a.txt
	"$KS_BIN" transform derived.cu:rotate3 --skill derived_grid >b.txt
	expect_same_file a.txt b.txt
}

have_emu() {
	command -v g++ >/dev/null && command -v python3 >/dev/null &&
		echo 'int main(){}' | g++ -std=c++20 -x c++ - -o /dev/null 2>/dev/null
}

# The variant of kernel $2 of $1 (case macro $3, --param k=v in "$@") as
# variant.inc, its launches rewritten for cuda_emu.h, built into
# check-$2 (tests/data/transforms/perm_check.cpp).
emu_build() {
	local src=$1 k=$2 case=$3 p args=()
	shift 3
	for p in "$@"; do args+=(--param "$p"); done
	"$KS_BIN" transform "$src:$k" --skill derived_grid "${args[@]}" -- -I. >"v-$k.cu" ||
		return 1
	python3 - "v-$k.cu" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
s = re.sub(r'(\w+)<<<(.*?)>>>\(', r'ks_emu_cfg(\1, \2)(', s, flags=re.S)
open('variant.inc', 'w').write(s)
PY
	g++ -std=c++20 -O1 -pthread -Wno-unknown-pragmas -I. -DKS_K="$k" "-D$case" \
		perm_check.cpp -o "check-$k"
}

test_permuted_copies_match_the_original_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	local DATA=$ROOT/tests/data/transforms
	cp "$DATA/derived.cu" "$DATA/cuda_emu.h" "$DATA/perm_check.cpp" .
	cp "$ROOT/bench/permute3d/main.cu" bench.cu
	cp "$ROOT/bench/permute3d/ref.h" "$ROOT/bench/common/bench.h" .
	local spec src k case shape pts out
	# file : kernel : case : shape : points (sizes no tile divides)
	for spec in "bench.cu:permute3d_kernel:KS_FLAT3F:6 10 13:" \
		    "bench.cu:permute3d_kernel:KS_FLAT3F:3 70 45:tiles=1" \
		    "bench.cu:permute3d_kernel:KS_FLAT3F:3 70 45:replay=0" \
		    "bench.cu:permute3d_kernel:KS_FLAT3F:5 33 97:trows=16 tiles=8" \
		    "bench.cu:permute3d_kernel:KS_FLAT3F:5 33 97:trows=0 by=4 tiles=2" \
		    "derived.cu:channels_first:KS_FLAT2:5 37:" \
		    "derived.cu:channels_first:KS_FLAT2:70 3:replay=0 tiles=2" \
		    "derived.cu:rotate3:KS_FLAT3D:3 5 7:" \
		    "derived.cu:rotate3:KS_FLAT3D:40 9 3:trows=8 tiles=8"; do
		IFS=: read -r src k case shape pts <<<"$spec"
		# shellcheck disable=SC2086
		emu_build "$src" "$k" "$case" $pts || fail "$k ($pts): no variant"
		grep -q "ks_dg_$k<<<" "v-$k.cu" || fail "$k: not the tiled variant"
		# shellcheck disable=SC2086
		out=$("./check-$k" $shape) || fail "$k at $shape ($pts): $out"
		expect_contains "$out" "ok "
	done
}

test_a_lost_replayed_row_is_caught_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	local DATA=$ROOT/tests/data/transforms
	cp "$DATA/derived.cu" "$DATA/cuda_emu.h" "$DATA/perm_check.cpp" .
	emu_build derived.cu rotate3 KS_FLAT3D
	./check-rotate3 3 5 7 >/dev/null || fail "the intact variant failed"
	sed -i 's/if (ks_i != KS_TILE_NONE)/if (ks_i != KS_TILE_NONE \&\& ks_j)/' variant.inc
	grep -q 'KS_TILE_NONE && ks_j' variant.inc || fail "the replayed store was not found"
	g++ -std=c++20 -O1 -pthread -Wno-unknown-pragmas -I. -DKS_K=rotate3 -DKS_FLAT3D \
		perm_check.cpp -o check-broken
	out=$(./check-broken 3 5 7) && fail "the broken variant passed: $out"
	expect_contains "$out" "mismatch"
}

test_tile_kernel_is_32_bit_with_launcher_checks() {
	cp "$ROOT/tests/data/transforms/derived.cu" .
	out=$("$KS_BIN" transform derived.cu:rotate3 --skill derived_grid)
	expect_contains "$out" "const int ks_d0, const int ks_q0"
	expect_contains "$out" "ks_r0 * ks_r1 > 0x7fffff00LL"
	expect_contains "$out" "ks_tile_rec<double>"
	expect_contains "$out" "blockIdx.y * 4u"
	expect_not_contains "$out" "unsigned long long ks_g"
	out=$("$KS_BIN" transform derived.cu:rotate3 --skill derived_grid --param replay=0 \
		--param tiles=1)
	expect_not_contains "$out" "ks_tile_rec<double> ks_out"
	expect_contains "$out" "blockIdx.y * 1u"
}
