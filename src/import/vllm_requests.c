/* vLLM `bench serve --save-result --save-detailed` result files as a run's
 * requests/ and itl/ (kit.h, jl__imp_vllm_requests; the mapping is
 * docs/import.md, "nvidia-smi", requests). Read by the streaming reader
 * (src/json/json_stream.c): generated_texts and every other value joules does not
 * keep are skipped without being copied, so memory is the per-request
 * arrays, not the file (up to max_request_bytes, 1 GiB by default). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/inputs.h"
#include "core/stats.h"
#include "core/util.h"
#include "import/kit.h"

/* One element of an array as read: what the checks below need of it. */
typedef enum { E_INT, E_REAL, E_NULL, E_STR_EMPTY, E_STR, E_ARRAY, E_OTHER } ekind;

typedef struct elem {
    unsigned char kind;
    long long i;    /* E_INT */
    double num;     /* E_INT, E_REAL */
    size_t at, len; /* E_ARRAY (itls): its numbers in the flat list */
} elem;

typedef struct earr {
    elem *v;
    size_t n, cap;
    int present, is_array;
} earr;

enum { A_INPUT, A_OUTPUT, A_TTFT, A_ITL, A_START, A_ERRORS, N_ARRAYS };
static const char *const array_keys[N_ARRAYS] = {"input_lens", "output_lens", "ttfts",
                                                 "itls",       "start_times", "errors"};

typedef struct vdoc {
    earr a[N_ARRAYS];
    elem *itl; /* the numbers of every itls[i], end to end */
    size_t n_itl, cap_itl;
    char *model_id;
    int has_max_conc;
    long long max_conc;
    int rate_inf;    /* request_rate "inf" (or a non-finite number) */
    double duration; /* the client's benchmark duration, s; NaN when absent */
    char date[32];   /* "date": the client's local time when it saved the file; "" */
} vdoc;

static void vdoc_free(vdoc *d)
{
    for (int k = 0; k < N_ARRAYS; k++)
        free(d->a[k].v);
    free(d->itl);
    free(d->model_id);
}

static int push_elem(elem **v, size_t *n, size_t *cap, const elem *e)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 256;
        elem *g = realloc(*v, nc * sizeof *g);
        if (!g)
            return -1;
        *v = g;
        *cap = nc;
    }
    (*v)[(*n)++] = *e;
    return 0;
}

/* A value whose first token is t, as an element (containers skipped).
 * -1 on a syntax error or an integer beyond 64 bits (p->err set). */
static int read_elem(js *p, jl__jstream_tok t, elem *e)
{
    memset(e, 0, sizeof *e);
    switch (t) {
    case JS_NUM:
        if (p->num_kind == 2) {
            snprintf(p->err, sizeof p->err, "too big integer");
            return -1;
        }
        e->kind = p->num_kind == 1 ? E_INT : E_REAL;
        e->i = p->num_int;
        e->num = p->num;
        return 0;
    case JS_STR: e->kind = p->str[0] ? E_STR : E_STR_EMPTY; return 0;
    case JS_NULL: e->kind = E_NULL; return 0;
    case JS_TRUE:
    case JS_FALSE: e->kind = E_OTHER; return 0;
    case JS_OBJ_START:
    case JS_ARR_START: e->kind = E_OTHER; return jl__jstream_skip_open(p);
    default: return -1;
    }
}

/* itls[i]: an array of numbers into the flat list. */
static int read_itl_list(js *p, vdoc *d, elem *e)
{
    e->kind = E_ARRAY;
    e->at = d->n_itl;
    jl__jstream_tok t;
    while ((t = jl__jstream_next(p)) != JS_ARR_END) {
        elem x;
        if (t == JS_ERROR || read_elem(p, t, &x) || push_elem(&d->itl, &d->n_itl, &d->cap_itl, &x))
            return -1;
    }
    e->len = d->n_itl - e->at;
    return 0;
}

/* The value of one of the arrays joules reads (anything else is kept as
 * "not an array" for the checks). */
static int read_array(js *p, vdoc *d, earr *a, int itls)
{
    a->present = 1;
    jl__jstream_tok t = jl__jstream_next(p);
    if (t != JS_ARR_START) {
        elem skip;
        return t == JS_ERROR ? -1 : read_elem(p, t, &skip);
    }
    a->is_array = 1;
    while ((t = jl__jstream_next(p)) != JS_ARR_END) {
        elem e;
        if (t == JS_ERROR)
            return -1;
        int rc = itls && t == JS_ARR_START ? read_itl_list(p, d, &e) : read_elem(p, t, &e);
        if (rc || push_elem(&a->v, &a->n, &a->cap, &e))
            return -1;
    }
    return 0;
}

