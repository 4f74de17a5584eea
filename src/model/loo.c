/* Leave one batch size out: the accuracy evaluation of docs/model-design.md
 * §5 and docs/model-accuracy.md. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "core/stats.h"
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

/* Fit on the training rows (everything but cap c) and predict e at each
 * held-out row. pred[k] for the k-th held-out row; returns 0 or -1. */
static int predict_joules(const jl_model_group *g, long c, const jl_model_options *opt,
                          const jl_descriptors *desc, double *pred, double *sd, double *terms)
{
    size_t n = g->n_runs, m = 0;
    double *buf = malloc(8 * n * sizeof *buf);
    if (!buf)
        return -1;
    double *b = buf, *P = buf + n, *T = buf + 2 * n, *x = buf + 3 * n, *aP = buf + 4 * n,
           *aT = buf + 5 * n, *rP = buf + 6 * n, *rT = buf + 7 * n;
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
        if (jl__model_regime_keep(b, T, m, opt->regime_ratio, keep) < m) {
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
    double lo[JM_NP], hi[JM_NP], p[JM_NP], cost;
    int rc = -1, held[JM_NP];
    jl__model_data d = {m, b, P, T, (double)g->key.num_gpus, NAN, 0};
    jl__model_group_bounds(g->runs[0], desc, opt, lo, hi, held, &d); /* as jl_model_fit_group */
    if (jl__model_fit_params(&d, lo, hi, opt, p, &cost))
        goto end;
    for (size_t i = 0; i < m; i++) {
        double lP, lT;
        jl__model_eval(p, b[i], d.G, &lP, &lT, NULL, NULL);
        x[i] = log(b[i]);
        rP[i] = log(P[i]) - lP;
        rT[i] = log(T[i]) - lT;
    }
    int gp = opt->correction &&
             jl__model_gp_weights(x, m, opt->gp_length, opt->gp_noise, rP, aP) == 0 &&
             jl__model_gp_weights(x, m, opt->gp_length, opt->gp_noise, rT, aT) == 0;
    /* the scale of a prediction interval (jl__model_pi_sd): run-to-run noise from
     * the physical model's ln e residuals of the training rows, the GP's
     * signal variance, the training range */
    double s2n = 0, s2f = 0, xlo = HUGE_VAL, xhi = -HUGE_VAL;
    for (size_t i = 0; i < m; i++) {
        double re = rP[i] - rT[i];
        s2n += re * re / (double)m;
        if (gp)
            s2f += re * (aP[i] - aT[i]) / (double)m;
        xlo = fmin(xlo, x[i]);
        xhi = fmax(xhi, x[i]);
    }
    for (size_t i = 0, k = 0; i < n; i++) {
        const jl_summary *s = g->runs[i];
        if (s->attrs.max_batch_size != c)
            continue;
        double bt = s->fig[JL_FIG_AVG_BATCH_SIZE], lP, lT;
        jl__model_eval(p, bt, d.G, &lP, &lT, NULL, NULL);
        double le = lP - lT;
        if (gp)
            le += jl__model_gp_mean(x, m, opt->gp_length, aP, log(bt)) -
                  jl__model_gp_mean(x, m, opt->gp_length, aT, log(bt));
        double gv = gp ? jl__model_gp_var(x, m, opt->gp_length, opt->gp_noise, log(bt)) : 1.0;
        sd[k] = jl__model_pi_sd(s2n, s2f, gv, log(bt), xlo, xhi);
        terms[3 * k] = s2n;
        terms[3 * k + 1] = fmax(s2f, 0.0) * gv;
        terms[3 * k + 2] = log(bt) < xlo ? xlo - log(bt) : (log(bt) > xhi ? log(bt) - xhi : 0.0);
        pred[k++] = exp(le);
    }
    rc = 0;
end:
    free(buf);
    return rc;
}

static void clear_pool(jl_sweep_means *own, jl_sweep_means *sib, size_t n)
{
    jl__model_sweep_clear(own);
    for (size_t k = 0; sib && k < n; k++)
        jl__model_sweep_clear(&sib[k]);
    free(sib);
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
                       const jl_model_options *opt, const jl_descriptors *desc, jl_loo_result *out,
                       jl_error **err)
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
    jl_sweep_means own = {0}, *sib = NULL;
    size_t nsib = 0;
    if (!out->points)
        goto oom;
    for (size_t gi = 0; gi < groups->count; gi++) {
        const jl_model_group *g = &groups->items[gi];
        if (g->n_batch_sizes < opt->min_batch_sizes)
            continue;
        free(pred);
        pred = malloc(5 * g->n_runs * sizeof *pred);
        if (!pred)
            goto oom;
        double *sd = pred + g->n_runs, *terms = pred + 2 * g->n_runs;
        /* the pooled sweep-end predictor of docs/model-design.md §4, the
         * same one jl_model_predict uses (pool.c): the group's own per-cap
         * means (only the end cap a left in training is read) and its
         * siblings' (other groups: never a run of this group's cap c) */
        int pool = which == JL_LOO_JOULES && opt->pool_weight > 0;
        if (pool && (jl__model_sweep_of(g, &own) || jl__model_siblings(groups, gi, &sib, &nsib)))
            goto oom;
        long cmin = g->runs[0]->attrs.max_batch_size;
        long cmax = g->runs[g->n_runs - 1]->attrs.max_batch_size;
        for (size_t i = 0; i < g->n_runs;) {
            long c = g->runs[i]->attrs.max_batch_size;
            size_t j = i;
            while (j < g->n_runs && g->runs[j]->attrs.max_batch_size == c)
                j++;
            for (size_t k = 0; k < j - i; k++)
                pred[k] = sd[k] = terms[3 * k] = terms[3 * k + 1] = terms[3 * k + 2] = NAN;
            int rc = which == JL_LOO_ANCHOR ? predict_anchor(g, c, pred)
                                            : predict_joules(g, c, opt, desc, pred, sd, terms);
            if (pool && (c == cmin || c == cmax)) {
                /* the adjacent measured cap: the nearest one left in training */
                long a = c == cmin ? g->runs[j]->attrs.max_batch_size
                                   : g->runs[i - 1]->attrs.max_batch_size;
                for (size_t k = 0; k < j - i; k++) {
                    double le;
                    if (isfinite(pred[k]) &&
                        jl__model_pooled_end(&own, sib, nsib, c, a,
                                             log(g->runs[i + k]->fig[JL_FIG_AVG_BATCH_SIZE]), &le,
                                             NULL, NULL) == 0)
                        pred[k] = exp(jl__model_pool_mix(log(pred[k]), le, opt->pool_weight));
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
                pt->actual_energy_per_token_j = jl__model_run_energy(s);
                pt->predicted_energy_per_token_j = pred[k - i];
                pt->predicted_lo_j = pred[k - i] * exp(-JM_PI_Z * sd[k - i]);
                pt->predicted_hi_j = pred[k - i] * exp(JM_PI_Z * sd[k - i]);
                pt->pi_resid_ms = terms[3 * (k - i)];
                pt->pi_gp_var = terms[3 * (k - i) + 1];
                pt->pi_outside = terms[3 * (k - i) + 2];
                /* a failed refit scores as NaN error: counted, never hidden */
                pt->abs_rel_error =
                    fabs(pt->predicted_energy_per_token_j - pt->actual_energy_per_token_j) /
                    pt->actual_energy_per_token_j;
                pt->position = c == cmin ? -1 : (c == cmax ? 1 : 0);
            }
            i = j;
        }
        clear_pool(&own, sib, nsib);
        sib = NULL;
        nsib = 0;
    }
    free(pred);
    return JL_OK;
oom:
    clear_pool(&own, sib, nsib);
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
    jl_loo_stats st = {0, NAN, NAN, NAN, NAN, NAN};
    double *v = malloc(2 * (r->count ? r->count : 1) * sizeof *v), *hw = v ? v + r->count : NULL;
    size_t nin = 0, nw = 0;
    if (!v)
        return st;
    for (size_t i = 0; i < r->count; i++)
        if (task_selected(r->points[i].run, task)) {
            const jl_loo_point *p = &r->points[i];
            v[st.n++] = p->abs_rel_error;
            if (isfinite(p->predicted_lo_j) && isfinite(p->predicted_hi_j)) {
                hw[nw++] =
                    (p->predicted_hi_j - p->predicted_lo_j) / 2 / p->predicted_energy_per_token_j;
                nin += p->actual_energy_per_token_j >= p->predicted_lo_j &&
                       p->actual_energy_per_token_j <= p->predicted_hi_j;
            }
        }
    if (nw) {
        st.coverage = (double)nin / (double)nw;
        st.median_half_width = jl__model_median(hw, nw);
    }
    if (st.n) {
        qsort(v, st.n, sizeof *v, jl__cmp_double);
        /* a NaN (failed refit) sorts last and makes max NaN: visible */
        st.median = jl__quantile_sorted(v, st.n, 0.5);
        st.p90 = jl__quantile_sorted(v, st.n, 0.9);
        st.max = v[st.n - 1];
    }
    free(v);
    return st;
}
