/* Unit tests of nvcc's dialect where clang is stricter: the host
 * compiler's include directories (pure parse; omp.h found through them),
 * nvcc's host min/max, `register` in C++17, the __nv_atomic_* builtins,
 * the <math.h> and <cmath> nvcc includes for host code,
 * and host code clang refuses that is set aside when no kernel, launch or
 * template depends on it; and the instances of template kernels
 * (tests/data/analysis/templates.cu: through template host functions,
 * templates of templates, class templates, addresses, an explicit
 * instantiation, function pointers in an initializer), the instances
 * each launch names, a key per instance.
 * Launches from macro expansions: the macro's use as the extent, the
 * pieces as spelled, and the rewriter's "not rewritable" for a launcher.
 * The time bound of a TU's walk.
 * The parse tests skip without libclang or a CUDA toolkit (the extras
 * header is the toolkit path's). */
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/analysis/hoist.h"
#include "../../src/analysis/inventory.h"
#include "../../src/analysis/libclang.h"
#include "../../src/cache/rewrite.h"
#include "../../src/core/buf.h"
#include "../../src/core/fs.h"
#include "../../src/core/strv.h"
#include "../../src/core/util.h"
#include "../../src/nvcc/hostinc.h"
#include "test.h"

void ks_suite_analysis_dialect(void);

static const char gcc_v[] =
	"Using built-in specs.\n"
	"ignoring nonexistent directory \"/usr/local/include/x86_64\"\n"
	"#include \"...\" search starts here:\n"
	" /quoted/only\n"
	"#include <...> search starts here:\n"
	" /usr/include/c++/12\n"
	" /usr/lib/gcc/x86_64-linux-gnu/12/include\n"
	" /Library/Frameworks (framework directory)\n"
	" relative/dir\n"
	" /usr/include\n"
	"End of search list.\n"
	"COMPILER_PATH=/usr/libexec/gcc\n";

TEST(host_includes_from_the_compilers_report)
{
	struct ks_strv dirs = KS_STRV_INIT;

	CHECK_INT_EQ(4, ks_hostinc_parse(gcc_v, &dirs));
	CHECK_INT_EQ(4, (int)dirs.n);
	CHECK(!strcmp(dirs.v[0], "/usr/include/c++/12"));
	CHECK(!strcmp(dirs.v[1], "/usr/lib/gcc/x86_64-linux-gnu/12/include"));
	CHECK(!strcmp(dirs.v[2], "/Library/Frameworks"));
	CHECK(!strcmp(dirs.v[3], "/usr/include"));
	/* no list, or one that never ends: nothing */
	CHECK_INT_EQ(-1, ks_hostinc_parse("Using built-in specs.\n", &dirs));
	CHECK_INT_EQ(-1, ks_hostinc_parse("#include <...> search starts "
					  "here:\n /usr/include\n", &dirs));
	CHECK_INT_EQ(-1, ks_hostinc_parse(NULL, &dirs));
	CHECK_INT_EQ(4, (int)dirs.n);
	ks_strv_release(&dirs);
}

TEST(host_compiler_of_ccbin)
{
	char *c;

	c = ks_hostinc_compiler(NULL, 0);
	CHECK(!strcmp(c, "g++"));
	free(c);
	c = ks_hostinc_compiler("/opt/gcc/bin/g++-12", 0);
	CHECK(!strcmp(c, "/opt/gcc/bin/g++-12"));
	free(c);
	c = ks_hostinc_compiler("/opt/gcc/bin", 1);
	CHECK(!strcmp(c, "/opt/gcc/bin/g++"));
	free(c);
}

/* ---- parses ------------------------------------------------------------ */

static char *toolkit;
static char state[256];
static int ready;

static int
setup(const char **why)
{
	struct ks_buf err = KS_BUF_INIT;
	static char reason[512];

	*why = reason;
	if (ready)
		return ready > 0;
	ready = -1;
	if (ks_libclang_load(&err)) {
		snprintf(reason, sizeof(reason), "%s", err.buf);
		ks_buf_release(&err);
		return 0;
	}
	if (ks_fs_exists("/usr/local/cuda/include/cuda_runtime.h"))
		toolkit = ks_xstrdup("/usr/local/cuda");
	else if (getenv("CUDA_HOME") && *getenv("CUDA_HOME")) {
		char *h = ks_xasprintf("%s/include/cuda_runtime.h",
				       getenv("CUDA_HOME"));

		if (ks_fs_exists(h))
			toolkit = ks_xstrdup(getenv("CUDA_HOME"));
		free(h);
	}
	if (!toolkit) {
		snprintf(reason, sizeof(reason), "no CUDA toolkit");
		return 0;
	}
	snprintf(state, sizeof(state), "%s/ks-dialect-XXXXXX",
		 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR")
						       : "/tmp");
	if (!mkdtemp(state)) {
		snprintf(reason, sizeof(reason), "cannot make %s", state);
		return 0;
	}
	ready = 1;
	return 1;
}

#define SETUP()                                                        \
	do {                                                           \
		const char *why_;                                      \
		if (!setup(&why_))                                     \
			SKIP("%s", why_);                              \
	} while (0)

static int
parse_text(const char *name, const char *text, const struct ks_strv *hostinc,
	   struct ks_inventory *inv, struct ks_buf *err)
{
	struct ks_tu_opts o;

	memset(&o, 0, sizeof(o));
	o.source = test_write(test_tmpdir(), name, text);
	o.toolkit = toolkit;
	o.state_dir = state;
	o.arch = "sm_90";
	o.host_includes = hostinc;
	return ks_inventory_build(&o, inv, err);
}

TEST(host_min_max_register_and_nv_atomics_parse)
{
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT;

	SETUP();
	/* the forms the TUs were refused for, as nvcc takes them */
	CHECK_INT_EQ(
		0,
		parse_text(
			"dialect.cu",
			"#include <cstdlib>\n"
			"__global__ void k(int *p, int n)\n"
			"{\n"
			"  int v = 1, e = 0;\n"
			"  __nv_atomic_fetch_add(p, v, __NV_ATOMIC_RELAXED,\n"
			"                        __NV_THREAD_SCOPE_DEVICE);\n"
			"  __nv_atomic_compare_exchange_n(p, &e, v, false,\n"
			"      __NV_ATOMIC_ACQUIRE, __NV_ATOMIC_RELAXED,\n"
			"      __NV_THREAD_SCOPE_BLOCK);\n"
			"  __nv_atomic_store_n(p + 1, max(n, 1), "
			"__NV_ATOMIC_RELEASE);\n"
			"  __nv_atomic_thread_fence(__NV_ATOMIC_SEQ_CST);\n"
			"}\n"
			"int main(int argc, char **argv)\n"
			"{\n"
			"  register int t = 4;\n"
			"  int r = max(1, atoi(argv[1]));\n"
			"  unsigned u = 3; long l = 2;\n"
			"  unsigned m = min(u, r) + max(r, u);\n"
			"  long n = max(l, 7L); double d = max(1.0f, 2.0);\n"
			"  int *p = 0;\n"
			"  k<<<t, r>>>(p, (int)(m + n + d));\n"
			"  return 0;\n"
			"}\n",
			NULL, &inv, &err));
	if (err.len)
		fprintf(stderr, "%s\n", err.buf);
	CHECK_INT_EQ(1, (int)inv.nkernels);
	CHECK_INT_EQ(1, (int)inv.nlaunches);
	CHECK_INT_EQ(0, (int)inv.host_errors.n);
	ks_inventory_release(&inv);
	ks_buf_release(&err);
}

