/* joules/summary.h — one run in numbers: steady state, energy, power,
 * throughput, latency, occupancy.
 *
 * The window figures of a run are computed over one steady-state window
 * (the same window for every one of them), following the paper's §2 and the
 * spec's "Steady state" section; a few cover the whole run instead
 * (run_energy_j, run_duration_s, the request counts, TTFT and ITL
 * percentiles): docs/summary.md says which, figure by figure. The figures
 * live in one table (JL_FIGURE_TABLE) that generates the enum, the JSON/CSV
 * names, the units and a one-line description of each (jl_figure_doc), so a
 * figure is named the same way everywhere: in JSON, CSV, SLO expressions
 * (`median_itl<=100ms` resolves to median_itl_s) and docs/summary.md (whose
 * figure tables are written by hand from this one).
 *
 * A figure that cannot be computed from the data is NaN ("missing"), never 0.
 */
#ifndef JOULES_SUMMARY_H
#define JOULES_SUMMARY_H

#ifdef JOULES_EXPERIMENTAL
#include <jansson.h>
#endif
#include <stddef.h>
#include <stdio.h>

#include "joules/attrs.h"
#include "joules/error.h"
#include "joules/output.h"
#include "joules/trace.h"
#include "joules/validity.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

/* X(ID, json_name, unit, description) — the order is the column order. */
#define JL_FIGURE_TABLE(X)                                                                        \
    X(STEADY_START_S, steady_start_s, "s", "start of the steady-state window (run time)")         \
    X(STEADY_END_S, steady_end_s, "s", "end of the steady-state window (run time)")               \
    X(STEADY_DURATION_S, steady_duration_s, "s", "length of the steady-state window")             \
    X(STEADY_ENERGY_J, steady_energy_j, "J",                                                      \
      "energy of power/ in the window: all GPUs (node AC under @power_scope node_ac)")            \
    X(OUTSIDE_ENERGY_SHARE, outside_energy_share, "1",                                            \
      "share of the run's measured energy that falls outside the window")                         \
    X(RUN_ENERGY_J, run_energy_j, "J", "energy of all GPUs over the whole run")                   \
    X(RUN_DURATION_S, run_duration_s, "s", "span of the power samples")                           \
    X(ENERGY_SOURCE_DISAGREEMENT, energy_source_disagreement, "1",                                \
      "(integral of watts - energy counter) / energy counter, in the window")                     \
    X(STEADY_TOKENS, steady_tokens, "tokens", "output tokens generated in the window")            \
    X(ENERGY_PER_TOKEN_J, energy_per_token_j, "J/token", "window energy / window tokens")         \
    X(AVG_OUTPUT_TOKENS, avg_output_tokens, "tokens", "mean output tokens of completed requests") \
    X(ENERGY_PER_REQUEST_J, energy_per_request_j, "J",                                            \
      "energy per token x mean output tokens (the paper's energy per response)")                  \
    X(AVG_POWER_W, avg_power_w, "W", "window energy / window duration, all GPUs")                 \
    X(PEAK_POWER_W, peak_power_w, "W",                                                            \
      "highest power reading (sum over GPUs) in the window; peak_power_kind says how sampled")    \
    X(PEAK_TO_AVG, peak_to_avg, "1", "peak_power_w / avg_power_w")                                \
    X(IDLE_POWER_W, idle_power_w, "W", "idle power of the run's GPUs (gpu_idle_power_w x G)")     \
    X(STATIC_ENERGY_SHARE, static_energy_share, "1", "idle_power_w / avg_power_w")                \
    X(OUTPUT_THROUGHPUT_TOK_S, output_throughput_tok_s, "tokens/s",                               \
      "window tokens / window duration")                                                          \
    X(TOKENS_PER_JOULE, tokens_per_joule, "tokens/J",                                             \
      "1 / energy_per_token_j (= throughput per watt)")                                           \
    X(AVG_BATCH_SIZE, avg_batch_size, "sequences",                                                \
      "time-weighted mean of engine/running in the window")                                       \
    X(PEAK_RUNNING, peak_running, "sequences", "highest engine/running in the window")            \
    X(AVG_KV_CACHE_USAGE, avg_kv_cache_usage, "1",                                                \
      "time-weighted mean KV-cache use in the window")                                            \
    X(PEAK_KV_CACHE_USAGE, peak_kv_cache_usage, "1", "highest KV-cache use in the window")        \
    X(MEDIAN_ITL_S, median_itl_s, "s", "median inter-token latency")                              \
    X(P90_ITL_S, p90_itl_s, "s", "90th percentile inter-token latency")                           \
    X(P95_ITL_S, p95_itl_s, "s", "95th percentile inter-token latency")                           \
    X(P99_ITL_S, p99_itl_s, "s", "99th percentile inter-token latency")                           \
    X(AVG_TPOT_S, avg_tpot_s, "s",                                                                \
      "mean over completed requests of (finish - first token) / (output tokens - 1)")             \
    X(TTFT_MEDIAN_S, ttft_median_s, "s", "median time to first token")                            \
    X(TTFT_P90_S, ttft_p90_s, "s", "90th percentile time to first token")                         \
    X(COMPLETED_REQUESTS, completed_requests, "requests", "requests that finished")               \
    X(FAILED_REQUESTS, failed_requests, "requests", "requests with a NaN finish time")            \
    X(PREFILL_ENERGY_J, prefill_energy_j, "J",                                                    \
      "window energy of engine iterations that processed prompt tokens")                          \
    X(DECODE_ENERGY_J, decode_energy_j, "J",                                                      \
      "window energy of engine iterations that processed no prompt tokens")                       \
    X(PREFILL_ENERGY_SHARE, prefill_energy_share, "1",                                            \
      "energy share of iterations holding prompt tokens (prefill_energy_j / steady_energy_j)")    \
    X(ENERGY_PER_ITEM_J, energy_per_item_j, "J/item", "diffusion: batch-window energy / images")  \
    X(BATCH_LATENCY_S, batch_latency_s, "s", "diffusion: mean wall time of one batch")            \
    X(ITEMS_PER_S, items_per_s, "items/s", "diffusion: items generated / window duration")        \
    X(PERCENTILE_LATENCY_S, percentile_latency_s, "s",                                            \
      "per-sample workloads: latency at the run's @latency_percentile, per @latency_per")         \
    X(POWER_SAMPLE_COVERAGE, power_sample_coverage, "1",                                          \
      "share of the window within 1 s (or 0.75 sampling gap) of a power sample")                  \
    X(AVG_SM_CLOCK_MHZ, avg_sm_clock_mhz, "MHz", "mean SM clock in the window (GPU mean)")        \
    X(AVG_SM_UTIL, avg_sm_util, "1", "mean SM utilisation in the window (GPU mean)")              \
    X(HOST_ENERGY_J, host_energy_j, "J",                                                          \
      "energy of the rest of the system in the window (host/: CPU + DRAM, or node AC - GPUs)")    \
    X(TOTAL_ENERGY_J, total_energy_j, "J",                                                        \
      "GPU + host energy in the window (the node's AC energy where host/ records it)")            \
    X(HOST_ENERGY_PER_TOKEN_J, host_energy_per_token_j, "J/token",                                \
      "host_energy_j / window tokens")                                                            \
    X(TOTAL_ENERGY_PER_TOKEN_J, total_energy_per_token_j, "J/token",                              \
      "total_energy_j / window tokens")                                                           \
    X(RUN_TOKENS, run_tokens, "tokens", "output tokens generated over the whole run")             \
    X(RUN_ENERGY_PER_TOKEN_J, run_energy_per_token_j, "J/token",                                  \
      "whole run: run_energy_j / run_tokens")                                                     \
    X(RUN_ENERGY_PER_REQUEST_J, run_energy_per_request_j, "J",                                    \
      "whole run: run_energy_j / completed requests")                                             \
    X(RUN_ENERGY_PER_ITEM_J, run_energy_per_item_j, "J/item",                                     \
      "diffusion, whole run: run_energy_j / items generated")                                     \
    X(RUN_TOTAL_ENERGY_J, run_total_energy_j, "J",                                                \
      "whole run, whole system: as total_energy_j over the run's power span")                     \
    X(RUN_TOTAL_ENERGY_PER_TOKEN_J, run_total_energy_per_token_j, "J/token",                      \
      "run_total_energy_j / run_tokens")                                                          \
    X(RUN_TOTAL_ENERGY_PER_REQUEST_J, run_total_energy_per_request_j, "J",                        \
      "run_total_energy_j / completed requests")                                                  \
    X(PREFILL_MARGINAL_ENERGY_SHARE, prefill_marginal_energy_share, "1",                          \
      "energy prefill adds over decode-only iterations of the same batch / steady_energy_j")      \
    X(PREFILL_MARGINAL_ENERGY_SHARE_LO, prefill_marginal_energy_share_lo, "1",                    \
      "lower end of the 95 % interval of prefill_marginal_energy_share")                          \
    X(PREFILL_MARGINAL_ENERGY_SHARE_HI, prefill_marginal_energy_share_hi, "1",                    \
      "upper end of the 95 % interval of prefill_marginal_energy_share")

