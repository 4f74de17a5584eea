/* The marginal prefill energy (docs/summary.md, "The marginal prefill split"):
 * what prefill work adds over decode-only iterations of the same batch.
 *
 * prefill_energy_share counts the whole energy of every iteration that held
 * a prompt token, although such an iteration also runs the decode step of
 * every running sequence. Here the energy of the engine intervals inside
 * the window is explained iteration by iteration: an iteration at batch b
 * costs alpha_b (what a decode-only iteration of that batch costs), and one
 * that processed prompt tokens costs more by delta + gamma x its prompt
 * tokens. The marginal prefill energy M is the sum of that "more" over the
 * prefill iterations. Two estimates:
 *
 *  1. Regression (the figure): the window cut into blocks between power
 *     samples at least JL__PREFILL_BLOCK_GAPS sampling gaps apart (a
 *     block's energy is the energy source's own at its two samples: exact),
 *     each block's energy regressed (least squares) on the iterations in
 *     it (each counted by the share of its time inside the block) per batch
 *     (one column per batch; binned by equal counts past MAX_BINS batches),
 *     its prefill iterations and its prompt tokens (dropped where they move
 *     with the prefill iterations); M = delta x prefill iterations + gamma
 *     x prompt tokens, its standard error from the fit's residuals.
 *  2. Matching: each prefill interval minus the mean energy of the
 *     decode-only intervals of its batch (a batch without one: linear
 *     between the nearest that have one, or the nearest), summed; its
 *     standard error from the baselines' spread (m_b^2 s_b^2 / n_b per
 *     batch; the spread pooled as a share of the mean where a batch has one
 *     interval). An interval's energy comes from E(t) interpolated between
 *     power samples, so energy spills between neighbours closer than a
 *     sampling gap: a prefill's spilt into a decode neighbour raises that
 *     batch's baseline and lowers M.
 *
 * The share is M / E (E the window's energy), from the regression where
 * its design is identified (enough blocks, full rank), else from the
 * matching; the 95 % interval is the chosen estimate +- 1.96 standard
 * errors, widened to hold the other estimate. */
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
 * more blocks than columns by at least this, and at most this many batch
 * columns. */
#define MIN_DOF 4
#define MAX_BINS 12

/* The baseline of batch b from st[0..k) (sorted, each with n > 0): *lo_i
 * and *w the one or two batches used (w weight of the upper one). */
static double baseline(const batch_stat *st, size_t k, int32_t b, size_t *lo_i, double *w)
{
    int exact;
    size_t j = find_b(st, k, b, &exact);
    if (exact || j == 0 || j == k) {
        size_t q = exact ? j : j == 0 ? 0 : k - 1;
        *lo_i = q;
        *w = 0;
        return st[q].sum / (double)st[q].n;
    }
    double x = (double)(b - st[j - 1].b) / (double)(st[j].b - st[j - 1].b);
    *lo_i = j - 1;
    *w = x;
    return (1 - x) * st[j - 1].sum / (double)st[j - 1].n + x * st[j].sum / (double)st[j].n;
}

/* Solve the p x p system A x = rhs in place (Gauss-Jordan, partial
 * pivoting; inv gets A's inverse). -1 when a pivot falls below tol x the
 * largest diagonal: the design is not identified. */
static int solve(double *A, double *inv, double *rhs, size_t p)
{
    double dmax = 0;
    for (size_t i = 0; i < p; i++)
        dmax = fmax(dmax, fabs(A[i * p + i]));
    for (size_t i = 0; i < p; i++)
        for (size_t j = 0; j < p; j++)
            inv[i * p + j] = i == j;
    for (size_t c = 0; c < p; c++) {
        size_t piv = c;
        for (size_t r = c + 1; r < p; r++)
            if (fabs(A[r * p + c]) > fabs(A[piv * p + c]))
                piv = r;
        if (!(fabs(A[piv * p + c]) > 1e-10 * dmax))
            return -1;
        for (size_t j = 0; j < p; j++) {
            double t = A[c * p + j];
            A[c * p + j] = A[piv * p + j];
            A[piv * p + j] = t;
            t = inv[c * p + j];
            inv[c * p + j] = inv[piv * p + j];
            inv[piv * p + j] = t;
        }
        double t = rhs[c];
        rhs[c] = rhs[piv];
        rhs[piv] = t;
        double d = A[c * p + c];
        for (size_t j = 0; j < p; j++) {
            A[c * p + j] /= d;
            inv[c * p + j] /= d;
        }
        rhs[c] /= d;
        for (size_t r = 0; r < p; r++) {
            if (r == c || A[r * p + c] == 0)
                continue;
            double f = A[r * p + c];
            for (size_t j = 0; j < p; j++) {
                A[r * p + j] -= f * A[c * p + j];
                inv[r * p + j] -= f * inv[c * p + j];
            }
            rhs[r] -= f * rhs[c];
        }
    }
    return 0;
}

