/*
 * The inventory of a translation unit: build, query, print.
 */
#include "inventory.h"

#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/grow.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "../cache/key.h"
#include "closure.h"
#include "libclang.h"
#include "tu.h"

static void
extent_release(struct ks_extent *e)
{
	free(e->file);
	e->file = NULL;
}

void
ks_inventory_release(struct ks_inventory *inv)
{
	size_t i, j;

	for (i = 0; i < inv->nkernels; i++) {
		struct ks_kernel *k = &inv->kernels[i];

		free(k->name);
		free(k->qualified);
		free(k->display);
		free(k->mangled);
		for (j = 0; j < k->ninst; j++) {
			free(k->inst[j].mangled);
			free(k->inst[j].display);
		}
		free(k->inst);
		for (j = 0; j < k->nparams; j++) {
			free(k->params[j].name);
			free(k->params[j].type);
		}
		free(k->params);
		extent_release(&k->extent);
		extent_release(&k->body);
		extent_release(&k->name_ext);
		free(k->launch_bounds);
		ks_facts_release(&k->facts);
		ks_features_release(&k->features);
		free(k->closure);
		for (j = 0; j < k->nkeys; j++) {
			free(k->keys[j].mangled);
			free(k->keys[j].arch);
		}
		free(k->keys);
	}
	free(inv->kernels);
	for (i = 0; i < inv->nlaunches; i++) {
		struct ks_launch *l = &inv->launches[i];

		free(l->callee);
		free(l->mangled);
		free(l->grid);
		free(l->block);
		free(l->shmem);
		free(l->stream);
		free(l->caller);
		for (j = 0; j < l->nargs; j++)
			free(l->argtext[j]);
		free(l->argtext);
		for (j = 0; j < l->ninst; j++)
			free(l->inst[j]);
		free(l->inst);
		free(l->macro);
		free(l->not_rewritable);
		extent_release(&l->extent);
		extent_release(&l->callee_ext);
		extent_release(&l->config);
		extent_release(&l->args);
	}
	free(inv->launches);
	ks_host_release(&inv->host);
	if (inv->files.v)
		ks_strv_release(&inv->files);
	ks_strv_release(&inv->host_errors);
	free(inv->source);
	free(inv->arch);
	free(inv->clang);
	free(inv->manifest);
	memset(inv, 0, sizeof(*inv));
}

int
ks_inventory_build(const struct ks_tu_opts *o, struct ks_inventory *inv,
		   struct ks_buf *err)
{
	struct ks_tu t;
	char archbuf[32];
	const char *arch;

	memset(inv, 0, sizeof(*inv));
	ks_strv_init(&inv->files);
	if (ks_tu_parse(o, &t, err)) {
		ks_tu_watch_stop();
		return -1;
	}
	arch = ks_tu_clang_arch(o->arch ? o->arch : "sm_75", archbuf,
				sizeof(archbuf));
	inv->source = ks_xstrdup(t.source);
	inv->arch = ks_xstrdup(arch ? arch : "sm_75");
	inv->clang = ks_xstrdup(ks_libclang_version());
	inv->prelude = t.prelude;
	t.max_steps = o->max_steps ? o->max_steps : KS_ANALYSIS_MAX_STEPS;
	if (ks_walk(&t, inv)) {
		/* a partial walk would be a wrong inventory: none at all */
		if (t.timed_out) {
			char why[1024];

			ks_tu_watch_reason(t.source, o->timeout_ms, why,
					   sizeof(why));
			ks_error(err, "%s", why);
		} else {
			ks_error(err, "%s: analysis stopped after %lu steps",
				 t.source, t.max_steps);
		}
		ks_tu_watch_stop();
		ks_inventory_release(inv);
		memset(inv, 0, sizeof(*inv));
		ks_strv_init(&inv->files);
		ks_tu_release(&t);
		return -1;
	}
	ks_tu_watch_stop();
	inv->parse_seconds = t.seconds;
	inv->used_pch = t.used_pch;
	inv->pch_past_code = t.late != NULL;
	ks_strv_pushv(&inv->host_errors, (const char *const *)t.host_errors.v,
		      t.host_errors.n);
	ks_tu_release(&t);
	return 0;
}

