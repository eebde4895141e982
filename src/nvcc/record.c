#include "record.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/hash.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "args.h"
#include "onecmd.h"

static const char *
lang_name(enum ks_lang l)
{
	switch (l) {
	case KS_LANG_CU: return "cu";
	case KS_LANG_C: return "c";
	case KS_LANG_CXX: return "c++";
	default: return "other";
	}
}

/* An absolute path for `p` relative to `cwd`. */
static char *
absolute(const char *cwd, const char *p)
{
	return ks_fs_join(cwd, p);
}

static void
add_key(struct ks_buf *out, const char *key, int first)
{
	ks_buf_adds(out, first ? "\n  " : ",\n  ");
	ks_buf_add_json_str(out, key);
	ks_buf_adds(out, ": ");
}

static void
add_str(struct ks_buf *out, const char *key, const char *v)
{
	add_key(out, key, 0);
	ks_buf_add_json_str_or_null(out, v);
}

static void
add_strv(struct ks_buf *out, const char *key, const struct ks_strv *sv)
{
	size_t i;

	add_key(out, key, 0);
	ks_buf_addch(out, '[');
	for (i = 0; i < sv->n; i++) {
		if (i)
			ks_buf_adds(out, ", ");
		ks_buf_add_json_str(out, sv->v[i]);
	}
	ks_buf_addch(out, ']');
}

void
ks_record_format(const struct ks_args *a, const struct ks_record_info *ri,
		 struct ks_buf *out)
{
	char stamp[32];
	time_t t = (time_t)ri->time;
	struct tm tm;
	char *src = a->ninputs ? absolute(ri->cwd, a->inputs[0].path) : NULL;
	const char *out_as_given = ri->mode ? ri->output : a->output;
	const char *dep_as_given = ri->mode ? ri->depfile : a->depfile;
	char *obj = out_as_given ? absolute(ri->cwd, out_as_given) : NULL;
	char *dep = dep_as_given ? absolute(ri->cwd, dep_as_given) : NULL;
	const struct ks_strv *argv = ri->argv ? ri->argv : &a->argv;
	const struct ks_strv *cmd = ri->command_argv ? ri->command_argv : argv;
	long at = ri->command_argv ? ri->source_index :
		ks_onecmd_input_word((const char *const *)argv->v, argv->n, 0);
	size_t i;

	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
	ks_buf_addch(out, '{');
	add_key(out, "format", 1);
	ks_buf_addf(out, "%d", KS_RECORD_FORMAT);
	add_str(out, "time", stamp);
	add_str(out, "cwd", ri->cwd);
	add_str(out, "source", src);
	add_str(out, "language", a->ninputs ? lang_name(a->inputs[0].lang) : NULL);
	add_str(out, "output", obj);
	add_str(out, "depfile", dep);
	add_str(out, "nvcc", ri->nvcc);
	add_str(out, "nvcc_version", ri->nvcc_version);
	add_strv(out, "argv", argv);
	add_str(out, "prepend_flags", ri->prepend_flags);
	add_str(out, "append_flags", ri->append_flags);
	add_key(out, "relocatable", 0);
	ks_buf_adds(out, a->relocatable ? "true" : "false");
	add_key(out, "archs", 0);
	ks_buf_addch(out, '[');
	for (i = 0; i < a->narchs; i++) {
		ks_buf_adds(out, i ? ", {\"virtual\": " : "{\"virtual\": ");
		ks_buf_add_json_str(out, a->archs[i].virt);
		ks_buf_adds(out, ", \"real\": ");
		ks_buf_add_json_str(out, a->archs[i].real);
		ks_buf_addch(out, '}');
	}
	ks_buf_addch(out, ']');
	add_key(out, "arch_symbolic", 0);
	ks_buf_adds(out, a->arch_symbolic ? "true" : "false");
	add_strv(out, "device_flags", &a->devflags);
	add_strv(out, "includes", &a->includes);
	add_strv(out, "defines", &a->defines);
	add_str(out, "std", a->std);
	add_str(out, "ccbin", a->ccbin);
	add_str(out, "mode", ri->mode ? ri->mode : "compile");
	add_strv(out, "command_argv", cmd);
	add_key(out, "source_index", 0);
	ks_buf_addf(out, "%ld", at);
	ks_buf_adds(out, "\n}\n");
	free(src);
	free(obj);
	free(dep);
}

char *
ks_record_name(const struct ks_args *a, const char *cwd)
{
	return ks_record_name_for(a, cwd, NULL);
}

char *
ks_record_name_for(const struct ks_args *a, const char *cwd,
		   const char *output)
{
	struct ks_hash h = KS_HASH_INIT;
	char id[17];

	ks_hash_init(&h);
	ks_hash_str(&h, cwd);
	ks_hash_str(&h, a->ninputs ? a->inputs[0].path : NULL);
	ks_hash_str(&h, output ? output : a->output);
	ks_hash_hex64(&h, id);
	ks_hash_release(&h);
	return ks_xasprintf("%s.json", id);
}

int
ks_record_write(const char *dir, const struct ks_args *a,
		const struct ks_record_info *ri, struct ks_buf *err)
{
	struct ks_buf text = KS_BUF_INIT;
	char *name = ks_record_name_for(a, ri->cwd, ri->mode ? ri->output : NULL);
	char *path = ks_xasprintf("%s/builds/%s", dir, name);
	int rc;

	ks_record_format(a, ri, &text);
	rc = ks_fs_write_atomic(path, text.buf, text.len, err);
	ks_buf_release(&text);
	free(path);
	free(name);
	return rc;
}
