/* Internals of the latent-factor model shared by its files. The calls run
 * one way (no cycle): core.c and sweep.c at the bottom (calling no other
 * file of src/model), pool.c and ceiling.c on them, fit.c on those, then
 * predict.c, loo.c, model_json.c, whatif.c and diagnose.c, and set.c (the
 * pipeline handle) at the top (docs/model.md "Sources"). */
#ifndef JOULES_MODEL_INTERNAL_H
#define JOULES_MODEL_INTERNAL_H

#include <stddef.h>

#include "joules/model.h"

#define JM_NP JL_MP_COUNT

/* The data of one fit: n rows, achieved batch, total power, throughput. */
typedef struct jl__model_data {
    size_t n;
    const double *b, *P, *T;
    double G;
    /* > 0: a prior on Ps, the row ps_prior_w ln(Ps / ps_prior) in place of
     * Ps's ridge row (static power held near the idle power, with its
     * uncertainty: docs/model.md "Which parameters are fitted") */
    double ps_prior, ps_prior_w;
} jl__model_data;

/* Model at b: ln P, ln T and, when dlnP/dlnT are non-NULL, their gradients
 * with respect to the parameters (p-space). */
void jl__model_eval(const double p[JM_NP], double b, double G, double *lnP, double *lnT,
                    double dlnP[JM_NP], double dlnT[JM_NP]);

/* Parameter bounds for a GPU: Ps in [idle_lo, idle_hi] per GPU. */
void jl__model_bounds(double idle_lo, double idle_hi, double lo[JM_NP], double hi[JM_NP]);

/* The bounds of a group's fit with the parameters held at physical values
 * (held[j] = 1, lo[j] == hi[j]): fit.c, docs/model.md. */
void jl__model_group_bounds(const jl_summary *s, const jl_descriptors *desc,
                            const jl_model_options *opt, double lo[JM_NP], double hi[JM_NP],
                            int held[JM_NP], jl__model_data *d);
/* The prior on Ps: relative sd of the idle power as static power, and the
 * typical relative residual of ln P / ln T it is weighed against. */
#define JM_PS_PRIOR_SD 0.1
#define JM_RESID_SD 0.02
#define JM_HOLD_DENSE 1

/* The range of Ps (per GPU) for a run's GPU (fit.c). */
void jl__model_ps_range(const jl_summary *s, const jl_descriptors *desc, double *lo, double *hi);

/* Fit the physical model (18 starts, best n_refine refined by GSL). Returns
 * 0 and p, or -1 when no start produced a finite fit (or out of memory).
 * n_starts/n_refined may be NULL. */
int jl__model_fit_params(const jl__model_data *d, const double lo[JM_NP], const double hi[JM_NP],
                         const jl_model_options *opt, double p[JM_NP], double *cost);

/* Rows at the smallest / largest batch measured in another regime than the
 * rest (throughput not rising with batch by the factor `ratio`): keep[i] = 0.
 * Returns the number kept (n when ratio <= 0). */
size_t jl__model_regime_keep(const double *b, const double *T, size_t n, double ratio, int *keep);

/* GP posterior mean weights: alpha = (K + lambda I)^-1 r at x[0..n).
 * Returns 0, -1 on failure. */
int jl__model_gp_weights(const double *x, size_t n, double ell, double lambda, const double *r,
                         double *alpha);
/* 1 - k*^T (K + lambda I)^-1 k*: the GP's posterior variance at xs in units
 * of sigma_f^2 (predict.c). NaN on failure. */
double jl__model_gp_var(const double *x, size_t n, double ell, double lambda, double xs);
/* sum_i k(x*, x_i) alpha_i */
double jl__model_gp_mean(const double *x, size_t n, double ell, const double *alpha, double xs);

/* Piecewise-linear interpolation of y over x (sorted ascending, distinct),
 * linear extrapolation from the end segments, constant for n == 1. */
double jl__model_interp(const double *x, const double *y, size_t n, double xs);

/* ---- a group's measured sweep (sweep.c) ---- */

