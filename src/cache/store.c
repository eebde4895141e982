#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../core/buf.h"
#include "../core/conf.h"
#include "../core/fs.h"
#include "../core/hash.h"
#include "../core/util.h"
#include "rewrite.h"

/* variant.json and variant.cu are small: anything bigger is not ours. */
#define STORE_MAX_FILE (16u << 20)
#define STORE_LOCK_MS 10000
#define JSON_MAX_DEPTH 64

void
ks_store_entry_release(struct ks_store_entry *e)
{
	free(e->dir);
	free(e->variant);
	free(e->json);
	free(e->kernel);
	memset(e, 0, sizeof(*e));
}

int
ks_store_key_valid(const char *key)
{
	size_t i;

	if (!key)
		return 0;
	for (i = 0; i < 32; i++)
		if (!((key[i] >= '0' && key[i] <= '9') ||
		      (key[i] >= 'a' && key[i] <= 'f')))
			return 0;
	return key[32] == '\0';
}

char *
ks_store_entry_path(const char *cache_dir, const char *key)
{
	return ks_xasprintf("%s/%.2s/%s", cache_dir, key, key);
}

void
ks_store_hash(const char *data, size_t len, char out[33])
{
	struct ks_hash h = KS_HASH_INIT;

	ks_hash_init(&h);
	ks_hash_bytes(&h, data, len);
	ks_hash_hex128(&h, out);
	ks_hash_release(&h);
}

/* --- a small JSON reader: enough for variant.json, libc only ------------- */

static const char *
json_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static int
hex4(const char *p, unsigned *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 4; i++) {
		char c = p[i];
		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

static void
add_utf8(struct ks_buf *out, unsigned cp)
{
	if (cp < 0x80) {
		ks_buf_addch(out, (int)cp);
	} else if (cp < 0x800) {
		ks_buf_addch(out, (int)(0xc0 | (cp >> 6)));
		ks_buf_addch(out, (int)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		ks_buf_addch(out, (int)(0xe0 | (cp >> 12)));
		ks_buf_addch(out, (int)(0x80 | ((cp >> 6) & 0x3f)));
		ks_buf_addch(out, (int)(0x80 | (cp & 0x3f)));
	} else {
		ks_buf_addch(out, (int)(0xf0 | (cp >> 18)));
		ks_buf_addch(out, (int)(0x80 | ((cp >> 12) & 0x3f)));
		ks_buf_addch(out, (int)(0x80 | ((cp >> 6) & 0x3f)));
		ks_buf_addch(out, (int)(0x80 | (cp & 0x3f)));
	}
}

/* A string at `p` (on its quote): the end, or NULL; decoded into `out`. */
static const char *
json_string(const char *p, struct ks_buf *out)
{
	if (*p++ != '"')
		return NULL;
	while (*p != '"') {
		unsigned cp, lo;

		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p != '\\') {
			if (out)
				ks_buf_addch(out, *p);
			p++;
			continue;
		}
		p++;
		switch (*p) {
		case '"': case '\\': case '/':
			cp = (unsigned char)*p;
			break;
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u':
			if (hex4(p + 1, &cp))
				return NULL;
			p += 4;
			if (cp >= 0xd800 && cp < 0xdc00) {
				if (p[1] != '\\' || p[2] != 'u' ||
				    hex4(p + 3, &lo) || lo < 0xdc00 || lo > 0xdfff)
					return NULL;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				p += 6;
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				return NULL;
			}
			break;
		default:
			return NULL;
		}
		if (out)
			add_utf8(out, cp);
		p++;
	}
	return p + 1;
}

static const char *
json_number(const char *p)
{
	const char *s;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return NULL;
	if (*p == '.') {
		s = ++p;
		while (*p >= '0' && *p <= '9')
			p++;
		if (p == s)
			return NULL;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		s = p;
		while (*p >= '0' && *p <= '9')
			p++;
		if (p == s)
			return NULL;
	}
	return p;
}

/* Past one value at `p` (whitespace before it skipped), or NULL. */
static const char *
json_skip(const char *p, int depth)
{
	p = json_ws(p);
	if (depth > JSON_MAX_DEPTH)
		return NULL;
	switch (*p) {
	case '"':
		return json_string(p, NULL);
	case '{':
	case '[': {
		char close = *p == '{' ? '}' : ']';

		p = json_ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				p = json_string(json_ws(p), NULL);
				if (!p || *(p = json_ws(p)) != ':')
					return NULL;
				p++;
			}
			p = json_skip(p, depth + 1);
			if (!p)
				return NULL;
			p = json_ws(p);
			if (*p == close)
				return p + 1;
			if (*p++ != ',')
				return NULL;
		}
	}
	case 't':
		return strncmp(p, "true", 4) ? NULL : p + 4;
	case 'f':
		return strncmp(p, "false", 5) ? NULL : p + 5;
	case 'n':
		return strncmp(p, "null", 4) ? NULL : p + 4;
	default:
		return json_number(p);
	}
}

