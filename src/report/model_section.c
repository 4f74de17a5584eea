/* The report's model part: the batch-size model of every group (the same
 * jl_model_fit_groups() as `joules fit`, sweep ends pooled), the diagnosis of every run (the
 * same jl_diagnose() as `joules diagnose`), their documents in data/
 * (fit.json, diagnose.json: the commands' bytes; fit-curves.csv: the curves
 * the figures draw) and one figure per fitted group: energy per token
 * against the achieved batch, the measured runs as dots, the fitted curve
 * with its 95 % band, the batch ceiling, and power and throughput panels.
 * What the band is (and is not): docs/report.md, docs/model.md. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "joules/diagnose.h"
#include "joules/model.h"
#include "joules/output.h"
#include "output/csv_row.h"
#include "report/plot.h"
#include "report/sections.h"

/* An interval's value, low and high as three cells / columns. */
static void csv_interval(jl__csvw *w, const jl_interval *iv)
{
    jl__csvw_num(w, iv->value);
    jl__csvw_num(w, iv->lo);
    jl__csvw_num(w, iv->hi);
}

static void dat_interval(jl__strbuf *b, const jl_interval *iv)
{
    jl__report_dat_num(b, iv->value);
    jl__report_dat_num(b, iv->lo);
    jl__report_dat_num(b, iv->hi);
}

/* Points of each drawn curve (log-spaced over jl_model_batch_grid's range,
 * plus the ends of the measured batch range). */
#define RP_CURVE_POINTS 64

void jl__report_model_free(jl__report_report *r)
{
    for (size_t i = 0; r->fits && i < r->n_fits; i++)
        jl_group_fit_free(r->fits[i]);
    free(r->fits);
    free(r->fit_group_of);
    jl_group_list_clear(r->fit_groups);
    free(r->fit_groups);
    jl_diagnosis_free(r->diag);
    r->fit_groups = NULL;
    r->n_fits = 0;
    r->fits = NULL;
    r->fit_group_of = NULL;
    r->diag = NULL;
}

static void note_error(jl__report_report *r, const char *what, jl_error *e)
{
    char *m = e ? jl_error_format(e) : NULL;
    jl__report_note(r, "%s: %s", what, m ? m : "out of memory");
    free(m);
    jl_error_free(e);
}

jl_status jl__report_model_compute(jl__report_report *r, jl_error **err)
{
    jl_model_options mo;
    jl_model_options_default(&mo);
    jl_error *e = NULL;
    if (!(r->fit_groups = jl__calloc_array(1, sizeof *r->fit_groups)))
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    if (jl_model_groups(r->l, r->fit_groups, &e) != JL_OK) {
        note_error(r, "the batch-size model was not fitted", e);
        jl__report_model_free(r);
        return JL_OK;
    }
    size_t n = r->fit_groups->count;
    r->fits = jl__calloc_array(n ? n : 1, sizeof *r->fits);
    r->fit_group_of = jl__calloc_array(n ? n : 1, sizeof *r->fit_group_of);
    if (!r->fits || !r->fit_group_of) {
        jl__report_model_free(r);
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    }
    /* the fits `joules fit` makes: every group, sweep ends pooled with the
     * model's other sweeps (docs/model.md "Sweep ends") */
    jl__report_progress(r, "model", 0, 2, "fitting the batch-size model");
    if (jl_model_fit_groups(r->fit_groups, &mo, r->opt.desc, r->fits, &e) != JL_OK) {
        note_error(r, "the batch-size model was not fitted", e);
        jl__report_model_free(r);
    } else {
        r->n_fits = n;
        for (size_t i = 0; i < n; i++) {
            const jl_model_group *g = &r->fit_groups->items[i];
            r->fit_group_of[i] = -1;
            for (size_t k = 0; k < r->n_groups; k++)
                if (jl__str_eq_or_null(r->groups[k].model, g->key.model) &&
                    jl__str_eq_or_null(r->groups[k].task, g->key.task))
                    r->fit_group_of[i] = (long)k;
        }
    }
    /* the same fits serve the diagnosis; after a failed fit jl_diagnose()
     * fits again and says why */
    jl_diagnose_options dopt;
    jl_diagnose_options_default(&dopt);
    jl__report_progress(r, "model", 1, 2, "diagnosing every run");
    if ((r->fits
             ? jl_diagnose_fitted(r->l, r->fit_groups, r->fits, r->opt.desc, &dopt, &r->diag, &e)
             : jl_diagnose(r->l, r->opt.desc, &dopt, &r->diag, &e)) != JL_OK) {
        note_error(r, "the runs were not diagnosed", e);
        r->diag = NULL;
    }
    return JL_OK;
}

/* ---- data/ ------------------------------------------------------------------------- */

