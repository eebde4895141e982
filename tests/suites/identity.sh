# identity: with an empty cache, a build through ks-nvcc is a build by nvcc.
# Uses the real nvcc. nvcc's objects differ from run to run (the host object
# names a random temporary), so objects are compared built with
# -keep -keep-dir (byte-identical then), or by their .nv_fatbin section.

suite_probe() {
	have_real_nvcc || echo "nvcc is not available"
	command -v objcopy >/dev/null || echo "objcopy is not available"
}

NVCC=$(real_nvcc 2>/dev/null)

fatbin() { # object -> its device code section in object.fatbin
	# Whole programs keep it in .nv_fatbin, relocatable objects (-rdc) in
	# __nv_relfatbin.
	objcopy -O binary --only-section=.nv_fatbin --only-section=__nv_relfatbin \
		"$1" "$1.fatbin"
	[ -s "$1.fatbin" ] || fail "no device code section in $1"
}

# Run the same command line with nvcc in plain/ and ks-nvcc in ks/ (both
# from a sibling directory, so relative paths in outputs are the same).
both() {
	mkdir -p plain ks
	set +e
	(cd plain && "$NVCC" "$@" >stdout.txt 2>stderr.txt; echo $? >status.txt)
	(cd ks && "$KS_NVCC_BIN" "$NVCC" "$@" >stdout.txt 2>stderr.txt; echo $? >status.txt)
	set -e
}

test_keep_objects_are_byte_identical() {
	write_kernel k.cu
	mkdir -p plain/kd ks/kd
	both -O3 -arch=sm_90 -c ../k.cu -o k.o -keep -keep-dir kd
	expect_eq 0 "$(cat plain/status.txt)"
	expect_same_file plain/k.o ks/k.o
	expect_same_file plain/stderr.txt ks/stderr.txt
	expect_eq "" "$(cat ks/stderr.txt ks/stdout.txt)"
	# -keep writes intermediate files named after the source: ks-nvcc
	# leaves such commands alone entirely.
	expect_eq 0 "$(record_count)"
	expect_stat passthru-keep 1
}

test_fatbin_identical_multi_arch_with_depfile() {
	write_kernel k.cu
	both -O2 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90] \
		-MD -MF k.d -c ../k.cu -o k.o
	fatbin plain/k.o
	fatbin ks/k.o
	expect_same_file plain/k.o.fatbin ks/k.o.fatbin
	expect_same_file plain/k.d ks/k.d
	expect_contains "$(cat ks/k.d)" "k.o"
}

test_cmake_style_compile() {
	write_kernel k.cu
	mkdir -p plain/obj ks/obj
	both -forward-unknown-to-host-compiler -DFOO=1 -I.. \
		"--generate-code=arch=compute_90,code=[compute_90,sm_90]" \
		-MD -MT obj/k.cu.o -MF obj/k.cu.o.d -x cu -rdc=true -c ../k.cu -o obj/k.cu.o
	fatbin plain/obj/k.cu.o
	fatbin ks/obj/k.cu.o
	expect_same_file plain/obj/k.cu.o.fatbin ks/obj/k.cu.o.fatbin
	expect_same_file plain/obj/k.cu.o.d ks/obj/k.cu.o.d
	expect_contains "$(cat "$KS_DIR"/builds/*.json)" '"relocatable": true'
}

test_ptxas_verbose_stderr_identical() {
	write_kernel k.cu
	both -arch=sm_90 -Xptxas -v -c ../k.cu -o k.o
	expect_contains "$(cat ks/stderr.txt)" "ptxas info"
	# ptxas reports its own wall time ("Compile time = 12.3 ms"), which
	# differs between any two runs; every other byte must be the same.
	sed -E 's/time = [0-9.]+ ms/time = X ms/' plain/stderr.txt >plain.e
	sed -E 's/time = [0-9.]+ ms/time = X ms/' ks/stderr.txt >ks.e
	expect_same_file plain.e ks.e
}

