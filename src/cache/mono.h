/*
 * mono: the instance view of one instance of a template kernel, so that
 * the builtin transforms, which read only plain `__global__` kernels, can
 * work on it.
 *
 * ks_mono_instance() is a pure function over the TU's text and the
 * template's definition (byte offsets, from `template` through the body's
 * '}', as the inventory finds them). The view is the TU with a plain,
 * non-template copy of the kernel for the instance added right after the
 * template's definition. The copy keeps the kernel's name (it overloads
 * the template, which stays as written) and its text byte for byte, but
 * for its template parameters: a type parameter N whose argument is one
 * name (`float`, `ns::Vec3`, `Pair<int, float>`) becomes that argument, so
 * that the analysis sees the type the facts name; one whose argument is
 * not (`unsigned int`, `float *`) becomes the alias `ks_tp_<kernel>_<N>`,
 * declared by a typedef just before the copy (`typedef unsigned int
 * ks_tp_axpy_T;`), since `T(0)` must stay valid; a non-type parameter
 * becomes its argument in parentheses (`(64)`). The analysis parses the
 * view and the transforms read the copy; the typedef lines are also given
 * apart, since they must travel with the variant the transforms make of
 * the copy. The lexer
 * (lex.h) finds the parameters' uses, so names in comments, strings and
 * preprocessor lines, and members and qualified names spelled like a
 * parameter (`p.T`, `s->T`, `Foo::T`), stay as written.
 *
 * Ownership: ks_mono_instance() borrows its arguments; a filled struct
 * ks_mono_view owns its strings and ks_mono_view_release() frees them.
 * libc only, as the rest of cache/.
 * May include: libc, core/.
 */
#ifndef KS_CACHE_MONO_H
#define KS_CACHE_MONO_H

#include <stddef.h>

struct ks_buf;

struct ks_mono_view {
	/* the TU with the plain copy added (owned, NUL-terminated) */
	char *text;
	size_t len;
	/* the plain copy's definition in `text`: from its first token (its
	 * first specifier) through its closing brace */
	size_t def_begin, def_end;
	/* the typedef lines the copy needs ("" when none), each ending in
	 * '\n' (owned) */
	char *aliases;
};

/* Free what `m` holds and zero it; safe on a zeroed struct. */
void ks_mono_view_release(struct ks_mono_view *m);

/*
 * Pure: the instance view of instance `args` ("float", "float, 64", as the
 * analysis displays the instance's template arguments) of the template
 * kernel `name` whose definition is src[def_begin, def_end) (def_begin at
 * `template`, def_end just after the body's closing brace). Arguments
 * missing at the end take their parameter's default. Refused, with one
 * message naming the kernel and the instance: a definition that does not
 * start with `template <` or does not end with its body; an explicit
 * specialization (`template <>`), a parameter pack, a template template
 * parameter, an unnamed parameter, a requires-clause; more arguments than
 * parameters, or fewer without defaults for the rest; an argument that
 * cannot be spelled in source (an anonymous or unnamed type, a lambda);
 * a type argument that a typedef cannot name as `typedef ARG alias;`
 * (an array or function type: '[' or '(' outside a template argument
 * list). `out` is zeroed first and holds nothing on failure.
 */
int ks_mono_instance(const char *src, size_t len, size_t def_begin,
		     size_t def_end, const char *name, const char *args,
		     struct ks_mono_view *out, struct ks_buf *err);

#endif