void
ks_inventory_set_keys(struct ks_inventory *inv, const struct ks_strv *archs,
		      const struct ks_strv *devflags, const char *nvcc_version)
{
	size_t i, j, a;

	for (i = 0; i < inv->nkernels; i++) {
		struct ks_kernel *k = &inv->kernels[i];
		size_t nm = k->is_template ? k->ninst : 1;

		for (j = 0; j < k->nkeys; j++) {
			free(k->keys[j].mangled);
			free(k->keys[j].arch);
		}
		free(k->keys);
		k->keys = NULL;
		k->nkeys = 0;
		if (!nm || !archs || !archs->n)
			continue;
		k->keys = ks_xcalloc(nm * archs->n, sizeof(*k->keys));
		for (j = 0; j < nm; j++) {
			const char *m = k->is_template ? k->inst[j].mangled
						       : k->mangled;

			for (a = 0; a < archs->n; a++) {
				struct ks_kernel_key *kk = &k->keys[k->nkeys++];

				kk->mangled = ks_xstrdup(m);
				kk->arch = ks_xstrdup(archs->v[a]);
				ks_key_kernel(m, k->closure, archs->v[a],
					       devflags,
					       nvcc_version ? nvcc_version : "",
					       kk->key);
			}
		}
	}
}

const struct ks_kernel *
ks_inventory_find(const struct ks_inventory *inv, const char *name)
{
	size_t i, j;

	for (i = 0; name && i < inv->nkernels; i++) {
		const struct ks_kernel *k = &inv->kernels[i];

		if (!strcmp(k->name, name) || !strcmp(k->qualified, name) ||
		    (k->mangled && !strcmp(k->mangled, name)))
			return k;
		for (j = 0; j < k->ninst; j++)
			if (!strcmp(k->inst[j].mangled, name) ||
			    !strcmp(k->inst[j].display, name))
				return k;
	}
	return NULL;
}

/* ---- JSON ---------------------------------------------------------------- */

static void
json_extent(struct ks_buf *out, const struct ks_extent *e)
{
	ks_buf_adds(out, "{\"file\": ");
	ks_buf_add_json_str(out, e->file ? e->file : "");
	ks_buf_addf(
		out,
		", \"begin\": %lu, \"end\": %lu, \"line\": %u, \"col\": %u, "
		"\"end_line\": %u, \"end_col\": %u}",
		e->begin, e->end, e->line, e->col, e->end_line, e->end_col);
}

static void
json_kernel(struct ks_buf *out, const struct ks_kernel *k)
{
	size_t i;
	int f, first;

	ks_buf_adds(out, "{\"name\": ");
	ks_buf_add_json_str(out, k->name);
	ks_buf_adds(out, ", \"qualified\": ");
	ks_buf_add_json_str(out, k->qualified);
	ks_buf_adds(out, ", \"display\": ");
	ks_buf_add_json_str(out, k->display);
	ks_buf_adds(out, ", \"mangled\": ");
	ks_buf_add_json_str_or_null(out, k->mangled);
	ks_buf_addf(out, ", \"template\": %s, \"instances\": [",
		    k->is_template ? "true" : "false");
	for (i = 0; i < k->ninst; i++) {
		ks_buf_adds(out, i ? ", {\"mangled\": " : "{\"mangled\": ");
		ks_buf_add_json_str(out, k->inst[i].mangled);
		ks_buf_adds(out, ", \"display\": ");
		ks_buf_add_json_str(out, k->inst[i].display);
		ks_buf_addch(out, '}');
	}
	ks_buf_adds(out, "], \"params\": [");
	for (i = 0; i < k->nparams; i++) {
		const struct ks_param *p = &k->params[i];

		ks_buf_adds(out, i ? ", {\"name\": " : "{\"name\": ");
		ks_buf_add_json_str(out, p->name);
		ks_buf_adds(out, ", \"type\": ");
		ks_buf_add_json_str(out, p->type);
		ks_buf_addf(
			out,
			", \"size\": %lld, \"align\": %lld, \"pointer\": %s, "
			"\"pointee_const\": %s, \"restrict\": %s}",
			p->size, p->align, p->is_pointer ? "true" : "false",
			p->pointee_const ? "true" : "false",
			p->is_restrict ? "true" : "false");
	}
	ks_buf_adds(out, "], \"extent\": ");
	json_extent(out, &k->extent);
	ks_buf_adds(out, ", \"body\": ");
	json_extent(out, &k->body);
	ks_buf_adds(out, ", \"name_extent\": ");
	json_extent(out, &k->name_ext);
	ks_buf_adds(out, ", \"launch_bounds\": ");
	if (k->launch_bounds) {
		ks_buf_adds(out, "{\"text\": ");
		ks_buf_add_json_str(out, k->launch_bounds);
		ks_buf_adds(out, ", \"values\": [");
		for (f = 0; f < k->nlb; f++)
			if (k->lb[f] >= 0)
				ks_buf_addf(out, "%s%lld", f ? ", " : "",
					    k->lb[f]);
			else
				ks_buf_addf(out, "%snull", f ? ", " : "");
		ks_buf_adds(out, "]}");
	} else {
		ks_buf_adds(out, "null");
	}
	ks_buf_addf(out, ", \"in_main_file\": %s, \"features\": {",
		    k->in_main_file ? "true" : "false");
	for (f = 0; f < KS_F_COUNT; f++)
		ks_buf_addf(out, "%s\"%s\": %d", f ? ", " : "",
			    ks_feature_name(f), k->features.v[f]);
	ks_buf_adds(out, "}, \"why\": {");
	for (f = 0, first = 1; f < KS_F_COUNT; f++) {
		if (!k->features.why[f])
			continue;
		ks_buf_addf(out, "%s\"%s\": ", first ? "" : ", ",
			    ks_feature_name(f));
		ks_buf_add_json_str(out, k->features.why[f]);
		first = 0;
	}
	ks_buf_adds(out, "}, \"details\": ");
	ks_features_details_json(&k->facts, out);
	ks_buf_addf(out, ", \"closure_bytes\": %zu, \"keys\": [",
		    k->closure ? strlen(k->closure) : 0);
	for (i = 0; i < k->nkeys; i++) {
		ks_buf_adds(out, i ? ", {\"mangled\": " : "{\"mangled\": ");
		ks_buf_add_json_str(out, k->keys[i].mangled);
		ks_buf_adds(out, ", \"arch\": ");
		ks_buf_add_json_str(out, k->keys[i].arch);
		ks_buf_addf(out, ", \"key\": \"%s\"%s}", k->keys[i].key,
			    k->keys[i].reached ? ", \"reached\": true" : "");
	}
	ks_buf_adds(out, "]}");
}

