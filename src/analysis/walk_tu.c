/*
 * The walk's TU visitor (walk.h, tu.h): kernels, launch sites and host
 * facts of a parsed translation unit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/grow.h"
#include "../core/fs.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "walk.h"

/* ---- the TU: kernels, launches, host facts ------------------------------- */

struct tuwalk {
	struct ks_tu *t;
	int pass;		/* 1: kernels and macros; 2: host code */
	struct ks_inventory *inv;
	CXCursor *kcur;		/* kernel definition cursors, by index */
	size_t nk;
	/* host function being walked */
	int fn;
	char *fn_name;
	int device_fn;		/* __device__ and not __host__ */
	unsigned long loops[64][2];
	int nloops;
	/* macro definitions seen: name and body text, for launch bounds */
	struct ks_strv macro_names, macro_bodies;
	/* Instantiations of the TU's template functions met in host code,
	 * walked after the definitions (their launches name the kernel
	 * instances that the patterns leave dependent), and the mangled
	 * names of those queued so far. */
	CXCursor *work;
	size_t nwork;
	struct ks_strv queued;
	int in_inst;		/* walking an instantiation */
	int in_pattern;		/* walking a template's pattern */
	/* Walking the second parse of explicit_instances(): its cursors
	 * are not the TU's, so kernels are matched by their extent. */
	int foreign;
	/* The TU's host function templates (definitions): name and
	 * qualified name, for explicit instantiations of them. */
	struct ks_strv tmpl_names, tmpl_quals;
	/* References to template functions that libclang leaves as the
	 * overload set (`void (*fs[])(int) = { run<1>, run<2> };`): one
	 * `__ks_explicit_r*` reference each, resolved with the explicit
	 * instantiations' second parse, and their texts, once each. */
	struct ks_buf refs;
	struct ks_strv ref_texts;
	int nrefs;
};

/* The most instantiations walked per TU: far above real code (hundreds);
 * past it the walk stops as past its step bound. */
#define MAX_INSTANTIATIONS 20000

static int
kernel_index(struct tuwalk *tw, CXCursor decl)
{
	CXCursor tmpl = ks_cx.getSpecializedCursorTemplate(decl);
	size_t i;

	for (i = 0; i < tw->nk; i++) {
		if (ks_walk_same(tw->kcur[i], decl))
			return (int)i;
		if (!ks_cx.Cursor_isNull(tmpl) && ks_walk_same(tw->kcur[i], tmpl))
			return (int)i;
	}
	if (tw->foreign) {
		/* the same text at the same place: the second parse only
		 * appends to the file */
		CXCursor d = ks_cx.Cursor_isNull(tmpl) ? decl : tmpl;
		CXCursor def = ks_cx.getCursorDefinition(d);
		struct ks_extent e;
		int ki = -1;

		memset(&e, 0, sizeof(e));
		ks_cx_extent(ks_cx.getCursorExtent(
				     ks_cx.Cursor_isNull(def) ? d : def),
			     &e);
		for (i = 0; i < tw->inv->nkernels && ki < 0; i++)
			if (tw->inv->kernels[i].extent.begin == e.begin &&
			    !strcmp(tw->inv->kernels[i].extent.file, e.file))
				ki = (int)i;
		free(e.file);
		return ki;
	}
	return -1;
}

/*
 * A kernel's name as nvcc emits it: the mangled name, without the `L`
 * of internal linkage (`static __global__ void k(int *)` is `_ZL1kPi`
 * to clang and the `.entry _Z1kPi` of nvcc's PTX, which the runtime and
 * the captures name).
 */
static char *
kernel_mangling(CXCursor c)
{
	char *m = ks_cx_str(ks_cx.Cursor_getMangling(c));

	if (ks_starts_with(m, "_ZL"))
		memmove(m + 2, m + 3, strlen(m + 3) + 1);
	return m;
}

static char *
qualified_name(CXCursor c)
{
	struct ks_buf b = KS_BUF_INIT;
	char *name = ks_walk_spelling(c);
	CXCursor p = ks_cx.getCursorSemanticParent(c);

	while (!ks_cx.Cursor_isNull(p) && !ks_cx.isInvalid(ks_walk_kind(p)) &&
	       ks_walk_kind(p) != CXCursor_TranslationUnit) {
		enum CXCursorKind k = ks_walk_kind(p);

		if (k == CXCursor_Namespace || k == CXCursor_StructDecl ||
		    k == CXCursor_ClassDecl || k == CXCursor_ClassTemplate) {
			char *s = ks_walk_spelling(p);
			struct ks_buf n = KS_BUF_INIT;

			ks_buf_addf(&n, "%s::%s", *s ? s : "(anonymous)",
				    b.len ? b.buf : "");
			ks_buf_release(&b);
			b = n;
			free(s);
		}
		p = ks_cx.getCursorSemanticParent(p);
	}
	ks_buf_adds(&b, name);
	free(name);
	return ks_buf_detach(&b, NULL);
}

static void
add_instance(struct ks_kernel *k, CXCursor spec)
{
	char *m = kernel_mangling(spec);
	size_t i;

	if (!*m) {
		free(m);
		return;
	}
	for (i = 0; i < k->ninst; i++) {
		if (!strcmp(k->inst[i].mangled, m)) {
			free(m);
			return;
		}
	}
	k->inst = KS_GROW(k->inst, k->ninst, NULL);
	k->inst[k->ninst].mangled = m;
	{
		struct ks_buf d = KS_BUF_INIT;
		int n = ks_cx.Cursor_getNumTemplateArguments(spec), a;

		ks_buf_adds(&d, k->name);
		ks_buf_addch(&d, '<');
		for (a = 0; a < n; a++) {
			enum CXTemplateArgumentKind ak =
				ks_cx.Cursor_getTemplateArgumentKind(
					spec, (unsigned)a);

			if (a)
				ks_buf_adds(&d, ", ");
			if (ak == CXTemplateArgumentKind_Type) {
				char *ts = ks_cx_str(ks_cx.getTypeSpelling(
					ks_cx.Cursor_getTemplateArgumentType(
						spec, (unsigned)a)));

				ks_buf_adds(&d, ts);
				free(ts);
			} else if (ak == CXTemplateArgumentKind_Integral) {
				ks_buf_addf(
					&d, "%lld",
					ks_cx.Cursor_getTemplateArgumentValue(
						spec, (unsigned)a));
			} else {
				ks_buf_adds(&d, "?");
			}
		}
		ks_buf_addch(&d, '>');
		k->inst[k->ninst].display = ks_buf_detach(&d, NULL);
	}
	k->ninst++;
}

static void
launch_add_inst(struct ks_launch *l, const char *m)
{
	size_t i;

	for (i = 0; i < l->ninst; i++)
		if (!strcmp(l->inst[i], m))
			return;
	l->inst = KS_GROW(l->inst, l->ninst, NULL);
	l->inst[l->ninst++] = ks_xstrdup(m);
}

/* The kernel template a dependent launch (`k<T><<<...>>>` in a template
 * function) names: its callee is an overloaded reference. */
