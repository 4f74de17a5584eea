/* Predictions of a fitted group at an achieved batch, with intervals
 * (joules/model.h, docs/model.md "Predictions"). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>

#include "joules/model.h"
#include "model/model_internal.h"

static jl_interval none_interval(double v)
{
    return (jl_interval){v, NAN, NAN};
}

static double quad(const double cov[JM_NP][JM_NP], const double g[JM_NP])
{
    double s = 0;
    for (int i = 0; i < JM_NP; i++)
        for (int j = 0; j < JM_NP; j++)
            s += g[i] * cov[i][j] * g[j];
    return fmax(s, 0.0);
}

double jl__model_gp_var(const double *x, size_t n, double ell, double lambda, double xs)
{
    gsl_matrix *K = gsl_matrix_alloc(n ? n : 1, n ? n : 1);
    double *k = malloc((n ? n : 1) * sizeof *k), *a = malloc((n ? n : 1) * sizeof *a), v = NAN;
    if (!K || !k || !a || !n)
        goto end;
    for (size_t i = 0; i < n; i++) {
        double dx = xs - x[i];
        k[i] = exp(-dx * dx / (2 * ell * ell));
        for (size_t j = 0; j < n; j++) {
            double dy = x[i] - x[j];
            gsl_matrix_set(K, i, j, exp(-dy * dy / (2 * ell * ell)) + (i == j ? lambda : 0.0));
        }
    }
    gsl_vector_view kv = gsl_vector_view_array(k, n), av = gsl_vector_view_array(a, n);
    if (gsl_linalg_cholesky_decomp1(K) || gsl_linalg_cholesky_solve(K, &kv.vector, &av.vector))
        goto end;
    v = 1.0;
    for (size_t i = 0; i < n; i++)
        v -= k[i] * a[i];
    v = fmax(v, 0.0);
end:
    gsl_matrix_free(K);
    free(k);
    free(a);
    return v;
}

static double gp_post_var(const jl_group_fit *f, double xs)
{
    return jl__model_gp_var(f->gp_x, f->gp_n, f->gp_length, f->gp_noise, xs);
}

static jl_interval from_log(double ln, double var, double t, int ok)
{
    jl_interval r = {exp(ln), NAN, NAN};
    if (ok && isfinite(var) && isfinite(t)) {
        double h = t * sqrt(var);
        r.lo = exp(ln - h);
        r.hi = exp(ln + h);
    }
    return r;
}

static void decompose(const jl_group_fit *f, jl_prediction *o, double ps)
{
    double G = (double)f->key.num_gpus;
    o->static_power_w = isfinite(ps) ? G * ps : NAN;
    o->dynamic_power_w = o->power_w.value - o->static_power_w;
    o->utilisation = (isfinite(f->tdp_w) && isfinite(ps) && f->tdp_w > ps)
                         ? (o->power_w.value / G - ps) / (f->tdp_w - ps)
                         : NAN;
}

static jl_status predict_interp(const jl_group_fit *f, double batch, jl_prediction *o)
{
    size_t n = f->n_points, u = 0;
    double *x = malloc(3 * n * sizeof *x);
    if (!x)
        return JL_ENOMEM;
    double *yP = x + n, *yT = x + 2 * n;
    /* points are sorted by batch; equal batches are averaged (in logs) */
    for (size_t i = 0; i < n;) {
        size_t j = i;
        double sP = 0, sT = 0;
        while (j < n && f->points[j].batch == f->points[i].batch) {
            sP += log(f->points[j].power_w);
            sT += log(f->points[j].throughput_tok_s);
            j++;
        }
        x[u] = log(f->points[i].batch);
        yP[u] = sP / (double)(j - i);
        yT[u] = sT / (double)(j - i);
        u++;
        i = j;
    }
    double lb = log(batch);
    double lP = jl__model_interp(x, yP, u, lb), lT = jl__model_interp(x, yT, u, lb);
    free(x);
    o->power_w = none_interval(exp(lP));
    o->throughput_tok_s = none_interval(exp(lT));
    o->step_time_s = none_interval(batch / exp(lT));
    o->energy_per_token_j = none_interval(exp(lP - lT));
    o->model_power_w = o->model_throughput_tok_s = o->model_step_time_s =
        o->model_energy_per_token_j = none_interval(NAN);
    o->correction_energy = o->correction_power = o->correction_throughput = NAN;
    decompose(f, o, f->idle_w);
    return JL_OK;
}

