/* joules/choice.h — choosing configurations: pick, compare, capacity.
 *
 * pick      the minimum-energy configuration of each (model, task) that meets
 *           an SLO (slo.h); groups where nothing meets it are reported with
 *           the closest configuration and by how much it misses.
 * compare   matched-constraint comparisons (paper §4.3): for each (model,
 *           task[, held attributes], SLO) the pick of each value of an
 *           attribute (`gpu_model`, `num_gpus`, ...) against a baseline value.
 * precision precision pairs (paper §4.4): each run of another precision with
 *           its baseline-precision twin, bucketed by batch size.
 * capacity  under a facility power budget: the configuration with the highest
 *           throughput per watt within an SLO, replicas that fit, totals at
 *           the wall (PUE) and carbon.
 *
 * Every rule (energy figure, ties, what "closest" means, which pairs enter)
 * is documented in docs/choice.md. Run references are indices into the
 * jl_summary_list the result was computed from, which must outlive it.
 * Results are owned by the caller and released with their _free function,
 * which accepts NULL.
 */
#ifndef JOULES_CHOICE_H
#define JOULES_CHOICE_H

#ifdef JOULES_EXPERIMENTAL
#include <jansson.h>
#endif
#include <stddef.h>

#include "joules/error.h"
#include "joules/slo.h"
#include "joules/summary.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

/* ---- pick ------------------------------------------------------------------ */

typedef enum {
    JL_PICK_FEASIBLE = 0,   /* some run meets the SLO: choice is the min-energy one */
    JL_PICK_INFEASIBLE,     /* runs can be judged, none meets it: choice is the closest */
    JL_PICK_NOT_APPLICABLE, /* no run has the SLO's figures (or the energy figure) */
    JL_PICK_NO_RUNS         /* the group is empty */
} jl_pick_status;

const char *jl_pick_status_name(jl_pick_status s); /* "feasible", ... */

typedef struct jl_pick_options {
    /* Energy figure to minimise, -1 = by workload: energy_per_token_j (llm,
     * mllm), energy_per_item_j (diffusion). */
    int energy_figure;
    /* Relative tolerance under which two energies are a tie; default 1e-9. */
    double tie_tolerance;
} jl_pick_options;

void jl_pick_options_default(jl_pick_options *opt);

typedef struct jl_pick {
    jl_pick_status status;
    long choice;       /* run index; feasible: min energy; infeasible: closest; else -1 */
    double energy;     /* choice's energy figure */
    int energy_figure; /* the figure minimised for the choice (-1 when none) */
    double worst_miss; /* infeasible: the closest run's largest relative miss (> 0) */
    size_t *ties;      /* feasible: other runs whose energy ties the choice's */
    size_t n_ties;
    size_t n_runs, n_feasible, n_missing; /* examined, meeting the SLO, lacking a figure */
} jl_pick;

/* Pick among runs[0..n) of l. slo NULL = no constraint (minimum energy).
 * Feasible: lowest energy; ties (within tie_tolerance) go to the lower
 * latency (median ITL / batch latency), then the configuration order
 * (jl_run_config_cmp). Infeasible: the run with the smallest largest
 * relative miss over the conditions; ties go to lower energy, then
 * configuration order. */
jl_status jl_pick_runs(const jl_summary_list *l, const size_t *runs, size_t n, const jl_slo *slo,
                       const jl_pick_options *opt, jl_pick *out, jl_error **err);
void jl_pick_clear(jl_pick *p);

typedef struct jl_pick_entry {
    char *model, *task;
    size_t slo; /* index into the SLO list; (size_t)-1 when none */
    jl_pick pick;
} jl_pick_entry;

typedef struct jl_pick_set {
    jl_pick_entry *items; /* by (model, task), then SLO order */
    size_t n;
    const jl_slo *const *slos; /* borrowed */
    size_t n_slos;
    jl_pick_options opt;
} jl_pick_set;

/* One pick per (model, task) and SLO (n_slos == 0: one unconstrained pick
 * per group). The SLOs are borrowed and must outlive the set. */
