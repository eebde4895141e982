/*
 * The SASS parser (evidence.h): `cuobjdump -sass` listings.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "evidence.h"
#include "parse.h"

/* ------------------------------------------------------------------ */
/* SASS (cuobjdump -sass)                                              */

/* An address comment such as 00b0 between slash-stars at p: returns what
 * follows it, or NULL. */
static const char *
sass_address(const char *p)
{
	const char *q;

	if (p[0] != '/' || p[1] != '*' || !isxdigit((unsigned char)p[2]))
		return NULL;
	for (q = p + 2; isxdigit((unsigned char)*q); q++)
		;
	return q[0] == '*' && q[1] == '/' ? q + 2 : NULL;
}

int
ks_evidence_parse_sass(struct ks_evidence *ev, const char *text,
		       struct ks_buf *err)
{
	struct ks_evidence_kernel *cur = NULL;
	char arch[32] = "";
	const char *p = text;

	while (*p) {
		size_t n = ks_ev_line_len(p);
		const char *next = p + n + (p[n] ? 1 : 0);
		const char *s = ks_ev_skip_space(p), *ins;

		if (s >= p + n) {
			p = next;
			continue;
		}
		if (ks_starts_with(s, "arch = ") ||
		    ks_starts_with(s, "code for ")) {
			const char *a = ks_ev_skip_space(strchr(s, ' ') + 1);
			size_t len = 0;

			if (*a == '=')
				a = ks_ev_skip_space(a + 1);
			else if (ks_starts_with(a, "for "))
				a = ks_ev_skip_space(a + 4);
			while (isalnum((unsigned char)a[len]) || a[len] == '_')
				len++;
			if (len && len < sizeof(arch)) {
				memcpy(arch, a, len);
				arch[len] = '\0';
			}
			cur = NULL;
		} else if (ks_starts_with(s, "Function : ")) {
			const char *name = s + 11;
			size_t len = (size_t)(p + n - name);

			while (len && isspace((unsigned char)name[len - 1]))
				len--;
			if (!arch[0])
				return ks_error(err, "sass function "
						"'%.*s' before any arch",
						(int)len, name);
			cur = ks_ev_record(ev, name, len, arch);
			memset(&cur->sass, 0, sizeof(cur->sass));
			cur->sources |= KS_EVIDENCE_SASS;
		} else if ((ins = sass_address(s)) && cur) {
			const char *op;

			ins = ks_ev_skip_space(ins);
			if (*ins == '{')
				ins = ks_ev_skip_space(ins + 1);
			if (*ins == '@') {
				while (*ins && !isspace((unsigned char)*ins))
					ins++;
				ins = ks_ev_skip_space(ins);
			}
			op = ins;
			while (*ins && !isspace((unsigned char)*ins) &&
			       *ins != ';')
				ins++;
			if (ins > op && isupper((unsigned char)*op))
				ks_ev_sass_classify(&cur->sass, op,
					      (size_t)(ins - op));
		}
		p = next;
	}
	return 0;
}
