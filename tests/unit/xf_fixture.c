/* xf_fixture.h: the parsed files of the transform test suites. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/analysis/libclang.h"
#include "../../src/cache/rewrite.h"
#include "../../src/core/fs.h"
#include "../../src/core/strv.h"
#include "../../src/core/util.h"
#include "test.h"
#include "xf_fixture.h"

int
xf_setup(struct xf_fixture *x)
{
	struct ks_buf err = KS_BUF_INIT;
	const char *tmp = getenv("TMPDIR");

	if (x->ready)
		return x->ready > 0;
	x->ready = -1;
	if (ks_libclang_load(&err)) {
		fprintf(stderr, "skip: %s parse tests: %s\n", x->what, err.buf);
		ks_buf_release(&err);
		return 0;
	}
	if (!ks_fs_exists(x->probe))
		return 0;
	snprintf(x->state, sizeof(x->state), "%s/ks-xf-%s-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp", x->what);
	if (!mkdtemp(x->state))
		return 0;
	if (ks_fs_exists("/usr/local/cuda/include/cuda_runtime.h"))
		x->toolkit = "/usr/local/cuda";
	x->ready = 1;
	return 1;
}

struct xf_file *
xf_parse(struct xf_fixture *x, const char *path)
{
	for (size_t i = 0; i < x->nfiles; i++) {
		struct xf_file *p = &x->files[i];
		struct ks_tu_opts o;
		struct ks_buf err = KS_BUF_INIT;
		struct ks_strv incs;
		int rc;

		if (strcmp(p->path, path))
			continue;
		if (p->done)
			return p->done > 0 ? p : NULL;
		p->done = -1;
		memset(&o, 0, sizeof(o));
		o.source = path;
		o.toolkit = x->toolkit;
		o.state_dir = x->state;
		o.arch = "sm_90";
		ks_strv_init(&incs);
		if (x->include) {
			ks_strv_push(&incs, x->include);
			o.includes = &incs;
		}
		rc = ks_inventory_build(&o, &p->inv, &err) ||
		     ks_fs_read(path, &p->text, &err);
		ks_strv_release(&incs);
		if (rc) {
			fprintf(stderr, "%s: %s\n", path, err.buf);
			ks_buf_release(&err);
			return NULL;
		}
		p->done = 1;
		return p;
	}
	return NULL;
}

enum ks_xf_result
xf_run(struct xf_fixture *x, const char *skill, const char *path,
       const char *kernel, const struct ks_xf_point *pt,
       struct ks_buf *variant, struct ks_buf *reason,
       const struct ks_kernel **kout)
{
	struct xf_file *p = xf_parse(x, path);
	const struct ks_transform *t = ks_xf_find(skill);
	struct ks_xf_input in;
	struct ks_xf_point def;

	if (!p || !t)
		return (enum ks_xf_result)-1;
	memset(&in, 0, sizeof(in));
	in.kernel = ks_inventory_find(&p->inv, kernel);
	if (!in.kernel)
		return (enum ks_xf_result)-1;
	in.text = p->text.buf;
	in.len = p->text.len;
	in.opts.arch = 900;
	in.opts.launches = x->launches;
	in.opts.nlaunches = x->nlaunches;
	if (kout)
		*kout = in.kernel;
	ks_xf_default_point(t, &def);
	return ks_xf_apply(t, &in, pt ? pt : &def, variant, reason);
}

void
xf_teardown(struct xf_fixture *x)
{
	struct ks_buf err = KS_BUF_INIT;

	for (size_t i = 0; i < x->nfiles; i++) {
		ks_inventory_release(&x->files[i].inv);
		ks_buf_release(&x->files[i].text);
		x->files[i].done = 0;
	}
	if (x->ready > 0)
		ks_fs_remove_tree(x->state, &err);
	ks_buf_release(&err);
	x->ready = 0;
}

void
xf_check_cases(struct xf_fixture *x, const char *skill,
	       const struct xf_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *sk = c[i].skill ? c[i].skill : skill;
		struct ks_buf v = KS_BUF_INIT, r = KS_BUF_INIT;
		enum ks_xf_result res = xf_run(x, sk, c[i].file, c[i].kernel,
					       NULL, &v, &r, NULL);
		int ok = c[i].reason ? res == KS_XF_DECLINED &&
					       strstr(r.buf, c[i].reason) &&
					       v.len == 0
				     : res == KS_XF_APPLIED && r.len == 0;

		if (!ok)
			TEST_FAIL_("%s on %s: result %d, reason '%s'", sk,
				   c[i].kernel, (int)res, r.buf);
		ks_buf_release(&v);
		ks_buf_release(&r);
		if (!ok)
			return;
	}
}

void
xf_check_rewritable(struct xf_fixture *x, const char *skill,
		    const struct xf_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *sk = c[i].skill ? c[i].skill : skill;
		struct ks_buf v1 = KS_BUF_INIT, v2 = KS_BUF_INIT, r = KS_BUF_INIT;
		struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT;
		struct ks_rewrite_variant rv;
		struct ks_rewrite_kernel rk;
		struct ks_rewrite_job job = { NULL, NULL, NULL };
		const struct ks_kernel *k = NULL;
		struct xf_file *p;
		char want[128];
		int rc;

		if (c[i].reason)
			continue;
		p = xf_parse(x, c[i].file);
		CHECK(p);
		CHECK_INT_EQ(KS_XF_APPLIED, xf_run(x, sk, c[i].file, c[i].kernel,
						   NULL, &v1, &r, &k));
		CHECK_INT_EQ(KS_XF_APPLIED, xf_run(x, sk, c[i].file, c[i].kernel,
						   NULL, &v2, &r, NULL));
		CHECK(v1.len == v2.len && !memcmp(v1.buf, v2.buf, v1.len));
		snprintf(want, sizeof(want), "static void\nks_launch_%s(",
			 c[i].kernel);
		CHECK(strstr(v1.buf, want));
		memset(&rv, 0, sizeof(rv));
		memset(&rk, 0, sizeof(rk));
		CHECK_INT_EQ(0, ks_rewrite_variant_split(v1.buf, &rv, &err));
		CHECK(rv.helpers.text && rv.launcher.text);
		CHECK(!strncmp(rv.definition.text, p->text.buf + k->extent.begin,
			       k->extent.end - k->extent.begin));
		rv.file = "variant.cu";
		rv.arch = 900;
		CHECK_INT_EQ(0, ks_rewrite_kernel_from_inventory(&p->inv, k, &rk,
								 &err));
		job.kernel = &rk;
		job.variant = &rv;
		rc = ks_rewrite(p->text.buf, p->text.len, c[i].file, &job, 1,
				&out, &err);
		if (rc)
			TEST_FAIL_("%s: %s", c[i].kernel, err.buf);
		ks_rewrite_kernel_release(&rk);
		ks_buf_release(&v1);
		ks_buf_release(&v2);
		ks_buf_release(&r);
		ks_buf_release(&out);
		ks_buf_release(&err);
		if (rc)
			return;
	}
}
