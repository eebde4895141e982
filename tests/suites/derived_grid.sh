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
