/* joules/model.h — the batch-size latent-factor model of one group.
 *
 * A group is the set of runs that differ only in their batch cap: same
 * (model, task, gpu_model, num_gpus, precision). Its x is the achieved batch
 * b = avg_batch_size. For a group with enough distinct batch caps (default
 * 4) joules fits the physical model of docs/model-design.md §4:
 *
 *   step time        tau(b) = t0 + t1 b^g + tw (1 - exp(-b/bw))        [s]
 *   energy per step  E(b)   = G Ps tau(b) + Ew + Et b^q                  [J]
 *   power            P(b)   = E/tau = G Ps + (Ew + Et b^q)/tau           [W]
 *   throughput       T(b)   = b/tau                                      [tokens/s]
 *   energy per token e(b)   = E/b = P/T                                  [J/token]
 *   utilisation      u(b)   = (P(b)/G - Ps)/(TDP - Ps)                   [1]
 *
 * by bounded nonlinear least squares (GSL) on relative errors of power and
 * throughput, then adds a Gaussian-process correction of the residuals in
 * ln b (the "correction"). Everything a prediction reports says which part
 * is the physical model and which the correction. A group with fewer batch
 * caps is interpolated log-log between its measured points (method
 * "interpolation"). docs/model.md is the user-facing description.
 *
 * Ownership: every jl_group_fit / jl_model_group_list / jl_loo_result is owned by
 * the caller and released by its free/clear function, which accepts NULL.
 * Pointers to runs (`const jl_summary *`) are borrowed from the summary list
 * the caller passed in and must outlive the fit.
 */
#ifndef JOULES_MODEL_H
#define JOULES_MODEL_H

#include <stddef.h>

#ifdef JOULES_EXPERIMENTAL
#include <jansson.h>
#endif

#include "joules/descriptors.h"
#include "joules/error.h"
#include "joules/study.h"
#include "joules/summary.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

/* ---- groups ------------------------------------------------------------ */

/* The per-cap means of one sweep: for each distinct max_batch_size (sorted
 * ascending) the mean ln avg_batch_size and mean ln energy per token of its
 * runs. Arrays owned by the struct. */
typedef struct jl_sweep_means {
    size_t n;
    long *cap;
    double *ln_batch, *ln_energy;
} jl_sweep_means;

/* The key of a group. Strings are owned by the key. */
typedef struct jl_group_key {
    char *model;
    char *task;
    char *gpu_model;
    long num_gpus;
    char *precision;
} jl_group_key;

/* "model=M,task=T,gpu_model=G,num_gpus=N,precision=P" — the same text
 * `joules predict --group` accepts. Caller frees. NULL on out-of-memory. */
char *jl_group_key_format(const jl_group_key *k);
/* Compare two keys (strcmp order on model, task, gpu_model, num_gpus,
 * precision): the order groups are listed in. */
int jl_group_key_cmp(const jl_group_key *a, const jl_group_key *b);
/* Frees a key's strings and zeroes it. NULL is fine. */
void jl_group_key_clear(jl_group_key *k);

typedef struct jl_model_group {
    jl_group_key key;
    const jl_summary **runs; /* borrowed; sorted by (max_batch_size, list order) */
    size_t *run_index;       /* run_index[k]: the list index of runs[k] */
    size_t n_runs;
    size_t n_batch_sizes; /* distinct max_batch_size values */
} jl_model_group;

typedef struct jl_model_group_list {
    jl_model_group *items;
    size_t count;
} jl_model_group_list;

/* Group the LLM/MLLM runs of a list (workload llm or mllm, or any run with
 * tokens) that have the five key attributes, a positive max_batch_size and
 * finite positive avg_batch_size, avg_power_w and output_throughput_tok_s.
 * Other runs are skipped (they are not modelled). Groups come out sorted by
 * key; duplicate runs (same key and cap) are all kept. */
jl_status jl_model_groups(const jl_summary_list *l, jl_model_group_list *out, jl_error **err);
void jl_group_list_clear(jl_model_group_list *gl);

/* ---- fit ----------------------------------------------------------------- */

typedef enum {
    JL_FIT_NONE = 0,      /* no usable point: nothing can be said */
    JL_FIT_MODEL,         /* the physical model (+ GP correction) */
    JL_FIT_INTERPOLATION, /* too few batch sizes: log-log interpolation */
    JL_FIT_POOLED         /* a prediction only: the model's energy per token
                             past the measured range mixed with the pooled
                             sweep-end prediction (jl_model_fit_pool) */
} jl_fit_method;

/* "none", "model", "interpolation", "pooled" */
const char *jl_fit_method_name(jl_fit_method m);

/* X(ID, name, unit, description): the parameters of the physical model in
 * the order of the parameter vector. */
