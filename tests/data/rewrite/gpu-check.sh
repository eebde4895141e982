#!/bin/sh
# Run-time check of rewritten translation units, on a machine with nvcc and
# an sm_90 GPU (tests/suites/rewrite.sh only compiles). Usage:
#   tests/data/rewrite/gpu-check.sh [WORKDIR]
# For each case: rewrite saxpy.cu with a variant whose launcher counts its
# calls (saxpy-launcher.variant.cu plus a counter), build it with
# gpu-main.cu for the given targets, run it, and compare the launcher count
# and the results with what the case expects. Prints one line per case and
# "gpu-check: N failed" at the end.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work"
cd "$work"
nvcc=${NVCC:-nvcc}
cc -std=c11 -D_GNU_SOURCE -o rewrite-tool "$here/rewrite-tool.c" \
	"$root/src/cache/rewrite.c" "$root/src/cache/lex.c" "$root/src/core/buf.c" \
	"$root/src/core/util.c" "$root/src/core/fs.c"
cp "$here/saxpy.cu" "$here/gpu-main.cu" .
# The test variant: the launcher counts itself.
sed -e 's|^// ks-nvcc: helpers$|// ks-nvcc: helpers\nextern int launcher_calls;|' \
	-e 's|^\tint quads = n / 4;$|\tint quads = n / 4;\n\n\tlauncher_calls++;|' \
	"$here/saxpy-launcher.variant.cu" >counted.variant.cu
grep -q 'launcher_calls++' counted.variant.cu

failed=0
# case NAME ARCH-OF-VARIANT(0: no rewrite) WANT-LAUNCHER-CALLS ENV NVCC-TARGETS...
case_() {
	name=$1 arch=$2 want=$3 env=$4
	shift 4
	if [ "$arch" = 0 ]; then
		cp saxpy.cu "$name.cu"
	else
		./rewrite-tool saxpy.cu saxpy "$arch" counted.variant.cu >"$name.cu"
	fi
	"$nvcc" "$@" -o "$name" "$name.cu" gpu-main.cu
	if out=$(env $env "./$name"); then
		case $out in
		"launcher_calls=$want errors=0 "*) echo "ok   $name: $out" ;;
		*) echo "FAIL $name: $out (want launcher_calls=$want)"; failed=$((failed + 1)) ;;
		esac
	else
		echo "FAIL $name: status $?: $out"
		failed=$((failed + 1))
	fi
}
both="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"
# The variant's image runs: its launcher runs.
case_ v900 900 3 X=1 $both
# Verified for sm_80: the sm_90 image is the original (and lacks the
# variant's extra kernel): the original launches, also with eager loading.
case_ v800 800 0 X=1 $both
case_ v800eager 800 0 CUDA_MODULE_LOADING=EAGER $both
case_ v900eager 900 3 CUDA_MODULE_LOADING=EAGER $both
# sm_80 SASS and compute_90 PTX: the GPU JIT-compiles the variant's PTX.
case_ v900jit 900 3 X=1 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=compute_90
# Only compute_80 PTX: the original code runs on the 9.0 device, so the
# original launch must happen (a compute-capability test would be wrong).
case_ v900ptx80 900 0 X=1 -gencode arch=compute_80,code=compute_80
# Relocatable device code.
case_ v900rdc 900 3 X=1 -rdc=true $both
# The unrewritten source.
case_ original 0 0 X=1 $both
echo "gpu-check: $failed failed"
[ "$failed" = 0 ]