/* The batches a curve is drawn at (caller frees; 0 when none). */
static size_t curve_grid(const jl_group_fit *f, double **out)
{
    *out = NULL;
    double *g = jl_model_batch_grid(f, RP_CURVE_POINTS);
    if (!g)
        return 0;
    double *v = realloc(g, (RP_CURVE_POINTS + 2) * sizeof *v);
    if (!v) {
        free(g);
        return 0;
    }
    size_t n = RP_CURVE_POINTS;
    double ends[2] = {f->batch_min, f->batch_max};
    for (int k = 0; k < 2; k++)
        if (ends[k] > v[0] && ends[k] < v[RP_CURVE_POINTS - 1])
            v[n++] = ends[k];
    qsort(v, n, sizeof *v, jl__cmp_double);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || v[i] > v[m - 1] * (1 + 1e-12))
            v[m++] = v[i];
    *out = v;
    return m;
}

/* What the band of a fit is: "combined" (parameters + correction),
 * "parameters" (no correction applied) or "none". */
static const char *band_kind(const jl_group_fit *f)
{
    if (f->method != JL_FIT_MODEL || !f->has_ci)
        return "none";
    return f->has_correction ? "combined" : "parameters";
}

/* The kind of the batch ceiling: the reason's first word, "none" when
 * there is none. */
static void ceiling_kind(const jl_group_fit *f, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", "none");
    if (!isfinite(f->batch_ceiling) || !f->ceiling_reason)
        return;
    size_t n = strcspn(f->ceiling_reason, ": ");
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, f->ceiling_reason, n);
    buf[n] = 0;
}

static jl_status write_curves_csv(jl__report_report *r, jl_error **err)
{
    jl__strbuf b;
    jl__strbuf_init(&b);
    static const char *const head[] = {"group",
                                       "model",
                                       "task",
                                       "gpu_model",
                                       "num_gpus",
                                       "precision",
                                       "method",
                                       "band",
                                       "batch",
                                       "extrapolated",
                                       "beyond_ceiling",
                                       "energy_per_token_j",
                                       "energy_per_token_lo_j",
                                       "energy_per_token_hi_j",
                                       "model_energy_per_token_j",
                                       "power_w",
                                       "power_lo_w",
                                       "power_hi_w",
                                       "throughput_tok_s",
                                       "throughput_lo_tok_s",
                                       "throughput_hi_tok_s",
                                       "step_time_s",
                                       "batch_min",
                                       "batch_max",
                                       "ceiling_batch",
                                       NULL};
    jl__csvw w;
    jl__csvw_begin_buf(&w, &b);
    jl__csvw_cells(&w, head);
    jl__csvw_end(&w);
    for (size_t i = 0; i < r->n_fits; i++) {
        const jl_group_fit *f = r->fits[i];
        double *grid = NULL;
        size_t n = curve_grid(f, &grid);
        char *key = jl_group_key_format(&f->key);
        for (size_t k = 0; k < n; k++) {
            jl_prediction p;
            if (jl_model_predict(f, grid[k], &p) != JL_OK)
                continue;
            jl__csvw_cell(&w, key);
            jl__csvw_cell(&w, f->key.model);
            jl__csvw_cell(&w, f->key.task);
            jl__csvw_cell(&w, f->key.gpu_model);
            jl__csvw_cellf(&w, "%ld", f->key.num_gpus);
            jl__csvw_cell(&w, f->key.precision);
            jl__csvw_cell(&w, jl_fit_method_name(f->method));
            jl__csvw_cell(&w, band_kind(f));
            jl__csvw_num(&w, p.batch);
            jl__csvw_cellf(&w, "%d", p.extrapolated);
            jl__csvw_cellf(&w, "%d", p.beyond_ceiling);
            csv_interval(&w, &p.energy_per_token_j);
            jl__csvw_num(&w, f->method == JL_FIT_MODEL ? p.model_energy_per_token_j.value : NAN);
            csv_interval(&w, &p.power_w);
            csv_interval(&w, &p.throughput_tok_s);
            jl__csvw_num(&w, p.step_time_s.value);
            jl__csvw_num(&w, f->batch_min);
            jl__csvw_num(&w, f->batch_max);
            jl__csvw_num(&w, f->batch_ceiling);
            jl__csvw_end(&w);
        }
        free(key);
        free(grid);
    }
    jl_status st = jl__report_write_buf(r, "data/fit-curves.csv", &b, err);
    return st;
}

