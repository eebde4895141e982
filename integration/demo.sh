#!/usr/bin/env bash
# The main job: build the sample Make project through ks-nvcc; on a GPU
# machine capture its kernels, optimize them rules-only (no LLM), rebuild
# (ks-nvcc now compiles the verified variants), run again, and print each
# kernel's time before and after and whether the program's output is
# unchanged. Without a GPU: the build, `ks analyze` and `ks plan` for the
# sample's kernels, and a note that verification needs a GPU. Called by
# `make demo` (after `make deps` and `make`).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export KS_DIR=${KS_DIR:-$ROOT/build/demo/ks}
app=$ROOT/integration/projects/make-app
out=$ROOT/build/demo/make-app
ks=$ROOT/ks
# On a GPU the sample runs at a size where its kernels take tenths of a
# millisecond, not microseconds (launch-bound kernels leave nothing to
# gain); DEMO_N elements for saxpy and the sum.
n=${DEMO_N:-67108864}

echo "== building integration/projects/make-app through ks-nvcc (state in $KS_DIR)"
rm -rf "$out"
mkdir -p "$out"
cp -R "$app"/. "$out"/
make -C "$out" NVCC="$ROOT/ks-nvcc"

echo
echo "== what ks-nvcc recorded"
"$ks" builds

if ! "$ks" doctor | grep -q '^gpu  *ok'; then
	echo
	for src in saxpy stencil; do
		echo "== ks analyze $src.cu"
		(cd "$out" && "$ks" analyze "$src.cu" -- -O2 -std=c++17 -arch=sm_90) || true
		echo
		echo "== ks plan $src.cu"
		(cd "$out" && "$ks" plan "$src.cu" -- -O2 -std=c++17 -arch=sm_90) || true
		echo
	done
	echo "== no GPU here: verifying a variant needs one (the Reviewer runs each"
	echo "   candidate on captured launches), so nothing is optimized or substituted."
	echo "   'ks doctor' says what is missing."
	exit 0
fi

echo
echo "== the program, as nvcc built it"
(cd "$out" && ./build/make-app "$n") | tee "$out/before.txt"

echo
echo "== ks capture"
(cd "$out" && "$ks" capture -- ./build/make-app "$n" >/dev/null)
"$ks" captures

echo
echo "== ks optimize (rules only: no LLM)"
"$ks" optimize --llm none || echo "(ks optimize failed: $?)"
"$ks" cache list

echo
echo "== rebuilding through ks-nvcc: verified variants are compiled in"
make -C "$out" clean >/dev/null
"$ks" stats -z >/dev/null
make -C "$out" NVCC="$ROOT/ks-nvcc"
"$ks" cache stats

echo
echo "== the program, with the variants"
(cd "$out" && ./build/make-app "$n") | tee "$out/after.txt"

echo
echo "== each kernel, as the Reviewer timed it (median ms, p10..p90, same launches)"
"$ks" cache list --json | python3 -c '
import json, sys
rows = json.load(sys.stdin)
if not rows:
    print("no verified variant: every kernel keeps its original code")
for r in rows:
    print("%-40s sm_%d  before %8.4f ms [%.4f..%.4f]  after %8.4f ms [%.4f..%.4f]  x%.2f"
          % (r["kernel"][:40], r["arch"] // 10, r["orig_ms"], r["orig_lo_ms"],
             r["orig_hi_ms"], r["variant_ms"], r["variant_lo_ms"],
             r["variant_hi_ms"], r["speedup"]))'
echo
if cmp -s <(grep -v '^device:' "$out/before.txt") <(grep -v '^device:' "$out/after.txt"); then
	echo "== the program's output is unchanged"
elif tail -n 1 "$out/after.txt" | grep -qx PASS; then
	# A variant that sums in another order moves a float sum in its last
	# digits; the program's own checks decide whether that is still right.
	echo "== the program's output differs in these lines, and its own checks pass:"
	diff "$out/before.txt" "$out/after.txt" | grep '^[<>]' | grep -v 'device:' || true
else
	echo "== the program's output CHANGED and its checks fail:"
	diff "$out/before.txt" "$out/after.txt" || true
	exit 1
fi
