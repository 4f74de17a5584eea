/* Energy labels: per (model, task, GPU model, GPU count) the least-energy
 * configuration meeting the SLOs, GPU Wh per 1,000 queries and 1-5 stars
 * relative to the labels of the same task (docs/accounting.md, "Labels"). */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "joules/output.h"
#include "joules/provenance.h"
#include "joules/publish.h"
#include "joules/slo.h"
#include "joules/study.h"
#include "joules/version.h"

void jl_label_set_clear(jl_label_set *ls)
{
    free(ls->items);
    memset(ls, 0, sizeof *ls);
}

int jl_label_stars(double x, double lo, double hi)
{
    if (!(hi > lo))
        return 5;
    double f = (x - lo) / (hi - lo); /* 0 best .. 1 worst */
    int fifth = (int)floor(f * 5);
    if (fifth > 4)
        fifth = 4;
    if (fifth < 0)
        fifth = 0;
    return 5 - fifth;
}

static double per_query_j(const jl_summary *s)
{
    double e = s->fig[JL_FIG_ENERGY_PER_REQUEST_J];
    if (!isfinite(e))
        e = s->fig[JL_FIG_ENERGY_PER_ITEM_J];
    return e;
}

jl_status jl_labels(const jl_summary_list *runs, const jl_slo *const *slos, size_t n_slos,
                    jl_label_set *out, jl_error **err)
{
    memset(out, 0, sizeof *out);
    out->items = calloc(runs->count ? runs->count : 1, sizeof *out->items);
    if (!out->items)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    for (size_t i = 0; i < runs->count; i++) {
        const jl_summary *s = runs->items[i];
        double e = per_query_j(s);
        if (!isfinite(e) || !s->attrs.model || !s->attrs.task)
            continue;
        int ok = 1;
        for (size_t k = 0; k < n_slos && ok; k++)
            ok = jl_slo_eval(slos[k], s, NULL) == JL_SLO_PASS;
        if (!ok)
            continue;
        jl_label *l = NULL;
        for (size_t j = 0; j < out->n && !l; j++) {
            const jl_label *c = &out->items[j];
            if (jl__str_eq_or_null(c->model, s->attrs.model) &&
                jl__str_eq_or_null(c->task, s->attrs.task) &&
                jl__str_eq_or_null(c->gpu_model, s->attrs.gpu_model) &&
                c->num_gpus == s->attrs.num_gpus)
                l = &out->items[j];
        }
        double wh = e * 1000 / 3600;
        if (!l) {
            l = &out->items[out->n++];
            l->model = s->attrs.model;
            l->task = s->attrs.task;
            l->gpu_model = s->attrs.gpu_model;
            l->workload = s->attrs.workload;
            l->num_gpus = s->attrs.num_gpus;
            l->wh_per_1000 = INFINITY;
        }
        if (wh < l->wh_per_1000 ||
            (wh == l->wh_per_1000 && jl_run_config_cmp(s, runs->items[l->run]) < 0)) {
            l->wh_per_1000 = wh;
            l->run = i;
        }
    }
    for (size_t j = 0; j < out->n; j++) {
        jl_label *l = &out->items[j];
        l->task_min = INFINITY;
        l->task_max = -INFINITY;
        l->task_models = 0;
        for (size_t k = 0; k < out->n; k++)
            if (jl__str_eq_or_null(out->items[k].task, l->task)) {
                double x = out->items[k].wh_per_1000;
                l->task_min = x < l->task_min ? x : l->task_min;
                l->task_max = x > l->task_max ? x : l->task_max;
                l->task_models++;
            }
        l->stars = jl_label_stars(l->wh_per_1000, l->task_min, l->task_max);
    }
    return JL_OK;
}