/* A run's energy per token (its figure, else power / throughput). */
double jl__model_run_energy(const jl_summary *s);
/* The per-cap means of a group's runs (all of them). 0, -1 on OOM. */
int jl__model_sweep_of(const jl_model_group *g, jl_sweep_means *out);
void jl__model_sweep_clear(jl_sweep_means *s);

/* ---- pooled sweep ends (pool.c) ---- */

/* Sweeps of the other groups of groups->items[gi]'s model (*out: *n of
 * them, caller clears each and frees the array). 0, -1 on OOM. */
int jl__model_siblings(const jl_model_group_list *groups, size_t gi, jl_sweep_means **out,
                       size_t *n);
/* The pooled ln e at ln b of a group whose measured end cap is a (own: its
 * sweep; only the entry of cap a is read), for target cap c, from the
 * elasticities of the sibling sweeps (docs/model-design.md §4). 0 and
 * *lne (with the number of siblings used and whether they were
 * interpolated), or -1 when no sibling gives one. */
int jl__model_pooled_end(const jl_sweep_means *own, const jl_sweep_means *sib, size_t ns, long c,
                         long a, double lnb, double *lne, size_t *n_used, int *interpolated);
/* (1 - w) lne_model + w lne_pooled, w capped at 1 */
double jl__model_pool_mix(double lne_model, double lne_pooled, double w);

/* The standard deviation, in ln e, of one new run's energy per token
 * predicted at ln b = xs by a fit whose training rows span [xlo, xhi] in
 * ln b (docs/model.md "Prediction intervals of the leave-one-out"):
 *   sd^2 = max(JM_PI_RESID s2n, JM_PI_NOISE^2)  run-to-run noise (s2n:
 *                                         mean square of the physical model's
 *                                         ln e residuals of the training
 *                                         rows, of which the GP absorbs the
 *                                         systematic part)
 *        + max(s2f, 0) gv                 the GP's uncertainty of the mean
 *                                         (gv: posterior variance in units of
 *                                         its signal variance s2f)
 *        + (JM_PI_EXT d)^2                d: distance outside [xlo, xhi]
 * The interval is pred x exp(+-JM_PI_Z sd). */
double jl__model_pi_sd(double s2n, double s2f, double gv, double xs, double xlo, double xhi);
#define JM_PI_Z 1.96
/* chosen on the leave-one-out of the published data from a grid of 8
 * settings (docs/model-accuracy.md "Parameters held, and prediction intervals") */
#define JM_PI_RESID 0.25
#define JM_PI_NOISE 0.035
#define JM_PI_EXT 0.6

/* The share of the full-attention KV bytes per token (the descriptor's
 * kv_bytes_per_token) that a sequence of ctx tokens of context holds:
 * window-limited attention layers (sliding window, chunked local attention)
 * hold min(ctx, window) tokens, the others all of them; 1 where the model has
 * no such layers or the descriptor does not say (ceiling.c). */
double jl__model_window_scale(const jl_model_desc *md, double ctx);

/* Median of v[0..n) (copies). */
double jl__model_median(const double *v, size_t n);

/* A leave-one-out error summary as JSON (n, median, p90, max, interval
 * coverage and median half-width): fit --loo and --what-if-loo alike. */
json_t *jl__model_loo_stats_json(jl_loo_stats s);

/* jl_whatif_loo_run, holding out only the groups of only_model (and its
 * FP8/BF16 twin; NULL: every group), calling progress (may be NULL) before
 * each group and once at the end (whatif.c; jl_model_set_whatif_loo). */
jl_status jl__whatif_loo_run(const jl_model_group_list *gl, const jl_descriptors *desc,
                             const char *only_model, jl_model_progress_fn progress,
                             void *progress_ctx, jl_whatif_loo *out, jl_error **err);

/* ["few_pairs", ...]: the names of the JL_WHATIF_WIDE_* bits set (whatif.c). */
json_t *jl__whatif_widened_json(unsigned widened);

/* 1 for an extra attribute that measures a run's memory on its own GPU
 * model (the KV pool's size, KV-cache usage gauges): a memory ceiling on
 * another GPU model cannot use it (ceiling.c; whatif.c). */
int jl__memory_own_gpu_key(const char *key);

#endif
