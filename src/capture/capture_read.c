/*
 * The capture format: the reader (cJSON). Linked into ks and ks-replay,
 * never into libks-capture.so.
 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/json.h"
#include "../core/strv.h"
#include "../core/util.h"
#include "capture.h"

/* The most bytes of launch.json read: it lists parameters and buffers,
 * never their contents. */
#define KS_LAUNCH_JSON_MAX (64u << 20)

static const cJSON *
item(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* A non-negative integer below 2^53 (exact in a double). */
static int
get_uint(const cJSON *o, const char *key, unsigned long long *v,
	 struct ks_buf *err)
{
	const cJSON *x = item(o, key);

	if (!cJSON_IsNumber(x) || x->valuedouble < 0 ||
	    x->valuedouble > 9007199254740992.0 ||
	    x->valuedouble != (double)(unsigned long long)x->valuedouble)
		return ks_error(err, "'%s' is not a non-negative integer", key);
	*v = (unsigned long long)x->valuedouble;
	return 0;
}

static int
get_dim3(const cJSON *o, const char *key, unsigned *d, struct ks_buf *err)
{
	const cJSON *a = item(o, key), *x;
	int i = 0;

	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 3)
		return ks_error(err, "'%s' is not an array of 3 numbers", key);
	cJSON_ArrayForEach(x, a) {
		if (!cJSON_IsNumber(x) || x->valuedouble < 0 ||
		    x->valuedouble > 4294967295.0)
			return ks_error(err, "'%s' is not an array of 3 numbers", key);
		d[i++] = (unsigned)x->valuedouble;
	}
	return 0;
}

static int
hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* A "pointers" list of an object `size` bytes long. */
static int
parse_ptrs(const cJSON *o, struct ks_capture_ptr **out, size_t *n,
	   unsigned long long size, size_t nbuffers, struct ks_buf *err)
{
	unsigned long long v;
	const cJSON *ptrs = item(o, "pointers"), *x;
	size_t j = 0;

	if (ptrs && !cJSON_IsArray(ptrs))
		return ks_error(err, "'pointers' is not an array");
	*n = ptrs ? (size_t)cJSON_GetArraySize(ptrs) : 0;
	*out = ks_xcalloc(*n ? *n : 1, sizeof(**out));
	cJSON_ArrayForEach(x, ptrs) {
		struct ks_capture_ptr *q = &(*out)[j++];

		if (get_uint(x, "at", &v, err))
			return -1;
		q->at = (size_t)v;
		if (get_uint(x, "buffer", &v, err))
			return -1;
		q->buffer = (size_t)v;
		if (get_uint(x, "offset", &v, err))
			return -1;
		q->offset = v;
		if (q->buffer >= nbuffers)
			return ks_error(err, "pointer to buffer %zu of %zu", q->buffer,
					nbuffers);
		if (q->at + 8 > size)
			return ks_error(err, "pointer at %zu outside %llu bytes", q->at,
					size);
	}
	return 0;
}

static int
parse_param(const cJSON *o, struct ks_capture_param *p, size_t nbuffers,
	    struct ks_buf *err)
{
	unsigned long long v;

	if (get_uint(o, "offset", &v, err))
		return -1;
	p->offset = (size_t)v;
	if (get_uint(o, "size", &v, err))
		return -1;
	p->size = (size_t)v;
	p->type = ks_json_dup(o, "type");
	return parse_ptrs(o, &p->ptrs, &p->nptrs, p->size, nbuffers, err);
}

static int
parse_buffer(const cJSON *o, struct ks_capture_buffer *b, size_t nbuffers,
	     struct ks_buf *err)
{
	const cJSON *w = item(o, "written");
	char *mem = ks_json_dup(o, "mem"), *base = ks_json_dup(o, "base"), *dtype;
	unsigned long long v;
	char *end;
	int rc = -1;

	if (!mem || !strcmp(mem, "device"))
		b->mem = KS_MEM_DEVICE;
	else if (!strcmp(mem, "managed"))
		b->mem = KS_MEM_MANAGED;
	else if (!strcmp(mem, "global"))
		b->mem = KS_MEM_GLOBAL;
	else if (!strcmp(mem, "pool"))
		b->mem = KS_MEM_POOL;
	else if (!strcmp(mem, "host"))
		b->mem = KS_MEM_HOST;
	else {
		ks_error(err, "unknown memory kind '%s'", mem);
		goto out;
	}
	b->name = ks_json_dup(o, "name");
	if (!base || strncmp(base, "0x", 2)) {
		ks_error(err, "'base' is not a hexadecimal address");
		goto out;
	}
	errno = 0;
	b->base = strtoull(base + 2, &end, 16);
	if (errno || *end || end == base + 2) {
		ks_error(err, "'base' is not a hexadecimal address");
		goto out;
	}
	if (get_uint(o, "size", &v, err))
		goto out;
	b->size = v;
	dtype = ks_json_dup(o, "dtype");
	b->dtype = ks_dtype_parse(dtype);
	free(dtype);
	b->written = cJSON_IsBool(w) ? cJSON_IsTrue(w) : -1;
	if (parse_ptrs(o, &b->ptrs, &b->nptrs, b->size, nbuffers, err))
		goto out;
	rc = 0;
out:
	free(mem);
	free(base);
	return rc;
}

