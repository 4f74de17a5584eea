/* nvidia-smi logs streamed: runs written while the log is read, only the
 * runs open at a time held (nvsmi_internal.h). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "trace/trace_internal.h"

#include "import/nvsmi_internal.h"

/* ---- streaming: runs written while the log is read ---------------------------- */

typedef struct srun {
    const jl__imp_run_spec *sp; /* NULL: the whole log */
    char name[256];
    double start, end; /* window, Unix s */
    double t0;         /* NaN until its first sample */
    size_t *sel, G;
    int pw, avg_bad, any[N_SERIES], failed, done;
    size_t n_samples;
    jl_trace_stream *st;
    double lag;       /* taken off the power field's times */
    jl__imp_clip win; /* power/ over exactly [start, end] */
    jl_status wst;    /* the first failed append to power/ */
    jl_error *werr;
    run_info info;  /* its samples' span and power-cap context */
    size_t session; /* whole-log runs: the logging session it holds */
} srun;

typedef struct sctx {
    ctx *c;
    jl_trace_writer *w;
    srun *runs;
    size_t n;
    double *row;
    double t_first, t_last;
    double *prev, prev_t; /* the log's previous sample: N_SERIES x max_gpus; NaN: none */
    size_t cap;           /* runs allocated (a whole log split into sessions grows them) */
} sctx;

static void srun_fail(sctx *x, srun *r, jl_error *err)
{
    if (err) {
        jl_error_set_context(err, NULL, r->name);
        jl_error_list_push(x->c->errors, err);
    }
    jl_trace_stream_abort(r->st);
    r->st = NULL;
    r->failed = 1;
}

static int row_of(const log_data *L, int s, const srun *r, double *row)
{
    int finite = 1;
    for (size_t g = 0; g < r->G; g++) {
        row[g] = L->v[s][r->sel[g]];
        finite &= isfinite(row[g]);
    }
    return finite;
}

/* power/ of a streamed run: a point of its window (kit_clip.c). */
static void stream_power(void *vr, double t, const double *a, const double *b)
{
    srun *r = vr;
    double rt = t - r->t0;
    if (r->wst == JL_OK)
        r->wst = jl_trace_stream_append(r->st, "power", "time", 1, &rt, 1, &r->werr);
    if (r->wst == JL_OK)
        r->wst = jl_trace_stream_append(r->st, "power", "watts", r->G, a, 1, &r->werr);
    for (size_t g = 0; b && g < r->G; g++)
        r->avg_bad |= !isfinite(b[g]);
    if (r->wst == JL_OK && b && !r->avg_bad)
        r->wst = jl_trace_stream_append(r->st, "power", "watts_avg", r->G, b, 1, &r->werr);
}

/* Feed one sample (its series v, each G values) to r's power window. */
static void stream_window(sctx *x, const log_data *L, srun *r, double t, const double *const *v)
{
    jl__nvsmi_window_sample(&r->win, L, v, t, r->pw, r->lag, r->sel, r->G, x->row);
}

static void stream_finish(sctx *x, const log_data *L, srun *r);

/* A whole log's run ends where a new logging session begins (issue 37):
 * the open run is finished at the sample before, and a run named
 * <log>__s<k> opens at this one, with no edge from the session before. */
