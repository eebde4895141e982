/*
 * tu: the libclang side of the analysis, shared by its .c files.
 *
 * ks_tu_parse() turns a struct ks_tu_opts into a parsed translation unit
 * (stub header, prelude, cached PCH, diagnostics check); ks_walk() reads
 * kernels, launches and facts out of it; ks_closure_text() follows a
 * kernel's references. Only src/analysis includes this header (it needs
 * <clang-c/Index.h>); the rest of ks sees inventory.h.
 *
 * Ownership: struct ks_tu owns the index and the translation unit;
 * ks_tu_release() disposes of both (safe on a zeroed struct). Cursors
 * are valid while the struct ks_tu lives.
 * May include: libc, core/, nvcc/arch.h, cx.h, hoist.h, inventory.h.
 */
#ifndef KS_ANALYSIS_TU_H
#define KS_ANALYSIS_TU_H

#include "cx.h"
#include "inventory.h"

struct ks_buf;

/*
 * The repair of nvcc's dialect for the parse (dependent template names
 * spelled without `template`, `x = {}` that clang finds ambiguous)
 * (tu_repair.c): the changed texts of the files (same offsets and lines
 * as on disk) for libclang's unsaved files, and the header of their
 * macros, included on the command line. Owned; _release unlinks it.
 */
struct ks_tu_repair {
	struct CXUnsavedFile *files;
	size_t n;
	char *defs;		/* path of the macros' header, or NULL */
	int sites;
};

/* Sites of `tu`'s error diagnostics that are such names, repaired into
 * `r` (the header written under `dir`). Returns their number (0: none,
 * `r` empty). */
int ks_tu_repair_find(CXTranslationUnit tu, const char *dir,
		      struct ks_tu_repair *r);
void ks_tu_repair_release(struct ks_tu_repair *r);

#include "hoist.h"

/* At the PCH's build, from its parse: -1 when a user macro is a name of
 * a header at or after its place; appends the headers' macros to
 * `macros` ("i NAME" lines, i the first header that defines NAME, -1
 * before them all), and, when `files` is not NULL, the files each
 * header brings in first ("i PATH" lines, as clang names them). */
int ks_tu_hoist_build_check(CXTranslationUnit tu, const struct ks_tu_hoist *h,
			    struct ks_buf *macros, struct ks_buf *files);

/*
 * Declarations of hoisted headers that user code before the header's
 * own include sees only because of the PCH ("late" ones). Made from the
 * scan's segments and the PCH's files; owned by struct ks_tu.
 */
struct ks_tu_late;
struct ks_tu_late *ks_tu_late_new(const struct ks_tu_hoist *h,
				  const char *files);
void ks_tu_late_free(struct ks_tu_late *l);
/* 1 when `decl` is late for the code at `at` (a cursor of user code). */
int ks_tu_late_is(struct ks_tu_late *l, CXCursor at, CXCursor decl);
/* Every reference of the user code to a declaration late for it: 0
 * when none, or each is a global operator among the candidates of an
 * unresolved operator of a template (which the closure leaves out, so
 * it is the plain parse's); else -1 with where, in `why`. */
int ks_tu_late_check(CXTranslationUnit tu, struct ks_tu_late *l,
		     struct ks_buf *why);

struct ks_tu {
	CXIndex index;
	CXTranslationUnit tu;
	char *source;		/* absolute path of the main file */
	int prelude;		/* parsed with ks's prelude (no toolkit) */
	int used_pch;
	double seconds;
	/* the walk's work: steps taken and the bound (0: none) */
	unsigned long steps, max_steps;
	int timed_out;		/* the walk stopped at the time bound */
	/* errors clang gave in host code only (ks_walk_host_errors), as
	 * "file:line:col: message"; the parse went on without them */
	struct ks_strv host_errors;
	/* the clang arguments of the parse, for a second parse of the same
	 * TU (explicit instantiations: walk_tu.c) */
	struct ks_strv args;
	/* the files as parsed where nvcc's dialect needed a changed text
	 * (a second parse passes them too) */
	struct ks_tu_repair repair;
	/* headers hoisted past user code: their late declarations (NULL:
	 * none), which the closure leaves out */
	struct ks_tu_late *late;
};

/*
 * The time bound of a TU's analysis (watch.c), `ms` of the process's
 * CPU time: from _start, the walk stops once ks_tu_watch_expired(); a
 * libclang call still running a CPU second past `ms` ends the process
 * with ks_tu_watch_reason()'s text on stderr (status KS_EXIT_FAILED;
 * SIGPROF is taken meanwhile). `ms` 0: no bound. _stop disarms it.
 */
void ks_tu_watch_start(const char *source, unsigned long ms);
/* CPU ms since the bound started (0: none running); the bound again
 * after work outside it (a PCH's build), with `spent` of it used. */
unsigned long ks_tu_watch_spent(void);
void ks_tu_watch_resume(const char *source, unsigned long ms,
			unsigned long spent);
void ks_tu_watch_stop(void);
int ks_tu_watch_expired(void);
void ks_tu_watch_reason(const char *source, unsigned long ms, char *buf,
			size_t size);

/* Parse `o` (libclang must be loaded). Returns 0, or -1 with the reason. */
int ks_tu_parse(const struct ks_tu_opts *o, struct ks_tu *t,
		struct ks_buf *err);
void ks_tu_release(struct ks_tu *t);

/* Fill kernels (with facts and features), launches and host facts.
 * Returns -1 when the walk took more than t->max_steps steps (then what
 * it filled is incomplete), else 0. */
int ks_walk(struct ks_tu *t, struct ks_inventory *inv);

/*
 * The TU's error diagnostics, when every one lies in host-only code that
 * names no kernel, launch or template function (walk_hosterr.c): appends
 * them to `out` as "file:line:col: message" and returns 0; else -1 and
 * nothing appended (the TU is refused).
 */
int ks_walk_host_errors(struct ks_tu *t, struct ks_strv *out);

/*
 * The closure of `kernel` (a definition cursor) as text: see closure.h
 * for what it holds. Returns a malloc'd string.
 */
char *ks_closure_text(struct ks_tu *t, CXCursor kernel);

/* Helpers shared by walk.c and closure.c. */
char *ks_cx_str(CXString s);	/* copy and dispose; never NULL */
unsigned ks_cx_line(CXCursor c);
/* The cursor's bytes in the main file; *in_main 0 when elsewhere or from
 * a macro. */
void ks_cx_range(CXCursor c, unsigned long *begin, unsigned long *end,
		 int *in_main);
/* A comparison operator (KS_CXBO_LT ...) as an enum ks_cmp, read from the
 * other side when `swapped`. */
int ks_cx_cmp(int op, int swapped);
void ks_cx_extent(CXSourceRange r, struct ks_extent *out);
int ks_cx_is_system(CXCursor c);
/* The bytes of `file` as libclang read them, or NULL. */
const char *ks_cx_file_text(CXTranslationUnit tu, CXFile file, size_t *size);

#endif
