/* Building jl_run structs in memory for the summary tests: every array is a
 * heap copy, released by fx_free() (the tests do not depend on the trace
 * reader). Included by tests/unit/test_summary_*.c only. */
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
    jl_run *r = calloc(1, sizeof *r);
    if (!r)
        abort();
    jl_attrs_init(&r->attrs);
    r->file = jl_strdup("mem.h5");
    r->name = jl_strdup("b0000");
    r->attrs.workload = jl_strdup(workload);
    r->attrs.model = jl_strdup("test/model");
    r->attrs.task = jl_strdup("test");
    r->attrs.gpu_model = jl_strdup("H100");
    r->attrs.precision = jl_strdup("bfloat16");
    r->attrs.num_gpus = G;
    r->attrs.max_batch_size = max_batch_size;
    r->summary.energy_per_token_j = r->summary.energy_per_request_j = NAN;
    r->summary.avg_power_w = r->summary.output_throughput_tok_s = NAN;
    r->summary.median_itl_s = r->summary.p90_itl_s = r->summary.p95_itl_s = NAN;
    r->summary.p99_itl_s = r->summary.avg_batch_size = NAN;
    r->summary.avg_output_tokens = r->summary.steady_state_duration_s = NAN;
    r->summary.steady_state_energy_j = r->summary.batch_latency_s = NAN;
    r->summary.energy_per_item_j = NAN;
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
                      const int64_t *tokens, const int64_t *prefill,
                      const float *kv)
{
    r->engine_n = S;
    r->engine_time = fx_copy(t, S, sizeof *t);
    r->running = fx_copy(running, S, sizeof *running);
    r->tokens_generated = fx_copy(tokens, S, sizeof *tokens);
    r->prefill_tokens = fx_copy(prefill, S, sizeof *prefill);
    r->kv_cache_usage = fx_copy(kv, S, sizeof *kv);
}

static inline void fx_requests(jl_run *r, size_t R, const double *arrival,
                        const double *first, const double *finish,
                        const int32_t *out_tokens)
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

static inline void fx_free(jl_run *r)
{
    if (!r)
        return;
    free(r->file);
    free(r->name);
    jl_attrs_clear(&r->attrs);
    free(r->power_time);
    free(r->watts.v);
    free(r->energy_j.v);
    free(r->watts_avg.v);
    free(r->gpu_time);
    free(r->sm_util.v);
    free(r->mem_util.v);
    free(r->mem_used_bytes.v);
    free(r->sm_clock_mhz.v);
    free(r->temp_c.v);
    free(r->engine_time);
    free(r->running);
    free(r->waiting);
    free(r->tokens_generated);
    free(r->prefill_tokens);
    free(r->kv_cache_usage);
    free(r->arrival);
    free(r->first_token);
    free(r->finish);
    free(r->input_tokens);
    free(r->output_tokens);
    free(r->itl_seconds);
    free(r->itl_request);
    free(r->batch_start);
    free(r->batch_end);
    free(r->batch_size);
    free(r);
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
