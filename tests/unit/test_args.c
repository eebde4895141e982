/*
 * Unit tests of src/nvcc/args: real nvcc command lines and what nvcc does
 * with them (over 1,200 lines: one test per checked nvcc behaviour, kept
 * beside each other in the classifier's order). Each expectation was checked against nvcc 13.0.88 on this
 * project's build machine, mostly with `nvcc --dryrun` (the fatbinary
 * line's --image3=kind=elf|ptx|nvvm,sm=NN lists the targets; "-- Filter
 * Dependencies -- > f" names the depfile) and by compiling a one-kernel
 * k.cu and listing the files written. The comments say what was seen.
 */
#include "test.h"

#include <stdlib.h>

#include "../../src/core/buf.h"
#include "../../src/core/strv.h"
#include "../../src/core/util.h"
#include "../../src/nvcc/args.h"

void ks_suite_args(void);

/* One classification at a time; released by the next one, so a failing
 * CHECK leaks nothing. */
static struct ks_args args_;
static struct ks_buf err_ = KS_BUF_INIT;

/* Split a command line at spaces (no test word contains one). */
static void
words(const char *line, struct ks_strv *out)
{
	const char *p = line;

	while (*p) {
		size_t n = strcspn(p, " ");

		if (n)
			ks_strv_push_owned(out, ks_xstrndup(p, n));
		p += n;
		while (*p == ' ')
			p++;
	}
}

/* Classify `argv`; NULL when ks_args_classify() fails (message in
 * err_). */
static struct ks_args *
classify_words(const struct ks_strv *argv)
{
	ks_args_release(&args_);
	ks_buf_release(&err_);
	return ks_args_classify(argv, &args_, &err_) ? NULL : &args_;
}

static struct ks_args *
classify(const char *line)
{
	struct ks_strv argv = KS_STRV_INIT;
	struct ks_args *a;

	words(line, &argv);
	a = classify_words(&argv);
	ks_strv_release(&argv);
	return a;
}

static const char *
joined(const struct ks_strv *sv)
{
	static char buf[4096];
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < sv->n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
					i ? " " : "", sv->v[i]);
	return buf;
}

/* "path:lang ..." */
static const char *
inputs_of(const struct ks_args *a)
{
	static char buf[4096];
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < a->ninputs; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
					"%s%s:%s", i ? " " : "",
					a->inputs[i].path,
					ks_args_lang_name(a->inputs[i].lang));
	return buf;
}

/* "virt:real ..." with an empty real for PTX. */
static const char *
archs_of(const struct ks_args *a)
{
	static char buf[4096];
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < a->narchs; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
					"%s%s:%s", i ? " " : "",
					a->archs[i].virt, a->archs[i].real);
	return buf;
}

#define CHECK_OPT_STR(want, got)                                            \
	do {                                                                \
		const char *w2_ = (want), *g2_ = (got);                     \
		if (w2_)                                                    \
			CHECK_STR_EQ(w2_, g2_);                             \
		else                                                        \
			CHECK_NULL(g2_);                                    \
	} while (0)

/*
 * Real command lines. `archs` NULL means "not checked"; `reason` is what
 * ks_args_eligible() says (NULL: eligible).
 */
