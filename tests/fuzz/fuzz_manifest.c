/* Direct-mode manifests: ks_manifest_parse. What parses formats to text
 * that parses to the same text again. */
#include "fuzz.h"

#include "../../src/core/buf.h"
#include "../../src/nvcc/manifest.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	struct ks_buf err = KS_BUF_INIT, once = KS_BUF_INIT, twice = KS_BUF_INIT;
	struct ks_manifest m, m2;

	memset(&m, 0, sizeof(m));
	memset(&m2, 0, sizeof(m2));
	if (ks_manifest_parse(text, &m, &err) == 0) {
		ks_manifest_format(&m, &once);
		fuzz_check(ks_manifest_parse(once.buf, &m2, &err) == 0);
		ks_manifest_format(&m2, &twice);
		fuzz_check(!strcmp(once.buf, twice.buf));
	} else {
		fuzz_check(err.len > 0);
	}
	ks_manifest_release(&m);
	ks_manifest_release(&m2);
	ks_buf_release(&err);
	ks_buf_release(&once);
	ks_buf_release(&twice);
	free(text);
	return 0;
}
