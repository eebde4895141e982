#!/bin/bash
# GPU machine, by hand: candidate TUs of builtin transforms (bench/<p>/cand-*.cu,
# made on a machine whose libclang parses CUDA 13's CCCL headers with
# `ks transform bench/<p>/main.cu:KERNEL --skill ID [--param k=v] --arch sm_90
# --tu -o bench/<p>/cand-NAME.cu`), then
#  1. each bench program built from main.cu ("orig") and from each candidate
#     TU, run at small size (its own checks) and at full size (its checks and
#     its KSBENCH timing line), original first;
#  2. Reviewer verdicts with interleaved timing, `ks replay CAPTURE
#     --candidate TU --time`, for REVIEWS ("prog:kernel:cand-NAME ...").
# Everything the run measures is printed on stdout as it comes (KSBENCH
# lines whole), so that a run cut at its limit still shows what it did.
#   BENCHES="transpose permute3d" REVIEWS="permute3d:permute3d_kernel:cand-r8" \
#     DEADLINE=540 bash tests/data/transforms/gpu-variants.sh
# About 10-16 s per full-size program run (fill and CPU reference
# included), 60-90 s per review of a 1-2 GiB capture.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top" || exit 1
T0=$(date +%s)
el() { echo $(($(date +%s) - T0)); }
say() { echo "[$(el)s] $*"; }
DEADLINE=${DEADLINE:-540}
NV=$(command -v nvcc)
log=${LOGDIR:-/tmp/gpu-variants}
rm -rf "$log"
mkdir -p "$log"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
( make -j16 all >"$log/build.log" 2>&1; echo "make rc=$?" >"$log/make.rc" ) &
for b in ${BENCHES:?}; do
	l=
	[ "$b" = transpose ] && l=-lcublas
	( cd "bench/$b" && $NV -O3 -arch=sm_90 -I../common -o orig main.cu $l ) \
		>"$log/cc-$b-orig.log" 2>&1 &
	for c in bench/"$b"/cand-*.cu; do
		[ -f "$c" ] || continue
		n=$(basename "$c" .cu)
		( cd "bench/$b" && $NV -O3 -arch=sm_90 -I../common -I. -o "$n" "$n.cu" $l ) \
			>"$log/cc-$b-$n.log" 2>&1 &
	done
done
wait
say "built: $(cat "$log/make.rc")"
for b in $BENCHES; do
	for p in orig $(cd "bench/$b" && ls cand-*.cu 2>/dev/null | sed 's/\.cu$//'); do
		[ "$(el)" -lt "$DEADLINE" ] || { say "$b $p: skipped (time)"; continue; }
		[ -x "bench/$b/$p" ] || { say "$b $p: not built: $(tail -n 3 "$log/cc-$b-$p.log")"; continue; }
		s=$(cd "bench/$b" && timeout 20 "./$p" --small 2>&1 | grep -cE '^FAIL')
		( cd "bench/$b" && timeout 60 "./$p" ) >"$log/run-$b-$p.log" 2>&1
		say "$b $p rc=$? small-size FAIL lines: $s; $(grep -E '^(PASS|FAIL)' "$log/run-$b-$p.log" | tr '\n' ' ')"
		grep KSBENCH "$log/run-$b-$p.log" | sed "s/^/  $b $p /"
	done
done
export KS_DIR=/tmp/ks-gpu-variants KS_CAPTURE_MAX_BYTES=8G
rm -rf "$KS_DIR"
mkdir -p "$KS_DIR"
for spec in ${REVIEWS:-}; do
	IFS=: read -r b k c <<<"$spec"
	[ "$(el)" -lt $((DEADLINE - 90)) ] || { say "review $b: skipped (time)"; continue; }
	( cd "bench/$b" && KS_NVCC=$NV ../../ks-nvcc -O3 -arch=sm_90 -I../common -c main.cu -o main.o &&
	  $NV -O3 -arch=sm_90 -o rev main.o ) >"$log/revbuild-$b.log" 2>&1
	timeout 90 ./ks capture --kernel "^$k" -- "./bench/$b/rev" >"$log/cap-$b.log" 2>&1
	cp=$(ls -d "$KS_DIR"/captures/*"$k"*/1 2>/dev/null | head -1)
	[ -n "$cp" ] || { say "review $b: no capture: $(tail -n 2 "$log/cap-$b.log")"; continue; }
	timeout $((DEADLINE - $(el))) ./ks replay "$cp" --candidate "$PWD/bench/$b/$c.cu" --time \
		>"$log/rev-$b.txt" 2>&1
	say "review $b $c rc=$?"
	sed 's/^/  /' "$log/rev-$b.txt" | tail -n 25
done
say done
