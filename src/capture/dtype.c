#include "dtype.h"

#include <ctype.h>
#include <string.h>

static const char *const names[KS_DTYPE_N] = {
	[KS_DTYPE_BYTES] = "bytes", [KS_DTYPE_INT] = "int",
	[KS_DTYPE_F64] = "f64",     [KS_DTYPE_F32] = "f32",
	[KS_DTYPE_F16] = "f16",     [KS_DTYPE_BF16] = "bf16",
};

static const size_t sizes[KS_DTYPE_N] = {
	[KS_DTYPE_BYTES] = 1, [KS_DTYPE_INT] = 1, [KS_DTYPE_F64] = 8,
	[KS_DTYPE_F32] = 4,   [KS_DTYPE_F16] = 2, [KS_DTYPE_BF16] = 2,
};

/* Base type names as the CUDA headers and C++ spell them. Vector types
 * (float4, __half2) have the dtype of their components. */
static const struct spelling {
	const char *word;
	enum ks_dtype dtype;
} spellings[] = {
	{ "double", KS_DTYPE_F64 },	  { "double1", KS_DTYPE_F64 },
	{ "double2", KS_DTYPE_F64 },	  { "double3", KS_DTYPE_F64 },
	{ "double4", KS_DTYPE_F64 },	  { "float", KS_DTYPE_F32 },
	{ "float1", KS_DTYPE_F32 },	  { "float2", KS_DTYPE_F32 },
	{ "float3", KS_DTYPE_F32 },	  { "float4", KS_DTYPE_F32 },
	{ "__half", KS_DTYPE_F16 },	  { "half", KS_DTYPE_F16 },
	{ "__half2", KS_DTYPE_F16 },	  { "half2", KS_DTYPE_F16 },
	{ "__nv_bfloat16", KS_DTYPE_BF16 }, { "nv_bfloat16", KS_DTYPE_BF16 },
	{ "__nv_bfloat162", KS_DTYPE_BF16 }, { "nv_bfloat162", KS_DTYPE_BF16 },
	{ "__bf16", KS_DTYPE_BF16 },
	{ "bool", KS_DTYPE_INT },	  { "char", KS_DTYPE_INT },
	{ "short", KS_DTYPE_INT },	  { "int", KS_DTYPE_INT },
	{ "long", KS_DTYPE_INT },	  { "signed", KS_DTYPE_INT },
	{ "unsigned", KS_DTYPE_INT },	  { "wchar_t", KS_DTYPE_INT },
	{ "size_t", KS_DTYPE_INT },	  { "ptrdiff_t", KS_DTYPE_INT },
	{ "int8_t", KS_DTYPE_INT },	  { "uint8_t", KS_DTYPE_INT },
	{ "int16_t", KS_DTYPE_INT },	  { "uint16_t", KS_DTYPE_INT },
	{ "int32_t", KS_DTYPE_INT },	  { "uint32_t", KS_DTYPE_INT },
	{ "int64_t", KS_DTYPE_INT },	  { "uint64_t", KS_DTYPE_INT },
	{ "char1", KS_DTYPE_INT },	  { "char2", KS_DTYPE_INT },
	{ "char4", KS_DTYPE_INT },	  { "uchar1", KS_DTYPE_INT },
	{ "uchar2", KS_DTYPE_INT },	  { "uchar4", KS_DTYPE_INT },
	{ "short2", KS_DTYPE_INT },	  { "short4", KS_DTYPE_INT },
	{ "ushort2", KS_DTYPE_INT },	  { "ushort4", KS_DTYPE_INT },
	{ "int2", KS_DTYPE_INT },	  { "int3", KS_DTYPE_INT },
	{ "int4", KS_DTYPE_INT },	  { "uint2", KS_DTYPE_INT },
	{ "uint3", KS_DTYPE_INT },	  { "uint4", KS_DTYPE_INT },
	{ "long2", KS_DTYPE_INT },	  { "ulong2", KS_DTYPE_INT },
	{ "longlong2", KS_DTYPE_INT },  { "ulonglong2", KS_DTYPE_INT },
};

/* Words that qualify a type without changing its element type. */
static const char *const qualifiers[] = {
	"const", "volatile", "__restrict__", "__restrict", "restrict",
};

const char *
ks_dtype_name(enum ks_dtype d)
{
	return (unsigned)d < KS_DTYPE_N ? names[d] : names[KS_DTYPE_BYTES];
}

enum ks_dtype
ks_dtype_parse(const char *name)
{
	int d;

	for (d = 0; name && d < KS_DTYPE_N; d++)
		if (!strcmp(names[d], name))
			return (enum ks_dtype)d;
	return KS_DTYPE_BYTES;
}

size_t
ks_dtype_size(enum ks_dtype d)
{
	return (unsigned)d < KS_DTYPE_N ? sizes[d] : 1;
}

int
ks_dtype_is_float(enum ks_dtype d)
{
	return d == KS_DTYPE_F64 || d == KS_DTYPE_F32 || d == KS_DTYPE_F16 ||
	       d == KS_DTYPE_BF16;
}

static int
is_qualifier(const char *w, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(qualifiers) / sizeof(qualifiers[0]); i++)
		if (strlen(qualifiers[i]) == n && !strncmp(qualifiers[i], w, n))
			return 1;
	return 0;
}

static enum ks_dtype
word_dtype(const char *w, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++)
		if (strlen(spellings[i].word) == n && !strncmp(spellings[i].word, w, n))
			return spellings[i].dtype;
	return KS_DTYPE_N;
}

/*
 * Scan the type spelled in s[0, len): every word other than a qualifier or
 * a namespace prefix (std::, ::) must be a known base type, and all of them
 * must agree ("unsigned long long" is int; "Foo" is not known). Returns the
 * dtype, KS_DTYPE_N when there is no type word at all (only qualifiers),
 * or -1 for anything else.
 */
static int
scan(const char *s, size_t len)
{
	enum ks_dtype d = KS_DTYPE_N, w;
	size_t i = 0, start;

	while (i < len) {
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) {
			if (s[i] != ' ' && s[i] != '\t' && s[i] != ':')
				return -1;
			i++;
			continue;
		}
		start = i;
		while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '_'))
			i++;
		if (i + 1 < len && s[i] == ':' && s[i + 1] == ':')
			continue;	/* a namespace: std::int32_t */
		if (is_qualifier(s + start, i - start))
			continue;
		w = word_dtype(s + start, i - start);
		if (w == KS_DTYPE_N || (d != KS_DTYPE_N && d != w))
			return -1;
		d = w;
	}
	return (int)d;
}

static enum ks_dtype
known(int d)
{
	return d < 0 || d == KS_DTYPE_N ? KS_DTYPE_BYTES : (enum ks_dtype)d;
}

enum ks_dtype
ks_dtype_of_pointer(const char *type)
{
	const char *star = type ? strrchr(type, '*') : NULL;

	if (!star)
		return KS_DTYPE_BYTES;
	/* After the last '*' only qualifiers may follow ("* __restrict__"). */
	if (scan(star + 1, strlen(star + 1)) != KS_DTYPE_N)
		return KS_DTYPE_BYTES;
	return known(scan(type, (size_t)(star - type)));
}

enum ks_dtype
ks_dtype_of_value(const char *type)
{
	if (!type)
		return KS_DTYPE_BYTES;
	return known(scan(type, strlen(type)));
}
