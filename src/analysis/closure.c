/*
 * The closure of a kernel: what it reaches, as spelled (its key is
 * cache/key.h).
 */
#include "closure.h"

#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "tu.h"

/* ---- collection ---------------------------------------------------------- */

struct macro_use {
	char *file;
	unsigned offset;
	CXCursor def;
};

struct ks_closure_walk {
	struct ks_tu *t;
	CXCursor *queue;	/* declarations, in discovery order */
	size_t nq, aq;
	struct ks_strv macros;	/* macro names already included */
	struct ks_strv systems;	/* system declarations (qualified names) */
	struct ks_buf text;
	/* every macro expansion of the TU (non-system files), by file */
	struct macro_use *uses;
	size_t nuses, auses;
	CXCursor *defs;		/* macro definitions, for nested names */
	size_t ndefs, adefs;
	/* the declaration being scanned: references inside it are local */
	char *cur_file;
	unsigned cur_begin, cur_end;
};

static char *
spell(CXCursor c)
{
	return ks_cx_str(ks_cx.getCursorSpelling(c));
}

static char *
qualified(CXCursor c)
{
	struct ks_buf b = KS_BUF_INIT;
	CXCursor p = c;
	struct ks_strv parts = KS_STRV_INIT;
	size_t i;

	while (!ks_cx.Cursor_isNull(p) &&
	       !ks_cx.isInvalid(ks_cx.getCursorKind(p)) &&
	       ks_cx.getCursorKind(p) != CXCursor_TranslationUnit) {
		char *s = ks_cx_str(ks_cx.getCursorDisplayName(p));

		ks_strv_push_owned(&parts, s);
		p = ks_cx.getCursorSemanticParent(p);
	}
	for (i = parts.n; i-- > 0;)
		ks_buf_addf(&b, "%s%s", b.len ? "::" : "", parts.v[i]);
	ks_strv_release(&parts);
	return ks_buf_detach(&b, NULL);
}

static void
extent_of(CXCursor c, char **file, unsigned *b, unsigned *e)
{
	CXSourceRange r = ks_cx.getCursorExtent(c);
	CXFile f = NULL;

	ks_cx.getExpansionLocation(ks_cx.getRangeStart(r), &f, NULL, NULL, b);
	ks_cx.getExpansionLocation(ks_cx.getRangeEnd(r), NULL, NULL, NULL, e);
	*file = f ? ks_cx_str(ks_cx.getFileName(f)) : ks_xstrdup("");
}

static int
queued(struct ks_closure_walk *w, CXCursor c)
{
	size_t i;

	for (i = 0; i < w->nq; i++)
		if (ks_cx.equalCursors(w->queue[i], c))
			return 1;
	return 0;
}

/* The declaration a reference leads to, normalized: the definition when
 * there is one; the record for a field; the enum for an enumerator. */
static CXCursor
target(CXCursor ref)
{
	enum CXCursorKind k = ks_cx.getCursorKind(ref);
	CXCursor def;

	if (k == CXCursor_FieldDecl || k == CXCursor_EnumConstantDecl)
		ref = ks_cx.getCursorSemanticParent(ref);
	def = ks_cx.getCursorDefinition(ref);
	if (!ks_cx.Cursor_isNull(def) &&
	    !ks_cx.isInvalid(ks_cx.getCursorKind(def)))
		ref = def;
	return ref;
}

static int
is_decl_kind(enum CXCursorKind k)
{
	switch (k) {
	case CXCursor_StructDecl: case CXCursor_UnionDecl:
	case CXCursor_ClassDecl: case CXCursor_EnumDecl:
	case CXCursor_FunctionDecl: case CXCursor_VarDecl:
	case CXCursor_TypedefDecl: case CXCursor_CXXMethod:
	case CXCursor_Constructor: case CXCursor_Destructor:
	case CXCursor_ConversionFunction: case CXCursor_ClassTemplate:
	case CXCursor_ClassTemplatePartialSpecialization:
	case CXCursor_FunctionTemplate: case CXCursor_TypeAliasDecl:
	case CXCursor_TypeAliasTemplateDecl:
	case CXCursor_UsingDeclaration:
		return 1;
	default:
		return 0;
	}
}

