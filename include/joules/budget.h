/* joules/budget.h — energy budgets (docs/accounting.md, "Budgets";
 * src/account/budgets.c): a joules.budgets/1 file of ceilings judged per
 * run and group, and per span class on the attribution's rows
 * (per-component budgets).
 *
 * Ownership: every *_load / *_evaluate result has a *_free that accepts
 * NULL; returned json_t objects are new references.
 */
#ifndef JOULES_BUDGET_H
#define JOULES_BUDGET_H

#ifdef JOULES_EXPERIMENTAL
#include <jansson.h>
#endif
#include <stddef.h>

#include "joules/attribution.h"
#include "joules/counted.h"
#include "joules/error.h"
#include "joules/summary.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

#define JL_BUDGETS_SCHEMA "joules.budgets/1"

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
 * ceilings on the attribution's rows (`joules attribute --by class`):
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
    jl_counted counted;   /* what was counted of the run and what was left out */
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
#ifdef JOULES_EXPERIMENTAL
/* {"schema": "joules.budget/1", "budgets": [{"name", "groups": [...], "runs":
 * [run key + "verdict" + "checks": {ceiling: {"value","lo","hi","max",
 * "verdict"}}]}], "totals": {...,"adherence"}}. NULL on out of memory. */
json_t *jl_budget_document(const jl_budget_result *r, const jl_budgets *b,
                           const jl_summary_list *runs);
#endif /* JOULES_EXPERIMENTAL */
/* jl_budget_document's text, without jansson: the bytes jl_json_dump writes for
 * that tree (no provenance block); *len (may be NULL) its length; caller
 * frees. NULL on out of memory. */
char *jl_budget_document_text(const jl_budget_result *r, const jl_budgets *b,
                              const jl_summary_list *runs, size_t *len);
size_t jl_budgets_count(const jl_budgets *b);
const char *jl_budgets_name(const jl_budgets *b, size_t i);
/* How many ceilings budget i holds per run ("ceilings") and per span
 * class ("spans"). */
size_t jl_budgets_run_ceilings(const jl_budgets *b, size_t i);
size_t jl_budgets_span_ceilings(const jl_budgets *b, size_t i);

/* ---- per-component budgets: the attribution's rows ---- */

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
#ifdef JOULES_EXPERIMENTAL
/* Row i's budget verdict and checks as JSON: {"verdict": "pass"|...|null,
 * "checks": [{"budget", "class", "figure", "value", "lo", "hi", "max",
 * "verdict"}]}. NULL on out of memory. */
json_t *jl_span_budget_row_json(const jl_span_budget_result *r, const jl_budgets *b, size_t row);
#endif /* JOULES_EXPERIMENTAL */
/* The worst row verdict ("fail", "undetermined", "unmeasured", "pass"), or
 * NULL when no row was judged. */
const char *jl_span_budget_verdict(const jl_span_budget_result *r);
#ifdef JOULES_EXPERIMENTAL
/* The summary: {"verdict", "budgets": [names], "rows_judged", "pass", "fail",
 * "undetermined", "unmeasured", "determined", "adherence", "unmatched":
 * [{"budget", "class"}]}. */
json_t *jl_span_budget_summary_json(const jl_span_budget_result *r, const jl_budgets *b);
/* Add the result to a joules.attribution/1 document made from the same
 * attribution (jl_attribution_document): "budget" in every row, "budgets"
 * at the top. JL_ENOMEM on out of memory. */
jl_status jl_span_budget_annotate(const jl_span_budget_result *r, const jl_budgets *b, json_t *doc);
#endif /* JOULES_EXPERIMENTAL */
/* The CSV columns (jl_attribution_write_csv_extra): budget_verdict and
 * budget_checks ("FIGURE<=MAX VERDICT" joined by "; "), one pair per row, heap
 * strings in *values ([n_rows * 2], free each and the array). */
jl_status jl_span_budget_csv_columns(const jl_span_budget_result *r, const jl_budgets *b,
                                     char ***values);

JL_API_END
#ifdef __cplusplus
}
#endif

#endif
