/*
 * nvcc's dialect that only a changed text gives clang (tu.h): a member
 * template of a dependent class named without `template`
 * (`vec_cast<D, S>::cast<N>(d, s)`). nvcc's front end takes `cast` as
 * the template it turns out to be; clang, as the standard says, reads
 * `(vec_cast<D, S>::cast < N) > (d, s)` and errs at the instantiation.
 * The repair keeps every offset and line of the files: the qualified
 * name as spelled is overwritten by a macro of ks's, padded with blanks
 * (`_Kt1            cast` becomes `_Kt1                 `), the macro
 * defined in a header of its own, included on the command line, as the
 * same name with `template` (`#define _Kt1 vec_cast<D, S>::template
 * cast`). Only sites that clang's own diagnostics point at, and whose
 * tokens are exactly that form, are repaired.
 *
 * And the assignment of an empty braced list to a variable of a class
 * type (`res2 = {};` on a `__half2`): nvcc's front end takes it; clang
 * finds it ambiguous where the class has assignments from more than one
 * type that `{}` converts to (`__half2` has its copy, its move and the
 * `__half2_raw` one). `{}` to a class with a default constructor is a
 * value-initialized object of the class, so the site `= {}` becomes a
 * macro for `= __typeof__(NAME){}` (the name's type, never a
 * reference), which clang resolves to the move assignment: the same
 * value, unambiguous. Only where
 * clang's own diagnostic points at the `=`, the left side is one name
 * that begins a statement, and a `;` ends it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/grow.h"
#include "../core/log.h"
#include "../core/util.h"
#include "tu.h"

/* The most sites repaired in one TU. */
#define REPAIR_MAX 256

static int
diag_is_dependent_template(const char *msg)
{
	return ks_starts_with(msg, "missing 'template' keyword prior to "
				   "dependent template name") ||
	       ks_starts_with(msg, "reference to overloaded function could "
				   "not be resolved; did you mean to call it?");
}

static int
diag_is_ambiguous_assign(const char *msg)
{
	return ks_starts_with(msg, "use of overloaded operator '=' is "
				   "ambiguous");
}

static int
ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/*
 * At offset `off` of `text`: `NAME = {}` followed by `;`, NAME after a
 * `;`, `{` or `}`. Sets [*b, *e) to the bytes from `=` to `}` and
 * [*nb, *ne) to NAME; returns 0, else -1.
 */
static int
vinit_site(const char *text, size_t size, unsigned off, unsigned *b,
	   unsigned *e, unsigned *nb, unsigned *ne)
{
	size_t p = off, q;

	if (text[p] != '=' || p + 1 >= size || text[p + 1] == '=')
		return -1;
	for (p++; p < size && (text[p] == ' ' || text[p] == '\t'); p++)
		;
	if (p >= size || text[p] != '{')
		return -1;
	for (p++; p < size && (text[p] == ' ' || text[p] == '\t'); p++)
		;
	if (p >= size || text[p] != '}')
		return -1;
	*e = (unsigned)(p + 1);
	for (q = p + 1; q < size && (text[q] == ' ' || text[q] == '\t'); q++)
		;
	if (q >= size || text[q] != ';')
		return -1;
	/* the name, and what precedes it */
	for (q = off; q > 0 && (text[q - 1] == ' ' || text[q - 1] == '\t'); q--)
		;
	*ne = (unsigned)q;
	for (; q > 0 && ident_char(text[q - 1]); q--)
		;
	*nb = (unsigned)q;
	if (*nb == *ne || (text[*nb] >= '0' && text[*nb] <= '9'))
		return -1;
	for (; q > 0 && (text[q - 1] == ' ' || text[q - 1] == '\t' ||
			 text[q - 1] == '\n' || text[q - 1] == '\r');
	     q--)
		;
	if (q > 0 && text[q - 1] != ';' && text[q - 1] != '{' &&
	    text[q - 1] != '}')
		return -1;
	*b = off;
	return 0;
}

/* Spelling of token i, compared with s. */
static int
tok_is(CXTranslationUnit tu, CXToken *t, unsigned i, const char *s)
{
	char *v = ks_cx_str(ks_cx.getTokenSpelling(tu, t[i]));
	int r = !strcmp(v, s);

	free(v);
	return r;
}

