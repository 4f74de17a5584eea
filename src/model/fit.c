/* Groups, and the fit of one group: physical model with confidence
 * intervals, GP correction, interpolation fallback, batch ceiling
 * (joules/model.h, docs/model.md). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>

#include "core/util.h"
#include "joules/ceiling.h"
#include "joules/model.h"
#include "model/model_internal.h"

static const char *const param_names[JM_NP] = {
#define JL__X_MP_NAME(id, name, unit, doc) name,
    JL_MODEL_PARAM_TABLE(JL__X_MP_NAME)
#undef JL__X_MP_NAME
};
static const char *const param_units[JM_NP] = {
#define JL__X_MP_UNIT(id, name, unit, doc) unit,
    JL_MODEL_PARAM_TABLE(JL__X_MP_UNIT)
#undef JL__X_MP_UNIT
};

const char *jl_fit_method_name(jl_fit_method m)
{
    switch (m) {
    case JL_FIT_MODEL: return "model";
    case JL_FIT_INTERPOLATION: return "interpolation";
    case JL_FIT_POOLED: return "pooled";
    default: return "none";
    }
}

/* ---- group keys ---------------------------------------------------------- */

int jl_group_key_cmp(const jl_group_key *a, const jl_group_key *b)
{
    int c;
    if ((c = jl__strcmp_null_last(a->model, b->model)) ||
        (c = jl__strcmp_null_last(a->task, b->task)) ||
        (c = jl__strcmp_null_last(a->gpu_model, b->gpu_model)))
        return c;
    if (a->num_gpus != b->num_gpus)
        return a->num_gpus < b->num_gpus ? -1 : 1;
    return jl__strcmp_null_last(a->precision, b->precision);
}

char *jl_group_key_format(const jl_group_key *k)
{
    return jl__asprintf("model=%s,task=%s,gpu_model=%s,num_gpus=%ld,precision=%s",
                        k->model ? k->model : "", k->task ? k->task : "",
                        k->gpu_model ? k->gpu_model : "", k->num_gpus,
                        k->precision ? k->precision : "");
}

void jl_group_key_clear(jl_group_key *k)
{
    if (!k)
        return;
    free(k->model);
    free(k->task);
    free(k->gpu_model);
    free(k->precision);
    memset(k, 0, sizeof *k);
}

static int key_from_run(jl_group_key *k, const jl_summary *s)
{
    memset(k, 0, sizeof *k);
    k->model = jl__strdup(s->attrs.model);
    k->task = jl__strdup(s->attrs.task);
    k->gpu_model = jl__strdup(s->attrs.gpu_model);
    k->precision = jl__strdup(s->attrs.precision);
    k->num_gpus = s->attrs.num_gpus;
    if (!k->model || !k->task || !k->gpu_model || !k->precision) {
        jl_group_key_clear(k);
        return -1;
    }
    return 0;
}

static int run_key_cmp(const jl_summary *a, const jl_summary *b)
{
    jl_group_key ka = {a->attrs.model, a->attrs.task, a->attrs.gpu_model, a->attrs.num_gpus,
                       a->attrs.precision};
    jl_group_key kb = {b->attrs.model, b->attrs.task, b->attrs.gpu_model, b->attrs.num_gpus,
                       b->attrs.precision};
    return jl_group_key_cmp(&ka, &kb);
}

static int modelled(const jl_summary *s)
{
    const jl_attrs *a = &s->attrs;
    if (!a->model || !a->task || !a->gpu_model || !a->precision || a->num_gpus < 1 ||
        a->max_batch_size < 1)
        return 0;
    if (a->workload && !jl_attrs_is_llm(a))
        return 0;
    /* the model splits power per GPU: whole-node AC power cannot be */
    if (jl_attrs_is_node_ac(a))
        return 0;
    double b = s->fig[JL_FIG_AVG_BATCH_SIZE], P = s->fig[JL_FIG_AVG_POWER_W],
           T = s->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S];
    return isfinite(b) && b > 0 && isfinite(P) && P > 0 && isfinite(T) && T > 0;
}

typedef struct sorted_run {
    const jl_summary *s;
    size_t idx;
} sorted_run;