static const struct cmd_case {
	const char *line;
	enum ks_mode mode;
	const char *inputs;
	const char *output;
	const char *archs;
	const char *reason;
} cmd_cases[] = {
	/* CMake 3.25 compile rule (Ninja; the Makefile generator moves -I
	 * into --options-file includes_CUDA.rsp). */
	{ "-forward-unknown-to-host-compiler -DFOO -I/x "
	  "--generate-code=arch=compute_90,code=[compute_90,sm_90] "
	  "-std=c++17 -MD -MT CMakeFiles/t.dir/a.cu.o "
	  "-MF CMakeFiles/t.dir/a.cu.o.d -x cu -rdc=true "
	  "-c /src/a.cu -o CMakeFiles/t.dir/a.cu.o",
	  KS_MODE_COMPILE, "/src/a.cu:cu", "CMakeFiles/t.dir/a.cu.o",
	  "compute_90: compute_90:sm_90", NULL },
	/* CUDA_ARCHITECTURES "80;90-real". */
	{ "-forward-unknown-to-host-compiler "
	  "--generate-code=arch=compute_80,code=[compute_80,sm_80] "
	  "--generate-code=arch=compute_90,code=[sm_90] -std=c++17 -MD "
	  "-MT CMakeFiles/app.dir/main.cu.o "
	  "-MF CMakeFiles/app.dir/main.cu.o.d -x cu -rdc=true "
	  "-c /src/main.cu -o CMakeFiles/app.dir/main.cu.o",
	  KS_MODE_COMPILE, "/src/main.cu:cu", "CMakeFiles/app.dir/main.cu.o",
	  "compute_80: compute_80:sm_80 compute_90:sm_90", NULL },
	/* CMake's device link (Ninja writes the objects inline). */
	{ "-forward-unknown-to-host-compiler "
	  "--generate-code=arch=compute_80,code=[compute_80,sm_80] "
	  "--generate-code=arch=compute_90,code=[sm_90] -Xcompiler=-fPIC "
	  "-Wno-deprecated-gpu-targets -shared -dlink "
	  "CMakeFiles/app.dir/main.cu.o "
	  "-o CMakeFiles/app.dir/cmake_device_link.o libt.a -lcudadevrt "
	  "-lcudart_static -lrt -lpthread -ldl",
	  KS_MODE_DLINK, "CMakeFiles/app.dir/main.cu.o:obj libt.a:lib",
	  "CMakeFiles/app.dir/cmake_device_link.o", NULL, "mode-dlink" },
	/* CMake's compiler identification. */
	{ "--version", KS_MODE_INFO, "", NULL, NULL, "mode-info" },
	{ "-v __cmake_determine_cuda", KS_MODE_LINK,
	  "__cmake_determine_cuda:other", "a.out", NULL, "unknown-input" },
	{ "--keep --keep-dir tmp -v CMakeCUDACompilerId.cu",
	  KS_MODE_COMPILE_LINK, "CMakeCUDACompilerId.cu:cu", "a.out", NULL,
	  "mode-compile-link" },
	/* Make-style. */
	{ "-O3 -arch=sm_90 -c k.cu -o k.o", KS_MODE_COMPILE, "k.cu:cu",
	  "k.o", "compute_90:sm_90 compute_90:", NULL },
	{ "-o app a.o b.o -lcudart", KS_MODE_LINK, "a.o:obj b.o:obj", "app",
	  NULL, "mode-link" },
	{ "-O3 x.cu -o x", KS_MODE_COMPILE_LINK, "x.cu:cu", "x", NULL,
	  "mode-compile-link" },
	/* A .cpp goes to the host compiler (gcc -x c++), no cudafe++. */
	{ "-c h.cpp", KS_MODE_COMPILE, "h.cpp:cxx", "h.o", NULL,
	  "not-cuda" },
	/* -x cu makes it CUDA, before or after the file. */
	{ "-x cu -c h.cpp", KS_MODE_COMPILE, "h.cpp:cu", "h.o", NULL, NULL },
	{ "-c h.cpp -x cu", KS_MODE_COMPILE, "h.cpp:cu", "h.o", NULL, NULL },
	/* ... and every input, even an object ("cudafe++ ...
	 * --orig_src_file_name k.o"); the last -x wins. */
	{ "-x cu k.o h.cpp -o app", KS_MODE_COMPILE_LINK,
	  "k.o:cu h.cpp:cu", "app", NULL, "mode-compile-link" },
	{ "-c -x cu h.cpp -x c++ h2.cpp", KS_MODE_COMPILE,
	  "h.cpp:cxx h2.cpp:cxx", NULL, NULL, "multiple-inputs" },
	/* "Value 'none' is not defined for option 'x'". */
	{ "-x none -c k.cu", KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL,
	  "bad-value" },
	/* nvcc documentation examples. */
	{ "-gencode arch=compute_80,code=sm_80 "
	  "-gencode arch=compute_90,code=[sm_90,compute_90] -c k.cu",
	  KS_MODE_COMPILE, "k.cu:cu", "k.o",
	  "compute_80:sm_80 compute_90:sm_90 compute_90:", NULL },
	{ "-arch=compute_80 -code=sm_80,sm_86 -c k.cu", KS_MODE_COMPILE,
	  "k.cu:cu", "k.o", "compute_80:sm_80 compute_80:sm_86", NULL },
	{ "-arch=compute_80 -code=compute_80,sm_86 -c k.cu", KS_MODE_COMPILE,
	  "k.cu:cu", "k.o", "compute_80: compute_80:sm_86", NULL },
	{ "-arch=native -c k.cu", KS_MODE_COMPILE, "k.cu:cu", "k.o", "",
	  "arch-symbolic" },
	{ "-arch=all-major -c k.cu", KS_MODE_COMPILE, "k.cu:cu", "k.o", "",
	  "arch-symbolic" },
	/* Phases and their default outputs (files listed after a real
	 * compile of ../sub/k.cu in an empty directory). */
	{ "-E k.cu", KS_MODE_PREPROCESS, "k.cu:cu", NULL, NULL,
	  "mode-preprocess" },
	{ "-E k.cu -o k.ii", KS_MODE_PREPROCESS, "k.cu:cu", "k.ii", NULL,
	  "mode-preprocess" },
	{ "-M k.cu", KS_MODE_DEPS, "k.cu:cu", NULL, NULL, "mode-deps" },
	{ "-MM k.cu", KS_MODE_DEPS, "k.cu:cu", NULL, NULL, "mode-deps" },
	{ "-M -MF x/dep.d k.cu", KS_MODE_DEPS, "k.cu:cu", "x/dep.d", NULL,
	  "mode-deps" },
	{ "-c ../sub/k.cu", KS_MODE_COMPILE, "../sub/k.cu:cu", "k.o", NULL,
	  NULL },
	{ "-dc ../sub/k.cu", KS_MODE_COMPILE, "../sub/k.cu:cu", "k.o", NULL,
	  NULL },
	{ "-dw ../sub/k.cu", KS_MODE_COMPILE, "../sub/k.cu:cu", "k.o", NULL,
	  NULL },
	{ "-ptx ../sub/k.cu", KS_MODE_DEVICE, "../sub/k.cu:cu", "k.ptx",
	  NULL, "mode-device" },
	{ "-cubin ../sub/k.cu", KS_MODE_DEVICE, "../sub/k.cu:cu", "k.cubin",
	  NULL, "mode-device" },
	{ "-fatbin ../sub/k.cu", KS_MODE_DEVICE, "../sub/k.cu:cu",
	  "k.fatbin", NULL, "mode-device" },
	{ "-dlto -ltoir ../sub/k.cu", KS_MODE_DEVICE, "../sub/k.cu:cu",
	  "k.ltoir", NULL, "mode-device" },
	{ "-optix-ir ../sub/k.cu", KS_MODE_DEVICE, "../sub/k.cu:cu",
	  "k.optixir", NULL, "mode-device" },
	{ "-cuda ../sub/k.cu", KS_MODE_CUDA, "../sub/k.cu:cu",
	  "k.cu.cpp.ii", NULL, "mode-cuda" },
	{ "-cuda a.b.cu", KS_MODE_CUDA, "a.b.cu:cu", "a.b.cu.cpp.ii", NULL,
	  "mode-cuda" },
	{ "-c a.b.cu", KS_MODE_COMPILE, "a.b.cu:cu", "a.b.o", NULL, NULL },
	{ "-dlink k.o", KS_MODE_DLINK, "k.o:obj", "a_dlink.o", NULL,
	  "mode-dlink" },
	/* -cubin or -fatbin with -dlink link device code into
	 * ./a_dlink.cubin (-odir does not apply) or a_dlink.fatbin; -ptx
	 * -dlink just compiles. */
	{ "-cubin -dlink km.o -odir od", KS_MODE_DLINK, "km.o:obj",
	  "a_dlink.cubin", NULL, "mode-dlink" },
	{ "-fatbin -dlink km.cu", KS_MODE_DLINK, "km.cu:cu",
	  "a_dlink.fatbin", NULL, "mode-dlink" },
	{ "-fatbin -dlink km.o -o x.fb", KS_MODE_DLINK, "km.o:obj", "x.fb",
	  NULL, "mode-dlink" },
	{ "-ptx -dlink km.cu", KS_MODE_DEVICE, "km.cu:cu", "km.ptx", NULL,
	  "mode-device" },
	/* -ptx, -fatbin of a .cpp write nothing. */
	{ "-ptx h.cpp -o sub/o.o", KS_MODE_DEVICE, "h.cpp:cxx", NULL, NULL,
	  "mode-device" },
	{ "-fatbin h.cpp", KS_MODE_DEVICE, "h.cpp:cxx", NULL, NULL,
	  "mode-device" },
	/* -ltoir needs -dlto; -dlto refuses -ptx, -cubin, -optix-ir but
	 * not -fatbin, -cuda or -c. */
	{ "-ltoir k.cu", KS_MODE_DEVICE, "k.cu:cu", "k.ltoir", NULL,
	  "dlto-conflict" },
	{ "-dlto -cubin k.cu", KS_MODE_DEVICE, "k.cu:cu", "k.cubin", NULL,
	  "dlto-conflict" },
	{ "-dlto -optix-ir k.cu", KS_MODE_DEVICE, "k.cu:cu", "k.optixir",
	  NULL, "dlto-conflict" },
	{ "-dlto -fatbin km.cu", KS_MODE_DEVICE, "km.cu:cu", "km.fatbin",
	  NULL, "mode-device" },
	{ "-dlto -c km.cu", KS_MODE_COMPILE, "km.cu:cu", "km.o", NULL,
	  NULL },
	{ "-lib ../sub/k.cu", KS_MODE_LIB, "../sub/k.cu:cu", "a.a", NULL,
	  "mode-lib" },
	{ "-lib -o libx.a a.o", KS_MODE_LIB, "a.o:obj", "libx.a", NULL,
	  "mode-lib" },
	{ "-run k.cu", KS_MODE_RUN, "k.cu:cu", "a.out", NULL, "mode-run" },
	/* -clean deleted k.o instead of compiling. */
	{ "-clean -c k.cu", KS_MODE_OTHER, "k.cu:cu", NULL, NULL,
	  "mode-other" },
	/* -odir is where defaults go; -o wins over it as given. */
	{ "-c ../sub/k.cu -odir od", KS_MODE_COMPILE, "../sub/k.cu:cu",
	  "od/k.o", NULL, NULL },
	{ "-c k.cu -odir od/", KS_MODE_COMPILE, "k.cu:cu", "od/k.o", NULL,
	  NULL },
	{ "-dc ../sub/k.cu -odir od -o foo.o", KS_MODE_COMPILE,
	  "../sub/k.cu:cu", "foo.o", NULL, NULL },
	{ "-odir od k.o", KS_MODE_LINK, "k.o:obj", "od/a.out", NULL,
	  "mode-link" },
	{ "-dlink k.o -odir od", KS_MODE_DLINK, "k.o:obj", "od/a_dlink.o",
	  NULL, "mode-dlink" },
	/* The highest phase wins wherever it stands: -c -E preprocesses,
	 * -c -ptx writes k.ptx, -c -dlink and -lib -c compile, -cuda -ptx
	 * writes PTX, -fatbin -cubin a cubin, -M -c -o foo.o writes the
	 * dependencies into foo.o. */
	{ "-c -E k.cu", KS_MODE_PREPROCESS, "k.cu:cu", NULL, NULL,
	  "mode-preprocess" },
	{ "-c -ptx k.cu", KS_MODE_DEVICE, "k.cu:cu", "k.ptx", NULL,
	  "mode-device" },
	{ "-c -dlink k.cu", KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL, NULL },
	{ "-lib -c k.cu", KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL, NULL },
	{ "-cuda -ptx k.cu", KS_MODE_DEVICE, "k.cu:cu", "k.ptx", NULL,
	  "mode-device" },
	{ "-fatbin -cubin k.cu", KS_MODE_DEVICE, "k.cu:cu", "k.cubin", NULL,
	  "mode-device" },
	{ "-M -c k.cu -o foo.o", KS_MODE_DEPS, "k.cu:cu", "foo.o", NULL,
	  "mode-deps" },
	{ "-dryrun -c k.cu", KS_MODE_DRYRUN, "k.cu:cu", "k.o", NULL,
	  "dryrun" },
	/* Information options win over everything ("--version -c k.cu"
	 * only prints the version). */
	{ "--version -c k.cu", KS_MODE_INFO, "k.cu:cu", NULL, NULL,
	  "mode-info" },
	{ "-c k.cu -arch-ls", KS_MODE_INFO, "k.cu:cu", NULL, NULL,
	  "mode-info" },
	/* "No input files specified". */
	{ "-c", KS_MODE_INFO, "", NULL, NULL, "no-input" },
	{ "--dryrun", KS_MODE_INFO, "", NULL, NULL, "no-input" },
	/* -c a.cu b.cu writes a.o and b.o; with -o nvcc refuses: "A single
	 * input file is required for a non-link phase when an outputfile is
	 * specified", also for an object or library beside the source. */
	{ "-c a.cu b.cu", KS_MODE_COMPILE, "a.cu:cu b.cu:cu", NULL, NULL,
	  "multiple-inputs" },
	{ "-c a.cu b.cu -o x.o", KS_MODE_COMPILE, "a.cu:cu b.cu:cu", "x.o",
	  NULL, "output-multiple-inputs" },
	{ "-c k2.cu libx.a -o y.o", KS_MODE_COMPILE, "k2.cu:cu libx.a:lib",
	  "y.o", NULL, "output-multiple-inputs" },
	{ "-E a.cu b.cu -o e.ii", KS_MODE_PREPROCESS, "a.cu:cu b.cu:cu",
	  "e.ii", NULL, "output-multiple-inputs" },
	/* But -l is an option, not an input: -c k2.cu -lfoo -o x.o works. */
	{ "-c k2.cu -lfoo -o x.o", KS_MODE_COMPILE, "k2.cu:cu", "x.o", NULL,
	  NULL },
	/* "Unknown option '-foo'" unless forwarded, wherever the
	 * forwarding option stands. */
	{ "-c k.cu -foo", KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL,
	  "unknown-option" },
	{ "-c k.cu -foo -forward-unknown-to-host-compiler", KS_MODE_COMPILE,
	  "k.cu:cu", "k.o", NULL, NULL },
	{ "-forward-unknown-to-host-linker -c k.cu -foo", KS_MODE_COMPILE,
	  "k.cu:cu", "k.o", NULL, NULL },
	{ "-forward-unknown-opts -c k.cu -Wl,-foo", KS_MODE_COMPILE,
	  "k.cu:cu", "k.o", NULL, NULL },
	/* An unknown option never takes the next word: "Don't know what
	 * to do with 'bar'". */
	{ "-forward-unknown-to-host-compiler -c k.cu -foo bar",
	  KS_MODE_COMPILE, "k.cu:cu bar:other", NULL, NULL,
	  "unknown-input" },
	/* -ob1.o is no -o: with forwarding it goes to gcc and nvcc writes
	 * k.o. */
	{ "-forward-unknown-to-host-compiler -c k.cu -ob1.o",
	  KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL, NULL },
	/* "Don't know what to do with '@x.rsp'" (the output name is only
	 * ours: nvcc stops there). */
	{ "-c @opts.rsp", KS_MODE_COMPILE, "@opts.rsp:other", "@opts.o",
	  NULL, "unknown-input" },
	/* "no argument expected after '-G'"; "'yes': expected true or
	 * false". */
	{ "-c k.cu -G=true", KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL,
	  "bad-option" },
	{ "-c k.cu -rdc=yes", KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL,
	  "bad-value" },
	{ "-c k.cu -ftz=on", KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL,
	  "bad-value" },
	/* "More than one compilation phase specified". */
	{ "-lib -link a.o", KS_MODE_LIB, "a.o:obj", "a.a", NULL,
	  "phase-conflict" },
	/* -c -run wrote k.o, then exited 127 running a temporary. */
	{ "-c -run k.cu", KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL,
	  "phase-conflict" },
	/* "Both '--device-c (-dc)' and '--device-w (-dw)' specified";
	 * "'--device-c (-dc)' is not compatible with
	 * '--relocatable-device-code=false (-rdc=false)'". */
	{ "-dc -dw k.cu", KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL,
	  "rdc-conflict" },
	{ "-rdc=false -dc k.cu", KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL,
	  "rdc-conflict" },
	{ "-dw -rdc=true k.cu", KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL,
	  "rdc-conflict" },
	/* "Option '--dependency-file' requires one of '-M', '-MM', '-MD'
	 * or '-MMD'"; "'-MD'/'-MMD' is not supported when '-E' is also
	 * specified". */
	{ "-c k.cu -MF k.d", KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL,
	  "deps-conflict" },
	{ "-E -MD k.cu", KS_MODE_PREPROCESS, "k.cu:cu", NULL, NULL,
	  "deps-conflict" },
	/* Target errors. */
	{ "-arch=sm_90 -code=sm_90 -c k.cu", KS_MODE_COMPILE, "k.cu:cu",
	  "k.o", NULL, "arch" },
	{ "-code=sm_90 -c k.cu", KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL,
	  "arch" },
	{ "-gencode arch=compute_80,code=sm_80,code=sm_86 -c k.cu",
	  KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL, "arch" },
	{ "-gencode arch=compute_80 -c k.cu", KS_MODE_COMPILE, "k.cu:cu",
	  "k.o", NULL, "arch" },
	{ "-gencode arch=sm_90,code=sm_90 -c k.cu", KS_MODE_COMPILE,
	  "k.cu:cu", "k.o", NULL, "arch" },
	{ "-gencode arch=compute_90,code=[sm_90 -c k.cu", KS_MODE_COMPILE,
	  "k.cu:cu", "k.o", NULL, "arch" },
	{ "-gencode arch=compute_90,code=[] -c k.cu", KS_MODE_COMPILE,
	  "k.cu:cu", "k.o", NULL, "arch" },
	{ "-gencode=arch=compute_90,code=compute_80 -c k.cu",
	  KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL, "arch" },
	{ "-arch=sm_90b -c k.cu", KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL,
	  "arch" },
	{ "-arch=native -code=sm_80 -c k.cu", KS_MODE_COMPILE, "k.cu:cu",
	  "k.o", NULL, "arch" },
	{ "-dlto -gencode arch=compute_90,code=sm_90 -c k.cu",
	  KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL, "dlto-conflict" },
	{ "-dlto -gencode arch=compute_90,code=lto_90 -c k.cu",
	  KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL, "dlto-conflict" },
	{ "-dlto -arch=compute_90 -code=lto_90,sm_90 -c k.cu",
	  KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL, "dlto-conflict" },
	/* "Incompatible code generation requested". */
	{ "-arch=compute_90 -code=sm_80 -c k.cu", KS_MODE_COMPILE,
	  "k.cu:cu", "k.o", NULL, "arch" },
	{ "-arch=compute_90a -code=sm_90 -c k.cu", KS_MODE_COMPILE,
	  "k.cu:cu", "k.o", NULL, "arch" },
	{ "-arch=compute_100f -code=sm_110f -c k.cu", KS_MODE_COMPILE,
	  "k.cu:cu", "k.o", NULL, "arch" },
	{ "-arch=compute_100f -code=compute_100 -c k.cu", KS_MODE_COMPILE,
	  "k.cu:cu", "k.o", NULL, "arch" },
	{ "-arch=compute_100f -code=lto_100 -rdc=true -c k.cu",
	  KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL, "arch" },
	/* "Cannot use '-arch=lto_<arch>' unless '-rdc=true' is specified
	 * or implied". */
	{ "-arch=compute_90 -code=lto_90 -c k.cu", KS_MODE_COMPILE,
	  "k.cu:cu", "k.o", NULL, "arch" },
	{ "-arch=lto_90 -code=compute_90 -rdc=true -c k.cu",
	  KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL, "arch" },
	{ "-gencode arch=compute_90,code=lto_90 -c k.cu", KS_MODE_COMPILE,
	  "k.cu:cu", "k.o", NULL, "arch" },
	/* Things that keep nvcc's temporaries or print its commands. */
	{ "-c k.cu -v", KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL, "verbose" },
	{ "-c k.cu -keep", KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL, "keep" },
	{ "-c k.cu -save-temps", KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL,
	  "keep" },
	{ "-c k.cu --keep-dir d", KS_MODE_COMPILE, "k.cu:cu", "k.o", NULL,
	  "keep" },
	/* Suffixes: .cup is preprocessed CUDA (cicc, no host cpp); .CU
	 * and .C are refused; .cu.ii and .cpp.ii are plain C++ (gcc -x
	 * c++); -c ignores k.cu.cpp.ii, a link passes it to nvlink as an
	 * object. */
	{ "-c k.CU", KS_MODE_COMPILE, "k.CU:other", "k.o", NULL,
	  "unknown-input" },
	{ "-c k.cu.ii", KS_MODE_COMPILE, "k.cu.ii:ii", "k.cu.o", NULL,
	  "not-cuda" },
	{ "-c kq.cup", KS_MODE_COMPILE, "kq.cup:cup", "kq.o", NULL,
	  "not-cuda" },
	{ "k.cu.cpp.ii -o app", KS_MODE_LINK, "k.cu.cpp.ii:obj", "app",
	  NULL, "mode-link" },
	{ "-c f.c f.i f.cc f.cxx f.gpu f.obj f.so f.lib f.cubin f.fatbin",
	  KS_MODE_COMPILE,
	  "f.c:c f.i:i f.cc:cxx f.cxx:cxx f.gpu:gpu f.obj:obj f.so:lib "
	  "f.lib:lib f.cubin:cubin f.fatbin:fatbin", NULL, NULL,
	  "unknown-input" },
	{ "-c f.c f.i f.cc f.obj", KS_MODE_COMPILE,
	  "f.c:c f.i:i f.cc:cxx f.obj:obj", NULL, NULL, "multiple-inputs" },
	/* -x cu makes any file CUDA. */
	{ "-x cu -c notes.txt", KS_MODE_COMPILE, "notes.txt:cu", "notes.o",
	  NULL, NULL },
	{ "-dlto -dlink f.ltoir f.ptx", KS_MODE_DLINK,
	  "f.ltoir:ltoir f.ptx:ptx", "a_dlink.o", NULL, "mode-dlink" },
};