/* nvcc includes <math.h> and <cmath> for every CUDA compile: a host
 * template calling isfinite, isnan and isinf unqualified, in a TU that
 * includes neither, is nvcc's code (a template, so its errors are not
 * set aside as host lines). */
TEST(host_math_classification_without_math_h)
{
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT;

	SETUP();
	CHECK_INT_EQ(
		0,
		parse_text(
			"classify.cu",
			"#include <stdio.h>\n"
			"template <class T> int nonfinite(const T *r, int n)\n"
			"{\n"
			"  int c = 0;\n"
			"  for (int i = 0; i < n; i++)\n"
			"    if (!isfinite(r[i]) || isnan(r[i]) || isinf(r[i]))\n"
			"      c++;\n"
			"  return c;\n"
			"}\n"
			"__global__ void k(float *p) { *p = 1; }\n"
			"int main(void)\n"
			"{\n"
			"  float x[2] = {1, 2};\n"
			"  double y[2] = {1, 2};\n"
			"  printf(\"%d\\n\", nonfinite(x, 2) + nonfinite(y, 2));\n"
			"  k<<<1, 1>>>(x);\n"
			"  return 0;\n"
			"}\n",
			NULL, &inv, &err));
	if (err.len)
		fprintf(stderr, "%s\n", err.buf);
	CHECK_INT_EQ(1, (int)inv.nkernels);
	CHECK_INT_EQ(1, (int)inv.nlaunches);
	CHECK_INT_EQ(0, (int)inv.host_errors.n);
	ks_inventory_release(&inv);
	ks_buf_release(&err);
}

TEST(omp_h_from_the_host_compiler)
{
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_strv dirs = KS_STRV_INIT;
	static const char src[] =
		"#include <omp.h>\n"
		"__global__ void k(int *p) { p[threadIdx.x] = 1; }\n"
		"int main() { int *p = 0;\n"
		"  k<<<1, omp_get_max_threads()>>>(p); return 0; }\n";
	size_t i;
	int have_omp = 0;

	SETUP();
	if (ks_hostinc_get(state, "g++", &dirs, &err) < 0)
		SKIP("no host compiler to ask: %s", err.buf);
	for (i = 0; i < dirs.n; i++) {
		char *p = ks_fs_join(dirs.v[i], "omp.h");

		have_omp |= ks_fs_exists(p);
		free(p);
	}
	if (!have_omp) {
		ks_strv_release(&dirs);
		ks_buf_release(&err);
		SKIP("the host compiler has no omp.h");
	}
	/* without the host compiler's directories clang has none */
	CHECK_INT_EQ(-1, parse_text("omp.cu", src, NULL, &inv, &err));
	CHECK(strstr(err.buf, "'omp.h' file not found") != NULL);
	ks_buf_reset(&err);
	CHECK_INT_EQ(0, parse_text("omp.cu", src, &dirs, &inv, &err));
	CHECK_INT_EQ(1, (int)inv.nkernels);
	CHECK_INT_EQ(1, (int)inv.nlaunches);
	ks_inventory_release(&inv);
	/* asked once: the second answer comes from the cache */
	{
		struct ks_strv again = KS_STRV_INIT;

		CHECK_INT_EQ((int)dirs.n,
			     ks_hostinc_get(state, "g++", &again, &err));
		ks_strv_release(&again);
	}
	ks_strv_release(&dirs);
	ks_buf_release(&err);
}

TEST(host_errors_are_set_aside_only_in_host_code)
{
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT;
	static const char kernels[] =
		"__global__ void k(int *p) { p[threadIdx.x] = 1; }\n"
		"template <class T> __global__ void tk(T *p) { p[0] = 1; }\n";
	char *src;

	SETUP();
	/* an error in a host function that names no kernel: set aside */
	src = ks_xasprintf("%s"
			   "void helper() { float x = host_only_thing(3); }\n"
			   "int main() { int *d = 0;\n"
			   "  k<<<1, 1>>>(d);\n"
			   "  tk<<<1, 1>>>(d); return 0; }\n",
			   kernels);
	CHECK_INT_EQ(0, parse_text("host_err.cu", src, NULL, &inv, &err));
	free(src);
	CHECK_INT_EQ(2, (int)inv.nkernels);
	CHECK_INT_EQ(2, (int)inv.nlaunches);
	CHECK_INT_EQ(1, (int)inv.host_errors.n);
	CHECK(inv.host_errors.n &&
	      strstr(inv.host_errors.v[0], "host_err.cu:3:") &&
	      strstr(inv.host_errors.v[0], "host_only_thing"));
	CHECK(inv.kernels[1].ninst == 1);
	ks_inventory_release(&inv);
	/* the same error in a launch, beside one, in device code, in a
	 * host template, or outside a function: the TU is refused */
	{
		static const char *const bad[] = {
			"int main() { int *d = 0;\n"
			"  k<<<1, undefined_n>>>(d); return 0; }\n",
			"int main() { int *d = 0; k<<<1, 1>>>(d);\n"
			"  int x = undefined_n; tk<int>; return 0; }\n",
			"__device__ int f(int x) { return undefined_d(x); }\n",
			"template <class T> void run(T *p) { undefined_t(1); "
			"tk<<<1, 1>>>(p); }\n",
			"int g = undefined_g;\n",
		};
		size_t i;

		for (i = 0; i < KS_ARRAY_SIZE(bad); i++) {
			char name[32];

			src = ks_xasprintf("%s%s", kernels, bad[i]);
			snprintf(name, sizeof(name), "bad%zu.cu", i);
			ks_buf_reset(&err);
			if (parse_text(name, src, NULL, &inv, &err) != -1)
				TEST_FAIL_("case %zu was not refused\n", i);
			else if (!strstr(err.buf, "undefined_"))
				TEST_FAIL_("case %zu: %s\n", i, err.buf);
			CHECK_INT_EQ(0, (int)inv.nkernels);
			ks_inventory_release(&inv);
			free(src);
		}
	}
	ks_buf_release(&err);
}

static const struct ks_kernel *
kernel_named(const struct ks_inventory *inv, const char *name)
{
	size_t i;

	for (i = 0; i < inv->nkernels; i++)
		if (!strcmp(inv->kernels[i].qualified, name))
			return &inv->kernels[i];
	return NULL;
}

