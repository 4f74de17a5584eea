/* Spans from a profiler's ranges (profile_spans.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/reasons.h"
#include "import/kit.h"
#include "import/profile_spans.h"

typedef struct {
    double t0;
    size_t idx;
} order_key;

static int cmp_order(const void *a, const void *b)
{
    const order_key *x = a, *y = b;
    if (x->t0 != y->t0)
        return x->t0 < y->t0 ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

jl_status jl__spans_from_raw(jl__raw_spans *raw, const jl_run *run, const double win[2],
                             jl_spans **out, size_t *n_steps)
{
    *out = NULL;
    *n_steps = 0;
    size_t n = raw->n;
    order_key *ord = malloc((n ? n : 1) * sizeof *ord);
    size_t *pos = malloc((n ? n : 1) * sizeof *pos);
    int32_t *remap = malloc((raw->n_names ? raw->n_names : 1) * sizeof *remap);
    jl_spans *sp = jl_spans_new();
    jl_status st = JL_ENOMEM;
    if (!ord || !pos || !remap || !sp)
        goto end;
    sp->n = n;
    sp->name = malloc((n ? n : 1) * sizeof *sp->name);
    sp->start = malloc((n ? n : 1) * sizeof *sp->start);
    sp->end = malloc((n ? n : 1) * sizeof *sp->end);
    sp->parent = malloc((n ? n : 1) * sizeof *sp->parent);
    sp->gpu = malloc((n ? n : 1) * sizeof *sp->gpu);
    sp->step = malloc((n ? n : 1) * sizeof *sp->step);
    sp->busy_s = raw->busy_s ? malloc((n ? n : 1) * sizeof *sp->busy_s) : NULL;
    sp->names = calloc(raw->n_names ? raw->n_names : 1, sizeof *sp->names);
    if (!sp->name || !sp->start || !sp->end || !sp->parent || !sp->gpu || !sp->step ||
        (raw->busy_s && !sp->busy_s) || !sp->names)
        goto end;
    for (size_t j = 0; j < n; j++)
        ord[j] = (order_key){raw->start[j], j};
    qsort(ord, n, sizeof *ord, cmp_order);
    for (size_t j = 0; j < n; j++)
        pos[ord[j].idx] = j;
    for (size_t j = 0; j < raw->n_names; j++)
        remap[j] = -1;
    double lo = INFINITY, hi = -INFINITY;
    int32_t step = -1;
    size_t e_row = 0;
    for (size_t o = 0; o < n; o++) {
        size_t j = ord[o].idx;
        int32_t nm = raw->name[j];
        if (remap[nm] < 0) {
            remap[nm] = (int32_t)sp->n_names;
            sp->names[sp->n_names++] = raw->names[nm];
            raw->names[nm] = NULL;
        }
        sp->name[o] = remap[nm];
        sp->start[o] = raw->start[j];
        sp->end[o] = raw->end[j];
        sp->parent[o] = raw->parent && raw->parent[j] >= 0 ? (int32_t)pos[raw->parent[j]] : -1;
        sp->gpu[o] = raw->gpu ? raw->gpu[j] : 0;
        if (sp->busy_s)
            sp->busy_s[o] = (float)raw->busy_s[j];
        const char *name = sp->names[sp->name[o]];
        size_t len = strlen(name);
        if (len > 5 && !strcmp(name + len - 5, "_step")) {
            while (e_row < run->engine_n && run->engine_time[e_row] < sp->start[o])
                e_row++;
            step =
                run->engine_n ? (e_row < run->engine_n ? (int32_t)e_row : -1) : (int32_t)*n_steps;
            (*n_steps)++;
        }
        sp->step[o] = step;
        lo = fmin(lo, sp->start[o]);
        hi = fmax(hi, sp->end[o]);
    }
    if (win && isfinite(win[0]) && isfinite(win[1])) {
        lo = fmin(lo, win[0]);
        hi = fmax(hi, win[1]);
    }
    sp->window[0] = lo;
    sp->window[1] = hi;
    *out = sp;
    sp = NULL;
    st = JL_OK;
end:
    jl_spans_free(sp);
    free(ord);
    free(pos);
    free(remap);
    return st;
}

jl_status jl__profile_read_run(const char *path, const char *run, jl_run **out,
                               jl_error_list *errors)
{
    *out = NULL;
    jl_trace *t = NULL;
    jl_error *err = NULL;
    jl_status st = jl_trace_open(path, NULL, &t, &err);
    size_t i = 0;
    if (st == JL_OK) {
        while (i < jl_trace_run_count(t) && strcmp(jl_trace_run_name(t, i), run))
            i++;
        if (i == jl_trace_run_count(t))
            st = jl_fail(&err, JL_EUSAGE, path, run, NULL, -1, "no run '%s' in the trace", run);
    }
    if (st == JL_OK)
        st = jl_trace_read_run(t, i, out, &err);
    jl_trace_close(t);
    if (st != JL_OK)
        jl_error_list_push(errors, err);
    return st;
}

int jl__unix_ns(double t, long long *ns)
{
    if (!(fabs(t) < 9.2e9))
        return -1;
    double whole = floor(t);
    *ns = (long long)whole * 1000000000LL + llround((t - whole) * 1e9);
    return 0;
}

/* ---- spans against their power (issue 37) -------------------------------- */

