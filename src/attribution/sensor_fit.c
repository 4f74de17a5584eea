/* The sensor model fitted on square-wave bursts (jl_sensor_fit). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attribution/attribution_internal.h"
#include "core/stats.h"
#include "core/util.h"

void jl__sensor_defaults(jl_sensor *s)
{
    /* measured on ../shared/attribution-h100/h100-sensor-square-wave.h5
     * (NVIDIA H100, driver 580.159.04) with jl_sensor_fit: docs/attribute.md */
    jl_sensor_init(s);
    s->update_period_s = 0.100;
    s->energy_delay_s = JL__DEFAULT_ENERGY_DELAY_S;
    s->watts_window_s = JL__DEFAULT_WATTS_WINDOW_S;
    s->watts_delay_s = JL__DEFAULT_WATTS_DELAY_S;
}

/* The bursts' union as sorted, disjoint intervals and the busy time before
 * each interval's start (prefix), so B(x) = busy time in (-inf, x]. */
typedef struct {
    size_t n;
    double *a, *b, *pre;
} burst_set;

static int bursts_build(const jl_spans *s, burst_set *u)
{
    double *iv = malloc((s->n ? s->n : 1) * 2 * sizeof *iv);
    u->a = malloc((s->n ? s->n : 1) * sizeof *u->a);
    u->b = malloc((s->n ? s->n : 1) * sizeof *u->b);
    u->pre = malloc((s->n ? s->n : 1) * sizeof *u->pre);
    if (!iv || !u->a || !u->b || !u->pre) {
        free(iv);
        return 0;
    }
    for (size_t i = 0; i < s->n; i++) {
        iv[2 * i] = s->start[i];
        iv[2 * i + 1] = s->end[i];
    }
    qsort(iv, s->n, 2 * sizeof *iv, jl__cmp_double);
    u->n = 0;
    double acc = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (u->n && iv[2 * i] <= u->b[u->n - 1]) {
            if (iv[2 * i + 1] > u->b[u->n - 1]) {
                acc += iv[2 * i + 1] - u->b[u->n - 1];
                u->b[u->n - 1] = iv[2 * i + 1];
            }
            continue;
        }
        u->a[u->n] = iv[2 * i];
        u->b[u->n] = iv[2 * i + 1];
        u->pre[u->n] = acc;
        acc += iv[2 * i + 1] - iv[2 * i];
        u->n++;
    }
    free(iv);
    return 1;
}

