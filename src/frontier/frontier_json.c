/* The joules.frontier/1 document and the frontier CSV. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontier/frontier_internal.h"
#include "joules/frontier.h"
#include "joules/output.h"

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *fig_name_json(int f)
{
    return f >= 0 ? json_string(jl_figure_name((jl_figure)f)) : json_null();
}

/* The figure a whole frontier uses (the first run's; all runs of a (model,
 * task) share the workload in practice). */
static int frontier_fig(const jl_frontier_set *fs, const jl_frontier *f,
                        const jl_summary_list *l, int energy)
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

/* The run key object of run i, built once and shared (a run is a curve
 * point and may be the dominating run of many others: the document repeats
 * its key; jansson and jl_json_dumps write a shared node at each place).
 * keys NULL (out of memory): a fresh object each time. */
static json_t *run_key(json_t **keys, const jl_summary_list *l, size_t i)
{
    if (!keys)
        return jl_run_key_to_json(l->items[i]);
    if (!keys[i])
        keys[i] = jl_run_key_to_json(l->items[i]);
    return json_incref(keys[i]);
}

json_t *jl_frontier_set_to_json(const jl_frontier_set *fs, const jl_summary_list *l)
{
    json_t *doc = json_object(), *fr = json_array(), *curves = json_array();
    if (!doc || !fr || !curves) {
        json_decref(doc);
        json_decref(fr);
        json_decref(curves);
        return NULL;
    }
    json_t **keys = l->count ? calloc(l->count, sizeof *keys) : NULL;
    json_object_set_new(doc, "schema", json_string("joules.frontier/1"));
    json_object_set_new(doc, "latency_figure",
                        fs->opt.latency_figure >= 0 ? fig_name_json(fs->opt.latency_figure)
                                                    : json_string("default"));
    json_object_set_new(doc, "energy_figure",
                        fs->opt.energy_figure >= 0 ? fig_name_json(fs->opt.energy_figure)
                                                   : json_string("default"));
    json_object_set_new(doc, "tolerance", jl_json_number(fs->opt.tolerance));
    for (size_t i = 0; i < fs->n; i++) {
        const jl_frontier *f = &fs->frontiers[i];
        json_t *o = json_object(), *pts = json_array(), *dom = json_array(), *sk = json_array();
        json_object_set_new(o, "model", str_or_null(f->model));
        json_object_set_new(o, "task", str_or_null(f->task));
        json_object_set_new(o, "workload", str_or_null(f->workload));
        json_object_set_new(o, "power_scope", json_string(f->node_ac ? "node_ac" : "gpu"));
        json_object_set_new(o, "latency_figure", fig_name_json(frontier_fig(fs, f, l, 0)));
        json_object_set_new(o, "energy_figure", fig_name_json(frontier_fig(fs, f, l, 1)));
        json_object_set_new(o, "n_runs", json_integer((json_int_t)f->n_runs));
        for (size_t p = 0; p < f->n_points; p++) {
            const jl_frontier_point *pt = &f->points[p];
            json_t *ro = jl_summary_to_json(l->items[pt->run]);
            json_t *eq = json_array();
            json_object_set_new(ro, "frontier_latency", jl_json_number(pt->latency));
            json_object_set_new(ro, "frontier_energy", jl_json_number(pt->energy));
            for (size_t k = 0; k < pt->n_equivalent; k++)
                json_array_append_new(eq, run_key(keys, l, pt->equivalent[k]));
            json_object_set_new(ro, "equivalent", eq);
            json_array_append_new(pts, ro);
        }
        for (size_t d = 0; d < f->n_dominated; d++) {
            json_t *ro = jl_run_key_to_json(l->items[f->dominated[d].run]);
            json_object_set_new(ro, "dominated_by", run_key(keys, l, f->dominated[d].by));
            json_array_append_new(dom, ro);
        }
        for (size_t k = 0; k < f->n_skipped; k++) {
            json_t *ro = jl_run_key_to_json(l->items[f->skipped[k]]);
            json_object_set_new(ro, "reason", json_string("latency or energy figure missing"));
            json_array_append_new(sk, ro);
        }
        json_object_set_new(o, "points", pts);
        json_object_set_new(o, "dominated", dom);
        json_object_set_new(o, "skipped", sk);
        json_array_append_new(fr, o);
        for (size_t c = 0; c < f->n_curves; c++) {
            const jl_curve *cv = &f->curves[c];
            json_t *co = json_object(), *cp = json_array();
            json_object_set_new(co, "model", str_or_null(f->model));
            json_object_set_new(co, "task", str_or_null(f->task));
            json_object_set_new(co, "gpu_model", str_or_null(cv->gpu_model));
            json_object_set_new(co, "num_gpus",
                                cv->num_gpus >= 0 ? json_integer(cv->num_gpus) : json_null());
            json_object_set_new(co, "precision", str_or_null(cv->precision));
            for (size_t p = 0; p < cv->n_points; p++) {
                const jl_curve_point *q = &cv->points[p];
                json_t *po = json_object();
                json_object_set_new(po, "run", run_key(keys, l, q->run));
                json_object_set_new(po, "max_batch_size",
                                    q->batch >= 0 ? json_integer(q->batch) : json_null());
                json_object_set_new(po, "latency", jl_json_number(q->latency));
                json_object_set_new(po, "energy", jl_json_number(q->energy));
                json_object_set_new(po, "on_curve_frontier", json_boolean(q->on_curve_frontier));
                json_object_set_new(po, "on_frontier", json_boolean(q->on_frontier));
                json_array_append_new(cp, po);
            }
            json_object_set_new(co, "points", cp);
            json_array_append_new(curves, co);
        }
    }
    json_object_set_new(doc, "frontiers", fr);
    json_object_set_new(doc, "curves", curves);
    for (size_t i = 0; keys && i < l->count; i++)
        json_decref(keys[i]);
    free(keys);
    return doc;
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
    fputs("model,task,workload,rank,file,run,gpu_model,num_gpus,precision,max_batch_size,"
          "latency_figure", f);
    jl__figcols_header(f, &lat, NULL);
    fputs(",energy_figure", f);
    jl__figcols_header(f, &en, NULL);
    fputs(",n_equivalent\n", f);
    for (size_t i = 0; i < ctx->fs->n; i++) {
        const jl_frontier *fr = &ctx->fs->frontiers[i];
        for (size_t p = 0; p < fr->n_points; p++) {
            const jl_summary *s = ctx->l->items[fr->points[p].run];
            int fl = jl_frontier_latency_figure(&ctx->fs->opt, s);
            int fe = jl_frontier_energy_figure(&ctx->fs->opt, s);
            jl_csv_field(f, fr->model);
            fputc(',', f);
            jl_csv_field(f, fr->task);
            fputc(',', f);
            jl_csv_field(f, fr->workload);
            fprintf(f, ",%zu,", p + 1);
            jl_csv_field(f, s->file);
            fputc(',', f);
            jl_csv_field(f, s->run);
            fputc(',', f);
            jl_csv_field(f, s->attrs.gpu_model);
            fprintf(f, ",%ld,", s->attrs.num_gpus);
            jl_csv_field(f, s->attrs.precision);
            fprintf(f, ",%ld,%s", s->attrs.max_batch_size, jl_figure_name((jl_figure)fl));
            jl__figcols_cells(f, &lat, fl, fr->points[p].latency);
            fprintf(f, ",%s", jl_figure_name((jl_figure)fe));
            jl__figcols_cells(f, &en, fe, fr->points[p].energy);
            fprintf(f, ",%zu\n", fr->points[p].n_equivalent);
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
