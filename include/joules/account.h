/* joules/account.h — accounts an auditor can check (docs/accounting.md).
 *
 *  - Fingerprints: SHA-256 (FIPS 180-4) of a buffer or a file.
 *  - Provenance: what made a document (joules' version and build, the
 *    command line, every input's path, size and SHA-256, the validation
 *    rules and method choices in force, the time), the `provenance` block
 *    of every joules.*\/N document. Deterministic apart from the time,
 *    which SOURCE_DATE_EPOCH fixes.
 *  - Verification: two documents compared figure by figure.
 *  - Budgets: a joules.budgets/1 file of ceilings judged per run and group,
 *    and per span class on attribute's rows (per-component budgets).
 *  - Carbon over time: a grid-intensity or PUE time series (CSV) and
 *    emissions integrated over a run's power samples.
 *
 * Ownership: every *_new/_load has a *_free that accepts NULL; returned
 * json_t objects are new references.
 */
#ifndef JOULES_ACCOUNT_H
#define JOULES_ACCOUNT_H

#include <jansson.h>
#include <stddef.h>

#include "joules/attribute.h"
#include "joules/check.h"
#include "joules/error.h"
#include "joules/slo.h"
#include "joules/study.h"
#include "joules/summary.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN

#define JL_PROVENANCE_SCHEMA "joules.provenance/1"
#define JL_BUDGETS_SCHEMA "joules.budgets/1"

/* ---- fingerprints ---- */

/* Lower-case hex SHA-256 of len bytes (hex: 64 characters and a NUL). */
void jl_sha256_hex(const void *data, size_t len, char hex[65]);
/* The same of a whole file; *size (may be NULL) its length in bytes.
 * JL_EMISSING when the file does not exist, JL_EIO when it cannot be read. */
jl_status jl_sha256_file(const char *path, char hex[65], unsigned long long *size, jl_error **err);

/* ---- provenance ---- */

typedef struct jl_provenance jl_provenance;

jl_provenance *jl_provenance_new(void);
void jl_provenance_free(jl_provenance *p);
/* The command line as typed (argv[0] is recorded as "joules"). */
jl_status jl_provenance_set_command(jl_provenance *p, int argc, char *const *argv);
/* An input: a file (hashed when the block is made), or a directory (every
 * regular file under it whose name does not start with '.', in path order). */
jl_status jl_provenance_add_input(jl_provenance *p, const char *path);
/* The validation rules in force (copied). */
void jl_provenance_set_rules(jl_provenance *p, const jl_ruleset *rules);
/* A method choice: key = value (a copy of v is kept; a repeated key
 * replaces its value). */
jl_status jl_provenance_set_method(jl_provenance *p, const char *key, const json_t *v);
/* The creation time, seconds since 1970 UTC (default: SOURCE_DATE_EPOCH
 * when set to an integer, else now). */
void jl_provenance_set_time(jl_provenance *p, long long t);
/* The block: {"schema", "joules": {"version", "build"}, "command",
 * "inputs": [{"path", "bytes", "sha256"}], "rules", "methods", "created"}.
 * An input that cannot be read is listed with "error" instead of a hash.
 * The inputs are hashed once, on the first call. NULL on out of memory. */
json_t *jl_provenance_to_json(jl_provenance *p);

/* The document writer's hook: when set, every joules.*\/N document written
 * by jl_write_json or the document writers of the library carries
 * "provenance" = fn(ctx) (the writer keeps no reference; fn may return
 * NULL, then no block). One per process; NULL unsets it. The CLI sets it
 * once per command. */
typedef const json_t *(*jl_provenance_fn)(void *ctx);
void jl_output_set_provenance(jl_provenance_fn fn, void *ctx);
/* The block the hook gives now (NULL: none). */
const json_t *jl_output_provenance(void);

/* ---- verification ---- */

