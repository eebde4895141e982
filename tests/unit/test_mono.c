/* Unit tests of ks_mono_instance (cache/mono.h): the instance view of a
 * template kernel, a plain copy of one instance added after the template,
 * its parameters' uses replaced and nothing else, and its refusals. */
#include <stdlib.h>
#include <string.h>

#include "../../src/cache/mono.h"
#include "../../src/core/buf.h"
#include "../../src/core/util.h"
#include "test.h"

void ks_suite_mono(void);

/* The instance view of kernel `name` defined by `def` between `before`
 * and `after`. */
static int
view(const char *before, const char *def, const char *after,
     const char *name, const char *args, struct ks_mono_view *m,
     struct ks_buf *err)
{
	char *src = ks_xasprintf("%s%s%s", before, def, after);
	size_t b = strlen(before), e = b + strlen(def);
	int rc = ks_mono_instance(src, strlen(src), b, e, name, args, m, err);

	free(src);
	return rc;
}

/* The plain copy's definition in m->text (static storage). */
static const char *
copy_of(const struct ks_mono_view *m)
{
	static char copy[4096];

	if (m->def_end < m->def_begin ||
	    m->def_end - m->def_begin >= sizeof(copy))
		return "(bad extent)";
	memcpy(copy, m->text + m->def_begin, m->def_end - m->def_begin);
	copy[m->def_end - m->def_begin] = '\0';
	return copy;
}

static const char axpy_def[] =
	"template <typename T> __global__ void axpy(const T *x, T *y, T a, int n)\n"
	"{\n"
	"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\tif (i < n)\n"
	"\t\ty[i] += a * x[i];\n"
	"}";

TEST(a_type_argument_of_several_words_becomes_an_alias)
{
	struct ks_mono_view m;
	struct ks_buf err = KS_BUF_INIT;
	static const char want[] =
		"#include <cstdio>\n"
		"// axpy: y += a * x\n"
		"template <typename T> __global__ void axpy(const T *x, T *y, T a, int n)\n"
		"{\n"
		"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		"\tif (i < n)\n"
		"\t\ty[i] += a * x[i];\n"
		"}\n"
		"typedef unsigned int ks_tp_axpy_T;\n"
		"__global__ void axpy(const ks_tp_axpy_T *x, ks_tp_axpy_T *y, ks_tp_axpy_T a, int n)\n"
		"{\n"
		"\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		"\tif (i < n)\n"
		"\t\ty[i] += a * x[i];\n"
		"}\n"
		"\n"
		"void run(unsigned *x, unsigned *y) { axpy<<<1, 32>>>(x, y, 2u, 32); }\n";

	CHECK_INT_EQ(0, view("#include <cstdio>\n// axpy: y += a * x\n",
			     axpy_def,
			     "\nvoid run(unsigned *x, unsigned *y) { "
			     "axpy<<<1, 32>>>(x, y, 2u, 32); }\n",
			     "axpy", "unsigned int", &m, &err));
	CHECK_STR_EQ("", err.buf);
	CHECK_STR_EQ(want, m.text);
	CHECK_INT_EQ(strlen(want), m.len);
	CHECK_STR_EQ("typedef unsigned int ks_tp_axpy_T;\n", m.aliases);
	CHECK_STR_EQ("__global__ void axpy(const ks_tp_axpy_T *x, "
		     "ks_tp_axpy_T *y, ks_tp_axpy_T a, int n)\n"
		     "{\n"
		     "\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		     "\tif (i < n)\n"
		     "\t\ty[i] += a * x[i];\n"
		     "}",
		     copy_of(&m));
	ks_mono_view_release(&m);
	CHECK_NULL(m.text);
	CHECK_NULL(m.aliases);
	CHECK_INT_EQ(0, m.len + m.def_begin + m.def_end);
	ks_mono_view_release(&m);
	ks_buf_release(&err);
}