/* A batch outside the measured range of a fit with siblings attached
 * (jl_model_fit_pool): energy per token mixed with the pooled sweep-end
 * prediction, by the code the leave-one-out scores (pool.c). The measured
 * end cap a is the group's lowest (highest) cap, the target cap the
 * batch's: lround(batch / batch_per_cap). */
static void pool_end(const jl_group_fit *f, double batch, jl_prediction *o)
{
    if (!(f->pool_weight > 0) || !f->pool_n_siblings || !(f->batch_per_cap > 0))
        return;
    long a = batch < f->batch_min ? f->cap_min : f->cap_max;
    double cr = batch / f->batch_per_cap;
    long c = cr < 1 ? 0 : lround(cr);
    double le;
    size_t n = 0;
    int interp = 0;
    if (jl__model_pooled_end(&f->pool_own, f->pool_siblings, f->pool_n_siblings, c, a, log(batch),
                             &le, &n, &interp))
        return;
    double w = fmin(f->pool_weight, 1.0);
    o->method = JL_FIT_POOLED;
    o->pooled_energy_per_token_j = exp(le);
    o->pool_weight = w;
    o->pool_siblings = n;
    o->pool_interpolated = interp;
    o->pool_anchor_cap = a;
    for (size_t i = 0; i < f->pool_own.n; i++)
        if (f->pool_own.cap[i] == a)
            o->pool_anchor_batch = exp(f->pool_own.ln_batch[i]);
    o->pool_target_cap = c;
    /* no interval: the pooled part has none */
    o->energy_per_token_j =
        none_interval(exp(jl__model_pool_mix(log(o->energy_per_token_j.value), le, w)));
}