static int sorted_run_cmp(const void *va, const void *vb)
{
    const sorted_run *a = va, *b = vb;
    int c = run_key_cmp(a->s, b->s);
    if (c)
        return c;
    if (a->s->attrs.max_batch_size != b->s->attrs.max_batch_size)
        return a->s->attrs.max_batch_size < b->s->attrs.max_batch_size ? -1 : 1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

void jl_group_list_clear(jl_model_group_list *gl)
{
    if (!gl)
        return;
    for (size_t i = 0; i < gl->count; i++) {
        jl_group_key_clear(&gl->items[i].key);
        free(gl->items[i].runs);
        free(gl->items[i].run_index);
    }
    free(gl->items);
    gl->items = NULL;
    gl->count = 0;
}

jl_status jl_model_groups(const jl_summary_list *l, jl_model_group_list *out, jl_error **err)
{
    out->items = NULL;
    out->count = 0;
    sorted_run *v = malloc((l->count ? l->count : 1) * sizeof *v);
    if (!v)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "grouping runs");
    size_t n = 0;
    for (size_t i = 0; i < l->count; i++)
        if (modelled(l->items[i]))
            v[n++] = (sorted_run){l->items[i], i};
    qsort(v, n, sizeof *v, sorted_run_cmp);
    size_t ng = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || run_key_cmp(v[i - 1].s, v[i].s))
            ng++;
    out->items = calloc(ng ? ng : 1, sizeof *out->items);
    if (!out->items)
        goto oom;
    for (size_t i = 0, gi = 0; i < n;) {
        size_t j = i;
        while (j < n && !run_key_cmp(v[i].s, v[j].s))
            j++;
        jl_model_group *g = &out->items[gi++];
        out->count = gi;
        if (key_from_run(&g->key, v[i].s))
            goto oom;
        g->runs = malloc((j - i) * sizeof *g->runs);
        g->run_index = malloc((j - i) * sizeof *g->run_index);
        if (!g->runs || !g->run_index)
            goto oom;
        for (size_t k = i; k < j; k++) {
            g->runs[k - i] = v[k].s;
            g->run_index[k - i] = v[k].idx;
            if (k == i || v[k].s->attrs.max_batch_size != v[k - 1].s->attrs.max_batch_size)
                g->n_batch_sizes++;
        }
        g->n_runs = j - i;
        i = j;
    }
    free(v);
    return JL_OK;
oom:
    free(v);
    jl_group_list_clear(out);
    return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "grouping runs");
}

/* ---- fit ------------------------------------------------------------------ */

void jl_group_fit_free(jl_group_fit *f)
{
    if (!f)
        return;
    jl_group_key_clear(&f->key);
    free(f->note);
    free(f->points);
    free(f->ci_note);
    free(f->gp_x);
    free(f->gp_alpha_power);
    free(f->gp_alpha_throughput);
    free(f->ceiling_reason);
    jl__model_sweep_clear(&f->pool_own);
    for (size_t k = 0; f->pool_siblings && k < f->pool_n_siblings; k++)
        jl__model_sweep_clear(&f->pool_siblings[k]);
    free(f->pool_siblings);
    free(f);
}

static int point_cmp(const void *va, const void *vb)
{
    const jl_fit_point *a = va, *b = vb;
    if (a->batch != b->batch)
        return a->batch < b->batch ? -1 : 1;
    return (a->max_batch_size > b->max_batch_size) - (a->max_batch_size < b->max_batch_size);
}

/* Static-power range per GPU: a measured idle power (trace attribute) gives
 * a +-15 % box around it; else the descriptor's idle_power_range_w; else a
 * generic 5-30 % of TDP, else 30-300 W. */
void jl__model_ps_range(const jl_summary *s, const jl_descriptors *desc, double *lo, double *hi)
{
    const jl_gpu_desc *g = desc ? jl_descriptors_gpu(desc, s->attrs.gpu_model) : NULL;
    double idle = s->attrs.gpu_idle_power_w;
    if (isfinite(idle) && idle > 0) {
        *lo = 0.85 * idle;
        *hi = 1.15 * idle;
    } else if (g && isfinite(g->idle_min_w) && isfinite(g->idle_max_w) &&
               g->idle_max_w > g->idle_min_w) {
        *lo = g->idle_min_w;
        *hi = g->idle_max_w;
    } else {
        double tdp = desc ? jl_run_gpu_tdp_w(&s->attrs, desc) : s->attrs.gpu_tdp_w;
        if (isfinite(tdp) && tdp > 0) {
            *lo = 0.05 * tdp;
            *hi = 0.3 * tdp;
        } else {
            *lo = 30;
            *hi = 300;
        }
    }
}

/* Covariance of the free parameters from the data-row Jacobian at the
 * optimum: cov = s^2 (J^T J)^-1. The columns are first scaled to unit norm
 * (the parameters span 15 orders of magnitude, so the unscaled matrix is
 * numerically singular even when every parameter is identified); a
 * direction whose scaled eigenvalue is below 1e-10 of the largest is not
 * identified by the data, and the parameters loading on it (|v| > 0.1) get
 * no interval (flagged in *unident) rather than the falsely narrow one a
 * pseudo-inverse would give. */
