/*
 * args: splitting, options files and classification of nvcc command
 * lines. The nvcc behaviour encoded here is that of nvcc 13.0.88; each
 * rule was checked with `nvcc --dryrun` and is exercised by
 * tests/unit/test_args.c.
 */
#include "args.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/grow.h"
#include "../core/util.h"
#include "arch.h"
#include "keyflags.h"
#include "nvopts.h"

/* Largest options file read; CMake's object lists stay far below. */
#define OPTF_MAX (64u << 20)

/* nvcc 13.0's target when no -arch, -code or -gencode is given. */
#define DEFAULT_ARCH "sm_75"

/* ------------------------------------------------------------------ */
/* Knowledge: what each option does to struct ks_args.                 */

enum what {
	W_NONE, W_PHASE, W_DC, W_DW, W_MD, W_MMD, W_MF, W_MT, W_MP, W_DEFINE,
	W_INCLUDE, W_ARCH, W_CODE, W_GENCODE, W_OUTPUT, W_ODIR, W_CCBIN,
	W_LANG, W_VERBOSE, W_KEEP, W_SAVE_TEMPS, W_KEEP_DIR, W_DRYRUN,
	W_FORWARD_CC, W_FORWARD_LD, W_RDC, W_DLTO, W_STD, W_OPTF,
};

/*
 * Phase options carry a rank: when several are given nvcc does the
 * highest-ranked one, wherever it stands (-c -E preprocesses, -ptx -c
 * writes PTX, -c -dlink compiles). -lib, -link and -run exclude each other
 * ("More than one compilation phase specified"). -clean turns everything
 * into deleting outputs, so it outranks all.
 */
struct special {
	const char *name;	/* long option name */
	enum what what;
	int rank;
	enum ks_mode mode;
	const char *suffix;	/* default output suffix of a per-input
				 * phase */
};

static const struct special specials[] = {
	{ "clean-targets", W_PHASE, 11, KS_MODE_OTHER, NULL },
	{ "generate-dependencies", W_PHASE, 10, KS_MODE_DEPS, NULL },
	{ "generate-nonsystem-dependencies", W_PHASE, 10, KS_MODE_DEPS, NULL },
	{ "preprocess", W_PHASE, 9, KS_MODE_PREPROCESS, NULL },
	{ "optix-ir", W_PHASE, 8, KS_MODE_DEVICE, ".optixir" },
	{ "ltoir", W_PHASE, 7, KS_MODE_DEVICE, ".ltoir" },
	{ "ptx", W_PHASE, 7, KS_MODE_DEVICE, ".ptx" },
	{ "cubin", W_PHASE, 6, KS_MODE_DEVICE, ".cubin" },
	{ "fatbin", W_PHASE, 5, KS_MODE_DEVICE, ".fatbin" },
	{ "cuda", W_PHASE, 4, KS_MODE_CUDA, NULL },
	{ "compile", W_PHASE, 3, KS_MODE_COMPILE, ".o" },
	{ "device-c", W_DC, 3, KS_MODE_COMPILE, ".o" },
	{ "device-w", W_DW, 3, KS_MODE_COMPILE, ".o" },
	{ "device-link", W_PHASE, 2, KS_MODE_DLINK, NULL },
	{ "lib", W_PHASE, 1, KS_MODE_LIB, NULL },
	{ "link", W_PHASE, 1, KS_MODE_LINK, NULL },
	{ "run", W_PHASE, 1, KS_MODE_RUN, NULL },
	{ "generate-dependencies-with-compile", W_MD, 0, 0, NULL },
	{ "generate-nonsystem-dependencies-with-compile", W_MMD, 0, 0, NULL },
	{ "dependency-output", W_MF, 0, 0, NULL },
	{ "dependency-target-name", W_MT, 0, 0, NULL },
	{ "generate-dependency-targets", W_MP, 0, 0, NULL },
	{ "define-macro", W_DEFINE, 0, 0, NULL },
	{ "undefine-macro", W_DEFINE, 0, 0, NULL },
	{ "include-path", W_INCLUDE, 0, 0, NULL },
	{ "system-include", W_INCLUDE, 0, 0, NULL },
	{ "pre-include", W_INCLUDE, 0, 0, NULL },
	{ "gpu-architecture", W_ARCH, 0, 0, NULL },
	{ "gpu-code", W_CODE, 0, 0, NULL },
	{ "generate-code", W_GENCODE, 0, 0, NULL },
	{ "output-file", W_OUTPUT, 0, 0, NULL },
	{ "output-directory", W_ODIR, 0, 0, NULL },
	{ "compiler-bindir", W_CCBIN, 0, 0, NULL },
	{ "x", W_LANG, 0, 0, NULL },
	{ "verbose", W_VERBOSE, 0, 0, NULL },
	{ "keep", W_KEEP, 0, 0, NULL },
	{ "save-temps", W_SAVE_TEMPS, 0, 0, NULL },
	{ "keep-dir", W_KEEP_DIR, 0, 0, NULL },
	{ "dryrun", W_DRYRUN, 0, 0, NULL },
	{ "forward-unknown-to-host-compiler", W_FORWARD_CC, 0, 0, NULL },
	{ "forward-unknown-opts", W_FORWARD_CC, 0, 0, NULL },
	{ "forward-unknown-to-host-linker", W_FORWARD_LD, 0, 0, NULL },
	{ "relocatable-device-code", W_RDC, 0, 0, NULL },
	{ "dlink-time-opt", W_DLTO, 0, 0, NULL },
	{ "lto", W_DLTO, 0, 0, NULL },
	{ "std", W_STD, 0, 0, NULL },
	{ "options-file", W_OPTF, 0, 0, NULL },
};

/*
 * -dlink with one of these phases links device code into that kind of
 * file: -cubin -dlink wrote ./a_dlink.cubin (also with -odir), -fatbin
 * -dlink a_dlink.fatbin; -ptx needs -dlto for it (nvcc --help), else -ptx
 * -dlink compiles k.ptx.
 */
static const struct dlink_phase {
	const char *phase;
	int needs_dlto;
	const char *output;
} dlink_phases[] = {
	{ "cubin", 0, "a_dlink.cubin" },
	{ "fatbin", 0, "a_dlink.fatbin" },
	{ "ptx", 1, "a_dlink.dlto.ptx" },
};

/* A language named by a file suffix or an -x value. */
struct lang_word {
	const char *word;
	enum ks_lang lang;
};

