# optimize: ks optimize's command line, its refusal without a GPU, ks explain
# over a trajectory, and the LLM settings in ks config (the key kept out).
# The loop itself, the LLM Optimizer and Repairer against the fake LLM
# server included, is tested in tests/unit/test_agents.c, test_optimize.c
# and test_llm.c.

test_optimize_bad_option_is_usage() {
	set +e
	"$KS_BIN" optimize --rounds 0 2>err.txt
	status=$?
	set -e
	expect_eq 104 "$status"
	expect_contains "$(cat err.txt)" "usage: ks optimize"
}

test_optimize_without_a_gpu_says_so_first() {
	if ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
		skip_test "this machine has a GPU"
	fi
	set +e
	# No captures at all: the GPU is what it must complain about first.
	"$KS_BIN" optimize >out.txt 2>err.txt
	status=$?
	set -e
	expect_eq 105 "$status"
	expect_contains "$(cat err.txt)" "no GPU"
	expect_eq "" "$(cat out.txt)"
	expect_no_file "$KS_DIR/tasks"
}

write_trajectory() { # dir
	mkdir -p "$1"
	cat >"$1/trajectory.jsonl" <<'EOF'
{"format": 1, "round": 0, "parent": -1, "phase": "seed", "repairs": -1, "verdict": "eligible", "original": {"median_ms": 2, "lo_ms": 1.9, "hi_ms": 2.1}, "candidate": {"median_ms": 2, "lo_ms": 1.9, "hi_ms": 2.1}, "speedup": 1, "gain": false, "metrics": {"m.dram_pct": 31}, "diagnosis": null, "gpu_ms": 900, "tokens": 0, "model": "none"}
{"format": 1, "round": 1, "parent": 0, "phase": "optimize", "repairs": -1, "skill": "vectorize_memory", "why": "f.contiguous (1)", "params": "bytes=16", "source": "original", "hash": "aa", "file": "r1.cu", "compile": "failed", "verdict": "rejected", "stage": "compile", "reason": "it does not compile", "original": null, "candidate": null, "speedup": 0, "gain": false, "metrics": {}, "diagnosis": {"class": "nvcc", "what": "nvcc rejected the candidate's source", "evidence": "r1.variant.cu(4): error: x", "cause": "c", "fix": "the next parameter point", "next": "point"}, "gpu_ms": 400, "tokens": 0, "model": "none"}
{"format": 1, "round": 2, "parent": 0, "phase": "repair", "repairs": 1, "skill": "vectorize_memory", "why": "f.contiguous (1)", "params": "bytes=8", "source": "original", "hash": "bb", "file": "r2.cu", "compile": "ok", "verdict": "correct", "original": {"median_ms": 2, "lo_ms": 1.9, "hi_ms": 2.1}, "candidate": {"median_ms": 1, "lo_ms": 0.95, "hi_ms": 1.05}, "speedup": 2, "gain": true, "metrics": {}, "diagnosis": null, "gpu_ms": 1000, "tokens": 0, "model": "none"}
EOF
}

test_explain_prints_the_trail() {
	write_trajectory "$KS_DIR/tasks/_Z1kPf"
	"$KS_BIN" explain _Z1kPf >out.txt
	out=$(cat out.txt)
	expect_contains "$out" "round 1  optimize on the original"
	expect_contains "$out" "skill     vectorize_memory bytes=16 (reads the original)"
	expect_contains "$out" "diagnosis nvcc: nvcc rejected the candidate's source"
	expect_contains "$out" "evidence  r1.variant.cu(4): error: x"
	expect_contains "$out" "round 2  repair on the original, repairing round 1"
	expect_contains "$out" "2.000x"
	expect_contains "$out" "the base moves here"
	expect_contains "$out" "best      round 2, 2.000x over the original, after 2 reviews"
	"$KS_BIN" explain "$KS_DIR/tasks/_Z1kPf" --json >j.txt
	python3 -c 'import json,sys; r=json.load(open("j.txt")); assert len(r) == 3 and r[2]["gain"]'
}

