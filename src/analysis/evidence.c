#include "evidence.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/log.h"
#include "../core/proc.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "../../wrapper/nvopts.h"

/* ------------------------------------------------------------------ */
/* Records                                                             */

void
ks_evidence_release(struct ks_evidence *ev)
{
	size_t i;

	for (i = 0; i < ev->n; i++) {
		free(ev->k[i].name);
		free(ev->k[i].arch);
	}
	free(ev->k);
	ev->k = NULL;
	ev->n = ev->alloc = 0;
}

static struct ks_evidence_kernel *
find_mut(const struct ks_evidence *ev, const char *kernel, const char *arch)
{
	size_t i;

	for (i = 0; i < ev->n; i++)
		if (!strcmp(ev->k[i].name, kernel) &&
		    !strcmp(ev->k[i].arch, arch))
			return &ev->k[i];
	return NULL;
}

const struct ks_evidence_kernel *
ks_evidence_find(const struct ks_evidence *ev, const char *kernel,
		 const char *arch)
{
	return find_mut(ev, kernel, arch);
}

/* The record of (name, arch), created empty when missing. */
static struct ks_evidence_kernel *
record(struct ks_evidence *ev, const char *name, size_t name_len,
       const char *arch)
{
	struct ks_evidence_kernel *k;
	char *n = ks_xstrndup(name, name_len);

	k = find_mut(ev, n, arch);
	if (k) {
		free(n);
		return k;
	}
	if (ev->n == ev->alloc) {
		ev->alloc = ev->alloc ? 2 * ev->alloc : 16;
		ev->k = ks_xrealloc(ev->k, ev->alloc * sizeof(*ev->k));
	}
	k = &ev->k[ev->n++];
	memset(k, 0, sizeof(*k));
	k->name = n;
	k->arch = ks_xstrdup(arch);
	k->regs = k->barriers_used = k->stack_frame = -1;
	k->spill_stores = k->spill_loads = k->smem_static = k->cmem = -1;
	return k;
}

static void
counts_add(struct ks_evidence_counts *to, const struct ks_evidence_counts *c)
{
	to->instructions += c->instructions;
	to->vec128_global_loads += c->vec128_global_loads;
	to->vec128_global_stores += c->vec128_global_stores;
	to->vec64_global_loads += c->vec64_global_loads;
	to->vec64_global_stores += c->vec64_global_stores;
	to->local_loads += c->local_loads;
	to->local_stores += c->local_stores;
	to->tensor_ops += c->tensor_ops;
	to->fp64_ops += c->fp64_ops;
	to->sfu_ops += c->sfu_ops;
	to->atomics += c->atomics;
	to->barriers += c->barriers;
	to->shuffles += c->shuffles;
}

/* ------------------------------------------------------------------ */
/* Small text helpers                                                  */

static const char *
skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return p;
}

/* Length of the line at `p` without its newline. */
static size_t
line_len(const char *p)
{
	const char *e = strchr(p, '\n');

	return e ? (size_t)(e - p) : strlen(p);
}

/* Split an opcode ("ld.global.nc.v4.f32") into at most `max` parts. */
static size_t
split_opcode(const char *op, size_t len, char parts[][24], size_t max)
{
	size_t n = 0, i = 0;

	while (i <= len && n < max) {
		size_t j = i, k;

		while (j < len && op[j] != '.')
			j++;
		k = j - i < 23 ? j - i : 23;
		memcpy(parts[n], op + i, k);
		parts[n][k] = '\0';
		n++;
		i = j + 1;
	}
	return n;
}

static int
has_part(char parts[][24], size_t n, const char *want)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (!strcmp(parts[i], want))
			return 1;
	return 0;
}

/* "sm_90a" -> 90 and "a"; -1 when not "sm_<digits>". */
static long
arch_number(const char *arch, const char **suffix)
{
	char *end;
	long v;

	if (strncmp(arch, "sm_", 3) || !isdigit((unsigned char)arch[3]))
		return -1;
	v = strtol(arch + 3, &end, 10);
	if (suffix)
		*suffix = end;
	return v;
}

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
	p = skip_space(end);
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
		size_t n = line_len(p);
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
		msg = skip_space(colon + 1);
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
			cur = record(ev, name, (size_t)(q - name), arch);
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

/* ------------------------------------------------------------------ */
/* Instruction classes: knowledge as data                              */

/* PTX types and their widths in bits. */
static const struct {
	const char *name;
	int bits;
} ptx_types[] = {
	{ "b8", 8 }, { "s8", 8 }, { "u8", 8 },
	{ "b16", 16 }, { "s16", 16 }, { "u16", 16 }, { "f16", 16 },
	{ "bf16", 16 },
	{ "b32", 32 }, { "s32", 32 }, { "u32", 32 }, { "f32", 32 },
	{ "f16x2", 32 }, { "bf16x2", 32 }, { "tf32", 32 },
	{ "b64", 64 }, { "s64", 64 }, { "u64", 64 }, { "f64", 64 },
	{ "b128", 128 },
};