jl_status jl_pick_all(const jl_summary_list *l, const jl_slo *const *slos, size_t n_slos,
                      const jl_pick_options *opt, jl_pick_set **out, jl_error **err);
void jl_pick_set_free(jl_pick_set *ps);
/* How many of the set's picks SLO k judges: those of groups whose runs
 * have its figures (not JL_PICK_NOT_APPLICABLE nor JL_PICK_NO_RUNS). An
 * SLO that applies to no run judges nothing: `joules pick` and the Python
 * module make it an error, never a quiet "not applicable" everywhere
 * (issue 37). */
size_t jl_pick_slo_applies(const jl_pick_set *ps, size_t k);

#ifdef JOULES_EXPERIMENTAL
/* Each condition of slo on run s: [{"condition", "figure", "op", "bound",
 * "value", "met", "excess", "excess_rel"}]. */
json_t *jl_slo_conditions_to_json(const jl_slo *slo, const jl_summary *s);

/* {"schema": "joules.pick/1", "picks": [{"model", "task", "slo",
 * "slo_canonical", "status", "feasible", "choice", "closest", "conditions",
 * "energy_figure", "energy", "worst_miss_rel", "ties", "n_runs",
 * "n_feasible", "n_missing"}]} — docs/choice.md. */
json_t *jl_pick_document(const jl_pick_set *ps, const jl_summary_list *l);
#endif /* JOULES_EXPERIMENTAL */
/* jl_pick_document's text, without jansson: the bytes jl_json_dump writes for
 * that tree (no provenance block); *len (may be NULL) its length; caller
 * frees. NULL on out of memory. */
char *jl_pick_document_text(const jl_pick_set *ps, const jl_summary_list *l, size_t *len);
/* The text jl_json_dump writes for that document with "errors" (the list
 * as jl_errors_to_json), written whole to path ("-" = stdout) without
 * building the tree. */
jl_status jl_write_pick_json(const char *path, const jl_pick_set *ps, const jl_summary_list *l,
                             const jl_error_list *errors, jl_error **err);
jl_status jl_write_picks_csv(const char *path, const jl_pick_set *ps, const jl_summary_list *l,
                             jl_error **err);

/* ---- compare ---------------------------------------------------------------- */

typedef struct jl_compare_options {
    const char *by;          /* attribute whose values are the sides */
    const char *baseline;    /* the baseline value of `by` */
    const char *const *hold; /* attributes held equal besides model and task */
    size_t n_hold;
    jl_pick_options pick;
} jl_compare_options;

typedef struct jl_comparison {
    char **group_values; /* model, task, then the held attributes */
    size_t slo;          /* index into the SLO list; (size_t)-1 when none */
    char *side;          /* the value of `by` compared with the baseline */
    jl_pick base, other;
    int counted;      /* both sides have a feasible pick */
    char *reason;     /* why not counted, else NULL */
    double reduction; /* 1 - E_side / E_baseline (NaN when not counted) */
    int winner;       /* 1: side, 0: baseline, -1: exact tie or not counted */
} jl_comparison;

typedef struct jl_compare_side {
    char *side;
    size_t n, wins, losses; /* comparisons of this side with the baseline */
    double median_reduction, min_reduction, max_reduction;
} jl_compare_side;

typedef struct jl_compare_result {
    char *by, *baseline;
    char **group_keys; /* "model", "task", held attributes */
    size_t n_group_keys;
    jl_comparison *items;
    size_t n;
    size_t n_counted, n_ties;
    size_t baseline_wins;
    jl_compare_side *sides; /* non-baseline values, sorted */
    size_t n_sides;
    double median_reduction, min_reduction, max_reduction; /* over counted */
    const jl_slo *const *slos;
    size_t n_slos;
} jl_compare_result;

/* Sides are every value of `by` among the runs other than the baseline. A
 * (group, SLO, side) where either side has no run, or no feasible run, is
 * listed with the reason and not counted. */
