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
#include "joules/trace_write.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN

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
    jl_run **runs;          /* in (file, configuration) order; NULL when the
                             * importer wrote them itself (n_runs counts them) */
    size_t n_runs;
    size_t n_files;         /* model (or task) files read; logs read */
    size_t n_duplicates;    /* runs named __dupK */
    size_t n_with_timelines;
    char *source;           /* e.g. "ML.ENERGY Leaderboard data, last_updated 2026-02-16" */
    jl_import_note *notes;
    size_t n_notes;
    /* Set by every importer other than mlenergy (NULL/0 there): what else
     * the import found, as key/value pairs for the --json document's
     * "details" (e.g. rows, gpus, timezone), and a short parenthesised
     * text for the CLI's one-line report. */
    jl_kv *details;
    size_t n_details;
    char *detail_text;
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

void jl_import_result_free(jl_import_result *r);

/* ---- nvidia-smi CSV logs -------------------------------------------------- */

/* `nvidia-smi --query-gpu=FIELDS --format=csv[,noheader][,nounits] -lms N`:
 * any subset of fields with `timestamp` and one power field. The mapping
 * (units, missing values, GPUs, time zones, runs, requests) is in
 * docs/import.md, "nvidia-smi". */
typedef struct jl_import_nvsmi_options {
    const char *runs_csv;   /* RUNS.csv (run,start,end,...); NULL: one run per log */
    const char *columns;    /* field names of a noheader log, comma-separated; NULL */
    const char *timezone;   /* "UTC", "+05:30", "America/Chicago"; NULL: local zone */
    int sort;               /* sort rows by time instead of refusing time going back */
    const jl_kv *set;       /* KEY=VALUE attributes for every run (is_number ignored) */
    size_t n_set;
    size_t max_rows;        /* per log; default 100,000,000 */
    size_t max_gpus;        /* default 1024 */
    size_t max_request_bytes; /* one requests JSON; default 1 GiB */
} jl_import_nvsmi_options;

void jl_import_nvsmi_options_default(jl_import_nvsmi_options *opt);

/* Import n logs. Each log is read on its own (a bad log is an error naming
 * file:line:column and the others are imported). Without runs_csv each log
 * is one run named after its file; with it, each row of RUNS.csv is one run
 * cut from the log that covers its window. JL_OK unless nothing could be
 * imported (then *out is NULL) or a usage error (bad zone, bad --set, an
 * unreadable RUNS.csv: JL_EUSAGE or the error's code, in `errors`). */
jl_status jl_import_nvidia_smi(const char *const *logs, size_t n,
                               const jl_import_nvsmi_options *opt,
                               jl_import_result **out, jl_error_list *errors);

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
                                      const jl_import_nvsmi_options *opt,
                                      jl_import_result **out, jl_error_list *errors);

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
    const char *name;        /* "nvidia-smi" */
    const char *summary;     /* one line, for `joules import --list` */
    const char *paths;       /* what PATH... is, e.g. "LOG.csv..." or "DIR" */
    const char *description; /* paragraphs for `joules import FORMAT --help` */
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
} jl_importer;

/* The table, in a stable order (`mlenergy` first). */
const jl_importer *const *jl_importers(size_t *n);
const jl_importer *jl_importer_find(const char *name);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