typedef enum {
/* clang-format off */
#define JL_X_FIG_ENUM(id, name, unit, doc) JL_FIG_##id,
    JL_FIGURE_TABLE(JL_X_FIG_ENUM)
#undef JL_X_FIG_ENUM
    JL_FIG_COUNT
    /* clang-format on */
} jl_figure;

const char *jl_figure_name(jl_figure f);
const char *jl_figure_unit(jl_figure f);
const char *jl_figure_doc(jl_figure f);
/* Exact name lookup; -1 when unknown. */
int jl_figure_lookup(const char *name);

/* How the steady-state window was found. */
#define JL_STEADY_METHOD_TABLE(X)                                                                  \
    X(REQUESTS, "requests", "request rule of the spec (ML.ENERGY method)")                         \
    X(OCCUPANCY, "occupancy", "engine/running at or above a share of its peak")                    \
    X(BATCHES, "batches", "diffusion: first batch start to last batch end")                        \
    X(WHOLE_RUN, "whole_run", "no rule applied: the whole run (flagged)")                          \
    X(SUMMARY, "summary", "figures passed through from summary/")                                  \
    X(SOURCE, "source", "the source cut the series to its steady state (@window): the whole span") \
    X(CUSTOM, "custom", "the window the caller chose (summarize --window), clipped to the run")

