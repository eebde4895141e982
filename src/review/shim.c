#include "shim.h"

#include <stdlib.h>
#include <string.h>

#include "../capture/capture.h"
#include "../core/buf.h"
#include "../core/util.h"

/* A C++ name or type as the analysis or the demangler spells it: no text
 * that could end the expression it is pasted into. */
static int
safe_spelling(const char *s)
{
	const unsigned char *p;

	if (!s || !*s)
		return 0;
	for (p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || strchr("\"'`;{}#\\@$", *p))
			return 0;
	return 1;
}

/* Offset of the last "::" outside <> in `k`, or -1. */
static long
last_scope(const char *k)
{
	long i, at = -1;
	int depth = 0;

	for (i = 0; k[i]; i++) {
		if (k[i] == '<')
			depth++;
		else if (k[i] == '>' && depth > 0)
			depth--;
		else if (!depth && k[i] == ':' && k[i + 1] == ':')
			at = i++;
	}
	return at;
}

/* "namespace a { namespace b {" for the qualifier "a::b" (or "::a::b"). */
static void
open_namespaces(struct ks_buf *out, const char *qual, size_t len, int *depth)
{
	size_t i = 0, start;

	*depth = 0;
	while (i < len) {
		while (i < len && qual[i] == ':')
			i++;
		start = i;
		while (i < len && qual[i] != ':')
			i++;
		if (i > start) {
			ks_buf_addf(out, "namespace %.*s { ", (int)(i - start),
				    qual + start);
			(*depth)++;
		}
	}
	if (*depth)
		ks_buf_addch(out, '\n');
}

static void
close_namespaces(struct ks_buf *out, int depth)
{
	while (depth-- > 0)
		ks_buf_adds(out, "} ");
	ks_buf_addch(out, '\n');
}

static void
include_line(struct ks_buf *out, const char *path)
{
	ks_buf_adds(out, "#include ");
	ks_buf_add_json_str(out, path);	/* a C string literal is the same */
	ks_buf_addch(out, '\n');
}

/* The argument list "*(ks_t0 *)ks_p[0], ..." or the deduced pack. */
static void
typed_args(struct ks_buf *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ks_buf_addf(out, "%s*(ks_t%zu *)ks_p[%zu]", i ? ", " : "", i, i);
}

/* The launch statement, given the argument text. */
static void
launch_stmt(struct ks_buf *out, const struct ks_shim *s, const char *name,
	    const char *base, size_t baselen, const char *args, const char *fnptr)
{
	if (s->cooperative) {
		ks_buf_addf(out, "\treturn (int)cudaLaunchCooperativeKernel((const void *)%s, "
				 "ks_g, ks_b, ks_p, ks_sh, ks_s);\n", fnptr);
		return;
	}
	/* A rewritten TU declares its launcher in the host pass only
	 * (docs/REWRITE.md); the device passes parse this function too. */
	if (s->launcher)
		ks_buf_addf(out, "#ifndef __CUDA_ARCH__\n"
				 "\tks_launch_%.*s(ks_g, ks_b, ks_sh, ks_s%s%s);\n"
				 "#endif\n",
			    (int)baselen, base, *args ? ", " : "", args);
	else
		ks_buf_addf(out, "\t%s<<<ks_g, ks_b, ks_sh, ks_s>>>(%s);\n", name, args);
	ks_buf_adds(out, "\treturn (int)cudaGetLastError();\n");
}

