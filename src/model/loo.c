/* Leave one batch size out: the accuracy evaluation of docs/model-design.md
 * §5 and docs/model-accuracy.md. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "core/util.h"
#include "joules/model.h"
#include "model/model_internal.h"

void jl_loo_result_clear(jl_loo_result *r)
{
    if (!r)
        return;
    free(r->points);
    r->points = NULL;
    r->count = 0;
}

static double actual_e(const jl_summary *s)
{
    double e = s->fig[JL_FIG_ENERGY_PER_TOKEN_J];
    return isfinite(e) ? e : s->fig[JL_FIG_AVG_POWER_W] / s->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S];
}

/* Fit on the training rows (everything but cap c) and predict e at each
 * held-out row. pred[k] for the k-th held-out row; returns 0 or -1. */
static int predict_joules(const jl_model_group *g, long c, const jl_model_options *opt,
                          const jl_descriptors *desc, double *pred)
{
    size_t n = g->n_runs, m = 0;
    double *buf = malloc(8 * n * sizeof *buf);
    if (!buf)
        return -1;
    double *b = buf, *P = buf + n, *T = buf + 2 * n, *x = buf + 3 * n, *aP = buf + 4 * n,
           *aT = buf + 5 * n,
           *rP = buf + 6 * n, *rT = buf + 7 * n;
    for (size_t i = 0; i < n; i++) {
        const jl_summary *s = g->runs[i];
        if (s->attrs.max_batch_size == c)
            continue;
        b[m] = s->fig[JL_FIG_AVG_BATCH_SIZE];
        P[m] = s->fig[JL_FIG_AVG_POWER_W];
        T[m] = s->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S];
        m++;
    }
    {
        int *keep = malloc((m ? m : 1) * sizeof *keep);
        if (!keep) {
            free(buf);
            return -1;
        }
        /* the fit of jl_model_fit_group leaves the same rows out */
        if (jm_regime_keep(b, T, m, opt->regime_ratio, keep) < m) {
            size_t k = 0;
            for (size_t i = 0; i < m; i++)
                if (keep[i]) {
                    b[k] = b[i];
                    P[k] = P[i];
                    T[k] = T[i];
                    k++;
                }
            m = k;
        }
        free(keep);
    }
    double lo[JM_NP], hi[JM_NP], p[JM_NP], cost, ps_lo, ps_hi;
    int rc = -1;
    jm_ps_range(g->runs[0], desc, &ps_lo, &ps_hi); /* as jl_model_fit_group */
    jm_bounds(ps_lo, ps_hi, lo, hi);
    jm_data d = {m, b, P, T, (double)g->key.num_gpus};
    if (jm_fit_params(&d, lo, hi, opt, p, &cost))
        goto end;
    for (size_t i = 0; i < m; i++) {
        double lP, lT;
        jm_eval(p, b[i], d.G, &lP, &lT, NULL, NULL);
        x[i] = log(b[i]);
        rP[i] = log(P[i]) - lP;
        rT[i] = log(T[i]) - lT;
    }
    int gp = opt->correction && jm_gp_weights(x, m, opt->gp_length, opt->gp_noise, rP, aP) == 0 &&
             jm_gp_weights(x, m, opt->gp_length, opt->gp_noise, rT, aT) == 0;
    for (size_t i = 0, k = 0; i < n; i++) {
        const jl_summary *s = g->runs[i];
        if (s->attrs.max_batch_size != c)
            continue;
        double bt = s->fig[JL_FIG_AVG_BATCH_SIZE], lP, lT;
        jm_eval(p, bt, d.G, &lP, &lT, NULL, NULL);
        double le = lP - lT;
        if (gp)
            le += jm_gp_mean(x, m, opt->gp_length, aP, log(bt)) -
                  jm_gp_mean(x, m, opt->gp_length, aT, log(bt));
        pred[k++] = exp(le);
    }
    rc = 0;
end:
    free(buf);
    return rc;
}

/* Mean ln e and mean ln b of a group's runs at cap c; 0 if it has some. */
static int cap_means(const jl_model_group *g, long c, double *lne, double *lnb)
{
    double se = 0, sb = 0;
    size_t k = 0;
    for (size_t i = 0; i < g->n_runs; i++) {
        const jl_summary *s = g->runs[i];
        if (s->attrs.max_batch_size != c)
            continue;
        se += log(actual_e(s));
        sb += log(s->fig[JL_FIG_AVG_BATCH_SIZE]);
        k++;
    }
    if (!k)
        return -1;
    *lne = se / (double)k;
    *lnb = sb / (double)k;
    return 0;
}