static int
has_instance(const struct ks_kernel *k, const char *display,
	     const char *mangled)
{
	size_t i;

	for (i = 0; k && i < k->ninst; i++)
		if (!strcmp(k->inst[i].display, display) &&
		    !strcmp(k->inst[i].mangled, mangled))
			return 1;
	return 0;
}

TEST(template_instances_launches_and_keys)
{
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_strv archs = KS_STRV_INIT, flags = KS_STRV_INIT;
	struct ks_tu_opts o;
	static const char *const stream[] = { "init_k", "copy_k", "mul_k",
					      "add_k", "triad_k",
					      "nstream_k", "dot_k" };
	const struct ks_kernel *k;
	size_t i, j, total = 0;
	char *args;

	SETUP();
	memset(&o, 0, sizeof(o));
	o.source = "tests/data/analysis/templates.cu";
	o.toolkit = toolkit;
	o.state_dir = state;
	o.arch = "sm_90";
	CHECK_INT_EQ(0, ks_inventory_build(&o, &inv, &err));
	if (err.len)
		fprintf(stderr, "%s\n", err.buf);
	/* the seven kernels of the stream benchmark, float and double,
	 * all through the template host function run_all<T> (copy_k one
	 * level further down, through run_copy<T>) */
	for (i = 0; i < KS_ARRAY_SIZE(stream); i++) {
		k = kernel_named(&inv, stream[i]);
		CHECK(k && k->is_template && k->ninst == 2);
	}
	CHECK(has_instance(kernel_named(&inv, "copy_k"), "copy_k<float>",
			   "_Z6copy_kIfEvPKT_PS0_i"));
	CHECK(has_instance(kernel_named(&inv, "copy_k"), "copy_k<double>",
			   "_Z6copy_kIdEvPKT_PS0_i"));
	/* a member of a class template, a direct launch, an explicit
	 * instantiation; an address taken in a template function */
	k = kernel_named(&inv, "tiles::fill");
	CHECK(k && k->ninst == 3);
	CHECK(has_instance(k, "fill<float, 32>", "_ZN5tiles4fillIfLi32EEEvPT_"));
	CHECK(has_instance(k, "fill<double, 4>", "_ZN5tiles4fillIdLi4EEEvPT_"));
	CHECK(has_instance(k, "fill<int, 8>", "_ZN5tiles4fillIiLi8EEEvPT_"));
	CHECK(k && k->ninst && (args = ks_inventory_instance_args(&k->inst[0])) &&
	      strchr(args, ','));
	if (k && k->ninst)
		free(args);
	k = kernel_named(&inv, "by_address");
	CHECK(k && k->ninst == 2);
	k = kernel_named(&inv, "never_used");
	CHECK(k && k->ninst == 0);
	/* each launch names what it launches: two instances for a site in
	 * run_all<T>, one for a site outside templates */
	for (i = 0; i < inv.nlaunches; i++) {
		const struct ks_launch *l = &inv.launches[i];

		CHECK(l->kernel >= 0);
		if (!strcmp(l->caller, "run_all") ||
		    !strcmp(l->caller, "run_copy")) {
			CHECK_INT_EQ(2, (int)l->ninst);
			CHECK(l->mangled == NULL);
		} else if (l->kernel >= 0) {
			CHECK_INT_EQ(inv.kernels[l->kernel].is_template ? 1 : 0,
				     (int)l->ninst);
		}
		for (j = 0; j < l->ninst; j++)
			CHECK(l->kernel >= 0 &&
			      ks_inventory_find(&inv, l->inst[j]) ==
				      &inv.kernels[l->kernel]);
		total += l->ninst;
	}
	CHECK_INT_EQ(11, (int)inv.nlaunches);
	CHECK_INT_EQ(17, (int)total);
	/* internal linkage: the names of nvcc's entries, without `L` */
	k = kernel_named(&inv, "local_k");
	CHECK(k && k->mangled && !strcmp(k->mangled, "_Z7local_kPi"));
	CHECK(has_instance(kernel_named(&inv, "local_t"), "local_t<float>",
			   "_Z7local_tIfEvPT_"));
	/* a key per instance, each its own */
	ks_strv_push(&archs, "sm_90");
	ks_inventory_set_keys(&inv, &archs, &flags, "13.0.88");
	k = kernel_named(&inv, "triad_k");
	CHECK(k && k->nkeys == 2 && strcmp(k->keys[0].key, k->keys[1].key) &&
	      !strcmp(k->keys[0].mangled, k->inst[0].mangled));
	ks_strv_release(&archs);
	ks_strv_release(&flags);
	ks_inventory_release(&inv);
	ks_buf_release(&err);
}

TEST(launches_from_macro_expansions)
{
	static const char src[] =
		"__global__ void k(int *p, int n) { p[threadIdx.x] = n; }\n"
		"#define LAUNCH(kern, g, b, ...) kern<<<g, b>>>(__VA_ARGS__)\n"
		"#define RUN_K(p) k<<<(n + 31) / 32, dim3(32, 1)>>>(p, f(n))\n"
		"int f(int x) { return x; }\n"
		"int main() {\n"
		"  int *d = 0, n = 5;\n"
		"  LAUNCH(k, (n + 1) * 2, f(64), d + 1, f(f(3)));\n"
		"  RUN_K(d);\n"
		"  k<<<1, 1>>>(d, 1);\n"
		"  return 0;\n"
		"}\n";
	static const char launcher_variant[] =
		"// ks-nvcc: definition\n"
		"__global__ void k(int *p, int n) { p[threadIdx.x] = n + 1; }\n"
		"// ks-nvcc: launcher\n"
		"static void ks_launch_k(dim3 g, dim3 b, size_t m, "
		"cudaStream_t s, int *p, int n) { k<<<g, b, m, s>>>(p, n); }\n";
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT;
	struct ks_rewrite_kernel rk;
	struct ks_rewrite_variant v;
	struct ks_rewrite_job job = { NULL, NULL, NULL };
	const struct ks_launch *l;
	char *vt;

	SETUP();
	CHECK_INT_EQ(0, parse_text("macro.cu", src, NULL, &inv, &err));
	CHECK_INT_EQ(3, (int)inv.nlaunches);
	if (inv.nlaunches != 3)
		goto out;
	l = &inv.launches[0];
	CHECK(l->macro && !strcmp(l->macro, "LAUNCH"));
	CHECK(l->not_rewritable &&
	      !strcmp(l->not_rewritable,
		      "not rewritable: launch inside macro LAUNCH"));
	CHECK_STR_EQ("k", l->callee);
	CHECK(l->grid && !strcmp(l->grid, "(n + 1) * 2"));
	CHECK(l->block && !strcmp(l->block, "f(64)"));
	CHECK(l->nargs == 2 && !strcmp(l->argtext[0], "d + 1") &&
	      !strcmp(l->argtext[1], "f(f(3))"));
	CHECK(!strncmp(src + l->extent.begin,
		       "LAUNCH(k, (n + 1) * 2, f(64), d + 1, f(f(3)))",
		       l->extent.end - l->extent.begin));
	CHECK_INT_EQ(7, (int)l->extent.line);
	CHECK(!*l->config.file && !*l->args.file && !*l->callee_ext.file);
	CHECK_INT_EQ(0, l->kernel);
	l = &inv.launches[1];
	CHECK(l->macro && !strcmp(l->macro, "RUN_K"));
	CHECK(l->grid && !strcmp(l->grid, "(n + 31) / 32"));
	CHECK(l->block && !strcmp(l->block, "dim3(32, 1)"));
	CHECK(l->nargs == 2 && !strcmp(l->argtext[0], "d") &&
	      !strcmp(l->argtext[1], "f(n)"));
	CHECK_INT_EQ(8, (int)l->extent.end - (int)l->extent.begin);
	l = &inv.launches[2];
	CHECK(!l->macro && !l->not_rewritable);
	CHECK(!strncmp(src + l->config.begin, "<<<1, 1>>>", 10));
	/* the rewriter: a variant without a launcher leaves launches alone;
	 * with one, the macro's launch is refused with the reason */
	CHECK_INT_EQ(0, ks_rewrite_kernel_from_inventory(&inv, &inv.kernels[0],
							 &rk, &err));
	CHECK_INT_EQ(3, (int)rk.nlaunches);
	vt = ks_xstrdup(launcher_variant);
	memset(&v, 0, sizeof(v));
	CHECK_INT_EQ(0, ks_rewrite_variant_split(vt, &v, &err));
	v.file = "variant.cu";
	v.arch = 900;
	job.kernel = &rk;
	job.variant = &v;
	CHECK_INT_EQ(-1, ks_rewrite(src, strlen(src), "macro.cu", &job, 1,
				    &out, &err));
	CHECK(strstr(err.buf, "the launch at line 7 is not rewritable: "
			      "launch inside macro LAUNCH") != NULL);
	free(vt);
	ks_rewrite_kernel_release(&rk);
out:
	ks_inventory_release(&inv);
	ks_buf_release(&err);
	ks_buf_release(&out);
}

