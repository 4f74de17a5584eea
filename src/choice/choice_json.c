/* Documents of pick (and helpers shared by compare and capacity). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "choice/choice_internal.h"
#include "core/util.h"
#include "frontier/frontier_internal.h"
#include "joules/output.h"
#include "summary/summary_internal.h"

void jl__stats(double *v, size_t n, double *median, double *min, double *max)
{
    if (n == 0) {
        *median = *min = *max = NAN;
        return;
    }
    qsort(v, n, sizeof *v, jl_cmp_double);
    *min = v[0];
    *max = v[n - 1];
    *median = jl__median_d(v, n); /* v sorted: the middle one, or the mean of the two */
}

json_t *jl_slo_conditions_to_json(const jl_slo *slo, const jl_summary *s)
{
    json_t *arr = json_array();
    for (size_t i = 0; slo && i < slo->n; i++) {
        const jl_slo_cond *c = &slo->conds[i];
        json_t *o = json_object();
        double v, miss;
        jl_slo_result r = jl_slo_cond_eval(c, s, &v, &miss);
        int f = jl_slo_cond_figure(c, s);
        char *text = jl_asprintf("%.*s", (int)c->length, slo->text + c->offset);
        json_object_set_new(o, "condition", text ? json_string(text) : json_null());
        free(text);
        json_object_set_new(o, "figure",
                            f >= 0 ? json_string(jl_figure_name((jl_figure)f)) : json_null());
        json_object_set_new(o, "op", json_string(jl_slo_op_name(c->op)));
        json_object_set_new(o, "bound", jl_json_number(c->bound));
        json_object_set_new(o, "value", jl_json_number(v));
        json_object_set_new(o, "met",
                            r == JL_SLO_MISSING ? json_null() : json_boolean(r == JL_SLO_PASS));
        double excess = NAN;
        if (r != JL_SLO_MISSING)
            excess = (c->op == JL_SLO_LE || c->op == JL_SLO_LT) ? v - c->bound : c->bound - v;
        json_object_set_new(o, "excess", jl_json_number(excess));
        json_object_set_new(o, "excess_rel", jl_json_number(miss));
        json_array_append_new(arr, o);
    }
    return arr;
}

void jl__pick_fields(json_t *o, const jl_pick *p, const jl_slo *slo, const jl_summary_list *l)
{
    const jl_summary *c = p->choice >= 0 ? l->items[p->choice] : NULL;
    json_object_set_new(o, "status", json_string(jl_pick_status_name(p->status)));
    json_object_set_new(o, "feasible", json_boolean(p->status == JL_PICK_FEASIBLE));
    json_object_set_new(o, "choice",
                        c && p->status == JL_PICK_FEASIBLE ? jl_summary_to_json(c) : json_null());
    json_object_set_new(o, "closest",
                        c && p->status == JL_PICK_INFEASIBLE ? jl_summary_to_json(c) : json_null());
    json_object_set_new(o, "conditions", c ? jl_slo_conditions_to_json(slo, c) : json_array());
    json_object_set_new(o, "energy_figure",
                        p->energy_figure >= 0
                            ? json_string(jl_figure_name((jl_figure)p->energy_figure))
                            : json_null());
    json_object_set_new(o, "energy", jl_json_number(p->energy));
    json_object_set_new(o, "worst_miss_rel",
                        p->status == JL_PICK_INFEASIBLE ? jl_json_number(p->worst_miss)
                                                        : json_null());
    json_t *ties = json_array();
    for (size_t i = 0; i < p->n_ties; i++)
        json_array_append_new(ties, jl_run_key_to_json(l->items[p->ties[i]]));
    json_object_set_new(o, "ties", ties);
    json_object_set_new(o, "n_runs", json_integer((json_int_t)p->n_runs));
    json_object_set_new(o, "n_feasible", json_integer((json_int_t)p->n_feasible));
    json_object_set_new(o, "n_missing", json_integer((json_int_t)p->n_missing));
}

static const jl_slo *slo_of(const jl_slo *const *slos, size_t n, size_t k)
{
    return k < n ? slos[k] : NULL;
}

json_t *jl_pick_set_to_json(const jl_pick_set *ps, const jl_summary_list *l)
{
    json_t *doc = json_object(), *arr = json_array();
    if (!doc || !arr) {
        json_decref(doc);
        json_decref(arr);
        return NULL;
    }
    json_object_set_new(doc, "schema", json_string("joules.pick/1"));
    for (size_t i = 0; i < ps->n; i++) {
        const jl_pick_entry *e = &ps->items[i];
        const jl_slo *slo = slo_of(ps->slos, ps->n_slos, e->slo);
        json_t *o = json_object();
        json_object_set_new(o, "model", e->model ? json_string(e->model) : json_null());
        json_object_set_new(o, "task", e->task ? json_string(e->task) : json_null());
        json_object_set_new(o, "slo", slo ? json_string(slo->text) : json_null());
        char *canon = slo ? jl_slo_canonical(slo) : NULL;
        json_object_set_new(o, "slo_canonical", canon ? json_string(canon) : json_null());
        free(canon);
        jl__pick_fields(o, &e->pick, slo, l);
        json_array_append_new(arr, o);
    }
    json_object_set_new(doc, "picks", arr);
    return doc;
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
    fputs("model,task,slo,status,file,run,gpu_model,num_gpus,precision,max_batch_size,"
          "energy_figure",
          f);
    jl__figcols_header(f, &en, NULL);
    fputs(",worst_miss_rel,n_ties,n_runs,n_feasible,n_missing\n", f);
    for (size_t i = 0; i < ctx->ps->n; i++) {
        const jl_pick_entry *e = &ctx->ps->items[i];
        const jl_slo *slo = slo_of(ctx->ps->slos, ctx->ps->n_slos, e->slo);
        const jl_summary *s = e->pick.choice >= 0 ? ctx->l->items[e->pick.choice] : NULL;
        jl_csv_field(f, e->model);
        fputc(',', f);
        jl_csv_field(f, e->task);
        fputc(',', f);
        jl_csv_field(f, slo ? slo->text : "");
        fprintf(f, ",%s,", jl_pick_status_name(e->pick.status));
        jl_csv_field(f, s ? s->file : "");
        fputc(',', f);
        jl_csv_field(f, s ? s->run : "");
        fputc(',', f);
        jl_csv_field(f, s ? s->attrs.gpu_model : "");
        fputc(',', f);
        if (s)
            fprintf(f, "%ld", s->attrs.num_gpus);
        fputc(',', f);
        jl_csv_field(f, s ? s->attrs.precision : "");
        fputc(',', f);
        if (s)
            fprintf(f, "%ld", s->attrs.max_batch_size);
        fprintf(f, ",%s",
                e->pick.energy_figure >= 0 ? jl_figure_name((jl_figure)e->pick.energy_figure) : "");
        jl__figcols_cells(f, &en, e->pick.energy_figure, e->pick.energy);
        fputc(',', f);
        if (e->pick.status == JL_PICK_INFEASIBLE)
            jl__csv_double(f, e->pick.worst_miss);
        fprintf(f, ",%zu,%zu,%zu,%zu\n", e->pick.n_ties, e->pick.n_runs, e->pick.n_feasible,
                e->pick.n_missing);
    }
    return ferror(f) ? -1 : 0;
}

jl_status jl_write_picks_csv(const char *path, const jl_pick_set *ps, const jl_summary_list *l,
                             jl_error **err)
{
    pick_csv_ctx ctx = {ps, l};
    return jl_write_text(path, print_picks, &ctx, err);
}
