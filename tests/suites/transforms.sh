# transforms: ks transform on kernels of tests/data/transforms/shapes.cu
# and the bench's elementwise kernels. What a transform claims compiles
# with the real nvcc for sm_90 and sm_80 (-Werror all-warnings); the
# look-alikes are declined with the reason (exit 1); output is the same
# bytes on every run.

suite_probe() {
	have_real_nvcc || echo "no nvcc"
}

ARCHS="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"

# transform FILE KERNEL SKILL [--param k=v]...: the rewritten TU in KERNEL.SKILL.cu
transform() {
	local f=$1 k=$2 s=$3
	shift 3
	"$KS_BIN" transform "$f:$k" --skill "$s" --arch sm_90 --tu -o "$k.$s.cu" "$@"
}

# Compile the rewritten TU $1 beside the original's includes.
compile_tu() {
	# shellcheck disable=SC2086
	"$(real_nvcc)" $ARCHS -std=c++17 -I"$ROOT/tests/data/transforms" \
		-I"$ROOT/bench/common" -I"$2" -Werror all-warnings \
		-Xcompiler -Wall,-Wextra -c "$1" -o "${1%.cu}.o"
}

test_vectorize_applies_to_other_shapes_and_compiles() {
	local k f=$ROOT/tests/data/transforms/shapes.cu
	for k in axpy_struct half_relu gather; do
		transform "$f" $k vectorize_memory
		expect_contains "$(cat $k.vectorize_memory.cu)" "ks_launch_$k"
		compile_tu $k.vectorize_memory.cu "$ROOT/tests/data/transforms"
	done
	# eight halves per pack; the struct member is the bound
	expect_contains "$(cat half_relu.vectorize_memory.cu)" "__half v[8]"
	expect_contains "$(cat axpy_struct.vectorize_memory.cu)" "(long long)(d.n)"
	# the gathered pointer stays a pointer, idx and y are packed
	expect_contains "$(cat gather.vectorize_memory.cu)" "ks_pk1_gather"
	expect_not_contains "$(cat gather.vectorize_memory.cu)" "ks_pk0_gather"
}

test_vectorize_declines_look_alikes() {
	local f=$ROOT/tests/data/transforms/shapes.cu out rc
	for k in scale2d strided keep_positive reverse_block count_positive; do
		rc=0
		out=$("$KS_BIN" transform "$f:$k" --skill vectorize_memory --arch sm_90 2>&1) || rc=$?
		expect_eq 1 "$rc" "exit status of $k"
		case $k in
		scale2d | strided) expect_contains "$out" "global index" ;;
		keep_positive) expect_contains "$out" "on loaded data" ;;
		reverse_block) expect_contains "$out" "shared memory" ;;
		count_positive) expect_contains "$out" "atomic" ;;
		esac
	done
}

test_launch_geometry_applies_to_independent_threads() {
	local f=$ROOT/tests/data/transforms/shapes.cu out rc=0
	for k in scale2d strided; do
		transform "$f" $k launch_geometry --param block=512 --param waves=4
		expect_contains "$(cat $k.launch_geometry.cu)" "__launch_bounds__(512)"
		expect_contains "$(cat $k.launch_geometry.cu)" "cudaOccupancyMaxActiveBlocksPerMultiprocessor"
		compile_tu $k.launch_geometry.cu "$ROOT/tests/data/transforms"
	done
	out=$("$KS_BIN" transform "$f:reverse_block" --skill launch_geometry --arch sm_90 2>&1) || rc=$?
	expect_eq 1 "$rc" "exit status"
	expect_contains "$out" "shared memory"
}

