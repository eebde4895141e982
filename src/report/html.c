/*
 * html: the report as one self-contained HTML page (report.h): inline
 * CSS, inline SVG, no script and nothing fetched. Every text that comes
 * from the data goes through ks_report_html_escape().
 */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/buf.h"
#include "../core/util.h"

static const char CSS[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1d2330;"
	"background:#f6f7f9;margin:0;padding:24px 32px;max-width:1280px}"
	"h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:0 0 8px}"
	"h3{font-size:14px;margin:16px 0 6px;color:#3b4556}"
	".meta{color:#5b6678;margin:0 0 18px}"
	"section{overflow-x:auto;background:#fff;border:1px solid #dde1e8;border-radius:8px;padding:16px 20px;"
	"margin:0 0 18px}"
	"table{border-collapse:collapse;font-variant-numeric:tabular-nums}"
	"th,td{padding:4px 10px;border-bottom:1px solid #e8ebf0;text-align:left;vertical-align:top}"
	"th{background:#f0f2f5;font-weight:600}td.n{text-align:right}"
	"table.kernels,table.trail{font-size:13px}"
	".yes{color:#17803d;font-weight:600}.no{color:#8a94a6}.bad{color:#c0262d;font-weight:700}"
	".charts{display:flex;flex-wrap:wrap;gap:18px}"
	".charts figure{margin:0}figcaption{color:#5b6678;font-size:12px}"
	"pre.diff{background:#fbfbfc;border:1px solid #e3e6eb;padding:8px;overflow:auto;"
	"font:12px/1.4 ui-monospace,Menlo,Consolas,monospace;max-height:480px}"
	".diff .del{background:#fde8e8;color:#8d1c1c;display:block}"
	".diff .add{background:#e4f6e8;color:#14632f;display:block}"
	".diff .ctx{display:block;color:#3b4556}"
	"td.why{max-width:420px;color:#3b4556}td.diag{max-width:360px;color:#8d1c1c}"
	"details{margin:6px 0}summary{cursor:pointer;color:#3b4556}"
	"svg text{font:11px system-ui,sans-serif;fill:#3b4556}"
	".none{color:#8a94a6;font-style:italic}";

void
ks_report_html_escape(struct ks_buf *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': ks_buf_adds(out, "&amp;"); break;
		case '<': ks_buf_adds(out, "&lt;"); break;
		case '>': ks_buf_adds(out, "&gt;"); break;
		case '"': ks_buf_adds(out, "&quot;"); break;
		case '\'': ks_buf_adds(out, "&#39;"); break;
		default: ks_buf_addch(out, *s);
		}
	}
}

static void
esc(struct ks_buf *out, const char *s)
{
	ks_report_html_escape(out, s);
}

/* A number cell, or "—". */
static void
td_num(struct ks_buf *out, char f, double v)
{
	char b[48];

	ks_buf_adds(out, "<td class=\"n\">");
	if (isnan(v)) {
		ks_buf_adds(out, "—");
	} else {
		ks_report_num(b, sizeof(b), f, v);
		ks_buf_adds(out, b);
	}
	ks_buf_adds(out, "</td>");
}

static void
td_count(struct ks_buf *out, long v)
{
	if (v < 0)
		ks_buf_adds(out, "<td class=\"n\">—</td>");
	else
		ks_buf_addf(out, "<td class=\"n\">%ld</td>", v);
}

static void
td_text(struct ks_buf *out, const char *s)
{
	ks_buf_adds(out, "<td>");
	if (s && *s)
		esc(out, s);
	else
		ks_buf_adds(out, "—");
	ks_buf_adds(out, "</td>");
}

/* ---- the diff ----------------------------------------------------------------- */

struct lines {
	const char **p;
	size_t *len;
	size_t n;
};

static void
split_lines(const char *s, struct lines *l)
{
	size_t cap = 16;

	l->n = 0;
	l->p = ks_xmalloc(cap * sizeof(*l->p));
	l->len = ks_xmalloc(cap * sizeof(*l->len));
	while (s && *s) {
		const char *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s) : strlen(s);

		if (l->n == cap) {
			cap *= 2;
			l->p = ks_xrealloc(l->p, cap * sizeof(*l->p));
			l->len = ks_xrealloc(l->len, cap * sizeof(*l->len));
		}
		l->p[l->n] = s;
		l->len[l->n++] = n;
		s += n + (e != NULL);
	}
}

