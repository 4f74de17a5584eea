/* What if: a configuration of a measured (model, task) that was not measured
 * -- another GPU count, GPU model or precision -- predicted from the measured
 * groups of the same model and task, the descriptors, and factors learned
 * across other models (joules/model.h, docs/model.md "What if"). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>

#include "core/stats.h"
#include "core/util.h"
#include "joules/ceiling.h"
#include "joules/model.h"
#include "joules/output.h"
#include "model/model_internal.h"

/* responses: ln energy per token, ln power, ln step time */
#define NR 3
/* features of a (source -> target) pair at a cap (wi_features): GPU-count
 * doublings dg, the GPU models' ln bandwidth ratio dm and ln bytes-per-
 * parameter ratio dp, with their interactions, and the roofline's step-time
 * ratio of the GPU-model and precision change */
#define NF 17
/* kinds of transfer, for the interval quantiles */
#define NK 4
/* sd (ln) per e-fold of extrapolating a source beyond its measured caps;
 * chosen on the what-if leave-one-out (0.15, 0.3, 0.6 tried: coverage
 * 90-96 % for all; the smallest kept; docs/model-accuracy.md) */
#define WI_EXT 0.15
/* fewest residuals of the reference-pair route to take its interval from */
#define WI_MIN_REF 20

const char *jl_transfer_name(jl_transfer t)
{
    switch (t) {
    case JL_TRANSFER_GPU_COUNT: return "gpu_count";
    case JL_TRANSFER_GPU_MODEL: return "gpu_model";
    case JL_TRANSFER_BOTH: return "both";
    case JL_TRANSFER_PRECISION: return "precision";
    default: return "none";
    }
}

/* The model id without a trailing precision suffix: an FP8/BF16 twin has the
 * same base. Writes into buf. */
static const char *base_model(const char *m, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", m ? m : "");
    size_t n = strlen(buf);
    static const char *const suf[] = {"-FP8", "-BF16", "-fp8", "-bf16"};
    for (size_t i = 0; i < sizeof suf / sizeof *suf; i++) {
        size_t k = strlen(suf[i]);
        if (n > k && !strcmp(buf + n - k, suf[i])) {
            buf[n - k] = '\0';
            break;
        }
    }
    return buf;
}

static int same_base(const char *a, const char *b)
{
    char x[256], y[256];
    return !strcmp(base_model(a, x, sizeof x), base_model(b, y, sizeof y));
}

/* jl_transfer_of of two keys whose models have the same base */
static jl_transfer transfer_same_base(const jl_group_key *s, const jl_group_key *t)
{
    if (!jl__str_eq(s->task, t->task))
        return JL_TRANSFER_NONE;
    if (!jl__str_eq(s->precision, t->precision) || !jl__str_eq(s->model, t->model))
        return JL_TRANSFER_PRECISION;
    int dg = s->num_gpus != t->num_gpus, dm = !jl__str_eq(s->gpu_model, t->gpu_model);
    return dg && dm
               ? JL_TRANSFER_BOTH
               : (dg ? JL_TRANSFER_GPU_COUNT : (dm ? JL_TRANSFER_GPU_MODEL : JL_TRANSFER_NONE));
}

jl_transfer jl_transfer_of(const jl_group_key *s, const jl_group_key *t)
{
    return same_base(s->model, t->model) ? transfer_same_base(s, t) : JL_TRANSFER_NONE;
}

/* ---- per-cap means of one group ------------------------------------------ */

typedef struct wi_sweep {
    size_t n;
    long cap[64];
    double lb[64], y[NR][64];
    double ctx[64]; /* mean context per running sequence (tokens): input + output/2 */
    double rho;     /* median achieved batch / cap */
} wi_sweep;

static int sweep_of(const jl_model_group *g, wi_sweep *w)
{
    memset(w, 0, sizeof *w);
    double r[512];
    size_t nr = 0;
    for (size_t i = 0; i < g->n_runs;) {
        long c = g->runs[i]->attrs.max_batch_size;
        double s[1 + NR] = {0}, cx = 0;
        size_t j = i;
        for (; j < g->n_runs && g->runs[j]->attrs.max_batch_size == c; j++) {
            const jl_summary *q = g->runs[j];
            double b = q->fig[JL_FIG_AVG_BATCH_SIZE], T = q->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S];
            s[0] += log(b);
            s[1] += log(jl__model_run_energy(q));
            s[2] += log(q->fig[JL_FIG_AVG_POWER_W]);
            s[3] += log(b / T);
            cx += jl_task_default_input_tokens(q->attrs.task) +
                  0.5 * q->fig[JL_FIG_AVG_OUTPUT_TOKENS];
            if (nr < 512)
                r[nr++] = b / (double)c;
        }
        if (w->n == 64)
            return -1;
        w->cap[w->n] = c;
        w->lb[w->n] = s[0] / (double)(j - i);
        w->ctx[w->n] = cx / (double)(j - i);
        for (int k = 0; k < NR; k++)
            w->y[k][w->n] = s[1 + k] / (double)(j - i);
        w->n++;
        i = j;
    }
    w->rho = nr ? jl__model_median(r, nr) : NAN;
    return w->n ? 0 : -1;
}

static long find_cap(const wi_sweep *w, long c)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->cap[i] == c)
            return (long)i;
    return -1;
}

/* ---- features --------------------------------------------------------------- */

typedef struct wi_ctx {
    const jl_model_group_list *gl;
    const jl_descriptors *desc;
    wi_sweep *sw; /* one per group */
    int *ok;      /* sweep usable */
    int *base;    /* per group: index of its base model (FP8/BF16 twins share one) */
    int nb;       /* base models */
    /* the GPU models of the groups (borrowed names), and per base model the
     * pairs of its groups (same task) on each two GPU models, [b][ga][gb]
     * both ways, and whether it has pairs of each kind, [b][kind] */
    const char **gpus;
    int ng;
    size_t *pair_n;
    int *kinds;
} wi_ctx;

static double gpu_bw(const wi_ctx *c, const char *gpu)
{
    const jl_gpu_desc *g = c->desc ? jl_descriptors_gpu(c->desc, gpu) : NULL;
    return g && g->hbm_bandwidth_bytes_s > 0 ? g->hbm_bandwidth_bytes_s : NAN;
}

static double bytes_per_param(const wi_ctx *c, const char *model)
{
    const jl_model_desc *m = c->desc ? jl_descriptors_model(c->desc, model) : NULL;
    return m && m->weight_bytes_per_param > 0 ? m->weight_bytes_per_param : NAN;
}

/* the index of cap c in w when measured, else of w's end cap nearer to it */
static size_t cap_index(const wi_sweep *w, long cap)
{
    long i = find_cap(w, cap);
    return i >= 0 ? (size_t)i : (cap > w->cap[w->n - 1] ? w->n - 1 : 0);
}

/* phi: the share of the source's step time at its cap i that streaming the
 * active weights once from HBM would take (1: memory-bound; small: other
 * costs dominate, which a faster GPU or more of them do not shorten).
 * *pm (when not NULL): the same of what a decode step reads -- the active
 * weights and the KV cache of the running sequences (the achieved batch at
 * the mean context, window-limited attention layers holding their window).
 * 0 where the descriptors lack what they need. */
static double phi_of(const wi_ctx *c, const jl_group_key *s, const wi_sweep *w, size_t i,
                     double *pm)
{
    const jl_model_desc *m = c->desc ? jl_descriptors_model(c->desc, s->model) : NULL;
    double bw = gpu_bw(c, s->gpu_model);
    if (pm)
        *pm = 0;
    if (!m || !(m->active_params > 0) || !(m->weight_bytes_per_param > 0) || !isfinite(bw))
        return 0;
    double tau = exp(w->y[2][i]), wb = m->active_params * m->weight_bytes_per_param;
    if (pm) {
        double kv = 0;
        if (m->kv_bytes_per_token > 0 && w->ctx[i] > 0)
            kv = exp(w->lb[i]) * w->ctx[i] * m->kv_bytes_per_token *
                 jl__model_window_scale(m, w->ctx[i]);
        *pm = fmin((wb + kv) / ((double)s->num_gpus * bw) / tau, 1.0);
    }
    return fmin(wb / ((double)s->num_gpus * bw) / tau, 1.0);
}

/* The long-context threshold (mean tokens of context per running sequence)
 * of the reasoning terms: 2,000, chosen on the what-if leave-one-out and
 * checked 2-fold by model (tests/model/whatif_2fold.py, which sets the
 * developer override JOULES_WHATIF_LONG_CONTEXT). */
static double long_context_tokens(void)
{
    const char *e = getenv("JOULES_WHATIF_LONG_CONTEXT");
    char *end = NULL;
    double v = e ? strtod(e, &end) : NAN;
    return e && end != e && v > 0 ? v : 2000.0;
}

