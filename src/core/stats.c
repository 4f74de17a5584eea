/* Order statistics (core/stats.h): quickselect with a median-of-three
 * pivot, then numpy's "linear" quantile. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "core/stats.h"

int jl__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    int nx = isnan(x), ny = isnan(y);
    if (nx || ny)
        return nx - ny;
    return (x > y) - (x < y);
}

/* Select and quantile functions for one element type. Indices are signed
 * (ptrdiff_t) because the inner loops may step j below l. */
#define DEFINE_SELECT(SUFFIX, T, QNAME)                                                         \
    void jl__select_##SUFFIX(T *a, ptrdiff_t l, ptrdiff_t r, ptrdiff_t k)                       \
    {                                                                                           \
        while (r > l) {                                                                         \
            ptrdiff_t m = l + (r - l) / 2;                                                      \
            T p0 = a[l], p1 = a[m], p2 = a[r], x;                                               \
            if (p0 < p1)                                                                        \
                x = p1 < p2 ? p1 : (p0 < p2 ? p2 : p0);                                         \
            else                                                                                \
                x = p0 < p2 ? p0 : (p1 < p2 ? p2 : p1);                                         \
            ptrdiff_t i = l, j = r;                                                             \
            do {                                                                                \
                while (a[i] < x)                                                                \
                    i++;                                                                        \
                while (x < a[j])                                                                \
                    j--;                                                                        \
                if (i <= j) {                                                                   \
                    T tmp = a[i];                                                               \
                    a[i] = a[j];                                                                \
                    a[j] = tmp;                                                                 \
                    i++;                                                                        \
                    j--;                                                                        \
                }                                                                               \
            } while (i <= j);                                                                   \
            if (j < k)                                                                          \
                l = i;                                                                          \
            if (k < i)                                                                          \
                r = j;                                                                          \
        }                                                                                       \
    }                                                                                           \
                                                                                                \
    void QNAME(T *x, size_t n, const double *q, size_t nq, double *out)                         \
    {                                                                                           \
        /* Everything left of `from` is <= everything from `from` on. */                        \
        ptrdiff_t from = 0, last = (ptrdiff_t)n - 1;                                            \
        for (size_t j = 0; j < nq; j++) {                                                       \
            if (n == 0) {                                                                       \
                out[j] = NAN;                                                                   \
                continue;                                                                       \
            }                                                                                   \
            size_t lo_u;                                                                        \
            double g;                                                                           \
            int top;                                                                            \
            jl__quantile_pos(n, q[j], &lo_u, &g, &top);                                         \
            if (top) {                                                                          \
                if (from <= last)                                                               \
                    jl__select_##SUFFIX(x, from, last, last);                                   \
                from = last;                                                                    \
                out[j] = (double)x[last];                                                       \
                continue;                                                                       \
            }                                                                                   \
            ptrdiff_t lo = (ptrdiff_t)lo_u;                                                     \
            if (lo < from)                                                                      \
                from = 0; /* q not ascending: stay correct, not fast */                         \
            jl__select_##SUFFIX(x, from, last, lo);                                             \
            /* x[lo+1..last] >= x[lo]: its least element is the next order                    \
             * statistic; one linear scan finds it (a second quickselect                      \
             * costs 2-3 passes with unpredictable branches). */ \
            ptrdiff_t mi = lo + 1;                                                              \
            for (ptrdiff_t i = lo + 2; i <= last; i++)                                          \
                if (x[i] < x[mi])                                                               \
                    mi = i;                                                                     \
            T tmin = x[mi];                                                                     \
            x[mi] = x[lo + 1];                                                                  \
            x[lo + 1] = tmin;                                                                   \
            from = lo + 1;                                                                      \
            out[j] = jl__quantile_lerp((double)x[lo], (double)x[lo + 1], g);                    \
        }                                                                                       \
    }

DEFINE_SELECT(f, float, jl__quantiles_select_f)
DEFINE_SELECT(d, double, jl__quantiles_d)

double jl__quantile_sorted(const double *x, size_t n, double q)
{
    if (n == 0)
        return NAN;
    size_t lo;
    double g;
    int top;
    jl__quantile_pos(n, q, &lo, &g, &top);
    return top ? x[n - 1] : jl__quantile_lerp(x[lo], x[lo + 1], g);
}

double jl__kth_d(double *x, size_t n, size_t k)
{
    if (k >= n)
        return NAN;
    jl__select_d(x, 0, (ptrdiff_t)n - 1, (ptrdiff_t)k);
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
