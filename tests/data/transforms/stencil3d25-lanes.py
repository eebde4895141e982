# stencil3d25-lanes.py: an experiment by hand, not a transform. From a
# packed (pack=4) stencil_smem_halo TU of bench/stencil3d25 (made by
# tests/data/transforms/stencil-cands.sh), write a TU whose threads run
# the kernel's body once on 4-wide values (a struct of 4 floats, +, *
# and += lane by lane, the reads as 4 consecutive window columns or the
# ring's vector) where the thread's 4 outputs take the kernel's x tests
# alike, and the 4 bodies as the transform emits them elsewhere (their
# window read from shared memory). The body is stencil3d25's, written
# out here: the TU is for timing the 4 chains in one block against 4
# blocks (docs/TRANSFORMS.md, "Not yet done" of the packed form).
#   python3 tests/data/transforms/stencil3d25-lanes.py IN.cu OUT.cu [agree]
import re, sys
src, dst = sys.argv[1:3]
# agree: the 4-wide body wherever the 4 outputs agree on every x test
# (inside, or all 4 in the border, or all 4 past nx), not only inside
agree = sys.argv[3:4] == ['agree']
s = open(src).read()
tw = int(re.search(r'__shared__ __align__\(16\) float ks_t\[2\]\[(\d+)\]\[(\d+)\]', s).group(2))
lane = '''
struct ks_l4 { float v[4]; };
__device__ __forceinline__ static ks_l4 operator+(ks_l4 a, ks_l4 b) { ks_l4 r; for (int j = 0; j < 4; j++) r.v[j] = a.v[j] + b.v[j]; return r; }
__device__ __forceinline__ static ks_l4 operator*(float a, ks_l4 b) { ks_l4 r; for (int j = 0; j < 4; j++) r.v[j] = a * b.v[j]; return r; }
__device__ __forceinline__ static ks_l4 &operator+=(ks_l4 &a, ks_l4 b) { for (int j = 0; j < 4; j++) a.v[j] += b.v[j]; return a; }
__device__ __forceinline__ static ks_l4 ks_lw(const float (&tw)[9][12], int r, int c) { ks_l4 o; for (int j = 0; j < 4; j++) o.v[j] = tw[r][c + j]; return o; }
__device__ __forceinline__ static ks_l4 ks_lq(const ks_st_v4<float> (&q)[9], int k) { ks_l4 o; for (int j = 0; j < 4; j++) o.v[j] = q[k].v[j]; return o; }
struct ks_sw { const float *b; __device__ __forceinline__ const float *operator[](int r) const { return b + r * TWID; } };
__device__ __forceinline__ static void
ks_st_body4_stencil3d25_kernel(const uint3 ks_tid, const uint3 ks_bid, const dim3 ks_bdim, const dim3 ks_gdim,
	const float (&ks_tw)[9][12], const ks_st_v4<float> (&ks_q)[9], ks_st_v4<float> &ks_ov, unsigned &ks_om, const float *in, float *out, int nx, int ny, int nz)
{
	int x = ks_bid.x * ks_bdim.x + ks_tid.x;
	int y = ks_bid.y * ks_bdim.y + ks_tid.y;
	int z = ks_bid.z * ks_bdim.z + ks_tid.z;
	if (x >= nx || y >= ny || z >= nz)
		return;
	size_t i = ((size_t)z * ny + y) * nx + x;
	if (x < STENCIL_R || y < STENCIL_R || z < STENCIL_R || x >= nx - STENCIL_R ||
	    y >= ny - STENCIL_R || z >= nz - STENCIL_R) {
		ks_om = 15u; ks_ov = ks_q[4];
		return;
	}
	ks_l4 acc = coef[0] * ((void)(i), ks_lq(ks_q, 4 + (0)));
	for (int r = 1; r <= STENCIL_R; r++)
		acc += coef[r] * (((void)(i - r), ks_lw(ks_tw, 4 + (0), 4 + (-1 + -1 * ((r) - (1))))) + ((void)(i + r), ks_lw(ks_tw, 4 + (0), 4 + (1 + 1 * ((r) - (1))))) + ((void)(i - r * nx), ks_lw(ks_tw, 4 + (-1 + -1 * ((r) - (1))), 4 + (0))) + ((void)(i + r * nx), ks_lw(ks_tw, 4 + (1 + 1 * ((r) - (1))), 4 + (0))) +
				  ((void)(i - r * (size_t)nx * ny), ks_lq(ks_q, 4 + (-1 + -1 * ((r) - (1))))) + ((void)(i + r * (size_t)nx * ny), ks_lq(ks_q, 4 + (1 + 1 * ((r) - (1))))));
	ks_om = 15u; memcpy(&ks_ov, &acc, sizeof acc);
}
'''.replace('TWID', str(tw))
old = '''__device__ __forceinline__ static void
ks_st_body_stencil3d25_kernel(const uint3 ks_tid, const uint3 ks_bid, const dim3 ks_bdim, const dim3 ks_gdim,
	const float (&ks_tw)[9][12], const int ks_j,'''
