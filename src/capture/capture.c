/*
 * The capture format: writer and pure helpers. No JSON library here (see
 * capture.h); the reader is capture_read.c.
 */
#include "capture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/buf.h"
#include "../core/fs.h"
#include "../core/hash.h"
#include "../core/strv.h"
#include "../core/util.h"

static const char *const mem_names[] = {
	[KS_MEM_DEVICE] = "device",
	[KS_MEM_MANAGED] = "managed",
	[KS_MEM_GLOBAL] = "global",
	[KS_MEM_POOL] = "pool",
	[KS_MEM_HOST] = "host",
};

void
ks_capture_release(struct ks_capture *c)
{
	size_t i;

	free(c->kernel);
	free(c->demangled);
	free(c->api);
	free(c->param_bytes);
	for (i = 0; i < c->nparams; i++) {
		free(c->params[i].type);
		free(c->params[i].ptrs);
	}
	free(c->params);
	for (i = 0; i < c->nbuffers; i++) {
		free(c->buffers[i].name);
		free(c->buffers[i].ptrs);
	}
	free(c->buffers);
	free(c->device);
	free(c->program);
	free(c->time);
	free(c->record);
	free(c->note);
	memset(c, 0, sizeof(*c));
}

void
ks_capture_note_add(struct ks_capture *c, const char *text)
{
	char *n = c->note ? ks_xasprintf("%s; %s", c->note, text) : ks_xstrdup(text);

	free(c->note);
	c->note = n;
}

static void
json_dim3(struct ks_buf *out, const char *key, const unsigned *d)
{
	ks_buf_addf(out, "\"%s\": [%u, %u, %u]", key, d[0], d[1], d[2]);
}

static void
json_ptrs(struct ks_buf *out, const struct ks_capture_ptr *ptrs, size_t n)
{
	size_t j;

	ks_buf_adds(out, "\"pointers\": [");
	for (j = 0; j < n; j++)
		ks_buf_addf(out, "%s{\"at\": %zu, \"buffer\": %zu, \"offset\": %llu}",
			    j ? ", " : "", ptrs[j].at, ptrs[j].buffer, ptrs[j].offset);
	ks_buf_adds(out, "]");
}

static void
json_param(struct ks_buf *out, const struct ks_capture_param *p)
{
	int pointer = p->size == 8 && p->nptrs == 1 && p->ptrs[0].at == 0;

	ks_buf_addf(out, "{\"offset\": %zu, \"size\": %zu, \"kind\": \"%s\", "
			 "\"type\": ",
		    p->offset, p->size, pointer ? "pointer" : "value");
	ks_buf_add_json_str_or_null(out, p->type);
	ks_buf_adds(out, ", ");
	json_ptrs(out, p->ptrs, p->nptrs);
	ks_buf_adds(out, "}");
}

static void
json_buffer(struct ks_buf *out, const struct ks_capture_buffer *b, size_t i)
{
	ks_buf_addf(out, "{\"id\": %zu, \"mem\": \"%s\", \"name\": ", i,
		    mem_names[b->mem]);
	ks_buf_add_json_str_or_null(out, b->name);
	ks_buf_addf(out, ", \"base\": \"0x%llx\", \"size\": %llu, "
			 "\"dtype\": \"%s\", \"written\": %s, "
			 "\"in\": \"b%zu.in\", \"out\": \"b%zu.out\"",
		    b->base, b->size, ks_dtype_name(b->dtype),
		    b->written < 0 ? "null" : b->written ? "true" : "false", i, i);
	if (b->nptrs) {
		ks_buf_adds(out, ", ");
		json_ptrs(out, b->ptrs, b->nptrs);
	}
	ks_buf_adds(out, "}");
}