/* PTX opcodes that are FP64 arithmetic when their type is .f64. */
static const char *const ptx_fp64_ops[] = {
	"abs", "add", "div", "fma", "mad", "max", "min", "mul", "neg", "rcp",
	"rsqrt", "setp", "sqrt", "sub", "testp",
};

/* PTX special-function opcodes: always (these exist only as .approx) ... */
static const char *const ptx_sfu_always[] = {
	"cos", "ex2", "lg2", "sin", "tanh",
};
/* ... or only in their .approx form. */
static const char *const ptx_sfu_approx[] = {
	"rcp", "rsqrt", "sqrt",
};

/* SASS opcodes (before the first '.') by class. */
static const char *const sass_fp64[] = {
	"DADD", "DFMA", "DMNMX", "DMUL", "DSETP",
};
static const char *const sass_atomics[] = {
	"ATOM", "ATOMG", "ATOMS", "RED", "REDAS", "REDG",
};

static int
in_list(const char *s, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, list[i]))
			return 1;
	return 0;
}

#define IN(s, list) in_list((s), (list), KS_ARRAY_SIZE(list))

/* Width in bits of a PTX memory access: vector count times type width. */
static int
ptx_access_bits(char parts[][24], size_t n, int *vector)
{
	int vec = 1, bits = 0;
	size_t i, t;

	for (i = 1; i < n; i++) {
		if (parts[i][0] == 'v' && isdigit((unsigned char)parts[i][1]))
			vec = atoi(parts[i] + 1);
		for (t = 0; t < KS_ARRAY_SIZE(ptx_types); t++)
			if (!strcmp(parts[i], ptx_types[t].name))
				bits = ptx_types[t].bits;
	}
	*vector = vec > 1;
	return vec * bits;
}

/* Count one PTX instruction with opcode `op` (len bytes) into `c`. */
static void
ptx_classify(struct ks_evidence_counts *c, const char *op, size_t len)
{
	char parts[16][24];
	size_t n = split_opcode(op, len, parts, 16);
	const char *base = parts[0], *type = parts[n - 1];

	c->instructions++;
	if (!strcmp(base, "ld") || !strcmp(base, "ldu") ||
	    !strcmp(base, "st")) {
		int load = base[0] == 'l', vector, bits;

		bits = ptx_access_bits(parts, n, &vector);
		if (has_part(parts, n, "local")) {
			if (load)
				c->local_loads++;
			else
				c->local_stores++;
		} else if (has_part(parts, n, "global")) {
			if (bits >= 128) {
				if (load)
					c->vec128_global_loads++;
				else
					c->vec128_global_stores++;
			} else if (bits == 64 && vector) {
				if (load)
					c->vec64_global_loads++;
				else
					c->vec64_global_stores++;
			}
		}
	} else if (!strcmp(base, "mma") ||
		   (!strcmp(base, "wmma") && n > 1 &&
		    !strcmp(parts[1], "mma")) ||
		   ((!strcmp(base, "wgmma") || !strcmp(base, "tcgen05")) &&
		    n > 1 && ks_starts_with(parts[1], "mma"))) {
		c->tensor_ops++;
	} else if (!strcmp(base, "atom") || !strcmp(base, "red")) {
		c->atomics++;
	} else if ((!strcmp(base, "bar") || !strcmp(base, "barrier")) &&
		   !(n > 1 && !strcmp(parts[1], "warp"))) {
		c->barriers++;
	} else if (!strcmp(base, "shfl")) {
		c->shuffles++;
	}
	if (!strcmp(type, "f64") && IN(base, ptx_fp64_ops))
		c->fp64_ops++;
	if (IN(base, ptx_sfu_always) ||
	    (IN(base, ptx_sfu_approx) && has_part(parts, n, "approx")))
		c->sfu_ops++;
}

/* Count one SASS instruction with opcode `op` into `c`. */
static void
sass_classify(struct ks_evidence_counts *c, const char *op, size_t len)
{
	char parts[16][24];
	size_t n = split_opcode(op, len, parts, 16), blen;
	const char *base = parts[0];

	c->instructions++;
	blen = strlen(base);
	if (!strcmp(base, "LDG") || !strcmp(base, "STG")) {
		int load = base[0] == 'L';

		if (has_part(parts, n, "128") || has_part(parts, n, "256")) {
			if (load)
				c->vec128_global_loads++;
			else
				c->vec128_global_stores++;
		} else if (has_part(parts, n, "64")) {
			if (load)
				c->vec64_global_loads++;
			else
				c->vec64_global_stores++;
		}
	} else if (!strcmp(base, "LDL")) {
		c->local_loads++;
	} else if (!strcmp(base, "STL")) {
		c->local_stores++;
	} else if (blen >= 3 && !strcmp(base + blen - 3, "MMA")) {
		c->tensor_ops++; /* HMMA IMMA DMMA BMMA HGMMA UTCHMMA ... */
	} else if (IN(base, sass_fp64)) {
		c->fp64_ops++;
	} else if (!strcmp(base, "MUFU")) {
		c->sfu_ops++;
	} else if (IN(base, sass_atomics)) {
		c->atomics++;
	} else if (!strcmp(base, "BAR")) {
		c->barriers++;
	} else if (!strcmp(base, "SHFL")) {
		c->shuffles++;
	}
}

