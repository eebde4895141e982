#!/usr/bin/env python3
"""sample_blocks.py IN.cu OUT.cu: IN with a guard at the top of every
__global__ function body that ends, in device code, every block outside a
sample of the grid: in each dimension the first two, the last two and
about four evenly spaced indices between, and their every combination.
For measuring what compute-sanitizer's racecheck costs on such a sample
(tests/data/review/sanitizer-cost.sh): racecheck's hazards are those of
one block's shared memory, so each block it checks is checked whole."""
import re
import sys

GUARD = r'''
#ifndef KS_RC_SAMPLE_DEFINED
#define KS_RC_SAMPLE_DEFINED
__device__ __forceinline__ static bool
ks_rc_keep(unsigned c, unsigned g)
{
	const unsigned s = g > 8 ? (g - 4 + 3) / 4 : 1;

	return g <= 8 || c < 2 || c + 2 >= g || (c - 2) % s == 0;
}
#ifdef __CUDA_ARCH__
#define KS_RC_SAMPLE \
	if (!ks_rc_keep(blockIdx.x, gridDim.x) || !ks_rc_keep(blockIdx.y, gridDim.y) || \
	    !ks_rc_keep(blockIdx.z, gridDim.z)) \
		return;
#else
#define KS_RC_SAMPLE
#endif
#endif
'''


def bodies(text):
    """Offsets just after the opening brace of each __global__ definition."""
    out = []
    for m in re.finditer(r'\b__global__\b', text):
        i = text.find('(', m.end())
        # the parameter list: the first '(' after the name, past
        # __launch_bounds__(...) and friends
        while i >= 0:
            j = i
            depth = 0
            while j < len(text):
                if text[j] == '(':
                    depth += 1
                elif text[j] == ')':
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            pre = text[m.end():i]
            if re.search(r'__launch_bounds__\s*$', pre) or re.search(r'__cluster_dims__\s*$', pre):
                i = text.find('(', j + 1)
                continue
            break
        if i < 0:
            continue
        k = j + 1
        while k < len(text):
            if text[k].isspace():
                k += 1
            elif text[k] == '#' :
                k = text.find('\n', k)
                if k < 0:
                    k = len(text)
            else:
                break
        if k < len(text) and text[k] == '{':
            out.append(k + 1)
    return out


def main():
    text = open(sys.argv[1]).read()
    offs = bodies(text)
    for o in reversed(offs):
        text = text[:o] + ' KS_RC_SAMPLE ' + text[o:]
    # after the includes: at the first __global__ line's start
    first = re.search(r'^.*\b__global__\b', text, re.M)
    pos = first.start() if first else 0
    # before any #line / #if directly above it is fine: a new line
    text = text[:pos] + GUARD + '#line 1 "sampled"\n' + text[pos:]
    open(sys.argv[2], 'w').write(text)
    print(len(offs), 'bodies guarded', file=sys.stderr)


if __name__ == '__main__':
    main()