static unsigned
tok_end(CXTranslationUnit tu, CXToken *t, unsigned i)
{
	unsigned off = 0;

	ks_cx.getSpellingLocation(ks_cx.getRangeEnd(ks_cx.getTokenExtent(tu, t[i])),
				  NULL, NULL, NULL, &off);
	return off;
}

static unsigned
tok_begin(CXTranslationUnit tu, CXToken *t, unsigned i)
{
	unsigned off = 0;

	ks_cx.getSpellingLocation(ks_cx.getRangeStart(ks_cx.getTokenExtent(tu, t[i])),
				  NULL, NULL, NULL, &off);
	return off;
}

/* The `>` that closes the `<` at token i (`>>` closes two), or 0. */
static unsigned
closing_angle(CXTranslationUnit tu, CXToken *t, unsigned n, unsigned i)
{
	int depth = 0;

	for (; i < n; i++) {
		if (tok_is(tu, t, i, "<") || tok_is(tu, t, i, "(") ||
		    tok_is(tu, t, i, "["))
			depth++;
		else if (tok_is(tu, t, i, ">") || tok_is(tu, t, i, ")") ||
			 tok_is(tu, t, i, "]")) {
			if (--depth == 0)
				return i;
		} else if (tok_is(tu, t, i, ">>")) {
			if ((depth -= 2) <= 0)
				return depth == 0 ? i : 0;
		} else if (tok_is(tu, t, i, ";") || tok_is(tu, t, i, "{")) {
			break;
		}
	}
	return 0;
}

/*
 * At offset `off` of `f`: `Q :: NAME <` with Q a nested name (`a<...>
 * :: b ::`), NAME not after `template`. Sets [*b, *e) to the bytes from
 * Q to the end of NAME and *name to NAME's offset; returns 0, else -1.
 */
static int
site_at(CXTranslationUnit tu, CXFile f, unsigned off, size_t size,
	unsigned *b, unsigned *e, unsigned *name)
{
	CXToken *t = NULL;
	unsigned n = 0, i = 0, last = (unsigned)(size - off > 2048 ? off + 2048 : size);
	int rc = -1, scopes = 0;

	ks_cx.tokenize(tu, ks_cx.getRange(ks_cx.getLocationForOffset(tu, f, off),
					  ks_cx.getLocationForOffset(tu, f, last)),
		       &t, &n);
	if (!n || tok_begin(tu, t, 0) != off)
		goto out;
	while (i + 2 < n && ks_cx.getTokenKind(t[i]) == CXToken_Identifier) {
		unsigned j = i + 1;

		if (tok_is(tu, t, j, "<")) {
			unsigned c = closing_angle(tu, t, n, j);

			if (!c || tok_is(tu, t, c, ">>"))
				break;
			j = c + 1;
		}
		if (j + 2 >= n || !tok_is(tu, t, j, "::"))
			break;
		scopes++;
		i = j + 1;
		/* NAME < after at least one scope: the site */
		if (ks_cx.getTokenKind(t[i]) == CXToken_Identifier &&
		    tok_is(tu, t, i + 1, "<")) {
			*b = off;
			*e = tok_end(tu, t, i);
			*name = tok_begin(tu, t, i);
			rc = 0;
			break;
		}
	}
	(void)scopes;
out:
	if (t)
		ks_cx.disposeTokens(tu, t, n);
	return rc;
}

struct rfile {
	CXFile file;
	char *name;
	struct ks_buf text;
};

void
ks_tu_repair_release(struct ks_tu_repair *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free((char *)r->files[i].Filename);
		free((char *)r->files[i].Contents);
	}
	free(r->files);
	if (r->defs) {
		unlink(r->defs);
		free(r->defs);
	}
	memset(r, 0, sizeof(*r));
}