/*
 * A builtin clang declared where it was first called (`__syncthreads`
 * once the toolkit's declaration of it comes from a PCH: clang then
 * looks the builtin up afresh): its extent is its name alone, where a
 * written declaration has a type too. It stands for the toolkit's
 * declaration, a system one, so closures (and keys) are the same with
 * and without the PCH.
 */
static int
implicit_builtin(CXCursor ref)
{
	char *file, *name;
	unsigned b = 0, e = 0;
	int r;

	if (ks_cx.getCursorKind(ref) != CXCursor_FunctionDecl ||
	    ks_cx.isCursorDefinition(ref))
		return 0;
	extent_of(ref, &file, &b, &e);
	name = spell(ref);
	r = e >= b && e - b <= strlen(name);
	free(name);
	free(file);
	return r;
}

static void
enqueue(struct ks_closure_walk *w, CXCursor ref)
{
	enum CXCursorKind k;
	char *file;
	unsigned b, e;

	if (ks_cx.Cursor_isNull(ref))
		return;
	ref = target(ref);
	k = ks_cx.getCursorKind(ref);
	if (!is_decl_kind(k))
		return;
	/* locals and parameters live inside the declaration being read */
	if (k == CXCursor_VarDecl) {
		enum CXCursorKind pk = ks_cx.getCursorKind(
			ks_cx.getCursorSemanticParent(ref));

		if (pk == CXCursor_FunctionDecl || pk == CXCursor_CXXMethod ||
		    pk == CXCursor_FunctionTemplate ||
		    pk == CXCursor_Constructor || pk == CXCursor_Destructor)
			return;
	}
	/* a class template's instantiation: the template is what is spelled */
	if (k == CXCursor_StructDecl || k == CXCursor_ClassDecl ||
	    k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod) {
		CXCursor tmpl = ks_cx.getSpecializedCursorTemplate(ref);

		if (!ks_cx.Cursor_isNull(tmpl))
			ref = target(tmpl);
	}
	if (ks_cx_is_system(ref) || implicit_builtin(ref)) {
		char *q = qualified(ref);

		if (ks_strv_find(&w->systems, q) < 0)
			ks_strv_push(&w->systems, q);
		free(q);
		return;
	}
	extent_of(ref, &file, &b, &e);
	if (w->cur_file && !strcmp(file, w->cur_file) && b >= w->cur_begin &&
	    e <= w->cur_end) {
		free(file);
		return;
	}
	free(file);
	/* a method's class, whose extent holds it (in-class definitions) */
	if (k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
	    k == CXCursor_Destructor)
		enqueue(w, ks_cx.getCursorSemanticParent(ref));
	if (queued(w, ref))
		return;
	if (w->nq == w->aq) {
		w->aq = w->aq ? 2 * w->aq : 16;
		w->queue = ks_xrealloc(w->queue, w->aq * sizeof(*w->queue));
	}
	w->queue[w->nq++] = ref;
}

static void
enqueue_type(struct ks_closure_walk *w, CXType t)
{
	int guard;

	for (guard = 0; guard < 8 && t.kind != CXType_Invalid; guard++) {
		CXCursor d = ks_cx.getTypeDeclaration(t);
		int n, i;

		if (!ks_cx.Cursor_isNull(d) &&
		    !ks_cx.isInvalid(ks_cx.getCursorKind(d)))
			enqueue(w, d);
		n = ks_cx.Type_getNumTemplateArguments(t);
		for (i = 0; i < n && i < 8; i++)
			enqueue_type(w, ks_cx.Type_getTemplateArgumentAsType(
						t, (unsigned)i));
		if (t.kind == CXType_Pointer ||
		    t.kind == CXType_LValueReference ||
		    t.kind == CXType_RValueReference)
			t = ks_cx.getPointeeType(t);
		else if (t.kind == CXType_ConstantArray ||
			 t.kind == CXType_IncompleteArray)
			t = ks_cx.getArrayElementType(t);
		else if (t.kind == CXType_Elaborated)
			t = ks_cx.Type_getNamedType(t);
		else
			break;
	}
}