static void
emit_typed(struct ks_buf *out, const struct ks_shim *s, const char *name,
	   const char *base, size_t baselen)
{
	struct ks_buf args = KS_BUF_INIT, fnptr = KS_BUF_INIT;
	size_t i;

	for (i = 0; i < s->nparams; i++)
		ks_buf_addf(out, "using ks_t%zu = %s;\n", i, s->params[i].type);
	for (i = 0; i < s->nparams; i++)
		ks_buf_addf(out, "static_assert(sizeof(ks_t%zu) == %zu, \"parameter %zu "
				 "of the kernel is not the captured %zu bytes\");\n",
			    i, s->params[i].size, i, s->params[i].size);
	ks_buf_adds(out, "\nstatic int\nks_shim_entry(void **ks_p, dim3 ks_g, dim3 ks_b, "
			 "size_t ks_sh, cudaStream_t ks_s)\n{\n");
	typed_args(&args, s->nparams);
	ks_buf_adds(&fnptr, "static_cast<void (*)(");
	for (i = 0; i < s->nparams; i++)
		ks_buf_addf(&fnptr, "%sks_t%zu", i ? ", " : "", i);
	ks_buf_addf(&fnptr, ")>(&%s)", name);
	if (!s->nparams)
		ks_buf_adds(out, "\t(void)ks_p;\n");
	launch_stmt(out, s, name, base, baselen, args.buf, fnptr.buf);
	ks_buf_adds(out, "}\n\nstatic int\nks_shim_function(void **ks_fn)\n{\n");
	ks_buf_addf(out, "\treturn (int)cudaGetFuncBySymbol((cudaFunction_t *)ks_fn, "
			 "(const void *)%s);\n}\n", fnptr.buf);
	ks_buf_release(&args);
	ks_buf_release(&fnptr);
}

static void
emit_deduced(struct ks_buf *out, const struct ks_shim *s, const char *name,
	     const char *base, size_t baselen)
{
	struct ks_buf fnptr = KS_BUF_INIT;
	size_t i;

	ks_buf_adds(out, "template <typename... ks_A, std::size_t... ks_I>\nstatic int\n"
			 "ks_shim_launch(void (*)(ks_A...), ::ks_shim_seq<ks_I...>, void **ks_p, "
			 "dim3 ks_g, dim3 ks_b, size_t ks_sh, cudaStream_t ks_s)\n{\n"
			 "\t(void)ks_p;\n");
	ks_buf_addf(&fnptr, "(&%s)", name);
	launch_stmt(out, s, name, base, baselen, "*(ks_A *)ks_p[ks_I]...", fnptr.buf);
	ks_buf_adds(out, "}\n\n");

	ks_buf_adds(out, "template <typename... ks_A>\nstatic int\n"
			 "ks_shim_call(void (*ks_k)(ks_A...), void **ks_p, dim3 ks_g, dim3 ks_b, "
			 "size_t ks_sh, cudaStream_t ks_s)\n{\n"
			 "\tstatic const std::size_t ks_have[] = { sizeof(ks_A)..., 0 };\n"
			 "\tstatic const std::size_t ks_want[] = { ");
	for (i = 0; i < s->nparams; i++)
		ks_buf_addf(out, "%zu, ", s->params[i].size);
	ks_buf_addf(out, "0 };\n\tif (sizeof...(ks_A) != %zu)\n\t\treturn -1;\n"
			 "\tfor (std::size_t ks_i = 0; ks_i < sizeof...(ks_A); ks_i++)\n"
			 "\t\tif (ks_have[ks_i] != ks_want[ks_i])\n\t\t\treturn -1;\n"
			 "\treturn ks_shim_launch(ks_k, typename ::ks_shim_make_seq<sizeof...(ks_A)>"
			 "::ks_type(), ks_p, ks_g, ks_b, ks_sh, ks_s);\n}\n\n",
		    s->nparams);
	ks_buf_addf(out, "static int\nks_shim_entry(void **ks_p, dim3 ks_g, dim3 ks_b, "
			 "size_t ks_sh, cudaStream_t ks_s)\n{\n"
			 "\treturn ks_shim_call(&%s, ks_p, ks_g, ks_b, ks_sh, ks_s);\n}\n\n",
		    name);
	ks_buf_addf(out, "static int\nks_shim_function(void **ks_fn)\n{\n"
			 "\treturn (int)cudaGetFuncBySymbol((cudaFunction_t *)ks_fn, "
			 "(const void *)&%s);\n}\n", name);
	ks_buf_release(&fnptr);
}

