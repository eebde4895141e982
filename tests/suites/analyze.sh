# analyze: `ks analyze` on the kernels written for the tests, from a file
# and from a build record, and the direct-mode manifest it writes.
# Needs libclang (16-19); a real nvcc is used where one is installed.

DATA=$ROOT/tests/data/analysis

suite_probe() {
	"$KS_BIN" doctor 2>/dev/null | grep -q '^libclang  *ok' ||
		echo "no libclang 16-19 (see ks doctor)"
}

record_file() {
	ls "$KS_DIR"/builds/*.json
}

test_text_inventory() {
	out=$("$KS_BIN" analyze "$DATA/features.cu")
	expect_contains "$out" "25 kernels"
	expect_contains "$out" "  saxpy  features.cu:11-16"
	expect_contains "$out" "mangled     _Z5saxpyPfPKffi"
	expect_contains "$out" "structure   S1 (GEMM k-loop)"
	expect_contains "$out" "is_naive_gemm"
	expect_contains "$out" "0 launches"
}

test_json_inventory_and_launches() {
	"$KS_BIN" analyze --json "$DATA/launch.cu" >inv.json
	python3 - inv.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == 1, d["format"]
names = [k["name"] for k in d["kernels"]]
assert names == ["fill", "step_a", "step_b", "lonely", "late"], names
fill = d["kernels"][0]
assert fill["template"] and fill["mangled"] is None
assert [i["display"] for i in fill["instances"]] == ["fill<float, 3>", "fill<int, 1>"]
assert fill["launch_bounds"] == {"text": "BLOCK, MIN_BLOCKS", "values": [128, 4]}
assert fill["features"]["has_multiple_kernels"] == 1
l = [x for x in d["launches"] if x["callee"] == "step_a"][0]
assert (l["grid"], l["block"], l["shmem"], l["stream"]) == ("grid", "BLOCK", "0", "s"), l
assert l["caller"] == "pipeline" and l["args"] == ["x", "n"]
src = open(d["source"]).read()
e = l["extent"]
assert src[e["begin"]:e["end"]] == "step_a<<<grid, BLOCK, 0, s>>>(x, n)", src[e["begin"]:e["end"]]
k = d["kernels"][1]["extent"]
assert src[k["begin"]:k["end"]].startswith("__global__ void step_a(")
assert d["manifest"] is None
PY
}

test_closure_of_a_kernel() {
	out=$("$KS_BIN" analyze --closure target "$DATA/key.cu")
	expect_contains "$out" "ks-closure 1"
	expect_contains "$out" "== macro SCALE"
	expect_contains "$out" "== variable bias"
	expect_not_contains "$out" "other"
}

test_unparsable_file_fails_with_the_reason() {
	set +e
	"$KS_BIN" analyze "$DATA/bad.cu" >out.txt 2>err.txt
	status=$?
	set -e
	expect_eq 105 "$status"
	expect_eq "" "$(cat out.txt)"
	expect_contains "$(cat err.txt)" \
		"bad.cu:6:10: use of undeclared identifier 'undeclared_thing'"
}

test_usage_errors() {
	set +e
	"$KS_BIN" analyze 2>err1.txt
	s1=$?
	"$KS_BIN" analyze a.cu --record r.json 2>err2.txt
	s2=$?
	"$KS_BIN" analyze --frobnicate a.cu 2>err3.txt
	s3=$?
	"$KS_BIN" analyze --closure nope "$DATA/key.cu" 2>err4.txt
	s4=$?
	set -e
	expect_eq 104 "$s1"
	expect_eq 104 "$s2"
	expect_eq 104 "$s3"
	expect_contains "$(cat err1.txt)" "usage: ks analyze"
	expect_eq 105 "$s4"
	expect_contains "$(cat err4.txt)" "no kernel 'nope'"
}

test_libclang_override_is_obeyed() {
	set +e
	KS_LIBCLANG=/nonexistent/libclang.so "$KS_BIN" analyze "$DATA/key.cu" \
		2>err.txt
	status=$?
	set -e
	expect_eq 105 "$status"
	expect_contains "$(cat err.txt)" "KS_LIBCLANG=/nonexistent/libclang.so"
	expect_contains "$(cat err.txt)" "libclang.so: not found"
}

test_libclang_load_failure_says_why() {
	# A library that exists but cannot load (here: not ELF; on a machine,
	# typically a dependency such as libz3 missing) gets the loader's words.
	printf 'not a library\n' >libclang.so
	set +e
	KS_LIBCLANG=$PWD/libclang.so "$KS_BIN" analyze "$DATA/key.cu" 2>err.txt
	status=$?
	set -e
	expect_eq 105 "$status"
	expect_contains "$(cat err.txt)" "$PWD/libclang.so: "
	expect_not_contains "$(cat err.txt)" "libclang.so: not found"
}

test_record_keys_and_manifest() {
	use_fake_nvcc
	mkdir inc
	echo '#define FACTOR 2.0f' >inc/k.h
	cat >k.cu <<'CU'
#include "k.h"
__global__ void scale(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= FACTOR;
}
CU
	"$KS_NVCC_BIN" -gencode arch=compute_80,code=sm_80 \
		-gencode arch=compute_90,code=sm_90 -Iinc -c k.cu -o k.o
	rec=$(record_file)
	: >"$FAKE_NVCC_LOG"
	FAKE_NVCC_STDOUT="k.o: k.cu inc/k.h" "$KS_BIN" analyze --json --manifest \
		--record "$rec" >inv.json
	# nvcc -M listed the headers: the compile's argv without its outputs
	expect_contains "$(cat "$FAKE_NVCC_LOG")" "-Iinc|k.cu|-M"
	expect_not_contains "$(cat "$FAKE_NVCC_LOG")" "k.o"
	m=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["manifest"])' inv.json)
	expect_file "$m"
	case $m in
	"$KS_DIR"/manifests/??/*) ;;
	*) fail "manifest path $m" ;;
	esac
	text=$(cat "$m")
	expect_contains "$text" "ks-manifest 1"
	expect_contains "$text" "source $TEST_DIR/k.cu"
	expect_contains "$text" " 20 $TEST_DIR/inc/k.h"
	expect_contains "$text" " sm_80 _Z5scalePfi"
	expect_contains "$text" " sm_90 _Z5scalePfi"
	python3 - inv.json "$m" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
keys = d["kernels"][0]["keys"]
# the build's archs, then the GPUs sm_80's SASS also runs on (its major)
assert [k["arch"] for k in keys] == ["sm_80", "sm_90", "sm_86", "sm_87", "sm_88",
                                     "sm_89"], keys
assert len(set(k["key"] for k in keys)) == len(keys)
assert [k.get("reached", False) for k in keys] == [False, False] + [True] * 4, keys
text = open(sys.argv[2]).read()
for k in keys:
    assert "kernel %s %s _Z5scalePfi" % (k["key"], k["arch"]) in text, text
PY
	# the same analysis again: one entry, not two
	FAKE_NVCC_STDOUT="k.o: k.cu inc/k.h" "$KS_BIN" analyze --manifest \
		--record "$rec" >/dev/null
	expect_eq 1 "$(grep -c '^entry$' "$m")"
	# a header edit: a second entry, and new keys
	echo '#define FACTOR 3.0f' >inc/k.h
	FAKE_NVCC_STDOUT="k.o: k.cu inc/k.h" "$KS_BIN" analyze --manifest \
		--record "$rec" >/dev/null
	expect_eq 2 "$(grep -c '^entry$' "$m")"
	expect_eq 12 "$(sort -u <(grep '^kernel' "$m") | wc -l | tr -d ' ')"
}

test_fast_math_changes_the_keys() {
	use_fake_nvcc
	write_kernel k.cu
	"$KS_NVCC_BIN" -arch=sm_90 -c k.cu -o a.o
	"$KS_NVCC_BIN" -arch=sm_90 -use_fast_math -c k.cu -o b.o
	ra=$(grep -l '/a.o"' "$KS_DIR"/builds/*.json)
	rb=$(grep -l '/b.o"' "$KS_DIR"/builds/*.json)
	k1=$("$KS_BIN" analyze --record "$ra" | grep 'key  ')
	k2=$("$KS_BIN" analyze --record "$rb" | grep 'key  ')
	expect_contains "$k1" "sm_90"
	expect_ne "$k1" "$k2" "keys with and without -use_fast_math"
}

test_real_nvcc_record() {
	have_real_nvcc || { echo "no nvcc: skipped"; return 0; }
	nvcc=$(real_nvcc)
	write_kernel k.cu
	"$KS_NVCC_BIN" "$nvcc" -arch=sm_90 -c k.cu -o k.o
	out=$("$KS_BIN" analyze --manifest --record "$(record_file)")
	expect_contains "$out" "(sm_90, "
	expect_not_contains "$out" "minimal prelude"
	expect_contains "$out" "key         sm_90 "
	m=$(printf '%s\n' "$out" | sed -n 's/^manifest //p')
	expect_file "$m"
	# toolkit headers are named, not hashed; <cstdio> is hashed
	expect_contains "$(cat "$m")" "system "
	expect_contains "$(cat "$m")" "kernel "
}

# The four kernels of a file whose #if tests nvcc's predefined macros.
write_nvcc_branches() {
	cat >"$1" <<'CU'
#ifdef __NVCC__
__global__ void k_nvcc(int *p) { *p = 1; }
#endif
#if defined(__CUDACC_VER_MAJOR__)
__global__ void k_cudacc_ver(int *p) { *p = 2; }
#endif
#if __CUDACC__
__global__ void k_cudacc(int *p) { *p = 3; }
#endif
__global__ void k_always(int *p) { *p = 4; }
CU
}

expect_four_kernels() { # analyze output
	expect_contains "$1" "4 kernels"
	for k in k_nvcc k_cudacc_ver k_cudacc k_always; do
		expect_contains "$1" "  $k  "
	done
}

test_nvcc_macros_take_nvccs_branches() {
	have_real_nvcc || skip_test "no nvcc"
	nvcc=$(real_nvcc)
	write_nvcc_branches m.cu
	# nvcc's own preprocessing keeps all four
	pre=$("$nvcc" -E m.cu)
	for k in k_nvcc k_cudacc_ver k_cudacc k_always; do
		expect_contains "$pre" "void $k("
	done
	PATH=$(dirname "$nvcc"):$PATH
	out=$("$KS_BIN" analyze m.cu)
	expect_four_kernels "$out"
	# asked once, kept per nvcc binary, and read back
	c=$(ls "$KS_DIR"/nvcc/*.macros)
	expect_contains "$(cat "$c")" "#define __CUDACC__ 1"
	expect_contains "$(cat "$c")" "#define __CUDACC_VER_MAJOR__ "
	expect_not_contains "$(cat "$c")" "__CUDA_ARCH__"
	expect_four_kernels "$("$KS_BIN" analyze m.cu)"
	# a damaged entry is asked again and rewritten
	echo '#define __CUDACC__' >"$c"
	expect_four_kernels "$("$KS_BIN" analyze m.cu)"
	expect_contains "$(cat "$c")" "#define __NVCC__ 1"
	# and from the build's record
	"$KS_NVCC_BIN" "$nvcc" -arch=sm_90 -c m.cu -o m.o
	expect_four_kernels "$("$KS_BIN" analyze --record "$(record_file)")"
}

test_nvcc_macros_from_the_version_when_nvcc_cannot_say() {
	use_fake_nvcc
	write_nvcc_branches m.cu
	"$KS_NVCC_BIN" -c m.cu -o m.o
	rec=$(record_file)
	grep -q '"nvcc_version": *"[0-9]' "$rec" ||
		skip_test "the fake nvcc reports no version"
	# the fake nvcc prints no macros: the record's version stands in
	out=$("$KS_BIN" analyze --record "$rec")
	expect_four_kernels "$out"
	expect_eq "" "$(ls "$KS_DIR"/nvcc/*.macros 2>/dev/null)" "cache entry"
}

test_one_command_records_analyze_as_compiles() {
	use_fake_nvcc
	write_kernel a.cu scale
	write_kernel b.cu shift
	printf 'int main() { return 0; }\n' >main.cpp
	"$KS_NVCC_BIN" -O3 -arch=sm_90 a.cu main.cpp b.cu -o app
	expect_eq 2 "$(record_count)"
	ra=$(grep -l "\"source\": \"$TEST_DIR/a.cu\"" "$KS_DIR"/builds/*.json)
	rb=$(grep -l "\"source\": \"$TEST_DIR/b.cu\"" "$KS_DIR"/builds/*.json)
	out=$("$KS_BIN" analyze --record "$rb")
	expect_contains "$out" "shift"
	expect_not_contains "$out" "scale"
	ka=$("$KS_BIN" analyze --record "$ra" | grep 'key  ')
	expect_contains "$ka" "sm_90"
	# The same source compiled with -c by itself has the same keys: a
	# variant found for one is found for the other.
	"$KS_NVCC_BIN" -O3 -arch=sm_90 -c a.cu -o a.o
	rc=$(grep -l '/a.o"' "$KS_DIR"/builds/*.json)
	expect_eq "$ka" "$("$KS_BIN" analyze --record "$rc" | grep 'key  ')"
	# The manifest's nvcc -M runs the source's compile alone.
	: >"$FAKE_NVCC_LOG"
	FAKE_NVCC_STDOUT="a.o: a.cu" "$KS_BIN" analyze --manifest --record "$ra" >/dev/null
	expect_contains "$(cat "$FAKE_NVCC_LOG")" "-O3|-arch=sm_90|a.cu|-M"
	expect_not_contains "$(cat "$FAKE_NVCC_LOG")" "main.cpp"
}

test_host_flags_keep_the_keys() {
	use_fake_nvcc
	write_kernel k.cu
	"$KS_NVCC_BIN" -arch=sm_90 -c k.cu -o a.o
	"$KS_NVCC_BIN" -arch=sm_90 -O3 -Xcompiler -Wall,-fPIC -ccbin g++ -Xptxas -v -c k.cu -o b.o
	"$KS_NVCC_BIN" -arch=sm_90 -Xptxas -O1 -c k.cu -o c.o
	"$KS_NVCC_BIN" -arch=sm_90 -DSCALE=2 -c k.cu -o d.o
	key() { "$KS_BIN" analyze --record "$(grep -l "/$1\"" "$KS_DIR"/builds/*.json)" | grep 'key  '; }
	expect_eq "$(key a.o)" "$(key b.o)" "keys with and without host-only flags"
	expect_ne "$(key a.o)" "$(key c.o)" "keys with and without -Xptxas -O1"
	expect_ne "$(key a.o)" "$(key d.o)" "keys with and without -DSCALE=2"
}

# Host code in nvcc's dialect: omp.h from the host compiler, host min/max
# on ints, `register` in C++17, and a host line clang cannot take.
test_nvcc_dialect_host_code_does_not_refuse_the_tu() {
	have_real_nvcc || skip_test "no nvcc"
	nvcc=$(real_nvcc)
	command -v g++ >/dev/null || skip_test "no g++"
	printf '#include <omp.h>\n' | g++ -fopenmp -E -x c++ - >/dev/null 2>&1 ||
		skip_test "g++ has no omp.h"
	cat >d.cu <<'CU'
#include <omp.h>
#include <cstdlib>
__global__ void k(int *p, int n) { p[threadIdx.x] = max(n, 1); }
void report() { float s = __saturatef(0.5f); (void)s; }
int main(int argc, char **argv) {
  register int t = omp_get_max_threads();
  int r = max(1, atoi(argv[1]));
  int *d = 0;
  k<<<t, r>>>(d, min(r, 3));
  return 0;
}
CU
	# nvcc compiles it but for the one host line (a device-only call)
	"$nvcc" -Xcompiler -fopenmp -c d.cu -o d.o >nvcc.log 2>&1 && fail "nvcc took the device-only call"
	expect_contains "$(cat nvcc.log)" "d.cu(4)"
	expect_eq 1 "$(grep -c ': error' nvcc.log | tr -d ' ')" "nvcc errors"
	PATH=$(dirname "$nvcc"):$PATH
	"$KS_BIN" analyze --json d.cu >inv.json
	python3 - inv.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [k["name"] for k in d["kernels"]] == ["k"], d["kernels"]
assert [l["callee"] for l in d["launches"]] == ["k"], d["launches"]
h = d["host_errors"]
assert len(h) == 1 and "d.cu:4:" in h[0] and "__saturatef" in h[0], h
PY
	expect_contains "$(cat "$KS_DIR"/nvcc/*.hostinc)" "search starts here"
	out=$("$KS_BIN" analyze d.cu)
	expect_contains "$out" "1 host line not understood"
}

# Template kernels: the instances ks finds are the kernel entries of
# nvcc's own PTX for the same TU, no more, no fewer.
test_template_instances_are_the_ptx_entries() {
	have_real_nvcc || skip_test "no nvcc"
	nvcc=$(real_nvcc)
	"$nvcc" -arch=sm_90 -ptx -o t.ptx "$DATA/templates.cu"
	PATH=$(dirname "$nvcc"):$PATH
	"$KS_BIN" analyze --json "$DATA/templates.cu" -- -arch=sm_90 >inv.json
	python3 - inv.json t.ptx <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
ptx = set(re.findall(r"\.entry\s+(\w+)", open(sys.argv[2]).read()))
ks = set()
for k in d["kernels"]:
    if k["mangled"]:
        ks.add(k["mangled"])
    ks.update(i["mangled"] for i in k["instances"])
assert len(ptx) == 21, sorted(ptx)
assert ks == ptx, ("only ks", sorted(ks - ptx), "only ptx", sorted(ptx - ks))
# every launch names instances that are entries; every key is an instance
for l in d["launches"]:
    assert set(l["instances"]) <= ptx and (l["instances"] or l["mangled"] in ptx), l
keyed = {m["mangled"] for k in d["kernels"] for m in k["keys"]}
assert keyed == ptx, sorted(ptx - keyed)
PY
}

# Names nvcc gives and clang would not by default: a non-type template
# parameter of dependent or deduced type (mangling.cu), a cub type among
# the template arguments (cub_arg.cu, cub's namespace spelled from
# __CUDA_ARCH_LIST__): ks lists exactly the PTX's entries.
test_kernel_names_are_nvccs() {
	have_real_nvcc || skip_test "no nvcc"
	nvcc=$(real_nvcc)
	PATH=$(dirname "$nvcc"):$PATH
	for f in mangling cub_arg; do
		"$nvcc" -arch=sm_90 -ptx -o "$f.ptx" "$DATA/$f.cu"
		"$KS_BIN" analyze --json "$DATA/$f.cu" -- -arch=sm_90 >"$f.json"
		python3 - "$f.json" "$f.ptx" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
ptx = set(re.findall(r"\.entry\s+(\w+)", open(sys.argv[2]).read()))
ks = set()
for k in d["kernels"]:
    if k["mangled"]:
        ks.add(k["mangled"])
    ks.update(i["mangled"] for i in k["instances"])
assert ptx, sys.argv[2]
assert ks == ptx, ("only ks", sorted(ks - ptx), "only ptx", sorted(ptx - ks))
PY
	done
}

# The time bound: a parse longer than KS_ANALYSIS_TIMEOUT (here 1 ms of
# CPU; the plain parse of cub and thrust takes seconds) ends about a CPU
# second later with the reason and no inventory; the default lets it
# finish.
test_analysis_time_bound() {
	[ -d "${CUDA_HOME:-/usr/local/cuda}/include/cccl" ] || skip_test "no CUDA toolkit with CCCL"
	start=$(date +%s)
	set +e
	KS_ANALYSIS_TIMEOUT=1 "$KS_BIN" analyze --no-pch "$DATA/cub_thrust.cu" >out.txt 2>err.txt
	status=$?
	set -e
	end=$(date +%s)
	expect_eq 105 "$status" "exit status"
	expect_contains "$(cat err.txt)" "cub_thrust.cu: analysis took longer than 1 ms of CPU time (KS_ANALYSIS_TIMEOUT)"
	expect_eq "" "$(cat out.txt)" "inventory"
	# wall time: a CPU second, however loaded the machine is, is less
	[ $((end - start)) -le 60 ] || fail "took $((end - start)) s"
	expect_contains "$("$KS_BIN" config)" "analysis_timeout = 10000"
	out=$("$KS_BIN" analyze "$DATA/cub_thrust.cu")
	expect_contains "$out" "2 kernels"
}
