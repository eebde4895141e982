#include "subst.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../src/cache/expand.h"
#include "../src/cache/rewrite.h"
#include "../src/cache/store.h"
#include "../src/core/buf.h"
#include "../src/core/conf.h"
#include "../src/core/fs.h"
#include "../src/core/hash.h"
#include "../src/core/log.h"
#include "../src/core/proc.h"
#include "../src/core/stats.h"
#include "../src/core/util.h"
#include "../src/nvcc/derive.h"
#include "../src/nvcc/manifest.h"
#include "../src/nvcc/onecmd.h"
#include "../src/nvcc/passthru.h"

/* A TU that `ks` could not analyze is not asked about again for a day. */
#define SUBST_NOANSWER_SECONDS (24 * 3600)
/* The most a variant compile may print before we give up holding it. */
#define SUBST_OUTPUT_MAX (64u << 20)

void
ks_subst_init(struct ks_subst *s)
{
	memset(s, 0, sizeof(*s));
	ks_args_init(&s->a);
	ks_strv_init(&s->argv);
}

void
ks_subst_release(struct ks_subst *s)
{
	size_t i;

	ks_args_release(&s->a);
	ks_strv_release(&s->argv);
	free(s->cwd);
	free(s->nvcc_version);
	free(s->record);
	for (i = 0; i < s->nsources; i++) {
		ks_args_release(&s->sources[i].a);
		ks_strv_release(&s->sources[i].argv);
		free(s->sources[i].record);
	}
	free(s->sources);
	ks_subst_init(s);
}

struct ks_subst_source *
ks_subst_add_source(struct ks_subst *s)
{
	struct ks_subst_source *src;

	s->sources = ks_xrealloc(s->sources, (s->nsources + 1) * sizeof(*s->sources));
	src = &s->sources[s->nsources++];
	memset(src, 0, sizeof(*src));
	ks_args_init(&src->a);
	ks_strv_init(&src->argv);
	return src;
}

/* --- pure helpers ----------------------------------------------------------- */

static int
source_name(const char **p, struct ks_buf *out)
{
	char *end;
	unsigned long n;

	if (**p < '1' || **p > '9')
		return -1;
	n = strtoul(*p, &end, 10);
	if (n == 0 || strlen(end) < n)
		return -1;
	ks_buf_reset(out);
	ks_buf_add(out, end, n);
	*p = end + n;
	return 0;
}

int
ks_subst_kernel_name(const char *mangled, struct ks_buf *out, int *instance)
{
	const char *p;

	*instance = 0;
	if (!mangled || !*mangled)
		return -1;
	if (!ks_starts_with(mangled, "_Z")) {
		/* extern "C": the name as written. */
		ks_buf_reset(out);
		ks_buf_adds(out, mangled);
		return 0;
	}
	p = mangled + 2;
	if (*p != 'N') {
		if (source_name(&p, out))
			return -1;
		*instance = *p == 'I';
		return 0;
	}
	/* _ZN <prefix>* <unqualified> E: the last source name before E. */
	p++;
	while (*p == 'r' || *p == 'V' || *p == 'K')
		p++;
	if (ks_starts_with(p, "St"))
		p += 2;
	while (*p && *p != 'E') {
		if (source_name(&p, out))
			return -1;
		/* Template arguments: no namespace has them, and a kernel is
		 * no member, so this is the kernel, an instance. */
		if (*p == 'I') {
			*instance = 1;
			return 0;
		}
	}
	return *p == 'E' && out->len ? 0 : -1;
}

unsigned
ks_subst_arch_number(const char *arch)
{
	char *end;
	unsigned long n;

	if (!arch || !ks_starts_with(arch, "sm_"))
		return 0;
	n = strtoul(arch + 3, &end, 10);
	if (n < 10 || n > 9999 || end == arch + 3 || (*end && strcmp(end, "a") &&
						      strcmp(end, "f")))
		return 0;
	return (unsigned)n * 10;
}

int
ks_subst_cache_nonempty(const char *dir)
{
	struct dirent *de;
	DIR *d = dir && *dir ? opendir(dir) : NULL;
	int found = 0;

	while (d && !found && (de = readdir(d))) {
		const char *n = de->d_name;

		found = strlen(n) == 2 && strspn(n, "0123456789abcdef") == 2;
	}
	if (d)
		closedir(d);
	return found;
}

/* The start of the preprocessor directive on the line at `p`, or NULL. */
static const char *
directive(const char *p, const char *word)
{
	size_t n = strlen(word);

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '#')
		return NULL;
	p++;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, word, n))
		return NULL;
	return p + n;
}

int
ks_subst_fix_includes(const char *text, const char *srcdir,
		      const char *given_dir,
		      int (*exists)(const char *path, void *ctx), void *ctx,
		      struct ks_buf *out, struct ks_strv *from,
		      struct ks_strv *to, struct ks_buf *why)
{
	const char *line = text;
	size_t lineno = 1;

