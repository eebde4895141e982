# stencil-unroll.py: an experiment by hand, not a transform. From a
# packed (pack=4) stencil_smem_halo TU (stencil-cands.sh's points, the
# lane-body ones included), write a TU whose pass along z unrolls U
# steps, not the ring's period: the ring becomes a window array that is
# shifted by U slots after each U steps (10 vector moves every U steps)
# instead of indexed modulo its period. The kernel's code shrinks by
# about period / U; ncu counted 1.06 (default) and 2.62 (lane body)
# cycles an instruction stalled on instruction fetch at the full
# unrolling (docs/TRANSFORMS.md, "Lane bodies and the sixth round").
#   python3 tests/data/transforms/stencil-unroll.py IN.cu OUT.cu U
import re, sys
src, dst, u = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = open(src).read()
ring = int(re.search(r'ks_st_v4<float> ks_q\[(\d+)\];', s).group(1))
live = int(re.search(r'for \(int ks_j = 0; ks_j < (\d+); ks_j\+\+\)\n\t\tks_q\[ks_j\] =', s).group(1))
if u % 2 or u >= ring or u < 2:
	sys.exit('stencil-unroll.py: U must be even and below the ring (%d)' % ring)
s = s.replace('ks_st_v4<float> ks_q[%d];' % ring, 'ks_st_v4<float> ks_q[%d];' % (u + live))
old = 'for (int ks_k0 = 0; ks_k0 < ks_nst; ks_k0 += %d) {' % ring
assert s.count(old) == 1
s = s.replace(old, 'for (int ks_k0 = 0; ks_k0 < ks_nst; ks_k0 += %d) {' % u)
old = 'for (int ks_u = 0; ks_u < %d; ks_u++) {' % ring
assert s.count(old) == 1
s = s.replace(old, 'for (int ks_u = 0; ks_u < %d; ks_u++) {' % u)
n = 0
for pat in (r'\(ks_u \+ (\d+|ks_j)\) %% %d' % ring,):
	s, n = re.subn(pat, r'(ks_u + \1)', s)
assert n >= 3, n
# the end of the pass's body: the step counters, then the two braces
old = '''			if (++ks_ts == ks_ob.z) {
				ks_ts = 0;
				ks_bs++;
			}
		}
'''
assert s.count(old) == 1
s = s.replace(old, old + '''		/* by hand: the window moves U steps on */
#pragma unroll
		for (int ks_j = 0; ks_j < %d; ks_j++)
			ks_q[ks_j] = ks_q[ks_j + %d];
''' % (live, u))
open(dst, 'w').write(s)
