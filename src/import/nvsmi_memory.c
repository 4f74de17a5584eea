/* nvidia-smi logs read in memory: every sample of every log kept, then the
 * runs cut (RUNS.csv, --runs auto or one a logging session)
 * (nvsmi_internal.h). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "trace/trace_internal.h"

#include "import/nvsmi_internal.h"

static double *series_out(const log_data *L, int s, const size_t *rows, size_t n, const size_t *sel,
                          size_t G, int need_finite)
{
    if (!L->has_series[s])
        return NULL;
    int any = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t g = 0; g < G; g++) {
            double x = L->v[s][rows[i] * L->G + sel[g]];
            if (isfinite(x))
                any = 1;
            else if (need_finite)
                return NULL;
        }
    if (!any)
        return NULL;
    double *v = jl__malloc_array(n * G > 0 ? n * G : 1, sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < n; i++)
        for (size_t g = 0; g < G; g++)
            v[i * G + g] = L->v[s][rows[i] * L->G + sel[g]];
    return v;
}

/* ---- idle power from the log, --runs auto (the rules: kit_segment.c) --------- */

/* L's power per GPU (jl__nvsmi_idle_watts at every sample); *w [n * G]
 * (caller frees). -1 when out of memory. */
static int log_power(const log_data *L, double **w, jl__imp_pwlog *p)
{
    size_t nv = L->n * L->G;
    if (!(*w = jl__malloc_array(nv ? nv : 1, sizeof **w)))
        return -1;
    for (size_t i = 0; i < L->n; i++)
        for (size_t g = 0; g < L->G; g++)
            (*w)[i * L->G + g] = jl__nvsmi_idle_watts(L, i, g);
    *p = (jl__imp_pwlog){L->t, *w, L->n, L->G, !L->has_series[K_POWER_INST - FIRST_SERIES]};
    return 0;
}

/* In memory: --runs auto's runs, then each log's idle level outside the
 * runs (RUNS.csv or auto). */
static jl_status logs_auto_idle(ctx *c, jl__csv **csvs, size_t n, jl__imp_run_spec **specs,
                                size_t *n_specs)
{
    jl__imp_pwlog *ps = calloc(n ? n : 1, sizeof *ps);
    double **ws = calloc(n ? n : 1, sizeof *ws);
    const char **paths = calloc(n ? n : 1, sizeof *paths);
    jl_status st = JL_OK;
    int names = 1;
    if (!ps || !ws || !paths)
        st = JL_ENOMEM;
    for (size_t k = 0; k < n && st == JL_OK; k++) {
        paths[k] = csvs[k] ? jl__csv_name(csvs[k]) : NULL;
        if (!c->logs[k])
            continue;
        if (log_power(c->logs[k], &ws[k], &ps[k]))
            st = JL_ENOMEM;
        names &= c->logs[k]->gpus[0].name != NULL;
    }
    if (st == JL_OK && c->opt->runs_auto)
        st = jl__nvsmi_auto_runs(c, ps, paths, n, names, specs, n_specs);
    for (size_t k = 0; k < n && st == JL_OK && *specs; k++)
        if (c->logs[k])
            st = jl__nvsmi_measure_idle(c, c->logs[k], &ps[k], *specs, *n_specs, &c->logs[k]->idle);
    for (size_t k = 0; ws && k < n; k++)
        free(ws[k]);
    free(ws);
    free(ps);
    free(paths);
    return st;
}

typedef struct mem_power {
    double t0, *time, *w, *a;
    size_t n, G;
    int avg_bad;
} mem_power;

static void mem_emit(void *vp, double t, const double *a, const double *b)
{
    mem_power *m = vp;
    m->time[m->n] = t - m->t0;
    memcpy(m->w + m->n * m->G, a, m->G * sizeof *a);
    for (size_t g = 0; b && g < m->G; g++)
        m->avg_bad |= !isfinite(m->a[m->n * m->G + g] = b[g]);
    m->n++;
}

/* r's power/: the readings at their time minus the lag inside [start, end]
 * and the window's edges (the whole log without RUNS.csv); edge[] says
 * how each edge was reached. */
