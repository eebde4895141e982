/*
 * The compile that produces the evidence (evidence.h): the one file of
 * src/evidence/ that runs processes and touches files.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/log.h"
#include "../core/proc.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "../nvcc/derive.h"
#include "evidence.h"
#include "parse.h"

/* The most bytes read of one PTX file or SASS listing (a big TU's PTX runs
 * to hundreds of MB), of cuobjdump's errors, and of nvcc's output with
 * -Xptxas -v. */
#define KS_LISTING_MAX ((size_t)1 << 30)
#define KS_TOOL_ERRORS_MAX ((size_t)1 << 20)
#define KS_NVCC_OUTPUT_MAX ((size_t)64 << 20)

/* ------------------------------------------------------------------ */
/* The compile                                                         */

/* What is dropped from the recorded command: nvcc/derive.h. */
void
ks_evidence_argv(const char *const *argv, size_t argc, const char *tmpdir,
		 struct ks_strv *out)
{
	struct ks_derived seen;

	ks_derive_argv(&ks_derive_evidence, argv, argc, out, &seen, NULL);
	if (!seen.compiles)
		ks_strv_push(out, "-c");
	ks_strv_push(out, "-Xptxas");
	ks_strv_push(out, "-v");
	ks_strv_push(out, "-keep");
	ks_strv_push(out, "-keep-dir");
	ks_strv_push(out, tmpdir);
	ks_strv_push(out, "-o");
	ks_strv_push_owned(out, ks_xasprintf("%s/ks-evidence.o", tmpdir));
}


/* The first line of nvcc's stderr that says "error", else the first line. */
static void
first_error(const char *text, struct ks_buf *err)
{
	const char *p = text, *pick = NULL;

	for (; *p; p += ks_ev_line_len(p) + (p[ks_ev_line_len(p)] ? 1 : 0)) {
		if (!pick && ks_ev_line_len(p))
			pick = p;
		if (strstr(p, "error") &&
		    (size_t)(strstr(p, "error") - p) < ks_ev_line_len(p)) {
			pick = p;
			break;
		}
	}
	if (pick)
		ks_error(err, "%.*s", (int)ks_ev_line_len(pick), pick);
}

static int
parse_ptx_files(const char *dir, struct ks_evidence *ev, struct ks_buf *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int rc = 0;

	if (!d)
		return ks_error_errno(err, "cannot read '%s'", dir);
	while (!rc && (de = readdir(d))) {
		struct ks_buf text = KS_BUF_INIT;
		char *path;

		if (!ks_ends_with(de->d_name, ".ptx"))
			continue;
		path = ks_fs_join(dir, de->d_name);
		text.max = KS_LISTING_MAX;
		rc = ks_fs_read(path, &text, err);
		if (!rc && ks_evidence_parse_ptx(ev, text.buf, err))
			rc = ks_error(err, "in '%s'", de->d_name);
		ks_buf_release(&text);
		free(path);
	}
	closedir(d);
	return rc;
}

static void
collect_sass(const char *cuobjdump, const char *object, int timeout_ms,
	     struct ks_evidence *ev)
{
	const char *argv[] = { cuobjdump, "-sass", object, NULL };
	struct ks_buf out = KS_BUF_INIT, eout = KS_BUF_INIT, err = KS_BUF_INIT;
	struct ks_proc p = { 0 };

	out.max = KS_LISTING_MAX;
	eout.max = KS_TOOL_ERRORS_MAX;
	p.argv = argv;
	p.out = &out;
	p.err_out = &eout;
	p.timeout_ms = timeout_ms;
	if (ks_proc_run(&p, &err))
		ks_log("evidence: %s", err.buf);
	else if (p.status)
		ks_log("evidence: %s -sass failed (status %d): %s", cuobjdump,
		       p.status, eout.buf);
	else if (ks_evidence_parse_sass(ev, out.buf, &err))
		ks_log("evidence: sass: %s", err.buf);
	ks_buf_release(&out);
	ks_buf_release(&eout);
	ks_buf_release(&err);
}

int
ks_evidence_collect(const struct ks_evidence_request *req,
		    struct ks_evidence *ev, struct ks_buf *err)
{
	struct ks_strv args = KS_STRV_INIT;
	struct ks_buf out = KS_BUF_INIT, eout = KS_BUF_INIT,
		      rm_err = KS_BUF_INIT;
	struct ks_proc p = { 0 };
	const char *base = getenv("TMPDIR");
	char *tmp, *env[3] = { NULL, NULL, NULL }, *object = NULL;
	int rc = -1;

	tmp = ks_xasprintf("%s/ks-evidence.XXXXXX",
			   base && *base ? base : "/tmp");
	if (!mkdtemp(tmp)) {
		ks_error_errno(err, "cannot create a directory in '%s'",
			       base && *base ? base : "/tmp");
		free(tmp);
		return -1;
	}
	if (tmp[0] != '/') {
		char *abs = ks_fs_realpath(tmp);

		if (abs) {
			free(tmp);
			tmp = abs;
		}
	}
	ks_strv_push(&args, req->nvcc);
	ks_evidence_argv(req->argv, req->argc, tmp, &args);
	/* The build's NVCC_*_FLAGS, not ours: empty means none. */
	env[0] = ks_xasprintf("NVCC_PREPEND_FLAGS=%s",
			      req->prepend_flags ? req->prepend_flags : "");
	env[1] = ks_xasprintf("NVCC_APPEND_FLAGS=%s",
			      req->append_flags ? req->append_flags : "");
	out.max = eout.max = KS_NVCC_OUTPUT_MAX;
	p.argv = (const char *const *)args.v;
	p.env = (const char *const *)env;
	p.cwd = req->cwd;
	p.out = &out;
	p.err_out = &eout;
	p.timeout_ms = req->timeout_ms;
	if (ks_proc_run(&p, err))
		goto out;
	if (p.timed_out) {
		ks_error(err, "nvcc timed out after %d ms", req->timeout_ms);
		goto out;
	}
	if (p.status) {
		ks_error(err, "nvcc failed (status %d)", p.status);
		first_error(eout.buf, err);
		goto out;
	}
	if (ks_evidence_parse_ptxas(ev, eout.buf, err) ||
	    parse_ptx_files(tmp, ev, err))
		goto out;
	if (req->cuobjdump) {
		object = ks_xasprintf("%s/ks-evidence.o", tmp);
		collect_sass(req->cuobjdump, object, req->timeout_ms, ev);
	}
	rc = 0;
out:
	if (ks_fs_remove_tree(tmp, &rm_err))
		ks_log("evidence: %s", rm_err.buf);
	ks_buf_release(&rm_err);
	free(object);
	free(env[0]);
	free(env[1]);
	free(tmp);
	ks_strv_release(&args);
	ks_buf_release(&out);
	ks_buf_release(&eout);
	return rc;
}
