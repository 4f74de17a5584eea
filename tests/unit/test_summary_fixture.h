/* Building jl_run structs in memory for the summary tests (no trace file is
 * read): every array is a heap copy, released with jl_run_free(). Included
 * by tests/unit/test_summary_*.c only. */
#ifndef JOULES_TEST_SUMMARY_FIXTURE_H
#define JOULES_TEST_SUMMARY_FIXTURE_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/summary.h"
#include "joules/trace.h"

static inline void *fx_copy(const void *src, size_t n, size_t sz)
{
    if (!src || n == 0)
        return NULL;
    void *d = malloc(n * sz);
    if (!d)
        abort();
    memcpy(d, src, n * sz);
    return d;
}

static inline jl_run *fx_new(const char *workload, long G, long max_batch_size)
{
    jl_run *r = jl_run_new(); /* every summary/ figure NaN */
    if (!r)
        abort();
    r->file = jl__strdup("mem.h5");
    r->name = jl__strdup("b0000");
    r->attrs.workload = jl__strdup(workload);
    r->attrs.model = jl__strdup("test/model");
    r->attrs.task = jl__strdup("test");
    r->attrs.gpu_model = jl__strdup("H100");
    r->attrs.precision = jl__strdup("bfloat16");
    r->attrs.num_gpus = G;
    r->attrs.max_batch_size = max_batch_size;
    return r;
}

/* watts and energy are [n, G] row-major or NULL. */
static inline void fx_power(jl_run *r, size_t n, const double *t, const double *watts,
                            const double *energy)
{
    size_t G = (size_t)r->attrs.num_gpus;
    r->power_n = n;
    r->power_time = fx_copy(t, n, sizeof *t);
    if (watts) {
        r->watts.n = n;
        r->watts.g = G;
        r->watts.v = fx_copy(watts, n * G, sizeof(double));
    }
    if (energy) {
        r->energy_j.n = n;
        r->energy_j.g = G;
        r->energy_j.v = fx_copy(energy, n * G, sizeof(double));
    }
}

static inline void fx_engine(jl_run *r, size_t S, const double *t, const int32_t *running,
                             const int64_t *tokens, const int64_t *prefill, const float *kv)
{
    r->engine_n = S;
    r->engine_time = fx_copy(t, S, sizeof *t);
    r->running = fx_copy(running, S, sizeof *running);
    r->tokens_generated = fx_copy(tokens, S, sizeof *tokens);
    r->prefill_tokens = fx_copy(prefill, S, sizeof *prefill);
    r->kv_cache_usage = fx_copy(kv, S, sizeof *kv);
}

static inline void fx_requests(jl_run *r, size_t R, const double *arrival, const double *first,
                               const double *finish, const int32_t *out_tokens)
{
    r->req_n = R;
    r->arrival = fx_copy(arrival, R, sizeof *arrival);
    r->first_token = fx_copy(first, R, sizeof *first);
    r->finish = fx_copy(finish, R, sizeof *finish);
    r->output_tokens = fx_copy(out_tokens, R, sizeof *out_tokens);
}

static inline void fx_itl(jl_run *r, size_t K, const float *sec, const int32_t *req)
{
    r->itl_n = K;
    r->itl_seconds = fx_copy(sec, K, sizeof *sec);
    r->itl_request = fx_copy(req, K, sizeof *req);
}

static inline void fx_batches(jl_run *r, size_t B, const double *start, const double *end,
                              const int32_t *size)
{
    r->batch_n = B;
    r->batch_start = fx_copy(start, B, sizeof *start);
    r->batch_end = fx_copy(end, B, sizeof *end);
    r->batch_size = fx_copy(size, B, sizeof *size);
}

static inline jl_summary *fx_sum(const jl_run *r)
{
    jl_summary *s = NULL;
    jl_error *e = NULL;
    if (jl_summarize(r, NULL, &s, &e) != JL_OK) {
        char *m = jl_error_format(e);
        fprintf(stderr, "jl_summarize failed: %s\n", m ? m : "?");
        free(m);
        jl_error_free(e);
        return NULL;
    }
    return s;
}

/* The message of the first warning with this rule, or NULL. */
static inline const char *fx_warning(const jl_summary *s, const char *rule)
{
    for (size_t i = 0; s && i < s->n_warnings; i++)
        if (!strcmp(s->warnings[i].rule, rule))
            return s->warnings[i].message;
    return NULL;
}

#define FIG(s, id) ((s)->fig[JL_FIG_##id])
#define CHECK_NAN(x) CHECK(isnan(x))

#endif