TEST(command_lines)
{
	size_t i;

	for (i = 0; i < KS_ARRAY_SIZE(cmd_cases); i++) {
		const struct cmd_case *c = &cmd_cases[i];
		const struct ks_args *a = classify(c->line);
		const char *reason;
		int ok;

		if (!a) {
			TEST_FAIL_("%s: %s", c->line, err_.buf);
			return;
		}
		ok = ks_args_eligible(a, &reason);
		if (a->mode != c->mode || strcmp(inputs_of(a), c->inputs) ||
		    (c->output == NULL) != (a->output == NULL) ||
		    (c->output && strcmp(c->output, a->output)) ||
		    (c->archs && strcmp(c->archs, archs_of(a))) ||
		    ok != (c->reason == NULL) ||
		    (c->reason && strcmp(c->reason, reason))) {
			TEST_FAIL_("%s\n  got mode %s, inputs \"%s\", output "
				   "%s, archs \"%s\", reason %s", c->line,
				   ks_args_mode_name(a->mode), inputs_of(a),
				   a->output ? a->output : "(null)",
				   archs_of(a), reason ? reason : "(null)");
			return;
		}
	}
}

/* Targets as the fatbinary line of --dryrun lists them. */
static const struct arch_case {
	const char *flags;
	const char *archs;
} arch_cases[] = {
	/* No target option: elf sm_75 and ptx 75. */
	{ "", "compute_75:sm_75 compute_75:" },
	{ "-arch=sm_90", "compute_90:sm_90 compute_90:" },
	{ "--gpu-architecture=sm_86", "compute_86:sm_86 compute_86:" },
	{ "-arch sm_90", "compute_90:sm_90 compute_90:" },
	/* PTX only. */
	{ "-arch=compute_90", "compute_90:" },
	/* nvvm only, also without -rdc=true. */
	{ "-arch=lto_90", "compute_90:lto_90" },
	/* The last -arch wins ("incompatible redefinition"). */
	{ "-arch=sm_90 -arch=sm_80", "compute_80:sm_80 compute_80:" },
	/* -code adds up: elf 86 and elf 80. */
	{ "-arch=compute_80 -code=sm_80 -code=sm_86",
	  "compute_80:sm_80 compute_80:sm_86" },
	{ "-arch=compute_90a -code=sm_90a", "compute_90a:sm_90a" },
	{ "-arch=lto_90 -code=lto_90 -rdc=true", "compute_90:lto_90" },
	{ "-gencode arch=lto_90,code=sm_90 -rdc=true", "compute_90:sm_90" },
	/* An f target takes its family: sm_103 under compute_100f is
	 * built as sm_103f (elf sm=103f). */
	{ "-arch=compute_100f -code=sm_103,sm_100a",
	  "compute_100f:sm_103f compute_100f:sm_100a" },
	{ "-gencode arch=compute_100f,code=sm_103", "compute_100f:sm_103f" },
	/* Under compute_90a only ...a targets, any later one. */
	{ "-arch=compute_90a -code=sm_120a", "compute_90a:sm_120a" },
	/* Any target at or above a plain compute_NN. */
	{ "-arch=compute_80 -code=sm_90a,sm_90", "compute_80:sm_90a "
	  "compute_80:sm_90" },
	{ "-arch=compute_100 -code=lto_103f -rdc=true",
	  "compute_100:lto_103f" },
	/* lto_NN with -dlto needs no -rdc=true, nor does -code=lto_NN. */
	{ "-dlto -arch=compute_90 -code=lto_90,lto_100",
	  "compute_90:lto_90 compute_90:lto_100" },
	{ "-arch=compute_90 -code=lto_90 -dc", "compute_90:lto_90" },
	/* Arch-specific shorthands bring a generic PTX: ptx 90, elf 90a,
	 * ptx 90a; cicc runs for compute_90 and compute_90a. */
	{ "-arch=sm_90a", "compute_90: compute_90a:sm_90a compute_90a:" },
	{ "-arch=sm_100f", "compute_100: compute_100f:sm_100f compute_100f:" },
	{ "-arch=compute_90a", "compute_90: compute_90a:" },
	{ "-arch=lto_90a", "compute_90:lto_90 compute_90a:lto_90a" },
	/* ... but -gencode does not. */
	{ "-gencode arch=compute_90a,code=sm_90a", "compute_90a:sm_90a" },
	/* -dlto: ptx and nvvm, no elf. */
	{ "-dlto", "compute_75: compute_75:lto_75" },
	{ "-arch=sm_90 -dlto", "compute_90: compute_90:lto_90" },
	{ "-arch=compute_90 --dlink-time-opt",
	  "compute_90: compute_90:lto_90" },
	{ "-arch=sm_90a -lto",
	  "compute_90: compute_90:lto_90 compute_90a: compute_90a:lto_90a" },
	/* -arch before -gencode whatever the order on the line (cicc runs
	 * for compute_90 first); duplicates once. */
	{ "-gencode arch=compute_80,code=sm_80 -arch=sm_90",
	  "compute_90:sm_90 compute_90: compute_80:sm_80" },
	{ "-arch=sm_90 -gencode arch=compute_90,code=sm_90",
	  "compute_90:sm_90 compute_90:" },
	{ "-gencode arch=compute_80,code=sm_80 "
	  "-gencode arch=compute_80,code=sm_80", "compute_80:sm_80" },
	{ "-gencode code=sm_80,arch=compute_80", "compute_80:sm_80" },
	{ "--generate-code arch=compute_80,code=sm_80", "compute_80:sm_80" },
	{ "-gencode=arch=compute_80,code=[sm_80,compute_80]",
	  "compute_80:sm_80 compute_80:" },
	{ "-gencode arch=compute_80,code=lto_80 -rdc=true",
	  "compute_80:lto_80" },
	/* A trailing comma is harmless. */
	{ "-gencode arch=compute_90,code=[sm_90],", "compute_90:sm_90" },
	/* native (no GPU here: "Cannot find valid GPU for '-arch=native',
	 * default arch is used") keeps only the -gencode pairs. */
	{ "-arch=native -gencode arch=compute_80,code=sm_80",
	  "compute_80:sm_80" },
};