/* Sort the pairs (x, y) by x (insertion sort: a sweep has few caps). */
static void sort_xy(double *x, double *y, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        double a = x[i], b = y[i];
        size_t j = i;
        for (; j > 0 && x[j - 1] > a; j--) {
            x[j] = x[j - 1];
            y[j] = y[j - 1];
        }
        x[j] = a;
        y[j] = b;
    }
}

/* Pooled sweep-end prediction (docs/model-design.md §4, "Sweep ends"). A
 * sweep end is an extrapolation: the group's own points say little about
 * how the curve bends beyond them, and the regime changes seen there (CPU
 * preprocessing at small batch, KV pressure at large) are properties of the
 * model and its serving stack more than of one GPU configuration. So the
 * other sweeps of the same model (any task, GPU, count, precision) that
 * measured both the held-out cap c and the adjacent measured cap a lend
 * their elasticity d ln e / d ln b between a and c; the median of those
 * is applied from the group's own measurement at a:
 *     ln e(b) = ln e_g(a) + s_med (ln b - ln b_g(a)).
 * Only other groups' runs and this group's training runs are used (never
 * a run at cap c of this group). Returns 0 and *lne, or -1 (no sibling). */
static int pooled_end(const jl_model_group_list *groups, size_t gi, long c, long a, double lnb,
                      double *lne)
{
    const jl_model_group *g = &groups->items[gi];
    double ea, ba, *sl = malloc(groups->count * sizeof *sl);
    size_t ns = 0;
    if (!sl || cap_means(g, a, &ea, &ba)) {
        free(sl);
        return -1;
    }
    for (size_t j = 0; j < groups->count; j++) {
        const jl_model_group *h = &groups->items[j];
        double ec, bc, eh, bh;
        if (j == gi || strcmp(h->key.model, g->key.model) || cap_means(h, c, &ec, &bc) ||
            cap_means(h, a, &eh, &bh) || fabs(bc - bh) < 1e-3)
            continue;
        sl[ns++] = (ec - eh) / (bc - bh);
    }
    /* No sibling measured both caps: fall back to the siblings whose
     * measured range covers both batches, their per-cap mean (ln b, ln e)
     * interpolated linearly in ln b. */
    for (size_t j = 0, cap_matched = ns; !cap_matched && j < groups->count; j++) {
        const jl_model_group *h = &groups->items[j];
        if (j == gi || strcmp(h->key.model, g->key.model) || fabs(lnb - ba) < 1e-3)
            continue;
        double *x = malloc(2 * h->n_runs * sizeof *x), *y = x ? x + h->n_runs : NULL;
        size_t nc = 0;
        if (!x)
            break;
        for (size_t i = 0; i < h->n_runs; i++)
            if ((i == 0 || h->runs[i]->attrs.max_batch_size != h->runs[i - 1]->attrs.max_batch_size) &&
                cap_means(h, h->runs[i]->attrs.max_batch_size, &y[nc], &x[nc]) == 0)
                nc++;
        sort_xy(x, y, nc);
        if (nc >= 2 && fmin(lnb, ba) >= x[0] && fmax(lnb, ba) <= x[nc - 1]) {
            double v = (jm_interp(x, y, nc, lnb) - jm_interp(x, y, nc, ba)) / (lnb - ba);
            if (isfinite(v))
                sl[ns++] = v;
        }
        free(x);
    }
    int rc = -1;
    if (ns) {
        *lne = ea + jm_median(sl, ns) * (lnb - ba);
        rc = isfinite(*lne) ? 0 : -1;
    }
    free(sl);
    return rc;
}

static int predict_anchor(const jl_model_group *g, long c, double *pred)
{
    size_t n = g->n_runs, m = 0;
    double *buf = malloc(3 * n * sizeof *buf);
    if (!buf)
        return -1;
    double *x = buf, *P = buf + n, *T = buf + 2 * n;
    for (size_t i = 0; i < n; i++) {
        const jl_summary *s = g->runs[i];
        if (s->attrs.max_batch_size == c)
            continue;
        x[m] = log2((double)s->attrs.max_batch_size);
        P[m] = s->fig[JL_FIG_AVG_POWER_W];
        T[m] = s->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S];
        m++;
    }
    jl_logistic lp = jl_logistic_fit(x, P, m), lt = jl_logistic_fit(x, T, m);
    double xt = log2((double)c);
    for (size_t i = 0, k = 0; i < n; i++)
        if (g->runs[i]->attrs.max_batch_size == c)
            pred[k++] = jl_logistic_eval(&lp, xt) / jl_logistic_eval(&lt, xt);
    free(buf);
    return 0;
}

