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
    for (size_t i = 0; i < ls->n_refused; i++)
        free(ls->refused[i]);
    free(ls->refused);
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

/* The AI Energy Score's text-generation classes (its documentation, "Text
 * Generation Model Classes"): the largest model one consumer GPU (24 GB),
 * one cloud GPU (80 GB) holds at FP16 with 20 % overhead. */
#define CLASS_A_MAX_PARAMS 20e9
#define CLASS_B_MAX_PARAMS 66e9

const char *jl_label_size_class(const jl_summary *s)
{
    if (!jl_attrs_is_llm(&s->attrs))
        return "";
    double p = s->attrs.total_params;
    if (!(isfinite(p) && p > 0))
        return "?";
    return p <= CLASS_A_MAX_PARAMS ? "A" : p <= CLASS_B_MAX_PARAMS ? "B" : "C";
}

/* Does every condition of slo name a figure of s's workload? */
static int slo_applies(const jl_slo *slo, const jl_summary *s)
{
    for (size_t i = 0; i < slo->n; i++)
        if (jl_slo_cond_figure(&slo->conds[i], s) < 0)
            return 0;
    return 1;
}

static int cap_known(const jl_summary *s);

jl_status jl_labels(const jl_summary_list *runs, const jl_slo *const *slos, size_t n_slos,
                    jl_label_set *out, jl_error **err)
{
    return jl_labels_at(runs, slos, n_slos, NULL, out, err);
}

static int same_boundary(const jl_counted *a, const jl_counted *b)
{
    return a->boundary.window == b->boundary.window && a->boundary.scope == b->boundary.scope;
}

jl_status jl_labels_at(const jl_summary_list *runs, const jl_slo *const *slos, size_t n_slos,
                       const jl_account_boundary *bound, jl_label_set *out, jl_error **err)
{
    memset(out, 0, sizeof *out);
    if (bound && bound->scope == JL_SCOPE_FACILITY)
        return jl_fail(err, JL_EUSAGE, NULL, NULL, NULL, -1,
                       "--scope facility: a label counts measured energy (x PUE is the "
                       "accounts' of emissions and card)");
    out->items = calloc(runs->count ? runs->count : 1, sizeof *out->items);
    if (!out->items)
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    for (size_t i = 0; i < runs->count; i++) {
        const jl_summary *s = runs->items[i];
        if (!s->attrs.model || !s->attrs.task)
            continue;
        /* the SLOs of the run's own workload: those whose figures it has
         * (an ITL SLO does not apply to a diffusion run) */
        int ok = 1, any = 0;
        for (size_t k = 0; k < n_slos && ok; k++) {
            jl_slo_result v =
                slo_applies(slos[k], s) ? jl_slo_eval(slos[k], s, NULL) : JL_SLO_MISSING;
            if (v == JL_SLO_MISSING)
                continue;
            any = 1;
            ok = v == JL_SLO_PASS;
        }
        if (n_slos && !any) {
            out->skipped_no_slo++;
            continue;
        }
        if (!ok)
            continue;
        jl_counted c;
        jl_error *e = NULL;
        if (jl_account_count(s, bound, &c, &e) != JL_OK) {
            /* the defaults never refuse a run that has energy: a run with
             * none is no label; an explicit boundary it lacks is said */
            char *m =
                bound && (bound->window >= 0 || bound->scope >= 0) ? jl_error_format(e) : NULL;
            jl_error_free(e);
            if (m) {
                char **nr = realloc(out->refused, (out->n_refused + 1) * sizeof *nr);
                if (!nr) {
                    free(m);
                    jl_label_set_clear(out);
                    return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
                }
                out->refused = nr;
                out->refused[out->n_refused++] = m;
            }
            continue;
        }
        double e_q = isfinite(c.per_request_j) ? c.per_request_j : c.per_item_j;
        if (!isfinite(e_q))
            continue;
        jl_label *l = NULL;
        for (size_t j = 0; j < out->n && !l; j++) {
            const jl_label *x = &out->items[j];
            if (jl__str_eq_or_null(x->model, s->attrs.model) &&
                jl__str_eq_or_null(x->task, s->attrs.task) &&
                jl__str_eq_or_null(x->gpu_model, s->attrs.gpu_model) &&
                x->num_gpus == s->attrs.num_gpus && same_boundary(&x->counted, &c))
                l = &out->items[j];
        }
        double wh = e_q * 1000 / 3600;
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
            l->counted = c;
        }
    }
    for (size_t j = 0; j < out->n; j++) {
        jl_label *l = &out->items[j];
        const jl_summary *s = runs->items[l->run];
        snprintf(l->size_class, sizeof l->size_class, "%s", jl_label_size_class(s));
        l->cap_unknown = !cap_known(s);
        jl_boundary g = {l->counted.boundary.window, JL_SCOPE_GPU};
        double gq = jl_summary_energy(s, g, JL_PER_REQUEST);
        if (!isfinite(gq))
            gq = jl_summary_energy(s, g, JL_PER_ITEM);
        l->gpu_wh_per_1000 = gq * 1000 / 3600;
    }
    /* stars among the labels of the same task, GPU model, size class and
     * boundary: five equal bands of their range */
    for (size_t j = 0; j < out->n; j++) {
        jl_label *l = &out->items[j];
        l->task_min = INFINITY;
        l->task_max = -INFINITY;
        l->task_models = 0;
        for (size_t k = 0; k < out->n; k++) {
            const jl_label *x = &out->items[k];
            if (!jl__str_eq_or_null(x->task, l->task) ||
                !jl__str_eq_or_null(x->gpu_model, l->gpu_model) ||
                strcmp(x->size_class, l->size_class) || !same_boundary(&x->counted, &l->counted))
                continue;
            l->task_min = x->wh_per_1000 < l->task_min ? x->wh_per_1000 : l->task_min;
            l->task_max = x->wh_per_1000 > l->task_max ? x->wh_per_1000 : l->task_max;
            l->task_models++;
        }
        /* one label has nothing to be compared with: not rated */
        l->stars =
            l->task_models < 2 ? 0 : jl_label_stars(l->wh_per_1000, l->task_min, l->task_max);
    }
    return JL_OK;
}