typedef enum {
    JL_VERIFY_SAME = 0,
    JL_VERIFY_DIFFERS = 1, /* a figure, an input's hash, a rule or joules differ */
    JL_VERIFY_MISSING = 3  /* an input is missing or the document has no provenance */
} jl_verify_verdict;

typedef struct jl_verify_item {
    char *what;   /* "input", "joules", "rules", "methods", "figure", "missing" */
    char *where;  /* JSON path (runs[3].energy_per_token_j) or the input's path */
    char *before; /* the document's value as JSON text, or NULL */
    char *after;  /* the value now, or NULL */
} jl_verify_item;

typedef struct jl_verify_report {
    jl_verify_item *items;
    size_t n, cap;
    size_t n_figures; /* leaves compared */
    size_t n_inputs;  /* inputs re-hashed */
    jl_verify_verdict verdict;
} jl_verify_report;

void jl_verify_report_clear(jl_verify_report *r);
/* Re-hash the inputs of a provenance block (paths relative to the current
 * directory), adding an "input" item per changed hash and a "missing" item
 * per missing file. */
jl_status jl_verify_inputs(const json_t *provenance, jl_verify_report *r);
/* Compare a document with its re-made twin: the provenance blocks (joules'
 * version and build, rules, methods, inputs; the time is not compared) and
 * every other leaf (numbers, strings, ...) exactly, as written. Adds one
 * item per difference (at most max_items figures are listed; n_figures
 * counts every leaf compared). */
jl_status jl_verify_documents(const json_t *before, const json_t *after, size_t max_items,
                              jl_verify_report *r);

/* ---- what an account counts (docs/accounting.md, "What each command counts") ---- */

/* The boundary an account is asked for: a jl_window and a jl_scope, or -1
 * for the defaults: window run (the whole run; a run that has no whole-run
 * energy -- a summary-only import of steady-state figures -- is counted
 * over its own window and says so), scope auto (the widest the run
 * measured: node, else GPUs + host, else GPUs). An explicit window or scope
 * a run cannot give is an error naming the run and what it has. */
typedef struct jl_account_boundary {
    int window;
    int scope;
} jl_account_boundary;

/* {-1, -1}. */
void jl_account_boundary_default(jl_account_boundary *a);
/* --window and --scope as typed (either may be NULL: the default; "auto"
 * is the default scope). JL_EUSAGE naming the option and the values. */
jl_status jl_account_boundary_parse(jl_account_boundary *a, const char *window, const char *scope,
                                    jl_error **err);

/* What an account counts of one run, and what it leaves out. */
typedef struct jl_counted {
    jl_boundary boundary; /* counted; scope facility: base_scope x PUE, by the account */
    jl_scope base_scope;  /* the measured scope counted (boundary.scope but for facility) */
    int window_fallback;  /* the default window: no whole-run energy, the run's own counted */
    double energy_j;      /* at base_scope over the window (NaN: a source that published
                              per-unit figures only) */
    double per_token_j, per_request_j, per_item_j; /* the same per unit (NaN where none) */
    double duration_s;                             /* the window's length */
    /* left out: the energy of base_scope outside the window (0 for the
     * whole run; NaN when not known), and the energy measured at a wider
     * scope than counted (wider: that scope; JL_SCOPE_COUNT none) */
    double outside_window_j;
    jl_scope wider;
    double wider_j;
    unsigned
        not_measured; /* bits 1 << JL_SCOPE_HOST, 1 << JL_SCOPE_NODE: wider scopes not measured */
} jl_counted;

/* What a (may be NULL: the defaults) counts of run s into *out; JL_ENODATA
 * (side request) naming the run and the boundaries it has when it cannot. */
jl_status jl_account_count(const jl_summary *s, const jl_account_boundary *a, jl_counted *out,
                           jl_error **err);
/* "GPU", "GPU + host", "node", "facility", "provisioned (TDP)" */
const char *jl_scope_words(jl_scope s);
/* "whole run", "steady state", "profiled window", "source's window" */
const char *jl_window_words(jl_window w);

