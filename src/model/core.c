/* The physical model, its bounded fit with GSL, the GP correction, the
 * log-log interpolator (docs/model-design.md §4) and the model's default
 * options: the bottom of src/model, calling none of its other files. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>

#include "core/stats.h"
#include "model/model_internal.h"

#define N_STARTS 18

/* The model's options (every knob of fit, loo, predict and pool). */
void jl_model_options_default(jl_model_options *o)
{
    o->min_batch_sizes = 4;
    o->correction = 1;
    o->gp_length = 1.0;
    o->gp_noise = 0.1;
    o->n_refine = 4;
    o->ridge = 1e-4;
    o->max_iter = 200;
    o->confidence = 0.95;
    o->extrapolation_factor = 2.0;
    o->memory_share = 0.9;
    o->robust = 0.0;
    o->pool_weight = 0.7;
    o->regime_ratio = 0.85;
    o->hold_params = 1;
}

void jl__model_eval(const double p[JM_NP], double b, double G, double *lnP, double *lnT,
                    double dlnP[JM_NP], double dlnT[JM_NP])
{
    const double Ps = p[JL_MP_PS], Ew = p[JL_MP_EW], Et = p[JL_MP_ET], q = p[JL_MP_Q];
    const double t0 = p[JL_MP_T0], t1 = p[JL_MP_T1], g = p[JL_MP_G], tw = p[JL_MP_TW];
    const double bw = exp(p[JL_MP_LN_BW]);
    const double lb = log(b), bg = exp(g * lb), bq = exp(q * lb), ex = exp(-b / bw);
    const double tau = t0 + t1 * bg + tw * (1.0 - ex);
    const double E = G * Ps * tau + Ew + Et * bq;
    *lnP = log(E) - log(tau);
    *lnT = lb - log(tau);
    if (!dlnP)
        return;
    double dtau[JM_NP] = {0}, dE[JM_NP] = {0};
    dtau[JL_MP_T0] = 1.0;
    dtau[JL_MP_T1] = bg;
    dtau[JL_MP_G] = t1 * bg * lb;
    dtau[JL_MP_TW] = 1.0 - ex;
    dtau[JL_MP_LN_BW] = -tw * ex * (b / bw);
    for (int j = 0; j < JM_NP; j++)
        dE[j] = G * Ps * dtau[j];
    dE[JL_MP_PS] = G * tau;
    dE[JL_MP_EW] = 1.0;
    dE[JL_MP_ET] = bq;
    dE[JL_MP_Q] = Et * bq * lb;
    for (int j = 0; j < JM_NP; j++) {
        dlnP[j] = dE[j] / E - dtau[j] / tau;
        dlnT[j] = -dtau[j] / tau;
    }
}

void jl__model_bounds(double idle_lo, double idle_hi, double lo[JM_NP], double hi[JM_NP])
{
    static const double L[JM_NP] = {0, 1e-4, 1e-7, 0.3, 1e-5, 1e-10, 0.3, 0.0, 0.0};
    static const double H[JM_NP] = {0, 1e3, 1e2, 2.0, 5.0, 1.0, 2.5, 1.0, 0};
    memcpy(lo, L, sizeof L);
    memcpy(hi, H, sizeof H);
    lo[JL_MP_PS] = idle_lo;
    hi[JL_MP_PS] = idle_hi;
    hi[JL_MP_LN_BW] = log(512.0);
}

/* ---- bounded parameterisation p = lo + (hi - lo) sigma(theta) ---------- */

static double to_p(double th, double lo, double hi)
{
    return lo + (hi - lo) / (1.0 + exp(-th));
}

static double to_theta(double p, double lo, double hi)
{
    double f = (p - lo) / (hi - lo);
    if (!(f >= 1e-6))
        f = 1e-6;
    if (f > 1 - 1e-6)
        f = 1 - 1e-6;
    return log(f / (1 - f));
}

