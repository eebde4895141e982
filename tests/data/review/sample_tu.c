/* The TU racecheck runs on a launch too large for every block: IN with
 * the block sample's guard (src/review/sample.h, the Reviewer's own
 * code) written to OUT. Built by sanitizer-cost.sh with the sources it
 * names; exits 1 where the guard does not apply (the reason on stderr).
 *   sample_tu IN OUT */
#include <stdio.h>

#include "../../../src/core/buf.h"
#include "../../../src/core/fs.h"
#include "../../../src/review/sample.h"

int
main(int argc, char **argv)
{
	struct ks_buf text = KS_BUF_INIT, out = KS_BUF_INIT, why = KS_BUF_INIT;
	int rc = 0;

	if (argc != 3) {
		fputs("usage: sample_tu IN OUT\n", stderr);
		return 2;
	}
	if (ks_fs_read(argv[1], &text, &why)) {
		rc = 2;
	} else if (!ks_sample_allowed(text.buf, &why)) {
		rc = 1;
	} else if (!ks_sample_blocks(text.buf, argv[1], &out)) {
		ks_buf_adds(&why, "no kernel body to guard");
		rc = 1;
	} else if (ks_fs_write_atomic(argv[2], out.buf, out.len, &why)) {
		rc = 2;
	}
	if (rc)
		fprintf(stderr, "sample_tu: %s: %s\n", argv[1], why.buf);
	ks_buf_release(&text);
	ks_buf_release(&out);
	ks_buf_release(&why);
	return rc;
}