static void
diff_line(struct ks_buf *out, const char *cls, char mark, const char *p, size_t n)
{
	char *t = ks_xstrndup(p, n);

	ks_buf_addf(out, "<span class=\"%s\">%c ", cls, mark);
	esc(out, t);
	ks_buf_adds(out, "</span>");
	free(t);
}

static int
same(const struct lines *a, size_t i, const struct lines *b, size_t j)
{
	return a->len[i] == b->len[j] && !memcmp(a->p[i], b->p[j], a->len[i]);
}

/* The lines of `a` and `b` in a longest-common-subsequence line diff. */
void
ks_report_diff_html(const char *a, const char *b, struct ks_buf *out)
{
	struct lines x, y;
	size_t i, j, w;
	unsigned *t;

	split_lines(a, &x);
	split_lines(b, &y);
	ks_buf_adds(out, "<pre class=\"diff\">");
	w = y.n + 1;
	if ((x.n + 1) * w > 4000000) {
		/* Too long for the table: all of one, then all of the other. */
		for (i = 0; i < x.n; i++)
			diff_line(out, "del", '-', x.p[i], x.len[i]);
		for (j = 0; j < y.n; j++)
			diff_line(out, "add", '+', y.p[j], y.len[j]);
		goto done;
	}
	t = ks_xcalloc((x.n + 1) * w, sizeof(*t));
	for (i = x.n; i-- > 0;)
		for (j = y.n; j-- > 0;)
			t[i * w + j] = same(&x, i, &y, j) ? t[(i + 1) * w + j + 1] + 1 :
				t[(i + 1) * w + j] >= t[i * w + j + 1] ? t[(i + 1) * w + j] :
				t[i * w + j + 1];
	for (i = j = 0; i < x.n || j < y.n;) {
		if (i < x.n && j < y.n && same(&x, i, &y, j)) {
			diff_line(out, "ctx", ' ', x.p[i], x.len[i]);
			i++, j++;
		} else if (j < y.n && (i == x.n || t[i * w + j + 1] > t[(i + 1) * w + j])) {
			diff_line(out, "add", '+', y.p[j], y.len[j]);
			j++;
		} else {
			diff_line(out, "del", '-', x.p[i], x.len[i]);
			i++;
		}
	}
	free(t);
done:
	ks_buf_adds(out, "</pre>\n");
	free(x.p);
	free(x.len);
	free(y.p);
	free(y.len);
}

/* ---- charts -------------------------------------------------------------------- */

#define TW 460
#define TH 220
#define ML 48
#define MR 14
#define MT 14
#define MB 36

/* Best speedup so far per record (a line), each reviewed candidate's
 * speedup (dots: verified filled, failed as crosses on the axis). */
