#include "grow.h"

#include <stdint.h>

#include "util.h"

void *
ks_grow(void *p, size_t n, size_t *alloc, size_t size)
{
	size_t want;

	if (!alloc) {
		if (!size || n >= SIZE_MAX / size - 1)
			ks_die(KS_EXIT_NOMEM, "array of %zu elements too large", n);
		return ks_xrealloc(p, (n + 1) * size);
	}
	if (n < *alloc)
		return p;
	want = *alloc ? *alloc : 8;
	while (want <= n) {
		if (want > SIZE_MAX / 2)
			ks_die(KS_EXIT_NOMEM, "array of %zu elements too large", n);
		want *= 2;
	}
	if (!size || want > SIZE_MAX / size)
		ks_die(KS_EXIT_NOMEM, "array of %zu elements of %zu bytes too large",
		       want, size);
	*alloc = want;
	return ks_xrealloc(p, want * size);
}
