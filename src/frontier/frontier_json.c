/* The joules.frontier/1 document and the frontier CSV. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontier/frontier_internal.h"
#include "joules/frontier.h"
#include "joules/output.h"
#include "output/document_internal.h"
#include "summary/summary_internal.h"

static const char *fig_name(int f)
{
    return f >= 0 ? jl_figure_name((jl_figure)f) : NULL;
}

/* The figure a whole frontier uses (the first run's; all runs of a (model,
 * task) share the workload in practice). */
static int frontier_fig(const jl_frontier_set *fs, const jl_frontier *f, const jl_summary_list *l,
                        int energy)
{
    const jl_summary *s = NULL;
    if (f->n_points)
        s = l->items[f->points[0].run];
    else if (f->n_skipped)
        s = l->items[f->skipped[0]];
    if (!s)
        return energy ? fs->opt.energy_figure : fs->opt.latency_figure;
    return energy ? jl_frontier_energy_figure(&fs->opt, s)
                  : jl_frontier_latency_figure(&fs->opt, s);
}

const char *jl_frontier_skip_reason(const jl_frontier_set *fs, const jl_frontier *f,
                                    const jl_summary_list *l, size_t i, char *buf, size_t cap)
{
    const jl_summary *s = l->items[i];
    char why[400], pct[32], fpct[32];
    const char *plain = "latency or energy figure missing";
    int fe = jl_frontier_energy_figure(&fs->opt, s);
    if (jl_frontier_latency_figure(&fs->opt, s) != JL_FIG_PERCENTILE_LATENCY_S || fe < 0 ||
        !isfinite(s->fig[fe]))
        return plain;
    if (jl_attrs_get(&s->attrs, "latency_unknown", why, sizeof why) == 0) {
        snprintf(buf, cap, "no latency figure: %s", why);
        return buf;
    }
    if (isfinite(s->fig[JL_FIG_PERCENTILE_LATENCY_S]) && f->n_points &&
        jl_attrs_get(&s->attrs, "latency_percentile", pct, sizeof pct) == 0 &&
        jl_attrs_get(&l->items[f->points[0].run]->attrs, "latency_percentile", fpct, sizeof fpct) ==
            0 &&
        strcmp(pct, fpct)) {
        snprintf(buf, cap,
                 "its latency is the %sth percentile, the frontier's the %sth (one percentile "
                 "per frontier)",
                 pct, fpct);
        return buf;
    }
    return plain;
}

/* Text backend: the key object of each run that dominates another (a
 * frontier point), as first written (its curve point's "run"), copied where
 * it comes back at the same depth ("dominated_by"). */
typedef struct key_cache {
    char *text;
    size_t len, cap;
    size_t *off, *n, *depth; /* per run; depth 0: to keep, (size_t)-1: not kept */
} key_cache;

static void key_cache_init(key_cache *c, const jl__jw *w, const jl_frontier_set *fs, size_t n_runs)
{
    memset(c, 0, sizeof *c);
    if (!jl__jw_is_text(w) || !n_runs)
        return;
    c->off = malloc(n_runs * sizeof *c->off);
    c->n = malloc(n_runs * sizeof *c->n);
    c->depth = malloc(n_runs * sizeof *c->depth);
    if (!c->off || !c->n || !c->depth) { /* no cache: every key written */
        free(c->off);
        free(c->n);
        free(c->depth);
        memset(c, 0, sizeof *c);
        return;
    }
    for (size_t i = 0; i < n_runs; i++)
        c->depth[i] = (size_t)-1;
    size_t n_keep = 0;
    for (size_t i = 0; i < fs->n; i++)
        for (size_t d = 0; d < fs->frontiers[i].n_dominated; d++) {
            size_t r = fs->frontiers[i].dominated[d].by;
            if (r < n_runs && c->depth[r]) {
                c->depth[r] = 0;
                n_keep++;
            }
        }
    c->cap = n_keep * 512; /* a run key is ~300 bytes: no growth as a rule */
    if (c->cap && !(c->text = malloc(c->cap)))
        c->cap = 0;
}

static void key_cache_free(key_cache *c)
{
    free(c->text);
    free(c->off);
    free(c->n);
    free(c->depth);
}