static int parameter_cov(jl_group_fit *f, const jl__model_data *d, const double p[JM_NP],
                         const int free_[JM_NP], int nfree, double s2, int unident[JM_NP])
{
    gsl_matrix *A = gsl_matrix_calloc((size_t)nfree, (size_t)nfree);
    gsl_matrix *V = gsl_matrix_alloc((size_t)nfree, (size_t)nfree);
    gsl_vector *ev = gsl_vector_alloc((size_t)nfree);
    gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc((size_t)nfree);
    int idx[JM_NP], rc = -1;
    double sc[JM_NP];
    for (int j = 0, k = 0; j < JM_NP; j++)
        if (free_[j])
            idx[k++] = j;
    if (!A || !V || !ev || !ws)
        goto end;
    for (size_t i = 0; i < d->n; i++) {
        double lP, lT, gP[JM_NP], gT[JM_NP];
        jl__model_eval(p, d->b[i], d->G, &lP, &lT, gP, gT);
        for (int a = 0; a < nfree; a++)
            for (int c = 0; c < nfree; c++) {
                double v = gP[idx[a]] * gP[idx[c]] + gT[idx[a]] * gT[idx[c]];
                gsl_matrix_set(A, (size_t)a, (size_t)c,
                               gsl_matrix_get(A, (size_t)a, (size_t)c) + v);
            }
    }
    for (int a = 0; a < nfree; a++) {
        double dg = gsl_matrix_get(A, (size_t)a, (size_t)a);
        sc[a] = dg > 0 ? 1.0 / sqrt(dg) : 0.0;
        if (!(dg > 0))
            unident[idx[a]] = 1;
    }
    for (int a = 0; a < nfree; a++)
        for (int c = 0; c < nfree; c++)
            gsl_matrix_set(A, (size_t)a, (size_t)c,
                           gsl_matrix_get(A, (size_t)a, (size_t)c) * sc[a] * sc[c]);
    if (gsl_eigen_symmv(A, ev, V, ws) != GSL_SUCCESS)
        goto end;
    double emax = 0;
    for (int a = 0; a < nfree; a++)
        emax = fmax(emax, fabs(gsl_vector_get(ev, (size_t)a)));
    double cut = emax * 1e-10;
    for (int m = 0; m < nfree; m++)
        if (gsl_vector_get(ev, (size_t)m) <= cut)
            for (int a = 0; a < nfree; a++)
                if (fabs(gsl_matrix_get(V, (size_t)a, (size_t)m)) > 0.1)
                    unident[idx[a]] = 1;
    for (int a = 0; a < nfree; a++)
        for (int c = 0; c < nfree; c++) {
            double s = 0;
            for (int m = 0; m < nfree; m++) {
                double l = gsl_vector_get(ev, (size_t)m);
                if (l > cut)
                    s += gsl_matrix_get(V, (size_t)a, (size_t)m) *
                         gsl_matrix_get(V, (size_t)c, (size_t)m) / l;
            }
            f->cov[idx[a]][idx[c]] = s2 * s * sc[a] * sc[c];
        }
    rc = 0;
end:
    gsl_matrix_free(A);
    gsl_matrix_free(V);
    gsl_vector_free(ev);
    if (ws)
        gsl_eigen_symmv_free(ws);
    return rc;
}

static double r2_of(const double *resid, const double *y, size_t n)
{
    double m = 0, ss = 0, sr = 0;
    for (size_t i = 0; i < n; i++)
        m += y[i] / (double)n;
    for (size_t i = 0; i < n; i++) {
        ss += (y[i] - m) * (y[i] - m);
        sr += resid[i] * resid[i];
    }
    return ss > 0 ? 1.0 - sr / ss : NAN;
}

static double rms_of(const double *v, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i] * v[i];
    return n ? sqrt(s / (double)n) : NAN;
}

/* The batch ceiling for predictions (docs/model.md "Batch ceiling"): the
 * smaller of
 *   the group ceiling of joules/ceiling.h (jl_group_ceiling_compute, owned
 *     by `diagnose`): min(memory ceiling, detected upstream ceiling), where
 *     a memory ceiling below a measured achieved batch is contradicted by
 *     the data and not used (an upstream ceiling is detected from the data
 *     and always used);
 *   extrapolation = extrapolation_factor x the largest measured batch. */