void
ks_capture_format_json(const struct ks_capture *c, struct ks_buf *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	ks_buf_addf(out, "{\"format\": %d,\n \"kernel\": ", KS_CAPTURE_FORMAT);
	ks_buf_add_json_str_or_null(out, c->kernel);
	ks_buf_adds(out, ",\n \"demangled\": ");
	ks_buf_add_json_str_or_null(out, c->demangled);
	ks_buf_adds(out, ",\n \"api\": ");
	ks_buf_add_json_str_or_null(out, c->api);
	ks_buf_adds(out, ",\n ");
	json_dim3(out, "grid", c->grid);
	ks_buf_adds(out, ", ");
	json_dim3(out, "block", c->block);
	ks_buf_addf(out, ", \"shmem\": %u, \"cooperative\": %s, \"launch\": %lu,\n"
			 " \"device\": ",
		    c->shmem, c->cooperative ? "true" : "false", c->launch);
	ks_buf_add_json_str_or_null(out, c->device);
	ks_buf_addf(out, ", \"cc\": [%d, %d], \"cuda_version\": %d,\n \"program\": ",
		    c->cc_major, c->cc_minor, c->cuda_version);
	ks_buf_add_json_str_or_null(out, c->program);
	ks_buf_adds(out, ", \"time\": ");
	ks_buf_add_json_str_or_null(out, c->time);
	ks_buf_adds(out, ",\n \"record\": ");
	ks_buf_add_json_str_or_null(out, c->record);
	ks_buf_adds(out, ", \"note\": ");
	ks_buf_add_json_str_or_null(out, c->note);
	if (c->duration_ns)
		ks_buf_addf(out, ",\n \"duration_ns\": %llu", c->duration_ns);
	else
		ks_buf_adds(out, ",\n \"duration_ns\": null");
	ks_buf_addf(out, ",\n \"param_size\": %zu, \"param_bytes\": \"", c->param_size);
	for (i = 0; i < c->param_size; i++) {
		ks_buf_addch(out, hex[c->param_bytes[i] >> 4]);
		ks_buf_addch(out, hex[c->param_bytes[i] & 15]);
	}
	ks_buf_adds(out, "\",\n \"params\": [");
	for (i = 0; i < c->nparams; i++) {
		ks_buf_adds(out, i ? ",\n  " : "\n  ");
		json_param(out, &c->params[i]);
	}
	ks_buf_adds(out, "],\n \"buffers\": [");
	for (i = 0; i < c->nbuffers; i++) {
		ks_buf_adds(out, i ? ",\n  " : "\n  ");
		json_buffer(out, &c->buffers[i], i);
	}
	ks_buf_adds(out, "]}\n");
}

int
ks_capture_save(const char *dir, const struct ks_capture *c, struct ks_buf *err)
{
	struct ks_buf text = KS_BUF_INIT;
	char *path = ks_fs_join(dir, "launch.json");
	int rc;

	ks_capture_format_json(c, &text);
	rc = ks_fs_write_atomic(path, text.buf, text.len, err);
	ks_buf_release(&text);
	free(path);
	return rc;
}

char *
ks_capture_kernel_dir(const char *kernel)
{
	struct ks_buf b = KS_BUF_INIT;
	size_t n = strlen(kernel), i;
	char hex[17];

	for (i = 0; i < n && i < 100; i++) {
		char ch = kernel[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' ||
		      (ch == '.' && i > 0)))
			ch = '_';
		ks_buf_addch(&b, ch);
	}
	if (n > 100) {
		ks_hash_once_hex64(kernel, n, hex);
		ks_buf_addf(&b, "-%s", hex);
	}
	if (!b.len)
		ks_buf_adds(&b, "_");
	return ks_buf_detach(&b, NULL);
}

char *
ks_capture_buffer_path(const char *dir, size_t i, int out)
{
	return ks_xasprintf("%s/b%zu.%s", dir, i, out ? "out" : "in");
}

long
ks_capture_param_at(const struct ks_capture *c, size_t offset)
{
	size_t i;

	for (i = 0; i < c->nparams; i++)
		if (offset >= c->params[i].offset &&
		    offset < c->params[i].offset + c->params[i].size)
			return (long)i;
	return -1;
}