TEST(a_type_argument_of_one_name_is_written_in_place)
{
	static const char def[] =
		"template <typename T, typename U>\n"
		"__global__ void k(const T *x, U *y, int n)\n"
		"{\n"
		"\tT a = T(0);\n"
		"\tif (threadIdx.x < n)\n"
		"\t\ty[threadIdx.x] = U(a + x[threadIdx.x]) * sizeof(T);\n"
		"}";
	struct ks_mono_view m;
	struct ks_buf err = KS_BUF_INIT;

	/* both one name: no alias, the copy right after the template */
	CHECK_INT_EQ(0, view("", def, "\n", "k", "float, ns::Vec3", &m,
			     &err));
	CHECK_STR_EQ("", m.aliases);
	CHECK_STR_EQ("__global__ void k(const float *x, ns::Vec3 *y, int n)\n"
		     "{\n"
		     "\tfloat a = float(0);\n"
		     "\tif (threadIdx.x < n)\n"
		     "\t\ty[threadIdx.x] = ns::Vec3(a + x[threadIdx.x]) * "
		     "sizeof(float);\n"
		     "}",
		     copy_of(&m));
	CHECK(strstr(m.text, "}\n__global__ void k(const float *x"));
	ks_mono_view_release(&m);

	/* one name ending in a template argument list, and an argument of
	 * several words beside it */
	CHECK_INT_EQ(0, view("", def, "\n", "k",
			     "Pair<int, float>, unsigned int", &m, &err));
	CHECK_STR_EQ("typedef unsigned int ks_tp_k_U;\n", m.aliases);
	CHECK_STR_EQ("__global__ void k(const Pair<int, float> *x, "
		     "ks_tp_k_U *y, int n)\n"
		     "{\n"
		     "\tPair<int, float> a = Pair<int, float>(0);\n"
		     "\tif (threadIdx.x < n)\n"
		     "\t\ty[threadIdx.x] = ks_tp_k_U(a + x[threadIdx.x]) * "
		     "sizeof(Pair<int, float>);\n"
		     "}",
		     copy_of(&m));
	ks_mono_view_release(&m);

	/* neither one name: both aliases */
	CHECK_INT_EQ(0, view("", def, "\n", "k", "unsigned int, float *", &m,
			     &err));
	CHECK_STR_EQ("typedef unsigned int ks_tp_k_T;\n"
		     "typedef float * ks_tp_k_U;\n",
		     m.aliases);
	CHECK_STR_EQ("__global__ void k(const ks_tp_k_T *x, ks_tp_k_U *y, "
		     "int n)\n"
		     "{\n"
		     "\tks_tp_k_T a = ks_tp_k_T(0);\n"
		     "\tif (threadIdx.x < n)\n"
		     "\t\ty[threadIdx.x] = ks_tp_k_U(a + x[threadIdx.x]) * "
		     "sizeof(ks_tp_k_T);\n"
		     "}",
		     copy_of(&m));
	CHECK_STR_EQ("", err.buf);
	ks_mono_view_release(&m);
	ks_buf_release(&err);
}