/* The regression estimate (above) into *M and *se: blocks [bt[k],
 * bt[k+1]] with energies be[k+1] - be[k] (the energy at power sample times:
 * exact), each iteration's share of a block its time inside it over its
 * length (power taken as constant within an iteration). 0, or -1 when the
 * design is not identified (or out of memory). */
static int regression(const double *t0, const double *t, const int32_t *running,
                      const long long *ptok, size_t n, const double *bt, const double *be,
                      size_t nbt, double *M, double *se)
{
    *M = *se = NAN;
    if (nbt < 2)
        return -1;
    /* the batch columns: each batch, or equal-count bins of them */
    int32_t *bs = malloc(n * sizeof *bs);
    int32_t edges[MAX_BINS + 1];
    size_t k = 0;
    if (!bs)
        return -1;
    for (size_t i = 0; i < n; i++)
        bs[i] = running[i];
    qsort(bs, n, sizeof *bs, cmp_i32);
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++)
        distinct += !i || bs[i] != bs[i - 1];
    const int exact_bins = distinct <= MAX_BINS;
    if (exact_bins) {
        for (size_t i = 0; i < n; i++)
            if (!k || bs[i] != edges[k - 1])
                edges[k++] = bs[i]; /* bin j: batch == edges[j] */
    } else {
        for (size_t j = 0; j < MAX_BINS; j++)
            edges[k++] = bs[j * n / MAX_BINS]; /* bin j: edges[j] <= batch < edges[j + 1] */
    }
    free(bs);
    const size_t pmax = k + 2, nblk = nbt - 1;
    double *X = calloc(nblk * pmax, sizeof *X);
    double n_pre = 0, p_tok = 0;
    if (!X)
        return -1;
    for (size_t i = 0, q = 0; i < n; i++) {
        size_t bin = 0;
        while (bin + 1 < k &&
               (exact_bins ? edges[bin] != running[i] : running[i] >= edges[bin + 1]))
            bin++;
        if (ptok[i] > 0) {
            n_pre += 1;
            p_tok += (double)ptok[i];
        }
        double d = t[i] - t0[i];
        while (q < nblk && bt[q + 1] <= t0[i])
            q++;
        for (size_t r = q; r < nblk && bt[r] < t[i]; r++) {
            double f = (fmin(t[i], bt[r + 1]) - fmax(t0[i], bt[r])) / d;
            if (!(f > 0))
                continue;
            X[r * pmax + bin] += f;
            if (ptok[i] > 0) {
                X[r * pmax + k] += f;
                X[r * pmax + k + 1] += f * (double)ptok[i];
            }
        }
    }
    int rc = -1;
    /* with the prompt tokens' column, then without it (when it moves with
     * the count of prefill iterations) */
    for (size_t p = pmax; p >= pmax - 1 && rc < 0; p--) {
        if (nblk < p + MIN_DOF)
            break;
        double A[(MAX_BINS + 2) * (MAX_BINS + 2)], inv[(MAX_BINS + 2) * (MAX_BINS + 2)],
            rhs[MAX_BINS + 2], c[MAX_BINS + 2];
        for (size_t a = 0; a < p; a++) {
            rhs[a] = 0;
            for (size_t b = 0; b < p; b++)
                A[a * p + b] = 0;
        }
        for (size_t r = 0; r < nblk; r++) {
            double y = be[r + 1] - be[r];
            for (size_t a = 0; a < p; a++) {
                rhs[a] += X[r * pmax + a] * y;
                for (size_t b = 0; b < p; b++)
                    A[a * p + b] += X[r * pmax + a] * X[r * pmax + b];
            }
        }
        if (solve(A, inv, rhs, p) != 0)
            continue;
        memcpy(c, rhs, p * sizeof *c);
        double rss = 0;
        for (size_t r = 0; r < nblk; r++) {
            double f = 0;
            for (size_t a = 0; a < p; a++)
                f += X[r * pmax + a] * c[a];
            double res = be[r + 1] - be[r] - f;
            rss += res * res;
        }
        double s2 = rss / (double)(nblk - p);
        /* M = delta x prefill iterations (+ gamma x prompt tokens) */
        double x[MAX_BINS + 2] = {0};
        x[k] = n_pre;
        if (p == pmax)
            x[k + 1] = p_tok;
        double m = 0, v = 0;
        for (size_t a = 0; a < p; a++) {
            m += x[a] * c[a];
            for (size_t b = 0; b < p; b++)
                v += x[a] * inv[a * p + b] * x[b];
        }
        *M = m;
        *se = sqrt(s2 * (v > 0 ? v : 0));
        rc = 0;
    }
    free(X);
    return rc;
}