static int
dependent_kernel(struct tuwalk *tw, CXCursor call)
{
	struct kids ch;
	int ki = -1;

	ks_walk_kids_of(call, &ch);
	if (ch.n) {
		CXCursor c = ks_walk_strip(ch.v[0]);
		unsigned i, n;

		if (ks_walk_kind(c) != CXCursor_OverloadedDeclRef) {
			struct kids gc;
			size_t j;

			/* an UnexposedExpr around the reference */
			ks_walk_kids_of(c, &gc);
			for (j = 0; j < gc.n; j++)
				if (ks_walk_kind(gc.v[j]) ==
				    CXCursor_OverloadedDeclRef) {
					c = gc.v[j];
					break;
				}
			ks_walk_kids_release(&gc);
		}
		n = ks_walk_kind(c) == CXCursor_OverloadedDeclRef
			    ? ks_cx.getNumOverloadedDecls(c)
			    : 0;
		for (i = 0; i < n && ki < 0; i++)
			ki = kernel_index(tw, ks_cx.getOverloadedDecl(c, i));
	}
	ks_walk_kids_release(&ch);
	return ki;
}

/* Text of the source between two offsets of a file. */
static char *
source_text(struct ks_tu *t, const struct ks_extent *e)
{
	CXFile f = ks_cx.getFile(t->tu, e->file);
	size_t size;
	const char *s = ks_cx_file_text(t->tu, f, &size);

	if (!s || e->end > size || e->begin > e->end)
		return ks_xstrdup("");
	return ks_xstrndup(s + e->begin, e->end - e->begin);
}

static void
launch_bounds(struct tuwalk *tw, CXCursor kc, struct ks_kernel *k)
{
	struct toks t;
	struct ks_extent e;
	unsigned i, name_off = ks_walk_offset_of(ks_cx.getCursorLocation(kc));

	memset(&e, 0, sizeof(e));
	k->nlb = 0;
	ks_walk_toks_of(tw->t->tu, ks_cx.getCursorExtent(kc), &t);
	for (i = 0; i + 1 < t.n && ks_walk_tok_begin(&t, i) < name_off; i++) {
		unsigned j, open, depth = 0;
		char *text;
		char *p, *save;

		if (!ks_walk_tok_is(&t, i, "__launch_bounds__") &&
		    !ks_walk_tok_is(&t, i, "launch_bounds"))
			continue;
		if (!ks_walk_tok_is(&t, i + 1, "("))
			continue;
		open = i + 1;
		for (j = open; j < t.n; j++) {
			if (ks_walk_tok_is(&t, j, "("))
				depth++;
			else if (ks_walk_tok_is(&t, j, ")") && --depth == 0)
				break;
		}
		if (j == t.n)
			break;
		e.file = k->extent.file;
		e.begin = ks_walk_tok_end(&t, open);
		e.end = ks_walk_tok_begin(&t, j);
		text = source_text(tw->t, &e);
		k->launch_bounds = text;
		/* values: top-level comma-separated integers or macros */
		p = ks_xstrdup(text);
		for (save = p; k->nlb < 3;) {
			char *comma = strchr(save, ',');
			char *item, *end;
			long long v;
			size_t m;

			if (comma)
				*comma = '\0';
			item = save;
			while (*item == ' ' || *item == '\t' || *item == '\n')
				item++;
			end = item + strlen(item);
			while (end > item &&
			       (end[-1] == ' ' || end[-1] == '\t' ||
				end[-1] == '\n'))
				*--end = '\0';
			v = strtoll(item, &end, 0);
			if (*item && !*end) {
				k->lb[k->nlb] = v;
			} else {
				k->lb[k->nlb] = -1;
				for (m = 0; m < tw->macro_names.n; m++) {
					if (!strcmp(tw->macro_names.v[m],
						    item)) {
						v = strtoll(
							tw->macro_bodies.v[m],
							&end, 0);
						if (*tw->macro_bodies.v[m] &&
						    !*end)
							k->lb[k->nlb] = v;
					}
				}
			}
			k->nlb++;
			if (!comma)
				break;
			save = comma + 1;
		}
		free(p);
		break;
	}
	ks_walk_toks_release(&t);
}

static void
add_kernel(struct tuwalk *tw, CXCursor c)
{
	struct ks_inventory *inv = tw->inv;
	struct ks_kernel *k;
	struct kids ch;
	size_t i;

	inv->kernels = KS_GROW(inv->kernels, inv->nkernels, NULL);
	k = &inv->kernels[inv->nkernels++];
	memset(k, 0, sizeof(*k));
	tw->kcur = KS_GROW(tw->kcur, tw->nk, NULL);
	tw->kcur[tw->nk++] = c;
	k->name = ks_walk_spelling(c);
	k->qualified = qualified_name(c);
	k->display = ks_cx_str(ks_cx.getCursorDisplayName(c));
	k->is_template = ks_walk_kind(c) == CXCursor_FunctionTemplate;
	if (!k->is_template)
		k->mangled = kernel_mangling(c);
	ks_cx_extent(ks_cx.getCursorExtent(c), &k->extent);
	k->in_main_file = !strcmp(k->extent.file, tw->t->source);
	{
		CXSourceRange r = ks_cx.getCursorExtent(c);
		CXSourceLocation loc = ks_cx.getCursorLocation(c);
		unsigned off = ks_walk_offset_of(loc), line = 0, col = 0;

		ks_cx.getExpansionLocation(loc, NULL, &line, &col, NULL);
		k->name_ext.file = ks_xstrdup(k->extent.file);
		k->name_ext.begin = off;
		k->name_ext.end = off + strlen(k->name);
		k->name_ext.line = k->name_ext.end_line = line;
		k->name_ext.col = col;
		k->name_ext.end_col = col + (unsigned)strlen(k->name) - 1;
		(void)r;
	}
	k->body.file = ks_xstrdup("");
	ks_walk_kids_of(c, &ch);
	for (i = 0; i < ch.n; i++) {
		CXCursor p = ch.v[i];

		if (ks_walk_kind(p) == CXCursor_CompoundStmt) {
			ks_cx_extent(ks_cx.getCursorExtent(p), &k->body);
		} else if (ks_walk_kind(p) == CXCursor_ParmDecl) {
			struct ks_param *pa;
			CXType t = ks_cx.getCursorType(p);
			CXType ct = ks_cx.getCanonicalType(t);
			long long sz = ks_cx.Type_getSizeOf(ct),
				  al = ks_cx.Type_getAlignOf(ct);

			k->params = KS_GROW(k->params, k->nparams, NULL);
			pa = &k->params[k->nparams++];
			pa->name = ks_walk_spelling(p);
			pa->type = ks_cx_str(ks_cx.getTypeSpelling(t));
			pa->size = sz > 0 ? sz : -1;
			pa->align = al > 0 ? al : -1;
			pa->is_pointer = ct.kind == CXType_Pointer;
			pa->pointee_const = pa->is_pointer &&
					    ks_cx.isConstQualifiedType(
						    ks_cx.getPointeeType(t));
			pa->is_restrict = ks_cx.isRestrictQualifiedType(t);
		}
	}
	ks_walk_kids_release(&ch);
	launch_bounds(tw, c, k);
	ks_walk_kernel(tw->t, c, &k->facts);
}

static void
ext_between(struct ks_extent *e, const char *file, struct toks *t, unsigned a,
	    unsigned b)
{
	CXSourceRange r = ks_cx.getRange(
		ks_cx.getRangeStart(ks_cx.getTokenExtent(t->tu, t->t[a])),
		ks_cx.getRangeEnd(ks_cx.getTokenExtent(t->tu, t->t[b])));

	ks_cx_extent(r, e);
	if (!e->file[0]) {
		free(e->file);
		e->file = ks_xstrdup(file);
	}
}

/* The cursor's start is in a macro expansion. */
static int
from_macro(CXCursor c)
{
	CXSourceLocation b = ks_cx.getRangeStart(ks_cx.getCursorExtent(c));
	CXFile fe = NULL, fs = NULL;
	unsigned oe = 0, os = 0;

	ks_cx.getExpansionLocation(b, &fe, NULL, NULL, &oe);
	ks_cx.getSpellingLocation(b, &fs, NULL, NULL, &os);
	return oe != os || !fe || !fs || !ks_cx.File_isEqual(fe, fs);
}

