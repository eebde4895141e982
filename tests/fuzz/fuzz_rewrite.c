/* The user's source as ks-nvcc reads it to substitute: the lexical scan
 * of kernel `k` (ks_rewrite_scan), the rewrite of what it found with a
 * variant that has helpers and a launcher (plain, or one instance of a
 * template), the instance view (ks_mono_instance), and the same text as
 * the helpers of a second instance's variant (the names the rewriter
 * reads and renames), and as a header brought into a TU (cache/expand.h)
 * and that TU rewritten. Whatever the text: no crash; a refusal says why;
 * a rewrite holds the user's text. */
#include "fuzz.h"

#include "../../src/cache/expand.h"
#include "../../src/cache/mono.h"
#include "../../src/cache/rewrite.h"
#include "../../src/core/buf.h"

static const char variant_text[] =
	"// ks-nvcc: helpers\n"
	"typedef float ks_tp_k_T;\n"
	"__global__ void ks_k_tail(float *p) { p[0] = 0; }\n"
	"// ks-nvcc: definition\n"
	"__global__ void k(float *p, int n) { if (n) p[0] = 1; }\n"
	"// ks-nvcc: launcher\n"
	"static void ks_launch_k(dim3 g, dim3 b, size_t m, cudaStream_t s,\n"
	"\t\tfloat *p, int n) { k<<<g, b, m, s>>>(p, n); }\n";

static int
fuzz_exists(const char *path, void *ctx)
{
	(void)ctx;
	return path[strlen(path) - 1] == 'h';	/* "x.h" exists, others not */
}

/* The text as a header that a TU includes: brought in, then rewritten. */
static void
as_header(const char *text, size_t len, const struct ks_rewrite_variant *v)
{
	static const char tu[] = "#include <cstdio>\n#include \"k.cuh\"\n"
				 "void go(float *p) { k<<<1, 1>>>(p, 1); }\n";
	struct ks_buf out = KS_BUF_INIT, rw = KS_BUF_INIT, err = KS_BUF_INIT;
	struct ks_expand x = { 18, 35, 2, (char *)"/src/k.cuh", (char *)"k.cuh" };
	struct ks_rewrite_kernel k;

	ks_expand_text(tu, sizeof(tu) - 1, "app.cu", &x, "src/k.cuh", text, len,
		       fuzz_exists, NULL, NULL, NULL, &out);
	fuzz_check(out.len >= sizeof(tu) - 1 - (x.end - x.begin));
	if (ks_rewrite_scan(out.buf, out.len, "k", &k, &err) == 0) {
		struct ks_rewrite_job job = { &k, v, NULL };

		if (ks_rewrite(out.buf, out.len, "app.cu", &job, 1, &rw, &err))
			fuzz_check(err.len > 0 && rw.len == 0);
		ks_rewrite_kernel_release(&k);
	}
	ks_buf_release(&out);
	ks_buf_release(&rw);
	ks_buf_release(&err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size), *vtext = strdup(variant_text);
	size_t len = strlen(text);
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT;
	struct ks_rewrite_kernel k;
	struct ks_rewrite_variant v;
	struct ks_mono_view m;

	if (!vtext)
		abort();
	memset(&v, 0, sizeof(v));
	fuzz_check(ks_rewrite_variant_split(vtext, &v, &err) == 0);
	v.file = "variant.cu";
	v.arch = 900;
	as_header(text, len, &v);
	if (ks_rewrite_scan(text, len, "k", &k, &err) == 0) {
		struct ks_rewrite_job job = { &k, &v, NULL };
		int rc;

		fuzz_check(k.def_begin < k.def_end && k.def_end <= len);
		/* as a plain kernel, then as an instance */
		rc = ks_rewrite(text, len, "t.cu", &job, 1, &out, &err);
		fuzz_check(rc == 0 ? out.len >= len - (k.def_end - k.def_begin)
				   : err.len > 0 && out.len == 0);
		ks_buf_reset(&out);
		ks_buf_reset(&err);
		job.args = "float";
		rc = ks_rewrite(text, len, "t.cu", &job, 1, &out, &err);
		fuzz_check(rc == 0 ? out.len >= len : err.len > 0 && out.len == 0);
		ks_buf_reset(&out);
		ks_buf_reset(&err);
		{
			/* the text as a second instance's helpers */
			struct ks_rewrite_variant v2 = v;
			struct ks_rewrite_job two[2] = { { &k, &v, "float" },
							 { &k, &v2, "double" } };

			v2.helpers.text = text;
			(void)ks_rewrite_variants_coexist(&v, &v2);
			rc = ks_rewrite(text, len, "t.cu", two, 2, &out, &err);
			fuzz_check(rc == 0 ? out.len >= len : err.len > 0 && out.len == 0);
			ks_buf_reset(&out);
			ks_buf_reset(&err);
		}
		if (ks_mono_instance(text, len, k.def_begin, k.def_end, "k",
				     "float, 4", &m, &err) == 0) {
			fuzz_check(m.def_begin < m.def_end && m.def_end <= m.len &&
				   m.len > len);
			ks_mono_view_release(&m);
		} else {
			fuzz_check(err.len > 0 && !m.text);
		}
		ks_rewrite_kernel_release(&k);
	} else {
		fuzz_check(err.len > 0);
	}
	ks_buf_release(&err);
	ks_buf_release(&out);
	free(vtext);
	free(text);
	return 0;
}
