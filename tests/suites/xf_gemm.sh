# xf_gemm: gemm_register_blocking and gemv_warp_per_row through
# `ks transform`. Matrix products in other forms (tests/data/transforms/
# gemm.cu: strides as parameters, transposed operands, the row along x, a
# batch in z, alpha/beta, bias and ReLU, fmaf, early exits) and the bench
# kernels are recognized; their TUs compile with the real nvcc for sm_80
# and sm_90 with warnings as errors; the tiled kernel is in the PTX of the
# variant's arch only, with cp.async where the arch has it; look-alikes
# (tests/data/transforms/gemm_neg.cu) are declined with their reason.
# Products that accumulate into global memory, or carry a factor
# (tests/data/transforms/gemm_mem.cu), run on the CPU (cuda_emu.h) and
# match the original. Needs libclang (16-19) and nvcc; the CPU runs need
# a C++20 g++.

DATA=$ROOT/tests/data/transforms
ARCHS="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"
STRICT="-Werror all-warnings -Xcompiler -Wall,-Wextra,-Wshadow,-Werror"

suite_probe() {
	have_real_nvcc || { echo "no nvcc"; return; }
	"$KS_BIN" transform "$DATA/gemm.cu:tn_fma" --skill gemm_register_blocking \
		>/dev/null 2>probe.err ||
		echo "ks transform cannot parse here: $(head -c 200 probe.err)"
	rm -f probe.err
}

# Transform kernel $2 of $1 (in the current directory) with skill $3 for
# arch $4 (more --param k=v after) and compile the TU for both archs,
# keeping the PTX in kd/.
tu() {
	local src=$1 k=$2 skill=$3 arch=$4 p args=()
	shift 4
	for p in "$@"; do
		case $p in
		--*) args+=("$p") ;;
		*) args+=(--param "$p") ;;
		esac
	done
	"$KS_BIN" transform "$src:$k" --skill "$skill" --arch "$arch" "${args[@]}" \
		--tu -o "tu-$k.cu"
	rm -rf kd
	mkdir kd
	# shellcheck disable=SC2086
	"$(real_nvcc)" $ARCHS $STRICT -I. -keep -keep-dir kd -c "tu-$k.cu" -o "tu-$k.o"
}

# Lines of PTX file $1 matching $3 between the entry of kernel $2 and the
# next entry.
entry_count() {
	awk -v k="$2" -v pat="$3" '/\.entry / { on = index($0, k) > 0 } on && $0 ~ pat { n++ }
		END { print n + 0 }' "$1"
}

# The program of the GPU check of GEMV shapes (gpu-gemv.sh): its kernels
# are recognized, and the variants of its points compile, warnings as
# errors, with the program's cuBLAS timing around them.
test_gemv_shapes_program_variants_compile() {
	cp "$DATA/gemv_shapes.cu" .
	tu gemv_shapes.cu gemv_rows gemv_warp_per_row sm_90 lanes=8
	expect_ne 0 "$(entry_count kd/tu-gemv_rows.compute_90.ptx ks_gemv_gemv_rows 'ld.global.v4.f32')" \
		"gemv_rows, 8 lanes: float4 row reads"
	expect_eq 0 "$(entry_count kd/tu-gemv_rows.compute_90.ptx ks_gemv_gemv_rows 'bar.sync')" \
		"gemv_rows, 8 lanes: no barrier"
	tu gemv_shapes.cu gemv_rows gemv_warp_per_row sm_90 lanes=128 warps=4
	expect_ne 0 "$(entry_count kd/tu-gemv_rows.compute_90.ptx ks_gemv_gemv_rows 'bar.sync')" \
		"gemv_rows, 128 lanes: warps combined in shared memory"
	tu gemv_shapes.cu gemv_cols gemv_warp_per_row sm_90
	expect_ne 0 "$(entry_count kd/tu-gemv_cols.compute_90.ptx ks_gemv_gemv_cols 'bar.sync')" \
		"gemv_cols: slices combined in shared memory"
	tu gemv_shapes.cu gemv_cols gemv_warp_per_row sm_90 cols=8
	expect_contains "$(cat tu-gemv_cols.cu)" "dim3(8, 128)"
}

test_products_in_other_forms_compile_for_both_archs() {
	cp "$DATA/gemm.cu" .
	for k in nn_strided tn_fma nt_bias_relu tt_swapped batched_strided any_strides; do
		tu gemm.cu $k gemm_register_blocking sm_90
		expect_ne 0 "$(entry_count kd/tu-$k.compute_90.ptx ks_gemm_$k 'fma.rn.f32')" \
			"$k: FMAs of the tiled kernel in the sm_90 PTX"
		expect_eq 0 "$(entry_count kd/tu-$k.compute_80.ptx ks_gemm_$k 'ld.global')" \
			"$k: no tiled kernel in the sm_80 PTX"
		expect_ne 0 "$(entry_count kd/tu-$k.compute_90.ptx ks_gemm_$k 'bar.sync')" \
			"$k: barriers"
		expect_eq 1 "$(grep -c "ks_variant_active_$k() ?" "tu-$k.cu")" \
			"$k: launched through the launcher"
	done
}

