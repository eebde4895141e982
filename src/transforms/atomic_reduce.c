/*
 * atomic_hierarchical_reduce: atomics into one address per call site,
 * reduced in registers, then by warp shuffles, then through shared
 * memory, then one atomic per block.
 *
 * Recognized in the facts: every atomic of the kernel has an address
 * that is the same for every thread of the grid or of the block (no
 * thread, loop or memory dependence), into a pointer parameter to a plain
 * scalar that
 * nothing else in the kernel reads or writes, with an operation that can
 * be reassociated (add and sub for integers, float and double; min, max,
 * and, or, xor for integers), and its value is not used. The template:
 * the body runs for many blocks of the original grid per resident block
 * (persistent blocks), each thread folding what it would have added into
 * a register, so the grid ends with one atomic per resident block and
 * site (per original block for an address that depends on the block).
 * Float sums are reassociated; integer results are exact.
 */
#include <stdlib.h>
#include <string.h>

#include "../analysis/inventory.h"
#include "../core/buf.h"
#include "transform.h"
#include "xfbody.h"

/* The operations, by the atomic's name without _block / _system. */
static const struct {
	const char *name;
	const char *op;		/* the functor of the template */
	int floats;		/* allowed on float and double */
	const char *identity;	/* "0", "~0", "min", "max" */
} ops[] = {
	{ "atomicAdd", "ks_op_add", 1, "0" },
	{ "atomicSub", "ks_op_add", 0, "0" },
	{ "atomicMin", "ks_op_min", 0, "max" },
	{ "atomicMax", "ks_op_max", 0, "min" },
	{ "atomicAnd", "ks_op_and", 0, "~0" },
	{ "atomicOr", "ks_op_or", 0, "0" },
	{ "atomicXor", "ks_op_xor", 0, "0" },
};

static const char common[] =
	"#ifndef KS_XF_REDUCE_HELPERS\n"
	"#define KS_XF_REDUCE_HELPERS\n"
	"/* One thread's share of the atomics of one call site: the running\n"
	"   value, the address, whether the thread reached the atomic. */\n"
	"template <class ks_T> struct ks_red_slot {\n"
	"\tks_T v;\n"
	"\tvoid *p;\n"
	"\tint hit;\n"
	"};\n"
	"struct ks_op_add { template <class ks_T> __device__ static ks_T f(ks_T a, ks_T b) { return a + b; } };\n"
	"struct ks_op_min { template <class ks_T> __device__ static ks_T f(ks_T a, ks_T b) { return b < a ? b : a; } };\n"
	"struct ks_op_max { template <class ks_T> __device__ static ks_T f(ks_T a, ks_T b) { return a < b ? b : a; } };\n"
	"struct ks_op_and { template <class ks_T> __device__ static ks_T f(ks_T a, ks_T b) { return a & b; } };\n"
	"struct ks_op_or { template <class ks_T> __device__ static ks_T f(ks_T a, ks_T b) { return a | b; } };\n"
	"struct ks_op_xor { template <class ks_T> __device__ static ks_T f(ks_T a, ks_T b) { return a ^ b; } };\n"
	"\n"
	"/* What the atomic would have done, folded into the thread's slot. */\n"
	"template <class ks_OP, class ks_T, class ks_U>\n"
	"__device__ __forceinline__ static void\n"
	"ks_red_put(ks_red_slot<ks_T> &s, void *a, ks_U x)\n"
	"{\n"
	"\ts.v = ks_OP::f(s.v, (ks_T)x);\n"
	"\ts.p = a;\n"
	"\ts.hit = 1;\n"
	"}\n"
	"\n"
	"/* The block's slots combined into thread 0's: shuffles within each\n"
	"   warp (partial warps too), then the warps' results through shared\n"
	"   memory. Every thread of the block calls it. Returns 1 on the thread\n"
	"   that holds the total when some thread reached the atomic. */\n"
	"template <class ks_OP, class ks_T>\n"
	"__device__ __forceinline__ static int\n"
	"ks_red_block(ks_red_slot<ks_T> &s, ks_T id, ks_T *sv, unsigned long long *sp, int *sh)\n"
	"{\n"
	"\tconst unsigned nt = blockDim.x * blockDim.y * blockDim.z;\n"
	"\tconst unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n"
	"\tconst unsigned lane = t & 31u, w = t >> 5, nw = (nt + 31u) >> 5;\n"
	"\tunsigned width = nt - (w << 5) < 32u ? nt - (w << 5) : 32u;\n"
	"\tunsigned mask = width == 32u ? 0xffffffffu : (1u << width) - 1u;\n"
	"\tks_T v = s.v;\n"
	"\tunsigned long long p = (unsigned long long)s.p;\n"
	"\tint hit = s.hit;\n"
	"\n"
	"\tfor (unsigned off = 16; off; off >>= 1) {\n"
	"\t\tks_T ov = __shfl_down_sync(mask, v, off);\n"
	"\t\tunsigned long long op = __shfl_down_sync(mask, p, off);\n"
	"\t\tint oh = __shfl_down_sync(mask, hit, off);\n"
	"\n"
	"\t\tif (lane + off < width) {\n"
	"\t\t\tv = ks_OP::f(v, ov);\n"
	"\t\t\tif (!hit)	/* the address of a thread that reached it */\n"
	"\t\t\t\tp = op;\n"
	"\t\t\thit |= oh;\n"
	"\t\t}\n"
	"\t}\n"
	"\tif (lane == 0) {\n"
	"\t\tsv[w] = v;\n"
	"\t\tsp[w] = p;\n"
	"\t\tsh[w] = hit;\n"
	"\t}\n"
	"\t__syncthreads();\n"
	"\tif (w != 0)\n"
	"\t\treturn 0;\n"
	"\tv = lane < nw ? sv[lane] : id;\n"
	"\tp = lane < nw ? sp[lane] : 0;\n"
	"\thit = lane < nw ? sh[lane] : 0;\n"
	"\tfor (unsigned off = 16; off; off >>= 1) {\n"
	"\t\tks_T ov = __shfl_down_sync(mask, v, off);\n"
	"\t\tunsigned long long op = __shfl_down_sync(mask, p, off);\n"
	"\t\tint oh = __shfl_down_sync(mask, hit, off);\n"
	"\n"
	"\t\tif (lane + off < width) {\n"
	"\t\t\tv = ks_OP::f(v, ov);\n"
	"\t\t\tif (!hit)	/* the address of a thread that reached it */\n"
	"\t\t\t\tp = op;\n"
	"\t\t\thit |= oh;\n"
	"\t\t}\n"
	"\t}\n"
	"\ts.v = v;\n"
	"\ts.p = (void *)p;\n"
	"\treturn lane == 0 && hit;\n"
	"}\n"
	"#endif\n"
	"\n";

