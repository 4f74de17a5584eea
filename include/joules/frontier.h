/* joules/frontier.h — the time–energy frontier of each group of runs.
 *
 * Runs are grouped (jl_group_runs, joules/study.h) by (model, task) — the
 * same amount of work measured under different configurations (GPU model
 * and count, batch size, precision is part of the model id). In each group
 * the frontier is the set of runs not dominated in (latency, energy):
 * median ITL vs energy per token for LLMs (llm, mllm), batch latency vs
 * energy per item for diffusion, or any other pair of figures.
 *
 * Rule (docs/choice.md): runs lacking either figure are skipped (listed).
 * The others are sorted by latency, then energy, then a deterministic
 * configuration key (GPU model, GPU count, batch size, file, run). Run q
 * dominates p when q is no worse in both figures and better in one. Two
 * runs whose latencies AND energies both agree within the relative tolerance
 * (default 1e-9: exact ties and floating-point noise) are *equivalent*: the
 * first in the order above represents them on the frontier, the others are
 * listed under it as `equivalent` and are not dominated. Sweeping in order,
 * a run joins the frontier when it is not equivalent to the last frontier
 * point and its energy is lower than that point's by more than the
 * tolerance; otherwise it is dominated by that point.
 *
 * Curves (the paper's Fig. 8–9): within each group, one curve per (GPU
 * model, GPU count, precision), every run of it in batch-size order, each
 * point flagged when it is on its curve's own frontier and on the group's.
 *
 * Ownership: jl_frontier_set owned by the caller, jl_frontier_set_free()
 * (NULL accepted). Run references are indices into the jl_summary_list the
 * set was computed from, which must outlive it.
 */
#ifndef JOULES_FRONTIER_H
#define JOULES_FRONTIER_H

#ifdef JOULES_EXPERIMENTAL
#include <jansson.h>
#endif
#include <stddef.h>

#include "joules/error.h"
#include "joules/study.h" /* groups of runs (jl_group_runs) */
#include "joules/summary.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

/* ---- frontier -------------------------------------------------------------- */

typedef struct jl_frontier_options {
    /* Figures (jl_figure) to use, or -1 for the workload's default: latency
     * median_itl_s (llm, mllm) / batch_latency_s (diffusion) /
     * percentile_latency_s (the per-sample workloads: MLPerf LoadGen's
     * latency at the run's @latency_percentile, one percentile per
     * frontier); energy energy_per_token_j / energy_per_item_j. */
    int latency_figure;
    int energy_figure;
    /* Relative tolerance for equivalence and domination; default 1e-9. */
    double tolerance;
} jl_frontier_options;

void jl_frontier_options_default(jl_frontier_options *opt);

/* The figure used for run s (resolving -1 by its workload). */
int jl_frontier_latency_figure(const jl_frontier_options *opt, const jl_summary *s);
int jl_frontier_energy_figure(const jl_frontier_options *opt, const jl_summary *s);

typedef struct jl_frontier_point {
    size_t run; /* index into the list */
    double latency, energy;
    size_t *equivalent; /* runs equivalent to this one (not listed as points) */
    size_t n_equivalent;
} jl_frontier_point;

typedef struct jl_dominated {
    size_t run;
    size_t by; /* the frontier run that dominates it */
} jl_dominated;

typedef struct jl_curve_point {
    size_t run;
    double latency, energy;
    long batch;            /* max_batch_size */
    int on_curve_frontier; /* not dominated within the curve */
    int on_frontier;       /* on the (model, task) frontier (or equivalent to a point of it) */
} jl_curve_point;

typedef struct jl_curve {
    char *gpu_model, *precision; /* NULL when the runs lack them */
    long num_gpus;
    jl_curve_point *points; /* by batch size, then latency, then config */
    size_t n_points;
} jl_curve;

typedef struct jl_frontier {
    char *model, *task, *workload; /* workload of the first run */
    int node_ac;                   /* the group's runs measure node AC power */
    size_t n_runs;                 /* runs in the group */
    jl_frontier_point *points;     /* ascending latency, descending energy */
    size_t n_points;
    jl_dominated *dominated;
    size_t n_dominated;
    size_t *skipped; /* runs lacking latency or energy */
    size_t n_skipped;
    jl_curve *curves; /* by GPU model, GPU count, precision */
    size_t n_curves;
} jl_frontier;

typedef struct jl_frontier_set {
    jl_frontier *frontiers; /* by (model, task) */
    size_t n;
    jl_frontier_options opt;
} jl_frontier_set;

/* The frontier of a set of runs given by index (one group). */
jl_status jl_frontier_of(const jl_summary_list *l, const size_t *runs, size_t n_runs,
                         const jl_frontier_options *opt, jl_frontier *out, jl_error **err);
void jl_frontier_clear(jl_frontier *f);

/* Every (model, task) frontier of a list, with curves. opt may be NULL. */
jl_status jl_frontier_compute(const jl_summary_list *l, const jl_frontier_options *opt,
                              jl_frontier_set **out, jl_error **err);
void jl_frontier_set_free(jl_frontier_set *fs);

/* Why run i (an index into l, one of f->skipped) left frontier f out, into
 * buf (cap bytes) or as a constant: the reason its importer gave for having
 * no latency (@latency_unknown: MLPerf Offline), a latency percentile other
 * than the frontier's, else "latency or energy figure missing". */
const char *jl_frontier_skip_reason(const jl_frontier_set *fs, const jl_frontier *f,
                                    const jl_summary_list *l, size_t i, char *buf, size_t cap);

#ifdef JOULES_EXPERIMENTAL
/* The joules.frontier/1 document (without "errors"; the caller adds it):
 * {"schema", "latency_figure", "energy_figure", "tolerance",
 *  "frontiers": [{"model","task","workload","latency_figure","energy_figure",
 *                 ("latency_per","latency_percentile": percentile_latency_s
 *                 frontiers), "n_runs","points":[run object + "frontier_latency",
 *                 "frontier_energy","equivalent":[run keys]],
 *                 "dominated":[run key + "dominated_by": run key],
 *                 "skipped":[run key + "reason"]}],
 *  "curves": [{"model","task","gpu_model","num_gpus","precision",
 *              "points":[{"run": run key, "max_batch_size","latency",
 *                          "energy","on_curve_frontier","on_frontier"}]}]}
 * NULL on out-of-memory. */
json_t *jl_frontier_document(const jl_frontier_set *fs, const jl_summary_list *l);
#endif /* JOULES_EXPERIMENTAL */

/* The same document with "errors" (jl_errors_to_json), as text: the bytes
 * jl_json_dump writes for it, trailing newline included, written without
 * building the tree (src/json/json_internal.h; 4 MB on the ML.ENERGY
 * study). *len (may be NULL) its length. NULL on out-of-memory. */
char *jl_frontier_document_text(const jl_frontier_set *fs, const jl_summary_list *l,
                                const jl_error_list *errors, size_t *len);
/* That text written whole to path ("-" = stdout). */
jl_status jl_write_frontier_json(const char *path, const jl_frontier_set *fs,
                                 const jl_summary_list *l, const jl_error_list *errors,
                                 jl_error **err);

/* CSV: one row per frontier point (model, task, rank, run key, batch,
 * latency and energy with their figure names, equivalent count). */
jl_status jl_write_frontier_csv(const char *path, const jl_frontier_set *fs,
                                const jl_summary_list *l, jl_error **err);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
