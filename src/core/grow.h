/*
 * grow: the one way an array grows. KS_GROW(p, n, &alloc) makes room for
 * element n of array p (of *alloc elements): it doubles the allocation
 * (8 elements at first) when n has reached it, and dies with
 * KS_EXIT_NOMEM, as every ks_x* allocation does, when the new size in
 * bytes would not fit in a size_t. Use it as
 *     v = KS_GROW(v, n, &alloc);
 *     v[n++] = x;
 * May include: libc.
 */
#ifndef KS_CORE_GROW_H
#define KS_CORE_GROW_H

#include <stddef.h>

/* `p` with room for element `n` (elements of `size` bytes). */
void *ks_grow(void *p, size_t n, size_t *alloc, size_t size);

#define KS_GROW(p, n, alloc) ks_grow((p), (n), (alloc), sizeof(*(p)))

#endif
