/* jl_summarize(): one run in numbers over one steady-state window.
 *
 * The definitions (window rules, energy sources, interpolation conventions,
 * warnings) are documented in docs/summary.md; the comments here say how,
 * that file says what. Everything is a single pass over each dataset (plus
 * binary searches), with O(n) scratch arrays allocated once per call;
 * itl/, the largest, is walked twice block by block and no sample is kept
 * (itl_figures), so that a streamed itl/ never sits in memory.
 *
 * jl_summarize() runs one phase per group of figures (find_window,
 * window_energy, power_figures, engine_figures, token_figures,
 * request_figures, itl_figures, batch_figures, gpu_figures, then
 * attach_published), each a function over the run's context `ctx`: what a
 * phase finds for the later ones (the window, its energy, the energy
 * tracks) is kept there. The order of the phases is the order of the
 * warnings. */
#define _POSIX_C_SOURCE 200809L
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/reasons.h"
#include "core/stats.h"
#include "core/util.h"
#include "joules/summary.h"
#include "summary/summary_internal.h"

void jl_summary_options_default(jl_summary_options *opt)
{
    opt->occupancy_share = 0.9;
    opt->disagreement_warn = 0.05;
    opt->counter_restart_min_drop_j = 1.0;
    opt->published_mark = 0.10;
    opt->custom_window = 0;
    opt->window[0] = -INFINITY;
    opt->window[1] = INFINITY;
}

/* Thresholds of warnings that are not options (docs/summary.md). */
#define SHORT_WINDOW_S 5.0
#define SHORT_WINDOW_SAMPLES 10
#define COVERAGE_RADIUS_S 1.0
#define LOW_COVERAGE 0.9
#define SATURATION_SHARE 0.8
/* The window may reach this far beyond the power samples (energy is
 * extrapolated at constant power); further and the energy is missing. */
#define EXTRAPOLATE_MAX_S 1.0

enum { SRC_NONE = 0, SRC_COUNTER = 1, SRC_INTEGRAL = 2 };

typedef struct ctx {
    const jl_run *run;
    const jl_summary_options *opt;
    jl_summary *s;
    size_t G;
    jl__track *track;    /* [G] the chosen source of each GPU */
    double *track_block; /* the cum arrays of track[] and alt[] */
    jl__track *alt;      /* [G] integral beside a usable counter (disagreement) */
    int *src;            /* [G] SRC_* */
    size_t *cur;         /* [G] cursors of jl__track_at_walk over track */
    int energy_ok;       /* every GPU has a source */
    int has_power;       /* power/ has samples of watts or energy_j */
    int diffusion;       /* @workload diffusion */
    double *dscratch;    /* [max(req_n, batch_n)] scratch of the order statistics */
    double a, b, dur;    /* the window [a, b] and its length (find_window) */
    double E;            /* energy of all GPUs in the window (window_energy) */
} ctx;

#define F(id) (s->fig[JL_FIG_##id])
#define WARN(...)                                            \
    do {                                                     \
        if ((st = jl_summary_warn(s, __VA_ARGS__)) != JL_OK) \
            goto end;                                        \
    } while (0)
#define TRY(expr)                   \
    do {                            \
        if ((st = (expr)) != JL_OK) \
            goto end;               \
    } while (0)

static double ratio(double a, double b)
{
    return (isfinite(a) && isfinite(b) && b != 0.0) ? a / b : NAN;
}

/* ---- summary/ pass-through ---------------------------------------------- */

/* The figures summary/ publishes, by name (docs/summary.md), into fig
 * (NaN where not published). No identity is applied here. */
static void published_figures(const jl_run_summary_attrs *m, double *fig)
{
    for (int f = 0; f < JL_FIG_COUNT; f++)
        fig[f] = NAN;
    fig[JL_FIG_ENERGY_PER_TOKEN_J] = m->energy_per_token_j;
    fig[JL_FIG_ENERGY_PER_REQUEST_J] = m->energy_per_request_j;
    fig[JL_FIG_AVG_POWER_W] = m->avg_power_w;
    fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S] = m->output_throughput_tok_s;
    fig[JL_FIG_MEDIAN_ITL_S] = m->median_itl_s;
    fig[JL_FIG_P90_ITL_S] = m->p90_itl_s;
    fig[JL_FIG_P95_ITL_S] = m->p95_itl_s;
    fig[JL_FIG_P99_ITL_S] = m->p99_itl_s;
    fig[JL_FIG_AVG_BATCH_SIZE] = m->avg_batch_size;
    fig[JL_FIG_AVG_OUTPUT_TOKENS] = m->avg_output_tokens;
    fig[JL_FIG_STEADY_DURATION_S] = m->steady_state_duration_s;
    fig[JL_FIG_STEADY_ENERGY_J] = m->steady_state_energy_j;
    fig[JL_FIG_BATCH_LATENCY_S] = m->batch_latency_s;
    fig[JL_FIG_ENERGY_PER_ITEM_J] = m->energy_per_item_j;
    /* Further summary attributes named like a figure pass through too. */
    for (size_t i = 0; i < m->n_extra; i++) {
        int f = jl_figure_lookup(m->extra[i].key);
        if (f < 0 || !m->extra[i].is_number || !isnan(fig[f]))
            continue;
        char *endp = NULL;
        double v = strtod(m->extra[i].value, &endp);
        if (endp && *endp == '\0')
            fig[f] = v;
    }
}

/* The exact identities added to published figures (docs/summary.md): 1 /
 * energy_per_token_j, the idle power of the run's GPUs (an attribute) and
 * the static share by its definition; each only where not published. */
static void published_identities(const ctx *c, double *fig)
{
    if (isnan(fig[JL_FIG_TOKENS_PER_JOULE]))
        fig[JL_FIG_TOKENS_PER_JOULE] = ratio(1.0, fig[JL_FIG_ENERGY_PER_TOKEN_J]);
    if (c->G > 0 && isfinite(c->run->attrs.gpu_idle_power_w))
        fig[JL_FIG_IDLE_POWER_W] = c->run->attrs.gpu_idle_power_w * (double)c->G;
    if (isnan(fig[JL_FIG_STATIC_ENERGY_SHARE]))
        fig[JL_FIG_STATIC_ENERGY_SHARE] = ratio(fig[JL_FIG_IDLE_POWER_W], fig[JL_FIG_AVG_POWER_W]);
}

/* A summary-only run whose importer recomputed figures from the source's
 * own parts (summary/<figure>_recomputed, e.g. CodeCarbon's energy_consumed
 * against cpu + gpu + ram) keeps both as published figures beside series
 * do (docs/summary.md): the published one is the headline. */
static jl_status attach_parts(ctx *c)
{
    static const char suf[] = "_recomputed";
    const size_t ns = sizeof suf - 1;
    const jl_run_summary_attrs *m = &c->run->summary;
    jl_published *p = NULL;
    for (size_t i = 0; i < m->n_extra; i++) {
        const char *k = m->extra[i].key;
        size_t n = strlen(k);
        char name[64];
        if (!m->extra[i].is_number || n <= ns || n - ns >= sizeof name || strcmp(k + n - ns, suf))
            continue;
        memcpy(name, k, n - ns);
        name[n - ns] = '\0';
        int f = jl_figure_lookup(name);
        char *endp = NULL;
        double v = strtod(m->extra[i].value, &endp);
        if (f < 0 || !endp || *endp || !isfinite(v))
            continue;
        if (!p) {
            if (!(p = calloc(1, sizeof *p)))
                return JL_ENOMEM;
            c->s->published = p;
            p->mark_threshold = c->opt->published_mark;
            published_figures(m, p->fig);
            for (int g = 0; g < JL_FIG_COUNT; g++)
                p->recomputed[g] = NAN;
            for (size_t j = 0; j < m->n_extra; j++)
                if (!strcmp(m->extra[j].key, "source") && !m->extra[j].is_number &&
                    !(p->source = jl__strdup(m->extra[j].value)))
                    return JL_ENOMEM;
        }
        p->recomputed[f] = v;
        p->from_parts |= 1ull << f;
    }
    return JL_OK;
}

static jl_status summarize_summary_only(ctx *c)
{
    jl_summary *s = c->s;
    jl_status st = JL_OK;
    s->steady_method = JL_STEADY_SUMMARY;
    s->energy_source = JL_ENERGY_SUMMARY;
    published_figures(&c->run->summary, s->fig);
    published_identities(c, s->fig);
    TRY(attach_parts(c));
    WARN("summary_only",
         "no time series: figures passed through from summary/, nothing recomputed");
    if (c->opt->custom_window)
        WARN("custom_window_unused",
             "a summary-only run: its figures are its source's, over the source's own window, "
             "not over the window asked for");
    TRY(jl__boundary_figures(c->run, c->opt, EXTRAPOLATE_MAX_S, s));
end:
    return st;
}