/* The power of run at time t: the GPUs' total, linear between samples (NaN
 * outside them). */
static double power_at(const jl_run *r, double t, size_t *cur)
{
    const double *pt = r->power_time;
    size_t n = r->power_n, G = r->watts.g;
    if (!n || t < pt[0] || t > pt[n - 1])
        return NAN;
    size_t i = *cur < n ? *cur : 0;
    if (pt[i] > t)
        i = 0;
    while (i + 1 < n && pt[i + 1] < t)
        i++;
    *cur = i;
    double a = 0, b = 0;
    for (size_t g = 0; g < G; g++) {
        a += r->watts.v[i * G + g];
        b += r->watts.v[(i + 1 < n ? i + 1 : i) * G + g];
    }
    double dt = i + 1 < n ? pt[i + 1] - pt[i] : 0;
    return dt > 0 ? a + (b - a) * (t - pt[i]) / dt : a;
}

/* Pearson correlation of x and y over n bins (NaN where either is NaN
 * skipped); NaN when either does not vary. */
static double correlation(const double *x, const double *y, size_t n)
{
    double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i]))
            continue;
        sx += x[i], sy += y[i], sxx += x[i] * x[i], syy += y[i] * y[i], sxy += x[i] * y[i];
        m++;
    }
    if (m < 8)
        return NAN;
    double vx = sxx - sx * sx / (double)m, vy = syy - sy * sy / (double)m;
    if (!(vx > 1e-12 * (double)m) || !(vy > 1e-12 * (double)m))
        return NAN;
    return (sxy - sx * sy / (double)m) / sqrt(vx * vy);
}

int jl__spans_alignment(const jl_spans *sp, const jl_run *run, jl__span_fit *fit)
{
    memset(fit, 0, sizeof *fit);
    fit->best_offset_s = fit->score_now = fit->score_best = NAN;
    if (!sp || !sp->n || !run->watts.v || run->power_n < 8)
        return -1;
    double w0 = INFINITY, w1 = -INFINITY;
    for (size_t i = 0; i < sp->n; i++) {
        w0 = fmin(w0, sp->start[i]);
        w1 = fmax(w1, sp->end[i]);
    }
    double span = w1 - w0;
    if (!(span > 0))
        return -1;
    /* bins: the power's own sampling period, at least 10 ms, at most 8,000 bins */
    double dt = (run->power_time[run->power_n - 1] - run->power_time[0]) / (double)run->power_n;
    double h = fmax(fmax(dt, 0.01), span / 8000);
    double S = fmax(JL__SPAN_SEARCH_MIN_S, fmin(JL__SPAN_SEARCH_MAX_S, span));
    size_t nb = (size_t)ceil(span / h), ns = (size_t)ceil(S / h);
    size_t np = nb + 2 * ns;
    double *busy = calloc(nb, sizeof *busy), *pw = malloc(np * sizeof *pw);
    if (!busy || !pw) {
        free(busy);
        free(pw);
        return -2;
    }
    /* busy: the share of each bin covered by a top-level span */
    for (size_t i = 0; i < sp->n; i++) {
        if (sp->parent && sp->parent[i] >= 0)
            continue;
        double a = (sp->start[i] - w0) / h, b = (sp->end[i] - w0) / h;
        for (size_t k = (size_t)fmax(0, floor(a)); k < nb && (double)k < b; k++)
            busy[k] += fmin(b, (double)k + 1) - fmax(a, (double)k);
    }
    for (size_t k = 0; k < nb; k++)
        busy[k] = fmin(busy[k], 1.0);
    /* power at the bins' centres, from S before the spans to S after */
    size_t cur = 0;
    for (size_t k = 0; k < np; k++)
        pw[k] = power_at(run, w0 - (double)ns * h + ((double)k + 0.5) * h, &cur);
    double best = -INFINITY;
    long best_k = 0;
    for (long d = -(long)ns; d <= (long)ns; d++) {
        double c = correlation(busy, pw + ns + d, nb);
        if (d == 0)
            fit->score_now = c;
        if (isfinite(c) && c > best) {
            best = c;
            best_k = d;
        }
    }
    free(busy);
    free(pw);
    if (!isfinite(best))
        return -1; /* no pattern: the spans cover the window, or power is flat */
    fit->score_best = best;
    fit->best_offset_s = (double)best_k * h;
    double now = isfinite(fit->score_now) ? fit->score_now : -1;
    fit->misaligned = fabs(fit->best_offset_s) > JL__SPAN_TOL_S && best > JL__SPAN_MIN_SCORE &&
                      best - now > JL__SPAN_MIN_GAIN;
    return fit->misaligned;
}