void
ks_inventory_format_json(const struct ks_inventory *inv, struct ks_buf *out)
{
	size_t i, j;

	ks_buf_addf(out, "{\"format\": %d, \"source\": ", KS_INVENTORY_FORMAT);
	ks_buf_add_json_str(out, inv->source ? inv->source : "");
	ks_buf_adds(out, ", \"arch\": ");
	ks_buf_add_json_str(out, inv->arch ? inv->arch : "");
	ks_buf_adds(out, ", \"clang\": ");
	ks_buf_add_json_str(out, inv->clang ? inv->clang : "");
	ks_buf_addf(
		out,
		", \"prelude\": %s, \"parse_seconds\": %.3f, \"kernels\": [",
		inv->prelude ? "true" : "false", inv->parse_seconds);
	for (i = 0; i < inv->nkernels; i++) {
		ks_buf_adds(out, i ? ",\n  " : "\n  ");
		json_kernel(out, &inv->kernels[i]);
	}
	ks_buf_adds(out, "],\n \"launches\": [");
	for (i = 0; i < inv->nlaunches; i++) {
		const struct ks_launch *l = &inv->launches[i];

		ks_buf_adds(out,
			    i ? ",\n  {\"kernel\": " : "\n  {\"kernel\": ");
		ks_buf_add_json_str_or_null(out, l->kernel >= 0
					      ? inv->kernels[l->kernel].name
					      : NULL);
		ks_buf_addf(out,
			    ", \"kernel_index\": %d, \"callee\": ", l->kernel);
		ks_buf_add_json_str(out, l->callee);
		ks_buf_adds(out, ", \"mangled\": ");
		ks_buf_add_json_str_or_null(out, l->mangled);
		ks_buf_adds(out, ", \"grid\": ");
		ks_buf_add_json_str_or_null(out, l->grid);
		ks_buf_adds(out, ", \"block\": ");
		ks_buf_add_json_str_or_null(out, l->block);
		ks_buf_adds(out, ", \"shmem\": ");
		ks_buf_add_json_str_or_null(out, l->shmem);
		ks_buf_adds(out, ", \"stream\": ");
		ks_buf_add_json_str_or_null(out, l->stream);
		ks_buf_adds(out, ", \"caller\": ");
		ks_buf_add_json_str(out, l->caller);
		ks_buf_addf(
			out,
			", \"in_loop\": %s, \"device_side\": %s, \"args\": [",
			l->in_loop ? "true" : "false",
			l->device_side ? "true" : "false");
		for (j = 0; j < l->nargs; j++) {
			if (j)
				ks_buf_adds(out, ", ");
			ks_buf_add_json_str(out,
					    l->argtext[j] ? l->argtext[j] : "");
		}
		ks_buf_adds(out, "], \"extent\": ");
		json_extent(out, &l->extent);
		ks_buf_adds(out, ", \"callee_extent\": ");
		json_extent(out, &l->callee_ext);
		ks_buf_adds(out, ", \"config\": ");
		json_extent(out, &l->config);
		ks_buf_adds(out, ", \"args_extent\": ");
		json_extent(out, &l->args);
		ks_buf_adds(out, ", \"instances\": [");
		for (j = 0; j < l->ninst; j++) {
			if (j)
				ks_buf_adds(out, ", ");
			ks_buf_add_json_str(out, l->inst[j]);
		}
		ks_buf_adds(out, "], \"macro\": ");
		ks_buf_add_json_str_or_null(out, l->macro);
		ks_buf_adds(out, ", \"not_rewritable\": ");
		ks_buf_add_json_str_or_null(out, l->not_rewritable);
		ks_buf_addch(out, '}');
	}
	ks_buf_adds(out, "],\n \"manifest\": ");
	ks_buf_add_json_str_or_null(out, inv->manifest);
	ks_buf_adds(out, ",\n \"files\": [");
	for (i = 0; i < inv->files.n; i++) {
		if (i)
			ks_buf_adds(out, ", ");
		ks_buf_add_json_str(out, inv->files.v[i]);
	}
	ks_buf_adds(out, "],\n \"host_errors\": [");
	for (i = 0; i < inv->host_errors.n; i++) {
		if (i)
			ks_buf_adds(out, ", ");
		ks_buf_add_json_str(out, inv->host_errors.v[i]);
	}
	ks_buf_adds(out, "]}\n");
}

