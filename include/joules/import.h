/* joules/import.h — importing other formats as trace runs.
 *
 * Every importer is one library call that builds jl_run objects in memory
 * (a jl_import_result), ready for jl_trace_write() or jl_summarize(), and
 * one row of the importer table (jl_importers()), which `joules import`
 * reads: name, one line of help, its options, and a generic entry point.
 * Importers so far: `mlenergy` (below) and `nvidia-smi` (further below).
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
 * (or the summary figure avg_kv_cache_usage when a single number). Such a
 * run keeps its published figures in summary/ (with @source) beside the
 * series and is marked @window = steady_state_only (spec 1.1): the writer
 * of these timelines kept only the steady-state points.
 *
 * index.json is optional (a folder of only models/ or only tasks/ imports
 * with a note; workloads then come from the task name and the fields).
 * Duplicate keys in an object: equal values are a note, differing values
 * an error naming the file, the line and the key.
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

#ifdef JOULES_EXPERIMENTAL
#include <jansson.h>
#endif
#include <stddef.h>

#include "joules/error.h"
#include "joules/trace.h"
#include "joules/trace_write.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

typedef struct jl_import_options {
    size_t max_file_bytes; /* refuse JSON files larger than this; default 512 MiB */
    size_t max_configs;    /* per file; default 1,000,000 */
    size_t max_series;     /* samples per timeline; default 50,000,000 */
    size_t max_files;      /* model files; default 100,000 */
    /* Power timelines of multi-GPU configurations: 0 (default) each value is
     * one GPU's reading (the only public writer merged the points of all
     * GPUs into one list), repeated on every GPU column; 1 the source says a
     * value is the sum over the GPUs: each column holds value / num_gpus.
     * docs/import.md, "Timelines". */
    int timeline_power_is_sum;
} jl_import_options;

void jl_import_options_default(jl_import_options *opt);

/* Something worth knowing that is not an error: an unknown field kept, a
 * null skipped, a duplicate configuration. Notes with the same text are
 * counted once, with the first file named. */
typedef struct jl_import_note {
    char *file;  /* first file where it happened */
    char *field; /* JSON field path */
    char *message;
    size_t count; /* how many times */
} jl_import_note;

/* A run found and not imported, and why (an MLPerf ranging run, a run
 * without power samples, ...): the --json document's "skipped". */
typedef struct jl_import_skip {
    char *path;
    char *reason;
} jl_import_skip;

typedef struct jl_import_result {
    jl_run **runs; /* in (file, configuration) order; NULL when the
                             * importer wrote them itself (n_runs counts them) */
    size_t n_runs;
    size_t n_files;      /* model (or task) files read; logs read */
    size_t n_duplicates; /* runs named __dupK */
    size_t n_with_timelines;
    char *source; /* e.g. "ML.ENERGY Leaderboard data, last_updated 2026-02-16" */
    jl_import_note *notes;
    size_t n_notes;
    /* Set by every importer other than mlenergy (NULL/0 there): what else
     * the import found, as key/value pairs for the --json document's
     * "details" (e.g. rows, gpus, timezone), and a short parenthesised
     * text for the CLI's one-line report. */
    jl_kv *details;
    size_t n_details;
    char *detail_text;
    /* Runs found and left out, each with its reason (also a note). When
     * nothing is imported, each is an error of its own before "no run
     * could be imported", so a failed import says why run by run. */
    jl_import_skip *skipped;
    size_t n_skipped;
} jl_import_result;

/* Import the folder `dir`. Errors that stop one file or configuration go
 * to `errors` (file and field named) and the rest is imported; the return
 * is JL_OK unless nothing could be imported at all (index.json unreadable,
 * no model files) or memory ran out, in which case *out is NULL. */
jl_status jl_import_mlenergy(const char *dir, const jl_import_options *opt, jl_import_result **out,
                             jl_error_list *errors);

/* The same from in-memory documents (for tests and fuzzing): index.json
 * text (may be NULL: workloads then guessed from the fields) and one model
 * file's text named `name`. */