#define JL_MODEL_PARAM_TABLE(X)                                                       \
    X(PS, "Ps", "W", "static power per GPU (burned for the whole step)")              \
    X(EW, "Ew", "J", "dynamic energy per step independent of the batch (all GPUs)")   \
    X(ET, "Et", "J", "coefficient of the batch-dependent dynamic energy per step")    \
    X(Q, "q", "1", "exponent of the batch-dependent dynamic energy")                  \
    X(T0, "t0", "s", "step-time floor")                                               \
    X(T1, "t1", "s", "coefficient of the batch-proportional step time")               \
    X(G, "g", "1", "exponent of the batch-proportional step time")                    \
    X(TW, "tw", "s", "saturating weight-streaming step time (MoE expert activation)") \
    X(LN_BW, "ln_bw", "ln(sequences)", "log of the batch at which tw saturates")

typedef enum {
/* clang-format off */
#define JL_X_MP_ENUM(id, name, unit, doc) JL_MP_##id,
    JL_MODEL_PARAM_TABLE(JL_X_MP_ENUM)
#undef JL_X_MP_ENUM
    JL_MP_COUNT
    /* clang-format on */
} jl_model_param;

typedef struct jl_param {
    const char *name; /* static: from JL_MODEL_PARAM_TABLE */
    const char *unit; /* static */
    double value;
    double lower, upper;    /* the bounds used */
    int at_bound;           /* within 1e-6 of the range of a bound: no CI */
    double ci_low, ci_high; /* 95 % CI, inside [lower, upper]; NaN when
                                  unavailable (status says why) */
    /* static strings: "fitted" (interval from the data), "held" (at a
     * physical value: the interval is its assumed uncertainty, not fitted),
     * "at_bound" (fitted to a bound: held fixed, no interval),
     * "not_identified" (the data do not determine it: no interval) */
    const char *status;
    const char *basis; /* why, in words (static) */
} jl_param;

/* One measured run of the group, with its residuals. ln ratios are
 * model − measured (a relative error for small values). */
typedef struct jl_fit_point {
    const jl_summary *run; /* borrowed */
    long max_batch_size;
    double batch;                                                      /* avg_batch_size */
    double power_w, throughput_tok_s, energy_per_token_j, step_time_s; /* measured */
    double resid_ln_power;                                             /* physical model only */
    double resid_ln_throughput;
    double resid_ln_energy;
    double resid_ln_energy_corrected; /* physical model + correction */
    int regime_excluded;              /* measured in another regime than the rest of
                                  the sweep: not used in the fit (residuals
                                  still reported; docs/model.md) */
} jl_fit_point;

typedef struct jl_model_options {
    size_t min_batch_sizes; /* fewer distinct caps: interpolation (default 4) */
    int correction;         /* GP residual correction on (default 1) */
    double gp_length;       /* GP length scale in ln b (default 1.0) */
    double gp_noise;        /* GP noise/signal variance ratio (default 0.1) */
    size_t n_refine;        /* starts refined by the solver (default 4 of 18) */
    double ridge;           /* weight of the ridge rows (default 1e-4) */
    int max_iter;           /* solver iterations per start (default 200) */
    double confidence;      /* of intervals (default 0.95) */
    /* Prediction ceiling: at most this factor times the largest measured
     * achieved batch (default 2: one doubling of extrapolation). */
    double extrapolation_factor;
    /* Memory usable for weights + KV, as a share of GPU memory (default 0.9). */
    double memory_share;
    /* > 0: one Cauchy-reweighted refit with scale robust x 1.4826 MAD of the
     * residuals (default 0: off; docs/model-accuracy.md says why). */
    double robust;
    /* Weight (0..1) of the pooled sweep-end prediction (default 0.7; 0: off):
     * a batch below the lowest or above the highest measured one is also
     * predicted from the nearest measured point and the median elasticity
     * d ln e / d ln b between the same two caps in the other sweeps of the
     * same model (other task, GPU, count or precision); the two predictions
     * are mixed in ln e with this weight (docs/model-design.md §4). */
    double pool_weight;
    /* Regime-break test at the sweep ends (default 0.85; 0: off): the rows
     * at the smallest batch are left out of the fit when a row with at least
     * twice their batch has less than regime_ratio x their throughput, and
     * the rows at the largest batch when they have less than regime_ratio x
     * the throughput of a row with at most half their batch. */
    double regime_ratio;
    /* Hold the parameters one sweep does not identify at physical values
     * (default 1): Ps at the GPU's idle power, tw and ln_bw at 0 for a dense
     * model (docs/model.md "Which parameters are fitted"); 0: fit all nine. */
    int hold_params;
} jl_model_options;

void jl_model_options_default(jl_model_options *o);

