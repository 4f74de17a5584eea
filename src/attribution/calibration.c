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

static int push(jl_class_weights *w, const char *cls, double wd, double unc, double idle,
                double busy)
{
    size_t n = w->n + 1;
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
                /* the counter over a 3.5-s loop: 0.5 % (docs/attribute.md) */
                double noise = 0.005;
                const char *nm = s->names[s->name[0]], *dot = strrchr(nm, '.');
                const char *cls = dot ? dot + 1 : nm;
                if (!push(w, cls, dyn / busy, sqrt(noise * noise + TRANSFER_UNC * TRANSFER_UNC),
                          idle, busy))
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
end:
    jl_trace_close(t);
    if (st == JL_OK)
        *out = w;
    else
        jl_class_weights_free(w);
    return st;
}