jl_status jl__report_model_write_documents(jl__report_report *r, jl_error **err)
{
    jl_status st = JL_OK;
    if (r->fits) {
        jl_model_options mo;
        jl_model_options_default(&mo);
        st = jl__report_write_json_with_errors(r, "data/fit.json",
                                               jl_fit_document(r->fits, r->n_fits, &mo,
                                                               JL_FIT_DEFAULT_GRID, NULL, NULL,
                                                               r->fit_groups),
                                               err);
        if (!st)
            st = write_curves_csv(r, err);
        if (st)
            return st;
        jl__report_add_data(
            r, "data/fit.json",
            "joules.fit/1: the batch-size model of every group (parameters with 95% "
            "intervals, residuals per run, curves with their band, the batch ceiling)",
            "joules fit --json PATH...");
        jl__report_add_data(r, "data/fit-curves.csv",
                            "the fitted curves the model figures draw: one row per (group, batch), "
                            "energy per token, power, throughput with the band's bounds",
                            NULL);
    }
    if (r->diag) {
        st = jl__report_write_json_with_errors(r, "data/diagnose.json",
                                               jl_diagnose_document(r->diag), err);
        if (st)
            return st;
        jl__report_add_data(
            r, "data/diagnose.json",
            "joules.diagnose/1: per run utilisation, static energy, the binding batch "
            "limit with evidence, and the model's predicted changes",
            "joules diagnose --json PATH...");
    }
    return st;
}

/* ---- the figure ------------------------------------------------------------------ */

static char *fig_id(const jl__report_group *g, const jl_group_key *k)
{
    char *id = jl__asprintf("fit-%s-%s-x%ld-%s", g->slug, k->gpu_model ? k->gpu_model : "gpu",
                            k->num_gpus, k->precision ? k->precision : "na");
    if (!id)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; id[i]; i++) {
        char ch = id[i];
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 ch == '.';
        if (!ok && o && id[o - 1] == '-')
            continue;
        id[o++] = ok ? ch : '-';
    }
    id[o] = 0;
    return id;
}

typedef struct range {
    double lo, hi;
} range;

static void widen(range *r, double v)
{
    if (isfinite(v) && v > 0) {
        r->lo = fmin(r->lo, v);
        r->hi = fmax(r->hi, v);
    }
}

static void gp_num(jl__strbuf *b, const char *name, double v)
{
    jl__strbuf_printf(b, "%s = %.10g\n", name, v);
}

/* "set ytics (...)" with 1-2-5 ticks over [lo, hi] (decades alone when it
 * spans more than 3 decades): a narrow log range would otherwise show one
 * label or none. */
static void log_ytics(jl__strbuf *gp, double lo, double hi)
{
    if (!(lo > 0 && hi > lo && isfinite(hi)))
        return;
    static const double m125[] = {1, 2, 5};
    int only1 = hi / lo > 1e3;
    jl__strbuf_puts(gp, "set ytics (");
    int first = 1;
    for (int d = (int)floor(log10(lo)); d <= (int)ceil(log10(hi)); d++)
        for (int k = 0; k < (only1 ? 1 : 3); k++) {
            double v = m125[k] * pow(10, d);
            if (v < lo || v > hi)
                continue;
            jl__strbuf_printf(gp, "%s%.6g", first ? "" : ", ", v);
            first = 0;
        }
    jl__strbuf_puts(gp, ")\n");
}

/* One panel's plot command. col: first column of value, lo, hi in the curve
 * block; clamp: the gnuplot clamp function name. */
static void plot_panel(jl__strbuf *gp, const char *id, int col, const char *clamp, int band,
                       int physical_col, int with_titles, const char *band_title, int interp,
                       size_t n_beyond)
{
    const char *blue = jl__report_palette[0], *orange = jl__report_palette[1];
    int first = 1;
#define SEP (first ? (first = 0, "plot ") : ", \\\n     ")
    if (band) {
        jl__strbuf_printf(gp,
                          "%s\"%s.dat\" index 1 using 1:(%s($%d)):(%s($%d)) with filledcurves "
                          "fc rgb \"#56B4E9\" fs transparent solid 0.35 noborder",
                          SEP, id, clamp, col + 1, clamp, col + 2);
        if (with_titles) {
            jl__strbuf_puts(gp, " title ");
            jl__report_gp_str(gp, band_title);
        }
    }
    jl__strbuf_printf(
        gp,
        "%s\"%s.dat\" index 1 using 1:(inr($12) ? %s($%d) : NaN) with lines lw 2.6 lc rgb \"%s\"",
        SEP, id, clamp, col, blue);
    if (with_titles)
        jl__strbuf_printf(gp, " title \"%s\"",
                          interp ? "interpolation"
                                 : (physical_col ? "model + correction" : "model"));
    jl__strbuf_printf(
        gp,
        "%s\"%s.dat\" index 1 using 1:(outr($12) ? %s($%d) : NaN) with lines lw 2 dt 2 lc rgb \"%s\"",
        SEP, id, clamp, col, blue);
    if (with_titles)
        jl__strbuf_puts(gp, " title \"extrapolated\"");
    if (physical_col) {
        jl__strbuf_printf(
            gp, "%s\"%s.dat\" index 1 using 1:(%s($%d)) with lines lw 1.3 dt 3 lc rgb \"#555555\"",
            SEP, id, clamp, physical_col);
        if (with_titles)
            jl__strbuf_puts(gp, " title \"physical model alone\"");
    }
    /* measured: block 0, columns batch=2, e=3, P=4, T=5 */
    int mcol = col == 2 ? 3 : (col == 5 ? 4 : 5);
    jl__strbuf_printf(
        gp,
        "%s\"%s.dat\" index 0 using 2:(beyond($2) ? NaN : $%d) with points pt 7 ps 1.25 lc rgb \"%s\"",
        SEP, id, mcol, orange);
    if (with_titles)
        jl__strbuf_puts(gp, " title \"measured runs\"");
    if (n_beyond) {
        jl__strbuf_printf(
            gp,
            "%s\"%s.dat\" index 0 using 2:(beyond($2) ? $%d : NaN) with points pt 6 ps 1.25 lw 1.5 lc rgb \"%s\"",
            SEP, id, mcol, orange);
        if (with_titles)
            jl__strbuf_puts(gp, " title \"runs beyond the ceiling\"");
    }
    jl__strbuf_puts(gp, "\n");
#undef SEP
}