/* ------------------------------------------------------------------ */
/* PTX                                                                 */

struct ptx_func {
	char *name;
	int entry;
	struct ks_evidence_counts c;
	struct ks_strv callees;
};

struct ptx_file {
	struct ptx_func *f;
	size_t n, alloc;
};

static void
ptx_file_release(struct ptx_file *pf)
{
	size_t i;

	for (i = 0; i < pf->n; i++) {
		free(pf->f[i].name);
		ks_strv_release(&pf->f[i].callees);
	}
	free(pf->f);
}

static int
ptx_word_char(int c)
{
	return isalnum(c) || c == '_' || c == '$' || c == '%' || c == '.';
}

/* After "call[.uni]": skip "(retval)," and take the callee's name. */
static void
ptx_callee(struct ptx_func *f, const char *p, const char *e)
{
	const char *s;

	p = skip_space(p);
	if (p < e && *p == '(') {
		int depth = 0;

		for (; p < e; p++) {
			if (*p == '(')
				depth++;
			else if (*p == ')' && --depth == 0) {
				p++;
				break;
			}
		}
		p = skip_space(p);
		if (p < e && *p == ',')
			p = skip_space(p + 1);
	}
	s = p;
	while (p < e && (isalnum((unsigned char)*p) || *p == '_' || *p == '$'))
		p++;
	/* An indirect call names a register (%rd5): nothing to fold. */
	if (p > s && !isdigit((unsigned char)*s))
		ks_strv_push_owned(&f->callees,
				   ks_xstrndup(s, (size_t)(p - s)));
}

/* One statement of a function body (text between ';', '{' or '}'). */
static void
ptx_statement(struct ptx_func *f, const char *p, const char *e)
{
	const char *op;

	for (;;) {
		const char *w;

		p = skip_space(p);
		if (p >= e)
			return;
		/* .loc ends at the newline, not at ';'; so do comments. */
		if (ks_starts_with(p, ".loc") || ks_starts_with(p, "//")) {
			while (p < e && *p != '\n')
				p++;
			continue;
		}
		if (ks_starts_with(p, "/*")) {
			const char *c = strstr(p + 2, "*/");

			p = c && c < e ? c + 2 : e;
			continue;
		}
		w = p;
		while (w < e &&
		       (isalnum((unsigned char)*w) || *w == '_' || *w == '$'))
			w++;
		if (w > p && w < e && *w == ':' &&
		    (w + 1 >= e || w[1] != ':')) {
			p = w + 1;	/* a label */
			continue;
		}
		break;
	}
	if (*p == '.')
		return;		/* .reg, .local, .shared, .pragma ... */
	if (*p == '@') {
		while (p < e && !isspace((unsigned char)*p))
			p++;
		p = skip_space(p);
	}
	op = p;
	while (p < e && !isspace((unsigned char)*p))
		p++;
	if (p == op)
		return;
	ptx_classify(&f->c, op, (size_t)(p - op));
	if ((size_t)(p - op) >= 4 && !strncmp(op, "call", 4) &&
	    (p - op == 4 || op[4] == '.'))
		ptx_callee(f, p, e);
}

/* Skip a comment or string at `p`; returns the next position, or p. */
static const char *
ptx_skip_comment(const char *p)
{
	if (p[0] == '/' && p[1] == '/') {
		while (*p && *p != '\n')
			p++;
		return p;
	}
	if (p[0] == '/' && p[1] == '*') {
		const char *e = strstr(p + 2, "*/");

		return e ? e + 2 : p + strlen(p);
	}
	if (p[0] == '"') {
		p++;
		while (*p && *p != '"' && *p != '\n')
			p++;
		return *p == '"' ? p + 1 : p;
	}
	return p;
}

/* Is [p, e) only blanks and comments? */
static int
blank(const char *p, const char *e)
{
	while (p < e) {
		const char *q = ptx_skip_comment(p);

		if (q != p) {
			p = q;
			continue;
		}
		if (!isspace((unsigned char)*p))
			return 0;
		p++;
	}
	return 1;
}

/* Fold the counts of every function reachable from `root` into `out`. */
static void
ptx_fold(const struct ptx_file *pf, size_t root, struct ks_evidence_counts *out)
{
	unsigned char *seen = ks_xcalloc(pf->n ? pf->n : 1, 1);
	size_t *stack = ks_xmalloc((pf->n + 1) * sizeof(*stack));
	size_t top = 0, j, k;

	stack[top++] = root;
	seen[root] = 1;
	while (top) {
		const struct ptx_func *f = &pf->f[stack[--top]];

		counts_add(out, &f->c);
		for (j = 0; j < f->callees.n; j++) {
			for (k = 0; k < pf->n; k++) {
				if (seen[k] ||
				    strcmp(pf->f[k].name, f->callees.v[j]))
					continue;
				seen[k] = 1;
				stack[top++] = k;
			}
		}
	}
	free(stack);
	free(seen);
}