static int batch_ceiling(jl_group_fit *f, const jl_summary *const *runs, size_t n,
                         const jl_model_options *opt, const jl_descriptors *desc)
{
    jl_group_ceiling gc;
    memset(&gc, 0, sizeof gc);
    jl_ceiling_options co;
    jl_ceiling_options_default(&co);
    co.memory_share = opt->memory_share;
    co.regime_ratio = opt->regime_ratio;
    if (jl_group_ceiling_compute(runs, n, desc, &co, &gc) != JL_OK)
        return -1;
    f->memory_ceiling = gc.memory;
    double ext = opt->extrapolation_factor * f->batch_max;
    int mem_ok = isfinite(gc.memory) && gc.memory >= f->batch_max;
    double up = gc.upstream;
    double lim = ext;
    const char *which = "extrapolation";
    if (mem_ok && gc.memory < lim) {
        lim = gc.memory;
        which = "memory";
    }
    if (isfinite(up) && up < lim) {
        lim = up;
        which = "upstream";
    }
    /* the high end of a sweep the model fits measured in another regime
     * (jl__model_regime_keep, as the fit below): the fit describes batches up to
     * the largest one of its own regime */
    double top_fit = NAN, top_out = NAN;
    long top_cap = 0;
    if (f->n_batch_sizes >= opt->min_batch_sizes && f->n_points) {
        size_t m = f->n_points;
        double *b = malloc(2 * m * sizeof *b);
        int *keep = malloc(m * sizeof *keep);
        if (!b || !keep) {
            free(b);
            free(keep);
            jl_group_ceiling_clear(&gc);
            return -1;
        }
        for (size_t i = 0; i < m; i++) {
            b[i] = f->points[i].batch;
            b[m + i] = f->points[i].throughput_tok_s;
        }
        if (jl__model_regime_keep(b, b + m, m, opt->regime_ratio, keep) < m && !keep[m - 1]) {
            top_out = b[m - 1];
            top_cap = f->points[m - 1].max_batch_size;
            for (size_t i = 0; i < m; i++)
                if (keep[i])
                    top_fit = b[i];
        }
        free(b);
        free(keep);
    }
    if (isfinite(top_fit) && top_fit < lim) {
        lim = top_fit;
        which = "regime";
    }
    f->batch_ceiling = lim;
    if (!strcmp(which, "extrapolation"))
        f->ceiling_reason = jl__asprintf(
            "extrapolation: %.3g x the largest measured achieved batch %.4g%s",
            opt->extrapolation_factor, f->batch_max,
            isfinite(gc.memory)
                ? (gc.memory < f->batch_max
                       ? " (the memory estimate is below a measured batch, so it is not used)"
                       : " (the memory ceiling is higher)")
                : " (memory ceiling unknown)");
    else if (!strcmp(which, "regime"))
        f->ceiling_reason = jl__asprintf(
            "regime: at batch %.4g (cap %ld) throughput fell below %.2f x that of a run with at "
            "most half its batch, another regime (e.g. KV preemption past the memory ceiling) "
            "left out of the fit, which describes batches up to %.4g; %s",
            top_out, top_cap, opt->regime_ratio, top_fit, gc.reason ? gc.reason : "");
    else
        f->ceiling_reason = jl__asprintf("%s: %s", which, gc.reason ? gc.reason : "");
    jl_group_ceiling_clear(&gc);
    return f->ceiling_reason ? 0 : -1;
}

/* ---- one group's fit, phase by phase ---------------------------------------- */

/* The working arrays of one fit: the n_points rows sorted by batch, the
 * fitted ones [k0, k0 + mk) (the rest measured in another regime), the
 * bounds, the solution and which parameters it fitted. */
typedef struct fit_work {
    size_t m, k0, mk;
    double *buf; /* owns the arrays below */
    double *b, *P, *T, *rP, *rT, *rE, *lnP, *lnT, *lnEm;
    jl__model_data d;
    double lo[JM_NP], hi[JM_NP], p[JM_NP];
    int held[JM_NP], free_[JM_NP], nfree;
} fit_work;

/* A fit of the group of runs[0] with nothing computed yet (NaN everywhere a
 * number is not known). NULL on out-of-memory. */
static jl_group_fit *fit_new(const jl_summary *const *runs, size_t n, const jl_model_options *opt,
                             const jl_descriptors *desc)
{
    jl_group_fit *f = calloc(1, sizeof *f);
    if (!f || key_from_run(&f->key, runs[0]) || !(f->points = calloc(n, sizeof *f->points))) {
        jl_group_fit_free(f);
        return NULL;
    }
    f->tdp_w = desc ? jl_run_gpu_tdp_w(&runs[0]->attrs, desc) : runs[0]->attrs.gpu_tdp_w;
    f->idle_w = desc ? jl_run_gpu_idle_w(&runs[0]->attrs, desc) : runs[0]->attrs.gpu_idle_power_w;
    f->gp_length = opt->gp_length;
    f->gp_noise = opt->gp_noise;
    f->t_quantile = NAN;
    f->r2_power = f->r2_throughput = f->r2_energy = f->r2_energy_corrected = NAN;
    f->rms_ln_power = f->rms_ln_throughput = f->rms_ln_energy = f->rms_ln_energy_corrected = NAN;
    f->rss = f->cost = NAN;
    for (int j = 0; j < JM_NP; j++) {
        f->params[j].name = param_names[j];
        f->params[j].unit = param_units[j];
        f->params[j].value = f->params[j].lower = f->params[j].upper = NAN;
        f->params[j].ci_low = f->params[j].ci_high = NAN;
    }
    return f;
}

/* The modelled runs as points, sorted by batch (f->n_points of them). */
static void fit_points(jl_group_fit *f, const jl_summary *const *runs, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!modelled(runs[i]))
            continue;
        jl_fit_point *pt = &f->points[m++];
        pt->run = runs[i];
        pt->max_batch_size = runs[i]->attrs.max_batch_size;
        pt->batch = runs[i]->fig[JL_FIG_AVG_BATCH_SIZE];
        pt->power_w = runs[i]->fig[JL_FIG_AVG_POWER_W];
        pt->throughput_tok_s = runs[i]->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S];
        pt->energy_per_token_j = jl__model_run_energy(runs[i]);
        pt->step_time_s = pt->batch / pt->throughput_tok_s;
        pt->resid_ln_power = pt->resid_ln_throughput = pt->resid_ln_energy =
            pt->resid_ln_energy_corrected = NAN;
    }
    f->n_points = m;
    qsort(f->points, m, sizeof *f->points, point_cmp);
}

/* The measured caps and batch range of the points, and batch per cap. 0, -1
 * on out-of-memory. */