/* A run holding time series and summary/ (spec 1.1): s->fig holds what the
 * series gave. Keep it as `recomputed`, add what a published rate lets the
 * series' energy say (energy per token or item when the series hold no
 * tokens or items), and make the published figures the headline, with the
 * identities of the pass-through. docs/summary.md says why. */
_Static_assert(JL_FIG_COUNT <= 64, "with_published_rate holds one bit per figure");

static jl_status attach_published(ctx *c)
{
    jl_summary *s = c->s;
    const jl_run_summary_attrs *m = &c->run->summary;
    jl_published *p = calloc(1, sizeof *p);
    if (!p)
        return JL_ENOMEM;
    s->published = p;
    p->mark_threshold = c->opt->published_mark;
    for (size_t i = 0; i < m->n_extra; i++)
        if (!strcmp(m->extra[i].key, "source") && !m->extra[i].is_number &&
            !(p->source = jl__strdup(m->extra[i].value)))
            return JL_ENOMEM;
    published_figures(m, p->fig);
    memcpy(p->recomputed, s->fig, sizeof p->recomputed);
    double *rc = p->recomputed, *pf = p->fig;
    const double P = rc[JL_FIG_AVG_POWER_W];
    if (isnan(rc[JL_FIG_ENERGY_PER_TOKEN_J]) && isfinite(pf[JL_FIG_OUTPUT_THROUGHPUT_TOK_S]) &&
        pf[JL_FIG_OUTPUT_THROUGHPUT_TOK_S] > 0 && isfinite(P)) {
        rc[JL_FIG_ENERGY_PER_TOKEN_J] = P / pf[JL_FIG_OUTPUT_THROUGHPUT_TOK_S];
        p->with_published_rate |= 1ull << JL_FIG_ENERGY_PER_TOKEN_J;
        double out = isfinite(rc[JL_FIG_AVG_OUTPUT_TOKENS]) ? rc[JL_FIG_AVG_OUTPUT_TOKENS]
                                                            : pf[JL_FIG_AVG_OUTPUT_TOKENS];
        if (isnan(rc[JL_FIG_ENERGY_PER_REQUEST_J]) && isfinite(out)) {
            rc[JL_FIG_ENERGY_PER_REQUEST_J] = rc[JL_FIG_ENERGY_PER_TOKEN_J] * out;
            p->with_published_rate |= 1ull << JL_FIG_ENERGY_PER_REQUEST_J;
        }
    }
    if (isnan(rc[JL_FIG_ENERGY_PER_ITEM_J]) && isfinite(pf[JL_FIG_ITEMS_PER_S]) &&
        pf[JL_FIG_ITEMS_PER_S] > 0 && isfinite(P)) {
        rc[JL_FIG_ENERGY_PER_ITEM_J] = P / pf[JL_FIG_ITEMS_PER_S];
        p->with_published_rate |= 1ull << JL_FIG_ENERGY_PER_ITEM_J;
    }
    /* the headline: published where published, the identities of the
     * pass-through from it, the series' own figures elsewhere */
    int avg_published = isfinite(pf[JL_FIG_AVG_POWER_W]);
    for (int f = 0; f < JL_FIG_COUNT; f++)
        if (isfinite(pf[f]))
            s->fig[f] = pf[f];
        else if (p->with_published_rate >> f & 1) /* the series' energy over the source's rate */
            s->fig[f] = rc[f];
    if (isfinite(pf[JL_FIG_ENERGY_PER_TOKEN_J]) && isnan(pf[JL_FIG_TOKENS_PER_JOULE]))
        s->fig[JL_FIG_TOKENS_PER_JOULE] = ratio(1.0, pf[JL_FIG_ENERGY_PER_TOKEN_J]);
    if (avg_published) {
        if (isnan(pf[JL_FIG_STATIC_ENERGY_SHARE]))
            s->fig[JL_FIG_STATIC_ENERGY_SHARE] =
                ratio(s->fig[JL_FIG_IDLE_POWER_W], s->fig[JL_FIG_AVG_POWER_W]);
    }
    /* peak over average is a figure of one series over one window: where
     * the series give both (the published average was taken over the
     * source's own window, the peak over the series'), it is theirs, or
     * the source's peak over its own average where it published both */
    if (isnan(pf[JL_FIG_PEAK_TO_AVG])) {
        double pk = pf[JL_FIG_PEAK_POWER_W], av = pf[JL_FIG_AVG_POWER_W];
        if (!(isfinite(pk) && isfinite(av))) {
            pk = rc[JL_FIG_PEAK_POWER_W];
            av = rc[JL_FIG_AVG_POWER_W];
        }
        s->fig[JL_FIG_PEAK_TO_AVG] = ratio(pk, av);
    }
    return JL_OK;
}

/* ---- steady-state window ------------------------------------------------- */

/* Request rule. Returns 1 and the window, or 0 and why not (in `why`). */
static int rule_requests(const ctx *c, double *scratch, double *a, double *b, char *why, size_t cap)
{
    const jl_run *r = c->run;
    long B = r->attrs.max_batch_size;
    if (B < 1) {
        snprintf(why, cap, "max_batch_size is missing");
        return 0;
    }
    size_t nf = 0, nc = 0;
    for (size_t i = 0; i < r->req_n; i++)
        if (isfinite(r->first_token[i]))
            scratch[nf++] = r->first_token[i];
    if (nf < (size_t)B) {
        snprintf(why, cap,
                 "only %zu requests received a first token, fewer than "
                 "max_batch_size = %ld",
                 nf, B);
        return 0;
    }
    *a = jl__kth_d(scratch, nf, (size_t)B - 1); /* the B-th smallest */
    for (size_t i = 0; i < r->req_n; i++)
        if (isfinite(r->finish[i]))
            scratch[nc++] = r->finish[i];
    /* Failed requests (NaN finish) never finish: the rule counts completed
     * requests only, so R is the number of completed requests. */
    long long k = (long long)nc - (long long)B - 1;
    if (k < 1) {
        snprintf(why, cap,
                 "%zu completed requests - max_batch_size %ld - 1 = %lld: no "
                 "request finishes before the drain",
                 nc, B, k);
        return 0;
    }
    *b = jl__kth_d(scratch, nc, (size_t)k - 1); /* the k-th smallest */
    if (!(*b > *a)) {
        snprintf(why, cap,
                 "the window would end (%.6g s, %lld-th finish) before it "
                 "starts (%.6g s, %ld-th first token)",
                 *b, k, *a, B);
        return 0;
    }
    return 1;
}

/* Occupancy rule: row i's running value holds on (t[i-1], t[i]]; the
 * longest stretch (in time) of consecutive intervals with running >=
 * share x peak, peak being the highest value over those intervals. */
static int rule_occupancy(const ctx *c, double *a, double *b, char *why, size_t cap)
{
    const jl_run *r = c->run;
    size_t S = r->engine_n;
    const double *T = r->engine_time;
    if (!r->running || S < 2) {
        snprintf(why, cap, "engine/ has fewer than two rows");
        return 0;
    }
    int32_t peak = INT32_MIN;
    for (size_t i = 1; i < S; i++)
        if (r->running[i] > peak)
            peak = r->running[i];
    if (peak <= 0) {
        snprintf(why, cap, "engine/running never exceeds 0");
        return 0;
    }
    double thr = c->opt->occupancy_share * (double)peak;
    double best = -1, bs = NAN, be = NAN;
    size_t i = 1;
    while (i < S) {
        if ((double)r->running[i] < thr) {
            i++;
            continue;
        }
        size_t j = i;
        while (j + 1 < S && (double)r->running[j + 1] >= thr)
            j++;
        double len = T[j] - T[i - 1];
        if (len > best) {
            best = len;
            bs = T[i - 1];
            be = T[j];
        }
        i = j + 1;
    }
    if (!(best > 0)) {
        snprintf(why, cap, "no stretch of positive length at or above %.3g", thr);
        return 0;
    }
    *a = bs;
    *b = be;
    return 1;
}

/* ---- helpers over the window -------------------------------------------- */

static double energy_at(const ctx *c, double t)
{
    if (!c->energy_ok)
        return NAN;
    double e = 0;
    for (size_t g = 0; g < c->G; g++)
        e += jl__track_at(&c->track[g], t);
    return e;
}

static double energy_between(const ctx *c, double a, double b)
{
    return energy_at(c, b) - energy_at(c, a);
}

/* energy_at for non-decreasing t (the engine sweep): the same sums, found
 * by walking c->cur forward instead of a binary search per GPU. */
