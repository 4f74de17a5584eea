/* Energy per request of a batched server (joules/attribution.h, "energy per
 * request"; docs/attribute.md, "Per request").
 *
 * The window is cut at every third of GPU 0's counter updates. In each
 * interval k the
 * measured energy E_k (every GPU's counter) less P_static x length is the
 * dynamic energy D_k; it goes to the requests by the work each did in the
 * interval, a x prompt tokens in prefill + b x output tokens in decode, with
 * a and b (J per prompt token and per output token) fitted on the run's
 * intervals by least squares. Static power is split at every instant equally
 * among the requests resident then (from their prefill's start to their last
 * token): request r gets P_static x (F(finish_r) - F(start_r)), F(t) the
 * integral of 1 / (requests resident) up to t. Dynamic energy of intervals
 * without work and static energy of time without a resident request are the
 * unattributed energy; every joule of every interval lands in one of them. */
#define _POSIX_C_SOURCE 200809L
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attribution/attribution_internal.h"
#include "core/stats.h"
#include "core/util.h"
#include "joules/output.h"

void jl_request_options_default(jl_request_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->by = JL_REQUESTS_BY_REQUEST;
    opt->window[0] = opt->window[1] = NAN;
    opt->static_w = NAN;
}

void jl_request_attribution_free(jl_request_attribution *a)
{
    if (!a)
        return;
    free(a->file);
    free(a->run);
    free(a->static_source);
    free(a->energy_source);
    for (size_t i = 0; i < a->n_rows; i++)
        free(a->rows[i].key);
    free(a->rows);
    free(a->fit.note);
    free(a->prefill_source);
    free(a->decode_source);
    for (size_t i = 0; i < a->n_checks; i++)
        free(a->checks[i].run);
    free(a->checks);
    free(a);
}

/* the work of one request over the intervals k0..k1 it touches */
typedef struct {
    int live;       /* started and finished */
    double s, f, e; /* prefill start, first token, finish */
    size_t k0, k1;  /* k1 < k0: no interval */
    double *p, *d;  /* prompt and output tokens per interval, [k1 - k0 + 1] */
    double *u;      /* its presence in the steps of each interval (1 / step's requests) */
    size_t itl;     /* itl/ samples seen */
    double tprev;   /* the last token's time (itl walk) */
    double in;      /* prompt tokens */
    double nst;     /* the engine steps it took part in inside the window */
    double ush;     /* its share of them: the sum of 1 / the step's requests */
} rq;

typedef struct work_s {
    const double *b; /* interval boundaries [K + 1] */
    size_t K;
    rq *q;
    size_t R;
    int saw_request; /* itl/ had its request column */
    /* engine/ iteration rows (NULL: none): step j is (et[j - 1], et[j]] */
    const double *et;
    size_t en;
    double *nstep; /* requests in each step (tokens ending in it) */
    int pass;      /* itl walk: 0 counts the steps' requests, 1 spreads */
} work;

static size_t interval_of(const struct work_s *w, double x);

/* the engine step a token delivered at x ends: the first row at or after it */
static size_t step_of(const work *w, double x)
{
    size_t lo = 0, hi = w->en;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (w->et[mid] < x - 1e-6)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < w->en ? lo : w->en - 1;
}

