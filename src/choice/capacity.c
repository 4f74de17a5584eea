/* capacity: what a power budget buys (paper §5.4; PUE and carbon as in
 * docs/choice.md). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "choice/choice_internal.h"
#include "core/util.h"
#include "frontier/frontier_internal.h"
#include "joules/frontier.h"
#include "joules/output.h"

void jl_capacity_options_default(jl_capacity_options *opt)
{
    opt->power_budget_w = NAN;
    opt->pue = 1.0;
    opt->grid_g_per_kwh = NAN;
}

const char *jl_capacity_status_name(jl_capacity_status s)
{
    switch (s) {
    case JL_CAP_OK: return "ok";
    case JL_CAP_INFEASIBLE: return "infeasible";
    case JL_CAP_EXCEEDS_BUDGET: return "exceeds_budget";
    case JL_CAP_NOT_APPLICABLE: return "not_applicable";
    }
    return "unknown";
}

void jl_capacity_result_free(jl_capacity_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        free(r->items[i].model);
        free(r->items[i].task);
        free(r->items[i].workload);
        jl_pick_clear(&r->items[i].closest);
    }
    free(r->items);
    free(r);
}

static double throughput_of(const jl_summary *s)
{
    return s->fig[jl_attrs_counts_items(&s->attrs) ? JL_FIG_ITEMS_PER_S
                                                   : JL_FIG_OUTPUT_THROUGHPUT_TOK_S];
}

static double energy_per_unit(const jl_summary *s)
{
    return s->fig[jl_attrs_counts_items(&s->attrs) ? JL_FIG_ENERGY_PER_ITEM_J
                                                   : JL_FIG_ENERGY_PER_TOKEN_J];
}

static void fill(jl_capacity_entry *e, const jl_summary *s, const jl_capacity_options *o)
{
    e->throughput = throughput_of(s);
    e->avg_power_w = s->fig[JL_FIG_AVG_POWER_W];
    e->throughput_per_w = e->throughput / e->avg_power_w;
    e->wall_power_w = e->avg_power_w * o->pue;
    double rep = floor(o->power_budget_w / e->wall_power_w);
    e->replicas = rep > 0 && rep < 9.2e18 ? (long)rep : 0;
    e->total_throughput = (double)e->replicas * e->throughput;
    e->total_wall_power_w = (double)e->replicas * e->wall_power_w;
    double epu = energy_per_unit(s);
    if (!isfinite(epu))
        epu = e->avg_power_w / e->throughput; /* energy per unit = power / throughput */
    e->energy_per_unit_wall_j = epu * o->pue;
    /* J -> kWh: / 3.6e6; x g/kWh; per million units: x 1e6 */
    e->carbon_g_per_million = isfinite(o->grid_g_per_kwh)
                                  ? e->energy_per_unit_wall_j / 3.6e6 * o->grid_g_per_kwh * 1e6
                                  : NAN;
}