typedef struct fit_ctx {
    const jl__model_data *d;
    const double *lo, *hi;
    double ridge;
    const double *w; /* per data row (2n) square-root weights, NULL = 1 */
} fit_ctx;

static void theta_to_p(const fit_ctx *c, const gsl_vector *th, double p[JM_NP])
{
    for (int j = 0; j < JM_NP; j++)
        p[j] = to_p(gsl_vector_get(th, (size_t)j), c->lo[j], c->hi[j]);
}

static int resid_f(const gsl_vector *th, void *vc, gsl_vector *f)
{
    const fit_ctx *c = vc;
    const jl__model_data *d = c->d;
    double p[JM_NP];
    theta_to_p(c, th, p);
    for (size_t i = 0; i < d->n; i++) {
        double lP, lT;
        jl__model_eval(p, d->b[i], d->G, &lP, &lT, NULL, NULL);
        double rP = lP - log(d->P[i]), rT = lT - log(d->T[i]);
        /* A non-finite model value is a rejected step, not a failure. */
        if (c->w) {
            rP *= c->w[i];
            rT *= c->w[d->n + i];
        }
        gsl_vector_set(f, i, isfinite(rP) ? rP : 1e10);
        gsl_vector_set(f, d->n + i, isfinite(rT) ? rT : 1e10);
    }
    for (int j = 0; j < JM_NP; j++)
        gsl_vector_set(f, 2 * d->n + (size_t)j, c->ridge * gsl_vector_get(th, (size_t)j));
    if (d->ps_prior_w > 0)
        gsl_vector_set(f, 2 * d->n + JL_MP_PS, d->ps_prior_w * log(p[JL_MP_PS] / d->ps_prior));
    return GSL_SUCCESS;
}

static int resid_df(const gsl_vector *th, void *vc, gsl_matrix *J)
{
    const fit_ctx *c = vc;
    const jl__model_data *d = c->d;
    double p[JM_NP], dp[JM_NP];
    theta_to_p(c, th, p);
    for (int j = 0; j < JM_NP; j++)
        dp[j] = (p[j] - c->lo[j]) * (c->hi[j] - p[j]) / (c->hi[j] - c->lo[j]);
    gsl_matrix_set_zero(J);
    for (size_t i = 0; i < d->n; i++) {
        double lP, lT, gP[JM_NP], gT[JM_NP];
        jl__model_eval(p, d->b[i], d->G, &lP, &lT, gP, gT);
        for (int j = 0; j < JM_NP; j++) {
            double a = gP[j] * dp[j], b = gT[j] * dp[j];
            if (c->w) {
                a *= c->w[i];
                b *= c->w[d->n + i];
            }
            gsl_matrix_set(J, i, (size_t)j, isfinite(a) ? a : 0.0);
            gsl_matrix_set(J, d->n + i, (size_t)j, isfinite(b) ? b : 0.0);
        }
    }
    for (int j = 0; j < JM_NP; j++)
        gsl_matrix_set(J, 2 * d->n + (size_t)j, (size_t)j, c->ridge);
    if (d->ps_prior_w > 0)
        gsl_matrix_set(J, 2 * d->n + JL_MP_PS, JL_MP_PS,
                       d->ps_prior_w * dp[JL_MP_PS] / p[JL_MP_PS]);
    return GSL_SUCCESS;
}

static double cost_at(const fit_ctx *c, const double p[JM_NP])
{
    const jl__model_data *d = c->d;
    double s = 0;
    for (size_t i = 0; i < d->n; i++) {
        double lP, lT;
        jl__model_eval(p, d->b[i], d->G, &lP, &lT, NULL, NULL);
        double rP = lP - log(d->P[i]), rT = lT - log(d->T[i]);
        s += rP * rP + rT * rT;
    }
    for (int j = 0; j < JM_NP; j++) {
        double r = c->ridge * to_theta(p[j], c->lo[j], c->hi[j]);
        if (j == JL_MP_PS && d->ps_prior_w > 0)
            r = d->ps_prior_w * log(p[j] / d->ps_prior);
        s += r * r;
    }
    return isfinite(s) ? s : HUGE_VAL;
}

