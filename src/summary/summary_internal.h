/* Internal helpers of the summary subsystem (src/summary/). Not public API.
 * Definitions and conventions are documented in docs/summary.md. */
#ifndef JOULES_SUMMARY_INTERNAL_H
#define JOULES_SUMMARY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/stats.h"
#include "joules/summary.h"
#include "json/json_internal.h"

/* ---- order statistics (quantile.c) ------------------------------------ */

/* Quantiles of float samples x[0..n) by core's definition (core/stats.h:
 * numpy's "linear", to the bit), with a histogram step from 8,192 samples
 * on. q must be ascending, each in [0, 1]. The array is reordered in
 * place; it must not contain NaN. n == 0 gives NaN. The double, k-th and
 * median forms are core's (jl__quantiles_d, jl__kth_d, jl__median_d). */
void jl__quantiles_f(float *x, size_t n, const double *q, size_t nq, double *out);
/* jl__quantiles_f's select for n >= 8,192 (counts in 4,096 buckets over
 * the samples' range, the wanted buckets gathered and selected), x left as
 * it is: 1 when done (out as jl__quantiles_f gives it), 0 when it does not
 * apply (fewer samples, too many quantiles, out of memory). */
int jl__quantiles_fit_f(const float *x, size_t n, const double *q, size_t nq, double *out);

/* The histogram select of jl__quantiles_f (n >= JL__RADIX_MIN_N) counts
 * the samples by the top 16 bits of jl__fkey(v): a caller that builds x in
 * a loop can count them there (hist: JL__RADIX_BUCKETS zeroed counts,
 * hist[jl__fkey(v) >> 16]++ for every v it stores) and save a pass. The
 * same results as jl__quantiles_f; hist is freed (NULL: counted here). */
#define JL__RADIX_MIN_N 32768
#define JL__RADIX_BUCKETS (1u << 16)
static inline uint32_t jl__fkey(float v)
{
    v += 0.0f; /* -0.0 + 0.0 = +0.0 */
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u ^ ((uint32_t)((int32_t)u >> 31) | 0x80000000u); /* float order */
}
void jl__quantiles_f_hist(float *x, size_t n, uint32_t *hist, const double *q, size_t nq,
                          double *out);

/* Quantiles of float samples seen in two passes and never kept (the ITL
 * samples, streamed chunk by chunk: jl_run_itl_blocks): the same results
 * as jl__quantiles_f over the same samples, to the bit (the sign of a zero
 * order statistic aside, which jl__quantiles_f does not define either; a
 * zero comes back +0.0 here).
 * Pass 1 adds every sample (jl__qstream_add_n) and keeps the first `cap`
 * of them (JL__RADIX_MIN_N, or up to JL__QSTREAM_KEEP_MAX when the caller
 * knows the count: jl__qstream_reserve); while every sample is kept nothing
 * else is done. From the first sample that is not kept on, samples are
 * counted by the top 16 key bits. jl__qstream_plan() then says whether a
 * pass 2 is needed: not when every sample was kept (the kept ones are
 * selected as jl__quantiles_f does); else it names the buckets holding the
 * order statistics wanted, and pass 2 adds the same samples again
 * (jl__qstream_add2_n): the samples of those buckets are gathered (when
 * they are at most gather_max; then selected within their bucket), or
 * counted by their low 16 key bits (the order statistic's exact key).
 * With jl__qstream_want() (the quantiles, and the count from
 * jl__qstream_reserve, known before pass 1), pass 1 also gathers the
 * samples of the buckets near each order statistic as estimated so far
 * (at the first sample not kept, then each time the count doubles; a
 * bucket joining late has its samples from the kept ones and from then
 * on): when every wanted bucket was gathered from the start there is no
 * pass 2, and otherwise pass 2 gathers only the missing samples of those
 * buckets and ends early (jl__qstream_pass2_done). At most gather_max
 * samples are gathered so; past that pass 1 stops gathering, as without
 * jl__qstream_want(). Same order statistics, same results.
 * Memory: the kept samples (4 bytes each, at most JL__QSTREAM_KEEP_MAX),
 * 256 KiB + 64 KiB when not all are kept, in pass 1 the samples gathered
 * (at most gather_max) + 64 KiB, and in pass 2 the gathered samples (at
 * most gather_max; both at the plan) or 256 KiB per wanted bucket (at
 * most 2 per quantile), whatever the number of samples. */
