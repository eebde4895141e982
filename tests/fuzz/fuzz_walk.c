/* The analysis walk over generated kernels (ks_inventory_build): the bytes
 * choose a program from a small grammar (nested macros over the builtin
 * indices, with continuation lines; deep expressions; nested and long
 * loops; branches; helper calls; a template kernel launched from a
 * template host function; a launch inside a macro), always valid CUDA, so
 * that whatever the bytes, the analysis ends within its bounds (a hang is
 * the watch's exit, a finding) and, when it answers, lists exactly the
 * kernels and launches generated. Parsed with ks's minimal prelude (no
 * toolkit: fast, and the same walk). Without libclang every input passes
 * untested (the suite skips first). */
#include "fuzz.h"

#include <unistd.h>

#include "../../src/analysis/inventory.h"
#include "../../src/analysis/libclang.h"
#include "../../src/core/buf.h"
#include "../../src/core/fs.h"
#include "../../src/core/util.h"

/* libclang is not built with the sanitizers: its caches are not ours. */
const char *__lsan_default_suppressions(void);
const char *
__lsan_default_suppressions(void)
{
	return "leak:libclang\nleak:libLLVM\n";
}

struct gen {
	const uint8_t *d;
	size_t n, i;
	struct ks_buf out;
	int nmacros;
};

static unsigned
pick(struct gen *g, unsigned n)
{
	unsigned v = g->i < g->n ? g->d[g->i++] : 0;

	return n ? v % n : 0;
}

static const char *const builtins[] = {
	"threadIdx.x", "threadIdx.y", "blockIdx.x", "blockDim.x",
	"gridDim.x", "blockIdx.y * blockDim.y"
};

/* An integer expression of at most `depth` levels. */
static void
expr(struct gen *g, int depth, int loopvar)
{
	unsigned c = depth > 0 ? pick(g, 8) : pick(g, 4);

	switch (c) {
	case 0:
		ks_buf_adds(&g->out, builtins[pick(g, KS_ARRAY_SIZE(builtins))]);
		break;
	case 1:
		ks_buf_addf(&g->out, "%u", pick(g, 256));
		break;
	case 2:
		if (g->nmacros)
			ks_buf_addf(&g->out, "M%u", pick(g, (unsigned)g->nmacros));
		else
			ks_buf_adds(&g->out, "n");
		break;
	case 3:
		if (loopvar > 0)
			ks_buf_addf(&g->out, "i%u", pick(g, (unsigned)loopvar));
		else
			ks_buf_adds(&g->out, "n");
		break;
	case 4: case 5: {
		static const char *const ops[] = { " + ", " * ", " - ", " / ",
						   " % ", " << ", " & " };

		ks_buf_addch(&g->out, '(');
		expr(g, depth - 1, loopvar);
		ks_buf_adds(&g->out, ops[pick(g, KS_ARRAY_SIZE(ops))]);
		expr(g, depth - 1, loopvar);
		ks_buf_addch(&g->out, ')');
		break;
	}
	case 6:
		ks_buf_adds(&g->out, "helper(");
		expr(g, depth - 1, loopvar);
		ks_buf_addch(&g->out, ')');
		break;
	default:
		ks_buf_adds(&g->out, "(");
		expr(g, depth - 1, loopvar);
		ks_buf_adds(&g->out, " < n ? ");
		expr(g, depth - 1, loopvar);
		ks_buf_adds(&g->out, " : 1)");
		break;
	}
}

static void
stmts(struct gen *g, int depth, int loopvar, int count)
{
	int s;

	for (s = 0; s < count; s++) {
		unsigned c = pick(g, depth > 0 ? 6 : 3);

		switch (c) {
		case 0: case 1:
			ks_buf_adds(&g->out, "  o[(");
			expr(g, 1 + (int)pick(g, 40), loopvar);
			ks_buf_adds(&g->out, ") & 1023] = a[(");
			expr(g, (int)pick(g, 6), loopvar);
			ks_buf_adds(&g->out, ") & 1023] * 2.0f;\n");
			break;
		case 2:
			ks_buf_adds(&g->out, "  atomicAdd(&o[(");
			expr(g, (int)pick(g, 4), loopvar);
			ks_buf_adds(&g->out, ") & 1023], 1.0f);\n");
			break;
		case 3: case 4: {
			/* loops of up to a million trips: the walk does not
			 * run them */
			static const char *const trips[] = { "4", "n", "1 << 20",
							     "M0 + 3" };

			ks_buf_addf(&g->out, "  for (int i%d = 0; i%d < %s; i%d++) {\n",
				    loopvar, loopvar,
				    g->nmacros ? trips[pick(g, 4)] : "n",
				    loopvar);
			stmts(g, depth - 1, loopvar + 1, 1 + (int)pick(g, 3));
			ks_buf_adds(&g->out, "  }\n");
			break;
		}
		default:
			ks_buf_adds(&g->out, "  if (");
			expr(g, 2, loopvar);
			ks_buf_adds(&g->out, " < n) {\n");
			stmts(g, depth - 1, loopvar, 1 + (int)pick(g, 2));
			ks_buf_adds(&g->out, "  }\n");
			break;
		}
	}
}