int
ks_store_json_valid(const char *text)
{
	const char *p = json_skip(text, 0);

	return p && *json_ws(p) == '\0';
}

/*
 * The value of top-level member `key` of the object `text`: a pointer to
 * its first character, or NULL when absent or when `text` is no object.
 */
static const char *
json_member(const char *text, const char *key)
{
	struct ks_buf name = KS_BUF_INIT;
	const char *p = json_ws(text), *found = NULL;

	if (*p++ != '{')
		return NULL;
	p = json_ws(p);
	if (*p == '}')
		return NULL;
	for (;;) {
		ks_buf_reset(&name);
		p = json_string(json_ws(p), &name);
		if (!p || *(p = json_ws(p)) != ':')
			break;
		p = json_ws(p + 1);
		if (!strcmp(name.buf, key)) {
			found = p;
			break;
		}
		p = json_skip(p, 1);
		if (!p)
			break;
		p = json_ws(p);
		if (*p++ != ',')
			break;
	}
	ks_buf_release(&name);
	return found;
}

int
ks_store_json_str(const char *json, const char *key, struct ks_buf *out)
{
	const char *p = json_member(json, key);

	if (!p || *p != '"')
		return -1;
	return json_string(p, out) ? 0 : -1;
}

int
ks_store_json_num(const char *json, const char *key, double *v)
{
	const char *p = json_member(json, key), *end;
	char *e;

	if (!p || !(end = json_number(p)))
		return -1;
	*v = strtod(p, &e);
	return e == end ? 0 : -1;
}

/* --- writing --------------------------------------------------------------- */

static void
add_ms(struct ks_buf *b, const char *name, double v)
{
	if (isfinite(v))
		ks_buf_addf(b, ",\n  \"%s\": %.9g", name, v);
	else
		ks_buf_addf(b, ",\n  \"%s\": null", name);
}

static void
add_str(struct ks_buf *b, const char *name, const char *v)
{
	ks_buf_addf(b, ",\n  \"%s\": ", name);
	ks_buf_add_json_str_or_null(b, v);
}

int
ks_store_format_meta(const struct ks_store_meta *m, const char *hash,
		     size_t len, long long created, struct ks_buf *out,
		     struct ks_buf *err)
{
	size_t i;