static jl_status window_power(ctx *c, const log_data *L, const jl__imp_run_spec *sp,
                              const size_t *sel, size_t G, int pw, double lag, double t0, jl_run *r,
                              size_t n, int edge[2])
{
    double start = sp ? sp->start : -INFINITY, end = sp ? sp->end : INFINITY;
    int has_avg = L->has_series[K_POWER_AVG - FIRST_SERIES];
    /* the samples fed: the last before start to the first after end */
    size_t k0 = jl__first_ge(L->t, L->n, start + lag), k1 = jl__first_ge(L->t, L->n, end + lag);
    while (k0 > 0 && L->t[k0 - 1] - lag >= start)
        k0--;
    while (k0 < L->n && L->t[k0] - lag < start)
        k0++;
    while (k1 < L->n && L->t[k1] - lag <= end)
        k1++;
    k0 -= k0 > 0;
    k1 += k1 < L->n;
    mem_power m = {.t0 = t0, .G = G};
    jl__imp_clip w;
    double *vals = jl__malloc_array(2 * G, sizeof *vals);
    size_t cap = k1 - k0 + 2;
    m.time = jl__malloc_array(cap, sizeof(double));
    m.w = jl__malloc_array(cap * G, sizeof(double));
    m.a = has_avg ? jl__malloc_array(cap * G, sizeof(double)) : NULL;
    jl_status st = JL_OK;
    if (jl__imp_clip_init(&w, start, end, G, has_avg, mem_emit, &m) || !vals || !m.time || !m.w ||
        (has_avg && !m.a)) {
        st = jl__imp_err_at(c->errors, JL_ENOMEM, sp ? c->opt->runs_csv : L->path,
                            sp ? sp->line : 0, 0, NULL, "run %s: out of memory", r->name);
        goto end;
    }
    for (size_t i = k0; i < k1 && !w.closed; i++) {
        const double *v[N_SERIES];
        jl__nvsmi_sample_series(L, i, v);
        jl__nvsmi_window_sample(&w, L, v, L->t[i], pw, lag, sel, G, vals);
    }
    jl__imp_clip_end(&w, L->n && L->t[L->n - 1] >= end);
    edge[0] = w.edge[0];
    edge[1] = w.edge[1];
    if (m.n < 2) {
        st = jl__imp_err_at(c->errors, JL_ENODATA, sp ? c->opt->runs_csv : L->path,
                            sp ? sp->line : 0, 0, NULL,
                            "run %s: %zu power sample%s in its window (%zu rows of %s): "
                            "nothing to integrate",
                            r->name, m.n, m.n == 1 ? "" : "s", n, L->path);
        goto end;
    }
    jl__nvsmi_window_notes(c, L, sp, pw, &w);
    jl__nvsmi_used_power(c, pw, lag);
    r->power_n = m.n;
    r->power_time = m.time;
    r->watts = (jl_series){m.n, G, m.w};
    m.time = m.w = NULL;
    if (has_avg && !m.avg_bad) {
        r->watts_avg = (jl_series){m.n, G, m.a};
        m.a = NULL;
    } else if (has_avg) {
        jl__nvsmi_note_no_avg(c, L);
    }
end:
    jl__imp_clip_free(&w);
    free(vals);
    free(m.time);
    free(m.w);
    free(m.a);
    return st;
}

static jl_status build_run(ctx *c, const log_data *L, const jl__imp_run_spec *sp, const char *name,
                           size_t i0, size_t i1, double t0, const size_t *sel, size_t G,
                           jl_run **out)
{
    *out = NULL;
    const char *where = sp ? c->opt->runs_csv : L->path;
    long long line = sp ? sp->line : 0;
    jl_run *r = jl_run_new();
    jl_status st = JL_OK;
    if (!r || !(r->name = jl__strdup(name)) || !(r->file = jl__strdup(L->path)))
        goto nomem;
    size_t n = i1 - i0;
    int pw = jl__nvsmi_choose_power(L, i0, sel, G, c->opt->power_lag_s), edge[2];
    double lag = jl__nvsmi_power_lag(c, L, sel, pw);
    if (!sp)
        t0 -= lag; /* the whole log: t = 0 at its first reading's time */
    if ((st = window_power(c, L, sp, sel, G, pw, lag, t0, r, n, edge)) != JL_OK)
        goto fail;
    /* gpu/: every row of the window */
    size_t *all = jl__malloc_array(n, sizeof *all);
    if (!all)
        goto nomem;
    for (size_t i = 0; i < n; i++)
        all[i] = i0 + i;
    int any_gpu = 0;
    for (size_t k = 0; k < JL__NVSMI_N_GPU_SERIES; k++) {
        const jl__nvsmi_gpu_series_t *gs = &jl__nvsmi_gpu_series[k];
        double *v = series_out(L, gs->k - FIRST_SERIES, all, n, sel, G, 0);
        if (v) {
            *(jl_series *)((char *)r + gs->off) = (jl_series){n, G, v};
            any_gpu = 1;
        }
    }
    if (any_gpu) {
        r->gpu_n = n;
        if (!(r->gpu_time = jl__malloc_array(n, sizeof(double)))) {
            free(all);
            goto nomem;
        }
        for (size_t i = 0; i < n; i++)
            r->gpu_time[i] = L->t[i0 + i] - t0;
    }
    free(all);
    run_info ri;
    jl__nvsmi_info_init(&ri);
    for (size_t i = i0; i < i1; i++)
        jl__nvsmi_info_sample(&ri, L, i, L->t[i], sel, G, pw);
    if ((st = jl__nvsmi_finish_run(c, L, sp, r, t0, sel, G, pw, n, lag, edge, &ri, L->session)) !=
        JL_OK)
        goto fail;
    *out = r;
    return JL_OK;
nomem:
    st = jl__imp_err_at(c->errors, JL_ENOMEM, where, line, 0, NULL, "run %s: out of memory", name);
fail:
    jl_run_free(r);
    return st;
}

