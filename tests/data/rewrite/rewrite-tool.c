/*
 * rewrite-tool: the rewriter from the command line, for
 * tests/suites/rewrite.sh (built there from the objects of the build).
 *
 *   rewrite-tool SOURCE [KERNEL|KERNEL<ARGS> ARCH VARIANT]...
 *
 * Finds each KERNEL in SOURCE with ks_rewrite_scan(), splits the file
 * VARIANT into its parts (ks_rewrite_variant_split) for __CUDA_ARCH__ ARCH
 * (900), and prints the rewritten translation unit; #line directives name
 * SOURCE and VARIANT as given. KERNEL<ARGS> replaces that instance of a
 * template kernel (the job's `args`).
 * Exit 0, or 1 with the error on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../src/cache/rewrite.h"
#include "../../../src/core/buf.h"
#include "../../../src/core/fs.h"

#define MAX_JOBS 8

int
main(int argc, char **argv)
{
	struct ks_rewrite_kernel kernels[MAX_JOBS];
	struct ks_rewrite_variant variants[MAX_JOBS];
	struct ks_rewrite_job jobs[MAX_JOBS];
	char names[MAX_JOBS][128], *args[MAX_JOBS];
	struct ks_buf texts[MAX_JOBS];
	struct ks_buf src = KS_BUF_INIT, out = KS_BUF_INIT, err = KS_BUF_INIT;
	size_t n = 0, i;
	int a, rc = 1;

	memset(kernels, 0, sizeof(kernels));
	memset(variants, 0, sizeof(variants));
	for (i = 0; i < MAX_JOBS; i++)
		ks_buf_init(&texts[i], 0);
	if (argc < 2 || (argc - 2) % 3 || (argc - 2) / 3 > MAX_JOBS ||
	    ks_fs_read(argv[1], &src, &err)) {
		fprintf(stderr, "usage: rewrite-tool SOURCE [KERNEL ARCH VARIANT]...\n"
				"%s\n", err.buf);
		return 2;
	}
	for (a = 2; a + 2 < argc; a += 3, n++) {
		char *lt;

		snprintf(names[n], sizeof(names[n]), "%s", argv[a]);
		lt = strchr(names[n], '<');
		args[n] = NULL;
		if (lt && names[n][strlen(names[n]) - 1] == '>') {
			*lt = '\0';
			args[n] = lt + 1;
			args[n][strlen(args[n]) - 1] = '\0';
		}
		if (ks_rewrite_scan(src.buf, src.len, names[n], &kernels[n], &err) ||
		    ks_fs_read(argv[a + 2], &texts[n], &err) ||
		    ks_rewrite_variant_split(texts[n].buf, &variants[n], &err))
			goto out;
		variants[n].file = argv[a + 2];
		variants[n].arch = (unsigned)atoi(argv[a + 1]);
		jobs[n].kernel = &kernels[n];
		jobs[n].variant = &variants[n];
		jobs[n].args = args[n];
	}
	if (ks_rewrite(src.buf, src.len, argv[1], jobs, n, &out, &err))
		goto out;
	fputs(out.buf, stdout);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "rewrite-tool: %s\n", err.buf);
	for (i = 0; i < MAX_JOBS; i++) {
		ks_rewrite_kernel_release(&kernels[i]);
		ks_buf_release(&texts[i]);
	}
	ks_buf_release(&src);
	ks_buf_release(&out);
	ks_buf_release(&err);
	return rc;
}