/* A new function record named `name` (taken over). */
static struct ptx_func *
ptx_add(struct ptx_file *pf, char *name, int entry)
{
	struct ptx_func *f;

	if (pf->n == pf->alloc) {
		pf->alloc = pf->alloc ? 2 * pf->alloc : 16;
		pf->f = ks_xrealloc(pf->f, pf->alloc * sizeof(*pf->f));
	}
	f = &pf->f[pf->n++];
	memset(f, 0, sizeof(*f));
	ks_strv_init(&f->callees);
	f->name = name;
	f->entry = entry;
	return f;
}

/*
 * The block after a '{' at p: a function's body (its statements go to
 * `f`), or an initializer's braces when `f` is NULL. A brace inside an
 * instruction groups a vector operand ({%f1, %f2}); one that opens a
 * statement opens a scope block ({ // callseq). Returns what follows the
 * closing '}'.
 */
static const char *
ptx_block(const char *p, struct ptx_func *f)
{
	const char *stmt = p;
	int depth = 1, operand = 0;

	while (*p && depth) {
		const char *q = ptx_skip_comment(p);

		if (q != p) {
			p = q;
			continue;
		}
		if (*p == '{' && !blank(stmt, p)) {
			operand++;
		} else if (*p == '}' && operand) {
			operand--;
		} else if (*p == ';' || *p == '{' || *p == '}') {
			if (f)
				ptx_statement(f, stmt, p);
			if (*p == '{')
				depth++;
			else if (*p == '}')
				depth--;
			stmt = p + 1;
		}
		p++;
	}
	return p;
}

/* Is the word [w, e) `name`? */
static int
word_is(const char *w, const char *e, const char *name)
{
	size_t n = (size_t)(e - w);

	return n == strlen(name) && !strncmp(w, name, n);
}

int
ks_evidence_parse_ptx(struct ks_evidence *ev, const char *text,
		      struct ks_buf *err)
{
	struct ptx_file pf = { NULL, 0, 0 };
	char arch[32] = "";
	char *pending = NULL;	/* the .entry or .func before its body */
	int pending_entry = 0, want_name = 0, parens = 0, rc = -1;
	const char *p = text;
	size_t i;

	while (*p) {
		const char *q = ptx_skip_comment(p), *w;

		if (q != p) {
			p = q;
		} else if (*p == '(' || *p == ')') {
			parens += *p++ == '(' ? 1 : -1;
		} else if (*p == ';') {
			free(pending);
			pending = NULL;
			want_name = 0;
			p++;
		} else if (*p == '{') {
			struct ptx_func *f = NULL;

			if (pending)
				f = ptx_add(&pf, pending, pending_entry);
			pending = NULL;
			p = ptx_block(p + 1, f);
			want_name = parens = 0;
		} else if (ptx_word_char((unsigned char)*p)) {
			for (w = p; ptx_word_char((unsigned char)*p); p++)
				;
			if (word_is(w, p, ".target")) {
				const char *a = skip_space(p);

				p = a;
				while (isalnum((unsigned char)*p) || *p == '_')
					p++;
				if ((size_t)(p - a) < sizeof(arch)) {
					memcpy(arch, a, (size_t)(p - a));
					arch[p - a] = '\0';
				}
			} else if (word_is(w, p, ".entry") ||
				   word_is(w, p, ".func")) {
				pending_entry = w[1] == 'e';
				want_name = 1;
				free(pending);
				pending = NULL;
			} else if (want_name && !parens && *w != '.') {
				/* .func (.param .b64 retval) name( ... */
				pending = ks_xstrndup(w, (size_t)(p - w));
				want_name = 0;
			}
		} else {
			p++;
		}
	}
	if (!arch[0]) {
		ks_error(err, "ptx without a .target directive");
		goto out;
	}
	for (i = 0; i < pf.n; i++) {
		struct ks_evidence_kernel *k;

		if (!pf.f[i].entry)
			continue;
		k = record(ev, pf.f[i].name, strlen(pf.f[i].name), arch);
		memset(&k->ptx, 0, sizeof(k->ptx));
		ptx_fold(&pf, i, &k->ptx);
		k->sources |= KS_EVIDENCE_PTX;
	}
	rc = 0;
out:
	free(pending);
	ptx_file_release(&pf);
	return rc;
}

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
		size_t n = line_len(p);
		const char *next = p + n + (p[n] ? 1 : 0);
		const char *s = skip_space(p), *ins;

		if (s >= p + n) {
			p = next;
			continue;
		}
		if (ks_starts_with(s, "arch = ") ||
		    ks_starts_with(s, "code for ")) {
			const char *a = skip_space(strchr(s, ' ') + 1);
			size_t len = 0;

			if (*a == '=')
				a = skip_space(a + 1);
			else if (ks_starts_with(a, "for "))
				a = skip_space(a + 4);
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
			cur = record(ev, name, len, arch);
			memset(&cur->sass, 0, sizeof(cur->sass));
			cur->sources |= KS_EVIDENCE_SASS;
		} else if ((ins = sass_address(s)) && cur) {
			const char *op;

			ins = skip_space(ins);
			if (*ins == '{')
				ins = skip_space(ins + 1);
			if (*ins == '@') {
				while (*ins && !isspace((unsigned char)*ins))
					ins++;
				ins = skip_space(ins);
			}
			op = ins;
			while (*ins && !isspace((unsigned char)*ins) &&
			       *ins != ';')
				ins++;
			if (ins > op && isupper((unsigned char)*op))
				sass_classify(&cur->sass, op,
					      (size_t)(ins - op));
		}
		p = next;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Features                                                            */

