/* Fuzz target: a trace's spans/ and power/'s sensor attributes (format
 * 1.2; src/trace/spans.c), and host/ (read with the run: host_read.c),
 * as `joules attribute` reads them. The input is a whole HDF5 file image
 * (jl_trace_open_image, HDF5's in-memory core driver, the limits of
 * fuzz_trace); every run is read, its spans and sensor read, and its
 * energy attributed to the spans and printed as JSON. The seeds are small
 * traces with spans/ (nested, steps, busy_s, several GPUs) and host/
 * (RAPL counters with a wrap, node power). libhdf5's own defects are
 * triaged as for fuzz_trace (docs/robustness.md). */
#include <stdio.h>

#include "fuzz_common.h"
#include "joules/attribution.h"
#include "joules/output.h"
#include "joules/summary.h"
#include "joules/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    jl_trace_options opt;
    jl_trace_options_default(&opt);
    opt.limits.max_dataset_bytes = (uint64_t)64 << 20;
    opt.limits.max_rows = (uint64_t)1 << 22;
    opt.limits.max_runs = 16;
    jl_trace *t = NULL;
    jl_error *err = NULL;
    if (jl_trace_open_image(data, size, "fuzz.h5", &opt, &t, &err) != JL_OK) {
        if (!err || !err->message)
            abort(); /* every refusal says why */
        free(jl_error_format(err));
        jl_error_free(err);
        return 0;
    }
    for (size_t i = 0; i < jl_trace_run_count(t); i++) {
        jl_run *run = NULL;
        jl_spans *sp = NULL;
        jl_sensor z;
        jl_sensor_init(&z);
        jl_error *e = NULL;
        if (jl_trace_read_run(t, i, &run, &e) != JL_OK) {
            if (!e || !e->message)
                abort();
            free(jl_error_format(e));
            jl_error_free(e);
            continue;
        }
        jl_summary *s = NULL;
        if (jl_summarize(run, NULL, &s, &e) == JL_OK) {
            json_t *o = jl_summary_to_json(s);
            free(jl_json_dump(o));
            json_decref(o);
        }
        jl_summary_free(s);
        jl_error_free(e);
        e = NULL;
        if (jl_trace_read_sensor(t, i, &z, &e) != JL_OK) {
            if (!e || !e->message)
                abort();
            free(jl_error_format(e));
        }
        jl_error_free(e);
        e = NULL;
        if (jl_trace_read_spans(t, i, &sp, &e) == JL_OK && sp) {
            jl_attribution *a = NULL;
            jl_error *ae = NULL;
            if (jl_attribution_compute(run, sp, &z, NULL, &a, &ae) == JL_OK) {
                json_t *doc = jl_attribution_document(a);
                free(jl_json_dump(doc));
                json_decref(doc);
            } else if (ae) {
                free(jl_error_format(ae));
            }
            jl_attribution_free(a);
            jl_error_free(ae);
        } else if (e) {
            if (!e->message)
                abort();
            free(jl_error_format(e));
        }
        jl_error_free(e);
        jl_spans_free(sp);
        jl_sensor_clear(&z);
        jl_run_free(run);
    }
    jl_trace_close(t);
    return 0;
}
