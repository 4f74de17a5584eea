/* index.html: one self-contained page. No JavaScript, no network: CSS in a
 * <style> element, figures inlined as SVG (their ids prefixed per figure so
 * several gnuplot SVGs can share a page). Numbers rounded for people (3
 * significant digits); the CSVs in data/ keep full precision. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "joules/diagnose.h"
#include "joules/frontier.h"
#include "joules/output.h"
#include "joules/version.h"
#include "report/knobs.h"
#include "report/report_internal.h"
#include "report/sections.h"

static void jl__report_html_escape(jl__strbuf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': jl__strbuf_puts(b, "&amp;"); break;
        case '<': jl__strbuf_puts(b, "&lt;"); break;
        case '>': jl__strbuf_puts(b, "&gt;"); break;
        case '"': jl__strbuf_puts(b, "&quot;"); break;
        default: jl__strbuf_append(b, s, 1);
        }
    }
}

#define H(s) jl__report_html_escape(b, (s))
#define P(s) jl__strbuf_puts(b, (s))

static const char *css =
    ":root{--fg:#1d2733;--muted:#5b6776;--line:#dde3ea;--bg:#ffffff;--soft:#f4f7fa;--accent:#0b5fa5;--warn:#9a5b00;--bad:#b3261e;--good:#1b7f3b}\n"
    "*{box-sizing:border-box}\n"
    "html{font-size:15px}\n"
    "body{margin:0;color:var(--fg);background:var(--bg);font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif;line-height:1.5}\n"
    "header.top{background:#0f2a44;color:#fff;padding:1.6rem 0 1.3rem}\n"
    "header.top h1{margin:0;font-size:1.7rem;font-weight:650;letter-spacing:.01em}\n"
    "header.top p{margin:.35rem 0 0;color:#c9d6e3}\n"
    ".wrap{max-width:1180px;margin:0 auto;padding:0 1.5rem}\n"
    "nav.toc{background:var(--soft);border:1px solid var(--line);border-radius:8px;padding:.8rem 1.2rem;margin:1.4rem 0}\n"
    "nav.toc h2{font-size:.95rem;margin:0 0 .3rem;text-transform:uppercase;letter-spacing:.06em;color:var(--muted)}\n"
    "nav.toc ol{margin:0;padding-left:1.3rem;columns:2;column-gap:2.5rem}\n"
    "nav.toc ol ol{columns:1}\n"
    "nav.toc a{color:var(--accent);text-decoration:none}\n"
    "nav.toc a:hover{text-decoration:underline}\n"
    "section{margin:2.2rem 0;padding-top:.4rem;border-top:1px solid var(--line)}\n"
    "h2{font-size:1.4rem;margin:.8rem 0 .6rem}\n"
    "h3{font-size:1.1rem;margin:1.3rem 0 .5rem}\n"
    "p.lead{font-size:1.08rem;margin:.2rem 0 .9rem}\n"
    ".muted{color:var(--muted)}\n"
    ".small{font-size:.87rem}\n"
    "code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.88em;background:var(--soft);padding:.05em .3em;border-radius:3px}\n"
    ".cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(168px,1fr));gap:.7rem;margin:.8rem 0 1rem}\n"
    ".card{border:1px solid var(--line);border-radius:8px;padding:.55rem .8rem;background:#fff}\n"
    ".card .k{font-size:.78rem;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}\n"
    ".card .v{font-size:1.35rem;font-weight:650;font-variant-numeric:tabular-nums}\n"
    ".card .u{font-size:.85rem;color:var(--muted);margin-left:.2rem;font-weight:400}\n"
    ".tablewrap{overflow-x:auto;margin:.6rem 0 1rem;border:1px solid var(--line);border-radius:6px}\n"
    "table{border-collapse:collapse;width:100%;font-size:.88rem;font-variant-numeric:tabular-nums}\n"
    "th,td{padding:.32rem .55rem;border-bottom:1px solid var(--line);text-align:left;vertical-align:top;white-space:nowrap}\n"
    "th{background:var(--soft);font-weight:600;position:sticky;top:0}\n"
    "th .unit{display:block;font-weight:400;color:var(--muted);font-size:.8em}\n"
    "td.n,th.n{text-align:right}\n"
    "tr.pick td{background:#eef6ee}\n"
    "tr:last-child td{border-bottom:none}\n"
    "td.wrap{white-space:normal;min-width:14rem}\n"
    "table.answer th,table.answer td{white-space:normal}\n"
    "table.answer td.n{white-space:nowrap}\n"
    ".tag{display:inline-block;font-size:.75rem;padding:0 .4rem;border-radius:999px;border:1px solid var(--line);color:var(--muted);margin-left:.25rem}\n"
    ".tag.good{color:var(--good);border-color:#a9d8b7}\n"
    ".tag.warn{color:var(--warn);border-color:#e8c48f}\n"
    ".tag.bad{color:var(--bad);border-color:#eba9a4}\n"
    "ul.findings{margin:.3rem 0 1rem;padding-left:1.2rem}\n"
    "ul.findings li{margin:.25rem 0}\n"
    ".note{border-left:4px solid var(--warn);background:#fff8ec;padding:.6rem .9rem;margin:.8rem 0;border-radius:0 6px 6px 0}\n"
    ".note.err{border-color:var(--bad);background:#fdf0ef}\n"
    "figure{margin:1.2rem 0 1.6rem;border:1px solid var(--line);border-radius:8px;padding:.8rem;background:#fff}\n"
    "figure img{display:block;width:100%;height:auto;max-width:960px;margin:0 auto}\n"
    "figure .ftitle{font-weight:600;margin:0 0 .4rem}\n"
    "table.answer td.c{white-space:nowrap}\n"
    "figcaption{font-size:.9rem;color:var(--fg);margin-top:.5rem}\n"
    "figcaption .files{display:block;color:var(--muted);font-size:.82rem;margin-top:.2rem}\n"
    "figcaption a,.files a{color:var(--accent)}\n"
    ".grid2{display:grid;grid-template-columns:1fr 1fr;gap:1rem}\n"
    "@media (max-width:900px){.grid2{grid-template-columns:1fr}nav.toc ol{columns:1}}\n"
    "footer{color:var(--muted);font-size:.85rem;margin:2rem 0 3rem}\n"
    "@media print{nav.toc{display:none}figure{break-inside:avoid}}\n";

/* ---- numbers --------------------------------------------------------------------- */

static void num(jl__strbuf *b, double v, double scale, int sig)
{
    char buf[64];
    jl__report_fmt_num(buf, sizeof buf, v * scale, sig);
    P(buf);
}

static void td_num(jl__strbuf *b, double v, double scale, int sig)
{
    P("<td class=\"n\">");
    num(b, v, scale, sig);
    P("</td>");
}

static void th(jl__strbuf *b, const char *name, const char *unit, int numeric)
{
    P(numeric ? "<th class=\"n\">" : "<th>");
    H(name);
    if (unit) {
        P("<span class=\"unit\">");
        H(unit);
        P("</span>");
    }
    P("</th>");
}

static void card(jl__strbuf *b, const char *k, double v, double scale, int sig, const char *unit)
{
    P("<div class=\"card\"><div class=\"k\">");
    H(k);
    P("</div><div class=\"v\">");
    num(b, v, scale, sig);
    P("<span class=\"u\">");
    H(unit);
    P("</span></div></div>\n");
}

/* ---- figures: numbers and blocks --------------------------------------------------- */

static int fig_number(const jl__report_report *r, const jl__report_figure *f)
{
    (void)r;
    return f->number;
}

static const jl__report_fig_kind group_order[] = {RP_FIG_FRONTIER, RP_FIG_TRENDS, RP_FIG_MODEL,
                                                  RP_FIG_POWER, RP_FIG_PRECISION};

static int in_comparisons(const jl__report_figure *f)
{
    return f->kind == RP_FIG_GPU_COMPARE || (f->kind == RP_FIG_PRECISION && f->group < 0);
}

/* Number the figures in the order the page shows them. */
static void number_figures(jl__report_report *r)
{
    int n = 0;
    for (size_t i = 0; i < r->n_figs; i++)
        if (r->figs[i].kind == RP_FIG_OVERVIEW)
            r->figs[i].number = ++n;
    for (size_t gi = 0; gi < r->n_groups; gi++)
        for (size_t o = 0; o < sizeof group_order / sizeof group_order[0]; o++)
            for (size_t i = 0; i < r->n_figs; i++)
                if (r->figs[i].group == (long)gi && r->figs[i].kind == group_order[o])
                    r->figs[i].number = ++n;
    for (size_t i = 0; i < r->n_figs; i++)
        if (in_comparisons(&r->figs[i]))
            r->figs[i].number = ++n;
}

/* A drawn figure: its title (the page carries it; the image has none), the
 * SVG as an image loaded lazily (the page stays light; it opens offline
 * from the directory), the caption and its files. Figures not drawn are not
 * listed (the group's line says why). */