/* 18 starts: 3 step-time exponents x 2 energy exponents x 3 MoE splits
 * (loop order g0 -> q0 -> (frac, bw0)), as docs/model-design.md tabulates. */
static void initial_guesses(const jl__model_data *d, const double lo[JM_NP], const double hi[JM_NP],
                            double starts[N_STARTS][JM_NP])
{
    static const double G0[3] = {0.7, 1.0, 1.5}, Q0[2] = {0.8, 1.0};
    static const double FR[3] = {0.0, 0.5, 0.5}, BW[3] = {8.0, 16.0, 64.0};
    const double Ps = 0.5 * (lo[JL_MP_PS] + hi[JL_MP_PS]);
    double tmin = HUGE_VAL, tmax = -HUGE_VAL, bmax = 0;
    for (size_t i = 0; i < d->n; i++) {
        double tau = d->b[i] / d->T[i];
        tmin = fmin(tmin, tau);
        tmax = fmax(tmax, tau);
        bmax = fmax(bmax, d->b[i]);
    }
    int k = 0;
    for (int gi = 0; gi < 3; gi++) {
        double g0 = G0[gi];
        double t0 = fmax(0.8 * tmin, 2e-5);
        double t1 = fmax((tmax - t0) / pow(bmax, g0), 1e-9);
        double edmin = HUGE_VAL, edmax = -HUGE_VAL;
        for (size_t i = 0; i < d->n; i++) {
            double tt = t0 + t1 * pow(d->b[i], g0);
            double ed = fmax(d->P[i] / d->G - Ps, 1.0) * tt;
            edmin = fmin(edmin, ed);
            edmax = fmax(edmax, ed);
        }
        for (int qi = 0; qi < 2; qi++) {
            double q0 = Q0[qi];
            double Ew = fmax(0.5 * edmin, 1e-3);
            double Et = fmax((edmax - Ew) / pow(bmax, q0), 1e-6);
            for (int m = 0; m < 3; m++, k++) {
                double s[JM_NP] = {
                    Ps,        Ew, Et, q0, t0 * (1 - FR[m]) + 1e-5, t1, g0, fmax(t0 * FR[m], 1e-6),
                    log(BW[m])};
                for (int j = 0; j < JM_NP; j++) {
                    double a = lo[j] + 1e-6 * (hi[j] - lo[j]), z = hi[j] - 1e-6 * (hi[j] - lo[j]);
                    starts[k][j] = s[j] < a ? a : (s[j] > z ? z : s[j]);
                }
            }
        }
    }
}