void
ks_report_svg_trajectory(const struct ks_traj *t, double min_gain, struct ks_buf *out)
{
	double *best, top = 2, x0 = ML, x1 = TW - MR, y0 = TH - MB, y1 = MT;
	size_t i, n = t->n;

	if (n < 1) {
		ks_buf_adds(out, "<p class=\"none\">no trajectory</p>\n");
		return;
	}
	best = ks_xcalloc(n, sizeof(*best));
	ks_report_best_per_round(t, min_gain, best);
	for (i = 0; i < n; i++) {
		if (best[i] > top)
			top = best[i];
		if (ks_traj_verified(&t->v[i]) && t->v[i].parent >= 0 && t->v[i].speedup > top)
			top = t->v[i].speedup;
	}
	top *= 1.1;
#define SX(r) (x0 + (n > 1 ? (x1 - x0) * (double)(r) / (double)(n - 1) : (x1 - x0) / 2))
#define SY(v) (y0 - (y0 - y1) * (v) / top)
	ks_buf_addf(out, "<svg class=\"traj\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		    "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"best speedup "
		    "per round\">", TW, TH, TW, TH);
	ks_buf_addf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>", TW, TH);
	/* Axes, gridlines at 1x and at a few round values. */
	for (int g = 0; g <= 4; g++) {
		double v = top * g / 4;

		ks_buf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			    "stroke=\"#e8ebf0\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">"
			    "%.3g</text>", x0, SY(v), x1, SY(v), x0 - 6, SY(v) + 4, v);
	}
	ks_buf_addf(out, "<line class=\"one\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		    "stroke=\"#8a94a6\" stroke-dasharray=\"4 3\"/>", x0, SY(1.0), x1, SY(1.0));
	ks_buf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#3b4556\"/>",
		    x0, y0, x1, y0);
	ks_buf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#3b4556\"/>",
		    x0, y0, x0, y1);
	for (i = 0; i < n; i++)
		if (n <= 20 || i % ((n + 19) / 20) == 0)
			ks_buf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d</text>",
				    SX(i), y0 + 14, t->v[i].round);
	ks_buf_addf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">round</text>",
		    (x0 + x1) / 2, TH - 4);
	ks_buf_addf(out, "<text x=\"12\" y=\"%.1f\" transform=\"rotate(-90 12 %.1f)\" "
		    "text-anchor=\"middle\">speedup (x)</text>", (y0 + y1) / 2, (y0 + y1) / 2);
	/* The best so far, as steps. */
	ks_buf_adds(out, "<polyline class=\"best\" fill=\"none\" stroke=\"#2463d1\" "
		    "stroke-width=\"2.5\" points=\"");
	for (i = 0; i < n; i++) {
		double v = best[i] > 0 ? best[i] : 1.0;

		if (i)
			ks_buf_addf(out, "%.1f,%.1f ", SX(i), SY(best[i - 1] > 0 ? best[i - 1] : 1.0));
		ks_buf_addf(out, "%.1f,%.1f ", SX(i), SY(v));
	}
	ks_buf_adds(out, "\"/>");
	for (i = 1; i < n; i++) {
		const struct ks_traj_round *r = &t->v[i];

		if (ks_traj_verified(r) && r->speedup > 0)
			ks_buf_addf(out, "<circle class=\"cand\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
				    "fill=\"%s\"><title>round %d %s: %.3fx</title></circle>",
				    SX(i), SY(r->speedup), r->gain ? "#17803d" : "#7fb08f", r->round,
				    r->skill ? r->skill : "", r->speedup);
		else if (r->verdict && strcmp(r->verdict, "declined") && strcmp(r->verdict, "seen"))
			ks_buf_addf(out, "<path class=\"fail\" d=\"M%.1f %.1fl8 8m0 -8l-8 8\" "
				    "stroke=\"#c0262d\" stroke-width=\"2\"><title>round %d: failed"
				    "</title></path>", SX(i) - 4, y0 - 12, r->round);
	}
	ks_buf_adds(out, "</svg>\n");
#undef SX
#undef SY
	free(best);
}

#define RW 420
#define RH 260

static double
lg(double v)
{
	return log10(v);
}

/* The roofline (FLOP/s over FLOP/byte, log-log) with the kernel before and
 * after; a kernel that does no FLOPs (or without ceilings) gets its % of
 * the floor as two bars instead. */
