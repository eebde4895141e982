# shim: the entry shims ks generates compile with a real nvcc into shared
# objects that export ks_entry, for kernels with struct, pointer, scalar and
# __half parameters, typed and deduced, in a namespace, a template instance
# and a kernel with a launcher, and next to a TU whose macros have short
# names; a captured size that disagrees with the kernel stops the typed
# shim at compile time.

suite_probe() {
	have_real_nvcc || echo "no nvcc"
}

KERNELS=$ROOT/tests/data/capture/shim_kernels.cu

build_shim() { # name, then ks shim arguments
	local name=$1
	shift
	"$KS_BIN" shim --include "$KERNELS" "$@" >"$name.cu"
	"$(real_nvcc)" -arch=sm_90 -shared -Xcompiler -fPIC -cudart shared \
		-o "$name.so" "$name.cu" 2>"$name.log"
}

expect_exports() { # shared object
	local syms
	syms=$(nm -D --defined-only "$1")
	expect_contains "$syms" " T ks_entry"
	expect_contains "$syms" " T ks_entry_function"
	expect_contains "$syms" " R ks_entry_kernel"
}

test_typed_struct_pointer_scalar_half() {
	build_shim typed mixed '16:grid2d' '8:const float *__restrict__' \
		'8:float *' '2:__half' '4:int'
	expect_contains "$(cat typed.cu)" "using ks_t3 = __half;"
	expect_exports typed.so
}

test_deduced_template_in_namespace() {
	build_shim tmpl 'ns::axpb<float>' 8 8 4
	expect_contains "$(cat tmpl.cu)" "namespace ns {"
	expect_exports tmpl.so
}

test_launcher_with_unqualified_types() {
	build_shim launcher --launcher 'ns::fill' '8:float *' '8:pair' '4:int'
	expect_contains "$(cat launcher.cu)" "ks_launch_fill(ks_g, ks_b, ks_sh, ks_s,"
	expect_exports launcher.so
}

test_the_tus_macros_do_not_reach_the_shim() {
	# PolyBench and HeCBench programs #define N, and short names such as
	# A, I, k, i, s, grid are macros somewhere: every name the shim
	# declares after the TU's #include is ks_-prefixed.
	cat >macros.cu <<'EOF'
#define N 2048
#define I 3
#define A float
#define k 1
#define i 2
#define s 4
#define have 5
#define want 6
#define params 7
#define grid 8
#define block 9
#define shmem 10
#define fn 11
__global__ void relax(float *f, const float *g, int n)
{
	int x = threadIdx.x;
	if (x < n)
		f[x] = g[x] * N;
}
EOF
	"$KS_BIN" shim --include macros.cu relax 8 8 4 >deduced.cu
	"$(real_nvcc)" -arch=sm_90 -shared -Xcompiler -fPIC -cudart shared \
		-o deduced.so deduced.cu 2>deduced.log || fail "deduced: $(head -c 600 deduced.log)"
	expect_exports deduced.so
	"$KS_BIN" shim --include macros.cu relax '8:float *' '8:const float *' '4:int' >typed.cu
	"$(real_nvcc)" -arch=sm_90 -shared -Xcompiler -fPIC -cudart shared \
		-o typed.so typed.cu 2>typed.log || fail "typed: $(head -c 600 typed.log)"
	expect_exports typed.so
}

test_wrong_size_fails_to_compile() {
	if build_shim wrong mixed '16:grid2d' '8:const float *' '8:float *' \
		'4:__half' '4:int'; then
		fail "a shim with a wrong parameter size compiled"
	fi
	expect_contains "$(cat wrong.log)" "parameter 3 of the kernel is not the captured 4 bytes"
}

test_rejects_unsafe_spellings() {
	if "$KS_BIN" shim 'k;x' 8 >out.cu 2>err.txt; then
		fail "accepted a kernel name with ';'"
	fi
	expect_contains "$(cat err.txt)" "cannot be a kernel's name"
}