/* 0 and x[NF], or -1 when a descriptor the transfer needs is missing */
static int wi_features(const wi_ctx *c, const jl_group_key *s, const jl_group_key *t,
                       const wi_sweep *w, long cap, double x[NF])
{
    double lc = log((double)cap) - log(64.0);
    double dg = log2((double)t->num_gpus / (double)s->num_gpus);
    double dm = 0, dp = 0;
    if (!jl__str_eq(s->gpu_model, t->gpu_model)) {
        dm = log(gpu_bw(c, t->gpu_model) / gpu_bw(c, s->gpu_model));
        if (!isfinite(dm))
            return -1;
    }
    if (!jl__str_eq(s->model, t->model) || !jl__str_eq(s->precision, t->precision)) {
        dp = log(bytes_per_param(c, t->model) / bytes_per_param(c, s->model));
        if (!isfinite(dp))
            return -1;
    }
    /* the source's figures at the cap, beyond its caps at the nearer end */
    size_t ci = cap_index(w, cap);
    double pm = 0, ph = phi_of(c, s, w, ci, dm != 0 || dp != 0 ? &pm : NULL);
    /* FP4 weights (MXFP4: native on B200, not on H100) */
    double f4 = bytes_per_param(c, s->model) < 0.9 ? 1 : 0;
    /* a long-context (reasoning) source, and on one GPU */
    double ctx = w->ctx[ci];
    double lg = ctx > long_context_tokens() ? 1 : 0, g1 = s->num_gpus == 1 ? lg : 0;
    /* u: the source's power as a share of its GPUs' TDP, ln (0 where the
     * descriptors lack the TDP). A source drawing near its power limit is
     * compute- or power-bound and gains more from a larger GPU or from more
     * of them than one idling on a per-step floor (1xB200 reasoning runs:
     * ~300 W of 1,000). A constant added to u is absorbed by the dm and dg
     * terms. */
    const jl_gpu_desc *gs = c->desc ? jl_descriptors_gpu(c->desc, s->gpu_model) : NULL;
    double u = 0;
    if (gs && gs->tdp_w > 0)
        u = w->y[1][ci] - log((double)s->num_gpus * gs->tdp_w);
    /* the roofline: the share pm of the source's step time that streams
     * memory scales with the ratio of bytes per parameter over bandwidth, the
     * rest stays; ln(1 - pm + pm x ratio) is the step-time ratio that alone
     * would give (0 for a GPU-count transfer, which its own terms carry).
     * Fitted without the target's model, its weight on ln step time comes out
     * near 0.3: the measured B200 gains less than its bandwidth promises
     * (docs/model-accuracy.md "A fifth round"). */
    double rf = dm != 0 || dp != 0 ? log(1 - pm + pm * exp(dp - dm)) : 0;
    double v[NF] = {dg,      dg * lc, dg * ph, dm,           dm * lc, dm * ph,      dp,
                    dp * lc, dm * f4, dm * lg, dm * lg * lc, dm * g1, dm * g1 * lc, dg * lg,
                    dm * u,  dg * u,  rf};
    memcpy(x, v, sizeof v);
    return 0;
}

/* ---- factors learned across models ------------------------------------------ */

typedef struct wi_factors {
    double w[NR][NF];
    double qlo[NR][NK], qhi[NR][NK]; /* 2.5 % / 97.5 % residual quantiles per kind */
    size_t n_pairs, n_kind[NK];
    /* the same of the reference-pair route (ref_ratio) */
    double rlo[NR][NK], rhi[NR][NK];
    size_t n_ref[NK];
} wi_factors;

static int kind_index(jl_transfer k)
{
    return k == JL_TRANSFER_GPU_COUNT
               ? 0
               : (k == JL_TRANSFER_GPU_MODEL ? 1 : (k == JL_TRANSFER_BOTH ? 2 : 3));
}

/* The q quantile of v[0..n) (sorted in place, NaN last). */
static double quantile(double *v, size_t n, double q)
{
    if (!n)
        return NAN;
    qsort(v, n, sizeof *v, jl__cmp_double);
    return jl__quantile_sorted(v, n, q);
}

static size_t ref_ratio(const wi_ctx *c, const jl_group_key *s, const jl_group_key *t, size_t skip,
                        int ex1, int ex2, long cap, int r, double *out);

/* Weighted least squares by IRLS towards least absolute deviations (30
 * passes, weights 1/max(|r|, 0.01)): the median-like fit is not pulled by the
 * few configurations measured in another regime. */
static int lad_fit(const double *X, const double *Y, size_t n, double w[NF])
{
    /* the rows padded to an even stride with zeros, so that the inner loop
     * of the normal equations runs in pairs of doubles with no remainder */
    enum { NFP = NF + (NF & 1) };
    double *wt = malloc(n * sizeof *wt), *Xp = calloc(n ? n * NFP : 1, sizeof *Xp);
    gsl_matrix *A = gsl_matrix_alloc(NF, NF);
    gsl_vector *bv = gsl_vector_alloc(NF), *xv = gsl_vector_alloc(NF);
    int rc = -1;
    if (!wt || !Xp || !A || !bv || !xv)
        goto end;
    for (size_t i = 0; i < n; i++) {
        wt[i] = 1;
        memcpy(Xp + i * NFP, X + i * NF, NF * sizeof *X);
    }
    for (int it = 0; it < 30; it++) {
        /* the normal equations in plain arrays (the element accessors of
         * gsl_matrix cost 80 % of the what-if leave-one-out) */
        double a[NF][NFP] = {{0}}, b[NF] = {0};
        for (size_t i = 0; i < n; i++) {
            const double *xi = Xp + i * NFP;
            for (int p = 0; p < NF; p++) {
                double xa = xi[p] * wt[i];
                b[p] += xa * Y[i];
                for (int q = p; q < NFP; q++) /* symmetric: the upper triangle */
                    a[p][q] += xa * xi[q];
            }
        }
        for (int p = 0; p < NF; p++)
            for (int q = 0; q < p; q++)
                a[p][q] = a[q][p];
        for (int p = 0; p < NF; p++) { /* a feature no pair exercises stays 0 */
            a[p][p] += 1e-6;
            gsl_vector_set(bv, (size_t)p, b[p]);
            for (int q = 0; q < NF; q++)
                gsl_matrix_set(A, (size_t)p, (size_t)q, a[p][q]);
        }
        if (gsl_linalg_cholesky_decomp1(A) || gsl_linalg_cholesky_solve(A, bv, xv))
            goto end;
        for (int p = 0; p < NF; p++)
            w[p] = gsl_vector_get(xv, (size_t)p);
        for (size_t i = 0; i < n; i++) {
            double r = Y[i];
            for (int p = 0; p < NF; p++)
                r -= X[i * NF + (size_t)p] * w[p];
            wt[i] = 1.0 / fmax(fabs(r), 0.01);
        }
    }
    rc = 0;
end:
    free(wt);
    free(Xp);
    gsl_matrix_free(A);
    gsl_vector_free(bv);
    gsl_vector_free(xv);
    return rc;
}

/* Learn the factors from every ordered pair of groups of the same (base
 * model, task) at their common caps, leaving out the base models ex1 and ex2
 * (-1: none; the target's model and its FP8/BF16 twin, and for the
 * calibration of the intervals the model held out beside it). */
static int learn_factors(const wi_ctx *c, int ex1, int ex2, wi_factors *f)
{
    const jl_model_group_list *gl = c->gl;
    size_t cap = 1024, n = 0;
    double *X = malloc(cap * NF * sizeof *X), *Y = malloc(cap * NR * sizeof *Y);
    int *K = malloc(cap * sizeof *K);
    double *RR[NR][NK] = {{NULL}};
    size_t nrr[NK] = {0}, crr[NK] = {0};
    int rc = -1;
    memset(f, 0, sizeof *f);
    if (!X || !Y || !K)
        goto end;
    for (size_t i = 0; i < gl->count; i++) {
        const jl_group_key *s = &gl->items[i].key;
        if (!c->ok[i] || c->base[i] == ex1 || c->base[i] == ex2)
            continue;
        for (size_t j = 0; j < gl->count; j++) {
            const jl_group_key *t = &gl->items[j].key;
            jl_transfer k = j == i || !c->ok[j] || c->base[j] != c->base[i]
                                ? JL_TRANSFER_NONE
                                : transfer_same_base(s, t);
            if (k == JL_TRANSFER_NONE)
                continue;
            const wi_sweep *ws = &c->sw[i], *wt = &c->sw[j];
            for (size_t a = 0; a < wt->n; a++) {
                long ia = find_cap(ws, wt->cap[a]);
                double x[NF];
                if (ia < 0 || wi_features(c, s, t, ws, wt->cap[a], x))
                    continue;
                if (n == cap) {
                    cap *= 2;
                    double *X2 = realloc(X, cap * NF * sizeof *X);
                    if (X2)
                        X = X2;
                    double *Y2 = realloc(Y, cap * NR * sizeof *Y);
                    if (Y2)
                        Y = Y2;
                    int *K2 = realloc(K, cap * sizeof *K);
                    if (K2)
                        K = K2;
                    if (!X2 || !Y2 || !K2)
                        goto end;
                }
                memcpy(X + n * NF, x, sizeof x);
                for (int r = 0; r < NR; r++)
                    Y[n * NR + (size_t)r] = wt->y[r][a] - ws->y[r][ia];
                K[n] = kind_index(k);
                n++;
                /* the residual of the reference-pair route on this pair: for
                 * the intervals of an uncalibrated prediction only, so not
                 * for the factors of the calibration (two models left out),
                 * whose predictions give their values alone */
                int ki = kind_index(k);
                double rr[NR];
                int okr = ex2 < 0;
                for (int r = 0; r < NR && okr; r++)
                    okr = ref_ratio(c, s, t, j, ex1, ex2, wt->cap[a], r, &rr[r]) > 0;
                if (!okr)
                    continue;
                if (nrr[ki] == crr[ki]) {
                    crr[ki] = crr[ki] ? 2 * crr[ki] : 256;
                    for (int r = 0; r < NR; r++) {
                        double *p2 = realloc(RR[r][ki], crr[ki] * sizeof *p2);
                        if (!p2)
                            goto end;
                        RR[r][ki] = p2;
                    }
                }
                for (int r = 0; r < NR; r++)
                    RR[r][ki][nrr[ki]] = wt->y[r][a] - ws->y[r][ia] - rr[r];
                nrr[ki]++;
            }
        }
    }
    f->n_pairs = n;
    if (n < NF)
        goto end;
    double *y = malloc(n * sizeof *y), *res = malloc(n * sizeof *res);
    if (!y || !res) {
        free(y);
        free(res);
        goto end;
    }
    rc = 0;
    for (int r = 0; r < NR && !rc; r++) {
        for (size_t i = 0; i < n; i++)
            y[i] = Y[i * NR + (size_t)r];
        if (lad_fit(X, y, n, f->w[r])) {
            rc = -1;
            break;
        }
        for (int k = 0; k < NK; k++) {
            size_t m = 0;
            for (size_t i = 0; i < n; i++) {
                if (K[i] != k)
                    continue;
                double e = y[i];
                for (int a = 0; a < NF; a++)
                    e -= X[i * NF + (size_t)a] * f->w[r][a];
                res[m++] = e;
            }
            f->n_kind[k] = m;
            f->qlo[r][k] = quantile(res, m, 0.025);
            f->qhi[r][k] = quantile(res, m, 0.975);
            f->n_ref[k] = nrr[k];
            f->rlo[r][k] = quantile(RR[r][k], nrr[k], 0.025);
            f->rhi[r][k] = quantile(RR[r][k], nrr[k], 0.975);
        }
    }
    free(y);
    free(res);
end:
    free(X);
    free(Y);
    free(K);
    for (int r = 0; r < NR; r++)
        for (int k = 0; k < NK; k++)
            free(RR[r][k]);
    return rc;
}