TEST(archs)
{
	size_t i;
	char line[512];

	for (i = 0; i < KS_ARRAY_SIZE(arch_cases); i++) {
		const struct ks_args *a;

		snprintf(line, sizeof(line), "%s -c k.cu",
			 arch_cases[i].flags);
		a = classify(line);
		CHECK(a != NULL);
		if (a->rejected || strcmp(arch_cases[i].archs, archs_of(a))) {
			TEST_FAIL_("%s: got \"%s\" (%s), want \"%s\"", line,
				   archs_of(a),
				   a->rejected ? a->rejected : "accepted",
				   arch_cases[i].archs);
			return;
		}
	}
}

TEST(arch_symbolic)
{
	const struct ks_args *a = classify("-arch=all -c k.cu");

	CHECK(a != NULL);
	CHECK_INT_EQ(1, a->arch_symbolic);
	CHECK_STR_EQ("all", a->arch_symbol);
	CHECK_INT_EQ(0, a->narchs);
	CHECK_INT_EQ(0, classify("-arch=sm_90 -c k.cu")->arch_symbolic);
}

/* The GPUs a build reaches, and the words that add a verified GPU's target. */
TEST(reaches)
{
	static const struct {
		const char *line, *real;
		int reach;
		const char *words;
	} cases[] = {
		/* no target: sm_75 and compute_75's PTX, which newer GPUs JIT */
		{ "-c k.cu", "sm_75", 1, "" },
		{ "-c k.cu", "sm_90", 2, "-arch=sm_75 -gencode arch=compute_90,code=sm_90" },
		{ "-O3 k.cu -o k", "sm_121", 2,
		  "-arch=sm_75 -gencode arch=compute_121,code=sm_121" },
		{ "-arch=sm_80 -c k.cu", "sm_90", 2, "-gencode arch=compute_90,code=sm_90" },
		{ "-arch=sm_90 -c k.cu", "sm_90", 1, "" },
		/* a GPU older than every target runs none of them */
		{ "-arch=sm_90 -c k.cu", "sm_80", 0, "" },
		/* SASS only: the later minors of its major, no other */
		{ "-gencode arch=compute_80,code=sm_80 -c k.cu", "sm_86", 2,
		  "-gencode arch=compute_86,code=sm_86" },
		{ "-gencode arch=compute_80,code=sm_80 -c k.cu", "sm_90", 0, "" },
		{ "-arch=compute_75 -code=sm_75 -c k.cu", "sm_89", 0, "" },
		/* PTX only */
		{ "-arch=compute_80 -c k.cu", "sm_90", 2, "-gencode arch=compute_90,code=sm_90" },
		/* arch-specific PTX runs only on its own arch */
		{ "-gencode arch=compute_90a,code=compute_90a -c k.cu", "sm_100", 0, "" },
		/* lists nvcc derives itself, and names that are no GPU */
		{ "-arch=all -c k.cu", "sm_90", 0, "" },
		{ "-c k.cu", "sm_90a", 0, "" },
		{ "-c k.cu", "compute_90", 0, "" },
	};
	size_t i;

	for (i = 0; i < KS_ARRAY_SIZE(cases); i++) {
		const struct ks_args *a = classify(cases[i].line);
		struct ks_strv w = KS_STRV_INIT;
		struct ks_buf got = KS_BUF_INIT;
		size_t j;
		int n;

		CHECK(a != NULL);
		if (!a)
			return;
		CHECK_INT_EQ(cases[i].reach, ks_args_reaches(a, cases[i].real));
		n = ks_args_reach_words(a, cases[i].real, &w);
		CHECK_INT_EQ((int)w.n, n);
		for (j = 0; j < w.n; j++)
			ks_buf_addf(&got, "%s%s", j ? " " : "", w.v[j]);
		if (strcmp(got.buf ? got.buf : "", cases[i].words))
			fprintf(stderr, "  case %zu: %s for %s\n", i, cases[i].line,
				cases[i].real);
		CHECK_STR_EQ(cases[i].words, got.buf ? got.buf : "");
		ks_strv_release(&w);
		ks_buf_release(&got);
	}
}

