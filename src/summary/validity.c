/* A run's validity from its series (issue 37; docs/check.md, "Reason
 * codes"): the reasons its importer stored, and what the series themselves
 * show — gaps in the power samples that the energy is integrated across, a
 * window the samples do not bracket, power no GPU draws, requests that do
 * not belong to the power they are divided by, a run at its power limit.
 * The thresholds are stated here and in docs/check.md; each was run over
 * every shared real file (tests/unit/test_validity.c counts the alarms). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/reasons.h"
#include "core/stats.h"
#include "core/util.h"
#include "summary/summary_internal.h"

/* The gap limit: a stretch without power samples longer than
 * GAP_PERIODS x the source's median sampling period and longer than that
 * period + GAP_MIN_S (so a 10-Hz log's 0.6-s hiccups are no gap). */
#define GAP_PERIODS 5.0
#define GAP_MIN_S 1.0
/* Requests: a request is outside the power window when it starts or ends
 * more than REQ_TOL_S (or two sampling periods) beyond it; the log is
 * flagged when more than REQ_OUT_SHARE of its requests are. */
#define REQ_TOL_S 1.0
#define REQ_OUT_SHARE 0.01
/* Busy power with no request in flight for longer than BUSY_MIN_S and
 * BUSY_SHARE of the requests' span: the requests are not this power's. */
#define BUSY_MIN_S 5.0
#define BUSY_SHARE 0.10
#define BUSY_LEVEL 0.5 /* busy: above the lowest power + this share of the way to the median */
/* Engine rows: output tokens of the requests against engine/tokens_generated
 * over the requests' span. */
#define TOKENS_TOL 0.20
/* A sample above this many times the power limit (or PLAUSIBLE_MAX_W per GPU
 * without one) is no GPU's power. */
#define PLAUSIBLE_LIMITS 3.0
#define PLAUSIBLE_MAX_W 3000.0
/* Average power per GPU at this share of its limit or more: capped. */
#define CAPPED_SHARE 0.98

#define TRY(expr)                   \
    do {                            \
        if ((st = (expr)) != JL_OK) \
            goto end;               \
    } while (0)

static double row_watts(const jl_run *r, size_t i)
{
    double sum = 0;
    for (size_t g = 0; g < r->watts.g; g++)
        sum += r->watts.v[i * r->watts.g + g];
    return sum;
}

/* Requests in flight: the union of [arrival, finish] (finish NaN: the
 * request's last known time) as sorted, disjoint intervals in iv[2k],
 * iv[2k+1]; returns their count. iv holds 2 R doubles. */
size_t jl__requests_in_flight(const jl_run *r, double *iv)
{
    size_t m = 0;
    for (size_t i = 0; i < r->req_n; i++) {
        double a = r->arrival[i];
        double f = isfinite(r->finish[i]) ? r->finish[i] : r->first_token[i];
        if (isfinite(a) && isfinite(f) && f > a) {
            iv[2 * m] = a;
            iv[2 * m + 1] = f;
            m++;
        }
    }
    /* requests are usually stored in arrival order: sorted already, no
     * sort (10^5 requests: 47 M instructions of qsort). Ties in any order
     * give the same union. */
    int sorted = 1;
    for (size_t i = 1; i < m && sorted; i++)
        sorted = iv[2 * i - 2] <= iv[2 * i];
    if (!sorted)
        qsort(iv, m, 2 * sizeof *iv, jl__cmp_double);
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        if (k && iv[2 * i] <= iv[2 * k - 1]) {
            iv[2 * k - 1] = fmax(iv[2 * k - 1], iv[2 * i + 1]);
        } else {
            iv[2 * k] = iv[2 * i];
            iv[2 * k + 1] = iv[2 * i + 1];
            k++;
        }
    }
    return k;
}