/* ---- a source's value at a cap it may not have measured ------------------- */

/* ln y_r of source group si at cap c: its per-cap mean when measured (*dx =
 * 0); else from its nearest measured end cap a, moved by the median
 * elasticity between a and c of the model's other sweeps that measured both,
 * except the target (skip): those of the target's task on the target's GPU
 * model if any, else those on the target's GPU model, else any (a source that
 * stopped early on the smaller GPU is walked along the larger one, where the
 * caps it did not reach were run); else interpolated / extrapolated log-log
 * along its own measured caps. *dx: |ln(c/a)| of the extrapolation (doubled
 * for the last fallback). */
static double source_at(const wi_ctx *c, size_t si, size_t skip, const jl_group_key *t, long cap,
                        int r, double *dx)
{
    const wi_sweep *w = &c->sw[si];
    long i = find_cap(w, cap);
    *dx = 0;
    if (i >= 0)
        return w->y[r][i];
    double lb = log(w->rho * (double)cap);
    size_t ia = 0;
    for (size_t k = 1; k < w->n; k++)
        if (fabs(log((double)w->cap[k] / (double)cap)) <
            fabs(log((double)w->cap[ia] / (double)cap)))
            ia = k;
    long a = w->cap[ia];
    *dx = fabs(log((double)cap / (double)a));
    int inside = cap > w->cap[0] && cap < w->cap[w->n - 1];
    if (!inside) {
        double sl[128];
        size_t ns = 0;
        const jl_group_key *s = &c->gl->items[si].key;
        for (int lev = 0; lev < 3 && !ns; lev++)
            for (size_t h = 0; h < c->gl->count && ns < 128; h++) {
                const jl_group_key *kh = &c->gl->items[h].key;
                if (h == si || h == skip || !c->ok[h] || !jl__str_eq(kh->model, s->model) ||
                    (lev < 2 && !jl__str_eq(kh->gpu_model, t->gpu_model)) ||
                    (lev < 1 && !jl__str_eq(kh->task, t->task)))
                    continue;
                long hc = find_cap(&c->sw[h], cap), ha = find_cap(&c->sw[h], a);
                if (hc < 0 || ha < 0 || fabs(c->sw[h].lb[hc] - c->sw[h].lb[ha]) < 1e-3)
                    continue;
                sl[ns++] =
                    (c->sw[h].y[r][hc] - c->sw[h].y[r][ha]) / (c->sw[h].lb[hc] - c->sw[h].lb[ha]);
            }
        if (ns)
            return w->y[r][ia] + jl__model_median(sl, ns) * (lb - w->lb[ia]);
        *dx *= 2;
    } else {
        *dx = 0.5 * *dx;
    }
    double x[64], y[64];
    for (size_t k = 0; k < w->n; k++) {
        x[k] = w->lb[k];
        y[k] = w->y[r][k];
    }
    /* caps ascend, and so do their achieved batches in every sweep here; a
     * sweep whose batches do not ascend is interpolated in cap order */
    for (size_t k = 1; k < w->n; k++)
        if (!(x[k] > x[k - 1]))
            for (size_t q = 0; q < w->n; q++)
                x[q] = log(w->rho * (double)w->cap[q]);
    return jl__model_interp(x, y, w->n, lb);
}

/* ---- the same transfer measured on the model's other configurations ------- */

/* The log-ratio (response r) of group b over group a at their common cap
 * nearest to cap: 0, or -1 when they share none. */
static int pair_ratio(const wi_ctx *c, size_t a, size_t b, long cap, int r, double *out)
{
    const wi_sweep *wa = &c->sw[a], *wb = &c->sw[b];
    long best = -1, bi = -1;
    double bd = HUGE_VAL;
    for (size_t q = 0; q < wb->n; q++) {
        long ia = find_cap(wa, wb->cap[q]);
        double d = fabs(log((double)wb->cap[q] / (double)cap));
        if (ia >= 0 && d < bd) {
            bd = d;
            best = ia;
            bi = (long)q;
        }
    }
    if (best < 0)
        return -1;
    *out = wb->y[r][bi] - wa->y[r][best];
    return 0;
}

/* The log-ratio (response r) of the same transfer s -> t measured on another
 * pair of groups (a, b) of the same models and task at other GPU counts of
 * the same ratio: a on s's GPU model and precision, b on t's, neither the
 * target (skip) nor of exclude's base. E.g. 1xH100 -> 1xB200 of a model whose
 * 2xH100 and 2xB200 are both measured. At their common cap nearest to cap.
 * Returns the number of pairs averaged into *out (0: none). Other tasks of
 * the same model were tried as references and made the GPU-model transfer
 * worse (docs/model-accuracy.md). */
static size_t ref_ratio(const wi_ctx *c, const jl_group_key *s, const jl_group_key *t, size_t skip,
                        int ex1, int ex2, long cap, int r, double *out)
{
    const jl_model_group_list *gl = c->gl;
    double sum = 0;
    size_t n = 0;
    for (size_t b = 0; b < gl->count; b++) {
        const jl_group_key *kb = &gl->items[b].key;
        if (b == skip || !c->ok[b] || c->base[b] == ex1 || c->base[b] == ex2 ||
            !jl__str_eq(kb->model, t->model) || !jl__str_eq(kb->task, t->task) ||
            !jl__str_eq(kb->gpu_model, t->gpu_model) || !jl__str_eq(kb->precision, t->precision) ||
            kb->num_gpus == t->num_gpus)
            continue;
        for (size_t a = 0; a < gl->count; a++) {
            const jl_group_key *ka = &gl->items[a].key;
            double v;
            if (a == skip || a == b || !c->ok[a] || !jl__str_eq(ka->model, s->model) ||
                !jl__str_eq(ka->task, t->task) || !jl__str_eq(ka->gpu_model, s->gpu_model) ||
                !jl__str_eq(ka->precision, s->precision) ||
                ka->num_gpus * t->num_gpus != kb->num_gpus * s->num_gpus ||
                pair_ratio(c, a, b, cap, r, &v))
                continue;
            sum += v;
            n++;
        }
    }
    if (n)
        *out = sum / (double)n;
    return n;
}

/* ---- the memory ceiling of the configuration -------------------------------- */

/* The memory ceiling of run's configuration changed to t (its median over
 * the source's runs is the what-if's). The run keeps its own GPU count, so
 * that what it measured on its own memory (the KV pool) is rescaled to t's
 * count by the arithmetic; on another GPU model that measurement does not
 * carry over: the new GPU's KV capacity comes from the descriptors, divided
 * by the tokens a sequence was measured to hold (when the run measured it),
 * else by the arithmetic's context. *assumed: on a per-task input length. */
static double memory_of(const wi_ctx *c, const jl_summary *run, const jl_group_key *t, int *assumed)
{
    jl_ceiling_options co;
    jl_ceiling_options_default(&co);
    jl_memory_ceiling m;
    jl_summary s = *run;
    jl_kv kept[64];
    double per_seq = NAN; /* tokens a sequence holds, measured on the run's GPU */
    if (!jl__str_eq(s.attrs.gpu_model, t->gpu_model)) {
        memset(&m, 0, sizeof m);
        if (jl_memory_ceiling_run(run, c->desc, &co, run->attrs.num_gpus, &m) != JL_OK)
            return NAN;
        per_seq = m.tokens_per_sequence;
        jl_memory_ceiling_clear(&m);
        s.attrs.gpu_model = t->gpu_model;
        s.attrs.gpu_memory_bytes = NAN;
        s.attrs.gpu_tdp_w = NAN;
        s.attrs.gpu_idle_power_w = NAN;
        s.fig[JL_FIG_AVG_KV_CACHE_USAGE] = NAN;
        s.published = NULL;
        size_t nk = 0;
        for (size_t i = 0; i < run->attrs.n_extra && nk < 64; i++)
            if (!jl__memory_own_gpu_key(run->attrs.extra[i].key))
                kept[nk++] = run->attrs.extra[i];
        s.attrs.extra = kept;
        s.attrs.n_extra = nk;
    }
    if (!jl__str_eq(s.attrs.model, t->model)) {
        s.attrs.model = t->model;
        s.attrs.total_params = s.attrs.active_params = s.attrs.kv_bytes_per_token = NAN;
    }
    s.attrs.precision = t->precision;
    memset(&m, 0, sizeof m);
    if (jl_memory_ceiling_run(&s, c->desc, &co, t->num_gpus, &m) != JL_OK)
        return NAN;
    double v = m.value;
    *assumed = jl_memory_ceiling_assumed(&m);
    if (isfinite(per_seq) && per_seq > 0 && isfinite(m.kv_capacity_tokens) &&
        m.kv_capacity_tokens > 0) {
        v = m.kv_capacity_tokens / per_seq;
        *assumed = 0;
    }
    jl_memory_ceiling_clear(&m);
    return v;
}