static void figure_block(jl__strbuf *b, jl__report_report *r, jl__report_figure *f)
{
    if (!f->drawn)
        return;
    const char *ext[4];
    size_t n_out = jl__report_figure_outputs(r->opt.formats, NULL, ext, 4);
    P("<figure id=\"fig-");
    H(f->id);
    P("\">\n<p class=\"ftitle\">");
    H(f->title ? f->title : f->id);
    P("</p>\n");
    int has_svg = 0;
    for (size_t k = 0; k < n_out; k++)
        has_svg |= !strcmp(ext[k], "svg");
    P("<img loading=\"lazy\" decoding=\"async\" src=\"figures/");
    H(f->id);
    P(has_svg ? ".svg" : ".png");
    P("\" alt=\"");
    H(f->title ? f->title : f->id);
    P("\"");
    if (f->px_w > 0 && f->px_h > 0)
        jl__strbuf_printf(b, " width=\"%d\" height=\"%d\"", f->px_w, f->px_h);
    P(">");
    jl__strbuf_printf(b, "\n<figcaption><strong>Figure %d.</strong> ", fig_number(r, f));
    H(f->caption ? f->caption : "");
    P("<span class=\"files\">");
    for (size_t k = 0; k < n_out; k++) {
        P("<a href=\"figures/");
        H(f->id);
        jl__strbuf_printf(b, ".%s\">%s</a> · ", ext[k],
                          !strcmp(ext[k], "svg")   ? "SVG"
                          : !strcmp(ext[k], "png") ? "PNG"
                          : !strcmp(ext[k], "pdf") ? "PDF 7 in"
                                                   : "PDF 3.3 in");
    }
    P("<a href=\"figures/");
    H(f->id);
    P(".dat\">data</a> · <a href=\"figures/");
    H(f->id);
    jl__strbuf_printf(b, ".gp\">gnuplot script</a> · %zu data points</span>", f->n_points);
    P("</figcaption>\n</figure>\n");
}

/* One line for a group: the figures of it that are not shown, and why. */
static void group_figure_line(jl__strbuf *b, jl__report_report *r, long gi)
{
    jl__report_group *g = gi >= 0 ? &r->groups[gi] : NULL;
    if (g && g->figure_note) {
        P("<p class=\"small muted\">");
        H(g->figure_note);
        P("</p>\n");
    }
    size_t n = 0;
    for (size_t i = 0; i < r->n_figs; i++)
        n += r->figs[i].group == gi && !r->figs[i].drawn;
    if (!n)
        return;
    jl__strbuf_printf(b, "<p class=\"small muted\">%zu figure%s not drawn (", n, n == 1 ? "" : "s");
    const char *why = NULL;
    for (size_t i = 0; i < r->n_figs && !why; i++)
        if (r->figs[i].group == gi && !r->figs[i].drawn)
            why = r->figs[i].note;
    H(r->gnuplot_missing ? "gnuplot not available or disabled; see the notes" : why ? why : "?");
    P("); scripts and data:");
    for (size_t i = 0; i < r->n_figs; i++)
        if (r->figs[i].group == gi && !r->figs[i].drawn) {
            P(" <a href=\"figures/");
            H(r->figs[i].id);
            P(".gp\"><code>");
            H(r->figs[i].id);
            P(".gp</code></a>");
        }
    P("</p>\n");
}

/* ---- the answer ------------------------------------------------------------------- */

static void latency_cell(jl__strbuf *b, const jl_summary *s)
{
    if (jl_attrs_is_diffusion(&s->attrs)) {
        num(b, s->fig[JL_FIG_BATCH_LATENCY_S], 1, 3);
        P(" s batch");
    } else {
        num(b, s->fig[JL_FIG_MEDIAN_ITL_S], 1000, 3);
        P(" ms ITL");
    }
}

static void config_cell(jl__strbuf *b, const jl_summary *s)
{
    const jl_attrs *a = &s->attrs;
    jl__strbuf_printf(b, "<strong>");
    H(a->gpu_model ? a->gpu_model : "?");
    jl__strbuf_printf(b, " \xc3\x97 %ld</strong>, batch %ld, ", a->num_gpus, a->max_batch_size);
    H(a->precision ? a->precision : "?");
    char k[160];
    jl__report_knobs_text(s, k, sizeof k);
    if (k[0]) {
        P(", ");
        H(k);
    }
}

/* ---- diagnosis (joules diagnose) -------------------------------------------------- */

static const jl_finding *finding_of(const jl_run_diagnosis *d, const char *kind)
{
    for (size_t k = 0; k < d->n_findings; k++)
        if (!strcmp(d->findings[k].kind, kind))
            return &d->findings[k];
    return NULL;
}

/* What the model predicts would change the energy of this run, in words. */
static void change_cell(jl__strbuf *b, const jl_run_diagnosis *d)
{
    double ch;
    const jl_finding *f = jl__report_best_change(d, &ch);
    if (f) {
        P("<span class=\"tag good\">");
        num(b, ch, 100, 2);
        P("%</span> ");
        H(f->message);
        return;
    }
    if ((f = finding_of(d, "batch_plateau")) || (f = finding_of(d, "more_gpus")) ||
        (f = finding_of(d, "no_prediction"))) {
        H(f->message);
        return;
    }
    P("<span class=\"muted\">no change predicted (");
    H(d->fit_method ? d->fit_method : "none");
    P(d->fit_method && !strcmp(d->fit_method, "none") ? ": no fitted model for this run)</span>"
                                                      : ")</span>");
}

static void utilisation_text(jl__strbuf *b, const jl_run_diagnosis *d)
{
    if (!isfinite(d->utilisation)) {
        P("<span class=\"muted\">unknown</span>");
        return;
    }
    num(b, d->utilisation, 1, 2);
    P(" <span class=\"small muted\">(");
    H(d->utilisation_source);
    P(")</span>");
}

static void limit_text(jl__strbuf *b, const jl_run_diagnosis *d, int evidence)
{
    P("<strong>");
    H(jl_batch_limit_name(d->ceiling.limit));
    P("</strong>");
    if (evidence && d->ceiling.evidence) {
        P(": ");
        H(d->ceiling.evidence);
    }
}

/* Near the top: per group, the diagnosis of its pick (else its
 * representative run). */
static void diagnosis_overview(jl__strbuf *b, jl__report_report *r)
{
    if (!r->diag)
        return;
    P("<h3 id=\"diagnosis\">What limits each pick (<code>joules diagnose</code>)</h3>\n"
      "<p class=\"small muted\">Per group, the run above (or, with no pick, the lowest-energy run): "
      "how busy the GPUs are, how much of the energy is static (idle) power, what stops the batch "
      "from growing, and the change the fitted model predicts saves the most energy. Definitions: "
      "<code>docs/diagnose.md</code>; every run: <a href=\"data/diagnose.json\">data/diagnose.json</a> "
      "and each group's section.</p>\n");
    P("<div class=\"tablewrap\"><table class=\"answer\">\n<thead><tr>");
    th(b, "model · task", NULL, 0);
    th(b, "run", NULL, 0);
    th(b, "utilisation", "0–1", 1);
    th(b, "static energy", "% of energy", 1);
    th(b, "batch limit", "and evidence", 0);
    th(b, "best predicted change", "energy per token", 0);
    P("</tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < r->n_groups; i++) {
        jl__report_group *g = &r->groups[i];
        long run = g->pick.run >= 0 ? g->pick.run : g->representative;
        const jl_run_diagnosis *d = run >= 0 ? jl__report_diagnosis_of(r, (size_t)run) : NULL;
        if (!d)
            continue;
        P("<tr><td><a href=\"#diag-");
        H(g->slug);
        P("\">");
        H(jl__report_base_name(g->model));
        P("</a> · ");
        H(g->task ? g->task : "?");
        P("</td><td>");
        config_cell(b, d->run);
        if (g->pick.run < 0)
            P(" <span class=\"tag\">no pick</span>");
        P("</td><td class=\"n\">");
        utilisation_text(b, d);
        P("</td>");
        td_num(b, d->static_energy_share, 100, 2);
        P("<td class=\"small\">");
        limit_text(b, d, 1);
        P("</td><td class=\"small\">");
        change_cell(b, d);
        P("</td></tr>\n");
    }
    P("</tbody></table></div>\n");
}

static void range_text(jl__strbuf *b, double lo, double hi, double scale, int sig)
{
    char x[48], y[48];
    jl__report_fmt_num(x, sizeof x, lo * scale, sig);
    jl__report_fmt_num(y, sizeof y, hi * scale, sig);
    P(x);
    if (strcmp(x, y)) {
        P("\xe2\x80\x93");
        P(y);
    }
}

/* In a group's section: per configuration (GPU model, count, precision) the
 * diagnosis in words, then every run's findings. */
