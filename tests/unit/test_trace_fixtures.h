/* Shared helpers of the trace tests: a small run with known values, deep
 * comparison of two runs, temporary paths. Included by test_trace_*.c. */
#ifndef JOULES_TEST_TRACE_FIXTURES_H
#define JOULES_TEST_TRACE_FIXTURES_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"
#include "joules/trace.h"
#include "joules/trace_write.h"
#include "test.h"

/* A folder of its own under the build tree for this test program. */
static char tf_dir[512];

static inline void tf_init(const char *test_name)
{
    snprintf(tf_dir, sizeof tf_dir, "%s/test-tmp/%s-%ld", JOULES_BINARY_DIR, test_name,
             (long)getpid());
    char cmd[700];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", tf_dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "cannot create %s\n", tf_dir);
        exit(2);
    }
}

static inline void tf_cleanup(void)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tf_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", tf_dir);
}

static inline char *tf_path(const char *name)
{
    return jl__asprintf("%s/%s", tf_dir, name);
}

static inline void *tf_alloc(size_t bytes)
{
    return calloc(1, bytes ? bytes : 1);
}

/* A run of n power rows over g GPUs with every group filled with values
 * that are easy to check: time = 0.1 i, watts = 100 + i + 10 k, ... */
static inline jl_run *tf_make_run(const char *name, size_t n, size_t g)
{
    jl_run *r = jl_run_new();
    r->name = jl__strdup(name);
    r->attrs.workload = jl__strdup("llm");
    r->attrs.model = jl__strdup("test/Model-1B");
    r->attrs.task = jl__strdup("chat");
    r->attrs.gpu_model = jl__strdup("H100");
    r->attrs.num_gpus = (long)g;
    r->attrs.precision = jl__strdup("bfloat16");
    r->attrs.max_batch_size = 8;
    r->attrs.start_time_unix = 1795000000.25;
    r->attrs.tensor_parallel = (long)g;
    r->attrs.gpu_memory_bytes = 85520809984.0;
    r->attrs.gpu_tdp_w = 700;
    r->attrs.gpu_idle_power_w = 123.456789;
    r->attrs.total_params = 1.5e9;
    r->attrs.active_params = 1.5e9;
    r->attrs.kv_bytes_per_token = 114688;
    r->attrs.notes = jl__strdup("fixture \xc3\xa9 notes");
    jl_attrs_add_extra(&r->attrs, "gpu_name", "NVIDIA H100 80GB HBM3", 0);
    jl_attrs_add_extra(&r->attrs, "num_requests", "6", 1);
    jl_attrs_add_extra(&r->attrs, "ratio", "0.10000000000000001", 1);

    r->power_n = n;
    r->power_time = tf_alloc(n * sizeof(double));
    r->watts.n = r->energy_j.n = r->watts_avg.n = n;
    r->watts.g = r->energy_j.g = r->watts_avg.g = g;
    r->watts.v = tf_alloc(n * g * sizeof(double));
    r->energy_j.v = tf_alloc(n * g * sizeof(double));
    r->watts_avg.v = tf_alloc(n * g * sizeof(double));
    for (size_t i = 0; i < n; i++) {
        r->power_time[i] = 0.1 * (double)i;
        for (size_t k = 0; k < g; k++) {
            /* float32-exact values, so float32 storage round-trips */
            r->watts.v[i * g + k] = 100.0 + (double)i + 10.0 * (double)k + 0.5;
            r->energy_j.v[i * g + k] = 5000.0 + 12.5 * (double)i + 0.001 * (double)k;
            r->watts_avg.v[i * g + k] = 150.0 + 0.25 * (double)i;
        }
    }
    size_t m = n / 2 + 1;
    r->gpu_n = m;
    r->gpu_time = tf_alloc(m * sizeof(double));
    jl_series *gs[] = {&r->sm_util, &r->mem_util, &r->mem_used_bytes, &r->sm_clock_mhz, &r->temp_c};
    for (int s = 0; s < 5; s++) {
        gs[s]->n = m;
        gs[s]->g = g;
        gs[s]->v = tf_alloc(m * g * sizeof(double));
        for (size_t i = 0; i < m * g; i++)
            gs[s]->v[i] = s == 2 ? 4.0e10 + (double)i
                                 : (s < 2 ? 0.01 * (double)(i % 100) : 1000.0 + (double)i);
    }
    for (size_t i = 0; i < m; i++)
        r->gpu_time[i] = 0.2 * (double)i;

    size_t S = 7;
    r->engine_n = S;
    r->engine_time = tf_alloc(S * sizeof(double));
    r->running = tf_alloc(S * sizeof(int32_t));
    r->waiting = tf_alloc(S * sizeof(int32_t));
    r->tokens_generated = tf_alloc(S * sizeof(int64_t));
    r->prefill_tokens = tf_alloc(S * sizeof(int64_t));
    r->kv_cache_usage = tf_alloc(S * sizeof(float));
    for (size_t i = 0; i < S; i++) {
        r->engine_time[i] = 0.05 + 0.1 * (double)i;
        r->running[i] = (int32_t)(i < 4 ? i + 1 : 8);
        r->waiting[i] = (int32_t)(S - i);
        r->tokens_generated[i] = (int64_t)(10000000000LL + 8 * (long long)i);
        r->prefill_tokens[i] = (int64_t)(512 * (long long)i);
        r->kv_cache_usage[i] = 0.125f * (float)i / 2.0f;
    }
    size_t R = 6;
    r->req_n = R;
    r->arrival = calloc(R, sizeof(double));
    r->first_token = tf_alloc(R * sizeof(double));
    r->finish = tf_alloc(R * sizeof(double));
    r->input_tokens = tf_alloc(R * sizeof(int32_t));
    r->output_tokens = tf_alloc(R * sizeof(int32_t));
    for (size_t i = 0; i < R; i++) {
        r->first_token[i] = 0.1 + 0.01 * (double)i;
        r->finish[i] = i == 5 ? jl__nan() : 0.5 + 0.03 * (double)i;
        r->input_tokens[i] = (int32_t)(100 + i);
        r->output_tokens[i] = (int32_t)(20 + i);
    }
    size_t K = 11;
    r->itl_n = K;
    r->itl_seconds = tf_alloc(K * sizeof(float));
    r->itl_request = tf_alloc(K * sizeof(int32_t));
    for (size_t i = 0; i < K; i++) {
        r->itl_seconds[i] = 0.001f * (float)(i + 1);
        r->itl_request[i] = (int32_t)(i % R);
    }
    return r;
}

