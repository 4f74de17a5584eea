/* nvidia-smi logs: runs -- the GPUs a RUNS.csv row names, --runs auto, the
 * idle power outside the runs, and what both readers share to make a run:
 * its power field and lag, a sample into its window, its gpu/ series,
 * attributes, notes and reasons (nvsmi_internal.h). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/reasons.h"
#include "core/util.h"
#include "trace/trace_internal.h"

#include "import/nvsmi_internal.h"

/* ---- run attributes --------------------------------------------------------- */

#define FIELD(a, f, type) ((type *)((char *)(a) + (f)->off))

/* Set attribute key=value on a (the kit's one rule for typed attributes);
 * NULL or the reason it cannot be. */
static const char *set_attr(jl_attrs *a, const char *key, const char *value)
{
    return jl__imp_set_attr(a, key, value);
}

void jl__nvsmi_log_span(ctx *c, double t0, double t1)
{
    if (!(c->log_t0 <= t0))
        c->log_t0 = t0;
    if (!(c->log_t1 >= t1))
        c->log_t1 = t1;
}

/* GPU slots of a `gpus` cell ("0,1,2,3", "0 1", "GPU-uuid;..."), or all. */
jl_status jl__nvsmi_select_gpus(ctx *c, const log_data *L, const jl__imp_run_spec *sp, size_t *sel,
                                size_t *G)
{
    *G = 0;
    if (!sp || !sp->gpus) {
        for (size_t g = 0; g < L->G; g++)
            sel[(*G)++] = g;
        return JL_OK;
    }
    char *copy = jl__strdup(sp->gpus);
    if (!copy)
        return JL_ENOMEM;
    jl_status st = JL_OK;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",; ", &save); tok; tok = strtok_r(NULL, ",; ", &save)) {
        size_t found = L->G;
        char *e;
        long idx = strtol(tok, &e, 10);
        for (size_t g = 0; g < L->G; g++)
            if ((!*e && L->gpus[g].index == idx) ||
                (L->gpus[g].uuid && !strcmp(L->gpus[g].uuid, tok)))
                found = g;
        if (found == L->G) {
            st = jl__imp_err_at(c->errors, JL_EINVALID, c->opt->runs_csv, sp->line, 0, "gpus",
                                "run %s: GPU '%s' is not in the log %s", sp->name, tok, L->path);
            break;
        }
        for (size_t k = 0; k < *G; k++)
            if (sel[k] == found) {
                st = jl__imp_err_at(c->errors, JL_EINVALID, c->opt->runs_csv, sp->line, 0, "gpus",
                                    "run %s: GPU '%s' named twice", sp->name, tok);
                break;
            }
        if (st != JL_OK)
            break;
        sel[(*G)++] = found;
    }
    if (st == JL_OK && *G == 0)
        st = jl__imp_err_at(c->errors, JL_EINVALID, c->opt->runs_csv, sp->line, 0, "gpus",
                            "run %s: no GPU named", sp->name);
    free(copy);
    return st;
}

/* Power: with the lag compensated (auto, or a shift), power.draw where
 * logged with a value for every GPU of the run at its first sample (the
 * 1-s average on Ampere and newer: its readings together cover every
 * instant), else power.draw.instant; with it off (lag 0), power.draw.instant
 * first, as before (index into the series). */
int jl__nvsmi_choose_power(const log_data *L, size_t i0, const size_t *sel, size_t G, double lag)
{
    int inst = K_POWER_INST - FIRST_SERIES, avg = K_POWER - FIRST_SERIES;
    int first = lag == 0 ? inst : avg, other = lag == 0 ? avg : inst;
    if (!L->has_series[first])
        return other;
    if (!L->has_series[other])
        return first;
    for (size_t g = 0; g < G; g++)
        if (!isfinite(L->v[first][i0 * L->G + sel[g]]))
            return other;
    return first;
}

static int before_ampere(const char *name)
{
    return jl__imp_gpu_before_ampere(name);
}

/* The lag taken off the power field's times (s): the option when given;
 * auto: half of power.draw's 1-s averaging window, 0 where the field is
 * instantaneous (power.draw.instant, power.draw before Ampere). */
double jl__nvsmi_power_lag(const ctx *c, const log_data *L, const size_t *sel, int pw)
{
    if (!isnan(c->opt->power_lag_s))
        return c->opt->power_lag_s;
    if (pw + FIRST_SERIES != K_POWER || before_ampere(L->gpus[sel[0]].name))
        return 0;
    return 0.5;
}

/* The run's power field and lag, for the result's details. */
void jl__nvsmi_used_power(ctx *c, int pw, double lag)
{
    c->fields_used |= pw + FIRST_SERIES == K_POWER ? 1 : 2;
    c->lag_used = isnan(c->lag_used) || c->lag_used == lag ? lag : -1;
}