jl_status jl_model_predict(const jl_group_fit *f, double batch, jl_prediction *o)
{
    memset(o, 0, sizeof *o);
    o->batch = batch;
    o->method = f->method;
    o->pooled_energy_per_token_j = NAN;
    o->energy_per_token_pi_lo_j = o->energy_per_token_pi_hi_j = NAN;
    if (!(isfinite(batch) && batch > 0))
        return JL_EUSAGE;
    o->extrapolated = batch < f->batch_min || batch > f->batch_max;
    o->beyond_ceiling = batch > f->batch_ceiling;
    if (f->method == JL_FIT_NONE)
        return JL_ENODATA;
    if (f->method == JL_FIT_INTERPOLATION)
        return predict_interp(f, batch, o);

    double p[JM_NP], lP, lT, gP[JM_NP], gT[JM_NP], gE[JM_NP];
    for (int j = 0; j < JM_NP; j++)
        p[j] = f->params[j].value;
    jl__model_eval(p, batch, (double)f->key.num_gpus, &lP, &lT, gP, gT);
    for (int j = 0; j < JM_NP; j++)
        gE[j] = gP[j] - gT[j];
    double vP = NAN, vT = NAN, vE = NAN, t = f->t_quantile;
    if (f->has_ci) {
        vP = quad(f->cov, gP);
        vT = quad(f->cov, gT);
        vE = quad(f->cov, gE);
    }
    double lb = log(batch), lE = lP - lT;
    o->model_power_w = from_log(lP, vP, t, f->has_ci);
    o->model_throughput_tok_s = from_log(lT, vT, t, f->has_ci);
    o->model_energy_per_token_j = from_log(lE, vE, t, f->has_ci);
    /* ln tau = ln b - ln T: same variance as ln T, bounds swapped */
    o->model_step_time_s = from_log(lb - lT, vT, t, f->has_ci);

    double cP = 0, cT = 0, gv = 0;
    if (f->has_correction) {
        cP = jl__model_gp_mean(f->gp_x, f->gp_n, f->gp_length, f->gp_alpha_power, lb);
        cT = jl__model_gp_mean(f->gp_x, f->gp_n, f->gp_length, f->gp_alpha_throughput, lb);
        gv = gp_post_var(f, lb);
    }
    o->correction_power = exp(cP);
    o->correction_throughput = exp(cT);
    o->correction_energy = exp(cP - cT);
    double wP = fmax(f->gp_scale2_power, 0) * gv, wT = fmax(f->gp_scale2_throughput, 0) * gv,
           wE = fmax(f->gp_scale2_energy, 0) * gv;
    o->power_w = from_log(lP + cP, vP + wP, t, f->has_ci);
    /* physical bounds: power at most G x TDP (the interval, never below the
     * prediction itself; a prediction above is flagged by u > 1) */
    double pmax = (double)f->key.num_gpus * f->tdp_w;
    if (isfinite(pmax) && pmax > 0) {
        o->power_w.hi = fmin(o->power_w.hi, fmax(pmax, o->power_w.value));
        o->model_power_w.hi = fmin(o->model_power_w.hi, fmax(pmax, o->model_power_w.value));
    }
    o->throughput_tok_s = from_log(lT + cT, vT + wT, t, f->has_ci);
    o->energy_per_token_j = from_log(lE + cP - cT, vE + wE, t, f->has_ci);
    o->step_time_s = from_log(lb - lT - cT, vT + wT, t, f->has_ci);
    decompose(f, o, p[JL_MP_PS]);
    if (o->extrapolated)
        pool_end(f, batch, o);
    /* the prediction interval of one new run, as in the leave-one-out
     * (loo.c): the fitted rows' range, residuals and GP */
    double xlo = HUGE_VAL, xhi = -HUGE_VAL;
    for (size_t i = 0; i < f->n_points; i++)
        if (!f->points[i].regime_excluded) {
            xlo = fmin(xlo, log(f->points[i].batch));
            xhi = fmax(xhi, log(f->points[i].batch));
        }
    double sd = jl__model_pi_sd(f->rms_ln_energy * f->rms_ln_energy,
                                f->has_correction ? f->gp_scale2_energy : 0.0,
                                f->has_correction ? gv : 1.0, lb, xlo, xhi);
    if (isfinite(sd) && isfinite(o->energy_per_token_j.value)) {
        o->energy_per_token_pi_lo_j = o->energy_per_token_j.value * exp(-JM_PI_Z * sd);
        o->energy_per_token_pi_hi_j = o->energy_per_token_j.value * exp(JM_PI_Z * sd);
    }
    return JL_OK;
}

jl_status jl_model_check_batch(const jl_group_fit *f, double batch, jl_error **err)
{
    if (!(isfinite(batch) && batch > 0))
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1, "batch %g is not a positive number",
                       batch);
    if (f->method == JL_FIT_NONE)
        return jl_fail(err, JL_ENODATA, NULL, NULL, NULL, -1, "the group has no usable run");
    if (batch > f->batch_ceiling) {
        jl_status st = jl_fail(err, JL_ELIMIT, NULL, NULL, NULL, -1,
                               "batch %g is beyond the batch ceiling %.4g (%s)", batch,
                               f->batch_ceiling, f->ceiling_reason ? f->ceiling_reason : "");
        jl_error_set_side(err ? *err : NULL, JL_SIDE_REQUEST);
        return st;
    }
    return JL_OK;
}

double jl__model_pi_sd(double s2n, double s2f, double gv, double xs, double xlo, double xhi)
{
    double d = xs < xlo ? xlo - xs : (xs > xhi ? xs - xhi : 0.0);
    double v = fmax(JM_PI_RESID * s2n, JM_PI_NOISE * JM_PI_NOISE) +
               fmax(s2f, 0.0) * (isfinite(gv) ? gv : 1.0) + (JM_PI_EXT * d) * (JM_PI_EXT * d);
    return sqrt(v);
}