/* ---- prediction ---------------------------------------------------------- */

void jl_whatif_clear(jl_whatif *w)
{
    if (!w)
        return;
    jl_group_key_clear(&w->target);
    free(w->sources);
    free(w->points);
    memset(w, 0, sizeof *w);
}

static int default_caps(const wi_ctx *c, const jl_group_key *t, int bt, size_t skip, double mem,
                        long **out, size_t *n)
{
    long lo = 0, hi = 0;
    for (size_t i = 0; i < c->gl->count; i++) {
        const jl_group_key *k = &c->gl->items[i].key;
        if (i == skip || !c->ok[i] || !jl__str_eq(k->task, t->task) || c->base[i] != bt)
            continue;
        if (!lo || c->sw[i].cap[0] < lo)
            lo = c->sw[i].cap[0];
        if (c->sw[i].cap[c->sw[i].n - 1] > hi)
            hi = c->sw[i].cap[c->sw[i].n - 1];
    }
    *n = 0;
    *out = malloc(40 * sizeof **out);
    if (!*out)
        return -1;
    /* powers of two from the smallest measured cap to twice the largest, and
     * no further than the first one at or above the memory ceiling */
    for (long v = lo; lo > 0 && v <= 2 * hi && *n < 40; v *= 2) {
        (*out)[(*n)++] = v;
        if (isfinite(mem) && (double)v >= mem)
            break;
    }
    return 0;
}

static void ctx_clear(wi_ctx *c)
{
    free(c->sw);
    free(c->ok);
    free(c->base);
    free(c->gpus);
    free(c->pair_n);
    free(c->kinds);
}

/* The GPU-model pair tables of c (after the bases). 0, -1 on out-of-memory. */
static int ctx_pairs(wi_ctx *c)
{
    const jl_model_group_list *gl = c->gl;
    int *gi = calloc(gl->count ? gl->count : 1, sizeof *gi);
    c->gpus = calloc(gl->count ? gl->count : 1, sizeof *c->gpus);
    if (!gi || !c->gpus) {
        free(gi);
        return -1;
    }
    for (size_t i = 0; i < gl->count; i++) {
        int g = 0;
        while (g < c->ng && !jl__str_eq(c->gpus[g], gl->items[i].key.gpu_model))
            g++;
        if (g == c->ng)
            c->gpus[c->ng++] = gl->items[i].key.gpu_model;
        gi[i] = g;
    }
    size_t ng = (size_t)(c->ng ? c->ng : 1), nb = (size_t)(c->nb ? c->nb : 1);
    c->pair_n = calloc(nb * ng * ng, sizeof *c->pair_n);
    c->kinds = calloc(nb * NK, sizeof *c->kinds);
    if (!c->pair_n || !c->kinds) {
        free(gi);
        return -1;
    }
    for (size_t i = 0; i < gl->count; i++)
        for (size_t j = i + 1; j < gl->count; j++) {
            jl_transfer k = !c->ok[i] || !c->ok[j] || c->base[i] != c->base[j]
                                ? JL_TRANSFER_NONE
                                : transfer_same_base(&gl->items[i].key, &gl->items[j].key);
            if (k == JL_TRANSFER_NONE)
                continue;
            size_t b = (size_t)c->base[i], a = (size_t)gi[i], d = (size_t)gi[j];
            c->pair_n[b * ng * ng + a * ng + d]++;
            if (a != d)
                c->pair_n[b * ng * ng + d * ng + a]++;
            c->kinds[b * NK + (size_t)kind_index(k)] = 1;
        }
    free(gi);
    return 0;
}

static int ctx_init(wi_ctx *c, const jl_model_group_list *gl, const jl_descriptors *desc)
{
    memset(c, 0, sizeof *c);
    c->gl = gl;
    c->desc = desc;
    c->sw = calloc(gl->count ? gl->count : 1, sizeof *c->sw);
    c->ok = calloc(gl->count ? gl->count : 1, sizeof *c->ok);
    c->base = calloc(gl->count ? gl->count : 1, sizeof *c->base);
    if (!c->sw || !c->ok || !c->base) {
        ctx_clear(c);
        return -1;
    }
    for (size_t i = 0; i < gl->count; i++) {
        c->ok[i] = sweep_of(&gl->items[i], &c->sw[i]) == 0;
        size_t j = 0;
        while (j < i && !same_base(gl->items[j].key.model, gl->items[i].key.model))
            j++;
        c->base[i] = j < i ? c->base[j] : c->nb++;
    }
    if (ctx_pairs(c)) {
        ctx_clear(c);
        return -1;
    }
    return 0;
}

/* the base index of model m, -1 when no group has it */
static int base_of(const wi_ctx *c, const char *m)
{
    for (size_t i = 0; i < c->gl->count; i++)
        if (same_base(c->gl->items[i].key.model, m))
            return c->base[i];
    return -1;
}

/* ---- calibrated intervals ----------------------------------------------------

   The interval of a prediction comes from how far the same procedure missed
   on measured groups held out: split-conformal quantiles of ln(actual /
   predicted) per cell (below). In the leave-one-out they are the other
   models' groups, predicted with factors learned without the held-out model
   as well, so no part of an interval has seen the held-out model
   (docs/model.md "What if"). */

/* cells: kind (GPU count, GPU model, both) x workload (LLM, MLLM) x
 * extrapolated x route (the same transfer measured at another GPU count,
 * ref_ratio, or the factors): bits kind << 3 | mllm << 2 | extrapolated << 1
 * | reference */
#define NCELL 24
/* fewest residuals a cell's quantiles are taken from; fewer: the cell is
 * pooled over workload, then over extrapolation, then over route */
#define WI_MIN_CAL 40

typedef struct wi_cal {
    /* ln(actual / predicted); [NR]: the point's weight; [NR + 1]: its
     * extrapolation (e-folds from its sources' measured caps); [NR + 2]: the
     * index of its base model */
    double *res[NR + 3][NCELL];
    size_t n[NCELL], cap[NCELL];
    /* per cell, from the finest pooling with WI_MIN_CAL residuals */
    double lo[NR][NCELL], hi[NR][NCELL];
    size_t used[NCELL];   /* residuals behind the cell's quantiles; 0: none */
    double dx_max[NCELL]; /* the farthest extrapolation among them */
    size_t models[NCELL]; /* the base models they come from */
} wi_cal;

static int cell_of(jl_transfer k, int mllm, const jl_whatif_point *p)
{
    int ki = kind_index(k);
    return ki > 2 ? -1
                  : ki << 3 | (mllm ? 4 : 0) | (p->extrapolated ? 2 : 0) | (p->reference ? 1 : 0);
}

static int group_is_mllm(const jl_model_group *g)
{
    const char *w = g->n_runs ? g->runs[0]->attrs.workload : NULL;
    return w && !strcmp(w, "mllm");
}

static void cal_clear(wi_cal *cal)
{
    for (int r = 0; r <= NR + 2; r++)
        for (int k = 0; k < NCELL; k++)
            free(cal->res[r][k]);
    memset(cal, 0, sizeof *cal);
}

static int cal_push(wi_cal *cal, int cell, const double v[NR + 3])
{
    if (cal->n[cell] == cal->cap[cell]) {
        size_t nc = cal->cap[cell] ? 2 * cal->cap[cell] : 64;
        for (int r = 0; r <= NR + 2; r++) {
            double *p = realloc(cal->res[r][cell], nc * sizeof *p);
            if (!p)
                return -1;
            cal->res[r][cell] = p;
        }
        cal->cap[cell] = nc;
    }
    for (int r = 0; r <= NR + 2; r++)
        cal->res[r][cell][cal->n[cell]] = v[r];
    cal->n[cell]++;
    return 0;
}

typedef struct wv {
    double v, w;
} wv;

static int cmp_wv(const void *a, const void *b)
{
    double x = ((const wv *)a)->v, y = ((const wv *)b)->v;
    return (x > y) - (x < y);
}

/* the q quantile of n weighted values (sorted here): the smallest value
 * whose cumulative weight reaches q of the total */
static double wquantile(wv *a, size_t n, double q)
{
    qsort(a, n, sizeof *a, cmp_wv);
    double tot = 0, cum = 0;
    for (size_t i = 0; i < n; i++)
        tot += a[i].w;
    for (size_t i = 0; i < n; i++)
        if ((cum += a[i].w) >= q * tot)
            return a[i].v;
    return n ? a[n - 1].v : NAN;
}

