/*
 * evidence-tool: the compiler evidence from the command line, for
 * tests/suites/evidence.sh (built there from the objects of the build).
 *
 *   evidence-tool [--cuobjdump PATH] NVCC ARG...
 *
 * Compiles as `NVCC ARG...` would, with ks_evidence_collect(), in the
 * current directory, then prints one "kernel arch feature value" line per
 * known feature of every (kernel, arch) ptxas or cuobjdump reported.
 * Exit 0, or 1 with the error on stderr.
 */
#include <stdio.h>
#include <string.h>

#include "../../../src/evidence/evidence.h"
#include "../../../src/core/buf.h"

int
main(int argc, char **argv)
{
	struct ks_evidence ev = KS_EVIDENCE_INIT;
	struct ks_evidence_request req = { 0 };
	struct ks_buf err = KS_BUF_INIT;
	size_t i;
	int a = 1, f, rc = 0;

	if (argc > 2 && !strcmp(argv[1], "--cuobjdump")) {
		req.cuobjdump = argv[2];
		a = 3;
	}
	if (argc - a < 1) {
		fprintf(stderr, "usage: evidence-tool [--cuobjdump PATH] NVCC ARG...\n");
		return 2;
	}
	req.nvcc = argv[a];
	req.argv = (const char *const *)argv + a + 1;
	req.argc = (size_t)(argc - a - 1);
	req.timeout_ms = 300000;
	if (ks_evidence_collect(&req, &ev, &err)) {
		fprintf(stderr, "evidence-tool: %s\n", err.buf);
		rc = 1;
	}
	for (i = 0; i < ev.n; i++) {
		const struct ks_evidence_kernel *k = &ev.k[i];
		struct ks_evidence_features feat;

		if (!(k->sources & (KS_EVIDENCE_PTXAS | KS_EVIDENCE_SASS)) ||
		    ks_evidence_features(&ev, k->name, k->arch, &feat, NULL))
			continue;
		for (f = 0; f < KS_EVF_COUNT; f++)
			if (feat.known[f])
				printf("%s %s %s %.0f\n", k->name, k->arch,
				       ks_evidence_feature_name(f), feat.value[f]);
	}
	ks_evidence_release(&ev);
	ks_buf_release(&err);
	return rc;
}
