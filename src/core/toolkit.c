#include "toolkit.h"

#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "util.h"

/* <dir of `file`>/<name> when it is executable, else NULL. */
static char *
beside(const char *file, const char *name)
{
	const char *slash = file ? strrchr(file, '/') : NULL;
	char *p;

	if (!slash)
		return NULL;
	p = ks_xasprintf("%.*s/%s", (int)(slash - file), file, name);
	if (ks_fs_is_exec(p))
		return p;
	free(p);
	return NULL;
}

char *
ks_toolkit_program(const char *name, const char *setting, const char *nvcc)
{
	static const char *const homes[] = { "CUDA_HOME", "CUDA_PATH" };
	char *p;
	size_t i;

	if (setting)
		return *setting ? ks_xstrdup(setting) : NULL;
	p = beside(nvcc, name);
	if (p)
		return p;
	for (i = 0; i < KS_ARRAY_SIZE(homes); i++) {
		const char *h = getenv(homes[i]);

		if (!h || !*h)
			continue;
		p = ks_xasprintf("%s/bin/%s", h, name);
		if (ks_fs_is_exec(p))
			return p;
		free(p);
	}
	p = ks_xasprintf("/usr/local/cuda/bin/%s", name);
	if (ks_fs_is_exec(p))
		return p;
	free(p);
	return ks_fs_which(name, getenv("PATH"), NULL, NULL);
}

char *
ks_toolkit_companion(const char *name, const char *setting)
{
	char *self, *slash, *path = NULL;

	if (setting && *setting)
		return ks_xstrdup(setting);
	self = ks_fs_realpath("/proc/self/exe");
	slash = self ? strrchr(self, '/') : NULL;
	if (slash) {
		*slash = '\0';
		path = ks_xasprintf("%s/%s", self, name);
		if (!ks_fs_exists(path)) {
			free(path);
			path = ks_xasprintf("%s/../lib/ks-nvcc/%s", self, name);
			if (!ks_fs_exists(path)) {
				free(path);
				path = NULL;
			}
		}
	}
	free(self);
	if (!path)
		path = ks_fs_which(name, getenv("PATH"), NULL, NULL);
	return path;
}
