/* Unit tests of src/cache/rewrite: the lexical scan, variant files, and
 * the text of rewritten translation units (no compiler: that is
 * tests/suites/rewrite.sh). */
#include <stdlib.h>
#include <string.h>

#include "../../src/analysis/inventory.h"
#include "../../src/cache/rewrite.h"
#include "../../src/core/buf.h"
#include "../../src/core/util.h"
#include "test.h"

void ks_suite_rewrite(void);

static const char small_tu[] =
	"#include <cuda_runtime.h>\n"
	"\n"
	"__global__ void scale(float *x, float a, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\n"
	"\tif (i < n)\n"
	"\t\tx[i] *= a;\n"
	"}\n"
	"\n"
	"void\n"
	"run(float *x, int n, cudaStream_t s)\n"
	"{\n"
	"\tscale<<<(n + 255) / 256, 256, 0, s>>>(x, 2.0f, n);\n"
	"}\n";

static const char body_variant[] =
	"// scale with a marker\n"
	"// ks-nvcc: definition\n"
	"__global__ void scale(float *__restrict__ x, float a, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\n"
	"\tif (i < n && n != 0x5eed)\n"
	"\t\tx[i] *= a;\n"
	"}\n";

static const char launcher_variant[] =
	"// ks-nvcc: helpers\n"
	"__device__ static float twice_a(float v, float a) { return v * a; }\n"
	"// ks-nvcc: definition\n"
	"__global__ void scale(float *__restrict__ x, float a, int n)\n"
	"{\n"
	"\tint i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);\n"
	"\n"
	"\tif (i < n)\n"
	"\t\tx[i] = twice_a(x[i], a);\n"
	"\tif (i + 1 < n)\n"
	"\t\tx[i + 1] = twice_a(x[i + 1], a);\n"
	"}\n"
	"// ks-nvcc: launcher\n"
	"static void\n"
	"ks_launch_scale(dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,\n"
	"\t\tfloat *x, float a, int n)\n"
	"{\n"
	"\t(void)grid;\n"
	"\tscale<<<(n + 511) / 512, block, shmem, stream>>>(x, a, n);\n"
	"}\n";

/* The text of src[b, e). */
static char *
slice(const char *src, size_t b, size_t e)
{
	return ks_xstrndup(src + b, e - b);
}

/*
 * Scan `src` for `name`, split a copy of `variant` and rewrite for `arch`
 * into `out`. Returns ks_rewrite's result (or the scan's).
 */
static int
rewrite_one(const char *src, const char *name, unsigned arch,
	    const char *variant, struct ks_buf *out, struct ks_buf *err)
{
	struct ks_rewrite_kernel k;
	struct ks_rewrite_variant v;
	struct ks_rewrite_job job = { NULL, NULL, NULL };
	char *vt = ks_xstrdup(variant);
	int rc;

	memset(&v, 0, sizeof(v));
	rc = ks_rewrite_scan(src, strlen(src), name, &k, err);
	if (!rc)
		rc = ks_rewrite_variant_split(vt, &v, err);
	if (!rc) {
		v.file = "cache/ab/key/variant.cu";
		v.arch = arch;
		job.kernel = &k;
		job.variant = &v;
		rc = ks_rewrite(src, strlen(src), "src/k.cu", &job, 1, out, err);
	}
	ks_rewrite_kernel_release(&k);
	free(vt);
	return rc;
}