static void group_diagnosis(jl__strbuf *b, jl__report_report *r, size_t gi)
{
    jl__report_group *g = &r->groups[gi];
    if (!r->diag)
        return;
    const jl_summary_list *l = r->l;
    P("<h3 id=\"diag-");
    H(g->slug);
    P("\">Diagnosis</h3>\n<ul class=\"findings\">\n");
    unsigned char *done = jl__calloc_array(g->n_runs ? g->n_runs : 1, 1);
    size_t n_findings = 0;
    for (size_t a = 0; done && a < g->n_runs; a++) {
        if (done[a])
            continue;
        const jl_attrs *aa = &l->items[g->runs[a]]->attrs;
        double ulo = INFINITY, uhi = -INFINITY, slo = INFINITY, shi = -INFINITY;
        const char *usrc = NULL;
        int mixed = 0;
        size_t n = 0, counts[8] = {0};
        const jl_run_diagnosis *top = NULL;
        for (size_t k = a; k < g->n_runs; k++) {
            const jl_attrs *ak = &l->items[g->runs[k]]->attrs;
            if (ak->num_gpus != aa->num_gpus ||
                strcmp(ak->gpu_model ? ak->gpu_model : "", aa->gpu_model ? aa->gpu_model : "") ||
                strcmp(ak->precision ? ak->precision : "", aa->precision ? aa->precision : ""))
                continue;
            done[k] = 1;
            const jl_run_diagnosis *d = jl__report_diagnosis_of(r, g->runs[k]);
            if (!d)
                continue;
            n++;
            n_findings += d->n_findings;
            if (isfinite(d->utilisation)) {
                ulo = fmin(ulo, d->utilisation);
                uhi = fmax(uhi, d->utilisation);
                if (usrc && strcmp(usrc, d->utilisation_source))
                    mixed = 1;
                usrc = d->utilisation_source;
            }
            if (isfinite(d->static_energy_share)) {
                slo = fmin(slo, d->static_energy_share);
                shi = fmax(shi, d->static_energy_share);
            }
            if ((unsigned)d->ceiling.limit < 8)
                counts[d->ceiling.limit]++;
            if (!top || ak->max_batch_size > top->run->attrs.max_batch_size)
                top = d;
        }
        if (!n)
            continue;
        P("<li><strong>");
        H(aa->gpu_model ? aa->gpu_model : "?");
        jl__strbuf_printf(b, " \xc3\x97 %ld, ", aa->num_gpus);
        H(aa->precision ? aa->precision : "?");
        jl__strbuf_printf(b, "</strong> (%zu run%s; model: ", n, n == 1 ? "" : "s");
        H(top->fit_method ? top->fit_method : "none");
        P("). ");
        if (isfinite(ulo)) {
            P("Utilisation ");
            range_text(b, ulo, uhi, 1, 2);
            P(" (");
            H(mixed ? "mixed sources" : usrc);
            P(")");
            if (uhi < 0.6)
                P(" \xe2\x80\x94 the GPUs are under-utilised at every batch measured");
            P(". ");
        } else {
            P("Utilisation unknown. ");
        }
        if (isfinite(slo)) {
            P("Static (idle) power is ");
            range_text(b, slo, shi, 100, 2);
            P("% of the energy. ");
        }
        P("Batch limit: ");
        int first = 1;
        for (unsigned k = 0; k < 8; k++)
            if (counts[k]) {
                jl__strbuf_printf(b, "%s<strong>", first ? "" : ", ");
                H(jl_batch_limit_name((jl_batch_limit)k));
                jl__strbuf_printf(b, "</strong> in %zu", counts[k]);
                first = 0;
            }
        jl__strbuf_printf(b, " of %zu run%s; at the largest cap (%ld): ", n, n == 1 ? "" : "s",
                          top->run->attrs.max_batch_size);
        H(top->ceiling.evidence ? top->ceiling.evidence : "no evidence recorded");
        P(". There, ");
        double ch;
        const jl_finding *bf = jl__report_best_change(top, &ch);
        const jl_finding *pf = finding_of(top, "batch_plateau");
        if (bf)
            H(bf->message);
        else if (pf)
            H(pf->message);
        else
            P("the model predicts no change that saves energy");
        P(".</li>\n");
    }
    free(done);
    P("</ul>\n");
    jl__strbuf_printf(b,
                      "<p class=\"small\">Every run's diagnosis (%zu runs, %zu findings): "
                      "<a href=\"diagnosis.html#d-",
                      g->n_runs, n_findings);
    H(g->slug);
    P("\">diagnosis.html</a></p>\n");
}

/* diagnosis.html: a group's runs, one row each with its findings. */
static void group_run_diagnosis(jl__strbuf *b, jl__report_report *r, size_t gi)
{
    jl__report_group *g = &r->groups[gi];
    if (!r->diag)
        return;
    P("<h2 id=\"d-");
    H(g->slug);
    P("\">");
    H(g->model ? g->model : "?");
    P(" — ");
    H(g->task ? g->task : "?");
    P(" <a class=\"small\" href=\"index.html#g-");
    H(g->slug);
    P("\">(section)</a></h2>\n");
    P("<div class=\"tablewrap\"><table><thead><tr>");
    th(b, "run", NULL, 0);
    th(b, "batch", "cap · achieved", 1);
    th(b, "utilisation", NULL, 1);
    th(b, "static energy", "%", 1);
    th(b, "batch limit", NULL, 0);
    th(b, "findings", NULL, 0);
    P("</tr></thead><tbody>\n");
    for (size_t k = 0; k < g->n_runs; k++) {
        const jl_run_diagnosis *d = jl__report_diagnosis_of(r, g->runs[k]);
        if (!d)
            continue;
        const jl_summary *s = d->run;
        P("<tr><td>");
        H(jl__report_base_name(s->file));
        P(" · <code>");
        H(s->run ? s->run : "?");
        P("</code><br><span class=\"small muted\">");
        H(s->attrs.gpu_model ? s->attrs.gpu_model : "?");
        jl__strbuf_printf(b, " \xc3\x97 %ld, ", s->attrs.num_gpus);
        H(s->attrs.precision ? s->attrs.precision : "?");
        jl__strbuf_printf(b, "</span></td><td class=\"n\">%ld · ", s->attrs.max_batch_size);
        num(b, d->ceiling.achieved, 1, 3);
        P("</td><td class=\"n\">");
        utilisation_text(b, d);
        P("</td>");
        td_num(b, d->static_energy_share, 100, 2);
        P("<td class=\"wrap small\">");
        limit_text(b, d, 1);
        P("</td><td class=\"wrap small\"><ul class=\"findings\">");
        for (size_t q = 0; q < d->n_findings; q++) {
            const jl_finding *f = &d->findings[q];
            if (!strcmp(f->kind, "batch_limit"))
                continue;
            P(!strcmp(f->severity, "warning")      ? "<li><span class=\"tag warn\">"
              : !strcmp(f->severity, "suggestion") ? "<li><span class=\"tag good\">"
                                                   : "<li><span class=\"tag\">");
            H(f->kind);
            P("</span> ");
            H(f->message);
            P("</li>");
        }
        P("</ul></td></tr>\n");
    }
    P("</tbody></table></div>\n");
}

/* The pick's figures the SLO judges, labelled ("68.4 ms p90 ITL"); the
 * workload's latency too when the SLO bounds none. */
static void slo_figures_cell(jl__strbuf *b, const jl_slo *slo, const jl_summary *s)
{
    int any_time = 0;
    for (size_t c = 0; slo && c < slo->n; c++) {
        int f = jl_slo_cond_figure(&slo->conds[c], s);
        if (f < 0)
            continue;
        char v[64];
        jl__report_fmt_figure(v, sizeof v, f, s->fig[f]);
        P(c ? " · " : "");
        H(v);
        P(" ");
        H(jl__report_figure_label(f));
        any_time |= !strcmp(jl_figure_unit((jl_figure)f), "s");
    }
    if (!any_time) {
        P(slo && slo->n ? " · " : "");
        latency_cell(b, s);
    }
}

/* A cell of an answer table: the pick of one group on one GPU scope at one
 * SLO. */
static void answer_cell(jl__strbuf *b, jl__report_report *r, const jl__report_group *g,
                        const jl__report_pick *p, const jl_slo *slo, int scoped)
{
    const jl_summary_list *l = r->l;
    P("<td class=\"c\">");
    if (p->run >= 0) {
        const jl_summary *s = l->items[p->run];
        P("<strong>");
        num(b, s->fig[jl__report_energy_fig(s)], 1, 3);
        P("</strong> ");
        P(jl__report_energy_unit(s));
        if (!jl_attrs_is_diffusion(&s->attrs) && isfinite(s->fig[JL_FIG_ENERGY_PER_REQUEST_J])) {
            P("<br><span class=\"small\">");
            num(b, s->fig[JL_FIG_ENERGY_PER_REQUEST_J], 1, 3);
            P(" J/response</span>");
        }
        P("<br><span class=\"small muted\">");
        if (!scoped) {
            H(s->attrs.gpu_model ? s->attrs.gpu_model : "?");
            P(" ");
        }
        jl__strbuf_printf(b, "\xc3\x97%ld, b%ld", s->attrs.num_gpus, s->attrs.max_batch_size);
        char k[160];
        jl__report_knobs_text(s, k, sizeof k);
        if (k[0]) {
            P(", ");
            H(k);
        }
        P(" · ");
        slo_figures_cell(b, slo, s);
        P("</span>");
    } else if (p->closest >= 0) {
        P("<span class=\"tag bad\">none meets</span><br><span class=\"small muted\">closest misses by ");
        num(b, p->worst_miss * 100, 1, 2);
        P("%</span>");
    } else {
        P("<span class=\"muted\">—</span>");
    }
    (void)g;
    P("</td>");
}