/* What the phases of one model figure share: the fit, what it draws, the
 * ranges its points and curves span, and what the caption reports. */
typedef struct fit_fig {
    const jl_group_fit *fit;
    const jl_group_key *k;
    jl__report_figure *f;
    const char *band;
    int has_band, physical, interp, clipped;
    char ckind[32];
    range re, rt, rx; /* energy, throughput, batch */
    double pmax;
    size_t npr; /* curve points predicted */
    double ey0, ey1, ty0, ty1, py1, tdp_all, ceil_b, x0, x1;
    size_t n_beyond; /* measured runs beyond the batch ceiling */
} fit_fig;

/* Block 0 of the .dat: the measured runs, one row each; their keys in runs. */
static void fit_dat_runs(fit_fig *ff, jl__strbuf *dat, json_t *runs)
{
    const jl_group_fit *fit = ff->fit;
    jl__report_comment_line(dat, "%s", ff->f->title);
    jl__strbuf_puts(dat,
                    "# block 0 (index 0): the measured runs, one row per run\n"
                    "# max_batch_size batch energy_per_token_j power_w throughput_tok_s run\n");
    for (size_t i = 0; i < fit->n_points; i++) {
        const jl_fit_point *p = &fit->points[i];
        jl__strbuf_printf(dat, "%ld", p->max_batch_size);
        jl__report_dat_num(dat, p->batch);
        jl__report_dat_num(dat, p->energy_per_token_j);
        jl__report_dat_num(dat, p->power_w);
        jl__report_dat_num(dat, p->throughput_tok_s);
        char *key = jl__asprintf("%s:%s", p->run->file ? p->run->file : "?",
                                 p->run->run ? p->run->run : "?");
        jl__strbuf_puts(dat, " ");
        jl__report_dat_str(dat, key ? key : "?");
        jl__strbuf_puts(dat, "\n");
        free(key);
        widen(&ff->re, p->energy_per_token_j);
        widen(&ff->rt, p->throughput_tok_s);
        widen(&ff->rx, p->batch);
        if (isfinite(p->power_w))
            ff->pmax = fmax(ff->pmax, p->power_w);
        json_array_append_new(runs, jl_run_key_to_json(p->run));
        ff->f->n_points++;
    }
}

/* Block 1 of the .dat: the curve over the grid in three segments; the
 * predictions (caller frees, ff->npr of them). */