TEST(devflags)
{
	const struct ks_args *a;

	a = classify("-c k.cu -use_fast_math --ftz true -prec-div=false "
		     "--maxrregcount=64 -std=c++17 -G -lineinfo "
		     "-Xptxas -O2,-v --ptxas-options=-dlcm=ca -O3 "
		     "-Xcompiler=-fPIC -t 4 -w -Werror all-warnings "
		     "-expt-extended-lambda --lto -split-compile=4 -keep-dir=k "
		     "-res-usage --default-stream per-thread -rdc=true");
	CHECK(a != NULL);
	CHECK_NULL(a->rejected);
	/* Canonical spelling whatever the form; aliases as their target;
	 * -t, -w, -Werror, -split-compile, -res-usage left out; -rdc in
	 * `relocatable`; host-only words (-O3, -Xcompiler=-fPIC) and
	 * ptxas's -v (messages only) left out (keyflags.h). */
	CHECK_STR_EQ("-use_fast_math -ftz=true -prec-div=false "
		     "-maxrregcount=64 -std=c++17 -G -lineinfo -Xptxas=-O2 "
		     "-Xptxas=-dlcm=ca "
		     "-extended-lambda -dlto -default-stream=per-thread",
		     joined(&a->devflags));
	CHECK_STR_EQ("c++17", a->std);
	CHECK_INT_EQ(1, a->relocatable);
	CHECK_INT_EQ(1, a->dlto);
	CHECK_STR_EQ("k", a->keep_dir);

	/* The last -std wins ("incompatible redefinition for option
	 * 'std', the last value of this option was used"). */
	a = classify("-std=c++14 -c k.cu --std c++20");
	CHECK(a != NULL);
	CHECK_STR_EQ("c++20", a->std);
	CHECK_STR_EQ("-std=c++14 -std=c++20", joined(&a->devflags));
}

TEST(unknown_forwarded)
{
	const struct ks_args *a;

	/* Forwarded unknown options reach the device-side preprocessing
	 * as -Xcompiler words do (the --dryrun lines of
	 * "-forward-unknown-to-host-compiler -fopenmp" and "-Xcompiler
	 * -fopenmp" are the same), so they count, in place. */
	a = classify("-c k.cu -Xcompiler -Wall -fopenmp -lineinfo "
		     "-forward-unknown-to-host-compiler");
	CHECK(a != NULL);
	CHECK_NULL(a->rejected);
	CHECK_INT_EQ(1, a->forward_unknown);
	CHECK_STR_EQ("-fopenmp", joined(&a->unknown));
	CHECK_STR_EQ("-Xcompiler=-fopenmp -lineinfo", joined(&a->devflags));
	/* To the linker only: accepted, not device flags. */
	a = classify("-forward-unknown-to-host-linker -c k.cu -Wl,-x");
	CHECK(a != NULL);
	CHECK_NULL(a->rejected);
	CHECK_STR_EQ("", joined(&a->devflags));
	CHECK_STR_EQ("-Wl,-x", joined(&a->unknown));
}

TEST(includes_defines)
{
	const struct ks_args *a;

	/* -D and -I are lists: -DA=1,B=2 gives gcc -D "A=1" -D "B=2";
	 * -I/a,/b gives -I"/a" -I"/b"; 1\,2 keeps its comma. */
	a = classify("-c k.cu -I/a,/b -isystem /s -include pre.h -DA=1,B=2 "
		     "-UC --define-macro D -DE=1\\,2 -I=x "
		     "--system-include=/t --pre-include p2.h -UC,D");
	CHECK(a != NULL);
	CHECK_NULL(a->rejected);
	CHECK_STR_EQ("-I/a -I/b -isystem/s -includepre.h -Ix -isystem/t "
		     "-includep2.h", joined(&a->includes));
	CHECK_STR_EQ("-DA=1 -DB=2 -UC -DD -DE=1,2 -UC -UD",
		     joined(&a->defines));
	/* A stray quote in a list: "Stray '\"' character". */
	a = classify("-c k.cu -DA=\"x");
	CHECK(a != NULL);
	CHECK_STR_EQ("bad-value", a->rejected);
}

