/* The energy counter at its real update times (attribution_internal.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attribution/attribution_internal.h"
#include "core/util.h"

int jl__counter_available(const jl_run *run)
{
    return run->energy_j.v != NULL && run->power_n >= 2;
}

void jl__counter_free(jl__counter *c)
{
    if (!c)
        return;
    free(c->t);
    free(c->e);
    memset(c, 0, sizeof *c);
}

jl_status jl__counter_build(const jl_run *run, size_t g, const jl_sensor *sensor, jl__counter *c,
                            jl_error **err)
{
    memset(c, 0, sizeof *c);
    size_t N = run->power_n, G = run->energy_j.v ? run->energy_j.g : run->watts.g;
    const double *t = run->power_time;
    if (N < 2 || (!run->energy_j.v && !run->watts.v))
        return jl_fail(err, JL_ENODATA, run->file, run->name, "power", -1,
                       "no energy counter and no power readings to attribute");
    c->t = malloc(N * sizeof *c->t);
    c->e = malloc(N * sizeof *c->e);
    if (!c->t || !c->e) {
        jl__counter_free(c);
        return JL_ENOMEM;
    }
    if (run->energy_j.v) {
        const double *e = run->energy_j.v;
        double delay = isfinite(sensor->energy_delay_s) ? sensor->energy_delay_s : 0;
        double offset = 0;
        for (size_t j = 1; j < N; j++) {
            double a = e[(j - 1) * G + g], b = e[j * G + g];
            if (!isfinite(a) || !isfinite(b) || b == a)
                continue;
            if (b < a) { /* a restart: bridge it, no energy across the gap */
                c->n_resets++;
                offset += a - b;
                continue;
            }
            double u = 0.5 * (t[j - 1] + t[j]) - delay;
            if (c->n && u <= c->t[c->n - 1])
                continue;
            c->t[c->n] = u;
            c->e[c->n] = b + offset;
            c->n++;
        }
    } else {
        c->from_watts = 1;
        const double *w = run->watts.v;
        double shift = (isfinite(sensor->watts_delay_s) ? sensor->watts_delay_s : 0) +
                       0.5 * (isfinite(sensor->watts_window_s) ? sensor->watts_window_s : 0);
        double acc = 0;
        for (size_t j = 0; j < N; j++) {
            double x = w[j * G + g];
            if (!isfinite(x))
                continue;
            double u = t[j] - shift;
            if (c->n) {
                if (u <= c->t[c->n - 1])
                    continue;
                acc += 0.5 * (x + w[(j - 1) * G + g]) * (u - c->t[c->n - 1]);
            }
            c->t[c->n] = u;
            c->e[c->n] = acc;
            c->n++;
        }
    }
    if (c->n < 2) {
        jl__counter_free(c);
        return jl_fail(err, JL_ENODATA, run->file, run->name, "power/energy_j", -1,
                       "GPU %zu: fewer than two counter updates", g);
    }
    return JL_OK;
}

double jl__counter_at(const jl__counter *c, double x)
{
    if (!(x >= c->t[0] && x <= c->t[c->n - 1]))
        return NAN;
    size_t lo = 0, hi = c->n - 1;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (c->t[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    double f = (x - c->t[lo]) / (c->t[hi] - c->t[lo]);
    return c->e[lo] + f * (c->e[hi] - c->e[lo]);
}

/* the static power of GPU g: --static-w, idle before t = 0, @gpu_idle_power_w */
int jl__static_power(const jl_run *run, const jl__counter *c, double static_w, double *w,
                     double *unc, char **src)
{
    if (isfinite(static_w)) {
        *w = static_w;
        *unc = 0.10;
        *src = jl__asprintf("stated: --static-w %.6g W", static_w);
        return *src != NULL;
    }
    /* the counter's updates before t = 0, at least 1 s of them */
    size_t k1 = 0;
    while (k1 < c->n && c->t[k1] <= 0)
        k1++;
    if (k1 >= 2 && c->t[k1 - 1] - c->t[0] >= 1.0 && !c->from_watts) {
        *w = (c->e[k1 - 1] - c->e[0]) / (c->t[k1 - 1] - c->t[0]);
        *unc = 0.05;
        *src = jl__asprintf("measured: energy counter over %.3g s of idle before t = 0",
                            c->t[k1 - 1] - c->t[0]);
        return *src != NULL;
    }
    if (isfinite(run->attrs.gpu_idle_power_w)) {
        *w = run->attrs.gpu_idle_power_w;
        *unc = 0.05;
        *src = jl__strdup("the run's @gpu_idle_power_w (idle measured by the harness before the "
                          "run)");
        return *src != NULL;
    }
    *w = NAN;
    return 1;
}