static jl_prediction *fit_dat_curve(fit_fig *ff, jl__strbuf *dat)
{
    const jl_group_fit *fit = ff->fit;
    double *grid = NULL;
    size_t ng = curve_grid(fit, &grid);
    jl__strbuf_puts(dat, "\n\n# block 1 (index 1): the curve (data/fit-curves.csv has the same)\n"
                         "# batch energy_per_token_j energy_lo_j energy_hi_j power_w power_lo_w "
                         "power_hi_w throughput_tok_s throughput_lo_tok_s throughput_hi_tok_s "
                         "model_energy_per_token_j segment\n"
                         "# segment: 0 below the measured batches, 1 over them, 2 above them "
                         "(extrapolated); a blank line separates segments\n");
    jl_prediction *pr = jl__calloc_array(ng ? ng : 1, sizeof *pr);
    size_t npr = 0;
    for (size_t i = 0; pr && i < ng; i++) {
        jl_prediction p;
        if (jl_model_predict(fit, grid[i], &p) != JL_OK)
            continue;
        pr[npr++] = p;
    }
    /* three segments, separated by a blank line so no line joins them: below
     * the measured batches (0), over them (1), above them (2); the ends of the
     * measured range are in both segments they bound */
    for (int seg = 0; seg < 3; seg++) {
        size_t rows = 0;
        for (size_t i = 0; i < npr; i++) {
            const jl_prediction p = pr[i];
            double bl = fit->batch_min * (1 + 1e-12), bh = fit->batch_max * (1 - 1e-12);
            int in = seg == 0 ? p.batch <= bl
                              : (seg == 1 ? p.batch >= fit->batch_min * (1 - 1e-12) &&
                                                p.batch <= fit->batch_max * (1 + 1e-12)
                                          : p.batch >= bh);
            if (!in)
                continue;
            if (!rows++ && seg)
                jl__strbuf_puts(dat, "\n");
            jl__strbuf_printf(dat, "%.10g", p.batch);
            dat_interval(dat, &p.energy_per_token_j);
            dat_interval(dat, &p.power_w);
            dat_interval(dat, &p.throughput_tok_s);
            jl__report_dat_num(dat, ff->physical ? p.model_energy_per_token_j.value : NAN);
            jl__strbuf_printf(dat, " %d\n", seg);
            widen(&ff->re, p.energy_per_token_j.value);
            widen(&ff->rt, p.throughput_tok_s.value);
            widen(&ff->rx, p.batch);
            if (ff->physical)
                widen(&ff->re, p.model_energy_per_token_j.value);
            if (isfinite(p.power_w.value))
                ff->pmax = fmax(ff->pmax, p.power_w.value);
        }
    }
    free(grid);
    ff->npr = npr;
    return pr;
}

/* The panels' ranges from the points and curves (not the band: a band
 * wider than this is clipped at the edge, and the caption says so). */
static void fit_ranges(fit_fig *ff, const jl_prediction *pr)
{
    const jl_group_fit *fit = ff->fit;
    ff->ey0 = ff->re.lo / 1.5;
    ff->ey1 = ff->re.hi * 1.5;
    ff->ty0 = ff->rt.lo / 1.5;
    ff->ty1 = ff->rt.hi * 1.5;
    ff->tdp_all = fit->tdp_w * (double)ff->k->num_gpus;
    ff->py1 = fmax(ff->pmax, isfinite(ff->tdp_all) ? ff->tdp_all : 0) * 1.15;
    for (size_t i = 0; i < ff->npr; i++) {
        const jl_prediction *p = &pr[i];
        if (ff->has_band && (p->energy_per_token_j.lo < ff->ey0 ||
                             p->energy_per_token_j.hi > ff->ey1 || p->power_w.hi > ff->py1 ||
                             p->throughput_tok_s.lo < ff->ty0 || p->throughput_tok_s.hi > ff->ty1))
            ff->clipped = 1;
    }
    ff->ceil_b = fit->batch_ceiling;
    for (size_t i = 0; i < fit->n_points; i++)
        ff->n_beyond += fit->points[i].batch > ff->ceil_b;
    ff->x0 = ff->rx.lo / 1.3;
    ff->x1 = fmax(ff->rx.hi, isfinite(ff->ceil_b) ? ff->ceil_b : 0) * 1.3;
}

