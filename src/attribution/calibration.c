/* Class weights from isolated-loop runs (jl_class_weights_from_trace). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "attribution/attribution_internal.h"
#include "core/util.h"

/* The transfer of an isolated loop's power to the same op inside the real
 * loop (other neighbours, clocks, temperature), taken as 10 %: a stated
 * assumption (docs/attribute.md, "Calibration"). */
#define TRANSFER_UNC 0.10

/* grow an array of w->n doubles by one */
static int grow_d(double **v, size_t n)
{
    double *p = realloc(*v, n * sizeof *p);
    if (p)
        *v = p;
    return p != NULL;
}

static int push(jl_class_weights *w, const char *cls, double wd, double unc, double idle,
                double busy, double wall, double bow, double clock, double bpc)
{
    size_t n = w->n + 1;
    int *th = realloc(w->throttled, n * sizeof *th);
    if (th)
        w->throttled = th;
    if (!th || !grow_d(&w->wall_s, n) || !grow_d(&w->busy_over_wall, n) ||
        !grow_d(&w->clock_mhz, n) || !grow_d(&w->busy_per_call_s, n))
        return 0;
    w->busy_per_call_s[w->n] = bpc;
    w->wall_s[w->n] = wall;
    w->busy_over_wall[w->n] = bow;
    w->clock_mhz[w->n] = clock;
    w->throttled[w->n] = 0;
    char **c = realloc(w->cls, n * sizeof *c);
    if (c)
        w->cls = c;
    double *a = realloc(w->w_dyn, n * sizeof *a);
    if (a)
        w->w_dyn = a;
    double *b = realloc(w->rel_unc, n * sizeof *b);
    if (b)
        w->rel_unc = b;
    double *d = realloc(w->idle_w, n * sizeof *d);
    if (d)
        w->idle_w = d;
    double *e = realloc(w->busy_s, n * sizeof *e);
    if (e)
        w->busy_s = e;
    if (!c || !a || !b || !d || !e || !(w->cls[w->n] = jl__strdup(cls)))
        return 0;
    w->w_dyn[w->n] = wd;
    w->rel_unc[w->n] = unc;
    w->idle_w[w->n] = idle;
    w->busy_s[w->n] = busy;
    w->n = n;
    return 1;
}

/* the mean SM clock (GPU 0) at the gpu/ polls inside [a, b]; NaN: none */
static double mean_clock(const jl_run *r, double a, double b)
{
    if (!r->gpu_time || !r->sm_clock_mhz.v)
        return NAN;
    double s = 0;
    size_t n = 0;
    for (size_t i = 0; i < r->gpu_n; i++) {
        double v = r->sm_clock_mhz.v[i * r->sm_clock_mhz.g];
        if (r->gpu_time[i] >= a && r->gpu_time[i] <= b && isfinite(v) && v > 0) {
            s += v;
            n++;
        }
    }
    return n ? s / (double)n : NAN;
}

/* A loop is throttled when its clock is more than this below the fastest
 * loop of the file (the clock a loop below the power cap reaches). */
#define THROTTLED_BELOW 0.03

