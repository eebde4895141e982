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

# The V-wide accesses, the block groups, 2-row blocks and the register
# bound compile for sm_80 and sm_90 too; vec=4 of floats is one 16-byte
# access each way in the PTX, vec=2 of doubles too.
test_transpose_wide_points() {
	check_tu permute.cu batched_transpose smem_tiled_transpose ks_tile_batched_transpose \
		--param vec=4 --param swz=16
	expect_ne 0 "$(grep -c 'ld.global.v4.f32' kd/tu-batched_transpose.compute_90.ptx)" \
		"16-byte loads of batched_transpose"
	expect_ne 0 "$(grep -c 'st.global.v4.f32' kd/tu-batched_transpose.compute_90.ptx)" \
		"16-byte stores of batched_transpose"
	check_tu permute.cu transpose_ld smem_tiled_transpose ks_tile_transpose_ld \
		--param vec=4 --param rows=2
	expect_ne 0 "$(grep -c 'ld.global.v2.f64' kd/tu-transpose_ld.compute_90.ptx)" \
		"16-byte loads of transpose_ld"
	check_tu permute.cu gather_transpose smem_tiled_transpose ks_tile_gather_transpose \
		--param swz=0 --param rows=2
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

have_emu() {
	command -v g++ >/dev/null && command -v python3 >/dev/null &&
		echo 'int main(){}' | g++ -std=c++20 -x c++ - -o /dev/null 2>/dev/null
}

# The variant of kernel $2 of $1 (skill $3, case macro $4, --param k=v in
# "$@") as variant.inc, its launches rewritten for cuda_emu.h, built
# into check-$2 (perm_check.cpp).
emu_build() {
	local src=$1 k=$2 skill=$3 case=$4 p args=()
	shift 4
	for p in "$@"; do args+=(--param "$p"); done
	"$KS_BIN" transform "$src:$k" --skill "$skill" "${args[@]}" -- -I. >"v-$k.cu" ||
		return 1
	python3 - "v-$k.cu" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
s = re.sub(r'(\w+(?:<[^<>;]*>)?)<<<(.*?)>>>\(', r'ks_emu_cfg(\1, \2)(', s, flags=re.S)
open('variant.inc', 'w').write(s)
PY
	g++ -std=c++20 -O1 -pthread -Wno-unknown-pragmas -I. -DKS_K="$k" "-D$case" \
		perm_check.cpp -o "check-$k"
}

test_transposes_match_the_original_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	cp "$DATA/permute.cu" "$DATA/cuda_emu.h" "$DATA/perm_check.cpp" .
	cp "$ROOT/bench/transpose/main.cu" bench.cu
	cp "$ROOT/bench/transpose/ref.h" "$ROOT/bench/common/bench.h" .
	local spec src k case shape pts out
	# file : kernel : case : shape : points (odd sizes: ragged tiles)
	for spec in "bench.cu:transpose_kernel:KS_TRANSPOSE2D:45 70:" \
		    "bench.cu:transpose_kernel:KS_TRANSPOSE2D:130 33:tiles=1" \
		    "bench.cu:transpose_kernel:KS_TRANSPOSE2D_ODDB:45 70:" \
		    "bench.cu:transpose_kernel:KS_TRANSPOSE2D_ODDB:130 33:tile=64 rows=8 tiles=1 swz=8" \
		    "bench.cu:transpose_kernel:KS_TRANSPOSE2D_ODDB:70 45:vec=4 rows=8" \
		    "bench.cu:transpose_kernel:KS_TRANSPOSE2D:130 33:tile=32 replay=1 rows=8" \
		    "bench.cu:transpose_kernel:KS_TRANSPOSE2D:70 45:rows=16 tiles=8" \
		    "bench.cu:transpose_kernel:KS_TRANSPOSE2D:150 70:tile=64 rows=4 replay=0 tiles=2" \
		    "permute.cu:transpose_ld:KS_LD:60 50:" \
		    "permute.cu:transpose_ld:KS_LD:33 97:rows=4 tiles=2" \
		    "permute.cu:gather_transpose:KS_GATHER:9 100:" \
		    "permute.cu:gather_transpose:KS_GATHER:37 45:replay=0" \
		    "permute.cu:batched_transpose:KS_BATCHED:20 30 3:" \
		    "bench.cu:transpose_kernel:KS_TRANSPOSE2D:64 64:vec=4" \
		    "bench.cu:transpose_kernel:KS_TRANSPOSE2D:45 70:vec=4" \
		    "bench.cu:transpose_kernel:KS_TRANSPOSE2D:130 33:vec=4 swz=8 rows=8" \
		    "bench.cu:transpose_kernel:KS_TRANSPOSE2D:70 45:vec=4 rows=8 swz=16 tiles=2" \
		    "bench.cu:transpose_kernel:KS_TRANSPOSE2D:150 70:vec=4 tile=64" \
		    "bench.cu:transpose_kernel:KS_TRANSPOSE2D:45 70:rows=2 swz=16" \
		    "bench.cu:transpose_kernel:KS_TRANSPOSE2D:33 130:swz=32 tiles=2" \
		    "permute.cu:transpose_ld:KS_LD:33 97:vec=4 swz=8" \
		    "permute.cu:gather_transpose:KS_GATHER:37 45:vec=4 rows=2" \
		    "permute.cu:batched_transpose:KS_BATCHED:20 30 3:vec=4 swz=8 tiles=8"; do
		IFS=: read -r src k case shape pts <<<"$spec"
		# shellcheck disable=SC2086
		emu_build "$src" "$k" smem_tiled_transpose "$case" $pts ||
			fail "$k ($pts): no variant"
		# shellcheck disable=SC2086
		out=$("./check-$k" $shape) || fail "$k at $shape ($pts): $out"
		expect_contains "$out" "ok "
	done
}