/* the interval holding x (clamped) */
static size_t interval_of(const struct work_s *w, double x)
{
    size_t lo = 0, hi = w->K;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (w->b[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* amount spread evenly over [x0, x1] (a point when x1 <= x0), the part
 * inside the window into r's intervals: its prompt tokens (which 0), output
 * tokens (1) or presence (2) */
static void spread(const work *w, rq *r, double x0, double x1, double amount, int which)
{
    if (r->k1 < r->k0 || !(amount > 0))
        return;
    double W0 = w->b[0], W1 = w->b[w->K];
    double *arr = which == 2 ? r->u : which ? r->d : r->p;
    if (!(x1 > x0)) {
        if (x0 < W0 || x0 > W1)
            return;
        size_t k = interval_of(w, x0);
        if (k >= r->k0 && k <= r->k1)
            arr[k - r->k0] += amount;
        return;
    }
    double a = x0 > W0 ? x0 : W0, z = x1 < W1 ? x1 : W1;
    if (!(z > a))
        return;
    for (size_t k = interval_of(w, a); k < w->K && w->b[k] < z; k++) {
        double lo = w->b[k] > a ? w->b[k] : a, hi = w->b[k + 1] < z ? w->b[k + 1] : z;
        if (hi > lo && k >= r->k0 && k <= r->k1)
            arr[k - r->k0] += amount * (hi - lo) / (x1 - x0);
    }
}

/* a token of r delivered at x, computed over [x0, x]: counted in its step
 * (pass 0), or r's share of the step spread over [x0, x] into its presence
 * (pass 1) */
static void at_step(const work *w, rq *r, double x0, double x)
{
    size_t j = step_of(w, x);
    if (w->pass == 0) {
        w->nstep[j] += 1;
        return;
    }
    if (!(w->nstep[j] > 0))
        return;
    spread(w, r, x0, x, 1 / w->nstep[j], 2);
    if (w->et[j] > w->b[0] && w->et[j] <= w->b[w->K]) {
        r->nst += 1;
        r->ush += 1 / w->nstep[j];
    }
}

static jl_status itl_block(void *ctx, const float *sec, const int32_t *req, size_t n, size_t row0)
{
    (void)row0;
    work *w = ctx;
    if (!req)
        return JL_OK;
    w->saw_request = 1;
    for (size_t i = 0; i < n; i++) {
        if (req[i] < 0 || (size_t)req[i] >= w->R)
            continue;
        rq *r = &w->q[req[i]];
        if (!r->live || !isfinite(sec[i]) || sec[i] < 0)
            continue;
        double t0 = r->tprev, t1 = t0 + sec[i];
        if (t1 > r->e)
            t1 = r->e;
        if (t0 > t1)
            t0 = t1;
        if (w->nstep)
            at_step(w, r, t0, t1);
        if (w->pass == 1)
            spread(w, r, t0, t1, 1.0, 1);
        r->tprev = t1;
        r->itl++;
    }
    return JL_OK;
}

/* a residency's start (+1) or end (-1) */
typedef struct {
    double t;
    int d;
} evt;

static int cmp_evt(const void *x, const void *y)
{
    return jl__cmp_double(&((const evt *)x)->t, &((const evt *)y)->t);
}

/* the start of r's prefill: the engine steps before its first token whose
 * prompt tokens cover its prompt (one step without engine/prefill_tokens);
 * without engine/, its arrival */
static double prefill_start(const jl_run *run, size_t i)
{
    double arr = run->arrival[i], ft = run->first_token[i];
    if (!run->engine_n || !run->engine_time)
        return arr;
    const double *et = run->engine_time;
    size_t lo = 0, hi = run->engine_n; /* first row at or after ft */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (et[mid] < ft - 1e-9)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t j = lo;
    if (j == 0 || j >= run->engine_n)
        return arr;
    if (run->prefill_tokens && run->input_tokens) {
        int64_t got = run->prefill_tokens[j] - run->prefill_tokens[j - 1];
        while (got < run->input_tokens[i] && j >= 2 && et[j - 2] >= arr) {
            j--;
            got += run->prefill_tokens[j] - run->prefill_tokens[j - 1];
        }
    }
    double s = et[j - 1];
    return s > arr ? s : arr;
}

/* printf at b + o (o < cap), truncating; the new length */
__attribute__((format(printf, 4, 5))) static int append(char *b, size_t cap, int o, const char *fmt,
                                                        ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b + o, cap - (size_t)o, fmt, ap);
    va_end(ap);
    o += n > 0 ? n : 0;
    return o < (int)cap ? o : (int)cap - 1;
}

/* least squares of y on the columns (P: prompt tokens, D: output tokens, S:
 * engine steps; S NULL without iteration rows) without an intercept, over
 * the intervals with work; a column whose coefficient comes out not
 * positive is dropped and the rest fitted again */
static int fit_costs(const double *P, const double *D, const double *S, const double *y, size_t K,
                     jl_request_fit *f)
{
    const double *col[3] = {P, D, S};
    int use[3] = {0, 0, 0};
    size_t n = 0;
    for (size_t k = 0; k < K; k++)
        if (P[k] + D[k] > 0)
            n++;
    for (int j = 0; j < 3; j++)
        for (size_t k = 0; col[j] && k < K; k++)
            if (col[j][k] > 0 && P[k] + D[k] > 0) {
                use[j] = 1;
                break;
            }
    int avail[3] = {use[0], use[1], use[2]};
    double coef[3] = {NAN, NAN, NAN}, sd[3] = {0, 0, 0}, rss = NAN;
    f->n_intervals = n;
    for (;;) {
        int m = use[0] + use[1] + use[2];
        if (!m || n < (size_t)m + 1)
            break;
        gsl_matrix *X = gsl_matrix_alloc(n, (size_t)m),
                   *cov = gsl_matrix_alloc((size_t)m, (size_t)m);
        gsl_vector *yv = gsl_vector_alloc(n), *c = gsl_vector_alloc((size_t)m);
        gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(n, (size_t)m);
        if (!X || !cov || !yv || !c || !ws) {
            gsl_matrix_free(X), gsl_matrix_free(cov), gsl_vector_free(yv), gsl_vector_free(c);
            gsl_multifit_linear_free(ws);
            return 0;
        }
        size_t i = 0;
        for (size_t k = 0; k < K; k++) {
            if (!(P[k] + D[k] > 0))
                continue;
            size_t q = 0;
            for (int j = 0; j < 3; j++)
                if (use[j])
                    gsl_matrix_set(X, i, q++, col[j][k]);
            gsl_vector_set(yv, i, y[k]);
            i++;
        }
        double chisq = NAN;
        gsl_error_handler_t *old = gsl_set_error_handler_off();
        int bad = gsl_multifit_linear(X, yv, c, cov, &chisq, ws);
        gsl_set_error_handler(old);
        int worst = -1;
        double wv = INFINITY;
        size_t q = 0;
        for (int j = 0; j < 3; j++) {
            if (!use[j])
                continue;
            coef[j] = bad ? NAN : gsl_vector_get(c, q);
            sd[j] = bad ? NAN : sqrt(fmax(0, gsl_matrix_get(cov, q, q)));
            if (!(coef[j] > 0) && (worst < 0 || !(coef[j] >= wv)))
                worst = j, wv = coef[j];
            q++;
        }
        rss = chisq;
        gsl_matrix_free(X), gsl_matrix_free(cov), gsl_vector_free(yv), gsl_vector_free(c);
        gsl_multifit_linear_free(ws);
        if (worst < 0)
            break;
        use[worst] = 0;
        coef[worst] = NAN, sd[worst] = 0;
    }
    int m = use[0] + use[1] + use[2];
    f->identified = m > 0 && use[0] == avail[0] && use[1] == avail[1] && use[2] == avail[2];
    if (!m)
        rss = NAN;
    double a = use[0] ? coef[0] : NAN, b = use[1] ? coef[1] : NAN, c = use[2] ? coef[2] : 0;
    double sa = use[0] ? sd[0] : 0, sb = use[1] ? sd[1] : 0, sc = use[2] ? sd[2] : 0;
    char how[1024];
    int o = append(how, sizeof how, 0,
                   "least squares of each interval's dynamic energy on its prompt tokens, "
                   "output tokens%s (no intercept)",
                   avail[2] ? " and engine steps (a step's fixed cost: the weights read once "
                              "for the whole batch, shared by the requests in it)"
                            : "");
    if (!m) {
        a = b = 1, sa = sb = 0, c = 0;
        append(how, sizeof how, o,
               "; too few intervals with work to fit: every token weighed the same");
    } else {
        if (!use[0]) {
            a = avail[0] ? (use[2] ? 0 : b) : 0;
            sa = 0;
        }
        if (!use[1]) {
            b = use[2] ? 0 : a;
            sb = 0;
        }
        for (int j = 0; j < 3; j++)
            if (avail[j] && !use[j])
                o = append(how, sizeof how, o,
                           "; the %s's cost came out not positive (not identified): dropped%s",
                           j == 0   ? "prompt token"
                           : j == 1 ? "output token"
                                    : "engine step",
                           j == 0 && !use[2]   ? ", a prompt token weighed as an output token"
                           : j == 1 && !use[2] ? ", an output token weighed as a prompt token"
                                               : "");
        const char *wide[3] = {"prompt token", "output token", "engine step"};
        double cf[3] = {a, b, c}, sdv[3] = {sa, sb, sc};
        for (int j = 0; j < 3; j++)
            if (use[j] && cf[j] - 1.96 * sdv[j] <= 0) {
                f->identified = 0;
                o = append(how, sizeof how, o,
                           "; the %s's cost is not separated from the others (its interval "
                           "reaches 0: they move together, as output tokens and steps at "
                           "batch 1)",
                           wide[j]);
            }
        if (!avail[2])
            append(how, sizeof how, o,
                   "; no engine/ iteration rows: no step term (the per-token costs then hold "
                   "the fixed cost of the run's own batch)");
    }
    double z = 1.96;
    f->j_per_prompt_token = a;
    f->j_per_prompt_token_lo = fmax(0, a - z * sa);
    f->j_per_prompt_token_hi = a + z * sa;
    f->j_per_output_token = b;
    f->j_per_output_token_lo = fmax(0, b - z * sb);
    f->j_per_output_token_hi = b + z * sb;
    f->j_per_step = c;
    f->j_per_step_lo = fmax(0, c - z * sc);
    f->j_per_step_hi = c + z * sc;
    double sy = 0, syy = 0;
    for (size_t k = 0; k < K; k++)
        if (P[k] + D[k] > 0)
            sy += y[k], syy += y[k] * y[k];
    double ss = n ? syy - sy * sy / (double)n : NAN;
    f->r2 = isfinite(rss) && ss > 0 ? 1 - rss / ss : NAN;
    f->note = jl__strdup(how);
    return f->note != NULL;
}

/* the split's intervals: every third counter update (300 ms on an H100).
 * An update's time is known to half a poll; over one update a prefill burst
 * at an interval's end moves a few per cent of the interval between
 * requests, over three the share is a third (docs/attribute.md) */
#define SPLIT_UPDATES 3

typedef struct {
    double pre, dec, stat;
    double step; /* the part of pre + dec that is the steps' fixed cost */
} split3;

/* the split at static power ps and costs (a, b, c): out[r], and the
 * unattributed dynamic energy. In interval k request r weighs a p + b d +
 * c S_k x its presence / the interval's (U) */
static void split(const work *w, const double *E, const double *P, const double *D, const double *S,
                  const double *U, const double *Fs, double ps, double a, double b, double c,
                  split3 *out, double *un_dyn)
{
    *un_dyn = 0;
    for (size_t k = 0; k < w->K; k++) {
        double W = a * P[k] + b * D[k] + (U[k] > 0 ? c * S[k] : 0);
        if (!(W > 0))
            *un_dyn += E[k] - ps * (w->b[k + 1] - w->b[k]);
    }
    for (size_t i = 0; i < w->R; i++) {
        const rq *r = &w->q[i];
        out[i].pre = out[i].dec = out[i].step = 0;
        out[i].stat = ps * Fs[i];
        if (!r->live)
            continue;
        for (size_t k = r->k0; k <= r->k1 && r->k1 >= r->k0; k++) {
            double cs = U[k] > 0 ? c * S[k] / U[k] : 0;
            double W = a * P[k] + b * D[k] + cs * U[k];
            if (!(W > 0))
                continue;
            double dyn = E[k] - ps * (w->b[k + 1] - w->b[k]);
            double pk = r->p[k - r->k0], dk = r->d[k - r->k0];
            /* the presence's step cost goes to prefill and decode by the
             * tokens' share of it */
            double uk = r->u[k - r->k0],
                   ud = pk > 0 || dk > 0 ? dk / (dk + (r->in > 0 ? pk / r->in : 0)) : 0;
            out[i].pre += dyn * (a * pk + cs * uk * (1 - ud)) / W;
            out[i].dec += dyn * (b * dk + cs * uk * ud) / W;
            out[i].step += dyn * cs * uk / W;
        }
    }
}

/* the request's class: prompt and output length buckets, powers of 4 */
static void bucket(double v, char *b, size_t cap)
{
    double lo = 0, hi = 16;
    while (v >= hi && hi < 1e12)
        lo = hi, hi *= 4;
    snprintf(b, cap, "%.0f-%.0f", lo, hi - 1);
}

/* the row of the highest J per output token, and the rows' medians of it
 * and of the mean batch (per request only: a class's figures are sums) */
static jl_status costliest(jl_request_attribution *A)
{
    A->costliest = -1;
    A->median_j_per_output_token = A->median_mean_batch = NAN;
    if (A->by != JL_REQUESTS_BY_REQUEST)
        return JL_OK;
    double *jt = malloc((A->n_rows ? A->n_rows : 1) * sizeof *jt);
    double *mb = malloc((A->n_rows ? A->n_rows : 1) * sizeof *mb);
    if (!jt || !mb) {
        free(jt), free(mb);
        return JL_ENOMEM;
    }
    size_t nj = 0, nb = 0;
    double best = -1;
    for (size_t j = 0; j < A->n_rows; j++) {
        const jl_request_row *r = &A->rows[j];
        double v = r->output_tokens > 0 ? r->energy_j / r->output_tokens : NAN;
        if (!isfinite(v))
            continue;
        jt[nj++] = v;
        if (v > best)
            best = v, A->costliest = (long)j;
        if (r->step_share > 0 && isfinite(r->steps))
            mb[nb++] = r->steps / r->step_share;
    }
    if (nj < 3)
        A->costliest = -1;
    else
        A->median_j_per_output_token = jl__median_d(jt, nj);
    if (nb >= 3)
        A->median_mean_batch = jl__median_d(mb, nb);
    free(jt), free(mb);
    return JL_OK;
}

jl_status jl_request_attribution_compute(const jl_run *run, const jl_sensor *sensor,
                                         const jl_request_options *opt,
                                         jl_request_attribution **out, jl_error **err)
{
    *out = NULL;
    jl_request_options dflt;
    if (!opt) {
        jl_request_options_default(&dflt);
        opt = &dflt;
    }
    if (!run->req_n || !run->arrival || !run->first_token || !run->finish)
        return jl_fail(err, JL_ENODATA, run->file, run->name, "requests", -1,
                       "no requests/ (arrival, first_token, finish): nothing to attribute per "
                       "request");
    jl_sensor sen;
    jl_sensor_init(&sen);
    jl__sensor_defaults(&sen);
    if (sensor) {
        if (isfinite(sensor->energy_delay_s))
            sen.energy_delay_s = sensor->energy_delay_s;
        if (isfinite(sensor->watts_window_s))
            sen.watts_window_s = sensor->watts_window_s;
        if (isfinite(sensor->watts_delay_s))
            sen.watts_delay_s = sensor->watts_delay_s;
    }
    size_t G = run->energy_j.v ? run->energy_j.g : run->watts.g;
    size_t R = run->req_n;
    jl_status st = JL_OK;
    jl_request_attribution *A = calloc(1, sizeof *A);
    jl__counter *ctr = calloc(G ? G : 1, sizeof *ctr);
    work w = {0};
    w.R = R;
    w.q = calloc(R, sizeof *w.q);
    double *bnd = NULL, *E = NULL, *P = NULL, *D = NULL, *Y = NULL, *Fs = NULL, *S = NULL,
           *U = NULL;
    evt *ev = NULL;
    split3 *sp = NULL;
    double *elo = NULL, *ehi = NULL; /* each request's energy range */
    if (!A || !ctr || !w.q) {
        st = JL_ENOMEM;
        goto fail;
    }
    A->by = opt->by;
    A->n_gpus = G;
    A->file = jl__strdup(run->file ? run->file : "");
    A->run = jl__strdup(run->name ? run->name : "");
    A->energy_source = jl__strdup(run->energy_j.v ? "counter" : "watts");
    if (!A->file || !A->run || !A->energy_source) {
        st = JL_ENOMEM;
        goto fail;
    }
    double c0 = -INFINITY, c1 = INFINITY;
    for (size_t g = 0; g < G; g++) {
        if ((st = jl__counter_build(run, g, &sen, &ctr[g], err)) != JL_OK)
            goto fail;
        if (ctr[g].t[0] > c0)
            c0 = ctr[g].t[0];
        if (ctr[g].t[ctr[g].n - 1] < c1)
            c1 = ctr[g].t[ctr[g].n - 1];
        double pw, unc;
        char *src = NULL;
        if (!jl__static_power(run, &ctr[g], opt->static_w, &pw, &unc, &src)) {
            st = JL_ENOMEM;
            goto fail;
        }
        if (!isfinite(pw)) {
            st = jl_fail(err, JL_ENODATA, run->file, run->name, "power", -1,
                         "GPU %zu: no static power (no idle before t = 0, no "
                         "@gpu_idle_power_w): give --static-w W",
                         g);
            free(src);
            goto fail;
        }
        A->static_w += pw;
        if (unc > A->static_unc)
            A->static_unc = unc;
        if (!A->static_source)
            A->static_source = src;
        else
            free(src);
    }
    if (!G) {
        st = jl_fail(err, JL_ENODATA, run->file, run->name, "power", -1, "no GPU in power/");
        goto fail;
    }
    /* residency */
    double s_min = INFINITY, f_max = -INFINITY;
    for (size_t i = 0; i < R; i++) {
        rq *r = &w.q[i];
        r->k0 = 1, r->k1 = 0;
        if (!isfinite(run->arrival[i]) || !isfinite(run->first_token[i]) ||
            !isfinite(run->finish[i]) || run->finish[i] < run->first_token[i]) {
            A->n_requests_skipped++;
            continue;
        }
        r->live = 1;
        r->f = run->first_token[i];
        r->e = run->finish[i];
        r->s = prefill_start(run, i);
        if (r->s > r->f)
            r->s = r->f;
        r->tprev = r->f;
        A->n_requests++;
        if (r->s < s_min)
            s_min = r->s;
        if (r->e > f_max)
            f_max = r->e;
    }
    if (!A->n_requests) {
        st = jl_fail(err, JL_ENODATA, run->file, run->name, "requests", -1,
                     "no request both started and finished (every first_token or finish NaN)");
        goto fail;
    }
    A->window_custom = isfinite(opt->window[0]) && isfinite(opt->window[1]);
    double W0 = A->window_custom ? opt->window[0] : s_min;
    double W1 = A->window_custom ? opt->window[1] : f_max;
    if (!A->window_custom) {
        /* out to the updates around the residency: whole intervals (a part
         * of one would be pro rata by time, and its work all inside) */
        for (size_t j = ctr[0].n; j-- > 0;)
            if (ctr[0].t[j] <= W0) {
                W0 = ctr[0].t[j];
                break;
            }
        for (size_t j = 0; j < ctr[0].n; j++)
            if (ctr[0].t[j] >= W1) {
                W1 = ctr[0].t[j];
                break;
            }
        W0 = W0 > c0 ? W0 : c0;
        W1 = W1 < c1 ? W1 : c1;
    }
    if (!(W0 >= c0 && W1 <= c1 && W1 > W0)) {
        st = jl_fail(err, JL_EUSAGE, run->file, run->name, "power", -1,
                     "the window [%.6g, %.6g] s is not inside the counter's updates [%.6g, "
                     "%.6g] s",
                     W0, W1, c0, c1);
        goto fail;
    }
    A->window[0] = W0, A->window[1] = W1;
    /* intervals: the window cut at every SPLIT_UPDATES-th update of GPU 0 */
    bnd = malloc((ctr[0].n + 2) * sizeof *bnd);
    if (!bnd) {
        st = JL_ENOMEM;
        goto fail;
    }
    size_t nb = 0;
    bnd[nb++] = W0;
    for (size_t j = 0, m = 0; j < ctr[0].n; j++)
        if (ctr[0].t[j] > W0 && ctr[0].t[j] < W1 && ++m % SPLIT_UPDATES == 0)
            bnd[nb++] = ctr[0].t[j];
    bnd[nb++] = W1;
    w.b = bnd;
    w.K = nb - 1;
    {
        /* the counter's update period in the window (the split's intervals
         * hold SPLIT_UPDATES of them) */
        double *gaps = malloc(ctr[0].n * sizeof *gaps);
        size_t ng = 0;
        if (!gaps) {
            st = JL_ENOMEM;
            goto fail;
        }
        for (size_t j = 1; j < ctr[0].n; j++)
            if (ctr[0].t[j - 1] >= W0 && ctr[0].t[j] <= W1)
                gaps[ng++] = ctr[0].t[j] - ctr[0].t[j - 1];
        qsort(gaps, ng, sizeof *gaps, jl__cmp_double);
        A->update_period_s = ng ? gaps[ng / 2] : W1 - W0;
        A->split_s = A->update_period_s * SPLIT_UPDATES;
        free(gaps);
    }
    E = calloc(w.K, sizeof *E);
    P = calloc(w.K, sizeof *P);
    D = calloc(w.K, sizeof *D);
    Y = calloc(w.K, sizeof *Y);
    S = calloc(w.K, sizeof *S);
    U = calloc(w.K, sizeof *U);
    Fs = calloc(R, sizeof *Fs);
    sp = calloc(R, sizeof *sp);
    elo = calloc(R, sizeof *elo);
    ehi = calloc(R, sizeof *ehi);
    ev = malloc(2 * R * sizeof *ev);
    if (!E || !P || !D || !Y || !S || !U || !Fs || !sp || !elo || !ehi || !ev) {
        st = JL_ENOMEM;
        goto fail;
    }
    for (size_t g = 0; g < G; g++) {
        double prev = jl__counter_at(&ctr[g], W0);
        for (size_t k = 0; k < w.K; k++) {
            double x = jl__counter_at(&ctr[g], bnd[k + 1]);
            E[k] += x - prev;
            prev = x;
        }
        double r0 = ctr[g].t[0] > 0 ? ctr[g].t[0] : 0;
        A->run_j += ctr[g].e[ctr[g].n - 1] - jl__counter_at(&ctr[g], r0);
    }
    for (size_t k = 0; k < w.K; k++)
        A->window_energy_j += E[k];
    A->window_share = A->run_j > 0 ? A->window_energy_j / A->run_j : NAN;
    /* engine steps per interval, where engine/ holds one row per iteration
     * (rows closer than 50 ms apart: not a metrics scrape) */
    int steps = 0;
    if (run->engine_n >= 3 && run->engine_time) {
        double *gp = malloc((run->engine_n - 1) * sizeof *gp);
        if (!gp) {
            st = JL_ENOMEM;
            goto fail;
        }
        for (size_t j = 1; j < run->engine_n; j++)
            gp[j - 1] = run->engine_time[j] - run->engine_time[j - 1];
        qsort(gp, run->engine_n - 1, sizeof *gp, jl__cmp_double);
        steps = gp[(run->engine_n - 1) / 2] < 0.05;
        free(gp);
    }
    if (steps) {
        w.et = run->engine_time;
        w.en = run->engine_n;
        if (!(w.nstep = calloc(w.en, sizeof *w.nstep))) {
            st = JL_ENOMEM;
            goto fail;
        }
    }
    for (size_t j = 1; steps && j < run->engine_n; j++) {
        double x = run->engine_time[j];
        if (x <= W0 || x > W1)
            continue;
        size_t k = interval_of(&w, x);
        if (k > 0 && x == bnd[k])
            k--;
        S[k] += 1;
        A->engine_steps += 1;
    }
    /* the work */
    for (size_t i = 0; i < R; i++) {
        rq *r = &w.q[i];
        if (!r->live || r->e < W0 || r->s > W1)
            continue;
        r->k0 = interval_of(&w, r->s > W0 ? r->s : W0);
        r->k1 = interval_of(&w, r->e < W1 ? r->e : W1);
        size_t m = r->k1 - r->k0 + 1;
        r->p = calloc(m, sizeof *r->p);
        r->d = calloc(m, sizeof *r->d);
        r->u = calloc(m, sizeof *r->u);
        if (!r->p || !r->d || !r->u) {
            st = JL_ENOMEM;
            goto fail;
        }
        r->in = run->input_tokens ? (double)run->input_tokens[i] : 0;
        spread(&w, r, r->s, r->f, r->in, 0);
    }
    int itl_req = run->itl_n && (run->itl_request || run->itl_stream);
    /* the itl/ walk: the steps' requests counted (with the prefills ending
     * in them), then each token spread over its interval and its share of its
     * step added to its request's presence */
    for (w.pass = steps ? 0 : 1; w.pass < 2; w.pass++) {
        for (size_t i = 0; i < R; i++) {
            w.q[i].tprev = w.q[i].f;
            w.q[i].itl = 0;
            if (w.nstep && w.q[i].live)
                at_step(&w, &w.q[i], w.q[i].s, w.q[i].f);
        }
        if (itl_req && (st = jl_run_itl_blocks(run, itl_block, &w, err)) != JL_OK)
            goto fail;
    }
    itl_req = itl_req && w.saw_request;
    size_t spread_even = 0;
    for (size_t i = 0; i < R; i++) {
        rq *r = &w.q[i];
        if (!r->live || r->k1 < r->k0)
            continue;
        double outk = run->output_tokens ? (double)run->output_tokens[i] - 1 : NAN;
        if (!r->itl && outk > 0) {
            spread(&w, r, r->f, r->e, outk, 1);
            spread_even++;
        }
        /* presence without the steps' counts: a step per output token, one
         * for the prompt */
        if (!w.nstep || !r->itl) {
            size_t m = r->k1 - r->k0 + 1;
            for (size_t k = 0; k < m; k++)
                r->u[k] = (w.nstep ? 0 : r->u[k]) + r->d[k] + (r->in > 0 ? r->p[k] / r->in : 0);
        }
    }
    A->prefill_source = jl__strdup(
        run->engine_n && run->prefill_tokens
            ? "engine/: a prompt's tokens spread evenly over the engine steps before its first "
              "token whose prefill_tokens cover it (the prompts of one step share it by length)"
        : run->engine_n ? "engine/ without prefill_tokens: a prompt's tokens spread over the one "
                          "engine step before its first token (chunked prefill approximated)"
                        : "no engine/: a prompt's tokens spread evenly from its arrival to its "
                          "first token (queueing counted as prefill: approximated)");
    char dsrc[256];
    if (itl_req && !spread_even)
        snprintf(dsrc, sizeof dsrc,
                 "itl/request: each output token over its own inter-token interval");
    else if (itl_req)
        snprintf(dsrc, sizeof dsrc,
                 "itl/request, and for %zu requests without itl/ samples their output tokens "
                 "spread evenly from first token to finish (approximated)",
                 spread_even);
    else
        snprintf(dsrc, sizeof dsrc,
                 "no itl/request: each request's output tokens spread evenly from its first "
                 "token to its finish (approximated: which request a token belongs to at an "
                 "instant is not recorded)");
    A->decode_source = jl__strdup(dsrc);
    if (!A->prefill_source || !A->decode_source) {
        st = JL_ENOMEM;
        goto fail;
    }
    for (size_t i = 0; i < R; i++) {
        rq *r = &w.q[i];
        for (size_t k = r->k0; r->live && k <= r->k1 && r->k1 >= r->k0; k++) {
            P[k] += r->p[k - r->k0];
            D[k] += r->d[k - r->k0];
            U[k] += r->u[k - r->k0];
        }
    }
    for (size_t i = 0; i < R; i++)
        if (w.q[i].live) {
            A->prompt_tokens_outside += run->input_tokens ? run->input_tokens[i] : 0;
            A->output_tokens_outside += run->output_tokens ? run->output_tokens[i] - 1 : 0;
        }
    for (size_t k = 0; k < w.K; k++) {
        A->prompt_tokens_outside -= P[k];
        A->output_tokens_outside -= D[k];
        A->prompt_tokens += P[k];
        A->output_tokens += D[k];
        Y[k] = E[k] - A->static_w * (bnd[k + 1] - bnd[k]);
    }
    int fit_ok = fit_costs(P, D, steps ? S : NULL, Y, w.K, &A->fit);
    if (!fit_ok) {
        st = JL_ENOMEM;
        goto fail;
    }
    /* static shares: F(t) = integral of 1 / resident over the window */
    {
        size_t ne = 0;
        for (size_t i = 0; i < R; i++)
            if (w.q[i].live && w.q[i].k1 >= w.q[i].k0) {
                ev[ne].t = w.q[i].s > W0 ? w.q[i].s : W0, ev[ne++].d = 1;
                ev[ne].t = w.q[i].e < W1 ? w.q[i].e : W1, ev[ne++].d = -1;
            }
        qsort(ev, ne, sizeof *ev, cmp_evt);
        double *Ft = malloc((ne + 1) * sizeof *Ft), *Fv = malloc((ne + 1) * sizeof *Fv);
        if (!Ft || !Fv) {
            free(Ft), free(Fv);
            st = JL_ENOMEM;
            goto fail;
        }
        size_t nf = 0;
        double Fcur = 0, tcur = W0, idle = 0;
        int nres = 0;
        for (size_t j = 0; j < ne; j++) {
            double t = ev[j].t;
            if (t > tcur) {
                if (nres > 0)
                    Fcur += (t - tcur) / nres;
                else
                    idle += t - tcur;
                tcur = t;
            }
            nres += ev[j].d;
            Ft[nf] = t, Fv[nf] = Fcur, nf++;
        }
        if (W1 > tcur)
            idle += W1 - tcur;
        A->unattributed_static_j = A->static_w * idle;
        /* F at a time: at the first event at or after it (F is continuous
         * and every start and finish is an event) */
        for (size_t i = 0; i < R; i++) {
            rq *r = &w.q[i];
            if (!r->live || r->k1 < r->k0)
                continue;
            double x2[2] = {r->s > W0 ? r->s : W0, r->e < W1 ? r->e : W1}, fv[2];
            for (int pass = 0; pass < 2; pass++) {
                size_t l = 0, h = nf;
                while (l < h) {
                    size_t mid = (l + h) / 2;
                    if (Ft[mid] < x2[pass])
                        l = mid + 1;
                    else
                        h = mid;
                }
                fv[pass] = l < nf ? Fv[l] : Fcur;
            }
            Fs[i] = fv[1] - fv[0];
        }
        free(Ft), free(Fv);
    }
    /* rounding of the spreads */
    if (fabs(A->prompt_tokens_outside) < 1e-6 * (A->prompt_tokens + 1))
        A->prompt_tokens_outside = 0;
    if (fabs(A->output_tokens_outside) < 1e-6 * (A->output_tokens + 1))
        A->output_tokens_outside = 0;
    /* the split, and its range over the fit's and the static power's
     * uncertainty (the costs' ratio at its two ends, static at +-unc) */
    double un_dyn = 0;
    const jl_request_fit *f = &A->fit;
    split(&w, E, P, D, S, U, Fs, A->static_w, f->j_per_prompt_token, f->j_per_output_token,
          f->j_per_step, sp, &un_dyn);
    A->unattributed_dynamic_j = un_dyn;
    for (size_t i = 0; i < R; i++) {
        elo[i] = ehi[i] = sp[i].pre + sp[i].dec + sp[i].stat;
    }
    /* every corner of the costs' intervals, static at +-unc */
    double ca[2] = {f->j_per_prompt_token_lo, f->j_per_prompt_token_hi};
    double cb[2] = {f->j_per_output_token_lo, f->j_per_output_token_hi};
    double cc[2] = {f->j_per_step_lo, f->j_per_step_hi};
    split3 *tmp = malloc(R * sizeof *tmp);
    if (!tmp) {
        st = JL_ENOMEM;
        goto fail;
    }
    for (int corner = 0; corner < 8; corner++)
        for (int sg = -1; sg <= 1; sg += 2) {
            double ps = A->static_w * (1 + sg * A->static_unc), ud;
            double x = ca[corner & 1], y = cb[(corner >> 1) & 1], zc = cc[(corner >> 2) & 1];
            if (!(x + y + zc > 0))
                continue;
            split(&w, E, P, D, S, U, Fs, ps, x, y, zc, tmp, &ud);
            for (size_t i = 0; i < R; i++) {
                double e = tmp[i].pre + tmp[i].dec + tmp[i].stat;
                if (e < elo[i])
                    elo[i] = e;
                if (e > ehi[i])
                    ehi[i] = e;
            }
        }
    free(tmp);
    /* rows */
    A->rows = calloc(R ? R : 1, sizeof *A->rows);
    if (!A->rows) {
        st = JL_ENOMEM;
        goto fail;
    }
    for (size_t i = 0; i < R; i++) {
        rq *r = &w.q[i];
        if (!r->live || r->k1 < r->k0)
            continue;
        char key[96];
        if (opt->by == JL_REQUESTS_BY_CLASS) {
            char bi[40], bo[40];
            bucket(run->input_tokens ? run->input_tokens[i] : 0, bi, sizeof bi);
            bucket(run->output_tokens ? run->output_tokens[i] : 0, bo, sizeof bo);
            snprintf(key, sizeof key, "prompt %s, output %s", bi, bo);
        } else {
            snprintf(key, sizeof key, "%zu", i);
        }
        jl_request_row *row = NULL;
        for (size_t j = 0; opt->by == JL_REQUESTS_BY_CLASS && j < A->n_rows; j++)
            if (!strcmp(A->rows[j].key, key))
                row = &A->rows[j];
        if (!row) {
            row = &A->rows[A->n_rows++];
            if (!(row->key = jl__strdup(key))) {
                st = JL_ENOMEM;
                goto fail;
            }
            row->request = opt->by == JL_REQUESTS_BY_CLASS ? -1 : (long)i;
            row->start_s = r->s;
            row->finish_s = r->e;
        }
        row->n_requests++;
        row->input_tokens += run->input_tokens ? run->input_tokens[i] : NAN;
        row->output_tokens += run->output_tokens ? run->output_tokens[i] : NAN;
        if (r->s < row->start_s)
            row->start_s = r->s;
        if (r->e > row->finish_s)
            row->finish_s = r->e;
        row->resident_s += (r->e < W1 ? r->e : W1) - (r->s > W0 ? r->s : W0);
        row->prefill_j += sp[i].pre;
        row->decode_j += sp[i].dec;
        row->static_j += sp[i].stat;
        /* no engine/ iteration rows, or a step cost not separated (its
         * interval reaches 0): no step term of its own;
         * a request without itl/ samples has its presence from its tokens,
         * not from the steps */
        row->step_j += w.nstep && f->j_per_step_lo > 0 ? sp[i].step : NAN;
        row->steps += w.nstep && r->itl ? r->nst : NAN;
        row->step_share += w.nstep && r->itl ? r->ush : NAN;
        row->energy_j += sp[i].pre + sp[i].dec + sp[i].stat;
        row->energy_lo_j += elo[i];
        row->energy_hi_j += ehi[i];
    }
    for (size_t j = 0; j < A->n_rows; j++)
        A->attributed_j += A->rows[j].energy_j;
    if ((st = costliest(A)) != JL_OK)
        goto fail;
    A->unattributed_j = A->unattributed_static_j + A->unattributed_dynamic_j;
    A->residual_j = A->window_energy_j - A->attributed_j - A->unattributed_j;
    goto done;
fail:
    jl_request_attribution_free(A);
    A = NULL;
done:
    for (size_t g = 0; ctr && g < G; g++)
        jl__counter_free(&ctr[g]);
    free(ctr);
    for (size_t i = 0; w.q && i < R; i++) {
        free(w.q[i].p);
        free(w.q[i].d);
        free(w.q[i].u);
    }
    free(w.nstep);
    free(w.q);
    free(bnd), free(E), free(P), free(D), free(Y), free(Fs), free(ev), free(S), free(U);
    free(sp), free(elo), free(ehi);
    jl_sensor_clear(&sen);
    *out = A;
    return A ? JL_OK : (st != JL_OK ? st : JL_ENOMEM);
}