typedef struct jl_group_fit {
    jl_group_key key;
    jl_fit_method method;
    char *note;                  /* why this method / what is missing; may be NULL */
    size_t n_points;             /* runs used (duplicates count) */
    size_t n_batch_sizes;        /* distinct caps */
    double batch_min, batch_max; /* measured achieved batch range */
    long cap_min, cap_max;       /* measured caps */
    double batch_per_cap;        /* median avg_batch_size / max_batch_size */
    jl_fit_point *points;        /* n_points, sorted by batch */

    /* GPU descriptors used */
    double tdp_w;  /* per GPU, NaN when unknown */
    double idle_w; /* per GPU (measured attribute, else descriptor), NaN unknown */

    /* physical model (method == JL_FIT_MODEL) */
    jl_param params[JL_MP_COUNT];
    int has_ci; /* 0: intervals unavailable, ci_note says why */
    char *ci_note;
    long dof;                                  /* 2 n_fitted − free parameters */
    size_t n_fitted;                           /* points used by the fit (n_points minus the
                                  regime_excluded ones) */
    double t_quantile;                         /* t_{(1+confidence)/2, dof}; NaN when dof <= 0 */
    double cov[JL_MP_COUNT][JL_MP_COUNT];      /* covariance of the parameters (0 for
                                              parameters at a bound) */
    double rss;                                /* of the data rows, physical model */
    double r2_power, r2_throughput, r2_energy; /* on ln values, physical model */
    double r2_energy_corrected;                /* with the correction */
    double rms_ln_power, rms_ln_throughput, rms_ln_energy, rms_ln_energy_corrected;
    double cost; /* final solver cost (with ridge rows) */
    int n_starts, n_refined;

    /* correction: GP posterior mean weights alpha = K^-1 rho for the ln P
     * and ln T residuals (ln e uses alpha_P - alpha_T), at x = ln b of the
     * points; gp_scale2 = sigma_f^2 estimated from the residuals of ln e
     * (rho^T K^-1 rho / n), used for the correction's share of intervals. */
    int has_correction;
    double gp_length, gp_noise;
    size_t gp_n;                                  /* points of the correction: the fitted ones */
    double *gp_x;                                 /* gp_n */
    double *gp_alpha_power, *gp_alpha_throughput; /* gp_n each */
    double gp_scale2_power, gp_scale2_throughput, gp_scale2_energy;

    /* batch ceiling for predictions */
    double batch_ceiling;  /* achieved batch; +inf when none applies */
    char *ceiling_reason;  /* e.g. "memory: ..." or "extrapolation: ..." */
    double memory_ceiling; /* NaN when descriptors lack what it needs */

    /* pooled sweep ends (jl_model_fit_pool; all zero until it is called):
     * the per-cap means of this group and of the other sweeps of the same
     * model, copied, and the weight of the pooled prediction */
    double pool_weight; /* 0: predictions do not pool */
    jl_sweep_means pool_own;
    jl_sweep_means *pool_siblings;
    size_t pool_n_siblings;
} jl_group_fit;

/* Fit one group. runs[0..n) must share the group key (the first run's key is
 * the group's); descriptors may be NULL (then Ps takes a generic range and
 * there is no memory ceiling). A group that cannot be modelled is not an
 * error: *out says method "interpolation" or "none" and why. Errors:
 * JL_EUSAGE (runs of different groups), JL_ENOMEM. */
jl_status jl_model_fit_group(const jl_summary *const *runs, size_t n, const jl_model_options *opt,
                             const jl_descriptors *desc, jl_group_fit **out, jl_error **err);
void jl_group_fit_free(jl_group_fit *f);

/* ---- predict ------------------------------------------------------------ */

/* A value with its interval (lo, hi NaN when unavailable). */
typedef struct jl_interval {
    double value, lo, hi;
} jl_interval;

