/* The joules.fit/1 document pieces and the parameter CSV (docs/model.md). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joules/model.h"
#include "joules/output.h"
#include "model/model_internal.h"
#include "output/csv_row.h"

static void set(json_t *o, const char *k, json_t *v)
{
    json_object_set_new(o, k, v ? v : json_null());
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

double *jl_model_batch_grid(const jl_group_fit *f, size_t n)
{
    if (n < 2 || f->method == JL_FIT_NONE)
        return NULL;
    double *g = malloc(n * sizeof *g);
    if (!g)
        return NULL;
    double a = fmax(1.0, 0.5 * f->batch_min);
    double b = isfinite(f->batch_ceiling) ? f->batch_ceiling : 2.0 * f->batch_max;
    if (b < a)
        b = a;
    for (size_t i = 0; i < n; i++)
        g[i] = exp(log(a) + (log(b) - log(a)) * (double)i / (double)(n - 1));
    g[n - 1] = b; /* exactly the ceiling */
    return g;
}

json_t *jl_interval_to_json(const jl_interval *v)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    set(o, "value", jl_json_number(v->value));
    set(o, "lo", jl_json_number(v->lo));
    set(o, "hi", jl_json_number(v->hi));
    return o;
}

json_t *jl_prediction_to_json(const jl_prediction *p)
{
    json_t *o = json_object(), *m = json_object(), *c = json_object();
    if (!o || !m || !c) {
        json_decref(o);
        json_decref(m);
        json_decref(c);
        return NULL;
    }
    set(o, "batch", jl_json_number(p->batch));
    set(o, "method", json_string(jl_fit_method_name(p->method)));
    set(o, "extrapolated", json_boolean(p->extrapolated));
    set(o, "beyond_ceiling", json_boolean(p->beyond_ceiling));
    set(o, "energy_per_token_j", jl_interval_to_json(&p->energy_per_token_j));
    set(o, "power_w", jl_interval_to_json(&p->power_w));
    set(o, "step_time_s", jl_interval_to_json(&p->step_time_s));
    set(o, "throughput_tok_s", jl_interval_to_json(&p->throughput_tok_s));
    {
        json_t *pi = json_object();
        set(pi, "lo", jl_json_number(p->energy_per_token_pi_lo_j));
        set(pi, "hi", jl_json_number(p->energy_per_token_pi_hi_j));
        set(o, "energy_per_token_prediction_interval_j", pi);
    }
    set(m, "energy_per_token_j", jl_interval_to_json(&p->model_energy_per_token_j));
    set(m, "power_w", jl_interval_to_json(&p->model_power_w));
    set(m, "step_time_s", jl_interval_to_json(&p->model_step_time_s));
    set(m, "throughput_tok_s", jl_interval_to_json(&p->model_throughput_tok_s));
    set(o, "physical_model", m);
    set(c, "energy_per_token", jl_json_number(p->correction_energy));
    set(c, "power", jl_json_number(p->correction_power));
    set(c, "throughput", jl_json_number(p->correction_throughput));
    set(o, "correction_factor", c);
    set(o, "static_power_w", jl_json_number(p->static_power_w));
    set(o, "dynamic_power_w", jl_json_number(p->dynamic_power_w));
    set(o, "utilisation", jl_json_number(p->utilisation));
    if (p->method == JL_FIT_POOLED) {
        json_t *q = json_object();
        set(q, "energy_per_token_j", jl_json_number(p->pooled_energy_per_token_j));
        set(q, "weight", jl_json_number(p->pool_weight));
        set(q, "siblings", json_integer((json_int_t)p->pool_siblings));
        set(q, "basis", json_string(p->pool_interpolated ? "interpolated" : "same_caps"));
        set(q, "anchor_cap", json_integer(p->pool_anchor_cap));
        set(q, "anchor_batch", jl_json_number(p->pool_anchor_batch));
        set(q, "target_cap", json_integer(p->pool_target_cap));
        set(o, "pooled", q);
    } else {
        set(o, "pooled", json_null());
    }
    return o;
}

static json_t *key_json(const jl_group_key *k)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    set(o, "model", str_or_null(k->model));
    set(o, "task", str_or_null(k->task));
    set(o, "gpu_model", str_or_null(k->gpu_model));
    set(o, "num_gpus", json_integer(k->num_gpus));
    set(o, "precision", str_or_null(k->precision));
    return o;
}

