#!/usr/bin/env bash
# integration/gpu/patterns.sh: the capture patterns that broke replay, each
# a small program of integration/gpu/patterns/: packed small allocations
# with end pointers and 64-bit index arrays, buffers over 2 and 4 GiB,
# pointers stored inside buffers, a merge path (data-dependent loops),
# memory from a pool, managed memory, mapped and registered host memory,
# one kernel at several shapes, and a wavefront whose launches grow. Each
# program is built through ks-nvcc (compile recorded, then linked),
# captured with `ks capture`, and every capture replayed: the original
# must reproduce it, or the capture must have been skipped or found
# ineligible with a specific reason.
#
#   integration/gpu/patterns.sh [TEST...]     all tests, or those named
#
# Skips itself without a GPU, as run.sh does. Work and logs go to
# $KS_GPU_WORK (default build/gpu-patterns); patterns.txt there is the
# table (pattern, kernel, launch, bytes, duration, verdict, reason).
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/integration/gpu
WORK=${KS_GPU_WORK:-$ROOT/build/gpu-patterns}
KS=$ROOT/ks
KSNVCC=$ROOT/ks-nvcc
# shellcheck source=integration/gpu/harness.sh
source "$HERE/harness.sh"

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q GPU; then
	gpu_probe_skip "no GPU (nvidia-smi lists none)"
fi
if [ ! -x "$ROOT/ks-replay" ] || [ ! -f "$ROOT/libks-capture.so" ]; then
	gpu_probe_skip "ks-replay or libks-capture.so not built (needs the CUDA toolkit with CUPTI)"
fi

NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
rm -rf "$WORK"
mkdir -p "$WORK/logs"
export KS_DIR=$WORK/ksdir KS_NVCC=$NVCC
unset KS_DISABLE KS_TOL_F32 KS_REPLAY_TIMEOUT KS_CAPTURE_MAX_BYTES
RESULTS=$WORK/results.txt
TABLE=$WORK/patterns.txt
: >"$RESULTS"
: >"$TABLE"

detail() { echo "DETAIL: $*"; }

# Build pattern P through ks-nvcc: the compile is recorded, then linked.
build() { # pattern
	mkdir -p "$WORK/$1"
	cp "$HERE/patterns/$1.cu" "$HERE/patterns/common.h" "$WORK/$1/"
	(cd "$WORK/$1" && "$KSNVCC" -O2 -arch=sm_90 -I. -c "$1.cu" -o "$1.o" &&
		"$NVCC" -arch=sm_90 -o "$1" "$1.o")
}

# Capture pattern P (ks capture ARGS... -- ./P), keeping stderr.
capture() { # pattern ks-capture-args...
	local p=$1
	shift
	(cd "$WORK/$p" && "$KS" capture "$@" -- "./$p") >"$WORK/$p.out" 2>"$WORK/$p.err"
	cat "$WORK/$p.err"
	grep -q '^PASS$' "$WORK/$p.out"
}

# One table row for capture D from its replay's result.
row() { # pattern dir
	python3 - "$1" "$2" >>"$TABLE" <<'PY'
import json, sys
p, d = sys.argv[1:3]
c = json.load(open(d + "/launch.json"))
try:
    r = json.load(open(d + ".replay.json"))
except Exception:
    r = {"verdict": "error", "error": open(d + ".replay.err").read().strip()[-200:]}
why = (r.get("original") or {}).get("why") or r.get("error") or ""
size = sum(b["size"] for b in c["buffers"])
kinds = ",".join(sorted(set(b["mem"] for b in c["buffers"])))
stored = sum(len(b.get("pointers") or []) for b in c["buffers"])
print("%-9s %-16s %3s %12d %10s %-10s %-12s stored-ptrs=%d %s" % (
    p, (c.get("demangled") or c["kernel"]).split("(")[0][-16:], c["launch"], size,
    c.get("duration_ns"), r.get("verdict"), kinds, stored, why))
PY
}

