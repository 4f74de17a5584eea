/* What a power log says outside and between its runs: each GPU's idle level
 * from the stretches outside every run, and runs cut at the rises and falls
 * of the total power (`--runs auto`). The rules: kit_segment.h and
 * docs/import.md ("Idle power from the log", "--runs auto"). */
#define _POSIX_C_SOURCE 200809L
#include "import/kit_segment.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/stats.h"
#include "core/util.h"
#include "import/kit.h"
#include "output/csv_row.h"

/* ---- small helpers ---------------------------------------------------------------- */

/* The median of v[0..n) (sorted in place, NaN last). */
static double median_sorted(double *v, size_t n)
{
    if (!n)
        return NAN;
    qsort(v, n, sizeof *v, jl__cmp_double);
    return jl__quantile_sorted(v, n, 0.5);
}

static int cmp_window(const void *a, const void *b)
{
    const jl__imp_window *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

/* First index with t > x. */
static size_t first_gt(const double *t, size_t n, double x)
{
    size_t i = jl__first_ge(t, n, x);
    while (i < n && t[i] <= x)
        i++;
    return i;
}

/* ---- idle level ----------------------------------------------------------------- */

void jl__imp_idle_free(jl__imp_idle *x)
{
    if (!x)
        return;
    free(x->w);
    free(x->samples);
    free(x->stretches);
    free(x->text);
    memset(x, 0, sizeof *x);
}

/* The median of GPU g's finite samples in [i0, i1) (NaN: none); scratch
 * holds i1 - i0 values. */
static double median_of(const jl__imp_pwlog *p, size_t g, size_t i0, size_t i1, double *scratch)
{
    size_t m = 0;
    for (size_t i = i0; i < i1; i++) {
        double x = p->w[i * p->G + g];
        if (isfinite(x))
            scratch[m++] = x;
    }
    return m ? median_sorted(scratch, m) : NAN;
}

/* The longest quiet run of GPU g's samples in [i0, i1): each sample within
 * max(BAND_W, BAND_SHARE * mean) of the mean of those before it; a missing
 * sample ends a run. */
static void quiet_part(const jl__imp_pwlog *p, size_t g, size_t i0, size_t i1, size_t *b0,
                       size_t *b1)
{
    size_t s = i0, cnt = 0;
    double sum = 0;
    *b0 = *b1 = i0;
    for (size_t i = i0; i <= i1; i++) {
        double x = i < i1 ? p->w[i * p->G + g] : NAN;
        int join = 0;
        if (isfinite(x) && cnt > 0) {
            double mean = sum / (double)cnt;
            double band = fmax(JL__IMP_IDLE_BAND_W, JL__IMP_IDLE_BAND_SHARE * mean);
            join = fabs(x - mean) <= band;
        }
        if (join) {
            sum += x;
            cnt++;
            continue;
        }
        if (cnt > *b1 - *b0) {
            *b0 = s;
            *b1 = s + cnt;
        }
        s = i;
        cnt = isfinite(x) ? 1 : 0;
        sum = isfinite(x) ? x : 0;
        if (!isfinite(x))
            s = i + 1;
    }
}

typedef struct piece {
    double lo, hi;
    const char *where; /* "before the first run", "between runs", "after the last run" */
} piece;

int jl__imp_idle_level(const jl__imp_pwlog *p, const jl__imp_window *runs, size_t n,
                       jl__imp_idle *out)
{
    memset(out, 0, sizeof *out);
    size_t G = p->G;
    out->G = G;
    jl__imp_window *u = jl__malloc_array(n ? n : 1, sizeof *u);
    piece *pc = jl__malloc_array(n + 1, sizeof *pc);
    double *scratch = jl__malloc_array(p->n ? p->n : 1, sizeof *scratch);
    double *runmed = jl__malloc_array(G ? G : 1, sizeof *runmed);
    double **pool = jl__calloc_array(G ? G : 1, sizeof *pool);
    size_t *npool = jl__calloc_array(G ? G : 1, sizeof *npool);
    out->w = jl__malloc_array(G ? G : 1, sizeof *out->w);
    out->samples = jl__calloc_array(G ? G : 1, sizeof *out->samples);
    out->stretches = jl__calloc_array(G ? G : 1, sizeof *out->stretches);
    jl__strbuf used, why;
    jl__strbuf_init(&used);
    jl__strbuf_init(&why);
    int rc = -1;
    if (!u || !pc || !scratch || !runmed || !pool || !npool || !out->w || !out->samples ||
        !out->stretches)
        goto end;
    for (size_t g = 0; g < G; g++)
        out->w[g] = NAN;
    if (p->n == 0 || n == 0) {
        out->text = jl__strdup(n == 0 ? "no run windows: no stretch outside them"
                                      : "the log has no samples");
        rc = out->text ? 0 : -1;
        goto end;
    }
    /* the union of the windows, in order */
    memcpy(u, runs, n * sizeof *u);
    qsort(u, n, sizeof *u, cmp_window);
    size_t nu = 0;
    for (size_t k = 0; k < n; k++) {
        if (nu && u[k].start <= u[nu - 1].end) {
            if (u[k].end > u[nu - 1].end)
                u[nu - 1].end = u[k].end;
        } else {
            u[nu++] = u[k];
        }
    }
    /* each GPU's lowest run median (of the runs that hold it): a quiet
     * stretch above it is no idle */
    for (size_t g = 0; g < G; g++) {
        runmed[g] = NAN;
        for (size_t k = 0; k < n; k++) {
            if (runs[k].gpus && !runs[k].gpus[g])
                continue;
            double m = median_of(p, g, jl__first_ge(p->t, p->n, runs[k].start),
                                 first_gt(p->t, p->n, runs[k].end), scratch);
            if (isfinite(m) && !(m >= runmed[g]))
                runmed[g] = m;
        }
    }
    double settle = p->averaged ? JL__IMP_IDLE_SETTLE_AVG_S : JL__IMP_IDLE_SETTLE_S;
    double t0 = p->t[0], tn = p->t[p->n - 1];
    size_t np = 0;
    pc[np++] = (piece){fmax(t0, u[0].start - JL__IMP_IDLE_MARGIN_S - JL__IMP_IDLE_NEAR_S),
                       u[0].start - JL__IMP_IDLE_MARGIN_S, "before the first run"};
    for (size_t k = 1; k < nu; k++)
        pc[np++] =
            (piece){u[k - 1].end + settle, u[k].start - JL__IMP_IDLE_MARGIN_S, "between runs"};
    pc[np++] =
        (piece){u[nu - 1].end + settle, fmin(tn, u[nu - 1].end + settle + JL__IMP_IDLE_NEAR_S),
                "after the last run"};
    size_t n_considered = 0;
    for (size_t k = 0; k < np; k++) {
        if (!(pc[k].hi > pc[k].lo))
            continue;
        size_t i0 = jl__first_ge(p->t, p->n, pc[k].lo), i1 = first_gt(p->t, p->n, pc[k].hi);
        if (i1 <= i0)
            continue;
        n_considered++;
        for (size_t g = 0; g < G; g++) {
            size_t b0, b1;
            quiet_part(p, g, i0, i1, &b0, &b1);
            size_t cnt = b1 - b0;
            double dur = cnt ? p->t[b1 - 1] - p->t[b0] : 0;
            const char *reject = NULL;
            double m = NAN;
            if (cnt < JL__IMP_IDLE_MIN_SAMPLES || dur < JL__IMP_IDLE_MIN_S)
                reject = "no quiet part of 5 samples over 1 s";
            else
                m = median_of(p, g, b0, b1, scratch);
            if (!reject && isfinite(runmed[g]) && !(m < runmed[g]))
                reject = "its level is not below every run's median power";
            char a[32], b[32];
            if (g == 0 && reject)
                jl__strbuf_printf(&why, "%s%s (%s..%s): %s", why.len ? "; " : "", pc[k].where,
                                  jl__iso_utc_ms(a, p->t[i0]), jl__iso_utc_ms(b, p->t[i1 - 1]),
                                  reject);
            if (reject)
                continue;
            double *x = realloc(pool[g], (npool[g] + cnt) * sizeof *x);
            if (!x)
                goto end;
            pool[g] = x;
            for (size_t i = b0; i < b1; i++)
                x[npool[g]++] = p->w[i * G + g];
            out->stretches[g]++;
            if (g == 0)
                jl__strbuf_printf(&used, "%s%s, %s..%s: %zu samples over %.1f s at %.1f W",
                                  used.len ? "; " : "", pc[k].where, jl__iso_utc_ms(a, p->t[b0]),
                                  jl__iso_utc_ms(b, p->t[b1 - 1]), cnt, dur, m);
        }
    }
    for (size_t g = 0; g < G; g++) {
        out->samples[g] = npool[g];
        if (npool[g])
            out->w[g] = median_sorted(pool[g], npool[g]);
    }
    if (isfinite(out->w[0])) {
        out->text =
            jl__asprintf("the median of %zu samples (GPU %s) in %zu quiet stretch%s of the "
                         "log outside the runs (%s)",
                         out->samples[0], G > 1 ? "0's; each GPU its own" : "0", out->stretches[0],
                         out->stretches[0] == 1 ? "" : "es", used.data ? used.data : "");
    } else {
        out->text = n_considered
                        ? jl__asprintf("no usable idle stretch outside the runs (%zu looked at: "
                                       "%s)",
                                       n_considered, why.data ? why.data : "")
                        : jl__asprintf("no usable idle stretch outside the runs (no samples "
                                       "outside their windows, %.3g s after a run's end and "
                                       "%.3g s before a start left out)",
                                       settle, JL__IMP_IDLE_MARGIN_S);
    }
    rc = (out->text && !used.failed && !why.failed) ? 0 : -1;
end:
    for (size_t g = 0; pool && g < G; g++)
        free(pool[g]);
    free(pool);
    free(npool);
    free(u);
    free(pc);
    free(scratch);
    free(runmed);
    jl__strbuf_free(&used);
    jl__strbuf_free(&why);
    if (rc)
        jl__imp_idle_free(out);
    return rc;
}

/* ---- runs from the power's rises and falls ----------------------------------- */

void jl__imp_segment_opt_default(jl__imp_segment_opt *o)
{
    o->min_run_s = 5.0;
    o->merge_s = 1.0;
}

void jl__imp_segments_free(jl__imp_segments *s)
{
    if (!s)
        return;
    free(s->runs);
    free(s->text);
    memset(s, 0, sizeof *s);
}

int jl__imp_segment(const jl__imp_pwlog *p, const jl__imp_segment_opt *o, jl__imp_segments *out)
{
    jl__imp_segment_opt def;
    if (!o) {
        jl__imp_segment_opt_default(&def);
        o = &def;
    }
    memset(out, 0, sizeof *out);
    out->floor_w = out->load_w = out->rise_w = out->fall_w = NAN;
    double *tt = jl__malloc_array(p->n ? p->n : 1, sizeof *tt);
    double *pw = jl__malloc_array(p->n ? p->n : 1, sizeof *pw);
    double *srt = jl__malloc_array(p->n ? p->n : 1, sizeof *srt);
    int rc = -1;
    size_t m = 0;
    if (!tt || !pw || !srt)
        goto end;
    for (size_t i = 0; i < p->n; i++) {
        double sum = 0;
        int ok = p->G > 0;
        for (size_t g = 0; g < p->G && ok; g++) {
            double x = p->w[i * p->G + g];
            ok = isfinite(x);
            sum += x;
        }
        if (ok) {
            tt[m] = p->t[i];
            pw[m++] = sum;
        }
    }
    if (m < 3) {
        out->text =
            jl__asprintf("%zu samples with the power of every GPU: too few to find runs", m);
        rc = out->text ? 0 : -1;
        goto end;
    }
    memcpy(srt, pw, m * sizeof *srt);
    qsort(srt, m, sizeof *srt, jl__cmp_double);
    double fl = jl__quantile_sorted(srt, m, JL__IMP_SEG_FLOOR_Q);
    double top = jl__quantile_sorted(srt, m, JL__IMP_SEG_TOP_Q);
    double span_min = fmax(10.0 * (double)p->G, 0.2 * top);
    out->floor_w = fl;
    if (!(top - fl >= span_min)) {
        out->text =
            jl__asprintf("the total power stays near one level (%.1f W at the 5th "
                         "percentile, %.1f W at the 95th, less than max(10 W per GPU, 20 %%) "
                         "apart): no rises and falls to cut runs at",
                         fl, top);
        rc = out->text ? 0 : -1;
        goto end;
    }
    double mid = 0.5 * (fl + top);
    size_t na = 0;
    for (size_t j = 0; j < m; j++)
        if (pw[j] > mid)
            srt[na++] = pw[j];
    double load = median_sorted(srt, na);
    double rise = fl + JL__IMP_SEG_RISE * (load - fl), fall = fl + JL__IMP_SEG_FALL * (load - fl);
    out->load_w = load;
    out->rise_w = rise;
    out->fall_w = fall;
    /* crossings, with hysteresis */
    size_t cap = 16, n = 0;
    jl__imp_window *w = malloc(cap * sizeof *w);
    if (!w)
        goto end;
    int in = 0;
    double s = 0;
    for (size_t j = 0; j <= m; j++) {
        int last = j == m;
        if (!in && !last && pw[j] >= rise) {
            in = 1;
            s = j ? 0.5 * (tt[j - 1] + tt[j]) : tt[0];
        } else if (in && (last || pw[j] < fall)) {
            in = 0;
            double e = last ? tt[m - 1] : 0.5 * (tt[j - 1] + tt[j]);
            if (n && s - w[n - 1].end < o->merge_s) {
                w[n - 1].end = e; /* a short dip: the same run */
                continue;
            }
            if (n == cap) {
                jl__imp_window *x = realloc(w, 2 * cap * sizeof *x);
                if (!x) {
                    free(w);
                    goto end;
                }
                w = x;
                cap *= 2;
            }
            w[n++] = (jl__imp_window){s, e, NULL};
        }
    }
    size_t kept = 0;
    jl__strbuf drop;
    jl__strbuf_init(&drop);
    for (size_t k = 0; k < n; k++) {
        if (w[k].end - w[k].start >= o->min_run_s) {
            w[kept++] = w[k];
            continue;
        }
        char a[32];
        if (out->n_dropped++ < 3)
            jl__strbuf_printf(&drop, "%s%s, %.1f s", out->n_dropped > 1 ? "; " : "",
                              jl__iso_utc_ms(a, w[k].start), w[k].end - w[k].start);
    }
    out->runs = w;
    out->n = kept;
    char *dr = jl__strbuf_take(&drop);
    out->text = jl__asprintf(
        "total power of %zu GPU%s: idle floor %.1f W (the 5th percentile of %zu samples), load "
        "level %.1f W (the median of the samples above %.1f W, half way from the floor to the "
        "95th percentile %.1f W); a run starts where the total power rises to %.1f W (floor + "
        "%.0f %% of load - floor) and ends where it falls below %.1f W (floor + %.0f %%), each "
        "edge half way between the samples either side; dips shorter than %g s merged, runs "
        "shorter than %g s dropped (%zu dropped%s%s%s); %zu run%s found",
        p->G, p->G == 1 ? "" : "s", fl, m, load, mid, top, rise, 100.0 * JL__IMP_SEG_RISE, fall,
        100.0 * JL__IMP_SEG_FALL, o->merge_s, o->min_run_s, out->n_dropped,
        out->n_dropped ? ": " : "", dr ? dr : "", out->n_dropped > 3 ? "; ..." : "", kept,
        kept == 1 ? "" : "s");
    free(dr);
    rc = out->text ? 0 : -1;
end:
    free(tt);
    free(pw);
    free(srt);
    if (rc)
        jl__imp_segments_free(out);
    return rc;
}

/* ---- a RUNS.csv for the user to edit ---------------------------------------- */

jl_status jl__imp_write_runs_csv(const char *path, const jl__imp_runs_row *rows, size_t n,
                                 int with_log, const jl_kv *set, size_t n_set, int force,
                                 jl_error_list *errors)
{
    if (!force && access(path, F_OK) == 0)
        return jl__imp_err_at(errors, JL_EUSAGE, path, 0, 0, NULL,
                              "already exists (edited runs?): use it with --runs %s, or replace "
                              "it with --force, or name another file with --runs-out",
                              path);
    char *tmp = jl__asprintf("%s.tmp%ld", path, (long)getpid());
    if (!tmp)
        return jl__imp_err_at(errors, JL_ENOMEM, path, 0, 0, NULL, "out of memory");
    FILE *f = fopen(tmp, "w");
    if (!f) {
        int e = errno;
        free(tmp);
        return jl__imp_err_at(errors, JL_EIO, path, 0, 0, NULL, "cannot write the runs found: %s",
                              strerror(e));
    }
    static const char *const cols[] = {"gpus",     "workload",       "model",
                                       "task",     "precision",      "max_batch_size",
                                       "requests", "requests_offset"};
    jl__csvw row;
    jl__csvw_begin(&row, f);
    static const char *const head[] = {"run", "start", "end", NULL};
    jl__csvw_cells(&row, head);
    if (with_log)
        jl__csvw_cell(&row, "log");
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
        jl__csvw_cell(&row, cols[c]);
    jl__csvw_end(&row);
    for (size_t i = 0; i < n; i++) {
        char a[32], b[32];
        jl__csvw_begin(&row, f);
        jl__csvw_cell(&row, rows[i].name);
        jl__csvw_cell(&row, jl__iso_utc_ms(a, rows[i].start));
        jl__csvw_cell(&row, jl__iso_utc_ms(b, rows[i].end));
        if (with_log)
            jl__csvw_cell(&row, rows[i].log);
        for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
            const char *v = NULL;
            for (size_t k = 0; k < n_set; k++)
                if (!strcmp(set[k].key, cols[c]))
                    v = set[k].value;
            jl__csvw_cell(&row, v);
        }
        jl__csvw_end(&row);
    }
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        free(tmp);
        return jl__imp_err_at(errors, JL_EIO, path, 0, 0, NULL, "cannot write the runs found: %s",
                              strerror(e));
    }
    free(tmp);
    return JL_OK;
}

