/* joules/diagnose.h — per run: utilisation, static-power waste, the ceiling
 * that binds the batch, the headroom, and what would change the energy,
 * predicted by the group's fitted model (joules/model.h).
 *
 * Definitions (docs/diagnose.md has them all, with the hand checks):
 *
 *   utilisation u          the fitted model's u(b) = (P(b)/G − Ps)/(TDP − Ps)
 *                          at the run's achieved batch ("model"); else the
 *                          measured mean SM utilisation ("sm_util"); else the
 *                          measured dynamic power per GPU over the largest in
 *                          the run's group, (P/G − idle)/max(P/G − idle)
 *                          ("group_power").
 *   static power           G × idle power per GPU (gpu_idle_power_w, else the
 *                          GPU descriptor)
 *   static_energy_share    static power / mean power (<= 1)
 *   static_wasted_j        static power × window duration × (1 − u): the
 *                          static energy burned for the share of the time the
 *                          GPU is not doing useful work (paper §5.2's 60 %
 *                          example); null when the window length is unknown
 *                          (summary-only runs), see static_wasted_j_per_token.
 *
 * Findings are structured (kind, severity, message, numbers).
 *
 * Ownership: jl_diagnosis_free() accepts NULL; the summaries diagnosed are
 * borrowed and must outlive the diagnosis. The library never prints.
 */
#ifndef JOULES_DIAGNOSE_H
#define JOULES_DIAGNOSE_H

#ifdef JOULES_EXPERIMENTAL
#include <jansson.h>
#endif
#include <stddef.h>

#include "joules/ceiling.h"
#include "joules/descriptors.h"
#include "joules/error.h"
#include "joules/model.h"
#include "joules/summary.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

/* A named number of a finding (name static, e.g. "predicted_energy_change"). */
typedef struct jl_finding_number {
    const char *name;
    double value;
} jl_finding_number;

typedef struct jl_finding {
    const char *kind;     /* static: under_utilised, batch_limit, raise_batch,
                              batch_plateau, more_gpus, upstream, headroom,
                              fixed_cost, no_prediction */
    const char *severity; /* static: "info", "warning", "suggestion" */
    char *message;
    jl_finding_number numbers[12];
    size_t n_numbers;
} jl_finding;

typedef struct jl_run_diagnosis {
    const jl_summary *run;           /* borrowed */
    double utilisation;              /* NaN when nothing gives it */
    const char *utilisation_source;  /* "model", "sm_util", "group_power", "none" */
    double static_power_w;           /* all GPUs */
    const char *static_power_source; /* "trace", "descriptor", "none" */
    double static_energy_share;
    double static_wasted_j;
    double static_wasted_j_per_token;
    jl_batch_ceiling ceiling;
    char *group;            /* the group key text, NULL for unmodelled runs */
    const char *fit_method; /* "model", "interpolation", "none" */
    double group_ceiling;   /* the prediction ceiling (+inf none) */
    char *group_ceiling_reason;
    jl_finding *findings;
    size_t n_findings;
} jl_run_diagnosis;

typedef struct jl_diagnosis {
    jl_run_diagnosis *runs;
    size_t count;
} jl_diagnosis;

typedef struct jl_diagnose_options {
    jl_ceiling_options ceiling;
    double under_utilised; /* u below: a warning (default 0.6) */
    double min_gain;       /* a suggestion must save at least this share (0.05) */
} jl_diagnose_options;

void jl_diagnose_options_default(jl_diagnose_options *o);

/* Diagnose every run of l (groups are formed from l itself: suggestions only
 * use groups measured in l). d may be NULL. JL_ENOMEM, or a fit error. */
jl_status jl_diagnose(const jl_summary_list *l, const jl_descriptors *d,
                      const jl_diagnose_options *opt, jl_diagnosis **out, jl_error **err);

/* jl_diagnose() with the groups and fits already made: gl from
 * jl_model_groups(l), fits[i] from jl_model_fit_group() of gl->items[i] with
 * jl_model_options_default() (both borrowed). `joules report` fits each group
 * once for its figures and its diagnosis. JL_ENOMEM only. */
jl_status jl_diagnose_fitted(const jl_summary_list *l, const jl_model_group_list *gl,
                             jl_group_fit *const *fits, const jl_descriptors *d,
                             const jl_diagnose_options *opt, jl_diagnosis **out, jl_error **err);
void jl_diagnosis_free(jl_diagnosis *x);

#ifdef JOULES_EXPERIMENTAL
/* The joules.diagnose/1 document (without "errors"). NULL on out-of-memory. */
json_t *jl_diagnose_document(const jl_diagnosis *x);
#endif /* JOULES_EXPERIMENTAL */
/* jl_diagnose_document's text, without jansson: the bytes jl_json_dump writes for
 * that tree (no provenance block); *len (may be NULL) its length; caller
 * frees. NULL on out of memory. */
char *jl_diagnose_document_text(const jl_diagnosis *x, size_t *len);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
