#!/bin/bash
# GPU machine, by hand: what compute-sanitizer costs on a bench program's
# kernel replaced by a builtin transform's variant, the whole grid and a
# sample of its blocks (the Reviewer's guard, src/review/sample.c, applied
# by tests/data/review/sample_tu.c):
#   bash tests/data/review/sanitizer-cost.sh OUT [PROGRAM KERNEL SKILL [SECONDS]]
# (default gemm_bias_act_scale gemm_naive gemm_register_blocking 150).
# Needs `make all` done and a libclang that parses CUDA 13 (KS_LIBCLANG).
# Each run is the whole program under `compute-sanitizer --tool T
# --kernel-name regex=R --launch-count 1` (R: the variant's kernels),
# bounded by SECONDS; the table gives each run's wall seconds and the
# sanitizer's summary line. The sampled program fails its own checks
# (the blocks left out write nothing): only its racecheck time counts.
set -u
out=${1:?usage: sanitizer-cost.sh OUT [PROGRAM KERNEL SKILL [SECONDS]]}
prog=${2:-gemm_bias_act_scale} kern=${3:-gemm_naive} skill=${4:-gemm_register_blocking}
lim=${5:-150}
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top" || exit 1
mkdir -p "$out"
out=$(cd "$out" && pwd)
libs=$(sed -n 's/^LIBS *= *//p' "bench/$prog/Makefile")
./ks transform "bench/$prog/main.cu:$kern" --skill "$skill" --arch sm_90 --tu \
	-o "$out/full.cu" -- -Ibench/common >"$out/transform.log" 2>&1 ||
	{ echo "transform failed: $(tail -n 2 "$out/transform.log")"; exit 1; }
cc -std=c11 -D_GNU_SOURCE -O1 -o "$out/sample_tu" tests/data/review/sample_tu.c \
	src/review/sample.c src/core/buf.c src/core/fs.c src/core/util.c >>"$out/transform.log" 2>&1 &&
	"$out/sample_tu" "$out/full.cu" "$out/sampled.cu" 2>>"$out/transform.log" ||
	{ echo "no sampled TU: $(tail -n 2 "$out/transform.log")"; exit 1; }
for v in full sampled; do
	cp "$out/$v.cu" "bench/$prog/ks-sc-$v.cu"
	(cd "bench/$prog" && nvcc -O3 -arch=sm_90 -I../common -I. -o "$out/$v" "ks-sc-$v.cu" $libs) \
		>"$out/$v.build" 2>&1 &
done
wait
rm -f "bench/$prog"/ks-sc-*.cu
cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
"$cs" --version >"$out/cs-version.txt" 2>&1
re="regex=(ks_|$kern)"
row() {	# label, command...
	local label=$1 t0 rc
	shift
	t0=$(date +%s%N)
	(cd "bench/$prog" && timeout -k 5 "$lim" "$@") >"$out/$label.log" 2>&1
	rc=$?
	t0=$((($(date +%s%N) - t0) / 100000000))
	printf '| %s | %d.%d | %s | %s |\n' "$label" $((t0 / 10)) $((t0 % 10)) "$rc" \
		"$(grep -h 'ERROR SUMMARY\|RACECHECK SUMMARY' "$out/$label.log" | head -n 1)" \
		| tee -a "$out/table.md"
}
echo "| run | seconds | status | summary |" >"$out/table.md"
echo "|---|---:|---:|---|" >>"$out/table.md"
row plain "$out/full"
row memcheck "$cs" --tool memcheck --kernel-name "$re" --launch-count 1 "$out/full"
row racecheck-sampled "$cs" --tool racecheck --kernel-name "$re" --launch-count 1 "$out/sampled"
row racecheck "$cs" --tool racecheck --kernel-name "$re" --launch-count 1 "$out/full"
cat "$out/table.md"