/* The script's header, panel layout, ranges and batch axis. */
static void fit_script_setup(const fit_fig *ff, jl__strbuf *gp)
{
    const jl__report_figure *f = ff->f;
    jl__report_gp_header_sized(
        gp, f->id, f->title,
        "Energy per token (left), power and throughput (right) against the achieved "
        "batch: measured runs, the fitted model with its 95% band, the batch ceiling.",
        1000, 460, 7.0 * 0.46, 3.0);
    /* panels: energy left, power and throughput stacked right; the 3.3 in
     * PDF has the energy panel alone */
    jl__strbuf_puts(gp, "set multiplot\n"
                        "eoy = 0; esx = narrow ? 1 : 0.6; esy = 1\n"
                        "pox = 0.6; poy = 0.5; psx = 0.4; psy = 0.5\n"
                        "tox = 0.6; tsx = 0.4; tsy = 0.5\n");
    gp_num(gp, "bmin", ff->fit->batch_min);
    gp_num(gp, "bmax", ff->fit->batch_max);
    gp_num(gp, "ey0", ff->ey0);
    gp_num(gp, "ey1", ff->ey1);
    gp_num(gp, "py1", ff->py1);
    gp_num(gp, "ty0", ff->ty0);
    gp_num(gp, "ty1", ff->ty1);
    if (isfinite(ff->ceil_b))
        gp_num(gp, "ceil", ff->ceil_b);
    jl__strbuf_puts(gp, "# segment (column 12): 1 over the measured batches, 0 and 2 extrapolated\n"
                        "inr(s) = s == 1\n"
                        "outr(s) = s != 1\n"
                        "# values beyond the y range are drawn at its edge\n"
                        "ce(v) = v < ey0 ? ey0 : (v > ey1 ? ey1 : v)\n"
                        "cp(v) = v < 0 ? 0 : (v > py1 ? py1 : v)\n"
                        "ct(v) = v < ty0 ? ty0 : (v > ty1 ? ty1 : v)\n");
    jl__strbuf_printf(gp,
                      "set logscale x 2\nset xrange [%.10g:%.10g]\nset format x \"%%g\"\n"
                      "if (narrow) set xtics 8\n",
                      ff->x0, ff->x1);
    jl__strbuf_puts(gp, "set xlabel \"achieved batch (avg_batch_size)\"\n");
    jl__strbuf_puts(gp, "# runs beyond the batch ceiling (open markers)\n");
    if (isfinite(ff->ceil_b))
        jl__strbuf_puts(gp, "beyond(b) = b > ceil\n");
    else
        jl__strbuf_puts(gp, "beyond(b) = 0\n");
    if (isfinite(ff->ceil_b)) {
        jl__strbuf_puts(gp, "set arrow 1 from ceil, graph 0 to ceil, graph 1 nohead dt 4 lw 1.6 "
                            "lc rgb \"#333333\" front\n");
    }
}

/* Panel 1, energy per token, with its labels (ceiling, R^2, why no band). */
static void fit_script_energy(const fit_fig *ff, jl__strbuf *gp)
{
    const jl_group_fit *fit = ff->fit;
    char r2[160] = "";
    if (fit->method == JL_FIT_MODEL)
        snprintf(r2, sizeof r2, "R\xc2\xb2 of ln J/token: %.4f (model), %.4f (with correction)",
                 fit->r2_energy, fit->r2_energy_corrected);
    jl__strbuf_puts(gp, "set origin 0,eoy\nset size esx,esy\n"
                        "set logscale y 10\nset format y \"%g\"\nset yrange [ey0:ey1]\n"
                        "set ylabel \"energy per token (J)\"\n"
                        "# the key where energy per token has fallen (top right), on a white box\n"
                        "set key at graph 0.9, graph 0.98 right top vertical samplen 2 opaque box "
                        "lc rgb \"#dddddd\" width -2 font lblfont\n"
                        "if (narrow) set key outside bottom center vertical maxrows 5 samplen 1.5 "
                        "width -4 nobox font lblfont\n");
    if (isfinite(ff->ceil_b)) {
        jl__strbuf_puts(gp, "set label 1 sprintf(\"batch ceiling %.0f (\", ceil) . ");
        jl__report_gp_str(gp, ff->ckind);
        /* left of the line, halfway up: the key is at the top, the curve
         * low by the ceiling */
        jl__strbuf_puts(gp, " . \")\" at ceil, graph 0.5 rotate by 90 center offset -1.0,0 "
                            "textcolor rgb \"#333333\" font lblfont\n");
    }
    if (r2[0]) {
        jl__strbuf_puts(gp, "if (!narrow) set label 2 ");
        jl__report_gp_str(gp, r2);
        jl__strbuf_puts(gp,
                        " at graph 0.02, graph 0.03 left font lblfont textcolor rgb \"#555555\"\n");
    }
    if (!ff->has_band) {
        char *t = ff->interp
                      ? jl__strdup("no band: too few batch sizes for the model (interpolation)")
                      : jl__asprintf("no band: %s",
                                     fit->ci_note ? fit->ci_note : "no interval available");
        /* in lines of at most 58 characters (the panel's width in the 7 in
         * PDF), stacked up from above the R^2 line: a long reason stays in
         * its panel instead of running into the next one */
        const char *rest = t ? t : "no band";
        char *lines[8];
        size_t nl = 0;
        while (*rest && nl < 8) {
            size_t len = strlen(rest), cut = len;
            if (len > 58 && nl < 7) {
                /* after a clause's colon where there is one, else at a space */
                cut = 58;
                while (cut > 20 && !(rest[cut] == ' ' && rest[cut - 1] == ':'))
                    cut--;
                if (cut <= 20)
                    for (cut = 58; cut > 20 && rest[cut] != ' ';)
                        cut--;
                if (rest[cut] != ' ')
                    for (cut = 58; cut > 1 && ((unsigned char)rest[cut] & 0xc0) == 0x80;)
                        cut--; /* not inside a UTF-8 sequence */
            }
            lines[nl++] = jl__asprintf("%.*s", (int)cut, rest);
            rest += cut;
            while (*rest == ' ')
                rest++;
        }
        for (size_t k = 0; k < nl; k++) {
            jl__strbuf_printf(gp, "set label %zu ", 30 + k);
            jl__report_gp_str(gp, lines[k] ? lines[k] : "");
            jl__strbuf_printf(gp,
                              " at graph 0.02, graph %.2f left font lblfont textcolor rgb "
                              "\"#9a5b00\"\n",
                              0.09 + 0.045 * (double)(nl - 1 - k));
            free(lines[k]);
        }
        free(t);
    }
    char *band_title = !strcmp(ff->band, "combined")
                           ? jl__strdup("95% CI of the mean (param. + corr.)")
                           : jl__strdup("95% CI of the mean (param.)");
    log_ytics(gp, ff->ey0, ff->ey1);
    plot_panel(gp, ff->f->id, 2, "ce", ff->has_band, ff->physical ? 11 : 0, 1, band_title,
               ff->interp, ff->n_beyond);
    free(band_title);
}