int
ks_tu_repair_find(CXTranslationUnit tu, const char *dir,
		  struct ks_tu_repair *r)
{
	unsigned i, nd = ks_cx.getNumDiagnostics(tu);
	struct rfile *fs = NULL;
	size_t nf = 0, k;
	struct ks_buf defs = KS_BUF_INIT;
	unsigned long done[REPAIR_MAX][2];
	int nsites = 0;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < nd && nsites < REPAIR_MAX; i++) {
		CXDiagnostic d = ks_cx.getDiagnostic(tu, i);
		char *msg = ks_cx_str(ks_cx.getDiagnosticSpelling(d));
		CXFile f = NULL;
		unsigned off = 0, b, e, nm, ne = 0, p;
		int vinit;
		const char *text;
		size_t size = 0, j;
		struct rfile *rf = NULL;
		char mname[32];
		int dup = 0;

		if (ks_cx.getDiagnosticSeverity(d) < CXDiagnostic_Error)
			goto next;
		if (diag_is_dependent_template(msg))
			vinit = 0;
		else if (diag_is_ambiguous_assign(msg))
			vinit = 1;
		else
			goto next;
		ks_cx.getSpellingLocation(ks_cx.getDiagnosticLocation(d), &f,
					  NULL, NULL, &off);
		if (!f || ks_cx.Location_isInSystemHeader(
				  ks_cx.getDiagnosticLocation(d)))
			goto next;
		text = ks_cx_file_text(tu, f, &size);
		if (!text || off >= size ||
		    (vinit ? vinit_site(text, size, off, &b, &e, &nm, &ne)
			   : site_at(tu, f, off, size, &b, &e, &nm)))
			goto next;
		for (j = 0; j < (size_t)nsites; j++)
			if (done[j][0] == (unsigned long)(size_t)f && done[j][1] == b)
				dup = 1;
		if (dup)
			goto next;
		snprintf(mname, sizeof(mname), "_Kt%d", nsites + 1);
		/* the name must fit on the site's first line, and the site
		 * must hold no continuation */
		for (p = b; p < e && text[p] != '\n'; p++)
			;
		if (p - b < strlen(mname) || memchr(text + b, '\\', e - b))
			goto next;
		for (k = 0; k < nf && !rf; k++)
			if (ks_cx.File_isEqual(fs[k].file, f))
				rf = &fs[k];
		if (!rf) {
			fs = KS_GROW(fs, nf, NULL);
			rf = &fs[nf++];
			rf->file = f;
			rf->name = ks_cx_str(ks_cx.getFileName(f));
			ks_buf_init(&rf->text, 0);
			ks_buf_add(&rf->text, text, size);
		}
		/* #define _Kt1 Q::template NAME (newlines as blanks), or
		 * = __typeof__(NAME){} */
		ks_buf_addf(&defs, "#define %s ", mname);
		if (vinit)
			ks_buf_addf(&defs, "= __typeof__(%.*s){}",
				    (int)(ne - nm), text + nm);
		for (p = b; p < e && !vinit; p++) {
			if (p == nm)
				ks_buf_adds(&defs, "template ");
			ks_buf_addch(&defs, text[p] == '\n' || text[p] == '\r'
						    ? ' '
						    : text[p]);
		}
		ks_buf_addch(&defs, '\n');
		/* the site: the macro's name, then blanks; lines kept */
		memcpy(rf->text.buf + b, mname, strlen(mname));
		for (p = b + (unsigned)strlen(mname); p < e; p++)
			if (rf->text.buf[p] != '\n' && rf->text.buf[p] != '\r')
				rf->text.buf[p] = ' ';
		done[nsites][0] = (unsigned long)(size_t)f;
		done[nsites][1] = b;
		nsites++;
next:
		free(msg);
		ks_cx.disposeDiagnostic(d);
	}
	if (nsites) {
		char *path = ks_xasprintf("%s/repair-%ld.h", dir, (long)getpid());
		struct ks_buf err = KS_BUF_INIT;

		if (ks_fs_write_atomic(path, defs.buf, defs.len, &err)) {
			ks_log("analysis: cannot write %s: %s", path, err.buf);
			free(path);
			nsites = 0;
		} else {
			r->defs = path;
		}
		ks_buf_release(&err);
	}
	if (nsites) {
		r->files = ks_xcalloc(nf, sizeof(*r->files));
		for (k = 0; k < nf; k++) {
			r->files[k].Filename = fs[k].name;
			r->files[k].Length = (unsigned long)fs[k].text.len;
			r->files[k].Contents = ks_buf_detach(&fs[k].text, NULL);
		}
		r->n = nf;
		r->sites = nsites;
	} else {
		for (k = 0; k < nf; k++) {
			free(fs[k].name);
			ks_buf_release(&fs[k].text);
		}
	}
	free(fs);
	ks_buf_release(&defs);
	return nsites;
}
