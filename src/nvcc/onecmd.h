/*
 * onecmd: one-command builds as compiles ks can redo one source at a time.
 *
 * `nvcc -O3 a.cu b.cpp -o app` (or `nvcc -lib a.cu -o liba.a`) compiles
 * every source to a temporary object and links (or archives) them in one
 * nvcc command. ks keeps one build record per CUDA source of it (a .cu,
 * or any source under -x cu: nvcc's -x applies to every input wherever it
 * stands, the last one winning), whose argv is that source's compile alone
 * (ks_onecmd_compile_argv), with the whole command beside it (record.h:
 * `command_argv`, `source_index`). To compile a rewritten TU in a
 * source's place, substitution runs the whole command with that one
 * source replaced (ks_onecmd_replace_source): the command's own outputs,
 * written where they were. For a -c build the same replacement applies.
 *
 * `argv` is nvcc's arguments without argv[0], options files expanded (a
 * record's `command_argv`); a source is named by the index of its word in
 * argv, since the same path may be written twice.
 * Pure. Lists are appended to the caller's `out`.
 * May include: libc, core/, args.h, derive.h, nvopts.h.
 */
#ifndef KS_NVCC_ONECMD_H
#define KS_NVCC_ONECMD_H

#include <stddef.h>

struct ks_buf;
struct ks_strv;

/*
 * Pure: the index in argv of the `n`th (0-based) input word, in the order
 * ks_args_classify lists `inputs` (a word that is an option's value, as
 * in `-Xcompiler x.cu` or `-o x.cu`, is none); -1 when there are fewer,
 * or when an option before it lacks its value.
 */
long ks_onecmd_input_word(const char *const *argv, size_t argc, size_t n);

/*
 * Pure: the compile of the source argv[src] alone, as the command
 * compiled it: argv without the other inputs, without the options that
 * name outputs or dependency files and those only the link or the archive
 * reads (derive.h, ks_derive_compile_only), with -c at the end unless a
 * compile phase (-c, -dc, -dw) is already there. Everything else stays,
 * in order: -x, -arch, -gencode, -rdc, -dlto, -ccbin, -Xcompiler, -Xptxas,
 * -I, -D, -std, ... The compile writes <source basename>.o in the working
 * directory; callers that run it add their own -o. Returns 0, or -1 with
 * a message when argv[src] is not an input word or an option lacks its
 * value.
 */
int ks_onecmd_compile_argv(const char *const *argv, size_t argc, size_t src,
			   struct ks_strv *out, struct ks_buf *err);

/*
 * Pure: the whole command with the word argv[src] replaced by `path`.
 * Where nvcc would name an output after the source (-c without -o writes
 * x.o; -MD without -MF and without -o writes x.d), the original names are
 * added at the end (-o, -MF), so the command writes the same files. What
 * it cannot keep: a depfile then lists `path`, not the source, and a
 * diagnostic names `path`. `path` must give nvcc the source's language: a
 * .cu, unless -x cu applies. Returns 0, or -1 with a message when
 * argv[src] is not an input word, an option lacks its value, or the
 * command does not classify (ks_args_classify).
 */
int ks_onecmd_replace_source(const char *const *argv, size_t argc, size_t src,
			     const char *path, struct ks_strv *out,
			     struct ks_buf *err);

/*
 * Pure: the same for `n` sources at once: argv[src[i]] replaced by
 * paths[i] for each i (the indices of input words, in any order), the
 * names nvcc would give outputs added once. Returns 0, or -1 with a
 * message as ks_onecmd_replace_source.
 */
int ks_onecmd_replace_sources(const char *const *argv, size_t argc,
			      const size_t *src, const char *const *paths,
			      size_t n, struct ks_strv *out, struct ks_buf *err);

#endif
