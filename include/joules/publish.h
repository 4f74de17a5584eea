/* joules/publish.h — what is published of a study's energy
 * (docs/accounting.md, "Labels", "Cards"; src/account/label.c, card.c):
 * energy labels with stars, as SVG and joules.label/1, and a Markdown
 * energy card a model card can take.
 *
 * Ownership: jl_label_set is cleared by jl_label_set_clear; returned
 * strings are the caller's; returned json_t objects are new references.
 */
#ifndef JOULES_PUBLISH_H
#define JOULES_PUBLISH_H

#ifdef JOULES_EXPERIMENTAL
#include <jansson.h>
#endif
#include <stddef.h>

#include "joules/carbon.h"
#include "joules/error.h"
#include "joules/slo.h"
#include "joules/summary.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

/* ---- energy labels and cards ---- */

/* One label (docs/accounting.md, "Labels", after the AI Energy Score's
 * rules): per (model, task, GPU model, GPU count) the run of least energy
 * per request (per item for diffusion) at the boundary counted (by default
 * the whole run at the widest measured scope) among those that meet the
 * SLOs that apply to its workload; stars from where its energy per 1,000
 * queries falls in the range of the labels rated with it -- the same task,
 * GPU model, size class (text generation) and boundary -- in five equal
 * bands: 5 in the lowest fifth ... 1 in the highest. A label alone in its
 * group is not rated (stars 0; null in joules.label/1): one label has
 * nothing to be compared with. */
typedef struct jl_label {
    const char *model, *task, *gpu_model, *workload; /* borrowed from the run */
    long num_gpus;
    size_t run;                /* index into the runs */
    double wh_per_1000;        /* Wh per 1,000 queries (images) at the boundary counted */
    double gpu_wh_per_1000;    /* the same at GPU scope (NaN: the GPUs were not measured) */
    int stars;                 /* 1..5; 0: not rated (alone in its group) */
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
/* The same, its "re-derive" line naming the labels document as verify
 * takes it from where the labels were made (e.g. "labels/labels.json",
 * one shell word; NULL: "labels.json"): the command works as printed. */
char *jl_label_svg_doc(const jl_label *l, const jl_summary *s, const char *slo_text,
                       const char *provenance_sha256, const char *date, const char *doc_path);
#ifdef JOULES_EXPERIMENTAL
/* {"schema": "joules.label/1", "labels": [...]} */
json_t *jl_label_document(const jl_label_set *ls, const jl_summary_list *runs, const char *slo_text,
                          const char *provenance_sha256);
#endif /* JOULES_EXPERIMENTAL */
/* jl_label_document's text, without jansson: the bytes jl_json_dump writes for
 * that tree (no provenance block); *len (may be NULL) its length; caller
 * frees. NULL on out of memory. */
char *jl_label_document_text(const jl_label_set *ls, const jl_summary_list *runs,
                             const char *slo_text, const char *provenance_sha256, size_t *len);
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
    const struct json_t
        *provenance; /* (jansson's json_t) its command and inputs are listed; or NULL */
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