json_t *jl_group_fit_to_json(const jl_group_fit *f, const double *grid, size_t n_grid)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    char *gs = jl_group_key_format(&f->key);
    set(o, "group", str_or_null(gs));
    free(gs);
    set(o, "key", key_json(&f->key));
    set(o, "method", json_string(jl_fit_method_name(f->method)));
    set(o, "note", str_or_null(f->note));
    set(o, "n_points", json_integer((json_int_t)f->n_points));
    set(o, "n_fitted",
        json_integer((json_int_t)(f->method == JL_FIT_MODEL ? f->n_fitted : f->n_points)));
    set(o, "n_batch_sizes", json_integer((json_int_t)f->n_batch_sizes));
    json_t *br = json_array(), *cr = json_array();
    json_array_append_new(br, jl_json_number(f->n_points ? f->batch_min : NAN));
    json_array_append_new(br, jl_json_number(f->n_points ? f->batch_max : NAN));
    json_array_append_new(cr, json_integer(f->cap_min));
    json_array_append_new(cr, json_integer(f->cap_max));
    set(o, "batch_range", br);
    set(o, "max_batch_size_range", cr);
    set(o, "batch_per_cap", jl_json_number(f->batch_per_cap));
    set(o, "gpu_tdp_w", jl_json_number(f->tdp_w));
    set(o, "gpu_idle_power_w", jl_json_number(f->idle_w));
    json_t *ce = json_object();
    set(ce, "batch", jl_json_number(f->batch_ceiling));
    set(ce, "reason", str_or_null(f->ceiling_reason));
    set(ce, "memory_batch", jl_json_number(f->memory_ceiling));
    set(o, "ceiling", ce);

    if (f->method == JL_FIT_MODEL) {
        json_t *pm = json_object(), *ps = json_array();
        for (int j = 0; j < JL_MP_COUNT; j++) {
            const jl_param *q = &f->params[j];
            json_t *po = json_object();
            set(po, "name", json_string(q->name));
            set(po, "unit", json_string(q->unit));
            set(po, "value", jl_json_number(q->value));
            set(po, "lower", jl_json_number(q->lower));
            set(po, "upper", jl_json_number(q->upper));
            set(po, "at_bound", json_boolean(q->at_bound));
            set(po, "status", q->status ? json_string(q->status) : json_null());
            set(po, "basis", q->basis ? json_string(q->basis) : json_null());
            set(po, "ci_low", jl_json_number(q->ci_low));
            set(po, "ci_high", jl_json_number(q->ci_high));
            json_array_append_new(ps, po);
        }
        set(pm, "parameters", ps);
        set(pm, "intervals", json_boolean(f->has_ci));
        set(pm, "intervals_note", str_or_null(f->ci_note));
        set(pm, "dof", json_integer(f->dof));
        set(pm, "t_quantile", jl_json_number(f->t_quantile));
        json_t *r2 = json_object(), *rms = json_object();
        set(r2, "power", jl_json_number(f->r2_power));
        set(r2, "throughput", jl_json_number(f->r2_throughput));
        set(r2, "energy_per_token", jl_json_number(f->r2_energy));
        set(rms, "power", jl_json_number(f->rms_ln_power));
        set(rms, "throughput", jl_json_number(f->rms_ln_throughput));
        set(rms, "energy_per_token", jl_json_number(f->rms_ln_energy));
        set(pm, "r2_ln", r2);
        set(pm, "rms_ln_residual", rms);
        set(pm, "rss", jl_json_number(f->rss));
        set(pm, "starts", json_integer(f->n_starts));
        set(pm, "refined", json_integer(f->n_refined));
        set(o, "physical_model", pm);
        json_t *co = json_object();
        set(co, "kind", json_string("gaussian_process"));
        set(co, "applied", json_boolean(f->has_correction));
        set(co, "length_scale_ln_batch", jl_json_number(f->gp_length));
        set(co, "noise_ratio", jl_json_number(f->gp_noise));
        set(co, "r2_ln_energy_per_token", jl_json_number(f->r2_energy_corrected));
        set(co, "rms_ln_residual_energy_per_token", jl_json_number(f->rms_ln_energy_corrected));
        json_t *sv = json_object();
        set(sv, "power", jl_json_number(f->has_correction ? f->gp_scale2_power : NAN));
        set(sv, "throughput", jl_json_number(f->has_correction ? f->gp_scale2_throughput : NAN));
        set(sv, "energy_per_token", jl_json_number(f->has_correction ? f->gp_scale2_energy : NAN));
        set(co, "signal_variance", sv);
        set(o, "correction", co);
    } else {
        set(o, "physical_model", json_null());
        set(o, "correction", json_null());
    }
    json_t *pts = json_array();
    for (size_t i = 0; i < f->n_points; i++) {
        const jl_fit_point *pt = &f->points[i];
        json_t *po = jl_run_key_to_json(pt->run);
        if (!po)
            continue;
        set(po, "batch", jl_json_number(pt->batch));
        set(po, "power_w", jl_json_number(pt->power_w));
        set(po, "throughput_tok_s", jl_json_number(pt->throughput_tok_s));
        set(po, "energy_per_token_j", jl_json_number(pt->energy_per_token_j));
        set(po, "boundary", jl_boundary_to_json(pt->run->boundary));
        set(po, "step_time_s", jl_json_number(pt->step_time_s));
        set(po, "resid_ln_power", jl_json_number(pt->resid_ln_power));
        set(po, "resid_ln_throughput", jl_json_number(pt->resid_ln_throughput));
        set(po, "resid_ln_energy_per_token", jl_json_number(pt->resid_ln_energy));
        set(po, "resid_ln_energy_per_token_corrected",
            jl_json_number(pt->resid_ln_energy_corrected));
        set(po, "regime_excluded", json_boolean(pt->regime_excluded));
        json_array_append_new(pts, po);
    }
    set(o, "points", pts);
    /* what the fitted energy and its curve cover: the points' boundary */
    set(o, "boundary", f->n_points ? jl_boundary_to_json(f->points[0].run->boundary) : json_null());
    json_t *cv = json_array();
    for (size_t i = 0; grid && i < n_grid; i++) {
        jl_prediction p;
        if (jl_model_predict(f, grid[i], &p) == JL_OK)
            json_array_append_new(cv, jl_prediction_to_json(&p));
    }
    set(o, "curve", cv);
    return o;
}