/* The reasons the importer stored, taken off the attributes. */
static jl_status imported(jl_summary *s)
{
    jl_attrs *a = &s->attrs;
    for (size_t i = 0; i < a->n_extra; i++) {
        if (strcmp(a->extra[i].key, JL__VALIDITY_ATTR))
            continue;
        jl_status st = jl_validity_parse_text(&s->validity, a->extra[i].value);
        if (st == JL_ENOMEM)
            return st;
        if (st != JL_OK &&
            (st = jl_summary_warn(s, "validity_reasons",
                                  "the run attribute validity_reasons is not a list of reasons: "
                                  "ignored")) != JL_OK)
            return st;
        free(a->extra[i].key);
        free(a->extra[i].value);
        memmove(&a->extra[i], &a->extra[i + 1], (a->n_extra - i - 1) * sizeof *a->extra);
        a->n_extra--;
        i--;
    }
    return JL_OK;
}

/* The median sampling period of power/ (0 when n < 2); *max_dt the longest
 * interval; *need: some interval is longer than GAP_MIN_S (no gap is
 * possible otherwise: the limit is above it). The median also sets the
 * tolerances of the window's bracketing and of the requests. */
static jl_status sampling(const jl_run *r, double *median, double *max_dt, int *need)
{
    const double *t = r->power_time;
    size_t n = r->power_n;
    *median = 0;
    *max_dt = 0;
    *need = 0;
    for (size_t i = 0; i + 1 < n; i++)
        if (t[i + 1] - t[i] > *max_dt)
            *max_dt = t[i + 1] - t[i];
    if (n < 2)
        return JL_OK;
    *need = *max_dt > GAP_MIN_S;
    double *d = jl__malloc_array(n - 1, sizeof *d);
    if (!d)
        return JL_ENOMEM;
    for (size_t i = 0; i + 1 < n; i++)
        d[i] = t[i + 1] - t[i];
    *median = jl__median_d(d, n - 1);
    free(d);
    return JL_OK;
}

/* Gaps longer than the limit, where the energy is integrated across them:
 * one reason for all of them, with what they could hold between the lowest
 * power of the run (or its idle power, when lower) and the highest. */
static jl_status gaps(const jl_run *r, jl_summary *s, double a, double b, double period,
                      double limit, double lo, double hi, int published)
{
    const double *t = r->power_time;
    size_t n = r->power_n, count = 0;
    double total = 0, in_window = 0, longest = 0, at = NAN, bound = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        double d = t[i + 1] - t[i];
        if (!(d > limit))
            continue;
        count++;
        total += d;
        double ov = fmin(b, t[i + 1]) - fmax(a, t[i]);
        if (ov > 0)
            in_window += ov;
        if (d > longest) {
            longest = d;
            at = t[i];
        }
        double e = 0.5 * (row_watts(r, i) + row_watts(r, i + 1)) * d;
        if (isfinite(e) && isfinite(lo) && isfinite(hi))
            bound += fmax(e - lo * d, hi * d - e);
        else
            bound = NAN;
    }
    if (!count)
        return JL_OK;
    /* the run's figures are the ones its source published (spec 1.1): only
     * the recomputed ones, beside them, integrate across the gaps */
    if (published)
        return jl_summary_warn(s, "sample_gap_recomputed",
                               "%zu stretch%s without power samples longer than the gap limit "
                               "%.3g s (%.6g s in all, the longest %.6g s): the figures "
                               "recomputed from the series integrate across them (up to %.6g J); "
                               "the published figures are the run's",
                               count, count == 1 ? "" : "es", limit, total, longest, bound);
    return jl__validity_add(
        &s->validity, JL__R_SAMPLE_GAP, bound,
        "%zu stretch%s without power samples longer than the gap limit "
        "%.3g s (5 sampling periods of a median %.3g s, at least 1 s more than one): "
        "%.6g s in all, %.6g s of it in the window, the longest %.6g s at "
        "t = %.6g s; the energy is integrated across %s and could be off "
        "by up to %.6g J (lowest %.6g W to highest %.6g W over the gaps)",
        count, count == 1 ? "" : "es", limit, period, total, in_window, longest, at,
        count == 1 ? "it" : "them", bound, lo, hi);
}

/* The share of the requests' decode span (first token to finish) during
 * which more than cap of them decode at once; flagged above OVER_CAP_SHARE. */
