/* The marginal prefill energy (docs/summary.md, "prefill_marginal_energy_share"):
 * what prefill work adds over decode-only iterations of the same batch.
 *
 * prefill_energy_share counts the whole energy of every iteration that held
 * a prompt token, although such an iteration also runs the decode step of
 * every running sequence. Here each engine interval inside the window that
 * processed prompt tokens is matched with the decode-only intervals of the
 * same batch (engine/running):
 *
 *  1. The baseline of batch b is the mean energy of the decode-only
 *     intervals of batch b (a batch without one: linear between the nearest
 *     batches that have one, or the nearest).
 *  2. The marginal prefill energy M is the sum over the prefill intervals of
 *     its energy minus its batch's baseline.
 *  3. Its 95 % interval: M +- 1.96 sigma, sigma^2 = sum over batches of
 *     m_b^2 s_b^2 / n_b (m_b the prefill intervals matched to batch b, with
 *     their interpolation weights; s_b the standard deviation of batch b's
 *     n_b decode-only intervals, pooled over the batches as a share of the
 *     mean where a batch has one) -- the uncertainty of the baselines --
 *     widened to hold a second estimate that no sampling smear can bias:
 *     consecutive intervals in blocks of at least BLOCK_GAPS power sampling
 *     gaps, each block's energy regressed on its decode-only and prefill
 *     time (E = P_d T_d + P_p T_p, least squares), and M' = sum over the
 *     prefill intervals of P_p d_i - P_d dbar_b (dbar_b the mean duration
 *     of batch b's decode-only intervals). An interval's energy comes from
 *     E(t) interpolated between power samples, so energy spills between
 *     neighbours closer than a sampling gap; a block's only at its ends.
 *
 * The share is M / E with E the window's energy. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "summary/summary_internal.h"

typedef struct {
    int32_t b;
    size_t n;
    double sum, sum2, m; /* m: weight of the intervals matched to it */
} batch_stat;

static int cmp_i32(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return a < b ? -1 : a > b;
}

