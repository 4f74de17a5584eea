/* What the nvidia-smi importer's files share (src/import/nvidia_smi.c and
 * nvsmi_*.c; docs/import.md, "nvidia-smi"): the log's types, the run
 * context and each file's functions. Both readers -- in memory
 * (nvsmi_memory.c) and streamed (nvsmi_stream.c) -- read a log through
 * jl__nvsmi_read_log (nvsmi_rows.c: rows grouped into samples) and make a
 * run's figures through the functions of nvsmi_runs.c (its window's power,
 * gpu/ series, attributes, notes and reasons): they must agree, so neither
 * keeps a copy of any of it. The layout, one subject a file:
 *   nvsmi_header.c    the header and its columns; dmon and ';' logs
 *   nvsmi_rows.c      rows: values, units, decimal commas; grouping into samples
 *   nvsmi_sessions.c  logging sessions: where one begins (a repeated header, a gap)
 *   nvsmi_runs.c      runs: RUNS.csv's GPUs, --runs auto, idle power, a run's figures
 *   nvsmi_memory.c    the in-memory reader (every sample kept)
 *   nvsmi_stream.c    the streamed reader (runs written as the log is read)
 *   nvidia_smi.c      the public entry points and the importer table's row */
#ifndef JOULES_IMPORT_NVSMI_INTERNAL_H
#define JOULES_IMPORT_NVSMI_INTERNAL_H

#include <string.h>

#include "import/kit.h"
#include "import/kit_segment.h"

/* ---- the log's columns ------------------------------------------------------- */

typedef enum {
    K_TIME,
    K_INDEX,
    K_UUID,
    K_NAME,
    K_LIMIT,
    K_MEMTOTAL, /* per GPU, not series */
    K_POWER,
    K_POWER_INST,
    K_POWER_AVG,
    K_SM_UTIL,
    K_MEM_UTIL,
    K_MEM_USED,
    K_SM_CLOCK,
    K_TEMP,
    K_ENF_LIMIT, /* enforced.power.limit, W: per sample (nvidia-smi -pl changes it) */
    K_CAPPED,    /* 1: a power throttle reason active (sw_power_cap, hw_power_brake) */
    K_SLOWED,    /* 1: a thermal or hardware slowdown active */
    K_NSERIES,
    K_OTHER
} kind;
/* the throttle kinds: several columns fold into one series (the larger value) */
#define IS_THROTTLE(k) ((k) == K_CAPPED || (k) == K_SLOWED)
#define K_THR_MASK K_NSERIES /* clocks_*_reasons.active: a bit mask for both */
#define FIRST_SERIES K_POWER
#define N_SERIES (K_NSERIES - FIRST_SERIES)

typedef struct col {
    char name[128]; /* field name without unit */
    char unit[128]; /* from the header's brackets, else the known unit */
    kind k;
    double scale;
} col;

/* One GPU of a log. */
typedef struct gpu {
    long index; /* nvidia-smi's index, -1 when not logged */
    char *uuid, *name;
    double limit_w, mem_total;
} gpu;