/* the quantiles of each cell, pooled as WI_MIN_CAL asks */
static int cal_finish(wi_cal *cal, int nb)
{
    size_t tot = 0;
    for (int k = 0; k < NCELL; k++)
        tot += cal->n[k];
    wv *v = malloc((tot ? tot : 1) * sizeof *v);
    char *seen = malloc(nb > 0 ? (size_t)nb : 1);
    if (!v || !seen) {
        free(v);
        free(seen);
        return -1;
    }
    for (int k = 0; k < NCELL; k++) {
        cal->used[k] = 0;
        /* level 0: the cell; 1: both workloads; 2: and extrapolated or not;
         * 3: and either route */
        static const int masks[] = {~0, ~4, ~6, ~7};
        for (int lev = 0; lev < 4 && !cal->used[k]; lev++) {
            int mask = masks[lev];
            size_t m = 0;
            for (int h = 0; h < NCELL; h++)
                if ((h & mask) == (k & mask))
                    m += cal->n[h];
            if (m < WI_MIN_CAL)
                continue;
            for (int r = 0; r < NR; r++) {
                m = 0;
                for (int h = 0; h < NCELL; h++)
                    if ((h & mask) == (k & mask))
                        for (size_t i = 0; i < cal->n[h]; i++)
                            v[m++] = (wv){cal->res[r][h][i], cal->res[NR][h][i]};
                cal->lo[r][k] = wquantile(v, m, 0.025);
                cal->hi[r][k] = wquantile(v, m, 0.975);
            }
            cal->used[k] = m;
            cal->dx_max[k] = 0;
            cal->models[k] = 0;
            memset(seen, 0, (size_t)nb * sizeof *seen);
            for (int h = 0; h < NCELL; h++)
                if ((h & mask) == (k & mask))
                    for (size_t i = 0; i < cal->n[h]; i++) {
                        int b = (int)cal->res[NR + 2][h][i];
                        cal->dx_max[k] = fmax(cal->dx_max[k], cal->res[NR + 1][h][i]);
                        if (b >= 0 && b < nb && !seen[b]) {
                            seen[b] = 1;
                            cal->models[k]++;
                        }
                    }
        }
    }
    free(v);
    free(seen);
    return 0;
}

/* ---- thin evidence: intervals widened by stated rules ---------------------- */

/* The least half-width (ln) of an interval not calibrated on held-out
 * transfers: x/ 1.42, about the median half-width held-out calibration gives
 * the GPU-model transfers of the published ML.ENERGY data (37.9 %; GPU count
 * 56.2 %, both 26.4 %): the residuals of a few pairs' own fit say nothing of
 * how a new model transfers (docs/model.md "Thin evidence"). */
#define WI_THIN 0.35
/* sd (ln) per unit of |ln bandwidth ratio| of a GPU-model change no pair of
 * other models spans: the bandwidth's effect, learned on other GPU pairs,
 * taken as uncertain by its own size (95 %: from none to twice it) */
#define WI_PAIR 0.5
/* fewest models a calibration's held-out points must come from for its
 * quantiles to stand alone (fewer: floored at WI_THIN as well) */
#define WI_MIN_CAL_MODELS 3

const char *jl_whatif_widening_name(unsigned bit)
{
    switch (bit) {
    case JL_WHATIF_WIDE_FEW_PAIRS: return "few_pairs";
    case JL_WHATIF_WIDE_GPU_PAIR: return "gpu_pair_never_seen";
    case JL_WHATIF_WIDE_EXTRAPOLATED: return "extrapolated_beyond_calibration";
    default: return NULL;
    }
}

/* Pairs of groups of one (model, task) of a base other than ex, one on GPU
 * model ga and the other on gb, the number of other base models they are of
 * into *n_pair_models, and the number of distinct other base models with
 * pairs of transfer kind k into *n_models (from the tables of ctx_init). */
static size_t gpu_pairs(const wi_ctx *c, int ex, const char *ga, const char *gb, jl_transfer k,
                        size_t *n_pair_models, size_t *n_models)
{
    int ia = -1, ib = -1;
    for (int g = 0; g < c->ng; g++) {
        if (jl__str_eq(c->gpus[g], ga))
            ia = g;
        if (jl__str_eq(c->gpus[g], gb))
            ib = g;
    }
    size_t n = 0, ng = (size_t)c->ng;
    *n_models = *n_pair_models = 0;
    for (int b = 0; b < c->nb; b++) {
        if (b == ex)
            continue;
        if (ia >= 0 && ib >= 0) {
            size_t nb = c->pair_n[(size_t)b * ng * ng + (size_t)ia * ng + (size_t)ib];
            n += nb;
            *n_pair_models += nb > 0;
        }
        *n_models += c->kinds[(size_t)b * NK + (size_t)kind_index(k)] != 0;
    }
    return n;
}

/* ---- prediction, phase by phase --------------------------------------------- */

/* The sources of target: measured groups of the same (base model, task) of
 * the transfer asked for, else of the closest kind available (GPU count,
 * then GPU model, then both, then precision). JL_ENODATA when none. */
static jl_status pick_sources(const wi_ctx *c, const jl_group_key *target, jl_transfer only,
                              size_t skip, int bt, jl_whatif *out, jl_error **err)
{
    const jl_model_group_list *gl = c->gl;
    static const jl_transfer order[] = {JL_TRANSFER_GPU_COUNT, JL_TRANSFER_GPU_MODEL,
                                        JL_TRANSFER_BOTH, JL_TRANSFER_PRECISION};
    for (size_t o = 0; o < 4 && !out->n_sources; o++) {
        if (only != JL_TRANSFER_NONE && order[o] != only)
            continue;
        for (size_t i = 0; i < gl->count; i++)
            if (i != skip && c->ok[i] && c->base[i] == bt &&
                transfer_same_base(&gl->items[i].key, target) == order[o])
                out->sources[out->n_sources++] = i;
        if (out->n_sources)
            out->transfer = order[o];
    }
    if (out->n_sources)
        return JL_OK;
    return jl_fail(err, JL_ENODATA, NULL, NULL, NULL, -1,
                   "no measured group of %s on task %s to predict %ldx%s (%s) from%s: a what-if "
                   "needs the same model and task measured on another GPU count, GPU model or "
                   "precision",
                   target->model ? target->model : "?", target->task ? target->task : "?",
                   target->num_gpus, target->gpu_model ? target->gpu_model : "?",
                   target->precision ? target->precision : "?",
                   only != JL_TRANSFER_NONE ? " by that kind of transfer" : "");
}

/* The descriptors the transfer needs, and enough pairs of its kind.
 * JL_ENODATA naming what is missing. */
static jl_status check_transfer(const wi_ctx *c, const jl_group_key *target, const jl_whatif *out,
                                jl_error **err)
{
    double x[NF];
    size_t s = out->sources[0];
    const jl_group_key *s0 = &c->gl->items[s].key;
    if (wi_features(c, s0, target, &c->sw[s], c->sw[s].cap[0], x))
        return jl_fail(err, JL_ENODATA, NULL, NULL, NULL, -1,
                       "the descriptors (models/) lack the HBM bandwidth of %s or %s, or the "
                       "bytes per parameter of %s or %s: the %s transfer needs them",
                       s0->gpu_model, target->gpu_model, s0->model, target->model,
                       jl_transfer_name(out->transfer));
    if (out->n_pairs_kind < 3)
        return jl_fail(err, JL_ENODATA, NULL, NULL, NULL, -1,
                       "%zu pairs of configurations of other models differ by a %s transfer: "
                       "too few to learn its factor from",
                       out->n_pairs_kind, jl_transfer_name(out->transfer));
    return JL_OK;
}

/* The memory ceiling of the new configuration: the median over the first
 * source's runs, from the descriptors. */
static void memory_ceiling_of(const wi_ctx *c, const jl_group_key *target, jl_whatif *out)
{
    const jl_model_group *g0 = &c->gl->items[out->sources[0]];
    double v[512];
    size_t nv = 0;
    int assumed = 0;
    for (size_t i = 0; i < g0->n_runs && nv < 512; i++) {
        double m = memory_of(c, g0->runs[i], target, &assumed);
        if (isfinite(m))
            v[nv++] = m;
        out->memory_assumed |= assumed;
    }
    out->memory_ceiling = nv ? jl__model_median(v, nv) : NAN;
}

/* fewest other models measured on both GPU models for the factors to speak
 * for a change of the memory system alone: one model's pairs fit 17 factors
 * to one model's shape (the bundled 8B's H100/H200 pair moved the 1.7B's
 * energy by x0.73 where its own roofline gives x0.85) */
#define WI_MIN_GPU_PAIR_MODELS 3

/* 1 when s -> t changes only the GPU model, between two GPU models of the
 * same bf16 compute and power limit (within 1 %) on which fewer than
 * WI_MIN_GPU_PAIR_MODELS other models were measured, for a model
 * whose weights the descriptors size (without them the memory share of its
 * step is not known, and the roofline would say "no change": the factors
 * answer instead) */
static int bandwidth_only(const wi_ctx *c, const jl_group_key *s, const jl_group_key *t,
                          const jl_whatif *out)
{
    if (out->n_gpu_pair_models >= WI_MIN_GPU_PAIR_MODELS || !c->desc ||
        jl__str_eq(s->gpu_model, t->gpu_model) || s->num_gpus != t->num_gpus ||
        !jl__str_eq(s->model, t->model) || !jl__str_eq(s->precision, t->precision))
        return 0;
    const jl_model_desc *m = jl_descriptors_model(c->desc, s->model);
    if (!m || !(m->active_params > 0) || !(m->weight_bytes_per_param > 0))
        return 0;
    const jl_gpu_desc *a = jl_descriptors_gpu(c->desc, s->gpu_model),
                      *b = jl_descriptors_gpu(c->desc, t->gpu_model);
    return a && b && a->bf16_dense_flops > 0 && b->bf16_dense_flops > 0 && a->tdp_w > 0 &&
           b->tdp_w > 0 && fabs(b->bf16_dense_flops / a->bf16_dense_flops - 1) < 0.01 &&
           fabs(b->tdp_w / a->tdp_w - 1) < 0.01;
}