void
ks_capture_apply_types(struct ks_capture *c, const char *const *types, size_t n)
{
	size_t i;

	for (i = 0; i < c->nparams && i < n; i++) {
		free(c->params[i].type);
		c->params[i].type = types[i] ? ks_xstrdup(types[i]) : NULL;
	}
	for (i = 0; i < c->nbuffers; i++)
		if (c->buffers[i].mem != KS_MEM_GLOBAL)
			c->buffers[i].dtype = KS_DTYPE_BYTES;
	/* The first typed pointer parameter decides; a pointer inside a struct
	 * says nothing about its pointee. */
	for (i = 0; i < c->nparams; i++) {
		const struct ks_capture_param *p = &c->params[i];
		struct ks_capture_buffer *b;
		enum ks_dtype d;

		if (!p->type || p->size != 8 || p->nptrs != 1 || p->ptrs[0].at)
			continue;
		b = &c->buffers[p->ptrs[0].buffer];
		d = ks_dtype_of_pointer(p->type);
		if (b->dtype == KS_DTYPE_BYTES && d != KS_DTYPE_BYTES)
			b->dtype = d;
	}
	for (i = 0; i < c->nbuffers; i++) {
		struct ks_capture_buffer *b = &c->buffers[i];

		/* A dtype must tile the buffer, or it is compared bytewise. */
		if (b->size % ks_dtype_size(b->dtype))
			b->dtype = KS_DTYPE_BYTES;
	}
}

/* Index of the '(' matching the ')' at `close`, or -1. */
static long
matching_open(const char *s, long close)
{
	int depth = 0;
	long i;

	for (i = close; i >= 0; i--) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0)
			return i;
	}
	return -1;
}

char *
ks_capture_callable(const char *demangled)
{
	const char *anon = "(anonymous namespace)::";
	long end, open, i, start = 0;
	int depth = 0;
	struct ks_buf b = KS_BUF_INIT;

	if (!demangled || !*demangled)
		return NULL;
	end = (long)strlen(demangled) - 1;
	while (end >= 0 && demangled[end] == ' ')
		end--;
	if (end < 0 || demangled[end] != ')')
		return NULL;
	open = matching_open(demangled, end);
	if (open <= 0)
		return NULL;
	/* A template's demangled name starts with its return type: the name is
	 * what follows the last space outside <> and (). */
	for (i = 0; i < open; i++) {
		char ch = demangled[i];

		if (ch == '<' || ch == '(')
			depth++;
		else if ((ch == '>' || ch == ')') && depth > 0)
			depth--;
		else if (ch == ' ' && depth == 0)
			start = i + 1;
	}
	for (i = start; i < open;) {
		if (!strncmp(demangled + i, anon, strlen(anon))) {
			i += (long)strlen(anon);
			continue;
		}
		ks_buf_addch(&b, demangled[i]);
		i++;
	}
	ks_buf_rtrim(&b);
	if (!b.len) {
		ks_buf_release(&b);
		return NULL;
	}
	return ks_buf_detach(&b, NULL);
}

int
ks_capture_parse_launch(const char *s, unsigned long *launch, struct ks_buf *err)
{
	char *end;
	unsigned long v;

	if (!strcmp(s, "first")) {
		*launch = 1;
		return 0;
	}
	if (!strcmp(s, "all")) {
		*launch = 0;
		return 0;
	}
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v == 0 || *s == '-')
		return ks_error(err, "'%s' is not a launch: a number from 1, 'first' "
				"or 'all'", s);
	*launch = v;
	return 0;
}

int
ks_capture_parse_bytes(const char *s, unsigned long long *v, struct ks_buf *err)
{
	char *end;
	unsigned long long n, mul = 1;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (end != s && *end && !end[1]) {
		switch (*end) {
		case 'k': case 'K': mul = 1ull << 10; end++; break;
		case 'm': case 'M': mul = 1ull << 20; end++; break;
		case 'g': case 'G': mul = 1ull << 30; end++; break;
		default: break;
		}
	}
	if (errno || end == s || *end || *s == '-' || n > ~0ull / mul)
		return ks_error(err, "'%s' is not a byte count (digits, then K, M or G)",
				s);
	*v = n * mul;
	return 0;
}