/* Suffixes, compared case-sensitively; the longer .cu.cpp.ii before .ii. */
static const struct lang_word suffixes[] = {
	{ ".cu.cpp.ii", KS_LANG_OBJ },
	{ ".cu", KS_LANG_CU },
	{ ".cup", KS_LANG_CUP },
	{ ".c", KS_LANG_C },
	{ ".cc", KS_LANG_CXX },
	{ ".cxx", KS_LANG_CXX },
	{ ".cpp", KS_LANG_CXX },
	{ ".i", KS_LANG_I },
	{ ".ii", KS_LANG_II },
	{ ".ptx", KS_LANG_PTX },
	{ ".cubin", KS_LANG_CUBIN },
	{ ".fatbin", KS_LANG_FATBIN },
	{ ".ltoir", KS_LANG_LTOIR },
	{ ".gpu", KS_LANG_GPU },
	{ ".o", KS_LANG_OBJ },
	{ ".obj", KS_LANG_OBJ },
	{ ".a", KS_LANG_LIB },
	{ ".so", KS_LANG_LIB },
	{ ".lib", KS_LANG_LIB },
};

/* -x values. */
static const struct lang_word xlangs[] = {
	{ "c", KS_LANG_C },
	{ "c++", KS_LANG_CXX },
	{ "cu", KS_LANG_CU },
};

/* Aliases nvcc documents; devflags spell them as the option they alias. */
static const struct alias {
	const char *name, *canonical;
} aliases[] = {
	{ "lto", "dlink-time-opt" },
	{ "expt-extended-lambda", "extended-lambda" },
};

static const char *const mode_names[] = {
	[KS_MODE_COMPILE] = "compile",
	[KS_MODE_COMPILE_LINK] = "compile-link",
	[KS_MODE_LINK] = "link",
	[KS_MODE_DLINK] = "dlink",
	[KS_MODE_LIB] = "lib",
	[KS_MODE_PREPROCESS] = "preprocess",
	[KS_MODE_DEPS] = "deps",
	[KS_MODE_DRYRUN] = "dryrun",
	[KS_MODE_INFO] = "info",
	[KS_MODE_DEVICE] = "device",
	[KS_MODE_CUDA] = "cuda",
	[KS_MODE_RUN] = "run",
	[KS_MODE_OTHER] = "other",
};

/* The reason ks_args_eligible() gives for a mode other than compile. */
static const char *const mode_reasons[] = {
	[KS_MODE_COMPILE] = NULL,
	[KS_MODE_COMPILE_LINK] = "mode-compile-link",
	[KS_MODE_LINK] = "mode-link",
	[KS_MODE_DLINK] = "mode-dlink",
	[KS_MODE_LIB] = "mode-lib",
	[KS_MODE_PREPROCESS] = "mode-preprocess",
	[KS_MODE_DEPS] = "mode-deps",
	[KS_MODE_DRYRUN] = "dryrun",
	[KS_MODE_INFO] = "mode-info",
	[KS_MODE_DEVICE] = "mode-device",
	[KS_MODE_CUDA] = "mode-cuda",
	[KS_MODE_RUN] = "mode-run",
	[KS_MODE_OTHER] = "mode-other",
};

static const char *const lang_names[] = {
	[KS_LANG_CU] = "cu",
	[KS_LANG_C] = "c",
	[KS_LANG_CXX] = "cxx",
	[KS_LANG_OBJ] = "obj",
	[KS_LANG_LIB] = "lib",
	[KS_LANG_PTX] = "ptx",
	[KS_LANG_CUBIN] = "cubin",
	[KS_LANG_FATBIN] = "fatbin",
	[KS_LANG_GPU] = "gpu",
	[KS_LANG_I] = "i",
	[KS_LANG_II] = "ii",
	[KS_LANG_CUP] = "cup",
	[KS_LANG_LTOIR] = "ltoir",
	[KS_LANG_OTHER] = "other",
};

const char *
ks_args_lang_name(enum ks_lang lang)
{
	if ((size_t)lang >= KS_ARRAY_SIZE(lang_names))
		return "?";
	return lang_names[lang];
}

const char *
ks_args_mode_name(enum ks_mode mode)
{
	if ((size_t)mode >= KS_ARRAY_SIZE(mode_names))
		return "?";
	return mode_names[mode];
}

void
ks_args_init(struct ks_args *a)
{
	memset(a, 0, sizeof(*a));
	ks_strv_init(&a->devflags);
	ks_strv_init(&a->includes);
	ks_strv_init(&a->defines);
	ks_strv_init(&a->dep_targets);
	ks_strv_init(&a->unknown);
	ks_strv_init(&a->argv);
}

void
ks_args_release(struct ks_args *a)
{
	size_t i;

	for (i = 0; i < a->ninputs; i++)
		free(a->inputs[i].path);
	free(a->inputs);
	free(a->output);
	free(a->archs);
	free(a->arch_symbol);
	free(a->std);
	free(a->ccbin);
	free(a->depfile);
	free(a->keep_dir);
	free(a->odir);
	ks_strv_release(&a->devflags);
	ks_strv_release(&a->includes);
	ks_strv_release(&a->defines);
	ks_strv_release(&a->dep_targets);
	ks_strv_release(&a->unknown);
	ks_strv_release(&a->argv);
	ks_args_init(a);
}

/* ------------------------------------------------------------------ */
/* Splitting.                                                          */

/* Push `item` without its leading and trailing spaces and tabs, unless
 * nothing is left: nvcc drops blank list items. */
static void
push_trimmed(struct ks_strv *out, const char *item)
{
	size_t len = strlen(item);

	while (len && (item[len - 1] == ' ' || item[len - 1] == '\t'))
		len--;
	while (len && (*item == ' ' || *item == '\t')) {
		item++;
		len--;
	}
	if (len)
		ks_strv_push_owned(out, ks_xstrndup(item, len));
}

int
ks_args_split_list(const char *value, struct ks_strv *out, struct ks_buf *err)
{
	struct ks_buf item = KS_BUF_INIT;
	int quoted = 0, ret = -1;
	const char *p;

	for (p = value; *p; p++) {
		if (*p == '\\') {
			if (!p[1]) {
				ks_error(err, "stray '\\' at the end of '%s'",
					 value);
				goto out;
			}
			ks_buf_addch(&item, *++p);
		} else if (*p == '"') {
			quoted = !quoted;
			ks_buf_addch(&item, '"');
		} else if (*p == ',' && !quoted) {
			push_trimmed(out, item.buf);
			ks_buf_reset(&item);
		} else {
			ks_buf_addch(&item, *p);
		}
	}
	if (quoted) {
		ks_error(err, "unbalanced '\"' in '%s'", value);
		goto out;
	}
	push_trimmed(out, item.buf);
	ret = 0;
out:
	ks_buf_release(&item);
	return ret;
}