static int fit_ranges(jl_group_fit *f)
{
    size_t m = f->n_points;
    long *caps = malloc(m * sizeof *caps);
    double *ratio = malloc(m * sizeof *ratio);
    if (!caps || !ratio) {
        free(caps);
        free(ratio);
        return -1;
    }
    f->batch_min = HUGE_VAL;
    f->batch_max = -HUGE_VAL;
    f->cap_min = f->cap_max = f->points[0].max_batch_size;
    for (size_t i = 0; i < m; i++) {
        const jl_fit_point *pt = &f->points[i];
        f->batch_min = fmin(f->batch_min, pt->batch);
        f->batch_max = fmax(f->batch_max, pt->batch);
        if (pt->max_batch_size < f->cap_min)
            f->cap_min = pt->max_batch_size;
        if (pt->max_batch_size > f->cap_max)
            f->cap_max = pt->max_batch_size;
        ratio[i] = pt->batch / (double)pt->max_batch_size;
        size_t k = 0;
        while (k < f->n_batch_sizes && caps[k] != pt->max_batch_size)
            k++;
        if (k == f->n_batch_sizes)
            caps[f->n_batch_sizes++] = pt->max_batch_size;
    }
    f->batch_per_cap = jl__model_median(ratio, m);
    free(caps);
    free(ratio);
    return 0;
}

/* The rows' arrays, and the rows of another regime at the sweep ends
 * (jl__model_regime_keep) set apart: the points are sorted by batch, so the
 * fitted rows are the range [k0, k0 + mk). 0, -1 on out-of-memory. */
static int fit_rows(jl_group_fit *f, const jl_model_options *opt, fit_work *w)
{
    size_t m = f->n_points;
    w->m = m;
    if (!(w->buf = malloc(9 * m * sizeof *w->buf)))
        return -1;
    w->b = w->buf;
    w->P = w->buf + m;
    w->T = w->buf + 2 * m;
    w->rP = w->buf + 3 * m;
    w->rT = w->buf + 4 * m;
    w->rE = w->buf + 5 * m;
    w->lnP = w->buf + 6 * m;
    w->lnT = w->buf + 7 * m;
    w->lnEm = w->buf + 8 * m;
    for (size_t i = 0; i < m; i++) {
        w->b[i] = f->points[i].batch;
        w->P[i] = f->points[i].power_w;
        w->T[i] = f->points[i].throughput_tok_s;
        w->lnP[i] = log(w->P[i]);
        w->lnT[i] = log(w->T[i]);
    }
    w->k0 = 0;
    w->mk = m;
    int *keep = malloc(m * sizeof *keep);
    if (!keep)
        return -1;
    if (jl__model_regime_keep(w->b, w->T, m, opt->regime_ratio, keep) < m) {
        size_t k0 = 0, mk = 0;
        while (!keep[k0])
            k0++;
        while (k0 + mk < m && keep[k0 + mk])
            mk++;
        for (size_t i = 0; i < m; i++)
            f->points[i].regime_excluded = !keep[i];
        w->k0 = k0;
        w->mk = mk;
        f->note = jl__asprintf("%zu run%s at the %s of the sweep measured in another regime "
                               "(throughput not rising with batch): not used in the fit",
                               m - mk, m - mk == 1 ? "" : "s",
                               k0 && k0 + mk < m ? "two ends" : (k0 ? "low end" : "high end"));
        if (!f->note) {
            free(keep);
            return -1;
        }
    }
    free(keep);
    f->n_fitted = w->mk;
    return 0;
}

/* Each parameter's value, bounds and status from the solution w->p; which
 * ones are free (fitted, not at a bound) into w->free_ and w->nfree. */
static void fit_param_status(jl_group_fit *f, const jl_summary *run0, fit_work *w)
{
    const double *p = w->p, *lo = w->lo, *hi = w->hi;
    const int *held = w->held;
    w->nfree = 0;
    for (int j = 0; j < JM_NP; j++) {
        jl_param *q = &f->params[j];
        q->value = p[j];
        q->lower = lo[j];
        q->upper = hi[j];
        double r = 1e-6 * (hi[j] - lo[j]);
        q->at_bound = !held[j] && !(p[j] - lo[j] > r && hi[j] - p[j] > r);
        w->free_[j] = !q->at_bound && !held[j];
        w->nfree += w->free_[j];
        q->status = held[j] ? "held" : (q->at_bound ? "at_bound" : "fitted");
        q->basis = q->at_bound ? "fitted to a bound of its range: held there, no interval" : NULL;
    }
    if (held[JL_MP_PS]) {
        /* Ps near the idle power by its prior: its interval is the prior's */
        jl_param *q = &f->params[JL_MP_PS];
        q->basis =
            isfinite(run0->attrs.gpu_idle_power_w) && run0->attrs.gpu_idle_power_w > 0
                ? "held near the measured idle power (gpu_idle_power_w) by a prior of "
                  "+-10 % (1 sd); the interval is +-1.96 sd of it around the value, not fitted"
                : "held near the GPU descriptor's idle power (models/gpus.json) by a "
                  "prior of +-10 % (1 sd); the interval is +-1.96 sd of it around the value, not fitted";
        q->ci_low = fmax(lo[JL_MP_PS], p[JL_MP_PS] * exp(-1.96 * JM_PS_PRIOR_SD));
        q->ci_high = fmin(hi[JL_MP_PS], p[JL_MP_PS] * exp(1.96 * JM_PS_PRIOR_SD));
    }
    if (held[JL_MP_TW]) {
        f->params[JL_MP_TW].basis = f->params[JL_MP_LN_BW].basis =
            "held at 0: a dense model (descriptor: active = total parameters) has no "
            "expert-activation term";
    }
}

