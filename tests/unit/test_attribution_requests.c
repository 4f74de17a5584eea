/* Energy per request (src/attribution/requests.c, docs/attribute.md "Per
 * request"): a simulated continuous-batching server whose every step costs a
 * known c + a x prompt tokens + b x output tokens above a known static power,
 * seen through an NVML-like counter (updated every 100 ms, 2 ms late): the
 * rows add up to the window, each request's energy is recovered within 1 %
 * of its known cost, the fit recovers a, b and c, and its prediction holds
 * on a run of another batch cap; without itl/request the split is
 * approximated and says so; and on the bundled H100 sweep (traces/h100)
 * the rows add up and the fit predicts the other runs. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/attribution.h"
#include "joules/trace.h"
#include "test.h"

#define PS 100.0     /* static W */
#define COST_A 0.004 /* J per prompt token */
#define COST_B 0.030 /* J per output token */
#define COST_C 0.600 /* J per engine step */
#ifndef POLL_S
#define POLL_S 0.004 /* the sampler polls NVML every 4 ms */
#endif

typedef struct {
    size_t R;
    double *arr, *s, *ft, *fin;
    int32_t *in, *out;
    double *dyn;            /* each request's known dynamic energy */
    double *stepj;          /* its part of the steps' fixed cost (COST_C / n a step) */
    double *nst, *ush;      /* the steps it ran in, and the sum of 1 / their requests */
    size_t ns;              /* steps */
    double *st0, *st1, *sw; /* step [t0, t1) at dynamic power sw */
    double *cum;            /* dynamic energy before step i */
    size_t itl_n;
    float *itl;
    int32_t *itl_req;
    size_t en;
    double *et;
    int32_t *running;
    int64_t *tok, *pre;
} sim;

static unsigned long lcg = 12345;
static double rnd(void)
{
    lcg = lcg * 6364136223846793005UL + 1442695040888963407UL;
    return (double)(lcg >> 11) / 9007199254740992.0;
}

#define PUSH(arr, n, v)                                    \
    do {                                                   \
        (arr) = realloc((arr), ((n) + 1) * sizeof *(arr)); \
        (arr)[(n)] = (v);                                  \
    } while (0)

/* R requests arriving over 6 s, a batch cap of B; each step: the newly
 * admitted requests' prompts (their first token at its end) and one token of
 * every running request; its time 2 ms + 10 us per prompt token + 0.1 ms per
 * request; its dynamic energy c + a x prompt + b x output tokens, spread
 * evenly over it and split among its requests: c equally, a and b by tokens */