/* ---- text ---------------------------------------------------------------- */

/* The GPUs the build reaches without naming them, on one line: their keys
 * are in the JSON. */
static void
reached_line(const struct ks_kernel *k, struct ks_buf *out)
{
	size_t j, n = 0;

	/* the first instance's: every instance has the same archs */
	for (j = 0; j < k->nkeys && !strcmp(k->keys[j].mangled, k->keys[0].mangled); j++)
		if (k->keys[j].reached)
			ks_buf_addf(out, "%s %s", n++ ? "" : "    reached    ",
				    k->keys[j].arch);
	if (n)
		ks_buf_adds(out, "  (keys too: the build runs there through its PTX "
				 "or an older SASS)\n");
}

void
ks_inventory_format_text(const struct ks_inventory *inv, struct ks_buf *out)
{
	size_t i, j;
	int f;

	ks_buf_addf(out, "%s  (%s, %s%s, %.2f s)\n", inv->source, inv->arch,
		    inv->clang,
		    inv->prelude ? ", no toolkit: minimal prelude" : "",
		    inv->parse_seconds);
	ks_buf_addf(out, "\n%zu kernel%s\n", inv->nkernels,
		    inv->nkernels == 1 ? "" : "s");
	for (i = 0; i < inv->nkernels; i++) {
		const struct ks_kernel *k = &inv->kernels[i];

		ks_buf_addf(out, "  %s  %s:%u-%u\n", k->qualified,
			    ks_basename(k->extent.file), k->extent.line,
			    k->extent.end_line);
		if (k->mangled)
			ks_buf_addf(out, "    mangled     %s\n", k->mangled);
		for (j = 0; j < k->ninst; j++)
			ks_buf_addf(out, "    instance    %s  %s\n",
				    k->inst[j].display, k->inst[j].mangled);
		if (k->is_template && !k->ninst)
			ks_buf_adds(
				out,
				"    instance    (none used in this file)\n");
		ks_buf_adds(out, "    params     ");
		for (j = 0; j < k->nparams; j++) {
			const struct ks_param *p = &k->params[j];

			ks_buf_addf(out, "%s %s %s", j ? "," : "", p->type,
				    p->name);
			if (p->size > 0)
				ks_buf_addf(out, " (%lld B)", p->size);
		}
		ks_buf_addch(out, '\n');
		if (k->launch_bounds)
			ks_buf_addf(out,
				    "    bounds      __launch_bounds__(%s)\n",
				    k->launch_bounds);
		ks_buf_addf(out, "    structure   S%d",
			    k->features.v[KS_F_KERNEL_STRUCTURE]);
		if (k->features.why[KS_F_KERNEL_STRUCTURE])
			ks_buf_addf(out, " (%s)",
				    k->features.why[KS_F_KERNEL_STRUCTURE] + 4);
		ks_buf_adds(out, "\n    features   ");
		for (f = 0; f < KS_F_COUNT; f++) {
			if (f == KS_F_KERNEL_STRUCTURE || !k->features.v[f])
				continue;
			if (k->features.v[f] == 1 && f < KS_F_ATOMICS)
				ks_buf_addf(out, " %s", ks_feature_name(f));
			else
				ks_buf_addf(out, " %s=%d", ks_feature_name(f),
					    k->features.v[f]);
		}
		ks_buf_addch(out, '\n');
		for (j = 0; j < k->nkeys; j++)
			if (!k->keys[j].reached)
				ks_buf_addf(out, "    key         %s %s%s%s\n",
					    k->keys[j].arch, k->keys[j].key,
					    k->is_template ? "  " : "",
					    k->is_template ? k->keys[j].mangled : "");
		reached_line(k, out);
	}
	if (inv->manifest)
		ks_buf_addf(out, "\nmanifest %s\n", inv->manifest);
	ks_buf_addf(out, "\n%zu launch%s\n", inv->nlaunches,
		    inv->nlaunches == 1 ? "" : "es");
	for (i = 0; i < inv->nlaunches; i++) {
		const struct ks_launch *l = &inv->launches[i];

		ks_buf_addf(out, "  %s:%u  %s<<<%s, %s",
			    ks_basename(l->extent.file), l->extent.line,
			    l->callee, l->grid ? l->grid : "?",
			    l->block ? l->block : "?");
		if (l->shmem)
			ks_buf_addf(out, ", %s", l->shmem);
		if (l->stream)
			ks_buf_addf(out, ", %s", l->stream);
		ks_buf_addf(out, ">>>  in %s%s%s\n", l->caller,
			    l->in_loop ? " (in a loop)" : "",
			    l->kernel < 0 ? " (kernel not defined here)" : "");
		for (j = 0; j < l->ninst; j++)
			ks_buf_addf(out, "    launches    %s\n", l->inst[j]);
		if (l->not_rewritable)
			ks_buf_addf(out, "    %s\n", l->not_rewritable);
	}
	if (inv->host_errors.n)
		ks_buf_addf(out, "\n%zu host line%s not understood (nvcc's "
			    "dialect; no kernel or launch depends on %s)\n",
			    inv->host_errors.n,
			    inv->host_errors.n == 1 ? "" : "s",
			    inv->host_errors.n == 1 ? "it" : "them");
	for (i = 0; i < inv->host_errors.n; i++)
		ks_buf_addf(out, "  %s\n", inv->host_errors.v[i]);
}