test_a_lost_replayed_row_is_caught_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	cp "$DATA/permute.cu" "$DATA/cuda_emu.h" "$DATA/perm_check.cpp" .
	emu_build permute.cu transpose_ld smem_tiled_transpose KS_LD tile=32 replay=1
	./check-transpose_ld 60 50 >/dev/null || fail "the intact variant failed"
	# the store phase skips its first element row
	sed -i 's/if (ks_i != KS_TILE_NONE)/if (ks_i != KS_TILE_NONE \&\& ks_j)/' variant.inc
	grep -q 'KS_TILE_NONE && ks_j' variant.inc || fail "the replayed store was not found"
	g++ -std=c++20 -O1 -pthread -Wno-unknown-pragmas -I. -DKS_K=transpose_ld -DKS_LD \
		perm_check.cpp -o check-broken
	out=$(./check-broken 60 50) && fail "the broken variant passed: $out"
	expect_contains "$out" "mismatch"
}

test_a_wrong_wide_access_is_caught_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	cp "$DATA/permute.cu" "$DATA/cuda_emu.h" "$DATA/perm_check.cpp" .
	cp "$ROOT/bench/transpose/main.cu" bench.cu
	cp "$ROOT/bench/transpose/ref.h" "$ROOT/bench/common/bench.h" .
	emu_build bench.cu transpose_kernel smem_tiled_transpose KS_TRANSPOSE2D vec=4
	./check-transpose_kernel 64 64 >/dev/null || fail "the intact variant failed"
	# the 16-byte load puts its elements in reverse order
	sed -i 's/v\[k\] = w.v\[k\];/v[k] = w.v[ks_V - 1 - k];/' variant.inc
	grep -q 'w.v\[ks_V - 1 - k\]' variant.inc || fail "the wide load was not found"
	g++ -std=c++20 -O1 -pthread -Wno-unknown-pragmas -I. -DKS_K=transpose_kernel \
		-DKS_TRANSPOSE2D perm_check.cpp -o check-broken
	out=$(./check-broken 64 64) && fail "the broken variant passed: $out"
	expect_contains "$out" "mismatch"
}

test_wide_points_fit_or_decline() {
	cp "$DATA/permute.cu" .
	# 16 bytes an access at most: 2 doubles
	out=$("$KS_BIN" transform permute.cu:transpose_ld --skill smem_tiled_transpose \
		--param vec=4)
	expect_contains "$out" "2 elements an access"
	expect_contains "$out" "ks_tile_vload<double, 2>"
	out=$("$KS_BIN" transform permute.cu:batched_transpose --skill smem_tiled_transpose \
		--param tile=32 --param vec=4 --param replay=1 2>&1) && fail "vec=4 with replay was transformed"
	expect_contains "$out" "replay=1"
	out=$("$KS_BIN" transform permute.cu:batched_transpose --skill smem_tiled_transpose \
		--param tile=32 --param vec=4 --param rows=16 2>&1) && fail "vec=4 at rows=16 was transformed"
	expect_contains "$out" "more than the 32 rows of the tile"
	out=$("$KS_BIN" transform permute.cu:batched_transpose --skill smem_tiled_transpose \
		--param swz=16 --param vec=4)
	expect_contains "$out" "ks_by = ks_gl / ks_gn"
	expect_contains "$out" "ks_tile_vstore<float, 4>"
	expect_contains "$out" "0xffffffffull ||"
}

test_tile_points_and_declines() {
	cp "$DATA/permute.cu" .
	out=$("$KS_BIN" transform permute.cu:transpose_ld --skill smem_tiled_transpose \
		--param tile=64 --param replay=1 2>&1) && fail "tile=64 with replay was transformed"
	expect_contains "$out" "48 KiB"
	out=$("$KS_BIN" transform permute.cu:transpose_ld --skill smem_tiled_transpose \
		--param tile=32 --param tiles=4 --param replay=1)
	expect_contains "$out" "ks_tile_rec<double>"
	expect_contains "$out" "ks_by * 4u"
	out=$("$KS_BIN" transform permute.cu:transpose_ld --skill smem_tiled_transpose \
		--param replay=0 --param tiles=2)
	expect_not_contains "$out" "ks_tile_rec<double> ks_out"
	expect_contains "$out" "ks_by * 2u"
	# swz=0: the blocks row after row
	out=$("$KS_BIN" transform permute.cu:transpose_ld --skill smem_tiled_transpose \
		--param swz=0 --param tiles=4)
	expect_contains "$out" "blockIdx.y * 4u"
	expect_not_contains "$out" "ks_gl"
}