static void simulate(sim *S, size_t R, int B)
{
    memset(S, 0, sizeof *S);
    S->R = R;
    S->arr = calloc(R, sizeof(double));
    S->s = calloc(R, sizeof(double));
    S->ft = calloc(R, sizeof(double));
    S->fin = calloc(R, sizeof(double));
    S->in = calloc(R, sizeof(int32_t));
    S->out = calloc(R, sizeof(int32_t));
    S->dyn = calloc(R, sizeof(double));
    S->stepj = calloc(R, sizeof(double));
    S->nst = calloc(R, sizeof(double));
    S->ush = calloc(R, sizeof(double));
    for (size_t i = 0; i < R; i++) {
        S->arr[i] = 0.5 + 6.0 * (double)i / (double)R + 0.05 * rnd();
        S->in[i] = 64 + (int32_t)(1900 * rnd());
        S->out[i] = 16 + (int32_t)(280 * rnd());
    }
    int *left = calloc(R, sizeof(int)), *state = calloc(R, sizeof(int)); /* 0 wait 1 run 2 done */
    double *last = calloc(R, sizeof(double));
    double t = 0;
    int64_t tok = 0, pre = 0;
    /* the engine's row at t = 0 */
    S->et = calloc(1, sizeof(double));
    S->running = calloc(1, sizeof(int32_t));
    S->tok = calloc(1, sizeof(int64_t));
    S->pre = calloc(1, sizeof(int64_t));
    S->en = 1;
    size_t done = 0;
    while (done < R) {
        int nrun = 0;
        for (size_t i = 0; i < R; i++)
            nrun += state[i] == 1;
        size_t adm[256];
        int na = 0;
        for (size_t i = 0; i < R && nrun + na < B; i++)
            if (state[i] == 0 && S->arr[i] <= t)
                adm[na++] = i;
        if (!nrun && !na) { /* idle until the next arrival */
            double nx = INFINITY;
            for (size_t i = 0; i < R; i++)
                if (state[i] == 0 && S->arr[i] < nx)
                    nx = S->arr[i];
            t = nx;
            continue;
        }
        double ptok = 0;
        for (int j = 0; j < na; j++)
            ptok += S->in[adm[j]];
        int n = nrun + na;
        double dt = 0.002 + 1e-5 * ptok + 1e-4 * n;
        double e = COST_C + COST_A * ptok + COST_B * nrun;
        PUSH(S->st0, S->ns, t);
        PUSH(S->st1, S->ns, t + dt);
        PUSH(S->sw, S->ns, e / dt);
        S->ns++;
        double t1 = t + dt;
        for (size_t i = 0; i < R; i++)
            if (state[i] == 1) { /* a token */
                S->dyn[i] += COST_C / n + COST_B;
                S->stepj[i] += COST_C / n;
                S->nst[i] += 1;
                S->ush[i] += 1.0 / n;
                PUSH(S->itl, S->itl_n, (float)(t1 - last[i]));
                PUSH(S->itl_req, S->itl_n, (int32_t)i);
                S->itl_n++;
                last[i] = t1;
                tok++;
                if (--left[i] == 0) {
                    state[i] = 2;
                    S->fin[i] = t1;
                    done++;
                }
            }
        for (int j = 0; j < na; j++) {
            size_t i = adm[j];
            S->dyn[i] += COST_C / n + COST_A * S->in[i];
            S->stepj[i] += COST_C / n;
            S->nst[i] += 1;
            S->ush[i] += 1.0 / n;
            S->s[i] = t;
            S->ft[i] = t1;
            last[i] = t1;
            left[i] = S->out[i] - 1;
            state[i] = left[i] > 0 ? 1 : 2;
            if (state[i] == 2) {
                S->fin[i] = t1;
                done++;
            }
            tok++;
            pre += S->in[i];
        }
        t = t1;
        S->et = realloc(S->et, (S->en + 1) * sizeof *S->et);
        S->et[S->en] = t;
        S->running = realloc(S->running, (S->en + 1) * sizeof *S->running);
        S->tok = realloc(S->tok, (S->en + 1) * sizeof *S->tok);
        S->pre = realloc(S->pre, (S->en + 1) * sizeof *S->pre);
        S->running[S->en] = n;
        S->tok[S->en] = tok;
        S->pre[S->en] = pre;
        S->en++;
    }
    S->cum = malloc((S->ns + 1) * sizeof *S->cum);
    S->cum[0] = 0;
    for (size_t i = 0; i < S->ns; i++)
        S->cum[i + 1] = S->cum[i] + S->sw[i] * (S->st1[i] - S->st0[i]);
    free(left), free(state), free(last);
}

