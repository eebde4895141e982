/*
 * ks evidence: what the compiler says about each kernel of one source.
 *
 *   ks evidence [--json] FILE.cu                 as the build compiled it
 *   ks evidence [--json] FILE.cu -- NVCC-ARGS    with these nvcc arguments
 *
 * The first form takes the newest build record of FILE.cu (its nvcc,
 * directory, arguments and NVCC_*_FLAGS); the second runs the configured
 * nvcc with NVCC-ARGS and FILE.cu in the current directory. Both print the
 * features of docs/EVIDENCE.md per kernel and arch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/conf.h"
#include "../core/fs.h"
#include "../core/strv.h"
#include "../core/toolkit.h"
#include "../core/util.h"
#include "../evidence/evidence.h"
#include "../nvcc/passthru.h"
#include "../nvcc/record.h"
#include "ks.h"

#define EVIDENCE_TIMEOUT_MS (10 * 60 * 1000)

static int
same_source(const struct ks_build_rec *r, void *source)
{
	return !strcmp(r->source, source);
}

/* The newest build record of `source` (an absolute path) into `best`. */
static int
find_record(const char *dir, const char *source, struct ks_build_rec *best,
	    struct ks_buf *err)
{
	if (ks_build_rec_newest(dir, same_source, (void *)source, best))
		return ks_error(err,
				"no build record of '%s' (build it through "
				"ks-nvcc, or give nvcc arguments after --)",
				source);
	return 0;
}

int
ks_cmd_evidence(int argc, char **argv, struct ks_conf *conf)
{
	struct ks_evidence ev = KS_EVIDENCE_INIT;
	struct ks_evidence_request req;
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT;
	struct ks_build_rec r;
	const char *file = NULL;
	char *source = NULL, *cuobjdump = NULL;
	int json = 0, usage = 0, dashes = -1, i, rc = KS_EXIT_FAILED;
	char *self = NULL;

	memset(&r, 0, sizeof(r));
	ks_strv_init(&r.argv);
	memset(&req, 0, sizeof(req));
	for (i = 1; i < argc && dashes < 0; i++) {
		if (!strcmp(argv[i], "--"))
			dashes = i;
		else if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!file && argv[i][0] != '-')
			file = argv[i];
		else
			usage = 1;
	}
	if (!file || usage) {
		fputs("usage: ks evidence [--json] FILE.cu [-- NVCC-ARGS...]\n",
		      stderr);
		return KS_EXIT_USAGE;
	}
	if (dashes < 0) {
		source = ks_fs_realpath(file);
		if (!source) {
			ks_error_errno(&err, "cannot find '%s'", file);
			goto out;
		}
		if (find_record(conf->dir, source, &r, &err))
			goto out;
	} else {
		self = ks_passthru_self();
		r.nvcc = ks_passthru_find(conf->nvcc, self, &err);
		if (!r.nvcc)
			goto out;
		for (i = dashes + 1; i < argc; i++)
			ks_strv_push(&r.argv, argv[i]);
		ks_strv_push(&r.argv, file);
		r.prepend_flags = getenv("NVCC_PREPEND_FLAGS")
				    ? ks_xstrdup(getenv("NVCC_PREPEND_FLAGS"))
				    : NULL;
		r.append_flags = getenv("NVCC_APPEND_FLAGS")
				   ? ks_xstrdup(getenv("NVCC_APPEND_FLAGS"))
				   : NULL;
	}
	cuobjdump = ks_toolkit_program("cuobjdump",
				       ks_conf_path_setting(conf, KS_CONF_CUOBJDUMP),
				       r.nvcc);
	req.nvcc = r.nvcc;
	req.argv = (const char *const *)r.argv.v;
	req.argc = r.argv.n;
	req.cwd = r.cwd;
	req.prepend_flags = r.prepend_flags;
	req.append_flags = r.append_flags;
	req.cuobjdump = cuobjdump;
	req.timeout_ms = EVIDENCE_TIMEOUT_MS;
	if (ks_evidence_collect(&req, &ev, &err))
		goto out;
	if (json)
		ks_evidence_format_json(&ev, &out);
	else
		ks_evidence_format_text(&ev, &out);
	fputs(out.buf, stdout);
	if (!json && !cuobjdump)
		printf("(no cuobjdump: counts are from PTX)\n");
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "ks: error: %s\n", err.buf);
	ks_evidence_release(&ev);
	ks_build_rec_release(&r);
	ks_buf_release(&err);
	ks_buf_release(&out);
	free(source);
	free(cuobjdump);
	free(self);
	return rc;
}