/* A log, grouped into samples: time [n] and each series [n, G]. */
struct log_data;
typedef struct log_data {
    char *path;
    jl__imp *k;            /* borrowed, for notes */
    jl_error_list *errors; /* borrowed */
    const jl_import_nvsmi_options *opt;
    jl__zone *zone; /* borrowed */
    col *cols;
    size_t n_cols;
    int has_series[N_SERIES];
    gpu *gpus;
    size_t G;
    int gpus_fixed; /* the first sample's GPU set is complete */
    /* samples */
    double *t;           /* Unix seconds */
    long long *line;     /* line of the sample's first row */
    double *v[N_SERIES]; /* [n * cap_g] */
    size_t n, cap;
    /* grouping state */
    unsigned char *seen; /* [G] seen in the current sample */
    size_t last_slot;    /* the current sample's last GPU */
    double last_t;       /* last row's time */
    double *gpu_last_t;  /* per GPU, its last row's time */
    long long *gpu_last_line;
    size_t rows, missing_values, decimal_commas;
    size_t n_samples;         /* samples grouped so far (all of them, streamed or not) */
    double sample_t0, min_dt; /* the current sample's first time; the shortest poll gap */
    int gpu_keyed;            /* an index or uuid column tells the GPUs apart */
    int ident_col;            /* without: a pci.bus_id, serial or name column, -1: none */
    char *ident;              /* its first value */
    long long ident_line;
    /* `nvidia-smi dmon -o DT` output: its columns by position (-1: the date,
     * merged into the time) and a row rebuilt as CSV fields */
    int dmon, *dmon_col;
    size_t dmon_n;
    /* a log re-exported with ';' between fields (a spreadsheet's, often with
     * decimal commas): each row rejoined and split at ';' into dmon_f */
    int semi;
    jl__csv_field *dmon_f;
    char *dmon_text;
    /* streaming: each completed sample goes to emit() and only the current
     * one is held (n <= 1); NULL: every sample is kept */
    jl_status (*emit)(void *ctx, struct log_data *L);
    void *emit_ctx;
    jl__imp_idle *idle; /* each GPU's idle level outside the runs (kit_segment.h); NULL */
    /* logging sessions (issue 37): where a new one begins (a header line
     * repeated, the clock jumping past SESSION_GAP_S, another GPU under an
     * index), the last line cut */
    int hdr_pending, ident_pending;
    char ident_msg[400];
    size_t session; /* the session of the sample being built, from 0 */
    struct log_session *sess;
    size_t n_sess, cap_sess;
    int cut_last;
    long long cut_line;
    double t_end; /* the last sample's time */
} log_data;

/* The first sample of a logging session after the first. */
typedef struct log_session {
    size_t at;      /* its sample number in the log (from 0) */
    double t, gap;  /* its time, and the time since the sample before */
    long long line; /* its first line */
    char why[400];  /* what began it */
} log_session;

/* A stretch without samples longer than this (and than the gap limit) is
 * two logging sessions: no logger pauses a minute on its own. */
#define SESSION_GAP_S 60.0

#define LERR(L, code, line, column, field, ...) \
    jl__imp_err_at((L)->errors, code, (L)->path, line, column, field, __VA_ARGS__)

/* One parsed row, before grouping. */
typedef struct prow {
    double t;
    long long line;
    size_t slot;
    double v[N_SERIES];
} prow;

/* What jl__nvsmi_read_log holds between rows: the columns of the series, the rows
 * held back (the first sample's until its GPUs are known; every row under
 * --sort) and whether the first sample is complete. */
typedef struct reader {
    int cidx[K_NSERIES + 1];
    prow *rows, *first;
    size_t nrows, caprows, nfirst, capfirst;
    int first_done;
} reader;

/* ---- runs ---------------------------------------------------------------------- */

typedef struct ctx {
    const jl_import_nvsmi_options *opt;
    jl__imp *k;            /* the kit's context: notes, runs */
    jl_import_result *res; /* k->res */
    jl_error_list *errors;
    jl__zone *zone;
    log_data **logs;
    size_t n_logs;
    size_t dropped_rows;
    int fields_used; /* power fields of the runs: 1 power.draw, 2 power.draw.instant */
    double lag_used; /* the runs' power lag (NaN: none yet; -1: they differ) */
    /* --runs auto: the options with runs_csv naming the runs file written,
     * so that a run's errors name it (and its line) */
    jl_import_nvsmi_options auto_opt;
    char *auto_path;
    double log_t0, log_t1; /* the logs' span, Unix s (NaN: none read) */
} ctx;

static inline const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* A run's samples: their span, and the power-cap context of its GPUs. */
typedef struct run_info {
    double span0, span1;              /* Unix s of its first and last sample; NaN: none yet */
    size_t n_thr, n_capped, n_slowed; /* samples with a throttle reason logged; capped; slowed */
    size_t n_enf, n_at_limit; /* samples with an enforced limit; power at 97 % of it or more */
    double enf_min, enf_max;  /* the enforced limit per GPU (NaN: not logged) */
} run_info;

/* ---- nvsmi_header.c ---- */
int jl__nvsmi_semi_row(log_data *L, const jl__csv_row *in, jl__csv_row *out);
int jl__nvsmi_dmon_row(log_data *L, const jl__csv_row *in, jl__csv_row *out);
jl_status jl__nvsmi_read_header(log_data *L, const jl__csv_row *row);
void jl__nvsmi_layout_columns(log_data *L, reader *rd);