typedef struct jl_prediction {
    double batch; /* achieved batch predicted at */
    jl_fit_method method;
    /* Combined prediction: physical model + correction. The interval adds
     * the parameter uncertainty (delta method) and the correction's
     * posterior variance in log space; a confidence interval of the mean,
     * not of one new measurement. */
    jl_interval energy_per_token_j, power_w, step_time_s, throughput_tok_s;
    /* The physical model alone (intervals: parameter uncertainty only). */
    jl_interval model_energy_per_token_j, model_power_w, model_step_time_s, model_throughput_tok_s;
    /* The correction as a factor on the physical model (1 = none). */
    double correction_energy, correction_power, correction_throughput;
    /* Decomposition of the combined power: static = G Ps (model) or G x idle
     * power (interpolation, NaN when unknown); dynamic = power − static. */
    double static_power_w, dynamic_power_w;
    /* u(b) = (P/G − Ps)/(TDP − Ps) with the combined power: the dynamic power
     * per GPU as a share of the headroom up to TDP. NaN when TDP unknown. */
    double utilisation;
    int extrapolated;   /* outside [batch_min, batch_max] */
    int beyond_ceiling; /* batch > fit->batch_ceiling */
    /* method JL_FIT_POOLED: energy_per_token_j is exp((1 - w) ln e_model+GP
     * + w ln e_pooled) with w = pool_weight, and has no interval; power,
     * step time and throughput stay the model + GP ones. */
    double pooled_energy_per_token_j; /* the pooled prediction alone; NaN */
    double pool_weight;               /* w; 0 when not pooled */
    size_t pool_siblings;             /* sibling sweeps whose elasticities were pooled */
    int pool_interpolated;            /* 1: siblings' range interpolated (no sibling
                                  measured both caps); 0: same two caps */
    long pool_anchor_cap;             /* the group's measured end cap it starts from */
    double pool_anchor_batch;         /* the (geometric) mean achieved batch there */
    long pool_target_cap;             /* the cap of the batch: lround(batch / batch_per_cap) */
    /* The 95 % prediction interval of one new run's energy per token (the
     * interval the leave-one-out scores: docs/model.md "Prediction
     * intervals"), around energy_per_token_j.value, also for a pooled
     * prediction; NaN for interpolation. */
    double energy_per_token_pi_lo_j, energy_per_token_pi_hi_j;
} jl_prediction;

/* Attach the model's other sweeps to fit f of groups->items[gi] (copies
 * their per-cap means: groups may be freed afterwards), so that
 * jl_model_predict pools a batch outside the measured range exactly as the
 * leave-one-out does (docs/model.md "Sweep ends"): for method "model", with
 * opt->pool_weight > 0 and at least one other group of the same model.
 * Otherwise f is left as it is. JL_ENOMEM only. */
jl_status jl_model_fit_pool(jl_group_fit *f, const jl_model_group_list *groups, size_t gi,
                            const jl_model_options *opt);

/* jl_model_fit_group of every group of gl, then jl_model_fit_pool:
 * fits[i] for gl->items[i] (fits has gl->count slots; on error the ones
 * filled are freed and set to NULL). What `joules fit`, `predict` and
 * `diagnose` predict with. */
jl_status jl_model_fit_groups(const jl_model_group_list *gl, const jl_model_options *opt,
                              const jl_descriptors *desc, jl_group_fit **fits, jl_error **err);

/* Predict at an achieved batch (> 0). Always fills *out (also beyond the
 * ceiling, flagged); JL_EUSAGE for a batch that is not finite and positive,
 * JL_ENODATA for method "none". Outside the measured batch range of a fit
 * with siblings attached (jl_model_fit_pool), energy per token is pooled
 * (method JL_FIT_POOLED) when a sibling gives an elasticity. */
jl_status jl_model_predict(const jl_group_fit *f, double batch, jl_prediction *out);

/* JL_OK when batch is within the group's ceiling, else JL_ELIMIT with an
 * error naming the ceiling and its reason, on the request side (the data
 * was read; what was asked goes beyond it). */
jl_status jl_model_check_batch(const jl_group_fit *f, double batch, jl_error **err);

/* ---- accuracy: leave one batch size out ---------------------------------- */

typedef enum {
    JL_LOO_JOULES = 0, /* this model (physical + correction) */
    JL_LOO_ANCHOR      /* the ML.ENERGY toolkit's logistic (docs/model-design.md §3) */
} jl_loo_model;

typedef struct jl_loo_point {
    const jl_summary *run; /* borrowed: the held-out run */
    size_t group;          /* index into the group list */
    long max_batch_size;
    double batch; /* its achieved batch (where joules predicts) */
    double actual_energy_per_token_j;
    double predicted_energy_per_token_j;
    /* its 95 % prediction interval for one new run (docs/model.md
     * "Prediction intervals"); NaN when the refit failed */
    double predicted_lo_j, predicted_hi_j;
    /* the terms of its sd (jl__model_pi_sd): mean square of the physical model's
     * ln e residuals of the training rows, the GP's variance at the point,
     * the distance in ln b outside the training range (NaN: anchor) */
    double pi_resid_ms, pi_gp_var, pi_outside;
    double abs_rel_error;
    int position; /* -1 lowest cap of the sweep, 0 interior, 1 highest */
} jl_loo_point;

typedef struct jl_loo_result {
    jl_loo_point *points;
    size_t count;
} jl_loo_result;

/* For every group with >= opt->min_batch_sizes distinct caps, hold out each
 * cap in turn (all its runs), refit on the rest, predict energy per token at
 * each held-out run. Points come out in group order, then cap, then run. */