/* A kernel over a cub type is named with cub's inline namespace, which
 * CCCL spells from __CUDA_ARCH_LIST__ (cub::CUB_300001_SM_900): without
 * nvcc's value the instance was "..._SM___CUDA_ARCH_LIST__...", a name
 * nvcc's PTX and the runtime never have. */
TEST(instances_over_cub_types_carry_the_arch_list)
{
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_tu_opts o;
	const struct ks_kernel *k;
	static const char src[] =
		"#include <cub/block/block_scan.cuh>\n"
		"template <int B, cub::BlockScanAlgorithm A>\n"
		"__global__ void scan_k(int *p)\n"
		"{\n"
		"  using S = cub::BlockScan<int, B, A>;\n"
		"  __shared__ typename S::TempStorage t;\n"
		"  int v = p[threadIdx.x];\n"
		"  S(t).ExclusiveSum(v, v);\n"
		"  p[threadIdx.x] = v;\n"
		"}\n"
		"int main() { int *p = 0;\n"
		"  scan_k<64, cub::BLOCK_SCAN_RAKING><<<1, 64>>>(p);\n"
		"  return 0; }\n";

	SETUP();
	memset(&o, 0, sizeof(o));
	o.source = test_write(test_tmpdir(), "cubarg.cu", src);
	o.toolkit = toolkit;
	o.state_dir = state;
	o.arch = "sm_90";
	o.arch_list = "800,900";
	CHECK_INT_EQ(0, ks_inventory_build(&o, &inv, &err));
	if (err.len)
		fprintf(stderr, "%s\n", err.buf);
	k = kernel_named(&inv, "scan_k");
	CHECK(k && k->ninst == 1);
	if (k && k->ninst == 1) {
		CHECK(strstr(k->inst[0].mangled, "_SM_800_900") != NULL);
		CHECK(strstr(k->inst[0].mangled, "ARCH_LIST") == NULL);
	}
	ks_inventory_release(&inv);
	ks_buf_release(&err);
}

/* Names as nvcc's PTX gives them (nvcc 13.0 -arch=sm_90 -ptx of the same
 * file): clang 19 mangles the type of a non-type template parameter of
 * dependent or deduced type ("TnN...", "TnDa"), nvcc does not. */
TEST(kernel_names_are_mangled_as_nvcc_mangles_them)
{
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_tu_opts o;
	static const char *const want[][2] = {
		{"pick_k", "_Z6pick_kIfLi0EEvjPT_"},
		{"pick_k", "_Z6pick_kIdLi0EEvjPT_"},
		{"auto_k", "_Z6auto_kILi5EEvPi"},
		{"auto_k", "_Z6auto_kILc99EEvPi"},
		{"tt_k", "_Z4tt_kI3boxfEvPT_IT0_E"},
		{"width_k", "_Z7width_kIsLm2EEvPT_"},
	};
	size_t i, j, n = 0, found = 0;

	SETUP();
	memset(&o, 0, sizeof(o));
	o.source = "tests/data/analysis/mangling.cu";
	o.toolkit = toolkit;
	o.state_dir = state;
	o.arch = "sm_90";
	CHECK_INT_EQ(0, ks_inventory_build(&o, &inv, &err));
	if (err.len)
		fprintf(stderr, "%s\n", err.buf);
	for (i = 0; i < KS_ARRAY_SIZE(want); i++) {
		int hit = 0;

		for (j = 0; j < inv.nkernels; j++) {
			const struct ks_kernel *k = &inv.kernels[j];
			size_t m;

			if (strcmp(k->name, want[i][0]))
				continue;
			for (m = 0; m < k->ninst; m++)
				hit |= !strcmp(k->inst[m].mangled, want[i][1]);
		}
		if (!hit)
			fprintf(stderr, "  missing %s\n", want[i][1]);
		found += hit;
	}
	for (j = 0; j < inv.nkernels; j++)
		n += inv.kernels[j].ninst;
	CHECK_INT_EQ((int)KS_ARRAY_SIZE(want), (int)found);
	CHECK_INT_EQ((int)KS_ARRAY_SIZE(want), (int)n);
	ks_inventory_release(&inv);
	ks_buf_release(&err);
}

/* clang's cuda_wrappers (device placement new, <cmath>'s std:: math for
 * device code): libclang dropped them from its CUDA parses, so cub's
 * block_load.cuh (placement new of items) refused whole TUs. */