struct last_leaf {
	CXFile file;
	unsigned from, last;
};

static enum CXChildVisitResult
last_leaf_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct last_leaf *ll = data;
	CXFile f = NULL;
	unsigned o = 0;

	(void)parent;
	ks_cx.getSpellingLocation(ks_cx.getRangeStart(ks_cx.getCursorExtent(c)),
				  &f, NULL, NULL, &o);
	if (f && ks_cx.File_isEqual(f, ll->file) && o >= ll->from &&
	    o > ll->last)
		ll->last = o;
	return CXChildVisit_Recurse;
}

/*
 * The text of an expression from a macro expansion, where it is spelled
 * (the macro's body, or the use's argument). libclang gives a macro
 * expression's start where it is spelled but its end only where the macro
 * is used, so the text runs from the start to the end of the last token
 * any part of it starts at, and on through the brackets left open; NULL
 * when that is not one piece of one file.
 */
static char *
spelled_text(struct ks_tu *t, CXCursor c)
{
	struct last_leaf ll;
	struct toks tk;
	const char *s;
	size_t size;
	unsigned i, end = 0;
	int depth = 0, seen = 0;

	memset(&ll, 0, sizeof(ll));
	ks_cx.getSpellingLocation(ks_cx.getRangeStart(ks_cx.getCursorExtent(c)),
				  &ll.file, NULL, NULL, &ll.from);
	if (!ll.file)
		return NULL;
	ll.last = ll.from;
	ks_cx.visitChildren(c, last_leaf_visit, &ll);
	s = ks_cx_file_text(t->tu, ll.file, &size);
	if (!s || ll.from >= size)
		return NULL;
	ks_walk_toks_of(
		t->tu,
		ks_cx.getRange(
			ks_cx.getLocationForOffset(t->tu, ll.file, ll.from),
			ks_cx.getLocationForOffset(
				t->tu, ll.file,
				(unsigned)(ll.last + 4096 < size ? ll.last + 4096
								 : size))),
		&tk);
	for (i = 0; i < tk.n; i++) {
		unsigned b = ks_walk_tok_begin(&tk, i);

		if (seen && (depth <= 0 || !(ks_walk_tok_is(&tk, i, ")") ||
					     ks_walk_tok_is(&tk, i, "]"))))
			break;
		if (ks_walk_tok_is(&tk, i, "(") || ks_walk_tok_is(&tk, i, "["))
			depth++;
		else if (ks_walk_tok_is(&tk, i, ")") ||
			 ks_walk_tok_is(&tk, i, "]"))
			depth--;
		end = ks_walk_tok_end(&tk, i);
		if (b >= ll.last)
			seen = 1;
	}
	ks_walk_toks_release(&tk);
	if (!seen || end <= ll.from || end > size)
		return NULL;
	return ks_xstrndup(s + ll.from, end - ll.from);
}

/* The name of the macro whose use starts at offset `off` of `file`. */
static char *
macro_at(struct ks_tu *t, const char *file, unsigned long off)
{
	CXFile f = ks_cx.getFile(t->tu, file);
	size_t size, n = 0;
	const char *s = ks_cx_file_text(t->tu, f, &size);

	if (!s || off >= size)
		return ks_xstrdup("?");
	while (off + n < size && (s[off + n] == '_' ||
				  (s[off + n] >= 'a' && s[off + n] <= 'z') ||
				  (s[off + n] >= 'A' && s[off + n] <= 'Z') ||
				  (n && s[off + n] >= '0' && s[off + n] <= '9')))
		n++;
	return n ? ks_xstrndup(s + off, n) : ks_xstrdup("?");
}

/* An argument's text: as written at the launch, or where it is spelled
 * for a launch from a macro (`macro`). */
static char *
arg_text(struct ks_tu *t, CXCursor a, int macro)
{
	struct ks_extent e;
	char *s;

	memset(&e, 0, sizeof(e));
	if (ks_cx_line(a) == 0) {	/* a default argument: not written */
		return NULL;
	}
	if (macro)
		return spelled_text(t, a);
	ks_cx_extent(ks_cx.getCursorExtent(a), &e);
	s = source_text(t, &e);
	free(e.file);
	if (!*s) {
		free(s);
		return NULL;
	}
	return s;
}

