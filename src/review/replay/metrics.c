/*
 * The CUPTI Range Profiler sequence (toolchain research, section 4.2,
 * verified on an H200): initialize, chip name, counter availability, host
 * config image, enable on the context, counter data image, set config
 * (auto range, kernel replay), start, run, stop, decode, evaluate.
 *
 * cupti_profiler_host.h includes C++'s <string> and nothing else from
 * C++; src/review/replay/compat/ holds an empty stand-in so that C can use it.
 */
#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/buf.h"
#include "../../core/util.h"
#include "../metricset.h"
#include "metrics.h"

#define MAX_RANGES 64

static int
cupti_fail(struct ks_buf *err, const char *what, CUptiResult r)
{
	const char *s = NULL;

	cuptiGetResultString(r, &s);
	if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
		return ks_error(err, "%s: no permission to read GPU counters (needs "
				"admin rights or NVreg_RestrictProfilingToAdminUsers=0)",
				what);
	return ks_error(err, "%s: %s", what, s ? s : "unknown CUPTI error");
}

static int
host_init(const char *chip, const uint8_t *avail, CUpti_Profiler_Host_Object **obj)
{
	CUpti_Profiler_Host_Initialize_Params p;

	memset(&p, 0, sizeof(p));
	p.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE;
	p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
	p.pChipName = chip;
	p.pCounterAvailabilityImage = avail;
	if (cuptiProfilerHostInitialize(&p) != CUPTI_SUCCESS)
		return -1;
	*obj = p.pHostObject;
	return 0;
}

static void
host_deinit(CUpti_Profiler_Host_Object *obj)
{
	CUpti_Profiler_Host_Deinitialize_Params p;

	if (!obj)
		return;
	memset(&p, 0, sizeof(p));
	p.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE;
	p.pHostObject = obj;
	cuptiProfilerHostDeinitialize(&p);
}

static CUptiResult
add_metrics(CUpti_Profiler_Host_Object *obj, const char **names, size_t n)
{
	CUpti_Profiler_Host_ConfigAddMetrics_Params p;

	memset(&p, 0, sizeof(p));
	p.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE;
	p.pHostObject = obj;
	p.ppMetricNames = names;
	p.numMetrics = n;
	return cuptiProfilerHostConfigAddMetrics(&p);
}

/* The metrics of the set this chip offers (each tried alone). */
static size_t
supported(const char *chip, const uint8_t *avail, const char **names,
	  size_t *rows)
{
	const struct ks_metric_def *defs;
	size_t n, i, k = 0;

	defs = ks_metricset(&n);
	for (i = 0; i < n; i++) {
		CUpti_Profiler_Host_Object *obj = NULL;
		const char *one = defs[i].metric;

		if (host_init(chip, avail, &obj))
			continue;
		if (add_metrics(obj, &one, 1) == CUPTI_SUCCESS) {
			names[k] = one;
			rows[k++] = i;
		}
		host_deinit(obj);
	}
	return k;
}