static double energy_at_walk(const ctx *c, double t)
{
    if (!c->energy_ok)
        return NAN;
    double e = 0;
    for (size_t g = 0; g < c->G; g++)
        e += jl__track_at_walk(&c->track[g], t, &c->cur[g]);
    return e;
}

/* Sum over GPUs of watts at time x, interpolated linearly (held constant
 * outside the sample span). NaN when a value is not finite. */
static double watts_sum_at(const jl_run *r, double x)
{
    const jl_series *w = &r->watts;
    size_t n = r->power_n, G = w->g;
    const double *t = r->power_time;
    size_t i = jl__last_le(t, n, x);
    double sum = 0;
    for (size_t g = 0; g < G; g++) {
        double v;
        if (i == (size_t)-1)
            v = w->v[g];
        else if (i == n - 1)
            v = w->v[(n - 1) * G + g];
        else {
            double w0 = w->v[i * G + g], w1 = w->v[(i + 1) * G + g];
            v = w0 + (w1 - w0) * ((x - t[i]) / (t[i + 1] - t[i]));
        }
        sum += v;
    }
    return sum;
}

/* The reach of a power sample for coverage, judged against the log's own
 * sampling: COVERAGE_RADIUS_S, or 0.75 of the run's typical gap between
 * power samples where that is longer (a log polled every 5 s covers its
 * window; a dropout of a few polls still shows). The typical gap: the lower
 * median of up to 1001 gaps spread evenly over the run. */
static double typical_gap(const double *t, size_t n)
{
    double g[1001];
    size_t m = n > 1 ? n - 1 : 0, k = m < 1001 ? m : 1001;
    for (size_t i = 0; i < k; i++) {
        size_t j = m <= 1001 ? i : i * (m - 1) / 1000;
        g[i] = t[j + 1] - t[j];
    }
    /* the order statistic alone (a quickselect), not a sort of the gaps */
    return k ? jl__kth_d(g, k, (k - 1) / 2) : NAN;
}

static double coverage_radius(const double *t, size_t n)
{
    double g = typical_gap(t, n);
    return isnan(g) ? COVERAGE_RADIUS_S : fmax(COVERAGE_RADIUS_S, 0.75 * g);
}

/* Length of [a, b] within R of some sample time. */
static double covered_length(const double *t, size_t n, double a, double b, double R)
{
    double cov = 0, cur_lo = NAN, cur_hi = NAN;
    for (size_t i = jl__first_ge(t, n, a - R); i < n && t[i] - R <= b; i++) {
        double lo = fmax(t[i] - R, a), hi = fmin(t[i] + R, b);
        if (hi <= lo)
            continue;
        if (isnan(cur_lo) || lo > cur_hi) {
            if (!isnan(cur_lo))
                cov += cur_hi - cur_lo;
            cur_lo = lo;
            cur_hi = hi;
        } else if (hi > cur_hi)
            cur_hi = hi;
    }
    if (!isnan(cur_lo))
        cov += cur_hi - cur_lo;
    return cov;
}

/* Engine tokens_generated at time x: linear between rows, clamped outside. */
static double tokens_at(const jl_run *r, double x)
{
    size_t S = r->engine_n;
    const double *T = r->engine_time;
    const int64_t *k = r->tokens_generated;
    if (x <= T[0])
        return (double)k[0];
    if (x >= T[S - 1])
        return (double)k[S - 1];
    size_t i = jl__last_le(T, S, x);
    double k0 = (double)k[i], k1 = (double)k[i + 1];
    return k0 + (k1 - k0) * ((x - T[i]) / (T[i + 1] - T[i]));
}

/* The requests whose tokens itl/ times exactly: itl/ in memory with its
 * request column, and request i holding exactly output_tokens - 1 samples
 * (each sample the gap before one more token). For those, the tokens in
 * (a, b] are counted at their own times (first_token + the gaps so far)
 * into *tok, and exact[i] is set. 0 when itl/ cannot say (streamed, no
 * request column, out of memory). */
static int itl_tokens(const jl_run *r, double a, double b, unsigned char *exact, double *tok)
{
    size_t R = r->req_n, K = r->itl_n;
    if (!r->itl_seconds || !r->itl_request || r->itl_stream || !r->output_tokens || !K)
        return 0;
    size_t *cnt = calloc(R, sizeof *cnt);
    double *t = jl__malloc_array(R, sizeof *t);
    if (!cnt || !t) {
        free(cnt);
        free(t);
        return 0;
    }
    for (size_t k = 0; k < K; k++)
        if (r->itl_request[k] >= 0 && (size_t)r->itl_request[k] < R)
            cnt[r->itl_request[k]]++;
    for (size_t i = 0; i < R; i++) {
        t[i] = r->first_token[i];
        exact[i] = isfinite(t[i]) && isfinite(r->finish[i]) && r->output_tokens[i] >= 1 &&
                   cnt[i] == (size_t)r->output_tokens[i] - 1;
        if (exact[i] && t[i] > a && t[i] <= b)
            *tok += 1;
    }
    for (size_t k = 0; k < K; k++) {
        int32_t i = r->itl_request[k];
        if (i < 0 || (size_t)i >= R || !exact[i])
            continue;
        t[i] += r->itl_seconds[k];
        if (t[i] > a && t[i] <= b)
            *tok += 1;
    }
    free(cnt);
    free(t);
    return 1;
}

/* Tokens of the request table in (a, b]: each request's first token at
 * first_token, the others at the times itl/ gives them (itl_tokens) or,
 * where it cannot, its other output_tokens - 1 spread uniformly over
 * (first_token, finish]. Requests without a finite finish count their first
 * token only. */
static double request_tokens(const jl_run *r, double a, double b)
{
    double tok = 0;
    unsigned char *exact = calloc(r->req_n, 1);
    if (exact && !itl_tokens(r, a, b, exact, &tok))
        memset(exact, 0, r->req_n);
    for (size_t i = 0; i < r->req_n; i++) {
        if (exact && exact[i])
            continue;
        double ft = r->first_token[i], fin = r->finish[i];
        int32_t n = r->output_tokens ? r->output_tokens[i] : 1;
        if (!isfinite(ft) || n < 1)
            continue;
        int in = ft > a && ft <= b;
        if (!isfinite(fin)) {
            tok += in;
            continue;
        }
        if (!(fin > ft)) {
            tok += in ? (double)n : 0.0;
            continue;
        }
        tok += in;
        double lo = fmax(ft, a), hi = fmin(fin, b);
        if (hi > lo)
            tok += (double)(n - 1) * ((hi - lo) / (fin - ft));
    }
    free(exact);
    return tok;
}

/* Mean of a [M, G] gpu/ series over rows with a <= t <= b, all GPUs, finite
 * values only. */
static double gpu_mean(const jl_run *r, const jl_series *v, double a, double b)
{
    if (!v->v || !r->gpu_time)
        return NAN;
    double sum = 0;
    size_t cnt = 0;
    for (size_t i = jl__first_ge(r->gpu_time, r->gpu_n, a); i < r->gpu_n && r->gpu_time[i] <= b;
         i++)
        for (size_t g = 0; g < v->g; g++) {
            double x = v->v[i * v->g + g];
            if (isfinite(x)) {
                sum += x;
                cnt++;
            }
        }
    return cnt ? sum / (double)cnt : NAN;
}

/* ---- energy sources ----------------------------------------------------- */

