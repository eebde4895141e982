/*
 * find-tool: which build record compiled a kernel (review/build.h,
 * ks_build_rec_find), for tests/suites/recfind.sh.
 *
 *   find-tool KS_DIR MANGLED    prints the record's source and path
 */
#include <stdio.h>

#include "../../../src/core/buf.h"
#include "../../../src/review/build.h"

int
main(int argc, char **argv)
{
	struct ks_build_rec r;
	struct ks_buf err = KS_BUF_INIT;
	int rc = 0;

	if (argc != 3) {
		fputs("usage: find-tool KS_DIR MANGLED\n", stderr);
		return 2;
	}
	if (ks_build_rec_find(argv[1], argv[2], &r, &err)) {
		fprintf(stderr, "find-tool: %s\n", err.buf);
		rc = 1;
	} else {
		printf("%s %s\n", r.source, r.path);
	}
	ks_build_rec_release(&r);
	ks_buf_release(&err);
	return rc;
}