/* Keep text[start..) of w for run i written at depth d (no room: not kept). */
static void key_cache_put(key_cache *c, const jl__jw *w, size_t i, size_t d, size_t start)
{
    size_t len = jl__jw_text_len(w) - start;
    if (c->len + len > c->cap) {
        size_t cap = c->cap ? c->cap : 4096;
        while (cap < c->len + len)
            cap *= 2;
        char *t = realloc(c->text, cap);
        if (!t)
            return;
        c->text = t;
        c->cap = cap;
    }
    memcpy(c->text + c->len, jl__jw_text_ptr(w) + start, len);
    c->off[i] = c->len;
    c->n[i] = len;
    c->depth[i] = d;
    c->len += len;
}

/* The run key object of run i (a value). */
static void run_key(jl__jw *w, const jl_summary_list *l, size_t i, key_cache *c)
{
    size_t d = jl__jw_depth(w) + 1;
    if (c && c->depth && c->depth[i] == d) {
        jl__jw_raw_value(w, c->text + c->off[i], c->n[i]);
        return;
    }
    jl__jw_object(w);
    size_t start = jl__jw_text_len(w) - 1; /* its '{' (text backend) */
    jl__run_key_write(w, l->items[i]);
    jl__jw_end(w);
    if (c && c->depth && c->depth[i] == 0 && jl__jw_ok(w))
        key_cache_put(c, w, i, d, start);
}

/* What a point's energy covers: its run's headline boundary (summary.md,
 * "Every figure and its boundary"). */
static void boundary_write(jl__jw *w, const jl_summary *s)
{
    jl__jw_key(w, "boundary");
    jl__jw_object(w);
    jl__jw_kstring(w, "scope", jl_scope_name(s->boundary.scope));
    jl__jw_kstring(w, "window", jl_window_name(s->boundary.window));
    jl__jw_end(w);
}

/* Members in key order (the text writer then sorts only run objects). */
static void frontier_write(jl__jw *w, const jl_frontier_set *fs, const jl_frontier *f,
                           const jl_summary_list *l, key_cache *c)
{
    jl__jw_object(w);
    jl__jw_key(w, "dominated");
    jl__jw_array(w);
    for (size_t d = 0; d < f->n_dominated; d++) {
        jl__jw_object(w);
        jl__jw_key(w, "dominated_by");
        run_key(w, l, f->dominated[d].by, c);
        jl__run_key_write(w, l->items[f->dominated[d].run]);
        jl__jw_end(w);
    }
    jl__jw_end(w);
    jl__jw_kstring(w, "energy_figure", fig_name(frontier_fig(fs, f, l, 1)));
    int flat = frontier_fig(fs, f, l, 0);
    jl__jw_kstring(w, "latency_figure", fig_name(flat));
    if (flat == JL_FIG_PERCENTILE_LATENCY_S && f->n_points) {
        /* which percentile, of what (MLPerf LoadGen: per sample or query) */
        const jl_summary *s0 = l->items[f->points[0].run];
        char per[16], pct[32];
        jl__jw_kstring(w, "latency_per",
                       jl_attrs_get(&s0->attrs, "latency_per", per, sizeof per) < 0 ? NULL : per);
        jl__jw_key(w, "latency_percentile");
        if (jl_attrs_get(&s0->attrs, "latency_percentile", pct, sizeof pct) < 0)
            jl__jw_null(w);
        else
            jl__jw_number(w, strtod(pct, NULL));
    }
    jl__jw_kstring(w, "model", f->model);
    jl__jw_key(w, "n_runs");
    jl__jw_integer(w, (json_int_t)f->n_runs);
    jl__jw_key(w, "points");
    jl__jw_array(w);
    for (size_t p = 0; p < f->n_points; p++) {
        const jl_frontier_point *pt = &f->points[p];
        jl__jw_object(w);
        jl__summary_write(w, l->items[pt->run]);
        jl__jw_knumber(w, "frontier_latency", pt->latency);
        jl__jw_knumber(w, "frontier_energy", pt->energy);
        jl__jw_key(w, "equivalent");
        jl__jw_array(w);
        for (size_t k = 0; k < pt->n_equivalent; k++)
            run_key(w, l, pt->equivalent[k], c);
        jl__jw_end(w);
        jl__jw_end(w);
    }
    jl__jw_end(w);
    jl__jw_kstring(w, "power_scope", f->node_ac ? "node_ac" : "gpu");
    if (f->n_points)
        boundary_write(w, l->items[f->points[0].run]);
    jl__jw_key(w, "skipped");
    jl__jw_array(w);
    for (size_t k = 0; k < f->n_skipped; k++) {
        jl__jw_object(w);
        jl__run_key_write(w, l->items[f->skipped[k]]);
        char why[512];
        jl__jw_kstring(w, "reason",
                       jl_frontier_skip_reason(fs, f, l, f->skipped[k], why, sizeof why));
        jl__jw_end(w);
    }
    jl__jw_end(w);
    jl__jw_kstring(w, "task", f->task);
    jl__jw_kstring(w, "workload", f->workload);
    jl__jw_end(w);
}