/* A top-level member: the arrays, model_id, max_concurrency,
 * request_rate, duration; the rest (generated_texts, the client's own
 * figures) skipped. */
static int read_member(js *p, vdoc *d, const char *key)
{
    for (int k = 0; k < N_ARRAYS; k++)
        if (!strcmp(key, array_keys[k]))
            return read_array(p, d, &d->a[k], k == A_ITL);
    if (!strcmp(key, "request_rate") || !strcmp(key, "duration")) {
        jl__jstream_tok t = jl__jstream_next(p);
        if (t == JS_ERROR)
            return -1;
        int rate = key[0] == 'r';
        if (t == JS_STR && rate)
            d->rate_inf = !strcmp(p->str, "inf") || !strcmp(p->str, "Infinity");
        else if (t == JS_NUM && rate)
            d->rate_inf = !isfinite(p->num);
        else if (t == JS_NUM && p->num >= 0 && isfinite(p->num))
            d->duration = p->num;
        return t == JS_OBJ_START || t == JS_ARR_START ? jl__jstream_skip_open(p) : 0;
    }
    if (!strcmp(key, "date")) { /* "20250420-185924": when the client saved the file */
        jl__jstream_tok t = jl__jstream_next(p);
        if (t == JS_STR && strlen(p->str) < sizeof d->date)
            snprintf(d->date, sizeof d->date, "%s", p->str);
        return t == JS_ERROR                            ? -1
               : t == JS_OBJ_START || t == JS_ARR_START ? jl__jstream_skip_open(p)
                                                        : 0;
    }
    if (strcmp(key, "model_id") && strcmp(key, "max_concurrency"))
        return jl__jstream_skip(p);
    jl__jstream_tok t = jl__jstream_next(p);
    if (t == JS_STR && key[0] == 'm' && key[1] == 'o')
        return (d->model_id = jl__strdup(p->str)) ? 0 : -1;
    elem e;
    if (t == JS_ERROR || read_elem(p, t, &e))
        return -1;
    if (e.kind == E_INT && key[1] == 'a') {
        d->has_max_conc = 1;
        d->max_conc = e.i;
    }
    return 0;
}

/* The whole document: 0, 1 when it is not a JSON object, -1 on a syntax
 * error or a key given twice (why set) or out of memory (why empty). */
static int read_doc(js *p, vdoc *d, char *why, size_t cap)
{
    char **seen = NULL;
    size_t n_seen = 0;
    int rc = -1;
    jl__jstream_tok t = jl__jstream_next(p);
    if (t != JS_OBJ_START) {
        rc = t == JS_ERROR ? -1 : 1;
        goto end;
    }
    while ((t = jl__jstream_next(p)) == JS_KEY) {
        for (size_t i = 0; i < n_seen; i++)
            if (!strcmp(seen[i], p->str)) {
                snprintf(why, cap, "duplicate object key near '\"%s\"'", p->str);
                goto end;
            }
        char **g = realloc(seen, (n_seen + 1) * sizeof *g);
        if (!g)
            goto end;
        seen = g;
        if (!(seen[n_seen] = jl__strdup(p->str)))
            goto end;
        if (read_member(p, d, seen[n_seen++]))
            goto end;
    }
    if (t == JS_OBJ_END && jl__jstream_next(p) == JS_EOF)
        rc = 0;
end:
    if (rc < 0 && !why[0] && p->err[0])
        snprintf(why, cap, "%s", p->err);
    for (size_t i = 0; i < n_seen; i++)
        free(seen[i]);
    free(seen);
    return rc;
}

static jl_status field_err(jl_error_list *errors, const char *file, const char *field,
                           const char *msg)
{
    return jl__imp_err_at(errors, JL_EINVALID, file, 0, 0, field, "%s", msg);
}

static int is_num(const elem *e)
{
    return e->kind == E_INT || e->kind == E_REAL;
}

/* The shape of the arrays: each there, as long as input_lens; errors and
 * start_times, if there, too (start_times came to vLLM's result files in
 * 2025: every older file lacks it). *R the request count. */
