/* The run object (joules/output.h): the same members wherever a run
 * appears (summary, frontier, pick, ...), through the JSON writer's two
 * backends (src/json/json_internal.h), and the joules.summary/1 document. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "joules/output.h"
#include "output/document_internal.h"
#include "summary/summary_internal.h"

/* in key order, so the text writer has nothing to sort in a run key */
void jl__run_key_write(jl__jw *w, const jl_summary *s)
{
    jl__jw_kstring(w, "file", s->file);
    jl__jw_kstring(w, "gpu_model", s->attrs.gpu_model);
    /* a placeholder the importer listed in @unknown_attributes (MLPerf runs
     * without a batch cap) is null, never its stand-in value */
    if (jl_attrs_known(&s->attrs, "max_batch_size"))
        jl__jw_klong(w, "max_batch_size", s->attrs.max_batch_size);
    else {
        jl__jw_key(w, "max_batch_size");
        jl__jw_null(w);
    }
    jl__jw_kstring(w, "model", s->attrs.model);
    jl__jw_klong(w, "num_gpus", s->attrs.num_gpus);
    jl__jw_kstring(w, "precision", s->attrs.precision);
    jl__jw_kstring(w, "run", s->run);
    jl__jw_kstring(w, "task", s->attrs.task);
    jl__jw_kstring(w, "workload", s->attrs.workload);
}

/* The object of an emitter of members, as a tree. */
static json_t *members_to_json(void (*members)(jl__jw *w, const jl_summary *s), const jl_summary *s)
{
    jl__jw *w = jl__jw_tree();
    if (!w)
        return NULL;
    jl__jw_object(w);
    members(w, s);
    jl__jw_end(w);
    return jl__jw_finish_tree(w);
}

json_t *jl_run_key_to_json(const jl_summary *s)
{
    return members_to_json(jl__run_key_write, s);
}

/* Spec 1.1: the published figures and, for each figure available both
 * ways, {"figure", "published", "recomputed", "relative_difference"} (the
 * key names are a contract) plus "marked" and "recomputed_from". Only for
 * runs that hold published figures beside series. */
static void published_write(jl__jw *w, const jl_summary *s)
{
    const jl_published *p = s->published;
    jl__jw_key(w, "published");
    jl__jw_object(w);
    jl__jw_kstring(w, "source", p->source);
    jl__jw_key(w, "figures");
    jl__jw_object(w);
    for (int f = 0; f < JL_FIG_COUNT; f++)
        if (isfinite(p->fig[f]))
            jl__jw_knumber(w, jl_figure_name((jl_figure)f), p->fig[f]);
    jl__jw_end(w);
    jl__jw_knumber(w, "mark_threshold", p->mark_threshold);
    jl__jw_end(w);
    jl_disagreement d[JL_FIG_COUNT];
    size_t n = jl_summary_disagreements(s, d);
    jl__jw_key(w, "disagreements");
    jl__jw_array(w);
    for (size_t i = 0; i < n; i++) {
        jl__jw_object(w);
        jl__jw_kstring(w, "figure", jl_figure_name(d[i].figure));
        jl__jw_knumber(w, "published", d[i].published);
        jl__jw_knumber(w, "recomputed", d[i].recomputed);
        jl__jw_knumber(w, "relative_difference", d[i].relative_difference);
        jl__jw_kbool(w, "marked", d[i].marked);
        jl__jw_kstring(w, "recomputed_from", d[i].recomputed_from);
        jl__jw_end(w);
    }
    jl__jw_end(w);
}

static void doubles_write(jl__jw *w, const char *key, const double *v, size_t n)
{
    jl__jw_key(w, key);
    if (!v) {
        jl__jw_null(w);
        return;
    }
    jl__jw_array(w);
    for (size_t i = 0; i < n; i++)
        jl__jw_number(w, v[i]);
    jl__jw_end(w);
}

/* host/ (format 1.2): how the host figures were found and their parts.
 * Only for runs with host/, so other runs' JSON is unchanged. */
static void host_write(jl__jw *w, const jl_host_summary *h)
{
    jl__jw_key(w, "host");
    jl__jw_object(w);
    doubles_write(w, "cpu_energy_j", h->cpu_energy_j, h->sockets);
    jl__jw_knumber(w, "cpu_dram_energy_j", h->cpu_dram_energy_j);
    doubles_write(w, "dram_energy_j", h->dram_energy_j, h->sockets);
    jl__jw_kstring(w, "method", jl_host_method_name(h->method));
    jl__jw_knumber(w, "node_energy_j", h->node_energy_j);
    jl__jw_knumber(w, "rest_energy_j", h->rest_energy_j);
    jl__jw_klong(w, "sockets", (long)h->sockets);
    jl__jw_kstring(w, "source", h->source);
    jl__jw_end(w);
}