jl_status jl_capacity(const jl_summary_list *l, const jl_slo *const *slos, size_t n_slos,
                      const jl_capacity_options *opt, jl_capacity_result **out, jl_error **err)
{
    *out = NULL;
    if (!opt || !(opt->power_budget_w > 0) || !isfinite(opt->power_budget_w))
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1, "the power budget must be > 0 W");
    if (!(opt->pue >= 1) || !isfinite(opt->pue))
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1, "PUE must be a number >= 1");
    if (!isnan(opt->grid_g_per_kwh) && !(opt->grid_g_per_kwh >= 0 && isfinite(opt->grid_g_per_kwh)))
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                       "grid carbon intensity must be a number >= 0");
    jl_capacity_result *r = calloc(1, sizeof *r);
    if (!r)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    r->opt = *opt;
    r->slos = slos;
    r->n_slos = n_slos;
    static const char *const keys[] = {"model", "task"};
    jl_group_set gs;
    jl_status st = jl_group_runs(l, keys, 2, NULL, &gs, err);
    if (st) {
        free(r);
        return st;
    }
    size_t per = n_slos ? n_slos : 1;
    if (gs.n && !(r->items = jl__calloc_array(gs.n * per, sizeof *r->items)))
        goto oom;
    for (size_t g = 0; g < gs.n; g++) {
        const jl_group *gr = &gs.groups[g];
        for (size_t k = 0; k < per; k++) {
            const jl_slo *slo = n_slos ? slos[k] : NULL;
            jl_capacity_entry *e = &r->items[r->n++];
            jl_pick_clear(&e->closest);
            e->slo = n_slos ? k : (size_t)-1;
            e->choice = e->max_total_choice = -1;
            e->n_runs = gr->n_runs;
            const jl_summary *s0 = l->items[gr->runs[0]];
            if ((s0->attrs.model && !(e->model = jl__strdup(s0->attrs.model))) ||
                (s0->attrs.task && !(e->task = jl__strdup(s0->attrs.task))) ||
                (s0->attrs.workload && !(e->workload = jl__strdup(s0->attrs.workload))))
                goto oom;
            long best = -1, best_total = -1, lowest_power = -1;
            double best_tpw = NAN, best_choice_tot = NAN, best_tot = NAN, best_tot_tpw = NAN;
            size_t n_eval = 0;
            for (size_t i = 0; i < gr->n_runs; i++) {
                const jl_summary *s = l->items[gr->runs[i]];
                double tp = throughput_of(s), pw = s->fig[JL_FIG_AVG_POWER_W];
                jl_slo_result res = jl_slo_eval(slo, s, NULL);
                if (res == JL_SLO_MISSING || !(tp > 0) || !isfinite(tp) || !(pw > 0) ||
                    !isfinite(pw))
                    continue;
                n_eval++;
                if (res != JL_SLO_PASS)
                    continue;
                e->n_feasible++;
                double wall = pw * opt->pue;
                if (lowest_power < 0 ||
                    wall < l->items[lowest_power]->fig[JL_FIG_AVG_POWER_W] * opt->pue)
                    lowest_power = (long)gr->runs[i];
                if (wall > opt->power_budget_w)
                    continue;
                e->n_fitting++;
                double tpw = tp / pw;
                double tot = floor(opt->power_budget_w / wall) * tp;
                int better;
                if (best < 0)
                    better = 1;
                else if (!jl__ties(tpw, best_tpw, 1e-9))
                    better = tpw > best_tpw;
                else if (tot != best_choice_tot)
                    better = tot > best_choice_tot;
                else
                    better = jl_run_config_cmp(s, l->items[best]) < 0;
                if (better) {
                    best = (long)gr->runs[i];
                    best_tpw = tpw;
                    best_choice_tot = tot;
                }
                if (best_total < 0 || tot > best_tot ||
                    (tot == best_tot &&
                     (tpw > best_tot_tpw ||
                      (tpw == best_tot_tpw && jl_run_config_cmp(s, l->items[best_total]) < 0)))) {
                    best_total = (long)gr->runs[i];
                    best_tot = tot;
                    best_tot_tpw = tpw;
                }
            }
            if (best >= 0) {
                e->status = JL_CAP_OK;
                e->choice = best;
                e->max_total_choice = best_total;
                fill(e, l->items[best], opt);
            } else if (e->n_feasible) {
                e->status = JL_CAP_EXCEEDS_BUDGET;
                e->choice = lowest_power;
                fill(e, l->items[lowest_power], opt);
            } else if (n_eval) {
                e->status = JL_CAP_INFEASIBLE;
                if ((st = jl_pick_runs(l, gr->runs, gr->n_runs, slo, NULL, &e->closest, err)))
                    goto fail;
                e->throughput = e->avg_power_w = e->throughput_per_w = e->wall_power_w = NAN;
                e->total_throughput = e->total_wall_power_w = NAN;
                e->energy_per_unit_wall_j = e->carbon_g_per_million = NAN;
            } else {
                e->status = JL_CAP_NOT_APPLICABLE;
                e->throughput = e->avg_power_w = e->throughput_per_w = e->wall_power_w = NAN;
                e->total_throughput = e->total_wall_power_w = NAN;
                e->energy_per_unit_wall_j = e->carbon_g_per_million = NAN;
            }
        }
    }
    jl_group_set_clear(&gs);
    *out = r;
    return JL_OK;