TEST(cuda_wrappers_give_device_code_its_std_overloads)
{
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_strv c = KS_STRV_INIT;

	ks_libclang_wrapper_candidates(
		"/usr/lib/llvm-19/lib/libclang-19.so.1",
		"Debian clang version 19.1.7 (3~deb12u1)", &c);
	CHECK(c.n >= 2);
	if (c.n >= 2) {
		CHECK_STR_EQ("/usr/include/clang/19.1.7/include/cuda_wrappers",
			     c.v[0]);
		CHECK_STR_EQ("/usr/lib/llvm-19/lib/clang/19/include/"
			     "cuda_wrappers", c.v[c.n - 1]);
	}
	ks_strv_release(&c);
	ks_libclang_wrapper_candidates(NULL, "no version here", &c);
	CHECK_INT_EQ(0, (int)c.n);
	SETUP();
	CHECK(ks_libclang_cuda_wrappers() != NULL);
	CHECK_INT_EQ(
		0,
		parse_text("wrappers.cu",
			   "#include <cmath>\n"
			   "template <typename T>\n"
			   "__device__ void put(T *p, T v) { new (p) T(v); }\n"
			   "__global__ void k(float *p)\n"
			   "{\n"
			   "  put(p + threadIdx.x, std::sqrt(p[threadIdx.x]));\n"
			   "}\n",
			   NULL, &inv, &err));
	if (err.len)
		fprintf(stderr, "%s\n", err.buf);
	CHECK_INT_EQ(1, (int)inv.nkernels);
	ks_inventory_release(&inv);
	/* __managed__: a device variable that host code uses too */
	CHECK_INT_EQ(
		0,
		parse_text("managed.cu",
			   "__managed__ int P;\n"
			   "__device__ int f(int x) { return x % P; }\n"
			   "__global__ void k(int *p) { p[threadIdx.x] = f(1); }\n"
			   "int main() { P = 3; k<<<1, 1>>>(0); return P; }\n",
			   NULL, &inv, &err));
	if (err.len)
		fprintf(stderr, "%s\n", err.buf);
	CHECK_INT_EQ(1, (int)inv.nkernels);
	CHECK_INT_EQ(1, (int)inv.nlaunches);
	ks_inventory_release(&inv);
	ks_buf_release(&err);
}

/* Explicit instantiations nvcc emits kernels for
 * (tests/data/analysis/explicit.cu): of a kernel, of a host template in
 * a namespace that launches one, both through a macro used per type:
 * the instances of nvcc 13.0's PTX for the file, and the launch's. */
TEST(explicit_instantiations_of_host_templates_and_through_macros)
{
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_tu_opts o;
	const struct ks_kernel *k;
	size_t i;

	SETUP();
	memset(&o, 0, sizeof(o));
	o.source = "tests/data/analysis/explicit.cu";
	o.toolkit = toolkit;
	o.state_dir = state;
	o.arch = "sm_90";
	CHECK_INT_EQ(0, ks_inventory_build(&o, &inv, &err));
	if (err.len)
		fprintf(stderr, "%s\n", err.buf);
	k = kernel_named(&inv, "lib::detail::swap_k");
	CHECK(k && k->ninst == 3);
	CHECK(has_instance(k, "swap_k<double, 128>",
			   "_ZN3lib6detail6swap_kIdLi128EEEvPNS0_7pair_ofIT_EEm"));
	CHECK(has_instance(k, "swap_k<float, 128>",
			   "_ZN3lib6detail6swap_kIfLi128EEEvPNS0_7pair_ofIT_EEm"));
	CHECK(has_instance(k, "swap_k<int, 128>",
			   "_ZN3lib6detail6swap_kIiLi128EEEvPNS0_7pair_ofIT_EEm"));
	k = kernel_named(&inv, "lib::detail::fill_k");
	CHECK(k && k->ninst == 3);
	CHECK(has_instance(k, "fill_k<char>", "_ZN3lib6detail6fill_kIcEEvPT_S2_"));
	CHECK(has_instance(k, "fill_k<float>", "_ZN3lib6detail6fill_kIfEEvPT_S2_"));
	CHECK(has_instance(k, "fill_k<int>", "_ZN3lib6detail6fill_kIiEEvPT_S2_"));
	CHECK_INT_EQ(1, (int)inv.nlaunches);
	if (inv.nlaunches) {
		CHECK_INT_EQ(3, (int)inv.launches[0].ninst);
		for (i = 0; i < inv.launches[0].ninst; i++)
			CHECK(strstr(inv.launches[0].inst[i], "swap_k") != NULL);
	}
	ks_inventory_release(&inv);
	ks_buf_release(&err);
}

/* Template functions named only as function pointers in an array's
 * initializer (tests/data/analysis/fnptr.cu), where libclang gives the
 * overload set: the instances of nvcc 13.0's PTX for the file, through
 * the host templates they launch from and of a kernel template named
 * directly, and the launch's. */
TEST(instances_named_by_function_pointers_in_initializers)
{
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_tu_opts o;
	const struct ks_kernel *k;
	size_t i;

	SETUP();
	memset(&o, 0, sizeof(o));
	o.source = "tests/data/analysis/fnptr.cu";
	o.toolkit = toolkit;
	o.state_dir = state;
	o.arch = "sm_90";
	CHECK_INT_EQ(0, ks_inventory_build(&o, &inv, &err));
	if (err.len)
		fprintf(stderr, "%s\n", err.buf);
	k = kernel_named(&inv, "tile::mv_k");
	CHECK(k && k->ninst == 3);
	CHECK(has_instance(k, "mv_k<32>", "_ZN4tile4mv_kILi32EEEvPKfPfi"));
	CHECK(has_instance(k, "mv_k<64>", "_ZN4tile4mv_kILi64EEEvPKfPfi"));
	CHECK(has_instance(k, "mv_k<96>", "_ZN4tile4mv_kILi96EEEvPKfPfi"));
	k = kernel_named(&inv, "scale_k");
	CHECK(k && k->ninst == 1);
	CHECK(has_instance(k, "scale_k<float>", "_Z7scale_kIfEvPT_S0_"));
	/* the template's launch names its three; the one through a
	 * pointer variable names no kernel */
	CHECK_INT_EQ(2, (int)inv.nlaunches);
	for (i = 0; i < inv.nlaunches; i++)
		if (inv.launches[i].kernel >= 0)
			CHECK_INT_EQ(3, (int)inv.launches[i].ninst);
	ks_inventory_release(&inv);
	ks_buf_release(&err);
}

/* A member template of a dependent class named without `template`
 * (tests/data/analysis/deptmpl.cu), which nvcc takes and clang refuses
 * at the instantiation: repaired for the parse with every offset kept,
 * so the instances are nvcc 13.0's PTX entries for the file and the
 * kernel's extent is its text on disk. */