/* The notes' sentences on the power: the field, its lag, the edges. */
static void power_notes(jl__strbuf *b, const log_data *L, const size_t *sel, int pw, double lag,
                        const int edge[2])
{
    if (pw + FIRST_SERIES == K_POWER_INST)
        jl__strbuf_puts(b, " (the instantaneous reading)");
    else if (before_ampere(L->gpus[sel[0]].name))
        jl__strbuf_puts(b, " (on this GPU, older than Ampere, the instantaneous reading)");
    else
        jl__strbuf_puts(b, " (on Ampere and newer GPUs the driver's 1-second average: it smears "
                           "peaks)");
    if (lag > 0)
        jl__strbuf_printf(b, ", each reading placed %g s before its timestamp (%s)", lag,
                          lag == 0.5 && pw + FIRST_SERIES == K_POWER
                              ? "the middle of the second it averages; --power-lag off keeps "
                                "the logged times"
                              : "--power-lag");
    else if (pw + FIRST_SERIES == K_POWER && !before_ampere(L->gpus[sel[0]].name))
        jl__strbuf_puts(b, ", at its logged time (no lag compensation: it lags the load by "
                           "about 0.5 s)");
    if (edge[0] != JL__IMP_EDGE_NONE || edge[1] != JL__IMP_EDGE_NONE)
        jl__strbuf_printf(b,
                          ". Power at the window's start: %s, at its end: %s (linear "
                          "between the samples either side; held from the nearest inside "
                          "where the one outside has no power)",
                          jl__imp_edge_name(edge[0]), jl__imp_edge_name(edge[1]));
}

static void note_dropped(ctx *c, const log_data *L, int pw)
{
    jl__imp_note(c->k, L->path,
                 pw + FIRST_SERIES == K_POWER_INST ? "power.draw.instant" : "power.draw",
                 "samples where a GPU's power is missing are left out of power/ (the "
                 "format needs finite watts; the integral bridges them) and kept in "
                 "gpu/ with the missing values as NaN");
}

void jl__nvsmi_note_no_avg(ctx *c, const log_data *L)
{
    jl__imp_note(c->k, L->path, "power.draw.average",
                 "not written as power/watts_avg where a value is missing in the run");
}

/* ---- idle power from the log, --runs auto (the rules: kit_segment.c) --------- */

static int spec_of_log(const ctx *c, const jl__imp_run_spec *sp, const char *path)
{
    return jl__imp_log_named(sp->log, c->opt->runs_csv, path);
}

/* The GPUs of L a run's gpus cell names ([L->G], 1 where named; NULL for
 * all, or when out of memory: *oom). A name not in the log is passed over:
 * cutting the run says so. */
static unsigned char *spec_gpus(const jl__imp_run_spec *sp, const log_data *L, int *oom)
{
    if (!sp->gpus)
        return NULL;
    unsigned char *m = calloc(L->G ? L->G : 1, 1);
    char *copy = jl__strdup(sp->gpus), *save = NULL;
    if (!m || !copy) {
        free(m);
        free(copy);
        *oom = 1;
        return NULL;
    }
    for (char *tok = strtok_r(copy, ",; ", &save); tok; tok = strtok_r(NULL, ",; ", &save)) {
        char *e;
        long idx = strtol(tok, &e, 10);
        for (size_t g = 0; g < L->G; g++)
            if ((!*e && L->gpus[g].index == idx) ||
                (L->gpus[g].uuid && !strcmp(L->gpus[g].uuid, tok)))
                m[g] = 1;
    }
    free(copy);
    return m;
}

/* *out: each GPU's idle level in p (the log L) outside the windows of its
 * runs (kit_segment.c), with a note. */
jl_status jl__nvsmi_measure_idle(ctx *c, const log_data *L, const jl__imp_pwlog *p,
                                 const jl__imp_run_spec *specs, size_t n, jl__imp_idle **out)
{
    jl__imp_window *w = jl__calloc_array(n ? n : 1, sizeof *w);
    int oom = !w;
    size_t m = 0;
    for (size_t i = 0; w && i < n; i++)
        if (spec_of_log(c, &specs[i], L->path))
            w[m++] = (jl__imp_window){specs[i].start, specs[i].end, spec_gpus(&specs[i], L, &oom)};
    jl_status st = oom ? JL_ENOMEM : jl__imp_idle_measure(c->k, L->path, p, w, m, out);
    for (size_t i = 0; i < m; i++)
        free((void *)w[i].gpus);
    free(w);
    return st;
}

/* 1 when every run has its idle power given (--set or RUNS.csv). */
int jl__nvsmi_idle_given(const jl_import_nvsmi_options *o, const jl__imp_run_spec *specs, size_t n)
{
    for (size_t i = 0; i < o->n_set; i++)
        if (!strcmp(o->set[i].key, "gpu_idle_power_w"))
            return 1;
    for (size_t i = 0; i < n; i++) {
        int has = 0;
        for (size_t k = 0; k < specs[i].n_attrs; k++)
            has |= !strcmp(specs[i].attrs[k].key, "gpu_idle_power_w");
        if (!has)
            return 0;
    }
    return 1;
}

/* The run's gpu_idle_power_w: the value given (its RUNS.csv row, else
 * --set) wins; else the log's idle level (kit_segment.c). */
