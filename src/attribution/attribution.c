/* The attribution: the energy the counter measured in a window, split among
 * the spans' rows (docs/attribute.md, "Method").
 *
 * The window is cut at the counter's real update times (and at the bins of
 * --by time). In each piece k the measured energy E_k is the counter's
 * increment (pro rata by time where a piece is part of an update interval);
 * its static part is P_static x length, split among the spans by their
 * exclusive time in the piece; its dynamic part E_k - static is split by
 * each span's device-busy time in the piece x its class weight. What the
 * spans do not take (time without spans, dynamic energy calibrated weights
 * do not explain) is the unattributed row; gaps without spans longer than
 * stall_min_s are the stalls. Every joule of every piece lands in exactly
 * one of rows, unattributed or stalls, so they add up to the window's
 * energy up to rounding (the residual, printed). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <fnmatch.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attribution/attribution_internal.h"
#include "core/stats.h"
#include "core/util.h"

static const struct {
    const char *name;
    double def;
    const char *text;
} warning_table[] = {
#define JL_X_W(id, def, text) {#id, def, text},
    JL_ATTRIBUTION_WARNINGS(JL_X_W)
#undef JL_X_W
};

const char *jl_attribution_warning_name(jl_attribution_warning_id id)
{
    return (unsigned)id < JL_ATTRIBUTION_WARN_COUNT ? warning_table[id].name : "?";
}

int jl_attribution_warning_find(const char *name)
{
    for (int i = 0; i < JL_ATTRIBUTION_WARN_COUNT; i++)
        if (!strcmp(warning_table[i].name, name))
            return i;
    return -1;
}

void jl_attribution_options_default(jl_attribution_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->by = JL_ATTRIBUTION_BY_CLASS;
    opt->time_bin_s = 1.0;
    opt->window[0] = opt->window[1] = NAN;
    opt->static_w = NAN;
    opt->stall_min_s = 0.010;
    opt->uncal_ratio = 4.0;
    opt->calibration_mode = JL_CALIBRATION_ABSOLUTE;
    opt->clock_correction = JL_SPEED_CLOCK;
    opt->host_launch = JL_HOST_LAUNCH_SPANS;
    for (int i = 0; i < JL_ATTRIBUTION_WARN_COUNT; i++)
        opt->warn_threshold[i] = warning_table[i].def;
}

static void weights_clear(jl_class_weights *w);

void jl_class_weights_free(jl_class_weights *w)
{
    if (!w)
        return;
    weights_clear(w);
    free(w);
}

void jl_attribution_free(jl_attribution *a)
{
    if (!a)
        return;
    free(a->file);
    free(a->run);
    free(a->static_source);
    free(a->energy_source);
    for (size_t i = 0; i < a->n_rows; i++) {
        free(a->rows[i].key);
        free(a->rows[i].peak_reason);
    }
    free(a->rows);
    free(a->weights);
    jl_class_weights_free(a->weights_used);
    jl_sensor_clear(&a->sensor);
    free(a->sensor_source);
    for (size_t i = 0; i < a->n_warnings; i++)
        free(a->warnings[i].message);
    free(a->warnings);
    for (size_t i = 0; a->class_names && i < a->n_classes; i++)
        free(a->class_names[i]);
    free(a->class_names);
    free(a->row_class_j);
    free(a);
}

/* ---- classes ------------------------------------------------------------------ */

void jl_attribution_classify(const jl_attribution_options *opt, const char *name, char *cls,
                             size_t cap, int *layer, const char **kind)
{
    *layer = -1;
    *kind = "op";
    /* the layer number, whatever the class rule says */
    if (!strncmp(name, "layer", 5) && name[5] >= '0' && name[5] <= '9') {
        char *end;
        long n = strtol(name + 5, &end, 10);
        if (*end == '.' && end[1] && n < 1000000) {
            *layer = (int)n;
            *kind = "layer";
        }
    }
    size_t len = strlen(name);
    int profiler_step = !strncmp(name, "ProfilerStep#", 13);
    if ((len > 5 && !strcmp(name + len - 5, "_step")) || profiler_step)
        *kind = "step";
    for (size_t i = 0; opt && i < opt->n_class_rules; i++) {
        const char *r = opt->class_rules[i], *eq = strrchr(r, '=');
        if (!eq || (size_t)(eq - r) >= 256)
            continue;
        char pat[256];
        memcpy(pat, r, (size_t)(eq - r));
        pat[eq - r] = 0;
        if (fnmatch(pat, name, 0) == 0) {
            snprintf(cls, cap, "%s", eq + 1);
            return;
        }
    }
    if (*layer >= 0)
        snprintf(cls, cap, "%s", strchr(name, '.') + 1);
    else if (profiler_step) /* PyTorch's ProfilerStep#N, one class */
        snprintf(cls, cap, "ProfilerStep");
    else
        snprintf(cls, cap, "%s", name);
}

/* ---- the engine --------------------------------------------------------------- */

typedef struct {
    size_t n, cap;
    char **keys;
} keyset;

/* index of key in ks, added when new; SIZE_MAX when out of memory */
static size_t key_index(keyset *ks, const char *key)
{
    for (size_t i = ks->n; i-- > 0;)
        if (!strcmp(ks->keys[i], key))
            return i;
    if (ks->n == ks->cap) {
        size_t nc = ks->cap ? 2 * ks->cap : 64;
        char **k = realloc(ks->keys, nc * sizeof *k);
        if (!k)
            return SIZE_MAX;
        ks->keys = k;
        ks->cap = nc;
    }
    if (!(ks->keys[ks->n] = jl__strdup(key)))
        return SIZE_MAX;
    return ks->n++;
}

typedef struct {
    double pred_j;  /* calibrated: the weights' prediction of the dynamic energy */
    double wbusy;   /* busy x relative weight */
    double rel_unc; /* busy-weighted relative uncertainty of the weights */
} row_extra;

