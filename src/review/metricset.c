#include "metricset.h"

#include <string.h>

static const struct ks_metric_def defs[] = {
	{ "duration_ns", "gpu__time_duration.sum", "kernel duration" },
	{ "dram_pct", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
	  "DRAM throughput, % of peak" },
	{ "l2_pct", "lts__throughput.avg.pct_of_peak_sustained_elapsed",
	  "L2 throughput, % of peak" },
	{ "l1_pct", "l1tex__throughput.avg.pct_of_peak_sustained_active",
	  "L1/TEX throughput, % of peak" },
	{ "sm_pct", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
	  "SM throughput, % of peak" },
	{ "achieved_occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active",
	  "achieved occupancy, % of the warps an SM can hold" },
	{ "theoretical_occupancy", "sm__maximum_warps_per_active_cycle_pct",
	  "theoretical occupancy, %" },
	{ "stall_long_scoreboard",
	  "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
	  "warps waiting on L1TEX (global, local, texture) per issue" },
	{ "stall_short_scoreboard",
	  "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio",
	  "warps waiting on MIO (shared memory, special functions) per issue" },
	{ "stall_no_instruction",
	  "smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio",
	  "warps waiting for instructions per issue" },
	{ "stall_not_selected",
	  "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio",
	  "eligible warps not selected per issue" },
	{ "branch_uniform_pct", "smsp__sass_average_branch_targets_threads_uniform.pct",
	  "branches whose threads all go one way, %" },
	{ "threads_per_inst", "smsp__thread_inst_executed_per_inst_executed.ratio",
	  "active threads per executed instruction (32: no divergence)" },
	{ "pred_on_threads_per_inst",
	  "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio",
	  "predicated-on threads per executed instruction" },
	{ "eligible_warps", "smsp__warps_eligible.avg.per_cycle_active",
	  "eligible warps per scheduler per cycle" },
	{ "l1_hit_pct", "l1tex__t_sector_hit_rate.pct", "L1 sector hit rate, %" },
	{ "l2_hit_pct", "lts__t_sector_hit_rate.pct", "L2 sector hit rate, %" },
};

const struct ks_metric_def *
ks_metricset(size_t *n)
{
	*n = sizeof(defs) / sizeof(defs[0]);
	return defs;
}

const struct ks_metric_def *
ks_metricset_find_metric(const char *metric)
{
	size_t i;

	for (i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
		if (!strcmp(defs[i].metric, metric))
			return &defs[i];
	return NULL;
}