jl_status jl_model_loo(const jl_model_group_list *groups, jl_loo_model which,
                       const jl_model_options *opt, const jl_descriptors *desc, jl_loo_result *out,
                       jl_error **err);
void jl_loo_result_clear(jl_loo_result *r);

typedef struct jl_loo_stats {
    size_t n;
    double median, p90, max; /* of abs_rel_error; NaN when n == 0 */
    /* of the points with a prediction interval: the share whose actual value
     * lies inside it, and the median of (hi - lo) / 2 / predicted; NaN when
     * none has one */
    double coverage, median_half_width;
} jl_loo_stats;

/* Statistics over the points whose task is `task` (NULL: all; "LLM" and
 * "MLLM": by workload of the run). p90 interpolates linearly between order
 * statistics (numpy's default). */
jl_loo_stats jl_loo_summarize(const jl_loo_result *r, const char *task);

/* The anchor: y = b0 + L sigma(k (x − x0)), fitted by the toolkit's grid
 * search (x0: 40 points over [min x − 1, max x + 1]; k: 60 points log-spaced
 * over [1e-2, 1e2]; (b0, L) by least squares; first minimum). */
typedef struct jl_logistic {
    double L, x0, k, b0;
} jl_logistic;

jl_logistic jl_logistic_fit(const double *x, const double *y, size_t n);
double jl_logistic_eval(const jl_logistic *m, double x);

/* ---- what if: an unmeasured configuration of a measured (model, task) ------ */

/* How a configuration differs from the measured group it is predicted from. */
typedef enum {
    JL_TRANSFER_NONE = 0,
    JL_TRANSFER_GPU_COUNT, /* same GPU model, another count */
    JL_TRANSFER_GPU_MODEL, /* same count, another GPU model */
    JL_TRANSFER_BOTH,      /* another count and GPU model */
    JL_TRANSFER_PRECISION  /* another precision (the FP8/BF16 twin of the model) */
} jl_transfer;

/* "none", "gpu_count", "gpu_model", "both", "precision" */
const char *jl_transfer_name(jl_transfer t);
/* The transfer from measured group s to configuration t: NONE unless same
 * task and same model (up to an FP8/BF16 suffix). */
jl_transfer jl_transfer_of(const jl_group_key *s, const jl_group_key *t);

typedef struct jl_whatif_point {
    long cap;     /* max_batch_size */
    double batch; /* expected achieved batch: the sources' mean
                                  batch/cap x min(cap, memory ceiling) */
    /* 95 % prediction intervals (docs/model.md "What if") */
    jl_interval energy_per_token_j, power_w, step_time_s; /* step time ~ ITL */
    double throughput_tok_s;                              /* batch / step time */
    int beyond_ceiling;   /* cap above the configuration's memory ceiling */
    int unlocked;         /* cap above every measured sibling's largest cap */
    int extrapolated;     /* no source measured this cap */
    double extrapolation; /* how far (e-folds of cap, as the intervals count
                             them) the nearest source was moved; 0: measured */
    int reference;        /* every source moved by the same transfer measured on
                           the model at another GPU count (not the factors) */
    size_t n_sources;     /* sources averaged at this cap */
    size_t calibrated;    /* held-out points of other models the interval's
                           quantiles come from (0: from the residuals of the
                           factors' pairs: a precision transfer, or fewer
                           than 40 held-out points of the kind) */
    /* Where the evidence is thin the interval is widened by a stated rule
     * (docs/model.md "What if", "Thin evidence"): JL_WHATIF_WIDE_* bits;
     * 0 = none. widen_sd: the sd (ln) the rules added in quadrature;
     * widen_floor: the least half-width (ln) the few-pairs rule kept (0:
     * none). */
    unsigned widened;
    double widen_sd, widen_floor;
} jl_whatif_point;

/* Why a what-if interval was widened (jl_whatif_point.widened) */
enum {
    /* not calibrated on held-out transfers (fewer than 40 held-out points
     * of the kind, or a precision transfer), or calibrated on the held-out
     * groups of fewer than 3 models: at least +-0.35 in ln (x/ 1.42) */
    JL_WHATIF_WIDE_FEW_PAIRS = 1,
    /* no pair of other models' configurations spans the source's and the
     * target's GPU models: sd 0.5 x |ln bandwidth ratio| added */
    JL_WHATIF_WIDE_GPU_PAIR = 2,
    /* the cap is farther from the sources' measured caps than any held-out
     * point of the calibration was (not calibrated: than a measured cap):
     * sd 0.15 per e-fold beyond added */
    JL_WHATIF_WIDE_EXTRAPOLATED = 4
};
/* "few_pairs", "gpu_pair_never_seen", "extrapolated_beyond_calibration" of
 * one JL_WHATIF_WIDE_* bit; NULL for another value */
