/* joules/ceiling.h — which ceiling binds a run's achieved batch.
 *
 * Three things cap the running batch of an LLM server (paper §3.1, §3.2,
 * §4.5, §5.3):
 *
 *   config    the configured cap (max_batch_size, vLLM's max_num_seqs);
 *   memory    the KV cache: the sequences whose context fits in the memory
 *             left after the weights;
 *   upstream  something before the GPU (CPU-side preprocessing, request
 *             supply) that does not hand the engine enough sequences.
 *
 * Memory ceiling, in sequences (docs/diagnose.md gives every rule):
 *
 *   measured    b / avg_kv_cache_usage when the trace records KV-cache use
 *               (the sequences that would fill the pool at the measured
 *               footprint per sequence);
 *   arithmetic  (G · M · memory_share − W − G · reserve) / (kv · c)
 *               G GPUs of M bytes (gpu_memory_bytes, else descriptor), W
 *               weight bytes, kv KV bytes per token (trace attribute, else
 *               descriptor), c the mean context per running sequence =
 *               mean input + half the mean output tokens. Mean input: the
 *               run's avg_input_tokens / mean_input_tokens attribute, else a
 *               documented per-task default (an assumption, flagged).
 *
 * Classification of one run with r = achieved / cap, M the memory ceiling,
 * k the mean KV-cache use (when recorded):
 *
 *   r >= at_cap (0.95)                                   -> config
 *   else k >= kv_full (0.90), or M <= memory_match·b     -> memory
 *   else r >= churn_floor (0.85) and memory has room     -> config
 *   else r <  churn_floor and memory has room            -> upstream
 *   otherwise                                            -> unknown
 *
 * "Memory has room": k <= kv_room (0.80) when recorded, else M > memory_match·b.
 * k is the measured mean KV-cache use: the summary's avg_kv_cache_usage
 * (published by the source, or from engine/kv_cache_usage), else a run
 * attribute holding vLLM's Prometheus gauge (vllm:kv_cache_usage_perc,
 * vllm:gpu_cache_usage_perc, with or without "vllm:"; a share 0..1). The
 * memory-ceiling arithmetic is evidence beside it, not a precondition.
 *
 * Ownership: jl_batch_ceiling_clear() / jl_group_ceiling_clear() release the
 * evidence strings (NULL-safe on zeroed structs). The library never prints.
 */
#ifndef JOULES_CEILING_H
#define JOULES_CEILING_H

#include <stddef.h>

#include "joules/descriptors.h"
#include "joules/error.h"
#include "joules/summary.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

#define JL_BATCH_LIMIT_TABLE(X)                                                               \
    X(CONFIG, "config", "the configured cap (max_batch_size)")                                \
    X(MEMORY, "memory", "KV-cache capacity")                                                  \
    X(UPSTREAM, "upstream", "not enough sequences reach the GPU (CPU preprocessing, supply)") \
    X(UNKNOWN, "unknown", "not enough evidence")

typedef enum {
/* clang-format off */
#define JL_X_BL_ENUM(id, name, doc) JL_BATCH_LIMIT_##id,
    JL_BATCH_LIMIT_TABLE(JL_X_BL_ENUM)
#undef JL_X_BL_ENUM
    JL_BATCH_LIMIT_COUNT
    /* clang-format on */
} jl_batch_limit;

const char *jl_batch_limit_name(jl_batch_limit l);

typedef struct jl_ceiling_options {
    double memory_share;          /* usable share of GPU memory (0.9, vLLM's default) */
    double reserve_bytes_per_gpu; /* activations, CUDA graphs, ... (default 0) */
    double at_cap;                /* r at or above: the cap binds (0.95) */
    double churn_floor;           /* r at or above with memory room: still the cap (0.85) */
    double kv_full;               /* mean KV use at or above: memory binds (0.90) */
    double kv_room;               /* mean KV use at or below: memory has room (0.80) */
    double memory_match;          /* M <= memory_match · b: memory binds (1.25) */
    /* The regime-break rule of the batch-size model (jl_model_options
     * regime_ratio, default 0.85; 0 = off): runs at a sweep end measured in
     * another regime neither set nor contradict an upstream ceiling. */
    double regime_ratio;
} jl_ceiling_options;

void jl_ceiling_options_default(jl_ceiling_options *o);