static void curve_point_write(jl__jw *w, const jl_curve_point *q, const jl_summary_list *l,
                              key_cache *c)
{
    jl__jw_object(w);
    boundary_write(w, l->items[q->run]);
    jl__jw_knumber(w, "energy", q->energy);
    jl__jw_knumber(w, "latency", q->latency);
    if (jl_attrs_known(&l->items[q->run]->attrs, "max_batch_size"))
        jl__jw_klong(w, "max_batch_size", q->batch);
    else {
        jl__jw_key(w, "max_batch_size");
        jl__jw_null(w);
    }
    jl__jw_kbool(w, "on_curve_frontier", q->on_curve_frontier);
    jl__jw_kbool(w, "on_frontier", q->on_frontier);
    jl__jw_key(w, "run");
    run_key(w, l, q->run, c);
    jl__jw_end(w);
}

/* One curve (the paper's Fig. 8-9): every batch size of one (GPU model,
 * GPU count, precision), each point marked on or off the frontiers. */
static void curve_write(jl__jw *w, const jl_frontier *f, const jl_curve *cv,
                        const jl_summary_list *l, key_cache *c)
{
    jl__jw_object(w);
    jl__jw_kstring(w, "gpu_model", cv->gpu_model);
    jl__jw_kstring(w, "model", f->model);
    jl__jw_klong(w, "num_gpus", cv->num_gpus);
    jl__jw_key(w, "points");
    jl__jw_array(w);
    for (size_t p = 0; p < cv->n_points; p++)
        curve_point_write(w, &cv->points[p], l, c);
    jl__jw_end(w);
    jl__jw_kstring(w, "precision", cv->precision);
    jl__jw_kstring(w, "task", f->task);
    jl__jw_end(w);
}

/* The document, with "errors" when errors_json is non-NULL; in key order. */
static void document_write(jl__jw *w, const void *result, const jl_summary_list *l,
                           const json_t *errors_json)
{
    const jl_frontier_set *fs = result;
    key_cache c;
    key_cache_init(&c, w, fs, l->count);
    jl__jw_object(w);
    jl__jw_key(w, "curves");
    jl__jw_array(w);
    for (size_t i = 0; i < fs->n; i++)
        for (size_t k = 0; k < fs->frontiers[i].n_curves; k++)
            curve_write(w, &fs->frontiers[i], &fs->frontiers[i].curves[k], l, &c);
    jl__jw_end(w);
    jl__jw_kstring(w, "energy_figure",
                   fs->opt.energy_figure >= 0 ? fig_name(fs->opt.energy_figure) : "default");
    if (errors_json) {
        jl__jw_key(w, "errors");
        jl__jw_json(w, errors_json);
    }
    jl__jw_key(w, "frontiers");
    jl__jw_array(w);
    for (size_t i = 0; i < fs->n; i++)
        frontier_write(w, fs, &fs->frontiers[i], l, &c);
    jl__jw_end(w);
    jl__jw_kstring(w, "latency_figure",
                   fs->opt.latency_figure >= 0 ? fig_name(fs->opt.latency_figure) : "default");
    jl__jw_kstring(w, "schema", "joules.frontier/1");
    jl__jw_knumber(w, "tolerance", fs->opt.tolerance);
    jl__jw_end(w);
    key_cache_free(&c);
}

json_t *jl_frontier_document(const jl_frontier_set *fs, const jl_summary_list *l)
{
    return jl__jw_document_tree(document_write, fs, l);
}