# Replay every capture of the kernels matching GLOB (in parallel: each
# replay is mostly an nvcc build); one table row each, and one per launch
# the capture skipped. Prints the number not eligible.
replay_all() { # pattern kernel-dir-glob
	local p=$1 d bad=0 dirs=()
	for d in "$KS_DIR"/captures/$2/*/; do
		d=${d%/}
		[ -f "$d/launch.json" ] || continue
		dirs+=("$d")
		("$KS" replay "$d" --json >"$d.replay.json" 2>"$d.replay.err"; echo $? >"$d.replay.rc") &
	done
	wait
	for d in "${dirs[@]+"${dirs[@]}"}"; do
		row "$p" "$d"
		[ "$(cat "$d.replay.rc")" = 0 ] || bad=$((bad + 1))
	done
	grep '^ks: skipped' "$WORK/$p.err" | sed "s/^/$p skipped: /" >>"$TABLE" || true
	echo "$bad"
}

p_build() {
	local p
	for p in packed big ptrarray mergepath memkinds shapes wave; do
		build "$p" &
	done
	wait
	for p in packed big ptrarray mergepath memkinds shapes wave; do
		[ -x "$WORK/$p/$p" ]
	done
	detail "7 pattern programs built through ks-nvcc ($(ls "$KS_DIR"/builds/*.json | wc -l) build records)"
}

p_packed() {
	capture packed --kernel 'range_sums|gather64'
	grep '^layout' "$WORK/packed.out"
	[ "$(ls -d "$KS_DIR"/captures/*range_sums*/*/ "$KS_DIR"/captures/*gather64*/*/ | wc -l)" -ge 3 ]
	bad=$(replay_all packed '*range_sums*')
	bad2=$(replay_all packed '*gather64*')
	grep '^packed ' "$TABLE"
	detail "$(grep -c '^packed .* eligible' "$TABLE") of 3 captures reproduce (end pointers into the next allocation and into padding, 64-bit indices); $(grep '^layout' "$WORK/packed.out")"
	[ "$bad" = 0 ] && [ "$bad2" = 0 ]
}

p_big() {
	python3 - "$KS" "$WORK/big" <<'PY'
import os, resource, subprocess, sys
ks, wd = sys.argv[1:3]
# --no-check: the peak is the captured program's; the replay (which holds
# the buffers in host memory) checks the captures below.
r = subprocess.run([ks, "capture", "--no-check", "--kernel", "scale_", "--", "./big"], cwd=wd,
                   capture_output=True, text=True)
sys.stdout.write(r.stdout)
sys.stderr.write(r.stderr)
open(wd + "/../big.out", "w").write(r.stdout)
open(wd + "/../big.err", "w").write(r.stderr)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
print("peak host memory of the captured program: %.2f GiB" % (rss / 2**30))
open(wd + "/../big.rss", "w").write(str(rss))
PY
	grep -q '^PASS$' "$WORK/big.out"
	[ -n "$(ls "$KS_DIR"/captures/*scale_2g*/1/launch.json)" ]
	[ -n "$(ls "$KS_DIR"/captures/*scale_4g*/1/launch.json)" ]
	bad=$(replay_all big '*scale_*')
	grep '^big ' "$TABLE"
	rss=$(cat "$WORK/big.rss")
	detail "2.25 GiB and 4.25 GiB launches under the automatic limit: $(grep -c '^big .* eligible' "$TABLE") of 2 reproduce; capture peak host memory $((rss >> 20)) MiB"
	[ "$bad" = 0 ]
	# Streamed to disk: far less host memory than one copy of the buffer.
	[ "$rss" -lt $((2 << 30)) ]
}

p_ptrarray() {
	capture ptrarray --kernel 'row_sums|seg_max'
	bad=$(replay_all ptrarray '*row_sums*')
	bad2=$(replay_all ptrarray '*seg_max*')
	grep '^ptrarray ' "$TABLE"
	grep -q 'stored-ptrs=[1-9]' "$TABLE"
	detail "$(grep -c '^ptrarray .* eligible' "$TABLE") of 2 reproduce with the pointers stored in their buffers relocated"
	[ "$bad" = 0 ] && [ "$bad2" = 0 ]
}

p_mergepath() {
	capture mergepath --kernel merge_path
	bad=$(replay_all mergepath '*merge_path*')
	grep '^mergepath ' "$TABLE"
	detail "$(grep '^mergepath ' "$TABLE" | head -n 1 | cut -c 1-120)"
	[ "$bad" = 0 ]
}

p_memkinds() {
	local k named=0 ok=0
	capture memkinds --kernel axpy_
	replay_all memkinds '*axpy_*' >/dev/null
	grep '^memkinds' "$TABLE"
	for k in pool managed mapped registered; do
		if grep -q "^memkinds .*axpy_$k .* eligible" "$TABLE"; then
			ok=$((ok + 1))
		elif grep -q "axpy_$k.*\(parameter\|buffer\) [0-9]" "$TABLE"; then
			named=$((named + 1))	# skipped or ineligible with a reason
		fi
	done
	detail "of pool, managed, mapped, registered host memory: $ok reproduce, $named named with a reason"
	[ $((ok + named)) = 4 ]
}