int
ks_capture_policy_wants(const struct ks_capture_policy *p, unsigned long ordinal,
			unsigned long captured)
{
	if (captured >= p->max_launches)
		return 0;
	return p->launch == 0 || p->launch == ordinal;
}

void
ks_capture_parse_symbols(const char *text, struct ks_strv *out)
{
	const char *line = text;

	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line), b, e;
		char *name;

		b = strspn(line, " \t");
		if (len > b + 10 && !strncmp(line + b, "STT_OBJECT", 10)) {
			e = len;
			while (e > b && strchr(" \t\r", line[e - 1]))
				e--;
			b = e;
			while (b > 0 && !strchr(" \t", line[b - 1]))
				b--;
			name = ks_xstrndup(line + b, e - b);
			if (*name && *name != '$' && *name != '.' &&
			    strcmp(name, "STT_OBJECT") && ks_strv_find(out, name) < 0)
				ks_strv_push_owned(out, name);
			else
				free(name);
		}
		line += len + (nl ? 1 : 0);
	}
}

int
ks_capture_parse_launch_mode(const char *s, struct ks_capture_policy *p,
			     struct ks_buf *err)
{
	char *end;
	unsigned long n;

	if (!strncmp(s, "distinct", 8) && (!s[8] || s[8] == ':')) {
		n = 3;
		if (s[8]) {
			errno = 0;
			n = strtoul(s + 9, &end, 10);
			if (errno || end == s + 9 || *end || n == 0 || s[9] == '-')
				return ks_error(err, "'%s': distinct:N needs a number "
						"from 1", s);
		}
		p->distinct = n;
		p->launch = 0;
		return 0;
	}
	p->distinct = 0;
	return ks_capture_parse_launch(s, &p->launch, err);
}

/* FNV-1a, 64 bits: a pure, allocation-free key for a launch's shape. */
static unsigned long long
fnv(unsigned long long h, const void *data, size_t n)
{
	const unsigned char *b = data;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ull;
	}
	return h;
}

unsigned long long
ks_capture_launch_key(const struct ks_capture *c)
{
	unsigned long long h = 14695981039346656037ull;
	unsigned char *bytes = ks_xmalloc(c->param_size + 1);
	size_t i, j;

	h = fnv(h, c->grid, sizeof(c->grid));
	h = fnv(h, c->block, sizeof(c->block));
	h = fnv(h, &c->shmem, sizeof(c->shmem));
	memcpy(bytes, c->param_bytes, c->param_size);
	/* Where the buffers lie says nothing about the shape. */
	for (i = 0; i < c->nparams; i++) {
		const struct ks_capture_param *p = &c->params[i];

		for (j = 0; j < p->nptrs; j++)
			if (p->offset + p->ptrs[j].at + 8 <= c->param_size)
				memset(bytes + p->offset + p->ptrs[j].at, 0, 8);
	}
	h = fnv(h, &c->param_size, sizeof(c->param_size));
	h = fnv(h, bytes, c->param_size);
	free(bytes);
	return h;
}

int
ks_capture_policy_wants_key(const struct ks_capture_policy *p,
			    unsigned long captured, const unsigned long long *seen,
			    size_t nseen, unsigned long long key)
{
	size_t i;

	if (captured >= p->max_launches || nseen >= p->distinct)
		return 0;
	for (i = 0; i < nseen; i++)
		if (seen[i] == key)
			return 0;
	return 1;
}

long
ks_capture_policy_replace(const struct ks_capture_policy *p, unsigned long captured,
			  const unsigned long long *threads, size_t n,
			  unsigned long long t)
{
	size_t i, small = 0;
	unsigned long long big = 0;

	if (!p->distinct || n < p->distinct || !n || captured >= p->max_launches)
		return -1;
	for (i = 0; i < n; i++) {
		if (threads[i] > big)
			big = threads[i];
		if (threads[i] < threads[small])
			small = i;
	}
	if (t / KS_CAPTURE_GROW < big)
		return -1;
	return (long)small;
}