static void
add_launch(struct tuwalk *tw, CXCursor call, CXCursor config)
{
	struct ks_inventory *inv = tw->inv;
	struct ks_launch *l;
	CXCursor ref = ks_cx.getCursorReferenced(call);
	struct kids ch, cf;
	struct toks t;
	struct ks_host_launch hl;
	unsigned i, open = 0, close = 0, lparen = 0;
	size_t a, na = 0;
	int in_macro = from_macro(call);

	if (tw->in_inst) {
		/* the site was met in the pattern: it gains an instance */
		struct ks_extent e;

		memset(&e, 0, sizeof(e));
		ks_cx_extent(ks_cx.getCursorExtent(call), &e);
		for (l = NULL, a = 0; a < inv->nlaunches && !l; a++)
			if (inv->launches[a].extent.begin == e.begin &&
			    !strcmp(inv->launches[a].extent.file, e.file))
				l = &inv->launches[a];
		free(e.file);
		if (l) {
			if (!ks_cx.Cursor_isNull(ref) &&
			    ks_walk_kind(ref) == CXCursor_FunctionDecl) {
				int ki = kernel_index(tw, ref);
				char *m = kernel_mangling(ref);

				if (ki >= 0 && l->kernel < 0)
					l->kernel = ki;
				if (ki >= 0 && inv->kernels[ki].is_template)
					add_instance(&inv->kernels[ki], ref);
				if (*m)
					launch_add_inst(l, m);
				free(m);
			}
			return;
		}
		/* the second parse's cursors describe no new site */
		if (tw->foreign)
			return;
	}
	inv->launches = KS_GROW(inv->launches, inv->nlaunches, NULL);
	l = &inv->launches[inv->nlaunches++];
	memset(l, 0, sizeof(*l));
	l->kernel = ks_cx.Cursor_isNull(ref) ? -1 : kernel_index(tw, ref);
	if (!ks_cx.Cursor_isNull(ref) && ks_walk_kind(ref) == CXCursor_FunctionDecl) {
		char *m = kernel_mangling(ref);

		l->mangled = *m ? m : NULL;
		if (!*m)
			free(m);
		if (l->kernel >= 0 && inv->kernels[l->kernel].is_template) {
			add_instance(&inv->kernels[l->kernel], ref);
			if (l->mangled)
				launch_add_inst(l, l->mangled);
		}
	} else if (ks_cx.Cursor_isNull(ref) ||
		   ks_walk_kind(ref) != CXCursor_FunctionDecl) {
		l->kernel = dependent_kernel(tw, call);
	}
	l->caller = ks_xstrdup(tw->fn_name ? tw->fn_name : "");
	l->in_loop = tw->nloops > 0;
	l->device_side = tw->device_fn;
	ks_cx_extent(ks_cx.getCursorExtent(call), &l->extent);
	/* grid, block, shared memory, stream: the configuration call's
	 * arguments (children after its callee reference) */
	ks_walk_kids_of(config, &cf);
	for (a = 0; a < cf.n; a++) {
		char *s;

		if (a == 0 && ks_walk_kind(ks_walk_strip(cf.v[a])) == CXCursor_DeclRefExpr &&
		    (ks_walk_spelled(ks_walk_strip(cf.v[a]), "__cudaPushCallConfiguration") ||
		     ks_walk_spelled(ks_walk_strip(cf.v[a]), "cudaConfigureCall")))
			continue;
		s = arg_text(tw->t, cf.v[a], in_macro);
		switch (na++) {
		case 0: l->grid = s; break;
		case 1: l->block = s; break;
		case 2: l->shmem = s; break;
		case 3: l->stream = s; break;
		default: free(s); break;
		}
	}
	ks_walk_kids_release(&cf);
	ks_walk_kids_of(call, &ch);
	if (ch.n)
		ks_cx_extent(ks_cx.getCursorExtent(ch.v[0]), &l->callee_ext);
	else
		l->callee_ext.file = ks_xstrdup("");
	/* the kernel arguments: the children after the callee and the
	 * configuration call */
	for (a = 1; a < ch.n; a++) {
		if (ks_cx.equalCursors(ks_walk_strip(ch.v[a]), config))
			continue;
		l->argtext = KS_GROW(l->argtext, l->nargs, NULL);
		l->argtext[l->nargs] = arg_text(tw->t, ch.v[a], in_macro);
		if (!l->argtext[l->nargs])
			l->argtext[l->nargs] = ks_xstrdup("");
		l->nargs++;
	}
	l->callee = source_text(tw->t, &l->callee_ext);
	if (in_macro) {
		/* The expansion is what the source holds: `extent` is the
		 * macro's use; the pieces are read where they are spelled
		 * and have no extent of their own. */
		free(l->macro);
		l->macro = macro_at(tw->t, l->extent.file, l->extent.begin);
		l->not_rewritable = ks_xasprintf(
			"not rewritable: launch inside macro %s", l->macro);
		free(l->callee);
		l->callee = ch.n ? spelled_text(tw->t, ch.v[0]) : NULL;
		if (!l->callee)
			l->callee = ks_xstrdup("");
		free(l->callee_ext.file);
		memset(&l->callee_ext, 0, sizeof(l->callee_ext));
		l->callee_ext.file = ks_xstrdup("");
	}
	ks_walk_kids_release(&ch);
	ks_walk_toks_of(tw->t->tu, ks_cx.getCursorExtent(call), &t);
	for (i = 0; i < t.n; i++) {
		if (!open && ks_walk_tok_is(&t, i, "<<<"))
			open = i + 1;
		else if (open && !close && ks_walk_tok_is(&t, i, ">>>"))
			close = i + 1;
		else if (close && ks_walk_tok_is(&t, i, "(")) {
			lparen = i + 1;
			break;
		}
	}
	if (open && close && !l->macro)
		ext_between(&l->config, l->extent.file, &t, open - 1,
			    close - 1);
	else
		l->config.file = ks_xstrdup("");
	if (lparen && t.n && !l->macro)
		ext_between(&l->args, l->extent.file, &t, lparen - 1, t.n - 1);
	else
		l->args.file = ks_xstrdup("");
	ks_walk_toks_release(&t);
	hl.kernel = l->kernel;
	hl.fn = tw->fn;
	hl.offset = l->extent.begin;
	hl.loop_begin = tw->nloops ? tw->loops[0][0] : 0;
	hl.loop_end = tw->nloops ? tw->loops[0][1] : 0;
	ks_host_add_launch(&inv->host, &hl);
}

static CXCursor
config_call(CXCursor call)
{
	struct kids ch;
	CXCursor found = ks_cx.getNullCursor();
	size_t i;

	ks_walk_kids_of(call, &ch);
	for (i = 0; i < ch.n; i++) {
		CXCursor k = ks_walk_strip(ch.v[i]);

		/* cudaConfigureCall: the launch API clang assumes when it
		 * does not know the CUDA version (the minimal prelude) */
		if (ks_walk_kind(k) == CXCursor_CallExpr &&
		    (ks_walk_spelled(k, "__cudaPushCallConfiguration") ||
		     ks_walk_spelled(k, "cudaConfigureCall"))) {
			found = k;
			break;
		}
	}
	ks_walk_kids_release(&ch);
	return found;
}

/*
 * A template function of the TU's own files (or a member of a class
 * template) instantiated where host code refers to it: walked once its
 * pattern has been, so the launches in it name their instances.
 */
static void
queue_instantiation(struct tuwalk *tw, CXCursor ref)
{
	enum CXCursorKind k = ks_walk_kind(ref);
	CXCursor def;
	char *m;

	if (ks_cx.Cursor_isNull(ref) ||
	    (k != CXCursor_FunctionDecl && k != CXCursor_CXXMethod &&
	     k != CXCursor_Constructor && k != CXCursor_ConversionFunction) ||
	    ks_cx.Cursor_isNull(ks_cx.getSpecializedCursorTemplate(ref)) ||
	    ks_cx_is_system(ref) || kernel_index(tw, ref) >= 0)
		return;
	def = ks_cx.getCursorDefinition(ref);
	if (ks_cx.Cursor_isNull(def) ||
	    ks_walk_has_attr(def, CXCursor_CUDAGlobalAttr))
		return;
	m = ks_cx_str(ks_cx.Cursor_getMangling(def));
	if (!*m) {
		free(m);
		m = ks_cx_str(ks_cx.getCursorUSR(def));
	}
	if (!*m || ks_strv_find(&tw->queued, m) >= 0) {
		free(m);
		return;
	}
	ks_strv_push_owned(&tw->queued, m);
	tw->work = KS_GROW(tw->work, tw->nwork, NULL);
	tw->work[tw->nwork++] = def;
}

/*
 * A template function named with explicit arguments where libclang
 * gives the overload set, not the instance it resolved to: the syntactic
 * form of an initializer (`runner fs[] = { run<32>, run<64> };`, the
 * pointers then called or launched). Its instance is nvcc's too, so the
 * reference is kept, written as `&::ns::run<32>` in the template's
 * namespaces, for explicit_instances() to resolve.
 */
static unsigned matching(struct toks *t, unsigned i, const char *open,
			 const char *close);

/* `c` is a template or lies in one (a member of a class template). */
static int
in_template(CXCursor c)
{
	for (; !ks_cx.Cursor_isNull(c) && !ks_cx.isInvalid(ks_walk_kind(c)) &&
	       ks_walk_kind(c) != CXCursor_TranslationUnit;
	     c = ks_cx.getCursorSemanticParent(c)) {
		enum CXCursorKind k = ks_walk_kind(c);

		if (k == CXCursor_FunctionTemplate || k == CXCursor_ClassTemplate ||
		    k == CXCursor_ClassTemplatePartialSpecialization)
			return 1;
	}
	return 0;
}