static const char *const feature_names[KS_EVF_COUNT] = {
	[KS_EVF_REGS_PER_THREAD] = "regs_per_thread",
	[KS_EVF_SPILL_STORES_BYTES] = "spill_stores_bytes",
	[KS_EVF_SPILL_LOADS_BYTES] = "spill_loads_bytes",
	[KS_EVF_SPILLS] = "spills",
	[KS_EVF_STACK_FRAME_BYTES] = "stack_frame_bytes",
	[KS_EVF_SMEM_STATIC_BYTES] = "smem_static_bytes",
	[KS_EVF_CMEM_BYTES] = "cmem_bytes",
	[KS_EVF_BARRIERS_USED] = "barriers_used",
	[KS_EVF_USES_LOCAL_MEMORY] = "uses_local_memory",
	[KS_EVF_LOCAL_LOADS] = "local_loads",
	[KS_EVF_LOCAL_STORES] = "local_stores",
	[KS_EVF_HAS_VEC128_GLOBAL] = "has_vec128_global",
	[KS_EVF_VEC128_GLOBAL_LOADS] = "vec128_global_loads",
	[KS_EVF_VEC128_GLOBAL_STORES] = "vec128_global_stores",
	[KS_EVF_VEC64_GLOBAL_LOADS] = "vec64_global_loads",
	[KS_EVF_VEC64_GLOBAL_STORES] = "vec64_global_stores",
	[KS_EVF_USES_TENSOR_CORES] = "uses_tensor_cores",
	[KS_EVF_TENSOR_OPS] = "tensor_ops",
	[KS_EVF_FP64_OPS] = "fp64_ops",
	[KS_EVF_SFU_OPS] = "sfu_ops",
	[KS_EVF_ATOMICS] = "atomics",
	[KS_EVF_BARRIERS] = "barriers",
	[KS_EVF_SHUFFLES] = "shuffles",
	[KS_EVF_INSTRUCTIONS] = "instructions",
	[KS_EVF_FROM_SASS] = "counts_from_sass",
};

const char *
ks_evidence_feature_name(int f)
{
	return f >= 0 && f < KS_EVF_COUNT ? feature_names[f] : NULL;
}

int
ks_evidence_feature_lookup(const char *name)
{
	int i;

	for (i = 0; i < KS_EVF_COUNT; i++)
		if (!strcmp(feature_names[i], name))
			return i;
	return -1;
}

/* The PTX record nvcc compiled (kernel, arch) from, or NULL. */
static const struct ks_evidence_kernel *
ptx_source(const struct ks_evidence *ev, const char *kernel, const char *arch)
{
	const struct ks_evidence_kernel *best = NULL;
	const char *suffix;
	long want = arch_number(arch, NULL), best_num = -1;
	size_t i;

	for (i = 0; i < ev->n; i++) {
		const struct ks_evidence_kernel *k = &ev->k[i];
		long num;

		if (!(k->sources & KS_EVIDENCE_PTX) || strcmp(k->name, kernel))
			continue;
		if (!strcmp(k->arch, arch))
			return k;
		num = arch_number(k->arch, &suffix);
		if (num < 0 || *suffix || num > want || num <= best_num)
			continue;
		best = k;
		best_num = num;
	}
	return best;
}

static void
set(struct ks_evidence_features *f, int i, double v)
{
	f->value[i] = v;
	f->known[i] = 1;
}

int
ks_evidence_features(const struct ks_evidence *ev, const char *kernel,
		     const char *arch, struct ks_evidence_features *f,
		     struct ks_buf *err)
{
	const struct ks_evidence_kernel *k = ks_evidence_find(ev, kernel, arch);
	const struct ks_evidence_kernel *px = ptx_source(ev, kernel, arch);
	const struct ks_evidence_counts *c = NULL;
	int ptxas;