/* ---- budgets ---- */

/* A joules.budgets/1 file (docs/accounting.md, "Budgets"):
 *   {"schema": "joules.budgets/1", "uncertainty": 0.05,
 *    "budgets": [{"name": "...", "where": ["model=Qwen/Qwen3-8B", ...],
 *                 "exclude": [...], "uncertainty": 0.05,
 *                 "ceilings": {"energy_per_token_j": X, "energy_per_request_j": X,
 *                   "energy_per_item_j": X, "avg_power_w": X, "peak_power_w": X,
 *                   "kwh_per_day": {"max": X, "tokens_per_s" | "requests_per_s" |
 *                                   "items_per_s": LOAD, "pue": P},
 *                   "g_co2eq_per_request": {"max": X, "grid_intensity": G, "pue": P}}}]}
 * "where"/"exclude" are clauses of the --where grammar (jl_selector_add);
 * "uncertainty" the relative uncertainty of the energy and power figures
 * (default 0.05; a run's counter-vs-integral disagreement widens it).
 * A budget may hold, beside or instead of "ceilings", per-component
 * ceilings on `attribute`'s rows (--by class):
 *   "spans": [{"class": "attention", "j_per_call": X, "j_per_token": X,
 *              "share": X}]
 * "class" a class name as `attribute --by class` prints it, or a glob (*,
 * ?, [..]) matching several; at least one of the three ceilings; share a
 * fraction (0, 1] of the window's energy. jl_budgets_evaluate ignores a
 * budget without "ceilings"; jl_budgets_evaluate_spans judges "spans". */
typedef struct jl_budgets jl_budgets;

typedef enum {
    JL_BUDGET_PASS,
    JL_BUDGET_FAIL,
    JL_BUDGET_UNDETERMINED, /* the figure's interval crosses the ceiling */
    JL_BUDGET_UNMEASURED    /* the run lacks the figure */
} jl_budget_verdict;

const char *jl_budget_verdict_name(jl_budget_verdict v);

jl_status jl_budgets_load(const char *path, jl_budgets **out, jl_error **err);
jl_status jl_budgets_load_buffer(const char *buf, size_t len, const char *name, jl_budgets **out,
                                 jl_error **err);
void jl_budgets_free(jl_budgets *b);

/* One ceiling judged on one run. */
typedef struct jl_budget_check {
    size_t budget, run;  /* indexes into the budgets and the runs */
    const char *ceiling; /* "energy_per_token_j", ... (static) */
    double value, lo, hi, max;
    jl_budget_verdict verdict;
    jl_boundary boundary; /* what value covers (the boundary counted; peak_power_w: its own) */
} jl_budget_check;

/* A budget on one group of runs (model, task, GPU model, GPU count): the
 * worst verdict of its runs' checks (fail > undetermined > pass). */
typedef struct jl_budget_group {
    size_t budget;
    size_t first_run; /* a run of the group, for its key */
    size_t n_runs, n_pass, n_fail, n_undetermined;
    jl_budget_verdict verdict;
} jl_budget_group;

typedef struct jl_budget_result {
    jl_budget_check *checks;
    size_t n_checks;
    jl_budget_group *groups;
    size_t n_groups;
    /* per (budget, run): the worst verdict of its ceilings */
    size_t runs_judged, runs_pass, runs_fail, runs_undetermined, runs_unmeasured;
    double adherence; /* runs_pass / (pass + fail + undetermined); NaN when none */
    /* runs a budget selects that cannot give the boundary asked for (each
     * "FILE RUN: no ... energy: the run has ..."); they are not judged */
    char **refused;
    size_t n_refused;
} jl_budget_result;

/* Every budget's ceilings on every run it selects, at the boundary bound
 * (NULL: the defaults, the whole run at the widest measured scope;
 * jl_account_count); peak_power_w is judged at its own boundary (the
 * steady state at power/'s scope), which its check names. */