/* A diffusion run: power and batches only. */
static inline jl_run *tf_make_diffusion_run(const char *name, size_t n)
{
    jl_run *r = tf_make_run(name, n, 1);
    free(r->attrs.workload);
    r->attrs.workload = jl__strdup("diffusion");
    r->attrs.denoising_steps = 28;
    r->attrs.height = r->attrs.width = 1024;
    r->attrs.num_frames = 1;
    free(r->engine_time);
    free(r->running);
    free(r->waiting);
    free(r->tokens_generated);
    free(r->prefill_tokens);
    free(r->kv_cache_usage);
    r->engine_time = NULL;
    r->running = r->waiting = NULL;
    r->tokens_generated = r->prefill_tokens = NULL;
    r->kv_cache_usage = NULL;
    r->engine_n = 0;
    free(r->arrival);
    free(r->first_token);
    free(r->finish);
    free(r->input_tokens);
    free(r->output_tokens);
    r->arrival = r->first_token = r->finish = NULL;
    r->input_tokens = r->output_tokens = NULL;
    r->req_n = 0;
    free(r->itl_seconds);
    free(r->itl_request);
    r->itl_seconds = NULL;
    r->itl_request = NULL;
    r->itl_n = 0;
    r->batch_n = 3;
    r->batch_start = tf_alloc(3 * sizeof(double));
    r->batch_end = tf_alloc(3 * sizeof(double));
    r->batch_size = tf_alloc(3 * sizeof(int32_t));
    for (int i = 0; i < 3; i++) {
        r->batch_start[i] = 1.5 * i;
        r->batch_end[i] = 1.5 * i + 1.4;
        r->batch_size[i] = 4;
    }
    return r;
}

