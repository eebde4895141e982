#include "keyflags.h"

#include <string.h>

#include "../core/util.h"

/* Host compiler words without device effect, whole. */
static const char *const host_words[] = {
	"-w", "-pipe", "-fPIC", "-fpic", "-fPIE", "-fpie", "-fno-PIC",
	"-fno-pic", "-fno-PIE", "-fno-pie", "-fomit-frame-pointer",
	"-fno-omit-frame-pointer", "-ffunction-sections", "-fdata-sections",
	"-fvisibility-inlines-hidden", NULL,
};

/* ... and by prefix (-Wp, is excepted below). */
static const char *const host_prefixes[] = {
	"-W", "-O", "-g", "-fdiagnostics-", "-fno-diagnostics-",
	"-fmax-errors=", "-fmessage-length=", "-fvisibility=",
};

/* ptxas options that change only its messages, in both spellings. */
static const char *const ptxas_quiet[] = {
	"-v", "--verbose", "-w", "--disable-warnings", "-Werror",
	"--warning-as-error", "-warn-spills", "--warn-on-spills",
	"-warn-lmem-usage", "--warn-on-local-memory-usage",
	"-warn-double-usage", "--warn-on-double-precision-use",
	"-make-errors-visible-at-exit", "--make-errors-visible-at-exit",
	"-suppress-stack-size-warning", "--suppress-stack-size-warning",
	"-suppress-double-demote-warning", "--suppress-double-demote-warning",
	"-suppress-async-bulk-multicast-advisory-warning",
	"--suppress-async-bulk-multicast-advisory-warning",
	"-suppress-sparse-mma-advisory-info",
	"--suppress-sparse-mma-advisory-info", NULL,
};

int
ks_keyflags_host_only(const char *word)
{
	size_t i;

	if (ks_str_in_list(host_words, word))
		return 1;
	if (ks_starts_with(word, "-Wp,"))
		return 0;
	for (i = 0; i < KS_ARRAY_SIZE(host_prefixes); i++)
		if (ks_starts_with(word, host_prefixes[i]))
			return 1;
	return 0;
}

int
ks_keyflags_ptxas_quiet(const char *word)
{
	return ks_str_in_list(ptxas_quiet, word);
}