const char *jl_whatif_widening_name(unsigned bit);

typedef struct jl_whatif {
    jl_group_key target;        /* owned */
    jl_transfer transfer;       /* of the sources used */
    size_t *sources, n_sources; /* indices into the group list */
    double memory_ceiling;      /* sequences (descriptors); NaN unknown */
    int memory_assumed;         /* on the per-task default input length */
    size_t n_pairs;             /* pairs of configurations of other models the
                                  factors were learned from */
    size_t n_pairs_kind;        /* of them, of this transfer kind (intervals) */
    size_t n_models_kind;       /* other models whose pairs of this kind those are */
    size_t n_gpu_pair;          /* pairs of groups of other models (same model and
                                   task) on the source's and the target's GPU
                                   models; 0 for a GPU model never paired with
                                   the source's (JL_WHATIF_WIDE_GPU_PAIR) */
    size_t n_gpu_pair_models;   /* the other models those pairs are of */
    double gpu_pair_sd;         /* the sd (ln) that adds: 0.5 x |ln bandwidth ratio|;
                                   0 when the pair is seen or the GPU is the same */
    int roofline;               /* 1: the GPU-model change moved by the source's own
                                   roofline (its memory-bound share of the step at
                                   the bandwidth ratio, power held), not the factors:
                                   two GPU models of the same compute and power limit
                                   on which fewer than 3 other models were measured
                                   (docs/model.md "What if") */
    jl_whatif_point *points;
    size_t n_points;
} jl_whatif;

/* Predict configuration `target` at caps[0..n_caps) (NULL: powers of two
 * from the smallest measured cap of the model and task to twice the
 * largest) from the measured groups of gl of the same model and task (a
 * group with target's own key is never used), of transfer kind `only`
 * (NONE: the closest kind available: GPU count, GPU model, both,
 * precision), with the factors learned across the other models of gl (not
 * target's model nor its FP8/BF16 twin) and the memory ceiling from the
 * descriptors. JL_ENODATA when there is no source or too few pairs to learn
 * from (the message says which); JL_ENOMEM. */
jl_status jl_whatif_predict(const jl_model_group_list *gl, const jl_descriptors *desc,
                            const jl_group_key *target, jl_transfer only, const long *caps,
                            size_t n_caps, jl_whatif *out, jl_error **err);
void jl_whatif_clear(jl_whatif *w);

/* A what-if predictor over one group list for many predictions: the factors
 * and the calibration of the intervals (every measured group held out once,
 * ~0.3 s on the 114 groups of the published data) are learned at the first
 * prediction and kept. gl and desc must outlive it. */
typedef struct jl_whatif_engine jl_whatif_engine;
jl_status jl_whatif_engine_new(const jl_model_group_list *gl, const jl_descriptors *desc,
                               jl_whatif_engine **out, jl_error **err);
/* jl_whatif_predict with the engine's factors and calibration */
jl_status jl_whatif_engine_predict(jl_whatif_engine *e, const jl_group_key *target,
                                   jl_transfer only, const long *caps, size_t n_caps,
                                   jl_whatif *out, jl_error **err);
void jl_whatif_engine_free(jl_whatif_engine *e);

typedef struct jl_whatif_loo_point {
    const jl_summary *run; /* borrowed: the held-out run */
    size_t group;
    jl_transfer transfer;
    long max_batch_size;
    double actual_energy_per_token_j;
    jl_interval predicted; /* energy per token with its interval */
    double abs_rel_error;
    int unlocked, extrapolated;
    size_t calibrated; /* as jl_whatif_point */
    unsigned widened;  /* as jl_whatif_point */
} jl_whatif_loo_point;

typedef struct jl_whatif_loo {
    jl_whatif_loo_point *points;
    size_t count;
} jl_whatif_loo;

/* Hold out each group in turn and predict its runs at their caps as
 * jl_whatif_predict does, once per transfer kind (GPU count, GPU model,
 * both) that has a source; factors learned without the group's model and
 * twin, intervals from the other models' groups held out with factors
 * learned without the group's model too (docs/model.md "What if"). */
jl_status jl_whatif_loo_run(const jl_model_group_list *gl, const jl_descriptors *desc,
                            jl_whatif_loo *out, jl_error **err);
void jl_whatif_loo_clear(jl_whatif_loo *r);
/* Statistics of the points of transfer k (NONE: all) and workload ("llm",
 * "mllm", NULL: all). */
jl_loo_stats jl_whatif_loo_summarize(const jl_whatif_loo *r, jl_transfer k, const char *workload);

#ifdef JOULES_EXPERIMENTAL
/* {"points": [...], "summary": {...}} of a what-if leave-one-out
 * (docs/model.md). */
