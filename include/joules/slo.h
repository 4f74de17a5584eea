/* joules/slo.h — service-level objectives: "median_itl<=100ms,ttft_p90<=2s".
 *
 * An SLO expression is one or more conditions joined by commas. A condition
 * is a figure name, an operator (<=, <, >=, >) and a number with an optional
 * unit:
 *
 *     median_itl<=100ms        p90_itl<=250ms,ttft_p90<=2s
 *     batch_latency<=30s       throughput>=5000tok/s
 *
 * Names resolve to the figure table (summary.h, JL_FIGURE_TABLE): the exact
 * figure name (`median_itl_s`), or the name without its unit suffix
 * (`median_itl` -> median_itl_s, `energy_per_token` -> energy_per_token_j,
 * `avg_power` -> avg_power_w). Three names depend on the workload of the run
 * they are applied to:
 *
 *     throughput  output_throughput_tok_s (llm, mllm) | items_per_s (diffusion, per-sample)
 *     latency     median_itl_s (llm, mllm)            | batch_latency_s (diffusion)
 *                 | percentile_latency_s (the per-sample workloads: MLPerf's)
 *     energy      energy_per_token_j (llm, mllm)      | energy_per_item_j (diffusion, per-sample)
 *
 * p90_latency, p99_latency, latency_p99 (any whole percentile) name the
 * per-sample workloads' percentile_latency_s at that percentile: a run
 * whose latency is another percentile (MLPerf SingleStream reports the
 * 90th, Server and MultiStream the 99th) lacks it (JL_SLO_MISSING, and
 * jl_slo_cond_refusal() says why).
 *
 * (a unit pins them: `throughput>=5000tok/s` is output_throughput_tok_s).
 * Units are converted to the figure's unit: s ms us min h; J mJ kJ MJ Wh
 * kWh; W mW kW MW; tok/s tokens/s; items/s images/s videos/s; tok/J; MHz
 * GHz; %. A number without a unit on a time, energy or power figure
 * written without its unit suffix (`median_itl<=10`) is an error naming the
 * units accepted, since 10 s and 10 ms are both plausible; with the suffix
 * (`median_itl_s<=0.01`) and on other figures (ratios, counts, rates,
 * clocks) a bare number is in the figure's own unit. A unit of the wrong kind for
 * the figure (`median_itl<=5J`) is an error.
 *
 * Errors are JL_EUSAGE with a message and the byte offset of the bad part,
 * so a caller can show the expression with a caret under it
 * (jl_slo_caret()).
 *
 * Ownership: jl_slo is owned by the caller, freed with jl_slo_free() (NULL
 * accepted).
 */
#ifndef JOULES_SLO_H
#define JOULES_SLO_H

#include <stddef.h>

#include "joules/error.h"
#include "joules/summary.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

typedef enum { JL_SLO_LE, JL_SLO_LT, JL_SLO_GE, JL_SLO_GT } jl_slo_op;

/* The text of an operator: "<=", "<", ">=", ">". */
const char *jl_slo_op_name(jl_slo_op op);

typedef struct jl_slo_cond {
    char *name;           /* as written, e.g. "median_itl" */
    int figure_llm;       /* jl_figure for llm/mllm runs, -1 if none */
    int figure_diffusion; /* jl_figure for diffusion runs, -1 if none */
    int figure_sample;    /* jl_figure for the per-sample workloads, -1 if none */
    double percentile;    /* p90_latency: 90 (the run's @latency_percentile must be it); 0 */
    jl_slo_op op;
    double bound;          /* in the figure's unit (s, J, W, tokens/s, ...) */
    size_t offset, length; /* where the condition is in the expression */
} jl_slo_cond;

typedef struct jl_slo {
    char *text; /* the expression as given */
    jl_slo_cond *conds;
    size_t n;
} jl_slo;

/* Parse an expression. On failure *out is NULL, *err (JL_EUSAGE) says what
 * is wrong and *err_offset (if non-NULL) is the byte offset of the bad part. */
jl_status jl_slo_parse(const char *expr, jl_slo **out, size_t *err_offset, jl_error **err);
void jl_slo_free(jl_slo *slo);

/* The expression shown with a caret under byte `offset`, two lines:
 * "  EXPR\n  ^". Caller frees; NULL on out-of-memory. */
char *jl_slo_caret(const char *expr, size_t offset);

/* Resolve a figure name as SLO expressions do (exact name, or name without
 * unit suffix, or one of the workload-dependent names) for a workload
 * ("llm", "mllm", "diffusion", or NULL for "any"). -1 when unknown or not
 * defined for that workload. */
int jl_slo_resolve_figure(const char *name, const char *workload);

/* For a name jl_slo_resolve_figure does not know: the closest name it does
 * know (a figure's name, with or without its unit suffix, or a
 * workload-dependent name), written into buf (cap bytes). Returns 1 with a
 * suggestion within a couple of typos, 0 without one (buf then ""). */
int jl_slo_suggest_figure(const char *name, char *buf, size_t cap);

/* The figure condition c refers to for run s, or -1 when it has none for
 * the run's workload. */
int jl_slo_cond_figure(const jl_slo_cond *c, const jl_summary *s);

/* Why run s lacks condition c's figure, when the run says why: a latency
 * percentile other than the one c names, an importer's reason for no
 * latency (@latency_unknown: MLPerf Offline), or a median ITL asked of a
 * run that has only a mean time per output token (avg_tpot_s: MLPerf LLM
 * runs, ML.ENERGY v2). Returns 1 with the text in buf (cap bytes), else 0
 * (buf ""). */
int jl_slo_cond_refusal(const jl_slo_cond *c, const jl_summary *s, char *buf, size_t cap);

/* Outcome of one condition on one run. */
typedef enum {
    JL_SLO_PASS = 0,
    JL_SLO_FAIL = 1,
    JL_SLO_MISSING = 2 /* the run lacks the figure (NaN, or none for its workload) */
} jl_slo_result;

/* Evaluate condition c on run s. *value receives the figure (NaN when
 * missing); *miss the relative amount by which the bound is missed:
 * (value - bound) / |bound| for <= and <, (bound - value) / |bound| for >=
 * and > (the absolute difference when bound is 0); <= 0 when met. */
jl_slo_result jl_slo_cond_eval(const jl_slo_cond *c, const jl_summary *s, double *value,
                               double *miss);

/* Evaluate every condition: JL_SLO_PASS when all pass, JL_SLO_MISSING when
 * any figure is missing, else JL_SLO_FAIL. *worst_miss (may be NULL) is the
 * largest relative miss over the conditions (NaN when missing). slo NULL
 * means "no constraint" and always passes. */
jl_slo_result jl_slo_eval(const jl_slo *slo, const jl_summary *s, double *worst_miss);

/* A canonical text of the expression, e.g. "median_itl_s<=0.1" (figures
 * named as resolved, bounds in the figure's unit, %.12g). Caller frees. */
char *jl_slo_canonical(const jl_slo *slo);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