	if (!ks_store_key_valid(m->key))
		return ks_error(err, "not a kernel key: '%s'",
				m->key ? m->key : "(none)");
	if (!m->kernel || !*m->kernel)
		return ks_error(err, "a variant needs its kernel's name");
	if (!m->arch)
		return ks_error(err, "a variant needs its verified arch");
	if (m->evidence && !ks_store_json_valid(m->evidence))
		return ks_error(err, "the verification evidence is not JSON");
	if (m->trail && !ks_store_json_valid(m->trail))
		return ks_error(err, "the skill trail is not JSON");
	ks_buf_addf(out, "{\n  \"format\": %d", KS_STORE_FORMAT);
	add_str(out, "kernel", m->kernel);
	add_str(out, "demangled", m->demangled);
	add_str(out, "instance", m->instance);
	add_str(out, "key", m->key);
	ks_buf_addf(out, ",\n  \"arch\": %u", m->arch);
	add_str(out, "source", m->source);
	add_ms(out, "orig_ms", m->orig_ms);
	add_ms(out, "orig_lo_ms", m->orig_lo_ms);
	add_ms(out, "orig_hi_ms", m->orig_hi_ms);
	add_ms(out, "variant_ms", m->var_ms);
	add_ms(out, "variant_lo_ms", m->var_lo_ms);
	add_ms(out, "variant_hi_ms", m->var_hi_ms);
	add_ms(out, "speedup", m->speedup);
	ks_buf_adds(out, ",\n  \"captures\": [");
	for (i = 0; i < m->ncaptures; i++) {
		ks_buf_adds(out, i ? ", " : "");
		ks_buf_add_json_str_or_null(out, m->captures[i]);
	}
	ks_buf_adds(out, "]");
	ks_buf_addf(out, ",\n  \"evidence\": %s",
		    m->evidence ? m->evidence : "null");
	ks_buf_addf(out, ",\n  \"trail\": %s", m->trail ? m->trail : "[]");
	ks_buf_addf(out, ",\n  \"rounds\": %u", m->rounds);
	add_str(out, "model", m->model ? m->model : "none");
	add_str(out, "ks_version", m->ks_version);
	ks_buf_addf(out, ",\n  \"created\": %lld", created);
	ks_buf_addf(out, ",\n  \"variant_bytes\": %zu", len);
	ks_buf_addf(out, ",\n  \"variant_xxh3_128\": \"%s\"\n}\n", hash);
	return 0;
}

static int
write_file_at(const char *dir, const char *name, const char *data, size_t len,
	      struct ks_buf *err)
{
	char *path = ks_fs_join(dir, name);
	FILE *f = fopen(path, "wbx");
	int rc = 0;

	if (!f) {
		rc = ks_error_errno(err, "cannot create '%s'", path);
	} else {
		if (fwrite(data, 1, len, f) != len)
			rc = ks_error_errno(err, "cannot write '%s'", path);
		if (fclose(f) && !rc)
			rc = ks_error_errno(err, "cannot write '%s'", path);
	}
	free(path);
	return rc;
}

/*
 * Put the two files in place as one: they are written into a fresh
 * directory beside the entry, which then takes the entry's name
 * (renameat2 RENAME_EXCHANGE swaps with an old entry in one step; where
 * the file system lacks it, the old entry moves aside first and readers
 * see a miss for that instant, never a mix of two entries).
 */
static int
install(const char *cache_dir, const char *key, const char *variant,
	size_t len, const char *json, size_t jlen, struct ks_buf *err)
{
	char *final = ks_store_entry_path(cache_dir, key);
	char *parent = ks_xasprintf("%s/%.2s", cache_dir, key);
	char *tmp = NULL, *old = NULL;
	struct ks_lock lock = KS_LOCK_INIT;
	static unsigned seq;
	int rc = -1;

	tmp = ks_xasprintf("%s.new.tmp.%ld.%u.%ld", final, (long)getpid(),
			   seq++, (long)time(NULL));
	/* Twice: a removal of the folder's last entry may rmdir it between
	 * our mkdirs and our mkdir. */
	if (ks_fs_mkdirs(parent, err))
		goto out;
	if (mkdir(tmp, 0777) && (errno != ENOENT || ks_fs_mkdirs(parent, err) ||
				 mkdir(tmp, 0777))) {
		ks_error_errno(err, "cannot create '%s'", tmp);
		goto out;
	}
	if (write_file_at(tmp, "variant.cu", variant, len, err) ||
	    write_file_at(tmp, "variant.json", json, jlen, err))
		goto out_tmp;
	if (ks_lock_acquire(&lock, final, STORE_LOCK_MS, err))
		goto out_tmp;
	if (!rename(tmp, final)) {
		rc = 0;
	} else if (errno == EEXIST || errno == ENOTEMPTY) {
		if (!renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_EXCHANGE)) {
			/* tmp now holds the old entry. */
			rc = 0;
		} else {
			old = ks_xasprintf("%s.old.tmp.%ld.%u.%ld", final,
					   (long)getpid(), seq++,
					   (long)time(NULL));
			if (rename(final, old) || rename(tmp, final))
				ks_error_errno(err, "cannot put '%s' in place",
					       final);
			else
				rc = 0;
		}
	} else {
		ks_error_errno(err, "cannot rename '%s' to '%s'", tmp, final);
	}
	ks_lock_release(&lock);
