/* joules/import.h — importing published summaries as trace runs.
 *
 * jl_import_mlenergy() reads the ML.ENERGY Leaderboard's published data (a
 * folder with index.json, models/<org>__<model>__<task>.json and
 * tasks/<task>.json) and returns one summary-only jl_run per configuration
 * (LLM, MLLM and diffusion alike), ready for jl_trace_write() or
 * jl_summarize(). Every field is mapped to a spec attribute, a summary/
 * attribute, a time series or an extra attribute; a field the importer does
 * not know is kept as an extra attribute (objects and arrays as JSON text)
 * and reported as a note; nothing is dropped without a note. The mapping is
 * in docs/import.md.
 *
 * Earlier versions of the data also carry per configuration `timelines`
 * (power_instant, power_average, temperature, batch_size: {"timestamps",
 * "values"}) and `kv_cache_usage_percent`; they become power/watts,
 * power/watts_avg, gpu/temp_c, engine/running and engine/kv_cache_usage
 * (or the summary figure avg_kv_cache_usage when a single number).
 *
 * Run names are deterministic: <org>__<model>__<task>__<gpu>x<n>__b<bs>,
 * plus __u<ulysses>r<ring> for diffusion, plus __dup<k> for the k-th
 * occurrence of the same name (re-measurements of one configuration).
 *
 * Defensive by design (a fuzz target): sizes are checked before reading,
 * every type is checked, and every failure is an error naming the file and
 * the JSON field (e.g. `configurations[12].num_gpus`). A bad configuration
 * is reported and skipped; the others are imported.
 *
 * Ownership: jl_import_result owned by the caller, freed with
 * jl_import_result_free() (NULL accepted); it owns its runs.
 */
#ifndef JOULES_IMPORT_H
#define JOULES_IMPORT_H

#include <stddef.h>

#include "joules/error.h"
#include "joules/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct jl_import_options {
    size_t max_file_bytes;   /* refuse JSON files larger than this; default 512 MiB */
    size_t max_configs;      /* per file; default 1,000,000 */
    size_t max_series;       /* samples per timeline; default 50,000,000 */
    size_t max_files;        /* model files; default 100,000 */
} jl_import_options;

void jl_import_options_default(jl_import_options *opt);

/* Something worth knowing that is not an error: an unknown field kept, a
 * null skipped, a duplicate configuration. Notes with the same text are
 * counted once, with the first file named. */
typedef struct jl_import_note {
    char *file;      /* first file where it happened */
    char *field;     /* JSON field path */
    char *message;
    size_t count;    /* how many times */
} jl_import_note;

typedef struct jl_import_result {
    jl_run **runs;          /* in (file, configuration) order */
    size_t n_runs;
    size_t n_files;         /* model (or task) files read */
    size_t n_duplicates;    /* runs named __dupK */
    size_t n_with_timelines;
    char *source;           /* e.g. "ML.ENERGY Leaderboard data, last_updated 2026-02-16" */
    jl_import_note *notes;
    size_t n_notes;
} jl_import_result;

/* Import the folder `dir`. Errors that stop one file or configuration go
 * to `errors` (file and field named) and the rest is imported; the return
 * is JL_OK unless nothing could be imported at all (index.json unreadable,
 * no model files) or memory ran out, in which case *out is NULL. */
jl_status jl_import_mlenergy(const char *dir, const jl_import_options *opt,
                             jl_import_result **out, jl_error_list *errors);

/* The same from in-memory documents (for tests and fuzzing): index.json
 * text (may be NULL: workloads then guessed from the fields) and one model
 * file's text named `name`. */
jl_status jl_import_mlenergy_buffer(const char *index_json, size_t index_len,
                                    const char *model_json, size_t model_len,
                                    const char *name, const jl_import_options *opt,
                                    jl_import_result **out, jl_error_list *errors);

