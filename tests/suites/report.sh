# report: ks report over a made-up bench run (tests/data/report: the partial
# folder bench/tools/run.sh leaves and summarize.py's results JSON) and over
# a state directory's tasks; the HTML page rendered by headless Chromium
# (its DOM checked, its screenshot checked for being a picture at all). The
# renderers themselves are tested in tests/unit/test_report.c.

REPORT_DATA=$ROOT/tests/data/report
REPORT_JSON=$REPORT_DATA/2026-12-01-nvidia-h200.json

# The Chromium of Debian (chromium), or another one on PATH.
find_chromium() {
	local c
	for c in chromium chromium-browser google-chrome; do
		command -v "$c" >/dev/null 2>&1 && { command -v "$c"; return 0; }
	done
	return 1
}

# Chromium headless, its profile and crash files kept in the scratch dir.
chromium_run() {
	HOME=$TEST_DIR timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--no-first-run --hide-scrollbars --user-data-dir="$TEST_DIR/chromium" "$@" \
		2>>"$TEST_DIR/chromium.log"
}

test_report_terminal_table() {
	"$KS_BIN" report "$REPORT_DATA" >out.txt
	out=$(cat out.txt)
	expect_contains "$out" "NVIDIA H200, 2026-12-01"
	# One row per kernel, with what the data holds and — for what it does not.
	expect_eq 1 "$(grep -c '^softmax .* 16.95 .* 0.62 .*26.42x .* in program coop_rows$' out.txt)"
	expect_eq 1 "$(grep -c '^gemm_square .*gemm_naive .*6.38x .* gemm_register_blocking$' out.txt)"
	expect_eq 1 "$(grep -c '^relu .* — .* no  *—$' out.txt)"
	expect_contains "$out" "kernels 3, verified 2, in the program 2, wrong 0; success 0.67, fast_1 0.67, fast_2 0.67"
	expect_contains "$out" "geomean % of floor: before 12.5%, after 69.7%"
	# the loop's goal: relu (63.7 % of its floor) has headroom and no variant
	expect_contains "$out" "below 80% of the floor before: 3 kernels, 2 verified; slower in the program 0; rounds at most 3, GPU seconds a task at most 10"
	expect_contains "$out" "ablation --no-short-term-memory: verified 1 of 2"
	# The same from the file itself.
	"$KS_BIN" report "$REPORT_JSON" >out2.txt
	expect_same_file out.txt out2.txt
}

test_report_json_is_json() {
	"$KS_BIN" report "$REPORT_JSON" --json >out.json
	python3 - out.json <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
k = {x["kernel"]: x for x in r["kernels"]}
assert k["softmax"]["review_speedup"] == 26.42, k["softmax"]
assert k["relu"]["review_speedup"] is None and k["relu"]["vendor_ms"] is None
assert r["summary"]["wrong"] == 0 and r["summary"]["kernels"] == 3
assert set(r["ablations"]) == {"no-long-term-memory", "no-short-term-memory"}
EOF
}