void
ks_report_svg_roofline(const struct ks_report_kernel *k, double copy_gbps,
		       double sgemm_tflops, struct ks_buf *out)
{
	double x0 = ML + 10, x1 = RW - MR, y0 = RH - MB, y1 = MT;

	if (!(k->flops > 0) || !(k->bytes > 0) || isnan(copy_gbps) || isnan(sgemm_tflops) ||
	    isnan(k->original_ms)) {
		double pb = k->floor_pct_before, pa = k->floor_pct_after;

		if (isnan(pb) && isnan(pa)) {
			ks_buf_adds(out, "<p class=\"none\">% of floor not measured</p>\n");
			return;
		}
		ks_buf_addf(out, "<svg class=\"floorbars\" xmlns=\"http://www.w3.org/2000/svg\" "
			    "width=\"%d\" height=\"120\" viewBox=\"0 0 %d 120\" role=\"img\" "
			    "aria-label=\"percent of floor\"><rect width=\"%d\" height=\"120\" "
			    "fill=\"#ffffff\"/>", RW, RW, RW);
		for (int i = 0; i < 2; i++) {
			double p = i ? pa : pb, w = (RW - 140) * (isnan(p) ? 0 : fmin(p, 100) / 100);
			double y = 20 + 44 * i;

			ks_buf_addf(out, "<text x=\"8\" y=\"%.0f\">%s</text><rect x=\"70\" y=\"%.0f\" "
				    "width=\"%d\" height=\"22\" fill=\"#eef1f5\"/>", y + 15,
				    i ? "after" : "before", y, RW - 140);
			if (!isnan(p))
				ks_buf_addf(out, "<rect class=\"bar\" x=\"70\" y=\"%.0f\" width=\"%.1f\" "
					    "height=\"22\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.0f\">"
					    "%.1f%%</text>", y, w, i ? "#17803d" : "#c0262d",
					    76 + w, y + 15, p);
			else
				ks_buf_addf(out, "<text x=\"76\" y=\"%.0f\">—</text>", y + 15);
		}
		ks_buf_adds(out, "<text x=\"70\" y=\"112\">% of the floor (100% = at the measured "
			    "ceiling)</text></svg>\n");
		return;
	}
	{
		double bw = copy_gbps * 1e9, fl = sgemm_tflops * 1e12, ai = k->flops / k->bytes;
		double knee = fl / bw, pb = k->flops / (k->original_ms * 1e-3);
		double pa = isnan(k->after_ms) ? NAN : k->flops / (k->after_ms * 1e-3);
		double ax0 = floor(lg(fmin(ai, knee)) - 1), ax1 = ceil(lg(fmax(ai, knee)) + 1);
		double ay1 = ceil(lg(fl) + 0.3), ay0 = floor(lg(fmin(pb, bw * pow(10, ax0))) - 0.3);

#define PX(v) (x0 + (x1 - x0) * (lg(v) - ax0) / (ax1 - ax0))
#define PY(v) (y0 - (y0 - y1) * (lg(v) - ay0) / (ay1 - ay0))
		ks_buf_addf(out, "<svg class=\"roofline\" xmlns=\"http://www.w3.org/2000/svg\" "
			    "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
			    "aria-label=\"roofline\"><rect width=\"%d\" height=\"%d\" "
			    "fill=\"#ffffff\"/>", RW, RH, RW, RH, RW, RH);
		for (double e = ax0; e <= ax1; e++)
			ks_buf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				    "stroke=\"#eef1f5\"/><text x=\"%.1f\" y=\"%.1f\" "
				    "text-anchor=\"middle\">1e%d</text>", PX(pow(10, e)), y0,
				    PX(pow(10, e)), y1, PX(pow(10, e)), y0 + 14, (int)e);
		for (double e = ay0; e <= ay1; e++)
			ks_buf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				    "stroke=\"#eef1f5\"/><text x=\"%.1f\" y=\"%.1f\" "
				    "text-anchor=\"end\">1e%d</text>", x0, PY(pow(10, e)), x1,
				    PY(pow(10, e)), x0 - 4, PY(pow(10, e)) + 4, (int)e);
		ks_buf_addf(out, "<polyline class=\"roof\" fill=\"none\" stroke=\"#3b4556\" "
			    "stroke-width=\"2\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>",
			    PX(pow(10, ax0)), PY(bw * pow(10, ax0)), PX(knee), PY(fl),
			    PX(pow(10, ax1)), PY(fl));
		ks_buf_addf(out, "<text x=\"%.1f\" y=\"%.1f\">SGEMM %.1f TFLOP/s</text>"
			    "<text x=\"%.1f\" y=\"%.1f\">copy %.0f GB/s</text>", PX(knee) + 6,
			    PY(fl) - 6, sgemm_tflops, PX(pow(10, ax0)) + 4,
			    PY(bw * pow(10, ax0)) - 10, copy_gbps);
		ks_buf_addf(out, "<circle class=\"before\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" "
			    "fill=\"#c0262d\"><title>before: %.3g FLOP/s</title></circle>",
			    PX(ai), PY(pb), pb);
		if (!isnan(pa)) {
			ks_buf_addf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				    "stroke=\"#8a94a6\" stroke-dasharray=\"3 3\"/>", PX(ai), PY(pb),
				    PX(ai), PY(pa));
			ks_buf_addf(out, "<circle class=\"after\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" "
				    "fill=\"#17803d\"><title>after: %.3g FLOP/s</title></circle>",
				    PX(ai), PY(pa), pa);
		}
		ks_buf_addf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">FLOP per byte"
			    "</text><text x=\"12\" y=\"%.1f\" transform=\"rotate(-90 12 %.1f)\" "
			    "text-anchor=\"middle\">FLOP/s</text>", (x0 + x1) / 2, RH - 4,
			    (y0 + y1) / 2, (y0 + y1) / 2);
		ks_buf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" style=\"fill:#c0262d\">● before</text>"
			    "<text x=\"%.1f\" y=\"%.1f\" style=\"fill:#17803d\">● after</text></svg>\n",
			    x1 - 120, y1 + 12, x1 - 60, y1 + 12);
#undef PX
#undef PY
	}
}

/* ---- the page ------------------------------------------------------------------- */