	if (strstr(text, "__has_include(\"") || strstr(text, "__has_include (\""))
		return ks_error(why, "__has_include of a quoted name");
	while (*line) {
		const char *eol = strchr(line, '\n');
		const char *p;
		size_t len = eol ? (size_t)(eol - line + 1) : strlen(line);

		if (directive(line, "include_next"))
			return ks_error(why, "#include_next on line %zu", lineno);
		p = directive(line, "include");
		if (p && (*p == ' ' || *p == '\t' || *p == '"' || *p == '<')) {
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p != '"' && *p != '<')
				return ks_error(why, "a computed #include on line %zu",
						lineno);
		}
		if (p && *p == '"' && p[1] != '/') {
			const char *q = memchr(p + 1, '"', len - (size_t)(p + 1 - line));
			char *rel = q ? ks_xstrndup(p + 1, (size_t)(q - p - 1)) : NULL;
			char *abs = rel ? ks_xasprintf("%s/%s", srcdir, rel) : NULL;

			if (abs && *rel && exists(abs, ctx)) {
				ks_buf_add(out, line, (size_t)(p + 1 - line));
				ks_buf_adds(out, abs);
				ks_buf_add(out, q, len - (size_t)(q - line));
				ks_strv_push(from, abs);
				ks_strv_push_owned(to, given_dir && *given_dir
					? ks_xasprintf("%s/%s", given_dir, rel)
					: ks_xstrdup(rel));
				free(rel);
				free(abs);
				line += len;
				lineno++;
				continue;
			}
			free(rel);
			free(abs);
		}
		ks_buf_add(out, line, len);
		line += len;
		lineno++;
	}
	return 0;
}

/* Does the depfile name `path` as a word already? */
static int
depfile_names(const struct ks_buf *dep, const char *path)
{
	size_t n = strlen(path);

	for (const char *p = dep->buf; p && (p = strstr(p, path)); p++)
		if ((p == dep->buf || p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n') &&
		    (p[n] == ' ' || p[n] == '\n' || p[n] == '\\' || !p[n]))
			return 1;
	return 0;
}

void
ks_subst_depfile_add(struct ks_buf *dep, const struct ks_strv *paths)
{
	struct ks_buf out = KS_BUF_INIT;
	size_t i, end;

	/* the end of the first rule: its first newline not escaped */
	for (end = 0; end < dep->len; end++)
		if (dep->buf[end] == '\n' && !(end && dep->buf[end - 1] == '\\'))
			break;
	if (end == dep->len && (!dep->len || !strchr(dep->buf, ':')))
		return;
	ks_buf_add(&out, dep->buf, end);
	for (i = 0; i < paths->n; i++) {
		if (depfile_names(dep, paths->v[i]))
			continue;
		ks_buf_adds(&out, " \\\n ");
		for (const char *c = paths->v[i]; *c; c++) {
			if (*c == ' ')
				ks_buf_addch(&out, '\\');
			ks_buf_addch(&out, *c);
		}
	}
	ks_buf_add(&out, dep->buf + end, dep->len - end);
	ks_buf_release(dep);
	*dep = out;
}

void
ks_subst_depfile_dedupe(struct ks_buf *dep)
{
	struct ks_buf out = KS_BUF_INIT;
	struct ks_strv seen = KS_STRV_INIT;
	const char *p = dep->buf ? dep->buf : "", *end = p + dep->len;
	int first = 1;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end, *b = p, *w;
		int cont = e > p && e[-1] == '\\';
		const char *we = cont ? e - 1 : e;
		char *word;

		while (we > b && (we[-1] == ' ' || we[-1] == '\t'))
			we--;
		if (first) {	/* the target: "app.o : src/app.cu \\" */
			w = memchr(b, ':', (size_t)(we - b));
			b = w ? w + 1 : we;
		}
		while (b < we && (*b == ' ' || *b == '\t'))
			b++;
		word = ks_xstrndup(b, (size_t)(we - b));
		/* one word only ("\ " escapes a space in it) */
		for (w = word; *w && !((*w == ' ' || *w == '\t') && (w == word || w[-1] != '\\'));
		     w++)
			;
		if (!first && !*w && *word && ks_strv_find(&seen, word) >= 0) {
			/* the rule's last line repeated: the line before ends it */
			if (!cont && out.len >= 2 && out.buf[out.len - 2] == '\\') {
				ks_buf_truncate(&out, out.len - 2);
				while (out.len && out.buf[out.len - 1] == ' ')
					ks_buf_truncate(&out, out.len - 1);
				ks_buf_addch(&out, '\n');
			}
		} else {
			if (*word && !*w)
				ks_strv_push(&seen, word);
			ks_buf_add(&out, p, (size_t)(e - p) + (nl ? 1 : 0));
		}
		free(word);
		p = nl ? nl + 1 : end;
		first = 0;
		if (!cont) {	/* the first rule ends: the rest as it is */
			ks_buf_add(&out, p, (size_t)(end - p));
			break;
		}
	}
	ks_strv_release(&seen);
	ks_buf_release(dep);
	*dep = out;
}

/* A depfile word: up to unescaped blank or newline; "\ " is a space. */
static const char *
dep_word(const char *p, struct ks_buf *word)
{
	ks_buf_reset(word);
	while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
		if (p[0] == '\\' && p[1] == ' ') {
			ks_buf_addch(word, ' ');
			p += 2;
		} else if (p[0] == '\\' && p[1] == '\n') {
			break;
		} else {
			ks_buf_addch(word, *p++);
		}
	}
	return p;
}

void
ks_subst_fix_depfile(const char *text, const struct ks_strv *from,
		     const struct ks_strv *to, struct ks_buf *out)
{
	struct ks_buf word = KS_BUF_INIT;
	const char *p = text;

	while (*p) {
		const char *start = p, *end;
		long i;
		int colon;

		if (*p == ' ' || *p == '\t' || *p == '\n') {
			ks_buf_addch(out, *p++);
			continue;
		}
		if (p[0] == '\\' && p[1] == '\n') {
			ks_buf_add(out, p, 2);
			p += 2;
			continue;
		}
		end = dep_word(p, &word);
		if (end == start) {	/* a lone backslash */
			ks_buf_addch(out, *p++);
			continue;
		}
		/* A phony target of -MP carries its colon. */
		colon = word.len > 1 && word.buf[word.len - 1] == ':';
		if (colon)
			ks_buf_truncate(&word, word.len - 1);
		i = ks_strv_find(from, word.buf);
		if (i >= 0) {
			const char *s;

			for (s = to->v[i]; *s; s++) {
				if (*s == ' ')
					ks_buf_addch(out, '\\');
				ks_buf_addch(out, *s);
			}
			if (colon)
				ks_buf_addch(out, ':');
		} else {
			ks_buf_add(out, start, (size_t)(end - start));
		}
		p = end;
	}
	ks_buf_release(&word);
}