/* The rewriter's view of a kernel (cache/rewrite.h). */

int
ks_rewrite_kernel_from_inventory(const struct ks_inventory *inv,
				 const struct ks_kernel *k,
				 struct ks_rewrite_kernel *out,
				 struct ks_buf *err)
{
	int index = (int)(k - inv->kernels);
	size_t i, j;

	memset(out, 0, sizeof(*out));
	if (!k->extent.file || strcmp(k->extent.file, inv->source))
		return ks_error(err, "cannot rewrite kernel '%s': it is defined in "
				"'%s', not in the translation unit's own file",
				k->name, k->extent.file ? k->extent.file : "?");
	out->name = ks_xstrdup(k->name);
	out->def_begin = k->extent.begin;
	out->def_end = k->extent.end;
	out->line = k->extent.line;
	for (i = 0; i < inv->nlaunches; i++) {
		const struct ks_launch *l = &inv->launches[i];
		struct ks_rewrite_launch *r;

		if (l->kernel != index)
			continue;
		if (!l->extent.file || strcmp(l->extent.file, inv->source)) {
			out->foreign_launches++;
			continue;
		}
		out->launches = KS_GROW(out->launches, out->nlaunches, NULL);
		r = &out->launches[out->nlaunches++];
		memset(r, 0, sizeof(*r));
		r->begin = l->extent.begin;
		r->end = l->extent.end;
		r->grid = ks_xstrdup(l->grid ? l->grid : "");
		r->block = ks_xstrdup(l->block ? l->block : "");
		r->shmem = l->shmem ? ks_xstrdup(l->shmem) : NULL;
		r->stream = l->stream ? ks_xstrdup(l->stream) : NULL;
		r->device_side = l->device_side;
		r->macro = l->macro ? ks_xstrdup(l->macro) : NULL;
		r->args = ks_xcalloc(l->nargs ? l->nargs : 1, sizeof(*r->args));
		for (j = 0; j < l->nargs; j++)
			r->args[j] = ks_xstrdup(l->argtext[j]);
		r->nargs = l->nargs;
	}
	return 0;
}

char *
ks_inventory_instance_args(const struct ks_instance *in)
{
	const char *lt = in->display ? strchr(in->display, '<') : NULL;
	size_t n = lt ? strlen(lt + 1) : 0;

	if (!n || lt[n] != '>')
		return ks_xstrdup("");
	return ks_xstrndup(lt + 1, n - 1);
}
