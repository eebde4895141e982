/*
 * ks cache: the verified variants ks-nvcc compiles (cache/store.h).
 *
 *   ks cache stats            entries, bytes, the limit, the counters
 *   ks cache list [--json]    one line per entry: key, arch, speedup, kernel
 *   ks cache show KEY         variant.json and variant.cu of an entry
 *   ks cache verify [--gpu]   check every entry's hash (--gpu: and re-run
 *                             the Reviewer where its captures are present)
 *   ks cache rm KEY...        remove entries
 *   ks cache clear            remove every entry
 *   ks cache export DIR       copy the verified entries to DIR (a folder a
 *                             team commits; KS_CACHE_SECONDARY points at it)
 *   ks cache import DIR       copy DIR's verified entries in
 *
 * Every command but import works on the primary cache, KS_DIR/cache;
 * list, show and verify also read the secondary caches (KS_CACHE_SECONDARY)
 * and say which cache each entry is in.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../cache/rewrite.h"
#include "../cache/store.h"
#include "../core/buf.h"
#include "../core/conf.h"
#include "../core/fs.h"
#include "../core/json.h"
#include "../core/stats.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "../review/reviewer.h"
#include "ks.h"

#define USAGE                                                                  \
	"usage: ks cache stats|list [--json]|show KEY|verify [--gpu]|rm KEY...|" \
	"clear|export DIR|import DIR\n"

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
fail(struct ks_buf *err)
{
	fprintf(stderr, "ks: error: %s\n", err->buf);
	return KS_EXIT_FAILED;
}

/* The entry's json, parsed (NULL when it does not parse). */
static cJSON *
entry_json(const char *dir)
{
	struct ks_buf text = KS_BUF_INIT, err = KS_BUF_INIT;
	char *p = ks_fs_join(dir, "variant.json");
	cJSON *j = NULL;

	if (!ks_fs_read(p, &text, &err))
		j = cJSON_Parse(text.buf);
	free(p);
	ks_buf_release(&text);
	ks_buf_release(&err);
	return j;
}

static int
cmd_list(const struct ks_conf *conf, int json)
{
	struct ks_strv dirs = KS_STRV_INIT;
	struct ks_buf err = KS_BUF_INIT;
	cJSON *arr = json ? cJSON_CreateArray() : NULL;
	size_t d, i;
	int rc = 0;

	cache_dirs(conf, &dirs);
	for (d = 0; d < dirs.n; d++) {
		struct ks_store_item *items;
		size_t n;

		if (ks_store_list(dirs.v[d], &items, &n, &err)) {
			rc = fail(&err);
			break;
		}
		for (i = 0; i < n; i++) {
			cJSON *j = entry_json(items[i].dir);
			const char *kernel = j ? ks_json_str(j, "demangled") : NULL;
			double arch = j ? ks_json_num(j, "arch") : 0;
			double sp = j ? ks_json_num(j, "speedup") : 0;

			if (!kernel && j)
				kernel = ks_json_str(j, "kernel");
			if (json) {
				cJSON *o = cJSON_CreateObject();
				cJSON_AddStringToObject(o, "key", items[i].key);
				cJSON_AddStringToObject(o, "cache", dirs.v[d]);
				cJSON_AddStringToObject(o, "kernel", kernel ? kernel : "");
				cJSON_AddStringToObject(o, "symbol", j && ks_json_str(j, "kernel") ?
							ks_json_str(j, "kernel") : "");
				cJSON_AddNumberToObject(o, "arch", arch);
				cJSON_AddNumberToObject(o, "speedup", sp);
				cJSON_AddNumberToObject(o, "orig_ms", j ? ks_json_num(j, "orig_ms") : 0);
				cJSON_AddNumberToObject(o, "orig_lo_ms", j ? ks_json_num(j, "orig_lo_ms") : 0);
				cJSON_AddNumberToObject(o, "orig_hi_ms", j ? ks_json_num(j, "orig_hi_ms") : 0);
				cJSON_AddNumberToObject(o, "variant_ms", j ? ks_json_num(j, "variant_ms") : 0);
				cJSON_AddNumberToObject(o, "variant_lo_ms", j ? ks_json_num(j, "variant_lo_ms") : 0);
				cJSON_AddNumberToObject(o, "variant_hi_ms", j ? ks_json_num(j, "variant_hi_ms") : 0);
				cJSON_AddNumberToObject(o, "bytes", (double)items[i].bytes);
				cJSON_AddItemToArray(arr, o);
			} else {
				printf("%s  sm_%u  x%-5.2f  %s%s\n", items[i].key,
				       (unsigned)arch / 10, sp, kernel ? kernel : "?",
				       d ? "  (secondary)" : "");
			}
			cJSON_Delete(j);
		}
		ks_store_items_release(items, n);
	}
	if (json && !rc) {
		char *s = cJSON_Print(arr);
		puts(s);
		free(s);
	}
	cJSON_Delete(arr);
	ks_strv_release(&dirs);
	ks_buf_release(&err);
	return rc;
}