static void apply_idle(ctx *c, const log_data *L, const jl__imp_run_spec *sp, jl_run *r,
                       const size_t *sel, size_t G, jl__strbuf *notes)
{
    const char *given = NULL;
    for (size_t i = 0; sp && i < sp->n_attrs && !given; i++)
        if (!strcmp(sp->attrs[i].key, "gpu_idle_power_w"))
            given = "its RUNS.csv row";
    for (size_t i = 0; i < c->opt->n_set && !given; i++)
        if (!strcmp(c->opt->set[i].key, "gpu_idle_power_w"))
            given = "--set";
    jl__imp_idle_apply(c->k, L->path, L->idle, sel, G, given, r, notes);
}

/* The zone the log's times were read in, as they were: their own offset
 * when every timestamp carried one ("UTC+08:00 (from the timestamps)"),
 * else the zone used. */
static const char *zone_text(const ctx *c, char *buf, size_t cap)
{
    size_t n_off, n_loc;
    int off;
    jl__zone_usage(c->zone, &n_off, &n_loc, &off);
    if (!n_off || n_loc)
        return jl__zone_name(c->zone);
    snprintf(buf, cap, "UTC%c%02d:%02d (from the timestamps)", off < 0 ? '-' : '+', abs(off) / 3600,
             abs(off) % 3600 / 60);
    return buf;
}

/* --runs auto (kit_segment.c): the runs of each log (ps[k]; t NULL for a
 * log not read), written to a runs file; *out the runs to import, whose
 * errors name that file from now on. */
jl_status jl__nvsmi_auto_runs(ctx *c, const jl__imp_pwlog *ps, const char *const *paths,
                              size_t n_logs, int gpu_names, jl__imp_run_spec **out, size_t *n_out)
{
    const jl_import_nvsmi_options *o = c->opt;
    const char *flags[8];
    size_t nf = 0;
    if (o->timezone)
        flags[2 * nf] = "--timezone", flags[2 * nf++ + 1] = o->timezone;
    if (o->columns)
        flags[2 * nf] = "--columns", flags[2 * nf++ + 1] = o->columns;
    if (o->sort)
        flags[2 * nf] = "--sort", flags[2 * nf++ + 1] = NULL;
    jl__imp_auto ao = {
        "nvidia-smi", o->runs_out, o->output, o->force, {o->auto_min_run_s, o->auto_merge_s},
        o->set,       o->n_set,    flags,     nf,       gpu_names};
    jl__imp_auto_runs ar;
    *out = NULL;
    *n_out = 0;
    jl_status st = jl__imp_auto_runs_find(c->k, c->errors, ps, paths, n_logs, &ao, &ar);
    if (st != JL_OK)
        return st;
    /* each window in UTC and in the zone the log was read in: a wrong
     * --timezone shows as hours that do not match the user's notes */
    char ztext[96];
    const char *zn = zone_text(c, ztext, sizeof ztext);
    for (size_t i = 0; i < ar.n && i < 50; i++) {
        char u0[32], u1[32], l0[32], l1[32];
        jl__zone *utc = NULL;
        jl_error *ze = NULL;
        if (jl__zone_open("UTC", &utc, &ze) != JL_OK) {
            jl_error_free(ze);
            break;
        }
        if (!jl__zone_format(utc, ar.rows[i].start, u0, sizeof u0) &&
            !jl__zone_format(utc, ar.rows[i].end, u1, sizeof u1) &&
            !jl__zone_format(c->zone, ar.rows[i].start, l0, sizeof l0) &&
            !jl__zone_format(c->zone, ar.rows[i].end, l1, sizeof l1))
            jl__imp_note(c->k, "", "run", "--runs auto: run %s from %s to %s UTC (%s to %s in %s)",
                         ar.rows[i].name ? ar.rows[i].name : "?", u0, u1 + 11, l0, l1 + 11, zn);
        jl__zone_free(utc);
    }
    jl__imp_run_spec *specs = calloc(ar.n, sizeof *specs);
    for (size_t i = 0; specs && i < ar.n; i++) {
        specs[i].req_offset = NAN;
        specs[i].start = ar.rows[i].start;
        specs[i].end = ar.rows[i].end;
        specs[i].line = (long long)i + 2;
        specs[i].name = (char *)ar.rows[i].name;
        ar.rows[i].name = NULL;
        if (n_logs > 1) {
            specs[i].log = (char *)ar.rows[i].log;
            ar.rows[i].log = NULL;
        }
    }
    if (!specs) {
        jl__imp_auto_runs_free(&ar);
        return jl__imp_err_at(c->errors, JL_ENOMEM, NULL, 0, 0, NULL, "--runs auto: out of memory");
    }
    *out = specs;
    *n_out = ar.n;
    c->auto_opt = *c->opt;
    c->auto_opt.runs_csv = c->auto_path = ar.path;
    c->opt = &c->auto_opt;
    ar.path = NULL;
    jl__imp_auto_runs_free(&ar);
    return JL_OK;
}