oom:
    st = jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
fail:
    jl_group_set_clear(&gs);
    jl_capacity_result_free(r);
    return st;
}

json_t *jl_capacity_document(const jl_capacity_result *r, const jl_summary_list *l)
{
    json_t *doc = json_object(), *arr = json_array();
    if (!doc || !arr) {
        json_decref(doc);
        json_decref(arr);
        return NULL;
    }
    json_object_set_new(doc, "schema", json_string("joules.capacity/1"));
    json_object_set_new(doc, "power_budget_w", jl_json_number(r->opt.power_budget_w));
    json_object_set_new(doc, "pue", jl_json_number(r->opt.pue));
    json_object_set_new(doc, "grid_g_per_kwh", jl_json_number(r->opt.grid_g_per_kwh));
    for (size_t i = 0; i < r->n; i++) {
        const jl_capacity_entry *e = &r->items[i];
        const jl_slo *slo = e->slo < r->n_slos ? r->slos[e->slo] : NULL;
        int diff = jl_workload_counts_items(e->workload);
        json_t *o = json_object();
        json_object_set_new(o, "model", e->model ? json_string(e->model) : json_null());
        json_object_set_new(o, "task", e->task ? json_string(e->task) : json_null());
        json_object_set_new(o, "workload", e->workload ? json_string(e->workload) : json_null());
        json_object_set_new(o, "unit", json_string(diff ? "item" : "token"));
        json_object_set_new(o, "slo", slo ? json_string(slo->text) : json_null());
        json_object_set_new(o, "status", json_string(jl_capacity_status_name(e->status)));
        json_object_set_new(o, "choice",
                            e->choice >= 0 ? jl_summary_to_json(l->items[e->choice]) : json_null());
        json_object_set_new(o, "max_total_choice",
                            e->max_total_choice >= 0 && e->max_total_choice != e->choice
                                ? jl_run_key_to_json(l->items[e->max_total_choice])
                                : json_null());
        json_object_set_new(o, "throughput_per_replica", jl_json_number(e->throughput));
        json_object_set_new(o, "avg_power_w_per_replica", jl_json_number(e->avg_power_w));
        json_object_set_new(o, "throughput_per_w", jl_json_number(e->throughput_per_w));
        json_object_set_new(o, "wall_power_w_per_replica", jl_json_number(e->wall_power_w));
        json_object_set_new(o, "replicas",
                            e->choice >= 0 ? json_integer(e->replicas) : json_null());
        json_object_set_new(o, "total_throughput", jl_json_number(e->total_throughput));
        json_object_set_new(o, "total_wall_power_w", jl_json_number(e->total_wall_power_w));
        json_object_set_new(o, "energy_per_unit_wall_j", jl_json_number(e->energy_per_unit_wall_j));
        /* the chosen run's headline energy x PUE: its window, at the wall */
        if (e->choice >= 0) {
            jl_boundary fb = l->items[e->choice]->boundary;
            fb.scope = JL_SCOPE_FACILITY;
            json_object_set_new(o, "boundary", jl_boundary_to_json(fb));
        } else {
            json_object_set_new(o, "boundary", json_null());
        }
        json_object_set_new(o, "carbon_g_per_million_units",
                            jl_json_number(e->carbon_g_per_million));
        json_object_set_new(o, "n_runs", json_integer((json_int_t)e->n_runs));
        json_object_set_new(o, "n_feasible", json_integer((json_int_t)e->n_feasible));
        json_object_set_new(o, "n_fitting", json_integer((json_int_t)e->n_fitting));
        if (e->status == JL_CAP_INFEASIBLE) {
            json_object_set_new(o, "infeasible", jl__pick_json(&e->closest, slo, l));
        } else {
            json_object_set_new(o, "infeasible", json_null());
        }
        json_array_append_new(arr, o);
    }
    json_object_set_new(doc, "entries", arr);
    return doc;
}