/* --- the substitution --------------------------------------------------------- */

/* One kernel with a variant to compile in. */
struct job {
	char *name;
	char *mangled;
	char *args;		/* an instance's template arguments, or NULL */
	char *arch;
	struct ks_store_entry e;
	double speedup;
	struct ks_rewrite_kernel k;
	struct ks_rewrite_variant v;
	char *text;		/* e.variant split in place */
	char *vfile;
};

static void
job_release(struct job *j)
{
	free(j->name);
	free(j->mangled);
	free(j->args);
	free(j->arch);
	free(j->text);
	free(j->vfile);
	ks_store_entry_release(&j->e);
	ks_rewrite_kernel_release(&j->k);
	memset(j, 0, sizeof(*j));
}

/*
 * One translation unit whose kernels are looked up: the source of a -c
 * compile, or one CUDA source of a one-command build.
 */
struct tu {
	const char *path;		/* as the command names it */
	const struct ks_args *a;	/* its compile, classified (archs) */
	const struct ks_strv *argv;	/* its compile's words (the manifest id) */
	const char *record;		/* its build record, or NULL */
	size_t word;			/* a one-command source's word in s->argv */
	struct job *jobs;
	size_t njobs;
	char *tmpdir, *tmpsrc;		/* its rewritten TU */
	struct ks_strv headers;		/* headers brought into it, as the
					 * depfile names them */
};

struct run {
	const struct ks_conf *conf;
	const char *real;
	struct ks_subst *s;
	struct ks_strv dirs;		/* primary cache, then secondary */
	struct ks_strv counters;
	struct tu *tus;
	size_t ntus;
	struct ks_strv from, to;	/* what the depfile names, mapped back */
	const char *fail;		/* a fallback reason */
	int status;			/* ks-nvcc's exit status, or -1 */
};

static void
count(struct run *r, const char *name)
{
	ks_strv_push(&r->counters, name);
}

static int
is_file(const char *path, void *ctx)
{
	struct stat st;

	(void)ctx;
	return !stat(path, &st) && S_ISREG(st.st_mode);
}

static char *
find_ks(const struct ks_conf *conf)
{
	char *self, *dir, *cand;

	if (conf->ks && *conf->ks)
		return ks_xstrdup(conf->ks);
	self = ks_passthru_self();
	if (self) {
		dir = ks_xstrdup(self);
		*(char *)ks_basename(dir) = '\0';
		cand = ks_xasprintf("%sks", dir);
		free(dir);
		free(self);
		if (ks_fs_is_exec(cand))
			return cand;
		free(cand);
	}
	return ks_fs_which("ks", getenv("PATH"), NULL, NULL);
}

/*
 * A manifest miss: ask `ks analyze --manifest` once, within the time
 * bound. 0 when it answered; -1 (r->fail set) otherwise.
 */
static int
ask_ks(struct run *r, const struct tu *t, const char *id)
{
	struct ks_buf out = KS_BUF_INIT, err = KS_BUF_INIT, perr = KS_BUF_INIT;
	struct ks_strv argv = KS_STRV_INIT;
	char *mpath = ks_manifest_path(r->conf->dir, id);
	char *mark = ks_xasprintf("%s.noanswer", mpath);
	char *ks = NULL, *envnvcc = NULL;
	const char *env[2];
	struct ks_proc p;
	struct stat st;
	long long now = (long long)time(NULL);
	int rc = -1;

	if (!stat(mark, &st) && (long long)st.st_mtime > now - SUBST_NOANSWER_SECONDS) {
		ks_log("substitution: ks could not analyze this TU before; not asked");
		r->fail = "ks-noanswer";
		goto out;
	}
	ks = find_ks(r->conf);
	if (!ks) {
		ks_log("substitution: no ks program to ask");
		r->fail = "no-ks";
		goto out;
	}
	ks_strv_push(&argv, ks);
	ks_strv_push(&argv, "analyze");
	ks_strv_push(&argv, "--manifest");
	if (t->record) {
		ks_strv_push(&argv, "--record");
		ks_strv_push(&argv, t->record);
	} else {
		ks_strv_push(&argv, t->path);
		ks_strv_push(&argv, "--");
		ks_strv_pushv(&argv, (const char *const *)t->argv->v, t->argv->n);
	}
	envnvcc = ks_xasprintf("KS_NVCC=%s", r->real);
	env[0] = envnvcc;
	env[1] = NULL;
	memset(&p, 0, sizeof(p));
	p.argv = (const char *const *)argv.v;
	p.env = env;
	out.max = err.max = 1u << 20;
	p.out = &out;
	p.err_out = &err;
	p.timeout_ms = r->conf->subst_timeout_ms;
	count(r, "subst-ks-asked");
	if (ks_proc_run(&p, &perr)) {
		ks_log("substitution: cannot run %s: %s", ks, perr.buf);
		r->fail = "ks-failed";
	} else if (p.timed_out) {
		ks_log("substitution: ks took over %d ms; compiling the original",
		       r->conf->subst_timeout_ms);
		r->fail = "ks-timeout";
	} else if (p.status) {
		ks_buf_rtrim(&err);
		ks_log("substitution: ks analyze failed (%d): %s", p.status, err.buf);
		r->fail = "ks-failed";
		ks_fs_write_atomic(mark, "", 0, &perr);
	} else {
		rc = 0;
	}
out:
	ks_strv_release(&argv);
	ks_buf_release(&out);
	ks_buf_release(&err);
	ks_buf_release(&perr);
	free(mpath);
	free(mark);
	free(ks);
	free(envnvcc);
	return rc;
}