jl_status jl_import_mlenergy_buffer(const char *index_json, size_t index_len,
                                    const char *model_json, size_t model_len, const char *name,
                                    const jl_import_options *opt, jl_import_result **out,
                                    jl_error_list *errors);

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
jl_status jl_import_mlperf_power_buffer(const char *spl_txt, size_t spl_len, const char *detail_txt,
                                        size_t detail_len, const char *summary_txt, const char *dir,
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

#ifdef JOULES_EXPERIMENTAL
/* The `joules import --json` document (schema joules.import/1; docs/import.md):
 * format (the importer's name), source, output (the trace file written),
 * the counts, notes and the importer's details. The caller adds "errors"
 * (as every document does: jl_errors_to_json) and owns the tree. */
json_t *jl_import_document(const jl_import_result *r, const char *format, const char *output);
#endif /* JOULES_EXPERIMENTAL */
/* jl_import_document's text, without jansson: the bytes jl_json_dump writes for
 * that tree (no provenance block); *len (may be NULL) its length; caller
 * frees. NULL on out of memory. */
char *jl_import_document_text(const jl_import_result *r, const char *format, const char *output,
                              size_t *len);

/* What an input that is not a trace looks like, for an analysis command
 * handed a file it must import first: 1 when `path` (a file or a folder)
 * is recognised — format: the importer that reads it ("nvidia-smi",
 * "mlperf-power", "mlenergy", "mlenergy-benchmark", "codecarbon", "zeus";
 * empty when none does,
 * e.g. the nvidia-smi table), what: what the file is and what to do,
 * command: the `joules import ...` line to run (empty when none). Reads
 * only the first 4 KiB of a file; a folder is walked at most 8 levels and
 * 20,000 entries deep. 0 when nothing is recognised (an HDF5 file too). */
typedef struct jl_import_guess {
    char format[32];
    char what[512];
    char command[1400];
} jl_import_guess;
int jl_import_guess_path(const char *path, jl_import_guess *g);

/* The bytes an input gives its importer: a regular file's size, a folder's
 * regular files' to 8 levels down (each file and folder once per device
 * and inode: links that loop or repeat are not counted again); 0 when
 * nothing can be stat'ed. What `import --each` balances its shares by. */
double jl_import_input_bytes(const char *path);

/* ---- nvidia-smi CSV logs -------------------------------------------------- */

/* `nvidia-smi --query-gpu=FIELDS --format=csv[,noheader][,nounits] -lms N`:
 * any subset of fields with `timestamp` and one power field. The mapping
 * (units, missing values, GPUs, time zones, runs, requests) is in
 * docs/import.md, "nvidia-smi". */
typedef struct jl_import_nvsmi_options {
    const char *runs_csv; /* RUNS.csv (run,start,end,...); NULL: one run per log */
    const char *columns;  /* field names of a noheader log, comma-separated; NULL */
    const char *timezone; /* "UTC", "+05:30", "America/Chicago"; NULL: local zone */
    int sort;             /* sort rows by time instead of refusing time going back */
    /* The power field's lag compensation (docs/import.md, "Power"): NaN
     * (the default) auto: the 1-s-average power.draw, each reading placed
     * at the middle of its second (its time - 0.5 s; no shift where
     * power.draw is instantaneous, before Ampere); 0: off (power.draw.instant
     * where logged, times as logged); > 0: the average shifted so many s. */
    double power_lag_s;
    const jl_kv *set; /* KEY=VALUE attributes for every run (is_number ignored) */
    size_t n_set;
    size_t max_rows;          /* per log; default 100,000,000 */
    size_t max_gpus;          /* default 1024 */
    size_t max_request_bytes; /* one requests JSON; default 1 GiB */
    /* --runs auto: runs cut at the rises and falls of the total power
     * (docs/import.md, "--runs auto"); the runs found are written to
     * runs_out as a RUNS.csv to edit (NULL: `output` with .runs.csv for its
     * extension, or RUNS.auto.csv in the working folder without one),
     * replaced only with force. When a required
     * attribute is given by no --set, the import stops there (JL_EMISSING,
     * the error naming the columns to fill and the command to re-run). */
    int runs_auto;
    const char *runs_out;
    const char *output; /* the trace being written (for the re-run command); NULL */
    int force;
    double auto_min_run_s; /* default 5: shorter rises are dropped */
    double auto_merge_s;   /* default 1: shorter dips are merged */
} jl_import_nvsmi_options;

void jl_import_nvsmi_options_default(jl_import_nvsmi_options *opt);

/* Import n logs. Each log is read on its own (a bad log is an error naming
 * file:line:column and the others are imported). Without runs_csv each log
 * is one run named after its file; with it, each row of RUNS.csv is one run
 * cut from the log that covers its window. JL_OK unless nothing could be
 * imported (then *out is NULL) or a usage error (bad zone, bad --set, an
 * unreadable RUNS.csv: JL_EUSAGE or the error's code, in `errors`). */
jl_status jl_import_nvidia_smi(const char *const *logs, size_t n,
                               const jl_import_nvsmi_options *opt, jl_import_result **out,
                               jl_error_list *errors);

/* The same, written to w as the logs are read: each run's series go to
 * the file a chunk at a time, so memory is bounded by w's chunk_rows (times
 * the runs open at once), not by the logs' size. The result's runs are
 * NULL (n_runs counts the runs written). With opt->sort, or RUNS.csv over
 * several logs, the logs are imported in memory and then written. A run
 * that fails is removed from the file; JL_EIO when the file cannot be
 * written. */
jl_status jl_import_nvidia_smi_write(const char *const *logs, size_t n,
                                     const jl_import_nvsmi_options *opt, jl_trace_writer *w,
                                     jl_import_result **out, jl_error_list *errors);

/* The same from buffers (fuzzing, tests): one log named `name` and an
 * optional RUNS.csv text (runs_csv in opt is ignored; requests columns
 * are not read). */
jl_status jl_import_nvidia_smi_buffer(const char *log, size_t len, const char *name,
                                      const char *runs_csv, size_t runs_len,
                                      const jl_import_nvsmi_options *opt, jl_import_result **out,
                                      jl_error_list *errors);

/* The short GPU model of a device name, by one table every importer uses:
 * "NVIDIA H100 80GB HBM3" -> "H100", "NVIDIA A100-SXM4-80GB" -> "A100",
 * "Tesla V100-SXM2-16GB" -> "V100". Writes into buf (cap bytes) and returns
 * 1 when the table knows the name, 0 when not (buf then holds the name
 * without a leading "NVIDIA "/"Tesla "). */
int jl_gpu_model_from_name(const char *name, char *buf, size_t cap);

/* ---- the importer table ---------------------------------------------------- */

/* An option of one importer, for `joules import FORMAT --help` and the
 * CLI's option parser: `--name ARG` (arg NULL: a flag). */
typedef struct jl_importer_option {
    const char *name;
    const char *arg;
    const char *help;
} jl_importer_option;

/* An option as given, in order (a flag's value is ""). */
typedef struct jl_importer_arg {
    const char *name;
    const char *value;
} jl_importer_arg;

typedef struct jl_importer {
    const char *name;                  /* "nvidia-smi" */
    const char *summary;               /* one line, for `joules import --list` */
    const char *paths;                 /* what PATH... is, e.g. "LOG.csv..." or "DIR" */
    const char *description;           /* paragraphs for `joules import FORMAT --help` */
    const jl_importer_option *options; /* terminated by a NULL name */
    size_t min_paths, max_paths;       /* max 0 = any number */
    /* Import: the paths, the options as given. Usage errors (a bad option
     * value) come back as JL_EUSAGE with the error in `errors`. */
    jl_status (*run)(const char *const *paths, size_t n_paths, const jl_importer_arg *args,
                     size_t n_args, jl_import_result **out, jl_error_list *errors);
    /* Optional: import and write the runs to w as they are read (memory
     * bounded by the output's chunking). NULL: the CLI writes run()'s runs. */
    jl_status (*write)(const char *const *paths, size_t n_paths, const jl_importer_arg *args,
                       size_t n_args, jl_trace_writer *w, jl_import_result **out,
                       jl_error_list *errors);
    /* 1: the CLI writes the runs with Zstandard (level 1) instead of deflate
     * (long ITL series: ~3x faster for the same size; h5py then needs
     * hdf5plugin, joules reads it natively). */
    int write_zstd;
    /* Optional: add to run RUN of the existing trace TRACE instead of
     * writing a new file (`joules import FORMAT PATH --into TRACE.h5:RUN`,
     * e.g. a profiler's spans); run and write are then NULL. */
    jl_status (*into)(const char *const *paths, size_t n_paths, const jl_importer_arg *args,
                      size_t n_args, const char *trace, const char *run, jl_import_result **out,
                      jl_error_list *errors);
} jl_importer;

/* The table, in a stable order (`mlenergy` first). */
const jl_importer *const *jl_importers(size_t *n);
const jl_importer *jl_importer_find(const char *name);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
