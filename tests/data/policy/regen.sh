#!/usr/bin/env bash
# tests/data/policy/regen.sh: make the policy fixtures again.
#
#   tests/data/policy/regen.sh [METRICS.json]
#
# For every benchmark program: `ks analyze --json` and `ks evidence --json`
# of bench/<p>/main.cu compiled as its Makefile does (-O3 -arch=sm_90
# -I bench/common), joined per kernel with the counters recorded on the GPU
# (metrics-*.json, made by record-metrics.sh and import-metrics.py) into
# bench/<p>.json: {"program", "recorded", "kernels": [{"kernel", "mangled",
# "params", "features", "details" (branches), "evidence",
# "metrics", "block", "grid"}]}. Needs ks built and
# an nvcc; no GPU.
set -eu
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
METRICS=${1:-$(ls "$HERE"/metrics-*.json | tail -n 1)}
KS=$ROOT/ks
export KS_DIR=$(mktemp -d)
trap 'rm -rf "$KS_DIR"' EXIT
mkdir -p "$HERE/bench"
for d in "$ROOT"/bench/*/; do
	p=$(basename "$d")
	[ -f "$d/main.cu" ] && [ "$p" != ceilings ] || continue
	args=(-O3 -arch=sm_90 -I "$ROOT/bench/common")
	"$KS" analyze --json "$d/main.cu" -- "${args[@]}" >"$KS_DIR/a.json"
	"$KS" evidence --json "$d/main.cu" -- "${args[@]}" >"$KS_DIR/e.json"
	python3 - "$p" "$KS_DIR/a.json" "$KS_DIR/e.json" "$METRICS" \
		>"$HERE/bench/$p.json" <<'PY'
import json, sys
prog, a, e, m = sys.argv[1:]
a = json.load(open(a))
e = json.load(open(e))
m = json.load(open(m))
ev = {(r["kernel"], r["arch"]): r["features"] for r in e}
met = m["programs"].get(prog, {})
kernels = []
for k in a["kernels"]:
    if not k.get("in_main_file"):
        continue
    mk = met.get(k["name"], {})
    kernels.append({
        "kernel": k["name"],
        "mangled": k["mangled"],
        "params": [{x: q[x] for x in ("name", "type", "pointer", "pointee_const",
                                      "restrict")} for q in k["params"]],
        "features": k["features"],
        "details": {"branches": k["details"]["branches"]},
        "evidence": ev.get((k["mangled"], "sm_90"), {}),
        "metrics": {x: y for x, y in mk.items() if x not in ("block", "grid")},
        "block": mk.get("block"),
        "grid": mk.get("grid"),
    })
json.dump({"format": 1, "program": prog, "recorded": m["recorded"],
           "kernels": kernels}, sys.stdout, indent=1)
sys.stdout.write("\n")
PY
done
