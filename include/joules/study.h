/* joules/study.h — from paths on disk to a set of run summaries.
 *
 * A study is everything the user pointed joules at: files and directories
 * (searched recursively for *.h5), read in a deterministic order (paths
 * sorted), each run summarised. One bad file or run never stops the others:
 * its error is appended to the error list and the rest goes on.
 *
 * Selection (`--where KEY=V1,V2`, `--where 'KEY>=N'`, `--exclude ...`)
 * filters runs by their attributes, so every analysis can be restricted the way the paper
 * restricts each comparison.
 */
#ifndef JOULES_STUDY_H
#define JOULES_STUDY_H

#include <stddef.h>

#include "joules/check.h"
#include "joules/descriptors.h"
#include "joules/error.h"
#include "joules/summary.h"
#include "joules/trace.h"

#ifdef __cplusplus
extern "C" {
#endif
JL_API_BEGIN
/* ---- stable (docs/library.md, "Stable and experimental") ---- */

/* Expand paths: a file is taken as is, a directory is searched recursively
 * for regular files ending in ".h5" (sorted). A path that does not exist or
 * a directory without traces is an error in `errors`. The result is sorted
 * and free of duplicates; free with jl_paths_free(). */
jl_status jl_collect_paths(const char *const *paths, size_t n, char ***files, size_t *n_files,
                           jl_error_list *errors);
void jl_paths_free(char **files, size_t n);

/* A group, the one meaning of the word in joules: the runs of a study that
 * share the values of some attributes, its key ((model, task) for a
 * frontier, a pick, a capacity plan, a report section). values[k] is the
 * text of keys[k] (jl_attrs_get), NULL when the runs lack it. Grouping is
 * src/study/group.c. */
typedef struct jl_group {
    char **values; /* [n_keys] */
    size_t n_keys;
    size_t *runs; /* indices into the list, in list order */
    size_t n_runs;
    int node_ac; /* runs with @power_scope node_ac (whole-node AC power): such
                     * runs never share a group with GPU-power runs */
} jl_group;

typedef struct jl_group_set {
    jl_group *groups; /* sorted by values (numbers numerically) */
    size_t n;
} jl_group_set;

/* Group runs of `l` by the attributes keys[0..n_keys). Only runs with
 * keep[i] != 0 are grouped when keep is non-NULL. Runs of @power_scope
 * node_ac and of GPU power always fall in different groups (spec 1.1: never
 * compared unannounced), even with equal key values. */
jl_status jl_group_runs(const jl_summary_list *l, const char *const *keys, size_t n_keys,
                        const unsigned char *keep, jl_group_set *out, jl_error **err);
void jl_group_set_clear(jl_group_set *gs);

/* The deterministic order of runs used for ties everywhere: GPU model, GPU
 * count, batch size, precision, file, run. <0, 0, >0 like strcmp. */
int jl_run_config_cmp(const jl_summary *a, const jl_summary *b);

typedef void (*jl_progress_fn)(void *ctx, size_t done, size_t total, const char *current);

typedef struct jl_study_options {
    jl_trace_options trace;
    jl_summary_options summary;
    /* Worker processes summarising files in parallel (default 1). */
    int workers;
    /* Read files in worker processes even with one worker (default 1), so
     * a crash inside libhdf5 on a corrupt file (docs/robustness.md) becomes
     * an error naming that file and the other files are still summarised.
     * 0 reads in this process (for a debugger) when workers <= 1. */
    int isolate;
    /* Hash each file (SHA-256) where it is read — in the worker that
     * summarises it, or on the MPI rank whose share it is — and keep the
     * digest for the provenance of the documents written after (default 0:
     * the provenance hashes the inputs itself when a document is written).
     * Only where the work is done changes, never a digest (docs/scaling.md). */
    int hash_inputs;
    jl_progress_fn progress; /* called after each file, may be NULL */
    void *progress_ctx;
    /* A study shared by several processes (MPI ranks under mpirun/srun, or
     * any launcher; docs/scaling.md): count > 1 makes this process load only
     * its share (`index` of `count`: a contiguous range of the files, a
     * large file cut into parts by runs, balanced by bytes), hand its
     * summaries and errors to `gather`, and, on index 0 alone, end with the
     * whole study in the order one process would give. count <= 1 (the
     * default): everything here. The library itself never calls MPI. */
    struct {
        int index, count;
        /* Called once on every process with its encoded share (on index 0:
         * mine = NULL, len = 0). On index 0 it returns in *all / *all_len
         * (malloc'ed) the shares of processes 1..count-1 one after the
         * other, in index order; elsewhere *all = NULL. Not JL_OK: the
         * study fails with that status (*err says why, may be NULL). */
        jl_status (*gather)(void *ctx, const void *mine, size_t len, void **all, size_t *all_len,
                            jl_error **err);
        void *ctx;
        /* Units handed out on demand (NULL: the static shares above).
         * Every process then plans the same units (files, large files cut
         * by runs) in one sequence, largest first, and takes them one at a
         * time as its workers finish: claim(ctx, limit) returns the next
         * position of that sequence not yet taken by any process (each
         * position goes to one process only) when it is below limit, -1
         * when none is left, and below -1 on a failure (the study fails
         * with JL_EIO). limit is the number of units. The shares handed to
         * gather then carry each unit's results with its index, and index
         * 0 appends them in plan order: the same output, whoever did what.
         * serve(ctx), when not NULL, is called on every process at least
         * every few milliseconds while it works (its workers' loop,
         * between units in process), so that the process holding the
         * sequence can answer the others' claims (docs/scaling.md). */
        long long (*claim)(void *ctx, long long limit);
        void (*serve)(void *ctx);
    } shard;
} jl_study_options;

void jl_study_options_default(jl_study_options *opt);

/* Summarise every run of every file under paths. Summaries are appended to
 * out in (file, run) order; per-file and per-run failures go to errors.
 * Returns JL_OK unless something stopped the whole study (out of memory). */
jl_status jl_study_load(const char *const *paths, size_t n, const jl_study_options *opt,
                        jl_summary_list *out, jl_error_list *errors);

/* Summarise every run of one open file (used by jl_study_load and workers). */
jl_status jl_study_load_file(const char *path, const jl_study_options *opt, jl_summary_list *out,
                             jl_error_list *errors);

/* Run selection. */
typedef struct jl_selector jl_selector;

jl_selector *jl_selector_new(void);
void jl_selector_free(jl_selector *sel);
/* Add a clause (exclude = 0: keep the runs for which it holds; exclude =
 * 1: drop them):
 *   KEY=V1,V2    KEY is one of the values
 *   KEY!=V1,V2   KEY is none of the values
 *   KEY>=N  KEY<=N  KEY>N  KEY<N   KEY is a number in that range
 * Numeric values match numerically ("num_gpus=1" matches 1 and 1.0); the
 * values of name attributes (workload, model, task, gpu_model, precision,
 * nickname, model_id) match whatever their case ("gpu_model=h100"). A
 * malformed clause is JL_EUSAGE with a message naming the bad part. */
jl_status jl_selector_add(jl_selector *sel, int exclude, const char *clause, jl_error **err);
/* 1 when the run passes every clause. A run without the attribute never
 * matches a --where clause and is never dropped by an --exclude clause. */
int jl_selector_match(const jl_selector *sel, const jl_summary *s);
/* Keep only matching runs (frees the others). */
void jl_summary_list_select(jl_summary_list *l, const jl_selector *sel);
/* Clauses that would select nothing, checked one by one against l (the
 * runs before selection): a listed value no run has, a range no run falls
 * in, an attribute no run has. *report is NULL when every clause matched,
 * else one line per clause naming the values present, e.g.
 * "--where 'gpu_model=A100': no run has gpu_model A100 (values present:
 * H100, H200)" (caller frees). JL_ENOMEM on out-of-memory. */
jl_status jl_selector_unmatched(const jl_selector *sel, const jl_summary_list *l, char **report);
/* The attribute name closest to key among those some run of l has (the
 * typed attributes, then extras; jl_suggest_name's distance), into buf:
 * 1 with a suggestion, 0 without. For "no run has the attribute 'gpu_modl'
 * (did you mean 'gpu_model'?)". */
int jl_study_suggest_attribute(const jl_summary_list *l, const char *key, char *buf, size_t cap);
/* The attribute a typed name means among those some run of l has (the
 * typed attributes, extras, and "file" and "run"), by jl_name_find's rule
 * (exact, else whatever the case: GPU_MODEL is gpu_model); NULL when none.
 * Borrowed: from jl_attr_names or from a run of l. */
const char *jl_study_attribute_name(const jl_summary_list *l, const char *typed);

/* The one selection grammar beyond a single clause: a spec is clauses
 * joined by commas, "KEY=V1,V2,KEY2>=N,KEY3!=X": a part without an
 * operator is another value of the clause before it (as in one --where).
 * Each clause is added as by jl_selector_add (exclude 0). Used by
 * `predict --group` and by the selection of jl_study_load_run. A part
 * without an operator before any clause is JL_EUSAGE "'PART' is not
 * KEY=VALUE"; messages name the part, the caller names its option. */
jl_status jl_selector_add_spec(jl_selector *sel, const char *spec, jl_error **err);

/* The one run a spec names: "FILE:RUN" (the run's name under /runs) or
 * "FILE:SPEC" (a selector spec, above, that must pick exactly one run of
 * FILE). FILE is the longest prefix before a ':' that names an existing
 * regular file. *out is a copy (jl_summary_free). The file's own errors go
 * to errors. Returns JL_OK; JL_EUSAGE for a malformed spec; JL_ENODATA when
 * the file gave no run (err NULL: the reasons are in errors), or when no
 * run or more than one matches (err says so, the first ten matches listed
 * one a line); JL_ENOMEM. Messages start with the spec. */
jl_status jl_study_load_run(const char *spec, const jl_study_options *opt, jl_summary **out,
                            jl_error_list *errors, jl_error **err);

/* The study pipeline every analysis command runs, in one call: every run
 * under paths summarised (jl_study_load; failures in errors), each clause
 * of sel checked against the runs read (jl_selector_unmatched: *unmatched,
 * NULL when every clause matched; caller frees), the runs sel does not keep
 * dropped (*n_read says how many there were before), the descriptors of
 * models/ loaded (*desc, NULL when there are none: the rules that need them
 * say so) and every kept run annotated with rules (jl_check_annotate).
 * sel may be NULL (every run). Returns JL_OK, or the status that stopped
 * the study (out of memory). */
jl_status jl_study_open(const char *const *paths, size_t n, const jl_study_options *opt,
                        const jl_selector *sel, const jl_ruleset *rules, jl_summary_list *runs,
                        jl_error_list *errors, jl_descriptors **desc, size_t *n_read,
                        char **unmatched);

/* A run's power over time, for plotting: the samples are read back from
 * the run's trace file (s->file, run s->run; a summary keeps none) and
 * averaged in at most max_points buckets of consecutive samples. Per
 * bucket: the mean sample time; the power of all GPUs (instantaneous
 * watts, else the 1 s average, else the energy counter's derivative); the
 * 1 s average when the run has it beside instantaneous watts; the batch
 * occupancy at the bucket's time (engine/running, else the sizes of the
 * batches being generated). NaN where missing. A run without power
 * samples (n_samples 0, e.g. imported summaries) is not an error. */
typedef struct jl_power_series {
    size_t n;                                         /* buckets */
    double *time_s, *power_w, *power_avg_w, *running; /* [n] each */
    int has_power_avg;                                /* power_avg_w is a series of its own */
    int has_running;                                  /* the run records batch occupancy */
    size_t n_samples;                                 /* power samples in the run */
    double first_s, last_s; /* times of the first and last sample (0 when none) */
} jl_power_series;

jl_status jl_study_power_series(const jl_summary *s, size_t max_points, jl_power_series **out,
                                jl_error **err);
/* The run a summary was made from, read back whole from its trace file
 * (s->file, run s->run): the accounts' power profiles. JL_EMISSING when
 * the file no longer holds that run. */
jl_status jl_study_read_run(const jl_summary *s, jl_run **out, jl_error **err);
void jl_power_series_free(jl_power_series *p);

JL_API_END
#ifdef __cplusplus
}
#endif
#endif