/* ---- what a run's window says about its figures (issue 37) ------------ */

/* Power at this share of its enforced limit or more: at the cap. */
#define AT_LIMIT_SHARE 0.97
/* A run is capped (slowed) when this share of its samples is. */
#define CAPPED_RUN_SHARE 0.5

void jl__nvsmi_info_init(run_info *ri)
{
    memset(ri, 0, sizeof *ri);
    ri->span0 = ri->span1 = ri->enf_min = ri->enf_max = NAN;
}

/* Sample i of L (its series at v[s] + i * L->G) into ri. */
void jl__nvsmi_info_sample(run_info *ri, const log_data *L, size_t i, double t, const size_t *sel,
                           size_t G, int pw)
{
    if (isnan(ri->span0))
        ri->span0 = t;
    ri->span1 = t;
    const int cap = K_CAPPED - FIRST_SERIES, slow = K_SLOWED - FIRST_SERIES,
              enf = K_ENF_LIMIT - FIRST_SERIES;
    int any = 0, capped = 0, slowed = 0, lim = 1, at = 1;
    for (size_t g = 0; g < G; g++) {
        size_t k = i * L->G + sel[g];
        if (L->has_series[cap] && isfinite(L->v[cap][k]))
            any = 1, capped |= L->v[cap][k] > 0;
        if (L->has_series[slow] && isfinite(L->v[slow][k]))
            any = 1, slowed |= L->v[slow][k] > 0;
        double e = L->has_series[enf] ? L->v[enf][k] : NAN, w = L->v[pw][k];
        if (isfinite(e) && e > 0) {
            ri->enf_min = isnan(ri->enf_min) ? e : fmin(ri->enf_min, e);
            ri->enf_max = isnan(ri->enf_max) ? e : fmax(ri->enf_max, e);
            at &= isfinite(w) && w >= AT_LIMIT_SHARE * e;
        } else {
            lim = 0;
        }
    }
    ri->n_thr += any;
    ri->n_capped += capped;
    ri->n_slowed += slowed;
    if (lim && G) {
        ri->n_enf++;
        ri->n_at_limit += at;
    }
}

/* The reasons of run r from its log: the sessions and identity changes its
 * window spans, a window beyond the log, the last line cut, the power cap
 * and throttling; and the power-cap context kept as attributes. */
static void run_reasons(ctx *c, const log_data *L, const jl__imp_run_spec *sp, jl_run *r,
                        const run_info *ri, const int edge[2], size_t session)
{
    const char *where = sp ? (c->opt->runs_csv ? c->opt->runs_csv : "RUNS.csv") : L->path;
    for (size_t k = 0; sp && k < L->n_sess; k++) {
        const log_session *x = &L->sess[k];
        if (!(x->t > ri->span0 && x->t <= ri->span1))
            continue;
        int ident = !strncmp(x->why, "GPU ", 4);
        jl__imp_reason(c->k, r, ident ? JL__R_IDENTITY_CHANGED : JL__R_CLOCK_JUMP, NAN, where,
                       "its window spans two logging sessions of %s: %s, line %lld (t = %.3f "
                       "Unix s); the energy across %.6g s without samples is not a measurement",
                       base_name(L->path), x->why, x->line, x->t, x->gap);
    }
    if (!sp && L->n_sess)
        jl__imp_reason(c->k, r, JL__R_SESSION_SPLIT, NAN, where,
                       "%s holds %zu logging sessions; this run is session %zu (%s)",
                       base_name(L->path), L->n_sess + 1, session + 1,
                       session ? L->sess[session - 1].why : "the first");
    if (sp && (edge[0] == JL__IMP_EDGE_CUT || edge[1] == JL__IMP_EDGE_CUT))
        jl__imp_reason(c->k, r, JL__R_WINDOW_NOT_BRACKETED, NAN, where,
                       "its window %.3f..%.3f (Unix s) reaches beyond the log's samples (%s "
                       "edge%s cut): its power covers only %.3f..%.3f",
                       sp->start, sp->end,
                       edge[0] == JL__IMP_EDGE_CUT && edge[1] == JL__IMP_EDGE_CUT ? "both"
                       : edge[0] == JL__IMP_EDGE_CUT                              ? "the start"
                                                                                  : "the end",
                       edge[0] == JL__IMP_EDGE_CUT && edge[1] == JL__IMP_EDGE_CUT ? "s" : "",
                       ri->span0, ri->span1);
    if (L->cut_last && ri->span1 >= L->t_end)
        jl__imp_reason(c->k, r, JL__R_TRUNCATED_RECORD, NAN, L->path,
                       "the log's last line (%lld) was cut mid-line and is left out: the run "
                       "ends at the reading before",
                       L->cut_line);
    /* power-cap context, kept per run */
    if (isfinite(ri->enf_min)) {
        jl__imp_extra_num(c->k, r, "enforced_power_limit_w", ri->enf_min);
        if (ri->enf_max > ri->enf_min)
            jl__imp_extra_num(c->k, r, "enforced_power_limit_max_w", ri->enf_max);
        if (isnan(r->attrs.gpu_tdp_w) || ri->enf_min < r->attrs.gpu_tdp_w)
            r->attrs.gpu_tdp_w = ri->enf_min;
    }
    if (ri->n_thr) {
        double cs = (double)ri->n_capped / (double)ri->n_thr,
               ss = (double)ri->n_slowed / (double)ri->n_thr;
        jl__imp_extra_num(c->k, r, "power_capped_share", cs);
        jl__imp_extra_num(c->k, r, "clocks_throttled_share", ss);
        if (cs >= CAPPED_RUN_SHARE)
            jl__imp_reason(c->k, r, JL__R_POWER_CAPPED, NAN, L->path,
                           "a power throttle reason (sw_power_cap or hw_power_brake) is active in "
                           "%.0f %% of its %zu samples%s",
                           100 * cs, ri->n_thr, "");
        if (ss >= CAPPED_RUN_SHARE)
            jl__imp_reason(c->k, r, JL__R_CLOCKS_THROTTLED, NAN, L->path,
                           "a thermal or hardware slowdown is active in %.0f %% of its %zu "
                           "samples",
                           100 * ss, ri->n_thr);
    } else if (ri->n_enf && (double)ri->n_at_limit >= CAPPED_RUN_SHARE * (double)ri->n_enf) {
        jl__imp_reason(c->k, r, JL__R_POWER_CAPPED, NAN, L->path,
                       "power is at %g %% of the enforced limit (%.6g W) or more in %.0f %% of "
                       "its samples",
                       100 * AT_LIMIT_SHARE, ri->enf_min,
                       100.0 * (double)ri->n_at_limit / (double)ri->n_enf);
    }
}