void jl_provenance_hash(const json_t *provenance, char hex[65])
{
    json_t *c = json_copy((json_t *)provenance), *cmd = json_array();
    if (c && cmd) {
        json_object_del(c, "created");
        /* where the outputs went does not change them */
        const json_t *argv = json_object_get(provenance, "command");
        for (size_t i = 0; i < json_array_size(argv); i++) {
            const char *a = json_string_value(json_array_get(argv, i));
            if (a && (!strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--csv"))) {
                i++;
                continue;
            }
            json_array_append(cmd, json_array_get(argv, i));
        }
        json_object_set(c, "command", cmd);
    }
    char *text = c && cmd ? jl_json_dumps(c, JSON_SORT_KEYS | JSON_COMPACT |
                                                 JSON_REAL_PRECISION(JL_JSON_REAL_PRECISION))
                          : NULL;
    jl_sha256_hex(text ? text : "", text ? strlen(text) : 0, hex);
    free(text);
    json_decref(cmd);
    json_decref(c);
}

json_t *jl_label_document(const jl_label_set *ls, const jl_summary_list *runs, const char *slo_text,
                          const char *provenance_sha256)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < ls->n; i++) {
        const jl_label *l = &ls->items[i];
        const jl_summary *s = runs->items[l->run];
        json_t *o = jl_run_key_to_json(s);
        if (!o || json_array_append_new(arr, o)) {
            json_decref(arr);
            return NULL;
        }
        int diff = l->workload && !strcmp(l->workload, "diffusion");
        json_object_set_new(o, "gpu_wh_per_1000", jl_json_number(l->wh_per_1000));
        json_object_set_new(o, "per", json_string(diff ? "1000 images" : "1000 queries"));
        json_object_set_new(o, "stars", json_integer(l->stars));
        json_object_set_new(o, "stars_relative_to",
                            json_pack("{s:s?,s:I,s:o,s:o}", "task", l->task, "labels",
                                      (json_int_t)l->task_models, "min_wh",
                                      jl_json_number(l->task_min), "max_wh",
                                      jl_json_number(l->task_max)));
        json_object_set_new(o, "energy_per_token_j",
                            jl_json_number(s->fig[JL_FIG_ENERGY_PER_TOKEN_J]));
        json_object_set_new(o, "median_itl_s", jl_json_number(s->fig[JL_FIG_MEDIAN_ITL_S]));
    }
    return json_pack("{s:s,s:s,s:s?,s:s?,s:o}", "schema", "joules.label/1", "stars_rule",
                     "5 stars in the lowest fifth of the task's range of GPU Wh per 1,000 "
                     "queries over the labels given, 1 in the highest; relative to this set only",
                     "slo", slo_text, "provenance_sha256", provenance_sha256, "labels",
                     arr ? arr : json_array());
}

/* ---- SVG ---- */

/* text escaped for XML */
static void add_text(jl__strbuf *b, const char *t)
{
    for (; t && *t; t++) {
        switch (*t) {
        case '<': jl__strbuf_printf(b, "&lt;"); break;
        case '>': jl__strbuf_printf(b, "&gt;"); break;
        case '&': jl__strbuf_printf(b, "&amp;"); break;
        case '"': jl__strbuf_printf(b, "&quot;"); break;
        default: jl__strbuf_printf(b, "%c", *t);
        }
    }
}

static void star(jl__strbuf *b, double cx, double cy, double r, int filled)
{
    jl__strbuf_printf(b, "<polygon points=\"");
    for (int k = 0; k < 10; k++) {
        double a = -M_PI / 2 + k * M_PI / 5, rr = k % 2 ? r * 0.45 : r;
        jl__strbuf_printf(b, "%.1f,%.1f ", cx + rr * cos(a), cy + rr * sin(a));
    }
    jl__strbuf_printf(b, "\" fill=\"%s\" stroke=\"#1b5e20\" stroke-width=\"1.5\"/>\n",
                      filled ? "#2e7d32" : "#ffffff");
}

char *jl_label_svg(const jl_label *l, const jl_summary *s, const char *slo_text,
                   const char *provenance_sha256, const char *date)
{
    return jl_label_svg_doc(l, s, slo_text, provenance_sha256, date, NULL);
}