static jl_status build_energy(ctx *c)
{
    const jl_run *r = c->run;
    jl_summary *s = c->s;
    jl_status st = JL_OK;
    size_t G = c->G, n = r->power_n;
    c->track = calloc(G, sizeof *c->track);
    c->alt = calloc(G, sizeof *c->alt);
    c->src = calloc(G, sizeof *c->src);
    c->cur = malloc(G * sizeof *c->cur);
    if (!c->track || !c->alt || !c->src || !c->cur)
        return JL_ENOMEM;
    for (size_t g = 0; g < G; g++)
        c->cur[g] = (size_t)-1;
    /* every GPU's tracks in one block: a long run's sixteen tracks are
     * 0.7 MB each, one block of 11 MB lies on huge pages
     * (jl__malloc_array; docs/performance.md, "Session 11, second part") */
    size_t per = (r->energy_j.v ? G : 0) + (r->watts.v ? G : 0), n_cells;
    if (n > 0 && per > 0 && jl__mul_size(per, n, &n_cells) &&
        !(c->track_block = jl__malloc_array(n_cells, sizeof *c->track_block)))
        return JL_ENOMEM;
    double *counter_buf = c->track_block && r->energy_j.v ? c->track_block : NULL;
    double *integral_buf =
        c->track_block && r->watts.v ? c->track_block + (r->energy_j.v ? G * n : 0) : NULL;
    int n_counter = 0, n_integral = 0;
    c->energy_ok = n > 0;
    for (size_t g = 0; g < G; g++) {
        if (r->energy_j.v) {
            jl__counter_report rep;
            TRY(jl__track_counter(&c->track[g], r->power_time, n, &r->energy_j, &r->watts, g,
                                  c->opt->counter_restart_min_drop_j, NAN, &rep,
                                  counter_buf ? counter_buf + g * n : NULL));
            if (rep.usable) {
                c->src[g] = SRC_COUNTER;
                for (size_t k = 0; k < rep.n_restarts; k++) {
                    const jl__restart *x = &rep.restarts[k];
                    TRY(jl__validity_add(&s->validity, JL__R_COUNTER_RESET, x->bridged_j,
                                         "GPU %zu: the energy counter restarted at t = %.6g s "
                                         "(row %zu, %.6g J to %.6g J); %.6g J bridged with %s",
                                         g, x->time, x->row, x->from_j, x->to_j, x->bridged_j,
                                         x->by_watts ? "power/watts" : "the neighbouring rate"));
                    WARN("counter_restart",
                         "GPU %zu: energy_j dropped from %.6g J to %.6g J at t = "
                         "%.6g s (row %zu): restart or wrap; bridged %.6g J with %s",
                         g, x->from_j, x->to_j, x->time, x->row, x->bridged_j,
                         x->by_watts ? "power/watts"
                                     : "the mean rate of the neighbouring intervals");
                }
                if (rep.n_jitter)
                    WARN("counter_jitter",
                         "GPU %zu: energy_j decreased %zu times by less than %.6g J "
                         "(largest %.6g J); held at its running maximum",
                         g, rep.n_jitter, c->opt->counter_restart_min_drop_j, rep.jitter_max_j);
            } else {
                jl__track_free(&c->track[g]);
                WARN("counter_unusable", "GPU %zu: %s; %s", g, rep.reason,
                     r->watts.v ? "using the integral of power/watts instead"
                                : "and power/watts is absent: energy is missing");
            }
        }
        if (r->watts.v) {
            jl__track *dst = c->src[g] == SRC_COUNTER ? &c->alt[g] : &c->track[g];
            int usable;
            size_t bad;
            TRY(jl__track_integral(dst, r->power_time, n, &r->watts, g, &usable, &bad,
                                   integral_buf ? integral_buf + g * n : NULL));
            if (!usable) {
                jl__track_free(dst);
                WARN("watts_unusable", "GPU %zu: power/watts is not finite at row %zu", g, bad);
            } else if (c->src[g] != SRC_COUNTER)
                c->src[g] = SRC_INTEGRAL;
        }
        if (c->src[g] == SRC_COUNTER)
            n_counter++;
        else if (c->src[g] == SRC_INTEGRAL)
            n_integral++;
        else
            c->energy_ok = 0;
    }
    if (!c->energy_ok)
        s->energy_source = JL_ENERGY_NONE;
    else if (n_integral > 0)
        s->energy_source = JL_ENERGY_INTEGRAL;
    else
        s->energy_source = n_counter ? JL_ENERGY_COUNTER : JL_ENERGY_NONE;
end:
    return st;
}

/* ---- the figures, one phase each ------------------------------------------ */

/* The steady-state window [c->a, c->b] and how it was found: the source's
 * own cut (@window), the batches (diffusion), the request rule, the
 * occupancy rule, or the whole run (flagged). */
static jl_status find_window(ctx *c)
{
    const jl_run *run = c->run;
    jl_summary *s = c->s;
    jl_status st = JL_OK;
    double a = NAN, b = NAN;
    char why[256] = "";
    char wattr[64];
    const int source_cut = jl_attrs_get(&run->attrs, "window", wattr, sizeof wattr) == 0 &&
                           !strcmp(wattr, "steady_state_only");
    if (c->opt->custom_window && (run->power_n > 0 || run->engine_n > 0)) {
        /* the caller's window, clipped to the run's samples */
        const double *t = run->power_n > 0 ? run->power_time : run->engine_time;
        size_t nt = run->power_n > 0 ? run->power_n : run->engine_n;
        a = fmax(c->opt->window[0], t[0]);
        b = fmin(c->opt->window[1], t[nt - 1]);
        s->steady_method = JL_STEADY_CUSTOM;
        if (!(b > a)) {
            WARN("custom_window_outside",
                 "the window [%.6g, %.6g] s holds none of the run's samples [%.6g, %.6g] s: "
                 "the figures over it are missing",
                 c->opt->window[0], c->opt->window[1], t[0], t[nt - 1]);
            a = b = NAN;
        }
    } else if (source_cut && (run->power_n > 0 || run->engine_n > 0)) {
        /* spec 1.1 @window: the source cut the series to its steady state */
        const double *t = run->power_n > 0 ? run->power_time : run->engine_time;
        size_t nt = run->power_n > 0 ? run->power_n : run->engine_n;
        a = t[0];
        b = t[nt - 1];
        s->steady_method = JL_STEADY_SOURCE;
    } else if (run->batch_n > 0 && (c->diffusion || run->req_n == 0)) {
        a = INFINITY;
        b = -INFINITY;
        for (size_t i = 0; i < run->batch_n; i++) {
            a = fmin(a, run->batch_start[i]);
            b = fmax(b, run->batch_end[i]);
        }
        s->steady_method = JL_STEADY_BATCHES;
    } else {
        int found = 0;
        if (run->req_n > 0) {
            found = rule_requests(c, c->dscratch, &a, &b, why, sizeof why);
            if (found)
                s->steady_method = JL_STEADY_REQUESTS;
            else if (run->engine_n > 0)
                WARN("steady_fallback",
                     "the request rule gives no window (%s): using the occupancy rule", why);
        }
        if (!found && run->engine_n > 0) {
            char why2[256] = "";
            found = rule_occupancy(c, &a, &b, why2, sizeof why2);
            if (found)
                s->steady_method = JL_STEADY_OCCUPANCY;
            else
                snprintf(why, sizeof why, "%s", why2);
        }
        if (!found) {
            s->steady_method = JL_STEADY_WHOLE_RUN;
            if (run->power_n > 0) {
                a = run->power_time[0];
                b = run->power_time[run->power_n - 1];
            }
            WARN("steady_whole_run",
                 "no steady-state rule applies (%s): figures cover the whole run "
                 "and include ramp-up and drain",
                 why[0] ? why
                        : (c->diffusion ? "no batches/" : "no requests/, engine/ or batches/"));
        }
    }
end:
    c->a = a;
    c->b = b;
    c->dur = b - a;
    F(STEADY_START_S) = a;
    F(STEADY_END_S) = b;
    F(STEADY_DURATION_S) = b - a;
    return st;
}

/* Energy: the tracks of every GPU, the window's energy c->E (per GPU too),
 * the run's, the disagreement of the two sources, the average power. */
static jl_status window_energy(ctx *c)
{
    const jl_run *run = c->run;
    jl_summary *s = c->s;
    jl_status st = JL_OK;
    const size_t G = c->G;
    const double a = c->a, b = c->b, dur = c->dur;
    double E = NAN;
    if (c->has_power && G > 0) {
        TRY(build_energy(c));
    } else {
        WARN("no_energy", "no power/ samples: energy figures are missing");
    }
    const size_t n = run->power_n;
    const double *pt = run->power_time;
    if (c->track && n > 0) {
        double t0 = pt[0], t1 = pt[n - 1];
        int in_span = a >= t0 - EXTRAPOLATE_MAX_S && b <= t1 + EXTRAPOLATE_MAX_S;
        if (!in_span && !isnan(a)) /* NaN: no window at all, said already */
            WARN("power_span",
                 "the window [%.6g, %.6g] s reaches more than %g s beyond the power "
                 "samples [%.6g, %.6g] s: window energy is missing",
                 a, b, EXTRAPOLATE_MAX_S, t0, t1);
        s->gpu_energy_j = jl__malloc_array(G, sizeof(double));
        s->gpu_avg_power_w = jl__malloc_array(G, sizeof(double));
        if (!s->gpu_energy_j || !s->gpu_avg_power_w) {
            st = JL_ENOMEM;
            goto end;
        }
        double sum_i = 0, sum_c = 0;
        int n_both = 0;
        for (size_t g = 0; g < G; g++) {
            double e = NAN;
            if (c->src[g] != SRC_NONE && in_span)
                e = jl__track_at(&c->track[g], b) - jl__track_at(&c->track[g], a);
            s->gpu_energy_j[g] = e;
            s->gpu_avg_power_w[g] = ratio(e, dur);
            if (c->src[g] == SRC_COUNTER && c->alt[g].cum && in_span) {
                sum_c += e;
                sum_i += jl__track_at(&c->alt[g], b) - jl__track_at(&c->alt[g], a);
                n_both++;
            }
        }
        if (c->energy_ok && in_span)
            E = energy_between(c, a, b);
        if (n_both) {
            F(ENERGY_SOURCE_DISAGREEMENT) = ratio(sum_i - sum_c, sum_c);
            if (fabs(F(ENERGY_SOURCE_DISAGREEMENT)) > c->opt->disagreement_warn)
                WARN("energy_sources_agree",
                     "the integral of power/watts and energy_j disagree by %+.2f %% "
                     "over the window (threshold %.2f %%)",
                     100 * F(ENERGY_SOURCE_DISAGREEMENT), 100 * c->opt->disagreement_warn);
        }
        if (c->energy_ok) {
            F(RUN_ENERGY_J) = energy_between(c, t0, t1);
        }
        F(RUN_DURATION_S) = t1 - t0;
        if (!c->energy_ok)
            WARN("no_energy", "energy of at least one GPU is missing: energy figures are NaN");
    } else if (n > 0) {
        F(RUN_DURATION_S) = pt[n - 1] - pt[0];
    }
    F(STEADY_ENERGY_J) = E;
    F(AVG_POWER_W) = ratio(E, dur);
    F(OUTSIDE_ENERGY_SHARE) = ratio(F(RUN_ENERGY_J) - E, F(RUN_ENERGY_J));
end:
    c->E = E;
    return st;
}