int
ks_shim_generate(const struct ks_shim *s, struct ks_buf *out, struct ks_buf *err)
{
	const char *name, *base;
	size_t i, baselen;
	long scope;
	int typed = 1, depth;

	if (!safe_spelling(s->kernel))
		return ks_error(err, "'%s' cannot be a kernel's name",
				s->kernel ? s->kernel : "");
	if (s->launcher && s->cooperative)
		return ks_error(err, "a launcher and a cooperative launch exclude each other");
	for (i = 0; i < s->nparams; i++) {
		if (!s->params[i].type)
			typed = 0;
		else if (!safe_spelling(s->params[i].type))
			return ks_error(err, "'%s' cannot be a parameter type",
					s->params[i].type);
	}
	if (s->include && strchr(s->include, '\n'))
		return ks_error(err, "the included file's name holds a newline");

	scope = last_scope(s->kernel);
	name = scope < 0 ? s->kernel : s->kernel + scope + 2;
	base = name;
	baselen = strcspn(base, "< ");

	ks_buf_addf(out, "/* Entry shim generated by ks for %s (%s mode). */\n",
		    s->kernel, typed ? "typed" : "deduced");
	/* Every name declared below the TU's #include is ks_-prefixed: the
	 * TU's macros (N, I, A, k, ... are common ones) would rewrite it. */
	if (s->include)
		include_line(out, s->include);
	ks_buf_adds(out, "#include <cstddef>\n#include <cuda_runtime.h>\n\n");
	if (!typed)
		ks_buf_adds(out,
			    "template <std::size_t... ks_I> struct ks_shim_seq {};\n"
			    "template <std::size_t ks_N, std::size_t... ks_I>\n"
			    "struct ks_shim_make_seq : ks_shim_make_seq<ks_N - 1, ks_N - 1, ks_I...> {};\n"
			    "template <std::size_t... ks_I>\n"
			    "struct ks_shim_make_seq<0, ks_I...> { typedef ks_shim_seq<ks_I...> ks_type; };\n\n");
	open_namespaces(out, s->kernel, scope < 0 ? 0 : (size_t)scope, &depth);
	if (typed)
		emit_typed(out, s, name, base, baselen);
	else
		emit_deduced(out, s, name, base, baselen);
	close_namespaces(out, depth);

	ks_buf_adds(out, "\nextern \"C\" int\nks_entry(void **ks_params, dim3 ks_grid, dim3 ks_block, "
			 "size_t ks_shmem, cudaStream_t ks_stream)\n{\n\treturn ");
	if (scope >= 0)
		ks_buf_addf(out, "%.*s::", (int)scope, s->kernel);
	ks_buf_adds(out, "ks_shim_entry(ks_params, ks_grid, ks_block, ks_shmem, ks_stream);\n}\n\n"
			 "extern \"C\" int\nks_entry_function(void **ks_fn)\n{\n\treturn ");
	if (scope >= 0)
		ks_buf_addf(out, "%.*s::", (int)scope, s->kernel);
	ks_buf_adds(out, "ks_shim_function(ks_fn);\n}\n\nextern \"C\" const char ks_entry_kernel[] = ");
	ks_buf_add_json_str(out, s->kernel);
	ks_buf_adds(out, ";\n");
	return 0;
}

int
ks_shim_for_capture(const struct ks_capture *c, const char *callable,
		    const char *include, int launcher, struct ks_buf *out,
		    struct ks_buf *err)
{
	struct ks_shim_param *params = ks_xcalloc(c->nparams + 1, sizeof(*params));
	struct ks_shim s;
	size_t i;
	int rc;

	for (i = 0; i < c->nparams; i++) {
		params[i].type = c->params[i].type;
		params[i].size = c->params[i].size;
	}
	memset(&s, 0, sizeof(s));
	s.include = include;
	s.kernel = callable;
	s.params = params;
	s.nparams = c->nparams;
	s.launcher = launcher;
	s.cooperative = c->cooperative && !launcher;
	rc = ks_shim_generate(&s, out, err);
	free(params);
	return rc;
}