jl_status jl_budgets_evaluate_at(const jl_budgets *b, const jl_summary_list *runs,
                                 const jl_account_boundary *bound, jl_budget_result **out,
                                 jl_error **err);
/* jl_budgets_evaluate_at with the defaults. */
jl_status jl_budgets_evaluate(const jl_budgets *b, const jl_summary_list *runs,
                              jl_budget_result **out, jl_error **err);
void jl_budget_result_free(jl_budget_result *r);
/* {"schema": "joules.budget/1", "budgets": [{"name", "groups": [...], "runs":
 * [run key + "verdict" + "checks": {ceiling: {"value","lo","hi","max",
 * "verdict"}}]}], "totals": {...,"adherence"}}. NULL on out of memory. */
json_t *jl_budget_result_to_json(const jl_budget_result *r, const jl_budgets *b,
                                 const jl_summary_list *runs);
size_t jl_budgets_count(const jl_budgets *b);
const char *jl_budgets_name(const jl_budgets *b, size_t i);
/* How many ceilings budget i holds per run ("ceilings") and per span
 * class ("spans"). */
size_t jl_budgets_run_ceilings(const jl_budgets *b, size_t i);
size_t jl_budgets_span_ceilings(const jl_budgets *b, size_t i);

/* ---- per-component budgets: attribute's rows ---- */

typedef enum {
    JL_SPAN_J_PER_CALL,
    JL_SPAN_J_PER_TOKEN,
    JL_SPAN_SHARE,
    JL_SPAN_FIG_COUNT
} jl_span_figure;

/* "j_per_call", "j_per_token", "share" */
const char *jl_span_figure_name(jl_span_figure f);

/* One span ceiling judged on one row: the row's figure and its interval
 * (the row's energy interval divided by its calls, its tokens, or the
 * window's energy). */
typedef struct jl_span_check {
    size_t budget;   /* index of the budget */
    size_t ceiling;  /* index into the budget's "spans" */
    const char *cls; /* the ceiling's class or glob (the budgets' string) */
    jl_span_figure figure;
    size_t row; /* index into the attribution's rows */
    double value, lo, hi, max;
    jl_budget_verdict verdict; /* unmeasured: the row lacks the figure */
} jl_span_check;

/* A span ceiling of a budget that selects the run but matches no row. */
typedef struct jl_span_unmatched {
    size_t budget, ceiling;
    const char *cls;
} jl_span_unmatched;

typedef struct jl_span_budget_result {
    jl_span_check *checks; /* by row, then budget, ceiling and figure */
    size_t n_checks;
    int *row_verdict; /* [n_rows]: a jl_budget_verdict, or -1 (no ceiling) */
    size_t n_rows;
    size_t *budgets; /* the budgets with "spans" that select the run */
    size_t n_budgets;
    jl_span_unmatched *unmatched;
    size_t n_unmatched;
    /* rows with a ceiling, by their worst verdict */
    size_t rows_judged, rows_pass, rows_fail, rows_undetermined, rows_unmeasured;
    double adherence; /* rows_pass / (pass + fail), the rows determined; NaN when none */
} jl_span_budget_result;

/* Judge attribution a (--by class) of run (its summary, for the budgets'
 * selectors; NULL: every budget applies) against every budget's "spans"
 * that selects the run. A
 * ceiling applies to each row whose key it matches (fnmatch); a row's
 * verdict is the worst of its checks (fail > undetermined > unmeasured >
 * pass). JL_EUSAGE when a is not by class. */
jl_status jl_budgets_evaluate_spans(const jl_budgets *b, const jl_summary *run,
                                    const jl_attribution *a, jl_span_budget_result **out,
                                    jl_error **err);
void jl_span_budget_result_free(jl_span_budget_result *r);
/* Row i's budget verdict and checks as JSON: {"verdict": "pass"|...|null,
 * "checks": [{"budget", "class", "figure", "value", "lo", "hi", "max",
 * "verdict"}]}. NULL on out of memory. */
