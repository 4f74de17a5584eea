/* Internal helpers of the attribution (src/attribution): the energy
 * counter at its real update times, shared by the sensor fit, the
 * calibration and the attribution. */
#ifndef JOULES_ATTRIBUTE_INTERNAL_H
#define JOULES_ATTRIBUTE_INTERNAL_H

#include <stddef.h>

#include "joules/attribution.h"
#include "joules/trace.h"

/* The cumulative energy of one GPU as a piecewise-linear function of time,
 * known at the counter's updates: t[k] is the time through which the
 * device had integrated e[k] (the update's time, the midpoint between the
 * poll that saw it and the one before, minus the counter's delay). Without
 * a counter (from_watts), the power readings integrated by the trapezoid
 * rule at their windows' midpoints. */
typedef struct jl__counter {
    size_t n;
    double *t, *e;
    int from_watts;
    size_t n_resets; /* times the counter went back (restarted): bridged */
} jl__counter;

/* 1 when the run has an energy counter for GPU g. */
int jl__counter_available(const jl_run *run);
/* Build the counter of GPU g; JL_ENODATA when fewer than two updates. */
jl_status jl__counter_build(const jl_run *run, size_t g, const jl_sensor *sensor, jl__counter *c,
                            jl_error **err);
void jl__counter_free(jl__counter *c);
/* E at time x, linear between updates; NaN outside [t[0], t[n-1]]. */
double jl__counter_at(const jl__counter *c, double x);

/* The static power of GPU g: static_w where finite (stated, +-10 %), else
 * the counter's mean power over at least 1 s of idle before t = 0 (+-5 %),
 * else the run's @gpu_idle_power_w (+-5 %); *w NaN when none. *src: how
 * (heap). 0 on out of memory. */
int jl__static_power(const jl_run *run, const jl__counter *c, double static_w, double *w,
                     double *unc, char **src);

/* The sensor model used when the trace says nothing: measured on the shared
 * H100 square-wave run (docs/attribute.md). */
void jl__sensor_defaults(jl_sensor *s);

/* jl_sensor_fit on the shared H100 square wave (driver 580): update period
 * 100.0 ms, counter delay 2 ms, instant field 30 ms window 12 ms late,
 * 1-s average 1.02 s window (docs/attribute.md) */
#define JL__DEFAULT_ENERGY_DELAY_S 0.002
#define JL__DEFAULT_WATTS_WINDOW_S 0.030
#define JL__DEFAULT_WATTS_DELAY_S 0.012

#endif
