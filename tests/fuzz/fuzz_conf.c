/* The config file (ks.conf): ks_conf_parse, then describing the result. */
#include "fuzz.h"

#include "../../src/core/buf.h"
#include "../../src/core/conf.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	struct ks_buf err = KS_BUF_INIT, out = KS_BUF_INIT;
	struct ks_conf c;
	int rc;

	ks_conf_init(&c);
	rc = ks_conf_parse(&c, text, "ks.conf", &err);
	/* A failure always says why; a success says nothing. */
	fuzz_check(rc == 0 ? err.len == 0 : err.len > 0);
	ks_conf_describe(&c, &out);
	fuzz_check(c.lock_timeout_ms >= 0);
	ks_conf_release(&c);
	ks_buf_release(&err);
	ks_buf_release(&out);
	free(text);
	return 0;
}