static struct job *
job_of(struct tu *t, const char *mangled)
{
	size_t i;

	for (i = 0; i < t->njobs; i++)
		if (!strcmp(t->jobs[i].mangled, mangled))
			return &t->jobs[i];
	return NULL;
}

/* Look every (kernel, arch) of the manifest entry up in the caches. */
static void
find_variants(struct run *r, struct tu *t, const struct ks_manifest_entry *me)
{
	size_t i;
	unsigned corrupt = 0;

	for (i = 0; i < me->nkernels; i++) {
		const struct ks_manifest_kernel *mk = &me->kernels[i];
		struct ks_store_entry e = { 0 };
		struct ks_buf err = KS_BUF_INIT, name = KS_BUF_INIT;
		struct job *j;
		double speedup = 0;
		unsigned want = ks_subst_arch_number(mk->arch);
		int rc;

		/* a kernel key of an arch the build reaches without naming it
		 * (ks_args_reaches 2) gets that target added at compile */
		if (!ks_args_reaches(t->a, mk->arch))
			continue;
		rc = ks_store_get((const char *const *)r->dirs.v, r->dirs.n,
				  mk->key, &e, &corrupt, &err);
		if (rc <= 0) {
			if (rc < 0)
				ks_log("substitution: %s: %s", mk->mangled, err.buf);
			ks_buf_release(&err);
			continue;
		}
		ks_buf_release(&err);
		if (strcmp(e.kernel, mk->mangled) || e.arch != want) {
			ks_log("substitution: entry %s is for %s arch %u, not %s %s; "
			       "not used", mk->key, e.kernel, e.arch, mk->mangled,
			       mk->arch);
			count(r, "subst-entry-mismatch");
			ks_store_entry_release(&e);
			continue;
		}
		ks_store_json_num(e.json, "speedup", &speedup);
		j = job_of(t, mk->mangled);
		if (j) {
			/* One variant per kernel per compile: the fastest. */
			if (speedup <= j->speedup) {
				ks_log("substitution: %s: the variant for %s is not "
				       "used, the one for %s is faster", mk->mangled,
				       mk->arch, j->arch);
				ks_store_entry_release(&e);
				continue;
			}
			ks_log("substitution: %s: the variant for %s is not used, "
			       "the one for %s is faster", mk->mangled, j->arch,
			       mk->arch);
			ks_store_entry_release(&j->e);
			free(j->arch);
		} else {
			struct ks_buf args = KS_BUF_INIT;
			int inst = 0;

			if (ks_subst_kernel_name(mk->mangled, &name, &inst) ||
			    (inst && (ks_store_json_str(e.json, "instance", &args) ||
				      !args.len))) {
				ks_log("substitution: %s: %s; not used", mk->mangled,
				       inst ? "an instance of a template whose entry "
					      "does not name its template arguments"
					    : "a name the lexical scan cannot find");
				count(r, "subst-skip-name");
				ks_store_entry_release(&e);
				ks_buf_release(&name);
				ks_buf_release(&args);
				continue;
			}
			t->jobs = ks_xrealloc(t->jobs, (t->njobs + 1) * sizeof(*t->jobs));
			j = &t->jobs[t->njobs++];
			memset(j, 0, sizeof(*j));
			j->mangled = ks_xstrdup(mk->mangled);
			j->name = ks_buf_detach(&name, NULL);
			j->args = inst ? ks_buf_detach(&args, NULL) : NULL;
			ks_buf_release(&args);
		}
		j->arch = ks_xstrdup(mk->arch);
		j->e = e;
		j->speedup = speedup;
		ks_buf_release(&name);
	}
	if (corrupt) {
		struct ks_buf why = KS_BUF_INIT;

		ks_log("substitution: %u corrupt cache entr%s ignored", corrupt,
		       corrupt == 1 ? "y" : "ies");
		for (i = 0; i < corrupt; i++)
			count(r, "cache-corrupt");
		ks_buf_release(&why);
	}
}

/* The rewritten TU into `out`; -1 with r->fail set. */
static int
rewrite(struct run *r, struct tu *t, const char *tu, size_t len,
	struct ks_buf *out)
{
	struct ks_rewrite_job *jobs = ks_xcalloc(t->njobs, sizeof(*jobs));
	struct ks_buf err = KS_BUF_INIT;
	size_t i, x, n = 0;
	int rc = -1;

	for (i = 0; i < t->njobs; i++) {
		struct job *j = &t->jobs[i];

		if (ks_rewrite_scan(tu, len, j->name, &j->k, &err)) {
			ks_log("substitution: %s: %s", j->mangled, err.buf);
			r->fail = "scan";
			goto out;
		}
		j->text = ks_xstrdup(j->e.variant);
		if (ks_rewrite_variant_split(j->text, &j->v, &err)) {
			ks_log("substitution: %s: %s", j->mangled, err.buf);
			r->fail = "variant";
			goto out;
		}
		j->vfile = ks_fs_join(j->e.dir, "variant.cu");
		j->v.file = j->vfile;
		j->v.arch = j->e.arch;
	}
	for (i = 0; i < t->njobs; i++) {
		struct job *j = &t->jobs[i];
		int dropped = 0;

		/* Two instances of one template whose helpers the rewriter
		 * cannot tell apart would be refused both: the faster one is
		 * used. */
		for (x = 0; x < t->njobs && j->args; x++) {
			const struct job *o = &t->jobs[x];

			if (x != i && o->args && !strcmp(o->name, j->name) &&
			    !ks_rewrite_variants_coexist(&o->v, &j->v) &&
			    (o->speedup > j->speedup || (o->speedup == j->speedup && x < i)))
				dropped = 1;
		}
		if (dropped) {
			ks_log("substitution: %s: not used, the variant of another "
			       "instance of %s is faster and their helpers cannot "
			       "be told apart", j->mangled, j->name);
			continue;
		}
		jobs[n].kernel = &j->k;
		jobs[n].variant = &j->v;
		jobs[n].args = j->args;
		n++;
	}
	if (ks_rewrite(tu, len, t->path, jobs, n, out, &err)) {
		ks_log("substitution: %s", err.buf);
		r->fail = "rewrite";
		goto out;
	}
	rc = 0;
out:
	ks_buf_release(&err);
	free(jobs);
	return rc;
}

