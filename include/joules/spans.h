/* joules/spans.h — a run's profiler spans and its power sensor as a trace
 * holds them (trace format 1.2, docs/trace-format.md; the trace layer,
 * src/trace/spans.c): spans/ read with every MUST of the spec checked,
 * the sensor attributes of power/, and both written into an existing trace
 * (whole or not at all). What is built on them — energy per span — is
 * joules/attribution.h.
 *
 * Ownership: jl_spans (jl_spans_free) is the caller's; jl_sensor holds heap
 * strings (jl_sensor_clear). Every free accepts NULL.
 */
#ifndef JOULES_SPANS_H
#define JOULES_SPANS_H

#include <stddef.h>
#include <stdint.h>

#include "joules/error.h"
#include "joules/trace.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

/* ---- spans/ ------------------------------------------------------------- */

/* One run's spans/ group. Optional columns are NULL when absent; missing
 * numbers are NaN, missing strings NULL. */
typedef struct jl_spans {
    char *source;               /* @source: kineto, nsys, harness[:...] */
    char *side;                 /* @side: gpu or cpu */
    char *clock;                /* @clock */
    double window[2];           /* @window (run time); NaN when absent */
    double clock_uncertainty_s; /* @clock_uncertainty_s */
    char **names;               /* names[n_names] */
    size_t n_names;
    size_t n;
    int32_t *name;       /* [n] index into names */
    double *start, *end; /* [n] run time */
    int32_t *parent;     /* [n] enclosing row or -1; NULL: none nest */
    int16_t *gpu;        /* [n] or NULL (all GPU 0) */
    float *busy_s;       /* [n] device-busy seconds, not in children; or NULL */
    int32_t *tokens;     /* [n] or NULL */
    int32_t *step;       /* [n] engine/ row of the iteration, or NULL */
} jl_spans;

jl_spans *jl_spans_new(void); /* empty, window NaN */
void jl_spans_free(jl_spans *s);

/* Read run i's spans/: *out = NULL (JL_OK) when the run has none. Checks
 * every MUST of the spec (names in range, start <= end finite, parents
 * enclosing their children, spans inside @window) and names file, run,
 * dataset and row. */
jl_status jl_trace_read_spans(jl_trace *t, size_t i, jl_spans **out, jl_error **err);

/* The rules jl_trace_read_spans() applies, on spans in memory (a writer's,
 * before they are written): name, start and end present, every MUST of
 * the spec, failing with the same messages, naming file and run (either
 * may be NULL) and the dataset of /runs/RUN/spans. */
jl_status jl_spans_check(const jl_spans *s, const char *file, const char *run, jl_error **err);

/* The sensor as the trace describes it (attributes of power/). */
typedef struct jl_sensor {
    double update_period_s; /* how often the value changes */
    char *watts_kind;       /* "instant" or "average_1s"; NULL: unknown */
    double watts_window_s;  /* a watts reading covers (t-delay-window, t-delay] */
    double watts_delay_s;
    double energy_delay_s; /* lag of the energy counter */
    char *calibration;     /* how these were found */
} jl_sensor;

void jl_sensor_init(jl_sensor *s); /* all unknown */
void jl_sensor_clear(jl_sensor *s);
jl_status jl_trace_read_sensor(jl_trace *t, size_t i, jl_sensor *out, jl_error **err);

/* Write spans (when not NULL; replacing a spans/ group the run has) and
 * the sensor attributes of power/ (when sensor is not NULL; its known
 * fields) into run `run` of the existing trace `path`. The file is copied,
 * changed and renamed into place: on any failure it is left as it was. */
jl_status jl_trace_write_spans(const char *path, const char *run, const jl_spans *spans,
                               const jl_sensor *sensor, jl_error **err);
/* The same, and the run's attribute validity_reasons (joules/validity.h:
 * JSON text; NULL: unchanged), e.g. spans_misaligned when a profile
 * imported against its power's pattern (issue 37). */
jl_status jl_trace_write_spans_reasons(const char *path, const char *run, const jl_spans *spans,
                                       const jl_sensor *sensor, const char *validity_reasons,
                                       jl_error **err);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