static int
cmd_stats(const struct ks_conf *conf)
{
	static const char *const counters[] = {
		"subst-compiled", "subst-kernel", "subst-manifest-hit",
		"subst-manifest-miss", "subst-no-variant", "subst-ks-asked",
		"cache-corrupt", "subst-entry-mismatch",
	};
	struct ks_strv dirs = KS_STRV_INIT;
	struct ks_buf err = KS_BUF_INIT, all = KS_BUF_INIT;
	size_t d, i;
	long long max = 0;

	cache_dirs(conf, &dirs);
	for (d = 0; d < dirs.n; d++) {
		struct ks_store_item *items;
		size_t n;
		long long bytes = 0;

		if (ks_store_list(dirs.v[d], &items, &n, &err))
			return fail(&err);
		for (i = 0; i < n; i++)
			bytes += items[i].bytes;
		printf("%s %s: %zu entr%s, %lld bytes\n", d ? "secondary" : "primary",
		       dirs.v[d], n, n == 1 ? "y" : "ies", bytes);
		ks_store_items_release(items, n);
	}
	if (ks_store_parse_size(conf->cache_max_size, &max) || max <= 0)
		printf("size limit: none\n");
	else
		printf("size limit: %s (%lld bytes)\n", conf->cache_max_size, max);
	for (i = 0; i < KS_ARRAY_SIZE(counters); i++)
		printf("%s %ld\n", counters[i], ks_stats_get(conf->dir, counters[i]));
	/* The fallbacks by reason, whatever they are. */
	if (!ks_stats_read(conf->dir, &all, &err)) {
		char *line = all.buf;

		while (line && *line) {
			char *nl = strchr(line, '\n');

			if (nl)
				*nl = '\0';
			if (ks_starts_with(line, "subst-fallback-"))
				printf("%s\n", line);
			line = nl ? nl + 1 : NULL;
		}
	}
	ks_strv_release(&dirs);
	ks_buf_release(&err);
	ks_buf_release(&all);
	return 0;
}

static int
cmd_show(const struct ks_conf *conf, const char *key)
{
	struct ks_strv dirs = KS_STRV_INIT;
	struct ks_store_entry e = { 0 };
	struct ks_buf err = KS_BUF_INIT;
	unsigned corrupt = 0;
	int rc;

	cache_dirs(conf, &dirs);
	rc = ks_store_get((const char *const *)dirs.v, dirs.n, key, &e, &corrupt,
			  &err);
	if (rc < 0) {
		rc = fail(&err);
	} else if (rc == 0) {
		fprintf(stderr, "ks: error: no verified entry %s%s\n", key,
			corrupt ? " (a corrupt one was skipped)" : "");
		rc = KS_EXIT_FAILED;
	} else {
		printf("# %s\n%s# %s/variant.cu\n%s", e.dir, e.json, e.dir, e.variant);
		rc = 0;
	}
	ks_store_entry_release(&e);
	ks_strv_release(&dirs);
	ks_buf_release(&err);
	return rc;
}