#define OVER_CAP_SHARE 0.05
static jl_status over_cap(const jl_run *r, jl_summary *s, long cap)
{
    size_t R = r->req_n, m = 0;
    double *st = jl__malloc_array(2 * R + 1, sizeof *st), *en = st + R;
    if (!st)
        return JL_ENOMEM;
    for (size_t i = 0; i < R; i++) {
        double a = r->first_token[i], b = r->finish[i];
        if (!isfinite(a) || !isfinite(b) || !(b > a))
            continue;
        st[m] = a;
        en[m++] = b;
    }
    /* starts and ends sorted apart, walked together: at one time the ends
     * come first (a slot freed and taken again is no overlap) */
    qsort(st, m, sizeof *st, jl__cmp_double);
    qsort(en, m, sizeof *en, jl__cmp_double);
    double over = 0, span = m ? en[m - 1] - st[0] : 0, last = m ? st[0] : 0;
    long cur = 0, peak = 0;
    for (size_t i = 0, j = 0; i < m || j < m;) {
        int end = j < m && (i == m || en[j] <= st[i]);
        double t = end ? en[j] : st[i];
        if (cur > cap)
            over += t - last;
        last = t;
        if (end) {
            cur--;
            j++;
        } else {
            cur++;
            i++;
        }
        if (cur > peak)
            peak = cur;
    }
    free(st);
    if (!(span > 0) || !(over > OVER_CAP_SHARE * span))
        return JL_OK;
    return jl__validity_add(&s->validity, JL__R_REQUESTS_INCONSISTENT, NAN,
                            "up to %ld requests decode at once (between their first token and "
                            "finish), more than the run's cap of %ld sequences, for %.3g s "
                            "(%.0f %% of their span; tolerance %g %%): the request log is "
                            "another cap's",
                            peak, cap, over, 100 * over / span, 100 * OVER_CAP_SHARE);
}

/* Requests against the power: outside its span, or power busy without
 * them; and their output tokens against engine/tokens_generated. */
