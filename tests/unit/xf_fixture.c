/* xf_fixture.h: the parsed files of the transform test suites. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/analysis/libclang.h"
#include "../../src/core/fs.h"
#include "../../src/core/strv.h"
#include "../../src/core/util.h"
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