typedef enum {
/* clang-format off */
#define JL_X_SM_ENUM(id, name, doc) JL_STEADY_##id,
    JL_STEADY_METHOD_TABLE(JL_X_SM_ENUM)
#undef JL_X_SM_ENUM
    JL_STEADY_COUNT
    /* clang-format on */
} jl_steady_method;

const char *jl_steady_method_name(jl_steady_method m);

/* Where the window's energy came from. */
typedef enum {
    JL_ENERGY_NONE = 0, /* no energy could be computed */
    JL_ENERGY_COUNTER,  /* power/energy_j (cumulative counter) */
    JL_ENERGY_INTEGRAL, /* integral of power/watts */
    JL_ENERGY_SUMMARY   /* summary/ pass-through */
} jl_energy_source;

const char *jl_energy_source_name(jl_energy_source s);

/* A warning attached to a run: a named rule and a sentence. */
typedef struct jl_warning {
    char *rule; /* e.g. "energy_sources_agree" */
    char *message;
} jl_warning;

/* Spec 1.1 "summary/ beside time series": the figures a source published
 * for a run that also holds time series, kept beside what joules
 * recomputes from those series (docs/summary.md, "Published figures beside
 * time series"). Any source: the summary/ group's @source names it. */
typedef struct jl_published {
    char *source;                    /* summary/@source; NULL when unnamed */
    double fig[JL_FIG_COUNT];        /* as published; NaN = not published */
    double recomputed[JL_FIG_COUNT]; /* from the series; NaN = not recomputable */
    /* bit f set: recomputed[f] divides the series' energy or power by a
     * published rate (the series hold no tokens / items of their own) */
    unsigned long long with_published_rate;
    /* |relative difference| above this is marked (CSV, table): the summary
     * option published_mark, replaced by the check rule published_agrees'
     * warn threshold when the rules are applied (jl_check_annotate) */
    double mark_threshold;
    /* bit f set: recomputed[f] comes from no series but from the source's
     * own parts, recomputed by its importer (summary/<figure>_recomputed of
     * a summary-only run: CodeCarbon's energy_consumed against cpu + gpu +
     * ram energy) */
    unsigned long long from_parts;
} jl_published;

/* One figure available both ways. relative_difference = (recomputed -
 * published) / |published| (NaN when published is 0). */
typedef struct jl_disagreement {
    jl_figure figure;
    double published, recomputed, relative_difference;
    int marked;                  /* |relative_difference| > mark_threshold */
    const char *recomputed_from; /* static words: how recomputed was obtained */
} jl_disagreement;

