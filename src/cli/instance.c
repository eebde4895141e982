/*
 * instance.c: one instance of a template kernel as the builtin transforms
 * read it. The transforms know plain kernels only; the instance view
 * (cache/mono.h) adds a plain copy of the kernel for the instance to the
 * TU's text. That text is written to a file of its own (the source's
 * name, in a fresh folder under KS_DIR/tmp) and analyzed as the build
 * analyzes its source, the source's folder searched first for quoted
 * includes; the copy's facts are then the instance's. Its variants are
 * put into the original TU as the instance's specialization
 * (cache/rewrite.h, a job with `args`), with the aliases of the
 * template's type parameters first among their helpers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/inventory.h"
#include "../cache/expand.h"
#include "../cache/mono.h"
#include "../cache/rewrite.h"
#include "../core/buf.h"
#include "../core/conf.h"
#include "../core/fs.h"
#include "../core/log.h"
#include "../core/util.h"
#include "ks.h"

void
ks_inst_view_release(struct ks_inst_view *v)
{
	ks_inventory_release(&v->inv);
	ks_mono_view_release(&v->mono);
	free(v->args);
	memset(v, 0, sizeof(*v));
}

/* The instance of template `k` that `name` (mangled or displayed) names;
 * NULL when it names none and `k` has several. */
static const struct ks_instance *
instance_of(const struct ks_kernel *k, const char *name)
{
	size_t i;

	for (i = 0; name && i < k->ninst; i++)
		if (!strcmp(k->inst[i].mangled, name) ||
		    !strcmp(k->inst[i].display, name))
			return &k->inst[i];
	return k->ninst == 1 ? &k->inst[0] : NULL;
}

/*
 * `text`, another text of the TU, written under the source's name in a
 * fresh folder KS_DIR/tmp/PREFIX.XXXXXX (removed after) and analyzed as
 * the build analyzes its source.
 */
static int
analyze_text(const struct ks_inst_view_in *in, const char *prefix, const char *text,
	     size_t len, struct ks_inventory *inv, struct ks_buf *err)
{
	char *tmp = ks_fs_join(in->conf->dir, "tmp"), *dir = NULL, *path = NULL;
	char *used = NULL, *pat = NULL;
	const char *base = strrchr(in->source, '/');
	int rc = -1;

	if (ks_fs_mkdirs(tmp, err))
		goto out;
	pat = ks_xasprintf("%s.XXXXXX", prefix);
	dir = ks_fs_join(tmp, pat);
	if (!mkdtemp(dir)) {
		ks_error_errno(err, "cannot create a folder under %s", tmp);
		free(dir);
		dir = NULL;
		goto out;
	}
	path = ks_fs_join(dir, base ? base + 1 : in->source);
	rc = ks_fs_write_atomic(path, text, len, err) ||
	     ks_analyze_inventory_as(in->record, in->file, in->nvcc_argv, in->nvcc_argc,
				     in->arch, path, in->conf, inv, &used, err) ? -1 : 0;
out:
	if (dir)
		ks_fs_remove_tree(dir, NULL);
	free(tmp);
	free(pat);
	free(dir);
	free(path);
	free(used);
	return rc;
}

int
ks_inst_view_make(const struct ks_inst_view_in *in, struct ks_inst_view *v,
		  struct ks_buf *err)
{
	const struct ks_kernel *k = in->k;
	const struct ks_instance *inst = instance_of(k, in->name);
	size_t i;
	int rc = -1;

	memset(v, 0, sizeof(*v));
	if (!inst) {
		ks_error(err, "%s is a template with %zu instances here: name one "
			      "(by its mangled name, or as %s)", k->name, k->ninst,
			 k->ninst ? k->inst[0].display : "name<args>");
		return -1;
	}
	v->args = ks_inventory_instance_args(inst);
	v->mangled = inst->mangled;
	if (ks_mono_instance(in->text, in->len, k->extent.begin, k->extent.end,
			     k->name, v->args, &v->mono, err))
		goto out;
	if (analyze_text(in, "inst", v->mono.text, v->mono.len, &v->inv, err))
		goto out;
	/* the copy: the plain kernel of that name where the view put it */
	for (i = 0; i < v->inv.nkernels && !v->k; i++) {
		const struct ks_kernel *c = &v->inv.kernels[i];

		if (!c->is_template && !strcmp(c->name, k->name) &&
		    c->extent.begin >= v->mono.def_begin &&
		    c->extent.end <= v->mono.def_end)
			v->k = c;
	}
	if (!v->k) {
		ks_error(err, "the analysis of %s's instance view has no plain "
			      "copy of it", inst->display);
		goto out;
	}
	ks_log("instance view: %s (%s), its copy at %lu-%lu", inst->display,
	       v->args, v->k->extent.begin, v->k->extent.end);
	rc = 0;
out:
	if (rc)
		ks_inst_view_release(v);
	return rc;
}