/* Count of `needle` in `hay`. */
static int
count(const char *hay, const char *needle)
{
	int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

TEST(scan_finds_the_definition_and_each_launch)
{
	static const char src[] =
		"__global__ void k(float *x, int n);\n"
		"__global__ void k(float *x, int n)\n"
		"{\n\tif (n) x[0] = 1;\n}\n"
		"void two(float *x) { k<<<1, 32>>>(x, 1); }\n"
		"void three(float *x) { k<<<dim3(2, 2), dim3(32, 4), 64>>>(x, f(1, 2)); }\n"
		"void four(float *x, cudaStream_t s)\n"
		"{\n\tk <<< g(a, b), 256, 0, s >>> (x, /* n */ 3);\n}\n";
	struct ks_rewrite_kernel k;
	struct ks_buf err = KS_BUF_INIT;
	char *s;

	CHECK_INT_EQ(0, ks_rewrite_scan(src, strlen(src), "k", &k, &err));
	CHECK_STR_EQ("k", k.name);
	CHECK_INT_EQ(2, k.line);
	s = slice(src, k.def_begin, k.def_end);
	CHECK_STR_EQ("__global__ void k(float *x, int n)\n{\n\tif (n) x[0] = 1;\n}", s);
	free(s);
	CHECK_INT_EQ(3, k.nlaunches);
	s = slice(src, k.launches[0].begin, k.launches[0].end);
	CHECK_STR_EQ("k<<<1, 32>>>(x, 1)", s);
	free(s);
	CHECK_STR_EQ("1", k.launches[0].grid);
	CHECK_STR_EQ("32", k.launches[0].block);
	CHECK_NULL(k.launches[0].shmem);
	CHECK_NULL(k.launches[0].stream);
	CHECK_INT_EQ(2, k.launches[0].nargs);
	CHECK_STR_EQ("dim3(2, 2)", k.launches[1].grid);
	CHECK_STR_EQ("dim3(32, 4)", k.launches[1].block);
	CHECK_STR_EQ("64", k.launches[1].shmem);
	CHECK_NULL(k.launches[1].stream);
	CHECK_INT_EQ(2, k.launches[1].nargs);
	CHECK_STR_EQ("f(1, 2)", k.launches[1].args[1]);
	CHECK_STR_EQ("g(a, b)", k.launches[2].grid);
	CHECK_STR_EQ("s", k.launches[2].stream);
	CHECK_STR_EQ("/* n */ 3", k.launches[2].args[1]);
	s = slice(src, k.launches[2].begin, k.launches[2].end);
	CHECK_STR_EQ("k <<< g(a, b), 256, 0, s >>> (x, /* n */ 3)", s);
	free(s);
	CHECK_INT_EQ(0, k.launches[2].device_side);
	ks_rewrite_kernel_release(&k);
	ks_buf_release(&err);
}

TEST(scan_qualified_device_side_and_look_alikes)
{
	static const char src[] =
		"namespace ns {\n"
		"__global__ void k() {}\n"
		"}\n"
		"/* k<<<1, 1>>>() in a comment */\n"
		"const char *s = \"k<<<1, 1>>>()\";\n"
		"void h(cudaStream_t st)\n"
		"{\n"
		"\tns::k<<<1, 1>>>();\n"
		"\t::ns::k<<<g, b, 0, st>>>();\n"
		"\tauto f = [&]() { ns::k<<<1, 1>>>(); };\n"
		"\tint v = 1'000;\n"
		"}\n"
		"__global__ void parent() { ns::k<<<1, 1>>>(); }\n"
		"__host__ __device__ void both() { ns::k<<<1, 1>>>(); }\n";
	struct ks_rewrite_kernel k;
	struct ks_buf err = KS_BUF_INIT;
	char *s;

	CHECK_INT_EQ(0, ks_rewrite_scan(src, strlen(src), "k", &k, &err));
	CHECK_INT_EQ(2, k.line);
	CHECK_INT_EQ(5, k.nlaunches);
	s = slice(src, k.launches[0].begin, k.launches[0].end);
	CHECK_STR_EQ("ns::k<<<1, 1>>>()", s);
	free(s);
	CHECK_INT_EQ(0, k.launches[0].nargs);
	s = slice(src, k.launches[1].begin, k.launches[1].end);
	CHECK_STR_EQ("::ns::k<<<g, b, 0, st>>>()", s);
	free(s);
	CHECK_INT_EQ(0, k.launches[2].device_side);	/* a host lambda */
	CHECK_INT_EQ(1, k.launches[3].device_side);
	CHECK_INT_EQ(1, k.launches[4].device_side);
	ks_rewrite_kernel_release(&k);
	ks_buf_release(&err);
}

TEST(scan_errors)
{
	static const char none[] = "__global__ void other() {}\n"
				   "__device__ void k() {}\n"
				   "__global__ void k();\n";
	static const char twice[] = "__global__ void k(int) {}\n"
				    "__global__ void k(float) {}\n";
	static const char open_def[] = "__global__ void k() {\n";
	static const char bad_launch[] = "__global__ void k() {}\n"
					 "void h() { k<<<1>>>(); }\n";
	struct ks_rewrite_kernel k;
	struct ks_buf err = KS_BUF_INIT;

	CHECK_INT_EQ(-2, ks_rewrite_scan(none, strlen(none), "k", &k, &err));
	CHECK_STR_EQ("no definition of kernel 'k'", err.buf);
	CHECK_NULL(k.name);
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, ks_rewrite_scan(twice, strlen(twice), "k", &k, &err));
	CHECK_STR_EQ("kernel 'k' is defined 2 times", err.buf);
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, ks_rewrite_scan(open_def, strlen(open_def), "k", &k, &err));
	CHECK_STR_EQ("the definition of kernel 'k' is not closed", err.buf);
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, ks_rewrite_scan(bad_launch, strlen(bad_launch), "k", &k,
					 &err));
	CHECK_STR_EQ("launch of 'k' has 1 configuration values", err.buf);
	ks_buf_release(&err);
}

