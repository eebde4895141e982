/*
 * restrict: restrict_readonly. Every pointer parameter the kernel
 * accesses gets __restrict__ (not part of the function type, so host and
 * device still agree), and every load through a pointer the kernel only
 * reads goes through the read-only data path (__ldg). That holds only
 * when no pointer the kernel writes shares memory with another one it
 * accesses: the launcher asks the driver (cuMemGetAddressRange, found
 * through cudaGetDriverEntryPointByVersion) which allocation each pointer
 * is in, and launches a copy of the original kernel when a written
 * pointer shares its allocation with another, or when it cannot tell.
 */
#include <stdlib.h>
#include <string.h>

#include "../analysis/inventory.h"
#include "../core/buf.h"
#include "../core/util.h"
#include "transform.h"
#include "xfkit.h"

#define MAX_EDITS 256

struct find_name {
	const char *name;
	unsigned long from, to, at;
};

static int
last_name(const char *t, const struct ks_xfk_tok *tok, void *v)
{
	struct find_name *f = v;
	size_t n = strlen(f->name);

	if (tok->begin >= f->to)
		return 1;
	if (tok->begin >= f->from && tok->kind == 'i' && tok->end - tok->begin == n &&
	    !strncmp(t + tok->begin, f->name, n))
		f->at = tok->begin;
	if (tok->begin >= f->from && tok->kind == 'p' && t[tok->begin] == '=')
		return 1;	/* a default argument follows */
	return 0;
}

/* Scalar kinds __ldg has overloads for. */
static int
ldg_kind(const struct ks_access *a)
{
	if (a->lanes != 1 || (a->flags & (KS_ACC_VECTOR | KS_ACC_SIZE_GUESSED)))
		return 0;
	switch (a->scalar) {
	case KS_T_FLOAT: case KS_T_DOUBLE: case KS_T_HALF: case KS_T_BF16:
	case KS_T_INT8: case KS_T_INT16: case KS_T_INT32: case KS_T_INT64:
		return 1;
	default:
		return 0;
	}
}

static enum ks_xf_result
restrict_apply(const struct ks_xf_input *in, const struct ks_xf_point *pt,
	       struct ks_buf *variant, struct ks_buf *reason)
{
	const char *t = in->text;
	struct ks_xfk x;
	struct ks_xfk_edit e[MAX_EDITS];
	char *own[MAX_EDITS];
	size_t ne = 0, i, j, naccessed = 0;
	int *access = NULL;	/* per parameter: 0 none, 1 read, 2 written */
	struct ks_buf def = KS_BUF_INIT, ptrs = KS_BUF_INIT, wr = KS_BUF_INIT;
	enum ks_xf_result r = KS_XF_DECLINED;
	int restricted = 0, ldg = 0;