/*
 * Stage one of both splitters: cut `text` into words at the characters of
 * `blanks` outside double quotes, keeping quotes and backslashes. A
 * backslash protects the next character inside quotes always, outside
 * only when `escape_outside` (options files do, the environment does not).
 */
static int
split_words(const char *text, size_t len, const char *blanks,
	    int escape_outside, struct ks_strv *out, struct ks_buf *err)
{
	struct ks_buf word = KS_BUF_INIT;
	int quoted = 0, inword = 0, ret = -1;
	size_t i;

	for (i = 0; i < len; i++) {
		char c = text[i];

		if (!quoted && c && strchr(blanks, c)) {
			if (inword)
				ks_strv_push(out, word.buf);
			ks_buf_reset(&word);
			inword = 0;
			continue;
		}
		inword = 1;
		if (c == '\\' && (quoted || escape_outside)) {
			if (i + 1 >= len) {
				ks_error(err, "stray '\\' at the end");
				goto out;
			}
			ks_buf_addch(&word, c);
			c = text[++i];
		} else if (c == '"') {
			quoted = !quoted;
		}
		ks_buf_addch(&word, c);
	}
	if (quoted) {
		ks_error(err, "unbalanced '\"'");
		goto out;
	}
	if (inword)
		ks_strv_push(out, word.buf);
	ret = 0;
out:
	ks_buf_release(&word);
	return ret;
}

int
ks_args_split_env(const char *value, struct ks_strv *out, struct ks_buf *err)
{
	/* nvcc splits the environment at spaces and tabs only: a newline
	 * stays inside the word (checked with -D). */
	if (split_words(value, strlen(value), " \t", 0, out, err) < 0)
		return ks_error(err, "in '%s'", value);
	return 0;
}

/*
 * Stage two for options files, as nvcc 13.0 behaves: resolve the escapes
 * (each backslash yields the next character); trim spaces and tabs (not
 * newlines) at both ends and drop a word left empty (`x\ ` gives x, a
 * lone `\ ` vanishes, `""` stays an empty word, `x\<newline>` keeps its
 * newline); then drop every double quote that does not follow a
 * backslash in the result. So `x\"y` gives xy, `"a\\"` gives a\" and
 * `a\\"b c"` gives a\"b c. Returns NULL for a vanished word.
 */
static char *
unquote_file_word(const char *w)
{
	char *t = ks_xmalloc(strlen(w) + 1), *r = NULL;
	const char *p;
	size_t n = 0, i, start = 0, m = 0;

	for (p = w; *p; p++) {
		if (*p == '\\' && p[1])
			p++;
		t[n++] = *p;
	}
	while (n && (t[n - 1] == ' ' || t[n - 1] == '\t'))
		n--;
	while (start < n && (t[start] == ' ' || t[start] == '\t'))
		start++;
	if (start == n)
		goto out;
	r = ks_xmalloc(n - start + 1);
	for (i = start; i < n; i++)
		if (t[i] != '"' || (i > start && t[i - 1] == '\\'))
			r[m++] = t[i];
	r[m] = '\0';
out:
	free(t);
	return r;
}

/* Words of an options file. */
static int
split_file(const char *text, size_t len, struct ks_strv *out,
	   struct ks_buf *err)
{
	struct ks_strv raw = KS_STRV_INIT;
	size_t i;
	int ret = -1;

	if (split_words(text, len, " \t\n\r", 1, &raw, err) < 0)
		goto out;
	for (i = 0; i < raw.n; i++) {
		char *w = unquote_file_word(raw.v[i]);

		if (w)
			ks_strv_push_owned(out, w);
	}
	ret = 0;
out:
	ks_strv_release(&raw);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Options files: the only I/O of this module.                         */

static int
read_file(const char *path, struct ks_buf *text, struct ks_buf *err)
{
	/*
	 * Only a regular file, opened without waiting: a FIFO (or
	 * <(process substitution)) read here would be empty for nvcc, and
	 * one without a writer would block. nvcc reads such a file itself.
	 */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	FILE *f = NULL;
	char chunk[8192];
	size_t n;
	int ret = -1;

	if (fd < 0)
		return ks_error_errno(err, "cannot open options file '%s'",
				      path);
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "rb"))) {
		close(fd);
		return ks_error(err, "options file '%s' is not a regular file",
				path);
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (ks_buf_add(text, chunk, n) < 0) {
			ks_error(err, "options file '%s' is too large", path);
			goto out;
		}
	}
	if (ferror(f)) {
		ks_error_errno(err, "cannot read options file '%s'", path);
		goto out;
	}
	ret = 0;
out:
	fclose(f);
	return ret;
}

static int expand_words(const struct ks_strv *in, struct ks_strv *out,
			int depth, const char *from, struct ks_buf *err);

static int
expand_file(const char *path, struct ks_strv *out, int depth,
	    struct ks_buf *err)
{
	struct ks_buf text = KS_BUF_INIT;
	struct ks_strv words = KS_STRV_INIT;
	int ret = -1;

	if (depth > KS_ARGS_OPTF_DEPTH) {
		ks_error(err, "options files nested deeper than %d at '%s'",
			 KS_ARGS_OPTF_DEPTH, path);
		goto out;
	}
	ks_buf_init(&text, OPTF_MAX);
	if (read_file(path, &text, err) < 0)
		goto out;
	if (split_file(text.buf, text.len, &words, err) < 0) {
		ks_error(err, "in options file '%s'", path);
		goto out;
	}
	ret = expand_words(&words, out, depth, path, err);
out:
	ks_strv_release(&words);
	ks_buf_release(&text);
	return ret;
}