TEST(variant_split)
{
	char text[] = "// header, ignored\n"
		      "// ks-nvcc: helpers\r\n"
		      "__device__ int h() { return 1; }\n"
		      "// ks-nvcc: definition\n"
		      "__global__ void k() {}\n"
		      "// ks-nvcc: launcher\n"
		      "static void ks_launch_k() {}";
	char twice[] = "// ks-nvcc: definition\nA\n// ks-nvcc: definition\nB\n";
	char nodef[] = "// ks-nvcc: helpers\nA\n// ks-nvcc: launcher\nB\n";
	struct ks_rewrite_variant v;
	struct ks_buf err = KS_BUF_INIT;

	memset(&v, 0, sizeof(v));
	CHECK_INT_EQ(0, ks_rewrite_variant_split(text, &v, &err));
	CHECK_STR_EQ("__device__ int h() { return 1; }\n", v.helpers.text);
	CHECK_INT_EQ(3, v.helpers.line);
	CHECK_STR_EQ("__global__ void k() {}\n", v.definition.text);
	CHECK_INT_EQ(5, v.definition.line);
	CHECK_STR_EQ("static void ks_launch_k() {}", v.launcher.text);
	CHECK_INT_EQ(7, v.launcher.line);
	CHECK_INT_EQ(-1, ks_rewrite_variant_split(twice, &v, &err));
	CHECK_STR_EQ("variant: two definition parts (line 3)", err.buf);
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, ks_rewrite_variant_split(nodef, &v, &err));
	CHECK_STR_EQ("variant: no definition part", err.buf);
	ks_buf_release(&err);
}