/* ---- the idle level as an importer uses it ----------------------------------- */

jl_status jl__imp_idle_measure(jl__imp *k, const char *path, const jl__imp_pwlog *p,
                               const jl__imp_window *w, size_t n, jl__imp_idle **out)
{
    jl__imp_idle *x = calloc(1, sizeof *x);
    *out = NULL;
    if (!x || jl__imp_idle_level(p, w, n, x)) {
        free(x);
        return JL_ENOMEM;
    }
    if (x->G && isfinite(x->w[0]))
        jl__imp_note(k, path, "gpu_idle_power_w",
                     "idle power measured in the log (GPU 0: %.1f W), for runs given none: %s",
                     x->w[0], x->text);
    else
        jl__imp_note(k, path, "gpu_idle_power_w",
                     "gpu_idle_power_w left missing where not given: %s", x->text);
    *out = x;
    return JL_OK;
}

void jl__imp_idle_apply(jl__imp *k, const char *path, const jl__imp_idle *idle, const size_t *sel,
                        size_t G, const char *given, jl_run *r, jl__strbuf *notes)
{
    if (!idle || !idle->w)
        return;
    double sum = 0;
    int all = G > 0;
    for (size_t g = 0; g < G; g++) {
        all &= isfinite(idle->w[sel[g]]);
        sum += idle->w[sel[g]];
    }
    double est = all ? sum / (double)G : NAN;
    jl_attrs *a = &r->attrs;
    if (given && isfinite(est)) {
        jl__strbuf_printf(notes,
                          " gpu_idle_power_w %.6g W as given (%s), not the %.1f W of the log's "
                          "idle stretches.",
                          a->gpu_idle_power_w, given, est);
        jl__imp_note(k, path, "gpu_idle_power_w",
                     "the idle power given (%s) wins over the one measured in the log's idle "
                     "stretches (first: run %s, %.6g W given, %.1f W measured)",
                     given, r->name, a->gpu_idle_power_w, est);
    } else if (!given && all) {
        a->gpu_idle_power_w = est;
        jl__strbuf_printf(notes, " gpu_idle_power_w %.1f W per GPU, from the log's idle: %s.", est,
                          idle->text);
    } else if (!given) {
        jl__strbuf_printf(notes, " gpu_idle_power_w missing: %s.", idle->text);
    }
}

