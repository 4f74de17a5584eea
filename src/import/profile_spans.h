/* Spans from a profiler's ranges (kineto.c, nsys.c): what both importers
 * hand to the trace's spans/ once they have placed their ranges on the
 * run's clock. Internal to src/import/. */
#ifndef JOULES_IMPORT_PROFILE_SPANS_H
#define JOULES_IMPORT_PROFILE_SPANS_H

#include <limits.h>
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
 * of t x 1e9 in one double: 0, or -1 when t is not finite or beyond what
 * 64-bit nanoseconds hold (|t| >= 9.2e9 s, past the year 2262). */
int jl__unix_ns(double t, long long *ns);

/* a - b and a + b in 64-bit integers: 0, or -1 when the result would
 * overflow (a crafted clock: refused, never undefined). */
static inline int jl__ll_sub(long long a, long long b, long long *out)
{
    if ((b > 0 && a < LLONG_MIN + b) || (b < 0 && a > LLONG_MAX + b))
        return -1;
    *out = a - b;
    return 0;
}

static inline int jl__ll_add(long long a, long long b, long long *out)
{
    if ((b > 0 && a > LLONG_MAX - b) || (b < 0 && a < LLONG_MIN - b))
        return -1;
    *out = a + b;
    return 0;
}

/* A JSON or SQLite number as a 64-bit integer: 0, or -1 when it is not
 * finite or does not fit (the double-to-integer conversion would be
 * undefined). */
static inline int jl__ll_of_double(double v, long long *out)
{
    if (!(v > -9.2e18 && v < 9.2e18))
        return -1;
    *out = (long long)v;
    return 0;
}

/* Run `run` of the trace `path` read whole (its start time, its engine/
 * rows); errors pushed. */
jl_status jl__profile_read_run(const char *path, const char *run, jl_run **out,
                               jl_error_list *errors);

/* The spans of a Kineto trace held in memory (kineto.c; the fuzz target):
 * parsed, on run's clock by baseTimeNanoseconds and @start_time_unix,
 * folded; side "gpu", "cpu" or NULL (GPU-side when there are any). */
jl_status jl__kineto_spans_buffer(const char *text, size_t len, const jl_run *run, const char *side,
                                  jl_spans **out, jl_error_list *errors);
/* The same with --align SPEC (FILE.json[:KEY], read from the file system:
 * the fuzz target of the alignment file writes it to a temporary file). */
jl_status jl__kineto_spans_buffer_aligned(const char *text, size_t len, const jl_run *run,
                                          const char *side, const char *align_spec,
                                          const char *profile_name, jl_spans **out,
                                          jl_error_list *errors);

/* The spans of an open Nsight Systems SQLite export (nsys.c; the fuzz
 * target builds one in memory): tables checked, NVTX ranges projected
 * through their CUDA calls onto the device work, on run's clock by the
 * session's utcEpochNs (or offset alone when has_offset and no session
 * time); the database stays the caller's. */
struct sqlite3;
jl_status jl__nsys_spans_db(struct sqlite3 *db, const char *path, const jl_run *run, int has_offset,
                            double offset, jl_spans **out, jl_error_list *errors);

/* The spans' busy/idle pattern against the run's power (issue 37,
 * spans_misaligned): the busy share of each bin (the power's sampling
 * period, at least 10 ms) under a top-level span, correlated with the
 * power at every offset within the search range; misaligned when the best
 * offset is more than JL__SPAN_TOL_S away, correlates above
 * JL__SPAN_MIN_SCORE and better than the offset given by JL__SPAN_MIN_GAIN
 * (docs/attribute.md, "Alignment checked against the power"). */
#define JL__SPAN_SEARCH_MIN_S 5.0
#define JL__SPAN_SEARCH_MAX_S 30.0
#define JL__SPAN_TOL_S 1.0
#define JL__SPAN_MIN_SCORE 0.4
#define JL__SPAN_MIN_GAIN 0.2
typedef struct jl__span_fit {
    double best_offset_s;         /* the shift of the spans that fits best */
    double score_now, score_best; /* correlation as placed, and at the best shift */
    int misaligned;
} jl__span_fit;
/* 1 misaligned, 0 aligned, -1 nothing to judge (no power, no pattern), -2
 * out of memory. */
int jl__spans_alignment(const jl_spans *sp, const jl_run *run, jl__span_fit *fit);
/* Check the spans (jl__spans_alignment) and write them into run_name of
 * trace: a misaligned profile is refused (an error naming the offset that
 * fits), or with allow written and the run marked spans_misaligned (its
 * attribute validity_reasons). fit receives the check. */
jl_status jl__spans_write_checked(const char *trace, const char *run_name, const jl_spans *sp,
                                  const jl_run *run, int allow, const char *file,
                                  jl_error_list *errors, jl__span_fit *fit);

#endif