/* Power samples in the window: peak power, coverage, shortness; then the
 * ratios to the average power. */
static jl_status power_figures(ctx *c)
{
    const jl_run *run = c->run;
    jl_summary *s = c->s;
    jl_status st = JL_OK;
    const size_t n = run->power_n;
    const double *pt = run->power_time;
    const double a = c->a, b = c->b, dur = c->dur;
    if (n > 0 && isfinite(a) && isfinite(b)) {
        size_t i0 = jl__first_ge(pt, n, a), i1 = i0;
        double peak = -INFINITY;
        int have_w = run->watts.v != NULL;
        if (have_w) {
            peak = fmax(watts_sum_at(run, a), watts_sum_at(run, b));
            if (isnan(peak))
                peak = -INFINITY;
        }
        for (; i1 < n && pt[i1] <= b; i1++) {
            if (!have_w)
                continue;
            double sum = 0;
            for (size_t g = 0; g < run->watts.g; g++)
                sum += run->watts.v[i1 * run->watts.g + g];
            if (sum > peak)
                peak = sum;
        }
        if (have_w && isfinite(peak))
            F(PEAK_POWER_W) = peak;
        size_t in_window = i1 - i0;
        if (dur > 0) {
            double R = coverage_radius(pt, n);
            F(POWER_SAMPLE_COVERAGE) = covered_length(pt, n, a, b, R) / dur;
            if (F(POWER_SAMPLE_COVERAGE) < LOW_COVERAGE)
                WARN("low_coverage",
                     "only %.1f %% of the window lies within %g s of a power sample",
                     100 * F(POWER_SAMPLE_COVERAGE), R);
        }
        if (dur < SHORT_WINDOW_S || in_window < SHORT_WINDOW_SAMPLES)
            WARN("short_window",
                 "the window lasts %.3g s and holds %zu power samples (less than "
                 "%g s or %d samples): figures are imprecise",
                 dur, in_window, SHORT_WINDOW_S, SHORT_WINDOW_SAMPLES);
    }
    F(PEAK_TO_AVG) = ratio(F(PEAK_POWER_W), F(AVG_POWER_W));
    if (c->G > 0 && isfinite(run->attrs.gpu_idle_power_w))
        F(IDLE_POWER_W) = run->attrs.gpu_idle_power_w * (double)c->G;
    F(STATIC_ENERGY_SHARE) = ratio(F(IDLE_POWER_W), F(AVG_POWER_W));
end:
    return st;
}

/* The engine intervals handed to jl__prefill_marginal. */
typedef struct pm_rows {
    double *e, *t0, *t;
    int32_t *running;
    long long *ptok;
    size_t n;
    double *bt, *be; /* the regression's block edges (power sample times) and E there */
} pm_rows;

static void pm_free(pm_rows *p)
{
    free(p->e);
    free(p->t0);
    free(p->t);
    free(p->running);
    free(p->ptok);
    free(p->bt);
    free(p->be);
    memset(p, 0, sizeof *p);
}

static jl_status pm_alloc(pm_rows *p, size_t n, size_t n_power)
{
    p->e = jl__malloc_array(n, sizeof *p->e);
    p->t0 = jl__malloc_array(n, sizeof *p->t0);
    p->t = jl__malloc_array(n, sizeof *p->t);
    p->running = jl__malloc_array(n, sizeof *p->running);
    p->ptok = jl__malloc_array(n, sizeof *p->ptok);
    p->bt = jl__malloc_array(n_power ? n_power : 1, sizeof *p->bt);
    p->be = jl__malloc_array(n_power ? n_power : 1, sizeof *p->be);
    p->n = 0;
    if (!p->e || !p->t0 || !p->t || !p->running || !p->ptok || !p->bt || !p->be) {
        pm_free(p);
        return JL_ENOMEM;
    }
    return JL_OK;
}

/* engine/ over the window: occupancy, KV cache, prefill/decode energy (and
 * the marginal split); the batch-saturation warning. */
static jl_status engine_figures(ctx *c)
{
    const jl_run *run = c->run;
    jl_summary *s = c->s;
    jl_status st = JL_OK;
    const double a = c->a, b = c->b, E = c->E;
    const size_t S = run->engine_n;
    const double *T = run->engine_time;
    if (S >= 2 && isfinite(a) && isfinite(b)) {
        double wsum = 0, rsum = 0, ksum = 0, kpeak = -INFINITY, pre = 0, dec = 0;
        int32_t rpeak = INT32_MIN;
        int have_pre = run->prefill_tokens && c->energy_ok && isfinite(E);
        /* E at each row's start is E at the previous row's end when the
         * rows abut (always inside the window): computed once */
        double prev_x = NAN, prev_e = NAN;
        /* the whole intervals inside the window, for the marginal split
         * (prefill.c) */
        pm_rows pm = {0};
        if (have_pre && run->running && pm_alloc(&pm, S, run->power_n) != JL_OK) {
            st = JL_ENOMEM;
            goto end;
        }
        size_t i = jl__first_ge(T, S, a);
        if (i == 0)
            i = 1;
        for (; i < S && T[i - 1] < b; i++) {
            double lo = fmax(T[i - 1], a), hi = fmin(T[i], b);
            if (!(hi > lo))
                continue;
            double ov = hi - lo;
            wsum += ov;
            if (run->running) {
                rsum += ov * (double)run->running[i];
                if (run->running[i] > rpeak)
                    rpeak = run->running[i];
            }
            if (run->kv_cache_usage) {
                ksum += ov * (double)run->kv_cache_usage[i];
                if ((double)run->kv_cache_usage[i] > kpeak)
                    kpeak = (double)run->kv_cache_usage[i];
            }
            if (have_pre) {
                double e_lo = lo == prev_x ? prev_e : energy_at_walk(c, lo);
                double e_hi = energy_at_walk(c, hi);
                double e = e_hi - e_lo;
                prev_x = hi;
                prev_e = e_hi;
                if (run->prefill_tokens[i] > run->prefill_tokens[i - 1])
                    pre += e;
                else
                    dec += e;
                if (pm.e && lo == T[i - 1] && hi == T[i]) {
                    pm.e[pm.n] = e;
                    pm.t0[pm.n] = lo;
                    pm.t[pm.n] = hi;
                    pm.running[pm.n] = run->running[i];
                    pm.ptok[pm.n++] = run->prefill_tokens[i] - run->prefill_tokens[i - 1];
                }
            }
        }
        if (pm.e && wsum > 0) {
            double out[3];
            const char *why = NULL;
            /* the regression's blocks: power samples within the whole
             * intervals, at least JL__PREFILL_BLOCK_GAPS gaps apart */
            double gap = typical_gap(run->power_time, run->power_n);
            size_t nbt = 0;
            if (pm.n && gap > 0) {
                double last = -INFINITY;
                for (size_t k = jl__first_ge(run->power_time, run->power_n, pm.t0[0]);
                     k < run->power_n && run->power_time[k] <= pm.t[pm.n - 1]; k++)
                    if (run->power_time[k] - last >= JL__PREFILL_BLOCK_GAPS * gap) {
                        last = pm.bt[nbt] = run->power_time[k];
                        pm.be[nbt++] = energy_at(c, last);
                    }
            }
            jl__prefill_marginal(pm.e, pm.t0, pm.t, pm.running, pm.ptok, pm.n, pm.bt, pm.be, nbt, E,
                                 out, &why);
            F(PREFILL_MARGINAL_ENERGY_SHARE) = out[0];
            F(PREFILL_MARGINAL_ENERGY_SHARE_LO) = out[1];
            F(PREFILL_MARGINAL_ENERGY_SHARE_HI) = out[2];
            pm_free(&pm);
            if (isnan(out[0]) && why)
                WARN("prefill_marginal", "no marginal prefill share: %s", why);
        }
        pm_free(&pm);
        if (wsum > 0) {
            if (run->running) {
                F(AVG_BATCH_SIZE) = rsum / wsum;
                F(PEAK_RUNNING) = (double)rpeak;
            }
            if (run->kv_cache_usage) {
                F(AVG_KV_CACHE_USAGE) = ksum / wsum;
                F(PEAK_KV_CACHE_USAGE) = kpeak;
            }
            if (have_pre) {
                F(PREFILL_ENERGY_J) = pre;
                F(DECODE_ENERGY_J) = dec;
                F(PREFILL_ENERGY_SHARE) = ratio(pre, E);
            }
        }
    }
    if (jl_attrs_is_llm(&run->attrs) && run->attrs.max_batch_size > 0 &&
        isfinite(F(AVG_BATCH_SIZE)) &&
        F(AVG_BATCH_SIZE) < SATURATION_SHARE * (double)run->attrs.max_batch_size)
        WARN("batch_saturation",
             "the mean batch in the window is %.3g sequences, below %.0f %% of "
             "max_batch_size %ld: the server did not run full",
             F(AVG_BATCH_SIZE), 100 * SATURATION_SHARE, run->attrs.max_batch_size);
end:
    return st;
}