/* The physical model's residuals of every point, the RSS of the fitted rows
 * and the goodness of fit over them (the excluded rows keep their residuals
 * in points[]). */
static void fit_residuals(jl_group_fit *f, fit_work *w)
{
    size_t k0 = w->k0, mk = w->mk;
    f->rss = 0;
    for (size_t i = 0; i < w->m; i++) {
        double lP, lT;
        jl__model_eval(w->p, w->b[i], w->d.G, &lP, &lT, NULL, NULL);
        jl_fit_point *pt = &f->points[i];
        w->rP[i] = pt->resid_ln_power = lP - w->lnP[i];
        w->rT[i] = pt->resid_ln_throughput = lT - w->lnT[i];
        w->lnEm[i] = log(pt->energy_per_token_j);
        w->rE[i] = pt->resid_ln_energy = (lP - lT) - w->lnEm[i];
        if (i >= k0 && i < k0 + mk)
            f->rss += w->rP[i] * w->rP[i] + w->rT[i] * w->rT[i];
    }
    f->r2_power = r2_of(w->rP + k0, w->lnP + k0, mk);
    f->r2_throughput = r2_of(w->rT + k0, w->lnT + k0, mk);
    f->r2_energy = r2_of(w->rE + k0, w->lnEm + k0, mk);
    f->rms_ln_power = rms_of(w->rP + k0, mk);
    f->rms_ln_throughput = rms_of(w->rT + k0, mk);
    f->rms_ln_energy = rms_of(w->rE + k0, mk);
}

/* f->ci_note: how many parameters have an interval, are held, at a bound,
 * and (nu > 0) which ones the data do not identify. */
static void fit_ci_note(jl_group_fit *f, const fit_work *w, int nu)
{
    int nh = 0, nb = 0;
    for (int j = 0; j < JM_NP; j++) {
        nh += w->held[j];
        nb += f->params[j].at_bound;
    }
    f->ci_note = jl__asprintf("%d of %d parameters fitted with an interval, %d held at "
                              "physical values, %d at a bound%s",
                              w->nfree - nu, JM_NP, nh, nb,
                              nu ? "; not identified by the data, no interval: " : "");
    if (nu) {
        char *t = f->ci_note;
        size_t len = 0;
        char names[128] = "";
        for (int j = 0; j < JM_NP; j++)
            if (!strcmp(f->params[j].status, "not_identified"))
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "",
                                        f->params[j].name);
        f->ci_note = t ? jl__asprintf("%s%s", t, names) : NULL;
        free(t);
    }
}

/* The parameters' confidence intervals (docs/model.md "Confidence
 * intervals"). */
static void fit_intervals(jl_group_fit *f, const jl_model_options *opt, fit_work *w)
{
    const double *p = w->p, *lo = w->lo, *hi = w->hi;
    int unident[JM_NP] = {0};
    f->dof = 2 * (long)w->mk - w->nfree;
    int incl[JM_NP], nincl = 0;
    for (int j = 0; j < JM_NP; j++) {
        incl[j] = w->free_[j] || (j == JL_MP_PS && w->held[j] && w->d.ps_prior_w > 0);
        nincl += incl[j];
    }
    if (f->dof <= 0) {
        f->has_ci = 0;
        f->ci_note = jl__asprintf("insufficient data for confidence intervals: %zu residuals "
                                  "(power and throughput of %zu runs) for %d free parameters",
                                  2 * w->mk, w->mk, w->nfree);
        return;
    }
    if (parameter_cov(f, &w->d, p, incl, nincl, f->rss / (double)f->dof, unident) != 0) {
        f->ci_note = jl__strdup("covariance could not be computed");
        return;
    }
    f->has_ci = 1;
    f->t_quantile = gsl_cdf_tdist_Pinv(0.5 + 0.5 * opt->confidence, (double)f->dof);
    int nu = 0;
    for (int j = 0; j < JM_NP; j++) {
        if (!w->free_[j])
            continue;
        jl_param *q = &f->params[j];
        double se = sqrt(fmax(f->cov[j][j], 0.0));
        /* every parameter but ln_bw is positive: its interval is taken in
         * log space (a relative standard error), then kept inside the
         * declared range; one the data do not pin down to within a factor
         * of e (relative s.e. >= 1) gets none */
        double rel = j == JL_MP_LN_BW ? se / fmax(hi[j] - lo[j], 1e-300) * 2 : se / fabs(p[j]);
        if (unident[j] || !(rel < 1)) {
            q->status = "not_identified";
            q->basis = unident[j] ? "in a direction of the parameters the data do not "
                                    "identify: no interval"
                                  : "not determined by the data (standard error above "
                                    "100 % of the value, or of half its range): no interval";
            nu++;
            continue;
        }
        double h = f->t_quantile * rel;
        if (j == JL_MP_LN_BW) {
            q->ci_low = fmax(lo[j], p[j] - f->t_quantile * se);
            q->ci_high = fmin(hi[j], p[j] + f->t_quantile * se);
        } else {
            q->ci_low = fmax(lo[j], p[j] * exp(-h));
            q->ci_high = fmin(hi[j], p[j] * exp(h));
        }
        q->basis = "fitted: 95 % interval from the data (t quantile, log scale), inside the "
                   "declared range";
    }
    fit_ci_note(f, w, nu);
}

