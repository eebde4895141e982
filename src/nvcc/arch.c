#include "arch.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

static const char *const prefixes[] = { "sm_", "compute_", "lto_" };

const char *
ks_arch_prefix(enum ks_arch_kind k)
{
	return prefixes[k];
}

int
ks_arch_parse(const char *name, struct ks_arch_target *out)
{
	const char *num = NULL, *p;
	char *end;
	size_t i;

	for (i = 0; i < KS_ARRAY_SIZE(prefixes); i++)
		if (ks_starts_with(name, prefixes[i])) {
			out->kind = (enum ks_arch_kind)i;
			num = name + strlen(prefixes[i]);
		}
	if (!num || !isdigit((unsigned char)*num))
		return -1;
	for (p = num; isdigit((unsigned char)*p); p++)
		;
	out->suffix = *p == 'a' || *p == 'f' ? *p : 0;
	if (out->suffix)
		p++;
	if (*p)
		return -1;
	out->number = strtol(num, &end, 10);
	out->digits = num;
	return 0;
}

static const char *const known_reals[] = {
	"sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90",
	"sm_100", "sm_103", "sm_110", "sm_120", "sm_121",
};

const char *const *
ks_arch_known_reals(unsigned long *n)
{
	*n = KS_ARRAY_SIZE(known_reals);
	return known_reals;
}

const char *
ks_arch_newest(const char *const *names, unsigned long n)
{
	const char *best = NULL;
	long bn = -1;
	unsigned long i;

	for (i = 0; i < n; i++) {
		struct ks_arch_target a;

		if (!ks_arch_parse(names[i], &a) && a.number > bn) {
			bn = a.number;
			best = names[i];
		}
	}
	return best;
}