struct site {
	int acc;
	int op;			/* index in ops[] */
	struct ks_xfbody_call call;
	struct ks_xfbody_elem elem;
	const char *name;	/* the atomic as called: "atomicAdd_block" */
	int per_block;		/* the address depends on blockIdx */
};

static int
find_op(const char *name)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i].name);

		if (!strncmp(name, ops[i].name, n) &&
		    (!name[n] || !strcmp(name + n, "_block") ||
		     !strcmp(name + n, "_system")))
			return (int)i;
	}
	return -1;
}

static enum ks_scalar
scalar_of(const struct ks_xfbody_elem *e)
{
	if (e->is_float)
		return e->bytes == 4 ? KS_T_FLOAT : KS_T_DOUBLE;
	return e->bytes == 4 ? KS_T_INT32 : KS_T_INT64;
}

static int
cmp_site(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	return x->call.name_begin < y->call.name_begin ? -1
	       : x->call.name_begin > y->call.name_begin;
}

/* Recognize the atomics; fills `sites` (nsites), or declines. */
static int
recognize(const struct ks_xf_input *in, struct site **sites, size_t *nsites,
	  struct ks_buf *reason)
{
	const struct ks_kernel *k = in->kernel;
	const struct ks_facts *f = &k->facts;
	struct site *s = NULL;
	size_t n = 0;

