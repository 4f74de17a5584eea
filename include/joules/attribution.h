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

#ifdef JOULES_EXPERIMENTAL
#include <jansson.h>
#endif
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
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

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
    /* the checks of each loop (NULL in weights built by hand; NaN: unknown):
     * its window, busy time over it as recorded (calls x
     * @device_s_per_call over the window: above 1 the recorded device time
     * was too long, and busy is taken as the window), its mean SM clock
     * (gpu/sm_clock_mhz inside the loop), and whether it ran throttled
     * (clock more than 3 % below the fastest loop of the file) */
    double *wall_s;
    double *busy_over_wall;
    double *clock_mhz;
    int *throttled;
    double *busy_per_call_s; /* the loop's device time per call (busy / calls) */
    /* set by jl_attribution_compute in its copy (jl_attribution.weights_used):
     * the mean SM clock at the gpu/ polls inside the class's spans in the
     * window, the class's device time per call in the window, and the ratio
     * applied to the weight (1: not corrected): the loop's device time per
     * call over the window's (JL_SPEED_BUSY), or the window's SM clock over
     * the loop's (JL_SPEED_CLOCK) */
    double *window_clock_mhz;
    double *window_busy_per_call_s;
    double *clock_ratio;
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
    X(class_without_weight, 0.0, "a class has no calibrated weight: the mean weight is used")   \
    X(calibration_busy_exceeds_wall, 1.01,                                                      \
      "a calibration loop's recorded busy time exceeds its window by more than this factor")    \
    X(calibration_clocks, 0.03,                                                                 \
      "a loop's SM clock differs from its class's in the window by more than this fraction")    \
    X(host_launch, 0.02,                                                                        \
      "GPU-idle gaps between spans (host launch) above this share of the "                      \
      "window's energy")                                                                        \
    X(window_coverage, 0.5, "the window holds less than this share of the run's energy")

typedef enum {
#define JL_X_W(id, def, text) JL_ATTRIBUTION_WARN_##id,
    JL_ATTRIBUTION_WARNINGS(JL_X_W)
#undef JL_X_W
        JL_ATTRIBUTION_WARN_COUNT
} jl_attribution_warning_id;

const char *jl_attribution_warning_name(jl_attribution_warning_id id);
/* Look a warning up by name: its id, or -1. */
int jl_attribution_warning_find(const char *name);

/* How calibrated weights split a piece's dynamic energy. */
typedef enum {
    /* the weights as absolute powers (the default): a span gets weight x
     * busy; what the weights do not explain stays unattributed, and the
     * document says how much and why (calibration) */
    JL_CALIBRATION_ABSOLUTE,
    /* the weights as relative powers: each piece's measured dynamic energy
     * goes to its spans by weight x busy time, all of it */
    JL_CALIBRATION_RELATIVE,
    /* absolute, and what the weights do not explain in a piece spread over
     * its spans by their time (and their host gaps') */
    JL_CALIBRATION_TIME
} jl_calibration_mode;

/* A calibration loop's speed against its class's in the window
 * (jl_attribution_options.clock_correction). */
enum {
    JL_SPEED_OFF = 0,
    /* the loop's device time per call over the class's in the window (the
     * spans' busy_s over their calls), where the spans carry busy time (else
     * as JL_SPEED_CLOCK): needs a loop that replays the window's mix of calls */
    JL_SPEED_BUSY = 1,
    /* the class's mean SM clock in the window (gpu/ polls inside its spans)
     * over the loop's, where both are recorded (the default) */
    JL_SPEED_CLOCK = 2
};

/* Where the GPU-idle gaps between spans (shorter than stall_min_s: the
 * GPU waiting for the host to launch the next span's work) go. */