/* ---- --runs auto as an importer uses it -------------------------------------- */

void jl__imp_auto_runs_free(jl__imp_auto_runs *a)
{
    for (size_t i = 0; a && a->rows && i < a->n; i++) {
        free((char *)a->rows[i].name);
        free((char *)a->rows[i].log);
    }
    if (a) {
        free(a->rows);
        free(a->path);
        memset(a, 0, sizeof *a);
    }
}

/* The runs file's path: --runs-out, else the output's name with .runs.csv
 * for its extension (sweep.h5 -> sweep.runs.csv: one per output, --each
 * too), else RUNS.auto.csv. */
static char *auto_path(const jl__imp_auto *o)
{
    if (o->runs_out)
        return jl__strdup(o->runs_out);
    if (!o->output)
        return jl__strdup("RUNS.auto.csv");
    const char *b = strrchr(o->output, '/');
    b = b ? b + 1 : o->output;
    const char *dot = strrchr(b, '.');
    size_t l = (size_t)((dot && dot > b ? dot : b + strlen(b)) - o->output);
    return jl__asprintf("%.*s.runs.csv", (int)l, o->output);
}

/* The runs of log k (rows appended, named run01... or <log>_run01...). */
static int auto_log_rows(const jl__imp_segments *sg, const char *path, int several,
                         jl__imp_auto_runs *a)
{
    jl__imp_runs_row *x = realloc(a->rows, (a->n + sg->n + 1) * sizeof *x);
    if (!x)
        return -1;
    a->rows = x;
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    const char *dot = strrchr(b, '.');
    int bl = (int)(dot && dot > b ? dot - b : (long)strlen(b));
    for (size_t i = 0; i < sg->n; i++) {
        jl__imp_runs_row *r = &a->rows[a->n++];
        r->start = sg->runs[i].start;
        r->end = sg->runs[i].end;
        r->name =
            several ? jl__asprintf("%.*s_run%02zu", bl, b, i + 1) : jl__asprintf("run%02zu", i + 1);
        r->log = jl__strdup(path);
        if (!r->name || !r->log)
            return -1;
    }
    return 0;
}