out_tmp:
	ks_fs_remove_tree(tmp, NULL);
	if (old)
		ks_fs_remove_tree(old, NULL);
out:
	free(final);
	free(parent);
	free(tmp);
	free(old);
	return rc;
}

int
ks_store_put(const char *cache_dir, const struct ks_store_meta *m,
	     const char *variant, size_t len, struct ks_buf *err)
{
	struct ks_buf json = KS_BUF_INIT, copy = KS_BUF_INIT;
	struct ks_rewrite_variant v = { 0 };
	char hash[33];
	int rc = -1;

	if (!ks_store_key_valid(m->key))
		return ks_error(err, "not a kernel key: '%s'",
				m->key ? m->key : "(none)");
	if (memchr(variant, '\0', len))
		return ks_error(err, "the variant of %s holds a NUL byte", m->kernel);
	ks_buf_add(&copy, variant, len);
	if (ks_rewrite_variant_split(copy.buf, &v, err)) {
		ks_error(err, "the variant of %s", m->kernel ? m->kernel : m->key);
		goto out;
	}
	ks_store_hash(variant, len, hash);
	if (ks_store_format_meta(m, hash, len, (long long)time(NULL), &json, err))
		goto out;
	if (install(cache_dir, m->key, variant, len, json.buf, json.len, err)) {
		ks_error(err, "in the cache %s", cache_dir);
		goto out;
	}
	rc = 0;
	ks_store_trim_setting(cache_dir, m->key);
out:
	ks_buf_release(&copy);
	ks_buf_release(&json);
	return rc;
}

int
ks_store_put_raw(const char *cache_dir, const char *key, const char *json,
		 const char *variant, size_t len, struct ks_buf *err)
{
	struct ks_buf why = KS_BUF_INIT, copy = KS_BUF_INIT;
	struct ks_rewrite_variant v = { 0 };
	int rc = -1;

	if (!ks_store_key_valid(key))
		return ks_error(err, "not a kernel key: '%s'", key ? key : "(none)");
	if (ks_store_check_text(key, json, variant, len, NULL, NULL, &why) ||
	    memchr(variant, '\0', len)) {
		ks_error(err, "entry %s: %s", key,
			 why.len ? why.buf : "variant.cu holds a NUL byte");
		goto out;
	}
	ks_buf_add(&copy, variant, len);
	if (ks_rewrite_variant_split(copy.buf, &v, err)) {
		ks_error(err, "entry %s", key);
		goto out;
	}
	if (install(cache_dir, key, variant, len, json, strlen(json), err)) {
		ks_error(err, "in the cache %s", cache_dir);
		goto out;
	}
	rc = 0;
out:
	ks_buf_release(&why);
	ks_buf_release(&copy);
	return rc;
}

/* --- reading --------------------------------------------------------------- */

/* Read `name` of the directory `dfd` whole into `out`: 0, or -1 (errno). */
static int
read_at(int dfd, const char *name, struct ks_buf *out)
{
	char chunk[8192];
	struct stat st;
	ssize_t n;
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > STORE_MAX_FILE) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		if (ks_buf_add(out, chunk, (size_t)n)) {
			close(fd);
			errno = EFBIG;
			return -1;
		}
	close(fd);
	return n < 0 ? -1 : 0;
}

int
ks_store_check_text(const char *key, const char *json, const char *variant,
		    size_t len, unsigned *arch, struct ks_buf *kernel,
		    struct ks_buf *why)
{
	struct ks_buf s = KS_BUF_INIT;
	double num = 0;
	char hash[33];
	int rc = -1;