int
ks_capture_parse_json(const char *text, struct ks_capture *c, struct ks_buf *err)
{
	cJSON *o = cJSON_Parse(text);
	const cJSON *a, *x, *hex;
	unsigned long long v;
	size_t i;
	int rc = -1;

	memset(c, 0, sizeof(*c));
	if (!o)
		return ks_error(err, "launch.json is not JSON");
	if (!cJSON_IsNumber(item(o, "format")) ||
	    item(o, "format")->valueint != KS_CAPTURE_FORMAT) {
		ks_error(err, "launch.json is not capture format %d", KS_CAPTURE_FORMAT);
		goto out;
	}
	c->kernel = ks_json_dup(o, "kernel");
	if (!c->kernel || !*c->kernel) {
		ks_error(err, "launch.json names no kernel");
		goto out;
	}
	c->demangled = ks_json_dup(o, "demangled");
	c->api = ks_json_dup(o, "api");
	c->device = ks_json_dup(o, "device");
	c->program = ks_json_dup(o, "program");
	c->time = ks_json_dup(o, "time");
	c->record = ks_json_dup(o, "record");
	c->note = ks_json_dup(o, "note");
	if (get_dim3(o, "grid", c->grid, err) || get_dim3(o, "block", c->block, err))
		goto out;
	if (get_uint(o, "shmem", &v, err))
		goto out;
	c->shmem = (unsigned)v;
	c->cooperative = cJSON_IsTrue(item(o, "cooperative"));
	if (get_uint(o, "launch", &v, err))
		goto out;
	c->launch = (unsigned long)v;
	a = item(o, "cc");
	if (cJSON_IsArray(a) && cJSON_GetArraySize(a) == 2) {
		c->cc_major = cJSON_GetArrayItem(a, 0)->valueint;
		c->cc_minor = cJSON_GetArrayItem(a, 1)->valueint;
	}
	if (cJSON_IsNumber(item(o, "cuda_version")))
		c->cuda_version = item(o, "cuda_version")->valueint;
	/* Older captures have none; null: not measured. */
	if (cJSON_IsNumber(item(o, "duration_ns")) &&
	    get_uint(o, "duration_ns", &c->duration_ns, err))
		goto out;

	hex = item(o, "param_bytes");
	if (get_uint(o, "param_size", &v, err))
		goto out;
	c->param_size = (size_t)v;
	if (!cJSON_IsString(hex) || strlen(hex->valuestring) != 2 * c->param_size) {
		ks_error(err, "'param_bytes' does not hold param_size bytes");
		goto out;
	}
	c->param_bytes = ks_xmalloc(c->param_size ? c->param_size : 1);
	for (i = 0; i < c->param_size; i++) {
		int hi = hexval(hex->valuestring[2 * i]);
		int lo = hexval(hex->valuestring[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			ks_error(err, "'param_bytes' is not hexadecimal");
			goto out;
		}
		c->param_bytes[i] = (unsigned char)(hi << 4 | lo);
	}

	a = item(o, "buffers");
	if (!cJSON_IsArray(a)) {
		ks_error(err, "'buffers' is not an array");
		goto out;
	}
	c->nbuffers = (size_t)cJSON_GetArraySize(a);
	c->buffers = ks_xcalloc(c->nbuffers ? c->nbuffers : 1, sizeof(*c->buffers));
	i = 0;
	cJSON_ArrayForEach(x, a) {
		if (parse_buffer(x, &c->buffers[i++], c->nbuffers, err)) {
			ks_error(err, "in buffer %zu", i - 1);
			goto out;
		}
	}

	a = item(o, "params");
	if (!cJSON_IsArray(a)) {
		ks_error(err, "'params' is not an array");
		goto out;
	}
	c->nparams = (size_t)cJSON_GetArraySize(a);
	c->params = ks_xcalloc(c->nparams ? c->nparams : 1, sizeof(*c->params));
	i = 0;
	cJSON_ArrayForEach(x, a) {
		struct ks_capture_param *p = &c->params[i++];

		if (parse_param(x, p, c->nbuffers, err)) {
			ks_error(err, "in parameter %zu", i - 1);
			goto out;
		}
		if (p->offset + p->size > c->param_size) {
			ks_error(err, "parameter %zu lies outside the parameter buffer",
				 i - 1);
			goto out;
		}
	}
	rc = 0;
out:
	cJSON_Delete(o);
	if (rc)
		ks_capture_release(c);
	return rc;
}

int
ks_capture_load(const char *dir, struct ks_capture *c, struct ks_buf *err)
{
	struct ks_buf text = KS_BUF_INIT;
	char *path = ks_fs_join(dir, "launch.json");
	int rc;

	memset(c, 0, sizeof(*c));
	text.max = KS_LAUNCH_JSON_MAX;
	rc = ks_fs_read(path, &text, err);
	if (!rc && ks_capture_parse_json(text.buf, c, err)) {
		ks_error(err, "in %s", path);
		rc = -1;
	}
	ks_buf_release(&text);
	free(path);
	return rc;
}

void *
ks_capture_read_buffer(const char *dir, const struct ks_capture *c, size_t i,
		       int out, struct ks_buf *err)
{
	char *path = ks_capture_buffer_path(dir, i, out);
	unsigned long long size = c->buffers[i].size;
	unsigned char *data = NULL;
	FILE *f = fopen(path, "rb");
	int ch;

	if (!f) {
		ks_error_errno(err, "cannot open '%s'", path);
		goto out;
	}
	data = ks_xmalloc(size ? (size_t)size : 1);
	if (fread(data, 1, (size_t)size, f) != size || (ch = fgetc(f)) != EOF) {
		ks_error(err, "'%s' does not hold %llu bytes", path, size);
		free(data);
		data = NULL;
	}
	fclose(f);
out:
	free(path);
	return data;
}

char *
ks_capture_find(const char *ks_dir, const char *arg)
{
	char *p = ks_fs_join(arg, "launch.json"), *base, *kdir, *best = NULL;
	unsigned long best_n = 0;
	struct dirent *de;
	DIR *d;

	if (ks_fs_exists(p)) {
		free(p);
		return ks_fs_realpath(arg);
	}
	free(p);
	base = ks_fs_join(ks_dir, "captures");
	kdir = ks_fs_join(base, arg);
	p = ks_fs_join(kdir, "launch.json");
	if (ks_fs_exists(p)) {
		free(base);
		free(p);
		return kdir;
	}
	free(p);
	d = opendir(kdir);
	while (d && (de = readdir(d))) {
		char *end;
		unsigned long n = strtoul(de->d_name, &end, 10);

		if (*end || end == de->d_name || n <= best_n)
			continue;
		free(best);
		best = ks_fs_join(kdir, de->d_name);
		best_n = n;
	}
	if (d)
		closedir(d);
	free(base);
	free(kdir);
	return best;
}

/* The numbered captures under `kdir`, oldest (lowest number) first. */
static size_t
numbered(const char *kdir, struct ks_strv *out)
{
	unsigned long *nums = NULL;
	size_t n = 0, i, j;
	struct dirent *de;
	DIR *d = opendir(kdir);

	while (d && (de = readdir(d))) {
		char *end, *lj;
		unsigned long v = strtoul(de->d_name, &end, 10);
		int done;

		if (*end || end == de->d_name || de->d_name[0] == '-')
			continue;
		/* Without launch.json a capture is unfinished. */
		lj = ks_xasprintf("%s/%s/launch.json", kdir, de->d_name);
		done = ks_fs_exists(lj);
		free(lj);
		if (!done)
			continue;
		nums = ks_xrealloc(nums, (n + 1) * sizeof(*nums));
		for (j = n; j > 0 && nums[j - 1] > v; j--)
			nums[j] = nums[j - 1];
		nums[j] = v;
		n++;
	}
	if (d)
		closedir(d);
	for (i = 0; i < n; i++)
		ks_strv_push_owned(out, ks_xasprintf("%s/%lu", kdir, nums[i]));
	free(nums);
	return n;
}

size_t
ks_capture_find_all(const char *ks_dir, const char *arg, struct ks_strv *out)
{
	char *p = ks_fs_join(arg, "launch.json"), *base, *kdir, *name;
	size_t n = 0;

	if (ks_fs_exists(p)) {
		free(p);
		p = ks_fs_realpath(arg);
		if (p)
			ks_strv_push_owned(out, p);
		return p ? 1 : 0;
	}
	free(p);
	base = ks_fs_join(ks_dir, "captures");
	kdir = ks_fs_join(base, arg);
	p = ks_fs_join(kdir, "launch.json");
	if (ks_fs_exists(p)) {
		ks_strv_push_owned(out, kdir);
		kdir = NULL;
		n = 1;
	} else {
		n = numbered(kdir, out);
		if (!n && !strchr(arg, '/')) {
			/* A mangled name: its directory name under captures/. */
			name = ks_capture_kernel_dir(arg);
			free(kdir);
			kdir = ks_fs_join(base, name);
			free(name);
			n = numbered(kdir, out);
		}
	}
	free(p);
	free(kdir);
	free(base);
	return n;
}