/* ---- nvsmi_sessions.c ---- */
int jl__nvsmi_new_session(log_data *L, const prow *r, double dt);
int jl__nvsmi_repeats_header(const log_data *L, const jl__csv_row *row);

/* ---- nvsmi_rows.c ---- */
log_data *jl__nvsmi_log_new(const char *path, jl__imp *k, jl_error_list *errors,
                            const jl_import_nvsmi_options *opt, jl__zone *zone);
void jl__nvsmi_log_free(log_data *L);
jl_status jl__nvsmi_read_log(log_data *L, jl__csv *csv);

/* ---- nvsmi_runs.c ---- */
void jl__nvsmi_log_span(ctx *c, double t0, double t1);
jl_status jl__nvsmi_select_gpus(ctx *c, const log_data *L, const jl__imp_run_spec *sp, size_t *sel,
                                size_t *G);
int jl__nvsmi_choose_power(const log_data *L, size_t i0, const size_t *sel, size_t G, double lag);
double jl__nvsmi_power_lag(const ctx *c, const log_data *L, const size_t *sel, int pw);
void jl__nvsmi_used_power(ctx *c, int pw, double lag);
void jl__nvsmi_note_no_avg(ctx *c, const log_data *L);
jl_status jl__nvsmi_measure_idle(ctx *c, const log_data *L, const jl__imp_pwlog *p,
                                 const jl__imp_run_spec *specs, size_t n, jl__imp_idle **out);
int jl__nvsmi_idle_given(const jl_import_nvsmi_options *o, const jl__imp_run_spec *specs, size_t n);
jl_status jl__nvsmi_auto_runs(ctx *c, const jl__imp_pwlog *ps, const char *const *paths,
                              size_t n_logs, int gpu_names, jl__imp_run_spec **out, size_t *n_out);
void jl__nvsmi_info_init(run_info *ri);
void jl__nvsmi_info_sample(run_info *ri, const log_data *L, size_t i, double t, const size_t *sel,
                           size_t G, int pw);
jl_status jl__nvsmi_finish_run(ctx *c, const log_data *L, const jl__imp_run_spec *sp, jl_run *r,
                               double t0, const size_t *sel, size_t G, int pw, size_t n, double lag,
                               const int edge[2], const run_info *ri, size_t session);
void jl__nvsmi_window_notes(ctx *c, const log_data *L, const jl__imp_run_spec *sp, int pw,
                            const jl__imp_clip *w);
void jl__nvsmi_result_details(ctx *c, size_t n_logs, size_t rows, size_t G, int inst);
void jl__nvsmi_windows_outside(ctx *c, const jl__imp_run_spec *specs, size_t n);

/* What both readers share to make a run (nvsmi_runs.c). */
typedef struct jl__nvsmi_gpu_series_t {
    kind k;
    const char *name; /* the dataset under gpu/ */
    size_t off;       /* its jl_series in jl_run */
} jl__nvsmi_gpu_series_t;
#define JL__NVSMI_N_GPU_SERIES 5
extern const jl__nvsmi_gpu_series_t jl__nvsmi_gpu_series[JL__NVSMI_N_GPU_SERIES];
void jl__nvsmi_sample_series(const log_data *L, size_t i, const double *v[N_SERIES]);
void jl__nvsmi_window_sample(jl__imp_clip *w, const log_data *L, const double *const *v, double t,
                             int pw, double lag, const size_t *sel, size_t G, double *vals);
double jl__nvsmi_idle_watts(const log_data *L, size_t i, size_t g);
void jl__nvsmi_log_name(char *buf, size_t cap, const char *path);

/* ---- nvsmi_memory.c ---- */
jl_status jl__nvsmi_import_logs(ctx *c, jl__csv **csvs, size_t n, jl__csv *runs_csv,
                                jl_import_result **out);

/* ---- nvsmi_stream.c ---- */
jl_status jl__nvsmi_stream_prepare(ctx *c, const char *path, jl__imp_run_spec **specs,
                                   size_t *n_specs, jl__imp_idle **idle);
jl_status jl__nvsmi_stream_log(ctx *c, jl_trace_writer *w, jl__csv *csv,
                               const jl__imp_run_spec *specs, size_t n_specs, size_t k,
                               size_t *rows, size_t *G, int *inst, jl__imp_idle *idle);

#endif
