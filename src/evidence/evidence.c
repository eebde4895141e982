/*
 * evidence: the records, the shared text helpers, the features and the
 * output formats (evidence.h); the parsers are ptxas.c, ptx.c and sass.c,
 * the compile compile.c.
 */
#include "evidence.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/grow.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "../nvcc/arch.h"
#include "parse.h"

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
struct ks_evidence_kernel *
ks_ev_record(struct ks_evidence *ev, const char *name, size_t name_len,
       const char *arch)
{
	struct ks_evidence_kernel *k;
	char *n = ks_xstrndup(name, name_len);

	k = find_mut(ev, n, arch);
	if (k) {
		free(n);
		return k;
	}
	ev->k = KS_GROW(ev->k, ev->n, &ev->alloc);
	k = &ev->k[ev->n++];
	memset(k, 0, sizeof(*k));
	k->name = n;
	k->arch = ks_xstrdup(arch);
	k->regs = k->barriers_used = k->stack_frame = -1;
	k->spill_stores = k->spill_loads = k->smem_static = k->cmem = -1;
	return k;
}

void
ks_ev_counts_add(struct ks_evidence_counts *to, const struct ks_evidence_counts *c)
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

const char *
ks_ev_skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return p;
}

/* Length of the line at `p` without its newline. */
size_t
ks_ev_line_len(const char *p)
{
	const char *e = strchr(p, '\n');

	return e ? (size_t)(e - p) : strlen(p);
}

/* Split an opcode ("ld.global.nc.v4.f32") into at most `max` parts. */
size_t
ks_ev_split_opcode(const char *op, size_t len, char parts[][24], size_t max)
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

int
ks_ev_has_part(char parts[][24], size_t n, const char *want)
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
	struct ks_arch_target a;

	if (ks_arch_parse(arch, &a) || a.kind != KS_ARCH_SM)
		return -1;
	if (suffix)
		*suffix = a.digits + strspn(a.digits, "0123456789");
	return a.number;
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
