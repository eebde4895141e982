/*
 * ksnvcc: the ks-nvcc driver, from argv to the exec of the real nvcc.
 *
 * Order (every branch ends in ks_passthru_exec):
 *   launcher or compiler form -> find the real nvcc (or die, exit 100)
 *   -> KS_DISABLE -> nested below another ks-nvcc -> config error
 *   -> classify argv -> neither a single-source CUDA compile nor a
 *      one-command build (compile and link, or -lib) with CUDA sources
 *   -> record the compile (a one-command build: each CUDA source's compile
 *      alone, nvcc/onecmd.h) -> substitute verified variants (subst.h:
 *      ks-nvcc exits with nvcc's status when it compiled a rewritten TU;
 *      a one-command build once every CUDA source of it is recorded)
 *   -> exec the real nvcc with the argv unchanged.
 * Each outcome adds to one stats counter. Nothing is printed on the way.
 * May include: libc, core/, nvcc/ (passthru.h, args.h, record.h, nvccver.h,
 * onecmd.h), cache/, subst.h.
 */
#ifndef KS_WRAPPER_KSNVCC_H
#define KS_WRAPPER_KSNVCC_H

int ks_nvcc_main(int argc, char **argv);

/*
 * Pure: is `arg1`, the first argument, the real compiler given by a
 * launcher (CMAKE_CUDA_COMPILER_LAUNCHER passes "ks-nvcc /path/to/nvcc
 * args")? `is_exec` says whether it names an executable file. A name
 * nvcc takes as an input (a .so, .o, .a, .cu... or a versioned .so.N)
 * is an input, not a compiler.
 */
int ks_nvcc_is_launcher_form(const char *arg1, int is_exec);

#endif