test_operand_reads_follow_the_strides() {
	cp "$DATA/gemm.cu" .
	local spec k want
	for spec in "nn_strided:A read float4 along k, B float4 along its thread index" \
		    "tn_fma:A read float4 along its thread index, B float4 along its thread index" \
		    "nt_bias_relu:A read float4 along k, Bt float4 along k" \
		    "tt_swapped:Bt read float4 along k, At float4 along its thread index" \
		    "any_strides:A read one element at a time, B one element at a time"; do
		k=${spec%%:*}
		want=${spec#*:}
		expect_contains "$("$KS_BIN" transform "gemm.cu:$k" --skill gemm_register_blocking | head -1)" \
			"$want"
	done
}

test_cp_async_only_where_the_arch_has_it() {
	cp "$DATA/gemm.cu" .
	tu gemm.cu tn_fma gemm_register_blocking sm_80 bm=64 bn=64 tm=4 tn=4 bk=16
	expect_ne 0 "$(entry_count kd/tu-tn_fma.compute_80.ptx ks_gemm_tn_fma 'cp.async')" \
		"cp.async in the sm_80 variant"
	tu gemm.cu nn_strided gemm_register_blocking sm_90 bk=16
	expect_ne 0 "$(entry_count kd/tu-nn_strided.compute_90.ptx ks_gemm_nn_strided 'cp.async')" \
		"cp.async for B in the sm_90 variant"
	expect_ne 0 "$(entry_count kd/tu-nn_strided.compute_90.ptx ks_gemm_nn_strided 'ld.global.v4.f32')" \
		"float4 reads of A in the sm_90 variant"
}

test_matrix_vector_products_compile_for_both_archs() {
	cp "$DATA/gemm.cu" .
	for k in gemv_rows gemv_incx; do
		# order=1: each row summed in the kernel's order
		tu gemm.cu $k gemv_warp_per_row sm_90 order=1
		expect_ne 0 "$(entry_count kd/tu-$k.compute_90.ptx ks_gemv_$k 'bar.sync')" \
			"$k: slices staged in shared memory"
		expect_eq 0 "$(entry_count kd/tu-$k.compute_90.ptx ks_gemv_$k 'shfl.sync')" \
			"$k: no shuffles (each row summed in order)"
		expect_ne 0 "$(entry_count kd/tu-$k.compute_90.ptx ks_gemv_$k 'ld.global.v4.f32')" \
			"$k: float4 row reads"
	done
	# the default reassociates: a warp per row, with or without fast math
	tu gemm.cu gemv_rows gemv_warp_per_row sm_90
	expect_ne 0 "$(entry_count kd/tu-gemv_rows.compute_90.ptx ks_gemv_gemv_rows 'shfl.sync')" \
		"gemv_rows: a warp per row"
	expect_ne 0 "$(entry_count kd/tu-gemv_rows.compute_90.ptx ks_gemv_gemv_rows 'ld.global.v4.f32')" \
		"gemv_rows: float4 row reads"
	tu gemm.cu gemv_rows gemv_warp_per_row sm_90 warps=4 --fast-math
	expect_ne 0 "$(entry_count kd/tu-gemv_rows.compute_90.ptx ks_gemv_gemv_rows 'shfl.sync')" \
		"gemv_rows with fast math: a warp per row"
	# the transposed case is split into slices: only when reassociating
	out=$("$KS_BIN" transform gemm.cu:gemv_cols --skill gemv_warp_per_row --param order=1 2>&1) &&
		fail "gemv_cols was split with order=1"
	expect_contains "$out" "reassociates each sum"
	tu gemm.cu gemv_cols gemv_warp_per_row sm_90 warps=8
	expect_ne 0 "$(entry_count kd/tu-gemv_cols.compute_90.ptx ks_gemv_gemv_cols 'bar.sync')" \
		"gemv_cols: slices combined in shared memory"
}

test_bench_kernels_compile() {
	local spec p k skill
	for spec in gemm_transposed:gemm_tn_naive:gemm_register_blocking \
		    gemm_batched:gemm_batched_naive:gemm_register_blocking \
		    gemv:gemv_naive:gemv_warp_per_row; do
		IFS=: read -r p k skill <<<"$spec"
		mkdir "$p"
		cp "$ROOT/bench/$p/main.cu" "$ROOT/bench/$p/ref.h" "$ROOT/bench/common/bench.h" "$p/"
		(cd "$p" && tu main.cu "$k" "$skill" sm_90) || fail "$p did not compile"
	done
}

test_look_alikes_are_declined_with_their_reason() {
	cp "$DATA/gemm_neg.cu" "$DATA/gemm.cu" .
	local spec k skill want out
	for spec in "not_product:gemm_register_blocking:no loop accumulating a product" \
		    "data_index:gemm_register_blocking:also reads idx" \
		    "outer_batch:gemm_register_blocking:inside another loop" \
		    "three_loads:gemm_register_blocking:no loop accumulating a product" \
		    "same_dim:gemm_register_blocking:vary with the same thread index" \
		    "double_acc:gemm_register_blocking:computes in double" \
		    "flat_index:gemm_register_blocking:not affine in the thread indices" \
		    "data_guard:gemm_register_blocking:not a bounds check" \
		    "kept_index:gemm_register_blocking:declared before the loop and read after it" \
		    "gemv_strided:gemv_warp_per_row:contiguous neither along the loop nor along gx"; do
		IFS=: read -r k skill want <<<"$spec"
		out=$("$KS_BIN" transform "gemm_neg.cu:$k" --skill "$skill" 2>&1) &&
			fail "$k was transformed"
		expect_contains "$out" "$want"
	done
	out=$("$KS_BIN" transform gemm.cu:gemv_rows --skill gemm_register_blocking 2>&1) &&
		fail "gemv_rows was tiled as a matrix product"
	expect_contains "$out" "matrix-vector product (gemv_warp_per_row)"
	out=$("$KS_BIN" transform gemm.cu:nn_strided --skill gemv_warp_per_row 2>&1) &&
		fail "nn_strided was taken for a matrix-vector product"
	expect_contains "$out" "a matrix product (gemm_register_blocking)"
}

test_variants_are_deterministic() {
	cp "$DATA/gemm.cu" .
	"$KS_BIN" transform gemm.cu:batched_strided --skill gemm_register_blocking >a.cu
	"$KS_BIN" transform gemm.cu:batched_strided --skill gemm_register_blocking >b.cu
	cmp -s a.cu b.cu || fail "two runs gave different variants"
}

have_emu() {
	command -v g++ >/dev/null && command -v python3 >/dev/null &&
		echo 'int main(){}' | g++ -std=c++20 -x c++ - -o /dev/null 2>/dev/null
}

# The variant of kernel $1 of gemm_mem.cu by skill $2 (--param k=v in
# $3...) as variant.inc, its launches rewritten for cuda_emu.h, built
# into check-$1.
emu_build() {
	local k=$1 skill=$2 p args=()
	shift 2
	for p in "$@"; do args+=(--param "$p"); done
	"$KS_BIN" transform "gemm_mem.cu:$k" --skill "$skill" "${args[@]}" >"v-$k.cu" ||
		fail "$k was not transformed by $skill"
	python3 - "v-$k.cu" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
s = re.sub(r'(\w+)<<<(.*?)>>>\(', r'ks_rows_emu_cfg(\1, \2)(', s, flags=re.S)
open('variant.inc', 'w').write(s)
PY
	g++ -std=c++20 -O1 -pthread -Wno-unknown-pragmas -Wno-deprecated-enum-enum-conversion \
		-I. -DKS_K="$k" ${KS_ROW:+-DKS_ROW=$KS_ROW} gemm_check.cpp -o "check-$k"
}

test_accumulators_in_memory_and_factors_match_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	cp "$DATA/gemm_mem.cu" "$DATA/cuda_emu.h" "$DATA/gemm_check.cpp" \
		"$ROOT/tests/data/rows/rows_emu.h" .
	local spec k skill dims pts sh out
	# kernel : skill : 2d|1d : points
	for spec in "mem_scaled:gemm_register_blocking:2d:" \
		    "mem_scaled:gemm_register_blocking:2d:bm=64 bn=64 tm=4 tn=4 bk=16" \
		    "mem_zero_tn:gemm_register_blocking:2d:" \
		    "locals:gemm_register_blocking:2d:" \
		    "gemv_mem_rows:gemv_warp_per_row:1d:" \
		    "gemv_mem_rows:gemv_warp_per_row:1d:order=1" \
		    "gemv_mem_rows:gemv_warp_per_row:1d:lanes=8 warps=2 unroll=2" \
		    "gemv_mem_rows:gemv_warp_per_row:1d:lanes=128 warps=8" \
		    "gemv_mem_rows:gemv_warp_per_row:1d:lanes=128 warps=2" \
		    "gemv_mem_cols:gemv_warp_per_row:1d:" \
		    "gemv_mem_cols:gemv_warp_per_row:1d:warps=8 unroll=8" \
		    "gemv_mem_cols:gemv_warp_per_row:1d:cols=8" \
		    "gemv_mem_cols:gemv_warp_per_row:1d:cols=8 warps=8 unroll=2"; do
		IFS=: read -r k skill dims pts <<<"$spec"
		# shellcheck disable=SC2086
		emu_build "$k" "$skill" $pts
		for sh in "37 29 5" "131 67 45" "260 3 33" "23 7 300" "9 5 2100"; do
			# shellcheck disable=SC2086
			set -- $sh
			[ "$dims" = 1d ] && set -- "$1" 1 "$3"
			out=$("./check-$k" "$@" "$dims") || fail "$k ($pts) at $*: $out"
			expect_contains "$out" "ok "
		done
	done
	# a 1-D kernel launched with 2-D blocks (32 x 4): it reads no y
	# coordinate, so the launcher runs the variant, once per output (the
	# check fails where the launcher runs the original); the original
	# zeroes its output first, so its 4 copies of each thread agree
	emu_build gemv_mem_cols gemv_warp_per_row
	for sh in "37 1 5" "131 1 45"; do
		# shellcheck disable=SC2086
		out=$(./check-gemv_mem_cols $sh 1dy) || fail "gemv_mem_cols with 2-D blocks at $sh: $out"
		expect_contains "$out" "ok "
	done
	expect_contains "$(cat v-gemv_mem_cols.cu)" "reads no y coordinate"
	# one that reads threadIdx.y keeps 2-D launches on the original
	out=$("$KS_BIN" transform gemm_mem.cu:gemv_mem_y --skill gemv_warp_per_row) ||
		fail "gemv_mem_y was not transformed"
	expect_contains "$out" "if (block.y != 1 || block.z != 1 || grid.y != 1"
	case $out in *"reads no y coordinate"*) fail "gemv_mem_y's 2-D launches run the variant" ;; esac
	# matrices as arrays of rows (float A[][67]): K = N = 67
	KS_ROW=67 emu_build arr2d gemm_register_blocking
	for sh in "37 67 67" "131 67 67"; do
		# shellcheck disable=SC2086
		out=$(./check-arr2d $sh 2d) || fail "arr2d at $sh: $out"
		expect_contains "$out" "ok "
	done
	# the body keeps the element's text, renamed, and adds the factor
	expect_contains "$(cat v-mem_scaled.cu)" "C[i * N + j] += alpha * ks_gemm_v;"
}

