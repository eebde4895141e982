#include "onecmd.h"

#include <string.h>

#include "../core/buf.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "args.h"
#include "derive.h"
#include "nvopts.h"

/*
 * Walk argv as ks_args_classify does: values taken by their option,
 * unknown and bad options taking none. `at` gets the index of input
 * number `n`. Returns 0 when found, 1 when there are fewer inputs, -1
 * when an option lacks its value; `seen` (may be NULL) gets whether an
 * option named `name` (long name) was there.
 */
static int
walk(const char *const *argv, size_t argc, size_t n, size_t *at,
     const char *const *names, int *seen)
{
	size_t i, k = 0;
	int found = 1;

	for (i = 0; i < argc; i++) {
		const struct ks_nvopt *o = NULL;
		const char *value = NULL;

		switch (ks_nvopt_parse(argv[i], &o, &value)) {
		case KS_NVOPT_WORD_INPUT:
			if (found == 1 && k++ == n) {
				*at = i;
				found = 0;
			}
			continue;
		case KS_NVOPT_WORD_OPTION:
			break;
		default:
			continue;
		}
		if (names && seen) {
			size_t j;

			for (j = 0; names[j]; j++)
				if (!strcmp(o->name, names[j]))
					seen[j] = 1;
		}
		if ((o->flags & KS_NVOPT_TAKES_ARG) && !value && ++i >= argc)
			return -1;
	}
	return found;
}

long
ks_onecmd_input_word(const char *const *argv, size_t argc, size_t n)
{
	size_t at = 0;

	return walk(argv, argc, n, &at, NULL, NULL) ? -1 : (long)at;
}

/* Is argv[src] an input word? */
static int
is_input(const char *const *argv, size_t argc, size_t src, struct ks_buf *err)
{
	size_t n, at = 0;
	int rc = 0;

	for (n = 0; rc == 0 && n <= src; n++) {
		rc = walk(argv, argc, n, &at, NULL, NULL);
		if (rc == 0 && at == src)
			return 0;
	}
	if (rc < 0)
		return ks_error(err, "an option lacks its value");
	return ks_error(err, "argument %zu is not an input file", src + 1);
}

int
ks_onecmd_compile_argv(const char *const *argv, size_t argc, size_t src,
		       struct ks_strv *out, struct ks_buf *err)
{
	struct ks_derived seen;

	if (src >= argc || is_input(argv, argc, src, err))
		return src >= argc ? ks_error(err, "no argument %zu", src + 1)
				   : -1;
	if (ks_derive_argv_keep(&ks_derive_compile_only, argv, argc, src, out,
				&seen, err))
		return -1;
	if (!seen.compiles)
		ks_strv_push(out, "-c");
	return 0;
}

int
ks_onecmd_replace_source(const char *const *argv, size_t argc, size_t src,
			 const char *path, struct ks_strv *out,
			 struct ks_buf *err)
{
	static const char *const named[] = { "output-file", "dependency-output",
					     NULL };
	struct ks_strv words = KS_STRV_INIT;
	struct ks_args a;
	int seen[2] = { 0, 0 };
	size_t at = 0, i;
	int rc = -1;

	ks_args_init(&a);
	if (src >= argc) {
		ks_error(err, "no argument %zu", src + 1);
		goto out;
	}
	if (is_input(argv, argc, src, err))
		goto out;
	walk(argv, argc, (size_t)-1, &at, named, seen);
	ks_strv_pushv(&words, argv, argc);
	if (ks_args_classify(&words, &a, err))
		goto out;
	for (i = 0; i < argc; i++)
		ks_strv_push(out, i == src ? path : argv[i]);
	/* Without -o, nvcc names a per-input output after the input (and
	 * -odir); a link's a.out or -lib's a.a keep their name anyway. */
	if (!seen[0] && a.output) {
		ks_strv_push(out, "-o");
		ks_strv_push(out, a.output);
	}
	if (!seen[0] && !seen[1] && a.depfile && (a.dep_md || a.dep_mmd)) {
		ks_strv_push(out, "-MF");
		ks_strv_push(out, a.depfile);
	}
	rc = 0;
out:
	ks_args_release(&a);
	ks_strv_release(&words);
	return rc;
}

int
ks_onecmd_replace_sources(const char *const *argv, size_t argc,
			  const size_t *src, const char *const *paths,
			  size_t n, struct ks_strv *out, struct ks_buf *err)
{
	struct ks_strv cur = KS_STRV_INIT;
	size_t i;

	if (!n)
		return ks_error(err, "no source to replace");
	/* One at a time: a replacement keeps every word where it stood (it
	 * only adds -o/-MF at the end, and only once: the next one sees
	 * them), so the indices hold. */
	ks_strv_pushv(&cur, argv, argc);
	for (i = 0; i < n; i++) {
		struct ks_strv next = KS_STRV_INIT;

		if (ks_onecmd_replace_source((const char *const *)cur.v, cur.n,
					     src[i], paths[i], &next, err)) {
			ks_strv_release(&next);
			ks_strv_release(&cur);
			return -1;
		}
		ks_strv_release(&cur);
		cur = next;
	}
	ks_strv_pushv(out, (const char *const *)cur.v, cur.n);
	ks_strv_release(&cur);
	return 0;
}
