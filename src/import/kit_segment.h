/* kit_segment.h — what a power log says outside and between its runs
 * (kit_segment.c), for importers of power logs (nvidia-smi today):
 *
 *   idle level    each GPU's idle power from the log's stretches outside
 *                 every run (before, between and after the runs), for
 *                 @gpu_idle_power_w when the source gives none
 *   runs auto     runs cut at the rises and falls of the total power
 *                 (`--runs auto`), with the thresholds it used
 *
 * The rules and their constants are docs/import.md, "Idle power from the
 * log" and "--runs auto". Internal to src/import/ (jl__imp_* names). */
#ifndef JOULES_IMPORT_KIT_SEGMENT_H
#define JOULES_IMPORT_KIT_SEGMENT_H

#include <stddef.h>

#include "joules/attrs.h"
#include "joules/error.h"

struct jl__imp;
struct jl__strbuf;
struct jl_run;

/* A power log: n samples at times t (Unix s, non-decreasing), the power of
 * G GPUs w[i * G + g] (W; NaN where a GPU has none at a sample). */
typedef struct jl__imp_pwlog {
    const double *t;
    const double *w;
    size_t n, G;
    int averaged; /* the driver's 1-s average (power.draw): slower to settle */
} jl__imp_pwlog;

/* A run's window [start, end] (Unix s) and, for the idle level, its GPUs
 * (gpus[g] != 0 where the run holds GPU g; NULL: every GPU). */
typedef struct jl__imp_window {
    double start, end;
    const unsigned char *gpus;
} jl__imp_window;

/* ---- idle level ----------------------------------------------------------------- */

/* The rule (docs/import.md, "Idle power from the log"):
 *   stretches   the log outside every run window: before the first run, between
 *               runs, after the last; SETTLE s after a run's end (1 s for the
 *               instantaneous power, 2 s for the 1-s average) and MARGIN s before
 *               a run's start are left out; of the stretch before the first run
 *               and the one after the last only the NEAR s nearest the runs
 *               count (farther away the engine may be loading, or gone)
 *   quiet part  in each stretch, per GPU, the longest run of consecutive
 *               samples each within max(5 W, 5 %) of the mean of those before
 *               it; used when it holds >= 5 samples over >= 1 s and its median
 *               lies below the median of every run's samples of that GPU
 *               (the runs that hold it)
 *   level       per GPU, the median of the samples of its quiet parts. */
#define JL__IMP_IDLE_SETTLE_S 1.0
#define JL__IMP_IDLE_SETTLE_AVG_S 2.0
#define JL__IMP_IDLE_MARGIN_S 0.5
#define JL__IMP_IDLE_NEAR_S 10.0
#define JL__IMP_IDLE_BAND_W 5.0
#define JL__IMP_IDLE_BAND_SHARE 0.05
#define JL__IMP_IDLE_MIN_SAMPLES 5
#define JL__IMP_IDLE_MIN_S 1.0

typedef struct jl__imp_idle {
    size_t G;
    double *w;         /* [G] idle W, NaN where no usable stretch */
    size_t *samples;   /* [G] samples behind w[g] */
    size_t *stretches; /* [G] stretches behind w[g] */
    char *text;        /* for notes: the stretches used (GPU 0's), or why none */
} jl__imp_idle;

/* The idle level of every GPU of p outside the n runs (any order). Returns
 * 0, or -1 when out of memory. Free with jl__imp_idle_free(). */
int jl__imp_idle_level(const jl__imp_pwlog *p, const jl__imp_window *runs, size_t n,
                       jl__imp_idle *out);
void jl__imp_idle_free(jl__imp_idle *x);

/* ---- runs from the power's rises and falls ----------------------------------- */

typedef struct jl__imp_segment_opt {
    double min_run_s; /* runs shorter are dropped (default 5) */
    double merge_s;   /* a dip below the fall threshold shorter than this is merged (1) */
} jl__imp_segment_opt;

#define JL__IMP_SEG_FLOOR_Q 0.05 /* the idle floor: this quantile of the total power */
#define JL__IMP_SEG_TOP_Q 0.95
#define JL__IMP_SEG_RISE 0.30 /* rise threshold: floor + RISE (load - floor) */
#define JL__IMP_SEG_FALL 0.20 /* fall threshold: floor + FALL (load - floor) */

