#!/bin/sh
# Regenerates the captured compiler output the unit tests read, from
# kernels.cu, with the nvcc on PATH (captured with nvcc 13.0.88):
#   ptxas-v.txt           stderr of -Xptxas -v for sm_80 and sm_90
#   kernels.sm_80.ptx     PTX of compute_80 and compute_90 from that compile
#   kernels.sm_90.ptx
#   kernels.fastmath.ptx  PTX of compute_90 with -use_fast_math
# sass-handwritten.txt is not generated: see the note at its top.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nvcc -Xptxas -v -keep -keep-dir "$tmp" \
	-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
	-c kernels.cu -o "$tmp/k.o" 2>ptxas-v.txt
cp "$tmp/kernels.compute_80.ptx" kernels.sm_80.ptx
cp "$tmp/kernels.compute_90.ptx" kernels.sm_90.ptx
mkdir "$tmp/fast"
nvcc -use_fast_math -keep -keep-dir "$tmp/fast" -arch=sm_90 -c kernels.cu \
	-o "$tmp/fast/k.o"
cp "$tmp/fast/kernels.ptx" kernels.fastmath.ptx
