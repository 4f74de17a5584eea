/* Energy tracks: the cumulative energy of one GPU as a function of time,
 * from the cumulative counter (with restart/wrap bridging and garbage
 * detection) or from the integral of watts. Rules: docs/summary.md,
 * "Energy". */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "summary/summary_internal.h"

size_t jl__last_le(const double *v, size_t n, double x)
{
    /* first index with v[i] > x, minus one */
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1; /* (size_t)-1 when lo == 0 */
}

void jl__track_free(jl__track *tr)
{
    if (!tr)
        return;
    if (!tr->borrowed)
        free(tr->cum);
    memset(tr, 0, sizeof *tr);
}

/* Mean rate of the first (or last) interval with positive length; NaN when
 * there is none. */
static double edge_rate(const double *t, const double *cum, size_t n, int last)
{
    if (n < 2)
        return NAN;
    if (!last) {
        for (size_t i = 1; i < n; i++)
            if (t[i] > t[0])
                return (cum[i] - cum[0]) / (t[i] - t[0]);
    } else {
        for (size_t i = n - 1; i-- > 0;)
            if (t[i] < t[n - 1])
                return (cum[n - 1] - cum[i]) / (t[n - 1] - t[i]);
    }
    return NAN;
}

jl_status jl__track_integral(jl__track *tr, const double *t, size_t n, const jl_series *watts,
                             size_t g, int *usable, size_t *bad_row, double *buf)
{
    memset(tr, 0, sizeof *tr);
    *usable = 0;
    *bad_row = 0;
    if (!watts->v || n == 0)
        return JL_OK;
    tr->borrowed = buf != NULL;
    tr->cum = buf ? buf : jl__malloc_array(n, sizeof *tr->cum);
    if (!tr->cum)
        return JL_ENOMEM;
    tr->n = n;
    tr->t = t;
    tr->stride = watts->g;
    tr->w = watts->v + g;
    const double *w = tr->w;
    size_t G = tr->stride;
    if (!isfinite(w[0])) {
        *bad_row = 0;
        return JL_OK;
    }
    tr->cum[0] = 0.0;
    for (size_t i = 1; i < n; i++) {
        double w0 = w[(i - 1) * G], w1 = w[i * G];
        if (!isfinite(w1)) {
            *bad_row = i;
            return JL_OK;
        }
        tr->cum[i] = tr->cum[i - 1] + (w0 + w1) * 0.5 * (t[i] - t[i - 1]);
    }
    tr->rate_first = w[0];
    tr->rate_last = w[(n - 1) * G];
    *usable = 1;
    return JL_OK;
}

static void unusable(jl__counter_report *rep, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void unusable(jl__counter_report *rep, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rep->reason, sizeof rep->reason, fmt, ap);
    va_end(ap);
    rep->usable = 0;
}

/* A drop of a counter with a known modulus W (RAPL) is a wrap when the
 * increment it means, x + W - ref, is no more than four times the power of
 * the neighbouring intervals (watts where given, else the previous
 * interval's corrected rate and the next one's raw rate, the larger) plus
 * min_drop_j; with no neighbouring rate at all, a wrap too. */
static int plausible_wrap(double inc, double dt, double p_watts, double r_prev, double r_next,
                          double min_drop_j)
{
    double p = p_watts;
    if (!isfinite(p))
        p = isfinite(r_prev) && isfinite(r_next) ? fmax(r_prev, r_next)
            : isfinite(r_prev)                   ? r_prev
                                                 : r_next;
    return !isfinite(p) || inc <= 4.0 * p * dt + min_drop_j;
}

