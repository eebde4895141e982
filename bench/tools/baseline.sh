#!/usr/bin/env bash
# baseline.sh: measures the benchmark suite built with plain nvcc, on a GPU
# machine.
#
# Builds the programs (make -C bench NVCC=nvcc), runs bench/ceilings first,
# then every other program with a time limit, checks each one's PASS line and
# exit status, and writes DIR/baseline-<date>-<gpu>.json (see collect.py).
#
# Resumable: each program's output and partial JSON go to
# DIR/partial-<date>/; a program that already has its partial JSON there is
# skipped, so running again with that folder in place continues where a
# previous run stopped (use --date to continue a folder of another day).
#
# Usage: bench/tools/baseline.sh [options]
#   --out DIR        results folder (default: bench/results)
#   --only "P1 P2"   run only these programs (the ceilings run anyway when
#                    not yet measured)
#   --date DATE      the run's date, YYYY-MM-DD (default: today, UTC)
#   --timeout S      time limit per program, seconds (default: 300)
#   --budget S       start no new program after S seconds (a running one may
#                    take up to --timeout more); 0 = no limit (default)
#   --retry-failed   run again the programs whose partial status is not PASS
#   --merge          only assemble the final JSON from the partial folder
#
# Exit status: 0 when every program has run and passed, 1 when some did
# not pass, 2 on a usage error, 3 when the budget stopped the run early.
set -u

tools=$(cd "$(dirname "$0")" && pwd)
bench=$(dirname "$tools")
collect() { python3 "$tools/collect.py" "$@"; }

out=$bench/results
only=
date=$(date -u +%F)
timeout_s=300
budget_s=0
retry=0
merge_only=0

usage() {
	sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--out) out=${2:?}; shift ;;
	--only) only=${2?}; shift ;;
	--date) date=${2:?}; shift ;;
	--timeout) timeout_s=${2:?}; shift ;;
	--budget) budget_s=${2:?}; shift ;;
	--retry-failed) retry=1 ;;
	--merge) merge_only=1 ;;
	-h | --help) usage ;;
	*) echo "baseline.sh: unknown option $1" >&2; usage ;;
	esac
	shift
done

mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
partial=$out/partial-$date
mkdir -p "$partial" || exit 2
echo "baseline: partial results in $partial"

all=$(make -s --no-print-directory -C "$bench" list) || exit 2

merge() {
	collect --merge "$partial" --programs "$all"
}

if [ "$merge_only" = 1 ]; then
	merge
	exit $?
fi

command -v nvcc >/dev/null 2>&1 || PATH=/usr/local/cuda/bin:$PATH
command -v nvcc >/dev/null 2>&1 || { echo "baseline.sh: no nvcc" >&2; exit 2; }
# The programs link cuBLAS dynamically: find it next to that nvcc.
cuda_lib=$(dirname "$(dirname "$(command -v nvcc)")")/lib64
export LD_LIBRARY_PATH=$cuda_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -f "$partial/meta.json" ] || collect --meta --date "$date" -o "$partial/meta.json"

# done P: P has a partial result that needs no new run.
done_already() {
	local j=$partial/$1.json
	[ -f "$j" ] || return 1
	[ "$retry" = 1 ] || return 0
	python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])).get("status") != "PASS")' "$j"
}

wanted=${only:-$all}
todo=
for p in ceilings $wanted; do
	case " $all " in
	*" $p "*) ;;
	*) echo "baseline: no program $p" >&2; exit 2 ;;
	esac
	case " $todo " in *" $p "*) continue ;; esac
	done_already "$p" || todo="$todo $p"
done
todo=${todo# }
echo "baseline: to run: ${todo:-nothing}"

if [ -n "$todo" ]; then
	# A fresh build with plain nvcc: binaries left by another compiler must
	# not be measured.
	for p in $todo; do
		make -s --no-print-directory -C "$bench/$p" clean >/dev/null 2>&1
	done
	echo "baseline: building with nvcc ($(nproc) jobs)"
	make -k -j"$(nproc)" -C "$bench" NVCC=nvcc PROGS="$todo" \
		>"$partial/build-$(date -u +%H%M%S).log" 2>&1
fi

start=$(date +%s)
stopped=0
for p in $todo; do
	if [ "$budget_s" -gt 0 ] && [ $(($(date +%s) - start)) -ge "$budget_s" ]; then
		stopped=1
		echo "baseline: budget of ${budget_s}s spent; run again to continue"
		break
	fi
	log=$partial/$p.log
	if [ ! -x "$bench/$p/$p" ]; then
		# Build it alone to keep its own error log.
		make --no-print-directory -C "$bench/$p" NVCC=nvcc >"$log" 2>&1
		if [ ! -x "$bench/$p/$p" ]; then
			collect --parse "$log" --program "$p" --build-failed \
				-o "$partial/$p.json"
			continue
		fi
	fi
	echo "baseline: running $p"
	t0=$(date +%s)
	(cd "$bench/$p" && exec timeout -k 10 "$timeout_s" "./$p") >"$log" 2>&1
	rc=$?
	wall=$(($(date +%s) - t0))
	timed_out=
	if { [ $rc = 124 ] || [ $rc = 137 ]; } && [ "$wall" -ge "$timeout_s" ]; then
		timed_out=--timed-out
	fi
	collect --parse "$log" --program "$p" --rc "$rc" --wall "$wall" \
		$timed_out -o "$partial/$p.json"
done

final=$(merge) || exit 1
echo "baseline: wrote $final"
[ "$stopped" = 1 ] && exit 3
python3 - "$final" "$wanted" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
wanted = [p for p in sys.argv[2].split() if p != "ceilings"]
bad = [p for p in wanted if r["programs"].get(p, {}).get("status") != "PASS"]
if r["ceilings"]["status"] != "PASS":
    bad.insert(0, "ceilings")
print("baseline: %d programs, %d not passing%s" % (
    len(wanted) + 1, len(bad), (": " + " ".join(bad)) if bad else ""))
sys.exit(1 if bad else 0)
EOF
