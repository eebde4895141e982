/*
 * Host code clang refuses and nvcc accepts (tu.h, ks_walk_host_errors):
 * an error is tolerated when it lies in the body of a host-only function
 * of the TU's own files, in a statement that names no kernel, no template
 * function of those files and no launch (<<<). Then the kernels and the
 * launches parsed cleanly, and the analysis goes on; anything else (an
 * error in device code, a header, a declaration outside a function, a
 * fatal one) refuses the TU as before.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/grow.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "walk.h"

struct fndef {
	CXCursor c;
	CXFile file;
	unsigned begin, end;
};

struct herr {
	struct fndef *fns;
	size_t nfns;
	/* kernels and template functions of the TU's own files, by name */
	struct ks_strv names;
	/* the statement search */
	unsigned off;
	CXCursor stmt;
	int have_stmt;
};

static int
is_fn(enum CXCursorKind k)
{
	return k == CXCursor_FunctionDecl || k == CXCursor_FunctionTemplate ||
	       k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
	       k == CXCursor_Destructor || k == CXCursor_ConversionFunction;
}

static enum CXChildVisitResult
collect(CXCursor c, CXCursor parent, CXClientData data)
{
	struct herr *h = data;
	enum CXCursorKind k = ks_walk_kind(c);

	(void)parent;
	if (ks_cx_is_system(c))
		return CXChildVisit_Continue;
	if (k == CXCursor_Namespace || k == CXCursor_LinkageSpec ||
	    k == CXCursor_UnexposedDecl || k == CXCursor_StructDecl ||
	    k == CXCursor_ClassDecl || k == CXCursor_ClassTemplate)
		return CXChildVisit_Recurse;
	if (!is_fn(k))
		return CXChildVisit_Continue;
	if (k == CXCursor_FunctionTemplate ||
	    ks_walk_has_attr(c, CXCursor_CUDAGlobalAttr)) {
		char *name = ks_walk_spelling(c);

		if (*name && ks_strv_find(&h->names, name) < 0)
			ks_strv_push(&h->names, name);
		free(name);
	}
	if (ks_cx.isCursorDefinition(c)) {
		CXSourceRange r = ks_cx.getCursorExtent(c);
		struct fndef *f;

		h->fns = KS_GROW(h->fns, h->nfns, NULL);
		f = &h->fns[h->nfns++];
		f->c = c;
		ks_cx.getExpansionLocation(ks_cx.getRangeStart(r), &f->file,
					   NULL, NULL, &f->begin);
		ks_cx.getExpansionLocation(ks_cx.getRangeEnd(r), NULL, NULL,
					   NULL, &f->end);
	}
	return CXChildVisit_Continue;
}

/* The innermost statement of a block that holds the offset. */
static enum CXChildVisitResult
find_stmt(CXCursor c, CXCursor parent, CXClientData data)
{
	struct herr *h = data;

	if (ks_walk_begin_of(c) > h->off || ks_walk_end_of(c) < h->off)
		return CXChildVisit_Continue;
	if (ks_walk_kind(parent) == CXCursor_CompoundStmt) {
		h->stmt = c;
		h->have_stmt = 1;
	}
	return CXChildVisit_Recurse;
}

/* 1 when the tokens of `r` name a launch, a kernel or a template. */
static int
names_device(struct ks_tu *t, struct herr *h, CXSourceRange r)
{
	struct toks tk;
	unsigned i;
	int hit = 0;

	ks_walk_toks_of(t->tu, r, &tk);
	for (i = 0; i < tk.n && !hit; i++) {
		char *s = ks_walk_tok_str(&tk, i);

		hit = !strcmp(s, "<<<") || ks_strv_find(&h->names, s) >= 0;
		free(s);
	}
	ks_walk_toks_release(&tk);
	return hit;
}

/* 1 when the error at (file, off) is in host code only. */
static int
tolerable(struct ks_tu *t, struct herr *h, CXFile file, unsigned off)
{
	struct fndef *in = NULL;
	CXSourceLocation a, b;
	const char *text;
	size_t i, size, lb, le;

	for (i = 0; i < h->nfns; i++) {
		struct fndef *f = &h->fns[i];

		if (f->file && ks_cx.File_isEqual(f->file, file) &&
		    f->begin <= off && off < f->end &&
		    (!in || f->begin >= in->begin))
			in = f;
	}
	if (!in || ks_walk_kind(in->c) == CXCursor_FunctionTemplate ||
	    ks_walk_has_attr(in->c, CXCursor_CUDADeviceAttr) ||
	    ks_walk_has_attr(in->c, CXCursor_CUDAGlobalAttr))
		return 0;
	h->off = off;
	h->have_stmt = 0;
	ks_cx.visitChildren(in->c, find_stmt, h);
	if (h->have_stmt &&
	    names_device(t, h, ks_cx.getCursorExtent(h->stmt)))
		return 0;
	/* the line as well: a statement clang dropped has no cursor */
	text = ks_cx_file_text(t->tu, file, &size);
	if (!text || off > size)
		return 0;
	for (lb = off; lb > 0 && text[lb - 1] != '\n'; lb--)
		;
	for (le = off; le < size && text[le] != '\n'; le++)
		;
	a = ks_cx.getLocationForOffset(t->tu, file, (unsigned)lb);
	b = ks_cx.getLocationForOffset(t->tu, file, (unsigned)le);
	return !names_device(t, h, ks_cx.getRange(a, b));
}

int
ks_walk_host_errors(struct ks_tu *t, struct ks_strv *out)
{
	struct herr h;
	unsigned i, n = ks_cx.getNumDiagnostics(t->tu);
	int ok = 1, collected = 0;
	struct ks_strv got = KS_STRV_INIT;

	memset(&h, 0, sizeof(h));
	ks_strv_init(&h.names);
	for (i = 0; i < n && ok; i++) {
		CXDiagnostic d = ks_cx.getDiagnostic(t->tu, i);
		enum CXDiagnosticSeverity sev = ks_cx.getDiagnosticSeverity(d);
		CXSourceLocation loc = ks_cx.getDiagnosticLocation(d);
		CXFile file = NULL;
		unsigned line = 0, col = 0, off = 0;

		if (sev == CXDiagnostic_Error) {
			ks_cx.getExpansionLocation(loc, &file, &line, &col,
						   &off);
			if (!collected) {
				ks_cx.visitChildren(
					ks_cx.getTranslationUnitCursor(t->tu),
					collect, &h);
				collected = 1;
			}
			ok = file && !ks_cx.Location_isInSystemHeader(loc) &&
			     tolerable(t, &h, file, off);
			if (ok) {
				char *name = ks_cx_str(ks_cx.getFileName(file));
				char *text = ks_cx_str(
					ks_cx.getDiagnosticSpelling(d));

				ks_strv_push_owned(
					&got, ks_xasprintf("%s:%u:%u: %s",
							   name, line, col,
							   text));
				free(name);
				free(text);
			}
		} else if (sev > CXDiagnostic_Error) {
			ok = 0;
		}
		ks_cx.disposeDiagnostic(d);
	}
	if (ok)
		for (i = 0; i < got.n; i++)
			ks_strv_push(out, got.v[i]);
	ks_strv_release(&got);
	ks_strv_release(&h.names);
	free(h.fns);
	return ok ? 0 : -1;
}