json_t *jl_fit_document(jl_group_fit *const *fits, size_t n, const jl_model_options *opt,
                        size_t n_grid, const jl_loo_result *loo, const jl_loo_result *anchor_loo,
                        const jl_model_group_list *groups)
{
    json_t *doc = json_object(), *gs = json_array(), *oo = json_object();
    if (!doc || !gs || !oo) {
        json_decref(doc);
        json_decref(gs);
        json_decref(oo);
        return NULL;
    }
    set(doc, "schema", json_string("joules.fit/1"));
    set(doc, "groups", gs);
    set(oo, "min_batch_sizes", json_integer((json_int_t)opt->min_batch_sizes));
    set(oo, "correction", json_boolean(opt->correction));
    set(oo, "confidence", jl_json_number(opt->confidence));
    set(oo, "extrapolation_factor", jl_json_number(opt->extrapolation_factor));
    set(oo, "memory_share", jl_json_number(opt->memory_share));
    set(oo, "regime_ratio", jl_json_number(opt->regime_ratio));
    set(oo, "pool_weight", jl_json_number(opt->pool_weight));
    set(doc, "options", oo);
    for (size_t i = 0; i < n; i++) {
        double *grid = jl_model_batch_grid(fits[i], n_grid);
        json_t *g = jl_group_fit_to_json(fits[i], grid, grid ? n_grid : 0);
        free(grid);
        if (!g || json_array_append_new(gs, g)) {
            json_decref(doc);
            return NULL;
        }
    }
    if (loo)
        set(doc, "loo", jl_loo_to_json(loo, groups));
    if (anchor_loo)
        set(doc, "anchor_loo", jl_loo_to_json(anchor_loo, groups));
    return doc;
}

json_t *jl__model_loo_stats_json(jl_loo_stats s)
{
    json_t *o = json_object();
    set(o, "n", json_integer((json_int_t)s.n));
    set(o, "median", jl_json_number(s.median));
    set(o, "p90", jl_json_number(s.p90));
    set(o, "interval_coverage", jl_json_number(s.coverage));
    set(o, "interval_median_half_width", jl_json_number(s.median_half_width));
    set(o, "max", jl_json_number(s.max));
    return o;
}

