/*
 * keyflags: which forwarded words the kernel key leaves out.
 *
 * The key (cache/key.h) hashes the classifier's device-code flags
 * (args.h `devflags`). nvcc hands -Xcompiler words (and unknown options
 * under -forward-unknown-to-host-compiler) to the host compiler twice:
 * for the host object, and for the device side's preprocessing (`gcc
 * -D__CUDA_ARCH__=N -E ... <words>`), so in general they can change
 * device code. The words below cannot, beyond what the rows say: checked
 * with `gcc -E -dM` with and without each (GCC 12):
 *   - warnings and diagnostics (-W..., but not -Wp, which passes words to
 *     the preprocessor; -w; -fdiagnostics-*, -fmax-errors=,
 *     -fmessage-length=): no macro changes;
 *   - debug information (-g...), -pipe, frame pointers, sections,
 *     visibility: no macro changes;
 *   - host optimization (-O...): __OPTIMIZE__, __OPTIMIZE_SIZE__ and
 *     __NO_INLINE__ only; position-independent host code (-fPIC, -fpic,
 *     -fPIE, -fpie and their -fno- forms): __PIC__/__PIE__ only. No
 *     header of the CUDA toolkit tests these macros, and the C and C++
 *     libraries test them for host functions only; a kernel that tests
 *     them itself is not told apart (docs/MANUAL.md, "Kernel keys").
 * Anything else forwarded to the host compiler stays in the key.
 * Likewise the ptxas words that only change ptxas's messages (-v,
 * warnings) are left out; every other -Xptxas word stays.
 *
 * Pure; static data.
 * May include: libc, core/util.h.
 */
#ifndef KS_NVCC_KEYFLAGS_H
#define KS_NVCC_KEYFLAGS_H

/* Pure: is `word`, one item of a -Xcompiler list (or a forwarded unknown
 * option), host-only in the sense above? */
int ks_keyflags_host_only(const char *word);

/* Pure: is `word`, one item of a -Xptxas list, one that changes only
 * ptxas's messages (-v, --verbose, -warn-spills, -Werror, ...)? */
int ks_keyflags_ptxas_quiet(const char *word);

#endif
