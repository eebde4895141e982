# rewrite: rewritten translation units compile with the real nvcc for two
# archs, and each arch's PTX holds the variant only where it was verified.
# Sources: tests/data/rewrite (saxpy.cu, launched with 2, 3 and 4
# configuration values; two variants marked by the constant 0x5eed5eed =
# 1592614637 in their code).

suite_probe() {
	have_real_nvcc || { echo "no nvcc"; return; }
	[ -f "$BUILD/src/cache/rewrite.o" ] || echo "no $BUILD/src/cache/rewrite.o (run make test)"
}

MARK=1592614637
ARCHS="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"

# Build tests/data/rewrite/rewrite-tool.c against the build's objects, with
# the sanitizers those objects were built with.
build_tool() {
	local flags="" o
	o=$(nm "$BUILD/src/core/buf.o" 2>/dev/null)
	case $o in *__asan*) flags="$flags -fsanitize=address" ;; esac
	case $o in *__ubsan*) flags="$flags -fsanitize=undefined" ;; esac
	# shellcheck disable=SC2086
	${CC:-cc} -std=c11 -D_GNU_SOURCE $flags -o "$TEST_DIR/rewrite-tool" \
		"$ROOT/tests/data/rewrite/rewrite-tool.c" \
		"$BUILD/src/cache/rewrite.o" "$BUILD/src/cache/lex.o" "$BUILD"/src/core/*.o
	cp "$ROOT"/tests/data/rewrite/*.cu .
}

# Compile $1 for sm_80 and sm_90 keeping the PTX in kd/ (more flags after).
compile() {
	local src=$1
	shift
	rm -rf kd
	mkdir kd
	# shellcheck disable=SC2086
	"$(real_nvcc)" $ARCHS -keep -keep-dir kd "$@" -c "$src" -o "${src%.cu}.o"
}

# Number of lines of PTX file $1 that contain $2.
in_ptx() {
	grep -c -- "$2" "$1" || true
}

test_a_variant_without_launcher_only_for_its_arch() {
	build_tool
	./rewrite-tool saxpy.cu saxpy 900 saxpy-body.variant.cu >out.cu
	expect_not_contains "$(cat out.cu)" "ks_launch_saxpy"
	compile out.cu
	expect_eq 1 "$(in_ptx kd/out.compute_90.ptx "$MARK")" "variant in sm_90 PTX"
	expect_eq 0 "$(in_ptx kd/out.compute_80.ptx "$MARK")" "variant in sm_80 PTX"
	expect_eq 1 "$(in_ptx kd/out.compute_80.ptx '.entry _Z5saxpyfPKfPfi')" "original kernel in sm_80 PTX"
	expect_eq 1 "$(in_ptx kd/out.compute_90.ptx '.entry _Z5saxpyfPKfPfi')" "kernel in sm_90 PTX"
	# The original source, compiled as is, has no marker anywhere.
	compile saxpy.cu
	expect_eq 0 "$(cat kd/*.ptx | grep -c "$MARK" || true)" "marker in the original"
}

test_a_variant_with_launcher_and_helpers() {
	build_tool
	./rewrite-tool saxpy.cu saxpy 900 saxpy-launcher.variant.cu >out.cu
	# Each of the three launch sites (2, 3 and 4 values) goes through it.
	out=$(cat out.cu)
	expect_contains "$out" "ks_launch_saxpy((n + 255) / 256, 256, 0, cudaStream_t(), a, x, y, n)"
	expect_contains "$out" "ks_launch_saxpy((n + 127) / 128, 128, 0, cudaStream_t(), a, x, y, n)"
	expect_contains "$out" "ks_launch_saxpy(dim3((n + 255) / 256), dim3(256), 0, s, a, x, y, n)"
	expect_eq 3 "$(grep -c 'ks_variant_active_saxpy() ?' out.cu)" "rewritten launches"
	# Warnings are errors here: where the original builds, so must the
	# rewritten file (the glue adds no warning).
	strict="-Werror all-warnings -Xcompiler -Wall,-Wextra,-Wconversion"
	strict="$strict -Xcompiler -Wshadow,-Werror"
	# shellcheck disable=SC2086
	compile saxpy.cu $strict
	# shellcheck disable=SC2086
	compile out.cu $strict
	expect_eq 1 "$(in_ptx kd/out.compute_90.ptx "$MARK")" "variant in sm_90 PTX"
	expect_eq 0 "$(in_ptx kd/out.compute_80.ptx "$MARK")" "variant in sm_80 PTX"
	# The helper kernel exists for both archs (nvcc takes host stubs from
	# its last device pass), its body only for sm_90.
	for a in 80 90; do
		expect_eq 1 "$(in_ptx kd/out.compute_$a.ptx '.entry _Z10saxpy_tailfPKfPfii')" "helper kernel in sm_$a PTX"
		sed -n '/\.entry _Z10saxpy_tailfPKfPfii/,/^}/p' kd/out.compute_$a.ptx >tail.$a.ptx
	done
	expect_eq 0 "$(in_ptx tail.80.ptx 'ld.global')" "helper kernel body in sm_80 PTX"
	[ "$(in_ptx tail.90.ptx 'ld.global')" -ge 1 ] || fail "no helper kernel body in sm_90 PTX"
	expect_eq 1 "$(in_ptx kd/out.compute_90.ptx 'ld.global.nc.v4.f32')" "the variant's float4 load"
	for a in 80 90; do
		expect_eq 1 "$(in_ptx kd/out.compute_$a.ptx '.entry _Z5saxpyfPKfPfi')" "kernel in sm_$a PTX"
		expect_eq 1 "$(in_ptx kd/out.compute_$a.ptx '.entry _Z14ks_probe_saxpyv')" "probe in sm_$a PTX"
	done
	# Relocatable device code too.
	"$(real_nvcc)" -rdc=true -arch=sm_90 -c out.cu -o out-rdc.o
	# nvcc takes the kernels' host stubs from its last device pass: with
	# sm_80 last, the helper kernel must still be declared there to link.
	"$(real_nvcc)" -gencode arch=compute_90,code=sm_90 \
		-gencode arch=compute_80,code=sm_80 -o app out.cu gpu-main.cu
	expect_file app
}

# One instance with helpers and a launcher: every host launch of the
# template (from the template function, and the explicit one) calls the
# launcher template, whose specialization for float runs the variant's
# launcher when its image runs; double keeps the original everywhere.
test_an_instance_with_a_launcher() {
	local strict a
	build_tool
	./rewrite-tool tscale.cu 'scale<float>' 900 tscale-launcher.variant.cu >out.cu
	out=$(cat out.cu)
	expect_contains "$out" "ks_launch_scale((n + 255) / 256, 256, 0, cudaStream_t(), p, (T)2, n)"
	expect_contains "$out" "ks_launch_scale<float>(4, 256, 0, cudaStream_t(), f, 3.0f, 1021)"
	expect_contains "$out" "template <class T> static void
ks_launch_scale(dim3 ks_grid, dim3 ks_block, size_t ks_shmem,
		cudaStream_t ks_stream, T *p, T s, int n)"
	expect_contains "$out" "scale<T><<<ks_grid, ks_block, ks_shmem, ks_stream>>>(p, s, n);"
	expect_contains "$out" "template <> void
ks_launch_scale<float>(dim3 ks_grid, dim3 ks_block, size_t ks_shmem,
		cudaStream_t ks_stream, ks_tp_scale_T *p, ks_tp_scale_T s, int n)"
	# the variant's launcher, renamed, launches the instance by name
	expect_contains "$out" "ks_launch_scale_0(dim3 grid"
	expect_contains "$out" "scale<float><<<(quads + 255) / 256, 256, shmem, stream>>>(p, s, n);"
	strict="-Werror all-warnings -Xcompiler -Wall,-Wextra,-Wconversion"
	strict="$strict -Xcompiler -Wshadow,-Werror"
	# shellcheck disable=SC2086
	compile tscale.cu $strict
	# shellcheck disable=SC2086
	compile out.cu $strict
	expect_eq 1 "$(in_ptx kd/out.compute_90.ptx "$MARK")" "variant in sm_90 PTX"
	expect_eq 0 "$(in_ptx kd/out.compute_80.ptx "$MARK")" "variant in sm_80 PTX"
	for a in 80 90; do
		expect_eq 2 "$(grep -c '\.entry _Z5scaleI[fd]EvPT_S0_i' kd/out.compute_$a.ptx)" "instances in sm_$a PTX"
		expect_eq 1 "$(in_ptx kd/out.compute_$a.ptx '.entry _Z10scale_tailPffii')" "helper kernel in sm_$a PTX"
		expect_eq 1 "$(in_ptx kd/out.compute_$a.ptx '.entry _Z16ks_probe_scale_0v')" "probe in sm_$a PTX"
	done
	entry=$(awk '/\.entry/ { e = $3 } /'"$MARK"'/ { print e }' kd/out.compute_90.ptx)
	expect_eq "_Z5scaleIfEvPT_S0_i(" "$entry" "entry holding the variant"
	# shellcheck disable=SC2086
	"$(real_nvcc)" $ARCHS -o prog out.cu || fail "link, sm_90 last"
	"$(real_nvcc)" -gencode arch=compute_90,code=sm_90 \
		-gencode arch=compute_80,code=sm_80 -o prog2 out.cu ||
		fail "link, sm_80 last"
}

test_a_template_kernel_is_refused() {
	build_tool
	cat >tmpl.cu <<'EOF'
template <typename T>
__global__ void saxpy(T a, const T *x, T *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}
void run(const float *x, float *y, int n) { saxpy<<<1, 256>>>(2.0f, x, y, n); }
EOF
	if ./rewrite-tool tmpl.cu saxpy 900 saxpy-body.variant.cu >out.cu 2>err.txt; then
		fail "a template kernel was rewritten"
	fi
	expect_eq "rewrite-tool: cannot rewrite kernel 'saxpy': template kernels are not supported (line 1)" "$(cat err.txt)"
	expect_eq "" "$(cat out.cu)" "output"
}

# #line: an error in the variant is reported at the variant's line, one in
# untouched code at the user's line, for the arch whose pass sees it.
test_errors_point_at_the_variant_and_at_the_user() {
	build_tool
	sed 's/return;/return undefined_in_variant;/' saxpy-body.variant.cu >bad.variant.cu
	line=$(grep -n undefined_in_variant bad.variant.cu | cut -d: -f1)
	./rewrite-tool saxpy.cu saxpy 900 bad.variant.cu >bad.cu
	if compile bad.cu 2>err.txt; then fail "a broken variant compiled"; fi
	expect_contains "$(cat err.txt)" "bad.variant.cu($line): error: identifier \"undefined_in_variant\" is undefined"

	sed 's/printf("nothing to do\\n")/printf(undefined_in_user)/' saxpy.cu >user.cu
	line=$(grep -n undefined_in_user user.cu | cut -d: -f1)
	expect_ne "" "$line" "line of the user's error"
	./rewrite-tool user.cu saxpy 900 saxpy-launcher.variant.cu >ubad.cu
	if compile ubad.cu 2>err.txt; then fail "a broken user file compiled"; fi
	expect_contains "$(cat err.txt)" "user.cu($line): error: identifier \"undefined_in_user\" is undefined"
	# An error in the user's kernel body shows for the other archs' pass.
	sed 's/y\[i\] = a \* x\[i\] + y\[i\];/y[i] = undefined_in_kernel;/' saxpy.cu >kern.cu
	line=$(grep -n undefined_in_kernel kern.cu | cut -d: -f1)
	./rewrite-tool kern.cu saxpy 900 saxpy-body.variant.cu >kbad.cu
	if compile kbad.cu 2>err.txt; then fail "a broken kernel compiled"; fi
	expect_contains "$(cat err.txt)" "kern.cu($line): error: identifier \"undefined_in_kernel\" is undefined"
}

# One instance of a template kernel: the variant for scale<float> is in
# the sm_90 PTX, in scale<float>'s entry only; scale<double> and sm_80
# compile as written; the program links whichever arch comes last.
test_one_instance_of_a_template_kernel() {
	build_tool
	./rewrite-tool tscale.cu 'scale<float>' 900 tscale-float.variant.cu >out.cu
	expect_contains "$(cat out.cu)" "template <> __global__ void scale<float>(float *p"
	compile out.cu
	expect_eq 1 "$(in_ptx kd/out.compute_90.ptx "$MARK")" "variant in sm_90 PTX"
	expect_eq 0 "$(in_ptx kd/out.compute_80.ptx "$MARK")" "variant in sm_80 PTX"
	for f in kd/out.compute_90.ptx kd/out.compute_80.ptx; do
		expect_eq 2 "$(grep -c '\.entry _Z5scaleI[fd]EvPT_S0_i' "$f")" "entries of $f"
	done
	# the marker sits in the float instance's entry
	entry=$(awk '/\.entry/ { e = $3 } /'"$MARK"'/ { print e }' kd/out.compute_90.ptx)
	expect_eq "_Z5scaleIfEvPT_S0_i(" "$entry" "entry holding the variant"
	# shellcheck disable=SC2086
	"$(real_nvcc)" $ARCHS -o prog out.cu || fail "link, sm_90 last"
	"$(real_nvcc)" -gencode arch=compute_90,code=sm_90 \
		-gencode arch=compute_80,code=sm_80 -o prog2 out.cu ||
		fail "link, sm_80 last"
	# the explicit launch stays as written without a launcher
	expect_contains "$(cat out.cu)" "scale<float><<<4, 256>>>(f, 3.0f, 1021);"
	# a plain kernel is refused here, a template by ks_rewrite
	./rewrite-tool saxpy.cu 'saxpy<float>' 900 saxpy-body.variant.cu \
		>/dev/null 2>err.txt && fail "a plain kernel as an instance"
	expect_contains "$(cat err.txt)" "it is not a template"
}