/* host/ (format 1.2): how a run's host_energy_j and total_energy_j were
 * found (docs/summary.md, "The whole system: host/"). */
typedef enum {
    JL_HOST_NONE = 0, /* host/ gives no energy over the window */
    JL_HOST_CPU_DRAM, /* host = CPU + DRAM counters of every socket; total = GPUs + host */
    JL_HOST_NODE_AC   /* total = the node's AC energy (node_watts); host = total - GPUs */
} jl_host_method;

/* "none", "cpu_dram", "node_ac". */
const char *jl_host_method_name(jl_host_method m);

/* A run's host/ over the window: the parts behind the host figures. */
typedef struct jl_host_summary {
    char *source; /* host/@source; NULL when absent */
    jl_host_method method;
    size_t sockets;        /* S */
    double *cpu_energy_j;  /* [sockets] each package counter over the window; NULL without it */
    double *dram_energy_j; /* [sockets] each DRAM counter over the window; NULL without it */
    double
        cpu_dram_energy_j; /* sum of both over the sockets; NaN when not every counter is usable */
    double node_energy_j;  /* trapezoid integral of node_watts over the window; NaN without */
    /* node - GPUs - CPU - DRAM where all four are known: what no counter
     * sees (power-supply losses, fans, disks, network); NaN otherwise */
    double rest_energy_j;
} jl_host_summary;

/* ---- boundaries (src/summary/boundary.c; docs/summary.md, "Every figure
 * and its boundary") ------------------------------------------------------
 * What an energy figure covers: a time window and a power scope. Scopes are
 * nested: gpu (the GPUs' device power) < host (the GPUs + CPU + DRAM) < node
 * (the node's AC power at the wall) < facility (the widest measured scope x
 * PUE, accounts only); provisioned is TDP x GPUs x time. */
typedef enum {
    JL_WINDOW_STEADY,   /* the steady-state window */
    JL_WINDOW_RUN,      /* the whole run: first to last power sample */
    JL_WINDOW_PROFILED, /* a profile's window (spans/@window) */
    JL_WINDOW_CUSTOM,   /* a window of the source's own (Zeus' measurement windows) */
    JL_WINDOW_COUNT
} jl_window;

typedef enum {
    JL_SCOPE_GPU,
    JL_SCOPE_HOST,
    JL_SCOPE_NODE,
    JL_SCOPE_FACILITY,
    JL_SCOPE_PROVISIONED,
    JL_SCOPE_COUNT
} jl_scope;

typedef struct jl_boundary {
    jl_window window;
    jl_scope scope;
} jl_boundary;

/* "steady", "run", "profiled", "custom"; "gpu", "host", "node", "facility",
 * "provisioned". The lookups return -1 for an unknown name. */
const char *jl_window_name(jl_window w);
const char *jl_scope_name(jl_scope s);
int jl_window_lookup(const char *name);
int jl_scope_lookup(const char *name);

typedef struct jl_summary {
    char *file;
    char *run;
    jl_attrs attrs;
    jl_steady_method steady_method;
    jl_energy_source energy_source;
    double fig[JL_FIG_COUNT]; /* NaN = missing */
    /* per GPU, over the window: num_gpus entries each (NULL when the run
     * has no power/ samples or no GPU axis, and for summary-only runs) */
    size_t num_gpus;
    double *gpu_energy_j;
    double *gpu_avg_power_w;
    jl_warning *warnings;
    size_t n_warnings;
    /* published figures beside time series (spec 1.1), or a summary-only
     * run's figures beside what its importer recomputed from the source's
     * parts (summary/<figure>_recomputed); NULL otherwise */
    jl_published *published;
    /* The check rule window_alignment's figure (docs/check.md): the
     * longest stretch, in seconds, during which requests are in flight
     * while the total power stays below a fifth of the way from its lowest
     * level in the run to its median in the window (between two consecutive
     * samples both below). NaN without requests/ or power/watts, or when
     * power does not rise by 10 % of the window's median; power_rise_skip
     * then says why (JL_RISE_*). */
    double power_rise_lag_s;
    int power_rise_skip;
    /* host/ over the window (format 1.2); NULL for runs without host/ */
    jl_host_summary *host;
    /* The boundary of the row's headline energy figures (steady_energy_j,
     * energy_per_token_j, energy_per_request_j, energy_per_item_j,
     * avg_power_w, ...); the others' come from jl_figure_boundary(). */
    jl_boundary boundary;
    /* how peak_power_w was sampled: "instant", "average_1s" (power/@watts_kind),
     * or "unknown"; NULL when the run has no peak_power_w */
    char *peak_power_kind;
    /* the scope of total_energy_j and its per-token/run figures: host (GPUs
     * + CPU + DRAM) or node (AC at the wall); JL_SCOPE_COUNT when the run
     * has no total */
    jl_scope total_scope;
    /* Whether the figures can be trusted, and why not (issue 37,
     * joules/validity.h): the importer's reasons (run attribute
     * validity_reasons), then the summary's, then the check rules'. */
    jl_validity validity;
} jl_summary;