static void
note_template_ref(struct tuwalk *tw, CXCursor c)
{
	unsigned i, n = ks_cx.getNumOverloadedDecls(c), gt = 0, off = 0;
	CXCursor tmpl = ks_cx.getNullCursor(), p;
	CXFile f = NULL;
	const char *text;
	size_t size = 0;
	struct ks_strv ns = KS_STRV_INIT;
	struct ks_buf line = KS_BUF_INIT;
	struct toks tk;
	char *q;

	for (i = 0; i < n && ks_cx.Cursor_isNull(tmpl); i++) {
		CXCursor d = ks_cx.getOverloadedDecl(c, i);

		if (ks_walk_kind(d) == CXCursor_FunctionTemplate &&
		    !ks_cx_is_system(d))
			tmpl = d;
	}
	if (ks_cx.Cursor_isNull(tmpl))
		return;
	/* namespaces only: a member of a class template has no name
	 * without the class's arguments */
	for (p = ks_cx.getCursorSemanticParent(tmpl);
	     !ks_cx.Cursor_isNull(p) && !ks_cx.isInvalid(ks_walk_kind(p)) &&
	     ks_walk_kind(p) != CXCursor_TranslationUnit;
	     p = ks_cx.getCursorSemanticParent(p)) {
		char *s;

		if (ks_walk_kind(p) != CXCursor_Namespace) {
			ks_strv_release(&ns);
			return;
		}
		s = ks_walk_spelling(p);
		if (!*s) {	/* an anonymous namespace has no name to write */
			free(s);
			ks_strv_release(&ns);
			return;
		}
		ks_strv_push_owned(&ns, s);
	}
	/* the explicit arguments as written, after the name (the cursor's
	 * extent is the name alone): in the file where it is spelled, from
	 * the name on (a few KB are ample for one argument list) */
	ks_cx.getSpellingLocation(ks_cx.getRangeStart(ks_cx.getCursorExtent(c)),
				  &f, NULL, NULL, &off);
	text = f ? ks_cx_file_text(tw->t->tu, f, &size) : NULL;
	if (!text || off >= size)
		goto out;
	ks_walk_toks_of(tw->t->tu,
			ks_cx.getRange(ks_cx.getLocationForOffset(tw->t->tu, f, off),
				       ks_cx.getLocationForOffset(
					       tw->t->tu, f,
					       size - off > 4096 ? off + 4096
								 : (unsigned)size)),
			&tk);
	if (tk.n > 1 && ks_walk_tok_is(&tk, 1, "<"))
		gt = matching(&tk, 1, "<", ">");
	if (gt) {
		q = qualified_name(tmpl);
		ks_buf_addf(&line, "(void)&::%s", q);
		free(q);
		for (i = 1; i <= gt; i++) {
			char *s = ks_walk_tok_str(&tk, i);

			ks_buf_addf(&line, " %s", s);
			free(s);
		}
	}
	ks_walk_toks_release(&tk);
	if (line.len && ks_strv_find(&tw->ref_texts, line.buf) < 0) {
		/* the namespaces, innermost last */
		for (i = (unsigned)ns.n; i-- > 0;)
			ks_buf_addf(&tw->refs, "namespace %s { ", ns.v[i]);
		ks_buf_addf(&tw->refs, "static void __ks_explicit_r%d(void) { %s; } ",
			    tw->nrefs++, line.buf);
		for (i = 0; i < ns.n; i++)
			ks_buf_adds(&tw->refs, "} ");
		ks_buf_adds(&tw->refs, "\n");
		ks_strv_push(&tw->ref_texts, line.buf);
	}
out:
	ks_buf_release(&line);
	ks_strv_release(&ns);
}

static enum CXChildVisitResult
host_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct tuwalk *tw = data;
	enum CXCursorKind k = ks_walk_kind(c);

	(void)parent;
	if (k == CXCursor_ForStmt || k == CXCursor_WhileStmt ||
	    k == CXCursor_DoStmt || k == CXCursor_CXXForRangeStmt) {
		if (tw->nloops < 64) {
			tw->loops[tw->nloops][0] = ks_walk_begin_of(c);
			tw->loops[tw->nloops][1] = ks_walk_end_of(c);
		}
		tw->nloops++;
		ks_cx.visitChildren(c, host_visit, tw);
		tw->nloops--;
		return CXChildVisit_Continue;
	}
	if (k == CXCursor_CallExpr || k == CXCursor_DeclRefExpr)
		queue_instantiation(tw, ks_cx.getCursorReferenced(c));
	/* a pattern's names are dependent (`run<T>`), an instantiation's
	 * text is its pattern's: only non-template code names instances */
	if (k == CXCursor_OverloadedDeclRef && !tw->foreign && !tw->in_inst &&
	    !tw->in_pattern)
		note_template_ref(tw, c);
	if (k == CXCursor_CallExpr) {
		CXCursor cfg = config_call(c);

		if (!ks_cx.Cursor_isNull(cfg)) {
			add_launch(tw, c, cfg);
		} else {
			char *name = ks_walk_spelling(c);

			/* an instantiation's calls are its pattern's */
			if (!tw->in_inst && ks_host_is_blocking(name))
				ks_host_add_blocking(&tw->inv->host, tw->fn,
						     ks_walk_begin_of(c), name);
			free(name);
		}
	} else if (k == CXCursor_DeclRefExpr) {
		/* &tk<float>, cudaLaunchKernel((void *)tk<float>, ...) */
		CXCursor ref = ks_cx.getCursorReferenced(c);

		if (ks_walk_kind(ref) == CXCursor_FunctionDecl) {
			int ki = kernel_index(tw, ref);

			if (ki >= 0 && tw->inv->kernels[ki].is_template)
				add_instance(&tw->inv->kernels[ki], ref);
		}
	}
	return CXChildVisit_Recurse;
}

static int
is_function(enum CXCursorKind k)
{
	return k == CXCursor_FunctionDecl || k == CXCursor_FunctionTemplate ||
	       k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
	       k == CXCursor_Destructor || k == CXCursor_ConversionFunction;
}

static enum CXChildVisitResult
tu_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct tuwalk *tw = data;
	enum CXCursorKind k = ks_walk_kind(c);

	(void)parent;
	if (k == CXCursor_MacroDefinition) {
		struct ks_buf body = KS_BUF_INIT;
		struct toks t;
		unsigned i;

		if (tw->pass != 1 || ks_cx_is_system(c))
			return CXChildVisit_Continue;
		ks_walk_toks_of(tw->t->tu, ks_cx.getCursorExtent(c), &t);
		for (i = 1; i < t.n; i++) {
			char *s = ks_walk_tok_str(&t, i);

			ks_buf_adds(&body, s);
			free(s);
		}
		ks_walk_toks_release(&t);
		ks_strv_push_owned(&tw->macro_names, ks_walk_spelling(c));
		ks_strv_push_owned(&tw->macro_bodies,
				   ks_buf_detach(&body, NULL));
		return CXChildVisit_Continue;
	}
	if (k >= CXCursor_FirstPreprocessing && k <= CXCursor_LastPreprocessing)
		return CXChildVisit_Continue;
	if (ks_cx_is_system(c))
		return CXChildVisit_Continue;
	if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec ||
	    k == CXCursor_UnexposedDecl || k == CXCursor_StructDecl ||
	    k == CXCursor_ClassDecl || k == CXCursor_ClassTemplate)
		return CXChildVisit_Recurse;
	if (!is_function(k))
		return CXChildVisit_Continue;
	if (ks_walk_has_attr(c, CXCursor_CUDAGlobalAttr)) {
		if (tw->pass == 1 && ks_cx.isCursorDefinition(c) &&
		    ks_cx.Cursor_isNull(ks_cx.getSpecializedCursorTemplate(c)))
			add_kernel(tw, c);
		else if (tw->pass == 2 && k == CXCursor_FunctionDecl) {
			/* template __global__ void k<int>(int *); */
			CXCursor tmpl = ks_cx.getSpecializedCursorTemplate(c);
			int ki = ks_cx.Cursor_isNull(tmpl)
					 ? -1
					 : kernel_index(tw, tmpl);

			if (ki >= 0 && tw->inv->kernels[ki].is_template)
				add_instance(&tw->inv->kernels[ki], c);
		}
		return CXChildVisit_Continue;
	}
	if (tw->pass == 1)
		return CXChildVisit_Continue;
	/* explicit instantiations of kernel templates */
	if (k == CXCursor_FunctionDecl) {
		CXCursor tmpl = ks_cx.getSpecializedCursorTemplate(c);
		int ki =
			ks_cx.Cursor_isNull(tmpl) ? -1 : kernel_index(tw, tmpl);

		if (ki >= 0) {
			add_instance(&tw->inv->kernels[ki], c);
			return CXChildVisit_Continue;
		}
	}
	if (ks_cx.isCursorDefinition(c)) {
		if (k == CXCursor_FunctionTemplate) {
			ks_strv_push_owned(&tw->tmpl_names, ks_walk_spelling(c));
			ks_strv_push_owned(&tw->tmpl_quals, qualified_name(c));
		}
		tw->fn_name = qualified_name(c);
		tw->fn = ks_host_add_fn(&tw->inv->host, tw->fn_name);
		tw->nloops = 0;
		tw->device_fn = ks_walk_has_attr(c, CXCursor_CUDADeviceAttr) &&
				!ks_walk_has_attr(c, CXCursor_CUDAHostAttr);
		tw->in_pattern = in_template(c);
		ks_cx.visitChildren(c, host_visit, tw);
		tw->in_pattern = 0;
		free(tw->fn_name);
		tw->fn_name = NULL;
	}
	return CXChildVisit_Continue;
}