/* The request file's own date (vLLM's "date", the client's local time when
 * it saved the file, read in the log's zone) against the run's window: a
 * file saved hours or days away from it is another run's. */
#define REQUESTS_DATE_TOL_S 600.0
static void requests_date(ctx *c, const jl__imp_run_spec *sp, jl_run *r)
{
    const char *d = jl__imp_extra_get(r, "requests_date");
    int Y, M, D, h, m, sec;
    char tail;
    if (!d || sscanf(d, "%4d%2d%2d-%2d%2d%2d%c", &Y, &M, &D, &h, &m, &sec, &tail) != 6)
        return;
    char text[40];
    snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d", Y, M, D, h, m, sec);
    jl__civil cv;
    int gap = 0;
    if (!jl__civil_parse(text, &cv))
        return;
    double t = jl__zone_to_unix(c->zone, &cv, NAN, &gap);
    double tol = fmax(REQUESTS_DATE_TOL_S, sp->end - sp->start);
    double off = t < sp->start ? t - sp->start : t > sp->end ? t - sp->end : 0;
    if (!isfinite(t) || fabs(off) <= tol)
        return;
    jl__imp_reason(c->k, r, JL__R_REQUESTS_OUTSIDE_WINDOW, NAN, sp->requests,
                   "the request file says it was saved at %s (%s), %.1f h %s the run's window "
                   "(tolerance %.0f s): a file from another run or another day",
                   text, jl__zone_name(c->zone), fabs(off) / 3600, off < 0 ? "before" : "after",
                   tol);
}

/* Everything of a run but its power/ and gpu/ series: attributes (--set,
 * then the RUNS.csv row, then the log), notes, requests; a required
 * attribute not given is an error. n = the samples of its window; ri its
 * span and power-cap context, session its logging session (whole-log runs). */