/* The command that imports the runs file once filled. */
static char *auto_command(const jl__imp_auto *o, const char *const *paths, size_t n_logs,
                          const char *path)
{
    jl__strbuf cmd;
    jl__strbuf_init(&cmd);
    jl__strbuf_printf(&cmd, "joules import %s", o->format);
    for (size_t k = 0; k < n_logs; k++) {
        if (!paths[k])
            continue;
        char *q = jl_shell_quote(paths[k]);
        jl__strbuf_printf(&cmd, " %s", q ? q : "");
        free(q);
    }
    char *q = jl_shell_quote(path);
    jl__strbuf_printf(&cmd, " --runs %s", q ? q : "");
    free(q);
    for (size_t i = 0; i < 2 * o->n_flags; i += 2) {
        jl__strbuf_printf(&cmd, " %s", o->flags[i]);
        if (o->flags[i + 1]) {
            q = jl_shell_quote(o->flags[i + 1]);
            jl__strbuf_printf(&cmd, " %s", q ? q : "");
            free(q);
        }
    }
    for (size_t i = 0; i < o->n_set; i++) {
        char *kv = jl__asprintf("%s=%s", o->set[i].key, o->set[i].value);
        q = kv ? jl_shell_quote(kv) : NULL;
        jl__strbuf_printf(&cmd, " --set %s", q ? q : "");
        free(q);
        free(kv);
    }
    q = o->output ? jl_shell_quote(o->output) : NULL;
    jl__strbuf_printf(&cmd, " -o %s%s", q ? q : "OUT.h5", o->force ? " --force" : "");
    free(q);
    return jl__strbuf_take(&cmd);
}

