/*
 * Which PTX and SASS instructions count as what (evidence.h): knowledge
 * as data, read by the PTX and SASS parsers.
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
void
ks_ev_ptx_classify(struct ks_evidence_counts *c, const char *op, size_t len)
{
	char parts[16][24];
	size_t n = ks_ev_split_opcode(op, len, parts, 16);
	const char *base = parts[0], *type = parts[n - 1];

	c->instructions++;
	if (!strcmp(base, "ld") || !strcmp(base, "ldu") ||
	    !strcmp(base, "st")) {
		int load = base[0] == 'l', vector, bits;

		bits = ptx_access_bits(parts, n, &vector);
		if (ks_ev_has_part(parts, n, "local")) {
			if (load)
				c->local_loads++;
			else
				c->local_stores++;
		} else if (ks_ev_has_part(parts, n, "global")) {
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
	    (IN(base, ptx_sfu_approx) && ks_ev_has_part(parts, n, "approx")))
		c->sfu_ops++;
}

/* Count one SASS instruction with opcode `op` into `c`. */
void
ks_ev_sass_classify(struct ks_evidence_counts *c, const char *op, size_t len)
{
	char parts[16][24];
	size_t n = ks_ev_split_opcode(op, len, parts, 16), blen;
	const char *base = parts[0];

	c->instructions++;
	blen = strlen(base);
	if (!strcmp(base, "LDG") || !strcmp(base, "STG")) {
		int load = base[0] == 'L';

		if (ks_ev_has_part(parts, n, "128") || ks_ev_has_part(parts, n, "256")) {
			if (load)
				c->vec128_global_loads++;
			else
				c->vec128_global_stores++;
		} else if (ks_ev_has_part(parts, n, "64")) {
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
