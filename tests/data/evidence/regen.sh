#!/bin/sh
# Regenerates the captured compiler output the unit tests read, from
# kernels.cu, with the nvcc on PATH (captured with nvcc 13.0.88):
#   ptxas-v.txt           stderr of -Xptxas -v for sm_80 and sm_90
#   kernels.sm_80.ptx     PTX of compute_80 and compute_90 from that compile
#   kernels.sm_90.ptx
#   kernels.fastmath.ptx  PTX of compute_90 with -use_fast_math
#   sass-real-sm90.txt    cuobjdump -sass of the sm_90 image, trimmed, when
#                         a cuobjdump exists (the GPU machine)
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
# Where a cuobjdump exists (the GPU machine): the real SASS of the sm_90
# image, trimmed as sass-real-sm90.txt's header says.
if command -v cuobjdump >/dev/null 2>&1; then
	nvcc -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
		-c kernels.cu -o "$tmp/s.o"
	cuobjdump -sass "$tmp/s.o" >"$tmp/sass.txt"
	python3 - "$tmp/sass.txt" <<'PY'
import re, sys
src = open(sys.argv[1]).read().split('\n')
start = max(0, next(i for i, l in enumerate(src) if l.strip() == 'arch = sm_90') - 3)
sec = [l.rstrip() for l in src[start:]
       if not re.match(r'^\s+/\* 0x[0-9a-f]+ \*/\s*$', l)]
cur, rp = None, []
for j, l in enumerate(sec):
    m = re.match(r'^\s+Function : (\S+)', l)
    if m:
        cur = m.group(1)
    if cur == '_Z12reg_pressurePKfPfi' and re.match(r'^\s+/\*[0-9a-f]+\*/', l):
        rp.append(j)
drop = set(rp[120:-120])
res, marked = [], False
for j, l in enumerate(sec):
    if j in drop:
        if not marked:
            res.append('        [... %d instructions of _Z12reg_pressurePKfPfi '
                       'removed here ...]' % len(drop))
            marked = True
        continue
    res.append(l)
hdr = open('sass-real-sm90.txt').read().split('\n\n')[0]
open('sass-real-sm90.txt', 'w').write(hdr + '\n\n' + '\n'.join(res) + '\n')
PY
fi
