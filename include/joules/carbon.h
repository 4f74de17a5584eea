/* joules/carbon.h — carbon and facility over time (docs/accounting.md,
 * "Carbon and facility over time"; src/account/carbon.c, emissions.c): a
 * grid-intensity or PUE time series (CSV) and emissions integrated over a
 * run's power samples, per run of a study.
 *
 * Ownership: every series and result has a *_free that accepts NULL;
 * returned json_t objects are new references.
 */
#ifndef JOULES_CARBON_H
#define JOULES_CARBON_H

#ifdef JOULES_EXPERIMENTAL
#include <jansson.h>
#endif
#include <stddef.h>

#include "joules/counted.h"
#include "joules/error.h"
#include "joules/summary.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

/* ---- carbon and facility over time ---- */

/* A time series of one quantity (grid intensity gCO2eq/kWh or PUE):
 * piecewise constant, each value holding from its time to the next one's
 * (the last one for `step` seconds, the series' most common spacing). A
 * constant is a series of one point holding for ever. */
typedef struct jl_tseries jl_tseries;

typedef enum { JL_INTENSITY_AVERAGE, JL_INTENSITY_MARGINAL } jl_intensity_kind;

/* A time: ISO 8601 "YYYY-MM-DD[T ]HH:MM[:SS[.f]][Z|+HH:MM|-HH:MM]" (no
 * zone: UTC) or Unix seconds, into Unix seconds. 0, or -1 when malformed. */
int jl_time_parse(const char *s, double *t);

/* A constant. */
jl_tseries *jl_tseries_constant(double v);
/* A CSV file: a header row, then one row per time. The time column is the
 * first of datetime, Datetime (UTC), Datetime, point_time, timestamp, time
 * (ISO 8601 with Z or an offset, or Unix seconds); the value column: for
 * kind AVERAGE the first of value, Carbon Intensity gCO₂eq/kWh (direct),
 * Carbon Intensity gCO₂eq/kWh (LCA), carbon_intensity_avg,
 * carbonIntensity, average, pue; for MARGINAL the first of marginal,
 * moer (WattTime, lbs/MWh converted to g/kWh when the header says lbs),
 * value. column (may be NULL) names the column instead. Rows must increase
 * in time. Errors name the file, line and column. */
jl_status jl_tseries_load_csv(const char *path, jl_intensity_kind kind, const char *column,
                              jl_tseries **out, jl_error **err);
/* The same from memory (tests, fuzzing); name is used in messages. */
jl_status jl_tseries_load_csv_buffer(const char *buf, size_t len, const char *name,
                                     jl_intensity_kind kind, const char *column, jl_tseries **out,
                                     jl_error **err);
/* A number ("420", "0.4kg/kWh": jl_intensity_parse) or a file path; a
 * series whose mean lies outside the plausible range (below) is refused:
 * a kg/kWh or t/MWh column read as g/kWh. */
jl_status jl_tseries_parse(const char *arg, jl_intensity_kind kind, jl_tseries **out,
                           jl_error **err);
/* A PUE: a number (jl_pue_parse) or a file path whose every value passes
 * the same range (a path ending ":forced" lets values above 3.0 through). */
jl_status jl_tseries_parse_pue(const char *arg, jl_tseries **out, jl_error **err);

/* Grid intensity in its units (issue 37, docs/accounting.md): a number is
 * gCO2eq/kWh and must lie in [JL_INTENSITY_MIN, JL_INTENSITY_MAX] (0.4 is
 * kg/kWh written bare, 400000 g/MWh); a number with a unit is converted and
 * not range-checked: g/kWh, kg/kWh, t/MWh, kg/MWh, g/MWh, lb/MWh (lbs/MWh),
 * lb/kWh, with "CO2", "CO2e" or "CO2eq" after the mass and spaces allowed
 * ("0.4 kgCO2e/kWh"). *g_per_kwh receives it; JL_EUSAGE naming the text and
 * what it would be in each likely unit. */