TEST(a_non_type_parameter_becomes_its_argument)
{
	struct ks_mono_view m;
	struct ks_buf err = KS_BUF_INIT;

	CHECK_INT_EQ(0, view("", "template <class T, int B>\n"
				 "__global__ void __launch_bounds__(B) "
				 "tile(T *p)\n"
				 "{\n"
				 "\t__shared__ float buf[B];\n"
				 "\tbuf[threadIdx.x] = p[threadIdx.x];\n"
				 "\tp[0] = (T)buf[B - 1];\n"
				 "}",
			     "\n", "tile", "float, 256", &m, &err));
	CHECK_STR_EQ("", m.aliases);
	CHECK_STR_EQ("__global__ void __launch_bounds__((256)) "
		     "tile(float *p)\n"
		     "{\n"
		     "\t__shared__ float buf[(256)];\n"
		     "\tbuf[threadIdx.x] = p[threadIdx.x];\n"
		     "\tp[0] = (float)buf[(256) - 1];\n"
		     "}",
		     copy_of(&m));
	/* no alias lines: the copy comes right after the template */
	CHECK(strstr(m.text, "}\n__global__ void __launch_bounds__((256))"));
	CHECK_STR_EQ("\n\n", m.text + m.def_end);
	ks_mono_view_release(&m);

	/* a non-type argument may be any expression */
	CHECK_INT_EQ(0, view("", "template <int B> __global__ void k(int *p) "
				 "{ p[B] = B; }",
			     "", "k", "sizeof(float) * 2", &m, &err));
	CHECK_STR_EQ("", m.aliases);
	CHECK_STR_EQ("__global__ void k(int *p) { p[(sizeof(float) * 2)] = "
		     "(sizeof(float) * 2); }",
		     copy_of(&m));
	CHECK_STR_EQ("", err.buf);
	ks_mono_view_release(&m);
	ks_buf_release(&err);
}

TEST(missing_arguments_take_their_defaults)
{
	static const char def[] =
		"template <typename T, int B = 128, typename U = T, "
		"int C = B * 2>\n"
		"__global__ void k(T *t, U *u) { t[C] = u[B]; }";
	/* a default that is not one name: an alias of its own, chained to
	 * the earlier parameter's */
	static const char chain[] =
		"template <typename T, typename U = const T *>\n"
		"__global__ void k(U *u) { u[0] = 0; }";
	struct ks_mono_view m;
	struct ks_buf err = KS_BUF_INIT;

	/* U's default T is the alias, one name, so written in place */
	CHECK_INT_EQ(0, view("", def, "", "k", "unsigned int", &m, &err));
	CHECK_STR_EQ("typedef unsigned int ks_tp_k_T;\n", m.aliases);
	CHECK_STR_EQ("__global__ void k(ks_tp_k_T *t, ks_tp_k_T *u) "
		     "{ t[((128) * 2)] = u[(128)]; }",
		     copy_of(&m));
	ks_mono_view_release(&m);

	/* a given argument is used by the later defaults */
	CHECK_INT_EQ(0, view("", def, "", "k", " double ,64", &m, &err));
	CHECK_STR_EQ("", m.aliases);
	CHECK_STR_EQ("__global__ void k(double *t, double *u) "
		     "{ t[((64) * 2)] = u[(64)]; }",
		     copy_of(&m));
	ks_mono_view_release(&m);

	/* all of them given */
	CHECK_INT_EQ(0, view("", def, "", "k", "unsigned int, 64, float *, 3",
			     &m, &err));
	CHECK_STR_EQ("typedef unsigned int ks_tp_k_T;\n"
		     "typedef float * ks_tp_k_U;\n",
		     m.aliases);
	CHECK_STR_EQ("__global__ void k(ks_tp_k_T *t, ks_tp_k_U *u) "
		     "{ t[(3)] = u[(64)]; }",
		     copy_of(&m));
	ks_mono_view_release(&m);

	/* chained aliases */
	CHECK_INT_EQ(0, view("", chain, "", "k", "unsigned int", &m, &err));
	CHECK_STR_EQ("typedef unsigned int ks_tp_k_T;\n"
		     "typedef const ks_tp_k_T * ks_tp_k_U;\n",
		     m.aliases);
	CHECK_STR_EQ("__global__ void k(ks_tp_k_U *u) { u[0] = 0; }",
		     copy_of(&m));
	ks_mono_view_release(&m);

	/* a direct argument in a default that gets an alias */
	CHECK_INT_EQ(0, view("", chain, "", "k", "float", &m, &err));
	CHECK_STR_EQ("typedef const float * ks_tp_k_U;\n", m.aliases);
	CHECK_STR_EQ("__global__ void k(ks_tp_k_U *u) { u[0] = 0; }",
		     copy_of(&m));
	CHECK_STR_EQ("", err.buf);
	ks_mono_view_release(&m);
	ks_buf_release(&err);
}