jl_status jl_compare(const jl_summary_list *l, const jl_slo *const *slos, size_t n_slos,
                     const jl_compare_options *opt, jl_compare_result **out, jl_error **err);
void jl_compare_result_free(jl_compare_result *r);

#ifdef JOULES_EXPERIMENTAL
/* {"schema": "joules.compare/1", "by", "baseline", "comparisons": [...
 *  "energy_change", "reduction" ...], "totals": {"n", "ties", "wins":
 *  {value: count}, "median_energy_change", "min_energy_change",
 *  "max_energy_change", "median_reduction", "min_reduction",
 *  "max_reduction", "sides": [...]}}. energy_change = E_side/E_baseline - 1
 *  (negative: the side needs less energy), the sign used everywhere;
 *  reduction = -energy_change is kept for existing readers. */
json_t *jl_compare_document(const jl_compare_result *r, const jl_summary_list *l);
#endif /* JOULES_EXPERIMENTAL */
/* jl_compare_document's text, without jansson: the bytes jl_json_dump writes for
 * that tree (no provenance block); *len (may be NULL) its length; caller
 * frees. NULL on out of memory. */
char *jl_compare_document_text(const jl_compare_result *r, const jl_summary_list *l, size_t *len);
/* Its text with "errors", as jl_write_pick_json. */
jl_status jl_write_compare_json(const char *path, const jl_compare_result *r,
                                const jl_summary_list *l, const jl_error_list *errors,
                                jl_error **err);
jl_status jl_write_compare_csv(const char *path, const jl_compare_result *r,
                               const jl_summary_list *l, jl_error **err);

/* ---- precision pairs ---------------------------------------------------------- */

typedef struct jl_precision_options {
    const char *baseline; /* e.g. "bfloat16" */
    const double *bins;   /* ascending edges; bucket k is (bins[k], bins[k+1]] */
    size_t n_bins;
    int latency_figure, energy_figure; /* -1 = by workload */
} jl_precision_options;

/* The default bucket edges, 8,16,64,256: the paper's 8-16, 17-64 and 65-256
 * batch buckets (Sec. 4.4). */
/* clang-format off */
#define JL_PRECISION_DEFAULT_BINS {8, 16, 64, 256}
/* clang-format on */
#define JL_PRECISION_DEFAULT_N_BINS 4

/* baseline "bfloat16", the default bins, latency and energy by workload. */
void jl_precision_options_default(jl_precision_options *opt);

typedef struct jl_precision_pair {
    size_t run, twin;      /* the other-precision run and its baseline twin */
    long batch;            /* max_batch_size */
    int bucket;            /* -1: outside every bucket */
    double energy_change;  /* E_run / E_twin - 1 (negative: the run uses less) */
    double latency_change; /* L_run / L_twin - 1 */
} jl_precision_pair;

typedef struct jl_unpaired {
    size_t run;
    char *reason;
} jl_unpaired;

typedef struct jl_change_stats {
    size_t n, wins; /* wins: change < 0 */
    double median, min, max;
} jl_change_stats;

typedef struct jl_precision_bucket {
    double lo, hi; /* (lo, hi] */
    jl_change_stats energy, latency;
} jl_precision_bucket;

typedef struct jl_precision_result {
    char *baseline;
    jl_precision_pair *pairs; /* by model, task, GPU, GPU count, batch */
    size_t n_pairs;
    jl_unpaired *unpaired;
    size_t n_unpaired;
    jl_precision_bucket *buckets;
    size_t n_buckets;
    size_t n_outside; /* pairs in no bucket */
    jl_change_stats energy_all, latency_all;
} jl_precision_result;

/* The model id without a trailing precision tag ("-FP8", "-BF16",
 * "-bfloat16", "-FP16", "-INT8", "-INT4", "-NVFP4", "-MXFP4", any case).
 * Caller frees. */
char *jl_model_base_id(const char *model);

jl_status jl_compare_precision(const jl_summary_list *l, const jl_precision_options *opt,
                               jl_precision_result **out, jl_error **err);
void jl_precision_result_free(jl_precision_result *r);

