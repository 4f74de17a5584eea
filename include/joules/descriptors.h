/* joules/descriptors.h — what joules knows about GPUs and models beyond a
 * trace: memory, power limit and idle power of a GPU; layers, KV heads,
 * head dimension and parameter counts of a model (models/gpus.json and
 * models/models.json). A trace's own attributes always win; descriptors fill
 * the gaps (e.g. the memory ceiling of the published ML.ENERGY runs, which
 * carry no KV or memory attributes).
 *
 * The folder is found in this order: the directory given to
 * jl_descriptors_load(), $JOULES_MODELS_DIR, the source tree's models/ (set
 * at build time), the installed share/joules/models.
 */
#ifndef JOULES_DESCRIPTORS_H
#define JOULES_DESCRIPTORS_H

#include <stddef.h>

#include "joules/attrs.h"
#include "joules/error.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

typedef struct jl_gpu_desc {
    char *id; /* e.g. "H100" (matches the gpu_model attribute) */
    char *name;
    double memory_bytes; /* NaN when unknown */
    double tdp_w;
    double idle_power_w;
    double idle_min_w, idle_max_w;
    double hbm_bandwidth_bytes_s;
    /* when it became available, "YYYY-MM" in gpus.json ("released"), as
     * year + (month - 1) / 12; NaN when unknown. The report's GPU baseline
     * is the earliest: the GPU model the others are upgrades from. */
    double released;
    double bf16_dense_flops; /* NaN when unknown */
} jl_gpu_desc;

typedef struct jl_model_desc {
    char *id; /* e.g. "Qwen/Qwen3-8B" */
    double total_params, active_params;
    double weight_bytes_per_param;
    long layers, attention_layers, kv_heads, head_dim; /* -1 unknown */
    double kv_bytes_per_token; /* NaN for non-LLMs; every attention layer at full context */
    /* window-limited attention layers (sliding window, chunked local
     * attention): how many of attention_layers, and the window in tokens;
     * -1 unknown / none. Such a layer holds min(context, window) tokens. */
    long sliding_window_layers, sliding_window;
} jl_model_desc;

typedef struct jl_descriptors jl_descriptors;

/* dir may be NULL (search order above). */
jl_status jl_descriptors_load(const char *dir, jl_descriptors **out, jl_error **err);
/* The same from the two documents in memory (for tests and the fuzz target
 * tests/fuzz/test_descriptors.c). */
jl_status jl_descriptors_load_buffers(const char *gpus_json, size_t gpus_len,
                                      const char *models_json, size_t models_len,
                                      jl_descriptors **out, jl_error **err);
void jl_descriptors_free(jl_descriptors *d);

const jl_gpu_desc *jl_descriptors_gpu(const jl_descriptors *d, const char *gpu_model);
/* Exact id first; then the id without a trailing precision suffix
 * ("-FP8", "-BF16"); then a case-insensitive match. */
const jl_model_desc *jl_descriptors_model(const jl_descriptors *d, const char *model);

/* Effective values for a run: the trace's attribute when present, else the
 * descriptor's, else NaN. Per GPU. */
double jl_run_gpu_memory_bytes(const jl_attrs *a, const jl_descriptors *d);
double jl_run_gpu_tdp_w(const jl_attrs *a, const jl_descriptors *d);
double jl_run_gpu_idle_w(const jl_attrs *a, const jl_descriptors *d);
double jl_run_kv_bytes_per_token(const jl_attrs *a, const jl_descriptors *d);
/* Weight bytes of the whole model (all GPUs together). */
double jl_run_weight_bytes(const jl_attrs *a, const jl_descriptors *d);

/* Precision names (the `precision` attribute). The reference precision of
 * comparisons is bfloat16: `joules compare --by precision`'s default
 * baseline. Three tests, each with its own callers, kept apart on purpose:
 *   jl_precision_is_reference: "bfloat16" or "bf16", exactly (case
 *     matters): the baseline the report compares precisions against;
 *   jl_precision_is_16bit: "bf16", "bfloat16", "fp16", "float16" or "half",
 *     whatever the case: the reference curve of the precision figure;
 *   jl_precision_bytes_per_param: bytes per weight, whatever the case:
 *     "bfloat16" and "float16" 2, "fp8" 1, "float32" 4; NaN for any other
 *     name or NULL (the model descriptor decides then). */
#define JL_REFERENCE_PRECISION "bfloat16"
int jl_precision_is_reference(const char *p);
int jl_precision_is_16bit(const char *p);
double jl_precision_bytes_per_param(const char *p);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