/* The GP correction of the residuals (measured - model) in ln b on the
 * fitted rows, and every point's corrected residual. 0, -1 on
 * out-of-memory. */
static int fit_correction(jl_group_fit *f, const jl_model_options *opt, fit_work *w)
{
    size_t k0 = w->k0, mk = w->mk;
    if (opt->correction) {
        f->gp_x = malloc(mk * sizeof *f->gp_x);
        f->gp_alpha_power = malloc(mk * sizeof *f->gp_alpha_power);
        f->gp_alpha_throughput = malloc(mk * sizeof *f->gp_alpha_throughput);
        if (!f->gp_x || !f->gp_alpha_power || !f->gp_alpha_throughput)
            return -1;
        f->gp_n = mk;
        double *negP = w->rP + k0, *negT = w->rT + k0;
        for (size_t i = 0; i < mk; i++) {
            f->gp_x[i] = log(w->b[k0 + i]);
            negP[i] = -negP[i];
            negT[i] = -negT[i];
        }
        if (jl__model_gp_weights(f->gp_x, mk, opt->gp_length, opt->gp_noise, negP,
                                 f->gp_alpha_power) == 0 &&
            jl__model_gp_weights(f->gp_x, mk, opt->gp_length, opt->gp_noise, negT,
                                 f->gp_alpha_throughput) == 0) {
            f->has_correction = 1;
            double sP = 0, sT = 0, sE = 0;
            for (size_t i = 0; i < mk; i++) {
                double aE = f->gp_alpha_power[i] - f->gp_alpha_throughput[i];
                sP += negP[i] * f->gp_alpha_power[i];
                sT += negT[i] * f->gp_alpha_throughput[i];
                sE += (negP[i] - negT[i]) * aE;
            }
            f->gp_scale2_power = sP / (double)mk;
            f->gp_scale2_throughput = sT / (double)mk;
            f->gp_scale2_energy = sE / (double)mk;
        }
    }
    for (size_t i = 0; i < w->m; i++) {
        double c = 0, x = log(w->b[i]);
        if (f->has_correction)
            c = jl__model_gp_mean(f->gp_x, f->gp_n, f->gp_length, f->gp_alpha_power, x) -
                jl__model_gp_mean(f->gp_x, f->gp_n, f->gp_length, f->gp_alpha_throughput, x);
        w->rE[i] = f->points[i].resid_ln_energy_corrected = f->points[i].resid_ln_energy + c;
    }
    f->r2_energy_corrected = r2_of(w->rE + k0, w->lnEm + k0, mk);
    f->rms_ln_energy_corrected = rms_of(w->rE + k0, mk);
    return 0;
}

/* The physical model fitted to the rows of f (method "model"), or, when the
 * solver finds no finite fit, method "interpolation" with a note. 0, -1 on
 * out-of-memory. */
static int fit_physical(jl_group_fit *f, const jl_summary *const *runs, const jl_model_options *opt,
                        const jl_descriptors *desc, fit_work *w)
{
    if (fit_rows(f, opt, w))
        return -1;
    w->d = (jl__model_data){
        w->mk, w->b + w->k0, w->P + w->k0, w->T + w->k0, (double)f->key.num_gpus, NAN, 0};
    jl__model_group_bounds(runs[0], desc, opt, w->lo, w->hi, w->held, &w->d);
    if (jl__model_fit_params(&w->d, w->lo, w->hi, opt, w->p, &f->cost)) {
        f->method = JL_FIT_INTERPOLATION;
        free(f->note);
        f->note = jl__strdup("the model fit failed numerically: log-log interpolation");
        return f->note ? 0 : -1;
    }
    f->method = JL_FIT_MODEL;
    f->n_starts = 18;
    f->n_refined = (int)opt->n_refine;
    fit_param_status(f, runs[0], w);
    fit_residuals(f, w);
    fit_intervals(f, opt, w);
    return fit_correction(f, opt, w);
}