json_t *jl_loo_to_json(const jl_loo_result *r, const jl_model_group_list *groups)
{
    json_t *o = json_object(), *pts = json_array(), *sum = json_object(), *pt = json_object();
    if (!o || !pts || !sum || !pt) {
        json_decref(o);
        json_decref(pts);
        json_decref(sum);
        json_decref(pt);
        return NULL;
    }
    for (size_t i = 0; i < r->count; i++) {
        const jl_loo_point *p = &r->points[i];
        json_t *po = jl_run_key_to_json(p->run);
        if (!po)
            continue;
        set(po, "batch", jl_json_number(p->batch));
        set(po, "actual_energy_per_token_j", jl_json_number(p->actual_energy_per_token_j));
        set(po, "predicted_energy_per_token_j", jl_json_number(p->predicted_energy_per_token_j));
        set(po, "predicted_energy_per_token_lo_j", jl_json_number(p->predicted_lo_j));
        set(po, "predicted_energy_per_token_hi_j", jl_json_number(p->predicted_hi_j));
        json_t *it = json_object();
        set(it, "resid_ms", jl_json_number(p->pi_resid_ms));
        set(it, "gp_variance", jl_json_number(p->pi_gp_var));
        set(it, "outside_ln_batch", jl_json_number(p->pi_outside));
        set(po, "interval_terms", it);
        set(po, "abs_rel_error", jl_json_number(p->abs_rel_error));
        set(po, "position",
            json_string(p->position < 0 ? "low_end" : (p->position > 0 ? "high_end" : "interior")));
        json_array_append_new(pts, po);
    }
    set(sum, "overall", jl__model_loo_stats_json(jl_loo_summarize(r, NULL)));
    /* per task, in name order (deterministic) */
    const char **tasks = calloc(r->count ? r->count : 1, sizeof *tasks);
    size_t nt = 0;
    for (size_t i = 0; tasks && i < r->count; i++) {
        const char *t = r->points[i].run->attrs.task;
        size_t k = 0;
        while (k < nt && strcmp(tasks[k], t))
            k++;
        if (k == nt)
            tasks[nt++] = t;
    }
    for (size_t i = 0; i < nt; i++)
        set(pt, tasks[i], jl__model_loo_stats_json(jl_loo_summarize(r, tasks[i])));
    free(tasks);
    set(sum, "per_task", pt);
    set(o, "points", pts);
    set(o, "summary", sum);
    (void)groups;
    return o;
}

typedef struct {
    jl_group_fit *const *fits;
    size_t n;
} fit_params_ctx;

static int print_fit_params(FILE *f, const void *vctx)
{
    const fit_params_ctx *c = vctx;
    static const char *const head[] = {"model",
                                       "task",
                                       "gpu_model",
                                       "num_gpus",
                                       "precision",
                                       "method",
                                       "n_points",
                                       "n_batch_sizes",
                                       "parameter",
                                       "unit",
                                       "value",
                                       "lower",
                                       "upper",
                                       "at_bound",
                                       "ci_low",
                                       "ci_high",
                                       "dof",
                                       "r2_ln_energy_per_token",
                                       "r2_ln_energy_per_token_corrected",
                                       NULL};
    jl__csvw w;
    jl__csvw_begin(&w, f);
    jl__csvw_cells(&w, head);
    jl__csvw_end(&w);
    for (size_t i = 0; i < c->n; i++) {
        const jl_group_fit *g = c->fits[i];
        if (!g || g->method != JL_FIT_MODEL)
            continue;
        for (int j = 0; j < JL_MP_COUNT; j++) {
            const jl_param *q = &g->params[j];
            jl__csvw_cell(&w, g->key.model);
            jl__csvw_cell(&w, g->key.task);
            jl__csvw_cell(&w, g->key.gpu_model);
            jl__csvw_cellf(&w, "%ld", g->key.num_gpus);
            jl__csvw_cell(&w, g->key.precision);
            jl__csvw_cell(&w, jl_fit_method_name(g->method));
            jl__csvw_cellf(&w, "%zu", g->n_points);
            jl__csvw_cellf(&w, "%zu", g->n_batch_sizes);
            jl__csvw_cell(&w, q->name);
            jl__csvw_cell(&w, q->unit);
            jl__csvw_num(&w, q->value);
            jl__csvw_num(&w, q->lower);
            jl__csvw_num(&w, q->upper);
            jl__csvw_cellf(&w, "%d", q->at_bound);
            if (isfinite(q->ci_low)) {
                jl__csvw_num(&w, q->ci_low);
                jl__csvw_num(&w, q->ci_high);
            } else {
                jl__csvw_empty(&w);
                jl__csvw_empty(&w);
            }
            jl__csvw_cellf(&w, "%ld", g->dof);
            jl__csvw_num(&w, g->r2_energy);
            jl__csvw_num(&w, g->r2_energy_corrected);
            jl__csvw_end(&w);
        }
    }
    return ferror(f) != 0;
}

jl_status jl_write_fit_params_csv(const char *path, jl_group_fit *const *fits, size_t n,
                                  jl_error **err)
{
    fit_params_ctx c = {fits, n};
    return jl_write_text(path, print_fit_params, &c, err);
}