/*
 * The Reviewer on one entry: its variant put into the TU it was made
 * from, on every capture the entry names that is still present.
 * Returns 0 (correct), 1 (rejected or ineligible), 2 (skipped: no
 * capture or no source), -1 (an error).
 */
static int
verify_gpu(const struct ks_conf *conf, const struct ks_store_entry *e,
	   struct ks_buf *why)
{
	cJSON *j = cJSON_Parse(e->json);
	const cJSON *caps = j ? cJSON_GetObjectItemCaseSensitive(j, "captures") : NULL;
	const char *source = j ? ks_json_str(j, "source") : NULL;
	struct ks_strv present = KS_STRV_INIT;
	struct ks_buf tu = KS_BUF_INIT, out = KS_BUF_INIT, err = KS_BUF_INIT;
	struct ks_buf name = KS_BUF_INIT;
	struct ks_rewrite_kernel k;
	struct ks_rewrite_variant v;
	struct ks_rewrite_job job = { NULL, NULL, NULL };
	struct ks_review_request rq;
	struct ks_review_result res;
	char *text = ks_xstrdup(e->variant), *vfile = ks_fs_join(e->dir, "variant.cu");
	char *cand = NULL, tmpl[] = "/tmp/ks-verify.XXXXXX";
	const cJSON *c;
	int rc = 2;

	memset(&k, 0, sizeof(k));
	memset(&v, 0, sizeof(v));
	ks_review_result_init(&res);
	cJSON_ArrayForEach(c, caps)
		if (cJSON_IsString(c) && ks_fs_exists(c->valuestring))
			ks_strv_push(&present, c->valuestring);
	if (!present.n) {
		ks_error(why, "none of its captures is here");
		goto out;
	}
	if (!source || ks_fs_read(source, &tu, &err)) {
		ks_error(why, "its source is not here");
		goto out;
	}
	rc = -1;
	/* The kernel's unqualified name: the demangled one up to '('. */
	{
		const char *d = ks_json_str(j, "demangled");
		const char *kernel = d ? d : e->kernel;
		const char *paren = strchr(kernel, '(');
		const char *start = kernel;
		const char *p;

		for (p = kernel; paren ? p < paren : *p; p++)
			if (*p == ':' || *p == ' ')
				start = p + 1;
		ks_buf_add(&name, start, (size_t)((paren ? paren : p) - start));
	}
	if (ks_rewrite_scan(tu.buf, tu.len, name.buf, &k, &err) ||
	    ks_rewrite_variant_split(text, &v, &err)) {
		ks_error(why, "%s", err.buf);
		goto out;
	}
	v.file = vfile;
	v.arch = e->arch;
	job.kernel = &k;
	job.variant = &v;
	job.args = ks_json_str(j, "instance");
	if (ks_rewrite(tu.buf, tu.len, source, &job, 1, &out, &err)) {
		ks_error(why, "%s", err.buf);
		goto out;
	}
	if (!mkdtemp(tmpl)) {
		ks_error_errno(why, "cannot create a temporary directory");
		goto out;
	}
	cand = ks_fs_join(tmpl, ks_basename(source));
	if (ks_fs_write_atomic(cand, out.buf, out.len, why))
		goto out_tmp;
	ks_review_request_init(&rq);
	rq.conf = conf;
	rq.captures = (const char *const *)present.v;
	rq.ncaptures = present.n;
	rq.candidate = cand;
	if (ks_review_run(&rq, &res, why))
		goto out_tmp;
	if (res.verdict == KS_REVIEW_CORRECT) {
		rc = 0;
	} else {
		ks_error(why, "%s: %s", ks_review_verdict_name(res.verdict),
			 res.why ? res.why : "no reason given");
		rc = res.verdict == KS_REVIEW_ERROR ? -1 : 1;
	}
out_tmp:
	ks_fs_remove_tree(tmpl, NULL);
out:
	ks_review_result_release(&res);
	ks_rewrite_kernel_release(&k);
	cJSON_Delete(j);
	ks_strv_release(&present);
	ks_buf_release(&tu);
	ks_buf_release(&out);
	ks_buf_release(&err);
	ks_buf_release(&name);
	free(text);
	free(vfile);
	free(cand);
	return rc;
}