/* The answer tables of one GPU scope (gpu NULL: every GPU model): per kind
 * of work a table, a row per (model, task), a column per SLO of the set. */
static void answer_tables(jl__strbuf *b, jl__report_report *r, const char *gpu)
{
    static const char *const kind_title[] = {"LLM and MLLM (energy per token)",
                                             "Text to image (energy per image)",
                                             "Text to video (energy per video)"};
    for (int kind = 0; kind < RP_KIND_COUNT; kind++) {
        /* the groups of this kind measured on this GPU model */
        size_t n = 0;
        const jl__report_group *g0 = NULL;
        for (size_t i = 0; i < r->n_groups; i++) {
            const jl__report_group *g = &r->groups[i];
            if ((int)g->kind != kind)
                continue;
            int on = !gpu;
            for (size_t k = 0; !on && k < g->n_gpu_models; k++)
                on = !strcmp(g->gpu_models[k], gpu);
            if (on) {
                n++;
                if (!g0 || g->n_set > g0->n_set)
                    g0 = g;
            }
        }
        if (!n)
            continue;
        P("<h4>");
        H(kind_title[kind]);
        P("</h4>\n<div class=\"tablewrap\"><table class=\"answer\">\n<thead><tr>");
        th(b, "model", NULL, 0);
        th(b, "task", NULL, 0);
        int same_set = 1;
        for (size_t i = 0; i < r->n_groups; i++) {
            const jl__report_group *g = &r->groups[i];
            if ((int)g->kind != kind)
                continue;
            same_set &= g->n_set == g0->n_set;
            for (size_t j = 0; same_set && j < g->n_set; j++)
                same_set &= g->set[j] == g0->set[j];
        }
        for (size_t j = 0; j < g0->n_set; j++)
            th(b, same_set ? g0->set[j]->text : "SLO", j == g0->primary ? "the group's SLO" : NULL,
               0);
        th(b, "meet the SLO", "runs", 1);
        P("</tr></thead>\n<tbody>\n");
        for (size_t i = 0; i < r->n_groups; i++) {
            const jl__report_group *g = &r->groups[i];
            if ((int)g->kind != kind)
                continue;
            long gk = -1;
            for (size_t k = 0; gpu && k < g->n_gpu_models; k++)
                if (!strcmp(g->gpu_models[k], gpu))
                    gk = (long)k;
            if (gpu && gk < 0)
                continue;
            P("<tr><td><a href=\"#g-");
            H(g->slug);
            P("\" title=\"");
            H(g->model ? g->model : "?");
            P("\">");
            H(jl__report_base_name(g->model));
            P("</a></td><td>");
            H(g->task ? g->task : "?");
            if (!same_set) {
                P("<br><span class=\"small muted\">");
                for (size_t j = 0; j < g->n_set; j++) {
                    P(j ? " · " : "");
                    H(g->set[j]->text);
                }
                P("</span>");
            }
            P("</td>");
            for (size_t j = 0; j < g0->n_set; j++) {
                if (j >= g->n_set) {
                    P("<td></td>");
                    continue;
                }
                const jl__report_pick *p =
                    gk >= 0 ? &g->gpu_set_picks[(size_t)gk * g->n_set + j] : &g->set_picks[j];
                answer_cell(b, r, g, p, g->set[j], gpu != NULL);
            }
            const jl__report_pick *pp = gk >= 0 ? &g->gpu_picks[gk] : &g->pick;
            size_t nr = 0;
            for (size_t k = 0; k < g->n_runs; k++) {
                const char *gm = r->l->items[g->runs[k]]->attrs.gpu_model;
                nr += !gpu || (gm && !strcmp(gm, gpu));
            }
            jl__strbuf_printf(b, "<td class=\"n\">%zu of %zu</td></tr>\n", pp->n_meeting, nr);
        }
        P("</tbody></table></div>\n");
    }
}

/* The GPU models present, sorted (borrowed). */
static size_t gpu_models_present(const jl__report_report *r, const char **out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n_groups; i++)
        for (size_t k = 0; k < r->groups[i].n_gpu_models; k++) {
            const char *gm = r->groups[i].gpu_models[k];
            size_t j = 0;
            while (j < n && strcmp(out[j], gm) < 0)
                j++;
            if ((j < n && !strcmp(out[j], gm)) || n == cap)
                continue;
            memmove(out + j + 1, out + j, (n - j) * sizeof *out);
            out[j] = gm;
            n++;
        }
    return n;
}

/* The GPU the comparisons are against: --baseline, else the first GPU
 * model present (the default of the compare documents). */
static const char *gpu_baseline(const jl__report_report *r, const char *const *gpus, size_t ng)
{
    return r->opt.gpu_baseline ? r->opt.gpu_baseline : ng ? gpus[0] : NULL;
}

/* The energy of a pick, NaN when none. */
static double pick_energy(const jl__report_report *r, const jl__report_pick *p)
{
    if (p->run < 0)
        return NAN;
    const jl_summary *s = r->l->items[p->run];
    return s->fig[jl__report_energy_fig(s)];
}

/* Which GPU, per model: one row per (model, task) at the group's SLO, a
 * column per GPU model (the baseline first) with its pick's energy per item,
 * then the winner and its energy change against the baseline
 * (E_winner / E_baseline - 1, negative = less energy: the sign of `joules
 * compare`). When the baseline wins, the change of the next best. */
static void gpu_side_by_side(jl__strbuf *b, jl__report_report *r, const char *const *gpus,
                             size_t ng)
{
    const char *base = gpu_baseline(r, gpus, ng);
    const char *cols[64];
    size_t nc = 0;
    if (base)
        cols[nc++] = base;
    for (size_t k = 0; k < ng && nc < 64; k++)
        if (!base || strcmp(gpus[k], base))
            cols[nc++] = gpus[k];
    P("<h3 id=\"answer-gpus\">Which GPU, per model</h3>\n<p class=\"small\">At each group's "
      "SLO (named under the task): the least energy per item among the runs on each GPU model "
      "meeting it (its GPU count and batch under it), the GPU model needing the least, and its "
      "energy change against ");
    H(base ? base : "the baseline");
    P(" (<code>--baseline</code>; negative = less energy, as in <code>joules compare</code>; "
      "when the baseline wins, the change of the next best). — = not measured on that GPU "
      "model.</p>\n<div class=\"tablewrap\"><table class=\"answer\">\n<thead><tr>");
    th(b, "model", NULL, 0);
    th(b, "task", "SLO", 0);
    for (size_t k = 0; k < nc; k++)
        th(b, cols[k], k == 0 ? "baseline" : NULL, 1);
    th(b, "least energy", NULL, 0);
    th(b, "change", base ? base : NULL, 1);
    P("</tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < r->n_groups; i++) {
        const jl__report_group *g = &r->groups[i];
        P("<tr><td><a href=\"#g-");
        H(g->slug);
        P("\">");
        H(jl__report_base_name(g->model));
        P("</a></td><td>");
        H(g->task ? g->task : "?");
        P("<br><span class=\"small muted\">");
        H(g->slo_text);
        P("</span></td>");
        long best = -1, second = -1, bk = -1; /* columns */
        double e[64];
        for (size_t k = 0; k < nc; k++) {
            long gk = -1;
            for (size_t q = 0; q < g->n_gpu_models; q++)
                if (!strcmp(g->gpu_models[q], cols[k]))
                    gk = (long)q;
            e[k] = gk >= 0 ? pick_energy(r, &g->gpu_picks[gk]) : NAN;
            if (k == 0 && gk >= 0)
                bk = 0;
            P("<td class=\"n\">");
            if (gk < 0) {
                P("<span class=\"muted\">—</span>");
            } else if (!isfinite(e[k])) {
                P("<span class=\"tag bad\">none meets</span>");
            } else {
                const jl_summary *s = r->l->items[g->gpu_picks[gk].run];
                num(b, e[k], 1, 3);
                P(" ");
                H(jl__report_energy_unit(s));
                jl__strbuf_printf(b, "<br><span class=\"small muted\">\xc3\x97%ld, b%ld</span>",
                                  s->attrs.num_gpus, s->attrs.max_batch_size);
            }
            P("</td>");
            if (isfinite(e[k])) {
                if (best < 0 || e[k] < e[best]) {
                    second = best;
                    best = (long)k;
                } else if (second < 0 || e[k] < e[second]) {
                    second = (long)k;
                }
            }
        }
        P("<td>");
        if (best >= 0) {
            P("<strong>");
            H(cols[best]);
            P("</strong>");
        } else {
            P("<span class=\"muted\">no GPU meets it</span>");
        }
        P("</td><td class=\"n\">");
        long other = best == 0 ? second : best;
        if (bk == 0 && isfinite(e[0]) && other > 0) {
            double change = (e[other] / e[0] - 1) * 100;
            char c[48];
            jl__report_fmt_num(c, sizeof c, fabs(change), 2);
            jl__strbuf_printf(b, "%s%s%%", change < 0 ? "\xe2\x88\x92" : "+", c);
            if (best == 0) {
                P("<br><span class=\"small muted\">");
                H(cols[other]);
                P("</span>");
            }
        } else {
            P("<span class=\"muted\">—</span>");
        }
        P("</td></tr>\n");
    }
    P("</tbody></table></div>\n");
}

