/*
 * The `ptxas -v` parser (evidence.h): registers, spills, stack, shared and
 * constant memory, barriers per kernel and real arch.
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
/* ptxas -v                                                            */

/*
 * One comma-separated item of a ptxas resource line: "Used 14 registers",
 * "used 1 barriers", "512 bytes smem", "372 bytes cmem[0]",
 * "8 bytes stack frame", "0 bytes spill stores". Words before the number
 * are skipped; the words after it say what it counts.
 */
static void
ptxas_item(struct ks_evidence_kernel *k, const char *p, size_t n)
{
	char what[64];
	const char *e = p + n;
	char *end;
	long v;
	size_t w;

	while (p < e && !isdigit((unsigned char)*p))
		p++;
	if (p == e)
		return;
	v = strtol(p, &end, 10);
	p = ks_ev_skip_space(end);
	if (ks_starts_with(p, "bytes "))
		p += 6;
	w = (size_t)(e - p) < sizeof(what) - 1 ? (size_t)(e - p)
					       : sizeof(what) - 1;
	memcpy(what, p, w);
	what[w] = '\0';
	while (w && isspace((unsigned char)what[w - 1]))
		what[--w] = '\0';
	if (!strcmp(what, "registers"))
		k->regs = v;
	else if (!strcmp(what, "barriers"))
		k->barriers_used = v;
	else if (!strcmp(what, "smem"))
		k->smem_static = v;
	else if (ks_starts_with(what, "cmem["))
		k->cmem = (k->cmem > 0 ? k->cmem : 0) + v;
	else if (!strcmp(what, "stack frame"))
		k->stack_frame = v;
	else if (!strcmp(what, "lmem") && k->stack_frame < 0)
		k->stack_frame = v;	/* older ptxas said lmem */
	else if (!strcmp(what, "spill stores"))
		k->spill_stores = v;
	else if (!strcmp(what, "spill loads"))
		k->spill_loads = v;
}

static void
ptxas_items(struct ks_evidence_kernel *k, const char *p, size_t n)
{
	const char *e = p + n;

	while (p < e) {
		const char *c = memchr(p, ',', (size_t)(e - p));
		size_t len = c ? (size_t)(c - p) : (size_t)(e - p);

		ptxas_item(k, p, len);
		p += len + (c ? 1 : 0);
	}
}

int
ks_evidence_parse_ptxas(struct ks_evidence *ev, const char *text,
			struct ks_buf *err)
{
	static const char entry[] = "Compiling entry function '";
	static const char props[] = "Function properties for ";
	struct ks_evidence_kernel *cur = NULL;
	int props_pending = 0;
	const char *p = text;

	while (*p) {
		size_t n = ks_ev_line_len(p);
		const char *next = p + n + (p[n] ? 1 : 0);
		const char *msg, *colon;

		if (!ks_starts_with(p, "ptxas info")) {
			/* The "N bytes stack frame" line of properties. */
			if (props_pending && cur)
				ptxas_items(cur, p, n);
			props_pending = 0;
			p = next;
			continue;
		}
		props_pending = 0;
		colon = memchr(p, ':', n);
		if (!colon) {
			p = next;
			continue;
		}
		msg = ks_ev_skip_space(colon + 1);
		if (ks_starts_with(msg, entry)) {
			const char *name = msg + sizeof(entry) - 1;
			const char *q =
				memchr(name, '\'', (size_t)(p + n - name));
			const char *a, *ae;
			char arch[32];

			a = q ? strstr(q, " for '") : NULL;
			if (!q || !a || a > p + n) {
				return ks_error(err, "ptxas line without an "
						"arch: %.*s", (int)n, p);
			}
			a += 6;
			ae = memchr(a, '\'', (size_t)(p + n - a));
			if (!ae || (size_t)(ae - a) >= sizeof(arch))
				return ks_error(err, "ptxas line without an "
						"arch: %.*s", (int)n, p);
			memcpy(arch, a, (size_t)(ae - a));
			arch[ae - a] = '\0';
			cur = ks_ev_record(ev, name, (size_t)(q - name), arch);
			cur->sources |= KS_EVIDENCE_PTXAS;
		} else if (ks_starts_with(msg, props)) {
			const char *name = msg + sizeof(props) - 1;
			size_t len = (size_t)(p + n - name);

			while (len && isspace((unsigned char)name[len - 1]))
				len--;
			/* Device functions have properties too: only
			 * the entry's count. */
			props_pending = cur && strlen(cur->name) == len &&
					!memcmp(cur->name, name, len);
		} else if (ks_starts_with(msg, "Used ") && cur) {
			/*
			 * ptxas names smem only when there is some. It names no
			 * cmem at all for sm_90, so absent cmem stays unknown.
			 */
			cur->smem_static = 0;
			ptxas_items(cur, msg, (size_t)(p + n - msg));
		}
		p = next;
	}
	return 0;
}