TEST(members_and_qualified_names_are_not_the_parameter)
{
	struct ks_mono_view m;
	struct ks_buf err = KS_BUF_INIT;

	CHECK_INT_EQ(0, view("struct S { int T; };\n",
			     "template <typename T> __global__ void "
			     "k(S p, S *s, T *o)\n"
			     "{\n"
			     "\to[0] = p.T + p . T + s->T + Foo::T + ::T;\n"
			     "\to[1] = s[0].T > 0 ? T(1) : T(2);\n"
			     "}",
			     "", "k", "int", &m, &err));
	CHECK_STR_EQ("__global__ void k(S p, S *s, int *o)\n"
		     "{\n"
		     "\to[0] = p.T + p . T + s->T + Foo::T + ::T;\n"
		     "\to[1] = s[0].T > 0 ? int(1) : int(2);\n"
		     "}",
		     copy_of(&m));
	ks_mono_view_release(&m);

	/* T first in a qualified name is the parameter */
	CHECK_INT_EQ(0, view("", "template <typename T> __global__ void "
				 "k(int *o) { o[0] = T::value + sizeof(T); }",
			     "", "k", "Traits<float>", &m, &err));
	CHECK_STR_EQ("", m.aliases);
	CHECK_STR_EQ("__global__ void k(int *o) { o[0] = "
		     "Traits<float>::value + sizeof(Traits<float>); }",
		     copy_of(&m));
	CHECK_STR_EQ("", err.buf);
	ks_mono_view_release(&m);
	ks_buf_release(&err);
}

TEST(comments_strings_and_directives_stay_as_written)
{
	static const char body[] =
		"\t// T stays, /* and B */\n"
		"\t/* T */ printf(\"T=%d B\\n\", B);\n"
		"#define TB T\n"
		"\tchar c = 'T';\n"
		"\tTB *q = (T *)0;\n"
		"}";
	struct ks_mono_view m;
	struct ks_buf err = KS_BUF_INIT;
	char *def = ks_xasprintf("template <typename T, unsigned B>\n"
				 "__global__ void k(void)\n{\n%s", body);
	int rc = view("", def, "", "k", "char, 4u", &m, &err);

	free(def);
	CHECK_INT_EQ(0, rc);
	CHECK_STR_EQ("__global__ void k(void)\n"
		     "{\n"
		     "\t// T stays, /* and B */\n"
		     "\t/* T */ printf(\"T=%d B\\n\", (4u));\n"
		     "#define TB T\n"
		     "\tchar c = 'T';\n"
		     "\tTB *q = (char *)0;\n"
		     "}",
		     copy_of(&m));
	CHECK_STR_EQ("", err.buf);
	ks_mono_view_release(&m);
	ks_buf_release(&err);
}

TEST(type_arguments_of_several_words)
{
	struct ks_mono_view m;
	struct ks_buf err = KS_BUF_INIT;
	static const char def[] =
		"template <typename T> __global__ void k(T *p) { p[0] = 0; }";

	CHECK_INT_EQ(0, view("", def, "", "k", "unsigned int", &m, &err));
	CHECK_STR_EQ("typedef unsigned int ks_tp_k_T;\n", m.aliases);
	CHECK_STR_EQ("__global__ void k(ks_tp_k_T *p) { p[0] = 0; }",
		     copy_of(&m));
	ks_mono_view_release(&m);

	CHECK_INT_EQ(0, view("", def, "", "k", "unsigned long", &m, &err));
	CHECK_STR_EQ("typedef unsigned long ks_tp_k_T;\n", m.aliases);
	ks_mono_view_release(&m);

	/* a comma inside a template argument list does not split */
	CHECK_INT_EQ(0, view("", def, "", "k", "Pair<int, float> *", &m,
			     &err));
	CHECK_STR_EQ("typedef Pair<int, float> * ks_tp_k_T;\n", m.aliases);
	CHECK_STR_EQ("__global__ void k(ks_tp_k_T *p) { p[0] = 0; }",
		     copy_of(&m));
	ks_mono_view_release(&m);

	/* an array type inside a template argument list is still named */
	CHECK_INT_EQ(0, view("", def, "", "k", "const Wrap<int [4]> *", &m,
			     &err));
	CHECK_STR_EQ("typedef const Wrap<int [4]> * ks_tp_k_T;\n", m.aliases);
	CHECK_STR_EQ("", err.buf);
	ks_mono_view_release(&m);
	ks_buf_release(&err);
}