static void cut_run(ctx *c, const jl__imp_run_spec *sp)
{
    const char *rf = c->opt->runs_csv ? c->opt->runs_csv : "RUNS.csv";
    const log_data *L = NULL;
    size_t best = 0;
    int ambiguous = 0;
    for (size_t k = 0; k < c->n_logs; k++) {
        const log_data *x = c->logs[k];
        if (!x)
            continue;
        if (!jl__imp_log_named(sp->log, c->opt->runs_csv, x->path))
            continue;
        size_t i0 = jl__first_ge(x->t, x->n, sp->start), i1 = jl__first_ge(x->t, x->n, sp->end);
        while (i1 < x->n && x->t[i1] <= sp->end)
            i1++;
        if (i1 > i0) {
            if (L)
                ambiguous = 1;
            if (!L || i1 - i0 > best) {
                L = x;
                best = i1 - i0;
            }
        }
    }
    if (ambiguous) {
        jl__imp_err_at(c->errors, JL_EINVALID, rf, sp->line, 0, "run",
                       "run %s: its window holds samples of several logs (add a log column "
                       "naming the file)",
                       sp->name);
        return;
    }
    if (!L) {
        jl__strbuf b;
        jl__strbuf_init(&b);
        for (size_t k = 0; k < c->n_logs; k++)
            if (c->logs[k])
                jl__strbuf_printf(&b, "%s%s spans %.3f..%.3f", k ? "; " : "",
                                  base_name(c->logs[k]->path), c->logs[k]->t[0],
                                  c->logs[k]->t[c->logs[k]->n - 1]);
        char *spans = jl__strbuf_take(&b);
        jl__imp_err_at(c->errors, JL_ENODATA, rf, sp->line, 0, "run",
                       "run %s: no sample in its window %.3f..%.3f (Unix s)%s%s: it falls "
                       "outside the log%s (%s)",
                       sp->name, sp->start, sp->end, sp->log ? " in log " : "",
                       sp->log ? sp->log : "", c->n_logs == 1 ? "" : "s", spans ? spans : "");
        free(spans);
        return;
    }
    size_t i0 = jl__first_ge(L->t, L->n, sp->start), i1 = i0;
    while (i1 < L->n && L->t[i1] <= sp->end)
        i1++;
    size_t *sel = jl__malloc_array(L->G ? L->G : 1, sizeof *sel), G;
    if (!sel) {
        jl__imp_err_at(c->errors, JL_ENOMEM, rf, sp->line, 0, NULL, "out of memory");
        return;
    }
    jl_run *r = NULL;
    if (jl__nvsmi_select_gpus(c, L, sp, sel, &G) == JL_OK &&
        build_run(c, L, sp, sp->name, i0, i1, sp->start, sel, G, &r) == JL_OK) {
        jl__imp_push_run(c->k, r);
    }
    free(sel);
}