jl_status jl__nvsmi_finish_run(ctx *c, const log_data *L, const jl__imp_run_spec *sp, jl_run *r,
                               double t0, const size_t *sel, size_t G, int pw, size_t n, double lag,
                               const int edge[2], const run_info *ri, size_t session)
{
    const char *where = sp ? c->opt->runs_csv : L->path;
    long long line = sp ? sp->line : 0;
    const char *name = r->name;
    jl_status st = JL_OK;
    jl__strbuf notes;
    jl__strbuf_init(&notes);
    jl_attrs *a = &r->attrs;
    for (size_t i = 0; i < c->opt->n_set; i++)
        set_attr(a, c->opt->set[i].key, c->opt->set[i].value);
    for (size_t i = 0; sp && i < sp->n_attrs; i++)
        set_attr(a, sp->attrs[i].key, sp->attrs[i].value);
    a->start_time_unix = t0;
    if (a->num_gpus >= 0 && (size_t)a->num_gpus != G) {
        st = jl__imp_err_at(c->errors, JL_EINVALID, where, line, 0, "num_gpus",
                            "run %s: num_gpus is %ld but the run holds %zu GPU%s of the log "
                            "(name them in a gpus column)",
                            name, a->num_gpus, G, G == 1 ? "" : "s");
        goto fail;
    }
    a->num_gpus = (long)G;
    /* from the log: GPU model, memory, power limit */
    const char *gname = L->gpus[sel[0]].name;
    if (gname)
        jl__imp_extra_default(c->k, r, "gpu_name", gname, 0);
    for (size_t g = 1; g < G; g++)
        if (gname && L->gpus[sel[g]].name && strcmp(gname, L->gpus[sel[g]].name))
            jl__imp_note(c->k, L->path, "name",
                         "run %s mixes GPU models (%s, %s): gpu_model is the first's", name, gname,
                         L->gpus[sel[g]].name);
    if (!a->gpu_model && gname) {
        char buf[128];
        if (!jl_gpu_model_from_name(gname, buf, sizeof buf))
            jl__imp_note(c->k, L->path, "name",
                         "GPU name '%s' is not in joules' table: gpu_model '%s'", gname, buf);
        if (!(a->gpu_model = jl__strdup(buf)))
            goto nomem;
    }
    if (isnan(a->gpu_memory_bytes) && isfinite(L->gpus[sel[0]].mem_total))
        a->gpu_memory_bytes = L->gpus[sel[0]].mem_total;
    if (isnan(a->gpu_tdp_w) && isfinite(L->gpus[sel[0]].limit_w))
        a->gpu_tdp_w = L->gpus[sel[0]].limit_w;
    const char *pname = (pw + FIRST_SERIES == K_POWER_INST ? "power.draw.instant" : "power.draw");
    /* power/@watts_kind: power.draw is the 1-s average on Ampere and newer */
    free(r->power_watts_kind);
    r->power_watts_kind = jl__strdup(
        pw + FIRST_SERIES == K_POWER_INST || before_ampere(gname) ? "instant" : "average_1s");
    if (!r->power_watts_kind)
        goto nomem;
    char *psrc = jl__asprintf("nvidia-smi %s", pname);
    if (!psrc)
        goto nomem;
    jl__imp_extra_default(c->k, r, "power_source", psrc, 0);
    free(psrc);
    jl__imp_extra_default(c->k, r, "source", "nvidia-smi", 0);
    jl__imp_extra_path(c->k, r, "nvidia_smi_log", L->path);
    char ztext[96];
    jl__imp_extra_default(c->k, r, "timezone", zone_text(c, ztext, sizeof ztext), 0);
    if (a->notes)
        jl__strbuf_printf(&notes, "%s ", a->notes);
    jl__strbuf_printf(&notes,
                      "Imported from the nvidia-smi log %s (%zu samples, %zu GPU%s). "
                      "power/watts: %s",
                      base_name(L->path), n, G, G == 1 ? "" : "s", pname);
    power_notes(&notes, L, sel, pw, lag, edge);
    jl__strbuf_puts(&notes, ".");
    apply_idle(c, L, sp, r, sel, G, &notes);
    run_reasons(c, L, sp, r, ri, edge, session);
    /* requests */
    if (sp && sp->requests) {
        char *path = NULL;
        if (sp->requests[0] == '/' || !c->opt->runs_csv || !strchr(c->opt->runs_csv, '/'))
            path = jl__strdup(sp->requests);
        else
            path = jl__asprintf("%.*s/%s", (int)(strrchr(c->opt->runs_csv, '/') - c->opt->runs_csv),
                                c->opt->runs_csv, sp->requests);
        if (!path)
            goto nomem;
        int given = !isnan(sp->req_offset);
        st = jl__imp_vllm_requests(c->k, path, r, given ? sp->req_offset : 0.0, given,
                                   c->opt->max_request_bytes, c->errors);
        if (st != JL_OK) {
            jl_error *e = c->errors->count ? c->errors->items[c->errors->count - 1] : NULL;
            if (e && !e->run)
                e->run = jl__strdup(name);
            free(path);
            goto fail;
        }
        free(path);
        requests_date(c, sp, r);
    }
    /* vLLM's max_concurrency bounds the requests in flight: the batch cap
     * when none is given */
    const char *mc = jl__imp_extra_get(r, "client_max_concurrency");
    if (a->max_batch_size < 1 && mc && atol(mc) >= 1) {
        a->max_batch_size = atol(mc);
        jl__imp_note(c->k, where, "max_batch_size",
                     "run %s: max_batch_size not given: the request file's max_concurrency (%s) "
                     "is used, the most requests the client kept in flight",
                     name, mc);
        jl__strbuf_printf(&notes, " max_batch_size from the request file's max_concurrency.");
    }
    /* required attributes still missing: an error naming them, never a
     * placeholder (a cap of 1 in place of the real one moves energy per
     * token by 5-26 % and every batch figure without a word) */
    jl__strbuf unk, fix;
    jl__strbuf_init(&unk);
    jl__strbuf_init(&fix);
    static const char *const all_required[] = {"workload",  "model",          "task", "precision",
                                               "gpu_model", "max_batch_size", NULL};
    for (const char *const *k = all_required; *k; k++) {
        int missing = !strcmp(*k, "max_batch_size") ? a->max_batch_size < 1
                                                    : !*FIELD(a, jl__imp_attr_field(*k), char *);
        if (!missing)
            continue;
        jl__strbuf_printf(&unk, "%s%s", unk.len ? ", " : "", *k);
        jl__strbuf_printf(&fix, " --set %s=...", *k);
    }
    if (unk.len) {
        char *u = jl__strbuf_take(&unk), *fx = jl__strbuf_take(&fix);
        st = jl__imp_err_at(c->errors, JL_EMISSING, where, line, 0, u ? u : "attributes",
                            "run %s: required attribute%s not given: %s. Give %s in a RUNS.csv "
                            "column%s or for every run with%s (docs/import.md, \"Runs\")",
                            name, strchr(u ? u : "", ',') ? "s" : "", u ? u : "",
                            strchr(u ? u : "", ',') ? "them" : "it",
                            strchr(u ? u : "", ',') ? "s" : "", fx ? fx : "");
        free(u);
        free(fx);
        goto fail;
    }
    jl__strbuf_free(&fix);
    jl__strbuf_free(&unk);
    free(a->notes);
    a->notes = jl__strbuf_take(&notes);
    return a->notes ? JL_OK
                    : jl__imp_err_at(c->errors, JL_ENOMEM, where, line, 0, NULL,
                                     "run %s: out of memory", name);
nomem:
    st = jl__imp_err_at(c->errors, JL_ENOMEM, where, line, 0, NULL, "run %s: out of memory", name);
fail:
    jl__strbuf_free(&notes);
    return st;
}