	if (!ks_store_json_valid(json)) {
		ks_error(why, "variant.json is not JSON");
		goto out;
	}
	if (ks_store_json_num(json, "format", &num) || num != KS_STORE_FORMAT) {
		ks_error(why, "variant.json is not of format %d", KS_STORE_FORMAT);
		goto out;
	}
	if (ks_store_json_str(json, "key", &s) || (key && strcmp(s.buf, key))) {
		ks_error(why, "variant.json names another key");
		goto out;
	}
	ks_buf_reset(&s);
	if (ks_store_json_str(json, "variant_xxh3_128", &s) || s.len != 32) {
		ks_error(why, "variant.json records no hash of variant.cu");
		goto out;
	}
	ks_store_hash(variant, len, hash);
	if (strcmp(hash, s.buf)) {
		ks_error(why, "variant.cu does not match its recorded hash");
		goto out;
	}
	if (ks_store_json_num(json, "arch", &num) || num < 1 || num > 100000 ||
	    num != (unsigned)num) {
		ks_error(why, "variant.json records no arch");
		goto out;
	}
	if (arch)
		*arch = (unsigned)num;
	if (kernel && ks_store_json_str(json, "kernel", kernel)) {
		ks_error(why, "variant.json names no kernel");
		goto out;
	}
	rc = 0;
out:
	ks_buf_release(&s);
	return rc;
}

/*
 * Load the entry `key` of one cache: 1 and `e` filled; 0 when it is
 * absent; 2 when it is there but fails the checks (`why` says how).
 */
static int
load(const char *cache_dir, const char *key, struct ks_store_entry *e,
     struct ks_buf *why)
{
	struct ks_buf json = KS_BUF_INIT, var = KS_BUF_INIT, kernel = KS_BUF_INIT;
	char *dir = ks_store_entry_path(cache_dir, key);
	unsigned arch = 0;
	int dfd, rc;

	/* Both files through one directory handle: a writer swapping the
	 * entry meanwhile cannot give us its json with the old variant. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		rc = 0;
		goto out;
	}
	if (read_at(dfd, "variant.json", &json) || read_at(dfd, "variant.cu", &var)) {
		/* A swap that removed the old entry under us is a miss. */
		rc = errno == ENOENT ? 0 : 2;
		if (rc)
			ks_error(why, "cannot read the entry");
		close(dfd);
		goto out;
	}
	close(dfd);
	if (ks_store_check_text(key, json.buf, var.buf, var.len, &arch, &kernel,
				why)) {
		rc = 2;
		goto out;
	}
	if (memchr(var.buf, '\0', var.len)) {
		ks_error(why, "variant.cu holds a NUL byte");
		rc = 2;
		goto out;
	}
	e->dir = dir;
	dir = NULL;
	e->len = var.len;
	e->variant = ks_buf_detach(&var, NULL);
	e->json = ks_buf_detach(&json, NULL);
	e->kernel = ks_buf_detach(&kernel, NULL);
	e->arch = arch;
	rc = 1;
out:
	free(dir);
	ks_buf_release(&json);
	ks_buf_release(&var);
	ks_buf_release(&kernel);
	return rc;
}

int
ks_store_get(const char *const *dirs, size_t ndirs, const char *key,
	     struct ks_store_entry *e, unsigned *corrupt, struct ks_buf *err)
{
	size_t i;

	memset(e, 0, sizeof(*e));
	if (!ks_store_key_valid(key))
		return ks_error(err, "not a kernel key: '%s'", key ? key : "(none)");
	for (i = 0; i < ndirs; i++) {
		struct ks_buf why = KS_BUF_INIT;
		int rc;

		if (!dirs[i] || !*dirs[i])
			continue;
		rc = load(dirs[i], key, e, &why);
		if (rc == 1) {
			e->from = i;
			ks_buf_release(&why);
			return 1;
		}
		if (rc == 2 && corrupt)
			(*corrupt)++;
		ks_buf_release(&why);
	}
	return 0;
}

int
ks_store_check(const char *cache_dir, const char *key, struct ks_buf *why)
{
	struct ks_store_entry e = { 0 };
	int rc = load(cache_dir, key, &e, why);

	ks_store_entry_release(&e);
	if (rc == 0)
		ks_error(why, "no entry");
	return rc == 1 ? 0 : -1;
}