/* ln of each response at cap summed over the sources (those that measured
 * it, else all of them), each moved by the reference route or the factors:
 * est[], the sources used (the return), how many took the reference route,
 * and the smallest extrapolation distance among them. */
static size_t estimate_at(const wi_ctx *c, const wi_factors *fac, const jl_group_key *target,
                          size_t skip, const jl_whatif *out, long cap, double est[NR],
                          size_t *n_ref, double *dxm)
{
    const jl_model_group_list *gl = c->gl;
    size_t used = 0;
    *n_ref = 0;
    *dxm = HUGE_VAL;
    for (int pass = 0; pass < 2 && !used; pass++)
        for (size_t k = 0; k < out->n_sources; k++) {
            size_t si = out->sources[k];
            int measured = find_cap(&c->sw[si], cap) >= 0;
            if (pass == 0 && !measured)
                continue;
            double x[NF], v[NR], dx = 0;
            if (wi_features(c, &gl->items[si].key, target, &c->sw[si], cap, x))
                continue;
            double rr[NR];
            int okr = 1;
            for (int r = 0; r < NR && okr; r++)
                okr = ref_ratio(c, &gl->items[si].key, target, skip, -1, -1, cap, r, &rr[r]) > 0;
            /* a GPU-model change few other models were measured across,
             * between GPUs of the same compute and power limit (H100 ->
             * H200): only the memory system differs, and the factors
             * (learned on pairs where the compute changed too, or on one
             * model's pairs) do not speak for it; the source's own roofline
             * does: the memory share pm of its step time moved by the
             * bandwidth ratio (x[NF - 1]), its power held */
            int roof = !okr && out->roofline && bandwidth_only(c, &gl->items[si].key, target, out);
            for (int r = 0; r < NR; r++) {
                double d;
                v[r] = source_at(c, si, skip, target, cap, r, &d);
                dx = fmax(dx, d);
                if (okr)
                    v[r] += rr[r];
                else if (roof)
                    v[r] += r == 1 ? 0 : x[NF - 1];
                else
                    for (int a = 0; a < NF; a++)
                        v[r] += fac->w[r][a] * x[a];
            }
            *n_ref += okr;
            for (int r = 0; r < NR; r++)
                est[r] += v[r];
            *dxm = fmin(*dxm, dx);
            used++;
        }
    return used;
}

/* The intervals of point p (values m[] in ln, extrapolated dxm e-folds from
 * the sources' caps): the calibrated quantiles of its cell when it has them,
 * else the factors' residual quantiles widened for extrapolation, then
 * widened where the evidence is thin (the WI_* rules above). dm: the ln
 * bandwidth ratio of the GPU-model change, pair_seen: pairs of other models
 * on those GPU models. */
static void interval_at(const wi_factors *fac, const wi_cal *cal, int cell, int ki, size_t used,
                        size_t n_ref, double dxm, const double m[NR], double dm, size_t pair_seen,
                        jl_whatif_point *p)
{
    jl_interval *iv[NR] = {&p->energy_per_token_j, &p->power_w, &p->step_time_s};
    int calib = cell >= 0 && cal && cal->used[cell];
    p->calibrated = calib ? cal->used[cell] : 0;
    double extra = 0; /* variance added in quadrature (ln) */
    if (!calib || cal->models[cell] < WI_MIN_CAL_MODELS) {
        p->widened |= JL_WHATIF_WIDE_FEW_PAIRS;
        p->widen_floor = WI_THIN;
    }
    if (dm != 0 && !pair_seen) {
        p->widened |= JL_WHATIF_WIDE_GPU_PAIR;
        extra += (WI_PAIR * dm) * (WI_PAIR * dm);
    }
    /* extrapolated: per e-fold beyond the farthest held-out point of the
     * calibration, or without one, per e-fold from the measured caps */
    double beyond = calib ? dxm - cal->dx_max[cell] : dxm;
    if (beyond > 0) {
        double e = WI_EXT * beyond;
        p->widened |= JL_WHATIF_WIDE_EXTRAPOLATED;
        extra += e * e;
    }
    p->widen_sd = sqrt(extra);
    double z2 = 1.96 * 1.96 * extra;
    for (int r = 0; r < NR; r++) {
        double lo, hi;
        if (calib) { /* around the value even where the residuals lean one way */
            lo = fmin(cal->lo[r][cell], 0);
            hi = fmax(cal->hi[r][cell], 0);
        } else {
            /* the reference route's own residual quantiles when every source
             * took it and enough pairs of other models calibrate them */
            int rq = n_ref == used && fac->n_ref[ki] >= WI_MIN_REF;
            double ql = rq ? fac->rlo[r][ki] : fac->qlo[r][ki];
            double qh = rq ? fac->rhi[r][ki] : fac->qhi[r][ki];
            lo = -fabs(ql);
            hi = fabs(qh);
        }
        if (p->widen_floor > 0) {
            lo = fmin(lo, -p->widen_floor);
            hi = fmax(hi, p->widen_floor);
        }
        if (z2 > 0) {
            lo = -sqrt(lo * lo + z2);
            hi = sqrt(hi * hi + z2);
        }
        *iv[r] = (jl_interval){exp(m[r]), exp(m[r] + lo), exp(m[r] + hi)};
    }
}

/* One prediction point at cap (its batch, flags, values and intervals). */
static void predict_point(const wi_ctx *c, const wi_factors *fac, const wi_cal *cal,
                          const jl_group_key *target, size_t skip, const jl_whatif *out,
                          long sib_max, double rho, int mllm, double dm, long cap,
                          jl_whatif_point *p)
{
    p->cap = cap;
    double cb =
        isfinite(out->memory_ceiling) ? fmin((double)cap, out->memory_ceiling) : (double)cap;
    p->batch = rho * cb;
    p->beyond_ceiling = isfinite(out->memory_ceiling) && (double)cap > out->memory_ceiling;
    p->unlocked = cap > sib_max;
    double est[NR] = {0}, dxm;
    size_t n_ref;
    size_t used = estimate_at(c, fac, target, skip, out, cap, est, &n_ref, &dxm);
    p->n_sources = used;
    if (!used) {
        p->energy_per_token_j = p->power_w = p->step_time_s = (jl_interval){NAN, NAN, NAN};
        p->throughput_tok_s = NAN;
        return;
    }
    p->extrapolated = dxm > 0;
    p->extrapolation = dxm;
    p->reference = n_ref == used;
    double m[NR];
    for (int r = 0; r < NR; r++)
        m[r] = est[r] / (double)used;
    int cell = cal ? cell_of(out->transfer, mllm, p) : -1;
    interval_at(fac, cal, cell, kind_index(out->transfer), used, n_ref, dxm, m, dm, out->n_gpu_pair,
                p);
    /* power within [0, G x TDP] */
    const jl_gpu_desc *gd = c->desc ? jl_descriptors_gpu(c->desc, target->gpu_model) : NULL;
    if (gd && gd->tdp_w > 0)
        p->power_w.hi =
            fmin(p->power_w.hi, fmax(p->power_w.value, (double)target->num_gpus * gd->tdp_w));
    p->throughput_tok_s = p->batch / p->step_time_s.value;
}

/* The prediction with the factors learned without the target's model (fac,
 * NULL: learned here), its intervals from cal where a cell has them (NULL:
 * from the factors' own residuals), widened where the evidence is thin. */
static jl_status predict_core(const wi_ctx *c, const wi_factors *facp, const wi_cal *cal,
                              const jl_group_key *target, jl_transfer only, const long *caps,
                              size_t n_caps, jl_whatif *out, jl_error **err)
{
    const jl_model_group_list *gl = c->gl;
    memset(out, 0, sizeof *out);
    long *dcaps = NULL;
    jl_status st = JL_OK;
    size_t skip = (size_t)-1;
    for (size_t i = 0; i < gl->count; i++)
        if (!jl_group_key_cmp(&gl->items[i].key, target))
            skip = i; /* the configuration itself, when measured: never used */
    int bt = base_of(c, target->model);
    out->target.model = jl__strdup(target->model);
    out->target.task = jl__strdup(target->task);
    out->target.gpu_model = jl__strdup(target->gpu_model);
    out->target.precision = jl__strdup(target->precision);
    out->target.num_gpus = target->num_gpus;
    out->memory_ceiling = NAN;
    out->sources = calloc(gl->count ? gl->count : 1, sizeof *out->sources);
    if (!out->target.model || !out->target.task || !out->target.gpu_model ||
        !out->target.precision || !out->sources)
        goto oom;
    if ((st = pick_sources(c, target, only, skip, bt, out, err)) != JL_OK)
        goto fail;
    wi_factors fac;
    if (facp)
        fac = *facp;
    else if (learn_factors(c, bt, -1, &fac)) {
        st = jl_fail(err, JL_ENODATA, NULL, NULL, NULL, -1,
                     "too few measured pairs of configurations of other models (%zu) to learn "
                     "the transfer factors from",
                     fac.n_pairs);
        goto fail;
    }
    out->n_pairs = fac.n_pairs;
    out->n_pairs_kind = fac.n_kind[kind_index(out->transfer)];
    if ((st = check_transfer(c, target, out, err)) != JL_OK)
        goto fail;
    const jl_group_key *s0 = &gl->items[out->sources[0]].key;
    out->n_gpu_pair = gpu_pairs(c, bt, s0->gpu_model, target->gpu_model, out->transfer,
                                &out->n_gpu_pair_models, &out->n_models_kind);
    double dm = jl__str_eq(s0->gpu_model, target->gpu_model)
                    ? 0
                    : log(gpu_bw(c, target->gpu_model) / gpu_bw(c, s0->gpu_model));
    out->gpu_pair_sd = dm != 0 && !out->n_gpu_pair ? WI_PAIR * fabs(dm) : 0;
    out->roofline = bandwidth_only(c, s0, target, out);
    memory_ceiling_of(c, target, out);
    long sib_max = 0;
    for (size_t i = 0; i < gl->count; i++)
        if (i != skip && c->ok[i] && jl__str_eq(gl->items[i].key.model, target->model) &&
            jl__str_eq(gl->items[i].key.task, target->task) &&
            c->sw[i].cap[c->sw[i].n - 1] > sib_max)
            sib_max = c->sw[i].cap[c->sw[i].n - 1];
    if (!caps || !n_caps) {
        if (default_caps(c, target, bt, skip, out->memory_ceiling, &dcaps, &n_caps))
            goto oom;
        caps = dcaps;
    }
    out->points = calloc(n_caps ? n_caps : 1, sizeof *out->points);
    if (!out->points)
        goto oom;
    int mllm = group_is_mllm(&gl->items[out->sources[0]]);
    double rho = 0;
    for (size_t k = 0; k < out->n_sources; k++)
        rho += c->sw[out->sources[k]].rho / (double)out->n_sources;
    for (size_t q = 0; q < n_caps; q++)
        if (caps[q] >= 1)
            predict_point(c, &fac, cal, target, skip, out, sib_max, rho, mllm, dm, caps[q],
                          &out->points[out->n_points++]);
    free(dcaps);
    return JL_OK;
oom:
    st = jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "what-if prediction");
