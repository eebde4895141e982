# skills: `ks skills` (list, show, prompt, lint, stats) and `ks plan` on the
# shipped skills folder and on broken copies of it. The lint compiles the
# examples where a real nvcc is installed; `ks plan` needs libclang.

SKILLS=$ROOT/skills

# A copy of the skills folder to break.
copy_skills() {
	cp -R "$SKILLS" "$TEST_DIR/skills"
	export KS_SKILLS=$TEST_DIR/skills
}

test_lint_is_clean() {
	out=$("$KS_BIN" skills lint)
	expect_contains "$out" "policy loaded"
	expect_contains "$out" "4 prompts: 0 problems"
	n=$(ls "$SKILLS"/*.md | grep -vc README.md)
	[ "$n" -ge 32 ] || fail "only $n skills"
	expect_contains "$out" "$n skills"
	if have_real_nvcc; then
		expect_contains "$out" "examples: $((2 * n)) compiled"
		# The second run finds the same text compiled with the same nvcc.
		expect_contains "$("$KS_BIN" skills lint)" "compiled before"
	else
		expect_contains "$out" "examples: not compiled"
	fi
}

test_lint_reports_a_broken_example() {
	have_real_nvcc || skip_test "no nvcc"
	copy_skills
	sed -i 's/y\[i\] = fmaxf(x\[i\], 0.0f);/y[i] = fmaxf(x[i], 0.0f) +;/' "$KS_SKILLS/vectorize_memory.md"
	set +e
	out=$("$KS_BIN" skills lint 2>&1)
	status=$?
	set -e
	expect_eq 105 "$status"
	expect_contains "$out" "$KS_SKILLS/vectorize_memory.md: an example does not compile"
	expect_contains "$out" "vectorize_memory.md("
}

test_lint_reports_names_transforms_and_files() {
	copy_skills
	# A transform the build lacks, named as built in.
	sed -i 's/^transform: coop_rows$/transform: no_such_transform/' \
		"$KS_SKILLS/coop_rows.md"
	set +e
	out=$("$KS_BIN" skills lint --no-compile 2>&1)
	status=$?
	set -e
	expect_eq 105 "$status"
	expect_contains "$out" "coop_rows.md:"
	expect_contains "$out" "transform 'no_such_transform' is not built in"
	# An unknown name in the policy: file and line.
	cp "$SKILLS/coop_rows.md" "$KS_SKILLS/coop_rows.md"
	sed -i 's/signature: f.fp64_in_float_code > 0/signature: f.fp64_in_float_kode > 0/' \
		"$KS_SKILLS/policy.yaml"
	line=$(grep -n 'fp64_in_float_kode' "$KS_SKILLS/policy.yaml" | cut -d: -f1)
	set +e
	out=$("$KS_BIN" skills lint --no-compile 2>&1)
	set -e
	expect_contains "$out" "policy.yaml:$line: bucket fp64_in_float_code: column 1: unknown name 'f.fp64_in_float_kode'"
	# A malformed skill file: file and line.
	cp "$SKILLS/policy.yaml" "$KS_SKILLS/policy.yaml"
	sed -i 's/^category: reduction$/category: magic/' "$KS_SKILLS/coop_rows.md"
	line=$(grep -n '^category: magic' "$KS_SKILLS/coop_rows.md" | cut -d: -f1)
	set +e
	out=$("$KS_BIN" skills lint --no-compile 2>&1)
	set -e
	expect_contains "$out" "coop_rows.md:$line: unknown category 'magic'"
}

test_list_show_prompt() {
	out=$("$KS_BIN" skills list)
	expect_contains "$out" "coop_rows"
	expect_contains "$out" "gemm_register_blocking"
	"$KS_BIN" skills list --json | python3 -c 'import json,sys; j=json.load(sys.stdin); assert len(j) >= 32, len(j)'
	expect_eq "$(cat "$SKILLS/coop_rows.md")" "$("$KS_BIN" skills show coop_rows)"
	out=$("$KS_BIN" skills prompt planner coop_rows)
	expect_contains "$out" "Cooperative rows"
	expect_contains "$out" "__shfl_xor_sync"
	expect_not_contains "$out" "{{guidance}}"
	expect_contains "$out" "{{kernel}}"
	set +e
	"$KS_BIN" skills show no_such_skill 2>err.txt
	status=$?
	set -e
	expect_eq 105 "$status"
	expect_contains "$(cat err.txt)" "no skill 'no_such_skill'"
}

test_stats_export_import() {
	cat >outcomes.jsonl <<'EOF2'
{"format": 1, "time": "2026-12-01T10:00:00Z", "skill": "coop_rows", "params": "", "kernel": "_Z1kv", "bucket": "row_serial", "case": "one_thread_per_row", "result": "faster", "speedup": 6, "features": {"f.kernel_structure": 3}}
{"format": 1, "time": "2026-12-01T10:01:00Z", "skill": "coop_rows", "params": "", "kernel": "_Z1jv", "bucket": "row_serial", "case": "one_thread_per_row", "result": "incorrect", "speedup": 0, "features": {"f.kernel_structure": 3}}
EOF2
	expect_contains "$("$KS_BIN" skills stats)" "no outcomes recorded yet"
	expect_contains "$("$KS_BIN" skills stats import outcomes.jsonl)" "imported 2 new outcomes"
	expect_contains "$("$KS_BIN" skills stats import outcomes.jsonl)" "imported 0 new outcomes"
	out=$("$KS_BIN" skills stats)
	expect_contains "$out" "coop_rows"
	expect_contains "$out" "6.00x"
	"$KS_BIN" skills stats export out.jsonl 2>/dev/null
	expect_eq "$(cat outcomes.jsonl)" "$(cat out.jsonl)"
	KS_DIR=$TEST_DIR/other "$KS_BIN" skills stats import out.jsonl >/dev/null
	expect_contains "$(KS_DIR=$TEST_DIR/other "$KS_BIN" skills stats --json)" '"attempts": 2'
}

test_plan_file() {
	have_libclang || skip_test "no libclang 16-19 (see ks doctor)"
	have_real_nvcc || skip_test "no nvcc"
	args="-O3 -arch=sm_90 -I $ROOT/bench/common"
	# shellcheck disable=SC2086
	out=$("$KS_BIN" plan "$ROOT/bench/relu/main.cu" -- $args 2>&1)
	expect_contains "$out" "kernel relu_kernel (_Z11relu_kernelPKfPfm)"
	expect_contains "$out" "1. vectorize_memory  [streaming/scalar, gain medium]"
	expect_contains "$out" "no counters"
	expect_contains "$out" "needs m."
	# The counters recorded on the GPU, as a replay would give them.
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(json.dumps({"metrics": {"original": j["kernels"][0]["metrics"]}}))' \
		"$ROOT/tests/data/policy/bench/transpose.json" >m.json
	# shellcheck disable=SC2086
	"$KS_BIN" plan "$ROOT/bench/transpose/main.cu:transpose_kernel" --json --metrics m.json -- $args >p.json
	python3 - p.json <<'EOF2' || fail "ks plan --json"
import json, sys
p = json.load(open(sys.argv[1]))
assert len(p) == 1 and p[0]["kernel"] == "transpose_kernel", p
plan = p[0]["plan"]
assert plan["counters"] and plan["tier"] == "M", plan["tier"]
top = plan["allowed"][0]
assert top["skill"] == "smem_tiled_transpose", top
assert any(w["predicate"] == "f.uncoalesced_accesses > 0" and w["values"]["f.uncoalesced_accesses"] == 1
           for w in top["why"]), top["why"]
EOF2
	set +e
	"$KS_BIN" plan "$ROOT/bench/relu/main.cu:nope" -- -I "$ROOT/bench/common" 2>err.txt
	status=$?
	set -e
	expect_eq 105 "$status"
	expect_contains "$(cat err.txt)" "no kernel named nope"
}

# A template's instance is planned on its plain copy's facts (its instance
# view), as ks optimize plans it: the double transpose's access is known
# uncoalesced there, and the plan puts the transpose first.
test_plan_a_template_instance() {
	have_libclang || skip_test "no libclang 16-19 (see ks doctor)"
	have_real_nvcc || skip_test "no nvcc"
	local f=$ROOT/tests/data/transforms/instances.cu
	out=$("$KS_BIN" plan "$f:flip_t<double>" -- -arch=sm_90 2>&1)
	expect_contains "$out" "kernel flip_t (_Z6flip_tIdEvPKT_PS0_ii)"
	expect_contains "$out" "1. smem_tiled_transpose"
	expect_contains "$out" "f.uncoalesced_accesses = 1"
	out=$("$KS_BIN" plan "$f:scale_t<float>" -- -arch=sm_90 2>&1)
	expect_contains "$out" "kernel scale_t (_Z7scale_tIfEvPKT_PS0_S0_i)"
	expect_not_contains "$out" "warning"
}

# ks plan CAPTURE: the kernel's build record, the captured device's arch
# and launch, and the counters of the newest ks replay of that capture. The
# capture and the review are written here as ks capture and ks replay
# would (no GPU needed).
test_plan_capture() {
	have_libclang || skip_test "no libclang 16-19 (see ks doctor)"
	have_real_nvcc || skip_test "no nvcc"
	KS_NVCC=$(real_nvcc) "$KS_NVCC_BIN" -O3 -arch=sm_90 -I "$ROOT/bench/common" \
		-c "$ROOT/bench/relu/main.cu" -o relu.o
	rec=$(ls "$KS_DIR"/builds/*.json | head -n 1)
	# A file built through ks-nvcc is planned with its build's flags.
	out=$("$KS_BIN" plan "$ROOT/bench/relu/main.cu")
	expect_contains "$out" "1. vectorize_memory"
	k=_Z11relu_kernelPKfPfm
	mkdir -p "$KS_DIR/captures/$k/1" "$KS_DIR/replay/$k-1-99"
	cat >"$KS_DIR/captures/$k/1/launch.json" <<EOF2
{"format": 1, "kernel": "$k", "demangled": "relu_kernel(const float*, float*, unsigned long)",
 "api": "cuLaunchKernel", "grid": [1048576, 1, 1], "block": [256, 1, 1], "shmem": 0,
 "cooperative": false, "launch": 1, "device": "NVIDIA H200", "cc": [9, 0],
 "cuda_version": 13000, "program": "relu", "time": "2026-12-01T09:00:00Z",
 "record": "$rec", "params": [], "buffers": []}
EOF2
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(json.dumps({"verdict": "eligible", "metrics": {"source": "ncu", "original": j["kernels"][0]["metrics"]}}))' \
		"$ROOT/tests/data/policy/bench/relu.json" >"$KS_DIR/replay/$k-1-99/review.json"
	out=$("$KS_BIN" plan "$k")
	expect_contains "$out" "kernel relu_kernel ($k)"
	expect_contains "$out" "headroom tier M: d.peak_pct < 80 (d.peak_pct = 66.58)"
	expect_contains "$out" "1. vectorize_memory"
	expect_not_contains "$out" "no counters"
	# The capture named by its directory, as JSON, with its counters.
	"$KS_BIN" plan "$KS_DIR/captures/$k/1" --json >p.json
	python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert p[0]["plan"]["counters"]' p.json ||
		fail "plan --json of a capture"
}

# The skills folder is found from the binary wherever it runs from: beside
# it (./ks), one folder up (build/ks in the source tree), or installed under
# ../share/ks-nvcc.
test_the_skills_are_found_from_the_binary() {
	mkdir -p tree/build inst/bin inst/share/ks-nvcc
	cp "$(readlink -f "$KS_BIN")" tree/build/ks
	cp -R "$SKILLS" tree/skills
	cp "$(readlink -f "$KS_BIN")" inst/bin/ks
	cp -R "$SKILLS" inst/share/ks-nvcc/skills
	expect_contains "$(tree/build/ks skills list)" "coop_rows"
	expect_contains "$(inst/bin/ks skills list)" "coop_rows"
	cp "$(readlink -f "$KS_BIN")" ks
	set +e
	./ks skills list 2>err.txt
	status=$?
	set -e
	[ "$status" -ne 0 ] || fail "ks ran with no skills folder"
	expect_contains "$(cat err.txt)" "share/ks-nvcc/skills"
}