test_a_dropped_factor_is_caught_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	cp "$DATA/gemm_mem.cu" "$DATA/cuda_emu.h" "$DATA/gemm_check.cpp" \
		"$ROOT/tests/data/rows/rows_emu.h" .
	emu_build mem_scaled gemm_register_blocking
	sed -i 's/+= alpha \* ks_gemm_v/+= ks_gemm_v/' variant.inc
	grep -q '+= ks_gemm_v' variant.inc || fail "the factor was not found"
	g++ -std=c++20 -O1 -pthread -Wno-unknown-pragmas -Wno-deprecated-enum-enum-conversion \
		-I. -DKS_K=mem_scaled gemm_check.cpp -o check-broken
	out=$(./check-broken 131 67 45 2d) && fail "the broken variant passed: $out"
	expect_contains "$out" "mismatch"
}

test_memory_accumulators_compile_for_both_archs() {
	cp "$DATA/gemm_mem.cu" .
	tu gemm_mem.cu mem_scaled gemm_register_blocking sm_90
	expect_ne 0 "$(entry_count kd/tu-mem_scaled.compute_90.ptx ks_gemm_mem_scaled 'fma.rn.f32')" \
		"mem_scaled: FMAs of the tiled kernel"
	tu gemm_mem.cu arr2d gemm_register_blocking sm_90
	expect_contains "$(cat tu-arr2d.cu)" "__typeof__(float[][67]) A"
	tu gemm_mem.cu gemv_mem_rows gemv_warp_per_row sm_90
	expect_ne 0 "$(entry_count kd/tu-gemv_mem_rows.compute_90.ptx ks_gemv_gemv_mem_rows 'shfl.sync')" \
		"gemv_mem_rows: a warp per row"
}

test_memory_look_alikes_are_declined_with_their_reason() {
	cp "$DATA/gemm_mem.cu" .
	local spec k want out skill
	for spec in "mem_moving:accumulates into C at an index the loop moves" \
		    "mem_in_operand:accumulates into B, which its product reads" \
		    "loop_factor:no loop accumulating a product" \
		    "var_after:declared before the loop and read after it" \
		    "locals_int:is not just"; do
		IFS=: read -r k want <<<"$spec"
		skill=gemv_warp_per_row
		[ "$k" = locals_int ] && skill=gemm_register_blocking
		out=$("$KS_BIN" transform "gemm_mem.cu:$k" --skill "$skill" 2>&1) &&
			fail "$k was transformed"
		expect_contains "$out" "$want"
	done
}
