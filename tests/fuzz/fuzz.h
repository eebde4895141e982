/*
 * fuzz: what the libFuzzer harnesses share (tests/fuzz/fuzz_*.c).
 *
 * Each harness feeds one reader of outside data (a file ks-nvcc or ks
 * reads, or the command line) with libFuzzer's bytes and checks what must
 * hold whatever the bytes: no crash, no sanitizer report, and the
 * harness's own invariants (fuzz_check). Built and run by `make fuzz`
 * (and briefly by tests/suites/fuzz.sh) with clang's -fsanitize=fuzzer.
 * May include: libc, src/core/.
 */
#ifndef KS_TESTS_FUZZ_H
#define KS_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The bytes as a C string (they may hold NULs: the string ends there). */
static inline char *
fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* An invariant that failed is a finding: say which, and crash. */
#define fuzz_check(cond)                                                   \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "fuzz: invariant failed at %s:%d: %s\n", \
				__FILE__, __LINE__, #cond);                \
			abort();                                           \
		}                                                          \
	} while (0)

/*
 * The bytes as a file that path-taking readers can open: a memfd,
 * reached as /proc/self/fd/N (a regular file, no disk). Returns the fd;
 * `path` gets the name. The caller closes the fd.
 */
int fuzz_memfile(const uint8_t *data, size_t size, char path[64]);

#endif