/* Output tokens in the window (engine counter, else the request table) and
 * the per-token figures. */
static jl_status token_figures(ctx *c)
{
    const jl_run *run = c->run;
    jl_summary *s = c->s;
    jl_status st = JL_OK;
    const double a = c->a, b = c->b, E = c->E;
    if (c->diffusion || !isfinite(a) || !isfinite(b))
        return JL_OK;
    double tok = NAN;
    if (run->engine_n > 0 && run->tokens_generated)
        tok = tokens_at(run, b) - tokens_at(run, a);
    else if (run->req_n > 0 && run->first_token && run->finish)
        tok = request_tokens(run, a, b);
    F(STEADY_TOKENS) = tok;
    if (isfinite(tok) && tok > 0) {
        F(ENERGY_PER_TOKEN_J) = ratio(E, tok);
        F(TOKENS_PER_JOULE) = ratio(tok, E);
        F(OUTPUT_THROUGHPUT_TOK_S) = ratio(tok, c->dur);
    } else if (jl_attrs_is_llm(&run->attrs) &&
               !(run->summary.present && (isfinite(run->summary.energy_per_token_j) ||
                                          isfinite(run->summary.output_throughput_tok_s))))
        WARN("no_tokens", "no output tokens in the window (%s): per-token figures are missing",
             isfinite(tok) ? "zero" : "no engine/tokens_generated or requests/");
end:
    return st;
}

/* requests/: completed and failed requests, output tokens, TPOT, TTFT
 * quantiles; then energy per request. */
static jl_status request_figures(ctx *c)
{
    const jl_run *run = c->run;
    jl_summary *s = c->s;
    jl_status st = JL_OK;
    if (run->req_n > 0) {
        double *dscratch = c->dscratch;
        size_t done = 0, nt = 0, n_tpot = 0;
        double out_sum = 0, tpot_sum = 0;
        for (size_t i = 0; i < run->req_n; i++) {
            if (isfinite(run->finish[i])) {
                done++;
                if (run->output_tokens)
                    out_sum += run->output_tokens[i];
                double dec = run->finish[i] - run->first_token[i];
                if (run->output_tokens && run->output_tokens[i] > 1 && isfinite(dec)) {
                    tpot_sum += dec / (run->output_tokens[i] - 1);
                    n_tpot++;
                }
            }
            double d = run->first_token[i] - run->arrival[i];
            if (isfinite(d))
                dscratch[nt++] = d;
        }
        F(COMPLETED_REQUESTS) = (double)done;
        F(FAILED_REQUESTS) = (double)(run->req_n - done);
        if (done && run->output_tokens)
            F(AVG_OUTPUT_TOKENS) = out_sum / (double)done;
        if (n_tpot)
            F(AVG_TPOT_S) = tpot_sum / (double)n_tpot;
        if (done < run->req_n)
            WARN("failed_requests",
                 "%zu of %zu requests have no finish time: left out of the request "
                 "rule, of avg_output_tokens and of the ITL percentiles",
                 run->req_n - done, run->req_n);
        double q[2] = {0.5, 0.9}, o[2];
        jl__quantiles_d(dscratch, nt, q, 2, o);
        F(TTFT_MEDIAN_S) = o[0];
        F(TTFT_P90_S) = o[1];
    }
end:
    F(ENERGY_PER_REQUEST_J) = F(ENERGY_PER_TOKEN_J) * F(AVG_OUTPUT_TOKENS);
    return st;
}

/* Sum over GPUs of watts at sample i (NaN when one is not finite). */
static double watts_sum_row(const jl_run *r, size_t i)
{
    double sum = 0;
    for (size_t g = 0; g < r->watts.g; g++)
        sum += r->watts.v[i * r->watts.g + g];
    return sum;
}

/* The check rule window_alignment's figure (summary.h, power_rise_lag_s):
 * do the requests run while power is up? The idle level is the run's
 * lowest total power plus RISE_SHARE of the way to its median over the
 * window; the figure is the longest stretch during which requests are in
 * flight and power stays below that level between two consecutive samples
 * (a stretch between a sample below and one above is not counted, so a
 * coarse sampling period never makes a stretch of its own). A window placed
 * seconds before the load (a RUNS.csv start too early, requests placed at
 * the run's start) shows as a stretch of those seconds, whatever power did
 * before the first request (a previous run's tail). */
#define RISE_SHARE 0.2
#define RISE_MIN_SHARE 0.1 /* high - low below this share of high: flat, skipped */
static jl_status alignment_figure(ctx *c)
{
    const jl_run *run = c->run;
    jl_summary *s = c->s;
    const size_t n = run->power_n;
    const double *pt = run->power_time;
    s->power_rise_skip = JL_RISE_NO_REQUESTS;
    if (!run->req_n || !run->arrival || !run->finish || !run->first_token)
        return JL_OK;
    s->power_rise_skip = JL_RISE_NO_WATTS;
    if (!run->watts.v || n < 2 || !isfinite(c->a) || !isfinite(c->b))
        return JL_OK;
    double low = INFINITY;
    size_t nw = 0;
    double *w = jl__malloc_array(n, sizeof *w);
    double *iv = jl__malloc_array(2 * run->req_n, sizeof *iv);
    if (!w || !iv) {
        free(w);
        free(iv);
        return JL_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        double x = watts_sum_row(run, i);
        if (!isfinite(x))
            continue;
        if (x < low)
            low = x;
        if (pt[i] >= c->a && pt[i] <= c->b)
            w[nw++] = x;
    }
    double high = NAN, q = 0.5;
    if (nw)
        jl__quantiles_d(w, nw, &q, 1, &high);
    free(w);
    size_t k = jl__requests_in_flight(run, iv);
    if (!k) {
        s->power_rise_skip = JL_RISE_NO_REQUESTS;
    } else if (!(high - low >= RISE_MIN_SHARE * high)) {
        s->power_rise_skip = JL_RISE_FLAT;
    } else {
        double level = low + RISE_SHARE * (high - low), longest = 0, run_len = 0;
        size_t j = 0; /* the in-flight interval at or after the current gap */
        for (size_t i = 0; i + 1 < n; i++) {
            double x0 = watts_sum_row(run, i), x1 = watts_sum_row(run, i + 1);
            double lo = pt[i], hi = pt[i + 1];
            if (!(x0 < level && x1 < level)) {
                run_len = 0;
                continue;
            }
            while (j < k && iv[2 * j + 1] <= lo)
                j++;
            /* the part of [lo, hi] inside the in-flight interval j (one gap
             * is short: intervals are not split within it) */
            double a = j < k ? fmax(lo, iv[2 * j]) : hi, b = j < k ? fmin(hi, iv[2 * j + 1]) : lo;
            if (b > a) {
                run_len = (a == lo ? run_len : 0) + (b - a);
                if (run_len > longest)
                    longest = run_len;
                if (b < hi)
                    run_len = 0;
            } else {
                run_len = 0;
            }
        }
        s->power_rise_lag_s = longest;
        s->power_rise_skip = JL_RISE_OK;
    }
    free(iv);
    return JL_OK;
}