json_t *jl_whatif_loo_to_json(const jl_whatif_loo *r, const jl_model_group_list *gl);
#endif /* JOULES_EXPERIMENTAL */

/* ---- the pipeline: a study's groups, fitted, pooled, predicted ----------------

   What `joules fit` and `joules predict` run, as one handle (like
   jl_study_open for loading): the groups of a run list, each fitted and
   pooled with the model's other sweeps on demand (or all at once), the
   prediction of one group at batches or caps, and the what-if of a
   configuration of it that was not measured, with one what-if engine kept
   for every call. runs and desc are borrowed and must outlive the set. */

typedef struct jl_model_set jl_model_set;

/* Progress of a long call (the what-if leave-one-out): a short phase name,
 * counts, and what is being worked on (may be NULL). */
typedef void (*jl_model_progress_fn)(void *ctx, const char *phase, size_t done, size_t total,
                                     const char *current);

/* Group runs (jl_model_groups). opt: copied (NULL: the defaults); desc may
 * be NULL. JL_ENOMEM only. */
jl_status jl_model_set_open(const jl_summary_list *runs, const jl_descriptors *desc,
                            const jl_model_options *opt, jl_model_set **out, jl_error **err);
/* Frees the set, its fits and its what-if engine. NULL is fine. */
void jl_model_set_free(jl_model_set *m);
const jl_model_group_list *jl_model_set_groups(const jl_model_set *m);
const jl_model_options *jl_model_set_options(const jl_model_set *m);
/* Called by the set's long calls (jl_model_set_whatif_loo); fn NULL: none. */
void jl_model_set_progress(jl_model_set *m, jl_model_progress_fn fn, void *ctx);

/* Fit and pool every group (jl_model_fit_groups); *fits (may be NULL) gets
 * the fits, one per group in group order, owned by the set. */
jl_status jl_model_set_fit_all(jl_model_set *m, jl_group_fit *const **fits, jl_error **err);
/* Fit and pool group gi (kept: a second call returns the same fit, as does
 * jl_model_set_fit_all). *fit is owned by the set. */
jl_status jl_model_set_fit(jl_model_set *m, size_t gi, const jl_group_fit **fit, jl_error **err);

/* The groups a selector selects (a group is selected when one of its runs
 * matches; `joules predict --group`): their indices in group order into
 * *idx (caller frees; NULL when none) and *n. JL_ENOMEM only. */
jl_status jl_model_groups_select(const jl_model_group_list *gl, const jl_selector *sel,
                                 size_t **idx, size_t *n, jl_error **err);

/* Predict group gi at n points: x[i] an achieved batch, or where is_cap
 * (may be NULL) is set a batch cap, predicted at x[i] x the group's
 * batch_per_cap. Every batch is checked against the ceiling first: one
 * beyond it is JL_ELIMIT (jl_model_check_batch's error) and nothing is
 * predicted. out has n slots. */
jl_status jl_model_set_predict(jl_model_set *m, size_t gi, const double *x, const int *is_cap,
                               size_t n, jl_prediction *out, jl_error **err);

/* A what-if request "num_gpus=2,gpu_model=B200" (keys num_gpus, gpu_model,
 * precision, model: the FP8/BF16 twin) applied to key base into *out
 * (strings copied: jl_group_key_clear). JL_EUSAGE with a message naming the
 * clause ("'task' cannot be changed ..."), JL_ENOMEM. */
jl_status jl_whatif_parse(const char *spec, const jl_group_key *base, jl_group_key *out,
                          jl_error **err);

/* jl_whatif_predict of group gi changed by spec (jl_whatif_parse), at
 * caps[0..n_caps) (NULL: the default caps), with the set's what-if engine
 * (its factors and calibration learned at the first call and kept).
 * Errors: those of jl_whatif_parse and jl_whatif_predict. */
jl_status jl_model_set_whatif(jl_model_set *m, size_t gi, const char *spec, const long *caps,
                              size_t n_caps, jl_whatif *out, jl_error **err);

/* The leave-one-batch-size-out of every group (jl_model_loo with the set's
 * options) into *out (jl_loo_result_clear). */
jl_status jl_model_set_loo(jl_model_set *m, jl_loo_model which, jl_loo_result *out, jl_error **err);
/* The what-if leave-one-out (jl_whatif_loo_run) into *out, reporting
 * progress ("what-if held out", groups done of groups) when set. */
jl_status jl_model_set_whatif_loo(jl_model_set *m, jl_whatif_loo *out, jl_error **err);
#ifdef JOULES_EXPERIMENTAL
/* The joules.fit/1 document of the set (jl_fit_document of every fit, after
 * jl_model_set_fit_all) with "loo", "anchor_loo" and "what_if_loo" where
 * given (NULL: left out). NULL on out-of-memory. */