/* the true energy from 0 to x */
static double sim_energy(const sim *S, double x)
{
    size_t lo = 0, hi = S->ns;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (S->st0[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    double e = PS * x + (lo ? S->cum[lo - 1] : 0);
    if (lo) {
        size_t i = lo - 1;
        e += S->sw[i] * (fmin(x, S->st1[i]) - S->st0[i]);
    }
    return e;
}

static void sim_free(sim *S)
{
    free(S->arr), free(S->s), free(S->ft), free(S->fin), free(S->in), free(S->out), free(S->dyn);
    free(S->st0), free(S->st1), free(S->sw), free(S->cum), free(S->itl), free(S->itl_req);
    free(S->et), free(S->running), free(S->tok), free(S->pre);
    free(S->stepj), free(S->nst), free(S->ush);
}

static void *copy_of(const void *p, size_t n)
{
    void *q = malloc(n ? n : 1);
    memcpy(q, p, n);
    return q;
}

/* the run NVML would record: polls every 4 ms, the counter updated every
 * 100 ms with the energy up to 2 ms before; 2 s of idle before t = 0 */
static jl_run *sim_run(const sim *S, const char *name, int with_itl_request)
{
    jl_run *r = jl_run_new();
    r->name = jl__strdup(name);
    r->file = jl__strdup("synthetic.h5");
    r->attrs.num_gpus = 1;
    double t_end = S->fin[0];
    for (size_t i = 0; i < S->R; i++)
        t_end = fmax(t_end, S->fin[i]);
    t_end += 0.5;
    size_t n = (size_t)((t_end + 2.0) / POLL_S);
    r->power_n = n;
    r->power_time = malloc(n * sizeof(double));
    r->energy_j = (jl_series){n, 1, malloc(n * sizeof(double))};
    for (size_t j = 0; j < n; j++) {
        double t = -2.0 + 0.5 * POLL_S + POLL_S * (double)j;
        r->power_time[j] = t;
        double u = floor((t - 0.037) / 0.1) * 0.1 + 0.037; /* the last update */
        double x = u - 0.002;
        r->energy_j.v[j] = 7000 + (x > 0 ? sim_energy(S, x) : PS * x);
    }
    size_t R = S->R;
    r->req_n = R;
    r->arrival = copy_of(S->arr, R * sizeof(double));
    r->first_token = copy_of(S->ft, R * sizeof(double));
    r->finish = copy_of(S->fin, R * sizeof(double));
    r->input_tokens = copy_of(S->in, R * sizeof(int32_t));
    r->output_tokens = copy_of(S->out, R * sizeof(int32_t));
    r->itl_n = S->itl_n;
    r->itl_seconds = copy_of(S->itl, S->itl_n * sizeof(float));
    r->itl_request = with_itl_request ? copy_of(S->itl_req, S->itl_n * sizeof(int32_t)) : NULL;
    r->engine_n = S->en;
    r->engine_time = copy_of(S->et, S->en * sizeof(double));
    r->running = copy_of(S->running, S->en * sizeof(int32_t));
    r->tokens_generated = copy_of(S->tok, S->en * sizeof(int64_t));
    r->prefill_tokens = copy_of(S->pre, S->en * sizeof(int64_t));
    return r;
}

/* each request's known static share: PS / (requests resident) at every
 * instant of its residency (start of its prefill step to its last token),
 * on a 0.1-ms grid */
static double *known_static(const sim *S)
{
    double *st = calloc(S->R, sizeof(double));
    double t1 = 0;
    for (size_t i = 0; i < S->R; i++)
        t1 = fmax(t1, S->fin[i]);
    for (double t = 0.5e-4; t < t1; t += 1e-4) {
        int n = 0;
        for (size_t i = 0; i < S->R; i++)
            n += S->s[i] <= t && t < S->fin[i];
        for (size_t i = 0; n && i < S->R; i++)
            if (S->s[i] <= t && t < S->fin[i])
                st[i] += PS * 1e-4 / n;
    }
    return st;
}

TEST(per_request_known_answer)
{
    sim S;
    lcg = 777;
    simulate(&S, 48, 8);
    jl_run *run = sim_run(&S, "b0008", 1);
    jl_request_attribution *a = NULL;
    jl_error *err = NULL;
    CHECK(jl_request_attribution_compute(run, NULL, NULL, &a, &err) == JL_OK);
    if (err)
        fprintf(stderr, "  %s\n", err->message);
    CHECK(a != NULL);
    if (!a) {
        jl_error_free(err);
        jl_run_free(run);
        sim_free(&S);
        return;
    }
    CHECK_EQ_INT((long)a->n_rows, 48);
    /* rows + unattributed = the window, to 1e-12 */
    double sum = a->unattributed_j;
    for (size_t i = 0; i < a->n_rows; i++)
        sum += a->rows[i].energy_j;
    CHECK(fabs(sum - a->window_energy_j) <= 1e-12 * a->window_energy_j);
    CHECK(fabs(a->residual_j) <= 1e-12 * a->window_energy_j);
    /* the static power measured on the idle before t = 0 */
    CHECK_NEAR(a->static_w, PS, 1e-9, 0);
    /* the costs recovered */
    CHECK(a->fit.identified);
    CHECK_NEAR(a->fit.j_per_prompt_token, COST_A, 0.05, 0);
    CHECK_NEAR(a->fit.j_per_output_token, COST_B, 0.05, 0);
    CHECK_NEAR(a->fit.j_per_step, COST_C, 0.05, 0);
    /* every request within 1 % of its known cost; the truth inside its interval */
    double *ks = known_static(&S);
    double worst = 0, wdyn = 0, wstep = 0, wbatch = 0, top = -1;
    size_t inside = 0;
    long costliest = -1;
    for (size_t i = 0; i < a->n_rows; i++) {
        const jl_request_row *r = &a->rows[i];
        size_t q = (size_t)r->request;
        double truth = S.dyn[q] + ks[q];
        double e = fabs(r->energy_j / truth - 1);
        double ed = fabs((r->prefill_j + r->decode_j) / S.dyn[q] - 1);
        if (e > worst)
            worst = e;

        if (ed > wdyn)
            wdyn = ed;
        inside += r->energy_lo_j <= truth && truth <= r->energy_hi_j;
        CHECK_NEAR(r->energy_j, r->prefill_j + r->decode_j + r->static_j, 1e-12, 1e-9);
        CHECK_NEAR(r->static_j, ks[q], 0.01, 0.01);
        /* the steps' fixed cost it holds, the steps it ran in and its
         * share of them, against the server's */
        wstep = fmax(wstep, fabs(r->step_j / S.stepj[q] - 1));
        CHECK(r->step_j <= r->prefill_j + r->decode_j);
        CHECK_NEAR(r->steps, S.nst[q], 0, 1e-9);
        wbatch = fmax(wbatch, fabs((r->steps / r->step_share) / (S.nst[q] / S.ush[q]) - 1));
        double jt = (S.dyn[q] + ks[q]) / (S.out[q]);
        if (jt > top)
            top = jt, costliest = r->request;
    }
    printf("  steps' fixed cost per request: worst %.3f %%; mean batch: worst %.2g\n", 100 * wstep,
           wbatch);
    CHECK(wstep < 0.02);
    CHECK(wbatch < 1e-9);
    /* the costliest request is the server's costliest per output token */
    CHECK(a->costliest >= 0 && a->rows[a->costliest].request == costliest);
    CHECK(isfinite(a->median_j_per_output_token) && isfinite(a->median_mean_batch));
    printf("  fit: %.5g J/prompt token, %.5g J/output token, %.5g J/step (r2 %.4f)\n",
           a->fit.j_per_prompt_token, a->fit.j_per_output_token, a->fit.j_per_step, a->fit.r2);
    printf("  per request: worst %.3f %% (dynamic part %.3f %%), %zu of %zu inside\n", 100 * worst,
           100 * wdyn, inside, a->n_rows);
    CHECK(worst < 0.01);
    CHECK(inside >= a->n_rows * 9 / 10);
    /* the fit predicts a run with another batch cap */
    sim S2;
    lcg = 4242;
    simulate(&S2, 40, 2);
    jl_run *run2 = sim_run(&S2, "b0002", 1);
    jl_request_attribution *b = NULL;
    CHECK(jl_request_attribution_compute(run2, NULL, NULL, &b, &err) == JL_OK);
    CHECK(b && jl_request_attribution_check(a, b) == JL_OK);
    if (b && a->n_checks == 1) {
        printf("  check on b0002: %+.2f %% (dynamic %+.2f %%)\n", 100 * a->checks[0].error,
               100 * a->checks[0].dynamic_error);
        CHECK(fabs(a->checks[0].error) < 0.02);
    }
    /* by class: the same energy in fewer rows */
    jl_request_options o;
    jl_request_options_default(&o);
    o.by = JL_REQUESTS_BY_CLASS;
    jl_request_attribution *c = NULL;
    CHECK(jl_request_attribution_compute(run, NULL, &o, &c, &err) == JL_OK);
    if (c) {
        double s2 = c->unattributed_j;
        size_t nr = 0;
        for (size_t i = 0; i < c->n_rows; i++)
            s2 += c->rows[i].energy_j, nr += c->rows[i].n_requests;
        CHECK(c->n_rows < a->n_rows);
        CHECK_EQ_INT((long)nr, 48);
        CHECK(fabs(s2 - c->window_energy_j) <= 1e-12 * c->window_energy_j);
        CHECK(c->rows[0].request == -1);
    }
    /* the document carries the contract's fields */
    json_t *doc = jl_request_attribution_document(a);
    json_t *row0 = json_array_get(json_object_get(doc, "rows"), 0);
    const char *keys[] = {"request",           "energy_j", "prefill_j", "decode_j",   "static_j",
                          "energy_interval_j", "step_j",   "steps",     "step_share", "mean_batch"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
        CHECK(json_is_number(json_object_get(row0, keys[k])) ||
              json_is_array(json_object_get(row0, keys[k])));
    /* and the document what docs/attribute.md lists */
    CHECK(json_is_number(json_object_get(json_object_get(doc, "work"), "prompt_tokens_outside")));
    CHECK(json_is_number(json_object_get(json_object_get(doc, "work"), "output_tokens_outside")));
    CHECK(json_is_number(json_object_get(json_object_get(doc, "coverage"), "split_s")));
    CHECK(json_is_integer(json_object_get(json_object_get(doc, "costliest"), "request")));
    CHECK(json_array_size(json_object_get(row0, "energy_interval_j")) == 2);
    json_decref(doc);
    jl_request_attribution_free(c);
    jl_request_attribution_free(b);
    jl_request_attribution_free(a);
    jl_run_free(run2);
    sim_free(&S2);
    free(ks);
    jl_run_free(run);
    sim_free(&S);
    jl_error_free(err);
}

TEST(per_request_without_itl_request)
{
    sim S;
    lcg = 99;
    simulate(&S, 32, 8);
    jl_run *run = sim_run(&S, "b0008", 0);
    jl_request_attribution *a = NULL;
    jl_error *err = NULL;
    CHECK(jl_request_attribution_compute(run, NULL, NULL, &a, &err) == JL_OK);
    if (a) {
        CHECK(strstr(a->decode_source, "approximated") != NULL);
        CHECK(fabs(a->residual_j) <= 1e-12 * a->window_energy_j);
        double *ks = known_static(&S), worst = 0;
        for (size_t i = 0; i < a->n_rows; i++) {
            size_t q = (size_t)a->rows[i].request;
            worst = fmax(worst, fabs(a->rows[i].energy_j / (S.dyn[q] + ks[q]) - 1));
        }
        printf("  without itl/request: worst %.2f %%\n", 100 * worst);
        CHECK(worst < 0.30); /* approximated, and said so */
        free(ks);
    }
    jl_request_attribution_free(a);
    jl_run_free(run);
    sim_free(&S);
    jl_error_free(err);
}

TEST(per_request_refusals)
{
    jl_run *r = jl_run_new();
    r->name = jl__strdup("x");
    jl_request_attribution *a = NULL;
    jl_error *err = NULL;
    CHECK(jl_request_attribution_compute(r, NULL, NULL, &a, &err) == JL_ENODATA);
    CHECK(a == NULL);
    CHECK(err && strstr(err->message, "requests/"));
    jl_error_free(err);
    jl_run_free(r);
}

/* the bundled sweep (traces/h100, real H100 recordings): every run
 * conserves; the b0016 fit predicts the others */
TEST(per_request_bundled_sweep)
{
    const char *path = JOULES_SOURCE_DIR "/traces/h100/h100-qwen3-1.7b-shape-chat.h5";
    jl_trace *t = NULL;
    jl_error *err = NULL;
    CHECK(jl_trace_open(path, NULL, &t, &err) == JL_OK);
    size_t n = t ? jl_trace_run_count(t) : 0;
    jl_request_attribution **A = calloc(n ? n : 1, sizeof *A);
    size_t fit = n, n_sep = 0;
    for (size_t i = 0; i < n; i++) {
        jl_run *r = NULL;
        jl_sensor s;
        jl_sensor_init(&s);
        CHECK(jl_trace_read_run(t, i, &r, &err) == JL_OK);
        CHECK(jl_trace_read_sensor(t, i, &s, &err) == JL_OK);
        CHECK(jl_request_attribution_compute(r, &s, NULL, &A[i], &err) == JL_OK);
        if (A[i]) {
            CHECK(fabs(A[i]->residual_j) <= 1e-12 * A[i]->window_energy_j);
            CHECK(A[i]->window_share > 0.95);
            /* a share of the steps' cost only where the fit separates it */
            int sep = A[i]->fit.j_per_step_lo > 0;
            n_sep += sep;
            for (size_t j = 0; j < A[i]->n_rows; j++)
                CHECK(sep ? isfinite(A[i]->rows[j].step_j) : isnan(A[i]->rows[j].step_j));
            if (!strcmp(A[i]->run, "b0016"))
                fit = i;
        }
        jl_sensor_clear(&s);
        jl_run_free(r);
    }
    CHECK(fit < n);
    /* b0001 cannot tell a token from a step; the larger batches can */
    printf("  step cost separated in %zu of %zu runs\n", n_sep, n);
    CHECK(n_sep >= 1 && n_sep < n);
    for (size_t i = 0; fit < n && i < n; i++)
        if (i != fit && A[i])
            CHECK(jl_request_attribution_check(A[fit], A[i]) == JL_OK);
    for (size_t i = 0; fit < n && i < A[fit]->n_checks; i++) {
        printf("  b0016's fit on %s: %+.1f %%\n", A[fit]->checks[i].run,
               100 * A[fit]->checks[i].error);
        CHECK(fabs(A[fit]->checks[i].error) < 0.08);
    }
    for (size_t i = 0; i < n; i++)
        jl_request_attribution_free(A[i]);
    free(A);
    jl_trace_close(t);
    jl_error_free(err);
}

int main(int argc, char **argv)
{
    TEST_ARGS(argc, argv);
    RUN(per_request_known_answer);
    RUN(per_request_without_itl_request);
    RUN(per_request_refusals);
    RUN(per_request_bundled_sweep);
    TEST_MAIN_END();
}