static void
summary_rows(struct ks_buf *out, const struct ks_report_summary *s)
{
	struct {
		const char *name;
		char f;
		double v;
	} rows[] = {
		{ "success rate (variant in the program / kernels)", '2', s->success_rate },
		{ "fast_1 (share of kernels faster than the original)", '2', s->fast_1 },
		{ "fast_2 (share of kernels at least 2x faster)", '2', s->fast_2 },
		{ "mean speedup over the originals", 'x', s->mean_speedup },
		{ "geomean speedup over the originals", 'x', s->geomean_speedup },
		{ "mean speedup, program runs before/after", 'x', s->mean_program_speedup },
		{ "geomean speedup, program runs before/after", 'x', s->geomean_program_speedup },
		{ "mean speedup over Torch eager", 'x', s->mean_speedup_vs_torch },
		{ "geomean speedup over Torch eager", 'x', s->geomean_speedup_vs_torch },
		{ "geomean % of floor before", 'p', s->geomean_floor_pct_before },
		{ "geomean % of floor after", 'p', s->geomean_floor_pct_after },
		{ "GPU-minutes in all", '1', s->gpu_minutes },
		{ "GPU-minutes of the Reviewer", '1', s->review_gpu_minutes },
		{ "GPU seconds of one task, at most", '0', s->max_task_gpu_s },
	};
	struct {
		const char *name;
		long v;
	} counts[] = {
		{ "kernels", s->kernels }, { "verified variants", s->verified },
		{ "variants in the rebuilt programs", s->in_program },
		{ "wrong variants", s->wrong },
		{ "kernels below 80 % of their floor before", s->headroom_kernels },
		{ "of those, verified variants", s->headroom_verified },
		{ "variants whose program ran slower", s->slower_in_program },
		{ "rounds of one task, at most", s->max_rounds },
	};

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		ks_buf_addf(out, "<tr class=\"sum\"><th>%s</th>", counts[i].name);
		td_count(out, counts[i].v);
		ks_buf_adds(out, "</tr>\n");
	}
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ks_buf_adds(out, "<tr class=\"sum\"><th>");
		esc(out, rows[i].name);
		ks_buf_adds(out, "</th>");
		td_num(out, rows[i].f, rows[i].v);
		ks_buf_adds(out, "</tr>\n");
	}
}

static void
result_cell(struct ks_buf *out, const struct ks_report_kernel *k)
{
	if (k->wrong)
		ks_buf_adds(out, "<td class=\"bad\">wrong</td>");
	else if (k->in_program)
		ks_buf_adds(out, "<td class=\"yes\">in program</td>");
	else if (k->verified)
		ks_buf_adds(out, "<td class=\"yes\">verified</td>");
	else
		ks_buf_adds(out, "<td class=\"no\">no</td>");
}

static void
kernel_table(struct ks_buf *out, const struct ks_report *r)
{
	ks_buf_adds(out, "<table class=\"kernels\"><thead><tr><th>program</th><th>kernel</th>"
		    "<th>original ms</th><th>after ms</th><th>speedup</th><th>result</th>"
		    "<th>rounds</th><th>skills</th><th>GPU s</th><th>% floor before</th>"
		    "<th>% floor after</th><th>vendor ms</th><th>Torch ms</th>"
		    "<th>vs Torch</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < r->n; i++) {
		const struct ks_report_kernel *k = &r->k[i];
		double after = !isnan(k->after_ms) ? k->after_ms : k->review_best_ms;

		ks_buf_adds(out, "<tr class=\"kernel\">");
		td_text(out, k->program);
		ks_buf_addf(out, "<td><a href=\"#k%zu\">", i);
		esc(out, k->kernel ? k->kernel : "?");
		ks_buf_adds(out, "</a></td>");
		td_num(out, 'g', k->original_ms);
		td_num(out, 'g', after);
		td_num(out, 'x', k->review_speedup);
		result_cell(out, k);
		td_count(out, k->rounds);
		td_text(out, k->skills);
		td_num(out, '0', k->gpu_s);
		td_num(out, 'p', k->floor_pct_before);
		td_num(out, 'p', k->floor_pct_after);
		td_num(out, 'g', k->vendor_ms);
		td_num(out, 'g', k->torch_ms);
		td_num(out, 'x', k->speedup_vs_torch);
		ks_buf_adds(out, "</tr>\n");
	}
	ks_buf_adds(out, "</tbody></table>\n");
}

static void
timing_text(struct ks_buf *out, const struct ks_traj_timing *t)
{
	if (t->have)
		ks_buf_addf(out, "%.4g [%.4g, %.4g]", t->median, t->lo, t->hi);
	else
		ks_buf_adds(out, "—");
}