TEST(depfiles)
{
	static const struct {
		const char *line;
		const char *depfile;
	} cases[] = {
		/* CMake: -MF names it. */
		{ "-MD -MT t.o -MF CMakeFiles/t.dir/a.cu.o.d -c a.cu -o t.o",
		  "CMakeFiles/t.dir/a.cu.o.d" },
		/* Else -o with the suffix replaced. */
		{ "-MD -c a.b.cu -o x.y/z", "x.y/z.d" },
		{ "-MD -c a.b.cu -o y.cu.o", "y.cu.d" },
		{ "-MD -c a.b.cu -o .hidden", ".d" },
		{ "-MD -c a.b.cu -o q.o.", "q.o.d" },
		{ "-MD a.b.cu -o app", "app.d" },
		{ "-MD -ptx a.b.cu -o foo.ptx", "foo.d" },
		{ "-MD -c -odir od -o q.o a.b.cu", "q.d" },
		/* Else the input's basename in -odir. */
		{ "-MD -c a.b.cu", "a.b.d" },
		{ "-MD -c ../sub/k.cu", "k.d" },
		{ "-MMD -c a.b.cu", "a.b.d" },
		{ "-MD -c -odir od a.b.cu", "od/a.b.d" },
		{ "-MD -lib a.b.cu", "a.b.d" },
		/* -M writes to -o, else -MF, else stdout. */
		{ "-M a.b.cu", NULL },
		{ "-M -MF z.d a.b.cu", "z.d" },
		{ "-M -o y.d a.b.cu", "y.d" },
		{ "-M -MF a.d -o b.d a.b.cu", "b.d" },
		/* -M wins over -MD. */
		{ "-M -MD -c a.b.cu", NULL },
		/* No dependency option. */
		{ "-c a.b.cu", NULL },
		/* One per input. */
		{ "-MD -c a.cu b.cu", NULL },
	};
	size_t i;

	for (i = 0; i < KS_ARRAY_SIZE(cases); i++) {
		const struct ks_args *a = classify(cases[i].line);

		CHECK(a != NULL);
		if ((cases[i].depfile == NULL) != (a->depfile == NULL) ||
		    (a->depfile && strcmp(cases[i].depfile, a->depfile))) {
			TEST_FAIL_("%s: depfile %s, want %s", cases[i].line,
				   a->depfile ? a->depfile : "(null)",
				   cases[i].depfile ? cases[i].depfile
						    : "(null)");
			return;
		}
	}
}

TEST(dep_fields)
{
	const struct ks_args *a;

	/* -MT keeps only its last value ("incompatible redefinition for
	 * option 'dependency-target-name'"; the rule reads "t2 : ..."). */
	a = classify("-MD -MP -MT t1 -MT t2 -c k.cu");
	CHECK(a != NULL);
	CHECK_INT_EQ(1, a->dep_md);
	CHECK_INT_EQ(0, a->dep_mmd);
	CHECK_INT_EQ(1, a->dep_mp);
	CHECK_STR_EQ("t2", joined(&a->dep_targets));
	a = classify("--generate-nonsystem-dependencies-with-compile "
		     "--generate-dependency-targets "
		     "--dependency-target-name=x --dependency-output x.d "
		     "-c k.cu");
	CHECK(a != NULL);
	CHECK_NULL(a->rejected);
	CHECK_INT_EQ(1, a->dep_mmd);
	CHECK_INT_EQ(1, a->dep_mp);
	CHECK_STR_EQ("x", joined(&a->dep_targets));
	CHECK_STR_EQ("x.d", a->depfile);
}

TEST(fields)
{
	const struct ks_args *a;

	a = classify("-ccbin gcc -ccbin=g++-12 -odir od -keep -c k.cu "
		     "--compiler-bindir /usr/bin/g++");
	CHECK(a != NULL);
	CHECK_STR_EQ("/usr/bin/g++", a->ccbin);
	CHECK_STR_EQ("od", a->odir);
	CHECK_INT_EQ(1, a->keep);
	CHECK_INT_EQ(0, a->save_temps);
	CHECK_STR_EQ("-ccbin gcc -ccbin=g++-12 -odir od -keep -c k.cu "
		     "--compiler-bindir /usr/bin/g++", joined(&a->argv));
	a = classify("--dryrun -v --save-temps -c k.cu");
	CHECK(a != NULL);
	CHECK_INT_EQ(1, a->dryrun);
	CHECK_INT_EQ(1, a->verbose);
	CHECK_INT_EQ(1, a->save_temps);
	CHECK_INT_EQ(KS_MODE_DRYRUN, a->mode);
	CHECK_INT_EQ(KS_MODE_COMPILE, a->phase);
	/* -dc is -rdc=true -c, -dw is -rdc=false -c; the last -rdc wins. */
	CHECK_INT_EQ(1, classify("-dc k.cu")->relocatable);
	CHECK_INT_EQ(0, classify("-dw k.cu")->relocatable);
	CHECK_INT_EQ(0, classify("-c k.cu")->relocatable);
	CHECK_INT_EQ(1, classify("-rdc true -c k.cu")->relocatable);
	CHECK_INT_EQ(0, classify("-rdc=true -rdc false -c k.cu")->relocatable);
	CHECK_INT_EQ(1, classify("--relocatable-device-code=true -dc k.cu")
				->relocatable);
	/* With -o the output is -o whatever -odir says; the last -o wins. */
	a = classify("-c k.cu -o x.o -o y.o");
	CHECK(a != NULL);
	CHECK_STR_EQ("y.o", a->output);
	/* The info flag is kept apart from "no input". */
	a = classify("--help");
	CHECK(a != NULL);
	CHECK_INT_EQ(1, a->info);
	CHECK_STR_EQ("info", ks_args_mode_name(a->mode));
}

TEST(values_taken_as_is)
{
	const struct ks_args *a;

	/* A value is the next word whatever it looks like: -c k.cu -o -x
	 * writes a file named "-x"; "-I -c k.cu" adds the include path
	 * "-c" and links. */
	a = classify("-c k.cu -o -x");
	CHECK(a != NULL);
	CHECK_STR_EQ("-x", a->output);
	a = classify("-I -c k.cu");
	CHECK(a != NULL);
	CHECK_INT_EQ(KS_MODE_COMPILE_LINK, a->mode);
	CHECK_STR_EQ("-I-c", joined(&a->includes));
	/* Forwarded lists are never inputs. */
	a = classify("-c k.cu -Xcompiler x.cu -Xlinker y.o -Xptxas z.cu "
		     "-Xnvlink w.o -Xarchive v.a");
	CHECK(a != NULL);
	CHECK_STR_EQ("k.cu:cu", inputs_of(a));
}

TEST(missing_value)
{
	/* "argument expected after '-o'": the words cannot be read. */
	CHECK_NULL(classify("-c k.cu -o"));
	CHECK(strstr(err_.buf, "'-o'") != NULL);
	CHECK_NULL(classify("-c k.cu -Xcompiler"));
	CHECK_NULL(classify("-c k.cu --output-file"));
	CHECK_NULL(classify("-c k.cu -rdc"));
	/* An options file left in the words is not an error, but not
	 * eligible either. */
	CHECK(classify("-c k.cu -optf x.rsp") != NULL);
	CHECK_STR_EQ("options-file", args_.rejected);
}

/* ------------------------------------------------------------------ */

static const struct env_case {
	const char *value;
	const char *words;	/* joined by '|', NULL: error */
} env_cases[] = {
	{ "", "" },
	{ "-DA=1  -DB=2", "-DA=1|-DB=2" },
	/* Tabs split too, other blanks do not: -DA=1\n-DB=2 is one -D. */
	{ "\t-DA=1\t-DB=2 ", "-DA=1|-DB=2" },
	{ "-DA=1\n-DB=2", "-DA=1\n-DB=2" },
	{ "-DA=1\r-DB=2", "-DA=1\r-DB=2" },
	/* Double quotes group and stay: gcc got -D "A=\"x y\"". */
	{ "-DA=\"x y\"", "-DA=\"x y\"" },
	{ "-o \"x y.o\"", "-o|\"x y.o\"" },
	{ "-o x\"y z\".o", "-o|x\"y z\".o" },
	/* Single quotes are ordinary ("A single input file is required":
	 * y' became an input). */
	{ "-DA='x y'", "-DA='x|y'" },
	/* A backslash escapes only inside quotes: -DA=x\ y splits
	 * ("Stray '' character" from the -D list), "x\" y.o" does not. */
	{ "-DA=x\\ y", "-DA=x\\|y" },
	{ "-o \"x\\\" y.o\"", "-o|\"x\\\" y.o\"" },
	{ "-o a\\\\\" b\".o", "-o|a\\\\\" b\".o" },
	/* "Stray '\"' character". */
	{ "-o \"x y.o", NULL },
	{ "-o x\\\"y.o", NULL },
};

