/* joules import mlenergy-benchmark: ML.ENERGY Benchmark run directories
 * (results.json and, for LLM/MLLM, prometheus.json) as runs with time
 * series and the harness's own figures in summary/. Read with the
 * streaming parser (src/json/json_stream.c): prompt and output texts are skipped, so
 * memory follows one run's series, not the file. Mapping, units and what the
 * source does not say: docs/import.md, "ML.ENERGY Benchmark". */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/inputs.h"
#include "core/stats.h"
#include "core/util.h"
#include "import/kit.h"
#include "import/prom_text.h"
#include "joules/import.h"
#include "json/json_internal.h"

#define SOURCE "ML.ENERGY Benchmark harness (results.json, prometheus.json)"
#define MAX_G 64
#define MAX_KEEP_STR (1 << 20)
#define CHUNK (1 << 20)
#define HOLD_GRID_S 0.5

/* ---- growable arrays ------------------------------------------------------ */

typedef struct dvec {
    double *v;
    size_t n, cap;
} dvec;

static int dpush(dvec *a, double x)
{
    if (a->n == a->cap) {
        size_t nc = a->cap ? 2 * a->cap : 256;
        double *nv = realloc(a->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        a->v = nv;
        a->cap = nc;
    }
    a->v[a->n++] = x;
    return 0;
}

/* [t, value] pairs of one GPU in one domain */
typedef struct tv {
    dvec t, v;
} tv;

typedef struct measurement {
    int present;
    double time;
    double gpu[MAX_G];
    int n_gpu;
} measurement;

typedef struct bench {
    jl__imp *c;
    const char *file;
    js p;
    char path[512];
    long long elem; /* >= 0: the element of path's array being read ("[elem]"
                     * is added to path only when an error names it) */
    int failed;
    jl_run *r; /* attrs and extras as read */
    /* setup */
    char *model_id, *gpu_model;
    double num_gpus, max_num_seqs, request_rate, batch_size, inference_steps, height, width,
        num_frames, ulysses, ring;
    int rate_inf;
    /* totals */
    double duration, completed, ss_duration, ss_energy, ss_ept, total_out, out_tput, total_time,
        total_energy, energy_per_image, tput_images;
    double median_itl_ms, p90_itl_ms, p95_itl_ms, p99_itl_ms, median_ttft_ms, p90_ttft_ms,
        mean_tpot_ms;
    measurement ss_mes, entire_mes;
    dvec iter_time;
    /* timeline */
    double t_start, t_end, ss_start, ss_end;
    tv inst[MAX_G], avg[MAX_G], temp[MAX_G];
    int g_inst, g_avg, g_temp, has_memory_domain;
    /* requests */
    dvec in_len, out_len, lat, ttft, ok;
    float *itl;       /* ITL samples as the trace stores them (memory: 8 bytes each) */
    int32_t *itl_req; /* the request row of each */
    size_t itl_n, itl_cap;
    int is_llm_results;
} bench;

static void bench_free(bench *b)
{
    free(b->model_id);
    free(b->gpu_model);
    free(b->iter_time.v);
    for (int g = 0; g < MAX_G; g++) {
        free(b->inst[g].t.v), free(b->inst[g].v.v);
        free(b->avg[g].t.v), free(b->avg[g].v.v);
        free(b->temp[g].t.v), free(b->temp[g].v.v);
    }
    free(b->in_len.v), free(b->out_len.v), free(b->lat.v), free(b->ttft.v), free(b->ok.v);
    free(b->itl), free(b->itl_req);
    jl__jstream_free(&b->p);
    jl_run_free(b->r);
}

/* ---- errors with the JSON path ------------------------------------------- */

static int berr(bench *b, jl_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int berr(bench *b, jl_status code, const char *fmt, ...)
{
    if (b->failed)
        return -1;
    b->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    char *m = jl__vasprintf(fmt, ap);
    va_end(ap);
    if (b->elem >= 0) {
        size_t at = strlen(b->path);
        snprintf(b->path + at, sizeof b->path - at, "[%lld]", b->elem);
        b->elem = -1;
    }
    jl__imp_err(b->c, code, b->file, b->path[0] ? b->path : "(document)", jl__jstream_line(&b->p),
                "%s (column %lld)", m ? m : "out of memory", jl__jstream_col(&b->p));
    free(m);
    return -1;
}

/* The parser's own error (syntax, truncation, I/O). */
static int perr(bench *b)
{
    return berr(b, JL_EFORMAT, "%s", b->p.err[0] ? b->p.err : "malformed JSON");
}

static size_t push_path(bench *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static size_t push_path(bench *b, const char *fmt, ...)
{
    size_t at = strlen(b->path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->path + at, sizeof b->path - at, fmt, ap);
    va_end(ap);
    return at;
}

static void pop_path(bench *b, size_t at)
{
    b->path[at] = '\0';
}

/* ---- typed reads ---------------------------------------------------------- */

/* A number (null: NaN). "inf" strings accepted when inf_ok. */
static int read_num(bench *b, double *out, int inf_ok)
{
    jl__jstream_tok t = jl__jstream_next(&b->p);
    if (t == JS_NUM) {
        *out = b->p.num;
        return 0;
    }
    if (t == JS_NULL) {
        *out = NAN;
        return 0;
    }
    if (t == JS_STR && inf_ok && (!strcmp(b->p.str, "inf") || !strcmp(b->p.str, "Infinity"))) {
        *out = INFINITY;
        return 0;
    }
    if (t == JS_ERROR)
        return perr(b);
    return berr(b, JL_ETYPE, "expected a number, found %s", jl__jstream_tok_name(t));
}

static int read_str(bench *b, char **out)
{
    jl__jstream_tok t = jl__jstream_next(&b->p);
    if (t == JS_NULL)
        return 0;
    if (t == JS_ERROR)
        return perr(b);
    if (t != JS_STR)
        return berr(b, JL_ETYPE, "expected a string, found %s", jl__jstream_tok_name(t));
    free(*out);
    *out = jl__strdup(b->p.str);
    if (!*out)
        return berr(b, JL_ENOMEM, "out of memory");
    return 0;
}

static int expect(bench *b, jl__jstream_tok want)
{
    jl__jstream_tok t = jl__jstream_next(&b->p);
    if (t == want)
        return 0;
    if (t == JS_ERROR)
        return perr(b);
    return berr(b, JL_ETYPE, "expected %s, found %s", jl__jstream_tok_name(want),
                jl__jstream_tok_name(t));
}

/* Iterate an object's keys: returns 1 with b->p.str the key, 0 at '}'. */
static int next_key(bench *b)
{
    jl__jstream_tok t = jl__jstream_next(&b->p);
    if (t == JS_KEY)
        return 1;
    if (t == JS_OBJ_END)
        return 0;
    return t == JS_ERROR ? perr(b)
                         : berr(b, JL_EFORMAT, "expected a key, found %s", jl__jstream_tok_name(t));
}

/* A GPU index key "0".."63". */
static int gpu_key(bench *b, const char *k)
{
    char *end;
    long g = strtol(k, &end, 10);
    if (!*k || *end || g < 0 || g >= MAX_G)
        return berr(b, JL_EINVALID, "GPU key \"%s\" is not an index 0..%d", k, MAX_G - 1), -1;
    return (int)g;
}

/* {"0": J, "1": J, ...} */
static int read_gpu_numbers(bench *b, double *gpu, int *n_gpu)
{
    if (expect(b, JS_OBJ_START))
        return -1;
    int r;
    while ((r = next_key(b)) == 1) {
        size_t at = push_path(b, ".%s", b->p.str);
        int g = gpu_key(b, b->p.str);
        if (g < 0 || read_num(b, &gpu[g], 0))
            return -1;
        if (g + 1 > *n_gpu)
            *n_gpu = g + 1;
        pop_path(b, at);
    }
    return r;
}

/* A Zeus Measurement: {"time": s, "gpu_energy": {"0": J}, ...}. */
static int read_measurement(bench *b, measurement *m)
{
    if (expect(b, JS_OBJ_START))
        return -1;
    m->present = 1;
    m->time = NAN;
    for (int g = 0; g < MAX_G; g++)
        m->gpu[g] = NAN;
    int r;
    while ((r = next_key(b)) == 1) {
        size_t at = push_path(b, ".%s", b->p.str);
        if (!strcmp(b->p.str, "time")) {
            if (read_num(b, &m->time, 0))
                return -1;
        } else if (!strcmp(b->p.str, "gpu_energy")) {
            if (read_gpu_numbers(b, m->gpu, &m->n_gpu))
                return -1;
        } else if (jl__jstream_skip(&b->p)) {
            return perr(b);
        }
        pop_path(b, at);
    }
    return r;
}

/* [[t, v], ...] into a tv, times non-decreasing. */
static int read_pairs(bench *b, tv *out)
{
    if (expect(b, JS_ARR_START))
        return -1;
    size_t k = 0;
    /* the element's index joins the path only in an error (berr): a
     * series holds millions of pairs */
    for (;; k++) {
        jl__jstream_tok t = jl__jstream_next(&b->p);
        if (t == JS_ARR_END)
            break;
        b->elem = (long long)k;
        if (t != JS_ARR_START)
            return t == JS_ERROR ? perr(b)
                                 : berr(b, JL_ETYPE, "expected a [time, value] pair, found %s",
                                        jl__jstream_tok_name(t));
        double tt, v;
        if (read_num(b, &tt, 0) || read_num(b, &v, 0) || expect(b, JS_ARR_END))
            return -1;
        if (!isfinite(tt) || !isfinite(v))
            return berr(b, JL_EINVALID, "a time or value that is not finite");
        if (out->t.n && tt < out->t.v[out->t.n - 1])
            return berr(b, JL_EINVALID, "time goes backwards (%.6f after %.6f)", tt,
                        out->t.v[out->t.n - 1]);
        if (dpush(&out->t, tt) || dpush(&out->v, v))
            return berr(b, JL_ENOMEM, "out of memory");
        b->elem = -1;
    }
    return 0;
}

/* {"0": [[t, v], ...], ...} */
static int read_gpu_pairs(bench *b, tv *arr, int *n_gpu)
{
    if (expect(b, JS_OBJ_START))
        return -1;
    int r;
    while ((r = next_key(b)) == 1) {
        size_t at = push_path(b, ".%s", b->p.str);
        int g = gpu_key(b, b->p.str);
        if (g < 0 || read_pairs(b, &arr[g]))
            return -1;
        if (g + 1 > *n_gpu)
            *n_gpu = g + 1;
        pop_path(b, at);
    }
    return r;
}

static int read_timeline(bench *b)
{
    if (expect(b, JS_OBJ_START))
        return -1;
    int r;
    while ((r = next_key(b)) == 1) {
        const char *k = b->p.str;
        size_t at = push_path(b, ".%s", k);
        double *num = !strcmp(k, "benchmark_start_time")      ? &b->t_start
                      : !strcmp(k, "benchmark_end_time")      ? &b->t_end
                      : !strcmp(k, "steady_state_start_time") ? &b->ss_start
                      : !strcmp(k, "steady_state_end_time")   ? &b->ss_end
                                                              : NULL;
        if (num) {
            if (read_num(b, num, 0))
                return -1;
        } else if (!strcmp(k, "power")) {
            if (expect(b, JS_OBJ_START))
                return -1;
            int r2;
            while ((r2 = next_key(b)) == 1) {
                size_t at2 = push_path(b, ".%s", b->p.str);
                int rc = 0;
                if (!strcmp(b->p.str, "device_instant"))
                    rc = read_gpu_pairs(b, b->inst, &b->g_inst);
                else if (!strcmp(b->p.str, "device_average"))
                    rc = read_gpu_pairs(b, b->avg, &b->g_avg);
                else {
                    b->has_memory_domain |= !strcmp(b->p.str, "memory_average");
                    rc = jl__jstream_skip(&b->p) ? perr(b) : 0;
                }
                if (rc)
                    return -1;
                pop_path(b, at2);
            }
            if (r2 < 0)
                return -1;
        } else if (!strcmp(k, "temperature")) {
            if (read_gpu_pairs(b, b->temp, &b->g_temp))
                return -1;
        } else if (jl__jstream_skip(&b->p)) {
            return perr(b);
        }
        pop_path(b, at);
    }
    return r;
}

/* Samples v[0..n) of request req, from itl[*j] on: checked, stored as
 * float32 with the request row, *j advanced. A bad sample is the last of a
 * batch (jl__jstream_array_numbers), so the parser stands just after it.
 * Returns 0, or -1 with the error reported. */
static int push_itl(bench *b, const double *v, size_t n, size_t req, size_t *j)
{
    if (n == 0) /* an empty itl list: nothing to add (b->itl may still be NULL) */
        return 0;
    if (b->itl_cap - b->itl_n < n) {
        size_t want = b->itl_n + n;
        while (b->itl_cap < want)
            if (jl__grow2((void **)&b->itl, sizeof *b->itl, (void **)&b->itl_req,
                          sizeof *b->itl_req, b->itl_cap, &b->itl_cap, 4096))
                return berr(b, JL_ENOMEM, "out of memory");
    }
    float *f = b->itl + b->itl_n;
    int32_t *r = b->itl_req + b->itl_n;
    for (size_t i = 0; i < n; i++) {
        if (!(v[i] >= 0) || !isfinite(v[i]))
            return berr(b, JL_EINVALID, "itl[%zu] = %g is not a finite time >= 0", *j + i, v[i]);
        f[i] = (float)v[i];
        r[i] = (int32_t)req;
    }
    b->itl_n += n;
    *j += n;
    return 0;
}

/* One element of results[]: a request. */
static int read_request(bench *b, size_t idx)
{
    double in = NAN, out = NAN, lat = NAN, ttft = NAN, ok = 0;
    int r;
    while ((r = next_key(b)) == 1) {
        const char *k = b->p.str;
        size_t at = push_path(b, ".%s", k);
        int rc = 0;
        if (!strcmp(k, "input_len"))
            rc = read_num(b, &in, 0);
        else if (!strcmp(k, "output_len"))
            rc = read_num(b, &out, 0);
        else if (!strcmp(k, "latency"))
            rc = read_num(b, &lat, 0);
        else if (!strcmp(k, "ttft"))
            rc = read_num(b, &ttft, 0);
        else if (!strcmp(k, "success")) {
            jl__jstream_tok t = jl__jstream_next(&b->p);
            if (t != JS_TRUE && t != JS_FALSE)
                rc = t == JS_ERROR ? perr(b)
                                   : berr(b, JL_ETYPE, "expected true or false, found %s",
                                          jl__jstream_tok_name(t));
            ok = t == JS_TRUE;
        } else if (!strcmp(k, "itl")) {
            rc = expect(b, JS_ARR_START);
            for (size_t j = 0; !rc;) {
                double v[256];
                size_t n;
                int got = jl__jstream_array_numbers(&b->p, v, 256, &n);
                if (push_itl(b, v, n, idx, &j))
                    return -1;
                if (got == 0)
                    break;
                if (got == -1) {
                    rc = perr(b);
                } else if (got == -2) {
                    jl__jstream_tok t = jl__jstream_next(&b->p);
                    rc = t == JS_ERROR ? perr(b)
                                       : berr(b, JL_ETYPE, "itl[%zu]: expected a number, found %s",
                                              j, jl__jstream_tok_name(t));
                }
            }
        } else if (jl__jstream_skip(&b->p)) { /* prompt, output texts, error, energy, ... */
            rc = perr(b);
        }
        if (rc)
            return -1;
        pop_path(b, at);
    }
    if (r < 0)
        return -1;
    if (dpush(&b->in_len, in) || dpush(&b->out_len, out) || dpush(&b->lat, lat) ||
        dpush(&b->ttft, ttft) || dpush(&b->ok, ok))
        return berr(b, JL_ENOMEM, "out of memory");
    return 0;
}

static int read_results(bench *b)
{
    if (expect(b, JS_ARR_START))
        return -1;
    b->is_llm_results = 1;
    for (size_t k = 0;; k++) {
        jl__jstream_tok t = jl__jstream_next(&b->p);
        if (t == JS_ARR_END)
            return 0;
        size_t at = push_path(b, "[%zu]", k);
        if (t != JS_OBJ_START)
            return t == JS_ERROR ? perr(b)
                                 : berr(b, JL_ETYPE, "expected a request object, found %s",
                                        jl__jstream_tok_name(t));
        if (read_request(b, k))
            return -1;
        pop_path(b, at);
    }
}

static int read_configurations(bench *b)
{
    if (expect(b, JS_OBJ_START))
        return -1;
    int r;
    while ((r = next_key(b)) == 1) {
        size_t at = push_path(b, ".%s", b->p.str);
        double *num = !strcmp(b->p.str, "ulysses_degree") ? &b->ulysses
                      : !strcmp(b->p.str, "ring_degree")  ? &b->ring
                                                          : NULL;
        if (num ? read_num(b, num, 0) : (jl__jstream_skip(&b->p) ? perr(b) : 0))
            return -1;
        pop_path(b, at);
    }
    return r;
}

/* Known top-level numbers: X(key, the bench field it goes to, 1 when it
 * becomes a typed attribute, not kept again as an extra). */
/* clang-format off */
#define TOP_NUMS(X) \
    X(num_gpus, num_gpus, 1) X(max_num_seqs, max_num_seqs, 1) X(batch_size, batch_size, 1) \
    X(inference_steps, inference_steps, 1) X(height, height, 1) X(width, width, 1) \
    X(num_frames, num_frames, 1) X(duration, duration, 0) X(completed, completed, 0) \
    X(steady_state_duration, ss_duration, 0) X(steady_state_energy, ss_energy, 0) \
    X(steady_state_energy_per_token, ss_ept, 0) X(total_output_tokens, total_out, 0) \
    X(output_throughput, out_tput, 0) X(total_time, total_time, 0) \
    X(total_energy, total_energy, 0) X(energy_per_image, energy_per_image, 0) \
    X(throughput_images_per_sec, tput_images, 0) X(median_itl_ms, median_itl_ms, 0) \
    X(p90_itl_ms, p90_itl_ms, 0) X(p95_itl_ms, p95_itl_ms, 0) X(p99_itl_ms, p99_itl_ms, 0) \
    X(median_ttft_ms, median_ttft_ms, 0) X(p90_ttft_ms, p90_ttft_ms, 0) \
    X(mean_tpot_ms, mean_tpot_ms, 0)
/* clang-format on */

typedef struct top_num {
    const char *key;
    size_t off;
    int typed;
} top_num;

#define TOP_ROW(key, field, typed) {#key, offsetof(bench, field), typed},
static const top_num top_nums[] = {TOP_NUMS(TOP_ROW)};
#undef TOP_ROW

static int read_top(bench *b)
{
    if (expect(b, JS_OBJ_START))
        return -1;
    int r;
    while ((r = next_key(b)) == 1) {
        char key[128];
        snprintf(key, sizeof key, "%s", b->p.str);
        size_t at = push_path(b, "%s", key);
        int rc = 0;
        size_t k = 0;
        while (k < sizeof top_nums / sizeof top_nums[0] && strcmp(top_nums[k].key, key))
            k++;
        if (k < sizeof top_nums / sizeof top_nums[0]) {
            double *dst = (double *)((char *)b + top_nums[k].off);
            rc = read_num(b, dst, 0);
            if (!rc && isfinite(*dst) && !top_nums[k].typed)
                jl__imp_extra_num(b->c, b->r, key, *dst);
        } else if (!strcmp(key, "model_id")) {
            rc = read_str(b, &b->model_id);
        } else if (!strcmp(key, "gpu_model")) {
            rc = read_str(b, &b->gpu_model);
        } else if (!strcmp(key, "request_rate")) {
            rc = read_num(b, &b->request_rate, 1);
            b->rate_inf = isinf(b->request_rate);
        } else if (!strcmp(key, "steady_state_measurement")) {
            rc = read_measurement(b, &b->ss_mes);
        } else if (!strcmp(key, "entire_benchmark_measurement") ||
                   !strcmp(key, "energy_measurement")) {
            rc = read_measurement(b, &b->entire_mes);
        } else if (!strcmp(key, "iteration_energy_measurements")) {
            rc = expect(b, JS_ARR_START);
            for (size_t i = 0; !rc; i++) {
                jl__jstream_tok t = jl__jstream_next(&b->p);
                if (t == JS_ARR_END)
                    break;
                size_t at2 = push_path(b, "[%zu]", i);
                measurement m = {0};
                if (t != JS_OBJ_START)
                    rc = t == JS_ERROR ? perr(b)
                                       : berr(b, JL_ETYPE, "expected a measurement, found %s",
                                              jl__jstream_tok_name(t));
                else {
                    /* the '{' is consumed: read the body as read_measurement does */
                    m.present = 1;
                    m.time = NAN;
                    int r2;
                    while (!rc && (r2 = next_key(b)) == 1) {
                        size_t at3 = push_path(b, ".%s", b->p.str);
                        if (!strcmp(b->p.str, "time"))
                            rc = read_num(b, &m.time, 0);
                        else
                            rc = jl__jstream_skip(&b->p) ? perr(b) : 0;
                        pop_path(b, at3);
                    }
                    if (!rc && r2 < 0)
                        rc = -1;
                    if (!rc && dpush(&b->iter_time, m.time))
                        rc = berr(b, JL_ENOMEM, "out of memory");
                }
                pop_path(b, at2);
            }
        } else if (!strcmp(key, "timeline")) {
            rc = read_timeline(b);
        } else if (!strcmp(key, "results")) {
            rc = read_results(b);
        } else if (!strcmp(key, "configurations")) {
            rc = read_configurations(b);
        } else {
            /* other setup fields and latency summaries: scalars kept */
            jl__jstream_tok t = jl__jstream_next(&b->p);
            if (t == JS_NUM)
                jl__imp_extra_num(b->c, b->r, key, b->p.num);
            else if (t == JS_STR && strlen(b->p.str) < 4096)
                jl__imp_extra_str(b->c, b->r, key, b->p.str);
            else if (t == JS_TRUE || t == JS_FALSE)
                jl__imp_extra_str(b->c, b->r, key, t == JS_TRUE ? "true" : "false");
            else if (t == JS_OBJ_START || t == JS_ARR_START) {
                /* nested values we do not map: skip the rest of it */
                int depth = 1;
                while (depth > 0 && !rc) {
                    jl__jstream_tok u = jl__jstream_next(&b->p);
                    if (u == JS_ERROR || u == JS_EOF)
                        rc = perr(b);
                    else if (u == JS_OBJ_START || u == JS_ARR_START)
                        depth++;
                    else if (u == JS_OBJ_END || u == JS_ARR_END)
                        depth--;
                }
                if (!rc)
                    jl__imp_note(b->c, b->file, key, "a nested field joules does not map: skipped");
            } else if (t == JS_ERROR)
                rc = perr(b);
        }
        if (rc)
            return -1;
        pop_path(b, at);
    }
    if (r < 0)
        return -1;
    if (jl__jstream_next(&b->p) != JS_EOF)
        return perr(b);
    return 0;
}

/* ---- prometheus.json: engine/ -------------------------------------------- */

static const char *const prom_names[] = {
    "vllm:num_requests_running", "vllm:num_requests_waiting",    "vllm:kv_cache_usage_perc",
    "vllm:gpu_cache_usage_perc", "vllm:generation_tokens_total", "vllm:prompt_tokens_total",
};
enum { P_RUN, P_WAIT, P_KV, P_KV_OLD, P_GEN, P_PROMPT, P_N };

typedef struct engine_rows {
    dvec t, running, waiting, kv, gen, prompt;
    size_t skipped;
} engine_rows;

static void engine_free(engine_rows *e)
{
    free(e->t.v), free(e->running.v), free(e->waiting.v), free(e->kv.v), free(e->gen.v),
        free(e->prompt.v);
}

/* One snapshot {"timestamp": s, "metrics": "<exposition text>"}. */
static int read_snapshot(bench *b, engine_rows *e, size_t idx)
{
    double ts = NAN;
    double sum[P_N];
    size_t cnt[P_N];
    int have = 0, r;
    while ((r = next_key(b)) == 1) {
        size_t at = push_path(b, ".%s", b->p.str);
        if (!strcmp(b->p.str, "timestamp")) {
            if (read_num(b, &ts, 0))
                return -1;
        } else if (!strcmp(b->p.str, "metrics")) {
            jl__jstream_tok t = jl__jstream_next(&b->p);
            if (t != JS_STR)
                return t == JS_ERROR ? perr(b)
                                     : berr(b, JL_ETYPE, "expected the exposition text, found %s",
                                            jl__jstream_tok_name(t));
            long line = 0;
            char msg[160];
            if (jl__prom_sums(b->p.str, b->p.slen, prom_names, P_N, sum, cnt, &line, msg,
                              sizeof msg))
                return berr(b, JL_EFORMAT, "Prometheus text, line %ld: %s", line, msg);
            have = 1;
        } else if (jl__jstream_skip(&b->p)) {
            return perr(b);
        }
        pop_path(b, at);
    }
    if (r < 0)
        return -1;
    if (!isfinite(ts) || !have)
        return berr(b, JL_EMISSING, "snapshot %zu needs \"timestamp\" and \"metrics\"", idx);
    if (!cnt[P_RUN]) { /* the server was not up yet, or the scrape was cut */
        e->skipped++;
        return 0;
    }
    double t = ts - b->t_start;
    if (e->t.n && t < e->t.v[e->t.n - 1])
        return berr(b, JL_EINVALID, "timestamp goes backwards");
    double kv = cnt[P_KV]       ? sum[P_KV] / (double)cnt[P_KV]
                : cnt[P_KV_OLD] ? sum[P_KV_OLD] / (double)cnt[P_KV_OLD]
                                : NAN;
    if (dpush(&e->t, t) || dpush(&e->running, sum[P_RUN]) ||
        dpush(&e->waiting, cnt[P_WAIT] ? sum[P_WAIT] : NAN) || dpush(&e->kv, kv) ||
        dpush(&e->gen, cnt[P_GEN] ? sum[P_GEN] : NAN) ||
        dpush(&e->prompt, cnt[P_PROMPT] ? sum[P_PROMPT] : NAN))
        return berr(b, JL_ENOMEM, "out of memory");
    return 0;
}

/* The harness's document: {"timeline": [snapshot, ...], ...} and nothing
 * after it. A document without "timeline" (another file of that name, a
 * typo) or with text after it is refused: naming what is wrong, never a
 * run without its engine rows said by no one. */
static int read_prometheus(bench *b, engine_rows *e)
{
    if (expect(b, JS_OBJ_START))
        return -1;
    int r, have_timeline = 0;
    while ((r = next_key(b)) == 1) {
        size_t at = push_path(b, "%s", b->p.str);
        if (!strcmp(b->p.str, "timeline")) {
            if (have_timeline)
                return berr(b, JL_EFORMAT, "\"timeline\" given twice");
            have_timeline = 1;
            if (expect(b, JS_ARR_START))
                return -1;
            for (size_t k = 0;; k++) {
                jl__jstream_tok t = jl__jstream_next(&b->p);
                if (t == JS_ARR_END)
                    break;
                size_t at2 = push_path(b, "[%zu]", k);
                if (t != JS_OBJ_START)
                    return t == JS_ERROR ? perr(b)
                                         : berr(b, JL_ETYPE, "expected a snapshot, found %s",
                                                jl__jstream_tok_name(t));
                if (read_snapshot(b, e, k))
                    return -1;
                pop_path(b, at2);
            }
        } else if (jl__jstream_skip(&b->p)) {
            return perr(b);
        }
        pop_path(b, at);
    }
    if (r < 0)
        return -1;
    if (!have_timeline) {
        push_path(b, "timeline");
        return berr(b, JL_EMISSING,
                    "no \"timeline\" array: not the ML.ENERGY harness's prometheus.json (its "
                    "engine rows come from timeline[*].metrics)");
    }
    jl__jstream_tok t = jl__jstream_next(&b->p);
    if (t != JS_EOF)
        return t == JS_ERROR
                   ? perr(b)
                   : berr(b, JL_EFORMAT, "%s after the document's end", jl__jstream_tok_name(t));
    return 0;
}

/* ---- building the run ---------------------------------------------------- */

/* Zeus keeps a power sample only when the reading changed (and drops
 * readings <= 0), so a series is sample-and-hold: the value at t is the last
 * sample at or before t. In the trace (linear between rows) that is written
 * as steps: at each change time, a row with the value held so far and a row
 * with the new one (equal times). Rows span [t0, t1] (the benchmark's start
 * and end: the first sample is held back to t0, a note, and the last held to
 * t1). Up to two domains (a: G columns, b: Gb columns or none) share the
 * time axis. Times relative to t0. Returns the row count, or (size_t)-1 when
 * out of memory. */
typedef struct steps {
    double *t, *a, *b;
} steps;

static size_t value_at(const tv *s, size_t *j, double t)
{
    while (*j + 1 < s->t.n && s->t.v[*j + 1] <= t)
        (*j)++;
    return *j;
}

/* x before y in jl__cmp_double's order (NaN last) */
static int before(double x, double y)
{
    return isnan(x) || isnan(y) ? !isnan(x) && isnan(y) : x < y;
}

/* The k sorted lists as one sorted list in out (out->n values): the order
 * a stable sort of their concatenation gives (equal values in list order),
 * without sorting: every list of a run's times is already in order. Many
 * lists (a run of many GPUs): concatenated and sorted. */
static int merge_sorted(const double *const *v, const size_t *n, size_t k, dvec *out)
{
    size_t total = 0;
    for (size_t l = 0; l < k; l++)
        total += n[l];
    out->n = 0;
    out->v = jl__malloc_array(total ? total : 1, sizeof *out->v);
    size_t *at = calloc(k ? k : 1, sizeof *at);
    if (!out->v || !at) {
        free(at);
        return -1;
    }
    out->cap = total ? total : 1;
    if (k > 32) {
        for (size_t l = 0; l < k; l++)
            for (size_t i = 0; i < n[l]; i++)
                out->v[out->n++] = v[l][i];
        qsort(out->v, out->n, sizeof *out->v, jl__cmp_double);
    } else {
        while (out->n < total) {
            size_t best = k;
            for (size_t l = 0; l < k; l++)
                if (at[l] < n[l] && (best == k || before(v[l][at[l]], v[best][at[best]])))
                    best = l;
            out->v[out->n++] = v[best][at[best]++];
        }
    }
    free(at);
    return 0;
}

static size_t step_rows(const tv *sa, int G, const tv *sb, int Gb, double t0, double t1, steps *out,
                        int *backfilled)
{
    /* the times of every column, t0, t1 and the hold grid: each in order */
    dvec T = {0}, grid = {0};
    int bad = 0;
    if (isfinite(t1)) {
        /* held values repeated on a HOLD_GRID_S grid: the value is known
         * there (unchanged), and sample-coverage checks then see it so */
        for (double t = t0 + HOLD_GRID_S; t < t1 && t1 - t0 < 1e6 && !bad; t += HOLD_GRID_S)
            bad |= dpush(&grid, t);
    }
    size_t nlist = 0, nl = 3 + (size_t)G + (size_t)Gb;
    const double **lv = jl__malloc_array(nl, sizeof *lv);
    size_t *ln = jl__malloc_array(nl, sizeof *ln);
    if (!bad && lv && ln) {
        lv[nlist] = &t0, ln[nlist++] = 1;
        for (int g = 0; g < G; g++)
            lv[nlist] = sa[g].t.v, ln[nlist++] = sa[g].t.n;
        for (int g = 0; g < Gb; g++)
            lv[nlist] = sb[g].t.v, ln[nlist++] = sb[g].t.n;
        if (isfinite(t1)) {
            lv[nlist] = &t1, ln[nlist++] = 1;
            lv[nlist] = grid.v, ln[nlist++] = grid.n;
        }
        bad = merge_sorted(lv, ln, nlist, &T);
    } else {
        bad = 1;
    }
    free(lv);
    free(ln);
    free(grid.v);
    if (bad) {
        free(T.v);
        return (size_t)-1;
    }
    size_t m = 0;
    for (size_t i = 0; i < T.n; i++)
        if ((m == 0 || T.v[i] != T.v[m - 1]) && T.v[i] >= t0 && (!isfinite(t1) || T.v[i] <= t1))
            T.v[m++] = T.v[i];
    size_t W = (size_t)G + (size_t)Gb, cap = 2 * m + 1;
    double *prev = jl__malloc_array(W ? W : 1, sizeof *prev),
           *cur = jl__malloc_array(W ? W : 1, sizeof *cur);
    size_t *ja = calloc(W ? W : 1, sizeof *ja);
    out->t = jl__malloc_array(cap, sizeof(double));
    out->a = jl__malloc_array(cap * (size_t)G + 1, sizeof(double));
    out->b = Gb ? jl__malloc_array(cap * (size_t)Gb + 1, sizeof(double)) : NULL;
    size_t n = 0;
    if (!prev || !cur || !ja || !out->t || !out->a || (Gb && !out->b)) {
        n = (size_t)-1;
        goto end;
    }
    for (size_t k = 0; k < m; k++) {
        double t = T.v[k];
        for (size_t w = 0; w < W; w++) {
            const tv *s = w < (size_t)G ? &sa[w] : &sb[w - (size_t)G];
            if (s->t.n == 0) {
                cur[w] = NAN;
                continue;
            }
            if (s->t.v[0] > t)
                *backfilled = 1;
            cur[w] = s->v.v[value_at(s, &ja[w], t)];
        }
        int changed = 0;
        for (size_t w = 0; k > 0 && w < W; w++)
            changed |= cur[w] != prev[w] && !(isnan(cur[w]) && isnan(prev[w]));
        for (int pass = changed ? 0 : 1; pass < 2; pass++) {
            const double *v = pass == 0 ? prev : cur;
            out->t[n] = t - t0;
            for (int g = 0; g < G; g++)
                out->a[n * (size_t)G + (size_t)g] = v[g];
            for (int g = 0; g < Gb; g++)
                out->b[n * (size_t)Gb + (size_t)g] = v[(size_t)G + (size_t)g];
            n++;
        }
        memcpy(prev, cur, W * sizeof *cur);
    }
end:
    free(T.v);
    free(prev);
    free(cur);
    free(ja);
    if (n == (size_t)-1) {
        free(out->t), free(out->a), free(out->b);
        out->t = out->a = out->b = NULL;
    }
    return n;
}

static int32_t clamp_i32(double x)
{
    return !isfinite(x) ? -1 : x > 2147483647.0 ? 2147483647 : x < 0 ? -1 : (int32_t)x;
}

static int build_series(bench *b, jl_run *r, long G, engine_rows *e)
{
    jl__imp *c = b->c;
    const double t0 = b->t_start;
    if (b->g_inst == 0) {
        snprintf(b->path, sizeof b->path, "timeline.power.device_instant");
        return berr(b, JL_EMISSING, "missing or empty: no power series");
    }
    for (int g = 0; g < b->g_inst; g++)
        if (b->inst[g].t.n == 0) {
            snprintf(b->path, sizeof b->path, "timeline.power.device_instant.%d", g);
            return berr(b, JL_ENODATA, "no power sample for GPU %d", g);
        }
    if (b->g_inst != G) {
        snprintf(b->path, sizeof b->path, "timeline.power.device_instant");
        return berr(b, JL_EINVALID, "power of %d GPUs, num_gpus says %ld", b->g_inst, G);
    }
    int use_avg = b->g_avg == G, back = 0;
    steps st = {0};
    size_t n = step_rows(b->inst, (int)G, b->avg, use_avg ? (int)G : 0, t0, b->t_end, &st, &back);
    if (n == (size_t)-1)
        return berr(b, JL_ENOMEM, "out of memory");
    r->power_n = n;
    r->power_time = st.t;
    r->watts = (jl_series){n, (size_t)G, st.a};
    /* power/@watts_kind: device_instant is NVML's POWER_INSTANT field */
    free(r->power_watts_kind);
    if (!(r->power_watts_kind = jl__strdup("instant")))
        return berr(b, JL_ENOMEM, "out of memory");
    if (use_avg)
        r->watts_avg = (jl_series){n, (size_t)G, st.b};
    if (back)
        jl__imp_note(c, b->file, "timeline.power",
                     "power before a GPU's first sample in the window is held at that first "
                     "value (Zeus records a reading only when it changes)");
    if (b->g_avg && !use_avg)
        jl__imp_note(c, b->file, "timeline.power.device_average",
                     "not every GPU has device_average samples: not imported");
    if (b->has_memory_domain)
        jl__imp_note(c, b->file, "timeline.power.memory_average",
                     "memory power has no place in the trace format: not imported");
    if (b->g_temp == G) {
        steps tt = {0};
        size_t m = step_rows(b->temp, (int)G, NULL, 0, t0, b->t_end, &tt, &back);
        if (m == (size_t)-1)
            return berr(b, JL_ENOMEM, "out of memory");
        r->gpu_n = m;
        r->gpu_time = tt.t;
        r->temp_c = (jl_series){m, (size_t)G, tt.a};
    }
    /* requests/: only when they all start at the benchmark start */
    size_t R = b->in_len.n;
    if (R && b->rate_inf) {
        if (jl__imp_requests(r, R) != JL_OK)
            return berr(b, JL_ENOMEM, "out of memory");
        for (size_t i = 0; i < R; i++) {
            int ok = b->ok.v[i] != 0;
            r->arrival[i] = 0;
            r->first_token[i] = ok && isfinite(b->ttft.v[i]) ? b->ttft.v[i] : NAN;
            r->finish[i] = ok && isfinite(b->lat.v[i]) ? b->lat.v[i] : NAN;
            r->input_tokens[i] = clamp_i32(b->in_len.v[i]);
            r->output_tokens[i] = clamp_i32(b->out_len.v[i]);
        }
        jl__imp_extra_str(c, r, "requests_clock",
                          "request_rate inf: every request was sent at the benchmark start "
                          "(arrival = 0); first_token = arrival + ttft, finish = arrival + latency "
                          "(the client's own timers)");
    } else if (R) {
        jl__imp_note(c, b->file, "results",
                     "request_rate is finite: the harness does not record when each request "
                     "was sent, so requests/ is left out (the window falls back to the engine "
                     "rule); ITL samples are kept");
    }
    if (b->itl_n) { /* handed over, not copied */
        r->itl_n = b->itl_n;
        r->itl_seconds = b->itl;
        b->itl = NULL;
        if (r->req_n) {
            r->itl_request = b->itl_req;
            b->itl_req = NULL;
        }
    }
    if (e && e->t.n) {
        size_t S = e->t.n;
        r->engine_n = S;
        r->engine_time = e->t.v;
        e->t.v = NULL;
        r->running = jl__malloc_array(S, sizeof(int32_t));
        r->waiting = jl__malloc_array(S, sizeof(int32_t));
        r->kv_cache_usage = jl__malloc_array(S, sizeof(float));
        r->tokens_generated = jl__malloc_array(S, sizeof(int64_t));
        r->prefill_tokens = jl__malloc_array(S, sizeof(int64_t));
        if (!r->running || !r->waiting || !r->kv_cache_usage || !r->tokens_generated ||
            !r->prefill_tokens)
            return berr(b, JL_ENOMEM, "out of memory");
        int all_w = 1, all_kv = 1, all_g = 1, all_p = 1;
        for (size_t i = 0; i < S; i++) {
            r->running[i] = clamp_i32(e->running.v[i]);
            r->waiting[i] = clamp_i32(e->waiting.v[i]);
            r->kv_cache_usage[i] = (float)e->kv.v[i];
            /* counters as 64-bit integers: a value no int64 holds (or a
             * negative one) leaves the column out, never undefined */
            int g_ok = e->gen.v[i] >= 0 && e->gen.v[i] < 9.2e18,
                p_ok = e->prompt.v[i] >= 0 && e->prompt.v[i] < 9.2e18;
            r->tokens_generated[i] = g_ok ? (int64_t)e->gen.v[i] : 0;
            r->prefill_tokens[i] = p_ok ? (int64_t)e->prompt.v[i] : 0;
            all_w &= isfinite(e->waiting.v[i]);
            all_kv &= isfinite(e->kv.v[i]);
            all_g &= g_ok && (i == 0 || e->gen.v[i] >= e->gen.v[i - 1]);
            all_p &= p_ok && (i == 0 || e->prompt.v[i] >= e->prompt.v[i - 1]);
        }
        /* a column missing from some snapshot is left out whole */
        if (!all_w)
            free(r->waiting), r->waiting = NULL;
        if (!all_kv)
            free(r->kv_cache_usage), r->kv_cache_usage = NULL;
        if (!all_g)
            free(r->tokens_generated), r->tokens_generated = NULL;
        if (!all_p)
            free(r->prefill_tokens), r->prefill_tokens = NULL;
    }
    if (e && e->skipped)
        jl__imp_note(c, b->file, "timeline[*].metrics",
                     "snapshots without vllm:num_requests_running skipped");
    if (e && !e->t.n)
        jl__imp_note(c, b->file, "timeline",
                     "prometheus.json holds no snapshot with vllm:num_requests_running: the run "
                     "has no engine/ rows (running, waiting, KV cache, tokens)");
    return 0;
}

/* The harness's own figures into summary/ (@source). */
static void build_summary(bench *b, jl_run *r, int diffusion)
{
    jl__imp *c = b->c;
    jl_run_summary_attrs *s = &r->summary;
    s->present = 1;
    jl__imp_summary_str(c, r, "source", SOURCE);
    if (diffusion) {
        s->energy_per_item_j = b->energy_per_image;
        if (b->iter_time.n) {
            double sum = 0;
            for (size_t i = 0; i < b->iter_time.n; i++)
                sum += b->iter_time.v[i];
            s->batch_latency_s = sum / (double)b->iter_time.n;
        }
        if (isfinite(b->tput_images))
            jl__imp_summary_num(c, r, "items_per_s", b->tput_images);
        if (isfinite(b->total_energy))
            jl__imp_summary_num(c, r, "run_energy_j", b->total_energy);
        if (isfinite(b->total_time))
            jl__imp_summary_num(c, r, "run_duration_s", b->total_time);
        return;
    }
    s->steady_state_energy_j = b->ss_energy;
    s->steady_state_duration_s = b->ss_duration;
    s->energy_per_token_j = b->ss_ept;
    s->avg_power_w =
        isfinite(b->ss_energy) && b->ss_duration > 0 ? b->ss_energy / b->ss_duration : NAN;
    if (b->completed > 0 && isfinite(b->total_out))
        s->avg_output_tokens = b->total_out / b->completed;
    s->median_itl_s = b->median_itl_ms / 1000;
    s->p90_itl_s = b->p90_itl_ms / 1000;
    s->p95_itl_s = b->p95_itl_ms / 1000;
    s->p99_itl_s = b->p99_itl_ms / 1000;
    if (isfinite(b->median_ttft_ms))
        jl__imp_summary_num(c, r, "ttft_median_s", b->median_ttft_ms / 1000);
    if (isfinite(b->p90_ttft_ms))
        jl__imp_summary_num(c, r, "ttft_p90_s", b->p90_ttft_ms / 1000);
    if (isfinite(b->mean_tpot_ms))
        jl__imp_summary_num(c, r, "avg_tpot_s", b->mean_tpot_ms / 1000);
    if (isfinite(b->completed))
        jl__imp_summary_num(c, r, "completed_requests", b->completed);
    if (isfinite(b->ss_start) && isfinite(b->t_start)) {
        jl__imp_summary_num(c, r, "steady_start_s", b->ss_start - b->t_start);
        jl__imp_summary_num(c, r, "steady_end_s", b->ss_end - b->t_start);
    }
    double run_e = 0;
    for (int g = 0; g < b->entire_mes.n_gpu; g++)
        run_e += b->entire_mes.gpu[g];
    if (b->entire_mes.present && b->entire_mes.n_gpu)
        jl__imp_summary_num(c, r, "run_energy_j", run_e);
    if (isfinite(b->duration))
        jl__imp_summary_num(c, r, "run_duration_s", b->duration);
    for (int g = 0; g < b->ss_mes.n_gpu; g++) {
        char k[48];
        snprintf(k, sizeof k, "steady_state_gpu%d_energy_j", g);
        jl__imp_summary_num(c, r, k, b->ss_mes.gpu[g]);
    }
}

/* ---- one run directory ----------------------------------------------------- */

/* Path components of the run folder: .../{workload}/{task}/{org}/{model}/{gpu}/{params} */
typedef struct run_path {
    char *parts[64];
    int n;
    char *copy;
} run_path;

/* Read from the folder's absolute, resolved name (jl__imp_real_path), so
 * `.` in the params folder, `../num_gpus+1/` or a symbolic link name the
 * run its absolute path does. */
static void split_path(jl__imp *c, run_path *rp, const char *dir)
{
    rp->n = 0;
    rp->copy = jl__imp_real_path(c, dir);
    for (char *tok = rp->copy ? strtok(rp->copy, "/") : NULL; tok && rp->n < 64;
         tok = strtok(NULL, "/"))
        if (strcmp(tok, "."))
            rp->parts[rp->n++] = tok;
}

static const char *part(const run_path *rp, int from_end)
{
    return rp->n > from_end ? rp->parts[rp->n - 1 - from_end] : NULL;
}

/* "num_gpus+2+max_num_seqs+128": the value after `key`, or NaN. */
static double param(const char *params, const char *key)
{
    if (!params)
        return NAN;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", params);
    char *save = NULL, *k = strtok_r(buf, "+", &save);
    while (k) {
        char *v = strtok_r(NULL, "+", &save);
        if (!v)
            break;
        if (!strcmp(k, key)) {
            char *end;
            double d = strtod(v, &end);
            return *end ? NAN : d;
        }
        k = strtok_r(NULL, "+", &save);
    }
    return NAN;
}

static FILE *open_json(jl__imp *c, const char *path)
{
    char why[128];
    FILE *f = jl__fopen_input(path, why, sizeof why);
    if (!f)
        jl__imp_err(c, JL_EIO, path, NULL, -1, "%s", why);
    else
        jl__input_read(path); /* the provenance's inputs */
    return f;
}

static void bench_init(bench *b, jl__imp *c, const char *file)
{
    memset(b, 0, sizeof *b);
    b->c = c;
    b->file = file;
    b->elem = -1;
    double *nums[] = {
        &b->num_gpus,        &b->max_num_seqs,   &b->request_rate, &b->batch_size,
        &b->inference_steps, &b->height,         &b->width,        &b->num_frames,
        &b->ulysses,         &b->ring,           &b->duration,     &b->completed,
        &b->ss_duration,     &b->ss_energy,      &b->ss_ept,       &b->total_out,
        &b->out_tput,        &b->total_time,     &b->total_energy, &b->energy_per_image,
        &b->tput_images,     &b->median_itl_ms,  &b->p90_itl_ms,   &b->p95_itl_ms,
        &b->p99_itl_ms,      &b->median_ttft_ms, &b->p90_ttft_ms,  &b->mean_tpot_ms,
        &b->t_start,         &b->t_end,          &b->ss_start,     &b->ss_end};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        *nums[i] = NAN;
}

/* The run's attributes from the setup the file holds, else from the
 * folder names (.../<workload>/<task>/<org>/<model>/<gpu>/<params>): GPU,
 * counts, workload, task, model. 0 or -1 (reported). */
static int bench_attrs(bench *b, const run_path *rp, const char *dir, int *diffusion, double *ng,
                       double *cap)
{
    jl__imp *c = b->c;
    jl_run *r = b->r;
    const char *params = part(rp, 0);
    const char *workload = NULL, *task = NULL;
    for (int k = rp->n - 2; k >= 0; k--)
        if (!strcmp(rp->parts[k], "llm") || !strcmp(rp->parts[k], "mllm") ||
            !strcmp(rp->parts[k], "diffusion")) {
            workload = rp->parts[k];
            task = rp->parts[k + 1];
            break;
        }
    if (!workload)
        workload = b->is_llm_results ? "llm" : isfinite(b->inference_steps) ? "diffusion" : "llm";
    *diffusion = !strcmp(workload, "diffusion");
    b->path[0] = '\0';
    const char *gpu = b->gpu_model ? b->gpu_model : part(rp, 1);
    char gid[64];
    double mem = NAN;
    if (gpu && jl__imp_gpu_name(gpu, gid, sizeof gid, &mem)) {
        r->attrs.gpu_model = jl__strdup(gid);
        r->attrs.gpu_memory_bytes = mem;
    } else {
        r->attrs.gpu_model = jl__imp_sanitize(gpu ? gpu : "unknown");
        jl__imp_note(c, b->file, "gpu_model", "GPU '%s' is not in the GPU name table: kept as is",
                     gpu ? gpu : "unknown");
    }
    *ng = isfinite(b->num_gpus)                       ? b->num_gpus
          : isfinite(b->ulysses) && isfinite(b->ring) ? b->ulysses * b->ring
          : isfinite(param(params, "num_gpus"))       ? param(params, "num_gpus")
                                                      : 1;
    if (!(*ng >= 1 && *ng <= MAX_G && *ng == floor(*ng))) {
        snprintf(b->path, sizeof b->path, "num_gpus");
        return berr(b, JL_EINVALID, "num_gpus %g is not a GPU count 1..%d", *ng, MAX_G);
    }
    r->attrs.num_gpus = (long)*ng;
    *cap = *diffusion ? b->batch_size : b->max_num_seqs;
    if (!isfinite(*cap))
        *cap = param(params, *diffusion ? "batch_size" : "max_num_seqs");
    if (!(*cap >= 1 && *cap < 2e9)) {
        snprintf(b->path, sizeof b->path, *diffusion ? "batch_size" : "max_num_seqs");
        return berr(b, JL_EMISSING, "missing or not a count >= 1 (also not in the folder name)");
    }
    r->attrs.max_batch_size = (long)*cap;
    r->attrs.workload = jl__strdup(workload);
    r->attrs.task = jl__strdup(task ? task : "unknown");
    if (!task)
        jl__imp_note(c, dir, "task", "the folder does not say the task: 'unknown'");
    r->attrs.model = b->model_id  ? jl__strdup(b->model_id)
                     : rp->n >= 4 ? jl__asprintf("%s/%s", part(rp, 3), part(rp, 2))
                                  : jl__strdup("unknown");
    r->attrs.precision = jl__strdup("unknown");
    jl__imp_note(c, b->file, "precision",
                 "results.json does not say the weight precision: @precision 'unknown'");
    return 0;
}

/* The knobs of the workload, the request rate, the run's start. */
static int bench_knobs(bench *b, int diffusion, double ng)
{
    jl_run *r = b->r;
    r->attrs.start_time_unix = b->t_start;
    if (diffusion) {
        if (isfinite(b->inference_steps))
            r->attrs.denoising_steps = (long)b->inference_steps;
        if (isfinite(b->height))
            r->attrs.height = (long)b->height;
        if (isfinite(b->width))
            r->attrs.width = (long)b->width;
        if (isfinite(b->num_frames))
            r->attrs.num_frames = (long)b->num_frames;
    } else {
        r->attrs.tensor_parallel = (long)ng;
    }
    if (b->rate_inf)
        jl__imp_extra_str(b->c, r, "request_rate", "inf");
    else if (isfinite(b->request_rate))
        jl__imp_extra_num(b->c, r, "request_rate", b->request_rate);
    if (!isfinite(b->t_start)) {
        snprintf(b->path, sizeof b->path, "timeline.benchmark_start_time");
        return berr(b, JL_EMISSING, "required to place the series on the run's clock");
    }
    return 0;
}

/* prometheus.json (a file or a buffer): the engine's rows. 0 or -1 (the
 * error names prometheus.json). */
static int bench_prometheus(bench *b, const char *prom_name, FILE *pf, const char *ptext,
                            size_t plen, engine_rows *e)
{
    bench pb;
    bench_init(&pb, b->c, prom_name);
    pb.t_start = b->t_start;
    if (!pf)
        jl__jstream_init_mem(&pb.p, ptext, plen, (size_t)64 << 20);
    else
        jl__jstream_init_file(&pb.p, pf, CHUNK, (size_t)64 << 20);
    int bad = read_prometheus(&pb, e);
    bench_free(&pb);
    if (!bad)
        b->c->res->n_files++;
    return bad ? -1 : 0;
}

/* Diffusion: the batches back to back from the benchmark start (the
 * harness records each batch's duration only). */
static int bench_batches(bench *b, double cap)
{
    jl_run *r = b->r;
    size_t B = b->iter_time.n;
    r->batch_n = B;
    r->batch_start = jl__malloc_array(B, sizeof(double));
    r->batch_end = jl__malloc_array(B, sizeof(double));
    r->batch_size = jl__malloc_array(B, sizeof(int32_t));
    if (!r->batch_start || !r->batch_end || !r->batch_size) {
        b->c->oom = 1;
        return -1;
    }
    double t = 0;
    for (size_t i = 0; i < B; i++) {
        r->batch_start[i] = t;
        t += isfinite(b->iter_time.v[i]) ? b->iter_time.v[i] : 0;
        r->batch_end[i] = t;
        r->batch_size[i] = (int32_t)cap;
    }
    jl__imp_extra_str(b->c, r, "batches_clock",
                      "the harness records each batch's duration (Zeus window), not its start: "
                      "batches placed back to back from the benchmark start; the time "
                      "between them (saving outputs) is not known");
    return 0;
}

/* The run's name: the last folders, task/org/model/gpu/params. */
static char *bench_name(const run_path *rp)
{
    jl__strbuf nb;
    jl__strbuf_init(&nb);
    for (int k = rp->n >= 5 ? rp->n - 5 : 0; k < rp->n; k++) {
        char *s = jl__imp_sanitize(rp->parts[k]);
        jl__strbuf_printf(&nb, "%s%s", nb.len ? "__" : "", s ? s : "");
        free(s);
    }
    return jl__strbuf_take(&nb);
}

/* One run from its results.json (a file or a buffer) and prometheus.json
 * (optional): read, attributes, series, summary, name. */
static jl_run *import_documents(jl__imp *c, const char *dir, const char *results_name, FILE *rf,
                                const char *rtext, size_t rlen, const char *prom_name, FILE *pf,
                                const char *ptext, size_t plen)
{
    bench b;
    engine_rows e = {0};
    run_path rp = {0};
    jl_run *out = NULL;
    int diffusion = 0;
    double ng = 1, cap = 1;
    bench_init(&b, c, results_name);
    if (!(b.r = jl_run_new())) {
        c->oom = 1;
        goto end;
    }
    if (!rf)
        jl__jstream_init_mem(&b.p, rtext, rlen, MAX_KEEP_STR);
    else
        jl__jstream_init_file(&b.p, rf, CHUNK, MAX_KEEP_STR);
    if (read_top(&b))
        goto end;
    split_path(c, &rp, dir);
    if (bench_attrs(&b, &rp, dir, &diffusion, &ng, &cap) || bench_knobs(&b, diffusion, ng))
        goto end;
    if ((pf || ptext) && bench_prometheus(&b, prom_name, pf, ptext, plen, &e))
        goto end;
    jl_run *r = b.r;
    if (build_series(&b, r, (long)ng, (pf || ptext) ? &e : NULL))
        goto end;
    if (diffusion && b.iter_time.n && bench_batches(&b, cap))
        goto end;
    build_summary(&b, r, diffusion);
    r->name = bench_name(&rp);
    if (!r->attrs.gpu_model || !r->attrs.workload || !r->attrs.task || !r->attrs.model ||
        !r->attrs.precision || !r->name || c->oom) {
        c->oom = 1;
        goto end;
    }
    out = r;
    b.r = NULL;
    c->res->n_files++;
    c->res->n_with_timelines++;
end:
    free(rp.copy);
    engine_free(&e);
    bench_free(&b);
    return out;
}

static void import_run_dir(jl__imp *c, const char *dir)
{
    char *rpath = jl__asprintf("%s/results.json", dir);
    char *ppath = jl__asprintf("%s/prometheus.json", dir);
    FILE *rf = NULL, *pf = NULL;
    if (!rpath || !ppath) {
        c->oom = 1;
        goto end;
    }
    if (!(rf = open_json(c, rpath)))
        goto end;
    if (jl__imp_is_file(ppath) && !(pf = open_json(c, ppath)))
        goto end;
    jl_run *r = import_documents(c, dir, rpath, rf, NULL, 0, ppath, pf, NULL, 0);
    if (r)
        jl__imp_push_run(c, r);
end:
    if (rf)
        fclose(rf);
    if (pf)
        fclose(pf);
    free(rpath);
    free(ppath);
}

/* Every run folder under dir: one holding results.json; a folder named like
 * a run's parameters ("k+v+...") without it is an error. */
static void walk(jl__imp *c, const char *dir, int depth, size_t *found)
{
    char **dirs, **files;
    size_t nd, nf;
    if (depth > 24 || jl__imp_list_dir(c, dir, &dirs, &nd, &files, &nf))
        return;
    int has = 0;
    for (size_t i = 0; i < nf; i++)
        has |= !strcmp(files[i], "results.json");
    const char *base = strrchr(dir, '/');
    base = base ? base + 1 : dir;
    if (has) {
        (*found)++;
        import_run_dir(c, dir);
    } else if (strchr(base, '+') && nf > 0) {
        (*found)++;
        jl__imp_err(c, JL_EMISSING, dir, "results.json", -1,
                    "a run directory without results.json (the run did not finish?)");
    }
    for (size_t i = 0; i < nd && !c->oom && !has; i++) {
        char *sub = jl__asprintf("%s/%s", dir, dirs[i]);
        if (sub)
            walk(c, sub, depth + 1, found);
        else
            c->oom = 1;
        free(sub);
    }
    jl__imp_free_names(dirs, nd);
    jl__imp_free_names(files, nf);
}

jl_status jl_import_mlenergy_benchmark(const char *const *paths, size_t n_paths,
                                       const jl_import_options *opt, jl_import_result **out,
                                       jl_error_list *errors)
{
    return jl__imp_paths(paths, n_paths, opt, out, errors, walk, "results.json",
                         "no ML.ENERGY Benchmark run here (no results.json in it or below)",
                         SOURCE);
}

jl_status jl_import_mlenergy_benchmark_buffer(const char *results, size_t results_len,
                                              const char *prometheus, size_t prometheus_len,
                                              const char *dir, const jl_import_options *opt,
                                              jl_import_result **out, jl_error_list *errors)
{
    jl__imp c;
    *out = NULL;
    if (jl__imp_start(&c, opt, errors))
        return JL_ENOMEM;
    jl_run *r = import_documents(&c, dir, "results.json", NULL, results, results_len,
                                 "prometheus.json", NULL, prometheus, prometheus_len);
    if (r)
        jl__imp_push_run(&c, r);
    c.res->source = jl__strdup(SOURCE);
    if (!c.res->source)
        c.oom = 1;
    return jl__imp_finish(&c, out, dir);
}

/* ---- the importer table's row ------------------------------------------------ */

static jl_status bench_run(const char *const *paths, size_t n_paths, const jl_importer_arg *args,
                           size_t n_args, jl_import_result **out, jl_error_list *errors)
{
    (void)args;
    (void)n_args;
    return jl__imp_run_plain(jl_import_mlenergy_benchmark, paths, n_paths, out, errors, NULL);
}

const jl_importer jl__importer_mlenergy_benchmark = {
    .name = "mlenergy-benchmark",
    .summary = "ML.ENERGY Benchmark run folders (results.json, prometheus.json) with their series",
    .paths = "DIR...",
    .description =
        "Import ML.ENERGY Benchmark run folders (.../{llm,mllm,diffusion}/{task}/{org}/\n"
        "{model}/{gpu}/{params}/ holding results.json and, for LLM/MLLM,\n"
        "prometheus.json) or whole results trees: power (Zeus, sample-and-hold),\n"
        "temperature, requests (when request_rate is inf), ITL, engine rows from\n"
        "the Prometheus snapshots, diffusion batches, and the harness's own figures\n"
        "in summary/ (import.md, \"ML.ENERGY Benchmark\"). Read as a stream:\n"
        "prompt and output texts are skipped. Written with Zstandard level 1.\n",
    .options = jl__imp_no_options,
    .min_paths = 1,
    .max_paths = 0,
    .run = bench_run,
    .write_zstd = 1,
};