static void
trail_table(struct ks_buf *out, const struct ks_traj *t)
{
	ks_buf_adds(out, "<table class=\"trail\"><thead><tr><th>round</th><th>phase</th>"
		    "<th>on</th><th>skill</th><th>because</th><th>result</th>"
		    "<th>original ms</th><th>candidate ms</th><th>speedup</th>"
		    "<th>diagnosis</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < t->n; i++) {
		const struct ks_traj_round *r = &t->v[i];

		ks_buf_addf(out, "<tr class=\"round%s\"><td class=\"n\">%d</td>",
			    r->gain ? " gain" : "", r->round);
		td_text(out, r->phase);
		if (r->parent < 0)
			ks_buf_adds(out, "<td>—</td>");
		else if (r->parent == 0)
			ks_buf_adds(out, "<td>original</td>");
		else
			ks_buf_addf(out, "<td>round %d</td>", r->parent);
		ks_buf_adds(out, "<td>");
		if (r->skill) {
			esc(out, r->skill);
			if (r->params && *r->params) {
				ks_buf_adds(out, " <small>");
				esc(out, r->params);
				ks_buf_adds(out, "</small>");
			}
		} else {
			ks_buf_adds(out, "—");
		}
		ks_buf_adds(out, "</td><td class=\"why\">");
		esc(out, r->why ? r->why : "");
		if (r->plan) {
			ks_buf_adds(out, "<br><em>plan:</em> ");
			esc(out, r->plan);
		}
		ks_buf_adds(out, "</td><td>");
		esc(out, r->verdict ? r->verdict : "?");
		if (r->compile && strcmp(r->compile, "ok")) {
			ks_buf_adds(out, " (compile ");
			esc(out, r->compile);
			ks_buf_adds(out, ")");
		}
		if (r->reason) {
			ks_buf_adds(out, ": ");
			esc(out, r->reason);
		}
		if (r->gain)
			ks_buf_adds(out, " <strong>· the base moves here</strong>");
		ks_buf_adds(out, "</td><td class=\"n\">");
		timing_text(out, &r->orig);
		ks_buf_adds(out, "</td><td class=\"n\">");
		if (r->parent >= 0)
			timing_text(out, &r->cand);
		else
			ks_buf_adds(out, "—");
		ks_buf_adds(out, "</td>");
		td_num(out, 'X', r->parent >= 0 && r->speedup > 0 ? r->speedup : NAN);
		ks_buf_adds(out, "<td class=\"diag\">");
		if (r->diag.cls) {
			esc(out, r->diag.cls);
			ks_buf_adds(out, ": ");
			esc(out, r->diag.what ? r->diag.what : "");
			if (r->diag.evidence && *r->diag.evidence) {
				ks_buf_adds(out, "<br><code>");
				esc(out, r->diag.evidence);
				ks_buf_adds(out, "</code>");
			}
			if (r->diag.cause) {
				ks_buf_adds(out, "<br>cause: ");
				esc(out, r->diag.cause);
			}
			if (r->diag.fix) {
				ks_buf_adds(out, "<br>fix: ");
				esc(out, r->diag.fix);
				ks_buf_adds(out, " (next: ");
				esc(out, r->diag.next ? r->diag.next : "?");
				ks_buf_adds(out, ")");
			}
		}
		ks_buf_adds(out, "</td></tr>\n");
	}
	ks_buf_adds(out, "</tbody></table>\n");
}

/* The seed's metrics beside the best round's (a metric either lacks: —). */
static void
metrics_table(struct ks_buf *out, const struct ks_traj *t, double min_gain)
{
	struct ks_traj_state s;
	const struct ks_traj_round *a, *b;

	if (!t->n) {
		ks_buf_adds(out, "<p class=\"none\">no metrics</p>\n");
		return;
	}
	ks_traj_state(t, min_gain, &s);
	a = &t->v[0];
	b = s.best > 0 ? &t->v[s.best] : NULL;
	if (!a->nmetrics && !(b && b->nmetrics)) {
		ks_buf_adds(out, "<p class=\"none\">no metrics measured</p>\n");
		return;
	}
	ks_buf_adds(out, "<table class=\"metrics\"><thead><tr><th>metric</th><th>before</th>"
		    "<th>after</th></tr></thead><tbody>\n");
	for (size_t pass = 0; pass < 2; pass++) {
		const struct ks_traj_round *r = pass ? b : a;

		for (size_t i = 0; r && i < r->nmetrics; i++) {
			double va = NAN, vb = NAN;
			size_t j;

			/* Each name once: the seed's first, then the best's others. */
			if (pass) {
				for (j = 0; j < a->nmetrics; j++)
					if (!strcmp(a->mnames[j], r->mnames[i]))
						break;
				if (j < a->nmetrics)
					continue;
			}
			for (j = 0; j < a->nmetrics; j++)
				if (!strcmp(a->mnames[j], r->mnames[i]))
					va = a->mvalues[j];
			for (j = 0; b && j < b->nmetrics; j++)
				if (!strcmp(b->mnames[j], r->mnames[i]))
					vb = b->mvalues[j];
			ks_buf_adds(out, "<tr>");
			td_text(out, r->mnames[i]);
			td_num(out, 'g', va);
			td_num(out, 'g', vb);
			ks_buf_adds(out, "</tr>\n");
		}
	}
	ks_buf_adds(out, "</tbody></table>\n");
}