	if (ks_xfbody_plain_kernel(k, 0, reason))
		return -1;
	for (size_t i = 0; i < f->nacc; i++) {
		const struct ks_access *a = &f->acc[i];
		const struct ks_array *arr = &f->arrays[a->array];
		unsigned src = ks_form_sources(&a->offset);
		struct site *t;

		if (!(a->flags & KS_ACC_ATOMIC))
			continue;
		if (a->offset.data) {
			ks_buf_addf(reason,
				    "the atomic on line %u has an address that "
				    "depends on data (a histogram: "
				    "smem_histogram)",
				    a->line);
			goto fail;
		}
		if (src & (KS_SRC_TID_MASK | KS_SRC_LOOP_MASK)) {
			ks_buf_addf(reason,
				    "the atomic on line %u changes address with "
				    "the %s",
				    a->line,
				    src & KS_SRC_TID_MASK ? "thread" : "loop");
			goto fail;
		}
		if (a->offset.nonlinear & ~KS_SRC_BID_MASK ||
		    (!(src & KS_SRC_BID_MASK) && !ks_form_is_uniform(&a->offset)) ||
		    arr->space != KS_SPACE_GLOBAL || arr->param < 0) {
			ks_buf_addf(reason,
				    "the atomic on line %u is not into a "
				    "pointer parameter at a uniform offset",
				    a->line);
			goto fail;
		}
		s = realloc(s, (n + 1) * sizeof(*s));
		if (!s)
			return -1;
		t = &s[n++];
		memset(t, 0, sizeof(*t));
		t->acc = (int)i;
		/* the same address for the block, not the grid: flushed
		 * after each original block */
		t->per_block = (src & KS_SRC_BID_MASK) != 0;
		t->name = a->op ? a->op : "";
		t->op = find_op(t->name);
		if (t->op < 0) {
			ks_buf_addf(reason,
				    "%s on line %u is not an operation that can "
				    "be reassociated (add, sub, min, max, and, "
				    "or, xor)",
				    *t->name ? t->name : "the atomic", a->line);
			goto fail;
		}
		if (ks_xfbody_elem(k, arr->param, &t->elem, reason))
			goto fail;
		if (t->elem.bytes != a->bytes || scalar_of(&t->elem) != a->scalar) {
			ks_buf_addf(reason,
				    "the atomic on line %u accesses %s as "
				    "another type than its parameter's",
				    a->line, arr->name);
			goto fail;
		}
		if (t->elem.is_float && !ops[t->op].floats) {
			ks_buf_addf(reason,
				    "%s on line %u is on %s values: only sums "
				    "of floats are reassociated",
				    t->name, a->line, t->elem.ctype);
			goto fail;
		}
		for (size_t j = 0; j < f->nacc; j++) {
			const struct ks_access *b = &f->acc[j];

			if (b->array != a->array || j == i)
				continue;
			if (!(b->flags & KS_ACC_ATOMIC) ||
			    find_op(b->op ? b->op : "") != t->op) {
				ks_buf_addf(reason,
					    "%s is also accessed on line %u "
					    "other than by %s",
					    arr->name, b->line, t->name);
				goto fail;
			}
		}
		if (ks_xfbody_find_call(in->text, in->len, k, a->line, t->name,
					&t->call, reason))
			goto fail;
		if (!t->call.discarded) {
			ks_buf_addf(reason,
				    "the value %s returns on line %u is used",
				    t->name, a->line);
			goto fail;
		}
	}
	if (!n) {
		ks_buf_addf(reason, "%s has no atomics", k->name);
		goto fail;
	}
	qsort(s, n, sizeof(*s), cmp_site);
	for (size_t i = 1; i < n; i++)
		if (s[i].call.name_begin == s[i - 1].call.name_begin) {
			ks_buf_addf(reason, "two atomics at one call (line %u)",
				    f->acc[s[i].acc].line);
			goto fail;
		}
	*sites = s;
	*nsites = n;
	return 0;
fail:
	free(s);
	return -1;
}

static void
identity(const struct site *s, struct ks_buf *out)
{
	const char *id = ops[s->op].identity;

	if (!strcmp(id, "min"))
		ks_buf_adds(out, s->elem.min);
	else if (!strcmp(id, "max"))
		ks_buf_adds(out, s->elem.max);
	else if (!strcmp(id, "~0"))
		ks_buf_addf(out, "(%s)~0ull", s->elem.ctype);
	else
		ks_buf_addf(out, "(%s)0", s->elem.ctype);
}

static enum ks_xf_result
apply(const struct ks_xf_input *in, const struct ks_xf_point *p,
      struct ks_buf *variant, struct ks_buf *reason)
{
	struct site *s = NULL;
	size_t n = 0;
	struct ks_xfbody_edit *edits = NULL;
	char **with = NULL;
	struct ks_buf sp = KS_BUF_INIT, sa = KS_BUF_INIT;
	struct ks_buf pro = KS_BUF_INIT, epi = KS_BUF_INIT;
	struct ks_buf inner = KS_BUF_INIT;
	struct ks_xfbody_persist per;
	enum ks_xf_result rc = KS_XF_DECLINED;