static jl_status stream_split(sctx *x, const log_data *L, double t)
{
    size_t open = x->n;
    for (size_t k = 0; k < x->n; k++)
        if (!x->runs[k].sp && !x->runs[k].done && !x->runs[k].failed &&
            x->runs[k].session != L->session)
            open = k;
    if (open == x->n)
        return JL_OK;
    double t_last = x->t_last;
    x->t_last = x->prev_t;
    stream_finish(x, L, &x->runs[open]);
    x->t_last = t_last;
    if (x->n == x->cap) {
        size_t nc = 2 * x->cap;
        srun *nr = realloc(x->runs, nc * sizeof *nr);
        if (!nr)
            return JL_ENOMEM;
        memset(nr + x->cap, 0, (nc - x->cap) * sizeof *nr);
        x->runs = nr;
        x->cap = nc;
    }
    char base[256];
    snprintf(base, sizeof base, "%s", x->runs[open].name);
    char *sfx = strstr(base, "__s");
    if (sfx && x->runs[open].session > 0)
        *sfx = '\0';
    base[200] = '\0';
    srun *r = &x->runs[x->n++];
    r->t0 = NAN;
    r->session = L->session;
    snprintf(r->name, sizeof r->name, "%.200s__s%zu", base, L->session + 1);
    (void)t;
    r->start = -INFINITY; /* opens at this sample: none before it reaches it */
    r->end = INFINITY;
    x->prev_t = NAN; /* no start edge from the session before */
    return JL_OK;
}

/* Append sample 0 of L to every run whose window holds it. */
static jl_status stream_sample(void *vx, log_data *L)
{
    sctx *x = vx;
    ctx *c = x->c;
    double t = L->t[0];
    if (isnan(x->t_first))
        x->t_first = t;
    jl_status sst = stream_split(x, L, t);
    if (sst != JL_OK)
        return sst;
    x->t_last = t;
    const double *v[N_SERIES];
    jl__nvsmi_sample_series(L, 0, v);
    for (size_t k = 0; k < x->n; k++) {
        srun *r = &x->runs[k];
        if (r->failed || r->done || (isnan(r->t0) && (t < r->start || t > r->end)))
            continue;
        jl_error *err = NULL;
        if (isnan(r->t0)) {
            if (!(r->sel = jl__malloc_array(L->G, sizeof *r->sel)))
                return JL_ENOMEM;
            if (jl__nvsmi_select_gpus(c, L, r->sp, r->sel, &r->G) != JL_OK) {
                r->failed = 1;
                continue;
            }
            if (jl_trace_writer_begin_run(x->w, r->name, &r->st, &err) != JL_OK) {
                srun_fail(x, r, err);
                continue;
            }
            r->pw = jl__nvsmi_choose_power(L, 0, r->sel, r->G, c->opt->power_lag_s);
            r->lag = jl__nvsmi_power_lag(c, L, r->sel, r->pw);
            jl__nvsmi_info_init(&r->info);
            r->t0 = r->sp ? r->sp->start : t - r->lag;
            if (jl__imp_clip_init(&r->win, r->start, r->end, r->G,
                                  L->has_series[K_POWER_AVG - FIRST_SERIES], stream_power, r))
                return JL_ENOMEM;
            if (!isnan(x->prev_t)) { /* the sample before the window: its start edge */
                const double *pv[N_SERIES];
                for (int q = 0; q < N_SERIES; q++)
                    pv[q] = x->prev + (size_t)q * c->opt->max_gpus;
                stream_window(x, L, r, x->prev_t, pv);
            }
        }
        if (!r->win.closed)
            stream_window(x, L, r, t, v);
        jl_status st = r->wst;
        err = r->werr;
        r->werr = NULL;
        if (st == JL_OK && t <= r->end) {
            r->n_samples++;
            jl__nvsmi_info_sample(&r->info, L, 0, t, r->sel, r->G, r->pw);
            double rt = t - r->t0;
            int any_gpu = 0;
            for (size_t q = 0; q < JL__NVSMI_N_GPU_SERIES; q++)
                any_gpu |= L->has_series[jl__nvsmi_gpu_series[q].k - FIRST_SERIES];
            if (any_gpu)
                st = jl_trace_stream_append(r->st, "gpu", "time", 1, &rt, 1, &err);
            for (size_t q = 0; q < JL__NVSMI_N_GPU_SERIES && st == JL_OK; q++) {
                int sidx = jl__nvsmi_gpu_series[q].k - FIRST_SERIES;
                if (!L->has_series[sidx])
                    continue;
                row_of(L, sidx, r, x->row);
                for (size_t g = 0; g < r->G; g++)
                    r->any[sidx] |= isfinite(x->row[g]);
                st = jl_trace_stream_append(r->st, "gpu", jl__nvsmi_gpu_series[q].name, r->G,
                                            x->row, 1, &err);
            }
        }
        if (st != JL_OK) {
            srun_fail(x, r, err);
            if (st == JL_ENOMEM)
                return st;
        }
    }
    return JL_OK;
}