/* ---- a run's power over exactly its window (kit_clip.c) ---------------- */

/* The run's GPUs' values of one sample (v: its series, each G values): the
 * power field into a, power.draw.average into b (NULL: not wanted); 1 when
 * every GPU has finite power >= 0. */
static int run_values(const double *const *v, int pw, const size_t *sel, size_t G, double *a,
                      double *b)
{
    int ok = 1;
    for (size_t g = 0; g < G; g++) {
        a[g] = v[pw][sel[g]];
        ok &= isfinite(a[g]) && a[g] >= 0;
        if (b)
            b[g] = v[K_POWER_AVG - FIRST_SERIES][sel[g]];
    }
    return ok;
}

/* The series of sample i of L (each L->G values; NULL where not logged)
 * into v: what both readers feed a run's window and gpu/ from. */
void jl__nvsmi_sample_series(const log_data *L, size_t i, const double *v[N_SERIES])
{
    for (int q = 0; q < N_SERIES; q++)
        v[q] = L->has_series[q] ? L->v[q] + i * L->G : NULL;
}

/* One sample (its series v, at time t) into a run's power window w: the
 * run's GPUs' power field at t - lag, power.draw.average beside it where
 * logged (vals: 2 * G doubles of scratch). The one step by which the
 * in-memory and the streamed reader build power/. */
void jl__nvsmi_window_sample(jl__imp_clip *w, const log_data *L, const double *const *v, double t,
                             int pw, double lag, const size_t *sel, size_t G, double *vals)
{
    int has_avg = L->has_series[K_POWER_AVG - FIRST_SERIES];
    int ok = run_values(v, pw, sel, G, vals, has_avg ? vals + G : NULL);
    jl__imp_clip_sample(w, t - lag, vals, vals + G, ok);
}

/* gpu/'s datasets: the series, their names in the trace and their place in
 * jl_run (nvsmi_internal.h). */
const jl__nvsmi_gpu_series_t jl__nvsmi_gpu_series[JL__NVSMI_N_GPU_SERIES] = {
    {K_SM_UTIL, "sm_util", offsetof(jl_run, sm_util)},
    {K_MEM_UTIL, "mem_util", offsetof(jl_run, mem_util)},
    {K_MEM_USED, "mem_used_bytes", offsetof(jl_run, mem_used_bytes)},
    {K_SM_CLOCK, "sm_clock_mhz", offsetof(jl_run, sm_clock_mhz)},
    {K_TEMP, "temp_c", offsetof(jl_run, temp_c)}};

/* The power of GPU g at sample i of L for the idle level and --runs auto:
 * power.draw.instant where logged, else power.draw; NaN when neither is a
 * finite value >= 0. */
double jl__nvsmi_idle_watts(const log_data *L, size_t i, size_t g)
{
    int inst = K_POWER_INST - FIRST_SERIES, draw = K_POWER - FIRST_SERIES;
    size_t k = i * L->G + g;
    double x = L->has_series[inst] ? L->v[inst][k] : NAN;
    if (!isfinite(x) && L->has_series[draw])
        x = L->v[draw][k];
    return isfinite(x) && x >= 0 ? x : NAN;
}

/* The name of a whole log's run: the log's file name without its
 * extension. */
void jl__nvsmi_log_name(char *buf, size_t cap, const char *path)
{
    const char *b = base_name(path), *dot = strrchr(b, '.');
    snprintf(buf, cap, "%.*s", (int)(dot && dot > b ? dot - b : (long)strlen(b)), b);
}

/* The notes a run's window gets from its power: samples without power,
 * an edge beyond the log. */