/*
 * Write `text` under KS_DIR/tmp/<digest>/<the source's basename>: nvcc
 * names -keep files and default outputs after the basename, and a path
 * that is a function of the content (the rewritten TU, the cwd, the
 * source's path) lets a compiler cache behind ks-nvcc hit on it (ccache
 * hashes the input's path). The file is written atomically, so
 * concurrent compiles of the same TU share it; the directory is kept
 * (touched on each use) and swept when unused for KS_TMP_KEEP_SECONDS.
 */
#define KS_TMP_KEEP_SECONDS (7 * 24 * 3600)

static void
sweep_tmp(const char *base, long long now)
{
	char *mark = ks_fs_join(base, KS_FS_SWEEP_MARK);
	struct stat st;
	struct dirent *de;
	DIR *d;

	if (!stat(mark, &st) && (long long)st.st_mtime > now - 3600)
		goto out;
	ks_fs_write_atomic(mark, "", 0, NULL);
	d = opendir(base);
	while (d && (de = readdir(d))) {
		char *p;

		if (!ks_starts_with(de->d_name, "ks-nvcc."))
			continue;
		p = ks_fs_join(base, de->d_name);
		if (!lstat(p, &st) && S_ISDIR(st.st_mode) &&
		    (long long)st.st_mtime < now - KS_TMP_KEEP_SECONDS)
			ks_fs_remove_tree(p, NULL);
		free(p);
	}
	if (d)
		closedir(d);
out:
	free(mark);
}

static int
write_tmp(struct run *r, struct tu *t, const char *text, size_t len)
{
	struct ks_buf err = KS_BUF_INIT;
	struct ks_hash h = KS_HASH_INIT;
	char *base = ks_fs_join(r->conf->dir, "tmp"), digest[33];
	int rc = -1;

	ks_hash_init(&h);
	ks_hash_str(&h, "ks-nvcc subst tmp 1");
	ks_hash_str(&h, r->s->cwd);
	ks_hash_str(&h, t->path);
	ks_hash_bytes(&h, text, len);
	ks_hash_hex128(&h, digest);
	ks_hash_release(&h);
	t->tmpdir = ks_xasprintf("%s/ks-nvcc.%.16s", base, digest);
	t->tmpsrc = ks_fs_join(t->tmpdir, ks_basename(t->path));
	if (ks_fs_mkdirs(t->tmpdir, &err) ||
	    ks_fs_write_atomic(t->tmpsrc, text, len, &err)) {
		ks_log("substitution: cannot write the rewritten TU: %s", err.buf);
		r->fail = "tmp";
	} else {
		utimensat(AT_FDCWD, t->tmpdir, NULL, 0);
		sweep_tmp(base, (long long)time(NULL));
		rc = 0;
	}
	free(base);
	ks_buf_release(&err);
	return rc;
}

/* Everything but the input and the output names, which are ours to give. */
static const char *const subst_drop[] = { "output-file", "output-directory" };
static const struct ks_derive derive_subst = {
	"the substituted compile", 0, 0, subst_drop, KS_ARRAY_SIZE(subst_drop),
	1, 0, 0, 0,
};

/*
 * The words after the real nvcc: for a -c compile, the build's words but
 * the input and the output, then the rewritten TU and -o; for a
 * one-command build, the whole command with each source that has
 * variants replaced by its rewritten TU in its place (onecmd.h: the
 * command's own outputs, where they were).
 */
static int
command_words(struct run *r, struct ks_strv *argv, struct ks_buf *err)
{
	struct ks_subst *s = r->s;
	size_t *words, i, n = 0;
	const char **paths;
	int rc;

	if (!s->nsources) {
		if (ks_derive_argv(&derive_subst, (const char *const *)s->argv.v,
				   s->argv.n, argv, NULL, err))
			return -1;
		ks_strv_push(argv, r->tus[0].tmpsrc);
		ks_strv_push(argv, "-o");
		ks_strv_push(argv, s->a.output);
		return 0;
	}
	words = ks_xcalloc(r->ntus, sizeof(*words));
	paths = ks_xcalloc(r->ntus, sizeof(*paths));
	for (i = 0; i < r->ntus; i++)
		if (r->tus[i].njobs) {
			words[n] = r->tus[i].word;
			paths[n++] = r->tus[i].tmpsrc;
		}
	rc = ks_onecmd_replace_sources((const char *const *)s->argv.v,
				       s->argv.n, words, paths, n, argv, err);
	free(words);
	free(paths);
	return rc;
}

/*
 * A variant verified on a GPU that the build's code reaches only through
 * its PTX or an older SASS: that GPU's target added to the command, once
 * (ks_args_reach_words), so that the variant's arch has a device pass.
 * Every other GPU runs what it ran before.
 */
