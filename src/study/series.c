/* A run's power over time, read back from its trace file and downsampled
 * by bucket means (jl_study_power_series, study.h): what the report's
 * power figure and data/timeseries/ draw. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/study.h"

/* Sum over GPUs of row i of a series (NaN when any GPU's value is). */
static double row_sum(const jl_series *s, size_t i)
{
    double t = 0;
    for (size_t g = 0; g < s->g; g++) {
        double v = s->v[i * s->g + g];
        if (!isfinite(v))
            return NAN;
        t += v;
    }
    return t;
}

jl_status jl_study_read_run(const jl_summary *s, jl_run **out, jl_error **err)
{
    *out = NULL;
    jl_trace *t = NULL;
    jl_status st = jl_trace_open(s->file, NULL, &t, err);
    if (st)
        return st;
    size_t n = jl_trace_run_count(t), idx = n;
    for (size_t i = 0; i < n; i++)
        if (s->run && !strcmp(jl_trace_run_name(t, i), s->run))
            idx = i;
    if (idx == n)
        st = jl_fail(err, JL_EMISSING, s->file, s->run, NULL, -1, "run not found in the file");
    else
        st = jl_trace_read_run(t, idx, out, err);
    jl_trace_close(t);
    return st;
}

void jl_power_series_free(jl_power_series *p)
{
    if (!p)
        return;
    free(p->time_s);
    free(p->power_w);
    free(p->power_avg_w);
    free(p->running);
    free(p);
}

/* Buckets of run's samples into ps (arrays of nb allocated). */
static void bucket_means(const jl_run *run, size_t nb, jl_power_series *ps)
{
    /* power per sample: instantaneous watts, else the 1 s average, else the
     * derivative of the energy counter */
    size_t n = run->power_n;
    const jl_series *pw = run->watts.v ? &run->watts : (run->watts_avg.v ? &run->watts_avg : NULL);
    size_t ei = 0, k = 0;
    for (size_t b = 0; b < nb; b++) {
        /* samples [lo, hi) of bucket b */
        size_t lo = n * b / nb, hi = n * (b + 1) / nb;
        double st = 0, sp = 0, sa = 0;
        size_t cp = 0, ca = 0;
        for (k = lo; k < hi; k++) {
            st += run->power_time[k];
            double p = NAN;
            if (pw)
                p = row_sum(pw, k);
            else if (run->energy_j.v && k > 0) {
                double dt = run->power_time[k] - run->power_time[k - 1];
                p = dt > 0 ? (row_sum(&run->energy_j, k) - row_sum(&run->energy_j, k - 1)) / dt
                           : NAN;
            }
            if (isfinite(p)) {
                sp += p;
                cp++;
            }
            if (run->watts_avg.v && pw != &run->watts_avg) {
                double a = row_sum(&run->watts_avg, k);
                if (isfinite(a)) {
                    sa += a;
                    ca++;
                }
            }
        }
        if (hi == lo)
            continue;
        double t = st / (double)(hi - lo);
        /* occupancy at t */
        double occ = NAN;
        if (run->engine_n && run->running) {
            while (ei + 1 < run->engine_n && run->engine_time[ei + 1] <= t)
                ei++;
            occ = run->engine_time[ei] <= t ? run->running[ei] : 0;
        } else if (run->batch_n && run->batch_size) {
            occ = 0;
            for (size_t q = 0; q < run->batch_n; q++)
                if (run->batch_start[q] <= t && t < run->batch_end[q])
                    occ += run->batch_size[q];
        }
        ps->time_s[ps->n] = t;
        ps->power_w[ps->n] = cp ? sp / (double)cp : NAN;
        ps->power_avg_w[ps->n] = ca ? sa / (double)ca : NAN;
        ps->running[ps->n] = occ;
        ps->n++;
    }
    ps->has_running = (run->engine_n && run->running) || (run->batch_n && run->batch_size);
    ps->has_power_avg = run->watts_avg.v && pw != &run->watts_avg;
}

jl_status jl_study_power_series(const jl_summary *s, size_t max_points, jl_power_series **out,
                                jl_error **err)
{
    *out = NULL;
    jl_run *run = NULL;
    jl_status st = jl_study_read_run(s, &run, err);
    if (st)
        return st;
    jl_power_series *ps = calloc(1, sizeof *ps);
    if (!ps) {
        jl_run_free(run);
        return jl_fail(err, JL_ENOMEM, s->file, s->run, NULL, -1, "out of memory");
    }
    if (run->power_n && run->power_time) {
        size_t n = run->power_n, nb = n < max_points ? n : max_points;
        ps->n_samples = n;
        ps->first_s = run->power_time[0];
        ps->last_s = run->power_time[n - 1];
        ps->time_s = jl__malloc_array(nb ? nb : 1, sizeof *ps->time_s);
        ps->power_w = jl__malloc_array(nb ? nb : 1, sizeof *ps->power_w);
        ps->power_avg_w = jl__malloc_array(nb ? nb : 1, sizeof *ps->power_avg_w);
        ps->running = jl__malloc_array(nb ? nb : 1, sizeof *ps->running);
        if (!ps->time_s || !ps->power_w || !ps->power_avg_w || !ps->running) {
            jl_power_series_free(ps);
            jl_run_free(run);
            return jl_fail(err, JL_ENOMEM, s->file, s->run, NULL, -1, "out of memory");
        }
        bucket_means(run, nb, ps);
    }
    jl_run_free(run);
    *out = ps;
    return JL_OK;
}