	memset(f, 0, sizeof(*f));
	if (!k && !px)
		return ks_error(err, "no evidence for '%s' on %s", kernel,
				arch);
	ptxas = k && (k->sources & KS_EVIDENCE_PTXAS) && k->regs >= 0;
	if (ptxas) {
		f->sources |= KS_EVIDENCE_PTXAS;
		set(f, KS_EVF_REGS_PER_THREAD, (double)k->regs);
		if (k->spill_stores >= 0 && k->spill_loads >= 0) {
			set(f, KS_EVF_SPILL_STORES_BYTES,
			    (double)k->spill_stores);
			set(f, KS_EVF_SPILL_LOADS_BYTES,
			    (double)k->spill_loads);
			set(f, KS_EVF_SPILLS,
			    k->spill_stores + k->spill_loads > 0);
		}
		if (k->stack_frame >= 0)
			set(f, KS_EVF_STACK_FRAME_BYTES,
			    (double)k->stack_frame);
		if (k->smem_static >= 0)
			set(f, KS_EVF_SMEM_STATIC_BYTES,
			    (double)k->smem_static);
		if (k->cmem >= 0)
			set(f, KS_EVF_CMEM_BYTES, (double)k->cmem);
		if (k->barriers_used >= 0)
			set(f, KS_EVF_BARRIERS_USED, (double)k->barriers_used);
	}
	if (k && (k->sources & KS_EVIDENCE_SASS)) {
		c = &k->sass;
		f->sources |= KS_EVIDENCE_SASS;
		set(f, KS_EVF_FROM_SASS, 1);
	} else if (px) {
		c = &px->ptx;
		set(f, KS_EVF_FROM_SASS, 0);
	}
	if (px) {
		f->sources |= KS_EVIDENCE_PTX;
		f->ptx_arch = px->arch;
	}
	if (c) {
		set(f, KS_EVF_LOCAL_LOADS, (double)c->local_loads);
		set(f, KS_EVF_LOCAL_STORES, (double)c->local_stores);
		set(f, KS_EVF_VEC128_GLOBAL_LOADS,
		    (double)c->vec128_global_loads);
		set(f, KS_EVF_VEC128_GLOBAL_STORES,
		    (double)c->vec128_global_stores);
		set(f, KS_EVF_HAS_VEC128_GLOBAL,
		    c->vec128_global_loads + c->vec128_global_stores > 0);
		set(f, KS_EVF_VEC64_GLOBAL_LOADS,
		    (double)c->vec64_global_loads);
		set(f, KS_EVF_VEC64_GLOBAL_STORES,
		    (double)c->vec64_global_stores);
		set(f, KS_EVF_TENSOR_OPS, (double)c->tensor_ops);
		set(f, KS_EVF_USES_TENSOR_CORES, c->tensor_ops > 0);
		set(f, KS_EVF_FP64_OPS, (double)c->fp64_ops);
		set(f, KS_EVF_SFU_OPS, (double)c->sfu_ops);
		set(f, KS_EVF_ATOMICS, (double)c->atomics);
		set(f, KS_EVF_BARRIERS, (double)c->barriers);
		set(f, KS_EVF_SHUFFLES, (double)c->shuffles);
		set(f, KS_EVF_INSTRUCTIONS, (double)c->instructions);
	}
	/* ptxas knows whether local memory survived optimization; PTX
	 * does not. */
	if (ptxas && k->stack_frame >= 0 && k->spill_stores >= 0)
		set(f, KS_EVF_USES_LOCAL_MEMORY,
		    k->stack_frame > 0 || k->spill_stores > 0 ||
			    k->spill_loads > 0);
	else if (c)
		set(f, KS_EVF_USES_LOCAL_MEMORY,
		    c->local_loads + c->local_stores > 0);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Output                                                              */

/* Should (kernel, arch) of record `i` be listed? See the header. */
static int
listed(const struct ks_evidence *ev, size_t i)
{
	const struct ks_evidence_kernel *k = &ev->k[i];
	size_t j;

	if (k->sources & (KS_EVIDENCE_PTXAS | KS_EVIDENCE_SASS))
		return 1;
	for (j = 0; j < ev->n; j++)
		if (!strcmp(ev->k[j].name, k->name) &&
		    (ev->k[j].sources & (KS_EVIDENCE_PTXAS | KS_EVIDENCE_SASS)))
			return 0;
	return 1;
}

static int
cmp_records(const void *a, const void *b)
{
	const struct ks_evidence_kernel *x =
		*(const struct ks_evidence_kernel *const *)a;
	const struct ks_evidence_kernel *y =
		*(const struct ks_evidence_kernel *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->arch, y->arch);
}

/* The listed records, sorted by kernel then arch. */
static const struct ks_evidence_kernel **
listed_sorted(const struct ks_evidence *ev, size_t *n)
{
	const struct ks_evidence_kernel **v;
	size_t i;

	v = ks_xmalloc((ev->n + 1) * sizeof(*v));
	*n = 0;
	for (i = 0; i < ev->n; i++)
		if (listed(ev, i))
			v[(*n)++] = &ev->k[i];
	qsort(v, *n, sizeof(*v), cmp_records);
	return v;
}

static void
add_sources(struct ks_buf *out, unsigned s, const char *sep, int quote)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = { { KS_EVIDENCE_PTXAS, "ptxas" },
		      { KS_EVIDENCE_PTX, "ptx" },
		      { KS_EVIDENCE_SASS, "sass" } };
	size_t i, n = 0;

	for (i = 0; i < KS_ARRAY_SIZE(names); i++) {
		if (!(s & names[i].bit))
			continue;
		ks_buf_addf(out, "%s%s%s%s", n++ ? sep : "", quote ? "\"" : "",
			    names[i].name, quote ? "\"" : "");
	}
}