/* The required attributes no --set gives (gpu_model also from the logs'
 * names), as "a, b"; NULL when none or out of memory (*oom). */
static char *auto_missing(const jl__imp_auto *o, int *oom)
{
    jl_attrs probe;
    jl_attrs_init(&probe);
    for (size_t i = 0; i < o->n_set; i++)
        jl__imp_set_attr(&probe, o->set[i].key, o->set[i].value);
    static const char *const req[] = {"workload",  "model",          "task", "precision",
                                      "gpu_model", "max_batch_size", NULL};
    jl__strbuf miss;
    jl__strbuf_init(&miss);
    for (const char *const *k = req; *k; k++) {
        const jl__attr_field *f = jl__imp_attr_field(*k);
        int missing = !strcmp(*k, "max_batch_size")
                          ? probe.max_batch_size < 1
                          : !*(char **)((char *)&probe + f->off) &&
                                !(o->gpu_names && !strcmp(*k, "gpu_model"));
        if (missing)
            jl__strbuf_printf(&miss, "%s%s", miss.len ? ", " : "", *k);
    }
    jl_attrs_clear(&probe);
    if (!miss.len) {
        *oom = miss.failed;
        jl__strbuf_free(&miss);
        return NULL;
    }
    char *m = jl__strbuf_take(&miss);
    *oom = !m;
    return m;
}