/* --- listing, removing, trimming ------------------------------------------ */

static long long
tree_bytes(const char *dir, long long *mtime)
{
	struct dirent *de;
	struct stat st;
	long long total = 0;
	DIR *d = opendir(dir);

	if (!stat(dir, &st) && mtime)
		*mtime = (long long)st.st_mtime;
	while (d && (de = readdir(d))) {
		char *p;

		if (de->d_name[0] == '.')
			continue;
		p = ks_fs_join(dir, de->d_name);
		if (!lstat(p, &st) && S_ISREG(st.st_mode))
			total += (long long)st.st_size;
		free(p);
	}
	if (d)
		closedir(d);
	return total;
}

static int
item_cmp(const void *a, const void *b)
{
	const struct ks_store_item *x = a, *y = b;

	return strcmp(x->key, y->key);
}

int
ks_store_list(const char *cache_dir, struct ks_store_item **items, size_t *n,
	      struct ks_buf *err)
{
	DIR *top = opendir(cache_dir);
	struct dirent *de;
	size_t alloc = 0;

	*items = NULL;
	*n = 0;
	if (!top) {
		if (errno == ENOENT)
			return 0;
		return ks_error_errno(err, "cannot read '%s'", cache_dir);
	}
	while ((de = readdir(top))) {
		char *sub;
		struct dirent *ke;
		DIR *d;

		if (strlen(de->d_name) != 2 || de->d_name[0] == '.')
			continue;
		sub = ks_fs_join(cache_dir, de->d_name);
		d = opendir(sub);
		while (d && (ke = readdir(d))) {
			struct ks_store_item *it;
			char *path;
			struct stat st;

			if (!ks_store_key_valid(ke->d_name) ||
			    strncmp(ke->d_name, de->d_name, 2))
				continue;
			path = ks_fs_join(sub, ke->d_name);
			if (lstat(path, &st) || !S_ISDIR(st.st_mode)) {
				free(path);
				continue;
			}
			if (*n == alloc) {
				alloc = alloc ? 2 * alloc : 16;
				*items = ks_xrealloc(*items, alloc * sizeof(**items));
			}
			it = &(*items)[(*n)++];
			memset(it, 0, sizeof(*it));
			memcpy(it->key, ke->d_name, 33);
			it->bytes = tree_bytes(path, &it->used);
			it->dir = path;
		}
		if (d)
			closedir(d);
		free(sub);
	}
	closedir(top);
	if (*n)
		qsort(*items, *n, sizeof(**items), item_cmp);
	return 0;
}

void
ks_store_items_release(struct ks_store_item *items, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(items[i].dir);
	free(items);
}

int
ks_store_remove(const char *cache_dir, const char *key, struct ks_buf *err)
{
	struct ks_lock lock = KS_LOCK_INIT;
	char *final, *gone;
	static unsigned seq;
	int rc = -1;

	if (!ks_store_key_valid(key))
		return ks_error(err, "not a kernel key: '%s'", key ? key : "(none)");
	final = ks_store_entry_path(cache_dir, key);
	gone = ks_xasprintf("%s.rm.tmp.%ld.%u.%ld", final, (long)getpid(), seq++,
			    (long)time(NULL));
	if (!ks_fs_exists(final)) {
		ks_error(err, "no entry %s", key);
		goto out;
	}
	if (ks_lock_acquire(&lock, final, STORE_LOCK_MS, err))
		goto out;
	/* Renamed away first, so a reader never sees half an entry. */
	if (rename(final, gone)) {
		if (errno == ENOENT)
			ks_error(err, "no entry %s", key);
		else
			ks_error_errno(err, "cannot remove '%s'", final);
	} else {
		rc = ks_fs_remove_tree(gone, err);
	}
	ks_lock_release(&lock);
	{
		char *lockp = ks_xasprintf("%s.lock", final);
		/* The lock file goes too; a racing writer that holds it just
		 * re-creates it on its next put. */
		if (!rc) {
			char *parent = ks_xasprintf("%s/%.2s", cache_dir, key);

			unlink(lockp);
			/* So that an emptied cache reads as empty (subst.h). */
			rmdir(parent);
			free(parent);
		}
		free(lockp);
	}
out:
	free(final);
	free(gone);
	return rc;
}

