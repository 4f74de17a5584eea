/* Documents of pick (and helpers shared by compare and capacity). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "choice/choice_internal.h"
#include "core/stats.h"
#include "core/util.h"
#include "frontier/frontier_internal.h"
#include "joules/output.h"
#include "output/document_internal.h"
#include "summary/summary_internal.h"

void jl__stats(double *v, size_t n, double *median, double *min, double *max)
{
    if (n == 0) {
        *median = *min = *max = NAN;
        return;
    }
    qsort(v, n, sizeof *v, jl__cmp_double);
    *min = v[0];
    *max = v[n - 1];
    *median = jl__median_d(v, n); /* v sorted: the middle one, or the mean of the two */
}

/* Each condition of slo on run s, as an array (the value open now). */
static void conditions_write(jl__jw *w, const jl_slo *slo, const jl_summary *s)
{
    jl__jw_array(w);
    for (size_t i = 0; slo && i < slo->n; i++) {
        const jl_slo_cond *c = &slo->conds[i];
        double v, miss;
        jl_slo_result r = jl_slo_cond_eval(c, s, &v, &miss);
        int f = jl_slo_cond_figure(c, s);
        double excess = NAN;
        if (r != JL_SLO_MISSING)
            excess = (c->op == JL_SLO_LE || c->op == JL_SLO_LT) ? v - c->bound : c->bound - v;
        char *text = jl__asprintf("%.*s", (int)c->length, slo->text + c->offset);
        /* in key order */
        jl__jw_object(w);
        jl__jw_knumber(w, "bound", c->bound);
        jl__jw_kstring(w, "condition", text);
        jl__jw_knumber(w, "excess", excess);
        jl__jw_knumber(w, "excess_rel", miss);
        jl__jw_kstring(w, "figure", f >= 0 ? jl_figure_name((jl_figure)f) : NULL);
        jl__jw_key(w, "met");
        if (r == JL_SLO_MISSING)
            jl__jw_null(w);
        else
            jl__jw_bool(w, r == JL_SLO_PASS);
        jl__jw_kstring(w, "op", jl_slo_op_name(c->op));
        jl__jw_knumber(w, "value", v);
        jl__jw_end(w);
        free(text);
    }
    jl__jw_end(w);
}

json_t *jl_slo_conditions_to_json(const jl_slo *slo, const jl_summary *s)
{
    jl__jw *w = jl__jw_tree();
    if (!w)
        return NULL;
    conditions_write(w, slo, s);
    return jl__jw_finish_tree(w);
}

/* The whole run s as an object value, or null. */
static void run_or_null(jl__jw *w, const char *key, const jl_summary *s)
{
    jl__jw_key(w, key);
    if (!s) {
        jl__jw_null(w);
        return;
    }
    jl__jw_object(w);
    jl__summary_write(w, s);
    jl__jw_end(w);
}

/* What the pick's energy covers: its run's headline boundary (summary.md,
 * "Every figure and its boundary"); null without a run. */
static void boundary_write(jl__jw *w, const jl_summary *s)
{
    jl__jw_key(w, "boundary");
    if (!s) {
        jl__jw_null(w);
        return;
    }
    jl__jw_object(w);
    jl__jw_kstring(w, "scope", jl_scope_name(s->boundary.scope));
    jl__jw_kstring(w, "window", jl_window_name(s->boundary.window));
    jl__jw_end(w);
}

void jl__pick_write(jl__jw *w, const jl_pick *p, const jl_slo *slo, const jl_summary_list *l)
{
    const jl_summary *c = p->choice >= 0 ? l->items[p->choice] : NULL;
    /* in key order */
    run_or_null(w, "choice", p->status == JL_PICK_FEASIBLE ? c : NULL);
    run_or_null(w, "closest", p->status == JL_PICK_INFEASIBLE ? c : NULL);
    jl__jw_key(w, "conditions");
    conditions_write(w, c ? slo : NULL, c);
    boundary_write(w, c);
    jl__jw_knumber(w, "energy", p->energy);
    jl__jw_kstring(w, "energy_figure",
                   p->energy_figure >= 0 ? jl_figure_name((jl_figure)p->energy_figure) : NULL);
    jl__jw_kbool(w, "feasible", p->status == JL_PICK_FEASIBLE);
    jl__jw_key(w, "n_feasible");
    jl__jw_integer(w, (json_int_t)p->n_feasible);
    jl__jw_key(w, "n_missing");
    jl__jw_integer(w, (json_int_t)p->n_missing);
    jl__jw_key(w, "n_runs");
    jl__jw_integer(w, (json_int_t)p->n_runs);
    jl__jw_kstring(w, "status", jl_pick_status_name(p->status));
    jl__jw_key(w, "ties");
    jl__jw_array(w);
    for (size_t i = 0; i < p->n_ties; i++) {
        jl__jw_object(w);
        jl__run_key_write(w, l->items[p->ties[i]]);
        jl__jw_end(w);
    }
    jl__jw_end(w);
    jl__jw_key(w, "worst_miss_rel");
    if (p->status == JL_PICK_INFEASIBLE)
        jl__jw_number(w, p->worst_miss);
    else
        jl__jw_null(w);
}

json_t *jl__pick_json(const jl_pick *p, const jl_slo *slo, const jl_summary_list *l)
{
    jl__jw *w = jl__jw_tree();
    if (!w)
        return NULL;
    jl__jw_object(w);
    jl__pick_write(w, p, slo, l);
    jl__jw_end(w);
    return jl__jw_finish_tree(w);
}

