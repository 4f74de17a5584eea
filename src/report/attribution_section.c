/* The report's page of energy per span (attribution.html; docs/attribute.md):
 * for every run of the report whose trace holds spans/, the class x layer
 * energy (stacked bars: identical layers should look alike), a timeline of
 * each second's energy under the counter's measured power, the sensor
 * block and the warnings, and data/attribution-<run>.json (the
 * joules.attribution/1 documents by class, layer and second). Runs without
 * spans are not mentioned; a run whose attribution fails gets a note. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "joules/attribution.h"
#include "joules/budget.h"
#include "joules/output.h"
#include "report/sections.h"

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#17becf",
                                      "#bcbd22", "#8c564b", "#bab0ac"};
#define N_PALETTE (sizeof palette / sizeof palette[0])

/* One colour per class across the page: a class's place among the class
 * attribution's rows (the table's order), the same in both figures. */
static const char *class_colour(const jl_attribution *by_class, const char *cls)
{
    for (size_t i = 0; by_class && cls && i < by_class->n_rows; i++)
        if (!strcmp(by_class->rows[i].key, cls))
            return palette[i % N_PALETTE];
    return "#777777";
}

/* Ticks for an axis over [0, top]: a 1-2-5 step giving 3-6 of them. */
static double tick_step(double top)
{
    if (!(top > 0) || !isfinite(top))
        return 1;
    double raw = top / 5, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/* The frame both figures share: the y axis with ticks, labels and grid
 * lines from 0 to top (its unit after the numbers), the x axis line and
 * its title. */
static void axes(jl__strbuf *b, double x0, double y0, double pw, double ph, double top,
                 const char *unit, const char *xtitle)
{
    double step = tick_step(top);
    for (double v = 0; v <= top * 1.0001; v += step) {
        double y = y0 + ph - ph * v / top;
        jl__strbuf_printf(b,
                          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                          "stroke=\"#e6e6e6\"/><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                          "y2=\"%.1f\" stroke=\"#555\"/><text x=\"%.1f\" y=\"%.1f\" "
                          "font-size=\"11\" text-anchor=\"end\">%.4g</text>\n",
                          x0, y, x0 + pw, y, x0 - 4, y, x0, y, x0 - 6, y + 4, v);
    }
    jl__strbuf_printf(
        b,
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\"/>"
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\"/>\n"
        "<text x=\"12\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" "
        "transform=\"rotate(-90 12 %.1f)\">%s</text>\n"
        "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%s</text>\n",
        x0, y0, x0, y0 + ph, x0, y0 + ph, x0 + pw, y0 + ph, y0 + ph / 2, y0 + ph / 2, unit,
        x0 + pw / 2, y0 + ph + 32, xtitle);
}

/* An x tick: a mark under the axis and its label. */
static void xtick(jl__strbuf *b, double x, double y, const char *label)
{
    jl__strbuf_printf(
        b,
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#555\"/>"
        "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%s</text>\n",
        x, y, x, y + 4, x, y + 16, label);
}

/* The key: a swatch and the class's name per row, right of the plot. */
static void key_row(jl__strbuf *b, double x, double y, const char *colour, const char *name)
{
    jl__strbuf_printf(b,
                      "<rect x=\"%.0f\" y=\"%.0f\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                      "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\">",
                      x, y, colour, x + 15, y + 9);
    jl__report_esc(b, name);
    jl__strbuf_puts(b, "</text>\n");
}

/* class x layer stacked bars from the by-name attribution */
static void layer_bars(jl__strbuf *b, const jl_attribution *byname, const jl_attribution *by_class)
{
    char cls[64][64];
    size_t n_cls = 0;
    int max_layer = -1;
    for (size_t i = 0; i < byname->n_rows; i++) {
        char c[64];
        int layer;
        const char *kind;
        jl_attribution_classify(NULL, byname->rows[i].key, c, sizeof c, &layer, &kind);
        if (layer < 0)
            continue;
        if (layer > max_layer)
            max_layer = layer;
        size_t k = 0;
        while (k < n_cls && strcmp(cls[k], c))
            k++;
        if (k == n_cls && n_cls < 64)
            snprintf(cls[n_cls++], sizeof cls[0], "%s", c);
    }
    if (max_layer < 0 || max_layer > 4096) {
        jl__strbuf_puts(b, "<p class=\"small muted\">No span named layerN.op: no layer "
                           "figure.</p>\n");
        return;
    }
    size_t L = (size_t)max_layer + 1;
    double *m = calloc(L * n_cls, sizeof *m), top = 0;
    if (!m)
        return;
    for (size_t i = 0; i < byname->n_rows; i++) {
        char c[64];
        int layer;
        const char *kind;
        jl_attribution_classify(NULL, byname->rows[i].key, c, sizeof c, &layer, &kind);
        for (size_t k = 0; layer >= 0 && k < n_cls; k++)
            if (!strcmp(cls[k], c))
                m[(size_t)layer * n_cls + k] += byname->rows[i].energy_j;
    }
    for (size_t l = 0; l < L; l++) {
        double s = 0;
        for (size_t k = 0; k < n_cls; k++)
            s += m[l * n_cls + k];
        top = fmax(top, s);
    }
    top = top > 0 ? ceil(top / tick_step(top)) * tick_step(top) : 1;
    const double W = 900, H = 280, x0 = 70, y0 = 14, pw = W - x0 - 160, ph = H - 62;
    jl__strbuf_printf(b,
                      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                      "role=\"img\" aria-label=\"energy per layer by class\">\n",
                      W, H);
    axes(b, x0, y0, pw, ph, top, "energy (J)", "layer");
    double bw = pw / (double)L;
    for (size_t l = 0; l < L; l++) {
        double y = y0 + ph;
        for (size_t k = 0; k < n_cls; k++) {
            double h = ph * m[l * n_cls + k] / top;
            y -= h;
            jl__strbuf_printf(b,
                              "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                              "fill=\"%s\"><title>layer %zu ",
                              x0 + (double)l * bw + 0.5, y, fmax(bw - 1, 0.5), h,
                              class_colour(by_class, cls[k]), l);
            jl__report_esc(b, cls[k]);
            jl__strbuf_printf(b, ": %.4g J</title></rect>\n", m[l * n_cls + k]);
        }
    }
    /* a tick per layer when they fit, else every k-th (and the last) */
    size_t every = 1;
    while (pw / (double)L * (double)every < 28)
        every = every == 1 ? 2 : every == 2 ? 5 : every * 2;
    for (size_t l = 0; l < L; l++)
        if (l % every == 0 || l == L - 1) {
            if (l == L - 1 && l % every && (double)(l % every) * bw < 24)
                continue; /* too near the last tick shown */
            char t[24];
            snprintf(t, sizeof t, "%zu", l);
            xtick(b, x0 + ((double)l + 0.5) * bw, y0 + ph, t);
        }
    for (size_t k = 0; k < n_cls; k++) /* the key in the stack's order, its top first */
        key_row(b, x0 + pw + 18, y0 + 14.0 * (double)(n_cls - 1 - k),
                class_colour(by_class, cls[k]), cls[k]);
    jl__strbuf_puts(b, "</svg>\n");
    free(m);
}

/* each bin's length (the last may be short) */
static double bin_len(const jl_attribution *t, size_t i)
{
    return fmin(t->time_bin_s, t->window[1] - t->rows[i].t0_s);
}

/* each bin: the energy of each class and the unattributed rest, as mean
 * power over the bin (the counter's measured power is the bar's top) */
static void timeline(jl__strbuf *b, const jl_attribution *t, const jl_attribution *by_class)
{
    double top = 0;
    for (size_t i = 0; i < t->n_rows; i++)
        top = fmax(top, (t->rows[i].energy_j + t->rows[i].unattributed_j) / bin_len(t, i));
    if (!(top > 0) || !t->n_rows)
        return;
    top = ceil(top / tick_step(top)) * tick_step(top);
    const double W = 900, H = 240, x0 = 70, y0 = 14, pw = W - x0 - 160, ph = H - 62;
    double bw = pw / (double)t->n_rows;
    size_t C = t->n_classes;
    jl__strbuf_printf(b,
                      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                      "role=\"img\" aria-label=\"power per second by class\">\n",
                      W, H);
    axes(b, x0, y0, pw, ph, top, "mean power (W)", "time in the run (s)");
    for (size_t i = 0; i < t->n_rows; i++) {
        const jl_attribution_row *r = &t->rows[i];
        double len = bin_len(t, i), y = y0 + ph, x = x0 + (double)i * bw + 0.5,
               w = fmax(bw - 1, 0.5);
        for (size_t c = 0; c <= C; c++) {
            double j = c < C ? t->row_class_j[i * C + c] : r->unattributed_j;
            double h = fmax(0, ph * j / len / top);
            y -= h;
            jl__strbuf_printf(b,
                              "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                              "fill=\"%s\"><title>%.3f s ",
                              x, y, w, h,
                              c < C ? class_colour(by_class, t->class_names[c]) : "#cccccc",
                              r->t0_s);
            jl__report_esc(b, c < C ? t->class_names[c] : "unattributed");
            jl__strbuf_printf(b, ": %.4g J (%.4g W)</title></rect>\n", j, j / len);
        }
    }
    /* time ticks: a 1-2-5 step over the window */
    double t0 = t->window[0], span = t->window[1] - t->window[0];
    double step = tick_step(span);
    for (double v = ceil(t0 / step) * step; span > 0 && v <= t->window[1] + 1e-9; v += step) {
        char lab[32];
        snprintf(lab, sizeof lab, "%.4g", v);
        xtick(b, x0 + pw * (v - t0) / span, y0 + ph, lab);
    }
    for (size_t c = 0; c <= C; c++) /* the key in the stack's order, its top first */
        key_row(b, x0 + pw + 18, y0 + 14.0 * (double)(C - c),
                c < C ? class_colour(by_class, t->class_names[c]) : "#cccccc",
                c < C ? t->class_names[c] : "unattributed");
    jl__strbuf_puts(b, "</svg>\n");
}

static void class_table(jl__strbuf *b, const jl_attribution *a)
{
    jl__strbuf_puts(b, "<table>\n<tr><th>class</th><th>energy J</th><th>interval J</th>"
                       "<th>share</th><th>static J</th><th>dynamic J</th><th>calls</th>"
                       "<th>J/token</th><th>peak W</th></tr>\n");
    for (size_t i = 0; i < a->n_rows; i++) {
        const jl_attribution_row *r = &a->rows[i];
        char e[48], lo[48], hi[48], st[48], dy[48], jt[48];
        jl__report_fmt_num(e, sizeof e, r->energy_j, 4);
        jl__report_fmt_num(lo, sizeof lo, r->energy_lo_j, 3);
        jl__report_fmt_num(hi, sizeof hi, r->energy_hi_j, 3);
        jl__report_fmt_num(st, sizeof st, r->static_j, 3);
        jl__report_fmt_num(dy, sizeof dy, r->dynamic_j, 3);
        jl__report_fmt_num(jt, sizeof jt, r->j_per_token, 3);
        jl__strbuf_puts(b, "<tr><td>");
        jl__report_esc(b, r->key);
        jl__strbuf_printf(b,
                          "</td><td>%s</td><td>[%s, %s]</td><td>%.1f %%</td><td>%s</td>"
                          "<td>%s</td><td>%zu</td><td>%s</td><td",
                          e, lo, hi, 100 * r->share, st, dy, r->calls, jt);
        if (isfinite(r->peak_w)) {
            jl__strbuf_printf(b, ">%.0f</td></tr>\n", r->peak_w);
        } else {
            jl__strbuf_puts(b, " title=\"");
            jl__report_esc(b, r->peak_reason);
            jl__strbuf_puts(b, "\">—</td></tr>\n");
        }
    }
    char u[48], s[48];
    jl__report_fmt_num(u, sizeof u, a->unattributed_j, 4);
    jl__report_fmt_num(s, sizeof s, a->stall_j, 4);
    jl__strbuf_printf(b,
                      "<tr><td>(unattributed)</td><td>%s</td><td></td><td>%.1f %%</td>"
                      "<td colspan=\"5\"></td></tr>\n<tr><td>(stalls)</td><td>%s</td><td></td>"
                      "<td>%.1f %%</td><td colspan=\"5\"></td></tr>\n</table>\n",
                      u, 100 * a->unattributed_j / a->window_energy_j, s,
                      100 * a->stall_j / a->window_energy_j);
}

/* --budgets: the per-class ceilings judged on the class rows */
static void budget_block(jl__strbuf *b, const jl_span_budget_result *r, const jl_budgets *bs,
                         const jl_attribution *a)
{
    jl__strbuf_puts(b, "<h3>Per-class budgets</h3>\n<p>");
    if (!r->n_budgets) {
        jl__strbuf_puts(b, "No budget with per-class ceilings selects this run.</p>\n");
        return;
    }
    jl__strbuf_printf(b, "Adherence: <b>%zu of %zu</b> rows determined pass", r->rows_pass,
                      r->rows_pass + r->rows_fail);
    if (isfinite(r->adherence))
        jl__strbuf_printf(b, " (%.1f %%)", 100 * r->adherence);
    jl__strbuf_printf(b,
                      "; %zu rows judged: %zu pass, %zu fail, %zu undetermined (the row's "
                      "interval crosses the ceiling), %zu unmeasured.</p>\n",
                      r->rows_judged, r->rows_pass, r->rows_fail, r->rows_undetermined,
                      r->rows_unmeasured);
    jl__strbuf_puts(b, "<table>\n<tr><th>class</th><th>figure</th><th>value</th>"
                       "<th>interval</th><th>ceiling</th><th>verdict</th><th>budget</th></tr>\n");
    for (size_t i = 0; i < r->n_checks; i++) {
        const jl_span_check *c = &r->checks[i];
        const char *v = jl_budget_verdict_name(c->verdict);
        const char *color = c->verdict == JL_BUDGET_PASS   ? "#1b7f3b"
                            : c->verdict == JL_BUDGET_FAIL ? "#b3261e"
                                                           : "#9a5b00";
        jl__strbuf_puts(b, "<tr><td>");
        jl__report_esc(b, a->rows[c->row].key);
        jl__strbuf_printf(b,
                          "</td><td>%s</td><td>%.4g</td><td>[%.4g, %.4g]</td><td>%.4g</td>"
                          "<td style=\"color:%s;font-weight:600\">%s</td><td>",
                          jl_span_figure_name(c->figure), c->value, c->lo, c->hi, c->max, color, v);
        jl__report_esc(b, jl_budgets_name(bs, c->budget));
        jl__strbuf_puts(b, "</td></tr>\n");
    }
    jl__strbuf_puts(b, "</table>\n");
    for (size_t i = 0; i < r->n_unmatched; i++) {
        jl__strbuf_puts(b, "<p class=\"small\"><b>No row</b> for the ceiling on class <code>");
        jl__report_esc(b, r->unmatched[i].cls);
        jl__strbuf_puts(b, "</code> of budget ");
        jl__report_esc(b, jl_budgets_name(bs, r->unmatched[i].budget));
        jl__strbuf_puts(b, ".</p>\n");
    }
}

/* the run's per-class adherence, a line for the budgets section */
static void span_line(jl__report_report *r, const char *run, const jl_span_budget_result *br)
{
    jl__strbuf b;
    jl__strbuf_init(&b);
    if (r->span_budget_lines)
        jl__strbuf_puts(&b, r->span_budget_lines);
    jl__strbuf_puts(&b, "<li><a href=\"attribution.html\"><code>");
    jl__report_esc(&b, run);
    jl__strbuf_printf(&b, "</code></a>: %zu of %zu class rows determined pass", br->rows_pass,
                      br->rows_pass + br->rows_fail);
    if (isfinite(br->adherence))
        jl__strbuf_printf(&b, " (%.1f %%)", 100 * br->adherence);
    jl__strbuf_printf(&b, "; %zu fail, %zu undetermined, %zu unmeasured", br->rows_fail,
                      br->rows_undetermined, br->rows_unmeasured);
    if (br->n_unmatched)
        jl__strbuf_printf(&b, "; %zu ceilings match no class", br->n_unmatched);
    jl__strbuf_puts(&b, "</li>");
    free(r->span_budget_lines);
    r->span_budget_lines = jl__strbuf_take(&b);
}

static void run_section(jl__strbuf *b, const char *file, const char *run, const char *data,
                        const jl_attribution *cls, const jl_attribution *byname,
                        const jl_attribution *t, const jl_span_budget_result *br,
                        const jl_budgets *bs)
{
    jl__strbuf_puts(b, "<section>\n<h2>");
    jl__report_esc(b, run);
    jl__strbuf_puts(b, " <span class=\"small muted\">");
    jl__report_esc(b, file);
    jl__strbuf_printf(b,
                      "</span></h2>\n<p>Window [%.3f, %.3f] s (%.2f s): %.1f J measured by the "
                      "%s; rows %.1f J + unattributed %.1f J + stalls %.1f J (residual %.2g J). "
                      "Static %.1f W per GPU (",
                      cls->window[0], cls->window[1], cls->window[1] - cls->window[0],
                      cls->window_energy_j, cls->energy_source, cls->attributed_j,
                      cls->unattributed_j, cls->stall_j, cls->residual_j, cls->static_w);
    jl__report_esc(b, cls->static_source);
    jl__strbuf_printf(b,
                      "). Sensor: counter every %.0f ms, %.0f ms late; instant power the last "
                      "%.0f ms, %.0f ms late (",
                      1e3 * cls->sensor.update_period_s, 1e3 * cls->sensor.energy_delay_s,
                      1e3 * cls->sensor.watts_window_s, 1e3 * cls->sensor.watts_delay_s);
    jl__report_esc(b, cls->sensor_source);
    jl__strbuf_puts(b, "). Weights: ");
    jl__report_esc(b, cls->weights);
    jl__strbuf_puts(b, cls->weights && strcmp(cls->weights, "equal")
                           ? " (from <code>--calibration</code>). Data: <a href=\""
                           : " (calibrated: <code>joules report --calibration FILE.h5</code>, "
                             "isolated loops of each class). Data: <a href=\"");
    jl__report_esc(b, data);
    jl__strbuf_puts(b, "\">");
    jl__report_esc(b, data);
    jl__strbuf_puts(b, "</a>.</p>\n");
    class_table(b, cls);
    if (br)
        budget_block(b, br, bs, cls);
    jl__strbuf_puts(b, "<h3>Energy per layer, by class</h3>\n");
    layer_bars(b, byname, cls);
    jl__strbuf_printf(b,
                      "<h3>Mean power per %.3g s from the counter, split by class "
                      "(and unattributed)</h3>\n",
                      t->time_bin_s);
    timeline(b, t, cls);
    if (cls->n_warnings) {
        jl__strbuf_puts(b, "<ul class=\"small\">\n");
        for (size_t i = 0; i < cls->n_warnings; i++) {
            jl__strbuf_printf(b,
                              "<li><b>%s</b>: ", jl_attribution_warning_name(cls->warnings[i].id));
            jl__report_esc(b, cls->warnings[i].message);
            jl__strbuf_puts(b, "</li>\n");
        }
        jl__strbuf_puts(b, "</ul>\n");
    }
    jl__strbuf_puts(b, "</section>\n");
}

jl_status jl__report_attribution_write(jl__report_report *r, jl_error **err)
{
    const jl_summary_list *l = r->l;
    jl__strbuf b;
    jl__strbuf_init(&b);
    size_t n_done = 0;
    jl_status st = JL_OK;
    for (size_t i = 0; !st && i < l->count; i++) {
        const jl_summary *s = l->items[i];
        if (!s->file || !s->run)
            continue;
        int seen = 0; /* each file once: its runs are looked at together */
        for (size_t j = 0; j < i && !seen; j++)
            seen = l->items[j]->file && !strcmp(l->items[j]->file, s->file);
        if (seen)
            continue;
        jl_trace *t = NULL;
        jl_error *e = NULL;
        if (jl_trace_open(s->file, NULL, &t, &e) != JL_OK) {
            jl_error_free(e);
            continue; /* the study reported it */
        }
        for (size_t k = 0; !st && k < jl_trace_run_count(t); k++) {
            const char *rn = jl_trace_run_name(t, k);
            int in_list = 0;
            for (size_t j = i; j < l->count && !in_list; j++)
                in_list = l->items[j]->file && !strcmp(l->items[j]->file, s->file) &&
                          l->items[j]->run && !strcmp(l->items[j]->run, rn);
            jl_spans *sp = NULL;
            if (!in_list || jl_trace_read_spans(t, k, &sp, &e) != JL_OK || !sp) {
                jl_error_free(e);
                e = NULL;
                continue;
            }
            jl_run *run = NULL;
            jl_sensor z;
            jl_sensor_init(&z);
            jl_attribution *a[3] = {NULL, NULL, NULL};
            static const jl_attribution_by by[3] = {JL_ATTRIBUTION_BY_CLASS, JL_ATTRIBUTION_BY_NAME,
                                                    JL_ATTRIBUTION_BY_TIME};
            int ok = jl_trace_read_run(t, k, &run, &e) == JL_OK &&
                     jl_trace_read_sensor(t, k, &z, &e) == JL_OK;
            for (int q = 0; ok && q < 3; q++) {
                jl_attribution_options o;
                jl_attribution_options_default(&o);
                o.by = by[q];
                o.weights = r->opt.weights; /* --calibration: calibrated, else equal */
                ok = jl_attribution_compute(run, sp, &z, &o, &a[q], &e) == JL_OK;
            }
            if (!ok) {
                char *m = e ? jl_error_format(e) : NULL;
                jl__report_note(r, "energy per span of %s: %s", rn, m ? m : "failed");
                free(m);
            } else {
                /* --budgets: the per-class ceilings on the class rows, judged
                 * with the run's summary for the selectors */
                jl_span_budget_result *br = NULL;
                const jl_summary *rs = NULL;
                for (size_t j = i; j < l->count && !rs; j++)
                    if (l->items[j]->file && !strcmp(l->items[j]->file, s->file) &&
                        l->items[j]->run && !strcmp(l->items[j]->run, rn))
                        rs = l->items[j];
                if (r->opt.budgets &&
                    jl_budgets_evaluate_spans(r->opt.budgets, rs, a[0], &br, &e) != JL_OK) {
                    char *m = e ? jl_error_format(e) : NULL;
                    jl__report_note(r, "per-class budgets of %s: %s", rn, m ? m : "failed");
                    free(m);
                }
                char data[600];
                snprintf(data, sizeof data, "data/attribution-%s.json", rn);
                /* a file name from the run's name: letters, digits, '.', '-'
                 * and '_' (it is a link in the page too) */
                for (char *c = data + 17; *c && strcmp(c, ".json"); c++)
                    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                          (*c >= '0' && *c <= '9') || *c == '.' || *c == '-' || *c == '_'))
                        *c = '_';
                json_t *doc = json_object();
                json_object_set_new(doc, "schema", json_string("joules.report-attribution/1"));
                json_t *bc = jl_attribution_document(a[0]);
                if (bc && br)
                    jl_span_budget_annotate(br, r->opt.budgets, bc);
                json_object_set_new(doc, "by_class", bc);
                json_object_set_new(doc, "by_name", jl_attribution_document(a[1]));
                json_object_set_new(doc, "by_second", jl_attribution_document(a[2]));
                st = jl__report_write_json(r, data, doc, err);
                json_decref(doc);
                if (!st)
                    st = jl__report_add_data(
                        r, data,
                        "energy per span class, name and second of a profiled run "
                        "(joules.attribution/1 documents)",
                        NULL);
                run_section(&b, s->file, rn, data, a[0], a[1], a[2], br, r->opt.budgets);
                if (br && br->n_budgets)
                    span_line(r, rn, br);
                jl_span_budget_result_free(br);
                n_done++;
            }
            jl_error_free(e);
            e = NULL;
            for (int q = 0; q < 3; q++)
                jl_attribution_free(a[q]);
            jl_sensor_clear(&z);
            jl_run_free(run);
            jl_spans_free(sp);
        }
        jl_trace_close(t);
    }
    if (!st && n_done) {
        jl__strbuf page;
        jl__strbuf_init(&page);
        jl__strbuf_puts(&page,
                        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                        "<title>Energy per span</title>\n<style>body{font-family:sans-serif;"
                        "max-width:960px;margin:auto}table{border-collapse:collapse}td,th{"
                        "padding:2px 8px;text-align:right}td:first-child{text-align:left}"
                        ".small{font-size:90%}.muted{color:#666}</style></head><body>\n"
                        "<h1>Energy per span</h1>\n<p>The energy the GPU's counter measured "
                        "over each profiled window, split among the profiler's spans (static "
                        "power by time, dynamic energy by device-busy time weighted per class: ");
        jl__strbuf_puts(&page, r->opt.weights ? "with the calibrated weights of --calibration"
                                              : "with equal weights, without --calibration");
        jl__strbuf_puts(&page,
                        "). Spans shorter than the sensor's update are apportioned, "
                        "not measured: every row has an interval, and peak power only where a "
                        "reading's window lies inside the row (attribute.md). "
                        "<a href=\"index.html\">Back to the report</a>.</p>\n");
        jl__strbuf_append(&page, b.data ? b.data : "", b.len);
        jl__strbuf_puts(&page, "</body></html>\n");
        st = jl__report_write_buf(r, "attribution.html", &page, err);
        jl__strbuf_free(&page);
    }
    jl__strbuf_free(&b);
    return st;
}