test_explain_prints_where_the_time_went() {
	mkdir -p "$KS_DIR/tasks/_Z1kPf"
	cat >"$KS_DIR/tasks/_Z1kPf/trajectory.jsonl" <<'EOF'
{"format": 1, "round": 0, "parent": -1, "phase": "seed", "repairs": -1, "verdict": "eligible", "original": {"median_ms": 2, "lo_ms": 1.9, "hi_ms": 2.1}, "candidate": {"median_ms": 2, "lo_ms": 1.9, "hi_ms": 2.1}, "speedup": 1, "gain": false, "metrics": {"m.dram_pct": 31}, "diagnosis": null, "gpu_ms": 9000, "cost": {"setup": 3.0, "original": 0.5, "metrics": 5.5, "compile": 2.0}, "tokens": 0, "model": "none"}
{"format": 1, "round": 1, "parent": 0, "phase": "optimize", "repairs": -1, "skill": "coop_rows", "why": "f.rows (1)", "params": "threads=32", "source": "original", "hash": "cc", "file": "r1.cu", "compile": "ok", "verdict": "correct", "original": {"median_ms": 2, "lo_ms": 1.9, "hi_ms": 2.1}, "candidate": {"median_ms": 1, "lo_ms": 0.95, "hi_ms": 1.05}, "speedup": 2, "gain": true, "metrics": {"m.dram_pct": 70}, "diagnosis": null, "gpu_ms": 16000, "cost": {"setup": 3.0, "random": 2.5, "timing": 0.3, "base-metrics": 10.2, "compile": 6.0, "lock_wait": 1.5}, "tokens": 0, "model": "none"}
EOF
	"$KS_BIN" explain _Z1kPf >out.txt
	out=$(cat out.txt)
	expect_contains "$out" "  cost      GPU 9.0 s: setup 3.0, original 0.5, metrics 5.5; compile 2.0 s on the CPU"
	expect_contains "$out" "  cost      GPU 16.0 s: setup 3.0, random 2.5, timing 0.3, base-metrics 10.2; compile 6.0 s on the CPU; 1.5 s waiting for the GPU"
	expect_contains "$out" "cost      GPU 25.0 s: setup 6.0, original 0.5, random 2.5, timing 0.3, metrics 5.5, base-metrics 10.2; compile 8.0 s on the CPU; 1.5 s waiting for the GPU"
	"$KS_BIN" explain _Z1kPf --json >j.txt
	python3 -c 'import json; r=json.load(open("j.txt")); assert r[1]["cost"]["base-metrics"] == 10.2 and "cost" in r[0]'
}

test_explain_unknown_task_fails() {
	set +e
	"$KS_BIN" explain nothing_here 2>err.txt
	status=$?
	set -e
	expect_eq 105 "$status"
	expect_contains "$(cat err.txt)" "no optimize task 'nothing_here'"
}

test_config_never_shows_the_llm_key() {
	out=$(KS_LLM_KEY=sk-very-secret "$KS_BIN" config)
	expect_contains "$out" "llm_key        = (set, not shown)  (environment: KS_LLM_KEY)"
	expect_not_contains "$out" "sk-very-secret"
	expect_contains "$out" "min_gain       = 1.05  (default)"
}

test_config_shows_the_llm_repair_bound() {
	expect_contains "$("$KS_BIN" config)" "llm_repairs    = 2  (default)"
	out=$(KS_LLM_REPAIRS=0 "$KS_BIN" config)
	expect_contains "$out" "llm_repairs    = 0  (environment: KS_LLM_REPAIRS)"
	# a bound below 0 is refused with a warning, the default kept
	out=$(KS_LLM_REPAIRS=-1 "$KS_BIN" config 2>err.txt)
	expect_contains "$out" "llm_repairs    = 2  (default)"
	expect_contains "$(cat err.txt)" "llm_repairs: '-1' is not a non-negative number"
}