json_t *jl_model_set_fit_document(const jl_model_set *m, size_t n_grid, const jl_loo_result *loo,
                                  const jl_loo_result *anchor_loo, const jl_whatif_loo *whatif_loo);
#endif /* JOULES_EXPERIMENTAL */
/* jl_model_set_fit_document's text, without jansson: the bytes jl_json_dump writes for
 * that tree (no provenance block); *len (may be NULL) its length; caller
 * frees. NULL on out of memory. */
char *jl_model_set_fit_document_text(const jl_model_set *m, size_t n_grid, const jl_loo_result *loo,
                                     const jl_loo_result *anchor_loo,
                                     const jl_whatif_loo *whatif_loo, size_t *len);

/* ---- documents (docs/model.md lists every key) ----------------------------- */

/* A batch grid for curves: n points log-spaced from max(1, batch_min / 2)
 * to the batch ceiling (or 2 x batch_max when there is none). Caller frees. */
double *jl_model_batch_grid(const jl_group_fit *f, size_t n);

#ifdef JOULES_EXPERIMENTAL
/* {"value", "lo", "hi"} (null when NaN). */
json_t *jl_interval_to_json(const jl_interval *v);
/* One prediction object. */
json_t *jl_prediction_to_json(const jl_prediction *p);
/* One group of the joules.fit/1 document: key, method, physical model with
 * parameters and intervals, correction, points with residuals, and the
 * curve predicted at the given batches (grid may be NULL). */
json_t *jl_group_fit_to_json(const jl_group_fit *f, const double *grid, size_t n_grid);
/* {"points": [...], "summary": {...}} of a leave-one-out result. */
json_t *jl_loo_to_json(const jl_loo_result *r, const jl_model_group_list *groups);
#endif /* JOULES_EXPERIMENTAL */
/* The default number of points of each curve in the joules.fit/1 document
 * (`joules fit --grid`). */
#define JL_FIT_DEFAULT_GRID 16

#ifdef JOULES_EXPERIMENTAL
/* The whole joules.fit/1 document without "errors" (the caller adds them):
 * the options, each group of fits[0..n) (jl_group_fit_to_json on
 * jl_model_batch_grid(fit, n_grid); n_grid 0 = no curves), and "loo" /
 * "anchor_loo" when loo / anchor_loo are given (groups then names their
 * groups). `joules fit --json` and `joules report` (data/fit.json) both
 * print this. NULL on out-of-memory. */
json_t *jl_fit_document(jl_group_fit *const *fits, size_t n, const jl_model_options *opt,
                        size_t n_grid, const jl_loo_result *loo, const jl_loo_result *anchor_loo,
                        const jl_model_group_list *groups);
/* The joules.predict/1 document without "errors" (the caller adds them):
 * "group" (the fit's key, method, intervals, batch range, ceiling, pool)
 * and "predictions" (jl_prediction_to_json of pred[0..n)). */
json_t *jl_predict_document(const jl_group_fit *fit, const jl_prediction *pred, size_t n);
/* The joules.predict/1 document of a what-if (`predict --what-if`):
 * "what_if": true, the target group, transfer, sources (named from gl),
 * factor pairs, memory ceiling and one prediction per cap. */
json_t *jl_whatif_document(const jl_whatif *w, const jl_model_group_list *gl);
#endif /* JOULES_EXPERIMENTAL */
/* jl_fit_document's text, without jansson: the bytes jl_json_dump writes for
 * that tree (no provenance block); *len (may be NULL) its length; caller
 * frees. NULL on out of memory. */
char *jl_fit_document_text(jl_group_fit *const *fits, size_t n, const jl_model_options *opt,
                           size_t n_grid, const jl_loo_result *loo, const jl_loo_result *anchor_loo,
                           const jl_model_group_list *groups, size_t *len);
/* jl_predict_document's text, without jansson: the bytes jl_json_dump writes for
 * that tree (no provenance block); *len (may be NULL) its length; caller
 * frees. NULL on out of memory. */
char *jl_predict_document_text(const jl_group_fit *fit, const jl_prediction *pred, size_t n,
                               size_t *len);
/* jl_whatif_document's text, without jansson: the bytes jl_json_dump writes for
 * that tree (no provenance block); *len (may be NULL) its length; caller
 * frees. NULL on out of memory. */
char *jl_whatif_document_text(const jl_whatif *w, const jl_model_group_list *gl, size_t *len);
/* The parameter table: one row per (group, parameter), fixed columns. */
jl_status jl_write_fit_params_csv(const char *path, jl_group_fit *const *fits, size_t n,
                                  jl_error **err);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