TEST(parameters_the_header_spells_in_other_ways)
{
	struct ks_mono_view m;
	struct ks_buf err = KS_BUF_INIT;

	/* a dependent-type non-type parameter, a qualified one, a default
	 * closing with `>>`, and a blank-free header */
	CHECK_INT_EQ(0, view("", "template<class T,typename T::size N,"
				 "std::size_t M = Max<N, 4>::value,"
				 "class V = Vec<T, Vec<int>>>"
				 "__global__ void k(V *v) { v[N] = M; }",
			     "", "k", "Arr, 2", &m, &err));
	CHECK_STR_EQ("", m.aliases);
	CHECK_STR_EQ("__global__ void k(Vec<Arr, Vec<int>> *v) { "
		     "v[(2)] = (Max<(2), 4>::value); }",
		     copy_of(&m));
	CHECK_STR_EQ("", err.buf);
	ks_mono_view_release(&m);
	ks_buf_release(&err);
}

TEST(refusals_say_why_and_leave_out_zeroed)
{
	static const struct {
		const char *def, *args, *why;
	} refusals[] = {
		{ "template <> __global__ void k<float>(float *p) {}",
		  "float", "'template <>' is an explicit specialization" },
		{ "template <typename... Ts> __global__ void k(Ts... a) {}",
		  "int", "template parameter 1 (typename... Ts) is a "
			 "parameter pack" },
		{ "template <typename T, int ...N> __global__ void k(T *p) {}",
		  "int, 1", "template parameter 2 (int ...N) is a parameter "
			    "pack" },
		{ "template <template <typename> class C> __global__ "
		  "void k() {}",
		  "Vec", "is a template template parameter" },
		{ "template <typename> __global__ void k() {}",
		  "int", "template parameter 1 (typename) is unnamed" },
		{ "template <typename T, typename = void> __global__ "
		  "void k(T *p) {}",
		  "int", "template parameter 2 (typename = void) is unnamed" },
		{ "template <int> __global__ void k() {}",
		  "1", "(int) is unnamed" },
		{ "template <unsigned long> __global__ void k() {}",
		  "1", "(unsigned long) is unnamed" },
		{ "template <size_t> __global__ void k() {}",
		  "1", "(size_t) is unnamed" },
		{ "template <const Foo> __global__ void k() {}",
		  "1", "(const Foo) is unnamed" },
		{ "template <typename T::type> __global__ void k() {}",
		  "1", "(typename T::type) is unnamed" },
		{ "__global__ void k(float *p) {}",
		  "float", "does not start with 'template <'" },
		{ "template void k<float>(float *p) {}",
		  "float", "does not start with 'template <'" },
		{ "template <typename T __global__ void k(T *p) {}",
		  "float", "template header does not close" },
		{ "template <typename T> __global__ void k(T *p);",
		  "float", "no body ('{') before the end of its definition" },
		{ "template <typename T> __global__ void k(T *p) {} ",
		  "float", "does not end just after its body's closing brace" },
		{ "template <typename T> __global__ void k(T *p) { p[0] = 0;",
		  "float", "does not end just after its body's closing brace" },
		{ "template <typename T> requires true __global__ "
		  "void k(T *p) {}",
		  "float", "requires-clause" },
		{ "template <typename T> __global__ void k(T *p) {}",
		  "(anonymous struct at t.cu:1:9)", "cannot be spelled in "
						    "source" },
		{ "template <typename T> __global__ void k(T *p) {}",
		  "(unnamed struct at t.cu:1:9)", "cannot be spelled" },
		{ "template <typename T> __global__ void k(T *p) {}",
		  "(lambda at t.cu:3:12)", "cannot be spelled" },
		{ "template <typename T> __global__ void k(T *p) {}",
		  "Wrap<lambda at t.cu:3:12>", "cannot be spelled" },
		{ "template <typename T> __global__ void k(T *p) {}",
		  "float, 3", "the instance gives 2 arguments, the template "
			      "has 1 parameter" },
		{ "template <typename T, int B> __global__ void k(T *p) {}",
		  "float", "the instance gives 1 argument, the template has 2 "
			   "parameters and B has no default" },
		{ "template <typename T, int B> __global__ void k(T *p) {}",
		  "", "the instance gives 0 arguments, the template has 2 "
		      "parameters and T has no default" },
		{ "template <typename T, int B> __global__ void k(T *p) {}",
		  "float, ", "its argument 2 is empty" },
		{ "template <typename T, int B = > __global__ void k(T *p) {}",
		  "float", "template parameter 2 (int B =) has an empty "
			   "default" },
		{ "template <typename T> __global__ void k(T *p) {}",
		  "int [4]", "the type argument 'int [4]' of T cannot be "
			     "named by a typedef" },
		{ "template <typename T> __global__ void k(T *p) {}",
		  "void (*)(int)", "cannot be named by a typedef" },
	};
	struct ks_buf err = KS_BUF_INIT;
	struct ks_mono_view m;
	size_t i;

	for (i = 0; i < KS_ARRAY_SIZE(refusals); i++) {
		int rc;

		ks_buf_reset(&err);
		memset(&m, 0x5a, sizeof(m));
		rc = view("int before;\n", refusals[i].def, "\n", "k",
			  refusals[i].args, &m, &err);
		if (rc != -1 || !strstr(err.buf, refusals[i].why) ||
		    !strstr(err.buf, "cannot make a plain copy of k<")) {
			TEST_FAIL_("case %zu (%s): rc %d, \"%s\"", i,
				   refusals[i].why, rc, err.buf);
			break;
		}
		if (m.text || m.aliases || m.len || m.def_begin || m.def_end) {
			TEST_FAIL_("case %zu: out is not zeroed", i);
			break;
		}
	}

	/* extents outside the text, and a name that is not one */
	ks_buf_reset(&err);
	memset(&m, 0x5a, sizeof(m));
	CHECK_INT_EQ(-1, ks_mono_instance("abc", 3, 0, 4, "k", "int", &m,
					  &err));
	CHECK_STR_EQ("cannot make a plain copy of k<int>: its definition "
		     "[0, 4) is not in the text (3 bytes)",
		     err.buf);
	CHECK_NULL(m.text);
	CHECK_NULL(m.aliases);
	ks_buf_reset(&err);
	CHECK_INT_EQ(-1, ks_mono_instance("abc", 3, 0, 3, "ns::k", "int", &m,
					  &err));
	CHECK(strstr(err.buf, "'ns::k' is not an identifier"));
	ks_mono_view_release(&m);
	ks_buf_release(&err);
}

void
ks_suite_mono(void)
{
	RUN(a_type_argument_of_several_words_becomes_an_alias);
	RUN(a_type_argument_of_one_name_is_written_in_place);
	RUN(a_non_type_parameter_becomes_its_argument);
	RUN(missing_arguments_take_their_defaults);
	RUN(members_and_qualified_names_are_not_the_parameter);
	RUN(comments_strings_and_directives_stay_as_written);
	RUN(type_arguments_of_several_words);
	RUN(parameters_the_header_spells_in_other_ways);
	RUN(refusals_say_why_and_leave_out_zeroed);
}