static int
cmd_verify(const struct ks_conf *conf, int gpu)
{
	struct ks_strv dirs = KS_STRV_INIT;
	struct ks_buf err = KS_BUF_INIT;
	size_t d, i, good = 0, bad = 0, skipped = 0;

	cache_dirs(conf, &dirs);
	for (d = 0; d < dirs.n; d++) {
		struct ks_store_item *items;
		size_t n;

		if (ks_store_list(dirs.v[d], &items, &n, &err))
			return fail(&err);
		for (i = 0; i < n; i++) {
			struct ks_buf why = KS_BUF_INIT;
			const char *dir1[1] = { dirs.v[d] };
			struct ks_store_entry e = { 0 };

			if (ks_store_check(dirs.v[d], items[i].key, &why)) {
				printf("%s  corrupt: %s\n", items[i].key, why.buf);
				bad++;
			} else if (!gpu) {
				good++;
			} else if (ks_store_get(dir1, 1, items[i].key, &e, NULL,
						&why) == 1) {
				int r = verify_gpu(conf, &e, &why);

				if (r == 0) {
					printf("%s  verified again on the GPU\n",
					       items[i].key);
					good++;
				} else if (r == 2) {
					printf("%s  not re-verified: %s\n",
					       items[i].key, why.buf);
					skipped++;
					good++;
				} else {
					printf("%s  %s: %s\n", items[i].key,
					       r > 0 ? "REJECTED" : "error", why.buf);
					bad++;
				}
			}
			ks_store_entry_release(&e);
			ks_buf_release(&why);
		}
		ks_store_items_release(items, n);
	}
	printf("%zu good, %zu bad", good, bad);
	if (gpu)
		printf(", %zu not re-verified", skipped);
	printf("\n");
	ks_strv_release(&dirs);
	ks_buf_release(&err);
	return bad ? KS_EXIT_FAILED : 0;
}

static int
cmd_rm(const struct ks_conf *conf, int argc, char **argv)
{
	struct ks_buf err = KS_BUF_INIT;
	char *primary = ks_fs_join(conf->dir, "cache");
	int i, rc = 0;

	for (i = 0; i < argc; i++) {
		ks_buf_reset(&err);
		if (ks_store_remove(primary, argv[i], &err))
			rc = fail(&err);
	}
	free(primary);
	ks_buf_release(&err);
	return rc;
}

static int
cmd_clear(const struct ks_conf *conf)
{
	struct ks_buf err = KS_BUF_INIT;
	struct ks_store_item *items;
	char *primary = ks_fs_join(conf->dir, "cache");
	size_t n, i, removed = 0;
	int rc = 0;

	if (ks_store_list(primary, &items, &n, &err)) {
		rc = fail(&err);
	} else {
		for (i = 0; i < n; i++) {
			ks_buf_reset(&err);
			if (ks_store_remove(primary, items[i].key, &err))
				rc = fail(&err);
			else
				removed++;
		}
		ks_store_items_release(items, n);
		printf("%zu entr%s removed\n", removed, removed == 1 ? "y" : "ies");
	}
	free(primary);
	ks_buf_release(&err);
	return rc;
}

/*
 * Copy every entry of `from` that passes the read checks into `to`. The
 * first entry that cannot be written ends the copy: the next ones would
 * fail the same way.
 */