json_t *jl_span_budget_row_json(const jl_span_budget_result *r, const jl_budgets *b, size_t row);
/* The worst row verdict ("fail", "undetermined", "unmeasured", "pass"), or
 * NULL when no row was judged. */
const char *jl_span_budget_verdict(const jl_span_budget_result *r);
/* The summary: {"verdict", "budgets": [names], "rows_judged", "pass", "fail",
 * "undetermined", "unmeasured", "determined", "adherence", "unmatched":
 * [{"budget", "class"}]}. */
json_t *jl_span_budget_summary_json(const jl_span_budget_result *r, const jl_budgets *b);
/* Add the result to a joules.attribution/1 document made from the same
 * attribution (jl_attribution_to_json): "budget" in every row, "budgets"
 * at the top. JL_ENOMEM on out of memory. */
jl_status jl_span_budget_annotate(const jl_span_budget_result *r, const jl_budgets *b, json_t *doc);
/* The CSV columns (jl_attribution_write_csv_extra): budget_verdict and
 * budget_checks ("FIGURE<=MAX VERDICT" joined by "; "), one pair per row, heap
 * strings in *values ([n_rows * 2], free each and the array). */
jl_status jl_span_budget_csv_columns(const jl_span_budget_result *r, const jl_budgets *b,
                                     char ***values);

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
/* A number ("420") or a file path. */
jl_status jl_tseries_parse(const char *arg, jl_intensity_kind kind, jl_tseries **out,
                           jl_error **err);
void jl_tseries_free(jl_tseries *s);
size_t jl_tseries_count(const jl_tseries *s);
int jl_tseries_is_constant(const jl_tseries *s);
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
/* {"schema": "joules.emissions/1", "runs": [run key + figures + "boundary"
 * + "left_out" (+ "sci")], "total": {"energy_kwh", "facility_kwh",
 * "kg_co2eq": {"average", "marginal"}, ...}, "sweep": {...}}. NULL on out
 * of memory. */
json_t *jl_emissions_to_json(const jl_emissions_result *r, const jl_summary_list *runs);
/* The same as CSV: one row per run and a last row "(total)". */
jl_status jl_write_emissions_csv(const char *path, const jl_emissions_result *r,
                                 const jl_summary_list *runs, jl_error **err);

/* ---- energy labels and cards ---- */

/* One label (docs/accounting.md, "Labels", after the AI Energy Score's
 * rules): per (model, task, GPU model, GPU count) the run of least energy
 * per request (per item for diffusion) at the boundary counted (by default
 * the whole run at the widest measured scope) among those that meet the
 * SLOs that apply to its workload; stars from where its energy per 1,000
 * queries falls in the range of the labels rated with it -- the same task,
 * GPU model, size class (text generation) and boundary -- in five equal
 * bands: 5 in the lowest fifth ... 1 in the highest. */
typedef struct jl_label {
    const char *model, *task, *gpu_model, *workload; /* borrowed from the run */
    long num_gpus;
    size_t run;                /* index into the runs */
    double wh_per_1000;        /* Wh per 1,000 queries (images) at the boundary counted */
    double gpu_wh_per_1000;    /* the same at GPU scope (NaN: the GPUs were not measured) */
    int stars;                 /* 1..5 */
    double task_min, task_max; /* the range over the labels rated together */
    size_t task_models;        /* labels rated together */
    /* the AI Energy Score's text-generation size class by total_params: "A"
     * (<= 20 B), "B" (<= 66 B), "C" (larger); "?" when the parameters are
     * not known; "" for other tasks (no class) */
    char size_class[2];
    int cap_unknown; /* the run's @max_batch_size is a placeholder (@unknown_attributes) */
    jl_counted counted;
} jl_label;

