#include "diagnose.h"

#include <stdint.h>
#include <string.h>

#include "../capture/capture.h"
#include "../core/buf.h"

/* The captured buffer holding device address v, or -1. */
static long
buffer_at(const struct ks_capture *c, uint64_t v)
{
	size_t i;

	for (i = 0; i < c->nbuffers; i++) {
		const struct ks_capture_buffer *b = &c->buffers[i];

		if (b->base && v >= b->base && v - b->base < b->size)
			return (long)i;
	}
	return -1;
}

/* Is the parameter byte range [at, at+8) a pointer the capture rebases? */
static int
known_pointer(const struct ks_capture *c, size_t at)
{
	size_t i, j;

	for (i = 0; i < c->nparams; i++)
		for (j = 0; j < c->params[i].nptrs; j++)
			if (c->params[i].offset + c->params[i].ptrs[j].at == at)
				return 1;
	return 0;
}

/* The nearest captured buffer to v, and the distance. */
static long
nearest(const struct ks_capture *c, uint64_t v, uint64_t *dist)
{
	long best = -1;
	size_t i;

	*dist = UINT64_MAX;
	for (i = 0; i < c->nbuffers; i++) {
		const struct ks_capture_buffer *b = &c->buffers[i];
		uint64_t d;

		if (!b->base || b->mem == KS_MEM_GLOBAL)
			continue;
		d = v < b->base ? b->base - v : v - (b->base + b->size) + 1;
		if (d < *dist) {
			*dist = d;
			best = (long)i;
		}
	}
	return best;
}

static void
sep(struct ks_buf *out, size_t n)
{
	if (n)
		ks_buf_adds(out, "; ");
}

size_t
ks_diagnose_unrestored(const struct ks_capture *c, const unsigned char *const *in,
		       struct ks_buf *out)
{
	size_t n = 0, i, k;

	for (i = 0; in && i < c->nbuffers; i++) {
		size_t inside = 0, outside = 0, first = 0;

		for (k = 0; k + 8 <= c->buffers[i].size; k += 8) {
			uint64_t v, dist;

			memcpy(&v, in[i] + k, 8);
			if (!v)
				continue;
			if (buffer_at(c, v) >= 0)
				inside++;
			else if (nearest(c, v, &dist) >= 0 && dist <= KS_DIAGNOSE_NEAR)
				outside++;
			else
				continue;
			if (inside + outside == 1)
				first = k;
		}
		if (inside + outside) {
			sep(out, n++);
			ks_buf_addf(out, "buffer %zu holds %zu device address%s of the capture "
					 "run (first at byte %zu; %zu into captured buffers, %zu "
					 "into memory the capture did not hold), which dangle "
					 "on replay", i, inside + outside,
				    inside + outside == 1 ? "" : "es", first, inside, outside);
		}
	}
	for (k = 0; k + 8 <= c->param_size; k += 8) {
		uint64_t v, dist;
		long b, p;

		memcpy(&v, c->param_bytes + k, 8);
		if (!v || known_pointer(c, k) || buffer_at(c, v) >= 0)
			continue;
		b = nearest(c, v, &dist);
		if (b < 0 || dist > KS_DIAGNOSE_NEAR)
			continue;
		p = ks_capture_param_at(c, k);
		sep(out, n++);
		ks_buf_addf(out, "parameter %ld holds 0x%llx, %llu bytes %s buffer %ld: a "
				 "pointer into memory the capture did not hold",
			    p, (unsigned long long)v, (unsigned long long)dist,
			    v < c->buffers[b].base ? "before" : "past the end of", b);
	}
	if (c->note && *c->note) {
		sep(out, n++);
		ks_buf_addf(out, "the capture notes: %s", c->note);
	}
	return n;
}
