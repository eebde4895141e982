/* Unit tests of ks_rewrite_instances (cache/rewrite.h): one instance of a
 * template kernel replaced by an explicit specialization for one arch,
 * the other instances and every other pass left as written, and its
 * refusals. */
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
	/* a launcher */
	ks_buf_reset(&err);
	CHECK_INT_EQ(0, job_of(&j, tmpl_tu, "k", launcher_variant, &err));
	ij = (struct ks_rewrite_instance_job){ &j.k, "float", &j.v };
	CHECK_INT_EQ(-1, ks_rewrite_instances(tmpl_tu, strlen(tmpl_tu),
					      "t.cu", &ij, 1, &out, &err));
	CHECK_STR_EQ("cannot rewrite kernel 'k': a launcher for one instance "
		     "(k<float>) is not supported", err.buf);
	job_release(&j);
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

void
ks_suite_rewrite_instances(void)
{
	RUN(a_plain_definition_becomes_the_instances_specialization);
	RUN(two_instances_and_a_written_specialization);
	RUN(instance_refusals);
}
