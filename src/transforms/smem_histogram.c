/*
 * smem_histogram: atomics into a small, data-indexed range of one array,
 * privatized per block in shared memory.
 *
 * Recognized in the facts: the kernel's atomics whose address depends on
 * data are all atomicAdd into one pointer parameter (int, unsigned,
 * 64-bit unsigned, float or double) that nothing else in the kernel
 * reads or writes, and their value is not used. The template: persistent
 * blocks walk the original grid; each keeps `bins` counters in shared
 * memory for the first `bins` elements of the array, adds there what
 * falls inside and straight to global memory what falls outside (so any
 * index the kernel computes stays correct), and at the end adds each
 * non-zero counter to the array with one atomic. A counter is non-zero
 * only where the kernel added to that element, so no element the kernel
 * would not have touched is touched. Integer counts are exact; float
 * weights are reassociated.
 */
#include <stdlib.h>
#include <string.h>

#include "../analysis/inventory.h"
#include "../core/buf.h"
#include "transform.h"
#include "xfbody.h"

/* Static shared memory a block may declare. */
#define SHARED_LIMIT (48 * 1024)

static const char common[] =
	"#ifndef KS_XF_HIST_HELPERS\n"
	"#define KS_XF_HIST_HELPERS\n"
	"/* The atomicAdd the kernel does, into the block's counters when the\n"
	"   element is one of the first nb of the array, else to memory. */\n"
	"template <class ks_T, class ks_U>\n"
	"__device__ __forceinline__ static void\n"
	"ks_hist_put(ks_T *bins, unsigned nb, const ks_T *base, ks_T *a, ks_U x)\n"
	"{\n"
	"\tconst size_t d = (size_t)((const char *)a - (const char *)base);\n"
	"\n"
	"\tif (d < (size_t)nb * sizeof(ks_T) && d % sizeof(ks_T) == 0)\n"
	"\t\tatomicAdd(&bins[d / sizeof(ks_T)], (ks_T)x);\n"
	"\telse\n"
	"\t\tatomicAdd(a, (ks_T)x);\n"
	"}\n"
	"#endif\n"
	"\n";

struct site {
	int acc;
	struct ks_xfbody_call call;
};

static int
cmp_site(const void *a, const void *b)
{
	const struct site *x = a, *y = b;

	return x->call.name_begin < y->call.name_begin ? -1
	       : x->call.name_begin > y->call.name_begin;
}

static enum ks_xf_result
apply(const struct ks_xf_input *in, const struct ks_xf_point *p,
      struct ks_buf *variant, struct ks_buf *reason)
{
	const struct ks_kernel *k = in->kernel;
	const struct ks_facts *f = &k->facts;
	const long long nb = p->v[0];
	struct site *s = NULL;
	size_t n = 0;
	int array = -1;
	struct ks_xfbody_elem elem;
	struct ks_xfbody_edit *edits = NULL;
	struct ks_buf with = KS_BUF_INIT, sp = KS_BUF_INIT, sa = KS_BUF_INIT;
	struct ks_buf pro = KS_BUF_INIT, epi = KS_BUF_INIT;
	struct ks_xfbody_persist per;
	const char *hname;
	enum ks_xf_result rc = KS_XF_DECLINED;