char *jl_label_svg_doc(const jl_label *l, const jl_summary *s, const char *slo_text,
                       const char *provenance_sha256, const char *date, const char *doc_path)
{
    jl__strbuf b;
    jl__strbuf_init(&b);
    int diff = l->workload && !strcmp(l->workload, "diffusion");
    jl__strbuf_printf(&b,
                      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"400\" height=\"560\" "
                      "viewBox=\"0 0 400 560\" font-family=\"DejaVu Sans, Arial, sans-serif\">\n");
    jl__strbuf_printf(
        &b, "<rect x=\"1\" y=\"1\" width=\"398\" height=\"558\" rx=\"14\" fill=\"#ffffff\" "
            "stroke=\"#1b5e20\" stroke-width=\"2\"/>\n");
    jl__strbuf_printf(
        &b, "<rect x=\"1\" y=\"1\" width=\"398\" height=\"70\" rx=\"14\" fill=\"#1b5e20\"/>\n"
            "<rect x=\"1\" y=\"50\" width=\"398\" height=\"21\" fill=\"#1b5e20\"/>\n");
    jl__strbuf_printf(
        &b, "<text x=\"200\" y=\"45\" font-size=\"26\" font-weight=\"bold\" fill=\"#ffffff\" "
            "text-anchor=\"middle\">Energy label</text>\n");
    size_t len = l->model ? strlen(l->model) : 1;
    double fs = len > 30 ? 18.0 * 30 / (double)len : 18; /* a long name still fits */
    jl__strbuf_printf(&b,
                      "<text x=\"24\" y=\"108\" font-size=\"13\" fill=\"#555\">Model</text>\n"
                      "<text x=\"24\" y=\"130\" font-size=\"%.1f\" font-weight=\"bold\">",
                      fs < 9 ? 9 : fs);
    add_text(&b, l->model);
    jl__strbuf_printf(
        &b, "</text>\n<text x=\"24\" y=\"160\" font-size=\"13\" fill=\"#555\">Task</text>\n"
            "<text x=\"110\" y=\"160\" font-size=\"15\">");
    add_text(&b, l->task);
    jl__strbuf_printf(
        &b,
        "</text>\n<text x=\"24\" y=\"184\" font-size=\"13\" fill=\"#555\">Hardware</text>\n"
        "<text x=\"110\" y=\"184\" font-size=\"15\">%ld x ",
        l->num_gpus);
    add_text(&b, l->gpu_model ? l->gpu_model : "?");
    jl__strbuf_printf(
        &b,
        "</text>\n<text x=\"24\" y=\"208\" font-size=\"13\" fill=\"#555\">Config</text>\n"
        "<text x=\"110\" y=\"208\" font-size=\"15\">batch cap %ld, ",
        s->attrs.max_batch_size);
    add_text(&b, s->attrs.precision ? s->attrs.precision : "?");
    jl__strbuf_printf(
        &b, "</text>\n<text x=\"24\" y=\"232\" font-size=\"13\" fill=\"#555\">SLO</text>\n"
            "<text x=\"110\" y=\"232\" font-size=\"15\">");
    add_text(&b, slo_text ? slo_text : "none");
    jl__strbuf_printf(
        &b, "</text>\n<line x1=\"24\" y1=\"252\" x2=\"376\" y2=\"252\" stroke=\"#ccc\"/>\n");
    jl__strbuf_printf(&b,
                      "<text x=\"200\" y=\"300\" font-size=\"40\" font-weight=\"bold\" "
                      "text-anchor=\"middle\" fill=\"#1b5e20\">%.3g Wh</text>\n",
                      l->wh_per_1000);
    jl__strbuf_printf(
        &b,
        "<text x=\"200\" y=\"326\" font-size=\"14\" text-anchor=\"middle\" fill=\"#333\">"
        "GPU energy per 1,000 %s</text>\n",
        diff ? "images" : "queries");
    for (int k = 0; k < 5; k++)
        star(&b, 90 + k * 55, 385, 22, k < l->stars);
    jl__strbuf_printf(
        &b,
        "<text x=\"200\" y=\"432\" font-size=\"12\" text-anchor=\"middle\" fill=\"#333\">"
        "%d of 5 stars: relative to the %zu label%s of this task</text>\n",
        l->stars, l->task_models, l->task_models == 1 ? "" : "s");
    jl__strbuf_printf(
        &b,
        "<text x=\"200\" y=\"450\" font-size=\"12\" text-anchor=\"middle\" fill=\"#333\">"
        "in the data given (range %.3g-%.3g Wh)</text>\n",
        l->task_min, l->task_max);
    jl__strbuf_printf(&b, "<line x1=\"24\" y1=\"470\" x2=\"376\" y2=\"470\" stroke=\"#ccc\"/>\n");
    jl__strbuf_printf(
        &b,
        "<text x=\"24\" y=\"490\" font-size=\"12\" fill=\"#555\">joules %s%s%s</text>\n"
        "<text x=\"24\" y=\"506\" font-size=\"12\" fill=\"#555\">re-derive: joules verify ",
        jl_version(), date ? ", measured " : "", date ? date : "");
    char *q = jl_shell_quote(doc_path ? doc_path : "labels.json");
    add_text(&b, q ? q : "labels.json");
    free(q);
    jl__strbuf_puts(&b, "</text>\n");
    if (provenance_sha256)
        jl__strbuf_printf(
            &b,
            "<text x=\"24\" y=\"526\" font-size=\"10\" fill=\"#555\" "
            "font-family=\"DejaVu Sans Mono, monospace\">provenance sha256 %.32s</text>\n"
            "<text x=\"24\" y=\"540\" font-size=\"10\" fill=\"#555\" "
            "font-family=\"DejaVu Sans Mono, monospace\">%s</text>\n",
            provenance_sha256, provenance_sha256 + 32);
    jl__strbuf_printf(&b, "</svg>\n");
    return jl__strbuf_take(&b);
}