static void
add_targets(struct run *r, struct ks_strv *argv)
{
	struct ks_strv added = KS_STRV_INIT;
	size_t k, i, w;

	for (k = 0; k < r->ntus; k++)
		for (i = 0; i < r->tus[k].njobs; i++) {
			struct ks_strv words = KS_STRV_INIT;

			if (ks_args_reach_words(r->tus[k].a, r->tus[k].jobs[i].arch,
						&words) &&
			    ks_strv_find(&added, words.v[words.n - 1]) < 0) {
				ks_log("substitution: %s: the build reaches %s only "
				       "through its PTX or an older SASS; adding "
				       "its target", r->tus[k].jobs[i].mangled,
				       r->tus[k].jobs[i].arch);
				for (w = 0; w < words.n; w++)
					if (ks_strv_find(&added, words.v[w]) < 0 ||
					    !strcmp(words.v[w], "-gencode"))
						ks_strv_push(&added, words.v[w]);
			}
			ks_strv_release(&words);
		}
	ks_strv_pushv(argv, (const char *const *)added.v, added.n);
	ks_strv_release(&added);
}

/*
 * Compile the rewritten TU. Returns nvcc's status (its output held in
 * `out`/`errout`), or -1 when nvcc could not be run.
 */
static int
compile(struct run *r, struct ks_buf *out, struct ks_buf *errout)
{
	struct ks_strv argv = KS_STRV_INIT;
	struct ks_buf err = KS_BUF_INIT;
	const char *old = getenv(KS_SAFEGUARD_ENV);
	char *rp = ks_fs_realpath(r->real), *guard = NULL;
	const char *env[2] = { NULL, NULL };
	struct ks_proc p;
	int rc = -1;

	ks_strv_push(&argv, r->real);
	if (command_words(r, &argv, &err)) {
		ks_log("substitution: %s", err.buf);
		goto out;
	}
	add_targets(r, &argv);
	/* As the pass-through would: nvcc below us must not come back. */
	if (rp) {
		guard = old && *old ? ks_xasprintf("%s=%s:%s", KS_SAFEGUARD_ENV, old, rp)
				    : ks_xasprintf("%s=%s", KS_SAFEGUARD_ENV, rp);
		env[0] = guard;
	}
	memset(&p, 0, sizeof(p));
	p.argv = (const char *const *)argv.v;
	p.env = env;
	out->max = errout->max = SUBST_OUTPUT_MAX;
	p.out = out;
	p.err_out = errout;
	if (ks_proc_run(&p, &err)) {
		ks_log("substitution: %s", err.buf);
		goto out;
	}
	if (p.truncated) {
		ks_log("substitution: nvcc said more than we hold; compiling the "
		       "original");
		goto out;
	}
	rc = p.status;
out:
	ks_strv_release(&argv);
	ks_buf_release(&err);
	free(rp);
	free(guard);
	return rc;
}

static int
fix_depfile(struct run *r)
{
	const struct ks_args *a = &r->s->a;
	struct ks_buf text = KS_BUF_INIT, out = KS_BUF_INIT, err = KS_BUF_INIT;
	size_t i;
	int rc = -1;

	if (!a->depfile || !(a->dep_md || a->dep_mmd))
		return 0;
	for (i = 0; i < r->ntus; i++)
		if (r->tus[i].njobs) {
			ks_strv_push(&r->from, r->tus[i].tmpsrc);
			ks_strv_push(&r->to, r->tus[i].path);
		}
	text.max = KS_MANIFEST_TU_MAX_BYTES;
	if (ks_fs_read(a->depfile, &text, &err)) {
		ks_log("substitution: the depfile: %s", err.buf);
		goto out;
	}
	ks_subst_fix_depfile(text.buf, &r->from, &r->to, &out);
	for (i = 0; i < r->ntus; i++)
		if (r->tus[i].njobs && r->tus[i].headers.n)
			ks_subst_depfile_add(&out, &r->tus[i].headers);
	ks_subst_depfile_dedupe(&out);
	for (i = 0; i < r->ntus; i++)
		if (r->tus[i].njobs && strstr(out.buf, r->tus[i].tmpdir)) {
			ks_log("substitution: the depfile still names %s",
			       r->tus[i].tmpdir);
			goto out;
		}
	if (ks_fs_write_atomic(a->depfile, out.buf, out.len, &err)) {
		ks_log("substitution: the depfile: %s", err.buf);
		goto out;
	}
	rc = 0;
out:
	ks_buf_release(&text);
	ks_buf_release(&out);
	ks_buf_release(&err);
	return rc;
}

static void
flush_counters(struct run *r)
{
	struct ks_buf err = KS_BUF_INIT;

	if (!r->counters.n)
		return;
	if (ks_stats_add(r->conf->dir, (const char *const *)r->counters.v,
			 (int)r->counters.n, 1, r->conf->lock_timeout_ms, &err))
		ks_log("stats not updated: %s", err.buf);
	ks_buf_release(&err);
	ks_strv_release(&r->counters);
}

static void
run_release(struct run *r)
{
	size_t i, k;

	for (k = 0; k < r->ntus; k++) {
		struct tu *t = &r->tus[k];

		for (i = 0; i < t->njobs; i++)
			job_release(&t->jobs[i]);
		free(t->jobs);
		free(t->tmpdir);
		free(t->tmpsrc);
		ks_strv_release(&t->headers);
	}
	free(r->tus);
	ks_strv_release(&r->dirs);
	ks_strv_release(&r->counters);
	ks_strv_release(&r->from);
	ks_strv_release(&r->to);
}

static void
cache_dirs(const struct ks_conf *conf, struct ks_strv *dirs)
{
	const char *p = conf->cache_secondary;

	ks_strv_push_owned(dirs, ks_fs_join(conf->dir, "cache"));
	while (p && *p) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);

		if (n)
			ks_strv_push_owned(dirs, ks_xstrndup(p, n));
		p += n + (colon ? 1 : 0);
	}
}