jl_status jl__track_counter(jl__track *tr, const double *t, size_t n, const jl_series *energy,
                            const jl_series *watts, size_t g, double min_drop_j, double modulus_j,
                            jl__counter_report *rep, double *buf)
{
    memset(tr, 0, sizeof *tr);
    memset(rep, 0, sizeof *rep);
    if (!energy->v || n == 0) {
        unusable(rep, "no energy_j dataset");
        return JL_OK;
    }
    tr->borrowed = buf != NULL;
    tr->cum = buf ? buf : jl__malloc_array(n, sizeof *tr->cum);
    if (!tr->cum)
        return JL_ENOMEM;
    tr->n = n;
    tr->t = t;
    const size_t G = energy->g;
    const double *c = energy->v + g;
    const double *w = (watts && watts->v) ? watts->v + g : NULL;
    const size_t WG = w ? watts->g : 0;
    double *cum = tr->cum;

    if (!isfinite(c[0])) {
        unusable(rep, "energy_j is not finite at row 0");
        return JL_OK;
    }
    cum[0] = 0.0;
    double ref = c[0]; /* running maximum since the last restart */
    for (size_t i = 1; i < n; i++) {
        double x = c[i * G];
        if (!isfinite(x)) {
            unusable(rep, "energy_j is not finite at row %zu (t = %.6g s)", i, t[i]);
            return JL_OK;
        }
        double d = ref - x;
        if (d <= 0) {
            cum[i] = cum[i - 1] + (x - ref);
            ref = x;
            continue;
        }
        if (d < min_drop_j) {
            /* jitter: hold the running maximum (neither loses nor invents) */
            cum[i] = cum[i - 1];
            rep->n_jitter++;
            if (d > rep->jitter_max_j)
                rep->jitter_max_j = d;
            continue;
        }
        /* A known modulus: a wrap, counted exactly, when plausible. */
        if (isfinite(modulus_j) && x >= 0 && ref <= modulus_j) {
            double dt0 = t[i] - t[i - 1], pw = NAN, rp = NAN, rn = NAN;
            if (w && isfinite(w[(i - 1) * WG]) && isfinite(w[i * WG]))
                pw = (w[(i - 1) * WG] + w[i * WG]) * 0.5;
            if (i >= 2 && t[i - 1] > t[i - 2])
                rp = (cum[i - 1] - cum[i - 2]) / (t[i - 1] - t[i - 2]);
            if (i + 1 < n && t[i + 1] > t[i] && isfinite(c[(i + 1) * G]) && c[(i + 1) * G] >= x)
                rn = (c[(i + 1) * G] - x) / (t[i + 1] - t[i]);
            double inc = x + modulus_j - ref;
            if (plausible_wrap(inc, dt0, pw, rp, rn, min_drop_j)) {
                cum[i] = cum[i - 1] + inc;
                ref = x;
                rep->n_wraps++;
                continue;
            }
        }
        /* A drop of at least min_drop_j: a restart/wrap only if the counter
         * lands nearer to zero than the size of the drop... */
        if (!(x < d)) {
            unusable(rep,
                     "energy_j drops from %.6g J to %.6g J at row %zu (t = %.6g s), "
                     "not to near zero: not a restart or wrap",
                     ref, x, i, t[i]);
            return JL_OK;
        }
        double dt = t[i] - t[i - 1];
        double p_exp = NAN; /* power expected in this interval */
        int by_watts = 0;
        if (w && isfinite(w[(i - 1) * WG]) && isfinite(w[i * WG])) {
            p_exp = (w[(i - 1) * WG] + w[i * WG]) * 0.5;
            by_watts = 1;
        }
        double r_prev = NAN, r_next = NAN;
        if (i >= 2 && t[i - 1] > t[i - 2])
            r_prev = (cum[i - 1] - cum[i - 2]) / (t[i - 1] - t[i - 2]);
        if (i + 1 < n && t[i + 1] > t[i] && isfinite(c[(i + 1) * G]) && c[(i + 1) * G] >= x)
            r_next = (c[(i + 1) * G] - x) / (t[i + 1] - t[i]);
        /* ...and if it does not jump straight back up (noise going back and
         * forth): the next step climbing back half the drop, more than four
         * times what the power could deliver, is garbage. */
        if (i + 1 < n && isfinite(c[(i + 1) * G])) {
            double up = c[(i + 1) * G] - x;
            double ref_p = by_watts ? p_exp : r_prev;
            double dt1 = t[i + 1] - t[i];
            int implausible = !isfinite(ref_p) || up > 4.0 * ref_p * dt1 + min_drop_j;
            if (up >= 0.5 * d && implausible) {
                unusable(rep,
                         "energy_j drops from %.6g J to %.6g J at row %zu and "
                         "jumps back to %.6g J at the next row: non-monotone noise",
                         ref, x, i, c[(i + 1) * G]);
                return JL_OK;
            }
        }
        if (rep->n_restarts >= JL__MAX_RESTARTS) {
            unusable(rep, "energy_j drops more than %d times (again at row %zu, t = %.6g s)",
                     JL__MAX_RESTARTS, i, t[i]);
            return JL_OK;
        }
        if (!by_watts) {
            if (isfinite(r_prev) && isfinite(r_next))
                p_exp = 0.5 * (r_prev + r_next);
            else if (isfinite(r_prev))
                p_exp = r_prev;
            else
                p_exp = r_next;
        }
        if (!isfinite(p_exp)) {
            unusable(rep,
                     "energy_j restarts at row %zu (t = %.6g s) with no power to "
                     "bridge the gap",
                     i, t[i]);
            return JL_OK;
        }
        double bridged = p_exp * dt;
        jl__restart *r = &rep->restarts[rep->n_restarts++];
        r->row = i;
        r->time = t[i];
        r->from_j = ref;
        r->to_j = x;
        r->bridged_j = bridged;
        r->by_watts = by_watts;
        cum[i] = cum[i - 1] + bridged;
        ref = x;
    }
    tr->rate_first = edge_rate(t, cum, n, 0);
    tr->rate_last = edge_rate(t, cum, n, 1);
    rep->usable = 1;
    return JL_OK;
}

/* E(x) given i = jl__last_le(t, n, x), x >= t[0]. */
static double track_eval(const jl__track *tr, double x, size_t i)
{
    const double *t = tr->t;
    size_t n = tr->n;
    if (i == n - 1) {
        if (x == t[n - 1])
            return tr->cum[n - 1];
        return tr->cum[n - 1] + tr->rate_last * (x - t[n - 1]);
    }
    /* t[i] <= x < t[i+1] */
    double dt = t[i + 1] - t[i];
    double f = (x - t[i]) / dt;
    if (!tr->w)
        return tr->cum[i] + (tr->cum[i + 1] - tr->cum[i]) * f;
    double w0 = tr->w[i * tr->stride], w1 = tr->w[(i + 1) * tr->stride];
    double wx = w0 + (w1 - w0) * f;
    return tr->cum[i] + (w0 + wx) * 0.5 * (x - t[i]);
}

double jl__track_at_walk(const jl__track *tr, double x, size_t *cur)
{
    const double *t = tr->t;
    size_t n = tr->n;
    if (n == 0 || !isfinite(x))
        return NAN;
    if (x < t[0])
        return tr->cum[0] - tr->rate_first * (t[0] - x);
    size_t i = *cur;
    if (i >= n || t[i] > x) /* first call, or x went back */
        i = jl__last_le(t, n, x);
    else
        while (i + 1 < n && t[i + 1] <= x)
            i++;
    *cur = i;
    return track_eval(tr, x, i);
}

double jl__track_at(const jl__track *tr, double x)
{
    size_t cur = (size_t)-1; /* no hint: a binary search */
    return jl__track_at_walk(tr, x, &cur);
}
