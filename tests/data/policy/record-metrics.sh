#!/usr/bin/env bash
# tests/data/policy/record-metrics.sh: record, on a GPU machine, the
# counters of every benchmark kernel that the policy fixtures hold.
#
#   tests/data/policy/record-metrics.sh OUTDIR [SECONDS]
#
# Builds ks-nvcc and every benchmark program through it (full size), then
# profiles the first launch of each of the program's own kernels with
# `ncu --csv --print-units base --clock-control none --metrics <the metric
# set of src/review/metricset.c>`: the command ks replay falls back to, on
# the real program instead of a replay, so that no multi-gigabyte capture
# is written. Programs run 8 at a time; a program whose profile came back
# empty is run again alone while time is left. Everything it wrote is
# packed into OUTDIR/metrics.tar.gz (raw/<program>.csv and .err,
# info.txt); tests/data/policy/import-metrics.py turns the CSVs into the
# fixtures' metric objects. Stops starting work after SECONDS (default 60).
set -u
OUT=${1:?usage: record-metrics.sh OUTDIR [SECONDS]}
LIMIT=${2:-60}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
T0=$(date +%s)
RAW=$OUT/raw
mkdir -p "$RAW"
cd "$ROOT" || exit 1

# program, then its own kernels (function names), in the order they are
# first launched; the fixtures that decide the expected skills first.
JOBS="gemm_square:gemm_naive
softmax:softmax_kernel
mse_loss:mse_atomic_kernel|mse_finish_kernel
transpose:transpose_kernel
relu:relu_kernel
histogram:histogram_kernel
gemv:gemv_naive
reduce_sum:reduce_sum_kernel
layernorm:layernorm_kernel
conv2d:conv2d_kernel
permute3d:permute3d_kernel
gelu:gelu_kernel
argmax:argmax_kernel
cumsum:cumsum_kernel
rmsnorm:rmsnorm_kernel
log_softmax:log_softmax_kernel
cross_entropy:cross_entropy_kernel
sigmoid:sigmoid_kernel
softplus:softplus_kernel
reduce_max:reduce_max_kernel
maxpool:maxpool_kernel
avgpool:avgpool_kernel
gemm_batched:gemm_batched_naive
gemm_tall_skinny:gemm_naive
gemm_transposed:gemm_tn_naive
gemm_bias_act_scale:gemm_naive|add_bias|gelu|scale
conv_norm:conv2d_kernel|batchnorm_kernel|relu_kernel"

# RECORD_ONLY="p1 p2" keeps only those programs (to try the script).
if [ -n "${RECORD_ONLY:-}" ]; then
	JOBS=$(for j in $JOBS; do
		case " $RECORD_ONLY " in *" ${j%%:*} "*) echo "$j" ;; esac
	done)
fi

METRICS=$(sed -n 's/^[[:space:]]*{ "[a-z0-9_]*", "\([a-z0-9_.]*\)",.*/\1/p;s/^[[:space:]]*"\(smsp__[a-z0-9_.]*\)",$/\1/p' \
	src/review/metricset.c | paste -sd, -)
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
KILL=
"$NCU" --help 2>/dev/null | grep -q -- '--kill' && KILL="--kill yes"
{
	date -u +%Y-%m-%dT%H:%M:%SZ
	nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
	nvcc --version | tail -n 2
	"$NCU" --version | tail -n 1
	echo "metrics: $METRICS"
	echo "ncu: $NCU $KILL"
} >"$OUT/info.txt" 2>&1

NVCC=nvcc
export KS_DIR=/tmp/ks-record
if make -j16 ks-nvcc >"$RAW/build-ks-nvcc.log" 2>&1; then
	NVCC=$ROOT/ks-nvcc
fi
echo "nvcc for the programs: $NVCC" >>"$OUT/info.txt"

# One program: build it, profile it. Status in $RAW/<p>.status.
one() {
	local p=${1%%:*} ks=${1#*:} n
	n=$(echo "$ks" | tr '|' '\n' | wc -l)
	if [ ! -x "bench/$p/$p" ] &&
		! make -C "bench/$p" NVCC="$NVCC" ARCH=sm_90 >"$RAW/$p.build" 2>&1; then
		echo build-failed >"$RAW/$p.status"
		return
	fi
	[ $(( $(date +%s) - T0 )) -lt "$LIMIT" ] || { echo not-run >"$RAW/$p.status"; return; }
	timeout 40 "$NCU" --csv --print-units base --clock-control none \
		--metrics "$METRICS" -k "regex:^($ks)\$" -c "$n" $KILL \
		"bench/$p/$p" >"$RAW/$p.csv" 2>"$RAW/$p.err"
	echo "status $?" >"$RAW/$p.status"
}
export -f one
export RAW NVCC NCU KILL METRICS T0 LIMIT

echo "$JOBS" | xargs -P 8 -I{} bash -c 'one "$@"' _ {}
# A profile that came back without metric rows runs again alone.
for j in $JOBS; do
	p=${j%%:*}
	grep -q '^"' "$RAW/$p.csv" 2>/dev/null && continue
	[ $(( $(date +%s) - T0 )) -lt "$LIMIT" ] || break
	mv -f "$RAW/$p.err" "$RAW/$p.err1" 2>/dev/null
	one "$j"
done

tar -C "$OUT" -czf "$OUT/metrics.tar.gz" raw info.txt
rm -rf "$RAW"
printf '%-22s %-10s %s\n' program status metric-rows
tar -xzf "$OUT/metrics.tar.gz" -C /tmp
for j in $JOBS; do
	p=${j%%:*}
	printf '%-22s %-10s %s\n' "$p" "$(cat /tmp/raw/$p.status 2>/dev/null | tr ' ' '=')" \
		"$(grep -c '^"[0-9]' /tmp/raw/$p.csv 2>/dev/null)"
done
echo "elapsed $(( $(date +%s) - T0 )) s"