static jl_status check_shape(const vdoc *d, const char *path, jl_error_list *errors, size_t *R)
{
    for (int k = 0; k < A_ERRORS; k++) {
        const earr *a = &d->a[k];
        if (k == A_START && !a->present)
            continue;
        if (!a->is_array)
            return jl__imp_err_at(errors, JL_EMISSING, path, 0, 0, array_keys[k],
                                  "%s (save the result with --save-result --save-detailed)",
                                  a->present ? "expected an array" : "missing");
        if (k == 0)
            *R = a->n;
        else if (a->n != *R)
            return jl__imp_err_at(errors, JL_EINVALID, path, 0, 0, array_keys[k],
                                  "%zu entries, input_lens has %zu", a->n, *R);
    }
    const earr *e = &d->a[A_ERRORS];
    if (e->present && (!e->is_array || e->n != *R))
        return jl__imp_err_at(errors, JL_EINVALID, path, 0, 0, "errors",
                              "expected an array of %zu entries", *R);
    if (*R == 0)
        return jl__imp_err_at(errors, JL_ENODATA, path, 0, 0, "input_lens", "no requests");
    if (*R > INT32_MAX)
        return jl__imp_err_at(errors, JL_ELIMIT, path, 0, 0, "input_lens", "too many requests");
    return JL_OK;
}

/* start_times (their earliest into *t_first) and the ITL count *K. */
static jl_status check_times(const vdoc *d, const char *path, jl_error_list *errors, size_t R,
                             double *t_first, size_t *K)
{
    *t_first = INFINITY;
    *K = 0;
    char fld[64];
    int have_start = d->a[A_START].present;
    if (!have_start)
        *t_first = 0;
    for (size_t i = 0; i < R; i++) {
        const elem *v = have_start ? &d->a[A_START].v[i] : NULL;
        snprintf(fld, sizeof fld, "start_times[%zu]", i);
        if (v && (!is_num(v) || !isfinite(v->num)))
            return field_err(errors, path, fld, "expected a number (seconds)");
        if (v && v->num < *t_first)
            *t_first = v->num;
        const elem *it = &d->a[A_ITL].v[i];
        snprintf(fld, sizeof fld, "itls[%zu]", i);
        if (it->kind != E_ARRAY)
            return field_err(errors, path, fld, "expected an array of seconds");
        *K += it->len;
    }
    if (*K > INT32_MAX)
        return jl__imp_err_at(errors, JL_ELIMIT, path, 0, 0, "itls", "too many ITL samples");
    return JL_OK;
}

/* Request i into r: arrival, tokens, first token and finish from its ttft
 * and ITLs (appended at *k), times placed so that the first request
 * starts `offset` seconds after the run's t = 0. A failed request (errors[i] set) has NaN
 * times; *failed counts them. */
static jl_status one_request(const vdoc *d, const char *path, jl_error_list *errors, size_t i,
                             double t_first, double offset, jl_run *r, size_t *k, size_t *failed)
{
    char fld[64];
    const elem *in = &d->a[A_INPUT].v[i], *outl = &d->a[A_OUTPUT].v[i], *tt = &d->a[A_TTFT].v[i],
               *it = &d->a[A_ITL].v[i];
    const elem *e = d->a[A_ERRORS].present ? &d->a[A_ERRORS].v[i] : NULL;
    int ok = !e || e->kind == E_NULL || e->kind == E_STR_EMPTY;
    for (int q = 0; q < 2; q++) {
        const elem *x = q ? outl : in;
        snprintf(fld, sizeof fld, "%s[%zu]", q ? "output_lens" : "input_lens", i);
        if (x->kind != E_INT || x->i < 0 || x->i > INT32_MAX)
            return field_err(errors, path, fld, "expected a token count (whole number >= 0)");
    }
    snprintf(fld, sizeof fld, "ttfts[%zu]", i);
    if ((!is_num(tt) || !(tt->num >= 0)) && !(tt->kind == E_NULL && !ok))
        return field_err(errors, path, fld, "expected seconds >= 0");
    double a = (d->a[A_START].present ? d->a[A_START].v[i].num - t_first : 0) + offset;
    r->arrival[i] = a;
    r->input_tokens[i] = (int32_t)in->i;
    r->output_tokens[i] = (int32_t)outl->i;
    if (!ok) {
        (*failed)++;
        r->first_token[i] = r->finish[i] = NAN;
        return JL_OK;
    }
    double fin = a + (is_num(tt) ? tt->num : 0);
    r->first_token[i] = fin;
    for (size_t j = 0; j < it->len; j++) {
        const elem *x = &d->itl[it->at + j];
        if (!is_num(x) || !(x->num >= 0) || !isfinite(x->num)) {
            snprintf(fld, sizeof fld, "itls[%zu][%zu]", i, j);
            return field_err(errors, path, fld, "expected seconds >= 0");
        }
        fin += x->num;
        r->itl_seconds[*k] = (float)x->num;
        r->itl_request[*k] = (int32_t)i;
        (*k)++;
    }
    r->finish[i] = fin;
    return JL_OK;
}