# summarize.py turns the partial folder into the committed results again.
test_report_summarize_reproduces_the_results() {
	cp -a "$REPORT_DATA/partial-bench-2026-12-01" .
	rm partial-bench-2026-12-01/*.json.tmp 2>/dev/null || true
	for p in softmax gemm_square relu; do
		rm partial-bench-2026-12-01/$p.json
		python3 "$ROOT/bench/tools/summarize.py" --program $p \
			--dir partial-bench-2026-12-01/$p -o partial-bench-2026-12-01/$p.json >/dev/null
	done
	python3 "$ROOT/bench/tools/summarize.py" --merge partial-bench-2026-12-01 \
		--programs "softmax gemm_square relu" >path.txt
	expect_eq "$TEST_DIR/2026-12-01-nvidia-h200.json" "$(cat path.txt)"
	python3 - "$REPORT_JSON" 2026-12-01-nvidia-h200.json <<'EOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a == b, [k for k in a if a[k] != b.get(k)]
EOF
	python3 "$ROOT/bench/tools/summarize.py" --table 2026-12-01-nvidia-h200.json >table.md
	expect_contains "$(cat table.md)" "| softmax | softmax | 16.9 | 0.62 | 26.42x | yes |"
	expect_contains "$(cat table.md)" "below 80% of the floor before: 3 kernels, 2 verified (0.67); slower in the program 0; rounds at most 3, GPU seconds a task at most 10"
}

test_report_from_ks_dir_tasks() {
	mkdir -p "$KS_DIR/tasks"
	cp -a "$REPORT_DATA"/partial-bench-2026-12-01/*/tasks/* "$KS_DIR/tasks/"
	"$KS_BIN" report >out.txt
	out=$(cat out.txt)
	# No program ran: the trajectories' own numbers, the rest —.
	expect_eq 1 "$(grep -c '^— .*_Z14softmax_kernelPKfPfii .* 16.9 .* 0.64 .*26.42x .* verified .*coop_rows$' out.txt)"
	expect_contains "$out" "kernels 3, verified 2; success 0.67"
	expect_contains "$out" "over Torch eager: mean —, geomean —"
	# no floor without a program: no headroom counted, the tasks' own sizes
	expect_contains "$out" "
rounds at most 3, GPU seconds a task at most 10"
	"$KS_BIN" report "$KS_DIR" --html page.html
	expect_contains "$(cat page.html)" "no verified variant"
}

test_report_refuses_what_is_not_a_run() {
	echo '{"x": 1}' >bad.json
	set +e
	"$KS_BIN" report bad.json >out.txt 2>err.txt
	s1=$?
	"$KS_BIN" report "$TEST_DIR" >out2.txt 2>err2.txt
	s2=$?
	"$KS_BIN" report --nope 2>err3.txt
	s3=$?
	set -e
	expect_eq 105 "$s1"
	expect_contains "$(cat err.txt)" "bad.json: no \"kernels\" array"
	expect_eq 105 "$s2"
	expect_contains "$(cat err2.txt)" "no results JSON of make bench and no tasks/ folder"
	expect_eq 104 "$s3"
	expect_contains "$(cat err3.txt)" "usage: ks report"
}

test_report_html_in_headless_chromium() {
	CHROMIUM=$(find_chromium) || skip_test "no chromium (Debian: apt-get install chromium)"
	"$KS_BIN" report "$REPORT_DATA" --html page.html
	expect_eq "" "$(grep -o -E '(src|href)="(https?:)?//[^"]*' page.html || true)"
	chromium_run --dump-dom "file://$TEST_DIR/page.html" >dom.html
	python3 - dom.html <<'EOF'
import re, sys
dom = open(sys.argv[1]).read()
def n(pat):
    return len(re.findall(pat, dom))
checks = {
    'kernel rows': (n(r'<tr class="kernel">'), 3),
    'detail sections': (n(r'<section class="kernel-detail"'), 3),
    'trajectory charts': (n(r'<svg class="traj"'), 3),
    'best-so-far lines': (n(r'<polyline class="best"'), 3),
    'rooflines': (n(r'<svg class="roofline"'), 3),
    'points after': (n(r'<circle class="after"'), 3),
    'ablation rows': (n(r'<tr class="ablation">'), 3),
    'trail rounds': (n(r'<tr class="round'), 10),
    'summary rows': (n(r'<tr class="sum">'), 22),
}
bad = ["%s: %d, want %d" % (k, got, want) for k, (got, want) in checks.items() if got != want]
for name in ("softmax", "gemm_naive", "relu", "coop_rows", "gemm_register_blocking",
             "26.42x", "6.38x", "the base moves here", "outputs differ",
             '<span class="add">+ __launch_bounds__(128) softmax_kernel'):
    if name not in dom:
        bad.append("missing " + name)
if bad:
    sys.exit("DOM: " + "; ".join(bad))
EOF
	chromium_run --screenshot="$TEST_DIR/shot.png" --window-size=1280,2400 \
		"file://$TEST_DIR/page.html" >/dev/null
	expect_file shot.png
	# A picture, not a blank page: its size, and the colors of its pixels
	# (a pure-Python PNG decoder: zlib and the five row filters).
	python3 - shot.png <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert (w, h) == (1280, 2400), (w, h)
assert depth == 8 and ctype in (2, 6), (depth, ctype)
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
colors, dark, pos = set(), 0, 0
for y in range(h):
    f, row = raw[pos], bytearray(raw[pos + 1:pos + 1 + stride])
    pos += 1 + stride
    for i in range(stride):
        a = row[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: row[i] = (row[i] + a) & 255
        elif f == 2: row[i] = (row[i] + b) & 255
        elif f == 3: row[i] = (row[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    if y % 4 == 0:
        for x in range(0, w, 4):
            px = tuple(row[x * bpp:x * bpp + 3])
            colors.add(px)
            dark += sum(px) < 300
    prev = row
print("png: %d bytes, %d colors sampled, %d dark samples" % (len(data), len(colors), dark))
assert len(data) > 50000, "tiny screenshot"
assert len(colors) > 50, "too few colors: a blank page?"
assert dark > 2000, "no text to speak of"
EOF
}

test_bench_run_script_usage() {
	set +e
	bash "$ROOT/bench/tools/run.sh" --help >out.txt 2>&1
	s=$?
	bash "$ROOT/bench/tools/run.sh" --no-such-option >out2.txt 2>&1
	s2=$?
	set -e
	expect_eq 2 "$s"
	expect_contains "$(cat out.txt)" "Usage: bench/tools/run.sh [options]"
	expect_eq 2 "$s2"
	expect_contains "$(cat out2.txt)" "unknown option --no-such-option"
	# Every program with a Torch operation is a bench program.
	progs=" $(make -s --no-print-directory -C "$ROOT/bench" list) "
	for p in $(python3 "$ROOT/bench/tools/torch_eager.py" --list); do
		expect_contains "$progs" " $p "
	done
}