static jl_status requests(const jl_run *r, jl_summary *s, double period, double lo_w,
                          double median_w)
{
    jl_status st = JL_OK;
    size_t R = r->req_n, n = r->power_n;
    if (!R || !r->arrival || !r->finish || n < 2)
        return JL_OK;
    const double *t = r->power_time;
    double t0 = t[0], t1 = t[n - 1], tol = fmax(REQ_TOL_S, 2 * period);
    size_t out = 0, timed = 0;
    double worst = 0, first = INFINITY, last = -INFINITY;
    for (size_t i = 0; i < R; i++) {
        double x = r->arrival[i];
        double f = isfinite(r->finish[i])
                       ? r->finish[i]
                       : (r->first_token && isfinite(r->first_token[i]) ? r->first_token[i] : x);
        if (!isfinite(x))
            continue;
        timed++;
        first = fmin(first, x);
        last = fmax(last, f);
        double beyond = fmax(t0 - x, f - t1);
        if (beyond > tol) {
            out++;
            worst = fmax(worst, beyond);
        }
    }
    if (timed && (double)out > REQ_OUT_SHARE * (double)timed)
        TRY(jl__validity_add(&s->validity, JL__R_REQUESTS_OUTSIDE_WINDOW, NAN,
                             "%zu of %zu requests lie more than %.3g s outside the power samples "
                             "[%.6g, %.6g] s (the furthest by %.6g s; requests span [%.6g, "
                             "%.6g] s): the request log is not this power's",
                             out, timed, tol, t0, t1, worst, first, last));
    /* power busy while no request is in flight */
    if (r->watts.v && isfinite(lo_w) && isfinite(median_w) && median_w - lo_w >= 0.1 * median_w &&
        timed) {
        double *iv = jl__malloc_array(2 * R, sizeof *iv);
        if (!iv)
            return JL_ENOMEM;
        size_t k = jl__requests_in_flight(r, iv);
        double level = lo_w + BUSY_LEVEL * (median_w - lo_w), longest = 0, cur = 0, at = NAN,
               cur_at = NAN;
        size_t j = 0;
        for (size_t i = 0; i + 1 < n; i++) {
            double x0 = row_watts(r, i), x1 = row_watts(r, i + 1);
            if (!(x0 > level && x1 > level)) {
                cur = 0;
                continue;
            }
            double ia = t[i], ib = t[i + 1];
            while (j < k && iv[2 * j + 1] <= ia)
                j++;
            if (j < k && iv[2 * j] < ib) { /* a request in flight in [ia, ib] */
                cur = 0;
                continue;
            }
            if (cur == 0)
                cur_at = ia;
            cur += ib - ia;
            if (cur > longest) {
                longest = cur;
                at = cur_at;
            }
        }
        free(iv);
        double span = last - first;
        if (longest > BUSY_MIN_S && longest > BUSY_SHARE * span && longest > 5 * period)
            TRY(jl__validity_add(&s->validity, JL__R_REQUESTS_INCONSISTENT, NAN,
                                 "power stays busy (above %.6g W) for %.6g s from t = %.6g s with "
                                 "no request in flight, against requests spanning %.6g s: the "
                                 "request log describes another run (another cap, another day) "
                                 "than this power (tolerance: %g s and %g %% of the span)",
                                 level, longest, at, span, BUSY_MIN_S, 100 * BUSY_SHARE));
    }
    /* more requests decoding at once than the server's cap allows: another
     * cap's requests (a server never runs more than max_batch_size
     * sequences per replica; the client's clock only blurs the edges) */
    long cap = r->attrs.max_batch_size;
    if (cap >= 1 && r->first_token && jl_attrs_is_llm(&r->attrs)) {
        long dp = r->attrs.data_parallel > 1 ? r->attrs.data_parallel : 1;
        TRY(over_cap(r, s, cap * dp));
    }
    /* output tokens against the engine's own count */
    if (r->output_tokens && r->tokens_generated && r->engine_n >= 2 && isfinite(first)) {
        double req_tokens = 0;
        for (size_t i = 0; i < R; i++)
            if (isfinite(r->finish[i]) && r->output_tokens[i] > 0)
                req_tokens += r->output_tokens[i];
        size_t e0 = jl__first_ge(r->engine_time, r->engine_n, first - tol);
        size_t e1 = jl__last_le(r->engine_time, r->engine_n, last + tol);
        if (e1 != (size_t)-1 && e1 > e0 && req_tokens > 0) {
            double eng = (double)(r->tokens_generated[e1] - r->tokens_generated[e0]);
            double rel = (eng - req_tokens) / req_tokens;
            if (fabs(rel) > TOKENS_TOL && eng > 0)
                TRY(jl__validity_add(&s->validity, JL__R_REQUESTS_INCONSISTENT, NAN,
                                     "the requests' output tokens (%.0f) and the engine's "
                                     "tokens_generated over their span (%.0f) differ by %+.1f %% "
                                     "(tolerance %g %%): the request log is not this engine's",
                                     req_tokens, eng, 100 * rel, 100 * TOKENS_TOL));
        }
    }
end:
    return st;
}

