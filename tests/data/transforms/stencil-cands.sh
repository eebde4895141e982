#!/bin/bash
# Build machine (libclang that parses CUDA 13's CCCL): the candidate TUs
# of stencil_smem_halo that tests/data/transforms/gpu-stencil.sh checks
# and times on the GPU machine: CANDS/<prog>/<point>.cu for the three
# bench stencils, `d` the default point.
#   bash tests/data/transforms/stencil-cands.sh CANDS [KS]
# (KS_SC_POINTS="d p2 ..." makes only the points named there)
set -u
cands=${1:?usage: stencil-cands.sh CANDS [KS]}
top=$(cd "$(dirname "$0")/../../.." && pwd)
ks=${2:-$top/build/ks}
mkdir -p "$cands"
cands=$(cd "$cands" && pwd)
cd "$top" || exit 1
wanted() { # point: named by KS_SC_POINTS, or all without it
	case " ${KS_SC_POINTS:-$1} " in *" $1 "*) return 0 ;; esac
	return 1
}
gen() { # prog point k=v...
	local p=$1 t=$2 kv args=()
	shift 2
	wanted "$t" || return 0
	for kv in "$@"; do args+=(--param "$kv"); done
	mkdir -p "$cands/$p"
	"$ks" transform "bench/$p/main.cu:${p}_kernel" --skill stencil_smem_halo "${args[@]}" \
		--arch sm_90 --tu -o "$cands/$p/$t.cu" -- -Ibench/common || echo "failed: $p $t"
}
gen jacobi2d d
gen jacobi2d d8r1024 depth=8 resident=1024
gen jacobi2d d2 depth=2
gen stencil3d7 d
gen stencil3d7 y16 by=16
gen stencil3d7 t4 stream=0 depth=4 resident=1024
gen stencil3d25 t4 stream=0 depth=4 resident=1024
gen stencil3d25 t4y16 stream=0 depth=4 by=16 resident=1024
gen stencil3d25 d
# the second round: several columns per thread, the halo prefetch
gen jacobi2d v4d2r1k vx=4 depth=2 resident=1024
gen jacobi2d v2r1k vx=2 resident=1024
gen stencil3d7 v4d2r1k vx=4 depth=2 resident=1024
gen stencil3d7 v4r0 vx=4 resident=0
gen stencil3d7 v2r1k vx=2 resident=1024
gen stencil3d25 v2d2r1k vx=2 depth=2 resident=1024
gen stencil3d25 pfy16 by=16 resident=1024
# the third round: 4 consecutive outputs a thread (pack=4, the 3-D
# default) against one (pack=1, the plane form before it)
gen stencil3d25 p1 pack=1
gen stencil3d25 p4y32 by=32
gen stencil3d25 p4d4 depth=4
gen stencil3d25 p4b64 bx=64
gen stencil3d7 p1 pack=1
gen stencil3d7 p4y16 by=16
# the fourth round: the packed form with only the output row's 12
# elements in registers (the other rows read from shared memory)
gen stencil3d25 p4y8 by=8
gen stencil3d7 p4b64 bx=64
# the fifth round: 2 consecutive outputs a thread (pack=2: 8-byte
# vectors, 80 registers and no spill at radius 4, 768 threads an SM)
gen stencil3d25 p2 pack=2
gen stencil3d25 p2b64 pack=2 bx=64
gen stencil3d25 p2r0 pack=2 resident=0
gen stencil3d7 p2 pack=2
gen stencil3d25 p2b16 pack=2 bx=16
gen stencil3d25 p4d1 depth=1
# the sixth round: wider tiles and longer columns (less halo an output:
# the y halo's share of a plane, the z halo's share of a column)
gen stencil3d25 p4b128 bx=128
gen stencil3d25 p4b64z128 bx=64 planes=128
gen stencil3d25 p4z128 planes=128
# and the 4-wide body tried by hand (stencil3d25-lanes.py) on the
# default and two of these: laned, lanep4b64, lanep4z128
for t in d p4b64 p4z128; do
	wanted "lane$t" || continue
	if [ -e "$cands/stencil3d25/$t.cu" ]; then
		python3 tests/data/transforms/stencil3d25-lanes.py "$cands/stencil3d25/$t.cu" \
			"$cands/stencil3d25/lane$t.cu" || echo "failed: stencil3d25 lane$t"
	else
		echo "failed: stencil3d25 lane$t (make $t too)"
	fi
done
# the seventh round: the packed pass unrolled 4 steps (a third of the
# code: ncu counted instruction-fetch stalls), and the 4-wide body
# wherever the 4 outputs agree on each x test (at 512 columns: every
# thread, so the 4 bodies never run), on the default and on bx=64:
# laneagreed, laneagreep4b64, and both with 4 steps unrolled by hand
# (stencil-unroll.py): laneagreedu4, laneagreep4b64u4
gen stencil3d25 u4 unroll=4
gen stencil3d25 u4b64 unroll=4 bx=64
gen stencil3d7 u4 unroll=4
for t in d p4b64; do
	wanted "laneagree$t" || wanted "laneagree${t}u4" || continue
	if [ -e "$cands/stencil3d25/$t.cu" ]; then
		python3 tests/data/transforms/stencil3d25-lanes.py "$cands/stencil3d25/$t.cu" \
			"$cands/stencil3d25/laneagree$t.cu" agree || echo "failed: stencil3d25 laneagree$t"
	else
		echo "failed: stencil3d25 laneagree$t (make $t too)"
	fi
	wanted "laneagree${t}u4" || continue
	python3 tests/data/transforms/stencil-unroll.py "$cands/stencil3d25/laneagree$t.cu" \
		"$cands/stencil3d25/laneagree${t}u4.cu" 4 || echo "failed: stencil3d25 laneagree${t}u4"
done
# the eighth round: the lane body as the transform emits it (the
# default: lanes=1, and at radius 4 unroll=4) against the 4 bodies
# (l0) and against the whole ring (lr). The earlier rounds' points were
# measured before lanes=1 and unroll=0's 4 steps were defaults: made
# now, they differ from what was measured unless lanes=0 unroll=-1 are
# added.
gen stencil3d25 l0 lanes=0
gen stencil3d25 lr unroll=-1