#define JL__QSTREAM_MAX_Q 8
#define JL__QSTREAM_KEEP_MAX ((size_t)1 << 20)
typedef struct jl__qstream {
    size_t n;          /* samples added in pass 1 */
    float *first;      /* [cap] the first samples */
    size_t cap;        /* JL__RADIX_MIN_N, or what jl__qstream_reserve() made it */
    uint32_t *hist;    /* [JL__RADIX_BUCKETS] counts by the top 16 key bits, once n > cap */
    size_t gather_max; /* most samples pass 2 gathers (JL__QSTREAM_KEEP_MAX; tests lower it) */
    /* jl__qstream_plan: the order statistics wanted, ascending */
    size_t nu, rank[2 * JL__QSTREAM_MAX_Q], bucket[2 * JL__QSTREAM_MAX_Q],
        below[2 * JL__QSTREAM_MAX_Q];
    unsigned char *slot; /* [JL__RADIX_BUCKETS] 0, or 1 + index of a wanted bucket */
    uint32_t *low;       /* [wanted buckets][JL__RADIX_BUCKETS] counts by the low 16 bits, or */
    float *gat;          /* the wanted buckets' samples (+0.0 for a zero), bucket after bucket */
    size_t gat_at[2 * JL__QSTREAM_MAX_Q], gat_end[2 * JL__QSTREAM_MAX_Q]; /* per wanted bucket */
    /* pass 2 gathers sample i (counted from 0 in pass 2) of wanted bucket
     * slot k when p2_from <= i < p2_lim[k] (everything without want) */
    size_t n2, p2_from, p2_end, p2_lim[2 * JL__QSTREAM_MAX_Q];
    /* jl__qstream_want: gathering in pass 1 */
    size_t want_nq, expect;
    double want_q[JL__QSTREAM_MAX_Q];
    unsigned char *spec_on; /* [JL__RADIX_BUCKETS] 0, or 1 + the round that added the bucket */
    size_t spec_since[256]; /* per round: its buckets are gathered from this sample on */
    unsigned spec_rounds;
    float *spec; /* the samples gathered (+0.0 for a zero), any order */
    size_t spec_n, next_round;
} jl__qstream;

/* JL_OK or JL_ENOMEM. */
jl_status jl__qstream_init(jl__qstream *s);
void jl__qstream_free(jl__qstream *s);
/* Before pass 1: at most n samples will come; keeps them all when n <=
 * JL__QSTREAM_KEEP_MAX (so no pass 2). JL_OK or JL_ENOMEM. */
jl_status jl__qstream_reserve(jl__qstream *s, size_t n);
/* Before pass 1, after jl__qstream_reserve: the quantiles that
 * jl__qstream_plan will be asked (ascending, nq <= JL__QSTREAM_MAX_Q):
 * pass 1 gathers near them (above). JL_OK. */
jl_status jl__qstream_want(jl__qstream *s, const double *q, size_t nq);
/* Pass 1: v[0..m) (finite). JL_OK or JL_ENOMEM. */
jl_status jl__qstream_add_n(jl__qstream *s, const float *v, size_t m);
/* 1 when pass 1 is past the samples it keeps (jl__qstream_add_sel may
 * then be used). */
static inline int jl__qstream_counting(const jl__qstream *s)
{
    return s->hist != NULL;
}
/* Pass 1, once jl__qstream_counting: the samples v[i] (finite) of
 * v[0..m) whose keep[idx[i]] is 1 (keep[] of 0 and 1), as
 * jl__qstream_add_n of them would, filtering and counting in one loop. */
void jl__qstream_add_sel(jl__qstream *s, const float *v, const uint32_t *idx,
                         const unsigned char *keep, size_t m);