void jl__summary_write(jl__jw *w, const jl_summary *s)
{
    jl__run_key_write(w, s);
    const jl_attrs *a = &s->attrs;
    jl__jw_knumber(w, "start_time_unix", a->start_time_unix);
    jl__jw_klong(w, "tensor_parallel", a->tensor_parallel);
    jl__jw_klong(w, "expert_parallel", a->expert_parallel);
    jl__jw_klong(w, "data_parallel", a->data_parallel);
    jl__jw_knumber(w, "gpu_memory_bytes", a->gpu_memory_bytes);
    jl__jw_knumber(w, "gpu_tdp_w", a->gpu_tdp_w);
    jl__jw_knumber(w, "gpu_idle_power_w", a->gpu_idle_power_w);
    jl__jw_knumber(w, "total_params", a->total_params);
    jl__jw_knumber(w, "active_params", a->active_params);
    jl__jw_knumber(w, "kv_bytes_per_token", a->kv_bytes_per_token);
    if (jl_attrs_is_diffusion(a)) {
        jl__jw_klong(w, "denoising_steps", a->denoising_steps);
        jl__jw_klong(w, "height", a->height);
        jl__jw_klong(w, "width", a->width);
        jl__jw_klong(w, "num_frames", a->num_frames);
    }
    if (a->n_extra) {
        jl__jw_key(w, "extra_attributes");
        jl__jw_object(w);
        for (size_t i = 0; i < a->n_extra; i++) {
            const jl_kv *kv = &a->extra[i];
            if (kv->is_number) {
                char *end = NULL;
                double v = strtod(kv->value, &end);
                if (end && *end == '\0' && end != kv->value) {
                    jl__jw_knumber(w, kv->key, v);
                    continue;
                }
            }
            jl__jw_kstring(w, kv->key, kv->value);
        }
        jl__jw_end(w);
    }
    jl__jw_kstring(w, "steady_method", jl_steady_method_name(s->steady_method));
    jl__jw_kstring(w, "energy_source", jl_energy_source_name(s->energy_source));
    for (int f = 0; f < JL_FIG_COUNT; f++)
        jl__jw_knumber(w, jl_figure_name((jl_figure)f), s->fig[f]);
    if (s->gpu_energy_j && s->gpu_avg_power_w) {
        jl__jw_key(w, "gpu_energy_j");
        jl__jw_array(w);
        for (size_t g = 0; g < s->num_gpus; g++)
            jl__jw_number(w, s->gpu_energy_j[g]);
        jl__jw_end(w);
        jl__jw_key(w, "gpu_avg_power_w");
        jl__jw_array(w);
        for (size_t g = 0; g < s->num_gpus; g++)
            jl__jw_number(w, s->gpu_avg_power_w[g]);
        jl__jw_end(w);
    } else {
        jl__jw_kstring(w, "gpu_energy_j", NULL);
        jl__jw_kstring(w, "gpu_avg_power_w", NULL);
    }
    jl__jw_key(w, "warnings");
    jl__jw_array(w);
    for (size_t i = 0; i < s->n_warnings; i++) {
        jl__jw_object(w);
        jl__jw_kstring(w, "rule", s->warnings[i].rule);
        jl__jw_kstring(w, "message", s->warnings[i].message);
        jl__jw_end(w);
    }
    jl__jw_end(w);
    if (s->published)
        published_write(w, s);
    if (s->host)
        host_write(w, s->host);
    jl__boundary_write(w, s);
    jl__validity_write(w, s);
}

json_t *jl_summary_to_json(const jl_summary *s)
{
    return members_to_json(jl__summary_write, s);
}

/* The joules.summary/1 document straight to text: the bytes of
 * jl_summary_document's tree dumped, without the tree (building, dumping
 * and freeing 2,000 runs' tree was most of what `summarize --json` did
 * after the load: the serial part of an MPI rank 0). */
static void document_write(jl__jw *w, const void *result, const jl_summary_list *l,
                           const json_t *errors_json)
{
    (void)result;
    jl__jw_object(w);
    if (errors_json) {
        jl__jw_key(w, "errors");
        jl__jw_json(w, errors_json);
    }
    jl__jw_key(w, "runs");
    jl__jw_array(w);
    for (size_t i = 0; l && i < l->count; i++) {
        jl__jw_object(w);
        jl__summary_write(w, l->items[i]);
        jl__jw_end(w);
    }
    jl__jw_end(w);
    jl__jw_kstring(w, "schema", "joules.summary/1");
    jl__jw_end(w);
}

jl_status jl_write_summary_json(const char *path, const jl_summary_list *l,
                                const jl_error_list *errors, jl_error **err)
{
    return jl__jw_write_document(path, document_write, NULL, l, errors, err);
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