test_bench_elementwise_kernels_compile_for_both_archs() {
	local p
	for p in relu gelu sigmoid softplus; do
		transform "$ROOT/bench/$p/main.cu" ${p}_kernel vectorize_memory \
			-- -I"$ROOT/bench/common" -arch=sm_90
		compile_tu ${p}_kernel.vectorize_memory.cu "$ROOT/bench/$p"
	done
	for k in add_bias gelu scale; do
		transform "$ROOT/bench/gemm_bias_act_scale/main.cu" $k vectorize_memory \
			-- -I"$ROOT/bench/common" -arch=sm_90
	done
	for k in relu_kernel batchnorm_kernel; do
		transform "$ROOT/bench/conv_norm/main.cu" $k vectorize_memory \
			-- -I"$ROOT/bench/common" -arch=sm_90
	done
	compile_tu batchnorm_kernel.vectorize_memory.cu "$ROOT/bench/conv_norm"
}

test_output_is_deterministic() {
	local f=$ROOT/tests/data/transforms/shapes.cu
	"$KS_BIN" transform "$f:axpy_struct" --skill vectorize_memory --arch sm_90 >a.cu
	"$KS_BIN" transform "$f:axpy_struct" --skill vectorize_memory --arch sm_90 >b.cu
	expect_same_file a.cu b.cu
	"$KS_BIN" transform "$f:axpy_struct" --skill vectorize_memory --arch sm_90 \
		--param bytes=8 --param ilp=4 >c.cu
	expect_contains "$(cat c.cu)" "float v[2]"
	expect_contains "$(cat c.cu)" "bool ks_full[4]"
}

test_usage_and_unknown_values() {
	local rc=0 out
	out=$("$KS_BIN" transform x.cu:k --skill no_such 2>&1) || rc=$?
	expect_eq 104 "$rc" "unknown skill"
	expect_contains "$out" "vectorize_memory"
	rc=0
	out=$("$KS_BIN" transform "$ROOT/tests/data/transforms/shapes.cu:gather" \
		--skill vectorize_memory --param bytes=3 2>&1) || rc=$?
	expect_eq 104 "$rc" "bad value"
	expect_contains "$out" "bytes=3 is not an allowed value"
}

test_in_place_transforms_edit_where_the_facts_say() {
	local f=$ROOT/tests/data/transforms/scalar.cu d=$ROOT/tests/data/transforms
	transform "$f" poly unroll_constant_loops
	# the constant loop only, and the TU compiles
	expect_eq 1 "$(grep -c '^[[:space:]]*#pragma unroll$' poly.unroll_constant_loops.cu)" "pragmas"
	compile_tu poly.unroll_constant_loops.cu "$d"
	transform "$f" poly fp32_promotion_fix
	expect_contains "$(cat poly.fp32_promotion_fix.cu)" "0.5f * s + expf(v) * 1e-3f"
	compile_tu poly.fp32_promotion_fix.cu "$d"
	transform "$f" poly fast_math_intrinsics --fast-math
	expect_contains "$(cat poly.fast_math_intrinsics.cu)" "__expf(-v) / __sinf(v)"
	compile_tu poly.fast_math_intrinsics.cu "$d"
	transform "$f" poly restrict_readonly
	expect_contains "$(cat poly.restrict_readonly.cu)" "const float *__restrict__ x, float *__restrict__ y"
	expect_contains "$(cat poly.restrict_readonly.cu)" "__ldg(&(x[i]))"
	compile_tu poly.restrict_readonly.cu "$d"
	transform "$ROOT/tests/data/transforms/shapes.cu" half_relu restrict_readonly
	compile_tu half_relu.restrict_readonly.cu "$d"
}

