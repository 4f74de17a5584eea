/* JSON documents: the run object and the errors list, shared by every
 * command so a run looks the same wherever it appears. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/output.h"

json_t *jl_json_number(double v)
{
    if (!isfinite(v))
        return json_null();
    return json_real(v);
}

static int set_str(json_t *o, const char *k, const char *v)
{
    return json_object_set_new(o, k, v ? json_string(v) : json_null());
}

static int set_long(json_t *o, const char *k, long v)
{
    return json_object_set_new(o, k, v >= 0 ? json_integer(v) : json_null());
}

json_t *jl_run_key_to_json(const jl_summary *s)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    set_str(o, "file", s->file);
    set_str(o, "run", s->run);
    set_str(o, "workload", s->attrs.workload);
    set_str(o, "model", s->attrs.model);
    set_str(o, "task", s->attrs.task);
    set_str(o, "gpu_model", s->attrs.gpu_model);
    set_long(o, "num_gpus", s->attrs.num_gpus);
    set_str(o, "precision", s->attrs.precision);
    set_long(o, "max_batch_size", s->attrs.max_batch_size);
    return o;
}

/* Spec 1.1: the published figures and, for each figure available both
 * ways, {"figure", "published", "recomputed", "relative_difference"} (the
 * key names are a contract) plus "marked" and "recomputed_from". Only for
 * runs that hold published figures beside series. */
static void published_to_json(json_t *o, const jl_summary *s)
{
    const jl_published *p = s->published;
    json_t *po = json_object(), *figs = json_object(), *dis = json_array();
    for (int f = 0; f < JL_FIG_COUNT; f++)
        if (isfinite(p->fig[f]))
            json_object_set_new(figs, jl_figure_name((jl_figure)f), json_real(p->fig[f]));
    set_str(po, "source", p->source);
    json_object_set_new(po, "figures", figs);
    json_object_set_new(po, "mark_threshold", jl_json_number(p->mark_threshold));
    json_object_set_new(o, "published", po);
    jl_disagreement d[JL_FIG_COUNT];
    size_t n = jl_summary_disagreements(s, d);
    for (size_t i = 0; i < n; i++) {
        json_t *x = json_object();
        set_str(x, "figure", jl_figure_name(d[i].figure));
        json_object_set_new(x, "published", jl_json_number(d[i].published));
        json_object_set_new(x, "recomputed", jl_json_number(d[i].recomputed));
        json_object_set_new(x, "relative_difference", jl_json_number(d[i].relative_difference));
        json_object_set_new(x, "marked", json_boolean(d[i].marked));
        set_str(x, "recomputed_from", d[i].recomputed_from);
        json_array_append_new(dis, x);
    }
    json_object_set_new(o, "disagreements", dis);
}

