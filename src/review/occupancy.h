/*
 * occupancy: how many blocks of a kernel fit on one SM, and what limits
 * them (warps, registers, shared memory, the block count), from the
 * kernel's attributes and the device's limits. Pure; the CUDA occupancy
 * API (cuOccupancyMaxActiveBlocksPerMultiprocessor) remains the authority
 * on the block count, and ks-replay reports both. Registers are allocated
 * per warp in units of 256, shared memory per block in units of 128 bytes
 * plus the device's per-block reservation.
 * May include: libc.
 */
#ifndef KS_REVIEW_OCCUPANCY_H
#define KS_REVIEW_OCCUPANCY_H

struct ks_occ_device {
	int max_threads_sm;	/* 2048 */
	int max_blocks_sm;	/* 32 */
	int regs_sm;		/* 65536 */
	int smem_sm;		/* bytes, 233472 on sm_90 */
	int smem_reserved_block;	/* bytes, 1024 on sm_80 and later */
};

struct ks_occ_kernel {
	int threads;		/* per block */
	int regs;		/* per thread */
	int smem;		/* static + dynamic bytes per block */
};

struct ks_occ {
	int by_warps, by_regs, by_smem, by_blocks;	/* blocks per SM under each */
	int blocks;		/* the least of them */
	double occupancy_pct;	/* blocks * warps per block / warps per SM */
	const char *limiter;	/* "warps", "registers", "shared", "blocks" */
};

void ks_occupancy(const struct ks_occ_device *d, const struct ks_occ_kernel *k,
		  struct ks_occ *o);

#endif
