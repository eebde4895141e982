/*
 * buf: the one growable byte buffer of ks-nvcc and ks.
 *
 * Invariants (as git's strbuf): after KS_BUF_INIT or ks_buf_init(), `buf`
 * is never NULL and always NUL-terminated, so it can be used as a C string
 * at any time. `len` excludes the terminator. `max` caps growth (0 = no cap
 * beyond SIZE_MAX/2): an append that would exceed it fails with -1 and leaves
 * the buffer unchanged, which is how HTTP bodies, LLM replies and files read
 * from disk are bounded.
 *
 * Ownership: the buffer owns `buf`. ks_buf_release() frees it and re-inits;
 * ks_buf_detach() is the only way to take the pointer (the caller then owns
 * it and must free() it). A zeroed struct is NOT valid: use KS_BUF_INIT.
 *
 * Allocation failure dies (ks_xrealloc); only the cap is a recoverable error.
 * May include: libc, util.h.
 */
#ifndef KS_CORE_BUF_H
#define KS_CORE_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct ks_buf {
	char *buf;
	size_t len;
	size_t alloc;
	size_t max;
};

extern char ks_buf_empty[];
#define KS_BUF_INIT { ks_buf_empty, 0, 0, 0 }

/* Initialize with a cap of `max` bytes (0: no cap). */
void ks_buf_init(struct ks_buf *b, size_t max);

/* Free the contents and re-init, keeping the cap. Safe on KS_BUF_INIT. */
void ks_buf_release(struct ks_buf *b);

/* Empty the buffer, keeping its memory. */
void ks_buf_reset(struct ks_buf *b);

/* Hand the string to the caller (who frees it); the buffer is re-inited. */
char *ks_buf_detach(struct ks_buf *b, size_t *len);

/* Appends. Each returns 0, or -1 when the cap would be exceeded. */
int ks_buf_add(struct ks_buf *b, const void *data, size_t n);
int ks_buf_adds(struct ks_buf *b, const char *s);
int ks_buf_addch(struct ks_buf *b, int c);
int ks_buf_addf(struct ks_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int ks_buf_vaddf(struct ks_buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/*
 * Append `s` as a JSON string literal, quotes included. Bytes that are not
 * well-formed UTF-8 are written as \ufffd, so the text is always JSON.
 */
int ks_buf_add_json_str(struct ks_buf *b, const char *s);

/* As ks_buf_add_json_str, or `null` when `s` is NULL. */
int ks_buf_add_json_str_or_null(struct ks_buf *b, const char *s);

/* Append `s` quoted for a POSIX shell when it needs quoting. */
int ks_buf_add_shell_word(struct ks_buf *b, const char *s);

/* Shorten to `len` bytes (no-op when already shorter). */
void ks_buf_truncate(struct ks_buf *b, size_t len);

/* Remove trailing whitespace. */
void ks_buf_rtrim(struct ks_buf *b);

/*
 * Error convention of the whole code base: a failing function returns -1 and
 * appends one lowercase message, without trailing period or newline, to
 * `err`. When `err` already holds a message, the new one is appended after
 * ": ": a caller adds its context after the cause, so that a message reads
 * from the cause outward ("not a number: in tol_f32: in ks.conf line 3").
 * Returns -1 so that `return ks_error(err, ...)` reads naturally.
 */
int ks_error(struct ks_buf *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* As ks_error, and appends ": strerror(errno)". */
int ks_error_errno(struct ks_buf *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