/* Without arrival times (a file without start_times at a finite request
 * rate) requests/ cannot be placed on the run's clock: what the requests
 * say without a clock goes to summary/ instead (the client's figures,
 * @source naming the file), the ITL samples stay in itl/ without their
 * request column, and requests/ is left out. r's request columns were
 * filled with arrival 0 (times relative to each request's own start). */
static jl_status client_figures(jl__imp *kit, const vdoc *d, const char *path, jl_run *r)
{
    size_t R = r->req_n, done = 0, n_tpot = 0;
    double out_sum = 0, tpot_sum = 0;
    double *ttft = jl__malloc_array(R, sizeof *ttft);
    if (!ttft)
        return JL_ENOMEM;
    for (size_t i = 0; i < R; i++) {
        if (!isfinite(r->finish[i]))
            continue;
        ttft[done++] = r->first_token[i] - r->arrival[i];
        out_sum += r->output_tokens[i];
        if (r->output_tokens[i] > 1) {
            tpot_sum += (r->finish[i] - r->first_token[i]) / (r->output_tokens[i] - 1);
            n_tpot++;
        }
    }
    jl_run_summary_attrs *su = &r->summary;
    su->present = 1;
    char *src = jl__asprintf("vLLM bench serve result %s (client figures: no arrival times)", path);
    jl__imp_summary_str(kit, r, "source", src ? src : "vLLM bench serve result");
    free(src);
    jl__imp_summary_num(kit, r, "completed_requests", (double)done);
    jl__imp_summary_num(kit, r, "failed_requests", (double)(R - done));
    if (done) {
        qsort(ttft, done, sizeof *ttft, jl__cmp_double);
        jl__imp_summary_num(kit, r, "ttft_median_s", jl__quantile_sorted(ttft, done, 0.5));
        jl__imp_summary_num(kit, r, "ttft_p90_s", jl__quantile_sorted(ttft, done, 0.9));
        su->avg_output_tokens = out_sum / (double)done;
        if (isfinite(d->duration) && d->duration > 0)
            su->output_throughput_tok_s = out_sum / d->duration;
    }
    if (n_tpot)
        jl__imp_summary_num(kit, r, "avg_tpot_s", tpot_sum / (double)n_tpot);
    free(ttft);
    /* requests/ out; itl/ without its request column */
    free(r->arrival);
    free(r->first_token);
    free(r->finish);
    free(r->input_tokens);
    free(r->output_tokens);
    r->arrival = r->first_token = r->finish = NULL;
    r->input_tokens = r->output_tokens = NULL;
    r->req_n = 0;
    free(r->itl_request);
    r->itl_request = NULL;
    return kit->oom ? JL_ENOMEM : JL_OK;
}

/* The requests into r, then the notes and attributes of where they came
 * from. */