/* first index k with bnd[k+1] > x (the piece holding x) */
static size_t piece_of(const double *bnd, size_t K, double x)
{
    size_t lo = 0, hi = K; /* pieces 0..K-1, piece k = [bnd[k], bnd[k+1]] */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (bnd[mid + 1] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < K ? lo : K - 1;
}

static int add_warning(jl_attribution *a, const jl_attribution_options *opt,
                       jl_attribution_warning_id id, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int add_warning(jl_attribution *a, const jl_attribution_options *opt,
                       jl_attribution_warning_id id, const char *fmt, ...)
{
    if (opt->warn_off[id])
        return 1;
    jl_attribution_warning *w = realloc(a->warnings, (a->n_warnings + 1) * sizeof *w);
    if (!w)
        return 0;
    a->warnings = w;
    va_list ap;
    va_start(ap, fmt);
    char *m = jl__vasprintf(fmt, ap);
    va_end(ap);
    if (!m)
        return 0;
    w[a->n_warnings].id = id;
    w[a->n_warnings].message = m;
    a->n_warnings++;
    return 1;
}

/* tokens generated by time x (engine/ tokens_generated, linear between rows) */
static double tokens_at(const jl_run *run, double x)
{
    size_t n = run->engine_n;
    if (!n || !run->tokens_generated)
        return NAN;
    const double *t = run->engine_time;
    if (x <= t[0])
        return (double)run->tokens_generated[0] * (t[0] > 0 && x > 0 ? x / t[0] : 0);
    if (x >= t[n - 1])
        return (double)run->tokens_generated[n - 1];
    size_t lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (t[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    double f = t[hi] > t[lo] ? (x - t[lo]) / (t[hi] - t[lo]) : 1;
    return (double)run->tokens_generated[lo] +
           f * (double)(run->tokens_generated[hi] - run->tokens_generated[lo]);
}

typedef struct {
    size_t span;
    double a, b;  /* clipped to the window */
    double excl;  /* exclusive time inside [a, b] */
    double busy;  /* device-busy time inside [a, b] */
    double w_rel; /* relative class weight (1 when uncalibrated) */
    double w_abs; /* calibrated W per busy second, NaN when uncalibrated */
    double unc;   /* the weight's relative uncertainty */
    size_t row;   /* row (SIZE_MAX for --by time: the piece's bin) */
    size_t cls;   /* class index (classes in order of first appearance) */
    size_t wi;    /* index of its class in the weights (SIZE_MAX: none) */
    int g;
} piece_span;

typedef struct {
    double a, b; /* a GPU-idle gap between spans, shorter than a stall */
    size_t q;    /* the span after it (index into the spans in the window) */
    int g;
} host_gap;

typedef struct {
    size_t q, k; /* span (index into the spans in the window), piece */
    double ov;   /* the fraction of the span inside the piece */
} span_part;

static span_part *span_parts(const piece_span *ps, size_t n_ps, const double *bnd, size_t K,
                             size_t *n)
{
    size_t cap = n_ps + 16, m = 0;
    span_part *v = malloc(cap * sizeof *v);
    for (size_t q = 0; v && q < n_ps; q++) {
        double d = ps[q].b - ps[q].a;
        size_t k0 = piece_of(bnd, K, ps[q].a);
        for (size_t k = k0; k < K && (k == k0 || bnd[k] < ps[q].b); k++) {
            double ov = d > 0 ? (fmin(ps[q].b, bnd[k + 1]) - fmax(ps[q].a, bnd[k])) / d : 1.0;
            if (ov <= 0 && d > 0)
                continue;
            if (m == cap) {
                span_part *nv = realloc(v, 2 * cap * sizeof *v);
                if (!nv) {
                    free(v);
                    return NULL;
                }
                v = nv;
                cap *= 2;
            }
            v[m++] = (span_part){q, k, ov};
            if (d <= 0)
                break;
        }
    }
    *n = m;
    return v;
}

/* The range of sum(a_c w_c) / sum(b_c w_c) over weights w_c in [1, rho]:
 * a linear-fractional function on a box is extreme at a vertex where the
 * classes with the largest a_c / b_c take one bound and the rest the
 * other, so C + 1 vertices each way suffice. a: the row's busy time per
 * class, b: every row's. */
static void share_bounds(const double *a, const double *b, size_t C, double rho, double *lo,
                         double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    size_t idx[64];
    size_t n = 0;
    for (size_t c = 0; c < C && n < 64; c++)
        if (b[c] > 0)
            idx[n++] = c;
    for (size_t i = 1; i < n; i++) /* by a/b, largest first */
        for (size_t j = i; j > 0 && a[idx[j]] / b[idx[j]] > a[idx[j - 1]] / b[idx[j - 1]]; j--) {
            size_t t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
    for (size_t k = 0; k <= n; k++) {
        double num_hi = 0, den_hi = 0, num_lo = 0, den_lo = 0;
        for (size_t i = 0; i < n; i++) {
            double wh = i < k ? rho : 1, wl = i < k ? 1 : rho;
            num_hi += a[idx[i]] * wh;
            den_hi += b[idx[i]] * wh;
            num_lo += a[idx[i]] * wl;
            den_lo += b[idx[i]] * wl;
        }
        if (den_hi > 0)
            *hi = fmax(*hi, num_hi / den_hi);
        if (den_lo > 0)
            *lo = fmin(*lo, num_lo / den_lo);
    }
    if (!isfinite(*lo) || !isfinite(*hi))
        *lo = *hi = 0;
}

/* The rule that decides whether the trace identifies per-class power
 * (docs/attribute.md, "A fit on the trace"). */
#define FIT_MAX_COND 30.0   /* condition number of the column-scaled design */
#define FIT_MIN_ROWS 5      /* counter intervals per class */
#define FIT_MAX_REL_SE 0.25 /* each weight's standard error over its value */

/* Least squares of each counter interval's dynamic energy (GPU 0) on the
 * classes' busy time in it. Identified: fitted (n > 0, source set); not:
 * fitted empty and *note says why, with the figures. */
static jl_status fit_on_trace(const piece_span *ps, size_t n_ps, const span_part *parts,
                              size_t n_parts, const double *bnd, size_t K, const double *Ek,
                              double P_s, const keyset *classes, jl_class_weights *fitted,
                              char **note, double *cond_out, int cond_only)
{
    (void)n_ps;
    size_t C = classes->n;
    *cond_out = NAN;
    if (C == 0 || K < FIT_MIN_ROWS * C) {
        *note = jl__asprintf("a fit on the trace needs %d counter intervals per class (%zu "
                             "intervals, %zu classes)",
                             FIT_MIN_ROWS, K, C);
        return *note ? JL_OK : JL_ENOMEM;
    }
    gsl_matrix *X = gsl_matrix_calloc(K, C), *A = gsl_matrix_alloc(K, C),
               *V = gsl_matrix_alloc(C, C), *cov = gsl_matrix_alloc(C, C);
    gsl_vector *y = gsl_vector_alloc(K), *S = gsl_vector_alloc(C), *wk = gsl_vector_alloc(C),
               *c = gsl_vector_alloc(C);
    gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(K, C);
    jl_status st = JL_OK;
    if (!X || !A || !V || !cov || !y || !S || !wk || !c || !ws) {
        st = JL_ENOMEM;
        goto end;
    }
    for (size_t j = 0; j < n_parts; j++) {
        const piece_span *p = &ps[parts[j].q];
        if (p->g == 0)
            *gsl_matrix_ptr(X, parts[j].k, p->cls) += p->busy * parts[j].ov;
    }
    for (size_t k = 0; k < K; k++)
        gsl_vector_set(y, k, Ek[k] - P_s * (bnd[k + 1] - bnd[k]));
    /* collinearity: the condition number of the design, columns scaled */
    gsl_matrix_memcpy(A, X);
    for (size_t col = 0; col < C; col++) {
        gsl_vector_view v = gsl_matrix_column(A, col);
        double nrm = gsl_blas_dnrm2(&v.vector);
        if (nrm > 0)
            gsl_vector_scale(&v.vector, 1 / nrm);
    }
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int bad = gsl_linalg_SV_decomp(A, V, S, wk);
    double smax = gsl_vector_get(S, 0), smin = gsl_vector_get(S, C - 1);
    double cond = smin > 0 ? smax / smin : INFINITY;
    *cond_out = bad ? NAN : cond;
    double chisq = 0;
    if (cond_only) {
        gsl_set_error_handler(old);
        goto end;
    }
    if (!bad && cond <= FIT_MAX_COND)
        bad = gsl_multifit_linear(X, y, c, cov, &chisq, ws);
    gsl_set_error_handler(old);
    if (bad || !(cond <= FIT_MAX_COND)) {
        /* the warning says "not identified" once: the note says why */
        *note = jl__asprintf("fitted on the trace, the classes' busy time moves together over "
                             "the counter's intervals (condition number %.3g, the rule asks <= "
                             "%g)",
                             cond, FIT_MAX_COND);
        st = *note ? JL_OK : JL_ENOMEM;
        goto end;
    }
    double s2 = K > C ? chisq / (double)(K - C) : NAN;
    for (size_t col = 0; col < C; col++) {
        double w = gsl_vector_get(c, col), se = sqrt(s2 * gsl_matrix_get(cov, col, col));
        if (!(w > 0) || !(se / w <= FIT_MAX_REL_SE)) {
            *note = jl__asprintf("fitted on the trace, class %s gets %.4g W +- %.2g (the rule "
                                 "asks a positive weight known to %g %%)",
                                 classes->keys[col], w, se, 100 * FIT_MAX_REL_SE);
            st = *note ? JL_OK : JL_ENOMEM;
            goto end;
        }
    }
    fitted->cls = calloc(C, sizeof *fitted->cls);
    fitted->w_dyn = calloc(C, sizeof *fitted->w_dyn);
    fitted->rel_unc = calloc(C, sizeof *fitted->rel_unc);
    fitted->source = jl__asprintf("a fit on the trace (%zu counter intervals, condition number "
                                  "%.3g)",
                                  K, cond);
    if (!fitted->cls || !fitted->w_dyn || !fitted->rel_unc || !fitted->source) {
        st = JL_ENOMEM;
        goto end;
    }
    for (size_t col = 0; col < C; col++) {
        double w = gsl_vector_get(c, col);
        fitted->cls[col] = jl__strdup(classes->keys[col]);
        fitted->w_dyn[col] = w;
        fitted->rel_unc[col] = sqrt(s2 * gsl_matrix_get(cov, col, col)) / w;
        if (!fitted->cls[col])
            st = JL_ENOMEM;
    }
    fitted->n = C;
end:
    gsl_matrix_free(X);
    gsl_matrix_free(A);
    gsl_matrix_free(V);
    gsl_matrix_free(cov);
    gsl_vector_free(y);
    gsl_vector_free(S);
    gsl_vector_free(wk);
    gsl_vector_free(c);
    if (ws)
        gsl_multifit_linear_free(ws);
    return st;
}

/* The attribution's state, phase to phase (jl_attribution_compute). */
typedef struct {
    const jl_run *run;
    const jl_spans *spans;
    const jl_sensor *sensor;
    const jl_attribution_options *opt;
    jl_error **err;
    const char *file, *rn;
    jl_attribution *A;
    size_t G;           /* GPUs */
    jl__counter *ctr;   /* [G] */
    double *Ps, ps_unc; /* static power per GPU, its relative uncertainty */
    int average_only;   /* power/watts is a 1-s average */
    double W0, W1;      /* the window */
    double *bnd;        /* the pieces' bounds [K + 1] */
    size_t K, n_updates, n_bins;
    /* per GPU and piece: energy, span time, weighted busy, prediction, stall time */
    double *Ek, *Tk, *Bw, *Pk, *Sk;
    double *excl_orig; /* each span's exclusive time */
    piece_span *ps;    /* the spans in the window, in time order */
    size_t n_ps;
    keyset ks, classes; /* row keys; class names */
    const jl_class_weights *W;
    jl_class_weights fitted;
    char *fit_note;
    char **missing; /* classes without a calibrated weight */
    size_t n_missing;
    size_t R; /* rows */
    row_extra *rx;
    double *rc_busy, *c_busy; /* busy time per row and class, per class */
    span_part *parts;
    size_t n_parts;
    double scale, rho;
    double *durs;
    size_t *dur_row;
    double *Hk, *Bu; /* per GPU and piece: host-gap time, busy time */
    host_gap *gaps;  /* the host launch gaps */
    size_t n_gaps;
    size_t host_row;     /* JL_HOST_LAUNCH_ROW: its row */
    jl_class_weights wc; /* the weights used: W with the clocks corrected */
    double *wcls;        /* per class: the weight its spans got (W per busy s) */
    double u_eff;        /* the weights' relative uncertainty the intervals use */
} eng;

/* What every phase reads: the inputs under their own names, and a status. */
#define ENG_PROLOG                                                      \
    const jl_run *run = e->run;                                         \
    const jl_spans *spans = e->spans;                                   \
    const jl_attribution_options *opt = e->opt;                         \
    jl_error **err = e->err;                                            \
    const char *file = e->file, *rn = e->rn;                            \
    (void)run, (void)spans, (void)opt, (void)err, (void)file, (void)rn; \
    jl_status st = JL_OK

#define A (e->A)
#define G (e->G)
#define ctr (e->ctr)
#define Ps (e->Ps)
#define ps_unc (e->ps_unc)
#define average_only (e->average_only)
#define W0 (e->W0)
#define W1 (e->W1)
#define bnd (e->bnd)
#define K (e->K)
#define n_updates (e->n_updates)
#define n_bins (e->n_bins)
#define Ek (e->Ek)
#define Tk (e->Tk)
#define Bw (e->Bw)
#define Pk (e->Pk)
#define Sk (e->Sk)
#define ps (e->ps)
#define n_ps (e->n_ps)
#define ks (e->ks)
#define classes (e->classes)
#define W (e->W)
#define fitted (e->fitted)
#define fit_note (e->fit_note)
#define missing (e->missing)
#define n_missing (e->n_missing)
#define R (e->R)
#define rx (e->rx)
#define rc_busy (e->rc_busy)
#define c_busy (e->c_busy)
#define parts (e->parts)
#define n_parts (e->n_parts)
#define scale (e->scale)
#define rho (e->rho)
#define excl_orig (e->excl_orig)
#define durs (e->durs)
#define dur_row (e->dur_row)
#define Hk (e->Hk)
#define Bu (e->Bu)
#define gaps (e->gaps)
#define n_gaps (e->n_gaps)

/* the sensor: the trace's attributes over the defaults */
static jl_status eng_sensor(eng *e)
{
    ENG_PROLOG;
    /* the sensor: the trace's attributes over the defaults */
    jl_sensor_init(&A->sensor);
    jl__sensor_defaults(&A->sensor);
    int from_trace = 0;
    const jl_sensor *sensor = e->sensor;
    if (sensor) {
        if (isfinite(sensor->update_period_s))
            A->sensor.update_period_s = sensor->update_period_s, from_trace = 1;
        if (isfinite(sensor->energy_delay_s))
            A->sensor.energy_delay_s = sensor->energy_delay_s, from_trace = 1;
        if (isfinite(sensor->watts_window_s))
            A->sensor.watts_window_s = sensor->watts_window_s, from_trace = 1;
        if (isfinite(sensor->watts_delay_s))
            A->sensor.watts_delay_s = sensor->watts_delay_s, from_trace = 1;
        if (sensor->watts_kind && !(A->sensor.watts_kind = jl__strdup(sensor->watts_kind)))
            st = JL_ENOMEM;
        if (sensor->calibration && !(A->sensor.calibration = jl__strdup(sensor->calibration)))
            st = JL_ENOMEM;
    }
    A->sensor_source = jl__strdup(
        from_trace ? "the trace's power/ attributes (defaults for the rest)"
                   : "defaults: measured on the shared H100 square-wave run (driver 580; "
                     "docs/attribute.md)");
    if (st != JL_OK || !A->file || !A->run || !A->sensor_source) {
        st = JL_ENOMEM;
        return st;
    }
    average_only = A->sensor.watts_kind && !strcmp(A->sensor.watts_kind, "average_1s");
    if (average_only) {
        A->sensor.watts_window_s = 1.0;
    }

    return st;
}

/* the window: the options', the spans' @window, or their hull */
static jl_status eng_window(eng *e)
{
    ENG_PROLOG;
    /* the window */
    W0 = opt->window[0];
    W1 = opt->window[1];
    A->window_custom = isfinite(W0) && isfinite(W1);
    if (!isfinite(W0) || !isfinite(W1)) {
        W0 = spans->window[0];
        W1 = spans->window[1];
    }
    if (!isfinite(W0) || !isfinite(W1)) {
        W0 = INFINITY;
        W1 = -INFINITY;
        for (size_t i = 0; i < spans->n; i++) {
            W0 = fmin(W0, spans->start[i]);
            W1 = fmax(W1, spans->end[i]);
        }
    }
    if (!(W1 > W0)) {
        st = jl_fail(err, JL_EUSAGE, file, rn, "spans", -1, "the window [%g, %g] is empty", W0, W1);
        return st;
    }
    A->window[0] = W0;
    A->window[1] = W1;

    return st;
}

/* each GPU's counter, the window's energy and the static power */
static jl_status eng_counters(eng *e)
{
    ENG_PROLOG;
    /* counters and static power, per GPU */
    ctr = calloc(G, sizeof *ctr);
    ps_unc = 0.05;
    Ps = calloc(G, sizeof *Ps);
    if (!ctr || !Ps) {
        st = JL_ENOMEM;
        return st;
    }
    for (size_t g = 0; g < G; g++) {
        if ((st = jl__counter_build(run, g, &A->sensor, &ctr[g], err)) != JL_OK) {
            return st;
        }
        double e0 = jl__counter_at(&ctr[g], W0), e1 = jl__counter_at(&ctr[g], W1);
        if (!isfinite(e0) || !isfinite(e1)) {
            st = jl_fail(err, JL_ENODATA, file, rn, "power", -1,
                         "the window [%.6g, %.6g] s is not inside the counter's updates "
                         "[%.6g, %.6g] s (GPU %zu)",
                         W0, W1, ctr[g].t[0], ctr[g].t[ctr[g].n - 1], g);
            return st;
        }
        A->window_energy_j += e1 - e0;
        A->run_energy_j +=
            jl__counter_at(&ctr[g], ctr[g].t[ctr[g].n - 1]) - jl__counter_at(&ctr[g], ctr[g].t[0]);
        {
            /* what the window covers of the run: t = 0 (or the counter's
             * first update) to its last update */
            const jl__counter *c = &ctr[g];
            double r0 = fmax(0, c->t[0]), r1 = c->t[c->n - 1];
            double er0 = jl__counter_at(c, r0), er1 = c->e[c->n - 1];
            if (g == 0) {
                A->coverage.run_start_s = r0;
                A->coverage.run_end_s = r1;
                A->coverage.before_s = fmax(0, W0 - r0);
                A->coverage.after_s = fmax(0, r1 - W1);
                A->coverage.pre_run_s = fmax(0, r0 - c->t[0]);
            }
            A->coverage.run_j += er1 - er0;
            A->coverage.before_j += W0 > r0 ? e0 - er0 : 0;
            A->coverage.after_j += r1 > W1 ? er1 - e1 : 0;
            A->coverage.pre_run_j += er0 - c->e[0];
        }
        char *src = NULL;
        if (!jl__static_power(run, &ctr[g], opt->static_w, &Ps[g], &ps_unc, &src)) {
            st = JL_ENOMEM;
            return st;
        }
        if (!isfinite(Ps[g])) {
            st = jl_fail(err, JL_ENODATA, file, rn, NULL, -1,
                         "no static power: the trace has no idle before t = 0 and no "
                         "@gpu_idle_power_w; state an estimate with --static-w W");
            return st;
        }
        if (g == 0) {
            A->static_source = src;
            A->static_w = Ps[0];
        } else {
            free(src);
        }
    }
    A->coverage.window_share = A->coverage.run_j > 0 ? A->window_energy_j / A->coverage.run_j : NAN;
    A->energy_source = jl__strdup(ctr[0].from_watts ? "watts (integrated power readings)"
                                                    : "counter (energy_j at its update times)");
    if (!A->energy_source) {
        st = JL_ENOMEM;
        return st;
    }

    return st;
}

/* the window cut at every update (and bin), each piece's energy */
static jl_status eng_pieces(eng *e)
{
    ENG_PROLOG;
    /* the pieces: the window cut at every GPU's update times and the bins */
    size_t cap = 2;
    for (size_t g = 0; g < G; g++)
        cap += ctr[g].n;
    if (opt->by == JL_ATTRIBUTION_BY_TIME)
        cap += (size_t)ceil((W1 - W0) / opt->time_bin_s) + 1;
    bnd = malloc(cap * sizeof *bnd);
    if (!bnd) {
        st = JL_ENOMEM;
        return st;
    }
    size_t nb = 0;
    n_updates = 0;
    bnd[nb++] = W0;
    bnd[nb++] = W1;
    for (size_t g = 0; g < G; g++)
        for (size_t k = 0; k < ctr[g].n; k++)
            if (ctr[g].t[k] > W0 && ctr[g].t[k] < W1) {
                bnd[nb++] = ctr[g].t[k];
                if (g == 0)
                    n_updates++;
            }
    n_bins = 0;
    if (opt->by == JL_ATTRIBUTION_BY_TIME) {
        n_bins = (size_t)ceil((W1 - W0) / opt->time_bin_s - 1e-9);
        for (size_t b = 1; b < n_bins; b++)
            bnd[nb++] = W0 + (double)b * opt->time_bin_s;
    }
    qsort(bnd, nb, sizeof *bnd, jl__cmp_double);
    size_t m = 0;
    for (size_t i = 0; i < nb; i++)
        if (!m || bnd[i] > bnd[m - 1])
            bnd[m++] = bnd[i];
    K = m - 1; /* pieces */

    /* per GPU and piece: energy, span time, weighted busy, prediction, stall time */
    Ek = calloc(G * K, sizeof *Ek);
    Tk = calloc(G * K, sizeof *Tk);
    Bw = calloc(G * K, sizeof *Bw);
    Pk = calloc(G * K, sizeof *Pk);
    Sk = calloc(G * K, sizeof *Sk);
    Hk = calloc(G * K, sizeof *Hk);
    Bu = calloc(G * K, sizeof *Bu);
    excl_orig = malloc(spans->n * sizeof *excl_orig);
    ps = malloc(spans->n * sizeof *ps);
    if (!Ek || !Tk || !Bw || !Pk || !Sk || !Hk || !Bu || !excl_orig || !ps) {
        st = JL_ENOMEM;
        return st;
    }
    for (size_t g = 0; g < G; g++)
        for (size_t k = 0; k < K; k++)
            Ek[g * K + k] = jl__counter_at(&ctr[g], bnd[k + 1]) - jl__counter_at(&ctr[g], bnd[k]);

    return st;
}

/* A span's calibrated weight; a class without one gets the mean (and is
 * listed for the warning). */
static void span_weight(eng *e, const char *cls, double w_mean, piece_span *p)
{
    size_t c = 0;
    while (c < W->n && strcmp(W->cls[c], cls))
        c++;
    p->wi = c < W->n ? c : SIZE_MAX;
    if (c < W->n) {
        p->w_abs = W->w_dyn[c];
        p->unc = W->rel_unc[c];
    } else {
        p->w_abs = w_mean;
        p->unc = 0.5;
        size_t q = 0;
        while (q < n_missing && strcmp(missing[q], cls))
            q++;
        if (q == n_missing) {
            char **mm = realloc(missing, (n_missing + 1) * sizeof *mm);
            if (mm) {
                missing = mm;
                if ((missing[n_missing] = jl__strdup(cls)))
                    n_missing++;
            }
        }
    }
    p->w_rel = p->w_abs;
}

/* The row a span belongs to under opt->by (empty for --by time: its
 * pieces' bins). */
static void row_key(const eng *e, size_t i, const char *name, const char *cls, int layer,
                    const char *kind, int32_t cur_step, char *key, size_t cap)
{
    const jl_spans *spans = e->spans;
    const jl_attribution_options *opt = e->opt;
    switch (opt->by) {
    case JL_ATTRIBUTION_BY_NAME: snprintf(key, cap, "%s", name); break;
    case JL_ATTRIBUTION_BY_CLASS: snprintf(key, cap, "%s", cls); break;
    case JL_ATTRIBUTION_BY_LAYER:
        if (layer >= 0)
            snprintf(key, cap, "layer%d", layer);
        else
            snprintf(key, cap, "(no layer)");
        break;
    case JL_ATTRIBUTION_BY_STEP: {
        int32_t s = spans->step ? spans->step[i] : cur_step;
        if (s >= 0)
            snprintf(key, cap, "%d", (int)s);
        else
            snprintf(key, cap, "(before the first step)");
        break;
    }
    case JL_ATTRIBUTION_BY_KIND: snprintf(key, cap, "%s", kind); break;
    case JL_ATTRIBUTION_BY_TIME: key[0] = 0; break;
    }
}

/* the spans in the window: class, weight, row; the rows */
static jl_status eng_spans(eng *e)
{
    ENG_PROLOG;
    /* exclusive time: a span's duration less its children's */
    for (size_t i = 0; i < spans->n; i++)
        excl_orig[i] = spans->end[i] - spans->start[i];
    if (spans->parent)
        for (size_t i = 0; i < spans->n; i++)
            if (spans->parent[i] >= 0)
                excl_orig[spans->parent[i]] -= spans->end[i] - spans->start[i];

    /* steps from the *_step markers when the spans have no step column */
    int32_t cur_step = -1;
    size_t *order = malloc(spans->n * sizeof *order);
    if (!order) {
        st = JL_ENOMEM;
        return st;
    }
    for (size_t i = 0; i < spans->n; i++)
        order[i] = i;
    /* spans are kept in time order by the importers; sort to be sure */
    {
        int sorted = 1;
        for (size_t i = 1; i < spans->n && sorted; i++)
            sorted = spans->start[i] >= spans->start[i - 1];
        if (!sorted) {
            /* insertion by start through a keyed sort */
            double *key = malloc(spans->n * 2 * sizeof *key);
            if (!key) {
                free(order);
                st = JL_ENOMEM;
                return st;
            }
            for (size_t i = 0; i < spans->n; i++) {
                key[2 * i] = spans->start[i];
                key[2 * i + 1] = (double)i;
            }
            qsort(key, spans->n, 2 * sizeof *key, jl__cmp_double);
            for (size_t i = 0; i < spans->n; i++)
                order[i] = (size_t)key[2 * i + 1];
            free(key);
        }
    }

    /* classes, weights and rows of the spans in the window */
    W = opt->weights;
    double w_mean = 0;
    if (W && W->n) {
        for (size_t c = 0; c < W->n; c++)
            w_mean += W->w_dyn[c];
        w_mean /= (double)W->n;
    }
    missing = NULL;
    n_missing = 0;
    n_ps = 0;
    for (size_t oi = 0; oi < spans->n; oi++) {
        size_t i = order[oi];
        const char *name = spans->names[spans->name[i]];
        char cls[256];
        int layer;
        const char *kind;
        jl_attribution_classify(opt, name, cls, sizeof cls, &layer, &kind);
        if (!strcmp(kind, "step"))
            cur_step++;
        double a = fmax(spans->start[i], W0), b = fmin(spans->end[i], W1);
        if (b < a || spans->end[i] < W0 || spans->start[i] > W1)
            continue;
        double dur = spans->end[i] - spans->start[i];
        double f = dur > 0 ? (b - a) / dur : 1.0;
        int g = spans->gpu ? spans->gpu[i] : 0;
        if (g < 0 || (size_t)g >= G) {
            free(order);
            st = jl_fail(err, JL_EINVALID, file, rn, "spans/gpu", (long long)i,
                         "row %zu: GPU %d, but the run has %zu", i, g, G);
            return st;
        }
        piece_span *p = &ps[n_ps];
        p->span = i;
        p->a = a;
        p->b = b;
        p->g = g;
        p->excl = fmax(0, excl_orig[i]) * f;
        p->busy = (spans->busy_s ? (double)spans->busy_s[i] : fmax(0, excl_orig[i])) * f;
        p->w_rel = 1;
        p->w_abs = NAN;
        p->unc = 0;
        p->wi = SIZE_MAX;
        if (W && W->n)
            span_weight(e, cls, w_mean, p);
        char key[300];
        row_key(e, i, name, cls, layer, kind, cur_step, key, sizeof key);
        if ((p->cls = key_index(&classes, cls)) == SIZE_MAX) {
            free(order);
            st = JL_ENOMEM;
            return st;
        }
        if (opt->by == JL_ATTRIBUTION_BY_TIME) {
            p->row = SIZE_MAX;
        } else if ((p->row = key_index(&ks, key)) == SIZE_MAX) {
            free(order);
            st = JL_ENOMEM;
            return st;
        }
        n_ps++;
    }
    free(order);
    A->n_spans_in_window = n_ps;
    if (opt->by == JL_ATTRIBUTION_BY_TIME)
        for (size_t b = 0; b < n_bins; b++) {
            char key[64];
            snprintf(key, sizeof key, "%.6f", W0 + (double)b * opt->time_bin_s);
            if (key_index(&ks, key) == SIZE_MAX) {
                st = JL_ENOMEM;
                return st;
            }
        }
    e->host_row = SIZE_MAX;
    A->host_launch_mode = opt->host_launch;
    if (opt->host_launch == JL_HOST_LAUNCH_ROW && opt->by != JL_ATTRIBUTION_BY_TIME &&
        (e->host_row = key_index(&ks, "host_launch")) == SIZE_MAX)
        return JL_ENOMEM;
    R = ks.n;
    A->rows = calloc(R ? R : 1, sizeof *A->rows);
    rx = calloc(R ? R : 1, sizeof *rx);
    rc_busy = calloc((R ? R : 1) * (classes.n ? classes.n : 1), sizeof *rc_busy);
    c_busy = calloc(classes.n ? classes.n : 1, sizeof *c_busy);
    A->row_class_j = calloc((R ? R : 1) * (classes.n ? classes.n : 1), sizeof *A->row_class_j);
    A->class_names = calloc(classes.n ? classes.n : 1, sizeof *A->class_names);
    if (!A->row_class_j || !A->class_names)
        return JL_ENOMEM;
    A->n_classes = classes.n;
    for (size_t c = 0; c < classes.n; c++)
        if (!(A->class_names[c] = jl__strdup(classes.keys[c])))
            return JL_ENOMEM;
    if (!rc_busy || !c_busy) {
        st = JL_ENOMEM;
        return st;
    }
    if (!A->rows || !rx) {
        st = JL_ENOMEM;
        return st;
    }
    A->n_rows = R;
    for (size_t r = 0; r < R; r++) {
        A->rows[r].key = ks.keys[r];
        ks.keys[r] = NULL;
        A->rows[r].t0_s =
            opt->by == JL_ATTRIBUTION_BY_TIME ? W0 + (double)r * opt->time_bin_s : NAN;
        A->rows[r].peak_w = NAN;
        A->rows[r].median_span_s = NAN;
    }

    return st;
}

/* A weight set's copy (the checks' arrays where the source has them). */
static int weights_copy(const jl_class_weights *src, jl_class_weights *dst)
{
    size_t n = src->n;
    memset(dst, 0, sizeof *dst);
    dst->cls = calloc(n ? n : 1, sizeof *dst->cls);
    dst->w_dyn = calloc(n ? n : 1, sizeof *dst->w_dyn);
    dst->rel_unc = calloc(n ? n : 1, sizeof *dst->rel_unc);
    dst->idle_w = calloc(n ? n : 1, sizeof *dst->idle_w);
    dst->busy_s = calloc(n ? n : 1, sizeof *dst->busy_s);
    dst->wall_s = calloc(n ? n : 1, sizeof *dst->wall_s);
    dst->busy_over_wall = calloc(n ? n : 1, sizeof *dst->busy_over_wall);
    dst->clock_mhz = calloc(n ? n : 1, sizeof *dst->clock_mhz);
    dst->throttled = calloc(n ? n : 1, sizeof *dst->throttled);
    dst->window_clock_mhz = calloc(n ? n : 1, sizeof *dst->window_clock_mhz);
    dst->clock_ratio = calloc(n ? n : 1, sizeof *dst->clock_ratio);
    dst->busy_per_call_s = calloc(n ? n : 1, sizeof *dst->busy_per_call_s);
    dst->window_busy_per_call_s = calloc(n ? n : 1, sizeof *dst->window_busy_per_call_s);
    if (src->source && !(dst->source = jl__strdup(src->source)))
        return 0;
    if (!dst->cls || !dst->w_dyn || !dst->rel_unc || !dst->idle_w || !dst->busy_s || !dst->wall_s ||
        !dst->busy_over_wall || !dst->clock_mhz || !dst->throttled || !dst->window_clock_mhz ||
        !dst->clock_ratio || !dst->busy_per_call_s || !dst->window_busy_per_call_s)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (!(dst->cls[i] = jl__strdup(src->cls[i])))
            return 0;
        dst->n = i + 1;
        dst->w_dyn[i] = src->w_dyn[i];
        dst->rel_unc[i] = src->rel_unc[i];
        dst->idle_w[i] = src->idle_w ? src->idle_w[i] : NAN;
        dst->busy_s[i] = src->busy_s ? src->busy_s[i] : NAN;
        dst->wall_s[i] = src->wall_s ? src->wall_s[i] : NAN;
        dst->busy_over_wall[i] = src->busy_over_wall ? src->busy_over_wall[i] : NAN;
        dst->clock_mhz[i] = src->clock_mhz ? src->clock_mhz[i] : NAN;
        dst->throttled[i] = src->throttled ? src->throttled[i] : 0;
        dst->window_clock_mhz[i] = src->window_clock_mhz ? src->window_clock_mhz[i] : NAN;
        dst->clock_ratio[i] = src->clock_ratio ? src->clock_ratio[i] : 1;
        dst->busy_per_call_s[i] = src->busy_per_call_s ? src->busy_per_call_s[i] : NAN;
        dst->window_busy_per_call_s[i] =
            src->window_busy_per_call_s ? src->window_busy_per_call_s[i] : NAN;
    }
    return 1;
}

static void weights_clear(jl_class_weights *w)
{
    for (size_t i = 0; w->cls && i < w->n; i++)
        free(w->cls[i]);
    free(w->cls);
    free(w->w_dyn);
    free(w->rel_unc);
    free(w->idle_w);
    free(w->busy_s);
    free(w->source);
    free(w->wall_s);
    free(w->busy_over_wall);
    free(w->clock_mhz);
    free(w->throttled);
    free(w->window_clock_mhz);
    free(w->clock_ratio);
    free(w->busy_per_call_s);
    free(w->window_busy_per_call_s);
    memset(w, 0, sizeof *w);
}

/* Calibrated weights at the window's speed, the energy of one call held:
 * each weight scaled by its loop's device time per call over its class's in
 * the window (the spans' busy time over their calls: a loop throttled at
 * the power cap ran its calls slower than the window did), or, where the
 * spans carry no busy time or with JL_SPEED_CLOCK, by the class's mean SM
 * clock at the gpu/ polls inside its spans over its loop's; its uncertainty
 * widened by |ratio - 1| (a dynamic power anywhere from the ratio's zeroth
 * to its second power). docs/attribute.md, "At the window's clocks". */
static jl_status eng_clocks(eng *e)
{
    ENG_PROLOG;
    if (!(W && W->n))
        return st;
    jl_class_weights *c = &e->wc;
    if (!weights_copy(W, c))
        return JL_ENOMEM;
    size_t n = c->n;
    double *sum = calloc(n, sizeof *sum), *cnt = calloc(n, sizeof *cnt);
    double *bsum = calloc(n, sizeof *bsum), *bcalls = calloc(n, sizeof *bcalls);
    if (!sum || !cnt || !bsum || !bcalls) {
        free(sum);
        free(cnt);
        free(bsum);
        free(bcalls);
        return JL_ENOMEM;
    }
    /* the class's device time per call in the window: spans wholly inside */
    for (size_t q = 0; spans->busy_s && q < n_ps; q++) {
        const piece_span *p = &ps[q];
        if (p->wi == SIZE_MAX || spans->start[p->span] < W0 || spans->end[p->span] > W1)
            continue;
        bsum[p->wi] += p->busy;
        bcalls[p->wi] += 1;
    }
    if (run->gpu_time && run->sm_clock_mhz.v && run->gpu_n)
        for (size_t q = 0; q < n_ps; q++) {
            const piece_span *p = &ps[q];
            if (p->wi == SIZE_MAX)
                continue;
            size_t lo = 0, hi = run->gpu_n;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (run->gpu_time[mid] < p->a)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (size_t i = lo; i < run->gpu_n && run->gpu_time[i] <= p->b; i++) {
                double v = run->sm_clock_mhz.v[i * run->sm_clock_mhz.g + (size_t)p->g];
                if (isfinite(v) && v > 0) {
                    sum[p->wi] += v;
                    cnt[p->wi] += 1;
                }
            }
        }
    for (size_t i = 0; i < n; i++) {
        c->window_clock_mhz[i] = cnt[i] > 0 ? sum[i] / cnt[i] : NAN;
        c->window_busy_per_call_s[i] = bcalls[i] > 0 ? bsum[i] / bcalls[i] : NAN;
        c->clock_ratio[i] = 1;
        double r = NAN;
        if (opt->clock_correction == JL_SPEED_BUSY && c->window_busy_per_call_s[i] > 0 &&
            c->busy_per_call_s[i] > 0)
            r = c->busy_per_call_s[i] / c->window_busy_per_call_s[i];
        else if (opt->clock_correction != JL_SPEED_OFF && isfinite(c->window_clock_mhz[i]) &&
                 c->clock_mhz[i] > 0)
            r = c->window_clock_mhz[i] / c->clock_mhz[i];
        if (isfinite(r) && r > 0) {
            c->clock_ratio[i] = r;
            c->w_dyn[i] *= r;
            c->rel_unc[i] = sqrt(c->rel_unc[i] * c->rel_unc[i] + (r - 1) * (r - 1));
        }
    }
    free(sum);
    free(cnt);
    free(bsum);
    free(bcalls);
    for (size_t q = 0; q < n_ps; q++)
        if (ps[q].wi != SIZE_MAX) {
            ps[q].w_abs = ps[q].w_rel = c->w_dyn[ps[q].wi];
            ps[q].unc = c->rel_unc[ps[q].wi];
        }
    W = c;
    return st;
}

/* A weight below which the trace's own intervals cannot check the
 * weights: each class's weight known to at least this (relative), when the
 * sensor does not resolve the classes. The largest difference measured
 * between two calibrations of one class on one GPU after the clock
 * correction (H200, the mixed shape: o_proj back to back against
 * duty-cycled, 17 %; docs/attribute.md, "The window's coverage and
 * the sensor's resolution"). */
#define UNRESOLVED_WEIGHT_UNC 0.20

/* Whether the counter's intervals resolve the classes: most of the busy
 * time in spans shorter than an update, and the classes' busy time moving
 * together over the intervals (the rule of --fit-weights), is not. */
static jl_status eng_resolution(eng *e)
{
    ENG_PROLOG;
    double busy = 0, long_busy = 0, ub = 0;
    for (size_t q = 0; q < n_ps; q++) {
        busy += ps[q].busy;
        ub += ps[q].unc * ps[q].busy;
        if (spans->end[ps[q].span] - spans->start[ps[q].span] >= A->sensor.update_period_s)
            long_busy += ps[q].busy;
    }
    A->resolution.below_sensor_everywhere = busy > 0 && long_busy < 0.5 * busy;
    double cond = A->resolution.condition;
    A->resolution.resolved =
        !A->resolution.below_sensor_everywhere || (isfinite(cond) && cond <= FIT_MAX_COND);
    e->u_eff = busy > 0 ? ub / busy : 0;
    if (!A->resolution.resolved && W && W->n && e->u_eff < UNRESOLVED_WEIGHT_UNC)
        e->u_eff = UNRESOLVED_WEIGHT_UNC;
    A->resolution.weight_unc = W && W->n ? e->u_eff : NAN;
    return st;
}

/* each span's parts in the pieces; a fit of the weights on the trace */
static jl_status eng_fit(eng *e)
{
    ENG_PROLOG;
    /* each span's parts: (span, piece, the fraction of the span in it) */
    if (!(parts = span_parts(ps, n_ps, bnd, K, &n_parts))) {
        st = JL_ENOMEM;
        return st;
    }
    /* a fit on the trace itself, where identified */
    A->resolution.condition = NAN;
    if (opt->fit_weights && !(W && W->n)) {
        st = fit_on_trace(ps, n_ps, parts, n_parts, bnd, K, Ek, Ps[0], &classes, &fitted, &fit_note,
                          &A->resolution.condition, 0);
        if (st != JL_OK)
            return st;
        if (fitted.n) {
            W = &fitted;
            for (size_t q = 0; q < n_ps; q++) {
                ps[q].w_abs = ps[q].w_rel = fitted.w_dyn[ps[q].cls];
                ps[q].unc = fitted.rel_unc[ps[q].cls];
            }
        }
    } else if (classes.n && K >= FIT_MIN_ROWS * classes.n) {
        char *note = NULL;
        jl_class_weights none = {0};
        st = fit_on_trace(ps, n_ps, parts, n_parts, bnd, K, Ek, Ps[0], &classes, &none, &note,
                          &A->resolution.condition, 1);
        free(note);
        if (st != JL_OK)
            return st;
    }
    return eng_resolution(e);
}

/* per piece the spans' time and weighted busy; stalls; the weights' scale */
static jl_status eng_pass1(eng *e)
{
    ENG_PROLOG;
    /* pass 1: per piece, the spans' time, weighted busy and prediction */
    for (size_t j = 0; j < n_parts; j++) {
        const piece_span *p = &ps[parts[j].q];
        double ov = parts[j].ov;
        size_t gk = (size_t)p->g * K + parts[j].k;
        Tk[gk] += p->excl * ov;
        Bw[gk] += p->w_rel * p->busy * ov;
        Bu[gk] += p->busy * ov;
        if (W && W->n)
            Pk[gk] += p->w_abs * p->busy * ov;
    }

    /* stalls: gaps between the spans (per GPU) longer than stall_min_s;
     * the shorter ones (the GPU waiting for the host to launch the next
     * span's work) are host launch gaps, charged to the span after them */
    size_t cap_gaps = 0;
    for (size_t g = 0; g < G; g++) {
        double reach = W0;
        for (size_t q = 0; q <= n_ps; q++) {
            double next = q < n_ps ? ps[q].a : W1;
            if (q < n_ps && ps[q].g != (int)g)
                continue;
            if (next - reach >= opt->stall_min_s) {
                A->n_stalls++;
                A->stall_s += next - reach;
                for (size_t k = piece_of(bnd, K, reach); k < K && bnd[k] < next; k++)
                    Sk[g * K + k] += fmin(next, bnd[k + 1]) - fmax(reach, bnd[k]);
            } else if (next > reach && q < n_ps && opt->host_launch != JL_HOST_LAUNCH_OFF) {
                if (n_gaps == cap_gaps) {
                    size_t nc = cap_gaps ? 2 * cap_gaps : 1024;
                    host_gap *ng = realloc(gaps, nc * sizeof *ng);
                    if (!ng)
                        return JL_ENOMEM;
                    gaps = ng;
                    cap_gaps = nc;
                }
                gaps[n_gaps++] = (host_gap){reach, next, q, (int)g};
                for (size_t k = piece_of(bnd, K, reach); k < K && bnd[k] < next; k++)
                    Hk[g * K + k] += fmin(next, bnd[k + 1]) - fmax(reach, bnd[k]);
            }
            if (q < n_ps)
                reach = fmax(reach, ps[q].b);
        }
    }

    /* the calibrated weights' scale: never more than was measured */
    scale = 1;
    if (W && W->n && opt->calibration_mode == JL_CALIBRATION_ABSOLUTE) {
        double D = 0, P = 0;
        for (size_t g = 0; g < G; g++)
            for (size_t k = 0; k < K; k++) {
                D += Ek[g * K + k] - Ps[g] * (bnd[k + 1] - bnd[k]);
                P += Pk[g * K + k];
            }
        if (P > D)
            scale = D > 0 ? D / P : 0;
    }

    return st;
}

/* each piece's static and dynamic energy to its spans; calls; the rest */
static jl_status eng_distribute(eng *e)
{
    ENG_PROLOG;
    /* pass 2: each piece's static and dynamic energy to its spans */
    double *attributed_dyn = calloc(G * K, sizeof *attributed_dyn),
           *attributed_stat = calloc(G * K, sizeof *attributed_stat);
    if (!attributed_dyn || !attributed_stat) {
        free(attributed_dyn);
        free(attributed_stat);
        st = JL_ENOMEM;
        return st;
    }
    for (size_t j = 0; j < n_parts; j++) {
        {
            const piece_span *p = &ps[parts[j].q];
            double ov = parts[j].ov;
            size_t k = parts[j].k, gk = (size_t)p->g * K + k;
            double len = bnd[k + 1] - bnd[k];
            double sf = Tk[gk] > len ? len / Tk[gk] : 1;
            double s_j = Ps[p->g] * p->excl * ov * sf;
            double dyn = 0, eq = 0;
            if (W && W->n && opt->calibration_mode == JL_CALIBRATION_ABSOLUTE)
                dyn = scale * p->w_abs * p->busy * ov;
            else if (W && W->n && opt->calibration_mode == JL_CALIBRATION_TIME) {
                double tt = fmin(Tk[gk], len) + Hk[gk];
                double U = Ek[gk] - Ps[p->g] * len - Pk[gk];
                dyn = p->w_abs * p->busy * ov + (tt > 0 ? U * p->excl * ov * sf / tt : 0);
            } else if (Bw[gk] > 0)
                dyn = (Ek[gk] - Ps[p->g] * len) * p->w_rel * p->busy * ov / Bw[gk];
            if (Bu[gk] > 0)
                eq = (Ek[gk] - Ps[p->g] * len) * p->busy * ov / Bu[gk];
            size_t r =
                p->row != SIZE_MAX
                    ? p->row
                    : (size_t)fmin((double)(R - 1),
                                   floor((0.5 * (bnd[k] + bnd[k + 1]) - W0) / opt->time_bin_s));
            jl_attribution_row *row = &A->rows[r];
            row->static_j += s_j;
            row->dynamic_j += dyn;
            row->equal_j += s_j + eq;
            row->time_s += p->excl * ov;
            row->busy_s += p->busy * ov;
            rx[r].pred_j += (W && W->n) ? p->w_abs * p->busy * ov : 0;
            rx[r].wbusy += p->w_rel * p->busy * ov;
            rx[r].rel_unc += p->unc * p->busy * ov;
            if (rc_busy)
                rc_busy[r * classes.n + p->cls] += p->busy * ov;
            A->row_class_j[r * classes.n + p->cls] += s_j + dyn;
            attributed_dyn[gk] += dyn;
            attributed_stat[gk] += s_j;
        }
    }
    /* the host launch gaps: their static energy to the span after them
     * (or the host_launch row) */
    for (size_t i = 0; i < n_gaps; i++) {
        const host_gap *h = &gaps[i];
        {
            const piece_span *p = &ps[h->q];
            double f = 1.0;
            for (size_t k = piece_of(bnd, K, h->a); k < K && bnd[k] < h->b; k++) {
                double ov = fmin(h->b, bnd[k + 1]) - fmax(h->a, bnd[k]);
                if (ov <= 0)
                    continue;
                size_t gk = (size_t)h->g * K + k;
                double len = bnd[k + 1] - bnd[k];
                size_t r =
                    e->host_row != SIZE_MAX ? e->host_row
                    : p->row != SIZE_MAX
                        ? p->row
                        : (size_t)fmin((double)(R - 1),
                                       floor((0.5 * (bnd[k] + bnd[k + 1]) - W0) / opt->time_bin_s));
                jl_attribution_row *row = &A->rows[r];
                double s_j = Ps[h->g] * ov * f;
                if (W && W->n && opt->calibration_mode == JL_CALIBRATION_TIME) {
                    double tt = fmin(Tk[gk], len) + Hk[gk];
                    double U = Ek[gk] - Ps[h->g] * len - Pk[gk];
                    double d = tt > 0 ? U * ov * f / tt : 0;
                    row->dynamic_j += d;
                    A->row_class_j[r * classes.n + p->cls] += d;
                    attributed_dyn[gk] += d;
                }
                row->static_j += s_j;
                row->host_launch_j += s_j;
                row->equal_j += s_j;
                if (e->host_row != SIZE_MAX)
                    row->time_s += ov * f;
                A->row_class_j[r * classes.n + p->cls] += s_j;
                attributed_stat[gk] += s_j;
                A->host_launch_j += s_j;
                A->host_launch_s += ov * f;
            }
        }
    }
    A->n_host_gaps = n_gaps;
    /* what the weights explain of the dynamic energy of the pieces with
     * busy spans */
    for (size_t gk = 0; W && W->n && gk < G * K; gk++) {
        if (!(Bu[gk] > 0))
            continue;
        size_t g = gk / K, k = gk % K;
        A->calibration.measured_dynamic_j += Ek[gk] - Ps[g] * (bnd[k + 1] - bnd[k]);
        A->calibration.predicted_j += Pk[gk];
    }
    /* calls: a span counts in the row of its start */
    for (size_t q = 0; q < n_ps; q++) {
        const piece_span *p = &ps[q];
        if (spans->start[p->span] >= W0 && spans->start[p->span] < W1) {
            size_t r = p->row != SIZE_MAX
                           ? p->row
                           : (size_t)fmin((double)(R - 1),
                                          floor((spans->start[p->span] - W0) / opt->time_bin_s));
            A->rows[r].calls++;
        }
    }
    /* what the spans did not take */
    for (size_t g = 0; g < G; g++)
        for (size_t k = 0; k < K; k++) {
            size_t gk = g * K + k;
            double len = bnd[k + 1] - bnd[k];
            double left_s = Ps[g] * len - attributed_stat[gk];
            double left_d = Ek[gk] - Ps[g] * len - attributed_dyn[gk];
            double stall_f = len > 0 ? fmin(1, Sk[gk] / len) : 0;
            double free_t = fmax(0, len - fmin(Tk[gk], len) - Hk[gk]);
            double stall_s = free_t > 0 ? left_s * fmin(1, Sk[gk] / free_t) : 0;
            double stall_d = left_d * stall_f;
            A->stall_j += stall_s + stall_d;
            A->unattributed_static_j += left_s - stall_s;
            A->unattributed_dynamic_j += left_d - stall_d;
            if (opt->by == JL_ATTRIBUTION_BY_TIME) {
                size_t r = (size_t)fmin((double)(R - 1), floor((0.5 * (bnd[k] + bnd[k + 1]) - W0) /
                                                               opt->time_bin_s));
                A->rows[r].unattributed_j += left_s + left_d;
            }
        }
    free(attributed_dyn);
    free(attributed_stat);
    A->unattributed_j = A->unattributed_static_j + A->unattributed_dynamic_j;

    return st;
}

/* totals, residual, shares and intervals */
static jl_status eng_totals(eng *e)
{
    ENG_PROLOG;
    /* totals, shares, intervals */
    double D_att = 0, P_tot = 0;
    for (size_t r = 0; r < R; r++) {
        jl_attribution_row *row = &A->rows[r];
        row->energy_j = row->static_j + row->dynamic_j;
        A->attributed_j += row->energy_j;
        D_att += row->dynamic_j;
        P_tot += rx[r].pred_j;
    }
    A->residual_j = A->window_energy_j - (A->attributed_j + A->unattributed_j + A->stall_j);
    for (size_t r = 0; r < R; r++)
        for (size_t c = 0; c < classes.n; c++)
            c_busy[c] += rc_busy[r * classes.n + c];
    double U_dyn = fmax(0, A->unattributed_dynamic_j);
    rho = opt->uncal_ratio > 1 ? opt->uncal_ratio : 1;
    int relative = W && W->n && opt->calibration_mode != JL_CALIBRATION_ABSOLUTE;
    /* relative weights: each class's weight anywhere within +-u_eff of its
     * value (the box of share_bounds, on weight x busy) */
    double *wa = NULL, *wb = NULL;
    double rho_w = e->u_eff < 1 ? (1 + e->u_eff) / (1 - e->u_eff) : 1e6;
    if (relative) {
        e->wcls = calloc(classes.n ? classes.n : 1, sizeof *e->wcls);
        wa = calloc(classes.n ? classes.n : 1, sizeof *wa);
        wb = calloc(classes.n ? classes.n : 1, sizeof *wb);
        if (!e->wcls || !wa || !wb) {
            free(wa);
            free(wb);
            return JL_ENOMEM;
        }
        for (size_t q = 0; q < n_ps; q++)
            e->wcls[ps[q].cls] = ps[q].w_abs;
        for (size_t c = 0; c < classes.n; c++)
            wb[c] = c_busy[c] * e->wcls[c];
    }
    if (W && W->n) {
        A->calibration.mode = opt->calibration_mode;
        A->calibration.unexplained_j =
            A->calibration.measured_dynamic_j - A->calibration.predicted_j;
        A->calibration.unexplained_to_rows_j = D_att - scale * P_tot;
        A->calibration.unattributed_dynamic_j = A->unattributed_dynamic_j;
    }
    for (size_t r = 0; r < R; r++) {
        jl_attribution_row *row = &A->rows[r];
        row->share = A->window_energy_j != 0 ? row->energy_j / A->window_energy_j : NAN;
        double lo_d, hi_d;
        if (relative) {
            /* from the weights alone (the unexplained energy belongs to no
             * span) to the row's share under every weighting in the box */
            for (size_t c = 0; c < classes.n; c++)
                wa[c] = rc_busy[r * classes.n + c] * e->wcls[c];
            double eps = row->busy_s > 0 ? rx[r].rel_unc / row->busy_s : 0;
            share_bounds(wa, wb, classes.n, rho_w, &lo_d, &hi_d);
            lo_d = fmin(fmin(D_att * lo_d, rx[r].pred_j * (1 - eps)), row->dynamic_j);
            hi_d = fmax(D_att * hi_d, row->dynamic_j * (1 + eps));
        } else if (W && W->n) {
            double eps = row->busy_s > 0 ? rx[r].rel_unc / row->busy_s : 0;
            if (!A->resolution.resolved && eps < e->u_eff)
                eps = e->u_eff; /* the sensor cannot check the weights */
            lo_d = row->dynamic_j * (1 - eps);
            hi_d = row->dynamic_j * (1 + eps) + (P_tot > 0 ? U_dyn * rx[r].pred_j / P_tot : 0);
        } else {
            /* the row's share of the dynamic energy over every weighting
             * with the classes within a factor rho of each other */
            share_bounds(&rc_busy[r * classes.n], c_busy, classes.n, rho, &lo_d, &hi_d);
            lo_d = fmin(D_att * lo_d, row->dynamic_j);
            hi_d = fmax(D_att * hi_d, row->dynamic_j);
        }
        row->energy_lo_j = row->static_j * (1 - ps_unc) + fmin(lo_d, hi_d);
        row->energy_hi_j = row->static_j * (1 + ps_unc) + fmax(lo_d, hi_d);
        row->j_per_call = row->calls ? row->energy_j / (double)row->calls : NAN;
    }
    free(wa);
    free(wb);

    return st;
}

/* tokens in the window, per row */
static jl_status eng_tokens(eng *e)
{
    ENG_PROLOG;
    /* tokens */
    A->tokens = tokens_at(run, W1) - tokens_at(run, W0);
    A->coverage.tokens_window = A->tokens;
    A->coverage.tokens_run = run->engine_n && run->tokens_generated
                                 ? (double)run->tokens_generated[run->engine_n - 1]
                                 : NAN;
    if (!isfinite(A->tokens) && spans->tokens) {
        A->tokens = 0;
        for (size_t q = 0; q < n_ps; q++)
            A->tokens += spans->tokens[ps[q].span];
    }
    for (size_t r = 0; r < R; r++) {
        jl_attribution_row *row = &A->rows[r];
        double tok = A->tokens;
        if (opt->by == JL_ATTRIBUTION_BY_TIME) {
            tok = tokens_at(run, fmin(W1, row->t0_s + opt->time_bin_s)) - tokens_at(run, row->t0_s);
        } else if (opt->by == JL_ATTRIBUTION_BY_STEP) {
            char *end;
            long s = strtol(row->key, &end, 10);
            tok = NAN;
            if (!*end && run->tokens_generated && s >= 0 && (size_t)s < run->engine_n)
                tok = (double)(run->tokens_generated[s] - (s ? run->tokens_generated[s - 1] : 0));
        }
        row->tokens = tok;
        row->j_per_token = tok > 0 ? row->energy_j / tok : NAN;
    }

    return st;
}

/* each row's median span */
static jl_status eng_medians(eng *e)
{
    ENG_PROLOG;
    /* median span per row */
    if (opt->by != JL_ATTRIBUTION_BY_TIME && n_ps) {
        durs = malloc(n_ps * sizeof *durs);
        dur_row = malloc(n_ps * sizeof *dur_row);
        double *tmp = malloc(n_ps * 2 * sizeof *tmp);
        if (!durs || !dur_row || !tmp) {
            free(tmp);
            st = JL_ENOMEM;
            return st;
        }
        for (size_t q = 0; q < n_ps; q++) {
            tmp[2 * q] = (double)ps[q].row;
            tmp[2 * q + 1] = spans->end[ps[q].span] - spans->start[ps[q].span];
        }
        /* sort by (row, duration): rows are small integers, durations < 1e6 s */
        for (size_t q = 0; q < n_ps; q++)
            tmp[2 * q] = tmp[2 * q] * 1e7 + tmp[2 * q + 1];
        for (size_t q = 0; q < n_ps; q++)
            durs[q] = tmp[2 * q];
        qsort(durs, n_ps, sizeof *durs, jl__cmp_double);
        free(tmp);
        size_t q = 0;
        while (q < n_ps) {
            size_t r = (size_t)floor(durs[q] / 1e7 + 1e-9), q1 = q;
            while (q1 < n_ps && (size_t)floor(durs[q1] / 1e7 + 1e-9) == r)
                q1++;
            size_t mid = q + (q1 - q) / 2;
            if (r < R)
                A->rows[r].median_span_s = durs[mid] - (double)r * 1e7;
            q = q1;
        }
    }

    return st;
}

/* peak power where a reading lies inside a row, else the reason */
static jl_status eng_peaks(eng *e)
{
    ENG_PROLOG;
    /* peak power: readings whose window lies >= 90 % inside one row */
    {
        double Wn = A->sensor.watts_window_s, dl = A->sensor.watts_delay_s;
        const jl_series *wf = run->watts.v ? &run->watts : NULL;
        double *cover = calloc(R ? R : 1, sizeof *cover);
        size_t *touched = malloc((n_ps + 1) * sizeof *touched);
        double maxdur = 0;
        for (size_t q = 0; q < n_ps; q++)
            maxdur = fmax(maxdur, ps[q].b - ps[q].a);
        if (!cover || !touched) {
            free(cover);
            free(touched);
            st = JL_ENOMEM;
            return st;
        }
        for (size_t j = 1; wf && isfinite(Wn) && Wn > 0 && j < run->power_n; j++) {
            double v = wf->v[j * wf->g], v0 = wf->v[(j - 1) * wf->g];
            if (!isfinite(v) || v == v0)
                continue;
            double hi = 0.5 * (run->power_time[j - 1] + run->power_time[j]) - dl, lo = hi - Wn;
            if (lo < W0 || hi > W1)
                continue;
            if (opt->by == JL_ATTRIBUTION_BY_TIME) {
                size_t r = (size_t)floor((lo - W0) / opt->time_bin_s);
                if (r < R && (size_t)floor((hi - W0) / opt->time_bin_s - 1e-12) == r &&
                    !(A->rows[r].peak_w >= v))
                    A->rows[r].peak_w = v;
                continue;
            }
            /* spans overlapping [lo, hi]: from the first that may reach lo */
            size_t a = 0, b = n_ps;
            while (a < b) {
                size_t mid = (a + b) / 2;
                if (ps[mid].a < lo - maxdur)
                    a = mid + 1;
                else
                    b = mid;
            }
            size_t nt = 0;
            for (size_t q = a; q < n_ps && ps[q].a < hi; q++) {
                double ov = fmin(hi, ps[q].b) - fmax(lo, ps[q].a);
                if (ov <= 0)
                    continue;
                size_t r = ps[q].row;
                if (cover[r] == 0)
                    touched[nt++] = r;
                cover[r] += ov;
            }
            for (size_t t = 0; t < nt; t++) {
                size_t r = touched[t];
                if (cover[r] >= 0.9 * Wn && !(A->rows[r].peak_w >= v))
                    A->rows[r].peak_w = v;
                cover[r] = 0;
            }
        }
        free(cover);
        free(touched);
        for (size_t r = 0; r < R; r++) {
            jl_attribution_row *row = &A->rows[r];
            if (isfinite(row->peak_w))
                continue;
            if (!wf)
                row->peak_reason = jl__strdup("no power readings (power/watts) in the trace");
            else if (average_only)
                row->peak_reason = jl__strdup("power/watts is a 1-s average: no peak below 1 s");
            else if (opt->by == JL_ATTRIBUTION_BY_TIME)
                row->peak_reason =
                    jl__asprintf("no reading's %.0f ms window lies inside this bin", 1e3 * Wn);
            else
                row->peak_reason = jl__asprintf(
                    "no power reading's %.0f ms window lies >= 90 %% inside this row's spans "
                    "(median span %.3g ms): the sensor cannot see it alone",
                    1e3 * Wn, 1e3 * row->median_span_s);
            if (!row->peak_reason) {
                st = JL_ENOMEM;
                return st;
            }
        }
    }

    return st;
}

/* the weights the document names */
static jl_status eng_weights_used(eng *e)
{
    ENG_PROLOG;
    /* the weights used */
    if (W && W->n) {
        A->weights = W == &fitted
                         ? jl__strdup(fitted.source)
                         : jl__asprintf("calibration: %s", W->source ? W->source : "(given)");
        jl_class_weights *u = calloc(1, sizeof *u);
        if (!u || !weights_copy(W, u)) {
            if (u)
                weights_clear(u);
            free(u);
            return JL_ENOMEM;
        }
        A->weights_used = u;
    } else {
        A->weights = jl__strdup("equal");
    }
    if (!A->weights) {
        st = JL_ENOMEM;
        return st;
    }

    return st;
}

/* the named warnings */
static jl_status eng_warnings(eng *e)
{
    ENG_PROLOG;
    /* the warnings */
    int ok = 1;
    const double *th = opt->warn_threshold;
    if ((double)n_updates < th[JL_ATTRIBUTION_WARN_window_short])
        ok &= add_warning(A, opt, JL_ATTRIBUTION_WARN_window_short,
                          "the window (%.3g s) holds %zu counter updates, fewer than %g: its "
                          "energy is known only to about one update's worth",
                          W1 - W0, n_updates, th[JL_ATTRIBUTION_WARN_window_short]);
    if (opt->by != JL_ATTRIBUTION_BY_TIME) {
        size_t nbelow = 0, ex = SIZE_MAX;
        for (size_t r = 0; r < R; r++)
            if (A->rows[r].median_span_s <
                th[JL_ATTRIBUTION_WARN_spans_below_sensor] * A->sensor.update_period_s) {
                nbelow++;
                if (ex == SIZE_MAX || A->rows[r].energy_j > A->rows[ex].energy_j)
                    ex = r;
            }
        if (nbelow) {
            char res[400] = "";
            if (!A->resolution.resolved)
                snprintf(res, sizeof res,
                         "; nor do the counter's intervals resolve the classes (their busy "
                         "times move together%s%.3g): per-class figures are known only to the "
                         "weights' uncertainty, and the intervals say so (each class's weight "
                         "anywhere within %s",
                         isfinite(A->resolution.condition) ? ", condition number " : "",
                         isfinite(A->resolution.condition) ? A->resolution.condition : 0.0,
                         W && W->n ? "+-" : "a factor");
            if (!A->resolution.resolved && W && W->n) {
                size_t l = strlen(res);
                snprintf(res + l, sizeof res - l, "%.0f %%)", 100 * e->u_eff);
            } else if (!A->resolution.resolved) {
                size_t l = strlen(res);
                snprintf(res + l, sizeof res - l, " %g of each other)", rho);
            }
            ok &= add_warning(A, opt, JL_ATTRIBUTION_WARN_spans_below_sensor,
                              "%zu of %zu rows have spans shorter than the sensor's %.0f ms "
                              "update (e.g. %s, median span %.3g ms): their energy is apportioned "
                              "from measured intervals, not measured%s",
                              nbelow, R, 1e3 * A->sensor.update_period_s, A->rows[ex].key,
                              1e3 * A->rows[ex].median_span_s, res);
        }
    }
    {
        /* the harness's own step times, else the engine/ rows' spacing
         * inside the window against outside it */
        char b1[64], b2[64];
        double p = NAN, u = NAN;
        const char *how = "the run's @iteration_s_profiled and @iteration_s_unprofiled";
        if (jl_attrs_get(&run->attrs, "iteration_s_profiled", b1, sizeof b1) >= 0 &&
            jl_attrs_get(&run->attrs, "iteration_s_unprofiled", b2, sizeof b2) >= 0) {
            p = atof(b1);
            u = atof(b2);
        } else if (run->engine_n >= 10) {
            double *in = malloc(run->engine_n * sizeof *in),
                   *outw = malloc(run->engine_n * sizeof *outw);
            size_t ni = 0, no = 0;
            for (size_t j = 1; in && outw && j < run->engine_n; j++) {
                double d = run->engine_time[j] - run->engine_time[j - 1];
                if (run->engine_time[j - 1] >= W0 && run->engine_time[j] <= W1)
                    in[ni++] = d;
                else if (run->engine_time[j] < W0 || run->engine_time[j - 1] > W1)
                    outw[no++] = d;
            }
            if (ni >= 5 && no >= 5) {
                p = jl__median_d(in, ni);
                u = jl__median_d(outw, no);
                how = "the engine/ rows' median spacing inside and outside the window";
            }
            free(in);
            free(outw);
        }
        if (u > 0 && p / u - 1 > th[JL_ATTRIBUTION_WARN_profiler_overhead])
            ok &= add_warning(A, opt, JL_ATTRIBUTION_WARN_profiler_overhead,
                              "a step takes %.4g s profiled against %.4g s unprofiled (+%.1f %%; "
                              "%s): the profiled window is slower than the run it describes",
                              p, u, 100 * (p / u - 1), how);
    }
    if (A->n_stalls && A->stall_s > th[JL_ATTRIBUTION_WARN_profiler_stall])
        ok &= add_warning(A, opt, JL_ATTRIBUTION_WARN_profiler_stall,
                          "%zu gaps without spans longer than %.3g s (%.3g s, %.4g J) in the "
                          "window: kept in their own row, not spread over the spans",
                          A->n_stalls, opt->stall_min_s, A->stall_s, A->stall_j);
    if (!(W && W->n))
        ok &= add_warning(A, opt, JL_ATTRIBUTION_WARN_weights_not_identified,
                          "per-class dynamic power is not identified%s%s: dynamic energy split "
                          "by busy time with equal weights (intervals assume classes within a "
                          "factor %g of each other); record isolated loops and pass "
                          "--calibration",
                          fit_note ? ": " : "", fit_note ? fit_note : "", rho);
    if (ctr[0].from_watts)
        ok &= add_warning(A, opt, JL_ATTRIBUTION_WARN_no_counter,
                          "no energy counter: energy integrated from the power readings");
    if (ctr[0].from_watts && average_only)
        ok &= add_warning(A, opt, JL_ATTRIBUTION_WARN_power_average_1s,
                          "the power readings are 1-s averages: no split below 1 s is "
                          "measured");
    {
        double cu = spans->clock_uncertainty_s;
        if (!isfinite(cu))
            ok &= add_warning(A, opt, JL_ATTRIBUTION_WARN_clock_alignment,
                              "the spans' clock uncertainty is not stated (@clock_uncertainty_s)");
        else if (cu > th[JL_ATTRIBUTION_WARN_clock_alignment] * A->sensor.update_period_s)
            ok &= add_warning(A, opt, JL_ATTRIBUTION_WARN_clock_alignment,
                              "the spans' clock is known to %.3g ms, more than %g of a sensor "
                              "update: pieces may be assigned to the wrong interval",
                              1e3 * cu, th[JL_ATTRIBUTION_WARN_clock_alignment]);
    }
    if (scale < 1)
        ok &= add_warning(A, opt, JL_ATTRIBUTION_WARN_calibration_overpredicts,
                          "the calibrated weights predict more dynamic energy than was measured: "
                          "scaled by %.3f",
                          scale);
    if (n_missing) {
        char list[512] = "";
        for (size_t q = 0; q < n_missing; q++) {
            size_t l = strlen(list);
            snprintf(list + l, sizeof list - l, "%s%s", q ? ", " : "", missing[q]);
        }
        ok &= add_warning(A, opt, JL_ATTRIBUTION_WARN_class_without_weight,
                          "classes without a calibrated weight (the mean weight, +-50 %%, is "
                          "used): %s; map them with --class PATTERN=CLASS",
                          list);
    }
    if (W && W->n && W->busy_over_wall) {
        char list[600] = "";
        size_t nb = 0;
        for (size_t c = 0; c < W->n; c++)
            if (W->busy_over_wall[c] > th[JL_ATTRIBUTION_WARN_calibration_busy_exceeds_wall]) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s %.3fx", nb++ ? ", " : "", W->cls[c],
                         W->busy_over_wall[c]);
            }
        if (nb)
            ok &= add_warning(A, opt, JL_ATTRIBUTION_WARN_calibration_busy_exceeds_wall,
                              "calibration loops whose recorded busy time (calls x "
                              "@device_s_per_call) exceeds their window: %s; a loop cannot be "
                              "busier than its window, so busy = the window was used (the "
                              "recorded device time would have given weights too high by as "
                              "much)",
                              list);
    }
    if (W && W->n && W->clock_mhz) {
        char list[1200] = "";
        size_t nc = 0, nunk = 0, nth = 0;
        for (size_t c = 0; c < W->n; c++) {
            double lc = W->clock_mhz[c], wcl = W->window_clock_mhz ? W->window_clock_mhz[c] : NAN;
            double rr = W->clock_ratio ? W->clock_ratio[c] : 1;
            int thr = W->throttled && W->throttled[c];
            nth += thr != 0;
            if (!isfinite(lc))
                continue;
            if (!isfinite(wcl)) {
                nunk++;
                continue;
            }
            if (fabs(wcl / lc - 1) > th[JL_ATTRIBUTION_WARN_calibration_clocks] || thr) {
                size_t l = strlen(list);
                snprintf(list + l, sizeof list - l, "%s%s loop %.0f MHz%s, window %.0f MHz (x%.3f)",
                         nc++ ? "; " : "", W->cls[c], lc, thr ? " (throttled)" : "", wcl, rr);
            }
        }
        if (nc)
            ok &= add_warning(A, opt, JL_ATTRIBUTION_WARN_calibration_clocks,
                              "calibration loops at other SM clocks than their class in the "
                              "window: %s; %s",
                              list,
                              opt->clock_correction
                                  ? "each weight scaled by the ratio (the energy per call held) "
                                    "and its uncertainty widened by |ratio - 1|"
                                  : "not corrected (clock correction off)");
        else if (nunk)
            ok &= add_warning(A, opt, JL_ATTRIBUTION_WARN_calibration_clocks,
                              "the calibration loops' clocks are recorded (%zu of them "
                              "throttled) but the window's are not (gpu/sm_clock_mhz at the "
                              "spans): the weights are not corrected to the window's clocks",
                              nth);
    }
    if (A->window_energy_j > 0 &&
        A->host_launch_j / A->window_energy_j > th[JL_ATTRIBUTION_WARN_host_launch])
        ok &= add_warning(
            A, opt, JL_ATTRIBUTION_WARN_host_launch,
            "%.4g J (%.1f %% of the window) in %zu GPU-idle gaps between spans shorter than "
            "stall-min (%.3g s of them): the GPU waiting for the host to launch the next span's "
            "work; %s",
            A->host_launch_j, 100 * A->host_launch_j / A->window_energy_j, A->n_host_gaps,
            A->host_launch_s,
            opt->host_launch == JL_HOST_LAUNCH_ROW ? "in the row host_launch"
                                                   : "charged to the span after each gap "
                                                     "(host_launch_j of its row)");
    if (isfinite(A->coverage.window_share) &&
        A->coverage.window_share < th[JL_ATTRIBUTION_WARN_window_coverage])
        ok &= add_warning(A, opt, JL_ATTRIBUTION_WARN_window_coverage,
                          "the window holds %.1f %% of the run's energy (%.4g of %.4g J; %.3g s "
                          "before it and %.3g s after it are outside): the rows describe the "
                          "window, not the run",
                          100 * A->coverage.window_share, A->window_energy_j, A->coverage.run_j,
                          A->coverage.before_s, A->coverage.after_s);
    if (!ok) {
        st = JL_ENOMEM;
        return st;
    }

    return st;
}

/* rows in a stable order */
static jl_status eng_sort(eng *e)
{
    ENG_PROLOG;
    /* rows in a stable order: energy for names, classes and kinds; the key's
     * number for layers, steps and time (each row keeps its class split) */
    if (opt->by == JL_ATTRIBUTION_BY_TIME || R < 2)
        return st;
    typedef struct {
        jl_attribution_row row;
        size_t was;
        long num;
    } item;
    item *v = malloc(R * sizeof *v);
    double *m = malloc(R * (A->n_classes ? A->n_classes : 1) * sizeof *m);
    if (!v || !m) {
        free(v);
        free(m);
        return JL_ENOMEM;
    }
    int by_energy = opt->by == JL_ATTRIBUTION_BY_NAME || opt->by == JL_ATTRIBUTION_BY_CLASS ||
                    opt->by == JL_ATTRIBUTION_BY_KIND;
    for (size_t i = 0; i < R; i++) {
        const char *k = A->rows[i].key + (opt->by == JL_ATTRIBUTION_BY_LAYER ? 5 : 0);
        v[i] = (item){A->rows[i], i, isdigit((unsigned char)*k) ? strtol(k, NULL, 10) : -1};
    }
    for (size_t i = 1; i < R; i++) {
        item x = v[i];
        size_t j = i;
        while (j > 0 && (by_energy ? v[j - 1].row.energy_j < x.row.energy_j ||
                                         (v[j - 1].row.energy_j == x.row.energy_j &&
                                          strcmp(v[j - 1].row.key, x.row.key) > 0)
                                   : v[j - 1].num > x.num)) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
    size_t C = A->n_classes;
    for (size_t i = 0; i < R; i++) {
        A->rows[i] = v[i].row;
        memcpy(m + i * C, A->row_class_j + v[i].was * C, C * sizeof *m);
    }
    memcpy(A->row_class_j, m, R * C * sizeof *m);
    free(v);
    free(m);
    return st;
}

#undef A
#undef G
#undef ctr
#undef Ps
#undef ps_unc
#undef average_only
#undef W0
#undef W1
#undef bnd
#undef K
#undef n_updates
#undef n_bins
#undef Ek
#undef Tk
#undef Bw
#undef Pk
#undef Sk
#undef ps
#undef n_ps
#undef ks
#undef classes
#undef W
#undef fitted
#undef fit_note
#undef missing
#undef n_missing
#undef R
#undef rx
#undef rc_busy
#undef c_busy
#undef parts
#undef n_parts
#undef scale
#undef rho
#undef excl_orig
#undef durs
#undef dur_row
#undef Hk
#undef Bu
#undef gaps
#undef n_gaps
#undef ENG_PROLOG

jl_status jl_attribution_compute(const jl_run *run, const jl_spans *spans, const jl_sensor *sensor,
                                 const jl_attribution_options *opt, jl_attribution **out,
                                 jl_error **err)
{
    *out = NULL;
    jl_attribution_options dflt;
    if (!opt) {
        jl_attribution_options_default(&dflt);
        opt = &dflt;
    }
    const char *file = run->file, *rn = run->name;
    if (!spans || !spans->n)
        return jl_fail(err, JL_ENODATA, file, rn, "spans", -1,
                       "the run has no spans/: import a profiler trace into it (`joules import "
                       "kineto --help`: PROFILE.json --into %s:%s)",
                       file ? file : "FILE.h5", rn ? rn : "RUN");
    if (opt->by == JL_ATTRIBUTION_BY_TIME && !(opt->time_bin_s > 0))
        return jl_fail(err, JL_EUSAGE, file, rn, NULL, -1, "time bins must be longer than 0 s");
    eng en, *e = &en;
    memset(e, 0, sizeof *e);
    e->run = run;
    e->spans = spans;
    e->sensor = sensor;
    e->opt = opt;
    e->err = err;
    e->file = file;
    e->rn = rn;
    e->G = (size_t)(run->attrs.num_gpus > 0 ? run->attrs.num_gpus : 1);
    e->scale = 1;
    jl_status st = JL_OK;
    jl_attribution *A = e->A = calloc(1, sizeof *A);
    if (!A)
        st = JL_ENOMEM;
    else {
        A->file = jl__strdup(file ? file : "");
        A->run = jl__strdup(rn ? rn : "");
        A->by = opt->by;
        A->time_bin_s = opt->by == JL_ATTRIBUTION_BY_TIME ? opt->time_bin_s : NAN;
        A->n_spans = spans->n;
    }
    static jl_status (*const phase[])(
        eng *) = {eng_sensor, eng_window,       eng_counters,   eng_pieces, eng_spans,  eng_clocks,
                  eng_fit,    eng_pass1,        eng_distribute, eng_totals, eng_tokens, eng_medians,
                  eng_peaks,  eng_weights_used, eng_warnings,   eng_sort};
    for (size_t i = 0; st == JL_OK && i < sizeof phase / sizeof phase[0]; i++)
        st = phase[i](e);
    if (st == JL_OK) {
        *out = e->A;
        e->A = NULL;
    }
    jl_attribution_free(e->A);
    for (size_t i = 0; i < e->ks.n; i++)
        free(e->ks.keys[i]);
    free(e->ks.keys);
    for (size_t i = 0; i < e->classes.n; i++)
        free(e->classes.keys[i]);
    free(e->classes.keys);
    for (size_t i = 0; i < e->fitted.n; i++)
        free(e->fitted.cls[i]);
    free(e->fitted.cls);
    free(e->fitted.w_dyn);
    free(e->fitted.rel_unc);
    free(e->fitted.source);
    free(e->fit_note);
    for (size_t q = 0; q < e->n_missing; q++)
        free(e->missing[q]);
    free(e->missing);
    free(e->ps);
    free(e->Ps);
    free(e->parts);
    free(e->bnd);
    free(e->excl_orig);
    free(e->durs);
    free(e->dur_row);
    free(e->rx);
    free(e->rc_busy);
    free(e->c_busy);
    free(e->Ek);
    free(e->Tk);
    free(e->Bw);
    free(e->Pk);
    free(e->Sk);
    free(e->Hk);
    free(e->Bu);
    free(e->gaps);
    free(e->wcls);
    weights_clear(&e->wc);
    for (size_t g = 0; e->ctr && g < e->G; g++)
        jl__counter_free(&e->ctr[g]);
    free(e->ctr);
    return st;
}
