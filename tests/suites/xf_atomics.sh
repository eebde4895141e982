# xf_atomics: the variants of atomic_hierarchical_reduce, smem_histogram
# and smem_tiled_transpose, put into their translation units by
# `ks transform --tu`, compile with the real nvcc for sm_80 and sm_90
# with every warning an error; the variant's helper kernel is in the
# compute_90 PTX only. Sources: tests/data/transforms.
# Needs libclang (16-19) and nvcc.

DATA=$ROOT/tests/data/transforms
ARCHS="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"

suite_probe() {
	have_real_nvcc || { echo "no nvcc"; return; }
	"$KS_BIN" doctor 2>/dev/null | grep -q '^libclang  *ok' ||
		echo "no libclang 16-19 (see ks doctor)"
}

# Transform kernel $2 of $1 with skill $3 (more --param after) and
# compile the TU; the helper kernel $4 must be in compute_90's PTX only.
check_tu() {
	local file=$1 kernel=$2 skill=$3 helper=$4
	shift 4
	cp "$DATA/$file" .
	"$KS_BIN" transform "$file:$kernel" --skill "$skill" "$@" --arch sm_90 --tu -o "tu-$kernel.cu"
	rm -rf kd
	mkdir kd
	# shellcheck disable=SC2086
	"$(real_nvcc)" $ARCHS -Werror all-warnings -keep -keep-dir kd \
		-c "tu-$kernel.cu" -o "tu-$kernel.o"
	expect_ne 0 "$(grep -c "^.visible .entry .*$helper" "kd/tu-$kernel.compute_90.ptx" || true)" \
		"$helper in the sm_90 PTX"
	# sm_80 declares the helper kernel with an empty body, sm_90 has it
	expect_eq 0 "$(entry_loads "kd/tu-$kernel.compute_80.ptx" "$helper")" \
		"global loads of $helper in the sm_80 PTX"
	expect_ne 0 "$(entry_loads "kd/tu-$kernel.compute_90.ptx" "$helper")" \
		"global loads of $helper in the sm_90 PTX"
}

# The global loads in PTX file $1 between the entry of kernel $2 and the
# next entry.
entry_loads() {
	awk -v k="$2" '/\.entry / { on = index($0, k) > 0 } on && /ld\.global/ { n++ }
		END { print n + 0 }' "$1"
}

test_reduce_double_sum() {
	check_tu atomics.cu sq_sum atomic_hierarchical_reduce ks_red_sq_sum
}

test_reduce_integer_count_and_max_2d() {
	check_tu atomics.cu count_max_2d atomic_hierarchical_reduce ks_red_count_max_2d \
		--param unroll=1 --param waves=2
}

test_reduce_grid_stride_float_and_xor() {
	check_tu atomics.cu stride_sum atomic_hierarchical_reduce ks_red_stride_sum
}

test_reduce_per_block_rows_and_grid_minimum() {
	check_tu atomics.cu row_sums atomic_hierarchical_reduce ks_red_row_sums --param unroll=2
}

test_histogram_unsigned_and_float_and_double() {
	check_tu atomics.cu hist_u8 smem_histogram ks_hist_hist_u8 --param bins=256
	check_tu atomics.cu hist_weighted_2d smem_histogram ks_hist_hist_weighted_2d
	check_tu atomics.cu hist_f64 smem_histogram ks_hist_hist_f64 --param unroll=2
}

test_transpose_shapes() {
	check_tu permute.cu transpose_ld smem_tiled_transpose ks_tile_transpose_ld
	check_tu permute.cu gather_transpose smem_tiled_transpose ks_tile_gather_transpose \
		--param rows=16
	check_tu permute.cu batched_transpose smem_tiled_transpose ks_tile_batched_transpose \
		--param rows=4
}

test_declines_say_why() {
	cp "$DATA/atomics.cu" "$DATA/permute.cu" .
	out=$("$KS_BIN" transform atomics.cu:per_thread --skill atomic_hierarchical_reduce 2>&1) &&
		fail "per_thread was transformed"
	expect_contains "$out" "changes address with the thread"
	out=$("$KS_BIN" transform permute.cu:permute_1d --skill smem_tiled_transpose 2>&1) &&
		fail "permute_1d was transformed"
	expect_contains "$out" "not at an offset affine"
}