static jl_status fill_run(jl__imp *kit, const vdoc *d, const char *path, jl_run *r, double offset,
                          int offset_given, jl_error_list *errors)
{
    size_t R = 0, K = 0, k = 0, failed = 0;
    double t_first;
    jl_status st = check_shape(d, path, errors, &R);
    if (st == JL_OK)
        st = check_times(d, path, errors, R, &t_first, &K);
    if (st != JL_OK)
        return st;
    st = jl__imp_requests(r, R);
    r->itl_seconds = jl__malloc_array(K ? K : 1, sizeof(float));
    r->itl_request = jl__malloc_array(K ? K : 1, sizeof(int32_t));
    if (st != JL_OK || !r->itl_seconds || !r->itl_request)
        return JL_ENOMEM;
    for (size_t i = 0; i < R; i++)
        if ((st = one_request(d, path, errors, i, t_first, offset, r, &k, &failed)) != JL_OK)
            return st;
    r->itl_n = k;
    if (k == 0) {
        free(r->itl_seconds);
        free(r->itl_request);
        r->itl_seconds = NULL;
        r->itl_request = NULL;
    }
    if (failed)
        jl__imp_note(kit, path, "errors",
                     "%zu of %zu requests failed: their first_token and finish are NaN", failed, R);
    /* Without start_times (files written before vLLM saved them): with an
     * infinite rate and no concurrency limit below the request count every
     * request was sent at the benchmark's start (arrival placed there);
     * otherwise the arrivals are unknown. */
    int have_start = d->a[A_START].present;
    int at_once = !have_start && d->rate_inf && (!d->has_max_conc || d->max_conc >= (long long)R);
    char *clock;
    if (have_start)
        clock = offset_given
                    ? jl__asprintf("client monotonic clock (vLLM start_times); first request "
                                   "start placed at run start + %.6g s (requests_offset)",
                                   offset)
                    : jl__asprintf("client monotonic clock (vLLM start_times); first request "
                                   "start placed at the run's start (the start column)");
    else if (at_once)
        clock = jl__asprintf("no start_times in the file; request_rate inf without a concurrency "
                             "limit: every request sent at once, placed at run start + %.6g s",
                             offset_given ? offset : 0.0);
    else
        clock = jl__strdup("unknown: the file has no start_times (written before vLLM saved "
                           "them) and its requests were not sent at once; requests/ left out, "
                           "so no steady-state window from requests (the window is the run's) "
                           "and no request times; TTFT, TPOT, token and request counts in "
                           "summary/ as the client measured them, ITL samples in itl/");
    if (!clock)
        return JL_ENOMEM;
    if (!have_start) {
        if (at_once)
            jl__imp_note(kit, path, "start_times",
                         "no start_times: request_rate inf, so every request is placed at the "
                         "run's start%s",
                         offset_given ? " + requests_offset" : "");
        else if ((st = client_figures(kit, d, path, r)) != JL_OK)
            return st;
        else
            jl__imp_note(kit, path, "start_times",
                         "no start_times (files written before vLLM saved them): arrival times "
                         "unknown, so requests/ is left out (no steady state from requests: the "
                         "window is the run's); TTFT, TPOT, token and request counts go to "
                         "summary/ as the client's figures, energy per token is the run's energy "
                         "over the file's output tokens per second");
    }
    jl__imp_extra_default(kit, r, "requests_clock", clock, 0);
    free(clock);
    jl__imp_extra_default(kit, r, "requests_source", path, 0);
    if (!r->attrs.model && d->model_id && *d->model_id) {
        if (!(r->attrs.model = jl__strdup(d->model_id)))
            return JL_ENOMEM;
        jl__imp_note(kit, path, "model_id", "the run's model taken from the request log");
    }
    if (d->date[0])
        jl__imp_extra_default(kit, r, "requests_date", d->date, 0);
    if (d->has_max_conc) {
        char b[32];
        snprintf(b, sizeof b, "%lld", d->max_conc);
        jl__imp_extra_default(kit, r, "client_max_concurrency", b, 1);
    }
    return kit->oom ? JL_ENOMEM : JL_OK;
}

jl_status jl__imp_vllm_requests(jl__imp *kit, const char *path, jl_run *r, double offset,
                                int offset_given, size_t max_bytes, jl_error_list *errors)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return jl__imp_err_at(errors, JL_EIO, path, 0, 0, NULL, "%s", strerror(errno));
    if ((size_t)sb.st_size > max_bytes)
        return jl__imp_err_at(errors, JL_ELIMIT, path, 0, 0, NULL,
                              "%lld bytes, more than the limit of %zu", (long long)sb.st_size,
                              max_bytes);
    char opened[128];
    FILE *f = jl__fopen_input(path, opened, sizeof opened);
    if (!f)
        return jl__imp_err_at(errors, JL_EIO, path, 0, 0, NULL, "%s", opened);
    jl__input_read(path); /* the provenance's inputs: every request file */
    js p;
    vdoc d = {0};
    char why[256] = "";
    jl__jstream_init_file(&p, f, (size_t)1 << 20, (size_t)1 << 20);
    int rc = read_doc(&p, &d, why, sizeof why);
    jl_status st = JL_OK;
    if (rc < 0 && why[0])
        st = jl__imp_err_at(errors, JL_EINVALID, path, jl__jstream_line(&p), jl__jstream_col(&p),
                            NULL, "not valid JSON: %s", why);
    else if (rc < 0)
        st = JL_ENOMEM;
    else if (rc > 0)
        st = field_err(errors, path, NULL, "expected a JSON object (vLLM's result file)");
    else
        st = fill_run(kit, &d, path, r, offset, offset_given, errors);
    if (st == JL_ENOMEM && !errors->count)
        jl__imp_err_at(errors, JL_ENOMEM, path, 0, 0, NULL, "out of memory");
    jl__jstream_free(&p);
    fclose(f);
    vdoc_free(&d);
    return st;
}