json_t *jl_summary_to_json(const jl_summary *s)
{
    json_t *o = jl_run_key_to_json(s);
    if (!o)
        return NULL;
    const jl_attrs *a = &s->attrs;
    json_object_set_new(o, "start_time_unix", jl_json_number(a->start_time_unix));
    set_long(o, "tensor_parallel", a->tensor_parallel);
    set_long(o, "expert_parallel", a->expert_parallel);
    set_long(o, "data_parallel", a->data_parallel);
    json_object_set_new(o, "gpu_memory_bytes", jl_json_number(a->gpu_memory_bytes));
    json_object_set_new(o, "gpu_tdp_w", jl_json_number(a->gpu_tdp_w));
    json_object_set_new(o, "gpu_idle_power_w", jl_json_number(a->gpu_idle_power_w));
    json_object_set_new(o, "total_params", jl_json_number(a->total_params));
    json_object_set_new(o, "active_params", jl_json_number(a->active_params));
    json_object_set_new(o, "kv_bytes_per_token", jl_json_number(a->kv_bytes_per_token));
    if (jl_attrs_is_diffusion(a)) {
        set_long(o, "denoising_steps", a->denoising_steps);
        set_long(o, "height", a->height);
        set_long(o, "width", a->width);
        set_long(o, "num_frames", a->num_frames);
    }
    if (a->n_extra) {
        json_t *x = json_object();
        for (size_t i = 0; i < a->n_extra; i++) {
            const jl_kv *kv = &a->extra[i];
            if (kv->is_number) {
                char *end = NULL;
                double v = strtod(kv->value, &end);
                if (end && *end == '\0' && end != kv->value) {
                    json_object_set_new(x, kv->key, jl_json_number(v));
                    continue;
                }
            }
            json_object_set_new(x, kv->key, json_string(kv->value));
        }
        json_object_set_new(o, "extra_attributes", x);
    }
    set_str(o, "steady_method", jl_steady_method_name(s->steady_method));
    set_str(o, "energy_source", jl_energy_source_name(s->energy_source));
    for (int f = 0; f < JL_FIG_COUNT; f++)
        json_object_set_new(o, jl_figure_name((jl_figure)f), jl_json_number(s->fig[f]));
    if (s->gpu_energy_j && s->gpu_avg_power_w) {
        json_t *ge = json_array(), *gp = json_array();
        for (size_t g = 0; g < s->num_gpus; g++) {
            json_array_append_new(ge, jl_json_number(s->gpu_energy_j[g]));
            json_array_append_new(gp, jl_json_number(s->gpu_avg_power_w[g]));
        }
        json_object_set_new(o, "gpu_energy_j", ge);
        json_object_set_new(o, "gpu_avg_power_w", gp);
    } else {
        json_object_set_new(o, "gpu_energy_j", json_null());
        json_object_set_new(o, "gpu_avg_power_w", json_null());
    }
    json_t *w = json_array();
    for (size_t i = 0; i < s->n_warnings; i++) {
        json_t *wo = json_object();
        set_str(wo, "rule", s->warnings[i].rule);
        set_str(wo, "message", s->warnings[i].message);
        json_array_append_new(w, wo);
    }
    json_object_set_new(o, "warnings", w);
    if (s->published)
        published_to_json(o, s);
    return o;
}

json_t *jl_summary_document(const jl_summary_list *l, const jl_error_list *errors)
{
    json_t *doc = json_object(), *runs = json_array();
    if (!doc || !runs) {
        json_decref(doc);
        json_decref(runs);
        return NULL;
    }
    json_object_set_new(doc, "schema", json_string("joules.summary/1"));
    for (size_t i = 0; l && i < l->count; i++)
        json_array_append_new(runs, jl_summary_to_json(l->items[i]));
    json_object_set_new(doc, "runs", runs);
    json_object_set_new(doc, "errors", jl_errors_to_json(errors));
    return doc;
}

json_t *jl_errors_to_json(const jl_error_list *errors)
{
    json_t *arr = json_array();
    if (!arr)
        return NULL;
    for (size_t i = 0; errors && i < errors->count; i++) {
        const jl_error *e = errors->items[i];
        json_t *o = json_object();
        set_str(o, "file", e->file);
        set_str(o, "run", e->run);
        set_str(o, "object", e->object);
        json_object_set_new(o, "row", e->row >= 0 ? json_integer(e->row) : json_null());
        if (e->line > 0) { /* text inputs only: existing documents keep their keys */
            json_object_set_new(o, "line", json_integer(e->line));
            json_object_set_new(o, "column", e->column > 0 ? json_integer(e->column) : json_null());
        }
        set_str(o, "code", jl_status_name(e->code));
        char *msg = jl_error_format(e);
        set_str(o, "message", msg);
        free(msg);
        json_array_append_new(arr, o);
    }
    return arr;
}

char *jl_json_dump(const json_t *doc)
{
    char *s = jl_json_dumps(doc, JSON_SORT_KEYS | JSON_INDENT(2) |
                                     JSON_REAL_PRECISION(JL_JSON_REAL_PRECISION));
    if (!s)
        return NULL;
    size_t n = strlen(s); /* a plain copy: megabytes through "%s" cost more */
    char *withnl = realloc(s, n + 2);
    if (!withnl) {
        free(s);
        return NULL;
    }
    withnl[n] = '\n';
    withnl[n + 1] = '\0';
    return withnl;
}

static int print_string(FILE *f, const void *ctx)
{
    const char *s = ctx;
    size_t n = strlen(s);
    return fwrite(s, 1, n, f) != n;
}

jl_status jl_write_json(const char *path, const json_t *doc, jl_error **err)
{
    char *s = jl_json_dump(doc);
    if (!s)
        return jl_fail(err, JL_ENOMEM, path, NULL, NULL, -1,
                       "cannot serialise JSON document");
    jl_status st = jl_write_text(path, print_string, s, err);
    free(s);
    return st;
}
