/*
 * diagnose: why a capture's original may fail on replay, said from what
 * the capture holds. Replay allocates every buffer anew and rebases the
 * pointers it knows of (those in the parameters that point into a
 * captured buffer); a kernel that reaches memory any other way faults or
 * reads something else. These functions name such ways, so that a fault
 * of the original comes with what ks could not restore.
 *
 * Pure: the capture and its before-state in, sentences out.
 * May include: libc, core/, capture/capture.h.
 */
#ifndef KS_REVIEW_DIAGNOSE_H
#define KS_REVIEW_DIAGNOSE_H

#include <stddef.h>

struct ks_buf;
struct ks_capture;

/*
 * How far from a captured buffer a parameter's value may lie and still be
 * taken for a device pointer (a neighbouring allocation the capture did
 * not hold).
 */
#define KS_DIAGNOSE_NEAR (64ull << 30)

/*
 * Pure: the ways the kernel may reach memory replay does not restore,
 * one clause each, "; "-separated, appended to `out`:
 *  - a buffer whose before-state holds device addresses (8-byte words
 *    inside a captured buffer or within KS_DIAGNOSE_NEAR of one: an array
 *    of pointers, a struct with a pointer field): those addresses are the
 *    capture run's and dangle on replay;
 *  - a parameter word (8 bytes, aligned) that is not a known pointer but
 *    lies within KS_DIAGNOSE_NEAR of a captured buffer without being in
 *    one: a pointer to an allocation the capture did not hold;
 *  - the capture's own note (what it could not see).
 * `in[i]` is buffer i's before-state (buffers[i].size bytes). Returns the
 * number of clauses.
 */
size_t ks_diagnose_unrestored(const struct ks_capture *c,
			      const unsigned char *const *in, struct ks_buf *out);

#endif
