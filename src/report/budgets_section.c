/* The report's budgets section (joules report --budgets FILE; docs/accounting.md,
 * "Budgets in the report"): every budget's ceilings judged per run and group as
 * `joules budget` judges them, data/budget.json (= `joules budget --budgets
 * FILE --json PATH...`), and the section's HTML kept in r->budgets_html for
 * the page (html.c puts it after "Every run", with its line in the
 * contents). Per-class ceilings ("spans") are judged on the profiled runs
 * in attribution.html (attribution_section.c). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joules/budget.h"
#include "joules/output.h"
#include "report/sections.h"

/* a verdict as the page's tag */
static void tag(jl__strbuf *b, const char *v)
{
    const char *cls = !v                           ? ""
                      : !strcmp(v, "pass")         ? " good"
                      : !strcmp(v, "fail")         ? " bad"
                      : !strcmp(v, "undetermined") ? " warn"
                                                   : "";
    jl__strbuf_printf(b, "<span class=\"tag%s\">", cls);
    jl__report_esc(b, v ? v : "-");
    jl__strbuf_puts(b, "</span>");
}

static const char *str(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static long long num_i(const json_t *o, const char *k)
{
    return (long long)json_integer_value(json_object_get(o, k));
}

/* the ceilings judged in one budget's runs, in order of first sight */
static size_t ceilings_of(const json_t *runs, const char **names, size_t cap)
{
    size_t n = 0, i;
    const json_t *run;
    json_array_foreach(runs, i, run) {
        const char *k;
        const json_t *v;
        json_object_foreach(json_object_get(run, "checks"), k, v) {
            size_t j = 0;
            while (j < n && strcmp(names[j], k))
                j++;
            if (j == n && n < cap)
                names[n++] = k;
        }
    }
    return n;
}

static void budget_block(jl__strbuf *b, const json_t *bj, const jl_budgets *bs, size_t bi,
                         const char *span_lines)
{
    jl__strbuf_puts(b, "<h3>");
    jl__report_esc(b, str(bj, "name"));
    jl__strbuf_puts(b, "</h3>\n");
    const json_t *groups = json_object_get(bj, "groups"), *runs = json_object_get(bj, "runs");
    if (!jl_budgets_run_ceilings(bs, bi)) {
        jl__strbuf_printf(b,
                          "<p class=\"small muted\">Per span class only (%zu ceilings): judged on "
                          "the profiled runs' rows in <a href=\"attribution.html\">"
                          "attribution.html</a> and by <code>joules attribute --budgets</code>."
                          "</p>\n",
                          jl_budgets_span_ceilings(bs, bi));
        if (span_lines)
            jl__strbuf_printf(b, "<ul class=\"small\">%s</ul>\n", span_lines);
        return;
    }
    if (!json_array_size(runs)) {
        jl__strbuf_puts(b, "<p class=\"small muted\">No run of the report is selected by this "
                           "budget.</p>\n");
        return;
    }
    /* the groups */
    jl__strbuf_puts(b, "<div class=\"tablewrap\"><table><thead><tr><th>model</th><th>task</th>"
                       "<th>GPU</th><th class=\"n\">GPUs</th><th class=\"n\">runs</th>"
                       "<th class=\"n\">pass</th><th class=\"n\">fail</th>"
                       "<th class=\"n\">undetermined</th><th>group verdict</th></tr></thead>"
                       "<tbody>\n");
    size_t i;
    const json_t *g;
    json_array_foreach(groups, i, g) {
        jl__strbuf_puts(b, "<tr><td>");
        jl__report_esc(b, str(g, "model") ? str(g, "model") : "-");
        jl__strbuf_puts(b, "</td><td>");
        jl__report_esc(b, str(g, "task") ? str(g, "task") : "-");
        jl__strbuf_puts(b, "</td><td>");
        jl__report_esc(b, str(g, "gpu_model") ? str(g, "gpu_model") : "-");
        jl__strbuf_printf(b,
                          "</td><td class=\"n\">%lld</td><td class=\"n\">%lld</td>"
                          "<td class=\"n\">%lld</td><td class=\"n\">%lld</td>"
                          "<td class=\"n\">%lld</td><td>",
                          num_i(g, "num_gpus"), num_i(g, "runs"), num_i(g, "pass"),
                          num_i(g, "fail"), num_i(g, "undetermined"));
        tag(b, str(g, "verdict"));
        jl__strbuf_puts(b, "</td></tr>\n");
    }
    jl__strbuf_puts(b, "</tbody></table></div>\n");
    /* the runs: each ceiling's figure, interval and ceiling */
    const char *names[16];
    size_t nc = ceilings_of(runs, names, 16);
    jl__strbuf_puts(b, "<div class=\"tablewrap\"><table><thead><tr><th>run</th><th>GPU</th>"
                       "<th class=\"n\">batch</th>");
    for (size_t c = 0; c < nc; c++) {
        jl__strbuf_puts(b, "<th class=\"n\">");
        jl__report_esc(b, names[c]);
        jl__strbuf_puts(b, "<span class=\"unit\">figure &le; ceiling, [interval]</span></th>");
    }
    jl__strbuf_puts(b, "<th>run verdict</th></tr></thead><tbody>\n");
    const json_t *run;
    json_array_foreach(runs, i, run) {
        const char *file = str(run, "file"), *slash = file ? strrchr(file, '/') : NULL;
        jl__strbuf_puts(b, "<tr><td>");
        jl__report_esc(b, slash ? slash + 1 : file);
        jl__strbuf_puts(b, " · <code>");
        jl__report_esc(b, str(run, "run"));
        jl__strbuf_puts(b, "</code></td><td>");
        jl__report_esc(b, str(run, "gpu_model") ? str(run, "gpu_model") : "-");
        const json_t *mb = json_object_get(run, "max_batch_size");
        if (json_is_integer(mb))
            jl__strbuf_printf(b, "</td><td class=\"n\">%lld</td>",
                              (long long)json_integer_value(mb));
        else
            jl__strbuf_puts(b, "</td><td class=\"n\">-</td>");
        const json_t *checks = json_object_get(run, "checks");
        for (size_t c = 0; c < nc; c++) {
            const json_t *k = json_object_get(checks, names[c]);
            jl__strbuf_puts(b, "<td class=\"n\">");
            double v = json_number_value(json_object_get(k, "value"));
            if (!k) {
                jl__strbuf_puts(b, "-");
            } else if (!json_is_number(json_object_get(k, "value")) || !isfinite(v)) {
                jl__strbuf_printf(b, "not measured &le; %.4g ",
                                  json_number_value(json_object_get(k, "max")));
                tag(b, str(k, "verdict"));
            } else {
                jl__strbuf_printf(b, "%.4g &le; %.4g ", v,
                                  json_number_value(json_object_get(k, "max")));
                tag(b, str(k, "verdict"));
                jl__strbuf_printf(b, "<br><span class=\"small muted\">[%.4g, %.4g]</span>",
                                  json_number_value(json_object_get(k, "lo")),
                                  json_number_value(json_object_get(k, "hi")));
            }
            jl__strbuf_puts(b, "</td>");
        }
        jl__strbuf_puts(b, "<td>");
        tag(b, str(run, "verdict"));
        jl__strbuf_puts(b, "</td></tr>\n");
    }
    jl__strbuf_puts(b, "</tbody></table></div>\n");
}

jl_status jl__report_budgets_write(jl__report_report *r, jl_error **err)
{
    const jl_budgets *bs = r->opt.budgets;
    if (!bs)
        return JL_OK;
    jl_budget_result *res = NULL;
    jl_status st = jl_budgets_evaluate(bs, r->l, &res, err);
    if (st)
        return st;
    json_t *doc = jl_budget_document(res, bs, r->l);
    if (!doc) {
        jl_budget_result_free(res);
        return jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    }
    /* the page reads the document before it is written (written takes it) */
    json_incref(doc);
    const char *path = r->opt.budgets_path ? r->opt.budgets_path : "FILE";
    char *cmd = jl__asprintf("joules budget --budgets %s --json PATH...", path);
    st = jl__report_write_json_with_errors(r, "data/budget.json", doc, err);
    if (!st)
        st = jl__report_add_data(r, "data/budget.json",
                                 "joules.budget/1: every budget's ceilings judged per run and "
                                 "group, the adherence rate",
                                 cmd);
    free(cmd);

    jl__strbuf b;
    jl__strbuf_init(&b);
    size_t judged = res->runs_pass + res->runs_fail + res->runs_undetermined;
    jl__strbuf_puts(&b, "<p class=\"lead\">");
    if (judged)
        jl__strbuf_printf(&b,
                          "Adherence: <strong>%zu of %zu</strong> runs judged pass "
                          "(<strong>%.1f %%</strong>); %zu fail, %zu undetermined",
                          res->runs_pass, judged, 100 * res->adherence, res->runs_fail,
                          res->runs_undetermined);
    else
        jl__strbuf_puts(&b, "No run of the report is judged by a per-run ceiling");
    jl__strbuf_printf(&b, ", %zu unmeasured (the run lacks the figure).</p>\n",
                      res->runs_unmeasured);
    jl__strbuf_puts(&b, "<div class=\"cards\">");
    jl__strbuf_printf(&b, "<div class=\"card\"><div class=\"k\">adherence</div><div class=\"v\">");
    if (judged)
        jl__strbuf_printf(&b, "%.1f<span class=\"u\">%%</span>", 100 * res->adherence);
    else
        jl__strbuf_puts(&b, "-");
    jl__strbuf_printf(&b,
                      "</div></div><div class=\"card\"><div class=\"k\">pass</div>"
                      "<div class=\"v\">%zu</div></div><div class=\"card\"><div class=\"k\">"
                      "fail</div><div class=\"v\">%zu</div></div><div class=\"card\"><div "
                      "class=\"k\">undetermined</div><div class=\"v\">%zu</div></div></div>\n",
                      res->runs_pass, res->runs_fail, res->runs_undetermined);
    jl__strbuf_puts(&b, "<p class=\"small\">The budgets file <code>");
    jl__report_esc(&b, path);
    jl__strbuf_puts(&b,
                    "</code> judged as <code>joules budget</code> judges it: each figure gets "
                    "the interval value &times; (1 &plusmn; u), u the budget's uncertainty "
                    "(default 5 %) or the run's counter-vs-integral disagreement when larger; a "
                    "ceiling passes when the interval's top is at or under it, fails when its "
                    "bottom is above it, and is undetermined when the interval crosses it. A "
                    "run's verdict is the worst of its ceilings, a group's (model, task, GPU "
                    "model, GPU count) the worst of its runs; adherence = runs passing / runs "
                    "judged. Data: <a href=\"data/budget.json\">data/budget.json</a> "
                    "(accounting.md, \"Budgets\").</p>\n");
    const json_t *arr = json_object_get(doc, "budgets");
    for (size_t i = 0; i < json_array_size(arr); i++)
        budget_block(&b, json_array_get(arr, i), bs, i, r->span_budget_lines);
    json_decref(doc);
    jl_budget_result_free(res);
    free(r->budgets_html);
    r->budgets_html = jl__strbuf_take(&b);
    if (!st && !r->budgets_html)
        st = jl_fail(err, JL_ENOMEM, NULL, NULL, NULL, -1, "out of memory");
    return st;
}
