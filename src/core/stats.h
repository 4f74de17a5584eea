/* Order statistics, the one home of each (docs/summary.md, "Percentiles"):
 * the qsort comparator of doubles, quickselect, the k-th smallest, the
 * median and the linear quantile. Not part of the public API.
 *
 * One definition of a quantile: numpy's default ("linear", Hyndman & Fan
 * type 7): h = (n - 1) q, lo = floor(h), g = h - lo, the value between the
 * lo-th and (lo+1)-th smallest computed as numpy's _lerp does (a + (b - a) g
 * for g < 0.5, b - (b - a)(1 - g) otherwise); q <= 0 gives the smallest,
 * q >= 1 the largest. The median is numpy.median: the middle order
 * statistic, or 0.5 (a + b) of the two middle ones. Every quantile of the
 * library is one of these calls; the float samples' histogram select of the
 * summary (summary/quantile.c) finds the same order statistics. */
#ifndef JOULES_CORE_STATS_H
#define JOULES_CORE_STATS_H

#include <math.h>
#include <stddef.h>

/* Where the q quantile of n >= 1 sorted values lies: between the order
 * statistics lo and lo + 1 (0-based) at fraction g; *top set (lo = n - 1,
 * g = 0) when q reaches the largest. */
static inline void jl__quantile_pos(size_t n, double q, size_t *lo, double *g, int *top)
{
    double h = (double)(n - 1) * q;
    *top = h >= (double)(n - 1);
    if (*top) {
        *lo = n - 1;
        *g = 0;
        return;
    }
    if (h < 0)
        h = 0;
    double fl = floor(h);
    *lo = (size_t)fl;
    *g = h - fl;
}

/* numpy's _lerp between the order statistics a <= b at fraction g. */
static inline double jl__quantile_lerp(double a, double b, double g)
{
    double d = b - a;
    return g >= 0.5 ? b - d * (1.0 - g) : a + d * g;
}

/* qsort comparator for doubles, ascending, NaN last (it also sorts records
 * whose first member is the double key). */
int jl__cmp_double(const void *a, const void *b);

/* Quickselect (Wirth/Hoare, median-of-three pivot): reorders a[l..r] so
 * that a[k] is the value it would hold sorted, everything left of it <= it
 * and everything right >= it. No NaN. */
void jl__select_d(double *a, ptrdiff_t l, ptrdiff_t r, ptrdiff_t k);
void jl__select_f(float *a, ptrdiff_t l, ptrdiff_t r, ptrdiff_t k);

/* The quantiles q[0..nq) of x[0..n) into out[0..nq) (NaN when n == 0), by
 * quickselect (O(n) expected per quantile, fastest with q ascending);
 * reorders x; no NaN in x. float samples are widened to double first. */
void jl__quantiles_d(double *x, size_t n, const double *q, size_t nq, double *out);
void jl__quantiles_select_f(float *x, size_t n, const double *q, size_t nq, double *out);

/* The q quantile of x[0..n) already sorted ascending (NaN when n == 0). */
double jl__quantile_sorted(const double *x, size_t n, double q);

/* The k-th smallest (0-based) of x[0..n), reordering x; NaN when k >= n. */
double jl__kth_d(double *x, size_t n, size_t k);

/* The median of x[0..n) (numpy.median). Reorders x; no NaN in x; NaN when
 * n == 0. The one median of the library (fit, ceilings, the choice
 * statistics, the sensor model, the importers). */
double jl__median_d(double *x, size_t n);

#endif