static inline jl_status jl__qstream_add(jl__qstream *s, float v)
{
    return jl__qstream_add_n(s, &v, 1);
}
/* After pass 1, for quantiles q[0..nq) (ascending, nq <= JL__QSTREAM_MAX_Q):
 * 1 when pass 2 is needed, 0 when not, -1 when out of memory. */
int jl__qstream_plan(jl__qstream *s, const double *q, size_t nq);
/* Pass 2: the same samples as pass 1, in the same order (from the first;
 * it may stop once jl__qstream_pass2_done says so). */
void jl__qstream_add2_n(jl__qstream *s, const float *v, size_t m);
static inline void jl__qstream_add2(jl__qstream *s, float v)
{
    jl__qstream_add2_n(s, &v, 1);
}
/* 1 when pass 2 needs no more samples. */
int jl__qstream_pass2_done(const jl__qstream *s);
/* The quantiles (the same q as the plan); NaN when no sample was added.
 * Reorders the kept samples. */
void jl__qstream_result(jl__qstream *s, const double *q, size_t nq, double *out);

/* ---- energy tracks (energy.c) ------------------------------------------ */

/* The cumulative energy of one GPU as a function of time, E(t), built from
 * one source. Within the sample span:
 *   counter:  the corrected counter interpolated linearly;
 *   integral: trapezoid over samples, with watts interpolated linearly
 *             inside the interval holding t (exact for piecewise-linear
 *             power).
 * Outside the span E(t) continues with constant power: the first/last
 * interval's mean rate (counter) or the first/last watts sample (integral).
 */
typedef struct jl__track {
    size_t n;
    const double *t; /* [n] sample times (borrowed) */
    const double *w; /* integral: watts of this GPU, stride `stride`; NULL for counter */
    size_t stride;
    double *cum;       /* [n] E at each sample, cum[0] = 0: owned unless borrowed */
    int borrowed;      /* cum lies in the caller's block (jl__track_free leaves it) */
    double rate_first; /* W before t[0] */
    double rate_last;  /* W after t[n-1] */
} jl__track;

/* One counter restart that was bridged (for the warning). */
typedef struct jl__restart {
    size_t row;
    double time, from_j, to_j, bridged_j;
    int by_watts; /* 1: bridged with watts, 0: with the neighbouring rates */
} jl__restart;

#define JL__MAX_RESTARTS 2

typedef struct jl__counter_report {
    int usable;
    char reason[200]; /* why unusable */
    size_t n_restarts;
    jl__restart restarts[JL__MAX_RESTARTS];
    size_t n_jitter; /* small drops held at the running maximum */
    double jitter_max_j;
    size_t n_wraps; /* drops unwrapped exactly at the known modulus */
} jl__counter_report;

/* Build a track from the cumulative counter column g of `energy`, using
 * `watts` (may be NULL / absent) to bridge restarts. modulus_j: where the
 * counter wraps back to 0 when known (RAPL's max_energy_range_j), else NaN:
 * a drop then is a wrap, counted exactly as x + modulus - ref, when that
 * increment is plausible (at most four times the power of the neighbouring
 * intervals, plus min_drop_j); wraps do not count towards the restarts.
 * buf: room for n values the track's cum is written to (the caller's, kept
 * after jl__track_free), or NULL to allocate it.
 * Returns JL_OK (check rep->usable) or JL_ENOMEM. */
jl_status jl__track_counter(jl__track *tr, const double *t, size_t n, const jl_series *energy,
                            const jl_series *watts, size_t g, double min_drop_j, double modulus_j,
                            jl__counter_report *rep, double *buf);

/* Build a track from the watts column g. *usable = 0 when a value is not
 * finite. buf as for jl__track_counter. */
jl_status jl__track_integral(jl__track *tr, const double *t, size_t n, const jl_series *watts,
                             size_t g, int *usable, size_t *bad_row, double *buf);

void jl__track_free(jl__track *tr);

/* E(t) in joules (relative to the first sample). */
double jl__track_at(const jl__track *tr, double t);

/* The same value as jl__track_at, for calls at non-decreasing t: *cur keeps
 * the sample interval of the last call (start with (size_t)-1) and the
 * search walks forward from it, so a sweep over a run is linear instead of
 * a binary search per call. A t below the last one falls back to the
 * binary search, so any order stays correct. */