fail:
    free(dcaps);
    jl_whatif_clear(out);
    return st;
}

/* ---- factors learned without one or two models, cached --------------------- */

typedef struct wi_fcache {
    const wi_ctx *c;
    wi_factors **f; /* [a * (nb + 1) + b + 1], a <= b or b = -1 */
    int *tried;
} wi_fcache;

static int fcache_init(wi_fcache *fc, const wi_ctx *c)
{
    size_t n = (size_t)(c->nb ? c->nb : 1) * (size_t)(c->nb + 1);
    fc->c = c;
    fc->f = calloc(n, sizeof *fc->f);
    fc->tried = calloc(n, sizeof *fc->tried);
    return fc->f && fc->tried ? 0 : -1;
}

static void fcache_clear(wi_fcache *fc)
{
    if (!fc->c)
        return;
    size_t n = (size_t)(fc->c->nb ? fc->c->nb : 1) * (size_t)(fc->c->nb + 1);
    for (size_t i = 0; fc->f && i < n; i++)
        free(fc->f[i]);
    free(fc->f);
    free(fc->tried);
}

/* the factors without bases a and b (b = -1: a only); NULL when they cannot
 * be learned (*oom set on allocation failure) */
static const wi_factors *fcache_get(wi_fcache *fc, int a, int b, int *oom)
{
    if (b >= 0 && b < a) {
        int t = a;
        a = b;
        b = t;
    }
    size_t i = (size_t)a * (size_t)(fc->c->nb + 1) + (size_t)(b + 1);
    if (!fc->tried[i]) {
        fc->tried[i] = 1;
        fc->f[i] = malloc(sizeof **fc->f);
        if (!fc->f[i])
            *oom = 1;
        else if (learn_factors(fc->c, a, b, fc->f[i])) {
            free(fc->f[i]);
            fc->f[i] = NULL;
        }
    }
    return fc->f[i];
}

/* Group t held out and predicted by transfer k with factors f; calls back
 * for each of its runs at a predicted cap. Returns -1 on allocation
 * failure, 0 otherwise (also when the group cannot be predicted so). */
typedef int (*wi_run_fn)(void *arg, size_t t, jl_transfer k, const jl_summary *run,
                         const jl_whatif_point *wp);

static int heldout_group(const wi_ctx *c, const wi_factors *f, const wi_cal *cal, size_t t,
                         jl_transfer k, wi_run_fn fn, void *arg)
{
    const jl_model_group *g = &c->gl->items[t];
    long caps[64];
    for (size_t i = 0; i < c->sw[t].n; i++)
        caps[i] = c->sw[t].cap[i];
    jl_whatif w;
    jl_error *e = NULL;
    jl_status st = predict_core(c, f, cal, &g->key, k, caps, c->sw[t].n, &w, &e);
    jl_error_free(e);
    if (st != JL_OK)
        return st == JL_ENOMEM ? -1 : 0;
    int rc = 0;
    for (size_t r = 0; r < g->n_runs && !rc; r++) {
        const jl_summary *s = g->runs[r];
        for (size_t q = 0; q < w.n_points; q++)
            if (w.points[q].cap == s->attrs.max_batch_size) {
                rc = fn(arg, t, k, s, &w.points[q]);
                break;
            }
    }
    jl_whatif_clear(&w);
    return rc;
}

static const jl_transfer wi_kinds[] = {JL_TRANSFER_GPU_COUNT, JL_TRANSFER_GPU_MODEL,
                                       JL_TRANSFER_BOTH};

typedef struct cal_arg {
    const wi_ctx *c;
    wi_cal *cal;
} cal_arg;

static int cal_run(void *arg, size_t t, jl_transfer k, const jl_summary *s,
                   const jl_whatif_point *wp)
{
    cal_arg *a = arg;
    double b = s->fig[JL_FIG_AVG_BATCH_SIZE], T = s->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S];
    /* each group weighs the same, however many runs it has */
    double v[NR + 3] = {log(jl__model_run_energy(s) / wp->energy_per_token_j.value),
                        log(s->fig[JL_FIG_AVG_POWER_W] / wp->power_w.value),
                        log(b / T / wp->step_time_s.value),
                        1.0 / (double)a->c->gl->items[t].n_runs,
                        wp->extrapolation,
                        (double)a->c->base[t]};
    for (int r = 0; r < NR; r++)
        if (!isfinite(v[r]))
            return 0;
    int cell = cell_of(k, group_is_mllm(&a->c->gl->items[t]), wp);
    return cell < 0 ? 0 : cal_push(a->cal, cell, v);
}

/* The residuals of every group of a model other than base ex (-1: of every
 * model), held out and predicted by each kind with the factors learned
 * without its own model and without ex. */
static int cal_build(const wi_ctx *c, wi_fcache *fc, int ex, wi_cal *cal)
{
    memset(cal, 0, sizeof *cal);
    cal_arg a = {c, cal};
    for (size_t t = 0; t < c->gl->count; t++) {
        if (!c->ok[t] || c->base[t] == ex)
            continue;
        int oom = 0;
        const wi_factors *f = fcache_get(fc, c->base[t], ex, &oom);
        if (oom)
            return -1;
        for (size_t k = 0; f && k < 3; k++)
            if (heldout_group(c, f, NULL, t, wi_kinds[k], cal_run, &a))
                return -1;
    }
    return cal_finish(cal, c->nb);
}

struct jl_whatif_engine {
    wi_ctx c;
    wi_fcache fc;
    wi_cal cal;
    int cal_built;
};

void jl_whatif_engine_free(jl_whatif_engine *e)
{
    if (!e)
        return;
    cal_clear(&e->cal);
    fcache_clear(&e->fc);
    ctx_clear(&e->c);
    free(e);
}

jl_status jl_whatif_engine_new(const jl_model_group_list *gl, const jl_descriptors *desc,
                               jl_whatif_engine **out, jl_error **err)
{
    *out = calloc(1, sizeof **out);
    if (!*out || ctx_init(&(*out)->c, gl, desc) || fcache_init(&(*out)->fc, &(*out)->c)) {
        jl_whatif_engine_free(*out);
        *out = NULL;
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "what-if prediction");
    }
    return JL_OK;
}

jl_status jl_whatif_engine_predict(jl_whatif_engine *e, const jl_group_key *target,
                                   jl_transfer only, const long *caps, size_t n_caps,
                                   jl_whatif *out, jl_error **err)
{
    gsl_set_error_handler_off();
    memset(out, 0, sizeof *out);
    /* the intervals: residuals of every measured group held out (the
     * target, when measured, among them: its own prediction never uses it) */
    if (!e->cal_built) {
        if (cal_build(&e->c, &e->fc, -1, &e->cal)) {
            cal_clear(&e->cal);
            return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "what-if prediction");
        }
        e->cal_built = 1;
    }
    int oom = 0, bt = base_of(&e->c, target->model);
    const wi_factors *f = bt >= 0 ? fcache_get(&e->fc, bt, -1, &oom) : NULL;
    if (oom)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "what-if prediction");
    /* f NULL: predict_core learns them again and says why it cannot */
    return predict_core(&e->c, f, &e->cal, target, only, caps, n_caps, out, err);
}

jl_status jl_whatif_predict(const jl_model_group_list *gl, const jl_descriptors *desc,
                            const jl_group_key *target, jl_transfer only, const long *caps,
                            size_t n_caps, jl_whatif *out, jl_error **err)
{
    memset(out, 0, sizeof *out);
    jl_whatif_engine *e;
    jl_status st = jl_whatif_engine_new(gl, desc, &e, err);
    if (st == JL_OK)
        st = jl_whatif_engine_predict(e, target, only, caps, n_caps, out, err);
    jl_whatif_engine_free(e);
    return st;
}

/* ---- held out: every group predicted from the others ------------------------ */

void jl_whatif_loo_clear(jl_whatif_loo *r)
{
    if (!r)
        return;
    free(r->points);
    memset(r, 0, sizeof *r);
}

typedef struct loo_arg {
    jl_whatif_loo *out;
} loo_arg;