static void answer_section(jl__strbuf *b, jl__report_report *r)
{
    P("<section id=\"answer\">\n<h2>1. The answer</h2>\n");
    P("<p class=\"lead\">For each model and task, and for each GPU model: the configuration "
      "that uses the least energy among the runs meeting each service-level objective (SLO) of "
      "the workload's set, and what it costs. The paper's sets: LLM/MLLM median inter-token "
      "latency 50, 100, 250 ms; text-to-image 10, 30, 60 s; text-to-video 100, 500, 1000 s "
      "per batch (<code>--slo</code> replaces a workload's set by one SLO). The middle one is the "
      "group's SLO for the rest of the page.</p>\n");
    if (r->opt.single_page)
        P("<p class=\"small note\">One self-contained page (<code>--single-page</code>): the "
          "figures are inside it; the data documents, the figures' files, every run's table "
          "and diagnosis are not written (their names stay, without links). <code>joules "
          "report</code> without it writes them all.</p>\n");
    else if (r->opt.no_data)
        P("<p class=\"small note\">Written without <code>data/</code> "
          "(<code>--no-data</code>): the data documents and notebooks are not included (their "
          "names stay, without links); the command beside each prints the same bytes.</p>\n");
    if (r->opt.n_gpus) {
        P("<p class=\"small\">Restricted to GPU models ");
        for (size_t i = 0; i < r->opt.n_gpus; i++) {
            P(i ? ", " : "");
            H(r->opt.gpus[i]);
        }
        P(" (<code>--gpus</code>): every table, figure and document of this report.</p>\n");
    }
    const char *gpus[64];
    size_t ng = gpu_models_present(r, gpus, 64);
    P("<p class=\"small\">Tables: ");
    if (ng > 1)
        P("<a href=\"#answer-gpus\">which GPU, per model</a> · ");
    P("<a href=\"#answer-all\">all GPU models</a>");
    for (size_t k = 0; ng > 1 && k < ng; k++) {
        P(" · <a href=\"#answer-");
        H(gpus[k]);
        P("\">");
        H(gpus[k]);
        P("</a>");
    }
    P(" · every cell as CSV: <a href=\"data/answers.csv\">data/answers.csv</a></p>\n");
    if (ng > 1)
        gpu_side_by_side(b, r, gpus, ng);
    P("<h3 id=\"answer-all\">On any GPU model</h3>\n");
    answer_tables(b, r, NULL);
    for (size_t k = 0; ng > 1 && k < ng; k++) {
        P("<h3 id=\"answer-");
        H(gpus[k]);
        P("\">On ");
        H(gpus[k]);
        P(" only</h3>\n");
        answer_tables(b, r, gpus[k]);
    }
    /* the task overviews */
    int any = 0;
    for (size_t i = 0; i < r->n_figs; i++)
        if (r->figs[i].kind == RP_FIG_OVERVIEW && r->figs[i].drawn) {
            if (!any++)
                P("<h3 id=\"overview\">Every model of a task</h3>\n");
            figure_block(b, r, &r->figs[i]);
        }
    /* the main findings: the first two of each group */
    P("<h3>Main findings</h3>\n<ul class=\"findings\">\n");
    for (size_t i = 0; i < r->n_groups; i++) {
        jl__report_group *g = &r->groups[i];
        for (size_t k = 0; k < g->n_findings && k < 3; k++) {
            P("<li><strong>");
            const char *m = jl__report_base_name(g->model);
            H(m);
            P(", ");
            H(g->task ? g->task : "?");
            P(":</strong> ");
            H(g->findings[k]);
            P("</li>\n");
        }
    }
    P("</ul>\n");
    P("<p class=\"small muted\">Findings are measured facts about these runs; the diagnosis "
      "below explains them with the fitted batch-size model. Energy per token is the energy of "
      "all GPUs in the steady-state window divided by the tokens generated in it (the whole "
      "run's, warm-up and drain included, is in the table of every run).</p>\n");
    diagnosis_overview(b, r);
    if (r->n_notes) {
        P("<div class=\"note\"><strong>Notes.</strong><ul>");
        for (size_t i = 0; i < r->n_notes; i++) {
            P("<li>");
            H(r->notes[i]);
            P("</li>");
        }
        P("</ul></div>\n");
    }
    if (r->errors && r->errors->count) {
        jl__strbuf_printf(b,
                          "<div class=\"note err\"><strong>%zu input%s could not be read</strong> "
                          "(the rest of the report is complete):<ul>",
                          r->errors->count, r->errors->count == 1 ? "" : "s");
        for (size_t i = 0; i < r->errors->count; i++) {
            char *m = jl_error_format(r->errors->items[i]);
            P("<li><code>");
            H(m ? m : "?");
            P("</code></li>");
            free(m);
        }
        P("</ul></div>\n");
    }
    P("</section>\n");
}

/* ---- per group -------------------------------------------------------------------- */

static void frontier_table(jl__strbuf *b, jl__report_report *r, jl__report_group *g)
{
    const jl_frontier *f = g->frontier;
    if (!f || !f->n_points)
        return;
    const jl_summary *s0 = r->l->items[f->points[0].run];
    int dif = jl_attrs_is_diffusion(&s0->attrs);
    P("<h3>Time–energy frontier</h3>\n<p class=\"small muted\">Runs no other run beats on both "
      "latency and energy, fastest first. Every other run is dominated by one of these.</p>\n");
    P("<div class=\"tablewrap\"><table><thead><tr>");
    th(b, "#", NULL, 1);
    th(b, "configuration", NULL, 0);
    th(b, dif ? "batch latency" : "median ITL", dif ? "s" : "ms", 1);
    char eh[48];
    snprintf(eh, sizeof eh, "energy per %s", jl__report_item(s0));
    th(b, eh, "J", 1);
    th(b, "throughput", jl__report_throughput_unit(s0), 1);
    th(b, "avg power", "W", 1);
    th(b, "meets SLO", NULL, 0);
    P("</tr></thead><tbody>\n");
    for (size_t i = 0; i < f->n_points; i++) {
        const jl_summary *s = r->l->items[f->points[i].run];
        int meets = jl_slo_eval(g->slo, s, NULL) == JL_SLO_PASS;
        P((long)f->points[i].run == g->pick.run ? "<tr class=\"pick\">" : "<tr>");
        jl__strbuf_printf(b, "<td class=\"n\">%zu</td><td>", i + 1);
        config_cell(b, s);
        if ((long)f->points[i].run == g->pick.run)
            P(" <span class=\"tag good\">pick</span>");
        if (f->points[i].n_equivalent)
            jl__strbuf_printf(b, " <span class=\"tag\">+%zu equivalent</span>",
                              f->points[i].n_equivalent);
        P("</td>");
        td_num(b, f->points[i].latency, dif ? 1 : 1000, 3);
        td_num(b, f->points[i].energy, 1, 3);
        td_num(b, s->fig[jl__report_throughput_fig(s)], 1, 3);
        td_num(b, s->fig[JL_FIG_AVG_POWER_W], 1, 3);
        P(meets ? "<td><span class=\"tag good\">yes</span></td>"
                : "<td><span class=\"tag bad\">no</span></td>");
        P("</tr>\n");
    }
    P("</tbody></table></div>\n");
}

