/* Spans from a profiler's ranges (kineto.c, nsys.c): what both importers
 * hand to the trace's spans/ once they have placed their ranges on the
 * run's clock. Internal to src/import/. */
#ifndef JOULES_IMPORT_PROFILE_SPANS_H
#define JOULES_IMPORT_PROFILE_SPANS_H

#include <stddef.h>
#include <stdint.h>

#include "joules/error.h"
#include "joules/spans.h"
#include "joules/trace.h"

typedef struct jl__raw_spans {
    size_t n;
    double *start, *end; /* run time, any order */
    int32_t *name;       /* index into names */
    int32_t *parent;     /* a row of these, or -1; NULL: none nest */
    double *busy_s;      /* NULL: none (host-side spans) */
    int16_t *gpu;        /* NULL: all GPU 0 */
    char **names;        /* the names used are moved out (set to NULL) */
    size_t n_names;
} jl__raw_spans;

/* The spans in time order, parents re-indexed, only the names used; step:
 * each `*_step` marker starts a step, numbered as the engine/ row of its
 * iteration (the first row at or after it), or in order when the run has
 * no engine/; the window: the spans' hull, widened to `win` (the
 * profiler's own window, NaN when unknown). *n_steps: markers seen. */
jl_status jl__spans_from_raw(jl__raw_spans *raw, const jl_run *run, const double win[2],
                             jl_spans **out, size_t *n_steps);

/* A Unix time in seconds as whole nanoseconds, without the 256-ns rounding
 * of t x 1e9 in one double. */
long long jl__unix_ns(double t);

/* Run `run` of the trace `path` read whole (its start time, its engine/
 * rows); errors pushed. */
jl_status jl__profile_read_run(const char *path, const char *run, jl_run **out,
                               jl_error_list *errors);

/* The spans of a Kineto trace held in memory (kineto.c; the fuzz target):
 * parsed, on run's clock by baseTimeNanoseconds and @start_time_unix,
 * folded; side "gpu", "cpu" or NULL (GPU-side when there are any). */
jl_status jl__kineto_spans_buffer(const char *text, size_t len, const jl_run *run, const char *side,
                                  jl_spans **out, jl_error_list *errors);

#endif