jl_status jl__imp_auto_runs_find(jl__imp *k, jl_error_list *errors, const jl__imp_pwlog *ps,
                                 const char *const *paths, size_t n_logs, const jl__imp_auto *o,
                                 jl__imp_auto_runs *out)
{
    memset(out, 0, sizeof *out);
    jl_status st = JL_OK;
    jl__strbuf thr;
    jl__strbuf_init(&thr);
    char *tx = NULL, *miss = NULL, *cmd = NULL;
    int oom = 0;
    if (!(out->path = auto_path(o)))
        goto nomem;
    for (size_t i = 0; i < n_logs; i++) {
        if (!ps[i].t)
            continue;
        jl__imp_segments sg;
        if (jl__imp_segment(&ps[i], &o->seg, &sg))
            goto nomem;
        const char *b = strrchr(paths[i], '/');
        jl__strbuf_printf(&thr, "%s%s: %s", thr.len ? "; " : "", b ? b + 1 : paths[i], sg.text);
        if (n_logs == 1) { /* the import document's details */
            jl__imp_detail_num(k, "runs_auto_floor_w", sg.floor_w);
            jl__imp_detail_num(k, "runs_auto_load_w", sg.load_w);
            jl__imp_detail_num(k, "runs_auto_rise_w", sg.rise_w);
            jl__imp_detail_num(k, "runs_auto_fall_w", sg.fall_w);
            jl__imp_detail_num(k, "runs_auto_dropped", (double)sg.n_dropped);
        }
        int bad = auto_log_rows(&sg, paths[i], n_logs > 1, out);
        jl__imp_segments_free(&sg);
        if (bad)
            goto nomem;
    }
    if (!(tx = jl__strbuf_take(&thr)))
        goto nomem;
    const char *one = n_logs == 1 ? paths[0] : NULL;
    if (out->n == 0) {
        st = jl__imp_err_at(errors, JL_ENODATA, one, 0, 0, "power",
                            "--runs auto found no run: %s. Give the windows in a RUNS.csv "
                            "(--runs FILE; docs/import.md, \"Runs\")",
                            tx);
        goto end;
    }
    jl__imp_note(k, one ? one : "", "power", "--runs auto: %s; written to %s", tx, out->path);
    jl__imp_detail(k, "runs_auto_file", out->path, 0);
    if ((st = jl__imp_write_runs_csv(out->path, out->rows, out->n, n_logs > 1, o->set, o->n_set,
                                     o->force, errors)) != JL_OK)
        goto end;
    miss = auto_missing(o, &oom);
    if (oom)
        goto nomem;
    if (!miss)
        goto end;
    if (!(cmd = auto_command(o, paths, n_logs, out->path)))
        goto nomem;
    int several = strchr(miss, ',') != NULL;
    st = jl__imp_err_at(errors, JL_EMISSING, out->path, 0, 0, NULL,
                        "--runs auto found %zu run%s and wrote them here; required attributes "
                        "have no value: %s. Fill %s column%s in this file (one value per run; "
                        "check the windows too), then import it:\n  %s\n(or give them for every "
                        "run with --set KEY=VALUE and --runs auto imports at once). "
                        "Thresholds: %s",
                        out->n, out->n == 1 ? "" : "s", miss, several ? "these" : "this",
                        several ? "s" : "", cmd, tx);
    goto end;
nomem:
    st = jl__imp_err_at(errors, JL_ENOMEM, NULL, 0, 0, NULL, "--runs auto: out of memory");
end:
    jl__strbuf_free(&thr);
    free(tx);
    free(miss);
    free(cmd);
    if (st != JL_OK)
        jl__imp_auto_runs_free(out);
    return st;
}