void jl__nvsmi_window_notes(ctx *c, const log_data *L, const jl__imp_run_spec *sp, int pw,
                            const jl__imp_clip *w)
{
    c->dropped_rows += w->dropped;
    if (w->dropped)
        note_dropped(c, L, pw);
    if (sp && (w->edge[0] == JL__IMP_EDGE_CUT || w->edge[1] == JL__IMP_EDGE_CUT))
        jl__imp_note(c->k, c->opt->runs_csv ? c->opt->runs_csv : "RUNS.csv", "run",
                     "a run's window reaches beyond its log (first: %s): its power "
                     "covers only the logged part",
                     sp->name);
}

void jl__nvsmi_result_details(ctx *c, size_t n_logs, size_t rows, size_t G, int inst)
{
    const char *field = c->fields_used == 3           ? "power.draw, power.draw.instant"
                        : c->fields_used == 1         ? "power.draw"
                        : c->fields_used == 2 || inst ? "power.draw.instant"
                                                      : "power.draw";
    jl__imp_detail_num(c->k, "n_rows", (double)rows);
    jl__imp_detail_num(c->k, "max_gpus_per_log", (double)G);
    char zbuf[96];
    const char *ztext = zone_text(c, zbuf, sizeof zbuf);
    jl__imp_detail(c->k, "timezone", ztext, 0);
    jl__imp_detail(c->k, "power_field", field, 0);
    if (c->lag_used >= 0)
        jl__imp_detail_num(c->k, "power_lag_s", c->lag_used);
    else
        jl__imp_detail(c->k, "power_lag_s", "differs between runs (their notes say)", 0);
    jl__imp_detail_num(c->k, "samples_without_power", (double)c->dropped_rows);
    /* a note that matches what the times carried: their own offsets are
     * never said to be read in another zone (issue 37) */
    size_t n_off, n_loc;
    int off;
    jl__zone_usage(c->zone, &n_off, &n_loc, &off);
    if (n_off && !n_loc)
        jl__imp_note(c->k, "", "timestamp",
                     "the timestamps carry their own UTC offset (UTC%c%02d:%02d): read as "
                     "written%s",
                     off < 0 ? '-' : '+', abs(off) / 3600, abs(off) % 3600 / 60,
                     c->opt->timezone ? " (--timezone not used for them)" : "");
    else if (n_off)
        jl__imp_note(c->k, "", "timestamp",
                     "%zu timestamps carry their own UTC offset (read as written), %zu local ones "
                     "read in %s%s",
                     n_off, n_loc, jl__zone_name(c->zone),
                     c->opt->timezone ? "" : " (no --timezone given)");
    else
        jl__imp_note(c->k, "", "timestamp", "local times read in %s%s", jl__zone_name(c->zone),
                     c->opt->timezone ? "" : " (no --timezone given)");
    c->res->source = jl__asprintf("nvidia-smi CSV log%s (%zu rows)", n_logs == 1 ? "" : "s", rows);
    c->res->detail_text = jl__asprintf("%zu rows, up to %zu GPU%s a log, times in %s, power from "
                                       "%s, %zu notes",
                                       rows, G, G == 1 ? "" : "s", ztext, field, c->res->n_notes);
}

/* No window of RUNS.csv holds a sample of the logs: one error naming both
 * spans in UTC and how far apart they are ("your windows are 6.0 h before
 * the log"): a wrong --timezone, or a zone missing from RUNS.csv. */
void jl__nvsmi_windows_outside(ctx *c, const jl__imp_run_spec *specs, size_t n)
{
    if (!specs || !n || !isfinite(c->log_t0))
        return;
    double a = INFINITY, b = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        a = fmin(a, specs[i].start);
        b = fmax(b, specs[i].end);
    }
    if (!(b < c->log_t0 || a > c->log_t1))
        return; /* some overlap: each run said why */
    char w0[32] = "?", w1[32] = "?", l0[32] = "?", l1[32] = "?";
    jl__zone *utc = NULL;
    jl_error *ze = NULL;
    if (jl__zone_open("UTC", &utc, &ze) == JL_OK) {
        jl__zone_format(utc, a, w0, sizeof w0);
        jl__zone_format(utc, b, w1, sizeof w1);
        jl__zone_format(utc, c->log_t0, l0, sizeof l0);
        jl__zone_format(utc, c->log_t1, l1, sizeof l1);
    }
    jl_error_free(ze);
    jl__zone_free(utc);
    double gap = b < c->log_t0 ? c->log_t0 - b : a - c->log_t1;
    jl__imp_err_at(c->errors, JL_ENODATA, c->opt->runs_csv ? c->opt->runs_csv : "RUNS.csv", 0, 0,
                   "start",
                   "no window overlaps the log: your windows (%s to %s UTC) are %.1f h %s the "
                   "log's samples (%s to %s UTC, read in %s): a wrong --timezone, or times in "
                   "RUNS.csv without their zone?",
                   w0, w1, gap / 3600, b < c->log_t0 ? "before" : "after", l0, l1,
                   jl__zone_name(c->zone));
}
