/* Unit tests of ks_rewrite_instances (cache/rewrite.h): one instance of a
 * template kernel replaced by an explicit specialization for one arch,
 * the other instances and every other pass left as written, the launcher
 * template where the variant has a launcher, the scan of instance
 * launches, and the refusals. */
#include <stdlib.h>
#include <string.h>

#include "../../src/cache/rewrite.h"
#include "../../src/core/buf.h"
#include "../../src/core/util.h"
#include "test.h"

void ks_suite_rewrite_instances(void);

static const char tmpl_tu[] =
	"template <class T> __global__ void k(T *p, T s)\n"
	"{\n"
	"\tp[threadIdx.x] *= s;\n"
	"}\n"
	"template <class T> void run(T *p) { k<<<1, 32>>>(p, (T)2); }\n"
	"void go(float *f, double *d) { run(f); run(d); }\n";

static const char plain_variant[] =
	"// ks-nvcc: definition\n"
	"__global__ void k(float *p, float s)\n"
	"{\n"
	"\tp[threadIdx.x] = p[threadIdx.x] * s + 0x5eed;\n"
	"}\n";

static const char spec_variant[] =
	"// ks-nvcc: helpers\n"
	"__device__ static double twice(double v) { return 2 * v; }\n"
	"// ks-nvcc: definition\n"
	"template <> __global__ void k<double>(double *p, double s)\n"
	"{\n"
	"\tp[threadIdx.x] = twice(p[threadIdx.x]) * s;\n"
	"}\n";

struct job {
	struct ks_rewrite_kernel k;
	struct ks_rewrite_variant v;
	char *text;
};

static int
job_of(struct job *j, const char *src, const char *name, const char *variant,
       struct ks_buf *err)
{
	memset(j, 0, sizeof(*j));
	j->text = ks_xstrdup(variant);
	if (ks_rewrite_scan(src, strlen(src), name, &j->k, err) ||
	    ks_rewrite_variant_split(j->text, &j->v, err))
		return -1;
	j->v.file = "cache/ab/key/variant.cu";
	j->v.arch = 900;
	return 0;
}

static void
job_release(struct job *j)
{
	ks_rewrite_kernel_release(&j->k);
	free(j->text);
}

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

