/*
 * The eligibility table (review/eligibility.h) for `ks capture` after the
 * program exits and for `ks captures`: check, then print.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/conf.h"
#include "../review/eligibility.h"
#include "ks.h"

size_t
ks_captures_eligibility(const struct ks_conf *conf, const char *const *dirs, size_t n,
			int check, struct ks_buf *out)
{
	struct ks_elig *v = calloc(n + 1, sizeof(*v));
	struct ks_buf why = KS_BUF_INIT, table = KS_BUF_INIT;
	size_t i, k = 0, bad = 0;

	if (!v || !n) {
		free(v);
		return 0;
	}
	if (check) {
		if (ks_elig_probe(conf, &why)) {
			ks_buf_addf(out, "not checked: no GPU to replay on (%s)\n", why.buf);
		} else {
			/* Progress, where ks says what it is doing. */
			fprintf(stderr, "ks: checking %zu capture%s (replaying each "
					"original)\n", n, n == 1 ? "" : "s");
			ks_elig_check(conf, dirs, n, 0);
		}
	}
	for (i = 0; i < n; i++)
		if (!ks_elig_load(dirs[i], &v[k], NULL))
			k++;
	for (i = 0; i < k; i++)
		bad += v[i].checked && !v[i].reproduces;
	ks_elig_table(v, k, &table);
	ks_buf_add(out, table.buf ? table.buf : "", table.len);
	for (i = 0; i < k; i++)
		ks_elig_release(&v[i]);
	free(v);
	ks_buf_release(&why);
	ks_buf_release(&table);
	return bad;
}