assert old in s
s = s.replace(old, lane + '''template <class ks_W> __device__ __forceinline__ static void
ks_st_body_stencil3d25_kernel(const uint3 ks_tid, const uint3 ks_bid, const dim3 ks_bdim, const dim3 ks_gdim,
	const ks_W &ks_tw, const int ks_j,''')
i = s.index('\t\t\t/* the window: 12 columns of each row, ks_lx - 4 on */')
j = s.index('\t\t\tks_st_v4<float> ks_o;\n', i)
win = s[i:j]
s = s[:i] + s[j:]
old = '''			ks_st_v4<float> ks_o;
			unsigned ks_om = 0;

#pragma unroll
			for (int ks_v = 0; ks_v < 4; ks_v++) {'''
assert old in s
s = s.replace(old, '''			ks_st_v4<float> ks_o;
			unsigned ks_om = 0;

			if (ks_uni) {
''' + win.replace('\n\t\t\t', '\n\t\t\t\t') + '''				ks_st_v4<float> ks_w4[9];
#pragma unroll
				for (int ks_j = 0; ks_j < 9; ks_j++)
					ks_w4[ks_j] = ks_q[(ks_u + ks_j) % 12];
				ks_st_body4_stencil3d25_kernel(make_uint3(ks_tx[0], ks_ty, ks_ts),
					make_uint3(ks_bx[0], ks_by, ks_bs), ks_ob, ks_og, ks_tw,
					ks_w4, ks_o, ks_om, in, out, nx, ny, nz);
			} else
#pragma unroll
			for (int ks_v = 0; ks_v < 4; ks_v++) {''')
old = '''						make_uint3(ks_bx[ks_v], ks_by, ks_bs), ks_ob, ks_og, ks_tw,
						ks_v, ks_w, ks_o.v, ks_om, in, out, nx, ny, nz);'''
assert old in s
s = s.replace(old, '''						make_uint3(ks_bx[ks_v], ks_by, ks_bs), ks_ob, ks_og, ks_sw{&ks_t[ks_u % 2][ks_ly - 4][ks_lx - 4]},
						ks_v, ks_w, ks_o.v, ks_om, in, out, nx, ny, nz);''')
old = '\tconst long long ks_cs = (long long)ks_og.z * ks_ob.z;\n'
assert s.count(old) == 1
if agree:
	uni = '''	/* by hand (an experiment, stencil3d25 only): the 4 outputs take each
	   of the kernel's x tests (x >= nx, x < 4, x >= nx - 4) the same way:
	   each test is monotone in x, so the first and the last output decide */
	const int ks_x4 = (int)(ks_bx[0] * ks_ob.x + ks_tx[0]);
	const bool ks_uni = ks_mine && ks_mx[3] && ks_tx[0] + 3 < ks_ob.x &&
		(ks_x4 >= nx) == (ks_x4 + 3 >= nx) && (ks_x4 < 4) == (ks_x4 + 3 < 4) &&
		(ks_x4 >= nx - 4) == (ks_x4 + 3 >= nx - 4);
'''
else:
	uni = '''	/* by hand (an experiment, stencil3d25 only): the 4 outputs take the
	   kernel's x tests the same way (4 <= x, x + 3 < nx - 4) */
	const bool ks_uni = ks_mine && ks_mx[3] && ks_tx[0] + 3 < ks_ob.x &&
		(int)(ks_bx[0] * ks_ob.x + ks_tx[0]) >= 4 && (int)(ks_bx[0] * ks_ob.x + ks_tx[0]) + 3 < nx - 4;
'''
s = s.replace(old, uni + old)
open(dst, 'w').write(s)