static void
fact(struct ks_buf *out, const char *name, char f, double v)
{
	ks_buf_addf(out, "<tr><th>%s</th>", name);
	td_num(out, f, v);
	ks_buf_adds(out, "</tr>");
}

static void
kernel_section(struct ks_buf *out, const struct ks_report *r, size_t i)
{
	const struct ks_report_kernel *k = &r->k[i];

	ks_buf_addf(out, "<section class=\"kernel-detail\" id=\"k%zu\"><h2>", i);
	if (k->program) {
		esc(out, k->program);
		ks_buf_adds(out, " · ");
	}
	esc(out, k->kernel ? k->kernel : "?");
	ks_buf_adds(out, "</h2>\n<p class=\"meta\">");
	if (k->demangled) {
		ks_buf_adds(out, "<code>");
		esc(out, k->demangled);
		ks_buf_adds(out, "</code> · ");
	}
	ks_buf_adds(out, "task ");
	esc(out, k->task ? k->task : "—");
	if (k->end) {
		ks_buf_adds(out, " · ended: ");
		esc(out, k->end);
	}
	ks_buf_adds(out, "</p>\n<div class=\"charts\"><table class=\"facts\">");
	fact(out, "original ms (program)", 'g', k->original_ms);
	fact(out, "after ms (program)", 'g', k->after_ms);
	fact(out, "original ms (review)", 'g', k->review_original_ms);
	fact(out, "best ms (review)", 'g', k->review_best_ms);
	fact(out, "speedup (review)", 'X', k->review_speedup);
	fact(out, "speedup (program runs)", 'X', k->program_speedup);
	fact(out, "floor ms", 'g', k->floor_ms);
	fact(out, "% of floor before", 'p', k->floor_pct_before);
	fact(out, "% of floor after", 'p', k->floor_pct_after);
	fact(out, "vendor ms", 'g', k->vendor_ms);
	fact(out, "Torch eager ms", 'g', k->torch_ms);
	fact(out, "GPU s spent", '1', k->gpu_s);
	ks_buf_adds(out, "</table>\n<figure>");
	ks_report_svg_roofline(k, r->copy_gbps, r->sgemm_tflops, out);
	ks_buf_adds(out, "<figcaption>roofline position before and after</figcaption></figure>\n"
		    "<figure>");
	ks_report_svg_trajectory(&k->traj, r->min_gain, out);
	ks_buf_adds(out, "<figcaption>best speedup so far per round (line), each verified "
		    "candidate (dot), failed candidates (×)</figcaption></figure></div>\n");
	if (k->torch_op) {
		ks_buf_adds(out, "<p>Torch eager: <code>");
		esc(out, k->torch_op);
		ks_buf_adds(out, "</code></p>\n");
	}
	ks_buf_adds(out, "<h3>Skill trail</h3>\n");
	if (k->traj.n)
		trail_table(out, &k->traj);
	else
		ks_buf_adds(out, "<p class=\"none\">no trajectory</p>\n");
	ks_buf_adds(out, "<h3>Metrics</h3>\n");
	metrics_table(out, &k->traj, r->min_gain);
	ks_buf_adds(out, "<h3>Code: original kernel → best variant</h3>\n");
	if (k->orig_src && k->variant_src)
		ks_report_diff_html(k->orig_src, k->variant_src, out);
	else if (k->variant_src)
		ks_report_diff_html("", k->variant_src, out);
	else if (k->verified)
		ks_buf_adds(out, "<p class=\"none\">the verified variant's source is not in the "
			    "data (its task folder was not found)</p>\n");
	else
		ks_buf_adds(out, "<p class=\"none\">no verified variant</p>\n");
	if (k->variant_helpers && *k->variant_helpers) {
		ks_buf_adds(out, "<details><summary>the variant's helpers</summary><pre class=\"diff\">");
		esc(out, k->variant_helpers);
		ks_buf_adds(out, "</pre></details>\n");
	}
	ks_buf_adds(out, "</section>\n");
}