TEST(dependent_template_names_without_the_keyword)
{
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT, text = KS_BUF_INIT;
	struct ks_tu_opts o;
	const struct ks_kernel *k;
	size_t i;

	SETUP();
	memset(&o, 0, sizeof(o));
	o.source = "tests/data/analysis/deptmpl.cu";
	o.toolkit = toolkit;
	o.state_dir = state;
	o.arch = "sm_90";
	CHECK_INT_EQ(0, ks_inventory_build(&o, &inv, &err));
	if (err.len)
		fprintf(stderr, "%s\n", err.buf);
	k = kernel_named(&inv, "widen_k");
	CHECK(k && k->ninst == 2);
	CHECK(has_instance(k, "widen_k<float, 4>", "_Z7widen_kIfLm4EEvPT_PKd"));
	CHECK(has_instance(k, "widen_k<double, 2>", "_Z7widen_kIdLm2EEvPT_PKd"));
	CHECK_INT_EQ(2, (int)inv.nlaunches);
	for (i = 0; i < inv.nlaunches; i++)
		CHECK_INT_EQ(1, (int)inv.launches[i].ninst);
	CHECK_INT_EQ(0, ks_fs_read(o.source, &text, &err));
	if (k && k->extent.end <= text.len) {
		CHECK(!strncmp(text.buf + k->extent.begin, "template", 8) ||
		      !strncmp(text.buf + k->extent.begin, "__global__", 10));
		CHECK(text.buf[k->extent.end - 1] == '}');
	}
	/* the header of the repair's macros is gone with the TU */
	{
		char *pat = ks_xasprintf("%s/clang/*/repair-*.h", state);
		glob_t g;

		CHECK_INT_EQ(GLOB_NOMATCH, glob(pat, 0, NULL, &g));
		free(pat);
	}
	ks_inventory_release(&inv);
	ks_buf_release(&text);
	ks_buf_release(&err);
}

/* An empty braced list assigned to a __half2, in a kernel and in a
 * template kernel (tests/data/analysis/vinit.cu): nvcc takes it, clang
 * finds the assignment ambiguous; repaired for the parse, the kernels
 * are nvcc 13.0's PTX entries for the file, and the texts on disk keep
 * their extents. */
TEST(empty_braces_assigned_to_a_half2)
{
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT, text = KS_BUF_INIT;
	struct ks_tu_opts o;
	const struct ks_kernel *acc, *zero;

	SETUP();
	memset(&o, 0, sizeof(o));
	o.source = "tests/data/analysis/vinit.cu";
	o.toolkit = toolkit;
	o.state_dir = state;
	o.arch = "sm_90";
	CHECK_INT_EQ(0, ks_inventory_build(&o, &inv, &err));
	if (err.len)
		fprintf(stderr, "%s\n", err.buf);
	acc = kernel_named(&inv, "acc_k");
	zero = kernel_named(&inv, "zero_k");
	CHECK(acc && acc->mangled &&
	      !strcmp(acc->mangled, "_Z5acc_kP7__half2PKS_i"));
	CHECK(zero && zero->ninst == 1);
	CHECK(has_instance(zero, "zero_k<__half2>",
			   "_Z6zero_kI7__half2EvPT_PKS1_"));
	CHECK_INT_EQ(2, (int)inv.nlaunches);
	CHECK_INT_EQ(0, ks_fs_read(o.source, &text, &err));
	if (acc && acc->extent.end <= text.len)
		CHECK(!strncmp(text.buf + acc->extent.begin, "__global__", 10) &&
		      text.buf[acc->extent.end - 1] == '}');
	ks_inventory_release(&inv);
	ks_buf_release(&text);
	ks_buf_release(&err);
}

/* The "prefix-*.macros" beside a PCH of hoisted headers under `dir`:
 * 1 when one is there and holds the headers' macros, -1 when one says
 * the PCH was refused, 0 when there is none. */
static int
hoisted_pch(const char *dir)
{
	char *pat = ks_xasprintf("%s/clang/*/prefix-*.macros", dir);
	glob_t g;
	int r = 0;
	size_t i;

	if (glob(pat, 0, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc; i++) {
			struct ks_buf text = KS_BUF_INIT;

			if (ks_fs_read(g.gl_pathv[i], &text, NULL) == 0)
				r = text.len && text.buf[0] == '!' ? -1 : 1;
			ks_buf_release(&text);
		}
		globfree(&g);
	}
	free(pat);
	return r;
}

/* thrust reached through the first lines of the TU's own header
 * (tests/data/analysis/hoist/sort.cu): the PCH holds it, and the kernel
 * is nvcc 13.0's PTX entry. */
TEST(system_headers_reached_through_user_headers_are_in_the_pch)
{
	char *dir;
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_tu_opts o;
	const struct ks_kernel *k;

	SETUP();
	/* a state of its own: no PCH from another test */
	dir = ks_xasprintf("%s/hoist-sort", test_tmpdir());
	memset(&o, 0, sizeof(o));
	o.source = "tests/data/analysis/hoist/sort.cu";
	o.toolkit = toolkit;
	o.state_dir = dir;
	o.arch = "sm_90";
	CHECK_INT_EQ(0, ks_inventory_build(&o, &inv, &err));
	if (err.len)
		fprintf(stderr, "%s\n", err.buf);
	k = kernel_named(&inv, "fill_k");
	CHECK(k && k->mangled && !strcmp(k->mangled, "_Z6fill_kPii"));
	CHECK_INT_EQ(1, (int)inv.nlaunches);
	CHECK(inv.used_pch);
	CHECK_INT_EQ(1, hoisted_pch(dir));
	ks_inventory_release(&inv);
	ks_buf_release(&err);
	free(dir);
}

/* cuda_fp16.h reached through a user header that defines a macro the
 * header reads, then its own operator (tests/data/analysis/hoist/ops.cu):
 * not hoisted (a PCH with cuda_fp16.h ahead of the macro would hold the
 * __half2 operators the TU turned off), so the parse takes the PCH of
 * the leading includes and gets the kernel nvcc 13.0's PTX names. */
TEST(system_headers_after_a_user_macro_they_read_are_not_hoisted)
{
	char *dir;
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_tu_opts o;
	const struct ks_kernel *k;

	SETUP();
	/* a state of its own: no PCH from another test */
	dir = ks_xasprintf("%s/hoist-ops", test_tmpdir());
	memset(&o, 0, sizeof(o));
	o.source = "tests/data/analysis/hoist/ops.cu";
	o.toolkit = toolkit;
	o.state_dir = dir;
	o.arch = "sm_90";
	CHECK_INT_EQ(0, ks_inventory_build(&o, &inv, &err));
	if (err.len)
		fprintf(stderr, "%s\n", err.buf);
	k = kernel_named(&inv, "add2_k");
	CHECK(k && k->mangled &&
	      !strcmp(k->mangled, "_Z6add2_kP7__half2PKS_S2_"));
	CHECK(inv.used_pch);
	CHECK_INT_EQ(-1, hoisted_pch(dir));
	ks_inventory_release(&inv);
	ks_buf_release(&err);
	free(dir);
}

/* A system header included after a template of a user header
 * (tests/data/analysis/hoist/cross.cu): hoisted past it, though
 * cuda_fp16.h's global operators then join the candidates of the
 * template's `!=` (they are not the plain parse's: the closure leaves
 * them out), so the kernel's closure is the plain parse's, byte for
 * byte. */