int jl__model_fit_params(const jl__model_data *d, const double lo[JM_NP], const double hi[JM_NP],
                         const jl_model_options *opt, double p[JM_NP], double *cost_out)
{
    fit_ctx c = {d, lo, hi, opt->ridge, NULL};
    double starts[N_STARTS][JM_NP], cost0[N_STARTS];
    int order[N_STARTS];
    initial_guesses(d, lo, hi, starts);
    for (int k = 0; k < N_STARTS; k++) {
        cost0[k] = cost_at(&c, starts[k]);
        order[k] = k;
    }
    /* stable selection of the lowest initial costs (ties: lower index) */
    for (int i = 1; i < N_STARTS; i++) {
        int v = order[i], j = i;
        while (j > 0 && cost0[order[j - 1]] > cost0[v]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    size_t nres = 2 * d->n + JM_NP;
    gsl_multifit_nlinear_parameters par = gsl_multifit_nlinear_default_parameters();
    par.trs = gsl_multifit_nlinear_trs_lm;
    par.scale = gsl_multifit_nlinear_scale_marquardt;
    gsl_multifit_nlinear_workspace *w =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, nres, JM_NP);
    gsl_vector *th = gsl_vector_alloc(JM_NP);
    int found = -1;
    double best = HUGE_VAL;
    if (!w || !th)
        goto end;
    gsl_multifit_nlinear_fdf fdf = {resid_f, resid_df, NULL, nres, JM_NP, &c, 0, 0, 0};
    size_t nref = opt->n_refine < 1 ? 1 : (opt->n_refine > N_STARTS ? N_STARTS : opt->n_refine);
    for (size_t r = 0; r < nref; r++) {
        const double *s = starts[order[r]];
        for (int j = 0; j < JM_NP; j++)
            gsl_vector_set(th, (size_t)j, to_theta(s[j], lo[j], hi[j]));
        if (gsl_multifit_nlinear_init(th, &fdf, w) != GSL_SUCCESS)
            continue;
        int info = 0;
        (void)gsl_multifit_nlinear_driver((size_t)opt->max_iter, 1e-10, 1e-10, 0.0, NULL, NULL,
                                          &info, w);
        double q[JM_NP];
        theta_to_p(&c, gsl_multifit_nlinear_position(w), q);
        double cst;
        gsl_blas_ddot(gsl_multifit_nlinear_residual(w), gsl_multifit_nlinear_residual(w), &cst);
        int ok = isfinite(cst);
        for (int j = 0; j < JM_NP; j++)
            ok = ok && isfinite(q[j]);
        if (ok && cst < best) {
            best = cst;
            memcpy(p, q, sizeof q);
            found = 0;
        }
    }
    if (found == 0 && opt->robust > 0) {
        /* one IRLS pass with Cauchy weights: w = 1/(1 + (r/c)^2), c = robust x
         * the residuals' MAD-based scale (at least 1 %), refined from the fit */
        double *wt = malloc(2 * d->n * sizeof *wt), *ab = malloc(2 * d->n * sizeof *ab);
        if (wt && ab) {
            for (size_t i = 0; i < d->n; i++) {
                double lP, lT;
                jl__model_eval(p, d->b[i], d->G, &lP, &lT, NULL, NULL);
                ab[i] = fabs(lP - log(d->P[i]));
                ab[d->n + i] = fabs(lT - log(d->T[i]));
            }
            double sc = fmax(1.4826 * jl__model_median(ab, 2 * d->n), 0.01) * opt->robust;
            for (size_t i = 0; i < 2 * d->n; i++)
                wt[i] = 1.0 / sqrt(1.0 + (ab[i] / sc) * (ab[i] / sc));
            c.w = wt;
            for (int j = 0; j < JM_NP; j++)
                gsl_vector_set(th, (size_t)j, to_theta(p[j], lo[j], hi[j]));
            if (gsl_multifit_nlinear_init(th, &fdf, w) == GSL_SUCCESS) {
                int info = 0;
                (void)gsl_multifit_nlinear_driver((size_t)opt->max_iter, 1e-10, 1e-10, 0.0, NULL,
                                                  NULL, &info, w);
                double q[JM_NP];
                theta_to_p(&c, gsl_multifit_nlinear_position(w), q);
                int ok = 1;
                for (int j = 0; j < JM_NP; j++)
                    ok = ok && isfinite(q[j]);
                if (ok)
                    memcpy(p, q, sizeof q);
            }
            c.w = NULL;
        }
        free(wt);
        free(ab);
    }
end:
    gsl_vector_free(th);
    if (w)
        gsl_multifit_nlinear_free(w);
    if (cost_out)
        *cost_out = best;
    return found;
}

/* ---- regime breaks at the ends of a sweep ------------------------------ */

/* Within one regime, batching never loses throughput: decoding 2b sequences
 * per step takes less than twice the step time of b sequences (the weights
 * are read once per step for all of them), so T(2b) > T(b). A row at the
 * lowest batch whose throughput exceeds, by more than the factor `ratio`,
 * that of a row with at least twice its batch was therefore measured in a
 * different regime from the rest of the sweep -- at small batch the GPU
 * kept up, above it an upstream limit (CPU-side preprocessing of images and
 * video, paper §3.2) caps the achieved throughput. Likewise a row at the
 * highest batch with a throughput below `ratio` x that of a row with at
 * most half its batch is past the memory ceiling (KV preemption and
 * recomputation). Such rows bend a smooth fit of the others: keep[i] = 0
 * excludes them. Only the rows at the smallest / largest batch are tested,
 * and nothing is excluded unless at least 3 distinct batches remain.
 * Returns the number of rows kept. */
size_t jl__model_regime_keep(const double *b, const double *T, size_t n, double ratio, int *keep)
{
    double bmin = HUGE_VAL, bmax = -HUGE_VAL;
    for (size_t i = 0; i < n; i++) {
        keep[i] = 1;
        bmin = fmin(bmin, b[i]);
        bmax = fmax(bmax, b[i]);
    }
    if (!(ratio > 0))
        return n;
    int low = 0, high = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            if (b[i] == bmin && b[j] >= 2 * b[i] && T[j] < ratio * T[i])
                low = 1;
            if (b[j] == bmax && b[j] >= 2 * b[i] && T[j] < ratio * T[i])
                high = 1;
        }
    size_t kept = n, distinct = 0;
    for (size_t i = 0; i < n; i++) {
        if ((low && b[i] == bmin) || (high && b[i] == bmax))
            keep[i] = 0;
    }
    /* distinct batches among kept rows (approximate: distinct b values) */
    for (size_t i = 0; i < n; i++) {
        if (!keep[i])
            continue;
        size_t k = 0;
        while (k < i && !(keep[k] && b[k] == b[i]))
            k++;
        distinct += k == i;
    }
    if (distinct < 3) {
        for (size_t i = 0; i < n; i++)
            keep[i] = 1;
        return n;
    }
    kept = 0;
    for (size_t i = 0; i < n; i++)
        kept += (size_t)keep[i];
    return kept;
}