static double busy_before(const burst_set *u, double x)
{
    size_t lo = 0, hi = u->n; /* first interval with a > x */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (u->a[mid] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    size_t k = lo - 1;
    return u->pre[k] + (x < u->b[k] ? x - u->a[k] : u->b[k] - u->a[k]);
}

/* Least squares y ~ p0 * x0 + p1 * x1 over n points; SSE returned. */
typedef struct {
    double s00, s01, s11, s0y, s1y, syy;
    size_t n;
} ls2;

static double ls2_solve(const ls2 *q, double *p0, double *p1)
{
    double det = q->s00 * q->s11 - q->s01 * q->s01;
    if (!(fabs(det) > 0))
        return INFINITY;
    *p0 = (q->s0y * q->s11 - q->s1y * q->s01) / det;
    *p1 = (q->s00 * q->s1y - q->s01 * q->s0y) / det;
    double sse = q->syy - 2 * (*p0 * q->s0y + *p1 * q->s1y) + *p0 * *p0 * q->s00 +
                 2 * *p0 * *p1 * q->s01 + *p1 * *p1 * q->s11;
    return sse < 0 ? 0 : sse;
}

static void ls2_add(ls2 *q, double x0, double x1, double y)
{
    q->s00 += x0 * x0;
    q->s01 += x0 * x1;
    q->s11 += x1 * x1;
    q->s0y += x0 * y;
    q->s1y += x1 * y;
    q->syy += y * y;
    q->n++;
}

/* The readings of a power field at their change times: v[k] read first at
 * (t[j-1] + t[j]) / 2. */
static size_t readings(const jl_run *run, const jl_series *s, double *tt, double *vv)
{
    size_t n = 0, G = s->g;
    for (size_t j = 1; j < run->power_n; j++) {
        double a = s->v[(j - 1) * G], b = s->v[j * G];
        if (!isfinite(b) || b == a)
            continue;
        tt[n] = 0.5 * (run->power_time[j - 1] + run->power_time[j]);
        vv[n] = b;
        n++;
    }
    return n;
}

/* Grid search of (window, delay) for a field's readings. */
static double fit_field(const burst_set *u, const double *tt, const double *vv, size_t n,
                        double w_lo, double w_hi, double w_step, double d_lo, double d_hi,
                        double *best_w, double *best_d, double *idle, double *busy)
{
    double best = INFINITY;
    for (double w = w_lo; w <= w_hi + 1e-12; w += w_step)
        for (double d = d_lo; d <= d_hi + 1e-12; d += 0.001) {
            ls2 q = {0};
            for (size_t k = 0; k < n; k++) {
                double b = tt[k] - d, a = b - w;
                double f = (busy_before(u, b) - busy_before(u, a)) / w;
                ls2_add(&q, 1.0, f, vv[k]);
            }
            double p0, p1, sse = ls2_solve(&q, &p0, &p1);
            if (sse < best) {
                best = sse;
                *best_w = w;
                *best_d = d;
                *idle = p0;
                *busy = p0 + p1;
            }
        }
    return n ? sqrt(best / (double)n) : NAN;
}

jl_status jl_sensor_fit(const jl_run *run, const jl_spans *bursts, jl_sensor_fit_result *out,
                        jl_error **err)
{
    memset(out, 0, sizeof *out);
    out->avg_window_s = out->avg_delay_s = NAN;
    if (!run->energy_j.v || !run->watts.v || run->power_n < 10)
        return jl_fail(err, JL_ENODATA, run->file, run->name, "power", -1,
                       "the sensor fit needs power/energy_j and power/watts");
    if (!bursts || bursts->n < 4)
        return jl_fail(err, JL_ENODATA, run->file, run->name, "spans", -1,
                       "the sensor fit needs at least 4 bursts in spans/");
    size_t N = run->power_n;
    burst_set u = {0};
    double *tt = malloc(N * sizeof *tt), *vv = malloc(N * sizeof *vv);
    double *gaps = malloc(N * sizeof *gaps);
    jl_status st = JL_OK;
    jl__counter c = {0};
    if (!tt || !vv || !gaps || !bursts_build(bursts, &u)) {
        st = JL_ENOMEM;
        goto end;
    }
    out->n_bursts = u.n;
    for (size_t j = 1; j < N; j++)
        gaps[j - 1] = run->power_time[j] - run->power_time[j - 1];
    out->poll_period_s = jl__median_d(gaps, N - 1);

    /* the counter: increments between updates against the busy time in the
     * interval shifted by the delay */
    jl_sensor zero;
    jl_sensor_init(&zero);
    zero.energy_delay_s = 0;
    if ((st = jl__counter_build(run, 0, &zero, &c, err)) != JL_OK)
        goto end;
    for (size_t k = 1; k < c.n; k++)
        gaps[k - 1] = c.t[k] - c.t[k - 1];
    out->update_period_s = jl__median_d(gaps, c.n - 1);
    out->n_updates = c.n;
    double best = INFINITY;
    for (double d = -0.05; d <= 0.2 + 1e-12; d += 0.001) {
        ls2 q = {0};
        for (size_t k = 1; k < c.n; k++) {
            double a = c.t[k - 1] - d, b = c.t[k] - d;
            ls2_add(&q, b - a, busy_before(&u, b) - busy_before(&u, a), c.e[k] - c.e[k - 1]);
        }
        double p0, p1, sse = ls2_solve(&q, &p0, &p1);
        if (sse < best) {
            best = sse;
            out->energy_delay_s = d;
            out->idle_w = p0;
            out->busy_w = p0 + p1;
        }
    }
    out->counter_rms_w = sqrt(best / (double)(c.n - 1)) / out->update_period_s;

    size_t n = readings(run, &run->watts, tt, vv);
    double i2, b2;
    out->watts_rms_w = fit_field(&u, tt, vv, n, 0.002, 0.2, 0.001, 0.0, 0.1, &out->watts_window_s,
                                 &out->watts_delay_s, &i2, &b2);
    if (run->watts_avg.v) {
        n = readings(run, &run->watts_avg, tt, vv);
        fit_field(&u, tt, vv, n, 0.2, 1.6, 0.01, 0.0, 0.1, &out->avg_window_s, &out->avg_delay_s,
                  &i2, &b2);
    }
end:
    jl__counter_free(&c);
    free(u.a);
    free(u.b);
    free(u.pre);
    free(tt);
    free(vv);
    free(gaps);
    return st;
}