TEST(system_headers_after_a_template_with_an_operator_are_hoisted)
{
	char *dir;
	struct ks_inventory inv[2];
	struct ks_buf err = KS_BUF_INIT;
	struct ks_tu_opts o;
	const struct ks_kernel *k[2];
	int i;

	SETUP();
	dir = ks_xasprintf("%s/hoist-cross", test_tmpdir());
	for (i = 0; i < 2; i++) {
		memset(&o, 0, sizeof(o));
		o.source = "tests/data/analysis/hoist/cross.cu";
		o.toolkit = toolkit;
		o.state_dir = dir;
		o.arch = "sm_90";
		o.no_pch = i;
		CHECK_INT_EQ(0, ks_inventory_build(&o, &inv[i], &err));
		if (err.len)
			fprintf(stderr, "%s\n", err.buf);
		k[i] = kernel_named(&inv[i], "count_k");
	}
	CHECK(inv[0].used_pch && !inv[1].used_pch);
	CHECK(inv[0].pch_past_code && !inv[1].pch_past_code);
	CHECK(k[0] && k[1] && k[0]->closure && k[1]->closure &&
	      !strcmp(k[0]->closure, k[1]->closure));
	CHECK(has_instance(k[0], "count_k<int>", "_Z7count_kIiEvPiPKT_S3_"));
	for (i = 0; i < 2; i++)
		ks_inventory_release(&inv[i]);
	ks_buf_release(&err);
	free(dir);
}

/* A system header included after a template that calls one of its
 * functions (tests/data/analysis/hoist/late.cu): a PCH that held it
 * ahead of the template gives the call candidates the plain parse has
 * not, so that PCH is not taken and the TU parses with the headers
 * before the template; the kernel's closure is the plain parse's,
 * without __hadd2's overloads, and its name nvcc 13.0's PTX entry. */
TEST(system_headers_whose_functions_code_before_them_names_are_not_hoisted)
{
	char *dir;
	struct ks_inventory inv[2];
	struct ks_buf err = KS_BUF_INIT;
	struct ks_tu_opts o;
	const struct ks_kernel *k[2];
	int i;

	SETUP();
	dir = ks_xasprintf("%s/hoist-late", test_tmpdir());
	for (i = 0; i < 2; i++) {
		memset(&o, 0, sizeof(o));
		o.source = "tests/data/analysis/hoist/late.cu";
		o.toolkit = toolkit;
		o.state_dir = dir;
		o.arch = "sm_90";
		o.no_pch = i;
		CHECK_INT_EQ(0, ks_inventory_build(&o, &inv[i], &err));
		if (err.len)
			fprintf(stderr, "%s\n", err.buf);
		k[i] = kernel_named(&inv[i], "sum2_k");
	}
	CHECK(inv[0].used_pch && !inv[0].pch_past_code);
	CHECK(k[0] && k[0]->mangled &&
	      !strcmp(k[0]->mangled, "_Z6sum2_kP7__half2PKS_S2_"));
	CHECK(k[0] && k[1] && k[0]->closure && k[1]->closure &&
	      !strcmp(k[0]->closure, k[1]->closure));
	CHECK(k[0] && k[0]->closure &&
	      !strstr(k[0]->closure, "__hadd2 (overloads)"));
	for (i = 0; i < 2; i++)
		ks_inventory_release(&inv[i]);
	ks_buf_release(&err);
	free(dir);
}

/* thrust included after a user header's declarations, a member
 * template of it named without `template`, and explicit instantiations
 * of a host template that sorts with thrust and launches a kernel
 * (tests/data/analysis/hoist/instances.cu): the PCH holds thrust ahead
 * of the declarations, for the repaired parse and the explicit
 * instantiations' parse alike, and the instances are nvcc 13.0's PTX
 * entries. */
TEST(thrust_after_user_declarations_is_in_the_pch_for_every_parse)
{
	char *dir;
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_tu_opts o;
	const struct ks_kernel *k;

	SETUP();
	dir = ks_xasprintf("%s/hoist-instances", test_tmpdir());
	memset(&o, 0, sizeof(o));
	o.source = "tests/data/analysis/hoist/instances.cu";
	o.toolkit = toolkit;
	o.state_dir = dir;
	o.arch = "sm_90";
	CHECK_INT_EQ(0, ks_inventory_build(&o, &inv, &err));
	if (err.len)
		fprintf(stderr, "%s\n", err.buf);
	CHECK(inv.used_pch && inv.pch_past_code);
	k = kernel_named(&inv, "mark_k");
	CHECK(k && k->ninst == 2);
	CHECK(has_instance(k, "mark_k<1>", "_Z6mark_kILj1EEvP3keyIXT_EEPjm"));
	CHECK(has_instance(k, "mark_k<2>", "_Z6mark_kILj2EEvP3keyIXT_EEPjm"));
	CHECK_INT_EQ(1, (int)inv.nlaunches);
	ks_inventory_release(&inv);
	ks_buf_release(&err);
	free(dir);
}

/* The scan past code (tests/data/analysis/hoist/cross.cu): the header
 * after the template is hoisted only when the scan reads past code, and
 * the stretches of the user text say how many headers come before them.
 * No libclang: the scan reads text. */
TEST(hoist_scan_reads_past_code_and_places_the_user_text)
{
	struct ks_tu_opts o;
	struct ks_tu_hoist h;
	size_t i;
	int before = -1, after = -1;

	memset(&o, 0, sizeof(o));
	o.source = "tests/data/analysis/hoist/cross.cu";
	ks_tu_hoist_scan(&o, o.source, 0, &h);
	CHECK_INT_EQ(0, (int)h.headers.n);
	CHECK(h.stopped && strstr(h.stopped, "cross.h:"));
	CHECK_INT_EQ(0, h.crossed);
	ks_tu_hoist_release(&h);
	ks_tu_hoist_scan(&o, o.source, 1, &h);
	CHECK_INT_EQ(1, (int)h.headers.n);
	CHECK(h.headers.n && !strcmp(h.headers.v[0], "cuda_fp16.h"));
	CHECK_INT_EQ(1, h.crossed);
	CHECK_NULL(h.stopped);
	/* cross.h: its template before the header, its end after it */
	for (i = 0; i < h.nsegs; i++) {
		if (!ks_ends_with(h.segs[i].file, "/hoist/cross.h"))
			continue;
		if (h.segs[i].off == 0)
			before = h.segs[i].c;
		else
			after = h.segs[i].c;
	}
	CHECK_INT_EQ(0, before);
	CHECK_INT_EQ(1, after);
	/* the template's names are the user text's, before the header */
	for (i = 0; i < h.nids && strcmp(h.ids[i].name, "differ"); i++)
		;
	CHECK(i < h.nids && h.ids[i].at == 0);
	ks_tu_hoist_release(&h);
}

/* The macro check of the user text against the headers' definitions
 * ("i +NAME") and undefinitions ("i !NAME"): a name a header at or
 * after its use defines first, or undefines where an earlier header or
 * the command line defined it, stops the hoist; undefining a name that
 * is no macro (<cstring>'s `#undef memcpy`) does not. Pure. */