jl_status jl_class_weights_from_trace(const char *path, jl_class_weights **out, jl_error **err)
{
    *out = NULL;
    jl_trace *t = NULL;
    jl_status st = jl_trace_open(path, NULL, &t, err);
    if (st != JL_OK)
        return st;
    jl_class_weights *w = calloc(1, sizeof *w);
    if (!w || !(w->source = jl__strdup(path))) {
        st = JL_ENOMEM;
        goto end;
    }
    jl_sensor dflt;
    jl__sensor_defaults(&dflt);
    for (size_t i = 0; i < jl_trace_run_count(t); i++) {
        jl_run *r = NULL;
        jl_spans *s = NULL;
        jl_sensor z;
        jl__counter c = {0};
        if ((st = jl_trace_read_run(t, i, &r, err)) != JL_OK ||
            (st = jl_trace_read_spans(t, i, &s, err)) != JL_OK ||
            (st = jl_trace_read_sensor(t, i, &z, err)) != JL_OK) {
            jl_run_free(r);
            jl_spans_free(s);
            goto end;
        }
        char b1[64], b2[64];
        if (!s || s->n != 1 || jl_attrs_get(&r->attrs, "calls", b1, sizeof b1) < 0 ||
            jl_attrs_get(&r->attrs, "device_s_per_call", b2, sizeof b2) < 0) {
            st = jl_fail(err, JL_EMISSING, path, r->name, NULL, -1,
                         "a calibration run needs one span (the loop's window), @calls and "
                         "@device_s_per_call");
        }
        double calls = atof(b1), dps = atof(b2);
        if (st == JL_OK && !(calls > 0 && dps > 0))
            st = jl_fail(err, JL_EINVALID, path, r->name, NULL, -1,
                         "@calls (%s) and @device_s_per_call (%s) must be positive", b1, b2);
        if (st == JL_OK) {
            jl_sensor use = dflt;
            if (isfinite(z.energy_delay_s))
                use.energy_delay_s = z.energy_delay_s;
            st = jl__counter_build(r, 0, &use, &c, err);
        }
        if (st == JL_OK) {
            /* the part of the loop the counter covers (a recording may stop
             * a few ms before the loop does): busy time pro rata */
            double a0 = s->start[0], b0 = s->end[0];
            double a = fmax(a0, c.t[0]), b = fmin(b0, c.t[c.n - 1]);
            double cover = b0 > a0 ? (b - a) / (b0 - a0) : 0;
            double e = cover >= 0.9 ? jl__counter_at(&c, b) - jl__counter_at(&c, a) : NAN;
            /* idle: the counter's updates at least 0.2 s before the loop */
            size_t k1 = 0;
            while (k1 < c.n && c.t[k1] <= a - 0.2)
                k1++;
            double idle = NAN, span_idle = 0;
            if (k1 >= 3 && (span_idle = c.t[k1 - 1] - c.t[0]) >= 0.3)
                idle = (c.e[k1 - 1] - c.e[0]) / span_idle;
            else
                idle = r->attrs.gpu_idle_power_w;
            if (!isfinite(e) || !isfinite(idle)) {
                st = jl_fail(err, JL_ENODATA, path, r->name, "power", -1,
                             "the counter covers less than 90 %% of the loop's window [%g, %g] "
                             "s, or there is no idle before it",
                             a0, b0);
            } else {
                double busy = calls * dps * cover, dyn = e - idle * (b - a);
                /* the loop's graph replays are queued back to back: its busy
                 * time cannot exceed its window. A recorded device time per
                 * call that says it does (timed replays faster than the loop
                 * ran, e.g. at the power cap) is replaced by the window's */
                double bow = (b - a) > 0 ? busy / (b - a) : NAN;
                if (bow > 1)
                    busy = b - a;
                /* the counter over a 3.5-s loop: 0.5 % (docs/attribute.md) */
                double noise = 0.005;
                const char *nm = s->names[s->name[0]], *dot = strrchr(nm, '.');
                const char *cls = dot ? dot + 1 : nm;
                if (!push(w, cls, dyn / busy, sqrt(noise * noise + TRANSFER_UNC * TRANSFER_UNC),
                          idle, busy, b - a, bow, mean_clock(r, a, b), busy / (calls * cover)))
                    st = JL_ENOMEM;
            }
        }
        jl__counter_free(&c);
        jl_sensor_clear(&z);
        jl_run_free(r);
        jl_spans_free(s);
        if (st != JL_OK)
            goto end;
    }
    if (!w->n)
        st = jl_fail(err, JL_ENODATA, path, NULL, NULL, -1, "no calibration runs in the file");
    if (st == JL_OK) {
        double fmax_ = 0;
        for (size_t i = 0; i < w->n; i++)
            if (w->clock_mhz[i] > fmax_)
                fmax_ = w->clock_mhz[i];
        for (size_t i = 0; i < w->n; i++)
            w->throttled[i] = fmax_ > 0 && w->clock_mhz[i] < (1 - THROTTLED_BELOW) * fmax_;
    }
end:
    jl_trace_close(t);
    if (st == JL_OK)
        *out = w;
    else
        jl_class_weights_free(w);
    return st;
}
