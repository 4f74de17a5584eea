/* joules/attribution.h — energy per span: per layer, operator class, step and
 * second, from profiler spans (docs/attribute.md).
 *
 * On the spans and sensor of joules/spans.h (the trace layer), two parts:
 *  - the sensor model: jl_sensor_fit() measures the energy counter's update
 *    period and delay and the power fields' averaging windows and delays on
 *    a run whose spans are known square-wave bursts;
 *  - the attribution: jl_attribution_compute() splits the energy the counter measured
 *    in a window among the spans' rows (static power by time, dynamic
 *    energy by device-busy time x class weights) with an unattributed row,
 *    so that rows + unattributed + stalls = the window's energy exactly.
 *
 * Ownership: jl_attribution (jl_attribution_free) and jl_class_weights
 * (jl_class_weights_free) are the caller's; every free accepts NULL.
 */
#ifndef JOULES_ATTRIBUTION_H
#define JOULES_ATTRIBUTION_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "joules/error.h"
#include "joules/spans.h"
#include "joules/trace.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN

/* ---- the sensor model ----------------------------------------------------- */

typedef struct jl_sensor_fit_result {
    double poll_period_s;                 /* median gap between samples */
    double update_period_s;               /* median gap between counter updates */
    double energy_delay_s;                /* counter: lag that best explains its increments */
    double watts_window_s, watts_delay_s; /* the watts field */
    double avg_window_s, avg_delay_s;     /* the watts_avg field (NaN: none) */
    double idle_w, busy_w;                /* the fitted power with no burst and in a burst */
    double counter_rms_w;                 /* rms of the counter's fit, as mean power per update */
    double watts_rms_w;                   /* rms of the watts field's fit */
    size_t n_updates;                     /* counter updates used */
    size_t n_bursts;
} jl_sensor_fit_result;

/* Fit the sensor model on run (power/ with energy_j and watts) whose spans
 * are bursts of constant load (a square wave, as the shared calibration run
 * h100-sensor-square-wave.h5): each field's reading at its sample time t is
 * modelled as idle + (busy - idle) x the fraction of (t - delay - window,
 * t - delay] inside a burst, and window and delay found by least squares on
 * a 1-ms grid. docs/attribute.md, "The sensor model". */
jl_status jl_sensor_fit(const jl_run *run, const jl_spans *bursts, jl_sensor_fit_result *out,
                        jl_error **err);

/* ---- class weights (calibration) ---------------------------------------- */

/* Dynamic power per device-busy second of each class (W), from isolated
 * loops: one run per class. */
typedef struct jl_class_weights {
    size_t n;
    char **cls;
    double *w_dyn;   /* W above static while busy with the class */
    double *rel_unc; /* relative uncertainty of w_dyn */
    double *idle_w;  /* each loop's static power */
    double *busy_s;  /* each loop's device-busy time */
    char *source;    /* "FILE" */
} jl_class_weights;

void jl_class_weights_free(jl_class_weights *w);

/* Weights from a trace of isolated-loop runs: every run with spans/ (its
 * one span is the loop's window), @calls and @device_s_per_call; the class
 * is the run's name after its last '_' (iso_decode_o_proj -> "o_proj" is
 * read as the text after "iso_decode_" when the name starts with it). The
 * loop's dynamic energy is the counter's energy over the window minus the
 * idle power measured by the counter before the loop x the window. */
jl_status jl_class_weights_from_trace(const char *path, jl_class_weights **out, jl_error **err);

/* ---- the attribution ------------------------------------------------------ */

typedef enum {
    JL_ATTRIBUTION_BY_NAME,
    JL_ATTRIBUTION_BY_CLASS,
    JL_ATTRIBUTION_BY_LAYER,
    JL_ATTRIBUTION_BY_STEP,
    JL_ATTRIBUTION_BY_KIND,
    JL_ATTRIBUTION_BY_TIME
} jl_attribution_by;

/* A warning about the sensor's limits (docs/attribute.md, "Warnings"). */
#define JL_ATTRIBUTION_WARNINGS(X)                                                              \
    X(window_short, 5.0, "the window holds fewer than this many counter updates")               \
    X(spans_below_sensor, 1.0, "a row's median span is shorter than this many sensor windows")  \
    X(profiler_overhead, 0.02, "profiled step time exceeds unprofiled by more than this")       \
    X(profiler_stall, 0.0, "stalls (gaps without spans) longer than stall_min_s in the window") \
    X(weights_not_identified, 0.0, "per-class dynamic power is not identified: equal weights")  \
    X(power_average_1s, 0.0, "energy from a 1-s average power field: no split below 1 s")       \
    X(clock_alignment, 0.25, "span clock uncertainty above this fraction of an update period")  \
    X(no_counter, 0.0, "no energy counter: energy integrated from power readings")              \
    X(calibration_overpredicts, 0.0, "calibrated weights predict more than was measured")       \
    X(class_without_weight, 0.0, "a class has no calibrated weight: the mean weight is used")

typedef enum {
#define JL_X_W(id, def, text) JL_ATTRIBUTION_WARN_##id,
    JL_ATTRIBUTION_WARNINGS(JL_X_W)
#undef JL_X_W
        JL_ATTRIBUTION_WARN_COUNT
} jl_attribution_warning_id;