typedef enum {
    JL_HOST_LAUNCH_SPANS, /* to the span after the gap (the default) */
    JL_HOST_LAUNCH_ROW,   /* to a row of their own, "host_launch" */
    JL_HOST_LAUNCH_OFF    /* unattributed */
} jl_host_launch_mode;

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
    jl_calibration_mode calibration_mode; /* default absolute */
    /* how a calibrated weight is moved to the window's speed (the energy of
     * one call held): JL_SPEED_CLOCK (default), JL_SPEED_BUSY, JL_SPEED_OFF */
    int clock_correction;
    jl_host_launch_mode host_launch; /* default JL_HOST_LAUNCH_SPANS */
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
    double host_launch_j;  /* static energy of the GPU-idle gaps charged to the row */
    double equal_j;        /* the row's energy under equal weights (the same pieces) */
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
    int window_custom;      /* the window came from the options (--window) */
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
    /* the host launch gaps: GPU-idle time between spans shorter than a stall */
    double host_launch_j, host_launch_s;
    size_t n_host_gaps;
    jl_host_launch_mode host_launch_mode;
    /* what the window covers of the run (GPUs summed): the run is t = 0 to
     * the counter's last update; before/after: inside the run, outside the
     * window; pre_run: the counter before t = 0 (the harness's idle) */
    struct {
        double run_start_s, run_end_s, run_j;
        double before_s, before_j, after_s, after_j, pre_run_s, pre_run_j;
        double window_share;              /* window_energy_j / run_j */
        double tokens_run, tokens_window; /* engine/ tokens (NaN: none) */
    } coverage;
    /* calibrated: what the weights explain of the measured dynamic energy */
    struct {
        jl_calibration_mode mode;
        double measured_dynamic_j; /* over the pieces that hold busy spans */
        double predicted_j;        /* the weights' prediction (after the clocks) */
        double unexplained_j;      /* measured - predicted */
        double unexplained_to_rows_j;
        double unattributed_dynamic_j; /* of the unexplained, left unattributed */
    } calibration;
    /* the sensor's resolution: whether the counter's intervals resolve the
     * classes (their busy time does not move together: the rule of
     * --fit-weights); a run whose spans are all shorter than an update and
     * whose intervals hold the same mix is not resolved, and its class
     * intervals are the range over the weights' uncertainty */
    struct {
        int below_sensor_everywhere; /* every row's median span < one update */
        int resolved;
        double condition;  /* of the classes' busy time over the intervals */
        double weight_unc; /* the relative weight uncertainty the intervals use */
    } resolution;
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

#ifdef JOULES_EXPERIMENTAL
/* The joules.attribution/1 document (docs/attribute.md). */
json_t *jl_attribution_document(const jl_attribution *a);
/* One JSON object per row (--jsonl), without the document around it. */
json_t *jl_attribution_row_to_json(const jl_attribution *a, const jl_attribution_row *r);
#endif /* JOULES_EXPERIMENTAL */
/* jl_attribution_document's text, without jansson: the bytes jl_json_dump writes for
 * that tree (no provenance block); *len (may be NULL) its length; caller
 * frees. NULL on out of memory. */
char *jl_attribution_document_text(const jl_attribution *a, size_t *len);
/* CSV (fixed columns, units in names) to f; JL_EIO on a write error. */
jl_status jl_attribution_write_csv(const jl_attribution *a, FILE *f);
/* The same with n_extra columns appended: names[n_extra], values[row *
 * n_extra + k] per row (NULL: empty); the unattributed and stalls rows
 * leave them empty. */
jl_status jl_attribution_write_csv_extra(const jl_attribution *a, FILE *f, size_t n_extra,
                                         const char *const *names, const char *const *values);

/* ---- energy per request (--by request, --by request-class) ----------------- */

/* Energy per request of a batched server (docs/attribute.md, "Per request"):
 * the window is cut at the counter's updates; in each interval k the
 * measured energy E_k less static power x length is the dynamic energy, split
 * among the requests by the work each did in it: a x its prompt tokens in
 * prefill + b x its output tokens in decode (a, b: J per prompt and per output
 * token, fitted on the run's intervals); static power is split at every
 * instant equally among the requests resident then (from the start of their
 * prefill to their last token). Where engine/ has one row per iteration, a
 * step's fixed cost c (the weights read once for the batch) is a third
 * term, shared by the requests in the step. Dynamic energy in an interval without work
 * and static time without a resident request are unattributed, so rows +
 * unattributed = the window's energy. */
typedef enum { JL_REQUESTS_BY_REQUEST, JL_REQUESTS_BY_CLASS } jl_requests_by;

typedef struct jl_request_options {
    jl_requests_by by;
    double window[2]; /* NaN: the requests' residency (first prefill to last token) */
    double static_w;  /* NaN: idle before t = 0, else @gpu_idle_power_w */
} jl_request_options;

void jl_request_options_default(jl_request_options *opt);

typedef struct jl_request_row {
    char *key;         /* the request's row in requests/ ("17"), or its class */
    long request;      /* its row (-1: a class row) */
    size_t n_requests; /* 1, or the requests of the class */
    double input_tokens, output_tokens;
    double start_s, finish_s; /* residency (first request's start, last finish) */
    double resident_s;
    double energy_j; /* prefill_j + decode_j + static_j */
    double prefill_j, decode_j, static_j;
    double energy_lo_j, energy_hi_j; /* over the fit's and the static power's uncertainty */
    /* the part of prefill_j + decode_j that is its share of the engine
     * steps' fixed cost, and the steps it took part in inside the window
     * with its share of them (the sum of 1 / the step's requests): steps /
     * step_share is the mean batch it ran in (harmonic). NaN: no engine/
     * iteration rows, so no step term */
    double step_j, steps, step_share;
} jl_request_row;