p_shapes() {
	local n d
	capture shapes
	n=$(ls -d "$KS_DIR"/captures/_Z5scalePfif/*/ | wc -l)
	launches=$(for d in "$KS_DIR"/captures/_Z5scalePfif/*/; do
		python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["launch"])' "$d/launch.json"; done | sort -n | tr '\n' ' ')
	echo "default: $n captures, launches $launches"
	[ "$n" = 3 ] && [ "$launches" = "1 3 4 " ]
	# ks replay KERNEL: every capture of it, one result each.
	set +e
	"$KS" replay _Z5scalePfif --json >"$WORK/shapes.replay.json" 2>"$WORK/shapes.replay.err"
	status=$?
	set -e
	cat "$WORK/shapes.replay.err"
	python3 - "$WORK/shapes.replay.json" "$KS_DIR" <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))
assert isinstance(res, list) and len(res) == 3, res
for r in res:
    print(r["capture"], r["verdict"], (r.get("original") or {}).get("why"))
    assert r["verdict"] == "eligible"
    c = json.load(open(r["capture"] + "/launch.json"))
    assert (c.get("duration_ns") or 0) > 0, c.get("duration_ns")
PY
	for d in "$KS_DIR"/captures/_Z5scalePfif/*/; do
		d=${d%/}
		python3 -c '
import json, sys
res = [r for r in json.load(open(sys.argv[1])) if r["capture"].rstrip("/").endswith(sys.argv[2])]
json.dump(res[0], open(sys.argv[3], "w"))' "$WORK/shapes.replay.json" "${d#"$KS_DIR"}" "$d.replay.json" || true
		row shapes "$d"
	done
	[ "$status" = 0 ]
	# distinct:2 in a fresh state directory.
	(export KS_DIR=$WORK/ksdir-2 && mkdir -p "$KS_DIR" && cp -R "$WORK/ksdir/builds" "$KS_DIR/" &&
		cd "$WORK/shapes" && "$KS" capture --launch distinct:2 -- ./shapes >/dev/null 2>&1)
	n2=$(ls -d "$WORK"/ksdir-2/captures/_Z5scalePfif/*/ | wc -l)
	detail "6 launches at 4 shapes: $n captures by default (launches $launches), $n2 with distinct:2; ks replay KERNEL reviewed all 3: eligible; duration_ns in each"
	[ "$n2" = 2 ]
}

# A wavefront's diagonals of 1..64 blocks: by default its captures grow
# with it (1, 2, 3, then 6, 12, 24 and 48 each replacing the smallest), and
# end on launches 12, 24 and 48.
p_wave() {
	local d launches replaced numbers
	capture wave
	# 7 captures; a replacement never takes the number of the one it
	# replaces, so the 3 kept are the last 3.
	numbers=$(cd "$KS_DIR"/captures/_Z5relaxPfii && ls | sort -n | tr '\n' ' ')
	launches=$(for d in "$KS_DIR"/captures/_Z5relaxPfii/*/; do
		python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["launch"])' "$d/launch.json"; done | sort -n | tr '\n' ' ')
	replaced=$(grep -c '^ks: replaced ' "$WORK/wave.err" || true)
	for d in "$KS_DIR"/captures/_Z5relaxPfii/*/; do
		d=${d%/}
		"$KS" replay "$d" --json >"$d.replay.json" 2>"$d.replay.err" || true
		row wave "$d"
	done
	detail "64 launches of 1..64 blocks: captures end on launches $launches($replaced replaced; kept as $numbers); $(grep -c '^wave .* eligible' "$TABLE") of 3 reproduce"
	[ "$launches" = "12 24 48 " ] && [ "$replaced" = 4 ] && [ "$numbers" = "5 6 7 " ] &&
		[ "$(grep -c '^wave .* eligible' "$TABLE")" = 3 ]
}

ALL="p_build p_packed p_ptrarray p_mergepath p_memkinds p_shapes p_wave p_big"
TESTS=${*:-$ALL}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/gpu: /'
# shellcheck disable=SC2086
gpu_run_tests "$WORK/logs" "$RESULTS" $TESTS
status=$?
echo "--- patterns.txt"
cat "$TABLE"
exit $status
