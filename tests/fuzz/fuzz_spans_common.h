/* Shared by the span importers' fuzz targets (test_import_kineto.c,
 * test_import_kineto_align.c, test_import_nsys.c): the small synthetic run
 * their spans are placed on, and what happens to the spans after: attributed
 * as `joules attribute` would, the document made, everything freed. */
#ifndef JOULES_FUZZ_SPANS_COMMON_H
#define JOULES_FUZZ_SPANS_COMMON_H

#include <math.h>
#include <stdlib.h>

#include "joules/attribution.h"
#include "joules/error.h"

/* 64 power samples 50 ms apart, a counter stepping 20 J every other one,
 * one GPU idling at 100 W, starting at Unix time 1 s. */
static inline jl_run *fuzz_span_run(void)
{
    jl_run *run = jl_run_new();
    if (!run)
        abort();
    run->attrs.start_time_unix = 1.0;
    run->attrs.num_gpus = 1;
    run->attrs.gpu_idle_power_w = 100;
    run->power_n = 64;
    run->power_time = malloc(64 * sizeof(double));
    run->energy_j = (jl_series){64, 1, malloc(64 * sizeof(double))};
    for (size_t i = 0; run->power_time && run->energy_j.v && i < 64; i++) {
        run->power_time[i] = 0.05 * (double)i;
        run->energy_j.v[i] = 20.0 * floor((double)i / 2);
    }
    return run;
}

/* s (may be NULL) attributed on run and its document made; the errors
 * formatted; then s, the errors and run freed. */
static inline void fuzz_span_finish(jl_run *run, jl_spans *s, jl_error_list *errors)
{
    if (s) {
        jl_attribution *a = NULL;
        jl_error *err = NULL;
        if (jl_attribution_compute(run, s, NULL, NULL, &a, &err) == JL_OK)
            json_decref(jl_attribution_document(a));
        jl_attribution_free(a);
        jl_error_free(err);
    }
    for (size_t i = 0; i < errors->count; i++)
        free(jl_error_format(errors->items[i]));
    jl_error_list_clear(errors);
    jl_spans_free(s);
    jl_run_free(run);
}

#endif