	if (recognize(in, &s, &n, reason))
		return KS_XF_DECLINED;
	edits = calloc(n, sizeof(*edits));
	with = calloc(n, sizeof(*with));
	if (!edits || !with)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct ks_buf w = KS_BUF_INIT, id = KS_BUF_INIT;
		const char *T = s[i].elem.ctype;

		identity(&s[i], &id);
		ks_buf_addf(&w, "ks_red_put<%s>(ks_s%zu, ", ops[s[i].op].op, i);
		with[i] = ks_buf_detach(&w, NULL);
		edits[i].begin = s[i].call.name_begin;
		edits[i].end = s[i].call.open + 1;
		edits[i].with = with[i];
		ks_buf_addf(&sp, ", ks_red_slot<%s> &ks_s%zu", T, i);
		ks_buf_addf(&sa, ", ks_s%zu", i);
		ks_buf_addf(&pro,
			    "\tks_red_slot<%s> ks_s%zu = { %s, 0, 0 };\n"
			    "\t__shared__ %s ks_sv%zu[32];\n"
			    "\t__shared__ unsigned long long ks_sp%zu[32];\n"
			    "\t__shared__ int ks_sh%zu[32];\n",
			    T, i, id.buf, T, i, i, i);
		if (s[i].per_block)
			ks_buf_addf(&inner,
				    "\t\t\tif (ks_red_block<%s>(ks_s%zu, %s, ks_sv%zu, "
				    "ks_sp%zu, ks_sh%zu))\n"
				    "\t\t\t\t%s((%s *)ks_s%zu.p, ks_s%zu.v);\n"
				    "\t\t\tks_s%zu.v = %s;\n"
				    "\t\t\tks_s%zu.p = 0;\n"
				    "\t\t\tks_s%zu.hit = 0;\n"
				    "\t\t\t__syncthreads();\n",
				    ops[s[i].op].op, i, id.buf, i, i, i, s[i].name,
				    T, i, i, i, id.buf, i, i);
		else
			ks_buf_addf(&epi,
				    "\tif (ks_red_block<%s>(ks_s%zu, %s, ks_sv%zu, "
				    "ks_sp%zu, ks_sh%zu))\n"
				    "\t\t%s((%s *)ks_s%zu.p, ks_s%zu.v);\n",
				    ops[s[i].op].op, i, id.buf, i, i, i, s[i].name,
				    T, i, i);
		ks_buf_release(&id);
	}
	ks_buf_adds(&pro, "\n");
	memset(&per, 0, sizeof(per));
	per.prefix = "ks_red";
	per.what = "atomics folded per thread, then per warp and block, one "
		   "atomic per resident block (atomic_hierarchical_reduce)";
	per.common = common;
	per.state_params = sp.buf;
	per.state_args = sa.buf;
	per.prologue = pro.buf;
	per.epilogue = epi.buf;
	per.inner = inner.len ? inner.buf : NULL;
	per.edits = edits;
	per.nedits = n;
	per.unroll = p->v[0];
	per.waves = p->v[1];
	if (!ks_xfbody_persistent(in->text, in->len, in->kernel, &per, variant,
				  reason))
		rc = KS_XF_APPLIED;
out:
	for (size_t i = 0; with && i < n; i++)
		free(with[i]);
	free(with);
	free(edits);
	free(s);
	ks_buf_release(&sp);
	ks_buf_release(&sa);
	ks_buf_release(&pro);
	ks_buf_release(&epi);
	ks_buf_release(&inner);
	return rc;
}

const struct ks_transform ks_xf_atomic_hierarchical_reduce = {
	.id = "atomic_hierarchical_reduce",
	.summary = "atomics into one address: per-thread registers, warp "
		   "shuffles, shared memory, one atomic per resident block",
	.precondition = "every atomic has an address uniform over the grid "
			"or the block, into a pointer parameter nothing else "
			"touches, with a "
			"reassociable operation (sum; integer min, max, and, "
			"or, xor) whose value is unused",
	.nparams = 2,
	.params = {
		{ "unroll", "original blocks per step of the persistent loop",
		  4, 4, { 4, 1, 2, 8 } },
		{ "waves", "resident blocks launched, times the occupancy",
		  1, 2, { 1, 2 } },
	},
	.apply = apply,
};