/* ---- GP residual correction -------------------------------------------- */

int jl__model_gp_weights(const double *x, size_t n, double ell, double lambda, const double *r,
                         double *alpha)
{
    if (n == 0)
        return 0;
    gsl_matrix *K = gsl_matrix_alloc(n, n);
    if (!K)
        return -1;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double dx = x[i] - x[j];
            gsl_matrix_set(K, i, j, exp(-dx * dx / (2 * ell * ell)) + (i == j ? lambda : 0.0));
        }
    gsl_vector_const_view rv = gsl_vector_const_view_array(r, n);
    gsl_vector_view av = gsl_vector_view_array(alpha, n);
    int rc = -1;
    if (gsl_linalg_cholesky_decomp1(K) == GSL_SUCCESS &&
        gsl_linalg_cholesky_solve(K, &rv.vector, &av.vector) == GSL_SUCCESS)
        rc = 0;
    gsl_matrix_free(K);
    return rc;
}

double jl__model_gp_mean(const double *x, size_t n, double ell, const double *alpha, double xs)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        double dx = xs - x[i];
        s += exp(-dx * dx / (2 * ell * ell)) * alpha[i];
    }
    return s;
}

/* ---- interpolation ---------------------------------------------------- */

double jl__model_interp(const double *x, const double *y, size_t n, double xs)
{
    if (n == 0)
        return NAN;
    if (n == 1)
        return y[0];
    size_t i = 1;
    while (i < n - 1 && x[i] < xs)
        i++;
    return y[i - 1] + (y[i] - y[i - 1]) * (xs - x[i - 1]) / (x[i] - x[i - 1]);
}

double jl__model_median(const double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double *c = malloc(n * sizeof *c);
    if (!c)
        return NAN;
    memcpy(c, v, n * sizeof *c);
    double m = jl__median_d(c, n);
    free(c);
    return m;
}