/* The memory ceiling of a configuration. */
typedef struct jl_memory_ceiling {
    double value;       /* sequences; NaN when unknown */
    const char *method; /* "measured", "arithmetic", "none" */
    /* arithmetic (also filled when the measured method wins, for comparison) */
    double arithmetic_value; /* sequences; NaN when not computable */
    double num_gpus;
    double gpu_memory_bytes; /* per GPU */
    double usable_bytes;     /* G · M · memory_share − G · reserve */
    double weight_bytes;
    double kv_bytes_per_token;      /* per token of context, window-limited layers
                                     counted at min(context, window)/context */
    double kv_bytes_per_token_full; /* every attention layer at full context */
    long window_layers, window;     /* window-limited layers of the model, window
                                     (tokens); 0 none / unknown */
    double kv_capacity_tokens;      /* (usable − W)/kv, or the trace's kv_pool_tokens */
    double mean_input_tokens, mean_output_tokens;
    double context_tokens;    /* per running sequence: input + output/2 */
    const char *input_source; /* "attribute", "task_default", "none" */
    /* measured */
    double kv_usage;            /* mean KV-cache use in the window; NaN unknown */
    const char *kv_source;      /* static: "published", "engine/kv_cache_usage",
                                     "prometheus:<gauge>" (a run attribute), "none" */
    double tokens_per_sequence; /* measured footprint: kv_usage · pool / b; NaN */
    char *missing;              /* what the arithmetic lacked, or NULL */
} jl_memory_ceiling;

/* Memory ceiling of run s as measured, and what the arithmetic gives with
 * num_gpus replaced by `gpus` (<= 0: the run's own). With another GPU count
 * the measured footprint per sequence (when recorded) is kept and only the
 * capacity is rescaled by the arithmetic. JL_ENOMEM only. */
jl_status jl_memory_ceiling_run(const jl_summary *s, const jl_descriptors *d,
                                const jl_ceiling_options *opt, long gpus, jl_memory_ceiling *out);
void jl_memory_ceiling_clear(jl_memory_ceiling *m);

/* 1 when m's value rests on an assumption: the arithmetic with the per-task
 * default input length (input_source "task_default"). Every text quoting
 * such a ceiling says "assumed". */
int jl_memory_ceiling_assumed(const jl_memory_ceiling *m);

/* The per-task default of the mean input tokens (documented assumptions);
 * NaN for an unknown task. */
double jl_task_default_input_tokens(const char *task);

typedef struct jl_batch_ceiling {
    jl_batch_limit limit;
    double ceiling;  /* the binding ceiling (sequences): the cap (config),
                             the memory ceiling (memory), the achieved batch
                             (upstream: what got through); NaN (unknown) */
    double achieved; /* avg_batch_size */
    double cap;      /* max_batch_size */
    double achieved_over_cap;
    double kv_usage_avg, kv_usage_peak;
    const char *kv_source; /* where kv_usage_avg comes from (jl_memory_ceiling) */
    jl_memory_ceiling memory;
    /* 1 when the evidence points two ways (KV use between room and full,
     * the measured KV use against the descriptor arithmetic, KV peaks at
     * full, or the series' batch against the published one on another side
     * of a threshold); the evidence says which */
    int mixed;
    /* How far the batch could grow before memory binds: memory.value /
     * achieved (NaN when unknown). */
    double memory_headroom;
    char *evidence; /* the numbers, in words */
} jl_batch_ceiling;

/* Classify one run (LLM/MLLM; a diffusion run is `config`: the batch is the
 * batch size). d may be NULL; opt may be NULL (defaults). JL_ENOMEM only. */
jl_status jl_batch_ceiling_run(const jl_summary *s, const jl_descriptors *d,
                               const jl_ceiling_options *opt, jl_batch_ceiling *out);
void jl_batch_ceiling_clear(jl_batch_ceiling *c);

/* The ceiling a group's fit may predict up to: min(memory ceiling, detected
 * upstream ceiling). runs share (model, task, gpu_model, num_gpus,
 * precision). Upstream is detected (1) from runs classified `upstream`
 * (their largest achieved batch) and (2) from a throughput collapse along the
 * sweep: going to the next larger cap, the achieved batch grows by 1.5x or
 * more while throughput falls by more than 5 % and power per GPU falls — the
 * engine holds more sequences but the GPU gets less work (paper §3.2).
 * Runs the regime rule sets apart (opt->regime_ratio) take no part. An
 * upstream ceiling cannot be below a batch measured in the same regime:
 * when a run with a larger achieved batch has more throughput than the run
 * the evidence comes from (at the collapse: the smaller run), throughput
 * recovered and there is no upstream ceiling (the reason says so);
 * otherwise the ceiling is the largest achieved batch measured (at least the
 * evidence run's): predictions stop at the data. */
typedef struct jl_group_ceiling {
    double value;                   /* min of the two; +inf when neither applies */
    double memory;                  /* median of the runs' memory ceilings; NaN */
    double upstream;                /* detected upstream ceiling; NaN when none */
    const jl_summary *upstream_run; /* the run at which it was detected */
    size_t n_regime_excluded;       /* runs set apart by the regime rule */
    const char *binding;            /* "memory", "upstream", "none" */
    char *reason;                   /* in words */
} jl_group_ceiling;

jl_status jl_group_ceiling_compute(const jl_summary *const *runs, size_t n, const jl_descriptors *d,
                                   const jl_ceiling_options *opt, jl_group_ceiling *out);
void jl_group_ceiling_clear(jl_group_ceiling *g);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
