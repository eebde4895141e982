/*
 * seed-tool: put a variant into a cache for tests/suites/subst.sh, as the
 * optimize loop would once the Reviewer verified it (here the variants
 * are verified by construction: the original's code plus a marker).
 *
 *   seed-tool CACHE_DIR KEY MANGLED ARCH VARIANT_FILE [SPEEDUP [INSTANCE]]
 *
 * INSTANCE: a template kernel's instance, its template arguments ("float").
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../../src/cache/store.h"
#include "../../../src/core/buf.h"
#include "../../../src/core/fs.h"

int
main(int argc, char **argv)
{
	struct ks_buf text = KS_BUF_INIT, err = KS_BUF_INIT;
	struct ks_store_meta m = { 0 };
	static const char *const caps[] = { "seeded" };
	int rc;

	if (argc < 6) {
		fputs("usage: seed-tool CACHE KEY MANGLED ARCH VARIANT [SPEEDUP [INSTANCE]]\n",
		      stderr);
		return 2;
	}
	if (ks_fs_read(argv[5], &text, &err)) {
		fprintf(stderr, "seed-tool: %s\n", err.buf);
		ks_buf_release(&err);
		return 1;
	}
	m.kernel = argv[3];
	m.key = argv[2];
	m.arch = (unsigned)strtoul(argv[4], NULL, 10);
	m.source = argv[5];
	m.orig_ms = 2, m.var_ms = 1;
	m.speedup = argc > 6 ? strtod(argv[6], NULL) : 2;
	m.instance = argc > 7 ? argv[7] : NULL;
	m.captures = caps;
	m.ncaptures = 1;
	m.evidence = "{\"by\": \"construction\"}";
	m.model = "none";
	m.ks_version = "test";
	rc = ks_store_put(argv[1], &m, text.buf, text.len, &err);
	if (rc)
		fprintf(stderr, "seed-tool: %s\n", err.buf);
	ks_buf_release(&text);
	ks_buf_release(&err);
	return rc ? 1 : 0;
}
