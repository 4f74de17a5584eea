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

#include <jansson.h>
#include <stddef.h>

#include "joules/carbon.h"
#include "joules/error.h"
#include "joules/slo.h"
#include "joules/summary.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN

/* ---- energy labels and cards ---- */

/* One label: per (model, task, GPU model, GPU count) the run of least GPU
 * energy per request (per item for diffusion) that meets every SLO given;
 * stars from where its energy per 1,000 queries falls in the range of the
 * labels of the same task in the data given (docs/accounting.md,
 * "Labels"): 5 in the lowest fifth of the range ... 1 in the highest. */
typedef struct jl_label {
    const char *model, *task, *gpu_model, *workload; /* borrowed from the run */
    long num_gpus;
    size_t run;                /* index into the runs */
    double wh_per_1000;        /* GPU Wh per 1,000 queries (images for diffusion) */
    int stars;                 /* 1..5 */
    double task_min, task_max; /* the task's range over the labels */
    size_t task_models;        /* labels of this task */
} jl_label;

typedef struct jl_label_set {
    jl_label *items;
    size_t n;
} jl_label_set;

jl_status jl_labels(const jl_summary_list *runs, const jl_slo *const *slos, size_t n_slos,
                    jl_label_set *out, jl_error **err);
void jl_label_set_clear(jl_label_set *ls);
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
/* {"schema": "joules.label/1", "labels": [...]} */
json_t *jl_label_document(const jl_label_set *ls, const jl_summary_list *runs, const char *slo_text,
                          const char *provenance_sha256);
/* A Markdown energy card of one model (docs/accounting.md, "Cards"): YAML
 * front matter a model card can take (the Hugging Face co2_eq_emissions
 * keys: emissions in grams for 1,000 queries at the labelled
 * configuration, source, geographical_location, hardware_used; and a
 * joules_energy block), then the standard primitives per label: energy per
 * token and request, prefill/decode split, static share, average and peak
 * power, calibration (energy source, sample coverage, counter vs integral),
 * conditions, carbon and PUE assumptions, provenance. em (may be NULL) the
 * emissions of every run (jl_emissions_study) with carbon_text saying what
 * intensity and PUE were used. NULL on out of memory. */
typedef struct jl_card_options {
    const char *slo_text;          /* or NULL */
    const char *location;          /* geographical_location, or NULL */
    const char *carbon_text;       /* "400 gCO2eq/kWh (constant), PUE 1.2", or NULL */
    const char *provenance_sha256; /* or NULL */
    const json_t *provenance;      /* its command and inputs are listed; or NULL */
} jl_card_options;

char *jl_card_markdown(const jl_label_set *ls, const jl_summary_list *runs,
                       const jl_emissions_result *em, const jl_card_options *o);

JL_API_END
#ifdef __cplusplus
}
#endif

#endif