/* index of b in st[0..k) (sorted), or of the insertion point with *exact 0 */
static size_t find_b(const batch_stat *st, size_t k, int32_t b, int *exact)
{
    size_t lo = 0, hi = k;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (st[mid].b < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    *exact = lo < k && st[lo].b == b;
    return lo;
}

/* Blocks of consecutive intervals at least this many sampling gaps long,
 * and at least this many blocks, for the smear-free estimate. */
#define BLOCK_GAPS 10.0
#define MIN_BLOCKS 8

/* The baseline of batch b from st[0..k) (sorted, each with n > 0): *idx
 * and *w the one or two batches used (w weight of the upper one). */
static double baseline(const batch_stat *st, size_t k, int32_t b, size_t *lo_i, double *w,
                       int use_dur, const double *dur_mean)
{
    int exact;
    size_t j = find_b(st, k, b, &exact);
    const double *m = dur_mean;
#define MEAN(q) (use_dur ? m[q] : st[q].sum / (double)st[q].n)
    if (exact || j == 0 || j == k) {
        size_t q = exact ? j : j == 0 ? 0 : k - 1;
        *lo_i = q;
        *w = 0;
        return MEAN(q);
    }
    double x = (double)(b - st[j - 1].b) / (double)(st[j].b - st[j - 1].b);
    *lo_i = j - 1;
    *w = x;
    return (1 - x) * MEAN(j - 1) + x * MEAN(j);
#undef MEAN
}

/* The smear-free estimate (above); NaN when the blocks cannot give it. */
static double block_estimate(const double *e, const double *t0, const double *t,
                             const unsigned char *pre, size_t n, double gap, const batch_stat *st,
                             size_t k, const int32_t *running, const double *dur_mean)
{
    if (!(gap > 0))
        return NAN;
    double sdd = 0, spp = 0, sdp = 0, sdy = 0, spy = 0;
    size_t blocks = 0;
    for (size_t i = 0; i < n;) {
        double td = 0, tp = 0, y = 0;
        size_t j = i;
        for (; j < n && (j == i || t[j - 1] - t0[i] < BLOCK_GAPS * gap); j++) {
            if (!isfinite(e[j]))
                break;
            *(pre[j] ? &tp : &td) += t[j] - t0[j];
            y += e[j];
        }
        if (j == i) {
            i++;
            continue;
        }
        if (t[j - 1] - t0[i] >= BLOCK_GAPS * gap) {
            sdd += td * td;
            spp += tp * tp;
            sdp += td * tp;
            sdy += td * y;
            spy += tp * y;
            blocks++;
        }
        i = j;
    }
    double det = sdd * spp - sdp * sdp;
    if (blocks < MIN_BLOCKS || !(det > 1e-9 * sdd * spp))
        return NAN;
    double Pd = (sdy * spp - spy * sdp) / det, Pp = (spy * sdd - sdy * sdp) / det;
    double M = 0;
    for (size_t i = 0; i < n; i++) {
        if (!pre[i])
            continue;
        size_t q;
        double w;
        double dbar = baseline(st, k, running[i], &q, &w, 1, dur_mean);
        M += Pp * (t[i] - t0[i]) - Pd * dbar;
    }
    return M;
}

void jl__prefill_marginal(const double *e, const double *t0, const double *t,
                          const int32_t *running, const unsigned char *pre, size_t n, double gap,
                          double E, double out[3], const char **why)
{
    out[0] = out[1] = out[2] = NAN;
    *why = NULL;
    if (!n || !(isfinite(E) && E > 0)) {
        *why = "no engine interval inside the window";
        return;
    }
    size_t n_pre = 0;
    for (size_t i = 0; i < n; i++)
        n_pre += pre[i] != 0;
    if (!n_pre) {
        /* no iteration held a prompt token: prefill added nothing here */
        out[0] = out[1] = out[2] = 0;
        return;
    }
    int32_t *bs = malloc(n * sizeof *bs);
    batch_stat *st = NULL;
    double *dur_mean = NULL;
    size_t nb = 0;
    if (!bs) {
        *why = "out of memory";
        goto end;
    }
    for (size_t i = 0; i < n; i++)
        if (!pre[i] && isfinite(e[i]))
            bs[nb++] = running[i];
    if (!nb) {
        *why = "no decode-only iteration to match";
        goto end;
    }
    /* 1. the baselines: decode-only intervals by batch */
    qsort(bs, nb, sizeof *bs, cmp_i32);
    size_t k = 0;
    for (size_t i = 0; i < nb; i++)
        if (!k || bs[i] != bs[k - 1])
            bs[k++] = bs[i];
    st = calloc(k, sizeof *st);
    dur_mean = calloc(k, sizeof *dur_mean);
    if (!st || !dur_mean) {
        *why = "out of memory";
        goto end;
    }
    for (size_t j = 0; j < k; j++)
        st[j].b = bs[j];
    int exact;
    for (size_t i = 0; i < n; i++)
        if (!pre[i] && isfinite(e[i])) {
            size_t j = find_b(st, k, running[i], &exact);
            st[j].n++;
            st[j].sum += e[i];
            st[j].sum2 += e[i] * e[i];
            dur_mean[j] += t[i] - t0[i];
        }
    for (size_t j = 0; j < k; j++)
        dur_mean[j] /= (double)st[j].n;
    /* pooled relative variance, for the batches with a single interval */
    double rel_num = 0, rel_den = 0;
    for (size_t j = 0; j < k; j++) {
        const batch_stat *g = &st[j];
        double mean = g->sum / (double)g->n;
        if (g->n >= 2 && mean != 0) {
            double var = (g->sum2 - (double)g->n * mean * mean) / (double)(g->n - 1);
            rel_num += (var > 0 ? var : 0) / (mean * mean) * (double)(g->n - 1);
            rel_den += (double)(g->n - 1);
        }
    }
    const double rel_var = rel_den > 0 ? rel_num / rel_den : NAN;
    /* 2. the prefill intervals over their baselines */
    double M = 0;
    for (size_t i = 0; i < n; i++) {
        if (!pre[i] || !isfinite(e[i]))
            continue;
        size_t q;
        double w;
        M += e[i] - baseline(st, k, running[i], &q, &w, 0, NULL);
        st[q].m += 1 - w;
        if (w > 0)
            st[q + 1].m += w;
    }
    /* 3. the baselines' uncertainty, and the smear-free estimate */
    double var_M = 0;
    int unknown = 0;
    for (size_t j = 0; j < k; j++) {
        const batch_stat *g = &st[j];
        if (g->m == 0)
            continue;
        double mean = g->sum / (double)g->n, var;
        if (g->n >= 2)
            var = (g->sum2 - (double)g->n * mean * mean) / (double)(g->n - 1);
        else
            var = rel_var * mean * mean;
        if (!isfinite(var)) {
            unknown = 1;
            continue;
        }
        var_M += g->m * g->m * (var > 0 ? var : 0) / (double)g->n;
    }
    out[0] = M / E;
    if (!unknown) {
        double h = 1.96 * sqrt(var_M), lo = M - h, hi = M + h;
        double Mb = block_estimate(e, t0, t, pre, n, gap, st, k, running, dur_mean);
        if (isfinite(Mb)) {
            lo = fmin(lo, Mb);
            hi = fmax(hi, Mb);
        }
        out[1] = lo / E;
        out[2] = hi / E;
    }
end:
    free(bs);
    free(st);
    free(dur_mean);
}