/* A summary-only run (no time series), as the ML.ENERGY importer writes. */
static inline jl_run *tf_make_summary_run(const char *name)
{
    jl_run *r = jl_run_new();
    r->name = jl__strdup(name);
    r->attrs.workload = jl__strdup("llm");
    r->attrs.model = jl__strdup("Qwen/Qwen3-8B");
    r->attrs.task = jl__strdup("gpqa");
    r->attrs.gpu_model = jl__strdup("B200");
    r->attrs.num_gpus = 1;
    r->attrs.precision = jl__strdup("fp8");
    r->attrs.max_batch_size = 128;
    r->summary.present = 1;
    r->summary.energy_per_token_j = 0.0421;
    r->summary.avg_power_w = 612.5;
    r->summary.median_itl_s = 0.0123;
    r->summary.extra = calloc(2, sizeof(jl_kv));
    r->summary.extra[0].key = jl__strdup("source");
    r->summary.extra[0].value = jl__strdup("ml.energy leaderboard v3");
    r->summary.extra[1].key = jl__strdup("tpot_ms");
    r->summary.extra[1].value = jl__strdup("12.25");
    r->summary.extra[1].is_number = 1;
    r->summary.n_extra = 2;
    return r;
}

static inline int tf_same_double(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

static inline int tf_same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

#define TF_CMP_ARR(a, b, n, type)                                                          \
    do {                                                                                   \
        if (!(a) != !(b)) {                                                                \
            fprintf(stderr, "  %s: present in one run only\n", #a);                        \
            return 0;                                                                      \
        }                                                                                  \
        for (size_t i_ = 0; (a) && i_ < (n); i_++)                                         \
            if (!tf_same_double((double)((const type *)(a))[i_],                           \
                                (double)((const type *)(b))[i_])) {                        \
                fprintf(stderr, "  %s[%zu]: %.17g vs %.17g\n", #a, i_,                     \
                        (double)((const type *)(a))[i_], (double)((const type *)(b))[i_]); \
                return 0;                                                                  \
            }                                                                              \
    } while (0)

#define TF_CMP_SERIES(x)                                        \
    do {                                                        \
        if (a->x.v && (a->x.n != b->x.n || a->x.g != b->x.g)) { \
            fprintf(stderr, "  %s: shape differs\n", #x);       \
            return 0;                                           \
        }                                                       \
        TF_CMP_ARR(a->x.v, b->x.v, a->x.n * a->x.g, double);    \
    } while (0)

/* Deep comparison; prints the first difference. Integers exact, doubles
 * bit-equal (NaN == NaN). */
static inline int tf_runs_equal(const jl_run *a, const jl_run *b)
{
    if (!tf_same_str(a->name, b->name)) {
        fprintf(stderr, "  name differs\n");
        return 0;
    }
    for (const char *const *k = jl_attr_names; *k; k++) {
        char va[256], vb[256];
        int ga = jl_attrs_get(&a->attrs, *k, va, sizeof va);
        int gb = jl_attrs_get(&b->attrs, *k, vb, sizeof vb);
        if (ga != gb || (ga == 0 && strcmp(va, vb))) {
            fprintf(stderr, "  attribute %s: \"%s\" vs \"%s\"\n", *k, ga ? "-" : va, gb ? "-" : vb);
            return 0;
        }
    }
    if (a->attrs.n_extra != b->attrs.n_extra) {
        fprintf(stderr, "  extras: %zu vs %zu\n", a->attrs.n_extra, b->attrs.n_extra);
        return 0;
    }
    for (size_t i = 0; i < a->attrs.n_extra; i++) {
        /* the reader lists attributes by name: compare by key */
        const jl_kv *x = &a->attrs.extra[i], *y = NULL;
        for (size_t j = 0; j < b->attrs.n_extra; j++)
            if (!strcmp(b->attrs.extra[j].key, x->key))
                y = &b->attrs.extra[j];
        if (!y || strcmp(x->value, y->value) || x->is_number != y->is_number) {
            fprintf(stderr, "  extra %s: \"%s\" vs \"%s\"\n", x->key, x->value,
                    y ? y->value : "(absent)");
            return 0;
        }
    }
    if (a->power_n != b->power_n || a->gpu_n != b->gpu_n || a->engine_n != b->engine_n ||
        a->req_n != b->req_n || a->itl_n != b->itl_n || a->batch_n != b->batch_n) {
        fprintf(stderr, "  row counts differ\n");
        return 0;
    }
    TF_CMP_ARR(a->power_time, b->power_time, a->power_n, double);
    TF_CMP_SERIES(watts);
    TF_CMP_SERIES(energy_j);
    TF_CMP_SERIES(watts_avg);
    TF_CMP_ARR(a->gpu_time, b->gpu_time, a->gpu_n, double);
    TF_CMP_SERIES(sm_util);
    TF_CMP_SERIES(mem_util);
    TF_CMP_SERIES(mem_used_bytes);
    TF_CMP_SERIES(sm_clock_mhz);
    TF_CMP_SERIES(temp_c);
    TF_CMP_ARR(a->engine_time, b->engine_time, a->engine_n, double);
    TF_CMP_ARR(a->running, b->running, a->engine_n, int32_t);
    TF_CMP_ARR(a->waiting, b->waiting, a->engine_n, int32_t);
    TF_CMP_ARR(a->tokens_generated, b->tokens_generated, a->engine_n, int64_t);
    TF_CMP_ARR(a->prefill_tokens, b->prefill_tokens, a->engine_n, int64_t);
    TF_CMP_ARR(a->kv_cache_usage, b->kv_cache_usage, a->engine_n, float);
    TF_CMP_ARR(a->arrival, b->arrival, a->req_n, double);
    TF_CMP_ARR(a->first_token, b->first_token, a->req_n, double);
    TF_CMP_ARR(a->finish, b->finish, a->req_n, double);
    TF_CMP_ARR(a->input_tokens, b->input_tokens, a->req_n, int32_t);
    TF_CMP_ARR(a->output_tokens, b->output_tokens, a->req_n, int32_t);
    TF_CMP_ARR(a->itl_seconds, b->itl_seconds, a->itl_n, float);
    TF_CMP_ARR(a->itl_request, b->itl_request, a->itl_n, int32_t);
    TF_CMP_ARR(a->batch_start, b->batch_start, a->batch_n, double);
    TF_CMP_ARR(a->batch_end, b->batch_end, a->batch_n, double);
    TF_CMP_ARR(a->batch_size, b->batch_size, a->batch_n, int32_t);
    if (a->summary.present != b->summary.present) {
        fprintf(stderr, "  summary presence differs\n");
        return 0;
    }
    const double *sa = &a->summary.energy_per_token_j, *sb = &b->summary.energy_per_token_j;
    for (int k = 0; k < 14; k++)
        if (!tf_same_double(sa[k], sb[k])) {
            fprintf(stderr, "  summary figure %d: %.17g vs %.17g\n", k, sa[k], sb[k]);
            return 0;
        }
    if (a->summary.n_extra != b->summary.n_extra) {
        fprintf(stderr, "  summary extras: %zu vs %zu\n", a->summary.n_extra, b->summary.n_extra);
        return 0;
    }
    for (size_t i = 0; i < a->summary.n_extra; i++) {
        const jl_kv *x = &a->summary.extra[i], *y = NULL;
        for (size_t j = 0; j < b->summary.n_extra; j++)
            if (!strcmp(b->summary.extra[j].key, x->key))
                y = &b->summary.extra[j];
        if (!y || strcmp(x->value, y->value) || x->is_number != y->is_number) {
            fprintf(stderr, "  summary extra %s differs\n", x->key);
            return 0;
        }
    }
    return 1;
}

/* Open path and read run i; returns the status and the formatted error (or
 * NULL) in *msg (caller frees). */
static inline jl_status tf_read(const char *path, size_t i, const jl_trace_options *opt,
                                jl_run **out, char **msg, jl_error **err_out)
{
    jl_trace *t = NULL;
    jl_error *e = NULL;
    jl_run *r = NULL;
    jl_status st = jl_trace_open(path, opt, &t, &e);
    if (st == JL_OK)
        st = jl_trace_read_run(t, i, &r, &e);
    jl_trace_close(t);
    if (msg)
        *msg = e ? jl_error_format(e) : NULL;
    if (err_out)
        *err_out = e;
    else
        jl_error_free(e);
    if (out)
        *out = r;
    else
        jl_run_free(r);
    return st;
}

#endif
