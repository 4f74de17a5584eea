/* joules/attrs.h — the attributes of a run: what configuration was measured.
 *
 * The spec's named attributes get typed fields, because every analysis
 * groups and selects by them. Anything else a harness wrote (the spec says
 * readers must ignore unknown attributes, but an importer must not drop what
 * it does not know) is kept in `extra` as text, so it can be passed through,
 * printed and selected on.
 *
 * Missing numbers are NaN (doubles) or -1 (integers); missing strings NULL.
 */
#ifndef JOULES_ATTRS_H
#define JOULES_ATTRS_H

#include <stddef.h>
#include <stdint.h>

#include "joules/error.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

typedef struct jl_kv {
    char *key;
    char *value; /* text form: numbers printed with %.17g, strings as is */
    int is_number;
} jl_kv;

typedef struct jl_attrs {
    /* MUST attributes */
    char *workload; /* llm, mllm, diffusion; per-sample: vision, speech, ... */
    char *model;
    char *task;
    char *gpu_model;
    long num_gpus; /* >= 1 */
    char *precision;
    long max_batch_size;
    /* optional */
    double start_time_unix;
    long tensor_parallel, expert_parallel, data_parallel;
    double gpu_memory_bytes;
    double gpu_tdp_w;
    double gpu_idle_power_w;
    double total_params, active_params;
    double kv_bytes_per_token;
    long denoising_steps, height, width, num_frames;
    char *notes;
    /* everything else, in file order */
    jl_kv *extra;
    size_t n_extra;
} jl_attrs;

/* Sets every field to "missing". */
void jl_attrs_init(jl_attrs *a);
void jl_attrs_clear(jl_attrs *a);
jl_status jl_attrs_copy(jl_attrs *dst, const jl_attrs *src);

/* Add an extra attribute (copies key and value). */
jl_status jl_attrs_add_extra(jl_attrs *a, const char *key, const char *value, int is_number);

/* The value of attribute `key` as text, for selection (--where) and
 * grouping: typed fields by their spec name, then extras. Returns 0 and
 * writes into buf (NUL-terminated, truncated to cap) when the attribute is
 * present; -1 when the run does not have it. */
int jl_attrs_get(const jl_attrs *a, const char *key, char *buf, size_t cap);

/* 0 when `key` is a placeholder the importer listed in the run's
 * @unknown_attributes (a required attribute the source does not record:
 * MLPerf's max_batch_size), 1 otherwise: a table prints it as "-". */
int jl_attrs_known(const jl_attrs *a, const char *key);

/* Whether `workload` is an LLM-like (llm, mllm) workload, which has tokens. */
int jl_attrs_is_llm(const jl_attrs *a);
int jl_attrs_is_diffusion(const jl_attrs *a);
/* The per-sample workloads, joules' addition to the trace format's three
 * (docs/trace-format.md, "Workloads"): language, vision, speech,
 * recommendation, graph and other — MLPerf's non-generative language
 * (BERT's question answering), image classification, detection and
 * segmentation, speech recognition, recommendation and graph benchmarks,
 * whose work is counted in samples (queries), with no tokens, images or
 * denoising steps. Their energy figure is energy per item (per sample),
 * their rate items per second; the latent model and the LLM-only figures
 * do not apply to them. */
int jl_attrs_is_per_sample(const jl_attrs *a);
/* Work counted in items (diffusion's images and videos, per-sample
 * workloads' samples) rather than in tokens: the item figures
 * (energy_per_item_j, items_per_s) are the run's energy and rate. */
int jl_attrs_counts_items(const jl_attrs *a);
/* The same of a workload's name (NULL: 0). */
int jl_workload_counts_items(const char *w);
/* The same as jl_attrs_is_per_sample, for a workload's name. */
int jl_workload_is_per_sample(const char *w);
/* 1 when w is a workload joules reads (the spec's llm, mllm, diffusion and
 * the per-sample ones); JL_WORKLOAD_LIST names them for messages. */
int jl_workload_is_known(const char *w);
#define JL_WORKLOAD_LIST \
    "llm, mllm, diffusion, language, vision, speech, recommendation, graph or other"

/* What power/ measures (spec 1.1 @power_scope, kept as an extra): "gpu"
 * (the default when absent: one column per GPU) or "node_ac" (one column,
 * the AC power of the whole system at the wall, whatever num_gpus says;
 * never to be divided per GPU nor compared with GPU power unannounced).
 * Any other text is returned as is (the reader rejects it). */
const char *jl_attrs_power_scope(const jl_attrs *a);
int jl_attrs_is_node_ac(const jl_attrs *a);

/* The trace format's rules on a run's attributes (docs/trace-format.md):
 * every MUST attribute present and not empty, @workload one of llm, mllm,
 * diffusion, @power_scope gpu or node_ac, num_gpus in 1..max_gpus,
 * max_batch_size >= 1. The rules the reader applies to every run and a
 * checked writer to every run it writes (jl_trace_write_options.validate).
 * Fails naming the attribute (JL_EMISSING, JL_EINVALID, JL_ELIMIT); the
 * error names no file or run (jl_error_set_context adds them). */
jl_status jl_attrs_check(const jl_attrs *a, unsigned long long max_gpus, jl_error **err);

/* A value of attribute `key` in the trace format's vocabulary (spec, "Run
 * attributes"; docs/trace-format.md, "Run attributes"): precision bf16 ->
 * bfloat16, fp16/half -> float16, fp32 -> float32, float8/e4m3 variants ->
 * fp8 (and mxfp4, nvfp4, int8, int4, unknown beyond the spec), whatever the
 * case and '-' / '_'; workload whatever the case. The one normaliser of
 * attribute values: --set and RUNS.csv on import, the trace reader's
 * summary, the selection's values. Writes the value to store into out (cap
 * bytes; any other key: value unchanged) and returns NULL, or the reason
 * the value is refused, naming the values allowed (a static string). */
const char *jl_attrs_canonical_value(const char *key, const char *value, char *out, size_t cap);

/* Names of the typed attributes, NULL-terminated, in a stable order (the
 * column order of CSV outputs). */
extern const char *const jl_attr_names[];

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