char *jl_frontier_document_text(const jl_frontier_set *fs, const jl_summary_list *l,
                                const jl_error_list *errors, size_t *len)
{
    return jl__jw_document_text(document_write, fs, l, errors, len);
}

jl_status jl_write_frontier_json(const char *path, const jl_frontier_set *fs,
                                 const jl_summary_list *l, const jl_error_list *errors,
                                 jl_error **err)
{
    return jl__jw_write_document(path, document_write, fs, l, errors, err);
}

typedef struct csv_ctx {
    const jl_frontier_set *fs;
    const jl_summary_list *l;
} csv_ctx;

static int print_csv(FILE *f, const void *vctx)
{
    const csv_ctx *ctx = vctx;
    /* latency and energy under columns named by their figures: an ITL is
     * never in the same column as a batch latency, J/token never with J/item */
    static const int lat_default[] = {JL_FIG_MEDIAN_ITL_S, JL_FIG_BATCH_LATENCY_S, -1};
    static const int en_default[] = {JL_FIG_ENERGY_PER_TOKEN_J, JL_FIG_ENERGY_PER_ITEM_J, -1};
    jl__figcols lat, en;
    jl__figcols_init(&lat, lat_default);
    jl__figcols_init(&en, en_default);
    for (size_t i = 0; i < ctx->fs->n; i++)
        for (size_t p = 0; p < ctx->fs->frontiers[i].n_points; p++) {
            const jl_summary *s = ctx->l->items[ctx->fs->frontiers[i].points[p].run];
            jl__figcols_add(&lat, jl_frontier_latency_figure(&ctx->fs->opt, s));
            jl__figcols_add(&en, jl_frontier_energy_figure(&ctx->fs->opt, s));
        }
    static const char *const head[] = {"model",          "task",     "workload",
                                       "rank",           "file",     "run",
                                       "gpu_model",      "num_gpus", "precision",
                                       "max_batch_size", NULL};
    jl__csvw r;
    jl__csvw_begin(&r, f);
    jl__csvw_cells(&r, head);
    jl__csvw_cell(&r, "latency_figure");
    jl__figcols_header(&r, &lat, NULL);
    jl__csvw_cell(&r, "energy_figure");
    jl__figcols_header(&r, &en, NULL);
    jl__csvw_cell(&r, "n_equivalent");
    jl__csvw_end(&r);
    for (size_t i = 0; i < ctx->fs->n; i++) {
        const jl_frontier *fr = &ctx->fs->frontiers[i];
        for (size_t p = 0; p < fr->n_points; p++) {
            const jl_summary *s = ctx->l->items[fr->points[p].run];
            int fl = jl_frontier_latency_figure(&ctx->fs->opt, s);
            int fe = jl_frontier_energy_figure(&ctx->fs->opt, s);
            jl__csvw_cell(&r, fr->model);
            jl__csvw_cell(&r, fr->task);
            jl__csvw_cell(&r, fr->workload);
            jl__csvw_cellf(&r, "%zu", p + 1);
            jl__csvw_cell(&r, s->file);
            jl__csvw_cell(&r, s->run);
            jl__csvw_cell(&r, s->attrs.gpu_model);
            jl__csvw_cellf(&r, "%ld", s->attrs.num_gpus);
            jl__csvw_cell(&r, s->attrs.precision);
            jl__csvw_cellf(&r, "%ld", s->attrs.max_batch_size);
            jl__csvw_cell(&r, jl_figure_name((jl_figure)fl));
            jl__figcols_cells(&r, &lat, fl, fr->points[p].latency);
            jl__csvw_cell(&r, jl_figure_name((jl_figure)fe));
            jl__figcols_cells(&r, &en, fe, fr->points[p].energy);
            jl__csvw_cellf(&r, "%zu", fr->points[p].n_equivalent);
            jl__csvw_end(&r);
        }
    }
    return ferror(f) ? -1 : 0;
}

jl_status jl_write_frontier_csv(const char *path, const jl_frontier_set *fs,
                                const jl_summary_list *l, jl_error **err)
{
    csv_ctx ctx = {fs, l};
    return jl_write_text(path, print_csv, &ctx, err);
}
