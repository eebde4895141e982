#!/usr/bin/env python3
"""splice.py ORIG.cu KERNEL SNIPPET.cu: print ORIG.cu with the definition of
__global__ KERNEL replaced by the text of SNIPPET.cu (a candidate is the
whole translation unit with one kernel changed, as a variant is)."""
import re
import sys


def main():
    orig, kernel, snippet = sys.argv[1:4]
    src = open(orig).read()
    m = re.search(r"__global__\s+void\s+" + re.escape(kernel) + r"\s*\(", src)
    if not m:
        sys.exit("splice: no __global__ void %s( in %s" % (kernel, orig))
    brace = src.index("{", m.end())
    depth = 0
    for end in range(brace, len(src)):
        if src[end] == "{":
            depth += 1
        elif src[end] == "}":
            depth -= 1
            if depth == 0:
                break
    sys.stdout.write(src[:m.start()] + open(snippet).read().rstrip("\n") +
                     src[end + 1:])


main()