static enum CXChildVisitResult
refs_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct ks_closure_walk *w = data;
	enum CXCursorKind k = ks_cx.getCursorKind(c);

	(void)parent;
	if (k == CXCursor_OverloadedDeclRef) {
		unsigned i, n = ks_cx.getNumOverloadedDecls(c);
		int sys = 0;

		/* The system candidates of a name left unresolved in a
		 * template are one entry, the name: how many of them a
		 * parse lists depends on the PCH (its overload sets are
		 * read lazily: `fma` had four candidates fewer with it). */
		for (i = 0; i < n; i++) {
			CXCursor d = ks_cx.getOverloadedDecl(c, i);

			/* (one of a header hoisted past the template is
			 * not a candidate the plain parse has: tu.h) */
			if (ks_tu_late_is(w->t->late, c, d))
				continue;
			if (ks_cx_is_system(d))
				sys = 1;
			else
				enqueue(w, d);
		}
		if (sys) {
			char *nm = spell(c);
			char *q = ks_xasprintf("%s (overloads)", nm);

			if (ks_strv_find(&w->systems, q) < 0)
				ks_strv_push(&w->systems, q);
			free(q);
			free(nm);
		}
	} else if (k == CXCursor_DeclRefExpr || k == CXCursor_MemberRefExpr ||
		   k == CXCursor_CallExpr || k == CXCursor_TypeRef ||
		   k == CXCursor_TemplateRef || k == CXCursor_MemberRef ||
		   k == CXCursor_VariableRef) {
		enqueue(w, ks_cx.getCursorReferenced(c));
	}
	if (k == CXCursor_VarDecl || k == CXCursor_ParmDecl ||
	    k == CXCursor_FieldDecl ||
	    (k >= CXCursor_FirstExpr && k <= CXCursor_LastExpr) ||
	    k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod ||
	    k == CXCursor_TypedefDecl)
		enqueue_type(w, ks_cx.getCursorType(c));
	if (k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod)
		enqueue_type(w, ks_cx.getCursorResultType(c));
	return CXChildVisit_Recurse;
}

static enum CXChildVisitResult
macro_index_visit(CXCursor c, CXCursor parent, CXClientData data)
{
	struct ks_closure_walk *w = data;
	enum CXCursorKind k = ks_cx.getCursorKind(c);

	(void)parent;
	if (k == CXCursor_MacroDefinition) {
		if (w->ndefs == w->adefs) {
			w->adefs = w->adefs ? 2 * w->adefs : 64;
			w->defs = ks_xrealloc(w->defs,
					      w->adefs * sizeof(*w->defs));
		}
		w->defs[w->ndefs++] = c;
	} else if (k == CXCursor_MacroExpansion && !ks_cx_is_system(c)) {
		CXFile f = NULL;
		unsigned off = 0;

		ks_cx.getExpansionLocation(ks_cx.getCursorLocation(c), &f, NULL,
					   NULL, &off);
		if (!f)
			return CXChildVisit_Continue;
		if (w->nuses == w->auses) {
			w->auses = w->auses ? 2 * w->auses : 64;
			w->uses = ks_xrealloc(w->uses,
					      w->auses * sizeof(*w->uses));
		}
		w->uses[w->nuses].file = ks_cx_str(ks_cx.getFileName(f));
		w->uses[w->nuses].offset = off;
		w->uses[w->nuses].def = ks_cx.getCursorReferenced(c);
		w->nuses++;
	}
	return CXChildVisit_Continue;
}

static void
add_macro(struct ks_closure_walk *w, CXCursor def, int depth);

/* Macros named inside a macro's body (nested expansions are not in the
 * preprocessing record as expansions of their own). */
static void
nested_macros(struct ks_closure_walk *w, CXCursor def, int depth)
{
	CXToken *toks = NULL;
	unsigned n = 0, i;
	size_t d;

	ks_cx.tokenize(w->t->tu, ks_cx.getCursorExtent(def), &toks, &n);
	for (i = 1; i < n; i++) {
		char *s;

		if (ks_cx.getTokenKind(toks[i]) != CXToken_Identifier)
			continue;
		s = ks_cx_str(ks_cx.getTokenSpelling(w->t->tu, toks[i]));
		for (d = w->ndefs; d-- > 0;) {
			char *name = spell(w->defs[d]);
			int eq = !strcmp(name, s);

			free(name);
			if (eq) {
				add_macro(w, w->defs[d], depth + 1);
				break;
			}
		}
		free(s);
	}
	if (toks)
		ks_cx.disposeTokens(w->t->tu, toks, n);
}