static const char *
joined_bar(const struct ks_strv *sv)
{
	static char buf[1024];
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < sv->n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s",
					i ? "|" : "", sv->v[i]);
	return buf;
}

TEST(split_env)
{
	size_t i;

	for (i = 0; i < KS_ARRAY_SIZE(env_cases); i++) {
		struct ks_strv out = KS_STRV_INIT;
		struct ks_buf err = KS_BUF_INIT;
		int rc = ks_args_split_env(env_cases[i].value, &out, &err);
		int ok = env_cases[i].words
				 ? rc == 0 && !strcmp(env_cases[i].words,
						      joined_bar(&out))
				 : rc == -1 && err.len > 0;

		if (!ok)
			TEST_FAIL_("[%s]: rc %d, words [%s], err %s",
				   env_cases[i].value, rc, joined_bar(&out),
				   err.buf);
		ks_strv_release(&out);
		ks_buf_release(&err);
		if (!ok)
			return;
	}
}

static const struct env_case list_cases[] = {
	{ "A=1,B=2", "A=1|B=2" },
	{ "1\\,2", "1,2" },
	/* Quotes protect commas and stay: -D "B=\"x,y\"". */
	{ "B=\"x,y\"", "B=\"x,y\"" },
	/* Single quotes do not: -D "C='p" -D "q'". */
	{ "C='p,q'", "C='p|q'" },
	/* A backslash yields the next character: -DA=x\y,z gives -D
	 * "A=xy" -D "z"; a\\b gives a\b. */
	{ "A=x\\y,z", "A=xy|z" },
	{ "A=a\\\\b", "A=a\\b" },
	{ "A=\"x\\\"y\"", "A=\"x\"y\"" },
	/* -DA,,B, gives -D "A" -D "B"; -I '' adds nothing. */
	{ "A,,B,", "A|B" },
	/* Items are trimmed, escaped blanks too, quoted ones not:
	 * -D' A' gives -D "A", -D'A\ ' -D "A", -D'"A "' -D "\"A \"". */
	{ " A", "A" },
	{ "A ,  B", "A|B" },
	{ "A, ,B", "A|B" },
	{ "\tA\t", "A" },
	{ "A\\ \\ ", "A" },
	{ "A B", "A B" },
	{ "\"A \"", "\"A \"" },
	{ " \" A\" ", "\" A\"" },
	{ " ", "" },
	{ "", "" },
	{ "A=\"x", NULL },
	{ "a\\", NULL },
};

TEST(split_list)
{
	size_t i;

	for (i = 0; i < KS_ARRAY_SIZE(list_cases); i++) {
		struct ks_strv out = KS_STRV_INIT;
		struct ks_buf err = KS_BUF_INIT;
		int rc = ks_args_split_list(list_cases[i].value, &out, &err);
		int ok = list_cases[i].words
				 ? rc == 0 && !strcmp(list_cases[i].words,
						      joined_bar(&out))
				 : rc == -1 && err.len > 0;

		if (!ok)
			TEST_FAIL_("[%s]: rc %d, words [%s], err %s",
				   list_cases[i].value, rc, joined_bar(&out),
				   err.buf);
		ks_strv_release(&out);
		ks_buf_release(&err);
		if (!ok)
			return;
	}
}

/* ------------------------------------------------------------------ */

/* Expand `line` (words split at spaces; "%D" is replaced by the scratch
 * directory); the words joined by '|', or NULL on error. */
static const char *
expand(const char *line)
{
	static char buf[4096];
	struct ks_strv in = KS_STRV_INIT, out = KS_STRV_INIT;
	struct ks_buf text = KS_BUF_INIT;
	const char *p;
	int rc;

	for (p = line; *p; p++) {
		if (p[0] == '%' && p[1] == 'D') {
			ks_buf_adds(&text, test_tmpdir());
			p++;
		} else {
			ks_buf_addch(&text, *p);
		}
	}
	words(text.buf, &in);
	ks_buf_release(&err_);
	rc = ks_args_expand(&in, &out, &err_);
	snprintf(buf, sizeof(buf), "%s", joined_bar(&out));
	ks_strv_release(&in);
	ks_strv_release(&out);
	ks_buf_release(&text);
	return rc ? NULL : buf;
}

/* Write `text` as `name` in the scratch directory. */
static void
file(const char *name, const char *text)
{
	test_write(test_tmpdir(), name, text);
}

TEST(expand_quoting)
{
	/* Each file was given to nvcc as -optf o.rsp and the -o value or
	 * -D value read back from --dryrun. */
	static const struct env_case cases[] = {
		/* Newlines and CR LF separate. */
		{ "-DA=1\n-DB=2", "-DA=1|-DB=2" },
		{ "-DA=1\r\n-DB=2\r\n", "-DA=1|-DB=2" },
		{ "\t -c \n", "-c" },
		{ "", "" },
		/* Quotes group and go: -D "A=x y"; "-DA=x y" is one word. */
		{ "-DA=\"x y\"", "-DA=x y" },
		{ "\"-DA=x y\"", "-DA=x y" },
		{ "-o \"x y\".o", "-o|x y.o" },
		{ "-o x\" \"y.o", "-o|x y.o" },
		{ "-o \"\"", "-o|" },
		/* Single quotes and '#' are ordinary ("Don't know what to do
		 * with 'y''", "... with 'comment'"). */
		{ "-DA='x y'", "-DA='x|y'" },
		{ "# comment\n-DA=1", "#|comment|-DA=1" },
		{ "-o x'y.o", "-o|x'y.o" },
		/* A backslash yields the next character, also a blank. */
		{ "-o x\\ y.o", "-o|x y.o" },
		{ "-o a\\\\b.o", "-o|a\\b.o" },
		{ "-o a\\b.o", "-o|ab.o" },
		{ "-o a\\\\", "-o|a\\" },
		{ "-o a\\\\\\\\\\\\", "-o|a\\\\\\" },
		/* Quotes go unless a backslash precedes them after the
		 * escapes: x\"y.o names xy.o, "x\" y.o" names x y.o,
		 * "a\\" names a\", a\\"b c" names a\"b c. */
		{ "-o x\\\"y.o", "-o|xy.o" },
		{ "-o \"x\\\" y.o\"", "-o|x y.o" },
		{ "-o a\\\"", "-o|a" },
		{ "-o \"a\\\"b\"", "-o|ab" },
		{ "-o \"a\\\\\"", "-o|a\\\"" },
		{ "-o \"a\\\\\\\\\"", "-o|a\\\\\"" },
		{ "-o a\\\\\"b c\"", "-o|a\\\"b c" },
		{ "-o a\\\\\\\"b", "-o|a\\\"b" },
		/* Escaped blanks at a word's ends go, and a word of them
		 * vanishes (-o x \<space> names x); quoted ones stay. */
		{ "-o x\\ ", "-o|x" },
		{ "-o \\ x", "-o|x" },
		{ "-o \\  x", "-o|x" },
		{ "-o x\\\t", "-o|x" },
		{ "-o \"x \"", "-o|x " },
		{ "-o \" x\"", "-o| x" },
		{ "-o x \" \"", "-o|x| " },
		{ "-o x \"\" ", "-o|x|" },
		{ "-o x\\\n", "-o|x\n" },
		{ "-o x \\\n", "-o|x|\n" },
		{ "-o x\\\v", "-o|x\v" },
		/* "Stray '\"' character", "Stray '' character". */
		{ "-o \"x y.o", NULL },
		{ "-o a\\", NULL },
	};
	size_t i;
	char line[128];
	const char *got;

	snprintf(line, sizeof(line), "-optf %s/o.rsp", test_tmpdir());
	for (i = 0; i < KS_ARRAY_SIZE(cases); i++) {
		file("o.rsp", cases[i].value);
		got = expand(line);
		if ((got == NULL) != (cases[i].words == NULL) ||
		    (got && strcmp(got, cases[i].words))) {
			TEST_FAIL_("[%s]: got [%s], want [%s] (%s)",
				   cases[i].value, got ? got : "(error)",
				   cases[i].words ? cases[i].words : "(error)",
				   err_.buf);
			return;
		}
	}
}