TEST(a_plain_definition_becomes_the_instances_specialization)
{
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;
	struct ks_rewrite_instance_job ij;
	struct job j;
	const char *spec, *guard, *tmpl_end;

	CHECK_INT_EQ(0, job_of(&j, tmpl_tu, "k", plain_variant, &err));
	ij.kernel = &j.k;
	ij.args = "float";
	ij.variant = &j.v;
	CHECK_INT_EQ(0, ks_rewrite_instances(tmpl_tu, strlen(tmpl_tu),
					     "src/t.cu", &ij, 1, &out, &err));
	CHECK_STR_EQ("", err.buf);
	/* the template as written, once; the specialization after it,
	 * only for the verified arch's device pass */
	CHECK_INT_EQ(1, count(out.buf, "template <class T> __global__ void "
				       "k(T *p, T s)"));
	spec = strstr(out.buf,
		      "template <> __global__ void k<float>(float *p, "
		      "float s)\n");
	guard = strstr(out.buf,
		       "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900\n"
		       "#line 2 \"cache/ab/key/variant.cu\"\n");
	tmpl_end = strstr(out.buf, "\tp[threadIdx.x] *= s;\n}");
	CHECK(spec && guard && tmpl_end && tmpl_end < guard && guard < spec);
	CHECK(spec && strstr(spec, "#endif\n#line 4 \"src/t.cu\"\n"));
	/* the launches stay: the instance keeps its mangled name */
	CHECK_INT_EQ(1, count(out.buf, "k<<<1, 32>>>(p, (T)2);"));
	CHECK_INT_EQ(0, count(out.buf, "ks_launch_"));
	job_release(&j);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

TEST(two_instances_and_a_written_specialization)
{
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;
	struct ks_rewrite_instance_job ij[2];
	struct job a, b;
	const char *f, *d;

	CHECK_INT_EQ(0, job_of(&a, tmpl_tu, "k", plain_variant, &err));
	CHECK_INT_EQ(0, job_of(&b, tmpl_tu, "k", spec_variant, &err));
	ij[0] = (struct ks_rewrite_instance_job){ &b.k, "double", &b.v };
	ij[1] = (struct ks_rewrite_instance_job){ &a.k, "float", &a.v };
	CHECK_INT_EQ(0, ks_rewrite_instances(tmpl_tu, strlen(tmpl_tu),
					     "src/t.cu", ij, 2, &out, &err));
	CHECK_STR_EQ("", err.buf);
	f = strstr(out.buf, "template <> __global__ void k<float>(");
	d = strstr(out.buf, "template <> __global__ void k<double>(double");
	/* as written (no second `template <>`), in the jobs' order */
	CHECK(f && d && d < f);
	CHECK_INT_EQ(2, count(out.buf, "template <>"));
	/* the helper is seen by the host and the verified arch only */
	CHECK(strstr(out.buf, "#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ "
			      "== 900\n#line 2 \"cache/ab/key/variant.cu\"\n"
			      "__device__ static double twice") != NULL);
	ks_buf_reset(&out);
	ks_buf_reset(&err);
	/* the same instance twice */
	ij[0] = (struct ks_rewrite_instance_job){ &a.k, "float", &a.v };
	CHECK_INT_EQ(-1, ks_rewrite_instances(tmpl_tu, strlen(tmpl_tu),
					      "src/t.cu", ij, 2, &out, &err));
	CHECK_STR_EQ("cannot rewrite kernel 'k': two variants for k<float>",
		     err.buf);
	CHECK_STR_EQ("", out.buf);
	job_release(&a);
	job_release(&b);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

/* Two instances whose variants' helpers declare the same names: the
 * later one's are renamed throughout its variant, the earlier one's stay;
 * helpers that cannot be read are refused. */
TEST(instances_with_helpers_of_the_same_names)
{
	static const char fv[] =
		"// ks-nvcc: helpers\n"
		"#define KS_W_k 2\n"
		"typedef float ks_tp_k_T;\n"
		"typedef int (*ks_fn_k)(unsigned long long *, size_t *);\n"
		"struct __align__(8) ks_pk_k { float a, b; };\n"
		"__device__ static ks_tp_k_T ks_h_k(ks_tp_k_T v) { return KS_W_k * v; }\n"
		"struct ks_pair_k { ks_tp_k_T ks_h_k; };\n"
		"__device__ int ks_a_k[4], ks_b_k = 1;\n"
		"// ks-nvcc: definition\n"
		"__global__ void k(ks_tp_k_T *p, ks_tp_k_T s)\n"
		"{ struct ks_pair_k q; q.ks_h_k = s; p[threadIdx.x] = ks_h_k(p[0]) * q.ks_h_k; }\n";
	static const char dv[] =
		"// ks-nvcc: helpers\n"
		"#define KS_W_k 2\n"
		"typedef double ks_tp_k_T;\n"
		"typedef int (*ks_fn_k)(unsigned long long *, size_t *);\n"
		"struct __align__(8) ks_pk_k { float a, b; };\n"
		"__device__ static ks_tp_k_T ks_h_k(ks_tp_k_T v) { return KS_W_k * v; }\n"
		"struct ks_pair_k { ks_tp_k_T ks_h_k; };\n"
		"__device__ int ks_a_k[4], ks_b_k = 1, ks_only_d;\n"
		"// ks-nvcc: definition\n"
		"__global__ void k(ks_tp_k_T *p, ks_tp_k_T s)\n"
		"{ struct ks_pair_k q; q.ks_h_k = s; p[threadIdx.x] = ks_h_k(p[0]) * q.ks_h_k; }\n";
	static const char ns[] =
		"// ks-nvcc: helpers\n"
		"namespace { __device__ float twice(float v) { return 2 * v; } }\n"
		"// ks-nvcc: definition\n"
		"__global__ void k(float *p, float s) { p[0] = twice(s); }\n";
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;
	struct ks_rewrite_instance_job ij[2];
	struct job a, b, c;
	const char *d;

	CHECK_INT_EQ(0, job_of(&a, tmpl_tu, "k", fv, &err));
	CHECK_INT_EQ(0, job_of(&b, tmpl_tu, "k", dv, &err));
	CHECK(ks_rewrite_variants_coexist(&a.v, &b.v));
	ij[0] = (struct ks_rewrite_instance_job){ &a.k, "float", &a.v };
	ij[1] = (struct ks_rewrite_instance_job){ &b.k, "double", &b.v };
	CHECK_INT_EQ(0, ks_rewrite_instances(tmpl_tu, strlen(tmpl_tu),
					     "src/t.cu", ij, 2, &out, &err));
	CHECK_STR_EQ("", err.buf);
	d = strstr(out.buf, "typedef double");
	CHECK(d != NULL);
	/* the first as written */
	CHECK(strstr(out.buf, "typedef float ks_tp_k_T;\n") &&
	      strstr(out.buf, "ks_h_k(p[0]) * q.ks_h_k; }") &&
	      strstr(out.buf, "#define KS_W_k 2\n"));
	/* the second renamed throughout, its own names left */
	CHECK(strstr(out.buf, "#define KS_W_k_i1 2\n") &&
	      strstr(out.buf, "#define KS_W_k_i1 2\n") < d);
	CHECK(d && strstr(d, "typedef double ks_tp_k_T_i1;\n") &&
	      strstr(d, "__device__ static ks_tp_k_T_i1 ks_h_k_i1(ks_tp_k_T_i1 v) "
		     "{ return KS_W_k_i1 * v; }") &&
	      strstr(d, "struct ks_pair_k_i1 { ks_tp_k_T_i1 ks_h_k_i1; };") &&
	      strstr(d, "struct __align__(8) ks_pk_k_i1 { float a, b; };") &&
	      strstr(d, "typedef int (*ks_fn_k_i1)(unsigned long long *, size_t *);") &&
	      strstr(d, "__device__ int ks_a_k_i1[4], ks_b_k_i1 = 1, ks_only_d;") &&
	      strstr(d, "void k<double>(ks_tp_k_T_i1 *p, ks_tp_k_T_i1 s)") &&
	      strstr(d, "{ struct ks_pair_k_i1 q; q.ks_h_k_i1 = s; p[threadIdx.x] = "
			"ks_h_k_i1(p[0]) * q.ks_h_k_i1; }"));
	/* helpers in a namespace cannot be read: refused with the reason */
	ks_buf_reset(&out);
	ks_buf_reset(&err);
	CHECK_INT_EQ(0, job_of(&c, tmpl_tu, "k", ns, &err));
	CHECK(!ks_rewrite_variants_coexist(&c.v, &b.v));
	CHECK(ks_rewrite_variants_coexist(&c.v, &c.v) == 0);
	/* with a variant that declares nothing, it has nothing to collide with */
	{
		struct job p;

		CHECK_INT_EQ(0, job_of(&p, tmpl_tu, "k", plain_variant, &err));
		CHECK(ks_rewrite_variants_coexist(&c.v, &p.v));
		job_release(&p);
	}
	ij[0] = (struct ks_rewrite_instance_job){ &b.k, "double", &b.v };
	ij[1] = (struct ks_rewrite_instance_job){ &c.k, "float", &c.v };
	CHECK_INT_EQ(-1, ks_rewrite_instances(tmpl_tu, strlen(tmpl_tu),
					      "src/t.cu", ij, 2, &out, &err));
	CHECK_STR_EQ("cannot rewrite kernel 'k': two variants with helpers for "
		     "instances of one template (k<double> and k<float>): their "
		     "names would collide", err.buf);
	CHECK_STR_EQ("", out.buf);
	job_release(&a);
	job_release(&b);
	job_release(&c);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

TEST(instance_refusals)
{
	static const char plain_tu[] =
		"__global__ void k(float *p, float s) { p[0] = s; }\n";
	static const char other_variant[] =
		"// ks-nvcc: definition\n"
		"__global__ void q(float *p, float s) { p[0] = s; }\n";
	static const char launcher_variant[] =
		"// ks-nvcc: definition\n"
		"__global__ void k(float *p, float s) { p[0] = s; }\n"
		"// ks-nvcc: launcher\n"
		"static void ks_launch_k(dim3 g, dim3 b, size_t m, "
		"cudaStream_t s, float *p, float v) { k<<<g, b>>>(p, v); }\n";
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;
	struct ks_rewrite_instance_job ij;
	struct ks_rewrite_launch early;
	struct job j;

	/* not a template: ks_rewrite's business */
	CHECK_INT_EQ(0, job_of(&j, plain_tu, "k", plain_variant, &err));
	ij = (struct ks_rewrite_instance_job){ &j.k, "float", &j.v };
	CHECK_INT_EQ(-1, ks_rewrite_instances(plain_tu, strlen(plain_tu),
					      "t.cu", &ij, 1, &out, &err));
	CHECK_STR_EQ("cannot rewrite kernel 'k': it is not a template "
		     "(line 1)", err.buf);
	job_release(&j);
	/* a variant of another kernel */
	ks_buf_reset(&err);
	CHECK_INT_EQ(0, job_of(&j, tmpl_tu, "k", other_variant, &err));
	ij = (struct ks_rewrite_instance_job){ &j.k, "float", &j.v };
	CHECK_INT_EQ(-1, ks_rewrite_instances(tmpl_tu, strlen(tmpl_tu),
					      "t.cu", &ij, 1, &out, &err));
	CHECK_STR_EQ("cannot rewrite kernel 'k': the variant does not "
		     "define k<float>", err.buf);
	job_release(&j);
	/* with a launcher: a template parameter pack, and a launcher that
	 * does not take the kernel's parameters */
	{
		static const char pack_tu[] =
			"template <class... T> __global__ void k(float *p, float s)\n"
			"{ p[0] = s; }\n"
			"void go(float *f) { k<int><<<1, 1>>>(f, 1.0f); }\n";
		static const char short_launcher[] =
			"// ks-nvcc: definition\n"
			"__global__ void k(float *p, float s) { p[0] = s; }\n"
			"// ks-nvcc: launcher\n"
			"static void ks_launch_k(dim3 g, dim3 b, size_t m, "
			"cudaStream_t s, float *p) { k<<<g, b>>>(p, 1); }\n";

		ks_buf_reset(&err);
		CHECK_INT_EQ(0, job_of(&j, pack_tu, "k", launcher_variant, &err));
		ij = (struct ks_rewrite_instance_job){ &j.k, "int", &j.v };
		CHECK_INT_EQ(-1, ks_rewrite_instances(pack_tu, strlen(pack_tu),
						      "t.cu", &ij, 1, &out, &err));
		CHECK_STR_EQ("cannot rewrite kernel 'k': its template parameters "
			     "cannot be named in a launcher template (parameter 1 "
			     "is a pack)", err.buf);
		job_release(&j);
		ks_buf_reset(&err);
		CHECK_INT_EQ(0, job_of(&j, tmpl_tu, "k", short_launcher, &err));
		ij = (struct ks_rewrite_instance_job){ &j.k, "float", &j.v };
		CHECK_INT_EQ(-1, ks_rewrite_instances(tmpl_tu, strlen(tmpl_tu),
						      "t.cu", &ij, 1, &out, &err));
		CHECK_STR_EQ("cannot rewrite kernel 'k': the launcher of k<float> "
			     "takes 1 parameters after the configuration, the "
			     "kernel 2", err.buf);
		job_release(&j);
	}
	/* a launch before the definition */
	ks_buf_reset(&err);
	CHECK_INT_EQ(0, job_of(&j, tmpl_tu, "k", plain_variant, &err));
	memset(&early, 0, sizeof(early));
	early.begin = 0;
	early.end = 5;
	j.k.def_begin = 20; /* pretend: the launch sits before it */
	j.k.def_end = strstr(tmpl_tu, "}\n") + 1 - tmpl_tu;
	{
		struct ks_rewrite_launch *keep = j.k.launches;
		size_t nkeep = j.k.nlaunches;

		j.k.def_begin = 0;
		j.k.launches = &early;
		j.k.nlaunches = 1;
		ij = (struct ks_rewrite_instance_job){ &j.k, "float", &j.v };
		CHECK_INT_EQ(-1,
			     ks_rewrite_instances(tmpl_tu, strlen(tmpl_tu),
						  "t.cu", &ij, 1, &out, &err));
		CHECK(strstr(err.buf, "comes before the definition") &&
		      strstr(err.buf, "k<float> would be instantiated "
				      "before its specialization"));
		j.k.launches = keep;
		j.k.nlaunches = nkeep;
	}
	CHECK_STR_EQ("", out.buf);
	job_release(&j);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

/* The lexical scan finds launches of instances, written or deduced. */
TEST(the_scan_finds_instance_launches)
{
	static const char tu[] =
		"template <class T, int B> __global__ void k(T *p) { p[B] = 0; }\n"
		"template <class T> struct box { T v; };\n"
		"void go(float *f, box<int> *b, int k2)\n"
		"{\n"
		"\tk<float, 4><<<1, 32>>>(f);\n"
		"\tk<box<int>, 2><<<2, 64, 0>>>(b);\n"
		"\tif (k2 < 3 && 4 > k2) k2++;\n"
		"}\n";
	struct ks_rewrite_kernel k;
	struct ks_buf err = KS_BUF_INIT;

	CHECK_INT_EQ(0, ks_rewrite_scan(tu, strlen(tu), "k", &k, &err));
	CHECK_INT_EQ(2, (long long)k.nlaunches);
	if (k.nlaunches == 2) {
		CHECK(!strncmp(tu + k.launches[0].begin, "k<float, 4><<<1, 32>>>(f)",
			       k.launches[0].end - k.launches[0].begin));
		CHECK_STR_EQ("64", k.launches[1].block);
		CHECK_STR_EQ("0", k.launches[1].shmem);
		CHECK_STR_EQ("b", k.launches[1].args[0]);
	}
	CHECK_INT_EQ(0, (long long)k.def_begin);
	ks_rewrite_kernel_release(&k);
	ks_buf_release(&err);
}

/* With a launcher: the launches call the launcher template; its
 * specialization for the instance dispatches to the variant's launcher. */
TEST(an_instance_with_a_launcher)
{
	static const char tu[] =
		"template <class T> __global__ void k(T *p, T s)\n"
		"{\n"
		"\tp[threadIdx.x] *= s;\n"
		"}\n"
		"template <class T> void run(T *p) { k<<<1, 32>>>(p, (T)2); }\n"
		"void go(float *f, double *d, cudaStream_t st)\n"
		"{\n"
		"\trun(f);\n"
		"\trun(d);\n"
		"\tk<float><<<2, 64, 0, st>>>(f, 3.0f);\n"
		"}\n";
	static const char variant[] =
		"// ks-nvcc: helpers\n"
		"typedef float ks_tp_k_T;\n"
		"// ks-nvcc: definition\n"
		"__global__ void k(ks_tp_k_T *p, ks_tp_k_T s) { p[0] = s + 0x5eed; }\n"
		"// ks-nvcc: launcher\n"
		"static void ks_launch_k(dim3 g, dim3 b, size_t m, cudaStream_t st,\n"
		"\t\tks_tp_k_T *p, ks_tp_k_T s) { k<<<g, b, m, st>>>(p, s); }\n";
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;
	struct ks_rewrite_instance_job ij;
	struct job j;
	const char *spec, *primary, *glue, *first_launch;

	CHECK_INT_EQ(0, job_of(&j, tu, "k", variant, &err));
	ij = (struct ks_rewrite_instance_job){ &j.k, "float", &j.v };
	CHECK_INT_EQ(0, ks_rewrite_instances(tu, strlen(tu), "t.cu", &ij, 1,
					     &out, &err));
	CHECK_STR_EQ("", err.buf);
	spec = strstr(out.buf, "template <> __global__ void k<float>(ks_tp_k_T *p");
	primary = strstr(out.buf,
			 "#ifndef __CUDA_ARCH__\n"
			 "/* Every host launch of k calls this; a specialization\n"
			 "   below runs a verified variant's launcher. */\n"
			 "template <class T> static void\n"
			 "ks_launch_k(dim3 ks_grid, dim3 ks_block, size_t ks_shmem,\n"
			 "\t\tcudaStream_t ks_stream, T *p, T s)\n"
			 "{\n"
			 "\tk<T><<<ks_grid, ks_block, ks_shmem, ks_stream>>>(p, s);\n"
			 "}\n"
			 "#endif\n");
	glue = strstr(out.buf,
		      "template <> void\n"
		      "ks_launch_k<float>(dim3 ks_grid, dim3 ks_block, size_t ks_shmem,\n"
		      "\t\tcudaStream_t ks_stream, ks_tp_k_T *p, ks_tp_k_T s)\n"
		      "{\n"
		      "\tif (ks_variant_active_k_0())\n"
		      "\t\tks_launch_k_0(ks_grid, ks_block, ks_shmem, ks_stream, p, s);\n"
		      "\telse\n"
		      "\t\tk<float><<<ks_grid, ks_block, ks_shmem, ks_stream>>>(p, s);\n"
		      "}\n"
		      "#endif\n");
	first_launch = strstr(out.buf, "ks_launch_k(1, 32, 0, cudaStream_t(), p, (T)2)");
	CHECK(spec && primary && glue && first_launch && spec < primary &&
	      primary < glue && glue < first_launch);
	/* the typedef is seen by every pass (kernel signatures may use it) */
	CHECK(strstr(out.buf, "#line 2 \"cache/ab/key/variant.cu\"\n"
			      "typedef float ks_tp_k_T;") != NULL);
	CHECK_INT_EQ(0, count(out.buf, "#if !defined(__CUDA_ARCH__) || "
				       "__CUDA_ARCH__ == 900\n#line 2"));
	/* the variant's launcher, renamed, launches the instance by name */
	CHECK(strstr(out.buf, "static void ks_launch_k_0(dim3 g, dim3 b, size_t m, "
			      "cudaStream_t st,\n\t\tks_tp_k_T *p, ks_tp_k_T s) "
			      "{ k<float><<<g, b, m, st>>>(p, s); }") != NULL);
	CHECK(strstr(out.buf, "ks_launch_k<float>(2, 64, 0, st, f, 3.0f)") != NULL);
	CHECK(strstr(out.buf, "#ifdef __CUDA_ARCH__\n#line 10 \"t.cu\"\n"
			      "\tk<float><<<2, 64, 0, st>>>(f, 3.0f)\n#else") != NULL);
	CHECK(strstr(out.buf, "static __global__ void ks_probe_k_0(void) {}") != NULL);
	/* a use other than a launch is refused, as for a plain kernel */
	{
		static const char used[] =
			"template <class T> __global__ void k(T *p, T s)\n"
			"{\n"
			"\tp[threadIdx.x] *= s;\n"
			"}\n"
			"void go(float *f)\n"
			"{\n"
			"\tcudaFuncSetAttribute(k<float>, cudaFuncAttributeMaxDynamicSharedMemorySize, 0);\n"
			"\tk<float><<<2, 64>>>(f, 3.0f);\n"
			"}\n";
		struct job u;

		ks_buf_reset(&out);
		ks_buf_reset(&err);
		CHECK_INT_EQ(0, job_of(&u, used, "k", variant, &err));
		ij = (struct ks_rewrite_instance_job){ &u.k, "float", &u.v };
		CHECK_INT_EQ(-1, ks_rewrite_instances(used, strlen(used), "t.cu",
						      &ij, 1, &out, &err));
		CHECK(strstr(err.buf, "it is used at line 7 other than by a launch") != NULL);
		job_release(&u);
	}
	job_release(&j);
	ks_buf_release(&out);
	ks_buf_release(&err);
}

void
ks_suite_rewrite_instances(void)
{
	RUN(a_plain_definition_becomes_the_instances_specialization);
	RUN(two_instances_and_a_written_specialization);
	RUN(instances_with_helpers_of_the_same_names);
	RUN(instance_refusals);
	RUN(the_scan_finds_instance_launches);
	RUN(an_instance_with_a_launcher);
}
