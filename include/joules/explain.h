/* joules/explain.h — why run A costs more (or less) energy per unit of work
 * than run B, as factors that multiply.
 *
 * Energy per token (per item for diffusion) is e = G·p·τ/b with G the GPU
 * count, p the mean power per GPU, τ = b/T the step time (T the output
 * throughput) and b the achieved batch (avg_batch_size; for diffusion, where
 * it is missing, max_batch_size). So, exactly,
 *
 *   ln(eA/eB) = ln(GA/GB) + ln(pA/pB) + ln(τA/τB) − ln(bA/bB)
 *
 * and the power term is split into a static part (idle power per GPU: the
 * run's gpu_idle_power_w, else the GPU descriptor) and a dynamic part
 * (p − static) with logarithmic-mean (LMDI) weights, also exactly:
 *
 *   ln(pA/pB) = (sA − sB)/L(pA,pB) + (dA − dB)/L(pA,pB),
 *   L(x,y) = (x − y)/(ln x − ln y), L(x,x) = x.
 *
 * The measured ratio uses the runs' own energy_per_token_j (energy_per_item_j)
 * figure; the difference between ln(eA/eB) and ln(PA/TA) − ln(PB/TB) (zero up
 * to rounding when the figures are consistent) is reported as `residual` so
 * the factors times exp(residual) give the measured ratio exactly.
 * docs/explain.md defines every field and the degenerate cases.
 *
 * Each factor lists the configuration knobs (model, gpu_model, num_gpus,
 * precision, max_batch_size, task, and for diffusion denoising_steps, height,
 * width, num_frames) that differ between A and B and can move that factor.
 *
 * Ownership: jl_explanation_free() accepts NULL. The library never prints.
 */
#ifndef JOULES_EXPLAIN_H
#define JOULES_EXPLAIN_H

#ifdef JOULES_EXPERIMENTAL
#include <jansson.h>
#endif
#include <stddef.h>

#include "joules/descriptors.h"
#include "joules/error.h"
#include "joules/summary.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

/* X(ID, json name, words in sentences) — the order of the JSON array. */
#define JL_EXPLAIN_FACTOR_TABLE(X)                           \
    X(GPU_COUNT, gpu_count, "GPU count")                     \
    X(STATIC_POWER, static_power, "static power per GPU")    \
    X(DYNAMIC_POWER, dynamic_power, "dynamic power per GPU") \
    X(STEP_TIME, step_time, "step time")                     \
    X(BATCH, batch, "batch")

typedef enum {
/* clang-format off */
#define JL_X_EF_ENUM(id, name, words) JL_EXPLAIN_##id,
    JL_EXPLAIN_FACTOR_TABLE(JL_X_EF_ENUM)
#undef JL_X_EF_ENUM
    JL_EXPLAIN_FACTOR_COUNT
    /* clang-format on */
} jl_explain_factor_id;

const char *jl_explain_factor_name(jl_explain_factor_id f);

/* A knob whose value differs between A and B. */
typedef struct jl_knob_diff {
    const char *knob; /* static string, e.g. "num_gpus" */
    char *a, *b;      /* values as text; "(missing)" when a run lacks it */
} jl_knob_diff;

typedef struct jl_explain_factor {
    jl_explain_factor_id id;
    /* Contribution to ln(eA/eB); ratio = exp(log_ratio). For BATCH this is
     * −ln(bA/bB) (a larger batch lowers energy per token). */
    double log_ratio, ratio;
    /* log_ratio / ln(eA/eB); NaN when the runs cost the same. */
    double share;
    /* The quantity compared: G; static W per GPU; dynamic W per GPU; step
     * time in s; batch in sequences (items). */
    double value_a, value_b;
    const char *unit;
    /* Indices into jl_explanation.knobs of the differing knobs that can move
     * this factor. */
    size_t knobs[16];
    size_t n_knobs;
} jl_explain_factor;

typedef struct jl_explanation {
    const jl_summary *a, *b;   /* borrowed: must outlive the explanation */
    const char *energy_figure; /* "energy_per_token_j" or "energy_per_item_j" */
    const char *work_unit;     /* "token" or "item" */
    double energy_a, energy_b; /* the measured figures */
    double ratio, log_ratio;   /* eA/eB and its log */
    double residual;           /* ln(eA/eB) − Σ factors (rounding only) */
    /* Power per GPU and its static part, as used (W). */
    double power_a, power_b, static_a, static_b;
    const char *static_source_a, *static_source_b; /* "trace", "descriptor", "none" */
    int power_split;                               /* 0: static unknown, the power factor is all
                                  in DYNAMIC_POWER (static_power = 0, noted) */
    jl_explain_factor factors[JL_EXPLAIN_FACTOR_COUNT];
    jl_knob_diff *knobs;
    size_t n_knobs;
    char **notes; /* caveats in words (degenerate cases) */
    size_t n_notes;
    char *sentence; /* the plain-words explanation */
} jl_explanation;

/* Explain A against B. d may be NULL (then static power comes only from the
 * runs' own gpu_idle_power_w). Fails with JL_ENODATA (naming the figure)
 * when a run lacks energy, power, throughput, batch or GPU count, or when
 * they are not positive; with JL_EUSAGE when one run is diffusion and the
 * other is not. */
jl_status jl_explain(const jl_summary *a, const jl_summary *b, const jl_descriptors *d,
                     jl_explanation **out, jl_error **err);
void jl_explanation_free(jl_explanation *x);

#ifdef JOULES_EXPERIMENTAL
/* The joules.explain/1 document (docs/explain.md). NULL on out-of-memory. */
json_t *jl_explain_document(const jl_explanation *x);
#endif /* JOULES_EXPERIMENTAL */
/* jl_explain_document's text, without jansson: the bytes jl_json_dump writes for
 * that tree (no provenance block); *len (may be NULL) its length; caller
 * frees. NULL on out of memory. */
char *jl_explain_document_text(const jl_explanation *x, size_t *len);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