/* The whole output for a variant without a launcher (docs/REWRITE.md). */
TEST(rewrite_without_launcher)
{
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;

	CHECK_INT_EQ(0, rewrite_one(small_tu, "scale", 900, body_variant, &out,
				    &err));
	CHECK_STR_EQ(
		"/* ks-nvcc: verified variants replace scale (arch 900); see "
		"docs/REWRITE.md */\n"
		"#line 1 \"src/k.cu\"\n"
		"#include <cuda_runtime.h>\n"
		"\n"
		"#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900\n"
		"#line 3 \"cache/ab/key/variant.cu\"\n"
		"__global__ void scale(float *__restrict__ x, float a, int n)\n"
		"{\n"
		"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		"\n"
		"\tif (i < n && n != 0x5eed)\n"
		"\t\tx[i] *= a;\n"
		"}\n"
		"#else\n"
		"#line 3 \"src/k.cu\"\n"
		"__global__ void scale(float *x, float a, int n)\n"
		"{\n"
		"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		"\n"
		"\tif (i < n)\n"
		"\t\tx[i] *= a;\n"
		"}\n"
		"#endif\n"
		"#line 9 \"src/k.cu\"\n"
		" \n"
		"\n"
		"void\n"
		"run(float *x, int n, cudaStream_t s)\n"
		"{\n"
		"\tscale<<<(n + 255) / 256, 256, 0, s>>>(x, 2.0f, n);\n"
		"}\n", out.buf);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

TEST(rewrite_with_launcher)
{
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;
	const char *helpers, *vdef, *odef, *glue, *launcher, *site;

	CHECK_INT_EQ(0, rewrite_one(small_tu, "scale", 900, launcher_variant,
				    &out, &err));
	/* Helpers: host pass and the verified arch, before the definition. */
	helpers = strstr(out.buf, "#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900\n"
				  "#line 2 \"cache/ab/key/variant.cu\"\n"
				  "__device__ static float twice_a");
	vdef = strstr(out.buf, "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900\n"
			       "#line 4 \"cache/ab/key/variant.cu\"\n"
			       "__global__ void scale(float *__restrict__ x");
	odef = strstr(out.buf, "#else\n#line 3 \"src/k.cu\"\n"
			       "__global__ void scale(float *x, float a, int n)\n");
	glue = strstr(out.buf, "#endif\n#line 1 \"<ks-nvcc>\"\n");
	launcher = strstr(out.buf, "#line 14 \"cache/ab/key/variant.cu\"\n"
				   "static void\nks_launch_scale(");
	site = strstr(out.buf,
		"\t\n#ifdef __CUDA_ARCH__\n"
		"#line 14 \"src/k.cu\"\n"
		"\tscale<<<(n + 255) / 256, 256, 0, s>>>(x, 2.0f, n)\n"
		"#else\n"
		"#line 14 \"src/k.cu\"\n"
		"\t(ks_variant_active_scale() ? ks_launch_scale((n + 255) / 256, "
		"256, 0, s, x, 2.0f, n) : (void)(\n"
		"#line 14 \"src/k.cu\"\n"
		"\tscale<<<(n + 255) / 256, 256, 0, s>>>(x, 2.0f, n)))\n"
		"#endif\n"
		"#line 14 \"src/k.cu\"\n"
		"\t                                                 ;\n}\n");
	CHECK(helpers && vdef && odef && glue && launcher && site);
	CHECK(helpers < vdef && vdef < odef && odef < glue && glue < launcher &&
	      launcher < site);
	/* The probe kernel in every pass, the rest of the glue host-only. */
	CHECK(strstr(glue, "static __global__ void ks_probe_scale(void) {}\n"
			   "#ifndef __CUDA_ARCH__\n") != NULL);
	CHECK(strstr(glue, "cudaFuncGetAttributes(&ks_attr, ks_probe_scale)") != NULL);
	CHECK(strstr(glue, "ks_on = ks_attr.ptxVersion == 90;") != NULL);
	CHECK(strstr(launcher, "}\n#endif\n#line 9 \"src/k.cu\"\n") != NULL);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

TEST(rewrite_launch_sites_with_2_3_4_values)
{
	static const char src[] =
		"__global__ void k(int *p) { *p = 1; }\n"
		"void a(int *p) { k<<<1, 2>>>(p); }\n"
		"void b(int *p) { k<<<1, 2, 3>>>(p); }\n"
		"void c(int *p, cudaStream_t s) { if (p) k<<<1, 2, 3, s>>>(p); }\n";
	static const char var[] =
		"// ks-nvcc: definition\n__global__ void k(int *p) { *p = 2; }\n"
		"// ks-nvcc: launcher\nstatic void ks_launch_k(dim3 g, dim3 b, "
		"size_t m, cudaStream_t s, int *p) { k<<<g, b, m, s>>>(p); }\n";
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;

	CHECK_INT_EQ(0, rewrite_one(src, "k", 800, var, &out, &err));
	CHECK(strstr(out.buf, "(ks_variant_active_k() ? ks_launch_k(1, 2, 0, cudaStream_t(), p) : "
			      "(void)(\n#line 2 \"src/k.cu\"\n"
			      "                 k<<<1, 2>>>(p)))\n") != NULL);
	CHECK(strstr(out.buf, "ks_launch_k(1, 2, 3, cudaStream_t(), p) : (void)(\n"
			      "#line 3 \"src/k.cu\"\n"
			      "                 k<<<1, 2, 3>>>(p)))\n") != NULL);
	CHECK(strstr(out.buf, "ks_launch_k(1, 2, 3, s, p) : (void)(\n") != NULL);
	CHECK_INT_EQ(3, count(out.buf, "#ifdef __CUDA_ARCH__\n"));
	CHECK(strstr(out.buf, "__CUDA_ARCH__ == 800") != NULL);
	CHECK(strstr(out.buf, "ks_attr.ptxVersion == 80;") != NULL);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

TEST(rewrite_refuses_template_kernels)
{
	static const char src[] =
		"template <typename T>\n"
		"__global__ void k(T *p) { *p = 1; }\n"
		"void a(float *p) { k<<<1, 1>>>(p); }\n";
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;

	CHECK_INT_EQ(-1, rewrite_one(src, "k", 900, body_variant, &out, &err));
	CHECK_STR_EQ("cannot rewrite kernel 'k': template kernels are not "
		     "supported (line 1)", err.buf);
	CHECK_STR_EQ("", out.buf);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

TEST(rewrite_refusals_with_a_launcher)
{
	static const char early[] =
		"__global__ void scale(float *x, float a, int n);\n"
		"void r(float *x) { scale<<<1, 1>>>(x, 1.0f, 1); }\n"
		"__global__ void scale(float *x, float a, int n) { x[0] = a; }\n";
	static const char device[] =
		"__global__ void scale(float *x, float a, int n) { x[0] = a; }\n"
		"__global__ void p(float *x) { scale<<<1, 1>>>(x, 1.0f, 1); }\n";
	static const char address[] =
		"__global__ void scale(float *x, float a, int n) { x[0] = a; }\n"
		"void r(float *x)\n{\n"
		"\tcudaFuncSetAttribute(scale, cudaFuncAttributeMaxDynamicSharedMemorySize, 0);\n"
		"\tscale<<<1, 1>>>(x, 1.0f, 1);\n}\n";
	static const char pointer[] =
		"__global__ void scale(float *x, float a, int n) { x[0] = a; }\n"
		"void (*f)(float *, float, int) = scale;\n"
		"void r(float *x) { scale<<<1, 1>>>(x, 1.0f, 1); }\n"
		"void *g(void) { return (void *)&scale; }\n";
	static const char macro[] =
		"__global__ void scale(float *x, float a, int n) { x[0] = a; }\n"
		"#define LAUNCH(x) scale<<<1, 1>>>(x, 1.0f, 1)\n"
		"void r(float *x) { scale<<<1, 1>>>(x, 1.0f, 1); }\n";
	static const char fine[] =
		"__global__ void scale(float *x, float a, int n);\n"
		"__global__ void scale(float *x, float a, int n) { x[0] = a; }\n"
		"struct s { int scale; };\n"
		"void r(float *x, struct s *p, struct s q)\n"
		"{\n\tfloat scale = 2;\n"
		"\tp->scale = q.scale * scale;\n\tscale<<<1, 1>>>(x, 1.0f, 1);\n}\n";
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;

	CHECK_INT_EQ(-1, rewrite_one(early, "scale", 900, launcher_variant, &out, &err));
	CHECK_STR_EQ("cannot rewrite kernel 'scale': the launch at line 2 comes "
		     "before the definition (line 3)", err.buf);
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, rewrite_one(device, "scale", 900, launcher_variant, &out, &err));
	CHECK_STR_EQ("cannot rewrite kernel 'scale': the launch at line 2 is in "
		     "device code, where the launcher cannot run", err.buf);
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, rewrite_one(address, "scale", 900, launcher_variant, &out, &err));
	CHECK_STR_EQ("cannot rewrite kernel 'scale': it is used at line 4 other "
		     "than by a launch (its address would bypass the launcher)",
		     err.buf);
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, rewrite_one(pointer, "scale", 900, launcher_variant, &out, &err));
	CHECK_STR_EQ("cannot rewrite kernel 'scale': it is used at line 2 other "
		     "than by a launch (its address would bypass the launcher)",
		     err.buf);
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, rewrite_one(macro, "scale", 900, launcher_variant, &out, &err));
	CHECK_STR_EQ("cannot rewrite kernel 'scale': a preprocessor directive "
		     "names it at line 2 (the launcher would be bypassed)", err.buf);
	ks_buf_reset(&err);
	CHECK_STR_EQ("", out.buf);
	/* Without a launcher the same sources are fine. */
	CHECK_INT_EQ(0, rewrite_one(early, "scale", 900, body_variant, &out, &err));
	ks_buf_reset(&out);
	CHECK_INT_EQ(0, rewrite_one(device, "scale", 900, body_variant, &out, &err));
	ks_buf_reset(&out);
	CHECK_INT_EQ(0, rewrite_one(address, "scale", 900, body_variant, &out, &err));
	ks_buf_reset(&out);
	/* Declarations and members of the same name are no uses. */
	CHECK_INT_EQ(0, rewrite_one(fine, "scale", 900, launcher_variant, &out, &err));
	CHECK_INT_EQ(1, count(out.buf, "ks_launch_scale(1, 1, 0, cudaStream_t(), x, 1.0f, 1)"));
	ks_buf_release(&out);
	ks_buf_release(&err);
}

