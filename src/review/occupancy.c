#include "occupancy.h"

#include <limits.h>
#include <string.h>

static int
round_up(int v, int unit)
{
	return (v + unit - 1) / unit * unit;
}

void
ks_occupancy(const struct ks_occ_device *d, const struct ks_occ_kernel *k,
	     struct ks_occ *o)
{
	int warps = (k->threads + 31) / 32, max_warps = d->max_threads_sm / 32;
	int smem;

	memset(o, 0, sizeof(*o));
	if (warps <= 0 || max_warps <= 0) {
		o->limiter = "warps";
		return;
	}
	o->by_warps = max_warps / warps;
	o->by_blocks = d->max_blocks_sm;
	if (k->regs > 0) {
		int per_warp = round_up(k->regs * 32, 256);

		o->by_regs = d->regs_sm / per_warp / warps;
	} else {
		o->by_regs = INT_MAX;
	}
	smem = round_up(k->smem + d->smem_reserved_block, 128);
	o->by_smem = smem > 0 ? d->smem_sm / smem : INT_MAX;

	o->blocks = o->by_warps;
	o->limiter = "warps";
	if (o->by_regs < o->blocks) {
		o->blocks = o->by_regs;
		o->limiter = "registers";
	}
	if (o->by_smem < o->blocks) {
		o->blocks = o->by_smem;
		o->limiter = "shared";
	}
	if (o->by_blocks < o->blocks) {
		o->blocks = o->by_blocks;
		o->limiter = "blocks";
	}
	o->occupancy_pct = 100.0 * o->blocks * warps / max_warps;
	if (o->occupancy_pct > 100)
		o->occupancy_pct = 100;
}