static int
copy_entries(const char *from, const char *to, const char *what)
{
	struct ks_buf err = KS_BUF_INIT;
	struct ks_store_item *items;
	size_t n, i, copied = 0, skipped = 0;
	int rc = 0;

	if (ks_fs_mkdirs(to, &err) || ks_store_list(from, &items, &n, &err)) {
		rc = fail(&err);
		ks_buf_release(&err);
		return rc;
	}
	for (i = 0; i < n && !rc; i++) {
		const char *dirs[1] = { from };
		struct ks_store_entry e = { 0 };
		unsigned corrupt = 0;

		ks_buf_reset(&err);
		if (ks_store_get(dirs, 1, items[i].key, &e, &corrupt, &err) != 1) {
			fprintf(stderr, "ks: warning: %s: not %s (it fails its "
				"checks)\n", items[i].key, what);
			skipped++;
		} else if (ks_store_put_raw(to, items[i].key, e.json, e.variant,
					    e.len, &err)) {
			rc = fail(&err);
		} else {
			copied++;
		}
		ks_store_entry_release(&e);
	}
	ks_store_items_release(items, n);
	printf("%zu entr%s %s, %zu skipped\n", copied, copied == 1 ? "y" : "ies",
	       what, skipped);
	ks_buf_release(&err);
	return rc;
}

/* An import obeys the size limit as the loop's own puts do. */
static int
trim_primary(const struct ks_conf *conf, const char *primary)
{
	struct ks_buf err = KS_BUF_INIT;
	long long max = 0;
	size_t removed = 0;
	int rc = 0;

	if (ks_store_parse_size(conf->cache_max_size, &max) || max <= 0)
		return 0;
	if (ks_store_trim(primary, max, NULL, &removed, &err))
		rc = fail(&err);
	else if (removed)
		printf("%zu least recently used entr%s removed to stay under %s\n",
		       removed, removed == 1 ? "y" : "ies", conf->cache_max_size);
	ks_buf_release(&err);
	return rc;
}

int
ks_cmd_cache(int argc, char **argv, struct ks_conf *conf)
{
	const char *sub = argc > 1 ? argv[1] : NULL;
	char *primary;
	int rc;

	if (!sub) {
		fputs(USAGE, stderr);
		return KS_EXIT_USAGE;
	}
	if (!strcmp(sub, "list") && (argc == 2 || (argc == 3 && !strcmp(argv[2], "--json"))))
		return cmd_list(conf, argc == 3);
	if (!strcmp(sub, "stats") && argc == 2)
		return cmd_stats(conf);
	if (!strcmp(sub, "show") && argc == 3)
		return cmd_show(conf, argv[2]);
	if (!strcmp(sub, "verify") && (argc == 2 || (argc == 3 && !strcmp(argv[2], "--gpu"))))
		return cmd_verify(conf, argc == 3);
	if (!strcmp(sub, "rm") && argc >= 3)
		return cmd_rm(conf, argc - 2, argv + 2);
	if (!strcmp(sub, "clear") && argc == 2)
		return cmd_clear(conf);
	if ((!strcmp(sub, "export") || !strcmp(sub, "import")) && argc == 3) {
		struct stat st;

		/* A mistyped import path must not pass for an empty cache. */
		if (!strcmp(sub, "import") &&
		    (stat(argv[2], &st) || !S_ISDIR(st.st_mode))) {
			fprintf(stderr, "ks: error: no cache directory at '%s'\n", argv[2]);
			return KS_EXIT_FAILED;
		}
		primary = ks_fs_join(conf->dir, "cache");
		rc = !strcmp(sub, "export") ? copy_entries(primary, argv[2], "exported")
					    : copy_entries(argv[2], primary, "imported");
		if (!rc && !strcmp(sub, "import"))
			rc = trim_primary(conf, primary);
		free(primary);
		return rc;
	}
	fputs(USAGE, stderr);
	return KS_EXIT_USAGE;
}