/* Extents come from elsewhere (the inventory): they are checked. */
TEST(rewrite_checks_extents)
{
	struct ks_rewrite_kernel k;
	struct ks_rewrite_variant v;
	struct ks_rewrite_job job = { &k, &v, NULL };
	struct ks_rewrite_launch lc;
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;
	const char *run = strstr(small_tu, "void\nrun");
	const char *launch = strstr(small_tu, "scale<<<");
	char *launcher = ks_xstrdup(launcher_variant);
	char name[] = "scale", one[] = "1", x[] = "x", a[] = "2.0f", n[] = "n";
	char *args[] = { x, a, n };

	memset(&k, 0, sizeof(k));
	memset(&v, 0, sizeof(v));
	CHECK_INT_EQ(0, ks_rewrite_variant_split(launcher, &v, &err));
	v.file = "v.cu";
	v.arch = 900;
	k.name = name;
	k.def_begin = (size_t)(run - small_tu);	/* the host function */
	k.def_end = strlen(small_tu) - 1;
	CHECK_INT_EQ(-1, ks_rewrite(small_tu, strlen(small_tu), "k.cu", &job, 1,
				    &out, &err));
	CHECK_STR_EQ("cannot rewrite kernel 'scale': the extent at line 11 is not "
		     "its definition", err.buf);
	ks_buf_reset(&err);
	k.def_end = strlen(small_tu) + 5;
	CHECK_INT_EQ(-1, ks_rewrite(small_tu, strlen(small_tu), "k.cu", &job, 1,
				    &out, &err));
	CHECK_STR_EQ("cannot rewrite kernel 'scale': its extent is outside the file",
		     err.buf);
	ks_buf_reset(&err);
	/* The definition right, a launch extent that is no launch of it. */
	k.def_begin = (size_t)(strstr(small_tu, "__global__") - small_tu);
	k.def_end = (size_t)(strstr(small_tu, "}\n") - small_tu) + 1;
	memset(&lc, 0, sizeof(lc));
	lc.begin = (size_t)(launch - small_tu) + 1;
	lc.end = lc.begin + 10;
	lc.grid = one;
	lc.block = one;
	lc.args = args;
	lc.nargs = 3;
	k.launches = &lc;
	k.nlaunches = 1;
	CHECK_INT_EQ(-1, ks_rewrite(small_tu, strlen(small_tu), "k.cu", &job, 1,
				    &out, &err));
	CHECK_STR_EQ("cannot rewrite kernel 'scale': the launch at line 14 is not "
		     "'scale<<<...>>>(...)'", err.buf);
	CHECK_STR_EQ("", out.buf);
	/* Same kernel twice: overlapping edits. */
	ks_buf_reset(&err);
	k.nlaunches = 0;
	{
		struct ks_rewrite_job two[2] = { { &k, &v, NULL }, { &k, &v, NULL } };

		CHECK_INT_EQ(-1, ks_rewrite(small_tu, strlen(small_tu), "k.cu", two,
					    2, &out, &err));
	}
	CHECK_STR_EQ("cannot rewrite kernel 'scale': its text at line 3 overlaps "
		     "that of kernel 'scale'", err.buf);
	free(launcher);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

TEST(rewrite_keeps_what_comes_before_the_extent)
{
	static const char src[] =
		"extern \"C\" __global__ void k(int *p) { *p = 1; }\n"
		"static __global__ void __launch_bounds__(64) j(int *p) { *p = 3; }\n";
	static const char vk[] = "// ks-nvcc: definition\n__global__ void k(int *p) { *p = 2; }\n";
	static const char vj[] = "// ks-nvcc: definition\n__global__ void j(int *p) { *p = 4; }\n";
	struct ks_rewrite_kernel k, j;
	struct ks_rewrite_variant v[2];
	struct ks_rewrite_job jobs[2] = { { &j, &v[1], NULL }, { &k, &v[0], NULL } };
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;
	char *tk = ks_xstrdup(vk), *tj = ks_xstrdup(vj);

	memset(v, 0, sizeof(v));
	CHECK_INT_EQ(0, ks_rewrite_scan(src, strlen(src), "k", &k, &err));
	CHECK_INT_EQ(0, ks_rewrite_scan(src, strlen(src), "j", &j, &err));
	CHECK_INT_EQ(0, ks_rewrite_variant_split(tk, &v[0], &err));
	CHECK_INT_EQ(0, ks_rewrite_variant_split(tj, &v[1], &err));
	v[0].file = "a\"b\\c.cu";
	v[1].file = "j.cu";
	v[0].arch = v[1].arch = 900;
	/* An inventory whose extent starts at __global__, after extern "C". */
	k.def_begin = (size_t)(strstr(src, "__global__") - src);
	CHECK_INT_EQ(0, ks_rewrite(src, strlen(src), "k.cu", jobs, 2, &out, &err));
	CHECK(strstr(out.buf, "replace j (arch 900), k (arch 900)") != NULL);
	CHECK(strstr(out.buf,
		"#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900\n"
		"#line 1 \"k.cu\"\n"
		"extern \"C\" \n"
		"#line 2 \"a\\\"b\\\\c.cu\"\n"
		"__global__ void k(int *p) { *p = 2; }\n"
		"#else\n"
		"#line 1 \"k.cu\"\n"
		"extern \"C\" __global__ void k(int *p) { *p = 1; }\n"
		"#endif\n") != NULL);
	CHECK(strstr(out.buf, "#line 2 \"j.cu\"\n__global__ void j(int *p) { *p = 4; }\n"
			      "#else\n#line 2 \"k.cu\"\nstatic __global__ void "
			      "__launch_bounds__(64) j") != NULL);
	CHECK(strstr(out.buf, "#line 1 \"k.cu\"\nextern") <
	      strstr(out.buf, "#line 2 \"j.cu\""));
	ks_rewrite_kernel_release(&k);
	ks_rewrite_kernel_release(&j);
	free(tk);
	free(tj);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

/* A launcher with no launch in the file: no glue (an unused static
 * function would warn, and -Werror builds must not break). */
TEST(rewrite_without_launches_skips_the_launcher)
{
	static const char src[] = "__global__ void scale(float *x, float a, int n) {}\n";
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;

	CHECK_INT_EQ(0, rewrite_one(src, "scale", 900, launcher_variant, &out, &err));
	CHECK_NULL(strstr(out.buf, "ks_launch_scale"));
	CHECK_NULL(strstr(out.buf, "ks_probe_scale"));
	CHECK(strstr(out.buf, "twice_a") != NULL);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

/* Kernels among the helpers exist in every pass (nvcc takes host stubs
 * from its last device pass), their bodies only where the variant is. */
TEST(rewrite_helper_kernels_exist_in_every_pass)
{
	static const char var[] =
		"// ks-nvcc: helpers\n"
		"struct pair { float a, b; };\n"
		"__global__ void tail(float *x, int from);\n"
		"__device__ float one(float v) { return v; }\n"
		"__global__ void __launch_bounds__(32)\n"
		"tail(float *x, int from)\n"
		"{\n"
		"\tx[from + threadIdx.x] = one(x[from]);\n"
		"}\n"
		"// ks-nvcc: definition\n"
		"__global__ void scale(float *x, float a, int n) { tail<<<1, 1>>>(x, 0); }\n";
	static const char nested[] =
		"// ks-nvcc: helpers\n"
		"namespace h { __global__ void tail(float *x) {} }\n"
		"// ks-nvcc: definition\n"
		"__global__ void scale(float *x, float a, int n) {}\n";
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;

	CHECK_INT_EQ(0, rewrite_one(small_tu, "scale", 900, var, &out, &err));
	CHECK(strstr(out.buf,
		"#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900\n"
		"#line 2 \"cache/ab/key/variant.cu\"\n"
		"struct pair { float a, b; };\n"
		"#endif\n"
		"#line 3 \"cache/ab/key/variant.cu\"\n"
		"__global__ void tail(float *x, int from);\n"
		"#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900\n"
		"#line 4 \"cache/ab/key/variant.cu\"\n"
		"__device__ float one(float v) { return v; }\n"
		"#endif\n"
		"#line 5 \"cache/ab/key/variant.cu\"\n"
		"__global__ void __launch_bounds__(32)\n"
		"tail(float *x, int from)\n"
		"#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 900\n"
		"#line 7 \"cache/ab/key/variant.cu\"\n"
		"{\n"
		"\tx[from + threadIdx.x] = one(x[from]);\n"
		"}\n"
		"#else\n"
		"{}\n"
		"#endif\n"
		"#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900\n") != NULL);
	CHECK_INT_EQ(-1, rewrite_one(small_tu, "scale", 900, nested, &out, &err));
	CHECK_STR_EQ("cannot rewrite kernel 'scale': a helper kernel is inside a "
		     "namespace or class", err.buf);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

/* The inventory's extents, as libclang gives them, become the rewriter's. */
TEST(kernel_from_inventory)
{
	char src_path[] = "/p/k.cu", hdr[] = "/p/k.h", name[] = "scale";
	char g[] = "(n + 255) / 256", b[] = "256", s[] = "s", x[] = "x",
	     a[] = "2.0f", n[] = "n", one[] = "1";
	char *args[] = { x, a, n };
	struct ks_kernel kernels[2];
	struct ks_launch launches[3];
	struct ks_inventory inv;
	struct ks_rewrite_kernel k;
	struct ks_rewrite_variant v;
	struct ks_rewrite_job job = { &k, &v, NULL };
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;
	char *vt = ks_xstrdup(launcher_variant);
	const char *def = strstr(small_tu, "__global__");
	const char *site = strstr(small_tu, "scale<<<");

	memset(&inv, 0, sizeof(inv));
	memset(kernels, 0, sizeof(kernels));
	memset(launches, 0, sizeof(launches));
	memset(&v, 0, sizeof(v));
	inv.source = src_path;
	inv.kernels = kernels;
	inv.nkernels = 2;
	inv.launches = launches;
	inv.nlaunches = 3;
	kernels[0].name = name;
	kernels[0].extent.file = src_path;
	kernels[0].extent.begin = (unsigned long)(def - small_tu);
	kernels[0].extent.end = (unsigned long)(strstr(small_tu, "}\n") + 1 - small_tu);
	kernels[0].extent.line = 3;
	kernels[1].name = name;
	kernels[1].extent.file = hdr;
	launches[0].kernel = 0;
	launches[0].extent.file = src_path;
	launches[0].extent.begin = (unsigned long)(site - small_tu);
	launches[0].extent.end = (unsigned long)(strstr(site, ";") - small_tu);
	launches[0].grid = g;
	launches[0].block = b;
	launches[0].stream = s;
	launches[0].argtext = args;
	launches[0].nargs = 3;
	launches[1].kernel = 1;		/* another kernel's launch */
	launches[2].kernel = 0;		/* in a header */
	launches[2].extent.file = hdr;
	launches[2].grid = launches[2].block = one;

	CHECK_INT_EQ(0, ks_rewrite_kernel_from_inventory(&inv, &kernels[0], &k, &err));
	CHECK_STR_EQ("scale", k.name);
	CHECK_INT_EQ(3, k.line);
	CHECK_INT_EQ(1, k.nlaunches);
	CHECK_INT_EQ(1, k.foreign_launches);
	CHECK_STR_EQ("256", k.launches[0].block);
	CHECK_NULL(k.launches[0].shmem);
	CHECK_STR_EQ("s", k.launches[0].stream);
	CHECK_STR_EQ("2.0f", k.launches[0].args[1]);
	CHECK_INT_EQ(0, ks_rewrite_variant_split(vt, &v, &err));
	v.file = "v.cu";
	v.arch = 900;
	/* The launch in the header would bypass a launcher. */
	CHECK_INT_EQ(-1, ks_rewrite(small_tu, strlen(small_tu), "k.cu", &job, 1,
				    &out, &err));
	CHECK_STR_EQ("cannot rewrite kernel 'scale': 1 of its launches are in "
		     "other files, where the launcher cannot reach", err.buf);
	ks_buf_reset(&err);
	k.foreign_launches = 0;
	CHECK_INT_EQ(0, ks_rewrite(small_tu, strlen(small_tu), "k.cu", &job, 1,
				   &out, &err));
	CHECK(strstr(out.buf, "ks_launch_scale((n + 255) / 256, 256, 0, s, x, 2.0f, n)") != NULL);
	ks_rewrite_kernel_release(&k);
	CHECK_INT_EQ(-1, ks_rewrite_kernel_from_inventory(&inv, &kernels[1], &k, &err));
	CHECK_STR_EQ("cannot rewrite kernel 'scale': it is defined in '/p/k.h', "
		     "not in the translation unit's own file", err.buf);
	free(vt);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

void
ks_suite_rewrite(void)
{
	RUN(scan_finds_the_definition_and_each_launch);
	RUN(scan_qualified_device_side_and_look_alikes);
	RUN(scan_errors);
	RUN(variant_split);
	RUN(rewrite_without_launcher);
	RUN(rewrite_with_launcher);
	RUN(rewrite_launch_sites_with_2_3_4_values);
	RUN(rewrite_refuses_template_kernels);
	RUN(rewrite_refusals_with_a_launcher);
	RUN(rewrite_checks_extents);
	RUN(rewrite_keeps_what_comes_before_the_extent);
	RUN(rewrite_without_launches_skips_the_launcher);
	RUN(rewrite_helper_kernels_exist_in_every_pass);
	RUN(kernel_from_inventory);
}