void
ks_evidence_format_json(const struct ks_evidence *ev, struct ks_buf *out)
{
	size_t n, i, shown = 0;
	const struct ks_evidence_kernel **v = listed_sorted(ev, &n);

	ks_buf_adds(out, "[");
	for (i = 0; i < n; i++) {
		const struct ks_evidence_kernel *k = v[i];
		struct ks_evidence_features f;
		int j, first = 1;

		if (ks_evidence_features(ev, k->name, k->arch, &f, NULL))
			continue;
		ks_buf_adds(out, shown++ ? ",\n {" : "{");
		ks_buf_adds(out, "\"kernel\": ");
		ks_buf_add_json_str(out, k->name);
		ks_buf_adds(out, ", \"arch\": ");
		ks_buf_add_json_str(out, k->arch);
		ks_buf_adds(out, ", \"ptx_arch\": ");
		if (f.ptx_arch)
			ks_buf_add_json_str(out, f.ptx_arch);
		else
			ks_buf_adds(out, "null");
		ks_buf_adds(out, ", \"sources\": [");
		add_sources(out, f.sources, ", ", 1);
		ks_buf_adds(out, "], \"features\": {");
		for (j = 0; j < KS_EVF_COUNT; j++) {
			if (!f.known[j])
				continue;
			ks_buf_addf(out, "%s\"%s\": %.0f", first ? "" : ", ",
				    feature_names[j], f.value[j]);
			first = 0;
		}
		ks_buf_adds(out, "}}");
	}
	ks_buf_adds(out, "]\n");
	free(v);
}

void
ks_evidence_format_text(const struct ks_evidence *ev, struct ks_buf *out)
{
	size_t n, i;
	const struct ks_evidence_kernel **v = listed_sorted(ev, &n);

	for (i = 0; i < n; i++) {
		const struct ks_evidence_kernel *k = v[i];
		struct ks_evidence_features f;
		int j;

		if (ks_evidence_features(ev, k->name, k->arch, &f, NULL))
			continue;
		ks_buf_addf(out, "%s %s (", k->name, k->arch);
		add_sources(out, f.sources, ", ", 0);
		if (f.ptx_arch && strcmp(f.ptx_arch, k->arch))
			ks_buf_addf(out, "; ptx of %s", f.ptx_arch);
		ks_buf_adds(out, ")\n");
		for (j = 0; j < KS_EVF_COUNT; j++)
			if (f.known[j])
				ks_buf_addf(out, "  %-22s %.0f\n",
					    feature_names[j], f.value[j]);
	}
	free(v);
}

/* ------------------------------------------------------------------ */
/* The compile                                                         */

/*
 * Options (long names, see wrapper/nvopts.c) dropped from the recorded
 * command: its outputs, and what would garble ptxas's report (--threads
 * and --split-compile run several ptxas at once, their lines interleave).
 * Dependency options (KS_NVOPT_DEPS) go too.
 */
static const char *const drop_opts[] = {
	"dryrun", "fdevice-time-trace", "jobserver", "keep", "keep-dir",
	"output-directory", "output-file", "save-temps", "split-compile",
	"split-compile-extended", "threads", "time", "verbose",
};

/* Phase options that already ask for a compile to an object. */
static const char *const compile_opts[] = {
	"compile", "device-c", "device-w",
};

static int
in_names(const char *name, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(name, list[i]))
			return 1;
	return 0;
}

void
ks_evidence_argv(const char *const *argv, size_t argc, const char *tmpdir,
		 struct ks_strv *out)
{
	int compiles = 0;
	size_t i;

	for (i = 0; i < argc; i++) {
		const struct ks_nvopt *opt = NULL;
		const char *value = NULL;
		enum ks_nvopt_word w = ks_nvopt_parse(argv[i], &opt, &value);
		int takes_next = 0, drop = 0;

		if (w == KS_NVOPT_WORD_OPTION || w == KS_NVOPT_WORD_BAD) {
			takes_next =
				(opt->flags & KS_NVOPT_TAKES_ARG) && !value;
			drop = (opt->flags & KS_NVOPT_DEPS) ||
			       in_names(opt->name, drop_opts,
					KS_ARRAY_SIZE(drop_opts));
			if (in_names(opt->name, compile_opts,
				     KS_ARRAY_SIZE(compile_opts)))
				compiles = 1;
		}
		if (!drop)
			ks_strv_push(out, argv[i]);
		if (takes_next && i + 1 < argc) {
			i++;
			if (!drop)
				ks_strv_push(out, argv[i]);
		}
	}
	if (!compiles)
		ks_strv_push(out, "-c");
	ks_strv_push(out, "-Xptxas");
	ks_strv_push(out, "-v");
	ks_strv_push(out, "-keep");
	ks_strv_push(out, "-keep-dir");
	ks_strv_push(out, tmpdir);
	ks_strv_push(out, "-o");
	ks_strv_push_owned(out, ks_xasprintf("%s/ks-evidence.o", tmpdir));
}

char *
ks_evidence_find_cuobjdump(const char *nvcc)
{
	const char *env = getenv("KS_CUOBJDUMP");
	char *dir, *path, *slash;

	if (env)
		return *env ? ks_xstrdup(env) : NULL;
	if (!nvcc || !strchr(nvcc, '/'))
		return NULL;
	dir = ks_xstrdup(nvcc);
	slash = strrchr(dir, '/');
	*slash = '\0';
	path = ks_fs_join(dir, "cuobjdump");
	free(dir);
	if (ks_fs_is_exec(path))
		return path;
	free(path);
	return NULL;
}