/* Why power_rise_lag_s is missing. */
enum {
    JL_RISE_OK = 0,
    JL_RISE_NO_REQUESTS, /* no requests/ arrival times */
    JL_RISE_NO_WATTS,    /* no power/watts samples (or not finite) */
    JL_RISE_FLAT         /* power does not rise: nothing to align */
};

typedef struct jl_summary_options {
    /* Occupancy rule (no requests/): the longest stretch where running stays
     * at or above this share of its peak. Default 0.9. */
    double occupancy_share;
    /* Counter vs integral disagreement above this (relative) is a warning.
     * Default 0.05. */
    double disagreement_warn;
    /* A drop in a cumulative energy counter smaller than this many joules is
     * jitter (held at the running maximum, warning counter_jitter); a larger
     * one is a restart or wrap, bridged, or makes the counter unusable
     * (docs/summary.md, "Counter restarts, wraps and garbage"). Default 1. */
    double counter_restart_min_drop_j;
    /* A run with published figures beside its series: a figure whose
     * recomputed value differs from the published one by more than this
     * (relative) is marked. Default 0.10, the check rule published_agrees'
     * warn threshold. */
    double published_mark;
    /* 1: every run's figures over one window the caller chose instead of
     * the steady-state rules: [window[0], window[1]] seconds on the run's
     * clock, clipped to its samples (power/, else engine/); -inf and +inf
     * reach the run's first and last sample (the whole run:
     * `summarize --window run`). steady_method is then "custom"; a
     * summary-only run keeps its source's figures (warning
     * custom_window_unused). Default 0. */
    int custom_window;
    double window[2];
} jl_summary_options;

void jl_summary_options_default(jl_summary_options *opt);

/* Summarise one run. opt may be NULL. On failure *out is NULL and *err says
 * why, naming the file and run (invalid options, out of memory). A run that
 * can be read but lacks data for some figures is not a failure: those
 * figures are NaN and a warning says why. */
jl_status jl_summarize(const jl_run *run, const jl_summary_options *opt, jl_summary **out,
                       jl_error **err);

/* 1 and *out when figure f of s carries energy or power, with the window
 * and scope it covers (the row's boundary for the headline figures); 0 for
 * a figure that carries none (a latency, a count, a duration). */
int jl_figure_boundary(const jl_summary *s, jl_figure f, jl_boundary *out);

/* What an energy figure is per. */
typedef enum { JL_PER_TOTAL, JL_PER_TOKEN, JL_PER_REQUEST, JL_PER_ITEM } jl_energy_per;

/* The energy of s at boundary b, in J (per token, request or item): window
 * steady, run or the row's own (profiled, custom), scope gpu, host, node or
 * provisioned (TDP x GPUs x the window's duration). NaN when the run cannot
 * give it: a scope or a window not measured is never 0. Facility is the
 * accounts' (x PUE): NaN here. */
double jl_summary_energy(const jl_summary *s, jl_boundary b, jl_energy_per per);
/* The widest scope s measured over window w (node, else host, else gpu),
 * or -1 when it has no energy over w. */
int jl_summary_widest_scope(const jl_summary *s, jl_window w);
/* The boundaries s can give (total energy finite), as "steady/gpu,
 * run/gpu, steady/host" into buf (cap bytes); their count. */
size_t jl_summary_boundaries_text(const jl_summary *s, char *buf, size_t cap);
/* The window's span in run time [*t0, *t1]: a series run's headline window
 * (the whole run's edges are its power samples', which the summary does not
 * keep: -1), a summary-only run's 0 to its duration. 0, or -1 when unknown. */
int jl_summary_window_span(const jl_summary *s, jl_window w, double *t0, double *t1);
#ifdef JOULES_EXPERIMENTAL
/* {"scope": ..., "window": ...}: what a row's energy covers, for the
 * documents that carry energy beside a run (frontier, choice, model). NULL
 * on out of memory. */
