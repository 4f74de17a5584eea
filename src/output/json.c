/* JSON documents: the run object and the errors list, shared by every
 * command so a run looks the same wherever it appears. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/account.h"
#include "joules/output.h"
#include "output/json_writer.h"

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

/* in key order, so the text writer has nothing to sort in a run key */
void jl__run_key_write(jl_jw *w, const jl_summary *s)
{
    jl__jw_kstring(w, "file", s->file);
    jl__jw_kstring(w, "gpu_model", s->attrs.gpu_model);
    jl__jw_klong(w, "max_batch_size", s->attrs.max_batch_size);
    jl__jw_kstring(w, "model", s->attrs.model);
    jl__jw_klong(w, "num_gpus", s->attrs.num_gpus);
    jl__jw_kstring(w, "precision", s->attrs.precision);
    jl__jw_kstring(w, "run", s->run);
    jl__jw_kstring(w, "task", s->attrs.task);
    jl__jw_kstring(w, "workload", s->attrs.workload);
}

/* The object of an emitter of members, as a tree. */
static json_t *members_to_json(void (*members)(jl_jw *w, const jl_summary *s), const jl_summary *s)
{
    jl_jw *w = jl__jw_tree();
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
static void published_write(jl_jw *w, const jl_summary *s)
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

void jl__summary_write(jl_jw *w, const jl_summary *s)
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
}

json_t *jl_summary_to_json(const jl_summary *s)
{
    return members_to_json(jl__summary_write, s);
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

json_t *jl__jw_document_tree(jl__jw_document_fn fn, const void *result, const jl_summary_list *l)
{
    jl_jw *w = jl__jw_tree();
    if (!w)
        return NULL;
    fn(w, result, l, NULL);
    return jl__jw_finish_tree(w);
}

char *jl__jw_document_text(jl__jw_document_fn fn, const void *result, const jl_summary_list *l,
                           const jl_error_list *errors, size_t *len)
{
    json_t *ej = jl_errors_to_json(errors);
    jl_jw *w = ej ? jl__jw_text(JSON_SORT_KEYS | JSON_INDENT(2) |
                                JSON_REAL_PRECISION(JL_JSON_REAL_PRECISION))
                  : NULL;
    char *text = NULL;
    if (w) {
        const json_t *prov = jl_output_provenance(); /* joules/account.h */
        if (prov)
            jl__jw_root_member(w, "provenance", prov);
        fn(w, result, l, ej);
        text = jl__jw_finish_text(w, len);
    }
    json_decref(ej);
    return text;
}

typedef struct text_buf {
    const char *p;
    size_t len;
} text_buf;

static int print_text(FILE *f, const void *ctx)
{
    const text_buf *t = ctx;
    return fwrite(t->p, 1, t->len, f) != t->len;
}

jl_status jl__jw_write_document(const char *path, jl__jw_document_fn fn, const void *result,
                                const jl_summary_list *l, const jl_error_list *errors,
                                jl_error **err)
{
    size_t len = 0;
    char *text = jl__jw_document_text(fn, result, l, errors, &len);
    if (!text)
        return jl_fail(err, JL_ENOMEM, path, NULL, NULL, -1, "cannot serialise JSON document");
    text_buf t = {text, len};
    jl_status st = jl_write_text(path, print_text, &t, err);
    free(text);
    return st;
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
    json_t *with = jl__with_provenance(doc);
    char *s = jl_json_dump(with ? with : doc);
    json_decref(with);
    if (!s)
        return jl_fail(err, JL_ENOMEM, path, NULL, NULL, -1, "cannot serialise JSON document");
    jl_status st = jl_write_text(path, print_string, s, err);
    free(s);
    return st;
}
