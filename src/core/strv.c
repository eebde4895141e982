#include "strv.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

char *ks_strv_empty[1];

void
ks_strv_init(struct ks_strv *sv)
{
	sv->v = ks_strv_empty;
	sv->n = 0;
	sv->alloc = 0;
}

void
ks_strv_release(struct ks_strv *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	if (sv->alloc)
		free(sv->v);
	ks_strv_init(sv);
}

static void
reserve(struct ks_strv *sv, size_t extra)
{
	size_t want = sv->n + extra + 1;

	if (want <= sv->alloc)
		return;
	if (want < 8)
		want = 8;
	if (want < sv->alloc * 2)
		want = sv->alloc * 2;
	sv->v = ks_xrealloc(sv->alloc ? sv->v : NULL, want * sizeof(*sv->v));
	sv->alloc = want;
}

void
ks_strv_push_owned(struct ks_strv *sv, char *s)
{
	reserve(sv, 1);
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void
ks_strv_push(struct ks_strv *sv, const char *s)
{
	ks_strv_push_owned(sv, ks_xstrdup(s));
}

void
ks_strv_pushv(struct ks_strv *sv, const char *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ks_strv_push(sv, v[i]);
}

void
ks_strv_insert(struct ks_strv *sv, size_t at, const char *s)
{
	if (at > sv->n)
		at = sv->n;
	reserve(sv, 1);
	memmove(sv->v + at + 1, sv->v + at, (sv->n - at + 1) * sizeof(*sv->v));
	sv->v[at] = ks_xstrdup(s);
	sv->n++;
}

void
ks_strv_remove(struct ks_strv *sv, size_t at)
{
	if (at >= sv->n)
		return;
	free(sv->v[at]);
	memmove(sv->v + at, sv->v + at + 1, (sv->n - at) * sizeof(*sv->v));
	sv->n--;
}

long
ks_strv_find(const struct ks_strv *sv, const char *s)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return (long)i;
	return -1;
}
