/* The anchor: the ML.ENERGY data toolkit's LogisticModel (ml-energy/data,
 * mlenergy_data/modeling/logistic.py @ ed446d891b37fec47131f32a2ffce36eaa1ea854),
 * reimplemented as docs/model-design.md §3 describes:
 *
 *   y = b0 + L sigma(k (x - x0)),   x = log2(batch)
 *   grid: x0 in linspace(min x - 1, max x + 1, 40) (outer loop) x
 *         k in logspace(-2, 2, 60) (inner loop);
 *   at each grid point (b0, L) by linear least squares on [1, sigma]
 *   (numpy.linalg.lstsq with rcond = eps * max(n, 2): singular values below
 *   rcond * sigma_max are treated as zero, giving the minimum-norm solution);
 *   keep the first grid point with the smallest MSE (strict <);
 *   1 point or constant y (numpy.allclose): L = 0, b0 = mean(y).
 */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stddef.h>

#include "joules/model.h"

double jl_logistic_eval(const jl_logistic *m, double x)
{
    return m->b0 + m->L / (1.0 + exp(-m->k * (x - m->x0)));
}

/* lstsq of y on [1, s] (n rows), following numpy's SVD cutoff. The 2x2
 * Gram matrix's singular values are computed from centred sums so the
 * smaller one stays accurate down to the cutoff. */
static void lstsq2(const double *s, const double *y, size_t n, double *b0, double *L)
{
    double dn = (double)n, ms = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        ms += s[i];
        my += y[i];
    }
    ms /= dn;
    my /= dn;
    double ss = 0, sy = 0, s2 = 0;
    for (size_t i = 0; i < n; i++) {
        ss += (s[i] - ms) * (s[i] - ms);
        sy += (s[i] - ms) * (y[i] - my);
        s2 += s[i] * s[i];
    }
    double tr = dn + s2, det = dn * ss;
    double disc = sqrt(fmax(tr * tr - 4 * det, 0.0));
    double smax2 = 0.5 * (tr + disc);
    double smax = sqrt(smax2), smin = sqrt(fmax(det, 0.0)) / smax;
    double cut = DBL_EPSILON * (double)(n > 2 ? n : 2) * smax;
    if (smin > cut) {
        *L = sy / ss;
        *b0 = my - *L * ms;
        return;
    }
    /* rank 1: minimum-norm solution v1 (v1 . A^T y) / sigma1^2, with v1 the
     * leading eigenvector of A^T A = [[n, S], [S, s2]] */
    double S = ms * dn, v0, v1;
    if (fabs(S) > 0) {
        v0 = S;
        v1 = smax2 - dn;
    } else if (dn >= s2) {
        v0 = 1;
        v1 = 0;
    } else {
        v0 = 0;
        v1 = 1;
    }
    double nv = sqrt(v0 * v0 + v1 * v1);
    v0 /= nv;
    v1 /= nv;
    double aty0 = my * dn, aty1 = 0;
    for (size_t i = 0; i < n; i++)
        aty1 += s[i] * y[i];
    double c = (v0 * aty0 + v1 * aty1) / smax2;
    *b0 = v0 * c;
    *L = v1 * c;
}

#define ANCHOR_MAX_N 256

jl_logistic jl_logistic_fit(const double *x, const double *y, size_t n)
{
    jl_logistic best = {0, n ? x[0] : 0, 1, 0};
    if (n == 0)
        return best;
    double my = 0, xmin = x[0], xmax = x[0];
    int constant = 1;
    for (size_t i = 0; i < n; i++) {
        my += y[i] / (double)n;
        xmin = fmin(xmin, x[i]);
        xmax = fmax(xmax, x[i]);
        if (!(fabs(y[i] - y[0]) <= 1e-8 + 1e-5 * fabs(y[0])))
            constant = 0;
    }
    if (n == 1 || constant || n > ANCHOR_MAX_N) {
        best.b0 = my;
        return best;
    }
    double s[ANCHOR_MAX_N], best_mse = HUGE_VAL;
    for (int i = 0; i < 40; i++) {
        double x0 = (xmin - 1.0) + ((xmax + 1.0) - (xmin - 1.0)) * (double)i / 39.0;
        for (int j = 0; j < 60; j++) {
            double k = pow(10.0, -2.0 + 4.0 * (double)j / 59.0);
            for (size_t r = 0; r < n; r++)
                s[r] = 1.0 / (1.0 + exp(-k * (x[r] - x0)));
            double b0, L;
            lstsq2(s, y, n, &b0, &L);
            double mse = 0;
            for (size_t r = 0; r < n; r++) {
                double e = y[r] - (b0 + L * s[r]);
                mse += e * e;
            }
            mse /= (double)n;
            if (mse < best_mse) {
                best_mse = mse;
                best = (jl_logistic){L, x0, k, b0};
            }
        }
    }
    return best;
}