static void
add_text(struct ks_closure_walk *w, const char *file, unsigned b, unsigned e)
{
	CXFile f = ks_cx.getFile(w->t->tu, file);
	size_t size = 0;
	const char *s = ks_cx_file_text(w->t->tu, f, &size);

	if (s && e <= size && b <= e)
		ks_buf_add(&w->text, s + b, e - b);
	ks_buf_addch(&w->text, '\n');
}

static void
add_macro(struct ks_closure_walk *w, CXCursor def, int depth)
{
	char *name, *file;
	unsigned b, e;

	if (ks_cx.Cursor_isNull(def) || depth > 16)
		return;
	name = spell(def);
	if (ks_strv_find(&w->macros, name) >= 0) {
		free(name);
		return;
	}
	ks_strv_push(&w->macros, name);
	/* System macros (__global__, CUDART_VERSION) belong to the toolkit,
	 * which the key names by version. They are left out rather than
	 * named: a prelude PCH hides their expansions, and the key must not
	 * depend on how the TU was parsed. */
	if (ks_cx_is_system(def)) {
		free(name);
		return;
	}
	extent_of(def, &file, &b, &e);
	ks_buf_addf(&w->text, "== macro %s\n#define ", name);
	add_text(w, file, b, e);
	free(file);
	free(name);
	nested_macros(w, def, depth);
}

static void
macros_in(struct ks_closure_walk *w, const char *file, unsigned b, unsigned e)
{
	size_t i;

	for (i = 0; i < w->nuses; i++)
		if (w->uses[i].offset >= b && w->uses[i].offset < e &&
		    !strcmp(w->uses[i].file, file))
			add_macro(w, w->uses[i].def, 0);
}

static const char *
kind_word(enum CXCursorKind k)
{
	switch (k) {
	case CXCursor_StructDecl: return "struct";
	case CXCursor_UnionDecl: return "union";
	case CXCursor_ClassDecl: return "class";
	case CXCursor_EnumDecl: return "enum";
	case CXCursor_VarDecl: return "variable";
	case CXCursor_TypedefDecl: case CXCursor_TypeAliasDecl: return "type";
	case CXCursor_ClassTemplate: return "class-template";
	case CXCursor_FunctionTemplate: return "function-template";
	default: return "function";
	}
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *
ks_closure_text(struct ks_tu *t, CXCursor kernel)
{
	struct ks_closure_walk w;
	size_t i;

	memset(&w, 0, sizeof(w));
	w.t = t;
	ks_strv_init(&w.macros);
	ks_strv_init(&w.systems);
	ks_cx.visitChildren(ks_cx.getTranslationUnitCursor(t->tu),
			    macro_index_visit, &w);
	ks_buf_addf(&w.text, "ks-closure %d\n", KS_CLOSURE_FORMAT);
	w.queue = ks_xcalloc(16, sizeof(*w.queue));
	w.aq = 16;
	w.queue[w.nq++] = kernel;
	for (i = 0; i < w.nq; i++) {
		CXCursor d = w.queue[i];
		char *file, *q = qualified(d);
		unsigned b, e;

		extent_of(d, &file, &b, &e);
		ks_buf_addf(&w.text, "== %s %s\n",
			    kind_word(ks_cx.getCursorKind(d)), q);
		add_text(&w, file, b, e);
		free(w.cur_file);
		w.cur_file = file;
		w.cur_begin = b;
		w.cur_end = e;
		ks_cx.visitChildren(d, refs_visit, &w);
		enqueue_type(&w, ks_cx.getCursorType(d));
		macros_in(&w, file, b, e);
		free(q);
	}
	qsort(w.systems.v, w.systems.n, sizeof(*w.systems.v), cmp_str);
	for (i = 0; i < w.systems.n; i++)
		ks_buf_addf(&w.text, "== system %s\n", w.systems.v[i]);
	free(w.cur_file);
	for (i = 0; i < w.nuses; i++)
		free(w.uses[i].file);
	free(w.uses);
	free(w.defs);
	free(w.queue);
	ks_strv_release(&w.macros);
	ks_strv_release(&w.systems);
	return ks_buf_detach(&w.text, NULL);
}