static const jl_slo *slo_of(const jl_slo *const *slos, size_t n, size_t k)
{
    return k < n ? slos[k] : NULL;
}

/* The document; with "errors" when errors_json is non-NULL. */
static void pick_document_write(jl__jw *w, const void *result, const jl_summary_list *l,
                                const json_t *errors_json)
{
    const jl_pick_set *ps = result;
    jl__jw_object(w);
    if (errors_json) {
        jl__jw_key(w, "errors");
        jl__jw_json(w, errors_json);
    }
    jl__jw_key(w, "picks");
    jl__jw_array(w);
    for (size_t i = 0; i < ps->n; i++) {
        const jl_pick_entry *e = &ps->items[i];
        const jl_slo *slo = slo_of(ps->slos, ps->n_slos, e->slo);
        char *canon = slo ? jl_slo_canonical(slo) : NULL;
        jl__jw_object(w);
        jl__pick_write(w, &e->pick, slo, l);
        jl__jw_kstring(w, "model", e->model);
        jl__jw_kstring(w, "slo", slo ? slo->text : NULL);
        jl__jw_kstring(w, "slo_canonical", canon);
        jl__jw_kstring(w, "task", e->task);
        jl__jw_end(w);
        free(canon);
    }
    jl__jw_end(w);
    jl__jw_kstring(w, "schema", "joules.pick/1");
    jl__jw_end(w);
}

json_t *jl_pick_document(const jl_pick_set *ps, const jl_summary_list *l)
{
    return jl__jw_document_tree(pick_document_write, ps, l);
}

jl_status jl_write_pick_json(const char *path, const jl_pick_set *ps, const jl_summary_list *l,
                             const jl_error_list *errors, jl_error **err)
{
    return jl__jw_write_document(path, pick_document_write, ps, l, errors, err);
}

typedef struct pick_csv_ctx {
    const jl_pick_set *ps;
    const jl_summary_list *l;
} pick_csv_ctx;

static int print_picks(FILE *f, const void *vctx)
{
    const pick_csv_ctx *ctx = vctx;
    /* energy under a column named by its figure: never J/token and J/item
     * in one column */
    static const int en_default[] = {JL_FIG_ENERGY_PER_TOKEN_J, JL_FIG_ENERGY_PER_ITEM_J, -1};
    jl__figcols en;
    jl__figcols_init(&en, en_default);
    for (size_t i = 0; i < ctx->ps->n; i++)
        jl__figcols_add(&en, ctx->ps->items[i].pick.energy_figure);
    static const char *const head[] = {"model",          "task",          "slo",
                                       "status",         "file",          "run",
                                       "gpu_model",      "num_gpus",      "precision",
                                       "max_batch_size", "energy_figure", NULL};
    static const char *const tail[] = {"worst_miss_rel", "n_ties",    "n_runs",
                                       "n_feasible",     "n_missing", NULL};
    jl__csvw r;
    jl__csvw_begin(&r, f);
    jl__csvw_cells(&r, head);
    jl__figcols_header(&r, &en, NULL);
    jl__csvw_cells(&r, tail);
    jl__csvw_end(&r);
    for (size_t i = 0; i < ctx->ps->n; i++) {
        const jl_pick_entry *e = &ctx->ps->items[i];
        const jl_slo *slo = slo_of(ctx->ps->slos, ctx->ps->n_slos, e->slo);
        const jl_summary *s = e->pick.choice >= 0 ? ctx->l->items[e->pick.choice] : NULL;
        jl__csvw_cell(&r, e->model);
        jl__csvw_cell(&r, e->task);
        jl__csvw_cell(&r, slo ? slo->text : "");
        jl__csvw_cell(&r, jl_pick_status_name(e->pick.status));
        jl__csvw_cell(&r, s ? s->file : "");
        jl__csvw_cell(&r, s ? s->run : "");
        jl__csvw_cell(&r, s ? s->attrs.gpu_model : "");
        if (s)
            jl__csvw_cellf(&r, "%ld", s->attrs.num_gpus);
        else
            jl__csvw_empty(&r);
        jl__csvw_cell(&r, s ? s->attrs.precision : "");
        if (s)
            jl__csvw_cellf(&r, "%ld", s->attrs.max_batch_size);
        else
            jl__csvw_empty(&r);
        jl__csvw_cell(&r, e->pick.energy_figure >= 0
                              ? jl_figure_name((jl_figure)e->pick.energy_figure)
                              : "");
        jl__figcols_cells(&r, &en, e->pick.energy_figure, e->pick.energy);
        if (e->pick.status == JL_PICK_INFEASIBLE)
            jl__csvw_num(&r, e->pick.worst_miss);
        else
            jl__csvw_empty(&r);
        jl__csvw_cellf(&r, "%zu", e->pick.n_ties);
        jl__csvw_cellf(&r, "%zu", e->pick.n_runs);
        jl__csvw_cellf(&r, "%zu", e->pick.n_feasible);
        jl__csvw_cellf(&r, "%zu", e->pick.n_missing);
        jl__csvw_end(&r);
    }
    return ferror(f) ? -1 : 0;
}

jl_status jl_write_picks_csv(const char *path, const jl_pick_set *ps, const jl_summary_list *l,
                             jl_error **err)
{
    pick_csv_ctx ctx = {ps, l};
    return jl_write_text(path, print_picks, &ctx, err);
}