/* Walk the queued instantiations from `from` on, and those they queue. */
static void
walk_work(struct tuwalk *tw, size_t from)
{
	struct ks_inventory *inv = tw->inv;
	struct ks_tu *t = tw->t;
	size_t i;

	tw->in_inst = 1;
	for (i = from; i < tw->nwork && i < MAX_INSTANTIATIONS; i++) {
		CXCursor c = tw->work[i], tmpl;

		if (ks_tu_watch_expired()) {
			t->timed_out = 1;
			break;
		}
		tmpl = ks_cx.getSpecializedCursorTemplate(c);
		tw->fn_name = qualified_name(ks_cx.Cursor_isNull(tmpl) ? c
								       : tmpl);
		/* the pattern's host function, walked already */
		for (tw->fn = 0; (size_t)tw->fn < inv->host.nfns; tw->fn++)
			if (!strcmp(inv->host.fns[tw->fn], tw->fn_name))
				break;
		if ((size_t)tw->fn == inv->host.nfns)
			tw->fn = ks_host_add_fn(&inv->host, tw->fn_name);
		tw->nloops = 0;
		tw->device_fn = ks_walk_has_attr(c, CXCursor_CUDADeviceAttr) &&
				!ks_walk_has_attr(c, CXCursor_CUDAHostAttr);
		ks_cx.visitChildren(c, host_visit, tw);
		free(tw->fn_name);
		tw->fn_name = NULL;
	}
}

/* ---- explicit instantiations --------------------------------------------- */

/*
 * libclang shows no cursor for an explicit instantiation
 * (`template __global__ void k<int>(int *);`, or of a host template that
 * launches kernels: `template void run<float>(float *);`), yet nvcc
 * emits the instances. They are found in the tokens of the TU's own file
 * (also in a macro's body, for each use of the macro) and resolved by a
 * second parse of that file with one reference per instantiation
 * appended, in the instantiation's namespaces: a kernel's instance is
 * the reference's, and a host function's instance is walked like any
 * instantiation, so its launches name theirs. The original text keeps
 * its offsets, so sites and kernels are matched by extent.
 */
struct explicit_ctx {
	struct tuwalk *tw;
};

static unsigned
matching(struct toks *t, unsigned i, const char *open, const char *close)
{
	int depth = 0;

	for (; i < t->n; i++) {
		if (ks_walk_tok_is(t, i, open))
			depth++;
		else if (ks_walk_tok_is(t, i, close) && --depth == 0)
			return i;
		else if (!strcmp(close, ">") && ks_walk_tok_is(t, i, ">>") &&
			 (depth -= 2) <= 0)
			return i;
		else if (ks_walk_tok_is(t, i, ";") || ks_walk_tok_is(t, i, "{"))
			break;
	}
	return 0;
}

/* A template kernel or host function template of the TU named `name`. */
static int
template_named(struct tuwalk *tw, const char *name)
{
	size_t i;

	for (i = 0; i < tw->inv->nkernels; i++)
		if (tw->inv->kernels[i].is_template &&
		    !strcmp(tw->inv->kernels[i].name, name))
			return 1;
	return ks_strv_find(&tw->tmpl_names, name) >= 0;
}

static enum CXChildVisitResult
explicit_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct tuwalk *tw = ((struct explicit_ctx *)data)->tw;

	(void)parent;
	if (ks_walk_kind(c) == CXCursor_DeclRefExpr) {
		CXCursor ref = ks_cx.getCursorReferenced(c);
		CXCursor tmpl = ks_cx.getSpecializedCursorTemplate(ref);
		size_t i;
		char *q;
		int hit = 0;

		if (ks_cx.Cursor_isNull(tmpl))
			return CXChildVisit_Recurse;
		q = qualified_name(tmpl);
		for (i = 0; i < tw->inv->nkernels; i++)
			if (tw->inv->kernels[i].is_template &&
			    !strcmp(tw->inv->kernels[i].qualified, q)) {
				add_instance(&tw->inv->kernels[i], ref);
				hit = 1;
			}
		if (!hit && ks_strv_find(&tw->tmpl_quals, q) >= 0)
			queue_instantiation(tw, ref);
		free(q);
	}
	return CXChildVisit_Recurse;
}

static enum CXChildVisitResult
explicit_top(CXCursor c, CXCursor parent, CXClientData data)
{
	enum CXCursorKind k = ks_walk_kind(c);
	char *name;

	(void)parent;
	if (k == CXCursor_Namespace &&
	    ks_cx.Location_isFromMainFile(ks_cx.getCursorLocation(c)))
		return CXChildVisit_Recurse;
	if (k != CXCursor_FunctionDecl)
		return CXChildVisit_Continue;
	name = ks_walk_spelling(c);
	if (ks_starts_with(name, "__ks_explicit_"))
		ks_cx.visitChildren(c, explicit_visit, data);
	free(name);
	return CXChildVisit_Continue;
}

/* A macro defined in the TU's file: name, parameters and body tokens. */
struct xmacro {
	char *name;
	unsigned begin, end;		/* the definition's tokens [begin, end) */
	unsigned params, params_end;	/* `(` and `)` of its parameters, or 0 */
	int helper;			/* its helper's number, or -1 */
};

/*
 * The reference for the explicit instantiation at token i (`template`):
 * `static void NAME(void) { (void)static_cast<R (*)(P)>(&F<A>); }`
 * appended to `out`, NAME being `fn`. Returns 0, or -1 when the tokens
 * are not one of a kernel or host function template of the TU.
 */