/* The end of a run's window (or of the log): check, finish and write it. */
static void stream_finish(sctx *x, const log_data *L, srun *r)
{
    ctx *c = x->c;
    const char *rf = c->opt->runs_csv ? c->opt->runs_csv : "RUNS.csv";
    const char *where = r->sp ? rf : L->path;
    long long line = r->sp ? r->sp->line : 0;
    if (r->failed || r->done)
        return;
    r->done = 1;
    if (isnan(r->t0)) {
        jl__imp_err_at(c->errors, JL_ENODATA, rf, line, 0, "run",
                       "run %s: no sample in its window %.3f..%.3f (Unix s): it falls outside "
                       "the log (%s spans %.3f..%.3f)",
                       r->name, r->start, r->end, base_name(L->path), x->t_first, x->t_last);
        return;
    }
    jl__imp_clip_end(&r->win, x->t_last >= r->end);
    if (r->win.n < 2) {
        jl__imp_err_at(c->errors, JL_ENODATA, where, line, 0, NULL,
                       "run %s: %zu power sample%s in its window (%zu rows of %s): nothing to "
                       "integrate",
                       r->name, r->win.n, r->win.n == 1 ? "" : "s", r->n_samples, L->path);
        srun_fail(x, r, NULL);
        return;
    }
    jl__nvsmi_window_notes(c, L, r->sp, r->pw, &r->win);
    jl__nvsmi_used_power(c, r->pw, r->lag);
    jl_error *err = NULL;
    jl_status st = JL_OK;
    if (r->avg_bad) {
        jl__nvsmi_note_no_avg(c, L);
        st = jl_trace_stream_drop(r->st, "power", "watts_avg", &err);
    }
    int kept = 0;
    for (size_t q = 0; q < JL__NVSMI_N_GPU_SERIES && st == JL_OK; q++) {
        int sidx = jl__nvsmi_gpu_series[q].k - FIRST_SERIES;
        if (!L->has_series[sidx])
            continue;
        if (r->any[sidx])
            kept = 1;
        else
            st = jl_trace_stream_drop(r->st, "gpu", jl__nvsmi_gpu_series[q].name, &err);
    }
    if (st == JL_OK && !kept)
        st = jl_trace_stream_drop(r->st, "gpu", "time", &err);
    if (st != JL_OK) {
        srun_fail(x, r, err);
        return;
    }
    jl_run *run = jl_run_new();
    if (!run || !(run->name = jl__strdup(r->name)) || !(run->file = jl__strdup(L->path))) {
        jl_run_free(run);
        srun_fail(x, r, jl_error_new(JL_ENOMEM, where, NULL, NULL, -1, "out of memory"));
        return;
    }
    if (jl__nvsmi_finish_run(c, L, r->sp, run, r->t0, r->sel, r->G, r->pw, r->n_samples, r->lag,
                             r->win.edge, &r->info, r->session) != JL_OK) {
        jl_run_free(run);
        srun_fail(x, r, NULL);
        return;
    }
    st = jl_trace_stream_end(r->st, run, &err);
    r->st = NULL;
    jl_run_free(run);
    if (st != JL_OK) {
        r->failed = 1;
        jl_error_list_push(c->errors, err);
        return;
    }
    c->res->n_runs++;
}

/* Wrap the emit callback: runs whose window has passed are finished at
 * once, so only the runs open at a time hold buffers. */
