/*
 * ks builds: the compiles ks-nvcc recorded, newest first.
 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/conf.h"
#include "../core/fs.h"
#include "../core/util.h"
#include "ks.h"

struct rec {
	char *time, *source, *output, *archs;
	char *text;
};

static int
cmp_time(const void *a, const void *b)
{
	return strcmp(((const struct rec *)b)->time, ((const struct rec *)a)->time);
}

static char *
json_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return ks_xstrdup(cJSON_IsString(v) ? v->valuestring : "-");
}

cJSON *
ks_builds_parse(const struct ks_buf *text, struct ks_buf *err)
{
	cJSON *o;

	/* `ks builds --json` copies the text: it must be one JSON object. */
	if (strlen(text->buf) != text->len ||
	    !ks_utf8_valid(text->buf, text->len)) {
		ks_error(err, "not UTF-8 text");
		return NULL;
	}
	o = cJSON_ParseWithOpts(text->buf, NULL, 1);
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		ks_error(err, "not one JSON object");
		return NULL;
	}
	return o;
}

int
ks_cmd_builds(int argc, char **argv, struct ks_conf *conf)
{
	char *dir = ks_fs_join(conf->dir, "builds");
	int json = argc == 2 && !strcmp(argv[1], "--json");
	struct rec *recs = NULL;
	size_t n = 0, alloc = 0, i;
	struct dirent *de;
	DIR *d;

	if (argc > 1 && !json) {
		fprintf(stderr, "usage: ks builds [--json]\n");
		free(dir);
		return KS_EXIT_USAGE;
	}
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		struct ks_buf text = KS_BUF_INIT, err = KS_BUF_INIT;
		char *path;
		cJSON *o, *archs, *a;

		if (!ks_ends_with(de->d_name, ".json"))
			continue;
		path = ks_fs_join(dir, de->d_name);
		text.max = 1 << 20;
		o = ks_fs_read(path, &text, &err) ? NULL : ks_builds_parse(&text, &err);
		if (!o) {
			fprintf(stderr, "ks: warning: skipping unreadable record "
				"'%s': %s\n", path, err.buf);
		} else {
			struct ks_buf as = KS_BUF_INIT;

			if (n == alloc) {
				alloc = alloc ? 2 * alloc : 16;
				recs = ks_xrealloc(recs, alloc * sizeof(*recs));
			}
			recs[n].time = json_str(o, "time");
			recs[n].source = json_str(o, "source");
			recs[n].output = json_str(o, "output");
			archs = cJSON_GetObjectItemCaseSensitive(o, "archs");
			cJSON_ArrayForEach(a, archs) {
				const cJSON *r = cJSON_GetObjectItemCaseSensitive(a, "real");
				const cJSON *v = cJSON_GetObjectItemCaseSensitive(a, "virtual");
				const char *s = cJSON_IsString(r) && *r->valuestring
							? r->valuestring
							: cJSON_IsString(v) ? v->valuestring : "?";
				ks_buf_addf(&as, "%s%s", as.len ? "," : "", s);
			}
			recs[n].archs = ks_buf_detach(&as, NULL);
			recs[n].text = ks_buf_detach(&text, NULL);
			n++;
			cJSON_Delete(o);
		}
		ks_buf_release(&text);
		ks_buf_release(&err);
		free(path);
	}
	if (d)
		closedir(d);
	if (n)
		qsort(recs, n, sizeof(*recs), cmp_time);
	if (json)
		printf("[");
	for (i = 0; i < n; i++) {
		if (json)
			printf("%s%s", i ? "," : "", recs[i].text);
		else
			printf("%s  %-10s %s -> %s\n", recs[i].time, recs[i].archs,
			       recs[i].source, recs[i].output);
		free(recs[i].time);
		free(recs[i].source);
		free(recs[i].output);
		free(recs[i].archs);
		free(recs[i].text);
	}
	if (json)
		printf("]\n");
	free(recs);
	free(dir);
	return 0;
}