/* Panels 2 and 3: power and throughput (not in the 3.3 in PDF). */
static void fit_script_right(const fit_fig *ff, jl__strbuf *gp)
{
    jl__strbuf_puts(gp, "unset label\nunset key\n"
                        "# the 3.3 in PDF shows energy per token alone\n"
                        "if (!narrow) {\n");
    /* panel 2: power */
    jl__strbuf_puts(gp, "set origin pox,poy\nset size psx,psy\nunset logscale y\n"
                        "set yrange [0:py1]\nset ytics autofreq\n"
                        "set ylabel \"power, all GPUs (W)\"\nset xlabel \"\"\n"
                        "# narrow panels: a tick every 4x, so the labels do not run together\n"
                        "set xtics 4\n");
    if (isfinite(ff->tdp_all)) {
        gp_num(gp, "tdp", ff->tdp_all);
        jl__strbuf_puts(gp, "set arrow 2 from graph 0, first tdp to graph 1, first tdp nohead dt 2 "
                            "lc rgb \"#666666\" lw 1\n"
                            "set label 4 \"power limit\" at graph 0.02, first tdp offset 0,0.6 "
                            "font lblfont textcolor rgb \"#666666\"\n");
    }
    plot_panel(gp, ff->f->id, 5, "cp", ff->has_band, 0, 0, NULL, ff->interp, ff->n_beyond);
    jl__strbuf_puts(gp, "unset arrow 2\nunset label\nset ytics autofreq\n");
    /* panel 3: throughput */
    jl__strbuf_puts(gp, "set origin tox,0\nset size tsx,tsy\nset logscale y 10\n"
                        "set yrange [ty0:ty1]\nset ylabel \"throughput (tokens/s)\"\n"
                        "set xlabel \"achieved batch\"\n");
    log_ytics(gp, ff->ty0, ff->ty1);
    plot_panel(gp, ff->f->id, 8, "ct", ff->has_band, 0, 0, NULL, ff->interp, ff->n_beyond);
    jl__strbuf_puts(gp, "set xtics autofreq\n}\nunset multiplot\nunset output\n");
}

/* The caption: what is drawn, what the band means, the ceiling. */
static char *fit_caption(const fit_fig *ff)
{
    const jl_group_fit *fit = ff->fit;
    const jl_group_key *k = ff->k;
    jl__strbuf cap;
    jl__strbuf_init(&cap);
    jl__strbuf_printf(&cap,
                      "Energy per token against the achieved batch (the mean number of running "
                      "requests, log2 axis) on %s x%ld (%s): the %zu measured runs (dots) and ",
                      k->gpu_model, k->num_gpus, k->precision, fit->n_points);
    if (ff->interp)
        jl__strbuf_printf(&cap,
                          "a log-log interpolation between them (%zu batch sizes: too few "
                          "for the physical model, so no parameters and no band). ",
                          fit->n_batch_sizes);
    else
        jl__strbuf_printf(&cap,
                          "the fitted batch-size model%s (solid over the measured batches, "
                          "dashed where extrapolated)%s. ",
                          ff->physical ? " with its Gaussian-process correction" : "",
                          ff->physical ? "; dotted: the physical model alone" : "");
    if (!strcmp(ff->band, "combined"))
        jl__strbuf_puts(&cap,
                        "The shaded band is the 95% confidence interval of the mean: "
                        "the parameter uncertainty plus the correction's, not a prediction "
                        "interval for one new run (which is wider by the run-to-run noise). ");
    else if (!strcmp(ff->band, "parameters"))
        jl__strbuf_puts(&cap, "The shaded band is the 95% confidence interval of the mean from the "
                              "parameter uncertainty, not a prediction interval for one new run. ");
    else if (!ff->interp)
        jl__strbuf_printf(&cap, "No band: %s. ",
                          fit->ci_note ? fit->ci_note : "no interval available");
    if (ff->clipped)
        jl__strbuf_puts(&cap, "Where the band reaches the edge of a panel it is wider than the "
                              "panel (clipped). ");
    if (isfinite(ff->ceil_b)) {
        jl__strbuf_printf(&cap, "The vertical line is the batch ceiling, %.0f (%s", ff->ceil_b,
                          fit->ceiling_reason ? fit->ceiling_reason : ff->ckind);
        jl__strbuf_puts(&cap, "); predictions stop there. ");
        if (ff->n_beyond)
            jl__strbuf_printf(&cap,
                              "%zu measured run%s beyond it (open markers) %s fitted but not "
                              "predicted for. ",
                              ff->n_beyond, ff->n_beyond == 1 ? " lies" : "s lie",
                              ff->n_beyond == 1 ? "is" : "are");
    }
    jl__strbuf_puts(&cap, "Right: power of all GPUs and throughput, same model and band. Curves: "
                          "data/fit-curves.csv; parameters: data/fit.json.");
    return jl__strbuf_take(&cap);
}