static jl_status stream_emit(void *vx, log_data *L)
{
    sctx *x = vx;
    jl_status st = stream_sample(vx, L);
    for (size_t k = 0; st == JL_OK && k < x->n; k++)
        if (!x->runs[k].done && !x->runs[k].failed && !isnan(x->runs[k].t0) &&
            x->runs[k].win.closed)
            stream_finish(x, L, &x->runs[k]);
    x->prev_t = L->t[0]; /* kept for the start edge of a run opening next */
    for (int q = 0; st == JL_OK && q < N_SERIES; q++)
        if (L->has_series[q])
            memcpy(x->prev + (size_t)q * x->c->opt->max_gpus, L->v[q], L->G * sizeof *x->prev);
    return st;
}

/* The first of two reads of a log written as it is read: every sample's
 * power per GPU (8 bytes per GPU and sample), for --runs auto and the idle
 * level outside the runs. Its notes and errors are dropped: the second
 * read reports them. */
typedef struct prepass {
    double *t, *w;
    size_t n, cap, G;
    int inst, names;
} prepass;

static jl_status prepass_emit(void *vx, log_data *L)
{
    prepass *pp = vx;
    if (pp->n == pp->cap) {
        size_t nc = pp->cap ? 2 * pp->cap : 4096;
        double *t = realloc(pp->t, nc * sizeof *t);
        if (t)
            pp->t = t;
        double *w = t ? realloc(pp->w, nc * L->G * sizeof *w) : NULL;
        if (!w)
            return JL_ENOMEM;
        pp->w = w;
        pp->cap = nc;
    }
    pp->G = L->G;
    pp->t[pp->n] = L->t[0];
    for (size_t g = 0; g < L->G; g++)
        pp->w[pp->n * L->G + g] = jl__nvsmi_idle_watts(L, 0, g);
    pp->inst = L->has_series[K_POWER_INST - FIRST_SERIES];
    pp->names = L->G && L->gpus[0].name;
    pp->n++;
    return JL_OK;
}

static jl_status prepass_log(ctx *c, const char *path, prepass *pp, int report, log_data **keep)
{
    jl_error_list errs = {0};
    jl__imp kit;
    jl_import_result *none = NULL;
    jl__csv *csv = NULL;
    jl_error *err = NULL;
    jl_status st = JL_ENOMEM;
    if (jl__imp_start(&kit, NULL, &errs))
        return JL_ENOMEM;
    log_data *L =
        jl__nvsmi_log_new(path, report ? c->k : &kit, report ? c->errors : &errs, c->opt, c->zone);
    if (!L)
        goto end;
    L->emit = prepass_emit;
    L->emit_ctx = pp;
    if ((st = jl__csv_open_file(path, &csv, &err)) == JL_OK)
        st = jl__nvsmi_read_log(L, csv);
    else if (report)
        jl_error_list_push(c->errors, err), err = NULL;
    if (st == JL_OK && keep) { /* its GPUs, for the runs' gpus cells */
        L->k = c->k;
        L->errors = c->errors;
        *keep = L;
        L = NULL;
    }
end:
    jl_error_free(err);
    jl__csv_close(csv);
    jl__nvsmi_log_free(L);
    jl__imp_end(&kit, JL_EINVALID, &none);
    jl_error_list_clear(&errs);
    return st;
}

/* Before streaming log k: --runs auto's runs and the idle level outside
 * the runs, from a first read of the log (when needed). */