/* itl/: the latency quantiles over the samples of completed requests, in
 * two passes over the samples block by block (jl_run_itl_blocks: the
 * arrays in memory, or the chunks of a streamed itl/), keeping none of
 * them (jl__qstream); pass 1 gathers the samples near its running
 * estimates, so that pass 2, when needed at all, stops at the last sample
 * a wanted bucket misses (no more chunks decoded). */
typedef struct {
    const double *fin;   /* requests/finish */
    unsigned char *done; /* [n_req] requests/finish finite, or NULL (no itl/request) */
    int all_done;        /* every done[] is 1 */
    size_t n_req;
    size_t out_of_range;
    int pass2_done; /* pass 2 stopped the walk: it has every sample it needs */
    int checked;    /* jl_run.itl_checked: every block finite, indices in range */
    jl__qstream qs;
} itl_walk;

enum { ITL_BLOCK = 1024 };

/* 1 unless every sample of xs[0..n) is finite and every index of rqs[0..n)
 * names a request (below R): the usual block, after which only done[]
 * decides. Four samples at a time without a branch (SSE2). */
static int itl_block_odd(const float *xs, const int32_t *rqs, size_t n, uint32_t R)
{
    size_t i = 0;
    int odd = R == 0 && n > 0;
#ifdef __SSE2__
    const __m128 absmask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff)),
                 inf = _mm_set1_ps(INFINITY);
    const __m128i flip = _mm_set1_epi32((int)0x80000000u),
                  lim = _mm_set1_epi32((int)((R - 1u) ^ 0x80000000u));
    __m128 okf = _mm_castsi128_ps(_mm_set1_epi32(-1));
    __m128i badq = _mm_setzero_si128();
    for (; i + 4 <= n; i += 4) {
        okf = _mm_and_ps(okf, _mm_cmplt_ps(_mm_and_ps(_mm_loadu_ps(xs + i), absmask), inf));
        __m128i k = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(rqs + i)), flip);
        badq = _mm_or_si128(badq, _mm_cmpgt_epi32(k, lim));
    }
    odd |= (int)(_mm_movemask_ps(okf) != 0xf) | (int)(_mm_movemask_epi8(badq) != 0);
#endif
    for (; i < n; i++)
        odd |= (int)!(fabsf(xs[i]) < INFINITY) | (int)((uint32_t)rqs[i] >= R);
    return odd;
}

/* The samples of xs[0..n) that count, into out (at most ITL_BLOCK):
 * finite, and (with itl/request) naming a request that finished; a finite
 * sample naming no request is counted in *bad. Without a branch per
 * sample. */
static size_t itl_keep(const itl_walk *w, const float *xs, const int32_t *rqs, size_t n, float *out,
                       size_t *bad)
{
    size_t m = 0;
    if (!w->done || !rqs) {
        for (size_t i = 0; i < n; i++) {
            float v = xs[i];
            out[m] = v;
            m += isfinite(v) != 0;
        }
        return m;
    }
    const unsigned char *done = w->done;
    const uint32_t R = (uint32_t)w->n_req;
    /* the usual block: every sample finite and naming a request (checked
     * without a branch per sample, vectorised); then only done[] decides,
     * and nothing at all when every request finished */
    if (w->checked || !itl_block_odd(xs, rqs, n, R)) {
        if (w->all_done) {
            memcpy(out, xs, n * sizeof *xs);
            return n;
        }
        for (size_t i = 0; i < n; i++) {
            out[m] = xs[i];
            m += done[(uint32_t)rqs[i]];
        }
        return m;
    }
    size_t nbad = 0;
    for (size_t i = 0; i < n; i++) {
        float v = xs[i];
        uint32_t rq = (uint32_t)rqs[i];
        size_t fin = isfinite(v) != 0, in = rq < R;
        nbad += fin & !in;
        out[m] = v;
        m += fin & done[in ? rq : 0] & in;
    }
    *bad += nbad;
    return m;
}

static jl_status itl_pass1(void *arg, const float *xs, const int32_t *rqs, size_t n, size_t row0)
{
    itl_walk *w = arg;
    float buf[ITL_BLOCK];
    (void)row0;
    for (size_t b = 0; b < n; b += ITL_BLOCK) {
        size_t e = n - b < ITL_BLOCK ? n - b : ITL_BLOCK;
        /* past the kept samples, a usual block (every sample finite and
         * naming a request) is filtered by done[] as it is counted */
        if (w->done && rqs && !w->all_done && jl__qstream_counting(&w->qs)) {
            if (w->checked || !itl_block_odd(xs + b, rqs + b, e, (uint32_t)w->n_req)) {
                jl__qstream_add_sel(&w->qs, xs + b, (const uint32_t *)(const void *)(rqs + b),
                                    w->done, e);
                continue;
            }
        }
        size_t m = itl_keep(w, xs + b, rqs ? rqs + b : NULL, e, buf, &w->out_of_range);
        jl_status st = jl__qstream_add_n(&w->qs, buf, m);
        if (st != JL_OK)
            return st;
    }
    return JL_OK;
}

static jl_status itl_pass2(void *arg, const float *xs, const int32_t *rqs, size_t n, size_t row0)
{
    itl_walk *w = arg;
    float buf[ITL_BLOCK];
    size_t bad = 0;
    (void)row0;
    for (size_t b = 0; b < n; b += ITL_BLOCK) {
        size_t e = n - b < ITL_BLOCK ? n - b : ITL_BLOCK;
        size_t m = itl_keep(w, xs + b, rqs ? rqs + b : NULL, e, buf, &bad);
        jl__qstream_add2_n(&w->qs, buf, m);
        if (jl__qstream_pass2_done(&w->qs)) {
            w->pass2_done = 1;
            return JL_ENODATA; /* stops the walk: no more decoding */
        }
    }
    return JL_OK;
}

static jl_status itl_figures(ctx *c, jl_error **err)
{
    const jl_run *run = c->run;
    jl_summary *s = c->s;
    jl_status st = JL_OK;
    if (!(run->itl_n > 0 && (run->itl_seconds || run->itl_stream)))
        return JL_OK;
    itl_walk w = {run->finish, NULL, 1, run->req_n, 0, 0, run->itl_checked, {0}};
    double q[4] = {0.5, 0.9, 0.95, 0.99}, o[4];
    TRY(jl__qstream_init(&w.qs));
    /* itl/request is there (in memory or streamed) when the run has one */
    if (run->req_n > 0 && (run->itl_request || run->itl_stream)) {
        if (!(w.done = malloc(run->req_n)))
            TRY(JL_ENOMEM);
        for (size_t i = 0; i < run->req_n; i++) {
            w.done[i] = isfinite(run->finish[i]) != 0;
            w.all_done &= w.done[i];
        }
    }
    /* in memory, checked by the reader and every sample counting (every
     * request finished, or no itl/request): the select runs on the column
     * itself, which pass 1 would only have copied whole (the same samples
     * in the same order, so the same result: jl__qstream_result selects
     * them with jl__quantiles_f) */
    if (!run->itl_stream && w.checked && (!w.done || w.all_done) &&
        run->itl_n <= JL__QSTREAM_KEEP_MAX &&
        jl__quantiles_fit_f(run->itl_seconds, run->itl_n, q, 4, o)) {
        if (run->itl_n >= JL__RADIX_MIN_N) /* a zero is +0.0, as there */
            for (int j = 0; j < 4; j++)
                o[j] += 0.0;
        goto figures;
    }
    TRY(jl__qstream_reserve(&w.qs, run->itl_n));
    TRY(jl__qstream_want(&w.qs, q, 4));
    TRY(jl_run_itl_blocks(run, itl_pass1, &w, err));
    int plan = jl__qstream_plan(&w.qs, q, 4);
    if (plan < 0)
        TRY(JL_ENOMEM);
    if (plan > 0) {
        st = jl_run_itl_blocks(run, itl_pass2, &w, err);
        if (st == JL_ENODATA && w.pass2_done)
            st = JL_OK;
        TRY(st);
    }
    if (w.out_of_range)
        WARN("itl_request_range", "%zu itl/request values name no row of requests/: left out",
             w.out_of_range);
    jl__qstream_result(&w.qs, q, 4, o);
figures:
    F(MEDIAN_ITL_S) = o[0];
    F(P90_ITL_S) = o[1];
    F(P95_ITL_S) = o[2];
    F(P99_ITL_S) = o[3];
end:
    free(w.done);
    jl__qstream_free(&w.qs);
    return st;
}

/* batches/ (diffusion, or a run without requests): energy per item, batch
 * latency, items per second. */