static int loo_run(void *arg, size_t t, jl_transfer k, const jl_summary *s,
                   const jl_whatif_point *wp)
{
    loo_arg *a = arg;
    jl_whatif_loo_point *p = &a->out->points[a->out->count++];
    p->run = s;
    p->group = t;
    p->transfer = k;
    p->max_batch_size = s->attrs.max_batch_size;
    p->actual_energy_per_token_j = jl__model_run_energy(s);
    p->predicted = wp->energy_per_token_j;
    p->abs_rel_error =
        fabs(p->predicted.value - p->actual_energy_per_token_j) / p->actual_energy_per_token_j;
    p->unlocked = wp->unlocked;
    p->extrapolated = wp->extrapolated;
    p->calibrated = wp->calibrated;
    p->widened = wp->widened;
    return 0;
}

jl_status jl_whatif_loo_run(const jl_model_group_list *gl, const jl_descriptors *desc,
                            jl_whatif_loo *out, jl_error **err)
{
    return jl__whatif_loo_run(gl, desc, NULL, NULL, NULL, out, err);
}

jl_status jl__whatif_loo_run(const jl_model_group_list *gl, const jl_descriptors *desc,
                             const char *only_model, jl_model_progress_fn progress,
                             void *progress_ctx, jl_whatif_loo *out, jl_error **err)
{
    gsl_set_error_handler_off();
    memset(out, 0, sizeof *out);
    wi_ctx c;
    if (ctx_init(&c, gl, desc))
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "what-if leave-one-out");
    size_t cap = 0;
    for (size_t i = 0; i < gl->count; i++)
        cap += 3 * gl->items[i].n_runs;
    out->points = calloc(cap ? cap : 1, sizeof *out->points);
    wi_fcache fc = {0};
    wi_cal *cals = calloc(c.nb ? (size_t)c.nb : 1, sizeof *cals);
    int *built = calloc(c.nb ? (size_t)c.nb : 1, sizeof *built);
    jl_status st = JL_OK;
    if (!out->points || !cals || !built || fcache_init(&fc, &c))
        goto oom;
    loo_arg a = {out};
    /* each group held out: predicted with the factors learned without its
     * model, its intervals from the other models' groups held out with
     * factors learned without its model too (built once per model) */
    char name[512];
    for (size_t t = 0; t < gl->count; t++) {
        int b = c.base[t], oom = 0;
        if (progress) {
            const jl_group_key *k = &gl->items[t].key;
            snprintf(name, sizeof name, "%s %s %ldx%s", k->model ? k->model : "?",
                     k->task ? k->task : "?", k->num_gpus, k->gpu_model ? k->gpu_model : "?");
            progress(progress_ctx, "what-if held out", t, gl->count, name);
        }
        if (!c.ok[t] || (only_model && !same_base(gl->items[t].key.model, only_model)))
            continue;
        const wi_factors *f = fcache_get(&fc, b, -1, &oom);
        if (oom)
            goto oom;
        if (!f)
            continue;
        if (!built[b]) {
            built[b] = 1;
            if (cal_build(&c, &fc, b, &cals[b]))
                goto oom;
        }
        for (size_t k = 0; k < 3; k++)
            if (heldout_group(&c, f, &cals[b], t, wi_kinds[k], loo_run, &a))
                goto oom;
    }
    if (progress)
        progress(progress_ctx, "what-if held out", gl->count, gl->count, NULL);
    goto end;
oom:
    st = jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "what-if leave-one-out");
    jl_whatif_loo_clear(out);
end:
    for (int b = 0; cals && b < c.nb; b++)
        cal_clear(&cals[b]);
    free(cals);
    free(built);
    fcache_clear(&fc);
    ctx_clear(&c);
    return st;
}

static int wl_selected(const jl_whatif_loo_point *p, jl_transfer k, const char *workload)
{
    if (k != JL_TRANSFER_NONE && p->transfer != k)
        return 0;
    if (!workload)
        return 1;
    return p->run->attrs.workload && !strcmp(p->run->attrs.workload, workload);
}

jl_loo_stats jl_whatif_loo_summarize(const jl_whatif_loo *r, jl_transfer k, const char *workload)
{
    jl_loo_result tmp = {calloc(r->count ? r->count : 1, sizeof(jl_loo_point)), 0};
    jl_loo_stats st = {0, NAN, NAN, NAN, NAN, NAN};
    if (!tmp.points)
        return st;
    for (size_t i = 0; i < r->count; i++) {
        const jl_whatif_loo_point *p = &r->points[i];
        if (!wl_selected(p, k, workload))
            continue;
        jl_loo_point *q = &tmp.points[tmp.count++];
        q->run = p->run;
        q->actual_energy_per_token_j = p->actual_energy_per_token_j;
        q->predicted_energy_per_token_j = p->predicted.value;
        q->predicted_lo_j = p->predicted.lo;
        q->predicted_hi_j = p->predicted.hi;
        q->abs_rel_error = p->abs_rel_error;
    }
    st = jl_loo_summarize(&tmp, NULL);
    jl_loo_result_clear(&tmp);
    return st;
}

/* ---- documents ------------------------------------------------------------- */

json_t *jl__whatif_widened_json(unsigned widened)
{
    json_t *a = json_array();
    for (unsigned bit = 1; a && bit <= JL_WHATIF_WIDE_EXTRAPOLATED; bit <<= 1)
        if (widened & bit)
            json_array_append_new(a, json_string(jl_whatif_widening_name(bit)));
    return a;
}

static void jset(json_t *o, const char *k, json_t *v)
{
    if (o && v)
        json_object_set_new(o, k, v);
    else
        json_decref(v);
}

/* The re-measurement spread: |e1/e2 - 1| between runs of one group at one
 * cap (the __dupN runs of an import), over the groups of gl. */
static void noise_floor(const jl_model_group_list *gl, double *mn, double *mx, size_t *n)
{
    *mn = HUGE_VAL;
    *mx = -HUGE_VAL;
    *n = 0;
    for (size_t g = 0; g < gl->count; g++)
        for (size_t i = 0; i + 1 < gl->items[g].n_runs; i++) {
            const jl_summary *a = gl->items[g].runs[i], *b = gl->items[g].runs[i + 1];
            if (a->attrs.max_batch_size != b->attrs.max_batch_size)
                continue;
            double d = fabs(jl__model_run_energy(a) / jl__model_run_energy(b) - 1);
            *mn = fmin(*mn, d);
            *mx = fmax(*mx, d);
            (*n)++;
        }
    if (!*n)
        *mn = *mx = NAN;
}

json_t *jl_whatif_loo_to_json(const jl_whatif_loo *r, const jl_model_group_list *gl)
{
    json_t *o = json_object(), *pts = json_array(), *sum = json_object();
    if (!o || !pts || !sum) {
        json_decref(o);
        json_decref(pts);
        json_decref(sum);
        return NULL;
    }
    for (size_t i = 0; i < r->count; i++) {
        const jl_whatif_loo_point *p = &r->points[i];
        const jl_group_key *k = &gl->items[p->group].key;
        json_t *po = json_object();
        jset(po, "transfer", json_string(jl_transfer_name(p->transfer)));
        jset(po, "model", json_string(k->model));
        jset(po, "task", json_string(k->task));
        jset(po, "gpu_model", json_string(k->gpu_model));
        jset(po, "num_gpus", json_integer((json_int_t)k->num_gpus));
        jset(po, "precision", json_string(k->precision));
        jset(po, "workload",
             p->run->attrs.workload ? json_string(p->run->attrs.workload) : json_null());
        jset(po, "run", p->run->run ? json_string(p->run->run) : json_null());
        jset(po, "max_batch_size", json_integer((json_int_t)p->max_batch_size));
        jset(po, "actual_energy_per_token_j", jl_json_number(p->actual_energy_per_token_j));
        jset(po, "predicted_energy_per_token_j", jl_json_number(p->predicted.value));
        jset(po, "predicted_energy_per_token_lo_j", jl_json_number(p->predicted.lo));
        jset(po, "predicted_energy_per_token_hi_j", jl_json_number(p->predicted.hi));
        jset(po, "abs_rel_error", jl_json_number(p->abs_rel_error));
        jset(po, "unlocked", json_boolean(p->unlocked));
        jset(po, "extrapolated", json_boolean(p->extrapolated));
        jset(po, "interval_calibration_points", json_integer((json_int_t)p->calibrated));
        jset(po, "interval_widened", jl__whatif_widened_json(p->widened));
        json_array_append_new(pts, po);
    }
    json_t *per = json_object();
    for (size_t i = 0; i < 3; i++) {
        json_t *t = json_object();
        jset(t, "all", jl__model_loo_stats_json(jl_whatif_loo_summarize(r, wi_kinds[i], NULL)));
        jset(t, "llm", jl__model_loo_stats_json(jl_whatif_loo_summarize(r, wi_kinds[i], "llm")));
        jset(t, "mllm", jl__model_loo_stats_json(jl_whatif_loo_summarize(r, wi_kinds[i], "mllm")));
        jset(per, jl_transfer_name(wi_kinds[i]), t);
    }
    jset(sum, "overall",
         jl__model_loo_stats_json(jl_whatif_loo_summarize(r, JL_TRANSFER_NONE, NULL)));
    jset(sum, "per_transfer", per);
    double mn, mx;
    size_t nn;
    noise_floor(gl, &mn, &mx, &nn);
    json_t *nf = json_object();
    jset(nf, "pairs", json_integer((json_int_t)nn));
    jset(nf, "min", jl_json_number(mn));
    jset(nf, "max", jl_json_number(mx));
    jset(sum, "remeasurement_spread", nf);
    jset(o, "points", pts);
    jset(o, "summary", sum);
    return o;
}