json_t *jl_boundary_to_json(jl_boundary b);
#endif /* JOULES_EXPERIMENTAL */

/* The figures of s available both ways (published and recomputed), in
 * figure order, into out (JL_FIG_COUNT entries); returns how many. 0 when s
 * has no published figures beside series. */
size_t jl_summary_disagreements(const jl_summary *s, jl_disagreement *out);
/* 1 when figure f of s is marked (published and recomputed differ by more
 * than the mark threshold). */
int jl_summary_figure_marked(const jl_summary *s, jl_figure f);
/* Re-mark s's disagreements at another threshold (check rule tuning). */
void jl_summary_set_mark_threshold(jl_summary *s, double threshold);

/* An empty summary: every figure NaN, no warning. */
jl_summary *jl_summary_new(void);
void jl_summary_free(jl_summary *s);
/* Append a warning (rule, printf-style message) to s. */
jl_status jl_summary_warn(jl_summary *s, const char *rule, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* A deep copy of src into *out. */
jl_status jl_summary_copy(const jl_summary *src, jl_summary **out);

/* A set of summaries, e.g. everything under a set of paths. Owns them. */
typedef struct jl_summary_list {
    jl_summary **items;
    size_t count, cap;
} jl_summary_list;

jl_status jl_summary_list_push(jl_summary_list *l, jl_summary *s);
void jl_summary_list_clear(jl_summary_list *l);

/* ---- documents (src/summary/summary_json.c, summary_csv.c) ------------ */

#ifdef JOULES_EXPERIMENTAL
/* The run object of a summary, the same shape wherever a run appears
 * (summary, frontier, pick, ...): `file`, `run`, the run attributes,
 * `steady_method`, `energy_source`, every figure of JL_FIGURE_TABLE (null
 * when missing), per-GPU arrays and `warnings`. NULL on out-of-memory. */
json_t *jl_summary_to_json(const jl_summary *s);
/* Just the identifying attributes of a run (file, run, workload, model, task,
 * gpu_model, num_gpus, precision, max_batch_size). */
json_t *jl_run_key_to_json(const jl_summary *s);

/* The joules.summary/1 document `joules summarize --json` prints:
 * {"schema", "runs": [run objects], "errors": [...]}. errors may be NULL. */
json_t *jl_summary_document(const jl_summary_list *l, const jl_error_list *errors);
#endif /* JOULES_EXPERIMENTAL */
/* jl_summary_document's text, without jansson: the bytes jl_json_dump writes for
 * that tree (no provenance block); *len (may be NULL) its length; caller
 * frees. NULL on out of memory. */
char *jl_summary_document_text(const jl_summary_list *l, const jl_error_list *errors, size_t *len);
/* That document (with errors, and the provenance of the document writers'
 * hook) written whole to path ("-" = stdout) without building its tree:
 * the same bytes as jl_write_json of jl_summary_document. */
jl_status jl_write_summary_json(const char *path, const jl_summary_list *l,
                                const jl_error_list *errors, jl_error **err);

/* CSV of summaries: the key attributes, method, figures (units in column
 * names: J/token and J/item figures are separate columns), warnings, then
 * every other attribute (typed ones, then the extra attributes of any run,
 * in order of first appearance); one row per run, full precision (%.17g),
 * empty cell for missing. */
jl_status jl_write_summaries_csv(const char *path, const jl_summary_list *l, jl_error **err);
/* The same into an open stream (for "-"). */
jl_status jl_fprint_summaries_csv(FILE *f, const jl_summary_list *l);

/* CSV of summaries with a choice of names (jl_write_summaries_csv is
 * JL_NAMES_JOULES). */
jl_status jl_write_summaries_csv_named(const char *path, const jl_summary_list *l, jl_names names,
                                       jl_error **err);
/* The same columns and cells as typed columns (joules/output.h, jl_table:
 * figures and number attributes are numbers, num_gpus and the other whole
 * attributes integers where no run lacks them), for programs that build a
 * table without reading CSV text back (the Python module). Free with
 * jl_table_free. JL_ENOMEM on out of memory. */
jl_status jl_summaries_table(const jl_summary_list *l, jl_names names, jl_table **out,
                             jl_error **err);
jl_status jl_fprint_summaries_csv_named(FILE *f, const jl_summary_list *l, jl_names names);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
