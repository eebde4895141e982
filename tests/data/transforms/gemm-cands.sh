#!/bin/bash
# Build machine (libclang that parses CUDA 13's CCCL): the candidate TUs
# that tests/data/transforms/gpu-gemm.sh checks and times on the GPU
# machine: CANDS/<prog>/<point>.cu for the bench GEMM and GEMV kernels,
# CANDS/odd/<kernel>[-<point>].cu for tests/data/transforms/gemm.cu and
# gemm_mem.cu, CANDS/odd/orig.cu and mem-orig.cu (those files as they are).
#   bash tests/data/transforms/gemm-cands.sh CANDS [KS]
set -u
cands=${1:?usage: gemm-cands.sh CANDS [KS]}
top=$(cd "$(dirname "$0")/../../.." && pwd)
ks=${2:-$top/build/ks}
mkdir -p "$cands"
cands=$(cd "$cands" && pwd)
cd "$top" || exit 1
gen() { # prog kernel skill point k=v...
	local p=$1 k=$2 s=$3 t=$4 kv args=()
	shift 4
	for kv in "$@"; do args+=(--param "$kv"); done
	mkdir -p "$cands/$p"
	"$ks" transform "bench/$p/main.cu:$k" --skill "$s" "${args[@]}" --arch sm_90 --tu \
		-o "$cands/$p/$t.cu" -- -Ibench/common || echo "failed: $p $t"
}
odd() { # kernel skill point k=v... (ODD_FILE: the file, gemm.cu)
	local k=$1 s=$2 t=$3 kv args=()
	shift 3
	for kv in "$@"; do args+=(--param "$kv"); done
	"$ks" transform "tests/data/transforms/${ODD_FILE:-gemm.cu}:$k" --skill "$s" "${args[@]}" \
		--arch sm_90 --tu -o "$cands/odd/$k$t.cu" || echo "failed: $k$t"
}
for spec in gemm_square:gemm_naive gemm_tall_skinny:gemm_naive gemm_transposed:gemm_tn_naive \
	    gemm_batched:gemm_batched_naive gemm_bias_act_scale:gemm_naive; do
	gen "${spec%%:*}" "${spec##*:}" gemm_register_blocking d
done
gen gemm_square gemm_naive gemm_register_blocking k16 bk=16
gen gemm_tall_skinny gemm_naive gemm_register_blocking m64 bm=64
gen gemv gemv_naive gemv_warp_per_row d
gen gemv gemv_naive gemv_warp_per_row w4 warps=4
mkdir -p "$cands/odd"
cp tests/data/transforms/gemm.cu "$cands/odd/orig.cu"
for k in nn_strided tn_fma nt_bias_relu tt_swapped batched_strided any_strides; do
	odd $k gemm_register_blocking ""
done
for k in tt_swapped any_strides batched_strided; do
	odd $k gemm_register_blocking -s64 bm=64 bn=64 tm=4 tn=4 bk=16
done
for k in gemv_rows gemv_incx; do
	odd $k gemv_warp_per_row ""
	odd $k gemv_warp_per_row -w8 warps=8
done
# accumulators in memory, factors, locals (gemm_mem.cu, a program too)
cp tests/data/transforms/gemm_mem.cu "$cands/odd/mem-orig.cu"
for k in mem_scaled mem_zero_tn locals; do
	ODD_FILE=gemm_mem.cu odd $k gemm_register_blocking ""
done
for k in gemv_mem_rows gemv_mem_cols; do
	ODD_FILE=gemm_mem.cu odd $k gemv_warp_per_row ""
done