size_t
ks_capture_layout(const struct ks_capture *c, unsigned long long gap, size_t *group,
		  unsigned long long *offset, unsigned long long *gsize)
{
	size_t n = c->nbuffers, m = 0, i, j, nruns = 0, ng = 0;
	size_t *order = ks_xcalloc(n + 1, sizeof(*order));
	size_t *run = ks_xcalloc(n + 1, sizeof(*run));
	size_t *num = ks_xcalloc(n + 1, sizeof(*num));
	unsigned long long *lo = ks_xcalloc(n + 1, sizeof(*lo));
	unsigned long long *hi = ks_xcalloc(n + 1, sizeof(*hi));

	/* The buffers other than globals by base: an insertion sort (few
	 * buffers, and no state outside the call, which the threaded injection
	 * library needs). */
	for (i = 0; i < n; i++) {
		group[i] = (size_t)-1;
		offset[i] = 0;
		if (c->buffers[i].mem == KS_MEM_GLOBAL)
			continue;
		for (j = m; j > 0 && c->buffers[i].base < c->buffers[order[j - 1]].base; j--)
			order[j] = order[j - 1];
		order[j] = i;
		m++;
	}
	/* Runs of neighbors: each starts where the gap to the end so far is
	 * `gap` or more. */
	for (j = 0; j < m; j++) {
		const struct ks_capture_buffer *b = &c->buffers[order[j]];

		if (!nruns || (b->base >= hi[nruns - 1] && b->base - hi[nruns - 1] >= gap)) {
			lo[nruns] = b->base;
			hi[nruns] = b->base + b->size;
			num[nruns++] = (size_t)-1;
		} else if (b->base + b->size > hi[nruns - 1]) {
			hi[nruns - 1] = b->base + b->size;
		}
		run[order[j]] = nruns - 1;
	}
	/* Groups numbered by their first member in buffer order. */
	for (i = 0; i < n; i++) {
		size_t r = run[i];

		if (c->buffers[i].mem == KS_MEM_GLOBAL)
			continue;
		if (num[r] == (size_t)-1) {
			num[r] = ng;
			gsize[ng++] = hi[r] - lo[r];
		}
		group[i] = num[r];
		offset[i] = c->buffers[i].base - lo[r];
	}
	free(order);
	free(run);
	free(num);
	free(lo);
	free(hi);
	return ng;
}

static void
identity_ptrs(const struct ks_capture_ptr *p, size_t n, struct ks_hash *h)
{
	ks_hash_u64(h, n);
	for (size_t i = 0; i < n; i++) {
		ks_hash_u64(h, p[i].at);
		ks_hash_u64(h, p[i].buffer);
		ks_hash_u64(h, p[i].offset);
	}
}