static void group_section(jl__strbuf *b, jl__report_report *r, size_t gi, int number)
{
    jl__report_group *g = &r->groups[gi];
    const jl_summary_list *l = r->l;
    P("<section id=\"g-");
    H(g->slug);
    jl__strbuf_printf(b, "\">\n<h2>%d. ", number);
    H(g->model ? g->model : "?");
    P(" — ");
    H(g->task ? g->task : "?");
    P("</h2>\n");
    jl__strbuf_printf(b, "<p class=\"muted small\">%zu runs · workload ", g->n_runs);
    H(g->workload ? g->workload : "?");
    P(" · GPU models: ");
    for (size_t k = 0; k < g->n_gpu_models; k++) {
        if (k)
            P(", ");
        H(g->gpu_models[k]);
    }
    P(" · SLO <code>");
    H(g->slo_text);
    P("</code></p>\n");
    if (g->pick.run >= 0) {
        const jl_summary *s = l->items[g->pick.run];
        int dif = jl_attrs_is_diffusion(&s->attrs);
        P("<p class=\"lead\">Least energy meeting the SLO: ");
        config_cell(b, s);
        P(" — run <code>");
        H(jl__report_base_name(s->file));
        P(" ");
        H(s->run ? s->run : "?");
        P("</code>.</p>\n<div class=\"cards\">\n");
        char ek[48];
        snprintf(ek, sizeof ek, "energy per %s", jl__report_item(s));
        card(b, ek, s->fig[jl__report_energy_fig(s)], 1, 3, "J");
        if (dif)
            card(b, "batch latency", s->fig[JL_FIG_BATCH_LATENCY_S], 1, 3, "s");
        else
            card(b, "median ITL", s->fig[JL_FIG_MEDIAN_ITL_S], 1000, 3, "ms");
        if (dif)
            card(b, "throughput", s->fig[JL_FIG_ITEMS_PER_S], 1, 3, jl__report_throughput_unit(s));
        else
            card(b, "throughput", s->fig[JL_FIG_OUTPUT_THROUGHPUT_TOK_S], 1, 3, "tokens/s");
        card(b, "average power", s->fig[JL_FIG_AVG_POWER_W], 1, 3, "W");
        card(b, "static power share", s->fig[JL_FIG_STATIC_ENERGY_SHARE], 100, 2, "%");
        if (!dif)
            card(b, "energy per response", s->fig[JL_FIG_ENERGY_PER_REQUEST_J], 1, 3, "J");
        P("</div>\n");
    } else {
        P("<p class=\"lead\"><span class=\"tag bad\">No run meets the SLO.</span></p>\n");
    }
    if (g->n_findings) {
        P("<ul class=\"findings\">\n");
        for (size_t k = 0; k < g->n_findings; k++) {
            P("<li>");
            H(g->findings[k]);
            P("</li>\n");
        }
        P("</ul>\n");
    }
    group_diagnosis(b, r, gi);
    group_figure_line(b, r, (long)gi);
    /* figures of this group: frontier, trends, model fit, power, precision;
     * trends and fits (one per configuration, dozens on a large study) are
     * folded, so the page stays short and prints without them */
    for (size_t o = 0; o < sizeof group_order / sizeof group_order[0]; o++) {
        jl__report_fig_kind k = group_order[o];
        size_t n = 0;
        for (size_t i = 0; i < r->n_figs; i++)
            n += r->figs[i].group == (long)gi && r->figs[i].kind == k && r->figs[i].drawn;
        int fold = (k == RP_FIG_TRENDS || k == RP_FIG_MODEL) && n > 2;
        if (fold)
            jl__strbuf_printf(
                b, "<details><summary>%s: %zu figures, one per configuration</summary>\n",
                k == RP_FIG_TRENDS ? "Batch-size trends (the paper's Fig. 4)"
                                   : "Batch-size model fits",
                n);
        for (size_t i = 0; i < r->n_figs; i++)
            if (r->figs[i].group == (long)gi && r->figs[i].kind == k)
                figure_block(b, r, &r->figs[i]);
        if (fold)
            P("</details>\n");
    }
    frontier_table(b, r, g);
    P("</section>\n");
}

/* ---- every run -------------------------------------------------------------------- */

static void warn_cell(jl__strbuf *b, const jl_summary *s)
{
    P("<td class=\"wrap small\">");
    if (!s->n_warnings)
        P("<span class=\"muted\">—</span>");
    for (size_t w = 0; w < s->n_warnings; w++) {
        const char *rule = s->warnings[w].rule ? s->warnings[w].rule : "";
        const char *msg = s->warnings[w].message ? s->warnings[w].message : "";
        int fail = !strncmp(rule, "check:", 6) && !strncmp(msg, "fail", 4);
        P(fail ? "<span class=\"tag bad\">" : "<span class=\"tag warn\">");
        H(rule);
        P("</span> ");
        H(msg);
        if (w + 1 < s->n_warnings)
            P("<br>");
    }
    P("</td>");
}

/* The run's validity (issue 37; check.md, "Reason codes"): "valid", or
 * each reason's code, tagged by its severity, with its sentence. */
static void validity_cell(jl__strbuf *b, const jl_summary *s)
{
    P("<td class=\"wrap small\">");
    if (!s->validity.n)
        P("<span class=\"tag good\">valid</span>");
    for (size_t k = 0; k < s->validity.n; k++) {
        const jl_reason *x = &s->validity.reasons[k];
        jl_severity sev = jl_reason_severity(x);
        P(sev == JL_SEVERITY_INVALID   ? "<span class=\"tag bad\">"
          : sev == JL_SEVERITY_CAUTION ? "<span class=\"tag warn\">"
                                       : "<span class=\"tag\">");
        H(x->code);
        P("</span> ");
        H(x->message);
        if (k + 1 < s->validity.n)
            P("<br>");
    }
    P("</td>");
}

static void runs_table(jl__strbuf *b, jl__report_report *r, jl__report_kind kind)
{
    static const char *const titles[] = {"LLM and MLLM", "Text-to-image", "Text-to-video"};
    static const char *const eh[] = {"energy / token", "energy / image", "energy / video"};
    static const char *const rh[] = {"whole run / token", "whole run / image", "whole run / video"};
    static const char *const tu[] = {"tokens/s", "images/s", "videos/s"};
    int diffusion = kind != RP_KIND_LLM;
    const jl_summary_list *l = r->l;
    size_t n = 0;
    for (size_t i = 0; i < l->count; i++)
        n += jl__report_kind_of(l->items[i]) == kind;
    if (!n)
        return;
    jl__strbuf_printf(b, "<h3>%s runs (%zu)</h3>\n", titles[kind], n);
    P("<div class=\"tablewrap\"><table><thead><tr>");
    th(b, "file · run", NULL, 0);
    th(b, "model", NULL, 0);
    th(b, "task", NULL, 0);
    th(b, "GPU", NULL, 0);
    th(b, "GPUs", NULL, 1);
    th(b, "precision", NULL, 0);
    th(b, "batch", "max", 1);
    th(b, "window", "s", 1);
    th(b, "scope", NULL, 0);
    th(b, eh[kind], "J", 1);
    th(b, rh[kind], "J", 1);
    if (!diffusion)
        th(b, "energy / response", "J", 1);
    th(b, "avg power", "W", 1);
    th(b, "peak power", "W", 1);
    th(b, "static share", "%", 1);
    th(b, "throughput", tu[kind], 1);
    if (diffusion) {
        th(b, "batch latency", "s", 1);
    } else {
        th(b, "median ITL", "ms", 1);
        th(b, "p90 ITL", "ms", 1);
        th(b, "p90 TTFT", "s", 1);
        th(b, "avg batch", "requests", 1);
    }
    th(b, "validity", NULL, 0);
    th(b, "warnings", NULL, 0);
    P("</tr></thead><tbody>\n");
    for (size_t i = 0; i < l->count; i++) {
        const jl_summary *s = l->items[i];
        if (jl__report_kind_of(s) != kind)
            continue;
        const double *f = s->fig;
        int is_pick = 0;
        for (size_t gi = 0; gi < r->n_groups; gi++)
            is_pick |= r->groups[gi].pick.run == (long)i;
        P(is_pick ? "<tr class=\"pick\"><td>" : "<tr><td>");
        H(jl__report_base_name(s->file));
        P(" · <code>");
        H(s->run ? s->run : "?");
        P("</code>");
        if (is_pick)
            P(" <span class=\"tag good\">pick</span>");
        P("</td><td>");
        H(jl__report_base_name(s->attrs.model));
        P("</td><td>");
        H(s->attrs.task ? s->attrs.task : "?");
        P("</td><td>");
        H(s->attrs.gpu_model ? s->attrs.gpu_model : "?");
        jl__strbuf_printf(b, "</td><td class=\"n\">%ld</td><td>", s->attrs.num_gpus);
        H(s->attrs.precision ? s->attrs.precision : "?");
        if (jl_attrs_known(&s->attrs, "max_batch_size"))
            jl__strbuf_printf(b, "</td><td class=\"n\">%ld</td>", s->attrs.max_batch_size);
        else
            P("</td><td class=\"n\">—</td>"); /* none known (MLPerf) */
        td_num(b, f[JL_FIG_STEADY_DURATION_S], 1, 3);
        P("<td>");
        H(jl_scope_name(s->boundary.scope));
        P("</td>");
        td_num(b, f[jl__report_energy_fig(s)], 1, 3);
        td_num(b, f[diffusion ? JL_FIG_RUN_ENERGY_PER_ITEM_J : JL_FIG_RUN_ENERGY_PER_TOKEN_J], 1,
               3);
        if (!diffusion)
            td_num(b, f[JL_FIG_ENERGY_PER_REQUEST_J], 1, 3);
        td_num(b, f[JL_FIG_AVG_POWER_W], 1, 3);
        td_num(b, f[JL_FIG_PEAK_POWER_W], 1, 3);
        td_num(b, f[JL_FIG_STATIC_ENERGY_SHARE], 100, 2);
        td_num(b, f[jl__report_throughput_fig(s)], 1, 3);
        if (diffusion) {
            td_num(b, f[JL_FIG_BATCH_LATENCY_S], 1, 3);
        } else {
            td_num(b, f[JL_FIG_MEDIAN_ITL_S], 1000, 3);
            td_num(b, f[JL_FIG_P90_ITL_S], 1000, 3);
            td_num(b, f[JL_FIG_TTFT_P90_S], 1, 3);
            td_num(b, f[JL_FIG_AVG_BATCH_SIZE], 1, 3);
        }
        validity_cell(b, s);
        warn_cell(b, s);
        P("</tr>\n");
    }
    P("</tbody></table></div>\n");
}

