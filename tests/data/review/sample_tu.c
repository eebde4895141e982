/* The TU racecheck runs on a launch too large for every block: IN with
 * the block sample's guard (src/review/sample.h, the Reviewer's own
 * code) written to OUT. Built by sanitizer-cost.sh with the sources it
 * names; exits 1 where the guard does not apply (the reason on stderr).
 *   sample_tu IN OUT */
#include <stdio.h>
#include <stdlib.h>

#include "../../../src/core/buf.h"
#include "../../../src/review/sample.h"

int
main(int argc, char **argv)
{
	struct ks_buf text = KS_BUF_INIT, out = KS_BUF_INIT, why = KS_BUF_INIT;
	char chunk[65536];
	size_t n;
	FILE *f;

	if (argc != 3) {
		fputs("usage: sample_tu IN OUT\n", stderr);
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		ks_buf_add(&text, chunk, n);
	fclose(f);
	if (!ks_sample_allowed(text.buf, &why)) {
		fprintf(stderr, "sample_tu: %s: %s\n", argv[1], why.buf);
		return 1;
	}
	if (!ks_sample_blocks(text.buf, argv[1], &out)) {
		fprintf(stderr, "sample_tu: %s: no kernel body to guard\n", argv[1]);
		return 1;
	}
	f = fopen(argv[2], "wb");
	if (!f || fwrite(out.buf, 1, out.len, f) != out.len || fclose(f)) {
		perror(argv[2]);
		return 2;
	}
	ks_buf_release(&text);
	ks_buf_release(&out);
	ks_buf_release(&why);
	return 0;
}