const char *jl_attribution_warning_name(jl_attribution_warning_id id);
/* Look a warning up by name: its id, or -1. */
int jl_attribution_warning_find(const char *name);

typedef struct jl_attribution_options {
    jl_attribution_by by;
    double time_bin_s;               /* JL_ATTRIBUTION_BY_TIME: bin width (default 1) */
    double window[2];                /* NaN: the spans' @window, else their extent */
    double static_w;                 /* NaN: idle before t = 0, else @gpu_idle_power_w */
    double stall_min_s;              /* a gap without spans this long is a stall (0.01) */
    double uncal_ratio;              /* uncalibrated: class powers within this factor (4) */
    const jl_class_weights *weights; /* NULL: equal weights (or fit_weights) */
    /* without weights: fit each class's dynamic power on the trace itself
     * (the counter's intervals' dynamic energy against the classes' busy
     * time in them), used only where identified (docs/attribute.md, "A fit
     * on the trace"): else equal weights and the rule's figures in the
     * weights_not_identified warning */
    int fit_weights;
    /* "PATTERN=CLASS" rules tried first (glob: * and ?; N in the class
     * replaced by nothing), then the default grammar: layerN.op -> op,
     * layer N; NAME_step -> NAME_step (kind step); others -> the name. */
    const char *const *class_rules;
    size_t n_class_rules;
    /* per warning: its threshold (defaults in JL_ATTRIBUTION_WARNINGS) and off */
    double warn_threshold[JL_ATTRIBUTION_WARN_COUNT];
    int warn_off[JL_ATTRIBUTION_WARN_COUNT];
} jl_attribution_options;

void jl_attribution_options_default(jl_attribution_options *opt);

typedef struct jl_attribution_row {
    char *key;   /* name, class, layer number, step number, kind, or bin start */
    double t0_s; /* JL_ATTRIBUTION_BY_TIME: the bin's start (run time); else NaN */
    double time_s, busy_s;
    size_t calls;
    double energy_j, static_j, dynamic_j, share;
    double energy_lo_j, energy_hi_j;
    double j_per_call, j_per_token; /* NaN when not defined */
    double tokens;                  /* tokens the row's J/token divides by */
    double peak_w;                  /* NaN: not resolvable (peak_reason) */
    char *peak_reason;
    double median_span_s;
    double unattributed_j; /* JL_ATTRIBUTION_BY_TIME: the bin's unattributed energy */
} jl_attribution_row;

typedef struct jl_attribution_warning {
    jl_attribution_warning_id id;
    char *message;
} jl_attribution_warning;

typedef struct jl_attribution {
    char *file, *run;
    jl_attribution_by by;
    double time_bin_s;
    double window[2];
    double window_energy_j; /* measured by the counter over the window */
    double static_w;
    char *static_source;
    char *energy_source; /* "counter" or "watts" */
    double tokens;       /* tokens generated in the window (NaN: unknown) */
    jl_attribution_row *rows;
    size_t n_rows;
    double attributed_j;
    double unattributed_j, unattributed_static_j, unattributed_dynamic_j;
    double stall_j, stall_s;
    size_t n_stalls;
    double residual_j;              /* window - rows - unattributed - stalls */
    char *weights;                  /* "equal" or the calibration's source */
    jl_class_weights *weights_used; /* classes and W used (copy) */
    jl_sensor sensor;               /* the sensor model used */
    char *sensor_source;
    size_t n_spans, n_spans_in_window;
    jl_attribution_warning *warnings;
    size_t n_warnings;
    /* every row's energy split by span class: row_class_j[row * n_classes
     * + class] (J; the rows' energy_j summed over classes), for timelines
     * of class energy (--by time) and class x layer figures */
    char **class_names;
    size_t n_classes;
    double *row_class_j;
    /* the run's energy from the counter's first update to its last (the
     * whole run, GPU scope): what lies outside the profiled window is
     * run_energy_j - window_energy_j (docs/attribute.md) */
    double run_energy_j;
} jl_attribution;

void jl_attribution_free(jl_attribution *a);

/* Attribute run's energy to spans. sensor: the model to use (NULL: the
 * defaults of an H100 under driver 580, stated in the output). */
jl_status jl_attribution_compute(const jl_run *run, const jl_spans *spans, const jl_sensor *sensor,
                                 const jl_attribution_options *opt, jl_attribution **out,
                                 jl_error **err);

/* The class, layer (-1: none) and kind ("layer", "step", "op") of a span
 * name under the options' rules. cls gets at most cap bytes. */
void jl_attribution_classify(const jl_attribution_options *opt, const char *name, char *cls,
                             size_t cap, int *layer, const char **kind);

/* The joules.attribution/1 document (docs/attribute.md). */
json_t *jl_attribution_document(const jl_attribution *a);
/* One JSON object per row (--jsonl), without the document around it. */
json_t *jl_attribution_row_to_json(const jl_attribution *a, const jl_attribution_row *r);
/* CSV (fixed columns, units in names) to f; JL_EIO on a write error. */
jl_status jl_attribution_write_csv(const jl_attribution *a, FILE *f);
/* The same with n_extra columns appended: names[n_extra], values[row *
 * n_extra + k] per row (NULL: empty); the unattributed and stalls rows
 * leave them empty. */
jl_status jl_attribution_write_csv_extra(const jl_attribution *a, FILE *f, size_t n_extra,
                                         const char *const *names, const char *const *values);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