static void validation_section(jl__strbuf *b, jl__report_report *r, int number)
{
    jl__strbuf_printf(b, "<section id=\"validation\">\n<h2>%d. Validation</h2>\n", number);
    json_t *t = json_object_get(r->check_doc, "totals");
    jl__strbuf_printf(
        b,
        "<p>Every run was judged by the validation rules (<code>" JL_RULES_VERSION
        "</code>, <code>joules check</code>): <strong>%lld</strong> rule results "
        "pass, <strong>%lld</strong> warn, <strong>%lld</strong> fail, %lld were "
        "skipped; <strong>%lld</strong> runs fail a rule. Each rule's result for each "
        "run is in <a href=\"data/check.json\">data/check.json</a>.</p>\n",
        (long long)json_integer_value(json_object_get(t, "pass")),
        (long long)json_integer_value(json_object_get(t, "warn")),
        (long long)json_integer_value(json_object_get(t, "fail")),
        (long long)json_integer_value(json_object_get(t, "skip")),
        (long long)json_integer_value(json_object_get(t, "runs_failed")));
    /* rules that did not pass, as a table */
    json_t *runs = json_object_get(r->check_doc, "runs");
    size_t idx;
    json_t *ro;
    int any = 0;
    json_array_foreach(runs, idx, ro) {
        json_t *rules = json_object_get(ro, "rules");
        const char *name;
        json_t *res;
        json_object_foreach(rules, name, res) {
            const char *lvl = json_string_value(json_object_get(res, "level"));
            if (!lvl || (strcmp(lvl, "warn") && strcmp(lvl, "fail")))
                continue;
            if (!any++) {
                P("<div class=\"tablewrap\"><table><thead><tr>");
                th(b, "run", NULL, 0);
                th(b, "rule", NULL, 0);
                th(b, "level", NULL, 0);
                th(b, "why", NULL, 0);
                P("</tr></thead><tbody>\n");
            }
            P("<tr><td>");
            H(jl__report_base_name(json_string_value(json_object_get(ro, "file"))));
            P(" · <code>");
            H(json_string_value(json_object_get(ro, "run")));
            P("</code></td><td>");
            H(name);
            P(!strcmp(lvl, "fail")
                  ? "</td><td><span class=\"tag bad\">fail</span></td><td class=\"wrap\">"
                  : "</td><td><span class=\"tag warn\">warn</span></td><td class=\"wrap\">");
            H(json_string_value(json_object_get(res, "message")));
            P("</td></tr>\n");
        }
    }
    if (any)
        P("</tbody></table></div>\n");
    else
        P("<p>No rule warns or fails on any run.</p>\n");
    P("</section>\n");
}

static void files_section(jl__strbuf *b, jl__report_report *r, int number)
{
    jl__strbuf_printf(b, "<section id=\"files\">\n<h2>%d. Data, figures and notebooks</h2>\n",
                      number);
    P("<p>Everything on this page is in files beside it. The data documents are the same bytes "
      "the commands print; the CSVs keep full precision.</p>\n<div class=\"tablewrap\"><table>"
      "<thead><tr><th>file</th><th>what</th><th>the same bytes from</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < r->n_data; i++) {
        P("<tr><td><a href=\"");
        H(r->data[i].path);
        P("\"><code>");
        H(r->data[i].path);
        P("</code></a></td><td class=\"wrap\">");
        H(r->data[i].what);
        P("</td><td class=\"wrap small\">");
        if (r->data[i].cmd) {
            P("<code>");
            H(r->data[i].cmd);
            P("</code>");
        } else {
            P("<span class=\"muted\">report only</span>");
        }
        P("</td></tr>\n");
    }
    P("</tbody></table></div>\n<p><code>figures/</code>: each figure as <code>.svg</code> "
      "(<code>--formats svg,pdf,png</code> adds <code>.png</code>, <code>.pdf</code> 7 in wide "
      "and <code>.1col.pdf</code> 3.3 in wide, titles left to the caption), with the gnuplot "
      "script (<code>.gp</code>) and data (<code>.dat</code>) that draw it: edit the script and "
      "run <code>gnuplot NAME.gp</code> in that folder (<code>-e \"fmt='pdf'\"</code> for PDF, "
      "<code>fmt='pdf1'</code> for the single-column one). <code>notebooks-export/</code>: "
      "Jupyter notebooks that load <code>data/</code> with pandas and redraw every figure with "
      "matplotlib (<code>jupyter nbconvert --to notebook --execute</code> runs them).</p>\n");
    P("</section>\n");
}

static void method_section(jl__strbuf *b, jl__report_report *r, int number)
{
    jl__strbuf_printf(b, "<section id=\"method\">\n<h2>%d. Method</h2>\n", number);
    P("<ul class=\"findings\">"
      "<li><strong>Steady state.</strong> Every figure of a run is computed over one steady-state "
      "window (the shaded band of the power figures): for LLM runs the span where the request "
      "rule of the ML.ENERGY method holds, for diffusion from the first batch's start to the last "
      "batch's end. Energy outside it (warm-up, drain) is not in these figures; the whole-run "
      "figures beside them (the table of every run) and the accounts (<code>joules "
      "emissions</code>, <code>label</code>, <code>card</code>, <code>budget</code>: the whole "
      "run by default) count it.</li>"
      "<li><strong>Energy</strong> is that of all GPUs of the run in the window (the node's AC "
      "power at the wall where only that was measured: MLPerf Power), from the GPU's "
      "cumulative energy counter (restarts handled) or else the integral of power; energy per "
      "token = window energy / tokens generated in the window; energy per image = window energy "
      "/ images (videos).</li>"
      "<li><strong>SLO and pick.</strong> A run meets the SLO when every condition holds (e.g. "
      "<code>median_itl&lt;=100ms</code>); the pick is the run meeting it with the least energy "
      "per token (image, video), ties broken by GPU model, count, batch size, precision. "
      "Defaults: the paper's SLO sets (LLM/MLLM median ITL 50/100/250 ms, text-to-image "
      "10/30/60 s, text-to-video 100/500/1000 s); the middle one is a group's SLO "
      "(<code>" JL_REPORT_DEFAULT_SLO_LLM "</code>, <code>" JL_REPORT_DEFAULT_SLO_DIFFUSION
      "</code>, <code>" JL_REPORT_DEFAULT_SLO_VIDEO "</code>); set with <code>--slo</code>.</li>"
      "<li><strong>Frontier.</strong> Runs of one (model, task) not dominated in (latency, energy): "
      "median ITL vs energy per token for LLMs, batch latency vs energy per image (video) for "
      "diffusion; curves split by every knob that changes the configuration.</li>"
      "<li><strong>Normalised trends</strong> (Fig. 4 of the paper): each metric divided by its "
      "maximum over the batch sizes of one configuration; average power per GPU divided by the "
      "GPU's power limit (TDP).</li>"
      "</ul>\n");
    P("<p class=\"small muted\">Figures: ");
    if (r->gnuplot_version) {
        P("drawn by ");
        H(r->gnuplot_version);
    } else {
        P("not drawn (gnuplot unavailable)");
    }
    P(". Definitions of every figure: <code>docs/summary.md</code>; of the report: "
      "<code>docs/report.md</code>. Based on Chung et al., <em>Where Do the Joules Go? "
      "Diagnosing Inference Energy Consumption</em> (2026).</p>\n</section>\n");
}

/* The head of a page and its dark header line. */
static void page_begin(jl__strbuf *b, jl__report_report *r, const char *title, const char *h1)
{
    P("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<meta name=\"generator\" content=\"joules report\">\n<title>");
    H(title);
    P("</title>\n<style>\n");
    P(css);
    P("</style>\n</head>\n<body>\n<header class=\"top\"><div class=\"wrap\">\n<h1>");
    H(h1);
    P("</h1>\n");
    (void)r;
}

static void page_end(jl__strbuf *b)
{
    P("<footer>Written by <code>joules report</code> (joules " JL_VERSION_STRING
      "). This page needs no network "
      "and no JavaScript.</footer>\n</div>\n</body>\n</html>\n");
}

/* host/ (format 1.2): the whole system's energy of the runs that recorded
 * it (none: nothing written). */
