/*
 * hoist: the system headers of a TU's include closure that its PCH may
 * hold ahead of the TU's text (tu_hoist.c), and what the PCH must be
 * checked against. Free of libclang, so that the scan and the macro
 * check are tested without it; the checks that read a parse are tu.h's.
 *
 * Ownership: struct ks_tu_hoist owns its strings; ks_tu_hoist_release()
 * frees them (safe on a zeroed struct).
 * May include: libc, core/, inventory.h.
 */
#ifndef KS_ANALYSIS_HOIST_H
#define KS_ANALYSIS_HOIST_H

#include <stddef.h>

#include "../core/strv.h"
#include "inventory.h"

/*
 * The system headers of the TU's include closure that its PCH may hold
 * ahead of the TU's text (tu_hoist.c), and what the PCH must be checked
 * against: the user macros defined before each ("c NAME": c headers
 * before it), the user headers' include guards ("c NAME"), and the
 * identifiers of the user text before the last header, each with the
 * number of headers before its first use. Owned.
 */
struct ks_tu_hoist_ident {
	char *name;
	int at;
};

/* Where the user text stands among the headers: from `off` of `file`
 * (a real path) on, `c` headers are included before it (in the order a
 * plain parse reads them). */
struct ks_tu_hoist_seg {
	char *file;
	unsigned long off;
	int c;
};

struct ks_tu_hoist {
	struct ks_strv headers;		/* `#include <...>` names, in order */
	struct ks_strv macros;
	struct ks_strv guards;
	struct ks_tu_hoist_ident *ids;
	size_t nids, ids_alloc;
	char *stopped;			/* "file:line" where the scan ended */
	/* with `code` (ks_tu_hoist_scan): headers first included after
	 * user code (0: none), and the segments of the user files */
	int crossed;
	struct ks_tu_hoist_seg *segs;
	size_t nsegs, segs_alloc;
};

/* `code` 0: the scan stops at the first code; 1: it reads past code
 * (its identifiers are names of the user text as a directive's are),
 * and the headers after code are hoisted only if ks_tu_late_check
 * passes. */
void ks_tu_hoist_scan(const struct ks_tu_opts *o, const char *source,
		      int code, struct ks_tu_hoist *h);
void ks_tu_hoist_release(struct ks_tu_hoist *h);
/* Per TU, with those `macros` and the parse's arguments: -1 when an
 * identifier of the user text is a macro only a later header defines,
 * or a guard is a macro; else 0. */
int ks_tu_hoist_check(const struct ks_tu_hoist *h, const char *macros,
		      const struct ks_strv *args);

#endif