jl_status jl_model_fit_group(const jl_summary *const *runs, size_t n, const jl_model_options *opt,
                             const jl_descriptors *desc, jl_group_fit **out, jl_error **err)
{
    jl_model_options dflt;
    if (!opt) {
        jl_model_options_default(&dflt);
        opt = &dflt;
    }
    *out = NULL;
    gsl_set_error_handler_off();
    if (n == 0)
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1, "no runs to fit");
    for (size_t i = 1; i < n; i++)
        if (run_key_cmp(runs[0], runs[i]))
            return jl_fail(err, JL_EUSAGE, runs[i]->file, runs[i]->run, NULL, -1,
                           "run is not in the group of the first run (model, task, "
                           "gpu_model, num_gpus, precision differ)");
    fit_work w = {0};
    jl_group_fit *f = fit_new(runs, n, opt, desc);
    if (!f)
        goto oom;
    fit_points(f, runs, n);
    if (f->n_points == 0) {
        f->method = JL_FIT_NONE;
        f->note = jl__strdup("no run has a positive avg_batch_size, avg_power_w and "
                             "output_throughput_tok_s");
        f->batch_ceiling = NAN;
        f->memory_ceiling = NAN;
    } else if (fit_ranges(f) || batch_ceiling(f, runs, n, opt, desc)) {
        goto oom;
    } else if (f->n_batch_sizes < opt->min_batch_sizes) {
        f->method = JL_FIT_INTERPOLATION;
        f->note =
            jl__asprintf("%zu distinct batch size%s (< %zu): not fitted; log-log "
                         "interpolation between the measured points, no intervals",
                         f->n_batch_sizes, f->n_batch_sizes == 1 ? "" : "s", opt->min_batch_sizes);
    } else if (fit_physical(f, runs, opt, desc, &w)) {
        goto oom;
    }
    if (f->method != JL_FIT_MODEL && !f->note)
        goto oom;
    free(w.buf);
    *out = f;
    return JL_OK;
oom:
    free(w.buf);
    jl_group_fit_free(f);
    return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "fitting a group");
}

/* The bounds of one group's fit, with what one sweep cannot identify held
 * at physical values (docs/model.md "Which parameters are fitted"):
 *   Ps    held near the GPU's idle power (the trace's measured
 *         gpu_idle_power_w, else the descriptor's idle_power_w) by a prior of
 *         relative width JM_PS_PRIOR_SD inside its box (jl__model_ps_range): a
 *         decode sweep barely separates static power from the
 *         batch-independent dynamic energy Ew;
 *   tw, ln_bw held at 0 for a dense model (descriptor: active = total
 *         parameters) when JM_HOLD_DENSE: there is no expert-activation term.
 * held[j] = 1 for a parameter held (lo == hi, or Ps with its prior).
 * opt->hold_params == 0 frees them all (the 9-parameter fit of before). */
void jl__model_group_bounds(const jl_summary *s, const jl_descriptors *desc,
                            const jl_model_options *opt, double lo[JM_NP], double hi[JM_NP],
                            int held[JM_NP], jl__model_data *d)
{
    double ps_lo, ps_hi;
    jl__model_ps_range(s, desc, &ps_lo, &ps_hi);
    jl__model_bounds(ps_lo, ps_hi, lo, hi);
    for (int j = 0; j < JM_NP; j++)
        held[j] = 0;
    d->ps_prior = NAN;
    d->ps_prior_w = 0;
    if (!opt->hold_params)
        return;
    double idle = desc ? jl_run_gpu_idle_w(&s->attrs, desc) : s->attrs.gpu_idle_power_w;
    if (isfinite(idle) && idle > ps_lo && idle < ps_hi) {
        d->ps_prior = idle;
        d->ps_prior_w = JM_RESID_SD / JM_PS_PRIOR_SD;
        held[JL_MP_PS] = 1;
    }
    const jl_model_desc *md = desc ? jl_descriptors_model(desc, s->attrs.model) : NULL;
    if (JM_HOLD_DENSE && md && isfinite(md->active_params) && isfinite(md->total_params) &&
        md->active_params >= md->total_params) {
        lo[JL_MP_TW] = hi[JL_MP_TW] = 0;
        lo[JL_MP_LN_BW] = hi[JL_MP_LN_BW] = 0;
        held[JL_MP_TW] = held[JL_MP_LN_BW] = 1;
    }
}

/* Every group fitted, with its siblings' sweeps attached for the pooled
 * sweep ends (pool.c). */
jl_status jl_model_fit_groups(const jl_model_group_list *gl, const jl_model_options *opt,
                              const jl_descriptors *desc, jl_group_fit **fits, jl_error **err)
{
    jl_status st = JL_OK;
    size_t i = 0;
    for (; i < gl->count; i++) {
        fits[i] = NULL;
        if ((st = jl_model_fit_group(gl->items[i].runs, gl->items[i].n_runs, opt, desc, &fits[i],
                                     err)) != JL_OK)
            break;
        if ((st = jl_model_fit_pool(fits[i], gl, i, opt)) != JL_OK) {
            st = jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "pooling sweep ends");
            i++;
            break;
        }
    }
    if (st != JL_OK)
        for (size_t k = 0; k < i && k < gl->count; k++) {
            jl_group_fit_free(fits[k]);
            fits[k] = NULL;
        }
    return st;
}