	(void)pt;
	if (ks_xfk_init(&x, in, reason))
		goto out;
	if (x.f->incomplete) {
		ks_buf_adds(reason, "the analysis did not understand every construct "
				    "of the kernel (a pointer may be written unseen)");
		goto out;
	}
	access = ks_xcalloc(x.k->nparams + 1, sizeof(*access));
	for (i = 0; i < x.f->nacc; i++) {
		const struct ks_access *a = &x.f->acc[i];
		const struct ks_array *o = &x.f->arrays[a->array];

		if (a->array < 0 || o->space == KS_SPACE_UNKNOWN)
			continue;
		if (o->param < 0 || (size_t)o->param >= x.k->nparams ||
		    !x.k->params[o->param].is_pointer)
			continue;
		if (a->flags & (KS_ACC_STORE | KS_ACC_ATOMIC))
			access[o->param] = 2;
		else if (!access[o->param])
			access[o->param] = 1;
	}
	/* __restrict__ on every accessed pointer that lacks it */
	for (i = 0; i < x.k->nparams; i++) {
		struct find_name f;

		if (!access[i])
			continue;
		naccessed++;
		ks_buf_addf(&ptrs, "%s(const void *)%s", ptrs.len ? ", " : "",
			    x.k->params[i].name);
		ks_buf_addf(&wr, "%s%d", wr.len ? ", " : "", access[i] == 2);
		if (x.k->params[i].is_restrict)
			continue;
		f.name = x.k->params[i].name;
		f.from = x.params_begin;
		f.to = x.params_begin + strlen(x.params);
		f.at = 0;
		/* the parameter's own segment: from the previous top-level comma */
		{
			int depth = 0;
			size_t seg = 0;
			unsigned long q;

			for (q = x.params_begin + 1; q < f.to - 1; q++) {
				depth += (t[q] == '(' || t[q] == '<' || t[q] == '[') -
					 (t[q] == ')' || t[q] == '>' || t[q] == ']');
				if (depth == 0 && t[q] == ',') {
					if (seg == i)
						break;
					seg++;
					f.from = q + 1;
				}
			}
			f.to = q;
		}
		ks_xfk_scan(t, f.from, f.to, 1, last_name, &f);
		if (!f.at || ne == MAX_EDITS) {
			ks_buf_addf(reason, "parameter %s was not found in the "
					    "parameter list", x.k->params[i].name);
			goto out;
		}
		e[ne].begin = e[ne].end = f.at;
		e[ne].with = own[ne] = ks_xstrdup("__restrict__ ");
		ne++;
		restricted++;
	}
	if (!naccessed) {
		ks_buf_adds(reason, "the kernel accesses no memory through its "
				    "pointer parameters");
		goto out;
	}
	/* loads through read-only pointers: the read-only path */
	for (i = 0; i < x.f->nacc; i++) {
		const struct ks_access *a = &x.f->acc[i];
		const struct ks_array *o = &x.f->arrays[a->array];
		int dup = 0;

		if (a->array < 0 || o->param < 0 || (size_t)o->param >= x.k->nparams ||
		    access[o->param] != 1 || !ldg_kind(a) || !a->in_main ||
		    a->begin < x.body_begin || a->end > x.body_end || a->end <= a->begin)
			continue;
		for (j = 0; j < ne; j++)
			dup |= e[j].begin < a->end && a->begin < e[j].end;
		if (dup || ne + 2 > MAX_EDITS)
			continue;
		e[ne].begin = e[ne].end = a->begin;
		e[ne].with = own[ne] = ks_xstrdup("__ldg(&(");
		ne++;
		e[ne].begin = e[ne].end = a->end;
		e[ne].with = own[ne] = ks_xstrdup("))");
		ne++;
		ldg++;
	}
	if (!restricted && !ldg) {
		ks_buf_adds(reason, "every accessed pointer is already __restrict__ "
				    "and no load through a read-only pointer is left");
		goto out;
	}
	/* zero-width edits at one place: keep their order (stable by begin) */
	if (ks_xfk_definition(&x, t, e, ne, &def)) {
		ks_buf_adds(reason, "two edits of the kernel's text overlap");
		goto out;
	}
	ks_buf_addf(variant, "// %s: restrict_readonly, %d pointer%s made "
			     "__restrict__, %d read-only load%s (builtin transform, "
			     "arch %d)\n", x.k->name, restricted, restricted == 1 ? "" : "s",
		    ldg, ldg == 1 ? "" : "s", in->opts.arch);
	ks_buf_addf(variant, "// ks-nvcc: helpers\n/* The original, for launches whose "
			     "pointers share memory. */\n%sks_ro_%s%s\n%s\n\n"
			     "typedef int (*ks_ro_range_fn)(unsigned long long *, size_t *,\n"
			     "\t\t\t       unsigned long long);\n\n",
		    x.head, x.k->name, x.params, x.body);
	ks_buf_adds(variant, "// ks-nvcc: definition\n");
	ks_buf_add(variant, def.buf, def.len);
	ks_buf_addf(variant, "\n// ks-nvcc: launcher\nstatic void\nks_launch_%s(dim3 grid, "
			     "dim3 block, size_t shmem, cudaStream_t stream,\n\t%.*s)\n{\n",
		    x.k->name, (int)(strlen(x.params) - 2), x.params + 1);
	ks_buf_addf(variant,
		    "\tstatic ks_ro_range_fn ks_range;\n"
		    "\tstatic int ks_looked;\n"
		    "\tconst void *const ks_p[%zu] = { %s };\n"
		    "\tconst int ks_w[%zu] = { %s };\n"
		    "\tunsigned long long ks_base[%zu];\n"
		    "\tint ks_ok = 1;\n\n"
		    "\tif (!ks_looked) {\n"
		    "\t\tvoid *ks_fn = NULL;\n"
		    "\t\tcudaDriverEntryPointQueryResult ks_q;\n\n"
		    "\t\tif (cudaGetDriverEntryPointByVersion(\"cuMemGetAddressRange\", "
		    "&ks_fn,\n\t\t\t\t\t\t      12000, cudaEnableDefault, &ks_q) == "
		    "cudaSuccess &&\n\t\t    ks_q == cudaDriverEntryPointSuccess)\n"
		    "\t\t\tks_range = (ks_ro_range_fn)ks_fn;\n"
		    "\t\tks_looked = 1;\n\t}\n"
		    "\tfor (int ks_i = 0; ks_i < %zu && ks_ok; ks_i++) {\n"
		    "\t\tsize_t ks_size = 0;\n\n"
		    "\t\tks_ok = ks_range && ks_range(&ks_base[ks_i], &ks_size,\n"
		    "\t\t\t\t\t       (unsigned long long)ks_p[ks_i]) == 0;\n"
		    "\t}\n"
		    "\tfor (int ks_i = 0; ks_i < %zu && ks_ok; ks_i++)\n"
		    "\t\tfor (int ks_j = ks_i + 1; ks_j < %zu && ks_ok; ks_j++)\n"
		    "\t\t\tif ((ks_w[ks_i] || ks_w[ks_j]) && ks_base[ks_i] == "
		    "ks_base[ks_j])\n\t\t\t\tks_ok = 0;\n"
		    "\t(void)ks_w;\n"
		    "\tif (ks_ok)\n\t\t%s<<<grid, block, shmem, stream>>>(%s);\n"
		    "\telse\n\t\tks_ro_%s<<<grid, block, shmem, stream>>>(%s);\n}\n",
		    naccessed, ptrs.buf, naccessed, wr.buf, naccessed, naccessed,
		    naccessed, naccessed, x.k->name, x.args, x.k->name, x.args);
	r = KS_XF_APPLIED;
out:
	for (i = 0; i < ne; i++)
		free(own[i]);
	free(access);
	ks_buf_release(&def);
	ks_buf_release(&ptrs);
	ks_buf_release(&wr);
	ks_xfk_release(&x);
	return r;
}

const struct ks_transform ks_xf_restrict_readonly = {
	.id = "restrict_readonly",
	.summary = "__restrict__ on the accessed pointers, __ldg on loads through "
		   "the read-only ones; the original when pointers share memory",
	.precondition = "pointer parameters the kernel accesses, some only read; "
			"every access understood by the analysis",
	.nparams = 0,
	.apply = restrict_apply,
};