/* `from` names the options file the words come from, NULL for argv. */
static int
expand_words(const struct ks_strv *in, struct ks_strv *out, int depth,
	     const char *from, struct ks_buf *err)
{
	struct ks_strv files = KS_STRV_INIT;
	size_t i, j;
	int ret = -1;

	for (i = 0; i < in->n; i++) {
		const struct ks_nvopt *o;
		const char *value;
		size_t first = i;

		if (ks_nvopt_parse(in->v[i], &o, &value) !=
			    KS_NVOPT_WORD_OPTION ||
		    !(o->flags & KS_NVOPT_TAKES_ARG)) {
			ks_strv_push(out, in->v[i]);
			continue;
		}
		if (!value) {
			if (i + 1 >= in->n) {
				/* nvcc reads each file on its own: the next
				 * argv word cannot serve as the value. */
				if (from)
					ks_error(err, "option '%s' at the end "
						 "of options file '%s' needs "
						 "a value", in->v[i], from);
				else
					ks_error(err, "option '%s' needs a "
						 "value", in->v[i]);
				goto out;
			}
			value = in->v[++i];
		}
		if (strcmp(o->name, "options-file")) {
			for (j = first; j <= i; j++)
				ks_strv_push(out, in->v[j]);
			continue;
		}
		ks_strv_release(&files);
		if (ks_args_split_list(value, &files, err) < 0)
			goto out;
		for (j = 0; j < files.n; j++)
			if (expand_file(files.v[j], out, depth + 1, err) < 0)
				goto out;
	}
	ret = 0;
out:
	ks_strv_release(&files);
	return ret;
}

int
ks_args_expand(const struct ks_strv *in, struct ks_strv *out,
	       struct ks_buf *err)
{
	return expand_words(in, out, 0, NULL, err);
}

/* ------------------------------------------------------------------ */
/* Classification.                                                     */

/* What the words said, before it is turned into struct ks_args. The
 * strings point into the classified argv. */
struct state {
	/* The highest-ranked phase option; the first of -lib, -link, -run. */
	const struct special *phase, *linkphase;
	int dc, dw;
	int rdc;		/* -1 unset, else the last -rdc value */
	int seen_preprocess, seen_dlink, seen_ltoir;
	int xlang;		/* -1, or the last -x language */
	int forward_cc;		/* unknowns go to the host compiler */
	const char *output, *odir, *mf, *mt, *arch, *std, *ccbin, *keep_dir;
	struct ks_strv codes, gencodes;
};

static void
reject(struct ks_args *a, const char *why)
{
	if (!a->rejected)
		a->rejected = why;
}

static const struct ks_nvopt *
canonical(const struct ks_nvopt *o)
{
	size_t i;

	for (i = 0; i < KS_ARRAY_SIZE(aliases); i++)
		if (!strcmp(o->name, aliases[i].name))
			return ks_nvopt_find_long(aliases[i].canonical);
	return o;
}

static const struct special *
find_special(const char *name)
{
	size_t i;

	for (i = 0; i < KS_ARRAY_SIZE(specials); i++)
		if (!strcmp(specials[i].name, name))
			return &specials[i];
	return NULL;
}

static enum ks_lang
lang_of(const char *path)
{
	size_t i;

	for (i = 0; i < KS_ARRAY_SIZE(suffixes); i++)
		if (ks_ends_with(path, suffixes[i].word))
			return suffixes[i].lang;
	return KS_LANG_OTHER;
}

enum ks_lang
ks_args_lang_of(const char *path)
{
	return lang_of(path);
}

/*
 * Whether the forwarding options are present: nvcc honours them wherever
 * they stand, so this looks ahead before the words are classified.
 * Returns 0 (none), 1 (the host linker only) or 2 (the host compiler).
 */
static int
scan_forward(const struct ks_strv *argv)
{
	const struct special *sp;
	const struct ks_nvopt *o;
	const char *value;
	int found = 0;
	size_t i;

	for (i = 0; i < argv->n; i++) {
		if (ks_nvopt_parse(argv->v[i], &o, &value) !=
		    KS_NVOPT_WORD_OPTION)
			continue;
		if ((o->flags & KS_NVOPT_TAKES_ARG) && !value) {
			i++;
			continue;
		}
		sp = find_special(o->name);
		if (sp && sp->what == W_FORWARD_CC)
			found = 2;
		else if (sp && sp->what == W_FORWARD_LD && !found)
			found = 1;
	}
	return found;
}

/* "-<short>", the spelling used in devflags and includes. */
static const char *
dashed(const struct ks_nvopt *o, char *buf, size_t size)
{
	if (o->short_name)
		snprintf(buf, size, "-%s", o->short_name);
	else
		snprintf(buf, size, "--%s", o->name);
	return buf;
}

/*
 * Whether one item of option `o`'s value is left out of the kernel key
 * (keyflags.h): a host-only -Xcompiler word, a ptxas word that only
 * changes messages.
 */
static int
left_out_of_key(const struct ks_nvopt *o, const char *item)
{
	if (!strcmp(o->name, "compiler-options"))
		return ks_keyflags_host_only(item);
	if (!strcmp(o->name, "ptxas-options"))
		return ks_keyflags_ptxas_quiet(item);
	return 0;
}

/* Push "<prefix><sep><item>" for each item of a list value, or of the
 * single value; with `for_key`, not the items left out of the key. */
static void
push_items(struct ks_args *a, struct ks_strv *to, const struct ks_nvopt *o,
	   const char *sep, const char *value, int for_key)
{
	struct ks_strv items = KS_STRV_INIT;
	struct ks_buf ignored = KS_BUF_INIT;
	char name[64];
	size_t i;

	dashed(o, name, sizeof(name));
	if (!value) {
		ks_strv_push(to, name);
	} else if (!(o->flags & KS_NVOPT_LIST)) {
		ks_strv_push_owned(to, ks_xasprintf("%s%s%s", name, sep,
						    value));
	} else if (ks_args_split_list(value, &items, &ignored) < 0) {
		reject(a, "bad-value");
	} else {
		for (i = 0; i < items.n; i++)
			if (!for_key || !left_out_of_key(o, items.v[i]))
				ks_strv_push_owned(to, ks_xasprintf(
					"%s%s%s", name, sep, items.v[i]));
	}
	ks_strv_release(&items);
	ks_buf_release(&ignored);
}

static void
push_values(struct ks_args *a, struct ks_strv *to, const struct ks_nvopt *o,
	    const char *sep, const char *value)
{
	push_items(a, to, o, sep, value, 0);
}

