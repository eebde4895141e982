#include "passthru.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/util.h"

char *
ks_passthru_self(void)
{
	return ks_fs_realpath("/proc/self/exe");
}

/* Is `real` (a realpath) listed in the safeguard variable? */
static int
already_execd(const char *real)
{
	const char *list = getenv(KS_SAFEGUARD_ENV), *p;
	size_t n = strlen(real);

	for (p = list; p && *p;) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);

		if (len == n && !memcmp(p, real, n))
			return 1;
		p += len + (colon ? 1 : 0);
	}
	return 0;
}

int
ks_passthru_usable(const char *path, const char *self)
{
	char *real;
	int ok;

	if (!ks_fs_is_exec(path))
		return 0;
	real = ks_fs_realpath(path);
	ok = real && !(self && !strcmp(real, self)) && !already_execd(real);
	free(real);
	return ok;
}

static int
accept_nvcc(const char *cand, void *self)
{
	return ks_passthru_usable(cand, self);
}

/*
 * Why KS_NVCC, which is not usable, cannot be used (-1, with what to fix),
 * or 0 when it is a compiler already called in this chain.
 */
static int
configured_unusable(const char *configured, struct ks_buf *err)
{
	const char *why;
	char *rp;
	int in_chain;

	if (!ks_fs_exists(configured)) {
		why = "does not exist";
	} else if (!ks_fs_is_exec(configured)) {
		why = "is not an executable file";
	} else {
		rp = ks_fs_realpath(configured);
		in_chain = rp && already_execd(rp);
		free(rp);
		if (in_chain)
			return 0;
		why = "is ks-nvcc itself";
	}
	return ks_error(err, "KS_NVCC '%s' %s: set KS_NVCC to the real nvcc, "
			"or unset it to search PATH", configured, why);
}

char *
ks_passthru_find(const char *configured, const char *self, struct ks_buf *err)
{
	static const char *const homes[] = { "CUDA_HOME", "CUDA_PATH" };
	char *cand;
	size_t i;

	if (configured && *configured) {
		if (ks_passthru_usable(configured, self))
			return ks_xstrdup(configured);
		if (configured_unusable(configured, err))
			return NULL;
		/*
		 * Already called above us: KS_NVCC is a site wrapper that
		 * runs "nvcc" from PATH and found ks-nvcc again. What it
		 * wants is the next nvcc on PATH.
		 */
	}
	cand = ks_fs_which("nvcc", getenv("PATH"), accept_nvcc, (void *)self);
	if (cand)
		return cand;
	for (i = 0; i < KS_ARRAY_SIZE(homes); i++) {
		const char *h = getenv(homes[i]);
		if (!h || !*h)
			continue;
		cand = ks_xasprintf("%s/bin/nvcc", h);
		if (ks_passthru_usable(cand, self))
			return cand;
		free(cand);
	}
	cand = ks_xstrdup("/usr/local/cuda/bin/nvcc");
	if (ks_passthru_usable(cand, self))
		return cand;
	free(cand);
	ks_error(err, "cannot find the real nvcc (searched KS_NVCC, PATH, "
		 "CUDA_HOME, CUDA_PATH, /usr/local/cuda/bin); set KS_NVCC");
	return NULL;
}

void
ks_passthru_exec(const char *real, char **argv)
{
	const char *old = getenv(KS_SAFEGUARD_ENV);
	char *rp = ks_fs_realpath(real);
	char *list;

	if (rp) {
		list = old && *old ? ks_xasprintf("%s:%s", old, rp) : ks_xstrdup(rp);
		setenv(KS_SAFEGUARD_ENV, list, 1);
		free(list);
		free(rp);
	}
	argv[0] = (char *)real;
	execv(real, argv);
}