void jl__prefill_marginal(const double *e, const double *t0, const double *t,
                          const int32_t *running, const long long *ptok, size_t n, const double *bt,
                          const double *be, size_t nbt, double E, double out[3], const char **why)
{
    out[0] = out[1] = out[2] = NAN;
    *why = NULL;
    if (!n || !(isfinite(E) && E > 0)) {
        *why = "no engine interval inside the window";
        return;
    }
    size_t n_pre = 0;
    for (size_t i = 0; i < n; i++)
        n_pre += ptok[i] > 0;
    if (!n_pre) {
        /* no iteration held a prompt token: prefill added nothing here */
        out[0] = out[1] = out[2] = 0;
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (!isfinite(e[i])) {
            *why = "an engine interval without energy";
            return;
        }
    int32_t *bs = malloc(n * sizeof *bs);
    batch_stat *st = NULL;
    size_t nb = 0;
    if (!bs) {
        *why = "out of memory";
        goto end;
    }
    for (size_t i = 0; i < n; i++)
        if (!(ptok[i] > 0))
            bs[nb++] = running[i];
    if (!nb) {
        *why = "no decode-only iteration to match";
        goto end;
    }
    /* the matching: decode-only intervals by batch */
    qsort(bs, nb, sizeof *bs, cmp_i32);
    size_t k = 0;
    for (size_t i = 0; i < nb; i++)
        if (!k || bs[i] != bs[k - 1])
            bs[k++] = bs[i];
    if (!(st = calloc(k, sizeof *st))) {
        *why = "out of memory";
        goto end;
    }
    for (size_t j = 0; j < k; j++)
        st[j].b = bs[j];
    int exact;
    for (size_t i = 0; i < n; i++)
        if (!(ptok[i] > 0)) {
            size_t j = find_b(st, k, running[i], &exact);
            st[j].n++;
            st[j].sum += e[i];
            st[j].sum2 += e[i] * e[i];
        }
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
    double M1 = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(ptok[i] > 0))
            continue;
        size_t q;
        double w;
        M1 += e[i] - baseline(st, k, running[i], &q, &w);
        st[q].m += 1 - w;
        if (w > 0)
            st[q + 1].m += w;
    }
    double var1 = 0;
    for (size_t j = 0; j < k; j++) {
        const batch_stat *g = &st[j];
        if (g->m == 0)
            continue;
        double mean = g->sum / (double)g->n;
        double var = g->n >= 2 ? (g->sum2 - (double)g->n * mean * mean) / (double)(g->n - 1)
                               : rel_var * mean * mean;
        var1 += g->m * g->m * (var > 0 ? var : 0) / (double)g->n;
    }
    double se1 = sqrt(var1), M2, se2;
    if (regression(t0, t, running, ptok, n, bt, be, nbt, &M2, &se2) == 0 && isfinite(se2)) {
        out[0] = M2 / E;
        out[1] = fmin(M2 - 1.96 * se2, M1) / E;
        out[2] = fmax(M2 + 1.96 * se2, M1) / E;
    } else {
        out[0] = M1 / E;
        if (isfinite(se1)) {
            out[1] = (M1 - 1.96 * se1) / E;
            out[2] = (M1 + 1.96 * se1) / E;
        }
    }
end:
    free(bs);
    free(st);
}