jl_status jl__spans_write_checked(const char *trace, const char *run_name, const jl_spans *sp,
                                  const jl_run *run, int allow, const char *file,
                                  jl_error_list *errors, jl__span_fit *fit)
{
    int k = jl__spans_alignment(sp, run, fit);
    if (k == -2)
        return jl__imp_err_at(errors, JL_ENOMEM, file, 0, 0, NULL, "out of memory");
    char *reasons = NULL;
    const char *old = NULL;
    for (size_t i = 0; i < run->attrs.n_extra; i++)
        if (!strcmp(run->attrs.extra[i].key, JL__VALIDITY_ATTR))
            old = run->attrs.extra[i].value;
    jl_validity v = {0};
    if (old && jl_validity_parse_text(&v, old) == JL_ENOMEM)
        return jl__imp_err_at(errors, JL_ENOMEM, file, 0, 0, NULL, "out of memory");
    /* the spans placed now replace those an earlier import marked */
    int had = 0;
    for (size_t i = 0; i < v.n; i++)
        if (!strcmp(v.reasons[i].code, jl__reason_code(JL__R_SPANS_MISALIGNED))) {
            free(v.reasons[i].code);
            free(v.reasons[i].message);
            memmove(&v.reasons[i], &v.reasons[i + 1], (v.n - i - 1) * sizeof *v.reasons);
            v.n--, i--, had = 1;
        }
    if (k == 1) {
        char msg[512];
        snprintf(msg, sizeof msg,
                 "the spans' busy/idle pattern fits the power best %+.2f s from where they were "
                 "placed (correlation %.2f there, %.2f as placed): the profile's clock is off; "
                 "re-import with --offset adjusted by %+.2f s",
                 fit->best_offset_s, fit->score_best, fit->score_now, fit->best_offset_s);
        if (!allow) {
            jl_validity_clear(&v);
            return jl__imp_err_at(errors, JL_EINVALID, file, 0, 0, "spans_misaligned",
                                  "run %s: %s (or --allow-misaligned to import them as placed, "
                                  "the run marked spans_misaligned)",
                                  run_name, msg);
        }
        if (jl_validity_add(&v, jl__reason_code(JL__R_SPANS_MISALIGNED), NAN, msg) != JL_OK) {
            jl_validity_clear(&v);
            return jl__imp_err_at(errors, JL_ENOMEM, file, 0, 0, NULL, "out of memory");
        }
        had = 1;
    }
    if (had && !(reasons = jl_validity_to_text(&v))) {
        jl_validity_clear(&v);
        return jl__imp_err_at(errors, JL_ENOMEM, file, 0, 0, NULL, "out of memory");
    }
    jl_validity_clear(&v);
    jl_error *werr = NULL;
    jl_status st = jl_trace_write_spans_reasons(trace, run_name, sp, NULL, reasons, &werr);
    free(reasons);
    if (st != JL_OK)
        jl_error_list_push(errors, werr);
    return st;
}
