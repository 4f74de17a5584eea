/* Order statistics without a full sort: Wirth/Hoare quickselect with a
 * median-of-three pivot, then numpy's "linear" quantile. See
 * summary_internal.h for the exact definition. */
#include <math.h>
#include <stddef.h>

#include "summary/summary_internal.h"

/* Generate select and quantile functions for one element type. Indices are
 * signed (ptrdiff_t) because the inner loops may step j below l. */
#define JL__DEFINE_SELECT(SUFFIX, T)                                           \
    static void select_##SUFFIX(T *a, ptrdiff_t l, ptrdiff_t r, ptrdiff_t k)   \
    {                                                                          \
        while (r > l) {                                                        \
            ptrdiff_t m = l + (r - l) / 2;                                     \
            T p0 = a[l], p1 = a[m], p2 = a[r], x;                              \
            if (p0 < p1)                                                       \
                x = p1 < p2 ? p1 : (p0 < p2 ? p2 : p0);                        \
            else                                                               \
                x = p0 < p2 ? p0 : (p1 < p2 ? p2 : p1);                        \
            ptrdiff_t i = l, j = r;                                            \
            do {                                                               \
                while (a[i] < x)                                               \
                    i++;                                                       \
                while (x < a[j])                                               \
                    j--;                                                       \
                if (i <= j) {                                                  \
                    T tmp = a[i];                                              \
                    a[i] = a[j];                                               \
                    a[j] = tmp;                                                \
                    i++;                                                       \
                    j--;                                                       \
                }                                                              \
            } while (i <= j);                                                  \
            if (j < k)                                                         \
                l = i;                                                         \
            if (k < i)                                                         \
                r = j;                                                         \
        }                                                                      \
    }                                                                          \
                                                                               \
    void jl__quantiles_##SUFFIX(T *x, size_t n, const double *q, size_t nq,    \
                                double *out)                                   \
    {                                                                          \
        /* Everything left of `from` is <= everything from `from` on. */       \
        ptrdiff_t from = 0, last = (ptrdiff_t)n - 1;                           \
        for (size_t j = 0; j < nq; j++) {                                      \
            if (n == 0) {                                                      \
                out[j] = NAN;                                                  \
                continue;                                                      \
            }                                                                  \
            double h = (double)(n - 1) * q[j];                                 \
            if (h >= (double)(n - 1)) {                                        \
                if (from <= last)                                              \
                    select_##SUFFIX(x, from, last, last);                      \
                from = last;                                                   \
                out[j] = (double)x[last];                                      \
                continue;                                                      \
            }                                                                  \
            if (h < 0)                                                         \
                h = 0;                                                         \
            double fl = floor(h);                                              \
            ptrdiff_t lo = (ptrdiff_t)fl;                                      \
            double g = h - fl;                                                 \
            if (lo < from)                                                     \
                from = 0; /* q not ascending: stay correct, not fast */        \
            select_##SUFFIX(x, from, last, lo);                                \
            /* x[lo+1..last] >= x[lo]: its least element is the next order  \
             * statistic; one linear scan finds it (a second quickselect     \
             * costs 2-3 passes with unpredictable branches). */             \
            ptrdiff_t mi = lo + 1;                                             \
            for (ptrdiff_t i = lo + 2; i <= last; i++)                         \
                if (x[i] < x[mi])                                              \
                    mi = i;                                                    \
            T tmin = x[mi];                                                    \
            x[mi] = x[lo + 1];                                                 \
            x[lo + 1] = tmin;                                                  \
            from = lo + 1;                                                     \
            double a = (double)x[lo], b = (double)x[lo + 1];                   \
            double d = b - a;                                                  \
            out[j] = g >= 0.5 ? b - d * (1.0 - g) : a + d * g;                 \
        }                                                                      \
    }

JL__DEFINE_SELECT(f, float)
JL__DEFINE_SELECT(d, double)

double jl__kth_d(double *x, size_t n, size_t k)
{
    if (k >= n)
        return NAN;
    select_d(x, 0, (ptrdiff_t)n - 1, (ptrdiff_t)k);
    return x[k];
}

double jl__median_d(double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double hi = jl__kth_d(x, n, n / 2);
    if (n % 2)
        return hi;
    /* after the select x[0 .. n/2) <= hi: the lower middle is their largest */
    double lo = x[0];
    for (size_t i = 1; i < n / 2; i++)
        if (x[i] > lo)
            lo = x[i];
    return 0.5 * (lo + hi);
}