void
ks_capture_identity(const struct ks_capture *c, struct ks_hash *h)
{
	size_t n = c->nbuffers, i, j;
	size_t *group = ks_xcalloc(n + 1, sizeof(*group));
	unsigned long long *offset = ks_xcalloc(n + 1, sizeof(*offset));
	unsigned long long *gsize = ks_xcalloc(n + 1, sizeof(*gsize));
	unsigned char *bytes = ks_xcalloc(c->param_size + 1, 1);

	ks_hash_str(h, c->kernel);
	for (i = 0; i < 3; i++) {
		ks_hash_u64(h, c->grid[i]);
		ks_hash_u64(h, c->block[i]);
	}
	ks_hash_u64(h, c->shmem);
	ks_hash_u64(h, (uint64_t)c->cooperative);
	/* the device too: a trajectory's times are that GPU's */
	ks_hash_str(h, c->device);
	ks_hash_u64(h, (uint64_t)c->cc_major);
	ks_hash_u64(h, (uint64_t)c->cc_minor);
	/* A pointer's bytes are an address of that run: zeroed here, its
	 * buffer and offset hashed with the parameter. */
	if (c->param_size)
		memcpy(bytes, c->param_bytes, c->param_size);
	ks_hash_u64(h, c->nparams);
	for (i = 0; i < c->nparams; i++) {
		const struct ks_capture_param *p = &c->params[i];

		ks_hash_u64(h, p->offset);
		ks_hash_u64(h, p->size);
		ks_hash_str(h, p->type);
		identity_ptrs(p->ptrs, p->nptrs, h);
		for (j = 0; j < p->nptrs; j++) {
			size_t at = p->offset + p->ptrs[j].at;

			if (at < c->param_size)
				memset(bytes + at, 0, c->param_size - at < 8 ? c->param_size - at : 8);
		}
	}
	ks_hash_u64(h, c->param_size);
	ks_hash_bytes(h, bytes, c->param_size);
	ks_capture_layout(c, KS_CAPTURE_LAYOUT_GAP, group, offset, gsize);
	ks_hash_u64(h, n);
	for (i = 0; i < n; i++) {
		const struct ks_capture_buffer *b = &c->buffers[i];

		ks_hash_u64(h, (uint64_t)b->mem);
		ks_hash_str(h, b->name);
		ks_hash_u64(h, b->size);
		ks_hash_u64(h, (uint64_t)b->dtype);
		ks_hash_u64(h, (uint64_t)(long long)b->written);
		ks_hash_u64(h, group[i]);
		ks_hash_u64(h, offset[i]);
		identity_ptrs(b->ptrs, b->nptrs, h);
	}
	free(group);
	free(offset);
	free(gsize);
	free(bytes);
}

long
ks_capture_buffer_at(const struct ks_capture *c, unsigned long long v,
		     unsigned long long slack)
{
	size_t i;
	long best = -1;

	/* Of several (an end pointer in one's padding is also within the
	 * slack of the one before), the one with the highest base. */
	for (i = 0; i < c->nbuffers; i++) {
		const struct ks_capture_buffer *b = &c->buffers[i];

		if (v >= b->base && v - b->base <= b->size + slack &&
		    (best < 0 || b->base > c->buffers[best].base))
			best = (long)i;
	}
	return best;
}

void
ks_capture_relocate(const struct ks_capture *c, size_t i, unsigned char *data,
		    const unsigned long long *bases)
{
	const struct ks_capture_buffer *b = &c->buffers[i];
	size_t j;

	for (j = 0; j < b->nptrs; j++) {
		const struct ks_capture_ptr *q = &b->ptrs[j];
		unsigned long long v;

		if (q->buffer >= c->nbuffers || !bases[q->buffer] ||
		    q->at + 8 > b->size)
			continue;
		v = bases[q->buffer] + q->offset;
		memcpy(data + q->at, &v, 8);
	}
}

unsigned long long
ks_capture_auto_limit(unsigned long long host_bytes, unsigned long long dev_free)
{
	unsigned long long limit = ~0ull;

	if (host_bytes)
		limit = host_bytes / 4;
	if (dev_free && dev_free / 10 * 9 < limit)
		limit = dev_free / 10 * 9;
	if (limit == ~0ull)
		limit = 1ull << 30;	/* nothing known: the old fixed default */
	limit &= ~((1ull << 20) - 1);
	if (limit < (64ull << 20))
		limit = 64ull << 20;
	return limit;
}

unsigned long long
ks_capture_host_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || size <= 0)
		return 0;
	return (unsigned long long)pages * (unsigned long long)size;
}

void
ks_capture_describe_auto(struct ks_buf *out)
{
	unsigned long long host = ks_capture_host_memory();

	ks_buf_addf(out, "capture_max_bytes (auto) = at most %llu MiB here (1/4 of %llu "
			 "MiB of host memory) and 9/10 of the free device memory at "
			 "each launch\n", ks_capture_auto_limit(host, 0) >> 20,
		    host >> 20);
}