/* The first line of nvcc's stderr that says "error", else the first line. */
static void
first_error(const char *text, struct ks_buf *err)
{
	const char *p = text, *pick = NULL;

	for (; *p; p += line_len(p) + (p[line_len(p)] ? 1 : 0)) {
		if (!pick && line_len(p))
			pick = p;
		if (strstr(p, "error") &&
		    (size_t)(strstr(p, "error") - p) < line_len(p)) {
			pick = p;
			break;
		}
	}
	if (pick)
		ks_error(err, "%.*s", (int)line_len(pick), pick);
}

static int
parse_ptx_files(const char *dir, struct ks_evidence *ev, struct ks_buf *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int rc = 0;

	if (!d)
		return ks_error_errno(err, "cannot read '%s'", dir);
	while (!rc && (de = readdir(d))) {
		struct ks_buf text = KS_BUF_INIT;
		char *path;

		if (!ks_ends_with(de->d_name, ".ptx"))
			continue;
		path = ks_fs_join(dir, de->d_name);
		text.max = (size_t)1 << 30;
		rc = ks_fs_read(path, &text, err);
		if (!rc && ks_evidence_parse_ptx(ev, text.buf, err))
			rc = ks_error(err, "in '%s'", de->d_name);
		ks_buf_release(&text);
		free(path);
	}
	closedir(d);
	return rc;
}

static void
collect_sass(const char *cuobjdump, const char *object, int timeout_ms,
	     struct ks_evidence *ev)
{
	const char *argv[] = { cuobjdump, "-sass", object, NULL };
	struct ks_buf out = KS_BUF_INIT, eout = KS_BUF_INIT, err = KS_BUF_INIT;
	struct ks_proc p = { 0 };

	out.max = (size_t)1 << 30;
	eout.max = 1 << 20;
	p.argv = argv;
	p.out = &out;
	p.err_out = &eout;
	p.timeout_ms = timeout_ms;
	if (ks_proc_run(&p, &err))
		ks_log("evidence: %s", err.buf);
	else if (p.status)
		ks_log("evidence: %s -sass failed (status %d): %s", cuobjdump,
		       p.status, eout.buf);
	else if (ks_evidence_parse_sass(ev, out.buf, &err))
		ks_log("evidence: sass: %s", err.buf);
	ks_buf_release(&out);
	ks_buf_release(&eout);
	ks_buf_release(&err);
}

int
ks_evidence_collect(const struct ks_evidence_request *req,
		    struct ks_evidence *ev, struct ks_buf *err)
{
	struct ks_strv args = KS_STRV_INIT;
	struct ks_buf out = KS_BUF_INIT, eout = KS_BUF_INIT,
		      rm_err = KS_BUF_INIT;
	struct ks_proc p = { 0 };
	const char *base = getenv("TMPDIR");
	char *tmp, *env[3] = { NULL, NULL, NULL }, *object = NULL;
	int rc = -1;

	tmp = ks_xasprintf("%s/ks-evidence.XXXXXX",
			   base && *base ? base : "/tmp");
	if (!mkdtemp(tmp)) {
		ks_error_errno(err, "cannot create a directory in '%s'",
			       base && *base ? base : "/tmp");
		free(tmp);
		return -1;
	}
	if (tmp[0] != '/') {
		char *abs = ks_fs_realpath(tmp);

		if (abs) {
			free(tmp);
			tmp = abs;
		}
	}
	ks_strv_push(&args, req->nvcc);
	ks_evidence_argv(req->argv, req->argc, tmp, &args);
	/* The build's NVCC_*_FLAGS, not ours: empty means none. */
	env[0] = ks_xasprintf("NVCC_PREPEND_FLAGS=%s",
			      req->prepend_flags ? req->prepend_flags : "");
	env[1] = ks_xasprintf("NVCC_APPEND_FLAGS=%s",
			      req->append_flags ? req->append_flags : "");
	out.max = eout.max = (size_t)64 << 20;
	p.argv = (const char *const *)args.v;
	p.env = (const char *const *)env;
	p.cwd = req->cwd;
	p.out = &out;
	p.err_out = &eout;
	p.timeout_ms = req->timeout_ms;
	if (ks_proc_run(&p, err))
		goto out;
	if (p.timed_out) {
		ks_error(err, "nvcc timed out after %d ms", req->timeout_ms);
		goto out;
	}
	if (p.status) {
		ks_error(err, "nvcc failed (status %d)", p.status);
		first_error(eout.buf, err);
		goto out;
	}
	if (ks_evidence_parse_ptxas(ev, eout.buf, err) ||
	    parse_ptx_files(tmp, ev, err))
		goto out;
	if (req->cuobjdump) {
		object = ks_xasprintf("%s/ks-evidence.o", tmp);
		collect_sass(req->cuobjdump, object, req->timeout_ms, ev);
	}
	rc = 0;
out:
	if (ks_fs_remove_tree(tmp, &rm_err))
		ks_log("evidence: %s", rm_err.buf);
	ks_buf_release(&rm_err);
	free(object);
	free(env[0]);
	free(env[1]);
	free(tmp);
	ks_strv_release(&args);
	ks_buf_release(&out);
	ks_buf_release(&eout);
	return rc;
}