TEST(expand_files)
{
	const char *got;

	file("a.rsp", "-DA=1 -DB=2");
	file("b.rsp", "-DC=3");
	file("c.rsp", "-DD=4");
	/* Spliced in place; comma lists; both spellings and = forms. */
	got = expand("-c -optf %D/a.rsp k.cu --options-file=%D/b.rsp,%D/c.rsp "
		     "-optf=%D/c.rsp");
	CHECK(got != NULL);
	CHECK_STR_EQ("-c|-DA=1|-DB=2|k.cu|-DC=3|-DD=4|-DD=4", got);
	/* A nested path is relative to the working directory, not to the
	 * including file (nvcc read ./b.rsp, not sub/b.rsp): b.rsp sits
	 * beside n.rsp, not in the working directory. */
	file("n.rsp", "-DN -optf b.rsp");
	got = expand("-optf %D/n.rsp");
	CHECK(got == NULL);
	CHECK(strstr(err_.buf, "'b.rsp'") != NULL);
	{
		char text[512];

		snprintf(text, sizeof(text), "-DN -optf %s/b.rsp",
			 test_tmpdir());
		file("n.rsp", text);
	}
	got = expand("-optf %D/n.rsp");
	CHECK(got != NULL);
	CHECK_STR_EQ("-DN|-DC=3", got);
	/* A -optf that is another option's value is left alone; so is
	 * @file. */
	got = expand("-Xcompiler -optf x.rsp @y.rsp -o -optf");
	CHECK(got != NULL);
	CHECK_STR_EQ("-Xcompiler|-optf|x.rsp|@y.rsp|-o|-optf", got);
	/* "Could not open options file 'nope.rsp'". */
	CHECK_NULL(expand("-optf %D/nope.rsp"));
	CHECK(strstr(err_.buf, "nope.rsp") != NULL);
	/* "argument expected after '-o'" even when a word follows the
	 * file: each file is read on its own. */
	file("end.rsp", "-DA=1 -o");
	CHECK_NULL(expand("-optf %D/end.rsp k.cu"));
	CHECK(strstr(err_.buf, "end.rsp") != NULL);
	/* A value in the same file is fine. */
	file("end.rsp", "-o\nk.o");
	CHECK_STR_EQ("-o|k.o", expand("-optf %D/end.rsp"));
	/* -optf without a value at the end of argv. */
	CHECK_NULL(expand("-c -optf"));
}

TEST(expand_depth)
{
	char name[32], text[512];
	int i;

	/* A chain of 15 files is read; a 16th level fails ("Too many
	 * options file opened"), as does a file including itself. */
	for (i = 0; i < 16; i++) {
		snprintf(name, sizeof(name), "c%d.rsp", i);
		snprintf(text, sizeof(text), "-DL%d -optf %s/c%d.rsp", i,
			 test_tmpdir(), i + 1);
		file(name, text);
	}
	file("c15.rsp", "-DEND");
	CHECK(expand("-optf %D/c1.rsp") != NULL);
	CHECK_NULL(expand("-optf %D/c0.rsp"));
	CHECK(strstr(err_.buf, "deeper") != NULL);
	snprintf(text, sizeof(text), "-optf %s/self.rsp", test_tmpdir());
	file("self.rsp", text);
	CHECK_NULL(expand("-optf %D/self.rsp"));
}

TEST(expand_then_classify)
{
	struct ks_strv in = KS_STRV_INIT, out = KS_STRV_INIT;
	const struct ks_args *a;
	char line[1024];
	const char *why;
	int rc;

	/* CMake's Makefile generator: objects and libraries of the device
	 * link in options files (contents as CMake 3.25 wrote them). */
	file("deviceObjects1", "CMakeFiles/app.dir/main.cu.o\n");
	file("deviceLinkLibs.rsp", " libt.a -lcudadevrt -lcudart_static "
				   "-lrt -lpthread -ldl \n");
	file("includes_CUDA.rsp", "-I/x\n");
	snprintf(line, sizeof(line),
		 "-forward-unknown-to-host-compiler "
		 "--generate-code=arch=compute_80,code=[compute_80,sm_80] "
		 "-Xcompiler=-fPIC -Wno-deprecated-gpu-targets -shared -dlink "
		 "--options-file %s/deviceObjects1 "
		 "-o CMakeFiles/app.dir/cmake_device_link.o "
		 "--options-file %s/deviceLinkLibs.rsp",
		 test_tmpdir(), test_tmpdir());
	words(line, &in);
	rc = ks_args_expand(&in, &out, &err_);
	a = rc ? NULL : classify_words(&out);
	ks_strv_release(&in);
	ks_strv_release(&out);
	CHECK(a != NULL);
	CHECK_INT_EQ(KS_MODE_DLINK, a->mode);
	CHECK_STR_EQ("CMakeFiles/app.dir/main.cu.o:obj libt.a:lib",
		     inputs_of(a));
	CHECK_NULL(a->rejected);

	snprintf(line, sizeof(line),
		 "-forward-unknown-to-host-compiler -DFOO --options-file "
		 "%s/includes_CUDA.rsp "
		 "--generate-code=arch=compute_90,code=[compute_90,sm_90] "
		 "-std=c++17 -MD -MT CMakeFiles/t.dir/a.cu.o "
		 "-MF CMakeFiles/t.dir/a.cu.o.d -x cu -rdc=true -c /src/a.cu "
		 "-o CMakeFiles/t.dir/a.cu.o", test_tmpdir());
	words(line, &in);
	rc = ks_args_expand(&in, &out, &err_);
	a = rc ? NULL : classify_words(&out);
	ks_strv_release(&in);
	ks_strv_release(&out);
	CHECK(a != NULL);
	CHECK_STR_EQ("-I/x", joined(&a->includes));
	CHECK_STR_EQ("-DFOO", joined(&a->defines));
	CHECK_STR_EQ("-DFOO -std=c++17", joined(&a->devflags));
	CHECK_INT_EQ(1, a->relocatable);
	CHECK_STR_EQ("CMakeFiles/t.dir/a.cu.o.d", a->depfile);
	CHECK(ks_args_eligible(a, &why));
}

TEST(env_then_classify)
{
	struct ks_strv argv = KS_STRV_INIT;
	const struct ks_args *a;
	const char *why;

	/* NVCC_PREPEND_FLAGS go first and NVCC_APPEND_FLAGS last (-v shows
	 * them as #$ lines; -DP=1 prepended and -UP appended give gcc
	 * -D "P=1" -U "P"), and may hold -optf. */
	CHECK_INT_EQ(0, ks_args_split_env("-DP=1 -lineinfo", &argv, &err_));
	ks_strv_push(&argv, "-c");
	ks_strv_push(&argv, "k.cu");
	CHECK_INT_EQ(0, ks_args_split_env(" -UP\t-arch=sm_90 ", &argv,
					  &err_));
	a = classify_words(&argv);
	ks_strv_release(&argv);
	CHECK(a != NULL);
	CHECK_STR_EQ("-DP=1 -UP", joined(&a->defines));
	CHECK_STR_EQ("-DP=1 -lineinfo -UP", joined(&a->devflags));
	CHECK_STR_EQ("compute_90:sm_90 compute_90:", archs_of(a));
	CHECK(ks_args_eligible(a, &why));
	CHECK_NULL(why);
}

TEST(names)
{
	CHECK_STR_EQ("compile", ks_args_mode_name(KS_MODE_COMPILE));
	CHECK_STR_EQ("other", ks_args_mode_name(KS_MODE_OTHER));
	CHECK_STR_EQ("cu", ks_args_lang_name(KS_LANG_CU));
	CHECK_STR_EQ("other", ks_args_lang_name(KS_LANG_OTHER));
}

static void
cleanup(void)
{
	ks_args_release(&args_);
	ks_buf_release(&err_);
}

void
ks_suite_args(void)
{
	RUN(command_lines);
	RUN(archs);
	RUN(arch_symbolic);
	RUN(reaches);
	RUN(devflags);
	RUN(unknown_forwarded);
	RUN(includes_defines);
	RUN(depfiles);
	RUN(dep_fields);
	RUN(fields);
	RUN(values_taken_as_is);
	RUN(missing_value);
	RUN(split_env);
	RUN(split_list);
	RUN(expand_quoting);
	RUN(expand_files);
	RUN(expand_depth);
	RUN(expand_then_classify);
	RUN(env_then_classify);
	RUN(names);
	cleanup();
}
