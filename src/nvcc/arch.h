/*
 * arch: the one reading of an nvcc target name ("sm_90a", "compute_100f",
 * "lto_90"): a kind, a number and an optional suffix, 'a' (arch-specific)
 * or 'f' (family). Anything else is not a target nvcc 13.0 accepts.
 * Pure.
 * May include: libc, core/util.h.
 */
#ifndef KS_NVCC_ARCH_H
#define KS_NVCC_ARCH_H

enum ks_arch_kind {
	KS_ARCH_SM,		/* real: SASS */
	KS_ARCH_COMPUTE,	/* virtual: PTX */
	KS_ARCH_LTO,		/* LTO IR */
};

struct ks_arch_target {
	enum ks_arch_kind kind;
	long number;		/* 90 of sm_90a */
	char suffix;		/* 'a', 'f' or 0 */
	const char *digits;	/* into the parsed name: "90a" */
};

/* Pure: parse `name`. Returns 0, or -1 when it is not a target's shape. */
int ks_arch_parse(const char *name, struct ks_arch_target *out);

/* "sm_", "compute_", "lto_". */
const char *ks_arch_prefix(enum ks_arch_kind k);

/*
 * The real targets nvcc 13.0 builds, oldest first (`nvcc --list-gpu-code`,
 * without the arch-specific ones): the GPUs whose arch a kernel key may
 * name. *n gets their count.
 */
const char *const *ks_arch_known_reals(unsigned long *n);

/* Pure: the newest (highest number) of `n` names that parse, or NULL. */
const char *ks_arch_newest(const char *const *names, unsigned long n);

#endif