int
ks_metrics_collect(int device, int (*run)(void *), void *arg, double *values,
		   int *have, size_t *ranges, struct ks_buf *err)
{
	CUpti_Profiler_Initialize_Params init = { CUpti_Profiler_Initialize_Params_STRUCT_SIZE, NULL };
	CUpti_Profiler_DeInitialize_Params deinit = { CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE, NULL };
	CUpti_Device_GetChipName_Params chip;
	CUpti_Profiler_GetCounterAvailability_Params av;
	CUpti_Profiler_Host_Object *host = NULL;
	CUpti_Profiler_Host_GetConfigImageSize_Params cs;
	CUpti_Profiler_Host_GetConfigImage_Params ci;
	CUpti_RangeProfiler_Enable_Params en;
	CUpti_RangeProfiler_Disable_Params dis;
	CUpti_RangeProfiler_GetCounterDataSize_Params ds;
	CUpti_RangeProfiler_CounterDataImage_Initialize_Params di;
	CUpti_RangeProfiler_SetConfig_Params sc;
	CUpti_RangeProfiler_Start_Params st;
	CUpti_RangeProfiler_Stop_Params sp;
	CUpti_RangeProfiler_DecodeData_Params dd;
	CUpti_RangeProfiler_GetCounterDataInfo_Params info;
	CUpti_RangeProfiler_Object *obj = NULL;
	const char *names[64];
	size_t rows[64], n, total, i, r, best = 0, nrows;
	uint8_t *avail = NULL, *config = NULL, *data = NULL;
	double *vals = NULL, longest = -1, sum = 0;
	CUcontext ctx = NULL;
	CUptiResult cr;
	int rc = -1, initialized = 0;

	ks_metricset(&nrows);
	memset(have, 0, nrows * sizeof(*have));
	*ranges = 0;
	if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx)
		return ks_error(err, "no current CUDA context");
	cr = cuptiProfilerInitialize(&init);
	if (cr != CUPTI_SUCCESS)
		return cupti_fail(err, "cuptiProfilerInitialize", cr);
	initialized = 1;

	memset(&chip, 0, sizeof(chip));
	chip.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE;
	chip.deviceIndex = (size_t)device;
	cr = cuptiDeviceGetChipName(&chip);
	if (cr != CUPTI_SUCCESS) {
		cupti_fail(err, "cuptiDeviceGetChipName", cr);
		goto out;
	}
	memset(&av, 0, sizeof(av));
	av.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE;
	av.ctx = ctx;
	cr = cuptiProfilerGetCounterAvailability(&av);
	if (cr != CUPTI_SUCCESS) {
		cupti_fail(err, "cuptiProfilerGetCounterAvailability", cr);
		goto out;
	}
	avail = ks_xmalloc(av.counterAvailabilityImageSize + 1);
	av.pCounterAvailabilityImage = avail;
	cr = cuptiProfilerGetCounterAvailability(&av);
	if (cr != CUPTI_SUCCESS) {
		cupti_fail(err, "cuptiProfilerGetCounterAvailability", cr);
		goto out;
	}

	n = supported(chip.pChipName, avail, names, rows);
	if (!n) {
		ks_error(err, "chip %s offers none of the metrics", chip.pChipName);
		goto out;
	}
	if (host_init(chip.pChipName, avail, &host) ||
	    add_metrics(host, names, n) != CUPTI_SUCCESS) {
		ks_error(err, "cannot configure the profiler host for %s", chip.pChipName);
		goto out;
	}
	memset(&cs, 0, sizeof(cs));
	cs.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE;
	cs.pHostObject = host;
	cr = cuptiProfilerHostGetConfigImageSize(&cs);
	if (cr != CUPTI_SUCCESS) {
		cupti_fail(err, "cuptiProfilerHostGetConfigImageSize", cr);
		goto out;
	}
	config = ks_xmalloc(cs.configImageSize + 1);
	memset(&ci, 0, sizeof(ci));
	ci.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE;
	ci.pHostObject = host;
	ci.configImageSize = cs.configImageSize;
	ci.pConfigImage = config;
	cr = cuptiProfilerHostGetConfigImage(&ci);
	if (cr != CUPTI_SUCCESS) {
		cupti_fail(err, "cuptiProfilerHostGetConfigImage", cr);
		goto out;
	}

	memset(&en, 0, sizeof(en));
	en.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE;
	en.ctx = ctx;
	cr = cuptiRangeProfilerEnable(&en);
	if (cr != CUPTI_SUCCESS) {
		cupti_fail(err, "cuptiRangeProfilerEnable", cr);
		goto out;
	}
	obj = en.pRangeProfilerObject;
	memset(&ds, 0, sizeof(ds));
	ds.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE;
	ds.pRangeProfilerObject = obj;
	ds.pMetricNames = names;
	ds.numMetrics = n;
	ds.maxNumOfRanges = MAX_RANGES;
	ds.maxNumRangeTreeNodes = MAX_RANGES;
	cr = cuptiRangeProfilerGetCounterDataSize(&ds);
	if (cr != CUPTI_SUCCESS) {
		cupti_fail(err, "cuptiRangeProfilerGetCounterDataSize", cr);
		goto out;
	}
	data = ks_xcalloc(ds.counterDataSize + 1, 1);
	memset(&di, 0, sizeof(di));
	di.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE;
	di.pRangeProfilerObject = obj;
	di.counterDataSize = ds.counterDataSize;
	di.pCounterData = data;
	cr = cuptiRangeProfilerCounterDataImageInitialize(&di);
	if (cr != CUPTI_SUCCESS) {
		cupti_fail(err, "cuptiRangeProfilerCounterDataImageInitialize", cr);
		goto out;
	}
	memset(&sc, 0, sizeof(sc));
	sc.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE;
	sc.pRangeProfilerObject = obj;
	sc.configSize = cs.configImageSize;
	sc.pConfig = config;
	sc.counterDataImageSize = ds.counterDataSize;
	sc.pCounterDataImage = data;
	sc.range = CUPTI_AutoRange;
	sc.replayMode = CUPTI_KernelReplay;
	sc.maxRangesPerPass = MAX_RANGES;
	sc.numNestingLevels = 1;
	sc.minNestingLevel = 1;
	sc.passIndex = 0;
	sc.targetNestingLevel = 1;
	cr = cuptiRangeProfilerSetConfig(&sc);
	if (cr != CUPTI_SUCCESS) {
		cupti_fail(err, "cuptiRangeProfilerSetConfig", cr);
		goto out;
	}
	memset(&st, 0, sizeof(st));
	st.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE;
	st.pRangeProfilerObject = obj;
	cr = cuptiRangeProfilerStart(&st);
	if (cr != CUPTI_SUCCESS) {
		cupti_fail(err, "cuptiRangeProfilerStart", cr);
		goto out;
	}
	if (run(arg)) {
		ks_error(err, "the profiled run failed");
		goto out;
	}
	memset(&sp, 0, sizeof(sp));
	sp.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE;
	sp.pRangeProfilerObject = obj;
	cr = cuptiRangeProfilerStop(&sp);
	if (cr != CUPTI_SUCCESS) {
		cupti_fail(err, "cuptiRangeProfilerStop", cr);
		goto out;
	}
	memset(&dd, 0, sizeof(dd));
	dd.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE;
	dd.pRangeProfilerObject = obj;
	cr = cuptiRangeProfilerDecodeData(&dd);
	if (cr != CUPTI_SUCCESS) {
		cupti_fail(err, "cuptiRangeProfilerDecodeData", cr);
		goto out;
	}
	memset(&info, 0, sizeof(info));
	info.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE;
	info.pCounterDataImage = data;
	info.counterDataImageSize = ds.counterDataSize;
	cr = cuptiRangeProfilerGetCounterDataInfo(&info);
	if (cr != CUPTI_SUCCESS) {
		cupti_fail(err, "cuptiRangeProfilerGetCounterDataInfo", cr);
		goto out;
	}
	total = info.numTotalRanges;
	if (!total) {
		ks_error(err, "the profiler saw no kernel");
		goto out;
	}
	vals = ks_xcalloc(total * n, sizeof(*vals));
	for (r = 0; r < total; r++) {
		CUpti_Profiler_Host_EvaluateToGpuValues_Params ev;

		memset(&ev, 0, sizeof(ev));
		ev.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
		ev.pHostObject = host;
		ev.pCounterDataImage = data;
		ev.counterDataImageSize = ds.counterDataSize;
		ev.rangeIndex = r;
		ev.ppMetricNames = names;
		ev.numMetrics = n;
		ev.pMetricValues = vals + r * n;
		cr = cuptiProfilerHostEvaluateToGpuValues(&ev);
		if (cr != CUPTI_SUCCESS) {
			cupti_fail(err, "cuptiProfilerHostEvaluateToGpuValues", cr);
			goto out;
		}
	}
	/* Several kernels (a launcher's): durations add up; the rest is the
	 * longest kernel's, the one that matters most. */
	for (r = 0; r < total; r++) {
		for (i = 0; i < n; i++) {
			if (rows[i] != 0)
				continue;
			sum += vals[r * n + i];
			if (vals[r * n + i] > longest) {
				longest = vals[r * n + i];
				best = r;
			}
		}
	}
	for (i = 0; i < n; i++) {
		values[rows[i]] = rows[i] == 0 ? sum : vals[best * n + i];
		have[rows[i]] = 1;
	}
	*ranges = total;
	rc = 0;
out:
	if (obj) {
		memset(&dis, 0, sizeof(dis));
		dis.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE;
		dis.pRangeProfilerObject = obj;
		cuptiRangeProfilerDisable(&dis);
	}
	host_deinit(host);
	if (initialized)
		cuptiProfilerDeInitialize(&deinit);
	free(vals);
	free(data);
	free(config);
	free(avail);
	return rc;
}