/* MLPerf Inference power runs (docs/import.md, "MLPerf Power"). Each path
 * is a run folder holding mlperf_log_detail.txt (LoadGen) and spl.txt
 * (SPEC PTDaemon; or ../power/spl.txt), or any folder above such run
 * folders (every one below is imported; ranging/ and accuracy/ skipped).
 * One run each, @power_scope "node_ac" (one power column: the system's AC
 * power at the wall), @window "steady_state_only": power/ holds the samples
 * strictly between LoadGen's power_begin and power_end with Watts > 0, as
 * the MLPerf submission checker takes them, times from power_begin; summary/
 * holds the checker's figures (mean of those samples, energy = mean x window
 * length, samples per joule, energy per sample or per query) with @source.
 * A bad run is reported (file, line, field) and skipped. */
jl_status jl_import_mlperf_power(const char *const *paths, size_t n_paths,
                                 const jl_import_options *opt, jl_import_result **out,
                                 jl_error_list *errors);

/* The same from the documents in memory (tests, fuzzing). summary_txt
 * (mlperf_log_summary.txt, NUL-terminated) may be NULL; `dir` is the run's
 * folder path, from which system, benchmark and scenario are read. */
jl_status jl_import_mlperf_power_buffer(const char *spl_txt, size_t spl_len,
                                        const char *detail_txt, size_t detail_len,
                                        const char *summary_txt, const char *dir,
                                        const jl_import_options *opt, jl_import_result **out,
                                        jl_error_list *errors);

/* ML.ENERGY Leaderboard v2 data (leaderboard-v2 data/: per-configuration
 * JSON under {family}/{task}/{GPU}/{org}/{model}/, models.json per task) and
 * the v1 (2023) legacy/<GPU>_<task>_benchmark.csv rows, as summary-only runs
 * with summary/@source naming the release (docs/import.md). `dir` is the
 * data/ folder, a checkout holding it, or a folder of v1 CSV files. */
jl_status jl_import_mlenergy_v2(const char *dir, const jl_import_options *opt,
                                jl_import_result **out, jl_error_list *errors);

/* `joules import mlenergy DIR`: v3 when DIR holds index.json, else v2/v1. */
jl_status jl_import_mlenergy_auto(const char *dir, const jl_import_options *opt,
                                  jl_import_result **out, jl_error_list *errors);

/* One v2 configuration file or one v1 CSV from memory (tests, fuzzing):
 * relpath is its path relative to data/ ("llm_text_generation/chat/<GPU>/
 * <org>/<model>/bs64+tp1+pp1.json") or a "<GPU>_<task>_benchmark.csv" name. */
jl_status jl_import_mlenergy_v2_buffer(const char *text, size_t len, const char *relpath,
                                       const jl_import_options *opt, jl_import_result **out,
                                       jl_error_list *errors);

/* ML.ENERGY Benchmark run directories (docs/import.md, "ML.ENERGY
 * Benchmark"): each path is a run folder holding results.json (and, for
 * LLM/MLLM, prometheus.json) or any folder above run folders. One run each
 * with power/ (Zeus device_instant, sample-and-hold, and device_average),
 * gpu/temp_c, requests/ (when request_rate is inf), itl/, engine/ (from the
 * Prometheus snapshots) or batches/ (diffusion), and the harness's own
 * figures in summary/ with @source. Read with a streaming parser: memory
 * follows one run's series, not the file size. */
jl_status jl_import_mlenergy_benchmark(const char *const *paths, size_t n_paths,
                                       const jl_import_options *opt, jl_import_result **out,
                                       jl_error_list *errors);

/* The same from documents in memory; prometheus may be NULL; dir is the run
 * folder's path (workload, task, GPU and parameters are read from it). */
jl_status jl_import_mlenergy_benchmark_buffer(const char *results, size_t results_len,
                                              const char *prometheus, size_t prometheus_len,
                                              const char *dir, const jl_import_options *opt,
                                              jl_import_result **out, jl_error_list *errors);

void jl_import_result_free(jl_import_result *r);

#ifdef __cplusplus
}
#endif
#endif