#define JL_INTENSITY_MIN 5.0
#define JL_INTENSITY_MAX 2000.0
jl_status jl_intensity_parse(const char *text, double *g_per_kwh, jl_error **err);
/* A PUE: a number in [JL_PUE_MIN, JL_PUE_MAX]; above it only when forced
 * ("3.4:forced"), never below 1 (no facility delivers more than it draws).
 * JL_EUSAGE otherwise ("120" is refused: a percentage?). */
#define JL_PUE_MIN 1.0
#define JL_PUE_MAX 3.0
jl_status jl_pue_parse(const char *text, double *pue, jl_error **err);
void jl_tseries_free(jl_tseries *s);
size_t jl_tseries_count(const jl_tseries *s);
int jl_tseries_is_constant(const jl_tseries *s);
/* The span the series covers, Unix s: 0, or -1 for a constant (for ever). */
int jl_tseries_span(const jl_tseries *s, double *t0, double *t1);
/* Value at Unix time t (NaN when t is outside the series). */
double jl_tseries_at(const jl_tseries *s, double t);
/* Integral of value over [t0, t1] in value x seconds; NaN when any part
 * of [t0, t1] is outside the series. */
double jl_tseries_integral(const jl_tseries *s, double t0, double t1);

/* Emissions of one run: energy (J) of the power samples integrated with
 * PUE(t) and intensity(t) (trapezoids of power; within each, the series'
 * pieces exactly). t0 is the run's start in Unix seconds (the series' time
 * axis; the samples' times are seconds from t0). */
typedef struct jl_emissions {
    double energy_j;    /* GPU energy of the samples */
    double facility_j;  /* energy x PUE(t) */
    double grams_co2eq; /* facility energy x intensity(t) */
    double t0, t1;      /* the interval integrated, Unix seconds */
    /* energy-weighted means: facility_j / energy_j and grams per facility
     * kWh; when the run lies within one piece of each series (a constant
     * always), exactly that piece's values */
    double pue;
    double intensity;
} jl_emissions;

/* The time-weighted mean over the series' pieces (gaps left out); a
 * constant's value. */
double jl_tseries_mean(const jl_tseries *s);

/* The start time in [lo, hi - duration] (at the series' piece starts and
 * lo) whose [start, start + duration] has the lowest mean value; that mean
 * (NaN when no such window lies within the series). */
double jl_tseries_cleanest(const jl_tseries *s, double lo, double hi, double duration,
                           double *best_start);

/* The stretches of [t0, t1] (Unix seconds) the series has no value for,
 * in words ("2026-12-01 00:00-02:00 UTC (hours 00, 01)"), into buf; their
 * count (0: [t0, t1] is covered). */
size_t jl_tseries_gaps(const jl_tseries *s, double t0, double t1, char *buf, size_t cap);

jl_status jl_emissions_integrate(const double *time_s, const double *watts, size_t n, double t0,
                                 const jl_tseries *pue, const jl_tseries *intensity,
                                 jl_emissions *out, jl_error **err);

/* Emissions of every run of a study over its steady-state window: the
 * run's GPU energy (steady_energy_j) at the wall (x the energy-weighted
 * PUE of its samples) and its CO2eq (x the energy-weighted intensity),
 * average and, when given, marginal; per token, request, item and 1,000
 * queries. */
/* SCI (ISO/IEC 21031): the functional unit R. */
typedef enum { JL_SCI_NONE = 0, JL_SCI_1000_QUERIES, JL_SCI_REQUEST, JL_SCI_TOKEN } jl_sci_unit;

typedef struct jl_emissions_options {
    const jl_tseries *pue;            /* NULL: 1 */
    const jl_tseries *intensity;      /* average gCO2eq/kWh; NULL: no carbon figures */
    const jl_tseries *marginal;       /* marginal gCO2eq/kWh, or NULL */
    double start_unix;                /* NaN: each run's start_time_unix; else the first run
                                    starts here and the others keep their offsets */
    const jl_account_boundary *bound; /* NULL: the defaults (whole run, widest scope) */
    jl_sci_unit sci;                  /* JL_SCI_NONE: no SCI */
    /* SCI's embodied share M: grams per GPU-hour of the window (NULL: not
     * given, M is left out and said so), and where the number comes from */
    const double *embodied_g_per_gpu_hour;
    const char *embodied_source;
} jl_emissions_options;