double jl__track_at_walk(const jl__track *tr, double t, size_t *cur);

/* Index of the last element of the sorted array v[0..n) that is <= x, or
 * (size_t)-1 when x < v[0] (or n == 0). */
size_t jl__last_le(const double *v, size_t n, double x);

/* ---- host/ (host.c; the block's free and copy: summary_object.c) ---- */

/* The host figures of run over the window [a, b] (figures host_energy_j,
 * total_energy_j and their per-token values into s->fig, the parts into
 * s->host, warnings into s): E = the GPUs' energy over the window (NaN when
 * missing), tokens = the window's output tokens (NaN when none).
 * extrapolate_s: how far the window may reach beyond the host samples.
 * JL_OK, or JL_ENOMEM. Nothing when the run has no host/. */
jl_status jl__host_figures(const jl_run *run, const jl_summary_options *opt, double a, double b,
                           double E, double tokens, double extrapolate_s, jl_summary *s);
void jl__host_summary_free(jl_host_summary *h);
jl_status jl__host_summary_copy(const jl_host_summary *src, jl_host_summary **out);

/* ---- boundaries and the whole run (boundary.c, prefill.c) -------------- */

/* The headline boundary of s, the whole-run figures (run_tokens,
 * run_energy_per_*, run_total_*), peak_power_kind, total_scope, and the
 * node scope of an @power_scope node_ac run; after every other phase.
 * extrapolate_s: as for jl__host_figures. JL_OK or JL_ENOMEM. */
jl_status jl__boundary_figures(const jl_run *run, const jl_summary_options *opt,
                               double extrapolate_s, jl_summary *s);

/* The marginal prefill energy (prefill.c; docs/summary.md,
 * "The marginal prefill split"): n whole engine intervals inside the
 * window, each with its energy e[i], its start t0[i] and end t[i], its
 * batch running[i] and the prompt tokens it processed (ptok[i], 0: a
 * decode-only iteration); the regression's block edges bt[0..nbt) (power
 * sample times within the intervals, JL__PREFILL_BLOCK_GAPS sampling gaps
 * apart or more) and the energy there be[]. Writes share, lo, hi of the
 * window energy E into out[3]: NaN when the window has no decode-only
 * interval to match (*why: static words). */
#define JL__PREFILL_BLOCK_GAPS 10.0
void jl__prefill_marginal(const double *e, const double *t0, const double *t,
                          const int32_t *running, const long long *ptok, size_t n, const double *bt,
                          const double *be, size_t nbt, double E, double out[3], const char **why);

/* ---- the run object (summary_json.c) ---------------------------------- */

/* The members of a run object (joules/output.h), written into the object
 * open now: the run key (jl_run_key_to_json), the whole run
 * (jl_summary_to_json). */
void jl__run_key_write(jl__jw *w, const jl_summary *s);
void jl__summary_write(jl__jw *w, const jl_summary *s);
/* The boundary members of a run object (boundary.c): "boundary",
 * "figure_boundaries", "peak_power_kind", "total_scope". */
void jl__boundary_write(jl__jw *w, const jl_summary *s);

/* ---- validity (validity.c; issue 37, joules/validity.h) ---------------- */

/* Requests in flight: the union of their [arrival, finish] (validity.c). */
size_t jl__requests_in_flight(const jl_run *r, double *iv);

/* What a run's series say about its figures, into s->validity: the
 * importer's reasons (the run attribute validity_reasons, taken off
 * s->attrs), gaps in power/ (integrated: any GPU's energy from the
 * integral of watts), a window [a, b] the samples do not bracket, power
 * samples no GPU draws, requests that do not belong to the power, a run at
 * its power limit. JL_OK or JL_ENOMEM. */
jl_status jl__summary_validity(const jl_run *run, jl_summary *s, double a, double b,
                               int integrated);
/* "validity": {"valid", "reasons": [...]} into the run object. */
void jl__validity_write(jl__jw *w, const jl_summary *s);

#endif