static void
generate(struct gen *g, int *nkernels, int *nlaunches)
{
	int m, k, nk;

	/* nested macros over the builtins, some on continued lines */
	int nmacros = 1 + (int)pick(g, 8);

	ks_buf_adds(&g->out, "#define M0 threadIdx.x\n");
	for (m = 1; m < nmacros; m++) {
		/* a body names only the macros before it: never itself */
		g->nmacros = m;
		ks_buf_addf(&g->out, "#define M%d (M%d + \\\n    ", m,
			    (int)pick(g, (unsigned)m));
		expr(g, (int)pick(g, 3), 0);
		ks_buf_adds(&g->out, ")\n");
	}
	g->nmacros = nmacros;
	ks_buf_adds(&g->out,
		    "__device__ int helper(int x) { return x * 3 + 1; }\n");
	nk = 1 + (int)pick(g, 3);
	for (k = 0; k < nk; k++) {
		ks_buf_addf(&g->out, "__global__ void k%d(float *o, const float *a, "
			    "int n)\n{\n", k);
		stmts(g, 3, 0, 1 + (int)pick(g, 6));
		ks_buf_adds(&g->out, "}\n");
	}
	ks_buf_adds(&g->out,
		    "template <class T> __global__ void tk(T *o, int n)\n"
		    "{ o[M0 & 1023] = (T)n; }\n"
		    "template <class T> void run(T *p, int n) "
		    "{ tk<<<1, 32>>>(p, n); }\n"
		    "#define LAUNCH0(p) k0<<<2, 64>>>(p, p, 7)\n"
		    "int main() {\n  float *f = 0; double *d = 0;\n"
		    "  run(f, 3);\n  run(d, 4);\n  LAUNCH0(f);\n");
	*nlaunches = 2;
	for (k = 0; k < nk; k++) {
		ks_buf_addf(&g->out, "  k%d<<<%u, %u>>>(f, f, %u);\n", k,
			    1 + pick(g, 64), 32 * (1 + pick(g, 8)), pick(g, 99));
		(*nlaunches)++;
	}
	ks_buf_adds(&g->out, "  return 0;\n}\n");
	*nkernels = nk + 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char state[256], *path;
	static int ready;
	struct ks_buf err = KS_BUF_INIT;
	struct ks_inventory inv;
	struct ks_tu_opts o;
	struct gen g;
	int nk = 0, nl = 0, rc;

	if (!ready) {
		const char *w = getenv("KS_FUZZ_WORK");

		ready = -1;
		snprintf(state, sizeof(state), "%s/walk-XXXXXX",
			 w && *w ? w : "/tmp");
		if (ks_libclang_load(&err) == 0 && mkdtemp(state)) {
			path = ks_fs_join(state, "gen.cu");
			ready = 1;
		}
		ks_buf_reset(&err);
	}
	if (ready < 0)
		return 0;
	memset(&g, 0, sizeof(g));
	g.d = data;
	g.n = size;
	ks_buf_init(&g.out, 0);
	generate(&g, &nk, &nl);
	if (ks_fs_write_atomic(path, g.out.buf, g.out.len, &err))
		abort();
	memset(&o, 0, sizeof(o));
	o.source = path;
	o.state_dir = state;
	o.arch = "sm_90";
	o.timeout_ms = 20000;
	rc = ks_inventory_build(&o, &inv, &err);
	if (rc == 0) {
		fuzz_check((int)inv.nkernels == nk);
		fuzz_check((int)inv.nlaunches == nl);
		fuzz_check(inv.kernels[nk - 1].is_template &&
			   inv.kernels[nk - 1].ninst == 2);
		fuzz_check(inv.launches[1].macro &&
			   !strcmp(inv.launches[1].macro, "LAUNCH0"));
	} else {
		/* only the bounds may refuse a generated program */
		if (!strstr(err.buf, "analysis stopped after") &&
		    !strstr(err.buf, "analysis took longer than"))
			fprintf(stderr, "fuzz: walk refused:\n%s\n%s\n",
				g.out.buf, err.buf);
		fuzz_check(strstr(err.buf, "analysis stopped after") ||
			   strstr(err.buf, "analysis took longer than"));
		fuzz_check(inv.nkernels == 0);
	}
	ks_inventory_release(&inv);
	ks_buf_release(&err);
	ks_buf_release(&g.out);
	return 0;
}