static void
set_phase(struct ks_args *a, struct state *st, const struct special *sp)
{
	if (sp->rank == 1) {
		if (st->linkphase && st->linkphase != sp)
			reject(a, "phase-conflict");
		else
			st->linkphase = sp;
	}
	if (sp->mode == KS_MODE_PREPROCESS)
		st->seen_preprocess = 1;
	if (sp->mode == KS_MODE_DLINK)
		st->seen_dlink = 1;
	if (!strcmp(sp->name, "ltoir"))
		st->seen_ltoir = 1;
	if (!st->phase || sp->rank > st->phase->rank)
		st->phase = sp;
}

static void
apply(struct ks_args *a, struct state *st, const struct ks_nvopt *o,
      const char *value)
{
	const struct special *sp = find_special(o->name);
	struct ks_buf ignored = KS_BUF_INIT;
	int semantic = !!(o->flags & KS_NVOPT_DEVICE_SEMANTIC);
	size_t i;

	if (o->flags & KS_NVOPT_INFO)
		a->info = 1;
	if ((o->flags & KS_NVOPT_BOOL) && strcmp(value, "true") &&
	    strcmp(value, "false"))
		reject(a, "bad-value");
	switch (sp ? sp->what : W_NONE) {
	case W_PHASE:
		set_phase(a, st, sp);
		break;
	case W_DC:
		st->dc = 1;
		set_phase(a, st, sp);
		semantic = 0;
		break;
	case W_DW:
		st->dw = 1;
		set_phase(a, st, sp);
		semantic = 0;
		break;
	case W_MD:
		a->dep_md = 1;
		break;
	case W_MMD:
		a->dep_mmd = 1;
		break;
	case W_MF:
		st->mf = value;
		break;
	case W_MT:
		st->mt = value;
		break;
	case W_MP:
		a->dep_mp = 1;
		break;
	case W_DEFINE:
		push_values(a, &a->defines, o, "", value);
		/* The closure does not see a macro tested by #ifdef in a
		 * kernel, nor a value given here: the key must. */
		push_values(a, &a->devflags, o, "", value);
		break;
	case W_INCLUDE:
		push_values(a, &a->includes, o, "", value);
		break;
	case W_ARCH:
		st->arch = value;
		break;
	case W_CODE:
		if (ks_args_split_list(value, &st->codes, &ignored) < 0)
			reject(a, "bad-value");
		break;
	case W_GENCODE:
		ks_strv_push(&st->gencodes, value);
		break;
	case W_OUTPUT:
		st->output = value;
		break;
	case W_ODIR:
		st->odir = value;
		break;
	case W_CCBIN:
		st->ccbin = value;
		break;
	case W_LANG:
		for (i = 0; i < KS_ARRAY_SIZE(xlangs); i++)
			if (!strcmp(value, xlangs[i].word))
				break;
		if (i < KS_ARRAY_SIZE(xlangs))
			st->xlang = (int)xlangs[i].lang;
		else
			reject(a, "bad-value");
		break;
	case W_VERBOSE:
		a->verbose = 1;
		break;
	case W_KEEP:
		a->keep = 1;
		break;
	case W_SAVE_TEMPS:
		a->save_temps = 1;
		break;
	case W_KEEP_DIR:
		st->keep_dir = value;
		break;
	case W_DRYRUN:
		a->dryrun = 1;
		break;
	case W_FORWARD_CC:
	case W_FORWARD_LD:
		a->forward_unknown = 1;
		break;
	case W_RDC:
		st->rdc = !strcmp(value, "true");
		semantic = 0;
		break;
	case W_DLTO:
		a->dlto = 1;
		break;
	case W_STD:
		st->std = value;
		break;
	case W_OPTF:
		reject(a, "options-file");
		break;
	case W_NONE:
		break;
	}
	if (semantic)
		push_items(a, &a->devflags, canonical(o), "=", value, 1);
	ks_buf_release(&ignored);
}

/* `path` with the last suffix of its last component replaced (nvcc:
 * x.y/z -> x.y/z.d, q.o. -> q.o.d, .hidden -> .d). */
static char *
with_suffix(const char *path, const char *suffix)
{
	const char *base = ks_basename(path), *dot = strrchr(base, '.');
	size_t keep = dot ? (size_t)(dot - path) : strlen(path);

	return ks_xasprintf("%.*s%s", (int)keep, path, suffix);
}

static char *
in_odir(const char *odir, char *name)
{
	char *r;

	if (!odir)
		return name;
	r = ks_xasprintf("%s%s%s", odir,
			 ks_ends_with(odir, "/") ? "" : "/", name);
	free(name);
	return r;
}

/* Where a per-input phase writes the single input's result. */
static char *
per_input(const struct ks_args *a, const struct state *st,
	  const char *suffix)
{
	const char *base;

	if (a->ninputs != 1)
		return NULL;
	base = ks_basename(a->inputs[0].path);
	if (!suffix)
		return in_odir(st->odir, ks_xasprintf("%s.cpp.ii", base));
	return in_odir(st->odir, with_suffix(base, suffix));
}

/* The -dlink variant the phase options ask for, or NULL. */
static const struct dlink_phase *
dlink_phase(const struct ks_args *a, const struct state *st)
{
	size_t i;

	if (!st->seen_dlink || !st->phase)
		return NULL;
	for (i = 0; i < KS_ARRAY_SIZE(dlink_phases); i++)
		if (!strcmp(st->phase->name, dlink_phases[i].phase) &&
		    (a->dlto || !dlink_phases[i].needs_dlto))
			return &dlink_phases[i];
	return NULL;
}

/* Whether some input has device code: -ptx h.cpp writes nothing. */
static int
has_device_input(const struct ks_args *a)
{
	size_t i;

	for (i = 0; i < a->ninputs; i++)
		switch (a->inputs[i].lang) {
		case KS_LANG_C:
		case KS_LANG_CXX:
		case KS_LANG_I:
		case KS_LANG_II:
		case KS_LANG_OBJ:
		case KS_LANG_LIB:
			break;
		default:
			return 1;
		}
	return 0;
}