static void batch_figures(ctx *c)
{
    const jl_run *run = c->run;
    jl_summary *s = c->s;
    if (!(run->batch_n > 0 &&
          (s->steady_method == JL_STEADY_BATCHES ||
           (s->steady_method == JL_STEADY_SOURCE && (c->diffusion || run->req_n == 0)))))
        return;
    double e_sum = 0, items = 0, lat = 0;
    for (size_t i = 0; i < run->batch_n; i++) {
        e_sum += energy_between(c, run->batch_start[i], run->batch_end[i]);
        items += run->batch_size ? (double)run->batch_size[i] : NAN;
        lat += run->batch_end[i] - run->batch_start[i];
    }
    F(BATCH_LATENCY_S) = lat / (double)run->batch_n;
    F(ENERGY_PER_ITEM_J) = isfinite(c->E) ? ratio(e_sum, items) : NAN;
    F(ITEMS_PER_S) = ratio(items, c->dur);
}

/* gpu/: SM clock and utilisation over the window. */
static void gpu_figures(ctx *c)
{
    const jl_run *run = c->run;
    jl_summary *s = c->s;
    if (run->gpu_n > 0 && isfinite(c->a) && isfinite(c->b)) {
        F(AVG_SM_CLOCK_MHZ) = gpu_mean(run, &run->sm_clock_mhz, c->a, c->b);
        F(AVG_SM_UTIL) = gpu_mean(run, &run->sm_util, c->a, c->b);
    }
}

/* Every phase over the series, in the order their warnings appear. */
static jl_status summarize_series(ctx *c, jl_error **err)
{
    const jl_run *run = c->run;
    jl_status st = JL_OK;
    /* scratch for the request table (order statistics) */
    size_t scratch_n = run->req_n > run->batch_n ? run->req_n : run->batch_n;
    if (scratch_n && !(c->dscratch = jl__malloc_array(scratch_n, sizeof *c->dscratch)))
        return JL_ENOMEM;
    TRY(find_window(c));
    TRY(window_energy(c));
    TRY(power_figures(c));
    TRY(engine_figures(c));
    TRY(token_figures(c));
    TRY(request_figures(c));
    TRY(alignment_figure(c));
    TRY(itl_figures(c, err));
    batch_figures(c);
    gpu_figures(c);
    /* host/: the rest of the system over the same window */
    if (run->host_n > 0)
        TRY(jl__host_figures(run, c->opt, c->a, c->b, c->E,
                             c->s->fig[JL_FIG_STEADY_TOKENS] > 0 ? c->s->fig[JL_FIG_STEADY_TOKENS]
                                                                 : NAN,
                             EXTRAPOLATE_MAX_S, c->s));
    /* published figures beside the series (spec 1.1) */
    if (run->summary.present)
        TRY(attach_published(c));
    /* boundaries and the whole run (boundary.c) */
    TRY(jl__boundary_figures(run, c->opt, EXTRAPOLATE_MAX_S, c->s));
end:
    return st;
}

static void ctx_free(ctx *c)
{
    if (c->track)
        for (size_t g = 0; g < c->G; g++)
            jl__track_free(&c->track[g]);
    if (c->alt)
        for (size_t g = 0; g < c->G; g++)
            jl__track_free(&c->alt[g]);
    free(c->track);
    free(c->alt);
    free(c->track_block);
    free(c->src);
    free(c->cur);
    free(c->dscratch);
}

/* precision and workload in the trace format's vocabulary (bf16 ->
 * bfloat16: such runs pair with bfloat16 ones); a value outside it is kept
 * with a warning. */
static jl_status canonical_values(jl_summary *s)
{
    char **fields[2] = {&s->attrs.precision, &s->attrs.workload};
    static const char *const keys[2] = {"precision", "workload"};
    for (int k = 0; k < 2; k++) {
        char canon[64];
        if (!*fields[k] || !strcmp(*fields[k], "unknown"))
            continue;
        const char *why = jl_attrs_canonical_value(keys[k], *fields[k], canon, sizeof canon);
        if (why) {
            jl_status st =
                jl_summary_warn(s, "attribute_vocabulary", "%s '%s': %s", keys[k], *fields[k], why);
            if (st != JL_OK)
                return st;
        } else if (strcmp(canon, *fields[k])) {
            char *d = jl__strdup(canon);
            if (!d)
                return JL_ENOMEM;
            free(*fields[k]);
            *fields[k] = d;
        }
    }
    return JL_OK;
}

jl_status jl_summarize(const jl_run *run, const jl_summary_options *opt, jl_summary **out,
                       jl_error **err)
{
    assert(run && out);
    *out = NULL;
    jl_summary_options defaults;
    if (!opt) {
        jl_summary_options_default(&defaults);
        opt = &defaults;
    }
    if (!(opt->occupancy_share > 0 && opt->occupancy_share <= 1) ||
        !(opt->disagreement_warn >= 0) || !(opt->counter_restart_min_drop_j >= 0) ||
        !(opt->published_mark >= 0) || (opt->custom_window && !(opt->window[0] < opt->window[1])))
        return jl_fail(err, JL_EUSAGE, run->file, run->name, NULL, -1,
                       "invalid summary options (occupancy_share %g, "
                       "disagreement_warn %g, counter_restart_min_drop_j %g, window [%g, %g])",
                       opt->occupancy_share, opt->disagreement_warn,
                       opt->counter_restart_min_drop_j, opt->window[0], opt->window[1]);

    jl_status st = JL_OK;
    jl_error *const err_before = err ? *err : NULL;
    jl_summary *s = jl_summary_new();
    if (!s)
        return jl_fail(err, JL_ENOMEM, run->file, run->name, NULL, -1, "out of memory");
    ctx cx = {0};
    ctx *c = &cx;
    /* requests/ without one of its times cannot say which requests
     * completed or when: refused, never read as "all failed" (nor a NULL
     * dereferenced: the reader requires them, a run built in memory may not
     * have them) */
    if (run->req_n > 0 && (!run->arrival || !run->first_token || !run->finish)) {
        jl_summary_free(s);
        return jl_fail(err, JL_EINVALID, run->file, run->name,
                       !run->arrival       ? "requests/arrival"
                       : !run->first_token ? "requests/first_token"
                                           : "requests/finish",
                       -1,
                       "requests/ has %zu rows but no %s column: which requests completed, "
                       "and when, is unknown",
                       run->req_n,
                       !run->arrival       ? "arrival"
                       : !run->first_token ? "first_token"
                                           : "finish");
    }
    c->run = run;
    c->opt = opt;
    c->s = s;
    c->a = c->b = c->dur = c->E = NAN;
    c->diffusion = jl_attrs_is_diffusion(&run->attrs);
    s->file = jl__strdup(run->file);
    s->run = jl__strdup(run->name);
    if ((run->file && !s->file) || (run->name && !s->run)) {
        st = JL_ENOMEM;
        goto end;
    }
    TRY(jl_attrs_copy(&s->attrs, &run->attrs));
    TRY(canonical_values(s));

    /* G: the series' GPU axis (the reader checked it equals num_gpus, or is
     * 1 under @power_scope node_ac: one column for the node). */
    size_t G = run->attrs.num_gpus > 0 ? (size_t)run->attrs.num_gpus : 0;
    if (run->watts.v)
        G = run->watts.g;
    else if (run->energy_j.v)
        G = run->energy_j.g;
    c->G = G;
    s->num_gpus = G;

    c->has_power = run->power_n > 0 && (run->watts.v || run->energy_j.v);
    if (!c->has_power && run->summary.present)
        st = summarize_summary_only(c);
    else
        st = summarize_series(c, err);
    if (st == JL_OK) {
        int integrated = 0;
        for (size_t g = 0; c->src && g < G; g++)
            integrated |= c->src[g] == SRC_INTEGRAL;
        st = jl__summary_validity(run, s, c->a, c->b, integrated);
    }

end:
    ctx_free(c);
    /* a streamed itl/ is checked by its first whole walk (jl_run_itl_check,
     * trace.h): when no phase walked it, or one failed first, the check
     * decides, so a bad itl/ is this run's error as when the reader checked
     * it before the summary began */
    if (run->itl_stream && st != JL_ENOMEM) {
        jl_error *ie = NULL;
        jl_status ist = jl_run_itl_check(run, &ie);
        if (ist != JL_OK && ist != JL_ENOMEM) {
            st = ist;
            if (err && !err_before) { /* the first error wins: one set before this call stays */
                jl_error_free(*err);
                *err = ie;
                ie = NULL;
            }
        }
        jl_error_free(ie);
    }
    if (st != JL_OK) {
        jl_summary_free(s);
        return jl_fail(err, st, run->file, run->name, NULL, -1, "summarising the run failed: %s",
                       jl_strerror(st));
    }
    *out = s;
    return JL_OK;
}