typedef struct jl__imp_segments {
    jl__imp_window *runs;
    size_t n;
    size_t n_dropped; /* above the threshold for less than min_run_s */
    double floor_w, load_w, rise_w, fall_w;
    char *text; /* the thresholds used and what was found, one paragraph */
} jl__imp_segments;

void jl__imp_segment_opt_default(jl__imp_segment_opt *o);
/* Runs of p where its total power (samples where every GPU has power) rises
 * to rise_w and until it falls below fall_w, dips shorter than merge_s
 * merged, runs shorter than min_run_s dropped. Each edge is placed half way
 * between the samples either side of the crossing. Returns 0 (out->n may
 * be 0: out->text says why), -1 when out of memory. */
int jl__imp_segment(const jl__imp_pwlog *p, const jl__imp_segment_opt *o, jl__imp_segments *out);
void jl__imp_segments_free(jl__imp_segments *s);

/* ---- a RUNS.csv for the user to edit ---------------------------------------- */

typedef struct jl__imp_runs_row {
    const char *name;
    double start, end; /* Unix s */
    const char *log;   /* the log's path (written when with_log) */
} jl__imp_runs_row;

/* Write rows as a RUNS.csv at path, whole or not at all (a temporary name
 * renamed; an existing file replaced only with force): the columns the
 * importer reads (docs/import.md, "Runs"), run,start,end[,log],gpus,
 * workload,model,task,precision,max_batch_size,requests,requests_offset;
 * times in ISO 8601 UTC to the millisecond, each attribute column holding
 * the --set value for its key where one is given, else blank. JL_OK or the
 * error (pushed, naming the file). */
jl_status jl__imp_write_runs_csv(const char *path, const jl__imp_runs_row *rows, size_t n,
                                 int with_log, const jl_kv *set, size_t n_set, int force,
                                 jl_error_list *errors);

/* ---- as an importer uses them ------------------------------------------------- */

/* *out (allocated): the idle level of p outside the windows, with a note
 * naming path saying where it came from or why there is none. */
jl_status jl__imp_idle_measure(struct jl__imp *k, const char *path, const jl__imp_pwlog *p,
                               const jl__imp_window *w, size_t n, jl__imp_idle **out);
/* A run on the GPUs sel (G of them) of the log at path: given (the source
 * of a gpu_idle_power_w the user gave, e.g. "--set"; NULL: none) wins, else
 * the mean of idle's levels over its GPUs is set; its notes say which. */
void jl__imp_idle_apply(struct jl__imp *k, const char *path, const jl__imp_idle *idle,
                        const size_t *sel, size_t G, const char *given, struct jl_run *r,
                        struct jl__strbuf *notes);

/* --runs auto for an importer. */
typedef struct jl__imp_auto {
    const char *format;   /* "nvidia-smi", for the re-run command */
    const char *runs_out; /* NULL: output's name with .runs.csv, else RUNS.auto.csv */
    const char *output;   /* the trace being written; NULL */
    int force;            /* replace an existing runs file */
    jl__imp_segment_opt seg;
    const jl_kv *set; /* --set: the attribute columns, the required attributes */
    size_t n_set;
    const char *const *flags; /* n_flags (option, value or NULL) pairs to repeat */
    size_t n_flags;
    int gpu_names; /* every log names its GPUs (gpu_model comes from them) */
} jl__imp_auto;

typedef struct jl__imp_auto_runs {
    jl__imp_runs_row *rows; /* name and log owned */
    size_t n;
    char *path; /* the runs file written */
} jl__imp_auto_runs;

/* The runs of the logs ps[k] (t NULL: a log not read) at paths[k], written
 * to the runs file, the thresholds in a note. JL_OK: out holds the runs to
 * import. JL_EMISSING: a required attribute has no --set: the error names
 * the columns to fill and the command to re-run. JL_ENODATA: none found
 * (the error says why); other errors writing the file. */
jl_status jl__imp_auto_runs_find(struct jl__imp *k, jl_error_list *errors, const jl__imp_pwlog *ps,
                                 const char *const *paths, size_t n_logs, const jl__imp_auto *o,
                                 jl__imp_auto_runs *out);
void jl__imp_auto_runs_free(jl__imp_auto_runs *a);

#endif