/* One group's model figure, in phases: the runs and the curve (.dat), the
 * ranges, the script's setup and panels (.gp), the caption, report.json's
 * entry. */
static jl_status fig_fit(jl__report_report *r, size_t fi, jl_error **err)
{
    const jl_group_fit *fit = r->fits[fi];
    long gi = r->fit_group_of[fi];
    if (gi < 0 || fit->method == JL_FIT_NONE || !fit->n_points)
        return JL_OK;
    jl__report_group *g = &r->groups[gi];
    const jl_group_key *k = &fit->key;
    char *id = fig_id(g, k);
    jl__report_figure *f = id ? jl__report_add_figure(r, RP_FIG_MODEL, gi, id) : NULL;
    free(id);
    if (!f)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    f->title = jl__asprintf("Batch-size model: %s, %s on %s x%ld (%s)", k->model, k->task,
                            k->gpu_model, k->num_gpus, k->precision);
    fit_fig ff;
    memset(&ff, 0, sizeof ff);
    ff.fit = fit;
    ff.k = k;
    ff.f = f;
    ff.band = band_kind(fit);
    ff.has_band = strcmp(ff.band, "none") != 0;
    ff.physical = fit->method == JL_FIT_MODEL && fit->has_correction;
    ff.interp = fit->method == JL_FIT_INTERPOLATION;
    ceiling_kind(fit, ff.ckind, sizeof ff.ckind);
    ff.re = (range){INFINITY, -INFINITY};
    ff.rt = ff.re;
    ff.rx = ff.re;

    jl__strbuf dat, gp;
    jl__strbuf_init(&dat);
    jl__strbuf_init(&gp);
    json_t *runs = json_array();
    fit_dat_runs(&ff, &dat, runs);
    jl_prediction *pr = fit_dat_curve(&ff, &dat);
    fit_ranges(&ff, pr);
    free(pr);
    fit_script_setup(&ff, &gp);
    fit_script_energy(&ff, &gp);
    fit_script_right(&ff, &gp);
    f->caption = fit_caption(&ff);

    char *gkey = jl_group_key_format(k);
    f->meta =
        json_pack("{s:s?,s:s?,s:I,s:s?,s:s,s:s,s:o,s:o,s:o,s:s,s:s?,s:b,s:I,s:o,s:s}", "fit_group",
                  gkey, "gpu_model", k->gpu_model, "num_gpus", (json_int_t)k->num_gpus, "precision",
                  k->precision, "method", jl_fit_method_name(fit->method), "band", ff.band,
                  "batch_min", jl_json_number(fit->batch_min), "batch_max",
                  jl_json_number(fit->batch_max), "ceiling_batch", jl_json_number(ff.ceil_b),
                  "ceiling_kind", ff.ckind, "ceiling_reason", fit->ceiling_reason, "band_clipped",
                  ff.clipped, "n_curve_points", (json_int_t)ff.npr, "runs", runs, "curves",
                  "data/fit-curves.csv");
    free(gkey);
    jl_status st = jl__report_write_fig_files(r, f, &dat, &gp, err);
    jl__strbuf_free(&dat);
    jl__strbuf_free(&gp);
    return st;
}

jl_status jl__report_model_figures(jl__report_report *r, jl_error **err)
{
    jl_status st = JL_OK;
    for (size_t i = 0; r->fits && i < r->n_fits && !st; i++) {
        jl__report_progress(r, "model figures", i, r->n_fits, NULL);
        st = fig_fit(r, i, err);
    }
    return st;
}