void
ks_store_touch(const struct ks_store_entry *e)
{
	if (e->dir)
		utimensat(AT_FDCWD, e->dir, NULL, 0);
}

static int
used_cmp(const void *a, const void *b)
{
	const struct ks_store_item *x = a, *y = b;

	if (x->used != y->used)
		return x->used < y->used ? -1 : 1;
	return strcmp(x->key, y->key);
}

int
ks_store_plan_trim(struct ks_store_item *items, size_t n, long long max_bytes,
		   const char *keep, size_t *nremove)
{
	long long total = 0, target;
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		total += items[i].bytes;
	*nremove = 0;
	if (max_bytes <= 0 || total <= max_bytes)
		return 0;
	/* Down to 90%, so that the next put does not trim again at once. */
	target = max_bytes - max_bytes / 10;
	qsort(items, n, sizeof(*items), used_cmp);
	for (i = 0; i < n && total > target; i++) {
		if (keep && !strcmp(items[i].key, keep)) {
			continue;
		}
		total -= items[i].bytes;
		if (k != i) {
			struct ks_store_item t = items[k];
			items[k] = items[i];
			items[i] = t;
		}
		k++;
	}
	*nremove = k;
	return 1;
}

int
ks_store_trim(const char *cache_dir, long long max_bytes, const char *keep,
	      size_t *removed, struct ks_buf *err)
{
	struct ks_store_item *items = NULL;
	struct ks_lock lock = KS_LOCK_INIT;
	struct ks_buf ignored = KS_BUF_INIT;
	char *lockp;
	size_t n = 0, nrm = 0, i;
	int rc = 0;

	if (removed)
		*removed = 0;
	if (max_bytes <= 0)
		return 0;
	lockp = ks_fs_join(cache_dir, "trim");
	/* One trimmer at a time; another one running does the work. */
	if (ks_lock_acquire(&lock, lockp, 0, &ignored)) {
		free(lockp);
		ks_buf_release(&ignored);
		return 0;
	}
	if (ks_store_list(cache_dir, &items, &n, err)) {
		rc = -1;
		goto out;
	}
	ks_store_plan_trim(items, n, max_bytes, keep, &nrm);
	for (i = 0; i < nrm; i++) {
		ks_buf_reset(&ignored);
		if (!ks_store_remove(cache_dir, items[i].key, &ignored) && removed)
			(*removed)++;
	}
out:
	ks_lock_release(&lock);
	ks_store_items_release(items, n);
	free(lockp);
	ks_buf_release(&ignored);
	return rc;
}

void
ks_store_trim_setting(const char *cache_dir, const char *keep)
{
	struct ks_conf conf;
	struct ks_buf err = KS_BUF_INIT;
	long long max = 0;

	ks_conf_init(&conf);
	/* A rejected value elsewhere leaves this one usable. */
	ks_conf_load(&conf, &err);
	if (!ks_store_parse_size(conf.cache_max_size, &max) && max > 0) {
		ks_buf_reset(&err);
		ks_store_trim(cache_dir, max, keep, NULL, &err);
	}
	ks_conf_release(&conf);
	ks_buf_release(&err);
}

int
ks_store_parse_size(const char *s, long long *bytes)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -1;
	switch (*end) {
	case '\0': break;
	case 'k': case 'K': v *= 1024.0, end++; break;
	case 'm': case 'M': v *= 1024.0 * 1024, end++; break;
	case 'g': case 'G': v *= 1024.0 * 1024 * 1024, end++; break;
	case 't': case 'T': v *= 1024.0 * 1024 * 1024 * 1024, end++; break;
	default: return -1;
	}
	if (*end || v > 9e18)
		return -1;
	*bytes = (long long)v;
	return 0;
}
