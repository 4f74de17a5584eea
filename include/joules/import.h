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

void jl_import_result_free(jl_import_result *r);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