static char *
output_of(const struct ks_args *a, const struct state *st)
{
	const struct dlink_phase *dp;

	switch (a->phase) {
	case KS_MODE_INFO:
		return NULL;
	case KS_MODE_DEVICE:
	case KS_MODE_CUDA:
		if (!has_device_input(a))
			return NULL;
		break;
	default:
		break;
	}
	if (st->output)
		return ks_xstrdup(st->output);
	switch (a->phase) {
	case KS_MODE_COMPILE:
	case KS_MODE_DEVICE:
	case KS_MODE_CUDA:
		return per_input(a, st, st->phase->suffix);
	case KS_MODE_LINK:
	case KS_MODE_COMPILE_LINK:
	case KS_MODE_RUN:
		return in_odir(st->odir, ks_xstrdup("a.out"));
	case KS_MODE_LIB:
		return in_odir(st->odir, ks_xstrdup("a.a"));
	case KS_MODE_DLINK:
		dp = dlink_phase(a, st);
		if (dp)
			return ks_xstrdup(dp->output);
		return in_odir(st->odir, ks_xstrdup("a_dlink.o"));
	case KS_MODE_DEPS:
		return st->mf ? ks_xstrdup(st->mf) : NULL;
	default:
		return NULL;
	}
}

static char *
depfile_of(const struct ks_args *a, const struct state *st)
{
	if (a->phase == KS_MODE_INFO)
		return NULL;
	if (a->phase == KS_MODE_DEPS)
		return a->output ? ks_xstrdup(a->output) : NULL;
	if (!a->dep_md && !a->dep_mmd)
		return NULL;
	if (st->mf)
		return ks_xstrdup(st->mf);
	if (st->output)
		return with_suffix(st->output, ".d");
	if (a->ninputs != 1)
		return NULL;
	return in_odir(st->odir,
		       with_suffix(ks_basename(a->inputs[0].path), ".d"));
}

static void
add_arch(struct ks_args *a, const char *virt, const char *real)
{
	struct ks_arch *t;
	size_t i;

	if (strlen(virt) >= sizeof(t->virt) ||
	    strlen(real) >= sizeof(t->real)) {
		reject(a, "arch");
		return;
	}
	for (i = 0; i < a->narchs; i++)
		if (!strcmp(a->archs[i].virt, virt) &&
		    !strcmp(a->archs[i].real, real))
			return;
	a->archs = KS_GROW(a->archs, a->narchs, NULL);
	t = &a->archs[a->narchs++];
	memcpy(t->virt, virt, strlen(virt) + 1);
	memcpy(t->real, real, strlen(real) + 1);
}

/* Split "sm_90a" into kind "sm_" and number "90a"; NULL unless it has the
 * shape of an nvcc target (digits, then at most one of 'a' 'f'). */
static const char *
arch_number(const char *name, const char **kind)
{
	struct ks_arch_target t;

	if (ks_arch_parse(name, &t))
		return NULL;
	*kind = ks_arch_prefix(t.kind);
	return t.digits;
}

/* -arch=X without -code, as nvcc 13.0 expands it (see args.h). */
static void
arch_shorthand(struct ks_args *a, const char *name)
{
	const char *kind, *num = arch_number(name, &kind);
	char virt[32], lto[32];
	int n;

	if (!num) {
		reject(a, "arch");
		return;
	}
	n = (int)strspn(num, "0123456789");
	if (num[n]) {
		/* sm_90a, compute_90a, lto_90a: generic compute_90 too. */
		snprintf(virt, sizeof(virt), "compute_%.*s", n, num);
		snprintf(lto, sizeof(lto), "lto_%.*s", n, num);
		if (strcmp(kind, "lto_"))
			add_arch(a, virt, "");
		if (!strcmp(kind, "lto_") || a->dlto)
			add_arch(a, virt, lto);
	}
	snprintf(virt, sizeof(virt), "compute_%s", num);
	snprintf(lto, sizeof(lto), "lto_%s", num);
	if (!strcmp(kind, "sm_") && !a->dlto)
		add_arch(a, virt, name);
	if (strcmp(kind, "lto_"))
		add_arch(a, virt, "");
	if (!strcmp(kind, "lto_") || a->dlto)
		add_arch(a, virt, lto);
}

/* The number and suffix ('a', 'f' or 0) of "90a". */
static long
arch_value(const char *num, char *suffix)
{
	char *end;
	long n = strtol(num, &end, 10);

	*suffix = *end;
	return n;
}

/*
 * Whether nvcc 13.0 compiles compute_<vnum> for `code`, and the real
 * target it then names (checked: under compute_90 any sm_NN, lto_NN with
 * NN >= 90; under compute_90a only ...a targets; under compute_100f only
 * the 10x family, sm_103 becoming sm_103f, lto only as lto_10xf; a PTX
 * code only compute_<vnum> itself). Returns 0, or -1 for nvcc's
 * "Incompatible code generation requested".
 */
static int
code_target(const char *vnum, const char *code, char *real, size_t size)
{
	const char *ckind, *cnum = arch_number(code, &ckind);
	char vs, cs;
	long vn = arch_value(vnum, &vs), cn;

	if (!cnum)
		return -1;
	if (!strcmp(ckind, "compute_")) {
		real[0] = '\0';
		return strcmp(cnum, vnum) ? -1 : 0;
	}
	cn = arch_value(cnum, &cs);
	if (cn < vn || (vs == 'a' && cs != 'a'))
		return -1;
	if (vs == 'f') {
		if (cn / 10 != vn / 10 || (!strcmp(ckind, "lto_") && cs != 'f'))
			return -1;
		if (!cs) {
			snprintf(real, size, "%s%sf", ckind, cnum);
			return 0;
		}
	}
	snprintf(real, size, "%s", code);
	return 0;
}

/* The pairs of an explicit virtual arch (-arch with -code, or -gencode)
 * and its codes. */
static void
arch_codes(struct ks_args *a, const char *arch, const struct ks_strv *codes)
{
	const char *kind, *num = arch_number(arch, &kind);
	char virt[32], real[32];
	size_t i;

	if (!num || !strcmp(kind, "sm_")) {
		/* nvcc: "must be a virtual code architecture" */
		reject(a, "arch");
		return;
	}
	snprintf(virt, sizeof(virt), "compute_%s", num);
	for (i = 0; i < codes->n; i++) {
		const char *c = codes->v[i];

		/* An lto_NN arch has no PTX to embed. */
		if (code_target(num, c, real, sizeof(real)) < 0 ||
		    (!strcmp(kind, "lto_") && !real[0])) {
			reject(a, "arch");
			continue;
		}
		if (ks_starts_with(real, "lto_")) {
			/* "Cannot use '-arch=lto_<arch>' unless '-rdc=true'
			 * is specified or implied" (-dc, -dlto imply it). */
			if (!a->relocatable && !a->dlto)
				reject(a, "arch");
		} else if (a->dlto) {
			reject(a, "dlto-conflict");
		}
		add_arch(a, virt, real);
	}
}