static int
any_nonempty(const struct ks_strv *dirs)
{
	size_t i;

	for (i = 0; i < dirs->n; i++)
		if (ks_subst_cache_nonempty(dirs->v[i]))
			return 1;
	return 0;
}

static void
fall_back(struct run *r)
{
	char name[64];

	if (!r->fail)
		return;
	snprintf(name, sizeof(name), "subst-fallback-%s", r->fail);
	count(r, name);
	flush_counters(r);
	if (r->conf->strict) {
		fprintf(stderr, "%s: error: substitution failed (%s) and KS_STRICT "
			"is set\n", ks_progname, r->fail);
		r->status = KS_EXIT_SUBST;
		return;
	}
	ks_log("substitution: compiling the original (%s)", r->fail);
}

static int
read_file(const char *path, struct ks_buf *out, void *ctx)
{
	(void)ctx;
	return is_file(path, NULL) ? ks_fs_read(path, out, NULL) : -1;
}

/*
 * Kernels defined in headers the TU includes (cache/expand.h): the TU's
 * text with each such #include replaced by the header's text, a level
 * at a time for a header reached through others, each header kept for
 * the depfile. A kernel whose header cannot be brought in is not
 * substituted, with the reason; the others are.
 */
static int
expand_headers(struct run *r, struct tu *t, struct ks_buf *tu, const char *srcdir,
	       const char *given_dir)
{
	struct ks_buf err = KS_BUF_INIT, h = KS_BUF_INIT, out = KS_BUF_INIT,
		      cur = KS_BUF_INIT;
	struct ks_strv named = KS_STRV_INIT;
	size_t i, n = 0, level;
	int rc;

	for (i = 0; i < t->njobs; i++) {
		struct job *j = &t->jobs[i];
		struct ks_rewrite_kernel k;
		struct ks_expand x;

		memset(&k, 0, sizeof(k));
		rc = ks_rewrite_scan(tu->buf, tu->len, j->name, &k, &err);
		if (rc != -2) {
			/* defined here, or unreadable: rewrite() says so */
			ks_rewrite_kernel_release(&k);
			ks_buf_reset(&err);
			t->jobs[n++] = *j;
			continue;
		}
		ks_buf_reset(&err);
		/* the TU's text changes only once the definition is in it */
		ks_buf_reset(&cur);
		ks_buf_add(&cur, tu->buf, tu->len);
		for (level = 0; rc == -2 && level < KS_EXPAND_DEPTH; level++) {
			h.max = KS_MANIFEST_TU_MAX_BYTES;
			if (ks_expand_find(cur.buf, cur.len, t->path, srcdir, j->name,
					   read_file, NULL, &x, &h, &err))
				break;
			/* named as the compile of the TU names it: diagnostics
			 * and __FILE__ read the same */
			ks_strv_push_owned(&named, ks_expand_named(&x, given_dir, &r->from,
								   &r->to));
			ks_buf_reset(&out);
			ks_expand_text(cur.buf, cur.len, t->path, &x, named.v[named.n - 1],
				       h.buf, h.len, is_file, NULL, &r->from, &r->to, &out);
			if (x.depth > 1)
				ks_log("substitution: %s is defined in %s, reached through %s: "
				       "that header brought into %s", j->mangled, x.def,
				       x.header, t->path);
			else
				ks_log("substitution: %s is defined in %s: that header "
				       "brought into %s", j->mangled, x.header, t->path);
			ks_buf_reset(&cur);
			ks_buf_add(&cur, out.buf, out.len);
			ks_expand_release(&x);
			rc = ks_rewrite_scan(cur.buf, cur.len, j->name, &k, &err);
			if (!rc)
				ks_rewrite_kernel_release(&k);
			ks_buf_reset(&err);
		}
		if (rc == -2) {
			ks_log("substitution: %s: not used: %s", j->mangled,
			       err.len ? err.buf : "its definition is not in the text with "
						   "its headers brought in");
			count(r, "subst-skip-header");
			ks_buf_reset(&err);
			ks_strv_release(&named);
			job_release(j);
			continue;
		}
		for (size_t m = 0; m < named.n; m++)
			ks_strv_push(&t->headers, named.v[m]);
		ks_strv_release(&named);
		ks_buf_reset(tu);
		ks_buf_add(tu, cur.buf, cur.len);
		t->jobs[n++] = *j;
	}
	t->njobs = n;
	ks_buf_release(&err);
	ks_buf_release(&h);
	ks_buf_release(&out);
	ks_buf_release(&cur);
	return 0;
}

/*
 * Look the TU's kernels up and, when variants apply, write its rewritten
 * TU (t->tmpsrc). 0 with t->njobs 0 when none applies; -1 with r->fail.
 */