jl_status jl_model_loo(const jl_model_group_list *groups, jl_loo_model which,
                       const jl_model_options *opt, const jl_descriptors *desc,
                       jl_loo_result *out, jl_error **err)
{
    jl_model_options dflt;
    if (!opt) {
        jl_model_options_default(&dflt);
        opt = &dflt;
    }
    gsl_set_error_handler_off();
    out->points = NULL;
    out->count = 0;
    size_t total = 0;
    for (size_t gi = 0; gi < groups->count; gi++)
        if (groups->items[gi].n_batch_sizes >= opt->min_batch_sizes)
            total += groups->items[gi].n_runs;
    out->points = calloc(total ? total : 1, sizeof *out->points);
    double *pred = NULL;
    if (!out->points)
        goto oom;
    for (size_t gi = 0; gi < groups->count; gi++) {
        const jl_model_group *g = &groups->items[gi];
        if (g->n_batch_sizes < opt->min_batch_sizes)
            continue;
        free(pred);
        pred = malloc(g->n_runs * sizeof *pred);
        if (!pred)
            goto oom;
        long cmin = g->runs[0]->attrs.max_batch_size;
        long cmax = g->runs[g->n_runs - 1]->attrs.max_batch_size;
        for (size_t i = 0; i < g->n_runs;) {
            long c = g->runs[i]->attrs.max_batch_size;
            size_t j = i;
            while (j < g->n_runs && g->runs[j]->attrs.max_batch_size == c)
                j++;
            for (size_t k = 0; k < j - i; k++)
                pred[k] = NAN;
            int rc = which == JL_LOO_ANCHOR ? predict_anchor(g, c, pred)
                                            : predict_joules(g, c, opt, desc, pred);
            if (which == JL_LOO_JOULES && opt->pool_weight > 0 && (c == cmin || c == cmax)) {
                /* the adjacent measured cap: the nearest one left in training */
                long a = c == cmin ? g->runs[j]->attrs.max_batch_size
                                   : g->runs[i - 1]->attrs.max_batch_size;
                double w = fmin(opt->pool_weight, 1.0);
                for (size_t k = 0; k < j - i; k++) {
                    double le;
                    if (isfinite(pred[k]) &&
                        pooled_end(groups, gi, c, a,
                                   log(g->runs[i + k]->fig[JL_FIG_AVG_BATCH_SIZE]), &le) == 0)
                        pred[k] = exp((1 - w) * log(pred[k]) + w * le);
                }
            }
            if (rc < 0 && which == JL_LOO_ANCHOR)
                goto oom;
            for (size_t k = i; k < j; k++) {
                jl_loo_point *pt = &out->points[out->count++];
                const jl_summary *s = g->runs[k];
                pt->run = s;
                pt->group = gi;
                pt->max_batch_size = c;
                pt->batch = s->fig[JL_FIG_AVG_BATCH_SIZE];
                pt->actual_energy_per_token_j = actual_e(s);
                pt->predicted_energy_per_token_j = pred[k - i];
                /* a failed refit scores as NaN error: counted, never hidden */
                pt->abs_rel_error = fabs(pt->predicted_energy_per_token_j -
                                         pt->actual_energy_per_token_j) /
                                    pt->actual_energy_per_token_j;
                pt->position = c == cmin ? -1 : (c == cmax ? 1 : 0);
            }
            i = j;
        }
    }
    free(pred);
    return JL_OK;
oom:
    free(pred);
    jl_loo_result_clear(out);
    return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "leave-one-out evaluation");
}


static int task_selected(const jl_summary *s, const char *task)
{
    if (!task)
        return 1;
    const char *w = s->attrs.workload ? s->attrs.workload : "";
    if (!strcmp(task, "LLM"))
        return !strcmp(w, "llm");
    if (!strcmp(task, "MLLM"))
        return !strcmp(w, "mllm");
    return s->attrs.task && !strcmp(s->attrs.task, task);
}

jl_loo_stats jl_loo_summarize(const jl_loo_result *r, const char *task)
{
    jl_loo_stats st = {0, NAN, NAN, NAN};
    double *v = malloc((r->count ? r->count : 1) * sizeof *v);
    if (!v)
        return st;
    for (size_t i = 0; i < r->count; i++)
        if (task_selected(r->points[i].run, task))
            v[st.n++] = r->points[i].abs_rel_error;
    if (st.n) {
        qsort(v, st.n, sizeof *v, jl_cmp_double);
        /* a NaN (failed refit) sorts last and makes max NaN: visible */
        double h = 0.5 * (double)(st.n - 1);
        size_t a = (size_t)floor(h);
        st.median = v[a] + (h - (double)a) * (a + 1 < st.n ? v[a + 1] - v[a] : 0);
        h = 0.9 * (double)(st.n - 1);
        a = (size_t)floor(h);
        st.p90 = v[a] + (h - (double)a) * (a + 1 < st.n ? v[a + 1] - v[a] : 0);
        st.max = v[st.n - 1];
    }
    free(v);
    return st;
}