void
ks_report_html(const struct ks_report *r, struct ks_buf *out)
{
	ks_buf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		    "<meta name=\"viewport\" content=\"width=device-width\">"
		    "<title>ks report");
	if (r->gpu) {
		ks_buf_adds(out, " · ");
		esc(out, r->gpu);
	}
	if (r->date) {
		ks_buf_adds(out, " · ");
		esc(out, r->date);
	}
	ks_buf_addf(out, "</title><style>%s</style></head><body>\n<h1>ks report</h1>\n"
		    "<p class=\"meta\">", CSS);
	esc(out, r->gpu ? r->gpu : "GPU not recorded");
	if (r->driver) {
		ks_buf_adds(out, " · driver ");
		esc(out, r->driver);
	}
	if (r->nvcc) {
		ks_buf_adds(out, " · ");
		esc(out, r->nvcc);
	}
	ks_buf_adds(out, " · ");
	esc(out, r->date ? r->date : "undated");
	if (r->mode) {
		ks_buf_adds(out, " · ");
		esc(out, r->mode);
	}
	if (!isnan(r->copy_gbps) || !isnan(r->sgemm_tflops)) {
		ks_buf_adds(out, " · ceilings: copy ");
		if (isnan(r->copy_gbps))
			ks_buf_adds(out, "—");
		else
			ks_buf_addf(out, "%.0f", r->copy_gbps);
		ks_buf_adds(out, " GB/s, SGEMM ");
		if (isnan(r->sgemm_tflops))
			ks_buf_adds(out, "—");
		else
			ks_buf_addf(out, "%.1f", r->sgemm_tflops);
		ks_buf_adds(out, " TFLOP/s");
	}
	if (r->command) {
		ks_buf_adds(out, "<br>command: <code>");
		esc(out, r->command);
		ks_buf_adds(out, "</code>");
	}
	ks_buf_adds(out, "</p>\n<section class=\"summary\"><h2>Summary</h2>\n"
		    "<table class=\"summary\"><tbody>\n");
	summary_rows(out, &r->s);
	ks_buf_adds(out, "</tbody></table>\n");
	if (r->nabl) {
		ks_buf_adds(out, "<h3>Ablations, on the same captures</h3>\n<table class=\"ablations\">"
			    "<thead><tr><th>run</th><th>kernels</th><th>verified</th>"
			    "<th>fast_1</th><th>fast_2</th><th>mean speedup</th>"
			    "<th>geomean speedup</th><th>Reviewer GPU-min</th></tr></thead><tbody>\n");
		ks_buf_adds(out, "<tr class=\"ablation\"><td>full</td>");
		td_count(out, r->s.kernels);
		td_count(out, r->s.verified);
		td_num(out, '2', r->s.fast_1);
		td_num(out, '2', r->s.fast_2);
		td_num(out, 'x', r->s.mean_speedup);
		td_num(out, 'x', r->s.geomean_speedup);
		td_num(out, '1', r->s.review_gpu_minutes);
		ks_buf_adds(out, "</tr>\n");
		for (size_t i = 0; i < r->nabl; i++) {
			const struct ks_report_summary *a = &r->abl[i].s;

			ks_buf_adds(out, "<tr class=\"ablation\"><td>--");
			esc(out, r->abl[i].name);
			ks_buf_adds(out, "</td>");
			td_count(out, a->kernels);
			td_count(out, a->verified);
			td_num(out, '2', a->fast_1);
			td_num(out, '2', a->fast_2);
			td_num(out, 'x', a->mean_speedup);
			td_num(out, 'x', a->geomean_speedup);
			td_num(out, '1', a->review_gpu_minutes);
			ks_buf_adds(out, "</tr>\n");
		}
		ks_buf_adds(out, "</tbody></table>\n");
	}
	ks_buf_adds(out, "<h3>Kernels</h3>\n");
	kernel_table(out, r);
	ks_buf_adds(out, "<p class=\"meta\">Times are medians. \"Review\" times come from the "
		    "Reviewer's interleaved timing of the original and the variant; \"program\" "
		    "times from the program's own runs before and after the rebuild. "
		    "— marks a value the data does not hold.</p></section>\n");
	for (size_t i = 0; i < r->n; i++)
		kernel_section(out, r, i);
	ks_buf_adds(out, "</body></html>\n");
}