typedef struct jl_label_set {
    jl_label *items;
    size_t n;
    /* runs left out: no --slo applies to their workload (a diffusion run
     * under an ITL SLO), and runs that cannot give the boundary asked for
     * (each such run's message in refused) */
    size_t skipped_no_slo;
    char **refused;
    size_t n_refused;
} jl_label_set;

/* The labels at the defaults (jl_labels_at with bound NULL). */
jl_status jl_labels(const jl_summary_list *runs, const jl_slo *const *slos, size_t n_slos,
                    jl_label_set *out, jl_error **err);
/* The labels at boundary bound (NULL: the defaults; facility is refused:
 * JL_EUSAGE). An SLO applies to a run when each of its conditions names a
 * figure of the run's workload; a run no given SLO applies to is left out
 * (skipped_no_slo). */
jl_status jl_labels_at(const jl_summary_list *runs, const jl_slo *const *slos, size_t n_slos,
                       const jl_account_boundary *bound, jl_label_set *out, jl_error **err);
void jl_label_set_clear(jl_label_set *ls);
/* The text-generation size class of run s ("A", "B", "C", "?"; "" when
 * the run is not text generation). */
const char *jl_label_size_class(const jl_summary *s);
/* The stars of x in [lo, hi] (5 when hi == lo). */
int jl_label_stars(double x, double lo, double hi);
/* The label as a self-contained SVG (400 x 560 px); provenance_sha256 and
 * date (YYYY-MM-DD) are printed on it (either may be NULL). */
char *jl_label_svg(const jl_label *l, const jl_summary *s, const char *slo_text,
                   const char *provenance_sha256, const char *date);
/* {"schema": "joules.label/1", "labels": [...]} */
json_t *jl_labels_to_json(const jl_label_set *ls, const jl_summary_list *runs, const char *slo_text,
                          const char *provenance_sha256);
/* SHA-256 of a provenance block without its time ("created") and without
 * the command's output paths (-o/--output/--csv values): the same for every
 * document made from the same inputs, rules and command, wherever it was
 * written. */
void jl_provenance_hash(const json_t *provenance, char hex[65]);

/* A Markdown energy card of one model (docs/accounting.md, "Cards"): YAML
 * front matter a model card on the Hugging Face Hub can take -- every
 * labelled configuration's inference figures under their own key
 * (joules_energy: boundary, Wh per 1,000 queries, J/token both ways, the
 * marginal prefill share, stars and their group, gCO2eq per 1,000 queries
 * when em has carbon); co2_eq_emissions (the Hub's key for training
 * emissions) only when the card's author declares training or fine-tuning
 * (training_type and training_g_co2eq) -- then the body: per label energy
 * per token and request, the marginal prefill share with its interval (the
 * share of iterations holding prompt tokens beside it, named so), static
 * share, power, the whole system where measured, calibration and
 * conditions, carbon and PUE, provenance. em (may be NULL) the emissions of
 * every run (jl_emissions_study, at the labels' boundary) with carbon_text
 * saying what intensity and PUE were used. NULL on out of memory. */
typedef struct jl_card_options {
    const char *slo_text;          /* or NULL */
    const char *location;          /* geographical_location, or NULL */
    const char *carbon_text;       /* "400 gCO2eq/kWh (constant), PUE 1.2", or NULL */
    const char *provenance_sha256; /* or NULL */
    const json_t *provenance;      /* its command and inputs are listed; or NULL */
    /* training or fine-tuning the author declares (co2_eq_emissions): NULL
     * / NaN when not declared */
    const char *training_type;     /* "pre-training" or "fine-tuning" */
    double training_g_co2eq;       /* grams CO2eq */
    const char *training_source;   /* how training_g_co2eq was obtained */
    const char *training_hardware; /* hardware_used, or NULL */
} jl_card_options;

char *jl_card_markdown(const jl_label_set *ls, const jl_summary_list *runs,
                       const jl_emissions_result *em, const jl_card_options *o);

JL_API_END
#ifdef __cplusplus
}
#endif

#endif