jl_status jl__nvsmi_import_logs(ctx *c, jl__csv **csvs, size_t n, jl__csv *runs_csv,
                                jl_import_result **out)
{
    jl_status st = JL_OK;
    jl__imp_run_spec *specs = NULL;
    size_t n_specs = 0;
    *out = NULL;
    jl__imp kit;
    if (jl__imp_start(&kit, NULL, c->errors))
        return JL_ENOMEM;
    c->k = &kit;
    c->res = kit.res;
    c->logs = calloc(n ? n : 1, sizeof *c->logs);
    if (!c->logs) {
        st = JL_ENOMEM;
        goto end;
    }
    c->n_logs = n;
    if (runs_csv &&
        (st = jl__imp_runs_read(runs_csv, c->zone, c->errors, &specs, &n_specs)) != JL_OK)
        goto end;
    size_t rows = 0, read_ok = 0;
    for (size_t k = 0; k < n; k++) {
        if (!csvs[k])
            continue;
        log_data *L = jl__nvsmi_log_new(jl__csv_name(csvs[k]), c->k, c->errors, c->opt, c->zone);
        if (!L) {
            st = JL_ENOMEM;
            goto end;
        }
        jl_status ls = jl__nvsmi_read_log(L, csvs[k]);
        if (ls == JL_ENOMEM) {
            jl__nvsmi_log_free(L);
            st = JL_ENOMEM;
            goto end;
        }
        if (ls != JL_OK) {
            jl__nvsmi_log_free(L);
            continue;
        }
        rows += L->rows;
        read_ok++;
        c->logs[k] = L;
        if (L->n)
            jl__nvsmi_log_span(c, L->t[0], L->t[L->n - 1]);
    }
    c->res->n_files = read_ok;
    if (read_ok == 0) {
        st = JL_ENODATA;
        goto end;
    }
    if ((specs || c->opt->runs_auto) &&
        (st = logs_auto_idle(c, csvs, n, &specs, &n_specs)) != JL_OK)
        goto end;
    if (specs) {
        for (size_t i = 0; i < n_specs; i++)
            cut_run(c, &specs[i]);
    } else {
        for (size_t k = 0; k < n; k++) {
            log_data *L = c->logs[k];
            if (!L)
                continue;
            char name[256];
            jl__nvsmi_log_name(name, sizeof name, L->path);
            for (size_t j = 0; j < c->res->n_runs; j++)
                if (!strcmp(c->res->runs[j]->name, name)) {
                    size_t l = strlen(name);
                    if (l > 200)
                        l = 200;
                    snprintf(name + l, sizeof name - l, "__%zu", k + 1);
                }
            size_t *sel = jl__malloc_array(L->G ? L->G : 1, sizeof *sel), G;
            if (!sel) {
                st = JL_ENOMEM;
                goto end;
            }
            /* one run per logging session (issue 37): a view of its samples */
            for (size_t q = 0;
                 q <= L->n_sess && jl__nvsmi_select_gpus(c, L, NULL, sel, &G) == JL_OK; q++) {
                size_t i0 = q ? L->sess[q - 1].at : 0, i1 = q < L->n_sess ? L->sess[q].at : L->n;
                log_data v = *L;
                v.t += i0;
                v.line += i0;
                v.n = i1 - i0;
                for (int sx = 0; sx < N_SERIES; sx++)
                    if (v.v[sx])
                        v.v[sx] += i0 * L->G;
                v.session = q;
                char sname[300];
                snprintf(sname, sizeof sname, q ? "%.250s__s%zu" : "%.250s", name, q + 1);
                jl_run *r = NULL;
                if (v.n && build_run(c, &v, NULL, sname, 0, v.n, v.t[0], sel, G, &r) == JL_OK)
                    jl__imp_push_run(c->k, r);
            }
            free(sel);
        }
    }
    if (c->res->n_runs == 0) {
        jl__nvsmi_windows_outside(c, specs, n_specs);
        st = JL_ENODATA;
        goto end;
    }
    size_t G = 0;
    int inst = 0;
    for (size_t k = 0; k < n; k++)
        if (c->logs[k]) {
            G = c->logs[k]->G > G ? c->logs[k]->G : G;
            inst |= c->logs[k]->has_series[K_POWER_INST - FIRST_SERIES];
        }
    jl__nvsmi_result_details(c, n, rows, G, inst);
end:
    jl__imp_run_specs_free(specs, n_specs);
    for (size_t k = 0; c->logs && k < c->n_logs; k++)
        jl__nvsmi_log_free(c->logs[k]);
    free(c->logs);
    free(c->auto_path);
    return jl__imp_end(c->k, st, out);
}