/* The run's fit of dynamic energy per interval against its work. */
typedef struct jl_request_fit {
    double j_per_prompt_token, j_per_prompt_token_lo, j_per_prompt_token_hi;
    double j_per_output_token, j_per_output_token_lo, j_per_output_token_hi;
    /* an engine step's fixed cost (0: no engine/ iteration rows, or not
     * identified) */
    double j_per_step, j_per_step_lo, j_per_step_hi;
    double r2;          /* of the intervals' dynamic energy */
    size_t n_intervals; /* intervals with work */
    int identified;     /* 0: a coefficient is not identified (see note) */
    char *note;         /* how the fit was taken, or why it fell back */
} jl_request_fit;

/* The fit of one run checked on another run of the sweep. */
typedef struct jl_request_check {
    char *run;
    double measured_j, predicted_j, error;                         /* the window's energy */
    double measured_dynamic_j, predicted_dynamic_j, dynamic_error; /* less static */
    double prompt_tokens, output_tokens, engine_steps;
} jl_request_check;

typedef struct jl_request_attribution {
    char *file, *run;
    jl_requests_by by;
    double window[2];
    int window_custom;
    double window_energy_j; /* the counter over the window, GPUs summed */
    double static_w;        /* summed over the GPUs */
    double static_unc;      /* relative */
    char *static_source;
    char *energy_source; /* "counter" or "watts" */
    size_t n_gpus;
    jl_request_row *rows;
    size_t n_rows;
    double attributed_j, unattributed_j, unattributed_static_j, unattributed_dynamic_j;
    double residual_j;                   /* window - rows - unattributed */
    double prompt_tokens, output_tokens; /* the work inside the window */
    double engine_steps;                 /* engine/ iterations in the window (0: none) */
    /* the requests' work outside the window (before the counter's first
     * update, or outside --window): its energy is not in the rows */
    double prompt_tokens_outside, output_tokens_outside;
    size_t n_requests, n_requests_skipped; /* skipped: never started or never finished */
    jl_request_fit fit;
    /* what is approximated (prefill placement, decode token times) */
    char *prefill_source, *decode_source;
    /* the window's share of the run's energy (t = 0 to the counter's end) */
    double run_j, window_share;
    double update_period_s; /* median gap between counter updates in the window */
    double split_s;         /* the split's time resolution: three updates */
    /* --by request: the row of the highest J per output token (-1: fewer
     * than 3 rows with output tokens) beside the rows' medians, to say why
     * it costs more (its share of the steps' fixed cost, the batch it ran
     * in); NaN where no engine/ steps */
    long costliest;
    double median_j_per_output_token, median_mean_batch;
    jl_request_check *checks;
    size_t n_checks;
} jl_request_attribution;

void jl_request_attribution_free(jl_request_attribution *a);

/* Attribute run's energy to its requests (requests/ needed; engine/ and
 * itl/ request used where present). sensor: NULL = the defaults. */
jl_status jl_request_attribution_compute(const jl_run *run, const jl_sensor *sensor,
                                         const jl_request_options *opt,
                                         jl_request_attribution **out, jl_error **err);

/* Check a's fit on other (another run, attributed the same way): predicted
 * = other's static power x window + a's J per token x other's tokens;
 * appended to a->checks. */
jl_status jl_request_attribution_check(jl_request_attribution *a,
                                       const jl_request_attribution *other);

#ifdef JOULES_EXPERIMENTAL
/* The joules.request-attribution/1 document, one row (--jsonl), the CSV. */
json_t *jl_request_attribution_document(const jl_request_attribution *a);
json_t *jl_request_row_to_json(const jl_request_attribution *a, const jl_request_row *r);
#endif /* JOULES_EXPERIMENTAL */
/* jl_request_attribution_document's text, without jansson: the bytes jl_json_dump writes for
 * that tree (no provenance block); *len (may be NULL) its length; caller
 * frees. NULL on out of memory. */
char *jl_request_attribution_document_text(const jl_request_attribution *a, size_t *len);
jl_status jl_request_attribution_write_csv(const jl_request_attribution *a, FILE *f);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