test_in_place_transforms_decline_look_alikes() {
	local f=$ROOT/tests/data/transforms/scalar.cu out rc
	rc=0
	out=$("$KS_BIN" transform "$f:dpoly" --skill fp32_promotion_fix --arch sm_90 2>&1) || rc=$?
	expect_eq 1 "$rc" "dpoly"
	expect_contains "$out" "declares double"
	rc=0
	out=$("$KS_BIN" transform "$f:poly" --skill fast_math_intrinsics --arch sm_90 2>&1) || rc=$?
	expect_eq 1 "$rc" "no --fast-math"
	expect_contains "$out" "precision setting"
	rc=0
	out=$("$KS_BIN" transform "$f:taps2d" --skill unroll_constant_loops --arch sm_90 2>&1) || rc=$?
	expect_eq 1 "$rc" "taps2d unroll"
	expect_contains "$out" "no loop has a compile-time trip count"
	# c.exp is a member, not a call: nothing to make fast
	rc=0
	out=$("$KS_BIN" transform "$f:taps2d" --skill fast_math_intrinsics --fast-math --arch sm_90 2>&1) || rc=$?
	expect_eq 1 "$rc" "taps2d fast"
	rc=0
	out=$("$KS_BIN" transform "$ROOT/tests/data/transforms/shapes.cu:count_positive" \
		--skill restrict_readonly --arch sm_90 2>&1) || rc=$?
	expect_eq 0 "$rc" "restrict on an atomic kernel"
}