typedef struct cap_csv_ctx {
    const jl_capacity_result *r;
    const jl_summary_list *l;
} cap_csv_ctx;

/* A figure's cells: one, or, for a figure per unit of output (paired), the
 * pair of its token and item columns with v in the run's one. */
static void unit_cells(jl__csvw *r, double v, int paired, int item)
{
    if (paired && item)
        jl__csvw_empty(r);
    jl__csvw_num(r, v);
    if (paired && !item)
        jl__csvw_empty(r);
}

static int print_capacity(FILE *f, const void *vctx)
{
    const cap_csv_ctx *ctx = vctx;
    /* figures per unit of output in a token column and an item column
     * each: never tokens/s and items/s in one column */
    static const char *const head[] = {
        "model",
        "task",
        "unit",
        "slo",
        "status",
        "run",
        "gpu_model",
        "num_gpus",
        "max_batch_size",
        "throughput_per_replica_tok_s",
        "throughput_per_replica_items_s",
        "avg_power_w_per_replica",
        "throughput_per_w_tok_j",
        "throughput_per_w_items_j",
        "wall_power_w_per_replica",
        "replicas",
        "total_throughput_tok_s",
        "total_throughput_items_s",
        "total_wall_power_w",
        "energy_per_token_wall_j",
        "energy_per_item_wall_j",
        "carbon_g_per_million_tokens",
        "carbon_g_per_million_items",
        NULL,
    };
    jl__csvw r;
    jl__csvw_begin(&r, f);
    jl__csvw_cells(&r, head);
    jl__csvw_end(&r);
    for (size_t i = 0; i < ctx->r->n; i++) {
        const jl_capacity_entry *e = &ctx->r->items[i];
        const jl_slo *slo = e->slo < ctx->r->n_slos ? ctx->r->slos[e->slo] : NULL;
        const jl_summary *s = e->choice >= 0 ? ctx->l->items[e->choice] : NULL;
        int item = jl_workload_counts_items(e->workload);
        jl__csvw_cell(&r, e->model);
        jl__csvw_cell(&r, e->task);
        jl__csvw_cell(&r, item ? "item" : "token");
        jl__csvw_cell(&r, slo ? slo->text : "");
        jl__csvw_cell(&r, jl_capacity_status_name(e->status));
        jl__csvw_cell(&r, s ? s->run : "");
        jl__csvw_cell(&r, s ? s->attrs.gpu_model : "");
        if (s) {
            jl__csvw_cellf(&r, "%ld", s->attrs.num_gpus);
            jl__csvw_cellf(&r, "%ld", s->attrs.max_batch_size);
        } else {
            jl__csvw_empty(&r);
            jl__csvw_empty(&r);
        }
        /* per-unit figures: in the token or the item column of their pair */
        const double v[] = {e->throughput,       NAN, e->avg_power_w,
                            e->throughput_per_w, NAN, e->wall_power_w};
        const int paired[] = {1, 0, 0, 1, 0, 0};
        for (size_t k = 0; k < 6; k++) {
            if (k && paired[k - 1])
                continue;
            unit_cells(&r, v[k], paired[k], item);
        }
        if (s)
            jl__csvw_cellf(&r, "%ld", e->replicas);
        else
            jl__csvw_empty(&r);
        const double w[] = {e->total_throughput, e->total_wall_power_w, e->energy_per_unit_wall_j,
                            e->carbon_g_per_million};
        for (size_t k = 0; k < 4; k++)
            unit_cells(&r, w[k], k != 1, item);
        jl__csvw_end(&r);
    }
    return ferror(f) ? -1 : 0;
}

jl_status jl_write_capacity_csv(const char *path, const jl_capacity_result *r,
                                const jl_summary_list *l, jl_error **err)
{
    cap_csv_ctx ctx = {r, l};
    return jl_write_text(path, print_capacity, &ctx, err);
}