/*
 * Read a -gencode value, "arch=compute_90,code=[compute_90,sm_90]":
 * keywords at commas outside brackets (quotes do not protect commas
 * here: code="sm_90,compute_90" fails in nvcc), each given once. Returns
 * 0 with *arch and `codes` filled, or -1.
 */
static int
parse_gencode(const char *spec, char **arch, struct ks_strv *codes)
{
	char *code = NULL;
	const char *p = spec;
	int ret = -1;

	while (*p) {
		const char *end = p, *eq;
		char **slot;

		while (*end && *end != ',') {
			if (*end == '[') {
				end = strchr(end, ']');
				if (!end)
					goto out;
			}
			end++;
		}
		if (end > p) {
			eq = memchr(p, '=', (size_t)(end - p));
			if (!eq || (eq - p != 4))
				goto out;
			if (!strncmp(p, "arch", 4))
				slot = arch;
			else if (!strncmp(p, "code", 4))
				slot = &code;
			else
				goto out;
			if (*slot)
				goto out;
			*slot = ks_xstrndup(eq + 1, (size_t)(end - eq - 1));
		}
		p = *end ? end + 1 : end;
	}
	if (!*arch || !code)
		goto out;
	if (code[0] != '[') {
		ks_strv_push(codes, code);
		ret = 0;
		goto out;
	}
	p = code + 1;
	for (;;) {
		size_t n = strcspn(p, ",]");

		if (!n)
			goto out;
		ks_strv_push_owned(codes, ks_xstrndup(p, n));
		p += n;
		if (*p == ']')
			break;
		p++;
	}
	ret = p[1] ? -1 : 0;
out:
	free(code);
	return ret;
}

static void
arch_gencode(struct ks_args *a, const char *spec)
{
	struct ks_strv codes = KS_STRV_INIT;
	char *arch = NULL;

	if (parse_gencode(spec, &arch, &codes) < 0)
		reject(a, "arch");
	else
		arch_codes(a, arch, &codes);
	free(arch);
	ks_strv_release(&codes);
}

static void
resolve_archs(struct ks_args *a, const struct state *st)
{
	static const char *const symbols[] = { "native", "all", "all-major" };
	size_t i;

	/* "'-dlto' conflicts with '-gencode' or '-code'": with any
	 * -gencode, with -code unless it asks for lto_NN only. */
	if (a->dlto && st->gencodes.n)
		reject(a, "dlto-conflict");
	for (i = 0; st->arch && i < KS_ARRAY_SIZE(symbols); i++)
		if (!strcmp(st->arch, symbols[i])) {
			a->arch_symbolic = 1;
			a->arch_symbol = ks_xstrdup(st->arch);
		}
	if (a->arch_symbolic) {
		if (st->codes.n)
			reject(a, "arch");
	} else if (st->arch && st->codes.n) {
		arch_codes(a, st->arch, &st->codes);
	} else if (st->arch) {
		arch_shorthand(a, st->arch);
	} else if (st->codes.n) {
		/* nvcc: "-arch option not specified" */
		reject(a, "arch");
	}
	for (i = 0; i < st->gencodes.n; i++)
		arch_gencode(a, st->gencodes.v[i]);
	if (!st->arch && !st->codes.n && !st->gencodes.n) {
		arch_shorthand(a, DEFAULT_ARCH);
		a->arch_default = 1;
	}
}

static enum ks_mode
resolve_phase(const struct ks_args *a, const struct state *st)
{
	size_t i;

	if (a->info || !a->ninputs)
		return KS_MODE_INFO;
	if (dlink_phase(a, st))
		return KS_MODE_DLINK;
	if (st->phase && st->phase->mode != KS_MODE_LINK)
		return st->phase->mode;
	for (i = 0; i < a->ninputs; i++)
		switch (a->inputs[i].lang) {
		case KS_LANG_CU:
		case KS_LANG_CUP:
		case KS_LANG_C:
		case KS_LANG_CXX:
		case KS_LANG_I:
		case KS_LANG_II:
			return KS_MODE_COMPILE_LINK;
		default:
			break;
		}
	return KS_MODE_LINK;
}

static void
resolve(struct ks_args *a, struct state *st)
{
	size_t i;

	for (i = 0; i < a->ninputs; i++) {
		a->inputs[i].lang = st->xlang >= 0 ? (enum ks_lang)st->xlang
						   : lang_of(a->inputs[i].path);
		/* "Don't know what to do with 'x'" */
		if (a->inputs[i].lang == KS_LANG_OTHER ||
		    a->inputs[i].lang == KS_LANG_GPU)
			reject(a, "unknown-input");
	}
	if ((st->dc && st->dw) || (st->dc && st->rdc == 0) ||
	    (st->dw && st->rdc == 1))
		reject(a, "rdc-conflict");
	a->relocatable = st->dc || (!st->dw && st->rdc == 1);
	/* -c -run compiled k.o, then failed running a temporary (exit 127);
	 * -dlink -run tried to execute a_dlink.o (exit 126). */
	if (st->linkphase && st->linkphase->mode == KS_MODE_RUN &&
	    st->phase != st->linkphase)
		reject(a, "phase-conflict");
	a->phase = resolve_phase(a, st);
	a->mode = a->dryrun && a->phase != KS_MODE_INFO ? KS_MODE_DRYRUN
							: a->phase;
	switch (a->phase) {
	case KS_MODE_COMPILE:
	case KS_MODE_DEVICE:
	case KS_MODE_CUDA:
	case KS_MODE_PREPROCESS:
	case KS_MODE_DEPS:
		/* nvcc: "A single input file is required for a non-link
		 * phase when an outputfile is specified" */
		if (st->output && a->ninputs > 1)
			reject(a, "output-multiple-inputs");
		break;
	default:
		break;
	}
	if (st->mf && !a->dep_md && !a->dep_mmd &&
	    !(st->phase && st->phase->mode == KS_MODE_DEPS))
		reject(a, "deps-conflict");
	if ((a->dep_md || a->dep_mmd) && st->seen_preprocess)
		reject(a, "deps-conflict");
	/* "Option '-ltoir' requires use of option '-dlto'", wherever it
	 * stands; "'-dlto' is not compatible with '-ptx'", nor with -cubin
	 * ("cannot generate '--cubin' intermediate at compile time") or
	 * -optix-ir; -dlto -fatbin works. */
	if (st->seen_ltoir && !a->dlto)
		reject(a, "dlto-conflict");
	if (a->phase == KS_MODE_DEVICE && a->dlto &&
	    strcmp(st->phase->name, "ltoir") &&
	    strcmp(st->phase->name, "fatbin"))
		reject(a, "dlto-conflict");
	a->output = output_of(a, st);
	a->depfile = depfile_of(a, st);
	if (st->mt)
		ks_strv_push(&a->dep_targets, st->mt);
	resolve_archs(a, st);
	if (!a->forward_unknown && a->unknown.n)
		reject(a, "unknown-option");
	a->std = st->std ? ks_xstrdup(st->std) : NULL;
	a->ccbin = st->ccbin ? ks_xstrdup(st->ccbin) : NULL;
	a->odir = st->odir ? ks_xstrdup(st->odir) : NULL;
	a->keep_dir = st->keep_dir ? ks_xstrdup(st->keep_dir) : NULL;
}