static int
explicit_ref(struct tuwalk *tw, struct toks *tk, const char *text,
	     unsigned i, unsigned stop, const char *fn, struct ks_buf *out)
{
	unsigned j, name = 0, lt = 0, gt = 0, lp, rp, q;

	for (j = i + 1; j < stop && !name; j++) {
		char *s;

		if (ks_walk_tok_is(tk, j, ";") || ks_walk_tok_is(tk, j, "{"))
			return -1;
		s = ks_walk_tok_str(tk, j);
		if ((ks_walk_tok_is(tk, j + 1, "<") ||
		     ks_walk_tok_is(tk, j + 1, "(")) &&
		    template_named(tw, s))
			name = j;
		free(s);
	}
	if (!name)
		return -1;
	lp = name + 1;
	if (ks_walk_tok_is(tk, lp, "<")) {
		lt = lp;
		gt = matching(tk, lp, "<", ">");
		if (!gt || gt >= stop)
			return -1;
		lp = gt + 1;
	}
	if (lp >= stop || !ks_walk_tok_is(tk, lp, "(") ||
	    !(rp = matching(tk, lp, "(", ")")) || rp >= stop)
		return -1;
	/* the qualifier as written (`ns::f`), before it the return type */
	for (q = name; q >= i + 3 && ks_walk_tok_is(tk, q - 1, "::"); q -= 2)
		;
	if (q > i + 1 && ks_walk_tok_is(tk, q - 1, "::"))
		q--;	/* `::f` */
	if (q <= i + 1)
		return -1;	/* no return type: not a function */
	ks_buf_addf(out,
		    "static void %s(void) { (void)static_cast<%.*s (*)%.*s>"
		    "(&%.*s%.*s); }",
		    fn,
		    (int)(ks_walk_tok_end(tk, q - 1) - ks_walk_tok_begin(tk, i + 1)),
		    text + ks_walk_tok_begin(tk, i + 1),
		    (int)(ks_walk_tok_end(tk, rp) - ks_walk_tok_begin(tk, lp)),
		    text + ks_walk_tok_begin(tk, lp),
		    (int)(ks_walk_tok_end(tk, name) - ks_walk_tok_begin(tk, q)),
		    text + ks_walk_tok_begin(tk, q),
		    lt ? (int)(ks_walk_tok_end(tk, gt) - ks_walk_tok_begin(tk, lt))
		       : 0,
		    lt ? text + ks_walk_tok_begin(tk, lt) : "");
	return 0;
}

/* `namespace a { namespace b {` for the namespaces open at a token. */
static void
open_namespaces(const struct ks_strv *ns, struct ks_buf *out)
{
	size_t i;

	for (i = 0; i < ns->n; i++)
		ks_buf_addf(out, "namespace %s { ", ns->v[i]);
}

static void
close_namespaces(const struct ks_strv *ns, struct ks_buf *out)
{
	size_t i;

	for (i = 0; i < ns->n; i++)
		ks_buf_adds(out, "} ");
	ks_buf_adds(out, "\n");
}

/* The `#define`s of the file's tokens (a directive's tokens end where
 * the next token starts a later line without a continuation: the line
 * of the token after the last one the define's cursor covers). */
static size_t
macros_of(struct toks *tk, const char *text, struct xmacro **out)
{
	struct xmacro *m = NULL;
	size_t n = 0, alloc = 0;
	unsigned i;

	for (i = 0; i + 2 < tk->n; i++) {
		unsigned b, j;
		struct xmacro *x;

		if (!ks_walk_tok_is(tk, i, "#") ||
		    !ks_walk_tok_is(tk, i + 1, "define"))
			continue;
		b = i;
		/* the directive ends at the first newline not escaped */
		for (j = i + 2; j + 1 < tk->n; j++) {
			unsigned e = ks_walk_tok_end(tk, j),
				 nb = ks_walk_tok_begin(tk, j + 1), p;
			int nl = 0;

			for (p = e; p < nb; p++)
				if (text[p] == '\n' &&
				    !(p > e && text[p - 1] == '\\') &&
				    !(p > e + 1 && text[p - 1] == '\r' &&
				      text[p - 2] == '\\'))
					nl = 1;
			if (nl)
				break;
		}
		m = KS_GROW(m, n, &alloc);
		x = &m[n++];
		memset(x, 0, sizeof(*x));
		x->name = ks_walk_tok_str(tk, i + 2);
		x->begin = b;
		x->end = j + 1 < tk->n ? j + 1 : tk->n;
		x->helper = -1;
		/* a function-like macro: `(` right after the name */
		if (i + 3 < x->end && ks_walk_tok_is(tk, i + 3, "(") &&
		    ks_walk_tok_begin(tk, i + 3) == ks_walk_tok_end(tk, i + 2)) {
			for (j = i + 4; j < x->end && !ks_walk_tok_is(tk, j, ")"); j++)
				;
			if (j < x->end) {
				x->params = i + 3;
				x->params_end = j;
			}
		}
		i = x->end - 1;
	}
	*out = m;
	return n;
}

