/*
 * ks gpu-lock: run a command with the GPU to itself, in turn with every
 * ks that uses the same lock (KS_GPU_LOCK, else KS_DIR/gpu): reviews that
 * measure wait for it, and it waits for them.
 *
 *   ks gpu-lock [--shared] [--timeout S] -- COMMAND [ARGS...]
 *
 * For a program's own timing runs next to ks optimize on one GPU (make
 * bench runs several programs at once), and for ks capture of such a
 * program: a ks or ks-replay under COMMAND takes the held lock as its own
 * (gpulock.h). --shared holds it shared (a run that only checks). Exits
 * with COMMAND's status (128 + signal when a signal ended it).
 */
#include "ks.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/conf.h"
#include "../core/util.h"
#include "../review/gpulock.h"

static int
usage(void)
{
	fprintf(stderr, "usage: ks gpu-lock [--shared] [--timeout S] -- COMMAND [ARGS...]\n");
	return KS_EXIT_USAGE;
}

int
ks_cmd_gpu_lock(int argc, char **argv, struct ks_conf *conf)
{
	struct ks_gpulock g = KS_GPULOCK_INIT;
	struct ks_buf err = KS_BUF_INIT;
	long timeout_s = 24 * 3600;
	int shared = 0, i, rc;
	char *path, *end;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--shared")) {
			shared = 1;
		} else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
			errno = 0;
			timeout_s = strtol(argv[++i], &end, 10);
			if (errno || *end || timeout_s <= 0 || timeout_s > 24 * 3600)
				return usage();
		} else {
			return usage();
		}
	}
	if (i + 1 >= argc)
		return usage();
	path = ks_conf_gpu_lock(conf);
	rc = shared ? ks_gpulock_shared(&g, path, (int)(timeout_s * 1000), &err) :
		      ks_gpulock_exclusive(&g, path, (int)(timeout_s * 1000), &err);
	if (rc) {
		fprintf(stderr, "ks: error: the GPU lock %s: %s\n", path, err.buf);
		free(path);
		ks_buf_release(&err);
		return KS_EXIT_FAILED;
	}
	/* Only an exclusive holder lends the lock to its command: a shared
	 * one must not let a measurement under it pass. */
	if (!shared)
		setenv(KS_GPULOCK_HELD_ENV, path, 1);
	rc = ks_cli_run_program(&argv[i + 1]);
	unsetenv(KS_GPULOCK_HELD_ENV);
	ks_gpulock_release(&g);
	free(path);
	ks_buf_release(&err);
	return rc;
}