static void
add_input(struct ks_args *a, const char *path)
{
	a->inputs = KS_GROW(a->inputs, a->ninputs, NULL);
	a->inputs[a->ninputs].path = ks_xstrdup(path);
	a->inputs[a->ninputs].lang = KS_LANG_OTHER;
	a->ninputs++;
}

int
ks_args_classify(const struct ks_strv *argv, struct ks_args *out,
		 struct ks_buf *err)
{
	struct state st;
	size_t i;
	int ret = -1;

	memset(&st, 0, sizeof(st));
	st.rdc = -1;
	st.xlang = -1;
	ks_strv_init(&st.codes);
	ks_strv_init(&st.gencodes);
	ks_strv_pushv(&out->argv, (const char *const *)argv->v, argv->n);
	st.forward_cc = scan_forward(argv) == 2;
	for (i = 0; i < argv->n; i++) {
		const char *w = argv->v[i], *value;
		const struct ks_nvopt *o;

		switch (ks_nvopt_parse(w, &o, &value)) {
		case KS_NVOPT_WORD_INPUT:
			add_input(out, w);
			continue;
		case KS_NVOPT_WORD_UNKNOWN:
			ks_strv_push(&out->unknown, w);
			if (st.forward_cc && !ks_keyflags_host_only(w))
				ks_strv_push_owned(&out->devflags,
						   ks_xasprintf("-Xcompiler=%s",
								w));
			continue;
		case KS_NVOPT_WORD_BAD:
			reject(out, "bad-option");
			continue;
		case KS_NVOPT_WORD_OPTION:
			break;
		}
		if ((o->flags & KS_NVOPT_TAKES_ARG) && !value) {
			if (i + 1 >= argv->n) {
				ks_error(err, "option '%s' needs a value", w);
				goto out;
			}
			value = argv->v[++i];
		}
		apply(out, &st, o, value);
	}
	resolve(out, &st);
	ret = 0;
out:
	ks_strv_release(&st.codes);
	ks_strv_release(&st.gencodes);
	return ret;
}

int
ks_args_eligible(const struct ks_args *a, const char **reason)
{
	*reason = NULL;
	if (a->rejected)
		*reason = a->rejected;
	else if (a->mode == KS_MODE_INFO && !a->info && !a->ninputs)
		*reason = "no-input";
	else if (a->mode != KS_MODE_COMPILE)
		*reason = mode_reasons[a->mode];
	else if (a->verbose)
		*reason = "verbose";
	else if (a->keep || a->save_temps || a->keep_dir)
		*reason = "keep";
	else if (a->ninputs != 1)
		*reason = "multiple-inputs";
	else if (a->inputs[0].lang != KS_LANG_CU)
		*reason = "not-cuda";
	else if (a->arch_symbolic)
		*reason = "arch-symbolic";
	return *reason == NULL;
}

int
ks_args_eligible_command(const struct ks_args *a, const char **reason)
{
	size_t i;

	*reason = NULL;
	if (a->rejected)
		*reason = a->rejected;
	else if (a->mode != KS_MODE_COMPILE_LINK && a->mode != KS_MODE_LIB)
		*reason = mode_reasons[a->mode] ? mode_reasons[a->mode] : "mode-compile";
	else if (a->verbose)
		*reason = "verbose";
	else if (a->keep || a->save_temps || a->keep_dir)
		*reason = "keep";
	else if (a->arch_symbolic)
		*reason = "arch-symbolic";
	if (*reason)
		return 0;
	for (i = 0; i < a->ninputs; i++)
		if (a->inputs[i].lang == KS_LANG_CU)
			return 1;
	*reason = "not-cuda";
	return 0;
}

/* ------------------------------------------------------------------ */
/* The GPUs a compile's device code runs on.                           */

/* Pure: `name` parses as a plain (no suffix) target of `kind`; its number. */
static long
plain_number(const char *name, enum ks_arch_kind kind)
{
	struct ks_arch_target t;

	if (!*name || ks_arch_parse(name, &t) || t.kind != kind || t.suffix)
		return -1;
	return t.number;
}

int
ks_args_reaches(const struct ks_args *a, const char *real)
{
	long x = plain_number(real, KS_ARCH_SM), n;
	int reach = 0;
	size_t i;

	if (x < 0)
		return 0;
	for (i = 0; i < a->narchs; i++) {
		const struct ks_arch *p = &a->archs[i];

		if (!strcmp(p->real, real))
			return 1;
		/* PTX kept in the image: the driver compiles it for newer GPUs */
		if (!*p->real && (n = plain_number(p->virt, KS_ARCH_COMPUTE)) >= 0 &&
		    n <= x)
			reach = 2;
		/* SASS runs on the later minors of its major */
		if ((n = plain_number(p->real, KS_ARCH_SM)) >= 0 && n / 10 == x / 10 &&
		    n <= x)
			reach = 2;
	}
	return a->arch_symbolic ? 0 : reach;
}

int
ks_args_reach_words(const struct ks_args *a, const char *real, struct ks_strv *out)
{
	const char *digits = real + 3;
	int n = 0;

	if (ks_args_reaches(a, real) != 2)
		return 0;
	if (a->arch_default) {
		ks_strv_push(out, "-arch=" DEFAULT_ARCH);
		n++;
	}
	ks_strv_push(out, "-gencode");
	ks_strv_push_owned(out, ks_xasprintf("arch=compute_%s,code=sm_%s", digits,
					     digits));
	return n + 2;
}