#ifdef JOULES_EXPERIMENTAL
/* {"schema": "joules.compare/1", "by": "precision", "baseline", "bins",
 *  "pairs": [...], "unpaired": [...], "buckets": [...], "totals": {...}} */
json_t *jl_precision_document(const jl_precision_result *r, const jl_summary_list *l);
#endif /* JOULES_EXPERIMENTAL */
/* jl_precision_document's text, without jansson: the bytes jl_json_dump writes for
 * that tree (no provenance block); *len (may be NULL) its length; caller
 * frees. NULL on out of memory. */
char *jl_precision_document_text(const jl_precision_result *r, const jl_summary_list *l,
                                 size_t *len);
jl_status jl_write_precision_csv(const char *path, const jl_precision_result *r,
                                 const jl_summary_list *l, jl_error **err);

/* ---- capacity ------------------------------------------------------------------ */

typedef struct jl_capacity_options {
    double power_budget_w; /* facility power budget, W (> 0) */
    double pue;            /* power usage effectiveness, >= 1; default 1 */
    double grid_g_per_kwh; /* grid carbon intensity, gCO2e/kWh; NaN = not given */
} jl_capacity_options;

void jl_capacity_options_default(jl_capacity_options *opt);

typedef enum {
    JL_CAP_OK = 0,         /* a configuration fits */
    JL_CAP_INFEASIBLE,     /* no run meets the SLO */
    JL_CAP_EXCEEDS_BUDGET, /* runs meet the SLO but one replica draws more than the budget */
    JL_CAP_NOT_APPLICABLE  /* no run has throughput, power and the SLO's figures */
} jl_capacity_status;

const char *jl_capacity_status_name(jl_capacity_status s);

typedef struct jl_capacity_entry {
    char *model, *task, *workload;
    size_t slo; /* (size_t)-1 when none */
    jl_capacity_status status;
    long choice;               /* max throughput per watt among fitting SLO-meeting runs */
    long max_total_choice;     /* the run with the highest total throughput (may differ: floor) */
    double throughput;         /* one replica: tokens/s or items/s */
    double avg_power_w;        /* one replica, GPUs only */
    double throughput_per_w;   /* throughput / avg_power_w */
    double wall_power_w;       /* avg_power_w x PUE */
    long replicas;             /* floor(budget / wall_power_w) */
    double total_throughput;   /* replicas x throughput */
    double total_wall_power_w; /* replicas x wall_power_w */
    double energy_per_unit_wall_j; /* energy per token/item x PUE */
    double carbon_g_per_million;   /* g CO2e per million tokens/items, NaN without intensity */
    size_t n_runs, n_feasible, n_fitting;
    jl_pick closest; /* infeasible: the closest run, as pick reports it */
} jl_capacity_entry;

typedef struct jl_capacity_result {
    jl_capacity_entry *items;
    size_t n;
    jl_capacity_options opt;
    const jl_slo *const *slos;
    size_t n_slos;
} jl_capacity_result;

jl_status jl_capacity(const jl_summary_list *l, const jl_slo *const *slos, size_t n_slos,
                      const jl_capacity_options *opt, jl_capacity_result **out, jl_error **err);
void jl_capacity_result_free(jl_capacity_result *r);

#ifdef JOULES_EXPERIMENTAL
/* {"schema": "joules.capacity/1", "power_budget_w", "pue",
 *  "grid_g_per_kwh", "entries": [...]} */
json_t *jl_capacity_document(const jl_capacity_result *r, const jl_summary_list *l);
#endif /* JOULES_EXPERIMENTAL */
/* jl_capacity_document's text, without jansson: the bytes jl_json_dump writes for
 * that tree (no provenance block); *len (may be NULL) its length; caller
 * frees. NULL on out of memory. */
char *jl_capacity_document_text(const jl_capacity_result *r, const jl_summary_list *l, size_t *len);
jl_status jl_write_capacity_csv(const char *path, const jl_capacity_result *r,
                                const jl_summary_list *l, jl_error **err);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