/* SCI = (E x I + M) / R, every term (accounting.md, "SCI"). */
typedef struct jl_sci {
    double e_kwh;       /* E: the counted energy x PUE */
    double i_g_per_kwh; /* I: the energy-weighted average intensity */
    double m_g;         /* M: embodied grams (NaN: not given) */
    double r;           /* R: functional units in the window */
    double sci;         /* grams CO2eq per unit */
} jl_sci;

typedef struct jl_run_emissions {
    size_t run;          /* index into the runs */
    char *error;         /* why this run has no figures, or NULL (owned) */
    double t0, t1;       /* the window, Unix seconds */
    double energy_kwh;   /* the counted energy (jl_counted) */
    double facility_kwh; /* x PUE(t) */
    double pue;          /* energy-weighted */
    double intensity[2]; /* [0] average, [1] marginal: energy-weighted gCO2eq/kWh */
    double g_co2eq[2];   /* the window's emissions */
    double g_per_token[2], g_per_request[2], g_per_item[2];
    double wh_per_1000_queries; /* counted energy of 1,000 requests (images) */
    jl_counted counted;         /* what was counted and what was left out */
    int constant_power;         /* a summary-only run placed on a series: constant power assumed */
    jl_sci sci;
} jl_run_emissions;

/* Every run that has figures, summed. */
typedef struct jl_emissions_total {
    size_t runs, runs_error;
    size_t runs_per_unit_only; /* runs without a total energy (per-unit figures only): not summed */
    double energy_kwh, facility_kwh, g_co2eq[2];
    double outside_window_kwh; /* left out: energy outside the counted windows (known part) */
    double wider_kwh;          /* left out: measured at wider scopes than counted */
    size_t window_fallbacks;   /* runs counted over their own window (no whole run) */
    jl_sci sci;
} jl_emissions_total;

typedef struct jl_emissions_result {
    jl_run_emissions *runs;
    size_t n;
    /* the sweep as it ran (first window start to last end) and the
     * cleanest placement of the same span within the average series */
    double span_t0, span_t1, span_mean, cleanest_mean, cleanest_start;
    jl_emissions_total total;
    jl_sci_unit sci;
    int marginal, embodied; /* a marginal series given; --embodied-g-per-gpu-hour given */
    char *embodied_source;  /* owned copy */
} jl_emissions_result;

jl_status jl_emissions_study(const jl_summary_list *runs, const jl_emissions_options *opt,
                             jl_emissions_result **out, jl_error **err);
void jl_emissions_result_free(jl_emissions_result *r);
/* The runs of r against a series s (the grid intensity): JL_ENODATA naming
 * both spans ("your runs ... are 72.0 h after the series") when the series'
 * hours hold none of the runs (the wrong file, or runs in the wrong zone),
 * never a table of runs "outside the series" (issue 37). JL_OK when some
 * run lies within it (each other one's error says why), s is NULL or a
 * constant, or no run has a time. */
jl_status jl_emissions_series_holds(const jl_emissions_result *r, const jl_tseries *s,
                                    const jl_summary_list *runs, jl_error **err);
#ifdef JOULES_EXPERIMENTAL
/* {"schema": "joules.emissions/1", "runs": [run key + figures + "boundary"
 * + "left_out" (+ "sci")], "total": {"energy_kwh", "facility_kwh",
 * "kg_co2eq": {"average", "marginal"}, ...}, "sweep": {...}}. NULL on out
 * of memory. */
json_t *jl_emissions_document(const jl_emissions_result *r, const jl_summary_list *runs);
#endif /* JOULES_EXPERIMENTAL */
/* jl_emissions_document's text, without jansson: the bytes jl_json_dump writes for
 * that tree (no provenance block); *len (may be NULL) its length; caller
 * frees. NULL on out of memory. */
char *jl_emissions_document_text(const jl_emissions_result *r, const jl_summary_list *runs,
                                 size_t *len);
/* The same as CSV: one row per run and a last row "(total)". */
jl_status jl_write_emissions_csv(const char *path, const jl_emissions_result *r,
                                 const jl_summary_list *runs, jl_error **err);

JL_API_END
#ifdef __cplusplus
}
#endif

#endif
