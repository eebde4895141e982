/*
 * util: allocation that dies on exhaustion, fatal exits, small string helpers.
 *
 * ks_x* allocate or die with KS_EXIT_NOMEM: when memory is gone even the
 * pass-through cannot be trusted. Every returned pointer belongs to the caller.
 * ks_die() is only for "cannot even pass through" (exit codes >= 100, listed
 * in docs/MANUAL.md); everything else returns -1 with a message in an err
 * buffer (see buf.h).
 * May include: libc.
 */
#ifndef KS_CORE_UTIL_H
#define KS_CORE_UTIL_H

#include <stddef.h>

/* Exit codes of ks-nvcc and ks themselves; nvcc's own codes are below 100. */
enum ks_exit {
	KS_EXIT_NO_NVCC = 100,	/* no real nvcc could be found */
	KS_EXIT_RECURSION = 101, /* the real nvcc leads back to ks-nvcc */
	KS_EXIT_EXEC = 102,	/* execv of the real nvcc failed */
	KS_EXIT_NOMEM = 103,	/* out of memory */
	KS_EXIT_USAGE = 104,	/* ks: bad command line */
	KS_EXIT_FAILED = 105,	/* ks: the command failed */
	KS_EXIT_SUBST = 106,	/* ks-nvcc: a substitution failed under KS_STRICT */
};

#define KS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

void *ks_xmalloc(size_t n);
void *ks_xcalloc(size_t n, size_t size);
void *ks_xrealloc(void *p, size_t n);
char *ks_xstrdup(const char *s);
char *ks_xstrndup(const char *s, size_t n);
/* printf into a fresh string. */
char *ks_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print "<prog>: error: ..." to stderr and exit with `code`. */
void ks_die(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/* The name used in ks_die messages ("ks-nvcc" or "ks"). */
extern const char *ks_progname;

int ks_starts_with(const char *s, const char *prefix);
int ks_ends_with(const char *s, const char *suffix);
/* `s` is one of the strings of the NULL-ended `list`. */
int ks_str_in_list(const char *const *list, const char *s);
/* Last path component (a pointer into `path`). */
const char *ks_basename(const char *path);

/* Milliseconds on the monotonic clock (differences only). */
double ks_now_ms(void);
/*
 * Pure: is `s` (`len` bytes) well-formed UTF-8 (no overlong forms, no
 * surrogates, nothing beyond U+10FFFF)? JSON text must be; nvcc's
 * arguments and paths need not be.
 */
int ks_utf8_valid(const char *s, size_t len);
/* The length of the well-formed UTF-8 character at `p`, or 0. */
size_t ks_utf8_seq(const unsigned char *p, size_t avail);
/* Parse a boolean word (1/0, yes/no, true/false, on/off); -1 if none. */
int ks_parse_bool(const char *s);

#endif