static int
prepare(struct run *r, struct tu *t)
{
	struct ks_subst *s = r->s;
	struct ks_buf tu = KS_BUF_INIT, err = KS_BUF_INIT, text = KS_BUF_INIT;
	struct ks_buf fixed = KS_BUF_INIT;
	struct ks_manifest_entry me;
	char id[33], *srcabs = NULL, *srcdir = NULL, *given_dir = NULL;
	int rc = -1, found;

	memset(&me, 0, sizeof(me));
	tu.max = KS_MANIFEST_TU_MAX_BYTES;
	if (ks_fs_read(t->path, &tu, &err)) {
		ks_log("substitution: %s", err.buf);
		r->fail = "read";
		goto out;
	}
	ks_manifest_id(tu.buf, tu.len, s->cwd, t->argv, s->nvcc_version, id);
	found = ks_manifest_lookup(r->conf->dir, id, &me, &err);
	if (found < 0)
		ks_log("substitution: %s", err.buf);
	if (found == 1) {
		count(r, "subst-manifest-hit");
	} else {
		count(r, "subst-manifest-miss");
		ks_buf_reset(&err);
		if (ask_ks(r, t, id))
			goto out;
		found = ks_manifest_lookup(r->conf->dir, id, &me, &err);
		if (found != 1) {
			ks_log("substitution: still no manifest after ks analyze%s%s",
			       err.len ? ": " : "", err.buf);
			r->fail = "manifest";
			goto out;
		}
	}
	find_variants(r, t, &me);
	if (!t->njobs) {
		ks_log("substitution: no verified variant for the %zu kernel "
		       "key%s of %s", me.nkernels, me.nkernels == 1 ? "" : "s",
		       t->path);
		rc = 0;
		goto out;
	}
	srcabs = ks_fs_realpath(t->path);
	if (!srcabs) {
		r->fail = "read";
		goto out;
	}
	srcdir = ks_xstrdup(srcabs);
	*strrchr(srcdir, '/') = '\0';
	given_dir = ks_xstrdup(t->path);
	*(char *)ks_basename(given_dir) = '\0';
	if (*given_dir && given_dir[strlen(given_dir) - 1] == '/')
		given_dir[strlen(given_dir) - 1] = '\0';
	if (expand_headers(r, t, &tu, *srcdir ? srcdir : "/", given_dir))
		goto out;
	if (!t->njobs) {
		rc = 0;
		goto out;
	}
	if (rewrite(r, t, tu.buf, tu.len, &text))
		goto out;
	ks_buf_reset(&err);
	if (ks_subst_fix_includes(text.buf, *srcdir ? srcdir : "/", given_dir,
				  is_file, NULL, &fixed, &r->from, &r->to, &err)) {
		ks_log("substitution: %s", err.buf);
		r->fail = "include";
		goto out;
	}
	if (write_tmp(r, t, fixed.buf, fixed.len))
		goto out;
	rc = 0;
out:
	ks_manifest_entry_release(&me);
	ks_buf_release(&tu);
	ks_buf_release(&err);
	ks_buf_release(&text);
	ks_buf_release(&fixed);
	free(srcabs);
	free(srcdir);
	free(given_dir);
	return rc;
}

/* The TUs to look up: the compile's source, or each recorded CUDA source. */
static void
add_tus(struct run *r)
{
	struct ks_subst *s = r->s;
	size_t i, n = s->nsources ? s->nsources : 1;

	r->tus = ks_xcalloc(n, sizeof(*r->tus));
	r->ntus = n;
	if (!s->nsources) {
		r->tus[0].path = s->a.inputs[0].path;
		r->tus[0].a = &s->a;
		r->tus[0].argv = &s->argv;
		r->tus[0].record = s->record;
		return;
	}
	for (i = 0; i < n; i++) {
		r->tus[i].path = s->sources[i].a.inputs[0].path;
		r->tus[i].a = &s->sources[i].a;
		r->tus[i].argv = &s->sources[i].argv;
		r->tus[i].record = s->sources[i].record;
		r->tus[i].word = s->sources[i].word;
	}
}

static void
substitute(struct run *r)
{
	struct ks_subst *s = r->s;
	struct ks_buf out = KS_BUF_INIT, errout = KS_BUF_INIT;
	size_t i, k, with = 0;
	int status;

	if (!s->a.output) {
		r->fail = "output";
		return;
	}
	add_tus(r);
	/* Every source's lookup first: anything that fails on the way
	 * compiles the whole original command. */
	for (k = 0; k < r->ntus; k++) {
		if (prepare(r, &r->tus[k]))
			return;
		with += r->tus[k].njobs > 0;
	}
	if (!with) {
		count(r, "subst-no-variant");
		return;
	}
	status = compile(r, &out, &errout);
	if (status != 0) {
		if (status > 0)
			ks_log("substitution: the variant compile failed (%d): %.400s",
			       status, errout.buf);
		r->fail = "compile";
		goto out;
	}
	if (fix_depfile(r)) {
		r->fail = "depfile";
		goto out;
	}
	fwrite(out.buf, 1, out.len, stdout);
	fwrite(errout.buf, 1, errout.len, stderr);
	fflush(stdout);
	fflush(stderr);
	for (k = 0; k < r->ntus; k++)
		for (i = 0; i < r->tus[k].njobs; i++) {
			struct job *j = &r->tus[k].jobs[i];

			ks_log("substitution: %s for %s from %s (x%.2f)", j->mangled,
			       j->arch, j->e.dir, j->speedup);
			if (j->e.from == 0)
				ks_store_touch(&j->e);
			count(r, "subst-kernel");
		}
	count(r, "subst-compiled");
	if (s->nsources)
		count(r, "subst-one-command");
	flush_counters(r);
	r->status = 0;
out:
	ks_buf_release(&out);
	ks_buf_release(&errout);
}

int
ks_subst_run(const struct ks_conf *conf, const char *real, struct ks_subst *s)
{
	struct run r;
	int status;

	if (!s->ready || !conf->subst)
		return -1;
	memset(&r, 0, sizeof(r));
	r.status = -1;
	r.conf = conf;
	r.real = real;
	r.s = s;
	ks_strv_init(&r.dirs);
	ks_strv_init(&r.counters);
	ks_strv_init(&r.from);
	ks_strv_init(&r.to);
	cache_dirs(conf, &r.dirs);
	/* An empty cache costs a few opendir calls, and nothing else. */
	if (!any_nonempty(&r.dirs)) {
		run_release(&r);
		return -1;
	}
	substitute(&r);
	if (r.status < 0)
		fall_back(&r);
	flush_counters(&r);
	status = r.status;
	run_release(&r);
	return status;
}