int
ks_inst_view_variant(const struct ks_inst_view *v, struct ks_buf *variant,
		     struct ks_buf *err)
{
	if (!v->mono.aliases || !*v->mono.aliases)
		return 0;
	return ks_rewrite_variant_helpers_first("of a template's instance",
						v->mono.aliases, variant, err);
}

static int
read_file(const char *path, struct ks_buf *out, void *ctx)
{
	(void)ctx;
	return ks_fs_exists(path) ? ks_fs_read(path, out, NULL) : -1;
}

static int
exists(const char *path, void *ctx)
{
	(void)ctx;
	return ks_fs_exists(path);
}

static void
rename_extent(struct ks_extent *e, const char *from, const char *to)
{
	if (e->file && !strcmp(e->file, from)) {
		free(e->file);
		e->file = ks_xstrdup(to);
	}
}

/* The parsed file's path, wherever the inventory names it, as `to`. */
static void
rename_file(struct ks_inventory *inv, const char *to)
{
	char *from = inv->source;
	size_t i;

	for (i = 0; i < inv->nkernels; i++) {
		rename_extent(&inv->kernels[i].extent, from, to);
		rename_extent(&inv->kernels[i].body, from, to);
		rename_extent(&inv->kernels[i].name_ext, from, to);
	}
	for (i = 0; i < inv->nlaunches; i++) {
		rename_extent(&inv->launches[i].extent, from, to);
		rename_extent(&inv->launches[i].callee_ext, from, to);
		rename_extent(&inv->launches[i].config, from, to);
		rename_extent(&inv->launches[i].args, from, to);
	}
	inv->source = ks_xstrdup(to);
	free(from);
}

int
ks_header_view_apply(const struct ks_inst_view_in *in, const char *kernel,
		     struct ks_inventory *inv, struct ks_buf *text,
		     const struct ks_kernel **k, struct ks_buf *err)
{
	struct ks_buf h = KS_BUF_INIT, view = KS_BUF_INIT, e = KS_BUF_INIT,
		      next = KS_BUF_INIT;
	struct ks_inventory vinv;
	struct ks_rewrite_kernel rk;
	struct ks_expand x;
	char *srcdir = ks_xstrdup(in->source), *slash = strrchr(srcdir, '/');
	size_t level;
	int rc = -1, found = -2;

	memset(&vinv, 0, sizeof(vinv));
	memset(&x, 0, sizeof(x));
	if (slash)
		*slash = '\0';
	view.max = text->max;
	ks_buf_add(&view, in->text, in->len);
	/* a level at a time: a header reached through others is brought
	 * in where its includer's text now is */
	for (level = 0; found == -2 && level < KS_EXPAND_DEPTH; level++) {
		h.max = 64 << 20;
		next.max = text->max;
		ks_expand_release(&x);
		if (ks_expand_find(view.buf, view.len, in->source, slash ? srcdir : ".",
				   in->k->name, read_file, NULL, &x, &h, &e)) {
			ks_error(err, "%s is defined in a header (%s): %s", in->k->name,
				 in->k->extent.file ? in->k->extent.file : "?", e.buf);
			goto out;
		}
		ks_buf_reset(&next);
		ks_expand_text(view.buf, view.len, in->source, &x, NULL, h.buf, h.len, exists,
			       NULL, NULL, NULL, &next);
		ks_log("header view: %s from %s brought into %s", in->k->name, x.header,
		       in->source);
		ks_buf_release(&view);
		view = next;
		next = (struct ks_buf)KS_BUF_INIT;
		memset(&rk, 0, sizeof(rk));
		found = ks_rewrite_scan(view.buf, view.len, in->k->name, &rk, NULL);
		if (!found)
			ks_rewrite_kernel_release(&rk);
	}
	if (analyze_text(in, "hdr", view.buf, view.len, &vinv, err))
		goto out;
	/* the source's path, as every other text of this TU names it */
	rename_file(&vinv, in->source);
	ks_inventory_release(inv);
	*inv = vinv;
	memset(&vinv, 0, sizeof(vinv));
	ks_buf_release(text);
	*text = view;
	view = (struct ks_buf)KS_BUF_INIT;
	*k = ks_inventory_find(inv, kernel);
	if (!*k || !(*k)->in_main_file) {
		ks_error(err, "no kernel %s in the text of %s with its header brought in",
			 kernel, inv->source);
		goto out;
	}
	rc = 0;
out:
	ks_inventory_release(&vinv);
	ks_expand_release(&x);
	ks_buf_release(&h);
	ks_buf_release(&view);
	ks_buf_release(&next);
	ks_buf_release(&e);
	free(srcdir);
	return rc;
}