	if (ks_xfbody_plain_kernel(k, 0, reason))
		return KS_XF_DECLINED;
	for (size_t i = 0; i < f->nacc; i++) {
		const struct ks_access *a = &f->acc[i];
		const struct ks_array *arr = &f->arrays[a->array];

		if (!(a->flags & KS_ACC_ATOMIC) || !a->offset.data)
			continue;
		if (arr->space != KS_SPACE_GLOBAL || arr->param < 0) {
			ks_buf_addf(reason,
				    "the atomic on line %u is not into a "
				    "pointer parameter",
				    a->line);
			goto out;
		}
		if (array >= 0 && a->array != array) {
			ks_buf_addf(reason,
				    "atomics into data-dependent elements of "
				    "two arrays (%s, %s)",
				    f->arrays[array].name, arr->name);
			goto out;
		}
		if (!a->op || strcmp(a->op, "atomicAdd")) {
			ks_buf_addf(reason,
				    "%s on line %u is not an atomicAdd",
				    a->op ? a->op : "the atomic", a->line);
			goto out;
		}
		array = a->array;
		s = realloc(s, (n + 1) * sizeof(*s));
		if (!s)
			goto out;
		s[n].acc = (int)i;
		if (ks_xfbody_find_call(in->text, in->len, k, a->line, a->op,
					&s[n].call, reason))
			goto out;
		if (!s[n].call.discarded) {
			ks_buf_addf(reason,
				    "the value atomicAdd returns on line %u is "
				    "used",
				    a->line);
			goto out;
		}
		n++;
	}
	if (array < 0) {
		ks_buf_addf(reason,
			    "%s has no atomic whose address depends on data%s",
			    k->name,
			    f->nacc ? " (atomics into one address: "
				      "atomic_hierarchical_reduce)"
				    : "");
		goto out;
	}
	for (size_t i = 0; i < f->nacc; i++) {
		const struct ks_access *a = &f->acc[i];

		if (a->array == array && !(a->flags & KS_ACC_ATOMIC && a->offset.data &&
					   a->op && !strcmp(a->op, "atomicAdd"))) {
			ks_buf_addf(reason,
				    "%s is also accessed on line %u other than "
				    "by atomicAdd at a data-dependent element",
				    f->arrays[array].name, a->line);
			goto out;
		}
	}
	if (ks_xfbody_elem(k, f->arrays[array].param, &elem, reason))
		goto out;
	if (elem.is_signed && !elem.is_float && elem.bytes == 8) {
		ks_buf_addf(reason, "atomicAdd has no signed 64-bit form");
		goto out;
	}
	if (f->acc[s[0].acc].bytes != elem.bytes) {
		ks_buf_addf(reason,
			    "the atomic accesses %s as another type than its "
			    "parameter's",
			    f->arrays[array].name);
		goto out;
	}
	if (nb * (long long)elem.bytes > SHARED_LIMIT) {
		ks_buf_addf(reason,
			    "%lld %s counters need more than %d bytes of "
			    "static shared memory",
			    nb, elem.ctype, SHARED_LIMIT);
		goto out;
	}
	hname = k->params[f->arrays[array].param].name;
	qsort(s, n, sizeof(*s), cmp_site);
	edits = calloc(n, sizeof(*edits));
	if (!edits)
		goto out;
	ks_buf_addf(&with, "ks_hist_put(ks_bins, %lldu, ks_hbase, ", nb);
	for (size_t i = 0; i < n; i++) {
		if (i && s[i].call.name_begin == s[i - 1].call.name_begin) {
			ks_buf_addf(reason, "two atomics at one call (line %u)",
				    f->acc[s[i].acc].line);
			goto out;
		}
		edits[i].begin = s[i].call.name_begin;
		edits[i].end = s[i].call.open + 1;
		edits[i].with = with.buf;
	}
	ks_buf_addf(&sp, ", %s *ks_bins, const %s *ks_hbase", elem.ctype,
		    elem.ctype);
	ks_buf_addf(&sa, ", ks_bins, %s", hname);
	ks_buf_addf(&pro,
		    "\t__shared__ %s ks_bins[%lld];\n"
		    "\tconst unsigned ks_nt = blockDim.x * blockDim.y * blockDim.z;\n"
		    "\tconst unsigned ks_t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);\n"
		    "\n"
		    "\tfor (unsigned ks_i = ks_t; ks_i < %lldu; ks_i += ks_nt)\n"
		    "\t\tks_bins[ks_i] = 0;\n"
		    "\t__syncthreads();\n"
		    "\n",
		    elem.ctype, nb, nb);
	ks_buf_addf(&epi,
		    "\t__syncthreads();\n"
		    "\tfor (unsigned ks_i = ks_t; ks_i < %lldu; ks_i += ks_nt) {\n"
		    "\t\tconst %s ks_c = ks_bins[ks_i];\n"
		    "\n"
		    "\t\tif (ks_c != 0)\n"
		    "\t\t\tatomicAdd(%s + ks_i, ks_c);\n"
		    "\t}\n",
		    nb, elem.ctype, hname);
	memset(&per, 0, sizeof(per));
	per.prefix = "ks_hist";
	per.what = "counters privatized per block in shared memory, one "
		   "atomic per non-zero counter per resident block "
		   "(smem_histogram)";
	per.common = common;
	per.state_params = sp.buf;
	per.state_args = sa.buf;
	per.prologue = pro.buf;
	per.epilogue = epi.buf;
	per.edits = edits;
	per.nedits = n;
	per.unroll = p->v[1];
	per.waves = p->v[2];
	if (!ks_xfbody_persistent(in->text, in->len, k, &per, variant, reason))
		rc = KS_XF_APPLIED;
out:
	free(s);
	free(edits);
	ks_buf_release(&with);
	ks_buf_release(&sp);
	ks_buf_release(&sa);
	ks_buf_release(&pro);
	ks_buf_release(&epi);
	return rc;
}

const struct ks_transform ks_xf_smem_histogram = {
	.id = "smem_histogram",
	.summary = "shared-memory counters per block for atomics into a "
		   "data-indexed range, one atomic per non-zero counter",
	.precondition = "the atomics whose address depends on data are "
			"atomicAdd into one pointer parameter nothing else "
			"touches, and their value is unused",
	.nparams = 3,
	.params = {
		{ "bins", "counters kept in shared memory (the first elements "
			  "of the array)",
		  4096, 6, { 4096, 2048, 8192, 1024, 12288, 256 } },
		{ "unroll", "original blocks per step of the persistent loop",
		  1, 3, { 1, 2, 4 } },
		{ "waves", "resident blocks launched, times the occupancy",
		  1, 2, { 1, 2 } },
	},
	.apply = apply,
};