test_verbose_hash_lines_identical() {
	write_kernel k.cu
	both -v -arch=sm_90 -c ../k.cu -o k.o
	# Temporary names differ between any two nvcc runs; nothing else may.
	sed -E 's/tmpxft_[0-9a-f_]+/tmpxft_X/g' plain/stderr.txt >plain.v
	sed -E 's/tmpxft_[0-9a-f_]+/tmpxft_X/g' ks/stderr.txt >ks.v
	expect_contains "$(cat ks.v)" '#$ TOP='
	expect_same_file plain.v ks.v
}

test_failing_compile_same_status_and_message() {
	printf '__global__ void broken(float *x) { x[0] = undefined_name; }\n' >bad.cu
	both -arch=sm_90 -c ../bad.cu -o bad.o
	expect_ne 0 "$(cat plain/status.txt)"
	expect_eq "$(cat plain/status.txt)" "$(cat ks/status.txt)"
	expect_same_file plain/stderr.txt ks/stderr.txt
	expect_contains "$(cat ks/stderr.txt)" "undefined_name"
	expect_no_file ks/bad.o
}

test_version_and_bad_option_identical() {
	both --version
	expect_same_file plain/stdout.txt ks/stdout.txt
	both --no-such-option ../k.cu
	expect_eq "$(cat plain/status.txt)" "$(cat ks/status.txt)"
	expect_same_file plain/stderr.txt ks/stderr.txt
}

test_preprocess_and_deps_to_stdout_identical() {
	write_kernel k.cu
	both -E -arch=sm_90 ../k.cu
	expect_same_file plain/stdout.txt ks/stdout.txt
	both -M -arch=sm_90 ../k.cu
	expect_same_file plain/stdout.txt ks/stdout.txt
	expect_eq 0 "$(record_count)"
}

test_compile_and_link_identical_fatbin() {
	cat >app.cu <<'EOF2'
#include <cstdio>
__global__ void fill(int *p) { p[threadIdx.x] = threadIdx.x; }
int main() { int *p; cudaMalloc(&p, 64); fill<<<1, 16>>>(p); std::printf("done\n"); return 0; }
EOF2
	both -arch=sm_90 ../app.cu -o app
	expect_eq 0 "$(cat ks/status.txt)"
	fatbin plain/app
	fatbin ks/app
	expect_same_file plain/app.fatbin ks/app.fatbin
}

test_one_command_build_identical_and_recorded() {
	write_kernel a.cu scale
	write_kernel b.cu shift
	printf 'void run_scale(float *, int); void run_shift(float *, int);\nint main() { return 0; }\n' >main.cpp
	both -O3 -arch=sm_90 -DW=2 ../a.cu ../main.cpp ../b.cu -o app
	expect_eq 0 "$(cat ks/status.txt)"
	expect_same_file plain/stderr.txt ks/stderr.txt
	expect_same_file plain/stdout.txt ks/stdout.txt
	fatbin plain/app
	fatbin ks/app
	expect_same_file plain/app.fatbin ks/app.fatbin
	expect_eq 2 "$(record_count)"
	# Each record's compile, run by itself, gives the device code the
	# one command linked into app (its fatbin is a part of app's).
	for r in "$KS_DIR"/builds/*.json; do
		python3 - "$r" "$NVCC" >cmd.txt <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(r["cwd"]); print(sys.argv[2]); print("\n".join(r["argv"]))
PY
		mapfile -t c <cmd.txt
		(cd "${c[0]}" && "${c[@]:1}" -o rec.o)
		fatbin ks/rec.o
		python3 -c 'import sys; a = open(sys.argv[1], "rb").read(); b = open(sys.argv[2], "rb").read(); sys.exit(0 if b and a.find(b) >= 0 else 1)' \
			ks/app.fatbin ks/rec.o.fatbin || fail "$r: its compile's device code is not in app"
	done
}

test_one_command_failing_build_same_status_and_message() {
	printf '__global__ void broken(float *x) { x[0] = undefined_name; }\nint main() { return 0; }\n' >bad.cu
	both -arch=sm_90 ../bad.cu -o bad
	expect_ne 0 "$(cat plain/status.txt)"
	expect_eq "$(cat plain/status.txt)" "$(cat ks/status.txt)"
	expect_same_file plain/stderr.txt ks/stderr.txt
	expect_same_file plain/stdout.txt ks/stdout.txt
	expect_no_file ks/bad
}