TEST(hoist_macro_check_tells_definitions_from_undefinitions)
{
	static const struct {
		const char *name;
		int at;
		const char *macros;
		const char *arg;
		int want;
	} cases[] = {
		{ "memcpy", 2, "0 memcpy\n0 !memcpy\n3 memcpy\n3 !memcpy\n",
		  NULL, 0 },
		{ "isnan", 2, "0 isnan\n0 +isnan\n3 isnan\n3 !isnan\n",
		  NULL, -1 },
		{ "FOO", 1, "2 FOO\n2 +FOO\n", NULL, -1 },
		{ "FOO", 3, "2 FOO\n2 +FOO\n", NULL, 0 },
		{ "BAR", 3, "4 BAR\n4 !BAR\n", "-DBAR=1", -1 },
		{ "BAR", 3, "4 BAR\n4 !BAR\n", "-DBARX=1", 0 },
		{ "BAR", 3, "4 BAR\n4 !BAR\n", NULL, 0 },
		/* assert.h included again counts its undefinition where it
		 * was first included (the PCH's build writes it at 1) */
		{ "assert", 2, "1 assert\n1 +assert\n1 !assert\n4 assert\n"
			       "4 +assert\n", NULL, 0 },
	};
	size_t i;

	for (i = 0; i < KS_ARRAY_SIZE(cases); i++) {
		struct ks_tu_hoist h;
		struct ks_tu_hoist_ident id;
		struct ks_strv args = KS_STRV_INIT;

		memset(&h, 0, sizeof(h));
		id.name = (char *)cases[i].name;
		id.at = cases[i].at;
		h.ids = &id;
		h.nids = 1;
		if (cases[i].arg)
			ks_strv_push(&args, cases[i].arg);
		CHECK_INT_EQ(cases[i].want,
			     ks_tu_hoist_check(&h, cases[i].macros, &args));
		ks_strv_release(&args);
	}
}

/* __syncthreads called in a kernel, and `fma` left unresolved in a
 * template kernel (tests/data/analysis/sync.cu): with the PCH clang
 * declares the builtin afresh where it is called, and lists fewer of
 * fma's system overloads; the closures name the toolkit's declarations
 * alike either way, so they are the plain parse's, byte for byte. */
TEST(builtins_from_the_pch_keep_the_closure)
{
	char *dir;
	struct ks_inventory inv[2];
	struct ks_buf err = KS_BUF_INIT;
	struct ks_tu_opts o;
	const struct ks_kernel *k[2], *f[2];
	int i;

	SETUP();
	dir = ks_xasprintf("%s/sync", test_tmpdir());
	for (i = 0; i < 2; i++) {
		memset(&o, 0, sizeof(o));
		o.source = "tests/data/analysis/sync.cu";
		o.toolkit = toolkit;
		o.state_dir = dir;
		o.arch = "sm_90";
		o.no_pch = i;
		CHECK_INT_EQ(0, ks_inventory_build(&o, &inv[i], &err));
		if (err.len)
			fprintf(stderr, "%s\n", err.buf);
		k[i] = kernel_named(&inv[i], "rev_k");
		f[i] = kernel_named(&inv[i], "fma_k");
	}
	CHECK(f[0] && f[1] && f[0]->closure && f[1]->closure &&
	      !strcmp(f[0]->closure, f[1]->closure));
	CHECK(inv[0].used_pch && !inv[1].used_pch);
	CHECK(k[0] && k[1] && k[0]->closure && k[1]->closure &&
	      !strcmp(k[0]->closure, k[1]->closure));
	CHECK(k[0] && k[0]->closure &&
	      strstr(k[0]->closure, "== system __syncthreads()"));
	for (i = 0; i < 2; i++)
		ks_inventory_release(&inv[i]);
	ks_buf_release(&err);
	free(dir);
}

TEST(walk_stops_at_its_time_bound)
{
	struct ks_inventory inv;
	struct ks_buf err = KS_BUF_INIT, src = KS_BUF_INIT;
	struct ks_tu_opts o;
	int i;

	SETUP();
	/* a thousand statements, parsed with the prelude (a fast parse):
	   far more than a millisecond of walking, and within the generous
	   bound even under the sanitizers */
	ks_buf_adds(&src, "__global__ void k(float *o, const float *a)\n{\n");
	for (i = 0; i < 1000; i++)
		ks_buf_addf(&src, "  o[threadIdx.x + %d] = a[%d] * 2.0f;\n",
			    i, i);
	ks_buf_adds(&src, "}\n");
	memset(&o, 0, sizeof(o));
	o.source = test_write(test_tmpdir(), "slow.cu", src.buf);
	o.state_dir = state;
	o.arch = "sm_90";
	o.timeout_ms = 1;
	CHECK_INT_EQ(-1, ks_inventory_build(&o, &inv, &err));
	CHECK(strstr(err.buf, "slow.cu: analysis took longer than 1 ms of "
			      "CPU time (KS_ANALYSIS_TIMEOUT)") != NULL);
	CHECK_INT_EQ(0, (int)inv.nkernels);
	ks_inventory_release(&inv);
	ks_buf_reset(&err);
	o.timeout_ms = 120000;
	CHECK_INT_EQ(0, ks_inventory_build(&o, &inv, &err));
	CHECK_INT_EQ(1, (int)inv.nkernels);
	CHECK(inv.nkernels && inv.kernels[0].facts.nacc >= 2000);
	ks_inventory_release(&inv);
	ks_buf_release(&err);
	ks_buf_release(&src);
}

void
ks_suite_analysis_dialect(void)
{
	RUN(host_includes_from_the_compilers_report);
	RUN(host_compiler_of_ccbin);
	RUN(host_min_max_register_and_nv_atomics_parse);
	RUN(host_math_classification_without_math_h);
	RUN(omp_h_from_the_host_compiler);
	RUN(host_errors_are_set_aside_only_in_host_code);
	RUN(template_instances_launches_and_keys);
	RUN(launches_from_macro_expansions);
	RUN(instances_over_cub_types_carry_the_arch_list);
	RUN(kernel_names_are_mangled_as_nvcc_mangles_them);
	RUN(cuda_wrappers_give_device_code_its_std_overloads);
	RUN(explicit_instantiations_of_host_templates_and_through_macros);
	RUN(instances_named_by_function_pointers_in_initializers);
	RUN(dependent_template_names_without_the_keyword);
	RUN(empty_braces_assigned_to_a_half2);
	RUN(system_headers_reached_through_user_headers_are_in_the_pch);
	RUN(system_headers_after_a_user_macro_they_read_are_not_hoisted);
	RUN(system_headers_after_a_template_with_an_operator_are_hoisted);
	RUN(system_headers_whose_functions_code_before_them_names_are_not_hoisted);
	RUN(thrust_after_user_declarations_is_in_the_pch_for_every_parse);
	RUN(hoist_scan_reads_past_code_and_places_the_user_text);
	RUN(hoist_macro_check_tells_definitions_from_undefinitions);
	RUN(builtins_from_the_pch_keep_the_closure);
	RUN(walk_stops_at_its_time_bound);
	if (ready > 0)
		ks_fs_remove_tree(state, &(struct ks_buf)KS_BUF_INIT);
	free(toolkit);
	toolkit = NULL;
	ready = 0;
}