test_transform_finds_the_kernel_through_a_capture() {
	local rec
	printf '%s\n' '__global__ void scale(float *x, float a, int n)' \
		'{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= a; }' \
		'void run(float *x, int n) { scale<<<(n + 255) / 256, 256>>>(x, 2.0f, n); }' >scale.cu
	# a real compile through ks-nvcc writes the build record
	"$KS_NVCC_BIN" -arch=sm_80 -c scale.cu -o scale.o
	rec=$(ls "$KS_DIR"/builds/*.json)
	mkdir -p cap
	python3 - cap "$rec" <<'PY'
import json, struct, sys
d, rec = sys.argv[1], sys.argv[2]
base = 0x7f0000000000
params = struct.pack("<Qfi", base, 2.0, 4)
cap = {"format": 1, "kernel": "_Z5scalePffi",
       "demangled": "scale(float*, float, int)", "api": "cuLaunchKernel",
       "grid": [1, 1, 1], "block": [256, 1, 1], "shmem": 0,
       "cooperative": False, "launch": 1, "device": "NVIDIA A100",
       "cc": [8, 0], "cuda_version": 13000, "program": None,
       "time": "2026-12-01T10:00:00Z", "record": rec, "note": None,
       "param_size": len(params), "param_bytes": params.hex(),
       "params": [
           {"offset": 0, "size": 8, "kind": "pointer", "type": None,
            "pointers": [{"at": 0, "buffer": 0, "offset": 0}]},
           {"offset": 8, "size": 4, "kind": "value", "type": None, "pointers": []},
           {"offset": 12, "size": 4, "kind": "value", "type": None, "pointers": []}],
       "buffers": [{"id": 0, "mem": "device", "name": None, "base": hex(base),
                    "size": 16, "dtype": "f32", "written": True,
                    "in": "b0.in", "out": "b0.out"}]}
open(d + "/b0.in", "wb").write(struct.pack("<4f", 1, 2, 3, 4))
open(d + "/b0.out", "wb").write(struct.pack("<4f", 2, 4, 6, 8))
open(d + "/launch.json", "w").write(json.dumps(cap))
PY
	"$KS_BIN" transform cap --skill vectorize_memory >v.cu
	# the arch of the capture's device, the in-place pointer packed
	expect_contains "$(head -n 1 v.cu)" "arch 800"
	expect_contains "$(cat v.cu)" "ks_v0[ks_u] = *reinterpret_cast<const ks_pk0_scale *>"
	expect_contains "$(cat v.cu)" "*reinterpret_cast<ks_pk0_scale *>(x + ks_t) = ks_v0[ks_u]"
	"$KS_BIN" transform cap --skill vectorize_memory --tu -o tu.cu
	"$(real_nvcc)" -arch=sm_80 -Werror all-warnings -c tu.cu -o tu.o
}

test_try_reports_a_review_that_cannot_run() {
	local rc=0 out
	test_transform_finds_the_kernel_through_a_capture >/dev/null
	# no GPU here: the first review fails, and ks try stops there
	out=$("$KS_BIN" try cap --skill vectorize_memory --budget 3 --json 2>&1) || rc=$?
	expect_eq 1 "$rc" "exit status"
	python3 - "$out" <<'PY'
import json, sys
j = json.loads(sys.argv[1])
assert j["skill"] == "vectorize_memory" and j["arch"] == 800, j
assert j["best"] is None, j
assert len(j["points"]) == 1, j["points"]
p = j["points"][0]
assert p["params"] == "bytes=16 ilp=1 block=256 waves=0", p
assert p["state"] == "failed" and p["why"], p
assert p["candidate_file"].endswith("/p0.cu"), p
assert "candidate" not in p, p
PY
	rc=0
	out=$("$KS_BIN" try scale.cu:scale --skill vectorize_memory 2>&1) || rc=$?
	expect_eq 105 "$rc" "a file instead of a capture"
	expect_contains "$out" "needs a capture"
}

# A variant sits in the user's TU, after the user's macros: its helpers'
# own names must not be ones a program defines (`#define N 4096`). Each
# transform with helpers, on a copy of its test file that defines the
# short names first, compiles.
test_variants_survive_short_macros_of_the_program() {
	local spec f k s
	for spec in stencil.cu:jacobi:stencil_smem_halo \
		    stencil.cu:heat3d:stencil_smem_halo \
		    atomics.cu:sq_sum:atomic_hierarchical_reduce \
		    atomics.cu:hist_u8:smem_histogram \
		    permute.cu:batched_transpose:smem_tiled_transpose \
		    derived.cu:rotate3:derived_grid \
		    pool.cu:avgpool_incl:pool_window_rows \
		    conv.cu:nchw3:conv_tiling; do
		IFS=: read -r f k s <<<"$spec"
		printf '#define T 3\n#define N 5\n#define I 7\n#define U 11\n#define V 13\n#define OP 17\n' >"m-$f"
		cat "$ROOT/tests/data/transforms/$f" >>"m-$f"
		transform "m-$f" "$k" "$s" || fail "$k ($s) was not transformed"
		compile_tu "$k.$s.cu" . || fail "$k ($s) does not compile after the macros"
	done
}

# A template kernel's instance, through its instance view: named when the
# TU has several, its plain copy transformed (a type argument of one name
# in place, `unsigned int` by an alias, a non-type argument by its value),
# the rewritten TU compiling for both archs with the launcher template
# specialized for that instance alone.
test_template_instances_through_their_view() {
	local f=$ROOT/tests/data/transforms/instances.cu rc=0
	"$KS_BIN" transform "$f:scale_t" --skill vectorize_memory --arch sm_90 \
		>out.txt 2>err.txt || rc=$?
	expect_eq 105 "$rc" "a template of two instances, unnamed"
	expect_contains "$(cat err.txt)" "scale_t is a template with 2 instances here: name one"
	transform "$f" 'scale_t<float>' vectorize_memory
	out=$(cat 'scale_t<float>.vectorize_memory.cu')
	expect_contains "$out" "template <> __global__ void"
	expect_contains "$out" "ks_launch_scale_t<float>(dim3 ks_grid"
	expect_contains "$out" "ks_launch_scale_t((n + 255) / 256, 256, 0, cudaStream_t(), x, y, (T)2, n)"
	expect_not_contains "$out" "typedef"
	compile_tu 'scale_t<float>.vectorize_memory.cu' "$ROOT/tests/data/transforms"
	transform "$f" add_b launch_geometry
	out=$(cat add_b.launch_geometry.cu)
	expect_contains "$out" "typedef unsigned int ks_tp_add_b_T;"
	expect_contains "$out" "__launch_bounds__((128))"
	compile_tu add_b.launch_geometry.cu "$ROOT/tests/data/transforms"
	transform "$f" flip_t smem_tiled_transpose
	expect_contains "$(cat flip_t.smem_tiled_transpose.cu)" "ks_launch_flip_t<double>"
	compile_tu flip_t.smem_tiled_transpose.cu "$ROOT/tests/data/transforms"
	# a plain copy's decline is the transform's own
	rc=0
	"$KS_BIN" transform "$f:add_b" --skill vectorize_memory --arch sm_90 \
		>out.txt 2>err.txt || rc=$?
	expect_eq 1 "$rc" "vectorize_memory on add_b"
	expect_contains "$(cat err.txt)" "declines add_b"
}

# A kernel defined in a header the TU includes (a template too): the
# transform reads the TU's text with the header brought in, and the
# rewritten TU compiles without the header's folder on the include path
# (its own quoted includes found beside it). Reached through another
# header, both headers are brought in; included twice, the kernel is
# declined with the reason.
test_kernels_defined_in_a_header() {
	local rc=0
	mkdir -p src/kern
	cat >src/kern/k.cuh <<'EOF'
#pragma once
#include "width.h"
__global__ void hscale(const float *x, float *y, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = a * x[i] * WIDTH;
}

template <class T>
__global__ void hflip(const T *x, T *y, int rows, int cols)
{
	int c = blockIdx.x * blockDim.x + threadIdx.x;
	int r = blockIdx.y * blockDim.y + threadIdx.y;

	if (r < rows && c < cols)
		y[(size_t)c * rows + r] = x[(size_t)r * cols + c];
}
EOF
	printf '#define WIDTH 1\n' >src/kern/width.h
	cat >src/app.cu <<'EOF'
#include "kern/k.cuh"

void
go(const float *x, float *y, int n)
{
	hscale<<<(n + 255) / 256, 256>>>(x, y, 2.0f, n);
	hflip<<<dim3(64, 64), dim3(16, 16)>>>(x, y, 1024, 1024);
}
EOF
	transform src/app.cu hscale vectorize_memory
	out=$(cat hscale.vectorize_memory.cu)
	expect_contains "$out" "#line 1 \"$TEST_DIR/src/kern/k.cuh\""
	expect_contains "$out" "#include \"$TEST_DIR/src/kern/width.h\""
	expect_contains "$out" "ks_launch_hscale((n + 255) / 256, 256"
	compile_tu hscale.vectorize_memory.cu src
	transform src/app.cu hflip smem_tiled_transpose
	expect_contains "$(cat hflip.smem_tiled_transpose.cu)" "template <> __global__ void"
	compile_tu hflip.smem_tiled_transpose.cu src
	# through another header: both brought in, the text after the inner
	# include at its own line of all.h
	printf '#pragma once\n#include "kern/k.cuh"\n#define ALL_H 1\n' >src/all.h
	sed -i 's|#include "kern/k.cuh"|#include "all.h"|' src/app.cu
	transform src/app.cu hscale vectorize_memory
	out=$(cat hscale.vectorize_memory.cu)
	expect_contains "$out" "#line 1 \"$TEST_DIR/src/all.h\""
	expect_contains "$out" "#line 1 \"$TEST_DIR/src/kern/k.cuh\""
	expect_contains "$out" "#line 3 \"$TEST_DIR/src/all.h\""
	expect_contains "$out" "ks_launch_hscale((n + 255) / 256, 256"
	compile_tu hscale.vectorize_memory.cu src
	# included a second time by the TU itself: declined, said why
	sed -i 's|#include "all.h"|#include "all.h"\n#include "kern/k.cuh"|' src/app.cu
	"$KS_BIN" transform src/app.cu:hscale --skill vectorize_memory --arch sm_90 \
		>out.txt 2>err.txt || rc=$?
	expect_eq 105 "$rc" "a kernel whose header is included twice"
	expect_contains "$(cat err.txt)" "hscale is defined in a header ($TEST_DIR/src/kern/k.cuh): kernel hscale's header \"kern/k.cuh\" (through \"all.h\") is included 2 times"
}