jl_status jl__summary_validity(const jl_run *run, jl_summary *s, double a, double b, int integrated)
{
    jl_status st = JL_OK;
    TRY(imported(s));
    size_t n = run->power_n, G = run->watts.g;
    if (n < 2)
        goto end;
    double period, max_dt;
    int need;
    TRY(sampling(run, &period, &max_dt, &need));
    double limit = fmax(GAP_PERIODS * period, period + GAP_MIN_S);
    /* the run's power levels */
    double lo = INFINITY, hi = -INFINITY, median = NAN;
    size_t implausible = 0;
    double worst = 0;
    if (run->watts.v) {
        double *w = jl__malloc_array(n, sizeof *w);
        if (!w) {
            st = JL_ENOMEM;
            goto end;
        }
        int node = jl_attrs_is_node_ac(&run->attrs);
        double lim = isfinite(run->attrs.gpu_tdp_w) && run->attrs.gpu_tdp_w > 0
                         ? PLAUSIBLE_LIMITS * run->attrs.gpu_tdp_w
                         : PLAUSIBLE_MAX_W;
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            double x = row_watts(run, i);
            if (!isfinite(x))
                continue;
            w[m++] = x;
            lo = fmin(lo, x);
            hi = fmax(hi, x);
            for (size_t g = 0; !node && g < G; g++) {
                double v = run->watts.v[i * G + g];
                if (v > lim) {
                    implausible++;
                    worst = fmax(worst, v);
                }
            }
        }
        median = m ? jl__median_d(w, m) : NAN;
        free(w);
        if (G > 0 && isfinite(run->attrs.gpu_idle_power_w))
            lo = fmin(lo, run->attrs.gpu_idle_power_w * (double)G);
        if (implausible)
            TRY(jl__validity_add(&s->validity, JL__R_INVALID_POWER_SAMPLE, NAN,
                                 "%zu power readings above %.6g W (%s), the highest %.6g W: no "
                                 "GPU draws that; the energy over them is not a measurement",
                                 implausible, lim,
                                 isfinite(run->attrs.gpu_tdp_w) ? "3 x gpu_tdp_w"
                                                                : "3,000 W per GPU",
                                 worst));
    }
    if (need && integrated)
        TRY(gaps(run, s, a, b, period, limit, lo, hi, s->published && !s->published->from_parts));
    /* a window the samples do not bracket */
    const double *t = run->power_time;
    double tol = fmax(period, 1e-9);
    if (isfinite(a) && isfinite(b) && (a < t[0] - tol || b > t[n - 1] + tol))
        TRY(jl__validity_add(&s->validity, JL__R_WINDOW_NOT_BRACKETED, NAN,
                             "the window [%.6g, %.6g] s reaches beyond the power samples [%.6g, "
                             "%.6g] s (by %.6g s before, %.6g s after; tolerance one sampling "
                             "period, %.3g s): its energy is %s",
                             a, b, t[0], t[n - 1], fmax(0, t[0] - a), fmax(0, b - t[n - 1]), tol,
                             isfinite(s->fig[JL_FIG_STEADY_ENERGY_J]) ? "extrapolated at constant "
                                                                        "power"
                                                                      : "missing"));
    TRY(requests(run, s, period, lo, median));
    /* at the power limit */
    double avg = s->fig[JL_FIG_AVG_POWER_W];
    if (!jl_attrs_is_node_ac(&run->attrs) && G > 0 && isfinite(run->attrs.gpu_tdp_w) &&
        run->attrs.gpu_tdp_w > 0 && avg / (double)G >= CAPPED_SHARE * run->attrs.gpu_tdp_w &&
        !jl_validity_has(&s->validity, "power_capped"))
        TRY(jl__validity_add(&s->validity, JL__R_POWER_CAPPED, NAN,
                             "average power per GPU %.6g W is at its power limit %.6g W (%g %% or "
                             "more): the figures describe a capped GPU",
                             avg / (double)G, run->attrs.gpu_tdp_w, 100 * CAPPED_SHARE));
end:
    return st;
}

void jl__validity_write(jl__jw *w, const jl_summary *s)
{
    const jl_validity *v = &s->validity;
    jl__jw_key(w, "validity");
    jl__jw_object(w);
    jl__jw_key(w, "reasons");
    jl__jw_array(w);
    for (size_t i = 0; i < v->n; i++) {
        jl__jw_object(w);
        jl__jw_kstring(w, "code", v->reasons[i].code);
        jl__jw_knumber(w, "energy_bound_j", v->reasons[i].energy_bound_j);
        jl__jw_kstring(w, "message", v->reasons[i].message);
        jl__jw_kstring(w, "severity", jl_severity_name(jl_reason_severity(&v->reasons[i])));
        jl__jw_end(w);
    }
    jl__jw_end(w);
    jl__jw_kbool(w, "valid", jl_validity_is_valid(v));
    jl__jw_end(w);
}