static void
explicit_instances(struct tuwalk *tw)
{
	struct ks_tu *t = tw->t;
	CXFile f = ks_cx.getFile(t->tu, t->source);
	size_t size = 0;
	const char *text = ks_cx_file_text(t->tu, f, &size);
	struct ks_buf extra = KS_BUF_INIT, helpers = KS_BUF_INIT;
	struct ks_strv ns = KS_STRV_INIT;
	struct xmacro *mac = NULL;
	size_t nmac = 0, mi;
	struct toks tk;
	unsigned i;
	int n = 0, nhelp = 0, depth = 0;
	/* the brace depth at which each open namespace began */
	int nsdepth[64];

	if (!text || !size || !t->args.n)
		return;
	ks_walk_toks_of(t->tu,
			ks_cx.getRange(ks_cx.getLocationForOffset(t->tu, f, 0),
				       ks_cx.getLocationForOffset(
					       t->tu, f, (unsigned)size)),
			&tk);
	nmac = macros_of(&tk, text, &mac);
	/* helpers for macros whose bodies instantiate explicitly */
	for (mi = 0; mi < nmac; mi++) {
		struct xmacro *x = &mac[mi];
		unsigned b = x->params ? x->params_end + 1 : x->begin + 3;
		struct ks_buf body = KS_BUF_INIT;
		int k = 0;

		for (i = b; i < x->end; i++) {
			char fn[64];

			if (!ks_walk_tok_is(&tk, i, "template") ||
			    ks_walk_tok_is(&tk, i + 1, "<") ||
			    (i > b && ks_walk_tok_is(&tk, i - 1, "extern")))
				continue;
			snprintf(fn, sizeof(fn),
				 "__KS_XCAT(__ks_explicit_m%d_%d_, __COUNTER__)",
				 (int)mi, k);
			if (!explicit_ref(tw, &tk, text, i, x->end, fn, &body)) {
				ks_buf_adds(&body, " ");
				k++;
			}
		}
		if (k) {
			x->helper = nhelp++;
			ks_buf_addf(&helpers, "#define __KS_XM%d%.*s %s\n",
				    x->helper,
				    x->params ? (int)(ks_walk_tok_end(&tk, x->params_end) -
						      ks_walk_tok_begin(&tk, x->params))
					      : 0,
				    x->params ? text + ks_walk_tok_begin(&tk, x->params) : "",
				    body.buf);
		}
		ks_buf_release(&body);
	}
	mi = 0;
	for (i = 0; i + 1 < tk.n; i++) {
		char fn[64];

		/* directives are not code: skip the #defines */
		if (mi < nmac && i == mac[mi].begin) {
			i = mac[mi++].end - 1;
			continue;
		}
		if (ks_walk_tok_is(&tk, i, "{")) {
			depth++;
			continue;
		}
		if (ks_walk_tok_is(&tk, i, "}")) {
			depth--;
			if (ns.n && nsdepth[ns.n - 1] == depth + 1 &&
			    ns.n <= KS_ARRAY_SIZE(nsdepth)) {
				free(ns.v[--ns.n]);
				ns.v[ns.n] = NULL;
			}
			continue;
		}
		if (ks_walk_tok_is(&tk, i, "namespace")) {
			/* `namespace a {`, `namespace a::b {`, `namespace {` */
			struct ks_buf nm = KS_BUF_INIT;
			unsigned j;

			for (j = i + 1; j < tk.n && !ks_walk_tok_is(&tk, j, "{") &&
					!ks_walk_tok_is(&tk, j, ";") &&
					!ks_walk_tok_is(&tk, j, "=");
			     j++) {
				char *s = ks_walk_tok_str(&tk, j);

				ks_buf_adds(&nm, s);
				free(s);
			}
			if (j < tk.n && ks_walk_tok_is(&tk, j, "{") &&
			    ns.n < KS_ARRAY_SIZE(nsdepth)) {
				nsdepth[ns.n] = depth + 1;
				ks_strv_push(&ns, nm.len ? nm.buf : "");
				depth++;
				i = j;
			}
			ks_buf_release(&nm);
			continue;
		}
		if (ks_walk_tok_is(&tk, i, "template") &&
		    !ks_walk_tok_is(&tk, i + 1, "<") &&
		    !(i > 0 && ks_walk_tok_is(&tk, i - 1, "extern"))) {
			snprintf(fn, sizeof(fn), "__ks_explicit_%d", n);
			open_namespaces(&ns, &extra);
			if (!explicit_ref(tw, &tk, text, i, (unsigned)tk.n, fn,
					  &extra))
				n++;
			close_namespaces(&ns, &extra);
			continue;
		}
		/* a use of a macro that instantiates: its helper, same
		 * arguments */
		if (nhelp) {
			char *s = ks_walk_tok_str(&tk, i);
			size_t k;

			for (k = 0; k < nmac; k++) {
				unsigned rp = 0;

				if (mac[k].helper < 0 || strcmp(mac[k].name, s))
					continue;
				if (mac[k].params &&
				    (!ks_walk_tok_is(&tk, i + 1, "(") ||
				     !(rp = matching(&tk, i + 1, "(", ")"))))
					continue;
				open_namespaces(&ns, &extra);
				ks_buf_addf(&extra, "__KS_XM%d%.*s ",
					    mac[k].helper,
					    rp ? (int)(ks_walk_tok_end(&tk, rp) -
						       ks_walk_tok_begin(&tk, i + 1))
					       : 0,
					    rp ? text + ks_walk_tok_begin(&tk, i + 1) : "");
				close_namespaces(&ns, &extra);
				n++;
				if (rp)
					i = rp;
				break;
			}
			free(s);
		}
	}
	ks_walk_toks_release(&tk);
	for (mi = 0; mi < nmac; mi++)
		free(mac[mi].name);
	free(mac);
	ks_strv_release(&ns);
	if (tw->nrefs) {
		ks_buf_add(&extra, tw->refs.buf, tw->refs.len);
		n += tw->nrefs;
	}
	if (n) {
		struct ks_buf src = KS_BUF_INIT;
		struct CXUnsavedFile *uf =
			ks_xcalloc(t->repair.n + 1, sizeof(*uf));
		unsigned nuf = 1;
		CXTranslationUnit tu2 = NULL;
		const char **argv = ks_xcalloc(t->args.n + 2, sizeof(*argv));
		struct explicit_ctx ctx;
		size_t a;

		ks_buf_add(&src, text, size);
		ks_buf_adds(&src, "\n#define __KS_XCAT2(a, b) a##b\n"
				  "#define __KS_XCAT(a, b) __KS_XCAT2(a, b)\n");
		ks_buf_add(&src, helpers.buf, helpers.len);
		ks_buf_add(&src, extra.buf, extra.len);
		uf[0].Filename = t->source;
		uf[0].Contents = src.buf;
		uf[0].Length = (unsigned long)src.len;
		/* the files as the TU was parsed (nvcc's dialect repaired),
		 * but for the main file, whose text is already that */
		for (a = 0; a < t->repair.n; a++) {
			char *rp = ks_fs_realpath(t->repair.files[a].Filename);

			if (!rp || strcmp(rp, t->source))
				uf[nuf++] = t->repair.files[a];
			free(rp);
		}
		for (a = 0; a < t->args.n; a++)
			argv[a] = t->args.v[a];
		/* a reference that does not resolve (its arguments name
		 * what only its use can see) is an error of its own; the
		 * others must not be lost past clang's error limit */
		argv[a++] = "-ferror-limit=0";
		if (ks_cx.parseTranslationUnit2(t->index, t->source, argv,
						(int)a, uf, nuf,
						CXTranslationUnit_None,
						&tu2) == CXError_Success &&
		    tu2) {
			size_t from = tw->nwork;

			ctx.tw = tw;
			tw->foreign = 1;
			ks_cx.visitChildren(ks_cx.getTranslationUnitCursor(tu2),
					    explicit_top, &ctx);
			/* the host instances, walked while their parse lives */
			walk_work(tw, from);
			tw->foreign = 0;
		}
		if (tu2)
			ks_cx.disposeTranslationUnit(tu2);
		free(argv);
		free(uf);
		ks_buf_release(&src);
	}
	ks_buf_release(&extra);
	ks_buf_release(&helpers);
}

static void
inclusion(CXFile file, CXSourceLocation *stack, unsigned len, CXClientData data)
{
	struct ks_inventory *inv = data;
	char *name = ks_cx_str(ks_cx.getFileName(file));
	char *abs = ks_fs_realpath(name);

	(void)stack;
	(void)len;
	if (ks_strv_find(&inv->files, abs ? abs : name) < 0)
		ks_strv_push(&inv->files, abs ? abs : name);
	free(abs);
	free(name);
}

int
ks_walk(struct ks_tu *t, struct ks_inventory *inv)
{
	struct tuwalk tw;
	size_t i;

	memset(&tw, 0, sizeof(tw));
	tw.t = t;
	tw.inv = inv;
	ks_strv_init(&tw.macro_names);
	ks_strv_init(&tw.macro_bodies);
	ks_strv_init(&tw.tmpl_names);
	ks_strv_init(&tw.tmpl_quals);
	ks_strv_init(&tw.ref_texts);
	ks_buf_init(&tw.refs, 0);
	/* Kernels first, so that a launch before the kernel's definition
	 * (declared earlier, defined later) still finds it. */
	tw.pass = 1;
	ks_cx.visitChildren(ks_cx.getTranslationUnitCursor(t->tu), tu_visit,
			    &tw);
	tw.pass = 2;
	ks_strv_init(&tw.queued);
	ks_cx.visitChildren(ks_cx.getTranslationUnitCursor(t->tu), tu_visit,
			    &tw);
	/* Instantiations, and those they refer to in turn. */
	walk_work(&tw, 0);
	if (tw.nwork > MAX_INSTANTIATIONS)
		t->steps = t->max_steps + 1;
	explicit_instances(&tw);
	for (i = 0; i < inv->nkernels; i++) {
		ks_features_compute(&inv->kernels[i].facts, &inv->host, (int)i,
				    &inv->kernels[i].features);
		inv->kernels[i].closure = ks_closure_text(t, tw.kcur[i]);
	}
	ks_strv_push(&inv->files, t->source);
	ks_cx.getInclusions(t->tu, inclusion, inv);
	ks_strv_release(&tw.macro_names);
	ks_strv_release(&tw.macro_bodies);
	ks_strv_release(&tw.tmpl_names);
	ks_strv_release(&tw.tmpl_quals);
	ks_strv_release(&tw.queued);
	ks_strv_release(&tw.ref_texts);
	ks_buf_release(&tw.refs);
	free(tw.work);
	free(tw.kcur);
	if (ks_tu_watch_expired())
		t->timed_out = 1;
	return t->timed_out || (t->max_steps && t->steps > t->max_steps) ? -1
									  : 0;
}