jl_status jl__nvsmi_stream_prepare(ctx *c, const char *path, jl__imp_run_spec **specs,
                                   size_t *n_specs, jl__imp_idle **idle)
{
    *idle = NULL;
    if (!c->opt->runs_auto && (!*specs || jl__nvsmi_idle_given(c->opt, *specs, *n_specs)))
        return JL_OK;
    prepass pp = {0};
    log_data *L = NULL;
    jl_status st = prepass_log(c, path, &pp, 0, &L);
    if (st == JL_ENOMEM)
        goto end;
    if (st != JL_OK || pp.n == 0) {
        /* the second read says why; under --runs auto there is none, and
         * no log read is JL_ENODATA, as in memory */
        if (c->opt->runs_auto) {
            free(pp.t);
            free(pp.w);
            pp = (prepass){0};
            st = prepass_log(c, path, &pp, 1, NULL);
            st = st == JL_ENOMEM ? st : JL_ENODATA;
        } else {
            st = JL_OK;
        }
        goto end;
    }
    jl__imp_pwlog p = {pp.t, pp.w, pp.n, pp.G, !pp.inst};
    if (c->opt->runs_auto &&
        (st = jl__nvsmi_auto_runs(c, &p, &path, 1, pp.names, specs, n_specs)) != JL_OK)
        goto end;
    st = jl__nvsmi_measure_idle(c, L, &p, *specs, *n_specs, idle);
end:
    jl__nvsmi_log_free(L);
    free(pp.t);
    free(pp.w);
    return st;
}

jl_status jl__nvsmi_stream_log(ctx *c, jl_trace_writer *w, jl__csv *csv,
                               const jl__imp_run_spec *specs, size_t n_specs, size_t k,
                               size_t *rows, size_t *G, int *inst, jl__imp_idle *idle)
{
    jl_status st = JL_OK;
    log_data *L = jl__nvsmi_log_new(jl__csv_name(csv), c->k, c->errors, c->opt, c->zone);
    if (L)
        L->idle = idle;
    else if (idle) {
        jl__imp_idle_free(idle);
        free(idle);
    }
    sctx x = {.c = c, .w = w, .t_first = NAN, .t_last = NAN};
    size_t nr = specs ? n_specs : 1;
    x.runs = calloc(nr, sizeof *x.runs);
    x.cap = nr;
    if (!L || !x.runs) {
        st = JL_ENOMEM;
        goto end;
    }
    x.n = nr;
    for (size_t i = 0; i < nr; i++) {
        srun *r = &x.runs[i];
        r->t0 = NAN;
        if (specs) {
            r->sp = &specs[i];
            snprintf(r->name, sizeof r->name, "%s", specs[i].name);
            r->start = specs[i].start;
            r->end = specs[i].end;
            if (!jl__imp_log_named(specs[i].log, c->opt->runs_csv, L->path))
                r->end = -INFINITY; /* another log's run: no sample */
        } else {
            jl__nvsmi_log_name(r->name, sizeof r->name, L->path);
            if (k > 0) {
                size_t l = strlen(r->name);
                if (l > 200)
                    l = 200;
                snprintf(r->name + l, sizeof r->name - l, "__%zu", k + 1);
            }
            r->start = -INFINITY;
            r->end = INFINITY;
        }
    }
    L->emit = stream_emit;
    L->emit_ctx = &x;
    x.row = jl__malloc_array(2 * c->opt->max_gpus, sizeof *x.row);
    x.prev = jl__malloc_array(N_SERIES * c->opt->max_gpus, sizeof *x.prev);
    x.prev_t = NAN;
    if (!x.row || !x.prev) {
        st = JL_ENOMEM;
        goto end;
    }
    st = jl__nvsmi_read_log(L, csv);
    if (st == JL_OK) {
        jl__nvsmi_log_span(c, x.t_first, x.t_last);
        for (size_t i = 0; i < x.n; i++)
            stream_finish(&x, L, &x.runs[i]);
        *rows += L->rows;
        *G = L->G > *G ? L->G : *G;
        *inst |= L->has_series[K_POWER_INST - FIRST_SERIES];
        c->res->n_files++;
    }
end:
    for (size_t i = 0; x.runs && i < x.n; i++) {
        if (x.runs[i].st)
            jl_trace_stream_abort(x.runs[i].st);
        free(x.runs[i].sel);
        jl__imp_clip_free(&x.runs[i].win);
        jl_error_free(x.runs[i].werr);
    }
    free(x.runs);
    free(x.row);
    free(x.prev);
    jl__nvsmi_log_free(L);
    return st == JL_ENOMEM ? st : JL_OK;
}