static void host_table(jl__strbuf *b, jl__report_report *r)
{
    const jl_summary_list *l = r->l;
    size_t n = 0;
    for (size_t i = 0; i < l->count; i++)
        n += l->items[i]->host != NULL;
    if (!n)
        return;
    jl__strbuf_printf(b, "<h3>The whole system (%zu runs with host/)</h3>\n", n);
    P("<p class=\"small muted\">GPU, host and total energy over the same window: with the "
      "node's AC power, total = node and host = node − GPUs; else host = CPU + DRAM (RAPL) and "
      "total = GPUs + host (<code>docs/summary.md</code>, \"The whole system\").</p>\n");
    P("<div class=\"tablewrap\"><table><thead><tr>");
    th(b, "file · run", NULL, 0);
    th(b, "GPU energy", "J", 1);
    th(b, "host energy", "J", 1);
    th(b, "total energy", "J", 1);
    th(b, "GPU / token", "J", 1);
    th(b, "host / token", "J", 1);
    th(b, "total / token", "J", 1);
    th(b, "how", NULL, 0);
    P("</tr></thead><tbody>\n");
    for (size_t i = 0; i < l->count; i++) {
        const jl_summary *s = l->items[i];
        if (!s->host)
            continue;
        const double *f = s->fig;
        P("<tr><td>");
        H(jl__report_base_name(s->file));
        P(" · <code>");
        H(s->run ? s->run : "?");
        P("</code></td>");
        td_num(b, f[JL_FIG_STEADY_ENERGY_J], 1, 3);
        td_num(b, f[JL_FIG_HOST_ENERGY_J], 1, 3);
        td_num(b, f[JL_FIG_TOTAL_ENERGY_J], 1, 3);
        td_num(b, f[JL_FIG_ENERGY_PER_TOKEN_J], 1, 3);
        td_num(b, f[JL_FIG_HOST_ENERGY_PER_TOKEN_J], 1, 3);
        td_num(b, f[JL_FIG_TOTAL_ENERGY_PER_TOKEN_J], 1, 3);
        P("<td>");
        H(jl_host_method_name(s->host->method));
        P("</td></tr>\n");
    }
    P("</tbody></table></div>\n");
}

/* runs.html: every run, a table per kind of work. */
static jl_status runs_page(jl__report_report *r, jl_error **err)
{
    jl__strbuf buf;
    jl__strbuf *b = &buf;
    jl__strbuf_init(b);
    page_begin(b, r, "joules report: every run", "Every run");
    jl__strbuf_printf(
        b,
        "<p><a href=\"index.html\" style=\"color:#fff\">\xe2\x86\x90 the report</a> · %zu runs</p>\n"
        "</div></header>\n<div class=\"wrap\">\n",
        r->l->count);
    P("<p class=\"small muted\">Rounded to 3 significant digits; full precision in "
      "<a href=\"data/summary.csv\">data/summary.csv</a>. The pick of each group (at its SLO) is "
      "highlighted. Figures over the steady-state window at each run's scope (gpu: the GPUs' "
      "power; node: the node's AC power at the wall), but for the whole-run column: all the "
      "energy of the run, warm-up and drain included, over all its tokens (images); missing "
      "figures are shown as —.</p>\n");
    for (int k = 0; k < RP_KIND_COUNT; k++)
        runs_table(b, r, (jl__report_kind)k);
    host_table(b, r);
    page_end(b);
    return jl__report_write_buf(r, "runs.html", b, err);
}

/* diagnosis.html: every run's diagnosis, a section per group. */
static jl_status diagnosis_page(jl__report_report *r, jl_error **err)
{
    jl__strbuf buf;
    jl__strbuf *b = &buf;
    jl__strbuf_init(b);
    page_begin(b, r, "joules report: every run's diagnosis", "Every run's diagnosis");
    P("<p><a href=\"index.html\" style=\"color:#fff\">\xe2\x86\x90 the report</a> · "
      "<code style=\"background:transparent;color:#fff\">joules diagnose</code> on every run "
      "(data/diagnose.json)</p>\n</div></header>\n<div class=\"wrap\">\n");
    if (!r->diag)
        P("<p>No diagnosis was computed (see the notes of the report).</p>\n");
    for (size_t i = 0; i < r->n_groups; i++)
        group_run_diagnosis(b, r, i);
    page_end(b);
    return jl__report_write_buf(r, "diagnosis.html", b, err);
}

jl_status jl__report_html_write(jl__report_report *r, jl_error **err)
{
    jl__strbuf buf;
    jl__strbuf *b = &buf;
    jl__strbuf_init(b);
    const jl_summary_list *l = r->l;
    number_figures(r);
    /* distinct files */
    size_t nfiles = 0;
    for (size_t i = 0; i < l->count; i++)
        if (i == 0 || !l->items[i]->file || !l->items[i - 1]->file ||
            strcmp(l->items[i]->file, l->items[i - 1]->file))
            nfiles++;
    char title[128];
    snprintf(title, sizeof title, "joules report: %zu runs, %zu groups", l->count, r->n_groups);
    page_begin(b, r, title, "Where do the joules go?");
    jl__strbuf_printf(b,
                      "<p>GPU energy of AI inference: %zu runs from %zu trace file%s, %zu "
                      "(model, task) group%s",
                      l->count, nfiles, nfiles == 1 ? "" : "s", r->n_groups,
                      r->n_groups == 1 ? "" : "s");
    if (r->opt.n_inputs) {
        P(" · input ");
        for (size_t i = 0; i < r->opt.n_inputs; i++) {
            if (i)
                P(", ");
            P("<code style=\"background:transparent;color:#fff\">");
            H(r->opt.inputs[i]);
            P("</code>");
        }
    }
    if (r->opt.n_gpus) {
        P(" · GPU models ");
        for (size_t i = 0; i < r->opt.n_gpus; i++) {
            P(i ? ", " : "");
            H(r->opt.gpus[i]);
        }
    }
    if (r->opt.generated_at) {
        P(" · generated ");
        H(r->opt.generated_at);
    }
    P("</p>\n</div></header>\n<div class=\"wrap\">\n");

    /* table of contents */
    int sec = 1;
    P("<nav class=\"toc\"><h2>Contents</h2><ol>\n<li><a href=\"#answer\">The answer</a></li>\n");
    for (size_t i = 0; i < r->n_groups; i++) {
        P("<li><a href=\"#g-");
        H(r->groups[i].slug);
        P("\">");
        H(jl__report_base_name(r->groups[i].model));
        P(" — ");
        H(r->groups[i].task ? r->groups[i].task : "?");
        P("</a></li>\n");
    }
    P("<li><a href=\"#comparisons\">Comparisons across GPUs and precisions</a></li>\n"
      "<li><a href=\"#runs\">Every run</a></li>\n");
    if (r->budgets_html)
        P("<li><a href=\"#budgets\">Budgets</a></li>\n");
    P("<li><a href=\"#validation\">Validation</a></li>\n"
      "<li><a href=\"#files\">Data, figures and notebooks</a></li>\n<li><a href=\"#method\">Method</a></li>\n"
      "</ol></nav>\n");

    answer_section(b, r);
    for (size_t i = 0; i < r->n_groups; i++)
        group_section(b, r, i, ++sec);

    jl__strbuf_printf(
        b, "<section id=\"comparisons\">\n<h2>%d. Comparisons across GPUs and precisions</h2>\n",
        ++sec);
    for (size_t i = 0; i < r->n_figs; i++)
        if (in_comparisons(&r->figs[i]))
            figure_block(b, r, &r->figs[i]);
    for (size_t i = 0; i < r->n_cmp_notes; i++) {
        P("<p class=\"small muted\">");
        H(r->cmp_notes[i]);
        P("</p>\n");
    }
    group_figure_line(b, r, -1);
    P("<p class=\"small muted\">Every comparison of one GPU model against another (and of GPU "
      "counts, precisions) at matched SLOs is in the <code>data/compare-*.csv</code> files "
      "(listed under Data). Precision comparisons that belong to a group are shown in that "
      "group's section.</p>\n</section>\n");

    jl__strbuf_printf(b, "<section id=\"runs\">\n<h2>%d. Every run</h2>\n", ++sec);
    size_t nk[RP_KIND_COUNT] = {0};
    for (size_t i = 0; i < l->count; i++)
        nk[jl__report_kind_of(l->items[i])]++;
    jl__strbuf_printf(b,
                      "<p>All %zu runs (%zu LLM/MLLM, %zu text-to-image, %zu text-to-video), "
                      "with their figures and warnings: <a href=\"runs.html\">runs.html</a>; "
                      "full precision: <a href=\"data/summary.csv\">data/summary.csv</a>. Every "
                      "run's diagnosis: <a href=\"diagnosis.html\">diagnosis.html</a>.</p>\n"
                      "</section>\n",
                      l->count, nk[0], nk[1], nk[2]);
    char *attribution = jl__report_path(r, "attribution.html");
    if (attribution && access(attribution, F_OK) == 0)
        P("<p>Energy per layer, operator class and second of the profiled runs: "
          "<a href=\"attribution.html\">attribution.html</a>.</p>\n");
    free(attribution);
    if (r->budgets_html) {
        jl__strbuf_printf(b, "<section id=\"budgets\">\n<h2>%d. Budgets</h2>\n", ++sec);
        P(r->budgets_html);
        P("</section>\n");
    }
    validation_section(b, r, ++sec);
    files_section(b, r, ++sec);
    method_section(b, r, ++sec);
    page_end(b);
    jl_status st = jl__report_pack_page(r, b, err);
    if (!st)
        st = jl__report_write_buf(r, "index.html", b, err);
    if (!st && !r->opt.single_page)
        st = runs_page(r, err);
    if (!st && !r->opt.single_page)
        st = diagnosis_page(r, err);
    jl__strbuf_free(b);
    return st;
}