void jl_provenance_hash(const json_t *provenance, char hex[65])
{
    json_t *c = json_copy((json_t *)provenance), *cmd = json_array();
    if (c && cmd) {
        json_object_del(c, "created");
        /* where the outputs went does not change them, in any spelling
         * (-o F, -oF, --output=F, --csv F, --runs-out F; verify moves them
         * and leaves --force out) */
        static const char *const outs[] = {"--output", "--csv", "--runs-out"};
        const json_t *argv = json_object_get(provenance, "command");
        for (size_t i = 0; i < json_array_size(argv); i++) {
            const char *a = json_string_value(json_array_get(argv, i));
            int skip = a && (!strcmp(a, "-o") || !strcmp(a, "--force")) ? 1 + !strcmp(a, "-o")
                       : a && !strncmp(a, "-o", 2) && a[2] != '-'       ? 1
                                                                        : 0;
            for (size_t k = 0; a && !skip && k < sizeof outs / sizeof outs[0]; k++) {
                size_t n = strlen(outs[k]);
                if (!strncmp(a, outs[k], n))
                    skip = a[n] == '=' ? 1 : !a[n] ? 2 : 0;
            }
            if (skip) {
                i += (size_t)skip - 1;
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

/* Is the run's batch cap known? Importers that had to fill the format's
 * required @max_batch_size without one list it in @unknown_attributes
 * (MLPerf's Offline and Server scenarios). */
static int cap_known(const jl_summary *s)
{
    return jl_attrs_known(&s->attrs, "max_batch_size");
}

/* "GPU energy per 1,000 queries, whole run" */
static void energy_words(const jl_label *l, char *buf, size_t cap)
{
    int diff = l->workload && !strcmp(l->workload, "diffusion");
    snprintf(buf, cap, "%s energy per 1,000 %s, %s", jl_scope_words(l->counted.boundary.scope),
             diff ? "images" : "queries", jl_window_words(l->counted.boundary.window));
}

json_t *jl_label_document(const jl_label_set *ls, const jl_summary_list *runs, const char *slo_text,
                          const char *provenance_sha256)
{
    json_t *arr = json_array(), *refused = json_array();
    for (size_t i = 0; arr && i < ls->n; i++) {
        const jl_label *l = &ls->items[i];
        const jl_summary *s = runs->items[l->run];
        json_t *o = jl_run_key_to_json(s);
        if (!o || json_array_append_new(arr, o)) {
            json_decref(arr);
            json_decref(refused);
            return NULL;
        }
        int diff = l->workload && !strcmp(l->workload, "diffusion");
        char words[160];
        energy_words(l, words, sizeof words);
        json_object_set_new(o, "wh_per_1000", jl_json_number(l->wh_per_1000));
        json_object_set_new(o, "gpu_wh_per_1000", jl_json_number(l->gpu_wh_per_1000));
        json_object_set_new(o, "energy", json_string(words));
        json_object_set_new(o, "boundary",
                            json_pack("{s:s,s:s}", "window",
                                      jl_window_name(l->counted.boundary.window), "scope",
                                      jl_scope_name(l->counted.boundary.scope)));
        json_object_set_new(o, "left_out", jl_counted_left_out_to_json(&l->counted));
        json_object_set_new(o, "per", json_string(diff ? "1000 images" : "1000 queries"));
        json_object_set_new(o, "size_class",
                            l->size_class[0] ? json_string(l->size_class) : json_null());
        json_object_set_new(o, "batch_cap",
                            cap_known(s) ? json_integer(s->attrs.max_batch_size) : json_null());
        json_object_set_new(o, "stars", l->stars ? json_integer(l->stars) : json_null());
        json_object_set_new(o, "stars_relative_to",
                            json_pack("{s:s?,s:s?,s:o,s:{s:s,s:s},s:I,s:o,s:o}", "task", l->task,
                                      "gpu_model", l->gpu_model, "size_class",
                                      l->size_class[0] ? json_string(l->size_class) : json_null(),
                                      "boundary", "window",
                                      jl_window_name(l->counted.boundary.window), "scope",
                                      jl_scope_name(l->counted.boundary.scope), "labels",
                                      (json_int_t)l->task_models, "min_wh",
                                      jl_json_number(l->task_min), "max_wh",
                                      jl_json_number(l->task_max)));
        json_object_set_new(o, "energy_per_token_j", jl_json_number(l->counted.per_token_j));
        json_object_set_new(o, "median_itl_s", jl_json_number(s->fig[JL_FIG_MEDIAN_ITL_S]));
    }
    for (size_t i = 0; refused && i < ls->n_refused; i++)
        json_array_append_new(refused, json_string(ls->refused[i]));
    return json_pack(
        "{s:s,s:s,s:s,s:s?,s:s?,s:o,s:I,s:o}", "schema", "joules.label/1", "stars_rule",
        "the AI Energy Score's: 5 stars in the lowest fifth of the range of Wh per 1,000 queries "
        "of the labels of the same task, GPU model, size class (text generation) and boundary "
        "in the data given, 1 in the highest; relative to this set only; a label alone in its "
        "group is not rated (null)",
        "size_class_rule",
        "text generation (llm, mllm), by total_params: A <= 20 B (one consumer GPU), B <= 66 B "
        "(one cloud GPU), C larger (several cloud GPUs); ? unknown",
        "slo", slo_text, "provenance_sha256", provenance_sha256, "labels", arr ? arr : json_array(),
        "skipped_no_slo", (json_int_t)ls->skipped_no_slo, "refused",
        refused ? refused : json_array());
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
    if (l->size_class[0])
        jl__strbuf_printf(&b, ", class %s (%s)", l->size_class,
                          !strcmp(l->size_class, "A")   ? "&lt;= 20 B params"
                          : !strcmp(l->size_class, "B") ? "&lt;= 66 B params"
                          : !strcmp(l->size_class, "C") ? "&gt; 66 B params"
                                                        : "params unknown");
    jl__strbuf_printf(
        &b,
        "</text>\n<text x=\"24\" y=\"184\" font-size=\"13\" fill=\"#555\">Hardware</text>\n"
        "<text x=\"110\" y=\"184\" font-size=\"15\">%ld x ",
        l->num_gpus);
    add_text(&b, l->gpu_model ? l->gpu_model : "?");
    jl__strbuf_printf(
        &b, "</text>\n<text x=\"24\" y=\"208\" font-size=\"13\" fill=\"#555\">Config</text>\n"
            "<text x=\"110\" y=\"208\" font-size=\"15\">");
    if (cap_known(s))
        jl__strbuf_printf(&b, "batch cap %ld, ", s->attrs.max_batch_size);
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
    char words[160];
    energy_words(l, words, sizeof words);
    jl__strbuf_printf(&b, "<text x=\"200\" y=\"326\" font-size=\"14\" text-anchor=\"middle\" "
                          "fill=\"#333\">");
    add_text(&b, words);
    jl__strbuf_printf(&b, "</text>\n");
    if (!l->stars) {
        /* alone in its group: no stars drawn, and why */
        jl__strbuf_printf(
            &b,
            "<text x=\"200\" y=\"392\" font-size=\"16\" text-anchor=\"middle\" fill=\"#333\">"
            "not rated</text>\n"
            "<text x=\"200\" y=\"432\" font-size=\"12\" text-anchor=\"middle\" fill=\"#333\">"
            "the only label of this task, GPU%s in the data given:</text>\n"
            "<text x=\"200\" y=\"450\" font-size=\"12\" text-anchor=\"middle\" fill=\"#333\">"
            "nothing to compare it with</text>\n",
            l->size_class[0] ? " and class" : "");
    } else {
        for (int k = 0; k < 5; k++)
            star(&b, 90 + k * 55, 385, 22, k < l->stars);
        jl__strbuf_printf(
            &b,
            "<text x=\"200\" y=\"432\" font-size=\"12\" text-anchor=\"middle\" fill=\"#333\">"
            "%d of 5 stars: relative to the %zu labels of this task, GPU%s</text>\n",
            l->stars, l->task_models, l->size_class[0] ? " and class" : "");
        jl__strbuf_printf(
            &b,
            "<text x=\"200\" y=\"450\" font-size=\"12\" text-anchor=\"middle\" fill=\"#333\">"
            "in the data given (range %.3g-%.3g Wh)</text>\n",
            l->task_min, l->task_max);
    }
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
