/*
 * report: what `ks report` shows, as pure functions over a model of a
 * benchmark run or of a state directory's optimize tasks.
 *
 * The model (struct ks_report) comes from a results JSON written by
 * bench/tools/summarize.py (ks_report_parse_results) or from the tasks'
 * trajectories alone (ks_report_kernel_from_traj); the CLI (src/cli/
 * report.c) reads the files and fills in each kernel's trajectory and
 * sources. Renderers append to a buffer: the terminal table
 * (ks_report_text), one self-contained HTML page with inline CSS and SVG
 * (ks_report_html: summary tables, per kernel the code diff, the skill
 * trail with each decision's justification, the best speedup per round,
 * the roofline position and the metrics before and after), and JSON.
 *
 * Honesty: a number the data does not hold is NAN (a count: -1) and is
 * shown as "—"; nothing is estimated. Every text from the data is escaped
 * in the HTML.
 *
 * Ownership: struct ks_report owns its kernels, and each kernel its
 * strings and trajectory; ks_report_release() frees them (safe on a
 * zeroed struct).
 * May include: libc, core/, memory/ (trajectory.h), cache/ (rewrite.h),
 * <cjson/cJSON.h> through core/json.h.
 */
#ifndef KS_REPORT_REPORT_H
#define KS_REPORT_REPORT_H

#include <stddef.h>

#include "../memory/trajectory.h"

struct ks_buf;

/* The summary of a run (summarize.py's names); NAN or -1: not in the data. */
struct ks_report_summary {
	long kernels, verified, in_program, wrong, torch_kernels;
	double success_rate, fast_1, fast_2;
	double mean_speedup, geomean_speedup;
	double mean_program_speedup, geomean_program_speedup;
	double mean_speedup_vs_torch, geomean_speedup_vs_torch;
	double geomean_floor_pct_before, geomean_floor_pct_after;
	double gpu_minutes, review_gpu_minutes;
	/* The loop's goal: kernels below KS_REPORT_HEADROOM_PCT of their
	 * floor before, those of them verified; variants in the program
	 * whose program ran slower; the most reviews and GPU seconds of
	 * one task. -1 or NAN: not known. */
	long headroom_kernels, headroom_verified, slower_in_program, max_rounds;
	double max_task_gpu_s;
};

/* A kernel below this % of its floor has headroom. */
#define KS_REPORT_HEADROOM_PCT 80.0

struct ks_report_kernel {
	char *program;		/* NULL: a task without a program */
	char *kernel;		/* the program's name for it, or the task's */
	char *task, *demangled, *skills, *end, *bound;
	char *vendor_kernel, *torch_op;
	double bytes, flops;
	double original_ms, after_ms;		/* the program's, or the seed's */
	double review_original_ms, review_best_ms, review_speedup;
	double speedup, program_speedup;
	double floor_ms, floor_pct_before, floor_pct_after;
	double vendor_ms, torch_ms, speedup_vs_torch;
	double gpu_s;
	long rounds;
	int verified, in_program, wrong;
	/* The details (filled by the caller; NULL or empty when absent). */
	char *task_dir, *source_file;	/* as the results name them */
	char *orig_src;		/* the original kernel's definition */
	char *variant_src;	/* the best variant's definition */
	char *variant_helpers;	/* its helpers, or NULL */
	struct ks_traj traj;
};

struct ks_report_ablation {
	char *name;
	struct ks_report_summary s;
};

struct ks_report {
	char *date, *gpu, *driver, *nvcc, *mode, *ks_version, *command;
	double copy_gbps, sgemm_tflops;
	long rounds;
	struct ks_report_kernel *k;
	size_t n;
	int have_summary;
	struct ks_report_summary s;
	struct ks_report_ablation *abl;
	size_t nabl;
	double min_gain;	/* the base rule's ratio, for the trajectories */
};

void ks_report_init(struct ks_report *r);
void ks_report_release(struct ks_report *r);
void ks_report_kernel_init(struct ks_report_kernel *k);
void ks_report_summary_init(struct ks_report_summary *s);

/* Pure: a results JSON (summarize.py --merge) into `r`. */
int ks_report_parse_results(const char *text, struct ks_report *r,
			    struct ks_buf *err);

/* Append a zeroed kernel to `r` and return it. */
struct ks_report_kernel *ks_report_add(struct ks_report *r);

/*
 * Pure: a kernel's numbers from its task's trajectory (k->traj) alone:
 * the seed's original time, the best real gain (its own interleaved
 * review), the skills that led to it, the reviews and the GPU time.
 */
void ks_report_kernel_from_traj(struct ks_report_kernel *k, double min_gain);

/*
 * Pure: the summary of kernels made from trajectories: counts, the share
 * verified, fast_1/fast_2 and the speedups (1 for a kernel without a
 * verified variant), the Reviewer's GPU-minutes; the rest NAN.
 */
void ks_report_summarize_tasks(const struct ks_report *r,
			       struct ks_report_summary *s);

/* Pure: the best speedup after each record of `t` (0 for none yet), into
 * out[0..t->n) (room for t->n). */
void ks_report_best_per_round(const struct ks_traj *t, double min_gain,
			      double *out);

/* A number as the report writes it, by kind: 'g' a time (4 digits), 'x'
 * and 'X' a ratio (2 and 3 decimals), 'p' a percentage, '0', '1', '2'
 * that many decimals. Both renderers use it, so the page and the table
 * agree to the digit. */
void ks_report_num(char *b, size_t size, char kind, double v);

/*
 * Pure: why kernel `k` has no verified variant, from its trajectory: its
 * candidates by outcome (rejected, failed to compile, declined, correct
 * but not faster by the base rule, with the best ratio), the first
 * rejection's stage and reason, and how the task ended where known.
 * Nothing for a kernel with a variant or without reviewed steps.
 */
void ks_report_why_none(const struct ks_report_kernel *k, struct ks_buf *out);

/* Pure: the terminal table (per kernel, then the totals, then why each
 * kernel without a variant has none). */
void ks_report_text(const struct ks_report *r, struct ks_buf *out);

/* Pure: the report as one JSON object. */
void ks_report_json(const struct ks_report *r, struct ks_buf *out);

/* Pure: the whole HTML page. */
void ks_report_html(const struct ks_report *r, struct ks_buf *out);

/* Pure pieces of the page (tested alone). */
void ks_report_html_escape(struct ks_buf *out, const char *s);
void ks_report_diff_html(const char *a, const char *b, struct ks_buf *out);
void ks_report_svg_trajectory(const struct ks_traj *t, double min_gain,
			      struct ks_buf *out);
void ks_report_svg_roofline(const struct ks_report_kernel *k, double copy_gbps,
			    double sgemm_tflops, struct ks_buf *out);

#endif
